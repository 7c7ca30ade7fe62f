"""The PPO throughput benchmark: our part runs with tiny budgets without sb3-contrib."""

from __future__ import annotations

import json
import tempfile

import numpy as np
import pytest
import torch

from octagames.experiments import bench_ppo
from octagames.experiments.bench_ppo import PHASES, BenchConfig, PhaseClock, TimedEnv, run_bench


@pytest.fixture(autouse=True)
def _restore_torch_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_our_part_runs_on_each_thread_count_with_its_phases_and_writes_json_and_png(tmp_path):
    cfg = BenchConfig(game=("octrix-round:ranks=3,hand_size=3",), budget_s=0.3, num_envs=8, num_steps=4,
                      hidden=(8, 8), sb3=False, threads=(1, 2), out_json=str(tmp_path / "b.json"),
                      out_png=str(tmp_path / "b.png"), progress=False)
    out = run_bench(cfg)
    data = json.loads((tmp_path / "b.json").read_text())
    res = data["results"]["octrix-round+hand_size=3+ranks=3-2p"]  # named by variant and seats
    assert res["game"] == "octrix"
    assert res["config"] == {"match": False, "ranks": 3, "hand_size": 3, "num_players": 2}
    assert set(res["threads"]) == {"1", "2"}
    for t, per in res["threads"].items():
        ours = per["ours"]
        assert ours["samples_per_s"] > 0 and ours["env_steps_per_s"] >= ours["samples_per_s"]
        assert ours["threads"] == ours["torch_threads"] == ours["env_threads"] == int(t)
        shares = ours["phase_shares"]
        assert list(shares) == list(PHASES) and all(v >= 0 for v in shares.values())
        assert sum(shares.values()) == pytest.approx(1.0)
        assert shares["env stepping"] > 0 and shares["policy inference"] > 0 and shares["update"] > 0
        detail = ours["detail_seconds"]
        assert 0 < detail["advantages (GAE)"] < detail["rollout"] < ours["phase_seconds"]
        # the rollout holds the env stepping and the inference (the update is outside it)
        assert detail["rollout"] >= (shares["env stepping"] + shares["policy inference"]) * ours["phase_seconds"]
        assert "sb3_default" not in per
    assert out["results"].keys() == data["results"].keys()
    assert len(data["load_average"]["start"]) == 3
    assert (tmp_path / "b.png").stat().st_size > 0


class _Clock:
    """A clock that reads what the test sets."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_the_phase_clock_counts_spans_open_intervals_and_the_rest():
    now = _Clock()
    clock = PhaseClock(now)

    def work(seconds, inner=None):
        if inner:
            clock.span("policy inference", work, inner)  # inside a span: counts for the outer one
        now.t += seconds
        return seconds

    assert clock.span("update", work, 2.0, 0.5) == 2.0
    now.t += 1.0  # outside any phase: other
    clock.open("observation conversion")
    now.t += 0.25
    assert clock.span("env stepping", work, 1.0) == 1.0  # its start ends the open interval
    now.t += 0.25  # nothing open: other
    clock.open("observation conversion")
    now.t += 0.5
    total, shares = clock.shares()  # ends the open interval too
    assert total == 5.5
    assert clock.seconds == {"env stepping": 1.0, "observation conversion": 0.75, "policy inference": 0.0,
                             "update": 2.5, "other": 0.0}
    assert shares["other"] == pytest.approx(1.25 / 5.5) and sum(shares.values()) == pytest.approx(1.0)
    clock.restart()
    now.t += 1.0
    assert clock.shares() == (1.0, {**dict.fromkeys(PHASES, 0.0), "other": 1.0})
    # measure: a detail figure beside the phases, inside a span or not
    measured = clock.measure("gae", work)
    assert clock.span("update", measured, 0.5) == 0.5 and measured(0.25) == 0.25
    assert clock.detail == {"gae": 0.75} and clock.seconds["update"] == 0.5
    assert clock.shares()[1]["other"] == pytest.approx(1.25 / 1.75)


def test_the_timed_env_reports_stepping_and_observation_reads():
    now = _Clock()

    class Env:  # steps take 2 s, observing every seat 1 s
        obs, action_mask, num_envs = np.zeros((4, 3)), np.ones((4, 2), dtype=bool), 4

        def step_inplace(self, actions):
            now.t += 2.0
            self.actions = actions

        def observe(self, players):
            now.t += 1.0
            return self.obs + players[:, None]

    env, clock = Env(), PhaseClock(now)
    timed = TimedEnv(env, clock)
    assert timed.obs is env.obs
    now.t += 0.5
    assert timed.action_mask is env.action_mask  # a second read: its own interval
    now.t += 0.25
    assert timed.num_envs == 4  # any other attribute is the env's, and ends the interval
    now.t += 4.0
    timed.step_inplace(np.arange(4))
    assert env.actions.tolist() == [0, 1, 2, 3]
    assert timed.observe(np.full(4, 2)).tolist() == [[2.0] * 3] * 4
    assert clock.seconds == {"env stepping": 3.0, "observation conversion": 0.75, "policy inference": 0.0,
                             "update": 0.0, "other": 0.0}
    assert clock.shares()[0] == 7.75


def test_missing_sb3_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_ppo, "sb3_available", lambda: False)
    with pytest.raises(SystemExit, match="pip install sb3-contrib"):
        run_bench(BenchConfig(game=("octrix",), out_json=str(tmp_path / "b.json"), progress=False))


def test_the_sb3_anchor_measures_and_leaves_no_log_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where SB3's default logger would write
    cfg = BenchConfig(game=("octrix-round:ranks=3,hand_size=3",), budget_s=0.2, hidden=(8, 8), progress=False)
    res = bench_ppo.bench_sb3(cfg, *cfg.resolve_all()[0], n_steps=16, batch_size=16, n_epochs=1)
    assert res["samples_per_s"] > 0 and res["cycles"] >= 1
    assert not list(tmp_path.glob("SB3-*"))


def test_config_validation():
    with pytest.raises(ValueError, match="game='chess' is not valid; valid values"):
        BenchConfig(game=("chess",))
    with pytest.raises(ValueError, match="num_players=5 is not valid"):  # --players applies to every game
        BenchConfig(game=("octrix", "achten"), players=5)
    with pytest.raises(ValueError, match="budget_s"):
        BenchConfig(budget_s=0)
    with pytest.raises(ValueError, match=r"matmul_dtype='half' is not valid; valid values"):
        BenchConfig(matmul_dtype="half")
    with pytest.raises(ValueError, match="threads"):
        BenchConfig(threads=())


@pytest.mark.parametrize("kw, words", [
    ({"seed": -5}, r"seed=-5 is not valid; it must be >= 0"),
    ({"seed": 2**32}, r"seed=4294967296 is not valid with the SB3 anchors; it must be in 0\.\.2\*\*32-1"),
    ({"hidden": (0,)}, r"hidden=\(0,\) is not valid; give one or more layer widths >= 1"),
    ({"device": "tpu"}, r"device='tpu' is not valid; valid values: auto, cpu, cuda, cuda:<n>")])
def test_seeds_widths_and_devices_are_refused_when_the_flags_are_read(kw, words):
    """They were refused by our trainer's config after a game's warm-up (a seed of 2**32 by SB3, after our
    measurements), not when the flags were read."""
    with pytest.raises(ValueError, match=f"^{words}"):
        BenchConfig(**kw)
    assert BenchConfig(seed=2**32, sb3=False).seed == 2**32  # our trainer takes it
    assert BenchConfig(seed=0, hidden=(8,), device="cuda:0").device == "cuda:0"
