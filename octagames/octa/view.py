"""What a seat sees of an Octa table, for both rulebooks: names, the text render, observation pieces.

Nothing here names a card the viewing seat has not seen: a face-down card is
named only by the card it stands for (``[?♥8]``), unless the view is the
omniscient one (``viewer=None``), which says so.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba as nb
import numpy as np

from octagames.compact import copy_entries
from octagames.octa.common import (ACTION_TYPES, CK_ACTION, CK_AFLIP, CK_FD, CK_JOKER, CK_REFILL,
                                   FACT_END_ROW, FACT_EXTEND_ROW, FACT_PILE_ROW, FACT_POOL_RUN, FACT_RUN_ROW,
                                   FACT_SITUATION_ROW, FACT_SLOT_ROW, FACT_SLOT_SUIT_ROW, FACT_TAKE_ROW, HAND_LIMIT,
                                   LOC_HAND, MAX_RUNS, NUM_ACTION_KINDS, NUM_FACTS, NUM_KINDS, NUM_NUMBER,
                                   PH_CHANCE, PH_DEAL, PH_START, POOL_LINES, POOL_SLOTS, POOL_SLOT_NAMES,
                                   RANK_NAMES, SUIT_SYMBOLS, TOK_CENTRE, TOK_POOL, TOK_RUN, atype_of,
                                   extend_pos, kind_at, kind_of, longest_run, rank_of, run_faceup, suit_of,
                                   table_faceup)


def card_name(c: int) -> str:
    """``♥7`` for a number card, ``♠J`` for an action card, ``--`` for none (-1)."""
    c = int(c)
    if c < 0:
        return "--"
    if c < NUM_NUMBER:
        return SUIT_SYMBOLS[(c % 40) // 10] + RANK_NAMES[c % 10 + 1]
    a = (c - NUM_NUMBER) % 12
    return SUIT_SYMBOLS[a // 3] + ACTION_TYPES[a % 3]


def copy_name(c: int) -> str:
    """A card name that tells the two copies apart (chance outcome strings must be unique)."""
    c = int(c)
    return card_name(c) + (" (second copy)" if (40 <= c < NUM_NUMBER) or (c >= NUM_NUMBER + 12) else "")


def by_kind(cards: Iterable[int]) -> list[int]:
    """Number card ids in the order a seat is shown them: by kind (suit in the seed's order, then rank,
    the ace first), never by id (which copy of a kind a seat holds can depend on cards it never saw)."""
    return sorted((int(c) for c in cards), key=lambda c: (c % 40, c))


def hand_cards(s, q: int) -> list[int]:
    """Seat ``q``'s hand cards, listed by kind (:func:`by_kind`)."""
    return by_kind(c for c in range(NUM_NUMBER) if int(s["loc"][c]) == LOC_HAND and int(s["lidx"][c]) == q)


def kind_name(k: int) -> str:
    """``♥7`` for card kind ``k`` (suit*10 + rank-1)."""
    return card_name(int(k))


def pos_name(suit: int, pos: int) -> str:
    """The card that belongs at run position ``pos`` of ``suit`` (position 11 is the high ace)."""
    return kind_name(int(kind_at(int(suit), int(pos))))


def pos_label(suit: int, pos: int) -> str:
    """The card at run position ``pos``, an ace marked low or high (``♥A (low)``): where an ace goes is
    the player's choice, so a name that says which tells the two apart."""
    name = pos_name(suit, pos)
    return name + (" (low)" if pos == 1 else " (high)" if pos == 11 else "")


def run_string(s, r: int, viewer: int | None = 0) -> str:
    """Run slot ``r`` as ``♥6 ♥7 [?♥8] ♥9``: a face-down card shows the card it stands for.

    With ``viewer=None`` (the omniscient view) a face-down card also shows
    which card it is: ``[♣3 for ♥8]``.
    """
    r = int(r)
    if not 0 <= r < MAX_RUNS or int(s["run_owner"][r]) < 0:
        return f"(no run in slot {r})"
    out = []
    suit = int(s["run_suit"][r])
    for pos in range(int(s["run_lo"][r]), int(s["run_hi"][r]) + 1):
        c = int(s["run_card"][r, pos])
        if s["run_fd"][r, pos]:
            shown = pos_name(suit, pos)
            out.append(f"[?{shown}]" if viewer is not None else f"[{card_name(c)} for {shown}]")
        else:
            out.append(card_name(c))
    return " ".join(out)


def chance_string(s, a: int) -> str:
    """The name of chance outcome ``a`` (a card id, or a seat for the start player)."""
    ph = int(s["phase"])
    if ph == PH_START:
        return f"P{a} starts"
    if ph == PH_DEAL:
        i = int(s["deal_i"])
        if i < POOL_SLOTS:
            return f"deal {copy_name(a)} to pool slot {POOL_SLOT_NAMES[i]}"
        if i < POOL_SLOTS + 16:
            return f"deal {copy_name(a)} to P{(i - POOL_SLOTS) // 8}"
        return f"turn {copy_name(a)} face up on action pile {i - POOL_SLOTS - 16}"
    kind = int(s["ch_kind"])
    who = int(s["cur"])
    if kind == CK_ACTION:
        return f"P{who} turns action card {copy_name(a)}"
    if kind == CK_REFILL:
        return f"refill the pool with {copy_name(a)} from the stock"
    if kind == CK_FD:
        return f"face-down card ({copy_name(a)}) from the stock"
    if kind == CK_JOKER:
        return f"P{who}'s face-down joker is {copy_name(a)}"
    if kind == CK_AFLIP:
        return f"reshuffle: turn {copy_name(a)} face up on action pile {2 - int(s['ch_left'])}"
    return f"P{who} draws {copy_name(a)}"


# The action-card step both tables begin with (octagames.octa.common.ACTION_STEP).
def pile_string(s, i: int) -> str:
    """Block ``pile``."""
    return f"put the action card on pile {i}"


def decline_string(s, i: int) -> str:
    """Block ``decline``."""
    return "do not use the action card"


def pile_reason(s, p: int, i: int, step: str) -> str:
    """Why block ``pile`` is not legal."""
    return f"the action card is placed on a pile right after it is turned; now: {step}"


# ---------------------------------------------------------------- observation pieces (kernels)
# Each rulebook declares its observation (``OBS_LAYOUT``) and writes it in its ``observation``
# kernel; the blocks both layouts have mean the same in both and are written here, at the offset
# ``o`` of the block. Seats are relative to the viewer (0 = self); every entry lies in [0, 1].
RUN_STRIDE = 30  # per run slot: owner (2), suit (4), face-up positions (11), face-down positions (11), tokens (2)


def _runs_through() -> np.ndarray:
    # for every set of held positions (bit p - 1: run position p, 1..11), numpy over all 2048 sets at once
    held = np.arange(2048, dtype=np.int64) << 1  # bit p: position p; bits 0 and 12 are never set
    bit = [(held >> p) & 1 for p in range(13)]
    below = [bit[0]]  # below[p]: held positions in a row ending at p
    for p in range(1, 13):
        below.append(bit[p] * (below[p - 1] + 1))
    above = [bit[12]]  # above[12 - p]: held positions in a row starting at p
    for p in range(11, -1, -1):
        above.append(bit[p] * (above[-1] + 1))
    above.reverse()
    table = np.zeros(2048, np.int64)
    for rank in range(10):
        through = [below[q - 1] + 1 + above[q + 1] for q in ((1, 11) if rank == 0 else (rank + 1,))]
        table |= np.minimum(np.max(through, axis=0), 10) << (4 * rank)  # the ace: at position 1 or 11
    return table


#: per set of held positions of a suit (index: bit p - 1 for run position p, 1..11), 4 bits per rank (rank
#: ``r`` at bit ``4 r``): the longest run of held positions through the rank's position once it is added, at
#: most 10 (the ace: the longer at 1 or 11); the ``interval`` fact of ``obs_facts``
RUNS_THROUGH = _runs_through()


@nb.njit
def obs_hands(s, player, out, o_hand, o_known) -> None:
    """Own hand and the opponent's cards taken openly: copies per kind / 2 (``out`` zeroed: only the
    kinds held are written, each once)."""
    for k in range(NUM_KINDS):
        own = known = 0
        for c in range(k, NUM_NUMBER, NUM_KINDS):  # the kind's two copies
            if s["loc"][c] == LOC_HAND:
                if s["lidx"][c] == player:
                    own += 1
                elif s["pub"][c]:
                    known += 1
        if own:
            out[o_hand + k] = own / 2.0
        if known:
            out[o_known + k] = known / 2.0


@nb.njit
def obs_hand_sizes(s, player, out, o) -> None:
    """Hand sizes (self, opponent) / 80."""
    out[o] = s["hand_n"][player] / 80.0
    out[o + 1] = s["hand_n"][1 - player] / 80.0


@nb.njit
def obs_runs(s, player, out, o) -> None:
    """Run slot r (``RUN_STRIDE`` entries each): owner self / opponent, suit (4), face-up positions
    1..11, face-down positions 1..11, a token of self / of the opponent on it."""
    for r in range(MAX_RUNS):
        owner = s["run_owner"][r]
        if owner < 0:
            continue
        base = o + r * RUN_STRIDE
        out[base + (0 if owner == player else 1)] = 1.0
        out[base + 2 + s["run_suit"][r]] = 1.0
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):
            if s["run_fd"][r, pos]:
                out[base + 6 + 11 + pos - 1] = 1.0
            else:
                out[base + 6 + pos - 1] = 1.0
        for q in range(2):
            if s["token_loc"][q] == TOK_RUN and s["token_idx"][q] == r:
                out[base + 28 + (0 if q == player else 1)] = 1.0


@nb.njit
def obs_pool(s, out, o) -> None:
    """Pool slot i (8 x 40): one-hot kind of its (top) card; all zero = empty."""
    for i in range(POOL_SLOTS):
        c = s["pool"][i]
        if c >= 0:
            out[o + i * NUM_KINDS + kind_of(c)] = 1.0


@nb.njit
def obs_tokens(s, player, out, o, lines) -> None:
    """Token of relative seat q: centre, on a run, [on pool line 0..3 when ``lines``], put down this turn,
    put down in an earlier turn (8 entries per seat with the lines, 4 without)."""
    width = 8 if lines else 4
    for q in range(2):
        base = o + (0 if q == player else 1) * width
        t = s["token_loc"][q]
        if t == TOK_CENTRE:
            out[base] = 1.0
        elif t == TOK_RUN:
            out[base + 1] = 1.0
        else:
            out[base + 2 + s["token_idx"][q]] = 1.0
        if t != TOK_CENTRE:
            out[base + width - (2 if s["token_turn"][q] == s["turn"] else 1)] = 1.0


@nb.njit
def obs_discard_order(s, out, o) -> None:
    """The discard pile bottom..top as (kind+1)/40 (0 = none): its full order (80 entries)."""
    for d in range(s["disc_n"]):
        out[o + d] = (kind_of(s["disc"][d]) + 1) / 40.0


@nb.njit
def obs_action_cards(s, out, o_tops, o_under, o_turned, o_new) -> None:
    """The two face-up action cards (one-hot action kind each), the cards under them (copies per action
    kind / 2), the card just turned (one-hot), and the pile the newest card went on this turn."""
    for pile in range(2):
        m = s["apile_n"][pile]
        for d in range(m):
            ak = (s["apile"][pile, d] - NUM_NUMBER) % NUM_ACTION_KINDS
            if d == m - 1:
                out[o_tops + pile * NUM_ACTION_KINDS + ak] = 1.0
            else:
                out[o_under + ak] += 0.5
    if s["adrawn"] >= 0:
        out[o_turned + (s["adrawn"] - NUM_NUMBER) % NUM_ACTION_KINDS] = 1.0
    if s["anew_pile"] >= 0:
        out[o_new + s["anew_pile"]] = 1.0


@nb.njit
def obs_counts(s, out, o) -> None:
    """Stock / 80, action stack / 24, set-aside action cards / 8, discard pile / 80."""
    out[o] = s["stock_n"] / 80.0
    out[o + 1] = s["astack_n"] / 24.0
    out[o + 2] = s["aside_n"] / 8.0
    out[o + 3] = s["disc_n"] / 80.0


@nb.njit
def obs_turn(s, player, out, o_phase, o_to_move) -> None:
    """The phase (one-hot over NUM_PHASES) and the relative seat whose turn it is."""
    out[o_phase + s["phase"]] = 1.0
    out[o_to_move + (0 if s["cur"] == player else 1)] = 1.0


@nb.njit
def obs_build(s, out, o) -> None:
    """The run being laid: suit (4) and its positions 1..11 (11); all zero when none is."""
    if s["build_lo"] > 0:
        out[o + s["build_suit"]] = 1.0
        for q in range(s["build_lo"], s["build_hi"] + 1):
            out[o + 4 + q - 1] = 1.0


@nb.njit
def run_totals(s, player) -> tuple[int, int, int, int]:
    """``table_faceup`` and ``longest_run`` of ``player`` and of the opponent, in one pass over the runs:
    ``(own face-up cards, the opponent's, own longest run, the opponent's)``."""
    own_up = other_up = own_longest = other_longest = 0
    for r in range(MAX_RUNS):
        q = s["run_owner"][r]
        if q < 0:
            continue
        n = run_faceup(s, r)
        if q == player:
            own_up, own_longest = own_up + n, max(own_longest, n)
        else:
            other_up, other_longest = other_up + n, max(other_longest, n)
    return own_up, other_up, own_longest, other_longest


@nb.njit
def obs_totals(s, player, out, o) -> None:
    """Face-up cards in runs / 80 (self, opponent), longest run / 10 (self, opponent)."""
    own_up, other_up, own_longest, other_longest = run_totals(s, player)
    out[o] = own_up / 80.0
    out[o + 1] = other_up / 80.0
    out[o + 2] = own_longest / 10.0
    out[o + 3] = other_longest / 10.0


@nb.njit
def obs_chance(s, out, o, kinds) -> None:
    """A pending chance draw: its kind (one-hot over the first ``kinds`` chance kinds), then the draws
    still owed / 2."""
    if s["phase"] == PH_CHANCE and s["ch_kind"] < kinds:
        out[o + s["ch_kind"]] = 1.0
        out[o + kinds] = s["ch_left"] / 2.0


# ---------------------------------------------------------------- the text render
def _hand_line(s, q: int, viewer: int | None) -> str:
    cards = hand_cards(s, q)
    if viewer is None or viewer == q:
        return " ".join(card_name(c) for c in cards) or "-"
    known = [card_name(c) for c in cards if s["pub"][c]]  # taken openly: the viewer saw them
    return f"{len(cards)} cards" + (f", known: {' '.join(known)}" if known else "")


def render(s, viewer: int | None, book) -> str:
    """A text picture of the table under rulebook module ``book``.

    With ``viewer`` it shows only what that seat can see (the other hand as a
    count and the cards it took openly, face-down cards as what they stand
    for); with ``viewer=None`` it shows everything, and its first line says so.
    ``book`` provides ``RULES_NAME``, ``PHASE_NAMES``, ``END_NAMES``,
    ``table_notes(s)`` and ``seat_notes(s, q)`` (lines of its own pieces).
    """
    seen = "all cards shown" if viewer is None else f"as seen by P{int(viewer)}"
    lines = [f"Octa ({book.RULES_NAME}), turn {int(s['turn'])}, phase: {book.PHASE_NAMES[int(s['phase'])]} "
             f"({seen})"]
    tops = []
    for pile in range(2):
        m = int(s["apile_n"][pile])
        tops.append(card_name(int(s["apile"][pile, m - 1])) if m else "--")
    drawn = card_name(int(s["adrawn"])) if int(s["adrawn"]) >= 0 else "-"
    lines.append(f"action piles: {tops[0]} | {tops[1]}   turned: {drawn}   stack {int(s['astack_n'])}, "
                 f"set aside {int(s['aside_n'])}   stock {int(s['stock_n'])} (ran out {int(s['exhaust'])}x)")
    p = [card_name(int(c)) for c in s["pool"]]
    tok = {0: "", 1: "", 2: "", 3: ""}
    for q in range(2):
        if int(s["token_loc"][q]) == TOK_POOL:
            tok[int(s["token_idx"][q])] += f"T{q}"
    centre = "".join(f"T{q}" for q in range(2) if int(s["token_loc"][q]) == TOK_CENTRE) or ".."
    lines.append("pool:  " + " ".join(f"{x:>4}" for x in p[0:3]) + f"   {tok[0]}")
    lines.append("       " + f"{p[3]:>4} {centre:>4} {p[4]:>4}   left {tok[2]} right {tok[3]}")
    lines.append("       " + " ".join(f"{x:>4}" for x in p[5:8]) + f"   {tok[1]}")
    lines.extend(book.table_notes(s))
    disc = [card_name(int(s["disc"][d])) for d in range(int(s["disc_n"]))]
    lines.append(f"discard ({len(disc)}): {' '.join(disc[-8:]) or '-'} (top last)")
    for q in range(2):
        mark = "*" if int(s["cur"]) == q and not s["terminal"] else " "
        lines.append(f"{mark}P{q} hand: {_hand_line(s, q, viewer)}")
        lines.extend("    " + note for note in book.seat_notes(s, q))
        for r in range(MAX_RUNS):
            if int(s["run_owner"][r]) == q:
                t = " [token]" if int(s["token_loc"][q]) == TOK_RUN and int(s["token_idx"][q]) == r else ""
                lines.append(f"    run {r}: {run_string(s, r, viewer)}{t}")
        lines.append(f"    face-up cards in runs: {int(table_faceup(s, q))}, longest run {int(longest_run(s, q))}")
    if s["terminal"]:
        w = int(s["winner"])
        lines.append(f"game over ({book.END_NAMES.get(int(s['end_reason']), '?')}): "
                     + (f"P{w} wins" if w >= 0 else "draw"))
    return "\n".join(lines)


@nb.njit
def obs_facts(s, player, out, o) -> None:
    """The ``facts`` block (:data:`octagames.octa.common.FACTS`): per card kind, then per pool slot and
    top discard (a copy of its kind's row), what ``player`` can tell of that card: it is there, copies
    held / 2, the longest own and opponent run it would extend / 10, same-suit kinds held one and two
    ranks away / 2 (the ace at both ends of its suit), the longest run of held kinds through it / 10, and
    whether it would complete a pool run (a kind: a copy placed in some pool slot, in place of the card
    there; a slot: some card of the hand placed there). Then, copies of kinds' rows: per pool slot and suit
    the kind of that suit with the slot top's rank (what a doubling or swap would put there), per run end
    the card there and the kind that would extend it (their last column: the run is ``player``'s); and the
    situation row (Octas, hand sizes, the limit of 8, the stock, face-up cards in runs); then per face-up
    action pile its top (there, Jack, Queen, King), whether that top shares the turned action card's suit,
    and whether the other pile's top does (the turned card put here could be used); then per run slot the
    run: on the table, its face-up cards / 10, ``player``'s, a token on it, its face-down cards / 10, an Octa
    (8 or more face-up), one card short of one (7), ``player`` holds a card that extends it; then per run
    slot and position 1..11 a copy of the row of the face-up card's kind there (what a Jack would take).

    Reads only ``player``'s hand and the public table (the facts of an information state). The block must
    be zeroed first (both observations zero the whole row, ``observation_facts`` the block): an entry that
    is 0 is not always written."""
    for r in range(MAX_RUNS):  # the runs each kind extends, and each run slot's own row
        q = s["run_owner"][r]
        if q < 0:
            continue
        n = run_faceup(s, r)
        length = n / 10.0
        col = 2 if q == player else 3
        row = o + (FACT_RUN_ROW + r) * NUM_FACTS
        for end in range(2):
            pos = extend_pos(s, r, end)
            if pos > 0:
                k = kind_at(s["run_suit"][r], pos)
                i = o + k * NUM_FACTS + col
                out[i] = max(out[i], length)
                if s["hand_cnt"][player, k] > 0:
                    out[row + 7] = 1.0  # the viewer holds a card that extends it
        out[row] = 1.0
        out[row + 1] = length
        out[row + 2] = 1.0 if q == player else 0.0
        for t in range(2):
            if s["token_loc"][t] == TOK_RUN and s["token_idx"][t] == r:
                out[row + 3] = 1.0
        out[row + 4] = (s["run_hi"][r] - s["run_lo"][r] + 1 - n) / 10.0
        out[row + 5] = 1.0 if n >= 8 else 0.0
        out[row + 6] = 1.0 if n == 7 else 0.0
    for suit in range(4):
        held = 0  # bit p: the card of run position p (1..11; the ace at 1 and 11) is in the hand
        for pos in range(1, 12):
            if s["hand_cnt"][player, kind_at(suit, pos)] > 0:
                held |= 1 << pos
        runs = RUNS_THROUGH[held >> 1]
        for rank in range(10):
            k = suit * 10 + rank
            row = o + k * NUM_FACTS
            out[row] = 1.0
            # every entry written, 0 or not: a branch on each would be as good as random to the processor
            out[row + 1] = s["hand_cnt"][player, k] / 2.0
            one = two = 0
            for j in range(2 if rank == 0 else 1):
                q = 1 + 10 * j if rank == 0 else rank + 1  # the ace stands at position 1 or 11
                one += ((held >> (q - 1)) & 1) + ((held >> (q + 1)) & 1)  # bits 0 and 12 are never set
                two += (((held >> (q - 2)) & 1) if q >= 2 else 0) + ((held >> (q + 2)) & 1)
            out[row + 4] = one / 2.0
            out[row + 5] = two / 2.0
            out[row + 6] = ((runs >> (4 * rank)) & 15) / 10.0
    completes = 0  # bit i: a card of the hand placed in pool slot i completes a pool run
    for line in range(POOL_LINES.shape[0]):
        for at in range(3):  # the slot filled; i, j: the other two places of the line, in order
            slot = POOL_LINES[line, at]
            i, j = (1, 2) if at == 0 else ((0, 2) if at == 1 else (0, 1))
            ci, cj = s["pool"][POOL_LINES[line, i]], s["pool"][POOL_LINES[line, j]]
            if s["pool"][slot] < 0 or ci < 0 or cj < 0 or suit_of(ci) != suit_of(cj):
                continue
            for hi_i in range(2 if rank_of(ci) == 1 else 1):  # an ace counts 1 or 11
                vi = 11 if hi_i else rank_of(ci)
                for hi_j in range(2 if rank_of(cj) == 1 else 1):
                    vj = 11 if hi_j else rank_of(cj)
                    for d in (-1, 1):  # consecutive along the line, down or up
                        x = vi + d * (at - i)
                        if vj - vi == d * (j - i) and 1 <= x <= 11:
                            k = kind_at(suit_of(ci), x)  # x: a run position (11: the high ace)
                            out[o + k * NUM_FACTS + FACT_POOL_RUN] = 1.0
                            if s["hand_cnt"][player, k] > 0:
                                completes |= 1 << slot
    for i in range(POOL_SLOTS + 2):
        if i < POOL_SLOTS:
            c = s["pool"][i]
        else:
            d = s["disc_n"] - 1 - (i - POOL_SLOTS)
            c = s["disc"][d] if d >= 0 else -1
        if c >= 0:
            src = o + kind_of(c) * NUM_FACTS
            dst = o + (FACT_SLOT_ROW + i) * NUM_FACTS  # the slots' rows, then the discards'
            copy_entries(out, dst, src, NUM_FACTS)
            if i < POOL_SLOTS:
                out[dst + FACT_POOL_RUN] = float((completes >> i) & 1)
                for suit in range(4):  # what a doubling or swap of a card of this suit would put there
                    src = o + (suit * 10 + c % 10) * NUM_FACTS
                    dst = o + (FACT_SLOT_SUIT_ROW + i * 4 + suit) * NUM_FACTS
                    copy_entries(out, dst, src, NUM_FACTS)
    for r in range(MAX_RUNS):  # each run end: the card there and the kind that would extend it
        q = s["run_owner"][r]
        if q < 0:
            continue
        for end in range(2):
            for which in range(2):  # the end card, then the kind that would extend the run there
                at = (s["run_lo"][r] if end == 0 else s["run_hi"][r]) if which == 0 else extend_pos(s, r, end)
                dst = o + ((FACT_END_ROW if which == 0 else FACT_EXTEND_ROW) + r * 2 + end) * NUM_FACTS
                if at > 0:
                    src = o + kind_at(s["run_suit"][r], at) * NUM_FACTS
                    copy_entries(out, dst, src, NUM_FACTS)
                out[dst + FACT_POOL_RUN] = 1.0 if q == player else 0.0
        for pos in range(s["run_lo"][r], s["run_hi"][r] + 1):  # each face-up card (a Jack's target): its kind's row
            if s["run_fd"][r, pos] == 0:
                src = o + kind_of(s["run_card"][r, pos]) * NUM_FACTS
                dst = o + (FACT_TAKE_ROW + r * 11 + pos - 1) * NUM_FACTS
                copy_entries(out, dst, src, NUM_FACTS)
    own_up, other_up, own_longest, other_longest = run_totals(s, player)
    row = o + FACT_SITUATION_ROW * NUM_FACTS
    out[row] = 1.0 if own_longest >= 8 else 0.0
    out[row + 1] = 1.0 if other_longest >= 8 else 0.0
    out[row + 2] = s["hand_n"][player] / 10.0
    out[row + 3] = 1.0 if s["hand_n"][player] >= HAND_LIMIT else 0.0
    out[row + 4] = s["stock_n"] / 80.0
    out[row + 5] = own_up / 80.0
    out[row + 6] = other_up / 80.0
    out[row + 7] = s["hand_n"][1 - player] / 10.0
    turned = s["adrawn"]
    for pile in range(2):  # the face-up action piles: their tops, and the turned card's suit against them
        row = o + (FACT_PILE_ROW + pile) * NUM_FACTS
        for j in range(NUM_FACTS):
            out[row + j] = 0.0
        n, m = s["apile_n"][pile], s["apile_n"][1 - pile]
        if n > 0:
            top = s["apile"][pile, n - 1]
            out[row] = 1.0
            out[row + 1 + atype_of(top)] = 1.0
            if turned >= 0 and suit_of(top) == suit_of(turned):
                out[row + 4] = 1.0
        if turned >= 0 and m > 0 and suit_of(s["apile"][1 - pile, m - 1]) == suit_of(turned):
            out[row + 5] = 1.0  # put here, the turned card shares the other top's suit: it can be used
