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
    with TestClient(create_app(root), base_url="http://127.0.0.1") as c:
        c.root = root
        yield c


def wait_turn(client, gid: str, seat: int, token: str, timeout: float = 60.0) -> dict:
    """Poll the game as ``seat`` (with its token) until it is that seat's move or the game is over."""
    end = time.time() + timeout
    while True:
        view = client.get(f"/api/games/{gid}?seat={seat}&token={token}").json()
        assert view["error"] is None, view["error"]
        if view["over"] or view["legal"]:
            return view
        assert time.time() < end, "the bots did not move"
        time.sleep(0.005)


def play_through_api(client, variant: str, seats: list[str], seed: int, config: dict | None = None) -> dict:
    rng = np.random.default_rng(seed)
    view = client.post("/api/games", json={"variant": variant, "players": len(seats), "config": config or {},
                                           "seats": seats}).json()  # the server draws the seed (a human seat)
    gid, token = view["id"], view["tokens"]["0"]
    moves = 0
    while True:
        if not (view["over"] or view["legal"]):  # the last response was not our turn: the bots are moving
            view = wait_turn(client, gid, 0, token)
        if view["over"]:
            break
        legal = [m["action"] for m in view["legal"]]
        assert legal and all(isinstance(m["name"], str) and m["name"] for m in view["legal"])
        before = view["step"]
        view = client.post(f"/api/games/{gid}/move",
                           json={"seat": 0, "action": int(rng.choice(legal)), "token": token}).json()
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


@pytest.mark.parametrize("asked, config, named", [("achten", {"match": True}, "achten-match"),
                                                  ("octrix-round", {"ranks": 2, "hand_size": 2}, "octrix-round-small"),
                                                  ("octa", {}, "octa-en")])
def test_the_page_names_the_game_built_as_its_record_does(client, asked, config, named):
    # the view showed the name asked for ("achten", "Full deck achten, one round") where the game built was a
    # match, and its record said achten-match
    view = client.post("/api/games", json={"variant": asked, "config": config, "seats": ["human", "random"]}).json()
    assert view["variant"] == named and view["title"] == catalogue.variant(named).title


def test_the_catalogue_names_each_variants_zoo_model_per_player_count(client):
    """The page offers a variant's zoo bot only at the seat counts a model plays (zoo:octrix-3p at 3)."""
    variants = {v["name"]: v for v in client.get("/api/catalogue").json()["variants"]}
    assert set(variants) == set(catalogue.variants())
    offered = {name: (variants[v.name]["name"], int(n)) for v in catalogue.variants().values()
               for n, name in variants[v.name]["zoo"].items()}
    assert offered == {name: (v.name, n) for name, (v, n) in catalogue.zoo_models().items()}
    assert variants["octa-en"]["zoo"] == {"2": "octa-en"} and variants["octrix-round"]["zoo"] == {}


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

    view = client.post("/api/games", json={"variant": "achten", "seats": ["human", "human"]}).json()
    gid, seat, tokens = view["id"], view["to_act"], view["tokens"]
    view = client.get(f"/api/games/{gid}?seat={seat}&token={tokens[str(seat)]}").json()
    illegal = next(a for a in range(make_game("achten").num_actions) if a not in {m["action"] for m in view["legal"]})
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": illegal, "token": tokens[str(seat)]})
    assert r.status_code == 400 and "cannot play action" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/move", json={"seat": 1 - seat, "action": view["legal"][0]["action"],
                                                     "token": tokens[str(1 - seat)]})
    assert r.status_code == 409 and "not seat" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": 10 ** 6, "token": tokens[str(seat)]})
    assert r.status_code == 400
    assert client.get(f"/api/games/{gid}?seat={seat}&token={tokens[str(seat)]}").json() == view  # nothing changed
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 403 and "when it is over" in r.json()["error"]
    assert client.get(f"/api/games/{gid}/record").status_code == 403
    assert client.get("/api/games/nope?seat=0").status_code == 404

    for _ in range(20):  # a game the bot's first move ended (2 deals in 1,000) shows every seat: take another
        bot = client.post("/api/games", json={"variant": "achten", "seats": ["human", "random"]}).json()
        if not wait_turn(client, bot["id"], 0, bot["tokens"]["0"])["over"]:
            break
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
        past = client.get(f"/api/replays/{rid}?step={10 ** 17}").json()  # past the last move: its end
        assert past["step"] == rec["length"] and past["render"] == last["render"]
        seat1 = client.get(f"/api/replays/{rid}?step=3&seat=1").json()
        assert seat1["step"] == 3 and seat1["render"] != last["render"]
        assert client.get(f"/api/replays/{rid}?step=3&seat=9").status_code == 400


# ---------------------------------------------------------------------- what a request may not do
def test_an_agent_spec_may_name_a_model_file_only_under_runs_or_in_the_zoo(client, monkeypatch, tmp_path):
    opened = []

    def loader(spec, game):  # stands for make_agent: records what would be loaded, loads nothing
        opened.append(spec)
        raise ValueError("not loaded in this test")

    monkeypatch.setattr("octagames.web.app.make_agent", loader)
    outside = tmp_path / "evil.pt"
    outside.write_bytes(b"not a model")
    (client.root / "runs" / "link.pt").unlink(missing_ok=True)
    (client.root / "runs" / "link.pt").symlink_to(outside)  # a link out of runs/ is outside too
    for spec in [f"ppo:{outside}", f"ppo:{outside}@sample", f"az:{outside}:8", f"cfr:{outside}", "ppo:../secret.json",
                 "ppo:runs/../secret.json", "ppo:runs/link.pt", "az:/etc/passwd", "ppo:runs/a\x00b"]:
        r = client.post("/api/games", json={"variant": "achten", "seats": ["human", spec]})
        assert r.status_code == 400 and "seat 1" in r.json()["error"], (spec, r.text)
        assert "\x00" in spec or "must lie under runs/" in r.json()["error"], (spec, r.text)
    assert opened == []  # no file was opened
    # a file under runs/ reaches the loader, with its real path; a number of iterations names no file
    (client.root / "runs" / "model.pt").write_bytes(b"not a model")
    for spec, made in [("ppo:runs/model.pt", f"ppo:{client.root / 'runs' / 'model.pt'}"),
                       ("az:runs/model.pt:8", f"az:{client.root / 'runs' / 'model.pt'}:8"),
                       ("cfr:200:external", "cfr:200:external")]:
        variant = "octrix-round-small" if spec.startswith("cfr") else "achten"  # CFR trains on small configs only
        r = client.post("/api/games", json={"variant": variant, "seats": ["human", spec]})
        assert r.status_code == 400 and "not loaded in this test" in r.json()["error"], (spec, r.text)
        assert opened[-1] == made


def test_a_model_file_that_is_not_one_is_refused_with_a_message(client):
    pytest.importorskip("torch", reason="ppo needs the train extra")
    (client.root / "runs" / "junk.pt").write_bytes(b"\x80\x04junk that is no pickle")
    r = client.post("/api/games", json={"variant": "achten", "seats": ["human", "ppo:runs/junk.pt"]})
    assert r.status_code == 400 and "seat 1" in r.json()["error"] and "cannot play" in r.json()["error"]


def test_a_post_body_must_be_json_and_come_from_this_server_s_page(client):
    body = json.dumps({"variant": "achten", "seats": ["random", "random"], "seed": 3})
    r = client.post("/api/games", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    r = client.post("/api/games", content=body)  # no content type at all
    assert r.status_code == 415
    for origin in ["http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1.evil.example"]:
        r = client.post("/api/games", content=body, headers={"Content-Type": "application/json", "Origin": origin})
        assert r.status_code == 403 and "another site" in r.json()["error"], origin
    r = client.post("/api/games", content=body,
                    headers={"Content-Type": "application/json; charset=utf-8", "Origin": "http://127.0.0.1"})
    assert r.status_code == 200 and r.json()["seats"] == ["random", "random"]
    # a Host other than this machine's (a DNS-rebound name) is refused before any route
    assert client.get("/api/catalogue", headers={"Host": "attacker.example"}).status_code == 400
    assert client.get("/api/catalogue", headers={"Host": "localhost:8088"}).status_code == 200


def test_a_human_seat_is_seen_and_played_only_with_its_token(client):
    view = client.post("/api/games", json={"variant": "achten", "seats": ["human", "human"]}).json()
    gid, tokens = view["id"], view["tokens"]
    assert sorted(tokens) == ["0", "1"] and tokens["0"] != tokens["1"]
    seat = view["to_act"]
    mine, theirs = tokens[str(seat)], tokens[str(1 - seat)]
    for query in [f"seat={seat}", f"seat={seat}&token=", f"seat={seat}&token={theirs}", f"seat={seat}&token=x"]:
        r = client.get(f"/api/games/{gid}?{query}")
        assert r.status_code == 403 and "token" in r.json()["error"], query
    legal = client.get(f"/api/games/{gid}?seat={seat}&token={mine}").json()["legal"]
    assert legal
    for token in [None, theirs, 5]:
        move = {"seat": seat, "action": legal[0]["action"]} | ({} if token is None else {"token": token})
        r = client.post(f"/api/games/{gid}/move", json=move)
        assert r.status_code == 403 and "token" in r.json()["error"], token
    assert client.get(f"/api/games/{gid}?seat={seat}&token={mine}").json()["step"] == view["step"]  # no move made
    r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "action": legal[0]["action"], "token": mine})
    assert r.status_code == 200 and r.json()["step"] > view["step"]
    assert "tokens" not in r.json() and "tokens" not in client.get(f"/api/games/{gid}?seat={seat}&token={mine}").json()


def test_the_seed_of_a_game_with_a_human_seat_is_the_server_s(client):
    r = client.post("/api/games", json={"variant": "achten", "seats": ["human", "random"], "seed": 3})
    assert r.status_code == 400 and "seed" in r.json()["error"] and "human" in r.json()["error"]
    bots = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"], "seed": 3}).json()
    end = time.time() + 30
    while not client.get(f"/api/games/{bots['id']}").json()["over"]:
        assert time.time() < end
        time.sleep(0.01)
    assert client.get(f"/api/games/{bots['id']}/record").json()["seed"] == 3


def test_bad_values_are_refused_with_a_message_not_a_server_error(client):
    for seed in ["x", -5, 2 ** 63, 1.5, True, None]:
        r = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"], "seed": seed})
        assert r.status_code == 400 and "seed must be an integer in 0..2**63-1" in r.json()["error"], seed
    big = client.post("/api/games", json={"variant": "achten", "seats": ["random", "random"], "seed": 2 ** 63 - 1})
    assert big.status_code == 200
    (client.root / "runs" / "latin1.json").write_bytes(b"{\"caf\xe9\": 1}")
    (client.root / "runs" / "ok.json").write_text("{\"hello\": 1}")
    for body, status, words in [({"path": "runs/a\x00b"}, 400, "not a path"),
                                ({"path": "runs/latin1.json"}, 400, "UTF-8"),
                                ({"text": "{}", "index": "x"}, 400, "no game record")]:
        r = client.post("/api/replays", json=body)
        assert r.status_code == status and words in r.json()["error"], (body, r.text)
    view = play_through_api(client, "achten", ["human", "random"], seed=4)
    rec = client.get(f"/api/games/{view['id']}/record").json()
    for index in ["x", -1, 1, 0.5, None]:
        r = client.post("/api/replays", json={"text": json.dumps(rec), "index": index})
        assert r.status_code == 400 and "index must be 0..0" in r.json()["error"], index
    r = client.post("/api/games", json={"variant": "achten", "seats": ["human", "ppo:runs/ok.json"]})
    assert r.status_code == 400 and "cannot play" in r.json()["error"]  # not a model: refused, not a 500


def test_a_bots_worker_that_fails_before_its_first_move_stops_the_game_with_a_message():
    from octagames.agents.registry import make_agent
    from octagames.web.app import Session

    game = make_game("achten")
    agents = {p: make_agent("random", game) for p in range(2)}
    session = Session("t", "achten", game, -5, ["random", "random"], agents, states=[game.new_state(0)])
    session._bots()  # a negative seed fails in the worker's RNG, before any seat is to act
    assert session.error.startswith("the bots' worker failed: ValueError") and not session.thinking_now
    assert session.actions == []


def test_a_bots_failure_is_named_to_a_person_without_its_words():
    # the engine's refusal of a bot's move names the bot's hand ("you hold no ♥A"): a person was shown it
    from octagames.agents.base import Agent, Turn
    from octagames.agents.registry import make_agent
    from octagames.web.app import Session

    class Failing(Agent):
        def act(self, turn: Turn) -> int:
            raise ValueError("player 1 cannot play this: you hold no ♥A")

    def first_to_act(seed: int) -> int:
        s = game.new_state(seed)
        game.play_chance(s)
        return game.acting_player(s)

    game = make_game("achten")
    seed = next(k for k in range(50) if first_to_act(k) == 1)
    for seats in (["human", "failing"], ["random", "failing"]):
        agents = {p: Failing() if s == "failing" else make_agent(s, game) for p, s in enumerate(seats) if s != "human"}
        session = Session("t", "achten", game, seed, seats, agents, states=[game.new_state(seed)])
        session._bots()
        assert session.error.startswith("the bot of seat 1 (failing) failed") and session.over
        assert ("♥A" in session.error) == (seats[0] == "random")  # the words only where no person plays


def test_a_move_sent_twice_with_its_step_is_played_once(client):
    # a repeated request played a second move where the seat was to act again with the same id legal
    view = client.post("/api/games", json={"variant": "achten", "seats": ["human", "human"]}).json()
    gid, seat, tokens = view["id"], view["to_act"], view["tokens"]
    view = client.get(f"/api/games/{gid}?seat={seat}&token={tokens[str(seat)]}").json()
    move = {"seat": seat, "action": view["legal"][0]["action"], "token": tokens[str(seat)], "step": view["step"]}
    after = client.post(f"/api/games/{gid}/move", json=move)
    assert after.status_code == 200 and after.json()["step"] > view["step"]
    again = client.post(f"/api/games/{gid}/move", json=move)
    moved_on = f"it is at step {after.json()['step']}, not {view['step']}"
    assert again.status_code == 409 and moved_on in again.json()["error"]
    assert client.get(f"/api/games/{gid}?seat={seat}&token={tokens[str(seat)]}").json()["step"] == after.json()["step"]
    bad = client.post(f"/api/games/{gid}/move", json={**move, "step": "7"})
    assert bad.status_code == 400 and "step" in bad.json()["error"]


def test_a_bots_thinking_is_kept_checked_as_the_records_keep_it():
    from octagames.agents.base import Agent, Turn
    from octagames.web.app import Session

    class Telling(Agent):
        """Plays its first legal move and tells numpy numbers and an illegal move's share."""

        def act(self, turn: Turn) -> int:
            legal = [int(a) for a in turn.legal_actions]
            illegal = next(a for a in range(len(turn.legal_mask)) if not turn.legal_mask[a])
            self.last_thinking = {"policy": {legal[0]: np.float32(0.75), illegal: np.float64(0.25)},
                                  "values": {np.int64(legal[0]): np.float32(0.123456)},
                                  "value": np.float64(0.5), "visits": np.int64(7)}
            return legal[0]

    game = make_game("achten")
    session = Session("t", "achten", game, 5, ["telling", "telling"], {p: Telling() for p in range(2)},
                      states=[game.new_state(5)])
    session._bots()
    assert session.error is None and game.is_terminal(session.states[-1]) and session.thinking
    for k, told in session.thinking.items():
        chosen = session.actions[k]
        assert told == {"policy": {chosen: 0.75}, "values": {chosen: 0.1235}, "value": 0.5, "visits": 7}, k
        assert all(type(x) is float for x in (*told["policy"].values(), *told["values"].values(), told["value"]))
        assert type(told["visits"]) is int and all(type(a) is int for a in told["policy"])
    rec = session.record()
    assert records.GameRecord.from_dict(json.loads(json.dumps(rec))).thinking == session.thinking
