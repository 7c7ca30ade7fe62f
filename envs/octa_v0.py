"""Octa ("The Game of 8"), PettingZoo environment (``octa_v0``).

A two-player card game with two decks: build runs of one suit, make an Octa
(a run of at least 8 face-up cards), and reach 28 face-up cards in your runs.
A turn is a chain of sub-decisions (action-card pile and its use, option A/B/C,
laying a run card by card, additions, face-down replacements, the exchange with
the pool, discards), each one a step of this env. ``rules="en"`` selects the
English rulebook. The design, the card ids and the 1074-action table are in
:mod:`octagames.octa.rules`; every rule is traced to its test in
``docs/rules/octa_en.md``.

=====================  ===========================================================
Import                 ``from octagames.envs import octa_v0``
Actions                Discrete(1074), masked; every action has a readable string
                       (``raw_env().action_to_string``-style via ``render``)
Agents                 ``player_0``, ``player_1``
Observation            ``{"observation": Box(6155,), "action_mask": Box(1074,) int8}``:
                       exactly what the seat has seen (own hand, runs with face-down
                       cards as unknown, pool, tokens, discard pile, action cards,
                       pile sizes, opponent's hand size and the cards known to be in it),
                       then facts per card kind, pool slot and top discard (held,
                       which runs it extends, neighbours held, pool runs it
                       would complete), the same for the cards a move is about
                       (pool slot by suit, run ends), the seat's situation,
                       the two action piles, each run slot and each card in a run;
                       then what the seat saw go into the stock rebuilt at the
                       first exhaustion (English rules)
Rewards                +1 / -1 for a win / loss, 0 for a draw; the stock bounds a game
                       below ``max_turns`` at its default, and a lower cap ends the game
                       scored as the stock running out (a termination, not a truncation)
Config (``env(...)``)  ``variant=``: ``"octa-en"`` (the default, as ``rules="en"``)
                       or ``"octa-nl"`` (the Dutch rulebook), and the fields of
                       :class:`octagames.octa.rules.Config` (``rules``, ``max_turns``)
Render modes           ``ansi`` (text), ``human`` (printed), ``rgb_array`` (a picture of
                       the whole table, every card shown as in the text: both hands,
                       both players' runs, the pool with the tokens, the piles)
=====================  ===========================================================

``env()`` applies PettingZoo's classic wrappers: an illegal move ends the game
with -1 for the offender; ``raw_env()`` raises
:class:`octagames.core.IllegalActionError` naming the rule broken and leaves
the state unchanged.
"""

from __future__ import annotations

from octagames.envs._pettingzoo import define_envs

GAME = "octa"
raw_env, parallel_raw_env, env, parallel_env = define_envs(GAME, __name__)

__all__ = ["GAME", "env", "parallel_env", "parallel_raw_env", "raw_env"]
