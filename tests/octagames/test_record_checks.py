"""The record check vouches for what the kernels and the faces rely on: saved games are untrusted input.

``Game.check_record`` (which ``Game.from_bytes``, ``VectorEnv.set_state`` and the OpenSpiel face's
loading go through) runs the game's own ``check_record`` (fields in range and consistent, scores and
returns as the rules give them) and then, on the kernels, what only they can tell: a legal action
for the seat to move, every seat's observation inside the declared bounds, returns inside the
utility bounds and zero-sum. The records here are edited and *resealed* (a checksum that fits: it is
a plain digest, so anyone can recompute it), as in the audit that found them; the fuzz of every
config is ``tests/test_conformance.py::test_check_record_guards_the_kernels``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import octagames.envs.openspiel as eo
from octagames.core import CHANCE, GAME_NAMES, TERMINAL, Game
from octagames.envs.vector import VectorEnv
from octagames.achten import rules as AR
from octagames.octiles import board as OB, rules as OR
from octagames.octiles.rules import PH_MOVE
from octagames.testing import fuzz_records, misbehaves, random_playout, reseal, vector_playout


def resealed(game: Game, s: np.void) -> bytes:
    """``s`` saved with a checksum that fits, whatever it holds."""
    return reseal(game, s.tobytes())


def in_vector_env(name: str, s: np.void, **config) -> VectorEnv:
    """A vector env of two games whose first is loaded from ``s`` (``set_state``)."""
    env = VectorEnv(name, 2, seed=0, num_threads=1, **config)
    env.reset()
    state = env.get_state()
    state["states"][0] = s
    env.set_state(state)
    return env


# ------------------------------------------------------------------ audit finding: no legal action to move
def test_a_seat_to_move_without_a_legal_action_is_refused_by_every_loader():
    # Octiles: the exchange tile is placed, then the record is edited to hand the move to the other seat,
    # none of whose runners has a path over that tile. Before, from_bytes and set_state accepted it: the
    # vector env's sample_actions gave -1 and every later step of the whole batch raised
    g = Game("octiles", num_players=2)
    s = g.new_state(0)
    g.play_chance(s)
    g.apply_action(s, g.legal_actions(s)[0])
    assert int(s["phase"]) == PH_MOVE and int(s["cur"]) == 0
    s["cur"] = 1
    assert g.kernels.legal_mask(s, 1, np.zeros(g.num_actions, dtype=np.uint8)) == 0
    with pytest.raises(ValueError, match=r"not a valid octiles record: player 1, to move, has no legal action"):
        g.from_bytes(resealed(g, s))
    with pytest.raises(ValueError, match=r"state\['states'\]\[0\]: .*player 1, to move, has no legal action"):
        in_vector_env("octiles", s, num_players=2)
    s["cur"] = 0  # the record as play left it
    env = in_vector_env("octiles", s, num_players=2)
    assert np.all(env.sample_actions() >= 0)


def test_the_vector_env_loads_only_games_waiting_for_a_seat():
    # get_state never holds a game at a chance node or over (step settles chance and restarts finished
    # games); such a record would leave its seat without a mask, so set_state refuses it in words
    g = Game("octrix", num_players=2)
    fresh = g.new_state(3)
    assert g.current_player(fresh) == CHANCE
    with pytest.raises(ValueError, match=r"state\['states'\]\[0\]: the game is at a chance node"):
        in_vector_env("octrix", fresh, num_players=2)
    over = random_playout(g, 3, check=False)
    assert g.current_player(over) == TERMINAL
    with pytest.raises(ValueError, match=r"state\['states'\]\[0\]: the game is over"):
        in_vector_env("octrix", over, num_players=2)


# ------------------------------------------------------------------ audit finding: scores outside the space
def _mid_game(game: Game, seed: int, rounds: int = 0) -> np.void:
    """A record of a game in progress: after ``rounds`` finished rounds, at the first decision of the next."""
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    while int(s["round"]) < rounds or game.is_chance(s):
        assert not game.is_terminal(s)
        game.apply_action(s, game.sample_chance(s) if game.is_chance(s) else int(rng.choice(game.legal_actions(s))))
    return s


@pytest.mark.parametrize("name,config,seat,value,observed,why", [
    # one round keeps no match score: the audit's 11.6 against a bound of 1.0 (1024 / target 88)
    ("octrix-round", dict(num_players=2), 0, 1024, "player 0's observation has scores[0] = 11.6364, outside its declared bounds 0..1",
     r"round = 0, scores = \[1024, 0\]: one round \(match=False\) keeps no match score"),
    ("achten", dict(num_players=3), 1, 50, "player 0's observation has scores[1] = 5, outside its declared bounds 0..1.1",
     r"round = 0, scores = \[0, 50, 0\]: one round \(match=False\) keeps no match score"),
])
def test_scores_a_single_round_cannot_have_are_refused(name, config, seat, value, observed, why):
    g = Game(name, **config)
    s = _mid_game(g, 1)
    g.check_record(s)
    s["scores"][seat] = value
    assert g.module.check_record(s) != ""
    # the shared check on the kernels would catch it too, naming the observation entry
    assert g._check_engine(s) == observed
    with pytest.raises(ValueError, match=why):
        g.from_bytes(resealed(g, s))


def test_match_scores_beyond_what_the_rounds_played_give_are_refused():
    # inside the observation bounds (64 rounds' worth), yet more than the rounds played can give
    g = Game("octrix", num_players=2, match=True, target=30)
    s = _mid_game(g, 2, rounds=1)
    g.check_record(s)
    assert int(s["round"]) == 1 and sum(int(v) for v in s["scores"]) <= 64
    s["scores"][1] = 65
    assert g._check_engine(s) == ""
    with pytest.raises(ValueError, match=r"scores = \[\d+, 65\]: 1 rounds give at most 64 points together"):
        g.from_bytes(resealed(g, s))
    a = Game("achten", num_players=3, match=True, target=5.0, max_rounds=12)
    t = _mid_game(a, 2, rounds=1)
    a.check_record(t)
    t["scores"][0] = 12  # tenths: a round gives a seat at most nul and verbied, 1.1 points
    with pytest.raises(ValueError, match=r"1 rounds cannot give that many points"):
        a.from_bytes(resealed(a, t))
    t["round"], t["scores"][:3] = 5, [50, 0, 0]  # the target reached alone: the match would be over
    with pytest.raises(ValueError, match=r"a player has won the match \(target 5\), yet it goes on"):
        a.check_record(t)


# ------------------------------------------------------------------ audit finding: returns of a finished game
def _finished_with_a_winner(game: Game) -> np.void:
    for seed in range(20):
        s = random_playout(game, seed, check=False)
        if np.any(game.returns(s) != 0):
            return s
    raise AssertionError("no decided game in 20 seeds")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_edited_returns_of_a_finished_game_are_refused(name):
    g = Game(name, runners=2) if name == "octiles" else Game(name)  # random Octiles games end with 2 runners
    s = _finished_with_a_winner(g)
    g.check_record(s)
    n = g.num_players
    uneven = s.copy()
    uneven["returns"][0] += 0.5  # the audit's edit: returns that do not sum to zero
    with pytest.raises(ValueError, match=f"not a valid {name} record"):
        g.from_bytes(resealed(g, uneven))
    swapped = s.copy()  # zero-sum and inside the bounds, but not what the end of the game gives
    swapped["returns"][:n] = s["returns"][:n][::-1]
    assert abs(float(swapped["returns"].sum())) < 1e-12
    with pytest.raises(ValueError, match=f"not a valid {name} record"):
        g.from_bytes(resealed(g, swapped))
    early = _mid_game(g, 0) if name in ("octrix", "achten") else g.new_state(0)
    g.play_chance(early)
    early["returns"][:2] = [1.0, -1.0]  # nobody has won yet
    with pytest.raises(ValueError, match=f"not a valid {name} record"):
        g.from_bytes(resealed(g, early))


def test_the_engine_check_refuses_returns_outside_the_bounds_or_not_zero_sum():
    # the shared check, for a game whose own check would let returns through
    g = Game("octrix", num_players=3)
    s = random_playout(g, 1, check=False)
    assert g._check_engine(s) == ""
    big = s.copy()
    big["returns"][:3] = [g.max_utility + 1, -(g.max_utility + 1) / 2, -(g.max_utility + 1) / 2]
    assert g._check_engine(big) == f"returns[0] = {g.max_utility + 1:g} is outside {g.min_utility:g}..{g.max_utility:g}"
    uneven = s.copy()
    uneven["returns"][:3] = [1.0, 0.0, 0.0]
    assert g._check_engine(uneven) == "returns [1.0, 0.0, 0.0] do not sum to zero"


# ------------------------------------------------------------------ property: accepted records work in every face
FACE_CONFIGS = [("octrix", dict(num_players=4, partnership=True)), ("octiles", dict(num_players=3)),
                ("achten", dict(num_players=3, match=True, target=0.2, max_rounds=12)),
                ("octa", dict(rules="nl", max_turns=20))]


def _openspiel_playout(pool, k: int, rng: np.random.Generator) -> None:
    """Play pool outcome ``k`` to its end through pyspiel's state API with random legal actions."""
    state = pool.new_initial_state()
    state.apply_action(k)
    for _ in range(pool.max_game_length() + 1):
        if state.is_terminal():
            assert abs(sum(state.returns())) < 1e-9
            return
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=np.array(probs) / sum(probs))))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) if state.legal_actions(p) else 0
                                 for p in range(pool.num_players())])
        else:
            state.observation_tensor(state.current_player())
            state.apply_action(int(rng.choice(state.legal_actions())))
    raise AssertionError("the OpenSpiel game did not end within max_game_length")


@pytest.mark.parametrize("name,config", FACE_CONFIGS, ids=[n for n, _ in FACE_CONFIGS])
def test_every_accepted_record_is_observed_stepped_and_played_to_the_end_by_every_face(name, config):
    # damaged records, resealed, that Game.from_bytes accepts: Game observes and steps each (and plays the
    # first 8 to their end, observations inside the bounds on the way), the vector env loads them all and
    # plays them out, and OpenSpiel plays a sample of them from a deal pool
    g = Game(name, **config)
    rng = np.random.default_rng(5)
    records = []
    for seed in range(2):
        s = g.new_state(seed)
        while not g.is_terminal(s):
            records.append(g.clone(s))
            g.apply_action(s, g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s))))
        records.append(g.clone(s))
    records = records[:: max(1, len(records) // 120)]
    accepted: list[np.void] = []
    problems: list[str] = []
    out = fuzz_records(g, records, 7, flips=150, randoms=5, fields=150, plays=8, accepted=accepted,
                       log=lambda line: problems.append(line) if line.startswith("misbehaves") else None)
    assert out["tried"] == 460 and out["accepted"] == len(accepted) > 0
    assert out["misbehaving"] == 0, problems[:5]
    env = VectorEnv(name, len(accepted), seed=1, num_threads=1, **config)
    env.reset()
    assert [why for why in vector_playout(env, accepted) if why] == []
    playing = [r for r in accepted if not g.is_terminal(r)][:6]
    pool = eo.load_pool(name, playing, **config)
    for k in range(len(playing)):
        _openspiel_playout(pool, k, rng)
        assert misbehaves(g, playing[k], rng) == ""


# ------------------------------------------------------------------ review finding: Octiles' seat to choose at setup
def _first_legal(game: Game, s: np.void) -> int:
    """The lowest legal action of the acting seat, by the compiled kernels alone (no check of the record)."""
    mask = np.zeros(game.num_actions, dtype=np.uint8)
    game.kernels.legal_mask(s, int(game.kernels.acting_player(s)), mask)
    return int(np.flatnonzero(mask)[0])


def test_the_octiles_setup_is_chosen_by_the_seats_in_turn():
    g = Game("octiles", num_players=3, runners=4)  # each seat chooses 2 of its 3 middle start circles
    s = g.new_state(0)
    g.apply_action(s, g.legal_actions(s)[0])
    assert int(s["phase"]) == OR.PH_SETUP and int(s["cur"]) == 0
    g.check_record(s)
    skipped = s.copy()
    skipped["cur"] = 1  # seat 0 still has a runner to place
    why = ("cur = 1 in the setup, but the seats have placed [3, 2, 2] of their 4 runners: seats choose their "
           "start circles in turn, from seat 0")
    assert OR.check_record(skipped) == why
    with pytest.raises(ValueError, match=re.escape(why)):
        g.from_bytes(resealed(g, skipped))
    # what the kernels made of it: the setup ended with a runner of seat 0 never placed
    played = skipped.copy()
    while int(played["phase"]) == OR.PH_SETUP:
        assert g.kernels.apply_action(played, _first_legal(g, played))
    assert OR.check_record(played) == "pos[0, 3] = -1: every runner is on the board once the setup is over"
    g.apply_action(s, g.legal_actions(s)[0])  # seat 0 is done: seat 1 chooses
    assert int(s["cur"]) == 1 and OR.check_record(s) == ""
    for cur in (0, 2):
        bad = s.copy()
        bad["cur"] = cur
        assert OR.check_record(bad) == (f"cur = {cur} in the setup, but the seats have placed [4, 2, 2] of their 4 "
                                        f"runners: seats choose their start circles in turn, from seat 0")
    early = s.copy()
    early["pos"][2, 2] = OB.HOME_OF[int(s["seat_side"][2]), 1]  # seat 2 chose before its turn
    assert OR.check_record(early) == ("the seats have placed [4, 2, 3] of their 4 runners in the setup with cur = 1: "
                                      "a seat after it has only its two outer start circles before its turn to choose")
    while int(s["phase"]) == OR.PH_SETUP:
        g.apply_action(s, g.legal_actions(s)[0])
    assert int(s["phase"]) == OR.PH_DEAL and int(s["cur"]) == -1 and OR.check_record(s) == ""
    s["cur"] = 0
    assert OR.check_record(s) == "cur = 0 in phase deal: nobody acts between the setup and the lot"


# ------------------------------------------------------------------ review finding: Achten's dealt hands after the deal
def test_the_achten_dealt_hands_stay_the_cards_dealt_after_the_deal():
    g = Game("achten", num_players=2)
    s = g.new_state(3)
    g.play_chance(s)
    assert int(s["phase"]) == AR.PH_FIRST
    g.check_record(s)
    d0, d1 = int(s["dealt_hand"][0, 0]), int(s["dealt_hand"][0, 1])
    swapped = s.copy()  # nothing is swapped before the first choice: the hands are still as dealt
    swapped["dealt_hand"][0, :2] = [d1, d0]
    why = f"dealt_hand[0, 0] = {d1}, but the deal put {d0} in slot 0"
    assert AR.check_record(swapped) == why
    with pytest.raises(ValueError, match=re.escape(why)):
        g.from_bytes(resealed(g, swapped))
    g.apply_action(s, AR.A_SWAP_ALL)  # the chooser (seat 1) swaps its hand with the pot: its dealt cards move on
    assert int(s["phase"]) == AR.PH_TURNS
    g.check_record(s)
    off = next(c for c in range(AR.NUM_CARDS) if int(s["where"][c]) < 0)  # a card of the deck never dealt
    forged = s.copy()
    forged["dealt_hand"][1, 2] = off
    assert int(g.observation(forged, 1)[AR.O_DEALT + off]) == 1  # seat 1 would read it among the cards it was dealt
    why = f"dealt_hand[1, 2] = {off} ({AR.card_name(off)}), but that card is not on the table"
    assert AR.check_record(forged) == why
    with pytest.raises(ValueError, match=re.escape(why)):
        g.from_bytes(resealed(g, forged))


# ------------------------------------------------------------------ review finding: the action counter near 2**31
@pytest.mark.parametrize("name,most", [
    ("octrix", 16),  # the 16 cards dealt (2 seats x 8): every round deals and plays n x hand_size cards
    ("achten", 10),  # the 10 cards dealt (3 a seat, the pot, the closed card), no move yet
    ("octiles", 2),  # the exchange tile and the lot (5 runners: no start circles to choose)
    ("octa", 327),  # the 26 cards dealt, the start player, at most TURN_ACTION_BOUND (300) in the turn begun
])
def test_an_action_count_beyond_what_leads_to_the_position_is_refused(name, most):
    # moves (int32) was allowed up to 2**31 - 1, from where the next action wraps it to -2**31
    g = Game(name)
    s = g.new_state(1)
    g.play_chance(s)  # the first decision
    assert 0 < int(s["moves"]) <= most <= g.max_game_length
    edge = s.copy()
    edge["moves"] = most
    assert g.module.check_record(edge) == ""
    top = 2**31 - 1
    for moves, why in ((most + 1, f"moves = {most + 1}, but at most {most} actions lead to this position"),
                       (top, f"moves = {top}, but at most {most} actions lead to this position" if name != "octa"
                        else f"moves = {top} is outside 0..{g.max_game_length}")):  # Octa's table of ranges first
        bad = s.copy()
        bad["moves"] = moves
        assert g.module.check_record(bad).startswith(why)
        with pytest.raises(ValueError, match=re.escape(why)):
            g.from_bytes(resealed(g, bad))
    wrapped = s.copy()
    wrapped["moves"] = 2**31 - 1
    assert g.kernels.apply_action(wrapped, _first_legal(g, wrapped))
    assert int(wrapped["moves"]) == -2**31
    if name == "octa":
        return  # Octa counts no turn's actions: its bound is the end of the turn begun (see octa/record.py)
    # the bound grows by one each action at least, so a record at it stays valid to the end of the game
    rng = np.random.default_rng(1)
    while not g.is_terminal(edge):
        g.apply_action(edge, g.sample_chance(edge) if g.is_chance(edge) else int(rng.choice(g.legal_actions(edge))))
        assert g.module.check_record(edge) == "", g.render(edge)
    assert int(edge["moves"]) <= g.max_game_length


# ------------------------------------------------------------------ property: the checks refuse nothing play reaches
REACHED_CONFIGS = [  # (game, config, games): setups, caps, matches and the end of every kind of game
    ("octiles", dict(num_players=2, runners=3, max_turns=30), 40),
    ("octiles", dict(num_players=3, runners=4, max_turns=30), 40),
    ("octiles", dict(num_players=4, runners=4, team=True, max_turns=20), 30),
    ("octiles", dict(num_players=3, runners=2, play_on=True, max_turns=40), 30),
    ("octiles", dict(num_players=2, runners=4, choose_start_circles=False, max_turns=5), 20),
    ("achten", dict(num_players=3), 40),
    ("achten", dict(num_players=2, match=True, target=0.3, max_rounds=3, turn_cap=2), 40),
    ("achten", dict(num_players=6, turn_cap=1), 40),  # its games reach max_game_length exactly
    ("octrix", dict(num_players=3, match=False), 40),
    ("octrix", dict(num_players=2, match=True, target=12, max_rounds=3), 40),
    ("octrix", dict(num_players=4, partnership=True, match=False), 20),
    ("octa", dict(rules="nl", max_turns=8), 10),
    ("octa", dict(rules="en", max_turns=8), 10),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,config,games", REACHED_CONFIGS,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in c.items())}" for n, c, _ in REACHED_CONFIGS])
def test_every_record_reached_in_random_play_passes_the_record_check(name, config, games):
    # every position of random games, chance nodes and the end included (and some determinized views):
    # the game's check_record accepts each, so the checks above refuse only records play never makes
    g = Game(name, **config)
    most = 0
    for seed in range(games):
        rng = np.random.default_rng(seed)
        s = g.new_state(seed)
        while True:
            assert g.module.check_record(s) == "", (seed, int(s["moves"]), g.render(s))
            if g.is_terminal(s):
                break
            if not g.is_chance(s) and rng.random() < 0.05:
                view = g.determinize(s, int(rng.integers(g.num_players)), seed)
                assert g.module.check_record(view) == "", (seed, "determinized", g.render(view))
            g.apply_action(s, g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s))))
        g.check_record(s)  # the whole check, the kernels' part included, at the end of every game
        most = max(most, int(s["moves"]))
    assert 0 < most <= g.max_game_length
