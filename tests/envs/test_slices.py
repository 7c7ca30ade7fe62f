"""The vector env's worker threads (octagames.envs._slices): every slice run, errors raised, threads stopped."""

from __future__ import annotations

import gc
import multiprocessing
import threading
import time
import weakref

import numba as nb
import numpy as np
import pytest

from octagames.envs._slices import POLL_SECONDS, SlicePool


@nb.njit(nogil=True)
def _fill(out, value, spins):
    # a nogil kernel like the env's: writes its slice after some work
    t = 0
    for i in range(spins):
        t += i % 7
    for j in range(out.shape[0]):
        out[j] = value + (t & 0)


def _slice_threads() -> int:
    return sum(t.name.startswith("octagames-slice-") for t in threading.enumerate())


def _wait_for_threads(n: int) -> int:
    for _ in range(200):
        if _slice_threads() == n:
            break
        time.sleep(0.01)
    return _slice_threads()


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_every_slice_runs_once_per_call(workers):
    pool = SlicePool(workers)
    out = np.zeros(40 * (workers + 1), dtype=np.int64)
    parts = np.array_split(out, workers + 1)
    for rnd in range(1, 300):  # short jobs back to back, and some after the workers went to sleep
        if rnd % 50 == 0:
            time.sleep(20 * POLL_SECONDS)
        pool.run(_fill, (parts[0], rnd, 1000), [(p, rnd + w + 1, 1000) for w, p in enumerate(parts[1:])])
        expected = np.concatenate([np.full(len(p), rnd + w) for w, p in enumerate(parts)])
        assert np.array_equal(out, expected), rnd
    pool.close()


def _raise_on(value: int, out: np.ndarray, fail: int) -> None:
    time.sleep(0.01 if value != fail else 0.0)
    out[:] = value
    if value == fail:
        raise ZeroDivisionError(f"job {value}")


@pytest.mark.parametrize("fail", [0, 2])  # the calling thread's slice, a worker's
def test_an_error_is_raised_after_every_slice_finished_and_the_pool_stays_usable(fail):
    pool = SlicePool(2)
    out = np.zeros(3, dtype=np.int64)
    with pytest.raises(ZeroDivisionError, match=f"job {fail}"):
        pool.run(_raise_on, (0, out[0:1], fail), [(1, out[1:2], fail), (2, out[2:3], fail)])
    assert out.tolist() == [0, 1, 2]  # the other slices ran to their end before run raised
    pool.run(_raise_on, (5, out[0:1], -1), [(6, out[1:2], -1), (7, out[2:3], -1)])  # no stale error
    assert out.tolist() == [5, 6, 7]
    pool.close()


def test_close_and_collection_stop_the_threads():
    gc.collect()  # pools of earlier tests in this process that only a collection frees: their threads end now
    before = _slice_threads()
    pool = SlicePool(2)
    assert _slice_threads() == before + 2
    pool.close()
    assert _slice_threads() == before
    with pytest.raises(RuntimeError, match="closed"):
        pool.run(_fill, (np.zeros(1, np.int64), 1, 0), [])
    pool = SlicePool(3)
    pool.run(_fill, (np.zeros(1, np.int64), 1, 0), [(np.zeros(1, np.int64), 1, 0)])
    del pool
    gc.collect()
    assert _wait_for_threads(before) == before  # an unused pool is collected and its threads end


class _Owner:
    """What a vector env is to its pool: the owner of the pool whose jobs are its bound methods."""

    def __init__(self) -> None:
        self.pool, self.out = SlicePool(2), np.zeros(2, dtype=np.int64)

    def fill(self, k: int) -> None:
        _fill(self.out[k:k + 1], k + 1, 0)


def test_an_owner_dropped_without_close_is_collected_and_its_threads_end():
    """A worker held its last job (a bound method of the owner) while it waited for the next one, so an env that
    had stepped on threads and was dropped without close() stayed alive, with its arrays and threads."""
    gc.collect()
    before = _slice_threads()
    owner = _Owner()
    owner.pool.run(owner.fill, (0,), [(1,)])
    assert owner.out.tolist() == [1, 2]
    ref = weakref.ref(owner)
    del owner
    gc.collect()
    assert ref() is None
    assert _wait_for_threads(before) == before


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="workers"):
        SlicePool(0)
    pool = SlicePool(1)
    with pytest.raises(ValueError, match="2 jobs for 1 workers"):
        pool.run(_fill, (np.zeros(1, np.int64), 1, 0), [(np.zeros(1, np.int64), 1, 0)] * 2)
    pool.close()


_FORKED: SlicePool | None = None


def _in_child(q) -> None:  # type: ignore[no-untyped-def]
    out = np.zeros(2, dtype=np.int64)
    assert _FORKED is not None
    _FORKED.run(_fill, (out[:1], 3, 10), [(out[1:], 4, 10)])
    q.put(out.tolist())


def test_a_forked_child_starts_its_own_threads():
    global _FORKED
    _FORKED = SlicePool(1)
    _FORKED.run(_fill, (np.zeros(1, np.int64), 1, 0), [(np.zeros(1, np.int64), 1, 0)])
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=_in_child, args=(q,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert q.get(timeout=5) == [3, 4]
    _FORKED.close()
    _FORKED = None
