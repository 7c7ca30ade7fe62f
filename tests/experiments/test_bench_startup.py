"""The start-up bench's settings."""

import pytest

from octagames.experiments.bench_startup import StartupConfig


@pytest.mark.parametrize("repeats", [0, -2])
def test_fewer_than_one_warm_run_is_refused_naming_the_field(repeats):
    """It was refused after warming every game up, as "min() arg is an empty sequence", naming no flag."""
    with pytest.raises(ValueError, match=rf"^repeats={repeats} is not valid; it must be >= 1"):
        StartupConfig(game=("octrix-round",), repeats=repeats)


@pytest.mark.parametrize("charted", [True, False])
def test_without_matplotlib_it_writes_its_json_and_says_the_chart_needs_the_render_extra(tmp_path, monkeypatch,
                                                                                          capsys, charted):
    """It drew nothing without matplotlib and still said it wrote startup.png."""
    from octagames.experiments import bench_startup

    monkeypatch.setattr(bench_startup.subprocess, "run", lambda *a, **k: None)  # the warm-up: nothing to compile
    monkeypatch.setattr(bench_startup, "time_process", lambda code, env=None: 0.5)
    monkeypatch.setattr(bench_startup, "can_chart", lambda: charted)
    bench_startup.main(StartupConfig(game=("octrix-round",), repeats=1, cold=False, out_dir=tmp_path))
    out = capsys.readouterr().out
    assert (tmp_path / "startup.json").exists() and (tmp_path / "startup.png").exists() == charted
    assert ("and startup.png" in out) == charted and ("no chart: matplotlib is not installed" in out) != charted
