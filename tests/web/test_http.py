"""The web app's HTTP API (``octagames.web.app``) with Starlette's TestClient: whole games of every
variant, what a human seat is shown (the resampling leak test), refusals, records and replays."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")
pytest.importorskip("httpx", reason="the web extra: pip install 'octagames[web]'")

from starlette.testclient import TestClient  # noqa: E402

from octagames import catalogue, records  # noqa: E402
from octagames.core import make_game  # noqa: E402
from octagames.testing import (check_world, draw_worlds, play_recorded, random_chooser, replay,  # noqa: E402
                               world_actions)
from octagames.web.app import create_app  # noqa: E402
from octagames.web.views import seat_view  # noqa: E402

#: shorter settings for the long variants (random play is slow to finish): the Octrix matches to 20 points,
#: an Achten match to at most 3 rounds, Octiles and Octa games to the engine's cap of 40 and 30 turns
SHORT = {"octrix": {"target": 20}, "octrix-partnership": {"target": 20}, "achten-match": {"max_rounds": 3},
         **{v: {"max_turns": 40} for v in catalogue.variants() if catalogue.variant(v).game == "octiles"},
         **{v: {"max_turns": 30} for v in catalogue.variants() if catalogue.variant(v).game == "octa"}}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    (root / "runs").mkdir()
    (root / "secret.json").write_text("{}")
    with TestClient(create_app(root)) as c:
        c.root = root
        yield c


def wait_turn(client, gid: str, seat: int, timeout: float = 60.0) -> dict:
    """Poll the game as ``seat`` until it is that seat's move or the game is over."""
    end = time.time() + timeout
    while True:
        view = client.get(f"/api/games/{gid}?seat={seat}").json()
        assert view["error"] is None, view["error"]
        if view["over"] or view["legal"]:
            return view
        assert time.time() < end, "the bots did not move"
        time.sleep(0.005)


def play_through_api(client, variant: str, seats: list[str], seed: int, config: dict | None = None) -> dict:
    rng = np.random.default_rng(seed)
    view = client.post("/api/games", json={"variant": variant, "players": len(seats), "config": config or {},
                                           "seats": seats, "seed": seed}).json()
    gid = view["id"]
    moves = 0
    while True:
        if not (view["over"] or view["legal"]):  # the last response was not our turn: the bots are moving
            view = wait_turn(client, gid, 0)
        if view["over"]:
            break
        legal = [m["action"] for m in view["legal"]]
        assert legal and all(isinstance(m["name"], str) and m["name"] for m in view["legal"])
        before = view["step"]
        view = client.post(f"/api/games/{gid}/move", json={"seat": 0, "action": int(rng.choice(legal))}).json()
        assert view["step"] > before and view["history"][before]["seat"] == 0
        moves += 1
    assert moves > 0 and len(view["history"]) == view["step"]
    return view


@pytest.mark.parametrize("variant", list(catalogue.variants()))
def test_a_whole_game_of_every_variant_is_played_through_the_api(client, variant):
    v = catalogue.variant(variant)
    n = v.default_players
    view = play_through_api(client, variant, ["human"] + ["random"] * (n - 1), seed=7, config=SHORT.get(variant))
    assert view["returns"] is not None and len(view["returns"]) == n
    rec = client.get(f"/api/games/{view['id']}/record").json()
    game = make_game(rec["game"], **rec["config"])
    s = replay(game, rec["seed"], rec["actions"])[-1]  # the record rebuilds the game the page played
    assert game.is_terminal(s) and list(game.returns(s)) == rec["returns"] == view["returns"]
    everything = client.get(f"/api/games/{view['id']}").json()  # the all-seeing view, now the game is over
    assert [h["name"] for h in everything["history"]] == rec["names"]


def _history(game, seed, actions, seat):
    states = replay(game, seed, actions)
    return seat_view(game, states, actions, seat, humans=[seat])


# (Octiles hides nothing from a seat but the future tiles, which no view is built from: no other world to draw)
@pytest.mark.parametrize("variant", ["octrix-round", "achten", "octa-en", "octa-nl"])
def test_a_human_seat_is_shown_nothing_it_has_not_seen(variant):
    # the view of a seat (render, picture, legal moves, history) is the same in two worlds that seat cannot
    # tell apart: hidden cards relabelled, another seat's hidden move replaced (octagames.testing's worlds)
    game = make_game(variant)
    rng = np.random.default_rng(3)
    compared = 0
    for seed in range(2):
        actions = play_recorded(game, seed, [random_chooser(rng)] * game.num_players)
        states = replay(game, seed, actions)
        for seat in range(game.num_players):
            for world in draw_worlds(game, states, actions, seat, rng, 3):
                other = world_actions(game, states, actions, world)

                def compare(a, b, v, other=other):
                    k = next(i for i, s in enumerate(states) if s is a)
                    mine = _history(game, seed, actions[:k], v)
                    theirs = _history(game, seed, other[:k], v)
                    assert mine == theirs, (
                        f"{variant} seed {seed} seat {v} step {k}: " +
                        next(f"{key}: {mine[key]!r} != {theirs[key]!r}" for key in mine if mine[key] != theirs[key]))
                    nonlocal compared
                    compared += 1

                check_world(game, seed, actions, world, states, rng, strings=2, on_pair=compare)
    assert compared > 0


def test_the_history_hides_a_card_dealt_to_another_seat_and_a_simultaneous_move():
    game = make_game("octrix-round")
    actions = play_recorded(game, 0, [random_chooser(np.random.default_rng(0))] * 2)
    first_move = next(k for k, s in enumerate(replay(game, 0, actions)) if not game.is_chance(s))
    states = replay(game, 0, actions[:first_move + 1])
    view = seat_view(game, states, actions[:first_move + 1], 1, humans=[1])
    assert view["history"][-1] == {"step": first_move, "seat": 0,
                                   "name": "plays (hidden until every seat has played)"}
    achten = make_game("achten")
    acts = play_recorded(achten, 0, [random_chooser(np.random.default_rng(0))] * 2)
    deal = replay(achten, 0, acts[:2])
    names = [h["name"] for h in seat_view(achten, deal, acts[:2], 0)["history"]]
    # the first card goes to P1 (the dealer is P0), the second to P0 itself
    assert names[0] == "deal a card to P1" and names[1] == achten.action_to_string(deal[1], acts[1])


def test_bad_requests_are_refused_with_a_message_and_change_nothing(client):
    bad = client.post("/api/games", json={"variant": "octopus", "seats": ["human", "random"]})
    assert bad.status_code == 400 and "unknown variant 'octopus'" in bad.json()["error"]
    bad = client.post("/api/games", json={"variant": "achten", "seats": ["human", "wizard"]})
    assert bad.status_code == 400 and "seat 1" in bad.json()["error"] and "wizard" in bad.json()["error"]
    bad = client.post("/api/games", json={"variant": "achten", "seats": ["human"]})
    assert bad.status_code == 400 and "2 players" in bad.json()["error"]
    bad = client.post("/api/games", json={"variant": "achten", "config": {"ranks": 99}, "seats": ["human", "random"]})
    assert bad.status_code == 400 and "ranks" in bad.json()["error"]

    view = client.post("/api/games", json={"variant": "achten", "seats": ["human", "human"], "seed": 5}).json()
    gid, seat = view["id"], view["to_act"]
    view = client.get(f"/api/games/{gid}?seat={seat}").json()
    illegal = next(a for a in range(make_game("achten").num_actions) if a not in {m["action"] for m in view["legal"]})
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": illegal})
    assert r.status_code == 400 and "cannot play action" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/move", json={"seat": 1 - seat, "action": view["legal"][0]["action"]})
    assert r.status_code == 409 and "not seat" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": 10 ** 6})
    assert r.status_code == 400
    assert client.get(f"/api/games/{gid}?seat={seat}").json() == view  # nothing changed
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 403 and "when it is over" in r.json()["error"]
    assert client.get(f"/api/games/{gid}/record").status_code == 403
    assert client.get("/api/games/nope?seat=0").status_code == 404

    bot = client.post("/api/games", json={"variant": "achten", "seats": ["human", "random"], "seed": 1}).json()
    r = client.post(f"/api/games/{bot['id']}/move", json={"seat": 1, "action": 0})
    assert r.status_code == 403 and "not played by a person" in r.json()["error"]
    r = client.get(f"/api/games/{bot['id']}?seat=1")  # the bot's seat would show its hand
    assert r.status_code == 403 and "a bot's" in r.json()["error"]

    for path in ["../secret.json", "/etc/passwd", "secret.json", "runs/../secret.json"]:
        r = client.post("/api/replays", json={"path": path})
        assert r.status_code == 403 and "outside the folders" in r.json()["error"], path
    assert client.post("/api/replays", json={"path": "runs/none.json"}).status_code == 404
    r = client.post("/api/replays", json={"text": "{\"hello\": 1}"})
    assert r.status_code == 400 and "no game record" in r.json()["error"]


def test_a_record_and_a_journal_open_as_replays_from_the_allowed_folder(client):
    view = play_through_api(client, "achten", ["human", "random"], seed=2)
    rec = client.get(f"/api/games/{view['id']}/record").json()
    records.check(records.GameRecord.from_dict(rec))  # the record format of docs/records.md
    (client.root / "runs" / "game.json").write_text(json.dumps(rec))
    rows = [{"key": 0, "returns": rec["returns"]}, {"key": 1, "returns": rec["returns"], "record": rec}]
    (client.root / "runs" / "journal.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    for path in ["runs/game.json", "runs/journal.jsonl"]:
        opened = client.post("/api/replays", json={"path": path}).json()
        assert opened["games"] == 1 and opened["length"] == rec["length"] and opened["step"] == 0
        rid = opened["id"]
        last = client.get(f"/api/replays/{rid}?step={rec['length']}").json()
        assert last["over"] and last["returns"] == rec["returns"]
        assert [h["name"] for h in last["history"]] == rec["names"]
        seat1 = client.get(f"/api/replays/{rid}?step=3&seat=1").json()
        assert seat1["step"] == 3 and seat1["render"] != last["render"]
        assert client.get(f"/api/replays/{rid}?step=3&seat=9").status_code == 400
