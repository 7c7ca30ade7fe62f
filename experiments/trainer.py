"""The skeleton every trainer shares, written once: the run folder, the config echo, checkpoints
and exact resume, the metrics files, the curves and the progress. ``train_ppo`` and ``train_az``
subclass :class:`Trainer` and write only their algorithm.

A run lives in one folder, by default named from what it trains (:func:`default_run_dir`)::

    runs/<kind>/<variant>-<players>p-<config digest>-s<seed>/    e.g. runs/ppo/octa-nl-2p-0b799922-s0
        config.json      the run's settings, the game's full config and the code's version and commit
                         (written first; each --resume appends its command, the counters it resumed
                         at and its code to ``resumes``)
        checkpoint.pt    everything needed to resume exactly (written atomically; with a warm start
                         also right after it and the first evaluation, before the first update)
        warm_start.partial.pt  the warm start's work so far while it runs (every minute or so, and at a
                         stop): its teacher games, and train_az's children's labels, rollout values and
                         gradient steps; --resume goes on from them; removed at the first checkpoint.pt
        metrics.csv      one row per update or iteration; win rates at evaluations
        metrics.json     the same rows, the config, the evaluation opponents (and those skipped)
        curves.png       win rates and losses over the run's work and over wall time
        + the trainer's model file (``policy.pt``, ``model.pt``, ...)

**Runs are never lost**: a folder that holds a run is continued only with ``--resume`` and
replaced only with ``--overwrite``; otherwise the trainer refuses in one line naming both
(:func:`claim_run_dir`). The run that ``--overwrite`` replaces waits in the subfolder ``replaced-run`` until the
new run writes its first checkpoint (:func:`set_aside_run`): a new run that fails or is stopped before that
leaves it there. One run at a time writes a folder: a run holds its lock from before the folder is
claimed until it ends (:func:`lock_run_dir`), and a second one there is refused in one line meanwhile.
A resume keeps the run's settings: a change to any field but the budget and the reporting ones
(:attr:`RunConfig.RESUMABLE`) is refused, naming each (:meth:`Trainer.check_resume`); ``torch_threads`` is
one of the run's (results differ across thread counts). The first line of output, within seconds, names the
folder and the settings; without a progress bar (``--no-progress``) each evaluation prints a line.

This is a script-side module (``experiments/``): it writes folders, reads command-line
configs and prints; the library pieces the trainers run (the networks, the league, the
rollout and self-play workers) live in ``agents/learn/``.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import hmac
import json
import os
import platform
import random
import shlex
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator, Mapping, Sequence

import numpy as np
import torch

from octagames import catalogue
from octagames.agents.arena import WriterLock
from octagames.agents.learn.imitation import Checkpoint, GamesSoFar, TeacherData, teacher_games
from octagames.agents.model_config import (UnsafeModelFile, fitting_options, load_model_file, recorded_config,
                                           refuse_compressed_members)
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.cli import (GameArgs, check_device, check_ray_options, code_version, command_line,
                                      command_text, option, usable_agents)

#: the files that make a folder a run (any one of them): refused without --resume or --overwrite
RUN_FILES = ("config.json", "checkpoint.pt", "metrics.json", "metrics.csv")
#: the warm start's work so far (:meth:`Trainer.teacher_data`, :meth:`Trainer.save_warm_start`), saved while it runs
#: so that a run stopped or killed during it goes on with --resume; removed at the run's first checkpoint
WARM_START_PARTIAL = "warm_start.partial.pt"
#: what every trainer writes (removed by --overwrite, with the trainer's own OUTPUTS)
SHARED_OUTPUTS = (*RUN_FILES, "checkpoint.pt.tmp", "config.json.tmp", "curves.png", WARM_START_PARTIAL,
                  WARM_START_PARTIAL + ".tmp")
#: each trainer's own files (its ``OUTPUTS``). A folder that holds any of them holds a run for every trainer, and
#: --overwrite replaces them all: until 2026-12-07 train_ppo and train_az wrote into a folder that held an MCCFR
#: run without --overwrite, and train_cfr --overwrite then left the PPO policy there without its run (review)
TRAINER_OUTPUTS = {
    "train_ppo": ("policy.pt", "policy.pt.tmp"),
    "train_az": ("model.pt", "model.pt.tmp", "model-best.pt", "model-best.pt.tmp", "warm_start.json",
                 "warm_start.png"),
    "train_cfr": ("train_cfr.json", "train_cfr.png", "checkpoint.npz", "train_cfr.json.tmp", "checkpoint.npz.tmp"),
}
#: the files of a run of any trainer
RUN_OUTPUTS = tuple(dict.fromkeys((*SHARED_OUTPUTS, *(n for names in TRAINER_OUTPUTS.values() for n in names))))
#: seconds between saves of the warm start's work at least (a stop saves at once)
WARM_START_SAVE_EVERY_S = 60.0
#: the share of the warm start's time that saving its work may take at most (the next save waits the last one's time
#: over it when that is longer than :data:`WARM_START_SAVE_EVERY_S`)
WARM_START_SAVE_SHARE = 0.1


@dataclass(frozen=True)
class RunConfig(GameArgs):
    """The fields every trainer shares (the game, seeds, device, the run folder, evaluations,
    warm start, Ray); trainers extend it."""

    KIND: ClassVar[str] = "run"  # the run folder's parent: runs/<KIND>/...
    #: the fields ``--resume`` lets a command change: how long, where and how visibly the run goes on, and how
    #: often it evaluates or checkpoints (evaluations play on their own seeds: training is the same). Every
    #: other field is the run's and is refused on resume (:meth:`Trainer.check_resume`); trainers add their
    #: budget (``total_steps``, ``iterations``). ``device`` is compared as it resolves (cpu or cuda).
    RESUMABLE: ClassVar[tuple[str, ...]] = ("run_dir", "resume", "overwrite", "device", "time_budget_s", "progress",
                                            "eval_every", "eval_games", "checkpoint_every", "stop_after",
                                            "ray_address")
    #: automatic evaluation games per opponent: (floor, cap, units of planned_work() per game)
    EVAL_GAMES: ClassVar[tuple[int, int, int]] = (10, 100, 10_000)

    # -- run ------------------------------------------------------------------
    seed: int = 0
    """seeds the games, torch, numpy and python RNGs"""
    device: str = "auto"
    """torch device: auto (cuda when present, else cpu), cpu or cuda"""
    torch_threads: int = 1
    """torch CPU threads (0 leaves torch's default); 1 is fastest for these small MLPs on a shared CPU. Part
    of the run: results differ across thread counts (float sums in another order), so --resume refuses
    another count (the resolved one too, for 0)"""
    run_dir: str = ""
    """output folder (default runs/<trainer>/<variant>-<players>p-<config digest>-s<seed>)"""
    resume: bool = False
    """continue the run in run_dir from its checkpoint.pt (or, stopped during its warm start's teacher games,
    labels, rollout values or steps, from its warm_start.partial.pt); give the run's settings again (its command is
    in config.json; a setting left out takes its default, not the run's): one that changes what it computes (seed,
    game, network, optimiser, schedule, rollout sizes, torch threads, device, ...) is refused, naming each and the
    options with the run's values; only the budget (total steps or iterations, time budget), stop_after,
    checkpoint_every, eval_every, eval_games, progress and ray_address may change. config.json keeps the run's
    first command and appends each resume's command to its "resumes" list"""
    overwrite: bool = False
    """replace the run in run_dir (its files are set aside in run_dir/replaced-run until the new run's first
    checkpoint, then removed)"""
    time_budget_s: float = 0.0
    """also stop after this much wall time of the run, its resumes' included (0: no limit; a resume of a run that
    stopped on it goes on with a larger one); breaks exact reproducibility"""
    progress: bool = True
    """show a progress bar (without it: a line at each evaluation)"""
    # -- evaluation and checkpoints --------------------------------------------
    eval_every: int = 10
    """updates or iterations between evaluations (0: only at the start and the end)"""
    eval_games: int = 0
    """games per opponent per evaluation (0: scaled to the run's planned length: train_ppo one per 10,000 env
    steps within 10 and 100, train_az one per 4,096 samples within 8 and 64)"""
    eval_opponents: tuple[str, ...] = ("random", "heuristic", "mcts")
    """agent specs for octagames.agents.registry.make_agent; those that do not fit the game are skipped, a name
    that is no agent is refused"""
    checkpoint_every: int = 10
    """updates or iterations between checkpoints"""
    stop_after: int = 0
    """testing aid: end the process abruptly (os._exit, no cleanup) after this update or iteration, like a kill"""
    # -- warm start -----------------------------------------------------------
    imitation_games: int = 0
    """teacher games before training (0: no warm start)"""
    imitation_teacher: str = "heuristic"
    """registry spec of the teacher"""
    imitation_epsilon: float = 0.1
    """share of teacher-game moves played at random (labelled with the teacher's choice)"""
    imitation_random_share: float = 0.0
    """share of the teacher games (the last ones) played wholly at random, every move labelled with the
    teacher's choice: positions far from the teacher's own play"""
    imitation_steps: int = 1000
    """gradient steps on the teacher's decisions"""
    imitation_opponent: str = ""
    """registry spec of the teacher's opponents ("": the teacher in every seat, all its decisions kept)"""
    imitation_player: str = ""
    """registry spec that makes the teacher's moves in its place, each still labelled with the
    teacher's choice (DAgger: e.g. az:<run>/model.pt:0, a learner's policy; "": the teacher plays)"""
    imitation_workers: int = 1
    """processes playing the teacher games (the same deals for any count; the agents' draws differ
    between one process and several, not between counts above one); train_az's rollout values and
    children's labels use as many (the same values for any count above one)"""
    # -- Ray ------------------------------------------------------------------
    ray_actors: int = 0
    """self-play actors on Ray (the distributed extra); 0: self-play in this process. One actor
    reproduces the single-process run; N actors give N times the self-play per step of the learner"""
    ray_address: str = ""
    """the Ray cluster of the actors (auto: the one this machine belongs to, host:port: its head; empty: a private
    local instance); needs ray_actors >= 1"""

    def __post_init__(self) -> None:
        super().__post_init__()  # the variant, seats and config fields
        check_device(self.device)
        for name in ("imitation_games", "imitation_steps", "ray_actors", "eval_every", "eval_games", "stop_after",
                     "torch_threads", "seed"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 0")
        if self.seed >= SEED_LIMIT:  # the seeds derived from it (evaluations, workers) must stay seeds
            raise ValueError(f"seed={self.seed} is not valid; it must be < 2**32 (the seeds a run derives from it "
                             "stay in the engines' range)")
        check_ray_options(self.ray_address, ray_actors=self.ray_actors)
        for name in ("imitation_workers", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        if not self.time_budget_s >= 0:  # NaN never stopped a run
            raise ValueError(f"time_budget_s={self.time_budget_s} is not valid; it must be >= 0 (0: no limit)")
        for name in ("imitation_epsilon", "imitation_random_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be in [0, 1]")
        if self.resume and self.overwrite:
            raise ValueError("--resume continues the run in the folder and --overwrite replaces it: give one")

    def planned_work(self) -> int:
        """What the run plans to do, in the unit of ``EVAL_GAMES`` (the trainer's env steps or samples)."""
        return 0

    def schedule_budget(self) -> dict[str, str]:
        """The fields of :attr:`RESUMABLE` that this run's computation reads (e.g. a learning rate annealed
        over the planned steps), each with why: ``--resume`` refuses a change to them too."""
        return {}

    def games_per_evaluation(self) -> int:
        """``eval_games``, or when 0 the run's planned work over ``EVAL_GAMES``'s unit, within its
        floor and cap: a tiny run evaluates on few games, a long one on many."""
        if self.eval_games > 0:
            return self.eval_games
        floor, cap, per_game = self.EVAL_GAMES
        return int(min(cap, max(floor, self.planned_work() // per_game)))

    def resolved_run_dir(self) -> Path:
        """``run_dir``, or this trainer's default folder for the game and seed (:func:`default_run_dir`)."""
        return Path(self.run_dir) if self.run_dir else default_run_dir(self.KIND, *self.resolve(), self.seed)


def default_run_dir(kind: str, game: str, config: Any, seed: int, root: str | Path = "runs") -> Path:
    """The folder of a run: ``runs/<kind>/<variant>-<players>p-<config digest>-s<seed>``.

    Two configs share a folder only when every field of the game's config is the same (the
    digest), so Octa's two rulebooks, or 2 and 3 players, never write into one run.

    Args:
        kind: the trainer (``ppo``, ``az``, ``cfr``, ...).
        game: the rules package's short name.
        config: the game's ``Config`` or a mapping of its fields.
        seed: the run's seed.
        root: the folder of all runs.

    Returns:
        e.g. ``runs/ppo/octa-nl-2p-0b799922-s0``.
    """
    name = f"{catalogue.describe(game, config)}-{catalogue.config_digest(game, config)}-s{seed}"
    return Path(root) / kind / name


def lock_run_dir(path: Path, resume: bool) -> WriterLock | None:
    """The run folder's lock (:class:`~octagames.agents.arena.WriterLock` on the folder itself: nothing is
    written in it), taken before :func:`claim_run_dir` and held while the run writes the folder. A new run
    creates the folder here; a resume of a folder that does not exist locks nothing (None: the claim refuses it).

    Two runs in one folder wrote one checkpoint over the other's, and one died renaming a temporary file
    that the other had renamed already; under the lock the second is refused before it reads or removes
    anything, so the temporary files (``checkpoint.pt.tmp``, ...) need no name of their own per process.

    Raises:
        BusyError: another run writes the folder (a ValueError naming it, the other run's pid where known and
            what to do).
    """
    if resume and not path.is_dir():
        return None
    path.mkdir(parents=True, exist_ok=True)
    return WriterLock(path, f"{path} (a run folder)", "wait for that run to end (then --resume goes on from its "
                      "checkpoint), or choose another folder with --run-dir")


def claim_run_dir(path: Path, resume: bool, overwrite: bool, outputs: Sequence[str] = (),
                  can_resume: bool = True, remove: bool = True, checkpoint: str = "checkpoint.pt") -> str:
    """Check that a run may go into ``path``; with ``overwrite``, remove the run there.

    A folder holds a run when it has any of :data:`RUN_FILES` or of ``outputs``; other files
    (and an empty folder) are no run and stay untouched.

    Args:
        path: the run folder (it need not exist).
        resume: continue the run there (its ``checkpoint``, by default ``checkpoint.pt``, must exist).
        overwrite: replace the run there: the files it wrote are removed (nothing else; a trainer sets them
            aside until its first checkpoint instead, :func:`set_aside_run`).
        outputs: the trainer's own files, removed by ``overwrite`` beside :data:`SHARED_OUTPUTS`.
        can_resume: whether the trainer resumes at all (the message names ``--resume`` only then).
        remove: with ``overwrite``, remove the run's files here; False leaves them to :func:`remove_run` (a
            trainer removes them once its settings have built, so a refused setting loses no run).

    Returns:
        ``"new run"``, ``"resuming"`` or ``"replacing the run there"``.

    Raises:
        ValueError: the folder holds a run and neither flag was given (one line naming both).
        FileNotFoundError: ``resume`` without a checkpoint in the folder.
    """
    if resume:
        if not (path / checkpoint).exists():
            raise FileNotFoundError(f"--resume: no checkpoint at {path / checkpoint}; start the run "
                                    f"without --resume{' (with --overwrite to replace what is there)' if path.exists() else ''}")
        return "resuming"
    held = [name for name in dict.fromkeys((*RUN_FILES, *outputs, *RUN_OUTPUTS)) if not name.endswith(".tmp")
            and name != "curves.png" and (path / name).exists()]
    partial = path / (REPLACED + ".partial")
    if partial.is_dir() and any(partial.iterdir()):  # a move aside cut short (set_aside_run): a run all the same
        held.append(partial.name)
    if held and not overwrite:
        choices = "--resume to continue it or --overwrite to replace it" if can_resume else "--overwrite to replace it"
        raise ValueError(f"{path} holds a run already ({', '.join(held)}): pass {choices}, or choose another "
                         f"folder with --run-dir")
    if held:
        if remove:
            remove_run(path, outputs)
        return "replacing the run there"
    return "new run"


def remove_run(path: Path, outputs: Sequence[str] = ()) -> None:
    """Remove the files a run wrote in ``path`` (:data:`RUN_OUTPUTS`, any trainer's, and ``outputs``), nothing
    else."""
    for name in dict.fromkeys((*RUN_OUTPUTS, *outputs)):
        (path / name).unlink(missing_ok=True)


#: the subfolder where ``--overwrite`` keeps the run it replaces until the new run's first checkpoint
REPLACED = "replaced-run"


def set_aside_run(path: Path, outputs: Sequence[str] = ()) -> Path:
    """Move the files a run wrote in ``path`` into ``path/replaced-run`` (:data:`REPLACED`): ``--overwrite``
    keeps the run it replaces there until the new run writes its first checkpoint (then the trainer removes
    the folder), so a new run that fails or is stopped before that (a warm start may take hours) loses
    nothing. The files move into ``replaced-run.partial`` first, then that folder is renamed: a move cut
    short is put back at the next call.

    Where ``replaced-run`` holds a run already, set aside by an earlier ``--overwrite``: with no
    ``checkpoint.pt`` here, the files here are that replacement's start, which failed, and are removed (the
    run aside stays); with one, the run here is newer (its replacement went on past its first checkpoint)
    and the stale folder is removed instead. Returns the folder.

    Raises:
        FileExistsError: ``replaced-run`` is a file, not a folder; or a move cut short left files in
            ``replaced-run.partial`` that are also here (two runs: the user keeps one).
    """
    aside, partial = path / REPLACED, path / (REPLACED + ".partial")
    names = list(dict.fromkeys((*RUN_OUTPUTS, *outputs)))
    if aside.exists() and not aside.is_dir():
        raise FileExistsError(f"{aside} is a file: --overwrite keeps the run it replaces in a folder of that name "
                              "until the new run's first checkpoint; move the file away")
    if partial.is_dir():  # a move cut short: put its files back first
        clash = [name for name in names if (partial / name).exists() and (path / name).exists()]
        if clash:
            raise FileExistsError(f"{partial} holds a run's files that a move aside left ({', '.join(clash)} are "
                                  f"also in {path}): keep the run you want in {path} and remove the other")
        for name in names:
            if (partial / name).exists():
                os.replace(partial / name, path / name)
        shutil.rmtree(partial)
    if aside.is_dir() and any(aside.iterdir()):
        if not (path / "checkpoint.pt").exists():
            remove_run(path, outputs)
            return aside
        shutil.rmtree(aside)
    if aside.is_dir():
        aside.rmdir()  # empty: renamed over below
    partial.mkdir()
    for name in names:
        if (path / name).exists():
            os.replace(path / name, partial / name)
    os.replace(partial, aside)
    return aside


#: the game's fields: a resume compares the game they resolve to (its config digest), not their spelling
GAME_FIELDS = ("game", "players", "config")

#: config fields of older trainers under today's names (old -> new)
RENAMED = {"num_players": "players", "game_config": "config", "stop_after_updates": "stop_after",
           "stop_after_iterations": "stop_after"}


def upgrade_config(saved: dict[str, Any]) -> dict[str, Any]:
    """A trainer config saved by an older version (``num_players``, ``game_config``, ...) with
    today's field names, for :func:`octagames.experiments.cli.saved_command`.

    Only the names change: a run saved as ``game="octrix"`` before the bare name became the
    match to 88 read a single round unless its ``game_config`` said ``match=True``.
    """
    return {RENAMED.get(k, k): v for k, v in saved.items()}


def announce(module: str, cfg: Any, path: Path, what: str, start: str) -> None:
    """The first lines of a run, printed before any long work: where it goes, what it trains, and its
    settings (the flags that differ from the defaults).

    Args:
        module: the command's module (``octagames.experiments.train_ppo``).
        cfg: the run's config dataclass.
        path: the run folder.
        what: the game and seed in words.
        start: what :func:`claim_run_dir` said (``new run``, ``resuming``, ...).
    """
    print(f"{module.rpartition('.')[2]}: {path} ({what}): {start}", flush=True)
    print("  settings: " + (shlex.join(command_line(cfg, module)[3:]) or "the defaults"), flush=True)


def resolve_device(name: str) -> torch.device:
    """``auto`` -> cuda when available, else cpu.

    Raises:
        ValueError: a CUDA device this machine's torch does not see (torch's own refusal was a traceback).
    """
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and int(name[5:] or 0) >= torch.cuda.device_count():
        raise ValueError(f"device={name!r} is not valid here: torch sees {torch.cuda.device_count()} CUDA devices; "
                         "valid values: auto, cpu" + (", cuda, cuda:<n>" if torch.cuda.is_available()
                                                      else " (this torch has no CUDA device)"))
    return torch.device(name)


def machine(device: torch.device | str = "cpu") -> str:
    """One line naming where a run trains, for model files and cards: ``"2 CPU cores (AMD EPYC), cpu"``
    or ``"16 CPU cores (...), cuda (NVIDIA H100 80GB HBM3)"``."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:  # not Linux: the platform's own word for the processor
        model = platform.processor()
    device = torch.device(device)
    where = f"cuda ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else device.type
    return f"{cores} CPU cores" + (f" ({model})" if model else "") + f", {where}"


def save_whole(data: Any, path: Path) -> Path:
    """``torch.save`` ``data`` to ``path`` whole or not at all: into ``<path>.tmp``, then renamed."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    os.replace(tmp, path)
    return path


def rng_state() -> dict[str, Any]:
    """The global RNG states (python, numpy, torch, cuda), for a checkpoint."""
    return {"python": random.getstate(), "numpy_global": np.random.get_state(), "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore :func:`rng_state`."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy_global"])
    torch.set_rng_state(state["torch"])
    if state.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


#: set to 1 to load in full (unpickling everything) a checkpoint that torch's weights-only reader refuses, or to
#: resume from a checkpoint whose agents in play this user's key did not sign (:func:`check_signed`)
TRUST_ENV = "OCTAGAMES_TRUST_CHECKPOINTS"
#: the file of the key that signs this user's checkpoints (default: ``octagames/checkpoint.key`` in the user's
#: config folder, made on first use); a cluster whose machines resume each other's runs shares one
KEY_ENV = "OCTAGAMES_CHECKPOINT_KEY"
#: seeds of a run are below this: what a run derives from one (``seed * 1_000_003 + ...``) stays an engine's seed
SEED_LIMIT = 2**32
#: the field of a checkpoint that holds the signature of its pickled parts (:func:`sign_pickles`)
SIGNATURE = "pickles_signature"
#: the length of a :func:`signing_key`
KEY_BYTES = 32


def key_path() -> Path:
    """Where :func:`signing_key` keeps this user's key."""
    return Path(os.environ.get(KEY_ENV) or Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
                / "octagames" / "checkpoint.key")


def signing_key() -> bytes | None:
    """This user's key for :func:`sign_pickles` (32 random bytes in a file only the user may read, made on first
    use; :data:`KEY_ENV` names another file), or None where it can be neither read nor made (a home folder that
    is not writable): a run then checkpoints unsigned rather than fail, and its resume needs :data:`TRUST_ENV`."""
    path = key_path()
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:  # written whole beside it, then linked into place: the key is never seen empty or cut short
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(KEY_BYTES))
            try:
                os.link(tmp, path)
            except FileExistsError:  # another process made it first: theirs
                pass
            key = path.read_bytes()
        except OSError:
            return None
        finally:
            tmp.unlink(missing_ok=True)
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None  # a key cut short (or empty) would sign for anyone


def _pickles(d: Any) -> Iterator[bytes]:
    """Every ``bytes`` value in ``d`` (dicts in their order, lists, tuples): the pickled agents in play
    (:func:`octagames.agents.base.pack_agents`), which a resume unpickles."""
    if isinstance(d, bytes):
        yield d
    elif isinstance(d, dict):
        for v in d.values():
            yield from _pickles(v)
    elif isinstance(d, (list, tuple)):
        for v in d:
            yield from _pickles(v)


def sign_pickles(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with :data:`SIGNATURE`: an HMAC-SHA256 under :func:`signing_key` of its pickled parts (none without a
    key)."""
    key = signing_key()
    if key is None:
        return {k: v for k, v in d.items() if k != SIGNATURE}
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for data in _pickles({k: v for k, v in d.items() if k != SIGNATURE}):
        mac.update(len(data).to_bytes(8, "little") + data)
    return {**d, SIGNATURE: mac.hexdigest()}


def check_signed(d: dict[str, Any], path: Path) -> None:
    """Refuse to go on from checkpoint ``d`` when it holds pickled agents in play (Python objects, which
    unpickling runs) that this user's key did not sign: a checkpoint written by another user or machine, or
    changed since. :data:`TRUST_ENV` ``=1`` accepts it (a file you trust).

    Raises:
        ValueError: unsigned or signed otherwise, naming the way to accept it.
    """
    if not any(True for _ in _pickles(d)) or os.environ.get(TRUST_ENV) == "1":
        return
    # without a key nothing is signed by this user: every such checkpoint is refused (until 2026-12-07 the
    # signature "-", the placeholder compared with, passed, and the agents were unpickled)
    expected = sign_pickles(d).get(SIGNATURE) if signing_key() is not None else None
    if expected is None or not hmac.compare_digest(str(d.get(SIGNATURE, "")), str(expected)):
        raise ValueError(f"--resume: {path} holds agents in play as Python objects (their RNGs and searches), which "
                         "resuming would unpickle, and this user's key did not sign them (a checkpoint of another "
                         "user or machine, or one changed since): resume only a run you trust, with "
                         f"{TRUST_ENV}=1 (a cluster whose machines resume each other's runs shares a key: {KEY_ENV}; "
                         f"this user's is {key_path()}" + ("" if signing_key() else ", which cannot be made or is not "
                                                           f"{KEY_BYTES} bytes") + ")")


def read_checkpoint(path: Path, mmap: bool = False) -> dict[str, Any]:
    """A trainer's checkpoint, read as plain data (:func:`octagames.agents.model_config.load_model_file`).

    Checkpoints written before 2026-11-27 hold the agent opponents in play as Python objects inline,
    which the weights-only reader refuses; with ``OCTAGAMES_TRUST_CHECKPOINTS=1`` such a file (one you
    wrote yourself) is unpickled in full instead.

    Raises:
        ValueError: the file is refused (a compressed zip member is, even trusted); the message says how to load
            an older checkpoint of your own.
    """
    try:
        return load_model_file(path, mmap=mmap)
    except UnsafeModelFile as e:  # only a refused pickle may be trusted; other ValueErrors propagate
        if os.environ.get(TRUST_ENV) != "1":
            raise ValueError(f"{e}. A checkpoint that an older octagames wrote with agent opponents in play "
                             f"holds them as Python objects: if you wrote it yourself, set {TRUST_ENV}=1 to "
                             "load it in full") from e
    refuse_compressed_members(path)  # trusted code, not trusted sizes: no member inflates (load_model_file's check)
    return torch.load(path, map_location="cpu", weights_only=False, mmap=mmap)


def read_run_config(path: Path) -> dict[str, Any]:
    """A run's ``config.json`` (a JSON object), as :meth:`Trainer.write_config` wrote it.

    Raises:
        ValueError: the file is not UTF-8 JSON text of an object (the message names it), or cannot be read.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ValueError(f"{path} is damaged: not JSON text ({type(e).__name__}: {str(e)[:200]}); restore it from a "
                         "copy of the run, or start the run again with --overwrite") from e
    if not isinstance(data, dict):
        raise ValueError(f"{path} is damaged: a JSON {type(data).__name__}, not an object of the run's settings; "
                         "restore it from a copy of the run, or start the run again with --overwrite")
    return data


def _not_a(d: Mapping[str, Any], name: str, kind: str) -> str:
    """``"'rows' is int, not a list of dicts"``: what ``d[name]`` is (``missing`` where it is not there or None),
    against the ``kind`` a resume reads."""
    value = d.get(name)
    return f"{name!r} is {type(value).__name__ if value is not None else 'missing'}, not {kind}"


def _is_number(value: Any) -> bool:
    """Whether ``value`` is an int or float of a saved counter (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def damaged_checkpoint(path: Path, damage: str) -> ValueError:
    """The refusal of a resume from the damaged checkpoint (or warm start's file) at ``path``."""
    return ValueError(f"{path} is a damaged checkpoint: {damage} (resume from a copy of the run, or start it again "
                      "with --overwrite)")


def write_rows(path: Path, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    """``rows`` as a CSV file with ``columns`` (a missing value is an empty cell)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns))
        w.writeheader()
        for row in rows:
            w.writerow({c: row.get(c, "") for c in columns})


class Trainer:
    """One run of a trainer: the folder, the loop, checkpoints, metrics, curves and progress.

    A subclass writes its algorithm in these methods (the loop calls them):

    * :meth:`step`: one update or iteration (it advances ``self.count``), its metrics row;
    * :meth:`play_evaluation`: the evaluation games against one opponent, their win rates;
    * :meth:`warm_start`: the imitation warm start (``imitation_games > 0``);
    * :meth:`state_dict` / :meth:`load_state_dict`: what its checkpoint holds beyond the
      shared part (the RNGs, counters, rows and last evaluation);
    * :meth:`save_model`: its model file, written with every checkpoint;
    * :meth:`columns`: the CSV columns after the counters.

    and declares its ``FORMAT`` (the checkpoint's), ``COUNTERS`` (the first counts the loop),
    ``SPEED`` (the speed column and the counter it measures), ``OUTPUTS`` (its files) and ``PLOT``;
    which settings a resume may change is its config's (:attr:`RunConfig.RESUMABLE`).
    """

    FORMAT: ClassVar[str] = ""
    COUNTERS: ClassVar[tuple[str, ...]] = ("update",)
    SPEED: ClassVar[tuple[str, str]] = ("steps_per_s", "update")
    OUTPUTS: ClassVar[tuple[str, ...]] = ()
    #: plot_curves' keywords: x (column, label), losses, rate_keys
    PLOT: ClassVar[dict[str, Any]] = {}
    #: the command's module, for the echo of the settings
    MODULE: ClassVar[str] = ""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self.bar: Any = None  # the progress bar while the loop runs
        #: the agents :meth:`check_agent` built, kept until the warm start ends (a ``cfr:N`` built there shares
        #: their tables instead of training again)
        self.checked_agents: list[Any] = []
        self.game_name, self.game_config = cfg.resolve()
        self.run_dir = cfg.resolved_run_dir()
        self.device = resolve_device(cfg.device)  # a device this machine lacks: refused before the folder is made
        made = not self.run_dir.exists()
        self.lock = lock_run_dir(self.run_dir, cfg.resume)  # held until run() ends; before the folder is touched
        try:  # a refused run gives the lock back at once
            self._setup()
        except BaseException:
            self.release()
            if made and self.run_dir.is_dir() and not any(self.run_dir.iterdir()):  # its empty folder goes too
                self.run_dir.rmdir()
            raise

    def _setup(self) -> None:
        """Claim the run folder (the lock held), announce the run, seed, build the game and evaluation agents,
        and read and check the checkpoint of a resume."""
        cfg = self.cfg
        # --overwrite's removal waits for run(): a setting refused while the trainer builds keeps the run there
        self.start = claim_run_dir(self.run_dir, cfg.resume, cfg.overwrite, self.OUTPUTS, remove=False,
                                   checkpoint=self.resume_file())
        #: the run that --overwrite set aside (:func:`set_aside_run`), removed at this run's first checkpoint
        self.replaced: Path | None = None
        announce(self.MODULE, cfg, self.run_dir, f"{self.describe()}, config "
                 f"{catalogue.config_digest(self.game_name, self.game_config)}, seed {cfg.seed}", self.start)
        if cfg.torch_threads > 0:
            torch.set_num_threads(cfg.torch_threads)
        random.seed(cfg.seed)
        np.random.seed(cfg.seed % (2**32))
        torch.manual_seed(cfg.seed)
        self.game = Game(self.game_name, **self.game_config)
        self.P = self.game.num_players
        self.count: dict[str, int] = {name: 0 for name in self.COUNTERS}
        self.wall_time = 0.0
        self.rows: list[dict[str, Any]] = []
        self.last_eval: dict[str, float] = {}
        self.eval_agents, self.skipped = usable_agents(cfg.eval_opponents, self.game)
        for name in ("imitation_teacher", "imitation_opponent", "imitation_player") if cfg.imitation_games else ():
            if getattr(cfg, name):  # built by the teacher games: after the folder is written
                self.check_agent(name)
        self.resumed: dict[str, Any] | None = None  # the checkpoint to resume, read and checked before any work
        #: what a warm start stopped before its end saved (:data:`WARM_START_PARTIAL`), to go on from
        self.warm_partial: dict[str, Any] | None = None
        #: the signals that stop :meth:`run` (set while it runs), and when its warm start began
        self.stop_request: StopRequest | None = None
        self.warm_t0 = time.perf_counter()
        #: the warm start's teacher games once played, and the results of its later parts so far (train_az: the
        #: children's labels), which every save of :data:`WARM_START_PARTIAL` holds; and when the next save is due
        self.warm_games: list[GamesSoFar] = []
        self.warm_stages: dict[str, Any] = {}
        self.warm_next_save = time.monotonic() + WARM_START_SAVE_EVERY_S
        #: the global RNGs of the saved warm start, restored where its work goes on (:meth:`restore_warm_rng`)
        self.warm_rng: list[dict[str, Any]] = []
        if cfg.resume:
            path = self.run_dir / self.resume_file()
            self.resumed = read_checkpoint(path, mmap=True)
            self.check_resume(self.resumed, path)

    def resume_file(self) -> str:
        """What ``--resume`` goes on from: ``checkpoint.pt``, or :data:`WARM_START_PARTIAL` where the run was stopped
        during its warm start (and has no checkpoint yet)."""
        if not (self.run_dir / "checkpoint.pt").exists() and (self.run_dir / WARM_START_PARTIAL).exists():
            return WARM_START_PARTIAL
        return "checkpoint.pt"

    # -- what a trainer writes ------------------------------------------------------
    def step(self) -> dict[str, Any]:
        """One update or iteration; advances ``self.count``; the row's metrics (without counters)."""
        raise NotImplementedError

    def play_evaluation(self, spec: str, games: int, seed: int) -> dict[str, float]:
        """``games`` evaluation games against the agent ``spec``; its win-rate columns."""
        raise NotImplementedError

    def warm_start(self) -> dict[str, Any]:
        """The imitation warm start; its metrics (for the first row)."""
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """The trainer's part of the checkpoint."""
        raise NotImplementedError

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore the trainer's part of the checkpoint ``d``."""
        raise NotImplementedError

    def save_model(self) -> Path:
        """The trainer's model file (written with every checkpoint)."""
        raise NotImplementedError

    def columns(self) -> list[str]:
        """The CSV columns after the counters and the wall time."""
        raise NotImplementedError

    def evaluated(self) -> None:
        """Called after each evaluation (``self.last_eval`` holds it)."""

    def row_extra(self) -> dict[str, Any]:
        """Columns every row gets beside the counters (e.g. the pool's size)."""
        return {}

    # -- the shared part ------------------------------------------------------------
    @property
    def total(self) -> int:
        """Updates or iterations the run plans."""
        raise NotImplementedError

    def describe(self) -> str:
        """``octa-nl-2p``: the variant and seats of the run."""
        return catalogue.describe(self.game_name, self.game_config)

    def game_record(self) -> dict[str, Any]:
        """The game of the run, for its files: name, variant, every config field, digest."""
        return {"name": self.game_name, "variant": self.describe(), "config": dict(self.game_config),
                "digest": catalogue.config_digest(self.game_name, self.game_config)}

    def say(self, message: str) -> None:
        """A line of progress on stdout (above the progress bar when there is one)."""
        if self.bar is not None:
            self.bar.write(message)
        else:
            print(message, flush=True)

    def teacher_data(self) -> TeacherData:
        """The warm start's teacher games (the ``imitation_*`` settings).

        While :meth:`run` runs, the games so far are saved in :data:`WARM_START_PARTIAL` every
        :data:`WARM_START_SAVE_EVERY_S` seconds or so (at their end too, when due) and at a stop request (then
        :class:`WarmStartStopped` is raised); a resume goes on from them, with the teacher's generator and the
        global RNGs as they were, so it gets the data of a run never stopped.
        """
        cfg = self.cfg
        seed = cfg.seed * 104729 + 17
        wild = int(round(cfg.imitation_random_share * cfg.imitation_games))
        plan = [(n, start, epsilon) for n, start, epsilon in ((cfg.imitation_games - wild, 0, cfg.imitation_epsilon),
                                                              (wild, cfg.imitation_games - wild, 1.0))
                if n > 0 or start == 0]
        saved = self.warm_partial["parts"] if self.warm_partial else []
        parts: list[GamesSoFar] = []
        checkpoint = self.warm_checkpoint(lambda so_far: ([*parts, so_far], {}))
        for j, (n, start, epsilon) in enumerate(plan):
            done = None
            if j < len(saved):
                d = dict(saved[j]["data"])
                d["records"] = d["records"].numpy().reshape(-1).view(self.game.dtype)
                done = GamesSoFar(TeacherData(**d), saved[j]["rng_state"])
            data = teacher_games(self.game, cfg.imitation_teacher, n, seed=seed + start, epsilon=epsilon,
                                 opponent=cfg.imitation_opponent, workers=cfg.imitation_workers, progress=cfg.progress,
                                 player=cfg.imitation_player if epsilon < 1.0 else "", done=done,
                                 checkpoint=checkpoint, before_play=self.restore_warm_rng)
            if data.games < n:
                raise WarmStartStopped(f"after {sum(p.data.games for p in parts) + data.games} of "
                                       f"{cfg.imitation_games} teacher games")
            parts.append(GamesSoFar(data, None))
        whole = parts[0].data if len(parts) == 1 else TeacherData.concatenate([p.data for p in parts])
        bounds = np.cumsum([0, *(len(p.data) for p in parts)])  # the parts as views of the whole: one copy kept
        self.warm_games = [GamesSoFar(TeacherData(*(getattr(whole, f)[a:b] for f in ("records", "seats", "actions",
                                                                                      "outcomes")), p.data.games),
                                      None) for p, a, b in zip(parts, bounds, bounds[1:])]
        if not self.warm_partial or not self.warm_partial["stages"]:  # stopped in the games or right after them
            self.restore_warm_rng()
            if checkpoint is not None:  # saved when due or at a stop (a later part's save holds them already)
                self.warm_checkpoint(lambda _: (self.warm_games, {}))(cfg.imitation_games, lambda: None)
        if checkpoint is not None and self.stop_request.signal is not None:
            raise WarmStartStopped(f"after its {cfg.imitation_games} teacher games")
        return whole

    def warm_checkpoint(self, save: Callable[[Any], tuple[Any, ...]]) -> Checkpoint | None:
        """The ``checkpoint`` of a part of the warm start (:func:`~octagames.agents.learn.imitation.teacher_games`,
        :func:`~octagames.agents.learn.imitation.rollout_outcomes`, ...) while :meth:`run` runs (else None): every
        :data:`WARM_START_SAVE_EVERY_S` seconds or so, and at a stop request, it saves ``save(so_far())``: the
        arguments of :meth:`save_warm_start`, its teacher games, later parts and global RNGs; it returns whether a
        stop was asked."""
        if self.stop_request is None:
            return None

        def checkpoint(done: int, so_far: Callable[[], Any]) -> bool:
            stop = self.stop_request is not None and self.stop_request.signal is not None
            if stop or time.monotonic() >= self.warm_next_save:
                t0 = time.perf_counter()
                self.save_warm_start(*save(so_far()))
                took = time.perf_counter() - t0  # the joining of the records so far, and the writing
                self.warm_next_save = time.monotonic() + max(WARM_START_SAVE_EVERY_S, took / WARM_START_SAVE_SHARE)
            return stop

        return checkpoint

    def warm_stage(self, name: str) -> Any:
        """What the saved warm start being resumed holds of its later part ``name`` (None: nothing)."""
        return (self.warm_partial or {}).get("stages", {}).get(name)

    def restore_warm_rng(self) -> None:
        """Set the global RNGs as the stopped run's save left them, once: right before the warm start's work
        goes on where that run stopped (its next teacher game, or the later part it stopped in)."""
        if self.warm_rng:
            set_rng_state(self.warm_rng.pop())

    def warm_seconds(self) -> float:
        """Seconds of the warm start so far, in every process of the run (a resumed one goes on from the stopped
        one's last save)."""
        return self.wall_time + time.perf_counter() - self.warm_t0

    def warm_partial_games(self) -> int:
        """The teacher games of :attr:`warm_partial` (0 without one)."""
        return sum(int(p["data"]["games"]) for p in self.warm_partial["parts"]) if self.warm_partial else 0

    def save_warm_start(self, parts: list[GamesSoFar], stages: dict[str, Any] | None = None,
                        rng: dict[str, Any] | None = None) -> Path:
        """Write :data:`WARM_START_PARTIAL` (atomically): the teacher games so far (``parts``: one per
        :meth:`teacher_data` call of :func:`teacher_games`), the later parts' results so far (``stages``, plain
        data), the global RNGs (``rng``, by default as they are), the wall time, and :meth:`run_header`."""
        path = self.run_dir / WARM_START_PARTIAL

        def data(d: TeacherData) -> dict[str, Any]:  # the records as bytes: a tensor saves 3 times faster
            raw = np.ascontiguousarray(d.records).view(np.uint8).reshape(len(d.records), self.game.dtype.itemsize)
            return {"records": torch.from_numpy(raw), "seats": d.seats, "actions": d.actions, "outcomes": d.outcomes,
                    "games": d.games}

        return save_whole({**self.run_header(), "warm_start": {
            "parts": [{"data": data(p.data), "rng_state": p.rng_state} for p in parts], "stages": stages or {},
            "rng": rng or rng_state(), "wall_time": self.warm_seconds()}}, path)

    def evaluate(self) -> dict[str, float]:
        """Every opponent's evaluation games (seeds from the run's seed, the step and the opponent)."""
        cfg, done = self.cfg, self.count[self.COUNTERS[0]]
        games = cfg.games_per_evaluation()
        start = time.perf_counter()
        out: dict[str, float] = {}
        for j, spec in enumerate(self.eval_agents):
            out.update(self.play_evaluation(spec, games, seed=cfg.seed * 1_000_003 + 7919 * done + 101 * j))
        out["eval_seconds"] = time.perf_counter() - start
        if self.bar is None and self.eval_agents:
            rates = ", ".join(f"{k.removeprefix('win_rate_').replace('_', ' ')} {v:.2f}" for k, v in out.items()
                              if k.startswith("win_rate"))
            self.say(f"  {self.COUNTERS[0]} {done}/{self.total}: {rates} ({games} games each, "
                     f"{out['eval_seconds']:.0f} s)")
        return out

    def row(self, extra: dict[str, Any]) -> dict[str, Any]:
        """A metrics row: the counters, the wall time, :meth:`row_extra` and ``extra``."""
        return {**self.count, "wall_time": self.wall_time, **self.row_extra(), **extra}

    def run_header(self) -> dict[str, Any]:
        """What a checkpoint (or a warm start's partial) says of its run, which :meth:`check_resume` compares: the
        format, the settings, the game and :meth:`runtime`."""
        return {"format": self.FORMAT, "config": dataclasses.asdict(self.cfg), "game": self.game_record(),
                "runtime": self.runtime()}

    def checkpoint_dict(self) -> dict[str, Any]:
        """Everything needed to resume exactly."""
        return {**self.run_header(), **self.state_dict(), "rng": rng_state(),
                "counters": {**self.count, "wall_time": self.wall_time}, "rows": self.rows, "last_eval": self.last_eval}

    def runtime(self) -> dict[str, Any]:
        """What the settings resolved to on this machine and change the results: the device type and torch's
        CPU threads (``torch_threads`` 0 is torch's default, the machine's)."""
        return {"device": self.device.type, "torch_threads": torch.get_num_threads()}

    def save_checkpoint(self) -> Path:
        """Write ``checkpoint.pt`` atomically and the model file beside it."""
        path = save_whole(sign_pickles(self.checkpoint_dict()), self.run_dir / "checkpoint.pt")
        self.save_model()
        (self.run_dir / WARM_START_PARTIAL).unlink(missing_ok=True)  # the checkpoint holds the warm start now
        if self.replaced is not None:  # what --overwrite set aside: this run can go on from here now
            shutil.rmtree(self.replaced, ignore_errors=True)
            self.replaced = None
        return path

    def resume_changes(self, d: dict[str, Any]) -> list[tuple[str, str]]:
        """What the asked settings change in the run of checkpoint ``d``: one ``("<field> <the run's> in the
        run, <asked> asked", "<the options that give the run's value>")`` per field outside
        :attr:`RunConfig.RESUMABLE` (and per budget field that the run's schedule reads), the game, the device
        type and torch's resolved threads."""
        cfg = self.cfg
        asked = dataclasses.asdict(cfg)
        defaults = dataclasses.asdict(type(cfg)())
        saved = {**defaults, **upgrade_config(d["config"])}  # a field added since reads as its default

        def norm(v: Any) -> Any:
            return tuple(norm(x) for x in v) if isinstance(v, (list, tuple)) else v

        def show(v: Any) -> str:
            return " ".join(map(str, v)) if isinstance(v, (list, tuple)) else repr(v) if isinstance(v, str) else str(v)

        changes = []
        game, now = d["game"], self.game_record()
        if game["digest"] != now["digest"]:
            try:
                fits = fitting_options(game["name"], recorded_config(game["name"], game["config"]), players=True)
            except (KeyError, TypeError, ValueError):  # a game this version no longer knows
                fits = ""
            changes.append((f"game {game['variant']} (config {game['digest']}) in the run, {now['variant']} "
                            f"(config {now['digest']}) asked", fits))
        schedule = cfg.schedule_budget()
        for f in asked:
            if f in GAME_FIELDS or f == "torch_threads" or (f in cfg.RESUMABLE and f not in schedule) \
                    or norm(saved[f]) == norm(asked[f]):
                continue
            changes.append((f"{f} (--{f.replace('_', '-')}) {show(saved[f])} in the run, {show(asked[f])} asked"
                            + (f" ({schedule[f]})" if f in schedule else ""), option(f, saved[f])))
        runtime, mine = d.get("runtime", {}), self.runtime()  # checkpoints before 2026-12 hold none
        if runtime.get("device", mine["device"]) != mine["device"]:
            changes.append((f"device {runtime['device']} in the run, {mine['device']} now (--device {cfg.device})",
                            f"--device {runtime['device']}"))
        # the threads torch computes with: 0 is torch's default, the machine's (recorded since 2026-12)
        was, ask = saved["torch_threads"], asked["torch_threads"]
        ran = runtime.get("torch_threads", was or None)
        if (ran is None and was != ask) or (ran is not None and ran != mine["torch_threads"]):
            changes.append((f"torch_threads (--torch-threads) {was} in the run"
                            + (f" ({ran}: torch's default there)" if not was and ran else "")
                            + f", {ask} asked"
                            + (f" ({mine['torch_threads']}: torch's default here)" if not ask else ""),
                            f"--torch-threads {ran or was}"))
        return changes

    def check_resume(self, d: dict[str, Any], path: Path) -> None:
        """Refuse a checkpoint of another format, or settings that change what the run computes (before any
        file of the run is touched and before torch's size-mismatch text).

        Raises:
            ValueError: one line naming each changed field, the run's value and the asked one, and how to go on.
        """
        if d.get("format") != self.FORMAT:
            raise ValueError(f"{path} is a {d.get('format')!r} checkpoint; this version resumes {self.FORMAT!r} "
                             "(start the run again with --overwrite)")
        changes = self.resume_changes(d)
        if changes:
            allowed = ", ".join(f"--{f.replace('_', '-')}" for f in self.cfg.RESUMABLE
                                if f not in ("run_dir", "resume", "overwrite", "device"))
            flags = " ".join(flag for _, flag in changes if flag)
            raise ValueError(f"--resume: {path.parent} is a run of {d['game']['variant']} with other settings: "
                             f"{'; '.join(text for text, _ in changes)}. They change what the run computes or "
                             f"records: to continue it, give the run's values ({flags}; a setting left out takes "
                             "its default, not the run's); to train with them, start a new run in another --run-dir "
                             "(or replace this one with --overwrite). A resume may change only "
                             f"{allowed}, and --device where it resolves to the run's (cpu or cuda).")

    def checkpoint_damage(self, d: dict[str, Any]) -> str | None:
        """What is missing or of another type in checkpoint ``d`` among what every trainer's resume reads (its
        counters, rows, last evaluation and RNG state): a phrase for the refusal, or ``None`` when all is there."""
        counters = d.get("counters")
        if not isinstance(counters, dict):
            return _not_a(d, "counters", "a dict")
        for name in ("wall_time", *self.COUNTERS):
            value = counters.get(name)
            if not _is_number(value):
                return f"'counters' has {'no ' + repr(name) if value is None else f'{name!r}: {value!r}'}, not a number"
        rows = d.get("rows")
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            return _not_a(d, "rows", "a list of dicts")
        return next((_not_a(d, name, "a dict") for name in ("last_eval", "rng") if not isinstance(d.get(name), dict)),
                    None)

    @staticmethod
    def warm_start_damage(w: Any) -> str | None:
        """What is missing or of another type in the ``warm_start`` of a :data:`WARM_START_PARTIAL` file among what a
        resume reads (:meth:`save_warm_start`'s fields): a phrase for the refusal, or ``None`` when all is there."""
        if not isinstance(w, dict):
            return f"'warm_start' is {type(w).__name__}, not a dict"
        if not _is_number(w.get("wall_time")):
            return _not_a(w, "wall_time", "a number")
        for name in ("rng", "stages"):
            if not isinstance(w.get(name), dict):
                return _not_a(w, name, "a dict")
        parts = w.get("parts")
        fields = ("records", "seats", "actions", "outcomes", "games")
        if not isinstance(parts, list) or not all(isinstance(p, dict) and "rng_state" in p and isinstance(
                p.get("data"), dict) and all(f in p["data"] for f in fields) for p in parts):
            return f"'parts' is not a list of teacher games ({', '.join(fields)}) with their generator's state"
        return None

    def load_checkpoint(self, path: Path) -> None:
        """Restore :meth:`checkpoint_dict` from ``path`` (the one checked at the start when it is that run's).

        Raises:
            ValueError: ``path`` is refused (:func:`read_checkpoint`, :meth:`check_resume`), or is a damaged
                checkpoint (:meth:`checkpoint_damage`: refused before anything of this trainer is restored).
        """
        d, self.resumed = self.resumed, None
        if d is None or path != self.run_dir / "checkpoint.pt":
            d = read_checkpoint(path, mmap=True)
            self.check_resume(d, path)
        if (damage := self.checkpoint_damage(d)) is not None:
            raise damaged_checkpoint(path, damage)
        check_signed(d, path)  # before anything in it is unpickled
        self.load_state_dict(d)
        set_rng_state(d["rng"])
        counters = dict(d["counters"])
        self.wall_time = counters.pop("wall_time")
        self.count = {name: counters[name] for name in self.COUNTERS}
        self.rows, self.last_eval = list(d["rows"]), dict(d["last_eval"])

    def write_config(self) -> None:
        """``config.json`` of a new run: its settings, its game's full config, the device and torch threads they
        resolved to, its command and the code that runs it (:func:`~octagames.experiments.cli.code_version`)."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        data = {"config": dataclasses.asdict(self.cfg), "game": self.game_record(), "device": str(self.device),
                "torch_threads": torch.get_num_threads(), "command": command_text(self.cfg, self.MODULE),
                "code": code_version()}
        (self.run_dir / "config.json").write_text(json.dumps(data, indent=1, default=str))

    def record_resume(self) -> None:
        """Append this resume to ``config.json``'s ``resumes``: its command, the counters it resumed at, its
        device and torch threads, the UTC time and its code (which a resume may change: the checkpoint's
        settings are compared, not the code). The run's config and first command stay as written."""
        path = self.run_dir / "config.json"
        data = read_run_config(path) if path.exists() else {
            "config": dataclasses.asdict(self.cfg), "game": self.game_record(),
            "command": "(config.json was missing at a resume; these are the resume's settings)"}
        if not isinstance(data.setdefault("resumes", []), list):
            raise ValueError(f"{path} is damaged: its 'resumes' is {type(data['resumes']).__name__}, not a list")
        data["resumes"].append({
            "command": command_text(self.cfg, self.MODULE),
            "resumed_at": {**self.count, **({"teacher_games": self.warm_partial_games()} if self.warm_partial else {})},
            "device": str(self.device), "torch_threads": torch.get_num_threads(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "code": code_version()})
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1, default=str))
        os.replace(tmp, path)

    def write_metrics(self) -> None:
        """``metrics.csv`` and ``metrics.json``."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        write_rows(self.run_dir / "metrics.csv", self.rows, [*self.COUNTERS, "wall_time", *self.columns()])
        data = {"config": dataclasses.asdict(self.cfg), "game": self.game_record(), "game_config": self.game_config,
                "device": str(self.device), "eval_opponents": self.eval_agents,
                "skipped_opponents": self.skipped, "rows": self.rows}
        (self.run_dir / "metrics.json").write_text(json.dumps(data, indent=1, default=float))

    def plot(self) -> Path:
        """``curves.png``."""
        return plot_curves(self.rows, self.eval_agents, self.run_dir / "curves.png",
                           title=f"{self.cfg.KIND.upper()} {self.describe()} (seed {self.cfg.seed})", **self.PLOT)

    def _progress(self, row: dict[str, Any]) -> None:
        if self.bar is None:
            return
        post = {self.SPEED[0].split("_per_")[0][:1] + "ps": f"{row[self.SPEED[0]]:.0f}"}
        if "loss" in row:
            post["loss"] = f"{row['loss']:.3f}"
        post.update({k.removeprefix("win_rate_"): f"{v:.2f}" for k, v in self.last_eval.items()
                     if k.startswith("win_rate")})
        self.bar.set_postfix(post)
        self.bar.update(1)

    def run(self) -> dict[str, Any]:
        """Train (or resume) until the planned updates or the time budget; returns paths and metrics.

        Ctrl-C or SIGTERM (in the main thread) stops the run after the update under way, with a checkpoint
        and the metrics written, so ``--resume`` goes on exactly as an uninterrupted run (no evaluation is
        added at the stop); a second Ctrl-C stops at once (``KeyboardInterrupt``). The result then has
        ``stopped_by`` (``"SIGINT"`` or ``"SIGTERM"``). A stop during the warm start saves what it has done
        in :data:`WARM_START_PARTIAL` instead (:class:`WarmStartStopped`): no row, checkpoint or model file
        yet, ``rows`` empty and ``checkpoint`` that file.
        """
        stop = StopRequest()
        stop.install()
        self.stop_request = stop
        try:
            return self._run(stop)
        finally:
            stop.uninstall()
            self.stop_request = None
            self.release()

    def check_agent(self, field: str) -> None:
        """Build the agent that the config's ``field`` names, so that a bad spec is refused before the run writes
        its folder, naming the field (the run builds its own later).

        Raises:
            ValueError: ``field: <why the registry refused the spec>``.
        """
        agent = make_agent(getattr(self.cfg, field), self.game, field=field)
        self.checked_agents.append(agent)  # kept until the warm start ends: a cfr:N built again shares its table

    def release(self) -> None:
        """Give back the run folder's lock (:func:`lock_run_dir`): :meth:`run` does when it ends (again: nothing)."""
        if self.lock is not None:
            self.lock.release()

    def _run(self, stop: StopRequest) -> dict[str, Any]:
        cfg, counter = self.cfg, self.COUNTERS[0]
        t_start = time.perf_counter()
        ckpt = self.run_dir / "checkpoint.pt"
        if cfg.resume and self.resumed is not None and "warm_start" in self.resumed:  # stopped in its warm start
            if (damage := self.warm_start_damage(self.resumed["warm_start"])) is not None:
                raise damaged_checkpoint(self.run_dir / WARM_START_PARTIAL, damage)
            self.warm_partial, self.resumed = self.resumed["warm_start"], None
            self.wall_time = float(self.warm_partial["wall_time"])
            self.warm_rng = [self.warm_partial["rng"]]
            if (self.run_dir / REPLACED).is_dir():  # set aside by this run's --overwrite: until its first checkpoint
                self.replaced = self.run_dir / REPLACED
            self.record_resume()
            print(f"  going on from {self.warm_partial_games()} of {cfg.imitation_games} teacher games "
                  f"({WARM_START_PARTIAL})", flush=True)
        elif cfg.resume:
            self.load_checkpoint(ckpt)
            self.record_resume()
            self.write_metrics()
        else:
            if self.start == "replacing the run there":  # kept aside until this run's first checkpoint
                self.replaced = set_aside_run(self.run_dir, self.OUTPUTS)
                print(f"  the run replaced waits in {self.replaced} until this run's first checkpoint", flush=True)
            self.write_config()
        if cfg.progress:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=self.total, initial=self.count[counter], desc=f"{cfg.KIND} {self.describe()}",
                            unit=counter, file=sys.stderr)
        if self.count[counter] == 0 and not self.rows:
            extra: dict[str, Any] = {}
            if cfg.imitation_games > 0:
                self.warm_t0 = time.perf_counter()
                try:
                    extra = self.warm_start()
                except WarmStartStopped as e:  # what it has done is saved in WARM_START_PARTIAL
                    print(f"{stop.signal}: stopped in the warm start {e}; --resume goes on from there", flush=True)
                    if self.bar is not None:
                        self.bar.close()
                        self.bar = None
                    return {"run_dir": str(self.run_dir), "checkpoint": str(self.run_dir / WARM_START_PARTIAL),
                            "curves": None, "rows": [], "final_eval": {}, "skipped_opponents": self.skipped,
                            "seconds": time.perf_counter() - t_start, "stopped_by": stop.signal}
                self.wall_time += time.perf_counter() - self.warm_t0
                self.warm_partial, self.warm_games, self.warm_stages = None, [], {}  # in the buffer now
            self.last_eval = self.evaluate()
            self.evaluated()
            self.rows.append(self.row({**extra, **self.last_eval}))
            if cfg.imitation_games > 0:  # a warm start may take hours: a kill before the first checkpoint keeps it
                self.save_checkpoint()
                self.write_metrics()
        self.checked_agents = []  # built to check their specs, shared by the warm start (if any): done with
        while self.count[counter] < self.total and not stop.signal:
            if cfg.time_budget_s > 0 and self.wall_time >= cfg.time_budget_s:
                break
            t0, work = time.perf_counter(), self.count[self.SPEED[1]]
            stats = self.step()
            dt = time.perf_counter() - t0
            self.wall_time += dt
            row = self.row({self.SPEED[0]: (self.count[self.SPEED[1]] - work) / dt, **stats})
            done = self.count[counter]
            last = done == self.total or (cfg.time_budget_s > 0 and self.wall_time >= cfg.time_budget_s)
            if (cfg.eval_every > 0 and done % cfg.eval_every == 0) or last:
                self.last_eval = self.evaluate()
                self.evaluated()
                row.update(self.last_eval)
            self.rows.append(row)
            self._progress(row)
            if done % cfg.checkpoint_every == 0 or last:
                self.save_checkpoint()
                self.write_metrics()
            if cfg.stop_after and done >= cfg.stop_after:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(3)  # simulate a kill: no cleanup, nothing written beyond the last checkpoint
        if stop.signal:  # after the update under way, or after the warm start
            print(f"{stop.signal}: stopped at {counter} {self.count[counter]}; --resume goes on from there", flush=True)
        budget_out = (not stop.signal and self.count[counter] < self.total and cfg.time_budget_s > 0
                      and self.wall_time >= cfg.time_budget_s)
        if budget_out:
            self.say(f"time budget: stopped at {counter} {self.count[counter]} of {self.total}, the run's wall time "
                     f"{self.wall_time:.1f} s having reached --time-budget-s {cfg.time_budget_s:g} (resumes "
                     "included); --resume with a larger --time-budget-s (or 0) goes on from there")
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if not stop.signal and self.rows and not any(k.startswith("win_rate") for k in self.rows[-1]):
            self.last_eval = self.evaluate()  # stopped between evaluations (or nothing left to do)
            self.evaluated()
            self.rows[-1].update(self.last_eval)
        self.save_checkpoint()
        self.write_metrics()
        png = self.plot()
        return {"run_dir": str(self.run_dir), "checkpoint": str(ckpt), "curves": str(png), "rows": self.rows,
                "final_eval": self.last_eval, "skipped_opponents": self.skipped,
                "seconds": time.perf_counter() - t_start,
                **({"stopped_by": stop.signal} if stop.signal else {"stopped_by": "time_budget_s"} if budget_out
                   else {})}


def exit_if_stopped(result: Mapping[str, Any]) -> None:
    """End a command-line run that a signal stopped (``stopped_by``) with the shell's status for it, 130 for Ctrl-C
    and 143 for SIGTERM, once its results are written and printed: ``train && evaluate`` does not go on with a
    model cut short (it ended with status 0 until 2026-12-07, review). A run that ended, or met its time budget,
    returns (status 0)."""
    stopped = result.get("stopped_by")
    if stopped in ("SIGINT", "SIGTERM"):
        raise SystemExit(128 + signal.Signals[stopped].value)


class WarmStartStopped(Exception):
    """A stop request during the warm start's teacher games (or right after them) or train_az's labels, rollout
    values or gradient steps: what they have done is saved in :data:`WARM_START_PARTIAL` and the run ends there; the
    message says where."""


class StopRequest:
    """Ctrl-C (SIGINT) or SIGTERM while a trainer runs: noted, so the loop stops after the update under way
    with a checkpoint (in the warm start, after its game, label, value or step under way, or the block of them
    that worker processes play, with :data:`WARM_START_PARTIAL`); a second Ctrl-C raises ``KeyboardInterrupt``
    at once. Installed in the main thread only (Python delivers signals there); elsewhere it is inert."""

    def __init__(self, after: str = "the update (or the warm start's game, label, rollout value or step; with worker "
                                       "processes, their block) under way") -> None:
        self.signal: str | None = None
        self.after = after  # what the stop waits for, as its message says
        self._before: dict[int, Any] = {}

    def install(self) -> None:
        """Take SIGINT and SIGTERM (main thread only)."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._before[sig] = signal.signal(sig, self._handle)

    def uninstall(self) -> None:
        """Give the signals back to the handlers they had."""
        for sig, handler in self._before.items():
            signal.signal(sig, handler)
        self._before.clear()

    def _handle(self, signum: int, frame: Any) -> None:
        if self.signal is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt  # asked twice: at once
        self.signal = signal.Signals(signum).name
        print(f"\n{self.signal}: stopping after {self.after}, with a checkpoint (Ctrl-C again: at once)",
              file=sys.stderr, flush=True)


def plot_curves(rows: list[dict[str, Any]], opponents: list[str], path: Path, title: str = "",
                x: tuple[str, str] = ("env_steps", "env steps"),
                losses: tuple[str, ...] = ("pg_loss", "v_loss", "entropy"),
                rate_keys: tuple[str, ...] = ("win_rate_vs_{}",)) -> Path:
    """Win rate vs each baseline and the losses, over ``x`` (env steps) and over wall time (PNG).

    Args:
        rows: the metrics rows.
        opponents: the evaluation opponents' specs.
        path: the PNG to write.
        title: the figure's title.
        x: the column of the first x axis and its label.
        losses: the loss columns of the lower plots.
        rate_keys: column patterns of the win rates (``{}``: the opponent's spec); each
            pattern after the first is drawn dashed.

    Returns:
        ``path``.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import EngFormatter

    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    for col, xkey, xlabel in ((0, *x), (1, "wall_time", "wall time (s)")):
        ax = axes[0, col]
        for k, pattern in enumerate(rate_keys):
            for spec in opponents:
                key = pattern.format(spec)
                pts = [(r[xkey], r[key]) for r in rows if key in r and xkey in r]
                if pts:
                    xs, ys = zip(*pts)
                    label = key.replace("win_rate_", "").replace("_", " ")
                    ax.plot(xs, ys, marker="o", ls="-" if k == 0 else "--", label=label)
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_ylim(0, 1)
        ax.set_xlabel(xlabel)
        if col == 0:  # step counts as 200k, 1M: full numbers run into each other
            for row in (0, 1):
                axes[row, col].xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.set_ylabel("win rate (draw = 1/2)")
        if ax.get_legend_handles_labels()[0]:  # no evaluation opponents: nothing to label
            ax.legend(loc="lower right")
        ax.grid(alpha=0.3)
        ax = axes[1, col]
        for key in losses:
            pts = [(r[xkey], r[key]) for r in rows if key in r]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, label=key)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("loss / entropy")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right")
        ax.grid(alpha=0.3)
    return save_figure(fig, path, title)


def save_figure(fig: Any, path: Path, title: str) -> Path:
    """Title, lay out, write (PNG at 90 dpi, its folder made) and close a figure of a run's curves; ``path``."""
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def print_result(result: dict[str, Any], lines: Callable[[dict[str, Any]], Sequence[str]]) -> None:
    """A trainer's last lines: the run folder, ``lines(result)`` (its own figures, from the last row; none for a
    run stopped in its warm start, which has no row yet) and the skipped opponents."""
    print(f"run_dir: {result['run_dir']}")
    for line in lines(result) if result["rows"] else ():
        print(line)
    for k, v in result["skipped_opponents"].items():
        print(f"skipped opponent {k}: {v}")
