"""What keeps one browser or script from exhausting ``octagames serve``: the cap on games kept (idle and
finished games dropped oldest first), on request bodies, on replay files and on bots' search budgets;
the handlers' work off the event loop; the Host names answered with ``--host 0.0.0.0``; the files a
replay may open (runs/ and the leaderboard journals)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")
pytest.importorskip("httpx", reason="the web extra: pip install 'octagames[web]'")

from starlette.testclient import TestClient  # noqa: E402

from octagames.experiments import serve  # noqa: E402
from octagames.experiments.cli import parse_config, parse_with_stdlib  # noqa: E402
from octagames.web import app as web_app  # noqa: E402
from octagames.web.app import Limits, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HUMANS = {"variant": "achten", "seats": ["human", "human"]}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def served(tmp_path):
    (tmp_path / "runs").mkdir()
    return tmp_path


def client_for(root: Path, **limits) -> TestClient:
    app = create_app(root, limits=Limits(**limits))
    app.state.server.clock = Clock()
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> str:
    """A journal of two games of bots with their records (a header, then a row per game), as the
    leaderboard writes them."""
    rows = [json.dumps({"header": {"game": "achten"}})]
    with client_for(tmp_path_factory.mktemp("bots")) as client:
        for key in range(2):
            gid = client.post("/api/games", json={"variant": "achten", "seats": ["heuristic", "random"],
                                                  "seed": key}).json()["id"]
            wait_over(client, gid)
            rec = client.get(f"/api/games/{gid}/record").json()
            row = {"key": key, "returns": rec["returns"], "length": rec["length"], "record": rec}
            rows.append(json.dumps(row))
    return "\n".join(rows) + "\n"


def wait_over(client: TestClient, gid: str) -> None:
    end = time.time() + 30
    while not client.get(f"/api/games/{gid}").json()["over"]:
        assert time.time() < end, "the bots did not finish"
        time.sleep(0.01)


# ---------------------------------------------------------------------- games kept
def test_past_max_games_a_new_game_drops_a_finished_or_idle_one_or_is_refused(served):
    with client_for(served, max_games=2, idle_seconds=60) as client:
        server, clock = client.app.state.server, client.app.state.server.clock
        bots = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"],
                                               "seed": 1}).json()
        wait_over(client, bots["id"])
        clock.now += 10
        first = client.post("/api/games", json=HUMANS).json()
        clock.now += 10
        # two games kept: the finished one goes to make room (the least recently seen finished game)
        second = client.post("/api/games", json=HUMANS).json()
        assert client.get(f"/api/games/{bots['id']}").status_code == 404
        assert set(server.sessions) == {first["id"], second["id"]}
        # both kept games are being played: refused, nothing dropped
        r = client.post("/api/games", json=HUMANS)
        assert r.status_code == 503 and "at most 2 games" in r.json()["error"]
        assert "--max-games" in r.json()["error"]
        assert set(server.sessions) == {first["id"], second["id"]}
        # the first is abandoned (nobody asked about it for a minute); the second was just seen
        clock.now += 55
        seat, token = second["to_act"], second["tokens"][str(second["to_act"])]
        assert client.get(f"/api/games/{second['id']}?seat={seat}&token={token}").status_code == 200
        clock.now += 10
        third = client.post("/api/games", json=HUMANS)
        assert third.status_code == 200
        assert set(server.sessions) == {second["id"], third.json()["id"]}
        r = client.get(f"/api/games/{first['id']}?seat=0&token={first['tokens']['0']}")
        assert r.status_code == 404 and "nobody has asked" in r.json()["error"]


def test_the_bots_of_an_abandoned_game_stop(served, held):
    # the bots decide only when the test lets them: the game cannot end (a fast machine finished a random
    # Octrix match before it was dropped) nor be dropped between two moves by chance
    go, asked = held
    with client_for(served, max_games=1, idle_seconds=5) as client:
        server = client.app.state.server
        # a game of bots that nobody watches
        gid = client.post("/api/games", json={"variant": "octrix", "seats": ["random", "random"],
                                              "seed": 2}).json()["id"]
        session = server.sessions[gid]
        assert asked.wait(10) and session.worker.is_alive()
        server.clock.now += 6
        assert client.post("/api/games", json=HUMANS).status_code == 200
        assert gid not in server.sessions and session.stopped
        moves = len(session.actions)
        go.set()  # the bot's pending move lands; the worker then sees the game dropped and stops
        session.worker.join(10)
        assert not session.worker.is_alive() and not session.over
        assert len(session.actions) <= moves + 1


def test_replays_kept_are_capped_too_the_least_recently_seen_goes(served, journal):
    with client_for(served, max_games=2) as client:
        clock = client.app.state.server.clock
        ids = []
        for _ in range(3):
            clock.now += 1
            r = client.post("/api/replays", json={"text": journal})
            assert r.status_code == 200
            ids.append(r.json()["id"])
        assert client.get(f"/api/replays/{ids[0]}").status_code == 404
        assert all(client.get(f"/api/replays/{rid}").status_code == 200 for rid in ids[1:])


# ---------------------------------------------------------------------- sizes and budgets
def test_a_request_body_past_max_body_kib_is_refused_before_it_is_read_whole(served):
    with client_for(served, max_body_kib=2) as client:
        big = json.dumps({**HUMANS, "pad": "x" * 3000})
        r = client.post("/api/games", content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and "at most 2 KiB" in r.json()["error"]

        def chunks():  # no Content-Length: the body is counted as it comes
            yield big[:1500].encode()
            yield big[1500:].encode()

        r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
        assert r.status_code == 413
        assert client.app.state.server.sessions == {}
        assert client.post("/api/games", json=HUMANS).status_code == 200


def test_a_replay_file_past_max_replay_kib_is_refused(served, journal):
    (served / "runs" / "big.games.jsonl").write_text(journal, encoding="utf-8")
    kib = len(journal.encode()) // 1024
    with client_for(served, max_replay_kib=kib) as client:
        for body in [{"path": "runs/big.games.jsonl"}, {"text": journal}]:
            r = client.post("/api/replays", json=body)
            assert r.status_code == 413 and f"at most {kib} KiB" in r.json()["error"] \
                and "--max-replay-kib" in r.json()["error"], r.text
    with client_for(served, max_replay_kib=kib + 1) as client:
        for body in [{"path": "runs/big.games.jsonl"}, {"text": journal}]:
            assert client.post("/api/replays", json=body).status_code == 200


@pytest.fixture()
def built(monkeypatch) -> list[str]:
    """The specs the app asked make_agent for; make_agent builds nothing (a 400 "not built in this test")."""
    specs: list[str] = []

    def stub(spec, game):
        specs.append(spec)
        raise ValueError("not built in this test")

    monkeypatch.setattr(web_app, "make_agent", stub)
    return specs


def test_an_agent_spec_may_not_ask_for_more_search_than_max_simulations(served, built):
    with client_for(served, max_simulations=1000) as client:
        for spec in ["mcts:1000000", "mcts:1001:win", "zoo:achten:5000", "net:achten:5000", "belief:2000",
                     "rollout:4000:m=1", "cfr:100000:external"]:
            r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
            assert r.status_code == 400 and "at most 1000" in r.json()["error"] \
                and "--max-simulations" in r.json()["error"] and "seat 1" in r.json()["error"], (spec, r.text)
        assert built == []
        for spec in ["mcts:1000", "zoo:achten:8", "net:achten:8", "heuristic"]:
            r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
            assert "not built in this test" in r.json()["error"], (spec, r.text)
        r = client.post("/api/games", json={"variant": "octrix-round-small", "seats": ["human", "cfr:200:external"]})
        assert "not built in this test" in r.json()["error"], r.text  # the app trains CFR on small configs only
        assert built == ["mcts:1000", "zoo:achten:8", "net:achten:8", "heuristic", "cfr:200:external"]


def test_a_limit_that_is_not_positive_is_refused_naming_it():
    for field in ["max_games", "idle_seconds", "max_simulations", "max_body_kib", "max_replay_kib", "max_moves"]:
        with pytest.raises(ValueError, match=field):
            Limits(**{field: 0})
    with pytest.raises(ValueError, match="max_games"):
        serve.ServeConfig(max_games=-1)


# ---------------------------------------------------------------------- off the event loop
def _blocker(entered: threading.Event, release: threading.Event, result=None):
    def block(*args, **kwargs):
        entered.set()
        release.wait(5)
        if callable(result):
            return result(*args, **kwargs)
        raise ValueError("released")
    return block


@pytest.mark.parametrize("busy", ["new game (an agent built)", "replay loaded", "game view (a picture drawn)",
                                  "move (the rules stepped)"])
def test_a_request_is_answered_while_another_does_the_rules_work(served, monkeypatch, busy):
    entered, release = threading.Event(), threading.Event()
    with client_for(served) as client:
        game = client.post("/api/games", json=HUMANS).json()
        seat, token = game["to_act"], game["tokens"][str(game["to_act"])]
        legal = client.get(f"/api/games/{game['id']}?seat={seat}&token={token}").json()["legal"]
        if busy.startswith("new game"):
            monkeypatch.setattr(web_app, "make_agent", _blocker(entered, release))
            slow = lambda: client.post("/api/games",  # noqa: E731
                                       json={"variant": "achten", "seats": ["human", "random"]})
        elif busy.startswith("replay"):
            monkeypatch.setattr(web_app, "load_records", _blocker(entered, release, web_app.load_records))
            slow = lambda: client.post("/api/replays", json={"text": "{}"})  # noqa: E731
        elif busy.startswith("game view"):
            monkeypatch.setattr(web_app, "seat_view", _blocker(entered, release, web_app.seat_view))
            slow = lambda: client.get(f"/api/games/{game['id']}?seat={seat}&token={token}")  # noqa: E731
        else:
            session = client.app.state.server.sessions[game["id"]]
            monkeypatch.setattr(session, "apply", _blocker(entered, release, session.apply))
            slow = lambda: client.post(f"/api/games/{game['id']}/move",  # noqa: E731
                                       json={"seat": seat, "action": legal[0]["action"], "token": token})
        worker = threading.Thread(target=slow, daemon=True)
        worker.start()
        try:
            assert entered.wait(10), "the slow handler did not start"
            r = client.get("/api/catalogue")
            busy_meanwhile = worker.is_alive()  # the slow request still waits on its release
        finally:
            release.set()
            worker.join(10)
        assert r.status_code == 200 and busy_meanwhile, f"/api/catalogue waited for the {busy}"


# ---------------------------------------------------------------------- Host names
def test_with_host_0_0_0_0_only_this_machine_s_names_and_allowed_hosts_are_answered(served, monkeypatch):
    apps = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: apps.append(app))
    serve.main(serve.ServeConfig(host="0.0.0.0", root=str(served), allowed_host=("games.lan", "10.0.0.7")))
    with TestClient(apps[0], base_url="http://127.0.0.1") as client:
        for host in ["127.0.0.1:8088", "localhost", socket.gethostname(), "games.lan:8088", "10.0.0.7"]:
            assert client.get("/api/catalogue", headers={"Host": host}).status_code == 200, host
        for host in ["attacker.example", "games.lan.attacker.example", "0.0.0.0", "10.0.0.8"]:
            assert client.get("/api/catalogue", headers={"Host": host}).status_code == 400, host


def test_allowed_host_is_repeatable_and_checked():
    args = ["--allowed-host", "a.lan", "--allowed-host", "b.lan"]
    for parse in (parse_config, parse_with_stdlib):
        assert parse(serve.ServeConfig, args).allowed_host == ("a.lan", "b.lan")
    for bad in ["", "http://a.lan", "a.lan:80", "a lan"]:
        with pytest.raises(ValueError, match="allowed_host"):
            serve.ServeConfig(allowed_host=(bad,))


# ---------------------------------------------------------------------- replay files
def test_a_replay_opens_runs_and_the_leaderboard_journals_and_nothing_else(served, journal, tmp_path_factory):
    board = served / "docs" / "leaderboard"
    (board / "old").mkdir(parents=True)
    outside = tmp_path_factory.mktemp("elsewhere") / "x.games.jsonl"
    for path in [board / "octrix.games.jsonl", board / "old" / "octrix.games.jsonl", outside,
                 served / "runs" / "mine.jsonl"]:
        path.write_text(journal, encoding="utf-8")
    (board / "octrix.json").write_text("{}")  # a leaderboard's table: not a replay
    (board / "link.games.jsonl").symlink_to(outside)  # a link out of the folder
    (served / "secret.games.jsonl").write_text("{}")
    with client_for(served) as client:
        assert client.get("/api/catalogue").json()["replay_files"] == ["docs/leaderboard/link.games.jsonl",
                                                                       "docs/leaderboard/octrix.games.jsonl"]
        for path in ["docs/leaderboard/octrix.games.jsonl", "runs/mine.jsonl"]:
            opened = client.post("/api/replays", json={"path": path, "index": 1})
            assert opened.status_code == 200 and opened.json()["games"] == 2, opened.text
            last = client.get(f"/api/replays/{opened.json()['id']}?step={opened.json()['length']}").json()
            assert last["over"]
        # a journal written before journals kept records is named as one
        header = journal.splitlines()[0]
        (board / "old.games.jsonl").write_text(header + '\n{"key": 0, "returns": [1, -1], "length": 20}\n')
        r = client.post("/api/replays", json={"path": "docs/leaderboard/old.games.jsonl"})
        assert r.status_code == 400 and "1 games kept without their records" in r.json()["error"], r.text
        for path in ["docs/leaderboard/octrix.json", "docs/leaderboard/old/octrix.games.jsonl",
                     "docs/leaderboard/link.games.jsonl", "docs/leaderboard/../secret.games.jsonl",
                     "secret.games.jsonl", str(outside), "docs/leaderboard/../../secret.games.jsonl"]:
            r = client.post("/api/replays", json={"path": path})
            assert r.status_code == 403 and "outside the folders" in r.json()["error"], (path, r.text)


def test_a_search_budget_is_read_as_the_agents_read_it_and_must_be_plain_digits(served, built):
    with client_for(served, max_simulations=100) as client:
        for spec in ["mcts:+1000", "mcts:1_000", "rollout:+5000", "belief:1_000", "mcts: 50", "mcts:-5",
                     "mcts:\u0665\u0660", "zoo:achten:+8", "cfr:+10:external"]:
            r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
            assert r.status_code == 400 and "plain digits" in r.json()["error"] \
                and "seat 1" in r.json()["error"], (spec, r.text)
        for spec in ["mcts:0101", "belief:" + "9" * 5000]:
            r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
            assert r.status_code == 400 and "at most 100" in r.json()["error"], (spec, r.text)
        assert built == []
        for spec in ["mcts:0100", "rollout:100:m=0.5", "mcts:100:c=1.5"]:
            r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
            assert "not built in this test" in r.json()["error"], (spec, r.text)
        assert built == ["mcts:0100", "rollout:100:m=0.5", "mcts:100:c=1.5"]


def test_with_host_0_0_0_0_the_printed_address_is_one_the_app_answers(served, monkeypatch, capsys):
    apps = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: apps.append(app))
    serve.main(serve.ServeConfig(host="0.0.0.0", port=9001, root=str(served)))
    printed = capsys.readouterr().out
    assert "http://127.0.0.1:9001/" in printed and "0.0.0.0:" not in printed, printed
    assert f"http://{socket.gethostname()}:9001/" in printed, printed
    with TestClient(apps[0], base_url="http://127.0.0.1") as client:
        for url in re.findall(r"http://[^ /]+/", printed):
            assert client.get(url + "api/catalogue").status_code == 200, url
        r = client.get("/api/catalogue", headers={"Host": "games.lan:9001"})
        assert r.status_code == 400 and "--allowed-host games.lan" in r.json()["error"], r.text


def test_a_limit_that_counts_must_be_a_whole_number():
    for field in ["max_games", "max_simulations", "max_body_kib", "max_replay_kib", "max_moves"]:
        for bad in [1.5, 2.0, "3", True]:
            with pytest.raises(ValueError, match=f"{field}=.*whole number"):
                Limits(**{field: bad})
    assert Limits(idle_seconds=0.5, max_games=3).idle_seconds == 0.5


def test_the_games_built_are_capped_least_recently_used_first_and_built_outside_the_lock(served, monkeypatch):
    built: list[dict] = []
    entered, release = threading.Event(), threading.Event()

    def stub(variant, **fields):  # stands for make_game: a new object per build
        built.append(fields)
        if fields.get("slow"):
            entered.set()
            release.wait(10)
        return object()

    monkeypatch.setattr(web_app, "make_game", stub)
    server = web_app.Server(served)
    games = [server.game("achten", None, {"target": i}) for i in range(web_app.GAMES_KEPT)]
    assert server.game("achten", None, {"target": 0}) is games[0] and len(built) == web_app.GAMES_KEPT
    server.game("achten", None, {"target": -1})  # past the cap: the least recently used (target 1) goes
    assert server.game("achten", None, {"target": 0}) is games[0]
    assert server.game("achten", None, {"target": 2}) is games[2] and len(built) == web_app.GAMES_KEPT + 1
    assert server.game("achten", None, {"target": 1}) is not games[1] and len(built) == web_app.GAMES_KEPT + 2
    assert len(server._games) == web_app.GAMES_KEPT
    slow = threading.Thread(target=server.game, args=("achten", None, {"slow": 1}))
    slow.start()
    try:
        assert entered.wait(10)
        other = threading.Thread(target=server.game, args=("achten", None, {"target": 99}))
        other.start()
        other.join(5)
        assert not other.is_alive(), "a slow build held up another game's"
    finally:
        release.set()
        slow.join()


# ---------------------------------------------------------------------- CFR trained in a request
def test_cfr_is_trained_in_a_request_only_on_the_small_configs_elsewhere_it_is_a_checkpoint(served, built):
    # MCCFR on a full game takes minutes and gigabytes (cfr:2000 on Octa: 16 GB in 3 minutes) in the worker
    # thread of the request: refused with the way to play CFR there, before any agent is built
    with client_for(served) as client:
        for variant, config, spec in [("achten-dealer-pays", {}, "cfr:2000"), ("achten", {}, "cfr:200:external"),
                                      ("achten", {}, "cfr"), ("octrix-round-small", {"hand_size": 3}, "cfr:100"),
                                      ("octrix-round", {}, "cfr:100")]:
            r = client.post("/api/games", json={"variant": variant, "config": config, "seats": ["human", spec]})
            error = r.json()["error"]
            assert r.status_code == 400 and "seat 1" in error and "train-cfr" in error \
                and "cfr:runs/mccfr/<run>/checkpoint.npz" in error and "octrix-round-small" in error, (spec, r.text)
            if config:  # the command to train it gives the game asked for, its fields too
                assert "train-cfr --game octrix-round-small --config hand_size=3 " in error, error
        assert built == []
        # octrix-round-small at its own config trains in seconds (by its name, or octrix-round with its fields);
        # a checkpoint under runs/ is played anywhere
        for variant, config, spec in [("octrix-round-small", {}, "cfr:200"),
                                      ("octrix-round-small", {}, "cfr:200:external"),
                                      ("octrix-round", {"ranks": 2, "hand_size": 2}, "cfr")]:
            r = client.post("/api/games", json={"variant": variant, "config": config, "seats": ["human", spec]})
            assert "not built in this test" in r.json()["error"], (spec, r.text)
        (served / "runs" / "checkpoint.npz").write_bytes(b"not a checkpoint")
        r = client.post("/api/games", json={"variant": "achten", "seats": ["human", "cfr:runs/checkpoint.npz"]})
        assert "not built in this test" in r.json()["error"], r.text
        assert built == ["cfr:200", "cfr:200:external", "cfr", f"cfr:{served.resolve() / 'runs' / 'checkpoint.npz'}"]


def test_the_oracle_plays_here_only_with_a_hand_it_solves_in_seconds(served, built):
    # the exact round solver is about 8 times slower a card in hand and counts no simulations, so
    # --max-simulations did not bound it: at the seed's 8 cards a request's bot thought for minutes
    with client_for(served) as client:
        for variant, config in [("octrix-round", {}), ("octrix", {}), ("octrix-round", {"hand_size": 7})]:
            r = client.post("/api/games", json={"variant": variant, "config": config, "seats": ["human", "oracle"]})
            error = r.json()["error"]
            assert r.status_code == 400 and "seat 1: agent 'oracle'" in error and "at most 6 cards" in error \
                and "octrix-round-small" in error, (variant, r.text)
        assert built == []
        for variant, config in [("octrix-round-small", {}), ("octrix-round", {"hand_size": 6})]:
            r = client.post("/api/games", json={"variant": variant, "config": config, "seats": ["human", "oracle"]})
            assert "not built in this test" in r.json()["error"], (variant, r.text)
        assert built == ["oracle", "oracle"]


# ---------------------------------------------------------------------- abandoned games dropped
@pytest.fixture()
def held(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The bots decide only when the test sets the first event (``go``); the second (``asked``) is set
    when a bot is asked to move."""
    go, asked = threading.Event(), threading.Event()
    decide = web_app.decide

    def hold(agent, turn):
        asked.set()
        assert go.wait(10)
        return decide(agent, turn)

    monkeypatch.setattr(web_app, "decide", hold)
    return go, asked


def _dropped_and_stopped(client: TestClient, gid: str, go: threading.Event, drop) -> None:
    """Abandon game ``gid`` (its bot thinking), ``drop()`` until it is dropped, then check its bots stop
    without playing the pending move."""
    server = client.app.state.server
    session = server.sessions[gid]
    assert session.worker.is_alive()
    moves = len(session.actions)
    server.clock.now += 6
    end = time.time() + 10
    while gid in server.sessions:
        assert time.time() < end, "the abandoned game was not dropped"
        drop()
        time.sleep(0.02)
    assert session.stopped
    go.set()  # the bot's move comes back: the worker sees the game dropped and stops without playing it
    session.worker.join(10)
    assert not session.worker.is_alive() and len(session.actions) == moves and not session.thinking_now


def test_an_abandoned_game_is_dropped_by_the_next_request_without_a_new_game(served, held):
    go, asked = held
    client = client_for(served, idle_seconds=5)  # not entered: no periodic look, only the requests'
    gid = client.post("/api/games", json={"variant": "octrix", "seats": ["random", "random"], "seed": 2}).json()["id"]
    assert asked.wait(10)
    _dropped_and_stopped(client, gid, go, lambda: client.get("/api/replays/another"))  # any game or replay
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 404 and "nobody has asked" in r.json()["error"]


def test_an_abandoned_game_is_dropped_when_no_request_comes(served, held):
    go, asked = held
    with client_for(served, idle_seconds=1) as client:  # the server looks every half second
        gid = client.post("/api/games", json={"variant": "octrix", "seats": ["random", "random"],
                                              "seed": 2}).json()["id"]
        assert asked.wait(10)
        _dropped_and_stopped(client, gid, go, lambda: None)


@pytest.fixture()
def slow(monkeypatch) -> tuple[threading.Event, list[float]]:
    """Every bot thinks for 30 s in Python before its move (a loop of small steps, with an ``except
    Exception`` of its own, as an agent's fallback may have); the event (``asked``) is set when a bot
    starts, and the list gets the time its loop ended, returning or raising."""
    asked, ended = threading.Event(), []
    decide = web_app.decide

    def think(agent, turn):
        asked.set()
        end = time.monotonic() + 30
        try:
            while time.monotonic() < end:
                try:
                    sum(range(1000))
                except Exception:  # the agent's own fallback does not take the stop for a failure
                    pass
        finally:
            ended.append(time.monotonic())
        return decide(agent, turn)

    monkeypatch.setattr(web_app, "decide", think)
    return asked, ended


def _stopped_at_once(session, moves: int) -> None:
    """The game's worker ends within 5 s (its bot's 30 s search stopped), playing no move, leaving no thread."""
    start = time.monotonic()
    session.worker.join(5)
    assert not session.worker.is_alive(), "the dropped game's bot thinks on"
    assert time.monotonic() - start < 5 and session.stopped and session.deciding is None
    assert len(session.actions) == moves and not session.thinking_now and session.error is None
    assert not [t for t in threading.enumerate() if t.name == f"bots-{session.id}"]


def test_a_dropped_game_s_bot_stops_in_its_search_and_its_move_is_never_played(served, slow):
    asked, ended = slow
    client = client_for(served, idle_seconds=5)  # not entered: no periodic look, only the requests'
    server = client.app.state.server
    gid = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"], "seed": 2}).json()["id"]
    assert asked.wait(10)
    session = server.sessions[gid]
    moves = len(session.actions)
    assert session.thinking_now
    server.clock.now += 6
    r = client.get(f"/api/games/{gid}")  # the request that drops the abandoned game
    assert r.status_code == 404 and "nobody has asked" in r.json()["error"]
    _stopped_at_once(session, moves)
    assert len(ended) == 1  # the search ended there, not when its 30 s were up


def test_the_bots_stop_thinking_when_the_server_shuts_down(served, slow):
    asked, _ = slow
    with client_for(served) as client:
        gid = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"],
                                              "seed": 2}).json()["id"]
        assert asked.wait(10)
        session = client.app.state.server.sessions[gid]
        moves = len(session.actions)
    assert not client.app.state.server.sessions  # every game dropped
    _stopped_at_once(session, moves)


def test_a_real_bot_searching_in_python_stops_when_its_game_is_dropped_and_the_game_plays_on_elsewhere(served):
    # belief:20000 rolls out 20000 worlds per move in Python, about 10 s (and 15 s with its first compile)
    with client_for(served, idle_seconds=5) as client:
        server = client.app.state.server
        gid = client.post("/api/games", json={"variant": "achten", "seats": ["belief:20000", "belief:20000"],
                                              "seed": 2}).json()["id"]
        session = server.sessions[gid]
        end = time.time() + 30
        while not session.thinking_now:
            assert time.time() < end and session.error is None, "the bot did not start thinking"
            time.sleep(0.01)
        time.sleep(1.0)
        moves = len(session.actions)
        server.clock.now += 6
        server.sweep()
        _stopped_at_once(session, moves)
        # the game built once for both (and the bot's compiled kernels) serve a new game as before
        other = client.post("/api/games", json={"variant": "achten", "seats": ["belief:40", "random"],
                                                "seed": 3}).json()["id"]
        kept = server.sessions[other]
        end = time.time() + 120
        while not kept.thinking:
            assert time.time() < end and kept.error is None and not kept.over, kept.error
            time.sleep(0.05)
        assert kept.error is None


# ---------------------------------------------------------------------- uploads
def test_a_replay_file_under_max_replay_kib_uploads_whatever_its_json_encoding_adds(served, journal):
    # a journal with a line of quotes (a row that is no record): JSON doubles each quote and backslash of the
    # file, so the upload's body is far past the file's size plus max_body_kib
    text = journal + json.dumps(["\"" * 100_000]) + "\n"
    kib = -(-len(text.encode()) // 1024)
    assert len(json.dumps({"text": text})) > (kib + 64) * 1024
    with client_for(served, max_replay_kib=kib) as client:
        r = client.post("/api/replays", json={"text": text})
        assert r.status_code == 200 and r.json()["games"] == 2, r.text[:300]
    with client_for(served, max_replay_kib=kib - 1) as client:  # the file's own limit: on its text
        r = client.post("/api/replays", json={"text": text})
        assert r.status_code == 413 and f"at most {kib - 1} KiB" in r.json()["error"], r.text[:300]


def test_a_replay_file_of_control_characters_uploads_too_and_a_number_past_int_s_digits_is_no_server_error(
        served, journal):
    # JSON writes a control character (NULs a crash left at a journal's end) as six bytes: the body was refused;
    # an integer of more than 4300 digits raised a plain ValueError, a 500
    text = journal + "\0" * 20_000
    with client_for(served, max_replay_kib=-(-len(text.encode()) // 1024)) as client:
        r = client.post("/api/replays", json={"text": text})
        assert r.status_code == 200 and r.json()["games"] == 2, r.text[:300]
        big = journal + json.dumps({"key": 9, "returns": [1], "record": {"actions": [1]}})[:-2] + "9" * 5000 + "}}\n"
        r = client.post("/api/replays", json={"text": big})
        assert r.status_code == 200 and r.json()["games"] == 2, r.text[:300]  # the row skipped, as a line cut short
        r = client.post("/api/replays", json={"text": "9" * 5000})
        assert r.status_code == 400, r.text[:300]


def test_a_default_search_budget_past_max_simulations_is_refused_and_a_refused_game_drops_nothing(served):
    # a spec naming no number got its default (mcts: 1000 simulations, belief 32 worlds) whatever the limit; and
    # a request refused once room was made had already dropped a finished game
    with client_for(served, max_simulations=20, max_games=1) as client:
        bots = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"], "seed": 1}).json()
        wait_over(client, bots["id"])
        for spec, spent in (("mcts", 1000), ("belief", 32), ("cfr", 1000)):
            r = client.post("/api/games", json={"variant": "achten" if spec != "cfr" else "octrix-round-small",
                                                "seats": ["human", spec]})
            assert r.status_code == 400 and "at most 20" in r.json()["error"], (spec, r.text)
            assert spec == "cfr" or f"searches {spent} simulations or worlds a decision by default" in r.json()["error"]
        assert client.get(f"/api/games/{bots['id']}").status_code == 200  # still kept
        assert client.post("/api/games", json={"variant": "achten", "seats": ["human", "mcts:20"]}).status_code == 200
        assert client.get(f"/api/games/{bots['id']}").status_code == 404  # dropped for the game kept
    with client_for(served, max_simulations=20) as client:  # a spec naming its budget is checked by that number
        r = client.post("/api/games", json={"variant": "achten-dealer-pays",  # (its believed worlds are its card's)
                                            "seats": ["human", "zoo:achten-dealer-pays:8"]})
        assert r.status_code == 200, r.text


def test_models_under_a_linked_runs_folder_play_and_a_loop_of_links_is_refused(tmp_path):
    from octagames.agents.learn.ppo import ActorCritic, save_policy
    from octagames.core import Game

    real, served = tmp_path / "real", tmp_path / "served"
    real.mkdir()
    served.mkdir()
    (served / "runs").symlink_to(real)  # replays opened from it; its models were refused
    g = Game("achten")
    save_policy(ActorCritic(g.observation_size, g.num_actions, (8,)), real / "policy.pt", g)
    (real / "loop1").symlink_to(real / "loop2")
    (real / "loop2").symlink_to(real / "loop1")
    (served / "docs" / "leaderboard").mkdir(parents=True)
    (served / "docs" / "leaderboard" / "bad\udcff.games.jsonl").write_text("")  # a name of other bytes than UTF-8
    with client_for(served) as client:
        r = client.post("/api/games", json={"variant": "achten", "seats": ["human", "ppo:runs/policy.pt"]})
        assert r.status_code == 200, r.text
        for body, where in (({"path": "runs/loop1"}, "/api/replays"), ({"path": "runs/loop1/x.json"}, "/api/replays"),
                            ({"variant": "achten", "seats": ["human", "ppo:runs/loop1"]}, "/api/games")):
            r = client.post(where, json=body)
            assert 400 <= r.status_code < 500, (body, r.status_code, r.text)
        assert client.get("/api/catalogue").status_code == 200  # the name that cannot be sent is left out


def test_serve_refuses_a_root_that_is_no_folder(tmp_path):
    with pytest.raises(ValueError, match=r"root='.*nowhere' is not valid: no such folder"):
        serve.ServeConfig(root=str(tmp_path / "nowhere"))


def test_a_game_stops_at_max_moves_and_a_longer_replay_is_refused(served):
    # every position of a game is kept: a config of long games (an Octrix match to 10,000) let one request of
    # bots, or one uploaded record, keep hundreds of MiB
    with client_for(served, max_moves=60) as client:
        gid = client.post("/api/games", json={"variant": "octa-en", "seats": ["random", "random"],
                                              "seed": 3}).json()["id"]
        end = time.time() + 30
        while (view := client.get(f"/api/games/{gid}").json())["error"] is None:  # stopped, not over by the rules
            assert time.time() < end and not view["over"], "the bots did not stop"
            time.sleep(0.01)
        assert "stopped at this server's limit of 60 moves" in view["error"] and not view["thinking_now"]
        rec = client.get(f"/api/games/{gid}/record").json()
        assert rec["length"] == len(rec["actions"]) == 60
        human = client.post("/api/games", json={"variant": "octa-en", "seats": ["human", "random"]}).json()
        token = human["tokens"]["0"]
        while "error" not in (v := client.get(f"/api/games/{human['id']}?seat=0&token={token}").json()) or \
                v["error"] is None:  # the person plays its first legal move until the game stops
            assert not v["over"]
            r = client.post(f"/api/games/{human['id']}/move", json={"seat": 0, "action": v["legal"][0]["action"],
                                                                   "token": token}) if v["legal"] else None
            assert r is None or r.status_code == 200, r.text
            time.sleep(0.01)
        assert v["legal"] == []  # no move is offered once the game stopped
        r = client.post(f"/api/games/{human['id']}/move", json={"seat": 0, "action": 0, "token": token})
        assert r.status_code == 409 and "limit of 60 moves" in r.json()["error"]
        # stopped is over: the game opens all-seeing and its record is saved (no returns), as a finished one's
        assert client.get(f"/api/games/{human['id']}").status_code == 200
        assert client.get(f"/api/games/{human['id']}/record").json()["returns"] is None
    with client_for(served, max_moves=59) as client:
        r = client.post("/api/replays", json={"text": json.dumps(rec), "name": "long.json"})
        assert r.status_code == 413 and "holds 60 actions; a replay may hold at most 59" in r.json()["error"], r.text
    with client_for(served, max_moves=60) as client:
        assert client.post("/api/replays", json={"text": json.dumps(rec), "name": "long.json"}).status_code == 200
