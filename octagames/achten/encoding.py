"""The integer encoding of Achten's observation: compact observations (``obs_dtype="uint8"``).

Every entry of the float32 observation (:func:`octagames.achten.rules.observation`)
is ``k / d`` with ``k`` a non-negative integer: ``d`` is 1 for the 0/1 entries and,
as the layout names them, 3 for ``opp_unknown``, ``HIST_MOVES`` for ``turn``,
``n - 1`` for ``final_left``, 10 for the points (``scores``, ``round_pts``,
``target``: the record counts tenths), ``max_rounds`` for ``round`` and
``MAX_HAND_VALUE`` for the hand total of each ``lookahead`` action. A compact
observation holds ``k``.
"""

from __future__ import annotations

import numpy as np

from octagames.achten.rules import (HIST_MOVES, LOOK_SIZE, MAX_HAND_VALUE, MAX_PLAYERS, NUM_ACTIONS, O_FINAL_LEFT,
                                    O_LOOK, O_OPP_UNKNOWN, O_ROUND, O_ROUND_PTS, O_SCORES, O_TARGET, O_TURN,
                                    OBS_SIZE, Config)


def observation_divisors(config: Config) -> np.ndarray:
    """float32 ``[OBS_SIZE]``: the observation is the compact one divided by these, entry by entry.

    Args:
        config: the game's config (``num_players`` and ``max_rounds`` set two divisors).

    Returns:
        The divisors (1 for the 0/1 entries).
    """
    d = np.ones(OBS_SIZE, dtype=np.float32)
    d[O_OPP_UNKNOWN:O_OPP_UNKNOWN + MAX_PLAYERS - 1] = 3.0
    d[O_TURN] = HIST_MOVES
    d[O_FINAL_LEFT] = config.num_players - 1
    d[O_SCORES:O_SCORES + MAX_PLAYERS] = 10.0
    d[O_ROUND_PTS:O_ROUND_PTS + MAX_PLAYERS] = 10.0
    d[O_TARGET] = 10.0
    d[O_ROUND] = config.max_rounds
    d[O_LOOK:O_LOOK + NUM_ACTIONS * LOOK_SIZE:LOOK_SIZE] = MAX_HAND_VALUE
    return d
