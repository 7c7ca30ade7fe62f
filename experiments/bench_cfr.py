"""CFR benchmark: our vectorised CFR+ against OpenSpiel's, and CFR on small Octrix configs.

    python -m octagames.experiments.bench_cfr                 # default budget, a few minutes
    python -m octagames.experiments.bench_cfr --quick         # tiny budget (tests)

Part 1, Kuhn and Leduc poker in one run: our CFR+ (:class:`octagames.agents.cfr.solver.CFRSolver`),
OpenSpiel's Python ``cfr.CFRPlusSolver`` and its C++ ``pyspiel.CFRPlusSolver``.
Every NashConv is computed by OpenSpiel's ``exploitability.nash_conv`` on the
solver's average policy; time per iteration excludes the evaluations. On Leduc
the time to reach NashConv <= ``target`` is measured for ours and for C++ (the
Python solver's is extrapolated from its time per iteration, stated as such).

Part 2, 2-player reduced-deck Octrix over one round: NashConv curves of the four
CFR variants (our exact :func:`octagames.agents.cfr.exploitability.nash_conv`), the NashConv of uniform
random play and of the heuristic agent (small configs), the gap between CFR+'s value and the exact value from
:mod:`octagames.agents.search.octrix_solver` (whole config and single deals), and one cross-check
of our NashConv against OpenSpiel's through ``octagames.envs.openspiel``.

Results: ``<out>`` (JSON) and a PNG of the curves beside it.
"""

from __future__ import annotations

import json
import platform
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import exploitability as os_exploitability
from tqdm import tqdm

from octagames.agents.cfr.solver import VARIANTS, CFRConfig, CFRSolver
from octagames.agents.cfr.tree import GameSource, flatten, flatten_spiel
from octagames.agents.cfr.exploitability import adapter_policy, agent_policy, nash_conv, to_openspiel_policy
from octagames.agents.heuristics.octrix import OctrixHeuristicAgent
from octagames.agents.search.octrix_solver import OctrixRoundSolver, game_value, state_value
from octagames.core import Game
from octagames.envs import openspiel as eo
from octagames.experiments.cli import parse_config, script


@dataclass(frozen=True)
class BenchCFRConfig:
    """Settings of the CFR benchmark."""

    iterations: int = 1000
    """CFR+ iterations of our solver and of OpenSpiel's C++ solver on each poker game"""
    python_iterations: int = 20
    """CFR+ iterations of OpenSpiel's Python solver (slow per iteration: see docs/benchmarks.md)"""
    eval_points: int = 6
    """NashConv evaluations along each poker curve (log spaced)"""
    target: float = 1e-3
    """NashConv target for the time-to-target measurement on Leduc"""
    target_check_every: int = 25
    """iterations between NashConv checks while racing to the target"""
    max_target_iterations: int = 5000
    """give up the race to the target after this many iterations"""
    octrix_configs: tuple[str, ...] = ("1x2", "2x2", "2x3")
    """reduced Octrix decks as RANKSxHAND_SIZE (2 players, one round)"""
    octrix_iterations: int = 1000
    """CFR iterations per Octrix config and variant"""
    octrix_deals: int = 6
    """random deals of the largest Octrix config on which CFR+ is compared with the exact solver"""
    heuristic_max_nodes: int = 10_000
    """measure the NashConv of the Octrix heuristic agent on configs with at most this many tree nodes"""
    octrix_openspiel_check: bool = True
    """cross-check our NashConv with OpenSpiel's on the smallest Octrix config's final policy"""
    out: str = "runs/bench_cfr.json"
    """JSON output (the PNG is written beside it)"""
    quick: bool = False
    """tiny budget for tests: few iterations, Kuhn's full run, Leduc shortened"""
    seed: int = 0
    """seed of the deals"""
    games: tuple[str, ...] = field(default=("kuhn_poker", "leduc_poker"))
    """pyspiel games of part 1, by OpenSpiel's names (kuhn_poker, leduc_poker): not octagames variants, which
    part 2 picks itself (the Octrix round configs); --game, --players and --config are not flags here"""

    def __post_init__(self) -> None:
        for name in ("iterations", "python_iterations", "eval_points", "target_check_every", "max_target_iterations",
                     "octrix_iterations"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 1")
        for name in ("octrix_deals", "heuristic_max_nodes", "seed"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 0")
        if not self.target > 0:
            raise ValueError(f"target={self.target} is not valid; it must be > 0")
        for name in self.games:  # pyspiel's own refusal prints every name it has
            if name.split("(")[0] not in pyspiel.registered_names():
                raise ValueError(f"games: {name!r} is not valid: pyspiel has no such game; valid values: the names "
                                 "of pyspiel.registered_names(), e.g. kuhn_poker leduc_poker")
        for spec in self.octrix_configs:  # here, not after the poker part
            ranks, x, hand = spec.partition("x")
            if not (x and ranks.isdigit() and hand.isdigit()):
                raise ValueError(f"octrix_configs: {spec!r} is not valid; give RANKSxHAND_SIZE, e.g. 2x3")
            try:
                Game("octrix-round", num_players=2, ranks=int(ranks), hand_size=int(hand))
            except ValueError as e:
                raise ValueError(f"octrix_configs: {spec!r} is not valid: {e}") from e


def _eval_iterations(total: int, points: int) -> list[int]:
    """Log-spaced iteration counts ending at ``total``."""
    its = np.unique(np.geomspace(1, max(total, 1), max(points, 1)).round().astype(int))
    return [int(i) for i in its]


class _CppPolicy:
    """An OpenSpiel Python policy view of a C++ ``pyspiel.Policy``."""

    def __new__(cls, game: Any, cpp_policy: Any) -> Any:
        class _P(os_policy.Policy):
            def action_probabilities(self, state, player_id=None):
                return dict(cpp_policy.action_probabilities(state))

        return _P(game, list(range(game.num_players())))


def _poker(name: str, cfg: BenchCFRConfig) -> dict:
    """Part 1 on one pyspiel game."""
    game = pyspiel.load_game(name)
    quick_leduc = cfg.quick and name == "leduc_poker"
    n_ours = 20 if quick_leduc else cfg.iterations
    n_cpp = 5 if quick_leduc else cfg.iterations
    n_py = 2 if quick_leduc else cfg.python_iterations
    t0 = time.perf_counter()
    tree = flatten_spiel(game)
    flatten_s = time.perf_counter() - t0
    out: dict[str, Any] = {
        "game": name,
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "flatten_s": flatten_s,
        "solvers": {},
    }

    def run(label: str, total: int, step, policy) -> None:
        curve, spent, done = [], 0.0, 0
        for it in tqdm(_eval_iterations(total, cfg.eval_points), desc=f"{name} {label}", leave=False):
            t = time.perf_counter()
            step(it - done)
            spent += time.perf_counter() - t
            done = it
            curve.append(
                {
                    "iteration": it,
                    "nash_conv": float(os_exploitability.nash_conv(game, policy())),
                    "seconds": spent,
                }
            )
        out["solvers"][label] = {
            "iterations": done,
            "seconds_per_iteration": spent / max(done, 1),
            "final_nash_conv": curve[-1]["nash_conv"],
            "curve": curve,
        }

    ours = CFRSolver(tree, CFRConfig("cfr+"))
    ours.iterate(1)  # compile the kernels outside the timing
    ours = CFRSolver(tree, CFRConfig("cfr+"))
    run("ours", n_ours, ours.iterate, lambda: to_openspiel_policy(tree, ours.average_policy(), game))
    out["game_value_ours"] = float(ours.root_values()[0])

    cpp = pyspiel.CFRPlusSolver(game)
    run(
        "openspiel_cpp",
        n_cpp,
        lambda k: [cpp.evaluate_and_update_policy() for _ in range(k)],
        lambda: _CppPolicy(game, cpp.average_policy()),
    )
    py = os_cfr.CFRPlusSolver(game)
    run(
        "openspiel_python",
        n_py,
        lambda k: [py.evaluate_and_update_policy() for _ in range(k)],
        py.average_policy,
    )
    s = out["solvers"]
    out["speedup_vs_python"] = (
        s["openspiel_python"]["seconds_per_iteration"] / s["ours"]["seconds_per_iteration"]
    )
    out["speedup_vs_cpp"] = s["openspiel_cpp"]["seconds_per_iteration"] / s["ours"]["seconds_per_iteration"]
    if name == "leduc_poker" and not cfg.quick:
        out["time_to_target"] = _race(game, tree, cfg)
        out["time_to_target"]["openspiel_python_extrapolated_s"] = (
            s["openspiel_python"]["seconds_per_iteration"] * out["time_to_target"]["ours"]["iterations"]
        )
    return out


def _race(game: Any, tree: Any, cfg: BenchCFRConfig) -> dict:
    """Iterations and seconds until OpenSpiel's NashConv of the average policy is <= target."""
    res = {"target": cfg.target}
    ours = CFRSolver(tree, CFRConfig("cfr+"))
    cpp = pyspiel.CFRPlusSolver(game)
    for label, step, pol in (
        ("ours", ours.iterate, lambda: to_openspiel_policy(tree, ours.average_policy(), game)),
        (
            "openspiel_cpp",
            lambda k: [cpp.evaluate_and_update_policy() for _ in range(k)],
            lambda: _CppPolicy(game, cpp.average_policy()),
        ),
    ):
        spent, it, nc = 0.0, 0, float("inf")
        bar = tqdm(
            desc=f"leduc {label} to NashConv<={cfg.target}", total=cfg.max_target_iterations, leave=False
        )
        while it < cfg.max_target_iterations:
            t = time.perf_counter()
            step(cfg.target_check_every)
            spent += time.perf_counter() - t
            it += cfg.target_check_every
            bar.update(cfg.target_check_every)
            nc = float(os_exploitability.nash_conv(game, pol()))
            if nc <= cfg.target:
                break
        bar.close()
        res[label] = {"iterations": it, "seconds": spent, "nash_conv": nc, "reached": nc <= cfg.target}
    return res


def _octrix(spec: str, cfg: BenchCFRConfig, solver: OctrixRoundSolver) -> dict:
    """Part 2 on one reduced Octrix config."""
    ranks, hand = (int(x) for x in spec.split("x"))
    game = Game("octrix-round", num_players=2, ranks=ranks, hand_size=hand)
    t0 = time.perf_counter()
    tree = flatten(GameSource(game))
    out: dict[str, Any] = {
        "config": {"num_players": 2, "ranks": ranks, "hand_size": hand},
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "flatten_s": time.perf_counter() - t0,
        "uniform_nash_conv": nash_conv(tree, tree.uniform_policy()),
        "exact_value": game_value(game, solver),
        "variants": {},
    }
    if tree.num_nodes <= cfg.heuristic_max_nodes:
        out["heuristic_nash_conv"] = nash_conv(tree, agent_policy(game, tree, OctrixHeuristicAgent()))
    n = 30 if cfg.quick else cfg.octrix_iterations
    final = None
    for variant in VARIANTS:
        s = CFRSolver(tree, CFRConfig(variant))
        curve, spent, done = [], 0.0, 0
        for it in tqdm(_eval_iterations(n, 8), desc=f"octrix {spec} {variant}", leave=False):
            t = time.perf_counter()
            s.iterate(it - done)
            spent += time.perf_counter() - t
            done = it
            curve.append(
                {"iteration": it, "nash_conv": nash_conv(tree, s.average_policy()), "seconds": spent}
            )
        value = float(s.root_values()[0])
        out["variants"][variant] = {
            "seconds_per_iteration": spent / n,
            "final_nash_conv": curve[-1]["nash_conv"],
            "value": value,
            "value_gap": abs(value - out["exact_value"]),
            "curve": curve,
        }
        if variant == "cfr+":
            final = s.average_policy()
    out["_tree"], out["_policy"], out["_game"] = tree, final, game
    return out


def _deal_gaps(spec: str, cfg: BenchCFRConfig, solver: OctrixRoundSolver) -> list[dict]:
    """CFR+ value against the exact value on random single deals."""
    ranks, hand = (int(x) for x in spec.split("x"))
    game = Game("octrix-round", num_players=2, ranks=ranks, hand_size=hand)
    rows = []
    n_deals = 2 if cfg.quick else cfg.octrix_deals
    for k in tqdm(range(n_deals), desc=f"octrix {spec} deals", leave=False):
        s = game.new_state(cfg.seed + k)
        game.play_chance(s)
        tree = flatten(GameSource(game, root=s))
        cfr = CFRSolver(tree, CFRConfig("cfr+"))
        cfr.iterate(30 if cfg.quick else cfg.octrix_iterations)
        exact, value = state_value(s, solver), float(cfr.root_values()[0])
        hands = [[int(c) for c in np.flatnonzero(s["owner"] == p)] for p in (0, 1)]
        rows.append(
            {
                "hands": hands,
                "exact": exact,
                "cfr+": value,
                "gap": abs(value - exact),
                "nash_conv": nash_conv(tree, cfr.average_policy()),
            }
        )
    return rows


def _plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    polys = result["poker"]
    octs = result["octrix"]
    fig, axes = plt.subplots(1, len(polys) + len(octs), figsize=(4.2 * (len(polys) + len(octs)), 3.6))
    axes = np.atleast_1d(axes)
    for ax, r in zip(axes, polys):
        for label, s in r["solvers"].items():
            c = s["curve"]
            ax.loglog([p["seconds"] for p in c], [max(p["nash_conv"], 1e-12) for p in c], "o-", label=label)
        ax.set(title=r["game"], xlabel="seconds (evaluation excluded)", ylabel="NashConv (OpenSpiel)")
        ax.legend(fontsize=7)
    for ax, r in zip(axes[len(polys) :], octs):
        for variant, s in r["variants"].items():
            c = s["curve"]
            ax.loglog(
                [p["iteration"] for p in c], [max(p["nash_conv"], 1e-12) for p in c], "o-", label=variant
            )
        ax.axhline(r["uniform_nash_conv"], color="grey", ls="--", label="uniform random")
        if "heuristic_nash_conv" in r:
            ax.axhline(r["heuristic_nash_conv"], color="black", ls=":", label="heuristic agent")
        cfgd = r["config"]
        ax.set(
            title=f"Octrix 2p ranks={cfgd['ranks']} hand={cfgd['hand_size']}",
            xlabel="iteration",
            ylabel="NashConv",
        )
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(cfg: BenchCFRConfig) -> dict:
    """Run the benchmark, print the tables, write JSON and PNG; returns the results."""
    warnings.simplefilter("ignore", RuntimeWarning)
    result: dict[str, Any] = {
        "config": asdict(cfg),
        "machine": f"{platform.processor() or platform.machine()}, "
        f"{platform.system()}, python {platform.python_version()}",
        "poker": [],
        "octrix": [],
    }
    for name in cfg.games:
        result["poker"].append(_poker(name, cfg))
    solver = OctrixRoundSolver()
    specs = cfg.octrix_configs[:2] if cfg.quick else cfg.octrix_configs
    for spec in specs:
        result["octrix"].append(_octrix(spec, cfg, solver))
    if specs:
        result["octrix_deal_gaps"] = {specs[-1]: _deal_gaps(specs[-1], cfg, solver)}
    if specs and cfg.octrix_openspiel_check:
        small = result["octrix"][0]
        spiel_game = pyspiel.convert_to_turn_based(eo.load("octrix-round", **small["config"]))
        theirs = os_exploitability.nash_conv(
            spiel_game, adapter_policy(small["_tree"], small["_policy"], spiel_game, small["_game"])
        )
        ours = nash_conv(small["_tree"], small["_policy"])
        result["octrix_openspiel_check"] = {
            "config": small["config"],
            "ours": ours,
            "openspiel": float(theirs),
            "abs_diff": abs(ours - float(theirs)),
        }
    for r in result["octrix"]:
        for k in ("_tree", "_policy", "_game"):
            r.pop(k)
    _report(result)
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    _plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")
    return result


def _report(result: dict) -> None:
    print(f"machine: {result['machine']}")
    print(f"{'game':<12} {'solver':<17} {'iters':>6} {'NashConv':>10} {'ms/iter':>9}")
    for r in result["poker"]:
        for label, s in r["solvers"].items():
            print(
                f"{r['game']:<12} {label:<17} {s['iterations']:>6} {s['final_nash_conv']:>10.3g} "
                f"{1e3 * s['seconds_per_iteration']:>9.3f}"
            )
        print(
            f"{r['game']:<12} speed-up per iteration: {r['speedup_vs_python']:.0f}x vs OpenSpiel Python, "
            f"{r['speedup_vs_cpp']:.1f}x vs C++; our game value {r['game_value_ours']:.6f}"
        )
        if "time_to_target" in r:
            t = r["time_to_target"]
            for label in ("ours", "openspiel_cpp"):
                x = t[label]
                print(
                    f"{r['game']:<12} {label}: NashConv {x['nash_conv']:.3g} <= {t['target']} "
                    f"{'reached' if x['reached'] else 'NOT reached'} after {x['iterations']} iterations, "
                    f"{x['seconds']:.2f} s"
                )
            print(
                f"{r['game']:<12} openspiel_python: about {t['openspiel_python_extrapolated_s']:.0f} s "
                f"for as many iterations (extrapolated)"
            )
    print(
        f"\n{'octrix':<10} {'nodes':>7} {'infosets':>8} {'uniform NC':>10} {'heur. NC':>9} {'exact':>8} "
        + " ".join(f"{v + ' NC':>11}" for v in VARIANTS)
        + f" {'cfr+ gap':>9}"
    )
    for r in result["octrix"]:
        c = r["config"]
        heur = f"{r['heuristic_nash_conv']:>9.4f}" if "heuristic_nash_conv" in r else f"{'-':>9}"
        print(
            f"{c['ranks']}x{c['hand_size']:<8} {r['nodes']:>7} {r['infosets']:>8} "
            f"{r['uniform_nash_conv']:>10.4f} {heur} "
            f"{r['exact_value']:>8.4f} "
            + " ".join(f"{r['variants'][v]['final_nash_conv']:>11.2e}" for v in VARIANTS)
            + f" {r['variants']['cfr+']['value_gap']:>9.2e}"
        )
    for spec, rows in result.get("octrix_deal_gaps", {}).items():
        gaps = [x["gap"] for x in rows]
        print(
            f"octrix {spec} single deals: exact values {[round(x['exact'], 3) for x in rows]}, "
            f"max |CFR+ - exact| {max(gaps):.2e}"
        )
    if "octrix_openspiel_check" in result:
        x = result["octrix_openspiel_check"]
        print(f"octrix {x['config']}: our NashConv {x['ours']:.10f}, OpenSpiel's {x['openspiel']:.10f}")


@script
def cli() -> None:
    """Command-line entry point (``octagames-bench-cfr``, or ``python -m octagames.experiments.bench_cfr``)."""
    main(parse_config(BenchCFRConfig))


if __name__ == "__main__":
    cli()
