"""A learned rollout policy: a score per action, linear in the facts it is about, compiled.

The paired rollouts of :mod:`octagames.agents.search.rollouts` play every seat by a policy
thousands of times per decision, so that policy must cost about what a rules step costs:
a network forward pass per move (about 0.3 ms for Octa's) would make a decision take
minutes. AlphaGo's answer was a second, fast policy learned from the same data: a linear
softmax over features of each move. :class:`LearnedRollout` is that policy here. For
a game whose observation has a block of facts per card row and whose actions each name
up to ``R`` of those rows (``action_rows`` in its rules module: Octa's ``facts``), each
legal action ``a`` scores

    bias[a] + weight[group[a]] . (the facts of row refs[a, 0], ..., row refs[a, R - 1])
            + action_embed[a] . (embed @ observation)

(``group[a]``: the block of the action table ``a`` belongs to; a row of -1 adds nothing; the last
term, of a small ``rank``, reads the whole observation: what a move's facts do not say, such as the
phase or the action cards, and 0 columns leave it out), and the highest score is played, ties to
the lowest action id. The weights are learned
(:func:`fit`) from a teacher's choices (:func:`teacher_decisions`: the game's heuristic by
default); at play time nothing hand-written chooses a move. The compiled kernels are the
template :mod:`octagames.agents.search._learned_playout_template`, specialised per game.

A model file carries the policy beside its network (:func:`~octagames.agents.learn.az.save_model`'s
``learned``), and its search plays by it where ``belief_model="learned"``
(:class:`~octagames.agents.learn.az.SearchConfig`); ``net:<variant>`` does so where the
zoo file carries one (:func:`~octagames.agents.learn.az.network_only`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from octagames.agents.arena import progress_bar, wilson_interval
from octagames.agents.base import make_turn
from octagames.agents.registry import make_agent
from octagames.agents.search.mcts import has_playout_policy, playout_kernels, playout_policy, playout_target
from octagames.core import Game
from octagames.specialize import specialize

TEMPLATE = "octagames.agents.search._learned_playout_template"


@dataclass(frozen=True)
class Features:
    """What the policy of ``game`` reads: the facts block (``offset``, ``rows`` x ``k``), the rows each
    action is about (``refs [A, R]``, -1: none) and each action's group (``group [A]``)."""

    offset: int
    rows: int
    k: int
    refs: np.ndarray = field(repr=False)
    group: np.ndarray = field(repr=False)

    @property
    def groups(self) -> int:
        """How many groups (blocks of the action table)."""
        return int(self.group.max()) + 1

    @property
    def inputs(self) -> int:
        """Facts per action (``R * k``)."""
        return int(self.refs.shape[1]) * self.k

    def read(self) -> np.ndarray:
        """bool ``[groups, inputs]``: the weights some action reads (a group's row slot that some action of the
        group fills); the others weigh nothing in any score."""
        out = np.zeros((self.groups, self.inputs), bool)
        for j in range(self.refs.shape[1]):
            out[np.unique(self.group[self.refs[:, j] >= 0]), j * self.k:(j + 1) * self.k] = True
        return out


def has_features(game: Game) -> bool:
    """Whether ``game``'s rules name facts for learners (``action_rows`` in its rules module): the games that
    can have a learned rollout policy."""
    return getattr(game.module, "action_rows", None) is not None


def features(game: Game) -> Features:
    """The facts ``game``'s rules name for learners (``action_rows(config)`` in its rules module).

    Raises:
        ValueError: the game names none (only such games can have a learned rollout policy).
    """
    if not has_features(game):
        raise ValueError(f"a learned rollout policy reads the facts each action is about; {game.name} names none "
                         "(its rules module has no action_rows)")
    name, refs = game.module.action_rows(game.config)
    layout = game.observation_layout
    block = layout.block(name)
    if len(block.shape) != 2:
        raise ValueError(f"action_rows of {game.name}: block {name!r} has shape {block.shape}, not [rows, k]")
    actions = game.action_layout
    group = np.array([actions.blocks.index(actions.locate(a)[0]) for a in range(game.num_actions)], np.int64)
    return Features(layout.offset(name), int(block.shape[0]), int(block.shape[1]),
                    np.ascontiguousarray(refs, dtype=np.int64), group)


def kernels(game: Game) -> ModuleType:
    """The compiled kernels of the template for ``game`` (loaded once per process); its ``opponent`` is
    the game's compiled heuristic where it has one (uniformly random play otherwise)."""
    opponent = playout_target(game) if has_playout_policy(game.name) else None
    return specialize(TEMPLATE, game=game.kernel_module,
                      opponent=opponent or "octagames.agents.search.mcts:random_policy")


class LearnedRollout:
    """The linear rollout policy of one game (see the module docstring).

    Args:
        game: the game it plays.
        weight: ``[groups, R * k]`` weights (:attr:`Features.groups`, :attr:`Features.inputs`).
        bias: ``[num_actions]`` biases.
        embed: ``[rank, observation_size]``, the observation's embedding (None: rank 0).
        action_embed: ``[num_actions, rank]``, each action's weights over the embedding.

    Raises:
        ValueError: the game names no facts (:func:`features`), the shapes do not fit it, or a
            weight is not finite.
    """

    def __init__(self, game: Game, weight: Any, bias: Any, embed: Any = None, action_embed: Any = None) -> None:
        self.game = game
        self.features = f = features(game)
        self.weight = np.ascontiguousarray(weight, dtype=np.float64)
        self.bias = np.ascontiguousarray(bias, dtype=np.float64)
        if (embed is None) != (action_embed is None):
            raise ValueError("give both embed and action_embed, or neither")
        rank = 0 if embed is None else len(embed)
        self.embed = np.ascontiguousarray(np.zeros((0, game.observation_size)) if embed is None else embed,
                                          dtype=np.float64)
        self.action_embed = np.ascontiguousarray(np.zeros((game.num_actions, 0)) if action_embed is None
                                                 else action_embed, dtype=np.float64)
        shapes = [(self.weight.shape, (f.groups, f.inputs)), (self.bias.shape, (game.num_actions,)),
                  (self.embed.shape, (rank, game.observation_size)),
                  (self.action_embed.shape, (game.num_actions, rank))]
        if any(got != want for got, want in shapes):
            raise ValueError(f"a learned rollout policy of {game.name} has weight [{f.groups}, {f.inputs}], bias "
                             f"[{game.num_actions}], embed [rank, {game.observation_size}] and action_embed "
                             f"[{game.num_actions}, rank]; got {', '.join(str(list(got)) for got, _ in shapes)}")
        if not all(np.isfinite(x).all() for x in (self.weight, self.bias, self.embed, self.action_embed)):
            raise ValueError("a learned rollout policy's weights must be finite")
        self._mask = np.zeros(game.num_actions, np.uint8)
        self._obs = np.zeros(game.observation_size, np.float32)
        self._h = np.zeros(rank)
        self._embed_t = np.ascontiguousarray(self.embed.T)  # the kernels read one row per observation entry

    @property
    def rank(self) -> int:
        """Columns of the observation's embedding (0: the facts alone)."""
        return len(self.embed)

    def _args(self) -> tuple[Any, ...]:
        f = self.features
        return (self._mask, self._obs, self.weight, self.bias, f.group, f.refs, np.int64(f.offset), np.int64(f.k),
                self._embed_t, self.action_embed, self._h)

    def scores(self, observation: np.ndarray, legal: Sequence[int]) -> np.ndarray:
        """Every action's score in ``legal`` given the acting seat's observation (numpy; what the
        compiled policy computes)."""
        f = self.features
        table = np.concatenate([np.asarray(observation[f.offset:f.offset + f.rows * f.k], np.float64)
                                .reshape(f.rows, f.k), np.zeros((1, f.k))])
        acts = np.asarray(legal, np.int64)
        x = table[np.where(f.refs[acts] < 0, f.rows, f.refs[acts])].reshape(len(acts), -1)
        h = self.embed @ np.asarray(observation, np.float64)
        return self.bias[acts] + np.einsum("ij,ij->i", x, self.weight[f.group[acts]]) + self.action_embed[acts] @ h

    def actions(self, records: np.ndarray, seats: Sequence[int]) -> np.ndarray:
        """The policy's action for ``seats[r]`` in every record (-1 where none is legal); the records
        are not changed."""
        recs = np.array(records, dtype=self.game.dtype, copy=True).reshape(-1)
        out = np.zeros(len(recs), np.int64)
        kernels(self.game).policy_many(recs, np.asarray(seats, np.int64), *self._args(), out)
        return out

    def action(self, state: np.void, seat: int) -> int:
        """The policy's action for ``seat`` in ``state`` (reads only what the seat observes)."""
        return int(self.actions(np.array(state, dtype=self.game.dtype).reshape(1), [seat])[0])

    def rollout_values(self, worlds: Sequence[np.void], seat: int, legal: Sequence[int]) -> np.ndarray:
        """``values[w, i]``: ``seat``'s win (1, 1/2 for a draw or a game past its length bound, 0) in world
        ``w`` when it plays ``legal[i]`` and then every seat plays by this policy, chance by the world's
        RNG (the actions of one world meet the same draws while their games run alike); the worlds are
        not changed."""
        g = self.game
        recs = np.array(worlds, dtype=g.dtype).reshape(len(worlds))
        work = np.zeros(1, g.dtype)
        values = np.zeros((len(recs), len(legal)))
        P = g.info.max_players
        kernels(g).rollout_values(recs.view(np.uint8).reshape(len(recs), -1), work, work.view(np.uint8),
                                  np.int64(seat), np.int64(g.num_players), np.asarray(legal, np.int64), *self._args(),
                                  np.int64(g.max_game_length), np.zeros(P), np.zeros(P), values)
        return values

    def duel_wins(self, games: int, seed: int = 0) -> np.ndarray:
        """``wins[i]``: this policy's win value (1, 1/2 for a draw or a game past its length bound, 0) in game
        ``i`` of ``games`` against the game's compiled heuristic in every other seat, the policy's seat
        rotated (game ``i``: seat ``i % players``, dealt by :meth:`~octagames.core.Game.new_batch` with
        seed ``seed + i``), played to the end in compiled code.

        Raises:
            ValueError: ``games`` < 1, or the game has no compiled heuristic to play against.
        """
        g = self.game
        if games < 1:
            raise ValueError(f"games={games} is not valid; it must be >= 1")
        if not has_playout_policy(g.name):
            raise ValueError(f"{g.name} has no compiled heuristic for the learned policy to play against")
        records = g.new_batch(games, seed)
        seats = (np.arange(games) % g.num_players).astype(np.int64)
        wins = np.zeros(games)
        P = g.info.max_players
        kernels(g).duel_values(records, seats, *self._args(), np.int64(g.num_players), np.int64(g.max_game_length),
                               np.zeros(P), np.zeros(P), wins)
        return wins

    def state(self) -> dict[str, Any]:
        """What a model file keeps (:meth:`from_state` reads it back)."""
        import torch

        return {"weight": torch.as_tensor(self.weight), "bias": torch.as_tensor(self.bias),
                "embed": torch.as_tensor(self.embed), "action_embed": torch.as_tensor(self.action_embed)}

    @classmethod
    def from_state(cls, game: Game, state: dict[str, Any]) -> "LearnedRollout":
        """The policy a model file keeps (:meth:`state`), for ``game``.

        An embedding of an earlier version of the game's observation
        (:attr:`~octagames.core.Game.earlier_observation_sizes`, which grew at its end) reads that prefix.

        Raises:
            ValueError: it is not a learned rollout policy of this game (the keys or shapes differ).
        """
        keys = {"weight", "bias", "embed", "action_embed"}
        if not isinstance(state, dict) or not {"weight", "bias"} <= set(state) <= keys:
            raise ValueError(f"a learned rollout policy is {sorted(keys)} (no embedding: rank 0); got "
                             f"{sorted(state) if isinstance(state, dict) else type(state).__name__}")
        arrays = [np.asarray(state[k], np.float64) for k in ("weight", "bias", "embed", "action_embed") if k in state]
        if len(arrays) == 4 and arrays[2].ndim == 2 and arrays[2].shape[1] in game.earlier_observation_sizes:
            # an embedding of an earlier, shorter observation reads its prefix (the later entries weigh 0)
            arrays[2] = np.pad(arrays[2], ((0, 0), (0, game.observation_size - arrays[2].shape[1])))
        return cls(game, *arrays)


@dataclass
class Decisions:
    """A teacher's decisions: the acting seat's observation (``observations [N, D]``, float16), the
    legal actions (``legal [N, L]``, -1 padded) and the index of the teacher's choice in each row."""

    observations: np.ndarray
    legal: np.ndarray
    choice: np.ndarray

    def __len__(self) -> int:
        return len(self.choice)


def teacher_decisions(game: Game, games: int, seed: int = 0, epsilon: float = 0.1, teacher: str = "heuristic",
                      progress: bool = False) -> Decisions:
    """Every decision with more than one legal action in ``games`` games of ``teacher`` in every seat.

    Args:
        game: a game whose rules name facts (:func:`features`).
        games: games to play (game ``i`` deals with seed ``(seed * 1_000_003 + i) % 2**63``).
        seed: the seed of the deals and of the random moves.
        epsilon: share of moves played at random instead of the teacher's (the teacher's choice is still
            the label): positions the teacher alone would not reach.
        teacher: an agent spec (:func:`~octagames.agents.registry.make_agent`).
        progress: show a progress bar.

    Raises:
        ValueError: ``games`` < 1, ``epsilon`` outside [0, 1], or the game names no facts.
    """
    if games < 1:
        raise ValueError(f"games={games} is not valid; it must be >= 1")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon={epsilon} is not valid; it must be in [0, 1]")
    features(game)
    agents = [make_agent(teacher, game) for _ in range(game.num_players)]
    # the heuristic's compiled port where it is the teacher: the same choices without a Turn's copies
    compiled = playout_kernels(game.kernel_module, playout_policy(game)).policy_many \
        if teacher == "heuristic" and has_playout_policy(game.name) else None
    chosen = np.zeros(1, np.int64)
    rng = np.random.default_rng(seed)
    observations, legal, choice = [], [], []
    bar = progress_bar(games, f"{game.name}: {teacher} decisions", progress)
    for i in range(games):
        s = game.new_state((seed * 1_000_003 + i) % 2**63)  # the engine's seeds are 0..2**63-1
        for p, agent in enumerate(agents):
            agent.reset(game, p, int(rng.integers(1 << 31)))
        while not game.is_terminal(s):
            if game.is_chance(s):
                game.play_chance(s)
                continue
            p = game.acting_player(s)
            if compiled is not None:
                mask = game.legal_mask(s, p).astype(np.uint8)
                compiled(np.array(s, dtype=game.dtype).reshape(1), np.array([p], np.int64), mask[None, :], chosen)
                acts, a = np.flatnonzero(mask), int(chosen[0])
            else:
                turn = make_turn(game, s, p, int(rng.integers(1 << 31)))
                acts, a = turn.legal_actions, int(agents[p].act(turn))
            if len(acts) > 1:
                observations.append(game.observation(s, p).astype(np.float16))
                legal.append(acts)
                choice.append(int(np.flatnonzero(acts == a)[0]))
                if rng.random() < epsilon:
                    a = int(rng.choice(acts))
            game.apply_action(s, a)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    width = max((len(x) for x in legal), default=1)
    padded = np.full((len(legal), width), -1, np.int64)
    for r, acts in enumerate(legal):
        padded[r, :len(acts)] = acts
    return Decisions(np.stack(observations) if observations else np.zeros((0, game.observation_size), np.float16),
                     padded, np.asarray(choice, np.int64))


def fit(game: Game, data: Decisions, steps: int = 4000, batch_size: int = 1024, learning_rate: float = 0.01,
        held_out: float = 0.1, seed: int = 0, eval_every: int = 500, rank: int = 0
        ) -> tuple[LearnedRollout, list[dict[str, float]]]:
    """A :class:`LearnedRollout` fitted to ``data``'s choices (softmax over the legal actions, Adam).

    Args:
        game: the game of ``data``.
        data: the teacher's decisions (:func:`teacher_decisions`).
        rank: columns of the observation's embedding (0: the facts alone).
        steps: Adam steps of ``batch_size`` decisions drawn from the training share.
        learning_rate: Adam's step size.
        held_out: share of the decisions kept out of training to measure the agreement on.
        seed: the split's and the batches' seed (torch's global RNG is not touched).
        eval_every: steps between two points of the curve.

    Returns:
        The policy and its curve: ``{"step", "loss", "held_out_accuracy"}`` per point (the share of
        held-out decisions where the policy's highest score is the teacher's choice).

    Raises:
        ValueError: too few decisions for the split, or a step count, batch size or share out of range.
    """
    import torch

    if rank < 0:
        raise ValueError(f"rank={rank} is not valid; it must be >= 0")
    if steps < 1 or batch_size < 1 or learning_rate <= 0 or eval_every < 1:
        raise ValueError(f"steps={steps}, batch_size={batch_size}, learning_rate={learning_rate}, "
                         f"eval_every={eval_every}: each must be positive")
    if not 0.0 < held_out < 1.0:
        raise ValueError(f"held_out={held_out} is not valid; it must be in (0, 1)")
    n_test = int(len(data) * held_out)
    if n_test < 1 or len(data) - n_test < 1:
        raise ValueError(f"{len(data)} decisions are too few to keep {held_out:g} of them out of training")
    f = features(game)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    test, train = order[:n_test], order[n_test:]
    observations = torch.as_tensor(data.observations)
    legal = torch.as_tensor(data.legal)
    target = torch.as_tensor(data.choice)
    refs = torch.as_tensor(np.where(f.refs < 0, f.rows, f.refs))
    group = torch.as_tensor(f.group)
    weight = torch.zeros(f.groups, f.inputs, dtype=torch.float64, requires_grad=True)
    bias = torch.zeros(game.num_actions, dtype=torch.float64, requires_grad=True)
    gen = torch.Generator().manual_seed(seed)
    embed = (torch.randn(rank, game.observation_size, generator=gen, dtype=torch.float64) * 0.01).requires_grad_()
    action_embed = torch.zeros(game.num_actions, rank, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([weight, bias, embed, action_embed], lr=learning_rate)

    def logits(rows: np.ndarray) -> torch.Tensor:
        idx = torch.as_tensor(rows)
        obs = observations[idx].double()
        table = obs[:, f.offset:f.offset + f.rows * f.k].reshape(len(idx), f.rows, f.k)
        table = torch.cat([table, table.new_zeros(len(idx), 1, f.k)], 1)  # row f.rows: no row
        acts = legal[idx]
        valid = acts >= 0
        acts = acts.clamp(min=0)
        x = table[torch.arange(len(idx))[:, None, None], refs[acts]].reshape(len(idx), acts.shape[1], -1)
        z = (x * weight[group[acts]]).sum(-1) + bias[acts] + (action_embed[acts] * (obs @ embed.t())[:, None]).sum(-1)
        return z.masked_fill(~valid, -1e30)

    def accuracy() -> float:
        with torch.no_grad():
            right = sum(int((logits(test[i:i + 8192]).argmax(1) == target[test[i:i + 8192]]).sum())
                        for i in range(0, len(test), 8192))
        return right / len(test)

    curve = []
    for step in range(1, steps + 1):
        rows = train[rng.integers(len(train), size=batch_size)]
        loss = torch.nn.functional.cross_entropy(logits(rows), target[torch.as_tensor(rows)])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % eval_every == 0 or step == steps:
            curve.append({"step": step, "loss": float(loss.detach()), "held_out_accuracy": accuracy()})
    learned = LearnedRollout(game, weight.detach().numpy(), bias.detach().numpy(),
                             *((embed.detach().numpy(), action_embed.detach().numpy()) if rank else ()))
    return learned, curve


def improve(policy: LearnedRollout, iterations: int = 100, pairs: int = 32, games: int = 1000, sigma: float = 0.4,
            learning_rate: float = 0.1, seed: int = 0, eval_games: int = 4000, eval_every: int = 10,
            threads: int | None = None, progress: bool = False,
            on_point: Callable[[LearnedRollout, list[dict[str, float]]], None] | None = None,
            blocks: Sequence[str] = ()) -> tuple[LearnedRollout, list[dict[str, float]]]:
    """``policy`` improved by its games against the game's compiled heuristic (evolution strategies).

    Each iteration draws ``pairs`` directions ``e`` over the weights the policy reads (the weights of a
    group's row slot that some action of the group fills, and every bias; with ``blocks``, only those of
    the actions in these blocks of the action table, the others kept as they are), plays the two policies
    ``theta +- sigma * scale * e`` (``scale = |theta| + 1/4``: a step relative to each weight) in the same
    ``games`` deals each (:meth:`LearnedRollout.duel_wins`, seats rotated; the same deals for every
    candidate, fresh ones every iteration), ranks the ``2 * pairs`` win rates (centred ranks) and moves
    ``theta`` by Adam (``learning_rate``, in the same relative units) along the rank-weighted directions:
    Salimans et al.'s evolution strategies with antithetic pairs and common random numbers. Every
    ``eval_every`` iterations (and before the first) the policy plays ``eval_games`` deals kept for
    that (never an iteration's), the curve's points.

    Args:
        policy: the policy to start from (:func:`fit`'s clone of the heuristic is a good start); not changed.
        iterations: iterations (each plays ``2 * pairs * games`` games).
        pairs: antithetic pairs of candidates per iteration.
        games: deals each candidate plays per iteration (seats rotated).
        sigma: the candidates' spread, relative to each weight's scale.
        learning_rate: Adam's step, relative to each weight's scale.
        seed: the seed of the directions and of the deals; the result does not depend on ``threads``.
        eval_games: the held-out deals of a curve point.
        eval_every: iterations between two curve points.
        threads: threads playing the candidates (None: every core this process may use).
        progress: show a progress bar over the iterations.
        on_point: called with the policy and the curve so far at every curve point (e.g. to save both).
        blocks: the blocks of the action table (``game.action_layout``) whose weights and biases are tuned
            (empty: all): fewer directions, each better measured, for instance to learn the weights of a
            row added to what an action is about while the rest stay as an earlier run left them.

    Returns:
        The improved policy (the last iterate, which the last curve point measured) and its curve:
        ``{"iteration", "games", "win_rate", "lower", "upper"}`` per point (``games``: games played by
        the candidates so far; ``win_rate``: on the held-out deals, with its 95% Wilson interval). A run
        stopped by ``KeyboardInterrupt`` (Ctrl-C) returns the policy of its last curve point and the curve
        so far (its last ``iteration`` then falls short of ``iterations``).

    Raises:
        ValueError: a count or step out of range, a policy with an observation embedding (rank > 0), a
            game without a compiled heuristic, or a block the action table does not have.
    """
    g, f = policy.game, policy.features
    for name, value in (("iterations", iterations), ("pairs", pairs), ("games", games), ("eval_games", eval_games),
                        ("eval_every", eval_every)):
        if value < 1:
            raise ValueError(f"{name}={value} is not valid; it must be >= 1")
    if not (sigma > 0 and learning_rate > 0):
        raise ValueError(f"sigma={sigma} and learning_rate={learning_rate} must both be > 0")
    if policy.rank:
        raise ValueError(f"improve() tunes a policy of the facts alone; this one has an embedding of rank "
                         f"{policy.rank}")
    if not has_playout_policy(g.name):
        raise ValueError(f"{g.name} has no compiled heuristic for the learned policy to play against")
    names = [b.name for b in g.action_layout.blocks]
    unknown = sorted(set(blocks) - set(names))
    if unknown:
        raise ValueError(f"blocks={list(blocks)}: {unknown} not in the action table of {g.name}; valid values: {names}")
    tuned = np.isin(np.arange(f.groups), [names.index(b) for b in blocks]) if blocks else np.ones(f.groups, bool)
    read = f.read() & tuned[:, None]  # the weights some action reads (of the tuned blocks)
    biases = np.flatnonzero(tuned[f.group])  # the tuned actions' biases
    n_weights = int(read.sum())

    def unpack(theta: np.ndarray) -> LearnedRollout:
        weight, bias = policy.weight.copy(), policy.bias.copy()
        weight[read] = theta[:n_weights]
        bias[biases] = theta[n_weights:]
        return LearnedRollout(g, weight, bias)

    theta = np.concatenate([policy.weight[read], policy.bias[biases]])
    scale = np.abs(theta) + 0.25
    rng = np.random.default_rng(seed)
    eval_seed = (2 * seed + 1) << 40  # the held-out deals; an iteration's are (2 * seed + 2) << 40 onwards
    first, second = np.zeros_like(theta), np.zeros_like(theta)
    curve: list[dict[str, float]] = []
    played = 0
    kept = [theta]  # the weights of the last curve point

    def point(it: int) -> None:
        wins = unpack(theta).duel_wins(eval_games, eval_seed)
        lo, hi = wilson_interval(float(wins.sum()), eval_games)
        curve.append({"iteration": it, "games": played, "win_rate": float(wins.mean()), "lower": lo, "upper": hi})
        kept[0] = theta
        if on_point is not None:
            on_point(unpack(theta), curve)

    bar = progress_bar(iterations, f"{g.name}: improving the learned policy", progress)
    pool = ThreadPoolExecutor(threads or len(os.sched_getaffinity(0)))
    point(0)
    try:
        for it in range(1, iterations + 1):
            eps = rng.standard_normal((pairs, len(theta)))
            deals = ((2 * seed + 2) << 40) + it * games
            candidates = [unpack(theta + sign * sigma * scale * e) for sign in (1, -1) for e in eps]
            rates = np.array(list(pool.map(lambda c: c.duel_wins(games, deals).mean(), candidates)))
            played += len(candidates) * games
            ranks = np.empty(len(rates))
            ranks[np.argsort(rates, kind="stable")] = np.arange(len(rates))
            ranks = ranks / (len(rates) - 1) - 0.5
            grad = ((ranks[:pairs] - ranks[pairs:])[:, None] * eps).mean(0)
            first = 0.9 * first + 0.1 * grad
            second = 0.999 * second + 0.001 * grad ** 2
            theta = theta + scale * learning_rate * (first / (1 - 0.9 ** it)) / (np.sqrt(second / (1 - 0.999 ** it))
                                                                                  + 1e-8)
            if it % eval_every == 0 or it == iterations:
                point(it)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(win_rate=f"{curve[-1]['win_rate']:.3f}")
    except KeyboardInterrupt:  # stopped: the policy of the last curve point, which the curve measured
        pass
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()
    return unpack(kept[0]), curve
