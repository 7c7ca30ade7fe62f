"""Hot seat: one page plays every human seat of a game (it holds every seat's token). The answer that
creates a game is the view of the human seat to act; each seat, asked with its own token, is shown its
own observation and only it has moves when it is to act; ``hidden`` tells the page whether the seats see
different things (then it hides the table while it hands over to the next seat)."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")
pytest.importorskip("httpx", reason="the web extra: pip install 'octagames[web]'")


def views(client, gid: str, tokens: dict[str, str]) -> dict[int, dict]:
    """Every human seat's view, each asked with its own token, once no bot is thinking."""
    end = time.time() + 60
    while True:
        out = {int(p): client.get(f"/api/games/{gid}?seat={p}&token={t}").json() for p, t in tokens.items()}
        view = next(iter(out.values()))
        assert view["error"] is None, view["error"]
        if view["over"] or view["to_act"] in out:
            return out
        assert time.time() < end, "the bots did not move"
        time.sleep(0.01)


# (variant, config, seats, hidden): Achten's cards are hidden (its first choice is P1's, not P0's); Octrix's
# simultaneous moves are hidden until all are played; Octiles shows everything (P2 acts first in play-on)
CASES = [("achten", {}, ["human", "human"], True),
         ("octrix", {"target": 6}, ["human", "human"], True),
         ("octiles-play-on", {"max_turns": 12}, ["human", "random", "human"], False)]


@pytest.mark.parametrize("variant, config, seats, hidden", CASES, ids=[c[0] for c in CASES])
def test_one_page_plays_every_human_seat_each_seeing_its_own_view(client, variant, config, seats, hidden):
    humans = [p for p, who in enumerate(seats) if who == "human"]
    created = client.post("/api/games", json={"variant": variant, "players": len(seats), "config": config,
                                              "seats": seats}).json()
    gid, tokens = created["id"], created["tokens"]
    assert sorted(map(int, tokens)) == humans
    # the game opens on the human seat to act, with its moves, so that the page starts there (a bot to act:
    # the first human seat); Achten's first choice is always P1's
    to_act = created["to_act"]
    assert created["seat"] == (to_act if to_act in humans else humans[0])
    assert bool(created["legal"]) is (to_act in humans)
    assert created["hidden"] is hidden and (variant != "achten" or created["seat"] == 1)
    session = client.app.state.server.sessions[gid]
    rng = np.random.default_rng(0)
    played = {p: 0 for p in humans}
    for _ in range(400):
        shown = views(client, gid, tokens)
        if shown[humans[0]]["over"]:
            break
        to_act = shown[humans[0]]["to_act"]
        with session.lock:
            s = session.states[-1]
            assert session.game.acting_player(s) == to_act
            for p, view in shown.items():  # each seat's own observation; moves only for the seat to act
                assert view["seat"] == p and view["hidden"] is hidden
                assert view["render"] == session.game.render(s, p)
                assert bool(view["legal"]) is (p == to_act), (p, to_act)
        if variant == "achten":  # the hands differ: neither seat sees the other's
            assert shown[humans[0]]["render"] != shown[humans[1]]["render"]
        other = next(p for p in humans if p != to_act)
        move = {"seat": to_act, "action": int(rng.choice([m["action"] for m in shown[to_act]["legal"]]))}
        r = client.post(f"/api/games/{gid}/move", json={**move, "token": tokens[str(other)]})
        assert r.status_code == 403  # a seat is played only with its own token
        r = client.post(f"/api/games/{gid}/move", json={**move, "token": tokens[str(to_act)]})
        assert r.status_code == 200 and r.json()["seat"] == to_act and r.json()["step"] > shown[to_act]["step"]
        played[to_act] += 1
    assert all(played.values()), played  # every human seat played from the one page
