"""Train a CFR policy: exact CFR on a small config, or MCCFR on any size.

    octagames train-cfr                                   # CFR+ on octrix-round-small (2p, 2 ranks, 2 cards)
    octagames train-cfr --cfr-variant dcfr --config hand_size=3
    octagames train-cfr --game spiel:leduc_poker --iterations 2000
    octagames train-cfr --algorithm mccfr --sampling outcome --game octrix-round \\
        --iterations 2000                                 # a full-size Octrix round
    octagames train-cfr --game achten-dealer-pays --config ranks=3 low_rank=7 turn_cap=2 \\
        --deal-pool 32 --cfr-variants cfr linear dcfr     # 2p Achten, 32 deals
    ... --deal-pool 32 --deal-pool-per-view 8 ...         # 4 chooser views x 8 deals

Exact CFR flattens the game once (:func:`octagames.agents.cfr.tree.flatten`) and reports the
NashConv of the average policy along the way; ``cfr_variants`` adds the curves of
other exact CFR variants on the same tree. The NashConv of uniform random play and,
for trees up to ``heuristic_max_nodes``, of the game's heuristic agent
(:func:`octagames.agents.cfr.exploitability.agent_policy`: its choice at every information set) are
reported beside them. MCCFR runs on the engine kernels; its NashConv is reported
when the config is small enough to flatten (``eval_tree``, up to ``eval_tree_max_nodes`` nodes; a larger
config is said to be skipped, ``eval_tree_skipped``). A simultaneous pyspiel game is trained turn-based
(``pyspiel.convert_to_turn_based``). For any size, the
trained agent then plays ``eval_games`` arena games
(:func:`octagames.agents.arena.play_match`, seats rotating) against each of
``eval_opponents`` (random and the game's heuristic by default).

**Deal pools.** Even the smallest 2-player Achten deck (12 cards) deals 10 cards
one by one, far too many deals to flatten. With ``deal_pool=K`` the game is
reduced to K distinct deals drawn with ``seed`` (:func:`octagames.agents.cfr.tree.deal_pool`),
the root being one chance node uniform over them; information sets are still the
players' observations, so they merge across deals wherever a player's view is
the same (a game of imperfect information). A small random pool rarely holds two
deals a player cannot tell apart, so ``deal_pool_per_view=m`` draws each deal with
``m - 1`` determinizations for its first decider (deals it cannot tell apart at its
first decision). The arena evaluation is skipped then (arena games deal from the
full game, off the pool).

Outputs under ``run_dir``: ``train_cfr.json`` (config, curve, final figures), a PNG
curve and the checkpoint (``checkpoint.npz``, see ``CFRSolver.save``/``MCCFRSolver.save``): it records the
solver, the game and its full config, and plays as ``cfr:<run_dir>/checkpoint.npz`` in that config only.
The default folder is named like the other trainers' (:func:`octagames.experiments.trainer.default_run_dir`):
``runs/<algorithm>/<variant>-<players>p-<config digest>-s<seed>`` (``runs/cfr/spiel-<name>-s<seed>``
for a pyspiel game); a folder that holds a run is replaced only with ``--overwrite``.

**MCCFR runs resume.** An MCCFR run writes its checkpoint and ``train_cfr.json`` (the curve so far, marked
``"partial": true``) every ``checkpoint_every_s`` seconds of training and when Ctrl-C or SIGTERM stops it
(after the iterations under way, a step of about a second of them; Ctrl-C again stops at once); ``--resume``
goes on from there to ``--iterations`` (which a resume may raise), drawing exactly as a run never stopped (the
checkpoint keeps the generator's state), so its tables are those of an uninterrupted run. A resume keeps the
run's other settings but the evaluation ones. ``--overwrite`` replaces the run there at the new run's first
checkpoint (at the latest when its iterations end, before the arena games).
Exact CFR runs (small trees, minutes) are not resumed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.agents.arena import play_match, progress_bar
from octagames.agents.cfr.solver import VARIANTS, CFRConfig, CFRSolver, expected_values
from octagames.agents.cfr.agent import CFRAgent
from octagames.agents.cfr.tree import (MAX_NODES, MEMORY_SHARE, FlatTree, GameSource, SpielSource, TreeTooLarge,
                                       available_memory, deal_pool, flatten)
from octagames.agents.cfr.exploitability import agent_policy, nash_conv
from octagames.agents.cfr.mccfr import MCCFRSolver
from octagames.agents.registry import make_agent
from octagames.agents.cfr.tabular import TablePolicy
from octagames import catalogue
from octagames.core import Game
from octagames.experiments.cli import GameArgs, option, parse_config, script, usable_agents
from octagames.experiments.trainer import (TRAINER_OUTPUTS, StopRequest, announce, claim_run_dir, default_run_dir,
                                           exit_if_stopped, lock_run_dir, remove_run)


#: the files a run of train_cfr writes (a folder with any of them holds a run)
OUTPUTS = TRAINER_OUTPUTS["train_cfr"]
#: the settings a resume may change (the budget, the evaluation and the reporting); the others are the run's
RESUMABLE = ("iterations", "eval_points", "eval_games", "eval_opponents", "run_dir", "resume", "overwrite",
             "quick", "progress", "checkpoint_every_s", "eval_tree_max_nodes")


@dataclass(frozen=True)
class TrainCFRConfig(GameArgs):
    """Settings of one CFR training run."""

    game: str = "octrix-round-small"
    """a variant of our games (octagames list), or a pyspiel game as ``spiel:<name>`` (e.g. spiel:kuhn_poker)"""
    config: tuple[str, ...] = ()
    """config fields of our game over the variant's, as key=value (ignored for pyspiel games)"""
    algorithm: str = "cfr"
    """``cfr`` (exact, vectorised over the flattened tree) or ``mccfr`` (sampled, on the engine)"""
    cfr_variant: str = "cfr+"
    """exact CFR variant: cfr, cfr+, linear or dcfr"""
    cfr_variants: tuple[str, ...] = ()
    """exact CFR: further CFR variants run on the same tree for comparison curves (e.g. cfr linear dcfr)"""
    alternating: bool = True
    """alternating (True) or simultaneous (False) updates"""
    alpha: float = 1.5
    """DCFR positive-regret discount exponent"""
    beta: float = 0.0
    """DCFR negative-regret discount exponent"""
    gamma: float = 2.0
    """DCFR average-policy weight exponent"""
    sampling: str = "external"
    """MCCFR sampling scheme: external (every action of the updating seat is explored: an iteration of a full
    game can take seconds to minutes) or outcome (one sampled path per iteration: for full games)"""
    iterations: int = 1000
    """training iterations"""
    eval_points: int = 10
    """evaluations along the run (log spaced, >= 1; the last at the final iteration)"""
    eval_tree: bool = True
    """MCCFR: flatten the config to report exact NashConv (only for small configs)"""
    eval_tree_max_nodes: int = 200_000
    """MCCFR: the largest tree eval_tree flattens; a larger config trains without the exact NashConv (said in the
    result as eval_tree_skipped; a full-size game's deals would fill the memory)"""
    deal_pool: int = 0
    """our games, exact CFR: K > 0 deals only K distinct deals drawn with ``seed`` (0: the full deal)"""
    deal_pool_per_view: int = 1
    """deal pool: deals per view of the first decider (> 1: deals it cannot tell apart, see deal_pool)"""
    heuristic_max_nodes: int = 1_000_000
    """report the NashConv of the game's heuristic agent on trees up to this many nodes (0: never)"""
    eval_games: int = 100
    """arena games against each opponent at the end (our games only; 0 to skip)"""
    eval_opponents: tuple[str, ...] = ("random", "heuristic")
    """opponents for the arena evaluation (names for ``octagames.agents.registry.make_agent``)"""
    seed: int = 0
    """seed of MCCFR, of the deal pool and of the evaluation games"""
    run_dir: str = ""
    """output folder (default runs/<algorithm>/<variant>-<players>p-<config digest>-s<seed>)"""
    overwrite: bool = False
    """replace the run in run_dir (its files are removed when this run writes its own: MCCFR's first checkpoint,
    exact CFR's results)"""
    resume: bool = False
    """MCCFR: continue the run in run_dir from its checkpoint to --iterations (the settings but the budget and
    the evaluation's must be the run's)"""
    checkpoint_every_s: float = 300.0
    """MCCFR: write the checkpoint and train_cfr.json (the curve so far) at least this often, in seconds of
    training (0: at the end and at a stop only)"""
    quick: bool = False
    """tiny budget for tests (iterations <= 20, eval_games <= 4)"""
    progress: bool = True
    """show a progress bar of the iterations (--no-progress: none)"""

    def __post_init__(self) -> None:
        if not self.game.startswith("spiel:"):  # pyspiel checks its own games when it loads them
            super().__post_init__()

    def resolved_run_dir(self) -> Path:
        """``run_dir``, or the default folder of this algorithm, game and seed."""
        if self.run_dir:
            return Path(self.run_dir)
        if self.game.startswith("spiel:"):
            return Path("runs") / self.algorithm / f"spiel-{self.game[len('spiel:'):]}-s{self.seed}"
        return default_run_dir(self.algorithm, *self.resolve(), self.seed)


def pool_merging(tree: FlatTree) -> dict[str, list[int]]:
    """How much a deal-pool tree's information sets merge deals (the pool's imperfect information).

    The root of ``tree`` must be the pool's chance node (``GameSource(game, roots=...)``).

    Returns:
        Per player: ``first_decision_infosets`` (information sets of the player's first
        decision; fewer than the number of deals where deals look alike) and
        ``infosets_over_several_deals`` (information sets whose states lie in two or
        more deals: there the player cannot tell those deals apart).
    """
    N = tree.num_nodes
    parent = np.repeat(np.arange(N), tree.num_children)  # parent of nodes 1 .. N-1 (BFS order)
    deal = np.full(N, -1, dtype=np.int64)
    k = int(tree.num_children[0])
    deal[1 : 1 + k] = np.arange(k)
    for d in range(2, len(tree.depth_offsets) - 1):
        lo, hi = tree.depth_offsets[d], tree.depth_offsets[d + 1]
        deal[lo:hi] = deal[parent[lo - 1 : hi - 1]]
    dec = np.flatnonzero(tree.infoset >= 0)
    pairs = np.unique(np.stack([tree.infoset[dec].astype(np.int64), deal[dec]]), axis=1)
    span = np.bincount(pairs[0], minlength=tree.num_infosets)
    first = tree.infoset_own_depth == 0
    players = range(tree.num_players)
    return {
        "first_decision_infosets": [int(np.sum(first & (tree.infoset_player == p))) for p in players],
        "infosets_over_several_deals": [
            int(np.sum((span > 1) & (tree.infoset_player == p))) for p in players
        ],
    }


def _checkpoints(total: int, points: int) -> list[int]:
    """Up to ``points`` (>= 1) log-spaced iterations of a run of ``total``; the last is always ``total``."""
    total = max(total, 1)
    spaced: list[int] = np.geomspace(1, total, points).round().astype(int).tolist() if points > 1 else []
    return sorted(set(spaced) | {total})


def evaluate(
    game: Game, agent: CFRAgent, opponents: tuple[str, ...], games: int, seed: int
) -> dict[str, Any]:
    """Arena matches (:func:`octagames.agents.arena.play_match`, seats rotating) of ``agent`` against each opponent.

    Every other seat is played by a fresh ``make_agent(opponent, game)``.

    Returns:
        ``{opponent: {"win_rate", "ci95": [lo, hi], "mean_return", "games", "decisions", "in_table"}}`` for
        ``agent``, ``in_table`` the share of its decisions its table held a policy for (the rest: uniform play).
    """
    out = {}
    for name in opponents:
        try:
            others = [make_agent(name, game) for _ in range(game.num_players - 1)]
        except (ValueError, ImportError) as e:  # no heuristic for this game, or a missing extra
            out[name] = {"skipped": str(e)}
            continue
        agent.decisions = agent.in_table = 0
        rec = play_match(game, [agent, *others], games, seed=seed, progress=False).to_json()["agents"][0]
        out[name] = {
            k: rec[k] for k in ("games", "wins", "draws", "losses", "win_rate", "ci95", "mean_return")
        }
        # the share of the agent's decisions its table held a policy for (the rest: uniform play)
        out[name].update(decisions=agent.decisions, in_table=agent.in_table / max(agent.decisions, 1))
    return out


def _check(cfg: TrainCFRConfig) -> None:
    """Refuse bad settings with a ValueError naming the field and its valid values."""
    if cfg.algorithm not in ("cfr", "mccfr"):
        raise ValueError(f"algorithm={cfg.algorithm!r} is not valid; valid values: ['cfr', 'mccfr']")
    for v in (cfg.cfr_variant, *cfg.cfr_variants):
        if v not in VARIANTS:
            raise ValueError(f"cfr_variant {v!r} (cfr_variant/cfr_variants) is not valid; "
                             f"valid values: {list(VARIANTS)}")
    if cfg.iterations < 1:
        raise ValueError(f"iterations={cfg.iterations} is not valid; it must be >= 1")
    for v in (cfg.cfr_variant, *cfg.cfr_variants):  # DCFR's alpha, beta and gamma, before the folder is claimed
        CFRConfig(v, cfg.alternating, cfg.alpha, cfg.beta, cfg.gamma)
    if not (cfg.checkpoint_every_s >= 0):  # NaN too
        raise ValueError(f"checkpoint_every_s={cfg.checkpoint_every_s} is not valid; it must be >= 0 (0: at the end "
                         "and at a stop only)")
    if cfg.resume and cfg.overwrite:
        raise ValueError("--resume continues the run in the folder and --overwrite replaces it: give one")
    if not cfg.game.startswith("spiel:"):  # a misspelled opponent is refused before training, not skipped after it
        usable_agents(cfg.eval_opponents, cfg.make_game(), "eval_opponents")
    if cfg.resume and cfg.algorithm != "mccfr":
        raise ValueError(_no_exact_resume(cfg))
    if cfg.eval_tree_max_nodes < 1:
        raise ValueError(f"eval_tree_max_nodes={cfg.eval_tree_max_nodes} is not valid; it must be >= 1 (--no-eval-tree "
                         "trains without the tree)")
    for name in ("eval_games", "seed"):
        if getattr(cfg, name) < 0:
            raise ValueError(f"{name}={getattr(cfg, name)} is not valid; it must be >= 0")
    if cfg.seed >= 2**32:  # the evaluation's games take seed + k
        raise ValueError(f"seed={cfg.seed} is not valid; it must be < 2**32")
    if cfg.sampling not in ("external", "outcome"):  # MCCFR's; refused for exact CFR too, which would not read it
        raise ValueError(f"sampling={cfg.sampling!r} is not valid; valid values: ['external', 'outcome']")
    if not 1 <= cfg.eval_points <= MAX_EVAL_POINTS:  # (10**12 asked numpy for terabytes after the tree was built)
        raise ValueError(f"eval_points={cfg.eval_points} is not valid; it must be in 1..{MAX_EVAL_POINTS} (evaluations "
                         "along the run, the last at the final iteration)")
    if cfg.game.startswith("spiel:") and cfg.players is not None:  # (it was ignored: a 3-player run trained 2)
        raise ValueError(f"players={cfg.players} is not taken for a pyspiel game; give its parameters in its name, "
                         f"e.g. game='{cfg.game.split('(')[0]}(players={cfg.players})'")
    if cfg.deal_pool < 0:
        raise ValueError(f"deal_pool={cfg.deal_pool} is not valid; it must be 0 (full deal) or a count >= 1")
    if cfg.deal_pool_per_view < 1:
        raise ValueError(f"deal_pool_per_view={cfg.deal_pool_per_view} is not valid; it must be >= 1")
    if cfg.deal_pool and (cfg.algorithm != "cfr" or cfg.game.startswith("spiel:")):
        raise ValueError(
            f"deal_pool={cfg.deal_pool} is not valid with algorithm={cfg.algorithm!r} and game={cfg.game!r}: "
            "deal pools are for exact CFR (algorithm='cfr') on our games; use deal_pool=0"
        )
    if cfg.game.startswith("spiel:") and cfg.algorithm != "cfr":
        raise ValueError("algorithm='mccfr' runs on our games only (it uses the engine kernels)")
    if cfg.game.startswith("spiel:"):  # here: pyspiel's own refusal prints every name it has and is no ValueError
        import pyspiel

        name = cfg.game[len("spiel:"):].split("(")[0]
        if name not in pyspiel.registered_names():
            raise ValueError(f"game={cfg.game!r} is not valid: pyspiel has no game {name!r}; valid values: "
                             "spiel:<name> with a name of pyspiel.registered_names(), e.g. spiel:kuhn_poker")


#: the most evaluations along a run (``eval_points``)
MAX_EVAL_POINTS = 10_000

#: with checkpoints or a stop to heed, the iterations of one step take about this long (at most 1000 of them)
STEP_SECONDS = 1.0


def _saving_step(per_iteration: float) -> int:
    """Iterations of the next step of a run that checkpoints: about :data:`STEP_SECONDS` of them at the last step's
    speed (one to measure it first, at most 1000), so a stop or a checkpoint waits one iteration at most beyond
    that (an external-sampling iteration of a full-size game takes seconds)."""
    if per_iteration <= 0:
        return 1
    return max(1, min(1000, int(STEP_SECONDS / per_iteration)))


def _curve(
    solver: Any, policy_on_tree: Any, tree: FlatTree | None, iterations: int, points: int, desc: str,
    progress: bool = True, start: tuple[list[dict[str, Any]], float, int] = ([], 0.0, 0),
    save: Any = None, every_s: float = 0.0, stop: StopRequest | None = None,
) -> tuple[list[dict[str, Any]], float, int]:
    """Iterate ``solver`` to ``iterations``, evaluating at log-spaced points.

    The bar counts iterations, moved every 1/50 of the way between two evaluations at least (an MCCFR
    iteration with external sampling on a full game may take seconds).

    Args:
        start: ``(curve, seconds, iterations)`` of the run so far (a resume); points at or before its
            iterations are not evaluated again.
        save: ``save(curve, seconds, iterations)``, called every ``every_s`` seconds of iterating (> 0)
            and when ``stop`` notes a signal (then the curve stops there); with one, a step is about
            :data:`STEP_SECONDS` of iterations (:func:`_saving_step`).

    Returns:
        ``(curve, seconds spent iterating, iterations done)``.
    """
    curve, spent, done = list(start[0]), start[1], start[2]
    saved = spent
    per_iteration = 0.0  # seconds an iteration took in the last step (0: none measured yet)
    bar = progress_bar(iterations, f"{desc}: iterations", progress)
    if bar is not None and done:
        bar.update(done)
    for it in _checkpoints(iterations, points):
        if it < done or (curve and curve[-1]["iteration"] >= it):
            continue  # evaluated before the resume, or passed (a resume with other points)
        while done < it:
            step = min(it - done, max(1, (it - done) // 50), it if save is None else _saving_step(per_iteration))
            t = time.perf_counter()
            solver.iterate(step)
            took = time.perf_counter() - t
            spent += took
            per_iteration = took / step
            done += step
            if bar is not None:
                bar.update(step)
            if save is not None and ((stop is not None and stop.signal) or (every_s > 0 and spent - saved >= every_s)):
                save(curve, spent, done)
                saved = spent
                if stop is not None and stop.signal and done < iterations:  # at the end: its last evaluation
                    if bar is not None:
                        bar.close()
                    return curve, spent, done
        point: dict[str, Any] = {"iteration": it, "seconds": spent}
        if tree is not None and policy_on_tree is not None:
            point["nash_conv"] = nash_conv(tree, policy_on_tree())
        if isinstance(solver, MCCFRSolver):
            point["infosets_seen"] = len(solver.masks)
        curve.append(point)
    if bar is not None:
        bar.close()
    return curve, spent, done


def main(cfg: TrainCFRConfig) -> dict:
    """Train, evaluate, write JSON, PNG and checkpoint; returns the results.

    Raises:
        ValueError: a bad setting (see :class:`TrainCFRConfig`).
    """
    _check(cfg)
    iterations = min(cfg.iterations, 20) if cfg.quick else cfg.iterations
    eval_games = min(cfg.eval_games, 4) if cfg.quick else cfg.eval_games
    out_dir = cfg.resolved_run_dir()
    lock = lock_run_dir(out_dir, cfg.resume)  # before --overwrite removes anything; held while this run writes there
    try:
        return _train(cfg, out_dir, iterations, eval_games)
    finally:
        if lock is not None:
            lock.release()


def _train(cfg: TrainCFRConfig, out_dir: Path, iterations: int, eval_games: int) -> dict:
    """:func:`main`'s run in ``out_dir``, whose lock the caller holds."""
    # --overwrite's removal waits for the results: a setting refused on the way keeps the run there
    start = claim_run_dir(out_dir, cfg.resume, cfg.overwrite, OUTPUTS, can_resume=cfg.algorithm == "mccfr",
                          remove=False, checkpoint="checkpoint.npz")
    saved = _saved_run(cfg, out_dir) if cfg.resume else None  # the run to go on with, checked before any work
    if saved is not None and saved.get("iterations_done", 0) > iterations:  # before the eval tree's walk
        raise ValueError(f"iterations={iterations} is not valid: the run in {out_dir} has done "
                         f"{saved['iterations_done']} already; give at least that many")
    game: Game | None = None
    roots = None
    result: dict[str, Any] = {"config": dataclasses.asdict(cfg), "curve": []}
    if cfg.game.startswith("spiel:"):
        announce("octagames.experiments.train_cfr", cfg, out_dir, f"pyspiel's {cfg.game[len('spiel:'):]}, seed "
                 f"{cfg.seed}", start)
        import pyspiel

        spiel_game = pyspiel.load_game(cfg.game[len("spiel:") :])
        if spiel_game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:  # CFR walks one mover a node
            spiel_game = pyspiel.convert_to_turn_based(spiel_game)
            result["turn_based"] = "simultaneous moves played one seat after the other, each unseen by the next"
            print(f"  {cfg.game}: {result['turn_based']} (pyspiel.convert_to_turn_based)", flush=True)
        source: Any = SpielSource(spiel_game)
    else:
        name, fields = cfg.resolve()
        result["game"] = {"name": name, "variant": catalogue.describe(name, fields), "config": fields,
                          "digest": catalogue.config_digest(name, fields)}
        announce("octagames.experiments.train_cfr", cfg, out_dir, f"{result['game']['variant']}, config "
                 f"{result['game']['digest']}, seed {cfg.seed}", start)
        game = cfg.make_game()
        if cfg.deal_pool:
            roots = deal_pool(game, cfg.deal_pool, cfg.seed, per_view=cfg.deal_pool_per_view)
            result["deal_pool"] = {"k": cfg.deal_pool, "seed": cfg.seed, "per_view": cfg.deal_pool_per_view}
        source = GameSource(game, roots=roots)
    tree: FlatTree | None = None
    t0 = time.perf_counter()
    if cfg.algorithm == "mccfr" and cfg.eval_tree:
        try:
            tree = flatten(source, max_nodes=cfg.eval_tree_max_nodes)
        except TreeTooLarge as e:
            result["eval_tree_skipped"] = f"{e} (eval_tree_max_nodes): no exact NashConv"
            print(f"  eval tree skipped after {time.perf_counter() - t0:.1f} s: {result['eval_tree_skipped']}",
                  flush=True)
    elif cfg.algorithm == "cfr":  # the whole tree in memory: a full-size game fills gigabytes before its refusal
        available = available_memory()
        memory = "" if available is None else f" or {MEMORY_SHARE * available / 2**30:.1f} GiB of memory"
        print(f"  exact CFR: flattening the whole game tree first (refused past {MAX_NODES:,} nodes{memory}, minutes "
              "in: a full-size game is; train it with --algorithm mccfr)", flush=True)
        tree = flatten(source, progress=cfg.progress)
    if tree is not None:
        result.update(
            nodes=tree.num_nodes,
            infosets=tree.num_infosets,
            flatten_s=time.perf_counter() - t0,
            uniform_nash_conv=nash_conv(tree, tree.uniform_policy()),
        )
        if roots is not None:
            result["deal_pool"].update(pool_merging(tree))
        if game is not None and 0 < tree.num_nodes <= cfg.heuristic_max_nodes:
            try:
                heuristic = make_agent("heuristic", game)
            except ValueError as e:  # no heuristic for this game
                result["heuristic_nash_conv_skipped"] = str(e)
            else:
                t0 = time.perf_counter()
                pol = agent_policy(game, tree, heuristic, seed=cfg.seed, roots=roots)
                result["heuristic_nash_conv"] = nash_conv(tree, pol)
                result["heuristic_values"] = expected_values(tree, pol).tolist()
                result["heuristic_s"] = time.perf_counter() - t0
    if cfg.algorithm == "cfr":
        assert tree is not None
        solver: Any = CFRSolver(tree, CFRConfig(cfg.cfr_variant, cfg.alternating, cfg.alpha, cfg.beta, cfg.gamma))
        policy_on_tree = solver.average_policy
    else:
        assert game is not None
        if saved is None:
            solver = MCCFRSolver(game, cfg.sampling, seed=cfg.seed)
        else:
            solver = MCCFRSolver.load(out_dir / "checkpoint.npz", game, seed=cfg.seed)
            if solver.sampling != cfg.sampling or solver.seed != cfg.seed:
                raise ValueError(f"--resume: {out_dir / 'checkpoint.npz'} is a run of sampling {solver.sampling!r}, "
                                 f"seed {solver.seed}, not this run's ({cfg.sampling!r}, seed {cfg.seed}): a stop "
                                 "while --overwrite wrote its first checkpoint; start the run again with --overwrite")
            result["resumes"] = [*saved.get("resumes", []), solver.iteration]
            if not solver.rng_restored:
                result["resume_not_exact"] = ("the checkpoint kept no generator state (written before 2026-12-06): "
                                              "the iterations after it draw from a stream of their own")
                print(f"  {result['resume_not_exact']}", flush=True)
        policy_on_tree = (lambda: solver.table_policy().to_tree(tree)) if tree is not None else None
    label = cfg.cfr_variant if cfg.algorithm == "cfr" else cfg.sampling
    result["run_dir"] = str(out_dir)
    desc = f"{cfg.algorithm} {label} {cfg.game}"
    if isinstance(solver, MCCFRSolver):
        if saved is not None and solver.iteration > iterations:
            raise ValueError(f"iterations={iterations} is not valid: the run in {out_dir} has done {solver.iteration} "
                             f"already; give at least that many")
        kept = [p for p in saved["curve"] if p["iteration"] <= solver.iteration] if saved else []
        begun = (kept, float(saved.get("seconds_spent", kept[-1]["seconds"] if kept else 0.0)) if saved else 0.0,
                 solver.iteration)
        replacing = start == "replacing the run there"

        def save(curve: list[dict[str, Any]], spent: float, done: int) -> None:
            nonlocal replacing
            # both written aside, then the checkpoint renamed before the curve: a stop in between leaves a curve
            # behind the checkpoint (a resume keeps its points up to the checkpoint's iteration) or, under
            # --overwrite, the replaced run's curve, whose settings a resume compares (and the checkpoint's)
            json_tmp = _write_json(out_dir / "train_cfr.json", {**result, "curve": curve, "seconds_spent": spent,
                                                                "iterations_done": done, "partial": True},
                                   rename=False)
            _save_mccfr(solver, out_dir)
            os.replace(json_tmp, out_dir / "train_cfr.json")
            if replacing:  # the run --overwrite replaces is gone once this run's files are written over it
                (out_dir / "train_cfr.png").unlink(missing_ok=True)
                replacing = False

        stop = StopRequest("the iterations under way (about a second of them)")
        stop.install()
        try:
            result["curve"], spent, done = _curve(solver, policy_on_tree, tree, iterations, cfg.eval_points, desc,
                                                  cfg.progress, begun, save, cfg.checkpoint_every_s, stop)
        finally:
            stop.uninstall()
        if not stop.signal or done == iterations:  # saved before the arena games, which a stop would cut short
            save(result["curve"], spent, done)
        start = "new run"
        if stop.signal and done < iterations:  # a signal during the last evaluation lets the run end
            print(f"{stop.signal}: stopped at iteration {done} of {iterations}; --resume goes on from there",
                  flush=True)
            return {**result, "seconds_spent": spent, "iterations_done": done, "partial": True,
                    "stopped_by": stop.signal}
    else:
        result["curve"], spent, done = _curve(solver, policy_on_tree, tree, iterations, cfg.eval_points, desc,
                                              cfg.progress)
    result["seconds_per_iteration"] = spent / max(done, 1)
    result["seconds_spent"], result["iterations_done"] = spent, done  # what a resume goes on counting from
    if result["curve"] and "nash_conv" in result["curve"][-1]:
        result["final_nash_conv"] = result["curve"][-1]["nash_conv"]
    if isinstance(solver, CFRSolver):
        result["average_policy_values"] = solver.root_values().tolist()
        others = [v for v in dict.fromkeys(cfg.cfr_variants) if v != cfg.cfr_variant]
        if others:
            result["cfr_variants"] = {}
        for v in others:
            other = CFRSolver(tree, CFRConfig(v, cfg.alternating, cfg.alpha, cfg.beta, cfg.gamma))
            curve, s_spent, s_done = _curve(
                other, other.average_policy, tree, iterations, cfg.eval_points, f"cfr {v} {cfg.game}", cfg.progress)
            result["cfr_variants"][v] = {
                "curve": curve,
                "final_nash_conv": curve[-1]["nash_conv"],
                "seconds_per_iteration": s_spent / max(s_done, 1),
                "average_policy_values": other.root_values().tolist(),
            }
    if start == "replacing the run there":
        remove_run(out_dir, OUTPUTS)
    out_dir.mkdir(parents=True, exist_ok=True)
    if isinstance(solver, CFRSolver):  # the game (a pyspiel game by its name) and pool the tree was flattened from
        pool = {k: result["deal_pool"][k] for k in ("k", "seed", "per_view")} if roots is not None else None
        solver.save(out_dir / "checkpoint.npz", game if game is not None else cfg.game, pool)
    else:
        _save_mccfr(solver, out_dir)
    if roots is not None:
        result["arena_skipped"] = "deal_pool: arena games deal from the full game, off the pool"
    elif game is not None and eval_games > 0:
        table = (
            solver.table_policy()
            if isinstance(solver, MCCFRSolver)
            else TablePolicy.from_tree(tree, solver.average_policy())
        )
        result["arena"] = evaluate(game, CFRAgent(table), cfg.eval_opponents, eval_games, cfg.seed)
    _write_json(out_dir / "train_cfr.json", result)
    _plot(result, out_dir / "train_cfr.png")
    _report(result)
    return result


def _save_mccfr(solver: MCCFRSolver, out_dir: Path) -> None:
    """Write ``checkpoint.npz`` whole or not at all (a stop while it is written keeps the one before)."""
    tmp = out_dir / "checkpoint.npz.tmp"
    with open(tmp, "wb") as f:  # a file: numpy would append .npz to the name
        solver.save(f)
    os.replace(tmp, out_dir / "checkpoint.npz")


def _write_json(path: Path, data: dict[str, Any], rename: bool = True) -> Path:
    """Write ``data`` as JSON whole or not at all: into ``<path>.tmp``, renamed to ``path`` (``rename=False``:
    the caller renames it). Returns the file written."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    if not rename:
        return tmp
    os.replace(tmp, path)
    return path


def _saved_run(cfg: TrainCFRConfig, out_dir: Path) -> dict[str, Any]:
    """The ``train_cfr.json`` of the MCCFR run that ``--resume`` goes on with, its settings checked.

    Raises:
        ValueError: no such file or not one of an MCCFR run, or a setting outside :data:`RESUMABLE` changed
            (each named, the run's and the asked value).
    """
    path = out_dir / "train_cfr.json"
    try:
        saved = json.loads(path.read_text())
        theirs, _ = dict(saved["config"]), list(saved["curve"])
        done = saved.get("iterations_done", 0)
        if isinstance(done, bool) or not isinstance(done, int) or done < 0:
            raise ValueError("iterations_done")
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"--resume: {path} is missing or not a train_cfr result; start the run again with "
                         "--overwrite") from None
    asked = dataclasses.asdict(cfg)
    defaults = dataclasses.asdict(TrainCFRConfig())
    changes = [f"{k} {theirs.get(k, defaults[k])!r} in the run, {v!r} asked" for k, v in asked.items()
               if k not in RESUMABLE and _plain(theirs.get(k, defaults[k])) != _plain(v)]
    if changes:
        raise ValueError(f"{out_dir} is a run with other settings: {'; '.join(changes)}. A resume may change only "
                         f"{', '.join(RESUMABLE[:4])} and the reporting; start another run with another --run-dir "
                         "(or replace this one with --overwrite)")
    return saved


def _no_exact_resume(cfg: TrainCFRConfig) -> str:
    """Why ``--resume`` without ``--algorithm mccfr`` is refused: with the options that resume the MCCFR run in the
    folder, where it holds one (``--overwrite``, which the refusal once advised, would replace that run)."""
    out_dir = cfg.resolved_run_dir()
    try:
        theirs = dict(json.loads((out_dir / "train_cfr.json").read_text())["config"])
    except (OSError, ValueError, KeyError, TypeError):
        theirs = {}
    if theirs.get("algorithm") != "mccfr":
        return ("resume=True is not valid with algorithm='cfr': exact CFR runs are not resumed (small trees, "
                "minutes); run it again, with --overwrite")
    asked, defaults = dataclasses.asdict(cfg), dataclasses.asdict(TrainCFRConfig())
    flags = [option(k, theirs.get(k, defaults[k])) for k, v in asked.items()
             if k not in RESUMABLE and _plain(theirs.get(k, defaults[k])) != _plain(v)]
    return (f"resume=True is not valid with algorithm={cfg.algorithm!r}: {out_dir} holds an MCCFR run; resume it "
            f"with its settings: {' '.join(flags)} --resume (a setting left out takes its default; exact CFR runs "
            "are not resumed, and --overwrite would replace that run)")


def _plain(v: Any) -> Any:
    """A setting as JSON gives it back (tuples as lists)."""
    return [_plain(x) for x in v] if isinstance(v, (list, tuple)) else v


def _cfr_variant(cfg: dict) -> str:
    """The exact CFR variant a saved config names (``variant`` in runs before it was ``cfr_variant``)."""
    return cfg.get("cfr_variant", cfg.get("variant", "cfr+"))


def _other_curves(result: dict) -> dict:
    """The comparison runs of a saved result (``variants`` in runs before it was ``cfr_variants``)."""
    return result.get("cfr_variants", result.get("variants", {}))


def _plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.6))
    c = result["curve"]
    cfg = result["config"]
    if c and "nash_conv" in c[0]:
        curves = {(_cfr_variant(cfg) if cfg["algorithm"] == "cfr" else "average policy"): c}
        curves.update({v: r["curve"] for v, r in _other_curves(result).items()})
        for label, cv in curves.items():
            ax.loglog(
                [p["iteration"] for p in cv], [max(p["nash_conv"], 1e-12) for p in cv], "o-", label=label
            )
        if "uniform_nash_conv" in result:
            ax.axhline(result["uniform_nash_conv"], color="grey", ls="--", label="uniform random")
        if "heuristic_nash_conv" in result:
            ax.axhline(result["heuristic_nash_conv"], color="black", ls=":", label="heuristic agent")
        ax.set_ylabel("NashConv")
    else:
        ax.semilogx([p["iteration"] for p in c], [p.get("infosets_seen", 0) for p in c], "o-")
        ax.set_ylabel("information sets seen")
    per_view = f", {cfg['deal_pool_per_view']} per view" if cfg.get("deal_pool_per_view", 1) > 1 else ""
    pool = f", pool of {cfg['deal_pool']} deals{per_view}" if cfg.get("deal_pool") else ""
    ax.set(
        xlabel="iteration",
        title=f"{cfg['algorithm']} ({_cfr_variant(cfg) if cfg['algorithm'] == 'cfr' else cfg['sampling']}) "
        f"on {cfg['game']}{pool}",
    )
    if "game" in result:
        ax.set_title(ax.get_title() + f"\n{result['game']['variant']}", fontsize=8)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _report(result: dict) -> None:
    cfg = result["config"]
    where = f" ({result['game']['variant']})" if "game" in result else ""
    print(f"{cfg['algorithm']} on {cfg['game']}{where}")
    if "deal_pool" in result:
        dp = result["deal_pool"]
        print(
            f"  deal pool: {dp['k']} deals (seed {dp['seed']}, {dp['per_view']} per first view); per player: "
            f"information sets of the first "
            f"decision {dp.get('first_decision_infosets')}, information sets over several deals "
            f"{dp.get('infosets_over_several_deals')}"
        )
    if "nodes" in result:
        print(
            f"  tree: {result['nodes']} nodes, {result['infosets']} information sets, flattened in "
            f"{result['flatten_s']:.2f} s; uniform random NashConv {result['uniform_nash_conv']:.4f}"
        )
    if "heuristic_nash_conv" in result:
        print(
            f"  heuristic agent NashConv {result['heuristic_nash_conv']:.4f} "
            f"(values {[round(v, 4) for v in result['heuristic_values']]})"
        )
    label = _cfr_variant(cfg) if cfg["algorithm"] == "cfr" else cfg["sampling"]
    for name, curve, spi in [(label, result["curve"], result["seconds_per_iteration"])] + [
        (v, r["curve"], r["seconds_per_iteration"]) for v, r in _other_curves(result).items()
    ]:
        print(f"  {name}:")
        for p in curve:
            extra = f" NashConv {p['nash_conv']:.3e}" if "nash_conv" in p else ""
            seen = f" infosets {p['infosets_seen']}" if "infosets_seen" in p else ""
            print(f"  iteration {p['iteration']:>7}: {p['seconds']:8.2f} s{extra}{seen}")
        print(f"  {1e3 * spi:.3f} ms per iteration")
    if "arena_skipped" in result:
        print(f"  arena: skipped ({result['arena_skipped']})")
    for name, rec in result.get("arena", {}).items():
        if "skipped" in rec:
            print(f"  vs {name}: skipped ({rec['skipped']})")
            continue
        lo, hi = rec["ci95"]
        print(
            f"  vs {name} ({rec['games']} games): win rate {rec['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], "
            f"draws {rec['draws']}, mean return {rec['mean_return']:.3f}"
            + (f"; its table held {rec['in_table']:.2f} of its {rec['decisions']} decisions (the rest played "
               "uniformly)" if "in_table" in rec else "")
        )


@script
def cli() -> None:
    """Command-line entry point (``octagames-train-cfr``, or ``python -m octagames.experiments.train_cfr``)."""
    exit_if_stopped(main(parse_config(TrainCFRConfig)))


if __name__ == "__main__":
    cli()
