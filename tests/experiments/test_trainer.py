"""The trainers' shared skeleton: run folders (named from the game, refused without --resume or
--overwrite), the config echo, checkpoints that resume exactly, the metrics files and curves.

A toy trainer whose every step draws from the global numpy and torch RNGs stands in for PPO
and AZ: what it checks is the skeleton's, in a fraction of a second per run.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import torch

import octagames
from octagames import catalogue
from octagames.agents.arena import BusyError
from octagames.experiments import trainer
from octagames.experiments.trainer import RunConfig, claim_run_dir, default_run_dir


@dataclass(frozen=True)
class ToyConfig(RunConfig):
    """A toy trainer's settings."""

    KIND: ClassVar[str] = "toy"
    RESUMABLE: ClassVar[tuple[str, ...]] = (*RunConfig.RESUMABLE, "updates")
    updates: int = 6
    """steps to take (the budget: a resume may extend it)"""
    scale: float = 1.0
    """what each draw is multiplied by (a setting of the run: a resume may not change it)"""
    anneal: bool = False
    """a schedule over the updates (then a resume may not change them either)"""

    def planned_work(self) -> int:
        return self.updates * 1000

    def schedule_budget(self) -> dict[str, str]:
        return {"updates": "--anneal anneals over them"} if self.anneal else {}


class Toy(trainer.Trainer):
    """Each step draws one number from numpy's and one from torch's global RNG and sums them."""

    FORMAT = "toy-checkpoint-1"
    COUNTERS = ("update", "draws")
    SPEED = ("draws_per_s", "draws")
    OUTPUTS = ("toy.pt",)
    MODULE = "tests.toy"
    PLOT = {"x": ("draws", "draws"), "losses": ("loss",)}

    def __init__(self, cfg: ToyConfig) -> None:
        super().__init__(cfg)
        self.total_drawn = 0.0

    @property
    def total(self) -> int:
        return self.cfg.updates

    def step(self) -> dict[str, Any]:
        x = (float(np.random.random()) + float(torch.rand(1))) * self.cfg.scale
        self.total_drawn += x
        self.count["update"] += 1
        self.count["draws"] += 2
        return {"loss": x, "sum": self.total_drawn}

    def play_evaluation(self, spec: str, games: int, seed: int) -> dict[str, float]:
        return {f"win_rate_vs_{spec}": np.random.default_rng(seed).random(), "games": games}

    def state_dict(self) -> dict[str, Any]:
        return {"total_drawn": self.total_drawn}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        self.total_drawn = d["total_drawn"]

    def save_model(self) -> Path:
        (self.run_dir / "toy.pt").write_text(str(self.total_drawn))
        return self.run_dir / "toy.pt"

    def columns(self) -> list[str]:
        return ["draws_per_s", "loss", "sum", "games"] + [f"win_rate_vs_{s}" for s in self.eval_agents] + [
            "eval_seconds"]


def _toy(run_dir: Path, **kw: Any) -> ToyConfig:
    base = dict(game="octrix-round", seed=5, run_dir=str(run_dir), progress=False, eval_every=2,
                eval_opponents=("random", "zoo:octrix"), checkpoint_every=1)
    return ToyConfig(**{**base, **kw})


def _clockless(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("wall_time", "draws_per_s", "eval_seconds")} for r in rows]


class Killed(Exception):
    """What the toy's ``os._exit`` raises: the run ends there, as a killed process would."""


def test_a_killed_run_resumes_exactly_and_writes_its_files(tmp_path, capsys, monkeypatch):
    full = Toy(_toy(tmp_path / "full")).run()
    assert [r["update"] for r in full["rows"]] == list(range(7))
    assert [("win_rate_vs_random" in r) for r in full["rows"]] == [True, False, True, False, True, False, True]
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"toy: {tmp_path / 'full'} (octrix-round-2p, config ") and out[0].endswith("new run")
    assert out[1] == (f"  settings: --game octrix-round --seed 5 --run-dir {tmp_path / 'full'} --no-progress "
                      "--eval-every 2 --eval-opponents random zoo:octrix --checkpoint-every 1")
    assert out[2].startswith("  update 0/6: vs random ")

    def kill(status: int) -> None:
        raise Killed(status)

    monkeypatch.setattr(trainer.os, "_exit", kill)
    run = tmp_path / "killed"
    with pytest.raises(Killed):  # killed after update 5; its last checkpoint is update 4
        Toy(_toy(run, checkpoint_every=2, stop_after=5)).run()
    assert torch.load(run / "checkpoint.pt", weights_only=False)["counters"]["update"] == 4
    assert json.loads((run / "metrics.json").read_text())["rows"][-1]["update"] == 4
    with pytest.raises(ValueError, match=r"killed is a run of octrix-round-2p with other settings: scale \(--scale\) "
                                         r"1.0 in the run, 2.0 asked\. They change what the run computes"):
        Toy(_toy(run, scale=2.0, checkpoint_every=2, resume=True)).run()
    resumed = Toy(_toy(run, checkpoint_every=2, resume=True)).run()
    assert _clockless(resumed["rows"]) == _clockless(full["rows"])
    for name in ("config.json", "metrics.csv", "metrics.json", "curves.png", "toy.pt"):
        assert (run / name).stat().st_size > 0, name
    data = json.loads((run / "metrics.json").read_text())
    assert data["skipped_opponents"].keys() == {"zoo:octrix"} and data["eval_opponents"] == ["random"]
    assert data["game"]["digest"] == catalogue.config_digest("octrix", {"match": False})
    assert _clockless(data["rows"]) == _clockless(full["rows"])
    with open(run / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:3] == ["update", "draws", "wall_time"] and len(rows) == 7
    assert [float(r["sum"]) for r in rows[1:]] == [r["sum"] for r in data["rows"][1:]]
    config = json.loads((run / "config.json").read_text())  # the run's first command, then the resume's
    assert config["config"]["resume"] is False and config["config"]["stop_after"] == 5
    assert config["game"]["config"]["match"] is False and "--resume" not in config["command"]
    assert [(r["resumed_at"], "--resume" in r["command"]) for r in config["resumes"]] == [
        ({"update": 4, "draws": 8}, True)]


class _Payload:
    """Unpickling this creates a marker file: what a crafted checkpoint would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return open, (str(self.marker), "w")


def test_a_checkpoint_that_would_run_code_is_refused_and_an_older_one_of_your_own_loads_when_trusted(
        tmp_path, monkeypatch):
    from octagames.agents.base import RandomAgent

    run, marker = tmp_path / "run", tmp_path / "ran"
    Toy(_toy(run, updates=2, eval_every=0)).run()
    saved = torch.load(run / "checkpoint.pt", weights_only=False)
    monkeypatch.delenv(trainer.TRUST_ENV, raising=False)
    torch.save({**saved, "extra": _Payload(marker)}, run / "checkpoint.pt")
    with pytest.raises(ValueError, match=r"refused it \(Unsupported global: GLOBAL io.open\).*"
                                         + trainer.TRUST_ENV):
        Toy(_toy(run, updates=2, eval_every=0, resume=True)).run()
    assert not marker.exists()
    # an older checkpoint held agent opponents inline: refused as it is, loaded in full when trusted
    torch.save({**saved, "agents": [RandomAgent()]}, run / "checkpoint.pt")
    with pytest.raises(ValueError, match="RandomAgent"):
        Toy(_toy(run, updates=2, eval_every=0, resume=True)).run()
    monkeypatch.setenv(trainer.TRUST_ENV, "1")
    resumed = Toy(_toy(run, updates=2, eval_every=0, resume=True)).run()
    assert [r["update"] for r in resumed["rows"]] == [0, 1, 2]


def test_a_checkpoint_whose_members_are_compressed_is_refused_even_when_trusted(tmp_path, monkeypatch):
    """torch reads deflated zip members (inflating each whole) though it writes them stored: a checkpoint is
    refused with one, by the weights-only reader and by the full unpickler of a trusted older checkpoint alike."""
    import zipfile

    from octagames.agents.base import RandomAgent

    run = tmp_path / "run"
    Toy(_toy(run, updates=2, eval_every=0)).run()
    saved = torch.load(run / "checkpoint.pt", weights_only=False)
    for label, data in (("plain", saved), ("older", {**saved, "agents": [RandomAgent()]})):
        torch.save(data, tmp_path / "stored.pt")
        with zipfile.ZipFile(tmp_path / "stored.pt") as src, zipfile.ZipFile(run / "checkpoint.pt", "w") as out:
            for info in src.infolist():
                out.writestr(info.filename, src.read(info), compress_type=zipfile.ZIP_DEFLATED)
        for trust in ("0", "1"):
            monkeypatch.setenv(trainer.TRUST_ENV, trust)
            with pytest.raises(ValueError, match=re.escape(str(run / "checkpoint.pt")) + r" is not a model file "
                                                 r"octagames can read safely: its member .* \(compression method 8\)"):
                Toy(_toy(run, updates=2, eval_every=0, resume=True)).run()
    torch.save(saved, run / "checkpoint.pt")  # the same checkpoint, stored as torch writes it, resumes
    assert [r["update"] for r in Toy(_toy(run, updates=3, eval_every=0, resume=True)).run()["rows"]] == [0, 1, 2, 3]


def test_a_damaged_checkpoint_is_refused_in_one_sentence_naming_the_file(tmp_path):
    """A checkpoint without its counters, or whose rows were not a list, gave KeyError or TypeError tracebacks."""
    run = tmp_path / "run"
    Toy(_toy(run, updates=2, eval_every=0)).run()
    path = run / "checkpoint.pt"
    saved = torch.load(path, weights_only=False)
    counters = {k: v for k, v in saved["counters"].items() if k != "draws"}
    for change, words in (({"counters": None}, "'counters' is missing, not a dict"),
                          ({"counters": [1, 2]}, "'counters' is list, not a dict"),
                          ({"counters": counters}, "'counters' has no 'draws', not a number"),
                          ({"counters": {**counters, "draws": "4"}}, "'counters' has 'draws': '4', not a number"),
                          ({"rows": 5}, "'rows' is int, not a list of dicts"),
                          ({"rows": [1]}, "'rows' is list, not a list of dicts"),
                          ({"last_eval": None}, "'last_eval' is missing, not a dict")):
        torch.save({k: v for k, v in {**saved, **change}.items() if v is not None}, path)
        with pytest.raises(ValueError, match=re.escape(f"{path} is a damaged checkpoint: {words} (resume from a copy "
                                                       "of the run, or start it again with --overwrite)")):
            Toy(_toy(run, updates=3, eval_every=0, resume=True)).run()
    torch.save(saved, path)
    assert [r["update"] for r in Toy(_toy(run, updates=3, eval_every=0, resume=True)).run()["rows"]] == [0, 1, 2, 3]


def test_a_damaged_warm_start_file_is_refused_in_one_sentence_naming_it(tmp_path):
    """A run stopped in its warm start goes on from its warm_start.partial.pt: one without its wall time or whose
    parts were not a list gave KeyError or TypeError tracebacks."""
    run = tmp_path / "run"
    Toy(_toy(run, updates=2, eval_every=0)).run()
    header = {k: v for k, v in torch.load(run / "checkpoint.pt", weights_only=False).items()
              if k in ("format", "config", "game", "runtime")}
    (run / "checkpoint.pt").unlink()  # stopped before its first checkpoint: the warm start's file is resumed
    path = run / trainer.WARM_START_PARTIAL
    good = {"parts": [], "stages": {}, "rng": {}, "wall_time": 1.0}
    for change, words in (({"wall_time": None}, "'wall_time' is missing, not a number"),
                          ({"stages": []}, "'stages' is list, not a dict"),
                          ({"parts": 3}, "'parts' is not a list of teacher games (records, seats, actions, outcomes, "
                                         "games) with their generator's state")):
        torch.save({**header, "warm_start": {k: v for k, v in {**good, **change}.items() if v is not None}}, path)
        with pytest.raises(ValueError, match=re.escape(f"{path} is a damaged checkpoint: {words} (resume from a copy "
                                                       "of the run, or start it again with --overwrite)")):
            Toy(_toy(run, updates=3, eval_every=0, resume=True)).run()


def test_a_damaged_config_json_is_refused_at_a_resume_in_one_sentence_naming_it(tmp_path):
    """A config.json of a JSON list gave AttributeError, and one of garbage JSON's words without the file's name."""
    run = tmp_path / "run"
    Toy(_toy(run, updates=2, eval_every=0)).run()
    config = (run / "config.json").read_text()
    for text, words in (("[1, 2]", "a JSON list, not an object of the run's settings"),
                        ("{not json", r"not JSON text \(JSONDecodeError: Expecting property name"),
                        ("\udcff".encode("utf-8", "surrogateescape").decode("latin-1"), "not JSON text")):
        (run / "config.json").write_text(text, encoding="latin-1")
        with pytest.raises(ValueError, match=re.escape(f"{run / 'config.json'} is damaged: ") + words):
            Toy(_toy(run, updates=3, eval_every=0, resume=True)).run()
    (run / "config.json").write_text(config)
    assert [r["update"] for r in Toy(_toy(run, updates=3, eval_every=0, resume=True)).run()["rows"]] == [0, 1, 2, 3]


def test_a_run_folder_is_resumed_or_replaced_only_when_asked(tmp_path):
    run = tmp_path / "run"
    Toy(_toy(run, updates=2)).run()
    with pytest.raises(ValueError, match=r"holds a run already \(config.json, checkpoint.pt, metrics.json, "
                                         r"metrics.csv, toy.pt\): pass --resume to continue it or --overwrite to "
                                         r"replace it"):
        Toy(_toy(run, updates=2))
    (run / "notes.txt").write_text("mine")
    assert Toy(_toy(run, updates=2, resume=True)).start == "resuming"
    replaced = Toy(_toy(run, updates=1, overwrite=True))
    assert replaced.start == "replacing the run there"
    assert (run / "toy.pt").exists()  # removed when it runs, once every setting has built
    (run / "toy.pt").write_text("the run being replaced")
    rows = replaced.run()["rows"]
    assert (run / "notes.txt").read_text() == "mine" and "replaced" not in (run / "toy.pt").read_text()
    assert not (run / trainer.REPLACED).exists()  # kept until the new run's first checkpoint, then removed
    assert [r["update"] for r in rows] == [0, 1]
    assert torch.load(run / "checkpoint.pt", weights_only=False)["counters"]["update"] == 1
    with pytest.raises(FileNotFoundError, match="--resume: no checkpoint at"):
        Toy(_toy(tmp_path / "empty", resume=True))
    with pytest.raises(ValueError, match="give one"):
        _toy(run, resume=True, overwrite=True)
    # a folder without a run's files is free: an empty one, or one of other files
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    assert claim_run_dir(tmp_path / "other", False, False) == "new run"
    (tmp_path / "other" / "toy.pt").write_text("a model")  # a trainer's own file: a run it would write over
    with pytest.raises(ValueError, match=r"holds a run already \(toy.pt\)"):
        claim_run_dir(tmp_path / "other", False, False, outputs=Toy.OUTPUTS)
    with pytest.raises(ValueError, match="pass --overwrite to replace it, or choose"):
        claim_run_dir(run, False, False, can_resume=False)


def test_a_folder_holding_another_trainers_run_is_a_run_and_overwrite_replaces_all_of_it(tmp_path):
    # train_ppo and train_az wrote into a folder that held an MCCFR run without --overwrite, and train_cfr
    # --overwrite then removed the PPO run's config and checkpoint but left its policy (review)
    from octagames.experiments.trainer import TRAINER_OUTPUTS, remove_run, set_aside_run
    for kind, files in (("train_cfr", ("train_cfr.json", "checkpoint.npz")), ("train_ppo", ("policy.pt",)),
                        ("train_az", ("model.pt",))):
        run = tmp_path / kind
        run.mkdir()
        for name in files:
            (run / name).write_text("a run")
        for other in TRAINER_OUTPUTS:
            with pytest.raises(ValueError, match=rf"holds a run already \({files[0]}"):
                claim_run_dir(run, False, False, outputs=TRAINER_OUTPUTS[other])
    both = tmp_path / "both"
    both.mkdir()
    for name in ("config.json", "checkpoint.pt", "policy.pt", "curves.png", "train_cfr.json", "notes.txt"):
        (both / name).write_text("x")
    aside = set_aside_run(both, TRAINER_OUTPUTS["train_az"])
    assert sorted(p.name for p in both.iterdir()) == ["notes.txt", aside.name]
    for name in sorted(p.name for p in aside.iterdir()):
        (both / name).write_text("x")
    remove_run(both, TRAINER_OUTPUTS["train_cfr"])
    assert sorted(p.name for p in both.iterdir()) == ["notes.txt", aside.name]  # the user's file kept


def test_overwrite_keeps_the_run_when_a_setting_is_refused_as_the_trainer_builds(tmp_path):
    """--overwrite removed the run as the folder was claimed: a setting refused after that (a network's
    activation, a missing init model, an agent spec) lost the run that the refused command never replaced."""
    class Refusing(Toy):
        def __init__(self, cfg: ToyConfig) -> None:
            super().__init__(cfg)
            raise ValueError("activation='x' is not valid")  # what a trainer checks as it builds its network

    run = tmp_path / "run"
    Toy(_toy(run, updates=1)).run()
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    with pytest.raises(ValueError, match="activation='x'"):
        Refusing(_toy(run, updates=1, overwrite=True))
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_the_default_folder_names_the_variant_players_config_and_seed():
    octa_nl = catalogue.config_digest("octa", {"rules": "nl", "num_players": 2})
    assert _toy("", game="octa-nl").resolved_run_dir() == Path(f"runs/toy/octa-nl-2p-{octa_nl}-s5")
    assert default_run_dir("ppo", "octa", {"rules": "nl"}, 0) == Path(f"runs/ppo/octa-nl-2p-{octa_nl}-s0")
    # the same config by another spelling is the same run
    assert _toy("", game="octa", config=("rules=nl",)).resolved_run_dir() == _toy("", game="octa-nl").resolved_run_dir()
    folders = [_toy("", **kw).resolved_run_dir() for kw in (
        dict(game="octa-en"), dict(game="octa-nl"), dict(game="octrix"), dict(game="octrix", players=3),
        dict(game="octrix", config=("ranks=4",)), dict(game="octrix", seed=6), dict(game="octrix-round"))]
    assert len(set(folders)) == len(folders), folders
    assert folders[3].name.startswith("octrix-3p-") and folders[4].name.startswith("octrix+ranks=4-2p-")


def test_evaluation_games_scale_with_the_run():
    assert _toy("", updates=1).games_per_evaluation() == 10            # floor
    assert _toy("", updates=300).games_per_evaluation() == 30           # one game per 10,000 planned units
    assert _toy("", updates=10**6).games_per_evaluation() == 100       # cap
    assert _toy("", updates=10**6, eval_games=7).games_per_evaluation() == 7
    with pytest.raises(ValueError, match="eval_games=-1"):
        _toy("", eval_games=-1)


def test_a_cuda_device_index_is_plain_digits():
    for bad in ("cuda:²", "cuda:\u0663", "cuda:", "cuda:+1", "gpu"):  # "٣": int() reads 3, torch.device may not
        with pytest.raises(ValueError, match=re.escape(f"device={bad!r} is not valid; valid values: auto, cpu, cuda, "
                                                       "cuda:<n>")):
            _toy("", device=bad)
    assert _toy("", device="cuda:1").device == "cuda:1"  # checked against the machine when the run starts


def test_an_evaluation_opponent_of_another_variant_is_skipped_before_training(tmp_path):
    toy = Toy(_toy(tmp_path, eval_opponents=("random", "zoo:octrix")))  # the match's model, a round's run
    assert toy.eval_agents == ["random"]
    assert "octrix-round" in toy.skipped["zoo:octrix"] and "match" in toy.skipped["zoo:octrix"]


def test_the_saved_command_runs_in_a_shell_as_it_is(tmp_path, capsys):
    """The command in config.json and the settings echo joined the arguments with spaces, so a run folder with a
    space in its name (or a spec with a shell character) came back as other arguments when pasted."""
    run = tmp_path / "my run (2)"
    Toy(_toy(run, updates=1)).run()
    command = json.loads((run / "config.json").read_text())["command"]
    assert shlex.split(command)[shlex.split(command).index("--run-dir") + 1] == str(run)
    settings = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  settings: "))
    assert shlex.split(settings[len("  settings: "):]) == shlex.split(command)[3:]


def test_a_misspelt_evaluation_opponent_is_refused_before_the_run_writes_its_folder(tmp_path):
    """It was skipped like an agent that does not fit the game: the run trained without that evaluation and said
    so in one line at its end."""
    with pytest.raises(ValueError, match=r"^eval_opponents: agent='heuristc' is not valid; valid agents: \["):
        Toy(_toy(tmp_path / "run", eval_opponents=("random", "heuristc")))
    assert not (tmp_path / "run").exists()


def _files(run: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.iterdir())}


def test_a_resume_that_changes_what_the_run_computes_is_refused_and_leaves_its_folder_as_it_was(tmp_path):
    run = tmp_path / "run"
    Toy(_toy(run, updates=2)).run()
    before = _files(run)
    for change, words, flags in ((dict(seed=99), "seed (--seed) 5 in the run, 99 asked", "--seed 5"),
                                 (dict(scale=0.5), "scale (--scale) 1.0 in the run, 0.5 asked", "--scale 1.0"),
                                 (dict(torch_threads=2), "torch_threads (--torch-threads) 1 in the run, 2 asked",
                                  "--torch-threads 1"),
                                 (dict(eval_opponents=("random",)),
                                  "eval_opponents (--eval-opponents) random zoo:octrix in the run, random asked",
                                  "--eval-opponents random zoo:octrix"),
                                 (dict(game="achten", seed=6), "game octrix-round-2p (config ",
                                  "--game octrix-round --players 2 --seed 5")):
        with pytest.raises(ValueError, match=r"^--resume: .*run is a run of octrix-round-2p with other settings: "
                                             r".*" + re.escape(words) + r".*give the run's values \("
                                             + re.escape(flags) + r"; a setting left out .*another --run-dir "
                                             r"\(or replace this one with --overwrite\)\. A resume may change only "
                                             r"--time-budget-s, .*--updates"):
            Toy(_toy(run, updates=4, resume=True, **change)).run()
        assert _files(run) == before, change
    with pytest.raises(ValueError, match=r"seed \(--seed\) 5 in the run, 6 asked; scale \(--scale\) 1.0 in the run, "
                                         r"3.0 asked\."):  # every change named
        Toy(_toy(run, resume=True, seed=6, scale=3.0))
    # torch_threads 0 is the machine's default: the count it resolved to is the run's, which a resume may give
    saved = torch.load(run / "checkpoint.pt", weights_only=False)
    torch.save({**saved, "config": {**saved["config"], "torch_threads": 0},
                "runtime": {**saved["runtime"], "torch_threads": 3}}, run / "checkpoint.pt")
    with pytest.raises(ValueError, match=re.escape("torch_threads (--torch-threads) 0 in the run (3: torch's default "
                                                   "there), 1 asked.")):
        Toy(_toy(run, resume=True, torch_threads=1))
    assert Toy(_toy(run, resume=True, torch_threads=3)).start == "resuming"
    torch.save(saved, run / "checkpoint.pt")
    # a budget that a schedule reads is the run's too
    Toy(_toy(tmp_path / "annealed", updates=2, anneal=True)).run()
    with pytest.raises(ValueError, match=r"updates \(--updates\) 2 in the run, 3 asked \(--anneal anneals over them\)"):
        Toy(_toy(tmp_path / "annealed", updates=3, anneal=True, resume=True))


def test_a_resume_that_extends_the_budget_goes_on_exactly_and_appends_to_the_runs_history(tmp_path):
    full = Toy(_toy(tmp_path / "full", updates=5)).run()
    run = tmp_path / "run"
    Toy(_toy(run, updates=2)).run()
    first = json.loads((run / "config.json").read_text())
    # the budget, the time budget, the checkpoints, the progress and the evaluations' cadence may change
    Toy(_toy(run, updates=4, resume=True, checkpoint_every=3, time_budget_s=600.0, eval_games=5)).run()
    resumed = Toy(_toy(run, updates=5, resume=True)).run()
    assert [r["sum"] for r in resumed["rows"][1:]] == [r["sum"] for r in full["rows"][1:]]
    config = json.loads((run / "config.json").read_text())
    assert {k: v for k, v in config.items() if k != "resumes"} == first  # the run's record is never rewritten
    assert first["config"]["updates"] == 2 and "--updates 2" in first["command"]
    assert [r["resumed_at"]["update"] for r in config["resumes"]] == [2, 4]
    assert config["resumes"][0]["command"].endswith("--checkpoint-every 3 --updates 4")
    assert " --resume --time-budget-s 600.0 " in config["resumes"][0]["command"]
    assert " --eval-games 5 " in config["resumes"][0]["command"]
    assert config["resumes"][1]["command"].endswith("--updates 5") and config["resumes"][1]["torch_threads"] >= 1
    assert torch.load(run / "checkpoint.pt", weights_only=False)["config"]["updates"] == 5


def test_config_json_records_the_code_of_the_run_and_of_each_resume_and_needs_no_git(tmp_path, monkeypatch):
    run = tmp_path / "run"
    codes = iter([{"version": "0.1.0", "commit": "a" * 40, "dirty": False},
                  {"version": "0.1.0", "commit": "b" * 40, "dirty": True}])
    monkeypatch.setattr(trainer, "code_version", lambda: next(codes))
    Toy(_toy(run, updates=2)).run()
    Toy(_toy(run, updates=3, resume=True)).run()  # other code resumes: the code is no setting of the run
    config = json.loads((run / "config.json").read_text())
    assert config["code"] == {"version": "0.1.0", "commit": "a" * 40, "dirty": False}
    assert [r["code"]["commit"] for r in config["resumes"]] == ["b" * 40]
    monkeypatch.undo()

    def no_git(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", "git")

    monkeypatch.setattr("octagames.experiments.cli.subprocess.run", no_git)
    assert Toy(_toy(tmp_path / "bare", updates=1)).run()["rows"]
    bare = json.loads((tmp_path / "bare" / "config.json").read_text())
    assert bare["code"] == {"version": octagames.__version__, "commit": None, "dirty": None}


class Interrupted(Toy):
    """The toy, signalled while its update ``at`` runs (``times``: how many signals)."""

    def __init__(self, cfg: ToyConfig, at: int, times: int = 1, sig: int = signal.SIGINT) -> None:
        super().__init__(cfg)
        self.at, self.times, self.sig = at, times, sig

    def step(self) -> dict[str, Any]:
        out = super().step()
        if self.count["update"] == self.at:
            # signals reach the main thread only: elsewhere the trainer takes none, and this one would end the process
            assert threading.current_thread() is threading.main_thread()
            for _ in range(self.times):
                os.kill(os.getpid(), self.sig)
        return out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_after_the_update_with_a_checkpoint_and_resume_goes_on_exactly(tmp_path, capsys, sig):
    # Ctrl-C printed a traceback and lost the updates since the last checkpoint (every 100 here)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    full = Toy(_toy(tmp_path / "full", checkpoint_every=100)).run()
    run = tmp_path / "stopped"
    stopped = Interrupted(_toy(run, checkpoint_every=100), at=3, sig=sig).run()
    name = signal.Signals(sig).name
    assert stopped["stopped_by"] == name and [r["update"] for r in stopped["rows"]] == [0, 1, 2, 3]
    assert f"{name}: stopped at update 3; --resume goes on from there" in capsys.readouterr().out
    with pytest.raises(SystemExit) as out:  # the command's status: the shell's for the signal, not 0 (review)
        trainer.exit_if_stopped(stopped)
    assert out.value.code == 128 + sig
    trainer.exit_if_stopped(full)  # a run that ended: status 0
    assert torch.load(run / "checkpoint.pt", weights_only=False)["counters"]["update"] == 3
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before  # handlers given back
    resumed = Toy(_toy(run, checkpoint_every=100, resume=True)).run()
    assert "stopped_by" not in resumed and _clockless(resumed["rows"]) == _clockless(full["rows"])


def test_a_second_ctrl_c_stops_at_once(tmp_path):
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        Interrupted(_toy(tmp_path / "run", checkpoint_every=100), at=2, times=2).run()
    assert signal.getsignal(signal.SIGINT) == before
    assert not (tmp_path / "run" / "checkpoint.pt").exists()  # nothing saved: stopped at once, as asked


class WarmToy(Toy):
    """The toy with a warm start that draws a number (and, with ``sig``, is signalled while it runs)."""

    def __init__(self, cfg: ToyConfig, sig: int = 0) -> None:
        super().__init__(cfg)
        self.sig = sig

    def warm_start(self) -> dict[str, Any]:
        self.total_drawn += float(np.random.random())
        if self.sig:
            os.kill(os.getpid(), self.sig)
        return {"sum": self.total_drawn}


def test_a_run_killed_before_its_first_checkpoint_keeps_its_warm_start(tmp_path, monkeypatch):
    # the first checkpoint came after checkpoint_every updates: a kill before it lost the warm start (hours)
    warm = dict(imitation_games=1, checkpoint_every=100)
    full = WarmToy(_toy(tmp_path / "full", **warm)).run()

    def kill(status: int) -> None:
        raise Killed(status)

    monkeypatch.setattr(trainer.os, "_exit", kill)
    run = tmp_path / "killed"
    with pytest.raises(Killed):
        WarmToy(_toy(run, stop_after=2, **warm)).run()
    assert torch.load(run / "checkpoint.pt", weights_only=False)["counters"]["update"] == 0
    assert json.loads((run / "metrics.json").read_text())["rows"][-1]["sum"] == full["rows"][0]["sum"]
    resumed = WarmToy(_toy(run, resume=True, **warm)).run()
    assert _clockless(resumed["rows"]) == _clockless(full["rows"]) and len(full["rows"]) == 7


def test_overwrite_keeps_the_run_it_replaces_until_the_new_run_has_a_checkpoint(tmp_path, capsys):
    """--overwrite removed the run as the new one started: a warm start that failed (or was killed) an hour
    later left neither run."""
    class Failing(WarmToy):
        def warm_start(self) -> dict[str, Any]:
            raise RuntimeError("out of memory in the teacher games")

    run = tmp_path / "run"
    Toy(_toy(run, updates=2)).run()
    (run / "notes.txt").write_text("mine")
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.name != "notes.txt"}
    for attempt in range(2):  # a second failed attempt keeps the run the first one set aside
        with pytest.raises(RuntimeError, match="out of memory"):
            Failing(_toy(run, updates=1, overwrite=True, imitation_games=1)).run()
        kept = run / trainer.REPLACED
        assert {p.name: p.read_bytes() for p in kept.iterdir()} == before, attempt
        assert (run / "config.json").exists() and not (run / "checkpoint.pt").exists()  # the failed run's start
        assert (run / "notes.txt").read_text() == "mine"
        assert f"  the run replaced waits in {kept} until this run's first checkpoint" in capsys.readouterr().out
    stopped = WarmToy(_toy(run, updates=3, overwrite=True, imitation_games=1, checkpoint_every=100),
                      sig=signal.SIGTERM).run()  # stopped after its warm start: its checkpoint is written
    assert stopped["stopped_by"] == "SIGTERM" and not kept.exists()
    assert torch.load(run / "checkpoint.pt", weights_only=False)["counters"]["update"] == 0
    assert sorted(p.name for p in run.iterdir()) == sorted([*before, "notes.txt"])
    # only the run that set a run aside removes it: not a new run in a folder whose other files were deleted
    other = tmp_path / "other"
    Toy(_toy(other, updates=1)).run()
    with pytest.raises(RuntimeError, match="out of memory"):
        Failing(_toy(other, updates=1, overwrite=True, imitation_games=1)).run()
    (other / "config.json").unlink()
    Toy(_toy(other, updates=1, seed=9)).run()
    assert (other / trainer.REPLACED / "checkpoint.pt").exists()
    # then a replacement of that newer run (it has a checkpoint) sets it aside, not the stale one
    newer = {p.name: p.read_bytes() for p in other.iterdir() if p.is_file()}
    with pytest.raises(RuntimeError, match="out of memory"):
        Failing(_toy(other, updates=1, overwrite=True, imitation_games=1)).run()
    assert {p.name: p.read_bytes() for p in (other / trainer.REPLACED).iterdir()} == newer


def test_a_move_aside_cut_short_is_put_back_and_a_file_in_the_way_is_named(tmp_path):
    run = tmp_path / "run"
    Toy(_toy(run, updates=1)).run()
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    partial = run / (trainer.REPLACED + ".partial")
    partial.mkdir()
    for name in ("checkpoint.pt", "config.json"):  # what a move cut short had moved
        (run / name).rename(partial / name)
    aside = trainer.set_aside_run(run, Toy.OUTPUTS)
    assert {p.name: p.read_bytes() for p in aside.iterdir()} == before and not partial.exists()
    assert not [p for p in run.iterdir() if p.is_file()]
    # a move cut short after every file moved: the folder still holds a run, and clashing files are named
    for name in ("metrics.csv", "config.json"):
        (aside / name).rename(run / name)
    (aside / "toy.pt").write_text("the other run's")
    aside.rename(partial)
    with pytest.raises(ValueError, match=r"holds a run already \(config.json, metrics.csv, replaced-run.partial\)"):
        Toy(_toy(run, updates=1))
    (run / "toy.pt").write_text("this run's")
    with pytest.raises(FileExistsError, match=r"replaced-run.partial holds a run's files that a move aside left "
                                              r"\(toy.pt are also in"):
        trainer.set_aside_run(run, Toy.OUTPUTS)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / trainer.REPLACED).write_text("mine")
    with pytest.raises(FileExistsError, match="replaced-run is a file: --overwrite keeps the run it replaces"):
        trainer.set_aside_run(tmp_path / "other")


def test_a_signal_during_the_warm_start_stops_before_the_first_update(tmp_path, capsys):
    warm = dict(imitation_games=1, checkpoint_every=100)
    full = WarmToy(_toy(tmp_path / "full", **warm)).run()
    run = tmp_path / "stopped"
    stopped = WarmToy(_toy(run, **warm), sig=signal.SIGTERM).run()
    assert stopped["stopped_by"] == "SIGTERM" and [r["update"] for r in stopped["rows"]] == [0]
    assert "SIGTERM: stopped at update 0; --resume goes on from there" in capsys.readouterr().out
    resumed = WarmToy(_toy(run, resume=True, **warm)).run()
    assert _clockless(resumed["rows"]) == _clockless(full["rows"])


def _busy(run: Path, pid: int) -> str:
    """The words of the refusal (the holder's pid where Linux's /proc/locks tells it)."""
    who = rf" \(pid {pid}(, this process)?\)" if sys.platform == "linux" else ".*"
    return ("^" + re.escape(f"{run} (a run folder): another run") + who
            + re.escape(" is writing it; wait for that run to end (then --resume goes on from its "
                        "checkpoint), or choose another folder with --run-dir"))


def test_a_run_stopped_by_its_time_budget_says_so_and_a_resume_goes_on_with_a_larger_one(tmp_path, monkeypatch,
                                                                                         capsys):
    """It stopped without a word (exit 0, the result as if done), and a resume with the same budget, which counts
    the run's whole wall time, trained nothing and said nothing either."""
    def slow(self):
        time.sleep(0.05)
        return plain(self)

    plain = Toy.step
    monkeypatch.setattr(Toy, "step", slow)
    run = tmp_path / "run"
    first = Toy(_toy(run, updates=40, time_budget_s=0.2, eval_every=0)).run()
    n = first["rows"][-1]["update"]
    assert first["stopped_by"] == "time_budget_s" and 4 <= n < 40
    assert re.search(rf"time budget: stopped at update {n} of 40, the run's wall time \d+\.\d s having reached "
                     r"--time-budget-s 0\.2 \(resumes included\); --resume with a larger --time-budget-s \(or 0\) "
                     "goes on from there", capsys.readouterr().out)
    again = Toy(_toy(run, updates=40, time_budget_s=0.2, eval_every=0, resume=True)).run()
    assert again["stopped_by"] == "time_budget_s" and again["rows"][-1]["update"] == n
    assert f"time budget: stopped at update {n} of 40" in capsys.readouterr().out
    done = Toy(_toy(run, updates=40, eval_every=0, resume=True)).run()
    assert "stopped_by" not in done and done["rows"][-1]["update"] == 40
    assert "time budget" not in capsys.readouterr().out


def _toy_elsewhere(run: Path, updates: int) -> subprocess.Popen:
    """Another process that builds the toy to resume ``run`` to ``updates``, prints ``ready``, waits for a
    line on its stdin and runs it; returned once it is ready (killed, its stderr in the failure, if not)."""
    code = (f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\nfrom pathlib import Path\n"
            "from test_trainer import Toy, _toy\n"
            f"toy = Toy(_toy(Path({str(run)!r}), updates={updates}, resume=True))\n"
            "print('ready', flush=True)\nsys.stdin.readline()\ntoy.run()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line == "ready\n":
            return proc
    proc.kill()
    raise AssertionError(proc.communicate(timeout=60)[1])


class Crowded(Toy):
    """The toy, meeting at update ``at`` the runs of ``others`` (configs) in its folder: their errors."""

    def __init__(self, cfg: ToyConfig, at: int, others: list[ToyConfig]) -> None:
        super().__init__(cfg)
        self.at, self.others, self.refused = at, others, []

    def step(self) -> dict[str, Any]:
        out = super().step()
        if self.count["update"] == self.at:
            for other in self.others:
                with pytest.raises(BusyError) as refused:
                    Toy(other)
                self.refused.append(str(refused.value))
        return out


def test_a_run_folder_a_run_writes_is_refused_to_a_second_run_here_or_elsewhere_until_it_ends(tmp_path):
    # two resumes of one folder wrote one checkpoint over the other's; one died renaming a temporary file
    # that the other had renamed already (No such file or directory: 'checkpoint.pt.tmp' -> 'checkpoint.pt')
    full = Toy(_toy(tmp_path / "full", updates=4)).run()
    run = tmp_path / "run"
    Toy(_toy(run, updates=2)).run()
    crowded = Crowded(_toy(run, updates=4, resume=True), at=3,
                      others=[_toy(run, updates=4, resume=True), _toy(run, updates=1, overwrite=True)])
    rows = crowded.run()["rows"]
    assert len(crowded.refused) == 2 and all(re.match(_busy(run, os.getpid()), e) for e in crowded.refused)
    assert _clockless(rows) == _clockless(full["rows"])  # --overwrite removed none of its files
    other = _toy_elsewhere(run, updates=5)  # its lock taken when it is built, before its run
    try:
        before = _files(run)
        for cfg in (_toy(run, updates=5, resume=True), _toy(run, updates=1, overwrite=True)):
            with pytest.raises(ValueError, match=_busy(run, other.pid)):
                Toy(cfg)
        assert _files(run) == before  # refused before anything was read or removed
        other.communicate("go\n", timeout=300)  # its run goes on, then ends
    finally:
        other.kill()
    assert other.returncode == 0
    assert Toy(_toy(run, updates=6, resume=True)).run()["rows"][-1]["update"] == 6  # a run after it resumes


def test_a_run_folder_whose_run_was_killed_is_free_to_resume(tmp_path):
    run = tmp_path / "run"
    Toy(_toy(run, updates=2)).run()
    holder = _toy_elsewhere(run, updates=9)
    try:
        with pytest.raises(ValueError, match=_busy(run, holder.pid)):
            Toy(_toy(run, updates=3, resume=True))
    finally:
        holder.kill()  # killed: the system gives its lock back, no file is left to clear
        holder.communicate(timeout=60)
    assert Toy(_toy(run, updates=3, resume=True)).run()["rows"][-1]["update"] == 3
    assert sorted(p.name for p in run.iterdir()) == sorted(["config.json", "checkpoint.pt", "metrics.csv",
                                                            "metrics.json", "curves.png", "toy.pt"])


def test_a_negative_time_budget_is_refused_not_read_as_no_limit(tmp_path):
    """--time-budget-s -5 ran the whole run, as 0 (no limit) does, without a word."""
    with pytest.raises(ValueError, match=r"^time_budget_s=-5.0 is not valid; it must be >= 0 \(0: no limit"):
        _toy(tmp_path / "run", time_budget_s=-5.0)


@pytest.mark.parametrize("field", ["imitation_teacher", "imitation_opponent", "imitation_player"])
def test_a_bad_warm_start_agent_is_refused_before_the_run_writes_its_folder(tmp_path, field):
    """It was refused when the teacher games started: config.json written (a second try was refused as a
    run already there), and under --overwrite the run it replaced removed."""
    with pytest.raises(ValueError, match=rf"^{field}: agent='mctz:8' is not valid; valid agents: \["):
        Toy(_toy(tmp_path / "run", imitation_games=2, **{field: "mctz:8"}))
    assert not (tmp_path / "run").exists()  # the folder the refused run made (empty) is gone too


def test_the_cfr_agents_a_warm_start_checks_are_the_ones_its_teacher_games_play(tmp_path, monkeypatch):
    """The spec check built cfr:N once, the teacher games once a seat: each trained the same table again."""
    import weakref

    from octagames.agents.cfr import agent as cfr_agent
    from octagames.agents.cfr.mccfr import MCCFRSolver
    from octagames.agents.learn.imitation import teacher_games

    trained = []
    iterate = MCCFRSolver.iterate

    def counted(self, n, *args, **kwargs):
        trained.append(n)
        return iterate(self, n, *args, **kwargs)

    class Teaching(Toy):
        def warm_start(self) -> dict[str, Any]:
            data = teacher_games(self.game, self.cfg.imitation_teacher, 2, seed=0,
                                 opponent=self.cfg.imitation_opponent)
            return {"sum": float(len(data.actions))}

    monkeypatch.setattr(MCCFRSolver, "iterate", counted)
    monkeypatch.setattr(cfr_agent, "_TRAINED", weakref.WeakValueDictionary())
    monkeypatch.setattr(cfr_agent, "_NEWEST", [])
    small = dict(game="octrix-round", config=("ranks=2", "hand_size=2"), updates=1, imitation_games=2)
    run = Teaching(_toy(tmp_path / "run", imitation_teacher="cfr:3", imitation_opponent="cfr:4", **small))
    assert trained == [3, 4]  # the specs checked: each trained once
    run.run()
    assert trained == [3, 4]  # the teacher games shared the checked agents' tables
    assert run.checked_agents == []  # then let them go
