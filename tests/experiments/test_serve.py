"""What ``octagames serve`` prints when it starts: each Host name once, a replay numbered as the page numbers it.

The app itself is tested in ``tests/web/``."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")

from octagames.experiments import serve  # noqa: E402
from octagames.experiments.serve import ServeConfig, banner, replay_line  # noqa: E402


def test_the_banner_names_each_host_once(monkeypatch):
    monkeypatch.setattr(serve.socket, "gethostname", lambda: "box")
    line = banner(ServeConfig())
    assert line.startswith("octagames serve: http://127.0.0.1:8088/  (Ctrl-C stops it; ")
    assert line.endswith("answers the Host names box, localhost, 127.0.0.1)")
    assert line.count("127.0.0.1") == 2  # the address and the name, not the name twice
    line = banner(ServeConfig(host="0.0.0.0", allowed_host=("games.lan", "localhost")))
    assert "other machines: http://box:8088/" in line
    assert line.endswith("answers the Host names box, games.lan, localhost, 127.0.0.1)")


def test_the_replay_line_counts_the_games_with_a_record_from_0():
    assert replay_line("j.games.jsonl", 200) == ("replay of j.games.jsonl (game # 0 of its 200 games with a record, "
                                                 "numbered 0..199)")
    assert replay_line("game.json", 1) == "replay of game.json (its one game record, game # 0)"
