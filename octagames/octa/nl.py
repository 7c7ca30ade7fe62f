"""Dutch Octa rules (``rules="nl"``, rulebook version 18-09-25): the turn, the actions, the reserve, the end.

All Dutch-only rules live here; the shared table pieces (cards, runs, pool
ring = the *pot*, action piles, tokens, face-down cards, the record) are in
:mod:`octagames.octa.common`, and the setup deal is the English one. The rule
interpretations are traced in ``docs/rules/octa_nl.md``.

The Dutch rules share the engine's fixed action space (1074 ids) and
observation size (1818) with the English rules; the ids below are the Dutch
action table (``rules.action_to_string`` names them per rule set).

Dutch phases (``phase``)
------------------------
0 setup deal, 1 start player, 2 chance (``ch_kind``: 0 stock draw to hand,
1 turn the action card, 2 pot refill from the stock, 3 the Jack's face-down
replacement, 4 the Jack's joker, 5 turning a face-up action card after the
reshuffle), 3 action pile choice, 4 action card use, 5 the turn's main phase
(step 2, step 3, step 4, attaching, moves, joins, discard), 6 laying a run,
7 King: picking reserve cards, 8 the Jack's joker must be used, 9 the extra
card after doubling, 10 putting hand cards over 8 into the reserve, 11 taking
reserve cards back (fewer than 8 in hand), 13 game over.

Dutch action table
------------------
=========  =====  =========================================================
first id   count  meaning
=========  =====  =========================================================
0          2      put the turned action card on pile 0 / 1
2          1      do not use the action card(s)
3          286    Jack 1: take the face-up card at run slot*11 + (pos-1) of an
                  opponent's run without token (a face-down stock card replaces it)
289        1      Jack 2: lay a face-down stock card as a joker of the Jack's suit
290        8      Queen 1: take the top card of pot slot i
298        52     Queen 2: take the end card run slot*2 + end (0 low, 1 high)
350        1      King: take 2 stock cards
351        2      King: pick 2 cards from a reserve (0 own, 1 opponent's)
353        40     King: pick a reserve card of kind k
393        4      step 2: take the top cards of pot line 0..3
397        44     lay the hand card at suit*11 + (pos-1) in the run being laid
                  (starts a new run)
441        11     lay the joker at position pos of the run being laid
452        1      commit the run being laid, without token
453        1      commit the run being laid, with your token (step 3)
454        52     Jack 2: attach the joker and the hand card after it at run slot*2 + end
506        52     attach a hand card at run slot*2 + end
558        286    replace the face-down card at run slot*11 + (pos-1) (it goes to your hand)
844        32     step 4 doubling: hand card of suit s on pot slot i: i*4 + s
876        32     step 4 swapping: hand card of suit s for pot slot i: i*4 + s
908        3      after doubling: top discard / a stock card / nothing
911        40     discard kind k (phase 10: put kind k into the reserve)
951        1      end the turn without discarding (8 or fewer in hand) / stop taking back
952        40     take a reserve card of kind k back into hand
992        52     move onto run slot*2 + end the card that fits, from the end of
                  another run of the suit (opponent's runs first, then lowest slot)
1044       26     join own run slot r with the own run that continues it
=========  =====  =========================================================
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.octa.common import (HAND_LIMIT, JACK, KING, LOC_ADRAWN, LOC_AHIDDEN, LOC_HAND, LOC_JOKER,
                                   LOC_RESERVE, LOC_STOCK, LOC_UNDER, MAX_RUNS, NUM_CARDS, NUM_KINDS, NUM_NUMBER, POOL_LINES, POOL_SLOTS, QUEEN,
                                   TOK_CENTRE, TOK_RUN, action_tops_match, atype_of, detach,
                                   extend_pos, free_run, free_run_slot, hand_card_of_kind,
                                   kind_at, kind_of, place_action, rank_of, run_faceup, suit_of,
                                   table_faceup, to_discard, to_hand, to_pool, to_run)

# ---------------------------------------------------------------- phases
PH_DEAL = 0
PH_START = 1
PH_CHANCE = 2
PH_PILE = 3
PH_USE = 4
PH_MAIN = 5
PH_BUILD = 6
PH_KPICK = 7
PH_JOKER = 8
PH_XTRA = 9
PH_RESPUT = 10
PH_RESBACK = 11
PH_OVER = 13
PHASE_NAMES = ("setup deal", "choosing the start player", "chance", "action pile choice",
               "action card use", "steps 2-4, attaching, discard", "laying a run",
               "King: picking reserve cards", "using the Jack's joker", "extra card after doubling",
               "putting cards over 8 into the reserve", "taking reserve cards back", "-", "game over")

CK_DRAW = 0
CK_ACTION = 1
CK_REFILL = 2
CK_FD = 3
CK_JOKER = 4
CK_AFLIP = 5

SETUP_DEALS = POOL_SLOTS + 2 * HAND_LIMIT + 2
MAX_MOVES = 8  # card moves between runs per turn (keeps every turn finite)

# ---------------------------------------------------------------- action table
N_PILE = 0
N_DECLINE = 2
N_JACK = 3
N_JOKER = N_JACK + MAX_RUNS * 11          # 289
N_QPOT = N_JOKER + 1                      # 290
N_QEND = N_QPOT + POOL_SLOTS              # 298
N_KSTOCK = N_QEND + MAX_RUNS * 2          # 350
N_KRES = N_KSTOCK + 1                     # 351
N_PICK = N_KRES + 2                       # 353
N_STEP2 = N_PICK + NUM_KINDS              # 393
N_LAY = N_STEP2 + 4                       # 397
N_JPOS = N_LAY + 44                       # 441
N_COMMIT = N_JPOS + 11                    # 452
N_COMMIT_TOK = N_COMMIT + 1               # 453
N_JATT = N_COMMIT_TOK + 1                 # 454
N_ADD = N_JATT + MAX_RUNS * 2             # 506
N_FD = N_ADD + MAX_RUNS * 2               # 558
N_DBL = N_FD + MAX_RUNS * 11              # 844
N_SWAP = N_DBL + POOL_SLOTS * 4           # 876
N_XDISC = N_SWAP + POOL_SLOTS * 4         # 908
N_XSTOCK = N_XDISC + 1                    # 909
N_XNONE = N_XSTOCK + 1                    # 910
N_DISCARD = N_XNONE + 1                   # 911
N_END = N_DISCARD + NUM_KINDS             # 951
N_RESBACK = N_END + 1                     # 952
N_MOVE = N_RESBACK + NUM_KINDS            # 992
N_JOIN = N_MOVE + MAX_RUNS * 2            # 1044
N_USED = N_JOIN + MAX_RUNS                # 1070 (<= NUM_ACTIONS = 1074)
NUM_ACTIONS = 1074


# ---------------------------------------------------------------- small helpers
@nb.njit
def has_token(s, r) -> bool:
    """Whether run ``r`` carries a token."""
    for q in range(2):
        if s["token_loc"][q] == TOK_RUN and s["token_idx"][q] == r:
            return True
    return False


@nb.njit
def octa_mask(s, p) -> int:
    """Bitmask of ``p``'s run slots holding an Octa (8+ face-up cards)."""
    m = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] == p and run_faceup(s, r) >= 8:
            m |= 1 << r
    return m


@nb.njit
def score(s, p) -> int:
    """The stock-out score: face-up cards in ``p``'s runs minus one per reserve card."""
    return table_faceup(s, p) - s["res_n"][p]


@nb.njit
def _finish_game(s, reason) -> None:
    """End the game: reason 1 = empty hand with an Octa (winner set), 2 stock out, 3 turn cap."""
    s["terminal"] = 1
    s["phase"] = PH_OVER
    s["end_reason"] = reason
    if reason != 1:
        a = score(s, 0)
        b = score(s, 1)
        s["winner"] = 0 if a > b else (1 if b > a else -1)
    w = s["winner"]
    if w >= 0:
        s["returns"][w] = 1.0
        s["returns"][1 - w] = -1.0


@nb.njit
def _check_win(s, p) -> None:
    """Empty hand, empty reserve, and an Octa from the turn's start that still has 8 face-up cards."""
    if s["hand_n"][p] != 0 or s["res_n"][p] != 0:
        return
    m = s["octa_mask"][p]
    for r in range(MAX_RUNS):
        if (m >> r) & 1 and s["run_owner"][r] == p and run_faceup(s, r) >= 8:
            s["winner"] = p
            _finish_game(s, 1)
            return


@nb.njit
def _first_empty_slot(s) -> int:
    for i in range(POOL_SLOTS):
        if s["pool"][i] < 0:
            return i
    return -1


@nb.njit
def _take_pot_top(s, slot, p) -> None:
    """Take the top card of pot ``slot`` into ``p``'s hand; a covered card underneath becomes the top."""
    c = s["pool"][slot]
    detach(s, c)
    to_hand(s, c, p, True)
    u = s["under"][slot]
    if u >= 0:
        detach(s, u)
        to_pool(s, u, slot)


@nb.njit
def _reshuffle_actions(s) -> None:
    """All 24 action cards become hidden again: 8 set aside, 2 to turn face up, 14 in the stack."""
    for c in range(NUM_NUMBER, NUM_CARDS):
        s["loc"][c] = LOC_AHIDDEN
        s["lidx"][c] = 0
    s["apile"][:, :] = -1
    s["apile_n"][:] = 0
    s["adrawn"] = -1
    s["anew_pile"] = -1
    s["astack_n"] = 16
    s["aside_n"] = 8


# ---------------------------------------------------------------- chance flow
@nb.njit
def _goto(s, nxt) -> None:
    """Enter phase ``nxt``; entering the main phase right after the last action card was turned reshuffles."""
    if nxt == PH_MAIN and s["astack_n"] == 0:
        _reshuffle_actions(s)
        # two action cards to turn (set directly: calling _start_chance here would make the kernels
        # mutually recursive, which numba's disk cache cannot reload)
        s["phase"] = PH_CHANCE
        s["ch_kind"] = CK_AFLIP
        s["ch_left"] = 2
        s["ch_next"] = PH_MAIN
        return
    s["phase"] = nxt


@nb.njit
def _settle(s) -> None:
    """Leave chance states with nothing left to draw (an empty stock gives what it can)."""
    while s["phase"] == PH_CHANCE:
        k = s["ch_kind"]
        if k == CK_ACTION:
            return
        if k == CK_AFLIP and s["ch_left"] > 0:
            return
        if (k == CK_DRAW or k == CK_FD or k == CK_JOKER) and s["ch_left"] > 0 and s["stock_n"] > 0:
            return
        if k == CK_REFILL and s["stock_n"] > 0 and _first_empty_slot(s) >= 0:
            return
        s["ch_left"] = 0
        nxt = s["ch_next"]
        if nxt == PH_PILE:
            s["ch_kind"] = CK_ACTION
        else:
            _goto(s, nxt)


@nb.njit
def _start_chance(s, kind, count, nxt) -> None:
    s["phase"] = PH_CHANCE
    s["ch_kind"] = kind
    s["ch_left"] = count
    s["ch_next"] = nxt
    _settle(s)


@nb.njit
def begin_turn(s) -> None:
    """Start the turn of seat ``cur``: note its Octas, then draw one stock card."""
    s["turn"] += 1
    s["opt_used"] = 0
    s["exch_used"] = 0
    s["discarded"] = 0
    s["build_mode"] = 0
    s["b_done"] = 0
    s["joker_used"] = 0
    s["jok_pos"] = -1
    s["moves_turn"] = 0
    s["anew_pile"] = -1
    s["octa_mask"][s["cur"]] = octa_mask(s, s["cur"])
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
        begin_turn(s)


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
        action_card = s["ch_kind"] == CK_ACTION or s["ch_kind"] == CK_AFLIP
    else:
        return 0
    lo = NUM_NUMBER if action_card else 0
    hi = NUM_CARDS if action_card else NUM_NUMBER
    want = LOC_AHIDDEN if action_card else LOC_STOCK
    for c in range(lo, hi):
        if s["loc"][c] == want:
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
        begin_turn(s)
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
    if k == CK_ACTION or k == CK_AFLIP:
        if o < NUM_NUMBER or s["loc"][o] != LOC_AHIDDEN:
            return False
        s["astack_n"] -= 1
        s["moves"] += 1
        if k == CK_ACTION:
            s["loc"][o] = LOC_ADRAWN
            s["lidx"][o] = 0
            s["adrawn"] = o
            s["phase"] = PH_PILE
        else:
            place_action(s, o, 2 - s["ch_left"])
            s["ch_left"] -= 1
            _settle(s)
        return True
    if o >= NUM_NUMBER or s["loc"][o] != LOC_STOCK:
        return False
    detach(s, o)
    p = s["cur"]
    if k == CK_DRAW:
        to_hand(s, o, p, False)
        s["ch_left"] -= 1
    elif k == CK_REFILL:
        to_pool(s, o, _first_empty_slot(s))
    elif k == CK_FD:
        to_run(s, o, s["ch_slot"], s["ch_pos"], True)
        s["ch_left"] = 0
    else:  # CK_JOKER
        s["loc"][o] = LOC_JOKER
        s["lidx"][o] = p
        s["ch_left"] = 0
    s["moves"] += 1
    if s["stock_n"] == 0:  # whoever took the last stock card finishes this turn, then the game is scored
        s["exhaust"] = 1
        s["final_turn"] = 1
    _settle(s)
    return True


# ---------------------------------------------------------------- runs being laid
@nb.njit
def _interval_exists(avail, bpos, nlo, nhi, need_b, jok) -> bool:
    """A run [a, b] (3..10 positions) containing [nlo, nhi] (any when nlo == 0) with exactly
    ``jok`` unavailable positions (the joker fills it) and, with ``need_b``, a marked position."""
    a_hi = nlo if nlo > 0 else 11
    for a in range(1, a_hi + 1):
        b_lo = max(nhi, a + 2) if nlo > 0 else a + 2
        for b in range(b_lo, 12):
            if b - a + 1 > 10:
                break
            miss = 0
            hasb = not need_b
            for q in range(a, b + 1):
                if not avail[q]:
                    miss += 1
                elif bpos[q]:
                    hasb = True
            if miss == jok and hasb:
                return True
    return False


@nb.njit
def _free_copy(s, p, k, want_b) -> int:
    """A hand card of kind ``k`` not in the run being laid (-1 none); ``want_b``: a step-2 card only."""
    best = -1
    for cp in range(2):
        c = cp * 40 + k
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == p and s["inbuild"][c] == 0:
            if want_b and s["bflag"][c] == 0:
                continue
            if best < 0 or s["bflag"][c] > s["bflag"][best]:
                best = c
    return best


@nb.njit
def _owed(s) -> bool:
    """Step 2 was played and none of its cards has reached the table yet."""
    return s["opt_used"] == 2 and s["b_done"] == 0


@nb.njit
def _lay_ok(s, p, suit, q, is_joker) -> bool:
    """Whether laying a hand card (or the joker) at position ``q`` keeps the run being laid completable."""
    lo = s["build_lo"]
    hi = s["build_hi"]
    if lo > 0:
        if suit != s["build_suit"] or hi - lo + 1 >= 10:
            return False
        if q != lo - 1 and q != hi + 1:
            return False
        nlo = min(lo, q)
        nhi = max(hi, q)
    else:
        nlo = q
        nhi = q
    if nlo < 1 or nhi > 11:
        return False
    avail = np.zeros(12, dtype=np.bool_)
    bpos = np.zeros(12, dtype=np.bool_)
    for x in range(1, 12):
        c = _free_copy(s, p, kind_at(suit, x), False)
        if c >= 0:
            avail[x] = True
            bpos[x] = s["bflag"][c] == 1
    if lo > 0:
        for x in range(lo, hi + 1):
            avail[x] = True
            c = s["build_card"][x]
            bpos[x] = x != s["jok_pos"] and c >= 0 and s["bflag"][c] == 1
    if is_joker:
        avail[q] = True
        bpos[q] = False
    else:
        c = _free_copy(s, p, kind_at(suit, q), False)
        if c < 0:
            return False
        avail[q] = True
        bpos[q] = s["bflag"][c] == 1
    mode = s["build_mode"] if lo > 0 else (2 if s["phase"] == PH_JOKER else 1)
    jok = 1 if (mode == 2 and s["jok_pos"] < 0 and not is_joker) else 0
    return _interval_exists(avail, bpos, nlo, nhi, _owed(s), jok)


@nb.njit
def _build_has_b(s) -> bool:
    for q in range(s["build_lo"], s["build_hi"] + 1):
        c = s["build_card"][q]
        if q != s["jok_pos"] and c >= 0 and s["bflag"][c]:
            return True
    return False


@nb.njit
def _joker_suit(s) -> int:
    pile = s["anew_pile"]
    return suit_of(s["apile"][pile, s["apile_n"][pile] - 1])


@nb.njit
def _joker_attach_ok(s, p, r, end) -> bool:
    """The joker at the end of run ``r`` and the hand card after it (run of the Jack's suit, no token)."""
    if s["run_owner"][r] < 0 or has_token(s, r) or s["run_suit"][r] != _joker_suit(s):
        return False
    lo = s["run_lo"][r]
    hi = s["run_hi"][r]
    if hi - lo + 1 + 2 > 10:
        return False
    if end == 0:
        q = lo - 2
        if q < 1:
            return False
    else:
        q = hi + 2
        if q > 11:
            return False
    return _free_copy(s, p, kind_at(s["run_suit"][r], q), False) >= 0


@nb.njit
def _joker_feasible(s, p) -> bool:
    suit = _joker_suit(s)
    for r in range(MAX_RUNS):
        for end in range(2):
            if _joker_attach_ok(s, p, r, end):
                return True
    avail = np.zeros(12, dtype=np.bool_)
    bpos = np.zeros(12, dtype=np.bool_)
    for x in range(1, 12):
        avail[x] = _free_copy(s, p, kind_at(suit, x), False) >= 0
    return _interval_exists(avail, bpos, 0, 0, False, 1)


@nb.njit
def _s2_feasible(s, p, line) -> bool:
    """Whether a card of pot ``line`` (top cards) can reach the table at once after step 2."""
    cnt = np.zeros(NUM_KINDS, dtype=np.int64)
    bc = np.zeros(NUM_KINDS, dtype=np.int64)
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == p:
            cnt[kind_of(c)] += 1
    anyc = False
    for i in range(3):
        c = s["pool"][POOL_LINES[line, i]]
        if c >= 0:
            cnt[kind_of(c)] += 1
            bc[kind_of(c)] += 1
            anyc = True
    if not anyc:
        return False
    for k in range(NUM_KINDS):
        if bc[k] == 0:
            continue
        for r in range(MAX_RUNS):
            if s["run_owner"][r] < 0:
                continue
            suit = s["run_suit"][r]
            own_token = s["token_loc"][p] == TOK_RUN and s["token_idx"][p] == r  # it leaves with step 2
            if own_token or not has_token(s, r):
                for end in range(2):
                    pos = extend_pos(s, r, end)
                    if pos > 0 and kind_at(suit, pos) == k:
                        return True
            for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
                if s["run_fd"][r, pos] and kind_at(suit, pos) == k:
                    return True
    avail = np.zeros(12, dtype=np.bool_)
    bpos = np.zeros(12, dtype=np.bool_)
    for suit in range(4):
        anyb = False
        for x in range(1, 12):
            avail[x] = cnt[kind_at(suit, x)] > 0
            bpos[x] = bc[kind_at(suit, x)] > 0
            anyb = anyb or bpos[x]
        if anyb and _interval_exists(avail, bpos, 0, 0, True, 0):
            return True
    return False


@nb.njit
def _move_source(s, d, end):
    """(source run, its end) whose end card moves onto run ``d`` at ``end``; (-1, -1) if none.

    Opponent's runs are preferred to the mover's own, then the lowest slot,
    then the low end. The source keeps at least 3 cards; only face-up cards move.
    """
    if s["run_owner"][d] < 0 or has_token(s, d):
        return -1, -1
    pos = extend_pos(s, d, end)
    if pos < 0:
        return -1, -1
    suit = s["run_suit"][d]
    k = kind_at(suit, pos)
    p = s["cur"]
    for pref in range(2):
        for r in range(MAX_RUNS):
            if r == d or s["run_owner"][r] < 0 or s["run_suit"][r] != suit:
                continue
            if (s["run_owner"][r] == p) != (pref == 1):
                continue
            lo = s["run_lo"][r]
            hi = s["run_hi"][r]
            if hi - lo + 1 < 4 or run_faceup(s, r) < 2:  # (ours) a face-up card stays
                continue
            if s["run_fd"][r, lo] == 0 and kind_at(suit, lo) == k:
                return r, 0
            if s["run_fd"][r, hi] == 0 and kind_at(suit, hi) == k:
                return r, 1
    return -1, -1


@nb.njit
def _join_partner(s, p, r) -> int:
    """The own run (no token) that starts right after own run ``r`` ends (lowest slot); -1 if none."""
    if s["run_owner"][r] != p or has_token(s, r):
        return -1
    for u in range(MAX_RUNS):
        if u == r or s["run_owner"][u] != p or s["run_suit"][u] != s["run_suit"][r] or has_token(s, u):
            continue
        if s["run_lo"][u] == s["run_hi"][r] + 1 and s["run_hi"][u] - s["run_lo"][r] + 1 <= 10:
            return u
    return -1


# ---------------------------------------------------------------- legal actions
@nb.njit
def _gen_free(s, p, out, owed) -> int:
    """Attaching, face-down replacements, moves, joins, starting runs (only step-2 placements while owed)."""
    n = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] < 0:
            continue
        suit = s["run_suit"][r]
        if not has_token(s, r):
            for end in range(2):
                pos = extend_pos(s, r, end)
                if pos < 0:
                    continue
                if _free_copy(s, p, kind_at(suit, pos), owed) >= 0:
                    out[N_ADD + r * 2 + end] = 1
                    n += 1
                if not owed and s["moves_turn"] < MAX_MOVES:
                    src, _e = _move_source(s, r, end)
                    if src >= 0:
                        out[N_MOVE + r * 2 + end] = 1
                        n += 1
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
            if s["run_fd"][r, pos] and _free_copy(s, p, kind_at(suit, pos), owed) >= 0:
                out[N_FD + r * 11 + pos - 1] = 1
                n += 1
        if not owed and _join_partner(s, p, r) >= 0:
            out[N_JOIN + r] = 1
            n += 1
    for suit in range(4):
        for q in range(1, 12):
            if _lay_ok(s, p, suit, q, False):
                out[N_LAY + suit * 11 + q - 1] = 1
                n += 1
    return n


@nb.njit
def gen_legal(s, p, out) -> int:
    """Write ``p``'s legal actions into ``out`` (zeroed first); return their number."""
    out[:] = 0
    if s["terminal"] or p != s["cur"]:
        return 0
    ph = s["phase"]
    n = 0
    if ph == PH_PILE:
        out[N_PILE] = 1
        out[N_PILE + 1] = 1
        return 2
    if ph == PH_USE:
        out[N_DECLINE] = 1
        n = 1
        has_t = np.zeros(3, dtype=np.bool_)
        for pile in range(2):
            has_t[atype_of(s["apile"][pile, s["apile_n"][pile] - 1])] = True
        if has_t[JACK] and s["stock_n"] > 0:
            for r in range(MAX_RUNS):
                if s["run_owner"][r] != 1 - p or has_token(s, r) or run_faceup(s, r) < 2:
                    continue
                for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
                    if s["run_fd"][r, pos] == 0:
                        out[N_JACK + r * 11 + pos - 1] = 1
                        n += 1
            if _joker_feasible(s, p):
                out[N_JOKER] = 1
                n += 1
        if has_t[QUEEN]:
            for i in range(POOL_SLOTS):
                if s["pool"][i] >= 0:
                    out[N_QPOT + i] = 1
                    n += 1
            for r in range(MAX_RUNS):
                if s["run_owner"][r] < 0 or s["run_hi"][r] - s["run_lo"][r] + 1 < 4 or run_faceup(s, r) < 2:
                    continue
                for end in range(2):
                    pos = s["run_lo"][r] if end == 0 else s["run_hi"][r]
                    if s["run_fd"][r, pos] == 0:
                        out[N_QEND + r * 2 + end] = 1
                        n += 1
        if has_t[KING]:
            if s["stock_n"] > 0:
                out[N_KSTOCK] = 1
                n += 1
            for rel in range(2):
                seat = p if rel == 0 else 1 - p
                if s["res_n"][seat] > 0:
                    out[N_KRES + rel] = 1
                    n += 1
        return n
    if ph == PH_KPICK:
        seat = s["kpick_seat"]
        for c in range(NUM_NUMBER):
            if s["loc"][c] == LOC_RESERVE and s["lidx"][c] == seat and out[N_PICK + kind_of(c)] == 0:
                out[N_PICK + kind_of(c)] = 1
                n += 1
        return n
    if ph == PH_JOKER:
        for r in range(MAX_RUNS):
            for end in range(2):
                if _joker_attach_ok(s, p, r, end):
                    out[N_JATT + r * 2 + end] = 1
                    n += 1
        suit = _joker_suit(s)
        for q in range(1, 12):
            if _lay_ok(s, p, suit, q, True):
                out[N_JPOS + q - 1] = 1
                n += 1
            if _lay_ok(s, p, suit, q, False):
                out[N_LAY + suit * 11 + q - 1] = 1
                n += 1
        return n
    if ph == PH_BUILD:
        suit = s["build_suit"]
        for q in range(1, 12):
            if _lay_ok(s, p, suit, q, False):
                out[N_LAY + suit * 11 + q - 1] = 1
                n += 1
        if s["build_mode"] == 2 and s["jok_pos"] < 0:
            for q in range(1, 12):
                if _lay_ok(s, p, suit, q, True):
                    out[N_JPOS + q - 1] = 1
                    n += 1
        ok = s["build_hi"] - s["build_lo"] + 1 >= 3
        if s["build_mode"] == 2 and s["jok_pos"] < 0:
            ok = False
        if _owed(s) and not _build_has_b(s):
            ok = False
        if ok:
            out[N_COMMIT] = 1
            n += 1
            if (s["token_loc"][p] == TOK_CENTRE and s["opt_used"] == 0 and s["exch_used"] == 0):
                out[N_COMMIT_TOK] = 1
                n += 1
        return n
    if ph == PH_MAIN:
        owed = _owed(s)
        n = _gen_free(s, p, out, owed)
        if owed:
            return n
        if (s["token_loc"][p] == TOK_RUN and s["token_turn"][p] < s["turn"] and s["opt_used"] == 0
                and s["exch_used"] == 0 and s["joker_used"] == 0):
            for line in range(4):
                if _s2_feasible(s, p, line):
                    out[N_STEP2 + line] = 1
                    n += 1
        if s["exch_used"] == 0:
            for slot in range(POOL_SLOTS):
                c = s["pool"][slot]
                if c < 0:
                    continue
                for suit in range(4):
                    k = suit * 10 + rank_of(c) - 1
                    if s["hand_cnt"][p, k] <= 0:
                        continue
                    if suit != suit_of(c) and s["under"][slot] < 0:
                        out[N_DBL + slot * 4 + suit] = 1
                        n += 1
                    if k != kind_of(c):
                        out[N_SWAP + slot * 4 + suit] = 1
                        n += 1
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] > 0:
                out[N_DISCARD + k] = 1
                n += 1
        if s["hand_n"][p] <= HAND_LIMIT:
            out[N_END] = 1
            n += 1
        return n
    if ph == PH_XTRA:
        out[N_XNONE] = 1
        n = 1
        if s["disc_n"] > 0:
            out[N_XDISC] = 1
            n += 1
        if s["stock_n"] > 0:
            out[N_XSTOCK] = 1
            n += 1
        return n
    if ph == PH_RESPUT:
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] > 0:
                out[N_DISCARD + k] = 1
                n += 1
        return n
    if ph == PH_RESBACK:
        out[N_END] = 1
        n = 1
        for c in range(NUM_NUMBER):
            if s["loc"][c] == LOC_RESERVE and s["lidx"][c] == p and out[N_RESBACK + kind_of(c)] == 0:
                out[N_RESBACK + kind_of(c)] = 1
                n += 1
        return n
    return 0


# ---------------------------------------------------------------- applying a player action
@nb.njit
def _reset_build(s) -> None:
    s["build_mode"] = 0
    s["build_suit"] = -1
    s["build_lo"] = 0
    s["build_hi"] = 0
    s["build_amb"] = 0
    s["build_card"][:] = -1
    s["jok_pos"] = -1


@nb.njit
def _joker_card(s, p) -> int:
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_JOKER and s["lidx"][c] == p:
            return c
    return -1


@nb.njit
def _placed_b(s, c) -> None:
    """Card ``c`` reached the table; a step-2 card settles the obligation and the pot is refilled."""
    if s["bflag"][c] and _owed(s):
        s["b_done"] = 1
        for d in range(NUM_NUMBER):
            s["bflag"][d] = 0
        # refill the empty pot spaces: discard pile first (top first), then the stock
        for i in range(POOL_SLOTS):
            if s["pool"][i] < 0 and s["disc_n"] > 0:
                d = s["disc"][s["disc_n"] - 1]
                detach(s, d)
                to_pool(s, d, i)
        _start_chance(s, CK_REFILL, 0, PH_MAIN)


@nb.njit
def _after_hand(s, p) -> None:
    """The eight-card rule after the discard (or after ending without one)."""
    if s["hand_n"][p] > HAND_LIMIT:
        s["phase"] = PH_RESPUT
    elif s["hand_n"][p] < HAND_LIMIT and s["res_n"][p] > 0:
        s["phase"] = PH_RESBACK
    else:
        _end_turn(s)


@nb.njit
def apply_player(s, a) -> bool:
    """Apply Dutch player action ``a`` for the seat to move; False (``s`` untouched) if illegal."""
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
    if a < N_DECLINE:
        place_action(s, s["adrawn"], a - N_PILE)
        s["adrawn"] = -1
        s["anew_pile"] = a - N_PILE
        if action_tops_match(s):
            s["phase"] = PH_USE
        else:
            _goto(s, PH_MAIN)
    elif a == N_DECLINE:
        _goto(s, PH_MAIN)
    elif a < N_JOKER:  # Jack 1: steal a run card, a face-down stock card replaces it
        i = a - N_JACK
        r = i // 11
        pos = i % 11 + 1
        c = s["run_card"][r, pos]
        detach(s, c)
        to_hand(s, c, p, True)
        s["ch_slot"] = r
        s["ch_pos"] = pos
        _start_chance(s, CK_FD, 1, PH_MAIN)
    elif a == N_JOKER:
        s["joker_used"] = 1
        _start_chance(s, CK_JOKER, 1, PH_JOKER)
    elif a < N_QEND:
        _take_pot_top(s, a - N_QPOT, p)
        _start_chance(s, CK_REFILL, 0, PH_MAIN)
    elif a < N_KSTOCK:
        i = a - N_QEND
        r = i // 2
        if i % 2 == 0:
            pos = s["run_lo"][r]
            s["run_lo"][r] = pos + 1
        else:
            pos = s["run_hi"][r]
            s["run_hi"][r] = pos - 1
        c = s["run_card"][r, pos]
        detach(s, c)
        to_hand(s, c, p, True)
        _goto(s, PH_MAIN)
    elif a == N_KSTOCK:
        _start_chance(s, CK_DRAW, 2, PH_MAIN)
    elif a < N_PICK:
        seat = p if a == N_KRES else 1 - p
        s["kpick_seat"] = seat
        s["kpick_left"] = min(2, s["res_n"][seat])
        s["phase"] = PH_KPICK
    elif a < N_STEP2:
        k = a - N_PICK
        for c in range(NUM_NUMBER):
            if s["loc"][c] == LOC_RESERVE and s["lidx"][c] == s["kpick_seat"] and kind_of(c) == k:
                detach(s, c)
                to_hand(s, c, p, True)
                break
        s["kpick_left"] -= 1
        if s["kpick_left"] <= 0 or s["res_n"][s["kpick_seat"]] == 0:
            s["kpick_seat"] = -1
            s["kpick_left"] = 0
            _goto(s, PH_MAIN)
    elif a < N_LAY:  # step 2
        line = a - N_STEP2
        for i in range(3):
            slot = POOL_LINES[line, i]
            c = s["pool"][slot]
            if c >= 0:
                _take_pot_top(s, slot, p)
                s["bflag"][c] = 1
        s["token_loc"][p] = TOK_CENTRE
        s["token_idx"][p] = -1
        s["token_turn"][p] = s["turn"]  # back in the pot this turn: not usable again this turn
        s["opt_used"] = 2
        s["b_done"] = 0
    elif a < N_COMMIT:  # lay a hand card or the joker in the run being laid
        if a < N_JPOS:
            suit = (a - N_LAY) // 11
            q = (a - N_LAY) % 11 + 1
            c = _free_copy(s, p, kind_at(suit, q), False)
            s["inbuild"][c] = 1
            s["pub"][c] = 1
        else:
            suit = _joker_suit(s)
            q = a - N_JPOS + 1
            c = _joker_card(s, p)
            s["jok_pos"] = q
        if s["build_lo"] == 0:
            s["build_mode"] = 2 if ph == PH_JOKER else 1
            s["build_suit"] = suit
            s["build_lo"] = q
            s["build_hi"] = q
        else:
            s["build_lo"] = min(s["build_lo"], q)
            s["build_hi"] = max(s["build_hi"], q)
        s["build_card"][q] = c
        s["phase"] = PH_BUILD
    elif a <= N_COMMIT_TOK:
        r = free_run_slot(s)
        s["run_owner"][r] = p
        s["run_suit"][r] = s["build_suit"]
        s["run_lo"][r] = s["build_lo"]
        s["run_hi"][r] = s["build_hi"]
        hadb = -1
        for q in range(s["build_lo"], s["build_hi"] + 1):
            c = s["build_card"][q]
            if q != s["jok_pos"] and s["bflag"][c]:
                hadb = c
            if q == s["jok_pos"]:
                c = _joker_card(s, p)  # (determinization may have swapped the hidden joker's id)
                s["loc"][c] = -1
                to_run(s, c, r, q, True)
            else:
                detach(s, c)
                to_run(s, c, r, q, False)
        if a == N_COMMIT_TOK:
            s["token_loc"][p] = TOK_RUN
            s["token_idx"][p] = r
            s["token_turn"][p] = s["turn"]
            s["opt_used"] = 1
        jmode = s["build_mode"] == 2
        _reset_build(s)
        if jmode:
            _goto(s, PH_MAIN)
        else:
            s["phase"] = PH_MAIN
        if hadb >= 0:
            s["bflag"][hadb] = 1
            _placed_b(s, hadb)
    elif a < N_ADD:  # the joker and the hand card after it
        i = a - N_JATT
        r = i // 2
        suit = s["run_suit"][r]
        if i % 2 == 0:
            qj = s["run_lo"][r] - 1
            qc = qj - 1
            s["run_lo"][r] = qc
        else:
            qj = s["run_hi"][r] + 1
            qc = qj + 1
            s["run_hi"][r] = qc
        j = _joker_card(s, p)
        s["loc"][j] = -1
        to_run(s, j, r, qj, True)
        c = _free_copy(s, p, kind_at(suit, qc), False)
        detach(s, c)
        to_run(s, c, r, qc, False)
        _goto(s, PH_MAIN)
    elif a < N_FD:  # attach
        i = a - N_ADD
        r = i // 2
        pos = extend_pos(s, r, i % 2)
        c = _free_copy(s, p, kind_at(s["run_suit"][r], pos), _owed(s))
        wasb = s["bflag"][c] == 1
        detach(s, c)
        to_run(s, c, r, pos, False)
        if pos < s["run_lo"][r]:
            s["run_lo"][r] = pos
        else:
            s["run_hi"][r] = pos
        if wasb:
            s["bflag"][c] = 1
            _placed_b(s, c)
    elif a < N_DBL:  # replace a face-down card
        i = a - N_FD
        r = i // 11
        pos = i % 11 + 1
        c = _free_copy(s, p, kind_at(s["run_suit"][r], pos), _owed(s))
        wasb = s["bflag"][c] == 1
        fd = s["run_card"][r, pos]
        detach(s, fd)
        detach(s, c)
        to_run(s, c, r, pos, False)
        to_hand(s, fd, p, False)
        if wasb:
            s["bflag"][c] = 1
            _placed_b(s, c)
    elif a < N_XDISC:  # step 4
        i = (a - N_DBL) if a < N_SWAP else (a - N_SWAP)
        slot = i // 4
        suit = i % 4
        top = s["pool"][slot]
        c = hand_card_of_kind(s, p, suit * 10 + rank_of(top) - 1)
        detach(s, c)
        detach(s, top)
        s["exch_used"] = 1
        if a < N_SWAP:  # doubling: the old card stays, covered
            s["loc"][top] = LOC_UNDER
            s["lidx"][top] = slot
            s["under"][slot] = top
            to_pool(s, c, slot)
            s["phase"] = PH_XTRA
        else:
            to_pool(s, c, slot)
            to_hand(s, top, p, True)
    elif a == N_XDISC:
        c = s["disc"][s["disc_n"] - 1]
        detach(s, c)
        to_hand(s, c, p, True)
        s["phase"] = PH_MAIN
    elif a == N_XSTOCK:
        _start_chance(s, CK_DRAW, 1, PH_MAIN)
    elif a == N_XNONE:
        s["phase"] = PH_MAIN
    elif a < N_END:
        k = a - N_DISCARD
        c = hand_card_of_kind(s, p, k)
        detach(s, c)
        if ph == PH_RESPUT:
            s["loc"][c] = LOC_RESERVE
            s["lidx"][c] = p
            s["res_n"][p] += 1
            if s["hand_n"][p] <= HAND_LIMIT:
                _end_turn(s)
        else:
            to_discard(s, c)
            s["discarded"] = 1
            _check_win(s, p)
            if s["terminal"]:
                return True
            _after_hand(s, p)
        return True
    elif a == N_END:
        if ph == PH_RESBACK:
            _end_turn(s)
        else:
            _check_win(s, p)
            if s["terminal"]:
                return True
            _after_hand(s, p)
        return True
    elif a < N_MOVE:  # take a reserve card back
        k = a - N_RESBACK
        for c in range(NUM_NUMBER):
            if s["loc"][c] == LOC_RESERVE and s["lidx"][c] == p and kind_of(c) == k:
                detach(s, c)
                to_hand(s, c, p, True)
                break
        if s["hand_n"][p] >= HAND_LIMIT or s["res_n"][p] == 0:
            _check_win(s, p)
            if s["terminal"]:
                return True
            _end_turn(s)
        return True
    elif a < N_JOIN:  # move an end card onto another run
        i = a - N_MOVE
        d = i // 2
        pos = extend_pos(s, d, i % 2)
        src, e = _move_source(s, d, i % 2)
        spos = s["run_lo"][src] if e == 0 else s["run_hi"][src]
        c = s["run_card"][src, spos]
        detach(s, c)
        if e == 0:
            s["run_lo"][src] = spos + 1
        else:
            s["run_hi"][src] = spos - 1
        to_run(s, c, d, pos, False)
        if pos < s["run_lo"][d]:
            s["run_lo"][d] = pos
        else:
            s["run_hi"][d] = pos
        s["moves_turn"] += 1
    else:  # join two own runs
        r = a - N_JOIN
        u = _join_partner(s, p, r)
        for pos in range(s["run_lo"][u], s["run_hi"][u] + 1):
            c = s["run_card"][u, pos]
            fd = s["run_fd"][u, pos] == 1
            detach(s, c)
            to_run(s, c, r, pos, fd)
        s["run_hi"][r] = s["run_hi"][u]
        free_run(s, u)
        for q in range(2):
            if (s["octa_mask"][q] >> u) & 1:
                s["octa_mask"][q] = (s["octa_mask"][q] & ~(1 << u)) | (1 << r)
    if not s["terminal"]:
        _check_win(s, p)
    return True


# ---------------------------------------------------------------- consistency (used by checks.validate)
@nb.njit
def validate_extra(s, seen) -> int:
    """Dutch places: covered pot cards, reserves, the pending joker. 0 if consistent, else 1."""
    res = np.zeros(2, dtype=np.int64)
    for c in range(NUM_NUMBER):
        loc = s["loc"][c]
        i = s["lidx"][c]
        if loc == LOC_UNDER:
            if i < 0 or i >= POOL_SLOTS or s["under"][i] != c or s["pool"][i] < 0:
                return 1
            seen[c] += 1
        elif loc == LOC_RESERVE:
            if i < 0 or i > 1:
                return 1
            res[i] += 1
            seen[c] += 1
        elif loc == LOC_JOKER:
            if s["phase"] != PH_JOKER and s["phase"] != PH_BUILD:
                return 1
            seen[c] += 1
    for i in range(POOL_SLOTS):
        u = s["under"][i]
        if u >= 0 and (s["loc"][u] != LOC_UNDER or s["lidx"][u] != i):
            return 1
    if res[0] != s["res_n"][0] or res[1] != s["res_n"][1]:
        return 1
    return 0



# ---------------------------------------------------------------- Python-side helpers (strings)
from octagames.octa.common import LINE_NAMES, POOL_SLOT_NAMES, RANK_NAMES, SUIT_SYMBOLS  # noqa: E402


def _kn(k: int) -> str:
    k = int(k)
    return SUIT_SYMBOLS[k // 10] + RANK_NAMES[k % 10 + 1]


def _cn(c: int) -> str:
    c = int(c)
    return "--" if c < 0 else _kn(c % 40)


def _posn(suit: int, pos: int) -> str:
    name = _kn(int(kind_at(suit, pos)))
    if pos == 1:
        return name + " (low)"
    if pos == 11:
        return name + " (high)"
    return name


def run_str(s, r: int) -> str:
    """A run as ``♥4 ♥5 [?] ♥7`` (face-down cards as ``[?]``), or a note for an empty slot."""
    r = int(r)
    if int(s["run_owner"][r]) < 0:
        return f"(empty run slot {r})"
    suit = int(s["run_suit"][r])
    out = []
    for pos in range(int(s["run_lo"][r]), int(s["run_hi"][r]) + 1):
        out.append("[?]" if s["run_fd"][r, pos] else _kn(int(kind_at(suit, pos))))
    return " ".join(out)


def action_to_string(s, a: int) -> str:
    """A readable name of Dutch player action ``a`` in state ``s``."""
    a = int(a)
    ph = int(s["phase"])
    if not 0 <= a < NUM_ACTIONS or a >= N_USED:
        return f"action {a} (unused under the Dutch rules)"
    if a < N_DECLINE:
        return f"put the action card on pile {a - N_PILE}"
    if a == N_DECLINE:
        return "do not use the action card"
    if a < N_JOKER:
        r, pos = divmod(a - N_JACK, 11)
        suit = int(s["run_suit"][r])
        what = _posn(suit, pos + 1) if suit >= 0 else f"position {pos + 1}"
        return f"Jack: take {what} from P{int(s['run_owner'][r])}'s run {run_str(s, r)} (slot {r})"
    if a == N_JOKER:
        return "Jack: lay a face-down joker from the stock"
    if a < N_QEND:
        i = a - N_QPOT
        return f"Queen: take {_cn(int(s['pool'][i]))} from the pot ({POOL_SLOT_NAMES[i]})"
    if a < N_KSTOCK:
        r, end = divmod(a - N_QEND, 2)
        suit = int(s["run_suit"][r])
        pos = int(s["run_lo"][r]) if end == 0 else int(s["run_hi"][r])
        what = _posn(suit, pos) if suit >= 0 else "a card"
        return f"Queen: take {what} from run {run_str(s, r)} (slot {r})"
    if a == N_KSTOCK:
        return "King: take 2 stock cards"
    if a < N_PICK:
        return "King: pick 2 cards from " + ("your reserve" if a == N_KRES else "the opponent's reserve")
    if a < N_STEP2:
        return f"King: pick {_kn(a - N_PICK)} from the reserve"
    if a < N_LAY:
        return f"step 2: take the pot's {LINE_NAMES[a - N_STEP2]}"
    if a < N_JPOS:
        suit, pos = divmod(a - N_LAY, 11)
        verb = "lay" if ph == PH_BUILD else "start a new run with"
        return f"{verb} {_posn(suit, pos + 1)}"
    if a < N_COMMIT:
        pos = a - N_JPOS + 1
        suit = int(_joker_suit(s)) if int(s["anew_pile"]) >= 0 else 0
        return f"lay the joker as {_posn(suit, pos)}"
    if a == N_COMMIT:
        return "commit the run without token"
    if a == N_COMMIT_TOK:
        return "commit the run with your token"
    if a < N_ADD:
        r, end = divmod(a - N_JATT, 2)
        suit = int(s["run_suit"][r])
        if suit < 0:
            return f"attach the joker to run slot {r} (empty)"
        lo, hi = int(s["run_lo"][r]), int(s["run_hi"][r])
        qj, qc = (lo - 1, lo - 2) if end == 0 else (hi + 1, hi + 2)
        return (f"attach the joker as {_posn(suit, qj)} and {_posn(suit, qc)} "
                f"to run {run_str(s, r)} (slot {r})")
    if a < N_FD:
        r, end = divmod(a - N_ADD, 2)
        suit = int(s["run_suit"][r])
        pos = int(extend_pos(s, r, end)) if suit >= 0 else -1
        what = _posn(suit, pos) if pos > 0 else "nothing"
        return f"attach {what} to run {run_str(s, r)} (slot {r})"
    if a < N_DBL:
        r, pos = divmod(a - N_FD, 11)
        suit = int(s["run_suit"][r])
        what = _posn(suit, pos + 1) if suit >= 0 else "?"
        return f"replace the face-down card in run {run_str(s, r)} with {what} (slot {r})"
    if a < N_XDISC:
        dbl = a < N_SWAP
        slot, suit = divmod((a - N_DBL) if dbl else (a - N_SWAP), 4)
        top = int(s["pool"][slot])
        k = suit * 10 + (top % 10 if top >= 0 else 0)
        if dbl:
            return f"double: lay {_kn(k)} on {_cn(top)} ({POOL_SLOT_NAMES[slot]})"
        return f"swap {_kn(k)} for {_cn(top)} ({POOL_SLOT_NAMES[slot]})"
    if a == N_XDISC:
        return "take the top discard card"
    if a == N_XSTOCK:
        return "take a stock card"
    if a == N_XNONE:
        return "take no extra card"
    if a < N_END:
        if ph == PH_RESPUT:
            return f"put {_kn(a - N_DISCARD)} into your reserve"
        return f"discard {_kn(a - N_DISCARD)}"
    if a == N_END:
        return "take no more reserve cards" if ph == PH_RESBACK else "end the turn without discarding"
    if a < N_MOVE:
        return f"take {_kn(a - N_RESBACK)} back from your reserve"
    if a < N_JOIN:
        d, end = divmod(a - N_MOVE, 2)
        suit = int(s["run_suit"][d])
        pos = int(extend_pos(s, d, end)) if suit >= 0 else -1
        what = _posn(suit, pos) if pos > 0 else "nothing"
        return f"move {what} from another run onto run {run_str(s, d)} (slot {d})"
    r = a - N_JOIN
    u = int(_join_partner(s, int(s["cur"]), r)) if int(s["run_owner"][r]) >= 0 else -1
    other = run_str(s, u) if u >= 0 else "(no connecting run)"
    return f"join run {run_str(s, r)} with run {other} (slot {r})"


def illegal_reason(s, a: int) -> str:
    """Why Dutch action ``a`` is not legal for the seat to move, in the rulebook's words."""
    a = int(a)
    step = PHASE_NAMES[int(s["phase"])]
    p = int(s["cur"])
    if a >= N_USED:
        return "this action id is not used by the Dutch rules"
    if a < N_DECLINE:
        return f"the action card is placed on a pile right after it is turned; now: {step}"
    if a < N_STEP2:
        return ("an action card is used only right after it is placed, when both open action cards share a suit "
                "(Jack: an opponent's run without token, or a joker with a use; Queen: a pot card or a run end "
                f"leaving 3 cards; King: the stock or a non-empty reserve); now: {step}")
    if a < N_LAY:
        return ("step 2 needs your token on your run since an earlier turn, no step 3 token run, no step 4 and no "
                f"joker this turn, and a way to put a taken card on the table at once; now: {step}")
    if a < N_ADD and a != N_JATT:
        if a >= N_JATT:
            return "the joker goes at a run end of the Jack's suit, with the hand card after it"
        return ("a run needs at least 3 consecutive cards of one suit (a joker may be one); a token run only with "
                "your token free and neither step 2 nor step 4 played this turn; while step 2 is owed the run "
                f"must hold a taken pot card; now: {step}")
    if a < N_DBL:
        return ("you may attach to any run without token, with the card that continues it, and replace a "
                "face-down card with the card it stands for (while step 2 is owed: only with a taken pot card)")
    if a < N_XDISC:
        return ("step 4 is played once per turn: doubling puts a hand card on a pot card of the same rank and "
                "another suit (at most two stacked), swapping exchanges cards of the same rank")
    if a < N_DISCARD:
        return f"the extra card is taken only right after doubling; now: {step}"
    if a < N_END:
        if int(s["hand_cnt"][p, a - N_DISCARD]) == 0:
            return f"you hold no {_kn(a - N_DISCARD)}"
        return f"discarding ends the turn, after every other step; now: {step}"
    if a == N_END:
        return "with more than 8 cards in hand you must discard one"
    if a < N_MOVE:
        return "reserve cards are taken back only at the end of the turn, with fewer than 8 cards in hand"
    if a < N_JOIN:
        return ("a card moves from a run end onto a run without token of the same suit, at least 3 cards "
                f"remain, at most {MAX_MOVES} moves per turn")
    return "two of your own runs of one suit (no token) that connect can be joined (at most 10 cards)"
