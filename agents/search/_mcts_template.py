"""Template: the compiled search of one game, playout policy and leaf value (see :mod:`octagames.agents.search.mcts`).

:func:`octagames.agents.search.mcts.search_kernels` binds ``game`` to a rules module,
``policy`` to a compiled playout policy ``policy(s, player, mask, n_legal) ->
action`` and ``leaf_value`` to a compiled value ``value(s, out)``, through
:func:`octagames.specialize.specialize`: the generated module is cached on disk
and regenerated whenever any source it depends on changes.
"""

import math

import numba as nb
import numpy as np

from octagames.agents.search.mcts import (AT_TERMINAL, CHANCE_TAG, LEAF, _add_child, _find_child, _next_u64,
                                   _no_random_legal, random_policy, win_values)
from octagames.core import CHANCE, SIMULTANEOUS, TERMINAL, fast_apply, mix64, rng_below
import octagames.octrix as game  # specialize: game
from octagames.agents.search.mcts import random_policy as policy  # specialize: policy
from octagames.agents.search.mcts import returns_value as leaf_value  # specialize: value

# uniformly random playouts through the rules' own sampler (random_legal_action) when they have one
FAST_RANDOM = policy is random_policy and hasattr(game, "random_legal_action")
rand_k = game.random_legal_action if FAST_RANDOM else _no_random_legal
# playout actions come from the mask (or the sampler): the rules' unchecked apply when they have one
apply_fast = fast_apply(game)


@nb.njit(cache=True, inline="always")  # inlined where run and descend_many call it
def descend(root_bytes, work, work_bytes, searcher, seed, first_child, sibling, action, tag,
            visits, avail, value, prior, evaluated, size, c_explore, use_prior, branch_chance,
            mask, path, stats, as_is):
    """One selection from the root of a fresh determinization down to a leaf.

    ``as_is``: the root record is already a world to search (e.g. drawn from a
    belief by the caller), so it is not determinized.

    Counts a visit on every node of the path at once (the virtual loss
    of batched evaluation). Returns ``(status, path_len, n_stats, leaf,
    stat_parent, leaf_player)``.
    """
    for i in range(root_bytes.shape[0]):  # a loop: a slice copy compiles a shape check and its message
        work_bytes[i] = root_bytes[i]
    s = work[0]
    if not as_is:
        game.determinize(s, searcher, np.int64(seed))  # the seed type of every caller: one compile
    node = 0
    plen = 1
    path[0] = 0
    visits[0] += 1.0
    nst = 0
    step_root = -1
    last_seat = -1
    while True:
        cp = game.current_player(s)
        if cp == TERMINAL:
            return AT_TERMINAL, plen, nst, node, node, -1
        if cp == CHANCE:
            a = int(game.sample_chance(s))
            game.apply_action(s, a)
            step_root = -1
            key = a if branch_chance else -1
            child = _find_child(first_child, sibling, action, tag, node, key, CHANCE_TAG)
            new = False
            if child < 0:
                child = _add_child(first_child, sibling, action, tag, visits, avail, value, prior,
                                   evaluated, size, node, key, CHANCE_TAG, 0.0)
                if child < 0:
                    return LEAF, plen, nst, -1, -1, -1
                new = True
            node = child
            path[plen] = node
            plen += 1
            visits[node] += 1.0
            if new and not use_prior:
                return LEAF, plen, nst, node, node, -1
            continue
        p = game.acting_player(s)
        # decoupled UCT: later seats of a simultaneous step use the step root's statistics
        if cp == SIMULTANEOUS and step_root >= 0 and p > last_seat:
            sp = step_root
        else:
            step_root = node if cp == SIMULTANEOUS else -1
            sp = node
        last_seat = p
        n_legal = game.legal_mask(s, p, mask)
        if use_prior and evaluated[node] == 0:
            return LEAF, plen, nst, node, sp, p
        # statistics of the legal children of sp for seat p
        n_seen = 0
        total = 0.0
        ch = first_child[sp]
        while ch >= 0:
            if tag[ch] == p and mask[action[ch]]:
                avail[ch] += 1.0
                total += visits[ch]
                n_seen += 1
            ch = sibling[ch]
        chosen = -1
        a = -1
        if n_seen < n_legal:
            if use_prior:
                # actions legal only in this determinization: uniform prior
                for b in range(mask.shape[0]):
                    if mask[b] and _find_child(first_child, sibling, action, tag, sp, b, p) < 0:
                        nc = _add_child(first_child, sibling, action, tag, visits, avail, value,
                                        prior, evaluated, size, sp, b, p, 1.0 / n_legal)
                        if nc >= 0:
                            avail[nc] = 1.0
            else:
                # expand one untried action, drawn uniformly
                k = rng_below(s, n_legal - n_seen)
                for b in range(mask.shape[0]):
                    if mask[b] and _find_child(first_child, sibling, action, tag, sp, b, p) < 0:
                        if k == 0:
                            a = b
                            break
                        k -= 1
                chosen = _add_child(first_child, sibling, action, tag, visits, avail, value,
                                    prior, evaluated, size, sp, a, p, 0.0)
                if chosen >= 0:
                    avail[chosen] = 1.0
        if a < 0:
            # select the best legal child by UCB1 (or PUCT with priors)
            best = -np.inf
            log_total = math.log(max(total, 1.0))
            sqrt_total = math.sqrt(max(total, 1.0))
            fpu = value[sp, p] / visits[sp] if visits[sp] > 0 else 0.5
            ch = first_child[sp]
            while ch >= 0:
                if tag[ch] == p and mask[action[ch]]:
                    n = visits[ch]
                    if use_prior:
                        q = value[ch, p] / n if n > 0 else fpu
                        score = q + c_explore * prior[ch] * sqrt_total / (1.0 + n)
                    elif n == 0:
                        score = np.inf
                    else:
                        score = value[ch, p] / n + c_explore * math.sqrt(
                            math.log(max(avail[ch], 1.0)) / n)
                    if score > best:
                        best = score
                        chosen = ch
                ch = sibling[ch]
            if chosen < 0:  # tree full and nothing stored: a random legal action
                a = random_policy(s, p, mask, n_legal)
                game.apply_action(s, a)
                return LEAF, plen, nst, -1, -1, -1
            a = action[chosen]
        new = chosen >= 0 and visits[chosen] == 0.0 and not use_prior
        game.apply_action(s, a)
        if chosen >= 0 and sp != node:
            # the seat's own statistics, then the successor state node of the joint history
            stats[nst] = chosen
            nst += 1
            visits[chosen] += 1.0
            child = _find_child(first_child, sibling, action, tag, node, a, p)
            if child < 0:
                child = _add_child(first_child, sibling, action, tag, visits, avail, value, prior,
                                   evaluated, size, node, a, p, 0.0)
                new = True
            chosen = child
        if chosen < 0:
            return LEAF, plen, nst, -1, -1, -1
        node = chosen
        path[plen] = node
        plen += 1
        visits[node] += 1.0
        if new and not use_prior:
            return LEAF, plen, nst, node, node, -1


@nb.njit(cache=True, inline="always")  # inlined where run calls it
def rollout(s, mask, max_steps) -> int:
    """Play the record to the end (or ``max_steps`` actions) with the playout policy."""
    steps = 0
    while steps < max_steps:
        cp = game.current_player(s)
        if cp == TERMINAL:
            break
        if cp == CHANCE:
            apply_fast(s, int(game.sample_chance(s)))
        else:
            p = game.acting_player(s)
            if FAST_RANDOM:
                apply_fast(s, rand_k(s, p))
            else:
                n = game.legal_mask(s, p, mask)
                apply_fast(s, policy(s, p, mask, n))
        steps += 1
    return steps


@nb.njit(cache=True)
def backup(value, path, plen, stats, nst, u):
    """Add the rescaled returns ``u`` to every node of the path and every seat statistic."""
    for i in range(plen):
        for q in range(u.shape[0]):
            value[path[i], q] += u[q]
    for i in range(nst):
        for q in range(u.shape[0]):
            value[stats[i], q] += u[q]


@nb.njit(cache=True)
def expand_priors(first_child, sibling, action, tag, visits, avail, value, prior, evaluated, size,
                  leaf, sp, p, mask, priors):
    """Give the legal children of ``sp`` for seat ``p`` the evaluator's priors."""
    if leaf < 0:
        return
    evaluated[leaf] = 1
    total = 0.0
    for b in range(mask.shape[0]):
        if mask[b]:
            total += max(priors[b], 0.0)
    for b in range(mask.shape[0]):
        if mask[b]:
            pr = max(priors[b], 0.0) / total if total > 0 else 1.0
            ch = _find_child(first_child, sibling, action, tag, sp, b, p)
            if ch < 0:
                _add_child(first_child, sibling, action, tag, visits, avail, value, prior,
                           evaluated, size, sp, b, p, pr)
            else:
                prior[ch] = pr


@nb.njit(cache=True)
def run(root_bytes, work, work_bytes, searcher, rng, num_sims, first_child, sibling, action, tag,
        visits, avail, value, prior, evaluated, size, c_explore, branch_chance, mask, path, stats,
        rets, lo, hi, max_steps, use_value, win, num_players):
    """``num_sims`` simulations with compiled playouts (then ``leaf_value`` if ``use_value``
    and the playout stopped before the end); ``win``: finished playouts are worth
    the win/draw/loss of the ``num_players`` seats (:func:`win_values`) rather
    than their rescaled returns."""
    u = np.zeros(rets.shape[0])
    for _ in range(num_sims):
        seed = _next_u64(rng) >> np.uint64(1)
        status, plen, nst, leaf, sp, lp = descend(
            root_bytes, work, work_bytes, searcher, seed, first_child, sibling, action, tag,
            visits, avail, value, prior, evaluated, size, c_explore, False, branch_chance,
            mask, path, stats, False)
        s = work[0]
        if status == LEAF:
            rollout(s, mask, max_steps)
        rets[:] = 0.0
        finished = game.current_player(s) == TERMINAL
        if use_value and not finished:
            leaf_value(s, rets)
        else:
            game.returns(s, rets)
        if win and finished:
            win_values(rets, num_players, u)
        else:
            for q in range(rets.shape[0]):
                u[q] = min(1.0, max(0.0, (rets[q] - lo) / (hi - lo)))
        backup(value, path, plen, stats, nst, u)


@nb.njit(cache=True, nogil=True)
def descend_many(roots_bytes, works, works_bytes, searchers, rngs, leaves_per_game, first_child, sibling,
                 action, tag, visits, avail, value, prior, evaluated, size, c_explore, branch_chance,
                 mask, paths, stats, active, status, plen, nst, leaf, sp, lp, evalp, obs, masks, rets, as_is):
    """PUCT descents in many trees at once: ``leaves_per_game`` per active game.

    Game ``b`` (tree ``b``: row ``b`` of every tree array; root record's bytes ``roots_bytes[b]``)
    fills rows ``r = b * leaves_per_game + i`` of the outputs: the
    :func:`descend` results, and for a leaf to evaluate the seat ``evalp[r]``
    whose observation (``obs[r]``) and legal mask (``masks[r]``) the network
    reads; ``evalp[r] = -1`` and the finished game's returns in ``rets[r]``
    when the work record is over; ``status[r] = -1`` for rows of inactive
    games. Determinization seeds come from ``rngs[b]`` exactly as
    ``MCTS._python_batch`` draws them, so one game searched here matches
    ``MCTS`` with a ``PolicyValue`` evaluator of the same batch size.
    ``as_is``: the roots are worlds to search as they are (no determinization).
    """
    k = leaves_per_game
    for b in range(active.shape[0]):
        for i in range(k):
            r = b * k + i
            if not active[b]:
                status[r] = -1
                continue
            seed = mix64(rngs[b] + np.uint64(i + 1)) >> np.uint64(1)
            st, pl, ns, lf, spp, lpp = descend(
                roots_bytes[b], works[r:r + 1], works_bytes[r], searchers[b], seed, first_child[b], sibling[b],
                action[b], tag[b], visits[b], avail[b], value[b], prior[b], evaluated[b], size[b],
                c_explore, True, branch_chance, mask, paths[r], stats[r], as_is)
            status[r], plen[r], nst[r], leaf[r], sp[r], lp[r] = st, pl, ns, lf, spp, lpp
            s = works[r]
            p = lpp
            if p < 0:
                # a leaf the tree could not store (full): value the next decision, expand nothing
                while game.current_player(s) == CHANCE:
                    game.apply_action(s, game.sample_chance(s))
                if game.current_player(s) != TERMINAL:
                    p = game.acting_player(s)
            evalp[r] = p
            if p >= 0:
                game.legal_mask(s, p, masks[r])
                obs[r, :] = 0.0
                game.observation(s, p, obs[r])
            else:
                rets[r, :] = 0.0
                game.returns(s, rets[r])
        if active[b]:
            rngs[b] = mix64(rngs[b] + np.uint64(k + 7))


@nb.njit(cache=True, nogil=True)
def backup_many(leaves_per_game, first_child, sibling, action, tag, visits, avail, value, prior, evaluated,
                size, paths, stats, status, plen, nst, leaf, sp, lp, masks, priors, u):
    """The back-ups of :func:`descend_many`'s rows: priors on the leaf's children, then ``u[r]``
    (values in [0, 1] per absolute seat) along the path, row by row."""
    k = leaves_per_game
    for r in range(status.shape[0]):
        if status[r] < 0:
            continue
        b = r // k
        if status[r] == LEAF and lp[r] >= 0:
            expand_priors(first_child[b], sibling[b], action[b], tag[b], visits[b], avail[b], value[b],
                          prior[b], evaluated[b], size[b], leaf[r], sp[r], lp[r], masks[r], priors[r])
        backup(value[b], paths[r], plen[r], stats[r], nst[r], u[r])


@nb.njit(cache=True, nogil=True)
def leaf_values_many(works, status, evalp, out):
    """``leaf_value`` (the compiled value function) of every work record of :func:`descend_many`
    that the network evaluates (zeros elsewhere): game knowledge to mix into its values."""
    for r in range(status.shape[0]):
        out[r, :] = 0.0
        if status[r] >= 0 and evalp[r] >= 0:
            leaf_value(works[r], out[r])


@nb.njit(cache=True, nogil=True)
def observe_many(records, seats, obs, masks):
    """The observation and legal mask of seat ``seats[r]`` in ``records[r]``, for every row
    (training batches of the records a replay buffer stores)."""
    for r in range(records.shape[0]):
        obs[r, :] = 0.0
        game.observation(records[r], seats[r], obs[r])
        game.legal_mask(records[r], seats[r], masks[r])
