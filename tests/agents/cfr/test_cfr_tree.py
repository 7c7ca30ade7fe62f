"""Tests of octagames.agents.cfr.tree: tree shape, chance collapsing, deal pools."""

from __future__ import annotations

import numpy as np
import pytest

from octagames.agents.cfr.solver import expected_values
from octagames.agents.cfr import tree as tree_module
from octagames.agents.cfr.tree import GameSource, MemoryFull, deal_pool, flatten
from octagames.agents.cfr.exploitability import nash_conv
from octagames.agents.cfr.tabular import TablePolicy
from octagames.core import Game


def test_kuhn_tree_shape(kuhn):
    _, tree = kuhn
    assert tree.num_infosets == 12 and tree.num_slots == 24
    # nodes are ordered by depth: every child comes after its parent
    kids = np.flatnonzero(tree.num_children)
    assert np.all(tree.child_start[kids] > kids)
    assert tree.depth_offsets[-1] == tree.num_nodes


def test_collapsed_and_full_chance_trees_agree(random_policy, tiny_octrix):
    game, tree = tiny_octrix
    full = flatten(GameSource(game, collapse_chance=False))
    assert full.num_nodes > tree.num_nodes and full.num_infosets == tree.num_infosets
    pol = random_policy(tree, 3)
    as_full = TablePolicy.from_tree(tree, pol).to_tree(full)
    assert nash_conv(full, as_full) == pytest.approx(nash_conv(tree, pol), abs=1e-12)
    np.testing.assert_allclose(expected_values(full, as_full), expected_values(tree, pol), atol=1e-12)


# ---------------------------------------------------------------- deal pools

def test_deal_pool_is_reproducible_distinct_and_post_deal(achten_pool):
    game = achten_pool[0]
    a, b = deal_pool(game, 10, seed=3), deal_pool(game, 10, seed=3)
    assert [r.tobytes() for r in a] == [r.tobytes() for r in b]
    assert len({r.tobytes() for r in a}) == 10
    assert all(game.current_player(r) == 1 for r in a)  # the first chooser, left of dealer 0
    assert [r.tobytes() for r in deal_pool(game, 10, seed=4)] != [r.tobytes() for r in a]
    with pytest.raises(ValueError, match="k=0"):
        deal_pool(game, 0)
    with pytest.raises(ValueError, match="per_view=0"):
        deal_pool(game, 4, per_view=0)
    tiny = Game("octrix-round", num_players=2, ranks=1, hand_size=2)  # 6 deals only
    with pytest.raises(ValueError, match="distinct deals"):
        deal_pool(tiny, 7, max_tries=200)


def test_pool_tree_is_a_uniform_chance_node_over_the_deals(random_policy, achten_pool):
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


def test_per_view_pools_merge_the_first_choice(achten_pool_per_view):
    game, roots, tree = achten_pool_per_view
    views = {game.observation(r, 1).tobytes() for r in roots}
    assert len(roots) == 6 and len({r.tobytes() for r in roots}) == 6 and len(views) == 2
    first_chooser = (tree.infoset_own_depth == 0) & (tree.infoset_player == 1)
    assert first_chooser.sum() == 2
    # the deals of one view differ in what the chooser cannot see (pot slots 18-20)
    assert len({tuple(r["slot_card"][18:21]) for r in roots}) > 2


def test_a_walk_is_refused_when_it_fills_its_share_of_the_memory(monkeypatch, tmp_path, capsys):
    """Exact CFR's walk of octrix-round (the full deal) was killed by the system after 13 minutes and 24 GB: its
    node bound, 20M, takes 30-40 GB at 1.5-2 kB a node. The walk is refused when the process has grown by
    ``max_bytes``, by default half the memory available when it begins."""
    source = GameSource(Game("octrix-round"))
    with pytest.raises(MemoryFull, match=r"GiB of memory holding [\d,]+ states, past its limit of 0.06 GiB"):
        flatten(source, max_bytes=64 * 2**20)
    monkeypatch.setattr(tree_module, "available_memory", lambda: 128 * 2**20)
    with pytest.raises(MemoryFull, match=r"limit of 0.06 GiB \(max_bytes; by default 50% of the memory available"):
        flatten(source)
    with pytest.raises(ValueError, match=r"max_bytes=0 is not valid; it must be >= 1"):
        flatten(source, max_bytes=0)
    # the script says so before its walk, and refuses in those words (a ValueError: one line, exit status 2)
    from octagames.experiments.train_cfr import TrainCFRConfig, main
    monkeypatch.setattr("octagames.experiments.train_cfr.available_memory", lambda: 128 * 2**20)
    with pytest.raises(MemoryFull, match="past its limit of 0.06 GiB"):
        main(TrainCFRConfig(game="octrix-round", iterations=1, run_dir=str(tmp_path / "run"), progress=False))
    assert "refused past 20,000,000 nodes or 0.1 GiB of memory" in capsys.readouterr().out
