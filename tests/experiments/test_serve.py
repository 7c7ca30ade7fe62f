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


def test_an_address_it_cannot_listen_on_is_refused_naming_the_flag_before_the_banner(monkeypatch, capsys):
    """uvicorn said "[Errno -2] Name or service not known" (no flag named) or "address already in use", with
    exit status 3, after the banner had given the page's address as if it served there."""
    import socket

    monkeypatch.setattr("uvicorn.run", lambda *a, **k: pytest.fail("the server started"))
    with pytest.raises(ValueError, match=r"^host='bad host!' is not valid: .*; give an address of this"):
        serve.main(ServeConfig(host="bad host!", port=8799))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(ValueError, match=rf"^port={port} is not valid: it cannot be listened on at 127"):
            serve.main(ServeConfig(port=port))
    assert capsys.readouterr().out == ""
