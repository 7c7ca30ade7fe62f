"""What crosses the engine boundary is checked: actions, seats, records, saved games, pickles."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from octagames.core import GAME_NAMES, Game, IllegalActionError
from octagames.envs.vector import make


@pytest.fixture(scope="module")
def octrix():
    g = Game("octrix", num_players=3)
    s = g.new_state(seed=4)
    g.play_chance(s)
    return g, s


@pytest.mark.parametrize("action", [1.5, np.float32(2.7), True, np.bool_(False), None, "3", [3], np.array([3])])
def test_an_action_that_is_not_an_integer_id_is_refused(octrix, action):
    g, s = octrix
    before = s.tobytes()
    with pytest.raises(IllegalActionError, match=r"is not an action id: actions are integers 0\.\.31"):
        g.apply_action(s, action)
    assert s.tobytes() == before


def test_integer_ids_of_every_kind_are_accepted(octrix):
    g, s = octrix
    a = g.legal_actions(s)[0]
    for action in (a, np.int8(a), np.uint64(a), np.array(a)):
        c = g.clone(s)
        g.apply_action(c, action)
        assert c.tobytes() != s.tobytes()


@pytest.mark.parametrize("player", [5, -1, 3, 1.0, True, "0"])
def test_a_bad_seat_is_refused_everywhere(octrix, player):
    g, s = octrix
    for call in (lambda: g.legal_actions(s, player), lambda: g.legal_mask(s, player),
                 lambda: g.observation(s, player), lambda: g.determinize(s, player, 0),
                 lambda: g.render(s, viewer=player)):
        with pytest.raises(ValueError, match=r"player=.* is not valid; valid values: 0\.\.2"):
            call()


def test_a_record_of_another_config_or_game_is_refused(octrix):
    g3, s3 = octrix
    g2 = Game("octrix", num_players=2)
    for call in (g2.legal_actions, g2.returns, g2.current_player, g2.clone, g2.to_bytes):
        with pytest.raises(ValueError, match=r"another octrix config \(num_players=3, this game has 2\)"):
            call(s3)
    achten = Game("achten").new_state(0)
    with pytest.raises(ValueError, match="expected a record of octrix"):
        g3.legal_actions(achten)
    with pytest.raises(ValueError, match="expected a record of octrix"):
        g3.returns(np.zeros(3))
    # the dealer moves in play, so it is not a config field: a match record mid-match is still this game's
    m = Game("octrix", num_players=2, match=True, target=12)
    s = m.new_state(1)
    while not m.is_terminal(s) and int(s["dealer"]) == 0:
        m.apply_action(s, m.sample_chance(s) if m.is_chance(s) else m.legal_actions(s)[0])
    m.returns(s)


def test_the_record_check_compares_values_field_by_field():
    # the check compares the config's bytes first; a record whose bytes differ but whose values are
    # equal (-0.0 against 0.0) is still this config's, and a change to any one config field is refused
    g = Game("achten", deal_penalty=0.0)
    s = g.new_state(0)
    s["deal_penalty"] = -0.0
    assert s.tobytes() != g.new_state(0).tobytes()
    g.legal_actions(s)
    for field, value in g._config_values:
        bad = g.new_state(0)
        bad[field] = value + 1
        with pytest.raises(ValueError, match=rf"another achten config \({field}="):
            g.returns(bad)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_saved_games_round_trip_and_refuse_tampering(name):
    g = Game(name)
    s = g.new_state(seed=2)
    g.play_chance(s)
    data = g.to_bytes(s)
    assert g.from_bytes(data).tobytes() == s.tobytes()
    with pytest.raises(ValueError, match="no format header"):
        g.from_bytes(s.tobytes())  # raw bytes of the right length are not a saved game
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    with pytest.raises(ValueError, match="checksum mismatch"):
        g.from_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="a saved .* record has"):
        g.from_bytes(data[:-1])
    other = "octa" if name != "octa" else "octrix"
    with pytest.raises(ValueError, match=f"saved '{name}' record; this game is '{other}'"):
        Game(other).from_bytes(data)


def test_a_saved_game_of_another_config_is_refused():
    data = Game("octiles", num_players=3).to_bytes(Game("octiles", num_players=3).new_state(0))
    with pytest.raises(ValueError, match="another octiles config"):
        Game("octiles", num_players=2).from_bytes(data)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_games_pickle_and_copy_by_name_and_config(name):
    g = Game(name, num_players=2)
    for clone in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)):
        assert clone.config == g.config and clone.name == g.name
        s = clone.new_state(3)
        assert s.tobytes() == g.new_state(3).tobytes()


def test_a_config_given_with_a_variant_name_must_keep_the_variant_fields():
    from octagames import achten, octrix
    with pytest.raises(ValueError, match=r"variant 'octrix-round' disagrees with it: match=True \(the variant has "
                                         r"False\).*game's name \('octrix'\)"):
        Game("octrix-round", config=octrix.Config())  # the default Config is the match, not one round
    with pytest.raises(ValueError, match=r"'achten-dealer-pays'.*deal_penalty=0.01 \(the variant has 1.0\)"):
        Game("achten-dealer-pays", config=achten.Config())
    kept = Game("octrix-round", config=octrix.Config(match=False, hand_size=4))
    assert kept.config == octrix.Config(match=False, hand_size=4)
    assert Game("octrix-round", config=octrix.Config(), match=False).config.match is False  # a field given wins
    assert Game("octrix", config=octrix.Config(match=False)).config.match is False  # a game's name: any config


def test_the_vector_env_checks_seats_and_saved_states():
    env = make("octrix", num_envs=3, seed=0, num_players=2)
    env.reset()
    with pytest.raises(ValueError, match=r"players\[1\] = 2 is not a seat; valid values: 0\.\.1"):
        env.observe(np.array([0, 2, 1]))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        env.observe(np.array([0, 1]))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        env.observe(np.array([0.0, 1.0, 0.0]))
    saved = env.get_state()
    bad = copy.deepcopy(saved)
    bad["states"][1]["num_players"] = 3
    before = env.get_state()
    with pytest.raises(ValueError, match=r"state\['states'\]\[1\]: .*another octrix config"):
        env.set_state(bad)
    assert all(np.array_equal(before[k], v) for k, v in env.get_state().items())
    # observations, masks and seats come from the records, never from the saved buffers
    forged = copy.deepcopy(saved)
    forged["mask"][:] = 1
    forged["obs"][:] = 7.0
    env.set_state(forged)
    assert np.array_equal(env.action_mask, saved["mask"]) and np.array_equal(env.obs, saved["obs"])


def test_vector_envs_pickle_with_their_games_in_progress():
    env = make("achten", num_envs=4, seed=1, num_players=3)
    env.reset()
    env.step(env.sample_actions())
    clone = pickle.loads(pickle.dumps(env))
    actions = env.sample_actions()
    assert np.array_equal(clone.sample_actions(), actions)
    a, b = env.step(actions), clone.step(actions)
    assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))
    env.close()
    env.step(env.sample_actions())  # a closed env still steps, on the calling thread


# ------------------------------------------------------------------ review findings: seeds, action names, saved data
@pytest.mark.parametrize("data", [b"OCTG\x01", b"OCTG\x01\x00", b"OCTG\x01\x00\x06oct", b"OCTG\x01\x00\x06octrix"],
                         ids=["5 bytes", "6 bytes", "a name cut short", "no layout digest"])
def test_saved_data_too_short_for_its_header_is_refused_in_words(data):
    # 5 and 6 bytes raised IndexError (the name's length byte is the 7th); a name cut short named a game 'oct'
    with pytest.raises(ValueError, match=rf"data has {len(data)} bytes, too short for a saved record \(truncated "
                                         r"or malformed\); a saved octrix record has 188"):
        Game("octrix").from_bytes(data)


def test_saved_data_that_is_not_bytes_is_refused_without_allocating():
    import tracemalloc
    g = Game("octrix")
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"data must be bytes \(a record saved with Game.to_bytes\), not int"):
            g.from_bytes(1 << 26)  # bytes(n) would build n zero bytes first (64 MiB here)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    data = g.to_bytes(g.new_state(2))
    for buffer in (bytearray(data), memoryview(data), np.frombuffer(data, dtype=np.uint8)):
        assert g.from_bytes(buffer).tobytes() == g.from_bytes(data).tobytes()


@pytest.mark.parametrize("seed", [1.5, np.float64(3.0), True, np.bool_(True), "1", None, -1, np.int64(-1),
                                  2**63, np.uint64(2**63)])
def test_a_seed_that_is_not_an_integer_of_the_engine_range_is_refused(octrix, seed):
    # new_state(1.5) played the game of seed 1; 2**63 raised OverflowError from the compiled reset
    g, s = octrix
    msg = r"seed=.* is not valid; it must be an integer in 0\.\.9223372036854775807$"
    with pytest.raises(ValueError, match=msg):
        g.new_state(seed)
    with pytest.raises(ValueError, match=r"seed=.* is not valid; it must be an integer in 0\.\.9223372036854775806 "
                                         r"\(2\*\*63 - 2: game i starts from seed \+ i\)"):
        g.new_batch(2, seed)
    before = s.tobytes()
    with pytest.raises(ValueError, match=msg):
        g.determinize(s, 0, seed)
    assert s.tobytes() == before


def test_seeds_of_every_integer_type_up_to_2_63_minus_1_are_accepted(octrix):
    g, s = octrix
    top = 2**63 - 1
    assert g.new_state(np.uint64(top)).tobytes() == g.new_state(top).tobytes() != g.new_state(top - 1).tobytes()
    assert g.new_state(np.int8(7)).tobytes() == g.new_state(7).tobytes()
    assert [r.tobytes() for r in g.new_batch(3, top - 2)] == [g.new_state(top - k).tobytes() for k in (2, 1, 0)]
    with pytest.raises(ValueError, match=r"seed=9223372036854775806 is not valid; it must be an integer in "
                                         r"0\.\.9223372036854775805 \(2\*\*63 - 3: game i starts from seed \+ i\)"):
        g.new_batch(3, top - 1)  # its last game would get seed 2**63
    with pytest.raises(ValueError, match=r"n=1.0 must be an integer"):
        g.new_batch(1.0)
    assert g.new_batch(0, top).shape == (0,)
    assert g.determinize(s, 1, np.uint64(top)).tobytes() == g.determinize(s, 1, top).tobytes()


def test_an_action_name_is_given_only_for_an_action_id():
    g = Game("achten", num_players=2)  # 17 actions, 52 chance outcomes (the cards dealt)
    s = g.new_state(0)
    assert g.is_chance(s) and g.action_to_string(s, 51).startswith("deal ")
    for bad in (-1, 52):
        with pytest.raises(IllegalActionError, match=rf"action {bad} is not an action id here: chance outcomes "
                                                     r"are 0\.\.51"):
            g.action_to_string(s, bad)
    g.play_chance(s)
    assert g.action_to_string(s, 16) == "stand"
    for bad in (-1, 17, 51):  # 51 was named "action 51"
        with pytest.raises(ValueError, match=rf"action {bad} is not an action id here: actions are 0\.\.16"):
            g.action_to_string(s, bad)


@pytest.mark.parametrize("name", [5, None, b"octrix"])
def test_a_game_name_that_is_not_a_string_is_refused_naming_the_variants(name):
    # AttributeError before: 'int' object has no attribute 'Config'
    with pytest.raises(ValueError, match=rf"game={name!r} is not valid; valid values: \['octrix', "):
        Game(name)
