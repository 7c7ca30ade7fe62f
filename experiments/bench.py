"""Random-play throughput of every face of the games, with anchors and a roofline from the same run.

    python -m octagames.experiments.bench                       # all games, default budget (make bench)
    python -m octagames.experiments.bench --game octrix-round octa-nl --seconds 2

Measured, each for ``seconds`` of wall time after a warm-up:

* the batched engine (``octagames.envs.vector``) at batch 1, 64 and 4096, random legal
  actions drawn in compiled code (``VectorEnv.sample_actions``); a batch of
  ``VectorEnv.PARALLEL_MIN_BATCH`` or more on 1 thread and on every core (``--threads``), with
  float32 observations and, when the vector env offers them, compact ones;
* the rules API (:class:`octagames.core.Game`), a Python loop over ``legal_actions`` /
  ``apply_action`` with random legal actions (what a user's own search or script does);
* the PettingZoo AEC env, the classic ``agent_iter`` loop with random legal actions;
* the OpenSpiel adapter, a Python loop over ``apply_action`` / ``apply_actions``;
* anchors: PettingZoo ``connect_four_v3`` AEC under the same loop, and pyspiel's
  C++ ``connect_four`` under the same Python loop.

By default every game's **seed variant** is measured (``octrix`` is the match to 88, ``octa``
the English rulebook: the bare names of :mod:`octagames.catalogue`), each at its default seats (2
for every seed variant); ``--game VARIANT ...``, ``--players N`` and ``--config key=value ...``
choose others, as elsewhere (:class:`~octagames.experiments.cli.GamesArgs`). Rows are named
by variant and seats (``octrix-2p``). A "step" is one action of one game
(chance outcomes resolved inside the engine count for nothing). Results go to ``runs/bench.json`` and a PNG chart;
the table reports steps/s and ratios against the anchors of the same run, and the
load average (``/proc/loadavg``) at the start and the end.

**Roofline.** The model of the memory traffic of one step of one game at the largest batch
(``step_inplace`` over the batch plus ``sample_actions``), in bytes (:func:`step_traffic`):

* the record: read whole (``Game.dtype.itemsize``); written: the 64-byte blocks of the record
  array that a step changes, measured over random steps (:func:`record_bytes_written`; a
  finished game's restart rewrites its record and counts);
* the observation of the seat about to act, written whole: ``observation_size`` times the
  itemsize of the env's observation buffer (4 for float32, less for the compact encoding);
* the legal mask, one byte per action, written by the step and read by the sampler;
* the seat to act (8 written), the rewards and the returns before the action (8 bytes per seat
  slot each, both written, the returns read again), the two end flags (1 each), the action
  (written by the sampler, copied and read by the step: 8 × 3 written and read with the
  sampler's seed).

Traffic per step = bytes read + bytes written, with no separate charge for write-allocate. The
machine's bandwidth is measured the same way (:func:`memory_bandwidth`): a numpy copy of a
buffer eight times the last-level cache (read + written bytes per second), on one thread and
split over every core. The bound is bandwidth / traffic per step (:func:`roofline_bound`), per
thread count; a batch whose working set fits in the last-level cache may beat it (the JSON
gives each working set).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import platform
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable

import numpy as np

from octagames.core import CHANCE, TERMINAL, Game
from octagames.envs.vector import VectorEnv, cpu_count, make, narrowest_obs_dtype
from octagames.experiments.cli import GamesArgs, parse_config, script, shown_default

PZ_ANCHOR = "anchor: PettingZoo connect_four_v3 AEC"
C4_ANCHOR = "anchor: pyspiel C++ connect_four, Python loop"
#: bytes of a cache line: the unit in which record writes are counted
CACHE_LINE = 64
MIB = 1 << 20


@dataclass(frozen=True)
class BenchConfig(GamesArgs):
    """Benchmark settings (default: every game's seed variant, at its default seats)."""

    seconds: float = 3.0
    """wall time per measurement"""
    batch_sizes: tuple[int, ...] = (1, 64, 4096)
    """vector-env batch sizes"""
    threads: Annotated[tuple[int, ...], shown_default("1 and every core")] = ()
    """thread counts for batches of VectorEnv.PARALLEL_MIN_BATCH or more"""
    bandwidth_mib: int = 0
    """buffer of the bandwidth measurement in MiB (0: eight times the last-level cache, at least 64)"""
    out: str = "runs/bench.json"
    """JSON output (a PNG chart is written beside it)"""
    seed: int = 0
    """seed of every env and of the random actions"""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 < self.seconds < math.inf:  # NaN too: its measurement never ended
            raise ValueError(f"seconds={self.seconds} is not valid; it must be a finite number > 0")
        if not self.batch_sizes or min(self.batch_sizes) < 1:
            raise ValueError(f"batch_sizes={self.batch_sizes} must be integers >= 1")
        if self.threads and min(self.threads) < 1:
            raise ValueError(f"threads={self.threads} must be integers >= 1")
        if self.bandwidth_mib < 0:
            raise ValueError(f"bandwidth_mib={self.bandwidth_mib} must be >= 0")


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


def bench_vector(game: str, batch: int, seconds: float, seed: int, num_threads: int = 1, **config) -> float:
    """Steps/s of the vector env at one batch size on ``num_threads`` threads (``config``: the
    game's fields and the env's observation options)."""
    env = make(game, batch, seed=seed, num_threads=num_threads, **config)
    env.reset()
    reps = max(1, 4096 // batch)

    def step() -> int:
        for _ in range(reps):
            env.step_inplace(env.sample_actions())
        return reps * batch
    try:
        return _timed(step, seconds)
    finally:
        env.close()


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
            if cp == CHANCE:  # a chance outcome counts for nothing, as inside the vector env
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
            if term or trunc:  # a finished agent's step (PettingZoo's None) is no action: not counted
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
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
                state.apply_action(action)  # a chance outcome counts for nothing
            elif state.is_simultaneous_node():
                joint = []
                for p in range(num_players):
                    legal = state.legal_actions(p)
                    joint.append(rng.choice(legal) if legal else 0)
                    n += 1 if legal else 0  # one step per seat that chose, as the engine takes them
                state.apply_actions(joint)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                n += 1
        return n
    return step


# ----------------------------------------------------------------------------
# The machine
# ----------------------------------------------------------------------------
def load_average() -> list[float]:
    """The 1, 5 and 15-minute load averages (``/proc/loadavg``; ``os.getloadavg`` elsewhere; [] if neither)."""
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        try:
            return [float(x) for x in os.getloadavg()]
        except (AttributeError, OSError):
            return []


def last_level_cache_bytes() -> int | None:
    """Size of cpu0's last-level cache from sysfs (Linux), or None when it cannot be read."""
    best = None
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
        size = int(text.rstrip("KMGkmg")) * scale
        if best is None or level > best[0]:
            best = (level, size)
    return best[1] if best else None


def memory_bandwidth(threads: int, nbytes: int, repeats: int = 5) -> dict[str, float]:
    """Measured memory bandwidth of ``threads`` threads, each on its own slice of one buffer.

    Args:
        threads: threads sharing the work (numpy releases the GIL for plain copies and fills).
        nbytes: buffer size; take it well above the last-level cache.
        repeats: the fastest of this many passes is kept.

    Returns:
        ``copy_bytes_per_s`` (a copy's read plus written bytes per second, the traffic model of
        :func:`step_traffic`), ``fill_bytes_per_s`` (written bytes only), ``threads`` and
        ``buffer_bytes``.
    """
    src = np.ones(max(threads, nbytes // 8), dtype=np.float64)
    dst = np.zeros_like(src)
    bounds = np.linspace(0, src.size, threads + 1).astype(int)
    parts = [(src[a:b], dst[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]

    def fastest(work: Callable[[tuple[np.ndarray, np.ndarray]], Any]) -> float:
        best = math.inf
        with ThreadPoolExecutor(threads) as pool:
            for _ in range(repeats):
                start = time.perf_counter()
                list(pool.map(work, parts))
                best = min(best, time.perf_counter() - start)
        return best

    copy_s = fastest(lambda p: np.copyto(p[1], p[0]))
    fill_s = fastest(lambda p: p[1].fill(2.0))
    return {"threads": threads, "buffer_bytes": int(src.nbytes), "copy_bytes_per_s": 2 * src.nbytes / copy_s,
            "fill_bytes_per_s": src.nbytes / fill_s}


# ----------------------------------------------------------------------------
# The roofline model
# ----------------------------------------------------------------------------
def step_traffic(record_bytes: int, record_written: float, observation_bytes: int, num_actions: int,
                 max_players: int) -> dict[str, dict[str, float]]:
    """Bytes one random step of one game reads and writes in the vector env, by part.

    Args:
        record_bytes: the record's size (``Game.dtype.itemsize``), read whole.
        record_written: bytes of the record written per step (:func:`record_bytes_written`).
        observation_bytes: the acting seat's observation as the env writes it (width × itemsize).
        num_actions: the legal mask's width (one byte per action).
        max_players: seat slots of the rewards and returns buffers (``Game.info.max_players``).

    Returns:
        ``{part: {"read": bytes, "written": bytes}}`` (the model in the module docstring).
    """
    return {
        "record": {"read": float(record_bytes), "written": float(record_written)},
        "observation": {"read": 0.0, "written": float(observation_bytes)},
        "legal mask": {"read": float(num_actions), "written": float(num_actions)},
        "rewards and returns": {"read": 8.0 * max_players, "written": 16.0 * max_players},
        "seat and end flags": {"read": 0.0, "written": 8.0 + 2.0},
        "action and sampler": {"read": 24.0, "written": 24.0},
    }


def traffic_total(parts: dict[str, dict[str, float]]) -> float:
    """Bytes read plus bytes written over every part of :func:`step_traffic`."""
    return sum(p["read"] + p["written"] for p in parts.values())


def roofline_bound(bandwidth_bytes_per_s: float, bytes_per_step: float) -> float:
    """The steps/s that ``bandwidth_bytes_per_s`` allows at ``bytes_per_step`` of traffic.

    Raises:
        ValueError: ``bytes_per_step`` is not positive.
    """
    if bytes_per_step <= 0:
        raise ValueError(f"bytes_per_step={bytes_per_step} must be > 0")
    return bandwidth_bytes_per_s / bytes_per_step


def record_bytes_written(env: Any, steps: int = 8) -> float:
    """Bytes of the record array one random step changes per game, in 64-byte blocks.

    Steps ``env`` (anything with ``states``, ``num_envs``, ``step_inplace`` and
    ``sample_actions``) ``steps`` times and counts the blocks of the records' bytes with a
    changed byte (blocks counted from the array's start); a byte written with its old value is
    not seen.

    Returns:
        blocks changed × 64 / (steps × games).
    """
    raw = env.states.view(np.uint8).reshape(-1)
    pad = np.zeros((-raw.size) % CACHE_LINE, dtype=bool)
    blocks = 0
    for _ in range(steps):
        before = raw.copy()
        env.step_inplace(env.sample_actions())
        changed = np.concatenate([before != raw, pad]).reshape(-1, CACHE_LINE)
        blocks += int(changed.any(axis=1).sum())
    return blocks * CACHE_LINE / (steps * env.num_envs)


def compact_option(name: str, config: dict[str, Any]) -> dict[str, Any] | None:
    """The keyword arguments of :class:`~octagames.envs.vector.VectorEnv` for the narrowest compact
    observations it accepts for this game and config, or None when it offers none."""
    dtype = narrowest_obs_dtype(Game(name, **config))
    return None if dtype == "float32" else {"obs_dtype": dtype}


# ----------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------
def vector_row(game: str, batch: int, threads: int | None = None, encoding: str = "float32") -> str:
    """The table's name of a vector-env row (threads and encoding named for large batches only)."""
    name = f"{game}: vector env, batch {batch}"
    if threads is not None:
        name += f", {threads} thread{'s' if threads > 1 else ''}"
    if encoding != "float32":
        name += f", {encoding} obs"
    return name


def game_roofline(name: str, config: dict[str, Any], encodings: dict[str, dict[str, Any]], batch: int,
                  thread_counts: list[int], bandwidth: dict[int, dict[str, float]], rows: dict[str, float],
                  seed: int, label: str = "") -> dict[str, Any]:
    """The roofline of one game at ``batch``: per observation encoding, its traffic per step, and per
    thread count the measured steps/s (from ``rows``, named by ``label``, default ``name``), the bound
    and the fraction of it."""
    label = label or name
    game = Game(name, **config)
    probe = make(name, 256, seed=seed, num_threads=1, **config)
    probe.reset()
    for _ in range(16):  # into the games, past their first moves
        probe.step_inplace(probe.sample_actions())
    written = record_bytes_written(probe)
    probe.close()
    out: dict[str, Any] = {"record_bytes": game.dtype.itemsize, "record_bytes_written": written,
                           "num_actions": game.num_actions, "observation_size": game.observation_size}
    for enc, options in encodings.items():
        env = make(name, 1, seed=seed, num_threads=1, **options, **config)
        obs_bytes = int(env.obs.shape[1] * env.obs.dtype.itemsize)
        parts = step_traffic(game.dtype.itemsize, written, obs_bytes, game.num_actions, game.info.max_players)
        per_step = traffic_total(parts)
        res: dict[str, Any] = {
            "observation_dtype": str(env.obs.dtype), "observation_bytes": obs_bytes, "traffic": parts,
            "bytes_read_per_step": sum(p["read"] for p in parts.values()),
            "bytes_written_per_step": sum(p["written"] for p in parts.values()), "bytes_per_step": per_step,
            "working_set_bytes": batch * (game.dtype.itemsize + obs_bytes + game.num_actions),
            "threads": {}}
        for t in thread_counts:
            steps = rows[vector_row(label, batch, t, enc)]
            bound = roofline_bound(bandwidth[t]["copy_bytes_per_s"], per_step)
            res["threads"][str(t)] = {"steps_per_s": steps, "bound_steps_per_s": bound,
                                      "fraction_of_bound": steps / bound}
        if len(thread_counts) > 1:
            res["thread_scaling"] = (rows[vector_row(label, batch, thread_counts[-1], enc)]
                                     / rows[vector_row(label, batch, thread_counts[0], enc)])
        out[enc] = res
    return out


def main(cfg: BenchConfig) -> dict:
    """Run every measurement and print the tables; returns the JSON written.

    Raises:
        ModuleNotFoundError: the anchors' packages are missing (pygame-ce, open-spiel: the ``bench`` extra),
            before anything is measured.
    """
    from pettingzoo.classic import connect_four_v3  # optional: pygame-ce (the bench extra)
    import pyspiel  # optional: open-spiel (the bench and openspiel extras)

    load_start = load_average()
    cores = cpu_count()
    thread_counts = sorted(set(cfg.threads or (1, cores)))
    llc = last_level_cache_bytes()
    nbytes = cfg.bandwidth_mib * MIB or max(64 * MIB, 8 * (llc or 0))
    bandwidth = {t: memory_bandwidth(t, nbytes) for t in thread_counts}
    big = max(cfg.batch_sizes)
    rows: dict[str, float] = {}
    # anchors
    rows[PZ_ANCHOR] = _timed(aec_loop(connect_four_v3.env(), cfg.seed), cfg.seconds)
    rows[C4_ANCHOR] = _timed(openspiel_loop(pyspiel.load_game("connect_four"), cfg.seed), cfg.seconds)
    import octagames.envs.openspiel as osp
    roofline: dict[str, Any] = {}
    encodings: dict[str, dict[str, dict[str, Any]]] = {}
    for name, (game, config) in zip(cfg.describe_all(), cfg.resolve_all()):
        compact = compact_option(game, config)
        encodings[name] = {"float32": {}, **({compact["obs_dtype"]: compact} if compact else {})}
        for b in sorted(cfg.batch_sizes):
            if b < VectorEnv.PARALLEL_MIN_BATCH:
                rows[vector_row(name, b)] = bench_vector(game, b, cfg.seconds, cfg.seed, **config)
                continue
            for enc, options in encodings[name].items():
                for t in thread_counts:
                    rows[vector_row(name, b, t, enc)] = bench_vector(game, b, cfg.seconds, cfg.seed, num_threads=t,
                                                                     **options, **config)
        if big >= VectorEnv.PARALLEL_MIN_BATCH:
            roofline[name] = game_roofline(game, config, encodings[name], big, thread_counts, bandwidth, rows,
                                           cfg.seed, label=name)
        rows[f"{name}: rules API (Game), Python loop"] = _timed(rules_loop(Game(game, **config), cfg.seed),
                                                               cfg.seconds)
        env_mod = importlib.import_module(f"octagames.envs.{game}_v0")
        rows[f"{name}: PettingZoo AEC env"] = _timed(aec_loop(env_mod.env(**config), cfg.seed), cfg.seconds)
        rows[f"{name}: OpenSpiel adapter"] = _timed(openspiel_loop(osp.load(game, **config), cfg.seed),
                                                   cfg.seconds)
    load_end = load_average()
    pz, c4 = rows[PZ_ANCHOR], rows[C4_ANCHOR]
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, {cores} cores, Python {platform.python_version()}"
    result = {"machine": machine, "cores": cores, "seconds": cfg.seconds, "threads": thread_counts,
              "load_average": {"start": load_start, "end": load_end},
              "last_level_cache_bytes": llc, "memory_bandwidth": {str(t): v for t, v in bandwidth.items()},
              "traffic_model": "bytes read + bytes written per step of one game (step_inplace + sample_actions); "
                               "bandwidth: a numpy copy's read + written bytes per second; bound = bandwidth / traffic",
              "observation_encodings": encodings, "roofline_batch": big,
              "steps_per_s": rows,
              "ratio_vs_pettingzoo_connect_four": {k: v / pz for k, v in rows.items()},
              "ratio_vs_pyspiel_connect_four": {k: v / c4 for k, v in rows.items()},
              "roofline": roofline}
    print_tables(result)
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    _plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")
    return result


def _load(values: list[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values) if values else "unknown"


def print_tables(result: dict[str, Any]) -> None:
    """The throughput table, then the roofline table (when a batch reached the threaded size)."""
    rows = result["steps_per_s"]
    pz, c4 = rows[PZ_ANCHOR], rows[C4_ANCHOR]
    print(f"\nRandom-play throughput ({result['machine']}; {result['seconds']:g} s per row; load average "
          f"{_load(result['load_average']['start'])} at the start, {_load(result['load_average']['end'])} at the end)")
    width = max(58, *map(len, rows))
    print(f"{'setup':<{width}}{'steps/s':>14}{'x PZ c4':>10}{'x pyspiel c4':>14}")
    for k, v in rows.items():
        print(f"{k:<{width}}{v:>14,.0f}{v / pz:>10.2f}{v / c4:>14.2f}")
    if not result["roofline"]:
        return
    threads = result["threads"]
    bw = "; ".join(f"{t} thread{'s' if t > 1 else ''} {result['memory_bandwidth'][str(t)]['copy_bytes_per_s'] / 1e9:.1f} GB/s"
                   for t in threads)
    llc = result["last_level_cache_bytes"]
    print(f"\nRoofline at batch {result['roofline_batch']}: bound = memory bandwidth / (bytes read + written per step)."
          f"\nBandwidth (numpy copy of {next(iter(result['memory_bandwidth'].values()))['buffer_bytes'] / MIB:.0f} MiB, "
          f"read + written bytes): {bw}; {result['cores']} cores; last-level cache "
          f"{f'{llc / MIB:.0f} MiB' if llc else 'unknown'}")
    label = max(14, *map(len, result["roofline"])) + 1
    head = f"{'game':<{label}}{'obs':<9}{'B/step':>8}{'rec w':>7}"
    for t in threads:
        head += f"{f'steps/s {t}T':>14}{f'bound {t}T':>13}{'frac':>6}"
    head += f"{'scaling':>9}{f'x c4 {threads[-1]}T':>10}"
    print(head)
    for name, g in result["roofline"].items():
        for enc in result["observation_encodings"][name]:
            r = g[enc]
            line = f"{name:<{label}}{enc:<9}{r['bytes_per_step']:>8,.0f}{g['record_bytes_written']:>7.0f}"
            for t in threads:
                x = r["threads"][str(t)]
                line += f"{x['steps_per_s']:>14,.0f}{x['bound_steps_per_s']:>13,.0f}{x['fraction_of_bound']:>6.2f}"
            line += f"{r.get('thread_scaling', 1.0):>9.2f}{r['threads'][str(threads[-1])]['steps_per_s'] / c4:>10.2f}"
            print(line)


def _plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = result["steps_per_s"]
    names = list(rows)
    roof = result["roofline"]
    fig, axes = plt.subplots(1, 2 if roof else 1, figsize=(16 if roof else 9, 0.38 * len(names) + 1.2),
                             squeeze=False)
    ax = axes[0, 0]
    colors = ["#888888" if k.startswith("anchor") else "#2b6cb0" for k in names]
    ax.barh(range(len(names)), [rows[k] for k in names], color=colors)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("random-play steps per second (log scale)")
    ax.set_title("octagames throughput; grey bars are anchors measured in the same run")
    if roof:
        ax = axes[0, 1]
        t = str(result["threads"][-1])
        labels, measured, bounds = [], [], []
        for name, g in roof.items():
            for enc in result["observation_encodings"][name]:
                labels.append(f"{name} {enc}")
                measured.append(g[enc]["threads"][t]["steps_per_s"])
                bounds.append(g[enc]["threads"][t]["bound_steps_per_s"])
        y = np.arange(len(labels))
        ax.barh(y - 0.2, bounds, 0.4, color="#cccccc", label="memory-bandwidth bound")
        ax.barh(y + 0.2, measured, 0.4, color="#2b6cb0", label="measured")
        for yi, m, b in zip(y, measured, bounds):
            ax.text(m, yi + 0.2, f" {m / b:.0%}", va="center", fontsize=8)
        ax.axvline(rows[C4_ANCHOR], color="#888888", ls="--", label="pyspiel C++ connect_four loop")
        ax.axvline(10 * rows[C4_ANCHOR], color="#c53030", ls=":", label="10x that anchor")
        ax.set_yticks(y, labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel(f"steps per second at batch {result['roofline_batch']}, {t} threads (log scale)")
        ax.set_title("roofline: measured against bandwidth / bytes per step")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench``, or ``python -m octagames.experiments.bench``)."""
    main(parse_config(BenchConfig))


if __name__ == "__main__":
    cli()
