"""Template: kernels that step a whole batch of one game's records in one call.

:func:`octagames.specialize.batch_kernels` binds ``game`` to a rules module.
Chance nodes are resolved with each record's own RNG, finished games restart
with a seed drawn from that RNG (so a batch is reproducible from its seeds),
and observations, masks, rewards and end flags are written into preallocated
arrays. A move that the legal mask written by these kernels after the previous
step allows is applied without the engine's second legality check (the game's
``apply_legal``, which leaves the record exactly as ``apply_action`` does; Octa's
check regenerates every legal move); any other goes through ``apply_action``,
which refuses an illegal move and leaves the game unchanged. That mask is the
kernels' private copy (``legal``), so the caller's ``mask`` can be changed
without letting an illegal move through. The kernels release the GIL: callers
step slices of a batch on several Python threads (see ``octagames.envs.vector``),
which degrades more gracefully on a busy machine than numba's parallel loops.

Observations go into a float32 ``obs`` as the game writes them, or, when
``obs`` has an unsigned integer dtype (compact observations), as the integer
``k`` of each entry ``k / divisor[j]``: the game's observation writes straight
into the batch's row through :func:`octagames.compact.compact_row` (``divisor``
holds the game's ``observation_divisors(config)``, as float32 or as unsigned
integers; float32 callers pass an empty one). Only the seat about to act is
observed, by :func:`observe_batch` after the step: the kernels that step and
write masks do not depend on the dtype and are compiled once, not once per
observation dtype (each such copy of a kernel that reaches every rule costs
seconds of compile).
"""

import numba as nb
import numpy as np
from numba.extending import overload

from octagames.compact import borrowed_row, compact_row
from octagames.core import CHANCE, TERMINAL, fast_apply, mix64, nth_set, rng_next
import octagames.octrix as game  # specialize: game

HAS_TRUNCATED = hasattr(game, "truncated")


@nb.njit
def _not_truncated(s) -> bool:
    return False


_truncated = game.truncated if HAS_TRUNCATED else _not_truncated

_apply_legal = fast_apply(game)  # the contract's optional fast apply (else every move is checked)


# the helpers are inlined into the entry points: a compiled function of its own would be optimised
# and emitted with every rule it reaches, once more than its callers already are
@nb.njit(inline="always")
def _settle_each(s) -> None:
    # resolve chance nodes so that a seat (or the end) is next
    while game.current_player(s) == CHANCE:
        game.apply_action(s, game.sample_chance(s))


_settle = getattr(game, "settle_chance", _settle_each)  # the contract's optional kernel does the same at once


def _observe(s, p, obs, i, divisor) -> None:
    """Write seat ``p``'s observation of ``s`` into ``obs[i]`` (compiled through the overload below)."""
    raise NotImplementedError("called only from compiled code")


@overload(_observe, inline="always")
def _observe_typed(s, p, obs, i, divisor):
    # chosen when compiling, by the dtype of obs: one of the two bodies is compiled, never both
    if isinstance(obs.dtype, nb.types.Float):
        def direct(s, p, obs, i, divisor):
            game.observation(s, p, borrowed_row(obs, i))
        return direct

    def compact(s, p, obs, i, divisor):
        game.observation(s, p, compact_row(borrowed_row(obs, i), divisor))
    return compact


@nb.njit(inline="always")
def _seat(s, i, mask, legal, player) -> None:
    # the acting seat and its legal mask (the observation is written apart, by observe_batch)
    p = game.acting_player(s)
    player[i] = p
    if p >= 0:
        game.legal_mask(s, p, borrowed_row(mask, i))
        for a in range(mask.shape[1]):
            legal[i, a] = mask[i, a]
    else:
        mask[i, :] = 0
        legal[i, :] = 0


@nb.njit(cache=True, nogil=True)
def reset_batch(states, seeds) -> None:
    """Start record ``i`` from ``seeds[i]`` and resolve chance; :func:`seat_batch` and :func:`observe_batch`
    then write the first seats, masks and observations."""
    for i in range(states.shape[0]):
        s = states[i]
        game.reset(s, seeds[i])
        _settle(s)


@nb.njit(cache=True, nogil=True)
def step_batch(states, actions, mask, legal, player, rewards, terminated, truncated, scratch, final) -> None:
    """Apply ``actions[i]`` to record ``i``; rewards are the change of every seat's return. The seat to
    act next and its legal mask are written; :func:`observe_batch` then writes its observation.

    ``legal[i]`` must be the legal mask of the seat to act in record ``i`` as the last
    kernel call wrote it. A game that ends is flagged (``terminated``, or ``truncated``
    when it stopped at an engine safety bound), copied as it ended into ``final[i]`` (records of
    the game; the other rows are left as they were) and restarts at once from its own RNG.
    """
    for i in range(states.shape[0]):
        s = states[i]
        # returns before and after the action; their difference is the reward
        game.returns(s, borrowed_row(scratch, i))
        a = actions[i]
        if 0 <= a < legal.shape[1] and legal[i, a] == 1:
            _apply_legal(s, a)
        else:  # checked by the engine: an illegal action leaves the game unchanged
            game.apply_action(s, a)
        _settle(s)
        game.returns(s, borrowed_row(rewards, i))
        for p in range(rewards.shape[1]):
            rewards[i, p] -= scratch[i, p]
        terminated[i] = False
        truncated[i] = False
        if game.current_player(s) == TERMINAL:
            if _truncated(s):
                truncated[i] = True
            else:
                terminated[i] = True
            final[i] = s
            game.reset(s, np.int64(rng_next(s) >> np.uint64(1)))  # int64 like reset_batch: one compile
            _settle(s)
        _seat(s, i, mask, legal, player)


@nb.njit(cache=True, nogil=True)
def seat_batch(states, mask, legal, player) -> None:
    """Write the acting seat and its legal mask for every record."""
    for i in range(states.shape[0]):
        _seat(states[i], i, mask, legal, player)


@nb.njit(cache=True, nogil=True)
def observe_batch(states, players, obs, divisor) -> None:
    """Write the observation of seat ``players[i]`` in record ``i`` (zeros where ``players[i] < 0``: no seat acts)."""
    for i in range(states.shape[0]):
        if players[i] >= 0:
            _observe(states[i], players[i], obs, i, divisor)
        else:
            obs[i, :] = 0


@nb.njit(cache=True, nogil=True)
def random_actions(mask, seeds, out) -> None:
    """One uniformly random legal action per row of ``mask`` (-1 for an empty row).

    ``seeds`` (uint64, one per row) is advanced in place, so repeated calls are
    reproducible from the initial seeds.
    """
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        if n == 0:
            out[i] = -1
            continue
        z = seeds[i] + np.uint64(0x9E3779B97F4A7C15)
        seeds[i] = z
        out[i] = nth_set(borrowed_row(mask, i), np.int64(mix64(z) % np.uint64(n)))
