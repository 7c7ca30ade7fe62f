"""Tests of octagames.agents.cfr.solver: known answers, the same policies as OpenSpiel's solvers, the recursive reference, checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr

from octagames.agents.cfr.solver import VARIANTS, CFRConfig, CFRSolver, reference_cfr
from octagames.agents.cfr.tree import GameSource, flatten, flatten_spiel
from octagames.agents.cfr.exploitability import nash_conv
from octagames.core import Game


def openspiel_slots(tree, tabular):
    """An OpenSpiel TabularPolicy read back into our slot order."""
    return np.concatenate(
        [
            tabular.policy_for_key(k)[
                tree.slot_action[tree.infoset_start[i] : tree.infoset_start[i] + tree.infoset_num[i]]
            ]
            for i, k in enumerate(tree.keys)
        ]
    )


# ---------------------------------------------------------------- known answers

def test_kuhn_cfr_plus_value_converges_to_minus_1_18(kuhn):
    _, tree = kuhn
    solver = CFRSolver(tree, CFRConfig("cfr+"))
    solver.iterate(1000)
    v = solver.root_values()
    assert abs(v[0] + 1 / 18) < 1e-3
    assert v[0] + v[1] == pytest.approx(0.0, abs=1e-12)
    assert nash_conv(tree, solver.average_policy()) < 1e-3


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_converges_on_kuhn(kuhn, variant):
    _, tree = kuhn
    solver = CFRSolver(tree, CFRConfig(variant))
    solver.iterate(300)
    assert nash_conv(tree, solver.average_policy()) < 0.01


def test_bad_variant_is_refused():
    with pytest.raises(ValueError, match="variant"):
        CFRConfig("cfr++")


def test_cfr_solves_an_achten_deal_pool(achten_pool):
    game, roots, tree = achten_pool
    solver = CFRSolver(tree, CFRConfig("cfr+"))
    solver.iterate(300)
    assert nash_conv(tree, solver.average_policy()) < 1e-3 < nash_conv(tree, tree.uniform_policy())
    v = solver.root_values()
    assert v.sum() == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------- OpenSpiel agrees

@pytest.mark.parametrize(
    "variant,factory",
    [
        ("cfr", lambda g: os_cfr.CFRSolver(g)),
        ("cfr+", lambda g: os_cfr.CFRPlusSolver(g)),
        ("linear", lambda g: os_dcfr.LCFRSolver(g)),
        ("dcfr", lambda g: os_dcfr.DCFRSolver(g)),
    ],
)
def test_same_policies_as_openspiel_solvers(kuhn, variant, factory):
    game, tree = kuhn
    theirs = factory(game)
    ours = CFRSolver(tree, CFRConfig(variant))
    for _ in range(15):
        theirs.evaluate_and_update_policy()
    ours.iterate(15)
    np.testing.assert_allclose(
        ours.average_policy(), openspiel_slots(tree, theirs.average_policy()), atol=1e-10
    )
    np.testing.assert_allclose(
        ours.current_policy(), openspiel_slots(tree, theirs.current_policy()), atol=1e-10
    )


def test_simultaneous_updates_match_openspiel(kuhn):
    game, tree = kuhn
    theirs = os_cfr._CFRSolver(
        game, alternating_updates=False, linear_averaging=False, regret_matching_plus=False
    )
    ours = CFRSolver(tree, CFRConfig("cfr", alternating=False))
    for _ in range(10):
        theirs.evaluate_and_update_policy()
    ours.iterate(10)
    np.testing.assert_allclose(
        ours.average_policy(), openspiel_slots(tree, theirs.average_policy()), atol=1e-12
    )


# ---------------------------------------------------------------- reference implementation

@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("alternating", [True, False])
def test_vectorised_equals_recursive_reference(kuhn, variant, alternating):
    _, tree = kuhn
    cfg = CFRConfig(variant, alternating=alternating)
    solver = CFRSolver(tree, cfg)
    solver.iterate(6)
    regrets, strategy_sum = reference_cfr(tree, cfg, 6)
    np.testing.assert_allclose(solver.regrets, regrets, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(solver.strategy_sum, strategy_sum, rtol=1e-12, atol=1e-12)


def test_vectorised_equals_recursive_reference_on_an_octrix_deal():
    game = Game("octrix-round", num_players=2, ranks=2, hand_size=3)
    s = game.new_state(3)
    game.play_chance(s)
    tree = flatten(GameSource(game, root=s))
    assert tree.kind[0] == 2  # rooted at the first decision
    cfg = CFRConfig("cfr")
    solver = CFRSolver(tree, cfg)
    solver.iterate(4)
    regrets, _ = reference_cfr(tree, cfg, 4)
    np.testing.assert_allclose(solver.regrets, regrets, rtol=1e-12, atol=1e-12)
    assert np.abs(regrets).max() > 0


# ---------------------------------------------------------------- checkpoints

def test_checkpoint_round_trip(tmp_path, kuhn):
    _, tree = kuhn
    a = CFRSolver(tree, CFRConfig("dcfr", alpha=2.0))
    a.iterate(7)
    a.save(tmp_path / "ck.npz")
    b = CFRSolver.load(tmp_path / "ck.npz", tree)
    assert b.iteration == 7 and b.config == a.config
    a.iterate(5)
    b.iterate(5)
    np.testing.assert_array_equal(a.regrets, b.regrets)
    np.testing.assert_array_equal(a.strategy_sum, b.strategy_sum)
    with pytest.raises(ValueError, match="different game tree"):
        CFRSolver.load(tmp_path / "ck.npz", flatten_spiel("leduc_poker"))
