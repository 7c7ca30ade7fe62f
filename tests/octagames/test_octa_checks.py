"""Octa's compiled self-check (``rules.checked_play``) over thousands of random games of each rulebook.

``checked_play(config)`` plays a game with uniformly random legal actions and runs
``checks.validate`` (all 104 cards in exactly one place, every run valid) after
every action; it is compiled over one rulebook's kernels, by the warm-up.
"""

from __future__ import annotations

import numpy as np
import pytest

from octagames.core import Game
from octagames.octa import Config, checks, common as C, en
from octagames.octa.rules import checked_play

# the most actions one turn may take, and the end reasons random play must reach (1: a win, 2: the stock)
BOUNDS = {"en": (en.TURN_ACTION_BOUND, (1, 2)), "nl": (300, (2,))}


@pytest.mark.parametrize("rules", sorted(BOUNDS))
def test_random_play_conserves_cards_keeps_runs_valid_and_terminates(rules):
    game = Game("octa", rules=rules)
    random_game = checked_play(Config(rules=rules))
    most_in_a_turn, reached = BOUNDS[rules]
    st = np.zeros(4, dtype=np.int64)
    reasons = {1: 0, 2: 0, 3: 0}
    for seed in range(2000):
        s = game.new_state(seed)
        err = random_game(s, game.max_game_length, st)
        assert err == checks.OK, (seed, checks.ERROR_NAMES[err])
        assert game.is_terminal(s) and abs(game.returns(s).sum()) < 1e-12
        assert st[3] <= most_in_a_turn
        reasons[int(s["end_reason"])] += 1
    assert all(reasons[r] > 0 for r in reached), reasons


def test_turn_cap_ends_the_game_like_the_stock():
    g = Game("octa", rules="en", max_turns=3)
    s = g.new_state(1)
    st = np.zeros(4, dtype=np.int64)
    assert checked_play(g.config)(s, 10_000, st) == checks.OK
    assert int(s["turn"]) == 3 and int(s["end_reason"]) == 3  # 28 cards cannot be laid in 3 turns
    a, b = int(C.table_faceup(s, 0)), int(C.table_faceup(s, 1))
    assert list(g.returns(s)) == ([1.0, -1.0] if a > b else [-1.0, 1.0] if b > a else [0.0, 0.0])
