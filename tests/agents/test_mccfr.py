"""Tests of octagames.agents.mccfr: sampled CFR lowers NashConv, checkpoints, full-size games."""

from __future__ import annotations

import numpy as np
import pytest

from octagames.agents.exploitability import nash_conv
from octagames.agents.mccfr import MCCFRSolver
from octagames.core import Game


@pytest.mark.parametrize("sampling,iterations,bound", [("external", 300, 0.2), ("outcome", 1000, 0.15)])
def test_mccfr_reduces_nash_conv(tiny_octrix, sampling, iterations, bound):
    game, tree = tiny_octrix
    solver = MCCFRSolver(game, sampling, seed=1)
    solver.iterate(iterations)
    pol = solver.table_policy().to_tree(tree)
    uniform = nash_conv(tree, tree.uniform_policy())
    assert nash_conv(tree, pol) < bound < uniform


def test_mccfr_checkpoint_round_trip(tmp_path, tiny_octrix):
    game, _ = tiny_octrix
    a = MCCFRSolver(game, "external", seed=4)
    a.iterate(20)
    a.save(tmp_path / "mc.npz")
    b = MCCFRSolver.load(tmp_path / "mc.npz", game)
    assert b.iteration == 20 and set(b.masks) == set(a.masks)
    for key in a.masks:
        np.testing.assert_array_equal(a.regrets[key], b.regrets[key])
        np.testing.assert_array_equal(a.strategy_sum[key], b.strategy_sum[key])


def test_mccfr_runs_on_full_size_octrix():
    game = Game("octrix", num_players=2)
    solver = MCCFRSolver(game, "outcome", seed=0)
    solver.iterate(5)
    assert len(solver.masks) >= 5 * 2 * 8  # one information set per step of each episode
