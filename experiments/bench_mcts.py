"""MCTS benchmark: our compiled search against OpenSpiel's Python MCTSBot, and strength.

    python -m octagames.experiments.bench_mcts                       # everything, default sizes
    python -m octagames.experiments.bench_mcts --skip-strength       # speed only (a minute)
    python -m octagames.experiments.bench_mcts --game achten-dealer-pays --skip-speed --random-budget 1000

The games: ``--game VARIANT ...`` (each may carry its own fields, ``octrix-round:ranks=3``),
``--players N`` and ``--config key=value ...``, as elsewhere; default: every game's seed variant.
Rows are named by variant and seats (``achten-dealer-pays-2p``).

All in one run on the same machine:

1. **Speed.** For every game, through its OpenSpiel face (``octagames.envs.openspiel``): the
   first decision of a fixed deal (the same chance outcomes applied to both),
   searched by our :class:`octagames.agents.search.mcts.MCTS` and by
   ``open_spiel.python.algorithms.mcts.MCTSBot`` with ``RandomRolloutEvaluator``
   (one uniformly random playout per simulation: our default playout policy
   too). Simultaneous games go through ``pyspiel.convert_to_turn_based``
   because MCTSBot only searches sequential games. Simulations per second and
   their ratio are reported.
2. **Strength against OpenSpiel** on the first Octiles game at equal simulation counts,
   seats rotated. OpenSpiel's MCTSBot searches the true state; Octiles has
   perfect information, so that is fair there.
3. **Strength against random and against the heuristics** on every game
   (``octagames.agents.arena.play_match``, seats rotated), with 95% Wilson intervals.

Results: ``runs/bench_mcts.json`` and ``runs/bench_mcts.png``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.agents.arena import play_match, wilson_interval
from octagames.agents.base import Agent, RandomAgent, make_turn
from octagames.agents.search.mcts import MCTS, MCTSAgent, MCTSConfig, default_evaluator
from octagames.agents.registry import make_agent
from octagames.experiments.cli import NO_CHART, GamesArgs, can_chart, parse_config, script
from octagames.core import Game


@dataclass(frozen=True)
class BenchConfig(GamesArgs):
    """Sizes of the MCTS benchmark (default: every game's seed variant)."""

    speed_seconds: float = 3.0
    """seconds of our search per speed measurement"""
    openspiel_simulations: int = 200
    """simulations of OpenSpiel's MCTSBot per speed measurement"""
    openspiel_games: int = 200
    """games against OpenSpiel's MCTSBot on Octiles (seats rotated)"""
    openspiel_budget: int = 10
    """simulations per move of both searches in the games against OpenSpiel"""
    random_games: int = 100
    """games against the random agent per game"""
    random_budget: int = 200
    """simulations per move against random"""
    heuristic_games: int = 50
    """games against the heuristic agent per game (where one exists)"""
    heuristic_budget: int = 1000
    """simulations per move against the heuristic"""
    skip_strength: bool = False
    """only measure speed"""
    skip_speed: bool = False
    """only measure strength"""
    seed: int = 0
    """seed of deals and searches"""
    out_dir: str = "runs"
    """folder of the JSON and PNG"""

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("openspiel_games", "random_games", "heuristic_games", "seed"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 0")
        for name in ("openspiel_simulations", "openspiel_budget", "random_budget", "heuristic_budget"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        if not self.speed_seconds > 0:
            raise ValueError(f"speed_seconds={self.speed_seconds} is not valid; it must be > 0")


def start_position(name: str, seed: int, config: dict[str, Any] | None = None) -> tuple[Game, Any, list[int]]:
    """Our record at the first decision of deal ``seed`` (of ``name`` with ``config``) and the chance
    outcomes that led there."""
    g = Game(name, **(config or {}))
    s = g.new_state(seed)
    outcomes = []
    while g.is_chance(s):
        a = g.sample_chance(s)
        g.apply_action(s, a)
        outcomes.append(a)
    return g, s, outcomes


def openspiel_game(name: str, config: dict[str, Any] | None = None):
    """The pyspiel game of ``name`` with ``config`` (turn-based when it is simultaneous)."""
    import pyspiel

    import octagames.envs.openspiel
    game = octagames.envs.openspiel.load(name, **(config or {}))
    if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        game = pyspiel.convert_to_turn_based(game)
    return game


def openspiel_bot(game, simulations: int, seed: int):
    """OpenSpiel's MCTSBot with one random playout per simulation."""
    from open_spiel.python.algorithms import mcts
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return mcts.MCTSBot(game, uct_c=1.4, max_simulations=simulations, evaluator=evaluator,
                        random_state=np.random.RandomState(seed), solve=False)


def speed(name: str, config: dict[str, Any], cfg: BenchConfig, label: str = "") -> dict[str, Any]:
    """Simulations per second of both searches from the same position of ``name`` with ``config``
    (the row is named ``label``, default ``name``)."""
    g, s, outcomes = start_position(name, cfg.seed, config)
    p = g.acting_player(s)
    # OpenSpiel's exploration constant (uct_c=1.4) and playout policy (uniformly random)
    ours = MCTS(g, MCTSConfig(num_simulations=10**9, time_limit=cfg.speed_seconds, exploration=1.4))
    ours.search(s, p, 0)  # compile (or load from the cache) outside the timing
    r = ours.search(s, p, 1)
    os_game = openspiel_game(name, config)
    st = os_game.new_initial_state()
    for a in outcomes:
        st.apply_action(a)
    assert st.current_player() == p, (name, st.current_player(), p)
    bot = openspiel_bot(os_game, cfg.openspiel_simulations, cfg.seed)
    t = time.perf_counter()
    bot.step(st)
    os_seconds = time.perf_counter() - t
    ours_rate = r.simulations / r.seconds
    os_rate = cfg.openspiel_simulations / os_seconds
    return {"game": label or name, "ours_sims_per_s": ours_rate, "ours_simulations": r.simulations,
            "openspiel_sims_per_s": os_rate, "openspiel_simulations": cfg.openspiel_simulations,
            "ratio": ours_rate / os_rate}


def vs_openspiel(name: str, games: int, budget: int, seed: int, partial: Path | None = None,
                 config: dict[str, Any] | None = None, label: str = "") -> dict[str, Any]:
    """Our MCTS against OpenSpiel's MCTSBot on ``name`` with ``config``, equal simulations, seats rotated.

    With ``partial``, the score so far is written there as JSON after every
    game (these matches take hours on a small machine). The rows are named ``label`` (default ``name``).
    """
    from tqdm.auto import tqdm
    g = Game(name, **(config or {}))
    os_game = openspiel_game(name, config)
    name = label or name
    ours = MCTSAgent(MCTSConfig(num_simulations=budget))
    wins = draws = 0
    bar = tqdm(range(games), desc=f"{name}: mcts:{budget} vs openspiel", leave=False)
    for k in bar:
        our_seat = k % 2
        rng = np.random.default_rng(seed + k)
        s = g.new_state(seed + k)
        st = os_game.new_initial_state()
        bot = openspiel_bot(os_game, budget, seed + k)
        ours.reset(g, our_seat, seed + k)
        while not g.is_terminal(s):
            p = g.acting_player(s)
            if g.is_chance(s):
                a = g.sample_chance(s)
            elif p == our_seat:
                a = ours.act(make_turn(g, s, p, int(rng.integers(1 << 31))))
            else:
                a = int(bot.step(st))
            g.apply_action(s, a)
            st.apply_action(a)
        rets = g.returns(s)
        if np.isclose(rets[our_seat], rets[1 - our_seat]):
            draws += 1
        elif rets[our_seat] > rets[1 - our_seat]:
            wins += 1
        bar.set_postfix(score=f"{(wins + 0.5 * draws) / (k + 1):.2f}")
        if partial is not None:
            partial.write_text(json.dumps(_os_row(name, k + 1, budget, wins, draws, g), indent=2))
    return _os_row(name, games, budget, wins, draws, g)


def _os_row(name: str, games: int, budget: int, wins: int, draws: int, g: Game) -> dict[str, Any]:
    score = wins + 0.5 * draws
    return {"game": name, "opponent": "openspiel MCTSBot", "budget": budget, "games": games,
            "evaluator": type(default_evaluator(g)).__name__,
            "wins": wins, "draws": draws, "score": score / games, "ci95": list(wilson_interval(score, games))}


def vs_agent(spec: str, opponent: str, games: int, budget: int, seed: int,
             config: dict[str, Any] | None = None, label: str = "") -> dict[str, Any]:
    """Our MCTS against ``opponent`` (a registry spec) in every other seat, on game ``spec`` (a game or
    variant) with ``config``; the row is named ``label`` (default ``spec``)."""
    g = Game(spec, **(config or {}))
    agents: list[Agent] = [MCTSAgent(MCTSConfig(num_simulations=budget))]
    agents += [make_agent(opponent, g) if opponent != "random" else RandomAgent()
               for _ in range(g.num_players - 1)]
    r = play_match(g, agents, games, seed=seed)
    rec = r.records[0]
    return {"game": label or spec, "opponent": opponent, "budget": budget, "games": games,
            "evaluator": type(default_evaluator(g)).__name__, "wins": rec.wins,
            "draws": rec.draws, "score": rec.score, "ci95": list(rec.interval()), "seconds": r.seconds}


def chart(result: dict[str, Any], path: Path) -> None:
    """Speed ratios and win rates with their intervals, side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    sp = result["speed"]
    ax1.bar([x["game"] for x in sp], [x["ours_sims_per_s"] for x in sp], label="ours")
    ax1.bar([x["game"] for x in sp], [x["openspiel_sims_per_s"] for x in sp], label="OpenSpiel MCTSBot")
    ax1.set_yscale("log")
    ax1.set_ylabel("simulations / s")
    for i, x in enumerate(sp):
        ax1.text(i, x["ours_sims_per_s"], f"{x['ratio']:.0f}x", ha="center", va="bottom")
    if sp:
        ax1.legend()
    ax1.set_title("search speed, same position, random playouts")
    rows = result["strength"]
    labels = [f"{x['game']}\nvs {x['opponent'].split()[0]}\n({x['budget']} sims)" for x in rows]
    scores = [x["score"] for x in rows]
    err = np.abs(np.array([x["ci95"] for x in rows]).T - scores) if rows else None
    ax2.bar(range(len(rows)), scores, yerr=err, capsize=3)
    ax2.set_xticks(range(len(rows)), labels, fontsize=7)
    ax2.axhline(0.5, color="grey", lw=0.8)
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("score of our MCTS (95% CI)")
    ax2.set_title("strength")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(cfg: BenchConfig) -> dict[str, Any]:
    """Run the benchmark, print the figures and write the files."""
    games = list(zip(cfg.describe_all(), cfg.resolve_all()))  # a bad entry fails before anything is measured
    result: dict[str, Any] = {"config": vars(cfg), "speed": [], "strength": []}
    for label, (name, config) in games if not cfg.skip_speed else []:
        row = speed(name, config, cfg, label)
        result["speed"].append(row)
        print(f"{label:<8} ours {row['ours_sims_per_s']:>10.0f} sims/s   "
              f"OpenSpiel {row['openspiel_sims_per_s']:>8.1f} sims/s   ratio {row['ratio']:.0f}x", flush=True)
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if not cfg.skip_strength:
        rows = result["strength"]

        def record(row: dict[str, Any]) -> None:
            # print and save after every match, so a long run keeps what it has measured
            rows.append(row)
            lo, hi = row["ci95"]
            print(f"{row['game']:<8} mcts:{row['budget']} vs {row['opponent']:<18} score {row['score']:.3f} "
                  f"[{lo:.3f}, {hi:.3f}] over {row['games']} games", flush=True)
            (out / "bench_mcts.json").write_text(json.dumps(result, indent=2))

        octiles = [(label, config) for label, (name, config) in games if name == "octiles"]
        if octiles and cfg.openspiel_games > 0:
            record(vs_openspiel("octiles", cfg.openspiel_games, cfg.openspiel_budget, cfg.seed,
                                partial=out / "bench_mcts_openspiel_partial.json", config=octiles[0][1],
                                label=octiles[0][0]))
        for label, (name, config) in games:
            if cfg.random_games > 0:
                record(vs_agent(name, "random", cfg.random_games, cfg.random_budget, cfg.seed, config, label))
            try:
                make_agent("heuristic", name)
            except (ValueError, ImportError) as e:  # no heuristic for this game (or it does not load)
                print(f"{label}: no heuristic agent ({e})")
                continue
            if cfg.heuristic_games > 0:
                record(vs_agent(name, "heuristic", cfg.heuristic_games, cfg.heuristic_budget, cfg.seed,
                                config, label))
    (out / "bench_mcts.json").write_text(json.dumps(result, indent=2))
    if can_chart():
        chart(result, out / "bench_mcts.png")
        print(f"wrote {out / 'bench_mcts.json'} and {out / 'bench_mcts.png'}")
    else:
        print(f"wrote {out / 'bench_mcts.json'} {NO_CHART}")
    return result


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-mcts``, or ``python -m octagames.experiments.bench_mcts``)."""
    main(parse_config(BenchConfig))


if __name__ == "__main__":
    cli()
