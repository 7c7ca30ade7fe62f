"""The batched vector env: shapes, reproducibility, agreement with the engine, auto-reset, errors."""

import pickle
import re

import numpy as np
import pytest

from octagames.envs import vector
from octagames.envs.vector import MIN_SLICE, cpu_count, make
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

    Returns the reward, whether the game ended by the rules, whether an engine cap stopped it, and the
    record as it ended (None when the game goes on).
    """
    before = g.returns(s)
    g.apply_action(s, action)
    g.play_chance(s)
    reward = g.returns(s) - before
    done, capped = g.is_terminal(s), bool(g.kernels.truncated(s))
    last = g.clone(s) if done else None
    if done:
        seed = int(rng_next(s) >> np.uint64(1))
        g.module.reset(s, seed)
        g.play_chance(s)
    return reward, done and not capped, capped, last


@pytest.mark.parametrize("name,cfg", CONFIGS)
def test_vector_env_equals_engine_played_one_record_at_a_time(name, cfg):
    """Game i of the batch is exactly the engine game seeded with game_seeds(seed, n)[i], same actions."""
    n = 4
    env = make(name, n, seed=10, **cfg)
    obs, info = env.reset()
    g = Game(name, **cfg)
    ref = [g.new_state(int(s)) for s in vector.game_seeds(10, n)]
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


@pytest.mark.parametrize("name,cfg,dtype", [("octiles", dict(num_players=2, max_turns=40), "float32"),
                                            ("octrix", dict(num_players=3, match=False), "uint16"),
                                            ("achten", dict(num_players=4), "uint8")])
def test_the_final_observation_is_each_ended_games_last_position_as_every_seat_sees_it(name, cfg, dtype):
    """A game that ends restarts inside the step: ``final_observation`` is its last position, for every seat
    (Octiles' games here end at the engine's turn cap: truncated, whose value a trainer bootstraps)."""
    n = 6
    env = make(name, n, seed=5, obs_dtype=dtype, **cfg)
    env.reset()
    g = Game(name, **cfg)
    ref = [g.new_state(int(s)) for s in vector.game_seeds(5, n)]
    for s in ref:
        g.play_chance(s)
    assert not env.final_observation(np.zeros(n, np.int64)).any()  # nothing has ended yet
    ended = np.zeros(2, int)
    for _ in range(300):
        actions = env.sample_actions()
        last = [_engine_step(g, s, int(a))[3] for s, a in zip(ref, actions)]
        env.step_inplace(actions)
        for p in range(g.num_players):
            final = env.final_observation(np.full(n, p))
            assert final.dtype == env.obs.dtype
            for i in range(n):
                want = np.zeros(g.observation_size) if last[i] is None else g.observation(last[i], p)
                assert np.array_equal(final[i].astype(np.float32) / env.obs_divisor, want)
        ended += [env.terminated.sum(), env.truncated.sum()]
        assert env.terminated.sum() + env.truncated.sum() == sum(x is not None for x in last)
    assert ended[1 if name == "octiles" else 0] >= 3, ended
    with pytest.raises(ValueError, match=r"players\[0\] = -1 is not a seat"):
        env.final_observation(np.full(n, -1))
    while not (env.terminated | env.truncated).any():
        env.step_inplace(env.sample_actions())
    assert env.final_observation(np.zeros(n, np.int64)).any()
    env.set_state(env.get_state())  # a restored env has no last step
    assert not env.final_observation(np.zeros(n, np.int64)).any()


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


@pytest.mark.parametrize("name", ["octrix", "octa", "octiles"])
def test_a_move_the_caller_marks_legal_in_action_mask_is_still_refused(name):
    # the kernels skip the engine's second legality check for a move their own copy of the mask allows
    env = make(name, 4, seed=0)
    env.reset()
    i = 2
    illegal = int(np.flatnonzero(~env.action_mask[i])[0])
    env.action_mask[i, illegal] = True  # the caller's view, changed
    before = env.states[i].tobytes()
    actions = env.sample_actions()
    actions[i] = illegal
    with pytest.raises(ValueError, match=rf"env {i}: player \d cannot play action {illegal} "):
        env.step(actions)
    env.step_inplace(actions)
    assert env.states[i].tobytes() == before  # refused by the engine
    assert not env.action_mask[i, illegal]  # the mask is the game's again


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        make("octrix", 0)
    with pytest.raises(ValueError, match="game='chess'"):
        make("chess", 2)
    with pytest.raises(ValueError, match="num_players"):
        make("octrix", 2, num_players=9)
    with pytest.raises(RuntimeError, match="reset"):
        make("octrix", 2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="num_threads"):
        make("octrix", 4, num_threads=0)


def test_the_example_of_makes_docstring_builds_and_the_match_refuses_uint8_naming_uint16():
    example = re.search(r"``(make\(.*?\))``", vector.make.__doc__).group(1)
    env = eval(example, {"make": make})  # noqa: S307 - the docstring's own example
    assert env.reset()[0].dtype == np.uint8 and env.num_players == 3
    with pytest.raises(ValueError, match="uint16"):  # the match to 88: scores past 255
        make("octrix", 2, num_players=3, obs_dtype="uint8")


def _run(env, steps: int, seed: int | None = None) -> list[bytes]:
    """Observations and sampled actions of ``steps`` steps after ``reset(seed)`` (what a seed decides)."""
    trace = [env.reset(seed=seed)[0].tobytes()]
    for _ in range(steps):
        actions = env.sample_actions()
        trace += [actions.tobytes(), env.step(actions)[0].tobytes()]
    return trace


def test_reset_with_a_seed_reseeds_the_games_and_sample_actions_as_a_fresh_env():
    fresh = _run(make("achten", 4, seed=5, num_threads=1, num_players=3), 30)
    env = make("achten", 4, seed=0, num_threads=1, num_players=3)
    _run(env, 7)  # the sampling generators move on
    assert _run(env, 30, seed=5) == fresh
    assert _run(env, 30, seed=5) == fresh  # again, wherever the last run left the generators
    assert env.seed == 5 and pickle.loads(pickle.dumps(env)).seed == 5


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, True, 1.5])
def test_a_seed_out_of_the_engines_range_is_refused_naming_the_field_and_the_range(seed):
    message = rf"seed={seed!r} is not valid; it must be an integer in 0\.\.{2**63 - 1}$"
    with pytest.raises(ValueError, match=message):
        make("achten", 4, seed=seed)
    env = make("achten", 4, seed=2)
    env.reset()
    before = env.get_state()
    with pytest.raises(ValueError, match=message):
        env.reset(seed=seed)
    assert env.seed == 2 and all(np.array_equal(v, env.get_state()[k]) for k, v in before.items())
    assert make("achten", 4, seed=2**63 - 1).reset()[0].shape[0] == 4  # the last seed of the range


def test_game_seeds_are_mixed_from_seed_and_index_and_do_not_depend_on_the_batch_size():
    seeds = vector.game_seeds(0, 64)
    assert seeds.dtype == np.int64 and np.all(seeds >= 0) and len(set(seeds.tolist())) == 64
    assert np.array_equal(vector.game_seeds(0, 8), seeds[:8])  # game i is the same in any batch
    assert not set(seeds.tolist()) & set(vector.game_seeds(1, 64).tolist())  # not seed + i
    small, large = make("octrix-round", 4, seed=3), make("octrix-round", 64, seed=3)
    assert np.array_equal(small.reset()[0], large.reset()[0][:4])


def _new_game_openings(seed: int, n: int, steps: int) -> list[dict[bytes, int]]:
    """Per env index, the first observations of the games it started (reset and auto-resets), counted."""
    env = make("octrix-round", n, seed=seed, num_threads=1)
    obs, info = env.reset()
    rng = np.random.default_rng(1234)  # the same action rule at both seeds, not the env's sampler
    openings = [{o.tobytes(): 1} for o in obs]
    for _ in range(steps):
        obs, _, term, trunc, info = env.step(_random_legal(rng, info["action_mask"]))
        for i in np.flatnonzero(term | trunc):
            key = obs[i].tobytes()
            openings[i][key] = openings[i].get(key, 0) + 1
    return openings


def test_runs_at_neighbouring_seeds_share_no_deals():
    """Game i at seed 1 once replayed game i + 1 at seed 0 deal for deal (seeds seed + i, restarts
    seeded from each game's own RNG): runs at two seeds were not independent."""
    n = 64
    a, b = _new_game_openings(0, n, 300), _new_game_openings(1, n, 300)
    for shift in (0, 1, -1):  # env i of seed 1 against env i + shift of seed 0
        pairs = [(b[i], a[i + shift]) for i in range(max(0, -shift), min(n, n - shift))]
        games = sum(sum(x.values()) for x, _ in pairs)
        shared = sum(min(c, y.get(k, 0)) for x, y in pairs for k, c in x.items())
        assert games > 1000 and shared < 0.05 * games, (shift, shared, games)


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
    # and so do its later deals: reset() dealt the games of b's own seed (99), the seed was not in the state
    assert b.seed == 2 and all(np.array_equal(x, y) for x, y in zip(a.reset(), b.reset()) if isinstance(x, np.ndarray))
    assert np.array_equal(a.states, b.states)
    with pytest.raises(ValueError, match="states"):
        make("octrix", 4, num_players=2).set_state(saved)
    older = {k: v for k, v in saved.items() if k != "seed"}  # a state saved before it held the seed
    c = make("octrix", 8, seed=99, num_players=2)
    c.set_state(older)
    assert c.seed == 99
    for bad in (np.array(-1), np.array([2]), np.array(2.0)):
        with pytest.raises(ValueError, match=r"state\['seed'\]"):
            c.set_state({**saved, "seed": bad})
        assert c.seed == 99


def test_observe_and_sample_actions_before_reset_are_refused():
    """They returned the placeholder records' observations and -1 for every game, without a word."""
    env = make("octrix-round", 4)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before sample_actions\(\)"):
        env.sample_actions()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before observe\(\)"):
        env.observe(np.zeros(4, dtype=np.int64))
    env.reset()
    assert env.action_mask[np.arange(4), env.sample_actions()].all()


# two configs per game, one with 3 players where the game has them (Octa is a 2-player game)
THREAD_CONFIGS = [("octrix", dict(num_players=3)), ("octrix", dict(num_players=4, partnership=True)),
                  ("achten", dict(num_players=3)), ("achten", dict(num_players=2)),
                  ("octiles", dict(num_players=3, max_turns=40)), ("octiles", dict(num_players=2, max_turns=40)),
                  ("octa", dict(rules="en")), ("octa", dict(rules="nl"))]


def _random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``, drawn from ``rng``."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


@pytest.mark.parametrize("name,cfg", THREAD_CONFIGS)
def test_every_thread_count_and_chunk_gives_bit_identical_runs(name, cfg, monkeypatch):
    monkeypatch.setattr(vector, "MIN_SLICE", 16)  # small slices: three of them in a batch of 48
    monkeypatch.setattr(vector, "CHUNK_RECORD_BYTES", 0)  # every game stepped in chunks of 16 games ...
    monkeypatch.setattr(vector, "CHUNK_BYTES", 0)
    envs = [make(name, 48, seed=11, num_threads=threads, **cfg) for threads in (1, 2, 3)]
    assert [len(env._slices) for env in envs] == [1, 2, 3]
    assert all(env._chunk == 16 for env in envs)  # ... so 3 chunks, 2 slices of 2 chunks of 12, 3 whole slices
    rngs = [np.random.default_rng(4) for _ in envs]
    for env in envs:
        env.reset()
    ended = 0
    for step in range(300):
        for env, rng in zip(envs, rngs):
            env.step_inplace(_random_legal(rng, env.action_mask))
        first = envs[0]
        for env in envs[1:]:
            for x in ("obs", "rewards", "action_mask", "player", "terminated", "truncated", "states"):
                assert getattr(env, x).tobytes() == getattr(first, x).tobytes(), (step, x, env.num_threads)
        ended += int(first.terminated.sum() + first.truncated.sum())
    for env in envs:
        env.close()
    assert ended > 0  # restarts were stepped too (Octiles' turn cap is lowered for that)


def test_num_threads_defaults_to_the_cores_available():
    env = make("octrix", 4 * MIN_SLICE, num_players=2)
    assert env.num_threads == cpu_count()
    assert len(env._slices) == min(cpu_count(), 4)
    assert len(make("octrix", MIN_SLICE, num_players=2)._slices) == 1  # one slice: no thread is worth it


COMPACT_CONFIGS = [("octrix", dict(num_players=2, match=False), "uint8"),
                   ("octrix", dict(num_players=3, match=True, target=20), "uint16"),
                   ("achten", dict(num_players=3), "uint8"), ("octiles", dict(num_players=2, max_turns=260), "uint16"),
                   ("octiles", dict(num_players=3, max_turns=200), "uint8"),
                   ("octa", dict(rules="en"), "uint8"), ("octa", dict(rules="nl"), "uint8")]


@pytest.mark.parametrize("name,cfg,dtype", COMPACT_CONFIGS)
def test_compact_observations_are_the_float_ones_divided(name, cfg, dtype):
    """``obs / obs_divisor`` in float32 is bit-identical to the float32 observation, in every step."""
    n = 16
    compact = make(name, n, seed=6, obs_dtype=dtype, **cfg)
    plain = make(name, n, seed=6, **cfg)
    obs_c, info_c = compact.reset()
    obs_f, _ = plain.reset()
    assert obs_c.dtype == np.dtype(dtype) and compact.obs_divisor.dtype == np.float32
    buffer = compact.obs
    ended = 0
    for step in range(4000):  # random Octiles games last up to their turn cap
        if step >= 300 and ended > 0:
            break
        assert np.array_equal(obs_c.astype(np.float32) / compact.obs_divisor, obs_f), step
        assert np.array_equal(compact.obs, obs_c) and compact.obs is buffer  # one buffer, reused
        actions = plain.sample_actions()
        obs_c, rew_c, term_c, trunc_c, info_c = compact.step(actions)
        obs_f, rew_f, term_f, trunc_f, info_f = plain.step(actions)
        assert np.array_equal(rew_c, rew_f) and np.array_equal(term_c, term_f)
        assert np.array_equal(info_c["action_mask"], info_f["action_mask"])
        ended += int(term_f.sum() + trunc_f.sum())
    assert ended > 0  # restarted games' first observations were compared too
    seats = (plain.player + 1) % plain.num_players
    assert np.array_equal(compact.observe(seats).astype(np.float32) / compact.obs_divisor, plain.observe(seats))
    # the scalar entries (not 0/1) were exercised, not only the one-hot ones
    assert (compact.obs[:, compact.obs_divisor != 1] > 0).any()


def test_the_kernels_read_the_divisors_in_the_rows_dtype_where_it_holds_them_all():
    for divisor, dtype, kernel_dtype in [([1, 2, 200], "uint8", np.uint8), ([1, 500], "uint16", np.uint16),
                                         ([1, 500], "uint8", np.float32), ([1, 2.5], "uint16", np.float32)]:
        given = np.array(divisor, np.float32)
        kernel = vector._kernel_divisor(given, dtype)
        assert kernel.dtype == kernel_dtype and np.array_equal(kernel, given), (divisor, dtype)


def test_compact_buffer_goes_to_torch_without_a_copy_and_is_overwritten_in_place():
    torch = pytest.importorskip("torch")
    env = make("achten", 8, seed=0, obs_dtype="uint8", num_players=2)
    env.reset()
    x = torch.from_numpy(env.obs)
    before = x.clone()
    env.step_inplace(env.sample_actions())
    assert x.data_ptr() == env.obs.ctypes.data and x.dtype == torch.uint8
    assert torch.equal(x, torch.from_numpy(env.obs.copy())) and not torch.equal(x, before)
    decoded = x.float() / torch.from_numpy(env.obs_divisor)
    assert np.array_equal(decoded.numpy(), env.observe(env.player).astype(np.float32) / env.obs_divisor)


def test_bad_obs_dtype_is_refused_naming_the_field_and_the_valid_values():
    with pytest.raises(ValueError, match=r"obs_dtype='int8' is not valid; valid values: \['float32', 'uint8', 'uint16'\]"):
        make("octrix", 2, obs_dtype="int8")
    with pytest.raises(ValueError, match=r"obs_dtype='uint8'.*\['turns'\].*valid values for this config: "
                                         r"\['float32', 'uint16'\]"):
        make("octiles", 2, obs_dtype="uint8", max_turns=500)
    env = make("octiles", 2, obs_dtype="uint16", max_turns=500)
    env.reset()
    assert env.obs.dtype == np.uint16 and env.obs_divisor[env.obs_divisor != 1].max() == 500


def test_a_numpy_dtype_is_taken_by_its_name_and_a_wrong_one_refused():
    # obs_dtype was stored as given: np.dtype("uint8") passed the check (it equals "uint8") and stayed a dtype
    for given in (np.uint8, np.dtype("uint8"), "u1"):
        env = make("achten", 2, obs_dtype=given)
        assert env.obs_dtype == "uint8" and type(env.obs_dtype) is str
        env.reset()
        assert env.obs.dtype == np.uint8
    assert make("achten", 2, obs_dtype=np.float32).obs_dtype == "float32"
    valid = r"is not valid; valid values: \['float32', 'uint8', 'uint16'\]"
    for bad in (np.int8, float, None, "uint32", 3):
        with pytest.raises(ValueError, match=f"obs_dtype={re.escape(repr(bad))} {valid}"):
            make("achten", 2, obs_dtype=bad)


def test_a_compact_env_pickles_and_restores_with_its_dtype():
    env = make("achten", 6, seed=3, obs_dtype="uint8", num_players=3)
    env.reset()
    for _ in range(10):
        env.step_inplace(env.sample_actions())
    twin = pickle.loads(pickle.dumps(env))
    assert twin.obs_dtype == "uint8" and twin.obs.dtype == np.uint8 and np.array_equal(twin.obs, env.obs)
    for _ in range(20):
        a = env.sample_actions()
        assert np.array_equal(a, twin.sample_actions())
        assert all(np.array_equal(x, y) for x, y in zip(env.step(a)[:4], twin.step(a)[:4]))


def test_step_inplace_before_reset_is_refused_and_steps_no_game():
    # the records before reset() are placeholders, not the env's games: stepping them was silent
    env = make("octrix", 2)
    before = env.states.tobytes()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step_inplace\(\)"):
        env.step_inplace(np.zeros(2, dtype=np.int64))
    assert env.states.tobytes() == before


NOT_ACTION_ARRAYS = [np.full(4, 0.7), np.zeros(4, dtype=bool), np.int64(0), np.zeros((1, 4), dtype=np.int64)]


@pytest.mark.parametrize("bad", NOT_ACTION_ARRAYS, ids=["floats", "bools", "a scalar", "shape (1, 4)"])
def test_step_inplace_refuses_what_is_not_one_integer_action_per_game_and_steps_nothing(bad):
    # floats were truncated (2.7 played action 2) and a scalar was broadcast to every game, silently
    env = make("octrix", 4, seed=0)
    env.reset()
    before = env.get_state()
    with pytest.raises(ValueError, match=r"actions must be an integer array of shape \(4,\)"):
        env.step_inplace(bad)
    assert all(np.array_equal(v, env.get_state()[k]) for k, v in before.items())
    env.step_inplace(list(env.sample_actions()))  # a list of ints is an integer array, as step() takes it


@pytest.mark.parametrize("bad", [None, [1, 2], "states"])
def test_set_state_of_something_not_a_mapping_is_refused_in_words_and_changes_nothing(bad):
    env = make("achten", 4, seed=0)  # an AttributeError ('NoneType' object has no attribute 'get') before
    env.reset()
    before = env.get_state()
    with pytest.raises(ValueError, match=r"state must be a dict of arrays as get_state\(\) returns, got"):
        env.set_state(bad)
    assert all(np.array_equal(v, env.get_state()[k]) for k, v in before.items())
