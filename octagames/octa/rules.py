"""Octa rules engine ("The Game of 8"): English rules and Dutch rules (``rules="nl"``).

Octa is a two-player rummy-like game with two 52-card decks. Number cards (A,
2..10) form runs of one suit; Jacks, Queens and Kings are *action cards* turned
one per turn onto two face-up piles, usable when the two visible action cards
share a suit. A pool ring of 8 face-up cards, two tokens and face-down cards
complete the table. English aim: an *Octa* (a run of 8+ face-up cards) and 28+
face-up cards in your runs. The shared table pieces are in
:mod:`octagames.octa.common`; the English turn is in :mod:`octagames.octa.en`;
the Dutch rules (``Config(rules="nl")``, their own phases and action table in
:mod:`octagames.octa.nl`, same action-space and observation sizes) dispatch on
the record's ``rules`` field. The rule interpretations are listed in
``docs/rules/octa_en.md`` and ``docs/rules/octa_nl.md``. The tables below
describe the English rules; the Dutch differences are in the ``nl`` docstring
and in ``rules._observation_nl``.

Card ids
--------
``0..79``: number cards ``copy*40 + suit*10 + rank-1`` (rank 1 = ace; suits
♥ ♠ ♦ ♣). ``80..103``: action cards ``80 + copy*12 + suit*3 + type`` (type 0
Jack, 1 Queen, 2 King). A card's *kind* is ``c % 40`` (number) — copies are
interchangeable for the rules, so player actions name kinds, never copies.

Turn phases (``phase``)
-----------------------
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

Additions to your own runs and face-down replacements ("at any time during
your own turn") are offered in phases 4, 5, 8, 9 and 11. They are not offered
while a run is being laid (phase 6: a card added elsewhere could strand it),
during the two token questions, the pile choice or the hand-limit discards;
doing them in a neighbouring phase has the same effect.

Action table (``NUM_ACTIONS`` = 1074)
-------------------------------------
===========  =====  ====================================================
first id     count  meaning
===========  =====  ====================================================
0            2      put the turned action card on pile 0 / 1
2            1      do not use the action card
3            286    Jack: run slot*11 + (position-1), the face-up card replaced
289          28     Queen: pool slot pair (i<j, lexicographic)
317          1      King: draw 2 cards from the stock
318          1      King: take the top 2 cards of the discard pile
319          1      no option A/B/C this turn
320          40     lay a hand card of kind k in the run being laid (first card
                    = option A, or option B's new run)
360          1      commit the run being laid
361          1      put the token on the new run
362          1      keep the token in the centre
363          4      option B: take pool line 0..3 (top, bottom, left, right)
367          1      option B: placement done (refill the pool)
368          1      option C: take the pool run carrying your token
369          52     add a hand card to run slot*2 + end (0 low, 1 high); the
                    card is the one that fits there
421          286    replace the face-down card at run slot*11 + (position-1)
                    with its true card (the face-down card goes to your hand)
707          320    exchange: hand kind*8 + pool slot
1027         4      put the token on the pool run along line 0..3
1031         1      leave the token in the centre
1032         1      no exchange
1033         40     discard a card of kind k
1073         1      end the turn without discarding (fewer than 8 cards)
===========  =====  ====================================================

Chance outcome ids are card ids (stock number cards, or action cards never
seen), plus 0/1 for the start player: ``max_chance_outcomes`` = 104.
The stock is an unordered set: each stock draw draws uniformly among the
cards in it, so no stock order is stored. Hidden action cards (stack and
set-aside) are one unordered set too: no one has seen which are set aside.

State (``STATE_DTYPE``, see :func:`octagames.octa.common.make_state_dtype`)
----------------------------------------------------------------------------
``loc[c]``/``lidx[c]`` place every card: stock, hand (seat), pool (slot), run
(slot*12 + position, face up or down per ``run_fd``), discard (depth),
hidden action cards, action pile (pile*24 + depth), turned action card.
``hand_cnt``, ``stock_n``, ``pool``, ``disc``, ``run_*``, ``apile`` index the
same placement. Runs live in 26 global slots (every run holds >= 3 physical
cards, 80 // 3 = 26); positions 1..11 (11 = the high ace). ``pub[c]`` marks
hand cards the other seat saw being taken (Jack, Queen, King from the discard
pile, option B, the exchange, cards shown while laying a run). Tokens:
``token_loc`` (centre / own run / pool line), ``token_idx``, ``token_turn``.

Observation (seats relative to the viewer; ``OBS_SIZE`` = 1818)
-----------------------------------------------------------------
======  =====  ===============================================================
offset  size   meaning
======  =====  ===============================================================
0       40     own hand: copies held of each kind / 2
40      40     opponent hand: copies of each kind known to be there / 2
80      2      hand sizes (self, opponent) / 80
82      780    run slot r (26 × 30): owner self, owner opponent, suit one-hot
               (4), face-up at positions 1..11 (11), face-down at positions
               1..11 (11), token of self, token of opponent on it
862     320    pool slot i (8 × 40): one-hot kind (all zero = empty)
1182    16     token of relative seat q (2 × 8): centre, on a run, on pool
               line 0..3 (4), put down this turn, put down in an earlier turn
1198    320    discard pile top 8 cards (depth 0 = top), one-hot kind
1518    40     discard pile: copies of each kind / 2
1558    80     discard pile bottom..top as (kind+1)/40 (0 = none): full order
1638    24     top card of face-up action pile 0/1: one-hot action kind
1662    12     action cards under the two face-up cards, copies per action kind / 2
1674    12     the action card just turned (before the pile choice)
1686    2      pile the newest action card went on this turn
1688    9      stock/80, action stack/24, set-aside/8, discard/80, stock
               exhausted 0/1/2 times (one-hot 3), final turn, turn/max_turns
1697    14     phase one-hot (the step within the turn)
1711    2      relative seat whose turn it is
1713    8      option used (none, A, B, C), exchange used, discard made,
               B card placed, B run laid
1721    18     run being laid: suit (4), positions 1..11 (11), by option A,
               by option B, lone ace
1739    40     cards taken with option B still in the mover's hand, copies per kind / 2
1779    26     the run just laid with option A (token question)
1805    4      pool lines the exchange just made into pool runs
1809    4      face-up cards in runs / 80 (self, opp), longest run / 10
1813    5      pending chance kind (4, one-hot) and draws still owed / 2
======  =====  ===============================================================

Every entry lies in [0, 1]. Face-down cards are shown only as
face-down; the stock, the hidden action cards and the opponent's hand cards
not taken openly are not shown. Everything a player has seen that still
matters is there: the discard order is public, pool and runs are face up.

Game length
-----------
Every turn draws a stock card and the stock is rebuilt once, so a game has
at most 56 + 72 + 1 turns; the engine cap ``max_turns`` (default and maximum
200) ends the game like the second stock exhaustion in any case. One turn
has at most ``TURN_ACTION_BOUND`` = 300 actions, chance included (at most 8
chance draws, 1 pile choice, 1 use, 13 option steps, 80 additions, 80
face-down replacements, 2 exchange steps, 80 discards, 1 end), so
``max_game_length`` = 26 + 1 + 200 * 300.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from octagames.core import CHANCE, TERMINAL, GameInfo, check_choice, check_range, rng_below, seed_rng
from octagames.octa import en, nl
from octagames.octa.common import (ACTION_TYPES, LINE_NAMES, LOC_AHIDDEN, LOC_HAND, LOC_JOKER,
                                   LOC_RESERVE, LOC_UNDER,
                                   LOC_RUN, LOC_STOCK, MAX_RUNS, NPOS, NUM_ACTION_KINDS,
                                   NUM_CARDS, NUM_KINDS, NUM_NUMBER, POOL_SLOT_NAMES,
                                   POOL_SLOTS, QUEEN_PAIRS, RANK_NAMES, SUIT_SYMBOLS, TOK_CENTRE,
                                   TOK_POOL, TOK_RUN, hidden_action_count, kind_at, kind_of,
                                   longest_run, make_state_dtype, nth_card_at, random_stock_card,
                                   table_faceup)
from octagames.octa.en import (A_ADD, A_BLINE, A_C, A_COMMIT, A_DECLINE, A_DISCARD, A_END_B,
                               A_END_TURN, A_EXCH, A_EXCH_SKIP, A_FD, A_JACK, A_KING_DISC,
                               A_KING_STOCK, A_PILE, A_PTOKEN, A_PTOKEN_NO, A_QUEEN, A_SEL,
                               A_SKIP_OPT, A_TOKEN_NO, A_TOKEN_RUN, CK_ACTION, NUM_ACTIONS,
                               PH_BPLACE, PH_BUILD, PH_CHANCE, PH_DDOWN, PH_DEAL,
                               PH_DISCARD, PH_EXCH, PH_OPTION, PH_START,
                               PH_USE, PHASE_NAMES, SETUP_DEALS, TURN_ACTION_BOUND)

RULE_SETS = ("en", "nl")
MAX_TURNS_LIMIT = 200
OBS_SIZE = 1818
# Observation offsets (see the module docstring).
O_HAND, O_OPP_KNOWN, O_HAND_N, O_RUNS, O_POOL, O_TOKENS = 0, 40, 80, 82, 862, 1182
O_DISC_TOP, O_DISC_CNT, O_DISC_SEQ, O_APILE = 1198, 1518, 1558, 1638
O_AUNDER, O_ADRAWN, O_ANEW = 1662, 1674, 1686
O_COUNTS, O_PHASE, O_TO_MOVE, O_FLAGS, O_BUILD, O_BCARDS = 1688, 1697, 1711, 1713, 1721, 1739
O_NEWSLOT, O_PTLINES, O_SCORE, O_CHANCE = 1779, 1805, 1809, 1813
RUN_STRIDE = 30

STATE_DTYPE = make_state_dtype()

INFO = GameInfo(
    name="octa",
    min_players=2,
    max_players=2,
    num_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    observation_size=OBS_SIZE,
    max_game_length=SETUP_DEALS + 1 + MAX_TURNS_LIMIT * TURN_ACTION_BOUND,
    min_utility=-1.0,
    max_utility=1.0,
    chance_mode="explicit",
    dynamics="sequential",
    information="imperfect",
)


@dataclass(frozen=True)
class Config:
    """Octa configuration.

    Attributes:
        rules: ``"en"`` (the English rulebook) or ``"nl"`` (the Dutch one,
            version 18-09-25, in :mod:`octagames.octa.nl`).
        num_players: always 2.
        max_turns: engine cap on the number of turns (1..200); when reached the
            game ends like the second stock exhaustion (most face-up cards in
            runs wins). The stock limits a game to about 130 turns anyway.
    """

    rules: str = "en"
    num_players: int = 2
    max_turns: int = MAX_TURNS_LIMIT

    def __post_init__(self) -> None:
        check_choice("rules", self.rules, list(RULE_SETS))
        check_range("num_players", self.num_players, 2, 2)
        check_range("max_turns", self.max_turns, 1, MAX_TURNS_LIMIT)


def max_game_length(config: Config) -> int:
    """Bound on the actions of a game under ``config`` (setup, then ``max_turns`` bounded turns)."""
    return SETUP_DEALS + 1 + config.max_turns * TURN_ACTION_BOUND


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["rules"] = RULE_SETS.index(config.rules)
    s["max_turns"] = config.max_turns


# ---------------------------------------------------------------- kernels
@nb.njit
def reset(s, seed) -> None:
    """Start a new game in ``s`` (keeping its config): every card in the stock or the action stack.

    Args:
        s: a record with its config written by :func:`write_config`.
        seed: seeds the record's RNG (used by :func:`sample_chance`).
    """
    seed_rng(s, seed)
    s["phase"] = PH_DEAL
    s["cur"] = 0
    s["start_player"] = -1
    s["deal_i"] = 0
    s["ch_kind"] = 0
    s["ch_left"] = 0
    s["ch_next"] = 0
    s["ch_slot"] = -1
    s["ch_pos"] = -1
    s["turn"] = 0
    s["moves"] = 0
    s["terminal"] = 0
    s["winner"] = -1
    s["end_reason"] = 0
    s["returns"][:] = 0.0
    for c in range(NUM_CARDS):
        s["loc"][c] = LOC_STOCK if c < NUM_NUMBER else LOC_AHIDDEN
        s["lidx"][c] = 0
    s["pub"][:] = 0
    s["bflag"][:] = 0
    s["inbuild"][:] = 0
    s["hand_cnt"][:, :] = 0
    s["hand_n"][:] = 0
    s["stock_n"] = NUM_NUMBER
    s["pool"][:] = -1
    s["disc"][:] = -1
    s["disc_n"] = 0
    s["run_owner"][:] = -1
    s["run_suit"][:] = -1
    s["run_lo"][:] = 0
    s["run_hi"][:] = 0
    s["run_card"][:, :] = -1
    s["run_fd"][:, :] = 0
    s["token_loc"][:] = TOK_CENTRE
    s["token_idx"][:] = -1
    s["token_turn"][:] = -1
    s["apile"][:, :] = -1
    s["apile_n"][:] = 0
    s["astack_n"] = 16
    s["aside_n"] = 8
    s["adrawn"] = -1
    s["anew_pile"] = -1
    s["exhaust"] = 0
    s["final_turn"] = 0
    s["opt_used"] = 0
    s["exch_used"] = 0
    s["discarded"] = 0
    s["build_mode"] = 0
    s["build_suit"] = -1
    s["build_lo"] = 0
    s["build_hi"] = 0
    s["build_amb"] = 0
    s["build_card"][:] = -1
    s["b_done"] = 0
    s["b_run_done"] = 0
    s["new_slot"] = -1
    s["ptoken_lines"] = 0
    s["under"][:] = -1
    s["res_n"][:] = 0
    s["octa_mask"][:] = 0
    s["joker_used"] = 0
    s["jok_pos"] = -1
    s["kpick_seat"] = -1
    s["kpick_left"] = 0
    s["moves_turn"] = 0


@nb.njit
def current_player(s) -> int:
    """The seat to move, CHANCE, or TERMINAL."""
    if s["terminal"]:
        return TERMINAL
    ph = s["phase"]
    if ph == PH_DEAL or ph == PH_START or ph == PH_CHANCE:
        return CHANCE
    return s["cur"]


@nb.njit
def acting_player(s) -> int:
    """Same as :func:`current_player` (the game is sequential)."""
    return current_player(s)


@nb.njit
def legal_mask(s, player, out) -> int:
    """Legal actions of ``player`` (zeros unless it is their decision).

    Args:
        s: the record.
        player: the seat asking.
        out: uint8[NUM_ACTIONS], overwritten with the mask.

    Returns:
        the number of legal actions.
    """
    if current_player(s) != player:
        out[:] = 0
        return 0
    if s["rules"] == 1:
        return nl.gen_legal(s, player, out)
    return en.gen_legal(s, player, out)


@nb.njit
def apply_action(s, action) -> bool:
    """Apply a chance outcome or the mover's action.

    Args:
        s: the record, changed in place.
        action: a chance outcome id at chance nodes, else a player action id.

    Returns:
        True if applied; False (and ``s`` untouched) if the action is illegal.
    """
    return _apply(s, action, True)


@nb.njit
def apply_legal(s, action) -> bool:
    """:func:`apply_action` for an action known to be legal (from :func:`legal_mask`): the
    player's move skips the legality check (the contract's optional fast apply; chance
    outcomes are still checked)."""
    return _apply(s, action, False)


@nb.njit
def _apply(s, action, checked) -> bool:
    # the rule set's chance or player move; ``checked``: refuse an illegal player action
    cp = current_player(s)
    if cp == TERMINAL:
        return False
    if s["rules"] == 1:
        if cp == CHANCE:
            return nl.apply_chance(s, action)
        return nl.apply_player(s, action) if checked else nl.apply_legal_player(s, action)
    if cp == CHANCE:
        return en.apply_chance(s, action)
    return en.apply_player(s, action) if checked else en.apply_legal_player(s, action)


@nb.njit
def chance_outcomes(s, actions, probs) -> int:
    """The outcomes of the pending chance node with their probabilities.

    Args:
        s: the record.
        actions: int64[>= 104], receives the outcome ids (card ids, or 0/1 for the start player).
        probs: float64[>= 104], receives their probabilities (uniform).

    Returns:
        the number of outcomes (0 when no chance node is pending).
    """
    if current_player(s) != CHANCE:
        return 0
    if s["rules"] == 1:
        return nl.chance_outcomes(s, actions, probs)
    return en.chance_outcomes(s, actions, probs)


@nb.njit
def sample_chance(s) -> int:
    """Draw the pending chance outcome with the record's RNG."""
    # every branch returns int64 (rng_below is unsigned; mixing would type the result as float)
    ph = s["phase"]
    if ph == PH_START:
        return np.int64(rng_below(s, 2))
    if ((ph == PH_DEAL and s["deal_i"] >= POOL_SLOTS + 16) or (ph == PH_CHANCE and s["ch_kind"] == CK_ACTION)
            or (ph == PH_CHANCE and s["rules"] == 1 and s["ch_kind"] == nl.CK_AFLIP)):
        n = hidden_action_count(s)
        return np.int64(nth_card_at(s, LOC_AHIDDEN, np.int64(rng_below(s, n)), NUM_NUMBER, NUM_CARDS))
    if ph == PH_DEAL or ph == PH_CHANCE:
        return np.int64(random_stock_card(s))
    return np.int64(-1)


@nb.njit
def returns(s, out) -> None:
    """+1 for the winner, -1 for the loser, 0 for both in a draw or before the end."""
    out[0] = s["returns"][0]
    out[1] = s["returns"][1]


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s information state (layout in the module docstring).

    Args:
        s: the record.
        player: the viewing seat (seats in the tensor are relative to it).
        out: float32[OBS_SIZE], overwritten; every entry lies in [0, 1].
    """
    out[:] = 0.0
    opp = 1 - player
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_HAND:
            k = kind_of(c)
            if s["lidx"][c] == player:
                out[O_HAND + k] += 0.5
            elif s["pub"][c]:
                out[O_OPP_KNOWN + k] += 0.5
            if s["bflag"][c]:
                out[O_BCARDS + k] += 0.5
    out[O_HAND_N] = s["hand_n"][player] / 80.0
    out[O_HAND_N + 1] = s["hand_n"][opp] / 80.0
    for r in range(MAX_RUNS):
        o = s["run_owner"][r]
        if o < 0:
            continue
        base = O_RUNS + r * RUN_STRIDE
        out[base + (0 if o == player else 1)] = 1.0
        out[base + 2 + s["run_suit"][r]] = 1.0
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
            if s["run_fd"][r, pos]:
                out[base + 6 + 11 + pos - 1] = 1.0
            else:
                out[base + 6 + pos - 1] = 1.0
        for q in range(2):
            if s["token_loc"][q] == TOK_RUN and s["token_idx"][q] == r:
                out[base + 28 + (0 if q == player else 1)] = 1.0
    for i in range(POOL_SLOTS):
        c = s["pool"][i]
        if c >= 0:
            out[O_POOL + i * NUM_KINDS + kind_of(c)] = 1.0
    for q in range(2):
        base = O_TOKENS + (0 if q == player else 1) * 8
        t = s["token_loc"][q]
        if t == TOK_CENTRE:
            out[base] = 1.0
        elif t == TOK_RUN:
            out[base + 1] = 1.0
        else:
            out[base + 2 + s["token_idx"][q]] = 1.0
        if t != TOK_CENTRE:
            if s["token_turn"][q] == s["turn"]:
                out[base + 6] = 1.0
            else:
                out[base + 7] = 1.0
    n = s["disc_n"]
    for d in range(n):
        c = s["disc"][d]
        k = kind_of(c)
        out[O_DISC_CNT + k] += 0.5
        out[O_DISC_SEQ + d] = (k + 1) / 40.0
        depth = n - 1 - d
        if depth < 8:
            out[O_DISC_TOP + depth * NUM_KINDS + k] = 1.0
    for pile in range(2):
        m = s["apile_n"][pile]
        for d in range(m):
            ak = (s["apile"][pile, d] - NUM_NUMBER) % NUM_ACTION_KINDS
            if d == m - 1:
                out[O_APILE + pile * NUM_ACTION_KINDS + ak] = 1.0
            else:
                out[O_AUNDER + ak] += 0.5
    if s["adrawn"] >= 0:
        out[O_ADRAWN + (s["adrawn"] - NUM_NUMBER) % NUM_ACTION_KINDS] = 1.0
    if s["anew_pile"] >= 0:
        out[O_ANEW + s["anew_pile"]] = 1.0
    out[O_COUNTS] = s["stock_n"] / 80.0
    out[O_COUNTS + 1] = s["astack_n"] / 24.0
    out[O_COUNTS + 2] = s["aside_n"] / 8.0
    out[O_COUNTS + 3] = s["disc_n"] / 80.0
    out[O_COUNTS + 4 + s["exhaust"]] = 1.0
    out[O_COUNTS + 7] = float(s["final_turn"])
    out[O_COUNTS + 8] = s["turn"] / float(s["max_turns"])
    out[O_PHASE + s["phase"]] = 1.0
    out[O_TO_MOVE + (0 if s["cur"] == player else 1)] = 1.0
    out[O_FLAGS + s["opt_used"]] = 1.0
    out[O_FLAGS + 4] = float(s["exch_used"])
    out[O_FLAGS + 5] = float(s["discarded"])
    out[O_FLAGS + 6] = float(s["b_done"])
    out[O_FLAGS + 7] = float(s["b_run_done"])
    if s["build_mode"] > 0:
        out[O_BUILD + s["build_suit"]] = 1.0
        for q in range(s["build_lo"], s["build_hi"] + 1):
            out[O_BUILD + 4 + q - 1] = 1.0
        out[O_BUILD + 14 + s["build_mode"]] = 1.0
        out[O_BUILD + 17] = float(s["build_amb"])
    if s["new_slot"] >= 0:
        out[O_NEWSLOT + s["new_slot"]] = 1.0
    for line in range(4):
        if (s["ptoken_lines"] >> line) & 1:
            out[O_PTLINES + line] = 1.0
    out[O_SCORE] = table_faceup(s, player) / 80.0
    out[O_SCORE + 1] = table_faceup(s, opp) / 80.0
    out[O_SCORE + 2] = longest_run(s, player) / 10.0
    out[O_SCORE + 3] = longest_run(s, opp) / 10.0
    if s["phase"] == PH_CHANCE and s["ch_kind"] < 4:
        out[O_CHANCE + s["ch_kind"]] = 1.0
        out[O_CHANCE + 4] = s["ch_left"] / 2.0
    if s["rules"] == 1:
        _observation_nl(s, player, out)


@nb.njit
def _observation_nl(s, player, out) -> None:
    """The Dutch reading of regions the English layout fills with English-only or redundant data.

    O_DISC_TOP (320): the covered pot card of slot i, one-hot kind (the discard
    order stays in O_DISC_SEQ); O_DISC_CNT (40): the opponent's reserve, copies
    per kind / 2; O_BCARDS (40): the own reserve; O_NEWSLOT (26): Dutch flags.
    """
    opp = 1 - player
    out[O_DISC_TOP:O_DISC_TOP + 320] = 0.0
    out[O_DISC_CNT:O_DISC_CNT + 40] = 0.0
    out[O_BCARDS:O_BCARDS + 40] = 0.0
    out[O_NEWSLOT:O_NEWSLOT + 26] = 0.0
    for i in range(POOL_SLOTS):
        u = s["under"][i]
        if u >= 0:
            out[O_DISC_TOP + i * NUM_KINDS + kind_of(u)] = 1.0
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_RESERVE:
            base = O_BCARDS if s["lidx"][c] == player else O_DISC_CNT
            out[base + kind_of(c)] += 0.5
        elif s["loc"][c] == LOC_HAND and s["bflag"][c] and s["lidx"][c] == player:
            out[O_NEWSLOT + 19] = 1.0
    f = O_NEWSLOT
    out[f + 0] = 1.0 if s["opt_used"] == 2 else 0.0
    out[f + 1] = 1.0 if s["opt_used"] == 1 else 0.0
    out[f + 2] = float(s["exch_used"])
    out[f + 3] = float(s["joker_used"])
    out[f + 4] = 1.0 if (s["opt_used"] == 2 and s["b_done"] == 0) else 0.0
    out[f + 5] = 1.0 if s["jok_pos"] >= 0 else 0.0
    out[f + 6] = 1.0 if s["octa_mask"][player] != 0 and s["cur"] == player else 0.0
    out[f + 7] = 1.0 if nl.octa_mask(s, opp) != 0 else 0.0
    if s["phase"] == PH_CHANCE and s["ch_kind"] >= 4:
        out[f + 8 + s["ch_kind"] - 4] = 1.0
        out[O_CHANCE + 4] = s["ch_left"] / 2.0
    if s["kpick_seat"] >= 0:
        out[f + 10 + (0 if s["kpick_seat"] == player else 1)] = 1.0
        out[f + 12] = s["kpick_left"] / 2.0
    out[f + 13] = s["res_n"][player] / 80.0
    out[f + 14] = s["res_n"][opp] / 80.0
    out[f + 15] = (nl.score(s, player) + 80.0) / 160.0
    out[f + 16] = (nl.score(s, opp) + 80.0) / 160.0
    out[f + 17] = s["moves_turn"] / float(nl.MAX_MOVES)
    out[f + 18] = 1.0 if nl.octa_mask(s, player) != 0 else 0.0


@nb.njit
def determinize(s, player, seed) -> None:
    """Resample what ``player`` cannot see, consistently with what they saw; reseed the RNG.

    The unseen number cards are the stock, every face-down run card and the
    opponent's hand cards not taken openly; they are shuffled among those
    places (each place keeps its number of cards). Hidden action cards form an
    unordered set already, so nothing of them is stored to resample.
    """
    seed_rng(s, seed)
    opp = 1 - player
    ids = np.empty(NUM_NUMBER, dtype=np.int64)
    dloc = np.empty(NUM_NUMBER, dtype=np.int64)
    didx = np.empty(NUM_NUMBER, dtype=np.int64)
    n = 0
    for c in range(NUM_NUMBER):
        loc = s["loc"][c]
        hidden = loc == LOC_STOCK
        if loc == LOC_RUN:
            i = s["lidx"][c]
            hidden = s["run_fd"][i // NPOS, i % NPOS] == 1
        elif loc == LOC_HAND:
            hidden = s["lidx"][c] == opp and s["pub"][c] == 0 and s["inbuild"][c] == 0
        elif loc == LOC_JOKER:
            hidden = True
        if hidden:
            ids[n] = c
            dloc[n] = loc
            didx[n] = s["lidx"][c]
            n += 1
    for i in range(n - 1, 0, -1):
        j = rng_below(s, i + 1)
        t = ids[i]
        ids[i] = ids[j]
        ids[j] = t
    for i in range(n):
        c = ids[i]
        s["loc"][c] = dloc[i]
        s["lidx"][c] = didx[i]
        s["pub"][c] = 0
        s["bflag"][c] = 0
        s["inbuild"][c] = 0
        if dloc[i] == LOC_RUN:
            s["run_card"][didx[i] // NPOS, didx[i] % NPOS] = c
    s["hand_cnt"][opp, :] = 0
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == opp:
            s["hand_cnt"][opp, kind_of(c)] += 1


# ---------------------------------------------------------------- Python-side helpers
def card_name(c: int) -> str:
    """``♥7`` for a number card, ``♠J`` for an action card."""
    c = int(c)
    if c < 0:
        return "--"
    if c < NUM_NUMBER:
        return SUIT_SYMBOLS[(c % 40) // 10] + RANK_NAMES[c % 10 + 1]
    a = (c - NUM_NUMBER) % 12
    return SUIT_SYMBOLS[a // 3] + ACTION_TYPES[a % 3]


def _copy_name(c: int) -> str:
    """A card name that tells the two copies apart (chance outcome strings must be unique)."""
    return card_name(c) + (" (second copy)" if (c < NUM_NUMBER and c >= 40) or (c >= NUM_NUMBER + 12) else "")


def kind_name(k: int) -> str:
    """``♥7`` for card kind ``k`` (suit*10 + rank-1)."""
    return card_name(int(k))


def run_string(s, r: int, viewer: int | None = None) -> str:
    """A run as ``♥4 ♥5 [?] ♥7``; face-down cards show as ``[?]`` (or ``[♥6]`` for the omniscient view)."""
    r = int(r)
    if not 0 <= r < MAX_RUNS or int(s["run_owner"][r]) < 0:
        return f"(no run in slot {r})"
    out = []
    suit = int(s["run_suit"][r])
    for pos in range(int(s["run_lo"][r]), int(s["run_hi"][r]) + 1):
        c = int(s["run_card"][r, pos])
        if s["run_fd"][r, pos]:
            shown = kind_name(int(kind_at(suit, pos)))
            out.append(f"[?{shown}]" if viewer is not None else f"[{card_name(c)} for {shown}]")
        else:
            out.append(card_name(c))
    return " ".join(out)


def _pos_name(suit: int, pos: int) -> str:
    return kind_name(int(kind_at(suit, pos)))


def action_to_string(s, action: int) -> str:
    """A readable name of ``action`` in state ``s`` (chance outcomes included)."""
    a = int(action)
    cp = int(current_player(s))
    if cp == CHANCE:
        ph = int(s["phase"])
        if ph == PH_START:
            return f"P{a} starts"
        if ph == PH_DEAL:
            i = int(s["deal_i"])
            if i < POOL_SLOTS:
                return f"deal {_copy_name(a)} to pool slot {POOL_SLOT_NAMES[i]}"
            if i < POOL_SLOTS + 16:
                return f"deal {_copy_name(a)} to P{(i - POOL_SLOTS) // 8}"
            return f"turn {_copy_name(a)} face up on action pile {i - POOL_SLOTS - 16}"
        kind = int(s["ch_kind"])
        who = int(s["cur"])
        if kind == CK_ACTION:
            return f"P{who} turns action card {_copy_name(a)}"
        if kind == en.CK_REFILL:
            return f"refill the pool with {_copy_name(a)} from the stock"
        if kind == en.CK_FD:
            return f"face-down card ({_copy_name(a)}) from the stock"
        if int(s["rules"]) == 1 and kind == nl.CK_JOKER:
            return f"P{who}'s face-down joker is {_copy_name(a)}"
        if int(s["rules"]) == 1 and kind == nl.CK_AFLIP:
            return f"reshuffle: turn {_copy_name(a)} face up on action pile {2 - int(s['ch_left'])}"
        return f"P{who} draws {_copy_name(a)}"
    if not 0 <= a < NUM_ACTIONS:
        return f"action {a} (out of range)"
    if int(s["rules"]) == 1:
        return nl.action_to_string(s, a)
    if a < A_DECLINE:
        return f"put the action card on pile {a - A_PILE}"
    if a == A_DECLINE:
        return "do not use the action card"
    if a < A_QUEEN:
        r, pos = divmod(a - A_JACK, 11)
        pos += 1
        if int(s["run_owner"][r]) < 0:
            return f"Jack: replace position {pos} of run slot {r} (empty slot) with a face-down card"
        return (f"Jack: replace {_pos_name(int(s['run_suit'][r]), pos)} in P{int(s['run_owner'][r])}'s "
                f"run {run_string(s, r, 0)} with a face-down card (slot {r})")
    if a < A_KING_STOCK:
        i, j = (int(x) for x in QUEEN_PAIRS[a - A_QUEEN])
        return (f"Queen: take {card_name(int(s['pool'][i]))} ({POOL_SLOT_NAMES[i]}) and "
                f"{card_name(int(s['pool'][j]))} ({POOL_SLOT_NAMES[j]}) from the pool")
    if a == A_KING_STOCK:
        return "King: draw 2 cards from the stock"
    if a == A_KING_DISC:
        return "King: take the top 2 cards of the discard pile"
    if a == A_SKIP_OPT:
        return "play none of options A, B, C"
    if a < A_COMMIT:
        verb = "start a new run (option A) with" if int(s["phase"]) == PH_OPTION else "lay"
        if int(s["phase"]) == PH_BPLACE:
            verb = "start option B's new run with"
        return f"{verb} {kind_name(a - A_SEL)}"
    if a == A_COMMIT:
        return "commit the run being laid"
    if a == A_TOKEN_RUN:
        return "put your token on the new run"
    if a == A_TOKEN_NO:
        return "keep your token in the pool centre"
    if a < A_END_B:
        return f"option B: take the pool's {LINE_NAMES[a - A_BLINE]}"
    if a == A_END_B:
        return "option B: done placing (refill the pool)"
    if a == A_C:
        return "option C: take the pool run carrying your token"
    if a < A_FD:
        r, end = divmod(a - A_ADD, 2)
        if int(s["run_owner"][r]) < 0:
            return f"add to the {'low' if end == 0 else 'high'} end of run slot {r} (empty slot)"
        lo, hi = int(s["run_lo"][r]), int(s["run_hi"][r])
        pos = lo - 1 if end == 0 else hi + 1
        card = _pos_name(int(s["run_suit"][r]), pos) if 1 <= pos <= 11 else "nothing"
        return f"add {card} to run {run_string(s, r, 0)} (slot {r})"
    if a < A_EXCH:
        r, pos = divmod(a - A_FD, 11)
        pos += 1
        if int(s["run_owner"][r]) < 0:
            return f"replace the face-down card at position {pos} of run slot {r} (empty slot)"
        return (f"replace the face-down card in run {run_string(s, r, 0)} with "
                f"{_pos_name(int(s['run_suit'][r]), pos)} and take it into your hand (slot {r})")
    if a < A_PTOKEN:
        k, slot = divmod(a - A_EXCH, POOL_SLOTS)
        return (f"exchange {kind_name(k)} from your hand with {card_name(int(s['pool'][slot]))} "
                f"({POOL_SLOT_NAMES[slot]}) in the pool")
    if a < A_PTOKEN_NO:
        return f"put your token on the pool run along the {LINE_NAMES[a - A_PTOKEN]}"
    if a == A_PTOKEN_NO:
        return "leave your token in the pool centre"
    if a == A_EXCH_SKIP:
        return "no exchange with the pool"
    if a < A_END_TURN:
        return f"discard {kind_name(a - A_DISCARD)}"
    return "end the turn without discarding"


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is not legal for ``player`` in ``s``, in the rulebook's words."""
    a = int(action)
    cp = int(current_player(s))
    if cp == TERMINAL:
        return "the game is over"
    if cp == CHANCE:
        return "the cards are being dealt or drawn (a chance event comes first)"
    if player != cp:
        return f"it is P{cp}'s turn"
    if int(s["rules"]) == 1:
        return nl.illegal_reason(s, a)
    ph = int(s["phase"])
    step = PHASE_NAMES[ph]
    p = int(player)
    hand = s["hand_cnt"][p]
    if a < A_DECLINE:
        return f"the action card is placed on a pile right after it is turned; now: {step}"
    if A_DECLINE <= a < A_SKIP_OPT:
        if ph != PH_USE:
            return ("an action card is used only right after it is placed, when both face-up cards share a "
                    f"suit; now: {step}")
        if A_JACK <= a < A_QUEEN:
            if int(s["stock_n"]) == 0:
                return "the Jack needs a face-down card from the stock, and the stock is empty"
            return ("the Jack replaces a face-up card of a run, and at least one face-up card must remain "
                    "in the run (or the new card is not a Jack)")
        if A_QUEEN <= a < A_KING_STOCK:
            return ("the Queen takes two pool cards of the same suit; cards of a pool run carrying a token "
                    "are "
                    "protected (or the new card is not a Queen)")
        return "the new action card is not a King, or the discard pile is empty"
    if a == A_SKIP_OPT or A_BLINE <= a <= A_C:
        if ph != PH_OPTION:
            return f"options A, B and C are chosen in step 3, at most one per turn; now: {step}"
        if a == A_C:
            return "option C needs a pool run carrying your token"
        return ("option B needs your token on your run since an earlier turn, a line without a protected "
                "card, "
                "and a way to put at least one of its cards on the table at once")
    if A_SEL <= a < A_COMMIT:
        k = a - A_SEL
        if hand[k] == 0:
            return f"you hold no {kind_name(k)}"
        if ph not in (PH_OPTION, PH_BUILD, PH_BPLACE):
            return f"new runs are laid only with option A or B; now: {step}"
        return (f"{kind_name(k)} does not continue the run being laid, or no run of at least 3 consecutive "
                "cards "
                "of one suit (with a card taken from the pool in option B) can be completed with it")
    if a == A_COMMIT:
        return "a run needs at least 3 consecutive cards of one suit (in option B, one taken from the pool)"
    if a in (A_TOKEN_RUN, A_TOKEN_NO):
        return "the token may be put only on a run just laid with option A, while it is in the pool centre"
    if a == A_END_B:
        return "at least one of the cards taken from the pool must go on the table at once"
    if A_ADD <= a < A_EXCH:
        if ph not in (PH_USE, PH_OPTION, PH_BPLACE, PH_EXCH, PH_DISCARD):
            return f"cards are added to runs during your turn, but not while: {step}"
        if a < A_FD:
            return ("you may add only to your own runs, at an end, with the card that continues the run "
                    "(at most 10 cards, the ace low or high but not both)")
        return "a face-down card can be replaced only with the card it stands for, from your hand"
    if A_EXCH <= a < A_PTOKEN:
        if ph != PH_EXCH:
            return f"the exchange with the pool is step 4, once per turn; now: {step}"
        k, slot = divmod(a - A_EXCH, POOL_SLOTS)
        if hand[k] == 0:
            return f"you hold no {kind_name(k)}"
        if int(s["pool"][slot]) < 0:
            return "that pool space is empty"
        return ("the card you place must be next (horizontally or vertically) to a pool card of the same "
                "suit one "
                "rank higher or lower, and cards of the opponent's token run cannot be taken")
    if A_PTOKEN <= a <= A_PTOKEN_NO:
        return ("a token goes on a pool run only right after your exchange made it, while your token is in "
                "the centre")
    if a == A_EXCH_SKIP:
        return f"this is not the exchange step; now: {step}"
    if A_DISCARD <= a < A_END_TURN:
        if ph not in (PH_DISCARD, PH_DDOWN):
            return f"discarding is step 5; now: {step}"
        return f"you hold no {kind_name(a - A_DISCARD)}"
    if ph != PH_DISCARD:
        return f"the turn ends after step 5; now: {step}"
    return "with 8 or more cards in hand you must discard"


def render(s, viewer: int | None = None) -> str:
    """A text picture of the table; with ``viewer`` only what that seat can see."""
    dutch = int(s["rules"]) == 1
    if dutch:
        lines = [f"Octa (Dutch rules), turn {int(s['turn'])}, phase: {nl.PHASE_NAMES[int(s['phase'])]}"]
    else:
        lines = [f"Octa (English rules), turn {int(s['turn'])}, phase: {PHASE_NAMES[int(s['phase'])]}"]
    tops = []
    for pile in range(2):
        m = int(s["apile_n"][pile])
        tops.append(card_name(int(s["apile"][pile, m - 1])) if m else "--")
    drawn = card_name(int(s["adrawn"])) if int(s["adrawn"]) >= 0 else "-"
    lines.append(f"action piles: {tops[0]} | {tops[1]}   turned: {drawn}   stack {int(s['astack_n'])}, "
                 f"set aside {int(s['aside_n'])}   stock {int(s['stock_n'])} (ran out {int(s['exhaust'])}x)")
    p = [card_name(int(c)) if int(c) >= 0 else "--" for c in s["pool"]]
    tok = {0: "", 1: "", 2: "", 3: ""}
    for q in range(2):
        if int(s["token_loc"][q]) == TOK_POOL:
            tok[int(s["token_idx"][q])] += f"T{q}"
    centre = "".join(f"T{q}" for q in range(2) if int(s["token_loc"][q]) == TOK_CENTRE) or ".."
    lines.append("pool:  " + " ".join(f"{x:>4}" for x in p[0:3]) + f"   {tok[0]}")
    lines.append("       " + f"{p[3]:>4} {centre:>4} {p[4]:>4}   left {tok[2]} right {tok[3]}")
    lines.append("       " + " ".join(f"{x:>4}" for x in p[5:8]) + f"   {tok[1]}")
    if dutch:
        cov = [f"{POOL_SLOT_NAMES[i]}: {card_name(int(s['under'][i]))}" for i in range(POOL_SLOTS)
               if int(s["under"][i]) >= 0]
        lines.append("covered pot cards: " + (", ".join(cov) or "-"))
    disc = [card_name(int(s["disc"][d])) for d in range(int(s["disc_n"]))]
    lines.append(f"discard ({len(disc)}): {' '.join(disc[-8:]) or '-'} (top last)")
    for q in range(2):
        cards = sorted(c for c in range(NUM_NUMBER)
                       if int(s["loc"][c]) == LOC_HAND and int(s["lidx"][c]) == q)
        if viewer is None or viewer == q:
            hand = " ".join(card_name(c) for c in cards) or "-"
        else:
            known = [card_name(c) for c in cards if s["pub"][c]]
            hand = f"{len(cards)} cards" + (f", known: {' '.join(known)}" if known else "")
        mark = "*" if int(s["cur"]) == q and not s["terminal"] else " "
        lines.append(f"{mark}P{q} hand: {hand}")
        if dutch:
            res = sorted(card_name(c) for c in range(NUM_NUMBER)
                         if int(s["loc"][c]) == LOC_RESERVE and int(s["lidx"][c]) == q)
            jok = any(int(s["loc"][c]) == LOC_JOKER and int(s["lidx"][c]) == q for c in range(NUM_NUMBER))
            lines.append(f"    reserve: {' '.join(res) or '-'}" + ("   (a face-down joker waits)" if jok else ""))
        for r in range(MAX_RUNS):
            if int(s["run_owner"][r]) == q:
                t = " [token]" if int(s["token_loc"][q]) == TOK_RUN and int(s["token_idx"][q]) == r else ""
                lines.append(f"    run {r}: {run_string(s, r, viewer)}{t}")
        lines.append(f"    face-up cards in runs: {int(table_faceup(s, q))}, "
                     f"longest run {int(longest_run(s, q))}"
                     + (f", score {int(nl.score(s, q))}" if dutch else ""))
    if s["terminal"]:
        reason = {1: "win rule", 2: "second stock exhaustion", 3: "turn cap"}.get(int(s["end_reason"]), "?")
        if dutch:
            reason = {1: "empty hand with an Octa", 2: "stock out", 3: "turn cap"}.get(int(s["end_reason"]), "?")
        w = int(s["winner"])
        lines.append(f"game over ({reason}): " + (f"P{w} wins" if w >= 0 else "draw"))
    return "\n".join(lines)
