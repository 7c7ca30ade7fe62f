"""Scenario and random-play tests of Octa under the English rules (``rules="en"``).

Scenarios are explicit: the setup deal and every draw are chosen chance
outcomes, and moves are given by their readable action strings, so each test
reads like a game record. A few tests place cards directly with the shared
table helpers (marked ``force_*``) to reach late-game situations quickly.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from octagames.core import CHANCE, Game, IllegalActionError
from octagames.octa import check_record, common as C, en
from octagames.octa.rules import Config, card_name
from octagames.octa.view import run_string

from octa_helpers import (assert_action_names_distinct, assert_same_view, assert_valid, can, do,
                          force_discard, force_run, hand_of, ids, kind, legal_strings, play_both, start_turn)
from octa_helpers import POOL, compiled_and_uncompiled_agree, heuristic_wins, position_set
from octa_helpers import assert_facts_of_the_table, assert_facts_recounted, assert_pile_facts
from octa_helpers import setup as _setup


GAME = Game("octa", rules="en")
setup = partial(_setup, "en")


H0 = "♥2 ♥3 ♥4 ♥5 ♠9 ♠10 ♦A ♣A"
H1 = "♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7"


# ---------------------------------------------------------------- config and setup
def test_config_validation():
    assert Config().rules == "en"
    assert Config(rules="nl").rules == "nl"  # the Dutch rules: tests/octagames/test_octa_nl.py
    with pytest.raises(ValueError, match="rules"):
        Config(rules="de")
    with pytest.raises(ValueError, match="num_players"):
        Config(num_players=3)
    with pytest.raises(ValueError, match="max_turns"):
        Config(max_turns=0)


def test_setup_deal_and_first_draw():
    s = setup(POOL, H0, H1, start=1)
    assert int(s["stock_n"]) == 56 and list(s["hand_n"]) == [8, 8]
    assert sorted(int(c) for c in s["pool"]) == sorted(ids(POOL))
    assert list(s["token_loc"]) == [C.TOK_CENTRE, C.TOK_CENTRE]
    # 8 set aside, 16 in the stack of which the top two are face up
    assert int(s["aside_n"]) == 8 and int(s["astack_n"]) == 14 and list(s["apile_n"]) == [1, 1]
    assert GAME.current_player(s) == CHANCE and int(s["cur"]) == 1  # P1 drawn to start; step 1 is a draw
    do(s, "P1 draws ♣10")
    assert hand_of(s, 1).count("♣10") == 1 and int(s["stock_n"]) == 55
    do(s, "P1 turns action card ♣K")
    assert GAME.current_player(s) == 1 and int(s["phase"]) == C.PH_PILE
    assert_valid(s)


# ---------------------------------------------------------------- action cards
def _p1_lays_hearts(s):
    """P1's first turn: a ♥6-♥10 run with option A, no token, no exchange, no discard."""
    start_turn(s, "♣10", "♣K", 0)  # tops ♣K | ♠Q: different suits, no action
    assert int(s["phase"]) == en.PH_OPTION
    do(s, "start a new run (option A) with ♥6", "lay ♥7", "lay ♥8", "lay ♥9", "lay ♥10",
       "commit the run being laid", "keep your token in the pool centre", "no exchange with the pool",
       "end the turn without discarding")


def test_jack_replaces_a_run_card_and_its_face_down_card_is_replaced_only_in_a_later_turn():
    s = setup(POOL, H0, H1, start=1)
    _p1_lays_hearts(s)
    start_turn(s, "♣9", "♠J", 0)  # tops ♠J | ♠Q: same suit, the new card (Jack) may act
    assert int(s["phase"]) == C.PH_USE
    jack = "Jack: replace ♥8 in P1's run ♥6 ♥7 ♥8 ♥9 ♥10 with a face-down card"
    assert can(s, "do not use the action card")
    do(s, jack, "face-down card (♣3) from the stock")
    r = int(s["run_owner"].tolist().index(1))
    assert int(C.run_faceup(s, r)) == 4  # a face-down card does not count toward the length
    assert "♥8" in hand_of(s, 0) and s["pub"][ids("♥8")[0]] == 1  # the removed card: to the Jack player
    assert s["run_fd"][r, 8] == 1 and int(s["run_card"][r, 8]) == ids("♣3")[0]
    # "Both players may later replace the face-down card": not in the Jack's own turn
    fd = "replace the face-down card in run ♥6 ♥7 [?♥8] ♥9 ♥10 with ♥8 and take it into your hand"
    assert not can(s, fd) and "♥8" in hand_of(s, 0)
    do(s, "play none of options A, B, C", "no exchange with the pool", "discard ♣9", "discard ♣A")
    start_turn(s, "♠2", "♣K", 1)  # P1's turn: tops ♠J | ♣K, no action
    do(s, "play none of options A, B, C", "no exchange with the pool", "end the turn without discarding")
    start_turn(s, "♠3", "♦K", 0)  # P0's next turn: now the face-down card may be replaced
    do(s, fd)
    assert int(C.run_faceup(s, r)) == 5 and "♣3" in hand_of(s, 0) and s["pub"][ids("♣3")[0]] == 0
    assert_valid(s)


def test_jack_keeps_one_face_up_card_and_may_hit_own_runs():
    s = setup(POOL, H0, H1, start=0)
    mine = force_run(s, 0, "♠3 ♠4 ♠5", facedown=(0, 1))
    other = force_run(s, 1, "♦3 ♦4 ♦5")
    start_turn(s, "♣9", "♥J", 0)  # ♥J on ♥K: the tops are ♥J | ♠Q, no shared suit
    assert int(s["phase"]) == en.PH_OPTION and not any(k.startswith("Jack") for k in legal_strings(s))
    s = setup(POOL, H0, H1, start=0)
    mine = force_run(s, 0, "♠3 ♠4 ♠5", facedown=(0, 1))
    other = force_run(s, 1, "♦3 ♦4 ♦5")
    own = force_run(s, 0, "♥6 ♥7 ♥8")
    s["token_loc"][1] = C.TOK_RUN  # a token does not protect a run against the Jack
    s["token_idx"][1] = other
    start_turn(s, "♣9", "♠J", 0)  # ♠J | ♠Q
    legal = set(GAME.legal_actions(s))
    assert en.A_JACK + mine * 11 + 5 - 1 not in legal  # the last face-up card of a run stays
    assert en.A_JACK + other * 11 + 4 - 1 in legal
    assert en.A_JACK + own * 11 + 7 - 1 in legal  # own runs too


def test_cards_go_to_the_opponents_runs_too_and_before_the_jack_is_used():
    # "You may add cards to runs on the table at any time during your turn": any run, and before the
    # action card's action, so a run lengthened first counts for the Jack's condition
    s = setup(POOL, H0.replace("♥5", "♦6"), H1, start=0)
    theirs = force_run(s, 1, "♦3 ♦4 ♦5", facedown=(1, 2))  # one face-up card: no Jack target
    start_turn(s, "♣9", "♠J", 0)  # ♠J | ♠Q: the Jack may be used
    assert int(s["phase"]) == C.PH_USE
    assert en.A_JACK + theirs * 11 + 3 - 1 not in set(GAME.legal_actions(s))  # its last face-up card
    do(s, "add ♦6 to run ♦3 [?♦4] [?♦5]")  # the opponent's run, before the Jack
    assert int(s["run_owner"][theirs]) == 1 and int(s["run_hi"][theirs]) == 6
    assert int(C.table_faceup(s, 1)) == 2 and int(s["phase"]) == C.PH_USE
    do(s, "Jack: replace ♦3 in P1's run ♦3 [?♦4] [?♦5] ♦6 with a face-down card")
    assert "♦3" in hand_of(s, 0)
    assert_valid(s)


def test_a_card_taken_with_option_b_counts_only_in_an_own_run():
    # "at least one of these cards ... as part of a new run and/or as an extension of your own run"
    s = setup("♥5 ♣9 ♣3 ♦2 ♦5 ♦8 ♠2 ♠5", H0, H1, start=0)
    force_run(s, 1, "♣6 ♣7 ♣8")
    _token_run_then_pass(s)
    start_turn(s, "♠3", "♦Q", 1)  # ♦K | ♦Q: Queen, declined
    do(s, "do not use the action card", "option B: take the pool's top row")  # ♥5 ♣9 ♣3, taken
    assert int(s["phase"]) == en.PH_BPLACE and int(s["b_done"]) == 0
    do(s, "add ♣9 to run ♣6 ♣7 ♣8")  # allowed (the taken ♥5 can still extend the own run) ...
    assert int(s["run_owner"][[r for r in range(C.MAX_RUNS) if int(s["run_hi"][r]) == 9][0]]) == 1
    assert int(s["b_done"]) == 0 and not can(s, "option B: done placing (refill the pool)")  # ... owed
    do(s, "add ♥5 to run ♥2 ♥3 ♥4")  # the taken ♥5 into the own run settles option B
    assert int(s["b_done"]) == 1 and can(s, "option B: done placing (refill the pool)")
    assert_valid(s)


def test_the_win_counts_as_soon_as_it_is_reached_in_the_other_seats_turn():
    # "You win as soon as you have an Octa and at least 28 cards": P0 replaces the face-down card in
    # P1's run, P1 reaches 28 face-up cards with an Octa, and P1 wins at once, in P0's turn
    s = setup(POOL, H0.replace("♥5", "♦8"), H1, start=0)
    force_run(s, 1, "♠A ♠2 ♠3 ♠4 ♠5 ♠6 ♠7 ♠8")
    force_run(s, 1, "♦A ♦2 ♦3 ♦4 ♦5 ♦6 ♦7 ♦8 ♦9", facedown=(7,))  # ♦8 face down: 8 face up
    force_run(s, 1, "♣A ♣2 ♣3 ♣4 ♣5 ♣6 ♣7 ♣8 ♣9 ♣10")  # 26
    force_run(s, 1, "♥2 ♥3 ♥4", facedown=(0, 1))  # 27
    start_turn(s, "♣9", "♣K", 0)
    assert int(C.table_faceup(s, 1)) == 27 and not GAME.is_terminal(s)
    do(s, "replace the face-down card in run ♦A ♦2 ♦3 ♦4 ♦5 ♦6 ♦7 [?♦8] ♦9 with ♦8 and take it into your hand")
    assert GAME.is_terminal(s) and int(s["end_reason"]) == 1 and int(s["winner"]) == 1
    assert list(GAME.returns(s)) == [-1.0, 1.0]
    assert GAME.from_bytes(GAME.to_bytes(s))["winner"] == 1  # a saved game of it passes the record check


def test_queen_takes_a_same_suit_pair_and_refills_from_the_stock():
    s = setup(POOL, H0, H1, start=0)
    force_discard(s, ids("♥A"))  # the Queen refills from the stock, never the discard pile
    start_turn(s, "♣9", "♠Q", 0)  # ♠Q | ♠Q
    assert not can(s, "Queen: take ♣2 (top-left) and ♦2 (left) from the pool")  # different suits
    do(s, "Queen: take ♣2 (top-left) and ♣5 (top) from the pool")
    assert "♣2" in hand_of(s, 0) and "♣5" in hand_of(s, 0)
    do(s, "refill the pool with ♠A from the stock", "refill the pool with ♠6 from the stock")
    assert [int(s["pool"][0]), int(s["pool"][1])] == ids("♠A ♠6")  # refill order: left to right
    assert int(s["disc_n"]) == 1 and int(s["phase"]) == en.PH_OPTION
    assert_valid(s)


def test_king_draws_two_or_takes_the_top_two_discards():
    s = setup(POOL, H0, H1, start=0)
    start_turn(s, "♣9", "♥Q", 1)  # ♥K | ♥Q: only the action of the new card (a Queen) may be used
    assert can(s, "Queen: take ♣2 (top-left) and ♣5 (top) from the pool")
    assert not can(s, "King: draw 2 cards from the stock")
    s = setup(POOL, H0, H1, start=0)
    start_turn(s, "♣9", "♠K", 0)  # ♠K | ♠Q: King
    assert int(s["disc_n"]) == 0 and not can(s, "King: take the top 2 cards of the discard pile")  # empty pile
    do(s, "King: draw 2 cards from the stock", "P0 draws ♣10", "P0 draws ♦10")
    assert int(s["hand_n"][0]) == 11 and int(s["phase"]) == en.PH_OPTION
    s = setup(POOL, H0, H1, start=0)
    force_discard(s, ids("♦3 ♦4 ♦6"))
    start_turn(s, "♣9", "♠K", 0)
    do(s, "King: take the top 2 cards of the discard pile")
    assert "♦6" in hand_of(s, 0) and "♦4" in hand_of(s, 0) and "♦3" not in hand_of(s, 0)
    assert int(s["disc_n"]) == 1 and s["pub"][ids("♦6")[0]] == 1


def test_action_stack_empty_reshuffles_under_cards_and_set_aside():
    s = setup(POOL, H0, H1, start=0)
    # put the 14 stack cards under pile 0's face-up card, leaving the 8 set aside hidden
    hidden = [c for c in range(80, 104) if s["loc"][c] == C.LOC_AHIDDEN]
    top = int(s["apile"][0, 0])
    for i, c in enumerate(hidden[:14]):
        s["apile"][0, i] = c
        s["loc"][c] = C.LOC_APILE
        s["lidx"][c] = i
    s["apile"][0, 14] = top
    s["lidx"][top] = 14
    s["apile_n"][0] = 15
    s["astack_n"] = 0
    assert_valid(s)
    do(s, "P0 draws ♣9")
    # the two face-up cards stay; 14 under cards + 8 set aside form the new stack of 22
    assert int(s["astack_n"]) == 22 and int(s["aside_n"]) == 0 and list(s["apile_n"]) == [1, 1]
    assert int(s["apile"][0, 0]) == top
    assert len(GAME.chance_outcomes(s)) == 22
    assert_valid(s)


# ---------------------------------------------------------------- options A, B, C
def test_option_a_lays_a_run_card_by_card_with_the_token():
    s = setup(POOL, H0, H1, start=0)
    start_turn(s, "♣9", "♣K", 0)
    assert not can(s, "start a new run (option A) with ♠9")  # ♠9 ♠10 cannot reach 3 cards
    do(s, "start a new run (option A) with ♥3")
    assert not can(s, "lay ♥5")  # not consecutive with ♥3
    assert not can(s, "commit the run being laid")  # fewer than 3 cards
    do(s, "lay ♥2", "lay ♥4")
    assert can(s, "commit the run being laid") and can(s, "lay ♥5")
    do(s, "commit the run being laid", "put your token on the new run")
    assert int(s["token_loc"][0]) == C.TOK_RUN
    assert int(s["opt_used"]) == 1 and int(s["phase"]) == en.PH_EXCH  # at most one option per turn
    # ♥5 may still be added to the own run at any time during the turn
    do(s, "add ♥5 to run ♥2 ♥3 ♥4")
    assert int(C.table_faceup(s, 0)) == 4
    assert_valid(s)


def test_ace_low_or_high_never_both_and_runs_of_at_most_ten():
    h0 = "♦9 ♦10 ♦A ♦2 ♦3 ♠9 ♠10 ♣A"
    s = setup(POOL.replace("♦2", "♥A"), h0, H1, start=0)
    start_turn(s, "♣9", "♣K", 0)
    do(s, "start a new run (option A) with ♦A")
    assert can(s, "lay ♦2") and can(s, "lay ♦10")  # a lone ace may still go low or high
    do(s, "lay ♦10")
    assert not can(s, "lay ♦2")  # no wraparound: 10-A-2 is not a run
    do(s, "lay ♦9", "commit the run being laid")
    r = [i for i in range(C.MAX_RUNS) if int(s["run_owner"][i]) == 0][0]
    assert (int(s["run_lo"][r]), int(s["run_hi"][r])) == (9, 11)  # 9-10-A, the ace high
    ten = force_run(s, 0, "♥2 ♥3 ♥4 ♥5 ♥6 ♥7 ♥8 ♥9 ♥10 ♥A")  # the ace written last is high
    assert int(s["run_hi"][ten]) - int(s["run_lo"][ten]) + 1 == 10
    C.detach(s, ids("♥A")[0] + 40)
    C.to_hand(s, ids("♥A")[0] + 40, 0, False)
    force_run(s, 0, "♣2 ♣3 ♣4")
    do(s, "keep your token in the pool centre")
    assert can(s, "add ♣A (low) to run ♣2 ♣3 ♣4")  # the ace goes low at a run's low end
    # 2..A high is full: the other ace cannot also go low (at most 10 cards, never both aces)
    assert en.A_ADD + ten * 2 not in set(GAME.legal_actions(s))
    assert_valid(s)


def test_an_ace_that_fits_both_ends_of_a_run_is_two_moves_named_by_the_end():
    # "The Ace may be used as either low or high": next to ♥2 ... ♥10 it makes ♥A-♥10 or ♥2-♥A, two
    # different runs, so the two additions must not share a name
    s = setup(POOL, "♥A ♠9 ♠10 ♦A ♣A ♦3 ♦4 ♠3", H1, start=0,
              before_start=lambda s: force_run(s, 1, "♥2 ♥3 ♥4 ♥5 ♥6 ♥7 ♥8 ♥9 ♥10", copy=1))
    start_turn(s, "♣9", "♣K", 0)
    names = [GAME.action_to_string(s, a) for a in GAME.legal_actions(s)]
    assert len(set(names)) == len(names)
    runs = {}
    for end in ("low", "high"):
        t = GAME.clone(s)
        do(t, f"add ♥A ({end}) to run ♥2 ♥3 ♥4 ♥5 ♥6 ♥7 ♥8 ♥9 ♥10")
        runs[end] = run_string(t, next(r for r in range(C.MAX_RUNS) if int(t["run_owner"][r]) == 1))
        assert not can(t, "add ♥A (low) to run ♥A ♥2 ♥3 ♥4 ♥5 ♥6 ♥7 ♥8 ♥9 ♥10")  # ten cards: full
    assert runs == {"low": "♥A ♥2 ♥3 ♥4 ♥5 ♥6 ♥7 ♥8 ♥9 ♥10", "high": "♥2 ♥3 ♥4 ♥5 ♥6 ♥7 ♥8 ♥9 ♥10 ♥A"}


def test_no_two_legal_actions_share_a_name():
    assert assert_action_names_distinct("en", range(3)) > 0
    assert assert_action_names_distinct("en", range(1), heuristic=True) > 0


def test_same_suit_runs_are_never_combined():
    s = setup(POOL, H0, H1, start=0)
    low = force_run(s, 0, "♠2 ♠3 ♠4")
    high = force_run(s, 0, "♠6 ♠7 ♠8")
    C.detach(s, ids("♠5")[0])
    C.to_hand(s, ids("♠5")[0], 0, False)
    start_turn(s, "♣9", "♣K", 0)
    do(s, "add ♠5 to run ♠2 ♠3 ♠4")
    assert int(s["run_hi"][low]) == 5 and int(s["run_lo"][high]) == 6  # still two runs
    assert not can(s, "add ♠5 to run ♠6 ♠7 ♠8")


def _token_run_then_pass(s):
    """P0 lays ♥2-♥4 with the token (turn 1), P1 passes (turn 2); P0 is at step 3 of turn 3."""
    start_turn(s, "♣9", "♣K", 0)
    assert not any(k.startswith("option B") for k in legal_strings(s))
    do(s, "start a new run (option A) with ♥2", "lay ♥3", "lay ♥4", "commit the run being laid",
       "put your token on the new run")
    assert not can(s, "option B: take the pool's top row")  # not in the same turn
    do(s, "no exchange with the pool", "end the turn without discarding")
    start_turn(s, "♣10", "♦K", 0)
    do(s, "play none of options A, B, C", "no exchange with the pool", "discard ♣10")


def test_option_b_takes_a_line_places_a_card_and_refills():
    pool = "♥5 ♦9 ♣3 ♦2 ♦5 ♦8 ♠2 ♠5"  # top row ♥5 ♦9 ♣3
    s = setup(pool, H0, H1, start=0)
    _token_run_then_pass(s)
    start_turn(s, "♠3", "♦Q", 1)  # ♦K | ♦Q: Queen, declined
    do(s, "do not use the action card")
    # the left column ♥5 ♦2 ♠2: ♥5 extends ♥2-♥4; the bottom row ♠2 ♠5 ♦8 cannot be placed
    assert can(s, "option B: take the pool's top row") and can(s, "option B: take the pool's left column")
    assert not can(s, "option B: take the pool's bottom row")
    force_discard(s, ids("♣6 ♣7"))
    do(s, "option B: take the pool's top row")
    assert int(s["token_loc"][0]) == C.TOK_CENTRE
    assert not can(s, "option B: done placing (refill the pool)")  # one card must go on the table
    assert not can(s, "discard ♦9") and not can(s, "no exchange with the pool")
    do(s, "add ♥5 to run ♥2 ♥3 ♥4", "option B: done placing (refill the pool)")
    # refill order left to right from the discard pile, top card first (♣7, ♣6, then P1's ♣10);
    # the discard pile sufficed, so no stock card is drawn (option C's test covers the stock part)
    assert [int(s["pool"][i]) for i in (0, 1, 2)] == ids("♣7 ♣6 ♣10")
    assert int(s["disc_n"]) == 0 and int(s["phase"]) == en.PH_EXCH
    assert "♦9" in hand_of(s, 0) and "♣3" in hand_of(s, 0)
    assert_valid(s)


def test_option_b_new_run_must_hold_a_taken_card():
    pool = "♠6 ♠7 ♣3 ♦2 ♦5 ♦8 ♠2 ♠5"  # top row ♠6 ♠7 ♣3; hand ♠9 ♠10; ♠8 nowhere
    s = setup(pool, H0, H1, start=0)
    _token_run_then_pass(s)
    start_turn(s, "♠8", "♣Q", 1)  # ♦K | ♣Q: no action
    do(s, "option B: take the pool's top row")
    # a new run from hand cards only (♥5 alone cannot) is not offered; ♠6 ♠7 ♠8 ♠9 ♠10 is
    assert not can(s, "start option B's new run with ♥5")
    do(s, "start option B's new run with ♠8", "lay ♠7", "lay ♠6", "commit the run being laid")
    assert int(s["b_done"]) == 1 and int(s["b_run_done"]) == 1
    assert not any(k.startswith("start option B") for k in legal_strings(s))  # one new run only
    do(s, "option B: done placing (refill the pool)")
    assert_valid(s)


def test_exchange_adjacency_pool_token_protection_and_option_c():
    # top row ♦4 ♦5 ♣9; P0 holds ♦6; the ♣9 at top-right touches ♦5 (top) and the right card
    pool = "♦4 ♦5 ♣9 ♠10 ♥9 ♣4 ♣6 ♦10"
    h0 = "♦6 ♥2 ♥3 ♠A ♣10 ♣7 ♠4 ♣A"
    h1 = "♥6 ♥7 ♥8 ♦3 ♥10 ♠7 ♦7 ♣7"
    s = setup(pool, h0, h1, start=0)
    start_turn(s, "♣2", "♣K", 0)
    do(s, "play none of options A, B, C")
    # ring:  ♦4 ♦5 ♣9 / ♠10 . ♥9 / ♣4 ♣6 ♦10
    assert not can(s, "exchange ♥3 from your hand with ♣9 (top-right) in the pool")  # no ♥2/♥4 next to it
    # the ace counts as 11: ♠A on top-left touches ♠10 (left)
    assert can(s, "exchange ♠A from your hand with ♦4 (top-left) in the pool")
    # orthogonal ring neighbours only: ♣7 on top touches ♦4 and ♣9 (two ranks away), not the bottom ♣6
    assert not can(s, "exchange ♣7 from your hand with ♦5 (top) in the pool")
    assert can(s, "exchange ♣7 from your hand with ♦10 (bottom-right) in the pool")  # touches ♣6
    do(s, "exchange ♦6 from your hand with ♣9 (top-right) in the pool")
    assert "♣9" in hand_of(s, 0) and s["pub"][ids("♣9")[0]] == 1
    assert int(s["phase"]) == en.PH_PTOKEN  # the exchange made the pool run ♦4 ♦5 ♦6
    do(s, "put your token on the pool run along the top row")
    assert int(s["token_loc"][0]) == C.TOK_POOL and int(s["exch_used"]) == 1
    do(s, "discard ♣9")
    # P1: the pool run with P0's token is protected against the Queen and cannot be taken
    start_turn(s, "♣8", "♣Q", 0)  # ♣Q on ♣K: the tops are ♣Q | ♠Q, no shared suit
    assert int(s["phase"]) == en.PH_OPTION
    do(s, "play none of options A, B, C")
    # ♦3 would fit next to ♦4, but the cards of P0's token run cannot be taken by P1
    assert not can(s, "exchange ♦3 from your hand with ♦5 (top) in the pool")
    assert can(s, "exchange ♦3 from your hand with ♠10 (left) in the pool")
    legal = set(GAME.legal_actions(s))
    assert not any(en.A_EXCH + k * 8 + slot in legal for slot in (0, 1, 2) for k in range(40))
    do(s, "no exchange with the pool", "discard ♣8")
    # P0: option C moves the pool run to the table and refills
    start_turn(s, "♥4", "♥Q", 1)  # ♣Q | ♥Q: no action
    do(s, "option C: take the pool run carrying your token")
    r = [i for i in range(C.MAX_RUNS) if int(s["run_owner"][i]) == 0][0]
    assert (int(s["run_lo"][r]), int(s["run_hi"][r])) == (4, 6)
    assert int(s["token_loc"][0]) == C.TOK_CENTRE
    # refill: discard first (top: ♣8, then ♣9), then the stock
    assert [int(s["pool"][i]) for i in (0, 1)] == ids("♣8 ♣9")
    do(s, "refill the pool with ♥5 from the stock")
    assert int(s["phase"]) == en.PH_EXCH
    assert_valid(s)


def test_the_exchange_step_offers_exactly_the_fitting_kinds_of_the_hand_in_random_play():
    # the mask (a bit mask of fitting kinds per slot) against the rule read card by card: a held card fits
    # a pool slot not protected by the opponent's token when an orthogonal neighbour is of its suit and one
    # rank away, the ace counting as 1 or 11
    rng = np.random.default_rng(5)
    steps = offered = 0
    for seed in range(30):
        s = GAME.new_state(seed)
        while not GAME.is_terminal(s):
            p = GAME.current_player(s)
            if p == CHANCE:
                GAME.apply_action(s, GAME.sample_chance(s))
                continue
            legal = GAME.legal_mask(s, p)
            if int(s["phase"]) == en.PH_EXCH:
                want = np.zeros((C.NUM_KINDS, C.POOL_SLOTS), bool)
                for k in np.flatnonzero(s["hand_cnt"][p] > 0):
                    for slot in range(C.POOL_SLOTS):
                        if s["pool"][slot] < 0 or C.slot_protected_by(s, slot, 1 - p):
                            continue
                        near = [int(s["pool"][j]) for j in C.POOL_ADJ[slot] if j >= 0 and s["pool"][j] >= 0]
                        want[k, slot] = any(d % 40 // 10 == k // 10 and (abs(d % 10 - k % 10) == 1 or
                                                                         {d % 10, k % 10} == {0, 9}) for d in near)
                got = legal[en.A_EXCH:en.A_EXCH + C.NUM_KINDS * C.POOL_SLOTS].reshape(C.NUM_KINDS, C.POOL_SLOTS)
                assert np.array_equal(got.astype(bool), want), (seed, int(s["turn"]))
                steps += 1
                offered += int(want.sum())
            GAME.apply_action(s, int(rng.choice(np.flatnonzero(legal))))
    assert steps > 1000 and offered > steps  # many exchange steps, most with something to exchange


def test_a_pool_run_sharing_a_card_with_the_opponents_token_run_cannot_be_claimed_or_taken():
    # "a card from this run can no longer be taken by the opponent": P1's token is on the top row ♦4 ♦5 ♦6;
    # P0's ♦3 for the ♠9 (left) makes the left column ♦4 ♦3 ♦2, which holds P1's ♦4 (the top-left corner)
    pool = "♦4 ♦5 ♦6 ♠9 ♣5 ♦2 ♠2 ♥9"
    hands = ("♦3 ♥2 ♥3 ♥5 ♠7 ♠10 ♣A ♣10", "♥6 ♥7 ♥8 ♠4 ♥10 ♠5 ♦7 ♣7")
    exchange = "exchange ♦3 from your hand with ♠9 (left) in the pool"
    # without P1's token the same exchange makes a run P0 may claim
    s = setup(pool, *hands, start=0)
    start_turn(s, "♣9", "♣K", 0)
    do(s, "play none of options A, B, C", exchange)
    assert "put your token on the pool run along the left column" in legal_strings(s)
    # with P1's token on the top row the exchange is still legal, but the run may not be claimed
    s = setup(pool, *hands, start=0)
    s["token_loc"][1], s["token_idx"][1], s["token_turn"][1] = C.TOK_POOL, 0, 0
    start_turn(s, "♣9", "♣K", 0)
    do(s, "play none of options A, B, C", exchange)
    assert C.pool_line_is_run(s, 2) and int(s["phase"]) == en.PH_DISCARD
    assert not any("token" in m for m in legal_strings(s))
    a = en.A_PTOKEN + 2
    with pytest.raises(IllegalActionError, match="not on a run holding a card of the opponent's token run"):
        GAME.apply_action(s, a)
    # a record saved at the token question before this rule may still name that run: it is not offered either
    old = s.copy()
    old["phase"], old["ptoken_lines"] = en.PH_PTOKEN, 1 << 2
    GAME.check_record(old)  # raises on a record the kernels cannot run on
    assert GAME.legal_actions(old) == [en.A_PTOKEN_NO]
    # a record where P0's token already sits on that run (saved before this rule): option C would take P1's ♦4,
    # so it is not offered, and P1's run keeps its cards
    s["token_loc"][0], s["token_idx"][0], s["token_turn"][0] = C.TOK_POOL, 2, 0
    do(s, "discard ♣9")
    start_turn(s, "♣8", "♣Q", 0)
    do(s, "play none of options A, B, C", "no exchange with the pool", "discard ♣8")
    start_turn(s, "♥4", "♥Q", 1)
    assert int(s["phase"]) == en.PH_OPTION and C.pool_line_is_run(s, 2)
    assert not can(s, "option C: take the pool run carrying your token")
    with pytest.raises(IllegalActionError, match="no card of the opponent's token run"):
        GAME.apply_action(s, en.A_C)
    assert [card_name(int(s["pool"][i])) for i in (0, 1, 2)] == ["♦4", "♦5", "♦6"]
    assert_valid(s)


def test_the_heuristics_exchange_bonus_goes_to_any_pool_run_standing_after_the_exchange():
    # step 4 of the heuristic (its module docstring): with the token in the centre, a large bonus for an exchange
    # after which a pool line is a run; P0's cards are worth nothing to its hand but ♣4 (next to ♣2 and ♣A)
    from octagames.agents.base import make_turn
    from octagames.agents.heuristics.octa import OctaHeuristicAgent
    from octagames.agents.learn.az import PriorHint

    compiled = PriorHint(GAME, "heuristic", 0.9)  # asks the compiled heuristic, as the playouts do
    no_run, top_run = "♦4 ♦5 ♠6 ♠9 ♣5 ♦2 ♠2 ♥9", "♦4 ♦5 ♦6 ♠9 ♣5 ♦2 ♠2 ♥9"
    with_3, without_3 = "♦3 ♥2 ♥3 ♥5 ♣2 ♣4 ♣A ♣10", "♣8 ♥2 ♥3 ♥5 ♣2 ♣4 ♣A ♣10"
    for pool, hand, want in (
            (no_run, with_3, "exchange ♦3 from your hand with ♠9 (left) in the pool"),  # makes ♦4 ♦3 ♦2 (left)
            (no_run, without_3, "no exchange with the pool"),  # no exchange makes a run: no trade is worth it
            # the top row stands, with P1's token: a losing trade still earns the bonus (♣4 is worth more)
            (top_run, without_3, "exchange ♣4 from your hand with ♥9 (bottom-right) in the pool")):
        s = setup(pool, hand, "♥6 ♥7 ♥8 ♠4 ♥10 ♠5 ♦7 ♣7", start=0)
        if pool == top_run:
            s["token_loc"][1], s["token_idx"][1], s["token_turn"][1] = C.TOK_POOL, 0, 0
        start_turn(s, "♣9", "♣K", 0)
        do(s, "play none of options A, B, C")
        agent = OctaHeuristicAgent().act(make_turn(GAME, s, 0, 0))
        mask = GAME.legal_mask(s, 0).astype(np.uint8)[None, :]
        port = compiled.choices(np.array([s], GAME.dtype), np.zeros(1, np.int64),
                                np.zeros((1, GAME.observation_size), np.float32), mask)[0]
        assert [GAME.action_to_string(s, int(a)) for a in (agent, port)] == [want, want]


def test_owner_may_break_own_token_pool_run_and_the_token_returns():
    pool = "♦4 ♦5 ♦6 ♠2 ♦8 ♣4 ♣6 ♦9"  # top row ♦4 ♦5 ♦6 carries P0's token
    s = setup(pool, "♥2 ♥3 ♥4 ♥5 ♠9 ♠10 ♦7 ♣A", H1, start=0)
    s["token_loc"][0] = C.TOK_POOL
    s["token_idx"][0] = 0
    s["token_turn"][0] = 0
    start_turn(s, "♣9", "♣K", 0)
    do(s, "play none of options A, B, C")
    # ♦7 on top-right touches ♦8 (right): the owner may take ♦6 out of the own pool run
    do(s, "exchange ♦7 from your hand with ♦6 (top-right) in the pool")
    assert int(s["token_loc"][0]) == C.TOK_CENTRE  # the run is broken: the token returns
    # the exchange made the right column ♦7 ♦8 ♦9 a pool run: the token may go on it
    assert int(s["phase"]) == en.PH_PTOKEN
    do(s, "put your token on the pool run along the right column")
    assert int(s["token_loc"][0]) == C.TOK_POOL and int(s["token_idx"][0]) == 3


def test_queen_and_option_b_cannot_take_a_token_pool_run():
    pool = "♦4 ♦5 ♦6 ♦2 ♣5 ♣9 ♠2 ♠5"  # top row ♦4 ♦5 ♦6 is a pool run
    s = setup(pool, H0, H1, start=0)
    s["token_loc"][1] = C.TOK_POOL  # P1's token on it
    s["token_idx"][1] = 0
    s["token_turn"][1] = 0
    start_turn(s, "♣9", "♠Q", 0)  # ♠Q | ♠Q: Queen
    assert not can(s, "Queen: take ♦4 (top-left) and ♦2 (left) from the pool")
    assert not can(s, "Queen: take ♦6 (top-right) and ♦2 (left) from the pool")
    assert can(s, "Queen: take ♠2 (bottom) and ♠5 (bottom-right) from the pool")
    s = setup(pool, H0, H1, start=0)
    force_run(s, 0, "♣6 ♣7 ♣8")
    s["token_loc"][0] = C.TOK_RUN  # P0 may play option B
    s["token_idx"][0] = 0
    s["token_turn"][0] = 0
    s["token_loc"][1] = C.TOK_POOL
    s["token_idx"][1] = 0
    start_turn(s, "♥9", "♣K", 0)
    # the right column ♦6 ♣5 ♠5 holds ♣5 (fits ♣6-♣8), but ♦6 belongs to P1's token run
    assert not can(s, "option B: take the pool's right column")
    assert not can(s, "option B: take the pool's left column")
    assert can(s, "option B: take the pool's bottom row")  # ♣9 extends ♣6-♣8


def test_a_queen_cannot_take_the_cards_of_the_acting_players_own_token_pool_run():
    # "Runs in the pool that contain a token are protected": either token, against any Queen, the token
    # owner's own Queen too (P0's token on the top row ♦4 ♦5 ♦6, P0 uses the Queen)
    pool = "♦4 ♦5 ♦6 ♦2 ♣5 ♣9 ♠2 ♠5"
    s = setup(pool, H0, H1, start=0)
    s["token_loc"][0], s["token_idx"][0], s["token_turn"][0] = C.TOK_POOL, 0, 0
    start_turn(s, "♣9", "♠Q", 0)  # ♠Q | ♠Q: Queen
    assert int(s["phase"]) == C.PH_USE
    assert not can(s, "Queen: take ♦4 (top-left) and ♦2 (left) from the pool")
    assert not can(s, "Queen: take ♦5 (top) and ♦2 (left) from the pool")
    assert not can(s, "Queen: take ♦6 (top-right) and ♦2 (left) from the pool")
    assert can(s, "Queen: take ♠2 (bottom) and ♠5 (bottom-right) from the pool")


def test_an_exchange_that_makes_a_pool_run_offers_the_token_only_from_the_centre():
    # "If a run is created in the pool through exchanging, you may place your token on it": ♦7 for ♦6 makes
    # the right column ♦7 ♦8 ♦9; the token question comes only while P0's token is in the pool centre
    pool = "♦4 ♦5 ♦6 ♠2 ♦8 ♣4 ♣6 ♦9"
    exchange = "exchange ♦7 from your hand with ♦6 (top-right) in the pool"
    for on_a_run in (False, True):
        s = setup(pool, "♥2 ♥3 ♥4 ♥5 ♠9 ♠10 ♦7 ♣A", H1, start=0)
        if on_a_run:  # the token lies on P0's own run on the table
            r = force_run(s, 0, "♠3 ♠4 ♠5", copy=1)
            s["token_loc"][0], s["token_idx"][0], s["token_turn"][0] = C.TOK_RUN, r, 0
        start_turn(s, "♣9", "♣K", 0)
        do(s, "play none of options A, B, C", exchange)
        assert C.pool_line_is_run(s, 3)
        assert can(s, "put your token on the pool run along the right column") == (not on_a_run)
        assert int(s["phase"]) == (en.PH_DISCARD if on_a_run else en.PH_PTOKEN)
        assert int(s["token_loc"][0]) == (C.TOK_RUN if on_a_run else C.TOK_CENTRE)


# ---------------------------------------------------------------- win, stock, hand limit
def test_win_needs_an_octa_and_28_face_up_cards():
    s = setup(POOL, H0, H1, start=0)
    force_run(s, 0, "♠A ♠2 ♠3 ♠4 ♠5 ♠6 ♠7 ♠8")  # the Octa (8)
    force_run(s, 0, "♦A ♦2 ♦3 ♦4 ♦5 ♦6 ♦7 ♦8 ♦9", facedown=(0,))  # 8 face up
    force_run(s, 0, "♣A ♣2 ♣3 ♣4 ♣5 ♣6 ♣7 ♣8 ♣9 ♣10")  # 10 -> 26 face up
    force_run(s, 0, "♥7 ♥8 ♥9", facedown=(0, 1))  # 1 face up -> 27
    assert int(C.table_faceup(s, 0)) == 27
    C.detach(s, ids("♠9")[0])
    C.to_hand(s, ids("♠9")[0], 0, False)
    start_turn(s, "♠10", "♣K", 0)
    assert GAME.current_player(s) == 0 and int(s["phase"]) == en.PH_OPTION
    do(s, "add ♠9 to run ♠A ♠2 ♠3 ♠4 ♠5 ♠6 ♠7 ♠8")
    assert GAME.is_terminal(s) and int(s["end_reason"]) == 1
    assert list(GAME.returns(s)) == [1.0, -1.0]


def test_28_cards_without_an_octa_do_not_win():
    s = setup(POOL, H0, H1, start=0)
    for run in ("♠A ♠2 ♠3 ♠4 ♠5 ♠6 ♠7", "♦A ♦2 ♦3 ♦4 ♦5 ♦6 ♦7", "♣A ♣2 ♣3 ♣4 ♣5 ♣6 ♣7",
                "♥A ♥2 ♥3 ♥4 ♥5 ♥6"):
        force_run(s, 0, run)
    C.detach(s, ids("♥7")[0])
    C.to_hand(s, ids("♥7")[0], 0, False)
    start_turn(s, "♥9", "♣K", 0)
    do(s, "add ♥7 to run ♥A ♥2 ♥3 ♥4 ♥5 ♥6")
    assert int(C.table_faceup(s, 0)) == 28 and not GAME.is_terminal(s)


def test_a_run_of_eight_cards_with_one_face_down_is_no_octa_until_the_card_is_replaced():
    # the Octa counts face-up cards: ♠A-♠8 with ♠4 face down has 7, beside 21 face-up cards in runs of 7
    s = setup(POOL, H0.replace("♥5", "♠4"), H1, start=0)
    spades = force_run(s, 0, "♠A ♠2 ♠3 ♠4 ♠5 ♠6 ♠7 ♠8", facedown=(3,), copy=1)
    for run in ("♦A ♦2 ♦3 ♦4 ♦5 ♦6 ♦7", "♣A ♣2 ♣3 ♣4 ♣5 ♣6 ♣7", "♥A ♥2 ♥3 ♥4 ♥5 ♥6 ♥7"):
        force_run(s, 0, run, copy=1)
    assert int(s["run_hi"][spades]) - int(s["run_lo"][spades]) + 1 == 8 and int(C.run_faceup(s, spades)) == 7
    start_turn(s, "♣9", "♣K", 0)  # ♣K | ♠Q: no action
    assert int(C.table_faceup(s, 0)) == 28 and not GAME.is_terminal(s)  # 28 face up, no Octa
    do(s, "play none of options A, B, C")
    assert not GAME.is_terminal(s) and int(s["phase"]) == en.PH_EXCH
    do(s, "replace the face-down card in run ♠A ♠2 ♠3 [?♠4] ♠5 ♠6 ♠7 ♠8 with ♠4 and take it into your hand")
    assert int(C.run_faceup(s, spades)) == 8 and int(C.table_faceup(s, 0)) == 29
    assert GAME.is_terminal(s) and int(s["end_reason"]) == 1 and list(GAME.returns(s)) == [1.0, -1.0]


def _leave_stock(s, n: int) -> list[int]:
    """Move all but ``n`` stock cards to the discard pile; return the cards left in the stock."""
    stock = [c for c in range(80) if s["loc"][c] == C.LOC_STOCK]
    force_discard(s, stock[n:])
    return stock[:n]


def test_first_stock_exhaustion_shuffles_discards_and_runs_of_three():
    s = setup(POOL, H0, H1, start=0)
    three = force_run(s, 1, "♦3 ♦4 ♦5")
    four_with_fd = force_run(s, 1, "♠3 ♠4 ♠5 ♠6", facedown=(0,))  # length 3: face-down cards do not count
    four = force_run(s, 0, "♣3 ♣4 ♣5 ♣6")
    s["token_loc"][1] = C.TOK_RUN
    s["token_idx"][1] = three
    s["token_turn"][1] = 0
    last = _leave_stock(s, 1)
    n_disc = int(s["disc_n"])
    do(s, f"P0 draws {card_name(last[0])}")
    assert int(s["exhaust"]) == 1 and int(s["final_turn"]) == 0
    assert int(s["stock_n"]) == n_disc + 3 + 4 and int(s["disc_n"]) == 0
    assert int(s["run_owner"][three]) == -1 and int(s["run_owner"][four_with_fd]) == -1
    assert int(s["run_owner"][four]) == 0
    assert int(s["token_loc"][1]) == C.TOK_CENTRE
    assert GAME.current_player(s) == CHANCE  # play on: the action card is turned next
    assert_valid(s)


def test_first_stock_exhaustion_takes_runs_of_exactly_three_face_up_cards_and_leaves_shorter_ones():
    # "all runs of 3 cards", the length counting face-up cards: P0's ♣3-♣5 (3 face up) goes, P1's ♦3-♦5
    # with ♦3 face down (3 cards, 2 face up) and ♠3-♠6 with ♠3 ♠4 face down (2 face up) stay
    s = setup(POOL, H0, H1, start=0)
    three = force_run(s, 0, "♣3 ♣4 ♣5", copy=1)
    short = force_run(s, 1, "♦3 ♦4 ♦5", facedown=(0,), copy=1)
    shorter = force_run(s, 1, "♠3 ♠4 ♠5 ♠6", facedown=(0, 1), copy=1)
    assert [int(C.run_faceup(s, r)) for r in (three, short, shorter)] == [3, 2, 2]
    last = _leave_stock(s, 1)
    n_disc = int(s["disc_n"])
    do(s, f"P0 draws {card_name(last[0])}")
    assert int(s["exhaust"]) == 1 and int(s["stock_n"]) == n_disc + 3
    assert int(s["run_owner"][three]) == -1
    assert int(s["run_owner"][short]) == 1 and int(C.run_faceup(s, short)) == 2 and int(s["run_fd"][short, 3]) == 1
    assert int(s["run_owner"][shorter]) == 1 and int(C.table_faceup(s, 1)) == 4
    assert_valid(s)


def _kinds_in(s, where) -> np.ndarray:
    """Copies per kind of the number cards for which ``where(s, c)`` holds."""
    return np.bincount([c % 40 for c in range(80) if where(s, c)], minlength=40)


def _in_stock(s, c) -> bool:
    return int(s["loc"][c]) == C.LOC_STOCK


def _face_down(s, c) -> bool:
    i = int(s["lidx"][c])
    return int(s["run_fd"][i // C.NPOS, i % C.NPOS]) == 1


def _face_up(s, c) -> bool:
    """On the discard pile or face up in a run (a card both seats see)."""
    loc, i = int(s["loc"][c]), int(s["lidx"][c])
    return loc == C.LOC_DISCARD or (loc == C.LOC_RUN and int(s["run_fd"][i // C.NPOS, i % C.NPOS]) == 0)


def test_every_world_after_the_rebuild_keeps_in_the_stock_the_cards_both_seats_saw_go_in():
    # the discard pile and P1's ♦3-♦5 go face up into the stock; P1's ♠3-♠6 with ♠3 face down too (3 face up);
    # nobody has drawn from the new stock yet, so for either seat every one of those face-up cards is in it
    s = setup(POOL, H0, H1, start=0)
    force_run(s, 1, "♦3 ♦4 ♦5")
    force_run(s, 1, "♠3 ♠4 ♠5 ♠6", facedown=(0,))
    last = _leave_stock(s, 1)
    before = GAME.clone(s)
    do(s, f"P0 draws {card_name(last[0])}")
    went = _kinds_in(s, lambda s, c: _in_stock(s, c) and _face_up(before, c))
    assert int(went.sum()) == int(before["disc_n"]) + 6 and int(s["stock_n"]) == went.sum() + 1
    for seat in (0, 1):
        obs = GAME.observation(s, seat)
        block = en.OBS_LAYOUT.offset("rebuilt")
        np.testing.assert_array_equal(obs[block:block + 40], went / 2)  # the seat is told what it saw go in
        moved = 0
        for seed in range(40):
            d = GAME.determinize(s, seat, seed)
            stock = _kinds_in(d, _in_stock)
            assert np.all(stock >= went), np.flatnonzero(stock < went)  # no seen card in the opponent's hand
            assert np.array_equal(GAME.observation(d, seat), obs)
            moved += hand_of(d, 1 - seat) != hand_of(s, 1 - seat)
            assert check_record(d) == ""
        assert moved > 0  # the stock's one unseen card (the face-down ♠3's stand-in) and the hand still shuffle


def test_the_rebuilt_stocks_cards_stay_owed_until_a_copy_comes_into_view():
    # after the rebuild P0 draws two cards P1 cannot see: for P1 the cards that went in are in the stock or
    # (two of them at most) in P0's hand; a copy of a kind that went in coming into P1's view settles one copy
    s = setup(POOL, H0, H1, start=0)
    force_run(s, 1, "♦3 ♦4 ♦5")
    last = _leave_stock(s, 1)
    before = GAME.clone(s)
    do(s, f"P0 draws {card_name(last[0])}", "P0 turns action card ♠K", "put the action card on pile 0")
    went = _kinds_in(s, lambda s, c: _in_stock(s, c) and _face_up(before, c))
    assert int(went.sum()) == int(s["stock_n"])  # every card of the new stock went in face up
    do(s, "King: draw 2 cards from the stock")
    drawn = []
    for _ in range(2):
        drawn.append(int(GAME.chance_outcomes(s)[-1][0]))
        GAME.apply_action(s, drawn[-1])
    block = en.OBS_LAYOUT.offset("rebuilt")
    for seed in range(40):
        d = GAME.determinize(s, 1, seed)
        short = np.maximum(0, went - _kinds_in(d, _in_stock))
        hidden0 = _kinds_in(d, lambda d, c: int(d["loc"][c]) == C.LOC_HAND and int(d["lidx"][c]) == 0)
        assert int(short.sum()) == 2 and np.all(short <= hidden0)  # P0's two draws, nothing else
        assert np.all(_kinds_in(d, _in_stock) <= went)
        assert check_record(d) == ""
    obs = GAME.observation(s, 1)[block:block + 42]
    np.testing.assert_array_equal(obs, np.concatenate([went / 2, [0, 2 / 80]]).astype(np.float32))  # P0 took two
    GAME.apply_action(s, en.ACTIONS.offset("no_option"))
    GAME.apply_action(s, en.ACTIONS.offset("no_exchange"))
    GAME.apply_action(s, en.A_DISCARD + drawn[0] % 40)
    seen = np.bincount([drawn[0] % 40], minlength=40)
    np.testing.assert_array_equal(GAME.observation(s, 1)[block:block + 40], (went - seen) / 2)
    for seed in range(40):  # the discarded card may have been one P0 held before: two copies may still be owed
        d = GAME.determinize(s, 1, seed)  # to its hand; and nothing but what went in is in the stock
        stock = _kinds_in(d, _in_stock)
        short = np.maximum(0, went - seen - stock)
        assert int(short.sum()) <= 2 and np.all(short <= _kinds_in(d, lambda d, c: int(d["loc"][c]) == C.LOC_HAND
                                                              and int(d["lidx"][c]) == 0))
        assert np.all(stock <= went), np.flatnonzero(stock > went)
        assert check_record(d) == ""


def test_in_random_games_every_world_after_the_rebuild_fits_what_the_seat_saw_go_into_the_stock():
    # the test's own bookkeeping, from the card places alone (octagames.octa.public.seen_ids), not the engine's:
    # the cards each seat has ever seen (less those the rebuild put in the stock), the kinds that went face up
    # into the stock, the hidden cards each hand took from the new stock and the face-down cards laid from it.
    # Every world drawn for a seat holds the copies still owed (went in, no copy seen since) in the stock, in
    # those face-down places, or in the opponent's hand among as many cards as it took; the true table does too,
    # and the observation gives the owed copies.
    from octagames.octa.public import seen_ids
    rng = np.random.default_rng(7)
    block = en.OBS_LAYOUT.offset("rebuilt")
    worlds = games_rebuilt = 0
    for seed in range(30):
        s = GAME.new_state(seed)
        known, went = [set(), set()], None
        while not GAME.is_terminal(s):
            before = GAME.clone(s)
            if GAME.current_player(s) == CHANCE:
                GAME.apply_action(s, GAME.sample_chance(s))
            else:
                GAME.apply_action(s, int(rng.choice(GAME.legal_actions(s))))
            for q in range(2):
                known[q] |= seen_ids(s, q)
            if went is None and int(s["exhaust"]) == 1:
                went = _kinds_in(s, lambda s, c: _in_stock(s, c) and _face_up(before, c))
                stock = {c for c in range(80) if _in_stock(s, c)}
                known = [k - stock for k in known]
                at_rebuild = [set(k) for k in known]
                took, laid = [0, 0], set()
                games_rebuilt += 1
                continue
            if went is None:
                continue
            for c in range(80):  # where the new stock's cards went unseen
                was, now = int(before["loc"][c]), int(s["loc"][c])
                if was == C.LOC_STOCK and now == C.LOC_RUN:
                    laid.add(c)
                elif now == C.LOC_HAND and was != C.LOC_HAND and (was == C.LOC_STOCK or c in laid):
                    took[int(s["lidx"][c])] += 1
                if now != C.LOC_RUN:
                    laid.discard(c)
            if int(s["moves"]) % 9 or GAME.is_terminal(s):
                continue
            spots = {int(s["lidx"][x]) for x in laid}
            for v in range(2):
                owed = np.maximum(0, went - np.bincount([c % 40 for c in known[v] - at_rebuild[v]], minlength=40))
                np.testing.assert_array_equal(GAME.observation(s, v)[block:block + 40], owed / 2)
                for d in [s] + [GAME.determinize(s, v, k) for k in range(2)]:
                    where = _kinds_in(d, lambda d, c: _in_stock(d, c) or (int(d["loc"][c]) == C.LOC_RUN
                                                                        and int(d["lidx"][c]) in spots))
                    hand = _kinds_in(d, lambda d, c: int(d["loc"][c]) == C.LOC_HAND and int(d["lidx"][c]) != v
                                     and c not in known[v])
                    short = np.maximum(0, owed - where)
                    assert int(short.sum()) <= took[1 - v] and np.all(short <= hand), (seed, v, np.flatnonzero(short))
                    assert check_record(d) == ""
                    worlds += 1
    assert games_rebuilt >= 20 and worlds > 1000, (games_rebuilt, worlds)


def test_an_empty_rebuilt_stock_draws_worlds_that_depend_on_the_seats_view_alone():
    # no discards and no run of exactly 3 face-up cards: the first exhaustion rebuilds an empty stock (the second
    # exhaustion at once). P1's run of 5 holds a face-down card, which a world for P0 may swap with P1's hand
    # cards, so what was hidden from P1 at the rebuild (rs_hid[1], P1's own) must be drawn for the world too:
    # every world passes the record check, and two tables P0 cannot tell apart (the face-down card and a hand
    # card of P1's exchanged) draw the same world from one seed
    s = setup(POOL, H0, H1, start=0)
    force_run(s, 1, "♦3 ♦4 ♦5 ♦6 ♦7", facedown=(0,))
    rest = [c for c in range(80) if _in_stock(s, c)]
    for c in rest[1:]:
        C.detach(s, c)
        C.to_hand(s, c, 1, False)
    do(s, f"P0 draws {card_name(rest[0])}")
    assert int(s["exhaust"]) == 2 and int(s["stock_n"]) == 0 and not np.any(s["rs_up"]) and np.any(s["rs_hid"])
    for seat in (0, 1):
        for seed in range(20):
            assert check_record(GAME.determinize(s, seat, seed)) == ""
    fd = next(c for c in range(80) if int(s["loc"][c]) == C.LOC_RUN and _face_down(s, c))
    other = next(c for c in range(80) if int(s["loc"][c]) == C.LOC_HAND and int(s["lidx"][c]) == 1
                 and c % 40 != fd % 40)
    twin = GAME.clone(s)
    i = int(twin["lidx"][fd])
    C.detach(twin, fd)
    C.detach(twin, other)
    C.to_run(twin, other, i // C.NPOS, i % C.NPOS, True)
    C.to_hand(twin, fd, 1, False)
    hid = np.zeros(40, dtype=np.int64)
    C.hidden_kinds(twin, 1, hid)
    twin["rs_hid"][1] = hid  # P1's view at the rebuild in that table
    assert check_record(twin) == ""
    assert np.array_equal(GAME.observation(twin, 0), GAME.observation(s, 0))
    for seed in range(20):
        assert GAME.determinize(twin, 0, seed).tobytes() == GAME.determinize(s, 0, seed).tobytes()


def test_second_stock_exhaustion_ends_after_the_turn_most_cards_wins():
    for p1_cards, expected in (("♦3 ♦4 ♦5 ♦6", [-1.0, 1.0]), ("♦3 ♦4 ♦5", [0.0, 0.0])):
        s = setup(POOL, H0, H1, start=0)
        force_run(s, 0, "♠3 ♠4 ♠5")
        force_run(s, 1, p1_cards)
        s["exhaust"] = 1
        last = _leave_stock(s, 1)
        do(s, f"P0 draws {card_name(last[0])}")
        assert int(s["exhaust"]) == 2 and int(s["final_turn"]) == 1
        do(s, "P0 turns action card ♠K", "put the action card on pile 0")  # ♠K | ♠Q: King
        # an empty stock does as much as it allows: the King's draw gives nothing
        do(s, "King: draw 2 cards from the stock")
        assert int(s["hand_n"][0]) == 9 and int(s["phase"]) == en.PH_OPTION
        do(s, "play none of options A, B, C", "no exchange with the pool", "discard ♣A")
        assert GAME.is_terminal(s) and int(s["end_reason"]) == 2
        assert list(GAME.returns(s)) == expected


def test_the_end_count_after_the_second_exhaustion_counts_face_up_cards_only():
    # "the player with the most cards on the table wins": P0's ♠3-♠7 has 5 cards but 2 face down (3 face up),
    # P1's ♦3-♦6 has 4 face up: P1 wins
    s = setup(POOL, H0, H1, start=0)
    force_run(s, 0, "♠3 ♠4 ♠5 ♠6 ♠7", facedown=(0, 1), copy=1)
    force_run(s, 1, "♦3 ♦4 ♦5 ♦6", copy=1)
    assert [int(C.table_faceup(s, p)) for p in (0, 1)] == [3, 4]
    s["exhaust"] = 1
    last = _leave_stock(s, 1)
    do(s, f"P0 draws {card_name(last[0])}")
    assert int(s["exhaust"]) == 2 and int(s["final_turn"]) == 1
    do(s, "P0 turns action card ♣K", "put the action card on pile 0",  # ♣K | ♠Q: no action
       "play none of options A, B, C", "no exchange with the pool", "discard ♣A")
    assert GAME.is_terminal(s) and int(s["end_reason"]) == 2
    assert list(GAME.returns(s)) == [-1.0, 1.0]


def test_hand_limit_discards_down_to_eight():
    s = setup(POOL, H0, H1, start=0)
    start_turn(s, "♣9", "♠K", 0)
    do(s, "King: draw 2 cards from the stock", "P0 draws ♣10", "P0 draws ♦10",
       "play none of options A, B, C", "no exchange with the pool")
    assert int(s["hand_n"][0]) == 11
    assert not can(s, "end the turn without discarding")  # 8 or more: the discard is required
    do(s, "discard ♣10")
    assert int(s["phase"]) == en.PH_DDOWN and not can(s, "add ♥5 to run")
    do(s, "discard ♦10")
    assert int(s["phase"]) == en.PH_DDOWN
    do(s, "discard ♣9")
    assert int(s["hand_n"][0]) == 8 and int(s["cur"]) == 1
    # fewer than 8 cards: the discard is optional
    s = setup(POOL, H0, H1, start=0)
    start_turn(s, "♣9", "♣K", 0)
    do(s, "start a new run (option A) with ♥2", "lay ♥3", "lay ♥4", "commit the run being laid",
       "keep your token in the pool centre", "no exchange with the pool")
    assert can(s, "end the turn without discarding") and can(s, "discard ♣9")


def test_a_hand_of_exactly_eight_must_discard_and_one_of_seven_may_end_the_turn():
    # "not required with fewer than 8 cards": P0 holds 9 at step 5, adds ♠9 (8 cards: the discard is still
    # required), then ♠10 (7 cards: the turn may end without a discard)
    s = setup(POOL, H0, H1, start=0)
    force_run(s, 0, "♠6 ♠7 ♠8", copy=1)
    start_turn(s, "♣9", "♣K", 0)
    do(s, "play none of options A, B, C", "no exchange with the pool")
    assert int(s["phase"]) == en.PH_DISCARD and int(s["hand_n"][0]) == 9
    do(s, "add ♠9 to run ♠6 ♠7 ♠8")
    assert int(s["phase"]) == en.PH_DISCARD and int(s["hand_n"][0]) == 8
    assert not can(s, "end the turn without discarding") and can(s, "discard ♣9")
    do(s, "add ♠10 to run ♠6 ♠7 ♠8 ♠9")
    assert int(s["phase"]) == en.PH_DISCARD and int(s["hand_n"][0]) == 7
    assert can(s, "end the turn without discarding")
    do(s, "end the turn without discarding")
    assert int(s["cur"]) == 1 and int(s["hand_n"][0]) == 7


# ---------------------------------------------------------------- errors, determinization
def test_illegal_action_raises_with_the_rule_and_keeps_the_state():
    s = setup(POOL, H0, H1, start=0)
    start_turn(s, "♣9", "♣K", 0)
    do(s, "play none of options A, B, C")
    before = GAME.to_bytes(s)
    bad = en.A_EXCH + kind("♥3") * 8 + 7  # ♥3 next to nothing of its suit
    with pytest.raises(IllegalActionError, match="same suit one rank higher or lower"):
        GAME.apply_action(s, bad)
    with pytest.raises(IllegalActionError, match="you hold no"):
        GAME.apply_action(s, en.A_EXCH + kind("♠8") * 8)
    with pytest.raises(IllegalActionError, match="discarding is step 5"):
        GAME.apply_action(s, en.A_DISCARD + kind("♥3"))
    assert GAME.to_bytes(s) == before


def test_determinize_hides_only_what_is_unseen():
    s = setup(POOL, H0, H1, start=1)
    _p1_lays_hearts(s)
    start_turn(s, "♣9", "♠J", 0)
    do(s, "Jack: replace ♥8 in P1's run ♥6 ♥7 ♥8 ♥9 ♥10 with a face-down card",
       "face-down card (♣3) from the stock")
    obs = GAME.observation(s, 0)
    changed = 0
    for seed in range(5):
        d = GAME.determinize(s, 0, seed)
        assert np.array_equal(GAME.observation(d, 0), obs)
        assert np.array_equal(GAME.legal_mask(d, 0), GAME.legal_mask(s, 0))
        assert hand_of(d, 0) == hand_of(s, 0)
        changed += hand_of(d, 1) != hand_of(s, 1)
        assert_valid(d)
    assert changed > 0  # the opponent's unknown hand cards are resampled
    # P1's own cards it has seen are kept for P1: its hand
    d = GAME.determinize(s, 1, 3)
    assert hand_of(d, 1) == hand_of(s, 1) and "♥8" in hand_of(d, 0)  # taken openly by the Jack


# ---------------------------------------------------------------- hidden cards stay hidden
# Two worlds differ in one card of P0's hand that P1 never saw; after the same moves P1 must be shown the
# same in both: its observation, the render and OpenSpiel's strings (octa_helpers.seat_view).
def test_replacing_a_face_down_card_plays_the_copy_the_opponent_knows():
    # P0 holds a dealt ♦5 (unseen) and takes the pool's ♦5 openly by the exchange; a ♦5 then replaces
    # the face-down ♦5 of P1's run: the ♦5 P1 saw leaves P0's hand, so P1 cannot tell the worlds apart
    worlds = []
    for dealt in ("♦5", "♠4"):
        s = setup(POOL, f"{dealt} ♣7 ♥2 ♥3 ♠9 ♠10 ♦A ♣A", H1, start=0)
        force_run(s, 1, "♦4 ♦5 ♦6", facedown=(1,))
        worlds.append(s)
    for s in worlds:
        start_turn(s, "♣10", "♣K", 0)  # ♣K | ♠Q: no action
    play_both(worlds, "play none of options A, B, C",
              "exchange ♣7 from your hand with ♦5 (right) in the pool")
    assert_same_view(*worlds, 1)  # P1 knows P0 holds a ♦5
    play_both(worlds, "replace the face-down card in run ♦4 [?♦5] ♦6 with ♦5 and take it into your hand")
    assert "♦5" in hand_of(worlds[0], 0) and "♦5" not in hand_of(worlds[1], 0)
    assert_same_view(*worlds, 1)
    assert not GAME.observation(worlds[0], 1)[en.O_OPP_KNOWN:en.O_HAND_N].any()  # no ♦5 known any more
    play_both(worlds, "discard ♠9")
    assert_same_view(*worlds, 1)
    for s in worlds:
        assert_valid(s)


def test_option_b_adding_to_the_opponents_run_plays_the_taken_copy_the_opponent_saw():
    # P0 holds a dealt ♥5 (unseen in one world) and takes the pool's ♥5 with option B; adding a ♥5 to
    # P1's run plays the taken ♥5 (it counts only in an own run, and the taken ♣9 settles option B later)
    def prep(s):
        force_run(s, 0, "♣6 ♣7 ♣8", copy=1)
        force_run(s, 1, "♥6 ♥7 ♥8", copy=1)
    worlds = [setup("♥5 ♣9 ♣3 ♦2 ♦5 ♦8 ♠2 ♠5", f"♥2 ♥3 ♥4 {dealt} ♠9 ♠10 ♦A ♣A", H1, start=0,
                    before_start=prep) for dealt in ("♥5", "♠6")]
    for s in worlds:
        _token_run_then_pass(s)
        start_turn(s, "♠3", "♦Q", 1)  # ♦K | ♦Q: Queen, declined
    play_both(worlds, "do not use the action card", "option B: take the pool's top row")
    assert_same_view(*worlds, 1)
    play_both(worlds, "add ♥5 to run ♥6 ♥7 ♥8")
    assert_same_view(*worlds, 1)
    assert int(worlds[0]["b_done"]) == 0 and not can(worlds[0], "option B: done placing (refill the pool)")
    play_both(worlds, "add ♣9 to run ♣6 ♣7 ♣8")  # the taken ♣9 settles option B
    assert int(worlds[0]["b_done"]) == 1
    assert_same_view(*worlds, 1)
    for s in worlds:
        assert_valid(s)


def test_a_hand_is_listed_by_suit_then_rank_whichever_copy_was_drawn():
    # P1 draws a ♥5: the second copy where P0 was dealt the first (unseen), else the first copy;
    # P1's own hand reads the same either way
    worlds = [setup(POOL, H0.replace("♥5", dealt), H1, start=1) for dealt in ("♥5", "♦6")]
    play_both(worlds, "P1 draws ♥5")
    assert int(worlds[0]["loc"][ids("♥5")[0] + 40]) == C.LOC_HAND  # the second copy reached P1
    assert int(worlds[1]["loc"][ids("♥5")[0]]) == C.LOC_HAND and int(worlds[1]["lidx"][ids("♥5")[0]]) == 1
    assert_same_view(*worlds, 1)
    assert "P1 hand: ♥5 ♥6 ♥7 ♥8 ♥9 ♥10 ♠7 ♦7 ♣7" in GAME.render(worlds[0], 1)


def _run_exists(avail: np.ndarray, bpos: np.ndarray, need_lo: int, need_hi: int, need_b: bool) -> bool:
    """Every run [a, b] of 3..10 positions of 1..11 tried in turn (the definition ``_interval_ok`` must keep)."""
    return any(avail[a:b + 1].all() and (not need_b or bpos[a:b + 1].any())
               for a in range(1, 12) for b in range(a + 2, min(a + 9, 11) + 1) if a <= need_lo and b >= need_hi)


def test_a_run_being_laid_stays_completable_exactly_where_some_run_of_3_to_10_cards_exists():
    rng = np.random.default_rng(8)
    found = {True: 0, False: 0}
    lone = set(rng.choice(1 << 11, 100, replace=False).tolist()) | {(1 << 11) - 1}
    for bits in range(1 << 11):  # every set of available positions 1..11
        avail = np.array([False] + [bool(bits >> i & 1) for i in range(11)])
        for need_lo, need_hi in ((1, 1), (11, 11), (5, 5), (4, 4), (2, 3), (3, 7), (1, 10), (2, 11), (9, 11), (1, 11)):
            bposes = [avail & (rng.random(12) < 0.3)]
            if bits in lone:  # and for some sets, each available position as the lone B position
                bposes += [avail & (np.arange(12) == q) for q in np.flatnonzero(avail)]
            for bpos in bposes:
                avail_set, bpos_set = position_set(avail), position_set(bpos)
                for need_b in (False, True):
                    want = _run_exists(avail, bpos, need_lo, need_hi, need_b)
                    got = en._interval_ok(avail_set, bpos_set, need_lo, need_hi, need_b)
                    assert got == want, (bits, bpos_set, need_lo, need_hi, need_b)
                    found[want] += 1
    assert min(found.values()) > 1000  # both answers, many times


# ---------------------------------------------------------------- random play
def test_heuristic_beats_random():
    assert heuristic_wins("en", 12) >= 10


def test_kernels_run_uncompiled_and_agree_with_compiled():
    compiled_and_uncompiled_agree("en", 400)


# ---------------------------------------------------------------- the facts block of the observation
def test_the_facts_of_an_explicit_table_for_each_seat():
    assert_facts_of_the_table("en")


def test_the_facts_agree_with_a_recount_and_each_action_points_at_its_own_cards():
    assert_facts_recounted("en", games=20)


def test_the_action_piles_facts_say_where_the_turned_card_can_be_used():
    assert_pile_facts("en")
