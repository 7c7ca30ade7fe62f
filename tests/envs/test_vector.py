"""The batched vector env: shapes, reproducibility, agreement with the engine, auto-reset, errors."""

import numpy as np
import pytest

from octagames.envs.vector import make
from octagames.core import Game, rng_next

CONFIGS = [("octrix", dict(num_players=2)), ("octrix", dict(num_players=4, partnership=True)),
           ("octrix", dict(num_players=3, match=True, target=20)), ("achten", dict(num_players=3)),
           ("achten", dict(num_players=6)), ("octiles", dict(num_players=2)),
           ("octiles", dict(num_players=4, team=True)), ("octa", dict(rules="en"))]


@pytest.mark.parametrize("name,cfg", CONFIGS)
def test_shapes_and_info(name, cfg):
    env = make(name, 8, seed=3, **cfg)
    obs, info = env.reset()
    g = env.game
    assert obs.shape == (8, g.observation_size) and obs.dtype == np.float32
    assert info["action_mask"].shape == (8, g.num_actions) and info["action_mask"].dtype == np.bool_
    assert info["player"].shape == (8,) and np.all((info["player"] >= 0) & (info["player"] < g.num_players))
    obs, rew, term, trunc, info = env.step(env.sample_actions())
    assert rew.shape == (8, g.num_players) and term.shape == (8,) and trunc.shape == (8,)
    # the trainers' views (step_inplace) are what step() returns (rewards once had max_players columns)
    twin = make(name, 8, seed=3, **cfg)
    twin.reset()
    twin.step_inplace(twin.sample_actions())
    for _ in range(3000):  # random Octiles games last up to its 500-turn cap
        assert twin.rewards.shape == rew.shape and np.array_equal(twin.rewards, rew)
        assert np.array_equal(twin.obs, obs) and np.array_equal(twin.action_mask, info["action_mask"])
        assert np.array_equal(twin.terminated, term) and np.array_equal(twin.truncated, trunc)
        if (term | trunc).any():
            break
        actions = env.sample_actions()
        obs, rew, term, trunc, info = env.step(actions)
        twin.step_inplace(actions)
    assert (term | trunc).any()  # up to a step where games ended (and were paid)


def _engine_step(g: Game, s, action: int):
    """What the vector env does to one record: act, resolve chance, restart a finished game.

    Returns the reward, whether the game ended by the rules and whether an engine cap stopped it.
    """
    before = g.returns(s)
    g.apply_action(s, action)
    g.play_chance(s)
    reward = g.returns(s) - before
    done, capped = g.is_terminal(s), bool(g.kernels.truncated(s))
    if done:
        seed = int(rng_next(s) >> np.uint64(1))
        g.module.reset(s, seed)
        g.play_chance(s)
    return reward, done and not capped, capped


@pytest.mark.parametrize("name,cfg", CONFIGS)
def test_vector_env_equals_engine_played_one_record_at_a_time(name, cfg):
    """Game i of the batch is exactly the engine game seeded with seed + i under the same actions."""
    n = 4
    env = make(name, n, seed=10, **cfg)
    obs, info = env.reset()
    g = Game(name, **cfg)
    ref = [g.new_state(10 + i) for i in range(n)]
    for s in ref:
        g.play_chance(s)
    finished = 0
    for step in range(3000):
        if step >= 150 and finished > 0:
            break
        actions = env.sample_actions()
        expected = []
        for i, s in enumerate(ref):
            p = g.acting_player(s)
            assert p == info["player"][i]
            assert np.array_equal(g.observation(s, p), obs[i])
            assert np.array_equal(g.legal_mask(s, p), info["action_mask"][i])
            expected.append(_engine_step(g, s, int(actions[i])))
        obs, rew, term, trunc, info = env.step(actions)
        for i in range(n):
            assert np.allclose(rew[i], expected[i][0]) and term[i] == expected[i][1] and trunc[i] == expected[i][2]
            assert ref[i].tobytes() == env.states[i].tobytes()
        finished += int(term.sum() + trunc.sum())
    assert finished > 0  # auto-reset was exercised


def test_same_seed_same_run_and_rewards_are_zero_sum():
    runs = []
    for _ in range(2):
        env = make("octrix", 16, seed=7, num_players=3)
        env.reset()
        total = np.zeros((16, 3))
        trace = []
        for _ in range(100):
            obs, rew, term, trunc, info = env.step(env.sample_actions())
            total += rew
            assert np.allclose(rew.sum(axis=1), 0.0)
            trace.append(obs.sum())
        runs.append((trace, total))
    assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1])


def test_illegal_action_raises_and_changes_no_game():
    env = make("octrix", 4, seed=0, num_players=2)
    env.reset()
    before = env.states.tobytes()
    actions = env.sample_actions()
    illegal = int(np.flatnonzero(env.action_mask[2] == 0)[0])
    actions[2] = illegal
    with pytest.raises(ValueError, match=r"env 2: player \d cannot play action"):
        env.step(actions)
    assert env.states.tobytes() == before
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.full(4, 99))


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        make("octrix", 0)
    with pytest.raises(ValueError, match="game='chess'"):
        make("chess", 2)
    with pytest.raises(ValueError, match="num_players"):
        make("octrix", 2, num_players=9)
    with pytest.raises(RuntimeError, match="reset"):
        make("octrix", 2).step(np.zeros(2, dtype=np.int64))


def test_results_do_not_depend_on_the_number_of_threads():
    traces = []
    for threads in (1, 3):
        env = make("octrix", 600, seed=5, num_threads=threads, num_players=3)
        env.reset()
        total = np.zeros((600, 3))
        for _ in range(40):
            obs, rew, term, trunc, info = env.step(env.sample_actions())
            total += rew
        traces.append((env.states.tobytes(), obs.tobytes(), total.tobytes()))
        env.close()
    assert traces[0] == traces[1]
    with pytest.raises(ValueError, match="num_threads"):
        make("octrix", 4, num_threads=0)


def test_get_and_set_state_resume_a_run_exactly():
    a = make("octrix", 8, seed=2, num_players=2)
    a.reset()
    for _ in range(20):
        a.step(a.sample_actions())
    saved = a.get_state()
    b = make("octrix", 8, seed=99, num_players=2)
    b.set_state(saved)
    for _ in range(30):
        oa = a.step(a.sample_actions())
        ob = b.step(b.sample_actions())
        assert all(np.array_equal(x, y) for x, y in zip(oa[:4], ob[:4]))
    with pytest.raises(ValueError, match="states"):
        make("octrix", 4, num_players=2).set_state(saved)
