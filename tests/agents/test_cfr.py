"""Tests of octagames.agents.cfr: known answers, OpenSpiel cross-checks, reference implementation, checkpoints."""

from __future__ import annotations

import warnings

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr
from open_spiel.python.algorithms import exploitability

from octagames.agents.base import make_turn
from octagames.agents.cfr import (
    VARIANTS,
    CFRAgent,
    CFRConfig,
    CFRSolver,
    GameSource,
    MCCFRSolver,
    TablePolicy,
    adapter_policy,
    agent_policy,
    best_response_value,
    deal_pool,
    expected_values,
    flatten,
    flatten_spiel,
    nash_conv,
    reference_cfr,
    to_openspiel_policy,
)
from octagames.core import Game

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import octagames.envs.openspiel as eo


@pytest.fixture(scope="module")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, flatten_spiel(game)


@pytest.fixture(scope="module")
def tiny_octrix():
    """2 players, the four aces (one per suit), two cards each: 6 deals, 2 tricks."""
    game = Game("octrix", num_players=2, ranks=1, hand_size=2)
    return game, flatten(GameSource(game))


def random_policy(tree, seed):
    """A random fully mixed policy, one probability per slot."""
    rng = np.random.default_rng(seed)
    w = rng.gamma(0.5, size=tree.num_slots) + 1e-9
    sums = np.repeat(np.add.reduceat(w, tree.infoset_start), tree.infoset_num)
    return w / sums


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
def test_kuhn_tree_shape(kuhn):
    _, tree = kuhn
    assert tree.num_infosets == 12 and tree.num_slots == 24
    # nodes are ordered by depth: every child comes after its parent
    kids = np.flatnonzero(tree.num_children)
    assert np.all(tree.child_start[kids] > kids)
    assert tree.depth_offsets[-1] == tree.num_nodes


def test_kuhn_uniform_nash_conv_is_11_12(kuhn):
    game, tree = kuhn
    uniform = tree.uniform_policy()
    assert nash_conv(tree, uniform) == pytest.approx(11 / 12, abs=1e-12)
    assert exploitability.nash_conv(game, to_openspiel_policy(tree, uniform, game)) == pytest.approx(11 / 12)


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


# ---------------------------------------------------------------- OpenSpiel agrees
def test_nash_conv_equals_openspiel_on_kuhn_policies(kuhn):
    game, tree = kuhn
    solver = CFRSolver(tree, CFRConfig("cfr"))
    solver.iterate(3)
    policies = [tree.uniform_policy(), solver.average_policy(), solver.current_policy()]
    policies += [random_policy(tree, s) for s in range(3)]
    for pol in policies:
        ours = nash_conv(tree, pol)
        theirs = exploitability.nash_conv(game, to_openspiel_policy(tree, pol, game))
        assert abs(ours - theirs) < 1e-6


def test_nash_conv_equals_openspiel_on_leduc():
    game = pyspiel.load_game("leduc_poker")
    tree = flatten_spiel(game)
    assert tree.num_infosets == 936
    pol = random_policy(tree, 7)
    theirs = exploitability.nash_conv(game, to_openspiel_policy(tree, pol, game))
    assert abs(nash_conv(tree, pol) - theirs) < 1e-6


def test_nash_conv_equals_openspiel_on_small_octrix_through_adapter(tiny_octrix):
    game, tree = tiny_octrix
    spiel_game = pyspiel.convert_to_turn_based(eo.load("octrix", num_players=2, ranks=1, hand_size=2))
    solver = CFRSolver(tree)
    solver.iterate(2)
    for pol in [
        tree.uniform_policy(),
        solver.average_policy(),
        random_policy(tree, 1),
        random_policy(tree, 2),
    ]:
        ours = nash_conv(tree, pol)
        theirs = exploitability.nash_conv(spiel_game, adapter_policy(tree, pol, spiel_game, game))
        assert abs(ours - theirs) < 1e-6
    assert nash_conv(tree, tree.uniform_policy()) > 1.0  # random play is very exploitable
    # and on the (deterministic) heuristic agent's policy, read off the agent itself
    from octagames.agents.heuristic_octrix import OctrixHeuristicAgent

    heuristic = agent_policy(game, tree, OctrixHeuristicAgent())
    assert set(np.unique(heuristic)) == {0.0, 1.0}
    assert np.allclose(np.add.reduceat(heuristic, tree.infoset_start), 1.0)
    theirs = exploitability.nash_conv(spiel_game, adapter_policy(tree, heuristic, spiel_game, game))
    assert abs(nash_conv(tree, heuristic) - theirs) < 1e-6


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
    game = Game("octrix", num_players=2, ranks=2, hand_size=3)
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


# ---------------------------------------------------------------- tree and best response
def test_collapsed_and_full_chance_trees_agree(tiny_octrix):
    game, tree = tiny_octrix
    full = flatten(GameSource(game, collapse_chance=False))
    assert full.num_nodes > tree.num_nodes and full.num_infosets == tree.num_infosets
    pol = random_policy(tree, 3)
    as_full = TablePolicy.from_tree(tree, pol).to_tree(full)
    assert nash_conv(full, as_full) == pytest.approx(nash_conv(tree, pol), abs=1e-12)
    np.testing.assert_allclose(expected_values(full, as_full), expected_values(tree, pol), atol=1e-12)


def test_best_response_is_at_least_every_pure_deviation(kuhn):
    _, tree = kuhn
    pol = random_policy(tree, 11)
    br0 = best_response_value(tree, pol, 0)
    for _ in range(20):  # random deviations of player 0 never beat the best response
        dev = pol.copy()
        mine = np.flatnonzero(tree.infoset_player == 0)
        rng = np.random.default_rng(_)
        for i in mine:
            s0, m = tree.infoset_start[i], tree.infoset_num[i]
            dev[s0 : s0 + m] = np.eye(m)[rng.integers(m)]
        assert expected_values(tree, dev)[0] <= br0 + 1e-12


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


# ---------------------------------------------------------------- MCCFR
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


# ---------------------------------------------------------------- agents
def test_cfr_agent_plays_the_table_and_uniform_when_unseen(tiny_octrix):
    game, tree = tiny_octrix
    solver = CFRSolver(tree)
    solver.iterate(50)
    table = TablePolicy.from_tree(tree, solver.average_policy())
    np.testing.assert_allclose(table.to_tree(tree), solver.average_policy())
    agent = CFRAgent(table)
    s = game.new_state(5)
    game.play_chance(s)
    agent.reset(game, 0, seed=0)
    turn = make_turn(game, s, 0, seed=1)
    key = (0, turn.observation.tobytes())
    acts, probs = table.table[key]
    counts = np.zeros(game.num_actions)
    for _ in range(400):
        a = agent.act(turn)
        assert turn.legal_mask[a]
        counts[a] += 1
    np.testing.assert_allclose(counts[acts] / 400, probs, atol=0.1)
    empty = CFRAgent(TablePolicy({}))
    np.testing.assert_allclose(empty.policy.probabilities(0, b"?", turn.legal_actions), 0.5)


def test_cfr_agent_constructors(tiny_octrix):
    game, tree = tiny_octrix
    exact = CFRAgent.exact(game, iterations=200)
    assert nash_conv(tree, exact.policy.to_tree(tree)) < 0.05
    mc = CFRAgent.mccfr(game, iterations=50, sampling="external")
    assert len(mc.policy) > 0 and "external" in mc.name


def test_registry_builds_cfr_and_oracle_agents():
    from octagames.agents.octrix_solver import OctrixOracleAgent
    from octagames.agents.registry import make_agent

    assert isinstance(make_agent("cfr:3", "octrix"), CFRAgent)
    assert isinstance(make_agent("oracle", "octrix"), OctrixOracleAgent)
    with pytest.raises(ValueError, match="only available for octrix"):
        make_agent("oracle", "achten")


# ---------------------------------------------------------------- Achten deal pools
# 2-player Achten, 12 cards (ranks 7, 8, 9), dealing costs 1 point; the turn bound of 1 per player
# stops the round unscored after the first choice and a swap (a pass or a claw leads to the showdown)
ACHTEN_POOL = dict(num_players=2, ranks=3, low_rank=7, turn_cap=1, deal_penalty=1.0)


@pytest.fixture(scope="module")
def achten_pool():
    """Six deals, two of which give the first chooser (seat 1) the same hand."""
    game = Game("achten", **ACHTEN_POOL)
    pool = deal_pool(game, 64, seed=0)
    by_view: dict[bytes, list] = {}
    for r in pool:
        by_view.setdefault(game.observation(r, 1).tobytes(), []).append(r)
    pair = next(v for v in by_view.values() if len(v) >= 2)[:2]
    roots = pair + [r for r in pool if not any(r is q for q in pair)][:4]
    return game, roots, flatten(GameSource(game, roots=roots))


@pytest.fixture(scope="module")
def achten_pool_per_view():
    """Six deals: two hands of the first chooser, three deals it cannot tell apart each."""
    game = Game("achten", **ACHTEN_POOL)
    roots = deal_pool(game, 6, seed=1, per_view=3)
    return game, roots, flatten(GameSource(game, roots=roots))


def test_deal_pool_is_reproducible_distinct_and_post_deal():
    game = Game("achten", **ACHTEN_POOL)
    a, b = deal_pool(game, 10, seed=3), deal_pool(game, 10, seed=3)
    assert [r.tobytes() for r in a] == [r.tobytes() for r in b]
    assert len({r.tobytes() for r in a}) == 10
    assert all(game.current_player(r) == 1 for r in a)  # the first chooser, left of dealer 0
    assert [r.tobytes() for r in deal_pool(game, 10, seed=4)] != [r.tobytes() for r in a]
    with pytest.raises(ValueError, match="k=0"):
        deal_pool(game, 0)
    with pytest.raises(ValueError, match="per_view=0"):
        deal_pool(game, 4, per_view=0)
    tiny = Game("octrix", num_players=2, ranks=1, hand_size=2)  # 6 deals only
    with pytest.raises(ValueError, match="distinct deals"):
        deal_pool(tiny, 7, max_tries=200)


def test_pool_tree_is_a_uniform_chance_node_over_the_deals(achten_pool):
    game, roots, tree = achten_pool
    assert tree.kind[0] == 1 and tree.num_children[0] == len(roots)
    np.testing.assert_allclose(tree.edge_prob[1 : 1 + len(roots)], 1 / len(roots))
    # the tree over the pool is the average of the single-deal trees
    singles = [flatten(GameSource(game, root=r)) for r in roots]
    assert tree.num_nodes == 1 + sum(t.num_nodes for t in singles)
    # ... but information sets merge across deals: the chooser's first choice in the pair
    assert tree.num_infosets < sum(t.num_infosets for t in singles)
    first_chooser = (tree.infoset_own_depth == 0) & (tree.infoset_player == 1)
    assert first_chooser.sum() == len(roots) - 1
    pol = random_policy(tree, 5)
    on_single = [expected_values(t, TablePolicy.from_tree(tree, pol).to_tree(t)) for t in singles]
    np.testing.assert_allclose(expected_values(tree, pol), np.mean(on_single, axis=0), atol=1e-12)
    with pytest.raises(ValueError, match="either root or roots"):
        GameSource(game, root=roots[0], roots=roots)
    with pytest.raises(ValueError, match="roots is empty"):
        GameSource(game, roots=[])
    with pytest.raises(ValueError, match="records of achten"):
        GameSource(game, roots=[Game("octrix").new_state(0)])


@pytest.mark.parametrize("pool", ["achten_pool", "achten_pool_per_view"])
def test_nash_conv_equals_openspiel_on_an_achten_deal_pool(pool, request):
    game, roots, tree = request.getfixturevalue(pool)
    spiel_game = eo.load_pool("achten", roots, **ACHTEN_POOL)
    solver = CFRSolver(tree, CFRConfig("cfr"))
    solver.iterate(8)
    from octagames.agents.heuristic_achten import AchtenHeuristicAgent

    heuristic = agent_policy(game, tree, AchtenHeuristicAgent(), roots=roots)
    policies = [
        tree.uniform_policy(),
        random_policy(tree, 1),
        random_policy(tree, 2),
        solver.average_policy(),
        solver.current_policy(),
        heuristic,
    ]
    values = []
    for pol in policies:
        ours = nash_conv(tree, pol)
        wrapped = adapter_policy(tree, pol, spiel_game, game, roots=roots)
        theirs = exploitability.nash_conv(spiel_game, wrapped)
        assert abs(ours - theirs) < 1e-6
        values.append(ours)
    assert values[0] > values[3] > 0  # CFR beats uniform play after 8 iterations
    assert set(np.unique(heuristic)) == {0.0, 1.0}


def test_nash_conv_equals_openspiel_on_a_simultaneous_deal_pool():
    """Octrix (simultaneous moves) through the pool game and ``convert_to_turn_based``."""
    config = dict(num_players=2, ranks=1, hand_size=2)
    game = Game("octrix", **config)
    roots = deal_pool(game, 3, seed=0)
    tree = flatten(GameSource(game, roots=roots))
    spiel_game = pyspiel.convert_to_turn_based(eo.load_pool("octrix", roots, **config))
    for pol in [tree.uniform_policy(), random_policy(tree, 4)]:
        wrapped = adapter_policy(tree, pol, spiel_game, game, roots=roots)
        theirs = exploitability.nash_conv(spiel_game, wrapped)
        assert abs(nash_conv(tree, pol) - theirs) < 1e-6


def test_per_view_pools_merge_the_first_choice(achten_pool_per_view):
    game, roots, tree = achten_pool_per_view
    views = {game.observation(r, 1).tobytes() for r in roots}
    assert len(roots) == 6 and len({r.tobytes() for r in roots}) == 6 and len(views) == 2
    first_chooser = (tree.infoset_own_depth == 0) & (tree.infoset_player == 1)
    assert first_chooser.sum() == 2
    # the deals of one view differ in what the chooser cannot see (pot slots 18-20)
    assert len({tuple(r["slot_card"][18:21]) for r in roots}) > 2


def test_heuristic_achten_decides_from_the_observation_only(achten_pool):
    """The heuristic's choice is the same at every state of an information set."""
    from octagames.agents.heuristic_achten import AchtenHeuristicAgent

    game, roots, tree = achten_pool
    source = GameSource(game, roots=roots)
    index = tree.index()
    agent = AchtenHeuristicAgent()
    choice: dict[int, int] = {}
    stack, asked = [source.root()], 0
    while stack:
        s = stack.pop()
        kind, p = source.node_type(s)
        if kind == 1:
            stack.extend(c for _, c in source.chance_children(s))
        elif kind == 2:
            i = index[(p, source.info_key(s, p))]
            for seed in (0, 1):  # two determinizations of the hidden cards
                assert choice.setdefault(i, agent.act(make_turn(game, s, p, seed))) == choice[i]
                asked += 1
            stack.extend(source.child(s, a) for a in source.legal_actions(s, p))
    assert len(choice) == tree.num_infosets and asked > tree.num_infosets


def test_cfr_solves_an_achten_deal_pool(achten_pool):
    game, roots, tree = achten_pool
    solver = CFRSolver(tree, CFRConfig("cfr+"))
    solver.iterate(300)
    assert nash_conv(tree, solver.average_policy()) < 1e-3 < nash_conv(tree, tree.uniform_policy())
    v = solver.root_values()
    assert v.sum() == pytest.approx(0.0, abs=1e-12)
