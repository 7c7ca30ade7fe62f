"""The one agent interface shared by every baseline, and the random agent.

An agent is asked to act through a :class:`Turn`. The arena builds the turn so
that an agent never sees what its seat cannot see: ``turn.state`` is a
*determinized* copy (everything hidden from the seat resampled, the RNG
reseeded), so an agent may search or simulate on it freely.

What an agent considered for a decision (its search's visit shares and values, its
policy's probabilities and its critic's value, a CFR table's probabilities, its
rollouts' win rates) is told in one format, the game records' thinking
(``docs/records.md``): the agent sets :attr:`Agent.last_thinking` in ``act``, built
by :func:`considered` (or :func:`considered_rollouts`), and whoever asks it to act
through :func:`decide` (the arena, the web app, ``play``) gets it beside the action.
Heuristics and the random agent tell nothing (None).
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from octagames import records
from octagames.core import Game

#: the most moves an agent's thinking keeps (the largest shares; the chosen move always), so that
#: journals stay small
THINKING_TOP = 8


@dataclass
class Turn:
    """What an agent may use to choose an action.

    Attributes:
        game: the game and config being played.
        seat: the seat to act.
        state: a determinized copy of the state for ``seat`` (safe to modify).
        observation: ``seat``'s information-state tensor.
        legal_mask: uint8 mask of legal actions for ``seat``.
        tell: whether the caller keeps what the agent considered (:func:`decide` sets it): an agent
            builds its :attr:`Agent.last_thinking` only then (:func:`considered` returns None otherwise),
            so games that keep no record pay nothing for it.
    """

    game: Game
    seat: int
    state: np.void
    observation: np.ndarray
    legal_mask: np.ndarray
    tell: bool = False

    @property
    def legal_actions(self) -> np.ndarray:
        """Indices of the legal actions."""
        return np.flatnonzero(self.legal_mask)


class Agent:
    """Base class: override :meth:`act`; :meth:`reset` is called before each game."""

    name: str = "agent"
    #: what the agent considered in its last ``act``, in the records' thinking format
    #: (:func:`considered`); None: nothing to tell. :func:`decide` clears it before each ``act``.
    last_thinking: dict[str, Any] | None = None

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Prepare for a new game in ``seat``; ``seed`` makes the agent reproducible."""
        self.rng = np.random.default_rng(seed)

    def act(self, turn: Turn) -> int:
        """Choose a legal action for ``turn.seat``."""
        raise NotImplementedError

    def search_budget(self) -> int:
        """The most simulations or sampled worlds one decision of this agent spends (0: no search); what a
        server that caps the search (``octagames serve --max-simulations``) compares, the defaults of a spec
        that names no number included."""
        return 0

    def check_game(self, game: Game) -> None:
        """Refuse a game this agent cannot play, before any game starts (default: every game is fine).

        Agents that carry a trained model override it: the model's recorded game and config must
        be ``game``'s (:mod:`octagames.agents.model_config`).

        Raises:
            ValueError: the agent cannot play ``game`` (in words).
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def act(self, turn: Turn) -> int:
        """A uniformly drawn legal action."""
        return int(self.rng.choice(turn.legal_actions))


def pack_agents(agents: Sequence[Agent | None]) -> bytes:
    """Agents in play (Python objects: RNGs, searches, networks) as one pickle for a trainer's checkpoint,
    so that the rest of the checkpoint stays plain data that torch's weights-only reader loads."""
    return pickle.dumps(list(agents))


def unpack_agents(data: bytes | Sequence[Agent | None]) -> list[Agent | None]:
    """The agents of :func:`pack_agents`, unpickled: only when a run resumes (resume only runs you trust).
    A list (a checkpoint written before the agents were packed) is taken as it is."""
    return list(pickle.loads(data) if isinstance(data, bytes) else data)


def make_turn(game: Game, state: np.void, seat: int, seed: int) -> Turn:
    """Build the turn of ``seat`` from the true ``state``, hiding what it cannot see."""
    view = game.determinize(state, seat, seed)
    return Turn(game=game, seat=seat, state=view, observation=game.observation(state, seat),
                legal_mask=game.legal_mask(state, seat))


def decide(agent: Agent, turn: Turn) -> tuple[int, dict[str, Any] | None]:
    """Ask ``agent`` to act on ``turn``: the action and what it considered (its :attr:`Agent.last_thinking`).

    The one place the arena, the web app and ``play`` read an agent's thinking. The agent is
    asked to tell it (:attr:`Turn.tell`); it is cleared before the agent acts, so a forced move
    or an agent that keeps none tells nothing, never an earlier decision's thinking. What it tells is
    checked here, once for every caller, by the records' own rule (:func:`octagames.records.checked_thinking`:
    Python numbers, JSON-ready, the moves not legal for the seat left out).

    Args:
        agent: the agent of ``turn.seat``.
        turn: its decision (:func:`make_turn`).

    Returns:
        ``(action, thinking)``: the thinking as a record keeps it, or None.

    Raises:
        IllegalActionError: (a ``ValueError``) the agent returned what is not an action id (a float, a bool,
            a string: :class:`~octagames.core.Game`'s integer rule; not truncated).
        ValueError: the agent told thinking not of the records' form (naming the key).
    """
    agent.last_thinking = None
    action = turn.game._action_id(agent.act(dataclasses.replace(turn, tell=True)), turn.state)
    told = getattr(agent, "last_thinking", None)
    return action, (records.checked_thinking(told, turn.legal_mask) if isinstance(told, dict) and told else None)


def legal_shares(weights: Any, legal_mask: np.ndarray) -> np.ndarray:
    """An agent's weights of its moves (search visits, a policy's probabilities) as shares of the legal moves.

    Args:
        weights: ``[num_actions]`` the weights; NaN and negative entries count as 0.
        legal_mask: ``[num_actions]`` the decision's legal actions (non-zero: legal).

    Returns:
        ``[num_actions]`` float64 shares summing to 1 over the legal moves, 0 elsewhere; all 0 when no
        legal move has a positive weight.
    """
    legal = np.asarray(legal_mask) > 0
    p = np.where(legal, np.nan_to_num(np.asarray(weights, np.float64), nan=0.0), 0.0).clip(0.0, None)
    return p / p.sum() if p.sum() > 0 else p


def considered(turn: Turn, chosen: int, *, policy: Any = None, values: Any = None, prior: Any = None,
               value: float | None = None, visits: int | None = None,
               top: int | None = None, rank: str | None = None) -> dict[str, Any] | None:
    """What an agent considered for its decision, in the game records' thinking format (``docs/records.md``).

    The per-move figures are arrays over all the game's actions; only legal actions are kept:
    the ``top`` largest shares with a share above 0 (by value where no policy is given, by prior
    where neither is; by the figures ``rank`` names where it is given), and the chosen move always.

    Args:
        turn: the decision.
        chosen: the action the agent plays.
        policy: ``[num_actions]`` the agent's weights of its moves (search visits, a policy's
            probabilities), normalised here to shares of the legal moves.
        values: ``[num_actions]`` each move's value for the seat (NaN: not estimated).
        prior: ``[num_actions]`` a network's prior of each move.
        value: the agent's value of its decision; by default the chosen move's entry of ``values``.
        visits: the simulations (a search) or sampled worlds (rollouts) behind the figures.
        top: the most moves kept besides the chosen one (None: :data:`THINKING_TOP`).
        rank: ``"policy"``, ``"values"`` or ``"prior"``: the figures that pick the moves kept
            (None: the first of them given).

    Returns:
        ``{"policy": {action: share}, "values": {action: v}, "prior": {action: p}, "value": v,
        "visits": n}`` with the keys whose figures were given (and finite), numbers rounded to 4 digits
        as records keep them; None when the caller keeps no thinking (``turn.tell`` is False).

    Raises:
        ValueError: an array that is not one entry per action of the game.
    """
    if not turn.tell:
        return None
    legal = np.asarray(turn.legal_mask) > 0
    arrays = {}
    for key, xs in (("policy", policy), ("values", values), ("prior", prior)):
        if xs is not None:
            xs = np.asarray(xs, np.float64).reshape(-1)
            if len(xs) != len(legal):
                raise ValueError(f"{key} has {len(xs)} entries; the game has {len(legal)} actions")
            arrays[key] = xs
    if "policy" in arrays:
        arrays["policy"] = legal_shares(arrays["policy"], legal)
    out: dict[str, Any] = {}
    if rank is not None and rank not in arrays:
        raise ValueError(f"rank={rank!r} is not valid; valid values: {sorted(arrays)} (the figures given)")
    rank_key = rank or next((k for k in ("policy", "values", "prior") if k in arrays), None)
    if rank_key is not None:
        rank = arrays[rank_key]
        ok = legal & np.isfinite(rank) & ((rank > 0) if rank_key == "policy" else True)
        most = THINKING_TOP if top is None else top
        order = [int(a) for a in np.flatnonzero(ok)[np.argsort(-rank[ok], kind="stable")][:most]]
        if legal[chosen] and chosen not in order:
            order.append(int(chosen))
        for key, xs in arrays.items():
            kept = {a: round(float(xs[a]) if key == "values" else min(max(float(xs[a]), 0.0), 1.0), 4)
                    for a in order if np.isfinite(xs[a])}
            if kept:
                out[key] = kept
    if value is None and "values" in arrays and np.isfinite(arrays["values"][chosen]):
        value = float(arrays["values"][chosen])
    if value is not None and np.isfinite(value):
        out["value"] = round(float(value), 4)
    if visits is not None:
        out["visits"] = int(visits)
    return out


def considered_rollouts(turn: Turn, legal: Sequence[int], values: np.ndarray, choice: int,
                        shares: Any = None) -> dict[str, Any] | None:
    """What rollouts over sampled worlds considered, in the records' thinking format (:func:`considered`).

    Args:
        turn: the decision.
        legal: the actions played out (the columns of ``values``).
        values: ``[worlds, len(legal)]`` the seat's win value of each action in each world; NaN
            where an action did not play that world (it was dropped).
        choice: the index in ``legal`` of the action played.
        shares: ``[len(legal)]`` a search's visits that voted too, or None.

    Returns:
        Each action's mean over the worlds it played (``values``), the chosen one's
        (``value``), the worlds (``visits``) and the search's shares (``policy``) when given, for
        the moves of the highest values (a voting search's shares do not pick them: an expert's
        targets, :func:`octagames.agents.learn.az_selfplay.expert_target`, are its values);
        None when the caller keeps no thinking (``turn.tell`` is False).
    """
    if not turn.tell:
        return None
    idx = np.asarray(legal, np.int64)
    played = np.sum(~np.isnan(values), axis=0)
    full = np.full(len(turn.legal_mask), np.nan)
    full[idx] = np.where(played > 0, np.nansum(values, axis=0) / np.maximum(played, 1), np.nan)
    policy = None
    if shares is not None:
        policy = np.zeros(len(turn.legal_mask))
        policy[idx] = shares
    return considered(turn, int(idx[choice]), policy=policy, values=full, visits=len(values), rank="values")
