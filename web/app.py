"""The web app of ``octagames serve``: play any variant against the bots, watch games and replays.

Starlette routes over JSON; the page (``web/static``) is plain HTML, JavaScript and SVG, no build step.

HTTP API (every error is answered as ``{"error": "<one line in words>"}``: a 4xx for a refused request,
which changes nothing, an unknown path or method included, and a 500 for a failure of the server):

==========================================  ==================================================
``GET  /``                                  the page
``GET  /api/catalogue``                     the variants (name, game, title, players), agent specs, zoo models
``POST /api/games``                         ``{"variant", "players"?, "config"?: {field: value}, "seats":
                                            ["human" | agent spec, ...], "seed"?}`` -> ``{"id", "tokens":
                                            {seat: token}, ...}`` (a secret token per human seat, told only
                                            here; ``seed`` only for games of bots)
``GET  /api/games/{id}?seat=N&token=T``     the game as seat ``N`` sees it (a human seat while people play,
                                            with its token; ``seat`` left out: the all-seeing view, for a
                                            game of bots only or a finished game). The answer to ``POST
                                            /api/games`` is the view of the human seat to act (else the
                                            first human seat): a page that holds the tokens of several
                                            human seats plays each in turn (hot seat; ``hidden`` tells
                                            whether the seats see different things)
``POST /api/games/{id}/move``               ``{"seat", "action", "token"}``: a human seat's move (every
                                            count of a request, as ``seat``, ``action`` and ``players``, is
                                            a JSON integer); with ``"step"`` (the view's), refused (409)
                                            where the game is at another step: a move sent twice is
                                            played once
``GET  /api/games/{id}/record``             the game record (JSON), once the game is over (or bots only)
``POST /api/replays``                       ``{"path"}`` (a file under ``runs/``, or a leaderboard journal
                                            ``docs/leaderboard/*.games.jsonl``, of the served folder) or
                                            ``{"text"}`` (an uploaded file) -> ``{"id", "games"}``;
                                            ``"index"`` picks a game of a journal
``GET  /api/replays/{id}?step=K&seat=N``    the record's position after ``K`` moves, all-seeing or seat ``N``
                                            (a ``K`` past the record's last move shows its end)
==========================================  ==================================================

A number in a query (``seat``, ``step``), and a move index or action id that keys a replayed record's
thinking, is written as plain digits without leading zeros (``16``, not ``016``, ``+16`` or ``1_6``): one
number has one spelling, so two keys of a record's thinking never name one move (the later silently
replacing the other); any other spelling is refused (400).

The app serves this machine's browser: POST bodies must be ``Content-Type: application/json``, a
request from a page of another site (its ``Origin``) is refused, and so is a ``Host`` other than
127.0.0.1, localhost and the names ``octagames serve`` adds (the machine's hostname, ``--allowed-host``;
DNS rebinding). An agent spec may name a model file only under ``runs/`` of the served folder or in
the zoo (a model file is unpickled).

One browser or script cannot exhaust the server (:class:`Limits`, ``octagames serve``'s flags): at
most ``max_games`` games are kept (a new one past it is refused with 503 unless a finished or
abandoned game can be dropped, oldest first), a game nobody asked about for ``idle_seconds`` is
dropped (a bot thinking is stopped in its search, :class:`Cancelled`, and its move is never played; the
server looks on every request for a game or replay and every :data:`SWEEP_SECONDS` at most, and drops
every game when it shuts down), a request body is at most ``max_body_kib``
(413), nested at most :data:`MAX_DEPTH` deep (400), a replay file at most ``max_replay_kib`` (413),
a game or replay at most ``max_moves`` actions (a game stops there; a replay of more: 413),
and an agent spec's search budget (simulations, worlds, iterations) at most ``max_simulations`` (400).
``cfr:<iterations>`` trains MCCFR while the request waits: the app trains it only on the variants of
:data:`CFR_TRAINED_HERE` at their own config; elsewhere a CFR agent is a ``train_cfr`` checkpoint
(``cfr:runs/mccfr/<run>/checkpoint.npz``). ``oracle`` (the exact Octrix round solver, which counts no
simulations) plays only with at most :data:`ORACLE_MAX_HAND` cards in hand.

Bots think in a worker thread per game (the page polls); a lock per game keeps a move and a bot's
move from crossing. Every handler that steps the rules, draws a picture, loads a record or builds an
agent runs in Starlette's thread pool, never on the event loop: a slow bot or a large replay does not
hold up the other requests. Games are kept in memory, keyed by random ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import math
import pickle
import re
import secrets
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from octagames import catalogue, records
from octagames.agents.base import Agent, decide, make_turn
from octagames.agents.cfr.agent import DEFAULT_ITERATIONS, mccfr_run
from octagames.agents import registry
from octagames.agents.registry import AGENTS, make_agent
from octagames.agents.model_config import fitting_options
from octagames.core import MAX_SEED, Game, IllegalActionError, is_count, make_game
from octagames.web.views import seat_view

STATIC = Path(__file__).resolve().parent / "static"
#: the folder under the served folder any of whose files a replay may open
REPLAY_FOLDER = "runs"
#: the folder of the published leaderboard games, and the pattern of its journals a replay may open
LEADERBOARD_FOLDER, LEADERBOARD_JOURNALS = "docs/leaderboard", "*.games.jsonl"
HUMAN = "human"
#: the folder under the served folder whose model files an agent spec may name (besides the zoo)
MODEL_FOLDER = "runs"
#: the shipped models (``zoo:<variant>``, ``zoo:<variant>-<n>p``; ``az:<path>`` may name one of its files too)
ZOO_DIR = Path(registry.__file__).resolve().parent / "zoo"
#: the package's agents whose argument never names a file (numbers, keywords, a variant)
NO_FILE_AGENTS = frozenset({"random", "heuristic", "mcts", "belief", "rollout", "oracle", "zoo", "net"})
#: the games (a variant, player count and config each) the server keeps built; the least recently used goes
GAMES_KEPT = 32
#: the variants (at their own config) on which the app trains ``cfr:<iterations>`` while a request waits:
#: about 10 s and 200 MiB at 20000 iterations. Elsewhere it is minutes and gigabytes (Achten of the
#: leaderboard's CFR section: 45 s and 800 MiB at 20000 outcome-sampling iterations, minutes for 200 external
#: ones; Octa: 16 GB in 3 minutes), which ``train_cfr`` does once and writes to a checkpoint
CFR_TRAINED_HERE = ("octrix-round-small",)
#: the most cards in hand at which the app plays ``oracle`` (the exact round solver, about 8 times slower a card:
#: 0.4 s a deal at 5 cards, 2.8 s at 6, minutes at the seed's 8, in the worker thread of a request)
ORACLE_MAX_HAND = 6
#: how deep a request body, or a record of a replay, may nest lists and objects (a record nests about 5)
MAX_DEPTH = 64
#: an uploaded replay is its file as a JSON string: JSON doubles each quote, backslash and line break, and writes
#: a control character (a NUL a crash left at a journal's end) as six (``\u0000``)
REPLAY_ENCODING = 6
#: the most seconds between two looks for abandoned games and replays (half ``idle_seconds`` when shorter)
SWEEP_SECONDS = 30.0
#: a UTF-16 surrogate left alone in a string: no character, and no UTF-8 encodes it (JSON's ``"\ud800"``)
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: what loading a model file that is not one raises (besides ValueError and OSError)
LOAD_ERRORS = (ValueError, ImportError, OSError, UnicodeDecodeError, pickle.UnpicklingError, EOFError,
               RuntimeError, KeyError, TypeError, AttributeError)


@dataclass(frozen=True)
class Limits:
    """What one browser (or a script) may ask of the server; ``octagames serve`` sets them by flags.

    Attributes:
        max_games: games kept at once; past it a new game drops a finished or abandoned one (the
            least recently seen first), else it is refused (503).
        idle_seconds: a game nobody has asked about for this long is abandoned: dropped (a finished one
            too) at the next request for a game or replay, or the server's next look (:data:`SWEEP_SECONDS`),
            its bots stopped.
        max_simulations: the largest search budget an agent spec may ask for (MCTS or a model's
            simulations, rollout or belief worlds, CFR iterations).
        max_body_kib: the largest request body in KiB (413), an uploaded replay apart.
        max_replay_kib: the largest replay file in KiB, uploaded or opened by path (413).
        max_moves: the most actions (chance included) a game keeps or a replay holds: every position of a game is
            kept (a step back of its history, a replay), and a config may allow games of hundreds of thousands of
            actions (an Octrix match to 10,000: a bots-only game of one request kept 320 MiB; review, 2026-12-07).
            A game that reaches it stops there with a message (``error``: no seat, bot or person, moves again); a
            replay of more is refused (413).

    Raises:
        ValueError: a limit that is not positive, or a count that is not a whole number (naming the field).
    """

    max_games: int = 64
    idle_seconds: float = 1800.0
    max_simulations: int = 20_000
    max_body_kib: int = 64
    max_replay_kib: int = 16 * 1024
    max_moves: int = 20_000

    def __post_init__(self) -> None:
        for name in ("max_games", "idle_seconds", "max_simulations", "max_body_kib", "max_replay_kib", "max_moves"):
            value = getattr(self, name)
            counts = name != "idle_seconds"
            kinds = (int, np.integer) if counts else (int, float, np.integer, np.floating)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds) or not value > 0:
                raise ValueError(f"{name}={value!r} is not valid; it must be a positive "
                                 f"{'whole number' if counts else 'number of seconds'}")


class Cancelled(BaseException):
    """Raised in the bots' worker of a game the server dropped while its bot was thinking: the bot's search
    stops there (:func:`interrupt`) and its move is never played.

    A BaseException, as KeyboardInterrupt: an agent's ``except Exception`` does not take it for a failure
    of its own and search on.
    """


def _async_exc(thread_id: int, exc: type[BaseException] | None) -> int:
    """CPython's ``PyThreadState_SetAsyncExc``: raise ``exc`` in thread ``thread_id`` at its next Python
    instruction (None: forget one raised so and not yet delivered); the number of threads told (0 without
    ctypes' ``pythonapi``, as on another Python: the bot then finishes its move, which is not played)."""
    api = getattr(ctypes, "pythonapi", None)
    if api is None:
        return 0
    return int(api.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                              None if exc is None else ctypes.py_object(exc)))


def interrupt(thread_id: int) -> bool:
    """Raise :class:`Cancelled` in thread ``thread_id`` (a bots' worker whose bot is thinking) at its next
    Python instruction; whether a thread was told.

    A search in Python (the belief and rollout bots' worlds, a network's batches, MCTS with a Python
    evaluator) stops at once; a compiled loop (a numba MCTS call) stops when it returns to Python.
    """
    return _async_exc(thread_id, Cancelled) == 1


class RequestError(ValueError):
    """A request the app refuses: ``status`` (4xx) and a message in words."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Session:
    """One game being played: its states, the seats' players and the bots' worker.

    Attributes:
        id: the random id the page uses.
        variant: the variant name.
        game: the game (bound to its config).
        seed: the seed of the record (its chance draws).
        seats: ``"human"`` or the agent spec of every seat.
        agents: the bots by seat.
        states: ``states[k]`` after ``k`` actions.
        actions: every action, chance outcomes included.
        thinking: what a bot considered, by move index (the records' format: ``docs/records.md``).
        error: a bot's failure, or the server's limit of moves reached (``max_moves``), in words (the game stops
            there).
        stopped: the server dropped the game (:meth:`stop`): its bots play no more moves.
        deciding: the worker thread's id while a bot thinks, without the lock (lock held to read or set it).
    """

    id: str
    variant: str
    game: Game
    seed: int
    seats: list[str]
    agents: dict[int, Agent]
    states: list[np.void] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    thinking: dict[int, Any] = field(default_factory=dict)
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    worker: threading.Thread | None = None
    thinking_now: bool = False
    caches: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[int, str] = field(default_factory=dict)
    seen: float = field(default_factory=time.monotonic)
    stopped: bool = False
    deciding: int | None = None
    max_moves: int = 0
    """the most actions the game keeps (:attr:`Limits.max_moves`; 0: no limit)"""

    @property
    def over(self) -> bool:
        """Whether the game has ended (or stopped on a bot's failure)."""
        return self.error is not None or self.game.is_terminal(self.states[-1])

    @property
    def humans(self) -> list[int]:
        """The seats played by people."""
        return [p for p, who in enumerate(self.seats) if who == HUMAN]

    def check_token(self, seat: int, token: Any) -> None:
        """Refuse (403) a request for human seat ``seat`` without that seat's secret token.

        Raises:
            RequestError: the token is missing or not the seat's.
        """
        want = self.tokens.get(seat)
        # compared as bytes: compare_digest refuses a str with a character past ASCII (a token never has one)
        if want is not None and not (isinstance(token, str) and secrets.compare_digest(
                token.encode("utf-8", "surrogatepass"), want.encode("ascii"))):
            raise RequestError(f"seat {seat} is played by a person: give its token (returned when the game "
                               "was created) as token", 403)

    def apply(self, action: int, s: np.void | None = None) -> None:
        """Apply ``action`` to ``s`` (a copy of the last state by default) and keep it (lock held).

        Raises:
            IllegalActionError: the action is not legal (nothing is kept).
        """
        s = self.game.clone(self.states[-1]) if s is None else s
        self.game.apply_action(s, action)
        self.states.append(s)
        self.actions.append(int(action))
        if self.max_moves and len(self.actions) >= self.max_moves and not self.game.is_terminal(s):
            self.error = (f"the game stopped at this server's limit of {self.max_moves} moves, chance included "
                          "(octagames serve --max-moves)")

    def settle(self) -> int | None:
        """Play chance until a seat must act (lock held); that seat, or None at the end."""
        g = self.game
        while self.error is None and not g.is_terminal(self.states[-1]):  # (a game stopped on an error: None)
            if g.is_chance(self.states[-1]):
                s = g.clone(self.states[-1])  # the draw advances the record's RNG, as in a recorded game
                self.apply(g.sample_chance(s), s)
                continue
            return g.acting_player(self.states[-1])
        return None

    def kick(self) -> None:
        """Start the bots' worker when a bot is to act (lock held)."""
        p = self.settle()
        if p is not None and p in self.agents and self.error is None and not self.stopped and \
                (self.worker is None or not self.worker.is_alive()):
            self.thinking_now = True
            self.worker = threading.Thread(target=self._bots, name=f"bots-{self.id}", daemon=True)
            self.worker.start()

    def stop(self) -> None:
        """Stop the game's bots: the server dropped it (takes the lock).

        From here on no move of a bot is played; a bot thinking now is interrupted in its search
        (:func:`interrupt`), so that the worker ends soon, not when the move it no longer needs is found.
        """
        with self.lock:
            if self.stopped:
                return
            self.stopped = True
            if self.deciding is not None:
                interrupt(self.deciding)

    def _bots(self) -> None:
        p: int | None = None
        me = threading.get_ident()
        try:
            rng = np.random.default_rng(self.seed + 1)
            while True:
                with self.lock:
                    if self.stopped:  # dropped by the server (abandoned)
                        self.thinking_now = False
                        return
                    p = self.settle()
                    if p is None or p not in self.agents:
                        self.thinking_now = False
                        return
                    s = self.game.clone(self.states[-1])
                    turn = make_turn(self.game, s, p, int(rng.integers(1 << 31)))
                    self.deciding = me  # stop() may interrupt the search from here
                try:
                    action, told = decide(self.agents[p], turn)  # the search runs without the lock: pages poll
                finally:
                    with self.lock:  # stop() interrupts no more; a Cancelled it sent just now is not delivered
                        self.deciding = None
                        _async_exc(me, None)
                with self.lock:
                    if self.stopped:  # dropped as the bot found its move: the move is not played
                        self.thinking_now = False
                        return
                    if told:
                        self.thinking[len(self.actions)] = told
                    self.apply(action)
        except Cancelled:  # dropped while the bot thought: its search stopped there, and no move is played
            with self.lock:
                self.thinking_now = False
        except Exception as e:  # a bot that fails stops its game with a message, not the server
            with self.lock:
                who = "the bots' worker" if p is None else f"the bot of seat {p} ({self.seats[p]})"
                # an agent's or the engine's words may name a bot's hidden cards ("you hold no ♥A"): a person is
                # shown the kind of failure, the server's log keeps the message (the traceback below; review)
                self.error = (f"{who} failed: {type(e).__name__}: {e}" if not self.humans else
                              f"{who} failed ({type(e).__name__}; the server's log tells why)")
                self.thinking_now = False
            traceback.print_exc()

    def view(self, seat: int | None) -> dict[str, Any]:
        """The game as ``seat`` sees it (None: all-seeing), with the table's facts (lock held)."""
        out = seat_view(self.game, self.states, self.actions, seat, self.thinking, self.humans,
                        self.caches.setdefault(seat, {}))
        info = self.game.info
        out.update(id=self.id, variant=self.variant, title=catalogue.variant(self.variant.split("+")[0]).title,
                   players=self.game.num_players, seats=self.seats, error=self.error,
                   thinking_now=self.thinking_now and out["to_act"] is not None and out["to_act"] in self.agents,
                   hidden=info.information != "perfect" or info.dynamics == "simultaneous")
        if self.error is not None:  # stopped: no move is offered (one would be refused)
            out["legal"] = []
        return out

    def seat_to_show(self) -> int | None:
        """The human seat a new game is shown from: the one to act, else the first (None: bots only; lock held)."""
        s = self.states[-1]
        g = self.game
        to_act = None if g.is_terminal(s) or g.is_chance(s) else g.acting_player(s)
        return to_act if to_act in self.humans else self.humans[0] if self.humans else None

    def record(self) -> dict[str, Any]:
        """The game record in the format of ``docs/records.md`` (``octagames-record-1``): variant, every
        config field, seed, seats, actions with their seats and names, returns, the bots' thinking."""
        g = self.game
        over = g.is_terminal(self.states[-1])
        config = catalogue.full_config(g.name, g.config)
        players = [-1 if g.is_chance(s) else int(g.acting_player(s)) for s in self.states[:-1]]
        thinking = dict(self.thinking)
        names = [g.action_to_string(self.states[k], a) for k, a in enumerate(self.actions)]
        returns = [float(r) for r in g.returns(self.states[-1])] if over else None
        return records.GameRecord(g.name, catalogue.variant_name(g.name, config), config, self.seed, list(self.seats),
                                  list(self.actions), players, names, returns, thinking,
                                  {"source": "octagames serve"}).to_dict()


@dataclass
class Replay:
    """A recorded game opened for stepping: its game, states, actions and thinking.

    Its per-seat caches (:class:`~octagames.web.views.SeatHistory`) are filled under ``lock``: the
    handlers run in a thread pool, and two requests for the same replay may come at once.
    """

    id: str
    title: str
    game: Game
    states: list[np.void]
    actions: list[int]
    thinking: dict[int, Any]
    agents: list[str]
    caches: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    seen: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def view(self, step: int, seat: int | None) -> dict[str, Any]:
        """The position after ``step`` moves as ``seat`` sees it (None: all-seeing); takes the lock."""
        step = max(0, min(step, len(self.actions)))
        with self.lock:
            out = seat_view(self.game, self.states[:step + 1], self.actions[:step], seat, self.thinking,
                            cache=self.caches.setdefault(seat, {}))
        out.update(id=self.id, title=self.title, length=len(self.actions), players=self.game.num_players,
                   seats=self.agents)
        return out


class Server:
    """The app's games and replays, and the folder replays are read from.

    Args:
        root: the served folder (``runs/`` and the journals of ``docs/leaderboard/`` under it may be opened).
        limits: what a request may ask for (:class:`Limits`).
        clock: the seconds clock games are timed by (``time.monotonic``).
    """

    def __init__(self, root: str | Path = ".", limits: Limits | None = None,
                 clock: Any = time.monotonic) -> None:
        self.root = Path(root).resolve()
        self.limits = limits or Limits()
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        self.replays: dict[str, Replay] = {}
        self._games: OrderedDict[str, Game] = OrderedDict()  # the GAMES_KEPT last used, the oldest first
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ games
    def game(self, variant: str, players: int | None, config: dict[str, Any]) -> Game:
        """The game of a variant, player count and config fields; the :data:`GAMES_KEPT` last used are
        kept built. A game is built outside the server's lock (a slow build holds up no other request).

        Raises:
            RequestError: an unknown variant, a bad player count or config field (in the rules' words).
        """
        if variant not in catalogue.names():
            raise RequestError(f"unknown variant {variant!r}; the variants are: {', '.join(catalogue.names())}")
        if not isinstance(config, dict):
            raise RequestError("config must be an object of config fields, as {\"target\": 20}")
        key = json.dumps([variant, players, config], sort_keys=True, default=str)
        with self._lock:
            if key in self._games:
                self._games.move_to_end(key)
                return self._games[key]
        fields = dict(config)
        if players is not None:
            fields["num_players"] = whole(players, "players")
        try:
            game = make_game(variant, **fields)
        except (TypeError, ValueError) as e:
            raise RequestError(f"variant {variant!r}: {e}") from e
        with self._lock:
            game = self._games.setdefault(key, game)  # two requests that built it at once share the first
            self._games.move_to_end(key)
            while len(self._games) > GAMES_KEPT:
                self._games.popitem(last=False)
            return game

    def new_game(self, body: dict[str, Any]) -> Session:
        """Start a game from a request body (see the module docstring).

        Raises:
            RequestError: a bad variant, config, seat list or agent spec (the message names it).
        """
        game = self.game(str(body.get("variant", "")), body.get("players"), body.get("config") or {})
        seats = body.get("seats")
        if not isinstance(seats, list) or len(seats) != game.num_players:
            raise RequestError(f"seats must list {game.num_players} players (\"human\" or an agent spec), "
                               f"one per seat; got {seats!r}")
        agents: dict[int, Agent] = {}
        seed = self.seed(body, HUMAN in seats)
        specs = {p: self.safe_spec(p, self.budget(p, str(spec)))
                 for p, spec in enumerate(seats) if spec != HUMAN}
        for p, spec in specs.items():
            self.check_training(p, spec, game)
            self.check_oracle(p, spec, game)
        self.check_room()  # before the agents are built (a CFR agent trains); nothing dropped before they are
        for p, spec in specs.items():
            try:
                agent = make_agent(spec, game)
                agent.reset(game, p, (seed + 17 * p) & MAX_SEED)  # a 63-bit seed stays one
            except LOAD_ERRORS as e:
                raise RequestError(f"seat {p}: agent {seats[p]!r} cannot play {game}: {type(e).__name__}: {e}") from e
            named = any(is_count(part) for part in spec.split(":")[1:])  # a spec's own number was checked above
            if not named and (spent := agent.search_budget()) > self.limits.max_simulations:  # its default
                raise RequestError(f"seat {p}: agent {spec!r} searches {spent} simulations or worlds a decision by "
                                   f"default; this server allows at most {self.limits.max_simulations} (octagames "
                                   "serve --max-simulations): name a smaller budget in the spec")
            agent.name = str(seats[p])
            agents[p] = agent
        # the game built, named as its record names it (a variant's name and fields may make another variant)
        session = Session(secrets.token_urlsafe(9), catalogue.variant_name(game.name, game.config), game, seed,
                          [str(x) for x in seats],
                          agents, states=[game.new_state(seed)], max_moves=self.limits.max_moves,
                          tokens={p: secrets.token_urlsafe(16)
                                  for p, spec in enumerate(seats) if spec == HUMAN},
                          seen=self.clock())
        with self._lock:
            self._drop(self._room(self.sessions, finished=True))
            self.sessions[session.id] = session
        with session.lock:
            session.kick()
        return session

    def check_room(self) -> None:
        """Whether a new game would find room (:meth:`_room`); nothing is dropped yet: a request refused later
        changes nothing (the game is dropped when the new one is kept).

        Raises:
            RequestError: 503 when every game kept is being played (none finished or idle).
        """
        with self._lock:
            self._room(self.sessions, finished=True)

    def _room(self, kept: dict[str, Any], finished: bool) -> list[Any]:
        """What to drop from ``kept`` (lock held): everything idle past ``idle_seconds``, then, while
        ``max_games`` are kept, the least recently seen finished game (``finished``) or item.

        Raises:
            RequestError: 503 when no room can be made.
        """
        now, cap = self.clock(), self.limits.max_games
        idle = [x for x in kept.values() if now - x.seen > self.limits.idle_seconds]
        left = len(kept) - len(idle)
        if left < cap:
            return idle
        gone = {x.id for x in idle}
        done = sorted((x for x in kept.values() if x.id not in gone and (not finished or x.over)),
                      key=lambda x: x.seen)
        if left - len(done) >= cap:
            raise RequestError(f"the server keeps at most {cap} games (--max-games) and every one is being "
                               f"played; a game is dropped once it is over or nobody has asked about it for "
                               f"{self.limits.idle_seconds:g} s (--idle-seconds); try again later", 503)
        return idle + done[:left - cap + 1]

    def sweep(self) -> None:
        """Drop the games and replays nobody has asked about for ``idle_seconds``; the games' bots stop."""
        now, idle = self.clock(), self.limits.idle_seconds
        with self._lock:
            self._drop([x for kept in (self.sessions, self.replays) for x in kept.values() if now - x.seen > idle])

    def _drop(self, items: list[Any]) -> None:
        """Forget games or replays (lock held); a game's bots stop (:meth:`Session.stop`)."""
        for x in items:
            if isinstance(x, Session):
                self.sessions.pop(x.id, None)
                x.stop()
            else:
                self.replays.pop(x.id, None)

    def close(self) -> None:
        """Drop every game and replay (the server shuts down): no bots' worker thinks on."""
        with self._lock:
            self._drop([x for kept in (self.sessions, self.replays) for x in kept.values()])

    def budget(self, seat: int, spec: str) -> str:
        """``spec`` once its search budget (every number among its arguments: simulations, worlds,
        iterations; a bare ``cfr`` trains its default iterations) is known to be at most ``max_simulations``. The
        default budget of a spec that names none is checked once its agent is built (:meth:`Agent.search_budget`).

        Every argument ``int()`` reads is a number (the agents' factories read them so): it must be
        written as plain digits (:func:`~octagames.core.is_count`: ``+1000``, ``1_000``, `` 50``, ``-5`` or
        ``٣`` would still be read as a number), and be at most the limit; digits ``int()`` does not read
        (``²``) are refused too, as no number.

        Raises:
            RequestError: a number not written as plain digits, or a larger budget (naming the limit).
        """
        cap = self.limits.max_simulations
        parts = spec.split(":")[1:]
        if spec.split(":")[0] == "cfr" and parts in ([], ["external"]):  # trained here, its default iterations
            parts = [str(DEFAULT_ITERATIONS)]
        for part in parts:
            plain = is_count(part)
            try:
                value: int | None = int(part)
            except ValueError:  # a keyword, a path, c=1.5, "²"; or more digits than int() reads: past any limit
                value = cap + 1 if plain else None
            if not plain and (value is not None or part.isdigit()):  # "²" is a digit to str.isdigit only
                reads = "is no number" if value is None else f"is read as the number {value}"
                raise RequestError(f"seat {seat}: agent {spec!r}: {part!r} {reads}; write "
                                   "a search budget (simulations, worlds or iterations) as plain digits (0-9)")
            if value is None:
                continue
            if value > cap:
                shown = part if len(part) <= 24 else f"{part[:24]}... ({len(part)} digits)"
                raise RequestError(f"seat {seat}: agent {spec!r} asks for a search budget of {shown} "
                                   f"(simulations, worlds or iterations); this server allows at most {cap} "
                                   "(octagames serve --max-simulations)")
        return spec

    @staticmethod
    def check_training(seat: int, spec: str, game: Game) -> None:
        """Refuse an agent spec that trains MCCFR (``cfr``, ``cfr:<iterations>[:external]``) inside the
        request, unless the game built is a variant of :data:`CFR_TRAINED_HERE` at its own config (by
        whatever name and fields it was asked for).

        Raises:
            RequestError: training elsewhere, with the way to play CFR there (a ``train_cfr`` checkpoint).
        """
        name, sep, arg = spec.partition(":")
        if name != "cfr" or (sep and mccfr_run(arg) is None):
            return  # not CFR, or a checkpoint (safe_spec checked its path)
        built = catalogue.variant_name(game.name, game.config)
        if built in CFR_TRAINED_HERE and catalogue.full_config(game.name, game.config) == \
                catalogue.full_config(game.name, catalogue.variant(built).full_config(game.num_players)):
            return
        raise RequestError(f"seat {seat}: agent {spec!r} would train MCCFR on "
                           f"{catalogue.describe(game.name, game.config)} while this request waits, which "
                           "takes minutes and gigabytes on a game of this size; the web app trains "
                           f"cfr:<iterations> only on {', '.join(CFR_TRAINED_HERE)} (its own config). Train it "
                           "once with octagames train-cfr "
                           f"{fitting_options(game.name, catalogue.full_config(game.name, game.config))} "
                           "--algorithm mccfr --sampling outcome --iterations N, and play its checkpoint as "
                           "cfr:runs/mccfr/<run>/checkpoint.npz")

    @staticmethod
    def check_oracle(seat: int, spec: str, game: Game) -> None:
        """Refuse ``oracle`` on Octrix with more than :data:`ORACLE_MAX_HAND` cards in hand: its exact solve of a
        round would take minutes while the request's bots move (``max_simulations`` does not bound it: it
        counts no simulations).

        Raises:
            RequestError: naming the hand size, the limit and the variant that fits.
        """
        hand = getattr(game.config, "hand_size", 0)
        if spec.partition(":")[0] == "oracle" and game.name == "octrix" and hand > ORACLE_MAX_HAND:
            raise RequestError(f"seat {seat}: agent 'oracle' solves each round exactly, about 8 times slower a card "
                               f"in hand (seconds at 6 cards, minutes at 8); the web app plays it with at most "
                               f"{ORACLE_MAX_HAND} cards in hand and this game deals {hand}: choose "
                               f"octrix-round-small, or hand_size={ORACLE_MAX_HAND} or fewer")

    @staticmethod
    def seed(body: dict[str, Any], humans: bool) -> int:
        """The seed of a new game: the request's (bots-only games) or a random one.

        Raises:
            RequestError: a seed for a game with a human seat (it would tell the deal), or not an
                integer in 0..2**63-1.
        """
        if "seed" not in body:
            return secrets.randbelow(MAX_SEED + 1)  # the whole range: a deal cannot be found by trying seeds
        if humans:
            raise RequestError("seed is chosen by the server when a seat is human (a known seed tells the "
                               "deal); give a seed only for a game of bots")
        seed = body["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise RequestError(f"seed must be an integer in 0..2**63-1, got {seed!r}")
        return seed

    def safe_spec(self, seat: int, spec: str) -> str:
        """``spec`` with any model file it names made absolute, once the file is known to lie under
        ``runs/`` of the served folder or in the zoo (symbolic links resolved).

        Raises:
            RequestError: a file elsewhere (it would be unpickled), or an argument of an agent this
                app cannot tell is not a file.
        """
        name, sep, arg = spec.partition(":")
        if not sep or name in NO_FILE_AGENTS:
            return spec
        tail = ""
        if name == "ppo" and arg.endswith("@sample"):
            arg, tail = arg[: -len("@sample")], "@sample"
        elif name == "az":
            head, colon, sims = arg.rpartition(":")
            if colon and is_count(sims):
                arg, tail = head, f":{sims}"
        elif name == "cfr":
            if mccfr_run(arg) is not None:  # trained here, not read from a file
                return spec
        elif name not in ("ppo", "az", "cfr"):
            raise RequestError(f"seat {seat}: agent {spec!r}: the web app gives no argument to agent {name!r} "
                               f"(it could name a file); play it as {name!r} alone")
        rule = (f"a model file must lie under {MODEL_FOLDER}/ of the served folder ({self.root}) or in the "
                "zoo (zoo:<variant>, zoo:<variant>-<n>p)")
        try:  # symbolic links resolved on both sides (runs/ may be one); a loop of them is no path
            path, models = (self.root / arg).resolve(), (self.root / MODEL_FOLDER).resolve()
        except (ValueError, OSError, RuntimeError) as e:
            raise RequestError(f"seat {seat}: agent {spec!r}: {arg!r} is not a path: {e}") from e
        if not any(path.is_relative_to(d) for d in (models, ZOO_DIR.resolve())):
            raise RequestError(f"seat {seat}: agent {spec!r}: {arg!r} is refused; {rule}")
        if not is_file(path):
            raise RequestError(f"seat {seat}: agent {spec!r}: no file {arg!r}", 404)
        return f"{name}:{path}{tail}"

    def session(self, gid: str) -> Session:
        """The game ``gid`` (now seen). Raises RequestError (404) for an unknown or dropped id."""
        return self._seen(self.sessions, gid,
                          f"no game with id {gid!r} (a game is dropped once nobody has asked about it for "
                          f"{self.limits.idle_seconds:g} s, or when it is over and room is needed)")

    def _seen(self, kept: dict[str, Any], key: str, missing: str) -> Any:
        """``kept[key]``, marked seen now; RequestError (404, ``missing``) when it is not kept (the games
        and replays abandoned are dropped first: :meth:`sweep`)."""
        self.sweep()
        item = kept.get(key)
        if item is None:
            raise RequestError(missing, 404)
        item.seen = self.clock()
        return item

    def move(self, gid: str, body: dict[str, Any]) -> Session:
        """A human seat's move.

        Raises:
            RequestError: not a human seat, not its turn (409), or an illegal move (the rule it breaks).
        """
        session = self.session(gid)
        if "seat" not in body or "action" not in body:
            raise RequestError("a move is {\"seat\": <seat>, \"action\": <action id>, \"token\": <seat's token>}")
        seat, action = whole(body["seat"], "seat"), whole(body["action"], "action")
        step = whole(body["step"], "step") if "step" in body else None
        with session.lock:
            if seat not in session.humans:
                raise RequestError(f"seat {seat} is not played by a person in this game", 403)
            session.check_token(seat, body.get("token"))
            s = session.states[-1]
            g = session.game
            if session.over:
                raise RequestError("the game is over" if session.error is None else
                                   f"the game is over: {session.error}", 409)
            if step is not None and step != len(session.actions):  # a request sent twice, or from a stale page
                raise RequestError(f"the game moved on: it is at step {len(session.actions)}, not {step}; "
                                   "nothing was played", 409)
            if g.is_chance(s) or g.acting_player(s) != seat:
                who = "chance" if g.is_chance(s) else f"seat {g.acting_player(s)}"
                raise RequestError(f"it is not seat {seat}'s turn: {who} is to act", 409)
            if not 0 <= action < g.num_actions:
                raise RequestError(f"action {action} is not an action of {g.name} (0..{g.num_actions - 1})")
            try:
                session.apply(action)
            except IllegalActionError as e:
                raise RequestError(str(e)) from e
            session.kick()
        return session

    # ------------------------------------------------------------------ replays
    def allowed_path(self, path: str) -> Path:
        """``path`` resolved (symbolic links followed) to a file under ``runs/`` of the served folder
        or to a leaderboard journal, ``docs/leaderboard/*.games.jsonl``.

        Raises:
            RequestError: 403 for a path elsewhere, 404 for a missing file, 413 for a file over
                ``max_replay_kib``.
        """
        try:  # RuntimeError: a loop of symbolic links (Python before 3.13)
            p = (self.root / path).resolve()
            board, replays = (self.root / LEADERBOARD_FOLDER).resolve(), (self.root / REPLAY_FOLDER).resolve()
        except (ValueError, OSError, RuntimeError) as e:
            raise RequestError(f"{path!r} is not a path: {e}") from e
        if not (p.is_relative_to(replays)
                or (p.parent == board and p.match(LEADERBOARD_JOURNALS))):
            raise RequestError(f"{path!r} is outside the folders replays are read from ({REPLAY_FOLDER}/, "
                               f"and the journals {LEADERBOARD_FOLDER}/{LEADERBOARD_JOURNALS}, of "
                               f"{self.root}); upload the file instead", 403)
        if not is_file(p):
            raise RequestError(f"no file {path!r}", 404)
        self.check_replay_size(p.stat().st_size, path)
        return p

    def replay_files(self) -> list[str]:
        """The leaderboard journals of the served folder (paths to open as replays), sorted."""
        board = self.root / LEADERBOARD_FOLDER
        return sorted(f"{LEADERBOARD_FOLDER}/{p.name}" for p in board.glob(LEADERBOARD_JOURNALS)
                      if _utf8(p.name)) if board.is_dir() else []

    def check_replay_size(self, size: int, label: str) -> None:
        """Refuse (413) a replay file of ``size`` bytes over ``max_replay_kib``."""
        cap = self.limits.max_replay_kib
        if size > cap * 1024:
            raise RequestError(f"{label} is {size / 1024:.0f} KiB; a replay file may have at most {cap} KiB "
                               "(octagames serve --max-replay-kib)", 413)

    def open_replay(self, body: dict[str, Any]) -> tuple[Replay, int]:
        """Open a record, or one game of a journal, from ``{"path"}`` or ``{"text"}``.

        Returns:
            The replay and the number of games the file holds.

        Raises:
            RequestError: a path outside the allowed folders, or a file that holds no record.
        """
        if "path" in body:
            p = self.allowed_path(str(body["path"]))
            try:
                text, label = p.read_text(encoding="utf-8"), p.name
            except (OSError, UnicodeDecodeError) as e:
                raise RequestError(f"{body['path']!r} cannot be read as a text file (UTF-8): {e}") from e
        elif "text" in body:
            text, label = str(body["text"]), str(body.get("name", "uploaded file"))
            self.check_replay_size(len(text.encode("utf-8", "surrogatepass")), label)
        else:
            raise RequestError("open a replay with {\"path\": \"runs/...\"} or {\"text\": <the file's content>}")
        check_json({"name": label}, "the request")  # a name from the request, or a file's
        items = load_records(text)
        if not items:
            bare = sum('"returns"' in line and '"record"' not in line for line in text.splitlines())
            hint = (f"; it is a journal of {bare} games kept without their records (written before journals "
                    "kept them): a new run writes them, and octagames leaderboard --game <variant> "
                    "--record-games adds them to a leaderboard's journal") if bare else ""
            raise RequestError(f"{label} holds no game record (a record, or a journal whose rows keep "
                               f"records){hint}")
        index = body.get("index", 0)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(items):
            raise RequestError(f"{label} holds {len(items)} games; index must be 0..{len(items) - 1}")
        check_json(items[index], f"{label}: game {index}")  # what the record tells is shown as text
        try:  # a file is untrusted input: read field by field, then replayed through the rules
            rec = records.GameRecord.from_dict(items[index])
            if len(rec.actions) > self.limits.max_moves:  # every position is kept: refused before any is replayed
                raise RequestError(f"{label}: game {index} holds {len(rec.actions)} actions; a replay may hold at "
                                   f"most {self.limits.max_moves} (octagames serve --max-moves)", 413)
            records.check(rec)
            game = rec.make_game()
            actions = [int(x) for x in rec.actions]
            states = [game.new_state(rec.seed)]
            for action in actions:
                s = game.clone(states[-1])
                game.apply_action(s, action)
                states.append(s)
        except RequestError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise RequestError(f"{label}: game {index} is not a valid record: {e}") from e
        thinking = dict(rec.thinking)  # the records' format, as the page reads it
        title = f"{label} #{index}: {catalogue.describe(game.name, game.config)}"
        replay = Replay(secrets.token_urlsafe(9), title, game, states, actions, thinking,
                        [str(x) for x in rec.agents], seen=self.clock())
        with self._lock:  # replays are opened again from their files: the least recently seen goes
            self._drop(self._room(self.replays, finished=False))
            self.replays[replay.id] = replay
        return replay, len(items)

    def replay(self, rid: str) -> Replay:
        """The replay ``rid`` (now seen). Raises RequestError (404) for an unknown or dropped id."""
        return self._seen(self.replays, rid, f"no replay with id {rid!r} (open its file again: the server "
                          f"keeps the {self.limits.max_games} replays seen last)")


def _utf8(name: str) -> bool:
    """Whether ``name`` (a file name) is UTF-8 text: a name of other bytes (read as surrogates) cannot be sent."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def load_records(text: str) -> list[dict[str, Any]]:
    """The game records in a file's text, unchecked (:class:`octagames.records.GameRecord` checks one):
    one record (JSON), a list of them, or a JSON-lines journal whose rows keep a record
    (``{"record": {...}}``; :func:`octagames.records.load` reads the same from a path)."""
    text = text.strip()
    try:
        whole_file = json.loads(text)
        items = whole_file if isinstance(whole_file, list) else [whole_file]
    except (ValueError, RecursionError):  # not JSON, an integer past 4300 digits, or nested too deep
        items = []
        for line in text.splitlines():
            try:
                items.append(json.loads(line))
            except (ValueError, RecursionError):
                continue  # a line cut short by a kill
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("record"), dict):
            item = item["record"]
        if isinstance(item, dict) and "actions" in item and ("variant" in item or "game" in item):
            out.append(item)
    return out


def whole(value: Any, name: str) -> int:
    """``value``, a count of a request (``players``, ``seat``, ``action``), once it is a JSON integer.

    Raises:
        RequestError: anything else (``1.9``, ``2.0``, ``"2"``, ``true``, ``Infinity``, ``null``), naming the field.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{name} must be a whole number, got {value!r}")
    return value


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file; False for a path the system cannot look up (a name too long, ...)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def check_json(value: Any, where: str) -> None:
    """Refuse (400) JSON that nests deeper than :data:`MAX_DEPTH` or holds a string with a lone surrogate
    (no UTF-8 encodes it: the reply that showed it could not be sent), naming the field.

    Args:
        value: parsed JSON (dicts, lists, strings, numbers).
        where: what it is, for the message (``"the request"``, ``"run.json: game 0"``).

    Raises:
        RequestError: the first field found at fault.
    """
    todo: list[tuple[Any, str, int]] = [(value, "", 0)]
    while todo:
        item, path, depth = todo.pop()
        if isinstance(item, (dict, list)):
            if depth >= MAX_DEPTH:
                raise RequestError(f"{where} nests lists and objects more than {MAX_DEPTH} deep "
                                   f"(at {path or 'the top'})")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, sub in pairs:
                shown = LONE_SURROGATE.sub(lambda m: ascii(m.group())[1:-1], str(key))  # the reply is UTF-8
                named = f"{path}[{key}]" if isinstance(item, list) else f"{path}.{shown}" if path else shown
                todo.append((key, f"the name of {named}", depth + 1))
                todo.append((sub, named, depth + 1))
        elif isinstance(item, str) and (lone := LONE_SURROGATE.search(item)):
            raise RequestError(f"{where}: {path or 'the value'} holds a lone UTF-16 surrogate ({ascii(lone.group())}), "
                               "which is no character; send text")


# ---------------------------------------------------------------------- HTTP
def _seat(request: Request) -> int | None:
    seat = request.query_params.get("seat")
    if seat in (None, "", "all"):
        return None
    return _count(seat, "seat", "a seat number (plain digits, as 1) or 'all'")


def _count(text: str, name: str, what: str) -> int:
    """A number of a query, once it is written in its one spelling (:data:`records.NUMBER_KEY`: plain digits
    without a leading zero, as the keys of a record's thinking).

    Raises:
        RequestError: any other text (``01``, ``+1``, `` 1``, ``1_0``, ``-1``, ``x``), naming the parameter.
    """
    if not records.NUMBER_KEY.fullmatch(text) or len(text) > 18:  # a seat or a step fits in 18 digits
        raise RequestError(f"{name} must be {what}, got {text[:24]!r}")
    return int(text)


def _check_origin(request: Request) -> None:
    """Refuse a request a page of another site sent (an ``Origin`` that is not this server's own)."""
    origin = request.headers.get("origin")
    if origin is None:
        return
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or parts.netloc != request.headers.get("host"):
        raise RequestError(f"requests from the page of another site ({origin}) are refused", 403)


async def _body(request: Request, limit_kib: int) -> dict[str, Any]:
    """The request's JSON object, read up to ``limit_kib`` KiB (413 past it, before JSON is parsed)."""
    _check_origin(request)
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise RequestError("the request body must be JSON sent as Content-Type: application/json", 415)
    too_big = RequestError(f"the request body may have at most {limit_kib} KiB", 413)
    try:
        length = int(request.headers.get("content-length", 0))
    except ValueError as e:
        raise RequestError("Content-Length must be a number of bytes") from e
    if length > limit_kib * 1024:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit_kib * 1024:
            raise too_big
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks), parse_constant=_not_a_number, parse_float=_finite)
    except NotANumber as e:
        raise RequestError(f"the request body must be JSON: {e}") from e
    except RecursionError as e:
        raise RequestError(f"the request body must be a JSON object nested at most {MAX_DEPTH} deep") from e
    except ValueError as e:  # not JSON, or not UTF-8
        raise RequestError("the request body must be a JSON object") from e
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    check_json(body, "the request")
    return body


class NotANumber(ValueError):
    """A number in a request body that JSON has not: ``NaN``, ``Infinity``, or a literal past a float's range."""


def _not_a_number(constant: str) -> float:
    """Refuse ``NaN``, ``Infinity`` and ``-Infinity`` (Python's json reads them; JSON has no such number)."""
    raise NotANumber(f"{constant} is not a JSON number")


def _finite(literal: str) -> float:
    """A JSON number with a fraction or exponent, refused when past a float's range (``1e400``)."""
    value = float(literal)
    if not math.isfinite(value):
        raise NotANumber(f"{literal[:24]} is past the range of a number")
    return value


class AllowedHosts:
    """ASGI middleware: refuse (400, in words) a request whose ``Host`` is none of ``hosts`` (DNS rebinding).

    Args:
        app: the app it guards.
        hosts: the host names answered (no port); ``"*"`` answers any, ``"*.lan"`` any name under ``.lan``.
    """

    def __init__(self, app: Any, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = tuple(dict.fromkeys(h.lower() for h in hosts))

    def allowed(self, host: str | None) -> bool:
        """Whether ``host`` (a Host header's name, without its port) is answered."""
        return host is not None and any(h == "*" or host == h or (h.startswith("*.") and host.endswith(h[1:]))
                                        for h in self.hosts)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        try:
            host = urlsplit(f"//{header}").hostname
        except ValueError:
            host = None
        if self.allowed(host):
            await self.app(scope, receive, send)
            return
        named = f"the Host {host!r}" if host else f"a Host header {header!r} that names no host"
        hint = f"--allowed-host {host}" if host else "--allowed-host <name>"
        await JSONResponse({"error": f"this server does not answer {named}; it answers {', '.join(self.hosts)}. "
                                     f"Open one of those, or start it with octagames serve {hint} (a name "
                                     "answered only when listed, so that a page of another site cannot reach "
                                     "the app by DNS rebinding)"}, status_code=400)(scope, receive, send)


def create_app(root: str | Path = ".", hosts: tuple[str, ...] = (),
               limits: Limits | None = None) -> Starlette:
    """The web app, reading replays under ``root`` (``runs/``, ``docs/leaderboard/*.games.jsonl``).

    Args:
        root: the served folder.
        hosts: the host names the app answers besides ``127.0.0.1`` and ``localhost`` (``octagames
            serve`` gives the ``--host`` address, the machine's hostname and ``--allowed-host``; ``"*"``
            would answer any, which a page of another site can then reach by DNS rebinding).
        limits: what a request may ask for (:class:`Limits`; its defaults when None).

    Returns:
        The Starlette app (its :class:`Server` as ``app.state.server``).
    """
    server = Server(root, limits)
    body_kib = server.limits.max_body_kib
    # an upload is the file as a JSON string in a JSON object: the file's own limit is checked on the text
    replay_kib = body_kib + REPLAY_ENCODING * server.limits.max_replay_kib

    def game_view(session: Session, seat: int | None, token: Any) -> dict[str, Any]:
        # a game stopped (a bot failed, the limit of moves) is over too: it opens all-seeing, as a finished one
        if seat is None and session.humans and not session.over:
            raise RequestError("the all-seeing view of a game with human seats opens when it is over; "
                               f"ask for a seat: ?seat={session.humans[0]}", 403)
        if seat is not None and not 0 <= seat < session.game.num_players:
            raise RequestError(f"seat {seat} is not a seat of this game (0..{session.game.num_players - 1})")
        if seat is not None and session.humans and seat not in session.humans and not session.over:
            raise RequestError(f"seat {seat} is a bot's: a person sees the game from a human seat "
                               f"({', '.join(map(str, session.humans))}) until it is over", 403)
        if seat is not None and not session.over:
            session.check_token(seat, token)
        with session.lock:
            return session.view(seat)

    # The handlers below that do the rules' work (step, draw, resample, load, build agents) are plain
    # functions: Starlette runs them in its thread pool, and the async ones, which read a body, hand
    # their work to it (run_in_threadpool), so the event loop only moves bytes.
    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    def api_catalogue(request: Request) -> JSONResponse:
        # "zoo": the zoo model's name per player count that has one ({"2": "octrix", "3": "octrix-3p"})
        variants = [{"name": v.name, "game": v.game, "title": v.title, "players": list(v.players),
                     "zoo": {str(n): v.zoo_name(n) for n in v.zoo}} for v in catalogue.variants().values()]
        agents = [{"name": k, "summary": e.summary} for k, e in AGENTS.items()]
        folders = [f"{REPLAY_FOLDER}/", f"{LEADERBOARD_FOLDER}/{LEADERBOARD_JOURNALS}"]
        return JSONResponse({"variants": variants, "agents": agents, "replay_folders": folders,
                             "replay_files": server.replay_files()})

    def new_game(body: dict[str, Any]) -> dict[str, Any]:
        session = server.new_game(body)
        with session.lock:  # the seat and its view at one moment (a bot may move at any time)
            out = session.view(session.seat_to_show())  # a human seat's view, or a game of bots': no check needed
        out["tokens"] = {str(p): t for p, t in session.tokens.items()}  # told once: the page keeps them
        return out

    async def api_new_game(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(new_game, await _body(request, body_kib)))

    def api_game(request: Request) -> JSONResponse:
        return JSONResponse(game_view(server.session(request.path_params["gid"]), _seat(request),
                                      request.query_params.get("token")))

    def move(gid: str, body: dict[str, Any]) -> dict[str, Any]:
        session = server.move(gid, body)
        return game_view(session, whole(body["seat"], "seat"), body.get("token"))

    async def api_move(request: Request) -> JSONResponse:
        body = await _body(request, body_kib)
        return JSONResponse(await run_in_threadpool(move, request.path_params["gid"], body))

    def api_record(request: Request) -> JSONResponse:
        session = server.session(request.path_params["gid"])
        with session.lock:
            if session.humans and not session.over:  # (a game stopped is over: its record has no returns)
                raise RequestError("the record of a game with human seats is saved when the game is over", 403)
            return JSONResponse(session.record())

    def open_replay(body: dict[str, Any]) -> dict[str, Any]:
        replay, games = server.open_replay(body)
        out = replay.view(0, None)
        out["games"] = games
        return out

    async def api_open_replay(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(open_replay, await _body(request, replay_kib)))

    def api_replay(request: Request) -> JSONResponse:
        replay = server.replay(request.path_params["rid"])
        step = _count(request.query_params.get("step", "0"), "step", "a number of moves (plain digits, as 12)")
        seat = _seat(request)
        if seat is not None and not 0 <= seat < replay.game.num_players:
            raise RequestError(f"seat {seat} is not a seat of this game (0..{replay.game.num_players - 1})")
        return JSONResponse(replay.view(step, seat))

    async def refused(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestError)
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        # Starlette's own refusals (an unknown path, a method a route does not take) in the API's words
        assert isinstance(exc, HTTPException)
        if exc.status_code in (204, 304):
            return Response(status_code=exc.status_code, headers=exc.headers)
        what = f"{request.method} {request.url.path}"
        words = {404: f"no such page or API route: {what}",
                 405: f"{what}: the method is not allowed here"}.get(exc.status_code, f"{what}: {exc.detail}")
        return JSONResponse({"error": words}, status_code=exc.status_code, headers=exc.headers)

    async def failed(request: Request, exc: Exception) -> JSONResponse:
        # a bug of the server: the page shows this line; the log has the traceback (Starlette prints it)
        return JSONResponse({"error": f"the server failed on {request.method} {request.url.path}: "
                                      f"{type(exc).__name__} (its log has the details)"}, status_code=500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # the abandoned games are dropped (their bots stop) even when no request comes
        async def sweep() -> None:
            while True:
                await asyncio.sleep(max(0.05, min(SWEEP_SECONDS, server.limits.idle_seconds / 2)))
                await run_in_threadpool(server.sweep)

        task = asyncio.create_task(sweep())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await run_in_threadpool(server.close)  # the games' bots stop thinking

    app = Starlette(routes=[
        Route("/", index),
        Route("/api/catalogue", api_catalogue),
        Route("/api/games", api_new_game, methods=["POST"]),
        Route("/api/games/{gid}", api_game),
        Route("/api/games/{gid}/move", api_move, methods=["POST"]),
        Route("/api/games/{gid}/record", api_record),
        Route("/api/replays", api_open_replay, methods=["POST"]),
        Route("/api/replays/{rid}", api_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], exception_handlers={RequestError: refused, HTTPException: http_error, Exception: failed},
        lifespan=lifespan, middleware=[Middleware(AllowedHosts, hosts=("127.0.0.1", "localhost", *hosts))])
    app.state.server = server
    return app
