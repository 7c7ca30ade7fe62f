"""The self-play worker, the replay buffer, the learner and the teacher data."""

import subprocess
import sys

import numpy as np
import pytest
import torch

from octagames.agents.learn.az import PolicyValueNet, SearchConfig
from octagames.agents.learn.az_selfplay import (AGENT_GAME, SELF_PLAY, Learner, ReplayBuffer, SelfPlayWorker, WorkerConfig,
                                          play_games)
from octagames.agents.base import make_turn
from octagames.agents.heuristics.achten import AchtenHeuristicAgent
from octagames.agents.learn.clone import pretrain_actor_critic
from octagames.agents.learn.imitation import children, observations, teacher_games
from octagames.agents.learn.ppo import ActorCritic
from octagames.core import Game

ACHTEN = {"num_players": 2, "deal_penalty": 1}

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def small_worker(game="achten", config=ACHTEN, seed=0, **kw) -> SelfPlayWorker:
    g = Game(game, **config)
    torch.manual_seed(0)  # the same network for every worker
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    base = dict(num_games=4, search=SearchConfig(simulations=4, dirichlet_alpha=0.3), policy_width=8)
    w = SelfPlayWorker(game, config, WorkerConfig(**{**base, **kw}), net.spec, seed)
    w.set_weights(net.state_dict())
    return w


def test_worker_samples_are_searched_decisions_with_outcomes_per_seat():
    w = small_worker(self_play_prob=1.0, agent_prob=0.0)
    t = w.play(min_samples=20)
    g = w.game
    assert len(t) >= 20 and t.stats["games"] >= 1
    assert t.stats["decisions"] >= len(t)
    for r in range(len(t)):
        mask = g.legal_mask(t.records[r], int(t.seats[r]))
        assert mask.sum() > 1  # forced moves are never samples
        assert g.acting_player(t.records[r]) == t.seats[r]
        probs = t.pol_p[r]
        assert abs(probs.sum() - 1) < 1e-5 and mask[t.pol_idx[r][probs > 0]].all()
    # a two-seat win/loss game: my outcome and the other seat's add up to one
    np.testing.assert_allclose(t.values.sum(axis=1), 1.0)
    assert set(np.unique(t.values)) <= {0.0, 0.5, 1.0}


def test_values_are_counted_from_the_deciding_seat():
    """Every sample of one finished game gets that game's outcome rotated to its seat."""
    w = small_worker(num_games=1, self_play_prob=1.0, agent_prob=0.0, seed=3)
    t = w.play(min_samples=1)
    seats, values = t.seats, t.values
    winner_of = {int(s): None for s in seats}
    for s, v in zip(seats, values):
        won = v[0] == 1.0
        assert winner_of.get(int(s)) in (None, won)
        winner_of[int(s)] = won
    if len(winner_of) == 2:  # both seats decided: exactly one won
        assert sorted(winner_of.values()) == [False, True]


def test_same_seed_same_trajectories_and_state_round_trip():
    a, b = small_worker(seed=7, agent_prob=0.4, self_play_prob=0.4), small_worker(seed=7, agent_prob=0.4,
                                                                                   self_play_prob=0.4)
    ta, tb = a.play(min_samples=30), b.play(min_samples=30)
    assert ta.records.tobytes() == tb.records.tobytes()
    np.testing.assert_array_equal(ta.pol_p, tb.pol_p)
    state = a.state_dict()
    c = small_worker(seed=99, agent_prob=0.4, self_play_prob=0.4)
    c.load_state_dict(state)
    tc, ta2 = c.play(min_samples=10), a.play(min_samples=10)
    assert tc.records.tobytes() == ta2.records.tobytes()
    np.testing.assert_array_equal(tc.values, ta2.values)


def test_agent_games_sample_only_the_learner_seat():
    w = small_worker(num_games=1, self_play_prob=0.0, agent_prob=1.0, seed=2)
    for _ in range(4):
        t = w.play(min_samples=1)  # one game at a time: its samples are all the learner's seat
        assert t.stats["games_agent"] == 1 and "games_self" not in t.stats
        assert len(set(t.seats.tolist())) == 1
        assert sum(t.stats.get(f"{k}_agent", 0) for k in ("wins", "draws", "losses")) == 1
    assert (w.kind == AGENT_GAME).all()


def test_snapshot_games_need_a_pool():
    w = small_worker(self_play_prob=0.0, agent_prob=0.0)
    w.play(min_samples=5)
    assert (w.kind == SELF_PLAY).all()  # an empty pool: self-play instead
    w.set_weights(w.net.state_dict(), {0: w.net.state_dict()})
    t = w.play(min_samples=30)
    assert t.stats.get("games_snapshot", 0) >= 1


def test_the_learners_worlds_are_plain_digits_and_a_unicode_digit_is_refused_in_words():
    for spec in ("learner:²", "learner:\u0663", "learner:0", "learner:x"):  # "²": a digit to str.isdigit only
        with pytest.raises(ValueError, match=f"expert='{spec}' is not valid; .* 'learner:<worlds>' with"):
            small_worker(expert=spec)


def test_evaluation_games_rotate_seats_and_stop():
    g = Game("achten", **ACHTEN)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    out = play_games("achten", ACHTEN, net.state_dict(), net.spec, SearchConfig(simulations=3), "random", 9, seed=0,
                     parallel=4)
    assert out["games"] == 9 and out["wins"] + out["draws"] + out["losses"] == 9
    w = SelfPlayWorker("achten", ACHTEN, WorkerConfig(num_games=4, eval_games=6, agent_prob=1.0, self_play_prob=0.0,
                                                       opponent_agent="random", record=False), net.spec, 0)
    w.set_weights(net.state_dict())
    w.play(min_samples=1)
    assert w.idle.all() and w.games_started == 6


def test_replay_buffer_rebuilds_observations_and_wraps():
    w = small_worker()
    t = w.play(min_samples=12)
    g = w.game
    buf = ReplayBuffer(g, capacity=10, policy_width=8)
    buf.add(t)
    assert len(buf) == 10 and buf.added == len(t)
    last = len(t) - 1
    slot = (buf.pos - 1) % 10  # the newest sample
    batch = buf.batch(np.array([slot]))
    np.testing.assert_array_equal(batch["obs"][0].numpy(), g.observation(t.records[last], int(t.seats[last])))
    np.testing.assert_array_equal(batch["mask"][0].numpy(), g.legal_mask(t.records[last], int(t.seats[last])) > 0)
    dense = np.zeros(g.num_actions, np.float32)
    np.add.at(dense, t.pol_idx[last], t.pol_p[last])
    np.testing.assert_allclose(batch["policy"][0].numpy(), dense)
    np.testing.assert_array_equal(batch["values"][0].numpy(), t.values[last])
    copy = ReplayBuffer(g, capacity=10, policy_width=8)
    copy.load_state_dict(buf.state_dict())
    assert copy.records.tobytes() == buf.records.tobytes() and copy.pos == buf.pos


@pytest.mark.parametrize("mix,players", [(1.0, 2), (0.25, 2), (0.5, 3)])
def test_a_value_mix_blends_the_compiled_leaf_value_of_each_sample_into_its_value_target(mix, players):
    from octagames.agents.search.mcts import compiled_value
    w = small_worker(config={**ACHTEN, "num_players": players})  # 3 seats: the seats counted the right way
    t = w.play(min_samples=12)
    g = w.game
    buf = ReplayBuffer(g, capacity=64, policy_width=8, value_mix=mix)
    buf.add(t)
    batch = buf.batch(np.arange(len(buf)))
    value = compiled_value(g)  # Achten's showdown value, per absolute seat in the returns' scale
    lo, hi = g.min_utility, g.max_utility
    for r in range(len(t)):
        out = np.zeros(g.num_players)
        value(t.records[r], out)
        seat = int(t.seats[r])
        mine = [np.clip((out[(seat + j) % g.num_players] - lo) / (hi - lo), 0, 1) for j in range(g.num_players)]
        np.testing.assert_allclose(batch["values"][r].numpy(), (1 - mix) * t.values[r] + mix * np.array(mine),
                                   rtol=1e-6, atol=1e-6)
    assert not np.allclose(batch["values"].numpy(), t.values)  # the showdown is not the outcome everywhere
    with pytest.raises(ValueError, match=r"^value_mix=0.5 is not valid for octrix: it has no compiled leaf value$"):
        ReplayBuffer(Game("octrix-round"), capacity=8, policy_width=4, value_mix=0.5)
    with pytest.raises(ValueError, match=r"^value_mix=1.5 is not valid; it must be in \[0, 1\]$"):
        ReplayBuffer(g, capacity=8, policy_width=4, value_mix=1.5)


def _same_samples(a: ReplayBuffer, b: ReplayBuffer) -> bool:
    n = len(a)
    fields = ("seats", "pol_idx", "pol_p", "values")
    return (len(b) == n and (a.pos, a.added) == (b.pos, b.added)
            and a.records[:n].tobytes() == b.records[:n].tobytes()
            and all(np.array_equal(getattr(a, k)[:n], getattr(b, k)[:n]) for k in fields))


def test_replay_buffer_saves_without_copies_and_loads_old_checkpoints(tmp_path):
    w = small_worker()
    buf = ReplayBuffer(w.game, capacity=40, policy_width=8)
    buf.add(w.play(min_samples=12))
    state = buf.state_dict()
    # tensors over the buffer's own memory: torch.save writes them without copying the samples
    assert all(isinstance(state[k], torch.Tensor) for k in ("records", "seats", "pol_idx", "pol_p", "values"))
    assert np.shares_memory(state["records"].numpy(), buf.records)
    assert np.shares_memory(state["values"].numpy(), buf.values)
    torch.save({"buffer": state}, tmp_path / "ckpt.pt")
    back = ReplayBuffer(w.game, capacity=40, policy_width=8)
    back.load_state_dict(torch.load(tmp_path / "ckpt.pt", weights_only=False, mmap=True)["buffer"])
    assert _same_samples(buf, back)
    # a checkpoint of the earlier format (copied numpy arrays, records as records) still loads
    n = len(buf)
    old = {k: getattr(buf, k)[:n].copy() for k in ("records", "seats", "pol_idx", "pol_p", "values")}
    old.update(pos=buf.pos, size=n, added=buf.added)
    older = ReplayBuffer(w.game, capacity=40, policy_width=8)
    older.load_state_dict(old)
    assert _same_samples(buf, older)


def test_learner_fits_a_fixed_batch():
    w = small_worker()
    t = w.play(min_samples=16)
    buf = ReplayBuffer(w.game, 64, 8)
    buf.add(t)
    torch.manual_seed(0)
    learner = Learner(PolicyValueNet(w.game.observation_size, w.game.num_actions, 2, hidden=(32,)),
                      learning_rate=3e-3)
    batch = buf.batch(np.arange(len(buf)))
    first = learner.step(batch)["loss"]
    for _ in range(60):
        last = learner.step(batch)["loss"]
    assert last < 0.7 * first


def test_the_module_the_teacher_workers_import_loads_no_torch():
    """A spawned worker imports the module of the function it runs: imitation's (teacher games, rollouts,
    labels) loaded torch in every worker, 1.5-2.5 s of each pool's start for games that use no network."""
    code = "import sys, octagames.agents.learn.imitation; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr[-2000:]


def test_teacher_games_label_the_teachers_choice():
    g = Game("achten", **ACHTEN)
    data = teacher_games(g, "heuristic", num_games=20, seed=0, epsilon=0.3)
    assert data.games == 20 and len(data) > 20
    teacher = AchtenHeuristicAgent()
    for r in range(0, len(data), 7):
        turn = make_turn(g, data.records[r], int(data.seats[r]), 0)
        assert teacher.act(turn) == data.actions[r]
    assert set(np.unique(data.outcomes)) <= {0.0, 0.5, 1.0}
    with pytest.raises(ValueError, match="epsilon=2"):
        teacher_games(g, "heuristic", 1, 0, epsilon=2)


def test_teacher_games_against_an_opponent_keep_the_teachers_seat_and_split_into_blocks():
    from octagames.agents.learn.imitation import BLOCK, GamesSoFar
    g = Game("achten", **ACHTEN)
    one = teacher_games(g, "heuristic", num_games=1, seed=5, opponent="random")
    two = teacher_games(g, "heuristic", num_games=2, seed=5, opponent="random")
    assert len(one) > 0 and (one.seats == 0).all()  # game k: the teacher sits in seat k % 2, the rest is not kept
    assert (two.seats[:len(one)] == 0).all() and (two.seats[len(one):] == 1).all() and len(two) > len(one)
    teacher = AchtenHeuristicAgent()
    assert all(teacher.act(make_turn(g, two.records[r], int(two.seats[r]), 0)) == two.actions[r]
               for r in range(len(two)))
    size = BLOCK * g.num_players
    blocks = [teacher_games(g, "heuristic", size, seed=7, opponent="random"),
              teacher_games(g, "heuristic", 3, seed=7 + size, opponent="random")]
    both = teacher_games(g, "heuristic", size + 3, seed=7, opponent="random", workers=2)
    assert both.games == size + 3
    for name in ("seats", "actions", "outcomes"):
        assert np.array_equal(getattr(both, name), np.concatenate([getattr(b, name) for b in blocks])), name
    assert both.records.tobytes() == np.concatenate([b.records for b in blocks]).tobytes()
    # stopped after its first block (a trainer's stop request), then gone on from it: the same games
    kept = []
    stopped = teacher_games(g, "heuristic", size + 3, seed=7, opponent="random", workers=2,
                            checkpoint=lambda n, so_far: kept.append(so_far()) or True)
    assert stopped.games == size and [k.data.games for k in kept] == [size] and kept[0].rng_state is None
    assert stopped.records.tobytes() == blocks[0].records.tobytes()
    rest = teacher_games(g, "heuristic", size + 3, seed=7, opponent="random", workers=2, done=kept[0])
    assert rest.games == size + 3 and rest.records.tobytes() == both.records.tobytes()
    np.testing.assert_array_equal(rest.actions, both.actions)
    with pytest.raises(ValueError, match=f"done holds 1 games, not whole blocks of {size}"):
        teacher_games(g, "heuristic", size + 3, seed=7, opponent="random", workers=2, done=GamesSoFar(one, None))
    with pytest.raises(ValueError, match="done has no generator state"):
        teacher_games(g, "heuristic", 3, seed=5, opponent="random", done=GamesSoFar(one, None))
    with pytest.raises(ValueError, match="done holds 2 games; this call plays 1"):
        teacher_games(g, "heuristic", 1, seed=5, opponent="random", done=GamesSoFar(two, None))
    with pytest.raises(ValueError, match="workers=0"):
        teacher_games(g, "heuristic", 1, 0, workers=0)
    with pytest.raises(ValueError, match="nobody"):
        teacher_games(g, "heuristic", 1, 0, opponent="nobody")


def test_teacher_games_with_a_player_keep_the_players_positions_and_the_teachers_labels():
    g = Game("achten", **ACHTEN)
    own = teacher_games(g, "heuristic", num_games=3, seed=4)
    same = teacher_games(g, "heuristic", num_games=3, seed=4, player="heuristic")  # the teacher's moves again
    assert same.records.tobytes() == own.records.tobytes() and np.array_equal(same.actions, own.actions)
    led = teacher_games(g, "heuristic", num_games=3, seed=4, player="random")
    assert led.records[0].tobytes() == own.records[0].tobytes()  # the same deal, then the random player's games
    assert len(led) != len(own) or led.records.tobytes() != own.records.tobytes()
    teacher = AchtenHeuristicAgent()
    labels = [teacher.act(make_turn(g, led.records[r], int(led.seats[r]), 0)) for r in range(len(led))]
    np.testing.assert_array_equal(labels, led.actions)
    both = teacher_games(g, "heuristic", num_games=3, seed=4, player="random", workers=2)
    assert both.games == 3 and len(both) > 0
    with pytest.raises(ValueError, match="nobody"):
        teacher_games(g, "heuristic", 1, 0, player="nobody")


def test_rollout_outcomes_are_the_deciding_seats_playout_wins_and_predict_the_games():
    from octagames.agents.learn.imitation import ValuesSoFar, rollout_outcomes
    g = Game("achten", **ACHTEN)
    data = teacher_games(g, "heuristic", num_games=12, seed=3)
    one = rollout_outcomes(g, data, worlds=1, seed=9)
    assert one.shape == (len(data), 2) and set(np.unique(one)) <= {0.0, 0.5, 1.0}
    np.testing.assert_array_equal(one[:, 1], 1.0 - one[:, 0])
    many = rollout_outcomes(g, data, worlds=16, seed=9)
    np.testing.assert_array_equal(many, rollout_outcomes(g, data, worlds=16, seed=9))  # the seed replays it
    assert not np.array_equal(many, rollout_outcomes(g, data, worlds=16, seed=10))
    assert len(np.unique(many[:, 0])) > 3  # means over worlds, not single games
    # counted from the deciding seat: the playouts foretell the games' outcomes better than a coin
    err = np.abs(many[:, 0] - data.outcomes[:, 0]).mean()
    flipped = np.abs(many[:, 1] - data.outcomes[:, 0]).mean()
    assert err < 0.45 < flipped
    kept = {}  # stopped at decision 7, then gone on from there: the same values

    def at_seven(n: int, so_far) -> bool:
        kept[n] = so_far()
        return n == 7

    assert len(rollout_outcomes(g, data, worlds=16, seed=9, checkpoint=at_seven)) == 7 and list(kept) == list(range(1, 8))
    np.testing.assert_array_equal(rollout_outcomes(g, data, worlds=16, seed=9, done=kept[7]), many)
    with pytest.raises(ValueError, match="done holds 3 values, not what this call goes on from"):
        rollout_outcomes(g, data, worlds=16, seed=9, done=ValuesSoFar(many[:3], None))
    with pytest.raises(ValueError, match="worlds=0 is not valid"):
        rollout_outcomes(g, data, worlds=0, seed=0)
    with pytest.raises(ValueError, match="need 2 players; achten has 3"):
        rollout_outcomes(Game("achten", num_players=3), data, worlds=1, seed=0)
    with pytest.raises(ValueError, match="value targets need a compiled heuristic; 'octrix' has none"):
        rollout_outcomes(Game("octrix"), data, worlds=1, seed=0)


def test_rollout_values_and_teacher_labels_in_processes_are_the_blocks_values_and_labels(monkeypatch):
    from octagames.agents.learn import imitation
    from octagames.agents.learn.imitation import rollout_outcomes, teacher_labels
    g = Game("achten", **ACHTEN)
    data = teacher_games(g, "heuristic", num_games=4, seed=3)
    size = 8  # the blocks are cut in this process: a smaller block reaches the processes without a patch there
    monkeypatch.setattr(imitation, "DECISION_BLOCK", size)
    starts = range(0, len(data), size)
    assert len(starts) >= 3
    both = rollout_outcomes(g, data, worlds=4, seed=9, workers=2)
    cut = [imitation.TeacherData(data.records[a:a + size], data.seats[a:a + size], data.actions[a:a + size],
                                 data.outcomes[a:a + size], 0) for a in starts]
    np.testing.assert_array_equal(both, np.concatenate([rollout_outcomes(g, d, 4, seed=9 + a)
                                                        for a, d in zip(starts, cut)]))
    np.testing.assert_array_equal(both[:size], rollout_outcomes(g, data, 4, seed=9)[:size])  # block 0: one worker's
    kept = []  # stopped after its second block, then gone on from there: the same values
    stopped = rollout_outcomes(g, data, 4, seed=9, workers=2,
                               checkpoint=lambda n, so_far: kept.append(so_far()) or n > size)
    assert [len(k.values) for k in kept] == [size, 2 * size]
    np.testing.assert_array_equal(stopped, both[:2 * size])
    np.testing.assert_array_equal(rollout_outcomes(g, data, 4, seed=9, workers=2, done=kept[-1]), both)
    with pytest.raises(ValueError, match=f"done holds {size + 1} values, not what this call goes on from"):
        rollout_outcomes(g, data, 4, seed=9, workers=2, done=imitation.ValuesSoFar(both[:size + 1], None))
    labels = teacher_labels(g, "heuristic", data.records, data.seats, seed=5, workers=2)
    np.testing.assert_array_equal(labels, data.actions)  # the heuristic labels its own decisions as it played them
    # gone on from its first block: the later blocks' labels, each from its own seed (a random teacher's depend on it)
    drawn = [teacher_labels(g, "random", data.records[a:a + size], data.seats[a:a + size], seed=5 + a) for a in starts]
    np.testing.assert_array_equal(teacher_labels(g, "random", data.records, data.seats, seed=5, workers=2,
                                                 done=drawn[0]), np.concatenate(drawn))
    with pytest.raises(ValueError, match=f"done holds {size} labels of {len(data)}: a call goes on from whole"):
        teacher_labels(g, "heuristic", data.records, data.seats, seed=5, done=labels[:size])  # one worker: 0 or all
    np.testing.assert_array_equal(labels, teacher_labels(g, "heuristic", data.records, data.seats, seed=5))
    rand = teacher_labels(g, "random", data.records, data.seats, seed=5, workers=2)
    np.testing.assert_array_equal(rand, np.concatenate([teacher_labels(g, "random", d.records, d.seats, seed=5 + a)
                                                        for a, d in zip(starts, cut)]))
    assert all(g.legal_mask(r, int(p))[a] for r, p, a in zip(data.records, data.seats, rand))
    with pytest.raises(ValueError, match="workers=0 is not valid"):
        rollout_outcomes(g, data, worlds=1, seed=0, workers=0)
    with pytest.raises(ValueError, match="workers=0 is not valid"):
        teacher_labels(g, "heuristic", data.records, data.seats, seed=0, workers=0)


def test_children_are_the_records_one_distinct_legal_move_on():
    g = Game("achten", **ACHTEN)
    data = teacher_games(g, "heuristic", num_games=3, seed=2)
    recs, seats, parents = children(g, data.records, 3, seed=4)
    assert len(recs) == len(seats) == len(parents) > len(data)
    for j in range(len(data)):
        mine = np.flatnonzero(parents == j)
        legal = g.legal_actions(data.records[j])
        moves = []
        for a in legal:  # each child is the parent after one legal move, chance played by the record's RNG
            c = g.clone(data.records[j])
            g.apply_action(c, a)
            g.play_chance(c)
            moves += [a for i in mine if not g.is_terminal(c) and c.tobytes() == recs[i].tobytes()]
        assert len(moves) == len(set(moves)) == len(mine) <= min(3, len(legal))
        assert all(seats[i] == g.acting_player(recs[i]) for i in mine)
    again = children(g, data.records, 3, seed=4)
    assert again[0].tobytes() == recs.tobytes() and np.array_equal(again[2], parents)
    assert len(children(g, data.records, 0, seed=4)[0]) == 0
    with pytest.raises(ValueError, match="per_record=-1"):
        children(g, data.records, -1, seed=4)


def test_behaviour_cloning_of_a_ppo_network_learns_the_teacher():
    g = Game("achten", **ACHTEN)
    data = teacher_games(g, "heuristic", num_games=80, seed=1)
    torch.manual_seed(0)
    model = ActorCritic(g.observation_size, g.num_actions, (64,))
    obs, masks = observations(g, data.records, data.seats)
    before = (model.logits(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(masks), -1e9).argmax(-1).numpy()
              == data.actions).mean()
    stats = pretrain_actor_critic(model, g, data, steps=100, batch_size=256, learning_rate=3e-3)
    assert stats["accuracy"] > max(0.8, before + 0.2)
