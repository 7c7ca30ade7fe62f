"""Search-and-learning throughput by device: self-play's and the learner's samples per second.

    octagames bench-az                        # every game, cpu, 1 and 2 threads
    octagames bench-az --game octrix achten --budget-s 5
    octagames bench-az --devices cpu cuda --threads 16 --num-games 128 512   # a GPU machine

For every game (``--game VARIANT ...``, ``--players N``, ``--config key=value ...`` as elsewhere;
default: every game's seed variant), device, torch thread count and number of games in lockstep,
with :mod:`~octagames.experiments.train_az`'s network and search (its ``hidden``, ``head``,
``activation``, ``simulations``; every game self-play, no agent or snapshot games):

* **self-play**: the trainer's :class:`~octagames.agents.learn.az_selfplay.SelfPlayWorker` with its
  network on the device plays searched decisions for ``budget_s`` seconds after a warm-up call.
  ``decisions_per_s``: searched decisions per second (each becomes a sample when its game ends);
  ``network_share``: the part of that time inside the network calls (the move of the leaves'
  observations to the device and of the priors and values back included); ``calls_per_s`` and
  ``positions_per_call``: how many batched calls the search made and how full they were.
* **learner**: :class:`~octagames.agents.learn.az_selfplay.Learner` steps on ``batch_size`` samples
  drawn from a replay buffer of positions that self-play reached (``ReplayBuffer.batch``: the
  observations computed from the records and moved to the device, as the trainer does), for
  ``budget_s`` seconds after ``warmup_steps`` steps. ``samples_per_s``: samples trained on per second
  (each step reads its loss back, so the GPU's work is finished when the clock stops).

Writes ``out_json`` (every figure, the settings, the machine and the load average at the start and the
end) and ``out_png`` (both rates per game, one bar per device, threads and lockstep size).
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from octagames.agents.learn.az import PolicyValueNet
from octagames.agents.learn.az_selfplay import (Learner, ReplayBuffer, SelfPlayWorker, Trajectories,
                                                concat_trajectories)
from octagames.core import Game, is_count
from octagames.experiments.bench import load_average
from octagames.experiments.bench_ppo import _game_fields
from octagames.experiments.cli import GamesArgs, parse_config, script
from octagames.experiments.train_az import TrainConfig
from octagames.experiments.trainer import machine, resolve_device


@dataclass(frozen=True)
class BenchConfig(GamesArgs):
    """Self-play and learner throughput by device (all fields are command-line flags)."""

    devices: tuple[str, ...] = ("cpu",)
    """torch devices measured side by side: cpu, cuda, cuda:<n>, auto (cuda when torch sees a GPU, else cpu)"""
    threads: tuple[int, ...] = (1, 2)
    """torch CPU thread counts measured on each device"""
    num_games: tuple[int, ...] = (128,)
    """games in lockstep in self-play (each network call batches the leaves of all of them)"""
    simulations: int = 32
    """simulations per searched decision (train_az's default)"""
    batch_size: int = 256
    """the learner's batch (train_az's default)"""
    budget_s: float = 8.0
    """seconds per measurement (self-play and learner separately)"""
    warmup_steps: int = 5
    """learner steps before its clock starts"""
    seed: int = 0
    """seed of every measurement"""
    out_json: str = "runs/bench_az.json"
    """results file"""
    out_png: str = "runs/bench_az.png"
    """bar charts"""
    progress: bool = True
    """show a tqdm progress bar over the measurements"""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.budget_s <= 0:
            raise ValueError(f"budget_s={self.budget_s} is not valid; it must be > 0")
        if not self.threads or min(self.threads) < 1:
            raise ValueError(f"threads={self.threads} is not valid; give thread counts >= 1, e.g. 1 2")
        if not self.num_games or min(self.num_games) < 1:
            raise ValueError(f"num_games={self.num_games} is not valid; give lockstep sizes >= 1, e.g. 128 512")
        for name in ("simulations", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        for name in ("warmup_steps", "seed"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 0")
        if not self.devices:
            raise ValueError("devices=() is not valid; name at least one, e.g. cpu cuda")
        for d in self.devices:
            index = d[5:] if d.startswith("cuda:") else "0"
            if d not in ("auto", "cpu", "cuda") and not (d.startswith("cuda:") and is_count(index)):
                raise ValueError(f"devices: {d!r} is not valid; valid values: auto, cpu, cuda, cuda:<n>")
            if d.startswith("cuda") and int(index) >= torch.cuda.device_count():
                raise ValueError(f"devices: {d!r} is not available here (torch sees {torch.cuda.device_count()} "
                                 "GPUs); measure cpu (or auto)")


class _Timed:
    """A network evaluator that counts its calls, positions and seconds."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.calls, self.positions, self.seconds = fn, 0, 0, 0.0

    def __call__(self, obs: np.ndarray, *args: Any) -> Any:
        t = time.perf_counter()
        out = self.fn(obs, *args)  # returns numpy arrays: the device's work is done
        self.seconds += time.perf_counter() - t
        self.calls += 1
        self.positions += len(obs)
        return out


def train_config(cfg: BenchConfig, game: str, config: dict[str, Any], num_games: int) -> TrainConfig:
    """train_az's settings for one measurement (every game self-play)."""
    return TrainConfig(**_game_fields(game, config), seed=cfg.seed, num_games=num_games,
                       simulations=cfg.simulations, batch_size=cfg.batch_size, self_play_prob=1.0, agent_prob=0.0)


def bench_self_play(cfg: BenchConfig, tc: TrainConfig, game: str, config: dict[str, Any], net: PolicyValueNet,
                    device: torch.device) -> tuple[dict[str, Any], Trajectories]:
    """Searched decisions per second of train_az's worker on ``device``; also its samples (those of
    finished games and of games in progress, with their search targets), for the learner's buffer."""
    worker = SelfPlayWorker(game, config, tc.worker(), net.spec, seed=cfg.seed, device=device)
    worker.set_weights(net.state_dict())
    step = dict(min_samples=1 << 62, max_decisions=1)  # one batched search step over every game in lockstep
    worker.play(**step)  # starts the games (and compiles what the warmup did not)
    timed = _Timed(worker.evaluate)
    worker.evaluate = timed
    parts: list[Trajectories] = []
    decisions, start = 0, time.perf_counter()
    while time.perf_counter() - start < cfg.budget_s:
        t = worker.play(**step)
        decisions += int(t.stats.get("decisions", 0))
        parts.append(t)
    dt = time.perf_counter() - start
    pending = [d for p in worker.pending for d in p]
    if pending:  # the samples of the games still going, with their outcome unknown (zero values)
        parts.append(Trajectories(np.concatenate([d[0] for d in pending]), np.array([d[1] for d in pending], np.int64),
                                  np.stack([d[2] for d in pending]), np.stack([d[3] for d in pending]),
                                  np.zeros((len(pending), worker.P), np.float32), {}))
    return {"decisions_per_s": decisions / dt, "decisions": decisions, "seconds": dt,
            "network_share": timed.seconds / dt, "calls_per_s": timed.calls / dt,
            "positions_per_call": timed.positions / max(1, timed.calls)}, concat_trajectories(parts)


def bench_learner(cfg: BenchConfig, g: Game, net: PolicyValueNet, device: torch.device,
                  samples: Trajectories) -> dict[str, Any]:
    """Samples per second of the learner on ``device`` over a buffer of self-play's samples."""
    n = len(samples)
    if n == 0:
        raise ValueError(f"budget_s={cfg.budget_s} is too short: self-play made no sample to learn from")
    rng = np.random.default_rng(cfg.seed)
    buffer = ReplayBuffer(g, n, samples.pol_idx.shape[1])
    buffer.add(samples)
    learner = Learner(net.to(device))
    for _ in range(cfg.warmup_steps):
        learner.step(buffer.batch(rng.integers(n, size=cfg.batch_size), device))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < cfg.budget_s:
        learner.step(buffer.batch(rng.integers(n, size=cfg.batch_size), device))  # returns floats: synced
        steps += 1
    dt = time.perf_counter() - start
    return {"samples_per_s": steps * cfg.batch_size / dt, "steps": steps, "seconds": dt, "buffer": n}


def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    """Every measurement of ``cfg``; writes ``out_json`` and ``out_png`` and returns the results."""
    threads_before = torch.get_num_threads()
    games = list(zip(cfg.describe_all(), cfg.resolve_all()))
    cases = [(d, t, b) for d in cfg.devices for t in cfg.threads for b in cfg.num_games]
    load_start = load_average()
    bar = None
    if cfg.progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(games) * len(cases), desc="bench az", unit="run", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    try:
        for spec, (game, config) in games:
            g = Game(game, **config)
            for device_name, threads, num_games in cases:
                if bar is not None:
                    bar.set_postfix_str(f"{spec} {device_name} {threads} thr {num_games} games")
                torch.set_num_threads(threads)
                device = resolve_device(device_name)
                tc = train_config(cfg, game, config, num_games)
                torch.manual_seed(cfg.seed)
                net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, tc.hidden, tc.head,
                                     tc.activation)
                sp, samples = bench_self_play(cfg, tc, game, config, net, device)
                rows.append({"game": spec, "device": str(device), "machine": machine(device), "threads": threads,
                             "num_games": num_games, "self_play": sp,
                             "learner": bench_learner(cfg, g, net, device, samples)})
                if bar is not None:
                    bar.update(1)
    finally:
        torch.set_num_threads(threads_before)
        if bar is not None:
            bar.close()
    out = {"config": dataclasses.asdict(cfg),
           "metric": "self-play: searched decisions per second (each a sample once its game ends); "
                     "learner: samples trained on per second",
           "torch_version": torch.__version__, "platform": platform.platform(), "cpu_count": os.cpu_count(),
           "network": {"hidden": list(TrainConfig.hidden), "head": TrainConfig.head,
                       "activation": TrainConfig.activation},
           "load_average": {"start": load_start, "end": load_average()}, "rows": rows}
    path = Path(cfg.out_json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    plot_bench(out, Path(cfg.out_png))
    return out


def _label(r: dict[str, Any]) -> str:
    return f"{r['device']}, {r['threads']} thr, {r['num_games']} games"


def plot_bench(out: dict[str, Any], path: Path) -> Path:
    """Self-play decisions/s (left) and learner samples/s (right) per game, a bar per device setting."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = out["rows"]
    games = list(dict.fromkeys(r["game"] for r in rows))
    labels = list(dict.fromkeys(_label(r) for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(max(8.0, 2.2 * len(games)) * 2, 4.5))
    width = 0.8 / max(1, len(labels))
    for ax, (key, metric, title) in zip(axes, (("self_play", "decisions_per_s", "self-play: searched decisions / s"),
                                             ("learner", "samples_per_s", "learner: samples / s"))):
        for j, lab in enumerate(labels):
            by = {r["game"]: r[key][metric] for r in rows if _label(r) == lab}
            xs = [i + (j - (len(labels) - 1) / 2) * width for i in range(len(games))]
            ys = [by.get(gm, 0.0) for gm in games]
            ax.bar(xs, ys, width, label=lab)
            for x, y in zip(xs, ys):
                ax.text(x, y, f"{y:,.0f}", ha="center", va="bottom", fontsize=7, rotation=90)
        ax.set_xticks(range(len(games)))
        ax.set_xticklabels(games, fontsize=8)
        ax.set_yscale("log")
        ax.set_title(f"{title}, {out['config']['simulations']} simulations" if key == "self_play" else title)
        ax.grid(axis="y", alpha=0.3)
        ax.set_ylim(top=ax.get_ylim()[1] * 3)  # room for the legend above the bars
        ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def print_table(out: dict[str, Any]) -> None:
    """One line per measurement: both rates, the network's share of self-play and its batches."""
    load = out["load_average"]
    print(f"search-and-learning throughput, {out['config']['simulations']} simulations, learner batch "
          f"{out['config']['batch_size']}; load average {' '.join(f'{v:.2f}' for v in load['start'])} at the start, "
          f"{' '.join(f'{v:.2f}' for v in load['end'])} at the end")
    print(f"{'game':<22}{'device':>8}{'threads':>8}{'games':>7}{'decisions/s':>13}{'network':>9}"
          f"{'calls/s':>9}{'pos/call':>9}{'learner samples/s':>19}")
    for r in out["rows"]:
        sp, le = r["self_play"], r["learner"]
        print(f"{r['game']:<22}{r['device']:>8}{r['threads']:>8}{r['num_games']:>7}{sp['decisions_per_s']:>13,.0f}"
              f"{sp['network_share']:>9.0%}{sp['calls_per_s']:>9,.0f}{sp['positions_per_call']:>9,.0f}"
              f"{le['samples_per_s']:>19,.0f}")
    machines = sorted({r["machine"] for r in out["rows"]})
    print("machine: " + "; ".join(machines))


def main(cfg: BenchConfig) -> dict[str, Any]:
    """Command-line entry: run the benchmark and print the table."""
    out = run_bench(cfg)
    print_table(out)
    print(f"wrote {cfg.out_json} and {cfg.out_png}")
    return out


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-az``, or ``python -m octagames.experiments.bench_az``)."""
    main(parse_config(BenchConfig))


if __name__ == "__main__":
    cli()
