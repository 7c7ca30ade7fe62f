"""The picture of an Octrix table: open hands, the trick in play, the last trick, the counting cards won.

Hands are open (the seed), so every seat sees every hand; a card committed in
the open trick but not yet revealed (``rules.card_visible``) is drawn face down
in the trick for the others and still counted in its owner's hand, as the text
render shows it. The seat to move clicks a card of its hand.
"""

from __future__ import annotations

import numpy as np

from octagames.core import CHANCE, TERMINAL
from octagames.envs.pictures.canvas import Canvas
from octagames.envs.pictures.parts import (CARD_W, HIGHLIGHT, SEAT_COLOURS, banner, card, card_back,
                                           empty_place, seat_label)
from octagames.octrix import rules as R

WIDTH = 820
TABLE = "#2f6b45"
INK = "#f7fafc"
ROW_H = 96
TOP = 150
HAND_X = 140
LAST_X = 560
TRICK_X = 680


def _hands(s, seat: int | None) -> tuple[list[list[int]], list[int]]:
    """Each seat's hand as ``seat`` sees it, and each seat's card in the open trick (-1 none, -2 face down)."""
    n, h, t = int(s["num_players"]), int(s["hand_size"]), int(s["trick"])
    hands = [[c for c in range(R.NUM_CARDS) if int(s["owner"][c]) == p] for p in range(n)]
    trick = []
    for p in range(n):
        c = int(s["trick_cards"][min(t, h - 1), p]) if t < h else -1
        if c >= 0 and seat is not None and not bool(R.card_visible(s, p, seat)):
            hands[p] = sorted(hands[p] + [c])  # still in the open hand, as far as ``seat`` can tell
            c = -2
        trick.append(c)
    return hands, trick


def _status(s) -> str:
    cp = int(R.current_player(s))
    n, h = int(s["num_players"]), int(s["hand_size"])
    if cp == CHANCE:
        return f"dealing: {int(s['dealt'])}/{n * h} cards dealt"
    if cp == TERMINAL:
        w = int(s["winner"])
        r = ", ".join(f"P{p} {float(s['returns'][p]):+.3g}" for p in range(n))
        return ("game over" + (f": P{w} wins" if w >= 0 and int(s["match"]) else "") + f" (returns {r})")
    rule = "highest" if int(s["high_wins"]) else "lowest"
    pend = ", ".join(f"P{p}" for p in range(n) if bool(R.is_pending(s, p)))
    return f"trick {int(s['trick']) + 1}/{h}: the {rule} card wins; to play: {pend}"


def draw(s: np.void, seat: int | None, moves: dict[int, str]) -> Canvas:
    """Draw Octrix record ``s`` for ``seat`` (``None``: all-seeing); ``moves`` are made clickable cards.

    Args:
        s: an Octrix record.
        seat: the seat looking, or ``None``.
        moves: ``{card id: move name}`` of the legal moves to mark (empty: none).

    Returns:
        The canvas.
    """
    n, h = int(s["num_players"]), int(s["hand_size"])
    c = Canvas(WIDTH, TOP + n * ROW_H + 10, TABLE)
    mode = "partnership" if int(s["partnership"]) else f"{n} players"
    head = f"Octrix ({mode}), round {int(s['round']) + 1}, dealer P{int(s['dealer'])}"
    if int(s["match"]):
        head += f", match to {int(s['target'])}"
    view = "all cards shown" if seat is None else f"as seen by P{seat}"
    banner(c, [head, f"{_status(s)}   ({view})"], fill=INK)
    # the counting cards: card k goes to the winner of trick k
    t_open = int(s["trick"])
    c.text(10, 88, "counting cards", size=12, fill=INK, bold=True)
    for k in range(h):
        x = 140 + k * 52
        w = int(s["trick_winner"][k]) if k < t_open else -1
        with c.group(id=f"counting-{k + 1}", cls="counting"):
            fill = SEAT_COLOURS[w] if w >= 0 else "#4a7a5c"
            c.rect(x, 66, 44, 44, fill=fill, stroke=HIGHLIGHT if k == t_open else "#1c4532",
                   width=3 if k == t_open else 1, rx=6)
            c.text(x + 22, 80, str(k + 1), size=16, fill=INK, anchor="middle", bold=True)
            c.text(x + 22, 100, f"P{w}" if w >= 0 else "", size=10, fill=INK, anchor="middle")
    c.text(LAST_X + CARD_W / 2 + 30, 128, "last trick", size=12, fill=INK, anchor="middle", bold=True)
    c.text(TRICK_X + CARD_W / 2 + 30, 128, "this trick", size=12, fill=INK, anchor="middle", bold=True)
    hands, trick = _hands(s, seat)
    for p in range(n):
        y = TOP + p * ROW_H
        with c.group(id=f"seat-{p}", cls="seat"):
            pts = int(R.round_points_of_side(s, int(R.side_of(s, p))))
            pending = bool(R.is_pending(s, p)) and int(R.current_player(s)) not in (CHANCE, TERMINAL)
            seat_label(c, 10, y + 2, p, you=seat == p, to_act=pending)
            if int(s["partnership"]):
                c.text(10, y + 34, f"team {p % 2}", size=11, fill=INK)
            c.text(10, y + 50, f"round {pts}", size=11, fill=INK)
            if int(s["match"]):
                c.text(10, y + 66, f"total {int(s['scores'][p])}", size=11, fill=INK)
            for k, card_id in enumerate(hands[p]):
                x = HAND_X + k * 50
                if card_id in moves:
                    with c.move(card_id, moves[card_id], id=f"hand-{p}-{k}"):
                        card(c, x, y, R.card_name(card_id), edge=HIGHLIGHT, edge_width=2.5)
                else:
                    with c.group(id=f"hand-{p}-{k}", cls="card"):
                        card(c, x, y, R.card_name(card_id))
            last = int(s["trick_cards"][t_open - 1, p]) if 0 < t_open <= h else -1
            with c.group(id=f"last-{p}", cls="trick"):
                if last >= 0:
                    won = int(s["trick_winner"][t_open - 1]) == p
                    card(c, LAST_X + 30, y, R.card_name(last), edge=HIGHLIGHT if won else "#2d3748",
                         edge_width=3 if won else 1.2)
                else:
                    empty_place(c, LAST_X + 30, y)
            with c.group(id=f"trick-{p}", cls="trick"):
                if trick[p] >= 0:
                    card(c, TRICK_X + 30, y, R.card_name(trick[p]))
                elif trick[p] == -2:
                    card_back(c, TRICK_X + 30, y, label="played")
                else:
                    empty_place(c, TRICK_X + 30, y)
    return c
