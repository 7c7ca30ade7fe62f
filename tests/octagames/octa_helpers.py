"""Helpers shared by the Octa scenario tests (both rule sets).

Scenarios are explicit: the setup deal and every draw are chosen chance
outcomes, and moves are given by their readable action strings, so a test
reads like a game record (``do(s, "P0 draws ♥5", "put the action card on pile 0")``).
A few tests place cards directly with the shared table helpers (``force_*``)
to reach late-game situations quickly. Every helper reads the rule set from
the record itself, so the same helpers serve ``rules="en"`` and ``rules="nl"``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache, partial

import numpy as np
import pytest

from octagames.core import CHANCE, Game
from octagames.octa import checks, common as C, en, nl
from octagames.octa.rules import RULE_SETS, card_name
from octagames.specialize import cached

SUITS = "♥♠♦♣"
POOL = "♣2 ♣5 ♣8 ♦2 ♦5 ♦8 ♠2 ♠5"  # a pool the scenarios share (refill order)


@lru_cache(maxsize=None)
def _game_of(rules: int, max_turns: int) -> Game:
    return Game("octa", rules=RULE_SETS[rules], max_turns=max_turns)


def game_of(s) -> Game:
    """The :class:`Game` of the config record ``s`` carries."""
    return _game_of(int(s["rules"]), int(s["max_turns"]))


def ids(text: str) -> list[int]:
    """Card ids for ``"♥2 ♥3 ♠10 ♥J"``; a repeated card gets the second copy, and so does a card
    written with a trailing ``'`` (``"♣5'"``: the second deck's ♣5, wherever it comes)."""
    out: list[int] = []
    for tok in text.split():
        second = tok.endswith("'")
        tok = tok.rstrip("'")
        suit = SUITS.index(tok[0])
        if tok[1:] in ("J", "Q", "K"):
            c = 80 + suit * 3 + "JQK".index(tok[1:])
            out.append(c + 12 if second or c in out else c)
        else:
            rank = 1 if tok[1:] == "A" else int(tok[1:])
            c = suit * 10 + rank - 1
            out.append(c + 40 if second or c in out else c)
    return out


def kind(card: str) -> int:
    """The kind (suit*10 + rank-1) of ``"♥7"``."""
    return ids(card)[0] % 40


def legal_strings(s) -> dict[str, int]:
    """Readable strings of everything that may happen now (chance outcomes or legal actions).

    The engine's strings are unique (a second card copy and a run's slot are
    named); scenarios do not care which copy or slot, so those suffixes are
    dropped here and the first (lowest) id is kept.
    """
    g = game_of(s)
    acts = [a for a, _ in g.chance_outcomes(s)] if g.current_player(s) == CHANCE else g.legal_actions(s)
    table: dict[str, int] = {}
    for a in acts:
        name = re.sub(r" \((second copy|slot \d+)\)", "", g.action_to_string(s, a))
        table.setdefault(name, a)
    return table


def do(s, *moves: str) -> None:
    """Apply moves given by their action strings (each must be possible now)."""
    for m in moves:
        table = legal_strings(s)
        assert m in table, f"{m!r} is not possible now; possible: {sorted(table)[:60]}"
        game_of(s).apply_action(s, table[m])


def can(s, move: str) -> bool:
    """Whether the move with this string is possible now."""
    return move in legal_strings(s)


def any_chance(s) -> None:
    """Resolve the pending chance node with its first outcome (in kind order: ``common.kind_order``)."""
    g = game_of(s)
    g.apply_action(s, g.chance_outcomes(s)[0][0])


def setup(rules: str, pool: str, hand0: str, hand1: str, piles: str = "♥K ♠Q", start: int = 0,
          before_start=None, **config):
    """A game after an explicit setup deal (pool in refill order, both hands, the two action cards).

    ``before_start(s)`` may change the table before the start player is drawn
    (so that the first turn's bookkeeping, e.g. the Dutch Octa mark, sees it).
    """
    s = Game("octa", rules=rules, **config).new_state(0)
    g = game_of(s)
    cards = ids(pool + " " + hand0 + " " + hand1)
    assert len(cards) == 24 and len(set(cards)) == 24
    for c in cards + ids(piles):
        g.apply_action(s, c)
    if before_start is not None:
        before_start(s)
    g.apply_action(s, start)
    return s


def start_turn(s, draw: str, action: str, pile: int) -> None:
    """Draw ``draw``, turn ``action`` and put it on ``pile``."""
    p = int(s["cur"])
    do(s, f"P{p} draws {draw}", f"P{p} turns action card {action}", f"put the action card on pile {pile}")


def hand_of(s, p: int) -> list[str]:
    """Sorted card names of seat ``p``'s hand."""
    return sorted(card_name(c) for c in range(80) if s["loc"][c] == C.LOC_HAND and s["lidx"][c] == p)


def force_run(s, owner: int, cards: str, facedown: tuple[int, ...] = (), copy: int = 0) -> int:
    """Put a run on ``owner``'s table directly and return its slot.

    An ace written last (``"♥9 ♥10 ♥A"``) is the high ace; ``facedown`` lists
    the indexes laid face down (each one a stock card); ``copy=1`` uses the
    second deck's cards.
    """
    cs = [c + 40 * copy for c in ids(cards)]
    suit = (cs[0] % 40) // 10
    pos = [(c % 10) + 1 for c in cs]
    if pos[-1] == 1 and len(pos) > 1:
        pos[-1] = 11
    r = int(C.free_run_slot(s))
    s["run_owner"][r] = owner
    s["run_suit"][r] = suit
    s["run_lo"][r] = min(pos)
    s["run_hi"][r] = max(pos)
    for i, (c, q) in enumerate(zip(cs, pos)):
        if i in facedown:
            c = next(d for d in range(80) if s["loc"][d] == C.LOC_STOCK)
        C.detach(s, c)
        C.to_run(s, c, r, q, i in facedown)
    return r


def force_token(s, p: int, r: int, turn: int = 0) -> None:
    """Put seat ``p``'s token on run slot ``r`` as if laid in ``turn``."""
    s["token_loc"][p] = C.TOK_RUN
    s["token_idx"][p] = r
    s["token_turn"][p] = turn


def force_hand(s, p: int, cards: str) -> None:
    """Move cards (from wherever they are) into seat ``p``'s hand, unseen by the other seat."""
    for c in ids(cards):
        C.detach(s, c)
        C.to_hand(s, c, p, False)


def force_discard(s, cards: list[int]) -> None:
    """Move cards (from wherever they are) onto the discard pile, in order."""
    for c in cards:
        C.detach(s, c)
        C.to_discard(s, c)


def force_reserve(s, p: int, cards: str) -> None:
    """Move cards (from wherever they are) into seat ``p``'s Dutch reserve."""
    for c in ids(cards):
        C.detach(s, c)
        s["loc"][c] = C.LOC_RESERVE
        s["lidx"][c] = p
        s["res_n"][p] += 1


def seat_view(s, p: int) -> tuple:
    """Everything seat ``p`` is shown of record ``s``: its observation tensor, the text render, and
    OpenSpiel's information-state and observation strings for it."""
    import octagames.envs.openspiel as eo

    g = game_of(s)
    state = eo.load_pool("octa", [s], rules=g.config.rules, max_turns=g.config.max_turns).new_initial_state()
    state = state.child(0)
    return (g.observation(s, p).tolist(), g.render(s, p), state.information_state_string(p),
            state.observation_string(p))


def assert_same_view(a, b, p: int) -> None:
    """Records ``a`` and ``b`` look the same to seat ``p`` (see :func:`seat_view`)."""
    va, vb = seat_view(a, p), seat_view(b, p)
    assert va[0] == vb[0], [i for i, (x, y) in enumerate(zip(va[0], vb[0])) if x != y]
    assert va[1] == vb[1]
    assert va[2:] == vb[2:]


def play_both(worlds, *moves: str) -> None:
    """Apply the same moves (action strings) to every record of ``worlds``."""
    for s in worlds:
        do(s, *moves)


def assert_action_names_distinct(rules: str, seeds: range, heuristic: bool = False) -> int:
    """Play a game per seed (uniform random moves, or the heuristic agent for both seats) and assert that
    the legal actions of every decision have distinct names; return the decisions checked."""
    from octagames.agents.base import make_turn
    from octagames.agents.heuristics.octa import OctaHeuristicAgent

    g = _game_of(RULE_SETS.index(rules), 200)
    checked = 0
    for seed in seeds:
        s = g.new_state(seed)
        rng = random.Random(seed)
        agents = [OctaHeuristicAgent(), OctaHeuristicAgent()]
        for i, a in enumerate(agents):
            a.reset(g, i, 10 * seed + i)
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            acts = g.legal_actions(s)
            names = [g.action_to_string(s, a) for a in acts]
            assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
            checked += 1
            p = g.current_player(s)
            g.apply_action(s, agents[p].act(make_turn(g, s, p, seed)) if heuristic else rng.choice(acts))
    return checked


validate = cached(checks.validate)  # the entry point Game.from_bytes uses: the warmup compiled it


def assert_valid(s) -> None:
    """Conservation of all 104 cards and valid runs."""
    err = validate(s)
    assert err == checks.OK, checks.ERROR_NAMES[err]


def heuristic_wins(rules: str, games: int) -> float:
    """Games won by the heuristic agent against a random one (seats alternate, draws count half)."""
    from octagames.agents.base import RandomAgent, make_turn
    from octagames.agents.heuristics.octa import OctaHeuristicAgent

    g = Game("octa", rules=rules)
    wins = 0.0
    for k in range(games):
        agents = [OctaHeuristicAgent(), RandomAgent()]
        if k % 2:
            agents.reverse()
        seat = k % 2
        for i, a in enumerate(agents):
            a.reset(g, i, 100 * k + i)
        s = g.new_state(1000 + k)
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            p = g.current_player(s)
            g.apply_action(s, agents[p].act(make_turn(g, s, p, 7)))
        r = g.returns(s)[seat]
        wins += 1.0 if r > 0 else 0.5 if r == 0 else 0.0
    return wins


NOJIT_SCRIPT = """
import hashlib
import sys
import numpy as np
from octagames.core import Game
from octagames.octa import checks
g = Game("octa", rules=sys.argv[1])
out = []
for seed in (11, 12):
    s = g.new_state(seed)
    rng = np.random.default_rng(seed)
    seen = hashlib.blake2b(digest_size=16)  # both seats' observations after every step
    for _ in range(int(sys.argv[2])):
        if g.is_terminal(s):
            break
        if g.is_chance(s):
            g.apply_action(s, g.sample_chance(s))
        else:
            g.apply_action(s, int(rng.choice(g.legal_actions(s))))
        assert checks.validate(s) == 0
        for seat in (0, 1):
            seen.update(g.observation(s, seat).tobytes())
    d = g.determinize(s, 0, 3)
    out.append(g.to_bytes(s).hex() + g.to_bytes(d).hex() + seen.hexdigest())
print(" ".join(out))
"""


def compiled_and_uncompiled_agree(rules: str, steps: int) -> None:
    """Play two random games with the kernels uncompiled (``NUMBA_DISABLE_JIT=1``) and compiled,
    in fresh processes, and assert the final records (and a determinization) and both seats' observations
    after every step are byte-identical."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = []
    for nojit in ("1", "0"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=nojit)
        run = subprocess.run([sys.executable, "-c", NOJIT_SCRIPT, rules, str(steps)], env=env,
                             capture_output=True, text=True, cwd=root, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        outs.append(run.stdout.strip())
    assert outs[0] == outs[1]


def position_set(positions: np.ndarray) -> int:
    """The rules' set of run positions: bit ``q`` for every position ``q`` marked in ``positions`` (a bool
    array over 0..11), as English Octa's completable-run search (``en._interval_ok``) takes them."""
    return sum(1 << int(q) for q in np.flatnonzero(positions))


# ---------------------------------------------------------------- the facts block (both rulebooks)
FACT_FIELDS = ("there", "held", "own run", "opponent run", "one away", "two away", "interval", "pool run")


def facts(s, viewer: int):
    """The ``facts`` block ``[rows, NUM_FACTS]`` of ``viewer``'s observation."""
    g = game_of(s)
    return g.observation_views(g.observation(s, viewer))["facts"]


def fact_row(f, card_or_row) -> dict[str, float]:
    """One row of :func:`facts` by name: a card kind (``"♥7"``) or a row number."""
    r = kind(card_or_row) if isinstance(card_or_row, str) else card_or_row
    return {name: round(float(v), 6) for name, v in zip(FACT_FIELDS, f[r])}


def facts_table(rules: str):
    """A table for the facts tests: P0 holds ♥2-♥5 ♠9 ♠10 ♦A ♣A and a ♣3-♣6 run, P1 ♦3-♦5 and ♣8-♣A
    runs; ♠6' then ♥A' discarded."""
    s = setup(rules, POOL, "♥2 ♥3 ♥4 ♥5 ♠9 ♠10 ♦A ♣A", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7", start=0)
    force_run(s, 0, "♣3 ♣4 ♣5 ♣6", copy=1)        # P0: extended by ♣2 and ♣7
    force_run(s, 1, "♦3 ♦4 ♦5", copy=1)           # P1: extended by ♦2 and ♦6
    force_run(s, 1, "♣8 ♣9 ♣10 ♣A", copy=1)       # P1: the high ace ends it; extended by ♣7 only
    force_discard(s, ids("♠6' ♥A'"))               # ♥A' on top
    return s


def assert_facts_of_the_table(rules: str) -> None:
    """The facts of :func:`facts_table` for both seats, written out (the same under both rulebooks)."""
    s = facts_table(rules)
    f0, f1 = facts(s, 0), facts(s, 1)
    # ♣7: P1 holds it; it extends P0's four-card run and P1's four-card run
    assert fact_row(f0, "♣7") == {"there": 1, "held": 0, "own run": 0.4, "opponent run": 0.4, "one away": 0,
                                  "two away": 0, "interval": 0.1, "pool run": 0}
    assert fact_row(f1, "♣7") == {"there": 1, "held": 0.5, "own run": 0.4, "opponent run": 0.4, "one away": 0,
                                  "two away": 0, "interval": 0.1, "pool run": 0}
    # ♥3 in P0's ♥2-♥5: neighbours ♥2 and ♥4 one away, ♥5 two away (♥A is not held), run of four
    assert fact_row(f0, "♥3") == {"there": 1, "held": 0.5, "own run": 0, "opponent run": 0, "one away": 1.0,
                                  "two away": 0.5, "interval": 0.4, "pool run": 0}
    # the ace stands low (next to ♥2, ♥3) or high (next to ♥10, held by P1): low gives ♥A-♥5
    assert fact_row(f0, "♥A") == {"there": 1, "held": 0, "own run": 0, "opponent run": 0, "one away": 0.5,
                                  "two away": 0.5, "interval": 0.5, "pool run": 0}
    # ♠A: high next to ♠10 and ♠9 (held), low next to nothing held: ♠9 ♠10 ♠A
    assert fact_row(f0, "♠A")["one away"] == 0.5 and fact_row(f0, "♠A")["interval"] == 0.3
    # ♦2 extends P1's ♦3-♦5 (three cards); P0 holds ♦A one rank away
    assert fact_row(f1, "♦2") == {"there": 1, "held": 0, "own run": 0.3, "opponent run": 0, "one away": 0,
                                  "two away": 0, "interval": 0.1, "pool run": 0}
    assert fact_row(f0, "♦2")["opponent run"] == 0.3 and fact_row(f0, "♦2")["one away"] == 0.5
    # the pool slots hold POOL in refill order (slot 0: ♣2, extending P0's clubs); the top discards ♥A', ♠6'
    for f in (f0, f1):
        for slot, card in enumerate(POOL.split()):
            assert fact_row(f, C.NUM_KINDS + slot) == fact_row(f, card)
        assert fact_row(f, C.FACT_TOP_ROW) == fact_row(f, "♥A")
        assert fact_row(f, C.FACT_TOP_ROW + 1) == fact_row(f, "♠6")
        for suit, card in enumerate(("♥2", "♠2", "♦2", "♣2")):  # slot 0 holds ♣2: a doubling or swap's cards
            assert fact_row(f, C.FACT_SLOT_SUIT_ROW + suit) == fact_row(f, card)
    # the run ends: the card there and the kind that would extend it, the last column "the viewer's run"
    assert [int(x) for x in s["run_owner"][:4]] == [0, 1, 1, -1]
    for f, me in ((f0, 0), (f1, 1)):
        for run, ends, extensions in ((0, ("♣3", "♣6"), ("♣2", "♣7")), (1, ("♦3", "♦5"), ("♦2", "♦6")),
                                      (2, ("♣8", "♣A"), ("♣7", None))):
            mine = float(s["run_owner"][run] == me)
            for end in range(2):
                assert fact_row(f, C.FACT_END_ROW + 2 * run + end) == {**fact_row(f, ends[end]), "pool run": mine}
                row = C.FACT_EXTEND_ROW + 2 * run + end
                if extensions[end] is None:  # nothing extends a run past its high ace
                    assert fact_row(f, row) == {**{k: 0 for k in FACT_FIELDS}, "pool run": mine}
                else:
                    assert fact_row(f, row) == {**fact_row(f, extensions[end]), "pool run": mine}
        assert not f[C.FACT_END_ROW + 6:C.FACT_EXTEND_ROW].any()
        assert not f[C.FACT_EXTEND_ROW + 6:C.FACT_SITUATION_ROW].any()
    # the run slots: there, face-up / 10, the viewer's, a token, face-down / 10, Octa, one short, the viewer
    # holds a card that extends it (P1 holds ♣7, which extends P0's clubs and its own ♣8-♣A; P0 holds none)
    runs = lambda f: f[C.FACT_RUN_ROW:C.FACT_RUN_ROW + 4]  # noqa: E731
    np.testing.assert_allclose(runs(f0), [[1, .4, 1, 0, 0, 0, 0, 0], [1, .3, 0, 0, 0, 0, 0, 0],
                                          [1, .4, 0, 0, 0, 0, 0, 0], [0] * 8], atol=1e-6)
    np.testing.assert_allclose(runs(f1), [[1, .4, 0, 0, 0, 0, 0, 1], [1, .3, 1, 0, 0, 0, 0, 0],
                                          [1, .4, 1, 0, 0, 0, 0, 1], [0] * 8], atol=1e-6)
    assert not f0[C.FACT_RUN_ROW + 3:C.FACT_TAKE_ROW].any() and not f1[C.FACT_RUN_ROW + 3:C.FACT_TAKE_ROW].any()
    # the cards in runs, by slot and position 1..11 (a Jack's target): each a copy of its kind's row; the
    # positions the runs leave free, the high ace's 11 among the used ones, and the empty slots all 0
    take = lambda f, r, pos: fact_row(f, C.FACT_TAKE_ROW + 11 * r + pos - 1)  # noqa: E731
    for f in (f0, f1):
        for run, cards, first in ((0, "♣3 ♣4 ♣5 ♣6", 3), (1, "♦3 ♦4 ♦5", 3), (2, "♣8 ♣9 ♣10 ♣A", 8)):
            for pos in range(1, 12):
                at = pos - first
                card = cards.split()[at] if 0 <= at < len(cards.split()) else None
                assert take(f, run, pos) == (fact_row(f, card) if card else {k: 0 for k in FACT_FIELDS}), (run, pos)
        assert not f[C.FACT_TAKE_ROW + 33:].any()
    # the situation: no Octa, 8 cards in each hand (at the limit), face-up run cards 4 (P0) and 7 (P1)
    stock = int(s["stock_n"]) / 80
    assert f0[C.FACT_SITUATION_ROW].tolist() == pytest.approx([0, 0, 0.8, 1, stock, 4 / 80, 7 / 80, 0.8])
    assert f1[C.FACT_SITUATION_ROW].tolist() == pytest.approx([0, 0, 0.8, 1, stock, 7 / 80, 4 / 80, 0.8])
    assert fact_row(f0, C.NUM_KINDS) == {"there": 1, "held": 0, "own run": 0.4, "opponent run": 0,
                                         "one away": 0.5, "two away": 0, "interval": 0.2, "pool run": 0}
    # an empty slot's row is all zero
    s["pool"][3] = -1
    assert not facts(s, 0)[C.NUM_KINDS + 3].any()
    # no card completes a pool run in POOL; in this pool the top row ♣2 ♣3 ♣5 is completed by ♣4 in the
    # top-right slot, the bottom row ♦8 ♠6 ♠5 by ♠7 in the bottom-left slot (P1 holds ♠7, nobody ♣4)
    assert not facts(s, 0)[:C.FACT_ROWS_V1, C.FACT_POOL_RUN].any()
    s = setup(rules, "♣2 ♣3 ♣5 ♦2 ♦5 ♦8 ♠6 ♠5", "♥2 ♥3 ♥4 ♥5 ♠9 ♠10 ♦A ♣A", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7")
    f0, f1 = facts(s, 0), facts(s, 1)
    for f in (f0, f1):
        assert sorted(card_name(k) for k in np.flatnonzero(f[:C.NUM_KINDS, C.FACT_POOL_RUN])) == ["♠7", "♣4"]
    assert fact_row(f1, C.NUM_KINDS + 5) == {**fact_row(f1, "♦8"), "pool run": 1}  # P1 can put ♠7 there
    assert fact_row(f0, C.NUM_KINDS + 5) == {**fact_row(f0, "♦8"), "pool run": 0}
    assert not f0[C.NUM_KINDS:C.FACT_ROWS_V1, C.FACT_POOL_RUN].any()
    assert np.flatnonzero(f1[:C.FACT_ROWS_V1, C.FACT_POOL_RUN]).tolist() == [kind("♠7"), kind("♣4"), C.NUM_KINDS + 5]
    # a run slot's token, face-down cards and Octa: P1's token on its ♣8-♣A, and P0's ♠2-♠10 with ♠3 face
    # down (8 face up: an Octa), then ♠4 turned face down too (7: one card short)
    s = facts_table(rules)
    force_token(s, 1, 2)
    r = force_run(s, 0, "♠2 ♠3 ♠4 ♠5 ♠6 ♠7 ♠8 ♠9 ♠10", facedown=(1,), copy=1)
    for me in range(2):
        f = facts(s, me)
        assert f[C.FACT_RUN_ROW + 2, 3] == 1 and not f[C.FACT_RUN_ROW:C.FACT_RUN_ROW + 2, 3].any()
        np.testing.assert_allclose(f[C.FACT_RUN_ROW + r], [1, .8, me == 0, 0, .1, 1, 0, 0], atol=1e-6)
    s["run_fd"][r, 4] = 1
    np.testing.assert_allclose(facts(s, 0)[C.FACT_RUN_ROW + r], [1, .7, 1, 0, .2, 0, 1, 0], atol=1e-6)
    for me in range(2):  # the face-down ♠3 and ♠4 (positions 3, 4) name no card; ♠2 and ♠5 their kinds
        f = facts(s, me)
        rows = f[C.FACT_TAKE_ROW + 11 * r:C.FACT_TAKE_ROW + 11 * r + 11]
        assert [bool(x.any()) for x in rows] == [False, True, False, False] + [True] * 6 + [False]
        assert fact_row(f, C.FACT_TAKE_ROW + 11 * r + 1) == fact_row(f, "♠2")
        assert fact_row(f, C.FACT_TAKE_ROW + 11 * r + 4) == fact_row(f, "♠5")


def longest_run_through(held: Callable[[int], bool], positions: list[int]) -> int:
    """The longest run of held run positions (``held(pos)``) through any of ``positions`` once it is added,
    grown a position at a time each way (not capped: the facts cap it at 10)."""
    best = 0
    for q in positions:
        lo, hi = q, q
        while held(lo - 1):
            lo -= 1
        while held(hi + 1):
            hi += 1
        best = max(best, hi - lo + 1)
    return best


def recount_facts(s, viewer: int) -> np.ndarray:
    """The facts recounted in Python from the record's fields (hand counts, runs, pool, discards)."""
    out = np.zeros((C.FACT_ROWS, C.NUM_FACTS))
    hand = [int(x) for x in s["hand_cnt"][viewer]]

    def held(suit: int, pos: int) -> bool:  # run position 1..11 of a suit; 11 is the high ace
        return 1 <= pos <= 11 and hand[suit * 10 + (0 if pos == 11 else pos - 1)] > 0

    for k in range(C.NUM_KINDS):
        suit, rank = divmod(k, 10)
        positions = [1, 11] if rank == 0 else [rank + 1]
        one = sum(held(suit, q + d) for q in positions for d in (-1, 1))
        two = sum(held(suit, q + d) for q in positions for d in (-2, 2))
        best = min(longest_run_through(partial(held, suit), positions), 10)
        out[k, :7] = [1, hand[k] / 2, 0, 0, one / 2, two / 2, best / 10]
    for r in range(C.MAX_RUNS):
        owner = int(s["run_owner"][r])
        if owner < 0:
            continue
        lo, hi = int(s["run_lo"][r]), int(s["run_hi"][r])
        length = sum(int(s["run_fd"][r, p]) == 0 for p in range(lo, hi + 1))
        for pos in (lo - 1, hi + 1):
            if 1 <= pos <= 11 and hi - lo + 1 < 10:
                k = int(s["run_suit"][r]) * 10 + (0 if pos == 11 else pos - 1)
                col = 2 if owner == viewer else 3
                out[k, col] = max(out[k, col], length / 10)
    pool = [int(x) for x in s["pool"]]
    completes = set()  # pool slots where a card of the hand completes a pool run
    for line in C.POOL_LINES.tolist():
        for at, slot in enumerate(line):
            others = [pool[x] for x in line if x != slot]
            if pool[slot] < 0 or min(others) < 0:
                continue
            for k in range(C.NUM_KINDS):  # kind k in place of the slot's card
                cards = [k if x == slot else pool[x] % 40 for x in line]
                if len({c // 10 for c in cards}) == 1 and any(
                        all(b - a == step for a, b in zip(rs, rs[1:]))
                        for high in (1, 11) for rs in [[high if c % 10 == 0 else c % 10 + 1 for c in cards]]
                        for step in (1, -1)):
                    out[k, C.FACT_POOL_RUN] = 1
                    if hand[k] > 0:
                        completes.add(slot)
    tops = [int(s["disc"][int(s["disc_n"]) - 1 - d]) if int(s["disc_n"]) > d else -1 for d in range(2)]
    for i, c in enumerate(pool + tops):
        if c >= 0:
            out[C.NUM_KINDS + i] = out[c % 40]
            if i < C.POOL_SLOTS:
                out[C.NUM_KINDS + i, C.FACT_POOL_RUN] = i in completes
                for suit in range(4):  # the card of each suit with this slot's rank
                    out[C.FACT_SLOT_SUIT_ROW + 4 * i + suit] = out[suit * 10 + c % 10]
    faceup = [0, 0]
    longest = [0, 0]
    for r in range(C.MAX_RUNS):
        owner = int(s["run_owner"][r])
        if owner < 0:
            continue
        lo, hi, suit = int(s["run_lo"][r]), int(s["run_hi"][r]), int(s["run_suit"][r])
        length = sum(int(s["run_fd"][r, p]) == 0 for p in range(lo, hi + 1))
        faceup[owner] += length
        longest[owner] = max(longest[owner], length)
        for end, (at, past) in enumerate(((lo, lo - 1), (hi, hi + 1))):
            kind = lambda pos: suit * 10 + (0 if pos == 11 else pos - 1)  # noqa: E731
            out[C.FACT_END_ROW + 2 * r + end] = out[kind(at)]
            if 1 <= past <= 11 and hi - lo + 1 < 10:  # a run holds at most 10 positions
                out[C.FACT_EXTEND_ROW + 2 * r + end] = out[kind(past)]
            for row in (C.FACT_END_ROW, C.FACT_EXTEND_ROW):
                out[row + 2 * r + end, C.FACT_POOL_RUN] = owner == viewer
    other = 1 - viewer
    out[C.FACT_SITUATION_ROW] = [longest[viewer] >= 8, longest[other] >= 8, int(s["hand_n"][viewer]) / 10,
                                 int(s["hand_n"][viewer]) >= 8, int(s["stock_n"]) / 80, faceup[viewer] / 80,
                                 faceup[other] / 80, int(s["hand_n"][other]) / 10]
    turned = int(s["adrawn"])
    suit = lambda c: (c - 80) % 12 // 3  # noqa: E731  (an action card's suit; its type is (c - 80) % 3)
    tops = [int(s["apile"][q, int(s["apile_n"][q]) - 1]) if int(s["apile_n"][q]) else -1 for q in range(2)]
    for q, top in enumerate(tops):
        row = out[C.FACT_PILE_ROW + q]
        if top >= 0:
            row[0] = row[1 + (top - 80) % 3] = 1
            row[4] = turned >= 0 and suit(top) == suit(turned)
        row[5] = turned >= 0 and tops[1 - q] >= 0 and suit(tops[1 - q]) == suit(turned)
    for r in range(C.MAX_RUNS):  # each run slot's row
        owner = int(s["run_owner"][r])
        if owner < 0:
            continue
        lo, hi, suit_r = int(s["run_lo"][r]), int(s["run_hi"][r]), int(s["run_suit"][r])
        up = sum(int(s["run_fd"][r, p]) == 0 for p in range(lo, hi + 1))
        tokens = [q for q in range(2) if int(s["token_loc"][q]) == C.TOK_RUN and int(s["token_idx"][q]) == r]
        extends = [hand[suit_r * 10 + (0 if pos == 11 else pos - 1)] > 0
                   for pos in (lo - 1, hi + 1) if 1 <= pos <= 11 and hi - lo + 1 < 10]
        out[C.FACT_RUN_ROW + r] = [1, up / 10, owner == viewer, bool(tokens), (hi - lo + 1 - up) / 10, up >= 8,
                                   up == 7, any(extends)]
        for pos in range(lo, hi + 1):  # each face-up card: the row of its kind (from the card, not the suit)
            if int(s["run_fd"][r, pos]) == 0:
                out[C.FACT_TAKE_ROW + 11 * r + pos - 1] = out[int(s["run_card"][r, pos]) % 40]
    return out


def assert_pile_facts(rules: str) -> None:
    """The action piles' rows for both seats on an explicit table: piles ♥K | ♠Q, then ♠J turned (the
    other top shares its suit from pile 0's side), then ♠J put on pile 0 (tops ♠J | ♠Q: no card turned)."""
    s = setup(rules, POOL, "♥2 ♥3 ♥4 ♥5 ♠9 ♠10 ♦A ♣A", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7")
    piles = lambda p: facts(s, p)[C.FACT_PILE_ROW:C.FACT_PILE_ROW + 2].tolist()  # noqa: E731
    # there, Jack, Queen, King, shares the turned card's suit, the other top does (put here: usable), 0, 0
    assert piles(0) == piles(1) == [[1, 0, 0, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0, 0, 0]]
    do(s, "P0 draws ♣9", "P0 turns action card ♠J")
    assert piles(0) == piles(1) == [[1, 0, 0, 1, 0, 1, 0, 0], [1, 0, 1, 0, 1, 0, 0, 0]]
    do(s, "put the action card on pile 0")  # usable: the rulebook's action step follows
    assert int(s["phase"]) == C.PH_USE
    assert piles(0) == piles(1) == [[1, 1, 0, 0, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0, 0, 0]]


def assert_facts_recounted(rules: str, games: int) -> None:
    """Over ``games`` random games: both seats' facts equal :func:`recount_facts` at every decision, and
    the rows each legal action points at hold a card of its kind (a lay, discard or exchange), a card
    in that pool slot, or a run end of a run on the table (a move's or Queen's: the card there)."""
    g = Game("octa", rules=rules)
    book = nl if rules == "nl" else en
    held_kind = {"lay", "discard", "exchange"}  # blocks whose first row is a kind the mover holds
    slots = {"exchange", "queen", "queen_pot", "swap", "double"}  # blocks that point at pool slots
    rng = np.random.default_rng(7)
    checked = pointed = piles = runs = jacks = 0
    for seed in range(games):
        s = g.new_state(seed)
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.play_chance(s)
                continue
            p = g.acting_player(s)
            f = facts(s, p)
            np.testing.assert_allclose(f, recount_facts(s, p), atol=1e-6)
            np.testing.assert_allclose(facts(s, 1 - p), recount_facts(s, 1 - p), atol=1e-6)
            checked += 1
            for a in g.legal_actions(s):
                refs = book.FACT_REFS[a]
                name = book.ACTIONS.locate(a)[0].name
                if name in held_kind:
                    assert f[refs[0], 1] > 0, (g.action_to_string(s, a), refs)
                    pointed += 1
                for r in refs:
                    if C.NUM_KINDS <= r < C.FACT_END_ROW and name in slots:
                        assert f[r, 0] == 1, (g.action_to_string(s, a), refs)  # a card is in that slot
                    if C.FACT_END_ROW <= r < C.FACT_SITUATION_ROW:  # a run end: that run is on the table
                        run = (r - C.FACT_END_ROW) % (2 * C.MAX_RUNS) // 2
                        assert s["run_owner"][run] >= 0, (g.action_to_string(s, a), refs)
                        assert f[r, C.FACT_POOL_RUN] == (s["run_owner"][run] == p)
                        if name in ("move", "queen_end"):  # the card taken is the one at that end
                            assert f[r, 0] == 1 and r < C.FACT_EXTEND_ROW, (g.action_to_string(s, a), refs)
                            pointed += 1
                if name in ("jack", "queen_end", "move"):  # the run the card is taken from: its own row
                    run = (a - book.ACTIONS.offset(name)) // (11 if name == "jack" else 2)
                    row = C.FACT_RUN_ROW + run
                    assert row in refs.tolist() and f[row, 0] == 1, (g.action_to_string(s, a), refs)
                    assert f[row, 2] == (s["run_owner"][run] == p)
                    if name == "jack":  # one face-up card must remain; the card taken: its kind's row
                        assert f[row, 1] >= 0.2 - 1e-6, (g.action_to_string(s, a), refs)
                        i = a - book.ACTIONS.offset(name)
                        card = int(s["run_card"][run, i % 11 + 1])
                        assert refs[1] == C.FACT_TAKE_ROW + i and int(s["run_fd"][run, i % 11 + 1]) == 0
                        assert f[refs[1]].tolist() == f[card % 40].tolist() and f[refs[1], 0] == 1
                        jacks += 1
                    runs += 1
                if name == "pile":  # its pile's row says whether the turned card can then be used
                    after = g.clone(s)
                    g.apply_action(after, int(a))
                    assert refs[0] == C.FACT_PILE_ROW + a - book.ACTIONS.offset("pile")
                    assert f[refs[0], 5] == (int(after["phase"]) == C.PH_USE), g.action_to_string(s, a)
                    piles += 1
            g.apply_action(s, int(rng.choice(g.legal_actions(s))))
    assert checked > 80 * games and pointed > 40 * games and piles > 10 * games and runs > games and jacks > games
