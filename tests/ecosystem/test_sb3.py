"""Stable-Baselines3 and sb3-contrib: MaskablePPO trains on every game through ``gymnasium.make``.

Point 1 of the ecosystem issue: a game that ends before the learner acts (Achten with
``deal_penalty=1``) crashed MaskablePPO mid-run; ``reset()`` now skips such games.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

from octagames import catalogue
from octagames.envs import gymnasium_id  # importing octagames.envs registers the Gymnasium ids
from octagames.envs.gym_wrapper import SingleAgentEnv

from ecosystem_cases import GAMES, IDS


# every game and rulebook once (the Octrix partnership case is a PettingZoo matter: see test_torchrl.py)
SB3_CASES = [(case, name) for case, name in zip(GAMES, IDS) if not case[1].get("partnership")]


@pytest.mark.parametrize("name, config", [c for c, _ in SB3_CASES], ids=[n for _, n in SB3_CASES])
def test_maskable_ppo_trains_a_few_thousand_steps(name, config):
    seat = config.get("num_players", 2) - 1
    env = gymnasium.make(gymnasium_id(name), seat=seat, **config)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=256, n_epochs=1, seed=0,
                        policy_kwargs=dict(net_arch=[16]), device="cpu")
    model.learn(2048)
    assert model.num_timesteps >= 2048
    # the trained policy picks legal actions through the mask sb3-contrib reads
    obs, info = env.reset(seed=1)
    for _ in range(20):
        mask = get_action_masks(env)
        assert mask.any() and np.array_equal(mask, info["action_mask"])
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            obs, info = env.reset()


@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")  # Gymnasium's note before the retry
@pytest.mark.parametrize("game", catalogue.games())
def test_make_vec_env_builds_every_game_by_id(game):
    # SB3 asks every env for render_mode="rgb_array" and, on a TypeError, makes it without one
    vec = make_vec_env(gymnasium_id(game), n_envs=2, seed=0, env_kwargs={"seat": 1})
    try:
        modes = vec.get_attr("render_mode")
        assert modes == ["rgb_array"] * 2  # every game draws pictures
        assert vec.get_attr("seat") == [1, 1]
        obs = vec.reset()
        masks = get_action_masks(vec)
        assert obs.shape[0] == 2 and masks.any(axis=1).all()
        vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    finally:
        vec.close()


def test_subproc_vec_env_with_spawn_rebuilds_the_env_by_name_and_config():
    # the env itself (not a factory) is pickled into a freshly spawned interpreter
    made = gymnasium.make("octagames/Achten-v0", seat=1, deal_penalty=1.0)
    vec = SubprocVecEnv([lambda: made], start_method="spawn")
    try:
        assert vec.get_attr("seat") == [1]
        assert vec.get_attr("spec")[0].id == "octagames/Achten-v0"  # gymnasium.make's spec survives
        vec.seed(5)
        obs = vec.reset()
        expected, info = SingleAgentEnv("achten", seat=1, deal_penalty=1.0).reset(seed=5)
        assert np.array_equal(obs[0], expected)  # the same game as a local env seeded alike
        mask = get_action_masks(vec)[0]
        assert np.array_equal(mask, info["action_mask"])
        vec.step(np.array([int(np.flatnonzero(mask)[0])]))  # the spawned env plays on
    finally:
        vec.close()
