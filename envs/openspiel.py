"""OpenSpiel face of every octagames rules engine.

Importing this module registers one pyspiel game per name of the catalogue
(:mod:`octagames.catalogue`: every variant of every installed game, and the games' own
names) as ``octagames_<name>``, with ``_`` for ``-`` (:func:`short_name`)::

    import pyspiel
    import octagames.envs.openspiel  # registers octagames_octrix, octagames_octrix_round, ...

    game = pyspiel.load_game("octagames_octrix(num_players=3)")  # the match to 88, three players
    single_round = pyspiel.load_game("octagames_octrix_round")
    dutch = pyspiel.load_game("octagames_octa_nl")
    turn_based = pyspiel.convert_to_turn_based(game)   # for CFR & co.

    # or, with our own config validation (ValueError naming the bad field):
    game = octagames.envs.openspiel.load("octrix-partnership", target=30)

A variant's name gives its config: its game parameters default to the variant's fields
(``octagames_octa_nl`` has ``rules=nl``, ``octagames_octrix_partnership`` ``num_players=4``),
and parameters given go over them, as config fields go over a variant's in ``make_game``.
A game's own name is its seed variant (``octagames_octrix`` is the match to 88,
``octagames_octa`` the English rulebook, as ``octagames_octa_en`` is). Saves write every
parameter under the name the game was loaded by, so a save of any name, the names of the
games before variants included (``octagames_octrix(...,match=False,...)``), opens as it was.

The adapter is generic over :class:`octagames.core.Game` and knows no rules of
any game; everything it says comes from the engine contract:

* **Game parameters** are the fields of the game's ``Config`` dataclass, with
  the same names, and defaults from the variant (``num_players``, ``partnership``, ``match``,
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
  record is a numpy ``void``, deep-copied by pyspiel's ``Clone``; a save holds
  its bytes, see below), so cloning and (de)serialization need no replay.
* **Simultaneous nodes**: the engine reports ``SIMULTANEOUS``; the seats that
  must act are those with a non-empty legal mask, the others get an empty
  legal-action list (OpenSpiel passes a placeholder action for them, which is
  ignored, ``pyspiel.INVALID_ACTION`` or any 32-bit int, and kept in the history
  and its saves as given; ``convert_to_turn_based`` skips them). A joint action is checked
  against every acting seat's legal mask first, then applied seat by seat in
  ascending order with the engine's ``apply_action`` (the engine takes
  simultaneous moves one at a time, ``acting_player`` being the lowest
  pending seat; the adapter checks that it is). ``legal_actions()`` at a
  simultaneous node lists OpenSpiel's flat joint actions (mixed radix over
  the acting seats, as in ``SimMoveState``), which ``apply_action`` accepts
  (any other number raises ``IllegalActionError``, rather than wrapping round).
* **Observations**: the information-state tensor and the observation tensor
  are both the engine's ``Game.observation(s, player)`` -- our observation
  tensor *is* the player's perfect-recall information state, so OpenSpiel's
  two views coincide. The strings (information state and observation alike)
  are ``"<game> p<player> "`` followed by an exact, compact encoding of that
  tensor (the indices of its non-zero entries, with the value when it is not
  1), so two states share a string exactly when they share the tensor: the
  string is a valid information-set key for CFR. (It is exactly as
  perfect-recall as the engine's observation: Octrix's match mode, for
  instance, keeps only the scores of earlier rounds, and Octa's forgets in which
  order a seat laid the cards of a run, so two orders that end in the same
  table share a string; English Octa's keeps of the stock rebuilt at the first
  exhaustion the counts a seat can state, not the order of the draws and plays
  since, ``docs/rules/octa_en.md``.) The observer
  (``make_py_observer``) serves that one seat's view only: an
  ``IIGObservationType`` asking for public information only, every player's,
  or private information only is refused with ``ValueError``.
* **Safety bounds**: OpenSpiel needs a finite game, so a game that stops at an
  engine safety bound rather than by its rules (the rules module's optional
  ``truncated`` kernel; Achten's bound on turns per round, ``turn_cap``) is a
  terminal state here, with the returns the engine leaves: all 0, as a draw.
  ``max_game_length`` counts that bound. The PettingZoo faces report the same
  stop as a truncation instead.
* **Deal pools** (:func:`load_pool`): a game whose first move is one chance
  node, uniform over a given list of engine records (e.g. K sampled deals, see
  ``octagames.agents.cfr.tree.deal_pool``), after which the adapter's game follows from the
  record drawn. It lets OpenSpiel's algorithms (``exploitability.nash_conv``)
  run on the reduced games that ``octagames.agents.cfr.tree`` flattens from a pool; it adds no
  rule, only the choice of where the game starts. Each name is registered as
  ``octagames_<name>_pool`` too; its ``records`` parameter holds the records as
  text (:func:`encode_records`), so its game string names the whole game and it
  serializes like the others.
* **Saves are data, never code**: :func:`serialize_game_and_state` writes
  pyspiel's layout (``[Meta]``, ``[Game]``, ``[State]``) with plain text only:
  ``[Game]`` is the game string (every config field, exact floats; a pool's
  records), ``[State]`` is ``state.serialize()``, lines ``key=value``: the
  history and move number, the game string of the record, the record as
  base64 of ``Game.to_bytes`` (format header, checksum), the returns before
  the last move and whether the state is a pool's root.
  :func:`deserialize_game_and_state` and ``game.deserialize_state`` parse every
  line strictly (ints, floats, base64; never ``eval`` or pickle), refuse a
  ``[State]`` whose game or record disagrees with ``[Game]`` (``ValueError``
  naming both, e.g. "save's [Game] is achten(num_players=2) but its [State]
  record is achten(num_players=4)") and check the record with
  ``Game.from_bytes`` before they build a pyspiel game or state. Every refusal
  is one ``ValueError`` saying what is wrong. ``pickle`` and ``copy.deepcopy``
  of a state use the same text (``clone`` copies the record).
* **pyspiel's own save functions**: ``pyspiel.serialize_game_and_state`` and
  ``random_sim_test(serialize=True)`` run in C++ and write a Python state as its
  history plus a base64 pickle of its ``__dict__`` (open_spiel 2.0.2,
  ``python_games.cc``); here that pickle holds one call of this module's
  ``_node_from_text`` on the plain text above, and a state loaded that way is
  checked against the ``[Game]`` too. pyspiel's C++ ``DeserializeState`` would
  unpickle that line before any code of this module runs (for every Python
  game), so importing this module replaces ``pyspiel.deserialize_game_and_state``
  by :func:`guarded_deserialize_game_and_state`: a save of an octagames game goes
  to :func:`deserialize_game_and_state`, which reads pyspiel's layout with an
  unpickler that resolves nothing but ``_node_from_text`` (and runs not even
  that: it keeps the text, then parses and checks it as a plain save), and
  refuses anything else in one ``ValueError``. Other games' saves go to
  pyspiel's function unchanged. C++ code calling pyspiel directly is not
  covered. The turn-based transform serializes its own history and replays it
  through this adapter (no pickle).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import io
import math
import pickle
import re
import typing
import warnings
from typing import Any, NamedTuple, Sequence

import numpy as np

from octagames import catalogue
from octagames.core import Game, IllegalActionError, available_games, load_module
from octagames.envs._extras import missing_extra

try:
    import pyspiel
except ModuleNotFoundError as e:  # the base install has no OpenSpiel
    raise missing_extra(e, "octagames.envs.openspiel (the OpenSpiel face)") from e

__all__ = ["PREFIX", "OctagamesGame", "OctagamesObserver", "OctagamesPoolGame", "OctagamesPoolState",
           "OctagamesState", "deserialize_game_and_state", "encode_observation", "encode_records",
           "game_class", "game_type", "guarded_deserialize_game_and_state", "load", "load_pool",
           "parameter_specification", "pool_class", "register", "register_all", "serialize_game_and_state",
           "short_name"]

#: Prefix of every registered pyspiel short name: ``octagames_<name>``.
PREFIX = "octagames_"

_PARAM_TYPES = (bool, int, float, str)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_POOL = "_pool"
_REGISTERED: set[str] = set()
_ENGINES: dict[tuple[str, Any], "_EngineRef"] = {}
_CLASSES: dict[str, type] = {}


def short_name(name: str) -> str:
    """The pyspiel short name of a variant or game: ``octagames_<name>`` with ``_`` for ``-``.

    Args:
        name: a name of the catalogue (``"octa-nl"``, ``"octrix"``).

    Returns:
        ``"octagames_octa_nl"``, ``"octagames_octrix"``.
    """
    return PREFIX + name.replace("-", "_")


@functools.lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """Every name this module registers, by its part of the short name (``"octa_nl"`` -> ``"octa-nl"``).

    The installed games' own names and their variants' names (:mod:`octagames.catalogue`).

    Raises:
        RuntimeError: two names that would share a pyspiel short name, or one that a deal
            pool's name could be read as.
    """
    out: dict[str, str] = {}
    for game in available_games():
        for name in dict.fromkeys([game] + [v.name for v in catalogue.game_spec(game).variants]):
            part = short_name(name)[len(PREFIX):]
            if part in out or part.endswith(_POOL):
                raise RuntimeError(f"the variant {name!r} cannot have a pyspiel name of its own: "
                                   f"{short_name(name)} is taken or reads as a deal pool's name")
            out[part] = name
    return out


def _module(name: str) -> Any:
    """The rules module of a variant or game ``name`` (ValueError naming the valid names)."""
    return load_module(catalogue.variant(name).game)


# --------------------------------------------------------------------------
# Engine handle shared by all states of a game
# --------------------------------------------------------------------------
class _EngineRef:
    """A :class:`Game` held by every state; shared by ``deepcopy``.

    pyspiel's ``Clone`` deep-copies the state's ``__dict__``; this handle makes
    that copy only the record, not the engine. It also keeps a scratch
    legal-mask buffer (states are used from one thread) and the game string.
    """

    __slots__ = ("game", "kernels", "mask", "text", "initial", "save_sizes")

    def __init__(self, name: str, game: Game):
        self.game = game
        self.kernels = game.kernels  # the contract's compiled entry points
        self.mask = np.zeros(game.num_actions, dtype=np.uint8)
        self.text = _game_string(name, game.config)  # under the name it was loaded by
        self.initial = game.new_state(0)  # where games start (and a deal pool's root record)
        today = len(game.to_bytes(self.initial))
        # a saved record's size, today's layout first, then the earlier ones Game.from_bytes still reads (the
        # header is as long for every layout)
        self.save_sizes = (today, *(today - game.dtype.itemsize + dt.itemsize
                                    for dt in getattr(game.module, "EARLIER_STATE_DTYPES", ())))

    def __deepcopy__(self, memo: dict) -> "_EngineRef":
        return self

    def __copy__(self) -> "_EngineRef":
        return self

    def __reduce__(self) -> tuple:
        return (_engine_from_text, (self.text,))


def _copy_record(rec: np.void) -> np.void:
    """A fast independent copy of a record (bytes round trip; ~1 us)."""
    return np.frombuffer(bytearray(rec.tobytes()), dtype=rec.dtype)[0]


class _Node:
    """What a state holds: engine, record, cached current player, returns before the last move.

    ``root`` marks the root chance node of a deal pool (its record is a fresh
    one, its current player chance). Its ``__deepcopy__`` copies the record only
    (pyspiel's ``Clone``); its ``__reduce__`` (pyspiel's C++ ``Serialize``) is a
    call of :func:`_node_from_text` on plain text.
    """

    __slots__ = ("eng", "rec", "cur", "before", "root")

    def __init__(self, eng: _EngineRef, rec: np.void, cur: int | None = None,
                 before: np.ndarray | None = None, root: bool = False):
        self.eng = eng
        self.rec = rec
        self.cur = _CHANCE if root else int(eng.kernels.current_player(rec)) if cur is None else cur
        self.before = before
        self.root = root

    def __deepcopy__(self, memo: dict) -> "_Node":
        return _Node(self.eng, _copy_record(self.rec), self.cur, self.before, self.root)

    def __reduce__(self) -> tuple:
        return (_node_from_text, (f"{_NODE_HEADER}\n{_node_text(self)}",))


def _engine(name: str, config: Any) -> _EngineRef:
    """The shared engine handle of ``(name, config)`` (cached; ``name`` a variant or game)."""
    key = (name, config)
    ref = _ENGINES.get(key)
    if ref is None:
        # by the game's name: the parameters may override the variant's own fields
        ref = _ENGINES[key] = _EngineRef(name, Game(catalogue.variant(name).game, config))
    return ref


def _engine_from_text(text: str) -> _EngineRef:
    """The engine handle of a game string (strictly parsed, see :func:`_parse_game_string`)."""
    name, config, _ = _parse_game_string(text, "the game string", pool=False)
    return _engine(name, config)


# --------------------------------------------------------------------------
# Saves: plain text, parsed strictly (never eval, never pickle)
# --------------------------------------------------------------------------
_STATE_HEADER = "octagames state 1"
_NODE_HEADER = "octagames record 1"
_NODE_KEYS = ("game", "record", "before", "pool_root")
_STATE_KEYS = ("history", "move_number") + _NODE_KEYS
_SAVE_COMMENT = "# octagames save, plain data: open with octagames.envs.openspiel.deserialize_game_and_state"
# pyspiel's loader of Python states (the only way to set a state's C++ history) needs a
# ``__dict__=`` line: this is the one we give it, an empty dict pickled by Python (protocol 2)
# and written here, never taken from a save.
_EMPTY_DICT_LINE = "__dict__=gAJ9cQAu"
_B64 = re.compile(r"[A-Za-z0-9_-]*")
_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")
_WORD = re.compile(r"[A-Za-z0-9_.+-]*")
_MOVE = re.compile(r"(-?[0-9]{1,9}):(-?[0-9]{1,10})")
# pyspiel's loader of a Python state's history reads each action as a 32-bit int; so does a save's
_ACTION_MIN, _ACTION_MAX = -2**31, 2**31 - 1
_GAME_STRING = re.compile(r"octagames_([a-z][a-z0-9_]*?)(_pool)?\(([^()]*)\)")
_PICKLED = ("a __dict__= line where plain text belongs: octagames reads pyspiel's pickled layout only as a "
            "whole [State] (history=, move_number=, __dict__=) and never unpickles anything else, because "
            "unpickling a save can run any code")


def _b64(data: bytes) -> str:
    """URL-safe base64 without padding (letters, digits, ``_`` and ``-`` only)."""
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str, what: str) -> bytes:
    """Decode :func:`_b64` text, refusing any other character (ValueError naming ``what``)."""
    if not _B64.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError(f"{what} is not base64 text (letters, digits, _ and -)")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _record_from_text(eng: _EngineRef, text: str, what: str) -> np.void:
    """A record from base64 of ``Game.to_bytes``, checked by ``Game.from_bytes`` (errors name ``what``)."""
    try:
        data = _unb64(text, "it")
        if len(data) not in eng.save_sizes:
            earlier = ", ".join(str(n) for n in eng.save_sizes[1:])
            raise ValueError(f"it has {len(data)} bytes; a saved {eng.game.name} record has {eng.save_sizes[0]}"
                             + (f" ({earlier} in the earlier layouts it still reads)" if earlier else ""))
        return eng.game.from_bytes(data)
    except ValueError as e:
        raise ValueError(f"{what} is refused: {e}") from None


def _param_text(value: Any) -> str:
    """A parameter value as game-string text (floats exact: ``repr``)."""
    return repr(value) if isinstance(value, float) else str(value)


def _game_string(name: str, config: Any, records: str | None = None) -> str:
    """``octagames_<name>(field=value,...)``: every parameter, sorted; a pool's adds ``records``.

    Raises:
        ValueError: a str field whose value a game string cannot hold.
    """
    params = {f: _param_text(getattr(config, f)) for f in parameter_specification(name)}
    if records is not None:
        params["records"] = records
    for key, text in params.items():
        if not _WORD.fullmatch(text):
            raise ValueError(f"{key}={text!r} cannot be written in a game string "
                             "(letters, digits and _ . + - only)")
    body = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{short_name(name)}{_POOL if records is not None else ''}({body})"


def _parse_param(raw: str, default: bool | int | float | str, key: str, what: str) -> Any:
    """One parameter value, typed by its default's type (ValueError naming the field)."""
    kind = type(default)
    if kind is bool and raw in ("True", "False"):
        return raw == "True"
    if kind is int and _INT.fullmatch(raw):
        return int(raw)
    if kind is float and _FLOAT.fullmatch(raw) and math.isfinite(float(raw)):
        return float(raw)
    if kind is str and _WORD.fullmatch(raw):
        return raw
    raise ValueError(f"{what}: {key}={raw[:40]!r} is not a valid {kind.__name__}")


def _parse_game_string(text: str, what: str, pool: bool | None = None) -> tuple[str, Any, str | None]:
    """``(name, config, records text or None)`` of an octagames game string.

    Args:
        text: ``octagames_<name>(field=value,...)`` or ``octagames_<name>_pool(...,records=...)``.
        what: how error messages name the text.
        pool: ``False`` refuses a pool game, ``True`` a plain one, ``None`` takes both.

    Returns:
        The variant or game name (``"octa-nl"``), its config and a pool's records text.

    Raises:
        ValueError: not a game string, an unknown game or field, a field given twice, a
            value of the wrong type, or a value the game's ``Config`` refuses.
    """
    m = _GAME_STRING.fullmatch(text)
    if m is None:
        raise ValueError(f"{what} is not an octagames game string "
                         f"(octagames_<game>(field=value,...)): {text[:80]!r}")
    names = _names()
    name, is_pool, body = names.get(m.group(1)), m.group(2) is not None, m.group(3)
    if name is None:
        raise ValueError(f"{what} names an unknown game {m.group(0).partition('(')[0]!r}; "
                         f"octagames games: {sorted(short_name(n) for n in names.values())}")
    if pool is not None and pool != is_pool:
        raise ValueError(f"{what} is {'a' if is_pool else 'not a'} deal-pool game, "
                         f"but it should {'' if pool else 'not '}be one: {text[:80]!r}")
    spec = parameter_specification(name)
    params: dict[str, Any] = {}
    records = None
    for item in body.split(",") if body else ():
        key, sep, raw = item.partition("=")
        if not sep:
            raise ValueError(f"{what}: {item[:40]!r} is not field=value")
        if key in params or (key == "records" and records is not None):
            raise ValueError(f"{what} gives {key} twice")
        if is_pool and key == "records":
            records = raw
        elif key in spec:
            params[key] = _parse_param(raw, spec[key], key, what)
        else:
            valid = sorted(spec) + (["records"] if is_pool else [])
            raise ValueError(f"{what}: {key} is not a parameter of {short_name(name)}"
                             f"{_POOL if is_pool else ''}; valid parameters: {valid}")
    if is_pool and not records:
        raise ValueError(f"{what} is a deal-pool game without records")
    return name, _config_from_params(name, params), records


def _check_agree(eng: _EngineRef, name: str, config: Any, what: str) -> None:
    """Refuse a save part (``what``) of another game or config than the ``[Game]`` (``eng``).

    Two names of the same game and config agree (``octagames_octa`` and ``octagames_octa_en``).

    Raises:
        ValueError: "save's [Game] is achten(num_players=2) but its [State] record is
            achten(num_players=4)" (the fields that differ; every field of another game).
    """
    g = eng.game
    name = catalogue.variant(name).game
    if g.name == name and g.config == config:
        return
    if g.name == name:
        fields = [f for f in parameter_specification(name) if getattr(g.config, f) != getattr(config, f)]
    else:
        fields = []

    def show(n: str, c: Any) -> str:
        keys = fields or parameter_specification(n)
        return f"{n}({', '.join(f'{k}={_param_text(getattr(c, k))}' for k in keys)})"

    raise ValueError(f"save's [Game] is {show(g.name, g.config)} but {what} is {show(name, config)}")


def _returns_text(before: np.ndarray | None) -> str:
    return "" if before is None else ",".join(repr(float(x)) for x in before)


def _parse_returns(text: str, num_players: int, what: str) -> np.ndarray | None:
    """The returns before the last move (``""``: none), ``num_players`` finite floats."""
    if not text:
        return None
    parts = text.split(",")
    if len(parts) != num_players or not all(_FLOAT.fullmatch(t) and math.isfinite(float(t)) for t in parts):
        raise ValueError(f"{what} must be {num_players} comma-separated numbers, got {text[:80]!r}")
    return np.array([float(t) for t in parts], dtype=np.float64)


def _node_text(n: _Node) -> str:
    """The record part of a state's text: its game string, record, returns before, pool root."""
    return (f"game={n.eng.text}\nrecord={_b64(n.eng.game.to_bytes(n.rec))}\n"
            f"before={_returns_text(n.before)}\npool_root={int(n.root)}")


def _fields(text: Any, header: str, keys: tuple[str, ...], what: str) -> dict[str, str]:
    """The ``key=value`` lines of ``text`` after ``header``: exactly ``keys``, in this order."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be text (str), got {type(text).__name__}")
    if "__dict__=" in text:
        raise ValueError(_PICKLED)
    lines = text.split("\n")
    if lines[0] != header:
        raise ValueError(f"{what} is not an octagames state: its first line must be {header!r}, "
                         f"got {lines[0][:60]!r}")
    items = [line.partition("=") for line in lines[1:]]
    if [k for k, _, _ in items] != list(keys) or not all(sep for _, sep, _ in items):
        got = [k[:20] for k, _, _ in items[:len(keys) + 1]]
        raise ValueError(f"{what} must have the lines {', '.join(k + '=' for k in keys)} "
                         f"in this order after {header!r}; got {got}")
    return {k: v for k, _, v in items}


def _parse_node(f: dict[str, str], eng: _EngineRef | None, what: str) -> _Node:
    """The record of a state from its parsed lines, checked against the ``[Game]``'s ``eng``.

    With ``eng=None`` the record's own game string gives the engine (pyspiel's C++
    path, where the state that receives it checks it).
    """
    name, config, _ = _parse_game_string(f["game"], f"{what}'s game", pool=False)
    if eng is None:
        eng = _engine(name, config)
    else:
        _check_agree(eng, name, config, "its [State] record")
    if f["pool_root"] not in ("0", "1"):
        raise ValueError(f"{what}: pool_root must be 0 or 1, got {f['pool_root'][:20]!r}")
    root = f["pool_root"] == "1"
    rec = _record_from_text(eng, f["record"], f"{what}'s record")
    before = _parse_returns(f["before"], eng.game.num_players, f"{what}'s returns before the last move")
    if root and rec.tobytes() != eng.initial.tobytes():
        raise ValueError(f"{what} is a deal pool's root but its record is not the fresh one")
    return _Node(eng, rec, None, before, root)


def _node_from_text(text: str) -> _Node:
    """A node from :func:`_node_text` (what pyspiel's C++ ``Serialize`` pickles a node as)."""
    return _parse_node(_fields(text, _NODE_HEADER, _NODE_KEYS, "the [State]"), None, "the [State]")


class _NodeText(str):
    """The plain text a pickled octagames node carries (what ``_node_from_text`` would parse)."""


def _node_text_only(text: Any) -> _NodeText:
    """Stands in for :func:`_node_from_text` while a save's pickle is read: keeps the text, runs nothing."""
    if not isinstance(text, str):
        raise pickle.UnpicklingError(f"a pickled octagames node holds text, got {type(text).__name__}")
    return _NodeText(text)


class _SaveUnpickler(pickle.Unpickler):
    """Reads the ``__dict__=`` line pyspiel writes for an octagames state without running code.

    That line is a pickle of ``{"_n": node}``, the node pickled as a call of
    :func:`_node_from_text` on plain text. The only global this unpickler resolves is
    that function, replaced by :func:`_node_text_only`, which returns the text: no
    constructor, no callable of the save's choosing ever runs (the technique of the
    ``pickle`` documentation's "Restricting Globals").
    """

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_node_from_text":
            return _node_text_only
        raise pickle.UnpicklingError(f"it names {module}.{name}, and an octagames state's pickle names "
                                     f"only {__name__}._node_from_text")


def _from_pyspiel_layout(text: str, what: str) -> str:
    """A ``[State]`` in pyspiel's layout (history, move_number, ``__dict__=``) as this module's plain text.

    The ``__dict__`` line is read by :class:`_SaveUnpickler` (nothing of the save runs);
    everything is then parsed and checked as a plain save is.

    Raises:
        ValueError: the layout is not pyspiel's, or its pickle is not an octagames
            node's (one message, never an unpickling error).
    """
    lines = text.split("\n")
    keys = [line.partition("=")[0] for line in lines]
    if keys != ["history", "move_number", "__dict__"]:
        raise ValueError(f"{what} is in pyspiel's pickled layout but its lines are {keys[:4]}; "
                         "pyspiel writes history=, move_number=, __dict__=")
    try:
        raw = base64.b64decode(lines[2].partition("=")[2], validate=True)
        fields = _SaveUnpickler(io.BytesIO(raw)).load()
    except Exception as e:  # noqa: BLE001 - a pickle can fail in many ways; each is one refusal
        raise ValueError(f"{what}: its __dict__ line is not an octagames state's, so it is not opened "
                         f"(unpickling a save can run any code; nothing of it ran): {e}"[:400]) from None
    node = fields.get("_n") if isinstance(fields, dict) and set(fields) == {"_n"} else None
    if not isinstance(node, _NodeText):
        raise ValueError(f"{what}: its __dict__ line holds no octagames node (nothing of it ran)")
    node_lines = node.split("\n")
    if node_lines[0] != _NODE_HEADER:
        raise ValueError(f"{what}: its node's first line must be {_NODE_HEADER!r}, got {node_lines[0][:60]!r}")
    return "\n".join([_STATE_HEADER, lines[0], lines[1]] + node_lines[1:])


def _plain_state_text(text: Any, what: str) -> Any:
    """``text`` as this module's plain state text: pyspiel's pickled layout is read safely first."""
    if isinstance(text, str) and "__dict__=" in text:
        return _from_pyspiel_layout(text, what)
    return text


class _ParsedState(NamedTuple):
    """A checked ``[State]``, not yet a pyspiel state."""
    history: list[tuple[int, int]]
    move_number: int
    node: _Node


def _parse_state(text: Any, eng: _EngineRef, num_records: int | None) -> _ParsedState:
    """Parse and check a state's text against the ``[Game]`` (``eng``; a pool's ``num_records``).

    Raises:
        ValueError: a line missing, extra or malformed, a record or config that disagrees
            with the ``[Game]``, a record ``Game.from_bytes`` refuses, a history that
            cannot belong to the game.
    """
    what = "the save's [State]"
    f = _fields(_plain_state_text(text, what), _STATE_HEADER, _STATE_KEYS, what)
    node = _parse_node(f, eng, what)
    num = eng.game.num_players
    history = []
    for item in f["history"].split(",") if f["history"] else ():
        m = _MOVE.fullmatch(item)
        player, action = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        # a negative action is a seat's placeholder from apply_actions; chance and flat joint actions are >= 0
        if m is None or not -2 <= player < num or not (0 if player < 0 else _ACTION_MIN) <= action <= _ACTION_MAX:
            raise ValueError(f"{what}: history entry {item[:30]!r} is not player:action (player -2..{num - 1}; "
                             f"action 0..{_ACTION_MAX}, or from {_ACTION_MIN} for a seat: the placeholder of "
                             "a seat that did not act in apply_actions, e.g. pyspiel.INVALID_ACTION)")
        history.append((player, action))
    if not _INT.fullmatch(f["move_number"]) or not 0 <= int(f["move_number"]) <= len(history):
        raise ValueError(f"{what}: move_number must be an int from 0 to the history's length "
                         f"{len(history)}, got {f['move_number'][:20]!r}")
    if num_records is None and node.root:
        raise ValueError(f"{what} is a deal pool's root but its [Game] is not a deal-pool game")
    if num_records is not None:
        if node.root and history:
            raise ValueError(f"{what} is a deal pool's root but has a history")
        if not node.root and not (history and history[0][0] == _CHANCE and history[0][1] < num_records):
            raise ValueError(f"{what} is in a deal-pool game, so its history must start with "
                             f"the draw of one of its {num_records} records")
    return _ParsedState(history, int(f["move_number"]), node)


def _build_state(game: "OctagamesGame", parsed: _ParsedState) -> "OctagamesState":
    """The pyspiel state of a checked ``[State]`` (its C++ history set by pyspiel's loader)."""
    history = ",".join(f"{p}:{a}" for p, a in parsed.history)
    state = pyspiel.Game.deserialize_state(
        game, f"history={history}\nmove_number={parsed.move_number}\n{_EMPTY_DICT_LINE}")
    state._n = parsed.node
    return state


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
    """The OpenSpiel parameters of a variant or game ``name``: its config fields and their values in it.

    Args:
        name: a variant or game name (``"octrix"``, ``"octa-nl"``, ...).

    Returns:
        ``{field: default}`` for every config field of type int, float, bool or str; the
        default is the variant's value (``octa-nl``: ``rules="nl"``), else the ``Config``'s.

    Raises:
        ValueError: an unknown name (the valid names are listed).
    """
    fields = catalogue.resolve(name)[1]
    config_fields = _param_fields(_module(name).Config)
    return {f.name: type(f.default)(fields.get(f.name, f.default)) for f in config_fields}


def game_type(name: str, pool: bool = False) -> pyspiel.GameType:
    """The pyspiel ``GameType`` of game ``name``, read from its ``INFO``.

    Args:
        name: a variant or game name.
        pool: the type of its deal-pool game (``octagames_<name>_pool``, whose
            parameters add ``records``).

    Returns:
        The game type registered as ``octagames_<name>`` (or ``..._pool``).
    """
    info = _module(name).INFO
    # a variant's own player counts (octiles-play-on: 3 and 4; it refuses others); a game's name: its rules'
    players = (info.min_players, info.max_players) if name in catalogue.games() else catalogue.variant(name).players
    dyn = pyspiel.GameType.Dynamics
    inf = pyspiel.GameType.Information
    params: dict[str, Any] = parameter_specification(name)
    if pool:
        params["records"] = ""
    return pyspiel.GameType(
        short_name=short_name(name) + (_POOL if pool else ""),
        long_name=f"octagames {name}" + (" (deal pool)" if pool else ""),
        dynamics=dyn.SIMULTANEOUS if info.dynamics == "simultaneous" else dyn.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(inf.PERFECT_INFORMATION if info.information == "perfect"
                     else inf.IMPERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def _normalize_params(name: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """Check parameter names and give pyspiel its types: numpy numbers as Python ones (as every other face takes
    them), ints to float fields as floats; a ``None`` (the variant's value) is left out."""
    spec = parameter_specification(name)
    out = {k: v.item() if isinstance(v, np.generic) else v for k, v in (params or {}).items() if v is not None}
    unknown = sorted(set(out) - set(spec))
    if unknown:
        raise ValueError(f"{unknown[0]} is not a parameter of {short_name(name)}; "
                         f"valid parameters: {sorted(spec)}")
    for key, value in out.items():
        if isinstance(spec[key], float) and isinstance(value, int) and not isinstance(value, bool):
            out[key] = float(value)
    return out


def _config_from_params(name: str, params: dict[str, Any] | None) -> Any:
    """Build the game's ``Config`` from OpenSpiel parameters over the variant's fields (ValueError if bad)."""
    game, fields = catalogue.resolve(name, **_normalize_params(name, params))
    return load_module(game).Config(**fields)


# --------------------------------------------------------------------------
# Game, state, observer
# --------------------------------------------------------------------------
class OctagamesGame(pyspiel.Game):
    """A pyspiel game wrapping ``Game(name, **config)``.

    Each registered name (a variant or game) has its own subclass (:func:`game_class`)
    that sets :attr:`NAME`; pyspiel builds games by calling it with the parameters.

    Args:
        params: OpenSpiel parameters (config fields); missing ones take the
            variant's values, else the config defaults.
        name: a variant or game name; defaults to the class's :attr:`NAME`.

    Raises:
        ValueError: unknown parameter or a value the config rejects.
    """

    #: The variant or game name this class wraps (set by subclasses).
    NAME: str = ""

    def __init__(self, params: dict[str, Any] | None = None, name: str | None = None):
        name = name or self.NAME
        if not name:
            raise ValueError("OctagamesGame needs a game name (use game_class(name) or name=...)")
        self._setup(name, _config_from_params(name, params), None)

    def _setup(self, name: str, config: Any, pool: tuple[tuple[np.void, ...], str] | None) -> None:
        """Initialise the pyspiel game (a deal pool's, given its records and their text)."""
        self.engine = _engine(name, config)
        eng = self.engine.game
        info = eng.info
        full: dict[str, Any] = parameter_specification(name)
        full.update({f: getattr(config, f) for f in full})
        outcomes = info.max_chance_outcomes
        if pool is not None:
            self.pool_records, full["records"] = pool
            outcomes = max(outcomes, len(self.pool_records))
        #: the game string of saves: every field, exact floats (``str(game)`` names the same game)
        self.save_string = _game_string(name, config, None if pool is None else pool[1])
        super().__init__(
            game_type(name, pool is not None),
            pyspiel.GameInfo(
                num_distinct_actions=info.num_actions,
                max_chance_outcomes=outcomes,
                num_players=eng.num_players,
                min_utility=eng.min_utility,
                max_utility=eng.max_utility,
                utility_sum=0.0,
                max_game_length=eng.max_game_length + (pool is not None),
            ),
            full,
        )
        self._initial = self.engine.initial  # a pool's root shows the observations of a fresh record
        self._initial_cur = int(eng.current_player(self._initial))

    @property
    def octagame(self) -> Game:
        """The wrapped :class:`octagames.core.Game`."""
        return self.engine.game

    def __reduce__(self) -> tuple:
        """Pickle and ``copy.deepcopy`` by the game string.

        pybind's own pickle of a Python game rebuilds its C++ side only: the game
        came back without its engine.
        """
        return (_game_from_string, (self.save_string,))

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

    def deserialize_state(self, text: str) -> "OctagamesState":
        """The state of ``state.serialize()`` text, checked before anything is built.

        Args:
            text: a state's plain text (the ``[State]`` of a save).

        Returns:
            The state (record, history and move number as saved).

        Raises:
            ValueError: malformed text, a pickle in pyspiel's layout that is not an
                octagames node's (read without running it, see :class:`_SaveUnpickler`),
                a record of another game or config than this game (naming both),
                or a record ``Game.from_bytes`` refuses.
        """
        records = getattr(self, "pool_records", None)
        return _build_state(self, _parse_state(text, self.engine, None if records is None else len(records)))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> "OctagamesObserver":
        """An observer giving the engine's observation tensor and its exact string.

        The engine's observation is one seat's view: the public information and
        that seat's private information. So the observer serves the requests of
        that kind, ``public_info=True`` with ``private_info=SINGLE_PLAYER``,
        with ``perfect_recall`` True (information state) or False (observation)
        alike (the engine's observation is the information state, see the
        module's docstring), and ``None`` (the default observation). A request
        for public information only (``private_info=NONE``), for every
        player's (``ALL_PLAYERS``) or for private information only
        (``public_info=False``) is refused rather than answered with the
        seat's private view.

        Args:
            iig_obs_type: ``pyspiel.IIGObservationType`` or ``None`` (pyspiel may
                also pass ``params`` here positionally).
            params: observer parameters; none are supported.

        Raises:
            ValueError: non-empty ``params``, or an observation type other than
                the ones above (naming it and the supported ones).
        """
        if isinstance(iig_obs_type, dict):
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"octagames observers take no parameters, got {sorted(params)}")
        if iig_obs_type is not None and not (
                getattr(iig_obs_type, "public_info", None) is True
                and getattr(iig_obs_type, "private_info", None) == pyspiel.PrivateInfoType.SINGLE_PLAYER
                and getattr(iig_obs_type, "perfect_recall", None) in (True, False)):
            raise ValueError(f"iig_obs_type={_obs_type_text(iig_obs_type)} is not supported by "
                             f"{self.get_type().short_name}'s observer; supported: None or "
                             "IIGObservationType(perfect_recall=True or False, public_info=True, "
                             "private_info=PrivateInfoType.SINGLE_PLAYER) (one seat's view)")
        return OctagamesObserver(self.engine)


def _obs_type_text(obs_type: Any) -> str:
    """An ``IIGObservationType`` in words (pyspiel's ``repr`` gives only its address)."""
    fields = ("perfect_recall", "public_info", "private_info")
    if not all(hasattr(obs_type, f) for f in fields):
        return repr(obs_type)[:80]
    return "IIGObservationType(" + ", ".join(f"{f}={getattr(obs_type, f)}" for f in fields) + ")"


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

    def __setattr__(self, name: str, value: Any) -> None:
        # pyspiel's C++ Clone and deserialization set the attributes of a fresh state of
        # the [Game]: a record of another game or config is refused here, naming both
        if name == "_n":
            old = self.__dict__.get("_n")
            if old is not None and (type(value) is not _Node or value.eng is not old.eng
                                    or (value.root and not isinstance(self, OctagamesPoolState))):
                _check_node(old.eng, value, isinstance(self, OctagamesPoolState))
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple:
        """Pickle and ``copy.deepcopy`` by the plain save text (no pickle of code)."""
        return (_state_from_save, (serialize_game_and_state(self.get_game(), self),))

    def serialize(self) -> str:
        """The state as plain text: the ``[State]`` of a save (see :func:`serialize_game_and_state`).

        Returns:
            Lines ``key=value`` after a header: ``history``, ``move_number``, ``game``,
            ``record`` (base64 of ``Game.to_bytes``), ``before``, ``pool_root``.
        """
        hist = ",".join(f"{h.player}:{h.action}" for h in self.full_history())
        return f"{_STATE_HEADER}\nhistory={hist}\nmove_number={self.move_number()}\n{_node_text(self._n)}"

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
            return list(range(self._joint_size(self._joint_legal())))
        buf = n.eng.mask
        if player < 0 or not n.eng.kernels.legal_mask(n.rec, player, buf):
            return []
        return np.flatnonzero(buf).tolist()

    def _joint_legal(self) -> list[list[int]]:
        """The legal actions of every seat (empty for seats not acting)."""
        return [self._legal_actions(p) for p in range(self._n.eng.game.num_players)]

    @staticmethod
    def _joint_size(joint_legal: list[list[int]]) -> int:
        """The number of flat joint actions: the product of the acting seats' numbers of legal actions."""
        size = 1
        for legal in joint_legal:
            size *= len(legal) or 1
        return size

    def _flat_to_joint(self, flat: int) -> list[int]:
        """Decode a flat joint action like OpenSpiel's ``SimMoveState``.

        Seats without legal actions take no digit and get the placeholder 0.

        Raises:
            octagames.core.IllegalActionError: ``flat`` is not one of ``legal_actions()``
                (``0..size-1``); a larger number would otherwise wrap round to a legal one.
        """
        joint_legal = self._joint_legal()
        size = self._joint_size(joint_legal)
        if not 0 <= flat < size:
            acting = [p for p, legal in enumerate(joint_legal) if legal]
            raise IllegalActionError(f"joint action {flat} is not legal here: the flat joint actions are "
                                     f"0..{size - 1} (OpenSpiel's mixed radix over the acting seats {acting})")
        joint = []
        for legal in joint_legal:
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
        entries of the other seats are placeholders and are ignored
        (``pyspiel.INVALID_ACTION``, 0, any int from -2**31 to 2**31 - 1).
        pyspiel's history keeps every entry as given, placeholders included,
        and a save writes and reads them back as they are (``2:-1``), so
        a state reached this way saves, loads, pickles and deep-copies like
        any other. A placeholder outside that range is refused, because
        pyspiel's loader reads a history's actions as 32-bit ints. The whole
        joint action is checked before anything is applied.

        Raises:
            octagames.core.IllegalActionError: an acting seat's action is illegal.
            ValueError: ``actions`` does not have one entry per player, or an idle
                seat's placeholder is outside -2**31..2**31 - 1.
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
            elif not _ACTION_MIN <= int(actions[p]) <= _ACTION_MAX:
                raise ValueError(f"the placeholder {int(actions[p])} of player {p}, who has no legal action, "
                                 f"is out of range: valid placeholders are {_ACTION_MIN}..{_ACTION_MAX} "
                                 f"(pyspiel.INVALID_ACTION, 0, ...), which a save can hold")
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
def encode_records(name: str, records: Sequence[np.void], config: Any = None) -> str:
    """The ``records`` parameter of a pool game: the records as text.

    Args:
        name: a variant or game name.
        records: engine records of that game and config.
        config: the game's ``Config`` (default: the variant's config).

    Returns:
        ``Game.to_bytes`` of every record (format header, checksum) in URL-safe
        base64, joined by ``.``: letters, digits, ``_``, ``-`` and ``.`` only.

    Raises:
        ValueError: no records, or a record of another game or config.
    """
    eng = _engine(name, _config_from_params(name, {}) if config is None else config)
    if len(records) == 0:
        raise ValueError("records is empty; a pool game needs at least one record")
    for r in records:
        if getattr(r, "dtype", None) != eng.game.dtype:
            raise ValueError(f"records must be {name} records (dtype {eng.game.dtype}), got {r!r:.80}")
    return ".".join(_b64(eng.game.to_bytes(r)) for r in records)


def _decode_records(eng: _EngineRef, text: str, what: str) -> tuple[np.void, ...]:
    """The records of an :func:`encode_records` text, each checked by ``Game.from_bytes``."""
    if not text:
        raise ValueError(f"{what}: records is empty; a pool game needs at least one record")
    parts = text.split(".")
    return tuple(_record_from_text(eng, part, f"{what}: record {i}") for i, part in enumerate(parts))


class OctagamesPoolGame(OctagamesGame):
    """The adapter's game started from a uniform chance draw among given records.

    The initial state is a chance node with outcomes ``0 .. K-1`` of probability
    ``1/K``; outcome ``i`` continues from a copy of ``records[i]`` exactly as
    :class:`OctagamesState` does (same observations, strings, actions). Each game
    has a subclass (:func:`pool_class`) registered as ``octagames_<name>_pool``,
    whose parameters are the config fields and ``records`` (:func:`encode_records`),
    so ``pyspiel.load_game`` and saves name the whole game. :func:`load_pool`
    builds one from records.

    Args:
        params: OpenSpiel parameters: config fields and ``records``.
        name: a variant or game name; defaults to the class's :attr:`NAME`.
        records: the engine records (instead of ``params["records"]``).

    Raises:
        ValueError: no records, a record of another game or config, a record
            ``Game.from_bytes`` refuses, or a bad parameter.
    """

    def __init__(self, params: dict[str, Any] | None = None, name: str | None = None,
                 records: Sequence[np.void] | None = None):
        name = name or self.NAME
        if not name:
            raise ValueError("OctagamesPoolGame needs a game name (use pool_class(name) or name=...)")
        params = dict(params or {})
        text = params.pop("records", "")
        config = _config_from_params(name, params)
        if records is None:
            records = _decode_records(_engine(name, config), text, f"{short_name(name)}{_POOL}")
        else:
            text = encode_records(name, records, config)  # refuses empty pools, others' records
            records = tuple(_copy_record(r) for r in records)
        self._setup(name, config, (records, text))

    @property
    def records(self) -> tuple[np.void, ...]:
        """The records of the pool (live; treat them as read-only)."""
        return self.pool_records

    def new_initial_state(self, *args: Any) -> "OctagamesPoolState":
        """The root chance node over the pool's records.

        Raises:
            ValueError: a starting-state argument was given (not supported).
        """
        if args:
            raise ValueError("pool games can only start at the pool's chance node")
        return OctagamesPoolState(self, _Node(self.engine, _copy_record(self._initial), None, None, True))


class OctagamesPoolState(OctagamesState):
    """A state of :class:`OctagamesPoolGame`: the root chance node, then an :class:`OctagamesState`.

    At the root the wrapped record is a fresh one (for observations); after the
    first outcome ``i`` it is a copy of the pool's record ``i``.
    """

    def _records(self) -> tuple[np.void, ...]:
        return self.get_game().pool_records

    def _legal_actions(self, player: int) -> list[int]:
        """At the root: the record indices for chance; else as :class:`OctagamesState`."""
        if self._n.root:
            return list(range(len(self._records()))) if player == _CHANCE else []
        return super()._legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At the root: ``(i, 1/K)`` for every record ``i``; else the engine's."""
        if self._n.root:
            k = len(self._records())
            return [(i, 1.0 / k) for i in range(k)]
        return super().chance_outcomes()

    def _action_to_string(self, player: int, action: int) -> str:
        """``"pool record i"`` at the root; else the engine's name."""
        if self._n.root:
            return f"pool record {action}"
        return super()._action_to_string(player, action)

    def __str__(self) -> str:
        """The engine's rendering (at the root: the size of the pool)."""
        if self._n.root:
            return f"deal pool of {len(self._records())} records"
        return super().__str__()

    def _apply_action(self, action: int) -> None:
        """At the root: continue from a copy of record ``action``; else as :class:`OctagamesState`.

        Raises:
            IllegalActionError: at the root, ``action`` is not a record index.
        """
        if self._n.root:
            records = self._records()
            a = int(action)
            if not 0 <= a < len(records):
                raise IllegalActionError(f"pool outcome {a} is not possible here; "
                                         f"outcomes are 0..{len(records) - 1}")
            eng = self._n.eng
            self._n = _Node(eng, _copy_record(records[a]), None, eng.game.returns(self._n.rec))
            return
        super()._apply_action(action)


def load_pool(name: str, records: Sequence[np.void], **config: Any) -> OctagamesPoolGame:
    """The game ``octagames_<name>`` started from a uniform chance draw among ``records``.

    Example: OpenSpiel's exploitability on the reduced game that
    ``octagames.agents.cfr.tree.flatten(GameSource(game, roots=records))`` solves::

        records = octagames.agents.cfr.tree.deal_pool(game, 8, seed=0)
        spiel_game = octagames.envs.openspiel.load_pool("achten", records, **dataclasses.asdict(game.config))

    Args:
        name: a variant or game name.
        records: engine records of that game and config (outcome ``i`` of the root
            continues from ``records[i]``).
        **config: config fields, validated by the game's ``Config``.

    Returns:
        The pool game, registered as ``octagames_<name>_pool`` (sequential or
        simultaneous as the game; use ``pyspiel.convert_to_turn_based`` for
        simultaneous ones).

    Raises:
        ValueError: unknown game or parameter, bad value, or bad records.
    """
    params = _normalize_params(name, config)
    _config_from_params(name, params)  # raises ValueError naming the field
    register(name)
    return pool_class(name)(params, records=records)


def _check_node(eng: _EngineRef, node: Any, pool: bool) -> None:
    """Refuse a node set by pyspiel's C++ loader that does not belong to the ``[Game]`` (``eng``)."""
    if type(node) is not _Node:
        raise ValueError(f"the save's [State] holds a {type(node).__name__} where a record belongs")
    if node.root and not pool:
        raise ValueError("the save's [State] is a deal pool's root but its [Game] is not a deal-pool game")
    _check_agree(eng, node.eng.game.name, node.eng.game.config, "its [State] record")
    node.eng = eng


def serialize_game_and_state(game: OctagamesGame, state: OctagamesState) -> str:
    """A save of ``game`` and ``state``: pyspiel's layout, plain data only (no pickle).

    Args:
        game: an octagames pyspiel game (plain or deal pool).
        state: a state of ``game``.

    Returns:
        ``[Meta]``, ``[Game]`` (the game string, every config field, exact floats)
        and ``[State]`` (``state.serialize()``) sections, as
        ``pyspiel.serialize_game_and_state`` lays them out.

    Raises:
        ValueError: not an octagames game or state, or a state of another game.
    """
    if not isinstance(game, OctagamesGame) or not isinstance(state, OctagamesState):
        raise ValueError("serialize_game_and_state takes an octagames game and one of its states, got "
                         f"{type(game).__name__} and {type(state).__name__}; for pyspiel's transforms "
                         "(convert_to_turn_based) use pyspiel.serialize_game_and_state")
    other = state.get_game()
    if other is not game and getattr(other, "save_string", None) != game.save_string:
        raise ValueError(f"the state is a state of {other}, not of {game}")
    return (f"{_SAVE_COMMENT}\n[Meta]\nVersion: 1\n\n"
            f"[Game]\n{game.save_string}\n[State]\n{state.serialize()}\n")


def _sections(text: str) -> tuple[str, str]:
    """The ``[Game]`` line and ``[State]`` text of a save (pyspiel's layout; ``#`` comments)."""
    parts: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line in ("[Meta]", "[Game]", "[State]"):
            if line in parts:
                raise ValueError(f"the save has two {line} sections")
            current = parts[line] = []
        elif current is None:
            raise ValueError(f"the save starts with {line[:40]!r}; a save has [Meta], [Game] and "
                             "[State] sections")
        else:
            current.append(line)
    for section in ("[Game]", "[State]"):
        if section not in parts:
            raise ValueError(f"the save has no {section} section")
    if parts.get("[Meta]", ["Version: 1"]) != ["Version: 1"]:
        raise ValueError(f"the save's [Meta] must be 'Version: 1', got {parts['[Meta]'][:2]}")
    if len(parts["[Game]"]) != 1:
        raise ValueError(f"the save's [Game] must be one line, got {len(parts['[Game]'])}")
    return parts["[Game]"][0], "\n".join(parts["[State]"])


def deserialize_game_and_state(text: str | bytes) -> tuple[OctagamesGame, OctagamesState]:
    """Open a save of :func:`serialize_game_and_state`; everything is checked before it is built.

    The save is untrusted input: it is parsed as plain data (never ``eval`` or
    pickle), its ``[State]`` must name the game and config of its ``[Game]``, and
    every record passes ``Game.from_bytes`` (format, checksum, fields). A ``[State]`` in
    pyspiel's pickled layout (a ``__dict__=`` line) is read by :class:`_SaveUnpickler`, which
    resolves nothing but this module's node text, so nothing of the save runs.

    Args:
        text: the save (``str``, or UTF-8 ``bytes``).

    Returns:
        ``(game, state)``.

    Raises:
        ValueError: one message saying what is wrong: not a save, pickled, a line
            malformed, a game or field unknown, [Game] and [State] disagreeing
            (naming both), a record refused.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"the save is not UTF-8 text (byte {e.start})") from None
    if not isinstance(text, str):
        raise ValueError(f"a save is text (str or UTF-8 bytes), got {type(text).__name__}")
    game_text, state_text = _sections(text)
    name, config, records = _parse_game(game_text, "the save's [Game]")
    parsed = _parse_state(state_text, _engine(name, config), None if records is None else len(records))
    game = _build_game(name, config, records)
    return game, _build_state(game, parsed)


def _parse_game(text: str, what: str) -> tuple[str, Any, tuple[np.void, ...] | None]:
    """``(name, config, a pool's records or None)`` of a game string, every record checked."""
    name, config, records_text = _parse_game_string(text, what)
    if records_text is None:
        return name, config, None
    return name, config, _decode_records(_engine(name, config), records_text, what)


def _build_game(name: str, config: Any, records: tuple[np.void, ...] | None) -> OctagamesGame:
    """The registered pyspiel game of a checked config (and a pool's records)."""
    register(name)
    params = {f: getattr(config, f) for f in parameter_specification(name)}
    return game_class(name)(params) if records is None else pool_class(name)(params, records=records)


def _game_from_string(text: str) -> OctagamesGame:
    """The game of its game string (how a pickled game is rebuilt)."""
    return _build_game(*_parse_game(text, "the game string"))


def _state_from_save(text: str) -> OctagamesState:
    """The state of a save (how a pickled state is rebuilt)."""
    return deserialize_game_and_state(text)[1]


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------
def _subclass(name: str, base: type, pool: bool) -> type:
    """The cached subclass of ``base`` that wraps game ``name`` (its constructor takes the parameters)."""
    key = name + (_POOL if pool else "")
    cls = _CLASSES.get(key)
    if cls is None:
        _module(name)
        words = "".join(word.capitalize() for word in name.split("-"))
        cls_name = f"Octagames{words}{'Pool' if pool else ''}Game"
        sn = short_name(name) + (_POOL if pool else "")
        cls = _CLASSES[key] = type(
            cls_name, (base,),
            {"NAME": name, "__module__": __name__, "__qualname__": cls_name,
             "__doc__": f"pyspiel game ``{sn}`` (see :class:`{base.__name__}`)."})
        globals()[cls_name] = cls  # so that pickle finds it
    return cls


def game_class(name: str) -> type[OctagamesGame]:
    """The :class:`OctagamesGame` subclass registered for ``name`` (cached).

    Args:
        name: a variant or game name.

    Returns:
        A class whose constructor takes the OpenSpiel parameters.
    """
    return _subclass(name, OctagamesGame, False)


def pool_class(name: str) -> type[OctagamesPoolGame]:
    """The :class:`OctagamesPoolGame` subclass registered as ``octagames_<name>_pool`` (cached).

    Args:
        name: a variant or game name.

    Returns:
        A class whose constructor takes the OpenSpiel parameters (config fields and ``records``).
    """
    return _subclass(name, OctagamesPoolGame, True)


def register(name: str) -> None:
    """Register ``name`` with pyspiel as ``octagames_<name>`` and ``octagames_<name>_pool`` (idempotent).

    Args:
        name: a variant or game name (``"octa-nl"`` registers ``octagames_octa_nl``).

    Raises:
        ValueError: unknown name (the valid names are listed).
    """
    sn = short_name(name)
    if sn in _REGISTERED:
        return
    _module(name)
    registered = pyspiel.registered_names()
    for pool in (False, True):
        if sn + (_POOL if pool else "") not in registered:
            # a class, not a closure: pyspiel's registry outlives the interpreter and
            # a closure freed from there at exit aborts the process
            pyspiel.register_game(game_type(name, pool), _subclass(name, OctagamesPoolGame if pool
                                                                    else OctagamesGame, pool))
    _REGISTERED.add(sn)


def register_all(strict: bool = True) -> list[str]:
    """Register every variant of every installed game, and the games' own names (idempotent).

    Args:
        strict: raise if a name cannot be registered; with ``False`` such a
            name (e.g. of a rules module still being written that lacks ``INFO``)
            is skipped with a ``RuntimeWarning``.

    Returns:
        The pyspiel short names registered (``octagames_<name>``, ``_`` for ``-``).

    Raises:
        Exception: with ``strict``, whatever stopped a name from registering.
    """
    done = []
    for name in _names().values():
        try:
            register(name)
        except Exception as exc:  # noqa: BLE001 - reported, or re-raised when strict
            if strict:
                raise
            warnings.warn(f"{short_name(name)} not registered with pyspiel: {exc!r}",
                          RuntimeWarning, stacklevel=2)
            continue
        done.append(short_name(name))
    return done


def load(name: str, **config: Any) -> pyspiel.Game:
    """Load ``octagames_<name>`` with config fields as game parameters.

    The config is validated first, so a bad value raises the config's
    ``ValueError`` naming the field.

    Args:
        name: a variant or game name (``"octrix"``, the match to 88; ``"octrix-round"``; ``"octa-nl"``).
        **config: config fields over the variant's (``num_players=3``, ``target=30``, ...).

    Returns:
        The pyspiel game.

    Raises:
        ValueError: unknown name, unknown parameter or bad value.
    """
    params = _normalize_params(name, config)
    _config_from_params(name, params)  # raises ValueError naming the field
    register(name)
    return pyspiel.load_game(short_name(name), params)


def _saves_an_octagames_game(text: Any) -> bool:
    """Whether a save may be one of this module's games: it names ``octagames_`` anywhere.

    Deliberately wider than pyspiel's own reading of the ``[Game]`` section (which skips blank
    and ``#`` lines): whatever could load one of our games must go through
    :func:`deserialize_game_and_state`, which refuses what it cannot parse.
    """
    if isinstance(text, (bytes, bytearray)):
        return PREFIX.encode() in bytes(text)
    return isinstance(text, str) and PREFIX in text


_PYSPIEL_DESERIALIZE = getattr(pyspiel.deserialize_game_and_state, "pyspiel_function",
                               pyspiel.deserialize_game_and_state)


def guarded_deserialize_game_and_state(text: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """``pyspiel.deserialize_game_and_state`` that never unpickles a save of an octagames game.

    pyspiel's own function (open_spiel 2.0.2) unpickles a Python state's
    ``__dict__=`` line in C++ before any code of the game runs, so a crafted save
    could run code. Importing this module puts this function in its place: a save
    whose ``[Game]`` names an octagames game is opened by
    :func:`deserialize_game_and_state` (plain data; pyspiel's layout read without
    running anything of it), every other save by pyspiel's function as before.
    C++ callers of pyspiel are not covered: open untrusted saves from Python.

    Raises:
        ValueError: an octagames save refused (see :func:`deserialize_game_and_state`).
    """
    if _saves_an_octagames_game(text):
        return deserialize_game_and_state(text)
    return _PYSPIEL_DESERIALIZE(text, *args, **kwargs)


guarded_deserialize_game_and_state.pyspiel_function = _PYSPIEL_DESERIALIZE  # type: ignore[attr-defined]

# Import registers every game that follows the contract (a broken one only warns) and guards
# pyspiel's save loader for them.
register_all(strict=False)
pyspiel.deserialize_game_and_state = guarded_deserialize_game_and_state
