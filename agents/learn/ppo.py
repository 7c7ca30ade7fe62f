"""PPO for every octagames game: network, masked sampling, per-seat GAE, update, arena agent.

CleanRL-like: every part is a small module-level function or class that the
trainer (``experiments/train_ppo.py``), the tests and notebooks import:

* :class:`ActorCritic`: separate actor and critic MLPs (configurable width,
  depth and activation; the layout SB3's ``MlpPolicy`` uses). On CPU its first
  layer exploits the sparsity of the engines' observations
  (:class:`SparseInputLinear`: the same function, computed from the non-zero
  entries only), which makes training several times faster on games with wide
  observations (Achten: 6333 floats, about 2% non-zero).
* :class:`ObsBatch`: a batch of the vector env's compact observations (``uint8``/``uint16``
  integers and their divisors), which the network reads as the same float32 values; on CPU
  its non-zero entries are found once per rollout and every minibatch is cut from them.
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
* when an engine safety bound stops the game at step ``t'`` (``truncated[t', i]``: not a rule,
  so not an outcome), every seat's last transition of that game gets its rewards up to ``t'``
  and is bootstrapped, not marked done, with the critic's value of that seat's observation of the
  stopped position (the vector env has started the next game by then: the rollout reads it from
  ``final_observation``); given no such values, the seat's own value at that last decision stands
  for it (its one-step advantage is then its reward less ``(1 - gamma)`` times that value);
  nothing of the next game flows back;
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

from contextlib import nullcontext
from pathlib import Path
import warnings
from typing import Any, ContextManager, Sequence

import numpy as np
import torch
from torch import nn

from octagames import catalogue
from octagames.agents.base import Agent, Turn, considered
from octagames.agents.model_config import built_to_fit, check_config, load_model_file
from octagames.core import Game

#: logit given to illegal actions: exp(MASKED_LOGIT - max) is exactly 0 in float32,
#: while every arithmetic on it stays finite (no NaN from -inf * 0)
MASKED_LOGIT = -1e9


class _SigmoidTanh(torch.autograd.Function):
    """``tanh(x)`` as ``2 sigmoid(2x) - 1``, with tanh's own gradient ``(1 - y^2) g``."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        y = torch.sigmoid(x * 2).mul_(2).sub_(1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, y)


class Tanh(nn.Module):
    """``tanh``, computed on CPU as ``2 sigmoid(2x) - 1``, which equals it within 2e-7.

    torch's CPU ``tanh`` is not vectorised like its ``sigmoid``: on a 2048 x 256 float32 batch (one
    thread, AVX-512) 1.4 ms against 0.12 ms; with the gradient, 1.9 ms against 0.67 ms for this
    module. A PPO update of the default network is 5-7% faster with it (``docs/benchmarks.md``).
    Other devices take ``torch.tanh``.
    The module has no parameters, so a network saved with ``nn.Tanh`` loads into it unchanged.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu":
            return torch.tanh(x)
        return _SigmoidTanh.apply(x)


ACTIVATIONS = {"tanh": Tanh, "relu": nn.ReLU}


def check_activation(activation: str) -> None:
    """Raise ``ValueError`` naming the field unless ``activation`` is one of :data:`ACTIVATIONS`."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation={activation!r} is not valid; valid values: {sorted(ACTIVATIONS)}")


#: the dtypes the network's matrix products may run in (:func:`matmul_precision`)
MATMUL_DTYPES = {"float32": None, "bfloat16": torch.bfloat16}


def matmul_precision(dtype: str, device: torch.device | str = "cpu") -> ContextManager[Any]:
    """A context in which the network's linear layers compute in ``dtype`` (``"float32"``, ``"bfloat16"``).

    ``"bfloat16"`` is ``torch.autocast`` on ``device``: the matrix products take bfloat16 inputs and
    accumulate in float32; the parameters, their gradients, Adam's state, the sparse first layer
    (:class:`SparseInputLinear`) and :class:`ActorCritic`'s output layers stay float32. On a CPU with
    AVX-512 BF16 (this project's machines) the PPO update is 1.3-1.6 times faster
    (``docs/benchmarks.md``); on one without it, slower. ``"float32"`` changes nothing.
    """
    if dtype not in MATMUL_DTYPES:
        raise ValueError(f"matmul_dtype={dtype!r} is not valid; valid values: {list(MATMUL_DTYPES)}")
    low = MATMUL_DTYPES[dtype]
    if low is None:
        return nullcontext()
    return torch.autocast(torch.device(device).type, dtype=low)


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
#: the sparse first layer's weight gradient is summed from the non-zero entries up to this density (a
#: dense product above; at batch 2048 and width 512 the crossover was between 9% and 20%, docs/benchmarks.md)
SPARSE_BACKWARD_MAX_DENSITY = 0.12


class SparseInputLinear(torch.autograd.Function):
    """``x @ W.T`` for a sparse, constant ``x``, also given as its non-zero entries.

    The same product as the dense one (up to float summation order): forward
    with ``embedding_bag`` (each row sums the weighted weight columns of its
    non-zero features, ``O(nnz * H)`` instead of ``O(B * D * H)``); backward
    (the weight gradient ``x.T @ grad``) with ``embedding_bag`` again, over the
    entries grouped by feature (each feature sums the weighted gradient rows of
    the batch rows where it is non-zero), when ``x`` is sparse enough
    (:data:`SPARSE_BACKWARD_MAX_DENSITY`), else with the dense product, which is
    faster above that. ``x`` (a float tensor or an :class:`ObsBatch`) gets no
    gradient (observations are data); it is made dense only for the dense product.
    """

    @staticmethod
    def forward(ctx: Any, weight_t: torch.Tensor, x: "torch.Tensor | ObsBatch", rows: torch.Tensor,
                cols: torch.Tensor, vals: torch.Tensor) -> torch.Tensor:
        counts = torch.bincount(rows, minlength=x.shape[0])
        offsets = torch.cumsum(counts, 0) - counts
        ctx.save_for_backward(rows, cols, vals)
        ctx.x = x
        return nn.functional.embedding_bag(cols, weight_t, offsets, mode="sum", per_sample_weights=vals)

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        rows, cols, vals = ctx.saved_tensors
        x = ctx.x
        if not ctx.needs_input_grad[0]:
            return None, None, None, None, None
        B, D = x.shape
        if cols.numel() > SPARSE_BACKWARD_MAX_DENSITY * B * D:
            dense = x.float() if isinstance(x, ObsBatch) else x
            return dense.t() @ grad_out, None, None, None, None
        # grouped by feature, rows in order; int16 keys give the same stable order, sorted 3x faster
        keys = cols.to(torch.int16) if D <= torch.iinfo(torch.int16).max else cols
        order = torch.argsort(keys, stable=True)
        counts = torch.bincount(cols, minlength=D)
        offsets = torch.cumsum(counts, 0) - counts
        grad = nn.functional.embedding_bag(rows[order], grad_out.contiguous(), offsets, mode="sum",
                                           per_sample_weights=vals[order])
        return grad, None, None, None, None


def sparse_entries(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """``(rows, cols, vals)`` of the non-zero entries of a 2-d ``x``, or None if it is too dense.

    None also for small batches, inputs that need a gradient and non-CPU
    devices (where the dense product is the fast one).
    """
    if not _sparse_candidate(x.shape, x.device) or x.dim() != 2 or x.requires_grad:
        return None
    nz = x.nonzero()
    if nz.shape[0] > SPARSE_MAX_DENSITY * x.numel():
        return None
    rows, cols = nz[:, 0], nz[:, 1]
    return rows, cols, x[rows, cols]


def _sparse_candidate(shape: Sequence[int], device: torch.device) -> bool:
    """Whether a batch of this shape on this device may take the sparse first layer (by size and device)."""
    return len(shape) == 2 and shape[0] >= SPARSE_MIN_BATCH and device.type == "cpu" and shape[1] >= 64


class ObsBatch:
    """A batch of observations kept as the vector env's compact integers: ``data / divisor`` is the
    float32 observation (bit for bit: an IEEE division, as :mod:`octagames.envs.vector` says).

    The trainer's rollout and update pass it where a float tensor went: :class:`ActorCritic` reads
    it, ``batch[idx]`` cuts a minibatch, ``.to(device)`` moves the compact integers (the
    conversion to float32 happens where the network runs). On CPU, a batch sparse enough for the
    sparse first layer (:data:`SPARSE_MAX_DENSITY`) finds its non-zero entries once, row by row
    (CSR), and its minibatches are cut from those entries: no dense float32 batch is ever
    gathered or scanned. The entries of a row are in feature order, as ``nonzero`` gives them,
    so the first layer sees exactly the entries it would see from the float32 observations.

    Args:
        data: ``[B, D]`` observations as integers (``uint8``/``uint16``; ``int16`` holds the bits of
            ``uint16`` ones on devices without ``uint16`` kernels) or float32 (then ``divisor`` is all ones).
        divisor: ``[D]`` float32, the env's ``obs_divisor``.
    """

    def __init__(self, data: torch.Tensor | None, divisor: torch.Tensor,
                 csr: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None) -> None:
        if data is not None and (data.dim() != 2 or data.shape[1] != divisor.shape[0]):
            raise ValueError(f"ObsBatch: data must be [B, {divisor.shape[0]}] to match the divisor, "
                             f"got {tuple(data.shape)}")
        self.data = data
        self.divisor = divisor
        # (row_ptr [B+1], cols [nnz], vals [nnz] float32), or None: not computed; False: not sparse here
        self._csr: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | bool | None = csr
        self._float: torch.Tensor | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """``(B, D)``."""
        rows = self.data.shape[0] if self.data is not None else self._csr[0].shape[0] - 1
        return int(rows), int(self.divisor.shape[0])

    @property
    def device(self) -> torch.device:
        """Where the observations are."""
        return self.divisor.device

    def __len__(self) -> int:
        return self.shape[0]

    def to(self, device: torch.device | str) -> "ObsBatch":
        """The same observations on ``device`` (the compact integers travel, not floats)."""
        device = torch.device(device)
        if device == self.device:
            return self
        data = self.data if self.data is not None else self.float()
        divisor = self.divisor if self.data is not None else torch.ones_like(self.divisor)
        if data.dtype == torch.uint16 and device.type != "cpu":  # torch has few uint16 kernels off the CPU
            data = data.view(torch.int16)  # the same bits; float() reads them back as unsigned
        return ObsBatch(data.to(device), divisor.to(device))

    def float(self) -> torch.Tensor:
        """The float32 observations ``[B, D]`` (computed once)."""
        if self._float is None:
            if self.data is not None:  # float32 data comes with a divisor of ones
                data = self.data
                if data.dtype == torch.int16:  # uint16 observations moved off the CPU (:meth:`to`)
                    data = data.to(torch.int32) & 0xFFFF
                self._float = data if data.dtype == torch.float32 else data.float() / self.divisor
            else:
                rows, cols, vals = self._entries()
                self._float = torch.zeros(self.shape, dtype=torch.float32, device=self.device)
                self._float[rows, cols] = vals
        return self._float

    def _entries_csr(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
        if self._csr is None:
            self._csr = False
            data = self.data
            scan = data.view(torch.int16) if data.dtype == torch.uint16 else data  # torch scans no uint16
            if _sparse_candidate(data.shape, data.device) and \
                    int(torch.count_nonzero(scan)) <= SPARSE_MAX_DENSITY * data.numel():
                nz = scan.nonzero()
                rows, cols = nz[:, 0], nz[:, 1]
                vals = data[rows, cols].float() / self.divisor[cols]
                row_ptr = torch.zeros(data.shape[0] + 1, dtype=torch.int64)
                torch.cumsum(torch.bincount(rows, minlength=data.shape[0]), 0, out=row_ptr[1:])
                self._csr = (row_ptr, cols, vals)
        return self._csr or None

    def sparse_entries(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
        """``(rows, cols, vals)`` of the non-zero float32 entries in row-major order, or None where the
        batch takes the dense path (too dense, too small, not on CPU), as :func:`sparse_entries`."""
        if self.shape[0] < SPARSE_MIN_BATCH or self._entries_csr() is None:
            return None
        return self._entries()

    def _entries(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        row_ptr, cols, vals = self._entries_csr()
        counts = row_ptr[1:] - row_ptr[:-1]
        rows = torch.repeat_interleave(torch.arange(len(counts)), counts, output_size=cols.shape[0])
        return rows, cols, vals

    def __getitem__(self, idx: torch.Tensor) -> "ObsBatch":
        """The rows ``idx`` (an index or boolean tensor), cut from the non-zero entries where found."""
        if idx.dtype == torch.bool:
            idx = idx.nonzero().squeeze(-1)
        csr = self._entries_csr() if self.data is None or self.device.type == "cpu" else None
        if csr is None:
            return ObsBatch(self.data[idx], self.divisor)
        row_ptr, cols, vals = csr
        starts = row_ptr[idx]
        counts = row_ptr[idx + 1] - starts
        ptr = torch.zeros(len(idx) + 1, dtype=torch.int64)
        torch.cumsum(counts, 0, out=ptr[1:])
        total = int(ptr[-1])
        # entry j of the cut is entry starts[r] + (j - ptr[r]) of this batch, r its row in the cut
        shift = torch.repeat_interleave(starts - ptr[:-1], counts, output_size=total)
        pos = torch.arange(total) + shift
        return ObsBatch(None, self.divisor, (ptr, cols[pos], vals[pos]))

    @staticmethod
    def cat(parts: Sequence["ObsBatch"]) -> "ObsBatch":
        """The batches' rows one after another (batches of one env config)."""
        if any(p.data is None for p in parts):
            return ObsBatch(torch.cat([p.float() for p in parts]), torch.ones_like(parts[0].divisor))
        return ObsBatch(torch.cat([p.data for p in parts]), parts[0].divisor)


def dense_obs(obs: "torch.Tensor | ObsBatch") -> torch.Tensor:
    """The float32 observations of a tensor or an :class:`ObsBatch`."""
    return obs.float() if isinstance(obs, ObsBatch) else obs


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
    those of the plain ``nn.Linear`` layers). Its output layers compute in
    float32, also inside :func:`matmul_precision`.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = (256, 256),
                 activation: str = "tanh") -> None:
        super().__init__()
        check_activation(activation)
        self.spec = {"obs_size": int(obs_size), "num_actions": int(num_actions),
                     "hidden": [int(h) for h in hidden], "activation": activation}
        self.actor = mlp([obs_size, *hidden, num_actions], activation, out_std=0.01)
        self.critic = mlp([obs_size, *hidden, 1], activation, out_std=1.0)
        for first in (self.actor[0], self.critic[0]):
            # the same [H, D] weights stored feature by feature (column-major): the sparse first layer reads
            # them as [D, H] rows and gets their gradient that way, with no transposing copy
            first.weight = nn.Parameter(first.weight.detach().t().contiguous().t())

    def _first_layers(self, obs: "torch.Tensor | ObsBatch", nets: Sequence[nn.Sequential]
                      ) -> list[torch.Tensor] | None:
        """The first linear layer of each of ``nets`` on a sparse batch (None: use the dense path)."""
        entries = obs.sparse_entries() if isinstance(obs, ObsBatch) else sparse_entries(obs)
        if entries is None:
            return None
        firsts = [net[0] for net in nets]
        # [D, sum of widths]: the layers' weights side by side, one copy
        weight_t = (torch.cat([f.weight.t() for f in firsts], 1) if len(firsts) > 1
                    else firsts[0].weight.t().contiguous())
        out = SparseInputLinear.apply(weight_t, obs, *entries)
        parts = out.split([f.out_features for f in firsts], dim=-1)
        return [h + f.bias for h, f in zip(parts, firsts)]

    @staticmethod
    def _tail(net: nn.Sequential, x: torch.Tensor, start: int) -> torch.Tensor:
        """``net[start:](x)`` with its output layer in float32: inside :func:`matmul_precision` the hidden
        layers' products take its dtype and the last layer's (a few percent of the work) stays float32, so
        the logits and values that PPO's ratios and value loss compare keep float32's precision."""
        if start == len(net):  # no hidden layer: the sparse first layer was the output layer (float32)
            return x
        h = net[start:-1](x)
        if not torch.is_autocast_enabled(h.device.type):  # float32 throughout: no context to enter
            return net[-1](h)
        with torch.autocast(h.device.type, enabled=False):
            return net[-1](h.float())

    def value(self, obs: "torch.Tensor | ObsBatch") -> torch.Tensor:
        """State values ``[B]`` (``obs``: float32 ``[B, D]`` or an :class:`ObsBatch`)."""
        first = self._first_layers(obs, [self.critic])
        if first is None:
            return self._tail(self.critic, dense_obs(obs), 0).squeeze(-1)
        return self._tail(self.critic, first[0], 1).squeeze(-1)

    def logits(self, obs: "torch.Tensor | ObsBatch") -> torch.Tensor:
        """Unmasked action logits ``[B, A]``."""
        first = self._first_layers(obs, [self.actor])
        if first is None:
            return self._tail(self.actor, dense_obs(obs), 0)
        return self._tail(self.actor, first[0], 1)

    def forward(self, obs: "torch.Tensor | ObsBatch") -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [B, A], values [B])``."""
        first = self._first_layers(obs, [self.actor, self.critic])
        if first is None:
            x = dense_obs(obs)
            return self._tail(self.actor, x, 0), self._tail(self.critic, x, 0).squeeze(-1)
        return self._tail(self.actor, first[0], 1), self._tail(self.critic, first[1], 1).squeeze(-1)


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
             last_values: np.ndarray, gamma: float, lam: float,
             truncated: np.ndarray | None = None,
             truncated_values: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """GAE along each seat's own turns in turn-based self-play (module docstring).

    Args:
        player: ``[T, N]`` seat that acted at step ``t`` in game ``i``.
        rewards: ``[T, N, P]`` rewards of every seat after step ``t``.
        terminated: ``[T, N]`` the game ended with step ``t`` (the env then reset it).
        values: ``[T, N]`` critic value of the actor's observation at step ``t``.
        last_values: ``[N, P]`` critic value of each seat's observation after the
            last step (the bootstrap of unfinished trajectories).
        truncated: ``[T, N]`` an engine safety bound stopped the game with step ``t`` (the env then
            reset it): each seat's last transition of it is bootstrapped, with ``truncated_values`` or,
            without them, with that seat's value at its last decision there (default: no game truncated).
        truncated_values: ``[T, N, P]`` where ``truncated[t, i]``, each seat's value of its own observation
            of the stopped game's last position (the vector env's ``final_observation``); read nowhere else.

    Returns:
        dict of ``[T, N]`` arrays: ``advantages``, ``returns``, and the
        per-seat transitions ``rewards``, ``dones``, ``next_values``.
    """
    T, N = player.shape
    ar = np.arange(N)
    cut = np.zeros((T, N), dtype=bool) if truncated is None else np.asarray(truncated, dtype=bool)
    acc = np.zeros(rewards.shape[1:], dtype=np.float64)          # rewards since a seat's last turn
    nv = np.asarray(last_values, dtype=np.float64).copy()        # value at the seat's next turn
    nd = np.zeros(acc.shape, dtype=bool)                         # the seat's next "turn" is a game end
    nadv = np.zeros(acc.shape, dtype=np.float64)                 # advantage of the seat's next turn
    own = np.zeros(acc.shape, dtype=bool)                        # ... is a bound's stop: its own value stands in
    out = {k: np.zeros((T, N), dtype=np.float64) for k in ("advantages", "rewards", "next_values")}
    out["dones"] = np.zeros((T, N), dtype=bool)
    for t in reversed(range(T)):
        end = terminated[t].astype(bool)
        acc[end] = 0.0      # what follows belongs to the next game
        nv[end] = 0.0
        nd[end] = True
        nadv[end] = 0.0
        own[end] = False
        stop = cut[t] & ~end  # stopped by a bound: the same, but bootstrapped
        acc[stop] = 0.0
        nd[stop] = False
        nadv[stop] = 0.0
        if truncated_values is None:
            own[stop] = True  # the seat's own value at its last decision stands in for the last position's
        else:
            nv[stop] = truncated_values[t][stop]
            own[stop] = False
        acc += rewards[t]
        p = player[t]
        r, d, v_next = acc[ar, p], nd[ar, p], np.where(own[ar, p], values[t], nv[ar, p])
        nonterm = 1.0 - d
        delta = r + gamma * v_next * nonterm - values[t]
        adv = delta + gamma * lam * nonterm * nadv[ar, p]
        out["advantages"][t], out["rewards"][t], out["dones"][t], out["next_values"][t] = adv, r, d, v_next
        acc[ar, p] = 0.0
        nv[ar, p] = values[t]
        nd[ar, p] = False
        own[ar, p] = False
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
    the trainer checkpoints): each epoch is ``num_minibatches`` of them, whose sizes differ by one
    at most where ``num_minibatches`` does not divide the batch (a batch of the learner's moves
    against opponents varies in size), one a transition where the batch is smaller.
    ``target_kl > 0`` stops early when the approximate KL of a minibatch exceeds it.
    """
    n = batch["obs"].shape[0]
    totals: dict[str, float] = {}
    count = 0
    for _ in range(update_epochs):
        perm = torch.randperm(n, device=batch["obs"].device)
        stop = False
        for idx in torch.tensor_split(perm, min(num_minibatches, n)) if n else ():  # no transition: no step
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
    data = load_model_file(path, map_location=device)
    if isinstance(data, dict) and isinstance(data.get("policy"), dict):  # a full training checkpoint
        data = data["policy"]
    if not isinstance(data, dict) or data.get("format") != "octagames-ppo-policy-1":
        raise ValueError(f"{path} is not an octagames PPO policy or checkpoint")
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}  # checked against the weights first
    model = built_to_fit(lambda: ActorCritic(spec["obs_size"], spec["num_actions"], spec["hidden"],
                                             spec["activation"]), data.get("state_dict"), path).to(device)
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
        self.config_warnings: set[str] = set()  # the config mismatches warned (once each, not at every reset)
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
        :attr:`allow_config_mismatch`, which warns), or another observation or action count (an earlier
        version's observation size, :attr:`~octagames.core.Game.earlier_observation_sizes`, is read as
        the prefix of today's)."""
        where = self.name if ":" in self.name else f"the policy of agent {self.name!r}"
        mine = (self.data or {}).get("game")
        if mine is not None and mine != game.name:
            raise ValueError(f"{where} was trained on {mine}; you asked for {game.name}")
        if mine is not None and "game_config" in self.data:
            check_config(mine, self.data["game_config"], game.config, where, self.allow_config_mismatch,
                         self.config_warnings)
        spec = self.model.spec
        if not game.reads_observation(spec["obs_size"]) or game.num_actions != spec["num_actions"]:
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
        obs = torch.as_tensor(turn.observation[:self.model.spec["obs_size"]], dtype=torch.float32,
                              device=device).unsqueeze(0)
        mask = torch.as_tensor(turn.legal_mask.astype(bool), device=device).unsqueeze(0)
        gen = self._gen if device.type == "cpu" else None
        logits = self.model.logits(obs)
        action, _ = sample_actions(logits, mask, greedy=self.greedy, generator=gen)
        if turn.tell:  # the critic's pass only when the caller keeps the thinking
            probs = torch.softmax(masked_logits(logits, mask), dim=-1)[0].double().cpu().numpy()
            self.last_thinking = considered(turn, int(action.item()), policy=probs,
                                            value=float(self.model.value(obs)[0]))
        return int(action.item())


def _factory(game: str, arg: str | None) -> Agent:
    if not arg:
        raise ValueError("agent 'ppo' needs a path: 'ppo:<policy or checkpoint path>'")
    greedy = True
    if arg.endswith("@sample"):
        arg, greedy = arg[: -len("@sample")], False
    return PPOAgent.load(arg, greedy=greedy)
