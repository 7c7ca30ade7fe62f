"""PPO training throughput: our trainer against sb3-contrib's ``MaskablePPO`` as the anchor.

    python -m octagames.experiments.bench_ppo                        # Octrix and Octa (en), 2 players
    python -m octagames.experiments.bench_ppo --budget-s 60 --torch-threads 2
    python -m octagames.experiments.bench_ppo --no-sb3               # our trainer only (no sb3-contrib needed)

For every game, in one run and with the same network (actor and critic MLPs of
``hidden`` with ``activation``, SB3's ``MlpPolicy`` layout) and the same torch
thread count, three measurements of ``budget_s`` seconds each:

* **ours**: :class:`octagames.experiments.train_ppo.Trainer` (vector env, self-play with
  the league, per-seat GAE, PPO updates) with evaluation off: the whole loop,
  env stepping and updates.
* **sb3_default**: ``MaskablePPO`` on our Gymnasium wrapper
  (:class:`octagames.envs.gym_wrapper.SingleAgentEnv`: one learning seat, random
  opponents, ``action_masks()``) with SB3's own PPO defaults (``n_steps=2048``,
  ``batch_size=64``, ``n_epochs=10``), the way users run it.
* **sb3_matched**: the same with our PPO work per sample: ``n_epochs`` =
  ``update_epochs`` and the minibatch size of ours (a rollout of
  ``num_envs * num_steps`` samples cut into ``num_minibatches``).

The figure compared is **samples/s**: transitions the learner trains on per
second of the whole loop (for ours: ``train_steps``, the acting seats' moves
that enter the PPO batch; for SB3: ``num_timesteps``, the learning seat's
moves; the random opponents' moves inside the wrapper are not counted).
Ours also reports env steps/s (every seat's moves). Rates are taken over whole
collect+update cycles, leaving out the first one (warm-up); a measurement
runs whole cycles, so it can exceed ``budget_s`` by up to one cycle.

Writes ``out_json`` (every figure and the settings) and ``out_png`` (bars per
game, ratios written on them). sb3-contrib is not a dependency of octagames:
``pip install sb3-contrib`` (or the ``bench`` extra) to measure the anchors.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.envs.vector import make
from octagames.experiments.cli import parse_config, parse_game_spec, script
from octagames.experiments.train_ppo import TrainConfig, Trainer

SB3_MISSING = ("sb3-contrib is not installed; it is needed for the SB3 MaskablePPO anchor: "
               "pip install sb3-contrib  (or pip install -e '.[bench]'); "
               "or run with --no-sb3 to measure our trainer only")

#: SB3's PPO defaults (stable_baselines3.PPO): the "default" anchor
SB3_DEFAULTS = {"n_steps": 2048, "batch_size": 64, "n_epochs": 10}


@dataclass(frozen=True)
class BenchConfig:
    """PPO throughput benchmark (all fields are command-line flags)."""

    games: tuple[str, ...] = ("octrix", "octa:rules=en")
    """games to measure: name, or name:key=value,key=value for config fields"""
    num_players: int = 2
    """seats of every game"""
    budget_s: float = 30.0
    """seconds per measurement (each of ours, sb3_default, sb3_matched, per game)"""
    torch_threads: int = 1
    """torch CPU threads, the same for ours and SB3"""
    seed: int = 0
    """seed of every measurement"""
    hidden: tuple[int, ...] = (256, 256)
    """hidden widths of the actor and of the critic (TrainConfig's default)"""
    activation: str = "tanh"
    """tanh or relu (for both)"""
    num_envs: int = 256
    """our trainer: games stepped together"""
    num_steps: int = 32
    """our trainer: steps per game per rollout"""
    update_epochs: int = 4
    """our trainer's epochs per update (also sb3_matched's n_epochs)"""
    num_minibatches: int = 4
    """our trainer's minibatches per epoch (sb3_matched's batch_size = num_envs*num_steps/this)"""
    sb3: bool = True
    """measure the SB3 anchors (needs sb3-contrib); --no-sb3 measures ours only"""
    sb3_n_envs: int = 1
    """SB3 envs in its DummyVecEnv (1: SB3's default)"""
    out_json: str = "runs/bench_ppo.json"
    """results file"""
    out_png: str = "runs/bench_ppo.png"
    """bar chart"""
    progress: bool = True
    """show a tqdm progress bar over the measurements"""

    def __post_init__(self) -> None:
        if self.budget_s <= 0:
            raise ValueError(f"budget_s={self.budget_s} must be > 0")
        if self.torch_threads < 1:
            raise ValueError(f"torch_threads={self.torch_threads} must be >= 1")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"activation={self.activation!r} is not valid; valid values: ['relu', 'tanh']")
        for name in ("num_envs", "num_steps", "update_epochs", "num_minibatches", "sb3_n_envs", "num_players"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} must be >= 1")
        if not self.games:
            raise ValueError("games is empty; give at least one, e.g. octrix")
        for spec in self.games:
            parse_game_spec(spec)


def _config_items(config: dict[str, Any]) -> tuple[str, ...]:
    return tuple(f"{k}={v}" for k, v in config.items())


def _rate(marks: list[tuple[float, float, float]]) -> tuple[float, float, float, int]:
    """``marks``: (seconds, samples, env steps) at cycle boundaries, from (0, 0, 0).

    Returns ``(samples/s, env steps/s, seconds measured, cycles measured)``,
    leaving out the first cycle when there are at least two.
    """
    first = marks[1] if len(marks) >= 3 else marks[0]
    last = marks[-1]
    dt = last[0] - first[0]
    if dt <= 0:
        return float("nan"), float("nan"), 0.0, 0
    return (last[1] - first[1]) / dt, (last[2] - first[2]) / dt, dt, len(marks) - 1 - (len(marks) >= 3)


def warm_up(game: str, config: dict[str, Any], num_players: int, gym: bool) -> None:
    """Compile the game's kernels (numba compiles on first use) before anything is timed."""
    env = make(game, 4, seed=0, num_players=num_players, num_threads=1, **config)
    env.reset()
    for _ in range(3):
        env.step_inplace(env.sample_actions())
    env.close()
    if gym:
        genv = SingleAgentEnv(game, seat=0, num_players=num_players, **config)
        genv.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(3):
            _, _, done, _, _ = genv.step(rng.choice(np.flatnonzero(genv.action_masks())))
            if done:
                genv.reset()


# ----------------------------------------------------------------------------
# Ours
# ----------------------------------------------------------------------------
def bench_ours(cfg: BenchConfig, game: str, config: dict[str, Any]) -> dict[str, Any]:
    """Our trainer's loop (evaluation off) for ``budget_s`` seconds of whole updates."""
    with tempfile.TemporaryDirectory() as tmp:
        tc = TrainConfig(game=game, num_players=cfg.num_players, game_config=_config_items(config),
                         seed=cfg.seed, device="cpu", torch_threads=cfg.torch_threads, run_dir=tmp,
                         total_steps=10**12, time_budget_s=cfg.budget_s, progress=False,
                         num_envs=cfg.num_envs, num_steps=cfg.num_steps, hidden=cfg.hidden,
                         activation=cfg.activation, update_epochs=cfg.update_epochs,
                         num_minibatches=cfg.num_minibatches, eval_every=0, eval_opponents=(),
                         checkpoint_every=10**9)
        trainer = Trainer(tc)
        result = trainer.run()
    rows = [r for r in result["rows"] if r["update"] > 0]
    marks = [(0.0, 0.0, 0.0)] + [(r["wall_time"], r["train_steps"], r["env_steps"]) for r in rows]
    sps, esps, secs, cycles = _rate(marks)
    return {"samples_per_s": sps, "env_steps_per_s": esps, "seconds": secs, "cycles": cycles,
            "updates": len(rows), "train_fraction": rows[-1]["train_steps"] / rows[-1]["env_steps"],
            "settings": {"num_envs": cfg.num_envs, "num_steps": cfg.num_steps,
                         "update_epochs": cfg.update_epochs, "num_minibatches": cfg.num_minibatches,
                         "minibatch_size": cfg.num_envs * cfg.num_steps // cfg.num_minibatches,
                         "self_play_prob": tc.self_play_prob}}


# ----------------------------------------------------------------------------
# SB3 anchor
# ----------------------------------------------------------------------------
def sb3_available() -> bool:
    """Whether sb3-contrib can be imported."""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        return False
    return True


def bench_sb3(cfg: BenchConfig, game: str, config: dict[str, Any], n_steps: int, batch_size: int,
              n_epochs: int) -> dict[str, Any]:
    """``MaskablePPO`` on :class:`~octagames.envs.gym_wrapper.SingleAgentEnv` for ``budget_s`` seconds of whole cycles."""
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import Logger
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as e:
        raise SystemExit(SB3_MISSING) from e

    class Clock(BaseCallback):
        """Marks each cycle boundary; stops at the first one after the budget."""

        def __init__(self) -> None:
            super().__init__()
            self.start = 0.0
            self.marks: list[tuple[float, float, float]] = []
            self.stop = False

        def _on_training_start(self) -> None:
            self.start = time.perf_counter()
            self.marks = [(0.0, 0.0, 0.0)]

        def _on_rollout_start(self) -> None:
            t = time.perf_counter() - self.start
            if self.num_timesteps > 0:
                self.marks.append((t, float(self.num_timesteps), float(self.num_timesteps)))
            self.stop = t >= cfg.budget_s

        def _on_step(self) -> bool:
            return not self.stop

    def make_env(i: int):
        return lambda: SingleAgentEnv(game, seat=0, num_players=cfg.num_players, **config)

    venv = DummyVecEnv([make_env(i) for i in range(cfg.sb3_n_envs)])
    venv.seed(cfg.seed)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=batch_size, n_epochs=n_epochs,
                        policy_kwargs={"net_arch": {"pi": list(cfg.hidden), "vf": list(cfg.hidden)},
                                       "activation_fn": act},
                        seed=cfg.seed, device="cpu", verbose=0)
    # a logger that writes nowhere: SB3's default one creates an empty /tmp/SB3-<date> folder per run
    model.set_logger(Logger(folder=None, output_formats=[]))
    torch.set_num_threads(cfg.torch_threads)  # SB3 may set its own; use the same as ours
    clock = Clock()
    model.learn(total_timesteps=10**12, callback=clock)
    venv.close()
    sps, _, secs, cycles = _rate(clock.marks)
    return {"samples_per_s": sps, "seconds": secs, "cycles": cycles,
            "settings": {"n_envs": cfg.sb3_n_envs, "n_steps": n_steps, "batch_size": batch_size,
                         "n_epochs": n_epochs}}


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------
def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    """Every measurement of ``cfg``; writes ``out_json`` and ``out_png`` and returns the results."""
    if cfg.sb3 and not sb3_available():
        raise SystemExit(SB3_MISSING)
    torch.set_num_threads(cfg.torch_threads)
    rollout = cfg.num_envs * cfg.num_steps
    matched = {"n_steps": max(1, rollout // cfg.sb3_n_envs),
               "batch_size": max(1, rollout // cfg.num_minibatches), "n_epochs": cfg.update_epochs}
    kinds = ["ours"] + (["sb3_default", "sb3_matched"] if cfg.sb3 else [])
    load_start = os.getloadavg() if hasattr(os, "getloadavg") else None
    bar = None
    if cfg.progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(cfg.games) * len(kinds), desc="bench ppo", unit="run", file=sys.stderr)
    results: dict[str, Any] = {}
    for spec in cfg.games:
        game, config = parse_game_spec(spec)
        warm_up(game, config, cfg.num_players, gym=cfg.sb3)
        res: dict[str, Any] = {"game": game, "config": config}
        for kind in kinds:
            if bar is not None:
                bar.set_postfix_str(f"{spec} {kind}")
            if kind == "ours":
                res[kind] = bench_ours(cfg, game, config)
            else:
                res[kind] = bench_sb3(cfg, game, config, **(SB3_DEFAULTS if kind == "sb3_default" else matched))
            torch.set_num_threads(cfg.torch_threads)
            if bar is not None:
                bar.update(1)
        for kind in kinds[1:]:
            res[f"ratio_vs_{kind}"] = res["ours"]["samples_per_s"] / res[kind]["samples_per_s"]
        results[spec] = res
    if bar is not None:
        bar.close()
    out = {"config": dataclasses.asdict(cfg), "metric": "samples/s: transitions trained on per second "
           "of the whole loop (env stepping + PPO updates)", "target_ratio": 10.0,
           "torch_version": torch.__version__, "torch_threads": torch.get_num_threads(),
           "platform": platform.platform(), "processor": platform.processor(), "cpu_count": os.cpu_count(),
           "load_average_start_end": [load_start, os.getloadavg() if hasattr(os, "getloadavg") else None],
           "results": results}
    if cfg.sb3:
        import sb3_contrib
        import stable_baselines3
        out["sb3_contrib_version"] = sb3_contrib.__version__
        out["stable_baselines3_version"] = stable_baselines3.__version__
    path = Path(cfg.out_json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    plot_bench(out, Path(cfg.out_png))
    return out


def plot_bench(out: dict[str, Any], path: Path) -> Path:
    """Bars of samples/s per game (log scale), the ratio of ours to each anchor written above them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = out["results"]
    kinds = [k for k in ("ours", "sb3_default", "sb3_matched") if any(k in r for r in results.values())]
    labels = {"ours": "ours (octagames PPO)", "sb3_default": "SB3 MaskablePPO, SB3 defaults",
              "sb3_matched": "SB3 MaskablePPO, matched epochs/minibatch"}
    colors = {"ours": "tab:green", "sb3_default": "tab:grey", "sb3_matched": "tab:blue"}
    fig, ax = plt.subplots(figsize=(2.8 + 2.6 * len(results), 4.5))
    width = 0.8 / len(kinds)
    for j, kind in enumerate(kinds):
        xs = [i + (j - (len(kinds) - 1) / 2) * width for i in range(len(results))]
        ys = [r[kind]["samples_per_s"] if kind in r else 0.0 for r in results.values()]
        ax.bar(xs, ys, width, label=labels[kind], color=colors[kind])
        for x, y, r in zip(xs, ys, results.values()):
            text = f"{y:,.0f}"
            if kind != "ours" and f"ratio_vs_{kind}" in r:
                text += f"\nours = {r[f'ratio_vs_{kind}']:.1f}x"
            ax.text(x, y, text, ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([f"{r['game']} {out['config']['num_players']}p"
                        + ("".join(f" {k}={v}" for k, v in r["config"].items())) for r in results.values()])
    ax.set_yscale("log")
    ax.set_ylabel("trained samples / s (whole loop)")
    ax.set_title(f"PPO training throughput, hidden {tuple(out['config']['hidden'])} "
                 f"{out['config']['activation']}, {out['torch_threads']} torch thread(s)")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ymax = max(r[k]["samples_per_s"] for r in results.values() for k in kinds if k in r)
    ax.set_ylim(top=ymax * 8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main(cfg: BenchConfig) -> dict[str, Any]:
    """Command-line entry: run the benchmark and print a table."""
    out = run_bench(cfg)
    print(f"torch threads: {out['torch_threads']}, budget {cfg.budget_s:g} s per measurement, "
          f"hidden {cfg.hidden} {cfg.activation}")
    print(f"{'game':<18}{'measurement':<14}{'samples/s':>12}{'env steps/s':>13}{'ratio (ours/x)':>16}")
    for spec, r in out["results"].items():
        for kind in ("ours", "sb3_default", "sb3_matched"):
            if kind not in r:
                continue
            env_sps = r[kind].get("env_steps_per_s")
            ratio = r.get(f"ratio_vs_{kind}")
            print(f"{spec:<18}{kind:<14}{r[kind]['samples_per_s']:>12,.0f}"
                  f"{(f'{env_sps:,.0f}' if env_sps else '-'):>13}{(f'{ratio:.2f}' if ratio else '-'):>16}")
    print(f"wrote {cfg.out_json} and {cfg.out_png}")
    return out


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-ppo``, or ``python -m octagames.experiments.bench_ppo``)."""
    main(parse_config(BenchConfig))


if __name__ == "__main__":
    cli()
