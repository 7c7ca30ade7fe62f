"""Octiles, PettingZoo environment (``octiles_v0``).

A race game for 2-4 players on the real Octiles board: place the exchange tile
(any of its 8 rotations) on an octagon space, then move one of your runners
along the path that crosses it, from stop to stop, until all your runners reach
the circles on the opposite side. Face-down tiles are dead ends whose identity
is a chance outcome revealed when they are picked up. Rules, board data and
the action table: :mod:`octagames.octiles.rules`; every rule is traced to its
test in ``docs/rules/octiles.md``.

=====================  ===========================================================
Import                 ``from octagames.envs import octiles_v0``
Actions                Discrete(284): 0-135 place the exchange tile (space x
                       rotation), 136-279 move a runner (start point x direction),
                       280 pass (no legal turn), 281-283 choose a middle start circle
Agents                 ``player_0`` .. ``player_{n-1}`` (``num_players`` 2..4;
                       sides W, N, E, S clockwise)
Observation            ``{"observation": Box, "action_mask": Box(284,) int8}``: the
                       board, face-up tiles, the exchange tile, all runners, whose
                       turn, and the counts of unseen tiles (everything is public)
Rewards                +1 for the winner, -1/(n-1) for the others; with ``team``
                       (``octiles-teams``) +1 for each player of the winning team, -1
                       for each of the other; with ``play_on`` (``octiles-play-on``)
                       by finishing rank r (0 first), 1 - 2r/(n-1)
Episode end            terminated by the rules; *truncated* (rewards 0) at the engine's
                       bound ``max_turns`` (default 500, not a rule of the seed), which
                       most uniformly random 2- and 3-player games reach; but a play-on
                       game with a seat home, decided by then, ends there (terminated:
                       the places won stand, the others share the rest)
Config (``env(...)``)  ``variant=``, one of Octiles' variants (default ``"octiles"``,
                       the seed's game; ``"octiles-teams"``, ...), and the fields
                       of :class:`octagames.octiles.rules.Config` over it
                       (``num_players``, ``runners``, ``adjacent``, ``team``,
                       ``play_on``, ``choose_start_circles``, ``goal_locks``,
                       ``max_turns``)
Render modes           ``ansi`` (text), ``human`` (printed), ``rgb_array`` (a picture
                       of the board: tile paths, stops, circles in player colours,
                       runners, the exchange tile, the last move highlighted)
=====================  ===========================================================

``env()`` applies PettingZoo's classic wrappers: an illegal move ends the game
with -1 for the offender; ``raw_env()`` raises
:class:`octagames.core.IllegalActionError` (naming the rule broken, such as a
dead end at a face-down tile) and leaves the state unchanged.
"""

from __future__ import annotations

from octagames.envs._pettingzoo import define_envs

GAME = "octiles"
raw_env, parallel_raw_env, env, parallel_env = define_envs(GAME, __name__)

__all__ = ["GAME", "env", "parallel_env", "parallel_raw_env", "raw_env"]
