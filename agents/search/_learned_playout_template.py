"""Template: playouts by a learned policy, linear in the facts each action is about.

:mod:`octagames.agents.search.learned_rollouts` binds ``game`` to a rules module whose
observation has a block of facts per card row and whose actions name up to ``R`` of
those rows (Octa's ``facts`` block and ``fact_refs``). Each legal action ``a`` scores

    bias[a] + sum over its rows j and facts f of weight[group[a], j * k + f] * facts[refs[a, j], f]
            + sum over r of action_embed[a, r] * (embed @ observation)[r]

and the highest score is played (ties: the lowest action id; a lone legal action is played unscored).
The rules module provides ``observation_facts(s, player, out)``, the facts block alone, which rank 0
reads instead of the whole observation. The weights are learned from a teacher's choices
(:func:`octagames.agents.search.learned_rollouts.fit`); nothing hand-written chooses a move.
``opponent`` is bound to the game's compiled heuristic (``opponent(s, player, mask, n_legal) ->
action``): ``duel_values`` plays whole games of the learned policy against it, what
:func:`octagames.agents.search.learned_rollouts.improve` measures.
"""

import numba as nb
import numpy as np

from octagames.core import CHANCE, TERMINAL, fast_apply
from octagames.agents.search.mcts import win_values
import octagames.octrix as game  # specialize: game
from octagames.agents.search.mcts import random_policy as opponent  # specialize: opponent

apply_fast = fast_apply(game)


@nb.njit(cache=True, nogil=True)
def policy(s, p, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h):
    """The learned policy's action for seat ``p`` in ``s`` (-1 when none is legal); ``embed`` is
    ``[observation size, rank]``; ``mask``, ``obs`` and ``h`` (``rank`` entries) are scratch buffers."""
    n = game.legal_mask(s, p, mask)
    if n == 0:
        return -1
    if n == 1:  # the argmax of one score: no observation needed
        for a in range(mask.shape[0]):
            if mask[a] != 0:
                return a
    rank = embed.shape[1]  # embed is stored [observation entry, rank]: one contiguous row per nonzero entry
    if rank == 0:  # the facts block alone (the rules module's observation_facts writes just that)
        game.observation_facts(s, p, obs)
    else:
        game.observation(s, p, obs)
        h[:] = 0.0
        for i in range(obs.shape[0]):
            x = obs[i]
            if x != 0.0:
                for r in range(rank):
                    h[r] += embed[i, r] * x
    best, best_a = -np.inf, -1
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        v = bias[a]
        for r in range(rank):
            v += action_embed[a, r] * h[r]
        g = group[a]
        for j in range(refs.shape[1]):
            r = refs[a, j]
            if r < 0:
                continue
            base = offset + r * k
            for f in range(k):
                v += weight[g, j * k + f] * obs[base + f]
        if v > best:
            best, best_a = v, a
    return best_a


@nb.njit(cache=True, nogil=True)
def play_out(s, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h, max_steps):
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
            apply_fast(s, policy(s, p, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h))
    return game.current_player(s) == TERMINAL


@nb.njit(cache=True, nogil=True)
def policy_many(records, seats, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h, out):
    """The policy's action for ``seats[r]`` in every record (-1 where none is legal)."""
    for r in range(records.shape[0]):
        out[r] = policy(records[r], seats[r], mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h)


@nb.njit(cache=True, nogil=True)
def rollout_values(worlds_bytes, work, work_bytes, seat, num_players, legal, mask, obs, weight, bias, group,
                   refs, offset, k, embed, action_embed, h, max_steps, rets, win, wins):
    """``wins[w, i]``: ``seat``'s win value in world ``w`` when it plays ``legal[i]`` and then every seat
    plays by the policy, chance by the record's RNG (1/2 for a game not over within ``max_steps``);
    the worlds' bytes are copied into ``work`` before each action (common random numbers)."""
    for w in range(worlds_bytes.shape[0]):
        for i in range(legal.shape[0]):
            for b in range(work_bytes.shape[0]):
                work_bytes[b] = worlds_bytes[w, b]
            s = work[0]
            apply_fast(s, legal[i])
            if play_out(s, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h, max_steps):
                game.returns(s, rets)
                win_values(rets, num_players, win)
                wins[w, i] = win[seat]
            else:
                wins[w, i] = 0.5


@nb.njit(cache=True, nogil=True)
def duel_values(records, seats, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h,
                num_players, max_steps, rets, win, wins):
    """``wins[r]``: the win value (:func:`~octagames.agents.search.mcts.win_values`; 1/2 for a game not
    over within ``max_steps`` actions) of ``seats[r]`` in record ``r`` played to its end with that seat
    by the learned policy, every other seat by ``opponent`` and chance by the record's RNG (the
    records are played in place)."""
    for r in range(records.shape[0]):
        s = records[r]
        seat = seats[r]
        for _ in range(max_steps):
            cp = game.current_player(s)
            if cp == TERMINAL:
                break
            if cp == CHANCE:
                apply_fast(s, int(game.sample_chance(s)))
                continue
            p = game.acting_player(s)
            if p == seat:
                apply_fast(s, policy(s, p, mask, obs, weight, bias, group, refs, offset, k, embed, action_embed, h))
            else:
                apply_fast(s, opponent(s, p, mask, game.legal_mask(s, p, mask)))
        if game.current_player(s) == TERMINAL:
            game.returns(s, rets)
            win_values(rets, num_players, win)
            wins[r] = win[seat]
        else:
            wins[r] = 0.5
