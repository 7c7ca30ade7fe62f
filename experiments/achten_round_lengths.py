"""How long Full deck achten rounds last, and how often a turn bound would stop them.

    python -m octagames.experiments.achten_round_lengths                 # random, heuristic, MCTS
    python -m octagames.experiments.achten_round_lengths --policies random heuristic --rounds 20000

The seed puts no limit on a round ("Zolang niemand past ..."); the engine's
``turn_cap`` (turns per player, first choice included) is only a safety bound,
and a round that reaches it stops unscored (truncated). This script plays
one-round games with the bound raised to its largest value and counts, for
every bound ``c`` in ``--caps``, the rounds whose normal turns would have gone
past ``c * n`` turns (the rounds that bound would have truncated); the row of
the default bound is the rate ``docs/rules/achten.md`` reports.

Policies, every seat playing the same one: ``random`` (uniform over the legal
actions), ``heuristic`` (:class:`~octagames.agents.heuristics.achten.AchtenHeuristicAgent`)
and ``mcts`` (:class:`~octagames.agents.search.mcts.MCTSAgent` with the game's default
evaluator and ``--mcts-simulations`` per move, searching a determinization).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.achten import rules as R
from octagames.agents.base import Agent, RandomAgent, make_turn
from octagames.agents.heuristics.achten import AchtenHeuristicAgent
from octagames.agents.search.mcts import MCTSAgent, MCTSConfig
from octagames.core import CHANCE, TERMINAL, Game


@dataclass
class LengthConfig:
    """What to measure."""

    policies: tuple[str, ...] = ("random", "heuristic", "mcts")
    """self-play policies: random, heuristic, mcts"""
    players: tuple[int, ...] = (2, 3, 4, 6)
    """player counts"""
    rounds: int = 5000
    """rounds per policy and player count (random and heuristic)"""
    mcts_rounds: int = 300
    """rounds per player count for MCTS self-play"""
    mcts_simulations: int = 200
    """MCTS simulations per move"""
    deal_penalty: float = R.DEFAULT_DEAL_PENALTY
    """the config's cost of having to deal next (the worst hand); the default is the default config's"""
    caps: tuple[int, ...] = (10, 20, 30, 50, R.DEFAULT_TURN_CAP)
    """turn bounds (per player) to count the rounds they would stop"""
    seed: int = 0
    """seed of deals and policies"""
    out: str = "runs/achten_round_lengths.json"
    """where the JSON goes"""


def make_policy(name: str, simulations: int) -> Agent:
    """The agent of policy ``name`` (``random``, ``heuristic`` or ``mcts``)."""
    if name == "random":
        return RandomAgent()
    if name == "heuristic":
        return AchtenHeuristicAgent()
    if name == "mcts":
        return MCTSAgent(MCTSConfig(num_simulations=simulations))
    raise ValueError(f"policy={name!r} is not valid; valid values: ['random', 'heuristic', 'mcts']")


def round_turns(game: Game, agents: list[Agent], seed: int) -> int:
    """Play one round; return the turn number of the move that ended the normal turns.

    The first choice is turn 1. A round ended by a pass or a claw on turn ``k``,
    or by verbied laid on turn ``k``, is stopped by a bound ``c`` exactly when
    ``k > c * n``. Returns ``R.DEFAULT_TURN_CAP * n + 1`` if the round was truncated.
    """
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    for p, agent in enumerate(agents):
        agent.reset(game, p, int(rng.integers(1 << 31)))
    turns = 0
    while game.current_player(s) != TERMINAL:
        if game.current_player(s) == CHANCE:
            game.apply_action(s, game.sample_chance(s))
            continue
        normal = int(s["phase"]) in (R.PH_FIRST, R.PH_TURNS)
        p = game.acting_player(s)
        game.apply_action(s, int(agents[p].act(make_turn(game, s, p, int(rng.integers(1 << 31))))))
        if normal:
            turns += 1
            if int(s["phase"]) not in (R.PH_FIRST, R.PH_TURNS):
                break  # a pass or a claw (last turns follow) or verbied: the normal turns are over
    if bool(R.truncated(s)):
        return R.DEFAULT_TURN_CAP * game.num_players + 1
    return turns


def measure(policy: str, n: int, rounds: int, cfg: LengthConfig) -> dict[str, Any]:
    """Round lengths of ``rounds`` self-play rounds of ``policy`` with ``n`` players."""
    game = Game("achten", num_players=n, turn_cap=R.DEFAULT_TURN_CAP, deal_penalty=cfg.deal_penalty)
    agents = [make_policy(policy, cfg.mcts_simulations) for _ in range(n)]
    start = time.perf_counter()
    lengths = np.array([round_turns(game, agents, cfg.seed * 1_000_003 + k) for k in range(rounds)])
    per_player = lengths / n
    return {"policy": policy, "players": n, "deal_penalty": cfg.deal_penalty, "rounds": rounds, "seconds": time.perf_counter() - start,
            "mean_turns_per_player": float(per_player.mean()), "max_turns_per_player": float(per_player.max()),
            "stopped_by_cap": {str(c): int((lengths > c * n).sum()) for c in cfg.caps}}


def main(cfg: LengthConfig) -> list[dict[str, Any]]:
    """Measure every policy and player count; print a table and write the JSON."""
    rows = []
    print(f"{'policy':<10} {'n':>2} {'rounds':>6} {'turns/player':>13} {'max':>5}  "
          + "  ".join(f"cap {c:>3}" for c in cfg.caps))
    for policy in cfg.policies:
        for n in cfg.players:
            row = measure(policy, n, cfg.mcts_rounds if policy == "mcts" else cfg.rounds, cfg)
            rows.append(row)
            rates = "  ".join(f"{100 * row['stopped_by_cap'][str(c)] / row['rounds']:6.2f}%" for c in cfg.caps)
            print(f"{policy:<10} {n:>2} {row['rounds']:>6} {row['mean_turns_per_player']:>13.2f} "
                  f"{row['max_turns_per_player']:>5.1f}  {rates}", flush=True)
    path = Path(cfg.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    import tyro

    main(tyro.cli(LengthConfig))
