"""Gymnasium single-agent face of every octagames game.

One seat learns; the other seats are played by fixed agents
(:class:`octagames.agents.base.Agent`, :class:`~octagames.agents.base.RandomAgent` by default),
and chance is resolved with the game record's RNG::

    from octagames.envs.gym_wrapper import SingleAgentEnv

    env = SingleAgentEnv("octrix", seat=1, num_players=3)
    obs, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        action = env.action_space.sample(mask=env.action_masks().astype("int8"))
        obs, reward, terminated, truncated, info = env.step(action)

* **Observation**: ``Box(observation_size,)`` float32, the learning seat's
  information state (the layout is in the game's rules docstring).
* **Action**: ``Discrete(num_actions)``; :meth:`SingleAgentEnv.action_masks`
  gives the legal actions as a bool array (the method sb3-contrib's
  ``MaskablePPO`` looks for); ``info["action_mask"]`` holds the same as int8.
* **Reward**: the change of the learning seat's return, so an episode's
  rewards sum to its return in the game.
* **Termination** when the game ends; never truncated (the engines cap their
  own length).
* **Opponents** act through :func:`octagames.agents.base.make_turn`, so they only see
  what their seat can see (hidden information determinized).
* **Seeding**: ``reset(seed=s)`` makes the deal, every later chance event and
  the opponents' choices reproducible.

Illegal actions
    Gymnasium has no convention for illegal moves. With
    ``illegal_action="raise"`` (default) an illegal action raises
    :class:`octagames.core.IllegalActionError` with the engine's message and
    changes nothing; use the mask. With ``illegal_action="penalize"`` it ends
    the episode with reward ``illegal_reward`` (-1) and the state unchanged;
    that is the mode for tools that step with unmasked random actions, such as
    ``gymnasium.utils.env_checker.check_env``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from octagames.agents.base import Agent, RandomAgent, make_turn
from octagames.envs._pettingzoo import observation_bounds
from octagames.envs.deals import apply_deal
from octagames.core import CHANCE, TERMINAL, IllegalActionError, make_game

ILLEGAL_MODES = ("raise", "penalize")


class SingleAgentEnv(gymnasium.Env):
    """One seat of a game as a Gymnasium env, the others played by fixed agents.

    Args:
        game: the game's short name (``"octrix"``, ...).
        seat: the learning seat.
        opponents: agents for the other seats: a sequence in ascending seat
            order (skipping ``seat``) or a mapping seat -> agent; ``None``
            gives a :class:`~octagames.agents.base.RandomAgent` to each.
        illegal_action: ``"raise"`` or ``"penalize"`` (see the module docstring).
        illegal_reward: the reward of an illegal action under ``"penalize"``.
        render_mode: ``"ansi"`` (``render()`` returns the learning seat's view
            as text), ``"human"`` (prints it) or ``None``.
        **config: config fields of the game.

    Raises:
        ValueError: bad config value, seat, opponent seats, mode or render mode.
        TypeError: unknown config field, or an opponent that is not an Agent.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, game: str = "octrix", seat: int = 0,
                 opponents: Sequence[Agent] | Mapping[int, Agent] | None = None,
                 illegal_action: str = "raise", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **config: Any):
        self.game = make_game(game, **config)
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat={seat!r} is not valid; valid values: {list(range(n))}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action={illegal_action!r} is not valid; "
                             f"valid values: {list(ILLEGAL_MODES)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not valid; "
                             f"valid values: {self.metadata['render_modes'] + [None]}")
        self.seat = int(seat)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.opponents = self._seat_agents(opponents)
        low, high = observation_bounds(self.game)
        self.observation_space = spaces.Box(low=low, high=high, shape=(self.game.observation_size,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: np.void = self.game.new_state(0)
        self._prev_return = 0.0
        self._done = True

    def _seat_agents(self, opponents: Sequence[Agent] | Mapping[int, Agent] | None) -> dict[int, Agent]:
        others = [p for p in range(self.game.num_players) if p != self.seat]
        if opponents is None:
            return {p: RandomAgent() for p in others}
        if isinstance(opponents, Mapping):
            table = {int(p): a for p, a in opponents.items()}
        else:
            opponents = list(opponents)
            if len(opponents) != len(others):
                raise ValueError(f"opponents has {len(opponents)} agents; seats {others} need one each")
            table = dict(zip(others, opponents, strict=True))
        if sorted(table) != others:
            raise ValueError(f"opponents must cover exactly the seats {others}, got seats {sorted(table)}")
        for p, a in table.items():
            if not isinstance(a, Agent):
                raise TypeError(f"opponent for seat {p} must be an octagames.agents.base.Agent, "
                                 f"got {type(a).__name__}")
        return table

    # -- Gymnasium API ----------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game and play until the learning seat acts.

        Args:
            seed: makes the game and the opponents reproducible.
            options: ``{"deal": [[cards of player 0], ...]}`` fixes the first deal.

        Returns:
            The learning seat's observation and ``{"action_mask": int8 mask}``.

        Raises:
            ValueError: an invalid deal.
        """
        super().reset(seed=seed)
        rng = self.np_random
        self.state = self.game.new_state(int(rng.integers(0, 2**63 - 1)))
        for p, agent in self.opponents.items():
            agent.reset(self.game, p, int(rng.integers(0, 2**63 - 1)))
        if options and options.get("deal") is not None:
            apply_deal(self.game, self.state, options["deal"])
        self._prev_return = float(self.game.returns(self.state)[self.seat])
        self._done = False
        self._advance()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learning seat's ``action``, then the others until it is its turn again.

        Returns:
            ``observation, reward, terminated, truncated, info``.

        Raises:
            IllegalActionError: an illegal action under ``illegal_action="raise"``.
            RuntimeError: the episode is over (call :meth:`reset`).
        """
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        try:
            self.game.apply_action(self.state, int(action))
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            return self._obs(), self.illegal_reward, True, False, self._info()
        self._advance()
        ret = float(self.game.returns(self.state)[self.seat])
        reward, self._prev_return = ret - self._prev_return, ret
        self._done = self.game.is_terminal(self.state)
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learning seat now (bool, ``num_actions``)."""
        return self.game.legal_mask(self.state, self.seat).astype(bool)

    def render(self) -> str | None:
        """The table as the learning seat sees it: text (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = self.game.render(self.state, viewer=self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- internals --------------------------------------------------------------
    def _advance(self) -> None:
        """Resolve chance and let the opponents act until the learning seat acts or the game ends."""
        g, s, rng = self.game, self.state, self.np_random
        while True:
            p = g.acting_player(s)
            if p == CHANCE:
                g.play_chance(s)
            elif p == TERMINAL or p == self.seat:
                return
            else:
                turn = make_turn(g, s, p, int(rng.integers(0, 2**63 - 1)))
                g.apply_action(s, self.opponents[p].act(turn))

    def _obs(self) -> np.ndarray:
        return self.game.observation(self.state, self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.game.legal_mask(self.state, self.seat).view(np.int8)}
