"""The compiled Octa heuristic (``octa_playout``) against the Python agent it ports."""

import numpy as np
import pytest

from octagames.agents.base import make_turn
from octagames.agents.heuristic_octa import OctaHeuristicAgent, octa_playout
from octagames.core import Game
from octagames.octa import en, nl


class _FlagRNG:
    """Stands in for the agent's generator and records whether a choice was left to chance."""

    def __init__(self) -> None:
        self.called = False

    def integers(self, n: int) -> int:
        self.called = True
        return 0


@pytest.mark.parametrize("rules", ["en", "nl"])
def test_compiled_octa_playout_plays_like_the_python_heuristic(rules):
    g = Game("octa", rules=rules)
    agent = OctaHeuristicAgent()
    rng = np.random.default_rng(0)
    checked = random_piles = 0
    phases = set()
    for seed in range(12):
        s = g.new_state(seed)
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            p = g.acting_player(s)
            mask = g.legal_mask(s, p).astype(np.uint8)
            before = s.tobytes()
            compiled = int(octa_playout(g.clone(s), p, mask, int(mask.sum())))
            assert s.tobytes() == before
            assert mask[compiled], g.action_to_string(s, compiled)
            agent.rng = _FlagRNG()
            expected = int(agent.act(make_turn(g, s, p, seed)))
            if agent.rng.called:  # the action pile when no top matches: a coin flip in both
                random_piles += 1
                first = en.A_PILE if rules == "en" else nl.N_PILE
                assert {compiled, expected} <= {first, first + 1}
            else:
                assert compiled == expected, (g.render(s), g.action_to_string(s, compiled),
                                              g.action_to_string(s, expected))
                checked += 1
                phases.add(int(s["phase"]))
            # mostly the heuristic's own games (runs and Octas get built), with random moves mixed in
            g.apply_action(s, expected if rng.random() < 0.8 else int(rng.choice(np.flatnonzero(mask))))
    assert checked > 1000 and random_piles > 50
    assert len(phases) >= 8  # the priorities of most phases were compared
