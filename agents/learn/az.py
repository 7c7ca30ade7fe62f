"""Search and learning together (AlphaZero / expert iteration): the network, the batched search, the agent.

    >>> from octagames.agents.registry import make_agent
    >>> agent = make_agent("zoo:octrix", "octrix")          # the shipped model of the variant octrix
    >>> agent = make_agent("az:runs/az/octrix/model.pt:200", "octrix")   # a run's model, 200 simulations
    >>> agent = make_agent("net:octa-en", "octa-en")      # its network alone guides and values the search
    >>> agent = make_agent("net:octa-en:0", "octa-en")    # the network's policy alone, one forward pass

The pieces, each importable on its own (the trainer is ``experiments/train_az.py``,
the self-play worker and the replay buffer ``agents/learn/az_selfplay.py``):

* :class:`PolicyValueNet`: one MLP trunk over the acting seat's observation
  (its first layer takes the sparse path of :class:`~octagames.agents.learn.ppo.SparseInputLinear`
  on CPU), a policy head (masked logits) and a value head with **one output per
  seat**, seats counted from the acting one: ``values[:, j]`` is the
  probability-like value in [0, 1] of seat ``(acting + j) % P``, so 3 and 4
  player games need no zero-sum assumption.
* :func:`az_loss`: cross-entropy against the search's visit distribution plus
  binary cross-entropy of every seat's value against the game's outcome.
* :class:`BatchedSearch`: PUCT search of ``B`` games in lockstep with the
  compiled kernels of :mod:`octagames.agents.search.mcts` (``descend_many`` /
  ``backup_many``): every wave descends once (or ``leaves_per_game`` times,
  with a virtual loss) in every tree in compiled code, the network evaluates
  all the leaves in one call, and compiled back-ups follow. Hidden information
  is handled as in :class:`~octagames.agents.search.mcts.MCTS` (a fresh determinization
  for the searcher per descent: single-observer IS-MCTS), simultaneous steps
  decoupled. One game searched here visits exactly like ``MCTS`` with a
  :class:`~octagames.agents.search.mcts.PolicyValue` evaluator on the same seeds.
* :class:`AZAgent`: a network plus search behind the agent interface;
  ``simulations=0`` plays the network's greedy policy (a model file loaded with 0 simulations,
  ``zoo:<variant>:0``, also drops its recorded rollouts, believed worlds, hint and compiled leaf
  value: :func:`network_only`), or, where the model file carries a learned policy to play alone
  (``learned_policy``, :func:`~octagames.agents.search.learned_rollouts.improve`), that policy.
  Forced moves are never searched.
* ``net:<variant>[-<n>p][:<simulations>]``: a zoo model's network alone, guiding and valuing its search
  (or, with ``belief_model="network"``, believing and rolling out; or, where the model file carries a
  learned rollout policy, :mod:`~octagames.agents.search.learned_rollouts`, rolling out by it in the
  heuristic's place) with no hand-written heuristic, leaf value, hint or heuristic's rollout at play time
  (:func:`network_only`).
* Model files (:func:`save_model`, :func:`load_model`) carry the game, every
  field of its config and the network shape, and refuse to load for another game
  or observation size with a sentence, not torch's size-mismatch text; an agent
  refuses to play another config of its game (:mod:`~octagames.agents.model_config`:
  both configs named as variants, and the variant that fits) unless
  ``allow_config_mismatch`` lets it try, with a warning.
* The model zoo (``zoo:<variant>``, ``zoo:<variant>-<n>p`` at another player count than the
  variant's default): the player counts in a catalogue entry's ``zoo`` (:func:`zoo_names`) ship a
  model in ``agents/zoo/<name>.pt`` with a card (the full config, training command, commit, evaluation).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import nn

from octagames import catalogue
from octagames.agents.base import Agent, Turn, considered, considered_rollouts
from octagames.agents.learn.imitation import observations
from octagames.agents.search.mcts import (clear_trees, compiled_value, has_playout_policy, mix_root_noise, new_trees,
                                   playout_kernels, playout_policy, root_stats, search_kernels)
from octagames.agents.model_config import (built_to_fit, check_config, fitting_options, load_model_file,
                                           recorded_config)
from octagames.agents.learn.ppo import (ACTIVATIONS, SparseInputLinear, check_activation, layer_init, masked_logits,
                                        mlp, sparse_entries)
from octagames.agents.registry import make_agent
from octagames.agents.search.learned_rollouts import LearnedRollout, features, has_features
from octagames.agents.search.rollouts import paired_choice, pruned_values
from octagames.core import Game, is_count, mix64

MODEL_FORMAT = "octagames-az-model-1"
ZOO_DIR = Path(__file__).resolve().parent.parent / "zoo"
"""Where ``zoo:<name>`` (``<variant>`` or ``<variant>-<n>p``) finds ``<name>.pt`` and its card ``<name>.json``."""

DEFAULT_C_PUCT = 1.25
"""The PUCT constant when :attr:`SearchConfig.c_puct` is None, for every game. MCTS's per-game
constants (``GameSpec.exploration``) are tuned for UCB1 without priors; with the network's priors
Achten's 0.35 left the search on the prior: 256 simulations of an early Achten model won 0.468
[0.419, 0.516] of 400 games against the heuristic with 0.35, 0.508 [0.459, 0.556] with 1.25 and
0.495 with 2.5 (docs/az.md)."""

Evaluate = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``evaluate(obs[R, D] float32, masks[R, A] uint8, players[R]) -> (priors[R, A], values[R, P])``:
priors sum to 1 over the legal actions, values in [0, 1] per seat counted from ``players[r]``."""


# ----------------------------------------------------------------------------
# Network
# ----------------------------------------------------------------------------
class PolicyValueNet(nn.Module):
    """A shared trunk, a policy head and a per-seat value head.

    Args:
        obs_size: observation length ``D``.
        num_actions: number of actions ``A``.
        num_values: seats ``P`` (one value per seat, counted from the acting seat).
        hidden: trunk widths; the first is the (sparse) input layer, e.g. ``(256, 256)``.
        head: width of the hidden layer of each head (0: linear heads).
        activation: ``"relu"`` or ``"tanh"``.
        action_features: ``(offset, k)`` of an observation block indexed ``[action, k]`` (what each
            action would do, as Achten's ``lookahead``; :func:`action_block`), or None. With it,
            each action's logit gains a term of one small network shared by all actions, fed
            that action's ``k`` entries, the trunk's output and the action's own embedding: the
            policy can rank actions by what they do instead of learning each one apart.
        action_rows: ``{"offset", "rows", "k", "refs"}``: an observation block of ``rows x k`` facts
            from ``offset`` and ``refs[action]``, the rows (-1: none) each action is about (Octa's
            ``facts``; :func:`action_rows`), or None. The same per-action term as ``action_features``
            reads each action's rows side by side (zeros for -1). Give one of the two at most.

    An observation longer than ``obs_size`` (the game grew blocks after the network was trained,
    :attr:`~octagames.core.Game.earlier_observation_sizes`) is read up to ``obs_size``.
    """

    def __init__(self, obs_size: int, num_actions: int, num_values: int, hidden: Sequence[int] = (256, 256),
                 head: int = 0, activation: str = "relu", action_features: Sequence[int] | None = None,
                 action_rows: dict[str, Any] | None = None) -> None:
        super().__init__()
        check_activation(activation)
        if not hidden or min(hidden) < 1:
            raise ValueError(f"hidden={tuple(hidden)!r} is not valid; give at least one positive width")
        self.spec = {"obs_size": int(obs_size), "num_actions": int(num_actions), "num_values": int(num_values),
                     "hidden": [int(h) for h in hidden], "head": int(head), "activation": activation}
        self.first = layer_init(nn.Linear(obs_size, hidden[0]))
        # stored feature by feature (column-major), as ActorCritic does: the sparse first layer reads the
        # weight as [D, H] rows with no transposing copy (a batch of 128 of Achten's observations: 6.6 ms
        # a forward pass with the copy, 4.9 ms without)
        self.first.weight = nn.Parameter(self.first.weight.detach().t().contiguous().t())
        self.act = ACTIVATIONS[activation]()
        self.trunk = mlp(list(hidden), activation, float(np.sqrt(2))) if len(hidden) > 1 else nn.Identity()
        self.trunk_act = ACTIVATIONS[activation]() if len(hidden) > 1 else nn.Identity()
        tail = [head] if head > 0 else []
        self.policy = mlp([hidden[-1], *tail, num_actions], activation, out_std=0.01)
        self.value = mlp([hidden[-1], *tail, num_values], activation, out_std=0.01)
        self.action_features: tuple[int, int] | None = None
        if action_features is not None:
            if len(action_features) != 2:
                raise ValueError(f"action_features={tuple(action_features)!r} is not valid: give (offset, k)")
            offset, k = (int(x) for x in action_features)
            if offset < 0 or k < 1 or offset + num_actions * k > obs_size:
                raise ValueError(f"action_features={tuple(action_features)!r} is not valid: a block of {num_actions} "
                                 f"actions x k >= 1 entries from offset >= 0 must fit {obs_size} observations")
            self.action_features = (offset, k)
            self.spec["action_features"] = [offset, k]
            self._action_term(k, hidden[-1], num_actions)
        self.action_rows: tuple[int, int, int] | None = None
        if action_rows is not None:
            if action_features is not None:
                raise ValueError("action_features and action_rows are both given; give one of them")
            offset, rows, k = (int(action_rows[x]) for x in ("offset", "rows", "k"))
            refs = np.asarray(action_rows["refs"], dtype=np.int64)
            if refs.ndim != 2 or refs.shape[0] != num_actions or offset < 0 or rows < 1 or k < 1 \
                    or offset + rows * k > obs_size or refs.size == 0 or refs.min() < -1 \
                    or refs.max() >= rows:
                raise ValueError(f"action_rows (offset {offset}, {rows} rows x {k}, refs {refs.shape}) is "
                                 f"not valid: a block of rows x k >= 1 entries from offset >= 0 must fit "
                                 f"{obs_size} observations, refs be [{num_actions} actions, R] of rows or -1")
            self.action_rows = (offset, rows, k)
            self.spec["action_rows"] = {"offset": offset, "rows": rows, "k": k, "refs": refs.tolist()}
            # only the actions about some row get the term (the others have no facts to rank them by)
            acts = np.flatnonzero((refs >= 0).any(axis=1))
            self.register_buffer("row_actions", torch.as_tensor(acts), persistent=False)
            self.register_buffer("row_refs", torch.as_tensor(np.where(refs[acts] < 0, rows, refs[acts])),
                                 persistent=False)
            self._action_term(refs.shape[1] * k, hidden[-1], len(acts))

    def _action_term(self, inputs: int, trunk: int, num_actions: int) -> None:
        """The per-action policy term of ``num_actions`` actions: ``inputs`` facts of an action, the trunk's
        output, the action's embedding."""
        width = ACTION_HEAD_WIDTH
        self.action_in = layer_init(nn.Linear(inputs, width))
        self.action_ctx = nn.Linear(trunk, width, bias=False)
        self.action_embed = nn.Parameter(torch.zeros(num_actions, width))
        self.action_out = layer_init(nn.Linear(width, 1), std=0.01)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's output ``[B, hidden[-1]]``."""
        if obs.shape[-1] > self.spec["obs_size"]:  # blocks the game added after this network was trained
            obs = obs[..., :self.spec["obs_size"]].contiguous()
        entries = sparse_entries(obs)
        if entries is None:
            h = self.first(obs)
        else:
            h = SparseInputLinear.apply(self.first.weight.t().contiguous(), obs, *entries) + self.first.bias
        return self.trunk_act(self.trunk(self.act(h)))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(policy logits [B, A], value logits [B, P])``; values are ``sigmoid`` of the second."""
        h = self.features(obs)
        logits = self.policy(h)
        if self.action_features is not None:
            offset, k = self.action_features
            block = obs[:, offset:offset + logits.shape[1] * k].reshape(len(obs), -1, k)
            logits = logits + self._action_logits(block, h)
        elif self.action_rows is not None:
            offset, rows, k = self.action_rows
            table = obs[:, offset:offset + rows * k].reshape(len(obs), rows, k)
            table = torch.cat([table, table.new_zeros(len(obs), 1, k)], 1)  # row ``rows``: a missing ref
            block = table[:, self.row_refs].reshape(len(obs), len(self.row_actions), -1)
            logits = logits.index_add(1, self.row_actions, self._action_logits(block, h))
        return logits, self.value(h)

    def _action_logits(self, block: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """The per-action term ``[B, n]`` of the actions whose facts ``block [B, n, inputs]`` holds."""
        z = self.action_in(block) + self.action_ctx(h)[:, None, :] + self.action_embed[None]
        return self.action_out(self.act(z)).squeeze(-1)


ACTION_HEAD_WIDTH = 64
"""Hidden width of the per-action policy term (:class:`PolicyValueNet`'s ``action_features``)."""


def action_block(game: Game) -> tuple[int, int] | None:
    """``(offset, k)`` of the observation block ``[action, k]`` that ``game``'s rules module names as
    what each action would do (``ACTION_FEATURES``; Achten's ``lookahead``: the hand each move leaves),
    or None when it names none."""
    name = getattr(game.module, "ACTION_FEATURES", None)
    if name is None:
        return None
    layout = game.observation_layout
    block = next(b for b in layout.blocks if b.name == name)
    if len(block.shape) != 2 or block.shape[0] != game.num_actions:
        raise ValueError(f"ACTION_FEATURES of {game.name}: block {name!r} has shape {block.shape}, "
                         f"not [{game.num_actions} actions, k]")
    return layout.offset(name), int(block.shape[1])


def action_rows(game: Game) -> dict[str, Any] | None:
    """``{"offset", "rows", "k", "refs"}`` for :class:`PolicyValueNet`'s ``action_rows``: the facts block
    that ``game``'s rules module names with ``action_rows(config)`` (Octa's ``facts``: per card kind,
    pool slot and top discard) and the rows each action is about; None when it names none."""
    if not has_features(game):
        return None
    f = features(game)
    return {"offset": f.offset, "rows": f.rows, "k": f.k, "refs": f.refs.tolist()}


def build_net(spec: dict[str, Any]) -> PolicyValueNet:
    """A network from its ``spec`` without touching the global torch RNG (weights are loaded next)."""
    with torch.random.fork_rng(devices=[]):
        return PolicyValueNet(**spec)


def widen_input(net: PolicyValueNet, obs_size: int, std: float, seed: int = 0) -> PolicyValueNet:
    """A copy of ``net`` that reads ``obs_size`` observations, the entries after its own (blocks the game
    added since it was trained) feeding its first layer through new weights drawn N(0, ``std``).

    With ``std`` 0 the copy computes what ``net`` does; with ``std`` > 0 it starts from a nudge the
    learner can use or undo (weight decay pulls unused weights back to 0).

    Raises:
        ValueError: ``obs_size`` is smaller than the network's, or ``std`` < 0.
    """
    old = net.spec["obs_size"]
    if obs_size < old:
        raise ValueError(f"obs_size={obs_size} is not valid: the network reads {old} observations already")
    if std < 0:
        raise ValueError(f"std={std} is not valid; it must be >= 0")
    spec = {**net.spec, "obs_size": int(obs_size)}
    if "action_rows" in spec:
        spec["action_rows"] = dict(spec["action_rows"])
    wide = build_net(spec).to(net.first.weight.device)
    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    weight = torch.zeros(state["first.weight"].shape[0], obs_size, dtype=state["first.weight"].dtype)
    weight[:, :old] = state["first.weight"]
    if std > 0 and obs_size > old:
        gen = torch.Generator().manual_seed(seed)
        weight[:, old:] = torch.randn(weight.shape[0], obs_size - old, generator=gen) * std
    state["first.weight"] = weight
    wide.load_state_dict(state)
    wide.train(net.training)
    return wide


def az_loss(net: PolicyValueNet, batch: dict[str, torch.Tensor], value_weight: float = 1.0
            ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The AlphaZero loss on one batch.

    ``batch`` holds ``obs [B, D]``, ``mask [B, A]`` (bool), ``policy [B, A]``
    (the target distribution, zero on illegal actions) and ``values [B, P]``
    (targets in [0, 1] per seat counted from the acting one).

    Returns:
        ``(loss, stats)``: ``loss = policy_loss + value_weight * value_loss`` with the
        policy cross-entropy and the mean binary cross-entropy of the values; ``stats``
        (detached) adds the policy's entropy and the value's mean squared error.
    """
    logits, vlogits = net(batch["obs"])
    logp = torch.log_softmax(masked_logits(logits, batch["mask"]), dim=-1)
    target = batch["policy"]
    policy_loss = -(target * logp).sum(-1).mean()
    v_target = batch["values"]
    value_loss = nn.functional.binary_cross_entropy_with_logits(vlogits, v_target)
    loss = policy_loss + value_weight * value_loss
    with torch.no_grad():
        p = logp.exp()
        entropy = -(p * logp).masked_fill(~batch["mask"].bool(), 0.0).sum(-1).mean()
        target_entropy = -(target * torch.log(target.clamp_min(1e-12))).sum(-1).mean()
        stats = {"loss": loss.detach(), "policy_loss": policy_loss.detach(), "value_loss": value_loss.detach(),
                 "entropy": entropy, "kl": policy_loss.detach() - target_entropy,
                 "value_mse": ((torch.sigmoid(vlogits) - v_target) ** 2).mean()}
    return loss, stats


def network_evaluator(net: PolicyValueNet) -> Evaluate:
    """The :data:`Evaluate` function of a network (no gradients, its device)."""
    device = next(net.parameters()).device

    @torch.no_grad()
    def evaluate(obs: np.ndarray, masks: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = torch.from_numpy(obs).to(device)
        m = torch.from_numpy(masks.astype(bool)).to(device)
        logits, v = net(x)
        priors = torch.softmax(masked_logits(logits, m), dim=-1)
        return priors.double().cpu().numpy(), torch.sigmoid(v).double().cpu().numpy()

    return evaluate


# ----------------------------------------------------------------------------
# Batched search
# ----------------------------------------------------------------------------
def check_simulations(name: str, simulations: int, default: str = "") -> None:
    """Refuse a search budget that cannot choose: ``simulations`` is 0 (the network's policy alone) or
    at least 2; the first simulation only expands the root, so one leaves every move unvisited.

    Args:
        name: the field, for the message.
        simulations: its value.
        default: where a flag takes -1 for a default, what -1 means (then -1 is valid too).

    Raises:
        ValueError: ``simulations`` not an integer, below 0 (but for an allowed -1), or 1; the message names
            ``name``.
    """
    if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)):  # a model file's, edited
        raise ValueError(f"{name}={simulations!r} is not valid; it must be an integer")
    if (simulations < 0 and not (default and simulations == -1)) or simulations == 1:
        raise ValueError(f"{name}={simulations} is not valid; it must be 0 (the network's policy alone) or >= 2 "
                         "(the first simulation expands the root: one visits no move)"
                         + (f", or -1 ({default})" if default else ""))


@dataclass(frozen=True)
class SearchConfig:
    """Settings of :class:`BatchedSearch` and :class:`AZAgent`.

    Attributes:
        simulations: simulations per searched decision (0: the network's policy alone).
        leaves_per_game: leaves descended per game before one network call (a
            virtual loss spreads them); more is faster per simulation, a little weaker.
        c_puct: the PUCT constant (values are in [0, 1]); None: :data:`DEFAULT_C_PUCT`.
        dirichlet_alpha: concentration of the root noise per action (0: no noise).
        dirichlet_frac: share of the root priors replaced by the noise.
        objective: what a finished game is worth in the search and as a value
            target: ``"win"`` (1 to the winners, 1/2 to all at a draw, 0 else) or
            ``"score"`` (returns rescaled to [0, 1] by the game's utility bounds).
        max_nodes: tree capacity per game (0: ``64 * simulations + 256``); a full
            tree stops growing and the search goes on.
        leaf_value_mix: weight of the game's compiled leaf value (the ``"value"``
            entries of :func:`octagames.agents.search.mcts.compiled_value` (the game's ``GameSpec.mcts_evaluator``): Achten's
            showdown, Octiles' path distance), rescaled to [0, 1] by the utility
            bounds, in every leaf's value; the network's weight is ``1 - leaf_value_mix``.
            Games without such a function ignore it.
        prior_hint: an agent spec of the game (e.g. ``"heuristic"``) whose choice at every
            searched leaf is mixed into the network's priors ("" for none): the search then
            starts from what that agent would play, and the network's policy and value decide
            where to leave it. ``simulations=0`` plays the network alone.
        prior_hint_weight: the hint's share of the priors (a one-hot on its choice).
        belief_worlds: worlds drawn per searched decision from the game's belief about the
            hidden cards (the game's ``GameSpec.belief``, :func:`belief_module`; Achten:
            :func:`~octagames.agents.search.belief_achten.believed_worlds`,
            the deals where a model of the other seats makes the moves they made) and searched in
            turn in place of uniform determinizations; 0: uniform determinizations. Play-time
            only (:class:`AZAgent`): the self-play worker refuses it.
        belief_rollouts: play without the tree, by rollouts over the ``belief_worlds`` believed
            worlds: every legal action is played in every world, the other seats by the belief's
            model, this seat's later decisions by the network's greedy policy, and the action
            with the most wins is played (Achten: :func:`~octagames.agents.search.belief_achten.rollout_values`;
            expert iteration when the network imitates this very search). ``simulations`` is then
            unused. Play-time only, like ``belief_worlds``. A network that never ends the round
            (an untrained one can keep swapping) makes every rollout run to Achten's
            ``turn_cap`` (100 turns a player), which is slow.
        belief_model: the belief's model of the other seats, which picks the believed worlds
            and plays those seats in the rollouts: ``"heuristic"`` (the game's compiled heuristic,
            :func:`~octagames.agents.search.belief_achten.model_action`), ``"network"`` (the
            network's greedy policy, batched; the belief module must support it: Achten) or
            ``"learned"`` (the model file's learned rollout policy, compiled,
            :class:`~octagames.agents.search.learned_rollouts.LearnedRollout`; with ``belief_rollouts``
            and ``rollout_policy="model"``, where the belief module supports it: Octa). With
            ``"network"`` or ``"learned"`` the believed worlds and the rollouts are learned alone, and
            :func:`network_only` keeps them.
        rollout_policy: who plays this seat's later decisions in the belief rollouts:
            ``"network"`` (its greedy policy) or ``"model"`` (the belief's model of the other
            seats, ``belief_model``; with Achten's heuristic: the rollouts of the ``belief`` agent).
        rollout_search_weight: with ``belief_rollouts``, the network's search also runs over the
            same believed worlds (``simulations`` per decision), and this weight times each
            action's share of its root visits is added to the action's rollout win rate
            (wins / worlds, in [0, 1]); 0: the rollouts alone. A small weight lets the network
            decide between actions the rollouts rate alike.
        rollout_margin: with ``belief_rollouts`` and ``rollout_policy="model"``, a value >= 0 plays
            the model's own choice unless another action's win, paired world by world, is higher
            by more than ``rollout_margin`` standard errors
            (:func:`~octagames.agents.search.rollouts.paired_choice`; the search's vote is then added
            among those candidates only); -1: the action with the highest rollout win rate (plus
            the vote). In a long game most actions' win rates differ by less than the rollouts'
            noise, and the margin keeps the model's choice there. The worlds are played 32 at a
            time, and an action clearly worse than the model's stops playing them
            (:func:`~octagames.agents.search.rollouts.pruned_values`).
        rollout_base: with ``rollout_margin >= 0``, the move the paired rollouts must beat: ``"model"`` (the
            choice of the rollouts' own model, ``belief_model``) or ``"learned_policy"`` (the highest score of
            the model file's learned policy that plays alone, ``learned_policy``: improved against the
            heuristic by :func:`~octagames.agents.search.learned_rollouts.improve`; the rollouts still play
            every seat by the belief's model).
        playout_mix: weight, in every leaf's value, of a playout from the leaf to the end of the
            game by the game's compiled heuristic for every seat
            (``GameSpec.playout_policy``: Achten, Octa), worth its outcome
            under ``objective``; the value so far (the network's, with ``leaf_value_mix``)
            keeps ``1 - playout_mix``. The value of AlphaGo's search: a learned value and a fast
            rollout, mixed. 0: no playouts; a game without such a policy refuses a positive mix.
    """

    simulations: int = 64
    leaves_per_game: int = 1
    c_puct: float | None = None
    dirichlet_alpha: float = 0.0
    dirichlet_frac: float = 0.25
    objective: str = "win"
    max_nodes: int = 0
    leaf_value_mix: float = 0.0
    prior_hint: str = ""
    prior_hint_weight: float = 0.5
    belief_worlds: int = 0
    belief_rollouts: bool = False
    belief_model: str = "heuristic"
    rollout_policy: str = "network"
    rollout_search_weight: float = 0.0
    rollout_margin: float = -1.0
    rollout_base: str = "model"
    playout_mix: float = 0.0

    def __post_init__(self) -> None:
        check_simulations("simulations", self.simulations)
        if self.leaves_per_game < 1:
            raise ValueError(f"leaves_per_game={self.leaves_per_game} is not valid; it must be >= 1")
        if self.c_puct is not None and self.c_puct < 0:
            raise ValueError(f"c_puct={self.c_puct} is not valid; it must be >= 0 or None")
        if self.dirichlet_alpha < 0 or not 0 <= self.dirichlet_frac <= 1:
            raise ValueError(f"dirichlet_alpha={self.dirichlet_alpha}, dirichlet_frac={self.dirichlet_frac}: "
                             "alpha must be >= 0 and frac in [0, 1]")
        if self.objective not in ("win", "score"):
            raise ValueError(f"objective={self.objective!r} is not valid; valid values: ['win', 'score']")
        if self.max_nodes < 0:
            raise ValueError(f"max_nodes={self.max_nodes} is not valid; it must be >= 0 (0: automatic)")
        if not 0.0 <= self.leaf_value_mix <= 1.0:
            raise ValueError(f"leaf_value_mix={self.leaf_value_mix} is not valid; it must be in [0, 1]")
        if not 0.0 <= self.playout_mix <= 1.0:
            raise ValueError(f"playout_mix={self.playout_mix} is not valid; it must be in [0, 1]")
        if not 0.0 <= self.prior_hint_weight <= 1.0:
            raise ValueError(f"prior_hint_weight={self.prior_hint_weight} is not valid; it must be in [0, 1]")
        if self.belief_worlds < 0:
            raise ValueError(f"belief_worlds={self.belief_worlds} is not valid; it must be >= 0 (0: uniform worlds)")
        if self.belief_rollouts and self.belief_worlds < 1:
            raise ValueError("belief_rollouts=True needs belief_worlds >= 1 (the worlds the rollouts play out); "
                             f"got belief_worlds={self.belief_worlds}")
        if self.belief_model not in BELIEF_MODELS:
            raise ValueError(f"belief_model={self.belief_model!r} is not valid; "
                             f"valid values: {list(BELIEF_MODELS)}")
        if self.belief_model != "heuristic" and self.belief_worlds < 1:
            raise ValueError(f"belief_model={self.belief_model!r} needs belief_worlds >= 1 (the worlds it believes); "
                             f"got belief_worlds={self.belief_worlds}")
        if self.belief_model == "learned" and not (self.belief_rollouts and self.rollout_policy == "model"):
            raise ValueError("belief_model='learned' needs belief_rollouts=True and rollout_policy='model' (the "
                             "learned policy plays every seat in the rollouts); got "
                             f"belief_rollouts={self.belief_rollouts}, rollout_policy={self.rollout_policy!r}")
        if self.rollout_policy not in ("network", "model"):
            raise ValueError(f"rollout_policy={self.rollout_policy!r} is not valid; "
                             "valid values: ['network', 'model']")
        if self.rollout_search_weight < 0:
            raise ValueError(f"rollout_search_weight={self.rollout_search_weight} is not valid; "
                             "it must be >= 0")
        if self.rollout_search_weight > 0 and (not self.belief_rollouts or self.simulations < 1):
            raise ValueError(f"rollout_search_weight={self.rollout_search_weight} needs belief_rollouts=True "
                             "and simulations >= 2 (the search it weighs); got "
                             f"belief_rollouts={self.belief_rollouts}, simulations={self.simulations}")
        if self.rollout_margin != -1.0 and self.rollout_margin < 0:
            raise ValueError(f"rollout_margin={self.rollout_margin} is not valid; it must be >= 0 (-1: off)")
        if self.rollout_margin >= 0 and (not self.belief_rollouts or self.rollout_policy != "model"):
            raise ValueError(f"rollout_margin={self.rollout_margin} needs belief_rollouts=True and "
                             "rollout_policy='model' (it keeps the model's choice); got "
                             f"belief_rollouts={self.belief_rollouts}, rollout_policy={self.rollout_policy!r}")
        if self.rollout_base not in ROLLOUT_BASES:
            raise ValueError(f"rollout_base={self.rollout_base!r} is not valid; valid values: {list(ROLLOUT_BASES)}")
        if self.rollout_base != "model" and self.rollout_margin < 0:
            raise ValueError(f"rollout_base={self.rollout_base!r} needs rollout_margin >= 0 (the move the paired "
                             f"rollouts must beat); got rollout_margin={self.rollout_margin}")

    def nodes(self) -> int:
        """The tree capacity per game."""
        return self.max_nodes or 64 * self.simulations + 256

    def exploration(self, game: Game) -> float:
        """The PUCT constant used for ``game``."""
        return self.c_puct if self.c_puct is not None else DEFAULT_C_PUCT


BELIEF_MODELS = ("heuristic", "network", "learned")
"""The valid :attr:`SearchConfig.belief_model` values."""

ROLLOUT_BASES = ("model", "learned_policy")
"""The valid :attr:`SearchConfig.rollout_base` values."""

NETWORK_ONLY: dict[str, Any] = {"leaf_value_mix": 0.0, "prior_hint": "", "belief_worlds": 0, "belief_rollouts": False,
                                "belief_model": "heuristic", "rollout_policy": "network", "rollout_search_weight": 0.0,
                                "rollout_margin": -1.0, "rollout_base": "model", "playout_mix": 0.0}
"""The :class:`SearchConfig` fields that bring hand-written code into play (a compiled leaf value, a prior
hint, believed worlds, rollouts or playouts by a heuristic), each set to its off value by :func:`network_only`
(except those of :data:`NETWORK_BELIEF` when the belief's model is the network)."""

NETWORK_BELIEF = ("belief_worlds", "belief_rollouts", "belief_model", "rollout_policy", "rollout_search_weight",
                  "rollout_margin", "rollout_base")
"""The fields :func:`network_only` keeps when the belief's model is learned (``belief_model`` ``"network"`` or
``"learned"``)."""


def network_only(search: SearchConfig, simulations: int | None = None, learned: bool = False) -> SearchConfig:
    """``search`` with every hand-written part off (:data:`NETWORK_ONLY`): PUCT over uniform
    determinizations, guided by the network's priors and valued by its value head alone; or, when
    the search believes and rolls out with a learned model of every seat (``belief_model`` ``"network"``
    or ``"learned"``), that search without the compiled leaf value, hint and playouts; or, with
    ``learned``, a search whose rollouts the heuristic plays (``belief_model="heuristic"``,
    ``rollout_policy="model"``) rolling out by the model file's learned rollout policy instead.

    Args:
        search: a model's search (its budget, leaves per call and PUCT constant are kept).
        simulations: the budget instead of ``search.simulations``; 0: the network's greedy policy
            alone (one forward pass per decision, no search, no rollouts). Any other value, or None
            (the recorded budget), keeps a learned belief and its rollouts, which do not count
            simulations (only a vote, ``rollout_search_weight``, searches).
        learned: the model file carries a learned rollout policy (:func:`save_model`'s ``learned``).

    Returns:
        The network-only search, without root noise.
    """
    sims = search.simulations if simulations is None else int(simulations)
    off = dict(NETWORK_ONLY)
    heuristic_rollouts = search.belief_rollouts and search.rollout_policy == "model"
    if not (simulations is not None and sims == 0) and (search.belief_model != "heuristic"
                                                        or (learned and heuristic_rollouts)):
        off = {k: v for k, v in off.items() if k not in NETWORK_BELIEF}
        if search.belief_model == "heuristic":
            off["belief_model"] = "learned"  # the learned policy in the heuristic's place
    return dataclasses.replace(search, simulations=sims, dirichlet_alpha=0.0, **off)


def belief_module(game: Game) -> ModuleType:
    """The module of the game's belief about the hidden cards (:attr:`SearchConfig.belief_worlds`),
    checked for its config.

    Each game names it in its spec (``GameSpec.belief`` in ``octagames/<game>/variants.py``). The module
    has ``believed_worlds(game, state, seat, rng, worlds) -> list of records``,
    ``rollout_values(game, worlds, seat, legal, policy) -> wins[world, legal action]``,
    ``model_action(game, state, seat)`` (the belief's model of a seat) and ``check_game(game)``, which
    refuses the configs its belief does not cover; ``NETWORK_ROLLOUTS = False`` where the rollouts cannot
    ask a network for this seat's moves; ``NETWORK_MODEL = True`` where ``believed_worlds`` and
    ``rollout_values`` take a batched ``model=`` in place of the compiled one (``belief_model="network"``).
    Octa's worlds are uniform determinizations, played out by its
    compiled heuristic (:mod:`octagames.agents.search.rollouts`).

    Raises:
        ValueError: the game has no belief, or its belief does not cover this config.
    """
    target = catalogue.game_spec(game.name).belief
    if target is None:
        having = [g for g in catalogue.games() if catalogue.game_spec(g).belief is not None]
        raise ValueError(f"belief_worlds: {game.name} has no belief about its hidden cards; "
                         f"games with one: {having} (set belief_worlds=0)")
    module = importlib.import_module(target)
    module.check_game(game)
    return module


def leaf_value_function(game: Game) -> Any:
    """The game's compiled leaf value (a ``"value"`` ``GameSpec.mcts_evaluator``), or None."""
    return compiled_value(game)


class PriorHint:
    """An agent's choice at search leaves, mixed into the network's priors (:attr:`SearchConfig.prior_hint`).

    The agent is asked through a :class:`~octagames.agents.base.Turn` of the leaf's record: in the
    search that record is already a determinization for the searching seat, so the agent sees no
    more than a seat of the game could.

    Raises:
        ValueError: ``spec`` is not an agent of ``game`` (the registry's sentence).
    """

    def __init__(self, game: Game, spec: str, weight: float, seed: int = 0) -> None:
        self.game, self.weight = game, float(weight)
        self.agent = make_agent(spec, game, field="prior_hint")
        self.agent.reset(game, 0, seed)
        # the heuristic of a game with a compiled port (GameSpec.playout_policy) is asked in one compiled call
        self.compiled = playout_kernels(game.kernel_module, playout_policy(game)).policy_many \
            if spec == "heuristic" and has_playout_policy(game.name) else None

    def choices(self, records: np.ndarray, players: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agent's action in each record for its seat; -1 where it named an illegal one."""
        out = np.full(len(records), -1, np.int64)
        if self.compiled is not None:
            self.compiled(np.array(records, copy=True), np.asarray(players, np.int64), masks, out)
            ok = out >= 0
            ok[ok] = masks[np.flatnonzero(ok), out[ok]] != 0
            out[~ok] = -1
            return out
        for i in range(len(records)):
            turn = Turn(game=self.game, seat=int(players[i]), state=records[i:i + 1].copy()[0],
                        observation=obs[i], legal_mask=masks[i])
            a = int(self.agent.act(turn))
            if 0 <= a < masks.shape[1] and masks[i, a]:
                out[i] = a
        return out

    def mix(self, priors: np.ndarray, records: np.ndarray, players: np.ndarray, obs: np.ndarray,
            masks: np.ndarray) -> np.ndarray:
        """``(1 - weight) * priors + weight * onehot(choice)`` row by row (rows without a choice unchanged)."""
        choice = self.choices(records, players, obs, masks)
        rows = np.flatnonzero(choice >= 0)
        out = np.array(priors, np.float64)
        out[rows] *= 1.0 - self.weight
        out[rows, choice[rows]] += self.weight
        return out


def outcome_values(returns: np.ndarray, num_players: int, objective: str, lo: float, hi: float) -> np.ndarray:
    """Values in [0, 1] per seat of finished games ``returns [R, >= P]`` (absolute seats).

    ``"win"``: :func:`octagames.agents.search.mcts.win_values` (1 to every seat with the
    highest return, 1/2 to all when all are equal, else 0); ``"score"``: returns
    rescaled by the utility bounds ``lo, hi``.
    """
    r = np.asarray(returns, np.float64)[:, :num_players]
    if objective == "score":
        return np.clip((r - lo) / max(hi - lo, 1e-12), 0.0, 1.0)
    best = r.max(axis=1, keepdims=True)
    draw = (best - r.min(axis=1, keepdims=True)) <= 1e-9
    return np.where(draw, 0.5, (r >= best - 1e-9).astype(np.float64))


class BatchedSearch:
    """PUCT search of up to ``num_games`` games in lockstep, one network call per wave.

    Args:
        game: the game and config.
        num_games: the most games searched together (``B``).
        config: search settings.
    """

    def __init__(self, game: Game, num_games: int, config: SearchConfig | None = None) -> None:
        self.game = game
        self.config = config or SearchConfig()
        self.B = int(num_games)
        self.k = self.config.leaves_per_game
        self.value_fn = leaf_value_function(game) if self.config.leaf_value_mix > 0 else None
        self.hint = PriorHint(game, self.config.prior_hint, self.config.prior_hint_weight) \
            if self.config.prior_hint else None
        # the heuristic playouts of playout_mix (a game without them refuses the mix by name)
        self.playout = playout_policy(game) if self.config.playout_mix > 0 else None
        self.kernels = search_kernels(game.kernel_module, value=self.value_fn) if self.value_fn is not None \
            else search_kernels(game.kernel_module)
        self.playouts = playout_kernels(game.kernel_module, self.playout).playouts_many \
            if self.playout is not None else None
        nodes = self.config.nodes()
        P, A, D = game.info.max_players, game.num_actions, game.observation_size
        self.tree = new_trees(self.B, nodes, P)
        R = self.B * self.k
        depth = min(game.max_game_length, nodes) + 2
        self.roots = np.zeros(self.B, dtype=game.dtype)
        self.works = np.zeros(R, dtype=game.dtype)
        self.works_bytes = self.works.view(np.uint8).reshape(R, game.dtype.itemsize)
        self.paths = np.zeros((R, depth), np.int64)
        self.stats = np.zeros((R, depth), np.int64)
        self.out = {k: np.zeros(R, np.int64) for k in ("status", "plen", "nst", "leaf", "sp", "lp", "evalp")}
        self.obs = np.zeros((R, D), np.float32)
        self.masks = np.zeros((R, A), np.uint8)
        self.rets = np.zeros((R, P), np.float64)
        self.priors = np.zeros((R, A), np.float64)
        self.known = np.zeros((R, P), np.float64)
        self.played = np.zeros((R, P), np.float64)
        self.finished = np.zeros(R, np.uint8)
        self.u = np.zeros((R, P), np.float64)
        self.rngs = np.zeros(self.B, np.uint64)
        self._mask = np.zeros(A, np.uint8)
        self.c = self.config.exploration(game)
        info = game.info.information
        self.branch_chance = info == "perfect"
        lo, hi = game.min_utility, game.max_utility
        self.lo, self.hi = lo, (hi if hi > lo else lo + 1.0)

    def run(self, roots: np.ndarray, searchers: np.ndarray, active: np.ndarray, seeds: np.ndarray,
            evaluate: Evaluate, noise: np.ndarray | None = None,
            worlds: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Search every active game from its root record for its searching seat.

        Args:
            roots: ``B`` records (not modified); game ``b`` is searched from ``roots[b]``
                by seat ``searchers[b]``, which must be its acting seat. For hidden
                information only what that seat can see is used (each descent
                determinizes a copy).
            searchers: ``[B]`` the searching seats.
            active: ``[B]`` bool, which games to search.
            seeds: ``[B]`` the searches' seeds (same seed, same search).
            evaluate: the network (:data:`Evaluate`).
            noise: ``[B, A]`` root noise (a distribution over each root's legal
                actions) mixed into the priors with ``dirichlet_frac``, or None.
            worlds: ``[W, B]`` full records to search in place of fresh determinizations
                (e.g. drawn from a belief about the hidden cards): wave ``j`` descends from
                ``worlds[j % W, b]`` as it is; each must be a world of ``roots[b]`` as its
                searcher sees it. None: every descent determinizes ``roots[b]``.

        Returns:
            ``visits``, ``q`` (mean value of each root action for its searcher)
            and ``prior`` (the root priors, noise included), each ``[B, A]``.
        """
        g, t, K = self.game, self.tree, self.kernels
        B = self.B
        if worlds is not None:
            worlds = np.asarray(worlds, dtype=g.dtype)
            if worlds.ndim != 2 or worlds.shape[1] != len(roots) or len(worlds) == 0:
                raise ValueError(f"worlds of shape {worlds.shape} do not fit {len(roots)} roots; "
                                 f"expected [W, {len(roots)}] with W >= 1")
        active = np.asarray(active, dtype=np.bool_)
        searchers = np.asarray(searchers, dtype=np.int64)
        self.roots[:len(roots)] = roots
        roots_bytes = self.roots.view(np.uint8).reshape(B, g.dtype.itemsize)
        clear_trees(t, active)
        for b in np.flatnonzero(active):
            self.rngs[b] = mix64(np.uint64(int(seeds[b]) % (1 << 64)))
        sims = self.config.simulations
        done = 0
        first = True
        wave = 0
        while done < sims:
            k = 1 if first else min(self.k, sims - done)
            if worlds is not None:
                self.roots[:len(roots)] = worlds[wave % len(worlds)]
            self._wave(roots_bytes, searchers, active, k, evaluate, worlds is not None)
            wave += 1
            if first and noise is not None and self.config.dirichlet_frac > 0:
                mix_root_noise(t.first_child, t.sibling, t.action, t.tag, t.prior, searchers, active,
                               np.asarray(noise, np.float64), self.config.dirichlet_frac)
            first = False
            done += k
        A = g.num_actions
        visits, q, prior = np.zeros((B, A)), np.zeros((B, A)), np.zeros((B, A))
        root_stats(t.first_child, t.sibling, t.action, t.tag, t.visits, t.value, t.prior, searchers, active,
                   visits, q, prior)
        return {"visits": visits, "q": q, "prior": prior}

    def _wave(self, roots_bytes: np.ndarray, searchers: np.ndarray, active: np.ndarray, k: int,
              evaluate: Evaluate, as_is: bool = False) -> None:
        # compiled descents in every tree, one network call, compiled back-ups
        t, o, R = self.tree, self.out, self.B * k
        P = self.game.num_players
        self.kernels.descend_many(
            roots_bytes, self.works, self.works_bytes, searchers, self.rngs, k, *t[:10], self.c,
            self.branch_chance, self._mask, self.paths, self.stats, active, o["status"], o["plen"], o["nst"],
            o["leaf"], o["sp"], o["lp"], o["evalp"], self.obs, self.masks, self.rets, as_is)
        status, evalp = o["status"][:R], o["evalp"][:R]
        u = self.u[:R]
        u[:] = 0.0
        net_rows = np.flatnonzero((status >= 0) & (evalp >= 0))
        end_rows = np.flatnonzero((status >= 0) & (evalp < 0))
        if len(net_rows):
            players = evalp[net_rows]
            priors, values = evaluate(self.obs[net_rows], self.masks[net_rows], players)
            if self.hint is not None:
                priors = self.hint.mix(priors, self.works[net_rows], players, self.obs[net_rows],
                                       self.masks[net_rows])
            self.priors[net_rows] = priors
            seats = (players[:, None] + np.arange(P)[None, :]) % P
            u[net_rows[:, None], seats] = np.clip(values[:, :P], 0.0, 1.0)
            if self.value_fn is not None:
                mix = self.config.leaf_value_mix
                self.kernels.leaf_values_many(self.works, status, evalp, self.known)
                known = np.clip((self.known[net_rows, :P] - self.lo) / (self.hi - self.lo), 0.0, 1.0)
                u[net_rows, :P] = (1.0 - mix) * u[net_rows, :P] + mix * known
            if self.playout is not None:  # after the leaf value, which reads the leaf itself
                mix = self.config.playout_mix
                self.playouts(self.works, status, evalp, self._mask, self.game.max_game_length,
                                           self.played, self.finished)
                played = outcome_values(self.played[net_rows], P, self.config.objective, self.lo, self.hi)
                played[self.finished[net_rows] == 0] = 0.5  # not over in the game's bound: no verdict
                u[net_rows, :P] = (1.0 - mix) * u[net_rows, :P] + mix * played
        if len(end_rows):
            u[end_rows, :P] = outcome_values(self.rets[end_rows], P, self.config.objective, self.lo, self.hi)
        self.kernels.backup_many(k, *t[:10], self.paths, self.stats, status, o["plen"][:R], o["nst"][:R],
                                 o["leaf"][:R], o["sp"][:R], o["lp"][:R], self.masks, self.priors, u)


def choose_actions(visits: np.ndarray, q: np.ndarray, temperature: np.ndarray | float,
                   rng: np.random.Generator) -> np.ndarray:
    """One root action per row: sampled from ``visits ** (1 / T)`` where the temperature is
    positive, else the most visited (ties broken by the value, as :class:`MCTS` does)."""
    temp = np.broadcast_to(np.asarray(temperature, np.float64), (len(visits),))
    out = (visits + 1e-6 * q - np.where(visits > 0, 0.0, 1.0)).argmax(axis=1)
    for b in np.flatnonzero(temp > 0):
        w = visits[b] ** (1.0 / temp[b])
        if w.sum() > 0:
            out[b] = rng.choice(len(w), p=w / w.sum())
    return out


# ----------------------------------------------------------------------------
# Model files
# ----------------------------------------------------------------------------
def game_fields(game: Game) -> dict[str, Any]:
    """Every config field of ``game`` (what a model file records)."""
    return catalogue.full_config(game.name, game.config)


def model_dict(net: PolicyValueNet, game: Game, search: SearchConfig | None = None,
               meta: dict[str, Any] | None = None, half: bool = False,
               learned: LearnedRollout | None = None, alone: LearnedRollout | None = None) -> dict[str, Any]:
    """What a model file holds: the network spec and weights, the game with every field of its config
    (``game``, ``game_config``; ``variant`` names them, e.g. ``"octrix-2p"``), the default search, a
    learned rollout policy where there is one (``learned_rollout``) and a learned policy that plays
    alone where there is one (``learned_policy``).

    Args:
        half: store the weights as float16 (half the size; they are read back as float32; the
            learned policies stay float64).
        learned: a learned rollout policy of ``game`` (:mod:`~octagames.agents.search.learned_rollouts`).
        alone: the policy that plays alone (0 simulations) in the network's place, of the same kind
            (:func:`~octagames.agents.search.learned_rollouts.improve`).
    """
    weights = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    if half:
        weights = {k: v.half() if v.is_floating_point() else v for k, v in weights.items()}
    data = {"format": MODEL_FORMAT, "spec": dict(net.spec), "state_dict": weights, "game": game.name,
            "game_config": game_fields(game), "variant": catalogue.describe(game.name, game.config),
            "search": dataclasses.asdict(search or SearchConfig()), "meta": dict(meta or {})}
    if learned is not None:
        if learned.game.name != game.name or learned.game.config != game.config:
            raise ValueError(f"the learned rollout policy plays {learned.game}; the model is for {game}")
        data["learned_rollout"] = learned.state()
    if alone is not None:
        if alone.game.name != game.name or alone.game.config != game.config:
            raise ValueError(f"the learned policy plays {alone.game}; the model is for {game}")
        data["learned_policy"] = alone.state()
    return data


def save_model(net: PolicyValueNet, path: str | Path, game: Game, search: SearchConfig | None = None,
               meta: dict[str, Any] | None = None, half: bool = False,
               learned: LearnedRollout | None = None, alone: LearnedRollout | None = None) -> Path:
    """Write a model file (atomically) that :func:`load_model` and ``az:<path>`` read (:func:`model_dict`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(model_dict(net, game, search, meta, half, learned, alone), tmp)
    tmp.replace(path)
    return path


def describe(data: dict[str, Any]) -> str:
    """``"an achten run (hidden 256,256; 6333 observations)"``: what a model file was trained on."""
    spec = data["spec"]
    cfg = data.get("game_config", {})
    extra = f", rules {cfg['rules']}" if "rules" in cfg else ""
    name = data.get("game", "?")
    article = "an" if name[:1] in "aeiou" else "a"
    return (f"{article} {name} run ({cfg.get('num_players', '?')} players{extra}; hidden "
            f"{','.join(map(str, spec['hidden']))}; {spec['obs_size']} observations, {spec['num_actions']} actions)")


def check_fits(data: dict[str, Any], game: Game, where: str = "this checkpoint",
               allow_config_mismatch: bool = False, warned: set[str] | None = None) -> None:
    """Refuse a model trained for another game, config or observation size, in words.

    Args:
        data: the model file's content (:func:`model_dict`).
        game: the game the model is asked to play.
        where: what the model is, for the sentence.
        allow_config_mismatch: another config of the same game is a warning, not a refusal
            (the network's sizes must fit all the same).
        warned: the warnings already given (an agent's own: one per config, not per game).

    Raises:
        ValueError: another game ("this checkpoint is an achten run (...); you asked for octrix (...)"),
            another config of the game (both named as variants, with the options that fit:
            :func:`~octagames.agents.model_config.check_config`), or another observation,
            action or seat count.
    """
    spec = data["spec"]
    mine = data.get("game")
    want = (f"{game.name} ({game.num_players} players; {game.observation_size} observations, "
            f"{game.num_actions} actions)")
    if mine != game.name:
        fits = ""
        if mine in catalogue.games() and "game_config" in data:
            fits = f"; play it with {fitting_options(mine, recorded_config(mine, data['game_config']))}"
        raise ValueError(f"{where} is {describe(data)}; you asked for {want}{fits}")
    if "game_config" in data:
        check_config(game.name, data["game_config"], game.config, where, allow_config_mismatch, warned)
    if (not game.reads_observation(spec["obs_size"]) or spec["num_actions"] != game.num_actions
            or spec["num_values"] != game.num_players):
        raise ValueError(f"{where} is {describe(data)}; you asked for {want}: the observation, action "
                         "or seat count differs")


def load_model(path: str | Path, game: Game | None = None, device: str = "cpu",
               allow_config_mismatch: bool = False) -> tuple[PolicyValueNet, dict[str, Any]]:
    """Load a model file or the model inside a training checkpoint: ``(net, data)``.

    Args:
        path: a file written by :func:`save_model` or a ``train_az`` checkpoint.
        game: when given, the model must have been trained for it (:func:`check_fits`).
        device: where the network lives.
        allow_config_mismatch: with ``game``, another config of the game only warns.

    Raises:
        ValueError: not an octagames AZ model, or one trained for another game, config or size.
    """
    data = load_model_file(path, map_location=device)
    if isinstance(data, dict) and "model" in data and isinstance(data["model"], dict):
        data = data["model"]  # a full training checkpoint
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path} is not an octagames AZ model or train_az checkpoint")
    if game is not None:
        check_fits(data, game, allow_config_mismatch=allow_config_mismatch)
    spec = data.get("spec")  # checked against the weights before any memory is spent on it
    net = built_to_fit(lambda: build_net(spec if isinstance(spec, dict) else {}), data.get("state_dict"), path)
    net = net.to(device)
    net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in data["state_dict"].items()})
    net.eval()
    return net, data


# ----------------------------------------------------------------------------
# Agent
# ----------------------------------------------------------------------------
class AZAgent(Agent):
    """A policy/value network with :class:`BatchedSearch` (one game) in the arena.

    Args:
        net: the network (or use :meth:`load`).
        search: search settings (``simulations=0``: the greedy policy of the network).
        name: the name shown in tables.
        data: the model file's content, checked against the game at :meth:`reset`.
        allow_config_mismatch: play a config of the game other than the one ``data`` records,
            with a warning, instead of refusing it.
    """

    def __init__(self, net: PolicyValueNet, search: SearchConfig | None = None, name: str = "az",
                 data: dict[str, Any] | None = None, allow_config_mismatch: bool = False) -> None:
        self.net = net.eval()
        self.search = search or SearchConfig()
        self.name = name
        self.data = data
        self.allow_config_mismatch = allow_config_mismatch
        self.config_warnings: set[str] = set()  # the config mismatches warned (once each, not at every reset)
        self.evaluate = network_evaluator(self.net)
        self.rng = np.random.default_rng(0)
        self._searchers: dict[int, BatchedSearch] = {}
        self.last: dict[str, np.ndarray] | None = None
        self.belief: ModuleType | None = None
        self.learned: LearnedRollout | None = None  # the model file's learned rollout policy, for the game at reset
        self.alone: LearnedRollout | None = None  # its learned policy that plays alone (0 simulations), at reset
        self.base: LearnedRollout | None = None  # the same policy as the move the rollouts must beat, at reset

    @classmethod
    def load(cls, path: str | Path, simulations: int | None = None, name: str = "az",
             game: Game | None = None, allow_config_mismatch: bool = False,
             network_alone: bool = False) -> "AZAgent":
        """The agent of a model file, with its recorded search.

        Args:
            path: a model file or a training checkpoint.
            simulations: overrides the recorded budget; 0 plays the network's greedy policy alone (one
                forward pass per decision), or the file's learned policy where it carries one
                (``learned_policy``): no search, and none of the recorded rollouts, believed worlds,
                prior hint or compiled leaf value either (:func:`network_only`).
            name: the agent's name.
            game: when given, the model must fit it (:func:`check_fits`).
            allow_config_mismatch: another config of the model's game only warns.
            network_alone: drop every hand-written part of the recorded search (:func:`network_only`)
                whatever the budget: the ``net:`` agents (the recorded rollouts stay, played by the model
                file's learned rollout policy, where it carries one).

        Raises:
            ValueError: not a model file, or (with ``game``) one that does not fit it (:func:`check_fits`).
        """
        net, data = load_model(path, game, allow_config_mismatch=allow_config_mismatch)
        fields = {f.name for f in dataclasses.fields(SearchConfig)}
        search = SearchConfig(**{k: v for k, v in data.get("search", {}).items() if k in fields})
        if network_alone or simulations == 0:
            search = network_only(search, simulations, learned="learned_rollout" in data)
        elif simulations is not None:
            search = dataclasses.replace(search, simulations=int(simulations))
        search = dataclasses.replace(search, dirichlet_alpha=0.0)  # no exploration noise in play
        return cls(net, search, name=name, data=data, allow_config_mismatch=allow_config_mismatch)

    def check_game(self, game: Game) -> None:
        """Refuse a game the model does not fit: another game, another config of it (unless
        :attr:`allow_config_mismatch`, which warns) or another network size (:func:`check_fits`)."""
        if self.data is not None:
            where = self.name if ":" in self.name else f"the model of agent {self.name!r}"
            try:
                check_fits(self.data, game, where=where, allow_config_mismatch=self.allow_config_mismatch,
                           warned=self.config_warnings)
            except ValueError as refused:
                other = zoo_model_for(game)
                parts = self.name.split(":")
                kind = parts[0] if parts[0] in ("zoo", "net") else "zoo"
                if other is None or parts[:2] == [kind, other]:
                    raise
                sims = f":{parts[2]}" if kind == parts[0] and len(parts) > 2 else ""  # the same search budget
                raise ValueError(f"{refused}; the zoo's model for {catalogue.describe(game.name, game.config)} "
                                 f"is {kind}:{other}{sims}") from None
        elif not game.reads_observation(self.net.spec["obs_size"]) \
                or self.net.spec["num_actions"] != game.num_actions:
            raise ValueError(f"agent {self.name!r}: the network expects {self.net.spec['obs_size']} observations and "
                             f"{self.net.spec['num_actions']} actions; {game} has {game.observation_size} "
                             f"and {game.num_actions}")

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Check the model fits the game (:meth:`check_game`); seed the search."""
        self.check_game(game)
        searching = self.search.simulations or self.search.belief_rollouts
        self.belief = belief_module(game) if self.search.belief_worlds and searching else None
        if self.search.belief_rollouts and self.search.rollout_policy == "network" \
                and not getattr(self.belief, "NETWORK_ROLLOUTS", True):
            raise ValueError(f"agent {self.name!r}: the rollouts of {game.name} are compiled and play every seat "
                             "by its heuristic; a network rollout policy is not available there "
                             "(use rollout_policy='model')")
        if self.belief is not None and self.search.belief_model == "network" \
                and not getattr(self.belief, "NETWORK_MODEL", False):
            raise ValueError(f"agent {self.name!r}: the belief and rollouts of {game.name} are compiled around its "
                             "heuristic; belief_model='network' is not available there (use 'heuristic')")
        self.learned = None
        self.alone = None
        self.base = None
        if not searching and "learned_policy" in (self.data or {}):
            self.alone = LearnedRollout.from_state(game, self.data["learned_policy"])
        if searching and self.search.rollout_base == "learned_policy":
            if "learned_policy" not in (self.data or {}):
                raise ValueError(f"agent {self.name!r}: rollout_base='learned_policy' needs a model file that "
                                 "carries a learned policy (python -m octagames.experiments.improve_policy adds one)")
            self.base = LearnedRollout.from_state(game, self.data["learned_policy"])
        if self.belief is not None and self.search.belief_model == "learned":
            if not getattr(self.belief, "LEARNED_MODEL", False):
                raise ValueError(f"agent {self.name!r}: the belief of {game.name} cannot roll out by a learned "
                                 "policy; belief_model='learned' is not available there")
            state = (self.data or {}).get("learned_rollout")
            if state is None:
                raise ValueError(f"agent {self.name!r}: belief_model='learned' needs a model file that carries a "
                                 "learned rollout policy (python -m octagames.experiments.train_rollout adds one)")
            self.learned = LearnedRollout.from_state(game, state)
        self.rng = np.random.default_rng(seed)

    def greedy_policy(self, game: Game) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """``policy(records, seats) -> actions``: the network's most likely legal action per record, one batch."""

        def policy(records: np.ndarray, seats: np.ndarray) -> np.ndarray:
            obs, masks = observations(game, records, seats)
            priors, _ = self.evaluate(obs, masks, seats)
            return np.argmax(np.where(masks, priors, -1.0), axis=1)

        return policy

    def belief_model(self, game: Game) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
        """The belief's model of the other seats as a batched policy (:meth:`greedy_policy`) when
        ``belief_model="network"``; None: the belief module's own (the compiled heuristic; with
        ``belief_model="learned"`` the learned policy goes to the belief module as ``learned=``)."""
        return self.greedy_policy(game) if self.search.belief_model == "network" else None

    def believed_worlds(self, turn: Turn, model: Callable[[np.ndarray, np.ndarray], np.ndarray] | None
                        ) -> list[np.void]:
        """``belief_worlds`` worlds of ``turn`` from the game's belief, with ``model`` (None: its own)."""
        assert self.belief is not None, "reset() first"
        extra = {} if model is None else {"model": model}
        return self.belief.believed_worlds(turn.game, turn.state, turn.seat, self.rng, self.search.belief_worlds,
                                           **extra)

    def searcher(self, game: Game) -> BatchedSearch:
        """The (cached) one-game :class:`BatchedSearch` of ``game``."""
        key = id(game)
        if key not in self._searchers or self._searchers[key].game is not game:
            self._searchers[key] = BatchedSearch(game, 1, self.search)
        return self._searchers[key]

    def search_budget(self) -> int:
        """Simulations or believed worlds a decision, the more of the two (:meth:`Agent.search_budget`)."""
        return int(max(self.search.simulations, self.search.belief_worlds))

    def act(self, turn: Turn) -> int:
        """A forced move at once; else the most visited root action (or the greedy policy)."""
        legal = turn.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        if self.search.belief_rollouts:
            assert self.belief is not None, "reset() first"
            g, seat, actions = turn.game, turn.seat, [int(a) for a in legal]
            model = self.belief_model(g)
            worlds = self.believed_worlds(turn, model)
            # None: this seat's later moves by the model too (with a network model, that is the same greedy policy)
            policy = self.greedy_policy(g) if self.search.rollout_policy == "network" and model is None else None
            extra: dict[str, Any] = {} if model is None else {"model": model}
            if self.learned is not None:
                extra = {"learned": self.learned}

            def rollouts(ws: list[np.void], acts: list[int]) -> np.ndarray:
                return self.belief.rollout_values(g, ws, seat, acts, policy, **extra)

            vote, visits = np.zeros(len(actions)), None
            if self.search.rollout_search_weight > 0:  # the network's search over the same worlds
                visits = self._search(turn, worlds)["visits"][0][actions]
                vote = self.search.rollout_search_weight * visits / max(visits.sum(), 1.0)
            if self.search.rollout_margin >= 0:  # the model's choice unless the paired rollouts beat it
                if self.base is not None:  # the file's learned policy (rollout_base="learned_policy")
                    base = actions.index(self.base.action(turn.state, seat))
                elif model is None:
                    base = actions.index(self.belief.model_action(g, turn.state, seat, **extra))
                else:
                    base = actions.index(int(model(np.array(turn.state, dtype=g.dtype).reshape(1),
                                                   np.array([seat]))[0]))
                values = pruned_values(lambda ws, idx: rollouts(ws, [actions[i] for i in idx]), worlds, len(actions),
                                       base)
                choice = paired_choice(values, base, self.search.rollout_margin, vote)
            else:
                values = rollouts(worlds, actions)
                choice = int(np.argmax(values.mean(axis=0) + vote))
            self.last_thinking = considered_rollouts(turn, actions, values, choice, visits)
            return actions[choice]
        if self.alone is not None:  # the file's learned policy: its highest score (compiled, as in its games)
            action = self.alone.action(turn.state, turn.seat)
            self.last_thinking = None
            if turn.tell:  # its scores again, as a softmax, only where the caller keeps the thinking
                shares = np.zeros(turn.game.num_actions)
                scores = self.alone.scores(turn.observation, legal)
                shares[legal] = np.exp(scores - scores.max())
                self.last_thinking = considered(turn, action, policy=shares)
            return action
        if self.search.simulations == 0:
            priors, v = self.evaluate(turn.observation[None, :].astype(np.float32), turn.legal_mask[None, :],
                                      np.array([turn.seat]))
            action = int(np.argmax(np.where(turn.legal_mask > 0, priors[0], -1.0)))
            self.last_thinking = considered(turn, action, policy=priors[0], value=float(v[0][0]))  # the acting seat's
            return action
        drawn = None
        if self.belief is not None:
            drawn = self.believed_worlds(turn, self.belief_model(turn.game))
        res = self._search(turn, drawn)
        action = int(choose_actions(res["visits"], res["q"], 0.0, self.rng)[0])
        self.last_thinking = considered(turn, action, policy=res["visits"][0], values=res["q"][0],
                                        prior=res["prior"][0], visits=int(res["visits"][0].sum()))
        return action

    def _search(self, turn: Turn, worlds: list[np.void] | None) -> dict[str, np.ndarray]:
        """The network search of ``turn``'s decision (kept as :attr:`last`), searching ``worlds`` in turn
        (believed worlds) or, with None, fresh uniform determinizations."""
        g = turn.game
        root = np.array(turn.state, dtype=g.dtype).reshape(1)
        searched = None if worlds is None else np.array(worlds, dtype=g.dtype).reshape(len(worlds), 1)
        seed = np.array([int(self.rng.integers(1 << 62))])
        res = self.searcher(g).run(root, np.array([turn.seat]), np.array([True]), seed, self.evaluate,
                                   worlds=searched)
        self.last = res
        return res


# ----------------------------------------------------------------------------
# The zoo and the registry
# ----------------------------------------------------------------------------
def zoo_model_for(game: Game) -> str | None:
    """The zoo's model name for exactly this game (its variant with no other field, at its player
    count), or None when the zoo has none."""
    name = catalogue.variant_name(game.name, game.config)
    variants = catalogue.variants()
    if name not in variants or game.num_players not in variants[name].zoo:
        return None
    return variants[name].zoo_name(game.num_players)


def zoo_names() -> list[str]:
    """The zoo's model names (:func:`octagames.catalogue.zoo_models`), in the catalogue's order."""
    return list(catalogue.zoo_models())


def zoo_variant(name: str) -> catalogue.Variant:
    """The catalogue variant of ``zoo:<name>`` (its player count: :func:`zoo_players`).

    Raises:
        ValueError: ``name`` is no zoo model: one line listing the zoo's models (and, for a game
            name such as ``octa``, a variant without a model or a player count without one, that
            game's zoo models).
    """
    return _zoo_model(name)[0]


def zoo_players(name: str) -> int:
    """The player count ``zoo:<name>`` plays (:func:`zoo_variant`'s errors)."""
    return _zoo_model(name)[1]


def _zoo_model(name: str) -> tuple[catalogue.Variant, int]:
    zoo = catalogue.zoo_models()
    stem = catalogue.zoo_file_name(name)  # its name, or the default count spelled out ("octrix-2p")
    if stem in zoo:
        return zoo[stem]
    base, n = name, None
    seats = re.fullmatch(r"(.+)-([1-9][0-9]*)p", name)
    if seats:
        base, n = seats.group(1), int(seats.group(2))
    reason = ""
    if base in catalogue.names():
        v = catalogue.variant(base)
        own = ", ".join(z for z, (w, _) in zoo.items() if w.game == v.game) or "none"
        if v.name != base:
            what = f"{base} is a game, not a variant"
        elif not v.zoo:
            what = f"the variant {base} has no model"
        else:
            what = f"the variant {base} has no model for {v.default_players if n is None else n} players"
        reason = f": {what} (zoo models of {v.game}: {own})"
    raise ValueError(f"zoo:{name} is not valid{reason}; valid zoo models: {', '.join(zoo)}")


def zoo_path(name: str) -> Path:
    """The model file of ``zoo:<name>``, ``agents/zoo/<name>.pt`` (``<name>`` as :func:`zoo_names` spells it).

    Raises:
        ValueError: not a zoo model (:func:`zoo_variant`), or its file is missing.
    """
    variant, n = _zoo_model(name)
    path = ZOO_DIR / f"{variant.zoo_name(n)}.pt"
    if not path.exists():
        raise ValueError(f"zoo:{name}: no model file at {path} (not trained yet)")
    return path


def zoo_card(name: str) -> dict[str, Any]:
    """The card of ``zoo:<name>`` (its variant and full config, training command, commit, evaluation),
    from ``<name>.json``; ``{}`` when the model has none."""
    card = zoo_path(name).with_suffix(".json")
    return json.loads(card.read_text()) if card.exists() else {}


def network_budget(name: str) -> int | None:
    """The simulations ``net:<name>`` plays at when its spec gives none: the card's ``network_simulations``
    (the budget the network alone was measured at), or None where the card names none (the model's own)."""
    return zoo_card(name).get("network_simulations")


def network_worlds(name: str) -> int | None:
    """The worlds ``net:<name>`` rolls out over where the card's search rolls out by the heuristic and the
    model file's learned rollout policy takes its place: the card's ``network_belief_worlds`` (the learned
    policy's playouts cost more than the heuristic's), or None where the card names none (the search's own)."""
    return zoo_card(name).get("network_belief_worlds")


def network_base(name: str) -> str | None:
    """The move ``net:<name>``'s paired rollouts must beat where its rollouts play by the learned rollout policy:
    the card's ``network_rollout_base`` (``"learned_policy"``: the file's improved learned policy), or None where
    the card names none (the rollout policy's own choice)."""
    return zoo_card(name).get("network_rollout_base")


def _parse(spec_name: str, arg: str | None, usage: str, names_have_colons: bool = True) -> tuple[str, int | None]:
    """``(model, simulations or None)`` of ``<spec_name>:<arg>``; a budget that is not a number >= 0 is refused
    in words (a zoo name has no colon, so whatever follows one there must be a budget)."""
    if not arg:
        raise ValueError(f"agent {spec_name!r} needs an argument: {usage}")
    head, sep, tail = arg.rpartition(":")
    if sep and is_count(tail):
        return head, int(tail)
    if sep and (re.fullmatch(r"[+-]?[0-9]+", tail) or tail.isdigit() or not names_have_colons):  # "²": a digit
        raise ValueError(f"agent '{spec_name}:{arg}': the simulations {tail!r} are not a whole number >= 0 "
                         f"in plain digits (0-9); {usage}")
    return arg, None


def _az_factory(game: str, arg: str | None) -> Agent:
    path, sims = _parse("az", arg, "'az:<model or checkpoint path>[:<simulations>]'")
    return AZAgent.load(path, sims, name="az" + ("" if sims is None else f"-{sims}"))


def _zoo_agent(kind: str, game: str, arg: str | None, network_alone: bool) -> Agent:
    # zoo:<name>[:<simulations>] and net:<name>[:<simulations>] (<name>: <variant> or <variant>-<n>p):
    # one file, two searches
    usage = f"'{kind}:<model>[:<simulations>]' with a model of {zoo_names()}"
    name, sims = _parse(kind, arg, usage, names_have_colons=False)
    if ":" in name:  # zoo:octrix:100:5 named "zoo:octrix:100" as the model
        raise ValueError(f"agent '{kind}:{arg}': one budget at most after the model's name; {usage}")
    try:
        variant, n = _zoo_model(name)
    except ValueError as e:  # named as asked (net:...), not as zoo:
        raise ValueError(f"{kind}:{str(e).removeprefix('zoo:')}" if kind != "zoo" else str(e)) from None
    path = zoo_path(name)
    if variant.game != catalogue.game_spec(game).game:
        seats = "" if n == variant.default_players else f" --players {n}"
        raise ValueError(f"{kind}:{name} plays {variant.game}; you asked for {game} "
                         f"(play it with --game {variant.name}{seats})")
    budget = network_budget(name) if sims is None and network_alone else sims
    agent = AZAgent.load(path, budget, name=f"{kind}-{name}" + ("" if sims is None else f"-{sims}"),
                         network_alone=network_alone)
    if network_alone and agent.search.belief_model == "learned":  # the card's worlds and base for its rollouts
        card = {"belief_worlds": network_worlds(name), "rollout_base": network_base(name)}
        agent.search = dataclasses.replace(agent.search, **{k: v for k, v in card.items() if v is not None})
    return agent


def _zoo_factory(game: str, arg: str | None) -> Agent:
    return _zoo_agent("zoo", game, arg, network_alone=False)


def _net_factory(game: str, arg: str | None) -> Agent:
    """``net:<variant>[-<n>p][:<simulations>]``: the zoo model of the variant (and seats) with the network
    alone: PUCT over uniform determinizations with the network's priors and its value at the leaves, with
    ``<simulations>``, else the card's ``network_simulations`` where it gives one (the budget the network
    alone was measured at: the search reads no compiled value, so it may need more than the model's), else
    the model's budget, and the model's leaves per call; or, where the model's belief takes
    the network as its model (``belief_model="network"``, Achten), that belief and its rollouts, every move
    in them the network's; ``net:<variant>:0`` plays the network's most likely legal action (one forward
    pass, deterministic), or the highest score of the file's learned policy where it carries one
    (``learned_policy``: a linear score per action over its facts, improved against the heuristic,
    :func:`~octagames.agents.search.learned_rollouts.improve`). Where the zoo file carries a learned rollout
    policy and the model's search rolls out by the heuristic (Octa), the rollouts stay, every seat in them
    played by that policy, over the card's ``network_belief_worlds`` where it names some, and the move they must
    beat is the learned policy's where the card's ``network_rollout_base`` says so. No heuristic,
    compiled leaf value, prior hint or heuristic's belief or rollout takes part (:func:`network_only`)."""
    return _zoo_agent("net", game, arg, network_alone=True)

