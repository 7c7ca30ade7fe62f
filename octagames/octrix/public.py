"""What each Octrix seat sees, written from the seed's table, for the leak test.

Pure Python over the record's card places (``owner``, ``trick_cards``); it never
reads the engine's observation code, so it can judge it
(``octagames.testing.leak_check``).

Who sees what (the seed: open hands; every player plays a card "gleichzeitig";
in the partnership game the dealer and the left neighbour play first, face up,
then the other two):

======================  ======================================================
zone                    seen by
======================  ======================================================
hands                   everybody (open hands)
finished tricks         everybody: who played which card, who won
the open trick          a card committed in the current simultaneous step is seen by
                        its owner only; the others see that the seat has played and
                        still count the card in its open hand (the engine's reading,
                        ``docs/rules/octrix.md``); the dealer's pair's cards are face up
                        once the second pair plays (partnership)
cards never dealt       nobody (reduced decks)
======================  ======================================================

Counters (round, dealer, trick, which card wins, points, scores) are public.
"""

from __future__ import annotations

import numpy as np

from octagames.octrix.rules import NUM_CARDS

#: the card ids a relabelling may exchange with each other (one deck)
CARD_GROUPS = (range(NUM_CARDS),)
#: a seat's card of the open trick is hidden from the others until its step is complete
HIDDEN_MOVES = True
HIDDEN = -2  # a committed card the seat cannot see: "?"

# fields that hold card places (shown through the zones below); every other field is a public counter
_NOT_COUNTERS = ("rng", "owner", "trick_cards")


def kind(c: int) -> int:
    """The kind of card ``c``: its id (every card of the deck is different)."""
    return int(c)


def _visible(s: np.void, q: int, seat: int) -> bool:
    """Whether the card seat ``q`` put in the open trick is face up for ``seat``."""
    if q == seat:
        return True
    first_pair = (q - int(s["dealer"])) % 4 < 2
    return bool(int(s["partnership"])) and int(s["stage"]) == 1 and first_pair


def _open_trick(s: np.void) -> int:
    t = int(s["trick"])
    dealt = int(s["dealt"]) == int(s["num_players"]) * int(s["hand_size"])
    return t if dealt and not int(s["terminal"]) and t < int(s["hand_size"]) else -1


def public_view(s: np.void, seat: int) -> tuple:
    """What ``seat`` sees now (hashable; equal views are indistinguishable to the seat).

    Args:
        s: an Octrix record.
        seat: a seat of the record's game.

    Returns:
        The public counters, every seat's open hand (a hidden committed card counted in it), the
        finished tricks, and the open trick with ``?`` for the cards ``seat`` cannot see.
    """
    n = int(s["num_players"])
    owner = np.asarray(s["owner"]).astype(np.int64)
    tricks = np.asarray(s["trick_cards"]).astype(np.int64)
    t = _open_trick(s)
    if t >= 0:
        tricks = tricks.copy()
        for q in range(n):
            c = int(tricks[t, q])
            if c >= 0 and not _visible(s, q, seat):
                owner[c] = q  # still in the open hand, as far as ``seat`` can tell
                tricks[t, q] = HIDDEN
    counters = tuple((f, np.asarray(s[f]).tobytes()) for f in s.dtype.names if f not in _NOT_COUNTERS)
    return counters, owner.tobytes(), tricks.tobytes()


def seen_ids(s: np.void, seat: int) -> set[int]:
    """The card ids face up to ``seat`` now: every dealt card (hands are open).

    Args:
        s: an Octrix record.
        seat: a seat of the record's game.
    """
    return {c for c in range(NUM_CARDS) if int(s["owner"][c]) >= 0} | \
        {int(c) for c in np.asarray(s["trick_cards"]).reshape(-1) if c >= 0}


def deals_card(s: np.void) -> bool:
    """Whether the chance node at ``s`` deals a physical card (every Octrix chance node does)."""
    return True
