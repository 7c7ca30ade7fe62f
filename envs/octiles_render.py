"""A picture of an Octiles position as an RGB array: kept for its import path, drawn by
:mod:`octagames.envs.pictures` (see :mod:`octagames.envs.pictures.octiles` for what is drawn).

Example::

    from octagames.envs.octiles_render import render_rgb, save_png
    save_png(state, "board.png")
"""

from __future__ import annotations

import numpy as np

from octagames.envs.pictures import octiles


def render_rgb(s, viewer: int | None = None, scale: float = 1.0) -> np.ndarray:
    """Draw record ``s`` of an Octiles game (the same for every viewer: nothing is hidden).

    Returns:
        an ``(H, W, 3)`` uint8 RGB image, ``octiles.WIDTH * scale`` pixels wide.

    Raises:
        ModuleNotFoundError: Pillow is missing (the message names the ``render`` extra).
    """
    return octiles.draw(s, viewer, {}).rgb(scale)


def save_png(s, path: str, **kwargs) -> None:
    """Write :func:`render_rgb` of ``s`` to a PNG file (Pillow)."""
    from PIL import Image

    Image.fromarray(render_rgb(s, **kwargs)).save(path)
