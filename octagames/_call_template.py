"""Template: any module-level numba function as a cached entry point (see :func:`octagames.specialize.cached`).

Python code that calls a kernel directly (a saved game's check ``checks.validate``,
a reason string that needs a legality helper) would compile it, and everything
it calls, in every process. :func:`octagames.specialize.cached` binds ``target``
here instead: the wrapper is cached on disk and recompiled whenever any source
the target depends on changes.
"""

import numba as nb

from octagames.core import nth_set as target  # specialize: target


@nb.njit(cache=True)
def call(*args):  # type: ignore[no-untyped-def]
    return target(*args)
