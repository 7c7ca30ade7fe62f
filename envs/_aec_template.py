"""Template: one compiled call per PettingZoo env step (see :func:`octagames.specialize.specialize`).

Calling a compiled kernel on a record costs microseconds of argument unboxing,
more than the work itself, so the AEC and Parallel envs make one call per
step. The record is ``buf[0]`` of a one-element array (numba types an array
argument much faster than a ``numpy.void``).

* ``play(buf, action, prev, delta) -> seat``: apply ``action``, resolve chance
  with the record's RNG, write the return changes since ``prev`` into ``delta``
  (and update ``prev``); returns the acting seat after the step, ``TERMINAL``,
  or :data:`ILLEGAL` (record untouched) when the engine refuses the action.
* ``view(buf, seat, obs, mask) -> count``: write ``seat``'s observation and
  legal mask; returns the number of legal actions.

After a reset (or a fixed deal) the envs resolve chance with the engine's own
entry points (``Game.kernels.play_chance``, ``returns``): it happens once a
game, and one more compiled function reaching every rule would cost seconds of
the first compile.
"""

import numba as nb

from octagames.core import CHANCE
import octagames.octrix as game  # specialize: game

ILLEGAL = -100  # returned by play() when the engine refuses an action


@nb.njit(cache=True)
def play(buf, action, prev, delta) -> int:
    s = buf[0]
    if not game.apply_action(s, action):
        return ILLEGAL
    while game.current_player(s) == CHANCE:
        game.apply_action(s, game.sample_chance(s))
    game.returns(s, delta)
    for i in range(delta.shape[0]):
        d = delta[i] - prev[i]
        prev[i] = delta[i]
        delta[i] = d
    return game.acting_player(s)


@nb.njit(cache=True)
def view(buf, seat, obs_out, mask_out) -> int:
    s = buf[0]
    game.observation(s, seat, obs_out)
    return game.legal_mask(s, seat, mask_out)


@nb.njit(cache=True)
def mask_count(buf, seat, mask_out) -> int:
    return game.legal_mask(buf[0], seat, mask_out)
