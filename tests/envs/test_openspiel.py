"""The OpenSpiel face (``envs/openspiel.py``): pyspiel's own checks, CFR, parameters, tensors.

A new game joins by adding ``(name, params)`` pairs to ``OPENSPIEL_CONFIGS``.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest

import octagames.envs.openspiel as eo  # registers the games
from octagames.core import (SIMULTANEOUS, Game, IllegalActionError, available_games,
                            load_module)

# (name, OpenSpiel game parameters). A new game only adds itself here.
OPENSPIEL_CONFIGS = [
    ("octrix", dict(num_players=2)),
    ("octrix", dict(num_players=3)),
    ("octrix", dict(num_players=4)),
    ("octrix", dict(num_players=4, partnership=True)),
    ("octrix", dict(num_players=2, match=True, target=12)),
    ("octrix", dict(num_players=3, ranks=2, hand_size=2, dealer=1)),
    ("achten", dict(num_players=2)),
    ("achten", dict(num_players=3)),
    ("achten", dict(num_players=6)),
    ("octiles", dict(num_players=2)),
    ("octiles", dict(num_players=3)),
    ("octiles", dict(num_players=4, team=True)),
    ("octa", dict(rules="en")),
    ("octa", dict(rules="nl")),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in c.items())}" for n, c in OPENSPIEL_CONFIGS]

# The small Octrix CFR runs on: 4 cards (one ace per suit), 2 each, one round.
SMALL = dict(num_players=2, ranks=1, hand_size=2)


# Every game in the library: all of them must register and play.
ADAPTED_GAMES = available_games()


def _random_action(state, rng: random.Random):
    """One random step: chance outcome, joint action or action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(outcomes, probs)[0])
    elif state.is_simultaneous_node():
        n = state.num_players()
        state.apply_actions([rng.choice(la) if (la := state.legal_actions(p)) else 0 for p in range(n)])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def _play_to(state, rng: random.Random, kind: str):
    """Play randomly to the first simultaneous (``"sim"``) or non-chance (``"decision"``) node."""
    while not state.is_terminal():
        if kind == "sim" and state.is_simultaneous_node():
            break
        if kind == "decision" and not state.is_chance_node():
            break
        _random_action(state, rng)
    return state


# --------------------------------------------------------------------------
# pyspiel's own API checks
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name,params", OPENSPIEL_CONFIGS, ids=IDS)
def test_random_sim_test(name, params):
    game = eo.load(name, **params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        turn_based = pyspiel.convert_to_turn_based(game)
        pyspiel.random_sim_test(turn_based, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ADAPTED_GAMES)
def test_every_available_game_is_registered_and_plays(name):
    assert eo.short_name(name) in pyspiel.registered_names()
    game = pyspiel.load_game(eo.short_name(name))
    info = load_module(name).INFO
    assert game.num_distinct_actions() == info.num_actions
    assert game.information_state_tensor_size() == info.observation_size
    simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert simultaneous == (info.dynamics == "simultaneous")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    if simultaneous:
        pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=2,
                                serialize=True, verbose=False)


def test_game_type_and_info():
    game = eo.load("octrix")
    gt = game.get_type()
    assert gt.short_name == "octagames_octrix"
    assert gt.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gt.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert gt.provides_information_state_string and gt.provides_information_state_tensor
    assert gt.provides_observation_string and gt.provides_observation_tensor
    info = load_module("octrix").INFO
    assert game.num_distinct_actions() == info.num_actions
    assert game.max_chance_outcomes() == info.max_chance_outcomes
    engine = Game("octrix")
    assert (game.min_utility(), game.max_utility()) == (engine.min_utility, engine.max_utility)
    assert game.max_game_length() == engine.max_game_length
    assert game.utility_sum() == 0.0
    assert game.observation_tensor_shape() == [info.observation_size]


@pytest.mark.filterwarnings("ignore:octagames_:RuntimeWarning")
def test_register_all_is_idempotent():
    first = eo.register_all(strict=False)  # games still being written only warn
    assert eo.register_all(strict=False) == first
    assert "octagames_octrix" in first
    assert set(first) <= set(pyspiel.registered_names())
    eo.register("octrix")  # again: no error
    assert pyspiel.load_game("octagames_octrix").num_players() == 2


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------
def test_parameters_round_trip():
    game = eo.load("octrix", num_players=3)
    assert game.num_players() == 3
    params = game.get_parameters()
    assert params["num_players"] == 3 and params["partnership"] is False
    again = pyspiel.load_game(str(game))
    assert again.num_players() == 3 and again.get_parameters() == params
    by_string = pyspiel.load_game("octagames_octrix(num_players=4,partnership=True)")
    assert by_string.num_players() == 4 and by_string.get_parameters()["partnership"] is True
    assert pickle.loads(pickle.dumps(by_string)).get_parameters() == by_string.get_parameters()


def test_parameters_are_the_config_fields():
    spec = eo.parameter_specification("octrix")
    config = load_module("octrix").Config()
    assert {"num_players", "partnership", "match", "ranks", "hand_size", "target"} <= set(spec)
    for field, default in spec.items():
        assert getattr(config, field) == default
        assert type(getattr(config, field)) is type(default)
    assert eo.game_type("octrix").parameter_specification.keys() == spec.keys()
    game = eo.load("octrix", ranks=2, hand_size=3)
    assert game.get_parameters()["ranks"] == 2
    wrapped = game.new_initial_state().octagame
    assert (wrapped.config.ranks, wrapped.config.hand_size) == (2, 3)


@pytest.mark.parametrize("params,field", [
    (dict(num_players=7), "num_players"),
    (dict(num_players=2, partnership=True), "partnership"),
    (dict(ranks=0), "ranks"),
    (dict(partnership="yes"), "partnership"),
    (dict(ranks=1), "hand_size"),
    (dict(colour=1), "colour"),
])
def test_bad_parameters_raise_value_error_naming_the_field(params, field):
    with pytest.raises(ValueError, match=field):
        eo.load("octrix", **params)


def test_bad_parameter_value_through_pyspiel_load_game():
    with pytest.raises(ValueError, match="num_players"):
        pyspiel.load_game("octagames_octrix(num_players=7)")
    with pytest.raises(ValueError, match="no_such_game"):
        eo.load("no_such_game")


# --------------------------------------------------------------------------
# States: simultaneous nodes, observations, copies
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params", [dict(num_players=2), dict(num_players=4, partnership=True)],
                         ids=["2p", "partnership"])
def test_tensors_and_strings_are_the_engine_observation(params):
    game = eo.load("octrix", **params)
    rng = random.Random(1)
    state = game.new_initial_state()
    engine: Game = state.octagame
    while True:
        record = state.record
        for p in range(game.num_players()):
            obs = engine.observation(record, p)
            np.testing.assert_array_equal(np.asarray(state.information_state_tensor(p)), obs)
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), obs)
            key = state.information_state_string(p)
            assert key == eo.encode_observation(f"octrix p{p} ", obs)
            assert state.observation_string(p) == key
        if state.is_terminal():
            break
        _random_action(state, rng)
    np.testing.assert_allclose(state.returns(), engine.returns(state.record))


def test_simultaneous_nodes_ask_only_pending_seats():
    game = eo.load("octrix", num_players=4, partnership=True, dealer=1)
    state = _play_to(game.new_initial_state(), random.Random(2), "sim")
    engine = state.octagame
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS == SIMULTANEOUS
    acting = [p for p in range(4) if state.legal_actions(p)]
    assert acting == [p for p in range(4) if engine.legal_mask(state.record, p).any()]
    assert acting == [1, 2]  # the dealer and their left neighbour play first
    # the placeholders of the idle seats are ignored
    state.apply_actions([12345, state.legal_actions(1)[0], state.legal_actions(2)[0], -7])
    assert [p for p in range(4) if state.legal_actions(p)] == [0, 3]
    # the turn-based transform visits exactly the pending seats, in seat order
    tb_state = pyspiel.convert_to_turn_based(game).new_initial_state()
    tb_state = _play_to(tb_state, random.Random(2), "decision")  # deal, then stop at a seat
    order = []
    while len(order) < 4:
        order.append(tb_state.current_player())
        tb_state.apply_action(tb_state.legal_actions()[0])
    assert order == [1, 2, 0, 3]


def test_illegal_joint_action_raises_and_changes_nothing():
    game = eo.load("octrix", num_players=3)
    state = _play_to(game.new_initial_state(), random.Random(3), "sim")
    before = state.record.tobytes()
    legal = [state.legal_actions(p) for p in range(3)]
    foreign = legal[1][0]  # a card of player 1, not playable by player 2
    with pytest.raises(IllegalActionError, match="player 2"):
        state.apply_actions([legal[0][0], legal[1][0], foreign])
    assert state.record.tobytes() == before
    with pytest.raises(ValueError, match="3 entries"):
        state.apply_actions([legal[0][0], legal[1][0]])


def test_flat_joint_actions_follow_openspiel_encoding():
    game = eo.load("octrix", num_players=2)
    state = _play_to(game.new_initial_state(), random.Random(4), "sim")
    l0, l1 = state.legal_actions(0), state.legal_actions(1)
    flat = state.legal_actions()
    assert flat == list(range(len(l0) * len(l1)))
    k = 3 + 2 * len(l0)  # player 0 takes digit 3, player 1 digit 2
    assert state.action_to_string(pyspiel.PlayerId.SIMULTANEOUS, k) == \
        f"[{state.action_to_string(0, l0[3])}, {state.action_to_string(1, l1[2])}]"
    by_flat, by_joint = state.clone(), state.clone()
    by_flat.apply_action(k)
    by_joint.apply_actions([l0[3], l1[2]])
    assert by_flat.record.tobytes() == by_joint.record.tobytes()


def test_clone_and_serialization_copy_the_record():
    game = eo.load("octrix", num_players=4, partnership=True)
    rng = random.Random(5)
    state = game.new_initial_state()
    for _ in range(40):
        _random_action(state, rng)
    copy = state.clone()
    restored = game.deserialize_state(state.serialize())
    _, via_game_string = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    pickled = pickle.loads(pickle.dumps(state))
    for other in (copy, restored, via_game_string, pickled):
        assert other.record.tobytes() == state.record.tobytes()
        assert other.history() == state.history() and str(other) == str(state)
    _random_action(copy, rng)
    assert copy.record.tobytes() != state.record.tobytes()
    assert restored.record.tobytes() == state.record.tobytes()


# --------------------------------------------------------------------------
# Information states on a whole small tree; CFR
# --------------------------------------------------------------------------
def _walk(state, own, seen, tensors):
    """Check perfect recall and string <-> tensor agreement on the whole tree."""
    if state.is_terminal():
        return
    if state.is_chance_node():
        for a, _ in state.chance_outcomes():
            _walk(state.child(a), own, seen, tensors)
        return
    p = state.current_player()
    key = state.information_state_string(p)
    tensor = tuple(state.information_state_tensor(p))
    assert tensors.setdefault(key, tensor) == tensor, "one key, two tensors"
    assert seen.setdefault(key, own[p]) == own[p], "imperfect recall: one key, two own histories"
    for a in state.legal_actions():
        mine = list(own)
        mine[p] = own[p] + ((key, a),)
        _walk(state.child(a), mine, seen, tensors)


def test_information_states_have_perfect_recall_on_small_tree():
    game = pyspiel.convert_to_turn_based(eo.load("octrix", **SMALL))
    seen: dict = {}
    tensors: dict = {}
    _walk(game.new_initial_state(), [()] * game.num_players(), seen, tensors)
    assert len(seen) > 50
    assert len(set(tensors.values())) == len(tensors), "two keys, one tensor"


def test_cfr_reduces_nash_conv():
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.convert_to_turn_based(eo.load("octrix", **SMALL))
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    solver = pyspiel.CFRSolver(game)  # C++ CFR: ~2x faster than the Python one here
    for _ in range(10):
        solver.evaluate_and_update_policy()
    average = policy_lib.pyspiel_policy_to_python_policy(game, solver.tabular_average_policy())
    after = exploitability.nash_conv(game, average)
    assert uniform > 1.0
    assert after < 0.2 * uniform, (uniform, after)
    assert after == pytest.approx(pyspiel.nash_conv(game, solver.average_policy()), abs=1e-9)


# --------------------------------------------------------------------------
# Deal pools: a root chance node over given records
# --------------------------------------------------------------------------
POOL = dict(num_players=2, ranks=3, low_rank=7, turn_cap=1, deal_penalty=1.0)


def _dealt(seeds):
    """Records of the small Achten config after a random deal (first decision), and the deals."""
    g = Game("achten", **POOL)
    records, deals = [], []
    for seed in seeds:
        rng = random.Random(seed)
        s, deal = g.new_state(0), []
        while g.is_chance(s):
            deal.append(rng.choice([a for a, _ in g.chance_outcomes(s)]))
            g.apply_action(s, deal[-1])
        records.append(s)
        deals.append(deal)
    return g, records, deals


def test_pool_game_deals_one_of_the_records_uniformly():
    g, records, deals = _dealt([1, 2, 3])
    game = eo.load_pool("achten", records, **POOL)
    assert game.get_type().short_name == "octagames_achten_pool"
    assert game.max_chance_outcomes() == 52 and game.num_players() == 2
    root = game.new_initial_state()
    assert root.is_chance_node() and not root.is_terminal()
    assert root.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    assert root.legal_actions() == [0, 1, 2] and root.returns() == [0.0, 0.0]
    assert "pool" in str(root) and root.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "pool record 1"
    plain = eo.load("achten", **POOL)
    for i, rec in enumerate(records):
        child = root.child(i)
        assert root.is_chance_node()  # the root is unchanged
        assert child.record.tobytes() == rec.tobytes() and child.history() == [i]
        assert child.current_player() == g.current_player(rec)
        assert child.legal_actions() == g.legal_actions(rec)
        p = child.current_player()
        assert child.information_state_tensor(p) == pytest.approx(g.observation(rec, p).tolist())
        # the same record and strings as the registered adapter after the same deal
        other = plain.new_initial_state()
        for a in deals[i]:
            other.apply_action(a)
        assert other.record.tobytes() == rec.tobytes()
        assert child.information_state_string(p) == other.information_state_string(p)
    with pytest.raises(IllegalActionError, match="pool outcome 3"):
        game.new_initial_state().apply_action(3)
    # clones are independent and keep the pool
    a = root.child(0)
    b = a.clone()
    b.apply_action(b.legal_actions()[0])
    assert a.record.tobytes() == records[0].tobytes() and b.history()[0] == 0
    assert root.clone().chance_outcomes() == root.chance_outcomes()
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_pool_game_refuses_bad_records_and_config():
    _, records, _ = _dealt([0])
    with pytest.raises(ValueError, match="records is empty"):
        eo.load_pool("achten", [], **POOL)
    with pytest.raises(ValueError, match="records must be achten records"):
        eo.load_pool("achten", [Game("octrix").new_state(0)], **POOL)
    with pytest.raises(ValueError, match="turn_cap"):
        eo.load_pool("achten", records, **{**POOL, "turn_cap": 0})
