"""The CFR scripts run end to end on a tiny budget and write JSON + PNG."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from octagames.agents.cfr.solver import CFRSolver
from octagames.agents.cfr.tree import GameSource, TreeTooLarge, deal_pool, flatten, flatten_spiel
from octagames.agents.cfr.mccfr import MCCFRSolver
from octagames.experiments.bench_cfr import BenchCFRConfig
from octagames.experiments.bench_cfr import main as bench_main
from octagames.experiments.cli import parse_game_config, parse_with_stdlib
from octagames.experiments.train_cfr import TrainCFRConfig
from octagames.experiments.train_cfr import main as train_main
from octagames import catalogue
from octagames.core import Game


def test_bench_cfr_quick(tmp_path):
    out = tmp_path / "bench_cfr.json"
    result = bench_main(
        BenchCFRConfig(
            quick=True,
            out=str(out),
            iterations=200,
            eval_points=3,
            octrix_configs=("1x2", "2x2"),
            heuristic_max_nodes=200,
        )
    )
    data = json.loads(out.read_text())
    assert out.with_suffix(".png").stat().st_size > 0
    kuhn, leduc = data["poker"]
    assert kuhn["game"] == "kuhn_poker" and set(kuhn["solvers"]) == {
        "ours",
        "openspiel_cpp",
        "openspiel_python",
    }
    # same CFR+ as the C++ solver: same NashConv (by OpenSpiel) after the same iterations
    assert kuhn["solvers"]["ours"]["final_nash_conv"] == pytest.approx(
        kuhn["solvers"]["openspiel_cpp"]["final_nash_conv"], abs=1e-9
    )
    assert leduc["infosets"] == 936 and leduc["speedup_vs_python"] > 1
    small = data["octrix"][0]
    assert "heuristic_nash_conv" in small and "heuristic_nash_conv" not in data["octrix"][1]
    assert (
        small["uniform_nash_conv"] > 1
        and small["variants"]["cfr+"]["final_nash_conv"] < small["uniform_nash_conv"]
    )
    assert data["octrix_openspiel_check"]["abs_diff"] < 1e-6
    assert all(row["gap"] < 0.5 for row in data["octrix_deal_gaps"]["2x2"])
    assert result["config"]["quick"] is True


def test_train_cfr_exact_quick(tmp_path):
    result = train_main(TrainCFRConfig(quick=True, run_dir=str(tmp_path), eval_points=4))
    assert (tmp_path / "train_cfr.png").stat().st_size > 0
    data = json.loads((tmp_path / "train_cfr.json").read_text())
    assert data["curve"][-1]["iteration"] == 20
    assert data["final_nash_conv"] < data["uniform_nash_conv"]
    assert result["arena"]["random"]["games"] == 4 and result["arena"]["heuristic"]["games"] == 4
    assert 0 <= result["arena"]["heuristic"]["win_rate"] <= 1
    # the checkpoint reloads onto the same tree with the same policy
    tree = flatten(GameSource(Game("octrix-round", num_players=2, ranks=2, hand_size=2)))
    again = CFRSolver.load(tmp_path / "checkpoint.npz", tree)
    assert again.iteration == 20
    assert again.root_values() == pytest.approx(np.array(data["average_policy_values"]))


def test_train_cfr_spiel_and_mccfr_quick(tmp_path):
    train_main(TrainCFRConfig(game="spiel:kuhn_poker", quick=True, run_dir=str(tmp_path / "kuhn")))
    solver = CFRSolver.load(tmp_path / "kuhn" / "checkpoint.npz", flatten_spiel("kuhn_poker"))
    assert solver.iteration == 20
    train_main(
        TrainCFRConfig(
            algorithm="mccfr",
            sampling="outcome",
            game="octrix-round",
            eval_tree=False,
            quick=True,
            run_dir=str(tmp_path / "mc"),
        )
    )
    data = json.loads((tmp_path / "mc" / "train_cfr.json").read_text())
    assert "nash_conv" not in data["curve"][-1] and data["curve"][-1]["infosets_seen"] > 0
    assert (tmp_path / "mc" / "train_cfr.png").exists()
    mc = MCCFRSolver.load(tmp_path / "mc" / "checkpoint.npz", Game("octrix-round", num_players=2))
    assert mc.iteration == 20


def test_train_cfr_achten_deal_pool_quick(tmp_path):
    config = ("ranks=3", "low_rank=7", "turn_cap=1")
    result = train_main(
        TrainCFRConfig(
            game="achten-dealer-pays",
            config=config,
            deal_pool=8,
            deal_pool_per_view=2,
            cfr_variants=("cfr", "cfr+", "dcfr"),
            eval_points=3,
            quick=True,
            seed=2,
            run_dir=str(tmp_path),
        )
    )
    assert (tmp_path / "train_cfr.png").stat().st_size > 0
    data = json.loads((tmp_path / "train_cfr.json").read_text())
    pool = data["deal_pool"]
    assert pool["k"] == 8 and pool["seed"] == 2 and pool["per_view"] == 2
    # seat 1 chooses first: its first-choice information sets hold two deals each
    assert pool["first_decision_infosets"][1] == 4 and pool["infosets_over_several_deals"][1] >= 4
    # CFR+ (the main variant) and the two others, each with a curve to 20 iterations
    assert set(data["cfr_variants"]) == {"cfr", "dcfr"}
    for curve in [data["curve"]] + [v["curve"] for v in data["cfr_variants"].values()]:
        assert curve[-1]["iteration"] == 20 and curve[-1]["nash_conv"] < data["uniform_nash_conv"]
    assert 0 < data["heuristic_nash_conv"] < data["uniform_nash_conv"]
    assert "arena" not in result and "off the pool" in result["arena_skipped"]
    # the same pool again from the seed: the checkpoint reloads onto its tree
    game = Game("achten-dealer-pays", **parse_game_config(config, "achten"))
    tree = flatten(GameSource(game, roots=deal_pool(game, 8, seed=2, per_view=2)))
    assert tree.num_nodes == data["nodes"]
    again = CFRSolver.load(tmp_path / "checkpoint.npz", tree)
    assert again.root_values() == pytest.approx(np.array(data["average_policy_values"]))


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(deal_pool=4, algorithm="mccfr"), "deal_pool"),
        (dict(deal_pool=4, game="spiel:kuhn_poker"), "deal_pool"),
        (dict(deal_pool=-1), "deal_pool"),
        (dict(deal_pool=4, deal_pool_per_view=0), "deal_pool_per_view"),
        (dict(cfr_variants=("cfr++",)), "cfr_variant"),
        (dict(algorithm="sgd"), "algorithm"),
        (dict(seed=2**63 - 1), r"seed=9223372036854775807 is not valid; it must be < 2\*\*32"),  # trained, then failed
    ],
)
def test_train_cfr_refuses_bad_settings(tmp_path, kwargs, field):
    with pytest.raises(ValueError, match=field):
        train_main(TrainCFRConfig(quick=True, run_dir=str(tmp_path), **kwargs))


def test_train_cfr_names_its_folder_from_the_game_and_refuses_to_write_over_a_run(tmp_path, monkeypatch, capsys):
    digest = catalogue.config_digest("octrix", {"match": False, "ranks": 2, "hand_size": 2})
    assert TrainCFRConfig().resolved_run_dir() == Path(f"runs/cfr/octrix-round-small-2p-{digest}-s0")
    assert TrainCFRConfig(algorithm="mccfr", game="octa-nl", config=(), seed=3).resolved_run_dir().name.startswith(
        "octa-nl-2p-")
    assert TrainCFRConfig(game="spiel:kuhn_poker").resolved_run_dir() == Path("runs/cfr/spiel-kuhn_poker-s0")
    monkeypatch.chdir(tmp_path)
    cfg = TrainCFRConfig(quick=True, eval_points=2, eval_games=0, iterations=5)
    train_main(cfg)
    run = tmp_path / TrainCFRConfig().resolved_run_dir()
    assert capsys.readouterr().out.splitlines()[0] == (
        f"train_cfr: {TrainCFRConfig().resolved_run_dir()} (octrix-round-small-2p, config {digest}, "
        "seed 0): new run")
    assert json.loads((run / "train_cfr.json").read_text())["curve"][-1]["iteration"] == 5
    with pytest.raises(ValueError, match=r"holds a run already \(train_cfr.json, train_cfr.png, checkpoint.npz\): "
                                         r"pass --overwrite to replace it, or choose another folder "
                                         r"with --run-dir"):
        train_main(dataclasses.replace(cfg, iterations=3))
    # the flag the refusal names is the verb's own
    assert parse_with_stdlib(TrainCFRConfig, ["--run-dir", "elsewhere"]).resolved_run_dir() == Path("elsewhere")
    train_main(dataclasses.replace(cfg, iterations=3, overwrite=True))
    assert json.loads((run / "train_cfr.json").read_text())["curve"][-1]["iteration"] == 3


def test_train_cfr_evaluates_against_opponents_built_for_its_variant():
    from octagames.agents.cfr.agent import CFRAgent
    from octagames.experiments.train_cfr import evaluate
    game = Game("achten-dealer-pays")
    out = evaluate(game, CFRAgent.mccfr(game, iterations=2), ("cfr:2",), games=2, seed=0)
    assert out["cfr:2"]["games"] == 2  # the opponent trained on deal_penalty=1 too, so it plays


@pytest.mark.parametrize("kwargs, words", [
    (dict(octrix_configs=("1x2", "9x9")), "octrix_configs: '9x9' is not valid: ranks=9 is not valid"),
    (dict(octrix_configs=("2by2",)), "octrix_configs: '2by2' is not valid; give RANKSxHAND_SIZE, e.g. 2x3"),
    (dict(games=("kuhn_poker", "nope")), "games: 'nope' is not valid: pyspiel has no such game"),
    (dict(iterations=-5), "iterations=-5 is not valid; it must be >= 1"),
    (dict(eval_points=0), "eval_points=0 is not valid; it must be >= 1"),
    (dict(octrix_deals=-1), "octrix_deals=-1 is not valid; it must be >= 0"),
    (dict(seed=-1), "seed=-1 is not valid; it must be >= 0"),
])
def test_bench_cfr_refuses_bad_settings_before_any_part_runs(kwargs, words):
    """A bad Octrix config was refused after the poker part had run (minutes), a count out of range ran (or
    was cut short by --quick) without a word, an unknown pyspiel game printed pyspiel's 126 names."""
    with pytest.raises(ValueError, match=re.escape(words)):
        BenchCFRConfig(**kwargs)


def _mccfr(run: Path, **kw) -> TrainCFRConfig:
    """A small MCCFR run with its exact NashConv (octrix-round-small), no arena games."""
    base = dict(algorithm="mccfr", sampling="outcome", iterations=60, eval_points=4, eval_games=0,
                progress=False, run_dir=str(run), seed=4)
    return TrainCFRConfig(**{**base, **kw})


def _tables(path: Path) -> dict:
    solver = MCCFRSolver.load(path, Game("octrix-round-small"))
    return {k: (solver.regrets[k].tolist(), solver.strategy_sum[k].tolist()) for k in solver.masks}


def _at(iteration: int, then):
    """``MCCFRSolver.iterate`` that calls ``then()`` once the solver has done ``iteration`` iterations."""
    iterate = MCCFRSolver.iterate

    def patched(self, n=1):
        for _ in range(n):
            iterate(self, 1)
            if self.iteration == iteration:
                then()
    return patched


def test_a_stopped_or_killed_mccfr_run_resumes_to_the_tables_of_one_never_stopped(tmp_path, monkeypatch, capsys):
    """MCCFR runs wrote nothing until their end: a stop or a crash lost hours, and there was no --resume."""
    import os
    import signal

    full = train_main(_mccfr(tmp_path / "full"))
    points = [(p["iteration"], p["nash_conv"], p["infosets_seen"]) for p in full["curve"]]
    assert [p[0] for p in points] == [1, 4, 15, 60]
    # SIGTERM at iteration 20: a checkpoint there, the curve so far, and the words to go on
    run = tmp_path / "stopped"
    monkeypatch.setattr(MCCFRSolver, "iterate", _at(20, lambda: os.kill(os.getpid(), signal.SIGTERM)))
    stopped = train_main(_mccfr(run))
    assert stopped["stopped_by"] == "SIGTERM" and stopped["iterations_done"] == 20
    out, err = capsys.readouterr()
    assert "SIGTERM: stopped at iteration 20 of 60; --resume goes on from there" in out
    # the words of the PPO and AZ trainers' stop ("after the update (or the warm start's game ...") were said here
    assert "SIGTERM: stopping after the iterations under way (about a second of them), with a checkpoint" in err
    partial = json.loads((run / "train_cfr.json").read_text())
    assert partial["partial"] and [p["iteration"] for p in partial["curve"]] == [1, 4, 15]
    monkeypatch.undo()
    resumed = train_main(_mccfr(run, resume=True, eval_games=2))  # the evaluation may change
    assert [(p["iteration"], p["nash_conv"], p["infosets_seen"]) for p in resumed["curve"]] == points
    assert _tables(run / "checkpoint.npz") == _tables(tmp_path / "full" / "checkpoint.npz")
    assert resumed["resumes"] == [20] and "partial" not in json.loads((run / "train_cfr.json").read_text())
    # a crash: the checkpoints written along the way (every step here) are what a resume goes on from
    crashed = tmp_path / "crashed"

    def crash():
        raise RuntimeError("the machine went away")

    monkeypatch.setattr(MCCFRSolver, "iterate", _at(33, crash))
    with pytest.raises(RuntimeError, match="went away"):
        train_main(_mccfr(crashed, checkpoint_every_s=1e-9))
    monkeypatch.undo()
    assert MCCFRSolver.load(crashed / "checkpoint.npz", Game("octrix-round-small")).iteration < 33
    train_main(_mccfr(crashed, resume=True, iterations=100))  # and a resume may go further
    train_main(_mccfr(tmp_path / "longer", iterations=100))
    assert _tables(crashed / "checkpoint.npz") == _tables(tmp_path / "longer" / "checkpoint.npz")


def test_an_mccfr_resume_refuses_other_settings_and_what_it_cannot_resume(tmp_path):
    run = tmp_path / "run"
    train_main(_mccfr(run, iterations=30))
    with pytest.raises(ValueError, match=r"run is a run with other settings: sampling 'outcome' in the run, "
                                         r"'external' asked; seed 4 in the run, 5 asked\. A resume may change only"):
        train_main(_mccfr(run, resume=True, sampling="external", seed=5))
    with pytest.raises(ValueError, match=r"iterations=20 is not valid: the run in .* has done 30 already"):
        train_main(_mccfr(run, resume=True, iterations=20))
    with pytest.raises(ValueError, match="exact CFR runs are not resumed"):
        train_main(_mccfr(run, resume=True, algorithm="cfr"))
    with pytest.raises(ValueError, match="give one"):
        train_main(_mccfr(run, resume=True, overwrite=True))
    with pytest.raises(ValueError, match=r"checkpoint_every_s=-1\.0 is not valid; it must be >= 0"):
        train_main(_mccfr(run, checkpoint_every_s=-1.0))
    with pytest.raises(FileNotFoundError, match="--resume: no checkpoint at"):
        train_main(_mccfr(tmp_path / "none", resume=True))
    assert not (tmp_path / "none").exists()  # a refused resume makes no folder
    assert MCCFRSolver.load(run / "checkpoint.npz", Game("octrix-round-small")).seed == 4  # the run's, kept
    # a curve of other settings beside the checkpoint (a stop while --overwrite wrote its first one): refused
    other = json.loads((run / "train_cfr.json").read_text())
    other["config"].update(sampling="external", seed=7)
    (run / "train_cfr.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match=r"checkpoint.npz is a run of sampling 'outcome', seed 4, not this run's "
                                         r"\('external', seed 7\)"):
        train_main(_mccfr(run, resume=True, sampling="external", seed=7))
    (run / "train_cfr.json").write_text("{")
    with pytest.raises(ValueError, match="is missing or not a train_cfr result"):
        train_main(_mccfr(run, resume=True))


def test_mccfr_checkpoints_keep_what_a_stop_at_the_end_an_old_checkpoint_or_an_overwrite_would_lose(
        tmp_path, monkeypatch, capsys):
    import os
    import signal
    import zipfile

    full = train_main(_mccfr(tmp_path / "full"))
    # a signal with the last iteration done (or during the last evaluation): the run ends whole
    monkeypatch.setattr(MCCFRSolver, "iterate", _at(60, lambda: os.kill(os.getpid(), signal.SIGTERM)))
    end = train_main(_mccfr(tmp_path / "end"))
    monkeypatch.undo()
    assert "stopped_by" not in end and [p["iteration"] for p in end["curve"]] == [1, 4, 15, 60]
    assert "partial" not in json.loads((tmp_path / "end" / "train_cfr.json").read_text())
    # a finished run resumed further counts its seconds on from the run's
    more = train_main(_mccfr(tmp_path / "full", resume=True, iterations=80))
    assert more["curve"][-1]["iteration"] == 80 and more["curve"][-1]["seconds"] >= full["seconds_spent"] > 0
    assert more["seconds_spent"] == more["curve"][-1]["seconds"] and more["resumes"] == [60]
    # a checkpoint from before the generator's state was kept: resumed, and said not to be exact
    old = tmp_path / "old"
    train_main(_mccfr(old, iterations=30))
    with np.load(old / "checkpoint.npz") as z:
        kept = {k: z[k] for k in z.files if k not in ("rng_state", "seed")}
    np.savez_compressed(old / "checkpoint.npz", **kept)
    resumed = train_main(_mccfr(old, resume=True))
    assert "no generator state" in resumed["resume_not_exact"]
    assert "no generator state" in capsys.readouterr().out
    assert MCCFRSolver.load(old / "checkpoint.npz", Game("octrix-round-small")).rng_restored
    # --overwrite keeps the run there until the new one writes its first checkpoint
    before = (tmp_path / "full" / "checkpoint.npz").read_bytes()

    def gone():
        raise RuntimeError("gone")

    monkeypatch.setattr(MCCFRSolver, "iterate", _at(3, gone))
    with pytest.raises(RuntimeError, match="gone"):
        train_main(_mccfr(tmp_path / "full", overwrite=True, seed=7, checkpoint_every_s=0))
    monkeypatch.undo()
    assert (tmp_path / "full" / "checkpoint.npz").read_bytes() == before
    assert zipfile.is_zipfile(tmp_path / "full" / "checkpoint.npz")
    assert not list((tmp_path / "full").glob("*.tmp"))
    # Ctrl-C during the arena games: the iterations are saved before them, and a resume plays them
    import octagames.experiments.train_cfr as train_cfr

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_cfr, "evaluate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train_main(_mccfr(tmp_path / "full", overwrite=True, eval_games=2, seed=7))
    monkeypatch.undo()
    saved = json.loads((tmp_path / "full" / "train_cfr.json").read_text())
    assert saved["partial"] and saved["config"]["seed"] == 7 and saved["iterations_done"] == 60
    arena = train_main(_mccfr(tmp_path / "full", resume=True, eval_games=2, seed=7))
    assert arena["arena"]["random"]["games"] == 2 and arena["curve"] == saved["curve"]


def test_a_stop_is_heeded_within_about_a_second_of_iterations_however_fast_they_are(tmp_path, monkeypatch):
    """A run that checkpoints iterated in steps of up to 1000 iterations and heeded a stop (or a checkpoint) only
    between them: 8 hours at an external-sampling iteration of full-size Octrix (28.6 s). Now a step is about a
    second of iterations at the last step's speed."""
    import os
    import signal
    import time

    iterate = MCCFRSolver.iterate

    def slow(self, n=1):  # 5 ms an iteration: the old steps were 1000 of them (5 s), the new about 200
        for _ in range(n):
            time.sleep(0.005)
            iterate(self, 1)
            if self.iteration == 150:
                os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(MCCFRSolver, "iterate", slow)
    stopped = train_main(_mccfr(tmp_path / "run", iterations=100_000, eval_points=1, eval_tree=False))
    assert stopped["stopped_by"] == "SIGTERM" and 150 <= stopped["iterations_done"] <= 500


def test_an_eval_tree_too_large_is_skipped_in_words_before_it_fills_the_memory(tmp_path):
    """A full-size game's eval tree (the default) listed every deal of its collapsed chance node before counting
    them: octrix-round ran out of 12 GB after 11 minutes without an iteration."""
    with pytest.raises(TreeTooLarge, match="more than max_nodes=500 nodes"):
        flatten(GameSource(Game("octrix-round")), max_nodes=500)  # stops inside the deal's chance node
    result = train_main(_mccfr(tmp_path / "run", game="octrix-round", iterations=5, eval_points=1,
                               eval_tree_max_nodes=500))
    assert "more than max_nodes=500 nodes" in result["eval_tree_skipped"] and "nodes" not in result
    assert result["curve"][-1]["iteration"] == 5 and "nash_conv" not in result["curve"][-1]
    with pytest.raises(ValueError, match=r"eval_tree_max_nodes=0 is not valid; it must be >= 1"):
        train_main(_mccfr(tmp_path / "bad", eval_tree_max_nodes=0))


def test_a_chance_node_within_its_limit_is_listed_and_the_eval_bound_may_change_at_a_resume(tmp_path):
    """The limit counted the partial deals on the way (6 children refused at limits 6 to 11); a resume that raised
    eval_tree_max_nodes was refused as a run with other settings (an evaluation setting, as eval_games is)."""
    source = GameSource(Game("octrix-round", num_players=2, ranks=1, hand_size=2))
    children = source.chance_children(source.root())
    assert len(source.chance_children(source.root(), len(children))) == len(children)
    with pytest.raises(TreeTooLarge, match=f"more than {len(children) - 1} outcomes"):
        source.chance_children(source.root(), len(children) - 1)
    run = tmp_path / "run"
    train_main(_mccfr(run, iterations=10, eval_points=1, eval_tree_max_nodes=1000))
    resumed = train_main(_mccfr(run, iterations=20, eval_points=1, eval_tree_max_nodes=200_000, resume=True))
    assert resumed["curve"][-1]["iteration"] == 20 and "nash_conv" in resumed["curve"][-1]
    # DCFR's alpha, beta and gamma are checked where DCFR reads them: CFR+ ignores its gamma, as before
    assert train_main(TrainCFRConfig(iterations=3, eval_points=1, eval_games=0, gamma=80.0, progress=False,
                                     run_dir=str(tmp_path / "cfr+")))["curve"][-1]["iteration"] == 3


def test_a_resume_that_forgets_mccfr_names_the_runs_options_and_a_smaller_budget_is_refused_before_work(
        tmp_path, monkeypatch):
    """A review: --resume without --algorithm mccfr said "run it again, with --overwrite", which replaced the MCCFR
    run in the folder; and a resume with fewer iterations than done was refused only after the eval tree's walk."""
    from octagames.experiments import train_cfr

    run = tmp_path / "run"
    train_main(_mccfr(run, iterations=20, eval_points=1))
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    with pytest.raises(ValueError, match=r"^resume=True is not valid with algorithm='cfr': .*run holds an MCCFR run; "
                                         r"resume it with its settings: --algorithm mccfr --sampling outcome --seed 4 "
                                         r"--resume \(a setting left out .* --overwrite would replace that run\)$"):
        train_main(TrainCFRConfig(run_dir=str(run), resume=True, iterations=40, eval_games=0, progress=False))
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
    resumed = train_main(TrainCFRConfig(run_dir=str(run), algorithm="mccfr", sampling="outcome", seed=4, resume=True,
                                        iterations=30, eval_points=1, eval_games=0, progress=False))
    assert resumed["iterations_done"] == 30 and resumed["resumes"] == [20]

    def walked(*args, **kwargs):
        raise AssertionError("the eval tree was walked before the refusal")

    before = {p.name: p.read_bytes() for p in run.iterdir()}
    monkeypatch.setattr(train_cfr, "flatten", walked)
    with pytest.raises(ValueError, match=r"^iterations=25 is not valid: the run in .* has done 30 already"):
        train_main(_mccfr(run, iterations=25, eval_points=1, resume=True))
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
    damaged = json.loads((run / "train_cfr.json").read_text())
    (run / "train_cfr.json").write_text(json.dumps({**damaged, "iterations_done": "30"}))  # a TypeError, once
    with pytest.raises(ValueError, match=r"train_cfr.json is missing or not a train_cfr result"):
        train_main(_mccfr(run, iterations=40, eval_points=1, resume=True))
