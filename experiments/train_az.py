"""Train a policy/value network by search and self-play (AlphaZero / expert iteration).

    octagames train-az --game octrix --time-budget-s 3600                 # the match to 88
    octagames train-az --game achten-dealer-pays --time-budget-s 3600
    octagames train-az --game octrix --time-budget-s 7200 --resume        # continue a killed run

Every iteration the self-play worker (:class:`octagames.agents.learn.az_selfplay.SelfPlayWorker`)
receives the current weights and the snapshot pool, plays ``num_games`` games in
lockstep with the batched PUCT search until ``samples_per_iteration`` samples of
finished games are ready; they join the replay buffer and the learner takes
``replay_ratio * samples / batch_size`` gradient steps on batches drawn
uniformly from it (targets: the search's visit distribution and the outcome of
the game for every seat). Every ``snapshot_every`` iterations a copy of the
network joins the pool of past opponents.

Warm start (``imitation_games > 0``): before the first iteration the teacher
(``heuristic``) plays that many games against itself
(:func:`octagames.agents.learn.imitation.teacher_games`, with ``imitation_epsilon``
random moves); its decisions fill the buffer with one-hot targets and the
learner takes ``imitation_steps`` steps on them.

Distillation (``--imitation-target prior``): the policy targets of the warm start are the starting
network's (``--init-model``) own priors, on the teacher's decisions and, with ``--imitation-children N``, on
up to N children of each (the positions a search meets one move on); with ``--value-target-mix 1`` the value
target is the game's compiled leaf value alone. A network whose search leaned on that value learns it and
then searches alone (``--leaf-value-mix 0``, the ``net:`` search). ``--widen-init-model STD`` lets a network
trained before its game's observation grew read the new blocks; ``--imitation-random-share`` plays that share
of the teacher games wholly at random. The Octiles network of ``docs/az.md`` (m10):

    octagames train-az --game octiles-fixed-start --init-model zoo:octiles-fixed-start --widen-init-model 0.5 \
        --imitation-games 300 --imitation-random-share 0.5 --imitation-epsilon 0.15 --imitation-target prior \
        --imitation-children 6 --imitation-steps 12000 --imitation-final-learning-rate 5e-5 --value-target-mix 1 \
        --value-weight 4 --weight-decay 0.05 --batch-size 512 --buffer-size 1000000 --iterations 0 \
        --play-simulations 2000 --play-leaves-per-game 8

Expert iteration (``--expert <agent spec>``, e.g. ``zoo:octa-en``, ``belief``, ``mcts:200``): the
expert makes the self-play decisions the network's search would have made (every seat of a
self-play game, the learner's seat of a game against ``opponent_agent`` or a snapshot), and its
decision is the sample's policy target (:func:`octagames.agents.learn.az_selfplay.expert_target`:
a search's visit shares over its whole search; rollouts' per-move values through ``expert_temperature``,
even where a network's search votes in; a policy's probabilities; else one-hot on its choice); the
outcome is the value target, as in self-play. ``--expert learner:<worlds>`` is the expert with the
apprentice inside: rollouts over believed worlds in which the network being trained plays the seat's
later moves (games whose rollouts can call a network: Achten). With ``expert_iterations`` N > 0 the
expert plays the first N iterations only; from then on the network's own search (the ``net:`` search
when ``leaf_value_mix`` and ``prior_hint`` are off) plays and makes the targets.

    octagames train-az --game octa-en --expert zoo:octa-en --expert-iterations 20 --init-model zoo:octa-en

The run folder, its shared files (``config.json``, ``metrics.csv``/``.json`` with one
row per iteration, ``curves.png``), ``--resume``/``--overwrite`` and the progress lines are
the trainer skeleton's (:mod:`octagames.experiments.trainer`). ``checkpoint.pt`` holds
everything needed to resume exactly (network, optimizer, replay buffer, the worker's games
in progress, the pool, every RNG, the metrics); this trainer adds ``model.pt``
(the network and its play-time search; ``make_agent("az:<run_dir>/model.pt", game)``) and
``model-best.pt`` (the model of the best evaluation so far against the first of
``eval_opponents``: long self-play can drift away from what beats a fixed
opponent, and the best evaluated model is kept; with ``eval_games`` games an
evaluation is noisy, so re-evaluate the pick with more games before relying on it).
With a warm start, ``warm_start.json`` and ``warm_start.png`` hold its curves: the learner's losses over
its gradient steps (the mean of each hundredth of them) and the learning rate.
``--resume`` continues from the checkpoint; the metrics of a resumed run equal
an uninterrupted run's, wall-clock columns apart. A run stopped or killed in its warm start's teacher
games, children's labels, rollout values or gradient steps goes on from what ``warm_start.partial.pt``
(the skeleton's file) saved of them (labels made in one process are made again unless all were done;
worker processes keep theirs by whole blocks). It keeps the run's settings (a change to what the run computes,
``torch_threads`` included, is refused naming each field); it may add ``iterations`` (not with
``final_learning_rate``, whose decay runs over them or over the time budget) and change the time
budget, checkpoints, evaluation cadence and progress; ``config.json`` appends each resume's command
under ``resumes``.

Evaluation (every ``eval_every`` iterations, the first and the last): the
network with its play-time search (``play_simulations``) and, with
``eval_policy``, its greedy policy alone, against each of ``eval_opponents`` in
games played in lockstep, seats rotated (a draw is half a win): ``eval_games``, or by
default one per 4,096 planned samples between 8 and 64.
Wall time counts everything but evaluations; ``time_budget_s`` bounds it.

``--device cuda`` (or ``auto`` on a machine with a GPU) puts the learner and the network calls of
self-play and of the evaluations on the GPU: the search batches the leaves of all ``num_games`` games
in lockstep into one call, so more games in lockstep make fuller GPU batches. The games and the
search trees stay on the CPU. With ``--ray-actors N`` each actor's network runs on a GPU too (Ray
gives each an equal share of one: 1/N of the only GPU) and its search on its own CPU core: on a
machine with many cores and one GPU, the searches, which bound one worker's self-play there, run
side by side (measured on a lent machine with 16 cores and an H200, Octrix, 512 games per actor: 14
actors gave 6.4 times one process's self-play decisions on the GPU and 5.9 times on the CPU; the
cores, not the GPU, carry self-play: ``docs/benchmarks.md``).
``octagames.experiments.bench_az`` measures self-play's and the learner's samples per second on
each device side by side.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from octagames import catalogue
from octagames.agents.arena import wilson_interval
from octagames.agents.search.mcts import compiled_value
from octagames.agents.search.rollouts import check_game
from octagames.agents.learn.ppo import check_activation
from octagames.agents.learn.az import (PolicyValueNet, SearchConfig, action_block, action_rows, check_simulations,
                                      load_model, model_dict, save_model, widen_input, zoo_path)
from octagames.core import Game
from octagames.agents.learn import imitation
from octagames.agents.learn.imitation import (TeacherData, ValuesSoFar, children, observations, rollout_outcomes,
                                              teacher_labels)
from octagames.agents.learn.az_selfplay import (Learner, ReplayBuffer, SelfPlayWorker, Trajectories, WorkerConfig,
                                                play_games)
from octagames.experiments.cli import check_hidden, parse_config, script
from octagames.experiments import trainer

#: metric columns that depend on the clock (left out when comparing runs)
TIME_COLUMNS = ("wall_time", "decisions_per_s", "eval_seconds", "imitation_seconds")


@dataclass(frozen=True)
class TrainConfig(trainer.RunConfig):
    """Search-and-learning training (every field is a flag; the game, run and evaluation fields are RunConfig's)."""

    KIND: ClassVar[str] = "az"
    EVAL_GAMES: ClassVar[tuple[int, int, int]] = (8, 64, 4096)  # per opponent: floor, cap, planned samples per game
    #: a resume may also extend the iterations
    RESUMABLE: ClassVar[tuple[str, ...]] = (*trainer.RunConfig.RESUMABLE, "iterations")

    iterations: int = 1000
    """self-play + learning iterations (0: the warm start alone, then the evaluation)"""
    # -- network ---------------------------------------------------------------------
    init_model: str = ""
    """a model file or ``zoo:<name>`` whose network starts the run (its shape replaces hidden, head, activation)"""
    widen_init_model: float = -1.0
    """for an init_model that reads a shorter observation than the game's (blocks added since): -1 keeps
    reading its prefix; >= 0 widens its first layer to the whole observation, the new weights drawn
    N(0, this) (0: it starts computing what it did)"""
    hidden: tuple[int, ...] = (256, 256)
    """trunk widths (the first layer reads the sparse observation)"""
    head: int = 0
    """hidden width of the policy and value heads (0: linear heads)"""
    activation: str = "relu"
    """relu or tanh"""
    action_features: bool = False
    """a per-action policy term over what each action does: the observation block indexed by action
    (Achten's lookahead) or the facts of the cards each action moves (Octa's facts); refused for a game
    with neither"""
    # -- learner ---------------------------------------------------------------------
    learning_rate: float = 1e-3
    """AdamW learning rate"""
    final_learning_rate: float = 0.0
    """when > 0, the rate decays geometrically to it over the iterations (or the time budget)"""
    weight_decay: float = 1e-4
    """AdamW weight decay"""
    batch_size: int = 256
    """samples per gradient step"""
    replay_ratio: float = 4.0
    """gradient steps per iteration = replay_ratio * new samples / batch_size"""
    buffer_size: int = 100_000
    """samples kept in the replay buffer"""
    value_weight: float = 1.0
    """weight of the value loss"""
    # -- self-play ---------------------------------------------------------------------
    num_games: int = 128
    """games played in lockstep by the worker"""
    samples_per_iteration: int = 2048
    """samples of finished games per iteration"""
    simulations: int = 32
    """simulations per searched decision in self-play"""
    leaves_per_game: int = 1
    """leaves per game per network call in self-play (virtual loss)"""
    c_puct: float | None = None
    """PUCT constant (None: the game's default)"""
    dirichlet_alpha: float = 0.3
    """root noise concentration per action (0: none)"""
    dirichlet_frac: float = 0.25
    """share of the root prior replaced by noise"""
    temperature: float = 1.0
    """moves sampled from visits ** (1 / temperature) ..."""
    temperature_moves: int = 8
    """... for this many searched decisions of each seat per game, then the most visited"""
    objective: str = "win"
    """value targets and finished games in the search: win (1 / 0.5 / 0) or score (returns rescaled)"""
    value_target_mix: float = 0.0
    """weight of the game's compiled leaf value of each sample's position in its value target (Achten,
    Octiles; 0: the outcome alone): the network learns the hand-written value, so that a search without
    it (net:<variant>) keeps what it knew"""
    leaf_value_mix: float = 0.0
    """weight of the game's compiled leaf value in the search's leaf values (Achten, Octiles; 0: the network's)"""
    prior_hint: str = ""
    """agent spec mixed into the search's priors at every leaf, e.g. heuristic ("": none)"""
    prior_hint_weight: float = 0.5
    """the hint's share of the priors"""
    policy_width: int = 32
    """largest entries of each visit distribution kept per sample"""
    self_play_prob: float = 0.6
    """share of self-play games"""
    agent_prob: float = 0.2
    """share of games against opponent_agent (the rest: against past snapshots)"""
    opponent_agent: str = "heuristic"
    """registry spec of the agent opponent in training games"""
    snapshot_every: int = 5
    """iterations between snapshots added to the pool"""
    pool_size: int = 8
    """most snapshots kept"""
    # -- expert iteration ------------------------------------------------------------------
    expert: str = ""
    """registry spec of the expert whose self-play decisions make the policy targets, e.g. zoo:octa-en, or
    learner:<worlds> (belief rollouts with the trained network for the seat's later moves: Achten) ("": the
    network's search); the target: a search's (mcts, zoo tree search) visit shares over all its visited
    moves; rollouts' (rollout, belief, zoo:octa-en, zoo:achten-dealer-pays, learner:) per-move values, never
    a network's vote; a policy's (ppo, cfr) probabilities; else one-hot on its choice"""
    expert_iterations: int = 0
    """iterations the expert plays (0: every one); then the network's own search"""
    expert_temperature: float = 0.0
    """for a rollout expert (per-move values, whether or not a network's search votes in): 0 one-hot on
    its choice, else softmax(values / T)"""
    # -- warm start (the other imitation_* fields are RunConfig's) -----------------------------
    imitation_steps: int = 2000
    """gradient steps on the teacher's decisions"""
    imitation_target: str = "teacher"
    """the warm start's policy target: teacher (one-hot on its move) or prior (the starting network's own
    priors: an init_model keeps its policy while, with value_target_mix 1, it learns the compiled value)"""
    imitation_children: int = 0
    """also store up to this many children of each teacher decision (distinct random legal moves, chance
    played), the positions a search meets one move on, labelled as the policy target says: the teacher's
    choice there, or the init_model's priors; their value target is the outcome of their parent's game
    (which went on by another move) unless imitation_value_worlds plays each on (or value_target_mix=1)"""
    imitation_final_learning_rate: float = 0.0
    """when > 0, the warm start's rate falls linearly from learning_rate to it over imitation_steps"""
    imitation_value_worlds: int = 0
    """when > 0, each teacher decision's value target is its seat's mean win over this many uniform
    determinizations played on from the teacher's move by the compiled heuristic (2 players), not the
    game's one outcome: a value with less noise for the search to read"""
    # -- evaluation and checkpoints ----------------------------------------------------------
    play_simulations: int = 64
    """simulations of the saved model's play-time search (and of the evaluations)"""
    play_leaves_per_game: int = 1
    """leaves per network call of the play-time search"""
    eval_opponents: tuple[str, ...] = ("heuristic",)
    """agent specs; those that do not fit the game are skipped, a name that is no agent is refused"""
    eval_policy: bool = True
    """also evaluate the greedy policy without search"""

    def __post_init__(self) -> None:
        if self.iterations < 0:
            raise ValueError(f"iterations={self.iterations} is not valid; it must be >= 0")
        # the network's shape, when the flags are read: the trainer builds the network after claiming the run folder
        if self.head < 0:
            raise ValueError(f"head={self.head} is not valid; give 0 (linear policy and value heads) or the width "
                             "of their hidden layer, >= 1")
        check_hidden(self.hidden)
        check_activation(self.activation)
        for name in ("batch_size", "buffer_size", "num_games", "samples_per_iteration",
                     "snapshot_every", "pool_size", "policy_width", "play_leaves_per_game"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        for name in ("simulations", "play_simulations"):
            check_simulations(name, getattr(self, name))
        if not 0.0 <= self.value_target_mix <= 1.0:
            raise ValueError(f"value_target_mix={self.value_target_mix} is not valid; it must be in [0, 1]")
        if self.value_target_mix and compiled_value(self.make_game()) is None:
            valued = [g for g in catalogue.games() if (catalogue.game_spec(g).mcts_evaluator or ("",))[0] == "value"]
            raise ValueError(f"value_target_mix={self.value_target_mix} is not valid for {self.game}: the game has no "
                             f"compiled leaf value (games with one: {', '.join(valued)}); set 0")
        if self.imitation_target not in ("teacher", "prior"):
            raise ValueError(f"imitation_target={self.imitation_target!r} is not valid; valid values: teacher, prior")
        if self.imitation_target == "prior" and not self.init_model:
            raise ValueError("imitation_target='prior' needs an init_model whose priors are the targets "
                             "(--init-model <model file or zoo:name>)")
        if self.imitation_children < 0:
            raise ValueError(f"imitation_children={self.imitation_children} is not valid; it must be >= 0")
        if self.imitation_value_worlds < 0:
            raise ValueError(f"imitation_value_worlds={self.imitation_value_worlds} is not valid; "
                             "it must be >= 0")
        if worlds := self.imitation_value_worlds:
            game = self.make_game()
            check_game(game, f"the rollout value targets of imitation_value_worlds={worlds}")
            if game.num_players != 2:
                raise ValueError(f"imitation_value_worlds={worlds} needs 2 players; this run has "
                                 f"{game.num_players} (the playouts tell only the deciding seat's win)")
        if self.imitation_final_learning_rate < 0:
            raise ValueError(f"imitation_final_learning_rate={self.imitation_final_learning_rate} is not valid; "
                             "it must be >= 0")
        if not math.isfinite(self.widen_init_model) or (self.widen_init_model < 0 and self.widen_init_model != -1):
            raise ValueError(f"widen_init_model={self.widen_init_model} is not valid; give -1 (no widening) "
                             "or a standard deviation >= 0")
        if self.widen_init_model >= 0 and not self.init_model:
            raise ValueError(f"widen_init_model={self.widen_init_model} needs an init_model to widen")
        # NaN passed "<= 0" checks and failed later (or ran on silently); a rate of 0 divided by zero in its decay
        for name in ("replay_ratio", "learning_rate"):
            if not math.isfinite(getattr(self, name)) or getattr(self, name) <= 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be a finite number > 0")
        for name in ("final_learning_rate", "value_weight", "dirichlet_alpha", "weight_decay", "temperature",
                     "expert_temperature", "imitation_final_learning_rate"):
            if not math.isfinite(getattr(self, name)) or getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be a finite number >= 0")
        if self.c_puct is not None and not (math.isfinite(self.c_puct) and self.c_puct > 0):
            raise ValueError(f"c_puct={self.c_puct} is not valid; it must be a finite number > 0, or None (the "
                             "game's default)")
        if self.expert_iterations < 0:
            raise ValueError(f"expert_iterations={self.expert_iterations} is not valid; it must be >= 0")
        if self.expert_iterations and not self.expert:
            raise ValueError(f"expert_iterations={self.expert_iterations} needs an expert (--expert <agent spec>)")
        if self.expert_iterations and self.ray_actors:
            raise ValueError(f"expert_iterations={self.expert_iterations} is not available with ray_actors="
                             f"{self.ray_actors}: the Ray actors keep the expert for the whole run (set 0)")
        self.search()  # bad search fields fail here
        self.play_search()  # (the play-time search was first built at the first evaluation, after the warm start)
        self.worker()
        super().__post_init__()

    def planned_work(self) -> int:
        """The samples the run plans: what the automatic evaluation games scale with."""
        return self.iterations * self.samples_per_iteration

    def schedule_budget(self) -> dict[str, str]:
        """With ``final_learning_rate`` the rate decays over the iterations, or over the time budget when there
        is one: a resume may not change what it decays over."""
        if self.final_learning_rate <= 0:
            return {}
        why = ("with --final-learning-rate the learning rate decays over the time budget when one is set, "
               "else over the iterations")
        return {"time_budget_s": why} if self.time_budget_s > 0 else {"iterations": why, "time_budget_s": why}

    def search(self) -> SearchConfig:
        """The self-play search."""
        return SearchConfig(simulations=self.simulations, leaves_per_game=self.leaves_per_game, c_puct=self.c_puct,
                            dirichlet_alpha=self.dirichlet_alpha, dirichlet_frac=self.dirichlet_frac,
                            objective=self.objective, leaf_value_mix=self.leaf_value_mix,
                            prior_hint=self.prior_hint, prior_hint_weight=self.prior_hint_weight)

    def play_search(self) -> SearchConfig:
        """The play-time search stored with the model (no noise)."""
        return dataclasses.replace(self.search(), simulations=self.play_simulations,
                                   leaves_per_game=self.play_leaves_per_game, dirichlet_alpha=0.0)

    def worker(self) -> WorkerConfig:
        """What the self-play worker plays."""
        return WorkerConfig(num_games=self.num_games, search=self.search(), temperature=self.temperature,
                            temperature_moves=self.temperature_moves, self_play_prob=self.self_play_prob,
                            agent_prob=self.agent_prob, opponent_agent=self.opponent_agent,
                            policy_width=self.policy_width, expert=self.expert,
                            expert_temperature=self.expert_temperature)

    def expert_plays(self, iteration: int) -> bool:
        """Whether the expert makes the self-play decisions of iteration ``iteration`` (counted from 0)."""
        return bool(self.expert) and (self.expert_iterations == 0 or iteration < self.expert_iterations)


def teacher_trajectories(data: Any, policy_width: int) -> Trajectories:
    """Teacher decisions as replay samples: a one-hot target on the teacher's action."""
    n = len(data)
    pol_idx = np.zeros((n, policy_width), np.int32)
    pol_p = np.zeros((n, policy_width), np.float32)
    pol_idx[:, 0] = data.actions
    pol_p[:, 0] = 1.0
    return Trajectories(data.records, data.seats, pol_idx, pol_p, data.outcomes, {"games": data.games})


WARM_START_POINTS = 100
"""Points of the warm start's curves (``warm_start.json``/``.png``): each the mean of its window of steps."""
WARM_START_COLUMNS = ("policy_loss", "value_loss", "value_mse", "kl", "entropy")
"""The learner's statistics the warm start's curves hold."""


def plot_warm_start(rows: list[dict[str, float]], path: Path, title: str) -> Path:
    """``warm_start.png``: the warm start's losses (mean of each window of steps) and learning rate over its steps."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, keys, label in ((axes[0], ("policy_loss", "kl", "entropy"), "policy (nats)"),
                            (axes[1], ("value_mse",), "value mean squared error ([0, 1] targets)"),
                            (axes[2], ("learning_rate",), "learning rate")):
        for k in keys:
            ax.plot(steps, [r[k] for r in rows], label=k)
        ax.set_xlabel("gradient steps")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        if len(keys) > 1:
            ax.legend(loc="upper right")
    axes[1].set_yscale("log")
    return trainer.save_figure(fig, path, title)


def decision_children(game: Game, data: TeacherData, per_decision: int,
                      seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(records, seats, outcomes)`` of up to ``per_decision`` children of each teacher decision
    (:func:`octagames.agents.learn.imitation.children`), each with its game's outcome counted from its own
    acting seat."""
    recs, seats, parent = children(game, data.records, per_decision, seed)
    P = game.num_players
    shift = (seats - data.seats[parent]) % P  # the child's seat counted from its parent's
    order = (shift[:, None] + np.arange(P)[None, :]) % P
    return recs, seats, np.take_along_axis(data.outcomes[parent], order, axis=1)


def prior_trajectories(net: PolicyValueNet, game: Game, records: np.ndarray, seats: np.ndarray,
                       outcomes: np.ndarray, policy_width: int, games: int, chunk: int = 4096) -> Trajectories:
    """Replay samples whose policy target is ``net``'s own priors (its ``policy_width`` largest,
    renormalised) and whose value target is ``outcomes``: a network keeps its policy while it learns a value."""
    n = len(seats)
    width = min(policy_width, game.num_actions)
    pol_idx = np.zeros((n, policy_width), np.int32)
    pol_p = np.zeros((n, policy_width), np.float32)
    device = next(net.parameters()).device
    for a in range(0, n, chunk):
        obs, masks = observations(game, records[a:a + chunk], seats[a:a + chunk])
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs).to(device))
            prior = torch.softmax(logits.masked_fill(~torch.from_numpy(masks).to(device), -1e9), -1)
            p, i = prior.topk(width, dim=-1)
        pol_idx[a:a + chunk, :width] = i.cpu().numpy()
        pol_p[a:a + chunk, :width] = (p / p.sum(-1, keepdim=True)).cpu().numpy()
    return Trajectories(records, np.asarray(seats, np.int64), pol_idx, pol_p, np.asarray(outcomes, np.float32),
                        {"games": games})


class Trainer(trainer.Trainer):
    """A search-and-learning run: the learner, the replay buffer, the self-play worker(s), the
    snapshot pool; the loop is the skeleton's."""

    FORMAT = "octagames-az-checkpoint-2"
    COUNTERS = ("iteration", "samples", "decisions", "games", "grad_steps")
    SPEED = ("decisions_per_s", "decisions")
    OUTPUTS = trainer.TRAINER_OUTPUTS["train_az"]
    PLOT = {"x": ("samples", "samples"), "losses": ("policy_loss", "value_loss", "entropy"),
            "rate_keys": ("win_rate_vs_{}", "win_rate_policy_vs_{}")}
    MODULE = "octagames.experiments.train_az"

    cfg: TrainConfig

    def _setup(self) -> None:
        # built inside the skeleton's setup: a setting refused here gives the run folder's lock back, and the
        # folder too where this run made it empty
        super()._setup()
        cfg = self.cfg
        if cfg.agent_prob > 0:  # self-play builds it at its first game against it: deep in the run
            self.check_agent("opponent_agent")
        self.rng = np.random.default_rng(cfg.seed)
        g = self.game
        self.prior_net: PolicyValueNet | None = None
        if cfg.init_model:
            path = zoo_path(cfg.init_model[4:]) if cfg.init_model.startswith("zoo:") else cfg.init_model
            net, _ = load_model(path, g)
            self.prior_net = net  # the warm start's policy targets with imitation_target prior
            if cfg.widen_init_model >= 0 and net.spec["obs_size"] < g.observation_size:
                net = widen_input(net, g.observation_size, cfg.widen_init_model, seed=cfg.seed)
        else:
            block = action_block(g) if cfg.action_features else None
            rows = action_rows(g) if cfg.action_features and block is None else None
            if cfg.action_features and block is None and rows is None:
                fit = [n for n in catalogue.games() if action_block(Game(n)) or action_rows(Game(n))]
                raise ValueError(f"action_features: the observation of {g.name} says nothing per action (no "
                                 f"block indexed by action, no facts per card); games with one: {fit}")
            net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, cfg.hidden, cfg.head,
                                 cfg.activation, block, rows)
        self.learner = Learner(net.to(self.device), cfg.learning_rate, cfg.weight_decay, cfg.value_weight)
        self.buffer = ReplayBuffer(g, cfg.buffer_size, cfg.policy_width, value_mix=cfg.value_target_mix)
        seed = cfg.seed * 7919 + 1
        if cfg.ray_actors > 0:  # the same worker in Ray actors; actor 0 has this seed
            from octagames.agents.learn.distributed import SelfPlayActors
            self.worker = SelfPlayActors(cfg.ray_actors, self.game_name, self.game_config, cfg.worker(), net.spec,
                                         seed, address=cfg.ray_address or None,
                                         torch_threads=max(1, cfg.torch_threads), device=str(self.device))
        else:
            self.worker = SelfPlayWorker(self.game_name, self.game_config, cfg.worker(), net.spec, seed=seed,
                                         device=self.device)
        self.pool: dict[int, dict[str, torch.Tensor]] = {}
        self.next_snapshot = 0
        self.best = (-1.0, -1)  # best evaluated win rate against the first opponent, and its iteration

    @property
    def total(self) -> int:
        """Iterations the run plans."""
        return self.cfg.iterations

    # -- evaluation -------------------------------------------------------------------
    def play_evaluation(self, spec: str, games: int, seed: int) -> dict[str, float]:
        """The network with its play-time search (and, with ``eval_policy``, alone) against ``spec``;
        win rates and their Wilson intervals."""
        cfg = self.cfg
        search = cfg.play_search()
        modes = [("", search)] + ([("policy_", dataclasses.replace(search, simulations=0))] if cfg.eval_policy else [])
        out: dict[str, float] = {}
        for prefix, s in modes:
            if prefix == "" and s.simulations == 0:
                continue
            res = play_games(self.game_name, self.game_config, self.learner.weights(), self.learner.net.spec, s,
                             spec, games, seed=seed, device=self.device)
            lo, hi = wilson_interval(res["wins"] + 0.5 * res["draws"], res["games"])
            out[f"win_rate_{prefix}vs_{spec}"] = res["score"]
            out[f"ci_low_{prefix}vs_{spec}"] = lo
            out[f"ci_high_{prefix}vs_{spec}"] = hi
        return out

    def evaluated(self) -> None:
        """Write ``model-best.pt`` when the last evaluation beat every earlier one against the first
        evaluation opponent (with the play-time search)."""
        if not self.eval_agents:
            return
        score = self.last_eval.get(f"win_rate_vs_{self.eval_agents[0]}")
        if score is None or score <= self.best[0]:
            return
        self.best = (float(score), self.count["iteration"])
        self._save(self.run_dir / "model-best.pt", best_of=f"win_rate_vs_{self.eval_agents[0]}")

    # -- warm start -------------------------------------------------------------------------
    def warm_start(self) -> dict[str, float]:
        """Teacher games into the buffer (with ``imitation_children``, their decisions' children too), then
        ``imitation_steps`` gradient steps on them."""
        cfg = self.cfg
        data = self.teacher_data()
        if cfg.imitation_children and cfg.imitation_target == "teacher":
            seed = cfg.seed * 7907 + 3
            recs, seats, outcomes = decision_children(self.game, data, cfg.imitation_children, seed)
            # what a save keeps: all the labels, else whole blocks of several workers (one worker's agents carry
            # state from position to position: it labels them all again, from the RNGs of their start)
            B, blocks = imitation.DECISION_BLOCK, cfg.imitation_workers > 1 and len(seats) > imitation.DECISION_BLOCK
            at_start = self.warm_rng[-1] if self.warm_rng else trainer.rng_state()  # (restored before the labels)

            def kept(labels: np.ndarray) -> int:
                return len(labels) if len(labels) == len(seats) else len(labels) - len(labels) % B if blocks else 0

            def save(labels: np.ndarray) -> tuple[Any, ...]:
                keep = kept(labels)
                return (self.warm_games, {"labels": labels[:keep]}) if keep else (self.warm_games, {}, at_start)

            if (saved := self.warm_stage("labels")) is not None:
                self.say(f"  going on from {len(saved)} of {len(seats)} children's labels")
            actions = teacher_labels(self.game, cfg.imitation_teacher, recs, seats, seed, cfg.imitation_workers,
                                     cfg.progress, done=saved, checkpoint=self.warm_checkpoint(save),
                                     before_play=self.restore_warm_rng)
            if len(actions) < len(seats):
                raise trainer.WarmStartStopped(f"in its children's labels, after {len(actions)} of {len(seats)}"
                                               + (f" ({kept(actions)} kept)" if kept(actions) else
                                                  " (--resume labels them again)"))
            kids = TeacherData(recs, seats, actions, outcomes, 0)
            self.warm_stages["labels"] = kids.actions  # saved with the rollout values and the steps below
            data = TeacherData.concatenate([data, kids])
        if cfg.imitation_value_worlds:
            saved = self.warm_stage("values")
            if saved is None or len(saved["values"]) < len(data):  # the values go on here, from the RNGs saved
                self.restore_warm_rng()
            if saved is not None and len(saved["values"]) < len(data):
                self.say(f"  going on from {len(saved['values'])} of {len(data)} decisions' rollout values")
            values = rollout_outcomes(
                self.game, data, cfg.imitation_value_worlds, seed=cfg.seed * 7901 + 5, progress=cfg.progress,
                workers=cfg.imitation_workers, done=None if saved is None else ValuesSoFar(**saved),
                checkpoint=self.warm_checkpoint(lambda so_far: (self.warm_games, {**self.warm_stages, "values": {
                    "values": so_far.values, "rng_state": so_far.rng_state}})))
            if len(values) < len(data):
                raise trainer.WarmStartStopped(f"in its rollout values, after {len(values)} of {len(data)} "
                                               "decisions")
            data.outcomes = values
            self.warm_stages["values"] = {"values": values, "rng_state": None}  # saved with the steps below
        if self.warm_stage("steps") is None:  # stopped at the end of the values: the steps go on from the RNGs saved
            self.restore_warm_rng()
        if cfg.imitation_target == "prior":
            recs, seats, outcomes = data.records, data.seats, data.outcomes
            if cfg.imitation_children:
                kids = decision_children(self.game, data, cfg.imitation_children, seed=cfg.seed * 7907 + 3)
                recs, seats, outcomes = (np.concatenate([a, b]) for a, b in zip((recs, seats, outcomes), kids))
            traj = prior_trajectories(self.prior_net, self.game, recs, seats, outcomes, cfg.policy_width,
                                      data.games)
        else:
            traj = teacher_trajectories(data, cfg.policy_width)
        self.buffer.add(traj)
        self.say(f"  warm start: {len(traj)} samples from {data.games} teacher games "
                 f"({self.warm_seconds():.0f} s); {cfg.imitation_steps} steps")
        stats: dict[str, float] = {}
        window: dict[str, float] = {}
        every = max(1, cfg.imitation_steps // WARM_START_POINTS)
        rows: list[dict[str, float]] = []
        first = 0
        if (saved := self.warm_stage("steps")) is not None:  # stopped in these steps: the learner as it was then
            first, rows, window, stats = saved["step"], list(saved["rows"]), dict(saved["window"]), dict(saved["stats"])
            self.learner.net.load_state_dict(saved["net"])
            self.learner.optimizer.load_state_dict(saved["optimizer"])
            self.rng.bit_generator.state = saved["rng"]
            self.say(f"  going on from step {first} of {cfg.imitation_steps}")
            self.restore_warm_rng()
        checkpoint = self.warm_checkpoint(lambda so_far: (self.warm_games, {**self.warm_stages, "steps": so_far}))
        for step in range(first, cfg.imitation_steps):
            lr = cfg.learning_rate
            if cfg.imitation_final_learning_rate > 0:
                frac = step / max(1, cfg.imitation_steps - 1)
                lr += (cfg.imitation_final_learning_rate - cfg.learning_rate) * frac
                self.learner.set_learning_rate(lr)
            idx = self.rng.integers(len(self.buffer), size=cfg.batch_size)
            stats = self.learner.step(self.buffer.batch(idx, self.device))
            for k in WARM_START_COLUMNS:
                window[k] = window.get(k, 0.0) + stats[k]
            if (step + 1) % every == 0 or step + 1 == cfg.imitation_steps:
                n = every if (step + 1) % every == 0 else (step + 1) % every
                rows.append({"step": step + 1, "seconds": self.warm_seconds(), "learning_rate": lr,
                             **{k: v / n for k, v in window.items()}})
                window = {}
                if len(rows) % (WARM_START_POINTS // 10) == 0:
                    self.say(f"  warm start: step {step + 1}/{cfg.imitation_steps}, policy loss "
                             f"{rows[-1]['policy_loss']:.3f}, value mse {rows[-1]['value_mse']:.4f} "
                             f"({rows[-1]['seconds']:.0f} s)")
            if checkpoint is not None and step + 1 < cfg.imitation_steps and checkpoint(step + 1, lambda: {
                    "step": step + 1, "net": self.learner.net.state_dict(),
                    "optimizer": self.learner.optimizer.state_dict(), "rng": self.rng.bit_generator.state,
                    "rows": rows, "window": window, "stats": stats}):
                raise trainer.WarmStartStopped(f"in its gradient steps, after {step + 1} of {cfg.imitation_steps}")
        self.learner.set_learning_rate(cfg.learning_rate)
        if rows:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            (self.run_dir / "warm_start.json").write_text(json.dumps({"rows": rows}, indent=1))
            plot_warm_start(rows, self.run_dir / "warm_start.png",
                            f"warm start, {self.describe()} (seed {cfg.seed}): {len(traj)} samples")
        self.count["grad_steps"] += cfg.imitation_steps
        return {**stats, "imitation_samples": len(traj), "imitation_seconds": self.warm_seconds()}

    # -- one iteration -----------------------------------------------------------------------
    def learning_rate(self) -> float:
        """The rate of this iteration (geometric decay to ``final_learning_rate`` when set)."""
        cfg = self.cfg
        if cfg.final_learning_rate <= 0:
            return cfg.learning_rate
        if cfg.time_budget_s > 0:
            frac = min(1.0, self.wall_time / cfg.time_budget_s)
        else:
            frac = self.count["iteration"] / max(1, cfg.iterations)
        return cfg.learning_rate * (cfg.final_learning_rate / cfg.learning_rate) ** frac

    def step(self) -> dict[str, Any]:
        """Self-play with the current weights, learning on the buffer (and a snapshot every
        ``snapshot_every``); the row's statistics."""
        cfg, count = self.cfg, self.count
        if cfg.expert and not cfg.ray_actors:
            self.worker.use_expert(cfg.expert_plays(count["iteration"]))
        self.worker.set_weights(self.learner.weights(), self.pool)
        traj = self.worker.play(min_samples=cfg.samples_per_iteration)
        self.buffer.add(traj)
        lr = self.learning_rate()
        self.learner.set_learning_rate(lr)
        steps = max(1, math.ceil(cfg.replay_ratio * len(traj) / cfg.batch_size))
        totals: dict[str, float] = {}
        for _ in range(steps):
            idx = self.rng.integers(len(self.buffer), size=cfg.batch_size)
            for k, v in self.learner.step(self.buffer.batch(idx, self.device)).items():
                totals[k] = totals.get(k, 0.0) + v
        st = traj.stats
        row: dict[str, Any] = {k: v / steps for k, v in totals.items()}
        row.update(learning_rate=lr, new_samples=len(traj), grad_steps_iteration=steps,
                   policy_lag=getattr(self.worker, "last_lag", 0),
                   games_self=st.get("games_self", 0), games_agent=st.get("games_agent", 0),
                   games_snapshot=st.get("games_snapshot", 0), expert_decisions=st.get("expert_decisions", 0))
        for kind in ("agent", "snapshot"):
            if st.get(f"games_{kind}", 0):
                row[f"train_score_vs_{kind}"] = st[f"score_{kind}"] / st[f"games_{kind}"]
        count["iteration"] += 1
        count["samples"] += len(traj)
        count["decisions"] += int(st.get("decisions", 0))
        count["games"] += int(st.get("games", 0))
        count["grad_steps"] += steps
        if count["iteration"] % cfg.snapshot_every == 0:
            self.pool[self.next_snapshot] = self.learner.weights()
            self.next_snapshot += 1
            while len(self.pool) > cfg.pool_size:
                del self.pool[min(self.pool)]
        return row

    def row_extra(self) -> dict[str, Any]:
        """The replay buffer's and the pool's sizes."""
        return {"buffer": len(self.buffer), "pool_size": len(self.pool)}

    # -- checkpoints --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The model, optimizer, replay buffer, worker, snapshot pool, the trainer's RNG and the best evaluation."""
        return {"model": model_dict(self.learner.net, self.game, self.cfg.play_search()),
                "optimizer": self.learner.optimizer.state_dict(), "buffer": self.buffer.state_dict(),
                "worker": self.worker.state_dict(), "pool": self.pool, "next_snapshot": self.next_snapshot,
                "numpy": self.rng.bit_generator.state, "best": self.best}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        self.learner.net.load_state_dict(d["model"]["state_dict"])
        self.learner.optimizer.load_state_dict(d["optimizer"])
        self.buffer.load_state_dict(d["buffer"])
        self.worker.load_state_dict(d["worker"])
        self.pool, self.next_snapshot = dict(d["pool"]), int(d["next_snapshot"])
        self.rng.bit_generator.state = d["numpy"]
        self.best = tuple(d["best"])

    def _save(self, path: Path, **meta: Any) -> Path:
        """A model file: the network and its play-time search, with what it was trained by."""
        meta = {"config": dataclasses.asdict(self.cfg), "iteration": self.count["iteration"],
                "wall_time": self.wall_time, "machine": trainer.machine(self.device), "last_eval": self.last_eval,
                **meta}
        return save_model(self.learner.net, path, self.game, self.cfg.play_search(), meta)

    def save_model(self) -> Path:
        """``model.pt``: the network and its play-time search, with what it was trained by."""
        return self._save(self.run_dir / "model.pt")

    def columns(self) -> list[str]:
        """The CSV columns after the counters."""
        cols = ["decisions_per_s", "learning_rate", "loss", "policy_loss", "value_loss", "entropy", "kl", "value_mse",
                "new_samples", "grad_steps_iteration", "policy_lag", "buffer", "pool_size", "games_self",
                "games_agent", "games_snapshot", "expert_decisions", "train_score_vs_agent", "train_score_vs_snapshot",
                "imitation_samples", "imitation_seconds"]
        for spec in self.eval_agents:
            for prefix in ("", "policy_"):
                cols += [f"win_rate_{prefix}vs_{spec}", f"ci_low_{prefix}vs_{spec}", f"ci_high_{prefix}vs_{spec}"]
        return cols + ["eval_seconds"]


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Train (or resume) a run; returns paths, metric rows and the final evaluation."""
    tr = Trainer(cfg)
    return {**tr.run(), "model": str(tr.run_dir / "model.pt")}


def main(cfg: TrainConfig) -> dict[str, Any]:
    """Command-line entry: train and print the final evaluation."""
    result = train(cfg)

    def lines(result: dict[str, Any]) -> list[str]:
        last, final = result["rows"][-1], result["final_eval"]
        return [f"iterations: {last['iteration']}, samples: {last['samples']}, games: {last['games']}, "
                f"wall time: {last['wall_time']:.1f}s",
                *(f"{'policy' if k.startswith('win_rate_policy') else 'search'} vs {k.split('vs_', 1)[1]}: {v:.3f} "
                  f"[{final[k.replace('win_rate', 'ci_low')]:.3f}, {final[k.replace('win_rate', 'ci_high')]:.3f}]"
                  for k, v in final.items() if k.startswith("win_rate"))]

    trainer.print_result(result, lines)
    return result


@script
def cli() -> None:
    """Command-line entry point (``octagames-train-az``, or ``python -m octagames.experiments.train_az``)."""
    trainer.exit_if_stopped(main(parse_config(TrainConfig)))


if __name__ == "__main__":
    cli()
