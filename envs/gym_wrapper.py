"""Gymnasium single-agent face of every octagames game.

One seat learns; the other seats are played by fixed agents (agent specs such as
``"heuristic"`` or ``"mcts:50"``, or :class:`octagames.agents.base.Agent` objects;
:class:`~octagames.agents.base.RandomAgent` by default), and chance is resolved with the
game record's RNG::

    import gymnasium
    import octagames.envs  # registers one id per variant: octagames/Octrix-v0, .../Octa-nl-v0, ...

    env = gymnasium.make("octagames/Octrix-v0", seat=1, num_players=3, opponents="heuristic")
    obs, info = env.reset(seed=0)
    terminated = truncated = False
    while not (terminated or truncated):
        action = env.action_space.sample(mask=info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)

``SingleAgentEnv("octrix", seat=1, num_players=3)`` builds the same env without the registry.
Every variant of the catalogue has its id, the game's id with the rest of the variant's
name (``octagames/Octrix-round-v0`` is ``SingleAgentEnv("octrix-round")``,
``octagames/Octa-nl-v0`` is ``SingleAgentEnv("octa-nl")``; see :mod:`octagames.envs`).
Where nothing imports ``octagames.envs`` first (a spawned worker, ``python -c``), the id
with its module, ``"octagames.envs:octagames/Octrix-v0"``, makes Gymnasium import it
(Gymnasium 1.x loads no plugins: see :mod:`octagames.envs`).

* **Observation**: ``Box(observation_size,)`` float32, the learning seat's
  information state (the layout is in the game's rules docstring).
* **Action**: ``Discrete(num_actions)``. The legal actions are
  ``info["action_mask"]`` and :meth:`SingleAgentEnv.action_masks` (the method
  sb3-contrib's ``MaskablePPO`` looks for), both int8 as Gymnasium's
  ``Discrete.sample(mask=...)`` takes them. While an episode is not over the
  mask is never all zero. **Once the episode is over it is all ones**: no action
  is played after the end (``step()`` raises; a Gymnasium vector env's next-step
  autoreset discards the action it is handed on the step after the end), and a
  mask with something in it keeps masked samplers and softmaxes defined there,
  as Pgx does at terminal states. ``terminated``/``truncated`` say the episode is over.
* **Reward**: the change of the learning seat's return, so an episode's
  rewards sum to its return in the game.
* **Termination** when the game ends; **truncation** only where it stops at an
  engine safety bound that is not a rule (Achten's and Octiles' turn caps, the round
  caps of Octrix's and Achten's matches), as in
  the other faces (Octiles under random play: see ``docs/faces.md``, "Octiles' turn cap").
* **Games the learner never acts in** are not episodes: a game can end before
  the learning seat's first decision (an Achten deal that ends the round, a
  4-player round that ends before seat 3's turn). ``reset()`` then deals the
  next game from the same seed stream until the learner has a decision, and
  reports what it skipped in ``info["skipped_games"]`` (how many) and
  ``info["skipped_return"]`` (the learning seat's summed returns in them). A
  learner cannot influence those games, so they carry no learning signal; an
  evaluation that wants every game's score adds ``skipped_return``.
* **Opponents** act through :func:`octagames.agents.base.make_turn`, so they only see
  what their seat can see (hidden information determinized). A spec string is built
  by :func:`octagames.agents.registry.make_agent` for each seat (one agent per seat).
* **Render modes**: each id's entry point (:class:`OctrixEnv`, :class:`AchtenEnv`,
  :class:`OctilesEnv`, :class:`OctaEnv`) lists in its class ``metadata`` the modes
  its game has, which ``gymnasium.make`` reads before building the env. A mode the
  game lacks raises :class:`UnsupportedRenderModeError`, a ``ValueError`` that is
  also a ``TypeError``: Stable-Baselines3's ``make_vec_env`` asks every env for
  ``"rgb_array"`` and makes it without a render mode on a ``TypeError``, so it
  builds every game (every game draws pictures: :mod:`octagames.envs.pictures`).
* **Seeding**: ``reset(seed=s)`` makes the deal, every later chance event and
  the opponents' choices reproducible.
* **Pickling and deep copies** rebuild the env by game, seat, config and
  opponents (a fresh env, not the game in progress): what ``SubprocVecEnv``
  with ``start_method="spawn"``, Ray and ``multiprocessing`` need.

Illegal actions
    Gymnasium has no convention for illegal moves; this face takes the one
    shared by every octagames face. ``illegal_action="terminate"`` (default)
    ends the episode with reward ``illegal_reward`` (-1) and the state
    unchanged, so tools that step with unmasked random actions, such as
    ``gymnasium.utils.env_checker.check_env``, run. ``illegal_action="raise"``
    raises :class:`octagames.core.IllegalActionError` with the engine's message
    (the action in words and the rule it breaks) and changes nothing. An action
    that is not an integer id (a float, a string, a bool: ``True`` is not action 1)
    is illegal too, as in the PettingZoo faces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from octagames.agents.base import Agent, RandomAgent, make_turn
from octagames import catalogue
from octagames.agents.registry import make_agent
from octagames.core import TERMINAL, IllegalActionError, action_id, make_game
from octagames.envs import pictures
from octagames.envs._pettingzoo import (RENDER_FPS, check_env_seed, check_illegal_action, check_illegal_reward,
                                        check_render_mode, deal_option, render_modes)
from octagames.envs.deals import apply_deal

#: games dealt at most by one ``reset()`` looking for one the learning seat acts in
MAX_SKIPPED_GAMES = 1000

#: an opponent: an agent, or a spec of :mod:`octagames.agents.registry` (``"heuristic"``, ``"mcts:50"``)
Opponent = Agent | str


class UnsupportedRenderModeError(ValueError, TypeError):
    """A render mode the game does not have.

    A ``ValueError`` (a bad config value, named with the valid values) and a
    ``TypeError``, which Stable-Baselines3's ``make_vec_env`` takes as "this env
    has no such render mode" and then makes the env without one.
    """


class SingleAgentEnv(gymnasium.Env, EzPickle):
    """One seat of a game as a Gymnasium env, the others played by fixed agents.

    Args:
        game: a variant or game name of the catalogue (``"octrix"``, the match to 88;
            ``"octrix-round"``; ``"octa-nl"``; :mod:`octagames.catalogue`).
        seat: the learning seat.
        opponents: the other seats' players, each an
            :class:`~octagames.agents.base.Agent` or an agent spec
            (``"heuristic"``, ``"mcts:50"``; :func:`~octagames.agents.registry.available_agents`):
            one spec for every other seat, a sequence in ascending seat order
            (skipping ``seat``) or a mapping seat -> opponent; ``None`` gives a
            :class:`~octagames.agents.base.RandomAgent` to each.
        illegal_action: ``"terminate"`` (default) or ``"raise"`` (see the module docstring).
        illegal_reward: the reward of an illegal action under ``"terminate"`` (a finite number).
        render_mode: ``"ansi"`` (``render()`` returns the learning seat's view
            as text), ``"human"`` (prints it), ``"rgb_array"`` (a picture of
            the learning seat's view: :func:`octagames.envs.pictures.rgb`) or
            ``None``.
        **config: config fields of the game, over the variant's.

    Raises:
        ValueError: unknown variant, bad config value, seat, opponents (one agent rather than one
            per seat, seats missing or not seats), agent spec (the valid names are listed), mode
            or illegal reward.
        UnsupportedRenderModeError: a render mode the game does not have (a ``ValueError``).
        TypeError: an opponent that is neither an Agent nor a spec string.
        ImportError: an agent spec whose agent needs an extra that is not installed.
        ModuleNotFoundError: ``render_mode="rgb_array"`` without Pillow (names the extra).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human", "rgb_array"],
                                          "render_fps": RENDER_FPS}

    def __init__(self, game: str = "octrix", seat: int = 0,
                 opponents: str | Sequence[Opponent] | Mapping[int, Opponent] | None = None,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **config: Any):
        EzPickle.__init__(self, game=game, seat=seat, opponents=opponents, illegal_action=illegal_action,
                          illegal_reward=illegal_reward, render_mode=render_mode, **config)
        self.game = make_game(game, **config)
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat={seat!r} is not valid; valid values: {list(range(n))}")
        self.illegal_action = check_illegal_action(illegal_action)
        self.illegal_reward = check_illegal_reward(illegal_reward)
        try:
            check_render_mode(self.game.name, render_mode)
        except ValueError as e:
            raise UnsupportedRenderModeError(str(e)) from None
        self.metadata = {**self.metadata, "render_modes": render_modes(self.game.name)}
        self.seat = int(seat)
        self.render_mode = render_mode
        self.opponents = self._seat_agents(opponents)
        low, high = self.game.observation_bounds()
        self.observation_space = spaces.Box(low=low, high=high, shape=(self.game.observation_size,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: np.void = self.game.new_state(0)
        # the env owns its record, so the hot path calls the compiled kernels directly (Game's
        # methods check the record on every call); the learner's and the opponents' actions
        # still go through Game.apply_action for its clear errors
        self._k = self.game.kernels
        self._returns = np.zeros(self.game.info.max_players, dtype=np.float64)
        self._mask = np.zeros(self.game.num_actions, dtype=np.uint8)
        self._prev_return = 0.0
        self._done = True
        self._dealt = False  # no reset() yet: step() says so, not that an episode is over

    def __getstate__(self) -> dict[str, Any]:
        # by constructor arguments (EzPickle), keeping the registry spec gymnasium.make gave it
        return {**EzPickle.__getstate__(self), "spec": self.spec}

    def __setstate__(self, state: dict[str, Any]) -> None:
        EzPickle.__setstate__(self, state)
        self.spec = state.get("spec")

    def _seat_agents(self, opponents: str | Sequence[Opponent] | Mapping[int, Opponent] | None
                     ) -> dict[int, Agent]:
        others = [p for p in range(self.game.num_players) if p != self.seat]
        if opponents is None:
            return {p: RandomAgent() for p in others}
        if isinstance(opponents, str):  # one spec for every seat (a string is no sequence of opponents)
            table = dict.fromkeys(others, opponents)
        elif isinstance(opponents, Mapping):
            keys = [p for p in opponents if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer))]
            if keys:
                raise ValueError(f"opponents has the key {keys[0]!r}, which is not a seat; valid keys: the "
                                 f"seats {others} (integers)")
            table = {int(p): a for p, a in opponents.items()}
        elif not isinstance(opponents, Sequence):  # one agent (an Agent object is no sequence of opponents)
            raise ValueError(f"opponents={opponents!r:.60} is not valid; valid values: an agent spec for every "
                             f"seat ('heuristic'), a sequence of one agent or spec per seat {others}, a mapping "
                             f"seat -> agent or spec, or None")
        else:
            opponents = list(opponents)
            if len(opponents) != len(others):
                raise ValueError(f"opponents has {len(opponents)} agents; seats {others} need one each")
            table = dict(zip(others, opponents, strict=True))
        if sorted(table) != others:
            raise ValueError(f"opponents must cover exactly the seats {others}, got seats {sorted(table)}")
        for p, a in table.items():
            if isinstance(a, str):
                table[p] = make_agent(a, self.game)  # a fresh agent per seat; refuses an unknown name or config
            elif not isinstance(a, Agent):
                raise TypeError(f"opponent for seat {p} must be an octagames.agents.base.Agent or an agent "
                                f"spec such as 'heuristic' or 'mcts:50', got {type(a).__name__}")
        return table

    # -- Gymnasium API ----------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game and play until the learning seat acts.

        A game that ends before the learning seat's first decision is skipped:
        the next one is dealt from the same seed stream (see the module docstring).

        Args:
            seed: makes the game and the opponents reproducible.
            options: ``{"deal": [[cards of player 0], ...]}`` fixes the deal of
                the first game dealt.

        Returns:
            The learning seat's observation and the info dict: ``action_mask``
            (int8), ``skipped_games`` and ``skipped_return``.

        Raises:
            ValueError: an invalid deal, ``options`` not a dict, or a seed that is not None or an integer
                >= 0 (a numpy integer is fine, a bool is not); the env is left exactly as it was (the game, the
                episode, the seed stream and the opponents), as in the PettingZoo faces.
            RuntimeError: :data:`MAX_SKIPPED_GAMES` games in a row gave the learning seat no decision.
        """
        seed, deal = check_env_seed(seed), deal_option(options)
        rng, rng_seed = self._np_random, self._np_random_seed
        stream = rng.bit_generator.state if rng is not None else None
        super().reset(seed=seed)
        try:
            self._new_game(deal)
        except ValueError:  # a refused deal: the stream, if it is the env's, draws this game again
            self._np_random, self._np_random_seed = rng, rng_seed
            if rng is not None:
                rng.bit_generator.state = stream
            raise
        skipped, skipped_return = 0, 0.0
        while self._k.current_player(self.state) == TERMINAL:
            skipped += 1
            skipped_return += self._return()
            if skipped >= MAX_SKIPPED_GAMES:
                raise RuntimeError(f"{skipped} games in a row ended before seat {self.seat} could act; "
                                   f"check the config {self.game.config}")
            self._new_game(None)
        self._done = False
        self._dealt = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), {**self._info(), "skipped_games": skipped, "skipped_return": skipped_return}

    def _new_game(self, deal: Any) -> None:
        """Deal a game from the env's seed stream and play it until the learning seat acts or it ends.

        The new record is dealt aside and kept once ``deal`` is in it, so a refused deal
        changes neither the game in progress nor the opponents (only the seed stream, which
        :meth:`reset` restores).

        Raises:
            ValueError: an invalid deal.
        """
        rng = self.np_random
        state = self.game.new_state(int(rng.integers(0, 2**63 - 1)))
        if deal is not None:
            apply_deal(self.game, state, deal)  # draws nothing from the stream: the opponents' seeds follow
        self.state = state
        for p, agent in self.opponents.items():
            agent.reset(self.game, p, int(rng.integers(0, 2**63 - 1)))
        self._prev_return = self._return()
        self._advance()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learning seat's ``action``, then the others until it is its turn again.

        An action is an integer id (an int, a numpy integer, a 0-d integer array or tensor:
        :func:`octagames.core.action_id`); anything else is illegal, a bool too (``True`` is not action 1)
        and an array of one element, as in the PettingZoo faces.

        Returns:
            ``observation, reward, terminated, truncated, info``.

        Raises:
            IllegalActionError: an illegal action under ``illegal_action="raise"``.
            RuntimeError: the episode is over, or none was dealt yet (call :meth:`reset`).
        """
        if self._done:
            raise RuntimeError("the episode is over; call reset()" if self._dealt else "call reset() before step()")
        a = action_id(action)  # the faces' one rule for an integer id (octagames.core.action_id)
        if a is None:
            a = -1
        if not 0 <= a < self.game.num_actions or not self._k.legal_mask(self.state, self.seat, self._mask) \
                or not self._mask[a]:
            if self.illegal_action == "raise":
                self.game.apply_action(self.state, action)  # raises the engine's message: the action, the rule
                raise IllegalActionError(f"action {action!r} is not legal now")  # pragma: no cover
            # "terminate" skips the engine's message: the reasons are Python (and compile on first use)
            self._done = True
            return self._obs(), self.illegal_reward, True, False, self._info()
        self._k.apply_action(self.state, a)
        self._advance()
        ret = self._return()
        reward, self._prev_return = ret - self._prev_return, ret
        self._done = self._k.current_player(self.state) == TERMINAL
        truncated = self._done and bool(self._k.truncated(self.state))
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._done and not truncated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learning seat now (int8 0/1, ``num_actions``).

        Once the episode is over, all ones: nothing is played after the end, and
        a vector env's next-step autoreset discards the action it is handed then
        (see the module docstring).
        """
        if self._done:
            return np.ones(self.game.num_actions, dtype=np.int8)
        self._mask[:] = 0
        self._k.legal_mask(self.state, self.seat, self._mask)
        return self._mask.view(np.int8).copy()

    def render(self) -> str | np.ndarray | None:
        """The table as the learning seat sees it: text (``"ansi"``), printed (``"human"``), a picture."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return pictures.rgb(self.game, self.state, self.seat)
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
            p = int(self._k.play_chance(s))  # the acting seat after chance, or TERMINAL
            if p == TERMINAL or p == self.seat:
                return
            turn = make_turn(g, s, p, int(rng.integers(0, 2**63 - 1)))
            g.apply_action(s, self.opponents[p].act(turn))

    def _return(self) -> float:
        self._k.returns(self.state, self._returns)
        return float(self._returns[self.seat])

    def _obs(self) -> np.ndarray:
        out = np.zeros(self.game.observation_size, dtype=np.float32)
        self._k.observation(self.state, self.seat, out)
        return out

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks()}


# -- the entry points of the Gymnasium ids ----------------------------------------
class _OneGame(SingleAgentEnv):
    """:class:`SingleAgentEnv` of one game, whose class ``metadata`` lists that game's render modes.

    ``gymnasium.make`` reads the entry point's class metadata before it builds the
    env, so each game's ids have a class of their own rather than :class:`SingleAgentEnv`,
    whose modes depend on the game it is given. A subclass names its game:
    ``class OctrixEnv(_OneGame, game="octrix")``; it builds any variant of that game
    (``game="octrix-round"``: what the variant's id passes, and what pickles pass back in).
    """

    GAME: ClassVar[str]

    def __init_subclass__(cls, game: str, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        cls.GAME = game
        cls.metadata = {"render_modes": render_modes(game), "render_fps": RENDER_FPS}

    def __init__(self, game: str | None = None, variant: str | None = None, **kwargs: Any):
        # ``variant=`` as the PettingZoo modules name it (``octa_v0.env(variant="octa-nl")``), or ``game=``;
        # the id's own ``game=`` (the seed's game, registered with the id) gives way to a variant
        if variant is not None:
            if game not in (None, self.GAME, variant):
                raise ValueError(f"game={game!r} and variant={variant!r} name two variants; give one")
            game = variant
        valid = [self.GAME] + [v.name for v in catalogue.game_spec(self.GAME).variants if v.name != self.GAME]
        if game is not None and game not in valid:
            field = "variant" if variant is not None else "game"  # the keyword the caller wrote
            raise ValueError(f"{field}={game!r} is not valid for {type(self).__name__}; valid values: "
                             f"{valid} (other games have ids of their own)")
        super().__init__(self.GAME if game is None else game, **kwargs)


class OctrixEnv(_OneGame, game="octrix"):
    """``octagames/Octrix-v0`` and the ids of Octrix's variants: text and pictures (``ansi``, ``human``,
    ``rgb_array``)."""


class AchtenEnv(_OneGame, game="achten"):
    """``octagames/Achten-v0`` and the ids of Achten's variants: text and pictures (``ansi``, ``human``,
    ``rgb_array``)."""


class OctilesEnv(_OneGame, game="octiles"):
    """``octagames/Octiles-v0`` and the ids of Octiles' variants: text and pictures (``ansi``, ``human``,
    ``rgb_array``)."""


class OctaEnv(_OneGame, game="octa"):
    """``octagames/Octa-v0`` and the ids of Octa's rulebooks: text and pictures (``ansi``, ``human``,
    ``rgb_array``)."""
