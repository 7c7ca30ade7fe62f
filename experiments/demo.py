"""The main job (`make demo`): a short arena on every game that exists.

For each game the heuristic plays the random agent with seats rotated; the
table is printed and written to ``runs/demo.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agents.arena import play_match
from agents.registry import make_agent
from octagames.core import available_games

DEMO_CONFIGS = {
    "octrix": dict(num_players=2),
    "achten": dict(num_players=2),
    "octiles": dict(num_players=2),
    "octa": dict(),
}


@dataclass(frozen=True)
class DemoConfig:
    """Settings of the demo arena."""

    games_per_match: int = 40
    """games per game type (seats rotate every game)"""
    seed: int = 0
    """match seed: game g uses seed + g"""
    out: str = "runs/demo.json"
    """where the JSON table goes"""


def main(cfg: DemoConfig) -> dict:
    """Run the demo arena; returns the JSON written."""
    results = {}
    for name in available_games():
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
    return results


if __name__ == "__main__":
    try:
        import tyro
        main(tyro.cli(DemoConfig))
    except ImportError:
        main(DemoConfig())
