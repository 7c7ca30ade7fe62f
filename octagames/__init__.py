"""octagames: rules engines for the "game of 8" family.

Each game is a subpackage with the same contract (see :mod:`octagames.core`).
No reinforcement-learning framework is imported here.

The names below come from :mod:`octagames.core`, imported when one of them is first asked for: importing
the package alone imports no submodule, so ``python -m octagames.specialize`` runs its module once (a
package that imported it would have ``runpy`` warn that it is in ``sys.modules`` before it runs).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ imports them when asked for
    from octagames import core
    from octagames.core import (CHANCE, SIMULTANEOUS, TERMINAL, Game, GameInfo, IllegalActionError,
                                available_games, load_module, make_game)

__version__ = "0.1.0"

#: the names the package takes from :mod:`octagames.core` (``GAME_NAMES``: the catalogue's games)
_FROM_CORE = ("CHANCE", "SIMULTANEOUS", "TERMINAL", "Game", "GameInfo", "IllegalActionError", "available_games",
              "load_module", "make_game", "GAME_NAMES")


def __getattr__(name: str) -> Any:
    # the games are listed by the catalogue (octagames.catalogue), read when first asked for
    if name == "core":
        return importlib.import_module("octagames.core")
    if name in _FROM_CORE:
        return getattr(importlib.import_module("octagames.core"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM_CORE, "core"})


__all__ = ["CHANCE", "GAME_NAMES", "SIMULTANEOUS", "TERMINAL", "Game", "GameInfo",
           "IllegalActionError", "available_games", "load_module", "make_game", "__version__"]
