"""Compile (or load from the cache) every compiled entry point of every game, once.

    python -m octagames.experiments.warmup                          # every game, every kernel module
    python -m octagames.experiments.warmup --game octa-en octa-nl   # the variants named

``make demo`` and ``make test`` run it after installing and print how long the one-time compile
took. Each game is exercised through every face a user starts with (the rules API, the vector env,
the PettingZoo AEC and Parallel envs, the OpenSpiel game when pyspiel is installed, the first moves
of the game's heuristic agent (the usual opponent of ``evaluate``), MCTS with its
default evaluator and with a network's priors, the batched network search of the zoo agents and
train_az when torch is installed, with the compiled heuristic's playouts where a game has one and the
learned rollout policy's where its rules name facts for one: ``net:octa-en``, ``net:octa-nl``, and
its games against the heuristic, which ``improve-policy`` plays), so
that the first call in any later process loads compiled code from the cache
(:mod:`octagames.specialize`) instead of compiling it; the rules face also asks for the message
of every illegal move of its first positions (Octiles' reasons call compiled kernels) and runs the
game's compiled self-check where it has one (Octa's ``checked_play``, which the test suite runs).
A game whose variants compile different kernels is warmed once per such variant
(:func:`kernel_variants`: Octa's English and Dutch rulebooks), and the time of each is printed
(named by variant and seats, ``octa-nl-2p``).
``--game VARIANT ...``, ``--players N`` and ``--config key=value ...`` (as elsewhere) warm the variants
named instead. The game configs compile in parallel processes, one per core (``--jobs``), the
largest rules first: on two cores a cold compile takes about half as long. With a warm cache the
whole run takes seconds.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from octagames import catalogue
from octagames.agents.base import make_turn
from octagames.agents.registry import make_agent
from octagames.agents.search.mcts import MCTS, MCTSAgent, MCTSConfig, PolicyValue, has_playout_policy
from octagames.agents.search.learned_rollouts import LearnedRollout, features, has_features
from octagames.agents.search.rollouts import believed_worlds, rollout_values
from octagames.core import Game, load_module
from octagames.envs.vector import cpu_count, make, narrowest_obs_dtype
from octagames.experiments.cli import GamesArgs, parse_config, script
from octagames.specialize import cache_dir

FACES = ("rules", "vector", "aec", "parallel", "openspiel", "heuristic", "mcts", "az")


def kernel_variants(game: str) -> list[str]:
    """The variants of ``game`` to warm up: one per kernel module among its variants.

    Each is the first variant (``octagames/<game>/variants.py``, the seed's game first) whose
    kernels come from that module (``kernel_module(config)`` of the rules module; one module for a
    game without it): ``["octa-en", "octa-nl"]`` for Octa, ``["octrix"]`` for Octrix.
    """
    names: dict[str, str] = {}
    for v in catalogue.game_spec(game).variants:
        names.setdefault(kernels_of(game, v.full_config()), v.name)
    return list(names.values())


def kernels_of(game: str, config: dict[str, Any]) -> str:
    """The kernel module ``game``'s compiled code comes from under ``config`` (:attr:`Game.kernel_module`)."""
    return Game(game, **config).kernel_module


def rules_size(game: str) -> int:
    """Bytes of ``game``'s rules package (its ``.py`` files): the warm-up compiles the largest first."""
    return sum(f.stat().st_size for f in Path(load_module(game).__file__).parent.glob("*.py"))


COMPACT_DTYPES = ("uint8", "uint16")
"""The vector env's compact observation dtypes, narrowest first."""


def compact_configs(game: str, config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """For each compact dtype (uint8, uint16) that the observations of some variant with ``config``'s
    kernel module fit, that variant's config (``config`` itself first; the trainers pick the narrowest
    dtype a config fits, a user may ask for a wider one). The dtype, not the config, selects the
    compiled batch code: ``{"uint8": octrix-round's, "uint16": the match's}`` for Octrix's match.
    """
    configs = [config] + [v.full_config() for v in catalogue.game_spec(game).variants]
    games = [(c, Game(game, **c)) for c in configs]
    own = games[0][1].kernel_module
    out: dict[str, dict[str, Any]] = {}
    for c, g in games:
        if g.kernel_module != own:
            continue
        narrowest = narrowest_obs_dtype(g)
        for dtype in COMPACT_DTYPES[COMPACT_DTYPES.index(narrowest):] if narrowest in COMPACT_DTYPES else ():
            out.setdefault(dtype, c)
    return {d: out[d] for d in COMPACT_DTYPES if d in out}


def label(game: str, config: dict[str, Any]) -> str:
    """``octa(rules=nl)``: a game and config as OpenSpiel writes them (the name alone without fields),
    what the OpenSpiel face loads."""
    fields = ",".join(f"{k}={v}" for k, v in config.items())
    return f"{game}({fields})" if fields else game


def first_call(game: str, face: str, **config: Any) -> None:
    """Do the first thing a user of ``face`` does with ``game`` under ``config`` (a step, a state, a move).

    Raises:
        ValueError: an unknown face.
    """
    if face == "rules":
        g = Game(game, **config)
        s = g.new_state(seed=0)
        if g.is_chance(s):
            g.sample_chance(g.clone(s))  # one chance outcome drawn by hand (play_chance resolves them all)
        for _ in range(8):
            g.play_chance(s)
            if g.is_terminal(s):
                break
            g.kernels.apply_legal(g.clone(s), g.legal_actions(s)[0])  # the contract's unchecked step
            p = g.acting_player(s)
            for a in np.flatnonzero(g.legal_mask(s, p) == 0):  # the message of every illegal move here
                g.module.illegal_reason(s, p, int(a))
            g.apply_action(s, g.legal_actions(s)[0])
            g.observation(s, max(g.acting_player(s), 0))
            g.returns(s)
            g.determinize(s, 0, 1)
        g.from_bytes(g.to_bytes(s))  # loading a saved game checks its record (Octa's check is compiled)
        checked_play = getattr(g.module, "checked_play", None)  # the game's compiled self-check (Octa's)
        if checked_play is not None:
            checked_play(g.config)(g.clone(s), 8, np.zeros(4, dtype=np.int64))
        g.kernels.truncated(s)  # what the PettingZoo and Gymnasium faces ask when a game ends
    elif face == "vector":
        env = make(game, num_envs=2, seed=0, **config)
        env.reset()
        env.step(env.sample_actions())
        env.observe(np.zeros(2, dtype=np.int64))
        env.set_state(env.get_state())  # restoring a batch (a pickled env, Ray) emits its observations again
        # the compact observations the trainers pick for any variant with these kernels, and wider ones
        for dtype, fits in compact_configs(game, config).items():
            compact = make(game, num_envs=2, seed=0, obs_dtype=dtype, **fits)
            compact.reset()
            compact.step(compact.sample_actions())
            compact.observe(np.zeros(2, dtype=np.int64))
            compact.set_state(compact.get_state())  # a resumed rollout (and Ray) restores a compact env
    elif face == "aec":
        env = importlib.import_module(f"octagames.envs.{game}_v0").env(**config)
        env.reset(seed=0)
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    elif face == "parallel":
        env = importlib.import_module(f"octagames.envs.{game}_v0").parallel_env(**config)
        obs, _ = env.reset(seed=0)
        env.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items() if o["action_mask"].any()})
    elif face == "openspiel":
        import pyspiel

        import octagames.envs.openspiel  # noqa: F401  (registers the games)
        state = pyspiel.load_game(f"octagames_{label(game, config)}").new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        state.information_state_tensor(0)
    elif face == "heuristic":
        # the heuristic in every seat for the first moves of a game: the kernels it calls from Python
        # (Octiles' list of whole turns) are cached entry points that its first move would compile
        g = Game(game, **config)
        s = g.new_state(seed=0)
        agents = [make_agent("heuristic", g) for _ in range(g.num_players)]
        for p, agent in enumerate(agents):
            agent.reset(g, p, 0)
        for _ in range(4 * g.num_players + 4):
            g.play_chance(s)
            if g.is_terminal(s):
                break
            p = g.acting_player(s)
            g.apply_action(s, agents[p].act(make_turn(g, s, p, 0)))
    elif face == "mcts":
        g = Game(game, **config)
        s = g.new_state(seed=0)
        g.play_chance(s)
        agent = MCTSAgent(MCTSConfig(num_simulations=4))
        agent.reset(g, g.acting_player(s), 0)
        agent.act(make_turn(g, s, g.acting_player(s), 0))
        uniform = PolicyValue(lambda obs, mask, players: (mask.astype(np.float64),
                                                          np.zeros((len(mask), g.num_players))))
        MCTS(g, MCTSConfig(num_simulations=4, batch_size=2), uniform).search(s, g.acting_player(s), 0)
    elif face == "az":
        # the network search of az: and zoo: agents and of train_az, with and without the game's
        # compiled leaf value (Achten's and Octiles' zoo models mix it in), the observations of the
        # replay buffer, and the compiled heuristic's playouts and hint where the game has one
        from octagames.agents.learn.az import BatchedSearch, SearchConfig, leaf_value_function  # needs torch

        g = Game(game, **config)
        s = g.new_state(seed=0)
        g.play_chance(s)
        roots, seats = np.array([s], dtype=g.dtype), np.array([g.acting_player(s)])
        for mix in (0.0, 0.5) if leaf_value_function(g) is not None else (0.0,):
            search = BatchedSearch(g, 1, SearchConfig(simulations=4, leaves_per_game=2, leaf_value_mix=mix))
            search.run(roots, seats, np.array([True]), np.array([0]), lambda obs, mask, players: (
                mask.astype(np.float64), np.full((len(mask), g.num_players), 0.5)))
            search.kernels.observe_many(roots.copy(), seats, np.zeros((1, g.observation_size), np.float32),
                                        np.zeros((1, g.num_actions), np.uint8))
        if has_playout_policy(g.name):  # the heuristic playouts and hint of the Octa zoo models
            search = BatchedSearch(g, 1, SearchConfig(simulations=4, leaves_per_game=2, playout_mix=1.0,
                                                      prior_hint="heuristic"))
            search.run(roots, seats, np.array([True]), np.array([0]), lambda obs, mask, players: (
                mask.astype(np.float64), np.full((len(mask), g.num_players), 0.5)))
            # the paired rollouts of the rollout agent and of zoo:octa-en / zoo:octa-nl
            p = int(seats[0])
            rollout_values(g, believed_worlds(g, s, p, np.random.default_rng(0), 2), p, list(g.legal_actions(s)))
        if has_features(g):  # net:octa-*'s learned rollout policy: its choice and playouts (one signature, any rank)
            p, f = int(seats[0]), features(g)
            learned = LearnedRollout(g, np.zeros((f.groups, f.inputs)), np.zeros(g.num_actions))
            learned.action(s, p)
            learned.rollout_values(believed_worlds(g, s, p, np.random.default_rng(0), 2), p, list(g.legal_actions(s)))
            learned.duel_wins(1)  # its games against the compiled heuristic (improve-policy)
    else:
        raise ValueError(f"face={face!r} is not valid; valid values: {list(FACES)}")


def available_faces() -> list[str]:
    """The faces whose optional dependencies are installed."""
    needs = {"openspiel": "pyspiel", "az": "torch"}
    return [f for f in FACES if f not in needs or importlib.util.find_spec(needs[f]) is not None]


def warm_one(game: str, config: dict[str, Any]) -> float:
    """Run :func:`first_call` for every available face of ``game`` under ``config``; the seconds it took."""
    start = time.perf_counter()
    for face in available_faces():
        first_call(game, face, **config)
    return time.perf_counter() - start


def warm(configs: Sequence[tuple[str, dict[str, Any]]] | None = None, verbose: bool = True,
         jobs: int = 1) -> dict[str, float]:
    """:func:`warm_one` for every game config; its seconds, keyed by variant and seats (``octa-nl-2p``).

    Args:
        configs: ``(game, config fields)`` pairs (default: one per kernel module of every game,
            :class:`WarmupConfig`'s default).
        verbose: print each game config's time as it finishes.
        jobs: processes compiling at once (game configs are independent; each process
            writes its own kernels to the shared cache).

    Raises:
        ValueError: ``jobs < 1``.
    """
    if jobs < 1:
        raise ValueError(f"jobs={jobs} is not valid; it must be >= 1")
    tasks = [(catalogue.describe(name, config), name, config)
             for name, config in (WarmupConfig().resolve_all() if configs is None else configs)]
    out: dict[str, float] = {}

    def done(key: str, seconds: float) -> None:
        out[key] = seconds
        if verbose:
            print(f"  {key}: {seconds:.1f} s", flush=True)

    if jobs == 1 or len(tasks) == 1:
        for key, name, config in tasks:
            done(key, warm_one(name, config))
        return out
    # spawn, not fork: a forked child would share this process's numba and torch state; the largest rules
    # first (compile time grows with them), so that no core waits alone on a large game at the end
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(warm_one, name, config): key
                   for key, name, config in sorted(tasks, key=lambda t: -rules_size(t[1]))}
        for future in as_completed(futures):
            done(futures[future], future.result())
    return {key: out[key] for key, _, _ in tasks}


@dataclass(frozen=True)
class WarmupConfig(GamesArgs):
    """Compile every game's entry points once (``make`` runs this): games to warm up, by default one
    variant per kernel module of every game."""

    jobs: int = 0
    """processes compiling at once (0: one per core)"""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.jobs < 0:
            raise ValueError(f"jobs={self.jobs} is not valid; it must be >= 0 (0: one per core)")

    def default_games(self) -> tuple[str, ...]:
        """One variant per kernel module of every game (:func:`kernel_variants`)."""
        return tuple(v for game in catalogue.games() for v in kernel_variants(game))


def main(cfg: WarmupConfig) -> dict[str, float]:
    """Warm the cache and print the time it took."""
    print(f"compiled kernels: cache in {cache_dir()}", flush=True)
    start = time.perf_counter()
    timings = warm(cfg.resolve_all(), jobs=cfg.jobs or cpu_count())
    total = time.perf_counter() - start
    print(f"compiled kernels ready in {total:.1f} s (a few seconds when the cache was warm; "
          "the one-time compile otherwise)", flush=True)
    return timings


@script
def cli() -> None:
    """Command-line entry point (``octagames-warmup``, or ``python -m octagames.experiments.warmup``)."""
    main(parse_config(WarmupConfig))


if __name__ == "__main__":
    cli()
