"""A compact row (``octagames.compact``) stores what a float row would hold, times each entry's divisor.

The games' own observations are compared with their float32 ones in
``tests/envs/test_vector.py``; here the row's operations are checked one by one,
on entries whose divisors differ, which no game's copies exercise.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba as nb
import numpy as np
import pytest

from octagames import compact
from octagames.compact import borrowed_row, compact_row, copy_entries

DIVISOR = np.array([1, 2, 10, 2, 1, 2, 10, 80, 2, 10], np.float32)


@nb.njit
def _write(out, values, copies):
    # the operations an observation does: clear, store, read-modify-write, copy within the row
    out[:] = 0
    for j in range(values.shape[0]):
        if values[j] != 0:
            out[j] = values[j]
    out[1] += 0.5
    out[0] = max(out[0], 1.0)
    for c in range(copies.shape[0]):
        copy_entries(out, copies[c, 0], copies[c, 1], copies[c, 2])


@nb.njit
def _write_compact(data, divisor, values, copies):
    _write(compact_row(data, divisor), values, copies)


@nb.njit
def _fill(data, divisor, start, stop, value):
    row = compact_row(data, divisor)
    row[start:stop] = value


COPIES = np.array([[5, 0, 3],   # divisors 2 10 80 <- 1 2 10: every entry converted
                   [8, 1, 2],   # 2 10 <- 2 10: the integers copied as they are
                   [8, 5, 2]],  # 2 10 <- 2 10, from the entries the first copy wrote
                  np.int64)


@pytest.mark.parametrize("dtype,divisor_dtype", [(np.uint8, np.float32), (np.uint16, np.float32),
                                                 (np.uint8, np.uint8), (np.uint16, np.uint16)])
def test_a_compact_row_holds_the_float_row_times_its_divisors(dtype, divisor_dtype):
    """The same integers whether the row reads its divisors as float32 or as integers (the vector env passes
    them in the row's dtype where it holds them)."""
    divisor = DIVISOR.astype(divisor_dtype)
    rng = np.random.default_rng(3)
    for _ in range(200):
        values = (rng.integers(0, 3, DIVISOR.shape[0]) / DIVISOR).astype(np.float32)
        plain = np.full(DIVISOR.shape[0], 7.0, np.float32)  # stale entries: the clear must reach them
        _write(plain, values, COPIES)
        data = np.full(DIVISOR.shape[0], 9, dtype)
        _write_compact(data, divisor, values, COPIES)
        assert np.array_equal(data.astype(np.float32) / DIVISOR, plain)


def test_the_uncompiled_copy_is_the_entry_by_entry_copy():
    out = np.arange(10, dtype=np.float32)
    copy_entries(out, 1, 0, 4)  # overlapping, ascending: each entry copies the one just written
    assert out.tolist() == [0, 0, 0, 0, 0, 5, 6, 7, 8, 9]


def test_a_slice_store_writes_each_entry_of_the_slice_only():
    data = np.full(DIVISOR.shape[0], 3, np.uint8)
    _fill(data, DIVISOR, 2, 5, 1.0)  # divisors 10 2 1
    assert data.tolist() == [3, 3, 10, 2, 1, 3, 3, 3, 3, 3]
    _fill(data, DIVISOR, 0, 10, 0)
    assert not data.any()


def test_the_row_type_is_named_by_the_modules_source_so_an_edit_misses_the_old_cache():
    @nb.njit
    def row(data, divisor):
        return compact_row(data, divisor)

    args = (nb.typeof(np.zeros(3, np.uint8)), nb.typeof(DIVISOR))
    row.compile(args)  # compiled, not called: a row is not a Python object
    name = str(row.overloads[args].signature.return_type)
    digest = hashlib.sha256(Path(compact.__file__).read_bytes()).hexdigest()[:12]
    assert name == f"CompactRow[{digest}](array(uint8, 1d, C), float32)"


@nb.njit
def _fill_row(values, start):
    # a kernel writing a row it was handed, as the batch kernels hand their rows to a game's kernels
    for j in range(values.shape[0]):
        values[j] = start + j
    return values.shape[0], values.strides[0]


@nb.njit
def _through_borrowed(data, i, start):
    return _fill_row(borrowed_row(data, i), start)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_a_borrowed_row_is_the_row_of_the_array(dtype):
    # borrowed_row(data, i) is data[i] without a reference of its own: the same memory, shape and strides
    data = np.zeros((4, 5), dtype)
    assert _through_borrowed(data, 2, 7) == (5, data.itemsize)
    want = np.zeros((4, 5), dtype)
    want[2] = np.arange(7, 12)
    assert np.array_equal(data, want)
    view = data[1:3]  # a slice of the batch (a thread's), as the vector env passes them
    _through_borrowed(view, 0, 20)
    assert data[1].tolist() == list(range(20, 25)) and data[2].tolist() == list(range(7, 12))
