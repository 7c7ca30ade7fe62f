"""The random-play benchmark: every face of a game beside the anchors of the same run."""

import json

import pytest

from octagames.core import TERMINAL, Game
from octagames.experiments.bench import BenchConfig, main, rules_loop


def test_the_rules_loop_plays_whole_games_and_counts_their_actions(monkeypatch):
    # one call plays one whole game and returns how many actions it applied (chance outcomes included)
    for g in (Game("octrix"), Game("achten", num_players=3)):
        applied, seen = [], []
        real_apply, real_current = g.apply_action, g.current_player
        monkeypatch.setattr(g, "apply_action", lambda s, a, _f=real_apply: applied.append(a) or _f(s, a))
        monkeypatch.setattr(g, "current_player", lambda s, _f=real_current: seen.append(_f(s)) or seen[-1])
        step = rules_loop(g, seed=4)
        for _ in range(2):
            applied.clear()
            assert step() == len(applied) > 0
            assert seen[-1] == TERMINAL  # the loop stopped at the end of the game


# PettingZoo warns about its own module loader when the anchor (pettingzoo.classic.connect_four_v3) is imported
@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_bench_writes_every_row_with_its_ratios(tmp_path):
    out = tmp_path / "bench.json"
    result = main(BenchConfig(games=("octrix",), seconds=0.05, batch_sizes=(1,), out=str(out)))
    rows = set(result["steps_per_s"])
    assert {"octrix: vector env, batch 1", "octrix: rules API (Game), Python loop", "octrix: PettingZoo AEC env",
            "octrix: OpenSpiel adapter"} <= rows
    assert all(v > 0 for v in result["steps_per_s"].values())
    saved = json.loads(out.read_text())
    c4 = saved["steps_per_s"]["anchor: pyspiel C++ connect_four, Python loop"]
    for k, v in saved["steps_per_s"].items():
        assert abs(saved["ratio_vs_pyspiel_connect_four"][k] - v / c4) < 1e-9
    assert out.with_suffix(".png").stat().st_size > 0
