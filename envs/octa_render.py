"""A picture of an Octa table (the ``rgb_array`` render mode of ``octa_v0``).

The picture shows one seat's view: that seat's hand face up, the opponent's
hand as card backs (cards known to have been taken openly are shown), both
players' runs with face-down cards drawn as backs marked with the card they
stand for, the pool ring with the tokens, the two face-up action cards, and
the stock and discard piles. Nothing the viewer cannot see is drawn.
"""

from __future__ import annotations

import numpy as np

from octagames.envs._extras import missing_extra
from octagames.octa import en, nl
from octagames.octa.common import (MAX_RUNS, RULES_NL, TOK_CENTRE, TOK_POOL, TOK_RUN, longest_run,
                                   table_faceup)
from octagames.octa.view import card_name, hand_cards, pos_name

try:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch
except ModuleNotFoundError as e:  # the base install draws no pictures
    raise missing_extra(e, "drawing Octa pictures (render_mode='rgb_array')") from e

PLAYER_COLOURS = ("#2b6cb0", "#dd6b20")
_RED_SUITS = "♥♦"
_CARD_W, _CARD_H = 0.62, 0.86


def _card(ax, x: float, y: float, label: str, face_up: bool = True, scale: float = 1.0,
          edge: str = "#333333") -> None:
    w, h = _CARD_W * scale, _CARD_H * scale
    face = "#fffdf7" if face_up else "#8aa0b8"
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.02,rounding_size=0.06",
                                fc=face, ec=edge, lw=1.0))
    colour = "#c53030" if any(ch in label for ch in _RED_SUITS) else "#1a202c"
    if not face_up:
        colour = "#f7fafc"
    ax.text(x, y, label, ha="center", va="center", fontsize=9 * scale, color=colour, fontweight="bold")


def _token(ax, x: float, y: float, player: int) -> None:
    ax.add_patch(Circle((x, y), 0.17, fc=PLAYER_COLOURS[player], ec="white", lw=1.5, zorder=5))
    ax.text(x, y, f"T{player}", ha="center", va="center", fontsize=6, color="white", zorder=6)


def _draw_runs(ax, s, q: int, top: float) -> None:
    """Player ``q``'s runs in two columns of three rows below the title line at ``top``."""
    ax.text(0.3, top, f"P{q} runs: {int(table_faceup(s, q))} face-up cards, longest {int(longest_run(s, q))}",
            fontsize=9, color=PLAYER_COLOURS[q], fontweight="bold", va="center")
    runs = [r for r in range(MAX_RUNS) if int(s["run_owner"][r]) == q]
    for k, r in enumerate(runs[:6]):
        x0, y = 0.75 + (k // 3) * 4.8, top - 0.6 - (k % 3) * 0.75
        if int(s["token_loc"][q]) == TOK_RUN and int(s["token_idx"][q]) == r:
            _token(ax, x0 - 0.42, y, q)
        suit = int(s["run_suit"][r])
        for i, pos in enumerate(range(int(s["run_lo"][r]), int(s["run_hi"][r]) + 1)):
            x = x0 + i * 0.42
            if s["run_fd"][r, pos]:  # a face-down card shows only what it stands for
                _card(ax, x, y, "?" + pos_name(suit, pos), face_up=False, scale=0.65)
            else:
                _card(ax, x, y, card_name(int(s["run_card"][r, pos])), scale=0.65)
    if len(runs) > 6:
        ax.text(9.9, top - 2.1, f"+{len(runs) - 6} more", fontsize=8, color="#e2e8f0", ha="right")


def render_rgb(s, viewer: int | None = None, dpi: int = 100) -> np.ndarray:
    """Draw record ``s`` of an Octa game from ``viewer``'s seat (default: the player to move).

    Returns:
        an ``(H, W, 3)`` uint8 image.
    """
    me = int(s["cur"]) if viewer is None else int(viewer)
    opp = 1 - me
    # a bare Figure, not pyplot: no global figure registry, safe off the main thread
    fig = Figure(figsize=(12, 8), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    fig.patch.set_facecolor("#2f6b45")
    ax.set_facecolor("#2f6b45")
    ax.set_xlim(0, 15)
    ax.set_ylim(0, 10)
    ax.axis("off")
    book = nl if int(s["rules"]) == RULES_NL else en
    phase = book.PHASE_NAMES[int(s["phase"])]
    status = "game over" if s["terminal"] else f"P{int(s['cur'])} to move ({phase})"
    ax.text(7.5, 9.75, f"Octa ({book.RULES_NAME}), turn {int(s['turn'])}: {status}  |  view of P{me}",
            ha="center", fontsize=12, color="white", fontweight="bold")
    # opponent's hand (backs; cards known to have been taken openly are shown) and runs
    # the known cards first: a back's place among them would tell the kinds of the hidden cards
    opp_hand = sorted(hand_cards(s, opp), key=lambda c: not s["pub"][c])
    for i, c in enumerate(opp_hand):
        known = bool(s["pub"][c])
        _card(ax, 0.6 + i * 0.48, 9.05, card_name(c) if known else "", face_up=known, scale=0.7)
    ax.text(0.75 + len(opp_hand) * 0.48, 9.05, f"P{opp} hand: {len(opp_hand)} cards", fontsize=9,
            color="#e2e8f0", va="center")
    _draw_runs(ax, s, opp, 8.35)
    # pool ring (3x3 around the centre) with the tokens, action cards, stock and discard
    cells = [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)]
    for k, (cx, cy) in enumerate(cells):
        c = int(s["pool"][k])
        if c >= 0:
            _card(ax, 10.6 + cx * 0.8, 7.0 - cy * 1.0, card_name(c))
    # a token on a pool run lies beside its line: top row, bottom row, left or right column
    line_spots = [(11.4, 7.65), (11.4, 4.35), (10.05, 6.0), (12.75, 6.0)]
    for q in range(2):
        if int(s["token_loc"][q]) == TOK_POOL:
            _token(ax, *line_spots[int(s["token_idx"][q])], q)
        elif int(s["token_loc"][q]) == TOK_CENTRE:
            _token(ax, 11.4 + (q - 0.5) * 0.4, 6.0, q)
    ax.text(11.4, 8.0, "pool", ha="center", fontsize=9, color="#e2e8f0")
    for pile in range(2):
        m = int(s["apile_n"][pile])
        _card(ax, 13.6 + pile * 0.8, 7.0, card_name(int(s["apile"][pile, m - 1])) if m else "--")
    ax.text(14.0, 7.8, "action cards", ha="center", fontsize=9, color="#e2e8f0")
    ax.text(14.0, 6.3, f"stack {int(s['astack_n'])}, aside {int(s['aside_n'])}", ha="center",
            fontsize=8, color="#e2e8f0")
    _card(ax, 13.6, 5.0, str(int(s["stock_n"])), face_up=False)
    ax.text(13.6, 4.35, "stock", ha="center", fontsize=8, color="#e2e8f0")
    n_disc = int(s["disc_n"])
    _card(ax, 14.4, 5.0, card_name(int(s["disc"][n_disc - 1])) if n_disc else "--")
    ax.text(14.4, 4.35, f"discard {n_disc}", ha="center", fontsize=8, color="#e2e8f0")
    # the viewer's runs and hand
    _draw_runs(ax, s, me, 4.85)
    hand = hand_cards(s, me)
    for i, c in enumerate(hand):
        _card(ax, 0.6 + i * 0.7, 1.0, card_name(c))
    ax.text(0.3, 1.75, f"P{me} hand: {len(hand)} cards", fontsize=9, color=PLAYER_COLOURS[me],
            fontweight="bold", va="center")
    fig.tight_layout(pad=0.2)
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    return image
