"""A game tree flattened once into arrays: the input of every exact CFR algorithm.

A game is walked once, breadth first, into a :class:`FlatTree` of plain arrays:
nodes ordered by depth, the kind and acting player of each node, the
information-set index of decision nodes, the chance probability or the
information-set action slot of the edge into every node, contiguous child
ranges and terminal utilities. The solvers (:mod:`octagames.agents.cfr.solver`) and the
evaluations (:mod:`octagames.agents.cfr.exploitability`) are loops over these arrays,
not recursions over states. Two sources feed :func:`flatten`:

* :class:`GameSource`: our games through the :class:`octagames.core.Game` contract.
  Information states are keyed by the bytes of ``Game.observation(s, seat)`` of the
  acting seat; simultaneous moves are taken one seat at a time with hidden
  commitments (the engine's ``acting_player``), the standard turn-based conversion.
  Runs of consecutive chance nodes (the deal) are collapsed into one chance node
  whose outcomes are the distinct resulting records (``collapse_chance``): a record
  fully determines its future and every observation, so this is the same game.
  With ``roots`` (e.g. :func:`deal_pool`, K sampled deals) the root is instead one
  chance node, uniform over those records: a reduced game for configs whose full
  deal is too big to flatten (information sets still merge across the K deals
  wherever a player's observation is the same).
* :class:`SpielSource`: any sequential ``pyspiel`` game, keyed by
  ``information_state_string`` (needs the ``openspiel`` extra).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np

from octagames.agents.arena import progress_bar
from octagames.core import CHANCE, TERMINAL, Game

# Node kinds in a FlatTree.
K_TERMINAL, K_CHANCE, K_DECISION = 0, 1, 2


#: the most nodes :func:`flatten` builds by default (exact CFR's whole tree)
MAX_NODES = 20_000_000


#: the share of the memory available when a walk begins that :func:`flatten` may fill by default (a full-size
#: game's tree takes 1.5-2 kB a node: its 20M nodes would need 30-40 GB)
MEMORY_SHARE = 0.5


class TreeTooLarge(ValueError):
    """A game tree larger than :func:`flatten` was allowed to build."""


def available_memory() -> int | None:
    """Bytes of memory the system has available now (Linux's ``MemAvailable``); None where it does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def resident_bytes() -> int | None:
    """Bytes of this process in memory now (``/proc/self/statm``); None where the system does not say."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class MemoryFull(TreeTooLarge):
    """A walk refused when it filled its share of the memory (:class:`MemoryGuard`)."""


class MemoryGuard:
    """Refuses a walk once this process has grown by more than ``max_bytes`` since the guard was made.

    :meth:`tick` once per state the walk keeps; the process's size is read every ``every`` ticks and shown on
    ``bar`` (a tqdm bar counting the states, or None). Where the system does not tell a process its size (no
    ``/proc``), nothing is refused.
    """

    def __init__(self, max_bytes: int | None, every: int = 4096, bar: Any = None) -> None:
        self.start = resident_bytes()
        self.max_bytes = max_bytes if self.start is not None else None
        self.every = every
        self.bar = bar
        self.ticks = 0

    def grown(self) -> int:
        """Bytes the process has grown by since the guard was made (0 where unknown)."""
        now = resident_bytes()
        return 0 if now is None or self.start is None else now - self.start

    def tick(self, held: int) -> None:
        """Count one more state kept; ``held``: how many the walk (or the chance node it lists) holds now.

        Raises:
            MemoryFull: the process grew by more than ``max_bytes``.
        """
        self.ticks += 1
        if self.ticks % self.every:
            return
        grown = self.grown()
        if self.bar is not None:
            self.bar.set_postfix_str(f"{grown / 2**30:.2f} GiB in memory", refresh=False)
            self.bar.update(self.every)
        if self.max_bytes is not None and grown > self.max_bytes:
            raise MemoryFull(f"the walk filled {grown / 2**30:.2f} GiB of memory holding {held:,} states, past "
                             f"its limit of {self.max_bytes / 2**30:.2f} GiB (max_bytes; by default "
                             f"{MEMORY_SHARE:.0%} of the memory available when it began)")


class _PoolRoot:
    """Marker of the root chance node of a pool of records (:class:`GameSource` ``roots``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "POOL_ROOT"


#: The state object :meth:`GameSource.root` returns when the source has ``roots``.
POOL_ROOT = _PoolRoot()


class GameSource:
    """Walks one of our games through the :class:`Game` contract.

    Args:
        game: the game and config.
        root: the state to start from (default: a new game, before the deal).
        collapse_chance: merge runs of chance nodes into one chance node whose
            outcomes are the distinct resulting records (exact; much smaller trees).
        roots: instead of one root, a pool of records of ``game`` (e.g. the K deals
            of :func:`deal_pool`): the tree's root is then a chance node, uniform
            over them (in this order), and :meth:`root` returns :data:`POOL_ROOT`.

    Raises:
        ValueError: both ``root`` and ``roots`` given, ``roots`` empty, or a
            record of another game.
    """

    def __init__(
        self,
        game: Game,
        root: np.void | None = None,
        collapse_chance: bool = True,
        roots: Sequence[np.void] | None = None,
    ):
        self.game = game
        self.num_players = game.num_players
        self._root = game.new_state(0) if root is None else game.clone(root)
        self.collapse_chance = collapse_chance
        self.roots: list[np.void] | None = None
        if roots is not None:
            if root is not None:
                raise ValueError("give either root or roots, not both")
            if len(roots) == 0:
                raise ValueError("roots is empty; it must hold at least one record")
            for r in roots:
                if getattr(r, "dtype", None) != game.dtype:
                    raise ValueError(
                        f"roots must be records of {game.name} (dtype {game.dtype}), got {r!r:.80}"
                    )
            self.roots = [game.clone(r) for r in roots]
        self._rules = game.kernels  # the compiled kernels, called directly (no per-call checks)
        self._mbuf = np.zeros(game.num_actions, dtype=np.uint8)
        self._obuf = np.zeros(game.observation_size, dtype=np.float32)

    def root(self) -> np.void | _PoolRoot:
        """The root record (a copy), or :data:`POOL_ROOT` for a pool of ``roots``."""
        return POOL_ROOT if self.roots is not None else self.game.clone(self._root)

    def node_type(self, s: np.void | _PoolRoot) -> tuple[int, int]:
        """``(kind, player)`` of a record (the pool root is a chance node)."""
        if s is POOL_ROOT:
            return K_CHANCE, -1
        p = int(self._rules.acting_player(s))
        if p == TERMINAL:
            return K_TERMINAL, -1
        if p == CHANCE:
            return K_CHANCE, -1
        return K_DECISION, p

    def chance_children(self, s: np.void | _PoolRoot, limit: int | None = None,
                        states: int | None = None, guard: MemoryGuard | None = None) -> list[tuple[float, np.void]]:
        """``(probability, child)`` pairs of a chance node (the pool root: uniform over ``roots``).

        Raises:
            TreeTooLarge: more than ``limit`` children, or more than ``states`` chance states at one step of a
                collapsed chance sequence (counted while it is listed, so a deal of a full-size game is refused
                before it fills the memory), or the ``guard``'s memory filled while they are listed.
        """
        if s is POOL_ROOT:
            assert self.roots is not None
            return [(1.0 / len(self.roots), self.game.clone(r)) for r in self.roots]
        if not self.collapse_chance:
            out = []
            for a, pr in self.game.chance_outcomes(s):
                c = self.game.clone(s)
                self._rules.apply_action(c, a)
                out.append((pr, c))
            return out
        frontier: dict[bytes, list] = {s.tobytes(): [1.0, s]}
        done: dict[bytes, list] = {}
        while frontier:
            nxt: dict[bytes, list] = {}
            for prob, st in frontier.values():
                for a, pr in self.game.chance_outcomes(st):
                    c = self.game.clone(st)
                    self._rules.apply_action(c, a)
                    key = c.tobytes()
                    target = nxt if int(self._rules.acting_player(c)) == CHANCE else done
                    if key in target:
                        target[key][0] += prob * pr
                    else:
                        target[key] = [prob * pr, c]
                        if guard is not None:
                            guard.tick(len(done) + len(nxt))
                        if limit is not None and len(done) > limit:
                            raise TreeTooLarge(f"a chance node has more than {limit} outcomes left under max_nodes")
                        if states is not None and len(nxt) > states:
                            raise TreeTooLarge(f"a chance node's outcomes pass through more than {states} states")
            frontier = nxt
        return [(float(p), c) for p, c in done.values()]

    def legal_actions(self, s: np.void, player: int) -> list[int]:
        """Sorted legal actions of ``player``."""
        self._rules.legal_mask(s, player, self._mbuf)
        return np.flatnonzero(self._mbuf).tolist()

    def child(self, s: np.void, action: int) -> np.void:
        """The record after ``action``."""
        c = self.game.clone(s)
        if not self._rules.apply_action(c, action):
            raise ValueError(f"action {action} refused by the engine")
        return c

    def info_key(self, s: np.void, player: int) -> bytes:
        """Information-state key: the bytes of ``player``'s observation."""
        self._rules.observation(s, player, self._obuf)
        return self._obuf.tobytes()

    def utilities(self, s: np.void) -> np.ndarray:
        """Returns of every seat at a terminal record."""
        return self.game.returns(s)


def deal_pool(
    game: Game, k: int, seed: int = 0, per_view: int = 1, max_tries: int | None = None
) -> list[np.void]:
    """``k`` distinct deals of ``game``: records at the first decision after the opening chance nodes.

    Each deal starts from ``game.new_state(0)`` and plays the chance outcomes drawn
    from their probabilities with ``numpy.random.default_rng(seed)``, so the records
    are exactly those the OpenSpiel adapter reaches by the same outcomes, and the
    pool is reproducible. A deal equal to an earlier one (same record) is drawn again.
    With ``GameSource(game, roots=deal_pool(...))`` the reduced game deals one of
    them uniformly: where every deal is equally likely (Achten: card by card,
    uniform over the undealt cards) that is the full game's deal conditioned on
    the pool.

    A small random pool rarely holds two deals that a player cannot tell apart, so
    a player may as good as know the deal from their first view. With
    ``per_view = m > 1`` each drawn deal comes with ``m - 1`` more deals that its
    first decider cannot tell from it: ``game.determinize`` of the deal for that
    seat (everything it cannot see resampled), so that decision's information
    sets hold ``m`` deals each (fewer where a determinization repeats).

    Args:
        game: the game and config.
        k: number of deals, >= 1.
        seed: seed of the draw (and of the determinizations).
        per_view: deals per first-decider view, >= 1 (1: independent deals).
        max_tries: give up after this many draws (default ``100 * k``).

    Returns:
        The ``k`` records, in the order drawn.

    Raises:
        ValueError: ``k < 1`` or ``per_view < 1``, or fewer than ``k`` distinct deals
            were found.
    """
    if k < 1:
        raise ValueError(f"k={k!r} is not valid; it must be >= 1")
    if per_view < 1:
        raise ValueError(f"per_view={per_view!r} is not valid; it must be >= 1")
    rng = np.random.default_rng(seed)
    tries = 100 * k if max_tries is None else max_tries
    seen: set[bytes] = set()
    out: list[np.void] = []
    for _ in range(tries):
        if len(out) == k:
            break
        s = game.new_state(0)
        while game.is_chance(s):
            outs = game.chance_outcomes(s)
            game.apply_action(s, outs[int(rng.choice(len(outs), p=np.array([p for _, p in outs])))][0])
        batch = [s]
        if per_view > 1 and not game.is_terminal(s):
            p = game.acting_player(s)
            batch += [game.determinize(s, p, int(rng.integers(2**31))) for _ in range(per_view - 1)]
        for r in batch:
            key = r.tobytes()
            if key not in seen and len(out) < k:
                seen.add(key)
                out.append(r)
    if len(out) < k:
        raise ValueError(f"k={k} is not valid: only {len(out)} distinct deals found in {tries} draws")
    return out


class SpielSource:
    """Walks a sequential ``pyspiel`` game; keys are ``information_state_string``."""

    def __init__(self, game: Any):
        import pyspiel

        if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError("SpielSource needs a sequential game; use pyspiel.convert_to_turn_based")
        self.game = game
        self.num_players = game.num_players()

    def root(self) -> Any:
        """The initial state."""
        return self.game.new_initial_state()

    def node_type(self, s: Any) -> tuple[int, int]:
        """``(kind, player)`` of a state."""
        if s.is_terminal():
            return K_TERMINAL, -1
        if s.is_chance_node():
            return K_CHANCE, -1
        return K_DECISION, s.current_player()

    def chance_children(self, s: Any, limit: int | None = None, states: int | None = None,
                        guard: MemoryGuard | None = None) -> list[tuple[float, Any]]:
        """``(probability, child)`` pairs of a chance node (``limit``: as :meth:`GameSource.chance_children`;
        ``guard`` is not ticked: pyspiel lists a node's outcomes at once, and :func:`flatten` counts them)."""
        outcomes = s.chance_outcomes()
        if limit is not None and len(outcomes) > limit:
            raise TreeTooLarge(f"a chance node has more than {limit} outcomes left under max_nodes")
        return [(p, s.child(a)) for a, p in outcomes]

    def legal_actions(self, s: Any, player: int) -> list[int]:
        """Sorted legal actions."""
        return sorted(s.legal_actions(player))

    def child(self, s: Any, action: int) -> Any:
        """The state after ``action``."""
        return s.child(action)

    def info_key(self, s: Any, player: int) -> str:
        """``information_state_string`` of ``player``."""
        return s.information_state_string(player)

    def utilities(self, s: Any) -> np.ndarray:
        """Returns at a terminal state."""
        return np.asarray(s.returns(), dtype=np.float64)


@dataclass
class FlatTree:
    """A game tree flattened into arrays (nodes in breadth-first order, so by depth).

    Node arrays (length ``num_nodes``; node 0 is the root; a child's index is
    always larger than its parent's, and each node's children are contiguous):

    Attributes:
        num_players: number of players.
        kind: ``K_TERMINAL``, ``K_CHANCE`` or ``K_DECISION``.
        player: acting player of decision nodes (-1 otherwise).
        infoset: information-set index of decision nodes (-1 otherwise).
        child_start: index of the first child.
        num_children: number of children.
        edge_prob: chance probability of the edge into the node (1 otherwise).
        edge_slot: action slot (see below) of the decision edge into the node, -1 otherwise.
        utility: ``[num_nodes, num_players]`` returns at terminal nodes.
        depth_offsets: nodes of depth ``d`` are ``depth_offsets[d]:depth_offsets[d+1]``.
        infoset_player: acting player of each information set.
        infoset_start: first action slot of each information set.
        infoset_num: number of actions of each information set.
        infoset_own_depth: number of the player's own earlier decisions (perfect recall).
        slot_action: the game's action id for each slot.
        keys: the information-state key of each information set.
    """

    num_players: int
    kind: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    edge_prob: np.ndarray
    edge_slot: np.ndarray
    utility: np.ndarray
    depth_offsets: np.ndarray
    infoset_player: np.ndarray
    infoset_start: np.ndarray
    infoset_num: np.ndarray
    infoset_own_depth: np.ndarray
    slot_action: np.ndarray
    keys: list

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return int(self.kind.shape[0])

    @property
    def num_infosets(self) -> int:
        """Number of information sets."""
        return int(self.infoset_player.shape[0])

    @property
    def num_slots(self) -> int:
        """Number of (information set, action) pairs."""
        return int(self.slot_action.shape[0])

    @property
    def structure(self) -> tuple[np.ndarray, ...]:
        """``(kind, player, child_start, num_children, edge_prob, edge_slot)``: the arrays every
        pass over the tree walks, in the order the compiled passes take them first."""
        return (self.kind, self.player, self.child_start, self.num_children, self.edge_prob, self.edge_slot)

    def index(self) -> dict[tuple[int, Hashable], int]:
        """Map ``(player, key) -> information-set index``."""
        return {(int(self.infoset_player[i]), k): i for i, k in enumerate(self.keys)}

    def uniform_policy(self) -> np.ndarray:
        """Uniform probabilities over legal actions, one per slot."""
        return (1.0 / self.infoset_num[self.slot_infoset()]).astype(np.float64)

    def slot_infoset(self) -> np.ndarray:
        """Information-set index of each slot."""
        return np.repeat(np.arange(self.num_infosets), self.infoset_num)

    def fingerprint(self) -> str:
        """A short hash identifying the tree (for checkpoints)."""
        h = hashlib.sha1()
        for a in (self.kind, self.infoset, self.slot_action, self.infoset_num):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:16]


def flatten(source: GameSource | SpielSource, max_nodes: int = MAX_NODES, max_bytes: int | None = None,
            progress: bool = False) -> FlatTree:
    """Walk a game once, breadth first, into a :class:`FlatTree`.

    Args:
        source: a :class:`GameSource` or :class:`SpielSource`.
        max_nodes: refuse trees larger than this.
        max_bytes: refuse a walk once this process has grown by more than this many bytes (None:
            :data:`MEMORY_SHARE` of the memory available when it begins, :func:`available_memory`; no bound
            where the system does not say).
        progress: show the nodes walked and the memory they fill (tqdm, where installed).

    Returns:
        The flat tree.

    Raises:
        TreeTooLarge: the tree exceeds ``max_nodes``, or its walk ``max_bytes`` (a ``ValueError``; found as the
            tree is walked, so the walk stops there, never holding much more than ``max_nodes`` states or
            ``max_bytes``: a full-size game is refused when half the memory is full, not killed when all is).
        ValueError: an information set's states disagree on the legal actions or on the player's own move
            count (the keys are not perfect-recall information states).
    """
    if max_bytes is None:
        available = available_memory()
        max_bytes = None if available is None else int(MEMORY_SHARE * available)
    elif max_bytes < 1:
        raise ValueError(f"max_bytes={max_bytes} is not valid; it must be >= 1 (None: the default share of memory)")
    bar = progress_bar(None, "flattening the game tree", progress, unit=" states")
    try:
        return _flatten(source, max_nodes, MemoryGuard(max_bytes, bar=bar))
    finally:
        if bar is not None:
            bar.close()


def _flatten(source: GameSource | SpielSource, max_nodes: int, guard: MemoryGuard) -> FlatTree:
    """:func:`flatten`'s walk, refused by ``guard`` once the memory fills."""
    P = source.num_players
    kind, player, infoset, cstart, nchild, eprob, eslot, depth_off = [], [], [], [], [], [], [], [0]
    util_rows: dict[int, np.ndarray] = {}
    is_index: dict[tuple[int, Hashable], int] = {}
    is_player, is_start, is_num, is_depth, slot_action, keys = [], [], [], [], [], []
    # each level entry: (state, edge_prob, edge_slot, own-decision counts)
    level = [(source.root(), 1.0, -1, (0,) * P)]
    while level:
        nxt = []
        base = len(kind) + len(level)  # index of the first node of the next level
        for st, pr, sl, own in level:
            n = len(kind)
            k, p = source.node_type(st)
            kind.append(k)
            player.append(p)
            eprob.append(pr)
            eslot.append(sl)
            cstart.append(base + len(nxt))
            if k == K_TERMINAL:
                infoset.append(-1)
                nchild.append(0)
                util_rows[n] = source.utilities(st)
            elif k == K_CHANCE:
                infoset.append(-1)
                try:
                    kids = source.chance_children(st, max_nodes - len(kind) - len(nxt), max_nodes, guard)
                except MemoryFull:
                    raise
                except TreeTooLarge:
                    raise TreeTooLarge(f"the tree has more than max_nodes={max_nodes} nodes") from None
                nchild.append(len(kids))
                nxt.extend((c, cp, -1, own) for cp, c in kids)
            else:
                key = source.info_key(st, p)
                acts = source.legal_actions(st, p)
                i = is_index.get((p, key))
                if i is None:
                    i = is_index[(p, key)] = len(keys)
                    keys.append(key)
                    is_player.append(p)
                    is_start.append(len(slot_action))
                    is_num.append(len(acts))
                    is_depth.append(own[p])
                    slot_action.extend(acts)
                elif is_num[i] != len(acts) or slot_action[is_start[i] : is_start[i] + len(acts)] != acts:
                    raise ValueError(f"information set {key!r} has different legal actions in two states")
                elif is_depth[i] != own[p]:
                    raise ValueError(
                        f"information set {key!r} is reached after different numbers of the "
                        f"player's own moves: the keys do not have perfect recall"
                    )
                infoset.append(i)
                nchild.append(len(acts))
                own2 = tuple(o + (q == p) for q, o in enumerate(own))
                nxt.extend((source.child(st, a), 1.0, is_start[i] + j, own2) for j, a in enumerate(acts))
            if len(kind) + len(nxt) > max_nodes:
                raise TreeTooLarge(f"the tree has more than max_nodes={max_nodes} nodes")
            guard.tick(len(kind) + len(nxt))
        depth_off.append(len(kind))
        level = nxt
    N = len(kind)
    utility = np.zeros((N, P), dtype=np.float64)
    for n, u in util_rows.items():
        utility[n] = u[:P]
    return FlatTree(
        num_players=P,
        kind=np.asarray(kind, dtype=np.int8),
        player=np.asarray(player, dtype=np.int32),
        infoset=np.asarray(infoset, dtype=np.int32),
        child_start=np.asarray(cstart, dtype=np.int64),
        num_children=np.asarray(nchild, dtype=np.int32),
        edge_prob=np.asarray(eprob, dtype=np.float64),
        edge_slot=np.asarray(eslot, dtype=np.int64),
        utility=utility,
        depth_offsets=np.asarray(depth_off, dtype=np.int64),
        infoset_player=np.asarray(is_player, dtype=np.int32),
        infoset_start=np.asarray(is_start, dtype=np.int64),
        infoset_num=np.asarray(is_num, dtype=np.int32),
        infoset_own_depth=np.asarray(is_depth, dtype=np.int32),
        slot_action=np.asarray(slot_action, dtype=np.int32),
        keys=keys,
    )


def flatten_game(
    game: Game | str, root: np.void | None = None, roots: Sequence[np.void] | None = None, **config: Any
) -> FlatTree:
    """Flatten one of our games (``Game`` or short name plus config fields).

    ``root`` / ``roots`` are passed to :class:`GameSource` (one start record, or a pool).
    """
    g = game if isinstance(game, Game) else Game(game, **config)
    return flatten(GameSource(g, root, roots=roots))


def flatten_spiel(game: Any | str) -> FlatTree:
    """Flatten a pyspiel game (object or name such as ``"kuhn_poker"``)."""
    import pyspiel

    g = pyspiel.load_game(game) if isinstance(game, str) else game
    return flatten(SpielSource(g))


__all__ = [
    "K_CHANCE",
    "K_DECISION",
    "K_TERMINAL",
    "POOL_ROOT",
    "FlatTree",
    "GameSource",
    "SpielSource",
    "deal_pool",
    "flatten",
    "flatten_game",
    "flatten_spiel",
]
