"""The learned rollout policy (``octagames.agents.search.learned_rollouts``): its compiled choice, its
rollouts, its fit, its place in model files and in ``net:`` agents."""

import dataclasses

import numpy as np
import pytest
import torch

from octagames.agents.arena import play_match
from octagames.agents.base import make_turn
from octagames.agents.learn.az import AZAgent, PolicyValueNet, SearchConfig, load_model, network_only, save_model
from octagames.agents.registry import make_agent
from octagames.agents.search.learned_rollouts import (Decisions, LearnedRollout, features, fit, improve, kernels,
                                                     teacher_decisions)
from octagames.agents.search.mcts import playout_kernels, playout_policy, win_values
from octagames.agents.search.rollouts import believed_worlds, model_action, rollout_values
from octagames.core import Game
from test_rollouts import decisions as positions  # this folder's: every few decisions of a heuristic game


def random_policy(g: Game, seed: int, rank: int = 0) -> LearnedRollout:
    f = features(g)
    rng = np.random.default_rng(seed)
    embed = (rng.normal(size=(rank, g.observation_size)), rng.normal(size=(g.num_actions, rank))) if rank else ()
    return LearnedRollout(g, rng.normal(size=(f.groups, f.inputs)), rng.normal(size=g.num_actions), *embed)


@pytest.mark.parametrize("rules,rank", [("en", 0), ("nl", 0), ("nl", 3)])
def test_the_compiled_choice_is_the_highest_score_of_the_facts(rules, rank):
    g = Game("octa", rules=rules)
    policy = random_policy(g, 1, rank)
    f = policy.features
    checked = 0
    for s, p in positions(g, seed=4, every=10):
        legal = g.legal_actions(s, p)
        obs = g.observation(s, p)
        scores = policy.scores(obs, legal)
        # the score by hand: each row of the action's refs, its k facts times the group's weights
        for i, a in enumerate(legal[:5]):
            rows = [r for r in f.refs[a] if r >= 0]
            by_hand = policy.bias[a] + sum(
                float(np.dot(obs[f.offset + r * f.k:f.offset + (r + 1) * f.k],
                             policy.weight[f.group[a], j * f.k:(j + 1) * f.k]))
                for j, r in enumerate(f.refs[a]) if r >= 0)
            by_hand += sum(policy.action_embed[a, c] * float(np.dot(policy.embed[c], obs)) for c in range(rank))
            assert scores[i] == pytest.approx(by_hand, rel=1e-5, abs=1e-5), (a, rows)
        before = s.tobytes()
        assert policy.action(s, p) == legal[int(np.argmax(scores))]
        assert s.tobytes() == before  # the record is not changed
        checked += 1
    assert checked >= 5


def test_rollouts_equal_a_playout_by_the_policy_through_the_python_api():
    g = Game("octa", rules="en")
    policy = random_policy(g, 2)
    s, p = next(positions(g, seed=6, every=30))
    legal = [int(a) for a in g.legal_actions(s, p)][:4]
    worlds = believed_worlds(g, s, p, np.random.default_rng(0), 3)
    before = [w.tobytes() for w in worlds]
    values = rollout_values(g, worlds, p, legal, learned=policy)
    assert [w.tobytes() for w in worlds] == before
    for w, world in enumerate(worlds):
        for i, a in enumerate(legal):
            rec = np.array(world, dtype=g.dtype).reshape(1)
            x = rec[0]
            g.apply_action(x, a)
            while not g.is_terminal(x):
                if g.is_chance(x):
                    g.apply_action(x, g.sample_chance(x))
                else:
                    q = g.acting_player(x)
                    g.apply_action(x, int(g.legal_actions(x, q)[np.argmax(policy.scores(g.observation(x, q),
                                                                                        g.legal_actions(x, q)))]))
            win = np.zeros(g.num_players)
            win_values(g.returns(x), g.num_players, win)
            assert values[w, i] == win[p]
    # the heuristic's rollouts of the same worlds are another policy's: not the same values everywhere
    assert model_action(g, s, p, learned=policy) == policy.action(s, p)


def test_fit_learns_a_linear_teachers_choices():
    g = Game("octa", rules="en")
    teacher = random_policy(g, 3)
    observations, legal, choice = [], [], []
    for seed in range(6):
        for s, p in positions(g, seed=seed, every=1):
            acts = g.legal_actions(s, p)
            obs = g.observation(s, p)
            observations.append(obs.astype(np.float16))
            legal.append(acts)
            choice.append(int(np.argmax(teacher.scores(obs.astype(np.float16).astype(np.float32), acts))))
    width = max(len(a) for a in legal)
    padded = np.full((len(legal), width), -1, np.int64)
    for r, acts in enumerate(legal):
        padded[r, :len(acts)] = acts
    data = Decisions(np.stack(observations), padded, np.array(choice))
    before = torch.random.get_rng_state()
    learned, curve = fit(g, data, steps=600, batch_size=256, learning_rate=0.05, eval_every=300)
    assert torch.equal(torch.random.get_rng_state(), before)  # torch's global RNG untouched
    assert [p["step"] for p in curve] == [300, 600]
    chance = float(np.mean([1 / len(a) for a in legal]))
    assert curve[-1]["held_out_accuracy"] > max(0.8, 2 * chance)
    short = dict(steps=30, batch_size=256, learning_rate=0.05, eval_every=10)
    (one, curve1), (two, curve2) = fit(g, data, **short), fit(g, data, **short)
    assert np.array_equal(one.weight, two.weight) and curve1 == curve2  # seeded: the same fit
    assert not np.array_equal(one.weight, learned.weight)
    embedded, _ = fit(g, data, steps=20, batch_size=64, rank=2)
    assert embedded.rank == 2 and embedded.embed.shape == (2, g.observation_size)
    with pytest.raises(ValueError, match="too few to keep"):
        fit(g, Decisions(data.observations[:1], data.legal[:1], data.choice[:1]))
    with pytest.raises(ValueError, match="rank=-1 is not valid"):
        fit(g, data, rank=-1)
    with pytest.raises(ValueError, match="held_out=1.5"):
        fit(g, data, held_out=1.5)


def test_teacher_decisions_label_the_heuristics_choice_at_every_choice_it_made():
    g = Game("octa", rules="nl")
    data = teacher_decisions(g, 2, seed=5, epsilon=0.0)
    assert len(data) > 50 and data.observations.shape == (len(data), g.observation_size)
    n = (data.legal >= 0).sum(axis=1)
    assert (n > 1).all() and (data.choice < n).all()
    # replayed: the first game's first decision with a choice is the heuristic's
    s = g.new_state(5 * 1_000_003)
    while g.is_chance(s) or len(g.legal_actions(s)) < 2:
        if g.is_chance(s):
            g.play_chance(s)
        else:
            g.apply_action(s, g.legal_actions(s)[0])
    p = g.acting_player(s)
    assert data.legal[0, data.choice[0]] == model_action(g, s, p)
    assert np.array_equal(data.observations[0], g.observation(s, p).astype(np.float16))
    with pytest.raises(ValueError, match="epsilon=2"):
        teacher_decisions(g, 1, epsilon=2)


def test_refusals_name_what_is_wrong():
    g = Game("octa", rules="en")
    f = features(g)
    D = g.observation_size
    with pytest.raises(ValueError, match=rf"weight \[\d+, 24\], bias \[1074\], embed \[rank, {D}\]"):
        LearnedRollout(g, np.zeros((f.groups, 3)), np.zeros(g.num_actions))
    with pytest.raises(ValueError, match=rf"got .*\[2, {D}\], \[1074, 3\]"):
        LearnedRollout(g, np.zeros((f.groups, f.inputs)), np.zeros(g.num_actions), np.zeros((2, g.observation_size)),
                       np.zeros((g.num_actions, 3)))
    with pytest.raises(ValueError, match="both embed and action_embed"):
        LearnedRollout(g, np.zeros((f.groups, f.inputs)), np.zeros(g.num_actions), np.zeros((2, g.observation_size)))
    with pytest.raises(ValueError, match="finite"):
        LearnedRollout(g, np.full((f.groups, f.inputs), np.nan), np.zeros(g.num_actions))
    with pytest.raises(ValueError, match="octrix names none"):
        features(Game("octrix"))
    with pytest.raises(ValueError, match="is \\['action_embed', 'bias', 'embed', 'weight'\\]"):
        LearnedRollout.from_state(g, {"weight": 1})
    plain = random_policy(g, 5)  # a policy without an embedding may be kept as its weight and bias alone
    assert LearnedRollout.from_state(g, {"weight": plain.weight, "bias": plain.bias}).rank == 0
    with pytest.raises(ValueError, match="belief_model='learned' needs belief_rollouts=True"):
        SearchConfig(belief_model="learned", belief_worlds=4)
    with pytest.raises(ValueError, match="valid values: \\['heuristic', 'network', 'learned'\\]"):
        SearchConfig(belief_model="bad")


def test_an_embedding_of_an_earlier_observation_reads_its_prefix():
    """A policy kept when Octa's observation was shorter scores as before: its embedding weighs the entries
    added since at 0; an embedding of any other width is refused."""
    g = Game("octa-nl")
    old = g.earlier_observation_sizes[-1]
    rng = np.random.default_rng(2)
    f = features(g)
    state = {"weight": rng.normal(size=(f.groups, f.inputs)), "bias": rng.normal(size=g.num_actions),
             "embed": rng.normal(size=(3, old)), "action_embed": rng.normal(size=(g.num_actions, 3))}
    policy = LearnedRollout.from_state(g, state)
    assert policy.embed.shape == (3, g.observation_size) and not policy.embed[:, old:].any()
    for s, p in positions(g, 3, 40):
        obs = g.observation(s, p).astype(np.float64)
        legal = g.legal_actions(s)
        table = obs[f.offset:f.offset + f.rows * f.k].reshape(f.rows, f.k)
        by_hand = [state["bias"][a] + sum(table[r] @ state["weight"][f.group[a], i * f.k:(i + 1) * f.k]
                                          for i, r in enumerate(f.refs[a]) if r >= 0)
                   + state["action_embed"][a] @ (state["embed"] @ obs[:old]) for a in legal]
        np.testing.assert_allclose(policy.scores(obs, legal), by_hand)
    with pytest.raises(ValueError, match=r"embed \[rank, \d+\]"):
        LearnedRollout.from_state(g, {**state, "embed": rng.normal(size=(3, old + 1))})


def small_net(g: Game) -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))


def test_a_model_file_carries_the_policy_and_net_agents_roll_out_by_it(tmp_path):
    g = Game("octa", rules="en")
    policy = random_policy(g, 4, rank=2)
    heuristic_rollouts = SearchConfig(simulations=0, belief_worlds=4, belief_rollouts=True, rollout_policy="model",
                                      rollout_margin=1.0)
    path = save_model(small_net(g), tmp_path / "m.pt", g, heuristic_rollouts, half=True, learned=policy)
    net, data = load_model(path, g)
    back = LearnedRollout.from_state(g, data["learned_rollout"])
    assert all(np.array_equal(getattr(back, k), getattr(policy, k)) for k in ("weight", "bias", "embed", "action_embed"))
    # the model's own search keeps the heuristic; the network alone rolls out by the learned policy
    assert AZAgent.load(path, game=g).search.belief_model == "heuristic"
    alone = AZAgent.load(path, game=g, network_alone=True)
    assert dataclasses.asdict(alone.search) == dataclasses.asdict(dataclasses.replace(
        heuristic_rollouts, belief_model="learned"))
    assert AZAgent.load(path, 0, game=g).search.belief_rollouts is False  # the policy alone: no rollouts
    plain = save_model(small_net(g), tmp_path / "plain.pt", g, heuristic_rollouts)
    assert AZAgent.load(plain, game=g, network_alone=True).search.belief_rollouts is False
    assert network_only(heuristic_rollouts, learned=True).belief_model == "learned"
    # its moves: the learned policy's choice unless paired rollouts by it beat that choice
    alone.reset(g, 0, 7)
    assert alone.learned is not None
    s, p = next(positions(g, seed=8, every=20))
    from octagames.agents.base import make_turn
    turn = make_turn(g, s, p, 3)
    stubborn = AZAgent.load(path, game=g, network_alone=True)
    stubborn.search = dataclasses.replace(stubborn.search, rollout_margin=1e9)
    stubborn.reset(g, p, 3)
    assert stubborn.act(turn) == policy.action(turn.state, p)
    res = play_match(g, [alone, make_agent("heuristic", g)], num_games=1, seed=0, progress=False)
    assert res.records[0].games == 1
    # a search that asks for the learned policy in a file without one is refused at reset, in words
    refused = AZAgent.load(plain, game=g)
    refused.search = dataclasses.replace(refused.search, belief_model="learned")
    with pytest.raises(ValueError, match="carries a learned rollout policy.*experiments.train_rollout adds one"):
        refused.reset(g, 0, 0)
    with pytest.raises(ValueError, match="the learned rollout policy plays"):
        save_model(small_net(g), tmp_path / "x.pt", Game("octa", rules="nl"), learned=policy)


def test_the_kernels_are_specialised_once_per_rulebook():
    en, nl = Game("octa", rules="en"), Game("octa", rules="nl")
    assert kernels(en) is kernels(Game("octa", rules="en")) and kernels(en) is not kernels(nl)


def test_duel_games_equal_games_played_through_the_python_api():
    g = Game("octa", rules="en")
    policy = random_policy(g, 5)
    wins = policy.duel_wins(4, seed=11)
    heuristic = playout_kernels(g.kernel_module, playout_policy(g)).policy_many
    chosen = np.zeros(1, np.int64)
    for i, expected in enumerate(wins):
        rec = g.new_batch(1, 11 + i)  # the duel's deal i: seed + i
        s, seat = rec[0], i % g.num_players
        steps = 0
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            p = g.acting_player(s)
            if p == seat:
                legal = g.legal_actions(s, p)
                a = int(legal[np.argmax(policy.scores(g.observation(s, p), legal))])
            else:  # the compiled heuristic on the record itself: its draws advance the record's RNG as in the duel
                heuristic(rec, np.array([p]), g.legal_mask(s, p).astype(np.uint8)[None, :], chosen)
                a = int(chosen[0])
            g.apply_action(s, a)
            steps += 1
        win = np.zeros(g.num_players)
        win_values(g.returns(s), g.num_players, win)
        assert expected == win[seat] and steps > 20
    assert policy.duel_wins(4, seed=11).tolist() == wins.tolist()  # the deals are the seed's
    with pytest.raises(ValueError, match="games=0 is not valid"):
        policy.duel_wins(0)


def test_improve_lifts_a_random_policy_against_the_heuristic_the_same_on_any_thread_count():
    g = Game("octa", rules="en")
    start = random_policy(g, 1)
    before = start.weight.copy(), start.bias.copy()
    one, curve = improve(start, iterations=10, pairs=8, games=100, eval_games=400, eval_every=5, threads=2)
    assert np.array_equal(start.weight, before[0]) and np.array_equal(start.bias, before[1])  # not changed
    assert [p["iteration"] for p in curve] == [0, 5, 10] and curve[-1]["games"] == 10 * 16 * 100
    small = dict(iterations=2, pairs=3, games=20, eval_games=20)
    alone, alone_curve = improve(start, threads=1, **small)
    both, both_curve = improve(start, threads=2, **small)
    assert np.array_equal(alone.weight, both.weight) and np.array_equal(alone.bias, both.bias)
    assert alone_curve == both_curve
    # a curve point is the policy's win rate on the held-out deals, measured again here
    assert one.duel_wins(400, seed=1 << 40).mean() == curve[-1]["win_rate"]
    assert curve[-1]["lower"] > curve[0]["upper"], curve  # far better than where it started
    # weights that no action reads stay as they were (here: every group's slots past the rows its actions name)
    f = start.features
    unread = np.ones(start.weight.shape, bool)
    for j in range(f.refs.shape[1]):
        for grp in np.unique(f.group[f.refs[:, j] >= 0]):
            unread[grp, j * f.k:(j + 1) * f.k] = False
    assert unread.any() and np.array_equal(one.weight[unread], start.weight[unread])
    other, _ = improve(start, iterations=1, pairs=2, games=10, eval_games=10, seed=1)
    assert not np.array_equal(other.bias, improve(start, iterations=1, pairs=2, games=10, eval_games=10)[0].bias)
    # stopped (Ctrl-C) at its point of iteration 2: the policy and curve of a run of 2 iterations

    def stop_at_2(policy, points):
        if points[-1]["iteration"] == 2:
            raise KeyboardInterrupt

    stopped, short = improve(start, iterations=5, pairs=2, games=10, eval_games=10, eval_every=1, on_point=stop_at_2)
    two, full = improve(start, iterations=2, pairs=2, games=10, eval_games=10, eval_every=1)
    assert short == full and np.array_equal(stopped.bias, two.bias) and not np.array_equal(two.bias, start.bias)
    with pytest.raises(ValueError, match="pairs=0 is not valid"):
        improve(start, pairs=0)
    with pytest.raises(ValueError, match="sigma=0 and learning_rate"):
        improve(start, sigma=0)
    with pytest.raises(ValueError, match="embedding of rank 2"):
        improve(random_policy(g, 1, rank=2))


def test_improve_tunes_only_the_blocks_it_is_given():
    g = Game("octa", rules="en")
    start = random_policy(g, 2)
    f = start.features
    names = [b.name for b in g.action_layout.blocks]
    tuned = [names.index(b) for b in ("discard", "lay")]
    small = dict(iterations=2, pairs=3, games=20, eval_games=20)
    some, _ = improve(start, blocks=("discard", "lay"), **small)
    mine = np.isin(f.group, tuned)  # the actions of the tuned blocks
    assert np.array_equal(some.bias[~mine], start.bias[~mine]) and not np.array_equal(some.bias[mine], start.bias[mine])
    others = np.setdiff1d(np.arange(f.groups), tuned)
    assert np.array_equal(some.weight[others], start.weight[others])
    for grp in tuned:  # a tuned block's weights move where its actions name a row (the first slot: their kind)
        assert not np.array_equal(some.weight[grp, :f.k], start.weight[grp, :f.k])
    # every block named is all blocks
    every, _ = improve(start, blocks=tuple(names), **small)
    whole, _ = improve(start, **small)
    assert np.array_equal(every.weight, whole.weight) and np.array_equal(every.bias, whole.bias)
    with pytest.raises(ValueError, match=r"\['nothing'\] not in the action table of octa; valid values: \['pile'"):
        improve(start, blocks=("lay", "nothing"), **small)


def test_a_model_files_learned_policy_plays_alone_at_zero_simulations(tmp_path):
    g = Game("octa", rules="en")
    rollout, alone = random_policy(g, 6), random_policy(g, 7)
    search = SearchConfig(simulations=0, belief_worlds=4, belief_rollouts=True, rollout_policy="model",
                          rollout_margin=1.0)
    path = save_model(small_net(g), tmp_path / "m.pt", g, search, learned=rollout, alone=alone)
    data = load_model(path, g)[1]
    assert np.array_equal(LearnedRollout.from_state(g, data["learned_policy"]).bias, alone.bias)
    from octagames.agents.base import make_turn
    played = 0
    for spec_agent in (AZAgent.load(path, 0, game=g), AZAgent.load(path, 0, game=g, network_alone=True)):
        spec_agent.reset(g, 0, 0)
        assert spec_agent.alone is not None and not spec_agent.search.belief_rollouts
        for s, p in positions(g, seed=9, every=15):
            turn = dataclasses.replace(make_turn(g, s, p, 1), tell=True)
            if len(turn.legal_actions) > 1:  # the view's moves are the true state's: it reads the observation
                assert spec_agent.act(turn) == alone.action(s, p) != -1
                shares = spec_agent.last_thinking["policy"]
                assert max(shares, key=shares.get) == alone.action(s, p)
                played += 1
    assert played >= 4
    searching = AZAgent.load(path, game=g, network_alone=True)  # with its rollouts: the rollout policy, not alone
    searching.reset(g, 0, 0)
    assert searching.alone is None and searching.learned is not None
    plain = AZAgent.load(save_model(small_net(g), tmp_path / "plain.pt", g, search, learned=rollout), 0, game=g)
    plain.reset(g, 0, 0)
    assert plain.alone is None  # no learned policy: the network's greedy policy as before
    with pytest.raises(ValueError, match="the learned policy plays"):
        save_model(small_net(g), tmp_path / "x.pt", Game("octa", rules="nl"), alone=alone)


def test_the_rollouts_can_be_made_to_beat_the_files_learned_policy_instead_of_the_rollout_policys_choice(
        tmp_path, monkeypatch):
    g = Game("octa", rules="en")
    rollout, alone = random_policy(g, 6), random_policy(g, 7)
    search = SearchConfig(simulations=0, belief_worlds=2, belief_rollouts=True, rollout_policy="model",
                          rollout_margin=1e9)
    path = save_model(small_net(g), tmp_path / "m.pt", g, search, learned=rollout, alone=alone)
    own = AZAgent.load(path, game=g, network_alone=True)  # the rollout policy's choice, as before
    based = AZAgent.load(path, game=g, network_alone=True)
    based.search = dataclasses.replace(based.search, rollout_base="learned_policy")
    differ = 0
    for agent in (own, based):
        agent.reset(g, 0, 0)
    # every action's rollouts worth the same: none beats the base, and each agent plays its base (with two worlds
    # an action that gains the same in both has a standard error of 0, and beats any margin)
    monkeypatch.setattr(own.belief, "rollout_values", lambda g, ws, seat, acts, *a, **k: np.zeros((len(ws), len(acts))))
    for s, p in positions(g, seed=9, every=15):
        turn = make_turn(g, s, p, 1)
        if len(turn.legal_actions) > 1:
            assert own.act(turn) == rollout.action(s, p) and based.act(turn) == alone.action(s, p)
            differ += rollout.action(s, p) != alone.action(s, p)
    assert differ >= 2
    # refused in words: an unknown base, a base without a margin, a file without a learned policy
    with pytest.raises(ValueError, match=r"rollout_base='best' is not valid; valid values: \['model', 'learned_pol"):
        SearchConfig(belief_worlds=2, belief_rollouts=True, rollout_policy="model", rollout_margin=1.0,
                     rollout_base="best")
    with pytest.raises(ValueError, match="rollout_base='learned_policy' needs rollout_margin >= 0"):
        SearchConfig(belief_worlds=2, belief_rollouts=True, rollout_policy="model", rollout_base="learned_policy")
    plain = AZAgent.load(save_model(small_net(g), tmp_path / "plain.pt", g, search, learned=rollout), game=g,
                         network_alone=True)
    plain.search = dataclasses.replace(plain.search, rollout_base="learned_policy")
    with pytest.raises(ValueError, match="carries a learned policy.*improve_policy adds one"):
        plain.reset(g, 0, 0)
    assert network_only(based.search, learned=True).rollout_base == "learned_policy"  # the network's alone keeps it
    assert network_only(dataclasses.replace(based.search, belief_model="heuristic")).rollout_base == "model"
