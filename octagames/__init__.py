"""octagames: rules engines for the "game of 8" family.

Each game is a subpackage with the same contract (see :mod:`octagames.core`).
No reinforcement-learning framework is imported here.
"""

from typing import Any

from octagames import core
from octagames.core import (CHANCE, SIMULTANEOUS, TERMINAL, Game, GameInfo, IllegalActionError, available_games,
                            load_module, make_game)

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # the games are listed by the catalogue (octagames.catalogue), read when first asked for
    if name == "GAME_NAMES":
        return core.GAME_NAMES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["CHANCE", "GAME_NAMES", "SIMULTANEOUS", "TERMINAL", "Game", "GameInfo",
           "IllegalActionError", "available_games", "load_module", "make_game", "__version__"]
