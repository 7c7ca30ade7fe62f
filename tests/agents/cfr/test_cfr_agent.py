"""Tests of octagames.agents.cfr.agent and octagames.agents.cfr.tabular: the table, the agent, its registry spec."""

from __future__ import annotations

import re

import numpy as np
import pytest

from octagames.agents.base import make_turn
from octagames.agents.cfr.solver import CFRSolver
from octagames.agents.cfr.agent import CFRAgent
from octagames.agents.cfr.exploitability import nash_conv
from octagames.agents.search.octrix_solver import OctrixOracleAgent
from octagames.agents.registry import make_agent
from octagames.agents.cfr.tabular import TablePolicy, infoset_key


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
    key = (0, infoset_key(turn.observation))
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
    assert len(mc.policy) > 0 and mc.name == "cfr:50:external"  # named as its registry spec


def test_registry_builds_cfr_and_oracle_agents():
    assert isinstance(make_agent("cfr:3", "octrix"), CFRAgent)
    assert isinstance(make_agent("oracle", "octrix"), OctrixOracleAgent)
    with pytest.raises(ValueError, match="only available for octrix"):
        make_agent("oracle", "achten")


def test_the_cfr_spec_trains_on_the_variant_it_will_play_and_refuses_another_config():
    from octagames.core import Game
    small = dict(ranks=2, hand_size=2)
    by_name = make_agent("cfr:2", "achten-dealer-pays")  # a name: the variant's config, not the game's default
    assert by_name.trained_on.config == Game("achten-dealer-pays").config
    assert by_name.trained_on.config.deal_penalty == 1.0
    agent = make_agent("cfr:2", Game("octrix-round", **small))
    assert agent.trained_on.config == Game("octrix-round", **small).config
    agent.check_game(Game("octrix-round", **small))  # its own config plays
    other = Game("octrix-round", ranks=3, hand_size=2)
    with pytest.raises(ValueError, match=r"cfr:2 was trained on octrix-round-small-2p.*"
                                         r"ranks=3 here, 2 in training"):
        agent.check_game(other)
    with pytest.raises(ValueError, match="ranks=2 here, 3 in training"):
        make_agent("cfr:2", other).check_game(Game("octrix-round", **small))
    lenient = make_agent("cfr:2", Game("octrix-round", **small), allow_config_mismatch=True)
    with pytest.warns(UserWarning, match="playing it anyway") as seen:
        lenient.check_game(other)
        lenient.check_game(other)  # the check at every reset warns once per config
        lenient.check_game(Game("octrix-round", **{**small, "dealer": 1}))
    assert [re.search(r"\((.*) in training\)", str(w.message)).group(1) for w in seen] == \
        ["ranks=3 here, 2", "dealer=1 here, 0"]


def test_a_cfr_agent_built_by_name_refuses_another_config_at_the_first_reset():
    from octagames.core import Game
    agent = make_agent("cfr:2", "achten")  # a name: no check yet, it waits for the first game
    agent.reset(Game("achten"), 0, seed=0)  # the config it trained on plays
    with pytest.raises(ValueError, match="deal_penalty=1.0 here, 0.01 in training"):
        agent.reset(Game("achten-dealer-pays"), 0, seed=0)


def test_a_cfr_spec_built_again_shares_its_table_instead_of_training_again(monkeypatch):
    """A warm start built ``cfr:N`` once to check the spec, then once a seat for its teacher games: it trained
    each time (the same seed: the same table)."""
    import gc
    import threading
    import weakref

    from octagames.agents.cfr import agent as cfr_agent
    from octagames.agents.cfr.mccfr import MCCFRSolver
    from octagames.core import Game

    trained = []
    iterate = MCCFRSolver.iterate

    def counted(self, n, *args, **kwargs):
        trained.append(n)
        return iterate(self, n, *args, **kwargs)

    monkeypatch.setattr(MCCFRSolver, "iterate", counted)
    monkeypatch.setattr(cfr_agent, "_TRAINED", weakref.WeakValueDictionary())
    monkeypatch.setattr(cfr_agent, "_NEWEST", [])
    small = Game("octrix-round", ranks=2, hand_size=2)
    first = make_agent("cfr:7", small)
    second = make_agent("cfr:7", Game("octrix-round", ranks=2, hand_size=2))  # another Game, the same config
    assert trained == [7] and second.policy is first.policy and second is not first
    assert second.name == "cfr:7" and second.trained_on.config == small.config
    alone = CFRAgent.mccfr(small, iterations=7)  # what training again would have given
    assert alone.policy.table.keys() == first.policy.table.keys()
    assert all(np.array_equal(alone.policy.table[k][1], first.policy.table[k][1]) for k in alone.policy.table)
    others = [make_agent("cfr:7:external", small), make_agent("cfr:8", small),  # each trains its own
              make_agent("cfr:7", Game("octrix-round", ranks=3, hand_size=2))]
    assert trained == [7, 7, 7, 8, 7] and len({id(a.policy) for a in others}) == 3
    # a table no agent holds is freed but for the newest: built again, the others train again
    del first, second, others
    gc.collect()
    newest = Game("octrix-round", ranks=3, hand_size=2)
    assert list(cfr_agent._TRAINED) == [("octrix", newest.config, 7, "outcome")]
    make_agent("cfr:7", newest)  # an evaluation building its opponent again
    assert trained == [7, 7, 7, 8, 7]
    make_agent("cfr:7", small)
    assert trained == [7, 7, 7, 8, 7, 7]
    # agents built at once on several threads (the web app's) train one table
    built: list = []
    threads = [threading.Thread(target=lambda: built.append(make_agent("cfr:9", small))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert trained[-1] == 9 and trained.count(9) == 1 and len({id(a.policy) for a in built}) == 1
