"""The network-only agents (``net:<variant>``) and the policy alone (``zoo:<variant>:0``): no
hand-written heuristic, compiled leaf value, prior hint, believed world or rollout at play time (rollouts
by a learned rollout policy, where the zoo file carries one, are learned)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from octagames.agents import registry
from octagames.agents.arena import play_game
from octagames.agents.base import Agent
from octagames.agents.heuristics.octa import OctaHeuristicAgent
from octagames.agents.heuristics.octiles import OctilesHeuristicAgent
from octagames.agents.learn import az
from octagames.agents.learn.az import NETWORK_ONLY, AZAgent, SearchConfig, network_only, zoo_path
from octagames.agents.registry import make_agent
from octagames.agents.search import belief_achten, mcts, rollouts
from octagames.agents.search.learned_rollouts import LearnedRollout
from octagames.core import Game
from octagames.experiments.cli import model_fingerprints

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


class HeuristicCalled(AssertionError):
    """Raised by every patched hand-written entry point."""


def _forbid(*_args, **_kwargs):
    raise HeuristicCalled("a hand-written heuristic, leaf value, belief or rollout was asked at play time")


@pytest.fixture
def no_heuristics(monkeypatch):
    """Every way hand-written play enters a game: the heuristic agents, the registry's heuristic, the
    compiled playouts and leaf values (where the search and the AZ agent import them), the prior hint,
    the heuristic in Octa's paired rollouts (their compiled kernels: its choice and its playouts) and
    the heuristic inside Achten's belief."""
    for cls in (OctaHeuristicAgent, OctilesHeuristicAgent):
        monkeypatch.setattr(cls, "act", _forbid)
    monkeypatch.setitem(registry.AGENTS, "heuristic", registry.AgentEntry(_forbid, "forbidden"))
    for module in (mcts, az):
        for name in ("playout_kernels", "playout_policy", "compiled_value"):
            monkeypatch.setattr(module, name, _forbid)
    for name in ("leaf_value_function", "PriorHint"):
        monkeypatch.setattr(az, name, _forbid)
    for name in ("kernels", "playout_kernels", "playout_policy"):
        monkeypatch.setattr(rollouts, name, _forbid)
    for name in ("model_action", "achten_playout"):  # Achten's belief may run, with the network as its model only
        monkeypatch.setattr(belief_achten, name, _forbid)


def test_the_patched_entry_points_do_catch_the_zoo_models_hand_written_parts(no_heuristics):
    """The patch is not vacuous: the zoo's Octa model (paired rollouts by the heuristic), Achten's belief
    agent (the heuristic as the model of the other seat) and the heuristic itself stop on it."""
    g = Game("octa-en")
    with pytest.raises(HeuristicCalled):
        play_game(g, [make_agent("zoo:octa-en", g), make_agent("random", g)], seed=3)
    with pytest.raises(HeuristicCalled):
        make_agent("heuristic", g)
    a = Game("achten-dealer-pays")  # the belief agent's model is the heuristic
    with pytest.raises(HeuristicCalled):
        play_game(a, [make_agent("belief:4", a), make_agent("random", a)], seed=3)


def test_net_agents_play_a_game_without_any_hand_written_code(no_heuristics):
    g = Game("octiles-fixed-start")
    searched = make_agent("net:octiles-fixed-start:16", g)
    alone = make_agent("net:octiles-fixed-start:0", g)
    returns, length = play_game(g, [searched, alone], seed=5)
    assert length > 0 and g.num_players == 2 and len(returns) == 2
    assert searched.last is not None and searched.last["visits"].sum() >= 15  # it searched (1: the root's expansion)
    assert alone.search.simulations == 0


@pytest.mark.parametrize("variant", ["octa-en", "octa-nl"])
def test_octas_net_agent_rolls_out_by_its_learned_policy_alone(variant, no_heuristics, monkeypatch):
    """The Octa zoo files carry a learned rollout policy: ``net:octa-*`` plays the zoo search's paired
    rollouts with it in every seat in the heuristic's place, its choice the default."""
    card = az.zoo_card(variant)
    assert card["learned_rollout"]["held_out_accuracy"] > 0.5 and card["search"]["belief_model"] == "heuristic"
    g = Game(variant)
    net = make_agent(f"net:{variant}", g)
    worlds = card.get("network_belief_worlds", card["search"]["belief_worlds"])  # the card's for net:, if any
    assert net.search.belief_model == "learned" and net.search.belief_worlds == worlds
    assert make_agent(f"net:{variant}:0", g).search.belief_worlds == 0
    net.search = dataclasses.replace(net.search, belief_worlds=4)  # a short game
    calls = []
    values = LearnedRollout.rollout_values

    def counted(self, worlds, seat, legal):
        calls.append(len(worlds))
        return values(self, worlds, seat, legal)

    monkeypatch.setattr(LearnedRollout, "rollout_values", counted)
    alone = make_agent(f"net:{variant}:0", g)
    returns, length = play_game(g, [net, alone], seed=5)
    assert length > 0 and len(returns) == 2 and len(calls) > 10 and max(calls) == 4
    assert alone.search.belief_rollouts is False


def test_achtens_net_agent_believes_and_rolls_out_with_its_network_alone(no_heuristics):
    """``net:achten-dealer-pays`` is the zoo model's own search: worlds believed and rollouts played with the
    network's greedy policy as the model of every seat; nothing hand-written is asked."""
    card = az.zoo_card("achten-dealer-pays")["search"]
    assert card["belief_model"] == "network" and card["belief_rollouts"]
    g = Game("achten-dealer-pays")
    net, zoo = make_agent("net:achten-dealer-pays", g), make_agent("zoo:achten-dealer-pays", g)
    assert net.search == zoo.search and net.search.belief_worlds == card["belief_worlds"]
    batches, evaluate = [], net.evaluate

    def counted(obs, masks, players):
        batches.append(len(obs))
        return evaluate(obs, masks, players)

    net.evaluate = counted
    returns, length = play_game(g, [net, make_agent("random", g)], seed=5)
    assert length > 0 and max(batches) > 32  # the network was asked for many worlds' moves at once
    assert make_agent("net:achten-dealer-pays:0", g).search.belief_worlds == 0  # the policy alone


def test_net_keeps_the_budget_and_leaves_of_the_card_and_drops_every_hand_written_part():
    card = az.zoo_card("octiles-fixed-start")["search"]
    assert card["leaf_value_mix"] > 0  # what there is to drop
    agent = make_agent("net:octiles-fixed-start:40", "octiles-fixed-start")
    s = agent.search
    assert (s.simulations, s.leaves_per_game) == (40, card["leaves_per_game"])
    assert {k: getattr(s, k) for k in NETWORK_ONLY} == NETWORK_ONLY and s.dirichlet_alpha == 0.0
    assert agent.name == "net:octiles-fixed-start:40"
    # Octa's card rolls out by the heuristic: net: keeps those rollouts, played by the learned policy
    octa = az.zoo_card("octa-en")["search"]
    s = make_agent("net:octa-en", "octa-en").search
    kept = {k: octa.get(k, getattr(az.SearchConfig(), k)) for k in az.NETWORK_BELIEF}  # a field newer than the card
    assert {k: getattr(s, k) for k in az.NETWORK_BELIEF} == {**kept, "belief_model": "learned",
                                                             "rollout_base": az.network_base("octa-en") or "model"}
    assert (s.leaf_value_mix, s.prior_hint, s.playout_mix) == (0.0, "", 0.0)


def test_net_plays_at_the_budget_its_card_names_unless_the_spec_names_one():
    card = az.zoo_card("octiles-fixed-start")  # the network alone was measured at more simulations
    assert card["network_simulations"] > card["search"]["simulations"]
    g = "octiles-fixed-start"
    assert make_agent(f"net:{g}", g).search.simulations == card["network_simulations"]
    assert make_agent(f"zoo:{g}", g).search.simulations == card["search"]["simulations"]
    assert [make_agent(f"net:{g}:{n}", g).search.simulations for n in (40, 0)] == [40, 0]
    assert "network_simulations" not in az.zoo_card("octa-en")  # a card without one: the model's budget
    own = az.zoo_card("octa-en")["search"]["simulations"]
    assert make_agent("net:octa-en", "octa-en").search.simulations == own


class Both(Agent):
    """Plays ``first``'s move after checking ``second`` chooses the same and ``first`` asked its network
    once per decision with a choice (one forward pass), its argmax; or, where the model file carries a
    learned policy to play alone, that policy's choice without asking the network."""

    def __init__(self, first: AZAgent, second: AZAgent) -> None:
        self.first, self.second, self.calls, self.decisions = first, second, 0, 0
        evaluate = first.evaluate

        def counted(*args):
            self.calls += 1
            return evaluate(*args)

        first.evaluate = counted

    def reset(self, game, seat, seed):
        self.first.reset(game, seat, seed)
        self.second.reset(game, seat, seed)

    def act(self, turn):
        before = self.calls
        a = self.first.act(turn)
        assert a == self.second.act(turn)
        if len(turn.legal_actions) > 1 and self.first.alone is not None:
            assert self.calls == before and a == self.first.alone.action(turn.state, turn.seat)
            self.decisions += 1
        elif len(turn.legal_actions) > 1:
            assert self.calls - before == 1
            priors, _ = az.network_evaluator(self.first.net)(turn.observation[None].astype(np.float32),
                                                             turn.legal_mask[None], np.array([turn.seat]))
            assert a == int(np.argmax(np.where(turn.legal_mask > 0, priors[0], -1.0)))
            self.decisions += 1
        return a


@pytest.mark.parametrize("variant,learned", [("octrix", False), ("octa-en", True), ("octa-nl", True)])
def test_zoo_at_zero_simulations_is_the_policy_alone_one_forward_pass(no_heuristics, variant, learned):
    """``zoo:octa-en:0`` played the heuristic rollouts before; now it is the policy alone, the same move as
    ``net:octa-en:0`` in every position: the network's argmax, or the zoo file's learned policy where it
    carries one (Octa), with every heuristic entry point patched to raise."""
    g = Game(variant)
    zoo0, net0 = make_agent(f"zoo:{variant}:0", g), make_agent(f"net:{variant}:0", g)
    assert zoo0.search == net0.search
    both = Both(zoo0, net0)
    play_game(g, [both, make_agent("random", g)], seed=11)
    assert both.decisions > 20 and (zoo0.alone is not None) == learned


def test_a_budget_keeps_the_recorded_search_but_zero_drops_it(tmp_path):
    g = Game("octa-en")
    net, _ = az.load_model(zoo_path("octa-en"), g)
    recorded = SearchConfig(simulations=8, belief_worlds=4, belief_rollouts=True, rollout_policy="model",
                            rollout_margin=1.0, prior_hint="heuristic")
    path = az.save_model(net, tmp_path / "m.pt", g, recorded)
    assert AZAgent.load(path, 12).search.belief_rollouts  # a budget changes the budget only
    assert AZAgent.load(path, 0).search == network_only(recorded, 0)
    assert AZAgent.load(path, network_alone=True).search == network_only(recorded)
    assert network_only(recorded).simulations == 8


def test_bad_net_specs_are_refused_in_one_line():
    with pytest.raises(ValueError, match="valid zoo models"):
        make_agent("net:octa", "octa-en")
    with pytest.raises(ValueError, match="needs an argument"):
        make_agent("net", "octa-en")
    with pytest.raises(ValueError, match="net:octrix plays octrix"):
        make_agent("net:octrix", "octa-en")
    assert "net" in registry.available_agents()


def test_a_card_can_make_nets_rollouts_beat_the_files_learned_policy(monkeypatch):
    """A card's ``network_rollout_base`` sets the move ``net:<variant>``'s paired rollouts must beat, and a game
    journal of that agent is not resumed across the change."""
    card = {k: v for k, v in az.zoo_card("octa-nl").items() if k != "network_rollout_base"}
    assert "learned_policy" in zoo_file_keys("octa-nl")
    monkeypatch.setattr(az, "zoo_card", lambda name: card if name == "octa-nl" else {})
    assert make_agent("net:octa-nl", "octa-nl").search.rollout_base == "model"  # a card that names none
    before = model_fingerprints(["net:octa-nl", "net:octa-nl:0"])
    monkeypatch.setattr(az, "zoo_card", lambda name: {**card, "network_rollout_base": "learned_policy"}
                        if name == "octa-nl" else {})
    net = make_agent("net:octa-nl", "octa-nl")
    assert net.search.rollout_base == "learned_policy" and net.search.belief_model == "learned"
    net.reset(Game("octa-nl"), 0, 0)
    assert net.base is not None and np.array_equal(net.base.bias, LearnedRollout.from_state(
        Game("octa-nl"), az.load_model(zoo_path("octa-nl"), Game("octa-nl"))[1]["learned_policy"]).bias)
    assert make_agent("zoo:octa-nl", "octa-nl").search.rollout_base == "model"  # the zoo model's own search
    assert make_agent("net:octa-nl:0", "octa-nl").search.rollout_base == "model"  # the policy alone: no rollouts
    after = model_fingerprints(["net:octa-nl", "net:octa-nl:0"])
    assert all(after[spec] != before[spec] for spec in before)


def zoo_file_keys(variant: str) -> set[str]:
    """The top-level keys of a zoo file."""
    return set(az.load_model(zoo_path(variant), Game(variant))[1])
