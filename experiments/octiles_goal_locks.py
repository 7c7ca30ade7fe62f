"""How much the Octiles goal-lock reading changes play: legal turns, game length, strength.

    python -m octagames.experiments.octiles_goal_locks
    python -m octagames.experiments.octiles_goal_locks --games 200 --players 2 4

The seed has no rule that a runner on its goal circle never moves again (that
reading, ``goal_locks=True``, comes from another publisher's rules); by default
such a runner moves like any other. For each player count this script

1. plays random games under the seed's reading and, at every placement
   decision, compares the legal turns with those the locked reading would give
   in the same position (the share of decisions where they differ, and the share
   where the seat to act has a runner on its goal at all);
2. plays random games and heuristic self-play games
   (:class:`~octagames.agents.heuristics.octiles.OctilesHeuristicAgent`) under
   both readings and reports how many turns they last and how many reach the
   engine's turn cap (a draw);
3. plays the heuristic against random play under the seed's reading (seats
   rotated) and reports its win rate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.agents.arena import play_match
from octagames.agents.base import Agent, RandomAgent, make_turn
from octagames.agents.heuristics.octiles import OctilesHeuristicAgent
from octagames.core import CHANCE, TERMINAL, Game
from octagames.octiles import rules as R


@dataclass
class LocksConfig:
    """What to measure."""

    players: tuple[int, ...] = (2, 3, 4)
    """player counts"""
    games: int = 100
    """random games per player count and reading"""
    heuristic_games: int = 40
    """heuristic self-play games and games against random play, per player count and reading"""
    seed: int = 0
    """seed of the games"""
    out: str = "runs/octiles_goal_locks.json"
    """where the JSON goes"""


def compare_masks(n: int, games: int, seed: int) -> dict[str, float]:
    """Random games under the seed's reading; at each placement, the legal turns both ways."""
    free, locked = Game("octiles", num_players=n), Game("octiles", num_players=n, goal_locks=True)
    rng = np.random.default_rng(seed)
    decisions = differ = home = 0
    for k in range(games):
        s = free.new_state(seed + k)
        while not free.is_terminal(s):
            if free.is_chance(s):
                free.apply_action(s, free.sample_chance(s))
                continue
            p = free.acting_player(s)
            mask = free.legal_mask(s, p)
            if int(s["phase"]) == R.PH_PLACE:
                t = s.copy()
                t["goal_locks"] = 1
                decisions += 1
                differ += int(not np.array_equal(mask, locked.legal_mask(t, p)))
                home += int(any(bool(R.on_goal(s, p, int(x))) for x in s["pos"][p, : int(s["runners"])]))
            free.apply_action(s, int(rng.choice(np.flatnonzero(mask))))
    return {"decisions": decisions, "differ": differ / decisions, "runner_on_goal": home / decisions}


def lengths(game: Game, agents: list[Agent] | None, games: int, seed: int) -> dict[str, float]:
    """Turns per game and the share of games stopped by the turn cap (random play if ``agents`` is None)."""
    rng = np.random.default_rng(seed)
    turns = []
    for k in range(games):
        s = game.new_state(seed + k)
        for p, agent in enumerate(agents or []):
            agent.reset(game, p, int(rng.integers(1 << 31)))
        while game.current_player(s) != TERMINAL:
            if game.current_player(s) == CHANCE:
                game.apply_action(s, game.sample_chance(s))
                continue
            p = game.acting_player(s)
            if agents is None:
                a = int(rng.choice(game.legal_actions(s, p)))
            else:
                a = int(agents[p].act(make_turn(game, s, p, int(rng.integers(1 << 31)))))
            game.apply_action(s, a)
        turns.append(int(s["turns"]))
    t = np.array(turns)
    return {"games": games, "mean_turns": float(t.mean()), "max_turns": int(t.max()),
            "capped": float((t >= game.config.max_turns).mean())}


def main(cfg: LocksConfig) -> list[dict[str, Any]]:
    """Measure every player count; print the figures and write the JSON."""
    rows = []
    for n in cfg.players:
        row: dict[str, Any] = {"players": n, "masks": compare_masks(n, cfg.games, cfg.seed)}
        print(f"{n} players: legal turns differ in {100 * row['masks']['differ']:.1f}% of "
              f"{row['masks']['decisions']} placement decisions of random play (a runner on its goal in "
              f"{100 * row['masks']['runner_on_goal']:.1f}%)", flush=True)
        for locks in (False, True):
            game = Game("octiles", num_players=n, goal_locks=locks)
            rnd = lengths(game, None, cfg.games, cfg.seed)
            heu = lengths(game, [OctilesHeuristicAgent() for _ in range(n)], cfg.heuristic_games, cfg.seed)
            vs = play_match(game, [OctilesHeuristicAgent()] + [RandomAgent() for _ in range(n - 1)],
                            cfg.heuristic_games, seed=cfg.seed, progress=False)
            row[f"goal_locks={locks}"] = {"random": rnd, "heuristic": heu,
                                          "heuristic_vs_random": vs.records[0].score}
            print(f"  goal_locks={locks}: random {rnd['mean_turns']:.0f} turns (max {rnd['max_turns']}, "
                  f"{100 * rnd['capped']:.0f}% capped); heuristic self-play {heu['mean_turns']:.0f} turns "
                  f"({100 * heu['capped']:.0f}% capped); heuristic vs random score "
                  f"{vs.records[0].score:.2f}", flush=True)
        rows.append(row)
    path = Path(cfg.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    import tyro

    main(tyro.cli(LocksConfig))
