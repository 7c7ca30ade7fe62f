"""Octa's tables declared once, as data: the action tables of both rulebooks, their strings and reasons."""

from functools import partial

import numpy as np

from octagames.core import Game
from octagames.octa import INFO, NUM_ACTIONS, OBS_SIZE, action_layout, en, nl, obs_layout
from octagames.octa.common import BASE_OBS_SIZE, FACT_SITUATION_ROW, NUM_FACTS
from octagames.octa.rules import Config
from octagames.octa.view import RUNS_THROUGH

from octa_helpers import POOL, longest_run_through, setup, start_turn

BOOKS = (en, nl)


def test_module_docstrings_carry_the_declared_tables():
    for book in BOOKS:
        assert book.ACTIONS.table() in book.__doc__, book.__name__
        assert book.OBS_LAYOUT.table() in book.__doc__, book.__name__


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


def test_both_observation_layouts_fill_the_one_observation_and_name_their_blocks():
    assert INFO.observation_size == OBS_SIZE
    assert all(book.OBS_LAYOUT.size == OBS_SIZE for book in BOOKS)
    assert obs_layout(Config(rules="en")) is en.OBS_LAYOUT and obs_layout(Config(rules="nl")) is nl.OBS_LAYOUT
    # blocks both layouts have mean the same: the same entries of a position's observation
    s_en = setup("en", POOL, "♥2 ♥3 ♥5 ♠9 ♠10 ♦A ♣A ♣3", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7")
    s_nl = setup("nl", POOL, "♥2 ♥3 ♥5 ♠9 ♠10 ♦A ♣A ♣3", "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7")
    g_en, g_nl = Game("octa", rules="en"), Game("octa", rules="nl")
    v_en = g_en.observation_views(g_en.observation(s_en, 1))
    v_nl = g_nl.observation_views(g_nl.observation(s_nl, 1))
    for name in ("hand", "opp_known", "hand_n", "runs", "pool", "discard_order", "action_tops", "phase",
                 "to_move", "totals", "facts"):
        assert np.array_equal(v_en[name], v_nl[name]), name
    assert v_en["hand"].sum() == 4.0 and v_en["pool"].shape == (8, 40) and v_en["pool"].sum() == 8
    assert v_nl["unused"].sum() == 0
    # the facts come after the entries of the first version, so a network trained on those reads them; the
    # rebuilt stock's block (English) after them
    for book in BOOKS:
        assert [b.name for b in book.OBS_LAYOUT.blocks[-2:]] == ["facts", "rebuilt"]
        assert book.OBS_LAYOUT.offset("facts") == BASE_OBS_SIZE
    # and the facts rows added later come after the first 50 (then the action piles' two after the situation
    # row, the run slots' 26 after those, the cards in runs' 286 after those), so a network trained on those
    # reads them too
    assert Game("octa-en").earlier_observation_sizes == (BASE_OBS_SIZE, BASE_OBS_SIZE + 50 * 8,
                                                         BASE_OBS_SIZE + 187 * 8, BASE_OBS_SIZE + 189 * 8,
                                                         BASE_OBS_SIZE + 215 * 8, BASE_OBS_SIZE + 501 * 8
                                                         ) == (1818, 2218, 3314, 3330, 3538, 5826)
    assert en.OBS_LAYOUT.offset("rebuilt") == 3538 + 26 * 11 * 8  # a row per run slot and position, then the
    assert Game("octa-en").observation_size == 5826 + 40 + 3 + 26 * 11  # rebuilt stock's: kinds, rs_in, rs_f, places
    assert Game("octrix").earlier_observation_sizes == ()


def test_every_observation_entry_is_in_0_1_but_the_situations_hand_sizes():
    g = Game("octa-nl")
    low, high = g.observation_bounds()
    situation = g.observation_layout.offset("facts") + FACT_SITUATION_ROW * NUM_FACTS
    assert not low.any() and np.flatnonzero(high != 1).tolist() == [situation + 2, situation + 7]
    assert high[situation + 2] == 8.0  # 80 number cards / 10


def _held_bit(held: int, pos: int) -> bool:
    return 1 <= pos <= 11 and bool((held >> pos) & 1)


def test_the_runs_through_each_rank_are_the_runs_grown_a_position_at_a_time():
    # view.RUNS_THROUGH (the facts' "interval") against its definition, for every set of held positions
    capped = 0
    for index in range(2048):
        held = index << 1  # bit p: run position p, 1..11
        for rank in range(10):
            longest = longest_run_through(partial(_held_bit, held), [1, 11] if rank == 0 else [rank + 1])
            capped += longest > 10
            assert (int(RUNS_THROUGH[index]) >> (4 * rank)) & 15 == min(longest, 10), (bin(held), rank)
    assert capped > 0  # runs of 11 positions (the ace at both ends) were capped at 10
