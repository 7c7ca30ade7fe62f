"""Pictures of every game: one drawing, two outputs (SVG text for the web page, an RGB array for envs).

The picture of a position is drawn from the record ``state`` for one ``seat``:
``seat=None`` is the all-seeing view (every card face up); a seat sees exactly
what the rules show it, hidden cards as card backs (the text render's rules:
the engine's own visibility functions, never a second copy of a rule). Each
game's drawing is the module its spec names (``GameSpec.picture``,
``octagames.envs.pictures.<game>``, with ``draw(state, seat, moves) -> Canvas``).

API (what the web server and the envs call)::

    from octagames.envs import pictures
    text = pictures.svg(game, state, seat=None, clickable=False)   # -> str (SVG)
    image = pictures.rgb(game, state, seat=None)                   # -> (H, W, 3) uint8
    canvas = pictures.picture(game, state, seat, clickable)        # the drawing itself

``svg`` needs nothing beyond the base install; ``rgb`` paints with Pillow (the
``render`` extra: a missing Pillow raises one line naming it).

Clickable moves (``clickable=True``): the legal moves of ``seat`` (or, with
``seat=None``, of the seat to act) are groups ``<g class="move"
data-action="<id>"><title>engine's move name</title>...</g>``: the cards or
places of the table where a move is one element (an Octrix card, an Octiles
runner's direction), and a row of buttons below the table for every other
legal move; the set of ``data-action`` ids is exactly the legal actions. At a
chance node, at the end, or for a seat with nothing to do there are none.
Ids of other elements are stable (``hand-<seat>-<k>``, ``pot-<j>``, ...)
and never name a hidden card.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np

from octagames import catalogue
from octagames.core import Game
from octagames.envs._extras import missing_extra
from octagames.envs.pictures.canvas import Canvas
from octagames.envs.pictures.parts import move_panel

__all__ = ["Canvas", "picture", "svg", "rgb", "require_raster", "drawing_module"]


def drawing_module(game: Game | str) -> ModuleType:
    """The module drawing ``game``'s pictures: its ``GameSpec.picture``.

    Raises:
        ValueError: the game draws no pictures.
    """
    name = game if isinstance(game, str) else game.name
    path = catalogue.game_spec(name).picture
    if path is None:
        raise ValueError(f"{name} draws no pictures")
    return importlib.import_module(path)


def legal_moves(game: Game, state: np.void, seat: int | None) -> dict[int, str]:
    """``{action: move name}`` of the legal moves of ``seat`` (``None``: the seat to act); empty at a
    chance node, at the end, or for a seat with nothing to do."""
    p = game.acting_player(state) if seat is None else seat
    if p < 0 or game.is_terminal(state) or game.is_chance(state):
        return {}
    return {a: game.action_to_string(state, a) for a in game.legal_actions(state, p)}


def picture(game: Game, state: np.void, seat: int | None = None, clickable: bool = False) -> Canvas:
    """The drawing of ``state`` as ``seat`` sees it (``None``: all-seeing).

    Args:
        game: the game the record belongs to.
        state: its record.
        seat: the seat looking, or ``None`` for the all-seeing view.
        clickable: mark the legal moves of ``seat`` (``None``: of the seat to act) as clickable groups.

    Returns:
        The :class:`Canvas`.

    Raises:
        ValueError: ``seat`` is not a seat of the game, or ``state`` is not its record.
    """
    if seat is not None:
        seat = game._check_player(seat)
    game.current_player(state)  # refuses a record of another game or config
    moves = legal_moves(game, state, seat) if clickable else {}
    canvas = drawing_module(game).draw(state, seat, moves)
    move_panel(canvas, {a: n for a, n in moves.items() if a not in canvas.placed})
    return canvas


def svg(game: Game, state: np.void, seat: int | None = None, clickable: bool = False) -> str:
    """The picture of ``state`` for ``seat`` as SVG text (see :func:`picture` and the module docstring).

    Raises:
        ValueError: a bad seat or a record of another game.
    """
    return picture(game, state, seat, clickable).svg()


def rgb(game: Game, state: np.void, seat: int | None = None, scale: float = 1.0) -> np.ndarray:
    """The picture of ``state`` for ``seat`` as an ``(H, W, 3)`` uint8 array (no clickable moves).

    Raises:
        ValueError: a bad seat or a record of another game.
        ModuleNotFoundError: Pillow is missing (the message names the ``render`` extra).
    """
    return picture(game, state, seat).rgb(scale)


def require_raster() -> None:
    """Raise now, naming the ``render`` extra, when Pillow (the raster backend) is missing.

    Raises:
        ModuleNotFoundError: Pillow is not installed.
    """
    try:
        import PIL  # noqa: F401
    except ModuleNotFoundError as e:
        raise missing_extra(e, "render_mode='rgb_array'") from e
