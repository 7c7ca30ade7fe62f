"""Compiled consistency checks for Octa (saved games are checked with them; the tests use them).

:func:`validate` checks that a record is a consistent Octa table: all 104 cards
are in exactly one place and every index agrees, and every run is a valid run
(one suit, 3..10 consecutive positions, face-up cards where they belong, at
least one face-up card). Random play that validates every step is
:func:`octagames.octa.rules.checked_play` (compiled over one rulebook's kernels).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.octa import nl
from octagames.octa.common import (CK_FD, LOC_ADRAWN, LOC_AHIDDEN, LOC_APILE, LOC_DISCARD, LOC_HAND,
                                   LOC_JOKER, LOC_POOL, LOC_RESERVE, LOC_RUN, LOC_STOCK, LOC_UNDER, MAX_PILE,
                                   MAX_RUNS, NPOS, NUM_CARDS, NUM_NUMBER, PH_CHANCE, PH_DEAL,
                                   POOL_SLOTS, kind_at, kind_of)

# validate() error codes
OK = 0
E_STOCK_COUNT, E_HAND, E_POOL, E_DISCARD, E_RUN_SHAPE, E_RUN_CARD, E_RUN_FACEUP = 1, 2, 3, 4, 5, 6, 7
E_ACTION, E_LOCATION, E_NO_LEGAL, E_TOO_LONG = 8, 9, 10, 11
ERROR_NAMES = ("ok", "stock count", "hand bookkeeping", "pool bookkeeping", "discard bookkeeping",
               "run shape", "run card misplaced", "run without a face-up card", "action cards",
               "card location", "no legal action", "game too long")


@nb.njit
def validate(s) -> int:
    """0 if the record is consistent (conservation of all 104 cards, valid runs), else an error code."""
    seen = np.zeros(NUM_CARDS, dtype=np.int64)
    stock = 0
    for c in range(NUM_NUMBER):
        loc = s["loc"][c]
        i = s["lidx"][c]
        if loc == LOC_STOCK:
            stock += 1
            seen[c] += 1
        elif loc == LOC_HAND:
            if i < 0 or i > 1:
                return E_HAND
            seen[c] += 1
        elif loc == LOC_POOL:
            if s["pool"][i] != c:
                return E_POOL
            seen[c] += 1
        elif loc == LOC_DISCARD:
            if i >= s["disc_n"] or s["disc"][i] != c:
                return E_DISCARD
            seen[c] += 1
        elif loc == LOC_RUN:
            r = i // NPOS
            if s["run_owner"][r] < 0 or s["run_card"][r, i % NPOS] != c:
                return E_RUN_CARD
            seen[c] += 1
        elif s["rules"] == 1 and (loc == LOC_UNDER or loc == LOC_RESERVE or loc == LOC_JOKER):
            pass  # Dutch places, checked by nl.validate_extra
        else:
            return E_LOCATION
    if s["rules"] == 1 and nl.validate_extra(s, seen) != 0:
        return E_POOL
    if stock != s["stock_n"]:
        return E_STOCK_COUNT
    for p in range(2):
        n = 0
        for k in range(40):
            m = 0
            for cp in range(2):
                c = cp * 40 + k
                if s["loc"][c] == LOC_HAND and s["lidx"][c] == p:
                    m += 1
            if m != s["hand_cnt"][p, k]:
                return E_HAND
            n += m
        if n != s["hand_n"][p]:
            return E_HAND
    for i in range(POOL_SLOTS):
        c = s["pool"][i]
        if c >= 0 and (s["loc"][c] != LOC_POOL or s["lidx"][c] != i):
            return E_POOL
    for d in range(s["disc_n"]):
        c = s["disc"][d]
        if c < 0 or s["loc"][c] != LOC_DISCARD:
            return E_DISCARD
    pending_fd = s["phase"] == PH_CHANCE and s["ch_kind"] == CK_FD
    for r in range(MAX_RUNS):
        if s["run_owner"][r] < 0:
            continue
        lo = s["run_lo"][r]
        hi = s["run_hi"][r]
        suit = s["run_suit"][r]
        if lo < 1 or hi > 11 or hi - lo + 1 < 3 or hi - lo + 1 > 10 or suit < 0 or suit > 3:
            return E_RUN_SHAPE
        up = 0
        for pos in range(NPOS):
            c = s["run_card"][r, pos]
            if pos < lo or pos > hi:
                if c >= 0:
                    return E_RUN_SHAPE
                continue
            if c < 0:
                if pending_fd and r == s["ch_slot"] and pos == s["ch_pos"]:
                    continue  # the Jack's face-down card is being drawn
                return E_RUN_CARD
            if s["loc"][c] != LOC_RUN or s["lidx"][c] != r * NPOS + pos:
                return E_RUN_CARD
            if s["run_fd"][r, pos] == 0:
                up += 1
                if kind_of(c) != kind_at(suit, pos):
                    return E_RUN_CARD
        if up < 1:
            return E_RUN_FACEUP
    hidden = 0
    for c in range(NUM_NUMBER, NUM_CARDS):
        loc = s["loc"][c]
        if loc == LOC_AHIDDEN:
            hidden += 1
        elif loc == LOC_APILE:
            i = s["lidx"][c]
            if s["apile"][i // MAX_PILE, i % MAX_PILE] != c or i % MAX_PILE >= s["apile_n"][i // MAX_PILE]:
                return E_ACTION
        elif loc == LOC_ADRAWN:
            if s["adrawn"] != c:
                return E_ACTION
        else:
            return E_ACTION
        seen[c] += 1
    if s["phase"] != PH_DEAL and hidden != s["astack_n"] + s["aside_n"]:
        return E_ACTION
    for c in range(NUM_CARDS):
        if seen[c] != 1:
            return E_LOCATION
    return OK
