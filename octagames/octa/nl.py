"""Dutch Octa rules (``rules="nl"``, seed ``000``, rulebook version 18-09-25).

Every Dutch rule lives here, one section per rule: the action card's use
(Jack: steal a run card or a joker; Queen: a pot card or a run end; King:
stock or a reserve), step 2 (three pot cards), step 3 (new runs, with or
without token, laid card by card), attaching, moving and joining, step 4
(doubling or swapping), the discard and the eight-card rule (the reserve), the
win and the stock running out. The table pieces both rulebooks share (cards,
runs, the pot ring, action piles, tokens, the record) are in
:mod:`octagames.octa.common`; the deal, chance, the action card's pile and the
turn's start and end in :mod:`octagames.octa.turn`. Each rule is traced to its
test in ``docs/rules/octa_nl.md``.

Phases (``phase``; 0..4 and 13 are shared)
------------------------------------------
0 setup deal, 1 start player, 2 chance (``ch_kind``: 0 stock draw to hand,
1 turn the action card, 2 pot refill from the stock, 3 the Jack's face-down
replacement, 4 the Jack's joker, 5 turning a face-up action card after the
reshuffle), 3 action pile choice, 4 action card use, 5 the turn's main phase
(step 2, step 3, step 4, attaching, moves, joins, discard), 6 laying a run,
7 King: picking reserve cards, 8 the Jack's joker must be used, 9 the extra
card after doubling, 10 putting hand cards over 8 into the reserve, 11 taking
reserve cards back (fewer than 8 in hand), 12 moving a run's end card: choosing
the run it goes onto, 13 game over.

Action table (``ACTIONS``, generated from the declaration below)
----------------------------------------------------------------

==========  ====  ================================================================
action      size  meaning
==========  ====  ================================================================
0..1        2     ``pile``: put the turned action card on pile 0 / 1
2           1     ``decline``: do not use the action card
3..288      286   ``jack``: Jack 1: take the face-up card at run slot*11 +
                  (position-1) of an opponent's run without token (a face-down
                  stock card replaces it)
289         1     ``joker``: Jack 2: lay a face-down stock card as a joker of the
                  Jack's suit
290..297    8     ``queen_pot``: Queen 1: take the top card of pot slot i
298..349    52    ``queen_end``: Queen 2: take the end card run slot*2 + end (0
                  low, 1 high)
350         1     ``king_stock``: King: take 2 stock cards
351..352    2     ``king_reserve``: King: pick 2 cards from a reserve (0 own, 1
                  opponent's)
353..392    40    ``king_pick``: King: pick a reserve card of kind k
393..396    4     ``step2``: step 2: take the top cards of pot line 0..3 (top row,
                  bottom row, left column, right column)
397..440    44    ``lay``: lay the hand card at suit*11 + (position-1) in the run
                  being laid (the first card starts a new run)
441..451    11    ``lay_joker``: lay the joker at position 1..11 of the run being
                  laid
452         1     ``commit``: commit the run being laid, without token
453         1     ``commit_token``: commit the run being laid, with your token
                  (step 3)
454..505    52    ``joker_attach``: Jack 2: attach the joker and the hand card
                  after it at run slot*2 + end
506..557    52    ``attach``: attach the hand card that fits at run slot*2 + end
                  (while moving a card: put the moved card there)
558..843    286   ``replace``: replace the face-down card at run slot*11 +
                  (position-1) with the card it stands for (it goes to your hand)
844..875    32    ``double``: step 4, doubling: your card of suit s on pot slot i:
                  i*4 + s
876..907    32    ``swap``: step 4, swapping: your card of suit s for pot slot i:
                  i*4 + s
908         1     ``extra_discard``: after doubling: take the top discard card
909         1     ``extra_stock``: after doubling: take a stock card
910         1     ``extra_none``: after doubling: take no extra card
911..950    40    ``discard``: discard kind k (over 8 cards after the discard: put
                  kind k into the reserve)
951         1     ``end``: end the turn without discarding (8 or fewer in hand) /
                  take no more reserve cards
952..991    40    ``reserve_back``: take a reserve card of kind k back into your
                  hand
992..1043   52    ``move``: move the end card of run slot*2 + end (0 low, 1 high)
                  to another run (the run it goes onto is chosen next, with an
                  attach id)
1044..1069  26    ``join``: join your run slot r with your run that continues it
1070..1073  4     ``unused``: never legal under these rules (the action space is
                  shared with the other rulebook)
==========  ====  ================================================================

Observation (``OBS_LAYOUT``, seats relative to the viewer; generated from the declaration below)
------------------------------------------------------------------------------------------------

==========  ====  ================================================================
offset      size  meaning
==========  ====  ================================================================
0..39       40    ``hand``: own hand: copies held of each kind / 2
40..79      40    ``opp_known``: opponent's hand: copies of each kind known to be
                  there (taken openly) / 2
80..81      2     ``hand_n``: hand sizes (self, opponent) / 80
82..861     780   ``runs``: run slot r (26 x 30): owner self, owner opponent, suit
                  one-hot (4), face-up at positions 1..11 (11), face-down at
                  positions 1..11 (11), token of self, token of opponent on it
862..1181   320   ``pool``: pot slot i (8 x 40): one-hot kind of its top card (all
                  zero = empty)
1182..1501  320   ``covered``: pot slot i: one-hot kind of the card a doubling
                  covered
1502..1509  8     ``tokens``: token of relative seat q (2 x 4): centre, on a run,
                  put down this turn, put down in an earlier turn
1510..1589  80    ``discard_order``: discard pile bottom..top as (kind+1)/40 (0 =
                  none): its full order
1590..1629  40    ``own_reserve``: own reserve: copies of each kind / 2
1630..1669  40    ``opp_reserve``: opponent's reserve: copies of each kind / 2
1670..1693  24    ``action_tops``: top card of face-up action pile 0/1: one-hot
                  action kind
1694..1705  12    ``action_under``: action cards under the two face-up cards,
                  copies per action kind / 2
1706..1717  12    ``action_turned``: the action card just turned (before the pile
                  choice)
1718..1719  2     ``action_new_pile``: pile the newest action card went on this
                  turn
1720..1725  6     ``counts``: stock/80, action stack/24, set-aside/8, discard/80,
                  the stock ran out (this is the last turn), turn/max_turns
1726..1739  14    ``phase``: phase one-hot (the step within the turn)
1740..1741  2     ``to_move``: relative seat whose turn it is
1742..1749  8     ``flags``: this turn: step 2 played, step 2 owed (no taken card
                  on the table yet), a token run laid, step 4 played, discard
                  made, the Jack's joker chosen, the joker laid in the run being
                  laid, a taken pot card still in own hand
1750..1765  16    ``build``: run being laid: suit (4), positions 1..11 (11), it
                  holds the joker
1766..1768  3     ``octa``: own Octa at the start of this (own) turn, own Octa
                  now, opponent's Octa now
1769..1771  3     ``king``: the King's reserve pick: from own reserve, from the
                  opponent's, cards still to pick / 2
1772..1773  2     ``scores``: stock-out scores (face-up run cards - reserve cards
                  + 80) / 160 (self, opponent)
1774        1     ``moves``: card moves between runs this turn / 8
1775..1778  4     ``totals``: face-up cards in runs / 80 (self, opponent), longest
                  run / 10 (self, opponent)
1779..1785  7     ``chance``: pending chance kind (draw, action card, refill,
                  face-down card, joker, reshuffle flip: one-hot 6) and draws
                  still owed / 2
1786..1813  28    ``moving``: the card being moved: its run (slot one-hot, 26) and
                  end (low, high)
1814..1817  4     ``unused``: always 0 (the observation size is shared with the
                  other rulebook)
1818..5825  4008  ``facts``: what the viewer knows of each card (rows: kinds
                  0..39, pool slots 0..7, the top two discards, then per pool slot
                  and suit the kind of that suit with the slot top's rank (32),
                  per run slot and end the end card (52) and the kind that would
                  extend it (52), each a copy of its kind's row, the situation and
                  the two action piles): a card is there, copies held / 2, longest
                  own run it extends / 10, longest opponent run it extends / 10,
                  same-suit kinds held one and two ranks away / 2 each, the
                  longest run of held kinds through it / 10, completes a pool run
                  (a kind: a copy placed in some pool slot; a slot: a card of the
                  hand placed there; a run end's rows: the run is the viewer's); a
                  row of an empty slot or run is all 0, of a run end nothing
                  extends all 0 but that last column; the situation row: own Octa
                  (a run of 8 or more face-up cards), the opponent's, hand size /
                  10, hand at the limit of 8 or over, stock / 80, face-up cards in
                  own runs / 80 and in the opponent's / 80, the opponent's hand
                  size / 10; then a row per face-up action pile: it has a top
                  card, that top is a Jack, a Queen, a King, it shares the suit of
                  the turned action card, the other pile's top shares that suit
                  (putting the turned card here lets it be used), and two entries
                  always 0 (the last two columns; no card is turned: the suit
                  entries are 0); then a row per run slot (a Jack's target is a
                  card of that run): the run is on the table, its face-up cards /
                  10, it is the viewer's, a token lies on it, its face-down cards
                  / 10, it is an Octa (8 or more face-up cards), it is one card
                  short of one (7), the viewer holds a card that extends it (an
                  empty slot: all 0); then a row per run slot and position 1..11
                  (a Jack's target): a copy of the row of the face-up card's kind
                  there (none or a face-down card: all 0)
5826..6154  329   ``rebuilt``: the stock rebuilt at the first exhaustion (English
                  rules; always 0 under the Dutch rules): per kind, the copies
                  that went face up into it less the copies of the kind the viewer
                  has seen come into view since (at least that many copies of it
                  are in the stock, in a face-down card laid from it, or among the
                  opponent's hand cards that came from it) / 2 (40); the hidden
                  cards each seat's hand took from it since (its draws, and the
                  face-down cards laid from it that the seat replaced) / 80 (self,
                  opponent); the face-down cards that went into it / 80 (the stock
                  and the face-down cards laid from it hold no more copies of a
                  kind than went in face up, but for these); then per run slot and
                  position 1..11 (26 x 11): the face-down card there was laid from
                  it
==========  ====  ================================================================
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.core import Block
from octagames.octa.common import (CK_AFLIP, CK_DRAW, CK_FD, CK_JOKER, CK_REFILL, FACT_END_ROW,
                                   FACT_EXTEND_ROW, FACT_PILE_ROW, FACT_RUN_ROW, FACT_SLOT_ROW, FACT_SLOT_SUIT_ROW,
                                   FACT_TAKE_ROW, FACT_TOP_ROW, HAND_LIMIT, JACK, KING, LINE_NAMES, LOC_AHIDDEN,
                                   LOC_HAND, LOC_JOKER, LOC_RESERVE, LOC_UNDER, MAX_RUNS, NUM_ACTION_KINDS,
                                   NUM_CARDS, NUM_KINDS, NUM_NUMBER, NUM_PHASES, PH_USE, POOL_LINES, POOL_SLOTS,
                                   POOL_SLOT_NAMES, QUEEN, TOK_CENTRE, TOK_RUN, action_table, atype_of, clear_build,
                                   detach, extend_pos, fact_refs, free_run, free_run_slot, hand_card_of_kind, kind_at,
                                   kind_of, kinds_held, observation_layout, rank_of, run_faceup, start_chance,
                                   start_refill, suit_of, table_faceup, to_discard, to_hand, to_pool, to_run)
from octagames.octa.view import (RUN_STRIDE, by_kind, card_name, decline_string, kind_name, obs_action_cards,
                                 obs_build, obs_chance, obs_counts, obs_discard_order, obs_facts,
                                 obs_hand_sizes, obs_hands, obs_pool, obs_runs, obs_tokens, obs_totals,
                                 obs_turn, pile_reason, pile_string, pos_label, run_string)

# ---------------------------------------------------------------- phases
# 0..4 and 13 are the shared phases of octagames.octa.common (deal, start, chance, pile, use, over)
PH_MAIN = 5
PH_BUILD = 6
PH_KPICK = 7
PH_JOKER = 8
PH_XTRA = 9
PH_RESPUT = 10
PH_RESBACK = 11
PH_MOVE = 12      # a run's end card is being moved: choose the run it goes onto
PHASE_NAMES = ("setup deal", "choosing the start player", "chance", "action pile choice",
               "action card use", "steps 2-4, attaching, discard", "laying a run",
               "King: picking reserve cards", "using the Jack's joker", "extra card after doubling",
               "putting cards over 8 into the reserve", "taking reserve cards back",
               "moving a card: choosing the run it goes onto", "game over")

MAX_MOVES = 8  # card moves between runs per turn (keeps every turn finite)

# ---------------------------------------------------------------- the action table
ACTIONS = action_table([
    Block("jack", MAX_RUNS * 11, "Jack 1: take the face-up card at run slot*11 + (position-1) of an "
          "opponent's run without token (a face-down stock card replaces it)", (MAX_RUNS, 11)),
    Block("joker", 1, "Jack 2: lay a face-down stock card as a joker of the Jack's suit"),
    Block("queen_pot", POOL_SLOTS, "Queen 1: take the top card of pot slot i"),
    Block("queen_end", MAX_RUNS * 2, "Queen 2: take the end card run slot*2 + end (0 low, 1 high)",
          (MAX_RUNS, 2)),
    Block("king_stock", 1, "King: take 2 stock cards"),
    Block("king_reserve", 2, "King: pick 2 cards from a reserve (0 own, 1 opponent's)"),
    Block("king_pick", NUM_KINDS, "King: pick a reserve card of kind k"),
    Block("step2", 4, "step 2: take the top cards of pot line 0..3 (top row, bottom row, left column, "
          "right column)"),
    Block("lay", 4 * 11, "lay the hand card at suit*11 + (position-1) in the run being laid (the first "
          "card starts a new run)", (4, 11)),
    Block("lay_joker", 11, "lay the joker at position 1..11 of the run being laid"),
    Block("commit", 1, "commit the run being laid, without token"),
    Block("commit_token", 1, "commit the run being laid, with your token (step 3)"),
    Block("joker_attach", MAX_RUNS * 2, "Jack 2: attach the joker and the hand card after it at run "
          "slot*2 + end", (MAX_RUNS, 2)),
    Block("attach", MAX_RUNS * 2, "attach the hand card that fits at run slot*2 + end (while moving a card: "
          "put the moved card there)", (MAX_RUNS, 2)),
    Block("replace", MAX_RUNS * 11, "replace the face-down card at run slot*11 + (position-1) with the card "
          "it stands for (it goes to your hand)", (MAX_RUNS, 11)),
    Block("double", POOL_SLOTS * 4, "step 4, doubling: your card of suit s on pot slot i: i*4 + s",
          (POOL_SLOTS, 4)),
    Block("swap", POOL_SLOTS * 4, "step 4, swapping: your card of suit s for pot slot i: i*4 + s",
          (POOL_SLOTS, 4)),
    Block("extra_discard", 1, "after doubling: take the top discard card"),
    Block("extra_stock", 1, "after doubling: take a stock card"),
    Block("extra_none", 1, "after doubling: take no extra card"),
    Block("discard", NUM_KINDS, "discard kind k (over 8 cards after the discard: put kind k into the "
          "reserve)"),
    Block("end", 1, "end the turn without discarding (8 or fewer in hand) / take no more reserve cards"),
    Block("reserve_back", NUM_KINDS, "take a reserve card of kind k back into your hand"),
    Block("move", MAX_RUNS * 2, "move the end card of run slot*2 + end (0 low, 1 high) to another run "
          "(the run it goes onto is chosen next, with an attach id)", (MAX_RUNS, 2)),
    Block("join", MAX_RUNS, "join your run slot r with your run that continues it"),
])
N_PILE, N_DECLINE, N_JACK = ACTIONS.offset("pile"), ACTIONS.offset("decline"), ACTIONS.offset("jack")
N_JOKER, N_QPOT, N_QEND = ACTIONS.offset("joker"), ACTIONS.offset("queen_pot"), ACTIONS.offset("queen_end")
N_KSTOCK, N_KRES = ACTIONS.offset("king_stock"), ACTIONS.offset("king_reserve")
N_PICK, N_STEP2, N_LAY = ACTIONS.offset("king_pick"), ACTIONS.offset("step2"), ACTIONS.offset("lay")
N_JPOS, N_COMMIT = ACTIONS.offset("lay_joker"), ACTIONS.offset("commit")
N_COMMIT_TOK, N_JATT = ACTIONS.offset("commit_token"), ACTIONS.offset("joker_attach")
N_ADD, N_FD, N_DBL = ACTIONS.offset("attach"), ACTIONS.offset("replace"), ACTIONS.offset("double")
N_SWAP, N_XDISC = ACTIONS.offset("swap"), ACTIONS.offset("extra_discard")
N_XSTOCK, N_XNONE = ACTIONS.offset("extra_stock"), ACTIONS.offset("extra_none")
N_DISCARD, N_END = ACTIONS.offset("discard"), ACTIONS.offset("end")
N_RESBACK, N_MOVE, N_JOIN = ACTIONS.offset("reserve_back"), ACTIONS.offset("move"), ACTIONS.offset("join")
N_USED = ACTIONS.end("join")  # the ids after it are unused


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


# ---------------------------------------------------------------- the turn machinery's hooks
@nb.njit
def turn_start(s) -> None:
    """Clear the Dutch per-turn fields and note the seat's Octas at the start of its turn."""
    s["step2_used"] = 0
    s["token_run_laid"] = 0
    s["joker"] = 0
    s["jok_pos"] = -1
    s["moves_turn"] = 0
    s["octa_mask"][s["cur"]] = octa_mask(s, s["cur"])


@nb.njit
def _goto(s, nxt) -> None:
    """Enter phase ``nxt``; entering the main phase right after the last action card was turned reshuffles."""
    if nxt == PH_MAIN and s["astack_n"] == 0:
        _reshuffle_actions(s)
        start_chance(s, CK_AFLIP, 2, PH_MAIN)  # two action cards to turn face up
        return
    s["phase"] = nxt


@nb.njit
def enter(s, phase) -> None:
    """Go on to player phase ``phase`` (the main phase may first reshuffle the action cards)."""
    _goto(s, phase)


@nb.njit
def after_action_step(s) -> None:
    """After the action card: the main phase (steps 2-4, attaching, discard)."""
    _goto(s, PH_MAIN)


@nb.njit
def winner(s) -> int:
    """Empty hand, empty reserve, and an Octa from the turn's start that still has 8 face-up cards."""
    p = s["cur"]
    if s["hand_n"][p] != 0 or s["res_n"][p] != 0:
        return -1
    m = s["octa_mask"][p]
    for r in range(MAX_RUNS):
        if (m >> r) & 1 and s["run_owner"][r] == p and run_faceup(s, r) >= 8:
            return p
    return -1


@nb.njit
def stock_emptied(s) -> None:
    """Whoever took the last stock card finishes this turn, then the game is scored."""
    s["exhaust"] = 1
    s["final_turn"] = 1


@nb.njit
def restock_actions(s) -> None:
    """Never needed: the Dutch rules reshuffle all 24 action cards as soon as the last one has
    been turned and used (:func:`_goto`), before a card is turned again."""


@nb.njit
def chance_fits(s, p) -> bool:
    """Whether seat ``p``, whose turn waits on a chance draw, can go on after it: the Jack's joker is offered
    only to a hand that can use it (:func:`_joker_feasible`), so a world where ``p`` holds another hand must
    keep that; any other draw leaves a move."""
    return s["ch_kind"] != CK_JOKER or _joker_feasible(s, p)


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


# ---------------------------------------------------------------- runs being laid
@nb.njit
def _interval_exists(avail, bpos, nlo, nhi, need_b, jok) -> bool:
    """A run [a, b] (3..10 positions) containing [nlo, nhi] (any when nlo == 0) with a place for each of
    ``jok`` (0 or 1) jokers and, with ``need_b``, a marked position besides the joker's. The joker fills
    the one unavailable position, or, where none is unavailable, stands for a held card at a position
    outside [nlo, nhi] (:func:`_joker_stands_in`: the seed does not limit what it stands for). Each start
    ``a`` grows its run a position at a time, counting as it goes, until it misses more than ``jok``."""
    a_hi = nlo if nlo > 0 else 11
    for a in range(1, a_hi + 1):
        b_lo = max(nhi, a + 2) if nlo > 0 else a + 2
        miss = marked = 0  # over positions a..b: unavailable, available and marked
        for b in range(a, min(a + 9, 11) + 1):
            if not avail[b]:
                miss += 1
                if miss > jok:
                    break  # longer runs from a miss more
            elif bpos[b]:
                marked += 1
            if b >= b_lo and (not need_b or marked > 0):
                if miss == jok or (jok == 1 and _joker_stands_in(bpos, a, b, nlo, nhi, need_b, marked)):
                    return True
    return False


@nb.njit
def _joker_stands_in(bpos, a, b, nlo, nhi, need_b, marked) -> bool:
    """Whether the joker can take a position of run [a, b] (every position available: its card is
    held) outside the laid [nlo, nhi] (any when nlo == 0) and, with ``need_b``, leave one of the
    ``marked`` positions."""
    for j in range(a, b + 1):
        if nlo > 0 and nlo <= j <= nhi:
            continue
        if not need_b or marked - (1 if bpos[j] else 0) > 0:
            return True
    return False


@nb.njit
def _free_copy(s, p, k, want_b) -> int:
    """The hand card of kind ``k`` that ``p`` plays (-1 none): not in the run being laid, a step-2 card
    first, then a copy the opponent saw taken (:func:`hand_card_of_kind`); ``want_b``: a step-2 card only."""
    c = hand_card_of_kind(s, p, k)
    if want_b and c >= 0 and s["bflag"][c] == 0:
        return -1  # (a step-2 copy would have been chosen)
    return c


@nb.njit
def _owed(s) -> bool:
    """Step 2 was played and none of its cards has reached the table yet."""
    return s["step2_used"] == 1 and s["b_done"] == 0


@nb.njit
def _mark_lays(s, p, suit, is_joker, out, base) -> int:
    """Mark ``out[base + q - 1]`` for every position ``q`` of ``suit`` where ``p`` may lay a hand card
    (or the joker) in the run being laid so that it stays completable; return how many.

    A position is open at either end of the run being laid (anywhere when none is), and the run
    with it must still grow, from the free hand cards of ``suit`` (:func:`_free_copy`), into a run
    of 3..10 with a place for the joker while it is unplaced (a card not held, or one held and not
    laid), holding a step-2 card while step 2 is owed (:func:`_interval_exists`).
    """
    lo = s["build_lo"]
    hi = s["build_hi"]
    if lo > 0 and (suit != s["build_suit"] or hi - lo + 1 >= 10):
        return 0
    if s["joker"] == 0 and not is_joker and kinds_held(s, p, suit) < 3:
        return 0  # cheaply first: without the joker no run of the suit can be completed
    hand = np.full(12, -1, dtype=np.int64)  # the free hand card at each position of the suit
    avail = np.zeros(12, dtype=np.bool_)
    bpos = np.zeros(12, dtype=np.bool_)
    for x in range(1, 12):
        c = _free_copy(s, p, kind_at(suit, x), False)
        hand[x] = c
        if c >= 0:
            avail[x] = True
            bpos[x] = s["bflag"][c] == 1
    if lo > 0:
        for x in range(lo, hi + 1):
            avail[x] = True
            c = s["build_card"][x]
            bpos[x] = x != s["jok_pos"] and c >= 0 and s["bflag"][c] == 1
    owed = _owed(s)
    jok = 1 if (s["joker"] == 1 and s["jok_pos"] < 0 and not is_joker) else 0  # the joker's place stays open
    n = 0
    for q in range(1, 12):
        if lo > 0:
            if q != lo - 1 and q != hi + 1:
                continue
            nlo = min(lo, q)
            nhi = max(hi, q)
        else:
            nlo = q
            nhi = q
        if nlo < 1 or nhi > 11:
            continue
        cq = hand[q]
        if not is_joker and cq < 0:
            continue
        was_avail, was_b = avail[q], bpos[q]  # q as laid, for this position's test only
        avail[q] = True
        bpos[q] = not is_joker and s["bflag"][cq] == 1
        if _interval_exists(avail, bpos, nlo, nhi, owed, jok):
            out[base + q - 1] = 1
            n += 1
        avail[q] = was_avail
        bpos[q] = was_b
    return n


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
    cnt = s["hand_cnt"][p].astype(np.int64)  # the hand by kind, and the pot line's cards added
    bc = np.zeros(NUM_KINDS, dtype=np.int64)
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
                if s["run_fd"][r, pos] and kind_at(suit, pos) == k and not (r == s["jack_slot"]
                                                                          and pos == s["jack_pos"]):
                    return True  # (not the face-down card this turn's Jack laid: replaced only later)
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
def move_card(s, r, end) -> int:
    """The face-up end card of run ``r`` at ``end`` (0 low, 1 high) if it may leave the run; else -1.

    "Zolang er maar een geldige run overblijft (minimaal drie kaarten)": the run
    keeps at least 3 cards, and **(ours)** at least one face-up card.
    """
    if s["run_owner"][r] < 0:
        return -1
    lo = s["run_lo"][r]
    hi = s["run_hi"][r]
    if hi - lo + 1 < 4 or run_faceup(s, r) < 2:
        return -1
    pos = lo if end == 0 else hi
    if s["run_fd"][r, pos]:
        return -1
    return s["run_card"][r, pos]


@nb.njit
def move_fits(s, src, c, d, end) -> bool:
    """Whether card ``c`` (-1: none), moving from run ``src``, continues run ``d`` (no token) at ``end``."""
    if c < 0 or d == src or s["run_owner"][d] < 0 or s["run_suit"][d] != suit_of(c) or has_token(s, d):
        return False
    pos = extend_pos(s, d, end)
    return pos > 0 and kind_at(s["run_suit"][d], pos) == kind_of(c)


@nb.njit
def _move_has_target(s, r, end) -> bool:
    """Whether the end card of run ``r`` at ``end`` may move and some other run takes it."""
    c = move_card(s, r, end)
    if c < 0:
        return False
    for d in range(MAX_RUNS):
        for e in range(2):
            if move_fits(s, r, c, d, e):
                return True
    return False


@nb.njit
def _join_partner(s, p, r) -> int:
    """The own run (no token) that starts right after own run ``r`` ends (lowest slot); -1 if none."""
    if s["run_owner"][r] != p or has_token(s, r):
        return -1
    for u in range(MAX_RUNS):
        if u == r or s["run_owner"][u] != p or s["run_suit"][u] != s["run_suit"][r]:
            continue
        if s["run_lo"][u] == s["run_hi"][r] + 1 and s["run_hi"][u] - s["run_lo"][r] + 1 <= 10 \
                and not has_token(s, u):
            return u
    return -1


# ---------------------------------------------------------------- legal actions
@nb.njit
def _gen_free(s, p, out, owed, new_runs) -> int:
    """Attaching, face-down replacements, moves, joins ("op elk moment"), and with ``new_runs``
    starting a run (step 3); while step 2 is owed only placements of a taken pot card."""
    n = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] < 0:
            continue
        suit = s["run_suit"][r]
        token = has_token(s, r)
        for end in range(2):
            if not token:
                pos = extend_pos(s, r, end)
                if pos > 0 and _free_copy(s, p, kind_at(suit, pos), owed) >= 0:
                    out[N_ADD + r * 2 + end] = 1
                    n += 1
            if not owed and s["moves_turn"] < MAX_MOVES and _move_has_target(s, r, end):
                out[N_MOVE + r * 2 + end] = 1
                n += 1
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
            if r == s["jack_slot"] and pos == s["jack_pos"]:
                continue  # laid face down by this turn's Jack: replaced in a later turn
            if s["run_fd"][r, pos] and _free_copy(s, p, kind_at(suit, pos), owed) >= 0:
                out[N_FD + r * 11 + pos - 1] = 1
                n += 1
        if not owed and _join_partner(s, p, r) >= 0:
            out[N_JOIN + r] = 1
            n += 1
    if not new_runs:
        return n
    for suit in range(4):
        n += _mark_lays(s, p, suit, False, out, N_LAY + suit * 11)
    return n


@nb.njit
def gen_legal(s, p, out) -> int:
    """Mark ``p``'s legal actions from the action card's use on (``out`` is zeroed, the decline set)."""
    ph = s["phase"]
    n = 0
    if ph == PH_USE:
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
        # "op elk moment": attaching, replacing, moving and joining before the action too (new runs
        # are step 3, after it)
        return n + _gen_free(s, p, out, False, False)
    if ph == PH_MOVE:
        r = s["move_slot"]
        c = move_card(s, r, s["move_end"])
        for d in range(MAX_RUNS):
            for e in range(2):
                if move_fits(s, r, c, d, e):
                    out[N_ADD + d * 2 + e] = 1
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
        n += _mark_lays(s, p, suit, True, out, N_JPOS)
        return n + _mark_lays(s, p, suit, False, out, N_LAY + suit * 11)
    if ph == PH_BUILD:
        suit = s["build_suit"]
        n += _mark_lays(s, p, suit, False, out, N_LAY + suit * 11)
        if s["joker"] == 1 and s["jok_pos"] < 0:
            n += _mark_lays(s, p, suit, True, out, N_JPOS)
        ok = s["build_hi"] - s["build_lo"] + 1 >= 3
        if s["joker"] == 1 and s["jok_pos"] < 0:
            ok = False
        if _owed(s) and not _build_has_b(s):
            ok = False
        if ok:
            out[N_COMMIT] = 1
            n += 1
            if (s["token_loc"][p] == TOK_CENTRE and s["step2_used"] == 0 and s["token_run_laid"] == 0
                    and s["exch_used"] == 0):
                out[N_COMMIT_TOK] = 1
                n += 1
        return n
    if ph == PH_MAIN:
        owed = _owed(s)
        n = _gen_free(s, p, out, owed, True)
        if owed:
            return n
        if (s["token_loc"][p] == TOK_RUN and s["token_turn"][p] < s["turn"] and s["step2_used"] == 0
                and s["token_run_laid"] == 0 and s["exch_used"] == 0 and s["joker"] == 0):
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
                    u = s["under"][slot]
                    if k != kind_of(c) and (u < 0 or k != kind_of(u)):  # never two identical cards
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
        start_refill(s, True, PH_MAIN)  # the discard pile first (top first), then the stock


@nb.njit
def _after_hand(s, p) -> bool:
    """The eight-card rule after the discard (or after ending without one); True ends the turn."""
    if s["hand_n"][p] > HAND_LIMIT:
        s["phase"] = PH_RESPUT
        return False
    if s["hand_n"][p] < HAND_LIMIT and s["res_n"][p] > 0:
        s["phase"] = PH_RESBACK
        return False
    return True


@nb.njit
def _finish_move(s, d, end) -> None:
    """Put the end card being moved (``move_slot``, ``move_end``) onto run ``d`` at ``end``; go back."""
    src = s["move_slot"]
    spos = s["run_lo"][src] if s["move_end"] == 0 else s["run_hi"][src]
    c = s["run_card"][src, spos]
    detach(s, c)
    if s["move_end"] == 0:
        s["run_lo"][src] = spos + 1
    else:
        s["run_hi"][src] = spos - 1
    pos = extend_pos(s, d, end)
    to_run(s, c, d, pos, False)
    if pos < s["run_lo"][d]:
        s["run_lo"][d] = pos
    else:
        s["run_hi"][d] = pos
    s["moves_turn"] += 1
    s["phase"] = s["move_ret"]
    s["move_slot"] = -1
    s["move_end"] = -1
    s["move_ret"] = -1


@nb.njit
def apply(s, a) -> bool:
    """Apply the legal Dutch action ``a`` (from the Jack on) of the seat to move.

    Returns:
        True when the turn is over (the turn machinery ends it).
    """
    p = s["cur"]
    ph = s["phase"]
    if a < N_JOKER:  # Jack 1: steal a run card, a face-down stock card replaces it
        i = a - N_JACK
        r = i // 11
        pos = i % 11 + 1
        c = s["run_card"][r, pos]
        detach(s, c)
        to_hand(s, c, p, True)
        s["ch_slot"] = r
        s["ch_pos"] = pos
        start_chance(s, CK_FD, 1, PH_MAIN)
    elif a == N_JOKER:
        s["joker"] = 1
        start_chance(s, CK_JOKER, 1, PH_JOKER)
    elif a < N_QEND:
        _take_pot_top(s, a - N_QPOT, p)
        start_chance(s, CK_REFILL, 0, PH_MAIN)
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
        start_chance(s, CK_DRAW, 2, PH_MAIN)
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
        s["token_turn"][p] = -1  # back in the pot: step 2 keeps it from a token run this turn
        s["step2_used"] = 1
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
                s["jack_slot"] = r  # the Jack's face-down card: not replaceable in this turn
                s["jack_pos"] = q
            else:
                detach(s, c)
                to_run(s, c, r, q, False)
        if a == N_COMMIT_TOK:
            s["token_loc"][p] = TOK_RUN
            s["token_idx"][p] = r
            s["token_turn"][p] = s["turn"]
            s["token_run_laid"] = 1
        jmode = s["joker"] == 1  # the run held the joker
        clear_build(s)
        if jmode:
            s["joker"] = 2
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
        s["jack_slot"] = r  # the Jack's face-down card: not replaceable in this turn
        s["jack_pos"] = qj
        c = _free_copy(s, p, kind_at(suit, qc), False)
        detach(s, c)
        to_run(s, c, r, qc, False)
        s["joker"] = 2
        _goto(s, PH_MAIN)
    elif a < N_FD and ph == PH_MOVE:  # the moved card goes onto run (a - N_ADD) // 2
        _finish_move(s, (a - N_ADD) // 2, (a - N_ADD) % 2)
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
        start_chance(s, CK_DRAW, 1, PH_MAIN)
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
            return s["hand_n"][p] <= HAND_LIMIT
        to_discard(s, c)
        s["discarded"] = 1
        return _after_hand(s, p)
    elif a == N_END:
        if ph == PH_RESBACK:
            return True
        return _after_hand(s, p)
    elif a < N_MOVE:  # take a reserve card back
        k = a - N_RESBACK
        for c in range(NUM_NUMBER):
            if s["loc"][c] == LOC_RESERVE and s["lidx"][c] == p and kind_of(c) == k:
                detach(s, c)
                to_hand(s, c, p, True)
                break
        return s["hand_n"][p] >= HAND_LIMIT or s["res_n"][p] == 0
    elif a < N_JOIN:  # pick the end card to move; the run it goes onto is chosen next
        i = a - N_MOVE
        s["move_slot"] = i // 2
        s["move_end"] = i % 2
        s["move_ret"] = ph
        s["phase"] = PH_MOVE
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
        if s["jack_slot"] == u:  # this turn's joker moves with its run: still replaced only later
            s["jack_slot"] = r
    return False


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



# ---------------------------------------------------------------- the observation
OBS_LAYOUT = observation_layout([
    Block("hand", NUM_KINDS, "own hand: copies held of each kind / 2"),
    Block("opp_known", NUM_KINDS, "opponent's hand: copies of each kind known to be there (taken openly) / 2"),
    Block("hand_n", 2, "hand sizes (self, opponent) / 80"),
    Block("runs", MAX_RUNS * RUN_STRIDE, "run slot r (26 x 30): owner self, owner opponent, suit one-hot "
          "(4), face-up at positions 1..11 (11), face-down at positions 1..11 (11), token of self, token of "
          "opponent on it", (MAX_RUNS, RUN_STRIDE)),
    Block("pool", POOL_SLOTS * NUM_KINDS, "pot slot i (8 x 40): one-hot kind of its top card (all zero = "
          "empty)", (POOL_SLOTS, NUM_KINDS)),
    Block("covered", POOL_SLOTS * NUM_KINDS, "pot slot i: one-hot kind of the card a doubling covered",
          (POOL_SLOTS, NUM_KINDS)),
    Block("tokens", 8, "token of relative seat q (2 x 4): centre, on a run, put down this turn, put down in "
          "an earlier turn", (2, 4)),
    Block("discard_order", 80, "discard pile bottom..top as (kind+1)/40 (0 = none): its full order"),
    Block("own_reserve", NUM_KINDS, "own reserve: copies of each kind / 2"),
    Block("opp_reserve", NUM_KINDS, "opponent's reserve: copies of each kind / 2"),
    Block("action_tops", 2 * NUM_ACTION_KINDS, "top card of face-up action pile 0/1: one-hot action kind",
          (2, NUM_ACTION_KINDS)),
    Block("action_under", NUM_ACTION_KINDS, "action cards under the two face-up cards, copies per action "
          "kind / 2"),
    Block("action_turned", NUM_ACTION_KINDS, "the action card just turned (before the pile choice)"),
    Block("action_new_pile", 2, "pile the newest action card went on this turn"),
    Block("counts", 6, "stock/80, action stack/24, set-aside/8, discard/80, the stock ran out (this is the "
          "last turn), turn/max_turns"),
    Block("phase", NUM_PHASES, "phase one-hot (the step within the turn)"),
    Block("to_move", 2, "relative seat whose turn it is"),
    Block("flags", 8, "this turn: step 2 played, step 2 owed (no taken card on the table yet), a token run "
          "laid, step 4 played, discard made, the Jack's joker chosen, the joker laid in the run being "
          "laid, a taken pot card still in own hand"),
    Block("build", 16, "run being laid: suit (4), positions 1..11 (11), it holds the joker"),
    Block("octa", 3, "own Octa at the start of this (own) turn, own Octa now, opponent's Octa now"),
    Block("king", 3, "the King's reserve pick: from own reserve, from the opponent's, cards still to pick / 2"),
    Block("scores", 2, "stock-out scores (face-up run cards - reserve cards + 80) / 160 (self, opponent)"),
    Block("moves", 1, f"card moves between runs this turn / {MAX_MOVES}"),
    Block("totals", 4, "face-up cards in runs / 80 (self, opponent), longest run / 10 (self, opponent)"),
    Block("chance", 7, "pending chance kind (draw, action card, refill, face-down card, joker, reshuffle "
          "flip: one-hot 6) and draws still owed / 2"),
    Block("moving", MAX_RUNS + 2, "the card being moved: its run (slot one-hot, 26) and end (low, high)"),
])
(O_HAND, O_OPP_KNOWN, O_HAND_N, O_RUNS, O_POOL, O_COVERED, O_TOKENS, O_DISC_SEQ, O_OWN_RES, O_OPP_RES,
 O_ATOPS, O_AUNDER, O_ATURNED, O_ANEW, O_COUNTS, O_PHASE, O_TO_MOVE, O_FLAGS, O_BUILD, O_OCTA, O_KING,
 O_SCORES, O_MOVES, O_TOTALS, O_CHANCE, O_MOVING) = (OBS_LAYOUT.offset(b.name) for b in OBS_LAYOUT.blocks[:26])
O_FACTS = OBS_LAYOUT.offset("facts")
FACT_REFS = fact_refs(ACTIONS, {
    "pile": lambda i: (FACT_PILE_ROW + i,),
    "jack": lambda i: (FACT_RUN_ROW + i // 11, FACT_TAKE_ROW + i),
    "queen_pot": lambda i: (FACT_SLOT_ROW + i,),
    "queen_end": lambda i: (FACT_END_ROW + i, FACT_RUN_ROW + i // 2),
    "king_pick": lambda k: (k,),
    "step2": lambda line: FACT_SLOT_ROW + POOL_LINES[line],
    "lay": lambda i: ((i // 11) * 10 + i % 11 % 10,),  # suit*11 + (position-1); position 11 is the high ace
    "attach": lambda i: (FACT_EXTEND_ROW + i,),
    "double": lambda i: (FACT_SLOT_ROW + i // 4, FACT_SLOT_SUIT_ROW + i),
    "swap": lambda i: (FACT_SLOT_ROW + i // 4, FACT_SLOT_SUIT_ROW + i),
    "extra_discard": lambda i: (FACT_TOP_ROW,),
    "discard": lambda k: (k,),
    "reserve_back": lambda k: (k,),
    "move": lambda i: (FACT_END_ROW + i, FACT_RUN_ROW + i // 2),
}, situation=True)
"""The ``facts`` rows each action is about (``[NUM_ACTIONS, 3]``, -1 for none): the turned action card's
pile that pile's row, a Jack its run's row and the row of the card it takes, a lay, discard, King's pick or
reserve card its kind, a Queen's pot its slot, a Queen's run end or a move its run end's card and its run's
row, an attachment the kind that extends its run end, a doubling or swap its pot slot and the card it would
put there, step 2 its line's three slots, the extra card from the discard pile the top discard; and every
action with a row to spare the situation row."""


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s information state (``OBS_LAYOUT``; ``out`` is zeroed first).

    Reserves and covered pot cards are public; the joker (in front of a seat
    or face down in a run) is shown only as face down.
    """
    out[:] = 0.0
    opp = 1 - player
    obs_hands(s, player, out, O_HAND, O_OPP_KNOWN)
    obs_hand_sizes(s, player, out, O_HAND_N)
    obs_runs(s, player, out, O_RUNS)
    obs_pool(s, out, O_POOL)
    for i in range(POOL_SLOTS):
        if s["under"][i] >= 0:
            out[O_COVERED + i * NUM_KINDS + kind_of(s["under"][i])] = 1.0
    obs_tokens(s, player, out, O_TOKENS, False)
    obs_discard_order(s, out, O_DISC_SEQ)
    taken = False
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_RESERVE:
            out[(O_OWN_RES if s["lidx"][c] == player else O_OPP_RES) + kind_of(c)] += 0.5
        elif s["loc"][c] == LOC_HAND and s["bflag"][c] and s["lidx"][c] == player:
            taken = True
    obs_action_cards(s, out, O_ATOPS, O_AUNDER, O_ATURNED, O_ANEW)
    obs_counts(s, out, O_COUNTS)
    out[O_COUNTS + 4] = float(s["final_turn"])
    out[O_COUNTS + 5] = s["turn"] / float(s["max_turns"])
    obs_turn(s, player, out, O_PHASE, O_TO_MOVE)
    out[O_FLAGS] = float(s["step2_used"])
    out[O_FLAGS + 1] = 1.0 if _owed(s) else 0.0
    out[O_FLAGS + 2] = float(s["token_run_laid"])
    out[O_FLAGS + 3] = float(s["exch_used"])
    out[O_FLAGS + 4] = float(s["discarded"])
    out[O_FLAGS + 5] = 1.0 if s["joker"] > 0 else 0.0
    out[O_FLAGS + 6] = 1.0 if s["jok_pos"] >= 0 else 0.0
    out[O_FLAGS + 7] = 1.0 if taken else 0.0
    obs_build(s, out, O_BUILD)
    if s["build_lo"] > 0 and s["joker"] == 1:
        out[O_BUILD + 15] = 1.0
    out[O_OCTA] = 1.0 if s["octa_mask"][player] != 0 and s["cur"] == player else 0.0
    out[O_OCTA + 1] = 1.0 if octa_mask(s, player) != 0 else 0.0
    out[O_OCTA + 2] = 1.0 if octa_mask(s, opp) != 0 else 0.0
    if s["kpick_seat"] >= 0:
        out[O_KING + (0 if s["kpick_seat"] == player else 1)] = 1.0
        out[O_KING + 2] = s["kpick_left"] / 2.0
    out[O_SCORES] = (score(s, player) + 80.0) / 160.0
    out[O_SCORES + 1] = (score(s, opp) + 80.0) / 160.0
    out[O_MOVES] = s["moves_turn"] / float(MAX_MOVES)
    obs_totals(s, player, out, O_TOTALS)
    obs_chance(s, out, O_CHANCE, 6)
    if s["move_slot"] >= 0:
        out[O_MOVING + s["move_slot"]] = 1.0
        out[O_MOVING + MAX_RUNS + s["move_end"]] = 1.0
    obs_facts(s, player, out, O_FACTS)


# ---------------------------------------------------------------- strings and reasons (Python)
def _jack_string(s, i: int) -> str:
    r, pos = divmod(i, 11)
    suit = int(s["run_suit"][r])
    what = pos_label(suit, pos + 1) if suit >= 0 else f"position {pos + 1}"
    return f"Jack: take {what} from P{int(s['run_owner'][r])}'s run {run_string(s, r)} (slot {r})"


def _queen_end_string(s, i: int) -> str:
    r, end = divmod(i, 2)
    suit = int(s["run_suit"][r])
    pos = int(s["run_lo"][r]) if end == 0 else int(s["run_hi"][r])
    what = pos_label(suit, pos) if suit >= 0 else "a card"
    return f"Queen: take {what} from run {run_string(s, r)} (slot {r})"


def _lay_string(s, i: int) -> str:
    suit, pos = divmod(i, 11)
    verb = "lay" if int(s["phase"]) == PH_BUILD else "start a new run with"
    return f"{verb} {pos_label(suit, pos + 1)}"


def _lay_joker_string(s, i: int) -> str:
    suit = int(_joker_suit(s)) if int(s["anew_pile"]) >= 0 else 0
    return f"lay the joker as {pos_label(suit, i + 1)}"


def _joker_attach_string(s, i: int) -> str:
    r, end = divmod(i, 2)
    suit = int(s["run_suit"][r])
    if suit < 0:
        return f"attach the joker to run slot {r} (empty)"
    lo, hi = int(s["run_lo"][r]), int(s["run_hi"][r])
    qj, qc = (lo - 1, lo - 2) if end == 0 else (hi + 1, hi + 2)
    return f"attach the joker as {pos_label(suit, qj)} and {pos_label(suit, qc)} to run {run_string(s, r)} (slot {r})"


def _end_card(s, r: int, end: int) -> str:
    suit = int(s["run_suit"][r])
    pos = int(extend_pos(s, r, end)) if suit >= 0 else -1
    return pos_label(suit, pos) if pos > 0 else "nothing"


def _attach_string(s, i: int) -> str:
    r, end = divmod(i, 2)
    if int(s["phase"]) == PH_MOVE:
        return f"put the moved {_end_card(s, r, end)} on run {run_string(s, r)} (slot {r})"
    return f"attach {_end_card(s, r, end)} to run {run_string(s, r)} (slot {r})"


def _replace_string(s, i: int) -> str:
    r, pos = divmod(i, 11)
    suit = int(s["run_suit"][r])
    what = pos_label(suit, pos + 1) if suit >= 0 else "?"
    return f"replace the face-down card in run {run_string(s, r)} with {what} (slot {r})"


def _step4_string(verb: str, joiner: str):
    def string(s, i: int) -> str:
        slot, suit = divmod(i, 4)
        top = int(s["pool"][slot])
        k = suit * 10 + (top % 10 if top >= 0 else 0)
        return f"{verb} {kind_name(k)} {joiner} {card_name(top)} ({POOL_SLOT_NAMES[slot]})"
    return string


def _discard_string(s, i: int) -> str:
    if int(s["phase"]) == PH_RESPUT:
        return f"put {kind_name(i)} into your reserve"
    return f"discard {kind_name(i)}"


def _move_string(s, i: int) -> str:
    r, end = divmod(i, 2)
    suit = int(s["run_suit"][r])
    if suit < 0:
        return f"move an end card of run slot {r} (empty)"
    pos = int(s["run_lo"][r]) if end == 0 else int(s["run_hi"][r])
    return f"move {pos_label(suit, pos)} from run {run_string(s, r)} to another run (slot {r})"


def _join_string(s, i: int) -> str:
    u = int(_join_partner(s, int(s["cur"]), i)) if int(s["run_owner"][i]) >= 0 else -1
    other = run_string(s, u) if u >= 0 else "(no connecting run)"
    return f"join run {run_string(s, i)} with run {other} (slot {i})"


# The name of an action of each block: ``STRINGS[block](s, index in the block)``; it depends only on
# what every seat sees.
STRINGS = {
    "pile": pile_string,
    "decline": decline_string,
    "jack": _jack_string,
    "joker": lambda s, i: "Jack: lay a face-down joker from the stock",
    "queen_pot": lambda s, i: f"Queen: take {card_name(int(s['pool'][i]))} from the pot ({POOL_SLOT_NAMES[i]})",
    "queen_end": _queen_end_string,
    "king_stock": lambda s, i: "King: take 2 stock cards",
    "king_reserve": lambda s, i: "King: pick 2 cards from " + ("your reserve" if i == 0 else
                                                              "the opponent's reserve"),
    "king_pick": lambda s, i: f"King: pick {kind_name(i)} from the reserve",
    "step2": lambda s, i: f"step 2: take the pot's {LINE_NAMES[i]}",
    "lay": _lay_string,
    "lay_joker": _lay_joker_string,
    "commit": lambda s, i: "commit the run without token",
    "commit_token": lambda s, i: "commit the run with your token",
    "joker_attach": _joker_attach_string,
    "attach": _attach_string,
    "replace": _replace_string,
    "double": _step4_string("double: lay", "on"),
    "swap": _step4_string("swap", "for"),
    "extra_discard": lambda s, i: "take the top discard card",
    "extra_stock": lambda s, i: "take a stock card",
    "extra_none": lambda s, i: "take no extra card",
    "discard": _discard_string,
    "end": lambda s, i: ("take no more reserve cards" if int(s["phase"]) == PH_RESBACK
                         else "end the turn without discarding"),
    "reserve_back": lambda s, i: f"take {kind_name(i)} back from your reserve",
    "move": _move_string,
    "join": _join_string,
    "unused": lambda s, i: f"action {ACTIONS.offset('unused') + i} (unused under the Dutch rules)",
}



def _use_reason(why: str):
    def reason(s, p: int, i: int, step: str) -> str:
        if int(s["phase"]) != PH_USE:
            return ("an action card is used only right after it is placed, when both open action cards share "
                    f"a suit; now: {step}")
        return why
    return reason


def _lay_reason(s, p: int, i: int, step: str) -> str:
    return ("a run needs at least 3 consecutive cards of one suit (a joker may be one); a token run only with "
            "your token free and neither step 2 nor step 4 played this turn; while step 2 is owed the run must "
            f"hold a taken pot card; now: {step}")


def _free_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) == PH_MOVE:
        return "the moved card goes onto another run without token of its suit that it continues"
    return ("you may attach to any run without token, with the card that continues it, and replace a "
            "face-down card with the card it stands for (while step 2 is owed: only with a taken pot card)")


def _discard_reason(s, p: int, i: int, step: str) -> str:
    if int(s["hand_cnt"][p, i]) == 0:
        return f"you hold no {kind_name(i)}"
    return f"discarding ends the turn, after every other step; now: {step}"


def _extra_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) != PH_XTRA:
        return f"the extra card is taken only right after doubling; now: {step}"
    return "the discard pile or the stock is empty"


_STEP4 = ("step 4 is played once per turn: doubling puts a hand card on a pot card of the same rank and "
          "another suit (at most two stacked), swapping exchanges cards of the same rank (never leaving two "
          "identical cards stacked)")
# Why an action of each block is refused, in the rulebook's words:
# ``REASONS[block](s, seat to move, index in the block, phase name)``; it depends only on what that seat sees.
REASONS = {
    "pile": pile_reason,
    "decline": _use_reason("the action card may always be declined in its use"),
    "jack": _use_reason("the Jack takes a face-up card of an opponent's run without token (one face-up card "
                        "stays) and needs a stock card; or the open cards hold no Jack"),
    "joker": _use_reason("the joker needs a stock card and a use at once: a new run of the Jack's suit, or a "
                         "run end of that suit with the hand card after the joker; or the open cards hold no "
                         "Jack"),
    "queen_pot": _use_reason("the Queen takes a pot card; or the open cards hold no Queen"),
    "queen_end": _use_reason("the Queen takes a face-up end card of a run of 4 or more cards (3 must remain); "
                             "or the open cards hold no Queen"),
    "king_stock": _use_reason("the King's stock cards need a stock; or the open cards hold no King"),
    "king_reserve": _use_reason("the King picks from a reserve that is not empty; or the open cards hold no "
                                "King"),
    "king_pick": lambda s, p, i, step: (f"the King picks cards of the chosen reserve right after choosing it; "
                                        f"now: {step}" if int(s["phase"]) != PH_KPICK
                                        else f"the reserve holds no {kind_name(i)}"),
    "step2": lambda s, p, i, step: ("step 2 needs your token on your run since an earlier turn, no step 3 token "
                                    "run, no step 4 and no joker this turn, and a way to put a taken card on "
                                    f"the table at once; now: {step}"),
    "lay": _lay_reason,
    "lay_joker": _lay_reason,
    "commit": _lay_reason,
    "commit_token": _lay_reason,
    "joker_attach": lambda s, p, i, step: ("the joker goes at a run end of the Jack's suit (no token), with the "
                                           f"hand card after it, right after it is drawn; now: {step}"),
    "attach": _free_reason,
    "replace": _free_reason,
    "double": lambda s, p, i, step: _STEP4,
    "swap": lambda s, p, i, step: _STEP4,
    "extra_discard": _extra_reason,
    "extra_stock": _extra_reason,
    "extra_none": _extra_reason,
    "discard": _discard_reason,
    "end": lambda s, p, i, step: "with more than 8 cards in hand you must discard one",
    "reserve_back": lambda s, p, i, step: ("reserve cards are taken back only at the end of the turn, with "
                                           "fewer than 8 cards in hand"),
    "move": lambda s, p, i, step: ("the face-up end card of a run moves onto another run without token of its "
                                   "suit that it continues; at least 3 cards (one face up) remain, at most "
                                   f"{MAX_MOVES} moves per turn, and not while step 2 is owed"),
    "join": lambda s, p, i, step: ("two of your own runs of one suit (no token) that connect can be joined (at "
                                   "most 10 cards)"),
    "unused": lambda s, p, i, step: "this action id is not used by the Dutch rules",
}


# ---------------------------------------------------------------- the text render's Dutch parts
RULES_NAME = "Dutch rules"
END_NAMES = {1: "empty hand with an Octa", 2: "stock out", 3: "turn cap"}


def table_notes(s) -> list[str]:
    """The covered pot cards (public: a doubled card stays partly visible)."""
    cov = [f"{POOL_SLOT_NAMES[i]}: {card_name(int(s['under'][i]))}" for i in range(POOL_SLOTS)
           if int(s["under"][i]) >= 0]
    return ["covered pot cards: " + (", ".join(cov) or "-")]


def seat_notes(s, q: int) -> list[str]:
    """Seat ``q``'s reserve (public), a joker waiting to be laid (face down), the stock-out score."""
    res = [card_name(c) for c in by_kind(c for c in range(NUM_NUMBER)
                                         if int(s["loc"][c]) == LOC_RESERVE and int(s["lidx"][c]) == q)]
    jok = any(int(s["loc"][c]) == LOC_JOKER and int(s["lidx"][c]) == q for c in range(NUM_NUMBER))
    return [f"reserve: {' '.join(res) or '-'}" + ("   (a face-down joker waits)" if jok else ""),
            f"score {int(score(s, q))} (face-up run cards - reserve cards)"]
