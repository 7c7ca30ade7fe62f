"""What agents considered, in the records' thinking format: recorded games of every agent kind that has some.

The one protocol (``octagames.agents.base``): an agent tells its last decision's thinking as
``last_thinking`` (built by ``considered``), ``decide`` hands it to the arena beside the action, and
the records keep it (``docs/records.md``).
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch

from octagames import records
from octagames.agents import base
from octagames.agents.arena import play_game, record_game
from octagames.agents.base import Turn, considered, decide, make_turn
from octagames.agents.cfr.agent import CFRAgent
from octagames.agents.cfr.tabular import infoset_key
from octagames.agents.learn.ppo import ActorCritic, PPOAgent, masked_logits
from octagames.agents.registry import make_agent
from octagames.agents.search.mcts import MCTSAgent, MCTSConfig
from octagames.core import Game, make_game

#: Octrix rounds of two cards each from two ranks: a few decisions, all cheap
TINY = "octrix-round-small"


class KeptMCTS(MCTSAgent):
    """MCTS that keeps every search it made (to compare with what the record kept)."""

    def __init__(self, simulations: int) -> None:
        super().__init__(MCTSConfig(num_simulations=simulations))
        self.searches: list = []

    def act(self, turn: Turn) -> int:
        self.last = None
        action = super().act(turn)
        if self.last is not None:
            self.searches.append(self.last)
        return action


def decisions(record: records.GameRecord, seat: int, forced: bool = False) -> list[tuple[int, np.void]]:
    """``(move index, position)`` of every move of ``seat`` that had a choice (more than one legal action;
    ``forced``: every move of ``seat``)."""
    g = record.make_game()
    positions = records.states(record)
    return [(k, positions[k]) for k, p in enumerate(record.players)
            if p == seat and (forced or len(g.legal_actions(positions[k], p)) > 1)]


def round_trip(record: records.GameRecord) -> records.GameRecord:
    again = records.GameRecord.from_json(json.dumps(json.loads(record.to_json())))
    records.check(again)  # every share, value and prior over legal actions only
    assert again == record
    return again


def test_a_recorded_mcts_game_keeps_every_search_s_visit_shares_and_values(monkeypatch):
    monkeypatch.setattr(base, "THINKING_TOP", 64)  # every visited move, to compare with the search
    game = make_game("achten")
    mcts = KeptMCTS(50)
    record = round_trip(record_game(game, [mcts, make_agent("heuristic", game)], 3))
    moves = decisions(record, 0)
    assert moves and len(mcts.searches) == len(moves)
    assert sorted(record.thinking) == [k for k, _ in moves]  # only MCTS's choices; forced moves tell nothing
    for (k, s), search in zip(moves, mcts.searches):
        told, legal = record.thinking[k], set(game.legal_actions(s, 0))
        assert set(told["policy"]) <= legal and sum(told["policy"].values()) == pytest.approx(1.0, abs=1e-3)
        assert record.actions[k] == search.action and search.action in told["policy"]
        for a, share in told["policy"].items():
            assert share == pytest.approx(search.visits[a] / search.visits.sum(), abs=1e-4)
            assert told["values"][a] == pytest.approx(search.values[a], abs=1e-4)
        assert told["value"] == told["values"][search.action] and told["visits"] == 50
        assert max(told["policy"], key=told["policy"].get) == search.action or \
            told["policy"][search.action] == max(told["policy"].values())


def test_thinking_keeps_the_largest_shares_and_the_chosen_move_only():
    game = make_game("achten")
    s, rng = game.new_state(0), np.random.default_rng(0)
    while game.is_chance(s) or len(game.legal_actions(s)) <= 3:  # the first choice of more than 3 moves
        game.apply_action(s, game.sample_chance(s) if game.is_chance(s) else int(rng.choice(game.legal_actions(s))))
    turn = make_turn(game, s, game.acting_player(s), 0)
    legal = [int(a) for a in turn.legal_actions]
    assert considered(turn, legal[0], policy=np.ones(game.num_actions)) is None  # nobody keeps it: not built
    turn = dataclasses.replace(turn, tell=True)  # as decide asks
    weights = np.zeros(game.num_actions)
    weights[legal] = np.arange(1, len(legal) + 1)  # the last legal action has the largest share
    told = considered(turn, legal[0], policy=weights, top=2)
    assert list(told["policy"]) == [legal[-1], legal[-2], legal[0]]  # the top two, then the chosen one
    assert told["policy"][legal[-1]] == round(len(legal) / weights.sum(), 4)
    with pytest.raises(ValueError, match=f"values has 3 entries; the game has {game.num_actions} actions"):
        considered(turn, legal[0], values=[0.1, 0.2, 0.3])
    values = -weights  # ranked by values the moves kept are the others: the first two legal ones
    told = considered(turn, legal[-1], policy=weights, values=values, top=2, rank="values")
    assert list(told["values"]) == [legal[0], legal[1], legal[-1]] and list(told["policy"]) == list(told["values"])
    with pytest.raises(ValueError, match=r"rank='prior' is not valid; valid values: \['policy', 'values'\]"):
        considered(turn, legal[0], policy=weights, values=values, rank="prior")


def test_a_forced_move_or_a_heuristic_tells_nothing_not_an_earlier_decision():
    game = make_game(TINY)
    mcts, heuristic = MCTSAgent(MCTSConfig(num_simulations=20)), make_agent("heuristic", game)
    record = record_game(game, [mcts, heuristic], 1)
    assert all(record.players[k] == 0 for k in record.thinking)  # the heuristic never tells
    positions = records.states(record)
    last = max(k for k, p in enumerate(record.players) if p == 0)
    forced = len(game.legal_actions(positions[last], 0)) == 1  # the last card of a hand is forced
    assert forced and last not in record.thinking
    mcts.last_thinking = {"value": 0.5}  # stale: decide clears it before the agent acts
    assert decide(mcts, make_turn(game, positions[last], 0, 0)) == (record.actions[last], None)


def test_a_recorded_ppo_game_keeps_the_policy_s_probabilities_and_the_critic_s_value():
    torch.manual_seed(0)
    game = make_game(TINY)
    model = ActorCritic(game.observation_size, game.num_actions, hidden=(16,))
    ppo = PPOAgent(model)
    play_game(game, [make_agent("heuristic", game), ppo], 5)
    assert ppo.last_thinking is None  # a game that keeps no record: no critic's pass for thinking
    record = round_trip(record_game(game, [make_agent("heuristic", game), ppo], 5))
    moves = decisions(record, 1, forced=True)  # a forced move has the critic's value too
    assert moves and sorted(record.thinking) == [k for k, _ in moves]
    for k, s in moves:
        obs = torch.as_tensor(game.observation(s, 1), dtype=torch.float32)[None]
        mask = torch.as_tensor(game.legal_mask(s, 1).astype(bool))[None]
        with torch.no_grad():
            probs = torch.softmax(masked_logits(model.logits(obs), mask), -1)[0].numpy()
            value = float(model.value(obs)[0])
        told = record.thinking[k]
        assert set(told["policy"]) == set(game.legal_actions(s, 1)) and record.actions[k] in told["policy"]
        assert sum(told["policy"].values()) == pytest.approx(1.0, abs=1e-3)
        assert all(share == pytest.approx(probs[a], abs=1e-4) for a, share in told["policy"].items())
        assert told["value"] == pytest.approx(value, abs=1e-4) and "values" not in told


def test_a_recorded_cfr_game_keeps_the_average_strategy():
    game = make_game(TINY)
    cfr = CFRAgent.exact(game, iterations=50)
    record = round_trip(record_game(game, [cfr, make_agent("heuristic", game)], 2))
    moves = decisions(record, 0, forced=True)
    assert moves and sorted(record.thinking) == [k for k, _ in moves]
    for k, s in moves:
        legal = game.legal_actions(s, 0)
        probs = cfr.policy.probabilities(0, infoset_key(game.observation(s, 0)), np.asarray(legal))
        told = record.thinking[k]["policy"]
        assert record.actions[k] in told and sum(told.values()) == pytest.approx(1.0, abs=1e-3)
        assert all(told.get(a, 0.0) == pytest.approx(p, abs=1e-4) for a, p in zip(legal, probs))


def test_a_recorded_rollout_game_keeps_each_move_s_win_rate_over_the_worlds():
    game = make_game("achten")
    agent = make_agent("rollout:4", game)
    record = round_trip(record_game(game, [agent, make_agent("heuristic", game)], 4))
    moves = decisions(record, 0)
    assert moves and sorted(record.thinking) == [k for k, _ in moves]
    for k, s in moves:
        told = record.thinking[k]
        assert "policy" not in told and told["visits"] == 4 and record.actions[k] in told["values"]
        assert set(told["values"]) <= set(game.legal_actions(s, 0))
        assert all(0.0 <= v <= 1.0 for v in told["values"].values())  # win rates
        assert told["value"] == told["values"][record.actions[k]]
