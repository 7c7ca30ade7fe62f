"""Both Octa rulebooks behind one set of rulebook hooks, chosen at run time by the record's ``rules`` field.

:mod:`octagames.octa.turn` calls its rulebook through the hooks of a module
bound at compile time (``book``). Imported as it is, ``turn`` binds this
module: every hook is a plain ``if`` on ``s["rules"]`` (0 = en, 1 = nl), so
the package's own kernels (``octagames.octa.legal_mask``, ...) run records of
either rulebook, and numba compiles both. :class:`~octagames.core.Game` and
the faces never use them: they compile ``turn`` specialised on the one
rulebook of their config (:func:`octagames.octa.rules.kernel_module`).
"""

from __future__ import annotations

import numba as nb

from octagames.octa import en, nl
from octagames.octa.common import RULES_NL


@nb.njit
def gen_legal(s, p, out) -> int:
    if s["rules"] == RULES_NL:
        return nl.gen_legal(s, p, out)
    return en.gen_legal(s, p, out)


@nb.njit
def apply(s, a) -> bool:
    if s["rules"] == RULES_NL:
        return nl.apply(s, a)
    return en.apply(s, a)


@nb.njit
def observation(s, player, out) -> None:
    if s["rules"] == RULES_NL:
        nl.observation(s, player, out)
    else:
        en.observation(s, player, out)


@nb.njit
def score(s, p) -> int:
    if s["rules"] == RULES_NL:
        return nl.score(s, p)
    return en.score(s, p)


@nb.njit
def winner(s) -> int:
    if s["rules"] == RULES_NL:
        return nl.winner(s)
    return en.winner(s)


@nb.njit
def turn_start(s) -> None:
    if s["rules"] == RULES_NL:
        nl.turn_start(s)
    else:
        en.turn_start(s)


@nb.njit
def enter(s, phase) -> None:
    if s["rules"] == RULES_NL:
        nl.enter(s, phase)
    else:
        en.enter(s, phase)


@nb.njit
def after_action_step(s) -> None:
    if s["rules"] == RULES_NL:
        nl.after_action_step(s)
    else:
        en.after_action_step(s)


@nb.njit
def stock_emptied(s) -> None:
    if s["rules"] == RULES_NL:
        nl.stock_emptied(s)
    else:
        en.stock_emptied(s)


@nb.njit
def chance_fits(s, p) -> bool:
    if s["rules"] == RULES_NL:
        return nl.chance_fits(s, p)
    return en.chance_fits(s, p)


@nb.njit
def restock_actions(s) -> None:
    if s["rules"] == RULES_NL:
        nl.restock_actions(s)
    else:
        en.restock_actions(s)
