"""A greedy Octiles baseline: advance the runner closest to its goal, by path distance.

The *path distance* of a point to a seat's goal is the fewest octagons a path
must cross to reach a free goal circle of that seat if every octagon could
carry any path (``octagames.octiles.board.POINT_DIST``). At a placement the
agent looks at every legal whole turn (placement + move) and takes, in order
of preference:

1. a turn that puts a runner on a goal circle;
2. a turn that brings a runner closer, choosing the runner that is already
   closest to its goal (then the largest gain);
3. otherwise the turn that loses the least distance.

Ties are broken at random. At the move step it applies the same ranking to
the moves over the tile it placed; setup choices are random.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.agents.base import Agent, Turn
from octagames.octiles import board as B
from octagames.octiles import rules as R
from octagames.specialize import cached

VALUE_SCALE = 4.0
"""Octagons of summed path distance that make a lead worth tanh(1) in :func:`octiles_value`."""


# The rules' kernels called from Python go through cached entry points (``cached(R.list_turns)``): called
# directly, ``R.list_turns`` would be compiled afresh in every process (3 s before this agent's first move).


def goal_distance(s, seat: int, point: int) -> int:
    """Path distance from ``point`` to the nearest goal circle of ``seat`` not held by its own runners."""
    if bool(cached(R.on_goal)(s, seat, point)):
        return 0
    side = int(cached(R.goal_side)(s, seat))
    mine = set(int(x) for x in s["pos"][seat, : int(s["runners"])])
    goals = [int(g) for g in B.HOME_OF[side] if int(g) not in mine]
    if not goals:  # cannot happen while a runner is still travelling; stay safe
        goals = [int(g) for g in B.HOME_OF[side]]
    return int(min(B.POINT_DIST[point, g] for g in goals))


class OctilesHeuristicAgent(Agent):
    """Greedy by path distance: advance the runner closest to its goal."""

    name = "heuristic"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self._rows = np.zeros((R.MAX_TURN_CHOICES, 3), dtype=np.int32)
        self._buf = np.zeros(R.MAX_PATH + 1, dtype=np.uint8)

    def _key(self, s, seat: int, start: int, end: int) -> tuple:
        before = goal_distance(s, seat, start)
        after = 0 if bool(cached(R.on_goal)(s, seat, end)) else goal_distance(s, seat, end)
        gain = before - after
        # arriving counts, not a runner already home stepping to another goal circle
        return (after == 0 < before, gain > 0, -before if gain > 0 else 0, gain, self.rng.random())

    def act(self, turn: Turn) -> int:
        """The best legal action by the ranking in the module docstring."""
        s = turn.state
        legal = turn.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        seat = turn.seat
        phase = int(s["phase"])
        if phase == R.PH_PLACE:
            n = int(cached(R.list_turns)(s, self._rows))
            best, best_key = int(legal[0]), None
            for place, move, end in self._rows[:n]:
                start = (int(move) - R.A_MOVE) // B.NUM_DIRS
                key = self._key(s, seat, start, int(end))
                if best_key is None or key > best_key:
                    best, best_key = int(place), key
            return best
        if phase == R.PH_MOVE:
            o = int(s["placed"])
            best, best_key = int(legal[0]), None
            for a in legal:
                start, d = divmod(int(a) - R.A_MOVE, B.NUM_DIRS)
                end = int(cached(R.trace)(s, start, d, o, int(s["tile"][o]), int(s["rot"][o]), self._buf)[0])
                key = self._key(s, seat, start, end)
                if best_key is None or key > best_key:
                    best, best_key = int(a), key
            return best
        return int(self.rng.choice(legal))


@nb.njit
def octiles_value(s, out) -> None:
    """Estimated returns of an unfinished Octiles game, for :class:`octagames.agents.search.mcts.CompiledValue`.

    Each seat's (or team's) progress is minus the summed path distance of its
    runners to their goals. Between a placement and its move the mover is
    credited with the best move over the placed tile, since a placement alone
    moves no runner. With two sides (two seats, or two teams) a side's value is
    ``tanh`` of its lead over the other, scaled by :data:`VALUE_SCALE` octagons,
    so values lie in (-1, 1) like the returns. With three or four seats each
    seat's chance to win is a softmax of the progresses at temperature
    ``VALUE_SCALE / 2`` and its value the expected return at those chances (the
    winner gets 1, the others ``-1 / (n - 1)``): what matters is the lead over
    the closest rival, not over the mean, and with two sides this is the
    ``tanh`` above. Where the others play on for ranking (``play_on``: a
    return of ``1 - 2 r / (n - 1)`` for rank ``r``), the expected return is the
    mean over the others of ``tanh`` of the lead over each: each pair ranked
    by the same two-seat chance.
    """
    n = int(s["num_players"])
    prog = np.zeros(4)
    for p in range(n):
        d = 0
        for i in range(s["runners"]):
            d += R.goal_distance(s, p, int(s["pos"][p, i]))
        prog[p] = -float(d)
    if s["phase"] == R.PH_MOVE:
        # the tile is placed: credit the mover with its best move over it
        p = int(s["cur"])
        o = int(s["placed"])
        buf = np.zeros(R.MAX_PATH + 1, dtype=np.uint8)
        best = -100
        for i in range(s["runners"]):
            pt = int(s["pos"][p, i])
            if not R.may_move(s, p, pt) or (s["forced"] and not R.on_start(s, p, pt)):
                continue
            before = R.goal_distance(s, p, pt)
            for d in range(B.NUM_DIRS):
                end, crossed, _ln, _dead = R.trace(s, pt, d, o, s["tile"][o], s["rot"][o], buf)
                if crossed and R.end_ok(s, p, pt, end):
                    gain = before - R.goal_distance(s, p, end)
                    if gain > best:
                        best = gain
        if best > -100:
            prog[p] += best
    if s["team"]:
        for p in range(2):
            prog[p] = prog[p + 2] = prog[p] + prog[p + 2]
    if n == 2 or s["team"]:
        for p in range(n):
            out[p] = np.tanh((prog[p] - prog[(p + 1) % n]) / VALUE_SCALE)  # the next seat is on the other side
        return
    if s["play_on"]:
        for p in range(n):
            lead = 0.0
            for q in range(n):
                if q != p:
                    lead += np.tanh((prog[p] - prog[q]) / VALUE_SCALE)
            out[p] = lead / (n - 1)
        return
    top = prog[0]
    for p in range(1, n):
        top = max(top, prog[p])
    total = 0.0
    for p in range(n):
        prog[p] = np.exp(2.0 * (prog[p] - top) / VALUE_SCALE)  # each seat's weight, computed once
        total += prog[p]
    for p in range(n):
        win = prog[p] / total
        out[p] = win - (1.0 - win) / (n - 1)
