"""Work on Ray: arena games as Ray tasks, self-play workers as Ray actors.

The only module of octagames that imports Ray, and only when a function here is
called: without the ``distributed`` extra everything else works as before, and
asking for Ray says which extra to install.

* :class:`RayGames` plays arena games (``arena.play_games``) as Ray tasks in
  chunks. A game's result depends only on its seat line-up and seed (every agent
  is reset with a seed drawn from the game's seed, and plays with torch on one thread:
  :func:`~octagames.agents.arena.torch_on_one_thread`), so the results equal the
  single-process run's for the same seeds, whatever the chunking and the number
  of workers. A task whose worker dies is retried (``max_retries``); results are
  keyed by game, so a retried chunk is never counted twice.
* :class:`SelfPlayActors` runs the search-and-learning trainer's
  :class:`~octagames.agents.learn.az_selfplay.SelfPlayWorker` in Ray actors: each
  iteration the learner's weights go into the object store once, every actor
  sets them and plays its share of the iteration's samples, and the samples come
  back through the object store. The iteration is synchronous, so every sample
  was played with the current weights (policy lag 0); one actor with the
  single-process worker's seed reproduces the single-process run. An actor that
  dies is restarted by Ray (``max_restarts``) and its call retried: the games it
  had in progress are lost (never half-counted), and the retried call returns
  samples of whole games only. With ``device="cuda"`` every actor runs its network on
  the cluster's GPUs (Ray gives each a share of one, :func:`actor_resources`) while its
  search runs on its CPU: on a machine with many cores and one GPU, many searches feed
  the GPU at once, where one worker's search leaves it mostly idle.

Start a private local instance with :func:`connect` (``address=None``: never a cluster that
``ray start`` runs on this machine, nor ``RAY_ADDRESS``'s), or join a cluster (``ray start --head``
on one machine, ``ray start --address=<head>:6379`` on the others, then ``address="auto"`` on the
head). Ray keeps work that asks for more CPUs than the cluster has waiting forever, without a word:
the actors and tasks here are refused at once instead (:func:`require_cpus`).
"""

from __future__ import annotations

import copy
import math
import os
import re
import socket
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from octagames.agents.arena import Job, play_game, record_game
from octagames.core import Game
from octagames.records import GameRecord

EXTRA_HINT = "pip install 'octagames[distributed]' (ray[default]==2.60.0)"


def require_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ImportError: Ray is not installed; the message names the extra.
    """
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"running on Ray needs the distributed extra: {EXTRA_HINT}") from e
    return ray


#: the forms of a Ray address that :func:`check_address` accepts, for its messages
ADDRESS_FORMS = ("empty or local (a private local instance), auto (the cluster this machine belongs to: ray start), "
                 "<host>:<port> (a cluster's head, port 6379 by default) or ray://<host>:<port> (Ray Client, "
                 "port 10001 by default), with a port in 1..65535")
#: the seconds :func:`check_reachable` waits for an answer at a cluster's address
CONNECT_TIMEOUT_S = 10.0
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})")


def check_address(address: str | None, field: str = "ray_address") -> tuple[str, int] | None:
    """Check the form of a Ray address (what ``ray.init(address=...)`` accepts, :data:`ADDRESS_FORMS`),
    without Ray.

    Returns:
        ``(host, port)`` of a concrete address (``"<host>:<port>"``, ``"ray://<host>:<port>"``); None for
        ``None``, ``""``, ``"local"`` and ``"auto"``.

    Raises:
        ValueError: another form, or a port outside 1..65535; the message names ``field`` and the valid forms.
    """
    if not address or address in ("auto", "local"):
        return None
    match = _HOST_PORT.fullmatch(address.removeprefix("ray://"))
    if match is None or not 1 <= int(match[2]) <= 65535:
        raise ValueError(f"{field}={address!r} is not valid; valid forms: {ADDRESS_FORMS}")
    return match[1].strip("[]"), int(match[2])


def check_reachable(address: str | None, field: str = "ray_address", timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Check the form of a Ray address (:func:`check_address`) and, for a concrete one, that something answers
    there within ``timeout`` seconds (a TCP connection): Ray itself retries an address where nothing answers
    for many minutes, without a word.

    Raises:
        ValueError: a bad form; nothing answers at a concrete address (the message names ``field``).
    """
    where = check_address(address, field)
    if where is None:
        return
    try:
        socket.create_connection(where, timeout=timeout).close()
    except OSError as e:
        why = f"no answer within {timeout:g} s" if isinstance(e, TimeoutError) else e.strerror or str(e)
        raise ValueError(f"{field}={address!r}: nothing answers at {where[0]}:{where[1]} ({why}); start the "
                         "cluster there (ray start --head), give the address of its head, or leave ray_address "
                         "empty for a private local instance") from e


def connect(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Join a Ray cluster, or start a private local instance; returns the ``ray`` module.

    Args:
        address: ``None``, ``""`` or ``"local"`` for a private local instance on this machine (Ray's
            ``address="local"``: never a cluster that ``ray start`` runs here, nor ``RAY_ADDRESS``'s),
            ``"auto"`` for the cluster this machine belongs to (``ray start``), or
            ``"ray://<head>:10001"`` / ``"<head>:6379"``.
        num_cpus: CPUs of a local instance (``None``: all); ignored for a cluster.

    Raises:
        ValueError: an address of another form, one where nothing answers (:func:`check_reachable`), or
            ``"auto"`` without a cluster; each message names ``ray_address``.
    """
    check_address(address)
    ray = require_ray()
    if not ray.is_initialized():
        if address and address != "local":
            check_reachable(address)
            if address == "auto":  # Ray joins the cluster RAY_ADDRESS names, where set
                check_reachable(os.environ.get("RAY_ADDRESS"), "RAY_ADDRESS")
            try:
                ray.init(address=address, log_to_driver=False)
            except ConnectionError as e:  # auto without a cluster on this machine
                raise ValueError(f"ray_address={address!r}: {e} (ray start --head starts a cluster; an empty "
                                 "ray_address starts a private local instance)") from e
        else:
            # Ray starts its workers at niceness 15, below everything else on a shared machine; here
            # the workers do the run's work, so a local instance gives them the driver's priority
            os.environ.setdefault("RAY_worker_niceness", "0")
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return ray


def require_cpus(ray: Any, need: float, what: str, instead: str) -> None:
    """Refuse work that asks Ray for more CPUs than the cluster has: Ray would keep it waiting forever, silently.

    Args:
        ray: the connected ``ray`` module.
        need: the CPUs the work asks for at once.
        what: the setting that asks for them, e.g. ``"ray_actors=3"``.
        instead: what would fit this cluster, e.g. ``"give ray_actors=1 or fewer"``.

    Raises:
        ValueError: the cluster has fewer than ``need`` CPUs; the message names ``what``, the cluster, its CPUs,
            ``instead`` and a bigger cluster.
    """
    have = ray.cluster_resources().get("CPU", 0.0)
    if have < need:
        try:
            where = f"the Ray cluster at {ray.get_runtime_context().gcs_address}"
        except Exception:  # a Ray Client connection (ray://) may not tell it
            where = "the Ray cluster"
        raise ValueError(f"{what} needs {_cpus(need)}; {where} has {have:g}: {instead}, or use a Ray cluster "
                         f"with {_cpus(need)} or more (ray start --head --num-cpus {math.ceil(need)} starts one "
                         "on this machine)")


def _cpus(n: float) -> str:
    return f"{n:g} CPU" + ("" if n == 1 else "s")


def _require_actor_cpus(ray: Any, num_actors: int, cpus_each: float) -> None:
    fit = int(ray.cluster_resources().get("CPU", 0.0) // cpus_each)
    require_cpus(ray, num_actors * cpus_each, f"ray_actors={num_actors}",
                 f"give ray_actors={fit} or fewer" if fit else "give ray_actors=0 (the work in this process)")


# ------------------------------------------------------------------ arena games as tasks

def _play_chunk(game_name: str, config: dict[str, Any], chunk: Sequence[Job], record: bool,
                *agents: Any) -> list[tuple[int, list[float], int, dict[str, Any] | None]]:
    # runs in a Ray worker: the same play_game as the single-process arena. The agents (only those
    # the chunk's line-ups name, which index them) arrive as read-only views of the object store;
    # a deep copy gives them the writable buffers they keep.
    agents = copy.deepcopy(agents)
    game = Game(game_name, **config)
    out = []
    for key, lineup, seed in chunk:
        seats = [agents[i] for i in lineup]
        if record:  # the game's record, as JSON values (what the journal keeps)
            rec = record_game(game, seats, seed)
            out.append((key, list(rec.returns or []), rec.length, rec.to_dict()))
        else:
            rets, length = play_game(game, seats, seed)
            out.append((key, [float(r) for r in rets], int(length), None))
    return out


_REMOTE: dict[str, Any] = {}


def _remote_play_chunk(max_retries: int) -> Any:
    ray = require_ray()
    key = f"play_chunk:{max_retries}"
    if key not in _REMOTE:
        _REMOTE[key] = ray.remote(max_retries=max_retries, num_cpus=1)(_play_chunk)
    return _REMOTE[key]


@dataclass
class RayGames:
    """Plays arena games as Ray tasks (the ``executor`` of :func:`octagames.agents.arena.play_games`).

    Attributes:
        address: the cluster to join (see :func:`connect`); ``None``: a local instance.
        chunk_size: games per task (bigger chunks: less scheduling overhead, coarser progress).
        max_retries: times a task is retried when its worker dies.
        num_cpus: CPUs of a local instance (``None``: all).
    """

    #: :func:`octagames.agents.arena.play_games` asks for the games' records (``run(..., record=True)``)
    records_games: ClassVar[bool] = True

    address: str | None = None
    chunk_size: int = 8
    max_retries: int = 3
    num_cpus: int | None = None

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size={self.chunk_size} is not valid; it must be >= 1")
        if self.max_retries < 0:
            raise ValueError(f"max_retries={self.max_retries} is not valid; it must be >= 0")
        check_address(self.address)

    def run(self, game: Any, agents: Sequence[Any], jobs: Sequence[Job],
            done: Callable[..., None], record: bool = False) -> None:
        """Play ``jobs``; call ``done(key, returns, length)`` for every game, as chunks finish
        (``done(key, returns, length, record)`` with the game's :class:`GameRecord` when ``record``).

        Args:
            game: the :class:`~octagames.core.Game` (shipped by name and config).
            agents: the agents the line-ups index (each shipped once to the object store, one object given
                at several indices once; a task gets only those its games seat; every game resets them).
            jobs: the games to play.
            done: called once per game, in the order chunks finish.

        Raises:
            ValueError: a bad address (:func:`connect`); a cluster without a CPU (:func:`require_cpus`).
        """
        ray = connect(self.address, self.num_cpus)
        require_cpus(ray, 1, "a Ray task of games", "play the games in this process (without --ray)")
        play = _remote_play_chunk(self.max_retries)
        config = {f: getattr(game.config, f) for f in game.config.__dataclass_fields__}
        # one object each (a task fetches only its line-ups' agents), and one for an agent given at several
        # indices: it stays one object in the task, resetting and drawing as in this process (shipped once
        # per index, a seat's copy drew from its own seed where this process's shared object drew from the
        # last seat's: `evaluate --ray` played other games than `evaluate` with 3 seats; review, 2026-12-07)
        slots: dict[int, int] = {}
        index = [slots.setdefault(id(a), len(slots)) for a in agents]
        refs = [ray.put(a) for a in {id(a): a for a in agents}.values()]
        jobs = list(jobs)
        pending = []
        for i in range(0, len(jobs), self.chunk_size):
            chunk = jobs[i:i + self.chunk_size]
            used = sorted({index[a] for _, lineup, _ in chunk for a in lineup})
            local = {u: k for k, u in enumerate(used)}
            chunk = [(key, [local[index[a]] for a in lineup], seed) for key, lineup, seed in chunk]
            pending.append(play.remote(game.name, config, chunk, record, *(refs[a] for a in used)))
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for key, rets, length, rec in ray.get(ready[0]):
                if record:
                    done(key, np.asarray(rets, dtype=np.float64), length, GameRecord.from_dict(rec))
                else:
                    done(key, np.asarray(rets, dtype=np.float64), length)


# ------------------------------------------------------------------ self-play actors


class _SelfPlayActor:
    """A :class:`SelfPlayWorker` inside a Ray actor; ``play`` sets the weights first, so a
    restarted actor (which lost them) plays the retried call with the right ones."""

    def __init__(self, game: str, game_config: dict[str, Any], worker_config: Any, net_spec: dict[str, Any],
                 seed: int, torch_threads: int, device: str = "cpu") -> None:
        import torch

        from octagames.agents.learn.az_selfplay import SelfPlayWorker

        if torch_threads > 0:
            torch.set_num_threads(torch_threads)
        self.worker = SelfPlayWorker(game, game_config, worker_config, net_spec, seed=seed, device=device)
        self.pid = os.getpid()

    def play(self, weights: Any, pool: Any, min_samples: int, version: int) -> tuple[Any, int]:
        self.worker.set_weights(weights, pool)
        return self.worker.play(min_samples=min_samples), version

    def state_dict(self) -> dict[str, Any]:
        return self.worker.state_dict()

    def load_state_dict(self, d: dict[str, Any]) -> None:
        self.worker.load_state_dict(d)

    def process_id(self) -> int:
        return self.pid


def actor_seed(seed: int, k: int) -> int:
    """The seed of self-play actor ``k``; actor 0 has the single-process worker's seed."""
    return seed if k == 0 else (seed * 1_000_003 + 7919 * k) % (2**63)


def actor_resources(num_actors: int, device: str, cluster_gpus: float) -> dict[str, float]:
    """What each of ``num_actors`` self-play actors asks Ray for: one CPU, and with a CUDA
    ``device`` a share of one GPU, ``1 / k`` with ``k`` actors to a GPU, so that every actor fits
    (3 actors on 2 GPUs: half a GPU each; a share that does not divide a GPU would leave an actor
    waiting forever).

    Raises:
        ValueError: a device other than cpu and cuda; a CUDA device on a cluster without a whole GPU.
    """
    if device == "cpu":
        return {"num_cpus": 1, "num_gpus": 0}
    if device != "cuda" and not device.startswith("cuda:"):
        raise ValueError(f"device={device!r} is not valid for self-play actors; valid values: cpu, cuda")
    gpus = math.floor(cluster_gpus)
    if gpus < 1:
        raise ValueError(f"device={device!r} with ray_actors={num_actors}: the Ray cluster has no whole GPU "
                         f"({cluster_gpus:g}), so the actors could not run their networks on one; valid: "
                         "device='cpu', or a cluster started with GPUs")
    return {"num_cpus": 1, "num_gpus": 1.0 / math.ceil(num_actors / gpus)}


class SelfPlayActors:
    """``num_actors`` self-play workers on Ray, used like one :class:`SelfPlayWorker`.

    Args:
        num_actors: actors (each holds its own games, search and network copy).
        game, game_config, worker_config, net_spec, seed: as for :class:`SelfPlayWorker`;
            actor ``k`` is seeded with :func:`actor_seed`.
        address: the cluster (see :func:`connect`).
        torch_threads: torch threads per actor (1 suits the small networks).
        max_restarts: times Ray restarts an actor that died.
        device: where the actors' networks run: ``"cpu"``, or ``"cuda"`` for a share of the
            cluster's GPUs each (:func:`actor_resources`; inside an actor its share is ``cuda``).

    Raises:
        ValueError: ``num_actors < 1``; a device other than cpu and cuda; a CUDA device on a
            cluster without a whole GPU; more actors than the cluster has CPUs (:func:`require_cpus`: Ray
            would never start the ones that do not fit); a bad address (:func:`connect`).
    """

    def __init__(self, num_actors: int, game: str, game_config: dict[str, Any], worker_config: Any,
                 net_spec: dict[str, Any], seed: int, address: str | None = None, torch_threads: int = 1,
                 max_restarts: int = 3, device: str = "cpu") -> None:
        if num_actors < 1:
            raise ValueError(f"ray_actors={num_actors} is not valid; it must be >= 1")
        ray = connect(address)
        self.ray = ray
        device = str(device)
        res = actor_resources(num_actors, device, ray.cluster_resources().get("GPU", 0.0))
        #: where the actors' networks run
        self.device = "cuda" if res["num_gpus"] else "cpu"  # Ray shows an actor only its own GPU
        _require_actor_cpus(ray, num_actors, res["num_cpus"])
        cls = ray.remote(**res, max_restarts=max_restarts, max_task_retries=max_restarts)(_SelfPlayActor)
        self.actors = [cls.remote(game, game_config, worker_config, net_spec, actor_seed(seed, k), torch_threads,
                                  self.device) for k in range(num_actors)]
        self.version = 0
        self.weights: Any = None
        self.pool: Any = None
        self.last_lag = 0

    def set_weights(self, weights: Any, pool: Any = None) -> None:
        """Publish new weights (and the snapshot pool): one object-store copy for every actor."""
        self.version += 1
        self.weights = self.ray.put({k: v.detach().cpu() for k, v in weights.items()})
        self.pool = self.ray.put(pool or {})

    def play(self, min_samples: int = 1) -> Any:
        """At least ``min_samples`` samples of finished games from all actors (actor order), merged."""
        from octagames.agents.learn.az_selfplay import concat_trajectories

        share = max(1, math.ceil(min_samples / len(self.actors)))
        calls = [a.play.remote(self.weights, self.pool, share, self.version) for a in self.actors]
        results = self.ray.get(calls)
        self.last_lag = max(self.version - v for _, v in results)
        return concat_trajectories([t for t, _ in results])

    def state_dict(self) -> dict[str, Any]:
        """Every actor's games in progress and RNGs (for exact resumption)."""
        return {"actors": self.ray.get([a.state_dict.remote() for a in self.actors])}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        states = d["actors"] if "actors" in d else [d]
        if len(states) != len(self.actors):
            raise ValueError(f"the checkpoint has {len(states)} self-play actors; this run has "
                             f"{len(self.actors)} (pass --ray-actors {len(states)})")
        self.ray.get([a.load_state_dict.remote(s) for a, s in zip(self.actors, states)])

    def process_ids(self) -> list[int]:
        """The process id of every actor (the fault test kills one)."""
        return self.ray.get([a.process_id.remote() for a in self.actors])


class ActorGroup:
    """Instances of a worker class, one per Ray actor, called together (the PPO rollout workers).

    Args:
        cls: the worker class (importable by module and name; Ray ships it by reference).
        args_per_actor: the constructor's arguments of each actor.
        address: the cluster (see :func:`connect`).
        max_restarts: times Ray restarts an actor that died (its calls are retried as often).

    Raises:
        ValueError: no actor; more actors (one CPU each) than the cluster has CPUs, named ``ray_actors``
            (:func:`require_cpus`); a bad address (:func:`connect`).
    """

    def __init__(self, cls: type, args_per_actor: Sequence[tuple], address: str | None = None,
                 max_restarts: int = 3) -> None:
        if not args_per_actor:
            raise ValueError("args_per_actor is empty; give the arguments of at least one actor")
        ray = connect(address)
        self.ray = ray
        _require_actor_cpus(ray, len(args_per_actor), 1)
        remote = ray.remote(num_cpus=1, max_restarts=max_restarts, max_task_retries=max_restarts)(cls)
        self.actors = [remote.remote(*args) for args in args_per_actor]

    def call(self, method: str, *args: Any) -> list[Any]:
        """``method(*args)`` on every actor (large arguments go into the object store once); results in actor order."""
        refs = [self.ray.put(a) if _large(a) else a for a in args]
        return self.ray.get([getattr(actor, method).remote(*refs) for actor in self.actors])

    def call_each(self, method: str, args_per_actor: Sequence[Any]) -> list[Any]:
        """``method(arg)`` on actor ``k`` with the ``k``-th argument."""
        return self.ray.get([getattr(actor, method).remote(a) for actor, a in zip(self.actors, args_per_actor)])


def _large(x: Any) -> bool:
    return isinstance(x, (dict, list)) and len(x) > 0
