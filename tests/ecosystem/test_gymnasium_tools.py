"""Gymnasium: every registered id builds with ``gymnasium.make`` and passes ``check_env`` with the
defaults; ``rgb_array`` pictures; every face pickles and deep-copies (point 4 of the ecosystem issue).
"""

from __future__ import annotations

import copy
import importlib
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import octagames.envs
from octagames.core import Game
from octagames.envs import octa_v0, octrix_v0
from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.envs.vector import VectorEnv

from ecosystem_cases import GYM_ID

PICTURES = ("octiles", "octa")


def test_one_id_per_game():
    assert sorted(octagames.envs.GYMNASIUM_IDS.values()) == sorted(GYM_ID)
    assert all(gymnasium.spec(i).id == i for i in GYM_ID.values())


@pytest.mark.parametrize("gym_id", GYM_ID.values())
def test_make_and_check_env_with_the_defaults(gym_id):
    env = gymnasium.make(gym_id)
    game = octagames.envs.GYMNASIUM_IDS[gym_id]
    assert env.unwrapped.game.name == game
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
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not valid"):
        gymnasium.make("octagames/Achten-v0", render_mode="rgb_array")  # Achten draws no picture


@pytest.mark.parametrize("game", PICTURES)
def test_rgb_array_is_the_learning_seats_picture(game):
    env = gymnasium.make(GYM_ID[game], render_mode="rgb_array", seat=1)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.std() > 10  # a drawn table, not a blank image
    raw = importlib.import_module(f"octagames.envs.{game}_v0").raw_env(render_mode="rgb_array")
    raw.reset(seed=0)
    assert raw.render().shape[2] == 3


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
                gymnasium.make("octagames/Octa-v0", seat=1, rules="nl", illegal_action="raise")):
        for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
            assert clone.unwrapped.game.config == env.unwrapped.game.config
            assert (clone.unwrapped.seat, clone.unwrapped.illegal_action) == (1, "raise")
            assert clone.spec == env.spec
            assert np.array_equal(clone.reset(seed=4)[0], env.reset(seed=4)[0])


@pytest.mark.parametrize("factory", [octrix_v0.env, octrix_v0.raw_env, octrix_v0.parallel_env,
                                     octa_v0.env, octa_v0.parallel_env])
def test_pettingzoo_envs_round_trip(factory):
    env = factory(render_mode="ansi")
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.game.config == env.unwrapped.game.config
        assert clone.metadata["name"] == env.metadata["name"]
        clone.reset(seed=2)
        env.reset(seed=2)
        assert clone.render() == env.render()
