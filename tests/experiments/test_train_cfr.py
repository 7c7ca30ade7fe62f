"""train_cfr's checkpoint plays as ``cfr:<checkpoint.npz>`` whichever solver wrote it; its curve ends at the
final iteration whatever ``eval_points`` asks."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

from octagames.agents.arena import play_match
from octagames.agents.cfr.mccfr import MCCFRSolver
from octagames.agents.cfr.solver import CFRSolver
from octagames.agents.cfr.tree import GameSource, flatten
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.cli import parse_config
from octagames.experiments.train_cfr import TrainCFRConfig
from octagames.experiments.train_cfr import main as train_main


@pytest.mark.parametrize("algorithm", ["cfr", "mccfr"])
def test_the_checkpoint_of_train_cfr_plays_as_a_cfr_agent_of_its_config(tmp_path, algorithm):
    # the default algorithm (exact CFR) wrote a CFRSolver checkpoint, which the agent read as MCCFR (KeyError)
    train_main(TrainCFRConfig(algorithm=algorithm, iterations=4, eval_points=2, eval_games=0, run_dir=str(tmp_path)))
    path = tmp_path / "checkpoint.npz"
    game = Game("octrix-round-small")
    agent = make_agent(f"cfr:{path}", "octrix-round-small")
    tree = flatten(GameSource(game))
    if algorithm == "cfr":
        expected = CFRSolver.load(path, tree).average_policy()
    else:
        expected = MCCFRSolver.load(path).table_policy().to_tree(tree)
    np.testing.assert_allclose(agent.policy.to_tree(tree), expected)
    assert play_match(game, [agent, make_agent("random", game)], 2, seed=0).to_json()["agents"][0]["games"] == 2
    with pytest.raises(ValueError, match=r"was trained on octrix-round-small-2p, not octrix-round-2p .*"
                                         r"play it with --game octrix-round-small"):
        make_agent(f"cfr:{path}", "octrix-round")


@pytest.mark.parametrize("eval_points", [1, 2, 3])
def test_the_curve_of_train_cfr_ends_at_the_final_iteration(tmp_path, eval_points):
    train_main(TrainCFRConfig(iterations=7, eval_points=eval_points, eval_games=0, run_dir=str(tmp_path)))
    curve = json.loads((tmp_path / "train_cfr.json").read_text())["curve"]
    assert curve[-1]["iteration"] == 7 and len(curve) <= eval_points
    tree = flatten(GameSource(Game("octrix-round-small")))
    assert CFRSolver.load(tmp_path / "checkpoint.npz", tree).iteration == 7


@pytest.mark.parametrize("eval_points", [0, -1])
def test_train_cfr_refuses_eval_points_below_one(tmp_path, eval_points):
    with pytest.raises(ValueError, match=rf"eval_points={eval_points} is not valid; it must be in 1..10000"):
        train_main(TrainCFRConfig(iterations=3, eval_points=eval_points, eval_games=0, run_dir=str(tmp_path)))
    assert not (tmp_path / "checkpoint.npz").exists()


@pytest.mark.parametrize("progress", [True, False])
def test_train_cfrs_bar_counts_iterations_and_no_progress_silences_it(tmp_path, capsys, progress):
    # the bar counted evaluation points only (an MCCFR iteration of a full game may take minutes, and the
    # bar sat at 0 of them); --no-progress was refused as an unknown option
    cfg = parse_config(TrainCFRConfig, ["--iterations", "9", "--eval-points", "2", "--eval-games", "0",
                                 "--run-dir", str(tmp_path)] + ([] if progress else ["--no-progress"]))
    assert cfg.progress is progress
    train_main(cfg)
    err = capsys.readouterr().err
    assert "iterations:   0%" in err and "/9 " in err if progress else "iterations:" not in err  # of 9 iterations
    assert json.loads((tmp_path / "train_cfr.json").read_text())["curve"][-1]["iteration"] == 9


def test_overwrite_keeps_the_run_when_a_setting_is_refused_after_the_folder_is_claimed(tmp_path):
    """--overwrite removed the run as the folder was claimed: a setting refused later (a deal pool below 0, a
    negative seed) left the folder empty, the run that the refused command never replaced gone."""
    train_main(TrainCFRConfig(iterations=2, eval_points=1, eval_games=0, run_dir=str(tmp_path)))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for bad in ({"deal_pool": -3}, {"seed": -1}):
        with pytest.raises(ValueError):
            train_main(TrainCFRConfig(iterations=2, eval_points=1, eval_games=0, run_dir=str(tmp_path),
                                      overwrite=True, **bad))
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before, bad


BAD = [("iterations", 0, "it must be >= 1"), ("iterations", -5, "it must be >= 1"),
       ("eval_games", -1, "it must be >= 0"), ("seed", -1, "it must be >= 0"),
       ("sampling", "bogus", "valid values: ['external', 'outcome']"),
       # DCFR's discounts: these left its sums not finite and the policy uniform, without a word
       ("alpha", float("nan"), "it must be a number in [-50, 50]"), ("gamma", 1e6, "it must be a number in [0, 50]"),
       ("beta", float("inf"), "it must be a number in [-50, 50] or -inf")]


@pytest.mark.parametrize("field, value, words", BAD)
def test_train_cfr_refuses_counts_seeds_and_samplings_out_of_range_first(tmp_path, field, value, words):
    """iterations 0 or -5 ran one iteration, eval_games -1 no arena games, a negative seed was refused
    by numpy without the field's name, exact CFR ignored a bad sampling: each after claiming the folder."""
    cfg = TrainCFRConfig(iterations=3, eval_points=1, eval_games=0, run_dir=str(tmp_path / "run"),
                         cfr_variant="dcfr")  # (DCFR's alpha, beta, gamma: the other variants do not read them)
    with pytest.raises(ValueError, match=re.escape(f"{field}={value!r} is not valid; {words}")):
        train_main(dataclasses.replace(cfg, **{field: value}))
    assert not (tmp_path / "run").exists()


def test_an_unknown_pyspiel_game_is_refused_in_one_line_before_the_run(tmp_path, capfd):
    """pyspiel printed its 126 game names on stderr and raised SpielError: a traceback, exit status 1."""
    words = (r"game='spiel:no_such_game\(players=2\)' is not valid: pyspiel has no game 'no_such_game'; "
             r"valid values: spiel:<name> with a name of pyspiel.registered_names\(\), e.g. spiel:kuhn_poker")
    with pytest.raises(ValueError, match=words):
        train_main(TrainCFRConfig(game="spiel:no_such_game(players=2)", run_dir=str(tmp_path / "run")))
    assert capfd.readouterr().err == "" and not (tmp_path / "run").exists()


def test_settings_that_were_ignored_or_failed_late_are_refused_before_the_run(tmp_path):
    # --players was ignored for a pyspiel game (a run asked for 3-player Kuhn trained 2 and recorded 3), and
    # eval_points=10**12 asked numpy for terabytes once the tree was flattened (review)
    for kw, words in ((dict(game="spiel:kuhn_poker", players=3),
                       r"^players=3 is not taken for a pyspiel game; give its parameters in its name, e.g. "
                       r"game='spiel:kuhn_poker\(players=3\)'$"),
                      (dict(eval_points=10**12), r"^eval_points=1000000000000 is not valid; it must be in 1..10000")):
        with pytest.raises(ValueError, match=words):
            train_main(TrainCFRConfig(**kw, run_dir=str(tmp_path / "run")))
        assert not (tmp_path / "run").exists()


def test_a_simultaneous_pyspiel_game_is_trained_turn_based(tmp_path, capsys):
    """It was refused after the run folder was made, with advice (pyspiel.convert_to_turn_based) that the command
    line could not follow; the prisoner's dilemma's equilibrium is found from the uniform policy's NashConv."""
    result = train_main(TrainCFRConfig(game="spiel:matrix_pd", iterations=200, eval_points=1, eval_games=0,
                                       run_dir=str(tmp_path / "run"), progress=False))
    assert "one seat after the other" in result["turn_based"] and "convert_to_turn_based" in capsys.readouterr().out
    assert result["uniform_nash_conv"] > 1.0 and result["curve"][-1]["nash_conv"] < 0.05


def test_the_arena_results_say_how_much_of_the_play_the_table_held(tmp_path):
    """A state the table never met is played uniformly, and was not told: 20 MCCFR iterations of a full-size round
    hold almost none of its arena decisions, exact CFR on the small round every one."""
    exact = train_main(TrainCFRConfig(iterations=20, eval_points=1, eval_games=4, eval_opponents=("random",),
                                      run_dir=str(tmp_path / "exact"), progress=False))["arena"]["random"]
    assert exact["decisions"] > 0 and exact["in_table"] == 1.0
    sampled = train_main(TrainCFRConfig(game="octrix-round", algorithm="mccfr", sampling="outcome", iterations=20,
                                        eval_points=1, eval_games=4, eval_opponents=("random",), eval_tree=False,
                                        run_dir=str(tmp_path / "mccfr"), progress=False))["arena"]["random"]
    assert sampled["decisions"] >= 4 * 8 and sampled["in_table"] < 0.5


def test_a_misspelled_evaluation_opponent_is_refused_before_training(tmp_path):
    """A review: --eval-opponents foo trained, wrote its files and exit status 0, and only then said 'vs foo:
    skipped'; train-ppo and train-az refuse it first, as train-cfr does now. One that cannot play the game is
    still skipped with its reason."""
    cfg = TrainCFRConfig(iterations=2, eval_points=1, eval_games=2, run_dir=str(tmp_path / "run"),
                         eval_opponents=("random", "heuristc"))
    with pytest.raises(ValueError, match=r"eval_opponents: agent='heuristc' is not valid; valid agents: \["):
        train_main(cfg)
    assert not (tmp_path / "run").exists()
    done = train_main(dataclasses.replace(cfg, eval_opponents=("random", "belief")))  # belief: Achten only
    assert done["arena"]["belief"]["skipped"] == "agent 'belief' is not available for game 'octrix'; it plays achten only"
