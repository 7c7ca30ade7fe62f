"""A picture of an Octiles position, drawn with matplotlib (Agg, no display needed).

:func:`render_rgb` draws the board from the record alone: the 17 octagon
spaces with the paths of the face-up tiles (face-down tiles blank), the 8
printed curves, the 16 stops, the 20 home circles in the colours of their
sides, the runners, the exchange tile, and the last turn highlighted (the
space where the exchange tile went and the path the runner took).

Example::

    from octagames.envs.octiles_render import render_rgb, save_png
    save_png(state, "board.png")
"""

from __future__ import annotations

import numpy as np

from octagames.envs._extras import missing_extra
from octagames.octiles import board as B
from octagames.octiles import rules as R

try:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, PathPatch, RegularPolygon
    from matplotlib.path import Path
except ModuleNotFoundError as e:  # the base install draws no pictures
    raise missing_extra(e, "drawing Octiles pictures (render_mode='rgb_array')") from e

# Side colours follow boardspace (W blue, N red, E yellow, S green).
SIDE_COLOURS = ("#2f6fd6", "#d8362b", "#e3b620", "#2e9e48")
SIDE_LIGHT = ("#c9dbf7", "#f6cdc9", "#f8ecbf", "#c8ead0")
WOOD = "#f3e3c3"
FACE_DOWN = "#fbfaf6"
PATH_INK = "#5a3a1a"
CURVE_INK = "#6b3fa0"
HIGHLIGHT = "#ff7f0e"
STOP_FILL = "#9fb4d3"

# Unit direction of octagon side k (0 = N, clockwise), in maths orientation.
_DIRS = np.array([[np.sin(np.pi / 4 * k), np.cos(np.pi / 4 * k)] for k in range(8)])
# Where the exchange tile is drawn: the empty corner of absent lattice spaces a1/b1.
EXCHANGE_XY = (0.55, -0.5)


def _path_between(centre: np.ndarray, a: int, b: int, scale: float = 1.0) -> Path:
    """Bezier path across an octagon from the midpoint of side ``a`` to that of side ``b``."""
    ma = centre + 0.5 * scale * _DIRS[a]
    mb = centre + 0.5 * scale * _DIRS[b]
    # control points pulled inwards along each side's normal: straight for opposite
    # sides, a smooth bend otherwise (like the printed tiles)
    pull = 0.26 * scale
    ca = ma - pull * _DIRS[a]
    cb = mb - pull * _DIRS[b]
    return Path([ma, ca, cb, mb], [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])


def _octagon(ax, centre, scale: float, face: str, edge: str, lw: float, z: float) -> None:
    # circumradius of a regular octagon with inradius 0.5
    ax.add_patch(RegularPolygon(centre, numVertices=8, radius=0.5 / np.cos(np.pi / 8) * scale,
                                orientation=np.pi / 8, facecolor=face, edgecolor=edge, linewidth=lw,
                                zorder=z))


def _draw_tile(ax, centre, tile: int, rot: int, scale: float, z: float, lw: float) -> None:
    """The four paths of ``tile`` turned ``rot``: each drawn over a white casing so
    that crossings read as bridges (one path over the other, no junction)."""
    done = set()
    for k in range(8):
        e = int(B.EXIT[tile, rot, k])
        if (e, k) in done:
            continue
        done.add((k, e))
        p = _path_between(np.asarray(centre, dtype=float), k, e, scale)
        ax.add_patch(PathPatch(p, facecolor="none", edgecolor="white", linewidth=lw * 2.6,
                               capstyle="butt", zorder=z))
        ax.add_patch(PathPatch(p, facecolor="none", edgecolor=PATH_INK, linewidth=lw,
                               capstyle="butt", zorder=z + 0.01))
        z += 0.02


def render_rgb(s, viewer: int | None = None, dpi: int = 110, size_in: float = 8.0,
               title: str | None = None) -> np.ndarray:
    """Draw record ``s`` of an Octiles game.

    Args:
        s: an Octiles record (``octagames.octiles.STATE_DTYPE``).
        viewer: the seat looking (every renderer takes it); Octiles shows only
            what all seats see, so the picture is the same for every viewer.
        dpi: resolution; the image is ``size_in * dpi`` pixels square.
        size_in: figure size in inches.
        title: a heading; by default who is to act, the turn and the tiles left unseen.

    Returns:
        an ``(H, W, 3)`` uint8 RGB image.
    """
    fig = Figure(figsize=(size_in, size_in), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes([0.02, 0.02, 0.96, 0.9])
    ax.set_xlim(-1.25, 5.25)
    ax.set_ylim(-1.25, 5.25)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.patch.set_facecolor("#efe5cf")

    n = int(s["num_players"])
    last_space = int(s["last_space"])
    # spaces and their tiles
    for o in range(B.NUM_SPACES):
        c = B.SPACE_XY[o]
        t = int(s["tile"][o])
        hl = o == last_space
        _octagon(ax, c, 1.0, WOOD if t >= 0 else FACE_DOWN, HIGHLIGHT if hl else "#7a5a35",
                 3.2 if hl else 1.2, 1 if not hl else 1.5)
        if t >= 0:
            _draw_tile(ax, c, t, int(s["rot"][o]), 1.0, 2, 2.2)
        else:
            ax.text(c[0], c[1], B.SPACE_NAMES[o], ha="center", va="center", fontsize=9,
                    color="#b8aa90", zorder=2)
    # printed curves
    for poly in B.CURVE_POLYLINES:
        ax.plot(poly[:, 0], poly[:, 1], color="white", lw=5.5, solid_capstyle="butt", zorder=2.5)
        ax.plot(poly[:, 0], poly[:, 1], color=CURVE_INK, lw=2.2, solid_capstyle="butt", zorder=2.6)
    # the last runner's path
    ln = int(s["last_path_len"])
    if ln > 0 and int(s["last_to"]) >= 0:
        pts = [B.POINT_XY[int(s["last_from"])]]
        for j in range(ln):
            o, k = divmod(int(s["last_path"][j]), 8)
            e = int(s["last_exit"][j])
            p = _path_between(B.SPACE_XY[o], k, e)
            pts.extend(_sample_bezier(p))
            link = int(B.LINK_CURVE[o, e])
            if link >= 0:
                poly = B.CURVE_POLYLINES[link]
                end_a = B.SIDE_MIDPOINTS[o, e]
                pts.extend(poly if np.linalg.norm(poly[0] - end_a) < 1e-3 else poly[::-1])
        pts.append(B.POINT_XY[int(s["last_to"])])
        arr = np.array(pts)
        ax.plot(arr[:, 0], arr[:, 1], color=HIGHLIGHT, lw=7, alpha=0.55, solid_capstyle="round",
                zorder=3)
    # stops
    for p in range(B.NUM_STOPS):
        x, y = B.POINT_XY[p]
        ax.add_patch(RegularPolygon((x, y), numVertices=4, radius=0.2, orientation=0,
                                    facecolor=STOP_FILL, edgecolor="#34495e", lw=1.0, zorder=4))
    # home circles, coloured by their side
    used = {int(s["seat_side"][p]) for p in range(n)}
    for b in range(4):
        for i in range(5):
            p = int(B.HOME_OF[b, i])
            x, y = B.POINT_XY[p]
            ax.add_patch(Circle((x, y), 0.2, facecolor=SIDE_LIGHT[b] if b in used else "#e8e2d6",
                                edgecolor=SIDE_COLOURS[b] if b in used else "#b0a898", lw=1.6, zorder=4))
    # runners
    for p in range(n):
        b = int(s["seat_side"][p])
        for i in range(int(s["runners"])):
            pt = int(s["pos"][p, i])
            if pt < 0:
                continue
            x, y = B.POINT_XY[pt]
            moved = pt == int(s["last_to"]) and p == int(s["last_seat"])
            ax.add_patch(Circle((x, y), 0.135, facecolor=SIDE_COLOURS[b],
                                edgecolor=HIGHLIGHT if moved else "black", lw=3 if moved else 1.2, zorder=5))
            if R.on_goal(s, p, pt):
                ax.add_patch(Circle((x, y), 0.05, facecolor="white", edgecolor="none", zorder=6))
    if int(s["last_from"]) >= 0:
        x, y = B.POINT_XY[int(s["last_from"])]
        ax.add_patch(Circle((x, y), 0.16, facecolor="none", edgecolor=HIGHLIGHT, lw=2, ls="--", zorder=5))
    # the exchange tile in its corner
    ex = int(s["exch"])
    ec = np.array(EXCHANGE_XY)
    _octagon(ax, ec, 0.8, WOOD if ex >= 0 else FACE_DOWN, "#7a5a35", 1.5, 1)
    ax.add_patch(Circle(ec, 0.5, facecolor="none", edgecolor="#9c8a6a", lw=1, ls=":", zorder=1))
    if ex >= 0:
        _draw_tile(ax, ec, ex, 0, 0.8, 2, 1.8)
    cp = int(R.current_player(s))
    label = "exchange tile" + (f" T{ex + 1}" if ex >= 0 else " (face down)")
    ax.text(ec[0], ec[1] - 0.55, label, ha="center", va="top", fontsize=8, color="#4a3a20")
    # heading
    if title is None:
        unseen = int((s["tile"] < 0).sum()) + int(ex < 0)
        names = "WNES"
        if cp == R.TERMINAL:
            w = int(s["winner"])
            if w < 0:
                who = "draw"
            elif s["team"]:
                who = f"team {w} wins"
            else:
                who = f"P{w} ({names[int(s['seat_side'][w])]}) wins"
            title = f"Octiles: game over after {int(s['turns'])} turns, {who}"
        elif cp >= 0:
            verb = {R.PH_SETUP: "choose start circles", R.PH_PLACE: "place the exchange tile",
                    R.PH_MOVE: "move a runner"}[int(s["phase"])]
            title = f"Octiles, turn {int(s['turns']) + 1}: P{cp} ({names[int(s['seat_side'][cp])]}) to {verb}"
        else:
            title = f"Octiles, turn {int(s['turns']) + 1}: chance ({R.PHASE_NAMES[int(s['phase'])]})"
        title += f"   |   {unseen} tiles unseen"
    fig.suptitle(title, fontsize=12, y=0.975)
    # legend of seats
    for p in range(n):
        b = int(s["seat_side"][p])
        ax.text(-1.15 + 1.6 * p, 5.1, f"P{p}: {'WNES'[b]} \u2192 {'WNES'[(b + 2) % 4]}", fontsize=9,
                color=SIDE_COLOURS[b], fontweight="bold", va="center")
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    return img


def _sample_bezier(p: Path, k: int = 12) -> list[np.ndarray]:
    """Points along a cubic Bezier path (for the highlighted move)."""
    v = p.vertices
    ts = np.linspace(0.0, 1.0, k)
    return [((1 - t) ** 3) * v[0] + 3 * ((1 - t) ** 2) * t * v[1] + 3 * (1 - t) * t * t * v[2] + t ** 3 * v[3]
            for t in ts]


def save_png(s, path: str, **kwargs) -> None:
    """Write :func:`render_rgb` of ``s`` to a PNG file."""
    from matplotlib.image import imsave

    imsave(path, render_rgb(s, **kwargs))
