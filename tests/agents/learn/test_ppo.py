"""PPO parts: masked sampling, GAE (plain and per seat), the update, the arena agent."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from octagames.agents.arena import play_match
from octagames.agents.base import RandomAgent, make_turn
from octagames.agents.learn.ppo import (ActorCritic, ObsBatch, PPOAgent, Tanh, compute_gae, log_prob_entropy,
                                        masked_logits, matmul_precision, ppo_loss, ppo_update, sample_actions,
                                        save_policy, seat_gae, sparse_entries, win_rewards)
from octagames.core import Game
from octagames.envs.vector import narrowest_obs_dtype
from octagames.agents.registry import make_agent
from octagames.envs.vector import make

TINY = {"num_players": 2, "ranks": 2, "hand_size": 2}
pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def _random_masks(rng: np.random.Generator, b: int, a: int) -> torch.Tensor:
    mask = rng.random((b, a)) < 0.3
    mask[np.arange(b), rng.integers(0, a, size=b)] = True  # at least one legal action
    return torch.from_numpy(mask)


def test_masked_sampling_never_picks_an_illegal_action():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    mask = _random_masks(rng, 512, 32)
    logits = torch.randn(512, 32) * 5
    logits[~mask] += 50.0  # illegal actions are the most attractive ones
    for _ in range(20):
        actions, logp = sample_actions(logits, mask)
        assert mask[torch.arange(512), actions].all()
        assert torch.isfinite(logp).all()
    greedy, _ = sample_actions(logits, mask, greedy=True)
    assert mask[torch.arange(512), greedy].all()
    # greedy = best legal logit
    best = masked_logits(logits, mask).argmax(-1)
    assert torch.equal(greedy, best)


def test_masked_sampling_follows_the_legal_softmax():
    torch.manual_seed(1)
    logits = torch.tensor([[0.0, 1.0, 2.0, 3.0]]).repeat(20000, 1)
    mask = torch.tensor([[True, False, True, False]]).repeat(20000, 1)
    actions, _ = sample_actions(logits, mask)
    freq = torch.bincount(actions, minlength=4).float() / 20000
    expected = torch.softmax(torch.tensor([0.0, 2.0]), 0)
    assert freq[1] == 0 and freq[3] == 0
    assert abs(freq[0] - expected[0]) < 0.015 and abs(freq[2] - expected[1]) < 0.015


def test_log_probs_of_masked_actions_are_not_nan():
    rng = np.random.default_rng(2)
    mask = _random_masks(rng, 64, 10)
    logits = torch.randn(64, 10, requires_grad=True)
    illegal = torch.from_numpy(np.array([np.flatnonzero(~m.numpy())[0] if (~m).any() else 0 for m in mask]))
    logp, ent = log_prob_entropy(logits, mask, illegal)
    assert not torch.isnan(logp).any() and not torch.isnan(ent).any()
    has_illegal = (~mask).any(-1)
    assert (logp[has_illegal] < -1e6).all()  # probability 0, finite log
    (logp.sum() + ent.sum()).backward()
    assert torch.isfinite(logits.grad).all()
    # entropy is over the legal actions only: uniform logits give log(#legal)
    logp_u, ent_u = log_prob_entropy(torch.zeros(64, 10), mask, illegal)
    assert torch.allclose(ent_u, mask.sum(-1).float().log(), atol=1e-5)
    # a row with no legal action (never produced by envs) stays finite
    lp, e = log_prob_entropy(torch.zeros(1, 3), torch.zeros(1, 3, dtype=torch.bool), torch.tensor([1]))
    assert torch.isfinite(lp).all() and torch.isfinite(e).all()


def test_gae_hand_computed():
    rewards = np.array([[1.0], [0.0], [2.0]])
    values = np.array([[0.5], [0.4], [0.3]])
    dones = np.array([[False], [False], [True]])
    next_values = np.array([[0.4], [0.3], [9.9]])  # ignored after a done
    adv, ret = compute_gae(rewards, values, dones, next_values, gamma=0.9, lam=0.8)
    # t=2: 2 - 0.3 = 1.7
    # t=1: 0 + 0.9*0.3 - 0.4 = -0.13; -0.13 + 0.72*1.7 = 1.094
    # t=0: 1 + 0.9*0.4 - 0.5 = 0.86;  0.86 + 0.72*1.094 = 1.64768
    assert adv[:, 0] == pytest.approx([1.64768, 1.094, 1.7])
    assert ret[:, 0] == pytest.approx([1.64768 + 0.5, 1.094 + 0.4, 1.7 + 0.3])


def test_seat_gae_hand_computed():
    # one game env, two seats alternating; the game ends with step 3, a new one starts at step 4
    player = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2))
    rewards[1, 0] = [0.5, 0.0]     # paid to seat 0 while seat 1 moves: accrues to seat 0's turn at t=0
    rewards[3, 0] = [1.0, -1.0]    # final returns
    terminated = np.array([[False], [False], [False], [True], [False]])
    values = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    last_values = np.array([[0.6, 0.7]])
    out = seat_gae(player, rewards, terminated, values, last_values, gamma=1.0, lam=1.0)
    # seat 0: t=0 -> t=2 (reward 0.5), t=2 -> end (reward 1, done), t=4 -> bootstrap 0.6
    # seat 1: t=1 -> t=3 (reward 0), t=3 -> end (reward -1, done)
    assert out["rewards"][:, 0] == pytest.approx([0.5, 0.0, 1.0, -1.0, 0.0])
    assert out["dones"][:, 0].tolist() == [False, False, True, True, False]
    assert out["next_values"][:, 0] == pytest.approx([0.3, 0.4, 0.0, 0.0, 0.6])
    assert out["advantages"][:, 0] == pytest.approx([1.5 - 0.1, -1 - 0.2, 1 - 0.3, -1 - 0.4, 0.6 - 0.5])
    assert out["returns"][:, 0] == pytest.approx([1.5, -1.0, 1.0, -1.0, 0.6])


def test_seat_gae_bootstraps_a_game_an_engine_bound_stopped_and_takes_nothing_from_the_next():
    # the game of test_seat_gae_hand_computed, stopped by an engine bound with step 3 instead of ending:
    # the vector env has started the next game by then (step 4), so each seat's last transition of the
    # stopped game is bootstrapped with that seat's own value at it, not with the next game's
    player = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2))
    rewards[1, 0] = [0.5, 0.0]
    rewards[4, 0] = [0.25, 0.0]    # in the next game, after seat 0's first move there
    terminated = np.zeros((5, 1), dtype=bool)
    truncated = np.array([[False], [False], [False], [True], [False]])
    values = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    last_values = np.array([[0.6, 0.7]])
    out = seat_gae(player, rewards, terminated, values, last_values, gamma=1.0, lam=1.0, truncated=truncated)
    assert out["dones"][:, 0].tolist() == [False] * 5
    assert out["rewards"][:, 0] == pytest.approx([0.5, 0.0, 0.0, 0.0, 0.25])
    assert out["next_values"][:, 0] == pytest.approx([0.3, 0.4, 0.3, 0.4, 0.6])
    assert out["advantages"][:, 0] == pytest.approx([0.5 + 0.3 - 0.1, 0.4 - 0.2, 0.0, 0.0, 0.25 + 0.6 - 0.5])
    # without the flag the stopped game ran on into the next: seat 0's t=2 took the next game's value
    leaked = seat_gae(player, rewards, terminated, values, last_values, gamma=1.0, lam=1.0)
    assert leaked["next_values"][2, 0] == pytest.approx(0.5)
    # with each seat's value of the stopped position (the vector env's final_observation), those bootstrap it
    at_stop = np.zeros((5, 1, 2))
    at_stop[3, 0] = [0.8, 0.9]
    at_stop[1, 0] = [-5.0, -5.0]  # where no game stopped: read nowhere
    out = seat_gae(player, rewards, terminated, values, last_values, gamma=1.0, lam=1.0, truncated=truncated,
                   truncated_values=at_stop)
    assert out["dones"][:, 0].tolist() == [False] * 5
    assert out["next_values"][:, 0] == pytest.approx([0.3, 0.4, 0.8, 0.9, 0.6])
    assert out["advantages"][:, 0] == pytest.approx([0.5 + 0.3 - 0.1 + 0.5, 0.4 - 0.2 + 0.5, 0.8 - 0.3, 0.9 - 0.4,
                                                     0.25 + 0.6 - 0.5])


def _reference_seat_gae(player, rewards, terminated, values, last_values, gamma, lam, truncated=None,
                        truncated_values=None):
    """Naive version: cut each (game, seat) trajectory out explicitly, then plain GAE; a game an engine
    bound stopped ends the seat's segment there, bootstrapped with the seat's value of the stopped position
    (``truncated_values``) or, without them, with the seat's own last value."""
    T, N = player.shape
    truncated = np.zeros((T, N), dtype=bool) if truncated is None else truncated
    adv = np.zeros((T, N))
    for i in range(N):
        for p in range(rewards.shape[2]):
            steps = [t for t in range(T) if player[t, i] == p]
            segments, r, v, d, nv = [], [], [], [], []
            for k, t in enumerate(steps):
                nxt = steps[k + 1] if k + 1 < len(steps) else T
                ends = [u for u in range(t, nxt) if terminated[u, i] or truncated[u, i]]
                stop = ends[0] if ends else nxt - 1
                cut = bool(ends) and not terminated[stop, i]
                r.append(rewards[t:stop + 1, i, p].sum())
                v.append(values[t, i])
                d.append(bool(ends) and not cut)
                at_stop = values[t, i] if truncated_values is None else truncated_values[stop, i, p] if cut else 0.0
                nv.append(at_stop if cut else 0.0 if ends else (values[nxt, i] if nxt < T else last_values[i, p]))
                if cut or k + 1 == len(steps):
                    segments.append(len(r))
            start = 0
            for end in segments:
                a, _ = compute_gae(np.array(r[start:end])[:, None], np.array(v[start:end])[:, None],
                                   np.array(d[start:end])[:, None], np.array(nv[start:end])[:, None], gamma, lam)
                adv[steps[start:end], i] = a[:, 0]
                start = end
    return adv


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_seat_gae_matches_a_naive_per_seat_reference(num_players):
    rng = np.random.default_rng(num_players)
    T, N = 40, 6
    player = np.zeros((T, N), dtype=np.int64)
    terminated = rng.random((T, N)) < 0.12
    for i in range(N):  # seats in turn, sometimes skipping (as simultaneous/irregular turn orders do)
        p = 0
        for t in range(T):
            player[t, i] = p
            p = 0 if terminated[t, i] else (p + 1 + int(rng.random() < 0.2)) % num_players
    rewards = rng.normal(size=(T, N, num_players)) * (rng.random((T, N, 1)) < 0.3)
    values = rng.normal(size=(T, N))
    last_values = rng.normal(size=(N, num_players))
    out = seat_gae(player, rewards, terminated, values, last_values, gamma=0.97, lam=0.9)
    # rewards that come before a seat's first turn in a game belong to no transition (both drop them)
    ref = _reference_seat_gae(player, rewards, terminated, values, last_values, 0.97, 0.9)
    assert np.allclose(out["advantages"], ref)
    assert np.allclose(out["returns"], ref + values)
    # a third of the games end by an engine bound's stop instead
    truncated = terminated & (rng.random((T, N)) < 0.33)
    terminated = terminated & ~truncated
    assert truncated.any() and terminated.any()
    out = seat_gae(player, rewards, terminated, values, last_values, gamma=0.97, lam=0.9, truncated=truncated)
    ref = _reference_seat_gae(player, rewards, terminated, values, last_values, 0.97, 0.9, truncated)
    assert np.allclose(out["advantages"], ref)
    at_stop = rng.normal(size=(T, N, num_players))  # each seat's value of the stopped position
    out = seat_gae(player, rewards, terminated, values, last_values, gamma=0.97, lam=0.9, truncated=truncated,
                   truncated_values=at_stop)
    ref = _reference_seat_gae(player, rewards, terminated, values, last_values, 0.97, 0.9, truncated, at_stop)
    assert np.allclose(out["advantages"], ref) and not np.allclose(ref, _reference_seat_gae(
        player, rewards, terminated, values, last_values, 0.97, 0.9, truncated))


def test_win_rewards():
    assert win_rewards(np.array([[3.0, 1.0]])).tolist() == [[1.0, -1.0]]
    assert win_rewards(np.array([[2.0, 2.0]])).tolist() == [[0.0, 0.0]]
    assert win_rewards(np.array([[5.0, 1.0, 1.0]])) == pytest.approx(np.array([[1.0, -0.5, -0.5]]))
    assert win_rewards(np.array([[5.0, 5.0, 1.0]])) == pytest.approx(np.array([[0.5, 0.5, -1.0]]))
    assert win_rewards(np.array([[0.0, 4.0, 1.0, 2.0]])).sum() == pytest.approx(0.0)


def test_ppo_update_lowers_the_loss_on_a_fixed_batch():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = ActorCritic(20, 6, hidden=(32, 32))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    obs = torch.randn(256, 20)
    mask = _random_masks(rng, 256, 6)
    with torch.no_grad():
        logits, values = model(obs)
        actions, logp = sample_actions(logits, mask)
    batch = {"obs": obs, "mask": mask, "actions": actions, "logprobs": logp,
             "advantages": torch.randn(256), "returns": torch.randn(256), "values": values}
    kw = {"clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.0}
    before, s0 = ppo_loss(model, batch, **kw)
    stats = ppo_update(model, opt, batch, update_epochs=4, num_minibatches=4, **kw)
    after, s1 = ppo_loss(model, batch, **kw)
    assert float(after.detach()) < float(before.detach())
    assert float(s1["pg_loss"]) < float(s0["pg_loss"]) and float(s1["v_loss"]) < float(s0["v_loss"])
    assert all(np.isfinite(v) for v in stats.values())


@pytest.mark.parametrize("n, sizes", [(100, [25, 25, 25, 25]), (90, [23, 23, 22, 22]), (7, [2, 2, 2, 1]),
                                     (3, [1, 1, 1]), (0, [])])
def test_an_epoch_is_num_minibatches_steps_whatever_the_batch_size(n, sizes, monkeypatch):
    # a batch of the learner's moves against opponents varies in size: range(0, n, n // 4) made a fifth,
    # tiny minibatch of the remainder (2 of 90), a full optimizer step on near noise, and 7 steps of one for 7
    import octagames.agents.learn.ppo as ppo

    rng = np.random.default_rng(0)
    model = ActorCritic(8, 4, hidden=(8,))
    mask = _random_masks(rng, n, 4)
    with torch.no_grad():
        logits, values = model(torch.randn(n, 8))
        actions, logp = sample_actions(logits, mask)
    batch = {"obs": torch.randn(n, 8), "mask": mask, "actions": actions, "logprobs": logp,
             "advantages": torch.randn(n), "returns": torch.randn(n), "values": values}
    seen = []
    loss = ppo.ppo_loss
    monkeypatch.setattr(ppo, "ppo_loss", lambda m, b, **kw: seen.append(len(b["actions"])) or loss(m, b, **kw))
    before = [p.detach().clone() for p in model.parameters()]
    stats = ppo.ppo_update(model, torch.optim.Adam(model.parameters()), batch, update_epochs=2, num_minibatches=4,
                           clip_coef=0.2, vf_coef=0.5, ent_coef=0.0)
    assert seen == sizes * 2
    if n == 0:  # no transition of the learner's (every game against opponents who moved): no step, no NaN
        assert stats == {} and all(torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_the_networks_tanh_is_torchs_within_2e_7_with_tanhs_gradient():
    x = torch.linspace(-30.0, 30.0, 200_001, requires_grad=True)
    g = torch.randn(x.shape[0], generator=torch.Generator().manual_seed(0))
    y = Tanh()(x)
    ref = torch.tanh(x.detach())
    assert y.dtype == torch.float32 and float((y.detach() - ref).abs().max()) <= 2e-7
    y.backward(g)
    # (1 - y^2) g from a y within 2e-7 of tanh's: within 4e-7 |g| (and float32 rounding)
    assert bool(((x.grad - (1 - ref * ref) * g).abs() <= 4e-7 * g.abs() + 1e-7).all())
    ends = Tanh()(torch.tensor([-1e30, -100.0, 0.0, 100.0, 1e30, float("inf"), -float("inf")]))
    assert ends.tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0, 1.0, -1.0]
    assert torch.isnan(Tanh()(torch.tensor([float("nan")]))).all()
    # the network's tanh layers are this module; without parameters, nn.Tanh's state dict loads into it
    model = ActorCritic(12, 4, hidden=(8, 8), activation="tanh")
    assert sum(isinstance(m, Tanh) for m in model.modules()) == 4
    plain = ActorCritic(12, 4, hidden=(8, 8), activation="tanh")
    for net in (plain.actor, plain.critic):
        for i, m in enumerate(net):
            if isinstance(m, Tanh):
                net[i] = torch.nn.Tanh()
    plain.load_state_dict(model.state_dict())
    obs = torch.randn(40, 12)
    with torch.no_grad():
        assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(model(obs), plain(obs)))


@pytest.mark.parametrize("hidden", [(), (16,), (16, 16)])
def test_the_output_layers_are_the_plain_sequential_on_both_first_layer_paths(hidden):
    torch.manual_seed(0)
    model = ActorCritic(100, 5, hidden=hidden)
    for rows in (8, 64):  # the dense first layer (few rows) and the sparse one
        x = (torch.rand(rows, 100) < 0.05).float()
        with torch.no_grad():
            expected = (model.actor(x), model.critic(x).squeeze(-1))
            for got in (model(x), (model.logits(x), model.value(x))):
                assert all(torch.allclose(g, e, atol=1e-6) for g, e in zip(got, expected)), (hidden, rows)


@pytest.mark.parametrize("rows", [8, 64])  # the dense first layer (few rows) and the sparse one
def test_bfloat16_products_keep_outputs_parameters_and_adam_float32(rows):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = ActorCritic(300, 10, hidden=(64, 64))
    obs = torch.from_numpy((rng.random((rows, 300)) < 0.05).astype(np.float32))
    mask = _random_masks(rng, rows, 10)
    with torch.no_grad():
        logits, values = model(obs)
        with matmul_precision("float32"):  # no change at all
            assert all(torch.equal(a, b) for a, b in zip(model(obs), (logits, values)))
        with matmul_precision("bfloat16"):
            low = model(obs)
    assert [t.dtype for t in low] == [torch.float32, torch.float32]
    for a, b in zip(low, (logits, values)):  # bfloat16 keeps 8 bits of each product's inputs
        assert not torch.equal(a, b) and float((a - b).abs().max()) <= 0.02 * float(b.abs().max()) + 1e-4
    actions, logp = sample_actions(logits, mask, generator=torch.Generator().manual_seed(1))
    batch = {"obs": obs, "mask": mask, "actions": actions, "logprobs": logp,
             "advantages": torch.randn(rows), "returns": torch.randn(rows), "values": values}
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    before = [p.detach().clone() for p in model.parameters()]
    with matmul_precision("bfloat16"):
        stats = ppo_update(model, opt, batch, update_epochs=2, num_minibatches=1)
    assert all(np.isfinite(v) for v in stats.values())
    assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32 for p in model.parameters())
    state = [t for st in opt.state.values() for t in st.values() if t.is_floating_point()]
    assert state and all(t.dtype == torch.float32 for t in state)
    assert any(not torch.equal(p, q) for p, q in zip(model.parameters(), before))
    with pytest.raises(ValueError, match=r"matmul_dtype='float16' is not valid; valid values: "
                                         r"\['float32', 'bfloat16'\]"):
        matmul_precision("float16")


def test_trained_agent_plays_in_the_arena_by_path(tmp_path):
    from octagames.core import Game

    game = Game("octrix", **TINY)
    model = ActorCritic(game.observation_size, game.num_actions, hidden=(16,))
    path = save_policy(model, tmp_path / "policy.pt", game)
    agent = make_agent(f"ppo:{path}", "octrix")
    assert isinstance(agent, PPOAgent) and agent.greedy
    result = play_match("octrix", [agent, RandomAgent()], num_games=20, seed=0, progress=False, **TINY)
    assert result.records[0].games == 20 and result.records[0].name == f"ppo:{path}"  # named by its spec
    sampling = make_agent(f"ppo:{path}@sample", "octrix", allow_config_mismatch=True)
    assert not sampling.greedy
    with pytest.warns(UserWarning, match=r"ranks=3 here, 2 in training.*playing it anyway") as seen:
        play_match("octrix", [sampling, RandomAgent()], num_games=5, seed=0, progress=False, num_players=2,
                   ranks=3, hand_size=3)
    assert len([w for w in seen if "playing it anyway" in str(w.message)]) == 1  # once, not at every game
    # 3 seats: one policy for every seat (another config than its own: only with the override)
    with pytest.raises(ValueError, match=r"num_players=3 here, 2 in training.*--game octrix-round-small --players 2 "
                                         r"--config match=True"):
        play_match("octrix", [agent, RandomAgent(), agent], num_games=1, seed=0, progress=False, num_players=3,
                   ranks=3, hand_size=3)
    agent.allow_config_mismatch = True
    with pytest.warns(UserWarning, match="was trained on octrix"):
        play_match("octrix", [agent, RandomAgent(), agent], num_games=3, seed=0, progress=False, num_players=3,
                   ranks=3, hand_size=3)


def test_agent_refuses_a_game_that_does_not_fit(tmp_path):
    path = save_policy(ActorCritic(7, 32, hidden=(8,)), tmp_path / "p.pt")
    with pytest.raises(ValueError, match="expects observations of 7"):
        play_match("octrix", [make_agent(f"ppo:{path}", "octrix"), RandomAgent()], num_games=1,
                   progress=False, **TINY)
    with pytest.raises(ValueError, match="needs a path"):
        make_agent("ppo", "octrix")
    # a policy of Octa's earlier observation (before the facts block) plays, reading the entries it knows
    g = Game("octa-en")
    old = g.earlier_observation_sizes[0]
    octa = ActorCritic(old, g.num_actions, hidden=(8,))
    agent = make_agent(f"ppo:{save_policy(octa, tmp_path / 'octa.pt')}", "octa-en")
    s = g.new_state(3)
    while g.is_chance(s):
        g.play_chance(s)
    turn = make_turn(g, s, g.acting_player(s), 0)
    agent.reset(g, turn.seat, 0)
    x = torch.as_tensor(turn.observation[:old]).unsqueeze(0)
    best = masked_logits(octa.logits(x), torch.as_tensor(turn.legal_mask.astype(bool)).unsqueeze(0)).argmax()
    assert agent.act(turn) == int(best)
    with pytest.raises(ValueError, match=f"expects observations of {old - 1}"):
        make_agent(f"ppo:{save_policy(ActorCritic(old - 1, g.num_actions, hidden=(8,)), tmp_path / 'x.pt')}",
                   "octa-en").reset(g, 0, 0)


@pytest.mark.parametrize("density", [0.03, 0.2])  # sparse and dense weight-gradient products
def test_sparse_first_layer_is_the_dense_function(monkeypatch, density):
    import octagames.agents.learn.ppo as ppo

    torch.manual_seed(0)
    model = ActorCritic(300, 12, hidden=(16, 16))
    obs = (torch.rand(128, 300) < density).float() * torch.rand(128, 300)
    obs[5] = 0.0  # a row without any non-zero feature

    def run(sparse: bool):
        monkeypatch.setattr(ppo, "SPARSE_MAX_DENSITY", 0.3 if sparse else -1.0)
        assert (ppo.sparse_entries(obs) is not None) == sparse
        model.zero_grad()
        logits, value = model(obs)
        (logits.square().sum() + value.sum()).backward()
        return [logits.detach(), value.detach(), model.value(obs).detach(), model.logits(obs).detach(),
                *[p.grad.clone() for p in model.parameters()]]

    dense, sparse = run(False), run(True)
    for a, b in zip(dense, sparse):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6)
    # small batches and inputs that need a gradient take the dense path
    assert ppo.sparse_entries(obs[:4]) is None
    assert ppo.sparse_entries(obs.clone().requires_grad_()) is None


def _observations(game: str, config: dict, steps: int, n: int = 64
                  ) -> tuple[list[torch.Tensor], list[ObsBatch]]:
    """The float32 and the compact observations of two vector envs stepped with the same random actions."""
    plain = make(game, n, seed=3, **config)
    compact = make(game, n, seed=3, obs_dtype=narrowest_obs_dtype(plain.game), **config)
    plain.reset()
    compact.reset()
    divisor = torch.from_numpy(compact.obs_divisor)
    floats, batches = [], []
    for _ in range(steps):
        floats.append(torch.from_numpy(plain.obs.copy()))
        batches.append(ObsBatch(torch.from_numpy(compact.obs.copy()), divisor))
        actions = plain.sample_actions()
        plain.step_inplace(actions)
        compact.step_inplace(actions)
    return floats, batches


@pytest.mark.parametrize("game,config,dtype", [("octrix", TINY, torch.uint16),
                                               ("achten", {"num_players": 2}, torch.uint8)])
def test_compact_observations_give_the_network_the_same_input(game, config, dtype):
    """An ObsBatch of the env's narrowest integers is the float32 observation for the network: the same
    values, the same non-zero entries in the same order (whole, cut into minibatches, joined) and the same
    outputs."""
    torch.manual_seed(0)
    floats, batches = _observations(game, config, steps=4)
    model = ActorCritic(floats[0].shape[1], make(game, 1, **config).num_actions, hidden=(16, 16))
    idx = torch.randperm(64)[:40]
    for x, obs in zip(floats, batches):
        assert obs.data.dtype == dtype
        assert torch.equal(obs.float(), x)
        if dtype == torch.uint16:  # off the CPU, uint16 travels as int16 bits (ObsBatch.to), read as unsigned
            assert torch.equal(ObsBatch(obs.data.view(torch.int16), obs.divisor).float(), x)
            big = torch.full((1, x.shape[1]), 40000, dtype=torch.uint16)
            big_obs = ObsBatch(big.view(torch.int16), obs.divisor)
            assert torch.equal(big_obs.float(), big.float() / obs.divisor)
        mask = torch.arange(64) % 3 == 0
        for a, b in ((x, obs), (x[idx], obs[idx]), (x[idx][5:], obs[idx][torch.arange(5, 40)]),
                     (x[mask], obs[mask]), (torch.cat([x, x[idx]]), ObsBatch.cat([obs, obs[idx]]))):
            assert b.shape == tuple(a.shape) and torch.equal(b.float(), a)
            mine, theirs = b.sparse_entries(), sparse_entries(a)
            assert (mine is None) == (theirs is None) == (len(a) < 32)  # small batches take the dense path
            assert mine is None or all(torch.equal(u, v) for u, v in zip(mine, theirs))
            assert all(torch.equal(u, v) for u, v in zip(model(a), model(b)))


def test_ppo_update_on_compact_observations_is_the_update_on_float32_ones():
    """The same update, bit for bit, from an ObsBatch (non-zero entries found once, minibatches cut from
    them) as from the float32 batch (scanned minibatch by minibatch)."""
    floats, batches = _observations("achten", {"num_players": 2}, steps=4)
    x, obs = torch.cat(floats), ObsBatch.cat(batches)
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = ActorCritic(x.shape[1], 17, hidden=(16, 16))
    mask = _random_masks(rng, len(x), 17)
    with torch.no_grad():
        logits, values = model(x)
        actions, logp = sample_actions(logits, mask)
    rest = {"mask": mask, "actions": actions, "logprobs": logp, "advantages": torch.randn(len(x)),
            "returns": torch.randn(len(x)), "values": values}
    weights = []
    for o in (x, obs):
        net = ActorCritic(x.shape[1], 17, hidden=(16, 16))
        net.load_state_dict(model.state_dict())
        opt = torch.optim.Adam(net.parameters(), lr=3e-3, fused=True)
        torch.manual_seed(1)
        stats = ppo_update(net, opt, {"obs": o, **rest}, update_epochs=2, num_minibatches=4)
        weights.append([p.detach().clone() for p in net.parameters()] + list(stats.values()))
    assert all(torch.equal(torch.as_tensor(a), torch.as_tensor(b)) for a, b in zip(*weights))
    assert not torch.equal(weights[0][0], model.actor[0].weight)  # it did learn
