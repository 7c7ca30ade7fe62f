"""The arena: play N games between agents with seat rotation, report win rates.

    >>> from octagames.agents.arena import play_match
    >>> from octagames.agents.base import RandomAgent
    >>> from octagames.agents.heuristic_octrix import OctrixHeuristicAgent
    >>> result = play_match("octrix", [OctrixHeuristicAgent(), RandomAgent()], num_games=100, seed=0)
    >>> print(result.table())

Agents never see what their seat cannot see: each decision gets a
:class:`octagames.agents.base.Turn` built by :func:`octagames.agents.base.make_turn`, whose state is a
determinized copy for that seat. Seats rotate so that every agent plays every
seat equally often (game ``g`` puts agent ``k`` in seat ``(k + g) % n``).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from octagames.agents.base import Agent, make_turn
from octagames.core import CHANCE, TERMINAL, Game


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (``wins`` may count draws as halves)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class AgentRecord:
    """One agent's results in a match."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    total_return: float = 0.0

    @property
    def score(self) -> float:
        """Win rate counting a draw as half a win."""
        return (self.wins + 0.5 * self.draws) / max(1, self.games)

    @property
    def mean_return(self) -> float:
        """Average return per game."""
        return self.total_return / max(1, self.games)

    def interval(self) -> tuple[float, float]:
        """95% confidence interval of :attr:`score`."""
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)


@dataclass
class MatchResult:
    """Results of :func:`play_match`."""

    game: str
    config: dict[str, Any]
    num_games: int
    records: list[AgentRecord]
    mean_length: float
    seconds: float
    returns: list[list[float]] = field(default_factory=list)  # per game, per agent index

    def table(self) -> str:
        """A text table: win rate with its 95% CI and mean return per agent."""
        lines = [f"{self.game} {self.config}: {self.num_games} games, "
                 f"mean length {self.mean_length:.1f} actions, {self.seconds:.1f}s",
                 f"{'agent':<22}{'win rate':>9}  {'95% CI':<15}{'W/D/L':>13}{'mean return':>13}"]
        for r in self.records:
            lo, hi = r.interval()
            lines.append(f"{r.name:<22}{r.score:>9.3f}  [{lo:.3f}, {hi:.3f}]"
                         f"{f'{r.wins}/{r.draws}/{r.losses}':>13}{r.mean_return:>13.3f}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (confidence intervals included)."""
        out = {"game": self.game, "config": self.config, "num_games": self.num_games,
               "mean_length": self.mean_length, "seconds": self.seconds, "agents": []}
        for r in self.records:
            d = asdict(r)
            d.update(win_rate=r.score, ci95=list(r.interval()), mean_return=r.mean_return)
            out["agents"].append(d)
        return out

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_json` to ``path`` (folders are created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2))
        return path


def play_game(game: Game, seats: Sequence[Agent], seed: int) -> tuple[np.ndarray, int]:
    """Play one game; ``seats[p]`` plays seat ``p``. Returns ``(returns, length)``."""
    if len(seats) != game.num_players:
        raise ValueError(f"{len(seats)} agents for {game.num_players} seats")
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    for p, agent in enumerate(seats):
        agent.reset(game, p, int(rng.integers(1 << 31)))
    length = 0
    while True:
        cp = game.current_player(s)
        if cp == TERMINAL:
            return game.returns(s), length
        if cp == CHANCE:
            game.apply_action(s, game.sample_chance(s))
        else:
            p = game.acting_player(s)
            turn = make_turn(game, s, p, int(rng.integers(1 << 31)))
            game.apply_action(s, int(seats[p].act(turn)))
        length += 1


def play_match(game: str | Game, agents: Sequence[Agent], num_games: int, seed: int = 0,
               progress: bool = True, **config: Any) -> MatchResult:
    """Play ``num_games`` games between ``agents`` (one per seat), rotating seats.

    Args:
        game: a short name (``config`` then gives the config fields) or a :class:`Game`.
        agents: one agent per seat; agent ``k`` sits in seat ``(k + g) % n`` in game ``g``.
        num_games: games to play.
        seed: the match seed; game ``g`` uses ``seed + g``.
        progress: show a progress bar (tqdm) when it is installed.

    Returns:
        a :class:`MatchResult`. A seat wins a game when its return is the
        highest (partners share their team's return, so both win); a game in
        which all returns are equal is a draw for everyone.
    """
    g = game if isinstance(game, Game) else Game(game, **config)
    n = g.num_players
    if len(agents) != n:
        raise ValueError(f"agents: {len(agents)} given, but {g.name} is configured for num_players={n}")
    if num_games < 1:
        raise ValueError(f"num_games={num_games} is not valid; it must be >= 1")
    names = _unique_names(agents)
    records = [AgentRecord(name) for name in names]
    all_returns = []
    total_len = 0
    start = time.perf_counter()
    bar = progress_bar(num_games, f"{g.name}: " + " vs ".join(names), progress)
    for k in range(num_games):
        order = [(i - k) % n for i in range(n)]  # seat p is played by agent order[p]
        rets, length = play_game(g, [agents[a] for a in order], seed + k)
        total_len += length
        by_agent = np.zeros(n)
        for p, a in enumerate(order):
            by_agent[a] = rets[p]
        best = by_agent.max()
        all_equal = bool(np.allclose(by_agent, best))
        for a in range(n):
            rec = records[a]
            rec.games += 1
            rec.total_return += float(by_agent[a])
            if all_equal:
                rec.draws += 1
            elif np.isclose(by_agent[a], best):
                rec.wins += 1
            else:
                rec.losses += 1
        all_returns.append(by_agent.tolist())
        if bar is not None:
            bar.update(1)
            bar.set_postfix({records[0].name: f"{records[0].score:.2f}"})
    if bar is not None:
        bar.close()
    cfg = {f: getattr(g.config, f) for f in g.config.__dataclass_fields__}
    return MatchResult(g.name, cfg, num_games, records, total_len / num_games,
                       time.perf_counter() - start, all_returns)


def _unique_names(agents: Sequence[Agent]) -> list[str]:
    names: list[str] = []
    for a in agents:
        base = getattr(a, "name", type(a).__name__)
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def progress_bar(total: int, desc: str, enabled: bool) -> Any:
    """A tqdm progress bar over ``total`` items, or None when disabled or tqdm is not installed."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # the core install has no tqdm; progress is optional
        return None
    return tqdm(total=total, desc=desc, leave=False)
