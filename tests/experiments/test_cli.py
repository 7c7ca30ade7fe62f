"""Game configs and game specs on the command line (one parser for every script)."""

import pytest

from octagames.experiments.cli import game_from_spec, parse_game_config, parse_game_spec


def test_values_take_the_type_of_the_field():
    assert parse_game_config("num_players=3, match=true,target=88", "octrix") == {
        "num_players": 3, "match": True, "target": 88}
    assert parse_game_config(("deal_penalty=1", "match=0"), "achten") == {"deal_penalty": 1.0, "match": False}
    assert parse_game_config(("deal_penalty=1,match=0", "ranks=5"), "achten") == {
        "deal_penalty": 1.0, "match": False, "ranks": 5}
    assert isinstance(parse_game_config("deal_penalty=1", "achten")["deal_penalty"], float)
    assert parse_game_config("rules=nl", "octa") == {"rules": "nl"}
    assert parse_game_config("", "octiles") == {} and parse_game_config((), "octiles") == {}


def test_bad_entries_name_the_field_and_the_choices():
    with pytest.raises(ValueError, match=r"fields: \[.*'hand_size'"):
        parse_game_config("nope=1", "octrix")
    with pytest.raises(ValueError, match="key=value"):
        parse_game_config(("ranks",), "octrix")
    with pytest.raises(ValueError, match="must be true or false"):
        parse_game_config("match=maybe", "octrix")
    with pytest.raises(ValueError, match="ranks='four' is not a int"):
        parse_game_config("ranks=four", "octrix")
    with pytest.raises(ValueError, match="game='chess' is not valid; valid values"):
        parse_game_config("", "chess")


def test_game_specs():
    assert parse_game_spec("octa:rules=nl") == ("octa", {"rules": "nl"})
    assert parse_game_spec(" octrix ") == ("octrix", {})
    assert parse_game_spec("achten:num_players=3,deal_penalty=0.5") == (
        "achten", {"num_players": 3, "deal_penalty": 0.5})
    g = game_from_spec("octrix:num_players=3,hand_size=5")
    assert g.num_players == 3 and g.config.hand_size == 5
    with pytest.raises(ValueError, match="num_players"):  # the game's own check of the value
        game_from_spec("octa:num_players=5")
