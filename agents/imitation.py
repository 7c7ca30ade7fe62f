"""Imitation of a teacher agent (the heuristics): a warm start for the learners.

:func:`teacher_games` plays games with a teacher in every seat and records, at
every decision with more than one legal action, the record before it, the
deciding seat, the teacher's action and, once the game is over, its outcome.
With ``epsilon > 0`` the move actually played is sometimes uniformly random
(the label stays the teacher's choice), so the data also covers positions the
teacher would not reach by itself (DAgger's point: the learner will stray).

Both learners warm-start from it: :func:`octagames.agents.az_selfplay` stores the samples
like self-play samples (a one-hot target), and :func:`pretrain_actor_critic`
clones the teacher into a PPO :class:`~octagames.agents.ppo.ActorCritic`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from octagames.agents.base import make_turn
from octagames.agents.mcts import search_kernels
from octagames.agents.ppo import ActorCritic, log_prob_entropy
from octagames.agents.registry import make_agent
from octagames.core import CHANCE, TERMINAL, Game


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


def teacher_games(game: Game, teacher: str, num_games: int, seed: int, epsilon: float = 0.0) -> TeacherData:
    """Play ``num_games`` games with ``teacher`` (a registry spec) in every seat; see the module docstring.

    Args:
        game: the game and config.
        teacher: the teacher's agent spec, e.g. ``"heuristic"``.
        num_games: games to play.
        seed: game ``k`` is dealt from ``seed + k``; the agents and the exploration draw from ``seed``.
        epsilon: chance that a decision is played uniformly at random (labelled with the teacher's choice).

    Raises:
        ValueError: ``epsilon`` outside [0, 1], or a bad teacher spec.
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon={epsilon} is not valid; it must be in [0, 1]")
    P = game.num_players
    rng = np.random.default_rng(seed)
    agents = [make_agent(teacher, game.name) for _ in range(P)]
    recs, seats, actions, outcomes = [], [], [], []
    for k in range(num_games):
        s = game.new_state(seed + k)
        for p, a in enumerate(agents):
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
            a = int(agents[p].act(turn))
            recs.append(np.array(s, dtype=game.dtype).reshape(1))
            seats.append(p)
            actions.append(a)
            played = int(rng.choice(legal)) if epsilon > 0 and rng.random() < epsilon else a
            game.apply_action(s, played)
        rets = game.returns(s)
        best, draw = rets.max(), rets.max() - rets.min() <= 1e-9
        win = np.where(draw, 0.5, (rets >= best - 1e-9).astype(np.float64))
        for j in range(start, len(seats)):
            outcomes.append(win[(seats[j] + np.arange(P)) % P])
    records = np.concatenate(recs) if recs else np.zeros(0, game.dtype)
    return TeacherData(records, np.array(seats, np.int64), np.array(actions, np.int64),
                       np.array(outcomes, np.float32).reshape(-1, P), num_games)


def observations(game: Game, records: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(obs [n, D] float32, masks [n, A] bool)`` of ``seats`` in ``records``, by the engine's kernels."""
    obs = np.zeros((len(seats), game.observation_size), np.float32)
    masks = np.zeros((len(seats), game.num_actions), np.uint8)
    search_kernels(game.kernel_module).observe_many(records.copy(), np.asarray(seats, np.int64), obs, masks)
    return obs, masks.astype(bool)


def pretrain_actor_critic(model: ActorCritic, game: Game, data: TeacherData, steps: int, batch_size: int = 512,
                          learning_rate: float = 1e-3, seed: int = 0) -> dict[str, float]:
    """Behaviour cloning of a PPO :class:`ActorCritic`: the actor learns the teacher's actions
    (cross-entropy), the critic the outcome as a zero-sum win reward (``+1`` a sole win, ``-1/(P-1)`` a
    loss, 0 at a draw: :func:`octagames.agents.ppo.win_rewards` of the outcome).

    Returns:
        the last step's ``loss``, ``accuracy`` (greedy action equals the teacher's) and ``value_mse``.
    """
    if len(data) == 0:
        raise ValueError("the teacher data is empty: no decision had more than one legal action")
    obs, masks = observations(game, data.records, data.seats)
    P = game.num_players
    own = data.outcomes[:, 0].astype(np.float64)
    target_v = (own - data.outcomes.mean(axis=1)) * P / (P - 1)
    x, m = torch.from_numpy(obs), torch.from_numpy(masks)
    a, v = torch.from_numpy(data.actions), torch.from_numpy(target_v).float()
    opt = torch.optim.Adam(model.parameters(), lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    stats: dict[str, float] = {}
    for _ in range(steps):
        idx = torch.randint(len(a), (min(batch_size, len(a)),), generator=gen)
        logits, value = model(x[idx])
        logp, _ = log_prob_entropy(logits, m[idx], a[idx])
        policy_loss = -logp.mean()
        value_loss = 0.5 * ((value - v[idx]) ** 2).mean()
        loss = policy_loss + value_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            greedy = logits.masked_fill(~m[idx], -1e9).argmax(-1)
            stats = {"loss": float(loss), "accuracy": float((greedy == a[idx]).float().mean()),
                     "value_mse": float(2 * value_loss)}
    return stats
