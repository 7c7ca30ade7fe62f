"""Tests of the exact 2-player Octrix round solver (octagames.agents.search.octrix_solver).

Card ids: ``a = 4 * (rank - 1) + suit`` with suits ♦ 0, ♥ 1 (red), ♠ 2, ♣ 3 (black).
So ♦A=0 ♥A=1 ♠A=2 ♣A=3 ♦2=4 ♥2=5 ♠2=6 ♣2=7 ♦3=8 ♥3=9 ♠3=10 ♣3=11.
Values are seat 0's points minus seat 1's (the engine's one-round return of seat 0).
"""

from __future__ import annotations

import numpy as np
import pytest

from octagames.agents.base import RandomAgent, make_turn
from octagames.agents.cfr.solver import CFRSolver
from octagames.agents.cfr.tree import GameSource, flatten
from octagames.agents.search.octrix_solver import (
    OctrixOracleAgent,
    OctrixRoundSolver,
    bits_of,
    game_value,
    node_of,
    solve_matrix_game,
    state_value,
    step,
)
from octagames.core import Game


def deal(game: Game, hand0, hand1):
    """A record right after dealing ``hand0`` to seat 0 and ``hand1`` to seat 1 (dealer 0).

    Card k of the deal goes to seat (dealer + 1 + k) % 2, so seat 1 gets the even ones.
    """
    s = game.new_state(0)
    for c1, c0 in zip(hand1, hand0):
        game.apply_action(s, c1)
        game.apply_action(s, c0)
    assert game.current_player(s) == -2
    return s


# ---------------------------------------------------------------- matrix games
def test_matrix_games_with_known_solutions():
    v, x, y = solve_matrix_game([[1, -1], [-1, 1]])  # matching pennies
    assert v == pytest.approx(0) and x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])
    v, x, y = solve_matrix_game([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])  # rock-paper-scissors
    assert (
        v == pytest.approx(0, abs=1e-9)
        and x == pytest.approx([1 / 3] * 3)
        and y == pytest.approx([1 / 3] * 3)
    )
    # [[3, 0], [1, 2]]: x = (1/4, 3/4) makes the column player indifferent, value 3/2
    v, x, y = solve_matrix_game([[3, 0], [1, 2]])
    assert v == pytest.approx(1.5) and x == pytest.approx([0.25, 0.75]) and y == pytest.approx([0.5, 0.5])
    v, x, y = solve_matrix_game([[2, 5], [1, 0]])  # saddle point at (0, 0)
    assert v == 2 and list(x) == [1, 0] and list(y) == [1, 0]


def test_matrix_solutions_are_optimal_on_random_games():
    """Each strategy guarantees the value against every pure reply of the other side."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        r, c = rng.integers(1, 6, size=2)
        m = rng.integers(-3, 4, size=(r, c)).astype(float)  # small integers: many ties and dominances
        v, x, y = solve_matrix_game(m)
        assert x.min() >= 0 and y.min() >= 0 and x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
        assert (x @ m).min() >= v - 1e-7 and (m @ y).max() <= v + 1e-7


# ---------------------------------------------------------------- hand-computed deals
def test_one_card_deal():
    # ♣2 (7) against ♦2 (4): trick 1 goes to the highest card, seat 0 takes counting card 1: 1 point.
    assert OctrixRoundSolver().deal_value([7], [4]) == 1.0


def test_two_card_deal_with_a_mixed_equilibrium():
    # Seat 0: ♦A (0), ♠A (2). Seat 1: ♣A (3), ♦2 (4). Trick 1: highest wins.
    #  (♦A, ♣A): ♣A wins for seat 1; ♣ black vs ♦ red -> lowest wins trick 2;
    #            ♠A vs ♦2 -> ♠A lowest, seat 0. Counting cards {2} vs {1}: 1 - 1 = 0.
    #  (♦A, ♦2): ♦2 wins for seat 1; ♦/♦ same colour -> highest wins trick 2;
    #            ♠A vs ♣A -> ♣A, seat 1 takes {1, 2}: run of 2 = 4 -> -4.
    #  (♠A, ♣A): ♣A wins for seat 1; ♣/♠ both black -> highest; ♦A vs ♦2 -> seat 1: -4.
    #  (♠A, ♦2): ♦2 wins for seat 1; ♦ red vs ♠ black -> lowest; ♦A vs ♣A -> ♦A, seat 0: 0.
    # Matrix [[0, -4], [-4, 0]]: no saddle point; both mix 1/2-1/2, value -2.
    solver = OctrixRoundSolver()
    assert solver.deal_value([0, 2], [3, 4]) == pytest.approx(-2.0)
    cards0, x, cards1, y = solver.strategies((bits_of([0, 2]), bits_of([3, 4]), 1, -1, 0))
    assert cards0 == [0, 2] and cards1 == [3, 4]
    assert x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])


def test_two_card_deal_with_a_dominant_card():
    # Seat 0: ♦A (0), ♣2 (7). Seat 1: ♥A (1), ♠2 (6).
    #  (♣2, ♠2): seat 0 wins; black/black -> highest; ♦A vs ♥A -> ♥A, seat 1: 1 - 1 = 0.
    #  (♣2, ♥A): seat 0 wins; ♣ black vs ♥ red -> lowest; ♦A vs ♠2 -> ♦A, seat 0: run 2 = +4.
    #  (♦A, ♠2): seat 1 wins; ♠ black vs ♦ red -> lowest; ♣2 vs ♥A -> ♥A, seat 1: -4.
    #  (♦A, ♥A): seat 1 wins (♥A > ♦A); both red -> highest; ♣2 vs ♠2 -> seat 0: 0.
    # Matrix [[0, 4], [-4, 0]] (rows ♣2, ♦A): ♣2 dominates, seat 1 answers ♠2: value 0.
    assert OctrixRoundSolver().deal_value([0, 7], [1, 6]) == 0.0


def test_three_card_deal_all_black_runs_square():
    # ranks=3 deck. Seat 0 holds ♣2 (7), ♠3 (10), ♣3 (11); seat 1 holds ♠A (2), ♣A (3), ♠2 (6).
    # Every card is black, so every trick is won by the highest card, and all of
    # seat 0's cards beat all of seat 1's: seat 0 takes counting cards 1, 2, 3 in a
    # row, 1 + 3 + 5 = 3² = 9 points.
    assert OctrixRoundSolver().deal_value([7, 10, 11], [2, 3, 6]) == 9.0


def test_three_card_deal_keeping_the_high_rule():
    # Seat 0: ♥3 (9), ♠3 (10), ♣3 (11); seat 1: ♦A (0), ♥A (1), ♦2 (4), all red and all lower.
    # Seat 0 wins any trick under the "highest wins" rule and loses any under "lowest wins";
    # the rule for the next trick is "highest" iff the trick's cards share a colour, i.e.
    # iff seat 0 played its red ♥3. Seat 1's choices never matter.
    #  ♥3 first: wins 1, "highest" for 2, wins 2 with a black card, then "lowest": seat 1 wins 3.
    #            {1, 2} = 4 against {3} = 1: +3.
    #  black first: wins 1, "lowest" for 2 -> seat 1 wins 2; then ♥3 keeps "highest" and seat 0
    #            wins 3: {1, 3} = 2 against {2} = 1: +1; or black again, seat 1 wins 3: 1 - 4 = -3.
    # So the value is +3 and seat 0 must open with ♥3.
    solver = OctrixRoundSolver()
    assert solver.deal_value([9, 10, 11], [0, 1, 4]) == 3.0
    cards0, x, _, _ = solver.strategies((bits_of([9, 10, 11]), bits_of([0, 1, 4]), 1, -1, 0))
    assert x[cards0.index(9)] == pytest.approx(1.0)


# ---------------------------------------------------------------- against the rules engine
def test_nodes_and_steps_agree_with_the_engine():
    """Along random playouts the solver's bookkeeping matches the engine exactly."""
    game = Game("octrix-round", num_players=2)
    rng = np.random.default_rng(0)
    for seed in range(30):
        s = game.new_state(seed)
        game.play_chance(s)
        node, banked = node_of(s)
        assert banked == 0 and node[2:] == (1, -1, 0)
        while not game.is_terminal(s):
            c0 = int(rng.choice(game.legal_actions(s)))
            game.apply_action(s, c0)
            assert node_of(s)[0] == node  # a hidden commitment goes back to the hand
            c1 = int(rng.choice(game.legal_actions(s)))
            game.apply_action(s, c1)
            gain, expected = step(node, c0, c1)
            node2, banked2 = node_of(s)
            assert node2 == expected and banked2 == pytest.approx(banked + gain)
            node, banked = node2, banked2
        assert banked == game.returns(s)[0]


def test_state_value_along_equilibrium_play():
    # On a deal with pure optimal play, playing it keeps the state value constant.
    game = Game("octrix-round", num_players=2, ranks=3, hand_size=3)
    s = deal(game, [9, 10, 11], [0, 1, 4])
    assert state_value(s) == 3.0
    game.apply_actions(s, [9, 0])
    assert state_value(s) == 3.0
    game.apply_actions(s, [10, 1, 11, 4])
    assert game.returns(s)[0] == 3.0


# ---------------------------------------------------------------- CFR against the exact values
def test_cfr_matches_exact_values_on_small_deals():
    game = Game("octrix-round", num_players=2, ranks=2, hand_size=3)
    for seed in range(4):
        s = game.new_state(seed)
        game.play_chance(s)
        tree = flatten(GameSource(game, root=s))
        solver = CFRSolver(tree)
        solver.iterate(400)
        assert solver.root_values()[0] == pytest.approx(state_value(s), abs=2e-2)


def test_config_value_matches_cfr():
    game = Game("octrix-round", num_players=2, ranks=2, hand_size=2)
    exact = game_value(game)
    assert exact == pytest.approx(0.0, abs=1e-9)  # seat symmetry over the deals
    tree = flatten(GameSource(game))
    solver = CFRSolver(tree)
    solver.iterate(300)
    assert solver.root_values()[0] == pytest.approx(exact, abs=1e-3)
    with pytest.raises(ValueError, match="match=True is not valid here; use the variant 'octrix-round'"):
        game_value(Game("octrix", num_players=2, ranks=2, hand_size=2))  # the match to 88


# ---------------------------------------------------------------- the oracle agent
def test_oracle_agent_plays_the_equilibrium():
    game = Game("octrix-round", num_players=2, ranks=3, hand_size=3)
    s = deal(game, [9, 10, 11], [0, 1, 4])
    agent = OctrixOracleAgent()
    agent.reset(game, 0, seed=3)
    assert {agent.act(make_turn(game, s, 0, seed=i)) for i in range(20)} == {9}
    # the mixed 2-card deal: seat 1 acts after seat 0's hidden commitment and still mixes 1/2-1/2
    game2 = Game("octrix-round", num_players=2, ranks=2, hand_size=2)
    s2 = deal(game2, [0, 2], [3, 4])
    game2.apply_action(s2, 0)
    agent.reset(game2, 1, seed=0)
    picks = [agent.act(make_turn(game2, s2, 1, seed=i)) for i in range(400)]
    assert set(picks) == {3, 4} and abs(np.mean(np.array(picks) == 3) - 0.5) < 0.1


def test_oracle_beats_random_play():
    game = Game("octrix-round", num_players=2, ranks=2, hand_size=3)
    oracle, rand = OctrixOracleAgent(), RandomAgent()
    total = 0.0
    for g in range(60):
        s = game.new_state(g)
        seats = (oracle, rand) if g % 2 == 0 else (rand, oracle)
        for p, a in enumerate(seats):
            a.reset(game, p, seed=g)
        game.play_chance(s)
        while not game.is_terminal(s):
            p = game.acting_player(s)
            game.apply_action(s, seats[p].act(make_turn(game, s, p, seed=g)))
        total += game.returns(s)[0 if g % 2 == 0 else 1]
    assert total / 60 > 0.5


def test_solver_rejects_other_player_counts():
    game = Game("octrix-round", num_players=3, ranks=2, hand_size=2)
    s = game.new_state(0)
    game.play_chance(s)
    with pytest.raises(ValueError, match="2-player"):
        node_of(s)
