"""The arena: play N games between agents with seat rotation, report win rates.

    >>> from octagames.agents.arena import play_match
    >>> from octagames.agents.base import RandomAgent
    >>> from octagames.agents.heuristics.octrix import OctrixHeuristicAgent
    >>> result = play_match("octrix", [OctrixHeuristicAgent(), RandomAgent()], num_games=100, seed=0)
    >>> print(result.table())

Agents never see what their seat cannot see: each decision gets a
:class:`octagames.agents.base.Turn` built by :func:`octagames.agents.base.make_turn`, whose state is a
determinized copy for that seat. Seats rotate so that every agent plays every
seat equally often over each ``n`` games (game ``g`` puts agent ``k`` in seat ``(k + g) % n``): a count of games
that is a multiple of the seats' ``n`` gives each agent every seat as often (10 games at 4 seats give agent 0
seats 0 and 1 three times each and seats 2 and 3 twice).

A run's :class:`GameJournal` keeps every game's record (:mod:`octagames.records`: the
actions, their names, the agents' thinking where they tell it), so that any game of an
evaluation, tournament or leaderboard can be replayed (``octagames replay``). One run at a
time writes a journal: it holds the journal's :class:`WriterLock` (a second is refused).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from octagames import catalogue
from octagames.agents.base import Agent, decide, make_turn
from octagames.core import CHANCE, TERMINAL, Game, IllegalActionError, check_seed
from octagames.records import GameRecord, Recorder

try:
    import fcntl
except ImportError:  # Windows: no flock; runs go on without a lock there (a second writer is not refused)
    fcntl = None  # type: ignore[assignment]


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (``wins`` may count draws as halves); it holds ``wins / n``.

    The interval always contains the proportion; in floating point its upper end at ``wins == n`` may come
    out a hair below 1 (``(6, 6)``: 0.9999999999999999), so each end is clamped to the proportion and to
    [0, 1] (an error bar drawn from it is never negative).
    """
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


@dataclass
class AgentRecord:
    """One agent's results in a match."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    total_return: float = 0.0

    @property
    def score(self) -> float:
        """Win rate counting a draw as half a win."""
        return (self.wins + 0.5 * self.draws) / max(1, self.games)

    @property
    def mean_return(self) -> float:
        """Average return per game."""
        return self.total_return / max(1, self.games)

    def interval(self) -> tuple[float, float]:
        """95% confidence interval of :attr:`score`."""
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)


@dataclass
class MatchResult:
    """Results of :func:`play_match`."""

    game: str
    config: dict[str, Any]
    num_games: int
    records: list[AgentRecord]
    mean_length: float
    seconds: float
    returns: list[list[float]] = field(default_factory=list)  # per game, per agent index

    @property
    def variant(self) -> str:
        """The variant and seats the games were played on (``octrix-round-2p``; see :func:`catalogue.describe`:
        a config no variant has is its closest variant plus what differs)."""
        return catalogue.describe(self.game, self.config)

    def table(self) -> str:
        """A text table: win rate with its 95% CI and mean return per agent, under the variant's name."""
        w = max(20, *(len(r.name) for r in self.records)) + 2  # long specs (ppo:<path>) keep the columns apart
        lines = [f"{self.variant}: {self.num_games} games, "
                 f"mean length {self.mean_length:.1f} actions, {self.seconds:.1f}s",
                 f"{'agent':<{w}}{'win rate':>9}  {'95% CI':<15}{'W/D/L':>13}{'mean return':>13}"]
        for r in self.records:
            lo, hi = r.interval()
            lines.append(f"{r.name:<{w}}{r.score:>9.3f}  {f'[{lo:.3f}, {hi:.3f}]':<15}"
                         f"{f'{r.wins}/{r.draws}/{r.losses}':>13}{r.mean_return:>13.3f}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (confidence intervals included)."""
        out = {"game": self.game, "config": self.config, "num_games": self.num_games,
               "mean_length": self.mean_length, "seconds": self.seconds, "agents": []}
        for r in self.records:
            d = asdict(r)
            d.update(win_rate=r.score, ci95=list(r.interval()), mean_return=r.mean_return)
            out["agents"].append(d)
        return out

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_json` to ``path`` (folders are created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2))
        return path


def sides(game: Game) -> tuple[int, ...]:
    """The side of every seat of ``game``: the seats of one side share its return (a partnership, a team).

    The rules module's optional ``side_of(s, p)`` kernel says it where a game has sides (Octrix's partnership,
    Octiles' team game: seats 0+2 against 1+3); in a game without it each seat is a side of its own.
    """
    side_of = getattr(game.module, "side_of", None)
    if side_of is None:
        return tuple(range(game.num_players))
    s = game.new_state(0)
    return tuple(int(side_of(s, p)) for p in range(game.num_players))


def match_partners(game: Game) -> list[int]:
    """The agents of :func:`play_match` (by index) on the side of agent 0 in every game, agent 0 left out: seats
    rotate (agent ``k`` in seat ``(k + g) % n`` in game ``g``), and a partner sits on its side whatever the
    rotation (agents 0 and 2 at a table of four with sides 0+2 against 1+3)."""
    side, n = sides(game), game.num_players
    return [k for k in range(1, n) if all(side[(k + g) % n] == side[g] for g in range(n))]


def play_game(game: Game, seats: Sequence[Agent], seed: int) -> tuple[np.ndarray, int]:
    """Play one game; ``seats[p]`` plays seat ``p`` (torch on one thread: :func:`torch_on_one_thread`).

    Args:
        game: the game and its config (``Game("octa-nl")``; a variant's name builds one).
        seats: one agent per seat.
        seed: the game's seed (its deal and chance), an integer in ``0..2**63-1``; the agents' seeds
            are drawn from it too.

    Returns:
        ``(returns, length)``: float64 ``[num_players]`` and the number of actions, chance included.

    Raises:
        ValueError: not one agent per seat, or a seed that is not an integer in ``0..2**63-1``.
    """
    returns, length, _ = _play(game, seats, seed, record=False)
    return returns, length


def record_game(game: Game, seats: Sequence[Agent], seed: int) -> GameRecord:
    """Play one game as :func:`play_game` does (the same moves) and return its record.

    Every action is named (``Game.action_to_string``); an agent's thinking is kept where it
    tells it (:func:`octagames.agents.base.decide`). The agents are named by their ``name``
    (their spec when built by ``make_agent``).
    """
    record = _play(game, seats, seed, record=True)[2]
    assert record is not None
    return record


@contextmanager
def torch_on_one_thread() -> Iterator[None]:
    """Torch's intra-op threads set to one for the block (where torch is imported), then put back.

    Every game of the arena is played so: a network's sums then come out in one order whatever the
    cores of the process that plays, so a game's moves are the same in this process (torch's default:
    a thread per core) and in a Ray task (one core), and the time per game side is one core's.
    """
    torch = sys.modules.get("torch")
    before = 1 if torch is None else torch.get_num_threads()
    if before != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if before != 1:
            torch.set_num_threads(before)


def _play(game: Game, seats: Sequence[Agent], seed: int, record: bool
          ) -> tuple[np.ndarray, int, GameRecord | None]:
    with torch_on_one_thread():
        return _play_on(game, seats, seed, record)


def _play_on(game: Game, seats: Sequence[Agent], seed: int, record: bool
             ) -> tuple[np.ndarray, int, GameRecord | None]:
    if not isinstance(game, Game):
        raise ValueError(f"game={game!r} is not a Game; build one: Game({game!r})")
    if len(seats) != game.num_players:
        raise ValueError(f"{len(seats)} agents for {game.num_players} seats")
    _check_agents(seats, "seats")
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    for p, agent in enumerate(seats):
        agent.reset(game, p, int(rng.integers(1 << 31)))
    rec = Recorder(game, seed, [getattr(a, "name", type(a).__name__) for a in seats]) if record else None
    length = 0
    while True:
        cp = game.current_player(s)
        if cp == TERMINAL:
            return game.returns(s), length, None if rec is None else rec.record(s)
        thinking = None
        if cp == CHANCE:
            action = game.sample_chance(s)
        else:
            p = game.acting_player(s)
            turn = make_turn(game, s, p, int(rng.integers(1 << 31)))
            if rec is None:  # nothing is kept: the agent need not tell its thinking
                action = seats[p].act(turn)  # as it is: apply_action refuses what is not an action id
            else:
                action, thinking = decide(seats[p], turn)
        try:
            if rec is None:
                game.apply_action(s, action)
            else:
                rec.apply(s, action, thinking)
        except IllegalActionError as e:  # seats rotate in a match: name the agent and the game, not the seat alone
            if cp == CHANCE:
                raise
            who = getattr(seats[p], "name", type(seats[p]).__name__)
            raise IllegalActionError(f"agent {who} (seat {p}) in the game of seed {seed}, after {length} "
                                     f"actions: {e}") from e
        length += 1


def _check_agents(agents: Sequence[Any], what: str) -> None:
    """Refuse what is not an :class:`Agent` among ``agents`` (a spec given as text), naming how to build it."""
    for i, a in enumerate(agents):
        if not isinstance(a, Agent):
            raise ValueError(f"{what}[{i}]={a!r} is not an Agent; build one: make_agent({a!r}, game)")


Job = tuple[int, tuple[int, ...], int]
"""One game to play: (key, the agent index of every seat, seed)."""


class NoHeaderError(ValueError):
    """A journal's file whose first line is not its header (a run killed while it started the file, or not a
    journal at all): no run's games can be told from it."""


class DamagedJournal(ValueError):
    """A journal's row that is not a game's (:func:`_game_rows`): its results would be counted, so the journal is
    refused, naming the line, rather than read or set aside."""


class BusyError(ValueError):
    """Another run holds the :class:`WriterLock` of what this one would write (a ValueError: the scripts
    report it in one line with exit status 2)."""


class WriterLock:
    """The lock of the one run that writes a journal or a run folder: an exclusive advisory ``flock``, taken
    without waiting (a second run, or a second journal on the same file in this process, is refused at once)
    and held until :meth:`release`, or until the process ends however it ends (the OS releases it: a killed
    run leaves no stale lock). Take it before anything it guards is read, rewritten, moved or removed.

    The locked file stays when the lock is released and is never deleted (a run deleting it could let two
    others lock two different files of one name); nothing is written in it. Where ``fcntl`` does not exist
    (Windows) nothing is locked and every run goes on. A process forked while holding it shares it; only
    :meth:`release` in the process that took it (closing its descriptor) gives it back.

    Args:
        path: what is locked: a folder (a run folder: its own entry, nothing created in it), or a file,
            created empty when missing with its folder (a journal's ``<name>.lock``).
        guarded: what the lock guards, as the message names it (the journal, the run folder).
        remedy: what to do instead, ending the message (``wait for that run to end, or ...``).

    Raises:
        BusyError: another run holds the lock (one line: ``guarded``, the holder's pid where Linux's
            ``/proc/locks`` tells it, and ``remedy``).
    """

    def __init__(self, path: str | Path, guarded: str, remedy: str) -> None:
        self._fd: int | None = None
        self.path = Path(path)
        if fcntl is None:
            return
        if not self.path.is_dir():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDONLY | (0 if self.path.is_dir() else os.O_CREAT), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _flock_holder(fd)
            os.close(fd)
            who = "" if pid is None else f" (pid {pid}{', this process' if pid == os.getpid() else ''})"
            raise BusyError(f"{guarded}: another run{who} is writing it; {remedy}") from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    @property
    def held(self) -> bool:
        """Whether this process holds the lock (False once released, and always where nothing is locked)."""
        return self._fd is not None

    def release(self) -> None:
        """Give the lock back (again: nothing). The file stays; the descriptor is closed, not unlocked, so a
        process forked from this one and closing its copy cannot release it for this one either."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:  # dropped without release (a run object left unclosed): given back with it
        self.release()


def _flock_holder(fd: int) -> int | None:
    """The pid that holds an ``flock`` on ``fd``'s file, from Linux's ``/proc/locks``; None where it is not
    told (another system, another pid namespace)."""
    st = os.fstat(fd)
    me = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    try:
        with open("/proc/locks") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:  # "1: FLOCK  ADVISORY  WRITE 878 fe:00:2582983 0 EOF" ("1: -> FLOCK ..." waits)
        parts = line.split()
        if "FLOCK" not in parts or "->" in parts:
            continue
        i = parts.index("FLOCK")
        try:
            pid, (major, minor, inode) = int(parts[i + 3]), parts[i + 4].split(":")
            if (int(major, 16), int(minor, 16), int(inode)) == me and pid > 0:
                return pid
        except (IndexError, ValueError):
            continue
    return None


def _rows(lines: Sequence[str]) -> Iterator[tuple[int, Any, str]]:
    """``(line number, row, line)`` of a journal's lines after its header (the first is line 2); a line cut short
    by a kill is skipped."""
    for i, line in enumerate(lines, 2):
        try:
            yield i, json.loads(line), line
        except ValueError:  # not JSON (JSONDecodeError), or an integer past the 4300 digits int() reads
            continue


def _game_rows(path: Path, lines: Sequence[str]) -> Iterator[tuple[int, list[float], int, dict[str, Any] | None]]:
    """``(key, returns, length, record or None)`` of each game row of a journal's lines after its header, checked:
    a line cut short by a kill is skipped, a row that is not a game's is refused (its results would be counted).

    Raises:
        DamagedJournal: a row whose key or length is not a count, whose returns are not finite numbers, or whose
            record ends otherwise than the row says (naming the file and the line; a ValueError).
    """
    for i, row, line in _rows(lines):
        rets = row.get("returns") if isinstance(row, dict) else None
        counts = isinstance(row, dict) and all(type(row.get(k)) is int and row[k] >= 0 for k in ("key", "length"))
        if not (counts and isinstance(rets, list) and rets and all(type(r) in (int, float) and math.isfinite(r)
                                                                   for r in rets)):
            raise DamagedJournal(f"{path}, line {i}: not a game's row ({{\"key\": <count>, \"returns\": [<finite "
                                 f"numbers>], \"length\": <count>}}): {line[:120]}")
        record = row.get("record")
        if record is not None and (not isinstance(record, dict) or record.get("returns") != rets
                                   or record.get("length", row["length"]) != row["length"]):
            raise DamagedJournal(f"{path}, line {i}: game {row['key']}'s record does not end as its row says "
                                 f"(returns {rets} in {row['length']} moves)")
        yield row["key"], [float(r) for r in rets], row["length"], record


def journal_lines(path: Path) -> list[str]:
    """The lines of the journal file at ``path``.

    Raises:
        NoHeaderError: (a ``ValueError``) the file is not UTF-8 text, so no journal (it raised a bare
            UnicodeDecodeError, naming no file; review, 2026-12-07).
    """
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise NoHeaderError(f"{path} is not a journal: byte {e.start} is not UTF-8 text ({e.reason}); a journal is "
                            "the JSON lines a run writes") from None


def journal_games(path: str | Path) -> dict[int, tuple[list[float], int]]:
    """The games a :class:`GameJournal` file holds, read and nothing written (no lock taken): ``{key: (returns,
    length)}``; a line cut short by a kill is skipped.

    Raises:
        ValueError: a row that is not a game's (:func:`_game_rows`), or a file that is not text
            (:func:`journal_lines`)."""
    path = Path(path)
    return {key: (rets, length) for key, rets, length, _ in _game_rows(path, journal_lines(path)[1:])}


def _journal_lock_path(path: Path) -> Path:
    """Where the lock of the journal ``path`` lies: ``<name>.lock`` beside it."""
    return path.with_name(path.name + ".lock")


def journal_lock(path: str | Path) -> WriterLock:
    """The lock of the journal ``path``: on ``<name>.lock`` beside it (which stays there). :class:`GameJournal`
    takes it; a caller that moves an old journal aside before opening the new one takes it first and passes
    it on (``GameJournal(..., lock=)``), so that the journal of a run under way is never moved.

    Raises:
        BusyError: another run writes the journal (naming it and the other run's pid where known).
    """
    path = Path(path)
    return WriterLock(_journal_lock_path(path), str(path),
                      "wait for that run to end (the same command then resumes its games), or write to another "
                      "folder (--out-dir; the leaderboard's --out)")


class GameJournal:
    """Results of finished games, appended to a JSON-lines file as they finish, so that an
    interrupted run resumes with the games already played.

    The first line names the run (``header``: game, config, agents, ...); a journal of
    another run is refused rather than mixed in. A line cut short by a kill is ignored.
    Each game's line holds its record (``"record"``, :mod:`octagames.records`) when one was
    given; lines of older journals without one stay readable. Where ``code`` is given, the first
    line holds it too, outside the header: ``{"header": ..., "code": ...}`` when the file is
    started, and ``{"games": <already played>, "code": ...}`` appended to its ``"resumes"`` at each
    resume; other code resumes the run.

    One run at a time writes a journal: it holds the journal's lock (:func:`journal_lock`) from before the
    file is read until :meth:`close` (or its process ends), and a second journal on the file, in another
    process or this one, is refused in one line while it does. Without it, a second run's resume rewrote
    the file under the first, which went on appending to the replaced file: its games were lost.

    Args:
        path: the file (created with its folder when missing).
        header: what identifies the run.
        code: what wrote the games (``octagames.experiments.cli.code_version``: version, commit),
            or None to record nothing.
        lock: the journal's lock, already taken (:func:`journal_lock`), which the journal then holds and
            releases on :meth:`close` (kept by the caller when the journal is refused); None: the
            journal takes it.

    Raises:
        BusyError: another run writes the file (a ValueError).
        ValueError: the file belongs to another run; ``lock`` is not this file's.
    """

    def __init__(self, path: str | Path, header: dict[str, Any], code: dict[str, Any] | None = None,
                 lock: WriterLock | None = None) -> None:
        self.path = Path(path)
        if lock is not None and lock.path != _journal_lock_path(self.path):
            raise ValueError(f"lock: {lock.path} is not the lock of {self.path}; take it with journal_lock(path)")
        self._lock = journal_lock(self.path) if lock is None else lock  # before the file is read
        try:
            self._open(header, code)
        except BaseException:
            if lock is None:  # a caller's lock stays the caller's
                self._lock.release()
            raise

    def _open(self, header: dict[str, Any], code: dict[str, Any] | None) -> None:
        """Read the games of the file (resumed: rewritten with ``code`` among its resumes) or start it; open it
        for appending. Called with the lock held."""
        self.header = json.loads(json.dumps(header))  # as it reads back
        self.done: dict[int, tuple[list[float], int]] = {}
        self.records: dict[int, dict[str, Any]] = {}  # the JSON record of every game that has one
        if self.path.exists() and self.path.stat().st_size:
            lines = journal_lines(self.path)
            try:
                head = json.loads(lines[0])
            except ValueError:  # not JSON (JSONDecodeError), or an integer past the 4300 digits int() reads
                head = None
            if not isinstance(head, dict) or "header" not in head:
                raise NoHeaderError(f"{self.path} does not start with a journal's header (cut short by a run killed "
                                    "as it started the file?): delete the file or choose another output folder")
            first = head.get("header")
            if first != self.header:
                raise ValueError(f"{self.path} holds the games of another run ({first}); this run is "
                                 f"{self.header}: delete the file or choose another output folder")
            for key, rets, length, record in _game_rows(self.path, lines[1:]):
                self.done[key] = (rets, length)
                if record is not None:
                    self.records[key] = record
            if code is not None:
                head.setdefault("resumes", []).append({"games": len(self.done), "code": code})
                lines[0] = json.dumps(head)
            # written beside it, then put in its place: a run killed while rewriting loses no game (one name:
            # only the lock's holder writes it, and the next one writes over what a killed one left)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text("".join(line + "\n" for line in [lines[0]] + [self._row(k) for k in sorted(self.done)]))
            tmp.replace(self.path)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            head = {"header": self.header} if code is None else {"header": self.header, "code": code}
            self.path.write_text(json.dumps(head) + "\n")
        self._file = self.path.open("a")

    def add(self, key: int, returns: np.ndarray, length: int, record: GameRecord | None = None) -> None:
        """Keep a finished game, with its record when given (flushed at once)."""
        self.done[key] = ([float(r) for r in returns], int(length))
        if record is not None:
            self.records[key] = record.to_dict()
        self._file.write(self._row(key) + "\n")
        self._file.flush()

    def games_on_disk(self) -> int:
        """How many games the file holds, read back: a game being added when the run was stopped (Ctrl-C between
        :meth:`add`'s bookkeeping and its line) counts only once its line is written."""
        return len({int(row["key"]) for _, row, _ in _rows(self.path.read_text().splitlines()[1:])})

    def record(self, key: int) -> GameRecord | None:
        """The record of game ``key``, or ``None`` (not played, or journaled without one)."""
        row = self.records.get(key)
        return None if row is None else GameRecord.from_dict(row)

    def _row(self, key: int) -> str:
        returns, length = self.done[key]
        row: dict[str, Any] = {"key": key, "returns": returns, "length": length}
        if key in self.records:
            row["record"] = self.records[key]
        return json.dumps(row)

    def close(self) -> None:
        """Close the file and release the journal's lock (again: nothing)."""
        self._file.close()
        self._lock.release()


def play_games(game: Game, agents: Sequence[Agent], jobs: Sequence[Job], progress: bool = True, desc: str = "",
               executor: Any = None, journal: GameJournal | None = None,
               postfix: Any = None) -> dict[int, tuple[np.ndarray, int]]:
    """Play every game of ``jobs``: in this process, or through ``executor`` (e.g. Ray).

    A game's result depends only on its line-up and seed, so every executor gives the
    same results for the same jobs. With a journal, each game played in this process is
    recorded (:func:`record_game`) and its record kept in the journal; so are an executor's
    games when it says it records them (``executor.records_games``: Ray's), else they are
    journaled without their records.

    Args:
        game: the game.
        agents: the agents the line-ups index.
        jobs: ``(key, lineup, seed)``: ``agents[lineup[p]]`` plays seat ``p``.
        progress: show a tqdm progress bar.
        desc: the bar's label.
        executor: ``None`` (this process) or an object with
            ``run(game, agents, jobs, done)``, e.g. :class:`octagames.agents.learn.distributed.RayGames`
            (which records the games too: ``run(..., record=True)`` calls ``done(key, returns, length,
            record)``).
        journal: games already played are taken from it, new ones are added to it.
        postfix: ``postfix(results) -> str`` for the bar.

    Returns:
        ``{key: (returns per seat, length)}`` for every job.
    """
    results: dict[int, tuple[np.ndarray, int]] = {}
    if journal is not None:
        keys = {k for k, _, _ in jobs}
        results = {k: (np.asarray(r, dtype=np.float64), n) for k, (r, n) in journal.done.items() if k in keys}
    todo = [j for j in jobs if j[0] not in results]
    bar = progress_bar(len(jobs), desc, progress)
    if bar is not None:
        bar.update(len(jobs) - len(todo))

    def done(key: int, rets: np.ndarray, length: int, record: GameRecord | None = None) -> None:
        if key in results:  # a retried chunk: the first result stands
            return
        results[key] = (rets, length)
        if journal is not None:
            journal.add(key, rets, length, record)
        if bar is not None:
            bar.update(1)
            if postfix is not None:
                bar.set_postfix_str(postfix(results))

    if executor is None:
        for key, lineup, seed in todo:
            seats = [agents[i] for i in lineup]
            if journal is None:
                done(key, *play_game(game, seats, seed))
            else:
                rec = record_game(game, seats, seed)
                done(key, np.asarray(rec.returns, dtype=np.float64), rec.length, rec)
    elif journal is not None and getattr(executor, "records_games", False):
        executor.run(game, agents, todo, done, record=True)  # the journal keeps the records
    else:
        executor.run(game, agents, todo, done)
    if bar is not None:
        bar.close()
    return results


def play_match(game: str | Game, agents: Sequence[Agent], num_games: int, seed: int = 0,
               progress: bool = True, executor: Any = None, journal: GameJournal | None = None,
               **config: Any) -> MatchResult:
    """Play ``num_games`` games between ``agents`` (one per seat), rotating seats.

    Args:
        game: a game or variant name (``"octrix"``, ``"octrix-round"``, ``"octa-nl"``; ``config`` gives
            fields over the variant's) or a :class:`Game`, which brings its own config.
        agents: one agent per seat; agent ``k`` sits in seat ``(k + g) % n`` in game ``g``.
        num_games: games to play (>= 1).
        seed: the match seed; game ``g`` uses ``seed + g``, so every ``seed + g`` is in ``0..2**63-1``.
        progress: show a progress bar (tqdm) when it is installed.
        executor: where the games run (see :func:`play_games`); ``None``: here.
        journal: resume from and save to this :class:`GameJournal`.
        **config: the game's config fields (``num_players=3``, ``ranks=4``, ...), with a name only.

    Returns:
        a :class:`MatchResult`. A seat wins a game when its return is the
        highest (partners share their team's return, so both win); a game in
        which all returns are equal is a draw for everyone.

    Raises:
        ValueError: an unknown game or variant, a bad config field or value, config fields given with a
            :class:`Game` (naming them), not one agent per seat, ``num_games`` < 1, or a seed that is not an
            integer in ``0..2**63 - num_games``.
    """
    if isinstance(game, Game) and config:
        fields = ", ".join(f"{k}={v!r}" for k, v in config.items())
        raise ValueError(f"{fields}: config fields are not taken with a Game, which brings its own config "
                         f"({game.config}); build the Game with them, or give the game's name")
    g = game if isinstance(game, Game) else Game(game, **config)
    n = g.num_players
    if len(agents) != n:
        raise ValueError(f"agents: {len(agents)} given, but {g.name} is configured for num_players={n}")
    _check_agents(agents, "agents")
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games={num_games!r} is not valid; it must be an integer >= 1")
    seed = check_seed(seed, int(num_games))
    names = _unique_names(agents)
    records = [AgentRecord(name) for name in names]
    all_returns = []
    total_len = 0
    start = time.perf_counter()
    orders = [tuple((i - k) % n for i in range(n)) for k in range(num_games)]  # seat p: agent order[p]
    played = play_games(g, agents, [(k, orders[k], seed + k) for k in range(num_games)], progress,
                        f"{g.name}: " + " vs ".join(names), executor, journal)
    for k in range(num_games):
        order = orders[k]
        rets, length = played[k]
        total_len += length
        by_agent = np.zeros(n)
        for p, a in enumerate(order):
            by_agent[a] = rets[p]
        best = by_agent.max()
        all_equal = bool(np.allclose(by_agent, best))
        for a in range(n):
            rec = records[a]
            rec.games += 1
            rec.total_return += float(by_agent[a])
            if all_equal:
                rec.draws += 1
            elif np.isclose(by_agent[a], best):
                rec.wins += 1
            else:
                rec.losses += 1
        all_returns.append(by_agent.tolist())
    cfg = catalogue.full_config(g.name, g.config)  # plain Python values (a field given as np.int64: JSON)
    return MatchResult(g.name, cfg, num_games, records, total_len / num_games,
                       time.perf_counter() - start, all_returns)


def _unique_names(agents: Sequence[Agent]) -> list[str]:
    names: list[str] = []
    for a in agents:
        base = getattr(a, "name", type(a).__name__)
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def progress_bar(total: int | None, desc: str, enabled: bool, **options: Any) -> Any:
    """A tqdm progress bar over ``total`` items (None: a count without an end), or None when disabled or tqdm
    is not installed; ``options`` go to tqdm (``unit=" nodes"``)."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # the core install has no tqdm; progress is optional
        return None
    return tqdm(total=total, desc=desc, leave=False, **options)
