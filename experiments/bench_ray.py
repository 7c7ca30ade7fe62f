"""Throughput on Ray: arena games/s and self-play samples/s with 1 and 2 local workers.

    python -m octagames.experiments.bench_ray                      # a private local Ray instance, 2 CPUs
    python -m octagames.experiments.bench_ray --ray-address auto   # the cluster this machine belongs to

* **games/s**: ``--games`` arena games (``--agents``, seats rotated) played in this
  process (the anchor), then as Ray tasks (chunks of ``--chunk-size``) on 1 and
  on 2 workers. The results are identical (checked); only the time differs.
* **samples/s**: PPO rollouts (``--ppo-steps`` env steps per actor per update)
  and search-and-learning self-play (``--az-samples`` samples per iteration) with
  the worker in this process, then on 1 and 2 Ray actors. The learner is not
  timed: these are the rates at which actors feed it.
* **learner**: gradient steps/s of one CPU learner, and the new samples/s it keeps
  up with at replay ratio 4 (past that, more actors add nothing).

Every worker's first call (process start, compiled-kernel loading) is left out; each
figure is the best of ``--repeats`` runs.

Writes ``runs/bench_ray.json`` and ``runs/bench_ray.png`` with the machine's load
average, since the figures depend on it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from octagames.agents.arena import play_games
from octagames.agents.learn.az import PolicyValueNet, SearchConfig
from octagames.agents.learn.az_selfplay import Learner, ReplayBuffer, SelfPlayWorker, WorkerConfig
from octagames.agents.learn.distributed import ActorGroup, RayGames, SelfPlayActors, connect, require_cpus
from octagames.agents.registry import make_agent
from octagames.agents.learn.rollout import RolloutWorker
from octagames.experiments.train_ppo import TrainConfig
from octagames.experiments.cli import GameArgs, check_ray_options, parse_config, script

#: the most Ray workers (tasks or actors) a bench runs at once: it measures 1 and 2
WORKERS = 2


@dataclass(frozen=True)
class BenchRayConfig(GameArgs):
    """What to measure (every field is a flag; --game VARIANT, --players, --config as elsewhere)."""

    game: str = "octrix-round"
    """the variant (a single Octrix round by default, as the published figures were measured)"""
    agents: tuple[str, ...] = ("mcts:200", "heuristic")
    """the two agents of the arena games"""
    games: int = 64
    """arena games per measurement"""
    chunk_size: int = 4
    """games per Ray task"""
    ppo_envs: int = 64
    """games per PPO rollout actor"""
    ppo_steps: int = 32
    """steps per PPO rollout"""
    az_samples: int = 512
    """self-play samples per actor per measurement"""
    az_simulations: int = 32
    """simulations per searched decision in self-play"""
    ray_address: str = ""
    """a Ray cluster to use (auto: the one this machine belongs to, host:port: its head); empty: a private local
    instance"""
    num_cpus: int = 2
    """CPUs of the local instance (at least 2: the benches run up to 2 Ray workers at once)"""
    repeats: int = 3
    """timed runs per figure (the best counts; the first call of every worker is never timed)"""
    out: str = "runs/bench_ray.json"
    """the JSON (the PNG goes beside it)"""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_ray_options(self.ray_address, self.chunk_size)
        for name in ("games", "ppo_envs", "ppo_steps", "az_samples", "az_simulations", "repeats"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        if self.num_cpus < WORKERS:
            raise ValueError(f"num_cpus={self.num_cpus} is not valid; it must be >= {WORKERS} (the benches run "
                             f"up to {WORKERS} Ray workers at once, one CPU each)")


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _best(fn: Any, repeats: int) -> tuple[Any, float]:
    """The result and the shortest time of ``repeats`` runs (the machine is shared)."""
    runs = [_timed(fn) for _ in range(max(1, repeats))]
    return runs[0][0], min(t for _, t in runs)


def _best_rate(fn: Any, repeats: int) -> float:
    """The highest of ``repeats`` runs' items per second, ``fn`` returning its items (each run plays on
    from the last, so their counts differ)."""
    return max(len(out) / t for out, t in (_timed(fn) for _ in range(max(1, repeats))))


def bench_games(cfg: BenchRayConfig) -> dict[str, float]:
    """Arena games/s here and as Ray tasks on 1 and 2 workers."""
    game = cfg.make_game()
    agents = [make_agent(spec, game) for spec in cfg.agents]
    n = game.num_players
    jobs = [(k, tuple((p + k) % 2 for p in range(n)), k) for k in range(cfg.games)]
    here, t_here = _best(lambda: play_games(game, agents, jobs, progress=False), cfg.repeats)
    out = {"here": cfg.games / t_here}
    for workers in (1, 2):
        ex = _Limited(RayGames(address=cfg.ray_address or None, chunk_size=cfg.chunk_size), workers)
        play_games(game, agents, jobs[:2 * workers * cfg.chunk_size], progress=False, executor=ex)  # start workers
        there, t = _best(lambda: play_games(game, agents, jobs, progress=False, executor=ex), cfg.repeats)
        if any(not np.array_equal(here[k][0], there[k][0]) for k in here):
            raise AssertionError("Ray games differ from the single-process games")
        out[f"ray_{workers}"] = cfg.games / t
    return out


class _Limited:
    """Runs the chunks with at most ``workers`` in flight (a 1-worker measurement on a 2-CPU instance)."""

    def __init__(self, inner: RayGames, workers: int) -> None:
        self.inner, self.workers = inner, workers

    def run(self, game, agents, jobs, done) -> None:
        size = self.inner.chunk_size * self.workers
        for i in range(0, len(jobs), size):  # waves of `workers` chunks
            self.inner.run(game, agents, jobs[i:i + size], done)


def bench_ppo(cfg: BenchRayConfig) -> dict[str, float]:
    """PPO rollout samples/s (env steps/s) here and on 1 and 2 Ray actors."""
    tc = TrainConfig(game=cfg.game, players=cfg.players, config=cfg.config, num_envs=cfg.ppo_envs,
                     num_steps=cfg.ppo_steps, device="cpu", torch_threads=1,
                     eval_opponents=(), progress=False)
    torch.set_num_threads(1)
    worker = RolloutWorker(tc.rollout(), 0)
    weights = {k: v.clone() for k, v in worker.model.state_dict().items()}
    worker.rollout()  # first-call costs out of the measurement
    _, t = _best(worker.rollout, cfg.repeats)
    out = {"here": tc.num_envs * tc.num_steps / t}
    for actors in (1, 2):
        group = ActorGroup(RolloutWorker, [(tc.rollout(), k) for k in range(actors)], address=cfg.ray_address or None)
        group.call("rollout_with", weights, [], 1)
        _, t = _best(lambda: group.call("rollout_with", weights, [], 1), cfg.repeats)
        out[f"ray_{actors}"] = actors * tc.num_envs * tc.num_steps / t
    return out


def bench_az(cfg: BenchRayConfig) -> dict[str, float]:
    """Search-and-learning self-play samples/s here and on 1 and 2 Ray actors."""
    game = cfg.make_game()
    torch.set_num_threads(1)
    net = PolicyValueNet(game.observation_size, game.num_actions, game.num_players, (256, 256), 0, "relu")
    weights = {k: v.clone() for k, v in net.state_dict().items()}
    wc = WorkerConfig(num_games=64, search=SearchConfig(simulations=cfg.az_simulations))
    worker = SelfPlayWorker(*cfg.resolve(), wc, net.spec, seed=0)
    worker.set_weights(weights)
    worker.play(min_samples=64)  # first-call costs out of the measurement
    out = {"here": _best_rate(lambda: worker.play(min_samples=cfg.az_samples), cfg.repeats)}
    for actors in (1, 2):
        group = SelfPlayActors(actors, *cfg.resolve(), wc, net.spec, seed=0, address=cfg.ray_address or None)
        group.set_weights(weights)
        group.play(min_samples=64 * actors)
        out[f"ray_{actors}"] = _best_rate(lambda: group.play(min_samples=cfg.az_samples * actors), cfg.repeats)
    return out


def bench_learner(cfg: BenchRayConfig) -> dict[str, float]:
    """Gradient steps/s of one CPU learner (one torch thread, batches of 256 from a replay buffer)
    and the new samples/s it keeps up with at replay ratio 4: where actors stop adding speed."""
    game = cfg.make_game()
    torch.set_num_threads(1)
    net = PolicyValueNet(game.observation_size, game.num_actions, game.num_players, (256, 256), 0, "relu")
    learner = Learner(net, 1e-3, 1e-4, 1.0)
    worker = SelfPlayWorker(*cfg.resolve(), WorkerConfig(num_games=32, search=SearchConfig(simulations=8)), net.spec,
                            seed=0)
    worker.set_weights({k: v.clone() for k, v in net.state_dict().items()})
    buffer = ReplayBuffer(game, 10_000, 32)
    buffer.add(worker.play(min_samples=600))
    rng = np.random.default_rng(0)

    def steps(n: int) -> None:
        for _ in range(n):
            learner.step(buffer.batch(rng.integers(len(buffer), size=256), "cpu"))

    steps(5)
    _, t = _best(lambda: steps(50), cfg.repeats)
    return {"steps_per_s": 50 / t, "samples_per_s_at_replay_ratio_4": 50 * 256 / 4 / t}


def plot(result: dict[str, Any], path: Path) -> Path:
    """Bars: each rate here and on 1 and 2 Ray workers."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = [k for k in ("games_per_s", "ppo_samples_per_s", "az_samples_per_s") if k in result]
    fig, axes = plt.subplots(1, len(kinds), figsize=(4 * len(kinds), 3.4))
    for ax, kind in zip(np.atleast_1d(axes), kinds):
        rates = result[kind]
        ax.bar(list(rates), list(rates.values()), color=["grey", "tab:blue", "tab:green"])
        ax.set_title(kind.replace("_", " "), fontsize=10)
        for i, v in enumerate(rates.values()):
            ax.text(i, v, f"{v:,.0f}", ha="center", va="bottom", fontsize=8)
    fig.suptitle(f"{result['settings']['game']} on Ray, load {result['load_average_before'][0]:.1f}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main(cfg: BenchRayConfig) -> dict[str, Any]:
    """Measure, print a table, write the JSON and the PNG."""
    load_before = os.getloadavg()
    ray = connect(cfg.ray_address or None, num_cpus=cfg.num_cpus)
    require_cpus(ray, WORKERS, f"bench_ray ({WORKERS} Ray workers at once)",
                 "leave ray_address empty for a private local instance of num_cpus CPUs")
    result: dict[str, Any] = {"settings": asdict(cfg), "cpu_count": os.cpu_count(),
                              "load_average_before": load_before}
    result["games_per_s"] = bench_games(cfg)
    result["ppo_samples_per_s"] = bench_ppo(cfg)
    result["az_samples_per_s"] = bench_az(cfg)
    result["learner"] = bench_learner(cfg)
    result["load_average_after"] = os.getloadavg()
    print(f"{'rate':24s} {'here':>10s} {'ray, 1':>10s} {'ray, 2':>10s}   (load {load_before[0]:.1f})")
    for kind in ("games_per_s", "ppo_samples_per_s", "az_samples_per_s"):
        r = result[kind]
        print(f"{kind:24s} {r['here']:10,.1f} {r['ray_1']:10,.1f} {r['ray_2']:10,.1f}")
    lr = result["learner"]
    print(f"one CPU learner: {lr['steps_per_s']:.0f} steps/s of 256 samples, "
          f"{lr['samples_per_s_at_replay_ratio_4']:,.0f} new samples/s at replay ratio 4")
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    png = plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {png}")
    return result


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-ray``, or ``python -m octagames.experiments.bench_ray``)."""
    main(parse_config(BenchRayConfig))


if __name__ == "__main__":
    cli()
