"""The picture of a Full deck achten table: the hands, the pot, the closed card.

A seat sees a card where the engine's knowledge table says it knows it
(``known[seat, slot]``, as the text render shows it): its own hand, the pot once
laid open, a card it once saw wherever it went, every hand at the showdown;
every other card is drawn face down. Moves are made by buttons (a swap names a
hand slot and a pot slot).
"""

from __future__ import annotations

import numpy as np

from octagames.core import CHANCE, TERMINAL
from octagames.envs.pictures.canvas import Canvas
from octagames.envs.pictures.parts import HIGHLIGHT, banner, card, card_back, empty_place, seat_label
from octagames.achten import rules as R

WIDTH = 820
TABLE = "#2f6b45"
INK = "#f7fafc"
ROW_H = 84
TOP = 70
HAND_X = 120
POT_X = 560


def _slot(c: Canvas, s, seat: int | None, slot: int, x: float, y: float, sid: str) -> None:
    card_id = int(s["slot_card"][slot])
    with c.group(id=sid, cls="card"):
        if card_id < 0:
            empty_place(c, x, y)
        elif seat is None or s["known"][seat, slot]:
            card(c, x, y, R.card_name(card_id))
        else:
            card_back(c, x, y)


def _status(s) -> str:
    cp = int(R.current_player(s))
    n = int(s["num_players"])
    if cp == CHANCE:
        return f"dealing: {int(s['dealt'])}/{3 * n + R.HAND + 1} cards dealt"
    if cp == TERMINAL:
        r = ", ".join(f"P{p} {float(s['returns'][p]):+.3g}" for p in range(n))
        return f"game over{R.stop_words(s)}: returns {r}"
    what = {R.PH_FIRST: "first choice", R.PH_TURNS: "turn", R.PH_FINAL: "last turn"}[int(s["phase"])]
    return f"{what} of P{cp} (turn {int(s['turns']) + 1})"


def draw(s: np.void, seat: int | None, moves: dict[int, str]) -> Canvas:
    """Draw achten record ``s`` for ``seat`` (``None``: all-seeing); ``moves`` become buttons.

    Args:
        s: an achten record.
        seat: the seat looking, or ``None``.
        moves: ``{action: move name}`` of the legal moves to mark (empty: none).

    Returns:
        The canvas.
    """
    n = int(s["num_players"])
    c = Canvas(WIDTH, max(TOP + n * ROW_H + 10, 330), TABLE)
    head = f"Full deck achten ({n} players), round {int(s['round']) + 1}, dealer P{int(s['dealer'])}, " \
           f"first choice P{int(s['chooser'])}"
    if s["match"]:
        head += f", match to {int(s['target']) / 10:g}"
    view = "all cards shown" if seat is None else f"as seen by P{seat}"
    banner(c, [head, f"{_status(s)}   ({view})"], fill=INK)
    cp = int(R.current_player(s))
    for p in range(n):
        y = TOP + p * ROW_H
        with c.group(id=f"seat-{p}", cls="seat"):
            seat_label(c, 10, y + 4, p, you=seat == p, to_act=cp == p)
            pts = f"points {int(s['scores'][p]) / 10:g}" if s["match"] else \
                f"round {int(s['round_pts'][p]) / 10:g}"
            c.text(10, y + 44, pts, size=11, fill=INK)
            for k in range(R.HAND):
                _slot(c, s, seat, 3 * p + k, HAND_X + k * 50, y, f"hand-{p}-{k}")
            tags = [tag for field, tag in (("passer", "passed"), ("clawer", "clawed"), ("verbied_by", "laid verbied"))
                    if int(s[field]) == p]
            shown = seat is None or all(s["known"][seat, 3 * p + k] for k in range(R.HAND))
            if shown and all(int(s["slot_card"][3 * p + k]) >= 0 for k in range(R.HAND)):
                tags.insert(0, f"hand {int(R._hand_value_of(s, p))}")  # the value of cards the viewer sees
            c.text(HAND_X + 160, y + 31, "  ".join(tags), size=13, fill=HIGHLIGHT if tags else INK, bold=True)
    with c.group(id="pot", cls="pot"):
        c.text(POT_X + 72, TOP + 6, "pot" + ("" if int(s["pot_open"]) else " (closed)"), size=13, fill=INK,
               anchor="middle", bold=True)
        for j in range(R.HAND):
            _slot(c, s, seat, R.POT0 + j, POT_X + j * 50, TOP + 20, f"pot-{j}")
            c.text(POT_X + j * 50 + 22, TOP + 92, f"pot {j}", size=10, fill=INK, anchor="middle")
    with c.group(id="closed", cls="closed"):
        c.text(POT_X + 72, TOP + 130, "closed card", size=13, fill=INK, anchor="middle", bold=True)
        _slot(c, s, seat, R.CLOSED, POT_X + 50, TOP + 144, "closed-card")
    return c
