"""Octiles rules engine (seed: the Dutch rulebook of Dale Walton's *Octiles*, basic game).

Two to four players race their runners across a board of 17 octagon spaces.
Each space holds a path tile (four paths joining its eight sides in pairs);
paths continue across neighbouring tiles and 8 curves printed on the board and
end at the first of the 16 stops or 20 home circles they reach. A turn is:
place the exchange tile (any rotation) on any space, replacing the tile there,
then move one own runner along one continuous path that crosses the placed
tile; the removed tile becomes the next player's exchange tile. The first
player with all runners on the home circles of the opposite side wins. The
board wiring is in :mod:`octagames.octiles.board`; ``docs/rules/octiles.md``
traces every rule of the seed to this code and its tests.

Chance
------
Which tile lies where face down is never decided in advance: a face-down tile
has no paths (a path reaching it is a dead end) and its identity is a chance
outcome, uniform over the tiles not yet seen, drawn when it is revealed. The
chance nodes are, in order: the face-up exchange tile at setup; with 3
players the identity and rotation of the two octagons next to the unused side;
the start player (drawn by lot); and during play the reveal of a face-down
tile picked up by a placement (after the move, when it is handed on).

Chance outcome ids (``CHANCE_OUTCOMES``)
----------------------------------------
======  ====  ================================================================
id      size  meaning
======  ====  ================================================================
0..17   18    ``tile``: the tile being revealed is tile ``id`` (boardspace
              1..18)
18..25  8     ``rotation``: rotation ``id - 18`` of a tile turned up at
              3-player setup
26..29  4     ``start_player``: seat ``id - 26`` is the start player
======  ====  ================================================================

Actions (one flat space of 284, ``ACTIONS``)
--------------------------------------------
========  ====  ================================================================
action    size  meaning
========  ====  ================================================================
0..135    136   ``place``: place the exchange tile on space ``a // 8`` turned
                ``a % 8`` steps clockwise (spaces numbered as in
                :mod:`~octagames.octiles.board`: c1 d1 a2 b2 ... c5)
136..279  144   ``move``: move the runner standing on point ``(a-136) // 4`` out
                in contact direction ``(a-136) % 4`` (NE, SE, SW, NW of a stop;
                a home circle has only direction 0)
280       1     ``pass``: forfeit the turn (only when no legal turn exists); the
                exchange tile goes unplayed to the next player
281..283  3     ``setup``: at setup: start a runner on middle circle ``a - 280``
                (1..3) of one's own side (only with ``choose_start_circles``)
========  ====  ================================================================

A placement is legal only if a legal runner move over the placed tile
follows; after it, only such moves are legal. Rotations that look alike on
symmetric tiles are distinct actions with the same effect.

Observation (seats relative to the viewer, 0 = self; all of it is public)
-------------------------------------------------------------------------
``OBS_LAYOUT`` (named views: ``Game.observation_views``):

==========  ====  ================================================================
offset      size  meaning
==========  ====  ================================================================
0..1546     1547  ``board``: per space (17 blocks of 91): [0] face down; [1:19]
                  tile one-hot; [19:27] rotation one-hot; [27:91] ``link[k, j]``:
                  side k joined to side j (8x8, face-up tiles only)
1547..1565  19    ``exch``: exchange tile one-hot (18); [18] unknown: picked up
                  face down, revealed after this move
1566..1582  17    ``placed``: space where the exchange tile was placed this turn
1583..1726  144   ``runners``: ``runner[q, point]``: a runner of relative seat q
                  is on point
1727..1742  16    ``sides``: ``side[q, b]``: relative seat q plays from board side
                  b (W N E S)
1743..1746  4     ``to_act``: relative seat to act
1747..1755  9     ``phase``: phase one-hot (setup, deal, deal-3p, rotate-3p, lot,
                  place, move, reveal, over)
1756..1773  18    ``unseen``: tile t not yet seen (still face down somewhere)
1774        1     ``forced``: the forced leaving of start circles binds the move
                  of this turn (set once its tile is placed; the placement's legal
                  mask obeys it already)
1775        1     ``passes``: consecutive forfeits / 4
1776        1     ``team``: team variant
1777        1     ``play_on``: play on for ranking
1778        1     ``runners_per_player``: runners per player / 5
1779..1781  3     ``num_players``: number of players one-hot (2, 3, 4)
1782        1     ``turns``: turns played / max_turns
1783..1786  4     ``finished``: relative seat has finished (all runners home)
1787        1     ``goal_locks``: runners on their goal circle never move again
                  (``goal_locks``)
1788..1807  20    ``distance``: ``distance[q, i]``: path distance of runner i of
                  relative seat q to its nearest goal circle no runner of that
                  seat holds (:func:`goal_distance`; 0 on a goal circle, 12 before
                  it is placed) / 12
1808..1811  4     ``distance_sum``: relative seat q's path distances summed / 60
==========  ====  ================================================================

Total 1812 floats (1788 before ``distance`` and ``distance_sum`` were appended: a network trained on
those reads that prefix, ``EARLIER_OBS_SIZES``). Nothing is hidden from one player more than another, so
the observation is the full state up to the RNG and the last-move record.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numba as nb
import numpy as np

from octagames.core import (CHANCE, TERMINAL, Block, GameInfo, Layout, check_choice, check_range, nth_set,
                            out_of_range, rng_below, seed_rng)
from octagames.octiles.board import (DIR_NAMES, EXIT, HOME_OF, LINK_A, LINK_B, LINK_KIND, LINK_SLOT,
                                     NUM_DIRS, NUM_POINTS, NUM_SIDES, NUM_SLOTS, NUM_SPACES, NUM_STOPS,
                                     NUM_TILES, POINT_DIST, POINT_HOME_SIDE, POINT_NAMES, POINT_SIDE,
                                     POINT_SLOT, POINT_SPACE, SIDE_SPACES, SLOT_DIR, SPACE_NAMES)
from octagames.record_checks import replay_end
from octagames.specialize import cached, engine_kernels

# ---------------------------------------------------------------- static facts
MAX_PLAYERS = 4
MAX_RUNNERS = 5
MAX_PATH = 72      # a path uses every octagon side at most once: <= 136/2 crossings
DEFAULT_MAX_TURNS = 500   # engine cap on turns (a truncation, mostly): 10x the longest heuristic self-play game
MAX_TURNS = 2000          # the largest cap a config may set
#: rejection draws of :func:`random_legal_action` before it builds the whole mask
PLACEMENT_TRIES = 12
SPACE_FEATURES = 91  # per space: face down, tile one-hot (18), rotation one-hot (8), links (8 x 8)
FAR = 12  # the path distance of a runner not on the board yet (POINT_DIST is at most 6)

PH_SETUP, PH_DEAL, PH_DEAL3, PH_ROT3, PH_LOT, PH_PLACE, PH_MOVE, PH_REVEAL, PH_OVER = range(9)
PHASE_NAMES = ("setup", "deal", "deal-3p", "rotate-3p", "lot", "place", "move", "reveal", "over")

# The action, chance and observation tables, declared once (the docstring tables are generated
# from them, the kernels read the ids and offsets below, the strings look up the block of an id).
ACTIONS = Layout([
    Block("place", NUM_SPACES * NUM_SIDES, "place the exchange tile on space ``a // 8`` turned ``a % 8`` "
          "steps clockwise (spaces numbered as in :mod:`~octagames.octiles.board`: c1 d1 a2 b2 ... c5)",
          (NUM_SPACES, NUM_SIDES)),
    Block("move", NUM_POINTS * NUM_DIRS, "move the runner standing on point ``(a-136) // 4`` out in contact "
          "direction ``(a-136) % 4`` (NE, SE, SW, NW of a stop; a home circle has only direction 0)",
          (NUM_POINTS, NUM_DIRS)),
    Block("pass", 1, "forfeit the turn (only when no legal turn exists); the exchange tile goes "
          "unplayed to the next player"),
    Block("setup", 3, "at setup: start a runner on middle circle ``a - 280`` (1..3) of one's own side (only "
          "with ``choose_start_circles``)"),
], title="action")
A_PLACE, A_MOVE = ACTIONS.offset("place"), ACTIONS.offset("move")  # 0, 136
A_PASS, A_SETUP = ACTIONS.offset("pass"), ACTIONS.offset("setup")  # 280, 281
NUM_ACTIONS = ACTIONS.size                                          # 284

CHANCE_OUTCOMES = Layout([
    Block("tile", NUM_TILES, "the tile being revealed is tile ``id`` (boardspace 1..18)"),
    Block("rotation", NUM_SIDES, "rotation ``id - 18`` of a tile turned up at 3-player setup"),
    Block("start_player", MAX_PLAYERS, "seat ``id - 26`` is the start player"),
], title="id")
C_TILE, C_ROT = CHANCE_OUTCOMES.offset("tile"), CHANCE_OUTCOMES.offset("rotation")  # 0, 18
C_SEAT = CHANCE_OUTCOMES.offset("start_player")                                   # 26
NUM_CHANCE = CHANCE_OUTCOMES.size                                                 # 30

OBS_LAYOUT = Layout([
    Block("board", NUM_SPACES * SPACE_FEATURES, "per space (17 blocks of 91): [0] face down; [1:19] tile "
          "one-hot; [19:27] rotation one-hot; [27:91] ``link[k, j]``: side k joined to side j (8x8, "
          "face-up tiles only)", (NUM_SPACES, SPACE_FEATURES)),
    Block("exch", NUM_TILES + 1, "exchange tile one-hot (18); [18] unknown: picked up face down, revealed "
          "after this move"),
    Block("placed", NUM_SPACES, "space where the exchange tile was placed this turn"),
    Block("runners", MAX_PLAYERS * NUM_POINTS, "``runner[q, point]``: a runner of relative seat q is on point",
          (MAX_PLAYERS, NUM_POINTS)),
    Block("sides", MAX_PLAYERS * 4, "``side[q, b]``: relative seat q plays from board side b (W N E S)",
          (MAX_PLAYERS, 4)),
    Block("to_act", MAX_PLAYERS, "relative seat to act"),
    Block("phase", len(PHASE_NAMES), "phase one-hot (setup, deal, deal-3p, rotate-3p, lot, place, move, "
          "reveal, over)"),
    Block("unseen", NUM_TILES, "tile t not yet seen (still face down somewhere)"),
    Block("forced", 1, "the forced leaving of start circles binds the move of this turn (set once its tile is placed; "
          "the placement's legal mask obeys it already)"),
    Block("passes", 1, "consecutive forfeits / 4"),
    Block("team", 1, "team variant"),
    Block("play_on", 1, "play on for ranking"),
    Block("runners_per_player", 1, "runners per player / 5"),
    Block("num_players", 3, "number of players one-hot (2, 3, 4)"),
    Block("turns", 1, "turns played / max_turns"),
    Block("finished", MAX_PLAYERS, "relative seat has finished (all runners home)"),
    Block("goal_locks", 1, "runners on their goal circle never move again (``goal_locks``)"),
    Block("distance", MAX_PLAYERS * MAX_RUNNERS, "``distance[q, i]``: path distance of runner i of relative "
          "seat q to its nearest goal circle no runner of that seat holds (:func:`goal_distance`; 0 on a "
          "goal circle, 12 before it is placed) / 12", (MAX_PLAYERS, MAX_RUNNERS)),
    Block("distance_sum", MAX_PLAYERS, "relative seat q's path distances summed / 60"),
])
O_BOARD, O_SPACE = OBS_LAYOUT.offset("board"), SPACE_FEATURES
O_EXCH, O_PLACED = OBS_LAYOUT.offset("exch"), OBS_LAYOUT.offset("placed")
O_RUNNERS, O_SIDES = OBS_LAYOUT.offset("runners"), OBS_LAYOUT.offset("sides")
O_TURN, O_PHASE = OBS_LAYOUT.offset("to_act"), OBS_LAYOUT.offset("phase")
O_UNSEEN, O_FORCED = OBS_LAYOUT.offset("unseen"), OBS_LAYOUT.offset("forced")
O_PASSES, O_TEAM = OBS_LAYOUT.offset("passes"), OBS_LAYOUT.offset("team")
O_PLAYON, O_NRUN = OBS_LAYOUT.offset("play_on"), OBS_LAYOUT.offset("runners_per_player")
O_NPLAYERS, O_TURNS = OBS_LAYOUT.offset("num_players"), OBS_LAYOUT.offset("turns")
O_FINISHED, O_LOCKS = OBS_LAYOUT.offset("finished"), OBS_LAYOUT.offset("goal_locks")
O_DIST, O_DIST_SUM = OBS_LAYOUT.offset("distance"), OBS_LAYOUT.offset("distance_sum")
OBS_SIZE = OBS_LAYOUT.size  # 1812
EARLIER_OBS_SIZES = (O_DIST,)
"""The observation before the path distances were appended (1788 entries): a network trained on it reads that
prefix (:attr:`octagames.core.Game.earlier_observation_sizes`)."""

# Every (placement, move) pair of one turn, for list_turns.
MAX_TURN_CHOICES = NUM_SPACES * NUM_SIDES * MAX_RUNNERS * NUM_DIRS

INFO = GameInfo(
    name="octiles",
    min_players=2,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CHANCE,
    observation_size=OBS_SIZE,
    # setup: <= 4 seats x 2 middle-circle choices + 6 chance nodes (exchange tile,
    # 2 x identity+rotation, lot); a turn is place + move + reveal (3) or a pass (1);
    # the engine stops the game after max_turns <= MAX_TURNS turns (a draw, but for places won in play-on).
    max_game_length=8 + 6 + 3 * MAX_TURNS,
    min_utility=-1.0,
    max_utility=1.0,
    chance_mode="explicit",
    dynamics="sequential",
    information="perfect",
)

STATE_DTYPE = np.dtype([
    ("rng", np.uint64),            # RNG carried by the record (splitmix64)
    # -- config
    ("num_players", np.int8),
    ("runners", np.int8),          # runners per player
    ("adjacent", np.int8),         # 2 players on adjacent sides (W, N) instead of W, E
    ("team", np.int8),             # 4 players, seats 0+2 against 1+3
    ("play_on", np.int8),          # the others play on for ranking
    ("choose_start", np.int8),     # setup phase: players choose their middle circles
    ("goal_locks", np.int8),       # a runner on its goal circle never moves again (not the seed's rule)
    ("max_turns", np.int32),       # engine cap on turns (a truncation, mostly: see Config)
    # -- board
    ("phase", np.int8),
    ("seat_side", np.int8, (MAX_PLAYERS,)),  # board side (0 W, 1 N, 2 E, 3 S) of each seat
    ("tile", np.int8, (NUM_SPACES,)),        # tile face up on the space, -1 face down
    ("rot", np.int8, (NUM_SPACES,)),         # its rotation (clockwise steps)
    ("exch", np.int8),             # exchange tile, -1 picked up face down and not yet revealed
    ("placed", np.int8),           # space the exchange tile was placed on this turn, -1
    ("pos", np.int8, (MAX_PLAYERS, MAX_RUNNERS)),  # point of each runner, -1 unused
    # -- progress
    ("cur", np.int8),              # seat to act (setup: seat choosing)
    ("setup_k", np.int8),          # 3-player setup: which of the two octagons is dealt
    ("forced", np.int8),           # this turn must move a runner off its start circle
    ("passes", np.int8),           # consecutive forfeits
    ("last_move", np.int32, (MAX_PLAYERS,)),  # turn number of each seat's last move, -1 none yet
    ("rank", np.int8, (MAX_PLAYERS,)),  # finishing order (0 = first), -1 not finished
    ("n_finished", np.int8),
    ("winner", np.int8),           # winning seat (team: lower seat of the team), -1 none / draw
    ("capped", np.int8),           # 1: stopped at the engine's turn cap (a truncation, but for places won)
    ("turns", np.int32),           # turns played (moves and forfeits)
    ("moves", np.int32),           # actions applied (chance included)
    ("returns", np.float64, (MAX_PLAYERS,)),
    # -- the last turn, for pictures
    ("last_seat", np.int8),
    ("last_space", np.int8),
    ("last_rot", np.int8),
    ("last_from", np.int8),
    ("last_to", np.int8),
    ("last_path_len", np.int16),
    ("last_path", np.uint8, (MAX_PATH + 1,)),  # space * 8 + entry side of each crossing
    ("last_exit", np.uint8, (MAX_PATH + 1,)),  # exit side of each crossing (tiles may change later)
])


@dataclass(frozen=True)
class Config:
    """Octiles configuration.

    Attributes:
        num_players: seats, 2 to 4; seats play clockwise from board side W.
        runners: runners per player, 2 to 5 with any number of players ("De
            spelers bepalen hoeveel figuren"; the two outer start circles are
            always occupied, so at least 2); 0 (the default) takes the seed's
            recommendation (5 with 2-3 players, 4 with 4; it recommends 4-5 and 3-4).
        adjacent: 2 players on adjacent sides (W, N) instead of opposite
            sides (W, E); the seed notes that opposite sides give a shorter game.
        team: 4-player team variant, opposite seats 0+2 (W+E) against 1+3 (N+S).
        play_on: after the first player finishes, the others play on for
            ranking (returns by rank); otherwise the game ends at once.
        choose_start_circles: players choose which middle circles their
            runners start on, as setup actions (default True: "Welke van de
            drie middelste velden bezet worden mag de speler zelf kiezen").
            The question arises only with 3 or 4 runners (2 fill the outer
            circles, 5 fill all five). False is the fixed setup of boardspace
            (4 runners: middle circle 2 empty; 3 runners: only 2 of 1..3 used).
        goal_locks: a runner that has reached a goal circle never moves again
            (another publisher's rule, not in the seed). Default False: such a
            runner moves like any other (never onto a foreign goal or its own
            start circles).
        max_turns: engine cap on turns (moves and forfeits), 1..2000
            (default 500); the game stops when it is reached, every return 0,
            a truncation (``truncated``), but a play-on game with a seat home,
            decided by the rules, ends there: the places won stand, the seats
            still out share the rest. Under the seed's
            reading of goal circles uniformly random play seldom gets every
            runner home at once and usually ends here.
    """

    num_players: int = 2
    runners: int = 0
    adjacent: bool = False
    team: bool = False
    play_on: bool = False
    choose_start_circles: bool = True
    goal_locks: bool = False
    max_turns: int = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, 2, MAX_PLAYERS)
        if self.runners == 0 and not isinstance(self.runners, (bool, float)):
            object.__setattr__(self, "runners", 4 if self.num_players == 4 else MAX_RUNNERS)
        check_range("runners", self.runners, 2, MAX_RUNNERS)
        check_choice("adjacent", self.adjacent, [False, True])
        check_choice("team", self.team, [False, True])
        check_choice("play_on", self.play_on, [False, True])
        check_choice("choose_start_circles", self.choose_start_circles, [False, True])
        check_choice("goal_locks", self.goal_locks, [False, True])
        check_range("max_turns", self.max_turns, 1, MAX_TURNS)
        if self.adjacent and self.num_players != 2:
            raise ValueError(f"adjacent=True needs num_players=2, got num_players={self.num_players}")
        if self.team and self.num_players != 4:
            raise ValueError(f"team=True needs num_players=4, got num_players={self.num_players}")
        if self.team and self.play_on:
            raise ValueError("play_on=True is not valid with team=True: a team game ends when a team is home")


def max_game_length(config: Config) -> int:
    """Most actions a game under ``config`` can take: setup choices and chance nodes, then 3 a turn."""
    return 8 + 6 + 3 * config.max_turns


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["num_players"] = config.num_players
    s["runners"] = config.runners
    s["adjacent"] = int(config.adjacent)
    s["team"] = int(config.team)
    s["play_on"] = int(config.play_on)
    s["choose_start"] = int(config.choose_start_circles)
    s["goal_locks"] = int(config.goal_locks)
    s["max_turns"] = config.max_turns


# ---------------------------------------------------------------- small helpers
@nb.njit
def goal_side(s, p) -> int:
    """Board side whose home circles are seat ``p``'s goal (the opposite side)."""
    return (int(s["seat_side"][p]) + 2) % 4


@nb.njit
def on_goal(s, p, point) -> bool:
    """Whether ``point`` is one of seat ``p``'s goal circles."""
    return point >= NUM_STOPS and POINT_HOME_SIDE[point] == goal_side(s, p)


@nb.njit
def goal_distance(s, p, point) -> int:
    """The path distance of a runner of seat ``p`` on ``point`` to its goal: the fewest octagons a path must
    cross to reach a goal circle of ``p`` that no runner of ``p`` holds, if every octagon could carry any
    path (``POINT_DIST``); 0 on a goal circle, :data:`FAR` for a runner not on the board (``point < 0``)."""
    return _distance_to(s, p, point, _free_goals(s, p))


def _goal_distance_table() -> np.ndarray:
    """:data:`GOAL_DIST`: the statement of :func:`goal_distance`, for every goal side, free set and point."""
    circles = HOME_OF.shape[1]
    table = np.full((4, 1 << circles, NUM_POINTS + 1), FAR, dtype=np.int8)  # C order: a constant numba caches
    for g in range(4):
        for free in range(1 << circles):
            for pt in range(NUM_POINTS):
                if pt >= NUM_STOPS and POINT_HOME_SIDE[pt] == g:  # on a goal circle (on_goal)
                    table[g, free, pt] = 0
                    continue
                for c in range(circles):
                    if (free >> c) & 1:
                        table[g, free, pt] = min(table[g, free, pt], POINT_DIST[pt, HOME_OF[g, c]])
    return table


#: ``GOAL_DIST[g, free, point]``: :func:`goal_distance` of a runner on ``point`` (the last column: not on the
#: board) whose goal side is ``g`` where bit ``c`` of ``free`` says that no runner of its seat holds goal circle
#: ``HOME_OF[g, c]``: 0 on a goal circle, else the fewest octagons (``POINT_DIST``) to a free one, else ``FAR``
GOAL_DIST = _goal_distance_table()


@nb.njit
def _free_goals(s, p) -> int:
    """Bit ``c`` set where goal circle ``c`` of seat ``p`` (``HOME_OF[goal_side, c]``) holds no runner of ``p``."""
    side = goal_side(s, p)
    held = 0  # bit pt: a runner of p stands on point pt (bit 63 for a runner not on the board, never a point)
    for i in range(s["runners"]):
        held |= 1 << (int(s["pos"][p, i]) & 63)
    free = 0
    for c in range(HOME_OF.shape[1]):  # without a branch: whether a circle is held is as good as random
        free |= (((held >> int(HOME_OF[side, c])) & 1) ^ 1) << c
    return free


@nb.njit
def _distance_to(s, p, point, free) -> int:
    """:func:`goal_distance` with the free goal circles given (:func:`_free_goals`), for a seat's every runner."""
    return int(GOAL_DIST[goal_side(s, p), free, point if point >= 0 else NUM_POINTS])


@nb.njit
def on_start(s, p, point) -> bool:
    """Whether ``point`` is one of seat ``p``'s own start circles."""
    return point >= NUM_STOPS and POINT_HOME_SIDE[point] == s["seat_side"][p]


@nb.njit
def occupant(s, point) -> int:
    """Seat of the runner on ``point``, or -1."""
    for p in range(s["num_players"]):
        for i in range(s["runners"]):
            if s["pos"][p, i] == point:
                return p
    return -1


@nb.njit
def finished(s, p) -> bool:
    """Whether all of seat ``p``'s runners stand on its goal circles."""
    for i in range(s["runners"]):
        if not on_goal(s, p, s["pos"][p, i]):
            return False
    return True


@nb.njit
def walk(s, o, k, ov_space, ov_tile, ov_rot, path):
    """Follow a path that enters space ``o`` at side ``k`` until it stops.

    Space ``ov_space`` (if >= 0) is read as holding tile ``ov_tile`` turned
    ``ov_rot``, so that a placement can be tried without changing ``s``.

    Args:
        path: uint8 buffer of length >= MAX_PATH + 1, filled with
            ``space*8+side`` for every octagon entered; after a dead end the
            entry into the face-down octagon is written one past the crossings.

    Returns:
        ``(end, crossed, length, dead_space)``: ``end`` is the point where the
        path stops, or -1 for a dead end at the face-down tile ``dead_space``;
        ``crossed`` is 1 if the path crosses ``ov_space``; ``length`` is the
        number of crossings.
    """
    crossed = 0
    n = 0
    tiles = s["tile"]
    rots = s["rot"]
    for _ in range(MAX_PATH):
        if o == ov_space:
            t = ov_tile
            r = ov_rot
            crossed = 1
        else:
            t = int(tiles[o])
            r = int(rots[o])
        path[n] = o * NUM_SIDES + k
        if t < 0:  # face down: no paths, a dead end
            return -1, crossed, n, o
        n += 1
        e = EXIT[t, r, k]
        if LINK_KIND[o, e] == 1:
            return LINK_A[o, e], crossed, n, -1
        o2 = LINK_A[o, e]
        k = LINK_B[o, e]
        o = o2
    return -3, crossed, n, -1  # unreachable: links and tiles are perfect matchings


@nb.njit
def trace(s, point, d, ov_space, ov_tile, ov_rot, path):
    """Follow the path leaving ``point`` in contact direction ``d`` (see :func:`walk`).

    Returns:
        ``(end, crossed, length, dead_space)`` as :func:`walk`; ``end`` is -2
        if the point touches no octagon in that direction.
    """
    o = POINT_SPACE[point, d]
    if o < 0:
        return -2, 0, 0, -1
    return walk(s, o, POINT_SIDE[point, d], ov_space, ov_tile, ov_rot, path)


@nb.njit(inline="always")
def _u(i):
    """``i`` (never negative) as an unsigned index: numba then drops the check for an index from the end."""
    return np.uint64(i)


#: a :func:`space_exits` entry of ``REENTER + k``: the path comes back into the space at side ``k``
REENTER = 64
#: a :func:`space_exits` row not filled yet
UNSET = -100
#: a negative :func:`_through_table` entry ``v`` ends a walk at ``_ENDS - v``: a point, or -1 for a dead end
_ENDS = -100
#: ``_POINT_THROUGH[NUM_POINTS - 1 - pt]``: the :func:`_through_table` entry of point ``pt``
_POINT_THROUGH = (_ENDS - np.arange(NUM_POINTS)[::-1]).astype(np.int16)
#: ``_SLOT_EXIT[((t + 1) * 8 + r) * 8 + k]``: ``EXIT[t, r, k]``, far below zero for a face-down space (``t = -1``)
_SLOT_EXIT = np.concatenate([np.full((1, NUM_SIDES, NUM_SIDES), -1000), EXIT]).astype(np.int16).ravel()
#: a :data:`_POINT_EXITS` entry of a side that touches another octagon: a walk finds where its path goes
_WALK = -50
#: ``_POINT_EXITS[o, e]``: the point that side ``e`` of space ``o`` touches, or ``_WALK``
_POINT_EXITS = np.where(LINK_KIND == 1, LINK_A, _WALK).astype(np.int16)
#: the length of a :func:`_through_table`
THROUGH_SIZE = NUM_POINTS + NUM_SLOTS
#: rows of a :func:`new_exits` table: one a space, then the :func:`_through_table` of the record
EXITS_ROWS = NUM_SPACES + -(-THROUGH_SIZE // NUM_SIDES)


@nb.njit
def new_exits() -> np.ndarray:
    """An empty table for :func:`space_exits`; its rows past ``NUM_SPACES`` keep the record's
    :func:`_through_table`, built on the first walk."""
    return np.full((EXITS_ROWS, NUM_SIDES), UNSET, dtype=np.int16)


@nb.njit
def _through_table(s, through) -> None:
    """Fill ``through`` (``THROUGH_SIZE`` entries) with the present board's paths, slot by slot.

    ``through[NUM_POINTS + y]`` is the slot where a path entering its space at slot ``y`` (``space * 8 +
    side``) leaves it, or ``_ENDS - 1`` (a dead end) on a face-down space; for a ``LINK_SLOT`` entry ``y =
    -1 - pt`` (point ``pt``) it is ``_ENDS - pt``. So a walk steps from the slot ``x`` where it leaves a
    space to ``through[NUM_POINTS + LINK_SLOT[x]]`` (two loads, not three), and stops where that is negative.
    """
    for j in range(NUM_POINTS):
        through[j] = _POINT_THROUGH[j]
    tiles = s["tile"]
    rots = s["rot"]
    for o in range(NUM_SPACES):
        a = ((int(tiles[o]) + 1) * NUM_SIDES + int(rots[o])) * NUM_SIDES
        x = NUM_POINTS + o * NUM_SIDES
        for k in range(NUM_SIDES):  # without a branch on face-down spaces: the row of t = -1 is far below zero
            through[_u(x + k)] = max(o * NUM_SIDES + _SLOT_EXIT[_u(a + k)], _ENDS + 1)


@nb.njit
def _exits_row(o, through, exits) -> None:
    """:func:`space_exits` with the record's :func:`_through_table` given."""
    uo = _u(o)
    if exits[uo, 0] != UNSET:
        return
    for e in range(NUM_SIDES):
        exits[uo, e] = _POINT_EXITS[uo, e]  # the sides that touch a point (about half of them) need no walk
    for e in range(NUM_SIDES):
        if exits[uo, e] != _WALK:
            continue  # a point's side, or the reverse of a path found from an earlier side
        x = o * NUM_SIDES + e
        res = -3  # unreachable: links and tiles are perfect matchings
        for _ in range(MAX_PATH + 1):
            y = int(LINK_SLOT[_u(x)])
            if y >> 3 == o:  # the path enters o again (a point's -1 - pt never matches)
                res = REENTER + (y & 7)
                exits[uo, _u(y & 7)] = REENTER + e  # the same path walked backwards
                break
            x = int(through[_u(NUM_POINTS + y)])
            if x < 0:  # a point or a dead end
                res = _ENDS - x
                break
        exits[uo, e] = res


@nb.njit
def space_exits(s, o, exits) -> None:
    """Fill row ``o`` of ``exits`` (once; a row already filled is left as it is).

    ``exits[o, e]`` says where the path leaving space ``o`` through side ``e`` goes on the
    present board until it comes back to ``o``: its end point, -1 for a dead end at a face-down
    tile, or ``REENTER + k`` when it enters ``o`` again at side ``k``. The tile on ``o`` is never
    read, so one row serves every tile and rotation tried there (:func:`end_over`) and every
    path that reaches ``o``: the walks of a whole turn's placements are shared, not repeated.
    ``exits`` is a :func:`new_exits` table.
    """
    if exits[o, 0] != UNSET:
        return
    through = exits.reshape(-1)[NUM_SLOTS:NUM_SLOTS + THROUGH_SIZE]
    if through[0] == UNSET:  # the first walk on this table (a built table starts with _POINT_THROUGH)
        _through_table(s, through)
    _exits_row(o, through, exits)


@nb.njit
def end_over(o, k, t, r, exits) -> int:
    """Where a path entering space ``o`` at side ``k`` ends when tile ``t`` turned ``r`` lies on ``o``.

    The same end as ``walk(s, o, k, o, t, r, path)``, read from row ``o`` of ``exits``, which
    :func:`space_exits` must have filled: -1 for a dead end (a face-down ``t`` included).
    """
    if t < 0:
        return -1
    for _ in range(NUM_SIDES):
        v = int(exits[o, EXIT[t, r, k]])
        if v < REENTER:
            return v
        k = v - REENTER
    return -3  # unreachable: a tile's paths are a perfect matching of its sides


def _turn_table() -> np.ndarray:
    """:data:`TURNS_TO`, from the tiles' paths (``EXIT``)."""
    table = np.zeros((NUM_TILES, NUM_SIDES, 256), dtype=np.uint8)  # C order: a constant numba can cache
    for r in range(NUM_SIDES):
        table |= (((np.arange(256)[None, None, :] >> EXIT[:, r, :, None]) & 1) << r).astype(np.uint8)
    return table


#: ``TURNS_TO[t, k, b]``: bit ``r`` set where tile ``t`` turned ``r`` joins entry side ``k`` to a side in the
#: bit set ``b`` (bit ``e`` for side ``e``)
TURNS_TO = _turn_table()


@nb.njit
def ends_over(s, point, d, t, ends, buf, exits) -> None:
    """Where the path from ``point`` in direction ``d`` ends for every placement of tile ``t``.

    ``ends[o, r]`` receives the end point (or -1 dead end) when ``t`` turned
    ``r`` lies on space ``o``, and -9 when that path does not cross ``o``.
    Placing a tile only changes the path after its first entry into the
    placed space, so only spaces that the present path reaches (a face-down
    dead end included) need to be tried. ``exits`` is a :func:`new_exits` table
    that may be shared by every call on the same record.
    """
    ends[:, :] = -9
    end0, _c, ln, _dead = trace(s, point, d, -1, 0, 0, buf)
    if end0 == -2:
        return
    m = ln + 1 if end0 == -1 else ln
    for j in range(m):
        o = buf[j] // NUM_SIDES
        k = buf[j] % NUM_SIDES
        if ends[o, 0] != -9:
            continue  # a later entry into o: the path changed at the first one
        space_exits(s, o, exits)
        for r in range(NUM_SIDES):
            ends[o, r] = end_over(o, k, t, r, exits)


@nb.njit
def end_ok(s, p, start, end) -> bool:
    """Whether seat ``p``'s runner from ``start`` may end its move on point ``end``.

    A free stop (its own start stop included, since the runner has left it)
    or a free goal circle of ``p``; never a foreign goal or own start circle.
    """
    if end < 0:
        return False
    if end >= NUM_STOPS and not on_goal(s, p, end):
        return False
    return end == start or occupant(s, end) < 0


@nb.njit
def may_move(s, p, point) -> bool:
    """Whether a runner of ``p`` on ``point`` may move at all (with ``goal_locks``: never off its goal)."""
    return point >= 0 and not (s["goal_locks"] and on_goal(s, p, point))


@nb.njit
def leave_rule_applies(s, p) -> bool:
    """The seed's forced leaving of start circles (5 runners only): all circles of
    ``p``'s side are occupied and a runner of ``p`` still stands on one."""
    if s["runners"] != 5:
        return False
    b = int(s["seat_side"][p])
    for i in range(5):
        if occupant(s, HOME_OF[b, i]) < 0:
            return False
    for i in range(s["runners"]):
        if on_start(s, p, s["pos"][p, i]):
            return True
    return False


@nb.njit
def _end_table(s, p, out) -> None:
    """``out[point] = 1`` where a runner of ``p`` may end a move that starts elsewhere:
    a free stop or a free goal circle of ``p`` (see :func:`end_ok`)."""
    out[:NUM_STOPS] = 1
    out[NUM_STOPS:NUM_POINTS] = 0
    g = goal_side(s, p)
    for c in range(HOME_OF.shape[1]):
        out[HOME_OF[g, c]] = 1
    for pp in range(s["num_players"]):
        for i in range(s["runners"]):
            pt = int(s["pos"][pp, i])
            if pt >= 0:
                out[pt] = 0


@nb.njit
def _end_ok_table(table, start, end) -> bool:
    """:func:`end_ok` read from an :func:`_end_table`: the start stop counts as free."""
    if end < 0:
        return False
    return table[end] != 0 or (end == start and end < NUM_STOPS)


@nb.njit
def _scan_placements(s, p, from_start_only, out) -> int:
    """Mark in ``out`` the placements after which a legal move of ``p`` follows.

    With ``from_start_only`` only moves of runners on their start circles
    count. ``out``'s placement entries are overwritten. Returns the number of
    legal placements.
    """
    t = int(s["exch"])
    if t < 0:  # no exchange tile (never at a placement decision): every end a dead end, as in end_over
        out[A_PLACE:A_MOVE] = 0
        return 0
    # one allocation: the exits table (its through table built at once), then ok and turns
    ko = EXITS_ROWS * NUM_SIDES
    tu = ko + 3 + REENTER + NUM_SIDES
    scratch = np.empty(tu + NUM_SPACES, dtype=np.int16)
    exits = scratch[:ko].reshape((EXITS_ROWS, NUM_SIDES))
    exits[:NUM_SPACES, :] = UNSET
    through = scratch[NUM_SLOTS:NUM_SLOTS + THROUGH_SIZE]
    _through_table(s, through)
    # ok[e + 3]: a move may end on e (the ends -3 and -1 and the entries REENTER + k never); read without
    # a branch, since whether a placement is legal is as good as random to the processor
    ok = scratch[ko:tu]
    ok[:] = 0
    _end_table(s, p, ok[3:3 + NUM_POINTS])
    turns = scratch[tu:]  # bit r of turns[o]: placing t on o turned r is legal
    turns[:] = 0
    for i in range(s["runners"]):
        pt = int(s["pos"][p, i])
        if not may_move(s, p, pt):
            continue
        if from_start_only and not on_start(s, p, pt):
            continue
        kept = ok[pt + 3]
        if pt < NUM_STOPS:  # the runner leaves its stop: it may come back to it (see end_ok)
            ok[pt + 3] = 1
        for d in range(NUM_DIRS):
            # as ends_over: only the spaces the present path enters (first entries) can change it
            y = int(POINT_SLOT[pt, d])  # the slot where the path enters a space
            if y < 0:
                continue
            tried = 0
            for _ in range(MAX_PATH + 1):
                o = y >> 3
                if not tried & (1 << o):
                    tried |= 1 << o
                    _exits_row(o, through, exits)
                    # the sides of o whose paths end where a move may: where no path leaving o comes back to
                    # it (about 96% of mid-game rows) these fix the ends of all eight rotations at once
                    allowed = 0
                    back = False
                    for e in range(NUM_SIDES):
                        v = int(exits[_u(o), _u(e)])
                        back |= v >= REENTER
                        allowed |= int(ok[_u(v + 3)]) << e
                    if not back:
                        turns[_u(o)] |= TURNS_TO[_u(t), _u(y & 7), _u(allowed)]
                    else:  # the end depends on the rotation
                        for r in range(NUM_SIDES):
                            turns[o] |= ok[end_over(o, y & 7, t, r, exits) + 3] << r
                x = int(through[_u(NUM_POINTS + y)])
                if x < 0:  # a dead end (its face-down space tried above)
                    break
                y = int(LINK_SLOT[_u(x)])
                if y < 0:  # the path ends at a point
                    break
        ok[pt + 3] = kept
    n = 0
    for o in range(NUM_SPACES):
        for r in range(NUM_SIDES):
            legal = (int(turns[o]) >> r) & 1
            out[A_PLACE + o * NUM_SIDES + r] = legal
            n += legal
    return n


@nb.njit
def _placement_mask(s, p, out) -> int:
    """Legal placements of ``p`` (the leaving rule applied); sets nothing else."""
    if leave_rule_applies(s, p):
        n = _scan_placements(s, p, True, out)
        if n > 0:
            return n
    return _scan_placements(s, p, False, out)


@nb.njit
def _placement_ok(s, p, o, r, from_start_only) -> bool:
    """Whether placing the exchange tile on ``o`` turned ``r`` lets a legal move of ``p`` follow."""
    buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    t = int(s["exch"])
    for i in range(s["runners"]):
        pt = int(s["pos"][p, i])
        if not may_move(s, p, pt) or (from_start_only and not on_start(s, p, pt)):
            continue
        for d in range(NUM_DIRS):
            end, crossed, _ln, _dead = trace(s, pt, d, o, t, r, buf)
            if crossed and end_ok(s, p, pt, end):
                return True
    return False


@nb.njit
def _forced_now(s, p) -> bool:
    """Whether the leaving rule binds this turn: it applies and some legal turn obeys it."""
    if not leave_rule_applies(s, p):
        return False
    tmp = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    return _scan_placements(s, p, True, tmp) > 0


@nb.njit
def _legal_now(s, p, action) -> bool:
    """Whether ``action`` is legal for the seat ``p`` to act, checking only that action
    (cheaper than the whole mask for a placement or a move)."""
    ph = int(s["phase"])
    if ph == PH_PLACE and A_PLACE <= action < A_MOVE:
        o = (action - A_PLACE) // NUM_SIDES
        r = (action - A_PLACE) % NUM_SIDES
        return _placement_ok(s, p, o, r, _forced_now(s, p))
    if ph == PH_MOVE and A_MOVE <= action < A_PASS:
        pt = (action - A_MOVE) // NUM_DIRS
        d = (action - A_MOVE) % NUM_DIRS
        if not _may_start(s, p, pt):
            return False
        buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
        o = int(s["placed"])
        end, crossed, _ln, _dead = trace(s, pt, d, o, s["tile"][o], s["rot"][o], buf)
        return crossed == 1 and end_ok(s, p, pt, end)
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    legal_mask(s, p, mask)
    return mask[action] != 0


@nb.njit
def random_legal_action(s, player) -> int:
    """A legal action of the acting ``player``, uniform over :func:`legal_mask`, drawn with the
    record's RNG (the engine contract's optional fast sampler, used by random playouts).

    A placement turn tries uniformly drawn placements one at a time
    (:func:`_placement_ok`, rejection sampling: an accepted draw is uniform over
    the legal placements); after ``PLACEMENT_TRIES`` rejections, and in every
    other phase, it draws from the whole mask, which is uniform too.
    """
    if int(s["phase"]) == PH_PLACE and player == current_player(s):
        forced = _forced_now(s, player)
        for _ in range(PLACEMENT_TRIES):
            a = A_PLACE + rng_below(s, A_MOVE - A_PLACE)
            o = (a - A_PLACE) // NUM_SIDES
            r = (a - A_PLACE) % NUM_SIDES
            if _placement_ok(s, player, o, r, forced):
                return a
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    n = legal_mask(s, player, mask)
    return nth_set(mask, rng_below(s, n)) if n > 0 else -1


@nb.njit
def _may_start(s, p, pt) -> bool:
    """Whether a runner of ``p`` stands on point ``pt`` and may move this turn (``may_move``, and the
    forced leaving of start circles where it binds the turn)."""
    own = False
    for i in range(s["runners"]):
        own |= s["pos"][p, i] == pt
    return own and may_move(s, p, pt) and not (s["forced"] and not on_start(s, p, pt))


@nb.njit
def _slot_point(x) -> int:
    """The point where a path ends at slot ``x`` (from :func:`_end_slot`), or -1 where it ends at no point."""
    return -1 - int(LINK_SLOT[x]) if x >= 0 else -1


@nb.njit
def _end_slot(s, x) -> int:
    """Follow the path that leaves a space at slot ``x`` (``space * 8 + side``) until it stops.

    Returns:
        the slot that touches the point where it ends, -1 for a dead end at a face-down tile, or -2 for
        a closed loop (a path that reaches no point)."""
    tiles = s["tile"]
    rots = s["rot"]
    # a path crosses each of the 68 paths of the 17 tiles at most once: it stops within MAX_PATH + 1 steps
    for _ in range(MAX_PATH + 1):
        y = int(LINK_SLOT[x])
        if y < 0:
            return x
        q = y // NUM_SIDES
        t = int(tiles[q])
        if t < 0:
            return -1
        x = q * NUM_SIDES + EXIT[t, int(rots[q]), y % NUM_SIDES]
    return -2


@nb.njit
def _move_along(s, p, from_slot, to_slot, table, out) -> int:
    """Mark the move of ``p``'s runner on the point of slot ``from_slot`` along its path to slot ``to_slot``
    (both from :func:`_end_slot`), if it may make it; returns 1 if newly marked (``out``'s move entries
    start at 0: a path that crosses the placed tile twice is found twice and counted once)."""
    if from_slot < 0:
        return 0
    pt = _slot_point(from_slot)
    if not _may_start(s, p, pt) or not _end_ok_table(table, pt, _slot_point(to_slot)):
        return 0
    a = A_MOVE + pt * NUM_DIRS + int(SLOT_DIR[from_slot])
    if out[a]:
        return 0
    out[a] = 1
    return 1


@nb.njit
def _move_mask(s, p, out) -> int:
    """Legal moves of ``p`` over the tile placed this turn: the paths that cross it, followed from each of
    its four paths out to both ends (a runner at one end may walk to the other). ``out``'s move entries
    must be 0 (``legal_mask`` clears it)."""
    table = np.empty(NUM_POINTS, dtype=np.uint8)
    _end_table(s, p, table)
    o = int(s["placed"])
    t = int(s["tile"][o])
    r = int(s["rot"][o])
    n = 0
    for k in range(NUM_SIDES):
        e = int(EXIT[t, r, k])
        if e < k:
            continue  # each of the tile's paths once
        a = _end_slot(s, o * NUM_SIDES + k)
        if a < 0:
            continue  # a dead end (or a loop) on one side: no move along this path ends anywhere
        b = _end_slot(s, o * NUM_SIDES + e)
        n += _move_along(s, p, a, b, table, out) + _move_along(s, p, b, a, table, out)
    return n


# ---------------------------------------------------------------- contract kernels
@nb.njit
def _place_start(s, p, circle) -> None:
    b = int(s["seat_side"][p])
    for i in range(s["runners"]):
        if s["pos"][p, i] < 0:
            s["pos"][p, i] = HOME_OF[b, circle]
            return


@nb.njit
def _runners_placed(s, p) -> int:
    c = 0
    for i in range(s["runners"]):
        if s["pos"][p, i] >= 0:
            c += 1
    return c


@nb.njit
def _next_setup(s) -> None:
    """Advance the setup: next seat to choose circles, or on to the deal."""
    while s["cur"] < s["num_players"] and _runners_placed(s, s["cur"]) == s["runners"]:
        s["cur"] += 1
    if s["cur"] >= s["num_players"]:
        s["cur"] = -1
        s["phase"] = PH_DEAL


@nb.njit
def reset(s, seed) -> None:
    """Start a new game in ``s``, keeping its config."""
    seed_rng(s, seed)
    n = int(s["num_players"])
    if n == 2:
        s["seat_side"][0] = 0
        s["seat_side"][1] = 1 if s["adjacent"] else 2
    else:
        for p in range(n):
            s["seat_side"][p] = p  # 3 players: side S is unused
    for p in range(n, MAX_PLAYERS):
        s["seat_side"][p] = -1
    s["tile"][:] = -1
    s["rot"][:] = 0
    s["exch"] = -1
    s["placed"] = -1
    s["pos"][:, :] = -1
    s["setup_k"] = 0
    s["forced"] = 0
    s["passes"] = 0
    s["last_move"][:] = -1
    s["rank"][:] = -1
    s["n_finished"] = 0
    s["winner"] = -1
    s["capped"] = 0
    s["turns"] = 0
    s["moves"] = 0
    s["returns"][:] = 0.0
    s["last_seat"] = -1
    s["last_space"] = -1
    s["last_rot"] = 0
    s["last_from"] = -1
    s["last_to"] = -1
    s["last_path_len"] = 0
    s["last_path"][:] = 0
    s["last_exit"][:] = 0
    # the two outer circles are always occupied; 5 runners fill all five, 2 only those
    for p in range(n):
        _place_start(s, p, 0)
        _place_start(s, p, 4)
        if s["runners"] == 5:
            for c in range(1, 4):
                _place_start(s, p, c)
        elif not s["choose_start"]:
            if s["runners"] == 4:  # boardspace: the middle circle stays empty
                _place_start(s, p, 1)
                _place_start(s, p, 3)
            elif s["runners"] == 3:
                _place_start(s, p, 2)
    s["cur"] = 0
    s["phase"] = PH_SETUP
    _next_setup(s)


@nb.njit
def current_player(s) -> int:
    """The seat to act, CHANCE during deals, reveals and the lot, TERMINAL at the end."""
    ph = int(s["phase"])
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_SETUP or ph == PH_PLACE or ph == PH_MOVE:
        return int(s["cur"])
    return CHANCE


@nb.njit
def acting_player(s) -> int:
    """Same as :func:`current_player` (the game is sequential)."""
    return current_player(s)


@nb.njit
def legal_mask(s, player, out) -> int:
    """Legal actions of ``player`` (zeros unless it is their turn); returns the count."""
    out[:] = 0
    ph = int(s["phase"])
    if player != current_player(s) or player < 0:
        return 0
    if ph == PH_SETUP:
        n = 0
        b = int(s["seat_side"][player])
        for c in range(1, 4):
            if occupant(s, HOME_OF[b, c]) < 0:
                out[A_SETUP + c - 1] = 1
                n += 1
        return n
    if ph == PH_MOVE:
        return _move_mask(s, player, out)
    n = _placement_mask(s, player, out)
    if n == 0:  # no legal turn: the turn is forfeited
        out[A_PASS] = 1
        n = 1
    return n


@nb.njit
def _unseen_count(s) -> int:
    """Tiles not yet seen: the face-down spaces plus an unrevealed exchange tile."""
    n = 0
    for o in range(NUM_SPACES):
        if s["tile"][o] < 0:
            n += 1
    if s["exch"] < 0:
        n += 1
    return n


@nb.njit
def _is_seen(s, t) -> bool:
    if s["exch"] == t:
        return True
    for o in range(NUM_SPACES):
        if s["tile"][o] == t:
            return True
    return False


@nb.njit
def chance_outcomes(s, actions, probs) -> int:
    """Outcomes of the chance node: an unseen tile, a rotation, or the start seat."""
    ph = int(s["phase"])
    n = 0
    if ph == PH_DEAL or ph == PH_DEAL3 or ph == PH_REVEAL:
        for t in range(NUM_TILES):
            if not _is_seen(s, t):
                actions[n] = C_TILE + t
                n += 1
    elif ph == PH_ROT3:
        for r in range(NUM_SIDES):
            actions[n] = C_ROT + r
            n += 1
    elif ph == PH_LOT:
        for p in range(s["num_players"]):
            actions[n] = C_SEAT + p
            n += 1
    for i in range(n):
        probs[i] = 1.0 / n
    return n


@nb.njit
def sample_chance(s) -> int:
    """Draw the outcome of the current chance node with the record's RNG (-1 elsewhere)."""
    if current_player(s) != CHANCE:
        return -1
    ph = int(s["phase"])
    if ph == PH_ROT3:
        return C_ROT + rng_below(s, NUM_SIDES)
    if ph == PH_LOT:
        return C_SEAT + rng_below(s, s["num_players"])
    k = rng_below(s, _unseen_count(s))
    for t in range(NUM_TILES):
        if not _is_seen(s, t):
            if k == 0:
                return C_TILE + t
            k -= 1
    return -1


@nb.njit
def _active_count(s) -> int:
    c = 0
    for p in range(s["num_players"]):
        if s["rank"][p] < 0:
            c += 1
    return c


@nb.njit
def side_of(s, p) -> int:
    """The side of seat ``p``: its team in the team game (seats 0+2 against 1+3: team 0 and team 1), else the
    seat itself."""
    return p % 2 if s["team"] else p


@nb.njit
def _team_done(s, team) -> bool:
    return s["rank"][team] >= 0 and s["rank"][team + 2] >= 0


@nb.njit
def _finish_win(s, w) -> None:
    """Game over: seat ``w`` (or its team) wins; everyone else shares the loss."""
    s["phase"] = PH_OVER
    n = int(s["num_players"])
    if s["team"]:
        s["winner"] = side_of(s, w)
        for p in range(n):
            s["returns"][p] = 1.0 if side_of(s, p) == side_of(s, w) else -1.0
        return
    s["winner"] = w
    for p in range(n):
        s["returns"][p] = 1.0 if p == w else -1.0 / (n - 1)


@nb.njit
def _last_mover(s, unfinished_only) -> int:
    """The seat whose last move is the most recent (among the unfinished seats if asked), or -1."""
    best = -1
    for p in range(s["num_players"]):
        if unfinished_only and s["rank"][p] >= 0:
            continue
        if s["last_move"][p] >= 0 and (best < 0 or s["last_move"][p] > s["last_move"][best]):
            best = p
    return best


@nb.njit
def _finish_ranked(s) -> None:
    """Play-on game over: returns by finishing rank, ``1 - 2 r / (n - 1)``.

    The seats still playing take the next ranks by their own last move, the most
    recent first ("wint die speler die als laatste een zet heeft kunnen
    uitvoeren", applied down the order); seats that never moved share the rest.
    """
    s["phase"] = PH_OVER
    while True:
        p = _last_mover(s, True)
        if p < 0:
            break
        s["rank"][p] = s["n_finished"]
        s["n_finished"] += 1
    _ranked_returns(s)


@nb.njit
def _ranked_returns(s) -> None:
    """Returns by the places settled, ``1 - 2 r / (n - 1)``; the seats not ranked share the places left,
    and the seat ranked first is the winner. At the end of a play-on game (:func:`_finish_ranked`), and at
    the engine's turn cap once a seat is home: the seed decided the game when the first came home ("eindigt
    het spel en wint deze speler"; the others *may* play on for their places), so the cap ends the play for
    the places left, shared, and keeps the places won (E2)."""
    n = int(s["num_players"])
    k = s["n_finished"]
    rest = n - k
    shared = 0.0
    for r in range(k, n):
        shared += 1.0 - 2.0 * r / (n - 1)
    for p in range(n):
        if s["rank"][p] >= 0:
            s["returns"][p] = 1.0 - 2.0 * s["rank"][p] / (n - 1)
        else:
            s["returns"][p] = shared / rest
    for p in range(n):
        if s["rank"][p] == 0:
            s["winner"] = p


@nb.njit
def _places_won(s) -> bool:
    """Whether a play-on game (without teams) has places won, decided by the rules: some seat is home."""
    return s["play_on"] != 0 and s["team"] == 0 and s["n_finished"] > 0


@nb.njit
def _end_turn(s, moved) -> None:
    """Close the current seat's turn: check the end, then hand on to the next seat."""
    p = int(s["cur"])
    s["turns"] += 1
    s["placed"] = -1
    s["forced"] = 0
    if moved:
        s["passes"] = 0
        s["last_move"][p] = s["turns"]
        if s["rank"][p] < 0 and finished(s, p):
            s["rank"][p] = s["n_finished"]
            s["n_finished"] += 1
            if s["team"]:
                if _team_done(s, side_of(s, p)):
                    _finish_win(s, p)
                    return
            elif not s["play_on"]:
                _finish_win(s, p)
                return
            elif _active_count(s) <= 1:
                _finish_ranked(s)
                return
    else:
        s["passes"] += 1
        # a full cycle in which no active player could make a legal turn
        if s["passes"] >= _active_count(s):
            lm = _last_mover(s, False)
            if s["play_on"]:
                _finish_ranked(s)
            elif lm >= 0:
                _finish_win(s, lm)
            else:
                s["phase"] = PH_OVER  # nobody ever moved: a draw
            return
    if s["turns"] >= s["max_turns"]:
        s["phase"] = PH_OVER  # engine cap: the faces report a truncation, every return 0; but where a play-on
        s["capped"] = 1       # game has places won, its winner decided, the cap ends it: the rest shared
        if _places_won(s):
            _ranked_returns(s)
        return
    # clockwise to the next seat still in the game (finished seats have no turns)
    n = int(s["num_players"])
    q = p
    for _ in range(n):
        q = (q + 1) % n
        if s["rank"][q] < 0:
            break
    s["cur"] = q
    s["phase"] = PH_PLACE


@nb.njit
def _apply_chance(s, a) -> bool:
    ph = int(s["phase"])
    if ph == PH_ROT3:
        if a < C_ROT or a >= C_ROT + NUM_SIDES:
            return False
        o = SIDE_SPACES[3, s["setup_k"]]
        s["rot"][o] = a - C_ROT
        s["setup_k"] += 1
        s["phase"] = PH_DEAL3 if s["setup_k"] < 2 else PH_LOT
        s["moves"] += 1
        return True
    if ph == PH_LOT:
        if a < C_SEAT or a >= C_SEAT + s["num_players"]:
            return False
        s["cur"] = a - C_SEAT
        s["phase"] = PH_PLACE
        s["moves"] += 1
        return True
    if a < C_TILE or a >= C_TILE + NUM_TILES or _is_seen(s, a - C_TILE):
        return False
    t = a - C_TILE
    s["moves"] += 1
    if ph == PH_DEAL:
        s["exch"] = t
        s["phase"] = PH_DEAL3 if s["num_players"] == 3 else PH_LOT
    elif ph == PH_DEAL3:
        # the unused side is S (3 players sit W, N, E)
        s["tile"][SIDE_SPACES[3, s["setup_k"]]] = t
        s["phase"] = PH_ROT3
    else:  # PH_REVEAL: the picked-up tile is handed on face up
        s["exch"] = t
        _end_turn(s, True)
    return True


@nb.njit
def apply_action(s, action) -> bool:
    """Apply the acting seat's action or a chance outcome; False if illegal (``s`` untouched)."""
    cp = current_player(s)
    if cp >= 0 and (action < 0 or action >= NUM_ACTIONS or not _legal_now(s, cp, action)):
        return False
    return apply_legal(s, action)


@nb.njit
def apply_legal(s, action) -> bool:
    """:func:`apply_action` for an action known to be legal (from :func:`legal_mask` or
    :func:`random_legal_action`): the player's move skips the legality check (the
    contract's optional fast apply; chance outcomes are still checked)."""
    cp = current_player(s)
    if cp == TERMINAL:
        return False
    if cp == CHANCE:
        if action < 0 or action >= NUM_CHANCE:
            return False
        return _apply_chance(s, action)
    ph = int(s["phase"])
    s["moves"] += 1
    if ph == PH_SETUP:
        _place_start(s, cp, action - A_SETUP + 1)
        _next_setup(s)
        return True
    if action == A_PASS:
        s["last_seat"] = cp
        s["last_space"] = -1
        s["last_from"] = -1
        s["last_to"] = -1
        s["last_path_len"] = 0
        _end_turn(s, False)
        return True
    if ph == PH_PLACE:
        # the leaving rule binds the move too, when it made this placement legal
        s["forced"] = 1 if _forced_now(s, cp) else 0
        o = (action - A_PLACE) // NUM_SIDES
        r = (action - A_PLACE) % NUM_SIDES
        removed = s["tile"][o]  # -1: face down, revealed when handed on
        s["tile"][o] = s["exch"]
        s["rot"][o] = r
        s["exch"] = removed
        s["placed"] = o
        s["last_seat"] = cp
        s["last_space"] = o
        s["last_rot"] = r
        s["last_from"] = -1
        s["last_to"] = -1
        s["last_path_len"] = 0
        s["phase"] = PH_MOVE
        return True
    # PH_MOVE
    pt = (action - A_MOVE) // NUM_DIRS
    d = (action - A_MOVE) % NUM_DIRS
    o = int(s["placed"])
    end, _c, ln, _dead = trace(s, pt, d, o, s["tile"][o], s["rot"][o], s["last_path"])
    for i in range(s["runners"]):
        if s["pos"][cp, i] == pt:
            s["pos"][cp, i] = end
            break
    for j in range(ln):
        oj = s["last_path"][j] // NUM_SIDES
        s["last_exit"][j] = EXIT[s["tile"][oj], s["rot"][oj], s["last_path"][j] % NUM_SIDES]
    s["last_from"] = pt
    s["last_to"] = end
    s["last_path_len"] = ln
    if s["exch"] < 0:
        s["phase"] = PH_REVEAL
        return True
    _end_turn(s, True)
    return True


@nb.njit
def truncated(s) -> bool:
    """Whether the game stopped at the engine's turn cap (``max_turns``) rather than by the rules: not a
    play-on game with places won there (its winner decided by the rules, the cap ended the play for the rest)."""
    return s["phase"] == PH_OVER and s["capped"] != 0 and not _places_won(s)


@nb.njit
def returns(s, out) -> None:
    """Returns so far (zero until the end; a draw and a truncation stay zero)."""
    for p in range(s["num_players"]):
        out[p] = s["returns"][p]


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s view of the game (layout in the module docstring)."""
    out[:] = 0.0
    n = int(s["num_players"])
    seen = 0  # bit t: tile t is face up on the board or the exchange tile
    for o in range(NUM_SPACES):
        base = O_BOARD + o * O_SPACE
        t = int(s["tile"][o])
        if t < 0:
            out[base] = 1.0
            continue
        seen |= 1 << t
        r = int(s["rot"][o])
        out[base + 1 + t] = 1.0
        out[base + 19 + r] = 1.0
        for k in range(NUM_SIDES):
            out[base + 27 + k * NUM_SIDES + EXIT[t, r, k]] = 1.0
    ph = int(s["phase"])
    if ph > PH_DEAL:  # the exchange tile exists once it has been turned up at setup
        if s["exch"] >= 0:
            out[O_EXCH + int(s["exch"])] = 1.0
        else:  # picked up face down this turn, revealed when handed on
            out[O_EXCH + NUM_TILES] = 1.0
    if s["placed"] >= 0:
        out[O_PLACED + int(s["placed"])] = 1.0
    for p in range(n):
        q = (p - player + n) % n
        for i in range(s["runners"]):
            pt = int(s["pos"][p, i])
            if pt >= 0:
                out[O_RUNNERS + q * NUM_POINTS + pt] = 1.0
        out[O_SIDES + q * 4 + int(s["seat_side"][p])] = 1.0
        if s["rank"][p] >= 0:
            out[O_FINISHED + q] = 1.0
    cp = current_player(s)
    if cp >= 0:
        out[O_TURN + (cp - player + n) % n] = 1.0
    out[O_PHASE + ph] = 1.0
    if s["exch"] >= 0:
        seen |= 1 << int(s["exch"])
    for t in range(NUM_TILES):  # as _is_seen, from one pass over the board
        if not (seen >> t) & 1:
            out[O_UNSEEN + t] = 1.0
    out[O_FORCED] = float(s["forced"])
    out[O_PASSES] = s["passes"] / 4.0
    out[O_TEAM] = float(s["team"])
    out[O_PLAYON] = float(s["play_on"])
    out[O_NRUN] = s["runners"] / 5.0
    out[O_NPLAYERS + n - 2] = 1.0
    out[O_TURNS] = s["turns"] / float(s["max_turns"])
    out[O_LOCKS] = float(s["goal_locks"])
    for p in range(n):
        q = (p - player + n) % n
        total = 0
        free = _free_goals(s, p)
        for i in range(s["runners"]):
            d = _distance_to(s, p, int(s["pos"][p, i]), free)
            out[O_DIST + q * MAX_RUNNERS + i] = d / float(FAR)
            total += d
        out[O_DIST_SUM + q] = total / float(MAX_RUNNERS * FAR)


@nb.njit
def determinize(s, player, seed) -> None:
    """Only reseed the RNG: nothing is hidden from one player more than another.

    Face-down tiles are unknown to everyone and are not decided in the record
    at all (they are chance outcomes drawn when revealed), so there is nothing
    to resample.
    """
    seed_rng(s, seed)


@nb.njit
def list_turns(s, out) -> int:
    """Every legal whole turn at a placement decision.

    Args:
        out: int32 array ``(MAX_TURN_CHOICES, 3)`` receiving rows
            ``(placement action, move action, end point)``.

    Returns:
        the number of rows written (0 outside a placement decision or when
        the only legal action is the pass).
    """
    if s["phase"] != PH_PLACE:
        return 0
    p = int(s["cur"])
    buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    only_start = False
    if leave_rule_applies(s, p):
        tmp = np.zeros(NUM_ACTIONS, dtype=np.uint8)
        only_start = _scan_placements(s, p, True, tmp) > 0
    t = int(s["exch"])
    ends = np.empty((NUM_SPACES, NUM_SIDES), dtype=np.int8)
    exits = new_exits()
    n = 0
    for i in range(s["runners"]):
        pt = int(s["pos"][p, i])
        if not may_move(s, p, pt) or (only_start and not on_start(s, p, pt)):
            continue
        for d in range(NUM_DIRS):
            ends_over(s, pt, d, t, ends, buf, exits)
            for o in range(NUM_SPACES):
                if ends[o, 0] == -9:
                    continue
                for r in range(NUM_SIDES):
                    if end_ok(s, p, pt, ends[o, r]):
                        out[n, 0] = A_PLACE + o * NUM_SIDES + r
                        out[n, 1] = A_MOVE + pt * NUM_DIRS + d
                        out[n, 2] = ends[o, r]
                        n += 1
    return n


# ---------------------------------------------------------------- Python-side helpers
def tile_name(t: int) -> str:
    """``T7`` for tile index 6 (boardspace numbering 1..18)."""
    return f"T{t + 1}"


@cache
def _kernel(kernel):  # type: ignore[no-untyped-def]
    """``kernel`` as a compiled entry point for the strings (names, reasons, the picture), which call
    kernels from Python: called directly, a kernel and all it calls (``legal_mask``: the whole turn
    search) would be compiled afresh in every process, seconds before the first message. A kernel of
    the contract is the engine's entry point (what :attr:`Game.kernels` holds, compiled once), a
    helper its own cached one (:func:`octagames.specialize.cached`)."""
    engine = engine_kernels(__package__)
    name = kernel.__name__
    if getattr(engine.game, name, None) is kernel and hasattr(engine, name):
        return getattr(engine, name)
    return cached(kernel)


def action_to_string(s, action: int) -> str:
    """A readable name: ``place T5 on c3 rot 2``, ``move B3->NE``, ``pass``, ``start on HW1``."""
    a = int(action)
    if int(_kernel(current_player)(s)) == CHANCE:
        if not 0 <= a < NUM_CHANCE:
            return f"chance outcome {a}"
        block, k = CHANCE_OUTCOMES.locate(a)
        ph = int(s["phase"])
        side = int(s["setup_k"])  # the side space being set up (3 players), where one is
        side_name = SPACE_NAMES[int(SIDE_SPACES[3, side])] if 0 <= side < SIDE_SPACES.shape[1] else ""
        if block.name == "rotation":
            return f"rotation {k} for {side_name}" if ph == PH_ROT3 and side_name else f"rotation {k}"
        if block.name == "start_player":
            return f"start player P{k}"
        if ph == PH_DEAL3 and side_name:
            what = f"{side_name} is"
        else:
            what = {PH_DEAL: "exchange tile is", PH_REVEAL: "picked-up tile is"}.get(ph, "tile")
        return f"{what} {tile_name(k)}"
    if not 0 <= a < NUM_ACTIONS:
        return f"action {a}"
    block, k = ACTIONS.locate(a)
    if block.name == "place":
        o, r = divmod(k, NUM_SIDES)
        ex = int(s["exch"])
        t = tile_name(ex) if ex >= 0 and int(s["phase"]) == PH_PLACE else "exchange tile"
        return f"place {t} on {SPACE_NAMES[o]} rot {r}"
    if block.name == "move":
        pt, d = divmod(k, NUM_DIRS)
        return f"move {POINT_NAMES[pt]}->{DIR_NAMES[d]}" if pt < NUM_STOPS else f"move {POINT_NAMES[pt]}"
    if block.name == "pass":
        return "pass"
    p = int(_kernel(current_player)(s))  # setup
    if p >= 0:
        return f"start on {POINT_NAMES[int(HOME_OF[int(s['seat_side'][p]), k + 1])]}"
    return f"start on middle circle {k + 1}"


def _why_move(s, p: int, pt: int, d: int, o: int, t: int, r: int) -> str:
    """Why the move of ``p``'s runner from ``pt`` in direction ``d`` over space ``o`` fails ('' if legal)."""
    buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    end, crossed, _ln, dead = (int(x) for x in _kernel(trace)(s, pt, d, o, t, r, buf))
    where = f"the path from {POINT_NAMES[pt]}" + (f" leaving {DIR_NAMES[d]}" if pt < NUM_STOPS else "")
    if end == -2:
        return f"{POINT_NAMES[pt]} touches no octagon towards {DIR_NAMES[d]}"
    if end == -1 and not crossed:
        return (f"{where} runs into the face-down tile on {SPACE_NAMES[dead]} before it reaches "
                f"the tile placed on {SPACE_NAMES[o]}: paths to face-down octagons are dead ends")
    if end == -1:
        return (f"{where} runs into the face-down tile on {SPACE_NAMES[dead]}: "
                "paths to face-down octagons are dead ends")
    if not crossed:
        return (f"{where} ends at {POINT_NAMES[end]} without crossing the tile placed on "
                f"{SPACE_NAMES[o]}: a runner may only use a path over the placed tile")
    if end >= NUM_STOPS and bool(_kernel(on_start)(s, p, end)):
        return f"{where} ends on {POINT_NAMES[end]}, one of your own start circles, which is not allowed"
    if end >= NUM_STOPS and not bool(_kernel(on_goal)(s, p, end)):
        return (f"{where} ends on {POINT_NAMES[end]}, a foreign goal circle; "
                "only your own goal circles are allowed")
    if end != pt and int(_kernel(occupant)(s, end)) >= 0:
        kind = "stop" if end < NUM_STOPS else "goal circle"
        return f"{where} ends at the occupied {kind} {POINT_NAMES[end]}; a move must end on a free one"
    return ""


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is illegal for ``player`` in ``s``, in the rulebook's words."""
    a = int(action)
    p = int(player)
    cp = int(_kernel(current_player)(s))
    if cp == TERMINAL:
        return "the game is over"
    if cp == CHANCE:
        return "the game waits for a chance event (a tile being revealed, or the draw for start player)"
    if p != cp:
        return f"it is player {cp}'s turn, not player {p}'s"
    if not 0 <= a < NUM_ACTIONS:
        return f"actions are 0..{NUM_ACTIONS - 1}"
    ph = int(s["phase"])
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    _kernel(legal_mask)(s, p, mask)
    if mask[a]:
        return "the action is legal"
    block, k = ACTIONS.locate(a)
    if ph == PH_SETUP:
        if block.name != "setup":
            return "during setup players place their runners on the middle start circles of their own side"
        circle = POINT_NAMES[int(HOME_OF[int(s["seat_side"][p]), k + 1])]
        return f"start circle {circle} is already occupied"
    if block.name == "pass":
        return "a turn may only be forfeited when no legal turn (placement plus move) exists"
    if block.name == "setup":
        return "runners are placed on their start circles only during setup"
    if ph == PH_MOVE and block.name == "place":
        return "the exchange tile has already been placed this turn; now move a runner over it"
    if ph == PH_PLACE and block.name == "move":
        return "first place the exchange tile, then move a runner over it"
    if ph == PH_PLACE:
        o, r = divmod(k, NUM_SIDES)
        t = int(s["exch"])
        # the leaving rule is the reason only if the placement would be legal without it
        forced = bool(_kernel(_forced_now)(s, p)) and bool(_kernel(_placement_ok)(s, p, o, r, False))
        if mask[A_PASS]:
            head = "no legal turn exists, so the turn must be forfeited (pass)"
        else:
            head = (f"placing {tile_name(t)} on {SPACE_NAMES[o]} turned {r} lets no runner of yours "
                    "make a legal move over it")
        if forced:
            return (head + " off its start circle: all circles of your side are occupied, so a runner "
                    "must leave its start circle as soon as possible (forced leaving of start circles)")
        reasons = []
        for i in range(int(s["runners"])):
            pt = int(s["pos"][p, i])
            if not bool(_kernel(may_move)(s, p, pt)):
                continue
            for d in range(NUM_DIRS):
                if int(POINT_SPACE[pt, d]) < 0:
                    continue
                why = _why_move(s, p, pt, d, o, t, r)
                if why and "without crossing" not in why and "before it reaches" not in why:
                    reasons.append(why)  # only paths that use the placed tile explain it
        return head + (": " + "; ".join(reasons[:6]) if reasons else
                       ": none of your runners' paths crosses that octagon")
    # PH_MOVE, a move action
    pt, d = divmod(k, NUM_DIRS)
    mine = [int(x) for x in s["pos"][p, : int(s["runners"])]]
    if pt not in mine:
        return f"no runner of yours stands on {POINT_NAMES[pt]}"
    if not bool(_kernel(may_move)(s, p, pt)):
        return (f"the runner on {POINT_NAMES[pt]} has reached its goal circle and never moves again "
                "(goal_locks=True)")
    if int(s["forced"]) and not bool(_kernel(on_start)(s, p, pt)):
        return ("all circles of your side are occupied, so a runner must leave its start circle this "
                "turn (forced leaving of start circles)")
    o = int(s["placed"])
    why = _why_move(s, p, pt, d, o, int(s["tile"][o]), int(s["rot"][o]))
    return why or "the move is not allowed"


def _config_of(s) -> Config:
    """The config a record carries (``ValueError`` naming the field if it is not a valid one)."""
    flags = ("adjacent", "team", "play_on", "choose_start", "goal_locks")
    for field in flags:
        if int(s[field]) not in (0, 1):
            raise ValueError(f"{field} = {int(s[field])} is outside 0..1")
    return Config(num_players=int(s["num_players"]), runners=int(s["runners"]), adjacent=bool(s["adjacent"]),
                  team=bool(s["team"]), play_on=bool(s["play_on"]),
                  choose_start_circles=bool(s["choose_start"]), goal_locks=bool(s["goal_locks"]),
                  max_turns=int(s["max_turns"]))


def _most_moves(s, cfg: Config) -> int:
    """The most actions (chance included) that lead to record ``s``: the setup's choices made so far (the
    runners placed beyond those the reset puts down) and its chance nodes (the exchange tile, with 3 players the
    two side tiles and their rotations, the lot), then at most 3 a turn played and the actions of this turn
    (place, move). Play adds one each action and never passes ``max_game_length``, so a record within it cannot
    overflow the int32 ``moves``."""
    n, k, ph = cfg.num_players, cfg.runners, int(s["phase"])
    base = k if k == MAX_RUNNERS or (not cfg.choose_start_circles and k in (3, 4)) else 2  # placed by reset
    if ph == PH_SETUP:
        return int((s["pos"][:n, :k] >= 0).sum()) - n * base
    choices, sides = n * (k - base), 4 if n == 3 else 0
    if ph == PH_DEAL:
        return choices
    if ph in (PH_DEAL3, PH_ROT3):
        return choices + 1 + 2 * int(s["setup_k"]) + (ph == PH_ROT3)
    if ph == PH_LOT:
        return choices + 1 + sides
    return choices + 2 + sides + 3 * int(s["turns"]) + {PH_MOVE: 1, PH_REVEAL: 2}.get(ph, 0)


def check_record(s) -> str:
    """``""`` when every kernel can run safely on record ``s`` under the config it carries,
    else one line naming the first field found wrong (saved games are untrusted input).

    Checked: the config fields; the range of every index-like field; the seats'
    board sides; the tiles (each of the 18 in at most one place, the exchange
    tile present when it must be placed, a face-down tile left to reveal at every
    reveal); the runners (only the seats and runners of the config, never two on
    one point, home circles only their own start or goal circles, all placed
    after the setup); the phase and the turn state that goes with it (who acts:
    in the setup the seats in turn from seat 0, nobody from then to the lot; the
    tile placed this turn, the finishing ranks, the turn count, the actions
    counted no more than lead there: :func:`_most_moves`).
    """
    try:
        cfg = _config_of(s)
    except ValueError as e:
        return str(e)
    n, k = cfg.num_players, cfg.runners
    ph = int(s["phase"])
    seat = np.arange(MAX_PLAYERS) < n  # the seats of this game
    checks = [("phase", ph, 0, PH_OVER), ("tile", s["tile"], -1, NUM_TILES - 1), ("rot", s["rot"], 0, NUM_SIDES - 1),
              ("exch", s["exch"], -1, NUM_TILES - 1), ("placed", s["placed"], -1, NUM_SPACES - 1),
              ("pos", s["pos"], -1, np.where(seat[:, None] & (np.arange(MAX_RUNNERS) < k), NUM_POINTS - 1, -1)),
              ("cur", s["cur"], -1, n - 1), ("setup_k", s["setup_k"], 0, 2),
              ("forced", s["forced"], 0, 1), ("passes", s["passes"], 0, n),
              ("last_move", s["last_move"], -1, np.where(seat, int(s["turns"]), -1)),
              ("rank", s["rank"], -1, np.where(seat, n - 1, -1)),
              ("n_finished", s["n_finished"], 0, n), ("winner", s["winner"], -1, n - 1),
              ("capped", s["capped"], 0, 1),
              ("turns", s["turns"], 0, cfg.max_turns),
              ("last_seat", s["last_seat"], -1, n - 1), ("last_space", s["last_space"], -1, NUM_SPACES - 1),
              ("last_rot", s["last_rot"], 0, NUM_SIDES - 1), ("last_from", s["last_from"], -1, NUM_POINTS - 1),
              ("last_to", s["last_to"], -1, NUM_POINTS - 1), ("last_path_len", s["last_path_len"], 0, MAX_PATH),
              ("last_path", s["last_path"][: int(max(s["last_path_len"], 0))], 0, NUM_SPACES * NUM_SIDES - 1),
              ("last_exit", s["last_exit"][: int(max(s["last_path_len"], 0))], 0, NUM_SIDES - 1)]
    bad = out_of_range(checks)
    if bad:
        return bad
    if not np.all(np.isfinite(s["returns"])):
        return "returns holds a value that is not finite"
    sides = [0, 1 if cfg.adjacent else 2] if n == 2 else list(range(n))
    if [int(x) for x in s["seat_side"]] != sides + [-1] * (MAX_PLAYERS - n):
        return f"seat_side = {[int(x) for x in s['seat_side']]}; {n} players sit on sides {sides}"
    # the tiles: each in at most one place; an exchange tile where one must be placed or turned up
    seen = [int(t) for t in s["tile"] if t >= 0] + ([int(s["exch"])] if s["exch"] >= 0 else [])
    if len(seen) != len(set(seen)):
        return f"a tile is in two places (tile and exch name {sorted(seen)})"
    exch = int(s["exch"])
    if (exch < 0 and ph in (PH_DEAL3, PH_ROT3, PH_LOT, PH_PLACE)) or (exch >= 0 and ph in (PH_SETUP, PH_DEAL, PH_REVEAL)):
        return f"exch = {exch} in phase {PHASE_NAMES[ph]}"
    if ph in (PH_SETUP, PH_DEAL) and seen:
        return f"a tile is face up in phase {PHASE_NAMES[ph]}, before any is turned"
    if ph in (PH_DEAL3, PH_ROT3) and n != 3:
        return f"phase = {PHASE_NAMES[ph]} with {n} players: only 3 players turn up tiles at setup"
    if ph in (PH_DEAL3, PH_ROT3) and int(s["setup_k"]) >= SIDE_SPACES.shape[1]:
        return f"setup_k = {int(s['setup_k'])} in phase {PHASE_NAMES[ph]}: setup turns up tiles 0 and 1 only"
    if ph == PH_DEAL3 and int(s["tile"][SIDE_SPACES[3, int(s["setup_k"])]]) >= 0:
        return f"setup_k = {int(s['setup_k'])}: the tile to turn up at setup is already face up"
    if ph == PH_ROT3 and int(s["tile"][SIDE_SPACES[3, int(s["setup_k"])]]) < 0:
        return f"setup_k = {int(s['setup_k'])}: the tile to turn at setup is face down"
    # the runners: never two on one point; home circles only their own start or goal circles
    points = [int(x) for x in s["pos"][:n, :k].ravel() if x >= 0]
    if len(points) != len(set(points)):
        return "pos puts two runners on one point"
    for p in range(n):
        for i in range(k):
            pt = int(s["pos"][p, i])
            if pt >= NUM_STOPS and not (bool(on_start(s, p, pt)) or bool(on_goal(s, p, pt))):
                return f"pos[{p}, {i}] = {pt} ({POINT_NAMES[pt]}) is a home circle of another side"
            if pt < 0 and ph != PH_SETUP:
                return f"pos[{p}, {i}] = -1: every runner is on the board once the setup is over"
    # the phase and the turn state
    cur, placed = int(s["cur"]), int(s["placed"])
    if ph == PH_SETUP and (not cfg.choose_start_circles or cur < 0):
        return f"phase = setup with cur = {cur} (choose_start_circles={cfg.choose_start_circles})"
    if ph == PH_SETUP:  # seats choose in turn from seat 0: cur is the first seat with runners left to place
        count = [int(c) for c in (s["pos"][:n, :k] >= 0).sum(axis=1)]
        done = [p for p in range(n) if count[p] == k]
        if cur in done or any(p not in done for p in range(cur)):
            return (f"cur = {cur} in the setup, but the seats have placed {count} of their {k} runners: "
                    f"seats choose their start circles in turn, from seat 0")
        if any(count[p] != 2 for p in range(cur + 1, n)):
            return (f"the seats have placed {count} of their {k} runners in the setup with cur = {cur}: a seat "
                    f"after it has only its two outer start circles before its turn to choose")
    if ph in (PH_DEAL, PH_DEAL3, PH_ROT3, PH_LOT) and cur != -1:
        return f"cur = {cur} in phase {PHASE_NAMES[ph]}: nobody acts between the setup and the lot"
    if ph in (PH_PLACE, PH_MOVE, PH_REVEAL) and (cur < 0 or int(s["rank"][cur]) >= 0):
        return f"cur = {cur}: the seat to act must be a seat still in the game"
    if (placed >= 0) != (ph in (PH_MOVE, PH_REVEAL)):
        return f"placed = {placed} in phase {PHASE_NAMES[ph]}"
    if placed >= 0 and int(s["tile"][placed]) < 0:
        return f"placed = {placed} but that space is face down"
    ranks = sorted(int(r) for r in s["rank"][:n] if r >= 0)
    if ranks != list(range(int(s["n_finished"]))):
        return f"rank holds {ranks} but n_finished = {int(s['n_finished'])}"
    for p in range(n):
        ranked, done = int(s["rank"][p]) >= 0, bool(finished(s, p))
        if ph == PH_REVEAL and p == cur and done and not ranked:
            continue  # the move that brought its last runner home is ranked when its turn ends, after the reveal
        if ph != PH_OVER and ranked != done:
            return f"rank[{p}] = {int(s['rank'][p])} but that seat's runners say otherwise"
    if s["capped"] and (ph != PH_OVER or int(s["turns"]) < cfg.max_turns):
        return f"capped = 1 but the game did not stop at max_turns = {cfg.max_turns}"
    if ph != PH_OVER and int(s["turns"]) >= cfg.max_turns:
        return f"turns = {int(s['turns'])} but the game is not over after max_turns = {cfg.max_turns}"
    # the actions counted: no more than lead here (the fields above vouched for), so none can wrap int32
    most = _most_moves(s, cfg)
    if not 0 <= int(s["moves"]) <= most:
        return f"moves = {int(s['moves'])}, but at most {most} actions lead to this position"
    return _check_returns(s, cfg)


def _check_returns(s, cfg: Config) -> str:
    """The winner and the returns: none before the end, nor after a draw or a truncation at the turn cap; else
    what the end gives the winner and the ranks, replayed on a copy by :func:`_finish_win`,
    :func:`_finish_ranked`, or :func:`_ranked_returns` where the cap ended a play-on game with places won.
    Such a game saved before 2026-12-07 kept every return at 0: it is taken as it is (it is over)."""
    n, winner = cfg.num_players, int(s["winner"])
    if np.any(s["returns"][n:] != 0):
        return f"returns of a seat beyond the {n} players are set"
    capped_won = int(s["phase"]) == PH_OVER and s["capped"] and _places_won(s)
    if capped_won and winner == -1 and not np.any(s["returns"] != 0):
        return ""  # the earlier reading of the cap: every return 0
    if int(s["phase"]) != PH_OVER or (winner < 0 and not capped_won):
        if winner != -1 or np.any(s["returns"] != 0):
            return f"winner = {winner}, returns = {s['returns'][:n].tolist()}: nobody has won this game (yet)"
        return ""
    if (s["capped"] and not capped_won) or (cfg.team and winner > 1):
        return f"winner = {winner}, capped = {int(s['capped'])}: the game stopped at the turn cap or has no such side"
    if capped_won:
        finish = _ranked_returns
    else:
        finish = _finish_ranked if cfg.play_on and not cfg.team else (lambda again: _finish_win(again, winner))
    return replay_end(s, finish, {"returns": 0.0, "winner": -1}, ("rank", "n_finished", "winner", "returns"),
                      "the end of the game (the winner and the ranks)")


def _space_text(s, o: int) -> str:
    t = int(s["tile"][o])
    return "##" if t < 0 else f"{t + 1:02d}/{int(s['rot'][o])}"


def render(s, viewer: int | None = None) -> str:
    """A text picture: the tile on each space (``TT/r``, ``##`` face down), runners, the turn.

    Everything is public, so ``viewer`` changes nothing but the header.
    """
    n = int(s["num_players"])
    names = "WNES"
    lines = []
    mode = "team" if s["team"] else f"{n} players"
    head = f"Octiles ({mode}, {int(s['runners'])} runners, turn {int(s['turns'])})"
    if viewer is not None:
        head += f" seen by P{viewer}"
    lines.append(head)
    grid = {}
    for o, nm in enumerate(SPACE_NAMES):
        grid[(ord(nm[0]) - 97, int(nm[1]) - 1)] = _space_text(s, o)
    for row in range(4, -1, -1):
        cells = [grid.get((col, row), "    ") for col in range(5)]
        cells = [c.ljust(5) for c in cells]
        lines.append(f"{row + 1} " + " ".join(cells))
    lines.append("  " + " ".join(c.ljust(5) for c in "abcde"))
    ex = int(s["exch"])
    lines.append("exchange tile: " + (tile_name(ex) if ex >= 0 else "(face down, to be revealed)"))
    for p in range(n):
        pts = [POINT_NAMES[int(x)] for x in s["pos"][p, : int(s["runners"])] if int(x) >= 0]
        b = int(s["seat_side"][p])
        extra = f" finished #{int(s['rank'][p]) + 1}" if int(s["rank"][p]) >= 0 else ""
        lines.append(f"P{p} ({names[b]} -> {names[(b + 2) % 4]}): {' '.join(pts)}{extra}")
    cp = int(_kernel(current_player)(s))
    ph = int(s["phase"])
    if cp == TERMINAL:
        r = [round(float(x), 3) for x in s["returns"][:n]]
        lines.append(f"game over, returns {r}")
    elif cp == CHANCE:
        lines.append(f"chance: {PHASE_NAMES[ph]}")
    else:
        what = {PH_SETUP: "choose start circles", PH_PLACE: "place the exchange tile",
                PH_MOVE: f"move a runner over {SPACE_NAMES[int(s['placed'])]}"}[ph]
        lines.append(f"P{cp} to {what}" + (" (must leave a start circle)" if int(s["forced"]) else ""))
    return "\n".join(lines)
