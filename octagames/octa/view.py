"""What a seat sees of an Octa table, for both rulebooks: card and run names, chance strings.

Nothing here names a card the viewing seat has not seen: a face-down card is
named only by the card it stands for (``[?♥8]``), unless the view is the
omniscient one (``viewer=None``), which says so.
"""

from __future__ import annotations

from octagames.octa.common import (ACTION_TYPES, CK_ACTION, CK_AFLIP, CK_FD, CK_JOKER, CK_REFILL, MAX_RUNS,
                                   NUM_NUMBER, PH_DEAL, PH_START, POOL_SLOT_NAMES, POOL_SLOTS, RANK_NAMES,
                                   SUIT_SYMBOLS, kind_at)


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


def kind_name(k: int) -> str:
    """``♥7`` for card kind ``k`` (suit*10 + rank-1)."""
    return card_name(int(k))


def pos_name(suit: int, pos: int) -> str:
    """The card that belongs at run position ``pos`` of ``suit`` (position 11 is the high ace)."""
    return kind_name(int(kind_at(int(suit), int(pos))))


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
