"""Expert iteration in the search-and-learning trainer: an expert agent's decisions make the policy
targets, the outcomes the value targets; the network learns them; a run resumes from its checkpoint."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from octagames.agents import registry
from octagames.agents.base import THINKING_TOP, Agent, Turn, decide, make_turn
from octagames.agents.learn.az import AZAgent, SearchConfig, az_loss, build_net
from octagames.agents.learn.az_selfplay import SelfPlayWorker, WorkerConfig, expert_target
from octagames.agents.search.belief_achten import model_action
from octagames.agents.search.mcts import SearchResult
from octagames.core import CHANCE, Game
from octagames.experiments.train_az import TIME_COLUMNS, TrainConfig, Trainer, train

TINY = ("ranks=3", "hand_size=3")
SPEC = {"obs_size": 0, "num_actions": 0, "num_values": 0, "hidden": [16], "head": 0, "activation": "relu"}

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


class Teller(Agent):
    """Plays a random legal move and tells random shares over its legal moves; logs every decision."""

    log: list[tuple[bytes, int, np.ndarray, int]] = []

    def act(self, turn: Turn) -> int:
        legal = [int(a) for a in turn.legal_actions]
        w = self.rng.random(len(legal)) + 0.05
        self.last_thinking = {"policy": {a: float(x / w.sum()) for a, x in zip(legal, w)}}
        choice = int(self.rng.choice(legal))
        shares = np.zeros(len(turn.legal_mask))
        shares[legal] = w / w.sum()
        Teller.log.append((turn.observation.tobytes(), turn.seat, shares, choice))
        return choice


@pytest.fixture
def teller(monkeypatch):
    Teller.log = []
    monkeypatch.setitem(registry.AGENTS, "teller", registry.AgentEntry(lambda game, arg: Teller(), "test expert"))
    return Teller


def _game() -> Game:
    return Game("octrix-round", ranks=3, hand_size=3)


def _spec(g: Game) -> dict:
    return {**SPEC, "obs_size": g.observation_size, "num_actions": g.num_actions, "num_values": g.num_players}


def test_every_sample_is_an_expert_decision_with_the_experts_shares_and_the_outcome(teller):
    g = _game()
    cfg = WorkerConfig(num_games=6, search=SearchConfig(simulations=4), self_play_prob=0.5, agent_prob=0.5,
                       opponent_agent="random", expert="teller", policy_width=g.num_actions)
    w = SelfPlayWorker("octrix-round", {"ranks": 3, "hand_size": 3}, cfg, _spec(g), seed=3)
    t = w.play(min_samples=40)
    assert len(t) >= 40 and t.stats["expert_decisions"] == len(teller.log) >= len(t)
    told: dict[tuple[bytes, int], list[np.ndarray]] = {}
    for obs, seat, shares, _ in teller.log:
        told.setdefault((obs, seat), []).append(shares)
    for k in range(len(t)):
        seat = int(t.seats[k])
        target = np.zeros(g.num_actions)
        np.add.at(target, t.pol_idx[k], t.pol_p[k])
        candidates = told[(g.observation(t.records[k], seat).tobytes(), seat)]  # the decisions seen so
        assert any(np.allclose(target, shares, atol=1e-6) for shares in candidates)
        assert set(np.round(t.values[k], 6)) <= {0.0, 0.5, 1.0}  # the game's outcome
    w.use_expert(False)  # the network's own search makes the next decisions
    before = len(teller.log)
    w.play(min_samples=10)
    assert len(teller.log) == before


def test_expert_targets_from_visits_values_shares_or_the_choice():
    mask = np.array([1, 1, 0, 1], np.uint8)
    a = Agent()  # keeps no search: a policy, or rollouts when it tells values
    a.last_thinking = {"policy": {0: 0.25, 3: 0.5, 2: 0.25}}  # an illegal move's share is dropped
    np.testing.assert_allclose(expert_target(a, mask, 3), [1 / 3, 0, 0, 2 / 3])
    a.last_thinking = {"values": {0: 0.2, 1: 0.6, 3: 0.4}, "value": 0.4}  # rollouts' win rates
    np.testing.assert_allclose(expert_target(a, mask, 3), [0, 0, 0, 1])  # temperature 0: its choice
    soft = expert_target(a, mask, 3, temperature=0.1)
    e = np.exp([2.0, 6.0, 0.0, 4.0]) * mask
    np.testing.assert_allclose(soft, e / e.sum())
    a.last_thinking = {"policy": {0: 0.9, 1: 0.1}, "values": {0: 0.2, 1: 0.6, 3: 0.4}}  # rollouts with a vote
    np.testing.assert_allclose(expert_target(a, mask, 3), [0, 0, 0, 1])  # the rollouts' choice, not the vote
    np.testing.assert_allclose(expert_target(a, mask, 3, temperature=0.1), e / e.sum())
    a.last = SearchResult(action=1, visits=np.array([3.0, 1.0, 0.0, 0.0]), values=np.zeros(4), simulations=4,
                          nodes=5, seconds=0.0)  # a search: its visits, whatever its thinking keeps
    a.last_thinking = {"policy": {0: 1.0}, "values": {0: 0.5, 1: 0.4}}
    np.testing.assert_allclose(expert_target(a, mask, 0), [0.75, 0.25, 0, 0])
    a.last = {"visits": np.array([[0.0, 2.0, 5.0, 2.0]])}  # the AZ agents' [1, A]
    np.testing.assert_allclose(expert_target(a, mask, 1), [0, 0.5, 0, 0.5])
    a.last = None  # a search that kept none (a forced move, the network alone): its thinking's shares
    np.testing.assert_allclose(expert_target(a, mask, 1), [1, 0, 0, 0])
    a.last_thinking = None
    np.testing.assert_allclose(expert_target(a, mask, 1), [0, 1, 0, 0])  # a heuristic tells nothing


def test_rollouts_with_a_networks_vote_teach_their_values_not_the_vote():
    """The former ``zoo:achten-dealer-pays``'s kind of expert (a9'): belief rollouts with the network's search
    as a vote tell the vote's shares as their thinking's ``policy`` and keep that search as ``last``; the
    target is the rollouts' choice (temperature 0) or the softmax of their values, never the vote."""
    g = Game("achten", deal_penalty=1)
    torch.manual_seed(0)
    net = build_net(_spec(g))
    agent = AZAgent(net, SearchConfig(simulations=4, leaves_per_game=2, belief_worlds=4, belief_rollouts=True,
                                      rollout_policy="model", rollout_search_weight=0.1))
    checked = 0
    for seed in range(4):
        s = g.new_state(seed)
        while g.current_player(s) == CHANCE:
            g.play_chance(s)
        while not g.is_terminal(s) and checked < 3:
            p = g.acting_player(s)
            turn = make_turn(g, s, p, seed)
            if turn.legal_mask.sum() > 1:
                agent.reset(g, p, seed)
                chosen, told = decide(agent, turn)
                assert told["policy"] and told["values"] and agent.last is not None  # a vote was told and kept
                # the moves told are the rollouts' best, not the ones the vote visited (it picked them)
                assert len(told["values"]) >= min(THINKING_TOP, int(turn.legal_mask.sum()))
                target = expert_target(agent, turn.legal_mask, chosen)
                np.testing.assert_array_equal(target, np.eye(g.num_actions)[chosen])
                moves = [int(m) for m in told["values"]]
                v = np.array(list(told["values"].values())) / 0.05
                soft = np.zeros(g.num_actions)
                soft[moves] = np.exp(v - v.max()) / np.exp(v - v.max()).sum()
                np.testing.assert_allclose(expert_target(agent, turn.legal_mask, chosen, temperature=0.05), soft)
                checked += 1
            g.apply_action(s, model_action(g, s, p))
    assert checked == 3


def test_a_searchs_target_is_its_whole_visit_distribution():
    """An MCTS expert that visits more moves than its thinking keeps (THINKING_TOP): the target is every
    visited move, its visits over their total."""
    g = Game("octiles")
    s = g.new_state(0)
    while g.current_player(s) == CHANCE:
        g.play_chance(s)
    p = g.acting_player(s)
    agent = registry.make_agent("mcts:64", g)
    agent.reset(g, p, 1)
    chosen, told = decide(agent, make_turn(g, s, p, 1))
    visits = agent.last.visits
    assert (visits > 0).sum() > THINKING_TOP == len(told["policy"])
    np.testing.assert_allclose(expert_target(agent, g.legal_mask(s, p), chosen), visits / visits.sum())


def _cfg(run_dir, **kw) -> TrainConfig:
    base = dict(game="octrix-round", config=TINY, seed=0, device="cpu", iterations=4, hidden=(32,), num_games=8,
                samples_per_iteration=64, simulations=4, play_simulations=4, batch_size=32, replay_ratio=16.0,
                learning_rate=3e-3,
                eval_every=0, eval_games=4, eval_opponents=("random",), eval_policy=False, checkpoint_every=2,
                self_play_prob=0.5, agent_prob=0.5, opponent_agent="random", imitation_games=0,
                expert="heuristic", expert_iterations=3, run_dir=str(run_dir), progress=False)
    base.update(kw)
    return TrainConfig(**base)


def test_a_tiny_expert_iteration_run_learns_the_expert_then_searches_and_resumes(tmp_path):
    """Tiny Octrix round, the heuristic as the expert for 3 iterations (it tells nothing: one-hot targets on
    its choices), then the network's search: the network learns the expert's choices; a run resumed from
    its checkpoint gives the same rows."""
    tr = Trainer(_cfg(tmp_path / "full"))
    full = tr.run()
    rows = [r for r in full["rows"] if r["iteration"] > 0]
    assert [r["expert_decisions"] > 0 for r in rows] == [True, True, True, False]
    assert rows[0]["expert_decisions"] >= rows[0]["new_samples"]  # every sample of the first: the expert's
    # the samples of the expert's iterations: the trained network predicts its choices far better than a uniform
    # policy over the legal moves (what the fresh network, with its near-zero policy layer, plays)
    n = sum(r["new_samples"] for r in rows[:3])
    assert (tr.buffer.pol_p[:n, 0] == 1.0).all()
    batch = tr.buffer.batch(np.arange(n))
    loss = float(az_loss(tr.learner.net, batch)[1]["policy_loss"])
    uniform = float(-(batch["policy"] * torch.log(1.0 / batch["mask"].sum(-1, keepdim=True))).sum(-1).mean())
    assert loss < 0.8 * uniform, (loss, uniform)
    half = train(_cfg(tmp_path / "half", iterations=2))
    assert half["rows"][-1]["iteration"] == 2
    resumed = train(dataclasses.replace(_cfg(tmp_path / "half"), resume=True))

    def clockless(rs):  # the half run's last row has an evaluation the full run's has not
        return [{k: v for k, v in r.items() if k not in TIME_COLUMNS and not k.startswith(("win_rate", "ci_"))}
                for r in rs if r["iteration"] > 0]

    assert clockless(resumed["rows"]) == clockless(full["rows"])


def test_bad_expert_settings_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="expert_iterations=2 needs an expert"):
        _cfg(tmp_path, expert="", expert_iterations=2)
    with pytest.raises(ValueError, match="expert_temperature"):
        _cfg(tmp_path, expert_temperature=-1.0)
    with pytest.raises(ValueError, match="agent='nobody'"):
        train(_cfg(tmp_path, expert="nobody"))


def test_the_learners_rollouts_as_expert_play_the_trained_network_inside_them():
    """``learner:<worlds>``: Achten's belief rollouts with the worker's own network for the seat's later moves
    (its weights follow set_weights); Octa's compiled rollouts cannot ask a network and refuse it."""
    g = Game("achten", deal_penalty=1)
    cfg = WorkerConfig(num_games=2, search=SearchConfig(simulations=4), self_play_prob=0.0, agent_prob=1.0,
                       expert="learner:2")
    w = SelfPlayWorker("achten", {"deal_penalty": 1}, cfg, _spec(g), seed=1)
    assert all(e.net is w.net and e.search.rollout_policy == "network" for e in w.experts)
    t = w.play(min_samples=6)
    assert len(t) >= 6 and t.stats["expert_decisions"] >= len(t)
    assert np.allclose(t.pol_p[:, 0], 1.0)  # rollouts tell win rates, no shares: one-hot on the choice
    o = Game("octa-en")
    with pytest.raises(ValueError, match="network rollout policy is not available"):
        SelfPlayWorker("octa-en", {}, dataclasses.replace(cfg, expert="learner:2"), _spec(o), seed=1)
    with pytest.raises(ValueError, match="learner:<worlds>"):
        SelfPlayWorker("achten", {"deal_penalty": 1}, dataclasses.replace(cfg, expert="learner:x"), _spec(g), seed=1)
