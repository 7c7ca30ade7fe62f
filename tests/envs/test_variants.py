"""The catalogue walk: every variant is the same game in every face.

For every name of :mod:`octagames.catalogue` (each variant, and a game whose seed variant has
another name), ``make_game``, the Gymnasium id (plain and module-qualified), the OpenSpiel name,
and the PettingZoo envs (``make_env``, ``make_parallel_env``, the game module's ``variant=``) build
the same config, every field compared, at the variant's default player count and at another
count it is played with; every verb whose options are the shared ``--game/--players/--config``
parses ``--game v`` to the same config, and a variant's zoo model records it. Each face is one
entry of :data:`FACES`; a face that takes a variant name joins the walk by adding itself there.
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
from collections.abc import Callable
from typing import Any

import gymnasium
import pytest

import octagames.envs
from octagames import catalogue
from octagames.core import Game, make_game
from octagames.envs import GYMNASIUM_IDS, GYMNASIUM_MODULE_IDS, gymnasium_id, make_env, make_parallel_env
from octagames.experiments.cli import GameArgs, GamesArgs, parse_with_stdlib
from octagames.experiments.main import VERBS, module_of

# the optional extra skips; the project's own face is imported normally (a broken import fails)
pyspiel = pytest.importorskip("pyspiel")
eo = importlib.import_module("octagames.envs.openspiel")


def _players(num_players: int | None) -> dict[str, int]:
    """The keyword arguments that ask a face for ``num_players`` seats (none: the variant's default)."""
    return {} if num_players is None else {"num_players": num_players}


def _openspiel(name: str, num_players: int | None) -> Any:
    params = "" if num_players is None else f"(num_players={num_players})"
    return pyspiel.load_game(eo.short_name(name) + params).octagame.config


def _pettingzoo_module(name: str, num_players: int | None) -> Any:
    """The game's own module ``octagames.envs.<game>_v0`` with ``variant=``."""
    module = importlib.import_module(f"octagames.envs.{catalogue.variant(name).game}_v0")
    return module.env(variant=name, **_players(num_players)).unwrapped.game.config


def _verb_configs() -> dict[str, type]:
    """Every verb whose options are the shared game options (``GameArgs``, or ``GamesArgs`` for the
    verbs of several games): verb -> its config class."""
    out = {}
    for verb in VERBS:
        module = importlib.import_module(module_of(verb))
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, (GameArgs, GamesArgs))
                    and obj.__module__ == module.__name__ and dataclasses.is_dataclass(obj)):
                out[verb] = obj
    return out


def _verb_face(verb: str, cls: type) -> Callable[[str, int | None], Any]:
    def build(name: str, num_players: int | None) -> Any:
        args = ["--game", name] + ([] if num_players is None else ["--players", str(num_players)])
        parsed = parse_with_stdlib(cls, args)
        return (parsed.entries()[0] if isinstance(parsed, GamesArgs) else parsed).make_game().config
    return build


def _az() -> Any:
    """The AlphaZero module, skipping without torch (the train extra); a broken import of the module fails."""
    pytest.importorskip("torch", reason="the zoo models need the train extra: pip install 'octagames[train]'")
    return importlib.import_module("octagames.agents.learn.az")


def _zoo(name: str, num_players: int | None) -> Any:
    """The config the zoo model of ``name`` at ``num_players`` seats (``zoo:<name>`` or
    ``zoo:<name>-<n>p``) records in its card, or None when the variant has no model for that count."""
    az = _az()
    v = catalogue.variant(name)
    if v.name != name or (v.default_players if num_players is None else num_players) not in v.zoo:
        return None
    card = az.zoo_card(v.zoo_name(num_players))["config"]
    return importlib.import_module(f"octagames.{v.game}").Config(**card)


#: face -> the config it builds for ``(name, num_players or None)``; ``None`` where the face has no
#: such game (a variant without a zoo model). A face that takes variant names joins the walk here.
FACES: dict[str, Callable[[str, int | None], Any]] = {
    "make_game": lambda n, p: make_game(n, **_players(p)).config,
    "gymnasium.make(id)": lambda n, p: gymnasium.make(gymnasium_id(n), **_players(p)).unwrapped.game.config,
    "gymnasium.make(module:id)":
        lambda n, p: gymnasium.make(GYMNASIUM_MODULE_IDS[n], **_players(p)).unwrapped.game.config,
    "pyspiel.load_game": _openspiel,
    "openspiel.load": lambda n, p: eo.load(n, **_players(p)).octagame.config,
    "pettingzoo make_env": lambda n, p: make_env(n, **_players(p)).unwrapped.game.config,
    "pettingzoo make_parallel_env": lambda n, p: make_parallel_env(n, **_players(p)).game.config,
    "pettingzoo <game>_v0 variant=": _pettingzoo_module,
    **{f"octagames {verb} --game": _verb_face(verb, cls) for verb, cls in _verb_configs().items()},
    "zoo:<variant> (its card)": _zoo,
}


def face_configs(name: str, num_players: int | None = None) -> dict[str, dict[str, Any]]:
    """Every face's config of ``name``, as ``{face: {field: value}}`` (every field of the game's ``Config``).

    Args:
        name: a name of the catalogue.
        num_players: the seats asked for; ``None`` asks for none (the variant's default).
    """
    configs = {face: build(name, num_players) for face, build in FACES.items()}
    return {face: dataclasses.asdict(c) for face, c in configs.items() if c is not None}


def _cases() -> list[tuple[str, int | None]]:
    """Every name at its default player count, and at its largest other count where it has one."""
    cases: list[tuple[str, int | None]] = []
    for name in catalogue.names():
        players = catalogue.variant(name).players
        cases.append((name, None))
        if len(players) > 1:
            cases.append((name, players[-1]))
    return cases


CASES = _cases()


@pytest.mark.parametrize("name, num_players", CASES, ids=[f"{n}-{p or 'default'}p" for n, p in CASES])
def test_every_face_builds_the_variants_config(name, num_players):
    v = catalogue.variant(name)
    configs = face_configs(name, num_players)
    expected = configs["make_game"]
    # the variant's own fields and seats, so that faces agreeing on another config cannot pass
    assert {k: expected[k] for k in v.config} == dict(v.config)
    assert expected["num_players"] == (v.default_players if num_players is None else num_players)
    assert catalogue.variant_name(v.game, expected) == v.name  # the config names its variant back
    differ = {face: {k: value for k, value in c.items() if value != expected[k]}
              for face, c in configs.items() if c != expected}
    assert not differ, f"{name}: these faces build another config than make_game({name!r}): {differ}"


def test_every_name_has_one_id_and_one_openspiel_name():
    names = catalogue.names()
    assert sorted(GYMNASIUM_IDS.values()) == sorted(names) and sorted(GYMNASIUM_MODULE_IDS) == sorted(names)
    assert len(set(GYMNASIUM_IDS)) == len(names)
    assert all(gymnasium.spec(gymnasium_id(n)).id == gymnasium_id(n) for n in names)
    assert GYMNASIUM_MODULE_IDS["octa-nl"] == "octagames.envs:octagames/Octa-nl-v0"
    assert gymnasium_id("octrix") == catalogue.game_spec("octrix").gymnasium_id == "octagames/Octrix-v0"
    assert gymnasium_id("octrix-round") == "octagames/Octrix-round-v0"
    assert gymnasium_id("achten-dealer-pays") == "octagames/Achten-dealer-pays-v0"
    registered = set(eo.register_all())
    assert registered == {eo.short_name(n) for n in names} and len(registered) == len(names)
    assert {"octagames_octa_nl", "octagames_octrix_round", "octagames_octa"} <= registered
    assert registered <= set(pyspiel.registered_names())


def test_a_face_refuses_an_unknown_name_listing_the_valid_ones():
    for build in (lambda: make_env("octa-de"), lambda: make_parallel_env("octa-de"),
                  lambda: eo.load("octa-de"), lambda: octagames.envs.gymnasium_id("octa-de")):
        with pytest.raises(ValueError, match=r"'octa-de' is not valid; valid values: \[.*'octa-nl'"):
            build()
    with pytest.raises(pyspiel.SpielError, match="octagames_octa_de"):
        pyspiel.load_game("octagames_octa_de")
    octrix_v0 = importlib.import_module("octagames.envs.octrix_v0")
    with pytest.raises(ValueError, match=r"variant='octa-nl' is not valid for octrix; valid values: "
                                         r"\['octrix', 'octrix-round', 'octrix-round-small', 'octrix-partnership'\]"):
        octrix_v0.env(variant="octa-nl")
    with pytest.raises(ValueError, match=r"game='octa-nl' is not valid for OctrixEnv"):
        gymnasium.make("octagames/Octrix-v0", game="octa-nl")
    with pytest.raises(ValueError, match=r"^variant='octa-de' is not valid for OctaEnv"):  # the keyword written
        gymnasium.make("octagames/Octa-v0", variant="octa-de")
    octa_v0 = importlib.import_module("octagames.envs.octa_v0")
    with pytest.raises(ValueError, match=r"valid values: \['octa-en', 'octa-nl', 'octa'\]"):  # octa is accepted
        octa_v0.env(variant="octa-de")
    assert octa_v0.env(variant="octa").unwrapped.game.config == octa_v0.env(variant="octa-en").unwrapped.game.config


def test_config_fields_go_over_the_variants_in_every_face():
    expected = make_game("octrix-round", target=30, num_players=3).config
    assert (expected.match, expected.target, expected.num_players) == (False, 30, 3)
    over = {"target": 30, "num_players": 3}
    assert gymnasium.make("octagames/Octrix-round-v0", **over).unwrapped.game.config == expected
    assert pyspiel.load_game("octagames_octrix_round(target=30,num_players=3)").octagame.config == expected
    assert eo.load("octrix-round", **over).octagame.config == expected
    assert make_env("octrix-round", **over).unwrapped.game.config == expected
    assert make_parallel_env("octrix-round", **over).game.config == expected


def test_variants_survive_pickles_and_saves():
    env = gymnasium.make("octagames/Octa-nl-v0").unwrapped
    assert pickle.loads(pickle.dumps(env)).game.config == env.game.config  # the pickle passes game="octa-nl"
    aec = importlib.import_module("octagames.envs.octrix_v0").raw_env(variant="octrix-round", num_players=3)
    assert aec._ezpickle_kwargs["variant"] == "octrix-round"
    aec.reset(seed=0)
    assert pickle.loads(pickle.dumps(aec)).game.config == make_game("octrix-round", num_players=3).config
    game = pyspiel.load_game("octagames_octa_nl")
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    text = eo.serialize_game_and_state(game, state)
    assert "[Game]\noctagames_octa_nl(" in text  # saved under the name it was loaded by, every field written
    for load in (eo.deserialize_game_and_state, pyspiel.deserialize_game_and_state):
        again, restored = load(text)
        assert again.get_type().short_name == "octagames_octa_nl" and again.octagame.config.rules == "nl"
        assert restored.serialize() == state.serialize()


def test_the_walk_covers_every_single_game_verb_and_every_zoo_model():
    verbs = _verb_configs()
    assert {"play", "evaluate", "tournament", "train-ppo", "train-az", "train-cfr", "bench-ray",
            "bench", "bench-az", "bench-ppo", "bench-mcts", "bench-startup", "warmup", "fuzz"} <= set(verbs)
    az = _az()
    for name, (v, n) in catalogue.zoo_models().items():  # every zoo model, with its variant at its seat count
        assert az.zoo_card(name)["config"]["num_players"] == n
        assert set(face_configs(v.name, n)) == set(FACES)


def test_a_config_no_variant_has_is_named_after_the_closest_variant_played_with_its_seats():
    small = {"match": False, "ranks": 2, "hand_size": 2}
    assert catalogue.variant_name("octrix", {**small, "num_players": 2}) == "octrix-round-small"
    # octrix-round-small is a 2-player variant: with 3 seats the closest variant they play is the round
    assert catalogue.variant_name("octrix", {**small, "num_players": 3}) == "octrix-round+hand_size=2+ranks=2"
    assert catalogue.describe("octrix", {**small, "ranks": 3, "num_players": 2}) == "octrix-round-small+ranks=3-2p"
    assert catalogue.variant_name("octa", {"rules": "nl", "max_turns": 20}) == "octa-nl+max_turns=20"
    # a variant's name works as a game's (it raised ModuleNotFoundError: no module octagames.octa-nl)
    assert catalogue.variant_name("octa-nl", {"max_turns": 20}) == "octa-nl+max_turns=20"
    assert catalogue.describe("octrix-round-small") == "octrix-round-small-2p"
    assert catalogue.full_config("achten-match") == catalogue.full_config("achten", {"match": True})
    assert catalogue.config_digest("octa-nl") == catalogue.config_digest("octa", {"rules": "nl"})
    with pytest.raises(ValueError, match=r"game='octrx' is not valid; valid values: \['octrix'"):
        catalogue.variant_name("octrx")


def test_a_variant_declares_zoo_models_only_at_its_own_player_counts():
    v = catalogue.Variant("octrix-x", "octrix", "a test variant", {"match": False}, players=(2, 3), zoo=(2, 3))
    assert (v.zoo_name(), v.zoo_name(2), v.zoo_name(3)) == ("octrix-x", "octrix-x", "octrix-x-3p")
    with pytest.raises(ValueError, match=r"^variant 'octrix-x': zoo=\(4,\) names a player count not in "
                                         r"players=\(2, 3\)$"):
        catalogue.Variant("octrix-x", "octrix", "a test variant", players=(2, 3), zoo=(4,))
    with pytest.raises(ValueError, match=r"^variant 'octrix-x': zoo=True must be a tuple of player counts"):
        catalogue.Variant("octrix-x", "octrix", "a test variant", zoo=True)  # the flag it once was


def test_a_variant_refuses_a_player_count_it_is_not_played_with_in_every_face():
    # octiles-play-on is a 3- and 4-player variant, octrix-round-small a 2-player one: both built other counts
    message = r"^num_players=2 is not valid for variant 'octiles-play-on'; valid values: \[3, 4\]"
    for build in (lambda: make_game("octiles-play-on", num_players=2),
                  lambda: Game("octiles-play-on", make_game("octiles", play_on=True, num_players=2).config),
                  lambda: make_env("octiles-play-on", num_players=2),
                  lambda: make_parallel_env("octiles-play-on", num_players=2),
                  lambda: eo.load("octiles-play-on", num_players=2),
                  lambda: gymnasium.make("octagames/Octiles-play-on-v0", num_players=2)):
        with pytest.raises(ValueError, match=message):
            build()
    with pytest.raises(ValueError, match=r"num_players=3 is not valid for variant 'octrix-round-small'; valid "
                                         r"values: \[2\]"):
        make_game("octrix-round-small", num_players=3)
    with pytest.raises(ValueError, match="num_players=2 is not valid for variant .octiles-play-on."):
        pyspiel.load_game("octagames_octiles_play_on(num_players=2)")
    # OpenSpiel's game types say so (they gave the game's 2..4 for both)
    for name, counts in (("octiles_play_on", (3, 4)), ("octrix_round_small", (2, 2)), ("octiles", (2, 4))):
        kind = pyspiel.load_game(f"octagames_{name}").get_type()
        assert (kind.min_num_players, kind.max_num_players) == counts, name
    # the game's own name takes every count its rules allow, and the variant its own counts
    assert make_game("octiles", play_on=True, num_players=2).config.num_players == 2
    assert [make_game("octiles-play-on", num_players=n).num_players for n in (3, 4)] == [3, 4]
