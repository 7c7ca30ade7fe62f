"""The PPO throughput benchmark: our part runs with tiny budgets without sb3-contrib."""

from __future__ import annotations

import json
import tempfile

import pytest
import torch

from octagames.experiments import bench_ppo
from octagames.experiments.bench_ppo import BenchConfig, run_bench


@pytest.fixture(autouse=True)
def _restore_torch_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_our_part_runs_and_writes_json_and_png(tmp_path):
    cfg = BenchConfig(games=("octrix:ranks=3,hand_size=3",), budget_s=0.3, num_envs=8, num_steps=4,
                      hidden=(8, 8), sb3=False, out_json=str(tmp_path / "b.json"),
                      out_png=str(tmp_path / "b.png"), progress=False)
    out = run_bench(cfg)
    data = json.loads((tmp_path / "b.json").read_text())
    res = data["results"]["octrix:ranks=3,hand_size=3"]
    assert res["config"] == {"ranks": 3, "hand_size": 3}
    assert res["ours"]["samples_per_s"] > 0 and res["ours"]["env_steps_per_s"] >= res["ours"]["samples_per_s"]
    assert "sb3_default" not in res and out["results"].keys() == data["results"].keys()
    assert (tmp_path / "b.png").stat().st_size > 0


def test_missing_sb3_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_ppo, "sb3_available", lambda: False)
    with pytest.raises(SystemExit, match="pip install sb3-contrib"):
        run_bench(BenchConfig(games=("octrix",), out_json=str(tmp_path / "b.json"), progress=False))


def test_the_sb3_anchor_measures_and_leaves_no_log_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where SB3's default logger would write
    cfg = BenchConfig(games=("octrix:ranks=3,hand_size=3",), budget_s=0.2, hidden=(8, 8), progress=False)
    res = bench_ppo.bench_sb3(cfg, "octrix", {"ranks": 3, "hand_size": 3}, n_steps=16, batch_size=16, n_epochs=1)
    assert res["samples_per_s"] > 0 and res["cycles"] >= 1
    assert not list(tmp_path.glob("SB3-*"))


def test_config_validation():
    with pytest.raises(ValueError, match="valid values"):
        BenchConfig(games=("chess",))
    with pytest.raises(ValueError, match="budget_s"):
        BenchConfig(budget_s=0)
