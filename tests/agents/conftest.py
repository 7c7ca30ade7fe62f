"""Game trees and policies shared by the CFR tests (tree, solver, exploitability, MCCFR, agent)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from octagames.agents.cfr.tree import GameSource, deal_pool, flatten, flatten_spiel
from octagames.core import Game

# 2-player Achten, 12 cards (ranks 7, 8, 9), dealing costs 1 point; the turn bound of 1 per player
# stops the round unscored after the first choice and a swap (a pass or a claw leads to the showdown)
ACHTEN_POOL = dict(num_players=2, ranks=3, low_rank=7, turn_cap=1, deal_penalty=1.0)


@pytest.fixture(scope="session")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, flatten_spiel(game)


@pytest.fixture(scope="session")
def tiny_octrix():
    """One round, 2 players, the four aces (one per suit), two cards each: 6 deals, 2 tricks."""
    game = Game("octrix-round", num_players=2, ranks=1, hand_size=2)
    return game, flatten(GameSource(game))


@pytest.fixture(scope="session")
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


@pytest.fixture(scope="session")
def achten_pool_per_view():
    """Six deals: two hands of the first chooser, three deals it cannot tell apart each."""
    game = Game("achten", **ACHTEN_POOL)
    roots = deal_pool(game, 6, seed=1, per_view=3)
    return game, roots, flatten(GameSource(game, roots=roots))


@pytest.fixture(scope="session")
def random_policy():
    """``random_policy(tree, seed)``: a random fully mixed policy, one probability per slot."""

    def make(tree, seed):
        rng = np.random.default_rng(seed)
        w = rng.gamma(0.5, size=tree.num_slots) + 1e-9
        sums = np.repeat(np.add.reduceat(w, tree.infoset_start), tree.infoset_num)
        return w / sums

    return make
