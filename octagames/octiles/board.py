"""The Octiles board and tiles as numpy lookup tables.

The wiring lives in ``board.json`` beside this module (generated once from
``shared/reference/octiles_board.json`` and owned by octagames). This module
turns it into small integer tables that the numba kernels of
:mod:`octagames.octiles.rules` read as frozen constants.

Numbering
---------
* **Spaces** (octagons) ``0..16`` in the JSON order: c1 d1 a2 b2 c2 d2 a3 b3
  c3 d3 e3 b4 c4 d4 e4 b5 c5.
* **Sides** ``k = 0..7`` clockwise from north (0=N, 1=NE, ..., 7=NW).
* **Points** (where a runner can stand): stops ``0..15`` (B2, B3, ..., E5),
  then home circles ``16..35`` named HW0..HW4, HN0..HN4, HE0..HE4, HS0..HS4
  (index clockwise round the board; the ``H`` keeps HE2 apart from stop E2).
* **Board sides** ``0..3`` = W, N, E, S (clockwise, the turn order).
* **Contact direction** of a point: a stop touches up to four octagons, at
  its NE (0), SE (1), SW (2) and NW (3) corner; a home circle touches one
  octagon, listed as direction 0.
* **Tiles** ``0..17`` are boardspace's tiles 1..18; ``TILE_PARTNER[t, k]`` is
  the side joined to side ``k`` on tile ``t`` in its rotation 0. Turning a tile
  ``r`` steps clockwise maps side ``k`` to ``k + r``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

_DATA = json.loads((Path(__file__).with_name("board.json")).read_text())

NUM_SPACES = 17
NUM_STOPS = 16
NUM_HOMES = 20
NUM_POINTS = NUM_STOPS + NUM_HOMES  # 36
NUM_TILES = 18
NUM_SIDES = 8
NUM_DIRS = 4
BOARD_SIDES = "WNES"
SIDE_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIR_NAMES = ("NE", "SE", "SW", "NW")

SPACE_NAMES: tuple[str, ...] = tuple(o["id"] for o in _DATA["octagons"])
STOP_NAMES: tuple[str, ...] = tuple(p["id"] for p in _DATA["stops"])
HOME_NAMES: tuple[str, ...] = tuple(f"H{b}{i}" for b in BOARD_SIDES for i in range(5))
POINT_NAMES: tuple[str, ...] = STOP_NAMES + HOME_NAMES
_SPACE_ID = {n: i for i, n in enumerate(SPACE_NAMES)}
_POINT_ID = {n: i for i, n in enumerate(STOP_NAMES)}
_POINT_ID.update({n: NUM_STOPS + i for i, n in enumerate(HOME_NAMES)})

# LINK_KIND[o, k]: what side k of space o touches: 0 another octagon side (a
# neighbour across a shared edge, or the far end of a printed curve), 1 a point.
LINK_KIND = np.zeros((NUM_SPACES, NUM_SIDES), dtype=np.int64)
# LINK_A/LINK_B: (space, side) entered next for kind 0; (point, -1) for kind 1.
LINK_A = np.full((NUM_SPACES, NUM_SIDES), -1, dtype=np.int64)
LINK_B = np.full((NUM_SPACES, NUM_SIDES), -1, dtype=np.int64)
# LINK_CURVE[o, k]: index of the printed curve leaving side k of o, or -1.
LINK_CURVE = np.full((NUM_SPACES, NUM_SIDES), -1, dtype=np.int64)
CURVE_NAMES: tuple[str, ...] = tuple(c["id"] for c in _DATA["curves"])

for _l in _DATA["links"]:
    _o, _k, _to = _SPACE_ID[_l["octagon"]], _l["side"], _l["to"]
    if _to["type"] in ("octagon", "curve"):
        LINK_KIND[_o, _k] = 0
        LINK_A[_o, _k] = _SPACE_ID[_to["id"]]
        LINK_B[_o, _k] = _to["side"]
        if _to["type"] == "curve":
            LINK_CURVE[_o, _k] = CURVE_NAMES.index(_to["curve"])
    elif _to["type"] in ("stop", "home"):
        LINK_KIND[_o, _k] = 1
        LINK_A[_o, _k] = _POINT_ID[_to["id"]]
    else:  # the reference has no unconnected side; refuse data that does
        raise ValueError(f"side {_l['side']} of {_l['octagon']} is not connected")

# POINT_SPACE[p, d] / POINT_SIDE[p, d]: the octagon side that point p touches
# in contact direction d (-1: none, e.g. a stop beside a notch).
POINT_SPACE = np.full((NUM_POINTS, NUM_DIRS), -1, dtype=np.int64)
POINT_SIDE = np.full((NUM_POINTS, NUM_DIRS), -1, dtype=np.int64)
# The octagon in direction NE of a stop is touched on its SW side, and so on.
_DIR_OF_OCT_SIDE = {5: 0, 7: 1, 1: 2, 3: 3}
for _i, _st in enumerate(_DATA["stops"]):
    for _t in _st["touches"]:
        _d = _DIR_OF_OCT_SIDE[_t["side"]]
        POINT_SPACE[_i, _d] = _SPACE_ID[_t["octagon"]]
        POINT_SIDE[_i, _d] = _t["side"]
# HOME_OF[b, i]: point id of home circle i (clockwise index) of board side b.
HOME_OF = np.zeros((4, 5), dtype=np.int64)
for _h in _DATA["homes"]:
    _p = _POINT_ID[_h["id"]]
    _b = BOARD_SIDES.index(_h["board_side"])
    HOME_OF[_b, _h["index"]] = _p
    POINT_SPACE[_p, 0] = _SPACE_ID[_h["touches"]["octagon"]]
    POINT_SIDE[_p, 0] = _h["touches"]["side"]
# POINT_HOME_SIDE[p]: board side (0..3) of a home circle, -1 for a stop.
POINT_HOME_SIDE = np.full(NUM_POINTS, -1, dtype=np.int64)
for _b in range(4):
    for _i in range(5):
        POINT_HOME_SIDE[HOME_OF[_b, _i]] = _b

TILE_PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((a, b) for a, b in t["pairs"]) for t in _DATA["tiles"])
TILE_PARTNER = np.zeros((NUM_TILES, NUM_SIDES), dtype=np.int64)
for _t, _pairs in enumerate(TILE_PAIRS):
    for _a, _b in _pairs:
        TILE_PARTNER[_t, _a] = _b
        TILE_PARTNER[_t, _b] = _a
# EXIT[t, r, k]: the board side where a path entering tile t (turned r steps
# clockwise) at board side k leaves it. Precomputed so the path tracer is one lookup.
EXIT = np.zeros((NUM_TILES, NUM_SIDES, NUM_SIDES), dtype=np.int64)
for _t in range(NUM_TILES):
    for _r in range(NUM_SIDES):
        for _k in range(NUM_SIDES):
            EXIT[_t, _r, _k] = (TILE_PARTNER[_t, (_k - _r) % 8] + _r) % 8
# Slots: side k of space o is slot o * 8 + k (the move mask follows paths slot by slot).
NUM_SLOTS = NUM_SPACES * NUM_SIDES
# LINK_SLOT[x]: the slot that slot x touches across the board, or -1 - point where x touches a point.
LINK_SLOT = np.where(LINK_KIND.ravel() == 1, -1 - LINK_A.ravel(),
                     LINK_A.ravel() * NUM_SIDES + LINK_B.ravel()).astype(np.int16)
# SLOT_DIR[x]: for a slot that touches a point, the contact direction in which that point touches it
# (POINT_SPACE/POINT_SIDE read backwards); -1 for the other slots.
SLOT_DIR = np.full(NUM_SLOTS, -1, dtype=np.int8)
for _p in range(NUM_POINTS):
    for _d in range(NUM_DIRS):
        if POINT_SPACE[_p, _d] >= 0:
            SLOT_DIR[POINT_SPACE[_p, _d] * NUM_SIDES + POINT_SIDE[_p, _d]] = _d

# POINT_SLOT[p, d]: the slot that point p touches in contact direction d (POINT_SPACE and POINT_SIDE as one
# slot), -1 for none.
POINT_SLOT = np.where(POINT_SPACE >= 0, POINT_SPACE * NUM_SIDES + POINT_SIDE, -1).astype(np.int16)


def _space_distances() -> np.ndarray:
    """POINT_DIST[p, q]: fewest octagons a path from point p to point q crosses
    if every octagon could carry any path (the heuristic's 'path distance')."""
    adj = [set() for _ in range(NUM_SPACES)]
    for o in range(NUM_SPACES):
        for k in range(NUM_SIDES):
            if LINK_KIND[o, k] == 0:
                adj[o].add(int(LINK_A[o, k]))
    inf = 99
    dspace = np.full((NUM_SPACES, NUM_SPACES), inf, dtype=np.int64)
    for o in range(NUM_SPACES):
        dspace[o, o] = 0
        frontier = [o]
        while frontier:
            nxt = []
            for u in frontier:
                for v in adj[u]:
                    if dspace[o, v] == inf:
                        dspace[o, v] = dspace[o, u] + 1
                        nxt.append(v)
            frontier = nxt
    out = np.full((NUM_POINTS, NUM_POINTS), inf, dtype=np.int16)
    for p in range(NUM_POINTS):
        for q in range(NUM_POINTS):
            if p == q:
                out[p, q] = 0
                continue
            for a in POINT_SPACE[p]:
                for b in POINT_SPACE[q]:
                    if a >= 0 and b >= 0:
                        out[p, q] = min(out[p, q], dspace[a, b] + 1)
    return out


POINT_DIST = _space_distances()

# Drawing coordinates (idealised regular layout, maths orientation: y north).
SPACE_XY = np.array([[o["x"], o["y"]] for o in _DATA["octagons"]], dtype=np.float64)
SPACE_VERTICES = np.array([o["vertices"] for o in _DATA["octagons"]], dtype=np.float64)
SIDE_MIDPOINTS = np.array([o["side_midpoints"] for o in _DATA["octagons"]], dtype=np.float64)
POINT_XY = np.array([[p["x"], p["y"]] for p in _DATA["stops"]]
                    + [[0.0, 0.0]] * NUM_HOMES, dtype=np.float64)
for _h in _DATA["homes"]:
    POINT_XY[_POINT_ID[_h["id"]]] = (_h["x"], _h["y"])
CURVE_POLYLINES: tuple[np.ndarray, ...] = tuple(np.array(c["polyline"], dtype=np.float64)
                                               for c in _DATA["curves"])
CURVE_ENDS: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = tuple(
    tuple((_SPACE_ID[e["octagon"]], e["side"]) for e in c["ends"]) for c in _DATA["curves"])
# SIDE_SPACES[b]: the two octagons touched by the home circles of board side b
# (with 3 players those of the unused side start face up).
SIDE_SPACES = np.array([sorted({int(POINT_SPACE[HOME_OF[_b, _i], 0]) for _i in range(5)})
                        for _b in range(4)], dtype=np.int64)
CURVE_KINDS: tuple[str, ...] = tuple(c["kind"] for c in _DATA["curves"])
ABSENT_LATTICE = tuple(_DATA["absent_lattice_octagons"])


def space_id(name: str) -> int:
    """Space index of octagon ``name`` (``"c3"``)."""
    return _SPACE_ID[name]


def point_id(name: str) -> int:
    """Point index of a stop (``"C3"``) or a home circle (``"HW0"``)."""
    return _POINT_ID[name]


def raw_data() -> dict:
    """A copy of the JSON board description (for tests and drawings)."""
    return json.loads(json.dumps(_DATA))
