"""A rule-of-thumb Octa agent (English rules) that builds toward the Octa and 28 cards.

Priorities, in order:

* put cards on the table whenever possible: additions to own runs, face-down
  replacements, option C (a whole pool run), option B, the longest run option A
  can lay (and the token on it, so that option B opens next turn);
* step 2: put the action card where the two tops match; use the Jack on the
  opponent's longest run, the Queen on the pool pair most useful to the hand,
  the King on the stock (or the discard pile when its top two cards are useful);
* step 4: exchange when the pool card is worth more than the hand card; while the
  token is in the centre, a large bonus for any exchange after which a pool line
  is a run. That rewards making a run the token can claim (option C later), and
  keeps the agent exchanging while a run stands in the pool, even one its token
  may not claim (a bonus for new claimable runs alone played no better);
* step 5: keep cards while the hand is below 8, otherwise discard the least
  useful card.

Under the Dutch rules (``rules="nl"``) the aim is an Octa, then an empty hand:

* attach to own runs, move opponents' end cards onto own runs, join own runs,
  replace face-down cards; once an Octa stands, attach to any run to shed cards;
* step 1: steal from the opponent's longest run, use the joker, take the most
  useful pot card or run end, the King's stock cards (or the own reserve back);
* step 2 on the most useful line; step 3 the longest run, with the token;
* step 4: double a useless card (no extra card once an Octa stands), swap for a
  more useful pot card; discard the least useful card; keep the reserve empty.

The agent reads only its own :class:`~octagames.agents.base.Turn` (the determinized
state keeps its own hand and all public cards exact).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.agents.base import Agent, Turn
from octagames.core import rng_below
from octagames.octa import en, nl
from octagames.octa.common import (KING, MAX_RUNS, NUM_KINDS, NUM_QUEEN_PAIRS, PH_PILE, PH_USE, POOL_LINES,
                                   POOL_SLOTS, QUEEN_PAIRS, RULES_NL, TOK_CENTRE, atype_of, extend_pos, kind_at,
                                   kind_of, run_faceup)


def _my_run_needs(s, p: int) -> dict[int, int]:
    """Card kinds that extend one of ``p``'s runs directly, with the run's face-up length."""
    needs: dict[int, int] = {}
    for r in range(MAX_RUNS):
        if int(s["run_owner"][r]) != p:
            continue
        length = int(run_faceup(s, r))
        for end in range(2):
            pos = int(extend_pos(s, r, end))
            if pos > 0:
                k = int(kind_at(int(s["run_suit"][r]), pos))
                needs[k] = max(needs.get(k, 0), length)
    return needs


def _card_value(s, p: int, k: int, needs: dict[int, int], hand: np.ndarray) -> float:
    """How useful a card of kind ``k`` is to ``p``: run extensions first, then same-suit neighbours."""
    v = 0.0
    if k in needs:
        v += 4.0 + 0.5 * needs[k]
    suit, rank = divmod(k, 10)
    for d in (1, 2):
        for r2 in (rank - d, rank + d):
            rr = r2 % 10 if r2 in (-1, 10) else r2  # the ace (0) neighbours both 2 (1) and 10 (9)
            if 0 <= rr < 10 and hand[suit * 10 + rr] > 0:
                v += 1.5 if d == 1 else 0.5
    return v


def _interval_len(hand: np.ndarray, k: int) -> int:
    """Length of the longest run of consecutive kinds in ``hand`` through ``k`` (ace low or high)."""
    suit, rank = divmod(k, 10)
    have = [hand[suit * 10 + (q - 1 if q <= 10 else 0)] > 0 for q in range(12)]
    best = 0
    for q in ([1, 11] if rank == 0 else [rank + 1]):
        lo = q
        while lo - 1 >= 1 and have[lo - 1]:
            lo -= 1
        hi = q
        while hi + 1 <= 11 and have[hi + 1]:
            hi += 1
        best = max(best, min(hi - lo + 1, 10))
    return best


def _own_move_target(s, p: int, src: int, end: int) -> int:
    """The attach id putting the end card of run ``src`` at ``end`` onto one of ``p``'s runs; -1 if none."""
    c = int(nl.move_card(s, src, end))
    if c < 0:
        return -1
    for d in range(MAX_RUNS):
        for e in range(2):
            if int(s["run_owner"][d]) == p and nl.move_fits(s, src, c, d, e):
                return nl.N_ADD + d * 2 + e
    return -1


class OctaHeuristicAgent(Agent):
    """Greedy builder of runs for the English Octa rules (see the module docstring)."""

    name = "heuristic"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def act(self, turn: Turn) -> int:
        """Choose a legal action by the priorities of the module docstring."""
        s, p = turn.state, turn.seat
        legal = [int(a) for a in turn.legal_actions]
        ls = set(legal)
        ph = int(s["phase"])
        hand = np.array(s["hand_cnt"][p], dtype=np.int64)
        needs = _my_run_needs(s, p)
        if int(s["rules"]) == 1:
            return self._act_nl(s, p, legal, ls, ph, hand, needs)

        # free actions first: every addition or replacement is a face-up card on the table
        adds = [a for a in legal if en.A_ADD <= a < en.A_FD]
        if adds:
            return adds[0]
        fds = [a for a in legal if en.A_FD <= a < en.A_EXCH]
        if fds:
            return fds[0]

        if ph == PH_PILE:
            c = int(s["adrawn"])
            for pile in range(2):
                m = int(s["apile_n"][pile])
                other = 1 - pile
                mo = int(s["apile_n"][other])
                if mo and (int(s["apile"][other, mo - 1]) - 80) % 12 // 3 == (c - 80) % 12 // 3 and m:
                    return en.A_PILE + pile
            return en.A_PILE + int(self.rng.integers(2))
        if ph == PH_USE:
            return self._use(s, p, legal, ls, hand, needs)
        if ph == en.PH_OPTION:
            if en.A_C in ls:
                return en.A_C
            blines = [a for a in legal if en.A_BLINE <= a < en.A_END_B]
            if blines:
                return max(blines, key=lambda a: self._line_value(s, p, a - en.A_BLINE, hand, needs))
            sels = [a for a in legal if en.A_SEL <= a < en.A_COMMIT]
            if sels:
                return max(sels, key=lambda a: (_interval_len(hand, a - en.A_SEL), -(a - en.A_SEL) % 10))
            return en.A_SKIP_OPT
        if ph == en.PH_BUILD:
            sels = [a for a in legal if en.A_SEL <= a < en.A_COMMIT]
            return sels[0] if sels else en.A_COMMIT
        if ph == en.PH_TOKEN:
            return en.A_TOKEN_RUN
        if ph == en.PH_BPLACE:
            sels = [a for a in legal if en.A_SEL <= a < en.A_COMMIT]
            if en.A_END_B in ls:
                return en.A_END_B
            if sels:
                return max(sels, key=lambda a: _interval_len(hand, a - en.A_SEL))
            return legal[0]
        if ph == en.PH_EXCH:
            return self._exchange(s, p, legal, hand, needs)
        if ph == en.PH_PTOKEN:
            toks = [a for a in legal if en.A_PTOKEN <= a < en.A_PTOKEN_NO]
            return toks[0] if toks else en.A_PTOKEN_NO
        if ph in (en.PH_DISCARD, en.PH_DDOWN):
            if en.A_END_TURN in ls:
                return en.A_END_TURN
            discs = [a for a in legal if en.A_DISCARD <= a < en.A_END_TURN]
            return min(discs, key=lambda a: _card_value(s, p, a - en.A_DISCARD, needs, hand))
        return legal[0]

    # -- step 2 ---------------------------------------------------------------
    def _use(self, s, p, legal, ls, hand, needs) -> int:
        pile = int(s["anew_pile"])
        t = int(atype_of(int(s["apile"][pile, int(s["apile_n"][pile]) - 1])))
        jacks = [a for a in legal if en.A_JACK <= a < en.A_QUEEN]
        if jacks:
            best, score = en.A_DECLINE, 0.0
            for a in jacks:
                r, pos = divmod(a - en.A_JACK, 11)
                if int(s["run_owner"][r]) == p:
                    continue
                k = int(kind_of(int(s["run_card"][r, pos + 1])))
                v = float(run_faceup(s, r)) + 0.5 * _card_value(s, p, k, needs, hand)
                if v > score:
                    best, score = a, v
            return best
        queens = [a for a in legal if en.A_QUEEN <= a < en.A_QUEEN + NUM_QUEEN_PAIRS]
        if queens:
            def qv(a: int) -> float:
                i, j = (int(x) for x in QUEEN_PAIRS[a - en.A_QUEEN])
                return sum(_card_value(s, p, int(kind_of(int(s["pool"][x]))), needs, hand) for x in (i, j))
            return max(queens, key=qv)
        if t == KING or en.A_KING_STOCK in ls:
            if en.A_KING_DISC in ls:
                n = int(s["disc_n"])
                top = [int(kind_of(int(s["disc"][d]))) for d in range(max(0, n - 2), n)]
                if sum(_card_value(s, p, k, needs, hand) for k in top) >= 6.0:
                    return en.A_KING_DISC
            return en.A_KING_STOCK
        return en.A_DECLINE

    # -- step 3 / 4 -----------------------------------------------------------
    def _line_value(self, s, p, line, hand, needs) -> float:
        v = 0.0
        for i in range(3):
            c = int(s["pool"][int(POOL_LINES[line, i])])
            if c >= 0:
                v += 1.0 + _card_value(s, p, int(kind_of(c)), needs, hand)
        return v

    def _exchange(self, s, p, legal, hand, needs) -> int:
        best, score = en.A_EXCH_SKIP, 0.5
        token_free = int(s["token_loc"][p]) == TOK_CENTRE
        for a in legal:
            if not en.A_EXCH <= a < en.A_PTOKEN:
                continue
            k, slot = divmod(a - en.A_EXCH, POOL_SLOTS)
            taken = int(kind_of(int(s["pool"][slot])))
            h2 = hand.copy()
            h2[k] -= 1
            v = _card_value(s, p, taken, needs, h2) - _card_value(s, p, k, needs, h2)
            if token_free:  # any run after the exchange, new or not (see the module docstring)
                c = int(s["pool"][slot])
                s["pool"][slot] = k  # kind k, copy 0: same suit and rank as the card placed
                made = any(bool(en.pool_line_is_run(s, line)) for line in range(4))
                s["pool"][slot] = c
                if made:
                    v += 6.0
            if v > score:
                best, score = a, v
        return best

    # -- Dutch rules ----------------------------------------------------------
    def _act_nl(self, s, p, legal, ls, ph, hand, needs) -> int:
        """The Dutch aim: an Octa, then an empty hand (see the module docstring)."""
        endgame = int(nl.octa_mask(s, p)) != 0

        def val(k: int) -> float:
            return _card_value(s, p, k, needs, hand)

        if ph in (nl.PH_MAIN, PH_USE):
            for a in legal:
                if nl.N_ADD <= a < nl.N_FD and (endgame or int(s["run_owner"][(a - nl.N_ADD) // 2]) == p):
                    return a
            for a in legal:
                if nl.N_FD <= a < nl.N_DBL or nl.N_JOIN <= a < nl.N_USED:
                    return a
            for a in legal:  # take an end card of the opponent's run into an own run
                if nl.N_MOVE <= a < nl.N_JOIN:
                    src, end = divmod(a - nl.N_MOVE, 2)
                    if int(s["run_owner"][src]) != p and _own_move_target(s, p, src, end) >= 0:
                        return a
        if ph == nl.PH_MOVE:
            a = _own_move_target(s, p, int(s["move_slot"]), int(s["move_end"]))
            return a if a >= 0 else legal[0]
        if ph == PH_PILE:
            c = int(s["adrawn"])
            for pile in range(2):
                other = 1 - pile
                mo = int(s["apile_n"][other])
                if mo and (int(s["apile"][other, mo - 1]) - 80) % 12 // 3 == (c - 80) % 12 // 3:
                    return nl.N_PILE + pile
            return nl.N_PILE + int(self.rng.integers(2))
        if ph == PH_USE:
            if nl.N_JOKER in ls:
                return nl.N_JOKER
            best, score = nl.N_DECLINE, 2.0
            for a in legal:
                if nl.N_JACK <= a < nl.N_JOKER:
                    r, pos = divmod(a - nl.N_JACK, 11)
                    v = float(run_faceup(s, r)) + val(int(kind_of(int(s["run_card"][r, pos + 1]))))
                elif nl.N_QPOT <= a < nl.N_QEND:
                    v = 1.0 + val(int(kind_of(int(s["pool"][a - nl.N_QPOT]))))
                elif nl.N_QEND <= a < nl.N_KSTOCK:
                    r, end = divmod(a - nl.N_QEND, 2)
                    if int(s["run_owner"][r]) == p:
                        continue
                    pos = int(s["run_lo"][r]) if end == 0 else int(s["run_hi"][r])
                    v = 1.0 + val(int(kind_at(int(s["run_suit"][r]), pos)))
                elif a == nl.N_KRES:
                    v = 10.0  # the own reserve back: its cards count against you
                elif a == nl.N_KSTOCK:
                    v = 2.5 if not endgame else 0.0
                else:
                    continue
                if v > score:
                    best, score = a, v
            return best
        if ph == nl.PH_JOKER:
            for a in legal:
                if nl.N_JATT <= a < nl.N_ADD:
                    return a
            lays = [a for a in legal if nl.N_LAY <= a < nl.N_JPOS]
            if lays:
                return lays[0]
            return legal[0]
        if ph == nl.PH_BUILD:
            lays = [a for a in legal if nl.N_LAY <= a < nl.N_COMMIT]
            if lays:
                return lays[0]
            return nl.N_COMMIT_TOK if nl.N_COMMIT_TOK in ls else nl.N_COMMIT
        if ph == nl.PH_KPICK or ph == nl.PH_RESBACK:
            picks = [a for a in legal if nl.N_PICK <= a < nl.N_STEP2 or nl.N_RESBACK <= a < nl.N_MOVE]
            return picks[0] if picks else legal[0]
        if ph == nl.PH_XTRA:
            if endgame:
                return nl.N_XNONE
            if nl.N_XDISC in ls and val(int(kind_of(int(s["disc"][int(s["disc_n"]) - 1])))) >= 4.0:
                return nl.N_XDISC
            return nl.N_XSTOCK if nl.N_XSTOCK in ls else nl.N_XNONE
        if ph == nl.PH_RESPUT:
            discs = [a for a in legal if nl.N_DISCARD <= a < nl.N_END]
            return min(discs, key=lambda a: val(a - nl.N_DISCARD))
        if ph == nl.PH_MAIN:
            steps = [a for a in legal if nl.N_STEP2 <= a < nl.N_LAY]
            if steps:
                return max(steps, key=lambda a: self._line_value(s, p, a - nl.N_STEP2, hand, needs))
            lays = [a for a in legal if nl.N_LAY <= a < nl.N_JPOS]
            if lays:
                return max(lays, key=lambda a: _interval_len(hand, int(kind_at((a - nl.N_LAY) // 11,
                                                                               (a - nl.N_LAY) % 11 + 1))))
            best, score = -1, 0.5
            for a in legal:
                if not nl.N_DBL <= a < nl.N_XDISC:
                    continue
                slot, suit = divmod((a - nl.N_DBL) if a < nl.N_SWAP else (a - nl.N_SWAP), 4)
                top = int(s["pool"][slot])
                k = suit * 10 + top % 10
                if a < nl.N_SWAP:
                    v = 3.0 - val(k) if endgame else 1.0 - 0.5 * val(k)
                else:
                    v = val(int(kind_of(top))) - val(k)
                if v > score:
                    best, score = a, v
            if best >= 0:
                return best
            discs = [a for a in legal if nl.N_DISCARD <= a < nl.N_END]
            if nl.N_END in ls and not endgame and int(s["hand_n"][p]) < 8:
                return nl.N_END
            if discs:
                return min(discs, key=lambda a: val(a - nl.N_DISCARD))
            return nl.N_END if nl.N_END in ls else legal[0]
        return legal[0]


# ------------------------------------------------------------------ compiled playout policy
# OctaHeuristicAgent's choices over a record, for compiled playouts (MCTS, rollout search).
# The same priorities in the same order; a dict of needs becomes an array (-1: no need).
@nb.njit
def _needs_array(s, p):
    """:func:`_my_run_needs` as an array over the 40 kinds (-1 where no own run needs the kind)."""
    needs = np.full(NUM_KINDS, -1, np.int64)
    for r in range(MAX_RUNS):
        if s["run_owner"][r] != p:
            continue
        length = run_faceup(s, r)
        for end in range(2):
            pos = extend_pos(s, r, end)
            if pos > 0:
                k = kind_at(s["run_suit"][r], pos)
                needs[k] = max(max(needs[k], 0), length)
    return needs


@nb.njit
def _value_c(k, needs, hand) -> float:
    """:func:`_card_value`, compiled."""
    v = 0.0
    if needs[k] >= 0:
        v += 4.0 + 0.5 * needs[k]
    suit, rank = k // 10, k % 10
    for d in range(1, 3):
        for r2 in (rank - d, rank + d):
            rr = r2
            if r2 == -1 or r2 == 10:
                rr = r2 % 10
            if 0 <= rr < 10 and hand[suit * 10 + rr] > 0:
                v += 1.5 if d == 1 else 0.5
    return v


@nb.njit
def _interval_c(hand, k) -> int:
    """:func:`_interval_len`, compiled."""
    suit, rank = k // 10, k % 10
    have = np.zeros(12, np.bool_)
    for q in range(1, 12):
        have[q] = hand[suit * 10 + (q - 1 if q <= 10 else 0)] > 0
    best = 0
    for i in range(2 if rank == 0 else 1):
        q = (1 if i == 0 else 11) if rank == 0 else rank + 1
        lo = q
        while lo - 1 >= 1 and have[lo - 1]:
            lo -= 1
        hi = q
        while hi + 1 <= 11 and have[hi + 1]:
            hi += 1
        best = max(best, min(hi - lo + 1, 10))
    return best


@nb.njit
def _line_c(s, line, needs, hand) -> float:
    """``OctaHeuristicAgent._line_value``, compiled."""
    v = 0.0
    for i in range(3):
        c = s["pool"][POOL_LINES[line, i]]
        if c >= 0:
            v += 1.0 + _value_c(kind_of(c), needs, hand)
    return v


@nb.njit
def _first(mask, lo, hi) -> int:
    """The lowest legal action in ``[lo, hi)``, or -1."""
    for a in range(lo, hi):
        if mask[a]:
            return a
    return -1


@nb.njit
def _lowest(mask) -> int:
    return _first(mask, 0, mask.shape[0])


@nb.njit
def _pile_c(s, mask, first_pile, need_own) -> int:
    """Step 1's pile: onto the pile whose other pile's top shares the drawn card's suit, else random."""
    c = s["adrawn"]
    for pile in range(2):
        other = 1 - pile
        mo = s["apile_n"][other]
        if mo > 0 and (s["apile"][other, mo - 1] - 80) % 12 // 3 == (c - 80) % 12 // 3 \
                and (s["apile_n"][pile] > 0 or not need_own):
            return first_pile + pile
    a = first_pile + rng_below(s, 2)
    return a if mask[a] else _lowest(mask)


@nb.njit
def _en_use_c(s, p, mask, needs, hand) -> int:
    """``OctaHeuristicAgent._use``, compiled."""
    pile = s["anew_pile"]
    t = atype_of(s["apile"][pile, s["apile_n"][pile] - 1])
    if _first(mask, en.A_JACK, en.A_QUEEN) >= 0:
        best, score = en.A_DECLINE, 0.0
        for a in range(en.A_JACK, en.A_QUEEN):
            if not mask[a]:
                continue
            r, pos = (a - en.A_JACK) // 11, (a - en.A_JACK) % 11
            if s["run_owner"][r] == p:
                continue
            v = float(run_faceup(s, r)) + 0.5 * _value_c(kind_of(s["run_card"][r, pos + 1]), needs, hand)
            if v > score:
                best, score = a, v
        return best
    best, score = -1, 0.0
    for a in range(en.A_QUEEN, en.A_QUEEN + NUM_QUEEN_PAIRS):
        if mask[a]:
            i, j = QUEEN_PAIRS[a - en.A_QUEEN, 0], QUEEN_PAIRS[a - en.A_QUEEN, 1]
            v = _value_c(kind_of(s["pool"][i]), needs, hand) + _value_c(kind_of(s["pool"][j]), needs, hand)
            if best < 0 or v > score:
                best, score = a, v
    if best >= 0:
        return best
    if t == KING or mask[en.A_KING_STOCK]:
        if mask[en.A_KING_DISC]:
            n = s["disc_n"]
            tot = 0.0
            for d in range(max(0, n - 2), n):
                tot += _value_c(kind_of(s["disc"][d]), needs, hand)
            if tot >= 6.0:
                return en.A_KING_DISC
        return en.A_KING_STOCK
    return en.A_DECLINE


@nb.njit
def _en_exchange_c(s, p, mask, needs, hand) -> int:
    """``OctaHeuristicAgent._exchange``, compiled."""
    best, score = en.A_EXCH_SKIP, 0.5
    token_free = s["token_loc"][p] == TOK_CENTRE
    h2 = hand.copy()
    for a in range(en.A_EXCH, en.A_PTOKEN):
        if not mask[a]:
            continue
        k, slot = (a - en.A_EXCH) // POOL_SLOTS, (a - en.A_EXCH) % POOL_SLOTS
        taken = kind_of(s["pool"][slot])
        h2[k] -= 1
        v = _value_c(taken, needs, h2) - _value_c(k, needs, h2)
        h2[k] += 1
        if token_free:
            c = s["pool"][slot]
            s["pool"][slot] = k  # kind k, copy 0: same suit and rank as the card placed
            made = False
            for line in range(4):
                if en.pool_line_is_run(s, line):
                    made = True
                    break
            s["pool"][slot] = c
            if made:
                v += 6.0
        if v > score:
            best, score = a, v
    return best


@nb.njit
def _en_playout(s, p, mask) -> int:
    """The English priorities (:meth:`OctaHeuristicAgent.act`), compiled."""
    ph = s["phase"]
    hand = s["hand_cnt"][p].astype(np.int64)
    needs = _needs_array(s, p)
    a = _first(mask, en.A_ADD, en.A_FD)
    if a >= 0:
        return a
    a = _first(mask, en.A_FD, en.A_EXCH)
    if a >= 0:
        return a
    if ph == PH_PILE:
        return _pile_c(s, mask, en.A_PILE, True)
    if ph == PH_USE:
        return _en_use_c(s, p, mask, needs, hand)
    if ph == en.PH_OPTION:
        if mask[en.A_C]:
            return en.A_C
        best, score = -1, 0.0
        for a in range(en.A_BLINE, en.A_END_B):
            if mask[a]:
                v = _line_c(s, a - en.A_BLINE, needs, hand)
                if best < 0 or v > score:
                    best, score = a, v
        if best >= 0:
            return best
        best, k1, k2 = -1, 0, 0
        for a in range(en.A_SEL, en.A_COMMIT):
            if mask[a]:
                i1 = _interval_c(hand, a - en.A_SEL)
                i2 = (10 - (a - en.A_SEL) % 10) % 10
                if best < 0 or i1 > k1 or (i1 == k1 and i2 > k2):
                    best, k1, k2 = a, i1, i2
        return best if best >= 0 else en.A_SKIP_OPT
    if ph == en.PH_BUILD:
        a = _first(mask, en.A_SEL, en.A_COMMIT)
        return a if a >= 0 else en.A_COMMIT
    if ph == en.PH_TOKEN:
        return en.A_TOKEN_RUN
    if ph == en.PH_BPLACE:
        if mask[en.A_END_B]:
            return en.A_END_B
        best, k1 = -1, 0
        for a in range(en.A_SEL, en.A_COMMIT):
            if mask[a]:
                i1 = _interval_c(hand, a - en.A_SEL)
                if best < 0 or i1 > k1:
                    best, k1 = a, i1
        return best if best >= 0 else _lowest(mask)
    if ph == en.PH_EXCH:
        return _en_exchange_c(s, p, mask, needs, hand)
    if ph == en.PH_PTOKEN:
        a = _first(mask, en.A_PTOKEN, en.A_PTOKEN_NO)
        return a if a >= 0 else en.A_PTOKEN_NO
    if ph == en.PH_DISCARD or ph == en.PH_DDOWN:
        if mask[en.A_END_TURN]:
            return en.A_END_TURN
        best, score = -1, 0.0
        for a in range(en.A_DISCARD, en.A_END_TURN):
            if mask[a]:
                v = _value_c(a - en.A_DISCARD, needs, hand)
                if best < 0 or v < score:
                    best, score = a, v
        return best
    return _lowest(mask)


@nb.njit
def _own_move_target_c(s, p, src, end) -> int:
    """:func:`_own_move_target`, compiled."""
    c = nl.move_card(s, src, end)
    if c < 0:
        return -1
    for d in range(MAX_RUNS):
        for e in range(2):
            if s["run_owner"][d] == p and nl.move_fits(s, src, c, d, e):
                return nl.N_ADD + d * 2 + e
    return -1


@nb.njit
def _nl_playout(s, p, mask) -> int:
    """The Dutch priorities (``OctaHeuristicAgent._act_nl``), compiled."""
    ph = s["phase"]
    # first the phases that read neither the hand's needs nor the endgame (the same choices, less work)
    if ph == nl.PH_MOVE:
        a = _own_move_target_c(s, p, s["move_slot"], s["move_end"])
        return a if a >= 0 else _lowest(mask)
    if ph == PH_PILE:
        return _pile_c(s, mask, nl.N_PILE, False)
    if ph == nl.PH_JOKER:
        a = _first(mask, nl.N_JATT, nl.N_ADD)
        if a >= 0:
            return a
        a = _first(mask, nl.N_LAY, nl.N_JPOS)
        return a if a >= 0 else _lowest(mask)
    if ph == nl.PH_BUILD:
        a = _first(mask, nl.N_LAY, nl.N_COMMIT)
        if a >= 0:
            return a
        return nl.N_COMMIT_TOK if mask[nl.N_COMMIT_TOK] else nl.N_COMMIT
    if ph == nl.PH_KPICK or ph == nl.PH_RESBACK:
        for a in range(mask.shape[0]):
            if mask[a] and (nl.N_PICK <= a < nl.N_STEP2 or nl.N_RESBACK <= a < nl.N_MOVE):
                return a
        return _lowest(mask)
    hand = s["hand_cnt"][p].astype(np.int64)
    needs = _needs_array(s, p)
    endgame = nl.octa_mask(s, p) != 0
    if ph == nl.PH_MAIN or ph == PH_USE:
        for a in range(nl.N_ADD, nl.N_FD):
            if mask[a] and (endgame or s["run_owner"][(a - nl.N_ADD) // 2] == p):
                return a
        for a in range(mask.shape[0]):
            if mask[a] and (nl.N_FD <= a < nl.N_DBL or nl.N_JOIN <= a < nl.N_USED):
                return a
        for a in range(nl.N_MOVE, nl.N_JOIN):
            if mask[a]:
                src, end = (a - nl.N_MOVE) // 2, (a - nl.N_MOVE) % 2
                if s["run_owner"][src] != p and _own_move_target_c(s, p, src, end) >= 0:
                    return a
    if ph == PH_USE:
        if mask[nl.N_JOKER]:
            return nl.N_JOKER
        best, score = nl.N_DECLINE, 2.0
        for a in range(mask.shape[0]):
            if not mask[a]:
                continue
            if nl.N_JACK <= a < nl.N_JOKER:
                r, pos = (a - nl.N_JACK) // 11, (a - nl.N_JACK) % 11
                v = float(run_faceup(s, r)) + _value_c(kind_of(s["run_card"][r, pos + 1]), needs, hand)
            elif nl.N_QPOT <= a < nl.N_QEND:
                v = 1.0 + _value_c(kind_of(s["pool"][a - nl.N_QPOT]), needs, hand)
            elif nl.N_QEND <= a < nl.N_KSTOCK:
                r, end = (a - nl.N_QEND) // 2, (a - nl.N_QEND) % 2
                if s["run_owner"][r] == p:
                    continue
                pos = s["run_lo"][r] if end == 0 else s["run_hi"][r]
                v = 1.0 + _value_c(kind_at(s["run_suit"][r], pos), needs, hand)
            elif a == nl.N_KRES:
                v = 10.0  # the own reserve back: its cards count against you
            elif a == nl.N_KSTOCK:
                v = 0.0 if endgame else 2.5
            else:
                continue
            if v > score:
                best, score = a, v
        return best
    if ph == nl.PH_XTRA:
        if endgame:
            return nl.N_XNONE
        if mask[nl.N_XDISC] and _value_c(kind_of(s["disc"][s["disc_n"] - 1]), needs, hand) >= 4.0:
            return nl.N_XDISC
        return nl.N_XSTOCK if mask[nl.N_XSTOCK] else nl.N_XNONE
    if ph == nl.PH_RESPUT:
        return _least_useful_c(mask, needs, hand)
    if ph == nl.PH_MAIN:
        best, score = -1, 0.0
        for a in range(nl.N_STEP2, nl.N_LAY):
            if mask[a]:
                v = _line_c(s, a - nl.N_STEP2, needs, hand)
                if best < 0 or v > score:
                    best, score = a, v
        if best >= 0:
            return best
        best, k1 = -1, 0
        for a in range(nl.N_LAY, nl.N_JPOS):
            if mask[a]:
                i1 = _interval_c(hand, kind_at((a - nl.N_LAY) // 11, (a - nl.N_LAY) % 11 + 1))
                if best < 0 or i1 > k1:
                    best, k1 = a, i1
        if best >= 0:
            return best
        best, score = -1, 0.5
        for a in range(nl.N_DBL, nl.N_XDISC):
            if not mask[a]:
                continue
            x = (a - nl.N_DBL) if a < nl.N_SWAP else (a - nl.N_SWAP)
            slot, suit = x // 4, x % 4
            top = s["pool"][slot]
            k = suit * 10 + top % 10
            if a < nl.N_SWAP:
                v = 3.0 - _value_c(k, needs, hand) if endgame else 1.0 - 0.5 * _value_c(k, needs, hand)
            else:
                v = _value_c(kind_of(top), needs, hand) - _value_c(k, needs, hand)
            if v > score:
                best, score = a, v
        if best >= 0:
            return best
        if mask[nl.N_END] and not endgame and s["hand_n"][p] < 8:
            return nl.N_END
        a = _least_useful_c(mask, needs, hand)
        if a >= 0:
            return a
        return nl.N_END if mask[nl.N_END] else _lowest(mask)
    return _lowest(mask)


@nb.njit
def _least_useful_c(mask, needs, hand) -> int:
    """The Dutch discard of the least useful kind (the first of the least), or -1."""
    best, score = -1, 0.0
    for a in range(nl.N_DISCARD, nl.N_END):
        if mask[a]:
            v = _value_c(a - nl.N_DISCARD, needs, hand)
            if best < 0 or v < score:
                best, score = a, v
    return best


@nb.njit
def octa_playout(s, player, mask, n_legal) -> int:
    """:class:`OctaHeuristicAgent`'s choice, compiled, for MCTS playouts and rollout search.

    It reads only what ``player`` may see (its own hand and the table). The one
    random choice (the action pile when neither pile's top matches) is drawn with
    the record's RNG.
    """
    if s["rules"] == RULES_NL:
        return _nl_playout(s, player, mask)
    return _en_playout(s, player, mask)


@nb.njit
def en_playout(s, player, mask, n_legal) -> int:
    """:func:`octa_playout` of an English record: the English priorities alone, so that the playouts
    compiled for the English rulebook carry none of the Dutch ones (``GameSpec.playout_policy_by``)."""
    return _en_playout(s, player, mask)


@nb.njit
def nl_playout(s, player, mask, n_legal) -> int:
    """:func:`octa_playout` of a Dutch record: the Dutch priorities alone (see :func:`en_playout`)."""
    return _nl_playout(s, player, mask)
