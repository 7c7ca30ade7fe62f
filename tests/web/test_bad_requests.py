"""Requests the web app must refuse in words, never with a server error: JSON nested past any use, numbers
that are no whole numbers, a token or path that is no plain text, strings no UTF-8 encodes; every error
(an unknown path or method included) answered as ``{"error": ...}``; the seed of a game with a person."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")
pytest.importorskip("httpx", reason="the web extra: pip install 'octagames[web]'")

from starlette.testclient import TestClient  # noqa: E402

from octagames.web.app import MAX_SEED  # noqa: E402

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def record(client) -> dict:
    """The record of a finished game of bots."""
    gid = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"], "seed": 5}).json()["id"]
    end = time.time() + 30
    while not client.get(f"/api/games/{gid}").json()["over"]:
        assert time.time() < end, "the bots did not finish"
        time.sleep(0.01)
    return client.get(f"/api/games/{gid}/record").json()


def human_game(client) -> tuple[str, int, str, list[int]]:
    """A new game of two people: its id, the seat to act, that seat's token and its legal actions."""
    view = client.post("/api/games", json={"variant": "achten", "seats": ["human", "human"]}).json()
    seat = view["to_act"]
    token = view["tokens"][str(seat)]
    legal = client.get(f"/api/games/{view['id']}?seat={seat}&token={token}").json()["legal"]
    return view["id"], seat, token, [m["action"] for m in legal]


def test_json_nested_past_any_use_is_refused_not_a_recursion_error(client):
    deep = "[" * 20_000 + "]" * 20_000
    for url in ["/api/games", "/api/replays"]:
        r = client.post(url, content=deep, headers=JSON)
        assert r.status_code == 400 and "JSON object" in r.json()["error"], (url, r.text)
    # within the parser's reach but deeper than any request: refused naming where
    config = {"target": json.loads("[" * 200 + "]" * 200)}
    r = client.post("/api/games", json={"variant": "achten", "seats": ["human", "human"], "config": config})
    assert r.status_code == 400 and "deep (at config.target[0][0]" in r.json()["error"], r.text
    # an uploaded file nested too deep for the parser holds no record
    r = client.post("/api/replays", json={"text": deep})
    assert r.status_code == 400 and "holds no game record" in r.json()["error"], r.text


def test_a_count_that_is_not_a_whole_number_is_refused_not_truncated(client):
    for body in ['{"variant": "achten", "players": Infinity, "seats": ["human", "human"]}',
                 '{"variant": "achten", "players": NaN, "seats": ["human", "human"]}',
                 '{"variant": "achten", "players": 1e400, "seats": ["human", "human"]}']:
        r = client.post("/api/games", content=body, headers=JSON)
        assert r.status_code == 400 and ("is not a JSON number" in r.json()["error"]
                                         or "past the range" in r.json()["error"]), (body, r.text)
    for players in [2.9, 2.0, "2", True]:
        r = client.post("/api/games", json={"variant": "achten", "players": players, "seats": ["human", "human"]})
        assert r.status_code == 400 and "players must be a whole number" in r.json()["error"], (players, r.text)
    gid, seat, token, legal = human_game(client)
    before = client.get(f"/api/games/{gid}?seat={seat}&token={token}").json()["step"]
    for field in ["seat", "action"]:
        for value in ["Infinity", "-Infinity", "NaN"]:
            move = {"seat": seat, "action": legal[0], "token": token}
            body = json.dumps(move).replace(json.dumps({field: move[field]})[1:-1], f'"{field}": {value}')
            assert value in body
            r = client.post(f"/api/games/{gid}/move", content=body, headers=JSON)
            assert r.status_code == 400 and "JSON number" in r.json()["error"], (field, value, r.text)
        for value in [legal[0] + 0.9, float(legal[0]), str(legal[0]), None]:
            move = {"seat": seat, "action": legal[0], "token": token, field: value}
            r = client.post(f"/api/games/{gid}/move", json=move)
            assert r.status_code == 400 and f"{field} must be a whole number" in r.json()["error"], (field, r.text)
    view = client.get(f"/api/games/{gid}?seat={seat}&token={token}").json()
    assert view["step"] == before and view["legal"], "a refused move was played"
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": legal[0], "token": token})
    assert r.status_code == 200 and r.json()["step"] > before


def test_a_token_with_a_character_past_ascii_is_refused_as_a_wrong_token(client):
    gid, seat, token, legal = human_game(client)
    for bad in ["%C3%A9", "%F0%9F%8E%B2", token[:-1] + "%C3%A9"]:
        r = client.get(f"/api/games/{gid}?seat={seat}&token={bad}")
        assert r.status_code == 403 and "token" in r.json()["error"], (bad, r.text)
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": legal[0], "token": "\u00e9"})
    assert r.status_code == 403 and "token" in r.json()["error"], r.text


def test_a_path_too_long_for_the_system_is_refused_as_a_missing_file(client):
    long = "runs/" + "a" * 300
    for spec in [f"ppo:{long}", f"az:{long}:8", f"cfr:{long}", f"ppo:{long}/x.pt"]:
        r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
        assert r.status_code == 404 and "no file" in r.json()["error"] and "seat 1" in r.json()["error"], (spec, r.text)
    for path in [long, long + "/x.json"]:
        r = client.post("/api/replays", json={"path": path})
        assert r.status_code == 404 and "no file" in r.json()["error"], r.text


def test_a_lone_surrogate_is_refused_naming_its_field(client, record):
    # JSON's "\ud800" is no character: a reply that showed it could not be encoded
    for body, field in [({"text": json.dumps(record), "name": "a\ud800.json"}, "name"),
                        ({"text": json.dumps(record), "index": 0, "x": {"y": ["\udfff"]}}, "x.y[0]")]:
        r = client.post("/api/replays", content=json.dumps(body), headers=JSON)
        assert r.status_code == 400 and f"{field} holds a lone UTF-16 surrogate" in r.json()["error"], r.text
    r = client.post("/api/games", content=json.dumps({"variant": "achten", "seats": ["human", "mcts\ud83d"]}),
                    headers=JSON)
    assert r.status_code == 400 and "seats[1] holds a lone" in r.json()["error"], r.text
    # in the file: the record's agents
    bad = dict(record, agents=[record["agents"][0], "random\ud800"])
    r = client.post("/api/replays", json={"text": json.dumps(bad), "name": "mine.json"})
    assert r.status_code == 400 and "mine.json: game 0: agents[1] holds a lone" in r.json()["error"], r.text
    # a pair of surrogates is one character, and a record that names it opens
    good = dict(record, agents=[record["agents"][0], "\U0001f3b2 random"])
    r = client.post("/api/replays", content=json.dumps({"text": json.dumps(good), "name": "\U0001f3b2.json"}),
                    headers=JSON)
    assert r.status_code == 200 and r.json()["seats"][1] == "\U0001f3b2 random", r.text


def test_a_budget_in_digits_int_does_not_read_is_refused_in_words_not_a_server_error(client):
    # "²" is a digit to str.isdigit, not to int(); "٣" (\u0663) int() reads as 3: neither is plain digits
    for spec, words in (("cfr:²", "'²' is no number"), ("cfr:\u0663", "'\u0663' is read as the number 3"),
                        ("az:runs/model.pt:²", "'²' is no number"), ("zoo:achten:²", "'²' is no number"),
                        ("mcts:²:win", "'²' is no number")):
        r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
        error = r.json()["error"]
        assert r.status_code == 400 and words in error and "seat 1" in error, r.text
        assert "plain digits" in error, r.text


def test_every_error_is_answered_as_json(client, monkeypatch):
    for method, url, status in [("GET", "/api/nothing", 404), ("GET", "/nothing", 404),
                                ("GET", "/static/nothing.js", 404), ("GET", "/api/games", 405),
                                ("POST", "/api/catalogue", 405), ("DELETE", "/api/replays", 405)]:
        r = client.request(method, url)
        assert r.status_code == status and r.headers["content-type"] == "application/json", (url, r.text)
        assert url in r.json()["error"], (url, r.text)
    # a failure of the server itself: a 500 in the same words (its log has the traceback)
    monkeypatch.setattr(client.app.state.server, "replay_files", lambda: 1 / 0)
    with TestClient(client.app, base_url="http://127.0.0.1", raise_server_exceptions=False) as plain:
        r = plain.get("/api/catalogue")
    assert r.status_code == 500 and "ZeroDivisionError" in r.json()["error"], r.text


def test_the_seed_of_a_game_with_a_person_takes_the_engine_s_whole_range(client):
    # a 31-bit seed tells the hidden deal to whoever tries 2**31 seeds against the cards they see
    seeds = []
    for _ in range(4):
        gid = client.post("/api/games", json={"variant": "achten", "seats": ["human", "random"]}).json()["id"]
        seeds.append(client.app.state.server.sessions[gid].seed)
    assert all(0 <= s <= MAX_SEED for s in seeds) and max(seeds) >= 2 ** 40, seeds


@pytest.fixture(scope="module")
def searched(client) -> dict:
    """The record of a finished game of an MCTS bot: its thinking keyed by move, each move's shares by action."""
    gid = client.post("/api/games", json={"variant": "achten", "seats": ["mcts:20", "random"], "seed": 3}).json()["id"]
    end = time.time() + 60
    while not client.get(f"/api/games/{gid}").json()["over"]:
        assert time.time() < end, "the bots did not finish"
        time.sleep(0.01)
    rec = client.get(f"/api/games/{gid}/record").json()
    assert len(rec["thinking"]) >= 2 and any(int(k) >= 10 for k in rec["thinking"])
    return rec


def spellings(key: str) -> list[str]:
    """Other spellings that int() reads as the number ``key``."""
    return ["0" + key, "+" + key, " " + key, key + "\n", key[0] + "_" + key[1:] if len(key) > 1 else "0_" + key,
            "".join(chr(0x660 + int(d)) for d in key)]  # Arabic-Indic digits


def test_a_replayed_record_s_thinking_keys_have_one_spelling_so_no_two_name_one_move(client, searched):
    thinking = searched["thinking"]
    key = max(thinking, key=int)
    for other in spellings(key):
        # a second spelling of the last move's key, with other thinking: one would silently replace the other
        bad = dict(searched, thinking={**thinking, other: {**thinking[key], "visits": 1}})
        r = client.post("/api/replays", json={"text": json.dumps(bad), "name": "mine.json"})
        assert r.status_code == 400, (other, r.text[:200])
        assert f"mine.json: game 0 is not a valid record: thinking: key {other!r}" in r.json()["error"], r.text
        assert "without a leading zero" in r.json()["error"]
    told = thinking[key]
    action = max(told["policy"], key=int)
    for other in spellings(action):
        for part in ["policy", "values"]:
            moves = {**told[part], other: 0.0}  # a second share (or value) of one action
            bad = dict(searched, thinking={**thinking, key: {**told, part: moves}})
            r = client.post("/api/replays", json={"text": json.dumps(bad), "name": "mine.json"})
            assert r.status_code == 400, (part, other, r.text[:200])
            assert f"thinking[{key}]: {part} key {other!r} is not an action id" in r.json()["error"], r.text
    # written in its one spelling, every move's thinking is shown as kept
    opened = client.post("/api/replays", json={"text": json.dumps(searched)}).json()
    end = client.get(f"/api/replays/{opened['id']}?step={searched['length']}").json()
    assert sorted(end["thinking"], key=int) == sorted(thinking, key=int)
    assert all({k: v for k, v in end["thinking"][m].items() if k != "names"} == thinking[m] for m in thinking)


def test_a_number_of_a_query_has_one_spelling(client, searched):
    rid = client.post("/api/replays", json={"text": json.dumps(searched)}).json()["id"]
    for query in ["seat=1", "seat=0", "seat=all", "seat=", "step=0", "step=3", "step=3&seat=1"]:
        assert client.get(f"/api/replays/{rid}?{query}").status_code == 200, query
    assert client.get(f"/api/replays/{rid}?step=3").json()["step"] == 3
    for name, value in [("seat", "01"), ("seat", "+1"), ("seat", "%201"), ("seat", "1_0"), ("seat", "-1"),
                        ("seat", "1.0"), ("step", "03"), ("step", "+3"), ("step", "0_3"), ("step", "-1"),
                        ("step", "%D9%A3"), ("step", "9" * 40), ("step", "three")]:
        r = client.get(f"/api/replays/{rid}?{name}={value}")
        assert r.status_code == 400 and r.json()["error"].startswith(f"{name} must be a"), (name, value, r.text)
        assert "plain digits" in r.json()["error"], r.text
    gid, seat, token, _ = human_game(client)
    assert client.get(f"/api/games/{gid}?seat={seat}&token={token}").status_code == 200
    for value in [f"0{seat}", f"+{seat}", f"{seat}_0"]:
        r = client.get(f"/api/games/{gid}?seat={value}&token={token}")
        assert r.status_code == 400 and "seat must be a seat number" in r.json()["error"], (value, r.text)
