"""Fixed deals: turn requested hands into the chance outcomes that deal them.

The environment faces accept ``reset(options={"deal": [[cards of player 0],
[cards of player 1], ...]})`` (cards as action indices) for analysis,
notebooks and tests. How a deal is realised depends on how a game's chance
nodes hand out cards, so each game provides a function

``deal_outcomes(state, deal) -> list[int]``

that maps the requested hands to the sequence of chance outcomes which deals
exactly those hands from the record ``state`` (a fresh game at its first
chance node; its config and dealer are read from the record). A rules module
may define ``deal_outcomes`` itself; otherwise the function registered here
under the game's short name is used. Invalid deals raise ``ValueError`` saying
what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from octagames.core import CHANCE, Game, IllegalActionError
from octagames.octrix import card_name

DealFn = Callable[[np.void, Sequence[Sequence[int]]], list[int]]


def _card_list(deal: Any, num_players: int) -> list[list[int]]:
    """Validate the outer shape of a deal and convert the cards to ints."""
    if isinstance(deal, (str, bytes)) or not hasattr(deal, "__len__"):
        raise ValueError(f"deal must be a list of {num_players} hands (one list of cards per player), "
                         f"got {deal!r}")
    if len(deal) != num_players:
        raise ValueError(f"deal has {len(deal)} hands but the game has {num_players} players")
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


def octrix_deal_outcomes(state: np.void, deal: Sequence[Sequence[int]]) -> list[int]:
    """Chance outcomes that deal ``deal`` in Octrix.

    Octrix deals one card at a time: outcome ``k`` gives its card to seat
    ``(dealer + 1 + k) % num_players``, so the outcome sequence interleaves the
    hands, starting with the player left of the dealer.

    Args:
        state: a fresh Octrix record at its first chance node.
        deal: ``deal[p]`` is the list of ``hand_size`` cards (0..4*ranks-1) of player ``p``.

    Returns:
        The chance outcomes, in order.

    Raises:
        ValueError: wrong number of hands or cards, a card outside the deck,
            or a card dealt twice.
    """
    n = int(state["num_players"])
    h = int(state["hand_size"])
    deck = 4 * int(state["ranks"])
    hands = _card_list(deal, n)
    seen: dict[int, int] = {}
    for p, cards in enumerate(hands):
        if len(cards) != h:
            raise ValueError(f"hand of player {p} has {len(cards)} cards; hand_size is {h}")
        for c in cards:
            if not 0 <= c < deck:
                raise ValueError(f"hand of player {p}: card {c} is not in the deck (cards are 0..{deck - 1})")
            if c in seen:
                where = "twice in that hand" if seen[c] == p else f"also in the hand of player {seen[c]}"
                raise ValueError(f"hand of player {p}: card {c} ({card_name(c)}) is {where}")
            seen[c] = p
    dealer = int(state["dealer"])
    return [hands[(dealer + 1 + k) % n][k // n] for k in range(n * h)]


DEAL_OUTCOMES: dict[str, DealFn] = {
    "octrix": octrix_deal_outcomes,
}


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
    fn = getattr(game.module, "deal_outcomes", None) or DEAL_OUTCOMES.get(game.name)
    if fn is None:
        raise ValueError(f"game {game.name!r} does not support fixing a deal "
                         f"(games that do: {sorted(DEAL_OUTCOMES)})")
    return list(fn(state, deal))


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
