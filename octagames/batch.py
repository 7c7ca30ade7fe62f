"""Compiled batch kernels built once per game from its record kernels.

:func:`batch_kernels` takes a rules module that follows the engine contract
and returns numba functions that step a whole batch of records in one call:
chance nodes are resolved with each record's own RNG, finished games restart
with a seed drawn from that RNG (so a batch is reproducible from its seeds),
and observations, masks and rewards are written into preallocated arrays.
Large batches are split into slices stepped on several threads.
"""

from __future__ import annotations

from types import ModuleType
from typing import NamedTuple

import numba as nb
import numpy as np

from octagames.core import CHANCE, TERMINAL, mix64, nth_set, rng_next


class BatchKernels(NamedTuple):
    """The compiled batch functions of one game (see :func:`batch_kernels`)."""

    reset: object
    step: object
    observe: object


_CACHE: dict[str, BatchKernels] = {}


def batch_kernels(module: ModuleType) -> BatchKernels:
    """Build (once) and return the batch kernels of a rules module.

    The kernels loop over the records they are given on one thread and release
    the GIL, so callers can step slices of a batch on several Python threads
    (see ``octagames.envs.vector``); unlike numba's parallel loops this degrades
    gracefully on a busy machine.
    """
    key = module.__name__
    if key in _CACHE:
        return _CACHE[key]
    reset_k = module.reset
    cur = module.current_player
    act = module.acting_player
    mask_k = module.legal_mask
    apply_k = module.apply_action
    obs_k = module.observation
    ret_k = module.returns
    sample_k = module.sample_chance
    max_players = module.INFO.max_players

    @nb.njit(cache=True)
    def _settle(s):
        # resolve chance nodes so that a seat (or the end) is next
        while cur(s) == CHANCE:
            apply_k(s, sample_k(s))

    @nb.njit(cache=True)
    def _emit(s, i, obs, mask, player):
        p = act(s)
        player[i] = p
        if p >= 0:
            mask_k(s, p, mask[i])
            obs_k(s, p, obs[i])
        else:
            mask[i, :] = 0
            obs[i, :] = 0.0

    @nb.njit(cache=True, nogil=True)
    def reset_batch(states, seeds, obs, mask, player):
        for i in range(states.shape[0]):
            s = states[i]
            reset_k(s, seeds[i])
            _settle(s)
            _emit(s, i, obs, mask, player)

    @nb.njit(cache=True, nogil=True)
    def step_batch(states, actions, obs, mask, player, rewards, terminated, scratch):
        for i in range(states.shape[0]):
            s = states[i]
            # returns before and after the action; their difference is the reward
            ret_k(s, scratch[i])
            apply_k(s, actions[i])
            _settle(s)
            ret_k(s, rewards[i])
            for p in range(max_players):
                rewards[i, p] -= scratch[i, p]
            if cur(s) == TERMINAL:
                terminated[i] = True
                reset_k(s, rng_next(s) >> np.uint64(1))
                _settle(s)
            else:
                terminated[i] = False
            _emit(s, i, obs, mask, player)

    @nb.njit(cache=True, nogil=True)
    def observe_batch(states, players, obs):
        for i in range(states.shape[0]):
            obs_k(states[i], players[i], obs[i])

    kernels = BatchKernels(reset_batch, step_batch, observe_batch)
    _CACHE[key] = kernels
    return kernels


@nb.njit(cache=True)
def random_actions(mask, seeds, out):
    """One uniformly random legal action per row of ``mask`` (-1 for an empty row).

    ``seeds`` (uint64, one per row) is advanced in place, so repeated calls are
    reproducible from the initial seeds.
    """
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        if n == 0:
            out[i] = -1
            continue
        z = seeds[i] + np.uint64(0x9E3779B97F4A7C15)
        seeds[i] = z
        out[i] = nth_set(mask[i], int(mix64(z) % np.uint64(n)))


class RecordKernels(NamedTuple):
    """Kernels of one game called as ``f(states, i, ...)`` on record ``i`` of an array.

    Numba types an array argument much faster than a ``numpy.void`` record, so
    faces that step one game at a time from Python (the AEC env, the OpenSpiel
    adapter) keep their record in a 1-element array and call these.
    """

    current_player: object
    acting_player: object
    legal_mask: object
    apply_action: object
    observation: object
    returns: object
    settle: object


_RECORD_CACHE: dict[str, RecordKernels] = {}


def record_kernels(module: ModuleType) -> RecordKernels:
    """Build (once) and return the array-index wrappers of a rules module's kernels."""
    key = module.__name__
    if key in _RECORD_CACHE:
        return _RECORD_CACHE[key]
    cur = module.current_player
    act = module.acting_player
    mask_k = module.legal_mask
    apply_k = module.apply_action
    obs_k = module.observation
    ret_k = module.returns
    sample_k = module.sample_chance

    @nb.njit(cache=True)
    def current_player_at(states, i):
        return cur(states[i])

    @nb.njit(cache=True)
    def acting_player_at(states, i):
        return act(states[i])

    @nb.njit(cache=True)
    def legal_mask_at(states, i, player, out):
        return mask_k(states[i], player, out)

    @nb.njit(cache=True)
    def apply_action_at(states, i, action):
        return apply_k(states[i], action)

    @nb.njit(cache=True)
    def observation_at(states, i, player, out):
        obs_k(states[i], player, out)

    @nb.njit(cache=True)
    def returns_at(states, i, out):
        ret_k(states[i], out)

    @nb.njit(cache=True)
    def settle_at(states, i):
        # resolve chance nodes with the record's RNG; returns the number resolved
        n = 0
        s = states[i]
        while cur(s) == CHANCE:
            apply_k(s, sample_k(s))
            n += 1
        return n

    kernels = RecordKernels(current_player_at, acting_player_at, legal_mask_at, apply_action_at,
                            observation_at, returns_at, settle_at)
    _RECORD_CACHE[key] = kernels
    return kernels
