"""Generic PettingZoo faces for every octagames rules engine.

Everything shared by the ``envs/<name>_v0.py`` modules lives here, written once
for all games: agent naming, observation dicts, chance resolution, rewards,
illegal-move policy, fixed deals and rendering. Nothing here knows a rule of
any game; it only talks to the engine contract of :mod:`octagames.core`.

* :class:`GameAECEnv` -- the AEC env of any game (``raw_env`` of every game
  module). Simultaneous moves are taken one seat at a time, lowest pending seat
  first, exactly as the engine takes them (committed cards stay hidden from the
  other seats until the step is complete).
* :class:`GameParallelEnv` -- the Parallel env of any game: each ``step``
  takes one action from every live agent. Seats that do not act in a step (the
  turn-based games, the partnership game of Octrix) have one legal action
  there, :attr:`GameParallelEnv.wait_action`.
* :func:`wrap_aec` -- the classic wrappers (``TerminateIllegalWrapper``,
  ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``) used by ``env()``.

A game module (see ``envs/octrix_v0.py``) only names its game::

    raw_env, parallel_raw_env, env, parallel_env = define_envs("<name>", __name__)

Its four names take ``variant=``, one of that game's variants (:mod:`octagames.catalogue`;
the seed's game by default): ``octa_v0.env(variant="octa-nl")``. :func:`make_env` and
:func:`make_parallel_env` build any variant by its name alone: ``make_env("octa-nl")``.
Config fields given as keyword arguments go over the variant's (``num_players=3``).

Every env reports its own ``metadata["name"]`` (``<name>_v0``) and sets
``metadata["is_parallelizable"]`` as PettingZoo's classic envs do: True only
where every seat acts in every step (the game's rules module says so with an
optional ``all_seats_act(config)``; Octrix without partnership), so that
PettingZoo's ``aec_to_parallel`` is offered exactly where it works.

Observation bounds come from the rules module (:meth:`Game.observation_bounds`),
fixed deals from :mod:`octagames.envs.deals`.
"""

from __future__ import annotations

import copy
import importlib
import math
import numbers
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from octagames import catalogue
from octagames.core import TERMINAL, Game, IllegalActionError, make_game
from octagames.envs import pictures
from octagames.envs._aec_template import ILLEGAL
from octagames.envs.deals import apply_deal
from octagames.specialize import specialize

#: what every face does with an illegal action: ``"raise"`` an
#: :class:`~octagames.core.IllegalActionError` and change nothing, or ``"terminate"`` the
#: game with ``illegal_reward`` for the offender and 0 for the others (PettingZoo's
#: ``TerminateIllegalWrapper`` convention)
ILLEGAL_ACTION_MODES = ("raise", "terminate")
#: frames per second of ``render_mode="human"`` (PettingZoo and Gymnasium read it from ``metadata``)
RENDER_FPS = 4


def check_illegal_action(mode: Any) -> str:
    """Return ``mode`` if it is one of :data:`ILLEGAL_ACTION_MODES`.

    Raises:
        ValueError: naming the field and the valid values.
    """
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action={mode!r} is not valid; valid values: {list(ILLEGAL_ACTION_MODES)}")
    return mode


def check_illegal_reward(reward: Any) -> float:
    """``reward`` as a float if it is a finite number (an int, a float, a numpy number; not a bool).

    Raises:
        ValueError: naming the field and the valid values.
    """
    if isinstance(reward, (bool, np.bool_)) or not isinstance(reward, numbers.Real) or not math.isfinite(reward):
        raise ValueError(f"illegal_reward={reward!r} is not valid; it must be a finite number (default -1.0)")
    return float(reward)


def check_env_seed(seed: Any) -> int | None:
    """``seed`` of a face's ``reset`` as a Python int (``None`` stays ``None``): any integer >= 0, a numpy
    integer too, as Gymnasium's seeding takes it; a bool, a float or a string is refused (``True`` is not seed 1).

    Raises:
        ValueError: naming the seed and the valid values.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r} is not valid; it must be None or an integer >= 0")
    return int(seed)


def deal_option(options: Any) -> Any:
    """The deal a face's ``reset(options=...)`` asks for (``{"deal": [[cards of player 0], ...]}``), or None.

    Raises:
        ValueError: ``options`` is neither None nor a dict.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ValueError(f"options={options!r} is not valid; it must be a dict such as "
                         "{'deal': [[cards of player 0], ...]}, or None")
    return options.get("deal")


def render_modes(game: str) -> list[str]:
    """The render modes of ``game``'s faces: text always, ``rgb_array`` where it draws pictures."""
    return ["ansi", "human"] + (["rgb_array"] if has_picture(game) else [])


def all_seats_act(game: Game) -> bool:
    """Whether every seat acts in every step of ``game`` (its moves are all simultaneous).

    Read from the rules module's optional ``all_seats_act(config)``; a game
    without it is turn-based (False).
    """
    declared = getattr(game.module, "all_seats_act", None)
    return bool(declared(game.config)) if declared is not None else False


def make_spaces(game: Game, extra_actions: int = 0) -> tuple[spaces.Dict, spaces.Discrete]:
    """The per-agent observation space (dict with action mask) and action space.

    Args:
        game: the game and config.
        extra_actions: actions after the game's own (the Parallel env's wait action).
    """
    low, high = game.observation_bounds()
    n = game.num_actions + extra_actions
    obs_space = spaces.Dict({
        "observation": spaces.Box(low=low, high=high, shape=(game.observation_size,), dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
    })
    return obs_space, spaces.Discrete(n)


def per_agent(space: spaces.Space, agents: list[str]) -> dict[str, spaces.Space]:
    """One copy of ``space`` for each agent: an agent's space seeds and samples on its own RNG.

    Sharing one object made ``action_space("player_1").seed(2)`` reseed player_0's samples too.
    """
    return {a: copy.deepcopy(space) for a in agents}


def aec_kernels(module: ModuleType | str) -> ModuleType:
    """The compiled per-step kernels of a rules module (``octagames.envs._aec_template``, specialised).

    ``module``: a rules module, or the name of a kernel module (:attr:`octagames.core.Game.kernel_module`).
    """
    name = module if isinstance(module, str) else module.__name__
    return specialize("octagames.envs._aec_template", game=name)


def picture_module(game: str) -> ModuleType:
    """The module drawing pictures of ``game``: its ``GameSpec.picture`` (``octagames.envs.pictures.octa``).

    Raises:
        ValueError: ``game`` draws no pictures (the message lists its render modes).
    """
    module = catalogue.game_spec(game).picture
    if module is None:
        raise ValueError(f"{game} draws no pictures; its render modes are {render_modes(game)}")
    return importlib.import_module(module)


def has_picture(game: str) -> bool:
    """Whether ``game`` has an ``rgb_array`` renderer (its ``GameSpec.picture``)."""
    return catalogue.game_spec(game).picture is not None


def check_render_mode(game: str, render_mode: str | None) -> None:
    """Refuse a render mode ``game`` does not have, and ``rgb_array`` without Pillow.

    Raises:
        ValueError: naming the field and the valid values.
        ModuleNotFoundError: ``rgb_array`` in an install without the ``render`` extra.
    """
    modes = render_modes(game)
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode={render_mode!r} is not valid; valid values: {modes + [None]}")
    if render_mode == "rgb_array":
        picture_module(game)
        pictures.require_raster()  # fails now, naming the extra, rather than at the first render()


class _Table:
    """One game record plus preallocated buffers, driven through one compiled call per step.

    The record is a view into a one-element array that the kernels of
    :func:`aec_kernels` update in place, so a step allocates nothing but
    the observation it returns.

    Until the first successful :meth:`reset` the table has no game
    (:attr:`started` is False) and every entry point that reads or plays the
    record raises (an undealt record must never reach a compiled step). A
    table copies and pickles with its game in progress: the record, the
    return bookkeeping, the acting seat and the seed stream; the compiled
    kernels are bound again on the other side.
    """

    #: the attributes that hold compiled kernels (bound by :meth:`_bind`, never copied)
    _KERNELS = ("_reset", "_obs", "_truncated", "_play_chance", "_returns", "_play", "_view", "_mask_count")

    def __init__(self, game: Game, render_mode: str | None):
        check_render_mode(game.name, render_mode)
        m = game.module
        self.game = game
        self.n = game.num_players
        self.num_actions = game.num_actions
        self.obs_size = game.observation_size
        self.buf = np.zeros(1, dtype=game.dtype)
        m.write_config(self.buf[0], game.config)
        self.mask = np.zeros(game.num_actions, dtype=np.uint8)
        self.delta = np.zeros(game.info.max_players, dtype=np.float64)
        self.prev = np.zeros(game.info.max_players, dtype=np.float64)
        self.render_mode = render_mode
        self.np_random: np.random.Generator | None = None
        self.acting_seat = TERMINAL
        #: whether a game was dealt (a :meth:`reset` succeeded)
        self.started = False
        self._bind()

    def _bind(self) -> None:
        """Bind the compiled kernels and the record view (after construction and after a copy)."""
        game = self.game
        self.s = self.buf[0]  # a view: kernels write through it
        k = aec_kernels(game.kernel_module)
        self._reset, self._obs = game.kernels.reset, game.kernels.observation
        self._truncated = game.kernels.truncated
        # after a reset (not per step): the engine's entry points, rather than one more compiled here
        self._play_chance, self._returns = game.kernels.play_chance, game.kernels.returns
        self._play, self._view, self._mask_count = k.play, k.view, k.mask_count

    def __getstate__(self) -> dict[str, Any]:
        # everything but the kernels and the view (rebound by _bind); the game pickles by name and config
        return {k: v for k, v in self.__dict__.items() if k not in self._KERNELS and k != "s"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def require_game(self, call: str) -> None:
        """Refuse ``call`` (a method name, for the message) before the first successful reset.

        Raises:
            RuntimeError: no game was dealt yet ("call reset() first").
        """
        if not self.started:
            raise RuntimeError(f"{call} needs a game in progress, and this {self.game.name} env has none "
                               f"yet: call reset() first")

    # -- lifecycle ------------------------------------------------------------
    def reset(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Start a new game, apply a requested deal, resolve chance.

        A ``seed`` reseeds the env's seed stream; without one the next game
        seed is drawn from the stream (fresh entropy before the first seed).
        The new game is built aside and kept only when it is complete, so a
        refused deal leaves the table (game, seed stream) as it was.

        Raises:
            ValueError: an invalid deal, ``options`` not a dict (:func:`deal_option`), or a seed that
                is not None or an integer >= 0 (:func:`check_env_seed`).
        """
        seed, deal = check_env_seed(seed), deal_option(options)
        stream = self.np_random
        if seed is not None or stream is None:
            stream, _ = seeding.np_random(seed)
        before = stream.bit_generator.state
        new = self.buf.copy()
        s = new[0]
        self._reset(s, int(stream.integers(0, 2**63 - 1)))
        try:
            if deal is not None:
                apply_deal(self.game, s, deal)
        except Exception:
            stream.bit_generator.state = before  # the stream, if it is the table's, draws this game again
            raise
        seat = int(self._play_chance(s))
        self.buf[:] = new
        self._returns(self.s, self.prev)
        self.np_random, self.acting_seat, self.started = stream, seat, True

    def play(self, action: Any) -> np.ndarray:
        """Apply the acting seat's action, resolve chance, update :attr:`acting_seat`.

        Returns:
            The change of every seat's return (a buffer reused by the next call).

        Raises:
            IllegalActionError: with the engine's message, also for what is not an
                action id (a float, a bool, a string, ``None``: :class:`Game`'s
                integer rule); the state is unchanged.
            RuntimeError: before the first reset.
        """
        self.require_game("step()")
        a = self.game._action_id(action, self.s)  # the integer rule of Game, in one place
        seat = int(self._play(self.buf, a, self.prev, self.delta)) if 0 <= a < self.num_actions else ILLEGAL
        if seat == ILLEGAL:
            self.game.apply_action(self.s, a)  # the kernel refused: this raises the clear message
            raise IllegalActionError(f"action {a} was refused by the rules engine")  # pragma: no cover
        self.acting_seat = seat
        return self.delta

    # -- queries --------------------------------------------------------------
    def terminal(self) -> bool:
        """Whether the game is over."""
        return self.acting_seat == TERMINAL

    def truncated(self) -> bool:
        """Whether the game stopped at an engine safety bound that is not a rule (a truncation)."""
        return self.acting_seat == TERMINAL and bool(self._truncated(self.s))

    def is_acting(self, seat: int) -> bool:
        """Whether ``seat`` has a legal action now."""
        self.require_game("acting_agents()")
        return self.acting_seat != TERMINAL and self._mask_count(self.buf, seat, self.mask) > 0

    def observe(self, seat: int, wait: int = -1) -> dict[str, np.ndarray]:
        """The observation dict of ``seat`` (fresh arrays).

        Args:
            seat: the observing seat.
            wait: the id of a wait action after the game's own (-1: none). The
                mask then has one more entry, set exactly when the game is on
                and ``seat`` has no other legal action.

        Raises:
            RuntimeError: before the first reset.
        """
        self.require_game("observe()")
        obs = np.empty(self.obs_size, dtype=np.float32)
        mask = np.zeros(self.num_actions + (wait >= 0), dtype=np.uint8)
        count = self._view(self.buf, seat, obs, mask[:self.num_actions])
        if wait >= 0 and count == 0 and self.acting_seat != TERMINAL:
            mask[wait] = 1
        return {"observation": obs, "action_mask": mask.view(np.int8)}

    def state_vector(self) -> np.ndarray:
        """All seats' information states concatenated (seat order).

        Raises:
            RuntimeError: before the first reset.
        """
        self.require_game("state()")
        out = np.empty(self.n * self.obs_size, dtype=np.float32)
        for p in range(self.n):
            self._obs(self.s, p, out[p * self.obs_size:(p + 1) * self.obs_size])
        return out

    def render(self) -> str | np.ndarray | None:
        """Text of the table for "ansi"; printed for "human"; an RGB picture for "rgb_array"."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        self.require_game("render()")
        if self.render_mode == "rgb_array":
            return pictures.rgb(self.game, self.s)  # the all-seeing picture, like the text
        text = self.game.render(self.s)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def _pickle_kwargs(env: Any, game: str, **kwargs: Any) -> dict[str, Any]:
    """Constructor arguments for EzPickle: ``game`` where the class does not fix it, else a ``variant``
    other than the class's game."""
    fixed = type(env).GAME
    if fixed is None:
        return {"game": game, **kwargs}
    return kwargs if game == fixed else {"variant": game, **kwargs}


def _metadata(cls: type, game: Game, parallelizable: bool | None = None) -> dict[str, Any]:
    """An env's own metadata: the class's, with the name and the flags of this game and config."""
    meta = {**cls.metadata, "name": cls.metadata.get("name") or f"{game.name}_v0",
            "render_modes": render_modes(game.name), "render_fps": RENDER_FPS}
    if parallelizable is not None:
        meta["is_parallelizable"] = parallelizable
    return meta


def _whole_env_state(env: Any) -> dict[str, Any]:
    """What ``pickle`` and ``copy.deepcopy`` take of an env: all of it, the game in progress included.

    EzPickle's own state (the constructor arguments alone) would give a fresh,
    undealt env that still holds the agents and the selection of the original.
    The :class:`Game` pickles by name and config and the table with its record
    (compiled kernels are bound again), so a copy goes on exactly as the original.
    """
    return dict(env.__dict__)


def _set_whole_env_state(env: Any, state: dict[str, Any]) -> None:
    """Restore what :func:`_whole_env_state` took."""
    env.__dict__.update(state)


def _deep_copy(env: Any) -> Any:
    """``copy.copy`` of an env: a whole, independent copy (a shallow one would share the game)."""
    return copy.deepcopy(env)


def _seat_of(env: Any, agent: Any) -> int:
    """The seat of ``agent`` in ``env``.

    Raises:
        KeyError: ``agent`` is not one of ``env.possible_agents`` (the message lists them).
    """
    try:
        return env._seat[agent]
    except (KeyError, TypeError):
        raise KeyError(f"{agent!r} is not an agent of this env; the agents are {env.possible_agents}") from None


class GameAECEnv(AECEnv, EzPickle):
    """AEC env of one octagames game (the ``raw_env`` of ``envs/<name>_v0.py``).

    Args:
        game: a variant or game name of the catalogue (``"octa-nl"``; the ``raw_env`` of a game
            module fixes its game with ``GAME`` and takes one of its variants as ``variant``).
        render_mode: ``"ansi"`` (``render()`` returns the table as text),
            ``"human"`` (prints it after every step), ``"rgb_array"`` (a
            picture, for the games that draw one) or ``None``.
        **config: config fields of the game (the ``Config``'s field names), over the variant's.

    Raises:
        ValueError: an unknown variant, a bad config value or render mode.
        ModuleNotFoundError: ``render_mode="rgb_array"`` without Pillow (names the extra).

    Agents are ``player_0 .. player_{n-1}`` (seat order). ``observe(agent)``
    returns ``{"observation": float32[observation_size], "action_mask":
    int8[num_actions]}``: the seat's information state and its legal actions
    (nonzero only for seats that may act now; in a simultaneous step that is
    every pending seat, while ``agent_selection`` is the lowest pending seat).
    Chance is resolved internally with the record's RNG, seeded by
    ``reset(seed=...)``. ``reset(options={"deal": [[...], ...]})`` fixes the
    first deal (see :mod:`octagames.envs.deals`). The reward of a step is the change of
    each seat's return, so cumulative rewards equal the game's returns. A game
    that stops at an engine safety bound that is not a rule (Achten's turn cap)
    ends with every agent truncated instead of terminated. The raw env raises
    :class:`~octagames.core.IllegalActionError` on an illegal action and
    leaves the state unchanged; ``env()`` wraps it to end the game with -1 for
    the offender instead (``illegal_action="terminate"``, PettingZoo's classic
    convention; a termination, not a truncation). An action that is not an integer id (``8.7``, ``"8"``,
    ``True``, ``np.float32(1.9)``, ``None`` for a live agent) is illegal too,
    as in :class:`~octagames.core.Game`.

    Before the first ``reset()`` there is no game: ``step``, ``observe``,
    ``last``, ``state``, ``render`` and :attr:`state_record` raise
    ``RuntimeError`` ("call reset() first"). ``copy.deepcopy`` and ``pickle``
    carry the whole env, the game in progress included (record, agents,
    rewards, terminations, truncations, infos, selection and seed stream): the
    copy goes on exactly as the original; an env before reset copies as one.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": None,
                                          "is_parallelizable": False, "render_fps": RENDER_FPS}
    GAME: ClassVar[str | None] = None

    def __init__(self, game: str | None = None, render_mode: str | None = None, **config: Any):
        name = game or self.GAME
        if name is None:
            raise ValueError(f"game must be a variant or game name; valid values: {catalogue.names()}")
        EzPickle.__init__(self, **_pickle_kwargs(self, name, render_mode=render_mode, **config))
        super().__init__()
        self.game = make_game(name, **config)
        self._t = _Table(self.game, render_mode)
        self.metadata = _metadata(type(self), self.game, parallelizable=all_seats_act(self.game))
        self.render_mode = render_mode
        n = self.game.num_players
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        obs_space, act_space = make_spaces(self.game)
        self.observation_spaces = per_agent(obs_space, self.possible_agents)
        self.action_spaces = per_agent(act_space, self.possible_agents)
        self.state_space = spaces.Box(low=np.tile(obs_space["observation"].low, n),
                                      high=np.tile(obs_space["observation"].high, n), dtype=np.float32)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    # -- spaces ---------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call; each agent has its own).

        Raises:
            KeyError: ``agent`` is not an agent of this env (the message lists them).
        """
        return self.observation_spaces[self.possible_agents[_seat_of(self, agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call; each agent has its own).

        Raises:
            KeyError: ``agent`` is not an agent of this env (the message lists them).
        """
        return self.action_spaces[self.possible_agents[_seat_of(self, agent)]]

    # -- copies ---------------------------------------------------------------
    __getstate__ = _whole_env_state
    __setstate__ = _set_whole_env_state
    __copy__ = _deep_copy

    # -- API ------------------------------------------------------------------
    @property
    def state_record(self) -> np.void:
        """The engine record of the running game (a live view; copy it before changing it).

        Raises:
            RuntimeError: before the first reset.
        """
        self._t.require_game("state_record")
        return self._t.s

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: seeds the game's RNG (deal and every later chance event).
            options: ``{"deal": [[cards of player 0], ...]}`` fixes the first
                deal; other keys are ignored.

        Raises:
            ValueError: an invalid deal.
        """
        self._t.reset(seed, options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        p = self._t.acting_seat
        if p < 0:  # the game ended during the deal
            self._end_game()
            p = 0
        self.agent_selection = self.possible_agents[p]

    def _end_game(self) -> None:
        """Mark every agent done: truncated at an engine bound, else terminated."""
        if self._t.truncated():
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.terminations = dict.fromkeys(self.agents, True)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation dict: its information state and its legal-action mask.

        Raises:
            RuntimeError: before the first reset.
            KeyError: ``agent`` is not one of :attr:`possible_agents` (the message lists them).
        """
        return self._t.observe(_seat_of(self, agent))

    def state(self) -> np.ndarray:
        """Global state: every seat's information state concatenated in seat order."""
        return self._t.state_vector()

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for a finished agent).

        Raises:
            IllegalActionError: the action is illegal, or not an action id; nothing changes.
            RuntimeError: before the first reset, or after every agent has left the finished game.
        """
        self._t.require_game("step()")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has left it: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        t = self._t
        delta = t.play(action)
        self._cumulative_rewards[agent] = 0.0
        rewards, seat_of = self.rewards, self._seat
        for a in rewards:
            rewards[a] = float(delta[seat_of[a]])
        if t.acting_seat == TERMINAL:
            self._end_game()
            self.agent_selection = self.possible_agents[(seat_of[agent] + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[t.acting_seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            t.render()

    def render(self) -> str | np.ndarray | None:
        """The table as text (``"ansi"``), printed (``"human"``), a picture (``"rgb_array"``)."""
        return self._t.render()

    def close(self) -> None:
        """Nothing to release (pictures are drawn off screen)."""


class ActionIdWrapper(wrappers.BaseWrapper):
    """Refuse what is not an action id before PettingZoo's wrappers see it.

    ``TerminateIllegalWrapper`` indexes the mask with the action, so ``step(True)`` picked a mask
    row by numpy's boolean indexing and failed with numpy's "truth value of an array" error (and
    ``AssertOutOfBoundsWrapper`` lets a bool through: ``Discrete.contains(True)`` holds). This
    wrapper applies :class:`Game`'s integer rule first: a bool, a float, a string raise the engine's
    :class:`IllegalActionError` naming the action and the valid ids; nothing changes. A finished
    agent's step (``None``) passes through.
    """

    def step(self, action: Any) -> None:
        raw = self.env.unwrapped
        agent = raw.agent_selection
        if raw.agents and not (raw.terminations[agent] or raw.truncations[agent]):
            t = raw._t
            t.require_game("step()")
            action = t.game._action_id(action, t.s)
        self.env.step(action)


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, whose ``copy.copy`` is a whole copy as the raw env's is (a shallow
    copy of the wrapper stack shared the game with the original: stepping the copy stepped both)."""

    __copy__ = _deep_copy


class _TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper``, reporting the end it makes as a termination only.

    PettingZoo 1.27's wrapper marks every agent both terminated and truncated after an illegal
    move; every face reports the end of a game as a termination (a truncation is an engine
    safety bound only), as the Parallel env does. The masks of the observations after that end
    are all zero, as at a natural end (the record is left as it was, with its live masks), and
    every reward is a float, as at every other step (PettingZoo's wrapper gives the others an int 0).
    """

    def step(self, action: Any) -> None:
        """Step as PettingZoo's wrapper does; an illegal move's end clears the truncations it set and
        gives the others a float 0.0."""
        ended_before = self._terminated
        super().step(action)
        if self._terminated and not ended_before:
            raw = self.env.unwrapped
            raw.truncations = dict.fromkeys(raw.truncations, False)
            raw.rewards = {a: float(r) for a, r in raw.rewards.items()}
            raw._cumulative_rewards = {a: float(r) for a, r in raw._cumulative_rewards.items()}

    def observe(self, agent: Any) -> Any:
        """``agent``'s observation; its mask is all zero once an illegal move has ended the game."""
        obs = super().observe(agent)
        if self._terminated and isinstance(obs, dict) and "action_mask" in obs:
            obs["action_mask"] = np.zeros_like(obs["action_mask"])
        return obs


def wrap_aec(raw: GameAECEnv) -> AECEnv:
    """The PettingZoo classic wrapper stack used by ``env()``.

    What is not an action id (a bool, a float, a string) raises :class:`IllegalActionError`
    (:class:`ActionIdWrapper`); an illegal action id ends the game with reward -1 for the offender,
    reported as a termination, not a truncation (:class:`_TerminateIllegalWrapper`:
    ``illegal_action="terminate"``), out-of-range actions fail an assertion and the call order is enforced.
    """
    env: AECEnv = _TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = ActionIdWrapper(env)  # outside the bounds' assertion, which a float failed first (an AssertionError)
    env = _OrderEnforcingWrapper(env)
    return env


class GameParallelEnv(ParallelEnv, EzPickle):
    """Parallel env of one octagames game.

    Each :meth:`step` takes one action from every live agent, as PettingZoo's
    Parallel API and the tools built on it (TorchRL, SuperSuit, RLlib) expect,
    and applies the actions of the seats that act now (the seats with a legal
    game action: all pending seats of a simultaneous step, the one seat to move
    in a turn-based game) in ascending seat order, as the engine does.

    **Idle seats wait.** Where not every seat acts in every step (every game
    but Octrix without partnership), the action space has one action more than
    the game's, :attr:`wait_action` (= ``num_actions``): it is the only legal
    action of a live seat that does not act in this step, and illegal for a
    seat that does. So every live agent always has a non-empty mask (a masked
    softmax never sees an all-zero mask) and a masked policy spends no
    probability, gradient or entropy on the waits. An idle agent's action may
    also be left out of ``actions``. In Octrix without partnership every seat
    acts in every step: there is no wait action, the spaces equal the AEC
    env's, and ``metadata["is_parallelizable"]`` is True.

    Args:
        game: a variant or game name of the catalogue (``"octa-nl"``; the ``parallel_raw_env`` of a
            game module fixes its game with ``GAME`` and takes one of its variants as ``variant``).
        render_mode: ``"ansi"``, ``"human"``, ``"rgb_array"`` (games that draw
            pictures) or ``None``.
        illegal_action: ``"terminate"`` (default; PettingZoo classic
            convention): an illegal action ends the game, each offender gets
            ``illegal_reward`` and the others 0. ``"raise"``: raise
            :class:`~octagames.core.IllegalActionError` and change nothing.
        illegal_reward: the offender's reward under ``"terminate"`` (a finite number).
        **config: config fields of the game, over the variant's.

    Raises:
        ValueError: an unknown variant, a bad config value, render mode, illegal-action mode or
            illegal reward.
        ModuleNotFoundError: ``render_mode="rgb_array"`` without Pillow (names the extra).

    Before the first ``reset()`` there is no game: ``step``, ``state``,
    ``render``, :meth:`acting_agents` and :attr:`state_record` raise
    ``RuntimeError`` ("call reset() first"). ``copy.deepcopy`` and ``pickle``
    carry the whole env with its game in progress (record, agents, seed
    stream); the copy goes on exactly as the original.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": None,
                                          "render_fps": RENDER_FPS}
    GAME: ClassVar[str | None] = None

    def __init__(self, game: str | None = None, render_mode: str | None = None,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0, **config: Any):
        name = game or self.GAME
        if name is None:
            raise ValueError(f"game must be a variant or game name; valid values: {catalogue.names()}")
        check_illegal_action(illegal_action)
        check_illegal_reward(illegal_reward)
        EzPickle.__init__(self, **_pickle_kwargs(self, name, render_mode=render_mode,
                                                 illegal_action=illegal_action,
                                                 illegal_reward=illegal_reward, **config))
        self.game = make_game(name, **config)
        self._t = _Table(self.game, render_mode)
        self.metadata = _metadata(type(self), self.game)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = check_illegal_reward(illegal_reward)
        #: the id of the wait action of idle seats (``num_actions``), or None where every seat always acts
        self.wait_action: int | None = None if all_seats_act(self.game) else self.game.num_actions
        self._wait = -1 if self.wait_action is None else self.wait_action
        n = self.game.num_players
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        obs_space, act_space = make_spaces(self.game, extra_actions=int(self.wait_action is not None))
        self.observation_spaces = per_agent(obs_space, self.possible_agents)
        self.action_spaces = per_agent(act_space, self.possible_agents)
        self.state_space = spaces.Box(low=np.tile(obs_space["observation"].low, n),
                                      high=np.tile(obs_space["observation"].high, n), dtype=np.float32)

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call; each agent has its own).

        Raises:
            KeyError: ``agent`` is not an agent of this env (the message lists them).
        """
        return self.observation_spaces[self.possible_agents[_seat_of(self, agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call; each agent has its own).

        Raises:
            KeyError: ``agent`` is not an agent of this env (the message lists them).
        """
        return self.action_spaces[self.possible_agents[_seat_of(self, agent)]]

    __getstate__ = _whole_env_state
    __setstate__ = _set_whole_env_state
    __copy__ = _deep_copy

    @property
    def state_record(self) -> np.void:
        """The engine record of the running game (a live view; copy it before changing it).

        Raises:
            RuntimeError: before the first reset.
        """
        self._t.require_game("state_record")
        return self._t.s

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._t.observe(self._seat[agent], self._wait)

    def acting_agents(self) -> list[str]:
        """The agents whose game action the next :meth:`step` applies (the others wait).

        Raises:
            RuntimeError: before the first reset.
        """
        if not self.agents:
            return []
        return [a for p, a in enumerate(self.possible_agents) if self._t.is_acting(p)]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Start a new game.

        Args:
            seed: seeds the game's RNG.
            options: ``{"deal": [[cards of player 0], ...]}`` fixes the first deal.

        Returns:
            Observations and infos of every agent.

        Raises:
            ValueError: an invalid deal.
        """
        self._t.reset(seed, options)
        self.agents = [] if self._t.terminal() else self.possible_agents[:]
        return ({a: self._observe(a) for a in self.possible_agents},
                {a: {} for a in self.possible_agents})

    def _checked_actions(self, actions: Any, acting: list[str]) -> dict[str, Any]:
        """``actions`` as given for every live agent (``None`` where left out), after the checks of its shape.

        Raises:
            ValueError: not a dict, a key that is not a live agent, or no action for an agent that must act.
        """
        live = self.agents
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict agent -> action for the live agents {live}, "
                             f"got {type(actions).__name__} {actions!r:.60}")
        unknown = [a for a in actions if a not in live]
        if unknown:
            raise ValueError(f"actions for {unknown}, which are not agents of this game; the live agents "
                             f"are {live} (the agents to act now: {acting})")
        missing = [a for a in acting if actions.get(a) is None]
        if missing:
            raise ValueError(f"no action for {missing}; the agents to act now are {acting}")
        return {a: actions.get(a) for a in live}

    def _illegal(self, acting: list[str], given: dict[str, Any]) -> tuple[dict[str, int | None], dict[str, str]]:
        """The action ids of the live agents, and why each offender's action is illegal (seat order).

        An action is an integer id by :class:`Game`'s rule; an idle agent's only
        legal action is the wait (or none); an acting agent's must be in its mask.
        """
        t, game, wait = self._t, self.game, self.wait_action
        ids: dict[str, int | None] = {}
        why: dict[str, str] = {}
        refused: list[str] = []  # integer game actions the engine refuses
        for a in self.agents:
            if given[a] is None:  # an idle agent that left its wait out
                ids[a] = None
                continue
            try:
                ids[a] = game._action_id(given[a], t.s)  # the integer rule of Game, in one place
            except IllegalActionError as e:
                ids[a] = None
                role = "it must act now" if a in acting else f"its only legal action is the wait action {wait}"
                why[a] = f"{a}: {e} ({role})"
                continue
            if a not in acting:
                if ids[a] != wait:
                    why[a] = (f"{a} does not act in this step (the agents to act are {acting}); its only legal "
                              f"action is the wait action {wait}, not {given[a]!r}")
            elif wait is not None and ids[a] == wait:
                why[a] = (f"{a} must act; the wait action {wait} is only for seats not to move "
                          f"(the agents to act now are {acting})")
            else:
                t._mask_count(t.buf, self._seat[a], t.mask)
                if not (0 <= ids[a] < t.num_actions and t.mask[ids[a]]):
                    refused.append(a)
        if refused:
            why.update(self._engine_reasons(acting, ids, refused))
        return ids, {a: why[a] for a in self.agents if a in why}

    def _engine_reasons(self, acting: list[str], ids: dict[str, int | None], refused: list[str]) -> dict[str, str]:
        """The engine's own message for each refused action, replayed on a copy in seat order.

        A seat before an offender plays its own action where legal, else its
        first legal one, so that each offender is judged where the engine would judge it.
        """
        t, game = self._t, self.game
        trial, out = game.clone(t.s), {}
        for a in acting:
            if a in refused:
                try:
                    game.apply_action(trial, ids[a])
                except IllegalActionError as e:
                    out[a] = f"{a}: {e}"
                else:  # pragma: no cover (the kernel and the mask agree)
                    out[a] = f"{a}: action {ids[a]} is not in its legal mask"
                    continue
            own = ids[a]
            legal = game.legal_actions(trial)
            game.apply_action(trial, own if a not in refused and own in legal else legal[0])  # [0]: a stand-in
        return out

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the actions of the seats that act now; the others wait.

        Args:
            actions: agent -> action for the live agents. Every acting agent
                needs one; an idle agent's may be :attr:`wait_action` or left out.
                An action is an integer id (as in :class:`Game`: not a float,
                a bool or a string).

        Returns:
            ``observations, rewards, terminations, truncations, infos`` of
            every agent live before the step. Under ``illegal_action="terminate"``
            an offender's info says why its action was illegal (``"illegal_action"``),
            and the final observations' masks are all zero, as at a natural end.

        Raises:
            ValueError: ``actions`` is not a dict, names an agent that is not
                live, or has no action for an agent that must act (nothing changes).
            IllegalActionError: an illegal action (not an action id, the wait
                action for an agent that must act, a game action for an idle
                agent, a move the rules refuse) under ``illegal_action="raise"``;
                the message names every offender and why; nothing changes.
            RuntimeError: before the first reset, or the game is over (call :meth:`reset`).
        """
        self._t.require_game("step()")
        live = self.agents[:]
        if not live:
            raise RuntimeError("the game is over; call reset()")
        t = self._t
        acting = self.acting_agents()
        ids, illegal = self._illegal(acting, self._checked_actions(actions, acting))
        if illegal and self.illegal_action == "raise":
            raise IllegalActionError("; ".join(illegal.values()))
        rewards = dict.fromkeys(live, 0.0)
        infos: dict[str, dict[str, Any]] = {a: {} for a in live}
        truncated = False
        if illegal:
            for a, why in illegal.items():
                rewards[a] = self.illegal_reward
                infos[a]["illegal_action"] = why
            done = True
        else:
            total = np.zeros(len(self.possible_agents), dtype=np.float64)
            for a in acting:
                if t.acting_seat != self._seat[a]:
                    raise RuntimeError(  # pragma: no cover
                        f"engine expected seat {t.acting_seat} to act, not {a}")
                total += t.play(ids[a])[: len(total)]
            for a in live:
                rewards[a] = float(total[self._seat[a]])
            done, truncated = t.terminal(), t.truncated()
        if done:
            self.agents = []
        obs = {a: self._observe(a) for a in live}
        if illegal:  # the record is left as it was, with live masks: the game is over, as at a natural end
            for o in obs.values():
                o["action_mask"][:] = 0
        terminations = dict.fromkeys(live, done and not truncated)
        truncations = dict.fromkeys(live, truncated)
        if self.render_mode == "human":
            t.render()
        return obs, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """Global state: every seat's information state concatenated in seat order."""
        return self._t.state_vector()

    def render(self) -> str | np.ndarray | None:
        """The table as text (``"ansi"``), printed (``"human"``), a picture (``"rgb_array"``)."""
        return self._t.render()

    def close(self) -> None:
        """Nothing to release (pictures are drawn off screen)."""


def _variant_of(game: str, variant: str | None) -> str:
    """``variant`` (default: ``game``) if it is a variant of ``game``.

    Raises:
        ValueError: naming ``variant`` and the valid values (the names of ``game``'s variants).
    """
    if variant is None:
        return game
    valid = [v.name for v in catalogue.game_spec(game).variants]
    valid += [game] if game not in valid else []  # the game's own name: its seed variant (octa: octa-en)
    if variant not in valid:
        raise ValueError(f"variant={variant!r} is not valid for {game}; valid values: {valid} "
                         f"(make_env(name) builds any game's variant)")
    return variant


def define_envs(game: str, module: str) -> tuple[type, type, Any, Any]:
    """The four names of an ``envs/<game>_v0.py`` module, built for one game.

    Call it at module level as
    ``raw_env, parallel_raw_env, env, parallel_env = define_envs("octrix", __name__)``;
    the classes then belong to that module (so they pickle) and the env's
    name is the module's last component (``octrix_v0``).

    Returns:
        ``(raw_env, parallel_raw_env, env, parallel_env)``: the unwrapped AEC env
        class (raises on illegal actions), the Parallel env class, and the
        factories ``env(**kwargs)`` (AEC with PettingZoo's classic wrappers: an
        illegal move ends the game with -1 for the offender) and
        ``parallel_env(**kwargs)``; ``kwargs`` are ``variant`` (one of the game's
        variants, default the seed's game), ``render_mode`` and the game's config
        fields over the variant's (plus ``illegal_action`` / ``illegal_reward`` for
        the Parallel env).
    """

    env_name = module.rsplit(".", 1)[-1]
    modes = render_modes(game)

    class raw_env(GameAECEnv):
        __doc__ = f"The unwrapped {game} AEC env (raises on illegal actions)."
        metadata: ClassVar[dict[str, Any]] = {**GameAECEnv.metadata, "render_modes": modes, "name": env_name}
        GAME = game

        def __init__(self, render_mode: str | None = None, variant: str | None = None, **config: Any):
            super().__init__(_variant_of(game, variant), render_mode=render_mode, **config)

    class parallel_raw_env(GameParallelEnv):
        __doc__ = f"The {game} Parallel env."
        metadata: ClassVar[dict[str, Any]] = {**GameParallelEnv.metadata, "render_modes": modes,
                                              "name": env_name}
        GAME = game

        def __init__(self, render_mode: str | None = None, illegal_action: str = "terminate",
                     illegal_reward: float = -1.0, variant: str | None = None, **config: Any):
            super().__init__(_variant_of(game, variant), render_mode=render_mode,
                             illegal_action=illegal_action, illegal_reward=illegal_reward, **config)

    def env(**kwargs: Any) -> AECEnv:
        """The AEC env with the PettingZoo classic wrappers (an illegal move: -1, game over)."""
        return wrap_aec(raw_env(**kwargs))

    def parallel_env(**kwargs: Any) -> GameParallelEnv:
        """The Parallel env."""
        return parallel_raw_env(**kwargs)

    for obj, name in ((raw_env, "raw_env"), (parallel_raw_env, "parallel_raw_env"), (env, "env"),
                      (parallel_env, "parallel_env")):
        obj.__module__, obj.__qualname__, obj.__name__ = module, name, name
    return raw_env, parallel_raw_env, env, parallel_env


def make_env(name: str, **kwargs: Any) -> AECEnv:
    """The AEC env of any variant, with PettingZoo's classic wrappers (as a game module's ``env()``).

    Args:
        name: a variant or game name of the catalogue (``"octa-nl"``, ``"octrix-round"``).
        **kwargs: ``render_mode`` and config fields over the variant's (``num_players=3``).

    Returns:
        The wrapped env; ``env.unwrapped`` is a :class:`GameAECEnv`.

    Raises:
        ValueError: an unknown name (the valid names are listed), a bad config value or render mode.
    """
    return wrap_aec(GameAECEnv(name, **kwargs))


def make_parallel_env(name: str, **kwargs: Any) -> GameParallelEnv:
    """The Parallel env of any variant (as a game module's ``parallel_env()``).

    Args:
        name: a variant or game name of the catalogue (``"octa-nl"``, ``"octrix-partnership"``).
        **kwargs: ``render_mode``, ``illegal_action``, ``illegal_reward``, and config fields over
            the variant's.

    Returns:
        The :class:`GameParallelEnv`.

    Raises:
        ValueError: an unknown name (the valid names are listed), a bad config value, render mode,
            illegal-action mode or illegal reward.
    """
    return GameParallelEnv(name, **kwargs)
