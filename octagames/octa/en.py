"""English Octa rules ("The Game of 8"), seed ``001``: the turn, the options, the win and the stock.

Every English rule lives here, one section per rule: the action card's use
(Jack, Queen, King), option A (a new run, laid card by card, and the token),
option B (a pool line), option C (a pool run), additions and face-down
replacements, the exchange with the pool, the discard and hand limit, the win
and the stock running out. The table pieces both rulebooks share (cards, runs,
pool ring, action piles, tokens, the record) are in :mod:`octagames.octa.common`;
the deal, chance, the action card's pile and the turn's start and end in
:mod:`octagames.octa.turn`. Each rule is traced to its test in
``docs/rules/octa_en.md``.

Phases (``phase``; 0..4 and 13 are shared)
------------------------------------------
=====  ============  =======================================================
phase  who           what
=====  ============  =======================================================
0      chance        setup deal, card by card: pool slots 0..7, 8 cards to
                     seat 0, 8 to seat 1, then the two face-up action cards
1      chance        the start player (outcome 0 or 1)
2      chance        inside a turn: the step-1 draw, turning the action card,
                     a pool refill from the stock, the Jack's face-down card,
                     the King's two cards (``ch_kind``)
3      player        step 2: put the turned action card on pile 0 or 1
4      player        step 2: use the new card if both tops share a suit
                     (Jack target / Queen pair / King choice) or decline
5      player        step 3: start option A (lay the first run card), take a
                     pool line (B), take the token's pool run (C), or skip
6      player        laying a run card by card (each card extends the run at
                     an end and the run can still be completed), then commit
7      player        option A: put the token on the new run or not
8      player        option B: place at least one taken card (new run and/or
                     additions), then end option B (pool refill follows)
9      player        step 4: exchange a hand card with a pool card, or skip
10     player        step 4: put the token on the pool run just made, or not
11     player        step 5: discard (required with 8+ cards) or end the turn
12     player        step 5: hand limit, discard down to 8
13     --            game over
=====  ============  =======================================================

Action table (``ACTIONS``, generated from the declaration below)
----------------------------------------------------------------

==========  ====  ================================================================
action      size  meaning
==========  ====  ================================================================
0..1        2     ``pile``: put the turned action card on pile 0 / 1
2           1     ``decline``: do not use the action card
3..288      286   ``jack``: Jack: replace the face-up card at run slot*11 +
                  (position-1) with a face-down stock card (the card goes to your
                  hand)
289..316    28    ``queen``: Queen: take the two pool cards of slot pair i (i<j,
                  lexicographic)
317         1     ``king_stock``: King: draw 2 cards from the stock
318         1     ``king_discard``: King: take the top 2 cards of the discard pile
319         1     ``no_option``: play none of options A, B, C
320..359    40    ``lay``: lay a hand card of kind k in the run being laid (the
                  first card starts option A's run, or option B's new run)
360         1     ``commit``: commit the run being laid
361         1     ``token_run``: put the token on the run just laid with option A
362         1     ``token_keep``: keep the token in the pool centre
363..366    4     ``b_line``: option B: take pool line 0..3 (top row, bottom row,
                  left column, right column)
367         1     ``b_done``: option B: placement done (refill the pool)
368         1     ``option_c``: option C: take the pool run carrying your token
369..420    52    ``add``: add the hand card that fits to run slot*2 + end (0 low,
                  1 high)
421..706    286   ``replace``: replace the face-down card at run slot*11 +
                  (position-1) with the card it stands for (the face-down card
                  goes to your hand)
707..1026   320   ``exchange``: step 4: exchange a hand card of kind k with pool
                  slot i: k*8 + i
1027..1030  4     ``pool_token``: put the token on the pool run along line 0..3
1031        1     ``pool_token_no``: leave the token in the pool centre
1032        1     ``no_exchange``: no exchange with the pool
1033..1072  40    ``discard``: discard a card of kind k
1073        1     ``end_turn``: end the turn without discarding (fewer than 8
                  cards)
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
862..1181   320   ``pool``: pool slot i (8 x 40): one-hot kind (all zero = empty)
1182..1197  16    ``tokens``: token of relative seat q (2 x 8): centre, on a run,
                  on pool line 0..3 (4), put down this turn, put down in an
                  earlier turn
1198..1517  320   ``discard_top``: discard pile top 8 cards (depth 0 = top), one-
                  hot kind
1518..1557  40    ``discard_count``: discard pile: copies of each kind / 2
1558..1637  80    ``discard_order``: discard pile bottom..top as (kind+1)/40 (0 =
                  none): its full order
1638..1661  24    ``action_tops``: top card of face-up action pile 0/1: one-hot
                  action kind
1662..1673  12    ``action_under``: action cards under the two face-up cards,
                  copies per action kind / 2
1674..1685  12    ``action_turned``: the action card just turned (before the pile
                  choice)
1686..1687  2     ``action_new_pile``: pile the newest action card went on this
                  turn
1688..1696  9     ``counts``: stock/80, action stack/24, set-aside/8, discard/80,
                  stock exhausted 0/1/2 times (one-hot 3), final turn,
                  turn/max_turns
1697..1710  14    ``phase``: phase one-hot (the step within the turn)
1711..1712  2     ``to_move``: relative seat whose turn it is
1713..1720  8     ``flags``: option used (none, A, B, C), exchange used, discard
                  made, B card placed, B run laid
1721..1738  18    ``build``: run being laid: suit (4), positions 1..11 (11), by
                  option A, by option B, lone ace
1739..1778  40    ``b_cards``: cards taken with option B still in the mover's
                  hand, copies per kind / 2
1779..1804  26    ``new_slot``: the run just laid with option A (token question)
1805..1808  4     ``pool_run_lines``: pool lines the exchange just made into pool
                  runs the token may claim
1809..1812  4     ``totals``: face-up cards in runs / 80 (self, opponent), longest
                  run / 10 (self, opponent)
1813..1817  5     ``chance``: pending chance kind (draw, action card, refill,
                  face-down card: one-hot 4) and draws still owed / 2
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
from octagames.octa.common import (CK_DRAW, CK_FD, FACT_PILE_ROW, FACT_RUN_ROW, FACT_SLOT_ROW, FACT_TAKE_ROW,
                                   FACT_TOP_ROW, HAND_LIMIT, JACK, LINE_NAMES, LOC_AHIDDEN, LOC_DISCARD, LOC_HAND,
                                   LOC_STOCK, MAX_PILE, MAX_RUNS, NPOS, NUM_ACTION_KINDS, NUM_KINDS, NUM_NUMBER,
                                   NUM_PHASES, NUM_QUEEN_PAIRS, PH_USE, POOL_LINES, POOL_SLOTS, POOL_SLOT_NAMES, QUEEN,
                                   QUEEN_PAIRS, REBUILT_FD_ROW, TOK_CENTRE, TOK_POOL, TOK_RUN, action_table, atype_of,
                                   clear_build, detach, exchange_kinds, extend_pos, fact_refs, free_run,
                                   free_run_slot, hand_card_of_kind, hidden_kinds, kind_at, kind_of, kinds_held,
                                   longest_run, observation_layout, pool_line_is_run, rank_of, rebuilt_need,
                                   run_faceup, slot_protected_by, start_chance,
                                   start_refill, suit_of, table_faceup, to_discard, to_hand, to_pool, to_run,
                                   to_stock)
from octagames.octa.view import (RUN_STRIDE, card_name, decline_string, kind_name, obs_action_cards,
                                 obs_build, obs_chance, obs_counts, obs_discard_order, obs_facts,
                                 obs_hand_sizes, obs_hands, obs_pool, obs_runs, obs_tokens, obs_totals,
                                 obs_turn, pile_reason, pile_string, pos_label, pos_name, run_string)

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

# ---------------------------------------------------------------- the action table
ACTIONS = action_table([
    Block("jack", MAX_RUNS * 11, "Jack: replace the face-up card at run slot*11 + (position-1) with a "
          "face-down stock card (the card goes to your hand)", (MAX_RUNS, 11)),
    Block("queen", NUM_QUEEN_PAIRS, "Queen: take the two pool cards of slot pair i (i<j, lexicographic)"),
    Block("king_stock", 1, "King: draw 2 cards from the stock"),
    Block("king_discard", 1, "King: take the top 2 cards of the discard pile"),
    Block("no_option", 1, "play none of options A, B, C"),
    Block("lay", NUM_KINDS, "lay a hand card of kind k in the run being laid (the first card starts "
          "option A's run, or option B's new run)"),
    Block("commit", 1, "commit the run being laid"),
    Block("token_run", 1, "put the token on the run just laid with option A"),
    Block("token_keep", 1, "keep the token in the pool centre"),
    Block("b_line", 4, "option B: take pool line 0..3 (top row, bottom row, left column, right column)"),
    Block("b_done", 1, "option B: placement done (refill the pool)"),
    Block("option_c", 1, "option C: take the pool run carrying your token"),
    Block("add", MAX_RUNS * 2, "add the hand card that fits to run slot*2 + end (0 low, 1 high)",
          (MAX_RUNS, 2)),
    Block("replace", MAX_RUNS * 11, "replace the face-down card at run slot*11 + (position-1) with the "
          "card it stands for (the face-down card goes to your hand)", (MAX_RUNS, 11)),
    Block("exchange", NUM_KINDS * POOL_SLOTS, "step 4: exchange a hand card of kind k with pool slot i: "
          "k*8 + i", (NUM_KINDS, POOL_SLOTS)),
    Block("pool_token", 4, "put the token on the pool run along line 0..3"),
    Block("pool_token_no", 1, "leave the token in the pool centre"),
    Block("no_exchange", 1, "no exchange with the pool"),
    Block("discard", NUM_KINDS, "discard a card of kind k"),
    Block("end_turn", 1, "end the turn without discarding (fewer than 8 cards)"),
])
A_PILE, A_DECLINE = ACTIONS.offset("pile"), ACTIONS.offset("decline")
A_JACK, A_QUEEN = ACTIONS.offset("jack"), ACTIONS.offset("queen")
A_KING_STOCK, A_KING_DISC = ACTIONS.offset("king_stock"), ACTIONS.offset("king_discard")
A_SKIP_OPT, A_SEL, A_COMMIT = ACTIONS.offset("no_option"), ACTIONS.offset("lay"), ACTIONS.offset("commit")
A_TOKEN_RUN, A_TOKEN_NO = ACTIONS.offset("token_run"), ACTIONS.offset("token_keep")
A_BLINE, A_END_B, A_C = ACTIONS.offset("b_line"), ACTIONS.offset("b_done"), ACTIONS.offset("option_c")
A_ADD, A_FD, A_EXCH = ACTIONS.offset("add"), ACTIONS.offset("replace"), ACTIONS.offset("exchange")
A_PTOKEN, A_PTOKEN_NO = ACTIONS.offset("pool_token"), ACTIONS.offset("pool_token_no")
A_EXCH_SKIP, A_DISCARD = ACTIONS.offset("no_exchange"), ACTIONS.offset("discard")
A_END_TURN = ACTIONS.offset("end_turn")

# Bound on the actions of one turn (chance included): see the module docstring of rules.py.
TURN_ACTION_BOUND = 300


# ---------------------------------------------------------------- the observation
OBS_LAYOUT = observation_layout([
    Block("hand", NUM_KINDS, "own hand: copies held of each kind / 2"),
    Block("opp_known", NUM_KINDS, "opponent's hand: copies of each kind known to be there (taken openly) / 2"),
    Block("hand_n", 2, "hand sizes (self, opponent) / 80"),
    Block("runs", MAX_RUNS * RUN_STRIDE, "run slot r (26 x 30): owner self, owner opponent, suit one-hot "
          "(4), face-up at positions 1..11 (11), face-down at positions 1..11 (11), token of self, token of "
          "opponent on it", (MAX_RUNS, RUN_STRIDE)),
    Block("pool", POOL_SLOTS * NUM_KINDS, "pool slot i (8 x 40): one-hot kind (all zero = empty)",
          (POOL_SLOTS, NUM_KINDS)),
    Block("tokens", 16, "token of relative seat q (2 x 8): centre, on a run, on pool line 0..3 (4), put down "
          "this turn, put down in an earlier turn", (2, 8)),
    Block("discard_top", 8 * NUM_KINDS, "discard pile top 8 cards (depth 0 = top), one-hot kind",
          (8, NUM_KINDS)),
    Block("discard_count", NUM_KINDS, "discard pile: copies of each kind / 2"),
    Block("discard_order", 80, "discard pile bottom..top as (kind+1)/40 (0 = none): its full order"),
    Block("action_tops", 2 * NUM_ACTION_KINDS, "top card of face-up action pile 0/1: one-hot action kind",
          (2, NUM_ACTION_KINDS)),
    Block("action_under", NUM_ACTION_KINDS, "action cards under the two face-up cards, copies per action "
          "kind / 2"),
    Block("action_turned", NUM_ACTION_KINDS, "the action card just turned (before the pile choice)"),
    Block("action_new_pile", 2, "pile the newest action card went on this turn"),
    Block("counts", 9, "stock/80, action stack/24, set-aside/8, discard/80, stock exhausted 0/1/2 times "
          "(one-hot 3), final turn, turn/max_turns"),
    Block("phase", NUM_PHASES, "phase one-hot (the step within the turn)"),
    Block("to_move", 2, "relative seat whose turn it is"),
    Block("flags", 8, "option used (none, A, B, C), exchange used, discard made, B card placed, B run laid"),
    Block("build", 18, "run being laid: suit (4), positions 1..11 (11), by option A, by option B, lone ace"),
    Block("b_cards", NUM_KINDS, "cards taken with option B still in the mover's hand, copies per kind / 2"),
    Block("new_slot", MAX_RUNS, "the run just laid with option A (token question)"),
    Block("pool_run_lines", 4, "pool lines the exchange just made into pool runs the token may claim"),
    Block("totals", 4, "face-up cards in runs / 80 (self, opponent), longest run / 10 (self, opponent)"),
    Block("chance", 5, "pending chance kind (draw, action card, refill, face-down card: one-hot 4) and "
          "draws still owed / 2"),
])
(O_HAND, O_OPP_KNOWN, O_HAND_N, O_RUNS, O_POOL, O_TOKENS, O_DISC_TOP, O_DISC_CNT, O_DISC_SEQ, O_ATOPS,
 O_AUNDER, O_ATURNED, O_ANEW, O_COUNTS, O_PHASE, O_TO_MOVE, O_FLAGS, O_BUILD, O_BCARDS, O_NEWSLOT,
 O_PTLINES, O_TOTALS, O_CHANCE) = (OBS_LAYOUT.offset(b.name) for b in OBS_LAYOUT.blocks[:23])
O_FACTS = OBS_LAYOUT.offset("facts")
O_REBUILT = OBS_LAYOUT.offset("rebuilt")
FACT_REFS = fact_refs(ACTIONS, {
    "pile": lambda i: (FACT_PILE_ROW + i,),
    "jack": lambda i: (FACT_RUN_ROW + i // 11, FACT_TAKE_ROW + i),
    "queen": lambda i: FACT_SLOT_ROW + QUEEN_PAIRS[i],
    "king_discard": lambda i: (FACT_TOP_ROW, FACT_TOP_ROW + 1),
    "lay": lambda k: (k,),
    "b_line": lambda line: FACT_SLOT_ROW + POOL_LINES[line],
    "exchange": lambda i: (i // POOL_SLOTS, FACT_SLOT_ROW + i % POOL_SLOTS),
    "discard": lambda k: (k,),
})
"""The ``facts`` rows each action is about (``[NUM_ACTIONS, 3]``, -1 for none): the turned action card's
pile that pile's row, a Jack its run's row and the row of the card it takes, a lay or discard its kind, an
exchange its kind and pool slot, a Queen its two slots, option B its line's three slots, the King on the
discard pile the top two discards."""


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s information state (``OBS_LAYOUT``; ``out`` is zeroed first)."""
    out[:] = 0.0
    obs_hands(s, player, out, O_HAND, O_OPP_KNOWN)
    obs_hand_sizes(s, player, out, O_HAND_N)
    obs_runs(s, player, out, O_RUNS)
    obs_pool(s, out, O_POOL)
    obs_tokens(s, player, out, O_TOKENS, True)
    n = s["disc_n"]
    for d in range(n):
        k = kind_of(s["disc"][d])
        out[O_DISC_CNT + k] += 0.5
        if n - 1 - d < 8:
            out[O_DISC_TOP + (n - 1 - d) * NUM_KINDS + k] = 1.0
    obs_discard_order(s, out, O_DISC_SEQ)
    obs_action_cards(s, out, O_ATOPS, O_AUNDER, O_ATURNED, O_ANEW)
    obs_counts(s, out, O_COUNTS)
    out[O_COUNTS + 4 + s["exhaust"]] = 1.0
    out[O_COUNTS + 7] = float(s["final_turn"])
    out[O_COUNTS + 8] = s["turn"] / float(s["max_turns"])
    obs_turn(s, player, out, O_PHASE, O_TO_MOVE)
    out[O_FLAGS + s["opt_used"]] = 1.0
    out[O_FLAGS + 4] = float(s["exch_used"])
    out[O_FLAGS + 5] = float(s["discarded"])
    out[O_FLAGS + 6] = float(s["b_done"])
    out[O_FLAGS + 7] = float(s["b_run_done"])
    obs_build(s, out, O_BUILD)
    if s["build_lo"] > 0:
        out[O_BUILD + 14 + s["opt_used"]] = 1.0  # option A's run or option B's new run
        out[O_BUILD + 17] = float(s["build_amb"])
    for c in range(NUM_NUMBER):
        if s["bflag"][c] and s["loc"][c] == LOC_HAND:  # the one-byte flag first: it is rarely set
            out[O_BCARDS + kind_of(c)] += 0.5
    if s["new_slot"] >= 0:
        out[O_NEWSLOT + s["new_slot"]] = 1.0
    for line in range(4):
        if (s["ptoken_lines"] >> line) & 1:
            out[O_PTLINES + line] = 1.0
    obs_totals(s, player, out, O_TOTALS)
    obs_chance(s, out, O_CHANCE, 4)
    obs_facts(s, player, out, O_FACTS)
    if s["exhaust"] > 0:
        obs_rebuilt(s, player, out)


@nb.njit
def obs_rebuilt(s, player, out) -> None:
    """The ``rebuilt`` block (:data:`~octagames.octa.common.REBUILT`) of ``player``'s observation."""
    need = np.empty(NUM_KINDS, dtype=np.int64)
    rebuilt_need(s, player, need)
    for k in range(NUM_KINDS):
        out[O_REBUILT + k] = need[k] * 0.5
    for q in range(2):
        out[O_REBUILT + NUM_KINDS + q] = s["rs_in"][(player + q) % 2] / 80.0
    out[O_REBUILT + NUM_KINDS + 2] = s["rs_f"] / 80.0
    for c in range(NUM_NUMBER):
        if s["rs_fd"][c]:
            i = s["lidx"][c]
            out[O_REBUILT + REBUILT_FD_ROW + (i // NPOS) * 11 + i % NPOS - 1] = 1.0


# ---------------------------------------------------------------- the turn machinery's hooks
@nb.njit
def turn_start(s) -> None:
    """Clear the English per-turn fields (the turn machinery clears the shared ones)."""
    s["opt_used"] = 0
    s["b_run_done"] = 0
    s["new_slot"] = -1
    s["ptoken_lines"] = 0


@nb.njit
def enter(s, phase) -> None:
    """Go on to player phase ``phase``."""
    s["phase"] = phase


@nb.njit
def after_action_step(s) -> None:
    """After the action card: step 3, the options."""
    s["phase"] = PH_OPTION


@nb.njit
def score(s, p) -> int:
    """Without a winner the most face-up cards in runs wins (face-down cards do not count)."""
    return table_faceup(s, p)


@nb.njit
def winner(s) -> int:
    """The win rule, "as soon as", for either seat: an Octa (8+ face-up cards in one run) and 28+
    face-up cards in runs. The seat to move is checked first (one action changes one seat's runs, so
    both cannot reach it at once)."""
    for i in range(2):
        p = (s["cur"] + i) % 2
        if longest_run(s, p) >= 8 and table_faceup(s, p) >= 28:
            return p
    return -1


@nb.njit
def _rebuild_stock(s) -> None:
    """First exhaustion: the discard pile and every run of exactly 3 cards become the stock.

    A run's length counts its face-up cards only; the whole run (face-down
    cards included) goes to the stock, and a token on it returns to the centre.
    Both seats saw the face-up cards go in: ``rs_up`` counts them per kind,
    ``rs_f`` the face-down ones, and ``rs_hid`` what is hidden from each seat
    right after (``rebuilt_need``).
    """
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_DISCARD:
            s["rs_up"][kind_of(c)] += 1
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
                if s["run_fd"][r, pos] == 0:
                    s["rs_up"][kind_of(c)] += 1
                else:
                    s["rs_f"] += 1
                detach(s, c)
                to_stock(s, c)
            free_run(s, r)
    hid = np.empty(NUM_KINDS, dtype=np.int64)
    for q in range(2):
        hidden_kinds(s, q, hid)
        for k in range(NUM_KINDS):
            s["rs_hid"][q, k] = hid[k]


@nb.njit
def stock_emptied(s) -> None:
    """The stock ran out: the first time it is rebuilt; the second time this is the last turn."""
    if s["exhaust"] == 0:
        s["exhaust"] = 1
        _rebuild_stock(s)
        if s["stock_n"] > 0:
            return
    s["exhaust"] = 2
    s["final_turn"] = 1


@nb.njit
def chance_fits(s, p) -> bool:
    """Whether seat ``p``, whose turn waits on a chance draw, can go on after it: always (no English draw
    depends on the hand)."""
    return True


@nb.njit
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
@nb.njit
def _holds_all(positions, lo, hi) -> bool:
    """Whether the set ``positions`` (bit ``q`` for position ``q``) holds every position ``lo..hi`` (an empty
    range when ``hi < lo``: True)."""
    span = (1 << (hi + 1)) - (1 << lo)
    return positions & span == span


@nb.njit
def _interval_ok(avail, bpos, need_lo, need_hi, need_b) -> bool:
    """A run [a, b] of 3..10 positions, all available, containing [need_lo, need_hi] exists.

    ``avail`` and ``bpos`` are sets of positions (bit ``q`` for position ``q``, 1..11: bits, not
    arrays, so that the legal mask allocates nothing). With ``need_b`` the run must also contain a
    position of ``bpos``. Such a run lies in the longest block of available positions around
    [need_lo, need_hi]: it exists when that block holds 3 positions and, with ``need_b``, a position
    of ``bpos`` lies in the block within a span of 10 of [need_lo, need_hi] (the run from the two, grown
    in the block to 3 positions if shorter). The same answers as growing every run from every start,
    for every input (checked exhaustively when this replaced that loop).
    """
    if need_lo < 1 or need_hi > 11 or need_hi - need_lo + 1 > 10:
        return False
    if not _holds_all(avail, need_lo, need_hi):
        return False
    lo, hi = need_lo, need_hi  # the longest block of available positions around [need_lo, need_hi]
    while lo > 1 and (avail >> (lo - 1)) & 1:
        lo -= 1
    while hi < 11 and (avail >> (hi + 1)) & 1:
        hi += 1
    if hi - lo + 1 < 3:
        return False
    if not need_b:
        return True
    for x in range(lo, hi + 1):
        if (bpos >> x) & 1 and max(need_hi, x) - min(need_lo, x) < 10:
            return True
    return False


@nb.njit
def _suit_avail(s, p, suit) -> tuple[int, int]:
    """The positions 1..11 of ``suit`` for which ``p`` holds a free card, and those where it is a B card
    (two sets of positions, bit ``q`` for position ``q``)."""
    avail = bpos = 0
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
        if a:
            avail |= 1 << q
        if b:
            bpos |= 1 << q
    return avail, bpos


@nb.njit
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


@nb.njit
def _mark_sels(s, p, out) -> int:
    """Mark ``out[A_SEL + k]`` for every kind ``k`` whose card ``p`` may lay next in the run being laid
    (:func:`_sel_legal`); return how many. A suit's free cards are found once for all its kinds."""
    n = 0
    for suit in range(4):
        if s["build_lo"] > 0 and suit != s["build_suit"]:
            continue  # the run being laid is of one suit (_sel_target)
        if kinds_held(s, p, suit) < 3:  # cheaply first: no run of the suit can be completed
            continue
        avail, bpos = _suit_avail(s, p, suit)
        for k in range(suit * 10, suit * 10 + 10):
            if s["hand_cnt"][p, k] > 0 and _sel_legal(s, p, k, avail, bpos):
                out[A_SEL + k] = 1
                n += 1
    return n


@nb.njit
def _sel_legal(s, p, k, avail, bpos) -> bool:
    """Whether laying a card of kind ``k`` keeps the run being laid completable (``avail``, ``bpos``: the
    positions of its suit with a free card of ``p``, and with a B card, from :func:`_suit_avail`)."""
    ok, lo, hi, amb = _sel_target(s, p, k)
    if not ok:
        return False
    need_b = s["opt_used"] == 2  # option B's new run must hold a taken card
    c_new = hand_card_of_kind(s, p, k)
    b_new = s["bflag"][c_new] == 1
    # the new card itself is available at its target position(s)
    if amb:
        ends = (1 << 1) | (1 << 11)
        avail |= ends
        bpos = bpos | ends if b_new else bpos & ~ends
        return _interval_ok(avail, bpos, 1, 1, need_b) or _interval_ok(avail, bpos, 11, 11, need_b)
    q_new = _sel_pos(k, lo, amb)
    for q in range(lo, hi + 1):
        avail |= 1 << q
        if q == q_new:
            b = b_new
        elif q == 11 and s["build_amb"]:  # the lone ace moves from position 1 to 11
            b = s["bflag"][s["build_card"][1]] == 1
        elif s["build_card"][q] >= 0:
            b = s["bflag"][s["build_card"][q]] == 1
        else:
            continue
        bpos = bpos | (1 << q) if b else bpos & ~(1 << q)
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
def _b_feasible(s, p, rm_card, ext_slot, ext_pos, line) -> bool:
    """Whether a card taken with option B can still go on the table.

    Counts ``p``'s hand (plus the cards of pool ``line`` when it is >= 0, as
    if just taken), removes hand card ``rm_card`` (when >= 0: the copy that an
    addition or replacement would play, :func:`hand_card_of_kind`), and
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
    if rm_card >= 0:
        cnt[kind_of(rm_card)] -= 1
        if s["bflag"][rm_card]:
            bc[kind_of(rm_card)] -= 1
    for suit in range(4):
        anyb = False
        for r in range(10):
            if bc[suit * 10 + r] > 0:
                anyb = True
        if not anyb:
            continue
        avail = 0  # the positions of the suit with a card (bit q for position q)
        for q in range(1, 12):
            if cnt[kind_at(suit, q)] > 0:
                avail |= 1 << q
        for q in range(1, 12):
            if bc[kind_at(suit, q)] <= 0:
                continue
            if s["b_run_done"] == 0 and _interval_ok(avail, 0, q, q, False):
                return True
            for r in range(MAX_RUNS):
                if s["run_owner"][r] != p or s["run_suit"][r] != suit:
                    continue
                lo = s["run_lo"][r]
                hi = s["run_hi"][r]
                if r == ext_slot:
                    lo = min(lo, ext_pos)
                    hi = max(hi, ext_pos)
                if q > hi and q - lo + 1 <= 10 and _holds_all(avail, hi + 1, q - 1):
                    return True
                if q < lo and hi - q + 1 <= 10 and _holds_all(avail, q + 1, lo - 1):
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
    """Additions to any run on the table and face-down replacements (allowed any time in the turn).

    While option B's placement is still owed, an action is offered only if a
    taken card can still reach the table afterwards (so no dead end exists); a
    taken card counts only in the mover's own run ("an extension of your own run"). The copy such an
    addition or replacement plays is ``hand_card_of_kind(..., keep_b=True)`` (:func:`apply`).
    """
    owed = s["phase"] == PH_BPLACE and s["b_done"] == 0
    n = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] < 0:
            continue
        suit = s["run_suit"][r]
        own = s["run_owner"][r] == p
        for end in range(2):
            pos = extend_pos(s, r, end)
            if pos < 0:
                continue
            k = kind_at(suit, pos)
            if s["hand_cnt"][p, k] <= 0:
                continue
            if owed and not (own and _has_b_copy(s, p, k)) and not _b_feasible(
                    s, p, hand_card_of_kind(s, p, k, True), r if own else -1, pos, -1):
                continue
            out[A_ADD + r * 2 + end] = 1
            n += 1
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
            if s["run_fd"][r, pos] == 0 or (r == s["jack_slot"] and pos == s["jack_pos"]):
                continue  # face up, or laid by this turn's Jack ("later" replaced)
            k = kind_at(suit, pos)
            if s["hand_cnt"][p, k] <= 0:
                continue
            if owed and not _b_feasible(s, p, hand_card_of_kind(s, p, k, True), -1, -1, -1):
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
def _holds_protected(s, line, q) -> bool:
    """Whether pool ``line`` holds a slot of seat ``q``'s token pool run: a card of that run, which the other
    seat can no longer take ("a card from this run can no longer be taken by the opponent")."""
    for i in range(3):
        if slot_protected_by(s, POOL_LINES[line, i], q):
            return True
    return False


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
        n = 1 + _mark_sels(s, p, out)
        if s["token_loc"][p] == TOK_RUN and s["token_turn"][p] < s["turn"]:
            for line in range(4):
                if _b_line_legal(s, p, line):
                    out[A_BLINE + line] = 1
                    n += 1
        line = s["token_idx"][p]
        if s["token_loc"][p] == TOK_POOL and pool_line_is_run(s, line) and not _holds_protected(s, line, 1 - p):
            out[A_C] = 1
            n += 1
        return n + _gen_free(s, p, out)
    if ph == PH_BUILD:
        n = _mark_sels(s, p, out)
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
            n += _mark_sels(s, p, out)
        return n + _gen_free(s, p, out)
    if ph == PH_EXCH:
        out[A_EXCH_SKIP] = 1
        n = 1
        held = 0  # bit k: a card of kind k the hand can give
        for k in range(NUM_KINDS):
            if s["hand_cnt"][p, k] > 0 and hand_card_of_kind(s, p, k) >= 0:
                held |= 1 << k
        for slot in range(POOL_SLOTS):
            if s["pool"][slot] < 0 or slot_protected_by(s, slot, 1 - p):
                continue
            fits = exchange_kinds(s, slot) & held
            for k in range(NUM_KINDS):  # every kind's entry written (0 or 1): no branch per kind
                bit = (fits >> k) & 1
                out[A_EXCH + k * POOL_SLOTS + slot] = bit
                n += bit
        return n + _gen_free(s, p, out)
    if ph == PH_PTOKEN:
        out[A_PTOKEN_NO] = 1
        n = 1
        for line in range(4):  # (a record saved before that rule may still name a run the opponent protects)
            if (s["ptoken_lines"] >> line) & 1 and not _holds_protected(s, line, 1 - p):
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
def _new_run(s, p, suit, lo, hi) -> int:
    r = free_run_slot(s)
    s["run_owner"][r] = p
    s["run_suit"][r] = suit
    s["run_lo"][r] = lo
    s["run_hi"][r] = hi
    return r


@nb.njit
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


@nb.njit
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
    elif a < A_FD:  # add a hand card to an end of a run
        i = a - A_ADD
        r = i // 2
        pos = extend_pos(s, r, i % 2)
        k = kind_at(s["run_suit"][r], pos)
        if s["run_owner"][r] == p:
            c = hand_card_of_kind(s, p, k)  # a taken B card first: it settles option B
            if s["bflag"][c]:
                s["b_done"] = 1
        else:  # the opponent's run: among known copies one not taken with option B (it counts only in
            c = hand_card_of_kind(s, p, k, True)  # an own run); a known copy always before a hidden one
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
        # while option B is owed a known copy not taken with it goes first (a replacement settles nothing)
        c = hand_card_of_kind(s, p, k, ph == PH_BPLACE and s["b_done"] == 0)
        fd = s["run_card"][r, pos]
        if s["rs_fd"][fd]:  # a hidden card of the rebuilt stock comes to the hand
            s["rs_in"][p] += 1
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
        for line in range(4):  # a run sharing a card with the opponent's token run cannot be claimed
            if (made >> line) & 1 and _holds_protected(s, line, 1 - p):
                made &= ~(1 << line)
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


# ---------------------------------------------------------------- strings and reasons (Python)
def _jack_string(s, i: int) -> str:
    r, pos = divmod(i, 11)
    pos += 1
    if int(s["run_owner"][r]) < 0:
        return f"Jack: replace position {pos} of run slot {r} (empty slot) with a face-down card"
    return (f"Jack: replace {pos_name(int(s['run_suit'][r]), pos)} in P{int(s['run_owner'][r])}'s "
            f"run {run_string(s, r)} with a face-down card (slot {r})")


def _queen_string(s, i: int) -> str:
    a, b = (int(x) for x in QUEEN_PAIRS[i])
    return (f"Queen: take {card_name(int(s['pool'][a]))} ({POOL_SLOT_NAMES[a]}) and "
            f"{card_name(int(s['pool'][b]))} ({POOL_SLOT_NAMES[b]}) from the pool")


def _lay_string(s, i: int) -> str:
    ph = int(s["phase"])
    verb = {PH_OPTION: "start a new run (option A) with", PH_BPLACE: "start option B's new run with"}
    return f"{verb.get(ph, 'lay')} {kind_name(i)}"


def _add_string(s, i: int) -> str:
    r, end = divmod(i, 2)
    if int(s["run_owner"][r]) < 0:
        return f"add to the {'low' if end == 0 else 'high'} end of run slot {r} (empty slot)"
    pos = int(s["run_lo"][r]) - 1 if end == 0 else int(s["run_hi"][r]) + 1
    card = pos_label(int(s["run_suit"][r]), pos) if 1 <= pos <= 11 else "nothing"  # (an ace: which end)
    return f"add {card} to run {run_string(s, r)} (slot {r})"


def _replace_string(s, i: int) -> str:
    r, pos = divmod(i, 11)
    pos += 1
    if int(s["run_owner"][r]) < 0:
        return f"replace the face-down card at position {pos} of run slot {r} (empty slot)"
    return (f"replace the face-down card in run {run_string(s, r)} with "
            f"{pos_name(int(s['run_suit'][r]), pos)} and take it into your hand (slot {r})")


def _exchange_string(s, i: int) -> str:
    k, slot = divmod(i, POOL_SLOTS)
    return (f"exchange {kind_name(k)} from your hand with {card_name(int(s['pool'][slot]))} "
            f"({POOL_SLOT_NAMES[slot]}) in the pool")


# The name of an action of each block: ``STRINGS[block](s, index in the block)``; it depends only on
# what every seat sees.
STRINGS = {
    "pile": pile_string,
    "decline": decline_string,
    "jack": _jack_string,
    "queen": _queen_string,
    "king_stock": lambda s, i: "King: draw 2 cards from the stock",
    "king_discard": lambda s, i: "King: take the top 2 cards of the discard pile",
    "no_option": lambda s, i: "play none of options A, B, C",
    "lay": _lay_string,
    "commit": lambda s, i: "commit the run being laid",
    "token_run": lambda s, i: "put your token on the new run",
    "token_keep": lambda s, i: "keep your token in the pool centre",
    "b_line": lambda s, i: f"option B: take the pool's {LINE_NAMES[i]}",
    "b_done": lambda s, i: "option B: done placing (refill the pool)",
    "option_c": lambda s, i: "option C: take the pool run carrying your token",
    "add": _add_string,
    "replace": _replace_string,
    "exchange": _exchange_string,
    "pool_token": lambda s, i: f"put your token on the pool run along the {LINE_NAMES[i]}",
    "pool_token_no": lambda s, i: "leave your token in the pool centre",
    "no_exchange": lambda s, i: "no exchange with the pool",
    "discard": lambda s, i: f"discard {kind_name(i)}",
    "end_turn": lambda s, i: "end the turn without discarding",
    "unused": lambda s, i: f"action {ACTIONS.offset('unused') + i} (not used by the English rules)",
}



_USE = ("an action card is used only right after it is placed, when both face-up cards share a suit; "
        "now: {step}")


def _use_reason(why: str):
    def reason(s, p: int, i: int, step: str) -> str:
        return why if int(s["phase"]) == PH_USE else _USE.format(step=step)
    return reason


def _jack_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) != PH_USE:
        return _USE.format(step=step)
    if int(s["stock_n"]) == 0:
        return "the Jack needs a face-down card from the stock, and the stock is empty"
    return ("the Jack replaces a face-up card of a run, and at least one face-up card must remain in the run "
            "(or the new card is not a Jack)")


def _option_reason(why: str):
    def reason(s, p: int, i: int, step: str) -> str:
        if int(s["phase"]) != PH_OPTION:
            return f"options A, B and C are chosen in step 3, at most one per turn; now: {step}"
        return why
    return reason


def _lay_reason(s, p: int, i: int, step: str) -> str:
    if int(s["hand_cnt"][p, i]) == 0:
        return f"you hold no {kind_name(i)}"
    if int(s["phase"]) not in (PH_OPTION, PH_BUILD, PH_BPLACE):
        return f"new runs are laid only with option A or B; now: {step}"
    return (f"{kind_name(i)} does not continue the run being laid, or no run of at least 3 consecutive cards "
            "of one suit (with a card taken from the pool in option B) can be completed with it")


def _b_done_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) != PH_BPLACE:
        return f"option B's placement is ended only during option B; now: {step}"
    return "at least one of the cards taken from the pool must go on the table at once"


def _free_reason(why: str):
    def reason(s, p: int, i: int, step: str) -> str:
        if int(s["phase"]) not in (PH_USE, PH_OPTION, PH_BPLACE, PH_EXCH, PH_DISCARD):
            return f"cards are added to runs during your turn, but not while: {step}"
        return why
    return reason


def _exchange_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) != PH_EXCH:
        return f"the exchange with the pool is step 4, once per turn; now: {step}"
    k, slot = divmod(i, POOL_SLOTS)
    if int(s["hand_cnt"][p, k]) == 0:
        return f"you hold no {kind_name(k)}"
    if int(s["pool"][slot]) < 0:
        return "that pool space is empty"
    return ("the card you place must be next (horizontally or vertically) to a pool card of the same suit one "
            "rank higher or lower, and cards of the opponent's token run cannot be taken")


def _discard_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) not in (PH_DISCARD, PH_DDOWN):
        return f"discarding is step 5; now: {step}"
    return f"you hold no {kind_name(i)}"


def _end_turn_reason(s, p: int, i: int, step: str) -> str:
    if int(s["phase"]) != PH_DISCARD:
        return f"the turn ends after step 5; now: {step}"
    return "with 8 or more cards in hand you must discard"


_POOL_TOKEN = ("a token goes on a pool run only right after your exchange made it, while your token is in the "
               "centre, and not on a run holding a card of the opponent's token run")
# Why an action of each block is refused, in the rulebook's words:
# ``REASONS[block](s, seat to move, index in the block, phase name)``; it depends only on what that seat sees.
REASONS = {
    "pile": pile_reason,
    "decline": _use_reason("the action card may always be declined in its use"),
    "jack": _jack_reason,
    "queen": _use_reason("the Queen takes two pool cards of the same suit; cards of a pool run carrying a "
                         "token are protected (or the new card is not a Queen)"),
    "king_stock": _use_reason("the new action card is not a King"),
    "king_discard": _use_reason("the new action card is not a King, or the discard pile is empty"),
    "no_option": _option_reason("playing no option is always allowed in step 3"),
    "lay": _lay_reason,
    "commit": lambda s, p, i, step: ("a run needs at least 3 consecutive cards of one suit (in option B, one "
                                     "taken from the pool)"),
    "token_run": lambda s, p, i, step: ("the token may be put only on a run just laid with option A, while it "
                                        "is in the pool centre"),
    "b_line": _option_reason("option B needs your token on your run since an earlier turn, a line without a "
                             "protected card, and a way to put at least one of its cards on the table at once"),
    "b_done": _b_done_reason,
    "option_c": _option_reason("option C needs a pool run carrying your token and no card of the opponent's "
                               "token run"),
    "add": _free_reason("you may add to any run on the table, at an end, with the card that continues the run "
                        "(at most 10 cards, the ace low or high but not both); while option B is owed, only "
                        "if a taken card can still go into your own run or a new run"),
    "replace": _free_reason("a face-down card can be replaced only with the card it stands for, from your "
                            "hand"),
    "exchange": _exchange_reason,
    "pool_token": lambda s, p, i, step: _POOL_TOKEN,
    "pool_token_no": lambda s, p, i, step: _POOL_TOKEN,
    "no_exchange": lambda s, p, i, step: f"this is not the exchange step; now: {step}",
    "discard": _discard_reason,
    "end_turn": _end_turn_reason,
    "unused": lambda s, p, i, step: "this action id is not used by the English rules",
}
REASONS["token_keep"] = REASONS["token_run"]


# ---------------------------------------------------------------- the text render's English parts
RULES_NAME = "English rules"
END_NAMES = {1: "win rule", 2: "second stock exhaustion", 3: "turn cap"}


def table_notes(s) -> list[str]:
    """Lines about English-only pieces of the table (none)."""
    return []


def seat_notes(s, q: int) -> list[str]:
    """Lines about English-only pieces of seat ``q`` (none)."""
    return []
