"""octagames: rules engines for the "game of 8" family.

Each game is a subpackage with the same contract (see :mod:`octagames.core`).
No reinforcement-learning framework is imported here.
"""

from octagames.core import (CHANCE, GAME_NAMES, SIMULTANEOUS, TERMINAL, Game, GameInfo,
                            IllegalActionError, available_games, load_module, make_game)

__version__ = "0.1.0"

__all__ = ["CHANCE", "GAME_NAMES", "SIMULTANEOUS", "TERMINAL", "Game", "GameInfo",
           "IllegalActionError", "available_games", "load_module", "make_game", "__version__"]
