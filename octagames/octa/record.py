"""Checking an Octa record before any kernel runs on it: saved games are untrusted input.

:func:`check_record` returns ``""`` for a record that every kernel (legal
actions, apply, observation, determinize, chance, returns, the strings and the
text render) can run on, and that the game can go on from, else one line naming
the field found wrong. The compiled kernels do not check bounds, so each step
below indexes only with what the steps before it have vouched for:

1. the config: ``rules`` and ``max_turns`` (:func:`config_problem`);
2. the range of every field (:func:`field_bounds`, one table; the actions counted,
   ``moves``, within ``max_game_length``, so the int32 counter cannot wrap), and the
   fields of the other rulebook left at their reset values (:data:`OWN_FIELDS`);
3. where the cards are: each card's location fits its kind and rulebook and
   ``lidx`` fits the location; every index array (:data:`SLOT_FIELDS`) and
   ``loc``/``lidx`` name each other both ways; the counts kept beside them
   (hands, stock, discard pile, action piles, reserves, hidden action cards)
   agree; the flags ``pub``, ``bflag`` and ``inbuild`` mark hand cards only;
4. the runs (free slots cleared; one suit over 3..10 positions, every card in
   place, each face-up card the one its position shows, one face up at least),
   the tokens and the Dutch ``octa_mask``; then the engine's own consistency
   check, :func:`octagames.octa.checks.validate`;
5. the game's progress: the setup deal, the turn order, the actions counted (no more
   than the deal and the turns started allow), the stock and its exhaustion, the end of
   the game (the winner the rulebook gives) and the returns; what the seats know of
   the stock the English rules rebuild (``rs_*``);
6. while the game is on, the fields that belong to phases (:data:`PHASE_PARTS`:
   the turned action card, the run being laid, the token questions, the King's
   pick, the Dutch move) and the conditions of the phase (the pending chance
   draw, the action card's use, the hand limit, the cards taken from the pool,
   the Dutch joker and action stack);
7. the engine can go on: a chance node has an outcome, the seat to move a legal action.

A determinization from the view of the seat that is not moving resamples the
mover's hidden hand, and the run it is laying may need cards it no longer holds:
``determinize`` draws such a world again (``turn.DETERMINIZE_TRIES``), and step 7
is what would refuse one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Callable

import numpy as np

from octagames.core import CHANCE, out_of_range
from octagames.octa import checks, en, nl
from octagames.octa.common import (CK_ACTION, CK_AFLIP, CK_DRAW, CK_FD, CK_JOKER, CK_REFILL, END_CAP,
                                   END_STOCK, END_WIN, HAND_LIMIT, LOC_ADRAWN, LOC_AHIDDEN, LOC_APILE,
                                   LOC_DISCARD, LOC_HAND, LOC_JOKER, LOC_POOL, LOC_RESERVE, LOC_RUN,
                                   LOC_STOCK, LOC_UNDER, MAX_DISCARD, MAX_PILE, MAX_RUNS, NPOS,
                                   NUM_ACTION_CARDS, NUM_ACTIONS, NUM_CARDS, NUM_KINDS, NUM_NUMBER, PH_CHANCE,
                                   PH_DEAL, PH_OVER, PH_PILE, PH_START, PH_USE, POOL_LINES, POOL_SLOTS,
                                   RULES_EN, RULES_NL, SETUP_DEALS, TOK_CENTRE, TOK_POOL, TOK_RUN)
from octagames.octa.rules import MAX_TURNS_LIMIT, RULE_SETS, STATE_DTYPE, Config, kernel_module, max_game_length
from octagames.octa.view import card_name
from octagames.specialize import cached, engine_kernels

PH_MOVE = nl.PH_MOVE  # Dutch: the end card of run ``move_slot`` is being moved
BOOKS = {RULES_EN: en, RULES_NL: nl}
RULEBOOK_NAMES = {RULES_EN: "English", RULES_NL: "Dutch"}

# The fields only one rulebook uses: the other leaves them at their reset values.
OWN_FIELDS = {RULES_EN: ("opt_used", "build_amb", "b_run_done", "new_slot", "ptoken_lines", "rs_up", "rs_hid",
                         "rs_in", "rs_f", "rs_fd"),
              RULES_NL: ("under", "res_n", "octa_mask", "step2_used", "token_run_laid", "joker", "jok_pos",
                         "kpick_seat", "kpick_left", "moves_turn", "move_slot", "move_end", "move_ret")}
# The fields the setup deal changes; every other one keeps its reset value until the first turn.
DEALT_FIELDS = ("rng", "rules", "max_turns", "phase", "deal_i", "moves", "loc", "lidx", "hand_cnt", "hand_n",
                "stock_n", "pool", "apile", "apile_n", "astack_n")

# Card locations: their names, the largest ``lidx`` of each, and where each kind of card may be.
LOC_NAMES = {LOC_STOCK: "the stock", LOC_HAND: "a hand", LOC_POOL: "the pool", LOC_RUN: "a run",
             LOC_DISCARD: "the discard pile", LOC_AHIDDEN: "the hidden action cards",
             LOC_APILE: "an action pile", LOC_ADRAWN: "the turned action card", LOC_UNDER: "under a pot card",
             LOC_RESERVE: "a reserve", LOC_JOKER: "the joker in front of a seat"}
LIDX_MAX = {LOC_STOCK: 0, LOC_HAND: 1, LOC_POOL: POOL_SLOTS - 1, LOC_RUN: MAX_RUNS * NPOS - 1,
            LOC_DISCARD: MAX_DISCARD - 1, LOC_AHIDDEN: 0, LOC_APILE: 2 * MAX_PILE - 1, LOC_ADRAWN: 0,
            LOC_UNDER: POOL_SLOTS - 1, LOC_RESERVE: 1, LOC_JOKER: 1}
NUMBER_PLACES = {RULES_EN: (LOC_STOCK, LOC_HAND, LOC_POOL, LOC_RUN, LOC_DISCARD),
                 RULES_NL: (LOC_STOCK, LOC_HAND, LOC_POOL, LOC_RUN, LOC_DISCARD, LOC_UNDER, LOC_RESERVE,
                            LOC_JOKER)}
ACTION_PLACES = (LOC_AHIDDEN, LOC_APILE, LOC_ADRAWN)
# The index arrays that name the card in each place of a location (their flat index is the lidx).
SLOT_FIELDS = (("pool", LOC_POOL), ("disc", LOC_DISCARD), ("run_card", LOC_RUN), ("apile", LOC_APILE),
               ("adrawn", LOC_ADRAWN), ("under", LOC_UNDER))

# A chance draw inside a turn, per rulebook: (ch_kind, ch_next) -> the draws ch_left may still owe.
CHANCE_STEPS = {
    RULES_EN: {(CK_DRAW, PH_PILE): (1, 1), (CK_DRAW, en.PH_OPTION): (1, 2), (CK_ACTION, PH_PILE): (0, 0),
               (CK_REFILL, en.PH_OPTION): (0, 0), (CK_REFILL, en.PH_EXCH): (0, 0),
               (CK_FD, en.PH_OPTION): (1, 1)},
    RULES_NL: {(CK_DRAW, PH_PILE): (1, 1), (CK_DRAW, nl.PH_MAIN): (1, 2), (CK_ACTION, PH_PILE): (0, 0),
               (CK_REFILL, nl.PH_MAIN): (0, 0), (CK_FD, nl.PH_MAIN): (1, 1), (CK_JOKER, nl.PH_JOKER): (1, 1),
               (CK_AFLIP, nl.PH_MAIN): (1, 2)},
}
CHANCE_NAMES = ("draw", "action card", "refill", "face-down card", "joker", "reshuffle flip")


# ---------------------------------------------------------------- helpers
@cache
def _validate_kernel() -> Callable:
    """``checks.validate`` as a cached entry point (compiled once, then loaded from the cache)."""
    return cached(checks.validate)


@cache
def _kernels(rules: int) -> ModuleType:
    """The engine's kernels of one rulebook, as :class:`~octagames.core.Game` compiles them."""
    return engine_kernels(kernel_module(Config(rules=RULE_SETS[rules])))


@cache
def _fresh(rules: int) -> np.void:
    """A record just reset under ``rules`` (every field at its reset value)."""
    rec = np.zeros(1, dtype=STATE_DTYPE)[0]
    rec["rules"] = rules
    rec["max_turns"] = MAX_TURNS_LIMIT
    _kernels(rules).reset(rec, 0)
    return rec


def _shown(suit, pos):
    """The card kind a run of ``suit`` shows at position ``pos`` (11 is the high ace); arrays too."""
    return suit * 10 + np.where(pos == 11, 1, pos) - 1


def _value(v) -> str:
    a = np.asarray(v)
    return str(a.item()) if a.ndim == 0 else str(a.tolist())


def _slot(field: str, shape: tuple[int, ...], j: int) -> str:
    """``pool[3]``, ``run_card[4, 7]`` or ``adrawn``: entry ``j`` of ``field`` flattened."""
    if not shape:
        return field
    return f"{field}[{', '.join(str(int(i)) for i in np.unravel_index(j, shape))}]"


def _card(s, c: int) -> str:
    """Card ``c`` and where ``loc``/``lidx`` put it."""
    loc, i = int(s["loc"][c]), int(s["lidx"][c])
    return f"card {c} ({card_name(c)}) has loc = {loc} ({LOC_NAMES.get(loc, '?')}), lidx = {i}"


def _phase(s) -> str:
    ph = int(s["phase"])
    return f"phase = {ph} ({BOOKS[int(s['rules'])].PHASE_NAMES[ph]})"


# ---------------------------------------------------------------- 1, 2: the config and the ranges
def config_problem(s) -> str:
    """``""`` if the record carries a valid config (``rules`` 0/1, ``max_turns`` 1..200), else why not."""
    return out_of_range([("rules", s["rules"], RULES_EN, RULES_NL),
                         ("max_turns", s["max_turns"], 1, MAX_TURNS_LIMIT)])


def field_bounds(rules: int, turn: int, max_turns: int) -> list[tuple[str, int, int]]:
    """``(field, lo, hi)`` for every integer field of a record under ``rules`` at ``turn``, except the
    card locations (``loc``/``lidx``, checked by location), the config and the other rulebook's fields."""
    dutch = rules == RULES_NL
    runs, pos, num = MAX_RUNS - 1, NPOS - 1, NUM_NUMBER - 1
    longest = max_game_length(Config(rules=RULE_SETS[rules], max_turns=max_turns))  # bounds the actions (moves)
    bounds = [("phase", 0, PH_OVER), ("cur", 0, 1), ("start_player", -1, 1), ("deal_i", 0, SETUP_DEALS),
              ("ch_kind", 0, CK_AFLIP if dutch else CK_FD), ("ch_left", 0, 2), ("ch_next", 0, PH_OVER),
              ("ch_slot", -1, runs), ("ch_pos", -1, pos), ("turn", 0, max_turns), ("moves", 0, longest),
              ("terminal", 0, 1), ("winner", -1, 1), ("end_reason", 0, END_CAP),
              ("pub", 0, 1), ("bflag", 0, 1), ("inbuild", 0, 1), ("hand_cnt", 0, 2),
              ("hand_n", 0, NUM_NUMBER), ("stock_n", 0, NUM_NUMBER), ("pool", -1, num), ("disc", -1, num),
              ("disc_n", 0, MAX_DISCARD),
              ("run_owner", -1, 1), ("run_suit", -1, 3), ("run_lo", 0, pos), ("run_hi", 0, pos),
              ("run_card", -1, num), ("run_fd", 0, 1),
              ("token_loc", TOK_CENTRE, TOK_RUN if dutch else TOK_POOL), ("token_idx", -1, runs),
              ("token_turn", -1, turn), ("apile", -1, NUM_CARDS - 1), ("apile_n", 0, MAX_PILE),
              ("astack_n", 0, NUM_ACTION_CARDS), ("aside_n", 0, 8), ("adrawn", -1, NUM_CARDS - 1),
              ("anew_pile", -1, 1), ("exhaust", 0, 1 if dutch else 2), ("final_turn", 0, 1),
              ("exch_used", 0, 1), ("discarded", 0, 1), ("build_suit", -1, 3), ("build_lo", 0, pos),
              ("build_hi", 0, pos), ("build_card", -1, num), ("b_done", 0, 1),
              ("jack_slot", -1, runs), ("jack_pos", -1, pos)]
    if dutch:
        return bounds + [("under", -1, num), ("res_n", 0, NUM_NUMBER), ("octa_mask", 0, 2**MAX_RUNS - 1),
                         ("step2_used", 0, 1), ("token_run_laid", 0, 1), ("joker", 0, 2),
                         ("jok_pos", -1, pos), ("kpick_seat", -1, 1), ("kpick_left", 0, 2),
                         ("moves_turn", 0, nl.MAX_MOVES),
                         ("move_slot", -1, runs), ("move_end", -1, 1), ("move_ret", -1, nl.PH_MAIN)]
    return bounds + [("opt_used", 0, 3), ("build_amb", 0, 1), ("b_run_done", 0, 1), ("new_slot", -1, runs),
                     ("ptoken_lines", 0, 2**len(POOL_LINES) - 1), ("rs_up", 0, 2), ("rs_hid", 0, 2),
                     ("rs_in", 0, NUM_NUMBER), ("rs_f", 0, NUM_NUMBER), ("rs_fd", 0, 1)]


def _ranges(s) -> str:
    """Every field within its bounds, the other rulebook's fields as reset, returns of -1, 0 or +1."""
    rules = int(s["rules"])
    bounds = field_bounds(rules, int(s["turn"]), int(s["max_turns"]))
    bad = out_of_range((f, s[f], lo, hi) for f, lo, hi in bounds)
    if bad:
        return bad
    fresh = _fresh(rules)
    for f in OWN_FIELDS[RULES_NL if rules == RULES_EN else RULES_EN]:
        if not np.array_equal(s[f], fresh[f]):
            return (f"{f} = {_value(s[f])}, but the {RULEBOOK_NAMES[rules]} rules never set it "
                    f"(it stays {_value(fresh[f])})")
    if not np.all(np.isin(s["returns"], (-1.0, 0.0, 1.0))):
        return f"returns = {_value(s['returns'])}: each seat's return is -1, 0 or +1"
    return ""


# ---------------------------------------------------------------- 3: where the cards are
def _locations(s) -> str:
    """Each card at a location of its kind (and rulebook), with an ``lidx`` that fits it."""
    rules = int(s["rules"])
    for c in range(NUM_CARDS):
        loc, i = int(s["loc"][c]), int(s["lidx"][c])
        places = NUMBER_PLACES[rules] if c < NUM_NUMBER else ACTION_PLACES
        if loc not in places:
            kind = "number" if c < NUM_NUMBER else "action"
            return (f"loc[{c}] = {loc}: a {kind} card ({card_name(c)}) under the {RULEBOOK_NAMES[rules]} "
                    f"rules is at one of {list(places)}")
        if not 0 <= i <= LIDX_MAX[loc]:
            return f"lidx[{c}] = {i} is outside 0..{LIDX_MAX[loc]} for a card in {LOC_NAMES[loc]}"
    return ""


def _slots_agree(s, field: str, where: int) -> str:
    """The index array ``field`` and ``loc``/``lidx`` name each other: its entry j holds card c
    exactly when card c is at location ``where`` with ``lidx`` j."""
    shape = np.shape(s[field])
    slots = np.asarray(s[field]).reshape(-1)
    for j in np.flatnonzero(slots >= 0):
        c = int(slots[j])
        if s["loc"][c] != where or s["lidx"][c] != j:
            return f"{_slot(field, shape, int(j))} = {c}, but {_card(s, c)}"
    for c in np.flatnonzero(s["loc"] == where):
        j = int(s["lidx"][c])
        if slots[j] != c:
            return f"{_card(s, int(c))}, but {_slot(field, shape, j)} = {int(slots[j])}"
    return ""


def _counts(s) -> str:
    """The counts kept beside the locations agree with them; the hand flags mark hand cards."""
    loc, lidx = s["loc"], s["lidx"]
    held = np.zeros((2, NUM_KINDS), dtype=np.int64)
    hand = np.flatnonzero(loc == LOC_HAND)
    np.add.at(held, (lidx[hand], hand % NUM_KINDS), 1)
    wrong = np.argwhere(s["hand_cnt"] != held)
    if len(wrong):
        p, k = (int(x) for x in wrong[0])
        return (f"hand_cnt[{p}, {k}] = {int(s['hand_cnt'][p, k])}, but loc/lidx put {int(held[p, k])} "
                f"{card_name(k)} in P{p}'s hand")
    disc = lidx[loc == LOC_DISCARD]
    counts = [("hand_n", s["hand_n"], held.sum(axis=1)), ("stock_n", s["stock_n"], np.sum(loc == LOC_STOCK)),
              ("disc_n", s["disc_n"], len(disc)),
              ("res_n", s["res_n"], np.bincount(lidx[loc == LOC_RESERVE], minlength=2)),
              ("astack_n + aside_n", s["astack_n"] + s["aside_n"], np.sum(loc == LOC_AHIDDEN))]
    for field, have, want in counts:
        if not np.array_equal(have, want):
            return f"{field} = {_value(have)}, but loc/lidx put {_value(want)} cards there"
    if np.any(disc >= s["disc_n"]):
        return (f"disc_n = {int(s['disc_n'])}, but the discard pile holds cards at depths "
                f"{sorted(disc.tolist())}: it fills from the bottom")
    on_pile = lidx[loc == LOC_APILE]
    for pile in range(2):
        depth = on_pile[on_pile // MAX_PILE == pile] % MAX_PILE
        if len(depth) != s["apile_n"][pile] or np.any(depth >= s["apile_n"][pile]):
            return (f"apile_n[{pile}] = {int(s['apile_n'][pile])}, but action pile {pile} holds cards at "
                    f"depths {sorted(depth.tolist())}")
    in_hand = (np.arange(NUM_CARDS) < NUM_NUMBER) & (loc == LOC_HAND)
    for flag in ("pub", "bflag", "inbuild"):
        stray = np.flatnonzero((s[flag] != 0) & ~in_hand)
        if len(stray):
            return f"{flag}[{int(stray[0])}] = 1 marks a hand card, but {_card(s, int(stray[0]))}"
    return ""


def _placement(s) -> str:
    """Locations, the index arrays and the counts (step 3)."""
    why = _locations(s)
    for field, where in SLOT_FIELDS:
        why = why or _slots_agree(s, field, where)
    return why or _counts(s)


# ---------------------------------------------------------------- 4: runs, tokens, Octas
def _runs(s) -> str:
    """Free run slots are cleared; a run is one suit over 3..10 positions, its cards in place (the
    Jack's face-down card being drawn excepted), each face-up card the one its position shows, one face up
    at least."""
    hole = (-1, -1)  # the place the Jack's face-down card is drawn for
    if s["phase"] == PH_CHANCE and s["ch_kind"] == CK_FD:
        hole = (int(s["ch_slot"]), int(s["ch_pos"]))
    pos = np.arange(NPOS)
    for r in range(MAX_RUNS):
        cards, fd = s["run_card"][r], s["run_fd"][r]
        lo, hi, suit = int(s["run_lo"][r]), int(s["run_hi"][r]), int(s["run_suit"][r])
        if s["run_owner"][r] < 0:
            if suit != -1 or lo != 0 or hi != 0 or np.any(cards >= 0) or np.any(fd != 0):
                return (f"run slot {r} is free (run_owner[{r}] = -1), but run_suit/run_lo/run_hi/run_card/"
                        f"run_fd hold a run")
            continue
        if suit < 0 or lo < 1 or not 3 <= hi - lo + 1 <= 10:
            return (f"run {r}: run_suit = {suit}, run_lo = {lo}, run_hi = {hi}; a run is one suit 0..3 over "
                    f"3..10 positions within 1..11")
        inside = (pos >= lo) & (pos <= hi)
        if np.any(cards[~inside] >= 0) or np.any(fd[~inside] != 0):
            return f"run_card[{r}] / run_fd[{r}] hold cards outside the run's positions {lo}..{hi}"
        holes = np.flatnonzero(inside & (cards < 0)).tolist()
        if holes and (holes != [hole[1]] or r != hole[0] or fd[hole[1]] != 0):
            return f"run_card[{r}, {holes[0]}] = -1 inside run {r} ({lo}..{hi}), and no card is drawn for it"
        up = inside & (fd == 0) & (cards >= 0)
        wrong = np.flatnonzero(up & (cards % NUM_KINDS != _shown(suit, pos)))
        if len(wrong):
            q = int(wrong[0])
            return (f"run_card[{r}, {q}] = {int(cards[q])} ({card_name(int(cards[q]))}) is face up at "
                    f"another card's place")
        if not np.any(up):
            return f"run {r} has no face-up card"
    return ""


def _tokens(s) -> str:
    """A token in the centre, on a run of its seat, or (English) on a pool line.

    The pool line need not be a pool run any more: in records saved before the
    English rules refused a claim on a run sharing a card with the other token's
    run (2026-12-06), option C could take that run and the shared card with it.
    """
    for q in range(2):
        t, i, when = int(s["token_loc"][q]), int(s["token_idx"][q]), int(s["token_turn"][q])
        if t == TOK_CENTRE:
            ok = i == -1 and when == -1
        elif t == TOK_RUN:
            ok = i >= 0 and s["run_owner"][i] == q and when >= 0
        else:
            ok = 0 <= i < len(POOL_LINES) and when >= 0
        if not ok:
            where = ("in the centre", "on a run of its seat", "on a pool line")[t]
            return (f"token_loc[{q}] = {t}, token_idx[{q}] = {i}, token_turn[{q}] = {when}: the token is not "
                    f"{where}")
    return ""


def _octa_mask(s) -> str:
    """The Dutch ``octa_mask`` marks runs of its own seat only (its Octas when its turn began)."""
    for q in range(2):
        marked = [r for r in range(MAX_RUNS) if s["octa_mask"][q] >> r & 1]
        if any(s["run_owner"][r] != q for r in marked):
            return f"octa_mask[{q}] = {int(s['octa_mask'][q])} marks run slots {marked}, not all runs of P{q}"
    return ""


def _validate(s) -> str:
    """The engine's own consistency check (all 104 cards in one place each, valid runs)."""
    err = int(_validate_kernel()(s))
    return f"the table is inconsistent: {checks.ERROR_NAMES[err]}" if err else ""


# ---------------------------------------------------------------- 5: progress
def _deal(s) -> str:
    """The setup deal: ``deal_i`` cards dealt in order (pool, seat 0, seat 1, action piles), the
    rest as reset."""
    fresh = _fresh(int(s["rules"]))
    for f in s.dtype.names:
        if f not in DEALT_FIELDS and not np.array_equal(s[f], fresh[f]):
            return (f"{f} = {_value(s[f])} during the setup deal; it stays {_value(fresh[f])} until the "
                    f"first turn")
    i = int(s["deal_i"])
    if (i == SETUP_DEALS) != (s["phase"] == PH_START):
        return (f"deal_i = {i} with {_phase(s)}: the start player is drawn once all {SETUP_DEALS} cards are "
                f"dealt")
    if s["moves"] > i:
        return f"moves = {int(s['moves'])}, but at most {i} actions lead to this position (deal_i = {i})"
    dealt = [("pool", s["pool"] >= 0, np.arange(POOL_SLOTS) < i),
             ("hand_n", s["hand_n"], np.clip([i - POOL_SLOTS, i - POOL_SLOTS - HAND_LIMIT], 0, HAND_LIMIT)),
             ("apile_n", s["apile_n"], [int(i > SETUP_DEALS - 2), int(i > SETUP_DEALS - 1)])]
    for f, have, want in dealt:
        if not np.array_equal(have, want):
            return f"{f} = {_value(s[f])}, but deal_i = {i} cards have been dealt in order"
    return ""


def _progress(s) -> str:
    """The deal, the turn order, the stock and its exhaustion, the set-aside action cards, the end."""
    ph, terminal, turn = int(s["phase"]), int(s["terminal"]), int(s["turn"])
    dutch = s["rules"] == RULES_NL
    if (ph == PH_OVER) != bool(terminal):
        return f"{_phase(s)} with terminal = {terminal}: the game is over exactly in phase {PH_OVER}"
    if ph in (PH_DEAL, PH_START):
        return _deal(s)
    if s["deal_i"] != SETUP_DEALS:
        return f"deal_i = {int(s['deal_i'])} after the setup deal of {SETUP_DEALS} cards"
    sp = int(s["start_player"])
    if sp < 0 or turn < 1 or s["cur"] != (sp if turn % 2 else 1 - sp):
        return (f"cur = {int(s['cur'])}, start_player = {sp}, turn = {turn}: after the setup the seats take "
                f"turns from the start player on")
    # the deal, the start player, at most TURN_ACTION_BOUND actions a turn started: within max_game_length, so
    # the int32 counter cannot wrap (Octa counts no turn's actions, so the bound is the turn's end)
    most = SETUP_DEALS + 1 + turn * en.TURN_ACTION_BOUND
    if s["moves"] > most:
        return f"moves = {int(s['moves'])}, but at most {most} actions lead to this position (turn = {turn})"
    last = int(s["final_turn"])
    if last != (s["exhaust"] == (1 if dutch else 2)) or last != (s["stock_n"] == 0):
        return (f"final_turn = {last}, exhaust = {int(s['exhaust'])}, stock_n = {int(s['stock_n'])}: the "
                f"last turn comes when the stock runs out for good")
    if s["aside_n"] not in ((8,) if dutch else (0, 8)):
        return f"aside_n = {int(s['aside_n'])}: the 8 set-aside action cards are set aside or all shuffled in"
    return _end(s)


def _end(s) -> str:
    """The end of the game, or that it has not ended: the reason, the winner the rulebook gives (its win
    rule: the seat that moved under the Dutch rules, either seat under the English "as soon as"; else the
    higher score) and the returns."""
    terminal, w, reason = int(s["terminal"]), int(s["winner"]), int(s["end_reason"])
    last = int(s["final_turn"])
    owner, res = s["run_owner"], s["res_n"]
    up = np.sum((s["run_fd"] == 0) & (s["run_card"] >= 0), axis=1)  # face-up cards of each run slot
    total = np.array([up[owner == q].sum() for q in range(2)])
    if s["rules"] == RULES_NL:  # empty hand and reserve, an Octa since the turn began
        score = total - res
        octa = w >= 0 and any(s["octa_mask"][w] >> r & 1 and up[r] >= 8 for r in range(MAX_RUNS))
        won = octa and s["hand_n"][w] == 0 and res[w] == 0
    else:  # an Octa and 28 face-up cards in runs
        score = total
        won = w >= 0 and up[owner == w].max(initial=0) >= 8 and total[w] >= 28
    by_score = 0 if score[0] > score[1] else 1 if score[1] > score[0] else -1
    mover_only = s["rules"] == RULES_NL  # an English win may come in the other seat's turn
    ends = {0: not terminal and w == -1,
            END_WIN: terminal and (w == s["cur"] or not mover_only) and bool(won),
            END_STOCK: terminal and last == 1 and w == by_score,
            END_CAP: terminal and last == 0 and s["turn"] == s["max_turns"] and w == by_score}
    if not ends[reason]:
        return (f"end_reason = {reason}, winner = {w}, terminal = {terminal}: a game ends by the rulebook's "
                f"win (Dutch: of the seat that moved), or at the stock's last turn or the turn cap with the "
                f"higher score winning (scores {score.tolist()})")
    want = np.zeros(2)
    if w >= 0:
        want[w], want[1 - w] = 1.0, -1.0
    if not np.array_equal(s["returns"], want):
        return f"returns = {_value(s['returns'])}, but winner = {w} (terminal = {terminal})"
    return ""


# ---------------------------------------------------------------- 6: the fields of the phase
def _build(s) -> str:
    """The run being laid: one suit over 1..10 positions, each holding the mover's card shown there
    (or the Dutch joker), exactly those cards marked ``inbuild``."""
    suit, lo, hi, jok = int(s["build_suit"]), int(s["build_lo"]), int(s["build_hi"]), int(s["jok_pos"])
    if suit < 0 or not 1 <= lo <= hi or hi - lo + 1 > 10:
        return (f"build_suit = {suit}, build_lo = {lo}, build_hi = {hi}: the run being laid is one suit over "
                f"1..10 positions")
    pos = np.arange(NPOS)
    inside = (pos >= lo) & (pos <= hi)
    cards = s["build_card"]
    if np.any(cards[~inside] >= 0) or np.any(cards[inside] < 0):
        return f"build_card = {_value(cards)}: a card at each position {lo}..{hi} of the run being laid only"
    if jok >= 0 and (not lo <= jok <= hi or s["joker"] != 1):
        return f"jok_pos = {jok}: the Jack's joker lies in the run being laid ({lo}..{hi}) while it is in use"
    if s["build_amb"] and (lo, hi) != (1, 1):
        return f"build_amb = 1, but the run being laid ({lo}..{hi}) is not a lone ace"
    if s["rules"] == RULES_EN and s["opt_used"] not in (1, 2):
        return f"opt_used = {int(s['opt_used'])} while a run is laid: that is option A or B"
    shown = [q for q in range(lo, hi + 1) if q != jok]  # the joker's card is the one in front of the seat
    for q in shown:
        c = int(cards[q])
        if s["loc"][c] != LOC_HAND or s["lidx"][c] != s["cur"] or c % NUM_KINDS != _shown(suit, q):
            return (f"build_card[{q}] = {c} ({card_name(c)}) is not the mover's card for position {q} of "
                    f"the run being laid")
    marked = np.flatnonzero(s["inbuild"]).tolist()
    if sorted(int(cards[q]) for q in shown) != marked:
        return f"inbuild marks cards {marked}, not the cards of the run being laid"
    return ""


def _new_slot(s) -> str:
    r = int(s["new_slot"])
    if s["run_owner"][r] != s["cur"] or s["token_loc"][s["cur"]] != TOK_CENTRE:
        return (f"new_slot = {r}: the token question is about a run the mover just laid, the token in the "
                f"centre")
    return ""


def _ptoken(s) -> str:
    if s["token_loc"][s["cur"]] != TOK_CENTRE:
        return (f"ptoken_lines = {int(s['ptoken_lines'])}: the token question is asked with the token in the "
                f"centre")
    return ""


def _kpick(s) -> str:
    seat, left = int(s["kpick_seat"]), int(s["kpick_left"])
    if left < 1 or s["res_n"][seat] < 1:
        return (f"kpick_seat = {seat}, kpick_left = {left}: the King picks 1..2 cards of a reserve that "
                f"holds some")
    return ""


def _move(s) -> str:
    slot, end, back = int(s["move_slot"]), int(s["move_end"]), int(s["move_ret"])
    if s["run_owner"][slot] < 0 or end < 0 or back not in (PH_USE, nl.PH_MAIN):
        return (f"move_slot = {slot}, move_end = {end}, move_ret = {back}: a move takes an end (0 low, "
                f"1 high) of a run and goes back to phase {PH_USE} or {nl.PH_MAIN}")
    if nl.move_card(s, slot, end) < 0:
        return (f"move_slot = {slot}, move_end = {end}: that end card may not leave its run (a face-up card, "
                f"and the run keeps 3 cards, one face up)")
    return ""


@dataclass(frozen=True)
class PhasePart:
    """Fields of the record that are set exactly in some phases while the game is on.

    Attributes:
        field: set when it differs from ``unset``.
        unset: its value outside those phases.
        phases: rulebook -> the phases where it is set (a rulebook that never sets it is left out).
        cleared: other fields of the part, and their values while it is unset.
        check: what must hold while it is set (``""`` when all is well).
    """

    field: str
    unset: int
    phases: dict[int, tuple[int, ...]]
    cleared: tuple[tuple[str, int], ...] = ()
    check: Callable[[np.void], str] | None = None


PHASE_PARTS = (
    PhasePart("adrawn", -1, {RULES_EN: (PH_PILE,), RULES_NL: (PH_PILE,)}),
    PhasePart("build_lo", 0, {RULES_EN: (en.PH_BUILD,), RULES_NL: (nl.PH_BUILD,)},
              (("build_suit", -1), ("build_hi", 0), ("build_card", -1), ("build_amb", 0), ("jok_pos", -1),
               ("inbuild", 0)), _build),
    PhasePart("new_slot", -1, {RULES_EN: (en.PH_TOKEN,)}, (), _new_slot),
    PhasePart("ptoken_lines", 0, {RULES_EN: (en.PH_PTOKEN,)}, (), _ptoken),
    PhasePart("kpick_seat", -1, {RULES_NL: (nl.PH_KPICK,)}, (("kpick_left", 0),), _kpick),
    PhasePart("move_slot", -1, {RULES_NL: (PH_MOVE,)}, (("move_end", -1), ("move_ret", -1)), _move),
)


def _parts(s) -> str:
    """Each of :data:`PHASE_PARTS` set exactly in its phases, cleared outside them, valid when set.

    A finished game keeps what its last action left (a win by the run just laid
    leaves its token question), so there a part need only be cleared or valid.
    """
    rules, ph, playing = int(s["rules"]), int(s["phase"]), not s["terminal"]
    for part in PHASE_PARTS:
        now = np.asarray(s[part.field]).item() != part.unset
        if playing and now != (ph in part.phases.get(rules, ())):
            return f"{part.field} = {_value(s[part.field])} with {_phase(s)}"
        if not now:
            for f, v in part.cleared:
                if np.any(s[f] != v):
                    return f"{f} = {_value(s[f])}, but {part.field} = {part.unset} (not in use)"
        elif part.check is not None:
            why = part.check(s)
            if why:
                return why
    return ""


def _tops_match(s) -> bool:
    """Whether both action piles hold a card and their top cards share a suit."""
    n = s["apile_n"]
    tops = [int(s["apile"][p, n[p] - 1]) - NUM_NUMBER for p in range(2) if n[p] > 0]
    return len(tops) == 2 and tops[0] % 12 // 3 == tops[1] % 12 // 3


def _chance(s) -> str:
    """A chance draw inside a turn: a step its rulebook asks for, with something left to draw."""
    kind, left, nxt = int(s["ch_kind"]), int(s["ch_left"]), int(s["ch_next"])
    owed = CHANCE_STEPS[int(s["rules"])].get((kind, nxt))
    if owed is None or not owed[0] <= left <= owed[1]:
        return (f"ch_kind = {kind} ({CHANCE_NAMES[kind]}), ch_left = {left}, ch_next = {nxt}: not a chance "
                f"step of the {RULEBOOK_NAMES[int(s['rules'])]} rules")
    stock, stack = int(s["stock_n"]), int(s["astack_n"])
    piles = [int(x) for x in s["apile_n"]]  # the reshuffle turns pile 0's card, then pile 1's
    pending = {CK_DRAW: stock > 0, CK_FD: stock > 0, CK_JOKER: stock > 0,
               CK_REFILL: stock > 0 and bool(np.any(s["pool"] < 0)), CK_ACTION: stack > 0,
               CK_AFLIP: stack >= left and piles == [int(left == 1), 0]}
    if not pending[kind]:
        return (f"ch_kind = {kind} ({CHANCE_NAMES[kind]}) with nothing to draw (stock_n = {stock}, "
                f"astack_n = {stack}, apile_n = {piles})")
    slot, pos = int(s["ch_slot"]), int(s["ch_pos"])
    if kind == CK_FD and (slot < 0 or pos < 0 or s["run_owner"][slot] < 0 or s["run_card"][slot, pos] >= 0
                          or not s["run_lo"][slot] <= pos <= s["run_hi"][slot]):
        return (f"ch_slot = {slot}, ch_pos = {pos}: the Jack's face-down card goes where the card it took "
                f"left a run")
    return ""


def _taken(s) -> str:
    """Cards taken from the pool (``bflag``) are in the mover's hand while option B (English) or step 2
    (Dutch) owes one to the table, and one is marked as long as it owes one."""
    taken = np.flatnonzero(s["bflag"])
    done = s["b_done"] == 1
    if s["rules"] == RULES_NL:
        started = s["step2_used"] == 1
        owed = may = started and not done  # the first one on the table settles it and clears the marks
    else:
        started = s["opt_used"] == 2
        may = started and s["phase"] in (en.PH_BPLACE, en.PH_BUILD)  # until option B's placement ends
        owed = may and not done
    if done and not started:
        return f"b_done = 1, but no pool cards were taken this turn ({_phase(s)})"
    if owed and not len(taken):
        return f"b_done = 0: a taken pool card is owed to the table, but bflag marks none ({_phase(s)})"
    if len(taken) and (not may or np.any(s["lidx"][taken] != s["cur"])):
        return f"bflag[{int(taken[0])}] = 1 with {_phase(s)}: taken pool cards are marked only while owed"
    return ""


def _joker(s) -> str:
    """The Dutch Jack's joker (``joker`` = 1): drawn, then face down in front of the mover until laid."""
    ph, joker = int(s["phase"]), int(s["joker"])
    cards = np.flatnonzero(s["loc"] == LOC_JOKER)
    drawing = ph == PH_CHANCE and s["ch_kind"] == CK_JOKER
    laying = joker == 1 and ph in (nl.PH_JOKER, nl.PH_BUILD)
    if (joker == 1) != (drawing or laying) or len(cards) != int(laying) or \
            np.any(s["lidx"][cards] != s["cur"]):
        return f"joker = {joker} with {_phase(s)} and {len(cards)} joker card(s) in front of a seat"
    if joker == 1 and s["anew_pile"] < 0:
        return "anew_pile = -1 while the Jack's joker is in use: the joker takes the Jack's suit"
    return ""


def _action_stack(s) -> str:
    """Dutch: the action stack is empty only from the turn of its last card until the main phase, which
    reshuffles all 24 first; a turn never begins on an empty stack."""
    if s["astack_n"] > 0:
        return ""
    ph = int(s["phase"])
    early = (ph in (PH_PILE, PH_USE, nl.PH_KPICK, nl.PH_JOKER) or (ph == nl.PH_BUILD and s["joker"] == 1)
             or (ph == PH_MOVE and s["move_ret"] == PH_USE) or (ph == PH_CHANCE and s["ch_next"] != PH_PILE))
    if not early:
        return (f"astack_n = 0 with {_phase(s)}: the Dutch rules reshuffle the action cards before the main "
                f"phase")
    return ""


def _phase_rules(s) -> str:
    """The conditions of the current phase (while the game is on)."""
    ph, cur, dutch = int(s["phase"]), int(s["cur"]), s["rules"] == RULES_NL
    why = _chance(s) if ph == PH_CHANCE else ""
    if why:
        return why
    if not (ph == PH_CHANCE and s["ch_kind"] == CK_AFLIP) and np.any(s["apile_n"] < 1):
        return f"apile_n = {_value(s['apile_n'])}: both action piles hold a card after the setup"
    using = ph == PH_USE or (dutch and ph == PH_MOVE and s["move_ret"] == PH_USE)
    if using and (s["anew_pile"] < 0 or not _tops_match(s)):
        return (f"{_phase(s)}, anew_pile = {int(s['anew_pile'])}: an action card is used right after it is "
                f"placed, when both face-up action cards share a suit")
    if ph == (nl.PH_RESPUT if dutch else en.PH_DDOWN) and s["hand_n"][cur] <= HAND_LIMIT:
        return (f"hand_n[{cur}] = {int(s['hand_n'][cur])} with {_phase(s)}: that phase is for more than "
                f"{HAND_LIMIT} cards")
    if dutch and ph == nl.PH_RESBACK and (s["hand_n"][cur] >= HAND_LIMIT or s["res_n"][cur] < 1):
        return (f"hand_n[{cur}] = {int(s['hand_n'][cur])}, res_n[{cur}] = {int(s['res_n'][cur])} with "
                f"{_phase(s)}: reserve cards come back to a hand of fewer than {HAND_LIMIT}")
    return _taken(s) or (_joker(s) or _action_stack(s) if dutch else "")


def _rebuilt(s) -> str:
    """English rules: what the seats know of the stock rebuilt at the first exhaustion (``rs_*``, all 0 before
    it, and in a record saved before 2026-12-07) fits the table: copies that went face up into it were hidden
    from both seats right after it; no copy has left a seat's view since; ``rs_fd`` marks face-down run cards;
    the stock and those hold no more of a kind than went in face up but for ``rs_f`` cards; the copies still
    owed to its places (:func:`~octagames.octa.common.rebuilt_need`, recounted here) fit in them."""
    if s["rules"] != RULES_EN:
        return ""
    marked = np.flatnonzero(s["rs_fd"])
    if s["exhaust"] == 0 or not (np.any(s["rs_up"]) or np.any(s["rs_hid"])):
        for f in ("rs_up", "rs_hid", "rs_in", "rs_f", "rs_fd"):
            if np.any(s[f]):
                return (f"{f} = {_value(s[f])}, but the stock was not rebuilt"
                        f"{'' if s['exhaust'] == 0 else ' (rs_up and rs_hid are all 0)'}")
        return ""
    for c in marked:
        i = int(s["lidx"][c])
        if s["loc"][c] != LOC_RUN or s["run_fd"][i // NPOS, i % NPOS] != 1:
            return f"rs_fd[{int(c)}] = 1 marks a face-down run card, but {_card(s, int(c))}"
    loc, lidx = np.asarray(s["loc"][:NUM_NUMBER]), np.asarray(s["lidx"][:NUM_NUMBER])
    placed = np.bincount(np.flatnonzero((loc == LOC_STOCK) | (s["rs_fd"][:NUM_NUMBER] == 1)) % NUM_KINDS,
                         minlength=NUM_KINDS)
    beyond = int(np.sum(np.maximum(0, placed - s["rs_up"].astype(np.int64))))
    if beyond > s["rs_f"]:
        return (f"the stock and the face-down cards laid from it hold {beyond} cards beyond the copies that went "
                f"face up into the stock, but only rs_f = {int(s['rs_f'])} went in face down")
    run_fd = np.asarray(s["run_fd"]).reshape(-1)
    face_down = (loc == LOC_RUN) & (run_fd[np.clip(lidx, 0, len(run_fd) - 1)] == 1)
    shown = (np.asarray(s["pub"][:NUM_NUMBER]) == 1) | (np.asarray(s["inbuild"][:NUM_NUMBER]) == 1)
    for q in range(2):
        hand = (loc == LOC_HAND) & (lidx != q) & ~shown
        hidden = (loc == LOC_STOCK) | (loc == LOC_JOKER) | face_down | hand
        hid = np.bincount(np.flatnonzero(hidden) % NUM_KINDS, minlength=NUM_KINDS)
        over = np.flatnonzero(s["rs_up"] > s["rs_hid"][q])
        if len(over):
            k = int(over[0])
            return (f"rs_up[{k}] = {int(s['rs_up'][k])}, but rs_hid[{q}, {k}] = {int(s['rs_hid'][q, k])}: the "
                    f"copies that went into the stock were hidden from both seats")
        grew = np.flatnonzero(hid > s["rs_hid"][q])
        if len(grew):
            k = int(grew[0])
            return (f"rs_hid[{q}, {k}] = {int(s['rs_hid'][q, k])}, but {int(hid[k])} {card_name(k)} are hidden "
                    f"from P{q}: no card leaves a seat's view after the rebuild")
        owed = int(np.sum(np.maximum(0, s["rs_up"].astype(np.int64) - (s["rs_hid"][q] - hid))))
        room = int(s["stock_n"]) + len(marked) + min(int(s["rs_in"][1 - q]), int(np.sum(hand)))
        if owed > room:
            return (f"rs_up, rs_hid and rs_in owe P{q}'s view {owed} copies to the rebuilt stock's places, "
                    f"which hold {room} cards")
    return ""


# ---------------------------------------------------------------- 7: the engine can go on
def _can_go_on(s) -> str:
    """A chance node has an outcome; the seat to move has a legal action."""
    k = _kernels(int(s["rules"]))
    if k.current_player(s) == CHANCE:
        if k.chance_outcomes(s, np.zeros(NUM_CARDS, dtype=np.int64), np.zeros(NUM_CARDS)) == 0:
            return f"{_phase(s)}: no chance outcome is possible"
        return ""
    cur = int(s["cur"])
    if k.legal_mask(s, cur, np.zeros(NUM_ACTIONS, dtype=np.uint8)) == 0:
        return f"{_phase(s)}: P{cur}, to move, has no legal action"
    return ""


# ---------------------------------------------------------------- the check
TABLE_STEPS = (config_problem, _ranges, _placement, _runs, _tokens, _octa_mask, _validate, _progress, _rebuilt)
PLAY_STEPS = (_parts, _phase_rules, _can_go_on)


def check_record(s) -> str:
    """``""`` when every kernel can run safely on record ``s`` under the config it carries and the game
    can go on from it, else one line naming the first field found wrong (saved games are untrusted input).

    Checked, each step relying on the ones before it (see the module docstring):
    the config; the range of every field; where the cards are and the counts beside
    them; the runs, tokens and Octa marks (and :func:`octagames.octa.checks.validate`);
    the game's progress (the deal, the turn order, the stock, the end and its returns);
    while the game is on, the fields of the phase and its conditions, and a chance
    outcome or a legal action to go on with (a finished game: its phase fields only).
    """
    steps = TABLE_STEPS
    if s["phase"] not in (PH_DEAL, PH_START):
        steps += PLAY_STEPS[:1] if s["terminal"] else PLAY_STEPS
    for step in steps:
        why = step(s)
        if why:
            return why
    return ""
