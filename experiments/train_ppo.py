"""Train a PPO policy by self-play with a league, on the batched vector env.

    octagames train-ppo --game octrix --total-steps 2000000              # the match to 88, 2 players
    octagames train-ppo --game octrix-round --config ranks=4 hand_size=4 --total-steps 200000
    octagames train-ppo --game octrix --players 3 --time-budget-s 900
    octagames train-ppo --game achten-dealer-pays --learning-rate 1e-3 \
        --anneal-lr --total-steps 2800000 --time-budget-s 900     # the README's Achten run
    octagames train-ppo --game octrix --total-steps 2000000 --resume   # continue a killed run
    octagames train-ppo --game octrix --total-steps 2000000 --matmul-dtype bfloat16   # 1.1-1.5x faster

The run folder, its files (``config.json``, ``checkpoint.pt``, ``metrics.csv``/``.json``,
``curves.png``), ``--resume``/``--overwrite`` and the progress lines are the shared trainer
skeleton's (:mod:`octagames.experiments.trainer`); this trainer adds ``policy.pt`` (the
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
(:func:`octagames.agents.learn.clone.pretrain_actor_critic`: the actor learns its
moves, the critic the outcomes). A stop or a kill in it loses nothing saved: the teacher
games and the cloning steps so far are in ``warm_start.partial.pt`` (every minute or so, and at
the stop), from which ``--resume`` goes on to the run never stopped.

The league is :class:`octagames.agents.learn.league.League`; the games are played by
:class:`octagames.agents.learn.rollout.RolloutWorker` (here, or one per Ray actor with
``--ray-actors``); per-seat trajectories are assembled by :func:`octagames.agents.learn.ppo.seat_gae`.

Evaluation: every ``eval_every`` updates (and after the first and the last)
the greedy policy plays arena games (:func:`octagames.agents.arena.play_match`,
seats rotated) against each of ``eval_opponents`` (one opponent agent per other
seat); the win rate counts a draw as half a win. Opponents that are not
available are skipped and listed in ``metrics.json`` under ``skipped_opponents``. The
games per opponent are ``eval_games``, or by default one per 10,000 planned env steps
between 10 and 100: a tiny run evaluates on 10 games, a million steps on 100.

Precision: ``--matmul-dtype bfloat16`` runs the hidden layers' matrix products of the rollouts'
forward passes and of the update in bfloat16 (``torch.autocast``; the sparse first layer, the
output layers, the parameters, Adam and the losses stay float32,
:func:`octagames.agents.learn.ppo.matmul_precision`). On a CPU with AVX-512 BF16 or AMX it makes
the whole loop 1.1-1.5 times faster; over three seeds on the Octrix match it learned within the
spread of the float32 runs (``docs/benchmarks.md``). On a CPU without them it is slower. A seeded run
reproduces itself in either dtype; the two dtypes' runs differ.

Resuming: ``checkpoint.pt`` is written atomically every ``checkpoint_every``
updates and at the end. It holds the model, the optimizer, the league (pool
and per-game league state), the RNG states (python, numpy, torch, the env's
game records, whose own RNG drives every deal, and its sampling seeds), the
step counters and the metrics so far. ``--resume`` restarts from it and
rewrites the metrics files from the checkpoint, so a killed run continues
exactly where its last checkpoint left it: its metrics are identical to an
uninterrupted run's, wall-clock columns apart (``time_budget_s`` is the one
setting that depends on the clock). A resume keeps the run's settings: it refuses, naming
each, a change to the seed, the game, the network, the optimiser or its schedule, the rollout
sizes, the league, ``torch_threads`` (results differ across thread counts) and the device; it
may extend ``total_steps`` (not with ``anneal_lr``, whose rate falls over them) and change the
time budget, ``stop_after``, ``checkpoint_every``, the evaluation cadence and games, the progress
and ``obs_dtype`` (the network sees the same values). ``config.json`` keeps the run's first
command; each resume appends its own under ``resumes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch

from octagames.agents.arena import play_match
from octagames.agents.learn.clone import ClonedSoFar, pretrain_actor_critic
from octagames.agents.learn.ppo import (ActorCritic, PPOAgent, check_activation, matmul_precision, policy_dict,
                                        ppo_update, save_policy)
from octagames.agents.learn.rollout import (RolloutConfig, RolloutWorker, build_model, rollout_obs_dtype,
                                            merge_rollouts)
from octagames.agents.registry import make_agent
from octagames.experiments.cli import check_hidden, parse_config, saved_command, script
from octagames.experiments import trainer

#: metric columns that depend on the clock (left out when comparing runs)
TIME_COLUMNS = ("wall_time", "steps_per_s", "eval_seconds")


@dataclass(frozen=True)
class TrainConfig(trainer.RunConfig):
    """PPO self-play training (every field is a flag; the game, run and evaluation fields are RunConfig's)."""

    KIND: ClassVar[str] = "ppo"
    #: a resume may also extend the budget and change the observations' dtype (the network sees the same values)
    RESUMABLE: ClassVar[tuple[str, ...]] = (*trainer.RunConfig.RESUMABLE, "total_steps", "obs_dtype")

    total_steps: int = 1_000_000
    """env steps to train for (all seats' moves count), rounded up to whole updates"""
    # -- rollout ----------------------------------------------------------------
    num_envs: int = 256
    """games stepped together"""
    num_steps: int = 32
    """steps per game per rollout (a rollout is num_envs * num_steps env steps)"""
    reward: str = "win"
    """win: zero-sum +1 to the winner(s) at the end of a game; score: the game's returns / their bound"""
    obs_dtype: str = "auto"
    """the vector env's observations: auto (the narrowest integers the config allows: uint8, else uint16),
    uint8, uint16 or float32; the network sees the same float32 values either way, converted where it runs"""
    matmul_dtype: str = "float32"
    """the network's matrix products in the rollouts and the update: float32, or bfloat16 (torch.autocast;
    parameters, Adam and losses stay float32): 1.3-1.6x faster updates on CPUs with AVX-512 BF16 or AMX,
    slower on others; seeded runs reproduce either way, but the two dtypes' runs differ"""
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

    def __post_init__(self) -> None:
        if self.reward not in ("win", "score"):
            raise ValueError(f"reward={self.reward!r} is not valid; valid values: ['win', 'score']")
        object.__setattr__(self, "obs_dtype", rollout_obs_dtype(self.obs_dtype))  # a numpy dtype by its name
        matmul_precision(self.matmul_dtype)  # a bad name raises ValueError naming the field
        check_activation(self.activation)  # here, not when the network is built: after --overwrite's removal
        if not 0.0 <= self.self_play_prob <= 1.0:
            raise ValueError(f"self_play_prob={self.self_play_prob} must be in [0, 1]")
        if not 0.0 <= self.random_opponent_prob <= 1.0 - self.self_play_prob:
            raise ValueError(f"random_opponent_prob={self.random_opponent_prob} must be in [0, 1 - self_play_prob]"
                             f" = [0, {1.0 - self.self_play_prob:g}]")
        rest = 1.0 - self.self_play_prob - self.random_opponent_prob
        if not 0.0 <= self.agent_opponent_prob <= rest + 1e-12:
            raise ValueError(f"agent_opponent_prob={self.agent_opponent_prob} must be in "
                             f"[0, 1 - self_play_prob - random_opponent_prob] = [0, {rest:g}]")
        for name in ("total_steps", "num_envs", "num_steps", "update_epochs", "num_minibatches", "snapshot_every",
                     "pool_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} must be >= 1")
        check_hidden(self.hidden)
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be in [0, 1]")
        for name in ("learning_rate", "imitation_learning_rate", "clip_coef", "max_grad_norm"):  # a norm of 0 would
            # zero every gradient; the cloning's rate failed in torch after the teacher games, naming no flag
            if not (getattr(self, name) > 0.0 and math.isfinite(getattr(self, name))):  # inf trained NaNs
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be a finite number > 0")
        for name in ("ent_coef", "vf_coef"):
            if not (getattr(self, name) >= 0.0 and math.isfinite(getattr(self, name))):
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be a finite number >= 0")
        if not self.target_kl >= 0.0:  # (inf: no early stop, as 0 is)
            raise ValueError(f"target_kl={self.target_kl} is not valid; it must be >= 0")
        super().__post_init__()

    @property
    def steps_per_update(self) -> int:
        """Env steps per rollout (every rollout actor plays ``num_envs`` games)."""
        return self.num_envs * self.num_steps * max(1, self.ray_actors)

    @property
    def num_updates(self) -> int:
        """Updates needed for ``total_steps``."""
        return max(1, -(-self.total_steps // self.steps_per_update))

    def planned_work(self) -> int:
        """The env steps the run plans (whole updates): what the automatic evaluation games scale with."""
        return self.num_updates * self.steps_per_update

    def schedule_budget(self) -> dict[str, str]:
        """With ``anneal_lr`` the learning rate falls over ``total_steps``: a resume may not change them."""
        return {"total_steps": "--anneal-lr anneals the learning rate over it"} if self.anneal_lr else {}

    def rollout(self) -> RolloutConfig:
        """What each rollout worker plays."""
        game, fields = self.resolve()
        return RolloutConfig(game=game, game_config=fields, num_envs=self.num_envs, num_steps=self.num_steps,
                             reward=self.reward, hidden=self.hidden, activation=self.activation, gamma=self.gamma,
                             gae_lambda=self.gae_lambda, self_play_prob=self.self_play_prob,
                             random_opponent_prob=self.random_opponent_prob,
                             agent_opponent_prob=self.agent_opponent_prob, opponent_agent=self.opponent_agent,
                             torch_threads=self.torch_threads, obs_dtype=self.obs_dtype,
                             matmul_dtype=self.matmul_dtype)


class Trainer(trainer.Trainer):
    """A PPO run: the learner's network and optimizer, the rollout worker(s); the loop is the skeleton's."""

    FORMAT = "octagames-ppo-checkpoint-3"
    COUNTERS = ("update", "env_steps", "train_steps", "episodes")
    SPEED = ("steps_per_s", "env_steps")
    OUTPUTS = trainer.TRAINER_OUTPUTS["train_ppo"]
    PLOT = {"x": ("env_steps", "env steps"), "losses": ("pg_loss", "v_loss", "entropy")}
    MODULE = "octagames.experiments.train_ppo"

    cfg: TrainConfig

    def _setup(self) -> None:
        # built inside the skeleton's setup: a setting refused here gives the run folder's lock back, and the
        # folder too where this run made it empty
        super()._setup()
        cfg = self.cfg
        if cfg.agent_opponent_prob > 0:  # the rollouts build it at their first game against it, naming no field
            self.check_agent("opponent_agent")
        self.model = ActorCritic(self.game.observation_size, self.game.num_actions, cfg.hidden,
                                 cfg.activation).to(self.device)
        # the fused kernel: the same Adam step (equal up to float rounding), several times faster on CPU
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.learning_rate, eps=1e-5,
                                          fused=self.device.type in ("cpu", "cuda"))
        self.pool: list[tuple[int, dict[str, torch.Tensor]]] = []  # the league's snapshots (with Ray actors)
        self.next_snapshot = 0
        self.pool_size_now = 0
        self.actors: Any = None
        self.worker: RolloutWorker | None = None
        if cfg.ray_actors > 0:  # the same worker in Ray actors; actor 0 has the trainer's seed
            from octagames.agents.learn.distributed import ActorGroup, actor_seed
            self.actors = ActorGroup(RolloutWorker, [(cfg.rollout(), actor_seed(cfg.seed, k))
                                                     for k in range(cfg.ray_actors)], address=cfg.ray_address or None)
        else:
            self.worker = RolloutWorker(cfg.rollout(), cfg.seed, self.model, self.device)

    @property
    def total(self) -> int:
        """Updates the run plans."""
        return self.cfg.num_updates

    def warm_start(self) -> dict[str, float]:
        """Clone the teacher (``imitation_*`` settings) into the policy; the cloning's last statistics."""
        cfg = self.cfg
        data = self.teacher_data()
        if (saved := self.warm_stage("cloning")) is not None:  # stopped in these steps: the model as it was then
            self.say(f"  going on from step {saved['steps']} of {cfg.imitation_steps}")
        self.restore_warm_rng()  # (the games' end restored them when nothing later was saved)
        stats = pretrain_actor_critic(self.model, self.game, data, cfg.imitation_steps,
                                      learning_rate=cfg.imitation_learning_rate, seed=cfg.seed,
                                      done=None if saved is None else ClonedSoFar(**saved),
                                      checkpoint=self.warm_checkpoint(lambda so_far: (self.warm_games,
                                                                                      {"cloning": vars(so_far)})))
        if (steps := stats.pop("steps")) < cfg.imitation_steps:
            raise trainer.WarmStartStopped(f"in its cloning steps, after {steps} of {cfg.imitation_steps}")
        return {f"imitation_{k}": v for k, v in stats.items()}

    def play_evaluation(self, spec: str, games: int, seed: int) -> dict[str, float]:
        """The greedy current policy against ``spec`` in every other seat; its win rate (draw = half)."""
        weights = {k: v.detach().cpu() for k, v in self.model.state_dict().items()}
        agents = [PPOAgent(build_model(self.model.spec, weights), greedy=True),
                  *(make_agent(spec, self.game) for _ in range(self.P - 1))]
        res = play_match(self.game, agents, num_games=games, seed=seed, progress=False)
        return {f"win_rate_vs_{spec}": res.records[0].score}

    @torch.no_grad()
    def rollout(self) -> dict[str, Any]:
        """Play ``num_steps`` steps in every game (here or on the Ray actors); the training batch and stats."""
        if self.worker is not None:
            roll = self.worker.rollout()
        else:
            weights = {k: v.detach().cpu() for k, v in self.model.state_dict().items()}
            rolls = self.actors.call("rollout_with", weights, self.pool, self.cfg.pool_size)
            roll = merge_rollouts(rolls)
        roll["batch"] = {k: v.to(self.device) for k, v in roll["batch"].items()}
        roll["stats"]["policy_lag"] = 0  # synchronous: every sample was played with the current weights
        return roll

    def add_snapshot(self) -> None:
        """The current network joins the league's pool (on every actor at its next rollout, which is sent
        the whole pool: an actor that Ray restarted gets it back)."""
        self.pool_size_now = min(self.pool_size_now + 1, self.cfg.pool_size)
        if self.worker is not None:
            self.worker.league.add(self.model, self.cfg.pool_size)
        else:
            weights = {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}
            self.pool = (self.pool + [(self.next_snapshot, weights)])[-self.cfg.pool_size:]
            self.next_snapshot += 1

    def step(self) -> dict[str, Any]:
        """One rollout and one PPO update (and a snapshot every ``snapshot_every``)."""
        cfg, count = self.cfg, self.count
        lr = cfg.learning_rate
        if cfg.anneal_lr:
            lr *= 1.0 - count["update"] / cfg.num_updates
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        roll = self.rollout()
        batch = roll["batch"]
        self.model.train()
        with matmul_precision(cfg.matmul_dtype, self.device):
            stats = ppo_update(self.model, self.optimizer, batch, update_epochs=cfg.update_epochs,
                               num_minibatches=cfg.num_minibatches, max_grad_norm=cfg.max_grad_norm,
                               target_kl=cfg.target_kl, clip_coef=cfg.clip_coef, vf_coef=cfg.vf_coef,
                               ent_coef=cfg.ent_coef, clip_vloss=cfg.clip_vloss, norm_adv=cfg.norm_adv)
        count["update"] += 1
        count["env_steps"] += cfg.steps_per_update
        count["train_steps"] += int(batch["obs"].shape[0])
        count["episodes"] += roll["stats"]["episodes"]
        if count["update"] % cfg.snapshot_every == 0:
            self.add_snapshot()
        return {"learning_rate": lr, **stats, **{k: v for k, v in roll["stats"].items() if k != "episodes"}}

    def row_extra(self) -> dict[str, Any]:
        """The league's pool size."""
        return {"pool_size": self.pool_size_now}

    # -- checkpoints ----------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The policy, the optimizer, the rollout workers (envs, league, RNGs) and the league's pool (with Ray
        actors: what every rollout is sent)."""
        return {"policy": policy_dict(self.model, self.game), "optimizer": self.optimizer.state_dict(),
                "workers": [self.worker.state_dict()] if self.worker is not None else self.actors.call("state_dict"),
                # with Ray actors the trainer's pool (its newest snapshot not sent yet); here the worker's league
                "pool": self.pool if self.worker is None else None, "next_snapshot": self.next_snapshot,
                "pool_size_now": self.pool_size_now}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`.

        Raises:
            ValueError: the checkpoint was written by another number of rollout workers.
        """
        self.model.load_state_dict(d["policy"]["state_dict"])
        self.optimizer.load_state_dict(d["optimizer"])
        workers = d["workers"]
        if len(workers) != max(1, self.cfg.ray_actors):
            raise ValueError(f"the checkpoint was written by {len(workers)} rollout worker(s); this run has "
                             f"{max(1, self.cfg.ray_actors)} (pass --ray-actors {len(workers) if len(workers) > 1 else 0})")
        if self.worker is not None:
            self.worker.load_state_dict(workers[0])
        else:
            self.actors.call_each("load_state_dict", workers)
        if d.get("pool") is not None:
            self.pool, self.next_snapshot = list(d["pool"]), int(d["next_snapshot"])
        else:  # a run in one process (its worker's league), or of before 2026-12-07 (and the snapshot not sent yet)
            league = workers[0]["league"]
            self.pool, self.next_snapshot = list(zip(league["pool_ids"], league["pool"])), int(league["next_id"])
            if d.get("pending_snapshot") is not None:
                self.pool = (self.pool + [(self.next_snapshot, d["pending_snapshot"])])[-self.cfg.pool_size:]
                self.next_snapshot += 1
        self.pool_size_now = int(d["pool_size_now"])

    def save_model(self) -> Path:
        """``policy.pt``: the policy alone, with its game."""
        return save_policy(self.model, self.run_dir / "policy.pt", self.game)

    def columns(self) -> list[str]:
        """The CSV columns after the counters."""
        cols = ["steps_per_s", "learning_rate", "loss", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac",
                "league_win_rate", "league_games", "agent_win_rate", "agent_games", "truncated", "train_fraction",
                "mean_value",
                "pool_size", "policy_lag", "imitation_loss", "imitation_accuracy", "imitation_value_mse"]
        return cols + [f"win_rate_vs_{s}" for s in self.eval_agents] + ["eval_seconds"]


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Train (or resume) a run; returns paths, metric rows and the final evaluation."""
    tr = Trainer(cfg)
    return {**tr.run(), "policy": str(tr.run_dir / "policy.pt")}


def main(cfg: TrainConfig) -> dict[str, Any]:
    """Command-line entry: train and print the final evaluation."""
    result = train(cfg)

    def lines(result: dict[str, Any]) -> list[str]:
        last = result["rows"][-1]
        return [f"env steps: {last['env_steps']}, wall time: {last['wall_time']:.1f}s, "
                f"steps/s (last update): {last.get('steps_per_s', float('nan')):.0f}",
                *(f"{k}: {v:.3f}" for k, v in result["final_eval"].items() if k.startswith("win_rate"))]

    trainer.print_result(result, lines)
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
    saved = trainer.read_checkpoint(checkpoint)
    config = trainer.upgrade_config(saved["config"])
    return {"spec": spec, "command": saved_command(TrainConfig, config, "octagames.experiments.train_ppo"),
            "env_steps": int(saved["counters"]["env_steps"])}


@script
def cli() -> None:
    """Command-line entry point (``octagames-train-ppo``, or ``python -m octagames.experiments.train_ppo``)."""
    trainer.exit_if_stopped(main(parse_config(TrainConfig)))


if __name__ == "__main__":
    cli()
