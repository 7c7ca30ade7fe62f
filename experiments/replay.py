"""Replay a game record or a journal's game in the terminal: the move list and every position.

    octagames replay game.json                                   # a record (octagames play --save)
    octagames replay runs/tournament_octrix-2p.games.jsonl --game-index 3 --seat 1
    octagames replay game.json --all > game.txt                  # every position, no questions

It prints the header (variant, seed, the agent of every seat, the returns) and the move
list, then the positions: all of them when the output is not a terminal or with ``--all``;
otherwise one at a time, stepping with ``n`` (next), ``p`` (previous), a move number, or
``q`` (quit). All-seeing by default; ``--seat N`` shows what seat N saw and nothing more:
its render of each position (``Game.render(s, viewer=N)``), the moves by the names it
knew (:func:`octagames.records.move_names`: a card dealt to another seat, another seat's
simultaneous move before the round is over, read as hidden) and only its own agent's
thinking. ``--game-index`` counts a journal's games that keep a record from 0 (the order of the file,
not the journal's ``key``; ``octagames serve`` numbers them alike). Journals written before journals
kept records have no moves to replay: a new run of the same command writes them, and ``octagames
leaderboard --game <variant> --record-games`` plays a leaderboard's journaled games again to keep
their records (``docs/leaderboard/`` holds them):

    octagames replay docs/leaderboard/octrix.games.jsonl --game-index 180 --all   # mcts:1000 vs zoo:octrix
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Annotated, TextIO

from octagames.core import CHANCE, is_count
from octagames.experiments.cli import POSITIONAL, parse_config, script
from octagames.records import GameRecord, load_game, name_reveals, states

KEYS = "n: next, p: previous, <number>: that move, a: all moves, q: quit"


@dataclass(frozen=True)
class ReplayConfig:
    """Step through a game record, or one game of a journal, forward and back."""

    file: Annotated[str, POSITIONAL] = ""
    """a record (.json) or a game journal (.games.jsonl)"""
    game_index: int = 0
    """which game of a journal: its games with a record, counted from 0 (not the journal's key); -1: the last"""
    seat: int | None = None
    """show what this seat saw (None: all-seeing)"""
    all: bool = False
    """print every position instead of stepping (the default when the output is not a terminal)"""

    def __post_init__(self) -> None:
        if not self.file:
            raise ValueError("give the record or journal to replay: octagames replay FILE")


class Replay:
    """One record seen by all or by one seat: the texts the replay prints.

    Args:
        record: the record (checked).
        seat: the seat whose view is shown, or ``None`` (all-seeing).

    Raises:
        ValueError: a seat that is not one of the game's.
    """

    def __init__(self, record: GameRecord, seat: int | None = None) -> None:
        self.record, self.seat = record, seat
        self.game = record.make_game()
        self.states = states(record)
        self.reveals = None if seat is None else name_reveals(record, seat)  # refuses a bad seat

    def header(self) -> str:
        """Variant, seed, agents, returns and whose view this is."""
        r = self.record
        agents = ", ".join(f"P{p} {a or '?'}" for p, a in enumerate(r.agents))
        result = ("not finished" if r.returns is None
                  else ", ".join(f"P{p} {x:+.3g}" for p, x in enumerate(r.returns)))
        view = "all-seeing" if self.seat is None else f"as P{self.seat} saw it"
        return (f"{r.variant} ({r.num_players} players), seed {r.seed}, {r.length} moves, {view}\n"
                f"agents: {agents}\nreturns: {result}")

    def move_line(self, k: int, upto: int | None = None) -> str:
        """Move ``k`` as the viewer knows it after ``upto`` moves (default: the end)."""
        r = self.record
        p = r.players[k]
        name = r.names[k] if self.known(k, upto) else "(hidden)"
        who = "chance" if p == CHANCE else f"P{p}"
        line = f"{k + 1:>4}. {who:<7}{name}"
        thinking = r.thinking.get(k)
        if thinking and (self.seat is None or self.seat == p):
            line += f"   ({self.thinking_text(k, thinking)})"
        return line

    def known(self, k: int, upto: int | None = None) -> bool:
        """Whether the viewer knows the name of move ``k`` after ``upto`` moves (default: the end)."""
        if self.reveals is None:
            return True
        shown = self.reveals[k]
        return shown is not None and shown <= (self.record.length if upto is None else upto)

    def thinking_text(self, k: int, thinking: dict) -> str:
        """``value +0.31, 50 simulations/worlds; ♥8 0.62 (value 0.55), ♣6 0.30 (value 0.41), ...``: the
        agent's value and its three most likely moves by name, each with its share and its value where the
        agent kept them (rollouts keep no shares: their three best values)."""
        head = [f"value {thinking['value']:+.2f}"] if "value" in thinking else []
        if "visits" in thinking:
            head.append(f"{thinking['visits']} simulations/worlds")
        parts = [", ".join(head)] if head else []
        shares, values = thinking.get("policy", {}), thinking.get("values", {})
        rank = shares or values
        best = sorted(rank, key=lambda a: -rank[a])
        if best:
            s = self.states[k]

            def move(a: int) -> str:
                share = f" {shares[a]:.2f}" if a in shares else ""
                value = "" if a not in values else f" value {values[a]:.2f}"
                value = f" ({value[1:]})" if value and shares else value
                return f"{self.game.action_to_string(s, a)}{share}{value}"

            parts.append(", ".join(move(a) for a in best[:3]) + (", ..." if len(best) > 3 else ""))
        return "; ".join(parts)

    def move_list(self) -> str:
        """Every move, numbered from 1, as the viewer knows it at the end."""
        return "\n".join(self.move_line(k) for k in range(self.record.length)) or "(no moves)"

    def position(self, k: int) -> str:
        """Position ``k`` (after ``k`` moves): the move that led to it and the table's render."""
        n = self.record.length
        title = f"--- position {k}/{n}"
        if k:
            title += ": after " + self.move_line(k - 1, upto=k).strip()
        return f"{title}\n{self.game.render(self.states[k], self.seat)}"


def step(replay: Replay, inp: TextIO, out: TextIO) -> None:
    """Show one position at a time, reading ``n``/``p``/a number/``a``/``q`` from ``inp``."""
    k, n = 0, replay.record.length
    out.write(replay.position(k) + "\n")
    while True:
        out.write(f"[{KEYS}] > ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\n")
            return
        cmd = line.strip().lower()
        if cmd in ("q", "quit", "exit"):
            return
        if cmd in ("", "n", "next"):
            if k == n:
                out.write("That is the last position (q quits).\n")
                continue
            k += 1
        elif cmd in ("p", "prev", "previous", "b", "back"):
            if k == 0:
                out.write("That is the first position.\n")
                continue
            k -= 1
        elif cmd in ("a", "all", "moves"):
            out.write(replay.move_list() + "\n")
            continue
        elif is_count(cmd) and 0 <= int(cmd) <= n:
            k = int(cmd)
        else:
            out.write(f"{line.strip()!r} is not a command: {KEYS} (moves 0..{n}).\n")
            continue
        out.write(replay.position(k) + "\n")


def main(cfg: ReplayConfig, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Replay ``cfg.file``; stepping when both ``inp`` and ``out`` are terminals and not ``cfg.all``.

    Raises:
        ValueError: the file is not a valid record or journal, no such game or seat (one line).
        FileNotFoundError: no such file.
    """
    record = load_game(cfg.file, cfg.game_index)
    if cfg.seat is not None and not 0 <= cfg.seat < record.num_players:
        raise ValueError(f"seat={cfg.seat} is not valid; valid values: 0..{record.num_players - 1}")
    replay = Replay(record, cfg.seat)
    out.write(replay.header() + "\n\nmoves:\n" + replay.move_list() + "\n\n")
    if cfg.all or not (inp.isatty() and out.isatty()):
        for k in range(record.length + 1):
            out.write(replay.position(k) + "\n")
        return 0
    step(replay, inp, out)
    return 0


@script
def cli() -> None:
    """Command-line entry point (``octagames replay``, ``python -m octagames.experiments.replay``)."""
    cfg = parse_config(ReplayConfig)
    try:
        raise SystemExit(main(cfg))
    except BrokenPipeError:  # the output was cut short (| head): not an error
        sys.stderr.close()
        raise SystemExit(0)


if __name__ == "__main__":
    cli()
