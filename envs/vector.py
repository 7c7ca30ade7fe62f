"""A batched self-play environment for every game that follows the engine contract.

    >>> from octagames.envs.vector import make
    >>> env = make("octrix", num_envs=4096, seed=0, num_players=2)
    >>> obs, info = env.reset()
    >>> actions = env.sample_actions()          # or your policy, masked by info["action_mask"]
    >>> obs, rewards, terminated, truncated, info = env.step(actions)

* ``obs`` is ``[N, D]`` float32: the information state of the seat to move in each game
  (or compact integers, see below).
* ``info["player"]`` is ``[N]``: that seat; ``info["action_mask"]`` is ``[N, A]`` bool (as Pgx's
  ``legal_action_mask``; torch's ``masked_fill`` and ``torch.where`` take it as it is).
* ``rewards`` is ``[N, P]``: every seat's reward for this step (returns are
  paid when a game ends, so rewards are zero-sum).
* A finished game restarts at once inside ``step`` (``terminated[i]`` is True
  and ``obs[i]`` already belongs to the new game), seeded from the finished
  game's own RNG, so a run is reproducible from ``seed``. Game ``i`` first starts from a
  seed mixed from ``(seed, i)`` (:func:`game_seeds`), so runs at different seeds deal
  independently. A game stopped by an engine safety bound that is not a rule (Achten's turn
  cap) is flagged in ``truncated[i]`` instead, and restarts the same way.
  ``env.final_observation(players)`` gives the last position of each game that ended in the last
  step, as any seat sees it (to bootstrap a truncated game's value; Gymnasium's ``final_obs``).
* Simultaneous moves are taken in turn, lowest pending seat first; a card
  committed that way stays hidden from the other seats' observations until the
  whole step is revealed, exactly as in the engine.
* One call steps all N games in compiled code (numba). The batch is split
  into slices of at least :data:`MIN_SLICE` games stepped on ``num_threads``
  threads (default: the cores this process may run on, :func:`cpu_count`; the
  kernels release the GIL). A worker thread that finished its slice polls for
  the next one for a moment (:data:`octagames.envs._slices.POLL_SECONDS`) before
  it sleeps, so a hand-over costs microseconds, not a kernel wake-up. Every game keeps its own
  RNG, so the results are bit-identical for any thread count.

Compact observations (``obs_dtype="uint8"`` or ``"uint16"``; default ``"float32"``)::

    >>> env = make("achten", num_envs=4096, seed=0, obs_dtype="uint8")
    >>> env.reset()
    >>> env.step_inplace(env.sample_actions())
    >>> x = torch.from_numpy(env.obs)              # no copy: [N, D] uint8
    >>> x = x.to("cuda").float() / torch.from_numpy(env.obs_divisor).to("cuda")

* Every entry of a float32 observation is ``k / d`` with ``k`` a small
  integer and ``d`` fixed by the game and config (1 for the 0/1 entries); a
  compact observation holds ``k``. ``obs / env.obs_divisor``, divided in float32
  (numpy or torch, CPU or GPU: IEEE division), is bit-identical to the float32
  observation. Divide; a multiplication by ``1 / obs_divisor`` may differ in the
  last bit. The game declares ``d`` (``observation_divisors(config)`` in its
  package); ``"uint8"`` is refused with ValueError under a config where some
  ``k`` may pass 255 (long matches, Octiles' turn counter with ``max_turns`` over
  255): use ``"uint16"`` there.
* ``torch.from_numpy`` shares the buffer (no copy) for both dtypes; torch's
  ``uint16`` has few operations (a copy and ``.float()`` work on CPU with
  torch 2.13): prefer ``"uint8"`` where the config allows it.
* The compact buffer is the env's own: :attr:`VectorEnv.obs` and the arrays of
  :meth:`VectorEnv.step_inplace` are views overwritten by the next step (copy
  what you keep; :meth:`VectorEnv.step` returns copies). Only the seat about
  to act in each game is observed.

No rule lives here: everything is the game's own kernels.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Mapping

import numpy as np
from numpy.typing import DTypeLike

from octagames.core import CHANCE, TERMINAL, Game, check_seed
from octagames.envs._slices import SlicePool
from octagames.specialize import batch_kernels

#: fewest games per slice stepped on a thread (smaller slices cost more in threading than they save)
MIN_SLICE = 256
#: games whose records are at least this large (Octa's, 2.6 kB; 4.3 kB before 2026-12-06) are stepped in chunks of about
#: :data:`CHUNK_BYTES` of records, observations and masks: the records the rules just wrote are still in
#: the cache when the observations read them. Smaller records cost less to read again than the calls
#: of more chunks (measured on one thread: Octa 1.03-1.13 times the steps; Octiles, Achten and Octrix,
#: chunked all the same, 0.76-1.07, no gain)
CHUNK_RECORD_BYTES = 1024
CHUNK_BYTES = 4 << 20
#: the observation dtypes of :class:`VectorEnv` (``obs_dtype``)
OBS_DTYPES = ("float32", "uint8", "uint16")


class VectorEnv:
    """N independent games of one config, stepped together.

    Args:
        game: a game (``octrix``, ``achten``, ``octiles``, ``octa``: its seed variant) or a variant
            of :mod:`octagames.catalogue` (``octrix-round``, ``octa-nl``, ...; ``octagames list``
            prints them); ``config`` fields go over the variant's.
        num_envs: number of games N (>= 1).
        seed: game ``i`` starts from a seed mixed from ``(seed, i)`` (:func:`game_seeds`);
            :meth:`sample_actions` draws from it too. An integer in ``0..2**63-1``.
        num_threads: most threads stepping slices of the batch (default: the
            cores available, :func:`cpu_count`); a slice holds at least
            :data:`MIN_SLICE` games. Results do not depend on it.
        obs_dtype: ``"float32"`` (default), or ``"uint8"`` / ``"uint16"`` for
            compact observations (see the module docstring and :attr:`obs_divisor`); a numpy
            dtype of one is taken by its name (``np.uint8``).
        **config: the game's config fields (``num_players``, ...).

    Raises:
        ValueError: unknown game, bad ``num_envs``, ``seed``, ``num_threads``, ``obs_dtype``
            or config field; ``obs_dtype`` too narrow for this config.
    """

    #: the smallest batch stepped on more than one thread (two slices of :data:`MIN_SLICE`)
    PARALLEL_MIN_BATCH = 2 * MIN_SLICE

    def __init__(self, game: str, num_envs: int, seed: int = 0, num_threads: int | None = None,
                 obs_dtype: DTypeLike = "float32", **config: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not valid; it must be an integer >= 1")
        self._build(Game(game, **config), num_envs, seed, num_threads, obs_dtype)

    def _build(self, game: Game, num_envs: int, seed: int, num_threads: int | None,
               obs_dtype: DTypeLike = "float32") -> None:
        self.game = game
        self.num_envs = int(num_envs)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.game.observation_size
        self.seed = check_seed(seed)
        if num_threads is None:
            num_threads = cpu_count()
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or num_threads < 1:
            raise ValueError(f"num_threads={num_threads!r} is not valid; it must be an integer >= 1")
        obs_dtype = obs_dtype_name(obs_dtype)
        #: the observations' dtype (``obs_dtype``), by name: ``"float32"``, ``"uint8"`` or ``"uint16"``
        self.obs_dtype: str = obs_dtype
        #: float32 ``[D]``: a float32 observation is ``obs / obs_divisor`` (all ones for float32 envs)
        self.obs_divisor: np.ndarray = observation_divisors(self.game, obs_dtype)
        self._k = batch_kernels(self.game.kernel_module)
        self.num_threads = int(num_threads)
        parts = max(1, min(self.num_threads, self.num_envs // MIN_SLICE))
        bounds = np.linspace(0, self.num_envs, parts + 1).astype(int)
        self._slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self._pool = SlicePool(parts - 1) if parts > 1 else None
        # the kernels' divisor: empty for float32 (they write the game's floats as they are)
        self._divisor = np.zeros(0, np.float32) if obs_dtype == "float32" else _kernel_divisor(self.obs_divisor,
                                                                                               obs_dtype)
        n, info = self.num_envs, self.game.info
        self.states = self.game.new_batch(n)  # placeholders: reset() (or set_state) seeds every game
        self._obs = np.zeros((n, self.observation_size), dtype=np.dtype(obs_dtype))
        self._mask = np.zeros((n, self.num_actions), dtype=np.uint8)
        # the kernels' own copy of the masks: a move it allows skips the engine's second check, and
        # the caller may change action_mask without letting an illegal move through
        self._legal = np.zeros((n, self.num_actions), dtype=np.uint8)
        self._player = np.zeros(n, dtype=np.int64)
        self._rew = np.zeros((n, info.max_players), dtype=np.float64)
        self._term = np.zeros(n, dtype=np.bool_)
        self._scratch = np.zeros((n, info.max_players), dtype=np.float64)
        self._trunc = np.zeros(n, dtype=np.bool_)
        # each game that ended in the last step, as it ended (:meth:`final_observation`); rows of the others stale
        self._final = self.game.new_batch(n)
        self._final_valid = False  # whether the last call was a step (not reset or set_state)
        # game i's first seed and its sampler's, mixed from (seed, i) once per seed
        self._game_seeds, self._sample_seeds = _seeds(self.seed, n)
        self._actions = np.zeros(n, dtype=np.int64)
        # games per chunk of a step (see CHUNK_RECORD_BYTES)
        per_game = self.states.dtype.itemsize + self._obs[0].nbytes + 2 * self.num_actions
        self._chunk = (max(MIN_SLICE, CHUNK_BYTES // per_game) if self.states.dtype.itemsize >= CHUNK_RECORD_BYTES
                       else n)
        self._ready = False

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Start all N games (game ``i`` from ``game_seeds(seed, N)[i]``); returns ``(obs, info)``.

        Args:
            seed: a new seed: the games and :meth:`sample_actions` go on exactly as those of a
                fresh env built with it. Without one the games restart from the env's seed and
                :meth:`sample_actions` goes on with its own sequence.

        Raises:
            ValueError: ``seed`` is not an integer in ``0..2**63-1``; nothing changes.
        """
        if seed is not None:
            self.seed = check_seed(seed)
            self._game_seeds, self._sample_seeds[:] = _seeds(self.seed, self.num_envs)
        self._run(self._k.reset_batch, self.states, self._game_seeds)
        self._final_valid = False
        self._emit()
        self._ready = True
        return self._obs.copy(), self._info()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                 dict[str, np.ndarray]]:
        """Apply one action per game for the seat to move.

        Returns:
            ``(obs [N, D], rewards [N, P], terminated [N], truncated [N], info)``.

        Raises:
            RuntimeError: ``reset`` was not called.
            ValueError: wrong shape, or an action that is illegal in its game; no
                game is changed in that case.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = self._action_array(actions)
        ok = (a >= 0) & (a < self.num_actions)
        ok[ok] = self._legal[np.flatnonzero(ok), a[ok]] == 1  # the kernels' own copy of the masks
        if not ok.all():
            bad = np.flatnonzero(~ok)[:5]
            parts = []
            for i in bad:
                p = int(self._player[i])
                if 0 <= a[i] < self.num_actions:
                    name = self.game.action_to_string(self.states[i], int(a[i]))
                    why = self.game.module.illegal_reason(self.states[i], p, int(a[i]))
                else:
                    name, why = "out of range", f"actions are 0..{self.num_actions - 1}"
                parts.append(f"env {i}: player {p} cannot play action {int(a[i])} ({name}): {why}")
            raise ValueError("illegal actions, no game was stepped; " + "; ".join(parts))
        self._actions[:] = a
        self._step()
        return (self._obs.copy(), self.rewards.copy(), self._term.copy(),
                self._trunc.copy(), self._info())

    def step_inplace(self, actions: np.ndarray) -> None:
        """Like :meth:`step` for trusted actions, without copies or legality checks.

        The results are in :attr:`obs`, :attr:`rewards`, :attr:`terminated`,
        :attr:`action_mask` and :attr:`player` (views, overwritten by the next
        call). Trainers use this; an illegal action here is refused by the
        engine and leaves that game unchanged.

        Raises:
            RuntimeError: ``reset`` was not called (the records are placeholders until then).
            ValueError: ``actions`` is not an integer array of shape ``[N]`` (a float is refused, not
                truncated; a scalar is not one action per game); nothing is stepped.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step_inplace()")
        self._actions[:] = self._action_array(actions)
        self._step()

    def _action_array(self, actions: Any) -> np.ndarray:
        """``actions`` as an array, if it is one integer per game (:meth:`step`, :meth:`step_inplace`)."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":  # signed or unsigned integers (not bool)
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), "
                             f"got {a.dtype} {a.shape}")
        return a

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (reproducible from ``seed``).

        Raises:
            RuntimeError: before :meth:`reset` (there are no games to act in yet).
        """
        if not self._ready:
            raise RuntimeError("call reset() before sample_actions()")
        out = np.zeros(self.num_envs, dtype=np.int64)
        self._run(self._k.random_actions, self._mask, self._sample_seeds, out)
        return out

    @property
    def obs(self) -> np.ndarray:
        """Current observations ``[N, D]`` of dtype :attr:`obs_dtype` (the env's buffer, overwritten by every step)."""
        return self._obs

    @property
    def action_mask(self) -> np.ndarray:
        """Current legal masks ``[N, A]`` bool (a view)."""
        return self._mask.view(np.bool_)  # the kernels write 0/1 bytes: a bool view costs nothing

    @property
    def player(self) -> np.ndarray:
        """Seat to move in every game ``[N]`` (a view)."""
        return self._player

    @property
    def rewards(self) -> np.ndarray:
        """Rewards of the last step ``[N, num_players]``, as :meth:`step` returns them (a view)."""
        return self._rew[:, : self.num_players]  # the kernels write max_players columns

    @property
    def terminated(self) -> np.ndarray:
        """Which games ended in the last step ``[N]`` (a view)."""
        return self._term

    @property
    def truncated(self) -> np.ndarray:
        """Which games stopped at an engine safety bound (not a rule) in the last step ``[N]`` (a view)."""
        return self._trunc

    def observe(self, players: np.ndarray) -> np.ndarray:
        """Observations ``[N, D]`` (a new array of dtype :attr:`obs_dtype`) of the given seat in every game.

        Raises:
            ValueError: ``players`` is not an integer array of shape ``[N]`` with seats in
                ``0..num_players-1``.
            RuntimeError: before :meth:`reset`.
        """
        if not self._ready:
            raise RuntimeError("call reset() before observe()")
        seats = self._seats(players)
        out = np.empty((self.num_envs, self.observation_size), dtype=self._obs.dtype)  # every row is written
        self._run(self._k.observe_batch, self.states, seats.astype(np.int64), out, shared=(self._divisor,))
        return out

    def _seats(self, players: Any) -> np.ndarray:
        """``players`` as an array, if it is one seat per game (:meth:`observe`, :meth:`final_observation`)."""
        seats = np.asarray(players)
        if seats.shape != (self.num_envs,) or not np.issubdtype(seats.dtype, np.integer):
            raise ValueError(f"players must be an integer array of shape ({self.num_envs},), "
                             f"got {seats.dtype} {seats.shape}")
        bad = np.flatnonzero((seats < 0) | (seats >= self.num_players))
        if bad.size:
            raise ValueError(f"players[{int(bad[0])}] = {int(seats[bad[0]])} is not a seat; "
                             f"valid values: 0..{self.num_players - 1}")
        return seats

    def final_observation(self, players: np.ndarray) -> np.ndarray:
        """Observations ``[N, D]`` (a new array of dtype :attr:`obs_dtype`) of seat ``players[i]`` in game ``i``
        as it ended, for every game that ended in the last :meth:`step` (``terminated`` or ``truncated``); zeros
        in the rows of the other games, and in every row after :meth:`reset` or :meth:`set_state` (so in a copied,
        pickled or Ray-shipped env until its next step, although its ``terminated`` and ``truncated`` are kept:
        the ended records are not part of :meth:`get_state`).

        A game that ends restarts inside the step, so :attr:`obs` already belongs to the next game; this is the
        last position of the one that ended (Gymnasium's ``final_obs``): the value of a game an engine bound
        truncated can be bootstrapped from it.

        Raises:
            ValueError: ``players`` is not an integer array of shape ``[N]`` with seats in
                ``0..num_players-1``.
            RuntimeError: before :meth:`reset`.
        """
        if not self._ready:
            raise RuntimeError("call reset() before final_observation()")
        seats = self._seats(players).astype(np.int64)
        seats[~((self._term | self._trunc) & self._final_valid)] = -1  # observe_batch writes zeros there
        out = np.empty((self.num_envs, self.observation_size), dtype=self._obs.dtype)  # every row is written
        self._run(self._k.observe_batch, self._final, seats, out, shared=(self._divisor,))
        return out

    _STATE_ARRAYS = ("states", "_obs", "_mask", "_player", "_rew", "_term", "_trunc", "_scratch", "_sample_seeds")

    def get_state(self) -> dict[str, np.ndarray]:
        """Copies of everything that determines the env's future (records, buffers, sampling seeds, and the seed
        whose games :meth:`reset` deals again, a 0-d ``int64`` array ``"seed"``)."""
        if not self._ready:
            raise RuntimeError("call reset() before get_state()")
        return {**{k.lstrip("_"): getattr(self, k).copy() for k in self._STATE_ARRAYS},
                "seed": np.array(self.seed, dtype=np.int64)}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore :meth:`get_state` into an env built with the same game, config and size.

        Saved states are untrusted input: every game record is checked
        (:meth:`octagames.core.Game.check_record`: this game, this config, fields in
        range), and the observations, masks and seats to act are recomputed from
        the records rather than trusted.

        The state's ``"seed"`` becomes this env's: a later :meth:`reset` deals that seed's games (a state saved
        before it was kept has none, and this env's seed stays).

        Raises:
            ValueError: not a dict, a missing array, one of another shape or dtype (records of an
                earlier layout of the game's record are read, :meth:`octagames.core.Game.relayout`), an invalid
                record (naming the game and the field), a seed that is not an integer in ``0..2**63-1``, or a
                game at a chance node or over (a vector env's games wait for a seat); the env is unchanged then.
        """
        if not isinstance(state, Mapping):
            raise ValueError(f"state must be a dict of arrays as get_state() returns, got {type(state).__name__}")
        records = state.get("states")
        if isinstance(records, np.ndarray) and records.dtype.names and records.dtype != self.states.dtype:
            try:  # saved by an earlier version whose record was laid out otherwise (Game.relayout)
                state = {**state, "states": self.game.relayout(records)}
            except ValueError as e:
                raise ValueError(f"state['states']: {e}") from None
        for k in self._STATE_ARRAYS:
            mine, theirs = getattr(self, k), state.get(k.lstrip("_"))
            if not isinstance(theirs, np.ndarray) or theirs.shape != mine.shape or theirs.dtype != mine.dtype:
                raise ValueError(f"state[{k.lstrip('_')!r}] does not fit this env "
                                 f"(expected {mine.dtype} {mine.shape})")
        records = state["states"]
        for i in range(self.num_envs):
            try:
                self.game.check_record(records[i])
            except ValueError as e:
                raise ValueError(f"state['states'][{i}]: {e}") from None
            if self.game.current_player(records[i]) in (CHANCE, TERMINAL):  # get_state never gives one
                where = "over" if self.game.is_terminal(records[i]) else "at a chance node"
                raise ValueError(f"state['states'][{i}]: the game is {where}; the games of a vector env wait "
                                 f"for a seat to act (Game.play_chance settles chance)")
        seed = self.seed
        if "seed" in state:  # (a state saved before get_state kept it has none)
            theirs = state["seed"]
            if not (isinstance(theirs, np.ndarray) and theirs.shape == () and theirs.dtype.kind in "iu"):
                raise ValueError("state['seed'] does not fit this env (expected a 0-d integer array)")
            seed = check_seed(int(theirs), field="state['seed']")
        for k in self._STATE_ARRAYS:
            getattr(self, k)[...] = state[k.lstrip("_")]
        if seed != self.seed:
            self.seed = seed
            self._game_seeds = _seeds(seed, self.num_envs)[0]
        self._final_valid = False
        self._emit()
        self._ready = True

    def close(self) -> None:
        """Stop the worker threads; later steps run the whole batch on the calling thread."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __reduce__(self) -> tuple[Any, ...]:
        # by game, config and size, plus the game records and buffers: compiled kernels and
        # worker threads are rebuilt on the other side (spawned workers, Ray, deepcopy)
        state = self.get_state() if self._ready else None
        return (_restore, (self.game, self.num_envs, self.seed, self.num_threads, state, self.obs_dtype))

    # the step and the seat's mask are compiled once per game config; the observation, once per dtype
    def _step(self) -> None:
        self._run(self._step_slice, self.states, self._actions, self._obs, self._mask, self._legal, self._player,
                  self._rew, self._term, self._trunc, self._scratch, self._final, shared=(self._divisor,))
        self._final_valid = True

    def _step_slice(self, states, actions, obs, mask, legal, player, rew, term, trunc, scratch, final,
                    divisor) -> None:
        n = states.shape[0]
        parts = max(1, round(n / self._chunk))  # equal chunks of about self._chunk games
        if parts == 1:
            self._k.step_batch(states, actions, mask, legal, player, rew, term, trunc, scratch, final)
            self._k.observe_batch(states, player, obs, divisor)
            return
        size = -(-n // parts)
        for a in range(0, n, size):
            c = slice(a, a + size)
            self._k.step_batch(states[c], actions[c], mask[c], legal[c], player[c], rew[c], term[c], trunc[c],
                               scratch[c], final[c])
            self._k.observe_batch(states[c], player[c], obs[c], divisor)

    def _emit(self) -> None:
        # every game's seat to act, its legal mask and its observation, from the records
        self._run(self._emit_slice, self.states, self._obs, self._mask, self._legal, self._player,
                  shared=(self._divisor,))

    def _emit_slice(self, states, obs, mask, legal, player, divisor) -> None:
        self._k.seat_batch(states, mask, legal, player)
        self._k.observe_batch(states, player, obs, divisor)

    def _run(self, kernel, *arrays: np.ndarray, shared: tuple[np.ndarray, ...] = ()) -> None:
        # every argument is an array over the batch and each thread steps one slice of it,
        # except ``shared`` (passed whole to every slice); the calling thread steps the first slice
        if self._pool is None:
            kernel(*arrays, *shared)
            return
        self._pool.run(kernel, [*(a[self._slices[0]] for a in arrays), *shared],
                       [[*(a[sl] for a in arrays), *shared] for sl in self._slices[1:]])

    def _info(self) -> dict[str, np.ndarray]:
        return {"action_mask": self._mask.view(np.bool_).copy(), "player": self._player.copy()}


def _seeds(seed: int, num_envs: int) -> tuple[np.ndarray, np.ndarray]:
    """Game ``i``'s first seed (int64, :func:`game_seeds`) and its :meth:`VectorEnv.sample_actions`
    generator's seed (uint64), both ``[num_envs]`` and mixed from ``(seed, i)``.

    Two 64-bit words per game: the first, halved, seeds the game, the second its sampler. One
    :class:`numpy.random.SeedSequence` hashes the whole batch (about 1 ms for 4096 games); its word
    ``k`` does not depend on how many are drawn, so game ``i`` of a seed is the same in a batch of
    any size. Different seeds give unrelated words: unlike ``seed + i`` (the old rule), game ``i``
    at seed 1 is not game ``i + 1`` at seed 0.
    """
    words = np.random.SeedSequence(int(seed)).generate_state(2 * num_envs, np.uint64).reshape(num_envs, 2)
    return (words[:, 0] >> np.uint64(1)).astype(np.int64), words[:, 1].copy()


def game_seeds(seed: int, num_envs: int) -> np.ndarray:
    """The engine seeds (int64 ``[num_envs]``, in ``0..2**63-1``) games ``0..num_envs-1`` start from.

    Game ``i`` of a :class:`VectorEnv` built (or reset) with ``seed`` is the engine game
    ``Game.new_state(game_seeds(seed, num_envs)[i])``. Its automatic restarts are seeded from its
    own RNG (a SplitMix64 stream started from this seed); with the first seeds independent, so are
    those streams (two overlap only if their states are a few steps apart, odds of about
    ``steps / 2**64``), so a game's later deals are as independent of other games and seeds as
    its first.
    """
    return _seeds(seed, num_envs)[0]


def _restore(game: Game, num_envs: int, seed: int, num_threads: int,
             state: dict[str, np.ndarray] | None, obs_dtype: str = "float32") -> VectorEnv:
    env = VectorEnv.__new__(VectorEnv)
    env._build(game, num_envs, seed, num_threads, obs_dtype)
    if state is not None:
        env.set_state(state)
    return env


def make(game: str, num_envs: int, seed: int = 0, **config: Any) -> VectorEnv:
    """Build a :class:`VectorEnv`: ``make("octrix-round", 4096, seed=0, num_players=3, obs_dtype="uint8")``.

    Args:
        game: a game or variant name (``octrix``, the match to 88; ``octrix-round``, ``octa-nl``, ...).
        num_envs: number of games N (>= 1).
        seed: game ``i`` starts from a seed mixed from ``(seed, i)`` (:func:`game_seeds`); an integer
            in ``0..2**63-1``.
        **config: ``num_threads`` and ``obs_dtype`` of :class:`VectorEnv`, and the game's config
            fields over the variant's (``num_players``, ...).

    Returns:
        The env, before its first :meth:`VectorEnv.reset`.

    Raises:
        ValueError: an unknown game or variant, a bad ``num_envs``, ``seed``, ``num_threads``,
            ``obs_dtype`` or config field, or an ``obs_dtype`` too narrow for the config (the
            match to 88 keeps scores past 255: ``make("octrix", ..., obs_dtype="uint8")`` is
            refused, naming ``uint16``).
    """
    return VectorEnv(game, num_envs, seed, **config)


def obs_dtype_name(obs_dtype: DTypeLike) -> str:
    """``obs_dtype`` by its name in :data:`OBS_DTYPES`: a name, or a numpy dtype or scalar type of one
    (``np.uint8``, ``np.dtype("uint8")``, ``"u1"``), so that :attr:`VectorEnv.obs_dtype` is always the name.

    Raises:
        ValueError: ``obs_dtype`` names no dtype of :data:`OBS_DTYPES`.
    """
    try:
        name = np.dtype(obs_dtype).name if obs_dtype is not None else None
    except TypeError:  # not a dtype at all ("int", a torch dtype, ...)
        name = None
    if name not in OBS_DTYPES:
        raise ValueError(f"obs_dtype={obs_dtype!r} is not valid; valid values: {list(OBS_DTYPES)}")
    return name


def observation_divisors(game: Game, obs_dtype: DTypeLike = "uint8") -> np.ndarray:
    """The divisors of ``game``'s observation: float32 ``[D]``, ``obs / divisors`` is the float32 observation.

    Read from ``observation_divisors(config)`` of the game's ``encoding`` module (the
    game's package, beside its observation), checked against ``obs_dtype``.

    Args:
        game: the game and config.
        obs_dtype: one of :data:`OBS_DTYPES` (or a numpy dtype of one, :func:`obs_dtype_name`); ``"float32"``
            gives all ones.

    Raises:
        ValueError: ``obs_dtype`` is not one of :data:`OBS_DTYPES`; the game declares no
            divisors; or under this config some entry's integer may pass the dtype's
            largest value (naming the observation block and the dtypes that hold it).
    """
    obs_dtype = obs_dtype_name(obs_dtype)
    size = game.observation_size
    if obs_dtype == "float32":
        return np.ones(size, dtype=np.float32)
    package = game.module.__name__.rpartition(".")[0] if game.module.__name__.endswith(".rules") \
        else game.module.__name__
    try:
        encoding = importlib.import_module(f"{package}.encoding")
    except ModuleNotFoundError:
        raise ValueError(f"obs_dtype={obs_dtype!r}: {game.name} declares no compact encoding of its "
                         f"observation; valid values for it: ['float32']") from None
    divisor = np.asarray(encoding.observation_divisors(game.config), dtype=np.float32)
    low, high = game.observation_bounds()
    most = np.round(high.astype(np.float64) * divisor)  # the largest integer k of each entry
    if divisor.shape != (size,) or (divisor < 1).any() or (low < 0).any():
        raise ValueError(f"{game.name}: its observation_divisors do not fit its observation "
                         f"({size} entries, >= 1; bounds >= 0)")
    limit = np.iinfo(np.dtype(obs_dtype)).max
    over = np.flatnonzero(most > limit)
    if over.size:
        blocks = sorted({_block_of(game, int(j)) for j in over})
        fits = [d for d in OBS_DTYPES if d == "float32" or np.iinfo(np.dtype(d)).max >= most.max()]
        raise ValueError(f"obs_dtype={obs_dtype!r} cannot hold {game.name}'s observation under {game.config}: "
                         f"block(s) {blocks} reach {int(most.max())} (k / divisor, k up to {limit}); "
                         f"valid values for this config: {fits}")
    return divisor


def _kernel_divisor(divisor: np.ndarray, obs_dtype: str) -> np.ndarray:
    # the divisors as the kernels read them at every store of a compact row: in the observation's own
    # dtype where that holds every one of them exactly (a quarter of the float32 array at uint8, which
    # stays in the cache beside the row and the record: Octa's is 5.8 kB, not 23 kB), else float32.
    # The stored integers are the same either way (an integer divisor converts exactly)
    if divisor.max() <= np.iinfo(np.dtype(obs_dtype)).max and (divisor == np.round(divisor)).all():
        return divisor.astype(obs_dtype)
    return np.ascontiguousarray(divisor)


def narrowest_obs_dtype(game: Game) -> str:
    """The narrowest observation dtype of :class:`VectorEnv` that holds ``game``'s observations under its
    config: ``"uint8"``, else ``"uint16"``, else ``"float32"`` (a game without a compact encoding)."""
    for dtype in ("uint8", "uint16"):
        try:
            observation_divisors(game, dtype)
        except ValueError:  # too narrow for this config, or no compact encoding
            continue
        return dtype
    return "float32"


def _block_of(game: Game, j: int) -> str:
    for block in game.observation_layout.blocks:
        start = game.observation_layout.offset(block.name)
        if start <= j < start + block.size:
            return block.name
    return f"entry {j}"


def cpu_count() -> int:
    """The cores this process may run on (its affinity on Linux, else ``os.cpu_count()``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
