"""Tests of octagames.agents.cfr.mccfr: sampled CFR lowers NashConv, checkpoints, full-size games."""

from __future__ import annotations

import numpy as np
import pytest

from octagames.agents.cfr.exploitability import nash_conv
from octagames.agents.cfr import mccfr
from octagames.agents.cfr.mccfr import MCCFRSolver
from octagames.agents.cfr.tabular import KEY_BYTES, infoset_key
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
    reads = []
    with pytest.MonkeyPatch.context() as m:  # an npz decompresses a whole array on every access
        get = np.lib.npyio.NpzFile.__getitem__
        m.setattr(np.lib.npyio.NpzFile, "__getitem__", lambda z, name: reads.append(name) or get(z, name))
        b = MCCFRSolver.load(tmp_path / "mc.npz", game)
    assert len(a.masks) > 8 and sorted(reads) == sorted(set(reads))  # each array read once, not once per key
    assert b.iteration == 20 and set(b.masks) == set(a.masks)
    for key in a.masks:
        np.testing.assert_array_equal(a.regrets[key], b.regrets[key])
        np.testing.assert_array_equal(a.strategy_sum[key], b.strategy_sum[key])


def test_mccfr_runs_on_a_full_size_octrix_round():
    game = Game("octrix-round", num_players=2)
    solver = MCCFRSolver(game, "outcome", seed=0)
    solver.iterate(5)
    assert len(solver.masks) >= 5 * 2 * 8  # one information set per step of each episode



def test_keys_are_digests_and_a_checkpoint_of_whole_observations_still_loads(tmp_path, monkeypatch):
    # Achten's observation is 25 kB: a table keyed by whole observations took 10 GB after 20,000
    # iterations; its keys are 16-byte digests of the observation instead
    game = Game("achten", num_players=2, deal_penalty=1)
    a = MCCFRSolver(game, "outcome", seed=1)
    a.iterate(30)
    assert len(a.masks) > 30 and all(len(k[1]) == KEY_BYTES for k in a.masks)
    # a checkpoint written before the digests, keyed by whole observations, loads keyed by digests
    with monkeypatch.context() as m:
        m.setattr(mccfr, "infoset_key", lambda obs: np.ascontiguousarray(obs).tobytes())
        old = MCCFRSolver(game, "outcome", seed=1)
        old.iterate(30)
        old.save(tmp_path / "old.npz")
    assert all(len(k[1]) == 4 * game.observation_size for k in old.masks)
    b = MCCFRSolver.load(tmp_path / "old.npz", game)
    assert set(b.masks) == set(a.masks)  # the same seed visits the same information sets
    for p, k in old.masks:
        np.testing.assert_array_equal(b.strategy_sum[(p, infoset_key(k))], old.strategy_sum[(p, k)])
        np.testing.assert_array_equal(a.regrets[(p, infoset_key(k))], old.regrets[(p, k)])


def test_episodes_too_long_for_the_sampling_are_refused_and_leave_finite_tables():
    # outcome sampling gave NaN regrets on an Octrix match (iteration 17 here) and Octa's first episode, and
    # the cfr agent then played their NaN rows uniformly; Octiles' episodes passed Python's recursion limit
    match = MCCFRSolver(Game("octrix"), "outcome", seed=0)
    with pytest.raises(ValueError, match=r"cannot weigh an episode of \d+ decisions of octrix"):
        for _ in range(200):
            match.iterate(1)
    assert 10 <= match.iteration < 200 and len(match.masks) == len(match.regrets) == len(match.strategy_sum)
    tables = [*match.regrets.values(), *match.strategy_sum.values()]
    assert all(np.isfinite(t).all() for t in tables)
    octa = MCCFRSolver(Game("octa"), "outcome", seed=0)
    rows, episode = [], octa._outcome
    octa._outcome = lambda p: rows.append(len(octa.masks)) or episode(p)  # the rows before each episode
    with pytest.raises(ValueError, match="shorter games"):
        octa.iterate(1)
    assert octa.iteration == 0 and len(octa.masks) == len(octa.regrets) == rows[-1]  # the refused: no row
    with pytest.raises(ValueError, match="external sampling met an episode of octiles deeper than Python's"):
        MCCFRSolver(Game("octiles"), "external", seed=0).iterate(1)
