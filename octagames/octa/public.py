"""What each Octa seat sees, written from the rulebooks' table (both rule sets), for the leak test.

Pure Python over the record's physical card places (``loc``/``lidx`` and the ordered
zones); it never reads the engine's knowledge marks (``pub``, ``bflag``) or its
observation code, so it can judge them (``octagames.testing.leak_check``).

Who sees what (the seeds: "pot ... 8 face-up cards", "face-down stack", action cards
"turn the top two face up", the Jack's "face-down card", the Dutch reserve "open"
and the joker "gesloten"):

================  ==========================================================
zone              seen by
================  ==========================================================
own hand          its owner, by kind (a hand is unordered)
other hand        nobody else: its size only
stock             nobody: its size only
pool (pot)        everybody, by kind, slot by slot
covered pot card  everybody, by kind (it lay face up before it was covered; Dutch)
discard pile      everybody, by kind, bottom to top (each card was shown when discarded)
run card          everybody by kind, slot by slot and position by position; a face-down
                  card is ``?`` for both seats
run being laid    everybody (cards are shown as they are laid); the joker is ``?``
action piles      everybody, by action kind, bottom to top; the turned card too
hidden actions    nobody: the stack and set-aside cards, their sizes only
reserve (Dutch)   everybody, by kind
joker (Dutch)     nobody (drawn face down, for both seats): how many lie in front of a seat
================  ==========================================================

Counters and the step of the turn (phase, seat to move, turn, exhaustion, tokens, run
owners and bounds, pile sizes, scores) are public; so are, under the English rules, the
kinds that went face up into the stock rebuilt at the first exhaustion, the cards each
hand took from it and the face-down run cards laid from it (places); what was hidden
from a seat right after the rebuild is that seat's own. A card's *kind* is what the rules
tell apart: ``c % 40`` for number cards, ``40 + (c - 80) % 12`` for action cards.
"""

from __future__ import annotations

import numpy as np

from octagames.octa.common import (LOC_HAND, LOC_JOKER, LOC_RESERVE, NUM_ACTION_KINDS, NUM_CARDS, NUM_KINDS,
                                   NUM_NUMBER, PH_CHANCE, PH_DEAL)

#: card id -> kind (index ``NUM_CARDS`` maps the empty marker -1 to -1)
KIND = np.array([c % NUM_KINDS if c < NUM_NUMBER else NUM_KINDS + (c - NUM_NUMBER) % NUM_ACTION_KINDS
                 for c in range(NUM_CARDS)] + [-1], dtype=np.int64)
#: the card ids a relabelling may exchange with each other: number cards, action cards
CARD_GROUPS = (range(0, NUM_NUMBER), range(NUM_NUMBER, NUM_CARDS))
#: no seat's move is hidden from the other (every action is announced)
HIDDEN_MOVES = False
HIDDEN = -2  # a face-down card: "?"

# fields of the record that hold card ids (shown through zones, by kind) or hidden
# bookkeeping; every other field is a public counter or marker
_CARD_FIELDS = ("pool", "under", "disc", "run_card", "build_card", "apile", "adrawn")
_NOT_COUNTERS = _CARD_FIELDS + ("rng", "loc", "lidx", "pub", "bflag", "inbuild", "hand_cnt", "rs_hid", "rs_fd")


def kind(c: int) -> int:
    """The kind of card ``c`` (copies of one kind are the same card for the rules)."""
    return int(KIND[c])


def _kinds(ids: np.ndarray) -> np.ndarray:
    return KIND[np.where(ids < 0, NUM_CARDS, ids)]


def public_view(s: np.void, seat: int) -> tuple:
    """What ``seat`` sees now, by kind (hashable; equal views are indistinguishable to the seat).

    Args:
        s: an Octa record.
        seat: 0 or 1.

    Returns:
        A tuple of bytes: the public counters, the face-up zones by kind in their order (``?`` for
        face-down cards), ``seat``'s hand and both reserves as counts per kind, the hidden piles' sizes.
    """
    loc, lidx = np.asarray(s["loc"]), np.asarray(s["lidx"])
    runs = _kinds(np.asarray(s["run_card"]))
    runs[np.asarray(s["run_fd"]) != 0] = HIDDEN
    build = _kinds(np.asarray(s["build_card"]))
    if int(s["jok_pos"]) >= 0:
        build[int(s["jok_pos"])] = HIDDEN
    disc = _kinds(np.asarray(s["disc"])[:int(s["disc_n"])])
    own = np.bincount(KIND[:NUM_CARDS][(loc == LOC_HAND) & (lidx == seat)], minlength=NUM_KINDS + NUM_ACTION_KINDS)
    reserve = [np.bincount(KIND[:NUM_CARDS][(loc == LOC_RESERVE) & (lidx == q)], minlength=NUM_KINDS)
               for q in range(2)]
    jokers = [int(np.sum((loc == LOC_JOKER) & (lidx == q))) for q in range(2)]
    counters = tuple((f, np.asarray(s[f]).tobytes()) for f in s.dtype.names if f not in _NOT_COUNTERS)
    # the English rebuilt stock: what was hidden from the seat right after it (its own hand then, by kind),
    # and which face-down run cards were laid from it (places, not cards)
    cards = np.asarray(s["run_card"])
    laid = (cards >= 0) & (np.asarray(s["rs_fd"])[np.where(cards >= 0, cards, 0)] == 1)
    rebuilt = (np.asarray(s["rs_hid"])[seat].tobytes(), laid.tobytes())
    return (counters, rebuilt, _kinds(np.asarray(s["pool"])).tobytes(), _kinds(np.asarray(s["under"])).tobytes(),
            disc.tobytes(), runs.tobytes(), build.tobytes(), _kinds(np.asarray(s["apile"])).tobytes(),
            kind(int(s["adrawn"])) if int(s["adrawn"]) >= 0 else -1, own.tobytes(),
            reserve[0].tobytes(), reserve[1].tobytes(), tuple(jokers))


def seen_ids(s: np.void, seat: int) -> set[int]:
    """The card ids face up to ``seat`` now (its hand, the pool, runs, piles, reserves, the laid run).

    Args:
        s: an Octa record.
        seat: 0 or 1.
    """
    seen = {int(c) for c in np.asarray(s["pool"]) if c >= 0}
    seen.update(int(c) for c in np.asarray(s["under"]) if c >= 0)
    seen.update(int(c) for c in np.asarray(s["disc"])[:int(s["disc_n"])])
    face_up = (np.asarray(s["run_card"]) >= 0) & (np.asarray(s["run_fd"]) == 0)
    seen.update(int(c) for c in np.asarray(s["run_card"])[face_up])
    seen.update(int(c) for q, c in enumerate(np.asarray(s["build_card"])) if c >= 0 and q != int(s["jok_pos"]))
    seen.update(int(c) for c in np.asarray(s["apile"]).reshape(-1) if c >= 0)
    if int(s["adrawn"]) >= 0:
        seen.add(int(s["adrawn"]))
    loc, lidx = np.asarray(s["loc"]), np.asarray(s["lidx"])
    seen.update(int(c) for c in np.flatnonzero(((loc == LOC_HAND) & (lidx == seat)) | (loc == LOC_RESERVE)))
    return seen


def deals_card(s: np.void) -> bool:
    """Whether the chance node at ``s`` draws a physical card (its outcome is a card id)."""
    return int(s["phase"]) in (PH_DEAL, PH_CHANCE)
