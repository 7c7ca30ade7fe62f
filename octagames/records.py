"""Game records: one whole game in a documented JSON format, to save, load, check and replay.

A record names the variant and its full config, the seed, the agent of every seat, every
action in order (the chance outcomes included, so a replay needs no random numbers), each
action's name as the engine gives it, the returns and, where an agent told, what it
considered. The format (``"octagames-record-1"``), one JSON object::

    {
      "format": "octagames-record-1",
      "game": "achten",                       the rules package
      "variant": "achten",                    catalogue.variant_name(game, config)
      "config": {"num_players": 2, ...},      every field of the game's Config
      "seed": 3,                              the seed of Game.new_state
      "agents": ["heuristic", "random"],      per seat: an agent spec, "human", or "" (unknown)
      "actions": [34, 46, ..., 10],           every action, chance outcomes included
      "players": [-1, -1, ..., 0],            who took each: a seat, or -1 (chance)
      "names": ["deal ♠10 to P1", ...],       Game.action_to_string just before each action
      "thinking": {"11": {"policy": {"1": 0.8, "10": 0.2}, "value": 0.31, "visits": 50,
                          "values": {"1": 0.33, "10": 0.2}, "prior": {"1": 0.6, "10": 0.4}}},
                                              optional, by move index: what the agent
                                              considered, where it told (every key optional):
                                              its shares of its moves (search visits, a
                                              policy's probabilities), its value, the
                                              simulations or worlds behind them, each move's
                                              value and its network's prior
      "returns": [0.01, -0.01],               the final returns; null while unfinished
      "length": 23,                           the number of actions
      "meta": {}                              optional, free (a journal's key, a date, ...)
    }

The names are the all-seeing ones (a chance outcome names the card dealt): a seat's view
of the move list comes from :func:`move_names` with ``seat``, never from the record's
``names``. A record is untrusted input: it is read with :mod:`json` only, checked field
by field (:meth:`GameRecord.from_dict`, a ``ValueError`` naming the field), and
:func:`check` replays it through the rules (every action legal for the seat it names,
every name the engine's, the returns the engine's).

The API::

    rec = Recorder(game, seed, ["human", "mcts:500"])   # while playing:
    rec.apply(state, action, thinking=None)              #   names, applies and keeps the action
    record = rec.record(state)                           #   a GameRecord (returns when over)
    record.save("game.json"); record.to_json(); GameRecord.from_json(text)
    load("game.json")              # [GameRecord]: a record file, or every record of a journal
    load_game(path, index=0)       # one of them, checked
    check(record)                  # replays it; ValueError naming the first wrong move
    record.make_game()             # the Game it was played under
    states(record)                 # the positions: states[k] after the first k actions
    states(record, seat=1)         # the same, with what seat 1 cannot see resampled
    move_names(record, seat=1)     # the move list as seat 1 saw it (hidden moves marked)
    name_reveals(record, seat=1)   # after how many moves seat 1 knows each move's name
    views(record, seat=1)          # Game.render of every position for seat 1 (None: all-seeing)

Journals (``agents/arena.py``'s ``GameJournal``) keep each game's record in its row
(``{"key": 4, "returns": [...], "length": 122, "record": {...}}``); rows written before
records were kept have none, and :func:`load` skips them. See ``docs/records.md``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from octagames import catalogue
from octagames.core import CHANCE, SIMULTANEOUS, TERMINAL, Game, load_module

#: the format tag of the records this version writes and reads
FORMAT = "octagames-record-1"

#: the keys of a move's thinking: the per-move ones (action -> number), then the others
THINKING_MOVES = ("policy", "values", "prior")
THINKING_KEYS = THINKING_MOVES + ("value", "visits")
#: how a number that keys a record's thinking (a move index, an action id) is written in JSON: plain ASCII
#: digits without a leading zero, the one spelling of each number (``str(n)``), so two keys never name one
#: move or action (``"016"`` and ``"16"`` would, the later silently replacing the other)
NUMBER_KEY = re.compile(r"0|[1-9][0-9]*")

#: the name a seat's view gives a chance outcome it did not see
HIDDEN_CHANCE = "chance (hidden)"

_KEYS = ("format", "game", "variant", "config", "seed", "agents", "actions", "players", "names",
         "thinking", "returns", "length", "meta")
_OPTIONAL = ("thinking", "meta")


@dataclass
class GameRecord:
    """One game: what the JSON format holds (see the module's docstring), as Python values.

    Attributes:
        game: the rules package's short name.
        variant: :func:`octagames.catalogue.variant_name` of the config.
        config: every field of the game's ``Config``.
        seed: the seed of ``Game.new_state``.
        agents: per seat, the agent's spec (``"human"`` for a person, ``""`` unknown).
        actions: every action in order, chance outcomes included.
        players: who took each action: a seat, or -1 (chance).
        names: each action's name (``Game.action_to_string`` just before it, all-seeing).
        returns: the final returns, or ``None`` for an unfinished game.
        thinking: by move index, what the agent considered: ``{"policy": {action: share},
            "value": v, "values": {action: v}, "prior": {action: p}, "visits": n}`` (every key
            optional; see ``docs/records.md``).
        meta: free-form JSON values (a journal's key, a date, ...).
    """

    game: str
    variant: str
    config: dict[str, Any]
    seed: int
    agents: list[str]
    actions: list[int] = field(default_factory=list)
    players: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    returns: list[float] | None = None
    thinking: dict[int, dict[str, Any]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def length(self) -> int:
        """The number of actions, chance outcomes included."""
        return len(self.actions)

    @property
    def num_players(self) -> int:
        """The seats."""
        return int(self.config["num_players"])

    @property
    def finished(self) -> bool:
        """Whether the game is over (its returns are known)."""
        return self.returns is not None

    def make_game(self) -> Game:
        """The :class:`~octagames.core.Game` the record was played under (built once per config)."""
        return _game(self.game, json.dumps(self.config, sort_keys=True))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the format (plain lists, dicts, numbers and strings)."""
        out: dict[str, Any] = {
            "format": FORMAT, "game": self.game, "variant": self.variant, "config": dict(self.config),
            "seed": int(self.seed), "agents": list(self.agents), "actions": [int(a) for a in self.actions],
            "players": [int(p) for p in self.players], "names": list(self.names),
            "returns": None if self.returns is None else [float(r) for r in self.returns],
            "length": self.length}
        if self.thinking:
            out["thinking"] = {str(k): thinking_json(t) for k, t in sorted(self.thinking.items())}
        if self.meta:
            out["meta"] = dict(self.meta)
        return out

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (UTF-8 card suits kept as they are)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def save(self, path: str | Path) -> Path:
        """Write the record to ``path`` as JSON (folders are created); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json(indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def from_dict(cls, data: Any) -> "GameRecord":
        """A record from its JSON object, every field checked (not yet replayed: see :func:`check`).

        Raises:
            ValueError: not a record of this format; an unknown game; a config with unknown,
                missing or bad fields; a variant that is not its config's; a field of the wrong
                type or length (the message names the field).
        """
        if not isinstance(data, dict):
            raise ValueError(f"a game record is a JSON object, not {type(data).__name__}")
        fmt = data.get("format")
        if fmt != FORMAT:
            raise ValueError(f"format={fmt!r} is not a record format this octagames reads (it reads {FORMAT!r})")
        missing = [k for k in _KEYS if k not in data and k not in _OPTIONAL]
        unknown = sorted(set(data) - set(_KEYS))
        if missing or unknown:
            raise ValueError(f"a record has the fields {list(_KEYS)}; this one "
                             + (f"lacks {missing}" if missing else f"has unknown {unknown}"))
        game = data["game"]
        if game not in catalogue.games():
            raise ValueError(f"game={game!r} is not valid; valid values: {catalogue.games()}")
        config = _check_config(game, data["config"])
        variant = catalogue.variant_name(game, config)
        if data["variant"] != variant:
            raise ValueError(f"variant={data['variant']!r} does not match the record's config, "
                             f"which plays {variant!r}")
        n = int(config["num_players"])
        seed = _int("seed", data["seed"], 0, 2**63 - 1)
        agents = data["agents"]
        if not isinstance(agents, list) or len(agents) != n or not all(isinstance(a, str) for a in agents):
            raise ValueError(f"agents must be a list of {n} strings (one agent spec per seat), got {agents!r:.80}")
        actions = _int_list("actions", data["actions"], 0, None)
        module = load_module(game)
        longest = module.max_game_length(module.Config(**config)) if hasattr(module, "max_game_length") \
            else module.INFO.max_game_length
        length = _int("length", data["length"], 0, int(longest))
        if length != len(actions):
            raise ValueError(f"length={length} but the record has {len(actions)} actions")
        players = _int_list("players", data["players"], CHANCE, n - 1)
        names = data["names"]
        if not isinstance(names, list) or not all(isinstance(s, str) for s in names):
            raise ValueError("names must be a list of strings")
        for key, values in (("players", players), ("names", names)):
            if len(values) != len(actions):
                raise ValueError(f"{key} has {len(values)} entries for {len(actions)} actions")
        returns = data["returns"]
        if returns is not None:
            if not isinstance(returns, list) or len(returns) != n or not all(
                    _is_number(r) and math.isfinite(r) for r in returns):
                raise ValueError(f"returns must be null or a list of {n} finite numbers, got {returns!r:.80}")
            returns = [float(r) for r in returns]
        thinking = _check_thinking(data.get("thinking", {}), players)
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError("meta must be a JSON object")
        return cls(game, variant, config, seed, list(agents), actions, players, list(names), returns,
                   thinking, dict(meta))

    @classmethod
    def from_json(cls, text: str | bytes) -> "GameRecord":
        """A record from JSON text (:meth:`from_dict` checks it).

        Raises:
            ValueError: not JSON, or not a valid record (see :meth:`from_dict`).
        """
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise ValueError(f"not a JSON game record: {e}") from None
        return cls.from_dict(data)


class Recorder:
    """Builds the record of a game while it is played: what the arena and ``play`` use.

    Args:
        game: the game being played.
        seed: the seed its record was made with (``game.new_state(seed)``).
        agents: the agent spec of every seat (``"human"`` for a person).
        meta: free-form JSON values kept with the record.

    Raises:
        ValueError: not one agent per seat.
    """

    def __init__(self, game: Game, seed: int, agents: Sequence[str], meta: dict[str, Any] | None = None) -> None:
        if len(agents) != game.num_players:
            raise ValueError(f"{len(agents)} agents for {game.num_players} seats")
        self.game = game
        config = catalogue.full_config(game.name, game.config)
        self._record = GameRecord(game.name, catalogue.variant_name(game.name, config), config, int(seed),
                                  [str(a) for a in agents], meta=dict(meta or {}))

    def apply(self, s: np.void, action: int, thinking: dict[str, Any] | None = None) -> None:
        """Name ``action``, apply it to ``s`` (for the acting seat or chance) and keep it.

        Args:
            s: the game's current record (changed in place).
            action: the action (a chance outcome at a chance node).
            thinking: what the agent considered (``{"policy": {action: share}, "value": v, ...}``:
                :data:`THINKING_KEYS`, see ``docs/records.md``); the moves that are not legal
                here are left out (a network may spread a little over them).

        Raises:
            IllegalActionError: the action is not legal; ``s`` and the record are unchanged.
            ValueError: ``thinking`` is not of that form; ``s`` and the record are unchanged.
        """
        g, r = self.game, self._record
        player = int(g.acting_player(s))
        told = checked_thinking(thinking, g.legal_mask(s, player)) if thinking and player >= 0 else None
        action = g._action_id(action, s)  # an integer id: a float, a bool or a string is refused, not truncated
        name = g.action_to_string(s, action)
        g.apply_action(s, action)
        r.actions.append(action)
        r.players.append(player)
        r.names.append(name)
        if told:
            r.thinking[len(r.actions) - 1] = told

    def truncate(self, length: int) -> None:
        """Forget the moves after the first ``length`` (a take-back)."""
        r = self._record
        del r.actions[length:], r.players[length:], r.names[length:]
        r.thinking = {k: t for k, t in r.thinking.items() if k < length}

    @property
    def length(self) -> int:
        """The moves kept so far."""
        return len(self._record.actions)

    def record(self, s: np.void) -> GameRecord:
        """The record so far (a copy), with the returns when ``s`` is over."""
        r = self._record
        returns = [float(x) for x in self.game.returns(s)] if self.game.is_terminal(s) else None
        return dataclasses.replace(r, config=dict(r.config), agents=list(r.agents), actions=list(r.actions),
                                   players=list(r.players), names=list(r.names), returns=returns,
                                   thinking=dict(r.thinking), meta=dict(r.meta))


def checked_thinking(thinking: Any, legal: np.ndarray) -> dict[str, Any]:
    """One move's thinking as a record keeps it: checked, as Python values (action ids as ints, numbers
    rounded to 4 digits; numpy's numbers converted), the moves that are not legal left out (a network
    may spread a little over them). What :class:`Recorder` keeps and
    :func:`octagames.agents.base.decide` hands on.

    Args:
        thinking: what an agent considered (``{"policy": {action: share}, "value": v, ...}``:
            :data:`THINKING_KEYS`, see ``docs/records.md``).
        legal: the acting seat's legal mask.

    Returns:
        A new dict; the input is not changed.

    Raises:
        ValueError: ``thinking`` is not of that form (naming the key).
    """
    told = _thinking_from(thinking, "thinking")
    for key in THINKING_MOVES:
        if key in told:
            told[key] = {a: x for a, x in told[key].items() if 0 <= a < len(legal) and legal[a]}
    return told


def thinking_json(thinking: dict[str, Any]) -> dict[str, Any]:
    """One move's thinking as JSON values (the actions of its per-move maps as strings).

    Args:
        thinking: as a record keeps it (:attr:`GameRecord.thinking`'s values).

    Returns:
        A new dict; the input is not changed.
    """
    return {key: {str(a): x for a, x in v.items()} if key in THINKING_MOVES else v for key, v in thinking.items()}


def load(path: str | Path, check_moves: bool = True) -> list[GameRecord]:
    """The records of a file: one record (a JSON object), or every record a game journal keeps.

    Args:
        path: a record file or a journal (``*.games.jsonl``).
        check_moves: replay every record through the rules (:func:`check`).

    Returns:
        The records, in the file's order (a journal's rows without a record are skipped).

    Raises:
        FileNotFoundError: no such file.
        ValueError: neither a record nor a journal (a binary file: not UTF-8 text); a journal with no
            record (written before journals kept them); a record that is not valid (naming the row and
            what is wrong).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not a text (UTF-8) record or journal: byte {e.start} is not UTF-8 "
                         f"({e.reason}); a record is the JSON text that octagames writes") from e
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict) and "header" not in whole:
        records = [_valid(GameRecord.from_dict, whole, f"{path}")]
    else:
        records = _journal_records(path, text)
    if check_moves:
        for i, r in enumerate(records):
            _valid(check, r, f"{path}" if len(records) == 1 else f"{path}, game {i}")
    return records


def load_game(path: str | Path, index: int = 0) -> GameRecord:
    """Game ``index`` of :func:`load` (the only one of a record file), checked by :func:`check`.

    Raises:
        FileNotFoundError: no such file.
        ValueError: as :func:`load`, or no game ``index`` in the file (the message gives the count).
    """
    records = load(path, check_moves=False)
    if not -len(records) <= index < len(records):
        raise ValueError(f"index={index} is not valid: {path} holds {len(records)} game record(s), "
                         f"0..{len(records) - 1}")
    record = records[index]
    _valid(check, record, f"{path}" if len(records) == 1 else f"{path}, game {index}")
    return record


def check(record: GameRecord) -> None:
    """Replay ``record`` through the rules and refuse it unless everything in it is the engine's.

    Raises:
        ValueError: a move whose player is not the seat to act, an illegal action (named, with
            the rule it breaks), a name that is not the engine's, thinking over actions that are
            not legal there, or returns that are not the final position's (a finished record
            must end the game, and a record whose moves end the game must give its returns).
    """
    g = record.make_game()
    s = g.new_state(record.seed)
    for k, (a, p, name) in enumerate(zip(record.actions, record.players, record.names)):
        s = _step(g, s, k, a, p, name, record.thinking.get(k))
    if record.returns is None:
        if g.is_terminal(s):  # "null for a game that is not over": a finished game's record names its returns
            raise ValueError(f"returns=None says the game is not over, but its {record.length} moves end it: "
                             f"returns must be {[float(x) for x in g.returns(s)]}")
        return
    if not g.is_terminal(s):
        raise ValueError(f"the record has returns but its {record.length} moves do not end the game")
    want = g.returns(s)
    if not np.allclose(want, record.returns, rtol=1e-9, atol=1e-9):
        raise ValueError(f"returns={record.returns} are not the game's, {[float(x) for x in want]}")


def states(record: GameRecord, seat: int | None = None) -> list[np.void]:
    """The positions of a record: ``out[k]`` after its first ``k`` actions (``length + 1`` of them).

    Every action is checked legal as it is replayed (:func:`check` checks the rest).

    Args:
        record: the record.
        seat: ``None`` for the true positions; a seat for positions in which everything that
            seat cannot see is resampled (:meth:`Game.determinize`, seeded by the record's seed
            and the move), safe to hand to whoever plays that seat.

    Raises:
        ValueError: an illegal action (naming the move) or a bad seat.
    """
    g = record.make_game()
    if seat is not None:
        seat = g._check_player(seat)
    s = g.new_state(record.seed)
    out = [g.clone(s)]
    for k, a in enumerate(record.actions):
        _apply(g, s, k, a)
        out.append(g.clone(s))
    if seat is not None:
        out = [g.determinize(x, seat, (record.seed * 1_000_003 + k) % (2**31)) for k, x in enumerate(out)]
    return out


def move_names(record: GameRecord, seat: int | None = None, upto: int | None = None) -> list[str]:
    """The names of the first ``upto`` moves (default: all) as ``seat`` knows them after them.

    All-seeing (``seat=None``): the record's names. A seat is shown a move's name from the
    step :func:`name_reveals` gives; before it (or never), a chance outcome reads
    :data:`HIDDEN_CHANCE` and another seat's simultaneous move ``"P1 moves (hidden)"``.

    Raises:
        ValueError: a bad seat or ``upto``; an illegal action in the record.
    """
    n = record.length if upto is None else upto
    if not 0 <= n <= record.length:
        raise ValueError(f"upto={upto} is not valid; valid values: 0..{record.length}")
    if seat is None:
        return list(record.names[:n])
    return [name if step is not None and step <= n else hidden_name(record, k)
            for k, (step, name) in enumerate(_seat_view(record, seat)[:n])]


def round_over(seats: frozenset[int], moved: set[int]) -> bool:
    """Whether a round of simultaneous moves is over: every seat that moves in it (:func:`round_seats`) has.

    Until 2026-12-07 a round was taken to end where a seat no higher than the last one acted again, so the
    dealer's pair of Octrix's partnership game (dealer 0: seats 0 and 1, face up, then seats 2 and 3) stayed
    hidden until the whole trick was played (review)."""
    return seats <= moved


def round_seats(game: Game, s: np.void) -> frozenset[int]:
    """The seats that move in the round of simultaneous moves at ``s``, which no seat has moved in yet: those
    with a legal move (in Octrix's partnership game a trick takes two rounds, the dealer's pair and then the
    other two)."""
    return frozenset(p for p in range(game.num_players) if game.legal_mask(s, p).any())


class SimultaneousRound:
    """The round of simultaneous moves in progress in a game: the seats that move in it and those that have.

    Args:
        game: the game.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seats: frozenset[int] = frozenset()  # empty: no round in progress
        self.moved: set[int] = set()

    def move(self, s: np.void) -> None:
        """The acting seat moves in position ``s`` (before its move); nothing where ``s`` is not simultaneous."""
        if int(self.game.current_player(s)) != SIMULTANEOUS:
            return
        if not self.seats:
            self.seats, self.moved = round_seats(self.game, s), set()
        self.moved.add(int(self.game.acting_player(s)))

    def ended(self) -> bool:
        """Whether the round in progress is over (:func:`round_over`); it is then closed."""
        if self.seats and round_over(self.seats, self.moved):
            self.seats = frozenset()
            return True
        return False


def hidden_name(record: GameRecord, k: int) -> str:
    """What a seat that does not know move ``k`` reads in its place."""
    p = record.players[k]
    return HIDDEN_CHANCE if p == CHANCE else f"P{p} moves (hidden)"


def name_reveals(record: GameRecord, seat: int) -> list[int | None]:
    """For every move, after how many moves ``seat`` knows it (``None``: never).

    A seat knows its own moves and the other seats' moves as they are played (``k + 1`` for
    move ``k``: names are public by the engine contract), except:

    * a card dealt or drawn that does not lie face up to it after the deal (by the game's
      model of what each seat sees, ``octagames/<game>/public.py``): never. It reads the
      card it knows by the name of the first copy of its kind (Octa's two decks: which copy
      came may depend on cards it never saw);
    * another chance outcome its observation does not tell apart from every other possible
      outcome: never;
    * another seat's simultaneous move: once every seat of its round of simultaneous moves has moved
      (:func:`round_over`).

    Raises:
        ValueError: a bad seat; an illegal action in the record.
    """
    return [step for step, _ in _seat_view(record, seat)]


def _seat_view(record: GameRecord, seat: int) -> list[tuple[int | None, str]]:
    """``(step from which seat knows it, its name for the seat)`` of every move (see :func:`name_reveals`)."""
    g = record.make_game()
    known = SeatKnowledge(g, seat)
    s = g.new_state(record.seed)
    for k, a in enumerate(record.actions):
        known.add(s, a, record.names[k])
        _apply(g, s, k, a)
    known.reach(s)
    return list(known.moves)


class SeatKnowledge:
    """Which moves of a game one seat knows, and by what name, built move by move as the game goes.

    The rule :func:`name_reveals` and :func:`move_names` read (and the web app, which keeps one per
    game and seat while the game is played): ``moves[k]`` is ``(the step from which the seat knows
    move k, or None while it does not; the name it knows it by)``.

    Args:
        game: the game.
        seat: the seat whose knowledge is kept.

    Raises:
        ValueError: a bad seat.
    """

    def __init__(self, game: Game, seat: int) -> None:
        self.game = game
        self.seat = game._check_player(seat)
        #: per move: (the step from which the seat knows it, or None; its name for the seat)
        self.moves: list[tuple[int | None, str]] = []
        #: per move: whether it dealt or drew a card (by the game's ``public.deals_card``)
        self.deals: list[bool] = []
        self._names: list[str] = []  # the all-seeing names
        self._pending: list[int] = []  # other seats' simultaneous moves of the round in progress
        self._round = SimultaneousRound(game)

    def add(self, s: np.void, action: int, name: str | None = None) -> None:
        """Move ``len(moves)``: ``action`` taken in position ``s`` (not changed).

        Args:
            s: the position before the move.
            action: the action (a chance outcome at a chance node).
            name: its all-seeing name (default: ``Game.action_to_string``).
        """
        g, k = self.game, len(self.moves)
        self.reach(s)
        cp, p = int(g.current_player(s)), int(g.acting_player(s))
        name = g.action_to_string(s, int(action)) if name is None else name
        self._names.append(name)
        public = _public(g.name)
        self.deals.append(cp == CHANCE and public is not None and bool(public.deals_card(s)))
        if cp == CHANCE:
            known = _chance_name(g, s, self.seat, int(action))
            self.moves.append((None if known is None else k + 1, known or HIDDEN_CHANCE))
        elif cp == SIMULTANEOUS and p != self.seat:
            self.moves.append((None, f"P{p} moves (hidden)"))
            self._pending.append(k)
        else:
            self.moves.append((k + 1, name))
        self._round.move(s)

    def reach(self, s: np.void) -> None:
        """``s`` is the position after the moves so far: the other seats' simultaneous moves of a
        round they end (:func:`round_over`) are known from here."""
        if self._round.ended():
            for j in self._pending:
                self.moves[j] = (len(self.moves), self._names[j])
            self._pending = []

    def knows(self, k: int, step: int) -> bool:
        """Whether the seat knows move ``k`` after ``step`` moves."""
        known = self.moves[k][0]
        return known is not None and known <= step


def views(record: GameRecord, seat: int | None = None) -> list[str]:
    """The text render of every position (``Game.render``), all-seeing or as ``seat`` sees it.

    Raises:
        ValueError: a bad seat; an illegal action in the record.
    """
    g = record.make_game()
    return [g.render(s, seat) for s in states(record)]


def journal_record(row: dict[str, Any]) -> GameRecord | None:
    """The record a journal row keeps (checked as :meth:`GameRecord.from_dict`), or ``None`` for an
    older row without one."""
    data = row.get("record")
    return None if data is None else GameRecord.from_dict(data)


# ------------------------------------------------------------------ helpers

@lru_cache(maxsize=32)
def _game(game: str, config_json: str) -> Game:
    return Game(game, load_module(game).Config(**json.loads(config_json)))


def _journal_records(path: Path, text: str) -> list[GameRecord]:
    lines = text.splitlines()
    try:
        head = json.loads(lines[0]) if lines else None
    except (ValueError, RecursionError):
        head = None
    if not isinstance(head, dict) or "header" not in head:
        raise ValueError(f"{path} is neither a game record (a JSON object with \"format\": {FORMAT!r}) "
                         "nor a game journal (JSON lines, the first one a header)")
    records, rows = [], 0
    for i, line in enumerate(lines[1:], 2):
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):  # the last line of a killed run
            continue
        if not isinstance(row, dict):
            raise ValueError(f"{path}, line {i}: a journal row is a JSON object")
        rows += 1
        r = _valid(journal_record, row, f"{path}, line {i}")
        if r is not None:
            records.append(r)
    if not records:
        raise ValueError(f"{path} is a game journal of {rows} games without their records (written before "
                         "journals kept them); a new run of the same command writes them")
    return records


def _valid(fn: Any, value: Any, where: str) -> Any:
    try:
        return fn(value)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _apply(g: Game, s: np.void, k: int, a: int) -> None:
    try:
        g.apply_action(s, a)
    except ValueError as e:
        raise ValueError(f"move {k}: {e}") from None


def _step(g: Game, s: np.void, k: int, a: int, p: int, name: str, thinking: dict[str, Any] | None) -> np.void:
    """Check move ``k`` (action ``a`` by ``p`` named ``name``) against the engine; the position after it."""
    cp, act = int(g.current_player(s)), int(g.acting_player(s))
    if cp == TERMINAL:
        raise ValueError(f"move {k}: the game is already over")
    if act != p:
        who = "chance" if act == CHANCE else f"player {act}"
        raise ValueError(f"move {k}: the record says {'chance' if p == CHANCE else f'player {p}'} moves, "
                         f"but {who} is to act")
    if thinking is not None:
        legal = set(g.legal_actions(s, p))
        for key, what in (("policy", "shares"), ("values", "values"), ("prior", "priors")):
            bad = sorted(set(thinking.get(key, ())) - legal)
            if bad:
                raise ValueError(f"move {k}: the thinking gives {what} to actions {bad}, which are not legal there")
    after = g.clone(s)
    _apply(g, after, k, a)  # refuses an illegal action before it is named
    want = g.action_to_string(s, a)
    if name != want:
        raise ValueError(f"move {k}: the name {name!r} is not the engine's name of action {a}, {want!r}")
    return after


def _chance_name(g: Game, s: np.void, seat: int, a: int) -> str | None:
    """The name of chance outcome ``a`` at ``s`` as ``seat`` knows it, or ``None`` when it does not.

    A card dealt or drawn: by the game's model of what each seat sees
    (``octagames/<game>/public.py``: ``deals_card``, ``seen_ids``), the seat knows it when the
    card lies face up to it after the deal; it is named as the first copy of its kind (which
    copy came may depend on cards the seat never saw). Another outcome (Octiles' tiles, the
    start player): the seat knows it when its observation tells it apart from every other
    possible outcome.
    """
    after = g.clone(s)
    g.apply_action(after, a)
    public = _public(g.name)
    if public is not None and public.deals_card(s):
        if a not in public.seen_ids(after, seat):
            return None
        return g.action_to_string(s, _first_copy(g.name, g.info.max_chance_outcomes, a))
    seen = g.observation(after, seat).tobytes()
    for o, _ in g.chance_outcomes(s):
        if o != a:
            other = g.clone(s)
            g.apply_action(other, o)
            if g.observation(other, seat).tobytes() == seen:
                return None
    return g.action_to_string(s, a)


@lru_cache(maxsize=None)
def _first_copy(game: str, outcomes: int, card: int) -> int:
    """The lowest id of a card of the same kind as ``card`` (the game's ``public.kind``)."""
    kind = _public(game).kind
    return next((c for c in range(outcomes) if kind(c) == kind(card)), card)


@lru_cache(maxsize=None)
def _public(game: str) -> Any:
    """The game's model of what each seat sees (``octagames/<game>/public.py``: ``kind``, ``deals_card``)."""
    try:
        return importlib.import_module(f"octagames.{game}.public")
    except ModuleNotFoundError:
        return None


def _check_config(game: str, config: Any) -> dict[str, Any]:
    if not isinstance(config, dict):
        raise ValueError("config must be a JSON object of the game's Config fields")
    fields = [f.name for f in dataclasses.fields(load_module(game).Config)]
    missing, unknown = [f for f in fields if f not in config], sorted(set(config) - set(fields))
    if missing or unknown:
        raise ValueError(f"config of {game} must give every field {fields}; "
                         + (f"missing {missing}" if missing else f"unknown {unknown}"))
    return catalogue.full_config(game, config)  # the game's Config refuses bad values (naming the field)


def _is_number(x: Any) -> bool:
    """An int or float (numpy's included), not a bool."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _int(name: str, x: Any, lo: int, hi: int | None) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < lo or (hi is not None and x > hi):
        upper = "" if hi is None else f" and <= {hi}"
        raise ValueError(f"{name}={x!r:.40} is not valid; it must be an integer >= {lo}{upper}")
    return x


def _int_list(name: str, xs: Any, lo: int, hi: int | None) -> list[int]:
    if not isinstance(xs, list):
        raise ValueError(f"{name} must be a list of integers")
    for i, x in enumerate(xs):
        _int(f"{name}[{i}]", x, lo, hi)
    return list(xs)


def _thinking_from(t: Any, where: str) -> dict[str, Any]:
    """Thinking as Python values (JSON keys become ints, numbers are rounded to 4 digits):
    ``{"policy": {int: share}, "values": {int: float}, "prior": {int: share}, "value": float,
    "visits": int}``, every key optional (:data:`THINKING_KEYS`)."""
    if not isinstance(t, dict) or set(t) - set(THINKING_KEYS):
        raise ValueError(f"{where} must be an object with some of the keys {list(THINKING_KEYS)}")
    out: dict[str, Any] = {}
    for key in THINKING_MOVES:
        if key not in t:
            continue
        moves = t[key]
        if not isinstance(moves, dict):
            raise ValueError(f"{where}: {key} must map actions to numbers")
        out[key] = {}
        for a, x in moves.items():
            action = _key_number(a, f"{where}: {key} key", "an action id")
            if key == "values":
                if not _is_number(x) or not math.isfinite(x):
                    raise ValueError(f"{where}: the value of action {action} must be a finite number")
            elif not _is_number(x) or not 0 <= x <= 1:
                what = "share" if key == "policy" else "prior"
                raise ValueError(f"{where}: the {what} of action {action} must be a number in 0..1")
            out[key][action] = round(float(x), 4)
    if "value" in t:
        v = t["value"]
        if not _is_number(v) or not math.isfinite(v):
            raise ValueError(f"{where}: value must be a finite number")
        out["value"] = round(float(v), 4)
    if "visits" in t:
        n = t["visits"]
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"{where}: visits={n!r:.20} must be an integer >= 0")
        out["visits"] = int(n)
    return out


def _key_number(key: Any, where: str, what: str) -> int:
    """A thinking key as its number: an int (not a bool), or a string in its one spelling (:data:`NUMBER_KEY`).

    Raises:
        ValueError: anything else (``"016"``, ``"+16"``, ``" 16"``, ``"1_6"``, ``1.0``), naming it.
    """
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return int(key)
    if isinstance(key, str) and NUMBER_KEY.fullmatch(key):
        return int(key)
    raise ValueError(f"{where} {key!r:.20} is not {what} written as plain digits without a leading zero "
                     "(one spelling per number)")


def _check_thinking(data: Any, players: list[int]) -> dict[int, dict[str, Any]]:
    if not isinstance(data, dict):
        raise ValueError("thinking must be a JSON object keyed by move index")
    out = {}
    for key, t in data.items():
        k = _key_number(key, "thinking: key", "a move index")
        if not 0 <= k < len(players) or players[k] == CHANCE:
            raise ValueError(f"thinking[{key}]: move {key} is not a seat's move of the record")
        out[k] = _thinking_from(t, f"thinking[{key}]")
    return out
