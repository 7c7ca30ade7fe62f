"""PPO training throughput, end to end and by phase; sb3-contrib's ``MaskablePPO`` as the anchor.

    python -m octagames.experiments.bench_ppo --no-sb3               # every game, 1 and 2 threads
    python -m octagames.experiments.bench_ppo --budget-s 60 --threads 2 --game octrix octa-en
    python -m octagames.experiments.bench_ppo --device cuda --threads 16 --no-sb3   # a GPU machine
    python -m octagames.experiments.bench_ppo --no-sb3 --game octrix achten --matmul-dtype bfloat16

For every game (``--game VARIANT ...``, ``--players N``, ``--config key=value ...`` as in every
verb; default: every game's seed variant at its default seats, 2) and thread count (``threads``:
torch's CPU threads and the vector env's stepping threads alike), in one run and with the same
network (actor and critic MLPs of ``hidden`` with ``activation``, SB3's ``MlpPolicy`` layout),
measurements of ``budget_s`` seconds each:

* **ours**: :class:`octagames.experiments.train_ppo.Trainer` (vector env, self-play with
  the league, per-seat GAE, PPO updates) with evaluation off: the whole loop, with the
  share of its wall time in each phase (:class:`PhaseClock`):

  - *env stepping*: ``VectorEnv.step_inplace`` and ``VectorEnv.observe`` (the bootstrap's
    observations of every seat);
  - *observation conversion*: from reading the env's ``obs`` or ``action_mask`` until the
    trainer's next call into the env or the network (copying them into the rollout's
    tensors, in the env's compact dtype: ``env_obs_dtype`` in the JSON; their division to
    float32 happens in the network's forward pass, counted as inference);
  - *policy inference*: the network's forward passes during the rollout (the learner's and
    the league's snapshots) and the action sampling;
  - *update*: ``ppo_update`` (every epoch and minibatch of the PPO update);
  - *other*: the rest of the loop (league draws, rewards, GAE, the batch's assembly and its move
    to the device, Python). The JSON's ``detail_seconds`` gives the whole rollout's and the
    GAE's seconds over the same cycles, to split it.

  The phases are timed by wrapping those calls (the trainer's code is not changed); a wrapper
  costs about a microsecond per call, a few hundred per update.
* **sb3_default**: ``MaskablePPO`` on our Gymnasium wrapper
  (:class:`octagames.envs.gym_wrapper.SingleAgentEnv`: one learning seat, random
  opponents, ``action_masks()``) with SB3's own PPO defaults (``n_steps=2048``,
  ``batch_size=64``, ``n_epochs=10``), the way users run it.
* **sb3_matched**: the same with our PPO work per sample: ``n_epochs`` =
  ``update_epochs`` and the minibatch size of ours (a rollout of
  ``num_envs * num_steps`` samples cut into ``num_minibatches``).

Ours reports **env steps/s** (every seat's moves, what the trainer's ``steps_per_s`` counts)
and **samples/s**: transitions the learner trains on per second of the whole loop (for ours:
``train_steps``, the acting seats' moves that enter the PPO batch; for SB3:
``num_timesteps``, the learning seat's moves; the random opponents' moves inside the
wrapper are not counted). SB3 is compared on samples/s. Rates and shares are taken over
whole collect+update cycles, leaving out the first one (warm-up); a measurement runs whole
cycles, so it can exceed ``budget_s`` by up to one cycle.

Writes ``out_json`` (every figure, the settings and the load average at the start and the end)
and ``out_png`` (samples/s per game and thread count, ratios written on them; the phase shares
of ours). sb3-contrib is not a dependency of octagames: ``pip install sb3-contrib`` (or the
``bench`` extra) to measure the anchors.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import platform
import sys
import tempfile
import time
import types
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import torch

from octagames.agents.learn.ppo import matmul_precision
from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.envs.vector import make
from octagames.experiments.cli import GamesArgs, check_device, check_hidden, parse_config, script
from octagames.experiments.bench import load_average
from octagames.experiments.train_ppo import TrainConfig, Trainer

SB3_MISSING = ("sb3-contrib is not installed; it is needed for the SB3 MaskablePPO anchor: "
               "pip install sb3-contrib  (or pip install -e '.[bench]'); "
               "or run with --no-sb3 to measure our trainer only")

#: SB3's PPO defaults (stable_baselines3.PPO): the "default" anchor
SB3_DEFAULTS = {"n_steps": 2048, "batch_size": 64, "n_epochs": 10}

#: the phases of our trainer's loop, in the order of the tables
PHASES = ("env stepping", "observation conversion", "policy inference", "update", "other")
KINDS = ("ours", "sb3_default", "sb3_matched")


@dataclass(frozen=True)
class BenchConfig(GamesArgs):
    """PPO throughput benchmark (all fields are command-line flags; default: every game's seed variant)."""

    budget_s: float = 30.0
    """seconds per measurement (each of ours, sb3_default, sb3_matched, per game and thread count)"""
    threads: tuple[int, ...] = (1, 2)
    """thread counts measured: torch's CPU threads and the vector env's stepping threads (SB3: torch's)"""
    device: str = "cpu"
    """where our trainer's network runs (cpu, cuda, ...); SB3 runs on cpu"""
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
    matmul_dtype: str = "float32"
    """our trainer's matrix products: float32 or bfloat16 (TrainConfig's matmul_dtype; SB3 stays float32)"""
    sb3: bool = True
    """measure the SB3 anchors (needs sb3-contrib); --no-sb3 measures ours only"""
    sb3_n_envs: int = 1
    """SB3 envs in its DummyVecEnv (1: SB3's default)"""
    out_json: str = "runs/bench_ppo.json"
    """results file"""
    out_png: str = "runs/bench_ppo.png"
    """bar charts"""
    progress: bool = True
    """show a tqdm progress bar over the measurements"""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 < self.budget_s < math.inf:  # NaN was refused by the trainer, under its own field's name
            raise ValueError(f"budget_s={self.budget_s} is not valid; it must be a finite number > 0")
        if not self.threads or min(self.threads) < 1:
            raise ValueError(f"threads={self.threads} is not valid; give thread counts >= 1, e.g. 1 2")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"activation={self.activation!r} is not valid; valid values: ['relu', 'tanh']")
        matmul_precision(self.matmul_dtype)  # a bad name raises ValueError naming the field
        for name in ("num_envs", "num_steps", "update_epochs", "num_minibatches", "sb3_n_envs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} must be >= 1")
        # hidden and device as TrainConfig checks them, here: bench_ours builds one after a game's warm-up
        check_hidden(self.hidden)
        check_device(self.device)
        if self.seed < 0:
            raise ValueError(f"seed={self.seed} is not valid; it must be >= 0")
        if self.sb3 and self.seed >= 2**32:  # SB3 seeds numpy's global generator with it
            raise ValueError(f"seed={self.seed} is not valid with the SB3 anchors; it must be in 0..2**32-1 "
                             "(--no-sb3 takes any seed >= 0)")


def _game_fields(game: str, config: dict[str, Any]) -> dict[str, Any]:
    """The game options of :class:`TrainConfig` for a game's fields (``num_players`` among them)."""
    fields = dict(config)
    return {"game": game, "players": fields.pop("num_players", None),
            "config": tuple(f"{k}={v}" for k, v in fields.items())}


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


def warm_up(game: str, config: dict[str, Any], gym: bool) -> None:
    """Compile the game's kernels (numba compiles on first use) before anything is timed."""
    env = make(game, 4, seed=0, num_threads=1, **config)
    env.reset()
    for _ in range(3):
        env.step_inplace(env.sample_actions())
    env.close()
    if gym:
        genv = SingleAgentEnv(game, seat=0, **config)
        genv.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(3):
            _, _, done, _, _ = genv.step(rng.choice(np.flatnonzero(genv.action_masks())))
            if done:
                genv.reset()


# ----------------------------------------------------------------------------
# Ours, by phase
# ----------------------------------------------------------------------------
class PhaseClock:
    """Wall time by phase (:data:`PHASES`), from wrapped calls.

    :meth:`span` times a call into a phase (a call inside another timed call counts for the
    outer one only); :meth:`open` starts an interval of a phase that the next timed event
    (a span's start, another :meth:`open`, :meth:`event`) ends. :meth:`restart` zeroes the
    figures; :meth:`shares` gives each phase's part of the time since, ``other`` being the
    rest. :meth:`measure` times calls into ``detail``, figures that split a phase further.

    Args:
        now: the clock read (seconds).
    """

    def __init__(self, now: Callable[[], float] = time.perf_counter) -> None:
        self.now = now
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.detail: dict[str, float] = {}
        self.start = now()
        self._depth = 0
        self._open: tuple[str, float] | None = None

    def restart(self) -> None:
        """Zero every phase; the elapsed time counts from now."""
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.detail = {}
        self.start = self.now()
        self._open = None

    def event(self) -> None:
        """Close the interval :meth:`open` started, if any."""
        if self._open is not None:
            phase, t0 = self._open
            self.seconds[phase] += self.now() - t0
            self._open = None

    def open(self, phase: str) -> None:
        """Count the time from now to the next event as ``phase`` (outside any span)."""
        if self._depth == 0:
            self.event()
            self._open = (phase, self.now())

    def span(self, phase: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Call ``fn(*args, **kwargs)``, its wall time counted as ``phase``; returns its result."""
        if self._depth:
            return fn(*args, **kwargs)
        self.event()
        self._depth += 1
        t0 = self.now()
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds[phase] += self.now() - t0
            self._depth -= 1

    def wrap(self, phase: str, fn: Any) -> Any:
        """``fn`` with its calls timed as ``phase``."""
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            return self.span(phase, fn, *args, **kwargs)
        return timed

    def measure(self, name: str, fn: Any) -> Any:
        """``fn`` with its calls' wall time added to ``detail[name]`` (a figure beside the phases, which it
        leaves as they are)."""
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = self.now()
            try:
                return fn(*args, **kwargs)
            finally:
                self.detail[name] = self.detail.get(name, 0.0) + self.now() - t0
        return timed

    def shares(self) -> tuple[float, dict[str, float]]:
        """``(seconds since restart, {phase: share of them})``, ``other`` being the rest."""
        self.event()
        total = self.now() - self.start
        known = sum(v for k, v in self.seconds.items() if k != "other")
        seconds = {**self.seconds, "other": max(0.0, total - known)}
        return total, {k: (v / total if total > 0 else 0.0) for k, v in seconds.items()}


class TimedEnv:
    """A vector env whose stepping and observation reads are reported to a :class:`PhaseClock`;
    every other attribute is the env's own."""

    def __init__(self, env: Any, clock: PhaseClock) -> None:
        self._env, self._clock = env, clock

    def __getattr__(self, name: str) -> Any:
        self._clock.event()
        return getattr(self._env, name)

    @property
    def obs(self) -> Any:
        """The env's observations; the time until the next event is observation conversion."""
        self._clock.open("observation conversion")
        return self._env.obs

    @property
    def action_mask(self) -> Any:
        """The env's legal masks; the time until the next event is observation conversion."""
        self._clock.open("observation conversion")
        return self._env.action_mask

    def step_inplace(self, actions: Any) -> None:
        """The env's ``step_inplace``, timed as env stepping."""
        self._clock.span("env stepping", self._env.step_inplace, actions)

    def observe(self, players: Any) -> Any:
        """The env's ``observe``, timed as env stepping."""
        return self._clock.span("env stepping", self._env.observe, players)


def instrument(trainer: Any, clock: PhaseClock) -> None:
    """Report the phases of ``trainer``'s own worker (not Ray actors) to ``clock``: the env, the
    network's forward passes (its own and the league snapshots'), the action sampling."""
    worker = trainer.worker
    worker.env = TimedEnv(worker.env, clock)
    for name in ("forward", "logits", "value"):
        setattr(worker.model, name, clock.wrap("policy inference", getattr(worker.model, name)))
    pick = worker._opponent_model

    def opponent_model(k: int) -> Any:
        model = pick(k)
        if not hasattr(model.logits, "__wrapped__"):
            model.logits = clock.wrap("policy inference", model.logits)
        return model
    worker._opponent_model = opponent_model
    worker.rollout = clock.measure("rollout", worker.rollout)


def trainer_modules() -> list[types.ModuleType]:
    """The trainer's module and its rollout worker's: where :func:`bench_ours` looks up the names it wraps."""
    modules = [sys.modules[Trainer.__module__]]
    worker = getattr(modules[0], "RolloutWorker", None)
    if worker is not None and sys.modules[worker.__module__] not in modules:
        modules.append(sys.modules[worker.__module__])
    return modules


@contextmanager
def replaced(modules: list[types.ModuleType], name: str, wrap: Callable[[Any], Any]) -> Iterator[int]:
    """Within the block, each of ``modules`` that has ``name`` holds ``wrap`` of its value there;
    yields how many do."""
    saved = [(m, getattr(m, name)) for m in modules if hasattr(m, name)]
    for m, value in saved:
        setattr(m, name, wrap(value))
    try:
        yield len(saved)
    finally:
        for m, value in saved:
            setattr(m, name, value)


def bench_ours(cfg: BenchConfig, game: str, config: dict[str, Any], threads: int) -> dict[str, Any]:
    """Our trainer's loop (evaluation off) for ``budget_s`` seconds of whole updates on ``threads``
    threads, with the share of each phase (the first update left out)."""
    modules = trainer_modules()
    clock = PhaseClock()
    updates = [0]
    measured: list[tuple[float, dict[str, float], dict[str, float]]] = []

    def timed_update(update: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            out = clock.span("update", update, *args, **kwargs)
            updates[0] += 1
            # through the end of this update (the run's final evaluation and files stay out); the first
            # cycle is the warm-up, kept only when no other cycle ran
            measured[:] = [(*clock.shares(), dict(clock.detail))]
            if updates[0] == 1:
                clock.restart()
            return out
        return run
    with tempfile.TemporaryDirectory() as tmp:
        tc = TrainConfig(**_game_fields(game, config),
                         seed=cfg.seed, device=cfg.device, torch_threads=threads, run_dir=tmp,
                         total_steps=10**12, time_budget_s=cfg.budget_s, progress=False,
                         num_envs=cfg.num_envs, num_steps=cfg.num_steps, hidden=cfg.hidden,
                         activation=cfg.activation, update_epochs=cfg.update_epochs,
                         num_minibatches=cfg.num_minibatches, matmul_dtype=cfg.matmul_dtype,
                         eval_every=0, eval_opponents=(),
                         checkpoint_every=10**9)
        # the env's stepping threads (a thread steps at least MIN_SLICE games: fewer games, fewer threads)
        with replaced(modules, "make", lambda f: functools.partial(f, num_threads=threads)):
            trainer = Trainer(tc)
        instrument(trainer, clock)
        with ExitStack() as stack:
            if not stack.enter_context(replaced(modules, "ppo_update", timed_update)):
                raise RuntimeError(f"ppo_update is not found in {[m.__name__ for m in modules]}: the trainer "
                                   "changed; bench_ppo's phase timing needs its update step")
            stack.enter_context(replaced(modules, "sample_actions", lambda f: clock.wrap("policy inference", f)))
            stack.enter_context(replaced(modules, "seat_gae", lambda f: clock.measure("advantages (GAE)", f)))
            clock.restart()
            rows = [r for r in trainer.run()["rows"] if r["update"] > 0]
    marks = [(0.0, 0.0, 0.0)] + [(r["wall_time"], r["train_steps"], r["env_steps"]) for r in rows]
    sps, esps, secs, cycles = _rate(marks)
    return {"samples_per_s": sps, "env_steps_per_s": esps, "seconds": secs, "cycles": cycles,
            "updates": len(rows), "train_fraction": rows[-1]["train_steps"] / rows[-1]["env_steps"],
            "threads": threads, "env_threads": trainer.worker.env.num_threads,
            "env_obs_dtype": str(trainer.worker.env.obs.dtype),
            "torch_threads": torch.get_num_threads(), "device": cfg.device,
            "phase_seconds": measured[0][0], "phase_shares": measured[0][1],
            # seconds of the whole rollout (env, observations, inference, GAE, the batch's assembly) and of
            # the GAE in it, over the same cycles: the rollout's part of "other" is what it leaves after those
            "detail_seconds": measured[0][2],
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
              n_epochs: int, threads: int = 1) -> dict[str, Any]:
    """``MaskablePPO`` on :class:`~octagames.envs.gym_wrapper.SingleAgentEnv` for ``budget_s`` seconds of
    whole cycles, on ``threads`` torch threads."""
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
        return lambda: SingleAgentEnv(game, seat=0, **config)

    venv = DummyVecEnv([make_env(i) for i in range(cfg.sb3_n_envs)])
    venv.seed(cfg.seed)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=batch_size, n_epochs=n_epochs,
                        policy_kwargs={"net_arch": {"pi": list(cfg.hidden), "vf": list(cfg.hidden)},
                                       "activation_fn": act},
                        seed=cfg.seed, device="cpu", verbose=0)
    # a logger that writes nowhere: SB3's default one creates an empty /tmp/SB3-<date> folder per run
    model.set_logger(Logger(folder=None, output_formats=[]))
    torch.set_num_threads(threads)  # SB3 may set its own; use the same as ours
    clock = Clock()
    model.learn(total_timesteps=10**12, callback=clock)
    venv.close()
    sps, _, secs, cycles = _rate(clock.marks)
    return {"samples_per_s": sps, "seconds": secs, "cycles": cycles, "threads": threads,
            "settings": {"n_envs": cfg.sb3_n_envs, "n_steps": n_steps, "batch_size": batch_size,
                         "n_epochs": n_epochs}}


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------
def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    """Every measurement of ``cfg``; writes ``out_json`` and ``out_png`` and returns the results."""
    if cfg.sb3 and not sb3_available():
        raise SystemExit(SB3_MISSING)
    threads_before = torch.get_num_threads()
    rollout = cfg.num_envs * cfg.num_steps
    matched = {"n_steps": max(1, rollout // cfg.sb3_n_envs),
               "batch_size": max(1, rollout // cfg.num_minibatches), "n_epochs": cfg.update_epochs}
    kinds = ["ours"] + (["sb3_default", "sb3_matched"] if cfg.sb3 else [])
    load_start = load_average()
    games = list(zip(cfg.describe_all(), cfg.resolve_all()))
    bar = None
    if cfg.progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(games) * len(cfg.threads) * len(kinds), desc="bench ppo", unit="run",
                   file=sys.stderr)
    results: dict[str, Any] = {}
    try:
        for spec, (game, config) in games:
            warm_up(game, config, gym=cfg.sb3)
            res: dict[str, Any] = {"game": game, "config": config, "threads": {}}
            for threads in cfg.threads:
                per: dict[str, Any] = {}
                for kind in kinds:
                    if bar is not None:
                        bar.set_postfix_str(f"{spec} {threads} thr {kind}")
                    if kind == "ours":
                        per[kind] = bench_ours(cfg, game, config, threads)
                    else:
                        per[kind] = bench_sb3(cfg, game, config, threads=threads,
                                              **(SB3_DEFAULTS if kind == "sb3_default" else matched))
                    if bar is not None:
                        bar.update(1)
                for kind in kinds[1:]:
                    per[f"ratio_vs_{kind}"] = per["ours"]["samples_per_s"] / per[kind]["samples_per_s"]
                res["threads"][str(threads)] = per
            results[spec] = res
    finally:
        torch.set_num_threads(threads_before)
        if bar is not None:
            bar.close()
    out = {"config": dataclasses.asdict(cfg),
           "metric": "env steps/s (every seat's moves) and samples/s (transitions trained on) per second "
                     "of the whole loop (env stepping + inference + PPO updates); phase shares of that time",
           "phases": list(PHASES), "torch_version": torch.__version__,
           "platform": platform.platform(), "processor": platform.processor(), "cpu_count": os.cpu_count(),
           "load_average": {"start": load_start, "end": load_average()}, "results": results}
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


def _measurements(out: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(variant and seats, thread count, that measurement's results)`` in the run's order."""
    return [(spec, t, per) for spec, r in out["results"].items() for t, per in r["threads"].items()]


def plot_bench(out: dict[str, Any], path: Path) -> Path:
    """Left: samples/s per game and thread count (log scale), the ratio of ours to each anchor written
    above them. Right: the share of each phase in ours."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = _measurements(out)
    kinds = [k for k in KINDS if any(k in per for _, _, per in cases)]
    labels = {"ours": "ours (octagames PPO)", "sb3_default": "SB3 MaskablePPO, SB3 defaults",
              "sb3_matched": "SB3 MaskablePPO, matched epochs/minibatch"}
    colors = {"ours": "tab:green", "sb3_default": "tab:grey", "sb3_matched": "tab:blue"}
    names = [f"{spec}\n{t} thread{'s' if t != '1' else ''}" for spec, t, _ in cases]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(5 + 3.4 * len(cases), 4.8))
    width = 0.8 / len(kinds)
    for j, kind in enumerate(kinds):
        xs = [i + (j - (len(kinds) - 1) / 2) * width for i in range(len(cases))]
        ys = [per[kind]["samples_per_s"] if kind in per else 0.0 for _, _, per in cases]
        ax.bar(xs, ys, width, label=labels[kind], color=colors[kind])
        for x, y, (_, _, per) in zip(xs, ys, cases):
            text = f"{y:,.0f}"
            if kind != "ours" and f"ratio_vs_{kind}" in per:
                text += f"\nours = {per[f'ratio_vs_{kind}']:.1f}x"
            ax.text(x, y, text, ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(names, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("trained samples / s (whole loop)")
    ax.set_title(f"PPO training throughput, hidden {tuple(out['config']['hidden'])} {out['config']['activation']}")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ymax = max(per[k]["samples_per_s"] for _, _, per in cases for k in kinds if k in per)
    ax.set_ylim(top=ymax * 8)
    bottom = np.zeros(len(cases))
    for phase, color in zip(PHASES, ("tab:orange", "tab:purple", "tab:green", "tab:blue", "tab:grey")):
        share = np.array([per["ours"]["phase_shares"][phase] for _, _, per in cases])
        ax2.bar(range(len(cases)), share, 0.6, bottom=bottom, color=color, label=phase)
        bottom += share
    ax2.set_xticks(range(len(cases)))
    ax2.set_xticklabels([f"{n}\n{per['ours']['env_steps_per_s']:,.0f} env steps/s" for n, (_, _, per)
                         in zip(names, cases)], fontsize=8)
    ax2.set_ylabel("share of the loop's wall time")
    ax2.set_title(f"ours by phase (device {out['config']['device']})")
    ax2.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def print_table(out: dict[str, Any]) -> None:
    """Ours by game and thread count (rates and phase shares), then the anchors' ratios."""
    cfg = out["config"]
    load = out["load_average"]
    print(f"PPO trainer end to end: hidden {tuple(cfg['hidden'])} {cfg['activation']}, {cfg['num_envs']} games x "
          f"{cfg['num_steps']} steps per rollout, device {cfg['device']}, matrix products in "
          f"{cfg.get('matmul_dtype', 'float32')}, {cfg['budget_s']:g} s per measurement; "
          f"load average {' '.join(f'{v:.2f}' for v in load['start'])} at the start, "
          f"{' '.join(f'{v:.2f}' for v in load['end'])} at the end")
    short = {"env stepping": "env", "observation conversion": "obs conv", "policy inference": "inference",
             "update": "update", "other": "other"}
    print(f"{'game':<18}{'threads':>8}{'env steps/s':>13}{'samples/s':>11}"
          + "".join(f"{short[p]:>11}" for p in PHASES))
    for spec, t, per in _measurements(out):
        ours = per["ours"]
        print(f"{spec:<18}{t:>8}{ours['env_steps_per_s']:>13,.0f}{ours['samples_per_s']:>11,.0f}"
              + "".join(f"{ours['phase_shares'][p]:>11.0%}" for p in PHASES))
    anchors = [(spec, t, per) for spec, t, per in _measurements(out) if "sb3_default" in per]
    if anchors:
        print(f"\n{'game':<18}{'threads':>8}{'measurement':>14}{'samples/s':>11}{'ours/x':>9}")
        for spec, t, per in anchors:
            for kind in KINDS[1:]:
                print(f"{spec:<18}{t:>8}{kind:>14}{per[kind]['samples_per_s']:>11,.0f}"
                      f"{per[f'ratio_vs_{kind}']:>9.2f}")


def main(cfg: BenchConfig) -> dict[str, Any]:
    """Command-line entry: run the benchmark and print the tables."""
    out = run_bench(cfg)
    print_table(out)
    print(f"wrote {cfg.out_json} and {cfg.out_png}")
    return out


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-ppo``, or ``python -m octagames.experiments.bench_ppo``)."""
    main(parse_config(BenchConfig))


if __name__ == "__main__":
    cli()
