"""Gymnasium: every registered id builds with ``gymnasium.make`` and passes ``check_env`` with the
defaults; ``rgb_array`` pictures; every face pickles and deep-copies (point 4 of the ecosystem issue);
the ids in processes that never imported us and the masks at vector autoresets (point 7).
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import pickle
import subprocess
import sys
import textwrap
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import octagames.envs
from octagames import catalogue
from octagames.core import Game, make_game
from octagames.envs import gymnasium_id, octa_v0, octrix_v0
from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.envs.vector import VectorEnv

PICTURES = tuple(catalogue.games())  # every game draws pictures (octagames.envs.pictures)


def test_one_id_per_variant_and_the_games_ids_are_their_specs():
    assert sorted(octagames.envs.GYMNASIUM_IDS.values()) == sorted(catalogue.names())
    assert all(gymnasium.spec(i).id == i for i in octagames.envs.GYMNASIUM_IDS)
    for game in catalogue.games():
        assert octagames.envs.GYMNASIUM_IDS[catalogue.game_spec(game).gymnasium_id] == game


@pytest.mark.parametrize("gym_id", sorted(octagames.envs.GYMNASIUM_IDS))
def test_make_and_check_env_with_the_defaults(gym_id):
    env = gymnasium.make(gym_id)
    name = octagames.envs.GYMNASIUM_IDS[gym_id]
    game = catalogue.variant(name).game
    assert env.unwrapped.game.name == game and env.unwrapped.game.config == make_game(name).config
    assert env.metadata["render_fps"] > 0
    assert ("rgb_array" in env.metadata["render_modes"]) is (game in PICTURES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's advice would be a defect too
        # the render check re-makes the env in each mode; pictures are checked once, below
        check_env(env.unwrapped, skip_render_check=game in PICTURES)


def test_make_takes_configs_and_wrapper_arguments_as_kwargs():
    env = gymnasium.make("octagames/Octrix-v0", num_players=3, seat=2, illegal_action="raise")
    assert env.unwrapped.game.num_players == 3 and env.unwrapped.seat == 2
    with pytest.raises(ValueError, match="num_players"):
        gymnasium.make("octagames/Octrix-v0", num_players=9)
    with pytest.raises(ValueError, match="render_mode='video' is not valid"), \
            pytest.warns(UserWarning, match="not in the possible render_modes"):  # read from the class metadata
        gymnasium.make("octagames/Achten-v0", render_mode="video")  # no game has this mode


@pytest.mark.parametrize("game", PICTURES)
def test_rgb_array_is_the_learning_seats_picture(game):
    env = gymnasium.make(gymnasium_id(game), render_mode="rgb_array", seat=1)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.std() > 10  # a drawn table, not a blank image
    raw = importlib.import_module(f"octagames.envs.{game}_v0").raw_env(render_mode="rgb_array")
    raw.reset(seed=0)
    assert raw.render().shape[2] == 3


# ------------------------------------------------------------------ ids where nothing imported us
def test_ids_with_their_module_work_in_a_fresh_interpreter_and_in_a_spawned_worker(tmp_path):
    # Gymnasium 1.x loads no plugins: a process that never imported octagames.envs names the module
    script = tmp_path / "fresh.py"
    script.write_text(textwrap.dedent(f"""
        import multiprocessing, sys
        import gymnasium

        IDS = {sorted(octagames.envs.GYMNASIUM_MODULE_IDS.values())!r}

        def first_mask(gym_id):
            env = gymnasium.make(gym_id)
            return type(env.unwrapped).__name__, int(env.reset(seed=0)[1]["action_mask"].sum())

        if __name__ == "__main__":
            assert "octagames" not in sys.modules
            print(first_mask(IDS[0]))
            with multiprocessing.get_context("spawn").Pool(1) as pool:  # the worker re-imports only this file
                print(pool.map(first_mask, IDS))
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    here, spawned = out.stdout.strip().splitlines()
    made = [gymnasium.make(i) for i in sorted(octagames.envs.GYMNASIUM_MODULE_IDS.values())]
    expected = [(type(env.unwrapped).__name__, int(env.reset(seed=0)[1]["action_mask"].sum())) for env in made]
    assert ast.literal_eval(here) == expected[0] and ast.literal_eval(spawned) == expected
    assert sorted({n for n, _ in expected}) == ["AchtenEnv", "OctaEnv", "OctilesEnv", "OctrixEnv"]
    assert len(expected) == len(catalogue.names())  # one id per variant


# ------------------------------------------------------------------ masks at vector autoresets
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_no_empty_mask_at_next_step_autoresets(mode):
    """The terminal step's mask is all ones (its action is discarded), the next one the new game's."""
    envs = gymnasium.make_vec("octagames/Octrix-round-v0", num_envs=3, vectorization_mode=mode)  # single rounds
    try:
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        _, info = envs.reset(seed=0)
        envs.action_space.seed(0)
        ends = 0
        for _ in range(30):  # 2-player Octrix games last 8 learner steps
            actions = envs.action_space.sample(mask=tuple(info["action_mask"]))
            _, _, terminated, truncated, info = envs.step(actions)
            assert info["action_mask"].any(axis=1).all()  # all zero at every end before
            done = terminated | truncated
            assert info["action_mask"][done].all()
            if mode == "sync":  # each live game's mask is its engine's
                for i in np.flatnonzero(~done):
                    env = envs.envs[i].unwrapped
                    assert np.array_equal(info["action_mask"][i], env.game.legal_mask(env.state, env.seat))
            ends += int(done.sum())
        assert ends >= 6
    finally:
        envs.close()


# ------------------------------------------------------------------ pickling and deep copies
def test_game_and_vector_env_round_trip_with_their_state():
    game = Game("achten", num_players=3, deal_penalty=1.0)
    assert pickle.loads(pickle.dumps(game)).config == copy.deepcopy(game).config == game.config
    vec = VectorEnv("octrix", 4, seed=1, num_players=3)
    vec.reset()
    vec.step(vec.sample_actions())
    for clone in (pickle.loads(pickle.dumps(vec)), copy.deepcopy(vec)):
        assert clone.states.tobytes() == vec.states.tobytes()
        actions = vec.sample_actions()
        assert np.array_equal(clone.step(actions)[0], copy.deepcopy(vec).step(actions)[0])


def test_single_agent_env_round_trips_by_name_config_and_seat():
    for env in (SingleAgentEnv("octa", seat=1, rules="nl", illegal_action="raise"),
                gymnasium.make("octagames/Octa-v0", seat=1, rules="nl", illegal_action="raise"),
                gymnasium.make("octagames/Octa-nl-v0", seat=1, illegal_action="raise")):
        for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
            assert clone.unwrapped.game.config == env.unwrapped.game.config
            assert (clone.unwrapped.seat, clone.unwrapped.illegal_action) == (1, "raise")
            assert clone.spec == env.spec
            assert np.array_equal(clone.reset(seed=4)[0], env.reset(seed=4)[0])


@pytest.mark.parametrize("factory", [octrix_v0.env, octrix_v0.raw_env, octrix_v0.parallel_env,
                                     octa_v0.env, octa_v0.parallel_env,
                                     functools.partial(octa_v0.env, variant="octa-nl"),
                                     functools.partial(octrix_v0.parallel_env, variant="octrix-round")])
def test_pettingzoo_envs_round_trip(factory):
    env = factory(render_mode="ansi")
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.game.config == env.unwrapped.game.config
        assert clone.metadata["name"] == env.metadata["name"]
        clone.reset(seed=2)
        env.reset(seed=2)
        assert clone.render() == env.render()
