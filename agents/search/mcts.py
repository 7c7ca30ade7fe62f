"""Monte Carlo tree search for every octagames game, with the hot loop compiled by numba.

    >>> from octagames.agents.search.mcts import MCTSAgent, MCTSConfig
    >>> agent = MCTSAgent(MCTSConfig(num_simulations=2000))
    >>> # or through the registry: make_agent("mcts:2000", "octrix")

The search knows no rules: it only calls the engine contract of
:mod:`octagames.core` (``current_player``, ``acting_player``, ``legal_mask``,
``apply_action``, ``sample_chance``, ``returns``, ``determinize``). The search
loop is a template (:mod:`octagames.agents.search._mcts_template`) specialised per rules
module, playout policy and leaf value by :mod:`octagames.specialize`, so it is
compiled once, cached on disk, and any later game works unchanged.

The tree
--------
Nodes live in preallocated numpy arrays (:class:`Tree`) of ``max_nodes``
entries: first child / next sibling links, the action that led to the node,
the seat that took it (``tag``; -1 for a chance outcome), visit and
availability counts, value sums per player (returns rescaled to [0, 1] by the
game's utility bounds) and a prior. When the tree is full the search keeps
going without adding nodes. Search never modifies the state it is given: each
simulation copies the root record's bytes into a work record.

One algorithm for all games
---------------------------
* **Hidden information** (Achten, Octa): single-observer information-set MCTS
  (Cowling, Powley & Whitehouse 2012). Every simulation starts from a fresh
  ``determinize(copy, searcher, seed_i)``, so only the searcher's information
  state is used and the agent never sees hidden cards. The legal actions of a
  node may differ between determinizations; children are added lazily and UCB
  uses *availability* counts (how often a child was legal when its parent was
  visited) instead of the parent's visit count.
* **Chance** (Octiles' tile reveals, deals): chance nodes are sampled by their
  probabilities with the record's own RNG (``sample_chance``), reseeded by the
  determinization of each simulation. With perfect information each outcome
  gets its own child (UCT with chance nodes). With imperfect information the
  outcome may be hidden from the searcher (a card drawn by the opponent), so
  by default all outcomes share one child (open loop below chance): branching
  on them would let the searcher's later decisions in the tree depend on cards
  it cannot see. ``chance_branching`` overrides this.
* **Simultaneous moves** (Octrix): decoupled UCT. The engine takes the moves
  of a simultaneous step one seat at a time (lowest pending seat first, each
  commitment hidden from the others until the step is complete). The tree
  keeps that sequential structure for the successor states, but every seat of
  a step selects its move from its *own* statistics stored at the node where
  the step began, never conditioned on the moves committed before it in the
  same step. We chose decoupled UCT over regret matching because it needs no
  extra per-node tables (one set of statistics per seat and action, the same
  arrays as the sequential case), it works unchanged for 3 and 4 seats, and
  at the scale of a move decision it is as strong in practice (Lanctot et al.
  2013; Tak, Lanctot & Winands 2014 find DUCT competitive with RM in several
  games), whereas regret matching's advantage (convergence to a Nash
  equilibrium of the stage game) matters mostly for long searches of small
  matrix games. A step is recognised from the contract alone: it continues
  while the game stays simultaneous and the acting seat increases. (In the
  4-player partnership game, when the dealer's face-up pair has the lower
  seat numbers, the second pair is treated as part of the same step: the
  search then ignores that it could see the first pair's cards, which is
  sound but conservative.) **Limitation:** this holds for the searcher that
  opens the step. A searcher whose step others opened (their cards committed
  face down: in 2-player Octrix every decision of seat 1, with 3-4 players
  every seat's but seat 0's) searches from its own position, where
  ``determinize`` draws each committed card uniformly from its owner's hand:
  its search answers an opponent who chose at random this trick, not one who
  searched (a review of 2026-12-07 found it playing the best reply to a
  uniform card in 7 of 8 positions where the opponent had a dominant card).
  Searching from the step's beginning (the committed cards back in their hands,
  every seat choosing by its own statistics) would need the rules to rewind a
  step, which the contract does not have yet.

Evaluators
----------
* :class:`RandomRollout` (default): uniformly random playouts, fully compiled (drawn with the
  rules module's own ``random_legal_action`` when it has one, e.g. Octiles).
* :class:`CompiledRollout`: playouts with a numba policy
  ``policy(s, player, mask, n_legal) -> action``; fully compiled, so a
  heuristic costs only its own arithmetic. This is the fast way to add game
  knowledge.
* :class:`CompiledValue`: a numba value function ``value(s, out)`` at the
  leaf, after an optional short playout (truncated rollouts); fully
  compiled. Used for Octiles, whose random playouts last hundreds of turns
  and say little about who is ahead.
* :class:`AgentRollout`: playouts with Python agents (``octagames.agents.heuristic_*``);
  each playout step builds a :class:`octagames.agents.base.Turn` in Python, so it is
  orders of magnitude slower per simulation (figures in ``docs/benchmarks.md``) --
  use it when a heuristic exists only in Python, with a small budget; a playout
  policy ported to numba (:class:`CompiledRollout`) keeps the compiled speed.
* :class:`PolicyValue`: a policy/value function from Python (a network) for
  a PUCT prior: ``fn(obs[B, D], mask[B, A], players[B]) -> (priors[B, A],
  values[B, P])``. Leaves are evaluated in batches of ``batch_size`` with a
  virtual loss (a visit counted before its value arrives) so that a batch
  spreads over different leaves.

Compiled selection descends the tree; with a Python evaluator the loop
alternates compiled descents, one Python call per batch of leaves, and
compiled back-ups.
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, NamedTuple

import numba as nb
import numpy as np

from octagames import catalogue
from octagames.agents.base import Agent, Turn, considered, make_turn
from octagames.catalogue import GameSpec
from octagames.core import Game, check_range, is_count, is_real, mix64, nth_set, rng_below
from octagames.specialize import specialize

ROOT_TAG = -3
CHANCE_TAG = -1

# descend() status
LEAF = 1          # stopped at a leaf: evaluate the work record (rollout or Python)
AT_TERMINAL = 0   # the work record is a finished game: use its returns


# ------------------------------------------------------------------ config
@dataclass(frozen=True)
class MCTSConfig:
    """Settings of a search.

    Attributes:
        num_simulations: simulations per move (the budget when ``time_limit`` is None).
        time_limit: seconds per move; when set, the search stops at whichever
            comes first, the time or ``num_simulations``.
        exploration: UCB / PUCT exploration constant (values are in [0, 1]);
            None: the game's ``GameSpec.exploration`` (:func:`default_exploration`), else 1.4.
        max_nodes: tree capacity; a full tree stops growing but search goes on.
        max_rollout: most actions of one playout (None: the game's bound).
        chance_branching: ``"auto"`` (one child per outcome with perfect
            information, one shared child otherwise), ``"outcome"`` or ``"merged"``.
        batch_size: leaves per call of a Python evaluator.
        objective: what a finished playout is worth: ``"score"`` (the game's
            returns, rescaled to [0, 1] by its utility bounds) or ``"win"`` (1 to
            every seat with the highest return, 0 to the others, 1/2 to all when
            all are equal: the arena's win rate). Leaf values of an evaluator
            are used as they are.
    """

    num_simulations: int = 1000
    time_limit: float | None = None
    exploration: float | None = None
    max_nodes: int = 200_000
    max_rollout: int | None = None
    chance_branching: str = "auto"
    batch_size: int = 1
    objective: str = "score"

    def __post_init__(self) -> None:
        # integers as the compiled search counts them: simulations in int64, node indices in int32
        check_range("num_simulations", self.num_simulations, 1, 2**63 - 1)
        if self.time_limit is not None and not (is_real(self.time_limit) and self.time_limit > 0):
            raise ValueError(f"time_limit={self.time_limit!r} is not valid; it must be a number > 0 or None")
        if self.exploration is not None and not (is_real(self.exploration) and 0 <= self.exploration < math.inf):
            raise ValueError(f"exploration={self.exploration!r} is not valid; it must be a finite number >= 0")
        check_range("max_nodes", self.max_nodes, 2, 2**31 - 1)
        if self.max_rollout is not None:
            check_range("max_rollout", self.max_rollout, 1)
        if self.chance_branching not in ("auto", "outcome", "merged"):
            raise ValueError(f"chance_branching={self.chance_branching!r} is not valid; "
                             "valid values: ['auto', 'outcome', 'merged']")
        check_range("batch_size", self.batch_size, 1)
        if self.objective not in ("score", "win"):
            raise ValueError(f"objective={self.objective!r} is not valid; valid values: ['score', 'win']")


# ------------------------------------------------------------------ tree storage
class Tree(NamedTuple):
    """The search tree in preallocated arrays (node 0 is the root).

    Attributes:
        first_child: first child of each node (-1: none).
        sibling: next sibling (-1: last).
        action: action (or chance outcome) leading to the node.
        tag: the seat that took ``action``; -1 chance, -3 root.
        visits: simulations through the node.
        avail: times the node was legal when its parent's seat chose (IS-MCTS).
        value: value sums per player, returns rescaled to [0, 1].
        prior: PUCT prior of the action (0 when unused).
        evaluated: 1 once a Python evaluator has expanded the node.
        size: number of nodes in use (``size[0]``).
    """

    first_child: np.ndarray
    sibling: np.ndarray
    action: np.ndarray
    tag: np.ndarray
    visits: np.ndarray
    avail: np.ndarray
    value: np.ndarray
    prior: np.ndarray
    evaluated: np.ndarray
    size: np.ndarray


def new_tree(max_nodes: int, num_players: int) -> Tree:
    """Allocate an empty tree of ``max_nodes`` nodes for ``num_players`` players."""
    return Tree(np.full(max_nodes, -1, np.int32), np.full(max_nodes, -1, np.int32),
                np.full(max_nodes, -1, np.int32), np.zeros(max_nodes, np.int8),
                np.zeros(max_nodes, np.float64), np.zeros(max_nodes, np.float64),
                np.zeros((max_nodes, num_players), np.float64), np.zeros(max_nodes, np.float32),
                np.zeros(max_nodes, np.uint8), np.zeros(1, np.int64))


def clear_tree(t: Tree) -> None:
    """Reset ``t`` to a lone root (cheap: only the root entry is rewritten)."""
    t.size[0] = 1
    t.first_child[0] = -1
    t.sibling[0] = -1
    t.action[0] = -1
    t.tag[0] = ROOT_TAG
    t.visits[0] = 0.0
    t.avail[0] = 0.0
    t.value[0, :] = 0.0
    t.evaluated[0] = 0


def new_trees(num_trees: int, max_nodes: int, num_players: int) -> Tree:
    """Allocate ``num_trees`` empty trees at once: every :class:`Tree` array gets a leading
    axis over the trees (what ``descend_many`` and ``backup_many`` search)."""
    return Tree(np.full((num_trees, max_nodes), -1, np.int32), np.full((num_trees, max_nodes), -1, np.int32),
                np.full((num_trees, max_nodes), -1, np.int32), np.zeros((num_trees, max_nodes), np.int8),
                np.zeros((num_trees, max_nodes), np.float64), np.zeros((num_trees, max_nodes), np.float64),
                np.zeros((num_trees, max_nodes, num_players), np.float64),
                np.zeros((num_trees, max_nodes), np.float32), np.zeros((num_trees, max_nodes), np.uint8),
                np.zeros((num_trees, 1), np.int64))


def clear_trees(t: Tree, which: np.ndarray | None = None) -> None:
    """:func:`clear_tree` for the trees of :func:`new_trees` (all, or those where ``which`` is True)."""
    rows = slice(None) if which is None else np.flatnonzero(which)
    t.size[rows, 0] = 1
    t.first_child[rows, 0] = -1
    t.sibling[rows, 0] = -1
    t.action[rows, 0] = -1
    t.tag[rows, 0] = ROOT_TAG
    t.visits[rows, 0] = 0.0
    t.avail[rows, 0] = 0.0
    t.value[rows, 0, :] = 0.0
    t.evaluated[rows, 0] = 0


# ------------------------------------------------------------------ game-independent kernels
@nb.njit
def root_stats(first_child, sibling, action, tag, visits, value, prior, searchers, active, out_visits, out_q,
               out_prior) -> None:
    """Root statistics of many trees (:func:`new_trees`) for their searching seats.

    For every active tree ``b``, the children of the root taken by seat
    ``searchers[b]``: visits, mean value in [0, 1] for that seat (0 when
    unvisited) and prior go to ``out_*[b, action]``; other entries are left alone.
    """
    for b in range(first_child.shape[0]):
        if not active[b]:
            continue
        p = searchers[b]
        ch = first_child[b, 0]
        while ch >= 0:
            if tag[b, ch] == p:
                a = action[b, ch]
                n = visits[b, ch]
                out_visits[b, a] = n
                out_prior[b, a] = prior[b, ch]
                out_q[b, a] = value[b, ch, p] / n if n > 0 else 0.0
            ch = sibling[b, ch]


@nb.njit
def mix_root_noise(first_child, sibling, action, tag, prior, searchers, active, noise, frac) -> None:
    """Exploration noise at the roots (AlphaZero): every root child's prior becomes
    ``(1 - frac) * prior + frac * noise[b, action]`` for the active trees ``b``."""
    for b in range(first_child.shape[0]):
        if not active[b]:
            continue
        ch = first_child[b, 0]
        while ch >= 0:
            if tag[b, ch] == searchers[b]:
                prior[b, ch] = (1.0 - frac) * prior[b, ch] + frac * noise[b, action[b, ch]]
            ch = sibling[b, ch]


@nb.njit
def _next_u64(state) -> np.uint64:
    # the search's own splitmix64 stream (tie breaks, untried picks, determinization seeds)
    z = state[0] + np.uint64(0x9E3779B97F4A7C15)
    state[0] = z
    return mix64(z)


@nb.njit
def _find_child(first_child, sibling, action, tag, parent, a, who) -> int:
    c = first_child[parent]
    while c >= 0:
        if action[c] == a and tag[c] == who:
            return c
        c = sibling[c]
    return -1


@nb.njit
def _add_child(first_child, sibling, action, tag, visits, avail, value, prior, evaluated, size,
               parent, a, who, p) -> int:
    n = size[0]
    if n >= first_child.shape[0]:
        return -1
    size[0] = n + 1
    first_child[n] = -1
    sibling[n] = first_child[parent]
    first_child[parent] = n
    action[n] = a
    tag[n] = who
    visits[n] = 0.0
    avail[n] = 0.0
    value[n, :] = 0.0
    prior[n] = p
    evaluated[n] = 0
    return n


@nb.njit
def random_policy(s, player, mask, n_legal) -> int:
    """Uniformly random legal action, drawn with the record's RNG (the default playout policy)."""
    return nth_set(mask, rng_below(s, n_legal))


@nb.njit
def win_values(rets, num_players, out) -> None:
    """``out[p]``: 1 for every seat with the highest return, 0 for the others,
    1/2 for all when all returns are equal (the arena's win rule; partners with
    the same return both win)."""
    best = rets[0]
    worst = rets[0]
    for p in range(1, num_players):
        best = max(best, rets[p])
        worst = min(worst, rets[p])
    for p in range(out.shape[0]):
        if p >= num_players:
            out[p] = 0.0
        elif best - worst <= 1e-9:
            out[p] = 0.5
        else:
            out[p] = 1.0 if rets[p] >= best - 1e-9 else 0.0


@nb.njit
def _no_random_legal(s, player) -> int:
    """Stands in for a rules module's ``random_legal_action`` where it has none (never called)."""
    return -1


@nb.njit
def returns_value(s, out) -> None:
    """The default leaf value: nothing is added (``out`` keeps the zeros of an unfinished game)."""
    return


@nb.njit
def lowest_action_policy(s, player, mask, n_legal) -> int:
    """The lowest legal action: a deterministic example of a compiled playout policy."""
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


# ------------------------------------------------------------------ per-game compiled search
class SearchKernels(NamedTuple):
    """The compiled search functions of one rules module and playout policy.

    ``descend_many`` and ``backup_many`` search many trees (:func:`new_trees`) in
    lockstep with a Python policy/value function between them (the batched
    search of :mod:`octagames.agents.learn.az`); ``leaf_values_many`` applies the
    compiled leaf value to their leaves; ``observe_many`` writes the observations and legal
    masks of many records (its training batches).
    """

    descend: Any
    rollout: Any
    backup: Any
    expand_priors: Any
    run: Any
    descend_many: Any = None
    backup_many: Any = None
    leaf_values_many: Any = None
    observe_many: Any = None


def _importable(fn: Any, what: str) -> tuple[str, str]:
    # (module, name) of a module-level numba function, for the generated module's imports
    py = getattr(fn, "py_func", fn)
    mod, name = py.__module__, py.__qualname__
    if "<" in name or "." in name:
        raise ValueError(f"{what} {name!r} must be a module-level @numba.njit function "
                         "(the generated search imports it by name)")
    return mod, name


def search_kernels(module: ModuleType | str, policy: Any = random_policy,
                   value: Any = returns_value) -> SearchKernels:
    """The compiled search of a rules module with a playout ``policy`` and a leaf ``value`` function.

    The kernels are the template :mod:`octagames.agents.search._mcts_template` specialised on the
    three (:func:`octagames.specialize.specialize`): cached on disk across processes, and
    compiled afresh whenever the rules, the policy's or the value's sources, or this file change.

    Args:
        module: a rules module following the engine contract, or the name of a kernel module
            (:attr:`octagames.core.Game.kernel_module`, what a :class:`~octagames.core.Game` compiles).
        policy: a module-level ``@numba.njit`` function
            ``policy(s, player, mask, n_legal) -> action`` used in playouts.
        value: a module-level ``@numba.njit`` function ``value(s, out)`` that
            writes the estimated returns of an unfinished record into ``out``.

    Raises:
        ValueError: ``policy`` or ``value`` is not importable by module and name.
    """
    pmod, pname = _importable(policy, "policy")
    vmod, vname = _importable(value, "value function")
    name = module if isinstance(module, str) else module.__name__
    gen = specialize("octagames.agents.search._mcts_template", game=name, policy=f"{pmod}:{pname}",
                     value=f"{vmod}:{vname}")
    return SearchKernels(gen.descend, gen.rollout, gen.backup, gen.expand_priors, gen.run, gen.descend_many,
                         gen.backup_many, gen.leaf_values_many, gen.observe_many)


def playout_kernels(module: ModuleType | str, policy: Any) -> ModuleType:
    """``playouts_many`` and ``policy_many`` of a rules module and a compiled playout ``policy``
    (the template :mod:`octagames.agents.search._playout_template`, specialised and cached like
    :func:`search_kernels`): the heuristic playouts and prior hint of the AlphaZero search, and
    ``rollout_values``, the paired rollouts of :mod:`octagames.agents.search.rollouts`."""
    pmod, pname = _importable(policy, "policy")
    name = module if isinstance(module, str) else module.__name__
    return specialize("octagames.agents.search._playout_template", game=name, policy=f"{pmod}:{pname}")


# ------------------------------------------------------------------ evaluators
class RandomRollout:
    """Uniformly random playouts, compiled (the default)."""

    policy = random_policy


class CompiledRollout:
    """Playouts with a numba policy ``policy(s, player, mask, n_legal) -> action``.

    Args:
        policy: an ``@numba.njit`` function over one record; it may use the
            record's RNG (``octagames.core.rng_below``) for randomness.
    """

    def __init__(self, policy: Any) -> None:
        self.policy = policy


class CompiledValue:
    """A compiled leaf value, after an optional short playout (truncated rollouts).

    A leaf is played for at most ``rollout_steps`` actions with ``policy``; if
    the game is not over by then, ``value(s, out)`` estimates every seat's
    return (in the game's return units) from the record. Long games whose
    random playouts say little (Octiles) search far better this way.

    Args:
        value: an ``@numba.njit`` function ``value(s, out)`` over one record.
        rollout_steps: playout actions before the value is taken (0: none).
        policy: the playout policy (default: uniformly random).
    """

    def __init__(self, value: Any, rollout_steps: int = 0, policy: Any = random_policy) -> None:
        if rollout_steps < 0:
            raise ValueError(f"rollout_steps={rollout_steps} is not valid; it must be >= 0")
        self.value = value
        self.rollout_steps = int(rollout_steps)
        self.policy = policy


class PythonEvaluator:
    """Base of evaluators called from Python on a batch of leaf records.

    Override :meth:`evaluate`. ``priors`` None means plain UCT selection.
    """

    def evaluate(self, game: Game, leaves: np.ndarray, players: np.ndarray,
                 masks: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """Evaluate leaves.

        Args:
            game: the game.
            leaves: records (1-D structured array, modifiable copies).
            players: acting seat of each leaf (-1 at chance/terminal leaves).
            masks: uint8 legal masks of those seats.

        Returns:
            ``(priors[B, A] or None, values[B, num_players])`` with values in
            the game's return units.
        """
        raise NotImplementedError


class AgentRollout(PythonEvaluator):
    """Playouts with Python agents (e.g. the heuristics), one agent per seat.

    Slow (a :class:`~octagames.agents.base.Turn` per playout step); see the module docstring.

    Args:
        make_agents: ``make_agents(game) -> list of agents``, one per seat.
        seed: seed of the agents' turns.
    """

    def __init__(self, make_agents: Callable[[Game], list[Agent]], seed: int = 0) -> None:
        self.make_agents = make_agents
        self.rng = np.random.default_rng(seed)
        self.agents: list[Agent] | None = None

    def evaluate(self, game, leaves, players, masks):
        """Play every leaf to the end with the agents; values are the final returns."""
        if self.agents is None:
            self.agents = self.make_agents(game)
            for p, a in enumerate(self.agents):
                a.reset(game, p, int(self.rng.integers(1 << 31)))
        out = np.zeros((len(leaves), game.num_players))
        for i in range(len(leaves)):
            s = leaves[i]
            while not game.is_terminal(s):
                if game.is_chance(s):
                    game.apply_action(s, game.sample_chance(s))
                    continue
                p = game.acting_player(s)
                turn = make_turn(game, s, p, int(self.rng.integers(1 << 31)))
                game.apply_action(s, int(self.agents[p].act(turn)))
            out[i] = game.returns(s)
        return None, out


class PolicyValue(PythonEvaluator):
    """A policy/value function for PUCT (e.g. a PPO network).

    Args:
        fn: ``fn(obs[B, D] float32, mask[B, A] uint8, players[B]) -> (priors[B, A],
            values[B, num_players])``; values in the game's return units.
    """

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]):
        self.fn = fn

    def evaluate(self, game, leaves, players, masks):
        """Observations of the acting seats, then one call of ``fn``."""
        obs = np.zeros((len(leaves), game.observation_size), np.float32)
        for i in range(len(leaves)):
            if players[i] >= 0:
                obs[i] = game.observation(leaves[i], int(players[i]))
        priors, values = self.fn(obs, masks, players)
        values = np.array(values, dtype=np.float64)
        for i in range(len(leaves)):  # finished games are worth their returns
            if game.is_terminal(leaves[i]):
                values[i] = game.returns(leaves[i])
        return np.asarray(priors, dtype=np.float64), values


def zero_sum_values(v: np.ndarray, players: np.ndarray, num_players: int) -> np.ndarray:
    """Per-seat values from the acting seat's value ``v`` in a zero-sum game."""
    out = np.zeros((len(v), num_players))
    for i, (x, p) in enumerate(zip(v, players)):
        out[i, :] = -x / max(1, num_players - 1)
        if p >= 0:
            out[i, p] = x
    return out


def _spec(game: str) -> GameSpec | None:
    """The spec of ``game`` (a game or variant name), or None for a name the catalogue does not know."""
    return catalogue.game_spec(game) if game in catalogue.names() else None


def _function(target: str) -> Any:
    """The function named by ``"module:function"``."""
    mod, name = target.split(":")
    return getattr(importlib.import_module(mod), name)


def playout_games() -> list[str]:
    """The games with a compiled heuristic playout policy, sorted.

    Each game declares its own in ``octagames/<game>/variants.py`` (``GameSpec.playout_policy``,
    ``"module:function"`` with ``policy(s, player, mask, n_legal) -> action``): what
    ``mcts:<n>:heuristic`` plays its playouts with, and the AlphaZero search's
    :attr:`~octagames.agents.learn.az.SearchConfig.playout_mix`.
    """
    return sorted(g for g in catalogue.games() if catalogue.game_spec(g).playout_policy is not None)


def has_playout_policy(game: str) -> bool:
    """Whether the game (or variant) named ``game`` has a compiled heuristic playout policy."""
    spec = _spec(game)
    return spec is not None and spec.playout_policy is not None


def playout_policy(game: str | Game) -> Any:
    """The compiled heuristic playout policy of ``game`` (see :func:`playout_games`): :func:`playout_target`'s.

    Raises:
        ValueError: the game has none.
    """
    return _function(playout_target(game))


def playout_target(game: str | Game) -> str:
    """The ``"module:function"`` of ``game``'s compiled heuristic playout policy: a game's config picks its own
    where the game has one per value of a config field (``GameSpec.playout_policy_by``: Octa's rulebooks,
    whose playouts then compile one rulebook's priorities); a name, or a value without one of its own, the
    game's ``playout_policy``.

    Raises:
        ValueError: the game has none.
    """
    name = game if isinstance(game, str) else game.name
    spec = _spec(name)
    if spec is None or spec.playout_policy is None:
        raise ValueError(f"game {name!r} has no compiled heuristic playout policy; "
                         f"games with one: {playout_games()}")
    if isinstance(game, Game) and spec.playout_policy_by is not None:
        field, targets = spec.playout_policy_by
        return targets.get(getattr(game.config, field), spec.playout_policy)
    return spec.playout_policy


def default_exploration(game: Game) -> float:
    """The exploration constant used for ``game`` when :attr:`MCTSConfig.exploration` is None.

    The game's ``GameSpec.exploration`` (``octagames/<game>/variants.py``), else 1.4. Achten's
    outcomes are nearly always a full win or loss (the dealing penalty), so its values spread
    over all of [0, 1] and a smaller constant (0.35) searches its own good lines deeper; the
    measurement that chose it is in ``docs/strength.md`` (``python -m
    octagames.experiments.bench_mcts --game achten-dealer-pays --skip-speed --random-budget 5000``).
    """
    spec = _spec(game.name)
    return 1.4 if spec is None or spec.exploration is None else spec.exploration


def compiled_value(game: Game) -> Any:
    """The game's compiled leaf value (a ``"value"`` ``GameSpec.mcts_evaluator``), or None."""
    spec = _spec(game.name)
    if spec is None or spec.mcts_evaluator is None or spec.mcts_evaluator[0] != "value":
        return None
    return _function(spec.mcts_evaluator[1])


def default_evaluator(game: Game) -> Any:
    """The evaluator :class:`MCTSAgent` uses when none is given.

    The game's ``GameSpec.mcts_evaluator`` (``octagames/<game>/variants.py``), ``(kind,
    "module:function")``: a compiled leaf value (:class:`CompiledValue`, kind ``"value"``) or a
    compiled playout policy (:class:`CompiledRollout`, kind ``"playout"``). Octiles, whose
    random playouts last hundreds of turns and say little, takes a path-distance
    leaf value; Achten takes the value of a showdown at the leaf (its random
    playouts make the searcher's own later play random, so continuing to swap
    looked worse than passing early on a mediocre hand; a playout with the
    compiled heuristic ``achten_playout`` made no measurable difference). Every
    other game (and any later one) uses uniformly random playouts
    (:class:`RandomRollout`).
    """
    spec = _spec(game.name)
    if spec is None or spec.mcts_evaluator is None:
        return RandomRollout()
    kind, target = spec.mcts_evaluator
    fn = _function(target)
    return CompiledValue(fn) if kind == "value" else CompiledRollout(fn)


# ------------------------------------------------------------------ search driver
@dataclass
class SearchResult:
    """What :func:`search` found.

    Attributes:
        action: the chosen action (most visited root child).
        visits: root visit count of every action (float64, ``num_actions``).
        values: mean value in [0, 1] of every root action for the searcher.
        simulations: simulations run.
        nodes: tree nodes used.
        seconds: wall time.
    """

    action: int
    visits: np.ndarray
    values: np.ndarray
    simulations: int
    nodes: int
    seconds: float


class MCTS:
    """A reusable searcher for one game (tree and buffers allocated once).

    Args:
        game: the game and config.
        config: search settings.
        evaluator: :class:`RandomRollout` (default), :class:`CompiledRollout`,
            :class:`CompiledValue` or a :class:`PythonEvaluator`.
    """

    def __init__(self, game: Game, config: MCTSConfig | None = None, evaluator: Any = None) -> None:
        self.game = game
        self.config = config or MCTSConfig()
        self.evaluator = evaluator or RandomRollout()
        policy = getattr(self.evaluator, "policy", random_policy)
        value = self.evaluator.value if isinstance(self.evaluator, CompiledValue) else None
        self.use_value = value is not None
        self.kernels = search_kernels(game.kernel_module, policy,
                                      value if value is not None else returns_value)
        self.exploration = (self.config.exploration if self.config.exploration is not None
                            else default_exploration(game))
        self.tree = new_tree(self.config.max_nodes, game.info.max_players)
        branching = self.config.chance_branching
        if branching == "auto":
            branching = "outcome" if game.info.information == "perfect" else "merged"
        self.branch_chance = branching == "outcome"
        self.max_rollout = int(self.config.max_rollout or game.max_game_length)
        if self.use_value:
            self.max_rollout = min(self.max_rollout, self.evaluator.rollout_steps)
        depth = game.max_game_length + 2
        b = self.config.batch_size
        self._mask = np.zeros(game.num_actions, np.uint8)
        self._path = np.zeros((b, depth), np.int64)
        self._stats = np.zeros((b, depth), np.int64)
        self._rets = np.zeros(game.info.max_players, np.float64)
        self._work = np.zeros(b, dtype=game.dtype)

    def search(self, state: np.void, player: int, seed: int) -> SearchResult:
        """Search from ``state`` for ``player`` (the acting seat); ``state`` is not modified.

        Args:
            state: a record in which ``player`` acts (for hidden-information
                games any determinization of ``player``'s information state:
                only what ``player`` can see is used).
            player: the searching seat.
            seed: the search's RNG seed (same seed, same result).
        """
        g, cfg, t, k = self.game, self.config, self.tree, self.kernels
        if g.acting_player(state) != player:
            raise ValueError(f"player={player} is not the acting seat of this state "
                             f"(acting: {g.acting_player(state)})")
        start = time.perf_counter()
        # a private copy: the caller's record is never touched
        root = np.array(state, dtype=g.dtype).reshape(1)
        root_bytes = root.view(np.uint8)
        rng = np.array([mix64(np.uint64(int(seed) % (1 << 64)))], np.uint64)
        clear_tree(t)
        lo, hi = g.min_utility, g.max_utility
        if hi <= lo:
            hi = lo + 1.0
        done = 0
        chunk = cfg.num_simulations if cfg.time_limit is None else 64
        python_eval = isinstance(self.evaluator, PythonEvaluator)
        while done < cfg.num_simulations:
            n = min(chunk, cfg.num_simulations - done)
            if python_eval:
                n = self._python_batch(root_bytes, player, rng, min(n, cfg.batch_size), lo, hi)
            else:
                work = self._work[:1]
                k.run(root_bytes, work, work.view(np.uint8), player, rng, n, *t[:9], t.size,
                      self.exploration, self.branch_chance, self._mask, self._path[0], self._stats[0],
                      self._rets, lo, hi, self.max_rollout, self.use_value, cfg.objective == "win",
                      g.num_players)
            done += n
            if cfg.time_limit is not None and time.perf_counter() - start >= cfg.time_limit:
                break
        visits = np.zeros(g.num_actions)
        values = np.zeros(g.num_actions)
        ch = int(t.first_child[0])
        while ch >= 0:
            if t.tag[ch] == player and t.visits[ch] > 0:
                visits[t.action[ch]] = t.visits[ch]
                values[t.action[ch]] = t.value[ch, player] / t.visits[ch]
            ch = int(t.sibling[ch])
        legal = g.legal_mask(state, player).astype(bool)
        score = np.where(legal, visits + 1e-6 * values, -1.0)  # most visits, then best value
        action = int(np.argmax(score))
        return SearchResult(action, visits, values, done, int(t.size[0]), time.perf_counter() - start)

    def _python_batch(self, root_bytes, player, rng, n, lo, hi) -> int:
        # n compiled descents, one evaluator call, n compiled back-ups
        g, t, k, cfg = self.game, self.tree, self.kernels, self.config
        use_prior = isinstance(self.evaluator, PolicyValue)
        rows = []
        for i in range(n):
            work = self._work[i:i + 1]
            seed = int(mix64(rng[0] + np.uint64(i + 1))) >> 1
            out = k.descend(root_bytes, work, work.view(np.uint8), player, seed, *t[:9], t.size,
                            self.exploration, use_prior, self.branch_chance, self._mask, self._path[i],
                            self._stats[i], False)
            rows.append(out)
        rng[0] = mix64(rng[0] + np.uint64(n + 7))
        leaves = self._work[:n].copy()
        players = np.array([r[5] for r in rows], np.int64)
        masks = np.zeros((n, g.num_actions), np.uint8)
        for i in range(n):
            if players[i] >= 0:
                masks[i] = g.legal_mask(leaves[i], int(players[i]))
        priors, values = self.evaluator.evaluate(g, leaves, players, masks)
        for i, (status, plen, nst, leaf, sp, lp) in enumerate(rows):
            if priors is not None and status == LEAF and lp >= 0:
                k.expand_priors(*t[:9], t.size, leaf, sp, lp, masks[i], priors[i])
            v = np.zeros(t.value.shape[1])
            if cfg.objective == "win" and g.is_terminal(leaves[i]):
                win_values(np.asarray(g.returns(leaves[i]), np.float64), g.num_players, v)
            else:
                v[:g.num_players] = np.clip(
                    (np.asarray(values[i], np.float64)[:g.num_players] - lo) / (hi - lo), 0.0, 1.0)
            k.backup(t.value, self._path[i], plen, self._stats[i], nst, v)
        return n


# ------------------------------------------------------------------ agent
class MCTSAgent(Agent):
    """MCTS behind the agent interface: searches the Turn's determinized state.

    Args:
        config: search settings.
        evaluator: see :class:`MCTS`; None: :func:`default_evaluator` of the game.
        name: the agent's display name.
    """

    def __init__(self, config: MCTSConfig | None = None, evaluator: Any = None, name: str | None = None):
        self.config = config or MCTSConfig()
        self.evaluator = evaluator
        self.name = name or f"mcts:{self.config.num_simulations}"  # the registry spec of this search
        self._searchers: dict[int, MCTS] = {}
        self.rng = np.random.default_rng(0)
        self.last: SearchResult | None = None

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Seed the agent's search RNG for a new game."""
        self.rng = np.random.default_rng(seed)

    def searcher(self, game: Game) -> MCTS:
        """The (cached) :class:`MCTS` of ``game``."""
        key = id(game)
        if key not in self._searchers or self._searchers[key].game is not game:
            evaluator = self.evaluator if self.evaluator is not None else default_evaluator(game)
            self._searchers[key] = MCTS(game, self.config, evaluator)
        return self._searchers[key]

    def search_budget(self) -> int:
        """Simulations a decision (:meth:`Agent.search_budget`)."""
        return int(self.config.num_simulations)

    def act(self, turn: Turn) -> int:
        """Search ``turn.state`` (a determinization for ``turn.seat``) and return the most visited action;
        its visit shares and values are told as :attr:`last_thinking`."""
        if turn.legal_mask.sum() == 1:
            return int(turn.legal_actions[0])
        r = self.last = self.searcher(turn.game).search(turn.state, turn.seat, int(self.rng.integers(1 << 62)))
        self.last_thinking = considered(turn, r.action, policy=r.visits, values=r.values, visits=r.simulations)
        return r.action


def _factory(game: str, arg: str | None) -> Agent:
    # "mcts" or "mcts:<simulations>[:random][:win][:c=<exploration>]"
    if arg is None:
        return MCTSAgent()
    parts = arg.split(":")
    usage = ("the argument is the number of simulations in plain digits (0-9), then optionally ':random' (random playouts "
             "in every game), ':heuristic' (playouts by the game's compiled heuristic: "
             f"{', '.join(playout_games())}), ':win' (objective='win') and ':c=<exploration>', "
             "as in mcts:2000:win:c=0.5")
    if not is_count(parts[0]):  # plain digits: int() would also read "+3", " 3", "1_000", "٣"
        raise ValueError(f"agent 'mcts:{arg}': {usage}")
    sims = int(parts[0])
    options: dict[str, Any] = {"num_simulations": sims}
    evaluator = None
    given: dict[str, str] = {}  # what each option sets, and the part that set it: each is given once
    for part in parts[1:]:
        kind = {"random": "playouts", "heuristic": "playouts", "win": "objective"}.get(
            part, "exploration" if part.startswith("c=") else "")
        if kind in given:
            raise ValueError(f"agent 'mcts:{arg}': {part!r} repeats the {kind} ({given[kind]!r}); "
                             "each option is given once")
        given[kind] = part
        if part == "random":
            evaluator = RandomRollout()
        elif part == "heuristic":
            try:
                evaluator = CompiledRollout(playout_policy(game))
            except ValueError as e:
                raise ValueError(f"agent 'mcts:{arg}': {e}") from e
        elif part == "win":
            options["objective"] = "win"
        elif part.startswith("c="):
            try:
                options["exploration"] = float(part[2:])
            except ValueError as e:
                raise ValueError(f"agent 'mcts:{arg}': {part!r} is not c=<number>; {usage}") from e
            if not math.isfinite(options["exploration"]):
                raise ValueError(f"agent 'mcts:{arg}': {part!r} is not a finite number; {usage}")
        else:
            raise ValueError(f"agent 'mcts:{arg}': {part!r} is not valid; {usage}")
    return MCTSAgent(MCTSConfig(**options), evaluator)  # make_agent names it after the spec
