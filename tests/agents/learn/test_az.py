"""The AZ network, loss, batched search, model files, agent and zoo."""

import dataclasses
import math
import re

import numpy as np
import pytest
import torch

from octagames.agents.arena import play_game, play_match
from octagames.agents.learn.az import (AZAgent, BatchedSearch, PolicyValueNet, SearchConfig, action_block,
                                      action_rows, az_loss, choose_actions, leaf_value_function, load_model,
                                      network_only, outcome_values, save_model, widen_input)
from octagames.agents.base import RandomAgent, make_turn
from octagames.agents.search.mcts import MCTS, MCTSConfig, PolicyValue
from octagames.agents.registry import AGENTS, AgentEntry, make_agent
from octagames.core import CHANCE, Game

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def linear_fns(game: Game, seed: int = 1):
    """A fixed random 'network': priors and values linear in the observation.

    Returns the function :class:`PolicyValue` takes (values per absolute seat, in the
    game's return units) and the :data:`Evaluate` of :class:`BatchedSearch` (the same
    values in [0, 1], counted from the acting seat).
    """
    P, A, D = game.num_players, game.num_actions, game.observation_size
    rng = np.random.default_rng(seed)
    W, V = rng.normal(size=(D, A)), rng.normal(size=(D, P))
    lo, hi = game.min_utility, game.max_utility

    def absolute(obs, masks, players):
        logits = obs.astype(np.float64) @ W
        pr = np.exp(logits - logits.max(1, keepdims=True)) * masks
        pr /= np.maximum(pr.sum(1, keepdims=True), 1e-300)  # rows of finished games have no legal action
        return pr, lo + (hi - lo) / (1 + np.exp(-(obs.astype(np.float64) @ V)))

    def relative(obs, masks, players):
        pr, values = absolute(obs, masks, players)
        seats = (players[:, None] + np.arange(P)[None, :]) % P
        return pr, np.take_along_axis((values - lo) / (hi - lo), seats, axis=1)

    return absolute, relative


def decisions(game: Game, count: int, seed: int) -> list[np.void]:
    """``count`` decision points (several legal actions) from random games."""
    rng = np.random.default_rng(seed)
    out = []
    k = 0
    while len(out) < count:
        s = game.new_state(seed + k)
        k += 1
        for _ in range(int(rng.integers(2, 12))):
            game.play_chance(s)
            if game.is_terminal(s):
                break
            game.apply_action(s, int(rng.choice(game.legal_actions(s))))
        game.play_chance(s)
        if not game.is_terminal(s) and len(game.legal_actions(s)) > 1:
            out.append(s)
    return out


@pytest.mark.parametrize("name,config", [("octrix", {}), ("achten", {"deal_penalty": 1})])
def test_batched_search_visits_like_the_one_game_search(name, config):
    """B games searched in lockstep = MCTS with a PolicyValue evaluator on each, same seeds.

    Octrix has simultaneous steps (decoupled statistics), Achten hidden cards
    (a determinization per descent): the batched kernels must reproduce both.
    """
    g = Game(name, **config)
    absolute, relative = linear_fns(g)
    states = decisions(g, 3, seed=5)
    players = np.array([g.acting_player(s) for s in states])
    seeds = np.array([11, 12, 13])
    search = BatchedSearch(g, 3, SearchConfig(simulations=30, c_puct=1.1, objective="score"))
    res = search.run(np.array(states, dtype=g.dtype), players, np.ones(3, bool), seeds, relative)
    one = MCTS(g, MCTSConfig(num_simulations=30, batch_size=1, exploration=1.1), PolicyValue(absolute))
    for b in range(3):
        r = one.search(states[b], int(players[b]), int(seeds[b]))
        assert r.visits.sum() == 29  # the first simulation expands the root
        np.testing.assert_array_equal(res["visits"][b], r.visits)
        np.testing.assert_allclose(res["q"][b], r.values, atol=1e-12)
    # an inactive game is not searched, and the others do not depend on it
    active = np.array([True, False, True])
    res2 = search.run(np.array(states, dtype=g.dtype), players, active, seeds, relative)
    assert res2["visits"][1].sum() == 0
    np.testing.assert_array_equal(res2["visits"][[0, 2]], res["visits"][[0, 2]])


def test_search_never_modifies_the_roots_and_stays_legal():
    g = Game("achten", deal_penalty=1)
    _, relative = linear_fns(g)
    states = np.array(decisions(g, 4, seed=9), dtype=g.dtype)
    before = states.copy()
    players = np.array([g.acting_player(s) for s in states])
    res = BatchedSearch(g, 4, SearchConfig(simulations=20, leaves_per_game=4)).run(
        states, players, np.ones(4, bool), np.arange(4), relative)
    assert states.tobytes() == before.tobytes()
    for b in range(4):
        legal = g.legal_mask(states[b]).astype(bool)
        assert res["visits"][b].sum() == 19 and not res["visits"][b][~legal].any()


def test_one_simulation_is_refused_by_name_and_two_choose_a_legal_move():
    # the first simulation only expands the root: with one, no move was visited and the choice fell to
    # action 0, illegal in most positions (Octrix's ♦A not dealt), with an all-zero policy target
    from octagames.experiments.train_az import TrainConfig

    message = "must be 0 (the network's policy alone) or >= 2"
    for make in (lambda: SearchConfig(simulations=1), lambda: TrainConfig(play_simulations=1),
                 lambda: make_agent("net:octrix:1", "octrix")):
        with pytest.raises(ValueError, match=re.escape(message)):
            make()
    g = Game("octrix")
    _, relative = linear_fns(g)
    states = np.array(decisions(g, 8, seed=4), dtype=g.dtype)
    players = np.array([g.acting_player(s) for s in states])
    res = BatchedSearch(g, 8, SearchConfig(simulations=2)).run(states, players, np.ones(8, bool), np.arange(8),
                                                                relative)
    chosen = choose_actions(res["visits"], res["q"], 0.0, np.random.default_rng(0))
    assert all(g.legal_mask(s)[a] for s, a in zip(states, chosen)) and (res["visits"].sum(axis=1) == 1).all()
    assert not all(g.legal_mask(s)[0] for s in states)  # action 0 is illegal somewhere: the test can fail


def test_root_noise_changes_the_priors_only_where_legal():
    g = Game("octrix")
    _, relative = linear_fns(g)
    s = decisions(g, 1, seed=3)[0]
    p = g.acting_player(s)
    mask = g.legal_mask(s)
    noise = mask / mask.sum()
    cfg = SearchConfig(simulations=2, dirichlet_alpha=0.3, dirichlet_frac=0.5)
    plain = BatchedSearch(g, 1, dataclasses.replace(cfg, dirichlet_frac=0.0)).run(
        np.array([s]), np.array([p]), np.array([True]), np.array([0]), relative)
    noisy = BatchedSearch(g, 1, cfg).run(np.array([s]), np.array([p]), np.array([True]), np.array([0]), relative,
                                         noise[None, :])
    legal = mask.astype(bool)
    np.testing.assert_allclose(noisy["prior"][0][legal], 0.5 * plain["prior"][0][legal] + 0.5 * noise[legal],
                               rtol=1e-6)
    assert math.isclose(noisy["prior"][0].sum(), 1.0, rel_tol=1e-6)  # priors are float32


def test_outcome_values_and_choice():
    np.testing.assert_array_equal(outcome_values(np.array([[3.0, -3.0], [1.0, 1.0]]), 2, "win", -5, 5),
                                  [[1.0, 0.0], [0.5, 0.5]])
    np.testing.assert_array_equal(outcome_values(np.array([[2.0, 2.0, -4.0]]), 3, "win", -5, 5), [[1.0, 1.0, 0.0]])
    np.testing.assert_allclose(outcome_values(np.array([[2.5, -2.5]]), 2, "score", -5, 5), [[0.75, 0.25]])
    visits = np.array([[0.0, 3.0, 3.0, 1.0]])
    assert choose_actions(visits, np.array([[0, 0.2, 0.7, 0.9]]), 0.0, np.random.default_rng(0))[0] == 2
    draws = [choose_actions(visits, np.zeros((1, 4)), 1.0, np.random.default_rng(k))[0] for k in range(200)]
    assert 0 not in draws and {1, 2, 3} <= set(draws)


def test_loss_on_a_hand_made_batch():
    """Policy cross-entropy over the legal actions plus the per-seat binary cross-entropy of the values."""
    net = PolicyValueNet(4, 3, 2, hidden=(8,))
    for prm in net.parameters():  # a network whose outputs are its biases: logits (1, 2, 3), values (0, 1)
        torch.nn.init.zeros_(prm)
    with torch.no_grad():
        net.policy[-1].bias.copy_(torch.tensor([1.0, 2.0, 3.0]))
        net.value[-1].bias.copy_(torch.tensor([0.0, 1.0]))
    batch = {"obs": torch.zeros(2, 4), "mask": torch.tensor([[True, True, False], [True, True, True]]),
             "policy": torch.tensor([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]),
             "values": torch.tensor([[1.0, 0.0], [0.5, 0.5]])}
    loss, stats = az_loss(net, batch, value_weight=2.0)
    lse2, lse3 = math.log(math.e + math.e ** 2), math.log(math.e + math.e ** 2 + math.e ** 3)
    policy = (0.5 * (lse2 - 1) + 0.5 * (lse2 - 2) + (lse3 - 3)) / 2

    def bce(z, y):
        return -(y * math.log(1 / (1 + math.exp(-z))) + (1 - y) * math.log(1 - 1 / (1 + math.exp(-z))))

    value = (bce(0, 1) + bce(1, 0) + bce(0, 0.5) + bce(1, 0.5)) / 4
    assert math.isclose(float(stats["policy_loss"]), policy, rel_tol=1e-6)
    assert math.isclose(float(stats["value_loss"]), value, rel_tol=1e-6)
    assert math.isclose(float(loss.detach()), policy + 2 * value, rel_tol=1e-6)
    loss.backward()  # gradients reach the heads and the trunk
    assert net.policy[-1].bias.grad.abs().sum() > 0 and net.value[-1].bias.grad.abs().sum() > 0


def test_sparse_and_dense_paths_agree():
    net = PolicyValueNet(300, 7, 3, hidden=(32, 16), head=8)
    x = (torch.rand(64, 300, generator=torch.Generator().manual_seed(0)) < 0.05).float()
    dense = net.trunk_act(net.trunk(net.act(net.first(x))))
    torch.testing.assert_close(net.features(x), dense, rtol=1e-5, atol=1e-5)  # 64 rows: the sparse path
    logits, values = net(x)
    assert logits.shape == (64, 7) and values.shape == (64, 3)


def test_the_per_action_term_ranks_actions_by_their_own_block_rows_and_survives_a_model_file(tmp_path):
    g = Game("achten", deal_penalty=1)
    offset, k = action_block(g)
    assert (offset, k) == (g.observation_layout.offset("lookahead"), 4) and action_block(Game("octa-en")) is None
    torch.manual_seed(0)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,), action_features=(offset, k))
    with torch.no_grad():
        net.first.weight[:, offset:offset + g.num_actions * k] = 0.0  # the trunk does not read the block
        net.action_out.weight.normal_()
    x = torch.zeros(2, g.observation_size)
    x[1, offset + 5 * k:offset + 6 * k] = 1.0  # action 5's row only
    logits, values = net(x)
    moved = (logits[1] - logits[0]).abs() > 1e-6
    assert moved.tolist() == [a == 5 for a in range(g.num_actions)]  # only that action's logit moves
    torch.testing.assert_close(values[0], values[1])
    path = save_model(net, tmp_path / "pa.pt", g)
    loaded, data = load_model(path, g)
    assert data["spec"]["action_features"] == [offset, k] and loaded.action_features == (offset, k)
    torch.testing.assert_close(loaded(x)[0], logits)
    for bad in ((offset, 0), (-1, k), (g.observation_size - 3, k)):
        with pytest.raises(ValueError, match="action_features="):
            PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,), action_features=bad)


def test_the_per_action_term_reads_the_rows_each_action_points_at(tmp_path):
    g = Game("octa-en")
    spec = action_rows(g)
    offset, rows, k = spec["offset"], spec["rows"], spec["k"]
    assert (offset, rows, k) == (g.observation_layout.offset("facts"), *g.observation_layout.block("facts").shape)
    # 40 kinds, pool slots, discards, run ends, situation, 2 action piles, 26 runs, 26 x 11 cards in runs
    assert (rows, k) == (215 + 286, 8)
    assert action_rows(Game("achten")) is None
    refs = np.asarray(spec["refs"])
    torch.manual_seed(0)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,), action_rows=spec)
    with torch.no_grad():
        net.first.weight[:, offset:offset + rows * k] = 0.0  # the trunk does not read the block
        net.action_out.weight.normal_()
    x = torch.zeros(2, g.observation_size)
    x[1, offset + 12 * k:offset + 13 * k] = 1.0  # the row of kind 12 (the spade 3) only
    logits, values = net(x)
    moved = ((logits[1] - logits[0]).abs() > 1e-6).numpy()
    assert moved.tolist() == (refs == 12).any(axis=1).tolist()  # its discard, lay and exchanges move
    assert moved.sum() == 1 + 1 + 8 and moved[g.action_layout.offset("discard") + 12]
    torch.testing.assert_close(values[0], values[1])
    loaded, data = load_model(save_model(net, tmp_path / "rows.pt", g), g)
    assert loaded.action_rows == (offset, rows, k) and data["spec"]["action_rows"]["refs"] == spec["refs"]
    torch.testing.assert_close(loaded(x)[0], logits)
    for bad in ({**spec, "refs": spec["refs"][:-1]}, {**spec, "k": 0},
                {**spec, "offset": g.observation_size - 7}, {**spec, "refs": (refs * 0 + rows).tolist()}):
        with pytest.raises(ValueError, match="action_rows .* is not valid"):
            PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,), action_rows=bad)
    with pytest.raises(ValueError, match="give one of them"):
        PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,), action_features=(0, 1),
                       action_rows=spec)


def test_a_network_of_an_earlier_observation_reads_its_prefix_and_other_sizes_are_refused(tmp_path):
    g = Game("octa-nl")
    # before the facts block, its later rows, the piles', the run slots', the cards in runs', the rebuilt stock's
    assert len(g.earlier_observation_sizes) == 6
    for old in g.earlier_observation_sizes:
        net = PolicyValueNet(old, g.num_actions, g.num_players, hidden=(16,))
        loaded, _ = load_model(save_model(net, tmp_path / "old.pt", g), g)
        x = torch.rand(3, g.observation_size)
        torch.testing.assert_close(loaded(x)[0], net(x[:, :old])[0])  # the entries it was trained on, unchanged
    old = g.earlier_observation_sizes[0]
    short = PolicyValueNet(old - 1, g.num_actions, g.num_players, hidden=(16,))
    with pytest.raises(ValueError, match="the observation, action or seat count differs"):
        load_model(save_model(short, tmp_path / "short.pt", g), g)


def test_a_widened_network_reads_the_whole_observation_and_starts_where_the_old_one_was():
    g = Game("octa-nl")
    old = g.earlier_observation_sizes[-1]
    torch.manual_seed(3)
    net = PolicyValueNet(old, g.num_actions, g.num_players, hidden=(16, 8))
    x = torch.rand(4, g.observation_size)
    same = widen_input(net, g.observation_size, 0.0)
    assert same.spec["obs_size"] == g.observation_size and same.first.weight.shape == (16, g.observation_size)
    for a, b in zip(same(x), net(x)):
        torch.testing.assert_close(a, b)  # zero new weights: what it computed before
    nudged = widen_input(net, g.observation_size, 0.5, seed=1)
    assert not torch.equal(nudged(x)[0], net(x)[0])  # the new entries now count ...
    x[:, old:] = 0
    torch.testing.assert_close(nudged(x)[0], net(x)[0])  # ... and only they
    torch.testing.assert_close(widen_input(net, g.observation_size, 0.5, seed=1).first.weight, nudged.first.weight)
    assert nudged.first.weight.stride() == (1, 16)  # still stored column-major
    with pytest.raises(ValueError, match="obs_size=10 is not valid"):
        widen_input(net, 10, 0.0)
    with pytest.raises(ValueError, match="std=-1 is not valid"):
        widen_input(net, g.observation_size, -1)


def test_model_files_refuse_another_game_in_words(tmp_path):
    g = Game("achten", deal_penalty=1)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    path = save_model(net, tmp_path / "m.pt", g, SearchConfig(simulations=7))
    loaded, data = load_model(path, g)
    assert data["search"]["simulations"] == 7
    for a, b in zip(net.parameters(), loaded.parameters()):
        torch.testing.assert_close(a, b)
    with pytest.raises(ValueError, match=r"this checkpoint is an achten run \(2 players; hidden 16; "
                                         r"6333 observations, 17 actions\); you asked for octrix"):
        load_model(path, Game("octrix"))
    agent = AZAgent.load(path)
    with pytest.raises(ValueError, match="is an achten run"):
        play_game(Game("octrix"), [agent, RandomAgent()], seed=0)
    half = save_model(net, tmp_path / "h.pt", g, half=True)
    assert half.stat().st_size < 0.6 * path.stat().st_size
    (tmp_path / "junk.pt").write_bytes(b"")
    torch.save({"format": "something else"}, tmp_path / "junk.pt")
    with pytest.raises(ValueError, match="not an octagames AZ model"):
        load_model(tmp_path / "junk.pt")


def test_agent_plays_legal_moves_and_never_searches_forced_ones(tmp_path):
    g = Game("octrix")
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    agent = AZAgent(net, SearchConfig(simulations=6, leaves_per_game=2), name="az-test")
    res = play_match(g, [agent, RandomAgent()], num_games=2, seed=0, progress=False)
    assert res.records[0].games == 2
    s = g.new_state(0)
    g.play_chance(s)
    agent.reset(g, 0, 0)
    agent.last = None
    turn = make_turn(g, s, 0, 0)
    only = int(turn.legal_actions[0])
    turn.legal_mask[:] = 0
    turn.legal_mask[only] = 1  # pretend only one card is playable
    assert agent.act(turn) == only and agent.last is None
    greedy = AZAgent(net, SearchConfig(simulations=0))
    greedy.reset(g, 0, 0)
    assert g.legal_mask(s)[greedy.act(make_turn(g, s, 0, 1))]
    path = save_model(net, tmp_path / "m.pt", g, SearchConfig(simulations=9))
    assert make_agent(f"az:{path}", "octrix").search.simulations == 9
    assert make_agent(f"az:{path}:3", "octrix").search.simulations == 3


def test_a_full_leaf_value_mix_replaces_the_network_values():
    """With ``leaf_value_mix=1`` Achten's compiled showdown value alone values the leaves: the network's
    values no longer change the search, its priors still do."""
    g = Game("achten", deal_penalty=1)
    _, relative = linear_fns(g, seed=1)
    _, other = linear_fns(g, seed=2)

    def other_values(obs, masks, players):
        return relative(obs, masks, players)[0], other(obs, masks, players)[1]

    states = np.array(decisions(g, 3, seed=4), dtype=g.dtype)
    players = np.array([g.acting_player(s) for s in states])
    search = BatchedSearch(g, 3, SearchConfig(simulations=40, leaf_value_mix=1.0))
    a = search.run(states, players, np.ones(3, bool), np.arange(3), relative)
    b = search.run(states, players, np.ones(3, bool), np.arange(3), other_values)
    np.testing.assert_array_equal(a["visits"], b["visits"])
    plain = BatchedSearch(g, 3, SearchConfig(simulations=40))
    c = plain.run(states, players, np.ones(3, bool), np.arange(3), relative)
    d = plain.run(states, players, np.ones(3, bool), np.arange(3), other_values)
    assert not np.array_equal(c["visits"], d["visits"])


def test_searching_given_worlds_searches_them_as_they_are():
    """``run(worlds=...)`` descends from the given full records without determinizing them: the search no
    longer depends on its seed, and a world where the opponent holds a strong hand is worth less."""
    g = Game("achten", deal_penalty=1)
    _, relative = linear_fns(g)
    states = np.array(decisions(g, 3, seed=4), dtype=g.dtype)
    players = np.array([g.acting_player(s) for s in states])
    search = BatchedSearch(g, 3, SearchConfig(simulations=48, leaf_value_mix=1.0))

    showdown = leaf_value_function(g)  # the searcher's returns if the hands were shown now

    def worth(w, p):
        out = np.zeros(g.num_players)
        showdown(w, out)
        return out[p]

    strong, weak = [], []
    for s, p in zip(states, players):
        ws = sorted((g.determinize(s, int(p), k) for k in range(60)), key=lambda w: worth(w, int(p)))
        strong.append(ws[:4])  # the worlds where the opponent's hand is best against the searcher's
        weak.append(ws[-4:])
    strong, weak = np.array(strong, g.dtype).T, np.array(weak, g.dtype).T  # [W, B]
    on = np.ones(3, bool)
    a = search.run(states, players, on, np.arange(3), relative, worlds=strong)
    b = search.run(states, players, on, np.arange(3) + 50, relative, worlds=strong)
    np.testing.assert_array_equal(a["visits"], b["visits"])  # no determinization: the seed is not used
    c = search.run(states, players, on, np.arange(3), relative)
    d = search.run(states, players, on, np.arange(3) + 50, relative)
    assert not np.array_equal(c["visits"], d["visits"])
    w = search.run(states, players, on, np.arange(3), relative, worlds=weak)

    def mean_q(res):
        return (res["visits"] * res["q"]).sum(1) / res["visits"].sum(1)

    assert (mean_q(a) < mean_q(w)).all(), (mean_q(a), mean_q(w))
    assert states.tobytes() == np.array(decisions(g, 3, seed=4), dtype=g.dtype).tobytes()
    with pytest.raises(ValueError, match="worlds of shape"):
        search.run(states, players, on, np.arange(3), relative, worlds=strong[:, :2])


def test_an_agent_with_a_belief_plays_achten_and_refuses_games_without_one():
    g = Game("achten", deal_penalty=1)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    agent = AZAgent(net, SearchConfig(simulations=8, leaves_per_game=2, belief_worlds=3), name="az-belief")
    res = play_match(g, [agent, make_agent("heuristic", "achten")], num_games=2, seed=0, progress=False)
    assert res.records[0].games == 2 and agent.belief is not None
    with pytest.raises(ValueError, match="belief_worlds=-1"):
        SearchConfig(belief_worlds=-1)
    o = Game("octrix")
    other = AZAgent(PolicyValueNet(o.observation_size, o.num_actions, 2, hidden=(8,)), SearchConfig(belief_worlds=3))
    with pytest.raises(ValueError, match="belief_worlds: octrix has no belief"):
        other.reset(o, 0, 0)
    with pytest.raises(ValueError, match="match=False"):
        agent.reset(Game("achten", match=True), 0, 0)
    from octagames.agents.learn.az_selfplay import WorkerConfig
    with pytest.raises(ValueError, match="belief_worlds=2"):
        WorkerConfig(search=SearchConfig(belief_worlds=2))


def model_rounds(g: Game, seeds: range):
    """Every decision ``(seed, state, seat, turn)`` of Achten rounds played by the model (the compiled
    heuristic), so that a belief built on that model fits the other seat's moves at once."""
    from octagames.agents.search.belief_achten import model_action
    for seed in seeds:
        s = g.new_state(seed)
        while g.current_player(s) == CHANCE:
            g.play_chance(s)
        while not g.is_terminal(s):
            p = g.acting_player(s)
            yield seed, s, p, make_turn(g, s, p, seed)
            g.apply_action(s, model_action(g, s, p))


def test_belief_rollouts_play_the_action_with_most_wins_under_the_networks_greedy_policy():
    from octagames.agents.search.belief_achten import believed_worlds, rollout_wins
    g = Game("achten", deal_penalty=1)
    torch.manual_seed(0)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    agent = AZAgent(net, SearchConfig(simulations=0, belief_worlds=4, belief_rollouts=True), name="az-rollouts")
    res = play_match(g, [agent, make_agent("heuristic", "achten")], num_games=1, seed=0, progress=False)
    assert res.records[0].games == 1
    policy = agent.greedy_policy(g)
    checked = 0
    for seed, s, p, turn in model_rounds(g, range(3)):
        priors, _ = agent.evaluate(turn.observation[None, :].astype(np.float32), turn.legal_mask[None, :],
                                   np.array([p]))
        greedy = int(np.argmax(np.where(turn.legal_mask > 0, priors[0], -1.0)))
        assert policy(np.array([s], dtype=g.dtype), np.array([p]))[0] == greedy
        if len(turn.legal_actions) > 1:
            agent.reset(g, p, seed)
            chosen = agent.act(turn)
            worlds = believed_worlds(g, s, p, np.random.default_rng(seed), 4)
            legal = [int(a) for a in turn.legal_actions]
            assert chosen == legal[int(np.argmax(rollout_wins(g, worlds, p, legal, policy)))]
            checked += 1
    assert checked >= 3
    with pytest.raises(ValueError, match="belief_rollouts=True needs belief_worlds"):
        SearchConfig(belief_rollouts=True)
    from octagames.agents.learn.az_selfplay import WorkerConfig
    with pytest.raises(ValueError, match="belief_worlds=2"):
        WorkerConfig(search=SearchConfig(belief_worlds=2, belief_rollouts=True))


def test_belief_rollouts_by_the_model_with_the_network_search_as_a_tie_breaker():
    from octagames.agents.search.belief_achten import believed_worlds, rollout_wins
    g = Game("achten", deal_penalty=1)
    torch.manual_seed(0)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    w = 0.3
    plain = AZAgent(net, SearchConfig(simulations=0, belief_worlds=4, belief_rollouts=True, rollout_policy="model"))
    voted = AZAgent(net, SearchConfig(simulations=16, leaves_per_game=4, belief_worlds=4, belief_rollouts=True,
                                      rollout_policy="model", rollout_search_weight=w))
    checked = 0
    for seed, s, p, turn in model_rounds(g, range(3)):
        legal = [int(a) for a in turn.legal_actions]
        if len(legal) > 1:
            wins = rollout_wins(g, believed_worlds(g, s, p, np.random.default_rng(seed), 4), p, legal) / 4
            plain.reset(g, p, seed)
            assert plain.act(turn) == legal[int(np.argmax(wins))]  # the belief agent's choice
            voted.reset(g, p, seed)
            chosen = voted.act(turn)
            visits = voted.last["visits"][0][legal]
            assert visits.sum() > 0
            assert chosen == legal[int(np.argmax(wins + w * visits / visits.sum()))]
            checked += 1
    assert checked >= 3
    with pytest.raises(ValueError, match="rollout_policy='heuristic'"):
        SearchConfig(belief_worlds=2, belief_rollouts=True, rollout_policy="heuristic")
    with pytest.raises(ValueError, match="rollout_search_weight=-0.1"):
        SearchConfig(belief_worlds=2, belief_rollouts=True, rollout_search_weight=-0.1)
    with pytest.raises(ValueError, match="rollout_search_weight=0.1 needs belief_rollouts=True"):
        SearchConfig(belief_worlds=2, rollout_search_weight=0.1)
    with pytest.raises(ValueError, match="simulations=0"):
        SearchConfig(simulations=0, belief_worlds=2, belief_rollouts=True, rollout_search_weight=0.1)


def test_a_network_belief_believes_and_rolls_out_with_the_networks_greedy_policy_alone(monkeypatch):
    from octagames.agents.search import belief_achten
    g = Game("achten", deal_penalty=1)
    torch.manual_seed(1)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,),
                         action_features=action_block(g))
    search = SearchConfig(simulations=0, belief_worlds=4, belief_model="network", belief_rollouts=True,
                          rollout_policy="model", rollout_margin=1.0)
    agent = AZAgent(net, search, name="az-network-belief")
    policy = agent.greedy_policy(g)

    def forbidden(*_args, **_kwargs):
        raise AssertionError("the compiled heuristic was asked")

    checked = 0
    for seed, s, p, turn in model_rounds(g, range(2)):
        if len(turn.legal_actions) < 2:
            continue
        agent.reset(g, p, seed)
        with monkeypatch.context() as m:
            m.setattr(belief_achten, "model_action", forbidden)
            m.setattr(belief_achten, "achten_playout", forbidden)
            chosen = agent.act(turn)
        worlds = belief_achten.believed_worlds(g, s, p, np.random.default_rng(seed), 4, model=policy)
        legal = [int(a) for a in turn.legal_actions]
        values = belief_achten.rollout_values(g, worlds, p, legal, model=policy)
        base = legal.index(int(policy(np.array([s], dtype=g.dtype), np.array([p]))[0]))
        d = values - values[:, [base]]
        assert chosen in legal and (chosen == legal[base] or d[:, legal.index(chosen)].mean() > 0)
        checked += 1
    assert checked >= 3
    assert network_only(search) == dataclasses.replace(search, dirichlet_alpha=0.0)  # nothing hand-written to drop
    assert network_only(search, 8) == dataclasses.replace(search, simulations=8, dirichlet_alpha=0.0)
    assert network_only(search, 0).belief_worlds == 0 and network_only(dataclasses.replace(
        search, belief_model="heuristic")).belief_worlds == 0
    with pytest.raises(ValueError, match="belief_model='bad' is not valid; "
                                         "valid values: \\['heuristic', 'network', 'learned'\\]"):
        SearchConfig(belief_model="bad")
    with pytest.raises(ValueError, match="belief_model='network' needs belief_worlds >= 1"):
        SearchConfig(belief_model="network")
    o = Game("octa-en")
    octa = AZAgent(PolicyValueNet(o.observation_size, o.num_actions, 2, hidden=(8,)),
                   SearchConfig(simulations=0, belief_worlds=2, belief_model="network", belief_rollouts=True,
                                rollout_policy="model"), name="az-octa")
    with pytest.raises(ValueError, match="belief_model='network' is not available there"):
        octa.reset(o, 0, 0)


class HighestLegal(RandomAgent):
    """Always the highest legal action; an out-of-range action when told to."""

    def __init__(self, illegal: bool = False) -> None:
        super().__init__()
        self.illegal = illegal

    def act(self, turn):
        return 10**6 if self.illegal else int(turn.legal_actions[-1])


@pytest.mark.parametrize("weight", [1.0, 0.3])
def test_a_prior_hint_moves_that_share_of_the_root_priors_onto_the_agents_choice(monkeypatch, weight):
    monkeypatch.setitem(AGENTS, "highest", AgentEntry(lambda game, arg: HighestLegal(), "test agent"))
    g = Game("achten", deal_penalty=1)
    _, relative = linear_fns(g)
    states = np.array(decisions(g, 3, seed=5), dtype=g.dtype)
    players = np.array([g.acting_player(s) for s in states])
    cfg = SearchConfig(simulations=8)
    plain = BatchedSearch(g, 3, cfg).run(states, players, np.ones(3, bool), np.arange(3), relative)
    hinted = BatchedSearch(g, 3, dataclasses.replace(cfg, prior_hint="highest", prior_hint_weight=weight)).run(
        states, players, np.ones(3, bool), np.arange(3), relative)
    for b in range(3):
        legal = g.legal_mask(states[b]).astype(bool)
        want = (1.0 - weight) * plain["prior"][b]
        want[np.flatnonzero(legal)[-1]] += weight
        np.testing.assert_allclose(hinted["prior"][b], want, rtol=1e-6, atol=1e-9)
        assert not hinted["visits"][b][~legal].any()


def test_a_hint_naming_an_illegal_action_leaves_the_priors_alone(monkeypatch):
    monkeypatch.setitem(AGENTS, "wrong", AgentEntry(lambda game, arg: HighestLegal(illegal=True), "test agent"))
    g = Game("octrix")
    _, relative = linear_fns(g)
    s = decisions(g, 1, seed=3)[0]
    p = np.array([g.acting_player(s)])
    plain = BatchedSearch(g, 1, SearchConfig(simulations=4)).run(np.array([s]), p, np.array([True]), np.array([0]),
                                                                 relative)
    hinted = BatchedSearch(g, 1, SearchConfig(simulations=4, prior_hint="wrong", prior_hint_weight=0.9)).run(
        np.array([s]), p, np.array([True]), np.array([0]), relative)
    np.testing.assert_array_equal(plain["prior"], hinted["prior"])
    np.testing.assert_array_equal(plain["visits"], hinted["visits"])


def test_bad_prior_hints_are_refused_in_words():
    with pytest.raises(ValueError, match="prior_hint_weight=1.5"):
        SearchConfig(prior_hint="heuristic", prior_hint_weight=1.5)
    with pytest.raises(ValueError, match="nonsense"):
        BatchedSearch(Game("octrix"), 1, SearchConfig(prior_hint="nonsense"))


def test_a_model_file_keeps_its_prior_hint_and_plays_with_it(tmp_path):
    g = Game("octrix")
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    path = save_model(net, tmp_path / "m.pt", g, SearchConfig(simulations=4, prior_hint="heuristic",
                                                                prior_hint_weight=0.7))
    agent = AZAgent.load(path, game=g)
    assert (agent.search.prior_hint, agent.search.prior_hint_weight) == ("heuristic", 0.7)
    returns, _ = play_game(g, [agent, RandomAgent()], seed=0)
    assert len(returns) == 2


def test_octa_rollouts_keep_the_models_choice_unless_the_paired_rollouts_beat_it():
    from octagames.agents.search.rollouts import (believed_worlds, model_action, paired_choice, pruned_values,
                                           rollout_values)
    g = Game("octa", rules="en")
    torch.manual_seed(0)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    w = 0.3
    agent = AZAgent(net, SearchConfig(simulations=8, leaves_per_game=4, belief_worlds=6, belief_rollouts=True,
                                      rollout_policy="model", rollout_margin=0.5, rollout_search_weight=w))
    s, checked, k = g.new_state(4), 0, 0
    while checked < 3:
        if g.is_chance(s):
            g.play_chance(s)
            continue
        p = g.acting_player(s)
        legal = [int(a) for a in g.legal_actions(s)]
        k += len(legal) > 1
        if len(legal) > 1 and k % 20 == 0:
            turn = make_turn(g, s, p, k)
            agent.reset(g, p, k)
            chosen = agent.act(turn)
            worlds = believed_worlds(g, turn.state, p, np.random.default_rng(k), 6)
            base = legal.index(model_action(g, turn.state, p))
            values = pruned_values(lambda ws, idx: rollout_values(g, ws, p, [legal[i] for i in idx]), worlds,
                                   len(legal), base)
            visits = agent.last["visits"][0][legal]
            assert visits.sum() > 0
            assert chosen == legal[paired_choice(values, base, 0.5, w * visits / visits.sum())]
            checked += 1
        g.apply_action(s, model_action(g, s, p))
    by_network = AZAgent(net, SearchConfig(simulations=0, belief_worlds=2, belief_rollouts=True))
    with pytest.raises(ValueError, match="network rollout policy is not available"):
        by_network.reset(g, 0, 0)
    with pytest.raises(ValueError, match="rollout_margin=-0.5 is not valid"):
        SearchConfig(belief_worlds=2, belief_rollouts=True, rollout_policy="model", rollout_margin=-0.5)
    with pytest.raises(ValueError, match="rollout_margin=1.0 needs belief_rollouts=True"):
        SearchConfig(belief_worlds=2, rollout_margin=1.0)
    with pytest.raises(ValueError, match="rollout_policy='network'"):
        SearchConfig(belief_worlds=2, belief_rollouts=True, rollout_margin=1.0)


def test_the_first_weight_is_column_major_through_loading_and_casts_and_both_paths_agree():
    # stored feature by feature, the sparse first layer reads it with no transposing copy
    net, other = PolicyValueNet(300, 10, 2, hidden=(16,)), PolicyValueNet(300, 10, 2, hidden=(16,))
    assert net.first.weight.t().is_contiguous()
    net.load_state_dict({k: v.contiguous() for k, v in other.state_dict().items()})  # a row-major file
    assert net.first.weight.t().is_contiguous() and torch.equal(net.first.weight, other.first.weight)
    net.double()
    assert net.first.weight.t().is_contiguous()
    obs = (torch.rand(64, 300, generator=torch.Generator().manual_seed(0)) < 0.05).double()
    with torch.no_grad():
        sparse, dense = net(obs), net(obs[:8])  # 64 rows take the sparse first layer, 8 the dense one
    assert all(torch.allclose(a[:8], b) for a, b in zip(sparse, dense))
