"""Template: the engine contract's kernels of one game as cached entry points.

:func:`octagames.specialize.engine_kernels` binds ``game`` to a rules module
and loads the generated copy; :class:`octagames.core.Game` and the faces call
these functions (never the rules module's own, uncached kernels), so a fresh
process loads compiled rules from disk and an edited rules module is compiled
afresh. Each entry point only forwards to the game's kernel of the same name.
"""

import numba as nb

from octagames.core import CHANCE, TERMINAL, fast_apply
import octagames.octrix as game  # specialize: game

# optional kernels of the contract, with the meaning they have when a game lacks them
HAS_TRUNCATED = hasattr(game, "truncated")


@nb.njit
def _not_truncated(s) -> bool:
    return False


@nb.njit
def _settle_each(s) -> None:
    while game.current_player(s) == CHANCE:
        game.apply_action(s, game.sample_chance(s))


_apply_legal = fast_apply(game)
_truncated = game.truncated if HAS_TRUNCATED else _not_truncated
_settle = getattr(game, "settle_chance", _settle_each)  # the contract's optional kernel does the same at once


@nb.njit(cache=True)
def reset(s, seed) -> None:
    game.reset(s, seed)


@nb.njit(cache=True)
def current_player(s) -> int:
    return game.current_player(s)


@nb.njit(cache=True)
def acting_player(s) -> int:
    return game.acting_player(s)


@nb.njit(cache=True)
def legal_mask(s, player, out) -> int:
    return game.legal_mask(s, player, out)


@nb.njit(cache=True)
def apply_action(s, action) -> bool:
    return game.apply_action(s, action)


@nb.njit(cache=True)
def apply_legal(s, action) -> bool:
    return _apply_legal(s, action)


@nb.njit(cache=True)
def chance_outcomes(s, actions, probs) -> int:
    return game.chance_outcomes(s, actions, probs)


@nb.njit(cache=True)
def sample_chance(s) -> int:
    return game.sample_chance(s)


@nb.njit(cache=True)
def observation(s, player, out) -> None:
    game.observation(s, player, out)


@nb.njit(cache=True)
def returns(s, out) -> None:
    game.returns(s, out)


@nb.njit(cache=True)
def determinize(s, player, seed) -> None:
    game.determinize(s, player, seed)


@nb.njit(cache=True)
def truncated(s) -> bool:
    return _truncated(s)


@nb.njit(cache=True)
def play_chance(s) -> int:
    """Resolve chance nodes with the record's RNG; returns the acting seat (or TERMINAL)."""
    _settle(s)
    if game.current_player(s) == TERMINAL:
        return TERMINAL
    return game.acting_player(s)
