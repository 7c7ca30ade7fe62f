"""What each achten seat sees, written from the seed's table, for the leak test.

Pure Python over the record's slots (``slot_card``); it never reads the engine's
knowledge table (``known``) or its observation code, so it can judge them
(``octagames.testing.leak_check``).

Who sees what (the seed: "drie gesloten kaarten", "drie kaarten open in de pot"
once laid open, "één extra gesloten kaart", hands shown at the showdown):

==============  ============================================================
zone            seen by
==============  ============================================================
own hand        its owner, slot by slot (moves name hand slots)
other hand      nobody else (``?`` per slot) until the showdown shows every hand
pot             nobody while it lies closed (``?``); everybody once laid open
closed card     nobody (``?``); a seat that takes it sees it in its own hand
undealt cards   nobody
==============  ============================================================

Every move is public by slot (who moved, which action); counters (phase, seat to
act, turns, passer, clawer, final turns, points, scores, the dealer) are public.
A card's kind is its id (one deck). The showdown of a match round is seen only
through the points and the next dealer: the engine starts the next round at once.
"""

from __future__ import annotations

import numpy as np

from octagames.achten.rules import END_CAP, HAND, NUM_CARDS, PH_OVER, POT0

#: the card ids a relabelling may exchange with each other (one deck)
CARD_GROUPS = (range(NUM_CARDS),)
#: no seat's move is hidden from the others (every move is announced by slot)
HIDDEN_MOVES = False
HIDDEN = -2  # a closed card: "?"

# fields that hold card ids or the engine's knowledge; every other field is a public counter
_NOT_COUNTERS = ("rng", "slot_card", "where", "known", "dealt_hand", "hist_pub", "hist_priv")


def kind(c: int) -> int:
    """The kind of card ``c``: its id (every card of the deck is different)."""
    return int(c)


def _shown(s: np.void) -> bool:
    # the showdown (and a verbied end) shows every hand; the engine's safety bound shows nothing
    return int(s["phase"]) == PH_OVER and int(s["end_reason"]) != END_CAP


def _visible_slots(s: np.void, seat: int) -> list[int]:
    slots = [3 * seat + k for k in range(HAND)]  # the closed card (slot CLOSED) is never among them
    if int(s["pot_open"]):
        slots += [POT0 + j for j in range(HAND)]
    if _shown(s):
        slots += range(3 * int(s["num_players"]))
    return slots


def public_view(s: np.void, seat: int) -> tuple:
    """What ``seat`` sees now (hashable; equal views are indistinguishable to the seat).

    Args:
        s: an achten record.
        seat: a seat of the record's game.

    Returns:
        The public counters, then every slot: its card where ``seat`` sees it, ``?`` where a
        card lies closed, -1 where it is empty.
    """
    cards = np.asarray(s["slot_card"]).astype(np.int64)
    view = np.where(cards >= 0, HIDDEN, -1)
    vis = _visible_slots(s, seat)
    view[vis] = cards[vis]
    counters = tuple((f, np.asarray(s[f]).tobytes()) for f in s.dtype.names if f not in _NOT_COUNTERS)
    return counters, view.tobytes()


def seen_ids(s: np.void, seat: int) -> set[int]:
    """The card ids face up to ``seat`` now: its hand, the open pot, every hand at the showdown.

    Args:
        s: an achten record.
        seat: a seat of the record's game.
    """
    return {int(s["slot_card"][x]) for x in _visible_slots(s, seat) if int(s["slot_card"][x]) >= 0}


def deals_card(s: np.void) -> bool:
    """Whether the chance node at ``s`` deals a physical card (every achten chance node does)."""
    return True
