"""The acting side of PPO self-play: a vector env, the league's draws, the opponents, a copy of the policy.

:class:`RolloutWorker` plays ``num_steps`` steps in each of ``num_envs`` games and returns the
training batch (the learner's transitions, with per-seat GAE from
:func:`octagames.agents.learn.ppo.seat_gae`) and its statistics. The trainer
(``experiments/train_ppo.py``) holds one in its own process, or one per Ray actor
(:class:`octagames.agents.learn.distributed.ActorGroup`); :func:`merge_rollouts` joins the
actors' batches. What each game is (self-play, random play, an agent, a past snapshot) is the
:class:`~octagames.agents.learn.league.League`'s draw.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from octagames.agents.base import Agent, make_turn, pack_agents, unpack_agents
from octagames.agents.learn.league import AGENT_OPPONENT, RANDOM_OPPONENT, SELF_PLAY, League
from octagames.agents.learn.ppo import (ActorCritic, ObsBatch, matmul_precision, sample_actions, seat_gae,
                                        win_rewards)
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.envs.vector import OBS_DTYPES, make, narrowest_obs_dtype, obs_dtype_name

#: ``RolloutConfig.obs_dtype``: the env's observation dtypes, or ``auto`` (:func:`octagames.envs.vector.narrowest_obs_dtype`)
ROLLOUT_OBS_DTYPES = ("auto", *OBS_DTYPES)


def rollout_obs_dtype(obs_dtype: Any) -> str:
    """``obs_dtype`` of a rollout by name: ``"auto"``, or an env's dtype given by name or as a numpy dtype
    (:func:`~octagames.envs.vector.obs_dtype_name`: ``np.uint8`` is ``"uint8"``), so a config keeps a name.

    Raises:
        ValueError: neither (naming the field and :data:`ROLLOUT_OBS_DTYPES`).
    """
    if isinstance(obs_dtype, str) and obs_dtype == "auto":
        return obs_dtype
    try:
        return obs_dtype_name(obs_dtype)
    except ValueError:
        raise ValueError(f"obs_dtype={obs_dtype!r} is not valid; valid values: {list(ROLLOUT_OBS_DTYPES)}") from None


@dataclass(frozen=True)
class RolloutConfig:
    """What a rollout worker plays and how its transitions are scored (the trainer's settings)."""

    game: str
    """the rules package's short name (``octa``)"""
    game_config: Mapping[str, Any] = field(default_factory=dict)
    """every field of the game's Config, ``num_players`` included"""
    num_envs: int = 256
    """games stepped together"""
    num_steps: int = 32
    """steps per game per rollout"""
    reward: str = "win"
    """win: zero-sum +1 to the winner(s) at the end of a game; score: the game's returns / their bound"""
    hidden: tuple[int, ...] = (256, 256)
    """hidden layer widths of the actor and of the critic"""
    activation: str = "tanh"
    """tanh or relu"""
    gamma: float = 0.99
    """discount per own turn of a seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    self_play_prob: float = 0.5
    """share of self-play games"""
    random_opponent_prob: float = 0.0
    """share of games against uniform random play"""
    agent_opponent_prob: float = 0.0
    """share of games against ``opponent_agent``"""
    opponent_agent: str = "heuristic"
    """registry spec of the agent opponent"""
    torch_threads: int = 1
    """torch CPU threads of a worker in its own process (0: torch's default)"""
    obs_dtype: str = "auto"
    """the vector env's observations: auto (the narrowest integers the config allows), uint8, uint16 or
    float32; the network sees the same float32 values either way"""
    matmul_dtype: str = "float32"
    """the network's matrix products in the rollout's forward passes: float32 or bfloat16
    (:func:`~octagames.agents.learn.ppo.matmul_precision`)"""

    def __post_init__(self) -> None:
        if self.reward not in ("win", "score"):
            raise ValueError(f"reward={self.reward!r} is not valid; valid values: ['win', 'score']")
        object.__setattr__(self, "obs_dtype", rollout_obs_dtype(self.obs_dtype))  # a numpy dtype by its name
        matmul_precision(self.matmul_dtype)  # a bad name raises here, not in the first rollout


def build_model(spec: dict[str, Any], state_dict: dict[str, torch.Tensor],
                device: torch.device | str = "cpu") -> ActorCritic:
    """A network with given weights, built without touching the global torch RNG.

    (Initialising a network draws random numbers; snapshots are rebuilt after a
    resume, so drawing them would make a resumed run diverge.)

    Args:
        spec: the network's ``ActorCritic.spec``.
        state_dict: its weights.
        device: where it runs.

    Returns:
        The network, in eval mode.
    """
    with torch.random.fork_rng(devices=[]):
        m = ActorCritic(**spec)
    m.load_state_dict(state_dict)
    return m.to(device).eval()


class RolloutWorker:
    """The acting side of PPO: a vector env, the league's draws, the agent opponents and a copy of
    the policy (or the learner's own network); :meth:`rollout` gives a training batch.

    Everything random in a rollout comes from ``seed``: the env's deals, the league's draws
    (numpy) and the sampled actions (a torch generator), so one Ray actor seeded like the
    trainer's worker reproduces the single-process run.

    Args:
        cfg: what to play.
        seed: the worker's seed.
        model: the network to act with (the learner's, in one process); ``None`` builds a copy
            whose weights :meth:`set_weights` sets.
        device: where the network runs.
    """

    def __init__(self, cfg: RolloutConfig, seed: int, model: ActorCritic | None = None,
                 device: torch.device | str = "cpu") -> None:
        self.cfg = cfg
        self.device = torch.device(device)
        if model is None and cfg.torch_threads > 0:  # a Ray actor: its own process
            torch.set_num_threads(cfg.torch_threads)
        self.rng = np.random.default_rng(seed)
        self.gen = torch.Generator(device=self.device).manual_seed(seed)
        game = Game(cfg.game, **cfg.game_config)
        obs_dtype = narrowest_obs_dtype(game) if cfg.obs_dtype == "auto" else cfg.obs_dtype
        self.env = make(cfg.game, cfg.num_envs, seed=seed, obs_dtype=obs_dtype, **cfg.game_config)
        self.game = self.env.game
        #: float32 ``[D]``: the env's observations divided by it are the float32 ones
        self.divisor = torch.from_numpy(self.env.obs_divisor)
        # the rollout's observations, as the env writes them, reused by every rollout (filled row by row)
        self._obs_buf = torch.empty((cfg.num_steps, cfg.num_envs, self.env.observation_size),
                                    dtype=torch.from_numpy(self.env.obs[:0]).dtype)
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

    def rollout_with(self, weights: dict[str, torch.Tensor], pool: Sequence[tuple[int, dict[str, torch.Tensor]]],
                     pool_size: int) -> dict[str, Any]:
        """Set the weights and the league's pool, then :meth:`rollout`: one call, so that a call Ray
        retries on a restarted actor acts with the right weights and the whole pool.

        Args:
            weights: the policy's.
            pool: the trainer's snapshots, ``(id, weights)`` oldest first: those this worker lacks join
                its pool as :meth:`add_snapshot` adds them; a worker whose pool is not a part of it
                (Ray restarted its actor, which starts with none) takes it as it is.
            pool_size: the pool's bound.
        """
        self.set_weights(weights)
        had = list(self.league.pool_ids)
        for i, snapshot in pool:
            if i >= self.league.next_id:
                self.add_snapshot(snapshot, pool_size)
        if self.league.pool_ids != [i for i, _ in pool][-pool_size:]:
            self.league.set_pool(pool, pool_size)
            self.opp_models = {}
            warnings.warn(f"rollout worker: its league's pool (snapshots {had}) was not the trainer's: it takes "
                          f"the trainer's (snapshots {self.league.pool_ids}); Ray restarted its actor",
                          RuntimeWarning, stacklevel=2)
        return self.rollout()

    def state_dict(self) -> dict[str, Any]:
        """Everything that determines the worker's future rollouts."""
        return {"league": self.league.state_dict(), "opp_agents": pack_agents(self.opp_agents),
                "returns_so_far": self.returns_so_far.copy(), "env": self.env.get_state(),
                "numpy": self.rng.bit_generator.state, "torch_generator": self.gen.get_state()}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` (into a worker built with the same config)."""
        self.league.load_state_dict(d["league"])
        self.opp_agents = unpack_agents(d.get("opp_agents", [None] * self.cfg.num_envs))
        self.returns_so_far = d["returns_so_far"].copy()
        env_state = dict(d["env"])
        if env_state["obs"].dtype != self.env.obs.dtype:  # saved with another obs_dtype: set_state recomputes
            env_state["obs"] = np.zeros_like(self.env.obs)
        self.env.set_state(env_state)
        self.rng.bit_generator.state = d["numpy"]
        self.gen.set_state(d["torch_generator"])
        self.opp_models = {}

    def _draw(self, idx: np.ndarray) -> None:
        """The league's draw for the new games ``idx``; agent opponents get a fresh agent."""
        cfg = self.cfg
        self.league.draw(idx, self.rng, cfg.self_play_prob, self.P, cfg.random_opponent_prob,
                         cfg.agent_opponent_prob)
        for i in idx[self.league.opponent[idx] == AGENT_OPPONENT]:
            agent = make_agent(cfg.opponent_agent, self.game, field="opponent_agent")
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
        """Play ``num_steps`` steps in every game.

        Returns:
            ``{"batch": ..., "stats": ...}``: the learner's transitions (``obs``, an
            :class:`~octagames.agents.learn.ppo.ObsBatch` of the env's compact observations, ``mask``,
            ``actions``, ``logprobs``, ``advantages``, ``returns``, ``values``) and the rollout's
            episodes (games over, those an engine bound stopped included), ``truncated`` (those),
            league and agent games and win rates (a stopped game's equal returns a draw), trained share
            and mean value.
        """
        with matmul_precision(self.cfg.matmul_dtype, self.device):
            return self._play()

    def _values(self, obs: np.ndarray) -> np.ndarray:
        """The critic's values of observation rows ``[M, D]`` (of the env's dtype), ``[M]`` float."""
        return self.model.value(ObsBatch(torch.from_numpy(obs), self.divisor).to(self.device)).cpu().numpy()

    def _play(self) -> dict[str, Any]:
        """:meth:`rollout`'s work (under its ``no_grad`` and matrix-product precision)."""
        cfg, env, dev, P = self.cfg, self.env, self.device, self.P
        T, N = cfg.num_steps, cfg.num_envs
        D, A = env.observation_size, env.num_actions
        obs_b = self._obs_buf
        mask_b = torch.zeros((T, N, A), dtype=torch.bool)
        act_b = torch.zeros((T, N), dtype=torch.int64)
        logp_b = torch.zeros((T, N), dtype=torch.float32)
        val_b = np.zeros((T, N), dtype=np.float64)
        player_b = np.zeros((T, N), dtype=np.int64)
        train_b = np.zeros((T, N), dtype=bool)
        rew_b = np.zeros((T, N, P), dtype=np.float64)
        term_b = np.zeros((T, N), dtype=bool)
        trunc_b = np.zeros((T, N), dtype=bool)
        trunc_v = np.zeros((T, N, P), dtype=np.float64)  # every seat's value of a stopped game's last position
        scores = {"league": 0.0, "agent": 0.0}  # the learner's points (a draw is half) in finished games
        counts = {"league": 0, "agent": 0}
        episodes = truncated = 0
        for t in range(T):
            obs_b[t] = torch.from_numpy(env.obs)
            mask_b[t] = torch.from_numpy(env.action_mask.astype(bool))
            player = env.player.copy()
            player_b[t] = player
            obs = ObsBatch(obs_b[t], self.divisor).to(dev)  # converted to float32 where the network runs
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
            trunc_b[t] = env.truncated  # stopped by an engine bound: over, not an outcome (seat_gae)
            if trunc_b[t].any():  # bootstrapped from each seat's view of the position it stopped at
                rows = np.flatnonzero(trunc_b[t])
                for p in range(P):
                    trunc_v[t, rows, p] = self._values(env.final_observation(np.full(N, p, dtype=np.int64))[rows])
            self.returns_so_far += r
            if cfg.reward == "win":
                if end.any():
                    rew_b[t, end] = win_rewards(self.returns_so_far[end])
            else:
                rew_b[t] = r * self.reward_scale
            over = end | trunc_b[t]
            if over.any():  # a stopped game counts as played, its equal returns a draw
                idx = np.flatnonzero(over)
                episodes += len(idx)
                truncated += int((trunc_b[t] & ~end).sum())
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
            last_values[:, p] = self._values(env.observe(np.full(N, p, dtype=np.int64)))
        g = seat_gae(player_b, rew_b, term_b, val_b, last_values, cfg.gamma, cfg.gae_lambda, trunc_b, trunc_v)
        sel = torch.from_numpy(train_b.reshape(-1))
        batch = {
            "obs": ObsBatch(obs_b.reshape(T * N, D)[sel], self.divisor),
            "mask": mask_b.reshape(T * N, A)[sel],
            "actions": act_b.reshape(-1)[sel],
            "logprobs": logp_b.reshape(-1)[sel],
            "advantages": torch.from_numpy(g["advantages"].reshape(-1)).float()[sel],
            "returns": torch.from_numpy(g["returns"].reshape(-1)).float()[sel],
            "values": torch.from_numpy(val_b.reshape(-1)).float()[sel],
        }
        stats = {"episodes": episodes, "truncated": truncated, "league_games": counts["league"],
                 "league_win_rate": scores["league"] / counts["league"] if counts["league"] else None,
                 "agent_games": counts["agent"],
                 "agent_win_rate": scores["agent"] / counts["agent"] if counts["agent"] else None,
                 "train_fraction": float(train_b.mean()),
                 "mean_value": float(val_b.mean())}
        return {"batch": batch, "stats": stats}


def merge_rollouts(rolls: list[dict[str, Any]]) -> dict[str, Any]:
    """The rollouts of several workers as one batch (worker order); counts summed, rates weighted by games.

    Args:
        rolls: what each worker's :meth:`RolloutWorker.rollout` returned.

    Returns:
        One rollout of the same form.
    """
    if len(rolls) == 1:
        return rolls[0]
    batch = {key: (ObsBatch.cat if key == "obs" else torch.cat)([r["batch"][key] for r in rolls])
             for key in rolls[0]["batch"]}
    stats: dict[str, Any] = {key: sum(r["stats"][key] for r in rolls) for key in ("episodes", "truncated")}
    for kind in ("league", "agent"):
        games = [r["stats"][f"{kind}_games"] for r in rolls]
        stats[f"{kind}_games"] = sum(games)
        won = sum(r["stats"][f"{kind}_win_rate"] * n for r, n in zip(rolls, games) if n)
        stats[f"{kind}_win_rate"] = won / sum(games) if sum(games) else None
    for key in ("train_fraction", "mean_value"):
        stats[key] = float(np.mean([r["stats"][key] for r in rolls]))
    return {"batch": batch, "stats": stats}
