"""Train a CFR policy: exact CFR on a small config, or MCCFR on any size.

    python -m experiments.train_cfr                                   # CFR+ on 2p Octrix 2x2
    python -m experiments.train_cfr --variant dcfr --game-config num_players=2,ranks=2,hand_size=3
    python -m experiments.train_cfr --game spiel:leduc_poker --iterations 2000
    python -m experiments.train_cfr --algorithm mccfr --sampling outcome \\
        --game-config num_players=2 --iterations 2000                   # full-size Octrix

Exact CFR flattens the game once (:func:`agents.cfr.flatten`) and reports the
NashConv of the average policy along the way. MCCFR runs on the engine kernels;
its NashConv is reported when the config is small enough to flatten
(``eval_tree``). For any size, the trained agent then plays ``eval_games`` arena
games (:func:`agents.arena.play_match`, seats rotating) against each of
``eval_opponents`` (random and the game's heuristic by default).

Outputs under ``out_dir``: ``train_cfr.json`` (config, curve, final figures), a PNG
curve and the checkpoint (``checkpoint.npz``, see ``CFRSolver.save``/``MCCFRSolver.save``).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.cfr import (
    CFRAgent,
    CFRConfig,
    CFRSolver,
    FlatTree,
    GameSource,
    MCCFRSolver,
    SpielSource,
    TablePolicy,
    flatten,
    nash_conv,
)
from octagames.core import Game


@dataclass(frozen=True)
class TrainCFRConfig:
    """Settings of one CFR training run."""

    game: str = "octrix"
    """one of our games by short name, or a pyspiel game as ``spiel:<name>`` (e.g. spiel:kuhn_poker)"""
    game_config: str = "num_players=2,ranks=2,hand_size=2"
    """config fields of our game as ``field=value,...`` (ignored for pyspiel games)"""
    algorithm: str = "cfr"
    """``cfr`` (exact, vectorised over the flattened tree) or ``mccfr`` (sampled, on the engine)"""
    variant: str = "cfr+"
    """exact CFR variant: cfr, cfr+, linear or dcfr"""
    alternating: bool = True
    """alternating (True) or simultaneous (False) updates"""
    alpha: float = 1.5
    """DCFR positive-regret discount exponent"""
    beta: float = 0.0
    """DCFR negative-regret discount exponent"""
    gamma: float = 2.0
    """DCFR average-policy weight exponent"""
    sampling: str = "external"
    """MCCFR sampling scheme: external or outcome"""
    iterations: int = 1000
    """training iterations"""
    eval_points: int = 10
    """evaluations along the run (log spaced)"""
    eval_tree: bool = True
    """MCCFR: flatten the config to report exact NashConv (only for small configs)"""
    eval_games: int = 100
    """arena games against each opponent at the end (our games only; 0 to skip)"""
    eval_opponents: tuple[str, ...] = ("random", "heuristic")
    """opponents for the arena evaluation (names for ``agents.registry.make_agent``)"""
    seed: int = 0
    """seed of MCCFR and of the evaluation games"""
    out_dir: str = "runs/train_cfr"
    """output folder"""
    quick: bool = False
    """tiny budget for tests (iterations <= 20, eval_games <= 4)"""


def parse_game_config(text: str) -> dict[str, Any]:
    """``"a=1,b=true"`` -> ``{"a": 1, "b": True}`` (ints, floats, booleans, strings)."""
    out: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        if "=" not in item:
            raise ValueError(f"game_config item {item!r} must look like field=value")
        k, v = (x.strip() for x in item.split("=", 1))
        if v.lower() in ("true", "false"):
            out[k] = v.lower() == "true"
        else:
            try:
                out[k] = int(v)
            except ValueError:
                try:
                    out[k] = float(v)
                except ValueError:
                    out[k] = v
    return out


def _checkpoints(total: int, points: int) -> list[int]:
    return [int(i) for i in np.unique(np.geomspace(1, max(total, 1), max(points, 1)).round().astype(int))]


def evaluate(
    game: Game, agent: CFRAgent, opponents: tuple[str, ...], games: int, seed: int
) -> dict[str, Any]:
    """Arena matches (:func:`agents.arena.play_match`, seats rotating) of ``agent`` against each opponent.

    Every other seat is played by a fresh ``make_agent(opponent, game.name)``.

    Returns:
        ``{opponent: {"win_rate", "ci95": [lo, hi], "mean_return", "games"}}`` for ``agent``.
    """
    from agents.arena import play_match
    from agents.registry import make_agent

    out = {}
    for name in opponents:
        try:
            others = [make_agent(name, game.name) for _ in range(game.num_players - 1)]
        except ValueError as e:  # e.g. no heuristic for this game
            out[name] = {"skipped": str(e)}
            continue
        rec = play_match(game, [agent, *others], games, seed=seed).to_json()["agents"][0]
        out[name] = {
            k: rec[k] for k in ("games", "wins", "draws", "losses", "win_rate", "ci95", "mean_return")
        }
    return out


def main(cfg: TrainCFRConfig) -> dict:
    """Train, evaluate, write JSON, PNG and checkpoint; returns the results."""
    iterations = min(cfg.iterations, 20) if cfg.quick else cfg.iterations
    eval_games = min(cfg.eval_games, 4) if cfg.quick else cfg.eval_games
    out_dir = Path(cfg.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    game: Game | None = None
    if cfg.game.startswith("spiel:"):
        import pyspiel

        if cfg.algorithm != "cfr":
            raise ValueError("algorithm='mccfr' runs on our games only (it uses the engine kernels)")
        source: Any = SpielSource(pyspiel.load_game(cfg.game[len("spiel:") :]))
    else:
        game = Game(cfg.game, **parse_game_config(cfg.game_config))
        source = GameSource(game)
    result: dict[str, Any] = {"config": dataclasses.asdict(cfg), "curve": []}
    tree: FlatTree | None = None
    if cfg.algorithm == "cfr" or cfg.eval_tree:
        t0 = time.perf_counter()
        tree = flatten(source)
        result.update(
            nodes=tree.num_nodes,
            infosets=tree.num_infosets,
            flatten_s=time.perf_counter() - t0,
            uniform_nash_conv=nash_conv(tree, tree.uniform_policy()),
        )
    if cfg.algorithm == "cfr":
        assert tree is not None
        solver: Any = CFRSolver(tree, CFRConfig(cfg.variant, cfg.alternating, cfg.alpha, cfg.beta, cfg.gamma))
        policy_on_tree = solver.average_policy
    elif cfg.algorithm == "mccfr":
        assert game is not None
        solver = MCCFRSolver(game, cfg.sampling, seed=cfg.seed)
        policy_on_tree = (lambda: solver.table_policy().to_tree(tree)) if tree is not None else None
    else:
        raise ValueError(f"algorithm={cfg.algorithm!r} is not valid; valid values: ['cfr', 'mccfr']")
    spent, done = 0.0, 0
    for it in tqdm(_checkpoints(iterations, cfg.eval_points), desc=f"{cfg.algorithm} {cfg.game}"):
        t = time.perf_counter()
        solver.iterate(it - done)
        spent += time.perf_counter() - t
        done = it
        point: dict[str, Any] = {"iteration": it, "seconds": spent}
        if tree is not None and policy_on_tree is not None:
            point["nash_conv"] = nash_conv(tree, policy_on_tree())
        if isinstance(solver, MCCFRSolver):
            point["infosets_seen"] = len(solver.masks)
        result["curve"].append(point)
    result["seconds_per_iteration"] = spent / max(done, 1)
    if result["curve"] and "nash_conv" in result["curve"][-1]:
        result["final_nash_conv"] = result["curve"][-1]["nash_conv"]
    if isinstance(solver, CFRSolver):
        result["average_policy_values"] = solver.root_values().tolist()
    solver.save(out_dir / "checkpoint.npz")
    if game is not None and eval_games > 0:
        table = (
            solver.table_policy()
            if isinstance(solver, MCCFRSolver)
            else TablePolicy.from_tree(tree, solver.average_policy())
        )
        result["arena"] = evaluate(game, CFRAgent(table), cfg.eval_opponents, eval_games, cfg.seed)
    (out_dir / "train_cfr.json").write_text(json.dumps(result, indent=2))
    _plot(result, out_dir / "train_cfr.png")
    _report(result)
    return result


def _plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.6))
    c = result["curve"]
    if c and "nash_conv" in c[0]:
        ax.loglog(
            [p["iteration"] for p in c], [max(p["nash_conv"], 1e-12) for p in c], "o-", label="average policy"
        )
        if "uniform_nash_conv" in result:
            ax.axhline(result["uniform_nash_conv"], color="grey", ls="--", label="uniform random")
        ax.set_ylabel("NashConv")
    else:
        ax.semilogx([p["iteration"] for p in c], [p.get("infosets_seen", 0) for p in c], "o-")
        ax.set_ylabel("information sets seen")
    cfg = result["config"]
    ax.set(
        xlabel="iteration",
        title=f"{cfg['algorithm']} ({cfg['variant'] if cfg['algorithm'] == 'cfr' else cfg['sampling']}) "
        f"on {cfg['game']}",
    )
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _report(result: dict) -> None:
    cfg = result["config"]
    where = "" if cfg["game"].startswith("spiel:") else f" ({cfg['game_config']})"
    print(f"{cfg['algorithm']} on {cfg['game']}{where}")
    if "nodes" in result:
        print(
            f"  tree: {result['nodes']} nodes, {result['infosets']} information sets, flattened in "
            f"{result['flatten_s']:.2f} s; uniform random NashConv {result['uniform_nash_conv']:.4f}"
        )
    for p in result["curve"]:
        extra = f" NashConv {p['nash_conv']:.3e}" if "nash_conv" in p else ""
        seen = f" infosets {p['infosets_seen']}" if "infosets_seen" in p else ""
        print(f"  iteration {p['iteration']:>7}: {p['seconds']:8.2f} s{extra}{seen}")
    print(f"  {1e3 * result['seconds_per_iteration']:.3f} ms per iteration")
    for name, rec in result.get("arena", {}).items():
        if "skipped" in rec:
            print(f"  vs {name}: skipped ({rec['skipped']})")
            continue
        lo, hi = rec["ci95"]
        print(
            f"  vs {name} ({rec['games']} games): win rate {rec['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], "
            f"draws {rec['draws']}, mean return {rec['mean_return']:.3f}"
        )


if __name__ == "__main__":
    import tyro

    main(tyro.cli(TrainCFRConfig))
