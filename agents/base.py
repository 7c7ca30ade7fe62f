"""The one agent interface shared by every baseline, and the random agent.

An agent is asked to act through a :class:`Turn`. The arena builds the turn so
that an agent never sees what its seat cannot see: ``turn.state`` is a
*determinized* copy (everything hidden from the seat resampled, the RNG
reseeded), so an agent may search or simulate on it freely.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from octagames.core import Game


@dataclass
class Turn:
    """What an agent may use to choose an action.

    Attributes:
        game: the game and config being played.
        seat: the seat to act.
        state: a determinized copy of the state for ``seat`` (safe to modify).
        observation: ``seat``'s information-state tensor.
        legal_mask: uint8 mask of legal actions for ``seat``.
    """

    game: Game
    seat: int
    state: np.void
    observation: np.ndarray
    legal_mask: np.ndarray

    @property
    def legal_actions(self) -> np.ndarray:
        """Indices of the legal actions."""
        return np.flatnonzero(self.legal_mask)


class Agent:
    """Base class: override :meth:`act`; :meth:`reset` is called before each game."""

    name: str = "agent"

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Prepare for a new game in ``seat``; ``seed`` makes the agent reproducible."""
        self.rng = np.random.default_rng(seed)

    def act(self, turn: Turn) -> int:
        """Choose a legal action for ``turn.seat``."""
        raise NotImplementedError

    def check_game(self, game: Game) -> None:
        """Refuse a game this agent cannot play, before any game starts (default: every game is fine).

        Agents that carry a trained model override it: the model's recorded game and config must
        be ``game``'s (:mod:`octagames.agents.model_config`).

        Raises:
            ValueError: the agent cannot play ``game`` (in words).
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def act(self, turn: Turn) -> int:
        """A uniformly drawn legal action."""
        return int(self.rng.choice(turn.legal_actions))


def make_turn(game: Game, state: np.void, seat: int, seed: int) -> Turn:
    """Build the turn of ``seat`` from the true ``state``, hiding what it cannot see."""
    view = game.determinize(state, seat, seed)
    return Turn(game=game, seat=seat, state=view, observation=game.observation(state, seat),
                legal_mask=game.legal_mask(state, seat))
