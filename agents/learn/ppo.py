"""PPO for every octagames game: network, masked sampling, per-seat GAE, update, arena agent.

CleanRL-like: every part is a small module-level function or class that the
trainer (``experiments/train_ppo.py``), the tests and notebooks import:

* :class:`ActorCritic`: separate actor and critic MLPs (configurable width,
  depth and activation; the layout SB3's ``MlpPolicy`` uses). On CPU its first
  layer exploits the sparsity of the engines' observations
  (:class:`SparseInputLinear`: the same function, computed from the non-zero
  entries only), which makes training several times faster on games with wide
  observations (Achten: 6333 floats, about 2% non-zero).
* :func:`masked_logits`, :func:`sample_actions`, :func:`log_prob_entropy`:
  masked action sampling. Illegal actions get the logit :data:`MASKED_LOGIT`
  (a large finite negative number, not ``-inf``), so their probability is
  exactly 0 after the softmax in float32, their log-probability is a finite
  large negative number and the entropy term ignores them: nothing is NaN.
* :func:`compute_gae`: textbook GAE over time-major trajectories.
* :func:`seat_gae`: GAE for turn-based self-play (below).
* :func:`ppo_loss`, :func:`ppo_update`: the clipped PPO objective with value
  loss and entropy bonus, minibatched for several epochs.
* :class:`PPOAgent`: a trained policy as an :class:`octagames.agents.base.Agent` for the
  arena; ``make_agent("ppo:<path>", game)`` loads one by path.

One policy is shared by all seats: the observation is always the acting
seat's information state (seats are relative to it), so the same network plays
any seat of a 2-6 player game.

Per-seat trajectories (:func:`seat_gae`)
----------------------------------------
The vector env steps N games; at step ``t`` game ``i`` is moved by seat
``player[t, i]``, and ``rewards[t, i, p]`` is paid to *every* seat ``p``.
Seats alternate (or take simultaneous moves one at a time), so seat ``p``'s
own trajectory in game ``i`` is the subsequence of steps where it acted:

* its **next observation** is the one at its next turn in the same game;
* its **reward** for the transition at step ``t`` is the sum of
  ``rewards[t', i, p]`` for ``t <= t' <`` its next turn, i.e. everything paid
  to it from its own action until it acts again (the others' moves included);
* when the game ends at step ``t'`` (``terminated[t', i]``), every seat's last
  transition of that game gets the rewards up to and including ``t'`` (the
  final returns are paid there) and is marked done (next value 0);
* rewards paid to a seat in a new game *before* its first action there
  belong to no transition and are dropped (the engines pay returns at the end
  of a game, so these are zero);
* a rollout of ``T`` steps ends in the middle of games: the last transition of
  each seat is bootstrapped with the critic's value of that seat's current
  observation (``env.observe(p)``) plus the rewards it got after its last turn.

:func:`seat_gae` does all of this in one backward pass over ``t``, vectorized
over games and seats; ``gamma`` discounts per own turn of a seat.
"""

from __future__ import annotations

from pathlib import Path
import warnings
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from octagames import catalogue
from octagames.agents.base import Agent, Turn, considered
from octagames.agents.model_config import check_config
from octagames.core import Game

#: logit given to illegal actions: exp(MASKED_LOGIT - max) is exactly 0 in float32,
#: while every arithmetic on it stays finite (no NaN from -inf * 0)
MASKED_LOGIT = -1e9

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


# ----------------------------------------------------------------------------
# Network
# ----------------------------------------------------------------------------
def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights and constant bias (CleanRL's initialisation)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def mlp(sizes: Sequence[int], activation: str, out_std: float) -> nn.Sequential:
    """Linear layers of ``sizes`` with ``activation`` between them (none after the last)."""
    act = ACTIVATIONS[activation]
    layers: list[nn.Module] = []
    for k in range(len(sizes) - 1):
        last = k == len(sizes) - 2
        std = out_std if last else float(np.sqrt(2))
        layers.append(layer_init(nn.Linear(sizes[k], sizes[k + 1]), std=std))
        if not last:
            layers.append(act())
    return nn.Sequential(*layers)


#: observations whose share of non-zero entries is at most this go through the
#: sparse first layer (:class:`SparseInputLinear`); the engines' observations are
#: mostly one-hot features (2-10% non-zero), where it is several times faster
SPARSE_MAX_DENSITY = 0.3
#: batches smaller than this always take the dense path (acting one seat at a time)
SPARSE_MIN_BATCH = 32
#: the sparse first layer's weight gradient uses a sparse product up to this density (dense above;
#: the crossover was measured between Octiles' 7% and Octrix' 10%, see docs/benchmarks.md)
SPARSE_BACKWARD_MAX_DENSITY = 0.08


class SparseInputLinear(torch.autograd.Function):
    """``x @ W.T`` for a sparse, constant ``x``, also given as its non-zero entries.

    The same product as the dense one (up to float summation order): forward
    with ``embedding_bag`` (each row sums the weighted weight columns of its
    non-zero features, ``O(nnz * H)`` instead of ``O(B * D * H)``); backward
    (the weight gradient ``x.T @ grad``) with a CSR matrix product when ``x``
    is sparse enough (:data:`SPARSE_BACKWARD_MAX_DENSITY`), else with the dense
    one, which is faster above that. ``x`` gets no gradient (observations are data).
    """

    @staticmethod
    def forward(ctx: Any, weight_t: torch.Tensor, x: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor,
                vals: torch.Tensor) -> torch.Tensor:
        counts = torch.bincount(rows, minlength=x.shape[0])
        offsets = torch.cumsum(counts, 0) - counts
        ctx.save_for_backward(x, rows, cols, vals)
        return nn.functional.embedding_bag(cols, weight_t, offsets, mode="sum", per_sample_weights=vals)

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, rows, cols, vals = ctx.saved_tensors
        if not ctx.needs_input_grad[0]:
            return None, None, None, None, None
        B, D = x.shape
        if cols.numel() > SPARSE_BACKWARD_MAX_DENSITY * B * D:
            return x.t() @ grad_out, None, None, None, None
        order = torch.argsort(cols, stable=True)
        crow = torch.zeros(D + 1, dtype=torch.int64, device=cols.device)
        crow[1:] = torch.cumsum(torch.bincount(cols, minlength=D), 0)
        with warnings.catch_warnings():  # torch calls its CPU CSR tensors beta; this is a plain product
            warnings.simplefilter("ignore", UserWarning)
            xt = torch.sparse_csr_tensor(crow, rows[order], vals[order], (D, B), check_invariants=False)
        return xt @ grad_out.contiguous(), None, None, None, None


def sparse_entries(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """``(rows, cols, vals)`` of the non-zero entries of a 2-d ``x``, or None if it is too dense.

    None also for small batches, inputs that need a gradient and non-CPU
    devices (where the dense product is the fast one).
    """
    if (x.dim() != 2 or x.shape[0] < SPARSE_MIN_BATCH or x.device.type != "cpu" or x.requires_grad
            or x.shape[1] < 64):
        return None
    nz = x.nonzero()
    if nz.shape[0] > SPARSE_MAX_DENSITY * x.numel():
        return None
    rows, cols = nz[:, 0], nz[:, 1]
    return rows, cols, x[rows, cols]


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs over the acting seat's observation.

    Args:
        obs_size: observation length ``D``.
        num_actions: number of actions ``A``.
        hidden: hidden layer widths, shared by actor and critic (e.g. ``(256, 256)``).
        activation: ``"tanh"`` or ``"relu"``.

    On CPU, batches of sparse observations (:data:`SPARSE_MAX_DENSITY`) take
    the first layer of both MLPs in one :class:`SparseInputLinear` product;
    the result is the same function (the parameters and their gradients are
    those of the plain ``nn.Linear`` layers).
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = (256, 256),
                 activation: str = "tanh") -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation={activation!r} is not valid; valid values: {sorted(ACTIVATIONS)}")
        self.spec = {"obs_size": int(obs_size), "num_actions": int(num_actions),
                     "hidden": [int(h) for h in hidden], "activation": activation}
        self.actor = mlp([obs_size, *hidden, num_actions], activation, out_std=0.01)
        self.critic = mlp([obs_size, *hidden, 1], activation, out_std=1.0)

    def _first_layers(self, obs: torch.Tensor, nets: Sequence[nn.Sequential]) -> list[torch.Tensor] | None:
        """The first linear layer of each of ``nets`` on a sparse batch (None: use the dense path)."""
        entries = sparse_entries(obs)
        if entries is None:
            return None
        firsts = [net[0] for net in nets]
        weight = firsts[0].weight if len(firsts) == 1 else torch.cat([f.weight for f in firsts], 0)
        out = SparseInputLinear.apply(weight.t().contiguous(), obs, *entries)
        parts = out.split([f.out_features for f in firsts], dim=-1)
        return [h + f.bias for h, f in zip(parts, firsts)]

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values ``[B]``."""
        first = self._first_layers(obs, [self.critic])
        if first is None:
            return self.critic(obs).squeeze(-1)
        return self.critic[1:](first[0]).squeeze(-1)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked action logits ``[B, A]``."""
        first = self._first_layers(obs, [self.actor])
        if first is None:
            return self.actor(obs)
        return self.actor[1:](first[0])

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [B, A], values [B])``."""
        first = self._first_layers(obs, [self.actor, self.critic])
        if first is None:
            return self.actor(obs), self.critic(obs).squeeze(-1)
        return self.actor[1:](first[0]), self.critic[1:](first[1]).squeeze(-1)


# ----------------------------------------------------------------------------
# Masked action distribution
# ----------------------------------------------------------------------------
def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions (``mask`` False/0) set to :data:`MASKED_LOGIT`.

    A row without any legal action (never produced by the envs) is left
    unmasked so that it stays a valid distribution.
    """
    return logits.masked_fill(~_legal(mask), MASKED_LOGIT)


def _legal(mask: torch.Tensor) -> torch.Tensor:
    """``mask`` as bool, with rows that have no legal action made all legal."""
    mask = mask.bool()
    return mask | ~mask.any(dim=-1, keepdim=True)


def log_prob_entropy(logits: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities of ``actions`` ``[B]`` and entropies ``[B]`` under the masked policy.

    Illegal actions contribute nothing to the entropy; the log-probability of
    an illegal action is a finite, very negative number (never NaN).
    """
    legal = _legal(mask)
    ml = logits.masked_fill(~legal, MASKED_LOGIT)
    logp_all = torch.log_softmax(ml, dim=-1)
    logp = logp_all.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
    # softmax rather than logp_all.exp(): the same probabilities, but exp() of the
    # masked log-probabilities (about -1e9) takes a slow path on CPU
    p = torch.softmax(ml, dim=-1)
    entropy = -(p * logp_all).masked_fill(~legal, 0.0).sum(-1)
    return logp, entropy


def sample_actions(logits: torch.Tensor, mask: torch.Tensor, greedy: bool = False,
                   generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw one legal action per row: ``(actions [B], log_probs [B])``.

    Sampling uses the Gumbel-max trick on the masked logits (illegal actions
    keep a logit of about -1e9, so they can never win); ``greedy`` takes the
    most likely legal action instead.
    """
    ml = masked_logits(logits, mask)
    if greedy:
        actions = ml.argmax(-1)
    else:
        u = torch.rand(ml.shape, generator=generator, device=ml.device, dtype=ml.dtype)
        gumbel = -torch.log((-torch.log(u.clamp_min(1e-20))).clamp_min(1e-20))
        actions = (ml + gumbel).argmax(-1)
    logp = torch.log_softmax(ml, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    return actions, logp


# ----------------------------------------------------------------------------
# Advantages
# ----------------------------------------------------------------------------
def compute_gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, next_values: np.ndarray,
                gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE over time-major trajectories (each column one trajectory).

    Args:
        rewards, values, dones: ``[T, ...]``; ``dones[t]`` means the episode
            ended with transition ``t`` (no bootstrap after it).
        next_values: ``[T, ...]`` value of the next observation of each
            transition (ignored where ``dones``).

    Returns:
        ``(advantages, returns)``, with ``returns = advantages + values``.
    """
    adv = np.zeros_like(values, dtype=np.float64)
    last = np.zeros(values.shape[1:], dtype=np.float64)
    for t in reversed(range(len(rewards))):
        nonterm = 1.0 - dones[t].astype(np.float64)
        delta = rewards[t] + gamma * next_values[t] * nonterm - values[t]
        last = delta + gamma * lam * nonterm * last
        adv[t] = last
    return adv, adv + values


def seat_gae(player: np.ndarray, rewards: np.ndarray, terminated: np.ndarray, values: np.ndarray,
             last_values: np.ndarray, gamma: float, lam: float) -> dict[str, np.ndarray]:
    """GAE along each seat's own turns in turn-based self-play (module docstring).

    Args:
        player: ``[T, N]`` seat that acted at step ``t`` in game ``i``.
        rewards: ``[T, N, P]`` rewards of every seat after step ``t``.
        terminated: ``[T, N]`` the game ended with step ``t`` (the env then reset it).
        values: ``[T, N]`` critic value of the actor's observation at step ``t``.
        last_values: ``[N, P]`` critic value of each seat's observation after the
            last step (the bootstrap of unfinished trajectories).

    Returns:
        dict of ``[T, N]`` arrays: ``advantages``, ``returns``, and the
        per-seat transitions ``rewards``, ``dones``, ``next_values``.
    """
    T, N = player.shape
    ar = np.arange(N)
    acc = np.zeros(rewards.shape[1:], dtype=np.float64)          # rewards since a seat's last turn
    nv = np.asarray(last_values, dtype=np.float64).copy()        # value at the seat's next turn
    nd = np.zeros(acc.shape, dtype=bool)                         # the seat's next "turn" is a game end
    nadv = np.zeros(acc.shape, dtype=np.float64)                 # advantage of the seat's next turn
    out = {k: np.zeros((T, N), dtype=np.float64) for k in ("advantages", "rewards", "next_values")}
    out["dones"] = np.zeros((T, N), dtype=bool)
    for t in reversed(range(T)):
        end = terminated[t].astype(bool)
        acc[end] = 0.0      # what follows belongs to the next game
        nv[end] = 0.0
        nd[end] = True
        nadv[end] = 0.0
        acc += rewards[t]
        p = player[t]
        r, d, v_next = acc[ar, p], nd[ar, p], nv[ar, p]
        nonterm = 1.0 - d
        delta = r + gamma * v_next * nonterm - values[t]
        adv = delta + gamma * lam * nonterm * nadv[ar, p]
        out["advantages"][t], out["rewards"][t], out["dones"][t], out["next_values"][t] = adv, r, d, v_next
        acc[ar, p] = 0.0
        nv[ar, p] = values[t]
        nd[ar, p] = False
        nadv[ar, p] = adv
    out["returns"] = out["advantages"] + values
    return out


def win_rewards(returns: np.ndarray) -> np.ndarray:
    """Zero-sum win/loss rewards from final returns ``[..., P]``.

    The seats with the highest return share the win: with ``w`` the winner
    indicator, the reward is ``(w - mean(w)) * P / (P - 1)``, so a sole winner
    gets +1 and the others -1/(P-1) (as in a match), and a game where all
    returns are equal gives 0 to everyone.
    """
    returns = np.asarray(returns, dtype=np.float64)
    P = returns.shape[-1]
    w = np.isclose(returns, returns.max(axis=-1, keepdims=True)).astype(np.float64)
    return (w - w.mean(axis=-1, keepdims=True)) * P / (P - 1)


# ----------------------------------------------------------------------------
# PPO update
# ----------------------------------------------------------------------------
def ppo_loss(model: ActorCritic, batch: dict[str, torch.Tensor], clip_coef: float = 0.2,
             vf_coef: float = 0.5, ent_coef: float = 0.01, clip_vloss: bool = True,
             norm_adv: bool = True) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The clipped PPO loss on one (mini)batch.

    ``batch`` holds ``obs [B, D]``, ``mask [B, A]``, ``actions [B]``,
    ``logprobs [B]`` (at collection), ``advantages [B]``, ``returns [B]`` and
    ``values [B]`` (at collection).

    Returns:
        ``(loss, stats)`` with ``pg_loss``, ``v_loss``, ``entropy``,
        ``approx_kl`` and ``clipfrac`` in ``stats`` (detached).
    """
    logits, value = model(batch["obs"])
    logp, entropy = log_prob_entropy(logits, batch["mask"], batch["actions"])
    logratio = logp - batch["logprobs"]
    ratio = logratio.exp()
    adv = batch["advantages"]
    if norm_adv and adv.numel() > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()
    if clip_vloss:
        v_clipped = batch["values"] + (value - batch["values"]).clamp(-clip_coef, clip_coef)
        v_loss = 0.5 * torch.max((value - batch["returns"]) ** 2, (v_clipped - batch["returns"]) ** 2).mean()
    else:
        v_loss = 0.5 * ((value - batch["returns"]) ** 2).mean()
    ent = entropy.mean()
    loss = pg_loss - ent_coef * ent + vf_coef * v_loss
    with torch.no_grad():
        stats = {"loss": loss.detach(), "pg_loss": pg_loss.detach(), "v_loss": v_loss.detach(),
                 "entropy": ent.detach(), "approx_kl": ((ratio - 1) - logratio).mean(),
                 "clipfrac": ((ratio - 1.0).abs() > clip_coef).float().mean()}
    return loss, stats


def ppo_update(model: ActorCritic, optimizer: torch.optim.Optimizer, batch: dict[str, torch.Tensor],
               update_epochs: int = 4, num_minibatches: int = 4, max_grad_norm: float = 0.5,
               target_kl: float = 0.0, **loss_kwargs: Any) -> dict[str, float]:
    """Several epochs of minibatch SGD on :func:`ppo_loss`; returns the mean stats.

    Minibatches are drawn with ``torch.randperm`` (the global torch RNG, which
    the trainer checkpoints). ``target_kl > 0`` stops early when the
    approximate KL of a minibatch exceeds it.
    """
    n = batch["obs"].shape[0]
    mb = max(1, n // num_minibatches)
    totals: dict[str, float] = {}
    count = 0
    for _ in range(update_epochs):
        perm = torch.randperm(n, device=batch["obs"].device)
        stop = False
        for start in range(0, n, mb):
            idx = perm[start:start + mb]
            loss, stats = ppo_loss(model, {k: v[idx] for k, v in batch.items()}, **loss_kwargs)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()
            for k, v in stats.items():
                totals[k] = totals.get(k, 0.0) + float(v)
            count += 1
            if target_kl > 0 and float(stats["approx_kl"]) > target_kl:
                stop = True
                break
        if stop:
            break
    return {k: v / max(1, count) for k, v in totals.items()}


# ----------------------------------------------------------------------------
# Saving and the arena agent
# ----------------------------------------------------------------------------
def policy_dict(model: ActorCritic, game: Game | None = None) -> dict[str, Any]:
    """What a policy file holds: the network spec and weights (and, if given, the game with every
    field of its config, ``game`` and ``game_config``; ``variant`` names them, e.g. ``"octrix-2p"``)."""
    out: dict[str, Any] = {"format": "octagames-ppo-policy-1", "spec": dict(model.spec),
                           "state_dict": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}}
    if game is not None:
        out["game"] = game.name
        out["game_config"] = catalogue.full_config(game.name, game.config)
        out["variant"] = catalogue.describe(game.name, game.config)
    return out


def save_policy(model: ActorCritic, path: str | Path, game: Game | None = None) -> Path:
    """Write a policy file that :class:`PPOAgent` (``ppo:<path>``) loads."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(policy_dict(model, game), tmp)
    tmp.replace(path)
    return path


def load_policy(path: str | Path, device: str = "cpu") -> tuple[ActorCritic, dict[str, Any]]:
    """Load a policy file, or the policy inside a training checkpoint: ``(model, data)``."""
    data = torch.load(Path(path), map_location=device, weights_only=False)
    if "policy" in data:  # a full training checkpoint
        data = data["policy"]
    if data.get("format") != "octagames-ppo-policy-1":
        raise ValueError(f"{path} is not an octagames PPO policy or checkpoint")
    spec = data["spec"]
    model = ActorCritic(spec["obs_size"], spec["num_actions"], spec["hidden"], spec["activation"]).to(device)
    model.load_state_dict(data["state_dict"])
    model.eval()
    return model, data


class PPOAgent(Agent):
    """A PPO policy in the arena: acts from its seat's observation only.

    Args:
        model: a trained :class:`ActorCritic` (or use :meth:`load`).
        greedy: take the most likely legal action (default) or sample.
        name: the name shown in arena tables.
        data: the policy file's content; when it records its game, another game or config is refused
            at :meth:`reset` (:mod:`~octagames.agents.model_config`).
        allow_config_mismatch: play another config of the recorded game, with a warning.
    """

    def __init__(self, model: ActorCritic, greedy: bool = True, name: str = "ppo",
                 data: dict[str, Any] | None = None, allow_config_mismatch: bool = False) -> None:
        self.model = model
        self.greedy = greedy
        self.name = name
        self.data = data
        self.allow_config_mismatch = allow_config_mismatch
        self.rng = np.random.default_rng(0)
        self._gen = torch.Generator().manual_seed(0)

    @classmethod
    def load(cls, path: str | Path, greedy: bool = True, name: str = "ppo",
             allow_config_mismatch: bool = False) -> "PPOAgent":
        """The agent of a policy file or training checkpoint at ``path``."""
        model, data = load_policy(path, "cpu")
        return cls(model, greedy=greedy, name=name, data=data, allow_config_mismatch=allow_config_mismatch)

    def check_game(self, game: Game) -> None:
        """Refuse a game the policy does not fit: another recorded game, another config of it (unless
        :attr:`allow_config_mismatch`, which warns), or another observation or action count."""
        where = self.name if ":" in self.name else f"the policy of agent {self.name!r}"
        mine = (self.data or {}).get("game")
        if mine is not None and mine != game.name:
            raise ValueError(f"{where} was trained on {mine}; you asked for {game.name}")
        if mine is not None and "game_config" in self.data:
            check_config(mine, self.data["game_config"], game.config, where, self.allow_config_mismatch)
        spec = self.model.spec
        if game.observation_size != spec["obs_size"] or game.num_actions != spec["num_actions"]:
            raise ValueError(f"this PPO policy expects observations of {spec['obs_size']} and "
                             f"{spec['num_actions']} actions; {game} has {game.observation_size} "
                             f"and {game.num_actions}")

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Check the game fits the policy (:meth:`check_game`); seed the sampling RNG."""
        self.check_game(game)
        self.rng = np.random.default_rng(seed)
        self._gen = torch.Generator().manual_seed(int(seed) % (2**63))

    @torch.no_grad()
    def act(self, turn: Turn) -> int:
        """The policy's (greedy or sampled) legal action for ``turn.seat``; its probabilities and the
        critic's value are told as :attr:`last_thinking`."""
        device = next(self.model.parameters()).device
        obs = torch.as_tensor(turn.observation, dtype=torch.float32, device=device).unsqueeze(0)
        mask = torch.as_tensor(turn.legal_mask.astype(bool), device=device).unsqueeze(0)
        gen = self._gen if device.type == "cpu" else None
        logits = self.model.logits(obs)
        action, _ = sample_actions(logits, mask, greedy=self.greedy, generator=gen)
        probs = torch.softmax(masked_logits(logits, mask), dim=-1)[0].double().cpu().numpy()
        self.last_thinking = considered(turn, int(action.item()), policy=probs, value=float(self.model.value(obs)[0]))
        return int(action.item())


def _factory(game: str, arg: str | None) -> Agent:
    if not arg:
        raise ValueError("agent 'ppo' needs a path: 'ppo:<policy or checkpoint path>'")
    greedy = True
    if arg.endswith("@sample"):
        arg, greedy = arg[: -len("@sample")], False
    return PPOAgent.load(arg, greedy=greedy)
