"""A compact observation row for compiled code: the game writes floats, the row keeps integers.

Every entry of a game's float32 observation is ``k / d`` with ``k`` a small
non-negative integer and ``d`` the entry's divisor (1 for the 0/1 entries;
each game declares them in ``<game>/encoding.py``). A :func:`compact_row`
wraps one row of an unsigned integer array and the divisors: passed to the
game's own ``observation(s, player, out)`` as ``out``, it stores
``round(value * d)`` for every ``out[j] = value`` the game writes (``out[:] = 0``
clears the row, ``out[j] += x`` reads ``k / d`` back first). So the game's one
observation function fills a compact row directly, with no float row between
and no second pass, and no rule is written twice.

Only what observation functions do with ``out`` is supported: integer and
slice stores, integer reads, and :func:`copy_entries` (a copy of entries within
the row, which a compact row makes without going through floats). numba
compiles a game's observation once per row type, so the float32 path is
untouched.

:func:`borrowed_row` hands a row of a batch to a kernel (as ``data[i]``) without counting a reference:
the batch kernels (``octagames._batch_template``) pass every row that way.
"""

from __future__ import annotations

import hashlib
import operator
from pathlib import Path

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, make_attribute_wrapper, models, overload, register_jitable, register_model
from numba.np.arrayobj import populate_array


#: digest of this module's source, in the name of every compact row type (see CompactRowType)
SOURCE_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


class CompactRowType(types.Type):
    """numba type of a compact row over a C-contiguous unsigned integer row of type ``data``, whose divisors
    are of the numba dtype ``divisor`` (float32, or unsigned integers)."""

    def __init__(self, data: types.Array, divisor: types.Type) -> None:
        self.data = data
        self.divisor = divisor
        # the name is numba's cache key for the functions compiled for this type: a game's observation is
        # cached beside its rules, whose digest (octagames.specialize) need not cover this module, so the
        # name carries this module's own digest: after any edit here (the row's model, a store) a cache
        # written before is not loaded (an old model's observation read as a new one crashed)
        super().__init__(name=f"CompactRow[{SOURCE_DIGEST}]({data}, {divisor})")


@register_model(CompactRowType)
class _CompactRowModel(models.StructModel):
    # raw pointers, not arrays: a row holds no references, so passing it to every block of an
    # observation costs no reference counting (the caller keeps both arrays alive, see compact_row)
    def __init__(self, dmm, fe_type: CompactRowType) -> None:
        members = [("data", types.CPointer(fe_type.data.dtype)), ("divisor", types.CPointer(fe_type.divisor)),
                   ("size", types.intp)]
        super().__init__(dmm, fe_type, members)


make_attribute_wrapper(CompactRowType, "data", "data")
make_attribute_wrapper(CompactRowType, "divisor", "divisor")
make_attribute_wrapper(CompactRowType, "size", "size")


@intrinsic
def compact_row(typingctx, data, divisor):
    """``compact_row(data, divisor)`` in compiled code: a row that stores ``value * divisor[j]`` at ``j``.

    The row points into both arrays without holding them: it is for passing straight to a
    function that writes an observation (``observation(s, p, compact_row(obs[i], divisor))``),
    while the caller's references keep them alive.

    Args:
        data: one row (1-D, C-contiguous, unsigned integers) receiving the integers ``k``.
        divisor: 1-D C-contiguous, the divisor of every entry (at least as long as ``data``): float32, or
            unsigned integers where every divisor is one (the vector env passes them in the row's own dtype
            where it holds them: a smaller array to keep in the cache, the same stored integers).
    """
    def unsigned(t):
        return isinstance(t, types.Integer) and not t.signed
    if not (isinstance(data, types.Array) and unsigned(data.dtype) and data.ndim == 1 and data.layout == "C"
            and isinstance(divisor, types.Array) and (divisor.dtype == types.float32 or unsigned(divisor.dtype))
            and divisor.ndim == 1 and divisor.layout == "C"):
        return None
    sig = CompactRowType(data, divisor.dtype)(data, divisor)

    def codegen(context, builder, signature, args):
        row = cgutils.create_struct_proxy(signature.return_type)(context, builder)
        arr = context.make_array(signature.args[0])(context, builder, value=args[0])
        div = context.make_array(signature.args[1])(context, builder, value=args[1])
        row.data, row.divisor, row.size = arr.data, div.data, arr.nitems
        return row._getvalue()
    return sig, codegen


@intrinsic
def borrowed_row(typingctx, data, i):
    """``data[i]`` of a C-contiguous 2-D array in compiled code, as a 1-D array that holds no reference.

    ``data[i]`` counts a reference to the whole array when it is made and when it is dropped: two atomic
    operations, each a barrier that waits for every store before it (the rows of a batch just written). A
    borrowed row has no meminfo, so passing it to a kernel (``legal_mask(s, p, borrowed_row(mask, i))``) costs
    no reference counting; it is valid while the caller's reference keeps ``data`` alive, and the callee must
    not keep it. ``i`` is not checked (``0 <= i < data.shape[0]``).
    """
    if not (isinstance(data, types.Array) and data.ndim == 2 and data.layout == "C"
            and isinstance(i, types.Integer)):
        return None
    sig = data.copy(ndim=1, layout="C")(data, i)

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        row = context.make_array(signature.return_type)(context, builder)
        width = builder.extract_value(src.shape, 1)
        start = builder.mul(context.cast(builder, args[1], signature.args[1], types.intp), width)
        populate_array(row, data=builder.gep(src.data, [start]), shape=[width], strides=[src.itemsize],
                       itemsize=src.itemsize, meminfo=None)
        return row._getvalue()
    return sig, codegen


@overload(operator.setitem)
def _setitem(row, index, value):
    if not isinstance(row, CompactRowType):
        return None
    if isinstance(index, types.SliceType):
        def store_slice(row, index, value):
            start, stop, step = index.indices(row.size)
            if value == 0:  # clearing a row: a plain fill (a memset once compiled)
                for j in range(start, stop, step):
                    row.data[j] = 0
            else:
                for j in range(start, stop, step):
                    row.data[j] = value * row.divisor[j] + np.float32(0.5)
        return store_slice
    if isinstance(index, types.Integer):
        def store(row, index, value):
            row.data[index] = value * row.divisor[index] + np.float32(0.5)  # k(1 +- 1e-7) + 0.5: floor is k
        return store
    return None


@overload(operator.getitem)
def _getitem(row, index):
    if isinstance(row, CompactRowType) and isinstance(index, types.Integer):
        return lambda row, index: row.data[index] / np.float64(row.divisor[index])
    return None


def copy_entries(out, dst: int, src: int, n: int) -> None:
    """``out[dst + j] = out[src + j]`` for ``j`` in ``0..n-1``, on a float row or a :func:`compact_row`.

    A compact row copies the integers themselves where the two blocks share
    their divisors (a plain copy, where ``out[dst + j] = out[src + j]`` would
    divide, multiply and round each entry), and converts entry by entry where
    they do not: the result is the same as the entry-by-entry copy. Uncompiled,
    ``out`` is a float array.
    """
    for j in range(n):
        out[dst + j] = out[src + j]


@register_jitable
def _same_divisors(divisor, dst, src, n) -> bool:
    # whether entries dst.. and src.. share their n divisors (a function of its own: a loop that sets a flag,
    # written in the inlined overload below, makes numba warn of a variable out of scope)
    for j in range(n):
        if divisor[dst + j] != divisor[src + j]:
            return False
    return True


@overload(copy_entries, inline="always")
def _copy_entries(out, dst, src, n):
    if isinstance(out, CompactRowType):
        def compact(out, dst, src, n):
            if _same_divisors(out.divisor, dst, src, n):
                for j in range(n):
                    out.data[dst + j] = out.data[src + j]
            else:
                for j in range(n):
                    out[dst + j] = out[src + j]
        return compact

    def direct(out, dst, src, n):
        for j in range(n):
            out[dst + j] = out[src + j]
    return direct
