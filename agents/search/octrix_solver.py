"""Exact solver for one 2-player Octrix round, and an oracle agent built on it.

With open hands, a 2-player Octrix round is a perfect-information game with
simultaneous moves: at every trick both seats pick a card at once. It is solved
by backward induction, with a zero-sum matrix game at each node (rows: seat 0's
cards, columns: seat 1's cards, entries: points won in this trick plus the value
of the node that follows).

The value of the rest of a round depends only on

* the two remaining hands,
* which card wins the next trick (high or low, the colour rule),
* the last trick's winner and the length of their current run (``-1, 0`` before
  trick 1, where the highest card wins),

because runs are squared: extending a run of length L to L + 1 adds
(L+1)² - L² = 2L + 1 points to its owner, and a new winner starts a run worth 1.
The points already banked are a constant. So nodes are memoised on
``(hand0, hand1, high_wins, last_winner, run)``; values are seat 0's points
minus seat 1's, which is the engine's one-round return for seat 0.

Matrix games are solved after removing dominated cards, by a saddle-point check,
the 2x2 closed form, or linear programming (``scipy.optimize.linprog``, HiGHS; scipy
comes with the ``train`` extra). Through the registry: ``make_agent("oracle", "octrix-round")``
(the single round, ``match=False``; in the match to 88, the bare ``octrix``, it plays each round's
equilibrium, which maximises that round's points difference rather than the chance to win the match).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import linprog

from octagames import catalogue
from octagames.agents.base import Agent, Turn, considered
from octagames.agents.cfr.tree import GameSource
from octagames.core import Game

Node = tuple[int, int, int, int, int]  # hand0 bits, hand1 bits, high_wins, last winner, run


def cards_of(bits: int) -> list[int]:
    """Card ids (ascending) in a hand bitmask."""
    return [c for c in range(32) if bits >> c & 1]


def bits_of(cards) -> int:
    """Hand bitmask of an iterable of card ids."""
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


def trick_outcome(c0: int, c1: int, high_wins: int) -> tuple[int, int]:
    """``(winner, next high_wins)`` of a 2-player trick with seat 0 playing ``c0``, seat 1 ``c1``."""
    hi, lo = max(c0, c1), min(c0, c1)
    wanted = hi if high_wins else lo
    winner = 0 if c0 == wanted else 1
    same_colour = (hi % 4) // 2 == (lo % 4) // 2
    return winner, int(same_colour)


def step(node: Node, c0: int, c1: int) -> tuple[float, Node]:
    """Points (seat 0 minus seat 1) scored by the trick ``(c0, c1)`` and the next node."""
    h0, h1, high, last, run = node
    winner, high2 = trick_outcome(c0, c1, high)
    if winner == last:
        gain, run2 = 2 * run + 1, run + 1
    else:
        gain, run2 = 1, 1
    sign = 1.0 if winner == 0 else -1.0
    return sign * gain, (h0 & ~(1 << c0), h1 & ~(1 << c1), high2, winner, run2)


def solve_matrix_game(m: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixed strategies of a zero-sum matrix game (row player maximises).

    Weakly dominated rows and columns are removed first (this keeps the value, and
    an equilibrium of the reduced game is one of the full game); then a saddle
    point, the 2x2 closed form, or linear programming finishes the job.

    Args:
        m: payoff matrix ``[rows, cols]`` to the row player.

    Returns:
        ``(value, row strategy, column strategy)``.
    """
    m = np.asarray(m, dtype=np.float64)
    rows, cols = np.arange(m.shape[0]), np.arange(m.shape[1])
    while True:
        sub = m[rows][:, cols]
        dom = (sub[None, :, :] >= sub[:, None, :] - 1e-12).all(axis=2)  # dom[a, b]: row b >= row a
        np.fill_diagonal(dom, False)
        hit = np.flatnonzero(dom.any(axis=1))
        if hit.size:
            rows = np.delete(rows, hit[0])
            continue
        dom = (sub.T[None, :, :] <= sub.T[:, None, :] + 1e-12).all(axis=2)  # column b <= column a
        np.fill_diagonal(dom, False)
        hit = np.flatnonzero(dom.any(axis=1))
        if hit.size:
            cols = np.delete(cols, hit[0])
            continue
        break
    v, xs, ys = _solve_reduced(sub)
    x, y = np.zeros(m.shape[0]), np.zeros(m.shape[1])
    x[rows], y[cols] = xs, ys
    return v, x, y


def _solve_reduced(m: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    r, c = m.shape
    row_min = m.min(axis=1)
    col_max = m.max(axis=0)
    i, j = int(np.argmax(row_min)), int(np.argmin(col_max))
    if row_min[i] >= col_max[j] - 1e-12:  # pure saddle point
        x, y = np.zeros(r), np.zeros(c)
        x[i] = y[j] = 1.0
        return float(m[i, j]), x, y
    if r == 2 and c == 2:  # no saddle point: both mix, closed form
        (a, b), (cc, d) = m
        den = a + d - b - cc
        p, q = (d - cc) / den, (d - b) / den
        return float((a * d - b * cc) / den), np.array([p, 1 - p]), np.array([q, 1 - q])
    return _lp(m)


def _lp(m: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Solve by LP: max v s.t. x^T M >= v, x in the simplex; the column strategy from the duals."""
    r, c = m.shape
    shift = m.min() - 1.0  # make all entries positive so v > 0
    a = m - shift
    # min sum(u) s.t. a^T u >= 1, u >= 0; then v = 1/sum(u), x = u v
    res = linprog(np.ones(r), A_ub=-a.T, b_ub=-np.ones(c), bounds=[(0, None)] * r, method="highs")
    if res.status != 0:
        raise RuntimeError(f"linprog failed: {res.message}")
    v = 1.0 / res.x.sum()
    x = res.x * v
    y = -np.asarray(res.ineqlin.marginals) * v
    x, y = np.clip(x, 0, None), np.clip(y, 0, None)
    return float(v + shift), x / x.sum(), y / y.sum()


class OctrixRoundSolver:
    """Memoised backward induction over 2-player Octrix round nodes."""

    def __init__(self) -> None:
        self.value = lru_cache(maxsize=None)(self._value)

    def matrix(self, node: Node) -> tuple[list[int], list[int], np.ndarray]:
        """Seat 0's cards, seat 1's cards and the payoff matrix (to seat 0) at ``node``."""
        rows, cols = cards_of(node[0]), cards_of(node[1])
        m = np.empty((len(rows), len(cols)))
        for a, c0 in enumerate(rows):
            for b, c1 in enumerate(cols):
                gain, nxt = step(node, c0, c1)
                m[a, b] = gain + self.value(nxt)
        return rows, cols, m

    def _value(self, node: Node) -> float:
        if node[0] == 0:
            return 0.0
        return solve_matrix_game(self.matrix(node)[2])[0]

    def strategies(self, node: Node) -> tuple[list[int], np.ndarray, list[int], np.ndarray]:
        """Optimal mixed strategies at ``node``: ``(cards0, x, cards1, y)``."""
        rows, cols, m = self.matrix(node)
        _, x, y = solve_matrix_game(m)
        return rows, x, cols, y

    def deal_value(self, hand0, hand1) -> float:
        """Exact value (seat 0's points minus seat 1's) of a fresh deal."""
        if len(list(hand0)) != len(list(hand1)):
            raise ValueError("both hands must hold the same number of cards")
        return self.value((bits_of(hand0), bits_of(hand1), 1, -1, 0))


def node_of(state: np.void) -> tuple[Node, float]:
    """The solver node of a 2-player round record, and the points already banked.

    Cards committed face down in the open trick are put back into their owner's
    hand (the node is the start of the open trick).

    Raises:
        ValueError: the record is not a dealt 2-player round.
    """
    if int(state["num_players"]) != 2:
        raise ValueError("the exact solver handles 2-player Octrix only")
    if int(state["dealt"]) < 2 * int(state["hand_size"]):
        raise ValueError("the round is still being dealt")
    t = int(state["trick"])
    h = [bits_of(np.flatnonzero(state["owner"] == p)) for p in (0, 1)]
    if t < int(state["hand_size"]):
        for p in (0, 1):
            c = int(state["trick_cards"][t, p])
            if c >= 0:
                h[p] |= 1 << c
    winners = [int(w) for w in state["trick_winner"][:t]]
    last, run = (winners[-1], 0) if winners else (-1, 0)
    for w in reversed(winners):
        if w != last:
            break
        run += 1
    banked = 0.0
    for p, sign in ((0, 1.0), (1, -1.0)):
        r = 0
        for w in winners + [-2]:
            if w == p:
                r += 1
            else:
                banked += sign * r * r
                r = 0
    return (h[0], h[1], int(state["high_wins"]), last, run), banked


_SHARED = OctrixRoundSolver()


def state_value(state: np.void, solver: OctrixRoundSolver | None = None) -> float:
    """Exact final round return of seat 0 (points banked plus the value of the rest)."""
    node, banked = node_of(state)
    return banked + (solver or _SHARED).value(node)


def game_value(game: Game, solver: OctrixRoundSolver | None = None) -> float:
    """Exact value for seat 0 of a one-round 2-player config, averaged over all deals.

    Raises:
        ValueError: ``game`` is a match (the value of a round is not the value of a match to 88):
            use the variant ``octrix-round`` (``match=False``).
    """
    if game.config.match:
        raise ValueError("game_value solves one round: match=True is not valid here; use the variant "
                         "'octrix-round' (match=False)")
    src = GameSource(game)
    root = src.root()
    deals = src.chance_children(root) if game.is_chance(root) else [(1.0, root)]
    return float(sum(p * state_value(s, solver) for p, s in deals))


class OctrixOracleAgent(Agent):
    """Plays the exact equilibrium of the 2-player round, sampling the mixed strategy.

    It maximises the round's points difference, which is the whole objective of a
    one-round config (``match=False``).
    """

    name = "oracle"

    def __init__(self, solver: OctrixRoundSolver | None = None):
        self.solver = solver or _SHARED
        self.rng = np.random.default_rng(0)

    def check_game(self, game: Game) -> None:
        """Refuse a game the exact solver does not play, when the agent is built for it: Octrix at other than 2
        seats (refused at the first move until 2026-12-07) and other games."""
        if game.name != "octrix" or game.num_players != 2:
            raise ValueError(f"agent 'oracle' plays 2-player Octrix only (the exact solver of a 2-player round), not "
                             f"{catalogue.describe(game.name, game.config)}")

    def act(self, turn: Turn) -> int:
        """Sample this seat's optimal mixed strategy at the open trick."""
        node, _ = node_of(turn.state)  # hidden commitments go back to their owner's hand
        cards0, x, cards1, y = self.solver.strategies(node)
        cards, probs = (cards0, x) if turn.seat == 0 else (cards1, y)
        action = int(self.rng.choice(cards, p=probs))
        policy = np.zeros(len(turn.legal_mask))
        policy[np.asarray(cards, np.int64)] = probs
        self.last_thinking = considered(turn, action, policy=policy)
        return action


def _factory(game: str, arg: str | None) -> Agent:
    """``oracle``: the exact 2-player Octrix round solver (registry entry), for any Octrix variant."""
    if game not in catalogue.names() or catalogue.variant(game).game != "octrix":
        raise ValueError(f"agent 'oracle' is only available for octrix, not {game!r}")
    if arg is not None:
        raise ValueError(f"agent 'oracle:{arg}' is not valid: 'oracle' takes no argument")
    return OctrixOracleAgent()


__all__ = [
    "OctrixOracleAgent",
    "OctrixRoundSolver",
    "bits_of",
    "cards_of",
    "game_value",
    "node_of",
    "solve_matrix_game",
    "state_value",
    "step",
    "trick_outcome",
]
