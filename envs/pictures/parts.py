"""Pieces every picture shares: playing cards (face up, face down), seat labels, the move buttons."""

from __future__ import annotations

from octagames.envs.pictures.canvas import Canvas

CARD_W, CARD_H = 44, 62
RED, BLACK = "#c53030", "#1a202c"
BACK, BACK_LINE = "#3b5b8c", "#9fb3d1"
FACE, EDGE = "#fffdf7", "#2d3748"
HIGHLIGHT = "#ff7f0e"
SEAT_COLOURS = ("#2b6cb0", "#dd6b20", "#805ad5", "#c53030", "#d53f8c", "#b7791f")


def card(c: Canvas, x: float, y: float, label: str, scale: float = 1.0, edge: str = EDGE,
         edge_width: float = 1.2) -> None:
    """A face-up card with top-left corner ``(x, y)``: ``label`` is ``"♥7"`` (suit first) or any text."""
    w, h = CARD_W * scale, CARD_H * scale
    c.rect(x, y, w, h, fill=FACE, stroke=edge, width=edge_width, rx=4 * scale)
    colour = RED if any(ch in label for ch in "♥♦") else BLACK
    suit, rank = (label[0], label[1:]) if label[:1] in "♥♦♠♣" and len(label) > 1 else ("", label)
    c.text(x + w / 2, y + h * 0.36, rank, size=17 * scale, fill=colour, anchor="middle", bold=True)
    if suit:
        c.text(x + w / 2, y + h * 0.72, suit, size=17 * scale, fill=colour, anchor="middle")


def card_back(c: Canvas, x: float, y: float, scale: float = 1.0, label: str = "") -> None:
    """A face-down card (its back) with top-left corner ``(x, y)``; ``label`` is public text on it."""
    w, h = CARD_W * scale, CARD_H * scale
    c.rect(x, y, w, h, fill=BACK, stroke=EDGE, width=1.2, rx=4 * scale)
    c.rect(x + 4 * scale, y + 4 * scale, w - 8 * scale, h - 8 * scale, stroke=BACK_LINE, width=1, rx=3 * scale)
    if label:
        c.text(x + w / 2, y + h / 2, label, size=max(9.0, 11 * scale), fill="#ffffff", anchor="middle", bold=True)


def empty_place(c: Canvas, x: float, y: float, scale: float = 1.0, label: str = "") -> None:
    """An empty card place (dashed look: a thin outline)."""
    w, h = CARD_W * scale, CARD_H * scale
    c.rect(x, y, w, h, stroke="#a0aec0", width=1, rx=4 * scale)
    if label:
        c.text(x + w / 2, y + h / 2, label, size=10 * scale, fill="#a0aec0", anchor="middle")


def move_panel(c: Canvas, moves: dict[int, str], x0: float = 10, text_size: float = 12) -> None:
    """Buttons for the legal moves ``{action: name}`` below the picture (the canvas grows to hold them).

    Each button is a clickable group (:meth:`Canvas.move`) whose text is the engine's move name.
    """
    if not moves:
        return
    top = c.height
    row_h = text_size + 14
    places, x, y = [], x0 + 60, top + 6
    for a, name in moves.items():
        w = 0.62 * text_size * len(name) + 16
        if x + w > c.width - x0 and x > x0 + 60:
            x, y = x0 + 60, y + row_h + 4
        places.append((a, name, x, y, w))
        x += w + 6
    c.height = int(y + row_h + 8)
    with c.group(id="moves", cls="moves"):
        c.rect(0, top, c.width, c.height - top, fill="#e2e8f0")
        c.text(x0, top + 6 + row_h / 2, "moves:", size=text_size, fill="#2d3748", bold=True)
        for a, name, x, y, w in places:
            with c.move(a, name):
                c.rect(x, y, w, row_h, fill="#ffffff", stroke="#4a5568", width=1, rx=5)
                c.text(x + w / 2, y + row_h / 2, name, size=text_size, fill="#1a202c", anchor="middle")


def banner(c: Canvas, lines: list[str], y: float = 16, size: float = 15, fill: str = "#ffffff") -> float:
    """Heading lines centred at the top; returns the y below them."""
    for i, line in enumerate(lines):
        c.text(c.width / 2, y + i * (size + 6), line, size=size if i == 0 else size - 3, fill=fill,
               anchor="middle", bold=i == 0)
    return y + len(lines) * (size + 6)


def seat_label(c: Canvas, x: float, y: float, seat: int, you: bool = False, to_act: bool = False,
               text: str | None = None) -> None:
    """A seat's name on a pill of its colour (``P2 (you)``), ringed when it is to act."""
    label = text if text is not None else f"P{seat}" + (" (you)" if you else "")
    w = 12 + 9 * len(label)
    c.rect(x, y, w, 24, fill=SEAT_COLOURS[seat % len(SEAT_COLOURS)], stroke=HIGHLIGHT if to_act else "#ffffff",
           width=3 if to_act else 1, rx=12)
    c.text(x + w / 2, y + 12, label, size=13, fill="#ffffff", anchor="middle", bold=True)
