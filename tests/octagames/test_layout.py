"""The table declarations of octagames.core (Block, Layout)."""

import numpy as np
import pytest

from octagames.core import Block, Layout

ACTIONS = Layout([Block("keep", 1, "keep the dealt hand"),
                  Block("swap", 9, "swap hand slot i with pot slot j", (3, 3)),
                  Block("none", 0, "an empty block"),
                  Block("pass", 1, "end the round")], title="action")


def test_offsets_follow_the_declaration_order():
    assert [ACTIONS.offset(b.name) for b in ACTIONS.blocks] == [0, 1, 10, 10]
    assert ACTIONS.end("swap") == 10 and ACTIONS.size == len(ACTIONS) == 11
    assert "swap" in ACTIONS and "claw" not in ACTIONS


def test_locate_names_the_block_and_the_index_inside_it():
    assert [(b.name, i) for b, i in map(ACTIONS.locate, range(11))] == \
        [("keep", 0)] + [("swap", i) for i in range(9)] + [("pass", 0)]
    with pytest.raises(IndexError, match="outside 0..10"):
        ACTIONS.locate(11)
    assert ACTIONS.locate(np.int16(4))[1] == 3
    for index in (1.5, 2.0, True, "3", None):  # 1.5 was read as 1, True as 1 and "3" as 3
        with pytest.raises(TypeError, match=f"index {index!r} is not an integer"):
            ACTIONS.locate(index)


def test_an_unknown_block_name_is_refused_listing_the_blocks():
    # a bare KeyError('nope') said nothing of the names there are
    for lookup in (ACTIONS.offset, ACTIONS.end, ACTIONS.block):
        with pytest.raises(KeyError, match="no block 'claw'; the blocks: keep, swap, none, pass"):
            lookup("claw")


def test_views_reshape_each_block_without_copying():
    obs = np.arange(22.0).reshape(2, 11)
    views = ACTIONS.views(obs)
    assert views["swap"].shape == (2, 3, 3) and views["swap"][1, 2, 0] == 11 + 7
    views["pass"][0, 0] = -1
    assert obs[0, 10] == -1
    with pytest.raises(ValueError, match="last axis of 11"):
        ACTIONS.views(np.zeros(12))


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="appears twice"):
        Layout([Block("a", 1, ""), Block("a", 2, "")])
    with pytest.raises(ValueError, match="does not hold"):
        Block("b", 5, "", (2, 2))


def test_the_table_lists_every_block_with_its_range():
    lines = ACTIONS.table().splitlines()
    assert lines[1].split() == ["action", "size", "meaning"]
    assert lines[3].split()[:3] == ["0", "1", "``keep``:"]
    assert lines[4].split()[:3] == ["1..9", "9", "``swap``:"]
    assert lines[6].split()[:3] == ["10", "1", "``pass``:"]
