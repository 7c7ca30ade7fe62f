"""Game configs and game specs on the command line (one parser for every script)."""

import dataclasses
import importlib
import importlib.util
import re
import subprocess
import typing
from pathlib import Path

import numpy as np
import pytest
import tyro

import octagames
from octagames import catalogue
from octagames.experiments import cli
from octagames.experiments.cli import (POSITIONAL, REPEATED, GameArgs, GamesArgs, parse_config, parse_game_config,
                                       parse_with_stdlib, stdlib_parser, user_errors)
from octagames.experiments.demo import DemoConfig
from octagames.experiments.main import VERBS, module_of
from octagames.experiments.play import PlayConfig
from octagames.experiments.train_ppo import TrainConfig
from octagames.experiments.warmup import WarmupConfig


def test_values_take_the_type_of_the_field():
    assert parse_game_config("num_players=3, match=true,target=88", "octrix") == {
        "num_players": 3, "match": True, "target": 88}
    assert parse_game_config(("deal_penalty=1", "match=0"), "achten") == {"deal_penalty": 1.0, "match": False}
    assert parse_game_config(("deal_penalty=1,match=0", "ranks=5"), "achten") == {
        "deal_penalty": 1.0, "match": False, "ranks": 5}
    assert isinstance(parse_game_config("deal_penalty=1", "achten")["deal_penalty"], float)
    assert parse_game_config("rules=nl", "octa") == {"rules": "nl"}
    assert parse_game_config("", "octiles") == {} and parse_game_config((), "octiles") == {}


def test_bad_entries_name_the_field_and_the_choices():
    with pytest.raises(ValueError, match=r"fields: \[.*'hand_size'"):
        parse_game_config("nope=1", "octrix")
    with pytest.raises(ValueError, match="key=value"):
        parse_game_config(("ranks",), "octrix")
    with pytest.raises(ValueError, match="must be true or false"):
        parse_game_config("match=maybe", "octrix")
    with pytest.raises(ValueError, match="ranks='four' is not an integer"):  # it said "not a int"
        parse_game_config("ranks=four", "octrix")
    with pytest.raises(ValueError, match="target='three' is not a number"):
        parse_game_config("target=three", "achten")
    # int() and float() read these as 4, 10 and 3.0: the project's numbers from text are plain ASCII digits
    for item, words in (("ranks=\u0664", "ranks='\u0664' is not an integer in plain digits"),
                        ("target=1_0", "target='1_0' is not an integer in plain digits"),
                        ("deal_penalty=\u0663", "deal_penalty='\u0663' is not a number in plain digits")):
        with pytest.raises(ValueError, match=words):
            parse_game_config(item, "octrix" if item.startswith(("ranks", "target")) else "achten")
    assert parse_game_config("dealer=-1,target=+30", "octrix") == {"dealer": -1, "target": 30}  # a sign is fine
    assert parse_game_config("deal_penalty=1e-2", "achten") == {"deal_penalty": 0.01}
    with pytest.raises(ValueError, match="game='chess' is not valid; valid values"):
        parse_game_config("", "chess")


# -- the command line of every script: tyro, or the standard library's parser on a base install ----------

def _config_classes() -> list[type]:
    """The config dataclass of every script (``<Name>Config``, what its ``cli()`` parses)."""
    out = []
    for verb in VERBS:
        if importlib.util.find_spec(module_of(verb)) is None:  # a verb whose module is not written yet
            continue
        module = importlib.import_module(module_of(verb))
        out += [obj for name, obj in vars(module).items() if name.endswith("Config") and isinstance(obj, type)
                and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__]
    return out


def _one_change(f: dataclasses.Field, hint) -> list[str]:
    """The command line that changes field ``f`` from its default (a plausible value of its type)."""
    flag = "--" + f.name.replace("_", "-")
    default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
    kind = hint.__origin__ if hasattr(hint, "__metadata__") else hint
    if POSITIONAL in getattr(hint, "__metadata__", ()):
        return ["achten"]
    if REPEATED in getattr(hint, "__metadata__", ()):  # the flag once per value
        return [flag, "a", flag, "b"]
    if kind is bool:
        return [f"--no-{flag[2:]}" if default else flag]
    if kind is int:
        return [flag, str(default + 2)]
    if kind is float:
        return [flag, str(default + 0.5)]
    if f.name == "ray_address":  # an address of Ray's forms (a trainer's still needs ray_actors)
        return [flag, "auto"]
    if f.name == "root":  # serve's folder: one that exists
        return [flag, str(Path(__file__).parent)]
    if f.name == "activation":  # one of the two the networks have
        return [flag, "relu" if default == "tanh" else "tanh"]
    if f.name == "octrix_configs":  # bench_cfr's reduced Octrix decks, RANKSxHAND_SIZE
        return [flag, "1x2", "2x3"]
    if f.name == "games" and default == ("kuhn_poker", "leduc_poker"):  # bench_cfr's pyspiel games
        return [flag, "leduc_poker"]
    if kind is str:
        return [flag, "achten" if "game" in f.name and "config" not in f.name else "x"]
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (tuple, list):
        return [flag, *(["3", "5"] if args[0] is int else ["octrix", "achten"])]
    if f.name == "players":  # a count every game's default variant is played with (a variant refuses others)
        return [flag, "2"]
    if set(args) == {int, type(None)}:  # int | None: a seed, a bound
        return [flag, "3"]
    return [flag, "0.25"]  # float | None, Path


def _outcome(parse, cls: type, argv: list[str]):
    try:
        return "ok", parse(cls, args=argv)
    except SystemExit as e:
        return "exit", e.code


def test_the_stdlib_parser_reads_what_tyro_reads(capsys):
    """Field by field, every script's config: the same value from the same flag, or the same refusal."""
    classes = _config_classes()
    assert len(classes) >= 16
    compared = accepted = 0
    for cls in classes:
        hints = typing.get_type_hints(cls, include_extras=True)
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            argv = _one_change(f, hints[f.name])
            theirs, ours = _outcome(tyro.cli, cls, argv), _outcome(parse_with_stdlib, cls, argv)
            assert ours == theirs, (cls.__name__, argv)
            compared += 1
            accepted += ours[0] == "ok"
    capsys.readouterr()
    assert compared > 200 and accepted > 0.8 * compared, (compared, accepted)


def test_the_stdlib_parser_refuses_unknown_flags_and_bad_values(capsys):
    with pytest.raises(SystemExit) as e:
        parse_with_stdlib(DemoConfig, ["--bogus"])
    assert e.value.code == 2 and "unrecognized arguments: --bogus" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        parse_with_stdlib(DemoConfig, ["--seed", "one"])
    assert e.value.code == 2 and "invalid int value: 'one'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # the config's own check, in one line
        parse_with_stdlib(WarmupConfig, ["--game", "octa", "chess"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "game='chess' is not valid; valid values" in err
    assert parse_with_stdlib(WarmupConfig, ["--game", "octa", "--jobs", "1"]) == WarmupConfig(("octa",),
                                                                                              jobs=1)
    assert parse_with_stdlib(DemoConfig, []) == DemoConfig()


def test_the_stdlib_parser_helps_with_each_fields_docstring():
    text = stdlib_parser(TrainConfig).format_help()
    assert "--players PLAYERS" in text and "seats (None: the variant's default) (default: None)" in text
    assert "--progress, --no-progress" in text  # a bool field of a base class
    assert "learning rate" in text.lower()  # a field of the trainer's own class
    play = stdlib_parser(PlayConfig).format_help()
    assert "--game GAME" in play and "--players PLAYERS" in play and "--config [CONFIG ...]" in play


@pytest.mark.parametrize("config_cls, flag, shown", [
    (WarmupConfig, "--game", "(default: every game's seed variant, or the verb's own list where its description "
                             "names one)"),
    (DemoConfig, "--game", "(default: each installed game's demo variant: octrix-round, achten-dealer-pays, ...)"),
    (PlayConfig, "--config", "(default: none)"),
], ids=["several-games", "demo", "config"])
def test_a_default_that_stands_for_something_is_said_once_in_the_help(config_cls, flag, shown, capsys):
    with pytest.raises(SystemExit):
        parse_config(config_cls, ["--help"])  # tyro
    tyro_help = " ".join(capsys.readouterr().out.replace("│", " ").split())
    stdlib_help = " ".join(stdlib_parser(config_cls).format_help().split())
    for text in (tyro_help, stdlib_help):
        entry = text[text.rindex(flag + " "):]  # the last: its entry, after the usage line
        entry = entry[:entry.index(" --", 3)] if " --" in entry[3:] else entry
        assert shown in entry and entry.count("(default:") == 1, entry


# -- the game options every verb shares: --game VARIANT, --players N, --config key=value ... --------------

def _game_verbs() -> dict[str, type]:
    """The config class of every verb that names its games (it inherits :class:`GameArgs`, or
    :class:`GamesArgs` for several games), by verb."""
    out = {}
    for verb in VERBS:
        if importlib.util.find_spec(module_of(verb)) is None:
            continue
        module = importlib.import_module(module_of(verb))
        for name, obj in vars(module).items():
            if (name.endswith("Config") and isinstance(obj, type) and issubclass(obj, (GameArgs, GamesArgs))
                    and obj.__module__ == module.__name__):
                out[verb] = obj
    return out


GAME_VERBS = _game_verbs()


def test_the_verbs_that_play_a_game_share_the_game_options():
    assert {"play", "evaluate", "tournament", "bench", "bench-az", "bench-ppo", "bench-mcts", "bench-startup",
            "warmup", "fuzz"} <= set(GAME_VERBS), sorted(GAME_VERBS)


def test_the_readme_names_the_verbs_with_the_game_options_and_those_without():
    text = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    one = text[text.index("play, train or measure one game ("):].split(")")[0].split("(")[1]
    several = text[text.index("the verbs that run several games ("):].split(")")[0].split("(")[1]
    listed = {v.strip() for v in (one + "," + several).split(",")}
    assert listed == set(GAME_VERBS), sorted(set(GAME_VERBS) ^ listed)
    others = text[text.index("The others name what they work on"):].split("A mistake")[0]
    assert all(f"{verb}" in others for verb in set(VERBS) - set(GAME_VERBS)), others


def _resolved(cfg: GameArgs | GamesArgs) -> list[tuple[str, dict]]:
    """Every ``(game, fields)`` a verb's options give: one for a single-game verb."""
    return cfg.resolve_all() if isinstance(cfg, GamesArgs) else [cfg.resolve()]


@pytest.mark.parametrize("verb", sorted(GAME_VERBS))
def test_game_options_read_the_same_in_every_verb(verb, capsys):
    """``--game VARIANT``, ``--players N`` and ``--config key=value ...`` give the same game in every verb,
    those that play one game and those that run several (bench, warmup, fuzz, ...); a bad variant, field,
    value or seat count is one line and status 2 in each."""
    cls = GAME_VERBS[verb]
    several = issubclass(cls, GamesArgs)
    argv = ["--game", "octa-nl", "--players", "2", "--config", "max_turns=150"]
    for parse in (parse_config, parse_with_stdlib):
        cfg = parse(cls, argv)
        assert cfg.game == (("octa-nl",) if several else "octa-nl")
        assert (cfg.players, cfg.config) == (2, ("max_turns=150",))
        assert _resolved(cfg) == [("octa", {"rules": "nl", "max_turns": 150, "num_players": 2})]
        assert (cfg.describe_all() if several else [cfg.describe()]) == ["octa-nl+max_turns=150-2p"]
        default = parse(cls, [])  # no flag: the verb's own defaults (the seed's game unless it says so)
        if several:
            # several games: every game's seed variant, unless the verb names its own list (warmup: a variant
            # per kernel module; fuzz: the conformance list)
            if type(default).default_games is GamesArgs.default_games:
                assert _resolved(default) == [catalogue.resolve(g) for g in catalogue.games()]
            assert len(_resolved(default)) >= len(catalogue.games())
            # each game may carry its own fields; --players applies to every game
            two = parse(cls, ["--game", "octa-nl", "octrix-round:ranks=3,hand_size=3", "--players", "2"])
            octrix = {"match": False, "ranks": 3, "hand_size": 3, "num_players": 2}
            assert _resolved(two) == [("octa", {"rules": "nl", "num_players": 2}), ("octrix", octrix)]
        else:
            game = cfg.make_game()
            assert game.name == "octa" and game.config.rules == "nl" and game.config.max_turns == 150
            own = {f.name: f.default for f in dataclasses.fields(cls)
                   if f.name in ("game", "players", "config")}
            assert default.resolve() == GameArgs(**own).resolve()
            if own == {"game": "octrix", "players": None, "config": ()}:
                assert default.resolve() == ("octrix", {"match": True, "num_players": 2})
        # achten-dealer-pays at three seats, the seats given inside --config (commas separate items too)
        three = parse(cls, ["--game", "achten-dealer-pays", "--config", "num_players=3,ranks=10"])
        assert _resolved(three) == [("achten", {"deal_penalty": 1.0, "ranks": 10, "num_players": 3})]
    refusals = [(["--game", "octa-xx"], "game='octa-xx' is not valid; valid values: ['octrix', "),
                (["--game", "octa-nl", "--config", "colour=red"],
                 "config: 'colour=red' is not key=value with a field of octa; fields: ["),
                (["--game", "octa-nl", "--players", "5", "--config", "max_turns=150"],
                 "num_players=5 is not valid"),
                (["--game", "octrix", "--players", "3", "--config", "num_players=4"],
                 "--players 3 and --config num_players=4"),
                (["--game", "octrix", "--config", "match=maybe"], "match must be true or false")]
    if several:  # --config applies to every game: a field one of them lacks is refused, naming that game
        refusals += [(["--game", "octa-nl", "octrix", "--config", "max_turns=20"],
                      "config: 'max_turns=20' is not key=value with a field of octrix"),
                     (["--game", "octrix", "octa-nl:colour=red"], "config: 'colour=red' is not key=value"),
                     (["--games", "octrix"], "--games is not a flag of this verb: name the variants with")]
    for argv, expected in refusals:
        for parse in (parse_config, parse_with_stdlib):
            with pytest.raises(SystemExit) as e:
                parse(cls, argv)
            err = capsys.readouterr().err
            assert e.value.code == 2 and err.count("\n") == 1 and expected in err, (parse.__name__, argv, err)


def test_help_of_the_verbs_with_agents_names_every_agent_spec():
    from octagames.agents.registry import AGENTS

    for verb in ("play", "evaluate", "tournament"):
        text = stdlib_parser(GAME_VERBS[verb]).format_help()
        assert "agent specs (name or name:arg; octagames list" in text, verb
        for name, entry in AGENTS.items():
            assert f"  {name} " in text and entry.summary in " ".join(text.split()), (verb, name)
    assert "agent specs" not in stdlib_parser(DemoConfig).format_help()  # no agent field: no list


def test_help_of_the_trainers_and_leaderboard_names_the_agent_specs():
    # their spec fields have other names: eval_opponents, opponent_agent, imitation_teacher, add, ...
    for module, name in [("train_cfr", "TrainCFRConfig"), ("train_ppo", "TrainConfig"),
                         ("leaderboard", "LeaderboardConfig")]:
        cls = getattr(importlib.import_module(f"octagames.experiments.{module}"), name)
        text = stdlib_parser(cls).format_help()
        assert "agent specs (name or name:arg; octagames list" in text and "  heuristic " in text, name


def test_user_errors_are_one_line_naming_the_fix(capsys):
    cases = [(ModuleNotFoundError("No module named 'torch'", name="torch"), "pip install 'octagames[train]'"),
             (ModuleNotFoundError("No module named 'pyspiel'", name="pyspiel"), "octagames[openspiel]'"),
             (ValueError("agent='nope' is not valid; valid agents: [...]"), "agent='nope' is not valid"),
             (ImportError("running on Ray needs the distributed extra: pip install 'octagames[distributed]'"),
              "pip install 'octagames[distributed]'")]
    for error, expected in cases:
        with pytest.raises(SystemExit) as e, user_errors():
            raise error
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and ": error: " in err and expected in err, err
    with pytest.raises(ModuleNotFoundError), user_errors():  # no extra brings it: a broken install, not hidden
        raise ModuleNotFoundError("No module named 'numpy'", name="numpy")


def test_an_output_path_that_cannot_be_a_folder_or_file_is_one_line(tmp_path, monkeypatch, capsys):
    """--out-dir naming a file was a traceback (FileExistsError, NotADirectoryError from mkdir)."""
    from octagames.experiments import evaluate

    (tmp_path / "a_file").write_text("mine")
    for out in ("a_file", "a_file/below"):
        argv = ["evaluate", "--game", "octrix-round", "--games", "1", "--no-progress", "--out-dir"]
        argv.append(str(tmp_path / out))
        monkeypatch.setattr("sys.argv", argv)
        with pytest.raises(SystemExit) as e:
            evaluate.cli()
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and ": error: " in err and "a_file" in err, err
    assert (tmp_path / "a_file").read_text() == "mine"
    errors = (IsADirectoryError(21, "Is a directory", "x"), PermissionError(13, "Permission denied", "x"))
    for error in errors:
        with pytest.raises(SystemExit) as e, user_errors():
            raise error
        assert e.value.code == 2 and capsys.readouterr().err.count("\n") == 1


def test_a_user_error_keeps_its_traceback_when_asked(monkeypatch, capsys):
    from octagames.experiments.cli import user_errors

    with pytest.raises(SystemExit) as e, user_errors():
        raise ValueError("unknown agent 'nope'")
    assert e.value.code == 2 and "unknown agent 'nope'" in capsys.readouterr().err
    monkeypatch.setenv("OCTAGAMES_TRACEBACK", "1")
    with pytest.raises(ValueError, match="deep inside"), user_errors():
        raise ValueError("deep inside a run")


def test_the_demo_plays_each_games_demo_variant():
    from octagames import catalogue
    from octagames.experiments.demo import demo_variant

    chosen = {g: demo_variant(g).name for g in catalogue.games()}
    assert chosen == {"octrix": "octrix-round", "achten": "achten-dealer-pays", "octiles": "octiles",
                      "octa": "octa-en"}
    assert [demo_variant(g).demo_mcts for g in catalogue.games()] == [200, 200, 20, 20]
    assert DemoConfig(game=("octa-nl",)).game == ("octa-nl",)
    with pytest.raises(ValueError, match="game='chess' is not valid"):
        DemoConfig(game=("chess",))


def test_a_journal_fingerprints_every_zoo_name_by_its_file():
    from octagames.experiments.cli import model_fingerprints
    prints = model_fingerprints(["zoo:octrix", "zoo:octrix-2p:8", "net:octrix:0", "net:octrix-3p", "zoo:chess",
                                 "random"])
    # octrix-2p is zoo:octrix spelled out and net: plays the same file: one digest; an unknown name has none
    assert prints["zoo:octrix"] == prints["zoo:octrix-2p:8"] == prints["net:octrix:0"] != prints["net:octrix-3p"]
    assert set(prints) == {"zoo:octrix", "zoo:octrix-2p:8", "net:octrix:0", "net:octrix-3p"}
    # net: without a budget plays at its card's network_simulations where it names one: that is digested too
    zoo, fixed, card = "zoo:octiles-fixed-start", "net:octiles-fixed-start:6000", "net:octiles-fixed-start"
    plain = model_fingerprints([zoo, fixed, card])
    assert plain[zoo] == plain[fixed] != plain[card]


def test_journals_of_other_settings_are_set_aside_and_none_is_ever_overwritten(tmp_path, capsys):
    from octagames.experiments.cli import open_journal

    path = tmp_path / "run.games.jsonl"
    texts = []
    for seed in range(3):  # three runs of other settings, one after the other, in the same file
        journal = open_journal(path, True, {"agent": "random", "seed": seed})
        journal.add(0, np.array([float(seed), -float(seed)]), 10 + seed)
        journal.close()
        texts.append(path.read_text())
    assert "moved to" in capsys.readouterr().out
    assert [p.read_text() for p in (path.with_name(path.name + ".old"), path.with_name(path.name + ".old.1"))] \
        == texts[:2]
    assert path.read_text() == texts[2]


def test_a_journal_whose_first_line_was_cut_is_set_aside_as_such_not_as_other_settings(tmp_path, capsys):
    from octagames.experiments.cli import open_journal

    path = tmp_path / "run.games.jsonl"
    for cut in ('{"header": {"agent": "ran', "[1, 2]\n", '{"games": 3}\n'):  # a killed start; not a journal
        path.write_text(cut)
        journal = open_journal(path, True, {"agent": "random", "seed": 0})
        assert not journal.done
        journal.close()
        aside = sorted(tmp_path.glob("run.games.jsonl.old*"))[-1]
        said = capsys.readouterr().out
        assert f"{path} did not start with a journal's header (a run killed as it started the file?); moved to " \
            f"{aside}, starting over" in said and "other settings" not in said
        assert aside.read_text() == cut


def test_a_journal_not_resumed_is_set_aside_not_deleted(tmp_path, capsys):
    # --no-resume deleted the journal outright, where a journal of other settings was moved aside
    from octagames.experiments.cli import open_journal

    path = tmp_path / "run.games.jsonl"
    journal = open_journal(path, True, {"agent": "random", "seed": 0})
    journal.add(0, np.array([1.0, -1.0]), 10)
    journal.close()
    played = path.read_text()
    fresh = open_journal(path, False, {"agent": "random", "seed": 0})  # the same settings, not resumed
    assert not fresh.done
    fresh.close()
    assert "not resumed (--no-resume); moved to" in capsys.readouterr().out
    assert path.with_name(path.name + ".old").read_text() == played


def test_a_sampled_ppo_spec_is_fingerprinted_by_its_policy_file(tmp_path):
    from octagames.experiments.cli import model_fingerprints

    policy = tmp_path / "policy.pt"
    policy.write_bytes(b"weights")
    prints = model_fingerprints([f"ppo:{policy}", f"ppo:{policy}@sample"])
    assert prints[f"ppo:{policy}@sample"] == prints[f"ppo:{policy}"]
    policy.write_bytes(b"other weights")
    assert model_fingerprints([f"ppo:{policy}@sample"])[f"ppo:{policy}@sample"] != prints[f"ppo:{policy}"]


def test_the_code_version_is_the_package_version_and_the_checkout_s_commit_or_none_without_git(monkeypatch):
    code = cli.code_version()
    assert set(code) == {"version", "commit", "dirty"} and code["version"] == octagames.__version__
    if code["commit"] is not None:  # a git checkout (a copy without .git has none)
        assert re.fullmatch("[0-9a-f]{40}", code["commit"]) and isinstance(code["dirty"], bool)
    asked = []

    def no_git(args, **kwargs):  # git missing, too slow, or no checkout here: the run goes on without
        asked.append(kwargs["timeout"])
        if len(asked) == 1:
            raise FileNotFoundError(2, "No such file or directory", "git")
        if len(asked) == 2:
            raise subprocess.TimeoutExpired(args, kwargs["timeout"])
        return subprocess.CompletedProcess(args, 128, "", "fatal: not a git repository")

    monkeypatch.setattr(cli.subprocess, "run", no_git)
    for _ in range(3):
        assert cli.code_version() == {"version": octagames.__version__, "commit": None, "dirty": None}
    assert asked == [cli.GIT_TIMEOUT] * 3 and cli.git_commit() == "unknown"


#: the configs with Ray options, each with what makes its ray_address count (a trainer's actors)
RAY_CONFIGS = {"evaluate": ("EvalConfig", {}), "tournament": ("TournamentConfig", {}),
               "train_ppo": ("TrainConfig", {"ray_actors": 1}),
               "train_az": ("TrainConfig", {"ray_actors": 1}), "bench_ray": ("BenchRayConfig", {}),
               "leaderboard": ("LeaderboardConfig", {})}


def _ray_config(module: str) -> tuple[type, dict]:
    name, actors = RAY_CONFIGS[module]
    return getattr(importlib.import_module(f"octagames.experiments.{module}"), name), actors


@pytest.mark.parametrize("module", sorted(RAY_CONFIGS))
def test_a_ray_address_of_another_form_is_refused_when_the_flags_are_read(module, capsys):
    cls, actors = _ray_config(module)
    for good in ("", "auto", "local", "10.0.0.1:6379", "head-1.example:6379", "ray://head:10001",
                 "[::1]:6379"):
        assert cls(ray_address=good, **actors).ray_address == good
    for bad in ("bogus", "head:0", "head:65536", "head:x", "ray://head", "http://head:6379", " head:6379"):
        with pytest.raises(ValueError, match=re.escape(f"ray_address={bad!r} is not valid; valid forms:")):
            cls(ray_address=bad, **actors)
    with pytest.raises(SystemExit) as e:  # on the command line: one line, before anything starts
        parse_config(cls, ["--ray-address", "bogus"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "ray_address='bogus' is not valid" in err


@pytest.mark.parametrize("module", ["train_ppo", "train_az"])
def test_a_trainers_ray_address_without_ray_actors_is_refused_naming_both(module):
    cls, _ = _ray_config(module)
    with pytest.raises(ValueError, match=r"ray_address='auto' needs ray_actors >= 1 .*--ray-actors N"):
        cls(ray_address="auto")
    assert cls(ray_address="auto", ray_actors=2).ray_actors == 2


@pytest.mark.parametrize("module", ["evaluate", "tournament", "bench_ray", "leaderboard"])
def test_chunk_size_below_one_is_refused_with_or_without_ray(module):
    cls, _ = _ray_config(module)
    for ray in ({"ray": False}, {"ray": True}) if module != "bench_ray" else ({},):
        for size in (0, -3):
            with pytest.raises(ValueError, match=f"chunk_size={size} is not valid; it must be >= 1"):
                cls(chunk_size=size, **ray)


def test_bench_ray_refuses_fewer_cpus_than_its_two_workers_before_starting_anything():
    cls, _ = _ray_config("bench_ray")
    for cpus in (0, -1, 1):
        with pytest.raises(ValueError, match=f"num_cpus={cpus} is not valid; it must be >= 2"):
            cls(num_cpus=cpus)
    assert cls(num_cpus=2).num_cpus == 2


def test_the_demo_refuses_a_folder_for_its_json_file_before_it_plays(tmp_path):
    """A review: demo --out <a folder> played every game first and then failed with IsADirectoryError."""
    with pytest.raises(ValueError, match=rf"out='{re.escape(str(tmp_path))}' is a folder; it is the JSON file"):
        DemoConfig(out=str(tmp_path))
    assert DemoConfig(out=str(tmp_path / "demo.json")).out.endswith("demo.json")


def test_the_option_words_of_a_setting_are_what_a_user_types():
    """The words a refused resume gives for the run's values (an empty list gave ``--config `` and a double space)."""
    from octagames.experiments.cli import option

    assert option("num_steps", 8) == "--num-steps 8" and option("learning_rate", 0.00025) == "--learning-rate 0.00025"
    assert option("progress", False) == "--no-progress" and option("alternating", True) == "--alternating"
    assert option("eval_opponents", ("random", "zoo:octrix")) == "--eval-opponents random zoo:octrix"
    assert option("config", ()) == "--config" and option("players", None) == "--players None"
    assert option("run_dir", "my runs/a") == "--run-dir 'my runs/a'"
