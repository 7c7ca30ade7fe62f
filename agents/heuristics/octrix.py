"""A simple Octrix heuristic: win the open trick as cheaply as possible.

With open hands the agent knows every card the opponents can still play. It
assumes each opponent plays a uniformly random card of their hand (or the card
already shown face up) and picks the card with the highest chance of winning
the open trick; among equally good cards it spends the weakest one (the lowest
card when the highest wins, the highest card when the lowest wins). When no
card can win it sheds the card that is least useful under the open trick's
rule. In the partnership game the partner is not an opponent.
"""

from __future__ import annotations

import numpy as np

from octagames.agents.base import Agent, Turn
from octagames.octrix.rules import NUM_CARDS, card_visible, side_of


def win_chances(turn: Turn) -> tuple[np.ndarray, np.ndarray, bool]:
    """Chance that each legal card wins the open trick against uniform opponents.

    Returns:
        ``(cards, chances, high_wins)``.
    """
    s, me = turn.state, turn.seat
    mine = turn.legal_actions
    n = int(s["num_players"])
    t = int(s["trick"])
    high = t == 0 or bool(s["high_wins"])
    chances = np.ones(len(mine))
    for p in range(n):
        if p == me or side_of(s, p) == side_of(s, me):
            continue
        played = int(s["trick_cards"][t, p])
        if played >= 0 and card_visible(s, p, me):
            options = np.array([played])
        else:
            hand = [c for c in range(NUM_CARDS) if s["owner"][c] == p]
            options = np.array(hand + ([played] if played >= 0 else []))
        if high:
            beaten = (options[None, :] < mine[:, None]).mean(axis=1)
        else:
            beaten = (options[None, :] > mine[:, None]).mean(axis=1)
        chances *= beaten
    return mine, chances, high


class OctrixHeuristicAgent(Agent):
    """Cheapest card with the best chance to win the trick (see the module docstring)."""

    name = "heuristic"

    def act(self, turn: Turn) -> int:
        """Choose a card for ``turn.seat``."""
        cards, chances, high = win_chances(turn)
        best = chances.max()
        if best <= 0.0:  # cannot win: shed the card least useful under this rule
            return int(cards.min() if high else cards.max())
        good = cards[chances >= best - 1e-12]
        return int(good.min() if high else good.max())
