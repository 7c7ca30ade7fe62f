"""Full deck achten, PettingZoo environment (``achten_v0``).

A card game for 2-6 players with hidden hands: every player holds three closed
cards, three cards lie open in the pot and one card lies closed on the table.
Swap cards to bring your hand as close to "8" as possible (nul scores 1 point),
or lay *verbied* in the pot (0.1 point, the round stops at once). The rules,
card ids and the action table are documented in :mod:`octagames.achten.rules`;
every rule is traced to its test in ``docs/rules/achten.md``.

=====================  ===========================================================
Import                 ``from octagames.envs import achten_v0``
Actions                Discrete(17): keep / swap hand with pot (first choice),
                       swap hand slot i with pot slot j, swap with the closed card,
                       claw, pass, stand (last turn)
Agents                 ``player_0`` .. ``player_{n-1}`` (``num_players`` 2..6)
Observation            ``{"observation": Box(6333,), "action_mask": Box(17,) int8}``:
                       the seat's exact information state (own hand, open pot, the
                       closed card if known, known cards of every opponent, the
                       round's move history), seats relative to the viewer
Rewards                zero-sum: own points minus the mean of the others' (one
                       round), or +1 / -1/(n-1) for a match
Episode end            terminated by the rules (showdown, verbied; a match: a sole
                       leader at the target); *truncated* (rewards 0) in the rare
                       round that reaches the safety bound on turns (``turn_cap``
                       per player) and in a match that reaches ``max_rounds``
                       without a winner (neither is a rule of the seed)
Config (``env(...)``)  ``variant=``, one of Achten's variants (default ``"achten"``,
                       the seed's game; ``"achten-dealer-pays"``, ...), and the
                       fields of :class:`octagames.achten.rules.Config` over it
                       (``num_players``, ``match``, ``target``, ``ranks``,
                       ``low_rank``, ``turn_cap``, ``deal_penalty``, ...)
Render modes           ``ansi`` (text, returned), ``human`` (printed), ``rgb_array``
                       (a picture of the whole table, every card shown, as the text)
=====================  ===========================================================

``reset(seed=..., options={"deal": [[hand of player 0], ..., [pot], [closed card]]})``
fixes every player's hand in card ids (all of them are needed) and optionally the
pot and the closed card; those not given are dealt by chance. ``env()`` applies PettingZoo's classic
wrappers: an illegal move ends the game with -1 for the offender;
``raw_env()`` raises :class:`octagames.core.IllegalActionError` instead and
leaves the state unchanged.
"""

from __future__ import annotations

from octagames.envs._pettingzoo import define_envs

GAME = "achten"
raw_env, parallel_raw_env, env, parallel_env = define_envs(GAME, __name__)

__all__ = ["GAME", "env", "parallel_env", "parallel_raw_env", "raw_env"]
