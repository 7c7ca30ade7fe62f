"""PettingZoo's conversions and SuperSuit's vector envs on every game.

Point 2 of the ecosystem issue: ``is_parallelizable`` is True only where every seat acts
in every step, so ``aec_to_parallel`` is offered exactly where it works; the Parallel
env (idle seats wait) converts back with ``parallel_to_aec`` and feeds SuperSuit's
vector envs, which need every agent to act in every step.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import supersuit as ss
from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

from octagames import catalogue

from ecosystem_cases import GAMES, IDS, pettingzoo_module

with warnings.catch_warnings():  # pettingzoo.test imports connect_four_v3 through its deprecated loader
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, parallel_api_test


@pytest.mark.parametrize("name, config", GAMES, ids=IDS)
def test_aec_to_parallel_exactly_where_every_seat_acts(name, config):
    raw = pettingzoo_module(name).raw_env(variant=name, **config)
    if not raw.metadata["is_parallelizable"]:
        with pytest.raises(AssertionError):  # PettingZoo refuses the conversion itself
            aec_to_parallel(raw)
        return
    par = aec_to_parallel(raw)
    parallel_api_test(par, num_cycles=100)
    # the converted env and our Parallel env play the same game from the same seed
    ours = pettingzoo_module(name).parallel_env(variant=name, **config)
    obs_a, _ = par.reset(seed=3)
    obs_b, _ = ours.reset(seed=3)
    while par.agents:
        for a in par.agents:
            assert np.array_equal(obs_a[a]["observation"], obs_b[a]["observation"])
        actions = {a: int(np.flatnonzero(obs_a[a]["action_mask"])[0]) for a in par.agents}
        obs_a, rew_a, *_ = par.step(actions)
        obs_b, rew_b, *_ = ours.step(actions)
        assert rew_a == pytest.approx(rew_b)
    assert not ours.agents


@pytest.mark.parametrize("name, config", GAMES, ids=IDS)
def test_parallel_to_aec_passes_the_api_test(name, config):
    api_test(parallel_to_aec(pettingzoo_module(name).parallel_env(variant=name, **config)), num_cycles=100)


@pytest.mark.parametrize("name, config", GAMES, ids=IDS)
def test_supersuit_vector_env(name, config):
    par = pettingzoo_module(name).parallel_env(variant=name, illegal_action="raise", **config)
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), 2, num_cpus=0,
                                base_class="stable_baselines3")
    n = len(par.possible_agents)
    assert vec.num_envs == 2 * n  # one slot per agent and copy
    obs = vec.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(60):
        masks = obs["action_mask"]
        assert masks.any(axis=1).all()  # every agent always has a legal action: its own or the wait
        obs, _, dones, _ = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        finished += int(dones.sum())
    short = catalogue.variant(name).game not in ("octiles", "octa")
    assert finished > 0 or not short  # short games end and restart inside
