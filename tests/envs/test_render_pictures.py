"""rgb_array rendering of the games that have a picture."""

import numpy as np
import pytest

from octagames.envs import octiles_v0


def test_octiles_rgb_array_is_a_board_picture():
    env = octiles_v0.raw_env(render_mode="rgb_array", num_players=2)
    env.reset(seed=3)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[0] >= 400 and first.shape[1] >= 400
    for _ in range(6):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    later = env.render()
    assert later.shape == first.shape
    # the picture changes with the position, and it is not a blank canvas
    assert np.abs(later.astype(int) - first.astype(int)).sum() > 0
    assert len(np.unique(later.reshape(-1, 3), axis=0)) > 20


def test_unknown_render_mode_is_refused_with_the_valid_modes():
    with pytest.raises(ValueError, match="rgb_array"):
        octiles_v0.raw_env(render_mode="video")


def test_octa_rgb_array_shows_the_table_from_the_seat_to_move():
    from octagames.envs import octa_v0
    env = octa_v0.raw_env(render_mode="rgb_array", rules="en")
    env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    for _ in range(12):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))
    later = env.render()
    assert later.shape == first.shape and np.abs(later.astype(int) - first.astype(int)).sum() > 0
