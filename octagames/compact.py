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
slice stores, integer reads. numba compiles a game's observation once per row
type, so the float32 path is untouched.
"""

from __future__ import annotations

import operator

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, make_attribute_wrapper, models, overload, register_model


class CompactRowType(types.Type):
    """numba type of a compact row over an unsigned integer row of type ``data``."""

    def __init__(self, data: types.Array) -> None:
        self.data = data
        super().__init__(name=f"CompactRow({data})")


@register_model(CompactRowType)
class _CompactRowModel(models.StructModel):
    def __init__(self, dmm, fe_type: CompactRowType) -> None:
        members = [("data", fe_type.data), ("divisor", types.Array(types.float32, 1, "C"))]
        super().__init__(dmm, fe_type, members)


make_attribute_wrapper(CompactRowType, "data", "data")
make_attribute_wrapper(CompactRowType, "divisor", "divisor")


@intrinsic
def compact_row(typingctx, data, divisor):
    """``compact_row(data, divisor)`` in compiled code: a row that stores ``value * divisor[j]`` at ``j``.

    Args:
        data: one row (1-D, unsigned integers) receiving the integers ``k``.
        divisor: float32 1-D C-contiguous, the divisor of every entry.
    """
    if not (isinstance(data, types.Array) and isinstance(data.dtype, types.Integer) and not data.dtype.signed
            and data.ndim == 1 and divisor == types.Array(types.float32, 1, "C")):
        return None
    sig = CompactRowType(data)(data, divisor)

    def codegen(context, builder, signature, args):
        row = cgutils.create_struct_proxy(signature.return_type)(context, builder)
        row.data, row.divisor = args
        for t, v in zip(signature.args, args):  # the row holds references to both arrays
            context.nrt.incref(builder, t, v)
        return row._getvalue()
    return sig, codegen


@overload(operator.setitem)
def _setitem(row, index, value):
    if not isinstance(row, CompactRowType):
        return None
    if isinstance(index, types.SliceType):
        def store_slice(row, index, value):
            start, stop, step = index.indices(row.data.shape[0])
            if value == 0 and step == 1:
                row.data[start:stop] = 0
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
