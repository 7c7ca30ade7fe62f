"""Fixed deals: turn requested hands into the chance outcomes that deal them.

The environment faces accept ``reset(options={"deal": [[cards of player 0],
[cards of player 1], ...]})`` (cards as action indices) for analysis,
notebooks and tests. How a deal is realised is a rule of each game (the order
in which its chance nodes hand out cards), so it lives in the game's rules
package as

``deal_outcomes(state, deal) -> list[int]``

which maps the requested hands to the sequence of chance outcomes that deals
exactly those hands from the record ``state`` (a fresh game at its first
chance node; its config and dealer are read from the record) and raises
``ValueError`` saying what is wrong with an invalid deal. This face only
checks the user's format (a list of lists of integer card indices) and calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from octagames.core import CHANCE, Game, IllegalActionError


def _card_lists(deal: Any, num_players: int) -> list[list[int]]:
    """The user's deal as a list of lists of ints (``ValueError`` for any other shape)."""
    if isinstance(deal, (str, bytes)) or not hasattr(deal, "__len__"):
        raise ValueError(f"deal must be a list of {num_players} hands (one list of cards per player), "
                         f"got {deal!r}")
    hands = []
    for p, hand in enumerate(deal):
        if isinstance(hand, (str, bytes)) or not hasattr(hand, "__iter__"):
            raise ValueError(f"hand of player {p} must be a list of card indices, got {hand!r}")
        cards = []
        for c in hand:
            if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
                raise ValueError(f"hand of player {p}: card {c!r} is not an integer card index")
            cards.append(int(c))
        hands.append(cards)
    return hands


def deal_outcomes(game: Game, state: np.void, deal: Sequence[Sequence[int]]) -> list[int]:
    """The chance outcomes that deal ``deal`` in ``game`` from the fresh record ``state``.

    Args:
        game: the game and config.
        state: a fresh record of that game at its first chance node.
        deal: one list of cards (action indices) per player.

    Returns:
        The chance outcomes, in order.

    Raises:
        ValueError: the game has no fixed-deal support, or the deal is invalid.
    """
    fn = getattr(game.module, "deal_outcomes", None)
    if fn is None:
        raise ValueError(f"game {game.name!r} does not support fixing a deal (its rules define no deal_outcomes)")
    return list(fn(state, _card_lists(deal, game.num_players)))


def apply_deal(game: Game, state: np.void, deal: Sequence[Sequence[int]]) -> None:
    """Deal ``deal`` into the fresh record ``state`` in place.

    Chance nodes after the deal (e.g. later rounds of a match) are left to the
    record's RNG.

    Args:
        game: the game and config.
        state: a fresh record at its first chance node.
        deal: one list of cards (action indices) per player.

    Raises:
        ValueError: the deal is invalid (``state`` may then be partly dealt).
    """
    if game.current_player(state) != CHANCE:
        raise ValueError("a deal can only be fixed at the start of a game, at its first chance node")
    for k, outcome in enumerate(deal_outcomes(game, state, deal)):
        if game.current_player(state) != CHANCE:
            raise ValueError(f"the deal has more cards than the game deals (stopped after {k})")
        try:
            game.apply_action(state, outcome)
        except IllegalActionError as e:
            raise ValueError(f"invalid deal: {e}") from None
