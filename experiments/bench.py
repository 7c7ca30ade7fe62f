"""Random-play throughput of every face of the games, with anchors from the same run.

    python -m octagames.experiments.bench                       # all games, default budget
    python -m octagames.experiments.bench --games octrix --seconds 2

Measured, each for ``seconds`` of wall time after a warm-up:

* the batched engine (``octagames.envs.vector``) at batch 1, 64 and 4096, random legal
  actions drawn in compiled code (``VectorEnv.sample_actions``);
* the rules API (:class:`octagames.core.Game`), a Python loop over ``legal_actions`` /
  ``apply_action`` with random legal actions (what a user's own search or script does);
* the PettingZoo AEC env, the classic ``agent_iter`` loop with random legal actions;
* the OpenSpiel adapter, a Python loop over ``apply_action`` / ``apply_actions``;
* anchors: PettingZoo ``connect_four_v3`` AEC under the same loop, and pyspiel's
  C++ ``connect_four`` under the same Python loop.

A "step" is one action of one game (chance outcomes resolved inside the
engine count for nothing). Results go to ``runs/bench.json`` and a PNG chart;
the table reports steps/s and ratios against the anchors of the same run.
"""

from __future__ import annotations

import importlib
import json
import platform
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from octagames.core import CHANCE, TERMINAL, Game, available_games
from octagames.envs.vector import cpu_count, make
from octagames.experiments.cli import parse_config, script

BENCH_CONFIGS = {
    "octrix": dict(num_players=2),
    "achten": dict(num_players=2),
    "octiles": dict(num_players=2),
    "octa": dict(),
}


@dataclass(frozen=True)
class BenchConfig:
    """Benchmark settings."""

    games: tuple[str, ...] = ()
    """games to measure (default: every game that exists)"""
    seconds: float = 3.0
    """wall time per measurement"""
    batch_sizes: tuple[int, ...] = (1, 64, 4096)
    """vector-env batch sizes"""
    out: str = "runs/bench.json"
    """JSON output (a PNG chart is written beside it)"""
    seed: int = 0
    """seed of every env and of the random actions"""


def _timed(step: Callable[[], int], seconds: float) -> float:
    """Steps per second of ``step`` (which returns how many steps it made)."""
    step()  # warm-up (compilation, caches)
    count = 0
    start = time.perf_counter()
    while True:
        count += step()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


def bench_vector(game: str, batch: int, seconds: float, seed: int, **config) -> float:
    """Steps/s of the vector env at one batch size."""
    env = make(game, batch, seed=seed, **config)
    env.reset()
    reps = max(1, 4096 // batch)

    def step() -> int:
        for _ in range(reps):
            env.step_inplace(env.sample_actions())
        return reps * batch
    return _timed(step, seconds)


def rules_loop(game: Game, seed: int) -> Callable[[], int]:
    """One game per call through the rules API, random legal actions (chance sampled); returns its steps."""
    rng = random.Random(seed)
    counter = [seed]

    def step() -> int:
        counter[0] += 1
        s = game.new_state(counter[0])
        n = 0
        while True:
            cp = game.current_player(s)
            if cp == TERMINAL:
                return n
            if cp == CHANCE:
                game.apply_action(s, game.sample_chance(s))
            else:  # the acting seat (at a simultaneous step, the next seat still to choose)
                game.apply_action(s, rng.choice(game.legal_actions(s, game.acting_player(s))))
            n += 1
    return step


def aec_loop(env, seed: int) -> Callable[[], int]:
    """One PettingZoo AEC game per call with random legal actions; returns its steps."""
    rng = random.Random(seed)
    counter = [seed]

    def step() -> int:
        counter[0] += 1
        env.reset(seed=counter[0])
        n = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            n += 1
        return n
    return step


def openspiel_loop(game, seed: int) -> Callable[[], int]:
    """One pyspiel game per call with random actions (chance sampled); returns its steps.

    The loop is as lean as Python allows (``random.Random``, no numpy), so that
    the C++ anchor is measured at its best.
    """
    rng = random.Random(seed)
    num_players = game.num_players()

    def step() -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                r = rng.random()
                for action, p in outcomes:
                    r -= p
                    if r <= 0:
                        break
                state.apply_action(action)
            elif state.is_simultaneous_node():
                joint = []
                for p in range(num_players):
                    legal = state.legal_actions(p)
                    joint.append(rng.choice(legal) if legal else 0)
                state.apply_actions(joint)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            n += 1
        return n
    return step


def main(cfg: BenchConfig) -> dict:
    """Run every measurement and print the table; returns the JSON written."""
    games = list(cfg.games) or available_games()
    rows: dict[str, float] = {}
    # anchors
    from pettingzoo.classic import connect_four_v3
    rows["anchor: PettingZoo connect_four_v3 AEC"] = _timed(aec_loop(connect_four_v3.env(), cfg.seed),
                                                             cfg.seconds)
    import pyspiel
    rows["anchor: pyspiel C++ connect_four, Python loop"] = _timed(
        openspiel_loop(pyspiel.load_game("connect_four"), cfg.seed), cfg.seconds)
    pz = rows["anchor: PettingZoo connect_four_v3 AEC"]
    c4 = rows["anchor: pyspiel C++ connect_four, Python loop"]
    import octagames.envs.openspiel as osp
    for name in games:
        config = BENCH_CONFIGS.get(name, {})
        for b in cfg.batch_sizes:
            rows[f"{name}: vector env, batch {b}"] = bench_vector(name, b, cfg.seconds, cfg.seed, **config)
        rows[f"{name}: rules API (Game), Python loop"] = _timed(rules_loop(Game(name, **config), cfg.seed),
                                                               cfg.seconds)
        env_mod = importlib.import_module(f"octagames.envs.{name}_v0")
        rows[f"{name}: PettingZoo AEC env"] = _timed(aec_loop(env_mod.env(**config), cfg.seed), cfg.seconds)
        rows[f"{name}: OpenSpiel adapter"] = _timed(openspiel_loop(osp.load(name, **config), cfg.seed),
                                                   cfg.seconds)
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, {cpu_count()} cores, Python {platform.python_version()}"
    print(f"\nRandom-play throughput ({machine}; {cfg.seconds:g} s per row)")
    print(f"{'setup':<50}{'steps/s':>14}{'x PZ c4':>10}{'x pyspiel c4':>14}")
    for k, v in rows.items():
        print(f"{k:<50}{v:>14,.0f}{v / pz:>10.2f}{v / c4:>14.2f}")
    result = {"machine": machine, "seconds": cfg.seconds, "steps_per_s": rows,
              "ratio_vs_pettingzoo_connect_four": {k: v / pz for k, v in rows.items()},
              "ratio_vs_pyspiel_connect_four": {k: v / c4 for k, v in rows.items()}}
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    _plot(rows, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")
    return result


def _plot(rows: dict[str, float], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(rows)
    fig, ax = plt.subplots(figsize=(9, 0.38 * len(names) + 1.2))
    colors = ["#888888" if k.startswith("anchor") else "#2b6cb0" for k in names]
    ax.barh(range(len(names)), [rows[k] for k in names], color=colors)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("random-play steps per second (log scale)")
    ax.set_title("octagames throughput; grey bars are anchors measured in the same run")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench``, or ``python -m octagames.experiments.bench``)."""
    main(parse_config(BenchConfig))


if __name__ == "__main__":
    cli()
