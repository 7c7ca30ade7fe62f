"""The integer encoding of Octa's observation (both rulebooks): compact observations (``obs_dtype="uint8"``).

Every entry of the float32 observation (``observation`` of :mod:`octagames.octa.en`
and :mod:`octagames.octa.nl`, with the blocks of :mod:`octagames.octa.view`) is
``k / d`` with ``k`` a non-negative integer: ``d`` is 1 for the 0/1 entries and
the divisor each block's description names for the others (copies / 2, sizes
/ 80, ...; the turn count / ``max_turns``). A compact observation holds ``k``.
"""

from __future__ import annotations

import numpy as np

from octagames.octa import en, nl
from octagames.octa.common import (FACT_PILE_ROW, FACT_ROWS, FACT_RUN_ROW, FACT_SITUATION_ROW, FACT_TAKE_ROW, NUM_FACTS,
                                   NUM_KINDS, OBS_SIZE)
from octagames.octa.rules import Config

# block: divisor of every entry, or {index in the block: divisor}, shared by both rulebooks
_FACT_DIVISORS = (1.0, 2.0, 10.0, 10.0, 2.0, 2.0, 10.0, 1.0)  # the facts of one card's row (view.obs_facts)
_SITUATION_DIVISORS = (1.0, 1.0, 10.0, 1.0, 80.0, 80.0, 80.0, 10.0)  # the situation row's
_PILE_DIVISORS = (1.0,) * NUM_FACTS  # an action pile's row: 0/1 entries
_RUN_DIVISORS = (1.0, 10.0, 1.0, 1.0, 10.0, 1.0, 1.0, 1.0)  # a run slot's row: face-up and face-down cards / 10
_COMMON = {"hand": 2.0, "opp_known": 2.0, "hand_n": 80.0, "discard_order": 40.0, "action_under": 2.0,
           "counts": {0: 80.0, 1: 24.0, 2: 8.0, 3: 80.0}, "totals": {0: 80.0, 1: 80.0, 2: 10.0, 3: 10.0},
           "rebuilt": {**{k: 2.0 for k in range(NUM_KINDS)}, **{NUM_KINDS + q: 80.0 for q in range(3)}},
           "facts": {r * NUM_FACTS + j: d for r in range(FACT_ROWS)
                     for j, d in enumerate(_SITUATION_DIVISORS if r == FACT_SITUATION_ROW else
                                           _FACT_DIVISORS if r >= FACT_TAKE_ROW else  # copies of kinds' rows
                                           _RUN_DIVISORS if r >= FACT_RUN_ROW else
                                           _PILE_DIVISORS if r >= FACT_PILE_ROW else _FACT_DIVISORS)}}
# the rulebooks' own blocks; "max_turns" stands for the config's turn cap
_BOOKS = {
    "en": {"discard_count": 2.0, "b_cards": 2.0, "counts": {8: "max_turns"}, "chance": {4: 2.0}},
    "nl": {"own_reserve": 2.0, "opp_reserve": 2.0, "counts": {5: "max_turns"}, "king": {2: 2.0},
           "scores": 160.0, "moves": float(nl.MAX_MOVES), "chance": {6: 2.0}},
}


def observation_divisors(config: Config) -> np.ndarray:
    """float32 ``[OBS_SIZE]``: the observation is the compact one divided by these, entry by entry.

    Args:
        config: the game's config (its rulebook's layout; the turn count's divisor is ``max_turns``).

    Returns:
        The divisors (1 for the 0/1 entries).
    """
    layout = (nl if config.rules == "nl" else en).OBS_LAYOUT
    d = np.ones(OBS_SIZE, dtype=np.float32)
    for table in (_COMMON, _BOOKS[config.rules]):
        for block, div in table.items():
            start = layout.offset(block)
            for j, v in (div.items() if isinstance(div, dict) else
                         ((j, div) for j in range(layout.blocks[[b.name for b in layout.blocks].index(block)].size))):
                d[start + j] = config.max_turns if v == "max_turns" else v
    return d
