"""Octrix rules, scenario by scenario, from explicit deals and card sequences."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from octagames.core import CHANCE, SIMULTANEOUS, TERMINAL, Game, IllegalActionError
import octagames.octrix.rules as R
from octagames.octrix import Config, card_name, check_record, deal_outcomes, run_points
from octagames.octrix.rules import O_HANDS, O_TABLE, round_points_of_side

SUITS = {"♦": 0, "♥": 1, "♠": 2, "♣": 3}
RANKS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8}


def c(name: str) -> int:
    """Card index of a name like ``♣8``."""
    return (RANKS[name[1]] - 1) * 4 + SUITS[name[0]]


def deal(game: Game, hands: list[list[str]], seed: int = 0):
    """A state whose hands are exactly ``hands`` (dealt one card at a time)."""
    s = game.new_state(seed)
    n = game.num_players
    dealer = int(s["dealer"])
    order = [(dealer + 1 + k) % n for k in range(n)]  # seats in dealing order
    outcomes = []
    for k in range(len(hands[0])):
        for seat in order:
            outcomes.append(c(hands[seat][k]))
    for o in outcomes:
        assert game.current_player(s) == CHANCE
        game.apply_action(s, o)
    return s


def play(game: Game, s, *cards: str) -> None:
    for name in cards:
        game.apply_action(s, c(name))


def test_card_order_matches_the_seed():
    # the highest card is the club eight, the lowest the diamond ace; equal ranks: ♣ > ♠ > ♥ > ♦
    assert card_name(31) == "♣8" and card_name(0) == "♦A"
    assert c("♠5") > c("♥5") and c("♣5") > c("♠5") and c("♥5") > c("♦5")
    assert c("♦6") > c("♣5")  # rank first


def test_counting_cards_1_3_4_5_8_score_11():
    won = np.array([k in (1, 3, 4, 5, 8) for k in range(1, 9)])
    assert run_points(won) == 11
    assert run_points(np.ones(8, dtype=bool)) == 64
    assert run_points(np.array([True, True, False, True, True, False, False, False])) == 8


def test_first_trick_goes_to_the_highest_card():
    g = Game("octrix-round", num_players=2, hand_size=2)
    s = deal(g, [["♦8", "♦A"], ["♣7", "♣A"]])
    assert g.current_player(s) == SIMULTANEOUS
    play(g, s, "♦8", "♣7")
    assert s["trick_winner"][0] == 0


def test_equal_ranks_the_better_suit_wins():
    g = Game("octrix-round", num_players=2, hand_size=1)
    s = deal(g, [["♥5"], ["♠5"]])
    play(g, s, "♥5", "♠5")
    assert s["trick_winner"][0] == 1  # the spade five beats the heart five


def test_colour_rule_same_colour_highest_wins():
    # trick 1: ♦8 (red) highest, ♥A (red) lowest -> same colour -> trick 2 to the highest
    g = Game("octrix-round", num_players=2, hand_size=2)
    s = deal(g, [["♦8", "♣2"], ["♥A", "♠7"]])
    play(g, s, "♦8", "♥A")
    assert s["trick_winner"][0] == 0 and s["high_wins"] == 1
    play(g, s, "♣2", "♠7")
    assert s["trick_winner"][1] == 1  # ♠7 is higher
    assert g.is_terminal(s)


def test_colour_rule_different_colours_lowest_wins():
    # trick 1: ♣8 (black) highest, ♥A (red) lowest -> different -> trick 2 to the lowest
    g = Game("octrix-round", num_players=2, hand_size=2)
    s = deal(g, [["♣8", "♣2"], ["♥A", "♠7"]])
    play(g, s, "♣8", "♥A")
    assert s["high_wins"] == 0
    play(g, s, "♣2", "♠7")
    assert s["trick_winner"][1] == 0  # ♣2 is lower
    # P0 won both counting cards: a run of 2 scores 4, the other player 0
    assert list(s["round_points"][:2]) == [4, 0]
    assert list(g.returns(s)) == [4.0, -4.0]


def test_colour_rule_after_a_lowest_wins_trick_compares_its_highest_and_lowest_cards():
    # trick 1: ♣8 (black, highest) over ♥A (red, lowest): the lowest card wins trick 2
    # trick 2: ♣2 (black) is the lowest and wins; its highest card ♦7 is red: the colours differ again (the
    # winning card is the lowest: compared with the lowest it says "same colour"), the lowest wins trick 3
    g = Game("octrix-round", num_players=2, hand_size=3)
    s = deal(g, [["♣8", "♣2", "♠3"], ["♥A", "♦7", "♥6"]])
    play(g, s, "♣8", "♥A")
    assert s["trick_winner"][0] == 0 and s["high_wins"] == 0
    play(g, s, "♣2", "♦7")
    assert s["trick_winner"][1] == 0 and s["high_wins"] == 0
    play(g, s, "♠3", "♥6")  # the lower card, ♠3, wins
    assert s["trick_winner"][:3].tolist() == [0, 0, 0] and g.is_terminal(s)


def test_three_players_round_returns_are_points_minus_mean_of_others():
    g = Game("octrix-round", num_players=3, hand_size=2)
    s = deal(g, [["♣8", "♦2"], ["♥A", "♠7"], ["♦5", "♥3"]])
    play(g, s, "♣8", "♥A", "♦5")       # P0 wins trick 1; ♣8 black vs ♥A red -> lowest wins next
    play(g, s, "♦2", "♠7", "♥3")       # lowest is ♦2 -> P0
    assert list(s["trick_winner"][:2]) == [0, 0]
    assert list(g.returns(s)) == [4.0, -2.0, -2.0]


def test_colour_rule_three_players_only_the_highest_and_lowest_card_count():
    # "die jeweils höchste und niedrigste Karte des vorherigen Stichs": the middle card's colour is ignored
    g = Game("octrix-round", num_players=3, hand_size=3)
    s = deal(g, [["♣8", "♦2", "♠2"], ["♥5", "♥7", "♦6"], ["♠A", "♠4", "♥3"]])
    play(g, s, "♣8", "♥5", "♠A")  # highest ♣8, lowest ♠A: both black; the red ♥5 between does not count
    assert s["trick_winner"][0] == 0 and s["high_wins"] == 1
    play(g, s, "♦2", "♥7", "♠4")  # the highest card wins: ♥7 (the lowest, ♦2, is P0's)
    assert s["trick_winner"][1] == 1
    assert s["high_wins"] == 1  # ♥7 and ♦2 both red; the black ♠4 between does not count
    play(g, s, "♠2", "♦6", "♥3")  # the highest card wins again: ♦6 (the lowest, ♠2, is P0's)
    assert s["trick_winner"][:3].tolist() == [0, 1, 1]
    assert list(s["round_points"][:3]) == [1, 4, 0]  # P1's counting cards 2 and 3 are a run: 2 x 2


def test_simultaneous_cards_are_hidden_until_revealed():
    g = Game("octrix-round", num_players=2, hand_size=2)
    s = deal(g, [["♣8", "♣2"], ["♥A", "♠7"]])
    play(g, s, "♣8")  # P0 commits face down
    assert g.acting_player(s) == 1
    o1 = g.observation(s, 1)
    # for P1 the ♣8 still counts as in P0's hand, and nothing lies face up
    assert o1[O_HANDS + 1 * 32 + c("♣8")] == 1.0
    assert o1[O_TABLE:O_TABLE + 128].sum() == 0
    # P0 sees its own card on the table
    o0 = g.observation(s, 0)
    assert o0[O_TABLE + c("♣8")] == 1.0
    # determinize for P1 may swap P0's hidden card for another of P0's cards, never P1's
    seen = set()
    for seed in range(20):
        d = g.determinize(s, 1, seed)
        seen.add(int(d["trick_cards"][0, 0]))
        assert np.array_equal(g.observation(d, 1), o1)
    assert seen == {c("♣8"), c("♣2")}


def test_each_deal_outcome_is_an_undealt_card_with_equal_probability():
    # 3 players get 8 cards each from the 32; the 8 left over are set aside
    g = Game("octrix-round", num_players=3)
    s = g.new_state(0)
    dealt = []
    for k in range(24):
        outcomes = g.chance_outcomes(s)
        assert sorted(a for a, _ in outcomes) == sorted(set(range(32)) - set(dealt))
        assert all(p == pytest.approx(1 / (32 - k)) for _, p in outcomes)
        card = (7 * k + 3) % 32  # any undealt card may come next
        while card in dealt:
            card = (card + 1) % 32
        g.apply_action(s, card)
        dealt.append(card)
    assert g.current_player(s) == SIMULTANEOUS and g.chance_outcomes(s) == []
    assert [int((s["owner"] == p).sum()) for p in range(3)] == [8, 8, 8]
    assert sorted(np.flatnonzero(s["owner"] < 0).tolist()) == sorted(set(range(32)) - set(dealt))  # set aside
    # the record's generator draws the first card uniformly: 3200 fresh deals give each card about 100 times
    counts = np.bincount([g.sample_chance(g.new_state(seed)) for seed in range(3200)], minlength=32)
    assert len(counts) == 32 and counts.min() > 60 and counts.max() < 140


def test_every_hand_is_in_every_seats_observation():
    # "weiß jeder Teilnehmer genau, welche Karten seine Gegner haben": each seat sees all hands, all the time
    g = Game("octrix-round", num_players=4)
    hands = [[f"{suit}{r}" for r in "8765432A"] for suit in "♣♠♥♦"]
    s = deal(g, hands)

    def check_all_hands_seen(held):
        for viewer in range(4):
            view = g.observation_views(g.observation(s, viewer))["hands"]
            for p in range(4):
                assert np.flatnonzero(view[(p - viewer) % 4]).tolist() == sorted(c(x) for x in held[p])
            text = g.render(s, viewer)
            assert all(x in text for h in held for x in h)

    check_all_hands_seen(hands)
    play(g, s, "♣8", "♠8", "♥8", "♦8")  # a trick made: its cards leave the hands, the rest stay open
    check_all_hands_seen([h[1:] for h in hands])


def test_partnership_order_dealer_pair_first_face_up():
    g = Game("octrix-round", num_players=4, partnership=True, hand_size=1, dealer=1)
    s = deal(g, [["♦A"], ["♥2"], ["♠3"], ["♣4"]])
    # the dealer (P1) and their left neighbour (P2) play first
    assert [p for p in range(4) if g.legal_mask(s, p).any()] == [1, 2]
    assert g.acting_player(s) == 1
    play(g, s, "♥2")
    with pytest.raises(IllegalActionError, match="player 2 cannot play"):
        g.apply_action(s, c("♣4"))  # P3's card while P2 must play
    play(g, s, "♠3")
    # now P3 and P0 play, seeing the first two cards face up
    assert [p for p in range(4) if g.legal_mask(s, p).any()] == [0, 3]
    o3 = g.observation(s, 3)
    assert o3[O_TABLE + 2 * 32 + c("♥2")] == 1.0  # P1 is 2 seats after P3
    assert o3[O_TABLE + 3 * 32 + c("♠3")] == 1.0
    play(g, s, "♦A", "♣4")
    # highest card ♣4 (P3) wins; team 1+3 takes counting card 1
    assert s["trick_winner"][0] == 3
    assert list(g.returns(s)) == [-1.0, 1.0, -1.0, 1.0]


def test_partnership_dealer_pair_play_at_once_and_second_pair_sees_only_the_first_pairs_cards():
    # dealer P0 and left neighbour P1 play "gleichzeitig": neither sees the other's card before both are out;
    # then P2 and P3 choose seeing those two; they too play at once (the project's reading)
    g = Game("octrix-round", num_players=4, partnership=True, hand_size=1, dealer=0)
    s = deal(g, [["♦A"], ["♥2"], ["♠3"], ["♣4"]])

    def table(viewer):  # {absolute seat: card} lying face up for viewer
        view = g.observation_views(g.observation(s, viewer))["table"]
        return {(viewer + q) % 4: int(np.flatnonzero(view[q])[0]) for q in range(4) if view[q].any()}

    def in_hand(viewer, seat, card):
        return g.observation_views(g.observation(s, viewer))["hands"][(seat - viewer) % 4][c(card)] == 1.0

    play(g, s, "♦A")  # P0 commits
    assert g.acting_player(s) == 1
    assert table(0) == {0: c("♦A")}
    for viewer in (1, 2, 3):
        assert table(viewer) == {} and in_hand(viewer, 0, "♦A")
    assert "has played face down" in g.render(s, 1) and "plays ♦A" not in g.render(s, 1)
    play(g, s, "♥2")  # the dealer's pair is out: both cards face up for everyone
    first_pair = {0: c("♦A"), 1: c("♥2")}
    for viewer in range(4):
        assert table(viewer) == first_pair
    play(g, s, "♠3")  # P2 commits
    assert g.acting_player(s) == 3
    assert table(2) == {**first_pair, 2: c("♠3")}
    for viewer in (0, 1, 3):
        assert table(viewer) == first_pair and in_hand(viewer, 2, "♠3")
    text = g.render(s, 3)
    assert "plays ♦A" in text and "plays ♥2" in text and "plays ♠3" not in text
    play(g, s, "♣4")  # the trick is revealed: ♣4 is the highest card
    assert s["trick_winner"][0] == 3


def test_partners_pool_counting_cards():
    # team 0+2 wins tricks 1 and 2 with different partners: pooled they form a run of 2 = 4 points
    g = Game("octrix-round", num_players=4, partnership=True, hand_size=2)
    s = deal(g, [["♣8", "♦A"], ["♦2", "♥2"], ["♥3", "♠7"], ["♦3", "♠2"]])
    # dealer P0: P0 and P1 first, then P2 and P3
    play(g, s, "♣8", "♦2", "♥3", "♦3")   # ♣8 wins for P0; ♣8 black vs ♦2 red -> lowest next
    play(g, s, "♦A", "♥2", "♠7", "♠2")   # lowest ♦A -> P0
    assert list(s["trick_winner"][:2]) == [0, 0]
    g2 = Game("octrix-round", num_players=4, partnership=True, hand_size=2)
    s2 = deal(g2, [["♣8", "♥8"], ["♦2", "♥2"], ["♥3", "♦A"], ["♦3", "♠2"]])
    play(g2, s2, "♣8", "♦2", "♥3", "♦3")  # P0 wins trick 1
    play(g2, s2, "♥8", "♥2", "♦A", "♠2")  # lowest wins: ♦A of P2
    assert list(s2["trick_winner"][:2]) == [0, 2]
    assert int(round_points_of_side(s2, 0)) == 4
    assert list(s2["round_points"]) == [4, 0, 4, 0]


def test_partnership_dealer_moves_left_each_round():
    g = Game("octrix", num_players=4, partnership=True, hand_size=1, match=True, target=50)
    s = deal(g, [["♦A"], ["♥2"], ["♠3"], ["♣4"]])
    play(g, s, "♦A", "♥2", "♠3", "♣4")
    assert not g.is_terminal(s) and s["dealer"] == 1 and s["round"] == 1
    assert g.current_player(s) == CHANCE


def deal_again(g, s, hands):
    """Deal the next round's hands (listed per seat) in dealing order."""
    n = g.num_players
    order = [(int(s["dealer"]) + 1 + k) % n for k in range(n)]
    for k in range(len(hands[0])):
        for seat in order:
            g.apply_action(s, c(hands[seat][k]))
    return s


# P0 wins both tricks: ♣8 beats ♠A, both black -> the highest wins trick 2 too (♠8 > ♣2)
SWEEP = [["♣8", "♠8"], ["♠A", "♣2"]]
# one trick each: ♣8 wins; ♣8 black / ♦A red -> the lowest wins trick 2 (♦2 of P1)
SPLIT = [["♣8", "♣7"], ["♦A", "♦2"]]


def test_match_ends_when_a_player_reaches_the_target():
    g = Game("octrix", num_players=2, hand_size=2, match=True, target=8)
    s = g.new_state(0)
    deal_again(g, s, SWEEP)
    play(g, s, "♣8", "♠A", "♠8", "♣2")
    assert list(s["scores"][:2]) == [4, 0] and not g.is_terminal(s)
    assert s["round"] == 1 and s["dealer"] == 1 and g.current_player(s) == CHANCE
    deal_again(g, s, SWEEP)
    play(g, s, "♣8", "♠A", "♠8", "♣2")
    assert g.is_terminal(s) and s["winner"] == 0 and not g.kernels.truncated(s)  # an end by the rules
    assert list(g.returns(s)) == [1.0, -1.0]
    assert g.render(s).startswith("Octrix (2 players) round 2, dealer P1")  # the last round played, not a third


def test_match_exact_tie_at_the_top_plays_on():
    g = Game("octrix", num_players=2, hand_size=2, match=True, target=4)
    s = g.new_state(0)
    s["scores"][:2] = [3, 3]
    s["round"] = 2  # two rounds played (the dealer back at seat 0) can give 3 points each
    g.check_record(s)  # a record the game could reach
    deal_again(g, s, SPLIT)
    play(g, s, "♣8", "♦A", "♣7", "♦2")
    assert list(s["scores"][:2]) == [4, 4] and not g.is_terminal(s)  # both passed 4, tied
    deal_again(g, s, SWEEP)
    play(g, s, "♣8", "♠A", "♠8", "♣2")
    assert g.is_terminal(s) and s["winner"] == 0 and list(s["scores"][:2]) == [8, 4]


def test_match_several_pass_the_target_highest_total_wins():
    g = Game("octrix", num_players=2, hand_size=3, match=True, target=5)
    s = g.new_state(0)
    s["scores"][:2] = [2, 4]  # P1 leads, both short of the target
    s["round"], s["dealer"] = 1, 1  # after one round
    g.check_record(s)  # a record the game could reach
    deal_again(g, s, [["♣8", "♦A", "♣7"], ["♥A", "♠7", "♦2"]])
    # ♣8 wins trick 1 (black over red: the lowest wins next), ♦A trick 2 (red under black: the lowest again),
    # ♦2 trick 3: P0's run of 2 scores 4, P1's single trick 1
    play(g, s, "♣8", "♥A", "♦A", "♠7", "♣7", "♦2")
    assert s["trick_winner"][:3].tolist() == [0, 0, 1]
    assert list(s["scores"][:2]) == [6, 5]  # both pass 5: the higher total wins, not the earlier leader
    assert g.is_terminal(s) and s["winner"] == 0 and list(g.returns(s)) == [1.0, -1.0]


def test_match_stops_as_a_truncation_after_max_rounds_rounds_without_a_winner():
    # engine rule: no total at the target (or a tie at the top) after max_rounds rounds -> the match stops, all
    # returns 0; "Wer zuerst 88 Punkte erreicht hat, gewinnt": not an end by the rules, so a truncation
    for max_rounds in (1, 2):
        g = Game("octrix", num_players=2, hand_size=2, target=8, max_rounds=max_rounds)
        s = g.new_state(0)
        deal_again(g, s, SPLIT)
        play(g, s, "♣8", "♦A", "♣7", "♦2")  # one trick each: the round ends level, 1 to 1
        assert list(s["scores"][:2]) == [1, 1] and s["round"] == 1
        if max_rounds == 1:
            assert g.is_terminal(s) and s["winner"] == -1 and list(g.returns(s)) == [0.0, 0.0]
            assert g.kernels.truncated(s) and g.render(s).startswith("Octrix (2 players) round 1,")
        else:  # one more round allowed: the match goes on with a new deal
            assert not g.is_terminal(s) and g.current_player(s) == CHANCE and s["dealer"] == 1
            deal_again(g, s, SWEEP)
            play(g, s, "♣8", "♠A", "♠8", "♣2")
            # P0 leads 5 to 1 but is short of the target 8: still a draw
            assert list(s["scores"][:2]) == [5, 1] and s["round"] == 2
            assert g.is_terminal(s) and s["winner"] == -1 and list(g.returns(s)) == [0.0, 0.0]
            assert g.kernels.truncated(s)


# every club beats the spade of its rank and both are black, so the highest card wins every trick:
# P0 leading ♣8, ♣7, ... against ♠8, ♠7, ... takes all eight tricks
CLUBS_VS_SPADES = [["♣8", "♣7", "♣6", "♣5", "♣4", "♣3", "♣2", "♣A"],
                   ["♠8", "♠7", "♠6", "♠5", "♠4", "♠3", "♠2", "♠A"]]


def play_clubs_vs_spades(g: Game, s) -> None:
    for k in range(8):
        play(g, s, CLUBS_VS_SPADES[0][k], CLUBS_VS_SPADES[1][k])


def test_a_round_of_the_default_game_is_eight_tricks_and_every_seat_plays_all_eight_cards():
    # "bis alle 8 Stiche gemacht sind": with the default config a round is 8 tricks of one card per seat
    g = Game("octrix-round")
    assert g.num_players == 2
    s = deal(g, CLUBS_VS_SPADES)
    for k in range(8):  # one trick made per card of each seat
        assert not g.is_terminal(s) and s["trick"] == k
        assert [int((s["owner"] == p).sum()) for p in range(2)] == [8 - k, 8 - k]
        play(g, s, CLUBS_VS_SPADES[0][k], CLUBS_VS_SPADES[1][k])
    assert s["trick"] == 8 and g.is_terminal(s)
    assert (s["owner"] == -1).all()  # both hands played out
    assert sorted(s["trick_cards"][:8, :2].ravel().tolist()) == sorted(c(x) for h in CLUBS_VS_SPADES for x in h)
    # P0 made all 8 tricks: counting cards 1..8 in a row, "8 mal 8 = 64" points
    assert s["trick_winner"][:8].tolist() == [0] * 8
    assert list(s["round_points"][:2]) == [64, 0] and list(g.returns(s)) == [64.0, -64.0]
    # the seed's match (the default config too) scores those 64 after the eighth trick, and not before
    m = Game("octrix")
    s = deal(m, CLUBS_VS_SPADES)
    for k in range(7):
        play(m, s, CLUBS_VS_SPADES[0][k], CLUBS_VS_SPADES[1][k])
    assert s["round"] == 0 and list(s["scores"][:2]) == [0, 0] and m.current_player(s) == SIMULTANEOUS
    play(m, s, CLUBS_VS_SPADES[0][7], CLUBS_VS_SPADES[1][7])
    assert s["round"] == 1 and list(s["scores"][:2]) == [64, 0]
    assert not m.is_terminal(s)  # 64 < 88


def test_every_round_is_dealt_from_the_whole_deck_again():
    # "nach jeder Runde im Gesamten gemischt und aufs neue verteilt": in round 2 the 16 cards played in
    # round 1 and the 16 set aside come back; each of the 32 is the first card dealt with chance 1/32
    g = Game("octrix")
    s = deal(g, CLUBS_VS_SPADES)
    set_aside = [k for k in range(32) if s["owner"][k] < 0]
    assert len(set_aside) == 16 and all(card_name(k)[0] in "♦♥" for k in set_aside)
    play_clubs_vs_spades(g, s)
    assert s["round"] == 1 and g.current_player(s) == CHANCE
    outcomes = g.chance_outcomes(s)
    assert sorted(a for a, _ in outcomes) == list(range(32))
    assert all(p == pytest.approx(1 / 32) for _, p in outcomes)
    # any card can now go to any seat: the round-1 clubs of P0 to P1, the set-aside reds to P0
    hands = [["♥8", "♦7", "♥6", "♦5", "♥4", "♦3", "♥2", "♦A"],
             ["♣8", "♣7", "♣6", "♣5", "♣4", "♣3", "♣2", "♣A"]]
    deal_again(g, s, hands)
    assert g.current_player(s) == SIMULTANEOUS
    assert [sorted(np.flatnonzero(s["owner"] == p).tolist()) for p in range(2)] == [
        sorted(c(x) for x in hands[p]) for p in range(2)]


def test_first_trick_of_every_round_goes_to_the_highest_card_even_after_a_lowest_wins_trick():
    # round 1 ends with ♣7 (black) over ♦2 (red): different colours, the rule the seed gives for a next trick
    # would be "lowest wins"; but "den ersten Stich einer Runde macht immer die höchste Karte"
    g = Game("octrix", num_players=2, hand_size=2, target=50)
    s = g.new_state(0)
    deal_again(g, s, SPLIT)
    play(g, s, "♣8", "♦A", "♣7", "♦2")
    assert s["round"] == 1 and list(s["scores"][:2]) == [1, 1]  # one trick each
    deal_again(g, s, [["♦A", "♥A"], ["♣8", "♠8"]])
    assert s["high_wins"] == 1 and g.observation(s, 0)[R.O_HIGH] == 1.0
    play(g, s, "♦A", "♣8")
    assert s["trick_winner"][0] == 1  # ♣8, the highest card (the lowest, ♦A, would be P0's)
    # ♣8 black / ♦A red: the second trick of round 2 goes to the lowest card
    play(g, s, "♥A", "♠8")  # so P0's ♥A takes it: one trick each again
    assert s["round"] == 2 and list(s["scores"][:2]) == [2, 2]


def test_illegal_card_names_card_and_rule_and_keeps_state():
    g = Game("octrix-round", num_players=2, hand_size=2)
    s = deal(g, [["♣8", "♣2"], ["♥A", "♠7"]])
    before = g.to_bytes(s)
    with pytest.raises(IllegalActionError) as e:
        g.apply_action(s, c("♠7"))
    msg = str(e.value)
    assert "♠7" in msg and "player 1's hand" in msg
    assert g.to_bytes(s) == before


def test_a_card_committed_face_down_reads_as_in_its_owners_hand():
    # P1 cannot tell which of P0's cards lies face down, so no text may tell it either
    g = Game("octrix-round", num_players=2, hand_size=2)
    s = deal(g, [["♣8", "♣2"], ["♥A", "♠7"]])
    play(g, s, "♣8")
    reasons = [R.illegal_reason(s, 1, c(x)) for x in ("♣8", "♣2")]
    assert reasons == [f"{x} is in player 0's hand; you may only play a card from your own hand"
                       for x in ("♣8", "♣2")]
    with pytest.raises(IllegalActionError, match="♣8 is in player 0's hand"):
        g.apply_action(s, c("♣8"))
    assert "all cards shown" in g.render(s) and "plays ♣8" in g.render(s)
    assert "as seen by P1" in g.render(s, 1) and "♣8" in g.render(s, 1) and "plays ♣8" not in g.render(s, 1)
    # once revealed, a played card is named as played
    play(g, s, "♠7")
    assert R.illegal_reason(s, 0, c("♣8")) == "♣8 was already played in trick 1 by player 0"


def test_partnership_cards_laid_face_up_are_named_as_played():
    g = Game("octrix-round", num_players=4, partnership=True, hand_size=1, dealer=1)
    s = deal(g, [["♦A"], ["♥2"], ["♠3"], ["♣4"]])
    play(g, s, "♥2", "♠3")  # the dealer's pair, face up
    assert R.illegal_reason(s, 3, c("♥2")) == "♥2 was already played in this trick by player 1"


def test_deal_order_is_a_rule_of_the_package():
    # one card at a time from the left of the dealer: the outcomes interleave the hands
    g = Game("octrix-round", num_players=3, hand_size=2, dealer=1)
    s = g.new_state(0)
    hands = [[0, 1], [2, 3], [4, 5]]
    assert deal_outcomes(s, hands) == [4, 0, 2, 5, 1, 3]
    g.apply_actions(s, deal_outcomes(s, hands))
    assert [sorted(np.flatnonzero(s["owner"] == p).tolist()) for p in range(3)] == hands
    for bad, msg in [(hands[:2], "2 hands but the game has 3"), ([[0], [2, 3], [4, 5]], "has 1 cards"),
                     ([[0, 40], [2, 3], [4, 5]], "card 40 is not in the deck"),
                     ([[0, 2], [2, 3], [4, 5]], "also in the hand of player 0"),
                     ([[0, 1.0], [2, 3], [4, 5]], "not an integer")]:
        with pytest.raises(ValueError, match=msg):
            deal_outcomes(g.new_state(0), bad)


def test_tables_are_declared_once_and_the_docstring_carries_them():
    assert R.ACTIONS.table() in R.__doc__ and R.OBS_LAYOUT.table() in R.__doc__
    assert R.ACTIONS.size == R.INFO.num_actions and R.OBS_LAYOUT.size == R.INFO.observation_size
    assert R.ACTIONS.locate(c("♣8")) == (R.ACTIONS.block("card"), 31)


def test_observation_views_name_the_blocks():
    g = Game("octrix-round", num_players=3, hand_size=2)
    s = deal(g, [["♣8", "♣2"], ["♥A", "♠7"], ["♦5", "♥3"]])
    play(g, s, "♣8")
    views = g.observation_views(g.observation(s, 0))
    assert set(views) == {b.name for b in R.OBS_LAYOUT.blocks}
    assert views["hands"].shape == (4, 32) and np.flatnonzero(views["hands"][0]).tolist() == [c("♣2")]
    assert np.flatnonzero(views["table"][0]).tolist() == [c("♣8")]  # its own card, face up for itself
    assert views["pending"].tolist() == [0, 1, 1, 0] and views["num_players"].tolist() == [0, 1, 0]
    other = g.observation_views(g.observation(s, 1))
    assert sorted(np.flatnonzero(other["hands"][2]).tolist()) == [c("♣2"), c("♣8")]  # P0 is 2 seats on
    assert other["table"].sum() == 0


def test_check_record_passes_reached_records_and_names_a_bad_field():
    g = Game("octrix", num_players=3, hand_size=2, match=True, target=5)
    rng = np.random.default_rng(0)
    s = g.new_state(0)
    while not g.is_terminal(s):
        assert check_record(s) == "", g.render(s)
        a = g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s)))
        g.apply_action(s, a)
    assert check_record(s) == ""
    s = deal(Game("octrix-round", num_players=2, hand_size=2), [["♣8", "♣2"], ["♥A", "♠7"]])
    cases = [("num_players", 9, "num_players=9 is not valid; it must be >= 2 and <= 4"),
             ("partnership", 2, "partnership = 2 is outside 0..1"),
             ("dealer", 3, "dealer = 3 is outside 0..1"),
             ("trick", 7, "trick = 7 is outside 0..2")]
    for field, value, msg in cases:
        bad = s.copy()
        bad[field] = value
        assert check_record(bad) == msg
    bad = s.copy()
    bad["owner"][c("♣2")] = 1
    assert check_record(bad) == "player 0 holds 1 cards; the deal and the tricks played leave 2"
    bad["owner"][c("♦A")] = 0  # a card set aside
    assert check_record(bad) == "5 cards are in hands or tricks but dealt = 4"
    bad = s.copy()
    bad["trick_cards"][0, :2] = [c("♣8"), c("♥A")]
    assert check_record(bad) == "card 1 (♥A) is in 2 places (owner and trick_cards)"
    bad["owner"][[c("♣8"), c("♥A")]] = -1
    assert check_record(bad) == "trick_cards[0] is complete but the trick was not resolved"
    bad = s.copy()
    bad["owner"][c("♦3")] = 5
    assert check_record(bad) == "owner[8] = 5 is outside -1..1"


def test_the_bare_name_is_the_seeds_match_to_88_and_octrix_round_is_one_round():
    match, one = Game("octrix"), Game("octrix-round", num_players=3)
    assert match.config.match and match.config.target == 88 and match.num_players == 2
    assert not one.config.match and one.num_players == 3
    s = one.new_state(0)
    while not one.is_terminal(s):  # one deal, then the game is over
        one.apply_action(s, one.sample_chance(s) if one.is_chance(s) else int(one.legal_actions(s)[0]))
    assert s["round"] == 0


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="num_players=5"):
        Config(num_players=5)
    with pytest.raises(ValueError, match="partnership=True needs num_players=4"):
        Config(num_players=3, partnership=True)
    with pytest.raises(ValueError, match="hand_size=8"):
        Config(num_players=4, ranks=4)
    with pytest.raises(ValueError, match="ranks"):
        Config(ranks=0)


def _cards_in_exactly_one_place(g: Game, s) -> None:
    deck = 4 * int(s["ranks"])
    n = g.num_players
    places = np.zeros(32, dtype=int)
    for card in range(32):
        if s["owner"][card] >= 0:
            places[card] += 1
    for t in range(int(s["hand_size"])):
        for p in range(n):
            if s["trick_cards"][t, p] >= 0:
                places[s["trick_cards"][t, p]] += 1
    assert places.max() <= 1 and places[deck:].sum() == 0
    dealt = int(s["dealt"])
    assert places.sum() == dealt  # the rest of the deck is set aside (or not yet dealt)


def _trick_winner(cards: dict[int, int], high_wins: bool) -> tuple[int, bool]:
    """The seat that wins a trick of ``cards`` ({seat: card}) and whether the highest card wins the next one.

    The seed: rank first, then ♣ > ♠ > ♥ > ♦; the previous trick's highest and lowest cards of the same colour
    (♥♦ red, ♣♠ black): the highest wins, else the lowest."""
    strength = {seat: (card // 4, card % 4) for seat, card in cards.items()}  # (rank, suit ♦ ♥ ♠ ♣)
    hi = max(cards, key=strength.__getitem__)
    lo = min(cards, key=strength.__getitem__)
    return (hi if high_wins else lo), (cards[hi] % 4) // 2 == (cards[lo] % 4) // 2


def _run_points(won: list[bool]) -> int:
    """Each maximal run of consecutive counting cards of length L scores L * L."""
    total, run = 0, 0
    for w in won + [False]:
        if w:
            run += 1
        else:
            total, run = total + run * run, 0
    return total


CONFIGS = [dict(num_players=2), dict(num_players=3), dict(num_players=4),
           dict(num_players=4, partnership=True), dict(num_players=2, ranks=3, hand_size=5),
           dict(num_players=3, match=True, target=40),
           dict(num_players=4, partnership=True, match=True, target=40, max_rounds=3)]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_random_play_invariants(cfg):
    """Random games replayed beside the engine: each trick's winner from the cards played and the colour rule,
    the round points from the winners, the match scores, end and returns from the round points."""
    g = Game("octrix" if cfg.get("match") else "octrix-round", **cfg)
    rng = np.random.default_rng(1)
    n = g.num_players
    sides = 2 if cfg.get("partnership") else n
    tricks, ends = 0, {"won": 0, "drawn": 0}
    # 500 games; a match to 40 is about 7 games (rounds), so 200 matches play about 1400; 100 of 3 at most
    for seed in range(500 if not cfg.get("match") else 100 if cfg.get("max_rounds") else 200):
        s = g.new_state(seed)
        scores = [0] * sides  # the match totals, kept here
        cards: dict[int, int] = {}  # the open trick
        winners: list[int] = []  # the round's trick winners
        high_wins = True  # "Den ersten Stich einer Runde macht immer die höchste Karte"
        while True:
            cp = g.current_player(s)
            if cp == TERMINAL:
                break
            if cp == CHANCE:
                g.apply_action(s, g.sample_chance(s))
                _cards_in_exactly_one_place(g, s)
                continue
            seat, card = g.acting_player(s), int(rng.choice(g.legal_actions(s)))
            g.apply_action(s, card)
            _cards_in_exactly_one_place(g, s)
            cards[seat] = card
            if len(cards) < n:
                continue
            winner, high_wins = _trick_winner(cards, high_wins)
            winners.append(winner)
            cards, tricks = {}, tricks + 1
            if len(winners) < int(s["hand_size"]):
                assert int(s["trick_winner"][len(winners) - 1]) == winner
                assert int(s["high_wins"]) == high_wins and not g.is_terminal(s)
                continue
            # the round is over: the points of every side from its counting cards
            pts = [_run_points([w % sides == side for w in winners]) for side in range(sides)]
            winners, high_wins = [], True
            if not cfg.get("match"):
                assert g.is_terminal(s)
                assert list(s["round_points"][:n]) == [pts[p % sides] for p in range(n)]
                for p in range(n):
                    rest = [pts[q] for q in range(sides) if q != p % sides]
                    assert g.returns(s)[p] == pytest.approx(pts[p % sides] - sum(rest) / len(rest))
                continue
            scores = [a + b for a, b in zip(scores, pts)]
            assert list(s["scores"][:n]) == [scores[p % sides] for p in range(n)]
            top = max(scores)
            if top >= int(s["target"]) and scores.count(top) == 1:  # "Wer zuerst 88 Punkte erreicht hat"
                best = scores.index(top)
                assert g.is_terminal(s) and int(s["winner"]) == best
                want = [1.0 if p % sides == best else -1.0 / (sides - 1) for p in range(n)]
                assert g.returns(s).tolist() == pytest.approx(want)
                ends["won"] += 1
            elif int(s["round"]) >= int(s["max_rounds"]):
                assert g.is_terminal(s) and int(s["winner"]) == -1 and not g.returns(s).any()  # a draw
                ends["drawn"] += 1
            else:  # no sole leader at the target (an exact tie at the top plays on): a new deal
                assert g.current_player(s) == CHANCE and not g.returns(s).any()
        assert not cards and not winners  # every game ends with a complete round
    assert tricks >= 1000
    if cfg.get("match"):  # the rounds run out only in the match of 3 rounds at most
        assert ends["won"] and ends["won"] + ends["drawn"] == seed + 1
        assert bool(ends["drawn"]) == ("max_rounds" in cfg)


def test_uncompiled_rules_match_compiled(tmp_path):
    """The rules also run with NUMBA_DISABLE_JIT=1 and give byte-identical games and deals."""
    script = textwrap.dedent("""
        import hashlib, sys
        import numpy as np
        from octagames.core import Game
        from octagames.testing import random_playout
        h = hashlib.sha256()
        for cfg in [dict(num_players=2, match=False), dict(num_players=4, partnership=True, match=False),
                    dict(num_players=3, match=True, target=20)]:
            g = Game("octrix", **cfg)
            for seed in range(int(sys.argv[1])):
                h.update(g.to_bytes(random_playout(g, seed)))
                s = g.new_state(seed)
                g.play_chance(s)  # the whole deal at once (settle_chance)
                h.update(g.to_bytes(s))
        print(h.hexdigest())
    """)
    path = tmp_path / "run.py"
    path.write_text(script)
    outs = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        r = subprocess.run([sys.executable, str(path), "20"], capture_output=True, text=True, env=env,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout.strip())
    assert outs[0] == outs[1] and len(outs[0]) == 64


def test_every_reset_of_a_match_starts_with_the_configured_dealer():
    # the dealer moves left every round; a record reset for the next match (as the faces reuse records) starts with
    # the config's dealer again, and a record's config names that dealer, not the one the match ended with
    from octagames.testing import random_playout

    g = Game("octrix", num_players=3, target=20, dealer=2)
    s = random_playout(g, 0, check=False)
    assert int(s["round"]) > 1 and int(s["dealer"]) != 2  # the match moved the dealer
    assert R._config_of(s).dealer == 2
    g.kernels.reset(s, 7)
    assert int(s["dealer"]) == 2 and g.to_bytes(s) == g.to_bytes(g.new_state(7))
    bad = s.copy()
    bad["first_dealer"] = 5  # named as itself, not as the record's dealer
    assert check_record(bad) == "first_dealer = 5 is outside 0..2"
