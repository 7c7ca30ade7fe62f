"""The picture of an Octa table (both rulebooks): hands, runs, the pool ring and tokens, the piles.

What a seat sees follows the text render (``octagames.octa.view``): its own
hand face up; the other hand as card backs, except the cards it saw taken
openly (``pub``), drawn first so that a back's place tells nothing; face-down
run cards as backs marked with the card they stand for (the all-seeing view
also names the card); the pool, the action piles, the discard pile and the
counts face up; the rulebook's own pieces (the Dutch reserve, covered pot cards,
the waiting joker) as its text notes say. Moves are made by buttons.
"""

from __future__ import annotations

import numpy as np

from octagames.envs.pictures.canvas import Canvas
from octagames.envs.pictures.parts import (CARD_H, CARD_W, banner, card, card_back, empty_place,
                                           seat_label)
from octagames.octa import en, nl
from octagames.octa.common import MAX_RUNS, RULES_NL, TOK_CENTRE, TOK_POOL, TOK_RUN, longest_run, table_faceup
from octagames.octa.view import card_name, hand_cards, pos_name

WIDTH = 1100
TABLE = "#2f6b45"
INK = "#f7fafc"
TOKEN_COLOURS = ("#2b6cb0", "#dd6b20")
RUN_SCALE = 0.62
RUN_STEP = 29
RUNS_PER_ROW = 3


def _token(c: Canvas, x: float, y: float, q: int) -> None:
    with c.group(id=f"token-{q}", cls="token"):
        c.circle(x, y, 11, fill=TOKEN_COLOURS[q], stroke="#ffffff", width=2)
        c.text(x, y, f"T{q}", size=9, fill="#ffffff", anchor="middle", bold=True)


def _runs(c: Canvas, s, q: int, seat: int | None, top: float) -> None:
    """Seat ``q``'s runs in rows of three below ``top``."""
    c.text(20, top, f"P{q}'s runs: {int(table_faceup(s, q))} face-up cards, longest {int(longest_run(s, q))}",
           size=12, fill=INK, bold=True)
    runs = [r for r in range(MAX_RUNS) if int(s["run_owner"][r]) == q]
    shown = runs[:RUNS_PER_ROW * 3]
    for k, r in enumerate(shown):
        x0, y = 40 + (k % RUNS_PER_ROW) * 355, top + 14 + (k // RUNS_PER_ROW) * 46
        with c.group(id=f"run-{q}-{k}", cls="run"):
            if int(s["token_loc"][q]) == TOK_RUN and int(s["token_idx"][q]) == r:
                _token(c, x0 - 16, y + 20, q)
            suit = int(s["run_suit"][r])
            for i, pos in enumerate(range(int(s["run_lo"][r]), int(s["run_hi"][r]) + 1)):
                x = x0 + i * RUN_STEP
                cid = int(s["run_card"][r, pos])
                if s["run_fd"][r, pos]:  # a face-down card shows the card it stands for
                    label = "?" + pos_name(suit, pos) if seat is not None else card_name(cid) + "\n"
                    card_back(c, x, y, RUN_SCALE, label=label.strip())
                    if seat is None:
                        c.text(x + CARD_W * RUN_SCALE / 2, y + CARD_H * RUN_SCALE + 5, "for " + pos_name(suit, pos),
                               size=8, fill=INK, anchor="middle")
                else:
                    card(c, x, y, card_name(cid), RUN_SCALE)
    if len(runs) > len(shown):
        c.text(WIDTH - 20, top, f"+{len(runs) - len(shown)} more runs", size=11, fill=INK, anchor="end")


def _hand(c: Canvas, s, q: int, seat: int | None, y: float, scale: float, to_act: bool, book) -> None:
    cards = hand_cards(s, q)
    open_hand = seat is None or seat == q
    if not open_hand:  # the cards taken openly first: a back's place among them would tell a kind
        cards = sorted(cards, key=lambda x: not s["pub"][x])
    with c.group(id=f"hand-{q}", cls="hand"):
        seat_label(c, 20, y, q, you=seat == q, to_act=to_act)
        c.text(20, y + 38, f"{len(cards)} cards", size=11, fill=INK)
        for i, cid in enumerate(cards):
            x = 120 + i * (CARD_W * scale + 4)
            with c.group(id=f"hand-{q}-{i}", cls="card"):
                if open_hand or s["pub"][cid]:
                    card(c, x, y, card_name(cid), scale)
                else:
                    card_back(c, x, y, scale)
        for j, note in enumerate(book.seat_notes(s, q)):
            c.text(120, y + CARD_H * scale + 12 + j * 15, note, size=11, fill=INK)


def _centre(c: Canvas, s, top: float, book) -> None:
    """The pool ring with the tokens, the action piles, the stock and the discard pile."""
    cells = [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)]
    x0, y0, dx, dy = 70, top + 26, 52, 62
    c.text(x0 + dx + CARD_W / 2, top + 8, "pool", size=12, fill=INK, anchor="middle", bold=True)
    with c.group(id="pool", cls="pool"):
        for k, (cx, cy) in enumerate(cells):
            with c.group(id=f"pool-{k}", cls="card"):
                cid = int(s["pool"][k])
                if cid >= 0:
                    card(c, x0 + cx * dx, y0 + cy * dy, card_name(cid))
                else:
                    empty_place(c, x0 + cx * dx, y0 + cy * dy)
    # a token on a pool line lies beside it: top row, bottom row, left or right column
    mid_x, mid_y = x0 + dx + CARD_W / 2, y0 + dy + CARD_H / 2
    spots = [(mid_x, y0 - 10), (mid_x, y0 + 2 * dy + CARD_H + 10), (x0 - 16, mid_y), (x0 + 2 * dx + CARD_W + 16, mid_y)]
    for q in range(2):
        if int(s["token_loc"][q]) == TOK_POOL:
            _token(c, *spots[int(s["token_idx"][q])], q)
        elif int(s["token_loc"][q]) == TOK_CENTRE:
            _token(c, mid_x + (q - 0.5) * 24, mid_y, q)
    ax = 330
    c.text(ax + 75, top + 8, "action cards", size=12, fill=INK, anchor="middle", bold=True)
    with c.group(id="action-piles", cls="piles"):
        for pile in range(2):
            m = int(s["apile_n"][pile])
            with c.group(id=f"action-pile-{pile}", cls="card"):
                if m:
                    card(c, ax + pile * 52, top + 26, card_name(int(s["apile"][pile, m - 1])))
                else:
                    empty_place(c, ax + pile * 52, top + 26, label=f"pile {pile}")
            c.text(ax + pile * 52 + CARD_W / 2, top + 100, f"pile {pile} ({m})", size=10, fill=INK, anchor="middle")
        drawn = int(s["adrawn"])
        with c.group(id="action-turned", cls="card"):
            if drawn >= 0:
                card(c, ax + 114, top + 26, card_name(drawn))
            else:
                empty_place(c, ax + 114, top + 26)
        c.text(ax + 114 + CARD_W / 2, top + 100, "turned", size=10, fill=INK, anchor="middle")
        c.text(ax + 75, top + 118, f"stack {int(s['astack_n'])}, set aside {int(s['aside_n'])}", size=10,
               fill=INK, anchor="middle")
    sx = 540
    with c.group(id="stock", cls="stock"):
        card_back(c, sx, top + 26, label=str(int(s["stock_n"])))
        c.text(sx + CARD_W / 2, top + 100, f"stock (ran out {int(s['exhaust'])}x)", size=10, fill=INK,
               anchor="middle")
    n_disc = int(s["disc_n"])
    with c.group(id="discard", cls="discard"):
        c.text(640, top + 8, f"discard pile ({n_disc}), top last", size=12, fill=INK, bold=True)
        for i, d in enumerate(range(max(0, n_disc - 8), n_disc)):
            card(c, 640 + i * 30, top + 26, card_name(int(s["disc"][d])), 0.8)
    for j, note in enumerate(book.table_notes(s)):
        c.text(640, top + 110 + j * 15, note, size=11, fill=INK)


def draw(s: np.void, seat: int | None, moves: dict[int, str]) -> Canvas:
    """Draw Octa record ``s`` for ``seat`` (``None``: all-seeing); ``moves`` become buttons.

    Args:
        s: an Octa record (either rulebook).
        seat: the seat looking, or ``None``.
        moves: ``{action: move name}`` of the legal moves (drawn as buttons by the caller).

    Returns:
        The canvas.
    """
    book = nl if int(s["rules"]) == RULES_NL else en
    me = 0 if seat is None else int(seat)
    opp = 1 - me
    c = Canvas(WIDTH, 800, TABLE)
    status = "game over" if s["terminal"] else f"P{int(s['cur'])} to move ({book.PHASE_NAMES[int(s['phase'])]})"
    if s["terminal"]:
        w = int(s["winner"])
        status += f" ({book.END_NAMES.get(int(s['end_reason']), '?')}): " + (f"P{w} wins" if w >= 0 else "draw")
    view = "all cards shown" if seat is None else f"as seen by P{seat}"
    banner(c, [f"Octa ({book.RULES_NAME}), turn {int(s['turn'])}", f"{status}   ({view})"], fill=INK)
    cur = -1 if s["terminal"] else int(s["cur"])
    _hand(c, s, opp, seat, 62, 0.7, cur == opp, book)
    _runs(c, s, opp, seat, 150)
    _centre(c, s, 300, book)
    _runs(c, s, me, seat, 528)
    _hand(c, s, me, seat, 690, 1.0, cur == me, book)
    return c
