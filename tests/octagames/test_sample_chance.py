"""``sample_chance`` draws only at chance nodes, the same way in every game.

At a decision node or at the end, :meth:`Game.sample_chance` raises ``ValueError``
("not a chance node") and every compiled ``sample_chance`` kernel returns -1 without
drawing: the record, its RNG included, is unchanged (Octrix used to return a card and
advance the RNG).
"""

from __future__ import annotations

import numpy as np
import pytest

from octagames.core import Game

CONFIGS = [("octrix", {}), ("octrix", dict(num_players=4, partnership=True)), ("achten", dict(num_players=3)),
           ("octiles", {}), ("octa", dict(rules="en")), ("octa", dict(rules="nl"))]


@pytest.mark.parametrize("name, cfg", CONFIGS, ids=[f"{n}-{c}" for n, c in CONFIGS])
def test_sample_chance_draws_only_at_chance_nodes(name, cfg):
    game = Game(name, **cfg)
    rng = np.random.default_rng(0)
    seen = {"chance": 0, "decision": 0}
    for seed in range(2):
        s = game.new_state(seed)
        for _ in range(400):
            before = s.tobytes()
            if game.is_terminal(s):
                with pytest.raises(ValueError, match="not a chance node: the game is over"):
                    game.sample_chance(s)
            elif game.is_chance(s):
                outcome = game.sample_chance(s)
                assert outcome in dict(game.chance_outcomes(s)) and s.tobytes() != before  # it drew
                game.apply_action(s, outcome)
                seen["chance"] += 1
                continue
            else:
                with pytest.raises(ValueError, match=r"not a chance node: (player \d is to act|the players move)"):
                    game.sample_chance(s)
                seen["decision"] += 1
            assert int(game.kernels.sample_chance(s)) == -1
            assert s.tobytes() == before  # no draw: the record's RNG is untouched
            if game.is_terminal(s):
                break
            game.apply_action(s, int(rng.choice(game.legal_actions(s))))
    assert seen["chance"] and seen["decision"]
