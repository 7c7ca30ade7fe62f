"""The MCTS benchmark script at tiny sizes: both speeds measured, strength rows and files."""

import json

import pytest

from octagames.experiments.bench_mcts import BenchConfig, main


def test_speed_and_strength_rows_with_files(tmp_path):
    # each game with its own fields (a variant:key=value entry), the seats of every game from --players
    cfg = BenchConfig(game=("achten", "octrix-round:ranks=3,hand_size=3"), players=2, speed_seconds=0.2,
                      openspiel_simulations=2, random_games=2, random_budget=10, heuristic_games=0,
                      out_dir=str(tmp_path))
    result = main(cfg)
    # speed: every game with its config, both searches timed from the same position
    names = ["achten-2p", "octrix-round+hand_size=3+ranks=3-2p"]
    assert [r["game"] for r in result["speed"]] == names
    for sp in result["speed"]:
        assert sp["ours_sims_per_s"] > 0 and sp["openspiel_sims_per_s"] > 0
        assert sp["ratio"] == pytest.approx(sp["ours_sims_per_s"] / sp["openspiel_sims_per_s"])
    # strength: one row per game against random, seats rotated, intervals around the score
    rows = result["strength"]
    assert [(r["game"], r["opponent"], r["games"]) for r in rows] == [(name, "random", 2) for name in names]
    for r in rows:
        assert r["wins"] + 0.5 * r["draws"] == pytest.approx(r["score"] * r["games"])
        assert r["ci95"][0] <= r["score"] <= r["ci95"][1]
    assert json.loads((tmp_path / "bench_mcts.json").read_text())["strength"] == rows
    assert (tmp_path / "bench_mcts.png").stat().st_size > 0


def test_a_bad_game_entry_fails_before_anything_runs(tmp_path):
    with pytest.raises(ValueError, match="hand_size"):
        main(BenchConfig(game=("octrix:hand_size=99",), out_dir=str(tmp_path)))
    assert not (tmp_path / "bench_mcts.json").exists()


@pytest.mark.parametrize("field, value, words", [("random_games", -1, "it must be >= 0"),
                                                 ("heuristic_budget", 0, "it must be >= 1"),
                                                 ("speed_seconds", -1.0, "it must be > 0"),
                                                 ("seed", -1, "it must be >= 0")])
def test_counts_budgets_and_seconds_out_of_range_are_refused_naming_the_field(field, value, words):
    """random_games -1 wrote a bench of no strength rows with exit status 0; speed_seconds -1 was refused as
    "time_limit=-1.0", a name the command line does not have."""
    with pytest.raises(ValueError, match=rf"^{field}={value} is not valid; {words}"):
        BenchConfig(game=("octrix-round",), **{field: value})
