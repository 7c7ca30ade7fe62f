"""Round robin among any agents on any game, with Bradley-Terry Elo ratings.

    octagames tournament --game octrix --agents random,heuristic,mcts:200
    octagames tournament --game achten-dealer-pays --players 3 --agents random,mcts:100,mcts:400 \\
        --games-per-pair 40
    python -m octagames.experiments.tournament --game octa-nl --agents random,heuristic

Every pair of agents plays ``games_per_pair`` games with the seats rotated
(in game ``k`` the pair's seats are swapped when ``k`` is odd, and an odd count's
last game is seated from pair to pair in turn, :func:`pair_turn`; games with more
than two seats alternate the two agents around the table). A game is won by
the agent whose seats earned the larger total return; equal totals are a draw
(half a win each). Ratings are the maximum-likelihood Bradley-Terry strengths
on the Elo scale (400 log10), with a weak prior of one drawn game between
every pair so that a perfect record still has a finite rating, anchored so
that the first agent is at 0. Confidence intervals are 95% percentile
intervals of a parametric bootstrap over the games of every pair. Where the
first agent, the anchor, scored under :data:`ANCHOR_SCORE` of its games, the
ratings above it rest mostly on the prior and the intervals cover less than 95%:
the table says so (:func:`anchor_note`).

The result goes to ``runs/tournament_<variant>-<players>p.json`` (``tournament_octa-nl-2p.json``)
and a bar chart to ``.png`` beside it; every finished game is also appended to
``runs/tournament_<variant>-<players>p.games.jsonl`` as it finishes, so an interrupted run
started again with the same command plays only the games it lacks.

Ctrl-C stops with one line: the games kept, and that the same command goes on (exit status 130).

On Ray (the ``distributed`` extra), the games run as Ray tasks in chunks, on a private
local instance (``--ray``) or a cluster, with the same results as here for the same seed::

    python -m octagames.experiments.tournament --game octiles --agents heuristic,mcts:400 --ray
    ray start --head   # then, on the cluster's head:
    python -m octagames.experiments.tournament --game octiles --agents heuristic,mcts:400 --ray-address auto
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from octagames import catalogue
from octagames.agents.arena import (GameJournal, Job, journal_games, journal_lines, play_games, progress_bar,
                                   record_game, wilson_interval)
from octagames.envs._extras import missing_extra
from octagames.agents.base import Agent
from octagames.agents.registry import make_agent
from octagames.experiments.cli import (NO_CHART, GameArgs, check_ray_options, executor_from,
                                      games_kept_on_interrupt, model_fingerprints, open_journal, parse_config, script)
from octagames.core import Game


@dataclass(frozen=True)
class TournamentConfig(GameArgs):
    """Settings of a round-robin tournament (--game, --players, --config: the variant). Every game is between
    two agents of a pair, alternating around the table: with --players 3 or more an agent holds several seats
    (3 players: A B A, then B A B; 4 players: A B A B, then B A B A)."""

    agents: str = "random,heuristic,mcts:200"
    """comma-separated agent specs of octagames.agents.registry (name or name:arg)"""
    games_per_pair: int = 20
    """games each pair of agents plays (seats rotate every game)"""
    allow_model_mismatch: bool = False
    """let a model trained on another config of the game play this one (with a warning) instead of refusing"""
    seed: int = 0
    """tournament seed: game k of a pair uses seed + 1000 * pair + k (games_per_pair * pair above 1000 games)"""
    bootstrap: int = 400
    """bootstrap resamples for the rating intervals"""
    out_dir: str = "runs"
    """folder of the JSON result and the PNG chart"""
    progress: bool = True
    """show a progress bar"""
    resume: bool = True
    """take the games already in <out_dir>/tournament_<variant>-<players>p.games.jsonl (same settings);
    False starts over (the journal moved aside to .old)"""
    ray: bool = False
    """play the games as Ray tasks on a private local Ray instance (the distributed extra)"""
    ray_address: str = ""
    """join this Ray cluster instead (auto: the cluster this machine belongs to, host:port: its head,
    ray://host:port: Ray Client); implies --ray"""
    chunk_size: int = 8
    """games per Ray task"""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_ray_options(self.ray_address, self.chunk_size)
        if len([s for s in self.agents.split(",") if s.strip()]) < 2:
            raise ValueError(f"agents={self.agents!r} is not valid; give at least two comma-separated agent specs")
        if self.games_per_pair < 1:
            raise ValueError(f"games_per_pair={self.games_per_pair} is not valid; it must be >= 1")
        if not 0 <= self.seed < 2**62:
            raise ValueError(f"seed={self.seed} is not valid; it must be in 0..2**62-1")
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap={self.bootstrap} is not valid; it must be >= 0 (0: no intervals)")


@dataclass
class TournamentResult:
    """What :func:`run_tournament` returns.

    Attributes:
        game: the game's short name.
        config: the game config fields.
        names: agent names, in the order given.
        wins: ``wins[i, j]``: games agent i won against agent j (draws count half).
        games: ``games[i, j]``: games between i and j.
        elo: Bradley-Terry ratings (Elo scale, first agent at 0).
        elo_ci: 95% intervals of the ratings, shape (n, 2).
        seconds: wall time.
        settings: what :func:`run_tournament` was asked (``games_per_pair``, ``seed``, ``bootstrap``): with
            them the JSON says how to play the same games again.
        draws: ``draws[i, j]``: drawn games between i and j (None: not counted).
    """

    game: str
    config: dict[str, Any]
    names: list[str]
    wins: np.ndarray
    games: np.ndarray
    elo: np.ndarray
    elo_ci: np.ndarray
    seconds: float
    settings: dict[str, Any] = field(default_factory=dict)
    draws: np.ndarray | None = None

    @property
    def variant(self) -> str:
        """The variant and seats the games were played on (``octa-nl-2p``; see :func:`catalogue.describe`)."""
        return catalogue.describe(self.game, self.config)

    def table(self) -> str:
        """Ratings and pairwise scores as text."""
        total = int(self.games.sum() / 2)
        w = max(18, *map(len, self.names)) + 2  # long specs (ppo:<path>) keep the columns apart
        no_ci = self.settings.get("bootstrap") == 0  # the intervals were not drawn (elo_ci holds the ratings)
        lines = [f"{self.variant}: round robin, {total} games, {self.seconds:.1f}s",
                 f"{'agent':<{w}}{'Elo':>8}  {'(bootstrap 0)' if no_ci else '95% CI':<18}{'score':>7}"]
        for i in np.argsort(-self.elo):
            played = self.games[i].sum()
            score = self.wins[i].sum() / max(1, played)
            lo, hi = self.elo_ci[i]
            ci = f"{'no interval':<16}" if no_ci else f"[{lo:>6.0f}, {hi:>6.0f}]"
            lines.append(f"{self.names[i]:<{w}}{self.elo[i]:>8.0f}  {ci}   {score:>7.3f}")
        if (note := anchor_note(self.names, self.wins, self.games)) is not None:
            lines.append(f"note: {note}")
        lines.append("pairwise score of row against column (95% Wilson CI):")
        for i, a in enumerate(self.names):
            cells = []
            for j in range(len(self.names)):
                if i == j:
                    continue
                n = int(self.games[i, j])
                lo, hi = wilson_interval(self.wins[i, j], n)
                cells.append(f"{self.names[j]}: {self.wins[i, j] / max(1, n):.2f} [{lo:.2f}, {hi:.2f}]")
            lines.append(f"  {a:<{w}}" + "  ".join(cells))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"game": self.game, "config": self.config, "agents": self.names,
                "wins": self.wins.tolist(), "games": self.games.tolist(),
                **({"draws": self.draws.tolist()} if self.draws is not None else {}),
                "elo": self.elo.tolist(), "elo_ci95": self.elo_ci.tolist(), "seconds": self.seconds,
                **({"settings": self.settings} if self.settings else {})}


#: below this share of its games' points, the anchor (the first agent, at 0) leaves the ratings above it to the prior
ANCHOR_SCORE = 0.1


def anchor_note(names: list[str], wins: np.ndarray, games: np.ndarray) -> str | None:
    """The caveat of a table whose anchor (the first agent, rated 0) scored under :data:`ANCHOR_SCORE` of its games,
    else ``None``.

    With next to no points against it, the gaps between the anchor and the others rest on the prior's one drawn
    game per pair: they are lower bounds, and their bootstrap intervals cover less than 95%. A review simulated round
    robins of 20 games a pair from the published Octrix ratings (the anchor, random, scored 0 of 100): the intervals
    held the true rating in 0.57-0.69 of them, the fitted ratings about 120 Elo low; on a field without such an
    anchor, 0.92-0.93.
    """
    played = float(np.asarray(games)[0].sum())
    score = float(np.asarray(wins)[0].sum()) / played if played else 1.0
    if score >= ANCHOR_SCORE:
        return None
    return (f"{names[0]}, the anchor at 0, scored {score:.3f} of its games: the ratings above it rest on the prior "
            f"(one drawn game a pair) and are lower bounds, and their intervals cover less than 95%; the gaps "
            f"between the other agents are what the games measure")


def _reaches_all(edges: np.ndarray) -> bool:
    """Whether every node is reached from node 0 along ``edges[i, j]`` (i to j)."""
    seen = np.zeros(len(edges), bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = edges[frontier].any(axis=0) & ~seen
        seen |= frontier
    return bool(seen.all())


def fit_bradley_terry(wins: np.ndarray, games: np.ndarray, prior_games: float = 1.0,
                      iters: int = 100, tol: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale (first agent at 0).

    Newton's method on the log-likelihood in the log-strengths, with ``prior_games`` drawn games added
    between every pair (a weak prior that keeps perfect records finite and the likelihood strictly concave
    once the first rating is fixed), each step halved until the likelihood rises. Until 2026-12-07 Hunter's
    MM algorithm ran at most 2000 rounds and returned where it stood, without a word: on lopsided tables short
    of the maximum (183 Elo at the top of a chain of six agents, each beating the one below in all 2000 games).

    Args:
        wins: ``wins[i, j]`` games i won against j (draws as halves).
        games: ``games[i, j]`` games between i and j (symmetric).
        prior_games: virtual drawn games per pair.
        iters: most Newton steps (a few dozen suffice for any table of real games).
        tol: stop when no log-strength moves more than this.

    Returns:
        Ratings, ``400 * log10(strength)``, with ``rating[0] == 0``.

    Raises:
        ValueError: the fit has no finite maximum (without the prior, ``prior_games=0``: some agents won no game
            against the others, Hunter's condition), did not settle within ``iters`` steps, or cannot be resolved in
            float64 (chains of perfect records of millions of games: scores far from their expectations). Steps that
            stall at the rounding noise of the sums (hundreds of thousands of games a pair) end the fit there.
    """
    n = len(wins)
    off = 1 - np.eye(n)
    w = wins + prior_games / 2 * off
    g = games + prior_games * off
    score = w.sum(1)

    def likelihood(theta: np.ndarray) -> float:
        d = theta[:, None] - theta[None, :]
        return float((w * -np.logaddexp(0.0, -d)).sum())  # w[i, j] log P(i beats j)

    perfect = ": a perfect record has no finite rating without the prior (prior_games=0)" if prior_games == 0 else ""
    # Hunter's condition: a finite maximum needs every agent to reach every other along wins (draws: halves both
    # ways), which the prior's drawn games give; without it, reached from agent 0 along wins and along losses
    if prior_games == 0 and n > 1 and not (_reaches_all(w > 0) and _reaches_all((w > 0).T)):
        raise ValueError(f"the Bradley-Terry fit has no finite maximum{perfect}: some agents won no game (nor "
                         "drew one) against the others")
    theta, step = np.zeros(n), np.zeros(n)
    for _ in range(iters):
        # P(i beats j); its transpose is P(j beats i), not 1 - prob, which rounds to 0 for gaps past 37 (a chain of
        # perfect records) and leaves the Hessian singular
        prob = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
        grad = score - (g * prob).sum(1)
        hess = g * prob * prob.T
        hess = hess - np.diag(hess.sum(1))  # the negative of a graph Laplacian
        try:
            step[1:] = np.linalg.solve(hess[1:, 1:], -grad[1:])  # theta[0] stays 0
        except np.linalg.LinAlgError:  # gaps past 700 (exp overflows): ratings running off to infinity
            raise ValueError(f"the Bradley-Terry fit has no finite maximum{perfect}") from None
        base, t = likelihood(theta), 1.0
        while likelihood(theta + t * step) < base - 1e-12 * abs(base):
            t /= 2
            if t < 1e-12:  # no step raises the likelihood as its sums resolve it: the maximum, if the scores agree
                if np.abs(grad).max() > 1e-6 * g.sum(1).max():
                    raise ValueError("the Bradley-Terry fit cannot resolve this table: its likelihood's sums are too "
                                     f"coarse for its gaps (scores {np.abs(grad).max():.3g} games off their "
                                     "expectations)")
                return 400 / math.log(10) * (theta - theta[0])
        step *= t
        if np.abs(grad).max() <= 1e-14 * g.sum() and np.abs(step).max() < 1e-6:
            break  # the gradient at the rounding noise of its sums (hundreds of thousands of games a pair): the maximum
        theta = theta + step
        if np.abs(step).max() < tol:
            break
    else:
        raise ValueError(f"the Bradley-Terry fit did not settle in {iters} steps (last move "
                         f"{np.abs(step).max():.3g}){perfect}")
    return 400 / math.log(10) * (theta - theta[0])


def bootstrap_intervals(wins: np.ndarray, games: np.ndarray, resamples: int, seed: int = 0,
                        draws: np.ndarray | None = None) -> np.ndarray:
    """95% intervals of the ratings: a parametric bootstrap over the games of every pair.

    Each of a pair's games is drawn again as a win, a draw or a loss with the pair's frequencies, the wins and
    the losses smoothed by half a game each (``(W + 1/2) / (m + 1)``, ``D / (m + 1)``, ``(L + 1/2) / (m + 1)``
    for ``W`` wins, ``D`` draws and ``L`` losses in ``m`` games) so that a perfect record still gets an
    interval of positive width. The smoothing pulls the resampled ratings towards each other, so the interval
    is the spread of the resamples around their median, placed around the fitted rating (which it then always
    contains).

    Args:
        wins: ``wins[i, j]`` games i won against j, a draw counting half.
        games: ``games[i, j]`` games between i and j (symmetric).
        resamples: how many resampled round robins.
        seed: the resampling's seed.
        draws: ``draws[i, j]`` drawn games between i and j (symmetric); by default as few as the scores
            allow (one where a score ends in a half).
    """
    rng = np.random.default_rng(seed)
    n = len(wins)
    drawn = np.round(2 * (np.asarray(wins, float) % 1)) if draws is None else np.asarray(draws, float)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if games[i, j] > 0]
    scores = np.zeros((resamples, len(pairs)))
    for c, (i, j) in enumerate(pairs):
        m, d = int(games[i, j]), drawn[i, j]
        w = wins[i, j] - d / 2
        if not (0 <= d <= m and 0 <= w <= m - d):
            raise ValueError(f"the pair ({i}, {j}): wins {wins[i, j]} and draws {d} of {m} games do not add up")
        counts = rng.multinomial(m, [(w + 0.5) / (m + 1), d / (m + 1), (m - w - d + 0.5) / (m + 1)], size=resamples)
        scores[:, c] = counts[:, 0] + counts[:, 1] / 2
    samples = np.zeros((resamples, n))
    for r in range(resamples):
        w = np.zeros_like(wins, dtype=float)
        for c, (i, j) in enumerate(pairs):
            w[i, j], w[j, i] = scores[r, c], games[i, j] - scores[r, c]
        samples[r] = fit_bradley_terry(w, games)
    spread = np.percentile(samples - np.median(samples, axis=0), [2.5, 97.5], axis=0).T
    return fit_bradley_terry(wins, games)[:, None] + spread


def seats_for(k: int, num_players: int) -> list[int]:
    """Which of the pair (0 or 1) sits in each seat in game ``k``: alternate, swapped on odd games."""
    return [(p + k) % 2 for p in range(num_players)]


def round_robin_pairs(num_agents: int) -> list[tuple[int, int]]:
    """The pairs of a round robin among ``num_agents`` agents, in the order their games are keyed."""
    return [(i, j) for i in range(num_agents) for j in range(i + 1, num_agents)]


def pair_turn(idx: int, k: int, games_per_pair: int, odd_by_pair: bool = True) -> int:
    """The ``k`` of :func:`seats_for` that seats game ``k`` of pair ``idx``: ``k``, except an odd count's last game,
    whose seats alternate from pair to pair (``k + idx``; ``odd_by_pair=False``: as in every pair before
    2026-12-07, for a journal of then). The pair's first agent sat first in that game in every pair, so the agents
    listed first, a roster's random anchor among them, had one more game in seat 0 than their opponents (review)."""
    return k + idx if odd_by_pair and games_per_pair % 2 and k == games_per_pair - 1 else k


def round_robin_jobs(num_agents: int, games_per_pair: int, seed: int, num_players: int,
                     odd_by_pair: bool = True) -> list[Job]:
    """Every game of a round robin: ``(key, line-up, seed)`` as :func:`run_tournament` plays them.

    Game ``k`` of pair ``idx`` (:func:`round_robin_pairs`) has key ``idx * games_per_pair + k`` and seed
    ``seed + stride * idx + k``, the stride 1000 or ``games_per_pair`` where that is more (no two pairs share
    a deal); its seats alternate between the pair (:func:`seats_for`), and where ``games_per_pair`` is odd the
    last game's seats alternate from pair to pair (:func:`pair_turn`), so that no agent is the one with a game
    more in seat 0 in every pair.
    """
    jobs = []
    stride = max(1000, games_per_pair)
    for idx, (i, j) in enumerate(round_robin_pairs(num_agents)):
        for k in range(games_per_pair):
            turn = pair_turn(idx, k, games_per_pair, odd_by_pair)
            lineup = tuple(i if w == 0 else j for w in seats_for(turn, num_players))
            jobs.append((idx * games_per_pair + k, lineup, seed + stride * idx + k))
    return jobs


def _odd_by_pair(header: dict[str, Any]) -> bool:
    """Whether a journal's games were seated by :func:`pair_turn` as now (its header says so, or its count is
    even, where nothing changed), not as before 2026-12-07."""
    return int(header["games_per_pair"]) % 2 == 0 or header.get("odd_game_seats") == "by pair"


def seats_header(games_per_pair: int) -> dict[str, str]:
    """What a round robin's journal header adds for ``games_per_pair``: ``{"odd_game_seats": "by pair"}`` where it
    is odd (:func:`round_robin_jobs` seats that last game otherwise since 2026-12-07, so a journal of before is not
    resumed with other line-ups under its keys), else nothing (the line-ups of an even count did not change)."""
    return {"odd_game_seats": "by pair"} if games_per_pair % 2 else {}


def pair_score(rets: np.ndarray, who: Sequence[int]) -> float:
    """The first agent's points in a game of a pair (1 win, 1/2 draw, 0 loss); ``who[p]``: 0 or 1 in seat ``p``."""
    mine = sum(r for r, w in zip(rets, who) if w == 0)
    theirs = sum(r for r, w in zip(rets, who) if w == 1)
    return 1.0 if mine > theirs + 1e-9 else 0.5 if abs(mine - theirs) <= 1e-9 else 0.0


def run_tournament(game: str, specs: Sequence[str | Agent], games_per_pair: int, seed: int = 0,
                   bootstrap: int = 400, progress: bool = True, executor: Any = None,
                   journal: GameJournal | Callable[[], GameJournal] | None = None,
                   allow_model_mismatch: bool = False,
                   **config: Any) -> TournamentResult:
    """Round robin among the agents ``specs`` on ``game``.

    Args:
        game: a game or variant name (``"octrix"``, ``"octrix-round"``, ``"achten-dealer-pays"``; ``config``
            gives fields over the variant's).
        specs: agent specs (``random``, ``heuristic``, ``mcts:200`` ...), or agents already
            built (named by their ``name``); at least two.
        games_per_pair: games per pair, seats rotated.
        seed: tournament seed.
        bootstrap: bootstrap resamples for the rating intervals (0: none).
        progress: show a tqdm progress bar.
        executor: where the games run (:func:`octagames.agents.arena.play_games`); ``None``: here.
        journal: resume from and save every game to this journal; or a function that opens it, called
            once the agents are built (so that a bad spec leaves the journal on disk as it was), and the
            journal it opens closed when the games are played.
        allow_model_mismatch: let a model trained on another config play (with a warning) instead of
            refusing it.
        **config: game config fields (``num_players=3``, ...). Every game is between the two agents of a
            pair, alternating around the table: with more seats than two an agent holds several seats
            (3 players: A B A, then B A B; :func:`seats_for`).

    Returns:
        The :class:`TournamentResult`: the pairwise scores, Bradley-Terry Elo (the first agent at 0) and
        their bootstrap intervals.

    Raises:
        ValueError: fewer than two agents, ``games_per_pair`` < 1, an unknown game or variant, a bad config
            field or value, or an agent spec that does not build for the game (an unknown name, a bad
            argument, a model of another config unless ``allow_model_mismatch``).
        ImportError: an agent needs an extra that is not installed (named).
    """
    if len(specs) < 2:
        raise ValueError(f"agents: at least two are needed, got {list(specs)}")
    if games_per_pair < 1:
        raise ValueError(f"games_per_pair={games_per_pair} is not valid; it must be >= 1")
    g = Game(game, **config)
    agents = [s if isinstance(s, Agent) else make_agent(s, g, allow_config_mismatch=allow_model_mismatch)
              for s in specs]
    names: list[str] = []
    for s in (getattr(s, "name", type(s).__name__) if isinstance(s, Agent) else s for s in specs):
        name, k = s, 2
        while name in names:
            name, k = f"{s}#{k}", k + 1
        names.append(name)
    opened = journal() if callable(journal) else None  # opened here, closed here
    jobs = round_robin_jobs(len(agents), games_per_pair, seed, g.num_players)
    start = time.perf_counter()
    try:
        played = play_games(g, agents, jobs, progress, f"{g.name} round robin", executor, opened or journal)
    finally:
        if opened is not None:
            opened.close()
    return rate(g, names, games_per_pair, seed, bootstrap, {key: rets for key, (rets, *_) in played.items()},
                time.perf_counter() - start)


def rate(game: Game, names: list[str], games_per_pair: int, seed: int, bootstrap: int,
         returns: dict[int, Sequence[float]], seconds: float, odd_by_pair: bool = True) -> TournamentResult:
    """The :class:`TournamentResult` of a round robin's games: ``returns[key]`` of every game of
    :func:`round_robin_jobs` (the agents ``names``, ``games_per_pair``, ``seed`` and ``odd_by_pair``), the pairs'
    scores and draws, their Bradley-Terry fit and its ``bootstrap`` intervals (0: none)."""
    n = len(names)
    if (wrong := next((key for key, rets in returns.items() if len(rets) != game.num_players), None)) is not None:
        raise ValueError(f"game {wrong}: {len(returns[wrong])} returns for the {game.num_players} seats of {game}")
    wins, games, draws = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for idx, (i, j) in enumerate(round_robin_pairs(n)):
        keys = range(idx * games_per_pair, (idx + 1) * games_per_pair)
        points = [pair_score(returns[key], seats_for(pair_turn(idx, key % games_per_pair, games_per_pair, odd_by_pair),
                                                     game.num_players)) for key in keys]
        wins[i, j], wins[j, i] = sum(points), games_per_pair - sum(points)
        games[i, j] = games[j, i] = games_per_pair
        draws[i, j] = draws[j, i] = points.count(0.5)
    elo = fit_bradley_terry(wins, games)
    ci = bootstrap_intervals(wins, games, bootstrap, seed, draws) if bootstrap > 0 else np.stack([elo, elo], 1)
    cfg = {f.name: getattr(game.config, f.name) for f in dataclasses.fields(game.config)}
    return TournamentResult(game.name, cfg, names, wins, games, elo, ci, seconds,
                            {"games_per_pair": int(games_per_pair), "seed": int(seed), "bootstrap": int(bootstrap)},
                            draws)


@dataclass
class JournalRecording:
    """What :func:`record_journal` did: games recorded now, games left without a record and why."""

    recorded: int
    already: int
    left: dict[str, int]
    """games left without a record, by the reason (an agent that does not build here, a changed model)"""


def record_journal(path: str | Path, game: str, executor: Any = None, progress: bool = True) -> JournalRecording:
    """Replay the games a round robin's journal holds without their records, and keep the records.

    Journals written before journals kept records (the published ``docs/leaderboard/*.games.jsonl``)
    name each game's agents, line-up and seed (:func:`round_robin_jobs` of the header's ``agents``,
    ``games_per_pair`` and ``seed``), and a game depends on nothing else, so playing it again gives
    its moves. Each replayed game must end as the journal says (the same returns and length): a game
    that does not means the agents or rules changed since, and the run stops there (the records kept
    until then are of games that matched). The journal's results are not changed.

    Args:
        path: the journal (``*.games.jsonl``) of :func:`run_tournament` or the leaderboard.
        game: the game's short name (the header's ``config`` gives its config).
        executor: where the games run (:func:`octagames.agents.arena.play_games`); ``None``: here.
        progress: show a progress bar.

    Returns:
        the counts: recorded now, recorded before, left without a record by reason (a game whose
        agent's spec does not build here, such as a policy file that is not on this machine, or
        whose model file differs from the one the journal's header fingerprints).

    Raises:
        FileNotFoundError: no such journal.
        ValueError: not a round robin's journal; a replayed game ends otherwise than the journal says
            (naming the game, its agents and both outcomes).
    """
    path = Path(path)
    header, specs, games_per_pair, seed, config = _journal_header(path)
    journal = GameJournal(path, header)
    g = Game(game, **config)
    now = model_fingerprints(specs)
    agents: dict[int, Agent] = {}
    why: dict[int, str] = {}
    for i, spec in enumerate(specs):
        if header.get("models", {}).get(spec) != now.get(spec):
            why[i] = f"{spec}: its model file is missing or differs from the one the journal was played with"
            continue
        try:
            agents[i] = make_agent(spec, g)
        except Exception as e:  # a spec that does not build here (an agent's own error, named below)
            why[i] = f"{spec}: {type(e).__name__}: {e}"
            continue
        agents[i].name = spec
    jobs = [j for j in round_robin_jobs(len(specs), games_per_pair, seed, g.num_players, _odd_by_pair(header))
            if j[0] in journal.done]
    left: dict[str, int] = {}
    for _, lineup, _ in jobs:
        reasons = [why[a] for a in sorted(set(lineup)) if a in why]
        if reasons:
            left["; ".join(reasons)] = left.get("; ".join(reasons), 0) + 1
    already = sum(1 for key, _, _ in jobs if key in journal.records)
    todo = [j for j in jobs if j[0] not in journal.records and not set(j[1]) & set(why)]
    used = sorted(agents)
    local = {a: k for k, a in enumerate(used)}
    lineups = {key: lineup for key, lineup, _ in todo}
    bar = progress_bar(len(todo), f"{path.name}: recording", progress)

    def done(key: int, rets: np.ndarray, length: int, record: Any) -> None:
        want, want_length = journal.done[key]
        if length != want_length or not np.allclose(rets, want):
            names = [specs[a] for a in lineups[key]]
            got = [float(r) for r in rets]
            raise ValueError(f"{path}: game {key} ({' vs '.join(names)}) replays to returns {got} in {length} "
                             f"moves, but the journal says {want} in {want_length}: the agents or rules changed "
                             "since it was played; rerun it instead")
        journal.add(key, rets, length, record)
        if bar is not None:
            bar.update(1)

    local_jobs = [(key, tuple(local[a] for a in lineup), s) for key, lineup, s in todo]
    try:
        if executor is None:
            for key, lineup, s in local_jobs:
                rec = record_game(g, [agents[used[a]] for a in lineup], s)
                done(key, np.asarray(rec.returns, dtype=np.float64), rec.length, rec)
        else:
            executor.run(g, [agents[a] for a in used], local_jobs, done, record=True)
    finally:
        journal.close()
        if bar is not None:
            bar.close()
    GameJournal(path, header).close()  # rewritten once, a row per game
    return JournalRecording(len(todo), already, left)


def _journal_header(path: Path) -> tuple[dict[str, Any], list[str], int, int, dict[str, Any]]:
    """A round robin's journal's header, with its agents, games per pair, seed and config.

    Raises:
        FileNotFoundError: no such journal.
        ValueError: not a round robin's journal.
    """
    lines = journal_lines(path)
    try:
        header = json.loads(lines[0])["header"]
        specs, games_per_pair, seed = list(header["agents"]), int(header["games_per_pair"]), int(header["seed"])
        config = dict(header["config"])
    except (IndexError, KeyError, TypeError, ValueError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a round robin's journal (its first line must be a header with agents, "
                         f"games_per_pair, seed and config): {e}") from None
    return header, specs, games_per_pair, seed, config


def refit_journal(path: str | Path, game: str, bootstrap: int = 400) -> TournamentResult:
    """The ratings of a finished round robin fitted again from its journal, playing nothing (after a change to
    the fit or its intervals): :func:`rate` of the journal's games, with its agents, games per pair and seed. Its
    ``seconds`` are 0 (nothing was played).

    Args:
        path: the journal (``*.games.jsonl``) of :func:`run_tournament` or the leaderboard.
        game: the game's short name (the header's ``config`` gives its config).
        bootstrap: bootstrap resamples for the rating intervals (0: none).

    Raises:
        FileNotFoundError: no such journal.
        ValueError: not a round robin's journal, or one that does not hold every game of its round robin.
    """
    path = Path(path)
    header, specs, games_per_pair, seed, config = _journal_header(path)
    done = journal_games(path)  # read only: the journal stays as it is
    g = Game(game, **config)
    keys = [key for key, _, _ in round_robin_jobs(len(specs), games_per_pair, seed, g.num_players)]
    if missing := [key for key in keys if key not in done]:
        raise ValueError(f"{path}: holds {len(keys) - len(missing)} of the round robin's {len(keys)} games (game "
                         f"{missing[0]} is missing): play the rest first")
    return rate(g, specs, games_per_pair, seed, bootstrap, {key: done[key][0] for key in keys}, 0.0,
                _odd_by_pair(header))


def save(result: TournamentResult, out_dir: str | Path, stem: str | None = None,
         chart: bool | None = True) -> tuple[Path, Path | None]:
    """Write the JSON result and a PNG chart of the ratings; returns their paths.

    Args:
        result: the tournament.
        out_dir: the folder (created if missing).
        stem: the file name without suffix (default ``tournament_<game>``).
        chart: True draws the PNG chart (needs matplotlib, the ``render`` extra); None
            draws it where matplotlib is installed; False never (the chart's path is None
            where none is drawn).

    Raises:
        ModuleNotFoundError: ``chart=True`` without matplotlib (the message names the extra).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = stem or f"tournament_{result.game}"
    json_path = out / f"{stem}.json"
    json_path.write_text(json.dumps(result.to_json(), indent=2))
    if chart is False:
        return json_path, None
    try:
        import matplotlib
    except ModuleNotFoundError as e:
        if chart is None:
            return json_path, None
        raise missing_extra(e, "the tournament chart") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    order = np.argsort(result.elo)
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * len(order)))
    elo = result.elo[order]
    err = np.abs(result.elo_ci[order].T - elo)
    ax.barh([result.names[i] for i in order], elo, xerr=err, color="tab:blue", capsize=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel(f"Bradley-Terry Elo (95% bootstrap CI), anchored at {result.names[0]} = 0")
    ax.set_title(f"{result.variant}: round robin, {int(result.games[0, 1])} games per pair")
    fig.tight_layout()
    png_path = out / f"{stem}.png"
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return json_path, png_path


def main(cfg: TournamentConfig) -> TournamentResult:
    """Run the tournament of ``cfg``, print the table and save the files."""
    specs = [s.strip() for s in cfg.agents.split(",") if s.strip()]
    name, config = cfg.resolve()
    stem = f"tournament_{cfg.describe()}"
    opened: list[GameJournal] = []

    def journal() -> GameJournal:  # opened once every spec is built: a bad one leaves the file as it was
        opened.append(open_journal(Path(cfg.out_dir) / f"{stem}.games.jsonl", cfg.resume,
                                   {"game": name, "config": config, "agents": specs,
                                    "games_per_pair": cfg.games_per_pair, "seed": cfg.seed,
                                    **seats_header(cfg.games_per_pair)}))
        return opened[-1]

    executor = executor_from(cfg.ray, cfg.ray_address, cfg.chunk_size)
    with games_kept_on_interrupt(lambda: opened[-1] if opened else None):  # Ctrl-C: one line, exit status 130
        result = run_tournament(name, specs, cfg.games_per_pair, cfg.seed, cfg.bootstrap, cfg.progress,
                                executor, journal, cfg.allow_model_mismatch, **config)
    print(result.table())
    json_path, png_path = save(result, cfg.out_dir, stem, chart=None)
    print("wrote", json_path, png_path or NO_CHART)
    return result


@script
def cli() -> None:
    """Command-line entry point (``octagames-tournament``, or ``python -m octagames.experiments.tournament``)."""
    main(parse_config(TournamentConfig))


if __name__ == "__main__":
    cli()
