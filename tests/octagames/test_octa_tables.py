"""Octa's tables declared once, as data: the action tables of both rulebooks, their strings and reasons."""

import numpy as np

from octagames.core import Game
from octagames.octa import INFO, NUM_ACTIONS, action_layout, en, nl
from octagames.octa.rules import Config

from octa_helpers import POOL, setup, start_turn

BOOKS = (en, nl)


def test_module_docstrings_carry_the_declared_tables():
    for book in BOOKS:
        assert book.ACTIONS.table() in book.__doc__, book.__name__


def test_both_action_tables_fill_the_one_action_space():
    assert INFO.num_actions == NUM_ACTIONS
    assert all(book.ACTIONS.size == NUM_ACTIONS for book in BOOKS)
    # the longer table needs every id: the action space is no larger than it must be
    assert min(book.ACTIONS.block("unused").size if "unused" in book.ACTIONS else 0 for book in BOOKS) == 0
    assert action_layout(Config(rules="en")) is en.ACTIONS and action_layout(Config(rules="nl")) is nl.ACTIONS
    assert Game("octa", rules="nl").action_layout is nl.ACTIONS


def test_every_block_has_a_string_and_a_reason():
    for book in BOOKS:
        names = {b.name for b in book.ACTIONS.blocks}
        for table in (book.STRINGS, book.REASONS):
            assert names <= set(table) and set(table) - names <= {"unused"}, book.__name__


def test_a_reason_is_the_reason_of_the_actions_own_block():
    # the first id of a block gets that block's reason (Dutch id 454 once got the attaching reason)
    s = setup("nl", POOL, "♥2 ♥3 ♥5 ♠9 ♠10 ♦A ♣A ♣3", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7")
    start_turn(s, "♦3", "♦J", 0)
    g = Game("octa", rules="nl")
    assert "joker" in g.module.illegal_reason(s, 0, nl.ACTIONS.offset("joker_attach"))
    assert "attach" in g.module.illegal_reason(s, 0, nl.ACTIONS.offset("attach"))
    for book, rules in ((en, "en"), (nl, "nl")):
        s = setup(rules, POOL, "♥2 ♥3 ♥5 ♠9 ♠10 ♦A ♣A ♣3", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7")
        start_turn(s, "♦3", "♦J", 0)
        g = Game("octa", rules=rules)
        mask = g.legal_mask(s)
        for a in np.flatnonzero(mask == 0):
            assert g.module.illegal_reason(s, 0, int(a))  # every refused id has a reason
        if "unused" in book.ACTIONS:
            assert "unused" in g.action_to_string(s, NUM_ACTIONS - 1) or "not used" in g.action_to_string(
                s, NUM_ACTIONS - 1)
