"""The main job (`make demo`): a short arena on every game that exists.

For each game the heuristic plays the random agent with seats rotated; the
table is printed and written to ``runs/demo.json``. Then a short round robin
(random, heuristic where the game has one, MCTS with a small budget) runs on
every game, with Bradley-Terry Elo ratings (:mod:`octagames.experiments.tournament`),
written to ``runs/demo_tournament_<variant>.json`` and ``.png``.

Each game plays its demo variant: the one whose ``Variant.demo_mcts`` is set in
``octagames/<game>/variants.py`` (that many simulations per move for the round robin's
MCTS; Octrix plays ``octrix-round``, Achten ``achten-dealer-pays``: every round decisive),
or the game's own variant with 50 simulations. ``--game`` picks variants (``--game octa-nl``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from octagames import catalogue
from octagames.agents.arena import play_match
from octagames.agents.registry import make_agent
from octagames.catalogue import Variant
from octagames.experiments.tournament import run_tournament, save
from octagames.core import available_games
from octagames.experiments.cli import NO_CHART, parse_config, script, shown_default

#: simulations per move of the demo's MCTS on a game whose variants name no demo budget
DEFAULT_MCTS = 50


def demo_variant(game: str) -> Variant:
    """The variant the demo plays for ``game``: its first variant with a demo budget, else its seed one."""
    spec = catalogue.game_spec(game)
    return next((v for v in spec.variants if v.demo_mcts is not None), spec.seed_variant)


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
    game: Annotated[tuple[str, ...], shown_default("each installed game's demo variant: octrix-round, "
                                                    "achten-dealer-pays, ...")] = ()
    """variants to run (octagames list prints them)"""

    def __post_init__(self) -> None:
        for name in self.game:
            catalogue.variant(name)  # an unknown name is refused with the valid ones
        if self.games_per_match < 1:
            raise ValueError(f"games_per_match={self.games_per_match} is not valid; it must be >= 1")
        if self.tournament_games < 0:
            raise ValueError(f"tournament_games={self.tournament_games} is not valid; it must be >= 0 (0: none)")
        if Path(self.out).is_dir():  # refused before the games (it failed after them, with IsADirectoryError)
            raise ValueError(f"out={self.out!r} is a folder; it is the JSON file to write (e.g. "
                             f"{Path(self.out) / 'demo.json'})")


def main(cfg: DemoConfig) -> dict:
    """Run the demo arena; returns the JSON written."""
    results = {}
    variants = [catalogue.variant(name) for name in cfg.game] or [demo_variant(g) for g in available_games()]
    for v in variants:
        config = v.full_config()
        agents = [make_agent("heuristic", v.game)]
        agents += [make_agent("random", v.game) for _ in range(v.default_players - 1)]
        r = play_match(v.game, agents, cfg.games_per_match, seed=cfg.seed, **config)
        print(r.table(), "\n", flush=True)
        results[v.name] = r.to_json()
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    if cfg.tournament_games > 0:
        for v in variants:
            specs = ["random"]
            try:
                make_agent("heuristic", v.game)
                specs.append("heuristic")
            except ValueError:
                pass
            specs.append(f"mcts:{v.demo_mcts or DEFAULT_MCTS}")
            t = run_tournament(v.game, specs, cfg.tournament_games, seed=cfg.seed, bootstrap=100,
                               **v.full_config())
            print(t.table(), "\n", flush=True)
            _, chart = save(t, out.parent, f"demo_tournament_{v.name}", chart=None)
            if chart is None:
                print(NO_CHART)
            results[f"tournament_{v.name}"] = t.to_json()
        out.write_text(json.dumps(results, indent=2))
    return results


@script
def cli() -> None:
    """Command-line entry point (``octagames-demo``, or ``python -m octagames.experiments.demo``)."""
    main(parse_config(DemoConfig))


if __name__ == "__main__":
    cli()
