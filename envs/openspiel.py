"""OpenSpiel face of every octagames rules engine.

Importing this module registers one pyspiel game per installed rules engine
(:func:`octagames.core.available_games`) under the name ``octagames_<name>``::

    import pyspiel
    import octagames.envs.openspiel  # registers octagames_octrix, ...

    game = pyspiel.load_game("octagames_octrix(num_players=3)")
    turn_based = pyspiel.convert_to_turn_based(game)   # for CFR & co.

    # or, with our own config validation (ValueError naming the bad field):
    game = octagames.envs.openspiel.load("octrix", num_players=4, partnership=True)

The adapter is generic over :class:`octagames.core.Game` and knows no rules of
any game; everything it says comes from the engine contract:

* **Game parameters** are the fields of the game's ``Config`` dataclass, with
  the same names and defaults (``num_players``, ``partnership``, ``match``,
  ``ranks``, ``hand_size``, ...). Fields whose type is not int, float, bool or
  str cannot be OpenSpiel parameters and keep their defaults. Values are
  validated by ``Config``; a bad value raises its ``ValueError`` naming the
  field (through :func:`load`, or as the error of ``pyspiel.load_game``).
* **Game type**: simultaneous dynamics if ``INFO.dynamics == "simultaneous"``
  (else sequential), explicit stochastic chance, perfect / imperfect
  information from ``INFO.information``, zero-sum utility, terminal rewards.
  ``INFO`` gives the number of actions, chance outcomes, utility range and
  the bound on the game length; ``num_players`` comes from the config.
* **State**: wraps one engine record. Copying a state is a record copy (the
  record is a numpy ``void``, deep-copied by pyspiel's ``Clone`` and pickled
  by its ``Serialize``), so cloning and (de)serialization need no replay.
* **Simultaneous nodes**: the engine reports ``SIMULTANEOUS``; the seats that
  must act are those with a non-empty legal mask, the others get an empty
  legal-action list (OpenSpiel passes a placeholder action for them, which is
  ignored; ``convert_to_turn_based`` skips them). A joint action is checked
  against every acting seat's legal mask first, then applied seat by seat in
  ascending order with the engine's ``apply_action`` (the engine takes
  simultaneous moves one at a time, ``acting_player`` being the lowest
  pending seat; the adapter checks that it is). ``legal_actions()`` at a
  simultaneous node lists OpenSpiel's flat joint actions (mixed radix over
  the acting seats, as in ``SimMoveState``), which ``apply_action`` accepts.
* **Observations**: the information-state tensor and the observation tensor
  are both the engine's ``Game.observation(s, player)`` -- our observation
  tensor *is* the player's perfect-recall information state, so OpenSpiel's
  two views coincide. The strings (information state and observation alike)
  are ``"<game> p<player> "`` followed by an exact, compact encoding of that
  tensor (the indices of its non-zero entries, with the value when it is not
  1), so two states share a string exactly when they share the tensor: the
  string is a valid information-set key for CFR. (It is exactly as
  perfect-recall as the engine's observation: Octrix's match mode, for
  instance, keeps only the scores of earlier rounds.)
* **Safety bounds**: OpenSpiel needs a finite game, so a game that stops at an
  engine safety bound rather than by its rules (the rules module's optional
  ``truncated`` kernel; Achten's bound on turns per round, ``turn_cap``) is a
  terminal state here, with the returns the engine leaves: all 0, as a draw.
  ``max_game_length`` counts that bound. The PettingZoo faces report the same
  stop as a truncation instead.
* **Deal pools** (:func:`load_pool`): a game whose first move is one chance
  node, uniform over a given list of engine records (e.g. K sampled deals, see
  ``octagames.agents.cfr_tree.deal_pool``), after which the adapter's game follows from the
  record drawn. It lets OpenSpiel's algorithms (``exploitability.nash_conv``)
  run on the reduced games that ``octagames.agents.cfr_tree`` flattens from a pool; it adds no
  rule, only the choice of where the game starts.
* **Serialization**: pyspiel serializes a Python state as its history plus a
  pickle of its ``__dict__``; here that is the record's bytes, so
  ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` work
  for simultaneous joint actions too (no replay). The turn-based transform
  serializes its own history and replays it through this adapter.
"""

from __future__ import annotations

import dataclasses
import typing
import warnings
from typing import Any, Sequence

import numpy as np

from octagames.core import Game, IllegalActionError, available_games, load_module
from octagames.envs._extras import missing_extra

try:
    import pyspiel
except ModuleNotFoundError as e:  # the base install has no OpenSpiel
    raise missing_extra(e, "octagames.envs.openspiel (the OpenSpiel face)") from e

__all__ = ["PREFIX", "OctagamesGame", "OctagamesObserver", "OctagamesPoolGame", "OctagamesPoolState",
           "OctagamesState", "encode_observation", "game_class", "game_type", "load", "load_pool",
           "parameter_specification", "register", "register_all", "short_name"]

#: Prefix of every registered pyspiel short name: ``octagames_<name>``.
PREFIX = "octagames_"

_PARAM_TYPES = (bool, int, float, str)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)
_REGISTERED: set[str] = set()
_ENGINES: dict[tuple[str, Any], "_EngineRef"] = {}
_CLASSES: dict[str, type] = {}


def short_name(name: str) -> str:
    """The pyspiel short name of the octagames game ``name`` (``octagames_<name>``)."""
    return PREFIX + name


# --------------------------------------------------------------------------
# Engine handle shared by all states of a game
# --------------------------------------------------------------------------
class _EngineRef:
    """A :class:`Game` held by every state; shared by ``deepcopy``, pickled by name.

    pyspiel's ``Clone`` deep-copies and its ``Serialize`` pickles the state's
    ``__dict__``; this handle makes both copy only the record, not the engine.
    It also keeps a scratch legal-mask buffer (states are used from one thread).
    """

    __slots__ = ("game", "kernels", "mask")

    def __init__(self, game: Game):
        self.game = game
        self.kernels = game.kernels  # the contract's compiled entry points
        self.mask = np.zeros(game.num_actions, dtype=np.uint8)

    def __deepcopy__(self, memo: dict) -> "_EngineRef":
        return self

    def __copy__(self) -> "_EngineRef":
        return self

    def __reduce__(self) -> tuple:
        return (_engine, (self.game.name, self.game.config))


def _copy_record(rec: np.void) -> np.void:
    """A fast independent copy of a record (bytes round trip; ~1 us)."""
    return np.frombuffer(bytearray(rec.tobytes()), dtype=rec.dtype)[0]




class _Node:
    """What a state holds: engine, record, cached current player, returns before the last move.

    Its ``__deepcopy__`` copies the record only (pyspiel's ``Clone``), its
    ``__reduce__`` pickles the record's bytes (pyspiel's ``Serialize``).
    """

    __slots__ = ("eng", "rec", "cur", "before")

    def __init__(self, eng: _EngineRef, rec: np.void, cur: int | None = None,
                 before: np.ndarray | None = None):
        self.eng = eng
        self.rec = rec
        self.cur = int(eng.kernels.current_player(rec)) if cur is None else cur
        self.before = before

    def __deepcopy__(self, memo: dict) -> "_Node":
        return _Node(self.eng, _copy_record(self.rec), self.cur, self.before)

    def __reduce__(self) -> tuple:
        return (_node_from_bytes, (self.eng, self.eng.game.to_bytes(self.rec), self.before))


def _node_from_bytes(eng: _EngineRef, data: bytes, before: np.ndarray | None) -> _Node:
    # a deserialized state is untrusted input: Game.from_bytes checks format, checksum and fields
    if before is not None and (not isinstance(before, np.ndarray) or before.shape != (eng.game.num_players,)
                               or before.dtype != np.float64):
        raise ValueError(f"a serialized {eng.game.name} state holds returns of the wrong shape")
    return _Node(eng, eng.game.from_bytes(data), None, before)


def _engine(name: str, config: Any) -> _EngineRef:
    """The shared engine handle of ``(name, config)`` (cached)."""
    key = (name, config)
    ref = _ENGINES.get(key)
    if ref is None:
        ref = _ENGINES[key] = _EngineRef(Game(name, config))
    return ref


# --------------------------------------------------------------------------
# Parameters and game type
# --------------------------------------------------------------------------
def _param_fields(config_cls: type) -> list[dataclasses.Field]:
    """Config fields that can be OpenSpiel parameters (int/float/bool/str defaults)."""
    hints = typing.get_type_hints(config_cls)
    out = []
    for f in dataclasses.fields(config_cls):
        if f.default is dataclasses.MISSING or not f.init:
            continue
        if type(f.default) not in _PARAM_TYPES:  # exact: keeps bool apart from int
            continue
        if hints.get(f.name, type(f.default)) not in _PARAM_TYPES:
            continue
        out.append(f)
    return out


def parameter_specification(name: str) -> dict[str, bool | int | float | str]:
    """The OpenSpiel parameters of game ``name``: its config fields and defaults.

    Args:
        name: short octagames name (``"octrix"``, ...).

    Returns:
        ``{field: default}`` for every config field of type int, float, bool or str.
    """
    return {f.name: f.default for f in _param_fields(load_module(name).Config)}


def game_type(name: str) -> pyspiel.GameType:
    """The pyspiel ``GameType`` of game ``name``, read from its ``INFO``.

    Args:
        name: short octagames name.

    Returns:
        The game type registered as ``octagames_<name>``.
    """
    info = load_module(name).INFO
    dyn = pyspiel.GameType.Dynamics
    inf = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"octagames {name}",
        dynamics=dyn.SIMULTANEOUS if info.dynamics == "simultaneous" else dyn.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(inf.PERFECT_INFORMATION if info.information == "perfect"
                     else inf.IMPERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(name),
    )


def _normalize_params(name: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """Check parameter names and give ints to float fields as floats (pyspiel's types)."""
    spec = parameter_specification(name)
    out = dict(params or {})
    unknown = sorted(set(out) - set(spec))
    if unknown:
        raise ValueError(f"{unknown[0]} is not a parameter of {short_name(name)}; "
                         f"valid parameters: {sorted(spec)}")
    for key, value in out.items():
        if isinstance(spec[key], float) and isinstance(value, int) and not isinstance(value, bool):
            out[key] = float(value)
    return out


def _config_from_params(name: str, params: dict[str, Any] | None) -> Any:
    """Build the game's ``Config`` from OpenSpiel parameters (ValueError if bad)."""
    return load_module(name).Config(**_normalize_params(name, params))


# --------------------------------------------------------------------------
# Game, state, observer
# --------------------------------------------------------------------------
class OctagamesGame(pyspiel.Game):
    """A pyspiel game wrapping ``Game(name, **config)``.

    Each registered game has its own subclass (:func:`game_class`) that sets
    :attr:`NAME`; pyspiel builds games by calling it with the parameters.

    Args:
        params: OpenSpiel parameters (config fields); missing ones take the
            config defaults.
        name: short octagames name; defaults to the class's :attr:`NAME`.

    Raises:
        ValueError: unknown parameter or a value the config rejects.
    """

    #: Short octagames name of the game this class wraps (set by subclasses).
    NAME: str = ""

    def __init__(self, params: dict[str, Any] | None = None, name: str | None = None):
        name = name or self.NAME
        if not name:
            raise ValueError("OctagamesGame needs a game name (use game_class(name) or name=...)")
        config = _config_from_params(name, params)
        self.engine = _engine(name, config)
        eng = self.engine.game
        info = eng.info
        full = parameter_specification(name)
        full.update({f: getattr(config, f) for f in full})
        super().__init__(
            game_type(name),
            pyspiel.GameInfo(
                num_distinct_actions=info.num_actions,
                max_chance_outcomes=info.max_chance_outcomes,
                num_players=eng.num_players,
                min_utility=eng.min_utility,
                max_utility=eng.max_utility,
                utility_sum=0.0,
                max_game_length=eng.max_game_length,
            ),
            full,
        )
        self._initial = eng.new_state(0)
        self._initial_cur = int(eng.current_player(self._initial))

    @property
    def octagame(self) -> Game:
        """The wrapped :class:`octagames.core.Game`."""
        return self.engine.game

    def new_initial_state(self, *args: Any) -> "OctagamesState":
        """A state at the start of the game (before the first chance outcome).

        Raises:
            ValueError: a starting-state argument was given (not supported).
        """
        if args:
            raise ValueError(f"{self.engine.game.name} states can only start at the "
                             "initial state; got a starting state")
        return OctagamesState(self, _Node(self.engine, _copy_record(self._initial),
                                          self._initial_cur))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> "OctagamesObserver":
        """An observer giving the engine's observation tensor and its exact string.

        Information-state and observation requests get the same observer: the
        engine's observation is the perfect-recall information state.

        Args:
            iig_obs_type: ``pyspiel.IIGObservationType`` (ignored; pyspiel may
                also pass ``params`` here positionally).
            params: observer parameters; none are supported.

        Raises:
            ValueError: non-empty ``params``.
        """
        if isinstance(iig_obs_type, dict):
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"octagames observers take no parameters, got {sorted(params)}")
        return OctagamesObserver(self.engine)


class OctagamesState(pyspiel.State):
    """A pyspiel state wrapping one engine record.

    All the Python-side data sits in one ``_Node`` attribute, so pyspiel's
    ``Clone`` (a deep copy of ``__dict__``) is a record copy and its
    ``Serialize`` (a pickle of ``__dict__``) stores the record's bytes.

    Args:
        game: the pyspiel game.
        node: the engine handle and the record to wrap (owned from now on).
    """

    def __init__(self, game: OctagamesGame, node: _Node):
        super().__init__(game)
        self._n = node

    @property
    def record(self) -> np.void:
        """The wrapped engine record (live; treat it as read-only)."""
        return self._n.rec

    @property
    def octagame(self) -> Game:
        """The wrapped :class:`octagames.core.Game`."""
        return self._n.eng.game

    # -- queries ------------------------------------------------------------
    def current_player(self) -> int:
        """A seat, or pyspiel's CHANCE / SIMULTANEOUS / TERMINAL id (same values)."""
        return self._n.cur

    def _legal_actions(self, player: int) -> list[int]:
        """Sorted legal actions of ``player``; empty for a seat with nothing to do."""
        n = self._n
        if player == _SIMULTANEOUS:  # flat joint actions (OpenSpiel's mixed radix)
            size = 1
            for legal in self._joint_legal():
                size *= len(legal) or 1
            return list(range(size))
        buf = n.eng.mask
        if player < 0 or not n.eng.kernels.legal_mask(n.rec, player, buf):
            return []
        return np.flatnonzero(buf).tolist()

    def _joint_legal(self) -> list[list[int]]:
        """The legal actions of every seat (empty for seats not acting)."""
        return [self._legal_actions(p) for p in range(self._n.eng.game.num_players)]

    def _flat_to_joint(self, flat: int) -> list[int]:
        """Decode a flat joint action like OpenSpiel's ``SimMoveState``.

        Seats without legal actions take no digit and get the placeholder 0.
        """
        joint = []
        for legal in self._joint_legal():
            if legal:
                joint.append(legal[flat % len(legal)])
                flat //= len(legal)
            else:
                joint.append(0)
        return joint

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs of the chance node."""
        return self._n.eng.game.chance_outcomes(self._n.rec)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._n.cur == _TERMINAL

    def returns(self) -> list[float]:
        """Cumulative returns of every seat."""
        return self._n.eng.game.returns(self._n.rec).tolist()

    def rewards(self) -> list[float]:
        """Change in the returns brought by the last transition."""
        n = self._n
        now = n.eng.game.returns(n.rec)
        return (now if n.before is None else now - n.before).tolist()

    def _action_to_string(self, player: int, action: int) -> str:
        """The engine's name for ``action`` (``[a0, a1, ...]`` for a flat joint action)."""
        g = self._n.eng.game
        if player == _SIMULTANEOUS and self._n.cur == _SIMULTANEOUS:
            joint = self._flat_to_joint(action)
            return "[" + ", ".join(g.action_to_string(self._n.rec, a)
                                   for a, legal in zip(joint, self._joint_legal()) if legal) + "]"
        return g.action_to_string(self._n.rec, action)

    def __str__(self) -> str:
        """The engine's text rendering of the whole state."""
        return self._n.eng.game.render(self._n.rec)

    # -- changes ------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        """Apply a chance outcome, the current seat's action, or a flat joint action.

        At a simultaneous node ``action`` is a flat joint action (see
        ``legal_actions()``, OpenSpiel's encoding) and is decoded and applied
        with :meth:`_apply_actions`.

        Raises:
            octagames.core.IllegalActionError: the action is illegal here.
        """
        n = self._n
        if n.cur == _SIMULTANEOUS:
            self._apply_actions(self._flat_to_joint(int(action)))
            return
        g = n.eng.game
        n.before = g.returns(n.rec)
        g.apply_action(n.rec, action)
        n.cur = int(n.eng.kernels.current_player(n.rec))

    def _apply_actions(self, actions: list[int]) -> None:
        """Apply a joint action at a simultaneous node.

        The seats with legal actions play, one at a time in ascending order
        (the engine's ``acting_player`` is the lowest pending seat); the
        entries of the other seats are placeholders and are ignored. The whole
        joint action is checked before anything is applied.

        Raises:
            octagames.core.IllegalActionError: an acting seat's action is illegal.
            ValueError: ``actions`` does not have one entry per player.
        """
        n = self._n
        eng = n.eng
        g, m, s, buf = eng.game, eng.kernels, n.rec, eng.mask
        if n.cur != _SIMULTANEOUS:
            raise ValueError(f"apply_actions needs a simultaneous node; player {n.cur} is to move")
        num = g.num_players
        if len(actions) != num:
            raise ValueError(f"a joint action needs {num} entries, got {len(actions)}")
        acting = []
        for p in range(num):
            if m.legal_mask(s, p, buf):
                a = int(actions[p])
                if not (0 <= a < g.num_actions and buf[a]):
                    raise _illegal(g, s, p, a)
                acting.append((p, a))
        if not acting:
            raise RuntimeError(f"{g.name}: simultaneous node where no seat has a legal action")
        n.before = g.returns(s)
        for p, a in acting:
            actor = int(m.acting_player(s))
            if actor != p:
                raise RuntimeError(f"{g.name} engine contract: seat {p} should act next at a "
                                   f"simultaneous node, but acting_player is {actor}")
            if not m.apply_action(s, a):
                raise IllegalActionError(f"{g.name}: action {a} of player {p} was refused "
                                         "by the rules engine")
        n.cur = int(m.current_player(s))


def _illegal(g: Game, s: np.void, player: int, action: int) -> IllegalActionError:
    """The error for ``player`` playing the illegal ``action`` in ``s``."""
    if not 0 <= action < g.num_actions:
        return IllegalActionError(f"player {player} cannot play action {action}: "
                                  f"actions are 0..{g.num_actions - 1}")
    why = getattr(g.module, "illegal_reason", None)
    reason = why(s, player, action) if why is not None else "it is not legal here"
    return IllegalActionError(f"player {player} cannot play action {action} "
                              f"({g.action_to_string(s, action)}): {reason}")


class OctagamesObserver:
    """pyspiel Python observer: the engine's observation tensor and its exact string.

    Attributes:
        tensor: float32 buffer of length ``observation_size``, filled by
            :meth:`set_from`.
        dict: named views of ``tensor``: ``{"observation": tensor}``.
    """

    def __init__(self, engine: _EngineRef):
        self._eng = engine
        self._prefix = engine.game.name
        self.tensor = np.zeros(engine.game.observation_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: OctagamesState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into :attr:`tensor`."""
        self.tensor.fill(0.0)
        self._eng.kernels.observation(state._n.rec, player, self.tensor)

    def string_from(self, state: OctagamesState, player: int) -> str:
        """``"<game> p<player> "`` + the non-zero entries of the observation tensor.

        Entries equal to 1 are written as their index, others as
        ``index=value`` (exact float repr), so the string identifies the
        tensor, hence the information state, exactly.
        """
        obs = self._eng.game.observation(state._n.rec, player)
        return encode_observation(f"{self._prefix} p{player} ", obs)


def encode_observation(prefix: str, obs: np.ndarray) -> str:
    """Exact compact text of a tensor: ``prefix`` + its non-zero entries.

    Args:
        prefix: readable text put first.
        obs: the tensor (any float dtype, flattened).

    Returns:
        ``prefix`` followed by comma-separated entries ``i`` (value 1) or
        ``i=v`` (any other non-zero value ``v``, exact ``repr``).
    """
    flat = np.asarray(obs).ravel()
    idx = np.flatnonzero(flat)
    vals = flat[idx].tolist()
    return prefix + ",".join(str(i) if v == 1.0 else f"{i}={v!r}" for i, v in zip(idx.tolist(), vals))


# --------------------------------------------------------------------------
# Deal pools: a root chance node over given records
# --------------------------------------------------------------------------
class _Pool:
    """The records of a pool game, shared by all its states (like :class:`_EngineRef`)."""

    __slots__ = ("eng", "records")

    def __init__(self, eng: _EngineRef, records: tuple[np.void, ...]):
        self.eng = eng
        self.records = records

    def __deepcopy__(self, memo: dict) -> "_Pool":
        return self

    def __copy__(self) -> "_Pool":
        return self

    def __reduce__(self) -> tuple:
        return (_pool_from_bytes, (self.eng, [self.eng.game.to_bytes(r) for r in self.records]))


def _pool_from_bytes(eng: _EngineRef, data: list[bytes]) -> _Pool:
    return _Pool(eng, tuple(eng.game.from_bytes(d) for d in data))


class OctagamesPoolGame(OctagamesGame):
    """The adapter's game started from a uniform chance draw among given records.

    The initial state is a chance node with outcomes ``0 .. K-1`` of probability
    ``1/K``; outcome ``i`` continues from a copy of ``records[i]`` exactly as
    :class:`OctagamesState` does (same observations, strings, actions). Built by
    :func:`load_pool`; it is not registered with pyspiel (its short name is
    ``octagames_<name>_pool``), so create it with :func:`load_pool`, not
    ``pyspiel.load_game``.

    Args:
        name: short octagames name.
        records: the engine records to start from (the game's own dtype; they
            should come from the same config, e.g. ``octagames.agents.cfr_tree.deal_pool``).
        params: OpenSpiel parameters (config fields).

    Raises:
        ValueError: no records, a record of another game, or a bad parameter.
    """

    def __init__(self, name: str, records: Sequence[np.void], params: dict[str, Any] | None = None):
        config = _config_from_params(name, params)
        self.engine = _engine(name, config)
        eng = self.engine.game
        if len(records) == 0:
            raise ValueError("records is empty; a pool game needs at least one record")
        for r in records:
            if getattr(r, "dtype", None) != eng.dtype:
                raise ValueError(f"records must be {name} records (dtype {eng.dtype}), got {r!r:.80}")
        self.pool = _Pool(self.engine, tuple(_copy_record(r) for r in records))
        info = eng.info
        full = parameter_specification(name)
        full.update({f: getattr(config, f) for f in full})
        gtype = game_type(name)
        pool_type = pyspiel.GameType(
            short_name=short_name(name) + "_pool", long_name=f"octagames {name} (deal pool)",
            dynamics=gtype.dynamics, chance_mode=gtype.chance_mode, information=gtype.information,
            utility=gtype.utility, reward_model=gtype.reward_model,
            max_num_players=gtype.max_num_players, min_num_players=gtype.min_num_players,
            provides_information_state_string=True, provides_information_state_tensor=True,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification=parameter_specification(name))
        pyspiel.Game.__init__(
            self, pool_type,
            pyspiel.GameInfo(
                num_distinct_actions=info.num_actions,
                max_chance_outcomes=max(info.max_chance_outcomes, len(records)),
                num_players=eng.num_players,
                min_utility=eng.min_utility,
                max_utility=eng.max_utility,
                utility_sum=0.0,
                max_game_length=eng.max_game_length + 1,
            ),
            full,
        )
        # the pool root shows the observations of a fresh record (nothing dealt)
        self._initial = eng.new_state(0)
        self._initial_cur = int(pyspiel.PlayerId.CHANCE)

    @property
    def records(self) -> tuple[np.void, ...]:
        """The records of the pool (live; treat them as read-only)."""
        return self.pool.records

    def new_initial_state(self, *args: Any) -> "OctagamesPoolState":
        """The root chance node over the pool's records.

        Raises:
            ValueError: a starting-state argument was given (not supported).
        """
        if args:
            raise ValueError("pool games can only start at the pool's chance node")
        return OctagamesPoolState(self, _Node(self.engine, _copy_record(self._initial),
                                              self._initial_cur), self.pool)


class OctagamesPoolState(OctagamesState):
    """A state of :class:`OctagamesPoolGame`: the root chance node, then an :class:`OctagamesState`.

    At the root the wrapped record is a fresh one (for observations); after the
    first outcome ``i`` it is a copy of the pool's record ``i``.
    """

    def __init__(self, game: OctagamesPoolGame, node: _Node, pool: _Pool, at_root: bool = True):
        super().__init__(game, node)
        self._pool = pool
        self._at_root = at_root

    def _legal_actions(self, player: int) -> list[int]:
        """At the root: the record indices for chance; else as :class:`OctagamesState`."""
        if self._at_root:
            return list(range(len(self._pool.records))) if player == int(pyspiel.PlayerId.CHANCE) else []
        return super()._legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At the root: ``(i, 1/K)`` for every record ``i``; else the engine's."""
        if self._at_root:
            k = len(self._pool.records)
            return [(i, 1.0 / k) for i in range(k)]
        return super().chance_outcomes()

    def _action_to_string(self, player: int, action: int) -> str:
        """``"pool record i"`` at the root; else the engine's name."""
        if self._at_root:
            return f"pool record {action}"
        return super()._action_to_string(player, action)

    def __str__(self) -> str:
        """The engine's rendering (at the root: the size of the pool)."""
        if self._at_root:
            return f"deal pool of {len(self._pool.records)} records"
        return super().__str__()

    def _apply_action(self, action: int) -> None:
        """At the root: continue from a copy of record ``action``; else as :class:`OctagamesState`.

        Raises:
            IllegalActionError: at the root, ``action`` is not a record index.
        """
        if self._at_root:
            a = int(action)
            if not 0 <= a < len(self._pool.records):
                raise IllegalActionError(f"pool outcome {a} is not possible here; "
                                         f"outcomes are 0..{len(self._pool.records) - 1}")
            eng = self._n.eng
            self._n = _Node(eng, _copy_record(self._pool.records[a]), None,
                            eng.game.returns(self._n.rec))
            self._at_root = False
            return
        super()._apply_action(action)


def load_pool(name: str, records: Sequence[np.void], **config: Any) -> OctagamesPoolGame:
    """The game ``octagames_<name>`` started from a uniform chance draw among ``records``.

    Example: OpenSpiel's exploitability on the reduced game that
    ``octagames.agents.cfr_tree.flatten(GameSource(game, roots=records))`` solves::

        records = octagames.agents.cfr_tree.deal_pool(game, 8, seed=0)
        spiel_game = octagames.envs.openspiel.load_pool("achten", records, **dataclasses.asdict(game.config))

    Args:
        name: short octagames name.
        records: engine records of that game and config (outcome ``i`` of the root
            continues from ``records[i]``).
        **config: config fields, validated by the game's ``Config``.

    Returns:
        The pool game (sequential or simultaneous as the game; use
        ``pyspiel.convert_to_turn_based`` for simultaneous ones).

    Raises:
        ValueError: unknown game or parameter, bad value, or bad records.
    """
    params = _normalize_params(name, config)
    load_module(name).Config(**params)  # raises ValueError naming the field
    return OctagamesPoolGame(name, records, params)


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------
def game_class(name: str) -> type[OctagamesGame]:
    """The :class:`OctagamesGame` subclass registered for game ``name`` (cached).

    Args:
        name: short octagames name.

    Returns:
        A class whose constructor takes the OpenSpiel parameters.
    """
    cls = _CLASSES.get(name)
    if cls is None:
        load_module(name)
        cls_name = f"Octagames{name.capitalize()}Game"
        cls = _CLASSES[name] = type(
            cls_name, (OctagamesGame,),
            {"NAME": name, "__module__": __name__, "__qualname__": cls_name,
             "__doc__": f"pyspiel game ``{short_name(name)}`` (see :class:`OctagamesGame`)."})
        globals()[cls_name] = cls  # so that pickle finds it
    return cls


def register(name: str) -> None:
    """Register game ``name`` with pyspiel as ``octagames_<name>`` (idempotent).

    Args:
        name: short octagames name.

    Raises:
        ValueError: unknown game name.
    """
    sn = short_name(name)
    if sn in _REGISTERED:
        return
    load_module(name)
    if sn not in pyspiel.registered_names():
        # a class, not a closure: pyspiel's registry outlives the interpreter and
        # a closure freed from there at exit aborts the process
        pyspiel.register_game(game_type(name), game_class(name))
    _REGISTERED.add(sn)


def register_all(strict: bool = True) -> list[str]:
    """Register every installed game (idempotent).

    Args:
        strict: raise if a game cannot be registered; with ``False`` such a
            game (e.g. a rules module still being written that lacks ``INFO``)
            is skipped with a ``RuntimeWarning``.

    Returns:
        The pyspiel short names registered (``octagames_<name>``).

    Raises:
        Exception: with ``strict``, whatever stopped a game from registering.
    """
    done = []
    for name in available_games():
        try:
            register(name)
        except Exception as exc:  # noqa: BLE001 - reported, or re-raised when strict
            if strict:
                raise
            warnings.warn(f"octagames_{name} not registered with pyspiel: {exc!r}",
                          RuntimeWarning, stacklevel=2)
            continue
        done.append(short_name(name))
    return done


def load(name: str, **config: Any) -> pyspiel.Game:
    """Load ``octagames_<name>`` with config fields as game parameters.

    The config is validated first, so a bad value raises the config's
    ``ValueError`` naming the field.

    Args:
        name: short octagames name (``"octrix"``, ...).
        **config: config fields (``num_players=3``, ``partnership=True``, ...).

    Returns:
        The pyspiel game.

    Raises:
        ValueError: unknown game, unknown parameter or bad value.
    """
    params = _normalize_params(name, config)
    load_module(name).Config(**params)  # raises ValueError naming the field
    register(name)
    return pyspiel.load_game(short_name(name), params)


# Import registers every game that follows the contract; a broken one only warns.
register_all(strict=False)
