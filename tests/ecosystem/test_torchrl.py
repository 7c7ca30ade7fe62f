"""TorchRL: its PettingZoo wrapper, AEC and Parallel, passes ``check_env_specs`` and rolls out every game.

Point 3 of the ecosystem issue: the Parallel env gave idle seats an all-zero mask, and
TorchRL's masked sampling failed (``invalid multinomial distribution``). Idle seats now
have one legal action, the wait.
"""

from __future__ import annotations

import pytest
import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.envs.utils import check_env_specs

from ecosystem_cases import GAMES, IDS, pettingzoo_module

STEPS = 150  # a whole game of Octrix, Achten and the Octiles openings; the start of an Octa game


def _legal_actions_only(td, group: str = "agents") -> None:
    """Every action TorchRL sampled was legal for an agent that acted (masks read before the step)."""
    actions = td[group, "action"]
    masks = td[group, "action_mask"]
    acted = td[group, "mask"]
    chosen = masks.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
    assert bool(chosen[acted].all())


@pytest.mark.parametrize("name, config", GAMES, ids=IDS)
def test_parallel_wrapper(name, config):
    # illegal_action="raise": a sampled illegal action would fail here instead of ending the game
    par = pettingzoo_module(name).parallel_env(variant=name, illegal_action="raise", **config)
    env = PettingZooWrapper(par, use_mask=True,
                            seed=0, categorical_actions=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)
    check_env_specs(env, seed=0)
    td = env.rollout(STEPS, break_when_any_done=True)
    assert td.shape[0] > 0 and bool(td["agents", "mask"].all())  # every live agent takes part in every step
    _legal_actions_only(td)
    assert bool(td["next", "done"][-1]) or td.shape[0] == STEPS


@pytest.mark.parametrize("name, config", GAMES, ids=IDS)
def test_aec_wrapper(name, config):
    raw = pettingzoo_module(name).raw_env(variant=name, **config)
    env = PettingZooWrapper(raw, use_mask=True, seed=0, categorical_actions=True,
                            group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)
    check_env_specs(env, seed=0)
    td = env.rollout(STEPS, break_when_any_done=True)
    assert td.shape[0] > 0
    assert bool((td["agents", "mask"].sum(-1) == 1).all())  # one agent acts per AEC step
    _legal_actions_only(td)
    assert bool(td["next", "done"][-1]) or td.shape[0] == STEPS
    if bool(td["next", "done"][-1]):  # a finished game: the rewards added up to the game's returns
        returns = torch.as_tensor(env._env.game.returns(env._env.state_record), dtype=torch.float32)
        assert torch.allclose(td["next", "agents", "reward"].sum(0).squeeze(-1), returns, atol=1e-5)


def test_gym_env_by_id_builds_and_passes_its_spec_check():
    """TorchRL's GymEnv passes frameskip to gymnasium.make and drops it on a TypeError saying "unexpected keyword
    argument 'frameskip'"; our unknown-field error was a ValueError alone, so no octagames id could be built."""
    import octagames.envs  # noqa: F401  (registers the ids)
    from torchrl.envs import GymEnv

    env = GymEnv("octagames/Octrix-round-small-v0", categorical_action_encoding=True)
    assert env.wrapper_frame_skip == 1  # the keyword dropped, nothing skipped
    check_env_specs(env, seed=0)
