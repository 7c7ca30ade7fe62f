"""Helpers of the games' ``check_record``: the end of a game, checked by replaying it on a copy.

A finished record's scores, winner and returns must be what the game's own end-of-game kernel
gives; rather than restate that rule, a check rolls the record back to just before the end
(:func:`replay_end`'s ``undo``), runs the kernel on the copy and compares.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np


def sole_leader(scores: Sequence[int] | np.ndarray, target: int) -> bool:
    """Whether exactly one entry of ``scores`` is the highest and it reaches ``target`` (a match is won)."""
    values = [int(v) for v in scores]
    best = max(values)
    return best >= target and values.count(best) == 1


def replay_end(s: np.void, finish: Callable[[np.void], None], undo: dict[str, Any], fields: Sequence[str],
               what: str) -> str:
    """``""`` when ending the game again on a copy of ``s`` gives ``s``'s ``fields``, else one line naming the first
    field that differs.

    Args:
        s: a finished record (already checked field by field, so the kernel is safe to run).
        finish: the game's end-of-game kernel, called on the copy.
        undo: field values that put the copy back to just before the end (returns to zero, the winner unset,
            a match's last round taken off its scores).
        fields: the fields the end decides.
        what: the end in words, for the message (``"the end of the last round"``).
    """
    again = np.array(s, dtype=s.dtype).reshape(1)[0]
    for field, value in undo.items():
        again[field] = value
    finish(again)
    for field in fields:
        if not np.array_equal(again[field], s[field]):
            got, want = np.asarray(s[field]).tolist(), np.asarray(again[field]).tolist()
            return f"{field} = {got}, but {what} gives {want}"
    return ""
