"""What the web app shows a seat: the position, its legal moves and the history as that seat may see them.

Pure functions over a game's states and actions (no web framework here), so that the HTTP tests can
rebuild a seat's view in another world it cannot tell apart and compare (the resampling leak test).

A human seat is shown, by the rules of its game:

* the text render and the picture **for that seat** (``Game.render(s, seat)``, the SVG picture when
  the pictures module is installed), never the record;
* the names of its own legal moves when it is to act;
* the history, move by move, as the game records' rule has it (:class:`octagames.records.SeatKnowledge`,
  the one place that says which move names a seat knows, and from when): its own moves and the other
  seats' moves by name (names are public by the engine contract); a dealt card by name only when the
  seat sees that very card right after the deal (``public.seen_ids``), else ``deal a card to P1``
  (the deal's name with its card left out); another chance outcome by name when the seat's
  observation tells it apart; another seat's simultaneous move (Octrix) hidden until the round of
  simultaneous moves is over;
* a bot's thinking (its shares, values and prior, in the records' format: :func:`named_thinking`)
  once the game is over, or at once in a game of perfect
  information where the bot's move is no longer hidden (Octiles; Octrix once the step is complete):
  a bot's search in a game of hidden cards is shaped by its own hand.

``seat=None`` is the all-seeing view (a finished game, a game of bots only, a replay).
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Sequence

import numpy as np

from octagames import records
from octagames.core import SIMULTANEOUS, Game

#: a card in a move name: suit and rank, with the copy for two-deck games (``♥3 (second copy)``)
CARD = re.compile(r"[♠♥♦♣](?:10|[2-9AJQKT])(?: \(second copy\))?")
#: what a seat reads in place of another seat's simultaneous move it does not know yet
HIDDEN_MOVE = "plays (hidden until every seat has played)"


def picture(game: Game, s: np.void, seat: int | None, clickable: bool) -> str | None:
    """The SVG picture of ``s`` for ``seat`` (clickable legal moves carry ``data-action``), or None
    when this install has no pictures module (the page then shows the text render)."""
    try:
        pictures = importlib.import_module("octagames.envs.pictures")
    except ImportError:
        return None
    try:
        return str(pictures.svg(game, s, seat, clickable=clickable))
    except TypeError:  # a pictures module without the clickable option
        return str(pictures.svg(game, s, seat))


class SeatHistory:
    """The history of one game as one seat (or everybody) sees it.

    Which moves the seat knows, and by what name, is the game records' rule
    (:class:`octagames.records.SeatKnowledge`); this class words the moves it does not know yet.
    The facts of each move are computed once and kept in ``cache`` (a dict the caller keeps per game
    and seat): states are only ever appended, so a poll costs the new moves only. A replay may show
    fewer moves than the cache holds (stepping back): the rule gives the step from which each move is
    known.

    Args:
        game: the game.
        states: ``states[k]`` is the record after the first ``k`` actions (not modified).
        actions: every action applied, chance outcomes included.
        seat: the viewing seat, or None for the all-seeing view.
        cache: the per-game-and-seat facts of earlier calls (or None).
    """

    def __init__(self, game: Game, states: Sequence[np.void], actions: Sequence[int], seat: int | None,
                 cache: dict[str, Any] | None = None):
        self.game, self.states, self.actions, self.seat = game, states, actions, seat
        self.cache = cache if cache is not None else {}
        self.cache.setdefault("name", [])
        self.cache.setdefault("mover", [])
        if seat is not None and "known" not in self.cache:
            self.cache["known"] = records.SeatKnowledge(game, seat)
        self.known: records.SeatKnowledge | None = self.cache.get("known")
        self._fill()

    def _fill(self) -> None:
        game, c, n = self.game, self.cache, len(self.actions)
        if len(c["name"]) >= n:
            return
        for k in range(len(c["name"]), n):
            s, a = self.states[k], int(self.actions[k])
            name = game.action_to_string(s, a)
            c["name"].append(name)
            c["mover"].append(None if game.is_chance(s) else int(game.acting_player(s)))
            if self.known is not None:
                self.known.add(s, a, name)
        if self.known is not None:
            self.known.reach(self.states[n])

    def entries(self) -> list[dict[str, Any]]:
        """Every move so far, as the seat may see it: ``{"step", "seat" (None for chance), "name"}``."""
        c, n, known = self.cache, len(self.actions), self.known
        out = []
        for k in range(n):
            name, mover = c["name"][k], c["mover"][k]
            if known is not None:
                name = known.moves[k][1]
                if not known.knows(k, n):
                    name = (CARD.sub("a card", c["name"][k]) if known.deals[k] else name) if mover is None \
                        else HIDDEN_MOVE
            out.append({"step": k, "seat": mover, "name": name})
        return out

    def thinking_shown(self, k: int, over: bool) -> bool:
        """Whether the thinking recorded for move ``k`` may be shown to the seat."""
        if self.known is None or over:
            return True
        return self.game.module.INFO.information == "perfect" and self.known.knows(k, len(self.actions))


def named_thinking(game: Game, s: np.void, told: dict[str, Any]) -> dict[str, Any]:
    """A move's thinking as the page reads it: the records' format (``docs/records.md``: ``policy``,
    ``values``, ``prior``, ``value``, ``visits``; action ids as strings) with ``names``, each move's
    name in ``s``, the position the bot chose in (who may see it: :meth:`SeatHistory.thinking_shown`).

    Args:
        game: the game.
        s: the position before the move.
        told: the move's thinking as a record keeps it (:func:`octagames.agents.base.considered`).
    """
    out = records.thinking_json(told)
    moves = {int(a) for key in records.THINKING_MOVES for a in told.get(key, {})}
    out["names"] = {str(a): game.action_to_string(s, a) for a in sorted(moves)}
    return out


def seat_view(game: Game, states: Sequence[np.void], actions: Sequence[int], seat: int | None,
              thinking: dict[int, Any] | None = None, humans: Sequence[int] = (),
              cache: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    """Everything the page shows ``seat`` of the position ``states[-1]`` (see the module docstring).

    Args:
        game: the game.
        states: the states so far (``states[k]`` after ``k`` actions).
        actions: the actions so far.
        seat: the viewing seat, or None for the all-seeing view.
        thinking: the bots' thinking by move index, in the records' format (``GameRecord.thinking``).
        humans: the seats played by people (their legal moves are listed when they are to act).
        cache: kept by the caller per game and seat (see :class:`SeatHistory`).

    Returns:
        A JSON-ready dict: ``render``, ``picture`` (SVG or None), ``to_act``, ``simultaneous``,
        ``over``, ``returns`` (at the end), ``legal`` (``[{"action", "name"}]`` for the seat when it is
        to act), ``history`` and ``thinking`` (the moves whose thinking the seat may see, by move index:
        :func:`named_thinking`).
    """
    s = states[-1]
    over = game.is_terminal(s)
    hist = SeatHistory(game, states, actions, seat, cache)
    to_act = None if over or game.is_chance(s) else game.acting_player(s)
    acting = to_act is not None and to_act == seat and seat in humans
    legal = [{"action": a, "name": game.action_to_string(s, a)} for a in game.legal_actions(s)] if acting else []
    named = hist.cache.setdefault("thinking", {})  # each move's thinking is named once
    shown = {}
    for k, told in (thinking or {}).items():
        if told and k < len(actions) and hist.thinking_shown(k, over):
            if k not in named:
                named[k] = named_thinking(game, states[k], told)
            shown[str(k)] = named[k]
    return {"step": len(actions), "seat": seat, "render": game.render(s, seat),
            "picture": picture(game, s, seat, clickable=acting), "to_act": to_act,
            "simultaneous": game.current_player(s) == SIMULTANEOUS, "over": over,
            "returns": [float(r) for r in game.returns(s)] if over else None,
            "legal": legal, "history": hist.entries(), "thinking": shown}
