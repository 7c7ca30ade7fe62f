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
