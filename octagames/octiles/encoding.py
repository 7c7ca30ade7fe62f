"""The integer encoding of Octiles' observation: compact observations (``obs_dtype="uint8"``).

Every entry of the float32 observation (:func:`octagames.octiles.rules.observation`)
is ``k / d`` with ``k`` a non-negative integer: ``d`` is 1 for the 0/1 entries,
4 for ``passes``, 5 for ``runners_per_player``, the config's ``max_turns``
for ``turns``, 12 for ``distance`` and 60 for ``distance_sum``. A compact
observation holds ``k``; with ``max_turns`` over 255 (the default is 500) the
turn count needs ``obs_dtype="uint16"``.
"""

from __future__ import annotations

import numpy as np

from octagames.octiles.rules import (FAR, MAX_PLAYERS, MAX_RUNNERS, O_DIST, O_DIST_SUM, O_NRUN, O_PASSES,
                                     O_TURNS, OBS_SIZE, Config)


def observation_divisors(config: Config) -> np.ndarray:
    """float32 ``[OBS_SIZE]``: the observation is the compact one divided by these, entry by entry.

    Args:
        config: the game's config (the turn count's divisor is its ``max_turns``).

    Returns:
        The divisors (1 for the 0/1 entries).
    """
    d = np.ones(OBS_SIZE, dtype=np.float32)
    d[O_PASSES] = 4.0
    d[O_NRUN] = 5.0
    d[O_TURNS] = config.max_turns
    d[O_DIST:O_DIST + MAX_PLAYERS * MAX_RUNNERS] = FAR
    d[O_DIST_SUM:O_DIST_SUM + MAX_PLAYERS] = MAX_RUNNERS * FAR
    return d
