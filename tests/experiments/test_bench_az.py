"""The search-and-learning throughput benchmark: both parts run with tiny budgets on the CPU."""

from __future__ import annotations

import json

import pytest
import torch

from octagames.experiments.bench_az import BenchConfig, run_bench

TINY = "octrix-round:ranks=3,hand_size=3"


@pytest.fixture(autouse=True)
def _restore_torch_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_both_parts_run_per_setting_and_write_json_and_png(tmp_path):
    cfg = BenchConfig(game=(TINY,), budget_s=0.3, threads=(1, 2), num_games=(8,), simulations=4, batch_size=16,
                      warmup_steps=1, out_json=str(tmp_path / "b.json"), out_png=str(tmp_path / "b.png"),
                      progress=False)
    out = run_bench(cfg)
    data = json.loads((tmp_path / "b.json").read_text())
    assert data["rows"] == out["rows"]
    settings = [(r["device"], r["threads"], r["num_games"]) for r in data["rows"]]
    assert settings == [("cpu", 1, 8), ("cpu", 2, 8)]
    for r in data["rows"]:
        assert r["game"] == "octrix-round+hand_size=3+ranks=3-2p" and r["machine"].endswith(", cpu")
        sp, le = r["self_play"], r["learner"]
        assert sp["decisions"] > 0 and sp["seconds"] >= cfg.budget_s
        # one network call per simulation for all the games in lockstep; a descent that ends its game
        # is valued by the outcome instead, so at most one position per game and simulation
        assert 0 < sp["positions_per_call"] <= r["num_games"]
        positions = sp["calls_per_s"] * sp["positions_per_call"] * sp["seconds"]
        assert 0 < positions <= sp["decisions"] * cfg.simulations + 1e-6
        assert 0 < sp["network_share"] < 1
        assert le["steps"] >= 1 and le["seconds"] >= cfg.budget_s
        assert le["buffer"] >= sp["decisions"]  # the samples self-play made, finished or not
    assert len(data["load_average"]["end"]) == 3
    assert (tmp_path / "b.png").stat().st_size > 0


def test_config_validation():
    for bad in ("tpu", "mps", "cuda:x", "cuda:²", "cuda:\u0663", "cuda:"):  # "²": a digit to isdigit
        with pytest.raises(ValueError, match=f"devices: '{bad}' is not valid; valid values: auto, cpu, cuda"):
            BenchConfig(devices=(bad,))
    with pytest.raises(ValueError, match=f"devices: 'cuda:{torch.cuda.device_count()}' is not available here"):
        BenchConfig(devices=("cpu", f"cuda:{torch.cuda.device_count()}"))
    BenchConfig(devices=("auto",))  # cuda when there is one, else cpu
    for field, kw in (("num_games", {"num_games": (0,)}), ("threads", {"threads": ()}),
                      ("budget_s", {"budget_s": 0}), ("simulations", {"simulations": 0}),
                      ("devices", {"devices": ()})):
        with pytest.raises(ValueError, match=f"{field}="):
            BenchConfig(**kw)


def test_a_negative_seed_is_refused_when_the_flags_are_read(capsys):
    """--seed -5 was accepted when the flags were read and refused by train_az's config in the first
    measurement."""
    from octagames.experiments.cli import parse_config

    with pytest.raises(ValueError, match=r"^seed=-5 is not valid; it must be >= 0$"):
        BenchConfig(seed=-5)
    with pytest.raises(SystemExit) as e:
        parse_config(BenchConfig, ["--seed", "-5"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "seed=-5 is not valid" in err, err
    assert BenchConfig(seed=0).seed == 0
