"""The integer encoding of Octrix's observation: compact observations (``obs_dtype="uint8"``).

Every entry of the float32 observation (:func:`octagames.octrix.rules.observation`)
is ``k / d`` with ``k`` a non-negative integer: ``d`` is 1 for the 0/1 entries,
64 for ``round_points`` and the config's ``target`` for ``scores`` (the divisors
the observation's layout names). A compact observation holds ``k``.
"""

from __future__ import annotations

import numpy as np

from octagames.octrix.rules import MAX_PLAYERS, O_RPTS, O_SCORES, OBS_SIZE, Config


def observation_divisors(config: Config) -> np.ndarray:
    """float32 ``[OBS_SIZE]``: the observation is the compact one divided by these, entry by entry.

    Args:
        config: the game's config (the scores' divisor is its ``target``).

    Returns:
        The divisors (1 for the 0/1 entries).
    """
    d = np.ones(OBS_SIZE, dtype=np.float32)
    d[O_RPTS:O_RPTS + MAX_PLAYERS] = 64.0
    d[O_SCORES:O_SCORES + MAX_PLAYERS] = config.target
    return d
