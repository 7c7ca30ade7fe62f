"""The contract's compiled helpers (``octagames.core``) against their definitions."""

from __future__ import annotations

import numpy as np
import pytest

from octagames.core import Game, UnknownConfigFieldError, is_count, nth_set


def test_nth_set_finds_the_kth_non_zero_entry_of_short_and_long_masks():
    # lengths around the long masks' blocks of 64 entries and their last, shorter one; sparse and dense masks
    rng = np.random.default_rng(8)
    checked = 0
    for n in (0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, 193, 284, 1074):  # 64: one bit set
        for density in (0.0, 0.01, 0.2, 1.0):
            for dtype in (np.uint8, np.bool_):
                mask = (rng.random(n) < density).astype(dtype)
                where = np.flatnonzero(mask)
                for k in range(-1, where.size + 2):
                    assert nth_set(mask, k) == (where[k] if 0 <= k < where.size else -1), (n, density, k)
                    checked += 1
    assert checked > 2000


def test_a_count_is_plain_ascii_digits_whatever_str_isdigit_says():
    assert all(is_count(t) for t in ("0", "7", "0100", "2000"))
    # "²" and "٣" are digits to str.isdigit: int() refuses the first and reads the second as 3
    assert not any(is_count(t) for t in ("", "²", "\u0663", "1\u0663", "+1", "-1", "1_000", " 5", "1.0"))


def test_an_unknown_config_field_is_a_value_error_and_a_type_error_naming_the_keyword():
    """A ValueError naming the valid fields, and the TypeError Python raises for a keyword a function lacks, which
    tools that pass optional keywords (TorchRL's GymEnv: frameskip) catch to retry without them."""
    with pytest.raises(UnknownConfigFieldError) as caught:
        Game("octrix-round", frameskip=4)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypeError)
    assert str(caught.value).startswith("unknown config field(s) ['frameskip'] for octrix; valid fields: [")
    assert str(caught.value).endswith("(unexpected keyword argument 'frameskip')")


def test_a_numpy_bool_is_the_bool_it_equals_for_every_boolean_field():
    """Every boolean field refused numpy's booleans (from a sweep's arrays) with 'match=np.True_ is not valid;
    valid values: [False, True]'; integers still refuse bools, and booleans integers."""
    for name, field in [("octrix", "match"), ("octrix", "partnership"), ("achten", "match"), ("octiles", "team"),
                        ("octiles", "play_on"), ("octiles", "adjacent"), ("octiles", "goal_locks")]:
        fields = {field: np.True_, "num_players": 4} if field in ("partnership", "team") else {field: np.True_}
        assert getattr(Game(name, **fields).config, field) == getattr(Game(name, **{**fields, field: True}).config,
                                                                      field)
    with pytest.raises(ValueError, match=r"match=1 is not valid; valid values: \[False, True\]"):
        Game("octrix", match=1)
    with pytest.raises(ValueError, match=r"num_players=np.True_ must be an integer"):
        Game("octrix", num_players=np.True_)


def test_apply_actions_applies_all_or_none_and_names_the_action_it_could_not_play():
    game = Game("octrix-round-small")
    s = game.new_state(seed=0)
    before = s.tobytes()
    with pytest.raises(ValueError, match=r"^actions\[1\]: chance outcome 999 is not possible here.*no action of "
                                         r"the sequence was applied"):
        game.apply_actions(s, [0, 999])
    assert s.tobytes() == before  # the first outcome, applied before the second was refused, is undone
    batch = game.new_batch(2)  # a record that is a row of a batch is left as it was in the batch too
    row = batch.tobytes()
    with pytest.raises(ValueError, match=r"^actions\[2\]"):
        game.apply_actions(batch[1], [0, 1, -1])
    assert batch.tobytes() == row
    game.apply_actions(s, [0, 1])
    assert s.tobytes() != before and game.chance_outcomes(s)[0][0] == 2  # two cards dealt, the next outcome 2
