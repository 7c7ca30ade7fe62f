"""The league of PPO self-play: a pool of past snapshots and the kind of game each env is playing.

Every game of the vector env is, for its whole length, one of four kinds, drawn when it starts
(:meth:`League.draw`, with the worker's numpy RNG):

* a **self-play** game (:data:`SELF_PLAY`): the current policy plays every seat;
* a game against **uniform random play** (:data:`RANDOM_OPPONENT`), a fixed member of the league
  (as OpenSpiel's PSRO starts its population from the uniform policy);
* a game against a registry **agent** (:data:`AGENT_OPPONENT`, e.g. the heuristic);
* a game against a past **snapshot** of the policy (its pool index, ``>= 0``).

In the last three the learner plays one seat (``League.seat``) and the opponent every other seat.
The rollout worker (:mod:`octagames.agents.learn.rollout`) acts on these draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import torch

SELF_PLAY = -1        #: ``League.opponent`` of a self-play game
RANDOM_OPPONENT = -2  #: ``League.opponent`` of a game against uniform random play
AGENT_OPPONENT = -3   #: ``League.opponent`` of a game against the registry agent ``opponent_agent``


@dataclass
class League:
    """The snapshot pool and which kind of game each env is playing.

    ``opponent[i]`` is :data:`SELF_PLAY` for a self-play game,
    :data:`RANDOM_OPPONENT` for a game against uniform random play,
    :data:`AGENT_OPPONENT` for a game against the agent opponent, else the
    pool index of the snapshot playing every seat but ``seat[i]``.
    """

    pool: list[dict[str, torch.Tensor]] = field(default_factory=list)
    pool_ids: list[int] = field(default_factory=list)
    next_id: int = 0
    opponent: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    seat: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def draw(self, idx: np.ndarray, rng: np.random.Generator, self_play_prob: float,
             num_players: int, random_opponent_prob: float = 0.0, agent_opponent_prob: float = 0.0) -> None:
        """Choose the kind of game (and the learner's seat) for the games ``idx``.

        ``u < self_play_prob``: self-play; ``u < self_play_prob + random_opponent_prob``:
        random opponents; below that plus ``agent_opponent_prob``: the agent opponent;
        otherwise a snapshot (self-play while the pool is empty), with one uniform ``u`` per game.

        Args:
            idx: the games that start now.
            rng: the draws' generator.
            self_play_prob: share of self-play games.
            num_players: the game's seats (the learner's seat is drawn uniformly).
            random_opponent_prob: share of games against uniform random play.
            agent_opponent_prob: share of games against the agent opponent.
        """
        if len(idx) == 0:
            return
        u = rng.random(len(idx))
        k = rng.integers(0, max(1, len(self.pool)), size=len(idx))
        s = rng.integers(0, num_players, size=len(idx))
        league = (u >= self_play_prob) & (len(self.pool) > 0)
        rand = (u >= self_play_prob) & (u < self_play_prob + random_opponent_prob)
        cut = self_play_prob + random_opponent_prob
        agent = (u >= cut) & (u < cut + agent_opponent_prob)
        self.opponent[idx] = np.where(rand, RANDOM_OPPONENT, np.where(
            agent, AGENT_OPPONENT, np.where(league, k, SELF_PLAY)))
        self.seat[idx] = s

    def add(self, model: torch.nn.Module, pool_size: int) -> None:
        """Add a snapshot of ``model``; drop the oldest beyond ``pool_size``.

        Games against a dropped snapshot switch to the snapshot now at its index
        (or to self-play if the pool shrank), so indices stay valid.
        """
        self.add_weights(model.state_dict(), pool_size)

    def add_weights(self, weights: dict[str, torch.Tensor], pool_size: int) -> None:
        """:meth:`add` from a network's weights (what a rollout actor receives)."""
        self.pool.append({k: v.detach().cpu().clone() for k, v in weights.items()})
        self.pool_ids.append(self.next_id)
        self.next_id += 1
        if len(self.pool) > pool_size:
            self.pool.pop(0)
            self.pool_ids.pop(0)
            self.opponent[self.opponent >= 0] = np.maximum(self.opponent[self.opponent >= 0] - 1, 0)

    def set_pool(self, pool: Sequence[tuple[int, dict[str, torch.Tensor]]], pool_size: int) -> None:
        """The pool as given: ``(id, weights)`` oldest first, its newest ``pool_size`` (a rollout actor
        that Ray restarted takes the trainer's). Games against an index the pool no longer has turn to
        its newest snapshot (to self-play if it is empty)."""
        kept = list(pool)[-pool_size:] if pool_size > 0 else []
        self.pool = [{k: v.detach().cpu().clone() for k, v in w.items()} for _, w in kept]
        self.pool_ids = [int(i) for i, _ in kept]
        self.next_id = max(self.next_id, self.pool_ids[-1] + 1) if kept else self.next_id
        beyond = self.opponent >= len(self.pool)
        self.opponent[beyond] = len(self.pool) - 1 if self.pool else SELF_PLAY

    def state_dict(self) -> dict[str, Any]:
        """The pool and every game's draw (copies), for a checkpoint."""
        return {"pool": self.pool, "pool_ids": self.pool_ids, "next_id": self.next_id,
                "opponent": self.opponent.copy(), "seat": self.seat.copy()}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        self.pool, self.pool_ids, self.next_id = list(d["pool"]), list(d["pool_ids"]), int(d["next_id"])
        self.opponent, self.seat = d["opponent"].copy(), d["seat"].copy()
