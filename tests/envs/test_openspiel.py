"""The OpenSpiel face (``envs/openspiel.py``): pyspiel's own checks, CFR, parameters, tensors.

A new game joins by adding ``(name, params)`` pairs to ``OPENSPIEL_CONFIGS``.
"""

from __future__ import annotations

import base64
import copy
import pickle
import random
import re

import numpy as np
import pyspiel
import pytest

import octagames.envs.openspiel as eo  # registers the games
from octagames import catalogue
from octagames.core import (SIMULTANEOUS, Game, IllegalActionError, available_games,
                            load_module)
from octagames.testing import CONFORMANCE_CONFIGS, config_id

# (variant or game name, OpenSpiel game parameters over it). A new game only adds itself here.
# Octrix's bare name is the seed's match (here to 12); its single round is the variant octrix-round.
OPENSPIEL_CONFIGS = [
    ("octrix-round", dict(num_players=2)),
    ("octrix-round", dict(num_players=3)),
    ("octrix-round", dict(num_players=4)),
    ("octrix-round", dict(num_players=4, partnership=True)),
    ("octrix", dict(num_players=2, target=12)),
    ("octrix-round", dict(num_players=3, ranks=2, hand_size=2, dealer=1)),
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

# The small Octrix CFR runs on: 4 cards (one ace per suit), 2 each, one round (variant octrix-round).
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
def _in_conformance(name: str, params: dict) -> bool:
    """Whether the conformance suite lists this config (it runs pyspiel's random_sim_test on each)."""
    game, config = catalogue.resolve(name, **params)
    return any(game == n and config == c for n, c in CONFORMANCE_CONFIGS)


# pyspiel's simulation test of a config the conformance list has runs there (tests/test_conformance.py);
# here: the configs it does not list, and the turn-based transform of every simultaneous one
SIM_CASES = [(case, i) for case, i in zip(OPENSPIEL_CONFIGS, IDS) if not _in_conformance(*case)
             or load_module(catalogue.resolve(case[0])[0]).INFO.dynamics == "simultaneous"]
SIM_CONFIGS, SIM_IDS = [case for case, _ in SIM_CASES], [i for _, i in SIM_CASES]


@pytest.mark.parametrize("name,params", SIM_CONFIGS, ids=SIM_IDS)
def test_random_sim_test(name, params):
    game = eo.load(name, **params)
    if not _in_conformance(name, params):
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        turn_based = pyspiel.convert_to_turn_based(game)
        pyspiel.random_sim_test(turn_based, num_sims=3, serialize=True, verbose=False)


def test_a_config_is_simulated_here_unless_the_conformance_suite_lists_it():
    # a variant's name and its fields resolve to the same config as the conformance list's entry
    assert _in_conformance("octa", {"rules": "nl"}) and _in_conformance("octrix-round", {"num_players": 3})
    assert not _in_conformance("octiles", {"num_players": 4, "team": True})  # the list's teams have 3 runners
    assert ("achten", {"num_players": 2}) in OPENSPIEL_CONFIGS
    assert ("achten", {"num_players": 2}) not in SIM_CONFIGS  # listed there, and turn by turn
    assert ("octrix-round", {"num_players": 2}) in SIM_CONFIGS  # listed there; simultaneous: turn-based here


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
    unpickled = pickle.loads(pickle.dumps(by_string))
    assert unpickled.get_parameters() == by_string.get_parameters()
    assert str(unpickled.new_initial_state()) == str(by_string.new_initial_state())  # its engine came too


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


def test_numpy_numbers_and_none_are_parameters_as_in_the_other_faces():
    """load and game_class took the config check's numpy integers and then failed inside pybind ("'numpy.int64'
    object is not iterable"), and None (the variant's value, as the other faces read it) with SpielError."""
    game = eo.load("octrix", num_players=np.int64(3), target=np.int64(30), ranks=None)
    assert game.num_players() == 3 and game.get_parameters()["target"] == 30 and game.get_parameters()["ranks"] == 8
    assert type(game.get_parameters()["target"]) is int
    built = eo.game_class("octrix")({"num_players": np.int64(4), "partnership": np.bool_(True)})
    assert built.num_players() == 4 and built.get_parameters()["partnership"] is True
    with pytest.raises(ValueError, match="num_players"):
        eo.load("octrix", num_players=np.int64(7))


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


def test_the_observer_gives_one_seats_view_and_refuses_the_types_it_does_not_provide():
    # the requested IIGObservationType was ignored: a public-only or all-players request got the seat's
    # private information state (its own hand) without a word
    from open_spiel.python.observation import make_observation
    game = eo.load("achten", num_players=2)
    state = _play_to(game.new_initial_state(), random.Random(0), "decision")
    engine = state.octagame
    single = pyspiel.PrivateInfoType.SINGLE_PLAYER
    for obs_type in (None, pyspiel.IIGObservationType(perfect_recall=True),
                     pyspiel.IIGObservationType(perfect_recall=False),
                     pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=single)):
        observer = make_observation(game, obs_type)
        observer.set_from(state, 1)
        np.testing.assert_array_equal(observer.tensor, engine.observation(state.record, 1))
    supported = ("supported: None or IIGObservationType(perfect_recall=True or False, public_info=True, "
                 "private_info=PrivateInfoType.SINGLE_PLAYER)")
    for recall, public, private in ((False, True, "NONE"), (True, True, "NONE"), (False, True, "ALL_PLAYERS"),
                                    (True, False, "SINGLE_PLAYER"), (False, False, "NONE")):
        obs_type = pyspiel.IIGObservationType(perfect_recall=recall, public_info=public,
                                              private_info=getattr(pyspiel.PrivateInfoType, private))
        words = (f"iig_obs_type=IIGObservationType(perfect_recall={recall}, public_info={public}, "
                 f"private_info=PrivateInfoType.{private}) is not supported by octagames_achten's observer; ")
        with pytest.raises(ValueError, match=re.escape(words + supported)):
            make_observation(game, obs_type)
        with pytest.raises(ValueError, match=re.escape(words)):
            game.make_py_observer(obs_type, {})
    # pyspiel's own information state and observation (perfect_recall True and False) are served as before
    assert state.information_state_tensor(0) == state.observation_tensor(0)


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


def test_a_flat_joint_action_out_of_range_is_refused_not_wrapped_round():
    game = eo.load("octrix", num_players=2)
    state = _play_to(game.new_initial_state(), random.Random(4), "sim")
    size = len(state.legal_actions())
    before, history = state.record.tobytes(), state.history()
    for bad in (size, size + 3, 7 * size, -2):  # size + 3 used to play the joint action 3
        with pytest.raises(IllegalActionError, match=rf"joint action {bad} is not legal here: "
                                                     rf"the flat joint actions are 0\.\.{size - 1}"):
            state.apply_action(bad)
        assert state.record.tobytes() == before and state.history() == history
    state.apply_action(size - 1)  # the last one is legal
    assert state.history() == history + [size - 1]


def test_a_state_after_placeholders_of_idle_seats_saves_and_loads():
    # pyspiel.INVALID_ACTION (-1) as an idle seat's placeholder was accepted, then pyspiel's history held
    # 2:-1 and every save, pickle and deepcopy of the state was refused ("history entry '2:-1'")
    game = eo.load("octrix-round", num_players=4, partnership=True)
    state = _play_to(game.new_initial_state(), random.Random(0), "sim")
    idle = [p for p in range(4) if not state.legal_actions(p)]
    assert len(idle) == 2
    placeholders = iter([pyspiel.INVALID_ACTION, -2**31])
    joint = [state.legal_actions(p)[0] if p not in idle else next(placeholders) for p in range(4)]
    state.apply_actions(joint)
    assert state.history()[-4:] == joint  # pyspiel keeps the placeholders as given
    for _ in range(2):  # a second step, with other placeholders (0 and the largest)
        placeholders = iter([0, 2**31 - 1])
        state.apply_actions([state.legal_actions(p)[0] if state.legal_actions(p) else next(placeholders)
                             for p in range(4)])
    assert f"{idle[0]}:-1," in state.serialize()
    _, via_face = eo.deserialize_game_and_state(eo.serialize_game_and_state(game, state))
    _, via_pyspiel = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    for other in (via_face, via_pyspiel, game.deserialize_state(state.serialize()),
                  pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        _assert_same(other, state)
        _random_action(other, random.Random(1))  # and plays on
    # a placeholder no save could hold (pyspiel's loader reads 32-bit actions) is refused; nothing changes
    before, history = state.record.tobytes(), state.history()
    for bad in (2**31, -2**31 - 1):
        joint = [state.legal_actions(p)[0] if state.legal_actions(p) else bad for p in range(4)]
        with pytest.raises(ValueError, match=rf"the placeholder {bad} of player \d, who has no legal action, "
                                             rf"is out of range: valid placeholders are -2147483648\.\.2147483647"):
            state.apply_actions(joint)
        assert state.record.tobytes() == before and state.history() == history
    # only a seat's entry may be negative: chance's and a flat joint action's never are
    text = state.serialize()
    for bad in ("-1:-1", "-2:-1", f"{idle[0]}:{2**31}"):
        with pytest.raises(ValueError, match=f"history entry '{bad}' is not player:action"):
            game.deserialize_state(text.replace("history=", f"history={bad},", 1))


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
    game = pyspiel.convert_to_turn_based(eo.load("octrix-round", **SMALL))
    seen: dict = {}
    tensors: dict = {}
    _walk(game.new_initial_state(), [()] * game.num_players(), seen, tensors)
    assert len(seen) > 50
    assert len(set(tensors.values())) == len(tensors), "two keys, one tensor"


def test_cfr_reduces_nash_conv():
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.convert_to_turn_based(eo.load("octrix-round", **SMALL))
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


# --------------------------------------------------------------------------
# Saves are data, never code
# --------------------------------------------------------------------------
def _played(game, seed: int, steps: int):
    """A state of ``game`` after up to ``steps`` random steps."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        _random_action(state, rng)
    return state


def _assert_same(a, b):
    assert a.record.tobytes() == b.record.tobytes()
    assert a.history() == b.history() and a.move_number() == b.move_number()
    assert a.current_player() == b.current_player() and str(a) == str(b)
    assert a.rewards() == b.rewards() and a.returns() == b.returns()


@pytest.mark.parametrize("name,params", CONFORMANCE_CONFIGS, ids=[config_id(n, c) for n, c in CONFORMANCE_CONFIGS])
def test_saves_round_trip_as_plain_text(name, params):
    game = eo.load(name, **params)
    rng = random.Random(11)
    state = game.new_initial_state()
    for step in range(400):
        if state.is_terminal():
            break
        if step % 37 == 0:
            text = eo.serialize_game_and_state(game, state)
            assert "__dict__" not in text and text.isascii()
            again, restored = eo.deserialize_game_and_state(text)
            assert str(again) == str(game) and again.save_string == game.save_string
            _assert_same(restored, state)
            _assert_same(game.deserialize_state(state.serialize()), state)
            _assert_same(pickle.loads(pickle.dumps(state)), state)
            _random_action(restored, random.Random(step))  # the restored state plays on
        _random_action(state, rng)
    unpickled = pickle.loads(pickle.dumps(game))  # a whole game, not only its C++ side
    assert unpickled.save_string == game.save_string
    assert str(unpickled.new_initial_state()) == str(game.new_initial_state())
    # (pyspiel's random_sim_test with serialization runs on every config in tests/test_conformance.py)


def test_a_save_of_an_earlier_octa_record_layout_loads():
    # Game.from_bytes reads Octa's earlier layouts (the 4,332-byte int32 one and the 2,612-byte one before the
    # rebuilt stock's fields); the face refused every save of theirs by size before asking it (a diff review)
    import hashlib

    from octagames.core import _format_tag
    from octagames.octa import EARLIER_STATE_DTYPES

    game = eo.load("octa-en")
    state, rng, g = game.new_initial_state(), random.Random(3), Game("octa-en")
    for _ in range(40):
        _random_action(state, rng)
    text = eo.serialize_game_and_state(game, state)
    today = eo._b64(g.to_bytes(state.record))
    assert today in text
    for dt in EARLIER_STATE_DTYPES:
        old = np.zeros((), dt)
        for f in dt.names:
            old[f] = state.record[f]
        body = _format_tag(g.name, dt) + old.tobytes()
        _, restored = eo.deserialize_game_and_state(
            text.replace(today, eo._b64(body + hashlib.blake2b(body, digest_size=8).digest())))
        assert all(np.array_equal(restored.record[f], state.record[f]) for f in dt.names)
        assert restored.legal_actions() == state.legal_actions()
    with pytest.raises(ValueError, match=r"has 2875 \(4359, 2639 in the earlier layouts it still reads\)"):
        eo.deserialize_game_and_state(text.replace(today, eo._b64(g.to_bytes(state.record)[:-1])))


def _payload_save(game, state, target) -> str:
    """pyspiel's save of ``state`` whose ``__dict__`` line, unpickled, creates the file ``target``."""
    class Payload:
        def __reduce__(self):
            return (open, (str(target), "w"))

    text = pyspiel.serialize_game_and_state(game, state)
    head, _, _ = text.rpartition("__dict__=")
    return head + "__dict__=" + base64.b64encode(pickle.dumps({"_n": Payload()})).decode() + "\n"


@pytest.mark.parametrize("name", ["achten", "achten-dealer-pays"])  # a game's name, a variant's
def test_a_crafted_save_runs_no_code(tmp_path, name):
    game = eo.load(name, num_players=2)
    state = _played(game, 1, 30)
    crafted = _payload_save(game, state, tmp_path / "ran")
    state_part = crafted.partition("[State]\n")[2].rstrip("\n")
    errors = []
    # pyspiel's C++ reader skips blank and '#' lines: a save hiding its game line behind them must not
    # slip past the guard to pyspiel's unpickling loader
    hidden = [crafted.replace("[Game]\n", "[Game]\n" + filler) for filler in ("# x\n", "\n")]
    loads = ((game.deserialize_state, state_part), (eo.deserialize_game_and_state, crafted),
             (eo.deserialize_game_and_state, crafted.encode()), (pyspiel.deserialize_game_and_state, crafted),
             (pyspiel.deserialize_game_and_state, hidden[0]), (pyspiel.deserialize_game_and_state, hidden[1]))
    for load, text in loads:
        try:
            load(text)
        except Exception as e:  # noqa: BLE001 - the type is checked below
            errors.append(e)
        assert not (tmp_path / "ran").exists(), f"opening the save with {load} ran its payload"
    assert [type(e) for e in errors] == [ValueError] * 6, errors
    assert all("names builtins.open" in str(e) or "names io.open" in str(e) or "[Game]" in str(e)
               for e in errors), errors
    assert all("nothing of it ran" in str(e) for e in errors)
    # the payload is live: unpickling its line creates the file
    pickle.loads(base64.b64decode(crafted.rpartition("__dict__=")[2]))
    assert (tmp_path / "ran").exists()
    # and what the face writes holds no pickle: every line is key=value text
    for line in state.serialize().split("\n")[1:]:
        key, sep, value = line.partition("=")
        assert sep and key.isidentifier() and all(c.isalnum() or c in "_-+:,.=()" for c in value), line


def test_pyspiel_saves_open_through_the_safe_reader():
    # pyspiel's own save functions keep working for our games, without unpickling anything
    game = eo.load("octrix", num_players=3)
    state = _played(game, 4, 25)
    text = pyspiel.serialize_game_and_state(game, state)
    assert "__dict__=" in text
    assert pyspiel.deserialize_game_and_state is eo.guarded_deserialize_game_and_state
    for load in (pyspiel.deserialize_game_and_state, eo.deserialize_game_and_state):
        game2, state2 = load(text)
        assert str(game2) == str(game) and state2.serialize() == state.serialize()
        assert state2.history() == state.history() and state2.move_number() == state.move_number()
    assert game.deserialize_state(text.partition("[State]\n")[2].rstrip("\n")).serialize() == state.serialize()
    # other games' saves still go to pyspiel's own function
    kuhn = pyspiel.load_game("kuhn_poker")
    ks = kuhn.new_initial_state()
    ks.apply_action(0)
    _, back = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(kuhn, ks))
    assert back.history() == [0]


def _game_line(text: str, game_string: str) -> str:
    """``text`` (a save) with its [Game] line replaced by ``game_string``."""
    head, _, rest = text.partition("[Game]\n")
    return head + "[Game]\n" + game_string + "\n" + rest.partition("\n")[2]


def test_a_save_under_another_name_of_its_config_opens_and_one_of_another_config_is_refused():
    single = eo.load("octrix-round", num_players=3)
    state = _played(single, 2, 20)
    text = eo.serialize_game_and_state(single, state)
    assert "[Game]\noctagames_octrix_round(" in text and "match=False" in text
    # before the variants, the single round was saved as octagames_octrix(...,match=False,...): it still opens
    old = text.replace("octagames_octrix_round(", "octagames_octrix(")
    for load in (eo.deserialize_game_and_state, pyspiel.deserialize_game_and_state):
        game, restored = load(old)
        assert game.get_type().short_name == "octagames_octrix"
        assert game.octagame.config == single.octagame.config
        _assert_same(restored, state)
    # the [Game] under one name, the [State] record under the other: the same game and config agree
    game_line = text.partition("[Game]\n")[2].partition("\n")[0]
    _, restored = eo.deserialize_game_and_state(_game_line(text, game_line.replace("_round(", "(")))
    _assert_same(restored, state)
    # a [State] record of the match under the single round's [Game] is refused, naming the field
    head, _, state_part = text.partition("[State]\n")
    match = head + "[State]\n" + state_part.replace("octagames_octrix_round(", "octagames_octrix(").replace(
        "match=False", "match=True")
    for load in (eo.deserialize_game_and_state, pyspiel.deserialize_game_and_state):
        with pytest.raises(ValueError, match=r"save's \[Game\] is octrix\(match=False\) "
                                             r"but its \[State\] record is octrix\(match=True\)"):
            load(match)


def test_a_save_whose_game_and_state_disagree_is_refused():
    four = eo.load("achten", num_players=4)
    two = eo.load("achten", num_players=2)
    state = _played(four, 2, 20)
    pyspiel_save = pyspiel.serialize_game_and_state(four, state)
    wanted = r"save's \[Game\] is achten\(num_players=2\) but its \[State\] record is achten\(num_players=4\)"
    with pytest.raises(ValueError, match=wanted):  # pyspiel's own save functions, through C++
        pyspiel.deserialize_game_and_state(_game_line(pyspiel_save, str(two)))
    with pytest.raises(ValueError, match=wanted):  # our plain saves
        eo.deserialize_game_and_state(_game_line(eo.serialize_game_and_state(four, state), two.save_string))
    with pytest.raises(ValueError, match=wanted):
        two.deserialize_state(state.serialize())
    octrix = eo.load("octrix", num_players=4)
    with pytest.raises(ValueError, match=r"\[Game\] is octrix\(.*num_players=4.*\) but its \[State\] record "
                                         r"is achten\(.*num_players=4"):
        pyspiel.deserialize_game_and_state(_game_line(pyspiel_save, str(octrix)))
    # a record under another config than its own game line says: Game.from_bytes names the field
    lying = state.serialize().replace("game=" + four.save_string, "game=" + two.save_string)
    with pytest.raises(ValueError, match=r"record is refused.*num_players=4, this game has 2"):
        two.deserialize_state(lying)


def _corrupt(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_corrupted_saves_raise_one_clear_error():
    game = eo.load("octrix", num_players=3)
    state = _played(game, 3, 25)
    # pyspiel's format with a damaged pickle: one clear ValueError, not an unpickling error
    pickled = pyspiel.serialize_game_and_state(game, state).partition("[State]\n")[2].rstrip("\n")
    head, _, line = pickled.rpartition("__dict__=")
    renamed = base64.b64encode(base64.b64decode(line).replace(b"octagames", b"octagamek")).decode()
    for damaged in (pickled[:-20], head + "__dict__=" + renamed):
        with pytest.raises(ValueError, match="is not an octagames state's, so it is not opened"):
            game.deserialize_state(damaged)
    text = eo.serialize_game_and_state(game, state)
    record = text.partition("record=")[2].partition("\n")[0]
    flipped = record[:40] + ("A" if record[40] != "A" else "B") + record[41:]
    cases = {
        "not a save": ("hello", "starts with 'hello'"),
        "no state": (text.partition("[State]")[0], r"no \[State\] section"),
        "two games": (text.replace("[Meta]", "[Game]\n" + game.save_string + "\n[Meta]"), "two"),
        "truncated record": (_corrupt(text, record, record[:-8]), "record is refused: it has .* bytes"),
        "altered record": (_corrupt(text, record, flipped), "record is refused: checksum mismatch"),
        "not base64": (_corrupt(text, record, record[:-4] + "a+b/"), "not base64"),
        "unknown game": (_corrupt(text, "octagames_octrix(", "octagames_octrux("),
                         "unknown game 'octagames_octrux'"),
        "unknown field": (_corrupt(text, "dealer=0", "colour=0"), "colour is not a parameter"),
        "bad value": (_corrupt(text, "num_players=3", "num_players=three"),
                      "num_players='three' is not a valid int"),
        "bad config": (_corrupt(text, "num_players=3", "num_players=9"), "num_players"),
        "field twice": (_corrupt(text, "dealer=0", "dealer=0,dealer=1"), "dealer twice"),
        "not a game string": (_corrupt(text, "octagames_octrix(", "__import__('os')("),
                              "not an octagames game string"),
        "missing line": (_corrupt(text, "\nmove_number=", "\nmove_numbr="), "must have the lines"),
        "bad history": (_corrupt(text, "history=", "history=x:1,"), "history entry 'x:1'"),
        "history seat": (_corrupt(text, "history=", "history=7:1,"), "history entry '7:1'"),
        "move number": (_corrupt(text, "move_number=", "move_number=9999"), "move_number"),
        "bad returns": (_corrupt(text, "\nbefore=", "\nbefore=nan,1,"), "returns before the last move"),
        "pool root": (_corrupt(text, "pool_root=0", "pool_root=1"), "deal pool's root"),
        "no header": (_corrupt(text, "octagames state 1", "octagames state 2"), "not an octagames state"),
        "meta": (_corrupt(text, "Version: 1", "Version: 2"), r"\[Meta\]"),
    }
    for what, (bad, message) in cases.items():
        with pytest.raises(ValueError, match=message):
            eo.deserialize_game_and_state(bad)
    with pytest.raises(ValueError, match="not UTF-8"):
        eo.deserialize_game_and_state(b"\xff\xfe[Game]")
    with pytest.raises(ValueError, match="must be text"):
        game.deserialize_state(b"octagames state 1")
    with pytest.raises(ValueError, match="a save is text"):
        eo.deserialize_game_and_state(None)


def test_any_damaged_save_loads_or_raises_value_error():
    """Property: one random character changed anywhere in a save never gives another error."""
    games = [eo.load("octrix", num_players=2), eo.load("achten", num_players=3)]
    saves = [eo.serialize_game_and_state(g, _played(g, seed, 40)) for g in games for seed in range(2)]
    rng = random.Random(0)
    alphabet = "0123456789abcdefxyzAZ_-=,.:()\n[]#"
    refused = loaded = 0
    for k in range(400):
        text = saves[k % len(saves)]
        i = rng.randrange(len(text))
        bad = text[:i] + rng.choice(alphabet) + text[i + 1:]
        try:
            _, state = eo.deserialize_game_and_state(bad)
        except ValueError:
            refused += 1
            continue
        loaded += 1  # a change the format allows (a history entry, a comment): a valid state
        state.octagame.check_record(state.record)
        state.legal_actions()
    assert refused > 200 and loaded > 0, (refused, loaded)


# --------------------------------------------------------------------------
# Deal-pool games are registered and save like the others
# --------------------------------------------------------------------------
def test_pool_games_are_registered_and_serialize():
    _, records, _ = _dealt([1, 2, 3])
    game = eo.load_pool("achten", records, **POOL)
    assert "octagames_achten_pool" in pyspiel.registered_names()
    again = pyspiel.load_game(str(game))
    assert again.save_string == game.save_string and len(again.records) == 3
    assert [r.tobytes() for r in again.records] == [r.tobytes() for r in records]
    unpickled = pickle.loads(pickle.dumps(game))
    assert [r.tobytes() for r in unpickled.records] == [r.tobytes() for r in records]
    assert unpickled.new_initial_state().chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    root = game.new_initial_state()
    for state in (root, root.child(1), _played(game, 4, 6)):
        _, restored = eo.deserialize_game_and_state(eo.serialize_game_and_state(game, state))
        _assert_same(restored, state)
        if state.is_chance_node():
            assert restored.chance_outcomes() == state.chance_outcomes()
        _, via_pyspiel = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        _assert_same(via_pyspiel, state)
        _assert_same(pickle.loads(pickle.dumps(state)), state)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    dealt = _played(eo.load("octrix-round", **SMALL), 5, 4).record
    turn_based = pyspiel.convert_to_turn_based(eo.load_pool("octrix-round", [dealt], **SMALL))
    pyspiel.random_sim_test(turn_based, num_sims=3, serialize=True, verbose=False)
    # a pool's state in a plain game's save, or a pool state that drew no record, is refused
    plain_text = eo.serialize_game_and_state(game, root)
    plain = eo.load("achten", **POOL)
    with pytest.raises(ValueError, match="deal pool's root but its \\[Game\\] is not a deal-pool game"):
        eo.deserialize_game_and_state(_game_line(plain_text, plain.save_string))
    drawn = eo.serialize_game_and_state(game, root.child(2))
    with pytest.raises(ValueError, match="start with the draw of one of its 3 records"):
        eo.deserialize_game_and_state(_corrupt(drawn, "history=-1:2", "history=-1:7"))
    pool_records = drawn.partition("records=")[2].partition(",")[0].partition(")")[0].split(".")
    second = pool_records[1]
    with pytest.raises(ValueError, match="record 1 is refused: checksum"):
        altered = second[:30] + ("A" if second[30] != "A" else "B") + second[31:]
        eo.deserialize_game_and_state(_corrupt(drawn, second, altered))
    with pytest.raises(ValueError, match="records is empty"):
        pyspiel.load_game("octagames_achten_pool")
