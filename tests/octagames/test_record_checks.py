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

import numpy as np
import pytest

import octagames.envs.openspiel as eo
from octagames.core import CHANCE, GAME_NAMES, TERMINAL, Game
from octagames.envs.vector import VectorEnv
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
