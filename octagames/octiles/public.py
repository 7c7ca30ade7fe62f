"""What each Octiles seat sees, for the leak test: everything on the table.

Octiles hides nothing from one seat that another sees: the board, the runners,
the exchange tile and the face-down tiles (which tile lies face down is not in
the record at all: it is a chance outcome drawn when the tile is turned up) are
the same for everybody. Only the future is unknown, i.e. the record's RNG.
So the public view is the whole record but its RNG, and the leak test checks
that no string a seat sees depends on the RNG (``octagames.testing.leak_check``).
"""

from __future__ import annotations

import numpy as np

#: no card ids to relabel: the identity of a face-down tile is drawn when it is turned up
CARD_GROUPS: tuple[range, ...] = ()
#: no move is hidden
HIDDEN_MOVES = False


def kind(c: int) -> int:
    """The kind of tile ``c``: its id."""
    return int(c)


def public_view(s: np.void, seat: int) -> tuple:
    """What ``seat`` sees now: every field of the record but its RNG (hashable).

    Args:
        s: an Octiles record.
        seat: a seat of the record's game (everybody sees the same).
    """
    return tuple((f, np.asarray(s[f]).tobytes()) for f in s.dtype.names if f != "rng")


def seen_ids(s: np.void, seat: int) -> set[int]:
    """No card ids: nothing is relabelled (see the module docstring).

    Args:
        s: an Octiles record.
        seat: a seat of the record's game.
    """
    return set()


def deals_card(s: np.void) -> bool:
    """Whether the chance node at ``s`` draws a physical card id: never (tiles are drawn at reveal)."""
    return False
