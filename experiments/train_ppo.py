"""Train a PPO policy by self-play with a league, on the batched vector env.

    python -m octagames.experiments.train_ppo --game octrix --num-players 2 --total-steps 2000000
    python -m octagames.experiments.train_ppo --game octrix --game-config ranks=4 hand_size=4 --total-steps 200000
    python -m octagames.experiments.train_ppo --game octrix --game-config match=True --time-budget-s 900
    python -m octagames.experiments.train_ppo --game achten --game-config deal_penalty=1 --learning-rate 1e-3 \
        --anneal-lr --total-steps 2800000 --time-budget-s 900     # the README's Achten run
    python -m octagames.experiments.train_ppo --run-dir runs/ppo/octrix-0 --resume   # continue a killed run

Writes, under ``run_dir``: ``metrics.csv`` and ``metrics.json`` (one row per
update; win rates filled in at evaluations), ``curves.png`` (win rate against
each baseline and the losses, over env steps and over wall time),
``checkpoint.pt`` (everything needed to resume exactly) and ``policy.pt`` (the
policy alone; load it in the arena as ``make_agent("ppo:<run_dir>/policy.pt", game)``).

Self-play and the league
------------------------
Every game in the vector env is, for its whole length, one of three kinds,
drawn when it starts (with the trainer's numpy RNG):

* with probability ``self_play_prob`` a **self-play** game: the current policy
  plays every seat and every seat's transitions are trained on;
* with probability ``random_opponent_prob`` (default 0) a game against
  **uniform random play**, a fixed member of the league (as OpenSpiel's PSRO
  starts its population from the uniform policy): it keeps the learner from
  forgetting how to punish weak, erratic play, which self-play alone stops
  showing it;
* with probability ``agent_opponent_prob`` (default 0) a game against
  ``opponent_agent`` (a registry agent, ``heuristic`` by default) in every
  other seat: the learner trains against the hand-written player it is
  judged against, which neither self-play nor its own snapshots show it;
* otherwise a **league** game against a past snapshot drawn uniformly from the
  pool.

In league, random-opponent and agent games the learner plays one seat (rotating: the
game's seat is drawn uniformly) and the opponent plays all the other seats;
only the learner seat's transitions are trained on (the opponents' moves are
part of its environment, their rewards to the learner accrue between its
turns). While the pool is empty, snapshot games are self-play. A snapshot of the current
policy joins the pool every ``snapshot_every`` updates; the oldest leaves when
the pool holds ``pool_size``. Snapshots act by sampling (not greedily).

Warm start (``imitation_games > 0``): before the first evaluation the policy
clones ``imitation_teacher`` (the heuristic) on that many of its own games
(:func:`octagames.agents.learn.imitation.pretrain_actor_critic`: the actor learns its
moves, the critic the outcomes).

Per-seat trajectories are assembled by :func:`octagames.agents.learn.ppo.seat_gae` (see
``agents/learn/ppo.py``).

Evaluation: every ``eval_every`` updates (and after the first and the last)
the greedy policy plays ``eval_games`` arena games (:func:`octagames.agents.arena.play_match`,
seats rotated) against each of ``eval_opponents`` (one opponent agent per other
seat); the win rate counts a draw as half a win. Opponents that are not
available (e.g. ``mcts`` before ``agents/search/mcts.py`` registers it) are skipped
and listed in ``metrics.json`` under ``skipped_opponents``.

Resuming: ``checkpoint.pt`` is written atomically every ``checkpoint_every``
updates and at the end. It holds the model, the optimizer, the league (pool
and per-game league state), the RNG states (python, numpy, torch, the env's
game records, whose own RNG drives every deal, and its sampling seeds), the
step counters and the metrics so far. ``--resume`` restarts from it and
rewrites the metrics files from the checkpoint, so a killed run continues
exactly where its last checkpoint left it: its metrics are identical to an
uninterrupted run's, wall-clock columns apart (``time_budget_s`` is the one
setting that depends on the clock).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from octagames.agents.arena import play_match
from octagames.agents.base import Agent, make_turn
from octagames.agents.learn.imitation import pretrain_actor_critic, teacher_games
from octagames.agents.learn.ppo import (ActorCritic, PPOAgent, policy_dict, ppo_update, sample_actions, save_policy,
                        seat_gae, win_rewards)
from octagames.agents.registry import make_agent
from octagames.envs.vector import VectorEnv, make
from octagames.experiments.cli import RunConfig, parse_config, saved_command, script, usable_agents
from octagames.core import Game

#: metric columns that depend on the clock (left out when comparing runs)
TIME_COLUMNS = ("wall_time", "steps_per_s", "eval_seconds")


@dataclass(frozen=True)
class TrainConfig(RunConfig):
    """PPO self-play training (every field is a flag; the game and run fields are RunConfig's)."""

    KIND: ClassVar[str] = "ppo"

    total_steps: int = 1_000_000
    """env steps to train for (all seats' moves count), rounded up to whole updates"""
    # -- rollout ----------------------------------------------------------------
    num_envs: int = 256
    """games stepped together"""
    num_steps: int = 32
    """steps per game per rollout (a rollout is num_envs * num_steps env steps)"""
    reward: str = "win"
    """win: zero-sum +1 to the winner(s) at the end of a game; score: the game's returns / their bound"""
    # -- network and PPO ------------------------------------------------------------
    hidden: tuple[int, ...] = (256, 256)
    """hidden layer widths of the actor and of the critic MLPs"""
    activation: str = "tanh"
    """tanh or relu"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0 over total_steps"""
    gamma: float = 0.99
    """discount per own turn of a seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """passes over each rollout's batch"""
    num_minibatches: int = 4
    """minibatches per pass"""
    clip_coef: float = 0.2
    """PPO ratio clip (also the value clip)"""
    clip_vloss: bool = True
    """clip the value loss around the collected values"""
    ent_coef: float = 0.01
    """entropy bonus weight"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    target_kl: float = 0.0
    """stop an update's epochs early above this approximate KL (0: never)"""
    # -- league -------------------------------------------------------------------
    self_play_prob: float = 0.5
    """share of games played by the current policy in every seat (the rest: against a snapshot)"""
    random_opponent_prob: float = 0.0
    """share of games against uniform random play in every other seat (taken from the snapshot share)"""
    agent_opponent_prob: float = 0.0
    """share of games against opponent_agent in every other seat (taken from the snapshot share)"""
    opponent_agent: str = "heuristic"
    """registry spec of the agent opponent"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool"""
    pool_size: int = 8
    """most snapshots kept (oldest dropped)"""
    # -- warm start (the other imitation_* fields are RunConfig's) -------------------
    imitation_learning_rate: float = 1e-3
    """Adam learning rate of the cloning"""
    # -- evaluation and checkpoints --------------------------------------------
    eval_every: int = 10
    """updates between arena evaluations (0: only at the start and the end)"""
    eval_games: int = 100
    """arena games per opponent per evaluation"""
    eval_opponents: tuple[str, ...] = ("random", "heuristic", "mcts")
    """agent specs for octagames.agents.registry.make_agent; unavailable ones are skipped"""
    checkpoint_every: int = 10
    """updates between checkpoints"""
    stop_after_updates: int = 0
    """testing aid: end the process abruptly (os._exit, no cleanup) after this update, like a kill"""

    def __post_init__(self) -> None:
        if self.reward not in ("win", "score"):
            raise ValueError(f"reward={self.reward!r} is not valid; valid values: ['win', 'score']")
        if not 0.0 <= self.self_play_prob <= 1.0:
            raise ValueError(f"self_play_prob={self.self_play_prob} must be in [0, 1]")
        if not 0.0 <= self.random_opponent_prob <= 1.0 - self.self_play_prob:
            raise ValueError(f"random_opponent_prob={self.random_opponent_prob} must be in [0, 1 - self_play_prob]"
                             f" = [0, {1.0 - self.self_play_prob:g}]")
        rest = 1.0 - self.self_play_prob - self.random_opponent_prob
        if not 0.0 <= self.agent_opponent_prob <= rest + 1e-12:
            raise ValueError(f"agent_opponent_prob={self.agent_opponent_prob} must be in "
                             f"[0, 1 - self_play_prob - random_opponent_prob] = [0, {rest:g}]")
        for name in ("num_envs", "num_steps", "update_epochs", "num_minibatches", "snapshot_every",
                     "pool_size", "checkpoint_every", "eval_games"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} must be >= 1")
        super().__post_init__()

    @property
    def steps_per_update(self) -> int:
        """Env steps per rollout (every rollout actor plays ``num_envs`` games)."""
        return self.num_envs * self.num_steps * max(1, self.ray_actors)

    @property
    def num_updates(self) -> int:
        """Updates needed for ``total_steps``."""
        return max(1, -(-self.total_steps // self.steps_per_update))



#: the settings a resumed run must share with its checkpoint: the game, its batch of envs, the network
RESUME_FIELDS = ("game", "num_players", "game_config", "num_envs", "hidden", "activation")


def _describe_run(c: dict[str, Any]) -> str:
    """``an achten run (2 players, hidden 64,64)``: what a run is, from its config fields."""
    game = str(c.get("game"))
    extra = "".join(f", {item}" for item in c.get("game_config") or ())
    hidden = ",".join(str(h) for h in c.get("hidden") or ())
    return (f"{'an' if game[:1] in 'aeiou' else 'a'} {game} run ({c.get('num_players')} players{extra}, "
            f"hidden {hidden}, {c.get('activation')}, {c.get('num_envs')} envs)")


def check_resume(saved: dict[str, Any], cfg: TrainConfig, path: Path) -> None:
    """Refuse to resume a checkpoint of another game, env batch or network shape.

    Args:
        saved: the checkpoint's ``config`` (``dataclasses.asdict`` of its :class:`TrainConfig`).
        cfg: the config asked for now.
        path: the checkpoint file (for the message).

    Raises:
        ValueError: naming what the checkpoint is, what was asked for, and the fields that differ.
    """
    asked = dataclasses.asdict(cfg)

    def norm(v: Any) -> Any:
        return tuple(v) if isinstance(v, (list, tuple)) else v

    differ = [f for f in RESUME_FIELDS if norm(saved.get(f)) != norm(asked[f])]
    if differ:
        raise ValueError(f"--resume: {path} is {_describe_run(saved)}; you asked for {_describe_run(asked)} "
                         f"({', '.join(differ)} differ). Resume with the checkpoint's settings, or start "
                         f"a new run in another --run-dir.")


def resolve_device(name: str) -> torch.device:
    """``auto`` -> cuda when available, else cpu."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


# ----------------------------------------------------------------------------
# Env state (for exact resume)
# ----------------------------------------------------------------------------
def env_state(env: VectorEnv) -> dict[str, np.ndarray]:
    """Copies of everything that determines the vector env's future."""
    return env.get_state()


def load_env_state(env: VectorEnv, state: dict[str, np.ndarray]) -> None:
    """Restore :func:`env_state` into an env built with the same game, config and size."""
    env.set_state(state)


def build_model(spec: dict[str, Any], state_dict: dict[str, torch.Tensor],
                device: torch.device | str = "cpu") -> ActorCritic:
    """A network with given weights, built without touching the global torch RNG.

    (Initialising a network draws random numbers; snapshots are rebuilt after a
    resume, so drawing them would make a resumed run diverge.)
    """
    with torch.random.fork_rng(devices=[]):
        m = ActorCritic(**spec)
    m.load_state_dict(state_dict)
    return m.to(device).eval()


# ----------------------------------------------------------------------------
# League
# ----------------------------------------------------------------------------
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

    def add(self, model: ActorCritic, pool_size: int) -> None:
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

    def state_dict(self) -> dict[str, Any]:
        return {"pool": self.pool, "pool_ids": self.pool_ids, "next_id": self.next_id,
                "opponent": self.opponent.copy(), "seat": self.seat.copy()}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        self.pool, self.pool_ids, self.next_id = list(d["pool"]), list(d["pool_ids"]), int(d["next_id"])
        self.opponent, self.seat = d["opponent"].copy(), d["seat"].copy()


# ----------------------------------------------------------------------------
# Trainer
# ----------------------------------------------------------------------------
class RolloutWorker:
    """The acting side of PPO: a vector env, the league's draws, the agent opponents and a copy of
    the policy (or the learner's own network); :meth:`rollout` gives a training batch.

    The trainer holds one in its own process, or one per Ray actor with ``--ray-actors``
    (:class:`octagames.agents.learn.distributed.ActorGroup`). Everything random in a rollout comes from
    ``seed``: the env's deals, the league's draws (numpy) and the sampled actions (a torch
    generator), so one actor seeded like the trainer's worker reproduces the single-process run.

    Args:
        cfg: the run's settings.
        seed: the worker's seed.
        model: the network to act with (the learner's, in one process); ``None`` builds a copy
            whose weights :meth:`set_weights` sets.
        device: where the network runs.
    """

    def __init__(self, cfg: TrainConfig, seed: int, model: ActorCritic | None = None,
                 device: torch.device | str = "cpu") -> None:
        self.cfg = cfg
        self.device = torch.device(device)
        if model is None and cfg.torch_threads > 0:  # a Ray actor: its own process
            torch.set_num_threads(cfg.torch_threads)
        self.rng = np.random.default_rng(seed)
        self.gen = torch.Generator(device=self.device).manual_seed(seed)
        self.env = make(cfg.game, cfg.num_envs, seed=seed, **cfg.game_kwargs())
        self.game = self.env.game
        self.P = self.env.num_players
        bound = max(abs(self.game.min_utility), abs(self.game.max_utility)) or 1.0
        self.reward_scale = 1.0 / bound
        if model is None:
            with torch.random.fork_rng(devices=[]):
                model = ActorCritic(self.env.observation_size, self.env.num_actions, cfg.hidden,
                                    cfg.activation).to(self.device)
        self.model = model
        self.opp_models: dict[int, ActorCritic] = {}
        self.league = League(opponent=np.full(cfg.num_envs, -1, dtype=np.int64),
                             seat=np.zeros(cfg.num_envs, dtype=np.int64))
        self.returns_so_far = np.zeros((cfg.num_envs, self.P), dtype=np.float64)
        self.env.reset()
        self.opp_agents: list[Agent | None] = [None] * cfg.num_envs
        self._draw(np.arange(cfg.num_envs))

    def set_weights(self, weights: dict[str, torch.Tensor]) -> None:
        """Act with these weights from now on."""
        self.model.load_state_dict(weights)

    def add_snapshot(self, weights: dict[str, torch.Tensor], pool_size: int) -> None:
        """A new snapshot joins the league's pool."""
        self.league.add_weights(weights, pool_size)

    def rollout_with(self, weights: dict[str, torch.Tensor], snapshot: dict[str, torch.Tensor] | None,
                     pool_size: int) -> dict[str, Any]:
        """Set the weights (and add a snapshot) then :meth:`rollout`: one call, so that a call Ray
        retries on a restarted actor acts with the right weights."""
        self.set_weights(weights)
        if snapshot is not None:
            self.add_snapshot(snapshot, pool_size)
        return self.rollout()

    def state_dict(self) -> dict[str, Any]:
        """Everything that determines the worker's future rollouts."""
        return {"league": self.league.state_dict(), "opp_agents": self.opp_agents,
                "returns_so_far": self.returns_so_far.copy(), "env": env_state(self.env),
                "numpy": self.rng.bit_generator.state, "torch_generator": self.gen.get_state()}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        self.league.load_state_dict(d["league"])
        self.opp_agents = list(d.get("opp_agents", [None] * self.cfg.num_envs))
        self.returns_so_far = d["returns_so_far"].copy()
        load_env_state(self.env, d["env"])
        self.rng.bit_generator.state = d["numpy"]
        self.gen.set_state(d["torch_generator"])
        self.opp_models = {}

    def _draw(self, idx: np.ndarray) -> None:
        """The league's draw for the new games ``idx``; agent opponents get a fresh agent."""
        cfg = self.cfg
        self.league.draw(idx, self.rng, cfg.self_play_prob, self.P, cfg.random_opponent_prob,
                         cfg.agent_opponent_prob)
        for i in idx[self.league.opponent[idx] == AGENT_OPPONENT]:
            agent = make_agent(cfg.opponent_agent, cfg.game)
            agent.reset(self.game, 0, int(self.rng.integers(1 << 31)))
            self.opp_agents[i] = agent

    def _opponent_model(self, k: int) -> ActorCritic:
        pid = self.league.pool_ids[k]
        if pid not in self.opp_models:
            m = build_model(self.model.spec, self.league.pool[k], self.device)
            self.opp_models = {p: v for p, v in self.opp_models.items() if p in self.league.pool_ids}
            self.opp_models[pid] = m
        return self.opp_models[pid]

    @torch.no_grad()
    def rollout(self) -> dict[str, Any]:
        """Play ``num_steps`` steps in every game; returns the training batch and stats."""
        cfg, env, dev, P = self.cfg, self.env, self.device, self.P
        T, N = cfg.num_steps, cfg.num_envs
        D, A = env.observation_size, env.num_actions
        obs_b = torch.zeros((T, N, D), dtype=torch.float32)
        mask_b = torch.zeros((T, N, A), dtype=torch.bool)
        act_b = torch.zeros((T, N), dtype=torch.int64)
        logp_b = torch.zeros((T, N), dtype=torch.float32)
        val_b = np.zeros((T, N), dtype=np.float64)
        player_b = np.zeros((T, N), dtype=np.int64)
        train_b = np.zeros((T, N), dtype=bool)
        rew_b = np.zeros((T, N, P), dtype=np.float64)
        term_b = np.zeros((T, N), dtype=bool)
        scores = {"league": 0.0, "agent": 0.0}  # the learner's points (a draw is half) in finished games
        counts = {"league": 0, "agent": 0}
        episodes = 0
        for t in range(T):
            obs_b[t] = torch.from_numpy(env.obs)
            mask_b[t] = torch.from_numpy(env.action_mask.astype(bool))
            player = env.player.copy()
            player_b[t] = player
            obs = obs_b[t].to(dev)
            mask = mask_b[t].to(dev)
            logits, value = self.model(obs)
            actions, logp = sample_actions(logits, mask, generator=self.gen)
            opp = self.league.opponent
            opp_rows = (opp != SELF_PLAY) & (player != self.league.seat)
            for k in np.unique(opp[opp_rows]):
                if k == AGENT_OPPONENT:  # a Python agent: one turn per game, from the true record
                    for i in np.flatnonzero(opp_rows & (opp == k)):
                        turn = make_turn(self.game, env.states[i], int(player[i]), int(self.rng.integers(1 << 31)))
                        actions[i] = int(self.opp_agents[i].act(turn))
                    continue
                rows = torch.from_numpy(np.flatnonzero(opp_rows & (opp == k))).to(dev)
                if k == RANDOM_OPPONENT:  # equal logits: uniform over the legal actions
                    logits_k = torch.zeros((len(rows), A), dtype=torch.float32, device=dev)
                else:
                    logits_k = self._opponent_model(int(k)).logits(obs[rows])
                actions[rows], _ = sample_actions(logits_k, mask[rows], generator=self.gen)
            act_b[t] = actions.cpu()
            logp_b[t] = logp.cpu()
            val_b[t] = value.cpu().numpy()
            train_b[t] = ~opp_rows
            env.step_inplace(act_b[t].numpy())
            r = env.rewards[:, :P]
            end = env.terminated.copy()
            term_b[t] = end
            self.returns_so_far += r
            if cfg.reward == "win":
                if end.any():
                    rew_b[t, end] = win_rewards(self.returns_so_far[end])
            else:
                rew_b[t] = r * self.reward_scale
            if end.any():
                idx = np.flatnonzero(end)
                episodes += len(idx)
                for kind, lg in (("league", idx[self.league.opponent[idx] >= 0]),
                                 ("agent", idx[self.league.opponent[idx] == AGENT_OPPONENT])):
                    if len(lg):
                        rets = self.returns_so_far[lg]
                        mine = rets[np.arange(len(lg)), self.league.seat[lg]]
                        best = rets.max(axis=1)
                        alleq = np.isclose(rets.min(axis=1), best)
                        scores[kind] += float(np.sum(np.where(alleq, 0.5, np.isclose(mine, best))))
                        counts[kind] += len(lg)
                self.returns_so_far[idx] = 0.0
                self._draw(idx)
        # bootstrap: every seat's value of its current observation
        last_values = np.zeros((N, P), dtype=np.float64)
        for p in range(P):
            o = torch.from_numpy(env.observe(np.full(N, p, dtype=np.int64))).to(dev)
            last_values[:, p] = self.model.value(o).cpu().numpy()
        g = seat_gae(player_b, rew_b, term_b, val_b, last_values, cfg.gamma, cfg.gae_lambda)
        sel = torch.from_numpy(train_b.reshape(-1))
        batch = {
            "obs": obs_b.reshape(T * N, D)[sel],
            "mask": mask_b.reshape(T * N, A)[sel],
            "actions": act_b.reshape(-1)[sel],
            "logprobs": logp_b.reshape(-1)[sel],
            "advantages": torch.from_numpy(g["advantages"].reshape(-1)).float()[sel],
            "returns": torch.from_numpy(g["returns"].reshape(-1)).float()[sel],
            "values": torch.from_numpy(val_b.reshape(-1)).float()[sel],
        }
        stats = {"episodes": episodes, "league_games": counts["league"],
                 "league_win_rate": scores["league"] / counts["league"] if counts["league"] else None,
                 "agent_games": counts["agent"],
                 "agent_win_rate": scores["agent"] / counts["agent"] if counts["agent"] else None,
                 "train_fraction": float(train_b.mean()),
                 "mean_value": float(val_b.mean())}
        return {"batch": batch, "stats": stats}


def merge_rollouts(rolls: list[dict[str, Any]]) -> dict[str, Any]:
    """The rollouts of several workers as one batch (worker order); counts summed, rates weighted by games."""
    if len(rolls) == 1:
        return rolls[0]
    batch = {key: torch.cat([r["batch"][key] for r in rolls]) for key in rolls[0]["batch"]}
    stats: dict[str, Any] = {"episodes": sum(r["stats"]["episodes"] for r in rolls)}
    for kind in ("league", "agent"):
        games = [r["stats"][f"{kind}_games"] for r in rolls]
        stats[f"{kind}_games"] = sum(games)
        won = sum(r["stats"][f"{kind}_win_rate"] * n for r, n in zip(rolls, games) if n)
        stats[f"{kind}_win_rate"] = won / sum(games) if sum(games) else None
    for key in ("train_fraction", "mean_value"):
        stats[key] = float(np.mean([r["stats"][key] for r in rolls]))
    return {"batch": batch, "stats": stats}


class Trainer:
    """Holds everything of one run; :meth:`run` trains until the budget is spent."""

    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg
        self.run_dir = cfg.resolved_run_dir()
        self.device = resolve_device(cfg.device)
        if cfg.torch_threads > 0:
            torch.set_num_threads(cfg.torch_threads)
        random.seed(cfg.seed)
        np.random.seed(cfg.seed % (2**32))
        torch.manual_seed(cfg.seed)
        self.game = Game(cfg.game, **cfg.game_kwargs())
        self.P = self.game.num_players
        self.model = ActorCritic(self.game.observation_size, self.game.num_actions, cfg.hidden,
                                 cfg.activation).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.update = 0
        self.env_steps = 0
        self.train_steps = 0
        self.episodes = 0
        self.wall_time = 0.0
        self.rows: list[dict[str, Any]] = []
        self.last_eval: dict[str, float] = {}
        self.eval_agents, self.skipped = usable_agents(cfg.eval_opponents, cfg.game)
        self.pending_snapshot: dict[str, torch.Tensor] | None = None
        self.pool_size_now = 0
        self.actors: Any = None
        if cfg.ray_actors > 0:  # the same worker in Ray actors; actor 0 has the trainer's seed
            from octagames.agents.learn.distributed import ActorGroup, actor_seed
            self.worker = None
            self.actors = ActorGroup(RolloutWorker, [(cfg, actor_seed(cfg.seed, k)) for k in range(cfg.ray_actors)],
                                     address=cfg.ray_address or None)
        else:
            self.worker = RolloutWorker(cfg, cfg.seed, self.model, self.device)

    def warm_start(self) -> dict[str, float]:
        """Clone the teacher (``imitation_*`` settings) into the policy; the cloning's last statistics."""
        cfg = self.cfg
        data = teacher_games(self.game, cfg.imitation_teacher, cfg.imitation_games, seed=cfg.seed * 104729 + 17,
                             epsilon=cfg.imitation_epsilon, opponent=cfg.imitation_opponent,
                             workers=cfg.imitation_workers, progress=cfg.progress)
        stats = pretrain_actor_critic(self.model, self.game, data, cfg.imitation_steps,
                                      learning_rate=cfg.imitation_learning_rate, seed=cfg.seed)
        return {f"imitation_{k}": v for k, v in stats.items()}

    # -- evaluation ---------------------------------------------------------------
    def evaluate(self) -> dict[str, float]:
        """Greedy current policy vs each opponent in the arena; win rates (draw = half)."""
        out: dict[str, float] = {}
        start = time.perf_counter()
        weights = {k: v.detach().cpu() for k, v in self.model.state_dict().items()}
        model = build_model(self.model.spec, weights)
        for j, spec in enumerate(self.eval_agents):
            others = [make_agent(spec, self.cfg.game) for _ in range(self.P - 1)]
            agents = [PPOAgent(model, greedy=True), *others]
            res = play_match(self.game, agents, num_games=self.cfg.eval_games,
                             seed=self.cfg.seed * 1_000_003 + 7919 * self.update + 101 * j, progress=False)
            out[f"win_rate_vs_{spec}"] = res.records[0].score
        out["eval_seconds"] = time.perf_counter() - start
        return out

    # -- rollout ------------------------------------------------------------------
    @torch.no_grad()
    def rollout(self) -> dict[str, Any]:
        """Play ``num_steps`` steps in every game (here or on the Ray actors); the training batch and stats."""
        if self.actors is None:
            roll = self.worker.rollout()
        else:
            weights = {k: v.detach().cpu() for k, v in self.model.state_dict().items()}
            rolls = self.actors.call("rollout_with", weights, self.pending_snapshot, self.cfg.pool_size)
            self.pending_snapshot = None
            roll = merge_rollouts(rolls)
        roll["batch"] = {k: v.to(self.device) for k, v in roll["batch"].items()}
        roll["stats"]["policy_lag"] = 0  # synchronous: every sample was played with the current weights
        return roll

    def add_snapshot(self) -> None:
        """The current network joins the league's pool (on every actor at its next rollout)."""
        self.pool_size_now = min(self.pool_size_now + 1, self.cfg.pool_size)
        if self.actors is None:
            self.worker.league.add(self.model, self.cfg.pool_size)
        else:
            self.pending_snapshot = {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}

    # -- checkpoints --------------------------------------------------------------
    def checkpoint_dict(self) -> dict[str, Any]:
        d = {
            "format": "octagames-ppo-checkpoint-2",
            "config": dataclasses.asdict(self.cfg),
            "policy": policy_dict(self.model, self.game),
            "optimizer": self.optimizer.state_dict(),
            "workers": [self.worker.state_dict()] if self.actors is None else self.actors.call("state_dict"),
            "pending_snapshot": self.pending_snapshot,
            "pool_size_now": self.pool_size_now,
            "rng": {"python": random.getstate(), "numpy_global": np.random.get_state(), "torch": torch.get_rng_state(),
                    "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None},
            "counters": {"update": self.update, "env_steps": self.env_steps, "train_steps": self.train_steps,
                         "episodes": self.episodes, "wall_time": self.wall_time},
            "rows": self.rows,
            "last_eval": self.last_eval,
        }
        return d

    def save_checkpoint(self) -> Path:
        path = self.run_dir / "checkpoint.pt"
        tmp = path.with_suffix(".pt.tmp")
        torch.save(self.checkpoint_dict(), tmp)
        os.replace(tmp, path)
        return path

    def load_checkpoint(self, path: Path) -> None:
        d = torch.load(path, map_location="cpu", weights_only=False)
        if d.get("format") != "octagames-ppo-checkpoint-2":
            raise ValueError(f"{path} is a {d.get('format')!r} checkpoint; this version resumes "
                             "'octagames-ppo-checkpoint-2' (start the run again)")
        check_resume(d["config"], self.cfg, path)  # before torch's size-mismatch text can speak
        self.model.load_state_dict(d["policy"]["state_dict"])
        self.optimizer.load_state_dict(d["optimizer"])
        workers = d["workers"]
        if len(workers) != max(1, self.cfg.ray_actors):
            raise ValueError(f"{path} was written by {len(workers)} rollout worker(s); this run has "
                             f"{max(1, self.cfg.ray_actors)} (pass --ray-actors {len(workers) if len(workers) > 1 else 0})")
        if self.actors is None:
            self.worker.load_state_dict(workers[0])
        else:
            self.actors.call_each("load_state_dict", workers)
        self.pending_snapshot = d["pending_snapshot"]
        self.pool_size_now = int(d["pool_size_now"])
        rng = d["rng"]
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy_global"])
        torch.set_rng_state(rng["torch"])
        if rng["cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
        c = d["counters"]
        self.update, self.env_steps, self.train_steps = c["update"], c["env_steps"], c["train_steps"]
        self.episodes, self.wall_time = c["episodes"], c["wall_time"]
        self.rows = list(d["rows"])
        self.last_eval = dict(d["last_eval"])

    # -- outputs --------------------------------------------------------------------
    def columns(self) -> list[str]:
        cols = ["update", "env_steps", "train_steps", "episodes", "wall_time", "steps_per_s", "learning_rate",
                "loss", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac", "league_win_rate",
                "league_games", "agent_win_rate", "agent_games", "train_fraction", "mean_value", "pool_size", "policy_lag",
                "imitation_loss", "imitation_accuracy",
                "imitation_value_mse"]
        cols += [f"win_rate_vs_{s}" for s in self.eval_agents] + ["eval_seconds"]
        return cols

    def write_metrics(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        cols = self.columns()
        with open(self.run_dir / "metrics.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            for row in self.rows:
                w.writerow({c: row.get(c, "") for c in cols})
        data = {"config": dataclasses.asdict(self.cfg), "game_config": self.cfg.game_kwargs(),
                "device": str(self.device), "eval_opponents": self.eval_agents,
                "skipped_opponents": self.skipped, "rows": self.rows}
        (self.run_dir / "metrics.json").write_text(json.dumps(data, indent=1, default=float))

    def plot(self) -> Path:
        return plot_curves(self.rows, self.eval_agents, self.run_dir / "curves.png",
                           title=f"PPO {self.cfg.game} {self.P}p {' '.join(self.cfg.game_config)} "
                                 f"(seed {self.cfg.seed})".replace("  ", " "))

    # -- main loop ----------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        self.run_dir.mkdir(parents=True, exist_ok=True)
        ckpt = self.run_dir / "checkpoint.pt"
        if cfg.resume:
            if not ckpt.exists():
                raise FileNotFoundError(f"--resume: no checkpoint at {ckpt}")
            self.load_checkpoint(ckpt)
            self.write_metrics()
        bar = None
        if cfg.progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=cfg.num_updates, initial=self.update, desc=f"ppo {cfg.game}", unit="upd",
                       file=sys.stderr)
        if self.update == 0 and not self.rows:
            warm: dict[str, float] = {}
            if cfg.imitation_games > 0:
                t0 = time.perf_counter()
                warm = self.warm_start()
                self.wall_time += time.perf_counter() - t0
            self.last_eval = self.evaluate()
            self.rows.append({"update": 0, "env_steps": 0, "train_steps": 0, "episodes": 0,
                              "wall_time": self.wall_time, "pool_size": 0, **warm, **self.last_eval})
        t_last = time.perf_counter()
        while self.update < cfg.num_updates:
            if cfg.time_budget_s > 0 and self.wall_time >= cfg.time_budget_s:
                break
            t0 = time.perf_counter()
            lr = cfg.learning_rate
            if cfg.anneal_lr:
                lr *= 1.0 - self.update / cfg.num_updates
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            roll = self.rollout()
            batch = roll["batch"]
            self.model.train()
            stats = ppo_update(self.model, self.optimizer, batch, update_epochs=cfg.update_epochs,
                               num_minibatches=cfg.num_minibatches, max_grad_norm=cfg.max_grad_norm,
                               target_kl=cfg.target_kl, clip_coef=cfg.clip_coef, vf_coef=cfg.vf_coef,
                               ent_coef=cfg.ent_coef, clip_vloss=cfg.clip_vloss, norm_adv=cfg.norm_adv)
            self.update += 1
            self.env_steps += cfg.steps_per_update
            self.train_steps += int(batch["obs"].shape[0])
            self.episodes += roll["stats"]["episodes"]
            dt = time.perf_counter() - t0
            self.wall_time += dt
            if self.update % cfg.snapshot_every == 0:
                self.add_snapshot()
            row = {"update": self.update, "env_steps": self.env_steps, "train_steps": self.train_steps,
                   "episodes": self.episodes, "wall_time": self.wall_time,
                   "steps_per_s": cfg.steps_per_update / dt, "learning_rate": lr, **stats,
                   **{k: v for k, v in roll["stats"].items() if k != "episodes"},
                   "pool_size": self.pool_size_now}
            last = self.update == cfg.num_updates
            if (cfg.eval_every > 0 and self.update % cfg.eval_every == 0) or last:
                self.last_eval = self.evaluate()
                row.update(self.last_eval)
            self.rows.append(row)
            if bar is not None:
                post = {"sps": f"{row['steps_per_s']:.0f}"}
                post.update({k.replace("win_rate_vs_", "vs_"): f"{v:.2f}" for k, v in self.last_eval.items()
                             if k.startswith("win_rate")})
                bar.set_postfix(post)
                bar.update(1)
            if self.update % cfg.checkpoint_every == 0 or last:
                self.save_checkpoint()
                save_policy(self.model, self.run_dir / "policy.pt", self.game)
                self.write_metrics()
            if cfg.stop_after_updates and self.update >= cfg.stop_after_updates:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(3)  # simulate a kill: no cleanup, nothing written beyond the last checkpoint
        if bar is not None:
            bar.close()
        if self.rows and not any(k.startswith("win_rate_vs_") for k in self.rows[-1]):
            self.last_eval = self.evaluate()  # stopped by time_budget_s between evaluations
            self.rows[-1].update(self.last_eval)
        self.save_checkpoint()
        save_policy(self.model, self.run_dir / "policy.pt", self.game)
        self.write_metrics()
        png = self.plot()
        return {"run_dir": str(self.run_dir), "policy": str(self.run_dir / "policy.pt"),
                "checkpoint": str(ckpt), "curves": str(png), "rows": self.rows,
                "final_eval": self.last_eval, "skipped_opponents": self.skipped,
                "seconds": time.perf_counter() - t_last}


def plot_curves(rows: list[dict[str, Any]], opponents: list[str], path: Path, title: str = "",
                x: tuple[str, str] = ("env_steps", "env steps"),
                losses: tuple[str, ...] = ("pg_loss", "v_loss", "entropy"),
                rate_keys: tuple[str, ...] = ("win_rate_vs_{}",)) -> Path:
    """Win rate vs each baseline and the losses, over ``x`` (env steps) and over wall time (PNG).

    Args:
        x: the column of the first x axis and its label.
        losses: the loss columns of the lower plots.
        rate_keys: column patterns of the win rates (``{}``: the opponent's spec); each
            pattern after the first is drawn dashed.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import EngFormatter

    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    for col, xkey, xlabel in ((0, *x), (1, "wall_time", "wall time (s)")):
        ax = axes[0, col]
        for k, pattern in enumerate(rate_keys):
            for spec in opponents:
                key = pattern.format(spec)
                pts = [(r[xkey], r[key]) for r in rows if key in r and xkey in r]
                if pts:
                    xs, ys = zip(*pts)
                    label = key.replace("win_rate_", "").replace("_", " ")
                    ax.plot(xs, ys, marker="o", ls="-" if k == 0 else "--", label=label)
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_ylim(0, 1)
        ax.set_xlabel(xlabel)
        if col == 0:  # step counts as 200k, 1M: full numbers run into each other
            for row in (0, 1):
                axes[row, col].xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.set_ylabel("win rate (draw = 1/2)")
        if ax.get_legend_handles_labels()[0]:  # no evaluation opponents: nothing to label
            ax.legend(loc="lower right")
        ax.grid(alpha=0.3)
        ax = axes[1, col]
        for key in losses:
            pts = [(r[xkey], r[key]) for r in rows if key in r]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, label=key)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("loss / entropy")
        ax.legend(loc="upper right")
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Train (or resume) a run; returns paths, metric rows and the final evaluation."""
    return Trainer(cfg).run()


def main(cfg: TrainConfig) -> dict[str, Any]:
    """Command-line entry: train and print the final evaluation."""
    result = train(cfg)
    last = result["rows"][-1]
    print(f"run_dir: {result['run_dir']}")
    print(f"env steps: {last['env_steps']}, wall time: {last['wall_time']:.1f}s, "
          f"steps/s (last update): {last.get('steps_per_s', float('nan')):.0f}")
    for k, v in result["final_eval"].items():
        if k.startswith("win_rate"):
            print(f"{k}: {v:.3f}")
    for k, v in result["skipped_opponents"].items():
        print(f"skipped opponent {k}: {v}")
    return result


def ppo_origin(spec: str) -> dict[str, Any]:
    """Where the policy of agent spec ``ppo:<path>`` came from: its ``train_ppo`` command and env steps.

    Read from the ``checkpoint.pt`` beside the policy; an empty dict for other specs (the
    registry's other agents need no command) or when that checkpoint is gone.
    """
    name, _, path = spec.partition(":")
    if name != "ppo" or not path:
        return {}
    checkpoint = Path(path.removesuffix("@sample")).with_name("checkpoint.pt")
    if not checkpoint.exists():
        return {}
    saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
    return {"spec": spec, "command": saved_command(TrainConfig, saved["config"], "octagames.experiments.train_ppo"),
            "env_steps": int(saved["counters"]["env_steps"])}


@script
def cli() -> None:
    """Command-line entry point (``octagames-train-ppo``, or ``python -m octagames.experiments.train_ppo``)."""
    main(parse_config(TrainConfig))


if __name__ == "__main__":
    cli()
