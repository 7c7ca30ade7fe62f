"""The CFR agent: plays a CFR or MCCFR average policy in the arena.

:class:`CFRAgent` looks its seat's observation up in a
:class:`octagames.agents.cfr.tabular.TablePolicy` (keyed by
:func:`~octagames.agents.cfr.tabular.infoset_key`) and samples the stored
probabilities; information sets the table never met get uniform play. Its
constructors train one: :meth:`CFRAgent.exact` (exact CFR on the full tree of a
small config) and :meth:`CFRAgent.mccfr` (MCCFR for a stated number of
iterations, any size); :meth:`CFRAgent.load` reads the average policy of a ``train_cfr`` checkpoint (exact CFR or
MCCFR), trained on the game and config the file records. Through the registry: ``make_agent("cfr:2000",
game)``, ``make_agent("cfr:runs/mccfr/<run>/checkpoint.npz", game)`` (``runs/cfr/`` for exact CFR's).
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path

import numpy as np

from octagames import catalogue
from octagames.agents.base import Agent, Turn, considered
from octagames.agents.model_config import check_config, fitting_options
from octagames.agents.cfr.checkpoint import read_info
from octagames.agents.cfr.solver import CFRConfig, CFRSolver
from octagames.agents.cfr.tree import GameSource, flatten
from octagames.agents.cfr.mccfr import MCCFRSolver
from octagames.agents.cfr.tabular import TablePolicy, infoset_key
from octagames.core import Game, is_count

#: MCCFR iterations of the agent ``make_agent("cfr", game)`` trains
DEFAULT_ITERATIONS = 1000


class CFRAgent(Agent):
    """Plays a CFR average policy; information sets it never met get uniform play (counted: :attr:`in_table` of
    :attr:`decisions`).

    Args:
        policy: the table (keys: ``(seat, observation bytes)``).
        name: the name shown in arena tables.
        game: the game the table was trained on; another config of it is then refused
            (:meth:`check_game`; ``allow_config_mismatch`` warns instead). ``None``: not checked.
    """

    def __init__(self, policy: TablePolicy, name: str = "cfr", game: Game | None = None):
        self.policy = policy
        self.name = name
        self.rng = np.random.default_rng(0)
        self.trained_on = game
        self.allow_config_mismatch = False
        self.config_warnings: set[str] = set()  # the config mismatches warned (once each, not at every reset)
        #: decisions this agent made, and those its table held a policy for (the others are uniform play): the
        #: table's coverage, which train_cfr's arena results report
        self.decisions = 0
        self.in_table = 0

    def check_game(self, game: Game) -> None:
        """Refuse another game or config than the table's (its information states would not match).

        Raises:
            ValueError: the table was trained on another game, or on another config without
                ``allow_config_mismatch``.
        """
        if self.trained_on is None:
            return
        mine = catalogue.full_config(self.trained_on.name, self.trained_on.config)
        if game.name != self.trained_on.name:
            raise ValueError(f"{self.name} was trained on {catalogue.describe(self.trained_on.name, mine)}, not "
                             f"{catalogue.describe(game.name, game.config)}; play it with "
                             f"{fitting_options(self.trained_on.name, mine)}")
        check_config(game.name, mine, game.config, self.name, self.allow_config_mismatch, self.config_warnings)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Check the table fits the game (:meth:`check_game`); seed the sampling RNG.

        Raises:
            ValueError: the table was trained on another game or config (see :meth:`check_game`).
        """
        self.check_game(game)
        super().reset(game, seat, seed)

    @classmethod
    def exact(
        cls, game: Game, iterations: int = 1000, config: CFRConfig = CFRConfig(), name: str | None = None
    ) -> "CFRAgent":
        """Train exact CFR on the full tree of a small config (named after the variant by default)."""
        tree = flatten(GameSource(game))
        solver = CFRSolver(tree, config)
        solver.iterate(iterations)
        return cls(TablePolicy.from_tree(tree, solver.average_policy()), name or config.variant, game)

    @classmethod
    def mccfr(
        cls, game: Game, iterations: int = DEFAULT_ITERATIONS, sampling: str = "outcome", seed: int = 0,
        name: str | None = None,
    ) -> "CFRAgent":
        """Train MCCFR for a stated budget of iterations (for full-size configs).

        The default name is the registry spec that trains the same agent
        (``cfr:<iterations>``, ``cfr:<iterations>:external``).
        """
        solver = MCCFRSolver(game, sampling, seed=seed)
        solver.iterate(iterations)
        default = f"cfr:{iterations}" + (":external" if sampling == "external" else "")
        return cls(solver.table_policy(), name or default, game)

    @classmethod
    def load(cls, path: str | Path, where: str | None = None) -> "CFRAgent":
        """The agent of a ``train_cfr`` checkpoint (``CFRSolver.save`` or ``MCCFRSolver.save``): its average policy.

        The agent is trained on the game and config the file records, so that :meth:`CFRAgent.check_game`
        refuses another one. An exact CFR checkpoint is played by flattening that game again (the tree
        the solver ran on; its fingerprint must match).

        Args:
            path: the checkpoint.
            where: what it is, for the sentences (default: ``cfr:<path>``).

        Raises:
            ValueError: no such file, not a CFR or MCCFR checkpoint, one written before checkpoints recorded
                their game (train it again), one of a pyspiel game, or an exact CFR checkpoint of a deal pool
                (its policy covers the pool's deals only; arena games deal from the full game).
        """
        where = where or f"cfr:{path}"
        info = read_info(path, where)
        game = info.game_object(where)
        if info.solver == "mccfr":
            return cls(MCCFRSolver.load(path, game).table_policy(), where, game)
        if info.deal_pool:
            raise ValueError(f"{where} is an exact CFR checkpoint of a pool of {info.deal_pool.get('k')} deals "
                             "(train_cfr --deal-pool) and cannot be played: its policy covers the pool's deals "
                             "only and arena games deal from the full game; train without --deal-pool, or with "
                             "--algorithm mccfr")
        tree = flatten(GameSource(game))
        return cls(TablePolicy.from_tree(tree, CFRSolver.load(path, tree).average_policy()), where, game)

    def act(self, turn: Turn) -> int:
        """Sample the average policy at the seat's information state (told as :attr:`last_thinking`)."""
        legal = turn.legal_actions
        key = infoset_key(turn.observation)
        probs = self.policy.held(turn.seat, key, legal)
        self.decisions += 1
        self.in_table += probs is not None
        if probs is None:  # a state the table never met: the table's fallback (uniform play)
            probs = self.policy.probabilities(turn.seat, key, legal)
        action = int(self.rng.choice(legal, p=probs))
        policy = np.zeros(len(turn.legal_mask))
        policy[legal] = probs
        self.last_thinking = considered(turn, action, policy=policy)
        return action


def mccfr_run(arg: str) -> tuple[int, str] | None:
    """``(iterations, sampling)`` where ``cfr:<arg>`` trains MCCFR (``<n>``, ``<n>:external``), else ``None``
    (``arg`` names a checkpoint, or nothing valid; the count is plain digits: :func:`~octagames.core.is_count`)."""
    count, _, sampling = arg.partition(":")
    return (int(count), sampling or "outcome") if is_count(count) and int(count) >= 1 and sampling in (
        "", "external") else None  # cfr:0 would be an untrained table: uniform play under a CFR name


#: the tables that ``cfr:<iterations>[:external]`` trained in this process and an agent still plays, by game,
#: config, iterations and sampling: the seed is fixed, so the same spec trains the same table, and an agent built
#: while another of the same spec lives (one a seat in a warm start's teacher games, after the one that checked
#: the spec) shares it instead of training again. Weak: a table no agent holds is freed, but for the newest
#: (:data:`_NEWEST`).
_TRAINED: "weakref.WeakValueDictionary[tuple, TablePolicy]" = weakref.WeakValueDictionary()
#: the table trained last, kept whether an agent holds it or not: the callers that build an agent at each use
#: (an evaluation's opponents, a teacher's blocks of games) share it too, at the cost of one table's memory
_NEWEST: list[TablePolicy] = []
#: one training at a time (the web app builds agents on several threads)
_TRAINING = threading.Lock()


def _trained(game: Game, iterations: int, sampling: str) -> CFRAgent:
    """``CFRAgent.mccfr(game, iterations, sampling)``, sharing the table of a living agent of the same spec
    (:data:`_TRAINED`)."""
    key = (game.name, game.config, iterations, sampling)
    with _TRAINING:
        policy = _TRAINED.get(key)
        if policy is None:
            policy = CFRAgent.mccfr(game, iterations=iterations, sampling=sampling).policy
            _TRAINED[key] = policy
            _NEWEST[:] = [policy]
    return CFRAgent(policy, f"cfr:{iterations}" + (":external" if sampling == "external" else ""), game)


def _factory(game: Game, arg: str | None) -> Agent:
    """``cfr[:<iterations>][:external]``: MCCFR (outcome sampling unless ``external``) trained on
    ``game``'s config (the variant it will play) for that many iterations (an agent built while another of the
    same spec lives shares its table: :data:`_TRAINED`); ``cfr:<path.npz>``: the
    average policy of a ``train_cfr`` checkpoint (exact CFR or MCCFR), trained on the game and config it records
    (another one is refused by :meth:`CFRAgent.check_game`)."""
    usage = ("the argument is a number of MCCFR iterations (at least 1) in plain digits (0-9), optionally followed "
             "by ':external' (cfr:2000, cfr:2000:external), or the path of a train_cfr checkpoint "
             "(cfr:runs/mccfr/<run>/checkpoint.npz; exact CFR's: runs/cfr/<run>/)")
    run = mccfr_run(arg or str(DEFAULT_ITERATIONS))
    if run is not None:
        return _trained(game, *run)
    path = Path(arg or "")
    if not path.is_file():
        if path.suffix == ".npz" or len(path.parts) > 1:
            raise ValueError(f"agent 'cfr:{arg}' is not valid: the checkpoint {arg} does not exist")
        raise ValueError(f"agent 'cfr:{arg}' is not valid: {usage}")
    return CFRAgent.load(path, f"cfr:{arg}")


__all__ = ["DEFAULT_ITERATIONS", "CFRAgent", "mccfr_run"]
