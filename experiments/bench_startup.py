"""Start-up time: how long a fresh process takes to reach its first step, per game and face.

    python -m octagames.experiments.bench_startup                 # warm and cold, every game
    python -m octagames.experiments.bench_startup --no-cold --repeats 3
    python -m octagames.experiments.bench_startup --game octa-en octa-nl

* **warm**: the compiled-kernel cache is filled first (``experiments.warmup``),
  then each measurement is a new Python process that imports what it needs and
  reaches the first vector-env ``step``, the first AEC ``step``, the first
  OpenSpiel state, or the first MCTS move (``warmup.first_call``). The time is
  the wall time from starting the process to its end, interpreter start-up
  included; the best of ``repeats`` runs is kept (the machine is shared).
* **cold**: one new process per game config runs ``experiments.warmup`` for it
  with an empty cache folder (``OCTAGAMES_CACHE_DIR``): the one-time compile a
  user pays after ``pip install``.

The games are warmup's (``--game VARIANT ...``, ``--players N``, ``--config key=value ...``
as elsewhere): by default one variant per kernel module of every game
(``warmup.kernel_variants``: Octa's two rulebooks, one variant of each other game), each
labelled by variant and seats (``octa-nl-2p``).

Writes ``runs/startup.json`` and ``runs/startup.png``, with the machine's load
average before and after, since the figures depend on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from octagames.experiments.warmup import WarmupConfig, available_faces
from octagames.experiments.cli import NO_CHART, GamesArgs, can_chart, command_line, parse_config, script

_CHILD = "from octagames.experiments.warmup import first_call; first_call({game!r}, {face!r}, **{config!r})"
_COLD = "from octagames.experiments.warmup import first_call, available_faces\n" \
        "for face in available_faces(): first_call({game!r}, face, **{config!r})"


def time_process(code: str, env: dict[str, str] | None = None) -> float:
    """Wall seconds of a new ``python -c code`` process, from start to exit.

    Raises:
        RuntimeError: the process failed (its error output is included).
    """
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"`{code}` failed:\n{out.stderr[-2000:]}")
    return seconds


@dataclass(frozen=True)
class StartupConfig(GamesArgs):
    """Measure start-up with a warm and a cold compiled-kernel cache (default: warmup's games, one
    variant per kernel module of every game)."""

    default_games = WarmupConfig.default_games

    repeats: int = 3
    """warm runs per game and face (the best counts)"""
    cold: bool = True
    """also measure the one-time compile with an empty cache (minutes)"""
    out_dir: Path = Path("runs")
    """where startup.json and startup.png go"""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.repeats < 1:
            raise ValueError(f"repeats={self.repeats} is not valid; it must be >= 1 (the best warm run counts)")


def main(cfg: StartupConfig) -> dict:
    """Run the measurements, print a table, write JSON and a PNG."""
    faces = available_faces()
    load_before = os.getloadavg()
    games = GamesArgs(cfg.game, cfg.players, cfg.config)  # warmup's flags: the same games
    subprocess.run(command_line(games, "octagames.experiments.warmup", sys.executable), check=True,
                   capture_output=True)
    runs = [(game, config, key) for key, (game, config) in zip(cfg.describe_all(), cfg.resolve_all())]
    warm: dict[str, dict[str, float]] = {}
    print(f"{'game':16}" + "".join(f"{f:>11}" for f in faces) + "   (warm cache: seconds to the first call)")
    for game, config, key in runs:
        warm[key] = {}
        for face in faces:
            code = _CHILD.format(game=game, face=face, config=config)
            warm[key][face] = min(time_process(code) for _ in range(cfg.repeats))
        print(f"{key:16}" + "".join(f"{warm[key][f]:>11.2f}" for f in faces), flush=True)
    cold: dict[str, float] = {}
    cold_load: dict[str, float] = {}
    if cfg.cold:
        for game, config, key in runs:
            with tempfile.TemporaryDirectory() as folder:
                env = dict(os.environ, OCTAGAMES_CACHE_DIR=folder)
                cold[key] = time_process(_COLD.format(game=game, config=config), env)
            cold_load[key] = os.getloadavg()[0]
            print(f"cold cache, {key}: {cold[key]:.1f} s to compile every face "
                  f"(load average {cold_load[key]:.2f})", flush=True)
    result = {"warm_seconds": warm, "cold_seconds": cold, "cold_load_average": cold_load, "faces": faces,
              "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "cpu_count": os.cpu_count()}
    cfg.out_dir.mkdir(parents=True, exist_ok=True)
    (cfg.out_dir / "startup.json").write_text(json.dumps(result, indent=2))
    charted = can_chart()
    if charted:
        _plot(result, cfg.out_dir / "startup.png")
    print(f"load average before {load_before[0]:.2f}, after {result['load_average_after'][0]:.2f}; "
          f"wrote {cfg.out_dir / 'startup.json'} " + ("and startup.png" if charted else NO_CHART))
    return result


def _plot(result: dict, path: Path) -> None:
    import matplotlib  # optional: the render extra (main asks can_chart first)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    games, faces = list(result["warm_seconds"]), result["faces"]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.8 / len(faces)
    for k, face in enumerate(faces):
        ax.bar([i + k * width for i in range(len(games))], [result["warm_seconds"][g][face] for g in games],
               width, label=face)
    ax.axhline(2.0, color="grey", linestyle="--", linewidth=1, label="2 s target")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(games))], games)
    ax.set_ylabel("seconds (warm cache)")
    ax.set_title(f"fresh process to first call; load average {result['load_average_before'][0]:.1f}")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-startup``, or ``python -m octagames.experiments.bench_startup``)."""
    main(parse_config(StartupConfig))


if __name__ == "__main__":
    cli()
