"""``octagames <verb>``, the console scripts ``octagames-<verb>`` and ``python -m``: the same scripts,
the verbs listed with one line each, and one line (exit status 2) for what the user can fix."""

from __future__ import annotations

import configparser
import json
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from octagames import catalogue
from octagames.experiments import main as umbrella
from octagames.experiments.main import VERBS, main, module_of, summary

ROOT = Path(__file__).resolve().parents[2]


def _octagames(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """``octagames <args>`` in a fresh process (what the console script ``octagames`` runs)."""
    return subprocess.run([sys.executable, "-m", "octagames.experiments.main", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def _in_process(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """``octagames <args>`` run by :func:`main` in this process: its exit status and what it wrote on stderr
    (the verb's script sets ``sys.argv``, restored afterwards)."""
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(list(args))
    return e.value.code, capsys.readouterr().err


def _console_scripts() -> dict[str, str]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    lines = cfg["options.entry_points"]["console_scripts"].strip().splitlines()
    return dict((x.strip() for x in line.partition("=")[::2]) for line in lines)


def test_every_console_script_is_a_verb_of_octagames():
    scripts = _console_scripts()
    assert scripts.pop("octagames") == "octagames.experiments.main:main"
    for name, target in scripts.items():
        verb = name.removeprefix("octagames-")
        assert name.startswith("octagames-") and verb in VERBS, name
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), target
    written = {v for v in VERBS if importlib.util.find_spec(module_of(v)) is not None}
    # every script has its console script (octagames-fuzz's line comes with that script, in its own change)
    assert written - {"fuzz"} <= {name.removeprefix("octagames-") for name in scripts}
    assert {"demo", "warmup", "train-ppo", "bench-startup"} <= written
    with pytest.raises(AttributeError, match="no attribute 'chess'"):
        umbrella.chess  # noqa: B018


def test_help_lists_every_verb_with_its_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    rows = [line.split(None, 1) for line in out.split("verbs:\n")[1].splitlines()]
    assert [verb for verb, _ in rows] == list(VERBS)
    for verb, line in rows:
        assert line == summary(verb) and line, verb
    assert dict(rows)["tournament"] == "Round robin among any agents on any game, with Bradley-Terry Elo ratings."
    with pytest.raises(SystemExit) as e:  # no verb: the same list, on stderr, status 2
        main([])
    assert e.value.code == 2 and "train-ppo" in capsys.readouterr().err


def test_python_m_octagames_is_the_octagames_command():
    # where the console script is not on PATH (a virtual environment that is not activated)
    proc = subprocess.run([sys.executable, "-m", "octagames", "--help"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: octagames <verb>"), proc.stderr
    assert all(f"\n  {verb} " in proc.stdout for verb in VERBS), proc.stdout
    proc = subprocess.run([sys.executable, "-m", "octagames", "trian-ppo"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 2 and "'trian-ppo' is not a verb of octagames" in proc.stderr, proc.stderr


def test_an_unknown_verb_is_one_line_naming_the_verbs(capsys):
    with pytest.raises(SystemExit) as e:
        main(["trian-ppo", "--game", "octa"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1
    assert err.startswith("octagames: error: 'trian-ppo' is not a verb of octagames; valid verbs: "
                          "list, demo, ")
    assert all(verb in err for verb in VERBS)


def test_a_verb_is_its_script_under_its_name():
    """``octagames warmup --help`` is the warmup's help (tyro here; the base install's parser in
    tests/ecosystem/test_base_install.py, which also runs the demo with its flags)."""
    proc = _octagames("warmup", "--help")
    assert proc.returncode == 0 and "octagames warmup" in proc.stdout and "games to warm up" in proc.stdout


@pytest.mark.parametrize("args, expected", [
    (["evaluate", "--agent", "nope", "--games", "1"], "agent='nope' is not valid; valid agents: ["),
    (["evaluate", "--game", "octa-en", "--opponents", "heuristic", "nope", "--games", "1"],
     "agent='nope' is not valid"),  # an opponent's spec, refused before the first opponent's match
    (["evaluate", "--game", "octa-xx", "--games", "1"],
     "game='octa-xx' is not valid; valid values: ['octrix', "),
    (["tournament", "--game", "octa-nl", "--config", "colour=red"], "config: 'colour=red' is not key=value"),
    (["play", "--game", "octrix", "--players", "7"], "num_players=7 is not valid"),
    (["evaluate", "--game", "octa-en", "--agent", "zoo:octa", "--games", "1"], "zoo:octa"),
    # issue 33: a zoo model on another config of its game is refused before any game, naming the way out
    (["evaluate", "--game", "octrix-round", "--agent", "zoo:octrix", "--games", "1"],
     "--allow-model-mismatch"),
    (["tournament", "--agents", "random,mcts:lots", "--games-per-pair", "1"], "agent 'mcts:lots': the argument"),
    (["evaluate", "--agent", "ppo:no/such/policy.pt", "--games", "1"], "No such file or directory"),
])
def test_a_user_error_is_one_line_and_status_2(args, expected, tmp_path, monkeypatch, capsys):
    """A bad agent spec, variant, config field or seat count: one line naming the fix, exit status 2
    (in this process; the next test runs one in a fresh process, as the console script does)."""
    code, err = _in_process(monkeypatch, capsys, *args, *([] if args[0] == "play" else ["--out-dir", str(tmp_path)]))
    assert code == 2, err[-2000:]
    assert err.count("\n") == 1 and f"octagames {args[0]}: error: " in err, err
    assert expected in err


def test_a_user_error_in_a_fresh_process_is_one_line_without_a_traceback(tmp_path):
    proc = _octagames("evaluate", "--agent", "nope", "--games", "1", "--out-dir", str(tmp_path))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith("octagames evaluate: error: agent='nope' is not valid; valid agents: [")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [["demo", "--bogus"], ["demo", "--game", "chess"],
                                  ["warmup", "--game", "chess"], ["warmup", "--jobs", "x"]])
def test_demo_and_warmup_refuse_what_they_cannot_read(args, monkeypatch, capsys):
    code, err = _in_process(monkeypatch, capsys, *args)
    assert code == 2, err[-2000:]
    assert ("--bogus" if "--bogus" in args else "chess" if "chess" in args else "x") in err


@pytest.mark.slow
def test_the_issues_evaluation_of_a_zoo_model_on_its_variant_runs(tmp_path):
    """Issue 33: ``octagames evaluate --game octa-nl --agent zoo:octa-nl --opponents heuristic --games 2``."""
    pytest.importorskip("torch")  # the zoo needs the train extra
    proc = _octagames("evaluate", "--game", "octa-nl", "--agent", "zoo:octa-nl", "--opponents", "heuristic",
                      "--games", "2", "--out-dir", str(tmp_path), "--no-progress", timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "evaluate-octa-nl-2p-zoo-octa-nl.json").read_text())
    assert data["variant"] == "octa-nl" and data["config"] == catalogue.full_config("octa", {"rules": "nl"})
    assert data["config"]["num_players"] == 2
    (result,) = data["results"]
    assert result["opponent"] == "heuristic" and result["games"] == 2
    assert result["wins"] + result["draws"] + result["losses"] == 2
