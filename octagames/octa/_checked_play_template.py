"""Template: Octa's random play with the table checked after every action, over one config's kernels.

:func:`octagames.octa.rules.checked_play` binds ``game`` to a config's kernel module (the turn
machinery over one rulebook, :func:`octagames.octa.rules.kernel_module`) and returns the cached
:func:`random_game` of the generated copy: the warm-up compiles it where that rulebook's kernels
are already compiled, and a later process (the test suite's thousands of random games) loads it.
"""

import numba as nb
import numpy as np

from octagames.core import CHANCE, TERMINAL, rng_below
from octagames.octa.checks import E_NO_LEGAL, E_TOO_LONG, OK, validate
from octagames.octa.common import NUM_ACTIONS
import octagames.octa.rules as game  # specialize: game


@nb.njit(cache=True)
def random_game(s, max_steps, stats, check=True) -> int:
    """Play ``s`` to the end with uniformly random legal actions, validating every step.

    Args:
        s: the record, at any point of a game.
        max_steps: give up with ``E_TOO_LONG`` after this many actions.
        stats: int64[4] receiving steps, player decisions, turns, most steps in one turn.
        check: run :func:`~octagames.octa.checks.validate` after every step (False: plain random
            play, for timing).

    Returns:
        0, or the first :func:`~octagames.octa.checks.validate` error code (the game stops there), or
        ``E_NO_LEGAL`` / ``E_TOO_LONG``.
    """
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    steps = 0
    decisions = 0
    last_turn = -1
    in_turn = 0
    worst = 0
    while True:
        cp = game.current_player(s)
        if cp == TERMINAL:
            break
        if steps >= max_steps:
            return E_TOO_LONG
        if cp == CHANCE:
            a = np.int64(game.sample_chance(s))
        else:
            n = game.legal_mask(s, cp, mask)
            if n == 0:
                return E_NO_LEGAL
            m = 0
            for i in range(NUM_ACTIONS):
                if mask[i]:
                    legal[m] = i
                    m += 1
            a = legal[np.int64(rng_below(s, m))]
            decisions += 1
        if not game.apply_action(s, a):
            return E_NO_LEGAL
        steps += 1
        if s["turn"] != last_turn:
            last_turn = s["turn"]
            in_turn = 0
        in_turn += 1
        worst = max(worst, in_turn)
        if check:
            err = validate(s)
            if err != OK:
                return err
    stats[0] = steps
    stats[1] = decisions
    stats[2] = s["turn"]
    stats[3] = worst
    return OK
