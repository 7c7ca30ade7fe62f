"""Play any game in the terminal against any agents.

    octagames play --game octrix-round --opponents mcts
    octagames play --game achten-dealer-pays --opponents mcts:500 --seat 1
    octagames play --game octrix --players 3 --opponents mcts,heuristic
    python -m octagames.experiments.play --game octa-nl --opponents heuristic
    octagames play --game octa-nl --opponents heuristic --save game.json

At your turn the table is shown as your seat sees it, with your legal moves
numbered. Type a number, or the move's name as listed; or a command:
``undo`` (take back your last move), ``help``, ``board`` (show the table
again), ``quit``. A bad entry gets a message and a new prompt.

Moves of the other seats are announced by name (move names are public: they
name only cards every seat has seen); a simultaneous move stays hidden until
everyone has played, then it is announced. At the end the whole history is
printed as your seat knew it (a card dealt to another seat reads as hidden), and
``--save FILE`` writes the game's record (:mod:`octagames.records`; ``octagames
replay FILE`` steps through it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from octagames.agents.base import Agent, decide, make_turn
from octagames.agents.registry import make_agent
from octagames.experiments.cli import GameArgs, check_file_path, fail, parse_config, script
from octagames.experiments.replay import Replay
from octagames.core import CHANCE, SIMULTANEOUS, TERMINAL, Game, is_count
from octagames.records import GameRecord, Recorder, SimultaneousRound

HELP = """Commands:
  <number>   play the move with that number in the list
  <name>     play the move with that name (as listed, e.g. ♣8)
  undo       take back your last move (and the moves played since)
  board      show the table again
  help       this text
  quit       leave the game"""


@dataclass(frozen=True)
class PlayConfig(GameArgs):
    """Settings of a game against agents in the terminal (--game, --players, --config: the variant)."""

    opponents: str = "mcts"
    """comma-separated agent specs for the other seats, in seat order (the last one repeats)"""
    seat: int = 0
    """your seat"""
    seed: int = 0
    """seed of the deal and of the agents"""
    allow_model_mismatch: bool = False
    """let a model trained on another config of the game play this one (with a warning) instead of refusing"""
    save: str = ""
    """write the game's record to this file when the game ends or you quit (octagames replay FILE)"""


class Session:
    """One game between a person (reading ``inp``, writing ``out``) and agents.

    Args:
        game: the game.
        agents: an agent for every seat except ``seat`` (``None`` there).
        seat: the person's seat.
        seed: the deal's seed.
        inp: where the person's lines come from.
        out: where the text goes.
    """

    def __init__(self, game: Game, agents: list[Agent | None], seat: int, seed: int,
                 inp: TextIO, out: TextIO) -> None:
        self.game, self.agents, self.seat, self.seed = game, agents, seat, seed
        self.inp, self.out = inp, out
        self.rng = np.random.default_rng(seed)
        self.state = game.new_state(seed)
        # before each of the person's moves: the state, the moves kept and the simultaneous moves not yet announced
        self.snapshots: list[tuple[bytes, int, list[str], tuple[frozenset[int], set[int]]]] = []
        self.recorder = Recorder(game, seed, ["human" if a is None else a.name for a in agents])
        self.hidden: list[str] = []  # the other seats' simultaneous moves not yet announced
        self.round = SimultaneousRound(game)  # the round they belong to
        for p, a in enumerate(agents):
            if a is not None:
                a.reset(game, p, int(self.rng.integers(1 << 31)))

    @property
    def record(self) -> GameRecord:
        """The game's record so far (its returns once it is over)."""
        return self.recorder.record(self.state)

    def apply(self, action: int, thinking: dict | None = None) -> None:
        """Apply the acting seat's (or chance's) action, keeping it in the record; announce the other
        seats' simultaneous moves once their round is over."""
        s = self.state
        self.round.move(s)
        self.recorder.apply(s, action, thinking)
        if self.round.ended():
            for line in self.hidden:
                self.say(line)
            self.hidden = []

    def say(self, text: str = "") -> None:
        """Write a line."""
        self.out.write(text + "\n")
        self.out.flush()

    def run(self) -> int:
        """Play until the game ends or the person quits; returns 0 (ended) or 1 (quit)."""
        g = self.game
        self.say(f"You are P{self.seat}. Type help for the commands.")
        while True:
            cp = g.current_player(self.state)
            if cp == TERMINAL:
                self.say(g.render(self.state))
                self.say("\nThe game, as you saw it:\n" + Replay(self.record, self.seat).move_list())
                rets = g.returns(self.state)
                self.say("Game over. Returns: " + ", ".join(f"P{p} {r:+.3g}" for p, r in enumerate(rets)))
                self.say("You " + ("won." if rets[self.seat] >= rets.max() and not np.allclose(rets, rets[0])
                                   else "drew." if np.allclose(rets, rets[0]) else "lost."))
                return 0
            if cp == CHANCE:
                self.apply(g.sample_chance(self.state))
                continue
            p = g.acting_player(self.state)
            if p == self.seat:
                if not self.human_turn():
                    self.say("Bye.")
                    return 1
            else:
                self.agent_turn(p, cp)

    def agent_turn(self, p: int, cp: int) -> None:
        """Let the agent of seat ``p`` move and announce it as far as the person may see it."""
        g = self.game
        turn = make_turn(g, self.state, p, int(self.rng.integers(1 << 31)))
        a, thinking = decide(self.agents[p], turn)
        who = f"P{p} ({self.agents[p].name})"
        if cp == SIMULTANEOUS:
            self.say(f"{who} has chosen its move (hidden until everyone has played).")
            self.hidden.append(f"{who} played {g.action_to_string(self.state, a)}")
        else:
            self.say(f"{who} plays {g.action_to_string(self.state, a)}")
        self.apply(a, thinking)

    def show(self, legal: list[int]) -> None:
        """The table as the person sees it, and the numbered legal moves."""
        g = self.game
        self.say("")
        self.say(g.render(self.state, self.seat))
        self.say("Your moves:")
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>3}. {g.action_to_string(self.state, a)}")

    def human_turn(self) -> bool:
        """Read lines until a legal move is played; False when the person quits."""
        g = self.game
        legal = g.legal_actions(self.state, self.seat)
        names = {g.action_to_string(self.state, a).strip().lower(): a for a in legal}
        self.show(legal)
        while True:
            self.out.write(f"P{self.seat} move> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:  # end of input
                return False
            text = line.strip()
            cmd = text.lower()
            if cmd in ("quit", "exit", "q"):
                return False
            if cmd in ("help", "h", "?"):
                self.say(HELP)
                continue
            if cmd == "board":
                self.show(legal)
                continue
            if cmd == "undo":
                if not self.snapshots:
                    self.say("Nothing to undo: you have not moved yet.")
                    continue
                raw, kept, self.hidden, (self.round.seats, self.round.moved) = self.snapshots.pop()
                self.state = g.from_bytes(raw)
                self.recorder.truncate(kept)
                self.say("Your last move was taken back.")
                legal = g.legal_actions(self.state, self.seat)
                names = {g.action_to_string(self.state, a).strip().lower(): a for a in legal}
                self.show(legal)
                continue
            action = None
            if is_count(text):  # "²" is a digit to str.isdigit, not to int()
                k = int(text)
                if 1 <= k <= len(legal):
                    action = legal[k - 1]
                else:
                    self.say(f"There is no move {k}: choose a number from 1 to {len(legal)}.")
                    continue
            elif cmd in names:
                action = names[cmd]
            else:
                self.say(f"{text!r} is not a move number (1..{len(legal)}), a listed move name "
                         "or a command. Type help for the commands.")
                continue
            self.snapshots.append((g.to_bytes(self.state), self.recorder.length, list(self.hidden),
                                   (self.round.seats, set(self.round.moved))))
            self.say(f"You play {g.action_to_string(self.state, action)}")
            self.apply(action)
            return True


def build_session(cfg: PlayConfig, inp: TextIO, out: TextIO) -> Session:
    """A :class:`Session` from a config (agents built through the registry).

    Raises:
        ValueError: unknown game, agent spec, config field, seat or a negative seed; no opponent, or more
            than the other seats; a ``--save`` path that cannot be written.
    """
    game = cfg.make_game()
    if not 0 <= cfg.seat < game.num_players:
        raise ValueError(f"seat={cfg.seat} is not valid; valid values: 0..{game.num_players - 1}")
    if cfg.seed < 0:  # numpy's refusal names no flag
        raise ValueError(f"seed={cfg.seed} is not valid; it must be >= 0")
    if cfg.save:  # refused before the game, not after it (the record was lost)
        check_file_path(cfg.save, "save")
    specs = [s.strip() for s in cfg.opponents.split(",") if s.strip()]
    others = game.num_players - 1
    if not specs or len(specs) > others:  # an empty list played random; specs past the seats were never checked
        raise ValueError(f"opponents={cfg.opponents!r} is not valid; " + (
            "give one agent spec, for the other seat" if others == 1 else
            f"give 1 to {others} agent specs separated by commas, for the {others} other seats in seat order "
            "(the last one repeats)"))
    agents: list[Agent | None] = []
    k = 0
    for p in range(game.num_players):
        if p == cfg.seat:
            agents.append(None)
        else:
            agents.append(make_agent(specs[min(k, len(specs) - 1)], game,
                                     allow_config_mismatch=cfg.allow_model_mismatch))
            k += 1
    return Session(game, agents, cfg.seat, cfg.seed, inp, out)


def main(cfg: PlayConfig, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Play one game.

    Raises:
        SystemExit: a bad setting (unknown agent spec, seat, ...), reported in one line on stderr as
            ``<command>: error: ...`` with exit status 2 (:func:`octagames.experiments.cli.fail`).
    """
    try:
        session = build_session(cfg, inp, out)
    except ValueError as e:
        fail(str(e))
    try:
        rc = session.run()
    except KeyboardInterrupt:
        out.write("\nBye.\n")
        rc = 1
    finally:  # the game played so far is saved whatever ended the session
        if cfg.save:
            path = session.record.save(cfg.save)
            out.write(f"The game's record is in {path} (octagames replay {path}).\n")
    return rc


@script
def cli() -> None:
    """Command-line entry point (``octagames-play``, or ``python -m octagames.experiments.play``)."""
    raise SystemExit(main(parse_config(PlayConfig)))


if __name__ == "__main__":
    cli()
