"""Worker threads that step the vector env's slices, with a short hand-over.

The vector env hands its worker threads two jobs a step (the random sampler and
the step). Through a :class:`~concurrent.futures.ThreadPoolExecutor` each hand-over
wakes a sleeping thread through the kernel and back, which on a virtual machine
costs tens of microseconds: a round trip with no work took 23-46 µs on the 2-core
development machine, about a tenth of Octrix's step of 4,096 games on two threads.

Here a worker that has finished a job keeps polling for the next one for
:data:`POLL_SECONDS` (in compiled code, without the GIL) before it sleeps on an
event, and the calling thread polls for the workers' results the same way before
it sleeps on an event of its own. Every poll calls ``sched_yield``, so where
threads outnumber the cores a polling thread gives its core to one that has work.
A round trip with no work took 10-13 µs, and between the trainers' steps a worker
polls for at most :data:`POLL_SECONDS` before it sleeps.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: how long an idle worker polls for its next job before it sleeps (seconds)
POLL_SECONDS = 50e-6


@intrinsic
def _load_acquire(typingctx, flags, i):  # type: ignore[no-untyped-def]
    """``flags[i]`` (int64) read with an atomic acquire load: a polling loop rereads what another thread
    writes (a plain load may be hoisted out of the loop), and what that thread wrote before is visible."""
    if not (isinstance(flags, types.Array) and flags.dtype == types.int64 and flags.ndim == 1
            and isinstance(i, types.Integer)):
        return None
    sig = types.int64(flags, types.intp)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [args[1]])
        return builder.load_atomic(ptr, "acquire", 8)
    return sig, codegen


@intrinsic
def _sched_yield(typingctx):  # type: ignore[no-untyped-def]
    """libc's ``sched_yield()``: lets another thread that is ready to run on this core run first (a machine
    with more threads than cores: a polling thread then costs the others little). Nothing where the C
    library has none (not POSIX)."""
    sig = types.int32()

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        if os.name != "posix":
            return ir.Constant(ir.IntType(32), 0)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        return builder.call(fn, [])
    return sig, codegen


if nb.config.DISABLE_JIT:  # uncompiled (NUMBA_DISABLE_JIT=1): a plain read, the loop below runs in Python
    def _load_acquire(flags: np.ndarray, i: int) -> int:  # noqa: F811
        return int(flags[i])

    def _sched_yield() -> int:  # noqa: F811
        return 0


@nb.njit(nogil=True, cache=True)
def _poll(flags: np.ndarray, i: int, value: int, equal: bool, polls: int) -> bool:
    """Read ``flags[i]`` up to ``polls`` times until it equals ``value`` (``equal``) or differs from it;
    whether it did."""
    for _ in range(polls):
        if (_load_acquire(flags, i) == value) == equal:
            return True
        _sched_yield()
    return False


class _Shared:
    """What the workers share with the pool: not the pool itself, so an unused pool is collected and
    its finalizer stops the threads."""

    def __init__(self, workers: int, polls: int) -> None:
        self.seq = np.zeros(workers, dtype=np.int64)    # job number handed to worker w
        self.done = np.zeros(workers, dtype=np.int64)   # job number worker w finished
        self.jobs: list[tuple[Callable[..., Any], tuple[Any, ...]] | None] = [None] * workers
        self.errors: list[BaseException | None] = [None] * workers
        self.sleeping = [False] * workers               # worker w sleeps on events[w]
        self.events = [threading.Event() for _ in range(workers)]
        self.waiting = False                            # the caller sleeps on finished
        self.finished = threading.Event()
        self.polls = polls
        self.stop = False


def _work(sh: _Shared, w: int) -> None:
    last = 0
    while True:
        if not _poll(sh.seq, w, last, False, sh.polls):
            # nothing within the poll window: sleep until the pool sets the event. The GIL orders these
            # lines against SlicePool.run's (seq first, then sleeping), so no hand-over is missed.
            ev = sh.events[w]
            ev.clear()
            sh.sleeping[w] = True
            if sh.seq[w] == last and not sh.stop:
                ev.wait()
            sh.sleeping[w] = False
            continue
        if sh.stop:
            return
        last = int(sh.seq[w])
        job = sh.jobs[w]
        sh.jobs[w] = None
        try:
            assert job is not None
            job[0](*job[1])
        except BaseException as e:  # handed to the caller by SlicePool.run
            sh.errors[w] = e
        # not held while this thread waits for the next job: a job is a bound method of the env and slices of its
        # arrays, which kept an env that was dropped without close() (and its pool's threads) alive
        job = None
        sh.done[w] = last
        if sh.waiting:
            sh.finished.set()


@functools.cache
def _calibrate() -> int:
    # polls per POLL_SECONDS on this machine, measured once per process (a poll is an atomic load, a
    # compare and a sched_yield call: about 0.5 µs on the development machine)
    flags = np.zeros(1, dtype=np.int64)
    _poll(flags, 0, 1, True, 1)
    n = 256
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        _poll(flags, 0, 1, True, n)
        best = min(best, time.perf_counter() - t)
    return max(10, int(n * POLL_SECONDS / max(best, 1e-9)))


def _stop(sh: _Shared, threads: list[threading.Thread]) -> None:
    sh.stop = True
    for w, ev in enumerate(sh.events):
        sh.seq[w] += 1
        ev.set()
    for t in threads:
        if t is not threading.current_thread():
            t.join()


class SlicePool:
    """``workers`` threads that each run one slice of a job while the calling thread runs another.

    ``run(fn, own, per_worker)`` calls ``fn(*own)`` on the calling thread and
    ``fn(*per_worker[w])`` on worker ``w`` at the same time, and returns when all
    have finished; an exception raised in any of them is raised by ``run`` after
    all have finished. ``fn`` should release the GIL (numba ``nogil`` kernels).
    One thread at a time may call ``run``. After ``os.fork`` the child starts its
    own threads.
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers={workers!r} is not valid; it must be an integer >= 1")
        self.workers = int(workers)
        self._polls = _calibrate()
        self._start()

    def _start(self) -> None:
        self._pid = os.getpid()
        self._sh = _Shared(self.workers, self._polls)
        threads = [threading.Thread(target=_work, args=(self._sh, w), daemon=True, name=f"octagames-slice-{w}")
                   for w in range(self.workers)]
        for t in threads:
            t.start()
        self._finalizer = weakref.finalize(self, _stop, self._sh, threads)

    def run(self, fn: Callable[..., Any], own: Sequence[Any], per_worker: Sequence[Sequence[Any]]) -> None:
        """Run ``fn(*own)`` here and ``fn(*per_worker[w])`` on worker ``w`` (at most ``workers`` of them)."""
        if not self._finalizer.alive:
            raise RuntimeError("the pool is closed")
        if len(per_worker) > self.workers:
            raise ValueError(f"{len(per_worker)} jobs for {self.workers} workers")
        if os.getpid() != self._pid:  # a forked child has none of its parent's threads
            self._finalizer.detach()
            self._start()
        sh = self._sh
        for w, args in enumerate(per_worker):
            sh.jobs[w] = (fn, tuple(args))
            sh.seq[w] += 1
            if sh.sleeping[w]:
                sh.events[w].set()
        try:
            fn(*own)
        finally:
            for w in range(len(per_worker)):
                while not _poll(sh.done, w, int(sh.seq[w]), True, sh.polls):
                    # a long slice, or a busy machine: sleep until a worker finishes (the GIL orders these
                    # lines against _work's last ones, done first, then waiting), not spin beside it
                    sh.finished.clear()
                    sh.waiting = True
                    if sh.done[w] != sh.seq[w]:
                        sh.finished.wait()
                    sh.waiting = False
        errors = [e for e in sh.errors if e is not None]
        sh.errors[:] = [None] * self.workers
        if errors:
            raise errors[0]

    def close(self) -> None:
        """Stop and join the worker threads (also done when the pool is collected)."""
        self._finalizer()
