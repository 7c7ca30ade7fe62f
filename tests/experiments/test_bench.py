"""The random-play benchmark: every face of a game beside the anchors of the same run, and its roofline."""

import json

import numpy as np
import pytest

from octagames.core import CHANCE, TERMINAL, Game
from octagames.experiments.bench import (BenchConfig, aec_loop, load_average, main, openspiel_loop,
                                         record_bytes_written, roofline_bound, rules_loop, step_traffic, traffic_total,
                                         vector_row)


def test_the_rules_loop_plays_whole_games_and_counts_their_seats_actions(monkeypatch):
    # one call plays one whole game and returns how many actions the seats took: a chance outcome counts for
    # nothing, as inside the vector env (it counted every dealt card: Achten's rows were 2.3 times too high)
    for g in (Game("octrix"), Game("achten", num_players=3)):
        applied, seen = [], []
        real_apply, real_current = g.apply_action, g.current_player
        monkeypatch.setattr(g, "apply_action", lambda s, a, _f=real_apply, _c=real_current:
                            applied.append(_c(s) != CHANCE) or _f(s, a))
        monkeypatch.setattr(g, "current_player", lambda s, _f=real_current: seen.append(_f(s)) or seen[-1])
        step = rules_loop(g, seed=4)
        for _ in range(2):
            applied.clear()
            assert step() == sum(applied) > 0 and sum(applied) < len(applied)  # chance outcomes applied, not counted
            assert seen[-1] == TERMINAL  # the loop stopped at the end of the game


def test_the_aec_and_openspiel_loops_count_the_seats_actions():
    # the AEC loop counted each finished agent's step(None), the OpenSpiel loop each chance outcome and a
    # joint simultaneous action as one
    import pyspiel

    import octagames.envs.openspiel  # noqa: F401  (registers the games)
    from octagames.envs import achten_v0

    env = achten_v0.env()
    taken = []
    real_step = env.step
    env.step = lambda a: taken.append(a is not None) or real_step(a)
    step = aec_loop(env, seed=1)
    assert step() == sum(taken) > 0 and sum(taken) < len(taken)
    for name, seats in (("octrix_round", 2), ("octrix_round(num_players=3)", 3)):
        assert openspiel_loop(pyspiel.load_game(f"octagames_{name}"), seed=0)() == 8 * seats  # 8 cards a seat


def test_step_traffic_counts_each_part_of_a_step():
    # a 300-byte record of which 128 bytes are written, a float32 observation of 500 values, 40 actions,
    # 4 seat slots: the model of the module docstring, part by part
    parts = step_traffic(np.dtype([("cards", "u1", (296,)), ("turn", "<i4")]).itemsize, 128.0, 500 * 4, 40, 4)
    assert parts["record"] == {"read": 300, "written": 128}
    assert parts["observation"] == {"read": 0, "written": 2000}
    assert parts["legal mask"] == {"read": 40, "written": 40}
    assert parts["rewards and returns"] == {"read": 32, "written": 64}
    read = sum(p["read"] for p in parts.values())
    written = sum(p["written"] for p in parts.values())
    assert (read, written) == (300 + 40 + 32 + 24, 128 + 2000 + 40 + 64 + 10 + 24)
    assert traffic_total(parts) == read + written == 2662
    # the same step with one byte per observation value moves 1500 bytes less
    assert traffic_total(step_traffic(300, 128.0, 500, 40, 4)) == 2662 - 1500


def test_the_bound_is_bandwidth_over_bytes_per_step():
    assert roofline_bound(10e9, 2662) == pytest.approx(10e9 / 2662)
    assert roofline_bound(2 * 10e9, 2662) == pytest.approx(2 * roofline_bound(10e9, 2662))
    with pytest.raises(ValueError, match="bytes_per_step"):
        roofline_bound(10e9, 0)


class _Writes:
    """A stand-in env of 4 records of 160 bytes (blocks of 64 bytes from the array's start) whose
    every step sets the given byte offsets of each record."""

    def __init__(self, offsets):
        self.states = np.zeros(4, dtype=[("b", "u1", (160,))])
        self.num_envs, self.offsets, self.count = 4, offsets, 0

    def sample_actions(self):
        return np.zeros(self.num_envs, dtype=np.int64)

    def step_inplace(self, actions):
        self.count += 1
        for o in self.offsets:
            self.states["b"][:, o] = self.count


@pytest.mark.parametrize("offsets, blocks", [
    # records start at bytes 0, 160, 320 and 480 of the array; blocks are bytes 0-63, 64-127, ...
    ((0, 1, 63), 6),  # 0, 1, 63 | 160, 161, 223 | 320, 321, 383 | 480, 481, 543: blocks 0 | 2, 3 | 5 | 7, 8
    ((0, 70), 8),  # two blocks in every record
    ((159,), 4),  # the last byte: blocks 2, 4, 7, 9
    ((0, 159), 6),  # 0, 159 | 160, 319 | 320, 479 | 480, 639: a block two records share counts once
    ((), 0),
])
def test_record_writes_are_counted_in_64_byte_blocks(offsets, blocks):
    env = _Writes(offsets)
    assert record_bytes_written(env, steps=3) == 64 * blocks / 4
    assert env.count == 3


def test_a_step_of_a_real_game_writes_part_of_its_record():
    from octagames.envs.vector import make
    env = make("octrix", 64, seed=1, num_threads=1, num_players=2)
    env.reset()
    written = record_bytes_written(env, steps=4)
    assert 0 < written <= 64 * (-(-env.game.dtype.itemsize // 64) + 1)  # the record's blocks, one more unaligned


def test_load_average_reads_three_figures():
    load = load_average()
    assert len(load) == 3 and all(v >= 0 for v in load)


# PettingZoo warns about its own module loader when the anchor (pettingzoo.classic.connect_four_v3) is imported
@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_bench_writes_every_row_with_its_ratios_and_the_roofline(tmp_path):
    out = tmp_path / "bench.json"
    result = main(BenchConfig(game=("octrix",), seconds=0.05, batch_sizes=(1, 512), threads=(1, 2),
                              bandwidth_mib=8, out=str(out)))
    rows = set(result["steps_per_s"])
    encodings = list(result["observation_encodings"]["octrix-2p"])  # rows are named by variant and seats
    assert encodings[0] == "float32" and len(encodings) == 2  # float32, then the narrowest compact dtype
    assert {"octrix-2p: vector env, batch 1", "octrix-2p: rules API (Game), Python loop",
            "octrix-2p: PettingZoo AEC env", "octrix-2p: OpenSpiel adapter"} <= rows
    assert {vector_row("octrix-2p", 512, t, enc) for t in (1, 2) for enc in encodings} <= rows
    assert all(v > 0 for v in result["steps_per_s"].values())
    saved = json.loads(out.read_text())
    c4 = saved["steps_per_s"]["anchor: pyspiel C++ connect_four, Python loop"]
    for k, v in saved["steps_per_s"].items():
        assert abs(saved["ratio_vs_pyspiel_connect_four"][k] - v / c4) < 1e-9
    assert len(saved["load_average"]["start"]) == len(saved["load_average"]["end"]) == 3
    assert saved["threads"] == [1, 2] and saved["roofline_batch"] == 512
    game = Game("octrix", num_players=2)  # the seed's game: the match to 88
    roof = saved["roofline"]["octrix-2p"]
    assert roof["record_bytes"] == game.dtype.itemsize
    for enc in encodings:
        r = roof[enc]
        assert r["observation_bytes"] == game.observation_size * np.dtype(enc).itemsize
        assert r["bytes_per_step"] == traffic_total(step_traffic(game.dtype.itemsize, roof["record_bytes_written"],
                                                                 r["observation_bytes"], game.num_actions,
                                                                 game.info.max_players))
        for t in ("1", "2"):
            x = r["threads"][t]
            bandwidth = saved["memory_bandwidth"][t]["copy_bytes_per_s"]
            assert x["bound_steps_per_s"] == pytest.approx(bandwidth / r["bytes_per_step"])
            assert x["steps_per_s"] == saved["steps_per_s"][vector_row("octrix-2p", 512, int(t), enc)]
            assert x["fraction_of_bound"] == pytest.approx(x["steps_per_s"] / x["bound_steps_per_s"])
        assert r["thread_scaling"] == pytest.approx(r["threads"]["2"]["steps_per_s"] / r["threads"]["1"]["steps_per_s"])
    assert out.with_suffix(".png").stat().st_size > 0


def test_config_validation():
    with pytest.raises(ValueError, match="game='chess' is not valid; valid values"):
        BenchConfig(game=("chess",))
    with pytest.raises(ValueError, match="threads"):
        BenchConfig(threads=(0,))


@pytest.mark.parametrize("verb, field, value", [("bench", "seconds", float("nan")), ("bench", "seconds", float("inf")),
                                                ("bench", "seconds", 0.0), ("fuzz", "minutes", float("nan")),
                                                ("fuzz", "minutes", float("inf")), ("fuzz", "minutes", -1.0),
                                                ("bench_ppo", "budget_s", float("nan")),
                                                ("bench_ppo", "budget_s", float("inf"))])
def test_a_time_that_is_not_a_finite_number_is_refused_naming_its_field(verb, field, value):
    """``bench --seconds nan`` measured for ever (``elapsed >= nan`` is never true), ``fuzz --minutes nan`` ran one
    game, ``bench-ppo --budget-s nan`` was refused under the trainer's field name."""
    import importlib

    module = importlib.import_module(f"octagames.experiments.{verb}")
    config = module.FuzzConfig if verb == "fuzz" else module.BenchConfig
    with pytest.raises(ValueError, match=rf"^{field}={value} is not valid; it must be a finite number >"):
        config(**{field: value})


def test_the_bench_measures_every_games_seed_variant_by_default():
    """The bare names of the catalogue, each at its default seats: Octrix is the match to 88, Octa English."""
    cfg = BenchConfig()
    assert cfg.describe_all() == ["octrix-2p", "achten-2p", "octiles-2p", "octa-en-2p"]
    assert cfg.resolve_all()[0] == ("octrix", {"match": True, "num_players": 2})
    assert cfg.resolve_all()[3] == ("octa", {"rules": "en", "num_players": 2})
    chosen = BenchConfig(game=("octrix-round", "octa-nl:max_turns=20"), players=2)
    assert chosen.describe_all() == ["octrix-round-2p", "octa-nl+max_turns=20-2p"]
