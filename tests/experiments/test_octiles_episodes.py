"""The Octiles episode figures of ``docs/faces.md``: what the script counts is what the episodes were."""

from __future__ import annotations

import pytest

from octagames.experiments.octiles_episodes import episodes


def test_heuristic_episodes_end_by_the_rules_and_pay_their_returns():
    row = episodes(players=2, learner="heuristic", opponents="heuristic", count=3, seed=0)
    assert row["episodes"] == 3 and row["truncated"] == 0.0  # heuristic games never reach the cap
    assert row["won"] + row["lost"] == pytest.approx(1.0)  # 2 players: +1 or -1, no draw
    assert row["mean_return"] == pytest.approx(row["won"] - row["lost"])
    median, p90, longest = row["turns"]
    assert 0 < median <= p90 <= longest < 500
    assert row["steps"][2] <= 2 * longest + 8  # a place and a move per own turn, plus setup choices


def test_a_short_cap_truncates_random_episodes_with_return_zero():
    row = episodes(players=2, learner="random", opponents="random", count=4, seed=0, max_turns=6)
    assert row["truncated"] == 1.0 and row["mean_return"] == 0.0 and row["turns"] == [6, 6, 6]
