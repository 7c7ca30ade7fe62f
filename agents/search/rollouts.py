"""Rollouts by a game's compiled heuristic: one step of policy improvement, paired over the same worlds.

A hand-written heuristic makes a few bad choices among many good ones. This agent
keeps the heuristic's choice unless the rollouts show, clearly, that another action
does better:

1. draw ``worlds`` determinizations of the decision (``Game.determinize``: what the
   seat cannot see is dealt uniformly again);
2. in every world, play every legal action and then the whole game to its end by
   the game's compiled heuristic for every seat
   (:func:`~octagames.agents.search.mcts.playout_policy`), chance by the world's own RNG:
   the actions of one world meet the same draws while their games run alike
   (common random numbers), so their outcomes are compared in pairs;
3. play the heuristic's own choice, unless another action's mean paired
   difference in wins is above ``margin`` standard errors (:func:`paired_choice`):
   then the action with the largest such difference.

The worlds are played 32 at a time, and an action more than 2 standard errors below
the heuristic's choice plays no more of them (:func:`pruned_values`).

A long game (Octa: about 290 decisions) is decided by far more than one choice, so
most actions' win rates differ by less than the noise of a few hundred playouts; an
argmax over them plays noise. The margin keeps the heuristic wherever the rollouts
cannot tell.

The worlds are uniform determinizations: the other seats' past moves are not used
to weigh them (Achten has such a belief, :mod:`octagames.agents.search.belief_achten`).
Against the heuristic itself the playouts are an exact model of the other seat;
against anything else they are an approximation.

``make_agent("rollout", "octa")``, ``"rollout:<worlds>"`` or ``"rollout:<worlds>:m=<margin>"``,
for every game with a compiled heuristic. The network search of the zoo can play by
the same rollouts (:attr:`~octagames.agents.learn.az.SearchConfig.rollout_margin`, where the
game's spec names this module as its belief: ``belief=`` in ``octagames/octa/variants.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np

from octagames.agents.base import Agent, Turn, considered_rollouts
from octagames.agents.search.learned_rollouts import LearnedRollout
from octagames.agents.search.mcts import has_playout_policy, playout_games, playout_kernels, playout_policy
from octagames.core import Game, is_count

NETWORK_ROLLOUTS = False
"""The playouts are compiled: a network cannot play this seat's later moves in them
(:attr:`~octagames.agents.learn.az.SearchConfig.rollout_policy` must be ``"model"``)."""

LEARNED_MODEL = True
"""A learned rollout policy (:class:`~octagames.agents.search.learned_rollouts.LearnedRollout`, compiled)
can take the heuristic's place as the model of every seat: ``learned=`` of :func:`model_action` and
:func:`rollout_values` (``belief_model="learned"``)."""


def check_game(game: Game, who: str = "the heuristic rollouts") -> None:
    """Refuse games without a compiled heuristic (:func:`~octagames.agents.search.mcts.playout_games`)."""
    if not has_playout_policy(game.name):
        raise ValueError(f"{who} need a compiled heuristic; {game.name!r} has none "
                         f"(games with one: {playout_games()})")


def kernels(game: Game) -> ModuleType:
    """The compiled playout kernels of ``game`` with its heuristic (``specialize`` loads them once per process)."""
    check_game(game)
    return playout_kernels(game.kernel_module, playout_policy(game))


def believed_worlds(game: Game, state: np.void, seat: int, rng: np.random.Generator,
                    worlds: int = 128) -> list[np.void]:
    """``worlds`` uniform determinizations of ``state`` for ``seat`` (each with its own RNG seed)."""
    return [game.determinize(state, seat, int(rng.integers(1 << 30))) for _ in range(worlds)]


def model_action(game: Game, s: np.void, seat: int, learned: LearnedRollout | None = None) -> int:
    """The compiled heuristic's action for ``seat`` in ``s`` (reads only what ``seat`` sees; ``s`` is not
    changed, a copy's RNG draws its rare random choice), or the ``learned`` policy's."""
    if learned is not None:
        return learned.action(s, seat)
    mask = game.legal_mask(s, seat).astype(np.uint8)[None, :]
    out = np.zeros(1, np.int64)
    kernels(game).policy_many(np.array(s, dtype=game.dtype).reshape(1), np.array([seat], np.int64), mask, out)
    return int(out[0])


Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def rollout_values(game: Game, worlds: Sequence[np.void], seat: int, legal: Sequence[int],
                   policy: Policy | None = None, learned: LearnedRollout | None = None) -> np.ndarray:
    """``values[w, i]``: ``seat``'s win (1, 1/2 for a draw or a game past its length bound, 0) in world
    ``w`` when it plays ``legal[i]`` and then every seat plays by the compiled heuristic (or by the
    ``learned`` policy: :meth:`~octagames.agents.search.learned_rollouts.LearnedRollout.rollout_values`).

    Args:
        game: a game with a compiled heuristic.
        worlds: full records (e.g. :func:`believed_worlds`); they are not changed.
        seat: the seat that decides.
        legal: the actions to try, each legal in every world.
        policy: must be None: the playouts are compiled, so this seat's later moves are the
            heuristic's too (a network cannot play inside them).
        learned: a learned rollout policy of ``game`` to play every seat instead of the heuristic.

    Raises:
        ValueError: ``policy`` is given, or the game has no compiled heuristic (and no ``learned`` is given).
    """
    if policy is not None:
        raise ValueError(f"the compiled rollouts of {game.name} play every seat by its heuristic; "
                         "a network rollout policy is not available (use rollout_policy='model')")
    if learned is not None:
        return learned.rollout_values(worlds, seat, legal)
    k = kernels(game)
    recs = np.array(worlds, dtype=game.dtype).reshape(len(worlds))
    work = np.zeros(1, game.dtype)
    values = np.zeros((len(recs), len(legal)))
    P = game.info.max_players
    k.rollout_values(recs.view(np.uint8).reshape(len(recs), -1), work, work.view(np.uint8),
                     np.int64(seat), np.int64(game.num_players), np.asarray(legal, np.int64),
                     np.zeros(game.num_actions, np.uint8), np.int64(game.max_game_length), np.zeros(P),
                     np.zeros(P), values)
    return values


def rollout_wins(game: Game, worlds: Sequence[np.void], seat: int, legal: Sequence[int],
                 policy: Policy | None = None, learned: LearnedRollout | None = None) -> np.ndarray:
    """``seat``'s wins per legal action, summed over ``worlds`` (:func:`rollout_values`)."""
    return rollout_values(game, worlds, seat, legal, policy, learned).sum(axis=0)


def paired_choice(values: np.ndarray, base: int, margin: float, vote: np.ndarray | None = None) -> int:
    """The index of the action to play from per-world win values ``values[w, i]``.

    Each action's difference to action ``base`` is taken world by world (paired). An action
    is a candidate when its mean difference is above ``margin`` standard errors of that
    mean (and above zero); ``base`` always is. Among the candidates the largest mean
    difference plus ``vote`` (e.g. a network's visit shares, times a weight) wins; without
    a vote ``base`` keeps every tie.

    Args:
        values: ``(worlds, actions)`` win values, one row per world; NaN where an action did not
            play that world (:func:`pruned_values`): its statistics use the worlds it played.
        base: the index of the default action (the heuristic's choice).
        margin: standard errors a candidate's mean difference must exceed (0: any gain).
        vote: optional ``(actions,)`` bonus added among the candidates.
    """
    if margin < 0:
        raise ValueError(f"margin={margin} is not valid; it must be >= 0")
    if not 0 <= base < values.shape[1]:
        raise ValueError(f"base={base} is not valid; values have {values.shape[1]} actions")
    mean, se = paired_stats(values, base)
    candidate = (mean > margin * se) & (mean > 0)
    candidate[base] = True
    score = np.where(candidate, mean + (0.0 if vote is None else vote), -np.inf)
    best = float(score.max())
    if score[base] >= best:
        return base
    return int(np.flatnonzero(score == best)[0])


def paired_stats(values: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """Every action's mean paired difference to action ``base`` and its standard error, over the worlds
    (rows) it played (NaN rows of ``values`` are left out; one world gives a standard error of 0)."""
    d = values - values[:, base:base + 1]
    n = np.sum(~np.isnan(d), axis=0)
    full = np.where(np.isnan(d), 0.0, d)
    mean = full.sum(axis=0) / np.maximum(n, 1)
    var = np.where(np.isnan(d), 0.0, (d - mean) ** 2).sum(axis=0) / np.maximum(n - 1, 1)
    return mean, np.sqrt(var / np.maximum(n, 1))


def pruned_values(play: Callable[[list[np.void], np.ndarray], np.ndarray], worlds: Sequence[np.void],
                  num_actions: int, base: int, chunk: int = 32, drop: float = 2.0) -> np.ndarray:
    """Per-world win values of ``num_actions`` actions, played ``chunk`` worlds at a time; an action
    clearly worse than ``base`` plays no more worlds.

    After each chunk an action whose mean paired difference to ``base`` is below ``-drop``
    standard errors (:func:`paired_stats`) is dropped: it would need a reversal far beyond its
    noise to become a candidate of :func:`paired_choice`, so its playouts go to the actions
    still in doubt. Its later rows are NaN.

    Args:
        play: ``play(worlds, actions) -> values[len(worlds), len(actions)]`` (indices into the
            actions), e.g. :func:`rollout_values` over a subset of the legal actions.
        worlds: the worlds, in the order they are played.
        num_actions: how many actions; ``base`` is one of them.
        chunk: worlds per round of playouts.
        drop: standard errors below zero that drop an action (0: none is dropped).
    """
    if chunk < 2:
        raise ValueError(f"chunk={chunk} is not valid; it must be >= 2")
    values = np.full((len(worlds), num_actions), np.nan)
    live = np.arange(num_actions)
    for start in range(0, len(worlds), chunk):
        stop = min(start + chunk, len(worlds))
        values[start:stop, live] = play(list(worlds[start:stop]), live)
        if drop > 0 and stop < len(worlds):
            mean, se = paired_stats(values[:stop], base)
            live = live[(mean[live] + drop * se[live] >= 0) | (live == base)]
            if len(live) == 1:
                break
    return values


class RolloutAgent(Agent):
    """The heuristic, improved by paired rollouts where they clearly disagree (see the module docstring).

    Args:
        worlds: determinizations per decision (each played out once per legal action).
        margin: standard errors by which an action must beat the heuristic's choice.
    """

    name = "rollout"

    def __init__(self, worlds: int = 128, margin: float = 1.0) -> None:
        if worlds < 2:
            raise ValueError(f"worlds={worlds} is not valid; it must be >= 2 (the margin needs a spread)")
        if not 0 <= margin < math.inf:  # NaN fails every comparison
            raise ValueError(f"margin={margin} is not valid; it must be a finite number >= 0")
        self.worlds, self.margin = worlds, margin
        self.rng = np.random.default_rng(0)
        self.game: Game | None = None

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Check the game has a compiled heuristic; seed the worlds."""
        check_game(game, "agent 'rollout'")
        self.game, self.rng = game, np.random.default_rng(seed)

    def search_budget(self) -> int:
        """Sampled worlds a decision (:meth:`Agent.search_budget`)."""
        return int(self.worlds)

    def act(self, turn: Turn) -> int:
        """The heuristic's choice, or the action whose paired rollouts beat it by the margin."""
        g = self.game
        assert g is not None, "reset() first"
        legal = [int(a) for a in turn.legal_actions]
        if len(legal) == 1:
            return legal[0]
        base = legal.index(model_action(g, turn.state, turn.seat))
        worlds = believed_worlds(g, turn.state, turn.seat, self.rng, self.worlds)
        values = pruned_values(lambda ws, idx: rollout_values(g, ws, turn.seat, [legal[i] for i in idx]),
                               worlds, len(legal), base)
        choice = paired_choice(values, base, self.margin)
        self.last_thinking = considered_rollouts(turn, legal, values, choice)
        return legal[choice]


def _factory(game: str, arg: str | None) -> Agent:
    # "rollout", "rollout:<worlds>" or "rollout:<worlds>:m=<margin>"
    if not has_playout_policy(game):
        raise ValueError(f"agent 'rollout' is not available for game {game!r}; games with a compiled "
                         f"heuristic: {playout_games()}")
    if arg is None:
        return RolloutAgent()
    usage = "the argument is the number of worlds in plain digits (0-9), then optionally ':m=<margin>', as in rollout:128:m=1"
    head, _, tail = arg.partition(":")
    try:
        if (tail and not tail.startswith("m=")) or not is_count(head):  # int() reads "+3", "٣" too
            raise ValueError(tail)
        worlds, margin = int(head), float(tail[2:]) if tail else 1.0
    except ValueError as e:
        raise ValueError(f"agent 'rollout:{arg}': {usage}") from e
    if not math.isfinite(margin):  # float() reads nan and inf, which no margin is
        raise ValueError(f"agent 'rollout:{arg}': the margin {tail[2:]!r} is not a finite number; {usage}")
    return RolloutAgent(worlds, margin)
