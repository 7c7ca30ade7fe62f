"""Octrix: open-hand trick taking with simultaneous play.

This environment is part of the octagames "game of 8" family. It follows the
PettingZoo classic conventions.

| Import             | ``from octagames.envs import octrix_v0``              |
|--------------------|-------------------------------------------------------|
| Actions            | Discrete                                              |
| Parallel API       | Yes                                                   |
| Manual control     | No                                                    |
| Agents             | ``agents = ['player_0', ..., 'player_{n-1}']``        |
| Agents count       | 2, 3 or 4                                             |
| Action shape       | (1,)                                                  |
| Action values      | Discrete(32)                                          |
| Observation shape  | (734,)                                                |
| Observation values | [0, 1] (match scores can exceed 1, see below)         |

Usage::

    from octagames.envs import octrix_v0

    env = octrix_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)
    env.close()

    par = octrix_v0.parallel_env(num_players=4, partnership=True)
    observations, infos = par.reset(seed=0)
    while par.agents:
        actions = {a: par.action_space(a).sample(observations[a]["action_mask"])
                   for a in par.agents}
        observations, rewards, terminations, truncations, infos = par.step(actions)

The game
--------
Every player holds eight cards of a 32-card deck (ace = 1 up to 8 in four
suits); all hands are open. In each of the eight tricks of a round all players
play one card at the same time. Trick 1 goes to the highest card; from then on
the previous trick's highest and lowest cards decide: same colour (red ♦♥,
black ♠♣) -> the highest card wins, different colours -> the lowest card wins.
The winner of trick *k* takes counting card *k*; each maximal run of L
consecutive counting cards scores L². A match is played to 88 points (one
with no sole leader at the target after ``max_rounds``, 64, rounds is truncated). The
4-player partnership game pits seats 0+2 against 1+3; in each trick the dealer
and their left neighbour play first, face up, then the other two. The full
rules are in :mod:`octagames.octrix.rules`.

Simultaneous play in the AEC API
--------------------------------
The AEC env takes the simultaneous moves of a trick one seat at a time, lowest
pending seat first (``agent_selection``). A committed card is hidden from the
other seats until everyone of the step has played, so playing in turn gives no
information advantage. ``observe(agent)["action_mask"]`` is non-zero for every
seat that still has to play in the current step. The Parallel API takes the
whole step at once: ``step(actions)`` needs an action for every seat that must
play now (all of them, or in the partnership game the two of the current pair;
``parallel_env().acting_agents()`` lists them). The others wait: their only legal
action is the wait action (``num_actions``), which may also be left out; a game
action from a waiting seat is an illegal action (under the default ``"terminate"``
the game ends with -1 for that seat, see ``docs/faces.md``).

Action space
------------
Action ``a`` plays the card of rank ``a // 4 + 1`` and suit ``a % 4`` with suits
ordered ♦, ♥, ♠, ♣, so a larger index is always a stronger card:

====  ===  ===  ===  ===
rank   ♦    ♥    ♠    ♣
====  ===  ===  ===  ===
A      0    1    2    3
2      4    5    6    7
3      8    9   10   11
4     12   13   14   15
5     16   17   18   19
6     20   21   22   23
7     24   25   26   27
8     28   29   30   31
====  ===  ===  ===  ===

Observation space
-----------------
A dict ``{"observation": float32[734], "action_mask": int8[32]}``. The
observation is the seat's information state (seats relative to the observer:
0 = self): hands, played cards, the open trick (other seats' committed cards
hidden until the step is complete), pending seats, trick number, the
high/low rule of the open trick, counting cards won, round points, match
scores and the config. The offset table is in the docstring of
:mod:`octagames.octrix.rules`. In match mode the scores are divided by the
target and can exceed 1 at the end of a match.

Rewards
-------
Each step's reward is the change of the seat's return, so an episode's
cumulative reward equals the game's return: for a single round, own points
minus the mean of the other sides' points; for a match, +1 for the winning
side and -1/(sides-1) for the others. Episodes end when the game ends; a match
stopped by the engine's round cap (``max_rounds``, not a rule of the seed) with
nobody its winner is a truncation, every reward 0.

Illegal actions
---------------
``env()`` follows the PettingZoo classic convention: an illegal action ends the
game with reward -1 for the offender and 0 for the others. The unwrapped
``raw_env`` raises :class:`octagames.core.IllegalActionError` naming the card
and the rule it breaks, and leaves the state unchanged. ``parallel_env`` ends
the game (``illegal_action="terminate"``, default) or raises
(``illegal_action="raise"``).

Arguments
---------
``variant`` names one of Octrix's variants (:mod:`octagames.catalogue`):
``"octrix"`` (the default, the seed's match to 88), ``"octrix-round"`` (a single
round), ``"octrix-round-small"`` (a single round of 2 ranks and 2 cards each, small enough
for exact CFR) or ``"octrix-partnership"`` (4 players in two partnerships, the match);
``octagames.envs.make_env(name)`` builds any game's variant by name. The other
keyword arguments are the fields of :class:`octagames.octrix.rules.Config`, over
the variant's: ``num_players`` (2..4, default 2), ``partnership`` (4 players,
default False), ``match`` (play to ``target`` instead of one round, default True),
``target`` (88), ``ranks`` (ranks per suit, 1..8), ``hand_size`` (1..8), ``dealer``
(first dealer's seat), ``max_rounds`` (engine cap on a match). A bad value raises
``ValueError`` naming the field. Also ``render_mode``: ``"ansi"`` (``render()``
returns the table as text), ``"human"`` (prints it after every step) or
``"rgb_array"`` (a picture of the whole table, every hand shown, as the text).

Fixed deals
-----------
``reset(options={"deal": [[cards of player 0], [cards of player 1], ...]})``
deals exactly those hands (action indices) for analysis and tests; the seed
still drives every later deal of a match. An invalid deal raises ``ValueError``.

``state()`` returns every seat's observation concatenated in seat order.

Version history
---------------
* v0: initial release.
"""

from __future__ import annotations

from octagames.envs._pettingzoo import define_envs

GAME = "octrix"
raw_env, parallel_raw_env, env, parallel_env = define_envs(GAME, __name__)

__all__ = ["GAME", "env", "parallel_env", "parallel_raw_env", "raw_env"]
