"""Improve a model file's learned policy against the heuristic, and keep it as the policy that plays alone.

    octagames improve-policy --game octa-en --model agents/zoo/octa-en.pt --iterations 200

Starts from the model file's learned rollout policy (``train_rollout``'s clone of the heuristic; or,
with ``--start policy``, from the learned policy an earlier run wrote, to go on from it) and improves it
by evolution strategies over whole compiled games against the game's heuristic
(:func:`~octagames.agents.search.learned_rollouts.improve`). The result goes into the model file
(``--out``; by default the model file itself) as ``learned_policy``: what ``net:<variant>:0`` and
``zoo:<variant>:0`` (0 simulations) play, one linear score per legal action over its facts, nothing
hand-written at play time. The learned rollout policy of the search is left as it was. At every curve
point the file is written with the policy so far, so a killed run loses at most ``--eval-every`` iterations
(go on with ``--start policy``); a run stopped by Ctrl-C or SIGTERM ends as if it had reached its last curve
point (the record's ``iterations_run`` says where). Beside the model file: ``<stem>.policy.json`` (the
command, commit, date, machine, wall time and the held-out curve) and ``<stem>.policy.png`` (the curve); for
a zoo model, its card (``agents/zoo/<name>.json``) keeps the record instead, as ``learned_policy``. A run that
goes on (``--start policy``) keeps the record of the runs before it as ``stages`` (oldest first), with
``total_wall_time`` and ``total_games_played`` over all of them, and its plot draws every stage's curve.
With ``--no-progress`` each curve point is printed as a line (for logs of runs in the background).
"""

from __future__ import annotations

import datetime
import json
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.agents.search.learned_rollouts import LearnedRollout, improve
from octagames.core import Game
from octagames.experiments.cli import GameArgs, command_text, git_commit, parse_config, script
from octagames.experiments.train_rollout import ModelFile, keep_record, open_model
from octagames.experiments.trainer import machine, save_figure
from octagames.experiments.zoo import kept_record

STARTS = ("rollout", "policy")


@dataclass(frozen=True)
class ImproveConfig(GameArgs):
    """Improve a learned policy against the heuristic (all fields are command-line flags)."""

    model: str = ""
    """the model file (a train_az model.pt or a zoo file) that carries a learned rollout policy"""
    out: str = ""
    """where the model file with the improved policy goes ("": the model file itself)"""
    start: str = "rollout"
    """what to start from: the file's learned rollout policy ("rollout") or its learned policy ("policy")"""
    iterations: int = 200
    """evolution-strategy iterations"""
    pairs: int = 32
    """antithetic pairs of candidates per iteration"""
    games: int = 1000
    """deals each candidate plays per iteration (seats rotated)"""
    sigma: float = 0.4
    """the candidates' spread, relative to each weight"""
    learning_rate: float = 0.1
    """Adam's step, relative to each weight"""
    eval_games: int = 4000
    """held-out deals per curve point"""
    eval_every: int = 10
    """iterations between curve points (and checkpoints)"""
    threads: int = 0
    """threads playing the candidates (0: every core)"""
    seed: int = 0
    """seed of the directions and the deals (the result does not depend on --threads)"""
    fill_from: str = ""
    """a model file whose learned rollout policy gives the start policy the weights it reads but holds at 0 (the
    rows an action gained after the policy was improved: a clone fitted with them knows what they are worth);
    "": none"""
    blocks: tuple[str, ...] = ()
    """tune only the weights and biases of the actions in these blocks of the action table (e.g. jack); the
    others stay as the start policy has them (empty: all)"""
    progress: bool = True
    """show a progress bar over the iterations"""

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("iterations", "pairs", "games", "eval_games", "eval_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        if self.threads < 0:
            raise ValueError(f"threads={self.threads} is not valid; it must be >= 0 (0: every core)")
        if not 0 <= self.seed < 2**21:  # numpy's refusal names no flag; the deals' seeds are (2 seed + k) << 40
            raise ValueError(f"seed={self.seed} is not valid; it must be in 0..{2**21 - 1} (the deals' seeds, "
                             "(2 seed + 2) << 40 and up, must stay seeds)")
        if self.start not in STARTS:
            raise ValueError(f"start={self.start!r} is not valid; valid values: {list(STARTS)}")
        for name in ("sigma", "learning_rate"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be > 0")


def improve_policy(cfg: ImproveConfig) -> dict[str, Any]:
    """Improve the policy, write the model file and its record; returns the record.

    Raises:
        ValueError: no model file, one that does not fit the game or carries no policy to start from, or
            a training checkpoint written in place.
    """
    if not cfg.model:
        raise ValueError("model is empty: give the model file (model.pt or a zoo file) with a learned rollout policy")
    game = cfg.make_game()
    model = open_model(cfg.model, cfg.out, game)
    key = {"rollout": "learned_rollout", "policy": "learned_policy"}[cfg.start]
    start_policy = model.policy(game, key)
    if start_policy is None:
        hint = ("python -m octagames.experiments.train_rollout adds one" if cfg.start == "rollout"
                else "run with --start rollout first")
        raise ValueError(f"{cfg.model} carries no {key} to start from ({hint})")
    if cfg.fill_from:
        donor = open_model(cfg.fill_from, cfg.fill_from, game).policy(game, "learned_rollout")
        if donor is None:
            raise ValueError(f"fill_from: {cfg.fill_from} carries no learned_rollout to take weights from "
                             "(python -m octagames.experiments.train_rollout adds one)")
        start_policy = filled(start_policy, donor)
    rollout = model.policy(game, "learned_rollout")
    stages = earlier_stages(kept_record(Path(cfg.model), "policy")) if cfg.start == "policy" else []
    began, commit = time.perf_counter(), git_commit()  # the code it starts with
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _interrupt) if main else None  # SIGTERM stops it as Ctrl-C does
    try:
        policy, curve = improve(start_policy, cfg.iterations, cfg.pairs, cfg.games, cfg.sigma, cfg.learning_rate,
                                cfg.seed, cfg.eval_games, cfg.eval_every, cfg.threads or None, cfg.progress,
                                on_point=lambda p, c: checkpoint(model, game, rollout, p, c, cfg.progress),
                                blocks=cfg.blocks)
    finally:
        if main:
            signal.signal(signal.SIGTERM, before)
    model.save(game, rollout, policy)
    record = {"command": command_text(cfg, "octagames.experiments.improve_policy"), "commit": commit,
              "date": datetime.date.today().isoformat(), "machine": machine(), "start": cfg.start,
              "opponent": "heuristic", "iterations_run": curve[-1]["iteration"], "games_played": curve[-1]["games"],
              "wall_time": round(time.perf_counter() - began, 1), "win_rate": curve[-1]["win_rate"],
              "interval": [curve[-1]["lower"], curve[-1]["upper"]], "eval_games": cfg.eval_games, "curve": curve}
    if cfg.fill_from:  # the clone the weights of new rows came from: how it was fitted
        record["fill_from"] = kept_record(Path(cfg.fill_from), "rollout")
    if stages:
        record.update(stages=stages, total_wall_time=round(sum(st.get("wall_time", 0.0) for st in stages)
                                                           + record["wall_time"], 1),
                      total_games_played=sum(st.get("games_played", 0) for st in stages) + record["games_played"])
    png = plot([*(st.get("curve", []) for st in stages), curve], Path(f"{model.out.with_suffix('')}.policy.png"),
               f"{cfg.game}: learned policy alone vs the heuristic")
    keep_record(model.out, "policy", record, png, {})
    return record


def filled(policy: LearnedRollout, donor: LearnedRollout) -> LearnedRollout:
    """``policy`` with ``donor``'s weights where ``policy`` reads a row but weighs it 0: rows an action came to
    name after ``policy`` was improved (its weights there never moved), learned by ``donor`` (a clone fitted
    since). Every other weight and bias is ``policy``'s."""
    k = policy.features.k
    read = policy.features.read()
    new = read.copy()
    for grp, j in zip(*np.nonzero(read[:, ::k])):  # a row slot of a group: new where all its weights are 0
        new[grp, j * k:(j + 1) * k] = not policy.weight[grp, j * k:(j + 1) * k].any()
    weight = np.where(new, donor.weight, policy.weight)
    return LearnedRollout(policy.game, weight, policy.bias)


def earlier_stages(before: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of the runs a run going on from ``before`` (the record of the policy it starts from, ``{}``
    where there is none) follows, oldest first: ``before``'s own ``stages``, then ``before`` itself without
    them, its totals or its plot's name."""
    if not before:
        return []
    own = {k: v for k, v in before.items() if k not in ("stages", "total_wall_time", "total_games_played", "png")}
    return [*before.get("stages", []), own]


def checkpoint(model: ModelFile, game: Game, rollout: LearnedRollout | None, policy: LearnedRollout,
               curve: list[dict[str, float]], progress: bool) -> None:
    """A curve point: the model file written with the policy so far; without a progress bar, a line."""
    model.save(game, rollout, policy)
    if not progress:
        p = curve[-1]
        print(f"{time.strftime('%H:%M:%S')} iteration {p['iteration']}: held-out win rate {p['win_rate']:.4f} "
              f"[{p['lower']:.3f}, {p['upper']:.3f}] after {p['games']:,} games; written to {model.out}", flush=True)


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM: stop as Ctrl-C does (:func:`~octagames.agents.search.learned_rollouts.improve` keeps the
    policy of its last curve point)."""
    raise KeyboardInterrupt


def plot(curves: list[list[dict[str, float]]], path: Path, title: str) -> Path:
    """The held-out win rate (with its 95% Wilson interval) over the games the candidates played (PNG): one
    curve per stage (``curves``, oldest first), each after the games of the stages before it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    offset = 0.0
    for i, curve in enumerate(c for c in curves if c):
        games = [offset + p["games"] / 1e6 for p in curve]
        label = f"stage {i + 1}" if len(curves) > 1 else "held-out win rate"
        ax.plot(games, [p["win_rate"] for p in curve], marker="o", label=label)
        ax.fill_between(games, [p["lower"] for p in curve], [p["upper"] for p in curve], alpha=0.25,
                        label="95% Wilson interval" if i == 0 else None)
        offset = games[-1]
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("games played by the candidates (millions)")
    ax.set_ylabel("win rate against the heuristic")
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path, title)


@script
def cli() -> None:
    """Command-line entry point (``python -m octagames.experiments.improve_policy``)."""
    record = improve_policy(parse_config(ImproveConfig))
    print(json.dumps({k: record[k] for k in ("games_played", "wall_time", "win_rate", "interval")}, indent=1))


if __name__ == "__main__":
    cli()
