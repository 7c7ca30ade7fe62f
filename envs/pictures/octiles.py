"""The picture of an Octiles board: tiles, printed curves, stops, home circles, runners, the exchange tile.

Everything on an Octiles board is public (face-down tiles are unknown to every
seat alike), so every seat sees the same board. The last turn is highlighted:
the space the exchange tile went to and the path the runner took. Clickable
moves: a placement is a numbered dot (the rotation) inside its space, a
runner's move a dot in its direction beside the runner, a start circle the
circle itself; a forfeit is a button.
"""

from __future__ import annotations

import numpy as np

from octagames.core import CHANCE, TERMINAL
from octagames.envs.pictures.canvas import Canvas
from octagames.envs.pictures.parts import HIGHLIGHT, banner
from octagames.octiles import board as B
from octagames.octiles import rules as R

# Side colours follow boardspace (W blue, N red, E yellow, S green).
SIDE_COLOURS = ("#2f6fd6", "#d8362b", "#e3b620", "#2e9e48")
SIDE_LIGHT = ("#c9dbf7", "#f6cdc9", "#f8ecbf", "#c8ead0")
BACKGROUND = "#efe5cf"
WOOD = "#f3e3c3"
FACE_DOWN = "#fbfaf6"
PATH_INK = "#5a3a1a"
CURVE_INK = "#6b3fa0"
STOP_FILL = "#9fb4d3"
PATH_LIGHT = "#ffc58f"
UNIT = 110.0        # pixels per board unit
LO, HI = -1.25, 5.25
TOP = 56.0
WIDTH = int((HI - LO) * UNIT)
#: unit direction of octagon side k (0 = N, clockwise), maths orientation
DIRS = np.array([[np.sin(np.pi / 4 * k), np.cos(np.pi / 4 * k)] for k in range(8)])
#: runner move directions NE, SE, SW, NW (``board.DIR_NAMES``)
MOVE_DIRS = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]]) / np.sqrt(2)
#: where the exchange tile is drawn: the empty corner of the absent lattice spaces a1/b1
EXCHANGE_XY = np.array([0.55, -0.5])


def _xy(p) -> tuple[float, float]:
    """Board coordinates (y north) to pixels (y down)."""
    return (float(p[0]) - LO) * UNIT, TOP + (HI - float(p[1])) * UNIT


def _octagon(centre, scale: float) -> list[tuple[float, float]]:
    r = 0.5 / np.cos(np.pi / 8) * scale
    return [_xy(centre + r * np.array([np.sin(a), np.cos(a)])) for a in np.pi / 8 + np.pi / 4 * np.arange(8)]


def _bezier(centre, a: int, b: int, scale: float = 1.0, k: int = 14) -> list[np.ndarray]:
    """Points across an octagon from the midpoint of side ``a`` to that of side ``b`` (a bent path)."""
    centre = np.asarray(centre, dtype=float)
    ma, mb = centre + 0.5 * scale * DIRS[a], centre + 0.5 * scale * DIRS[b]
    ca, cb = ma - 0.26 * scale * DIRS[a], mb - 0.26 * scale * DIRS[b]
    return [((1 - t) ** 3) * ma + 3 * ((1 - t) ** 2) * t * ca + 3 * (1 - t) * t * t * cb + t ** 3 * mb
            for t in np.linspace(0.0, 1.0, k)]


def _tile(c: Canvas, centre, tile: int, rot: int, scale: float, width: float) -> None:
    """The four paths of ``tile`` turned ``rot``, each over a white casing (crossings read as bridges)."""
    done = set()
    for k in range(8):
        e = int(B.EXIT[tile, rot, k])
        if (e, k) in done:
            continue
        done.add((k, e))
        pts = [_xy(p) for p in _bezier(centre, k, e, scale)]
        c.polyline(pts, stroke="#ffffff", width=width * 2.6)
        c.polyline(pts, stroke=PATH_INK, width=width)


def _title(s) -> str:
    n = int(s["num_players"])
    cp = int(R.current_player(s))
    names = "WNES"
    if cp == TERMINAL:
        w = int(s["winner"])
        who = "draw" if w < 0 else (f"team {w % 2} wins" if s["team"] else
                                    f"P{w} ({names[int(s['seat_side'][w])]}) wins")
        return f"game over after {int(s['turns'])} turns, {who}"
    if cp == CHANCE:
        return f"turn {int(s['turns']) + 1}: chance ({R.PHASE_NAMES[int(s['phase'])]})"
    verb = {R.PH_SETUP: "choose a start circle", R.PH_PLACE: "place the exchange tile",
            R.PH_MOVE: f"move a runner over {B.SPACE_NAMES[int(s['placed'])]}"}[int(s["phase"])]
    forced = " (must leave a start circle)" if int(s["forced"]) else ""
    return f"turn {int(s['turns']) + 1}: P{cp} ({names[int(s['seat_side'][cp])]}) to {verb}{forced}" + \
        ("" if n else "")


def _last_path(c: Canvas, s) -> None:
    ln = int(s["last_path_len"])
    if ln <= 0 or int(s["last_to"]) < 0:
        return
    pts = [B.POINT_XY[int(s["last_from"])]]
    for j in range(ln):
        o, k = divmod(int(s["last_path"][j]), 8)
        e = int(s["last_exit"][j])
        pts.extend(_bezier(B.SPACE_XY[o], k, e))
        link = int(B.LINK_CURVE[o, e])
        if link >= 0:
            poly = B.CURVE_POLYLINES[link]
            pts.extend(poly if np.linalg.norm(poly[0] - B.SIDE_MIDPOINTS[o, e]) < 1e-3 else poly[::-1])
    pts.append(B.POINT_XY[int(s["last_to"])])
    with c.group(id="last-path", cls="last-move"):
        c.polyline([_xy(p) for p in pts], stroke=PATH_LIGHT, width=9)


def _dot(c: Canvas, at, label: str, r: float = 9.0) -> None:
    x, y = _xy(at)
    c.circle(x, y, r, fill=HIGHLIGHT, stroke="#ffffff", width=1.5)
    if label:
        c.text(x, y, label, size=10, fill="#ffffff", anchor="middle", bold=True)


def draw(s: np.void, seat: int | None, moves: dict[int, str]) -> Canvas:
    """Draw Octiles record ``s`` (the same for every seat: nothing is hidden from one seat only).

    Args:
        s: an Octiles record.
        seat: the seat looking, or ``None`` (only the heading changes).
        moves: ``{action: move name}`` of the legal moves to mark (empty: none).

    Returns:
        The canvas.
    """
    n = int(s["num_players"])
    c = Canvas(WIDTH, int(TOP + (HI - LO) * UNIT), BACKGROUND)
    unseen = int((s["tile"] < 0).sum()) + int(int(s["exch"]) < 0)
    mode = "team" if s["team"] else f"{n} players"
    view = "" if seat is None else f", seen by P{seat}"
    banner(c, [f"Octiles ({mode}, {int(s['runners'])} runners{view})",
               f"{_title(s)}   |   {unseen} tiles unseen"], fill="#2d2013", y=14)
    last_space = int(s["last_space"])
    for o in range(B.NUM_SPACES):
        t = int(s["tile"][o])
        hl = o == last_space
        with c.group(id=f"space-{B.SPACE_NAMES[o]}", cls="space"):
            c.polygon([_xy(v) for v in B.SPACE_VERTICES[o]], fill=WOOD if t >= 0 else FACE_DOWN,
                      stroke=HIGHLIGHT if hl else "#7a5a35", width=3.5 if hl else 1.3)
            if t >= 0:
                _tile(c, B.SPACE_XY[o], t, int(s["rot"][o]), 1.0, 2.4)
            else:
                x, y = _xy(B.SPACE_XY[o])
                c.text(x, y, B.SPACE_NAMES[o], size=13, fill="#b8aa90", anchor="middle")
    for k, poly in enumerate(B.CURVE_POLYLINES):
        pts = [_xy(p) for p in poly]
        with c.group(id=f"curve-{k}", cls="curve"):
            c.polyline(pts, stroke="#ffffff", width=6)
            c.polyline(pts, stroke=CURVE_INK, width=2.4)
    _last_path(c, s)
    for p in range(B.NUM_STOPS):
        x, y = _xy(B.POINT_XY[p])
        r = 0.2 * UNIT
        with c.group(id=f"point-{B.POINT_NAMES[p]}", cls="stop"):
            c.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], fill=STOP_FILL, stroke="#34495e", width=1)
    used = {int(s["seat_side"][p]) for p in range(n)}
    for b in range(4):
        for i in range(5):
            p = int(B.HOME_OF[b, i])
            x, y = _xy(B.POINT_XY[p])
            with c.group(id=f"point-{B.POINT_NAMES[p]}", cls="home"):
                c.circle(x, y, 0.2 * UNIT, fill=SIDE_LIGHT[b] if b in used else "#e8e2d6",
                         stroke=SIDE_COLOURS[b] if b in used else "#b0a898", width=2)
    for p in range(n):
        b = int(s["seat_side"][p])
        for i in range(int(s["runners"])):
            pt = int(s["pos"][p, i])
            if pt < 0:
                continue
            x, y = _xy(B.POINT_XY[pt])
            moved = pt == int(s["last_to"]) and p == int(s["last_seat"])
            with c.group(id=f"runner-{p}-{i}", cls="runner"):
                c.circle(x, y, 0.135 * UNIT, fill=SIDE_COLOURS[b], stroke=HIGHLIGHT if moved else "#000000",
                         width=3.5 if moved else 1.3)
                if bool(R.on_goal(s, p, pt)):
                    c.circle(x, y, 0.05 * UNIT, fill="#ffffff")
    if int(s["last_from"]) >= 0:
        x, y = _xy(B.POINT_XY[int(s["last_from"])])
        c.circle(x, y, 0.17 * UNIT, stroke=HIGHLIGHT, width=2)
    ex = int(s["exch"])
    with c.group(id="exchange-tile", cls="exchange"):
        c.polygon(_octagon(EXCHANGE_XY, 0.8), fill=WOOD if ex >= 0 else FACE_DOWN, stroke="#7a5a35", width=1.6)
        if ex >= 0:
            _tile(c, EXCHANGE_XY, ex, 0, 0.8, 2.0)
        x, y = _xy(EXCHANGE_XY + np.array([0, -0.55]))
        c.text(x, y, "exchange tile" + (f" {R.tile_name(ex)}" if ex >= 0 else " (face down)"), size=11,
               fill="#4a3a20", anchor="middle")
    for p in range(n):
        b = int(s["seat_side"][p])
        x, y = _xy((LO + 0.1 + 1.6 * p, HI - 0.12))
        label = f"P{p}: {'WNES'[b]} \u2192 {'WNES'[(b + 2) % 4]}" + (" (you)" if seat == p else "")
        c.text(x, y, label, size=13, fill=SIDE_COLOURS[b], bold=True)
    _moves(c, s, moves)
    return c


def _moves(c: Canvas, s, moves: dict[int, str]) -> None:
    """The clickable dots of the legal moves (a forfeit is left to the buttons)."""
    cp = int(R.current_player(s))
    for a, name in moves.items():
        block, k = R.ACTIONS.locate(a)
        if block.name == "place":
            o, r = divmod(k, B.NUM_SIDES)
            with c.move(a, name):
                _dot(c, B.SPACE_XY[o] + 0.3 * DIRS[r], str(r), r=8.5)
        elif block.name == "move":
            pt, d = divmod(k, B.NUM_DIRS)
            off = 0.3 * MOVE_DIRS[d] if pt < B.NUM_STOPS else np.zeros(2)
            with c.move(a, name):
                _dot(c, B.POINT_XY[pt] + off, "" if pt < B.NUM_STOPS else "go", r=8 if pt < B.NUM_STOPS else 11)
        elif block.name == "setup" and cp >= 0:
            pt = int(B.HOME_OF[int(s["seat_side"][cp]), k + 1])
            with c.move(a, name):
                _dot(c, B.POINT_XY[pt], "start", r=14)
