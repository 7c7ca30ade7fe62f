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

Phases and action tables
------------------------
Each rulebook module declares its phases and its action table (``ACTIONS``, a
:class:`~octagames.core.Layout`; the tables are in their docstrings):
:mod:`octagames.octa.en` and :mod:`octagames.octa.nl`. Both tables fill the one
action space of ``NUM_ACTIONS`` ids and begin with the shared action-card step
(put the turned card on pile 0 / 1, decline its use); :func:`action_layout`
gives the table of a config, and the strings and illegal-move reasons look up
the block of an action there.

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

Compiled-kernel cache
---------------------
Numba's on-disk cache (``cache=True``) is invalidated only when the file of
the cached function itself changes, not when a function it calls in another
module does. The kernels here call into ``en.py`` and ``common.py``, so after
editing those files delete ``octagames/octa/__pycache__/*.nbi`` and ``*.nbc``
(or touch ``rules.py`` and ``checks.py``). A cold compile takes about a minute.

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

from octagames.core import CHANCE, TERMINAL, GameInfo, check_choice, check_range
from octagames.octa import en, nl, turn
from octagames.octa.view import card_name, chance_string, run_string
from octagames.octa.common import (LOC_HAND, LOC_JOKER, LOC_RESERVE, MAX_RUNS, NUM_ACTION_KINDS, NUM_ACTIONS,
                                   NUM_CARDS, NUM_KINDS, NUM_NUMBER, PH_CHANCE, POOL_SLOT_NAMES, POOL_SLOTS,
                                   RULES_NL, SETUP_DEALS, TOK_CENTRE, TOK_POOL, TOK_RUN, kind_of, longest_run,
                                   make_state_dtype, table_faceup)
from octagames.octa.en import PHASE_NAMES, TURN_ACTION_BOUND

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


def action_layout(config: Config):
    """The action table (:class:`~octagames.core.Layout`) of ``config``'s rulebook.

    Both tables fill the same ``NUM_ACTIONS`` ids; ``locate`` names the block of an id.
    """
    return (nl if config.rules == "nl" else en).ACTIONS


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["rules"] = RULE_SETS.index(config.rules)
    s["max_turns"] = config.max_turns


# ---------------------------------------------------------------- kernels
reset = turn.reset
current_player = turn.current_player
chance_outcomes = turn.chance_outcomes
sample_chance = turn.sample_chance
determinize = turn.determinize


@nb.njit(cache=True)
def acting_player(s) -> int:
    """Same as :func:`current_player` (the game is sequential)."""
    return current_player(s)


@nb.njit(cache=True)
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
    return turn.gen_legal(s, player, out)


@nb.njit(cache=True)
def apply_action(s, action) -> bool:
    """Apply a chance outcome or the mover's action.

    Args:
        s: the record, changed in place.
        action: a chance outcome id at chance nodes, else a player action id.

    Returns:
        True if applied; False (and ``s`` untouched) if the action is illegal.
    """
    return _apply(s, action, True)


@nb.njit(cache=True)
def apply_legal(s, action) -> bool:
    """:func:`apply_action` for an action known to be legal (from :func:`legal_mask`): the
    player's move skips the legality check (the contract's optional fast apply; chance
    outcomes are still checked)."""
    return _apply(s, action, False)


@nb.njit(cache=True)
def _apply(s, action, checked) -> bool:
    # the rule set's chance or player move; ``checked``: refuse an illegal player action
    cp = current_player(s)
    if cp == TERMINAL:
        return False
    if cp == CHANCE:
        return turn.apply_chance(s, action)
    return turn.apply_player(s, action, checked)


@nb.njit(cache=True)
def returns(s, out) -> None:
    """+1 for the winner, -1 for the loser, 0 for both in a draw or before the end."""
    out[0] = s["returns"][0]
    out[1] = s["returns"][1]


@nb.njit(cache=True)
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
    ou = s["opt_used"]  # (the Dutch flags block: step 2 at index 2, a token run at index 1)
    if s["rules"] == 1:
        ou = 2 if s["step2_used"] else (1 if s["token_run_laid"] else 0)
    out[O_FLAGS + ou] = 1.0
    out[O_FLAGS + 4] = float(s["exch_used"])
    out[O_FLAGS + 5] = float(s["discarded"])
    out[O_FLAGS + 6] = float(s["b_done"])
    out[O_FLAGS + 7] = float(s["b_run_done"])
    if s["build_lo"] > 0:
        out[O_BUILD + s["build_suit"]] = 1.0
        for q in range(s["build_lo"], s["build_hi"] + 1):
            out[O_BUILD + 4 + q - 1] = 1.0
        mode = s["opt_used"]  # English: option A or B; Dutch: a plain run or the joker's
        if s["rules"] == 1:
            mode = 2 if s["joker"] == 1 else 1
        out[O_BUILD + 14 + mode] = 1.0
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


@nb.njit(cache=True)
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
    out[f + 0] = float(s["step2_used"])
    out[f + 1] = float(s["token_run_laid"])
    out[f + 2] = float(s["exch_used"])
    out[f + 3] = 1.0 if s["joker"] > 0 else 0.0
    out[f + 4] = 1.0 if (s["step2_used"] == 1 and s["b_done"] == 0) else 0.0
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


# ---------------------------------------------------------------- Python-side helpers
def _book(s):
    """The rulebook module of the record's rule set."""
    return nl if int(s["rules"]) == RULES_NL else en


def action_to_string(s, action: int) -> str:
    """A readable name of ``action`` in state ``s`` (chance outcomes included).

    Depends only on what every seat sees: a face-down card is named by the card it stands for.
    """
    a = int(action)
    if int(current_player(s)) == CHANCE:
        return chance_string(s, a)
    if not 0 <= a < NUM_ACTIONS:
        return f"action {a} (out of range)"
    book = _book(s)
    block, i = book.ACTIONS.locate(a)
    return book.STRINGS[block.name](s, i)


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is not legal for ``player`` in ``s``, in the rulebook's words (what ``player`` sees)."""
    a = int(action)
    cp = int(current_player(s))
    if cp == TERMINAL:
        return "the game is over"
    if cp == CHANCE:
        return "the cards are being dealt or drawn (a chance event comes first)"
    if player != cp:
        return f"it is P{cp}'s turn"
    if not 0 <= a < NUM_ACTIONS:
        return f"actions are 0..{NUM_ACTIONS - 1}"
    book = _book(s)
    block, i = book.ACTIONS.locate(a)
    return book.REASONS[block.name](s, int(player), i, book.PHASE_NAMES[int(s["phase"])])


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
