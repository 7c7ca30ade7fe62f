"""What a Gymnasium learner sees in Octiles: how its episodes end, how long they last, what they pay.

    python -m octagames.experiments.octiles_episodes
    python -m octagames.experiments.octiles_episodes --players 2 --episodes 100 --heuristic-episodes 20

For each player count, the learning seat (seat 0 of ``gymnasium.make("octagames/Octiles-v0")``;
the start player is drawn by lot) plays uniformly random legal actions or the heuristic
(:class:`~octagames.agents.heuristics.octiles.OctilesHeuristicAgent`) against opponents given
as the agent specs ``"random"`` or ``"heuristic"``. The script reports the share of episodes
truncated at the engine's turn cap (``max_turns``, return 0), won (return +1) and lost, the
game's turns and the learner's steps per episode (median, 90th percentile, maximum) and the
mean return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

import octagames.envs  # noqa: F401  (registers the Gymnasium ids)
from octagames.agents.base import make_turn
from octagames.agents.heuristics.octiles import OctilesHeuristicAgent


@dataclass
class EpisodesConfig:
    """What to measure."""

    players: tuple[int, ...] = (2, 3, 4)
    """player counts"""
    episodes: int = 200
    """episodes of random play against random opponents, per player count"""
    heuristic_episodes: int = 50
    """episodes of each pairing with the heuristic on either side, per player count"""
    seed: int = 0
    """seed of the first episode (episode k is reset with seed + k)"""


def episodes(players: int, learner: str, opponents: str, count: int, seed: int, **config: Any
             ) -> dict[str, Any]:
    """Play ``count`` episodes; the learner is ``"random"`` or ``"heuristic"``.

    Args:
        players: the number of players.
        learner: how the learning seat acts: ``"random"`` (uniform over the mask) or ``"heuristic"``.
        opponents: the agent spec of every other seat.
        count: episodes to play.
        seed: episode ``k`` is reset with ``seed + k``.
        **config: other config fields of the game (``max_turns``, ...).

    Returns:
        The shares truncated, won and lost, the mean return and the turn and step quantiles.
    """
    env = gymnasium.make("octagames/Octiles-v0", num_players=players, seat=0, opponents=opponents, **config)
    core = env.unwrapped
    agent = OctilesHeuristicAgent() if learner == "heuristic" else None
    rng = np.random.default_rng(seed)
    returns, turns, steps, truncations = [], [], [], 0
    for k in range(count):
        _, info = env.reset(seed=seed + k)
        if agent is not None:
            agent.reset(core.game, 0, seed + k)
        total, n, done = 0.0, 0, False
        while not done:
            if agent is None:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            else:
                action = int(agent.act(make_turn(core.game, core.state, 0, int(rng.integers(1 << 31)))))
            _, reward, terminated, truncated, info = env.step(action)
            total, n, done = total + reward, n + 1, terminated or truncated
        truncations += int(truncated)
        returns.append(total)
        turns.append(int(core.state["turns"]))
        steps.append(n)
    r, t, s = np.array(returns), np.array(turns), np.array(steps)
    return {"players": players, "learner": learner, "opponents": opponents, "episodes": count,
            "truncated": truncations / count, "won": float((r > 0.5).mean()), "lost": float((r < 0).mean()),
            "mean_return": float(r.mean()),
            "turns": [int(np.median(t)), int(np.quantile(t, 0.9)), int(t.max())],
            "steps": [int(np.median(s)), int(np.quantile(s, 0.9)), int(s.max())]}


def main(cfg: EpisodesConfig) -> list[dict[str, Any]]:
    """Measure every player count and pairing; print one line each."""
    rows = []
    for n in cfg.players:
        for learner, opponents, count in (("random", "random", cfg.episodes),
                                          ("random", "heuristic", cfg.heuristic_episodes),
                                          ("heuristic", "random", cfg.heuristic_episodes),
                                          ("heuristic", "heuristic", cfg.heuristic_episodes)):
            row = episodes(n, learner, opponents, count, cfg.seed)
            rows.append(row)
            print(f"{n} players, {learner} learner vs {opponents}: {count} episodes, "
                  f"{100 * row['truncated']:.0f}% truncated at max_turns, {100 * row['won']:.0f}% won, "
                  f"{100 * row['lost']:.0f}% lost, mean return {row['mean_return']:+.2f}; turns median/p90/max "
                  f"{'/'.join(map(str, row['turns']))}, learner steps {'/'.join(map(str, row['steps']))}",
                  flush=True)
    return rows


if __name__ == "__main__":
    import tyro

    main(tyro.cli(EpisodesConfig))
