"""Template: a compiled playout policy over many records (see :func:`octagames.agents.mcts.playout_kernels`).

:func:`octagames.agents.mcts.playout_kernels` binds ``game`` to a rules module and
``policy`` to a compiled playout policy ``policy(s, player, mask, n_legal) ->
action`` (a game's compiled heuristic, :data:`octagames.agents.mcts.PLAYOUT_POLICIES`)
through :func:`octagames.specialize.specialize`. The AlphaZero search asks it for the
playouts of its ``playout_mix`` and for the moves of its heuristic prior hint; its
own tree kernels stay those of the plain search, so a game compiles only these two
entry points more.
"""

import numba as nb

from octagames.core import CHANCE, TERMINAL
import octagames.octrix as game  # specialize: game
from octagames.agents.mcts import random_policy as policy  # specialize: policy

# playout actions come from the mask: the rules' unchecked apply when they have one
apply_fast = game.apply_legal if hasattr(game, "apply_legal") else game.apply_action


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
        for _ in range(max_steps):
            cp = game.current_player(s)
            if cp == TERMINAL:
                break
            if cp == CHANCE:
                apply_fast(s, int(game.sample_chance(s)))
            else:
                p = game.acting_player(s)
                apply_fast(s, policy(s, p, mask, game.legal_mask(s, p, mask)))
        if game.current_player(s) == TERMINAL:
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
