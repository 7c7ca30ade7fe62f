"""Fit a learned rollout policy to a teacher's choices and put it in a model file.

    octagames train-rollout --game octa-en --model agents/zoo/octa-en.pt --games 3000 --steps 4000

Plays ``--games`` games of the teacher (the game's heuristic by default) in every seat, a share
``--epsilon`` of the moves at random (the teacher's choice is still the label), and fits a
:class:`~octagames.agents.search.learned_rollouts.LearnedRollout` (a linear score per action over
the facts it is about, compiled) to the teacher's choices, keeping ``--held-out`` of them aside to
measure how often it agrees. The policy is written into the model file (``--out``; by default the
model file itself): a search that rolls out with ``belief_model="learned"`` plays every seat by it,
and ``net:<variant>`` rolls out by it where the zoo's search rolls out by the heuristic
(:func:`~octagames.agents.learn.az.network_only`). Beside the model file: ``<stem>.rollout.json``
(the command, commit, date, machine, wall time, decisions and the agreement curve) and
``<stem>.rollout.png`` (the curve); for a zoo model, its card (``agents/zoo/<name>.json``) keeps the
record instead, as ``learned_rollout`` (and, with ``--network-worlds N``, ``network_belief_worlds``: the worlds
``net:<name>`` rolls out over, where the learned policy's playouts cost more than the heuristic's; without the
flag the card keeps the number it has, ``--network-worlds 0`` removes it), and the zoo's README its line. A
learned policy that plays alone (``learned_policy``, from ``improve_policy``) stays in the file as it was.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from octagames.agents.learn.az import ZOO_DIR, PolicyValueNet, SearchConfig, load_model, save_model
from octagames.agents.model_config import load_model_file
from octagames.agents.search.learned_rollouts import LearnedRollout, features, fit, teacher_decisions
from octagames.core import Game
from octagames.experiments.cli import GameArgs, command_text, git_commit, parse_config, script
from octagames.experiments.trainer import machine, save_figure
from octagames.experiments.zoo import card_of, write_readme


@dataclass(frozen=True)
class RolloutConfig(GameArgs):
    """Fit a learned rollout policy (all fields are command-line flags)."""

    model: str = ""
    """the model file (a train_az model.pt or a zoo file) that carries the policy"""
    out: str = ""
    """where the model file with the policy goes ("": the model file itself)"""
    teacher: str = "heuristic"
    """the agent whose choices the policy learns"""
    games: int = 3000
    """teacher games (every decision with more than one legal action is a sample)"""
    epsilon: float = 0.1
    """share of the teacher games' moves played at random (positions the teacher alone would not reach)"""
    rank: int = 0
    """columns of the policy's embedding of the whole observation (0: the facts each action is about alone)"""
    steps: int = 4000
    """Adam steps"""
    batch_size: int = 1024
    """decisions per step"""
    learning_rate: float = 0.01
    """Adam's step size"""
    held_out: float = 0.1
    """share of the decisions kept out of training to measure the agreement on"""
    seed: int = 0
    """seed of the teacher games, the split and the batches"""
    network_worlds: int = -1
    """for a zoo file: the worlds net:<name> rolls out over with the policy (its card's network_belief_worlds;
    -1: the number the card has, 0: the zoo search's own)"""
    progress: bool = True
    """show a progress bar over the teacher games"""

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("games", "steps", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        if self.rank < 0:
            raise ValueError(f"rank={self.rank} is not valid; it must be >= 0")
        if self.seed < 0:  # numpy's refusal names no flag
            raise ValueError(f"seed={self.seed} is not valid; it must be >= 0")
        if self.network_worlds < -1:
            raise ValueError(f"network_worlds={self.network_worlds} is not valid; it must be >= -1 (-1: the "
                             "number the zoo card has, 0: the zoo search's own)")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon={self.epsilon} is not valid; it must be in [0, 1]")
        if not 0.0 < self.held_out < 1.0:
            raise ValueError(f"held_out={self.held_out} is not valid; it must be in (0, 1)")
        if not (self.learning_rate > 0 and math.isfinite(self.learning_rate)):  # nan and inf failed after the fit
            raise ValueError(f"learning_rate={self.learning_rate} is not valid; it must be a finite number > 0")


def train_rollout(cfg: RolloutConfig) -> dict[str, Any]:
    """Fit the policy, write the model file and its record; returns the record.

    Raises:
        ValueError: the model file does not fit the game, is a training checkpoint written in place, or the
            game names no facts for the policy to read.
    """
    if not cfg.model:
        raise ValueError("model is empty: give the model file (model.pt or a zoo file) to carry the policy")
    game = cfg.make_game()
    features(game)  # refuse a game without facts before any game is played
    model = open_model(cfg.model, cfg.out, game)
    start, commit = time.perf_counter(), git_commit()  # the code the run starts with
    decisions = teacher_decisions(game, cfg.games, cfg.seed, cfg.epsilon, cfg.teacher, cfg.progress)
    played = time.perf_counter() - start
    policy, curve = fit(game, decisions, cfg.steps, cfg.batch_size, cfg.learning_rate, cfg.held_out, cfg.seed,
                        rank=cfg.rank)
    model.save(game, learned=policy, alone=model.policy(game, "learned_policy"))
    record = {"command": command_text(cfg, "octagames.experiments.train_rollout"), "commit": commit,
              "date": datetime.date.today().isoformat(), "machine": machine(), "teacher": cfg.teacher,
              "rank": cfg.rank, "decisions": len(decisions), "teacher_games_s": round(played, 1),
              "wall_time": round(time.perf_counter() - start, 1),
              "held_out_accuracy": curve[-1]["held_out_accuracy"],
              **({"network_worlds": cfg.network_worlds} if cfg.network_worlds > 0 else {}), "curve": curve}
    png = plot(curve, Path(f"{model.out.with_suffix('')}.rollout.png"),
               f"{cfg.game}: learned rollout policy vs {cfg.teacher}")
    kept = {} if cfg.network_worlds < 0 else {"network_belief_worlds": cfg.network_worlds or None}
    keep_record(model.out, "rollout", record, png, kept)
    return record


@dataclass
class ModelFile:
    """A model file that a learned policy is written into (:func:`open_model`): its network, content, search,
    whether its weights are float16, and where it goes."""

    net: PolicyValueNet
    data: dict[str, Any]
    search: SearchConfig
    half: bool
    out: Path

    def policy(self, game: Game, key: str) -> LearnedRollout | None:
        """The file's ``learned_rollout`` or ``learned_policy`` (None where it carries none)."""
        return LearnedRollout.from_state(game, self.data[key]) if key in self.data else None

    def save(self, game: Game, learned: LearnedRollout | None, alone: LearnedRollout | None) -> None:
        """Write the file to :attr:`out` (atomically) with these learned policies, the rest as it was."""
        save_model(self.net, self.out, game, self.search, meta=self.data.get("meta", {}), half=self.half,
                   learned=learned, alone=alone)


def open_model(model: str, out: str, game: Game) -> ModelFile:
    """The model file ``model`` for ``game``, to be written to ``out`` ("": in place).

    Raises:
        ValueError: it does not fit the game, or it is a training checkpoint and ``out`` is empty; ``out`` is a
            folder or a file that is not a model file.
    """
    if out and Path(out).is_dir():
        raise ValueError(f"out={out!r} is a folder; give the path of the model file to write")
    if out and Path(out).exists():  # a model file is replaced; another file is the user's, not written over
        try:
            load_model_file(out)
        except ValueError as e:
            raise ValueError(f"out={out!r} is a file but no model file ({e}); give the path of a model file to "
                             "replace or of a new one") from e
    raw = load_model_file(model)
    if isinstance(raw, dict) and isinstance(raw.get("model"), dict) and not out:
        raise ValueError(f"{model} is a training checkpoint: give --out for the model file to write")
    net, data = load_model(model, game)
    fields = {f.name for f in dataclasses.fields(SearchConfig)}
    search = SearchConfig(**{k: v for k, v in data["search"].items() if k in fields})
    half = any(v.dtype == torch.float16 for v in data["state_dict"].values())
    return ModelFile(net, data, search, half, Path(out or model))


def keep_record(out: Path, kind: str, record: dict[str, Any], png: Path, card_fields: dict[str, Any]) -> None:
    """Keep a learned policy's ``record`` for the model file ``out``: for a zoo file, in its card as
    ``learned_<kind>`` (with ``png``'s name, and ``card_fields``, a None value removing its field) and the
    zoo's README; else beside the file as ``<stem>.<kind>.json``."""
    card = card_of(out)
    if card is not None:  # a zoo file: its card keeps the record
        entry = json.loads(card.read_text())
        entry[f"learned_{kind}"] = {**record, "png": png.name}
        entry["size_bytes"] = out.stat().st_size
        for key, value in card_fields.items():
            entry.pop(key, None)
            if value is not None:
                entry[key] = value
        card.write_text(json.dumps(entry, indent=1) + "\n")
        write_readme()
    else:
        Path(f"{out.with_suffix('')}.{kind}.json").write_text(json.dumps(record, indent=1) + "\n")


def plot(curve: list[dict[str, float]], path: Path, title: str) -> Path:
    """The held-out agreement and the training loss over the steps (PNG)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    steps = [p["step"] for p in curve]
    left.plot(steps, [p["held_out_accuracy"] for p in curve], marker="o")
    left.set_xlabel("step")
    left.set_ylabel("held-out agreement with the teacher")
    left.set_ylim(0, 1)
    left.grid(alpha=0.3)
    right.plot(steps, [p["loss"] for p in curve], marker="o")
    right.set_xlabel("step")
    right.set_ylabel("training loss (cross-entropy)")
    right.grid(alpha=0.3)
    return save_figure(fig, path, title)


@script
def cli() -> None:
    """Command-line entry point (``python -m octagames.experiments.train_rollout``)."""
    record = train_rollout(parse_config(RolloutConfig))
    print(json.dumps({k: record[k] for k in ("decisions", "wall_time", "held_out_accuracy")}, indent=1))


if __name__ == "__main__":
    cli()
