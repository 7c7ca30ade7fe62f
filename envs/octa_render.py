"""A picture of an Octa table as an RGB array: kept for its import path, drawn by :mod:`octagames.envs.pictures`.

The picture shows one seat's view (default: the player to move): see
:mod:`octagames.envs.pictures.octa` for what is drawn and what is hidden.
"""

from __future__ import annotations

import numpy as np

from octagames.envs.pictures import octa


def render_rgb(s, viewer: int | None = None, scale: float = 1.0) -> np.ndarray:
    """Draw record ``s`` of an Octa game from ``viewer``'s seat (default: the player to move).

    Returns:
        an ``(H, W, 3)`` uint8 image.

    Raises:
        ModuleNotFoundError: Pillow is missing (the message names the ``render`` extra).
    """
    return octa.draw(s, int(s["cur"]) if viewer is None else int(viewer), {}).rgb(scale)
