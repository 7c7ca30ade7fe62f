"""Game records: the JSON round trip of every variant, the replay through the rules, tampered records
refused, and a seat's move list checked against the rules' independent model of what it sees."""

import json
import re

import numpy as np
import pytest

from octagames import catalogue, records
from octagames.achten import public as achten_public
from octagames.core import CHANCE, SIMULTANEOUS, Game
from octagames.octa import public as octa_public
from octagames.records import FORMAT, HIDDEN_CHANCE, GameRecord, Recorder


def play(game: Game, seed: int, thinking: bool = False) -> tuple[GameRecord, np.void]:
    """A game of uniformly random moves, recorded (with made-up thinking on every seat's move)."""
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    rec = Recorder(game, seed, ["random"] * game.num_players)
    while not game.is_terminal(s):
        if game.is_chance(s):
            rec.apply(s, game.sample_chance(s))
            continue
        legal = game.legal_actions(s)
        told = {"policy": {a: 1 / len(legal) for a in legal}, "value": -0.25} if thinking else None
        rec.apply(s, int(rng.choice(legal)), told)
    return rec.record(s), s


@pytest.fixture(scope="module")
def achten_record() -> GameRecord:
    return play(Game("achten"), 5, thinking=True)[0]


@pytest.mark.parametrize("variant", list(catalogue.variants()))
def test_every_variant_round_trips_and_replays_to_the_same_end(variant):
    game = Game(variant)
    for seed in (1, 2):
        record, end = play(game, seed, thinking=seed == 2)
        assert record.variant == catalogue.variant_name(game.name, game.config)
        assert record.config == catalogue.full_config(game.name, game.config)
        assert record.length == len(record.names) == len(record.players) > 0
        back = GameRecord.from_json(record.to_json())
        assert back == record
        assert json.loads(record.to_json())["format"] == FORMAT
        records.check(back)
        positions = records.states(back)
        assert len(positions) == record.length + 1
        # the same game: every field but the RNG (the replay takes the outcomes, it draws nothing)
        for f in game.dtype.names:
            if f != "rng":
                assert np.array_equal(positions[-1][f], end[f]), f
        assert back.returns == pytest.approx(list(game.returns(positions[-1])))
        assert [p for p in record.players] == [game.acting_player(s) for s in positions[:-1]]


def test_save_and_load_a_record_file(tmp_path, achten_record):
    path = achten_record.save(tmp_path / "sub" / "game.json")
    assert records.load(path) == [achten_record]
    assert records.load_game(path) == achten_record
    with pytest.raises(ValueError, match=r"index=1 is not valid: .* holds 1 game record"):
        records.load_game(path, 1)
    assert 3 in achten_record.thinking or any(achten_record.thinking)  # made-up thinking kept
    told = next(iter(achten_record.thinking.values()))
    assert told["value"] == -0.25 and abs(sum(told["policy"].values()) - 1) < 1e-3


def _tampered(record: GameRecord, change) -> dict:
    data = json.loads(record.to_json())
    change(data)
    return data


def _first_move(record: GameRecord) -> int:
    return next(k for k, p in enumerate(record.players) if p != CHANCE)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="octagames-record-0"), r"format='octagames-record-0' is not a record format"),
    (lambda d: d.pop("format"), r"format=None is not a record format"),
    (lambda d: d["config"].update(deal_penalty=3), r"variant='achten' does not match the record's config, "
                                                   r"which plays 'achten\+deal_penalty=3'"),
    (lambda d: d.update(variant="achten-match"), r"variant='achten-match' does not match"),
    (lambda d: d["config"].update(colour="red"), r"config of achten must give every field .* unknown \['colour'\]"),
    (lambda d: d["config"].pop("ranks"), r"missing \['ranks'\]"),
    (lambda d: d["config"].update(num_players=9), r"num_players"),
    (lambda d: d.update(game="chess"), r"game='chess' is not valid"),
    (lambda d: d.update(seed=True), r"seed=True is not valid"),
    (lambda d: d.update(agents=["random"]), r"agents must be a list of 2 strings"),
    (lambda d: d.update(length=d["length"] + 1), r"length=\d+ but the record has \d+ actions"),
    (lambda d: d["names"].pop(), r"names has \d+ entries for \d+ actions"),
    (lambda d: d.update(length=10**6), r"length=1000000 is not valid; it must be an integer >= 0 and <= \d+"),
    (lambda d: d["actions"].__setitem__(0, "13"), r"actions\[0\]='13' is not valid"),
    (lambda d: d.update(returns=[1.0, float("nan")]), r"returns must be null or a list of 2 finite numbers"),
    (lambda d: d.update(thinking={"0": {"value": 1.0}}), r"thinking\[0\]: move 0 is not a seat's move"),
    (lambda d: d.update(extra=1), r"has unknown \['extra'\]"),
])
def test_a_record_with_a_bad_field_is_refused_naming_it(achten_record, change, message):
    with pytest.raises(ValueError, match=message):
        GameRecord.from_dict(_tampered(achten_record, change))


def _drop_last_move(d: dict) -> None:
    for f in ("actions", "players", "names"):
        d[f].pop()
    d["length"] -= 1
    d.get("thinking", {}).pop(str(d["length"]), None)


def test_a_record_whose_moves_are_not_the_engines_is_refused(achten_record):
    g, k = achten_record.make_game(), _first_move(achten_record)
    s = records.states(achten_record)[k]
    illegal = int(np.flatnonzero(g.legal_mask(s) == 0)[0])
    cases = [
        (lambda d: d["actions"].__setitem__(k, illegal), rf"move {k}: player \d cannot play action {illegal} \(.*\): "),
        (lambda d: d["actions"].__setitem__(0, 500), r"move 0: chance outcome 500 is not possible here"),
        (lambda d: d["players"].__setitem__(k, 1 - d["players"][k]), rf"move {k}: the record says player \d moves, "
                                                                   r"but player \d is to act"),
        (lambda d: d["names"].__setitem__(k, "claw"), rf"move {k}: the name 'claw' is not the engine's name"),
        (lambda d: d.update(returns=[r + 1 for r in d["returns"]]), r"returns=\[.*\] are not the game's"),
        (lambda d: d.update(thinking={str(k): {"policy": {str(illegal): 1.0}}}),
         rf"move {k}: the thinking gives shares to actions \[{illegal}\], which are not legal there"),
        (_drop_last_move, r"the record has returns but its \d+ moves do not end the game"),
        # a forged "not over" on a finished game (it was taken, and its replay contradicted itself; review)
        (lambda d: d.update(returns=None), r"returns=None says the game is not over, but its \d+ moves end it: "
                                           r"returns must be \[.*\]"),
    ]
    for change, message in cases:
        bad = GameRecord.from_dict(_tampered(achten_record, change))
        with pytest.raises(ValueError, match=message):
            records.check(bad)
    with pytest.raises(ValueError, match=rf"move {k}: player"):
        records.states(GameRecord.from_dict(_tampered(achten_record, cases[0][0])))
    unfinished = _tampered(achten_record, lambda d: (_drop_last_move(d), d.update(returns=None)))
    records.check(GameRecord.from_dict(unfinished))  # a game not over: returns null, as the docs say


def test_files_that_are_not_records_get_one_clear_error(tmp_path, achten_record):
    (tmp_path / "a.json").write_text("[1, 2]")
    (tmp_path / "b.json").write_text("not json at all")
    (tmp_path / "c.games.jsonl").write_text(json.dumps({"header": {"game": "achten"}}) + "\n"
                                            + json.dumps({"key": 0, "returns": [1, -1], "length": 3}) + "\n")
    bad = _tampered(achten_record, lambda d: d["actions"].__setitem__(_first_move(achten_record), 99))
    (tmp_path / "d.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="neither a game record"):
        records.load(tmp_path / "a.json")
    with pytest.raises(ValueError, match="neither a game record"):
        records.load(tmp_path / "b.json")
    with pytest.raises(ValueError, match="a game journal of 1 games without their records"):
        records.load(tmp_path / "c.games.jsonl")
    with pytest.raises(ValueError, match=r"d.json: move \d+: player \d cannot play action 99"):
        records.load(tmp_path / "d.json")
    with pytest.raises(FileNotFoundError):
        records.load(tmp_path / "missing.json")


def test_a_binary_file_is_refused_as_no_text_record_naming_it(tmp_path, achten_record):
    """A file that is not UTF-8 text (an image, a zip, a record saved in UTF-16) raised a bare UnicodeDecodeError."""
    (tmp_path / "image.json").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (tmp_path / "utf16.games.jsonl").write_text(json.dumps(achten_record.to_dict()), encoding="utf-16")
    for name, byte in (("image.json", 0), ("utf16.games.jsonl", 0)):
        for load in (records.load, records.load_game):
            with pytest.raises(ValueError, match=re.escape(f"{tmp_path / name} is not a text (UTF-8) record or "
                                                           f"journal: byte {byte} is not UTF-8")):
                load(tmp_path / name)


def test_a_journal_gives_the_records_of_its_rows_and_skips_older_rows(tmp_path, achten_record):
    other = play(Game("achten"), 6)[0]
    lines = [{"header": {"game": "achten"}}, {"key": 0, "returns": [0, 0], "length": 1},
             {"key": 1, "returns": other.returns, "length": other.length, "record": other.to_dict()},
             {"key": 2, "returns": achten_record.returns, "length": achten_record.length,
              "record": achten_record.to_dict()}]
    path = tmp_path / "run.games.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"key": 3, "ret')  # a killed run's last line
    assert records.load(path) == [other, achten_record]
    assert records.load_game(path, 1) == achten_record


def test_a_seats_move_names_name_only_the_cards_it_sees():
    # a card is named to a seat iff it lies face up to it after the deal (octagames/<game>/public.py); the
    # engine's observation agrees: the seat tells every named card apart from the other cards the deal could
    # have given, and the copy of an Octa card is never named
    copies = 0
    for name, public in (("achten", achten_public), ("octa-nl", octa_public)):
        game = Game(name)
        record = play(game, 3)[0]
        positions = records.states(record)
        for seat in range(game.num_players):
            reveals = records.name_reveals(record, seat)
            shown = records.move_names(record, seat)
            chance = [k for k, p in enumerate(record.players) if p == CHANCE and public.deals_card(positions[k])]
            assert chance and any(reveals[k] is None for k in chance) and any(reveals[k] for k in chance)
            for k in chance:
                card = record.actions[k]
                seen = card in public.seen_ids(positions[k + 1], seat)
                assert reveals[k] == (k + 1 if seen else None), (name, seat, k)
                assert (shown[k] == HIDDEN_CHANCE) == (not seen) and "second copy" not in shown[k]
                if not seen:
                    continue
                if shown[k] != record.names[k]:  # the second copy of an Octa card: named as the first
                    copies += 1
                    assert shown[k] == record.names[k].replace(" (second copy)", "")
                mine = game.observation(positions[k + 1], seat)
                for other, _ in game.chance_outcomes(positions[k]):
                    if public.kind(other) != public.kind(card):
                        s = game.clone(positions[k])
                        game.apply_action(s, other)
                        assert not np.array_equal(game.observation(s, seat), mine), (name, seat, k, other)
            assert all(reveals[k] == k + 1 for k, p in enumerate(record.players) if p >= 0)
        assert records.move_names(record) == record.names
    assert copies > 0


def test_a_simultaneous_move_is_named_to_the_others_once_its_trick_is_complete():
    game = Game("octrix-round", num_players=3)
    record = play(game, 4)[0]
    positions = records.states(record)
    moves = [k for k, s in enumerate(positions[:-1]) if game.current_player(s) == SIMULTANEOUS]
    assert moves and all(record.players[k] >= 0 for k in moves)
    waited = 0
    for seat in range(3):
        reveals = records.name_reveals(record, seat)
        for k in moves:
            p = record.players[k]
            if p == seat:
                assert reveals[k] == k + 1
                continue
            # the record's trick counter moves on (or the game ends) once every seat has played
            end = next(j for j in range(k + 1, record.length + 1) if j == record.length
                       or positions[j]["trick"] != positions[k]["trick"])
            assert reveals[k] == end, (seat, k)
            if end > k + 1:
                waited += 1
                assert records.move_names(record, seat, upto=end - 1)[k] == f"P{p} moves (hidden)"
            assert records.move_names(record, seat, upto=end)[k] == record.names[k]
    assert waited >= len(moves)  # each trick: two of the three moves wait for the third, for some seat


def test_the_dealers_pair_of_the_partnership_game_is_named_to_the_others_once_both_have_played():
    # a trick of the partnership game is two rounds: the dealer's pair, face up, then the other two ("der Geber
    # und sein linker Nachbar ... gleichzeitig offen"); with dealer 0 the pair's cards stayed hidden until the
    # whole trick was played, since seat 2 follows seat 1 (review)
    checked = set()
    for seed in range(4):
        game = Game("octrix-partnership", target=10, dealer=seed)
        record = play(game, seed)[0]
        positions = records.states(record)
        moves = [k for k, s in enumerate(positions[:-1]) if game.current_player(s) == SIMULTANEOUS]
        for seat in range(4):
            reveals = records.name_reveals(record, seat)
            for k in moves:
                s, p = positions[k], record.players[k]
                d = int(s["dealer"])
                pair = {d, (d + 1) % 4} if p in {d, (d + 1) % 4} else {(d + 2) % 4, (d + 3) % 4}
                (q,) = pair - {p}
                j = next(j for j in moves if record.players[j] == q and positions[j]["round"] == s["round"]
                         and positions[j]["trick"] == s["trick"])
                assert reveals[k] == (k + 1 if p == seat else max(j, k) + 1), (seed, seat, k)
                checked.add((d, p == d or p == (d + 1) % 4))
    assert checked == {(d, first) for d in range(4) for first in (True, False)}  # every dealer, both pairs


def test_a_seats_positions_show_it_what_it_saw_and_nothing_else():
    game = Game("achten")
    record = play(game, 8)[0]
    true = records.states(record)
    for seat in range(2):
        mine = records.states(record, seat=seat)
        assert len(mine) == len(true)
        for s, t in zip(mine, true):
            assert np.array_equal(game.observation(s, seat), game.observation(t, seat))
        # the other seat's hidden cards are resampled somewhere (not the true positions)
        assert any(not np.array_equal(s["slot_card"], t["slot_card"]) for s, t in zip(mine, true))
    assert records.views(record, 1) == [game.render(s, 1) for s in true]
    with pytest.raises(ValueError, match="player=2 is not valid"):
        records.states(record, seat=2)


def dealt(game: Game, seed: int) -> tuple[np.void, Recorder]:
    """A new game recorded up to the first seat's move."""
    s = game.new_state(seed)
    rec = Recorder(game, seed, ["human", "random"])
    while game.is_chance(s):
        rec.apply(s, game.sample_chance(s))
    return s, rec


def test_a_take_back_forgets_the_moves_after_it():
    game = Game("octrix-round")
    s, rec = dealt(game, 0)
    dealt_moves, before = rec.length, game.clone(s)
    rec.apply(s, game.legal_actions(s)[0], {"value": 0.5})
    rec.truncate(dealt_moves)
    assert rec.length == dealt_moves and not rec.record(before).thinking and rec.record(before).returns is None
    with pytest.raises(ValueError, match="3 agents for 2 seats"):
        Recorder(game, 0, ["a", "b", "c"])


def test_the_recorder_keeps_only_shares_of_legal_actions_and_refuses_bad_thinking_untouched():
    game = Game("achten")
    s, rec = dealt(game, 1)
    legal = game.legal_actions(s)
    illegal = int(np.flatnonzero(game.legal_mask(s) == 0)[0])
    before, length = game.to_bytes(s), rec.length
    with pytest.raises(ValueError, match="the share of action 3 must be a number in 0..1"):
        rec.apply(s, legal[0], {"policy": {3: 2.0}})
    assert game.to_bytes(s) == before and rec.length == length
    rec.apply(s, legal[0], {"policy": {legal[0]: 0.9, illegal: 0.1}, "value": np.float32(0.5)})
    assert rec.record(s).thinking == {length: {"policy": {legal[0]: 0.9}, "value": 0.5}}
    records.check(rec.record(s))


def test_thinking_with_values_priors_and_visits_round_trips_and_names_only_legal_moves(achten_record):
    g, k = achten_record.make_game(), _first_move(achten_record)
    s = records.states(achten_record)[k]
    legal = [int(a) for a in g.legal_actions(s)]
    illegal = int(np.flatnonzero(g.legal_mask(s) == 0)[0])
    told = {"policy": {str(legal[0]): 0.7}, "values": {str(legal[0]): -1.5, str(legal[-1]): 0.25},
            "prior": {str(legal[-1]): 0.4}, "value": -1.5, "visits": 50}
    rich = GameRecord.from_dict(_tampered(achten_record, lambda d: d["thinking"].update({str(k): told})))
    records.check(rich)
    assert rich.thinking[k] == {"policy": {legal[0]: 0.7}, "values": {legal[0]: -1.5, legal[-1]: 0.25},
                                "prior": {legal[-1]: 0.4}, "value": -1.5, "visits": 50}
    assert GameRecord.from_json(rich.to_json()) == rich
    old = GameRecord.from_dict(_tampered(achten_record, lambda d: d["thinking"].update(
        {str(k): {"policy": {str(legal[0]): 1.0}, "value": 0.5}})))  # a record of the first thinking format
    records.check(old)
    for key, what in (("values", "values"), ("prior", "priors")):
        bad = GameRecord.from_dict(_tampered(achten_record, lambda d: d["thinking"].update(
            {str(k): {key: {str(illegal): 0.5}}})))
        with pytest.raises(ValueError,
                           match=rf"move {k}: the thinking gives {what} to actions \[{illegal}\]"):
            records.check(bad)
    for wrong, message in [({"prior": {"1": 1.5}}, r"the prior of action 1 must be a number in 0..1"),
                           ({"values": {"1": float("inf")}}, r"the value of action 1 must be a finite"),
                           ({"visits": -1}, r"visits=-1 must be an integer >= 0"),
                           ({"visits": 2.5}, r"visits=2.5 must be an integer >= 0"),
                           ({"moves": []}, r"must be an object with some of the keys \['policy', 'values'")]:
        with pytest.raises(ValueError, match=rf"thinking\[{k}\]:? {message}"):
            GameRecord.from_dict(_tampered(achten_record, lambda d: d["thinking"].update({str(k): wrong})))


def test_a_recorder_refuses_what_is_not_an_action_id_and_deep_json_is_refused_in_words(tmp_path):
    from octagames.core import IllegalActionError

    g = Game("octrix-round")
    s = g.new_state(0)
    rec = Recorder(g, 0, ["random", "random"])
    before = s.tobytes()
    for action in (23.7, True, "5"):  # Game.apply_action's refusal: nothing truncated, nothing recorded
        with pytest.raises(IllegalActionError, match="is not an action id"):
            rec.apply(s, action)
    assert s.tobytes() == before and rec.record(s).length == 0
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ValueError, match="not a JSON game record"):
        GameRecord.from_json(deep)
    (tmp_path / "deep.json").write_text(deep)
    with pytest.raises(ValueError, match="neither a game record"):
        records.load(tmp_path / "deep.json")


def test_a_read_only_record_is_refused_before_anything_writes_into_it():
    g = Game("octrix-round")
    s = g.new_state(0)
    raw = s.tobytes()
    view = np.frombuffer(raw, g.dtype)[0]  # a view of immutable bytes, as a saved state read back raw
    for call in (lambda: g.apply_action(view, g.sample_chance(g.clone(s))), lambda: g.sample_chance(view),
                 lambda: g.play_chance(view)):
        with pytest.raises(ValueError, match="read-only"):
            call()
    assert raw == s.tobytes() and g.legal_actions(view) == g.legal_actions(s)  # reading it is fine


def test_a_config_given_numpy_integers_gives_records_that_serialize_and_replay():
    from octagames.core import make_game

    g = make_game("octrix-round", num_players=np.int64(2), hand_size=np.int32(3))  # as a sweep over np.arange
    s = g.new_state(4)
    rec = Recorder(g, 4, ["random", "random"])
    while not g.is_terminal(s):
        rec.apply(s, g.sample_chance(s) if g.is_chance(s) else g.legal_actions(s)[0])
    record = GameRecord.from_json(rec.record(s).to_json())
    assert record.config["hand_size"] == 3 and type(record.config["num_players"]) is int
    records.check(record)


@pytest.mark.parametrize("spelling", ["0{}", "+{}", " {}", "{}_0", "{}.0", "٣"])
def test_a_number_keying_thinking_has_one_spelling_so_no_two_keys_name_one_move(achten_record, spelling):
    # int() reads "016" and "16" (or "+16") as one number: the later key's thinking silently replaced the other's
    k = max(achten_record.thinking)
    told = achten_record.to_dict()["thinking"][str(k)]
    other = spelling.format(k)
    with pytest.raises(ValueError, match=rf"thinking: key '{re.escape(other)}' is not a move index written as plain digits"):
        GameRecord.from_dict(_tampered(achten_record, lambda d: d["thinking"].update({other: told})))
    action = max(told["policy"], key=int)
    moves = {**told["policy"], spelling.format(action): 0.0}  # a second share of one action
    with pytest.raises(ValueError, match=rf"thinking\[{k}\]: policy key .* is not an action id written as plain"):
        GameRecord.from_dict(_tampered(achten_record, lambda d: d["thinking"][str(k)].update(policy=moves)))
    assert GameRecord.from_dict(achten_record.to_dict()) == achten_record  # the one spelling reads back
