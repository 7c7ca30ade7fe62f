"""Models know their variant: a model file records its game and every config field; another config is
refused in one sentence naming both configs and the options that fit, or played with a warning when the
user allows it; ``zoo:<variant>`` (and ``zoo:<variant>-<n>p``) is the catalogue's variants' ``zoo`` player counts."""

from __future__ import annotations

import re
import warnings

import pytest

from octagames import catalogue
from octagames.agents.arena import play_game
from octagames.agents.base import RandomAgent
from octagames.agents.learn import az
from octagames.agents.learn.az import PolicyValueNet, SearchConfig, load_model, save_model
from octagames.agents.model_config import fitting_options, recorded_config
from octagames.agents.learn.ppo import ActorCritic, load_policy, save_policy
from octagames.agents.registry import make_agent
from octagames.core import Game, make_game

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


@pytest.fixture(scope="module")
def round_model(tmp_path_factory):
    """A small AZ model (greedy play) and a PPO policy, both saved from the single round of Octrix."""
    g = Game("octrix-round")
    folder = tmp_path_factory.mktemp("models")
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    ppo = save_policy(ActorCritic(g.observation_size, g.num_actions, hidden=(8,)), folder / "policy.pt", g)
    return save_model(net, folder / "model.pt", g, SearchConfig(simulations=0)), ppo


def test_model_files_record_every_config_field_and_name_the_variant(round_model):
    path, ppo = round_model
    want = catalogue.full_config("octrix", {"match": False})
    for data in (load_model(path)[1], load_policy(ppo)[1]):
        assert data["game"] == "octrix" and data["game_config"] == want
        assert data["variant"] == "octrix-round-2p"


def test_another_config_is_refused_naming_both_configs_and_the_variant_that_fits(round_model):
    path, _ = round_model
    with pytest.raises(ValueError) as refused:
        make_agent(f"az:{path}", Game("octrix"))  # a Game: checked at once, before any game
    text = str(refused.value)
    assert "\n" not in text
    assert text.startswith(f"az:{path} was trained on octrix-round-2p, not octrix-2p "
                           "(match=True here, False in training); play it with --game octrix-round, or allow")
    assert "allow_config_mismatch=True" in text and "--allow-model-mismatch" in text
    by_name = make_agent(f"az:{path}", "octrix")  # a name: the check waits for the first game
    with pytest.raises(ValueError, match=r"trained on octrix-round-2p, not octrix-2p"):
        play_game(Game("octrix"), [by_name, RandomAgent()], seed=0)
    with pytest.raises(ValueError, match=r"not octrix-round-3p \(num_players=3 here, 2 in training\); "
                                         r"play it with --game octrix-round --players 2,"):
        make_agent(f"az:{path}", Game("octrix-round", num_players=3))
    with pytest.raises(ValueError, match=r"is an octrix run .*; you asked for achten .*; "
                                         r"play it with --game octrix-round$"):
        make_agent(f"az:{path}", Game("achten"))  # another game: no override
    plays = make_agent(f"az:{path}", Game("octrix-round"))
    rets, length = play_game(Game("octrix-round"), [plays, RandomAgent()], seed=0)
    assert length > 0


def test_the_override_plays_another_config_with_a_warning(round_model):
    path, ppo = round_model
    with pytest.warns(UserWarning, match=r"az:.* was trained on octrix-round-2p, not octrix-2p "
                                         r"\(match=True here, False in training\); playing it anyway"):
        agent = make_agent(f"az:{path}", Game("octrix"), allow_config_mismatch=True)
    assert agent.allow_config_mismatch
    with warnings.catch_warnings(record=True) as seen:  # warned once, at make_agent: not again at each game
        warnings.simplefilter("always")
        for seed in (1, 2):
            rets, length = play_game(Game("octrix"), [agent, RandomAgent()], seed=seed)
            assert length > 0
    assert not [w for w in seen if "playing it anyway" in str(w.message)]
    by_name = make_agent(f"az:{path}", "octrix", allow_config_mismatch=True)  # a name: it warns at its first game
    with pytest.warns(UserWarning, match="playing it anyway") as seen:
        for seed in (1, 2):
            play_game(Game("octrix"), [by_name, RandomAgent()], seed=seed)
    assert len([w for w in seen if "playing it anyway" in str(w.message)]) == 1
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="seat count differs"):
        make_agent(f"az:{path}", Game("octrix-round", num_players=3), allow_config_mismatch=True)  # no override
    with pytest.raises(ValueError, match=r"ppo:.* was trained on octrix-round-2p, not octrix-2p"):
        make_agent(f"ppo:{ppo}", Game("octrix"))
    with pytest.warns(UserWarning, match=r"ppo:.* was trained on octrix-round-2p, not octrix-2p"):
        make_agent(f"ppo:{ppo}", Game("octrix"), allow_config_mismatch=True)


def test_the_options_that_fit_a_config_no_variant_has():
    config = catalogue.full_config("octrix", {"match": False, "ranks": 3, "hand_size": 2, "num_players": 3})
    assert fitting_options("octrix", config) == "--game octrix-round --players 3 --config hand_size=2 ranks=3"
    assert fitting_options("octa", catalogue.full_config("octa", {"rules": "nl"})) == "--game octa-nl"
    assert fitting_options("octa", catalogue.full_config("octa", {"rules": "nl"}), players=True) == \
        "--game octa-nl --players 2"
    # an older file: a field it lacks takes today's default, a field the Config lost is dropped
    assert recorded_config("octrix", {"num_players": 2, "match": False, "retired": 1}) == \
        catalogue.full_config("octrix", {"match": False})


def test_the_zoo_is_the_catalogues_zoo_counts_each_with_its_file():
    want = [v.name if n == v.default_players else f"{v.name}-{n}p"
            for v in catalogue.variants().values() for n in sorted(v.zoo, key=lambda n: (n != v.default_players, n))]
    assert az.zoo_names() == want == list(catalogue.zoo_models())
    assert sorted(p.stem for p in az.ZOO_DIR.glob("*.pt")) == sorted(want)
    assert sorted(p.stem for p in az.ZOO_DIR.glob("*.json")) == sorted(want)


@pytest.mark.parametrize("name", az.zoo_names())
def test_every_zoo_model_loads_for_its_variant_and_seats_and_its_card_records_that_config(name):
    variant, n = catalogue.zoo_models()[name]
    g = make_game(variant.name, num_players=n)
    agent = make_agent(f"zoo:{name}", g)  # checked against the full config at once
    want = catalogue.full_config(g.name, g.config)
    assert agent.data["game"] == g.name and recorded_config(g.name, agent.data["game_config"]) == want
    card = az.zoo_card(name)
    assert card["name"] == name and card["game"] == g.name and card["config"] == want
    assert card["variant"] == catalogue.describe(g.name, g.config) == f"{variant.name}-{n}p"
    assert az.zoo_variant(name) == variant and az.zoo_players(name) == n
    assert az.zoo_path(f"{variant.name}-{n}p") == az.zoo_path(name)  # the seats spelled out: the same model


def test_a_zoo_model_refuses_another_player_count_and_names_the_zoos_model_for_it():
    with pytest.raises(ValueError, match=r"^zoo:octrix was trained on octrix-2p, not octrix-4p \(num_players=4 "
                                         r"here, 2 in training\); play it with --game octrix --players 2, or allow"):
        make_agent("zoo:octrix", make_game("octrix", num_players=4))
    with pytest.raises(ValueError) as refused:
        make_agent("net:octrix:0", make_game("octrix", num_players=3))
    assert str(refused.value).startswith("net:octrix:0 was trained on octrix-2p, not octrix-3p")
    assert str(refused.value).endswith("; the zoo's model for octrix-3p is net:octrix-3p:0")  # the same budget
    with pytest.raises(ValueError, match=r"the zoo's model for octrix-2p is zoo:octrix$"):
        make_agent("zoo:octrix-3p", make_game("octrix"))
    assert az.zoo_model_for(make_game("octrix", num_players=4)) is None  # no model at 4 seats
    assert az.zoo_model_for(make_game("octrix", num_players=3, target=20)) is None  # another field


@pytest.mark.parametrize("variant,other", [("octrix", "octrix-round"), ("octa-nl", "octa-en"),
                                           ("achten-dealer-pays", "achten"),
                                           ("octiles-fixed-start", "octiles")])
def test_a_zoo_model_refuses_the_other_variants_of_its_game(variant, other):
    with pytest.raises(ValueError, match=rf"^zoo:{variant} was trained on {variant}-2p, not {other}-2p \(.*\); "
                                         rf"play it with --game {variant}, or allow"):
        make_agent(f"zoo:{variant}", make_game(other))


def _zoo_of(game: str) -> str:
    return ", ".join(name for name, (v, _) in catalogue.zoo_models().items() if v.game == game)


@pytest.mark.parametrize("name,reason", [
    ("octa", f": octa is a game, not a variant (zoo models of octa: {_zoo_of('octa')})"),
    ("achten", f": the variant achten has no model (zoo models of achten: {_zoo_of('achten')})"),
    ("octa-nl-3p", f": the variant octa-nl has no model for 3 players (zoo models of octa: {_zoo_of('octa')})"),
    ("octrix-round-3p", f": the variant octrix-round has no model (zoo models of octrix: {_zoo_of('octrix')})"),
    ("chess", ""),
    ("chess-2p", ""),
    ("octrix-03p", ""),  # a count is written in plain digits
])
def test_an_unknown_zoo_name_is_one_line_listing_the_zoos_models(name, reason):
    with pytest.raises(ValueError) as refused:
        make_agent(f"zoo:{name}", "octa")
    text = str(refused.value)
    assert text == f"zoo:{name} is not valid{reason}; valid zoo models: {', '.join(az.zoo_names())}"


def test_a_zoo_model_of_another_game_names_its_variant_and_seats():
    with pytest.raises(ValueError, match=r"^zoo:octrix-3p plays octrix; you asked for octa "
                                         r"\(play it with --game octrix --players 3\)$"):
        make_agent("zoo:octrix-3p", "octa")


def test_a_zoo_model_of_another_game_names_its_variant():
    with pytest.raises(ValueError, match=r"^zoo:octa-nl plays octa; you asked for octrix "
                                         r"\(play it with --game octa-nl\)$"):
        make_agent("zoo:octa-nl", "octrix")
    assert make_agent("zoo:octa-nl", "octa-nl").data["game"] == "octa"  # a variant name for the game


class _Payload:
    """Unpickling this calls ``pathlib.Path.touch`` on a marker: what a crafted model file would do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import pathlib
        return pathlib.Path.touch, (pathlib.Path(self.marker),)


def test_a_model_file_that_would_run_code_is_refused_before_anything_in_it_runs(round_model, tmp_path):
    import torch

    from octagames.experiments.train_ppo import ppo_origin

    g = Game("octrix-round")
    marker = tmp_path / "ran"
    for fmt in ("octagames-az-model-1", "octagames-ppo-policy-1"):
        torch.save({"format": fmt, "spec": _Payload(marker)}, tmp_path / f"{fmt}.pt")
    (tmp_path / "run").mkdir()  # a policy whose checkpoint beside it is the crafted file
    (tmp_path / "run" / "policy.pt").write_bytes(round_model[1].read_bytes())
    torch.save({"config": _Payload(marker)}, tmp_path / "run" / "checkpoint.pt")
    calls = [lambda: load_model(tmp_path / "octagames-az-model-1.pt"),
             lambda: load_policy(tmp_path / "octagames-ppo-policy-1.pt"),
             lambda: make_agent(f"az:{tmp_path / 'octagames-az-model-1.pt'}", g),
             lambda: make_agent(f"ppo:{tmp_path / 'octagames-ppo-policy-1.pt'}", g),
             lambda: ppo_origin(f"ppo:{tmp_path / 'run' / 'policy.pt'}")]
    for call in calls:
        with pytest.raises(ValueError,
                           match=r"refused it \(Unsupported global: GLOBAL getattr\).*could run any code"):
            call()
        assert not marker.exists()
    # the files octagames writes load (models, policies), and the payload is live: pickle's own loader runs it
    assert load_model(round_model[0])[1]["format"] == az.MODEL_FORMAT
    assert load_policy(round_model[1])[1]["format"] == "octagames-ppo-policy-1"
    torch.load(tmp_path / "octagames-az-model-1.pt", weights_only=False)
    assert marker.exists()


def test_a_file_that_is_not_a_torch_file_is_refused_in_words(tmp_path):
    (tmp_path / "notes.pt").write_text("not a model")
    with pytest.raises(ValueError, match=r"notes.pt is not a torch model file \(Unsupported operand"):
        load_model(tmp_path / "notes.pt")


def _field_outside_its_item():
    """A structured array whose dtype, as a pickle can rebuild it, puts a field 1 MiB past its 4-byte item."""
    import numpy as np

    state = list(np.dtype([("a", "<i4")]).__reduce__()[2])
    state[4] = {"a": (np.dtype("<i4"), 1 << 20)}
    bad = np.dtype("V4")
    bad.__setstate__(tuple(state))
    return np.zeros(2, dtype="V4").view(bad)  # never indexed by field here: that would read outside it


def test_numpy_arrays_load_but_objects_and_fields_outside_their_item_are_refused(tmp_path):
    import numpy as np
    import torch

    from octagames.agents.model_config import load_model_file

    plain = {"rng": np.random.get_state(), "rows": [{"x": np.float64(0.5)}],
             "records": np.zeros(3, dtype=[("a", "<i4"), ("b", "u1", (2,))])}
    torch.save(plain, tmp_path / "plain.pt")
    back = load_model_file(tmp_path / "plain.pt")
    assert back["records"].dtype == plain["records"].dtype and back["rows"][0]["x"] == 0.5
    assert (back["rng"][1] == plain["rng"][1]).all()
    refused = {"outside": ({"x": [_field_outside_its_item()]}, r"an array's field 'a' at bytes 1048576-1048580"),
               "objects": ({"x": np.array([1, "a"], dtype=object)}, "an array's dtype object holds Python objects"),
               "generator": ({"g": np.random.default_rng(0)},
                             r"refused it \(Unsupported global: GLOBAL numpy\.random")}
    for name, (data, why) in refused.items():
        torch.save(data, tmp_path / f"{name}.pt")
        with pytest.raises(ValueError, match=why):
            load_model_file(tmp_path / f"{name}.pt")


class _Shell:
    """Unpickling this runs a shell command (``os.system``) that creates a marker."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os
        return os.system, (f"touch {self.marker}",)


def test_a_model_file_that_calls_the_shell_is_refused_as_unsafe_in_words(tmp_path):
    import torch
    from octagames.agents.model_config import UnsafeModelFile

    # torch words this refusal "unsupported GLOBAL posix.system ... blocked": it is named as the unsafe object it
    # is, not passed off as a damaged file with torch's advice to load it unsafely
    marker = tmp_path / "ran"
    torch.save({"format": az.MODEL_FORMAT, "spec": _Shell(marker)}, tmp_path / "shell.pt")
    with pytest.raises(UnsafeModelFile, match=r"refused it \(.*system.*\).*could run any code") as e:
        load_model(tmp_path / "shell.pt")
    assert "weights_only" not in str(e.value) and not marker.exists()


def test_a_model_file_whose_spec_or_weights_do_not_fit_is_refused_before_any_memory_is_spent(round_model, tmp_path):
    """A few kilobytes asking for hidden layers of 40,000 units allocated gigabytes (48 s, then torch's out of
    memory); weights of other shapes or names raised torch's RuntimeError, and a spec of another type TypeError."""
    import time

    import torch

    az_file, ppo_file = round_model
    model, policy = torch.load(az_file, weights_only=False), torch.load(ppo_file, weights_only=False)
    first = next(iter(model["state_dict"]))
    for label, data, load, words in (
            ("huge", {**model, "spec": {**model["spec"], "hidden": [40_000, 40_000]}}, load_model,
             r"do not fit its network's spec: \S+ is \[16\] in the file, \[40000\] in the network"),
            ("shape", {**model, "state_dict": {**model["state_dict"], first: torch.zeros(3)}}, load_model,
             rf"{first} is \[3\] in the file"),
            ("name", {**model, "state_dict": {"x": torch.zeros(1), **model["state_dict"]}}, load_model,
             r"x is \[1\] in the file, none in the network"),
            ("spec", {**model, "spec": ["a list"]}, load_model, r"its network's spec is not valid"),
            ("ppo huge", {**policy, "spec": {**policy["spec"], "hidden": [60_000, 60_000]}}, load_policy,
             r"do not fit its network's spec"),
            ("ppo spec", {**policy, "spec": "x"}, load_policy, r"its network's spec is not valid: KeyError"),
            ("ppo list", [1, 2], load_policy, r"is not an octagames PPO policy")):
        path = tmp_path / f"{label}.pt"
        torch.save(data, path)
        start = time.perf_counter()
        with pytest.raises(ValueError, match=words):
            load(path)
        assert time.perf_counter() - start < 5, label  # nothing allocated for the spec's size


def test_a_model_file_whose_members_are_compressed_is_refused_before_torch_inflates_them(round_model, tmp_path):
    """torch writes every zip member stored but reads deflated ones, inflating each whole: a crafted file of
    1.5 MiB loaded as a 1.5 GiB tensor. The files octagames writes and ships (stored) load as before."""
    import zipfile

    import torch

    from octagames.agents.model_config import load_model_file

    torch.save({"format": az.MODEL_FORMAT, "w": torch.zeros(1 << 22)}, tmp_path / "plain.pt")  # 16 MiB of zeros
    with zipfile.ZipFile(tmp_path / "plain.pt") as src, zipfile.ZipFile(tmp_path / "bomb.pt", "w") as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info), compress_type=zipfile.ZIP_DEFLATED)
    assert (tmp_path / "bomb.pt").stat().st_size < (1 << 20)
    for load in (load_model_file, load_model):
        with pytest.raises(ValueError, match=re.escape(str(tmp_path / "bomb.pt")) + r" is not a model file octagames "
                                             r"can read safely: its member '[^']+' takes \d+ bytes in the file and "
                                             r"\d+ once read \(compression method 8\)"):
            load(tmp_path / "bomb.pt")
    assert load_model_file(tmp_path / "plain.pt")["w"].numel() == 1 << 22
    for path in (*round_model, *sorted(az.ZOO_DIR.glob("**/*.pt"))):  # every file written or shipped: stored
        with zipfile.ZipFile(path) as z:
            assert {m.compress_type for m in z.infolist()} == {zipfile.ZIP_STORED}, path
        assert isinstance(load_model_file(path), dict), path


def test_a_model_file_changed_after_it_was_written_is_refused_by_its_checksums(round_model, tmp_path):
    """torch reads zip members without their CRC-32s: a flipped byte in a tensor loaded as other weights (a review:
    az: and ppo: models, and checkpoints, which read the same way)."""
    import zipfile

    from octagames.agents.model_config import load_model_file

    az_file, ppo_file = round_model
    for src, load in ((az_file, load_model), (ppo_file, load_policy), (az_file, load_model_file)):
        data = bytearray(src.read_bytes())
        with zipfile.ZipFile(src) as z:  # the middle of the largest member's bytes: a tensor's
            member = max(z.infolist(), key=lambda m: m.file_size)
            at = bytes(data).index(z.read(member)) + member.file_size // 2
        data[at] ^= 0x10
        damaged = tmp_path / f"damaged-{src.name}"
        damaged.write_bytes(bytes(data))
        with pytest.raises(ValueError, match=re.escape(str(damaged)) + rf" is damaged: its member "
                                             rf"'{re.escape(member.filename)}' does not match its checksum"):
            load(damaged)
    assert isinstance(load_model_file(az_file), dict)  # the files as written load


def test_a_model_file_whose_weights_are_not_finite_is_refused_naming_the_tensor(round_model, tmp_path):
    """A review: an az: file of NaN weights (what a diverged run writes) loaded, and its search then played action 0,
    which was illegal; a ppo: file loaded the same way."""
    import torch

    az_file, ppo_file = round_model
    for src, load, value in ((az_file, load_model, float("nan")), (ppo_file, load_policy, float("inf"))):
        data = torch.load(src, weights_only=False)
        name = next(k for k, v in data["state_dict"].items() if v.is_floating_point())
        weights = data["state_dict"][name].clone().contiguous()
        weights.view(-1)[0] = value
        data["state_dict"][name] = weights
        bad = tmp_path / f"nan-{src.name}"
        torch.save(data, bad)
        with pytest.raises(ValueError, match=re.escape(f"{bad}: its weights are not all finite: {name} holds NaN or "
                                                       "infinity")):
            load(bad)
        load(src)  # the file as written loads


def test_a_model_file_with_fields_of_the_wrong_kind_is_refused_in_words(round_model, tmp_path):
    """A review: an az: file whose game_config was a list raised AttributeError, and one whose search simulations
    were a string TypeError, from inside the loaders; both are ValueErrors in words now (the command line's line)."""
    import torch

    az_file, _ = round_model
    data = torch.load(az_file, weights_only=False)
    for label, change, words in (("config", {"game_config": [1, 2]}, r"game_config is not valid: a mapping of config "
                                                                     r"fields, not a list"),
                                 ("sims", {"search": {**data["search"], "simulations": "lots"}},
                                  r"simulations='lots' is not valid; it must be an integer")):
        bad = tmp_path / f"{label}.pt"
        torch.save({**data, **change}, bad)
        with pytest.raises(ValueError, match=words):
            make_agent(f"az:{bad}", Game("octrix-round"))


def test_a_file_of_other_text_given_as_a_model_is_refused_in_words(tmp_path):
    """A review: a CSV or text file given as az:/ppo: (or a trainer's checkpoint) crashed inside torch's reader with
    IndexError ('pop from empty list', a file starting with s, a, t ...) or KeyError (h, j): a traceback."""
    from octagames.agents.model_config import load_model_file

    for name, text in (("metrics.csv", b"step,win_rate\n0,0.5\n"), ("hello.txt", b"hello\n"), ("a.bin", b"\x85abc")):
        path = tmp_path / name
        path.write_bytes(text)
        for load in (load_model_file, load_model, load_policy):
            with pytest.raises(ValueError, match=re.escape(str(path)) + " is not a torch model file"):
                load(path)
