"""Achten by rollouts over believed deals: flat Monte Carlo whose determinizations fit the opponent's moves.

Determinized search deals the cards a seat cannot see uniformly. In Achten that
throws away most of what the table shows: a heuristic-like opponent keeps its
dealt hand only when it is worth little, swaps toward a low total and passes
only on a good hand. This agent keeps the determinizations in which a model of
the other seats' play would have made the moves they made this round:

1. resample what the seat cannot see (``Game.determinize``);
2. undo the round's recorded moves (every move swaps slots, so undoing is
   swapping back) to get the deal that world started from;
3. deal that world again and replay the round, asking the model at each other
   seat's move and counting the moves it would have made differently (misfits);
4. keep the worlds with no misfit (rejection sampling of the belief), or when
   too few turn up, those with the fewest (:func:`believed_worlds`).

Each legal action is then scored by its win rate over the kept worlds, each
played to the end by the model for every seat (one step of policy improvement
over the model). The model is the compiled heuristic
(:func:`~octagames.agents.heuristics.achten.achten_playout`), so the belief is
exact against the heuristic and an approximation against anything else. The
network search of the zoo agent can search the same worlds
(:attr:`~octagames.agents.learn.az.SearchConfig.belief_worlds`), and with
``belief_model="network"`` the network's greedy policy is the model instead of the
heuristic, in the belief and in the rollouts (a batched model: :func:`believed_worlds`,
:func:`rollout_values`), so that search has no hand-written part.

``make_agent("belief", "achten")`` or ``"belief:<worlds>"``; one-round Achten only
(``match=False``, the default): the replay starts from a fresh deal of round one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np

from octagames.achten.rules import A_CLAW, A_CLOSED, A_SWAP, A_SWAP_ALL, CLOSED, HIST_MOVES, POT0, deal_slot
from octagames.agents.base import Agent, Turn, considered_rollouts
from octagames.agents.heuristics.achten import achten_playout
from octagames.agents.search.mcts import win_values
from octagames.core import CHANCE, Game, is_count


def check_game(game: Game, who: str = "the Achten belief") -> None:
    """Refuse games the belief does not cover: other games, and Achten matches (the replay starts from
    round one's deal, which a later round of a match does not start from)."""
    if game.name != "achten":
        raise ValueError(f"{who} plays achten only, not {game.name!r}")
    if game.config.match:
        raise ValueError(f"{who} plays one-round achten only (match=False): it replays the round "
                         "from a fresh deal, which a later round of a match does not start from")


def undo_move(cards: np.ndarray, seat: int, action: int) -> None:
    """Swap back, in the slot array ``cards``, the cards that ``seat``'s ``action`` moved (moves only swap)."""
    b = 3 * seat
    if action in (A_SWAP_ALL, A_CLAW):
        for k in range(3):
            cards[b + k], cards[POT0 + k] = cards[POT0 + k], cards[b + k]
    elif A_SWAP <= action < A_CLOSED:
        i, j = divmod(action - A_SWAP, 3)
        cards[b + i], cards[POT0 + j] = cards[POT0 + j], cards[b + i]
    elif A_CLOSED <= action < A_CLAW:
        i = action - A_CLOSED
        cards[b + i], cards[CLOSED] = cards[CLOSED], cards[b + i]


def model_action(game: Game, s: np.void, seat: int) -> int:
    """The model's move for ``seat`` (the compiled heuristic, reading only what ``seat`` sees)."""
    mask = game.legal_mask(s, seat).astype(np.uint8)
    return int(achten_playout(s, seat, mask, int(mask.sum())))


def round_moves(world: np.void) -> list[tuple[int, int]] | None:
    """The round's recorded ``(mover, action)`` pairs, oldest first; None when the round is longer than
    the history window (65 moves) and its start cannot be replayed."""
    n = int(world["nhist"])
    if n > HIST_MOVES:
        return None
    return [(int(p), int(a)) for p, a in zip(world["hist_mover"][:n], world["hist_action"][:n])]


def round_start(game: Game, world: np.void, moves: Sequence[tuple[int, int]], seed: int) -> np.void:
    """The record ``world``'s round started from: its cards with ``moves`` undone, dealt again into a
    fresh record (seed ``seed``) up to the first move."""
    cards = np.array(world["slot_card"], dtype=np.int64)
    for p, a in reversed(moves):
        undo_move(cards, p, a)
    s = game.new_state(seed)
    k = game.kernels  # the compiled kernels straight: replays run thousands of times per decision
    while k.current_player(s) == CHANCE:
        _replay(k, s, int(cards[deal_slot(s)]))
    return s


def _replay(kernels: ModuleType, s: np.void, action: int) -> None:
    """Apply a move a replay knows is legal (a dealt card, a recorded move) with the compiled kernel.

    Raises:
        RuntimeError: the kernel refused it (a world that does not fit its own record: a bug).
    """
    if not kernels.apply_action(s, action):
        raise RuntimeError(f"a replayed move was refused: action {action} "
                           f"(to act: {kernels.current_player(s)})")


def fits_the_moves(game: Game, world: np.void, seat: int, seed: int, most: int = 0) -> tuple[int, np.void | None]:
    """How many of the other seats' recorded moves the model would not have made in ``world``.

    Args:
        game: an Achten game.
        world: a full record (e.g. a determinization for ``seat``).
        seat: the seat whose moves are not checked.
        seed: the replayed record's seed (its RNG breaks the model's rare ties).
        most: the most misfits to count; the replay stops at the next one.

    Returns:
        ``(misfits, replayed)``: the number of the other seats' moves the model would have made
        differently, and the round replayed from ``world``'s own deal (the same cards in the same
        slots as ``world``), or ``(most + 1, None)`` when more than ``most`` moves misfit. A round
        longer than the history window (65 moves) is returned unchecked, with 0 misfits.
    """
    moves = round_moves(world)
    if moves is None:
        return 0, world
    s = round_start(game, world, moves, seed)
    k = game.kernels
    misfits = 0
    for p, a in moves:
        if p != seat and model_action(game, s, p) != a:
            misfits += 1
            if misfits > most:
                return misfits, None
        _replay(k, s, a)
    return misfits, s


def believed_worlds(game: Game, state: np.void, seat: int, rng: np.random.Generator, worlds: int = 32,
                    tries: int = 800, most: int = 3, kept: list[int] | None = None,
                    model: Policy | None = None) -> list[np.void]:
    """Up to ``worlds`` determinizations for ``seat`` that fit the other seats' moves best.

    Draws at most ``tries`` determinizations of ``state`` and keeps those with the fewest
    misfits (:func:`fits_the_moves`): the ones where the model makes every recorded move when
    ``worlds`` of them turn up (the draws stop then), else those with one misfit, and so on up
    to ``most``. Against the model this is rejection sampling of the exact belief; against
    other players a world where they moved unlike the model may still be kept, after every
    world that fits better (a hard rule often left the belief empty against MCTS, and the
    uniform worlds it fell back to lost).

    Args:
        game: a one-round Achten game.
        state: a record (only what ``seat`` sees is used).
        seat: the seat that decides.
        rng: the draws' generator.
        worlds, tries, most: worlds kept, determinizations drawn, misfits allowed.
        kept: if given, ``[worlds kept, worlds drawn]`` counters to add to.
        model: the model of the other seats as a batched :data:`Policy` (a network's greedy policy,
            :meth:`~octagames.agents.learn.az.AZAgent.greedy_policy`); None: the compiled heuristic
            (:func:`model_action`). A batched model replays the draws together, a block of them at a
            time, one call per recorded move of another seat.

    Returns:
        the replayed worlds, fewest misfits first; uniform determinizations when none has at
        most ``most`` misfits.
    """
    if model is not None:
        return _believed_by(model, game, state, seat, rng, worlds, tries, most, kept)
    by_misfits: list[list[np.void]] = [[] for _ in range(most + 1)]
    limit = most
    for _ in range(tries):
        w = game.determinize(state, seat, int(rng.integers(1 << 30)))
        m, s = fits_the_moves(game, w, seat, int(rng.integers(1 << 30)), limit)
        if kept is not None:
            kept[1] += 1
        if s is None:
            continue
        by_misfits[m].append(s)
        if kept is not None:
            kept[0] += 1
        if len(by_misfits[0]) >= worlds:
            break
        # once `worlds` worlds fit with at most `limit` misfits, worse ones are never kept
        total = 0
        for k in range(limit + 1):
            total += len(by_misfits[k])
            if total >= worlds:
                limit = k
                break
    out = [s for group in by_misfits for s in group][:worlds]
    return out or [game.determinize(state, seat, int(rng.integers(1 << 30))) for _ in range(worlds)]


NETWORK_MODEL = True
"""``believed_worlds`` and ``rollout_values`` take a batched ``model=`` (a network's greedy policy)."""

BLOCK = 128
"""Determinizations replayed together by a batched model (:func:`believed_worlds`)."""


def _believed_by(model: Policy, game: Game, state: np.void, seat: int, rng: np.random.Generator, worlds: int,
                 tries: int, most: int, kept: list[int] | None) -> list[np.void]:
    # believed_worlds with a batched model: the same rule (fewest misfits first, at most `most`), BLOCK
    # draws replayed in lockstep, so the draws stop at a block's end (other random numbers than the
    # compiled model's path, and `kept` counts every world with at most `most` misfits)
    by_misfits: list[list[np.void]] = [[] for _ in range(most + 1)]
    drawn, moves, k = 0, round_moves(state), game.kernels
    while drawn < tries and len(by_misfits[0]) < worlds:
        block = [game.determinize(state, seat, int(rng.integers(1 << 30))) for _ in range(min(BLOCK, tries - drawn))]
        drawn += len(block)
        if moves is None:  # a round longer than the history window: unchecked, as fits_the_moves does
            by_misfits[0].extend(block)
            if kept is not None:
                kept[0] += len(block)
                kept[1] += len(block)
            continue
        starts = np.array([round_start(game, w, moves, int(rng.integers(1 << 30))) for w in block], dtype=game.dtype)
        misfits = np.zeros(len(block), np.int64)
        for p, a in moves:
            if p != seat:
                misfits += model(starts, np.full(len(block), p, np.int64)) != a
            for s in starts:
                _replay(k, s, a)
        for s, m in zip(starts, misfits):
            if m <= most:
                by_misfits[m].append(s)
        if kept is not None:
            kept[0] += int((misfits <= most).sum())
            kept[1] += len(block)
    out = [s for group in by_misfits for s in group][:worlds]
    return out or [game.determinize(state, seat, int(rng.integers(1 << 30))) for _ in range(worlds)]


class AchtenBeliefAgent(Agent):
    """Flat Monte Carlo over determinizations that fit the other seats' moves (see the module docstring).

    Args:
        worlds: kept determinizations per decision.
        tries: most determinizations drawn per decision.
        most: most misfits of a kept world (0: only worlds where the model makes every move).
    """

    name = "belief"

    def __init__(self, worlds: int = 32, tries: int = 800, most: int = 3) -> None:
        if worlds < 1:
            raise ValueError(f"worlds={worlds} is not valid; it must be >= 1")
        if tries < worlds:
            raise ValueError(f"tries={tries} is not valid; it must be >= worlds ({worlds})")
        if most < 0:
            raise ValueError(f"most={most} is not valid; it must be >= 0")
        self.worlds, self.tries, self.most = worlds, tries, most
        self.rng = np.random.default_rng(0)
        self.game: Game | None = None
        self.kept = [0, 0]  # worlds kept, worlds drawn (the belief's acceptance rate)

    def check_game(self, game: Game) -> None:
        """Refuse other games and Achten matches when the agent is built for a game, before any game starts
        (until 2026-12-07 an Achten match was refused at the first game's reset, in a tournament after other
        pairs had played)."""
        check_game(game, "agent 'belief'")

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Check the game is Achten; seed the draws."""
        check_game(game, "agent 'belief'")
        self.game, self.rng = game, np.random.default_rng(seed)

    def believed_worlds(self, turn: Turn) -> list[np.void]:
        """Up to ``worlds`` determinizations for ``turn.seat`` that fit the other seats' moves best."""
        return believed_worlds(self.game, turn.state, turn.seat, self.rng, self.worlds, self.tries, self.most,
                               self.kept)

    def search_budget(self) -> int:
        """Believed worlds a decision (:meth:`Agent.search_budget`)."""
        return int(self.worlds)

    def act(self, turn: Turn) -> int:
        """The legal action with the highest win rate over the believed worlds, each played out by the model."""
        g = self.game
        assert g is not None, "reset() first"
        legal = [int(a) for a in turn.legal_actions]
        if len(legal) == 1:
            return legal[0]
        values = rollout_values(g, self.believed_worlds(turn), turn.seat, legal)
        choice = int(np.argmax(values.sum(axis=0)))
        self.last_thinking = considered_rollouts(turn, legal, values, choice)
        return legal[choice]


Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``policy(records[n], seats[n]) -> actions[n]``: legal actions of ``seats`` in a batch of records."""


def rollout_values(game: Game, worlds: Sequence[np.void], seat: int, legal: Sequence[int],
                   policy: Policy | None = None, model: Policy | None = None) -> np.ndarray:
    """``values[w, i]``: ``seat``'s win (the arena's rule, :func:`win_values`) in world ``w`` when it
    plays ``legal[i]``.

    Every legal action is played in every world, then the round is played to its end: the other
    seats by the model (``model``, a batched :data:`Policy`; None: the compiled heuristic,
    :func:`model_action`), ``seat``'s later decisions by ``policy`` (None: the model too). A batched
    policy or model is asked for all the games waiting on it at once, so a network evaluates one
    batch per step. The worlds are not changed.
    """
    P = game.num_players
    games = [game.clone(w) for w in worlds for _ in legal]  # game j: world j // len(legal), action j % len(legal)
    for j, c in enumerate(games):
        game.apply_action(c, int(legal[j % len(legal)]))
    live = list(range(len(games)))
    while live:
        waiting: dict[int, list[int]] = {0: [], 1: []}  # games waiting on policy (0) and on model (1)
        for j in live:
            c = games[j]
            while not game.is_terminal(c):
                p = game.acting_player(c)
                if p == seat and policy is not None:
                    waiting[0].append(j)
                    break
                if model is not None:
                    waiting[1].append(j)
                    break
                game.apply_action(c, model_action(game, c, p))
        for chooser, js in ((policy, waiting[0]), (model, waiting[1])):
            if js:
                records = np.array([games[j] for j in js], dtype=game.dtype)
                seats = np.array([game.acting_player(games[j]) for j in js], np.int64)
                for j, a in zip(js, chooser(records, seats)):
                    game.apply_action(games[j], int(a))
        live = waiting[0] + waiting[1]
    values, win = np.zeros((len(worlds), len(legal))), np.zeros(P)
    for j, c in enumerate(games):
        win_values(game.returns(c), P, win)
        values[j // len(legal), j % len(legal)] = win[seat]
    return values


def rollout_wins(game: Game, worlds: Sequence[np.void], seat: int, legal: Sequence[int],
                 policy: Policy | None = None, model: Policy | None = None) -> np.ndarray:
    """``seat``'s wins per legal action, summed over ``worlds`` (:func:`rollout_values`)."""
    return rollout_values(game, worlds, seat, legal, policy, model).sum(axis=0)


def _factory(game: str, arg: str | None) -> Agent:
    # "belief" or "belief:<worlds>"
    if game != "achten":
        raise ValueError(f"agent 'belief' is not available for game {game!r}; it plays achten only")
    if arg is None:
        return AchtenBeliefAgent()
    if not is_count(arg):  # plain digits: int() would also read "+3", " 3", "1_000", "٣"
        raise ValueError(f"agent 'belief:{arg}': the argument is the number of worlds in plain digits (0-9), "
                         "as in belief:32")
    worlds = int(arg)
    return AchtenBeliefAgent(worlds=worlds, tries=max(800, 25 * worlds))
