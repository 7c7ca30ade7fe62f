"""Template: a compiled playout policy over many records (see :func:`octagames.agents.search.mcts.playout_kernels`).

:func:`octagames.agents.search.mcts.playout_kernels` binds ``game`` to a rules module and
``policy`` to a compiled playout policy ``policy(s, player, mask, n_legal) ->
action`` (a game's compiled heuristic, ``GameSpec.playout_policy`` in ``octagames/<game>/variants.py``)
through :func:`octagames.specialize.specialize`. The AlphaZero search asks it for the
playouts of its ``playout_mix`` and for the moves of its heuristic prior hint, and
:mod:`octagames.agents.search.rollouts` for its paired rollouts (``rollout_values``); the
tree kernels stay those of the plain search, so a game compiles only these three
entry points more.
"""

import numba as nb

from octagames.core import CHANCE, TERMINAL, fast_apply
from octagames.agents.search.mcts import win_values
import octagames.octrix as game  # specialize: game
from octagames.agents.search.mcts import random_policy as policy  # specialize: policy

# playout actions come from the mask: the rules' unchecked apply when they have one
apply_fast = fast_apply(game)


@nb.njit(cache=True, nogil=True)
def play_out(s, mask, max_steps):
    """Play ``s`` on with the policy for every seat and chance by its RNG, at most ``max_steps``
    actions; whether it ended."""
    for _ in range(max_steps):
        cp = game.current_player(s)
        if cp == TERMINAL:
            return True
        if cp == CHANCE:
            apply_fast(s, int(game.sample_chance(s)))
        else:
            p = game.acting_player(s)
            apply_fast(s, policy(s, p, mask, game.legal_mask(s, p, mask)))
    return game.current_player(s) == TERMINAL


@nb.njit(cache=True, nogil=True)
def playouts_many(works, status, evalp, mask, max_steps, rets, finished):
    """Play every row ``r`` with ``status[r] >= 0`` and ``evalp[r] >= 0`` (the leaves the network
    evaluates in the batched search) to its end with the policy for every seat and chance by the
    record's RNG, at most ``max_steps`` actions (the records are changed): its returns in
    ``rets[r]`` and ``finished[r] = 1`` when it ended (zeros elsewhere)."""
    for r in range(status.shape[0]):
        rets[r, :] = 0.0
        finished[r] = 0
        if status[r] < 0 or evalp[r] < 0:
            continue
        s = works[r]
        if play_out(s, mask, max_steps):
            game.returns(s, rets[r])
            finished[r] = 1


@nb.njit(cache=True, nogil=True)
def policy_many(records, seats, masks, out):
    """The policy's action for ``seats[r]`` in every record, given its legal ``masks[r]`` (-1 where
    none is legal); the records' RNGs advance."""
    for r in range(records.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[r, a] != 0
        out[r] = policy(records[r], seats[r], masks[r], n) if n > 0 else -1


@nb.njit(cache=True, nogil=True)
def rollout_values(worlds_bytes, work, work_bytes, seat, num_players, legal, mask, max_steps, rets, win, wins):
    """``wins[w, i]``: ``seat``'s win value (:func:`~octagames.agents.search.mcts.win_values`, 1/2 for a game
    not over within ``max_steps`` actions) in world ``w`` when it plays ``legal[i]`` and then every seat
    plays by the policy and chance by the record's RNG.

    Every world is one record's bytes (``worlds_bytes[w]``), copied into ``work`` (one record, its
    bytes ``work_bytes``) before each action: the actions of one world start from the same RNG, so
    they meet the same chance draws as long as their games run alike (common random numbers).
    """
    for w in range(worlds_bytes.shape[0]):
        for i in range(legal.shape[0]):
            for b in range(work_bytes.shape[0]):
                work_bytes[b] = worlds_bytes[w, b]
            s = work[0]
            apply_fast(s, legal[i])
            if play_out(s, mask, max_steps):
                game.returns(s, rets)
                win_values(rets, num_players, win)
                wins[w, i] = win[seat]
            else:
                wins[w, i] = 0.5
