"""English Octa rules ("The Game of 8"): the turn, the options, the win and the stock.

All English-only rules live here; the shared table pieces (cards, runs, pool
ring, action piles, tokens, face-down cards) are in
:mod:`octagames.octa.common`. The design (phases, action table, state layout)
is documented in :mod:`octagames.octa.rules`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.octa.common import (CK_DRAW, CK_FD, HAND_LIMIT, JACK, LOC_AHIDDEN, LOC_DISCARD, LOC_HAND,
                                   LOC_STOCK, MAX_PILE, MAX_RUNS, NUM_ACTIONS, NUM_KINDS, NUM_NUMBER,
                                   NUM_QUEEN_PAIRS, PH_USE, POOL_LINES, POOL_SLOTS, QUEEN, QUEEN_PAIRS,
                                   TOK_CENTRE, TOK_POOL, TOK_RUN, atype_of, clear_build, detach,
                                   exchange_fits, extend_pos, free_run, free_run_slot, hand_card_of_kind,
                                   kind_at, kind_of, longest_run, pool_line_is_run, rank_of, run_faceup,
                                   slot_protected_by, start_chance, start_refill, suit_of, table_faceup,
                                   to_discard, to_hand, to_pool, to_run, to_stock)

# ---------------------------------------------------------------- phases
# 0..4 and 13 are the shared phases of octagames.octa.common (deal, start, chance, pile, use, over)
PH_OPTION = 5     # step 3: option A (start laying a run), B, C, or none
PH_BUILD = 6      # laying a run card by card, then commit
PH_TOKEN = 7      # option A: put the token on the new run or not
PH_BPLACE = 8     # option B: place at least one taken card, then end option B
PH_EXCH = 9       # step 4: exchange with the pool or not
PH_PTOKEN = 10    # step 4: token on the pool run the exchange made, or not
PH_DISCARD = 11   # step 5: discard (or end the turn with fewer than 8 cards)
PH_DDOWN = 12     # step 5: hand limit, discard down to 8
PHASE_NAMES = ("setup deal", "choosing the start player", "chance", "action pile choice",
               "action card use", "options A/B/C", "laying a run", "token on the new run",
               "option B placement", "exchange with the pool", "token on a pool run",
               "discard", "hand limit discard", "game over")

# ---------------------------------------------------------------- action table
A_PILE = 0                                   # 2: put the action card on pile 0 / 1
A_DECLINE = A_PILE + 2                       # 1: do not use the action card
A_JACK = A_DECLINE + 1                       # 286: slot*11 + (pos-1)
A_QUEEN = A_JACK + MAX_RUNS * 11             # 28: pool pairs
A_KING_STOCK = A_QUEEN + NUM_QUEEN_PAIRS     # 1
A_KING_DISC = A_KING_STOCK + 1               # 1
A_SKIP_OPT = A_KING_DISC + 1                 # 1: no option this turn
A_SEL = A_SKIP_OPT + 1                       # 40: lay a hand card of this kind in the run being built
A_COMMIT = A_SEL + NUM_KINDS                 # 1: the run is complete
A_TOKEN_RUN = A_COMMIT + 1                   # 1: token on the new run
A_TOKEN_NO = A_TOKEN_RUN + 1                 # 1
A_BLINE = A_TOKEN_NO + 1                     # 4: option B, take a pool line
A_END_B = A_BLINE + 4                        # 1: option B placement finished
A_C = A_END_B + 1                            # 1: option C
A_ADD = A_C + 1                              # 52: slot*2 + end (0 low, 1 high)
A_FD = A_ADD + MAX_RUNS * 2                  # 286: slot*11 + (pos-1): replace face-down card
A_EXCH = A_FD + MAX_RUNS * 11                # 320: kind*8 + pool slot
A_PTOKEN = A_EXCH + NUM_KINDS * POOL_SLOTS   # 4: token on the pool run along line
A_PTOKEN_NO = A_PTOKEN + 4                   # 1
A_EXCH_SKIP = A_PTOKEN_NO + 1                # 1
A_DISCARD = A_EXCH_SKIP + 1                  # 40: discard a card of this kind
A_END_TURN = A_DISCARD + NUM_KINDS           # 1: end the turn without discarding (< 8 cards)
assert A_END_TURN + 1 == NUM_ACTIONS

# Bound on the actions of one turn (chance included): see the module docstring of rules.py.
TURN_ACTION_BOUND = 300


# ---------------------------------------------------------------- the turn machinery's hooks
@nb.njit(cache=True)
def turn_start(s) -> None:
    """Clear the English per-turn fields (the turn machinery clears the shared ones)."""
    s["opt_used"] = 0
    s["b_run_done"] = 0
    s["new_slot"] = -1
    s["ptoken_lines"] = 0


@nb.njit(cache=True)
def enter(s, phase) -> None:
    """Go on to player phase ``phase``."""
    s["phase"] = phase


@nb.njit(cache=True)
def after_action_step(s) -> None:
    """After the action card: step 3, the options."""
    s["phase"] = PH_OPTION


@nb.njit(cache=True)
def score(s, p) -> int:
    """Without a winner the most face-up cards in runs wins (face-down cards do not count)."""
    return table_faceup(s, p)


@nb.njit(cache=True)
def winner(s) -> int:
    """The win rule: an Octa (8+ face-up cards in one run) and 28+ face-up cards in runs."""
    p = s["cur"]
    if longest_run(s, p) >= 8 and table_faceup(s, p) >= 28:
        return p
    return -1


@nb.njit(cache=True)
def _rebuild_stock(s) -> None:
    """First exhaustion: the discard pile and every run of exactly 3 cards become the stock.

    A run's length counts its face-up cards only; the whole run (face-down
    cards included) goes to the stock, and a token on it returns to the centre.
    """
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_DISCARD:
            s["pub"][c] = 0
            s["loc"][c] = LOC_STOCK
            s["lidx"][c] = 0
            s["stock_n"] += 1
    s["disc"][:] = -1
    s["disc_n"] = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] >= 0 and run_faceup(s, r) == 3:
            for q in range(2):
                if s["token_loc"][q] == TOK_RUN and s["token_idx"][q] == r:
                    s["token_loc"][q] = TOK_CENTRE
                    s["token_idx"][q] = -1
                    s["token_turn"][q] = -1
            for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
                c = s["run_card"][r, pos]
                detach(s, c)
                to_stock(s, c)
            free_run(s, r)


@nb.njit(cache=True)
def stock_emptied(s) -> None:
    """The stock ran out: the first time it is rebuilt; the second time this is the last turn."""
    if s["exhaust"] == 0:
        s["exhaust"] = 1
        _rebuild_stock(s)
        if s["stock_n"] > 0:
            return
    s["exhaust"] = 2
    s["final_turn"] = 1


@nb.njit(cache=True)
def restock_actions(s) -> None:
    """No more action cards: the two face-up cards stay, the rest become a new stack.

    The cards under the two face-up cards, plus the set-aside cards while any
    are left, are shuffled into a new stack. Hidden action cards are kept as one
    unordered set, so "shuffling" is only a change of counts.
    """
    n = 0
    for pile in range(2):
        top = s["apile_n"][pile] - 1
        for d in range(top):
            c = s["apile"][pile, d]
            s["loc"][c] = LOC_AHIDDEN
            s["lidx"][c] = 0
            n += 1
        if top >= 0:
            c = s["apile"][pile, top]
            s["apile"][pile, :] = -1
            s["apile"][pile, 0] = c
            s["apile_n"][pile] = 1
            s["lidx"][c] = pile * MAX_PILE
    s["astack_n"] = n + s["aside_n"]
    s["aside_n"] = 0


# ---------------------------------------------------------------- run laying helpers
@nb.njit(cache=True)
def _interval_ok(avail, bpos, need_lo, need_hi, need_b) -> bool:
    """A run [a, b] of 3..10 positions, all available, containing [need_lo, need_hi] exists.

    With ``need_b`` it must also contain a position marked in ``bpos``.
    """
    for a in range(1, need_lo + 1):
        for b in range(max(need_hi, a + 2), 12):
            if b - a + 1 > 10:
                break
            ok = True
            hasb = not need_b
            for q in range(a, b + 1):
                if not avail[q]:
                    ok = False
                    break
                if bpos[q]:
                    hasb = True
            if ok and hasb:
                return True
    return False


@nb.njit(cache=True)
def _suit_avail(s, p, suit, avail, bpos) -> None:
    """Positions 1..11 of ``suit`` for which ``p`` holds a free card (and a B card)."""
    for q in range(1, 12):
        k = kind_at(suit, q)
        a = False
        b = False
        for cp in range(2):
            c = cp * 40 + k
            if s["loc"][c] == LOC_HAND and s["lidx"][c] == p:
                if s["inbuild"][c]:
                    # in the run being laid: available only at its own position
                    if s["build_lo"] <= q <= s["build_hi"] and s["build_card"][q] == c:
                        a = True
                        if s["bflag"][c]:
                            b = True
                else:
                    a = True
                    if s["bflag"][c]:
                        b = True
        avail[q] = a
        bpos[q] = b


@nb.njit(cache=True)
def _sel_target(s, p, k):
    """Where a card of kind ``k`` would go in the run being laid: (ok, new_lo, new_hi, amb)."""
    if s["hand_cnt"][p, k] <= 0 or hand_card_of_kind(s, p, k) < 0:
        return False, 0, 0, 0
    suit = k // 10
    r = k % 10 + 1
    if s["build_lo"] == 0:
        if r == 1:
            return True, 1, 1, 1
        return True, r, r, 0
    if suit != s["build_suit"]:
        return False, 0, 0, 0
    lo = s["build_lo"]
    hi = s["build_hi"]
    if s["build_amb"]:  # a lone ace: 2 makes it low, 10 makes it high
        if r == 2:
            return True, 1, 2, 0
        if r == 10:
            return True, 10, 11, 0
        return False, 0, 0, 0
    if r == 1:
        if lo == 2:
            return True, 1, hi, 0
        if hi == 10:
            return True, lo, 11, 0
        return False, 0, 0, 0
    if r == lo - 1:
        return True, r, hi, 0
    if r == hi + 1 and r <= 10:
        return True, lo, r, 0
    return False, 0, 0, 0


@nb.njit(cache=True)
def _sel_legal(s, p, k) -> bool:
    """Whether laying a card of kind ``k`` keeps the run being laid completable."""
    ok, lo, hi, amb = _sel_target(s, p, k)
    if not ok:
        return False
    suit = k // 10
    avail = np.zeros(12, dtype=np.bool_)
    bpos = np.zeros(12, dtype=np.bool_)
    _suit_avail(s, p, suit, avail, bpos)
    need_b = s["opt_used"] == 2  # option B's new run must hold a taken card
    c_new = hand_card_of_kind(s, p, k)
    b_new = s["bflag"][c_new] == 1
    # the new card itself is available at its target position(s)
    if amb:
        avail[1] = True
        avail[11] = True
        bpos[1] = b_new
        bpos[11] = b_new
        return _interval_ok(avail, bpos, 1, 1, need_b) or _interval_ok(avail, bpos, 11, 11, need_b)
    q_new = _sel_pos(k, lo, amb)
    for q in range(lo, hi + 1):
        avail[q] = True
        if q == q_new:
            bpos[q] = b_new
        elif q == 11 and s["build_amb"]:  # the lone ace moves from position 1 to 11
            bpos[q] = s["bflag"][s["build_card"][1]] == 1
        elif s["build_card"][q] >= 0:
            bpos[q] = s["bflag"][s["build_card"][q]] == 1
    return _interval_ok(avail, bpos, lo, hi, need_b)


@nb.njit(cache=True)
def _sel_pos(k, new_lo, amb) -> int:
    """Position a card of kind ``k`` takes in the run being laid (new interval starts at ``new_lo``)."""
    if amb:
        return 1
    if k % 10 == 0:  # an ace: low if the run now starts at 1, otherwise high
        return 1 if new_lo == 1 else 11
    return k % 10 + 1


@nb.njit(cache=True)
def _build_has_b(s) -> bool:
    for q in range(s["build_lo"], s["build_hi"] + 1):
        c = s["build_card"][q]
        if c >= 0 and s["bflag"][c]:
            return True
    return False


# ---------------------------------------------------------------- option B feasibility
@nb.njit(cache=True)
def _b_feasible(s, p, rm_kind, ext_slot, ext_pos, line) -> bool:
    """Whether a card taken with option B can still go on the table.

    Counts ``p``'s hand (plus the cards of pool ``line`` when it is >= 0, as
    if just taken), removes one non-B copy of ``rm_kind`` (when >= 0), and
    pretends run ``ext_slot`` already reaches ``ext_pos``. A B card can go on
    the table if it fits a new run (3..10 available consecutive positions, when
    option B's new run is still to be laid) or a chain of available cards
    joins it to an end of one of ``p``'s runs of its suit.
    """
    cnt = np.zeros(NUM_KINDS, dtype=np.int64)
    bc = np.zeros(NUM_KINDS, dtype=np.int64)
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == p:
            cnt[kind_of(c)] += 1
            if s["bflag"][c]:
                bc[kind_of(c)] += 1
    if line >= 0:
        for i in range(3):
            c = s["pool"][POOL_LINES[line, i]]
            if c >= 0:
                cnt[kind_of(c)] += 1
                bc[kind_of(c)] += 1
    if rm_kind >= 0:
        if cnt[rm_kind] - bc[rm_kind] <= 0:
            bc[rm_kind] -= 1
        cnt[rm_kind] -= 1
    avail = np.zeros(12, dtype=np.bool_)
    nob = np.zeros(12, dtype=np.bool_)
    for suit in range(4):
        anyb = False
        for r in range(10):
            if bc[suit * 10 + r] > 0:
                anyb = True
        if not anyb:
            continue
        for q in range(1, 12):
            avail[q] = cnt[kind_at(suit, q)] > 0
        for q in range(1, 12):
            if bc[kind_at(suit, q)] <= 0:
                continue
            if s["b_run_done"] == 0 and _interval_ok(avail, nob, q, q, False):
                return True
            for r in range(MAX_RUNS):
                if s["run_owner"][r] != p or s["run_suit"][r] != suit:
                    continue
                lo = s["run_lo"][r]
                hi = s["run_hi"][r]
                if r == ext_slot:
                    lo = min(lo, ext_pos)
                    hi = max(hi, ext_pos)
                if q > hi and q - lo + 1 <= 10:
                    ok = True
                    for m in range(hi + 1, q):
                        if not avail[m]:
                            ok = False
                    if ok:
                        return True
                if q < lo and hi - q + 1 <= 10:
                    ok = True
                    for m in range(q + 1, lo):
                        if not avail[m]:
                            ok = False
                    if ok:
                        return True
    return False


# ---------------------------------------------------------------- legal actions
@nb.njit(cache=True)
def _has_b_copy(s, p, k) -> bool:
    for cp in range(2):
        c = cp * 40 + k
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == p and s["bflag"][c]:
            return True
    return False


@nb.njit(cache=True)
def _gen_free(s, p, out) -> int:
    """Additions to own runs and face-down replacements (allowed any time in the turn).

    While option B's placement is still owed, an action is offered only if a
    taken card can still reach the table afterwards (so no dead end exists).
    """
    owed = s["phase"] == PH_BPLACE and s["b_done"] == 0
    n = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] < 0:
            continue
        suit = s["run_suit"][r]
        if s["run_owner"][r] == p:
            for end in range(2):
                pos = extend_pos(s, r, end)
                if pos < 0:
                    continue
                k = kind_at(suit, pos)
                if s["hand_cnt"][p, k] <= 0:
                    continue
                if owed and not _has_b_copy(s, p, k) and not _b_feasible(s, p, k, r, pos, -1):
                    continue
                out[A_ADD + r * 2 + end] = 1
                n += 1
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
            if s["run_fd"][r, pos] == 0:
                continue
            k = kind_at(suit, pos)
            if s["hand_cnt"][p, k] <= 0:
                continue
            if owed and not _b_feasible(s, p, k, -1, -1, -1):
                continue
            out[A_FD + r * 11 + pos - 1] = 1
            n += 1
    return n


@nb.njit(cache=True)
def _b_line_legal(s, p, line) -> bool:
    cards = 0
    for i in range(3):
        slot = POOL_LINES[line, i]
        if s["pool"][slot] >= 0:
            cards += 1
            if slot_protected_by(s, slot, 1 - p):
                return False
    if cards == 0:
        return False
    return _b_feasible(s, p, -1, -1, -1, line)


@nb.njit(cache=True)
def _exchange_made_lines(s, slot, c) -> int:
    """Bitmask of pool lines through ``slot`` that become pool runs when ``c`` replaces its card."""
    old = s["pool"][slot]
    before = 0
    for line in range(4):
        if pool_line_is_run(s, line):
            before |= 1 << line
    s["pool"][slot] = c
    made = 0
    for line in range(4):
        through = POOL_LINES[line, 0] == slot or POOL_LINES[line, 1] == slot or POOL_LINES[line, 2] == slot
        if through and pool_line_is_run(s, line) and not (before >> line) & 1:
            made |= 1 << line
    s["pool"][slot] = old
    return made


@nb.njit(cache=True)
def gen_legal(s, p, out) -> int:
    """Mark ``p``'s legal actions from the action card's use on (``out`` is zeroed, the decline set)."""
    ph = s["phase"]
    n = 0
    if ph == PH_USE:
        pile = s["anew_pile"]
        t = atype_of(s["apile"][pile, s["apile_n"][pile] - 1])
        if t == JACK:
            if s["stock_n"] > 0:
                for r in range(MAX_RUNS):
                    if s["run_owner"][r] < 0 or run_faceup(s, r) < 2:
                        continue
                    for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
                        if s["run_fd"][r, pos] == 0:
                            out[A_JACK + r * 11 + pos - 1] = 1
                            n += 1
        elif t == QUEEN:
            for i in range(NUM_QUEEN_PAIRS):
                a = s["pool"][QUEEN_PAIRS[i, 0]]
                b = s["pool"][QUEEN_PAIRS[i, 1]]
                if a < 0 or b < 0 or suit_of(a) != suit_of(b):
                    continue
                prot = False
                for q in range(2):
                    if (slot_protected_by(s, QUEEN_PAIRS[i, 0], q)
                            or slot_protected_by(s, QUEEN_PAIRS[i, 1], q)):
                        prot = True
                if not prot:
                    out[A_QUEEN + i] = 1
                    n += 1
        else:
            out[A_KING_STOCK] = 1
            n += 1
            if s["disc_n"] > 0:
                out[A_KING_DISC] = 1
                n += 1
        return n + _gen_free(s, p, out)
    if ph == PH_OPTION:
        out[A_SKIP_OPT] = 1
        n = 1
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] > 0 and _sel_legal(s, p, k):
                out[A_SEL + k] = 1
                n += 1
        if s["token_loc"][p] == TOK_RUN and s["token_turn"][p] < s["turn"]:
            for line in range(4):
                if _b_line_legal(s, p, line):
                    out[A_BLINE + line] = 1
                    n += 1
        if s["token_loc"][p] == TOK_POOL and pool_line_is_run(s, s["token_idx"][p]):
            out[A_C] = 1
            n += 1
        return n + _gen_free(s, p, out)
    if ph == PH_BUILD:
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] > 0 and _sel_legal(s, p, k):
                out[A_SEL + k] = 1
                n += 1
        if s["build_hi"] - s["build_lo"] + 1 >= 3 and (s["opt_used"] == 1 or _build_has_b(s)):
            out[A_COMMIT] = 1
            n += 1
        return n
    if ph == PH_TOKEN:
        out[A_TOKEN_RUN] = 1
        out[A_TOKEN_NO] = 1
        return 2
    if ph == PH_BPLACE:
        if s["b_done"]:
            out[A_END_B] = 1
            n = 1
        if s["b_run_done"] == 0:
            for k in range(NUM_KINDS):
                if s["hand_cnt"][p, k] > 0 and _sel_legal(s, p, k):
                    out[A_SEL + k] = 1
                    n += 1
        return n + _gen_free(s, p, out)
    if ph == PH_EXCH:
        out[A_EXCH_SKIP] = 1
        n = 1
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] <= 0:
                continue
            c = hand_card_of_kind(s, p, k)
            for slot in range(POOL_SLOTS):
                if s["pool"][slot] < 0 or slot_protected_by(s, slot, 1 - p):
                    continue
                if exchange_fits(s, slot, c):
                    out[A_EXCH + k * POOL_SLOTS + slot] = 1
                    n += 1
        return n + _gen_free(s, p, out)
    if ph == PH_PTOKEN:
        out[A_PTOKEN_NO] = 1
        n = 1
        for line in range(4):
            if (s["ptoken_lines"] >> line) & 1:
                out[A_PTOKEN + line] = 1
                n += 1
        return n
    if ph == PH_DISCARD or ph == PH_DDOWN:
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] > 0:
                out[A_DISCARD + k] = 1
                n += 1
        if ph == PH_DISCARD:
            if s["hand_n"][p] < HAND_LIMIT:
                out[A_END_TURN] = 1
                n += 1
            n += _gen_free(s, p, out)
        return n
    return 0


# ---------------------------------------------------------------- applying a player action
@nb.njit(cache=True)
def _new_run(s, p, suit, lo, hi) -> int:
    r = free_run_slot(s)
    s["run_owner"][r] = p
    s["run_suit"][r] = suit
    s["run_lo"][r] = lo
    s["run_hi"][r] = hi
    return r


@nb.njit(cache=True)
def _do_discard(s, p, k) -> bool:
    """Discard a card of kind ``k``; True when the turn is over (8 or fewer cards left)."""
    c = hand_card_of_kind(s, p, k)
    detach(s, c)
    to_discard(s, c)
    if s["phase"] == PH_DISCARD:
        s["discarded"] = 1
    if s["hand_n"][p] > HAND_LIMIT:
        s["phase"] = PH_DDOWN
        return False
    return True


@nb.njit(cache=True)
def apply(s, a) -> bool:
    """Apply the legal English action ``a`` (from the Jack on) of the seat to move.

    Returns:
        True when the turn is over (the turn machinery ends it).
    """
    p = s["cur"]
    ph = s["phase"]
    if a < A_QUEEN:  # Jack
        i = a - A_JACK
        r = i // 11
        pos = i % 11 + 1
        c = s["run_card"][r, pos]
        detach(s, c)
        to_hand(s, c, p, True)
        s["ch_slot"] = r
        s["ch_pos"] = pos
        start_chance(s, CK_FD, 1, PH_OPTION)
    elif a < A_KING_STOCK:  # Queen
        i = a - A_QUEEN
        for j in range(2):
            c = s["pool"][QUEEN_PAIRS[i, j]]
            detach(s, c)
            to_hand(s, c, p, True)
        start_refill(s, False, PH_OPTION)
    elif a == A_KING_STOCK:
        start_chance(s, CK_DRAW, 2, PH_OPTION)
    elif a == A_KING_DISC:
        for _ in range(2):
            if s["disc_n"] > 0:
                c = s["disc"][s["disc_n"] - 1]
                detach(s, c)
                to_hand(s, c, p, True)
        s["phase"] = PH_OPTION
    elif a == A_SKIP_OPT:
        s["phase"] = PH_EXCH
    elif a < A_COMMIT:  # lay one card of the run being built
        k = a - A_SEL
        ok, lo, hi, amb = _sel_target(s, p, k)
        c = hand_card_of_kind(s, p, k)
        if s["build_lo"] == 0:
            s["build_suit"] = k // 10
            if ph == PH_OPTION:
                s["opt_used"] = 1
        q = _sel_pos(k, lo, amb)  # a lone ace is kept at position 1 until the second card decides
        if s["build_amb"] and hi == 11:  # a 10 next to a lone ace: the ace is high, move it
            s["build_card"][11] = s["build_card"][1]
            s["build_card"][1] = -1
        s["build_card"][q] = c
        s["build_lo"] = lo
        s["build_hi"] = hi
        s["build_amb"] = amb
        s["inbuild"][c] = 1
        s["pub"][c] = 1
        s["phase"] = PH_BUILD
    elif a == A_COMMIT:
        suit = s["build_suit"]
        r = _new_run(s, p, suit, s["build_lo"], s["build_hi"])
        hadb = False
        for q in range(s["build_lo"], s["build_hi"] + 1):
            c = s["build_card"][q]
            if s["bflag"][c]:
                hadb = True
            detach(s, c)
            to_run(s, c, r, q, False)
        mode = s["opt_used"]  # 1: option A's run, 2: option B's new run
        clear_build(s)
        if mode == 1:
            if s["token_loc"][p] == TOK_CENTRE:
                s["new_slot"] = r
                s["phase"] = PH_TOKEN
            else:
                s["phase"] = PH_EXCH
        else:
            s["b_run_done"] = 1
            if hadb:
                s["b_done"] = 1
            s["phase"] = PH_BPLACE
    elif a == A_TOKEN_RUN:
        s["token_loc"][p] = TOK_RUN
        s["token_idx"][p] = s["new_slot"]
        s["token_turn"][p] = s["turn"]
        s["new_slot"] = -1
        s["phase"] = PH_EXCH
    elif a == A_TOKEN_NO:
        s["new_slot"] = -1
        s["phase"] = PH_EXCH
    elif a < A_END_B:  # option B: take a pool line
        line = a - A_BLINE
        for i in range(3):
            c = s["pool"][POOL_LINES[line, i]]
            if c >= 0:
                detach(s, c)
                to_hand(s, c, p, True)
                s["bflag"][c] = 1
        s["token_loc"][p] = TOK_CENTRE
        s["token_idx"][p] = -1
        s["token_turn"][p] = -1
        s["opt_used"] = 2
        s["b_done"] = 0
        s["b_run_done"] = 0
        s["phase"] = PH_BPLACE
    elif a == A_END_B:
        for c in range(NUM_NUMBER):
            s["bflag"][c] = 0
        start_refill(s, True, PH_EXCH)
    elif a == A_C:
        line = s["token_idx"][p]
        c0 = s["pool"][POOL_LINES[line, 0]]
        ranks = np.zeros(3, dtype=np.int64)
        has2 = False
        for i in range(3):
            ranks[i] = rank_of(s["pool"][POOL_LINES[line, i]])
            if ranks[i] == 2:
                has2 = True
        lo = 11
        hi = 1
        for i in range(3):
            q = ranks[i] if ranks[i] != 1 else (1 if has2 else 11)
            lo = min(lo, q)
            hi = max(hi, q)
        r = _new_run(s, p, suit_of(c0), lo, hi)
        for i in range(3):
            c = s["pool"][POOL_LINES[line, i]]
            q = ranks[i] if ranks[i] != 1 else (1 if has2 else 11)
            detach(s, c)
            to_run(s, c, r, q, False)
        s["token_loc"][p] = TOK_CENTRE
        s["token_idx"][p] = -1
        s["token_turn"][p] = -1
        s["opt_used"] = 3
        start_refill(s, True, PH_EXCH)
    elif a < A_FD:  # add a hand card to an end of an own run
        i = a - A_ADD
        r = i // 2
        pos = extend_pos(s, r, i % 2)
        c = hand_card_of_kind(s, p, kind_at(s["run_suit"][r], pos))
        if s["bflag"][c]:
            s["b_done"] = 1
        detach(s, c)
        to_run(s, c, r, pos, False)
        if pos < s["run_lo"][r]:
            s["run_lo"][r] = pos
        else:
            s["run_hi"][r] = pos
    elif a < A_EXCH:  # replace a face-down card with its true card
        i = a - A_FD
        r = i // 11
        pos = i % 11 + 1
        k = kind_at(s["run_suit"][r], pos)
        c = -1
        owed = ph == PH_BPLACE and s["b_done"] == 0
        for cp in range(2):  # while option B is owed, keep the taken cards in hand
            d = cp * 40 + k
            if s["loc"][d] == LOC_HAND and s["lidx"][d] == p and not (owed and s["bflag"][d]):
                c = d
        if c < 0:
            c = hand_card_of_kind(s, p, k)
        fd = s["run_card"][r, pos]
        detach(s, fd)
        detach(s, c)
        to_run(s, c, r, pos, False)
        to_hand(s, fd, p, False)
    elif a < A_PTOKEN:  # exchange with the pool
        i = a - A_EXCH
        k = i // POOL_SLOTS
        slot = i % POOL_SLOTS
        c = hand_card_of_kind(s, p, k)
        made = _exchange_made_lines(s, slot, c)
        d = s["pool"][slot]
        detach(s, d)
        detach(s, c)
        to_pool(s, c, slot)
        to_hand(s, d, p, True)
        # the owner broke their own pool run: the token returns to the centre
        if s["token_loc"][p] == TOK_POOL and not pool_line_is_run(s, s["token_idx"][p]):
            s["token_loc"][p] = TOK_CENTRE
            s["token_idx"][p] = -1
            s["token_turn"][p] = -1
        s["exch_used"] = 1
        if made and s["token_loc"][p] == TOK_CENTRE:
            s["ptoken_lines"] = made
            s["phase"] = PH_PTOKEN
        else:
            s["phase"] = PH_DISCARD
    elif a < A_PTOKEN_NO:
        s["token_loc"][p] = TOK_POOL
        s["token_idx"][p] = a - A_PTOKEN
        s["token_turn"][p] = s["turn"]
        s["ptoken_lines"] = 0
        s["phase"] = PH_DISCARD
    elif a == A_PTOKEN_NO:
        s["ptoken_lines"] = 0
        s["phase"] = PH_DISCARD
    elif a == A_EXCH_SKIP:
        s["phase"] = PH_DISCARD
    elif a < A_END_TURN:
        return _do_discard(s, p, a - A_DISCARD)
    else:  # end the turn without discarding
        return True
    return False
