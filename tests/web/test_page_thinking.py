"""The web app shows a bot's thinking in the records' format (``docs/records.md``), with the moves' names,
in a game and in a replay of its record; a human seat sees none while hidden cards are in play."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")
pytest.importorskip("httpx", reason="the web extra: pip install 'octagames[web]'")

from octagames import records  # noqa: E402
from octagames.testing import replay  # noqa: E402
from octagames.core import make_game  # noqa: E402


def until(client, url: str, done, timeout: float = 120.0) -> dict:
    end = time.time() + timeout
    while True:
        view = client.get(url).json()
        assert view.get("error") is None, view["error"]
        if done(view):
            return view
        assert time.time() < end, "the bots did not move"
        time.sleep(0.01)


def test_a_bots_thinking_is_shown_in_the_records_format_in_the_game_and_its_replay(client):
    created = client.post("/api/games", json={"variant": "achten", "seats": ["mcts:50", "heuristic"],
                                              "seed": 3}).json()
    view = until(client, f"/api/games/{created['id']}", lambda v: v["over"])
    rec = client.get(f"/api/games/{created['id']}/record").json()
    record = records.GameRecord.from_dict(rec)
    records.check(record)
    game = make_game("achten")
    states = replay(game, rec["seed"], rec["actions"])
    mcts_moves = [k for k, p in enumerate(rec["players"])
                  if p == 0 and len(game.legal_actions(states[k], 0)) > 1]
    assert mcts_moves and sorted(int(k) for k in view["thinking"]) == mcts_moves  # not the heuristic
    for k in mcts_moves:
        shown, kept = view["thinking"][str(k)], rec["thinking"][str(k)]
        legal = {str(a) for a in game.legal_actions(states[k], 0)}
        assert {key: v for key, v in shown.items() if key != "names"} == kept  # the one format
        assert set(shown["policy"]) <= legal and str(rec["actions"][k]) in shown["policy"]
        assert 0.5 < sum(shown["policy"].values()) <= 1.0 + 1e-3 and len(shown["policy"]) <= 9
        assert shown["visits"] == 50 and shown["value"] == shown["values"][str(rec["actions"][k])]
        assert shown["names"] == {a: game.action_to_string(states[k], int(a)) for a in shown["policy"]}
    (client.root / "runs" / "game.json").write_text(json.dumps(rec))
    opened = client.post("/api/replays", json={"path": "runs/game.json"}).json()
    end = client.get(f"/api/replays/{opened['id']}?step={rec['length']}").json()
    assert end["thinking"] == view["thinking"]
    first = mcts_moves[0]
    before = client.get(f"/api/replays/{opened['id']}?step={first}").json()  # not yet played
    after = client.get(f"/api/replays/{opened['id']}?step={first + 1}").json()
    assert before["thinking"] == {} and list(after["thinking"]) == [str(first)]


def test_a_human_seat_sees_a_bots_thinking_only_once_a_game_of_hidden_cards_is_over(client):
    created = client.post("/api/games", json={"variant": "achten", "seats": ["human", "mcts:20"]}).json()
    gid, token = created["id"], created["tokens"]["0"]
    url = f"/api/games/{gid}?seat=0&token={token}"
    rng = np.random.default_rng(0)
    view = until(client, url, lambda v: v["over"] or v["legal"])
    while not view["over"]:
        assert view["thinking"] == {}  # the bot's search is shaped by its own hand
        action = int(rng.choice([m["action"] for m in view["legal"]]))
        client.post(f"/api/games/{gid}/move", json={"seat": 0, "action": action, "token": token})
        view = until(client, url, lambda v: v["over"] or v["legal"])
    rec = client.get(f"/api/games/{gid}/record").json()
    game = make_game("achten")
    states = replay(game, rec["seed"], rec["actions"])
    searched = [str(k) for k, p in enumerate(rec["players"])
                if p == 1 and len(game.legal_actions(states[k], 1)) > 1]
    assert list(view["thinking"]) == list(rec.get("thinking", {})) == searched  # all of it, now it is over
