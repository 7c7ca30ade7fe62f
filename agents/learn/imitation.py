"""Imitation of a teacher agent (the heuristics): a warm start for the learners.

:func:`teacher_games` plays games with a teacher in every seat (or in one seat
against an opponent) and records, at every teacher's decision with more than
one legal action, the record before it, the deciding seat, the teacher's
action and, once the game is over, its outcome.
With ``epsilon > 0`` the move actually played is sometimes uniformly random
(the label stays the teacher's choice), so the data also covers positions the
teacher would not reach by itself (DAgger's point: the learner will stray).

Both learners warm-start from it: :func:`octagames.agents.learn.az_selfplay` stores the samples
like self-play samples (a one-hot target), and :func:`octagames.agents.learn.clone.pretrain_actor_critic`
clones the teacher into a PPO :class:`~octagames.agents.learn.ppo.ActorCritic`. This module imports no torch:
its functions run in worker processes (:func:`teacher_games`, :func:`rollout_outcomes`, :func:`teacher_labels`
with ``workers``), each of which would load it.
"""

from __future__ import annotations

import ctypes
import functools
import multiprocessing
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from octagames.agents.base import make_turn
from octagames.agents.search.mcts import search_kernels
from octagames.agents.search.rollouts import believed_worlds, check_game, rollout_values
from octagames.agents.registry import make_agent
from octagames.core import CHANCE, TERMINAL, Game


BLOCK = 16
"""Games per seat in a block of :func:`teacher_games` with several workers."""

DECISION_BLOCK = 2048
"""Decisions in a block of :func:`rollout_outcomes` and :func:`teacher_labels` with several workers."""


@dataclass
class TeacherData:
    """Decisions of teacher games (arrays over decisions).

    Attributes:
        records: the record before each decision.
        seats: the deciding seat.
        actions: the teacher's action there.
        outcomes: the game's outcome per seat counted from ``seats``: 1 a win,
            1/2 a draw (all returns equal), 0 a loss.
        games: games played.
    """

    records: np.ndarray
    seats: np.ndarray
    actions: np.ndarray
    outcomes: np.ndarray
    games: int

    def __len__(self) -> int:
        return len(self.seats)

    @classmethod
    def concatenate(cls, parts: "list[TeacherData]") -> "TeacherData":
        """The decisions of ``parts`` one after the other (their games added up)."""
        return cls(np.concatenate([d.records for d in parts]), np.concatenate([d.seats for d in parts]),
                   np.concatenate([d.actions for d in parts]), np.concatenate([d.outcomes for d in parts]),
                   sum(d.games for d in parts))


@dataclass
class GamesSoFar:
    """The teacher games a :func:`teacher_games` call has played, to go on from: the data of its first
    ``data.games`` games and, with one worker, its generator's state after them (``None`` with several:
    their blocks start from their own seeds)."""

    data: TeacherData
    rng_state: dict[str, Any] | None


@dataclass
class ValuesSoFar:
    """The value targets a :func:`rollout_outcomes` call has found, to go on from: those of its first
    ``len(values)`` decisions and, where it valued them in this process, its generator's state after them
    (``None`` where several workers valued them in blocks, each from its own seed)."""

    values: np.ndarray
    rng_state: dict[str, Any] | None


#: ``checkpoint(done, so_far)`` after each game, position or decision (one process) or block (several), in order,
#: with the count done so far: ``so_far()`` builds what they made (:class:`GamesSoFar`, :class:`ValuesSoFar`, the
#: labels), only when called; a true result stops the work there
Checkpoint = Callable[[int, Callable[[], Any]], bool]


def teacher_games(game: Game, teacher: str, num_games: int, seed: int, epsilon: float = 0.0,
                  opponent: str = "", workers: int = 1, progress: bool = False, player: str = "",
                  done: GamesSoFar | None = None, checkpoint: Checkpoint | None = None,
                  before_play: Callable[[], None] | None = None) -> TeacherData:
    """Play ``num_games`` games with ``teacher`` (a registry spec) in every seat, or in one seat against
    ``opponent``; see the module docstring.

    Args:
        game: the game and config.
        teacher: the teacher's agent spec, e.g. ``"heuristic"``.
        num_games: games to play.
        seed: game ``k`` is dealt from ``seed + k``; the agents and the exploration draw from ``seed``.
        epsilon: chance that a teacher's decision is played uniformly at random (labelled with its choice).
        opponent: an agent spec for the other seats ("": the teacher in every seat). With one, the
            teacher sits in seat ``k % num_players`` of game ``k`` and only its decisions are recorded,
            so the data covers the positions it meets against that opponent.
        workers: processes playing the games. With more than one, the games are played in blocks of
            ``BLOCK * num_players`` consecutive games, each a call of this function with seed
            ``seed + its first game``: the same deals as with one worker, other draws of the agents,
            and the same data for any number of workers above one.
        progress: a tqdm bar over the games (with ``workers`` > 1).
        player: an agent spec that makes the moves of the teacher's seats in its place ("": the teacher
            does); the teacher still labels each of them (DAgger: the positions a learner reaches,
            with the expert's choices there). ``epsilon`` replaces the player's move.
        done: the games an earlier call with the same arguments played (from its ``checkpoint``): they are
            kept and the games go on after them exactly as that call's did, so a run stopped and resumed
            gets the data of one never stopped.
        checkpoint: called after each game (one worker) or each block of games (several), in order
            (:data:`Checkpoint`); when it returns true the call returns the games so far (``games`` below
            ``num_games``).
        before_play: called once, right before the first game this call plays (after its agents are
            built); not called when ``done`` holds every game.

    Returns:
        the decisions of the games played (``done``'s first), ``games`` of them.

    Raises:
        ValueError: ``epsilon`` outside [0, 1], ``workers`` < 1, a bad teacher, opponent or player spec, or a
            ``done`` that this call cannot go on from (more games than ``num_games``, or a part of a block
            or no generator state where the workers need one).
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon={epsilon} is not valid; it must be in [0, 1]")
    if workers < 1:
        raise ValueError(f"workers={workers} is not valid; it must be >= 1")
    first = 0 if done is None else done.data.games
    if first > num_games:
        raise ValueError(f"done holds {first} games; this call plays {num_games}")
    if done is not None and first == num_games:
        return done.data
    if workers > 1 and num_games > 1:
        return _teacher_games_in_processes(game, teacher, num_games, seed, epsilon, opponent, workers, progress,
                                           player, done, checkpoint, before_play)
    P = game.num_players
    rng = np.random.default_rng(seed)
    agents = [make_agent(teacher, game) for _ in range(P)]
    others = [make_agent(opponent, game) for _ in range(P)] if opponent else agents
    players = [make_agent(player, game) for _ in range(P)] if player else []
    recs, seats, actions, outcomes = [], [], [], []
    if done is not None and first:
        if done.rng_state is None:
            raise ValueError("done has no generator state: one worker goes on only from its own games")
        rng.bit_generator.state = done.rng_state
        recs, seats, actions = [done.data.records], list(done.data.seats), list(done.data.actions)
        outcomes = list(done.data.outcomes)
    if before_play is not None:
        before_play()

    def so_far(k: int) -> GamesSoFar:
        return GamesSoFar(_teacher_data(game, recs, seats, actions, outcomes, k), rng.bit_generator.state)

    for k in range(first, num_games):
        s = game.new_state(seed + k)
        taught = k % P if opponent else -1  # -1: every seat is the teacher's
        playing = [agents[p] if taught in (-1, p) else others[p] for p in range(P)]
        for p, a in enumerate(playing):
            a.reset(game, p, int(rng.integers(1 << 31)))
        for p, a in enumerate(players):
            a.reset(game, p, int(rng.integers(1 << 31)))
        start = len(seats)
        while True:
            cp = game.current_player(s)
            if cp == TERMINAL:
                break
            if cp == CHANCE:
                game.apply_action(s, game.sample_chance(s))
                continue
            p = game.acting_player(s)
            turn = make_turn(game, s, p, int(rng.integers(1 << 31)))
            legal = turn.legal_actions
            if len(legal) == 1:
                game.apply_action(s, int(legal[0]))
                continue
            a = int(playing[p].act(turn))
            if taught not in (-1, p):
                game.apply_action(s, a)
                continue
            recs.append(np.array(s, dtype=game.dtype).reshape(1))
            seats.append(p)
            actions.append(a)
            if players:
                a = int(players[p].act(make_turn(game, s, p, int(rng.integers(1 << 31)))))
            played = int(rng.choice(legal)) if epsilon > 0 and rng.random() < epsilon else a
            game.apply_action(s, played)
        rets = game.returns(s)
        best, draw = rets.max(), rets.max() - rets.min() <= 1e-9
        win = np.where(draw, 0.5, (rets >= best - 1e-9).astype(np.float64))
        for j in range(start, len(seats)):
            outcomes.append(win[(seats[j] + np.arange(P)) % P])
        if checkpoint is not None:
            snapshot = functools.cache(functools.partial(so_far, k + 1))  # built once, for the save and the stop
            if checkpoint(k + 1, snapshot) and k + 1 < num_games:
                return snapshot().data
    return _teacher_data(game, recs, seats, actions, outcomes, num_games)


def _teacher_data(game: Game, recs: list, seats: list, actions: list, outcomes: list, games: int) -> TeacherData:
    # joined as bytes: numpy joins many small arrays of a structured dtype field by field, 6 times slower
    records = np.concatenate([r.view(np.uint8) for r in recs]).view(game.dtype) if recs else np.zeros(0, game.dtype)
    return TeacherData(records, np.array(seats, np.int64), np.array(actions, np.int64),
                       np.array(outcomes, np.float32).reshape(-1, game.num_players), games)


def rollout_outcomes(game: Game, data: TeacherData, worlds: int, seed: int,
                     progress: bool = False, workers: int = 1, done: ValuesSoFar | None = None,
                     checkpoint: Checkpoint | None = None) -> np.ndarray:
    """Value targets with less noise than a game's one outcome: for each decision of ``data``, the deciding
    seat's mean win over ``worlds`` uniform determinizations of its information state
    (:func:`~octagames.agents.search.rollouts.believed_worlds`), each played on from the teacher's
    action to the end by the game's compiled heuristic in every seat
    (:func:`~octagames.agents.search.rollouts.rollout_values`: 1 a win, 1/2 a draw, 0 a loss).

    With ``workers`` > 1 the decisions are valued in blocks of :data:`DECISION_BLOCK`, each a call
    of this function with seed ``seed + its first decision``, in that many processes: the same
    values for any number of workers above one (the first block's are one worker's).

    ``done`` and ``checkpoint`` stop and go on as :func:`teacher_games`'s do: ``checkpoint(decisions done,
    so_far)`` after each decision (each block with several workers), a true result returning the values so
    far; ``done``, from an earlier call with the same arguments, is kept and the values go on after it as
    that call's did.

    Returns:
        ``outcomes`` laid out as :attr:`TeacherData.outcomes` (per seat counted from the deciding seat):
        the mean win, then ``1 -`` it for the other seat; fewer rows than ``data`` when ``checkpoint``
        stopped the call.

    Raises:
        ValueError: ``worlds`` < 1, ``workers`` < 1, a game without a compiled heuristic, not 2
            players (the playouts report the deciding seat's win only, which tells the others' only at
            two seats), or a ``done`` this call cannot go on from.
    """
    if worlds < 1:
        raise ValueError(f"worlds={worlds} is not valid; it must be >= 1")
    if workers < 1:
        raise ValueError(f"workers={workers} is not valid; it must be >= 1")
    check_game(game, "rollout value targets")
    if game.num_players != 2:
        raise ValueError(f"rollout value targets need 2 players; {game.name} has {game.num_players}")
    first = 0 if done is None else len(done.values)
    if first > len(data):
        raise ValueError(f"done holds {first} values; this call values {len(data)} decisions")
    if done is not None and first == len(data):
        return done.values
    blocks = workers > 1 and len(data) > DECISION_BLOCK
    if first and (first % DECISION_BLOCK if blocks else done.rng_state is None):
        raise ValueError(f"done holds {first} values, not what this call goes on from: whole blocks of "
                         f"{DECISION_BLOCK} with several workers, or one worker's generator state")
    if blocks:
        jobs = [(game, _slice(data, a, a + DECISION_BLOCK), worlds, seed + a)
                for a in range(first, len(data), DECISION_BLOCK)]
        desc = f"rollout values ({worlds} worlds)"
        return np.concatenate(_blocks_after(_rollout_block, jobs, workers, progress, desc, "decision",
                                            [len(j[1]) for j in jobs], [done.values] if first else [], len(data), len,
                                            checkpoint, lambda parts: ValuesSoFar(np.concatenate(parts), None)))
    rng = np.random.default_rng(seed)
    out = np.zeros((len(data), 2), np.float32)
    if first:
        out[:first] = done.values
        rng.bit_generator.state = done.rng_state
    steps = range(first, len(data))
    if progress:
        from tqdm.auto import tqdm
        steps = tqdm(steps, desc=f"rollout values ({worlds} worlds)", unit="decision", file=sys.stderr,
                     initial=first, total=len(data))
    for j in steps:
        seat = int(data.seats[j])
        played = believed_worlds(game, data.records[j], seat, rng, worlds)
        v = float(rollout_values(game, played, seat, [int(data.actions[j])]).mean())
        out[j] = (v, 1.0 - v)
        so_far = lambda: ValuesSoFar(out[:j + 1].copy(), rng.bit_generator.state)  # noqa: E731
        if checkpoint is not None and checkpoint(j + 1, so_far) and j + 1 < len(data):
            return out[:j + 1]
    return out


def teacher_labels(game: Game, teacher: str, records: np.ndarray, seats: np.ndarray, seed: int,
                   workers: int = 1, progress: bool = False, done: np.ndarray | None = None,
                   checkpoint: Checkpoint | None = None,
                   before_play: Callable[[], None] | None = None) -> np.ndarray:
    """``teacher``'s action (a registry spec) for ``seats[j]`` in ``records[j]``, for each ``j``: labels for
    positions the teacher's own games did not reach (e.g. :func:`children`).

    One agent per seat, reset once with draws from ``seed``; each decision's turn seed is the next
    draw. With ``workers`` > 1 the positions are labelled in blocks of :data:`DECISION_BLOCK`, each a
    call of this function with seed ``seed + its first position``, in that many processes: the same
    labels for any number of workers above one.

    ``checkpoint(positions done, so_far)`` is called after each position (each block with several workers); a
    true result returns the labels so far. ``done``, an earlier call's labels, is kept and the labels go on after
    it: whole blocks with several workers, or all of them (one worker's agents carry their state from position to
    position, which is not saved, so it goes on from the start or the end only). ``before_play`` is called once
    before the first position this call labels.

    Raises:
        ValueError: ``workers`` < 1, a bad teacher spec, or a ``done`` this call cannot go on from.
    """
    if workers < 1:
        raise ValueError(f"workers={workers} is not valid; it must be >= 1")
    first = 0 if done is None else len(done)
    if first == len(seats) and done is not None:
        return done
    blocks = workers > 1 and len(seats) > DECISION_BLOCK
    if first and (not blocks or first % DECISION_BLOCK):
        raise ValueError(f"done holds {first} labels of {len(seats)}: a call goes on from whole blocks of "
                         f"{DECISION_BLOCK} with several workers, and from none or all with one")
    if before_play is not None:
        before_play()
    if blocks:
        jobs = [(game, teacher, records[a:a + DECISION_BLOCK], seats[a:a + DECISION_BLOCK], seed + a)
                for a in range(first, len(seats), DECISION_BLOCK)]
        return np.concatenate(_blocks_after(_labels_block, jobs, workers, progress, f"labels by {teacher}", "position",
                                            [len(j[3]) for j in jobs], [done] if first else [], len(seats), len,
                                            checkpoint, np.concatenate))
    rng = np.random.default_rng(seed)
    agents = [make_agent(teacher, game) for _ in range(game.num_players)]
    for p, agent in enumerate(agents):
        agent.reset(game, p, int(rng.integers(1 << 31)))
    steps = range(len(seats))
    if progress:
        from tqdm.auto import tqdm
        steps = tqdm(steps, desc=f"labels by {teacher}", unit="position", file=sys.stderr)
    out = np.zeros(len(seats), np.int64)
    for j in steps:
        out[j] = agents[int(seats[j])].act(make_turn(game, records[j], int(seats[j]), int(rng.integers(1 << 31))))
        if checkpoint is not None and checkpoint(j + 1, lambda: out[:j + 1].copy()) and j + 1 < len(seats):
            return out[:j + 1]
    return out


def _slice(data: TeacherData, a: int, b: int) -> TeacherData:
    return TeacherData(data.records[a:b], data.seats[a:b], data.actions[a:b], data.outcomes[a:b], 0)


def _rollout_block(args: tuple) -> np.ndarray:
    game, data, worlds, seed = args
    return rollout_outcomes(game, data, worlds, seed)


def _labels_block(args: tuple) -> np.ndarray:
    game, teacher, records, seats, seed = args
    return teacher_labels(game, teacher, records, seats, seed)


def _blocks_after(work, jobs: list[tuple], workers: int, progress: bool, desc: str, unit: str, sizes: list[int],
                  done: list, total: int, count: Callable[[Any], int],
                  checkpoint: Checkpoint | None, so_far: Callable[[list], Any]) -> list:
    """The blocks ``done`` already, then :func:`_in_processes` over ``jobs`` (the blocks after them, of ``sizes``):
    every block in order. With ``checkpoint``, it is called after each block with the ``count`` so far (of
    ``total``) and ``so_far(blocks)``, and the blocks end where it asks to stop."""
    blocks = list(done)

    def stop(block: Any) -> bool:
        blocks.append(block)
        n = sum(map(count, blocks))
        return checkpoint(n, lambda: so_far(blocks)) and n < total

    played = _in_processes(work, jobs, workers, progress, desc, unit, sizes, stop if checkpoint is not None else None)
    return blocks if checkpoint is not None else [*blocks, *played]


def _leave_signals() -> None:
    """A worker process leaves its parent's process group, so that Ctrl-C (which a terminal sends the whole
    group) or a signal to the group reaches the parent alone, which decides: a trainer finishes the block under
    way and saves; elsewhere the ``KeyboardInterrupt`` ends the pool (its ``terminate`` reaches the workers by
    their pids). A worker killed inside a task left ``imap`` waiting for that task for ever; that still happens
    when a SIGTERM is sent to every process one by one (some schedulers do), until their SIGKILL: the trainer's
    saves of a minute before are kept. On Linux a worker also dies with its parent (no orphan finishes its block)."""
    if hasattr(os, "setpgrp"):  # POSIX
        os.setpgrp()
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _in_processes(work, jobs: list[tuple], workers: int, progress: bool, desc: str, unit: str,
                  sizes: list[int], stop: Callable[[Any], bool] | None = None) -> list:
    """``work`` over ``jobs`` in ``workers`` spawned processes, results in the jobs' order; with
    ``progress`` a tqdm bar advancing by ``sizes[i]`` as job ``i`` ends. ``stop(result)`` is called on each
    result in order; when it returns true the jobs not yet done are dropped (their processes ended)."""
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=sum(sizes), desc=desc, unit=unit, file=sys.stderr)
    parts = []
    with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs)), initializer=_leave_signals) as pool:
        for i, part in enumerate(pool.imap(work, jobs)):
            parts.append(part)
            if bar is not None:
                bar.update(sizes[i])
            if stop is not None and stop(part):
                break
    if bar is not None:
        bar.close()
    return parts


def _teacher_block(args: tuple) -> TeacherData:
    game, teacher, num_games, seed, epsilon, opponent, player = args
    return teacher_games(game, teacher, num_games, seed, epsilon, opponent, player=player)


def _teacher_games_in_processes(game: Game, teacher: str, num_games: int, seed: int, epsilon: float,
                                opponent: str, workers: int, progress: bool, player: str, done: GamesSoFar | None,
                                checkpoint: Checkpoint | None, before_play: Callable[[], None] | None) -> TeacherData:
    """:func:`teacher_games` in ``workers`` processes, in blocks of ``BLOCK * num_players`` consecutive games."""
    # a block starts at a multiple of the player count: its game j is game start + j of the whole
    # run, dealt from the same seed and with the teacher in the same seat
    size = BLOCK * game.num_players
    parts = [] if done is None or not done.data.games else [done.data]
    first = sum(d.games for d in parts)
    if first % size:
        raise ValueError(f"done holds {first} games, not whole blocks of {size}: several workers go on only from "
                         "their own blocks")
    jobs = [(game, teacher, min(size, num_games - a), seed + a, epsilon, opponent, player)
            for a in range(first, num_games, size)]
    if before_play is not None:
        before_play()
    return TeacherData.concatenate(_blocks_after(_teacher_block, jobs, workers, progress, f"teacher {teacher}", "game",
                                                 [j[2] for j in jobs], parts, num_games, lambda d: d.games, checkpoint,
                                                 lambda parts: GamesSoFar(TeacherData.concatenate(parts), None)))


def children(game: Game, records: np.ndarray, per_record: int,
             seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to ``per_record`` children of each decision record (distinct random legal actions, then chance
    played out by the record's own RNG), the positions a search meets one move on: ``(records, acting
    seats, index of each child's parent)``, terminal children left out.

    Raises:
        ValueError: ``per_record`` < 0.
    """
    if per_record < 0:
        raise ValueError(f"per_record={per_record} is not valid; it must be >= 0")
    rng = np.random.default_rng(seed)
    out, seats, parents = [], [], []
    for j, rec in enumerate(records):
        legal = game.legal_actions(rec)
        for a in rng.choice(legal, size=min(per_record, len(legal)), replace=False):
            c = game.clone(rec)
            game.apply_action(c, int(a))
            game.play_chance(c)
            if not game.is_terminal(c):
                out.append(np.array(c, dtype=game.dtype).reshape(1))
                seats.append(game.acting_player(c))
                parents.append(j)
    return ((np.concatenate(out) if out else np.zeros(0, game.dtype)), np.array(seats, np.int64),
            np.array(parents, np.int64))


def observations(game: Game, records: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(obs [n, D] float32, masks [n, A] bool)`` of ``seats`` in ``records``, by the engine's kernels."""
    obs = np.zeros((len(seats), game.observation_size), np.float32)
    masks = np.zeros((len(seats), game.num_actions), np.uint8)
    search_kernels(game.kernel_module).observe_many(records.copy(), np.asarray(seats, np.int64), obs, masks)
    return obs, masks.astype(bool)
