"""The main job (`make demo`): a short arena on every game that exists.

For each game the heuristic plays the random agent with seats rotated; the
table is printed and written to ``runs/demo.json``. Then a short round robin
(random, heuristic where the game has one, MCTS with a small budget) runs on
every game, with Bradley-Terry Elo ratings (:mod:`octagames.experiments.tournament`),
written to ``runs/demo_tournament_<game>.json`` and ``.png``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from octagames.agents.arena import play_match
from octagames.agents.registry import make_agent
from octagames.experiments.tournament import run_tournament, save
from octagames.core import available_games
from octagames.experiments.cli import parse_config, script

DEMO_CONFIGS = {
    "octrix": dict(num_players=2),
    "achten": dict(num_players=2, deal_penalty=1.0),  # every round decisive: the worst hand pays
    "octiles": dict(num_players=2),
    "octa": dict(),
}

# simulations per move of the demo's MCTS: long games (Octiles, Octa) get fewer
DEMO_MCTS_BUDGET = {"octrix": 200, "achten": 200, "octiles": 20, "octa": 20}


@dataclass(frozen=True)
class DemoConfig:
    """Settings of the demo arena."""

    games_per_match: int = 40
    """games per game type (seats rotate every game)"""
    seed: int = 0
    """match seed: game g uses seed + g"""
    out: str = "runs/demo.json"
    """where the JSON table goes"""
    tournament_games: int = 6
    """games per pair in the short round robin (0: no tournament)"""
    games: tuple[str, ...] = ()
    """games to run (default: every game installed)"""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.games) - set(available_games()))
        if unknown:
            raise ValueError(f"games={unknown} is not valid; valid values: {sorted(available_games())}")
        if self.games_per_match < 1:
            raise ValueError(f"games_per_match={self.games_per_match} is not valid; it must be >= 1")
        if self.tournament_games < 0:
            raise ValueError(f"tournament_games={self.tournament_games} is not valid; it must be >= 0 (0: none)")


def main(cfg: DemoConfig) -> dict:
    """Run the demo arena; returns the JSON written."""
    results = {}
    games = list(cfg.games) or available_games()
    for name in games:
        config = DEMO_CONFIGS.get(name, {})
        agents = [make_agent("heuristic", name), make_agent("random", name)]
        n = int(config.get("num_players", 2))
        agents += [make_agent("random", name) for _ in range(n - 2)]
        r = play_match(name, agents, cfg.games_per_match, seed=cfg.seed, **config)
        print(r.table(), "\n", flush=True)
        results[name] = r.to_json()
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    if cfg.tournament_games > 0:
        for name in games:
            specs = ["random"]
            try:
                make_agent("heuristic", name)
                specs.append("heuristic")
            except ValueError:
                pass
            specs.append(f"mcts:{DEMO_MCTS_BUDGET.get(name, 50)}")
            t = run_tournament(name, specs, cfg.tournament_games, seed=cfg.seed, bootstrap=100,
                               **DEMO_CONFIGS.get(name, {}))
            print(t.table(), "\n", flush=True)
            _, chart = save(t, out.parent, f"demo_tournament_{name}", chart=None)
            if chart is None:
                print("(no chart: matplotlib is not installed; pip install 'octagames[render]')")
            results[f"tournament_{name}"] = t.to_json()
        out.write_text(json.dumps(results, indent=2))
    return results


@script
def cli() -> None:
    """Command-line entry point (``octagames-demo``, or ``python -m octagames.experiments.demo``)."""
    main(parse_config(DemoConfig))


if __name__ == "__main__":
    cli()
