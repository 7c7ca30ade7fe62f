"""A tiny drawing layer with two outputs: SVG text and an RGB array.

A :class:`Canvas` collects shapes (rectangles, circles, lines, polylines and
polygons, text) in groups that carry ids, classes and, for a legal move, its
action id (``data-action``) and its name (``<title>``). :meth:`Canvas.svg`
writes the SVG text; :meth:`Canvas.rgb` paints the same shapes with Pillow
(an optional dependency of the ``render`` extra, imported on first use, so
that the SVG output works in the base install).

Coordinates are pixels of the RGB output at ``scale=1``, x to the right and y
down; a text's ``y`` is its vertical middle.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from octagames.core import is_real
from octagames.envs._extras import missing_extra

#: supersampling of the raster output (smooth edges without an antialiasing renderer)
SUPERSAMPLE = 2
_ANCHOR = {"start": "l", "middle": "m", "end": "r"}


@dataclass
class Shape:
    """One element: ``kind`` is rect, circle, line, polyline, polygon or text."""

    kind: str
    geom: tuple
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    extra: dict = field(default_factory=dict)


@dataclass
class Group:
    """A group of elements with optional SVG attributes (id, class, data-action) and a title."""

    attrs: dict
    title: str | None = None
    items: list = field(default_factory=list)


def _num(x: float) -> str:
    return f"{float(x):.1f}".rstrip("0").rstrip(".")


class Canvas:
    """A picture being drawn: shapes in nested groups, then :meth:`svg` or :meth:`rgb`.

    Args:
        width: width in pixels.
        height: height in pixels (:attr:`height` may grow while drawing).
        background: the background colour.
    """

    def __init__(self, width: int, height: int, background: str = "#ffffff"):
        self.width = int(width)
        self.height = int(height)
        self.background = background
        self.root = Group({})
        self._stack = [self.root]
        #: the action ids drawn as clickable elements so far
        self.placed: set[int] = set()

    # -- shapes -----------------------------------------------------------------
    def _add(self, shape: Shape) -> None:
        self._stack[-1].items.append(shape)

    def rect(self, x: float, y: float, w: float, h: float, fill: str | None = None, stroke: str | None = None,
             width: float = 1.0, rx: float = 0.0) -> None:
        """A rectangle with top-left corner ``(x, y)``, corners rounded by ``rx``."""
        self._add(Shape("rect", (x, y, w, h), fill, stroke, width, {"rx": rx}))

    def circle(self, cx: float, cy: float, r: float, fill: str | None = None, stroke: str | None = None,
               width: float = 1.0) -> None:
        """A circle of radius ``r`` around ``(cx, cy)``."""
        self._add(Shape("circle", (cx, cy, r), fill, stroke, width))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#000000", width: float = 1.0) -> None:
        """A straight line."""
        self._add(Shape("line", (x1, y1, x2, y2), None, stroke, width))

    def polyline(self, points: Sequence[Sequence[float]], stroke: str = "#000000", width: float = 1.0) -> None:
        """An open line through ``points``."""
        self._add(Shape("polyline", tuple((float(x), float(y)) for x, y in points), None, stroke, width))

    def polygon(self, points: Sequence[Sequence[float]], fill: str | None = None, stroke: str | None = None,
                width: float = 1.0) -> None:
        """A closed polygon through ``points``."""
        self._add(Shape("polygon", tuple((float(x), float(y)) for x, y in points), fill, stroke, width))

    def text(self, x: float, y: float, text: str, size: float = 12.0, fill: str = "#000000",
             anchor: str = "start", bold: bool = False) -> None:
        """Text whose vertical middle is at ``y``; ``anchor`` is start, middle or end (of ``x``)."""
        self._add(Shape("text", (x, y), fill, None, 1.0, {"text": str(text), "size": size, "anchor": anchor,
                                                         "bold": bold}))

    # -- groups -----------------------------------------------------------------
    @contextlib.contextmanager
    def group(self, id: str | None = None, cls: str | None = None, title: str | None = None,
              **data: Any) -> Iterator["Canvas"]:
        """Draw the shapes of the ``with`` block in a group (``<g>``) with these attributes.

        Args:
            id: the element id (stable: made of seats, slots and places, never of a hidden card).
            cls: its class.
            title: a tooltip (``<title>``).
            data: ``data-*`` attributes (``action=12`` gives ``data-action="12"``).
        """
        attrs = {}
        if id is not None:
            attrs["id"] = id
        if cls is not None:
            attrs["class"] = cls
        for k, v in data.items():
            attrs[f"data-{k.replace('_', '-')}"] = str(v)
        g = Group(attrs, title)
        self._stack[-1].items.append(g)
        self._stack.append(g)
        try:
            yield self
        finally:
            self._stack.pop()

    def move(self, action: int, name: str, id: str | None = None) -> contextlib.AbstractContextManager:
        """A clickable group for legal move ``action`` named ``name`` (class ``move``)."""
        self.placed.add(int(action))
        return self.group(id=id if id is not None else f"move-{int(action)}", cls="move", title=name,
                          action=int(action))

    # -- outputs ----------------------------------------------------------------
    def svg(self) -> str:
        """The picture as SVG text (UTF-8, no XML declaration)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="octagames-picture" width="{self.width}" '
               f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
               f'font-family="DejaVu Sans, Verdana, sans-serif">',
               "<style>.move{cursor:pointer}.move:hover{opacity:0.75}</style>",
               f'<rect width="{self.width}" height="{self.height}" fill="{self.background}"/>']
        self._svg_items(self.root.items, out)
        out.append("</svg>")
        return "\n".join(out)

    def _svg_items(self, items: list, out: list[str]) -> None:
        for it in items:
            if isinstance(it, Group):
                attrs = "".join(f" {k}={quoteattr(v)}" for k, v in it.attrs.items())
                out.append(f"<g{attrs}>")
                if it.title is not None:
                    out.append(f"<title>{escape(it.title)}</title>")
                self._svg_items(it.items, out)
                out.append("</g>")
            else:
                out.append(_svg_shape(it))

    def rgb(self, scale: float = 1.0) -> np.ndarray:
        """The picture painted with Pillow: an ``(H, W, 3)`` uint8 array.

        Raises:
            ValueError: ``scale`` is not a finite number > 0.
            ModuleNotFoundError: Pillow is missing (the message names the ``render`` extra).
        """
        if not (is_real(scale) and 0 < scale < float("inf")):
            raise ValueError(f"scale={scale!r} is not valid; it must be a finite number > 0")
        try:
            from PIL import Image, ImageDraw
        except ModuleNotFoundError as e:
            raise missing_extra(e, "pictures as arrays (render_mode='rgb_array')") from e
        k = scale * SUPERSAMPLE
        size = (max(1, round(self.width * k)), max(1, round(self.height * k)))
        img = Image.new("RGB", size, self.background)
        draw = ImageDraw.Draw(img)
        self._paint(self.root.items, draw, k)
        out = img.resize((max(1, round(self.width * scale)), max(1, round(self.height * scale))),
                         Image.LANCZOS)
        return np.asarray(out, dtype=np.uint8).copy()

    def _paint(self, items: list, draw: Any, k: float) -> None:
        for it in items:
            if isinstance(it, Group):
                self._paint(it.items, draw, k)
            else:
                _paint_shape(it, draw, k)


def _style(s: Shape) -> str:
    fill = s.fill if s.fill is not None else "none"
    out = f' fill="{fill}"'
    if s.stroke is not None:
        out += f' stroke="{s.stroke}" stroke-width="{_num(s.width)}"'
    return out


def _svg_shape(s: Shape) -> str:
    g = s.geom
    if s.kind == "rect":
        rx = f' rx="{_num(s.extra["rx"])}"' if s.extra["rx"] else ""
        return f'<rect x="{_num(g[0])}" y="{_num(g[1])}" width="{_num(g[2])}" height="{_num(g[3])}"{rx}{_style(s)}/>'
    if s.kind == "circle":
        return f'<circle cx="{_num(g[0])}" cy="{_num(g[1])}" r="{_num(g[2])}"{_style(s)}/>'
    if s.kind == "line":
        return (f'<line x1="{_num(g[0])}" y1="{_num(g[1])}" x2="{_num(g[2])}" y2="{_num(g[3])}"{_style(s)} '
                f'stroke-linecap="round"/>')
    if s.kind in ("polyline", "polygon"):
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in g)
        return f'<{s.kind} points="{pts}"{_style(s)} stroke-linejoin="round" stroke-linecap="round"/>'
    e = s.extra
    weight = ' font-weight="bold"' if e["bold"] else ""
    return (f'<text x="{_num(g[0])}" y="{_num(g[1])}" font-size="{_num(e["size"])}" fill="{s.fill}" '
            f'text-anchor="{e["anchor"]}" dominant-baseline="central"{weight}>{escape(e["text"])}</text>')


def _paint_shape(s: Shape, draw: Any, k: float) -> None:
    g = s.geom
    w = max(1, round(s.width * k))
    if s.kind == "rect":
        box = [g[0] * k, g[1] * k, (g[0] + g[2]) * k, (g[1] + g[3]) * k]
        draw.rounded_rectangle(box, radius=s.extra["rx"] * k, fill=s.fill, outline=s.stroke,
                               width=w if s.stroke else 0)
    elif s.kind == "circle":
        box = [(g[0] - g[2]) * k, (g[1] - g[2]) * k, (g[0] + g[2]) * k, (g[1] + g[2]) * k]
        draw.ellipse(box, fill=s.fill, outline=s.stroke, width=w if s.stroke else 0)
    elif s.kind == "line":
        draw.line([g[0] * k, g[1] * k, g[2] * k, g[3] * k], fill=s.stroke, width=w)
    elif s.kind == "polyline":
        draw.line([(x * k, y * k) for x, y in g], fill=s.stroke, width=w, joint="curve")
    elif s.kind == "polygon":
        pts = [(x * k, y * k) for x, y in g]
        if s.fill is not None:
            draw.polygon(pts, fill=s.fill)
        if s.stroke is not None:
            draw.line(pts + [pts[0]], fill=s.stroke, width=w, joint="curve")
    else:
        e = s.extra
        font = _font(max(1, round(e["size"] * k)), bool(e["bold"]))  # a small scale's text: 1 pixel, not size 0
        draw.text((g[0] * k, g[1] * k), e["text"], fill=s.fill, font=font, anchor=_ANCHOR[e["anchor"]] + "m")


def _font_files(bold: bool) -> list[Path]:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    out = []
    spec = importlib.util.find_spec("matplotlib")  # matplotlib ships DejaVu (located, not imported)
    if spec is not None and spec.submodule_search_locations:
        out.append(Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf" / name)
    out.append(Path("/usr/share/fonts/truetype/dejavu") / name)
    return out


@functools.lru_cache(maxsize=64)
def _font(size: int, bold: bool) -> Any:
    """A TrueType font with the card suits (DejaVu Sans), else Pillow's default font."""
    from PIL import ImageFont

    for path in _font_files(bold):
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)
