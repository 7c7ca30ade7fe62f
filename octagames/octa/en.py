"""English Octa rules ("The Game of 8"): the turn, the options, the win and the stock.

All English-only rules live here; the shared table pieces (cards, runs, pool
ring, action piles, tokens, face-down cards) are in
:mod:`octagames.octa.common`. The design (phases, action table, state layout)
is documented in :mod:`octagames.octa.rules`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.octa.common import (HAND_LIMIT, JACK, LOC_ADRAWN, LOC_AHIDDEN, LOC_DISCARD,
                                   LOC_HAND, LOC_STOCK, MAX_RUNS, NUM_CARDS,
                                   NUM_KINDS, NUM_NUMBER, NUM_QUEEN_PAIRS, POOL_LINES, POOL_SLOTS,
                                   QUEEN, QUEEN_PAIRS, TOK_CENTRE, TOK_POOL, TOK_RUN,
                                   action_tops_match, atype_of, detach, exchange_fits, extend_pos,
                                   free_run, free_run_slot, hand_card_of_kind, kind_at, kind_of,
                                   longest_run, place_action, pool_line_is_run, rank_of,
                                   restock_actions, run_faceup, slot_protected_by, suit_of,
                                   table_faceup, to_discard, to_hand, to_pool, to_run, to_stock)

# ---------------------------------------------------------------- phases
PH_DEAL = 0       # chance: the setup deal, card by card
PH_START = 1      # chance: who starts (outcome 0 or 1)
PH_CHANCE = 2     # chance inside a turn (see ch_kind)
PH_PILE = 3       # step 2: put the turned action card on pile 0 or 1
PH_USE = 4        # step 2: use the new action card (with its target) or not
PH_OPTION = 5     # step 3: option A (start laying a run), B, C, or none
PH_BUILD = 6      # laying a run card by card, then commit
PH_TOKEN = 7      # option A: put the token on the new run or not
PH_BPLACE = 8     # option B: place at least one taken card, then end option B
PH_EXCH = 9       # step 4: exchange with the pool or not
PH_PTOKEN = 10    # step 4: token on the pool run the exchange made, or not
PH_DISCARD = 11   # step 5: discard (or end the turn with fewer than 8 cards)
PH_DDOWN = 12     # step 5: hand limit, discard down to 8
PH_OVER = 13
NUM_PHASES = 14
PHASE_NAMES = ("setup deal", "choosing the start player", "chance", "action pile choice",
               "action card use", "options A/B/C", "laying a run", "token on the new run",
               "option B placement", "exchange with the pool", "token on a pool run",
               "discard", "hand limit discard", "game over")

# in-turn chance kinds
CK_DRAW = 0       # stock card(s) to the current player's hand (ch_left of them)
CK_ACTION = 1     # turn the top action card (outcome = action card id)
CK_REFILL = 2     # stock card to the first empty pool slot (refill order)
CK_FD = 3         # stock card face down into run ch_slot at ch_pos (the Jack)

SETUP_DEALS = POOL_SLOTS + 2 * HAND_LIMIT + 2  # 26 cards, then the start player

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
NUM_ACTIONS = A_END_TURN + 1                 # 1074

# Bound on the actions of one turn (chance included): see the module docstring of rules.py.
TURN_ACTION_BOUND = 300


# ---------------------------------------------------------------- chance flow
@nb.njit
def _finish_game(s, reason) -> None:
    """End the game: reason 1 win rule (winner set), 2/3 most face-up cards in runs."""
    s["terminal"] = 1
    s["phase"] = PH_OVER
    s["end_reason"] = reason
    if reason != 1:
        a = table_faceup(s, 0)
        b = table_faceup(s, 1)
        s["winner"] = 0 if a > b else (1 if b > a else -1)
    w = s["winner"]
    if w >= 0:
        s["returns"][w] = 1.0
        s["returns"][1 - w] = -1.0


@nb.njit
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


@nb.njit
def _after_stock_draw(s) -> None:
    """Handle the stock running out (first time: rebuild; second time: last turn)."""
    if s["stock_n"] > 0:
        return
    if s["exhaust"] == 0:
        s["exhaust"] = 1
        _rebuild_stock(s)
        if s["stock_n"] > 0:
            return
    s["exhaust"] = 2
    s["final_turn"] = 1


@nb.njit
def _first_empty_slot(s) -> int:
    for i in range(POOL_SLOTS):
        if s["pool"][i] < 0:
            return i
    return -1


@nb.njit
def _settle(s) -> None:
    """Leave chance states that have nothing left to draw (an empty stock does as much as it can)."""
    while s["phase"] == PH_CHANCE:
        k = s["ch_kind"]
        if k == CK_ACTION:
            return
        if k == CK_DRAW and s["ch_left"] > 0 and s["stock_n"] > 0:
            return
        if k == CK_REFILL and s["stock_n"] > 0 and _first_empty_slot(s) >= 0:
            return
        if k == CK_FD and s["stock_n"] > 0:
            return
        s["ch_left"] = 0
        nxt = s["ch_next"]
        if nxt == PH_PILE:  # the turn's draw is done: turn the action card next
            if s["astack_n"] == 0:
                restock_actions(s)
            s["ch_kind"] = CK_ACTION
        else:
            s["phase"] = nxt


@nb.njit
def _start_chance(s, kind, count, nxt) -> None:
    s["phase"] = PH_CHANCE
    s["ch_kind"] = kind
    s["ch_left"] = count
    s["ch_next"] = nxt
    _settle(s)


@nb.njit
def _begin_turn(s) -> None:
    s["turn"] += 1
    s["opt_used"] = 0
    s["exch_used"] = 0
    s["discarded"] = 0
    s["build_mode"] = 0
    s["b_done"] = 0
    s["b_run_done"] = 0
    s["new_slot"] = -1
    s["ptoken_lines"] = 0
    s["anew_pile"] = -1
    _start_chance(s, CK_DRAW, 1, PH_PILE)


@nb.njit
def _end_turn(s) -> None:
    for c in range(NUM_NUMBER):
        s["bflag"][c] = 0
    if s["final_turn"]:
        _finish_game(s, 2)
    elif s["turn"] >= s["max_turns"]:
        _finish_game(s, 3)
    else:
        s["cur"] = 1 - s["cur"]
        _begin_turn(s)


@nb.njit
def _start_refill(s, use_discard, nxt) -> None:
    """Refill empty pool spaces in refill order: discard pile first (top card first) if asked, then stock."""
    if use_discard:
        for i in range(POOL_SLOTS):
            if s["pool"][i] < 0 and s["disc_n"] > 0:
                c = s["disc"][s["disc_n"] - 1]
                detach(s, c)
                to_pool(s, c, i)
    _start_chance(s, CK_REFILL, 0, nxt)


# ---------------------------------------------------------------- chance kernels
@nb.njit
def chance_outcomes(s, actions, probs) -> int:
    """Outcomes of the pending chance node: stock cards, hidden action cards, or the start seat."""
    ph = s["phase"]
    n = 0
    if ph == PH_START:
        actions[0] = 0
        actions[1] = 1
        probs[0] = 0.5
        probs[1] = 0.5
        return 2
    if ph == PH_DEAL:
        action_card = s["deal_i"] >= POOL_SLOTS + 2 * HAND_LIMIT
    elif ph == PH_CHANCE:
        action_card = s["ch_kind"] == CK_ACTION
    else:
        return 0
    if action_card:
        for c in range(NUM_NUMBER, NUM_CARDS):
            if s["loc"][c] == LOC_AHIDDEN:
                actions[n] = c
                n += 1
    else:
        for c in range(NUM_NUMBER):
            if s["loc"][c] == LOC_STOCK:
                actions[n] = c
                n += 1
    for i in range(n):
        probs[i] = 1.0 / n
    return n


@nb.njit
def apply_chance(s, o) -> bool:
    """Apply chance outcome ``o``; False (``s`` untouched) if it is not possible."""
    ph = s["phase"]
    if ph == PH_START:
        if o != 0 and o != 1:
            return False
        s["start_player"] = o
        s["cur"] = o
        s["moves"] += 1
        _begin_turn(s)
        return True
    if o < 0 or o >= NUM_CARDS:
        return False
    if ph == PH_DEAL:
        i = s["deal_i"]
        if i < POOL_SLOTS + 2 * HAND_LIMIT:
            if o >= NUM_NUMBER or s["loc"][o] != LOC_STOCK:
                return False
            detach(s, o)
            if i < POOL_SLOTS:
                to_pool(s, o, i)
            else:
                to_hand(s, o, (i - POOL_SLOTS) // HAND_LIMIT, False)
        else:
            if o < NUM_NUMBER or s["loc"][o] != LOC_AHIDDEN:
                return False
            place_action(s, o, i - POOL_SLOTS - 2 * HAND_LIMIT)
            s["astack_n"] -= 1
        s["deal_i"] = i + 1
        if i + 1 == SETUP_DEALS:
            s["phase"] = PH_START
        s["moves"] += 1
        return True
    if ph != PH_CHANCE:
        return False
    k = s["ch_kind"]
    if k == CK_ACTION:
        if o < NUM_NUMBER or s["loc"][o] != LOC_AHIDDEN:
            return False
        s["loc"][o] = LOC_ADRAWN
        s["lidx"][o] = 0
        s["adrawn"] = o
        s["astack_n"] -= 1
        s["phase"] = PH_PILE
        s["moves"] += 1
        return True
    if o >= NUM_NUMBER or s["loc"][o] != LOC_STOCK:
        return False
    detach(s, o)
    if k == CK_DRAW:
        to_hand(s, o, s["cur"], False)
        s["ch_left"] -= 1
    elif k == CK_REFILL:
        to_pool(s, o, _first_empty_slot(s))
    else:  # CK_FD: the Jack's face-down card
        to_run(s, o, s["ch_slot"], s["ch_pos"], True)
        s["ch_kind"] = CK_DRAW  # nothing more to place: let _settle move on
        s["ch_left"] = 0
    s["moves"] += 1
    _after_stock_draw(s)
    _settle(s)
    return True


# ---------------------------------------------------------------- run laying helpers
@nb.njit
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


@nb.njit
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


@nb.njit
def _sel_target(s, p, k):
    """Where a card of kind ``k`` would go in the run being laid: (ok, new_lo, new_hi, amb)."""
    if s["hand_cnt"][p, k] <= 0 or hand_card_of_kind(s, p, k) < 0:
        return False, 0, 0, 0
    suit = k // 10
    r = k % 10 + 1
    if s["build_mode"] == 0 or s["build_lo"] == 0:
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


@nb.njit
def _sel_legal(s, p, k) -> bool:
    """Whether laying a card of kind ``k`` keeps the run being laid completable."""
    ok, lo, hi, amb = _sel_target(s, p, k)
    if not ok:
        return False
    suit = k // 10
    avail = np.zeros(12, dtype=np.bool_)
    bpos = np.zeros(12, dtype=np.bool_)
    _suit_avail(s, p, suit, avail, bpos)
    need_b = s["phase"] == PH_BPLACE or s["build_mode"] == 2
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


@nb.njit
def _sel_pos(k, new_lo, amb) -> int:
    """Position a card of kind ``k`` takes in the run being laid (new interval starts at ``new_lo``)."""
    if amb:
        return 1
    if k % 10 == 0:  # an ace: low if the run now starts at 1, otherwise high
        return 1 if new_lo == 1 else 11
    return k % 10 + 1


@nb.njit
def _build_has_b(s) -> bool:
    for q in range(s["build_lo"], s["build_hi"] + 1):
        c = s["build_card"][q]
        if c >= 0 and s["bflag"][c]:
            return True
    return False


# ---------------------------------------------------------------- option B feasibility
@nb.njit
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
@nb.njit
def _has_b_copy(s, p, k) -> bool:
    for cp in range(2):
        c = cp * 40 + k
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == p and s["bflag"][c]:
            return True
    return False


@nb.njit
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


@nb.njit
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


@nb.njit
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


@nb.njit
def gen_legal(s, p, out) -> int:
    """Write ``p``'s legal actions into ``out`` (zeroed first); return their number."""
    out[:] = 0
    if s["terminal"] or p != s["cur"]:
        return 0
    ph = s["phase"]
    n = 0
    if ph == PH_PILE:
        out[A_PILE] = 1
        out[A_PILE + 1] = 1
        return 2
    if ph == PH_USE:
        out[A_DECLINE] = 1
        n = 1
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
        if s["build_hi"] - s["build_lo"] + 1 >= 3 and (s["build_mode"] == 1 or _build_has_b(s)):
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
@nb.njit
def _check_win(s, p) -> None:
    """The win rule: an Octa (8+ face-up cards in one run) and 28+ face-up cards in runs."""
    if longest_run(s, p) >= 8 and table_faceup(s, p) >= 28:
        s["winner"] = p
        _finish_game(s, 1)


@nb.njit
def _new_run(s, p, suit, lo, hi) -> int:
    r = free_run_slot(s)
    s["run_owner"][r] = p
    s["run_suit"][r] = suit
    s["run_lo"][r] = lo
    s["run_hi"][r] = hi
    return r


@nb.njit
def _reset_build(s) -> None:
    s["build_mode"] = 0
    s["build_suit"] = -1
    s["build_lo"] = 0
    s["build_hi"] = 0
    s["build_amb"] = 0
    s["build_card"][:] = -1


@nb.njit
def _do_discard(s, p, k) -> None:
    c = hand_card_of_kind(s, p, k)
    detach(s, c)
    to_discard(s, c)
    if s["phase"] == PH_DISCARD:
        s["discarded"] = 1
    if s["hand_n"][p] > HAND_LIMIT:
        s["phase"] = PH_DDOWN
    else:
        _end_turn(s)


@nb.njit
def apply_player(s, a) -> bool:
    """Apply player action ``a`` for the seat to move; False (``s`` untouched) if illegal."""
    p = s["cur"]
    if a < 0 or a >= NUM_ACTIONS or s["terminal"] or s["phase"] < PH_PILE:
        return False
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    gen_legal(s, p, mask)
    if mask[a] == 0:
        return False
    return apply_legal_player(s, a)


@nb.njit
def apply_legal_player(s, a) -> bool:
    """:func:`apply_player` without the legality check: ``a`` must be legal for the seat to move."""
    p = s["cur"]
    s["moves"] += 1
    ph = s["phase"]
    if a < A_DECLINE:  # pile choice
        c = s["adrawn"]
        place_action(s, c, a - A_PILE)
        s["adrawn"] = -1
        s["anew_pile"] = a - A_PILE
        s["phase"] = PH_USE if action_tops_match(s) else PH_OPTION
    elif a == A_DECLINE:
        s["phase"] = PH_OPTION
    elif a < A_QUEEN:  # Jack
        i = a - A_JACK
        r = i // 11
        pos = i % 11 + 1
        c = s["run_card"][r, pos]
        detach(s, c)
        to_hand(s, c, p, True)
        s["ch_slot"] = r
        s["ch_pos"] = pos
        _start_chance(s, CK_FD, 1, PH_OPTION)
    elif a < A_KING_STOCK:  # Queen
        i = a - A_QUEEN
        for j in range(2):
            c = s["pool"][QUEEN_PAIRS[i, j]]
            detach(s, c)
            to_hand(s, c, p, True)
        _start_refill(s, False, PH_OPTION)
    elif a == A_KING_STOCK:
        _start_chance(s, CK_DRAW, 2, PH_OPTION)
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
        if s["build_mode"] == 0:
            s["build_mode"] = 2 if ph == PH_BPLACE else 1
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
        mode = s["build_mode"]
        _reset_build(s)
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
        _start_refill(s, True, PH_EXCH)
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
        _start_refill(s, True, PH_EXCH)
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
        if not s["terminal"]:
            _check_win(s, p)
        if s["terminal"]:
            return True
        _do_discard(s, p, a - A_DISCARD)
        return True
    else:  # end the turn without discarding
        _check_win(s, p)
        if not s["terminal"]:
            _end_turn(s)
        return True
    if not s["terminal"]:
        _check_win(s, p)
    return True
