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

Chance outcome ids
==================  =====================================================
id                  meaning
==================  =====================================================
0..17               the tile being revealed is tile ``id`` (boardspace 1..18)
18..25              rotation ``id - 18`` of a tile turned up at 3-player setup
26..29              seat ``id - 26`` is the start player
==================  =====================================================

Actions (one flat space of 284)
==========  =====  =========================================================
first id    count  meaning
==========  =====  =========================================================
0           136    place the exchange tile on space ``a // 8`` turned
                   ``a % 8`` steps clockwise (spaces numbered as in
                   :mod:`~octagames.octiles.board`: c1 d1 a2 b2 ... c5)
136         144    move the runner standing on point ``(a-136) // 4`` out in
                   contact direction ``(a-136) % 4`` (NE, SE, SW, NW of a stop;
                   a home circle has only direction 0)
280         1      pass: forfeit the turn (only when no legal turn exists);
                   the exchange tile goes unplayed to the next player
281         3      setup: start a runner on middle circle ``a - 280`` (1..3)
                   of one's own side (only with ``choose_start_circles``)
==========  =====  =========================================================
A placement is legal only if a legal runner move over the placed tile
follows; after it, only such moves are legal. Rotations that look alike on
symmetric tiles are distinct actions with the same effect.

Observation (seats relative to the viewer, 0 = self; all of it is public)
========  =====  ==============================================================
offset    size   meaning
========  =====  ==============================================================
0         1547   per space (17 blocks of 91): [0] face down; [1:19] tile
                 one-hot; [19:27] rotation one-hot; [27:91] ``link[k, j]``:
                 side k joined to side j (8x8, face-up tiles only)
1547      19     exchange tile one-hot (18); [18] unknown: picked up face down,
                 revealed after this move
1566      17     space where the exchange tile was placed this turn
1583      144    ``runner[q, point]``: a runner of relative seat q is on point
1727      16     ``side[q, b]``: relative seat q plays from board side b (W N E S)
1743      4      relative seat to act
1747      9      phase one-hot (setup, deal, deal-3p, rotate-3p, lot, place,
                 move, reveal, over)
1756      18     tile t not yet seen (still face down somewhere)
1774      1      the forced leaving of start circles applies to this turn
1775      1      consecutive forfeits / 4
1776      1      team variant
1777      1      play on for ranking
1778      1      runners per player / 5
1779      3      number of players one-hot (2, 3, 4)
1782      1      turns played / max_turns
1783      4      relative seat has finished (all runners home)
========  =====  ==============================================================
Total 1787 floats. Nothing is hidden from one player more than another, so
the observation is the full state up to the RNG and the last-move record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from octagames.core import (CHANCE, TERMINAL, GameInfo, check_choice, check_range, nth_set, rng_below,
                            seed_rng)
from octagames.octiles.board import (DIR_NAMES, EXIT, HOME_OF, LINK_A, LINK_B, LINK_KIND,
                                     NUM_DIRS, NUM_POINTS, NUM_SIDES, NUM_SPACES, NUM_STOPS,
                                     NUM_TILES, POINT_HOME_SIDE, POINT_NAMES, POINT_SIDE,
                                     POINT_SPACE, SIDE_SPACES, SPACE_NAMES)

# ---------------------------------------------------------------- static facts
MAX_PLAYERS = 4
MAX_RUNNERS = 5
A_PLACE = 0
A_MOVE = NUM_SPACES * NUM_SIDES            # 136
A_PASS = A_MOVE + NUM_POINTS * NUM_DIRS    # 280
A_SETUP = A_PASS + 1                       # 281
NUM_ACTIONS = A_SETUP + 3                  # 284
C_TILE, C_ROT, C_SEAT = 0, NUM_TILES, NUM_TILES + NUM_SIDES  # 0, 18, 26
NUM_CHANCE = C_SEAT + MAX_PLAYERS          # 30
MAX_PATH = 72      # a path uses every octagon side at most once: <= 136/2 crossings
DEFAULT_MAX_TURNS = 2000
# Every (placement, move) pair of one turn, for list_turns.
MAX_TURN_CHOICES = NUM_SPACES * NUM_SIDES * MAX_RUNNERS * NUM_DIRS
#: rejection draws of :func:`random_legal_action` before it builds the whole mask
PLACEMENT_TRIES = 12

PH_SETUP, PH_DEAL, PH_DEAL3, PH_ROT3, PH_LOT, PH_PLACE, PH_MOVE, PH_REVEAL, PH_OVER = range(9)
PHASE_NAMES = ("setup", "deal", "deal-3p", "rotate-3p", "lot", "place", "move", "reveal", "over")

# Observation offsets (see the module docstring).
O_BOARD, O_SPACE = 0, 91
O_EXCH = NUM_SPACES * O_SPACE              # 1547
O_PLACED = O_EXCH + NUM_TILES + 1          # 1566
O_RUNNERS = O_PLACED + NUM_SPACES          # 1583
O_SIDES = O_RUNNERS + MAX_PLAYERS * NUM_POINTS  # 1727
O_TURN = O_SIDES + 16                      # 1743
O_PHASE = O_TURN + MAX_PLAYERS             # 1747
O_UNSEEN = O_PHASE + 9                     # 1756
O_FORCED = O_UNSEEN + NUM_TILES            # 1774
O_PASSES, O_TEAM, O_PLAYON, O_NRUN, O_NPLAYERS = 1775, 1776, 1777, 1778, 1779
O_TURNS = 1782
O_FINISHED = 1783
OBS_SIZE = O_FINISHED + MAX_PLAYERS        # 1787

INFO = GameInfo(
    name="octiles",
    min_players=2,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CHANCE,
    observation_size=OBS_SIZE,
    # setup: <= 4 seats x 2 middle-circle choices + 6 chance nodes (exchange tile,
    # 2 x identity+rotation, lot); a turn is place + move + reveal (3) or a pass (1);
    # the engine ends the game as a draw after max_turns <= DEFAULT_MAX_TURNS turns.
    max_game_length=8 + 6 + 3 * DEFAULT_MAX_TURNS,
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
    ("max_turns", np.int32),       # engine cap on turns (draw after)
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
    ("last_mover", np.int8),       # last seat that made a move, -1
    ("rank", np.int8, (MAX_PLAYERS,)),  # finishing order (0 = first), -1 not finished
    ("n_finished", np.int8),
    ("winner", np.int8),           # winning seat (team: lower seat of the team), -1 none / draw
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
        runners: runners per player: 4 or 5 with 2-3 players, 3 or 4 with 4
            players; ``None`` takes the default (5, or 4 with 4 players).
        adjacent: 2 players on adjacent sides (W, N) instead of opposite
            sides (W, E); the seed notes that opposite sides give a shorter game.
        team: 4-player team variant, opposite seats 0+2 (W+E) against 1+3 (N+S).
        play_on: after the first player finishes, the others play on for
            ranking (returns by rank); otherwise the game ends at once.
        choose_start_circles: players choose which middle circles their
            runners start on, as setup actions; otherwise the default is used
            (4 runners: middle circle 2 empty; 3 runners: only 2 of 1..3 used).
        max_turns: engine cap on turns (moves and forfeits); the game is a
            draw when it is reached, 1..DEFAULT_MAX_TURNS.
    """

    num_players: int = 2
    runners: int | None = None
    adjacent: bool = False
    team: bool = False
    play_on: bool = False
    choose_start_circles: bool = False
    max_turns: int = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, 2, MAX_PLAYERS)
        valid = [3, 4] if self.num_players == 4 else [4, 5]
        if self.runners is None:
            object.__setattr__(self, "runners", valid[-1])
        check_choice("runners", self.runners, valid)
        check_choice("adjacent", self.adjacent, [False, True])
        check_choice("team", self.team, [False, True])
        check_choice("play_on", self.play_on, [False, True])
        check_choice("choose_start_circles", self.choose_start_circles, [False, True])
        check_range("max_turns", self.max_turns, 1, DEFAULT_MAX_TURNS)
        if self.adjacent and self.num_players != 2:
            raise ValueError(f"adjacent=True needs num_players=2, got num_players={self.num_players}")
        if self.team and self.num_players != 4:
            raise ValueError(f"team=True needs num_players=4, got num_players={self.num_players}")
        if self.team and self.play_on:
            raise ValueError("play_on=True is not valid with team=True: a team game ends when a team is home")


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["num_players"] = config.num_players
    s["runners"] = config.runners
    s["adjacent"] = int(config.adjacent)
    s["team"] = int(config.team)
    s["play_on"] = int(config.play_on)
    s["choose_start"] = int(config.choose_start_circles)
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


@nb.njit
def ends_over(s, point, d, t, ends, buf, buf2) -> None:
    """Where the path from ``point`` in direction ``d`` ends for every placement of tile ``t``.

    ``ends[o, r]`` receives the end point (or -1 dead end) when ``t`` turned
    ``r`` lies on space ``o``, and -9 when that path does not cross ``o``.
    Placing a tile only changes the path after its first entry into the
    placed space, so only spaces that the present path reaches (a face-down
    dead end included) need to be tried.
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
        for r in range(NUM_SIDES):
            e, _c2, _ln2, _d2 = walk(s, o, k, o, t, r, buf2)
            ends[o, r] = e


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
    """Whether a runner of ``p`` on ``point`` may move at all (Kadon: never off its goal)."""
    return point >= 0 and not on_goal(s, p, point)


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
    for q in range(NUM_POINTS):
        out[q] = 1 if q < NUM_STOPS or on_goal(s, p, q) else 0
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
    count. Returns the number of legal placements.
    """
    buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    buf2 = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    table = np.empty(NUM_POINTS, dtype=np.uint8)
    _end_table(s, p, table)
    t = int(s["exch"])
    n = 0
    for i in range(s["runners"]):
        pt = int(s["pos"][p, i])
        if not may_move(s, p, pt):
            continue
        if from_start_only and not on_start(s, p, pt):
            continue
        for d in range(NUM_DIRS):
            # as ends_over: only the spaces the present path enters (first entries) can change it
            end0, _c, ln, _dead = trace(s, pt, d, -1, 0, 0, buf)
            if end0 == -2:
                continue
            m = ln + 1 if end0 == -1 else ln
            tried = 0
            for j in range(m):
                o = int(buf[j]) // NUM_SIDES
                k = int(buf[j]) % NUM_SIDES
                if tried & (1 << o):
                    continue
                tried |= 1 << o
                for r in range(NUM_SIDES):
                    a = A_PLACE + o * NUM_SIDES + r
                    if out[a] == 0:
                        e, _c2, _ln2, _d2 = walk(s, o, k, o, t, r, buf2)
                        if _end_ok_table(table, pt, e):
                            out[a] = 1
                            n += 1
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
        own = False
        for i in range(s["runners"]):
            if s["pos"][p, i] == pt:
                own = True
        if not own or not may_move(s, p, pt) or (s["forced"] and not on_start(s, p, pt)):
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
def _move_mask(s, p, out) -> int:
    """Legal moves of ``p`` over the tile placed this turn."""
    buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    table = np.empty(NUM_POINTS, dtype=np.uint8)
    _end_table(s, p, table)
    o = int(s["placed"])
    n = 0
    for i in range(s["runners"]):
        pt = int(s["pos"][p, i])
        if not may_move(s, p, pt):
            continue
        if s["forced"] and not on_start(s, p, pt):
            continue
        for d in range(NUM_DIRS):
            end, crossed, _ln, _dead = trace(s, pt, d, o, s["tile"][o], s["rot"][o], buf)
            if crossed and _end_ok_table(table, pt, end):
                out[A_MOVE + pt * NUM_DIRS + d] = 1
                n += 1
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
    s["last_mover"] = -1
    s["rank"][:] = -1
    s["n_finished"] = 0
    s["winner"] = -1
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
    # the two outer circles are always occupied; 5 runners fill all five
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
            else:
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
def _team_done(s, team) -> bool:
    return s["rank"][team] >= 0 and s["rank"][team + 2] >= 0


@nb.njit
def _finish_win(s, w) -> None:
    """Game over: seat ``w`` (or its team) wins; everyone else shares the loss."""
    s["phase"] = PH_OVER
    n = int(s["num_players"])
    if s["team"]:
        s["winner"] = w % 2
        for p in range(n):
            s["returns"][p] = 1.0 if p % 2 == w % 2 else -1.0
        return
    s["winner"] = w
    for p in range(n):
        s["returns"][p] = 1.0 if p == w else -1.0 / (n - 1)


@nb.njit
def _finish_ranked(s, extra) -> None:
    """Play-on game over: returns by finishing rank, ``1 - 2 r / (n - 1)``.

    ``extra`` (if >= 0 and unfinished) takes the next rank (the last mover at a
    full cycle of forfeits); the other unfinished seats share the rest.
    """
    s["phase"] = PH_OVER
    n = int(s["num_players"])
    if extra >= 0 and s["rank"][extra] < 0:
        s["rank"][extra] = s["n_finished"]
        s["n_finished"] += 1
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
def _end_turn(s, moved) -> None:
    """Close the current seat's turn: check the end, then hand on to the next seat."""
    p = int(s["cur"])
    s["turns"] += 1
    s["placed"] = -1
    s["forced"] = 0
    if moved:
        s["passes"] = 0
        s["last_mover"] = p
        if s["rank"][p] < 0 and finished(s, p):
            s["rank"][p] = s["n_finished"]
            s["n_finished"] += 1
            if s["team"]:
                if _team_done(s, p % 2):
                    _finish_win(s, p)
                    return
            elif not s["play_on"]:
                _finish_win(s, p)
                return
            elif _active_count(s) <= 1:
                _finish_ranked(s, -1)
                return
    else:
        s["passes"] += 1
        # a full cycle in which no active player could make a legal turn
        if s["passes"] >= _active_count(s):
            lm = s["last_mover"]
            if s["play_on"]:
                _finish_ranked(s, lm)
            elif lm >= 0:
                _finish_win(s, lm)
            else:
                s["phase"] = PH_OVER  # nobody ever moved: a draw
            return
    if s["turns"] >= s["max_turns"]:
        s["phase"] = PH_OVER  # engine cap: a draw, returns stay 0
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
def returns(s, out) -> None:
    """Returns so far (zero until the end; a draw stays zero)."""
    for p in range(s["num_players"]):
        out[p] = s["returns"][p]


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s view of the game (layout in the module docstring)."""
    out[:] = 0.0
    n = int(s["num_players"])
    for o in range(NUM_SPACES):
        base = O_BOARD + o * O_SPACE
        t = int(s["tile"][o])
        if t < 0:
            out[base] = 1.0
            continue
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
    for t in range(NUM_TILES):
        if not _is_seen(s, t):
            out[O_UNSEEN + t] = 1.0
    out[O_FORCED] = float(s["forced"])
    out[O_PASSES] = s["passes"] / 4.0
    out[O_TEAM] = float(s["team"])
    out[O_PLAYON] = float(s["play_on"])
    out[O_NRUN] = s["runners"] / 5.0
    out[O_NPLAYERS + n - 2] = 1.0
    out[O_TURNS] = s["turns"] / float(s["max_turns"])


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
    buf2 = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    n = 0
    for i in range(s["runners"]):
        pt = int(s["pos"][p, i])
        if not may_move(s, p, pt) or (only_start and not on_start(s, p, pt)):
            continue
        for d in range(NUM_DIRS):
            ends_over(s, pt, d, t, ends, buf, buf2)
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


@nb.njit
def rollout(s, max_steps) -> int:
    """Play uniformly random legal actions (chance by its odds) with the record's RNG.

    Stops at the end of the game or after ``max_steps`` actions; returns the
    number of actions applied. For fast simulation (MCTS playouts, benchmarks).
    """
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    steps = 0
    while steps < max_steps:
        cp = current_player(s)
        if cp == TERMINAL:
            break
        if cp == CHANCE:
            a = sample_chance(s)
        else:
            a = nth_set(mask, rng_below(s, legal_mask(s, cp, mask)))
        apply_action(s, a)
        steps += 1
    return steps


# ---------------------------------------------------------------- Python-side helpers
def tile_name(t: int) -> str:
    """``T7`` for tile index 6 (boardspace numbering 1..18)."""
    return f"T{t + 1}"


def action_to_string(s, action: int) -> str:
    """A readable name: ``place T5 on c3 rot 2``, ``move B3->NE``, ``pass``, ``start on HW1``."""
    a = int(action)
    if int(current_player(s)) == CHANCE:
        ph = int(s["phase"])
        if C_ROT <= a < C_SEAT:
            o = int(SIDE_SPACES[3, int(s["setup_k"])])
            return f"rotation {a - C_ROT} for {SPACE_NAMES[o]}"
        if C_SEAT <= a < NUM_CHANCE:
            return f"start player P{a - C_SEAT}"
        if 0 <= a < NUM_TILES:
            if ph == PH_DEAL3:
                what = f"{SPACE_NAMES[int(SIDE_SPACES[3, int(s['setup_k'])])]} is"
            else:
                what = {PH_DEAL: "exchange tile is", PH_REVEAL: "picked-up tile is"}.get(ph, "tile")
            return f"{what} {tile_name(a)}"
        return f"chance outcome {a}"
    if A_PLACE <= a < A_MOVE:
        o, r = divmod(a - A_PLACE, NUM_SIDES)
        ex = int(s["exch"])
        t = tile_name(ex) if ex >= 0 and int(s["phase"]) == PH_PLACE else "exchange tile"
        return f"place {t} on {SPACE_NAMES[o]} rot {r}"
    if A_MOVE <= a < A_PASS:
        pt, d = divmod(a - A_MOVE, NUM_DIRS)
        return f"move {POINT_NAMES[pt]}->{DIR_NAMES[d]}" if pt < NUM_STOPS else f"move {POINT_NAMES[pt]}"
    if a == A_PASS:
        return "pass"
    if A_SETUP <= a < NUM_ACTIONS:
        p = int(current_player(s))
        c = a - A_SETUP + 1
        if p >= 0:
            return f"start on {POINT_NAMES[int(HOME_OF[int(s['seat_side'][p]), c])]}"
        return f"start on middle circle {c}"
    return f"action {a}"


def _why_move(s, p: int, pt: int, d: int, o: int, t: int, r: int) -> str:
    """Why the move of ``p``'s runner from ``pt`` in direction ``d`` over space ``o`` fails ('' if legal)."""
    buf = np.zeros(MAX_PATH + 1, dtype=np.uint8)
    end, crossed, _ln, dead = (int(x) for x in trace(s, pt, d, o, t, r, buf))
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
    if end >= NUM_STOPS and bool(on_start(s, p, end)):
        return f"{where} ends on {POINT_NAMES[end]}, one of your own start circles, which is not allowed"
    if end >= NUM_STOPS and not bool(on_goal(s, p, end)):
        return (f"{where} ends on {POINT_NAMES[end]}, a foreign goal circle; "
                "only your own goal circles are allowed")
    if end != pt and int(occupant(s, end)) >= 0:
        kind = "stop" if end < NUM_STOPS else "goal circle"
        return f"{where} ends at the occupied {kind} {POINT_NAMES[end]}; a move must end on a free one"
    return ""


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is illegal for ``player`` in ``s``, in the rulebook's words."""
    a = int(action)
    p = int(player)
    cp = int(current_player(s))
    if cp == TERMINAL:
        return "the game is over"
    if cp == CHANCE:
        return "the game waits for a chance event (a tile being revealed, or the draw for start player)"
    if p != cp:
        return f"it is player {cp}'s turn, not player {p}'s"
    ph = int(s["phase"])
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    legal_mask(s, p, mask)
    if mask[a]:
        return "the action is legal"
    if ph == PH_SETUP:
        if not A_SETUP <= a < NUM_ACTIONS:
            return "during setup players place their runners on the middle start circles of their own side"
        circle = POINT_NAMES[int(HOME_OF[int(s["seat_side"][p]), a - A_SETUP + 1])]
        return f"start circle {circle} is already occupied"
    if a == A_PASS:
        return "a turn may only be forfeited when no legal turn (placement plus move) exists"
    if A_SETUP <= a < NUM_ACTIONS:
        return "runners are placed on their start circles only during setup"
    if ph == PH_MOVE and A_PLACE <= a < A_MOVE:
        return "the exchange tile has already been placed this turn; now move a runner over it"
    if ph == PH_PLACE and A_MOVE <= a < A_PASS:
        return "first place the exchange tile, then move a runner over it"
    if ph == PH_PLACE:
        o, r = divmod(a - A_PLACE, NUM_SIDES)
        t = int(s["exch"])
        # the leaving rule is the reason only if the placement would be legal without it
        forced = bool(_forced_now(s, p)) and bool(_placement_ok(s, p, o, r, False))
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
            if pt < 0:
                continue
            if bool(on_goal(s, p, pt)):
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
    pt, d = divmod(a - A_MOVE, NUM_DIRS)
    mine = [int(x) for x in s["pos"][p, : int(s["runners"])]]
    if pt not in mine:
        return f"no runner of yours stands on {POINT_NAMES[pt]}"
    if bool(on_goal(s, p, pt)):
        return (f"the runner on {POINT_NAMES[pt]} has reached its goal circle and never moves again "
                "(Kadon rule)")
    if int(s["forced"]) and not bool(on_start(s, p, pt)):
        return ("all circles of your side are occupied, so a runner must leave its start circle this "
                "turn (forced leaving of start circles)")
    o = int(s["placed"])
    why = _why_move(s, p, pt, d, o, int(s["tile"][o]), int(s["rot"][o]))
    return why or "the move is not allowed"


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
    cp = int(current_player(s))
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
