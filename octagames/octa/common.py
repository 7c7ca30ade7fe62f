"""Shared Octa core: cards, runs, the pool ring, action piles, tokens, face-down cards.

Everything in this module is common to both rulebooks (English ``rules="en"``
and Dutch ``rules="nl"``); the turn structure of each rulebook lives in its own
module (:mod:`octagames.octa.en` for the English rules, :mod:`octagames.octa.nl` for the Dutch). See
:mod:`octagames.octa.rules` for the full design (card ids, state layout,
action table, observation table).

Card ids (104 cards, two 52-card decks)
---------------------------------------
* ``0..79`` number cards: ``c = copy*40 + suit*10 + (rank-1)`` with rank 1 = ace,
  2..10, suit 0..3 = ♥ ♠ ♦ ♣ (the seed's order), copy 0/1. The *kind* of a number
  card is ``c % 40`` (= ``suit*10 + rank-1``); the two copies of a kind are
  interchangeable for the rules.
* ``80..103`` action cards: ``c = 80 + copy*12 + suit*3 + type`` with type
  0 = Jack, 1 = Queen, 2 = King. Its *action kind* is ``(c-80) % 12``.

Run positions
-------------
A run is stored over *positions* 1..11 of its suit: position p holds rank p
for p = 1..10 (position 1 = low ace) and position 11 is the high ace. A run is
an interval ``[lo, hi]`` of positions of length 3..10 when laid; ``[1, 11]``
is excluded by the length limit, which is exactly the rule "the ace is low or
high, never both, no wraparound".

Pool ring
---------
The 3×3 ring around the empty centre, slots numbered in refill order (left to
right, top to bottom)::

    0 1 2
    3 . 4
    5 6 7

Lines (in line order): top row 0-1-2, bottom row 5-6-7, left column 0-3-5,
right column 2-4-7. Orthogonal ring adjacency: 0-1, 1-2, 0-3, 2-4, 3-5, 4-7,
5-6, 6-7 (1 and 6 touch only the centre).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numba as nb
import numpy as np

from octagames.core import Block, Layout, rng_below

# ---------------------------------------------------------------- cards
NUM_CARDS = 104
NUM_NUMBER = 80
NUM_KINDS = 40
NUM_ACTION_CARDS = 24
NUM_ACTION_KINDS = 12
HAND_LIMIT = 8
SUIT_SYMBOLS = "♥♠♦♣"
RANK_NAMES = ("?", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "A")
ACTION_TYPES = "JQK"
JACK, QUEEN, KING = 0, 1, 2

# ---------------------------------------------------------------- table limits
# Every run holds >= 3 physical cards (laid with >= 3; the Jack swaps cards,
# it never removes one), so at most 80 // 3 = 26 runs exist at once.
MAX_RUNS = 26
NPOS = 12          # run positions 1..11 (index 0 unused)
POOL_SLOTS = 8
NUM_LINES = 4
MAX_DISCARD = NUM_NUMBER
MAX_PILE = NUM_ACTION_CARDS

# ---------------------------------------------------------------- rule sets and the shared turn
RULES_EN = 0       # the record's ``rules`` field
RULES_NL = 1
NUM_ACTIONS = 1074  # one action space for both rulebooks (each declares its own table in it)
BASE_OBS_SIZE = 1818  # each rulebook's own blocks fill (and pad) this many entries, then FACTS follows
# Facts per card, for learners (the block ``facts``): rows of NUM_FACTS values each (the 40 kinds, the 8
# pool slots' top cards, the top two discards; then the cards a doubling or swap would put on each pool slot,
# the end card of each run end, the card that would extend each run end, the viewer's situation, and the two
# face-up action piles, then each run slot, then each card position of each run slot); the action tables say
# which rows an action is about.
NUM_FACTS = 8
FACT_POOL_RUN = 7  # the column "completes a pool run" (in the rows of a run end: "the run is the viewer's")
FACT_SLOT_ROW = NUM_KINDS  # the row of pool slot 0 (after the 40 kinds)
FACT_TOP_ROW = FACT_SLOT_ROW + POOL_SLOTS  # the row of the top discard (the one under it follows)
FACT_SLOT_SUIT_ROW = FACT_TOP_ROW + 2  # slot i, suit u: the kind of suit u with the rank of slot i's top card
FACT_END_ROW = FACT_SLOT_SUIT_ROW + POOL_SLOTS * 4  # run slot r, end e (0 low, 1 high): the end card there
FACT_EXTEND_ROW = FACT_END_ROW + MAX_RUNS * 2  # run slot r, end e: the kind that would extend it there
FACT_SITUATION_ROW = FACT_EXTEND_ROW + MAX_RUNS * 2  # the viewer's situation (one row)
FACT_PILE_ROW = FACT_SITUATION_ROW + 1  # face-up action pile 0 (pile 1 follows)
FACT_RUN_ROW = FACT_PILE_ROW + 2  # run slot 0 (the other run slots follow)
FACT_TAKE_ROW = FACT_RUN_ROW + MAX_RUNS  # run slot r, position q (1..11): the face-up card there (r * 11 + q - 1)
FACT_ROWS = FACT_TAKE_ROW + MAX_RUNS * 11
FACT_ROWS_V4 = FACT_TAKE_ROW
"""The rows of the ``facts`` block before the rows of the cards in runs were appended (2026-12-04)."""
FACT_ROWS_V3 = FACT_RUN_ROW
"""The rows of the ``facts`` block before the run slots' rows were appended (2026-12-04)."""
FACT_ROWS_V2 = FACT_PILE_ROW
"""The rows of the ``facts`` block before the action piles' two were appended (2026-12-03)."""
FACT_ROWS_V1 = 50
"""The rows of the first ``facts`` block (the kinds, pool slots and top discards): the rows after them were
appended later, so an observation of that version is a prefix of today's."""
FACTS = Block("facts", FACT_ROWS * NUM_FACTS,
              "what the viewer knows of each card (rows: kinds 0..39, pool slots 0..7, the top two "
              "discards, then per pool slot and suit the kind of that suit with the slot top's rank (32), "
              "per run slot and end the end card (52) and the kind that would extend it (52), each a copy "
              "of its kind's row, the situation and the two action piles): a card is there, copies held / 2, longest own run it "
              "extends / 10, longest opponent run it extends / 10, same-suit kinds held one and two ranks "
              "away / 2 each, the longest run of held kinds through it / 10, completes a pool run (a kind: a "
              "copy placed in some pool slot; a slot: a card of the hand placed there; a run end's rows: the "
              "run is the viewer's); a row of an empty slot or run is all 0, of a run end nothing extends all 0 "
              "but that last column; the "
              "situation row: own Octa (a run of 8 or more face-up cards), the opponent's, hand size / 10, "
              "hand at the limit of 8 or over, stock / 80, face-up cards in own runs / 80 and in the "
              "opponent's / 80, the opponent's hand size / 10; then a row per face-up action pile: it has a "
              "top card, that top is a Jack, a Queen, a King, it shares the suit of the turned action card, "
              "the other pile's top shares that suit (putting the turned card here lets it be used), and two "
              "entries always 0 (the last two columns; no card is turned: the suit entries are 0); then a row per "
              "run slot (a Jack's target is a card of that run): the run is on the table, its face-up cards "
              "/ 10, it is the viewer's, a token lies on it, its face-down cards / 10, it is an Octa (8 or "
              "more face-up cards), it is one card short of one (7), the viewer holds a card that extends it "
              "(an empty slot: all 0); then a row per run slot and position 1..11 (a Jack's target): a copy "
              "of the row of the face-up card's kind there (none or a face-down card: all 0)",
              (FACT_ROWS, NUM_FACTS))
REBUILT_FD_ROW = NUM_KINDS + 3  # the rebuilt block: its first entry of the face-down places (after 40 + 3)
REBUILT = Block("rebuilt", REBUILT_FD_ROW + MAX_RUNS * 11,
                "the stock rebuilt at the first exhaustion (English rules; always 0 under the Dutch rules): per "
                "kind, the copies that went face up into it less the copies of the kind the viewer has seen "
                "come into view since (at least that many copies of it are in the stock, in a face-down card "
                "laid from it, or among the opponent's hand cards that came from it) / 2 (40); the hidden cards "
                "each seat's hand took from it since (its draws, and the face-down cards laid from it that the "
                "seat replaced) / 80 (self, opponent); the face-down cards that went into it / 80 (the stock "
                "and the face-down cards laid from it hold no more copies of a kind than went in face up, but "
                "for these); then per run slot and position 1..11 (26 x 11): the face-down card there was laid "
                "from it")
OBS_SIZE = BASE_OBS_SIZE + FACTS.size + REBUILT.size  # one observation size for both rulebooks
EARLIER_OBS_SIZES = (BASE_OBS_SIZE, BASE_OBS_SIZE + FACT_ROWS_V1 * NUM_FACTS,
                     BASE_OBS_SIZE + FACT_ROWS_V2 * NUM_FACTS, BASE_OBS_SIZE + FACT_ROWS_V3 * NUM_FACTS,
                     BASE_OBS_SIZE + FACT_ROWS_V4 * NUM_FACTS, BASE_OBS_SIZE + FACTS.size)
"""Observation sizes of earlier versions: a network trained on one reads the leading entries, which are
unchanged (the ``facts`` block was appended after them, its later rows after its first 50, the action
piles' rows after the situation row, the run slots' rows after those, the rows of the cards in runs
after those, and the ``rebuilt`` block after the ``facts`` block, 2026-12-07)."""
# Phases both rulebooks share; each numbers its own phases after PH_USE (PH_OVER is the last).
PH_DEAL = 0        # chance: the setup deal, card by card
PH_START = 1       # chance: who starts (outcome 0 or 1)
PH_CHANCE = 2      # chance inside a turn (what is drawn: ch_kind)
PH_PILE = 3        # put the turned action card on pile 0 or 1
PH_USE = 4         # use the new action card (the rulebook says how) or decline
PH_OVER = 13
NUM_PHASES = 14
SETUP_DEALS = 8 + 2 * 8 + 2  # pool slots, two hands, two face-up action cards; then the start player
# What a chance sequence inside a turn draws (ch_kind): table operations the rulebooks ask for
CK_DRAW = 0        # ch_left stock cards into the hand of the seat to move
CK_ACTION = 1      # turn the top action card (the pile choice follows)
CK_REFILL = 2      # stock cards into the empty pool spaces, in refill order
CK_FD = 3          # a stock card face down into run ch_slot at ch_pos (the Jack)
CK_JOKER = 4       # a stock card face down in front of the seat to move (the Dutch Jack's joker)
CK_AFLIP = 5       # a hidden action card face up onto pile 2 - ch_left (the Dutch reshuffle)
# How the game ended (end_reason)
END_WIN = 1        # the rulebook's win
END_STOCK = 2      # the stock ran out for good: scored
END_CAP = 3        # the engine's turn cap: scored like END_STOCK

# The action-card step both action tables begin with (the turn machinery applies it).
ACTION_STEP = (Block("pile", 2, "put the turned action card on pile 0 / 1"),
               Block("decline", 1, "do not use the action card"))


def action_table(blocks) -> Layout:
    """A rulebook's action table: :data:`ACTION_STEP`, its own blocks, then ids it leaves unused.

    Both tables fill the one action space of ``NUM_ACTIONS`` ids (an ``unused``
    block pads the shorter one; its ids are never legal).

    Raises:
        ValueError: the blocks need more than ``NUM_ACTIONS`` ids.
    """
    blocks = list(ACTION_STEP) + list(blocks)
    used = sum(b.size for b in blocks)
    if used > NUM_ACTIONS:
        raise ValueError(f"the action table needs {used} ids; NUM_ACTIONS is {NUM_ACTIONS}")
    if used < NUM_ACTIONS:
        blocks.append(Block("unused", NUM_ACTIONS - used, "never legal under these rules (the action "
                                                           "space is shared with the other rulebook)"))
    return Layout(blocks, title="action")


def observation_layout(blocks) -> Layout:
    """A rulebook's observation layout: its blocks, entries it leaves at 0 up to ``BASE_OBS_SIZE``, then
    the ``facts`` block both rulebooks share (:func:`octagames.octa.view.obs_facts`).

    Raises:
        ValueError: the blocks need more than ``BASE_OBS_SIZE`` entries.
    """
    blocks = list(blocks)
    used = sum(b.size for b in blocks)
    if used > BASE_OBS_SIZE:
        raise ValueError(f"the observation needs {used} entries; BASE_OBS_SIZE is {BASE_OBS_SIZE}")
    if used < BASE_OBS_SIZE:
        blocks.append(Block("unused", BASE_OBS_SIZE - used, "always 0 (the observation size is shared with "
                                                            "the other rulebook)"))
    return Layout(blocks + [FACTS, REBUILT])


def fact_refs(actions: Layout, refs: dict[str, Callable[[int], Iterable[int]]], situation: bool = False
              ) -> np.ndarray:
    """The rows of the ``facts`` block each action is about: int64 ``[NUM_ACTIONS, 3]``, -1 for none.

    ``refs`` maps a block name of ``actions`` to a function of the index within the block that
    returns up to three rows (kind k is row k, pool slot i row ``FACT_SLOT_ROW + i``, the top
    discards rows ``FACT_TOP_ROW`` and ``FACT_TOP_ROW + 1``, the later rows as :data:`FACTS` lists
    them); blocks it does not name are about no card row. With ``situation``, every action whose
    third row is free names the situation row there (``FACT_SITUATION_ROW``).
    """
    out = np.full((NUM_ACTIONS, 3), -1, dtype=np.int64)
    for name, rows_of in refs.items():
        start = actions.offset(name)
        for i in range(actions.block(name).size):
            rows = list(rows_of(i))
            out[start + i, :len(rows)] = rows
    if situation:
        out[out[:, 2] < 0, 2] = FACT_SITUATION_ROW
    return out


# ---------------------------------------------------------------- card locations
LOC_STOCK = 0      # the face-down number stock (unordered: draws are chance nodes)
LOC_HAND = 1       # lidx = seat
LOC_POOL = 2       # lidx = pool slot
LOC_RUN = 3        # lidx = slot * NPOS + position (face up or face down, see run_fd)
LOC_DISCARD = 4    # lidx = depth from the bottom
LOC_AHIDDEN = 5    # action stack or set-aside: never seen, so one unordered set
LOC_APILE = 6      # lidx = pile * MAX_PILE + depth from the bottom
LOC_ADRAWN = 7     # the action card just turned, not yet placed on a pile
# Dutch rules only (never used by the English rules):
LOC_UNDER = 8      # a covered pot card under a doubled one; lidx = pool slot
LOC_RESERVE = 9    # a seat's face-up reserve; lidx = seat
LOC_JOKER = 10     # the Jack's face-down joker in front of a seat, before it is used; lidx = seat

# Token locations
TOK_CENTRE = 0
TOK_RUN = 1        # token_idx = run slot
TOK_POOL = 2       # token_idx = pool line

POOL_LINES = np.array([[0, 1, 2], [5, 6, 7], [0, 3, 5], [2, 4, 7]], dtype=np.int64)
LINE_NAMES = ("top row", "bottom row", "left column", "right column")
# ring adjacency, -1 padded
POOL_ADJ = np.array([[1, 3, -1], [0, 2, -1], [1, 4, -1], [0, 5, -1],
                     [2, 7, -1], [3, 6, -1], [5, 7, -1], [4, 6, -1]], dtype=np.int64)
POOL_SLOT_NAMES = ("top-left", "top", "top-right", "left", "right", "bottom-left",
                   "bottom", "bottom-right")

# Queen pairs (i < j) of pool slots, in lexicographic order
QUEEN_PAIRS = np.array([[i, j] for i in range(8) for j in range(i + 1, 8)], dtype=np.int64)
NUM_QUEEN_PAIRS = QUEEN_PAIRS.shape[0]  # 28


# ---------------------------------------------------------------- the record
def make_state_dtype(narrow: type = np.int16, rebuilt: bool = True) -> np.dtype:
    """The structured dtype of one Octa game (shared by both rulebooks).

    The fields that hold card ids, locations, indices and counts (``loc``, ``lidx``, ``hand_cnt``, ``pool``,
    ``disc``, ``run_owner``, ``run_suit``, ``run_lo``, ``run_hi``, ``run_card``, ``apile``, ``build_card``,
    ``under``) are ``narrow``: int16 (a record
    of 2,848 bytes, which a step of a large batch reads and writes through the cache), or int32, the
    layout before 2026-12-06 (with ``rebuilt=False``: 4,332 bytes), which
    :data:`octagames.octa.rules.EARLIER_STATE_DTYPES` keeps so that records saved under it still load. The
    other integer fields are int32. Not int8: under NumPy 2 scalar promotion an int8 field read in uncompiled
    kernels (``NUMBA_DISABLE_JIT=1``) would overflow in index arithmetic such as ``offset + i * NUM_KINDS +
    kind`` (up to 6,155); every such sum fits int16.

    ``rebuilt``: with the fields ``rs_up``, ``rs_hid``, ``rs_in``, ``rs_f`` and ``rs_fd`` (what each seat knows
    of the stock the English rules rebuild at the first exhaustion, :func:`octagames.octa.en._rebuild_stock`),
    appended on 2026-12-07; the layouts before it lack them.
    """
    w = narrow
    fields = [
        ("rng", np.uint64),
        # -- config
        ("rules", np.int32),          # 0 = en, 1 = nl
        ("max_turns", np.int32),     # engine cap on turns (scored like the 2nd exhaustion)
        # -- progress
        ("phase", np.int32),
        ("cur", np.int32),            # seat whose turn it is
        ("start_player", np.int32),
        ("deal_i", np.int32),         # setup cards dealt so far (0..26)
        ("ch_kind", np.int32),        # in-turn chance: what the next stock/action card is for
        ("ch_left", np.int32),        # draws still owed for CK_DRAW
        ("ch_next", np.int32),        # phase after the chance sequence
        ("ch_slot", np.int32),        # CK_FD target run slot
        ("ch_pos", np.int32),         # CK_FD target position
        ("turn", np.int32),          # turns started so far
        ("moves", np.int32),         # actions applied (chance included)
        ("terminal", np.int32),
        ("winner", np.int32),         # -1: none or draw
        ("end_reason", np.int32),     # 0 playing, 1 win rule, 2 second stock exhaustion, 3 turn cap
        ("returns", np.float64, (2,)),
        # -- cards
        ("loc", w, (NUM_CARDS,)),
        ("lidx", w, (NUM_CARDS,)),
        ("pub", np.uint8, (NUM_CARDS,)),      # a hand card the other seat saw being taken
        ("bflag", np.uint8, (NUM_CARDS,)),    # taken from the pool with option B this turn
        ("inbuild", np.uint8, (NUM_CARDS,)),  # hand card shown in the run being laid
        ("hand_cnt", w, (2, NUM_KINDS)),
        ("hand_n", np.int32, (2,)),
        ("stock_n", np.int32),
        ("pool", w, (POOL_SLOTS,)),     # card id or -1 (empty)
        ("disc", w, (MAX_DISCARD,)),    # bottom .. top
        ("disc_n", np.int32),
        # -- runs (global slots)
        ("run_owner", w, (MAX_RUNS,)),  # -1: free slot
        ("run_suit", w, (MAX_RUNS,)),
        ("run_lo", w, (MAX_RUNS,)),
        ("run_hi", w, (MAX_RUNS,)),
        ("run_card", w, (MAX_RUNS, NPOS)),
        ("run_fd", np.uint8, (MAX_RUNS, NPOS)),
        # -- tokens
        ("token_loc", np.int32, (2,)),
        ("token_idx", np.int32, (2,)),
        ("token_turn", np.int32, (2,)),       # turn number when the token was put down
        # -- action cards
        ("apile", w, (2, MAX_PILE)),
        ("apile_n", np.int32, (2,)),
        ("astack_n", np.int32),                # cards in the action stack
        ("aside_n", np.int32),                 # set-aside action cards not yet shuffled in
        ("adrawn", np.int32),                  # the action card just turned (-1 none)
        ("anew_pile", np.int32),               # pile the newest card went on (-1 none)
        # -- stock exhaustion
        ("exhaust", np.int32),                 # times the stock ran out (0, 1, 2)
        ("final_turn", np.int32),              # 1: finish this turn, then score
        # -- within the turn (both rulebooks)
        ("exch_used", np.int32),               # step 4 (exchange; Dutch: doubling or swapping) was played
        ("discarded", np.int32),               # the turn's discard was made
        ("build_suit", np.int32),              # the run being laid: its suit (-1 none)
        ("build_lo", np.int32),                # its lowest and highest position (0: no run is being laid)
        ("build_hi", np.int32),
        ("build_card", w, (NPOS,)),     # the card laid at each position (-1 none)
        ("b_done", np.int32),                  # a card taken from a pool line this turn is on the table
        # -- English rules only (left at their reset values by the Dutch rules)
        ("opt_used", np.int32),                # step 3: the option played this turn (0 none, 1 A, 2 B, 3 C)
        ("build_amb", np.int32),               # the run being laid is a lone ace (position 1 or 11 still open)
        ("b_run_done", np.int32),              # option B: its new run was laid
        ("new_slot", np.int32),                # the run just laid with option A (token question; -1 none)
        ("ptoken_lines", np.int32),            # bitmask of the pool runs the exchange just made that the token may
                                               # claim
        # -- Dutch rules only (left at their reset values by the English rules)
        ("under", w, (POOL_SLOTS,)),    # covered pot card under a doubled one (-1 none)
        ("res_n", np.int32, (2,)),             # reserve sizes
        ("octa_mask", np.int32, (2,)),         # run slots holding the seat's Octas at its turn start
        ("step2_used", np.int32),              # step 2 (three pot cards) was played this turn
        ("token_run_laid", np.int32),          # step 3: a run with the token was laid this turn
        ("joker", np.int32),                   # the Jack's joker this turn: 0 not chosen, 1 chosen and
                                               # not yet on the table, 2 on the table
        ("jok_pos", np.int32),                 # position of the joker in the run being laid (-1)
        ("kpick_seat", np.int32),              # King: the reserve being picked from (-1 none)
        ("kpick_left", np.int32),              # King: reserve cards still to pick
        ("moves_turn", np.int32),              # card moves between runs this turn
        ("jack_slot", np.int32),               # the face-down card this turn's Jack laid: run slot (-1 none)
        ("jack_pos", np.int32),                # ... and position; it cannot be replaced before the next turn
        ("move_slot", np.int32),               # Dutch move: the run whose end card is being moved (-1 none)
        ("move_end", np.int32),                # ... and its end (0 low, 1 high); the destination comes next
        ("move_ret", np.int32),                # ... and the phase to go back to after the move
    ]
    if rebuilt:  # English rules only: the stock rebuilt at the first exhaustion (all 0 before it)
        fields += [
            ("rs_up", np.uint8, (NUM_KINDS,)),     # copies of each kind that went face up into it
            ("rs_hid", np.uint8, (2, NUM_KINDS)),  # copies of each kind hidden from seat q right after it
            ("rs_in", np.int32, (2,)),             # hidden cards seat q's hand took from it since
            ("rs_f", np.int32),                    # face-down cards that went into it
            ("rs_fd", np.uint8, (NUM_CARDS,)),     # a face-down run card laid from it
        ]
    return np.dtype(fields)


# ---------------------------------------------------------------- card helpers
@nb.njit
def suit_of(c) -> int:
    """Suit 0..3 of a number or action card."""
    if c < NUM_NUMBER:
        return (c % 40) // 10
    return ((c - NUM_NUMBER) % 12) // 3


@nb.njit
def rank_of(c) -> int:
    """Rank 1..10 of a number card (1 = ace)."""
    return c % 10 + 1


@nb.njit
def kind_of(c) -> int:
    """Kind 0..39 (suit*10 + rank-1) of a number card."""
    return c % 40


@nb.njit
def atype_of(c) -> int:
    """0 Jack, 1 Queen, 2 King for an action card id."""
    return (c - NUM_NUMBER) % 3


@nb.njit
def rank_of_pos(p) -> int:
    """The rank shown at run position ``p`` (position 11 is the high ace)."""
    return 1 if p == 11 else p


@nb.njit
def kind_at(suit, p) -> int:
    """The card kind that belongs at position ``p`` of a run of ``suit``."""
    return suit * 10 + rank_of_pos(p) - 1


@nb.njit
def kinds_held(s, p, suit) -> int:
    """How many of ``suit``'s ten kinds seat ``p`` holds a copy of (cards shown in the run being laid
    included). A run's three positions in a row are three kinds (the ace's positions 1 and 11 are apart),
    so with fewer no run of the suit can be laid from the hand alone: the legal masks ask this first."""
    n = 0
    for k in range(suit * 10, suit * 10 + 10):
        if s["hand_cnt"][p, k] > 0:
            n += 1
    return n


@nb.njit
def ranks_adjacent(r1, r2) -> bool:
    """Ranks one apart, the ace counting as 1 or 11 (used by the pool exchange)."""
    if abs(r1 - r2) == 1:
        return True
    if r1 == 1 and r2 == 10:
        return True
    if r2 == 1 and r1 == 10:
        return True
    return False


# ---------------------------------------------------------------- moving cards
@nb.njit
def detach(s, c) -> None:
    """Remove card ``c`` from the bookkeeping of its current location.

    Discard removal only supports the top card (the only one rules ever take);
    run removal leaves the position empty (the caller refills or frees it).
    """
    loc = s["loc"][c]
    i = s["lidx"][c]
    if loc == LOC_HAND:
        s["hand_cnt"][i, kind_of(c)] -= 1
        s["hand_n"][i] -= 1
    elif loc == LOC_STOCK:
        s["stock_n"] -= 1
    elif loc == LOC_POOL:
        s["pool"][i] = -1
    elif loc == LOC_RUN:
        s["run_card"][i // NPOS, i % NPOS] = -1
        s["run_fd"][i // NPOS, i % NPOS] = 0
    elif loc == LOC_DISCARD:
        s["disc_n"] -= 1
        s["disc"][s["disc_n"]] = -1
    elif loc == LOC_UNDER:
        s["under"][i] = -1
    elif loc == LOC_RESERVE:
        s["res_n"][i] -= 1
    s["pub"][c] = 0
    s["bflag"][c] = 0
    s["inbuild"][c] = 0
    s["rs_fd"][c] = 0
    s["loc"][c] = -1
    s["lidx"][c] = -1


@nb.njit
def hidden_from(s, c, player) -> bool:
    """Whether number card ``c`` is hidden from ``player``: in the stock, face down (in a run, or a joker in
    front of a seat), or in the other seat's hand and neither taken openly nor shown in the run being laid.

    Without a branch on the card's place (over the cards of a table, as good as random to the processor): the
    run cell is read for any place, at an index kept inside the table, and counts only for a run card."""
    loc = s["loc"][c]
    i = min(max(np.int64(s["lidx"][c]), 0), MAX_RUNS * NPOS - 1)
    face_down = s["run_fd"][i // NPOS, i % NPOS] == 1
    return (loc == LOC_STOCK) | (loc == LOC_JOKER) | ((loc == LOC_RUN) & face_down) | (
        (loc == LOC_HAND) & (s["lidx"][c] != player) & (s["pub"][c] == 0) & (s["inbuild"][c] == 0))


@nb.njit
def hidden_kinds(s, player, out) -> None:
    """``out[k]``: the copies of kind ``k`` hidden from ``player`` (:func:`hidden_from`; the two copies of a
    kind are cards ``k`` and ``k + NUM_KINDS``)."""
    for k in range(NUM_KINDS):
        out[k] = np.int64(hidden_from(s, k, player)) + np.int64(hidden_from(s, k + NUM_KINDS, player))


@nb.njit
def rebuild_known(s) -> bool:
    """Whether the record follows what the seats know of the stock rebuilt at the first exhaustion (English
    rules, after it): ``rs_up`` or ``rs_hid`` is set. A record of the layout before 2026-12-07 holds neither
    (it loads with them 0) and is played on as then: nothing of the rebuilt stock is kept or constrained."""
    if s["exhaust"] == 0 or s["rules"] != RULES_EN:
        return False
    for k in range(NUM_KINDS):
        if s["rs_up"][k] or s["rs_hid"][0, k] or s["rs_hid"][1, k]:
            return True
    return False


@nb.njit
def rebuilt_need(s, player, out) -> int:
    """``out[k]``: the copies of kind ``k`` that ``player`` knows lie where the rebuilt stock's cards went
    (English rules, after the first exhaustion): the copies that went face up into the stock less those of
    the kind that came into ``player``'s view since (a card in view never leaves it after the rebuild, so
    the difference of the hidden counts is what came into view). Those copies are in the stock, in a
    face-down card laid from it (``rs_fd``) or among the opponent's hand cards that came from it
    (``rs_in``). Returns their sum (0 where :func:`rebuild_known` is not: before the rebuild, under the
    Dutch rules, in a record of an earlier layout)."""
    out[:] = 0
    if not rebuild_known(s):
        return 0
    hid = np.empty(NUM_KINDS, dtype=np.int64)
    hidden_kinds(s, player, hid)
    total = 0
    for k in range(NUM_KINDS):
        seen = max(0, np.int64(s["rs_hid"][player, k]) - hid[k])
        out[k] = max(0, np.int64(s["rs_up"][k]) - seen)
        total += out[k]
    return total


@nb.njit
def to_hand(s, c, p, public) -> None:
    """Put (detached) card ``c`` in seat ``p``'s hand; ``public``: taken openly."""
    s["loc"][c] = LOC_HAND
    s["lidx"][c] = p
    s["hand_cnt"][p, kind_of(c)] += 1
    s["hand_n"][p] += 1
    s["pub"][c] = 1 if public else 0


@nb.njit
def to_stock(s, c) -> None:
    """Put (detached) card ``c`` into the stock."""
    s["loc"][c] = LOC_STOCK
    s["lidx"][c] = 0
    s["stock_n"] += 1


@nb.njit
def to_pool(s, c, slot) -> None:
    """Put (detached) card ``c`` face up on pool ``slot``."""
    s["loc"][c] = LOC_POOL
    s["lidx"][c] = slot
    s["pool"][slot] = c


@nb.njit
def to_discard(s, c) -> None:
    """Put (detached) card ``c`` on top of the discard pile."""
    s["loc"][c] = LOC_DISCARD
    s["lidx"][c] = s["disc_n"]
    s["disc"][s["disc_n"]] = c
    s["disc_n"] += 1


@nb.njit
def to_run(s, c, slot, pos, facedown) -> None:
    """Put (detached) card ``c`` at ``pos`` of run ``slot`` (face down if asked)."""
    s["loc"][c] = LOC_RUN
    s["lidx"][c] = slot * NPOS + pos
    s["run_card"][slot, pos] = c
    s["run_fd"][slot, pos] = 1 if facedown else 0


@nb.njit
def hand_card_of_kind(s, p, k, keep_b=False) -> int:
    """The card of kind ``k`` that leaves seat ``p``'s hand when the seat plays one (-1 none).

    A copy the opponent knows to be in the hand (``pub``: taken openly) always
    leaves before a hidden one, whatever the reason for playing it: copies are
    interchangeable for the rules, and what the opponent may know of a hand
    must depend only on what it saw (a hidden copy leaving instead would leave
    a "known" card behind in one world and not in another). Among known copies
    a card taken from the pool this turn (``bflag``) goes first, or last with
    ``keep_b`` (so that it stays owed to the table). Cards shown in the run
    being laid are not in play.

    Args:
        s: the record.
        p: the seat.
        k: the card kind (suit*10 + rank-1).
        keep_b: prefer a known copy not taken from the pool this turn.

    Returns:
        The card id, or -1 if the hand holds no free card of kind ``k``.
    """
    best = -1
    best_score = -2
    for cp in range(2):
        c = cp * 40 + k
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == p and s["inbuild"][c] == 0:
            b = np.int64(s["bflag"][c])  # (uint8 fields: no wrap-around in the difference below)
            score = 4 * np.int64(s["pub"][c]) + (-b if keep_b else b)  # a taken card is a known one
            if score > best_score:
                best, best_score = c, score
    return best


# ---------------------------------------------------------------- runs
@nb.njit
def free_run_slot(s) -> int:
    """The lowest free run slot (-1 if none; cannot happen, see MAX_RUNS)."""
    for r in range(MAX_RUNS):
        if s["run_owner"][r] < 0:
            return r
    return -1


@nb.njit
def run_faceup(s, r) -> int:
    """Face-up cards of run ``r`` (its length: face-down cards do not count)."""
    n = 0
    for p in range(s["run_lo"][r], s["run_hi"][r] + 1):
        if s["run_fd"][r, p] == 0:
            n += 1
    return n


@nb.njit
def table_faceup(s, p) -> int:
    """Face-up cards in seat ``p``'s runs."""
    n = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] == p:
            n += run_faceup(s, r)
    return n


@nb.njit
def longest_run(s, p) -> int:
    """Most face-up cards in one run of seat ``p``."""
    best = 0
    for r in range(MAX_RUNS):
        if s["run_owner"][r] == p:
            best = max(best, run_faceup(s, r))
    return best


@nb.njit
def free_run(s, r) -> None:
    """Clear run slot ``r`` (its cards must already be elsewhere)."""
    s["run_owner"][r] = -1
    s["run_suit"][r] = -1
    s["run_lo"][r] = 0
    s["run_hi"][r] = 0
    for p in range(NPOS):
        s["run_card"][r, p] = -1
        s["run_fd"][r, p] = 0


@nb.njit
def clear_build(s) -> None:
    """No run is being laid."""
    s["build_suit"] = -1
    s["build_lo"] = 0
    s["build_hi"] = 0
    s["build_amb"] = 0
    s["build_card"][:] = -1
    s["jok_pos"] = -1


@nb.njit
def extend_pos(s, r, end) -> int:
    """Position a card would take extending run ``r`` at ``end`` (0 low, 1 high); -1 if none.

    The length limit of 10 forbids the ace at both ends, and positions stay in
    1..11, so there is no wraparound.
    """
    lo = s["run_lo"][r]
    hi = s["run_hi"][r]
    if hi - lo + 1 >= 10:
        return -1
    if end == 0:
        return lo - 1 if lo > 1 else -1
    return hi + 1 if hi < 11 else -1


# ---------------------------------------------------------------- pool
@nb.njit
def pool_rank_seq_ok(r0, r1, r2) -> bool:
    """Three ranks in consecutive order (ascending or descending), ace as 1 or 11."""
    for lo_ace in range(2):
        a = r0 if r0 != 1 else (1 if lo_ace == 0 else 11)
        b = r1 if r1 != 1 else (1 if lo_ace == 0 else 11)
        c = r2 if r2 != 1 else (1 if lo_ace == 0 else 11)
        if b - a == 1 and c - b == 1:
            return True
        if a - b == 1 and b - c == 1:
            return True
    return False


@nb.njit
def pool_line_is_run(s, line) -> bool:
    """Whether pool ``line`` holds a pool run (3 cards, one suit, consecutive in line order)."""
    c0 = s["pool"][POOL_LINES[line, 0]]
    c1 = s["pool"][POOL_LINES[line, 1]]
    c2 = s["pool"][POOL_LINES[line, 2]]
    if c0 < 0 or c1 < 0 or c2 < 0:
        return False
    if suit_of(c0) != suit_of(c1) or suit_of(c1) != suit_of(c2):
        return False
    return pool_rank_seq_ok(rank_of(c0), rank_of(c1), rank_of(c2))


@nb.njit
def slot_protected_by(s, slot, q) -> bool:
    """Whether pool ``slot`` belongs to a pool run carrying seat ``q``'s token."""
    if s["token_loc"][q] != TOK_POOL:
        return False
    line = s["token_idx"][q]
    for i in range(3):
        if POOL_LINES[line, i] == slot:
            return True
    return False


@nb.njit
def exchange_kinds(s, slot) -> int:
    """The card kinds (bit ``k``: kind ``k``) whose card placed on pool ``slot`` is orthogonally next to a
    same-suit card one rank away: what an exchange may put there (one pass over the slot's neighbours,
    for every kind of the hand at once)."""
    kinds = 0
    for i in range(3):
        j = POOL_ADJ[slot, i]
        if j < 0:
            break
        d = s["pool"][j]
        if d < 0:
            continue
        rank, first = rank_of(d), int(suit_of(d)) * 10  # int: 64-bit shifts uncompiled too
        for r in range(1, 11):
            if ranks_adjacent(rank, r):
                kinds |= 1 << (first + r - 1)
    return kinds


# ---------------------------------------------------------------- action piles
@nb.njit
def action_tops_match(s) -> bool:
    """Whether the two visible face-up action cards share a suit."""
    if s["apile_n"][0] == 0 or s["apile_n"][1] == 0:
        return False
    a = s["apile"][0, s["apile_n"][0] - 1]
    b = s["apile"][1, s["apile_n"][1] - 1]
    return suit_of(a) == suit_of(b)


@nb.njit
def place_action(s, c, pile) -> None:
    """Put the turned action card ``c`` on face-up ``pile``."""
    d = s["apile_n"][pile]
    s["apile"][pile, d] = c
    s["apile_n"][pile] = d + 1
    s["loc"][c] = LOC_APILE
    s["lidx"][c] = pile * MAX_PILE + d


# ---------------------------------------------------------------- chance helpers
@nb.njit
def kind_order(j, lo, hi) -> int:
    """The ``j``-th card id of ``[lo, hi)`` (the number cards or the action cards) in kind order: both copies of
    a kind together, the kinds in order (``lo + copy * half + kind``; the ids run copy by copy).

    Chance and :func:`octagames.octa.turn.determinize` list cards in this order, so that which kind they draw
    for a seed does not depend on which copy of a kind lies where, which no seat can tell: listed by id, two
    records a seat cannot tell apart (copy 34 of a kind in its hand in one, copy 74 in the other) drew
    different kinds for the same seed, and a search played differently in them (review, 2026-12-07).
    """
    half = (hi - lo) // 2
    return lo + (j % 2) * half + j // 2


@nb.njit
def nth_card_at(s, loc, n, lo, hi) -> int:
    """The ``n``-th card of ``[lo, hi)`` at location ``loc`` in kind order (:func:`kind_order`; -1 if fewer)."""
    for j in range(hi - lo):
        c = kind_order(j, lo, hi)
        if s["loc"][c] == loc:
            if n == 0:
                return c
            n -= 1
    return -1


@nb.njit
def random_stock_card(s) -> int:
    """A uniformly drawn stock card, using the record's RNG."""
    return nth_card_at(s, LOC_STOCK, rng_below(s, s["stock_n"]), 0, NUM_NUMBER)


@nb.njit
def hidden_action_count(s) -> int:
    """Action cards never seen (the stack and the set-aside cards)."""
    n = 0
    for c in range(NUM_NUMBER, NUM_CARDS):
        if s["loc"][c] == LOC_AHIDDEN:
            n += 1
    return n


# ---------------------------------------------------------------- asking the turn machinery for chance
@nb.njit
def start_chance(s, kind, count, nxt) -> None:
    """Ask for a chance sequence drawing ``kind`` (``count`` draws), then player phase ``nxt``.

    Only the record changes here: the turn machinery (:func:`octagames.octa.turn.settle`)
    skips what an empty stock cannot give once the action is applied.
    """
    s["phase"] = PH_CHANCE
    s["ch_kind"] = kind
    s["ch_left"] = count
    s["ch_next"] = nxt


@nb.njit
def first_empty_slot(s) -> int:
    """The first empty pool space in refill order (-1 if none)."""
    for i in range(POOL_SLOTS):
        if s["pool"][i] < 0:
            return i
    return -1


@nb.njit
def start_refill(s, from_discard, nxt) -> None:
    """Refill the empty pool spaces in refill order: the discard pile first (top card first) if
    ``from_discard``, then the stock (chance), then player phase ``nxt``."""
    if from_discard:
        for i in range(POOL_SLOTS):
            if s["pool"][i] < 0 and s["disc_n"] > 0:
                c = s["disc"][s["disc_n"] - 1]
                detach(s, c)
                to_pool(s, c, i)
    start_chance(s, CK_REFILL, 0, nxt)
