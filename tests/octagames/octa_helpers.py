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
from functools import lru_cache

from octagames.core import CHANCE, Game
from octagames.octa import checks, common as C
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
    """Resolve the pending chance node with the lowest outcome."""
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
import sys
import numpy as np
from octagames.core import Game
from octagames.octa import checks
g = Game("octa", rules=sys.argv[1])
out = []
for seed in (11, 12):
    s = g.new_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(sys.argv[2])):
        if g.is_terminal(s):
            break
        if g.is_chance(s):
            g.apply_action(s, g.sample_chance(s))
        else:
            g.apply_action(s, int(rng.choice(g.legal_actions(s))))
        assert checks.validate(s) == 0
        obs = g.observation(s, 0)
    d = g.determinize(s, 0, 3)
    out.append(g.to_bytes(s).hex() + g.to_bytes(d).hex())
print(" ".join(out))
"""


def compiled_and_uncompiled_agree(rules: str, steps: int) -> None:
    """Play two random games with the kernels uncompiled (``NUMBA_DISABLE_JIT=1``) and compiled,
    in fresh processes, and assert the final records (and a determinization) are byte-identical."""
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
