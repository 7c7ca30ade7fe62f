"""The MCTS benchmark script at tiny sizes: both speeds measured, strength rows and files."""

import json

import pytest

from octagames.experiments.bench_mcts import BenchConfig, main


def test_speed_and_strength_rows_with_files(tmp_path):
    cfg = BenchConfig(games=("achten", "octrix:ranks=3,hand_size=3"), speed_seconds=0.2,
                      openspiel_simulations=2, random_games=2, random_budget=10, heuristic_games=0,
                      out_dir=str(tmp_path))
    result = main(cfg)
    # speed: default configs only, both searches timed from the same position
    assert [r["game"] for r in result["speed"]] == ["achten"]
    sp = result["speed"][0]
    assert sp["ours_sims_per_s"] > 0 and sp["openspiel_sims_per_s"] > 0
    assert sp["ratio"] == pytest.approx(sp["ours_sims_per_s"] / sp["openspiel_sims_per_s"])
    # strength: one row per games entry against random, seats rotated, intervals around the score
    rows = result["strength"]
    assert [(r["game"], r["opponent"], r["games"]) for r in rows] == [
        ("achten", "random", 2), ("octrix:ranks=3,hand_size=3", "random", 2)]
    for r in rows:
        assert r["wins"] + 0.5 * r["draws"] == pytest.approx(r["score"] * r["games"])
        assert r["ci95"][0] <= r["score"] <= r["ci95"][1]
    assert json.loads((tmp_path / "bench_mcts.json").read_text())["strength"] == rows
    assert (tmp_path / "bench_mcts.png").stat().st_size > 0


def test_a_bad_games_entry_fails_before_anything_runs(tmp_path):
    with pytest.raises(ValueError, match="hand_size"):
        main(BenchConfig(games=("octrix:hand_size=99",), out_dir=str(tmp_path)))
    assert not (tmp_path / "bench_mcts.json").exists()
