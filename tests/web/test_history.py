"""The page's move history is the game records' rule of what a seat knows (``octagames.records``), not a
second copy of it: for every seat and every step of a game, live (moves appended) and in a replay stepped
back, the history names exactly the moves ``records.name_reveals`` says the seat knows by then, by the name
``records.move_names`` gives, and names no card in the others."""

from __future__ import annotations

import numpy as np
import pytest

from octagames import records
from octagames.core import make_game
from octagames.testing import play_recorded, random_chooser, replay
from octagames.web.views import CARD, SeatHistory

#: the long games are cut to a few turns (the rule is the same at every step)
SHORT = {"octrix-round": {}, "achten": {}, "octa-nl": {"max_turns": 6}, "octiles": {"max_turns": 8}}


def record_of(game, seed: int, actions: list[int]) -> records.GameRecord:
    rec = records.Recorder(game, seed, ["random"] * game.num_players)
    s = game.new_state(seed)
    for a in actions:
        rec.apply(s, a)
    return rec.record(s)


@pytest.mark.parametrize("variant", list(SHORT))
def test_a_seats_history_is_the_records_move_list_as_that_seat_knew_it(variant):
    game = make_game(variant, **SHORT[variant])
    seed = 5
    actions = play_recorded(game, seed, [random_chooser(np.random.default_rng(seed))] * game.num_players)
    states = replay(game, seed, actions)
    record = record_of(game, seed, actions)
    hidden = 0
    for seat in range(game.num_players):
        reveals, names = records.name_reveals(record, seat), records.move_names(record, seat)
        live: dict = {}
        for n in range(len(actions) + 1):
            history = SeatHistory(game, states[:n + 1], actions[:n], seat, live).entries()
            assert len(history) == n
            for k, entry in enumerate(history):
                assert entry["seat"] == (None if record.players[k] < 0 else record.players[k])
                if reveals[k] is not None and reveals[k] <= n:
                    assert entry["name"] == names[k], (variant, seat, n, k)
                else:
                    hidden += 1
                    assert entry["name"] != record.names[k], (variant, seat, n, k)
                    assert not CARD.search(entry["name"]), (variant, seat, n, k)
        # a replay whose facts were computed to the end, stepped back: the same history at every step
        whole: dict = {}
        SeatHistory(game, states, actions, seat, whole)
        for n in range(0, len(actions) + 1, 7):
            assert SeatHistory(game, states[:n + 1], actions[:n], seat, whole).entries() == \
                SeatHistory(game, states[:n + 1], actions[:n], seat).entries()
    everything = SeatHistory(game, states, actions, None).entries()
    assert [e["name"] for e in everything] == record.names
    assert hidden > 0 or variant == "octiles"


def test_the_history_follows_the_records_rule_when_it_changes(monkeypatch):
    # one place for the rule: a records module that hid every chance outcome and never ended a round of
    # simultaneous moves would make the page hide them too (a second copy of the rule would not follow)
    game = make_game("octrix-round")
    actions = play_recorded(game, 2, [random_chooser(np.random.default_rng(2))] * 2)
    states = replay(game, 2, actions)
    before = SeatHistory(game, states, actions, 0).entries()
    assert any(e["seat"] is None and CARD.search(e["name"]) for e in before)  # its own cards, by name
    assert any(e["seat"] == 1 and CARD.search(e["name"]) for e in before)  # the other seat's, once shown
    monkeypatch.setattr(records, "_chance_name", lambda *args: None)
    monkeypatch.setattr(records, "round_over", lambda *args: False)
    after = SeatHistory(game, states, actions, 0).entries()
    assert all(not CARD.search(e["name"]) for e in after if e["seat"] != 0)
    assert [e["name"] for e in after if e["seat"] == 0] == [e["name"] for e in before if e["seat"] == 0]
