"""Behaviour cloning of a PPO :class:`~octagames.agents.learn.ppo.ActorCritic` on teacher games.

The teacher data comes from :mod:`octagames.agents.learn.imitation` (its games, played in worker processes
that import no torch); this module is the learner's side, kept apart so that those workers load none of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from octagames.agents.learn.imitation import Checkpoint, TeacherData, observations
from octagames.agents.learn.ppo import ActorCritic, log_prob_entropy
from octagames.core import Game


@dataclass
class ClonedSoFar:
    """The steps a :func:`pretrain_actor_critic` call has made, to go on from: their count, the model's and the
    optimizer's state after them, the batch generator's state and the last step's statistics."""

    steps: int
    model: dict[str, Any]
    optimizer: dict[str, Any]
    generator: torch.Tensor
    stats: dict[str, float]


def pretrain_actor_critic(model: ActorCritic, game: Game, data: TeacherData, steps: int, batch_size: int = 512,
                          learning_rate: float = 1e-3, seed: int = 0, done: ClonedSoFar | None = None,
                          checkpoint: Checkpoint | None = None) -> dict[str, float]:
    """Behaviour cloning of a PPO :class:`ActorCritic`: the actor learns the teacher's actions
    (cross-entropy), the critic the outcome as a zero-sum win reward (``+1`` a sole win, ``-1/(P-1)`` a
    loss, 0 at a draw: :func:`octagames.agents.learn.ppo.win_rewards` of the outcome).

    Args:
        done: the steps made so far by a call with the same arguments (:class:`ClonedSoFar`): it goes on
            after them, to the model of a call never stopped.
        checkpoint: called after each step but the last (:data:`Checkpoint`, with a :class:`ClonedSoFar`); when
            it returns true the call returns there (``steps`` below says how far it went).

    Returns:
        the last step's ``loss``, ``accuracy`` (greedy action equals the teacher's) and ``value_mse``, and
        ``steps``, the steps made in all (fewer than ``steps`` when ``checkpoint`` stopped the call).
    """
    if len(data) == 0:
        raise ValueError("the teacher data is empty: no decision had more than one legal action")
    if done is not None and not 0 <= done.steps <= steps:
        raise ValueError(f"done.steps={done.steps}: a call of {steps} steps goes on from 0..{steps} of them")
    obs, masks = observations(game, data.records, data.seats)
    P = game.num_players
    own = data.outcomes[:, 0].astype(np.float64)
    target_v = (own - data.outcomes.mean(axis=1)) * P / (P - 1)
    x, m = torch.from_numpy(obs), torch.from_numpy(masks)
    a, v = torch.from_numpy(data.actions), torch.from_numpy(target_v).float()
    opt = torch.optim.Adam(model.parameters(), lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    stats: dict[str, float] = {}
    first = 0
    if done is not None:
        model.load_state_dict(done.model)
        opt.load_state_dict(done.optimizer)
        gen.set_state(done.generator)
        first, stats = done.steps, dict(done.stats)
    for step in range(first, steps):
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
        if checkpoint is not None and step + 1 < steps and checkpoint(step + 1, lambda: ClonedSoFar(
                step + 1, model.state_dict(), opt.state_dict(), gen.get_state(), stats)):
            return {**stats, "steps": step + 1}
    return {**stats, "steps": steps}
