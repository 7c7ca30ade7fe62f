"""The conformance suite every game joins: a game lists its configs in its spec (``conformance`` in
octagames/<game>/variants.py), which octagames.testing.CONFORMANCE_CONFIGS collects."""

import dataclasses
import importlib
import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from octagames import catalogue
from octagames.core import TERMINAL, Game, IllegalActionError, load_module
from octagames.experiments.fuzz import RECORD_FUZZ, RECORD_OPTIONS, agent_chooser, openspiel_strings, random_sims
from octagames.specialize import cached
from octagames.testing import (CONFORMANCE_CONFIGS, check_unique_names, check_world, config_id, leak_check,
                               play_recorded, public_module, random_chooser, random_playout, replay, trace_digest)

# (game, config fields): the conformance list, shared with the fuzz campaign, built from every game's spec
GAME_CONFIGS = CONFORMANCE_CONFIGS
IDS = [config_id(n, c) for n, c in GAME_CONFIGS]


def test_the_list_is_every_specs_configs_named_by_their_variant():
    # each game's spec declares its configs (GameSpec.conformance): all of them are here, resolved
    specs = [(catalogue.resolve(name, **extra)) for g in catalogue.games()
             for name, extra in catalogue.game_spec(g).conformance]
    assert GAME_CONFIGS == [(game, {"num_players": c["num_players"], **c}) for game, c in specs]
    assert {n for n, _ in GAME_CONFIGS} == set(catalogue.games()) and len(set(IDS)) == len(IDS)
    assert "octrix-round-num_players=3" in IDS and "octa-nl-num_players=2-max_turns=20" in IDS
    # the id names the closest variant, then the fields that variant does not set, in the order given
    assert config_id("octrix", {"match": False, "num_players": 3}) == "octrix-round-num_players=3"
    assert config_id("octrix-round", {"num_players": 3}) == "octrix-round-num_players=3"
    assert config_id("octrix", {"num_players": 2, "target": 30}) == "octrix-num_players=2-target=30"
    assert config_id("achten-dealer-pays", {"num_players": 3}) == "achten-dealer-pays-num_players=3"
    with pytest.raises(ValueError, match="game='chess' is not valid"):
        config_id("chess", {})


#: the contract's optional kernels and functions (octagames/core.py): the templates look for them on the package
OPTIONAL = ("truncated", "utility_bounds", "max_game_length", "observation_bounds", "random_legal_action",
            "apply_legal", "settle_chance", "side_of")


def test_every_game_package_exports_the_optional_kernels_its_rules_define():
    # the compiled templates ask the package (hasattr), so a kernel the rules define but the package leaves out is
    # silently never called (Octrix's truncated was: a match stopped at its round cap was reported as an end)
    for name in catalogue.games():
        package, rules = load_module(name), importlib.import_module(f"octagames.{name}.rules")
        assert [k for k in OPTIONAL if hasattr(rules, k) and getattr(package, k, None) is not getattr(rules, k)] == []
    assert hasattr(load_module("octrix"), "truncated")


@pytest.fixture(params=GAME_CONFIGS, ids=IDS)
def game(request):
    name, cfg = request.param
    return Game(name, **cfg)


def test_random_playouts_keep_the_contract(game):
    for seed in range(8):
        s = random_playout(game, seed)
        assert game.current_player(s) == TERMINAL
        r = game.returns(s)
        assert abs(r.sum()) < 1e-9, "returns must be zero-sum"


def test_same_seed_same_game(game):
    a = random_playout(game, 3, check=False)
    b = random_playout(game, 3, check=False)
    assert game.to_bytes(a) == game.to_bytes(b)


def test_every_config_plays_the_same_game_uncompiled():
    # NUMBA_DISABLE_JIT=1 runs the kernels as plain Python (numpy scalars, Python integers): records, every seat's
    # observation and the legal masks of a random game of each config must be byte for byte the compiled ones
    # (a Python integer shifted by a numpy one overflowed in Octiles' setup once, compiled code unaffected)
    steps = 250
    code = ("import json\nfrom octagames.core import Game\n"
            "from octagames.testing import CONFORMANCE_CONFIGS, trace_digest\n"
            f"print(json.dumps([trace_digest(Game(n, **c), 5, {steps}) for n, c in CONFORMANCE_CONFIGS]))\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")  # numpy warns of the RNG's wrapping
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    uncompiled = json.loads(run.stdout)
    compiled = [trace_digest(Game(n, **c), 5, steps) for n, c in GAME_CONFIGS]
    assert len(uncompiled) == len(compiled) == len(IDS)
    assert [IDS[i] for i, (a, b) in enumerate(zip(uncompiled, compiled)) if a != b] == []
    assert len(set(compiled)) == len(compiled)  # every config played its own game


def test_a_finished_record_reset_is_the_new_game_of_its_seed(game):
    # the faces that reuse a record (PettingZoo's envs, the vector env and its auto-reset) start the next game
    # with the reset kernel: nothing of the game before may carry over, such as the dealer a match moved
    for seed in range(4):
        s = random_playout(game, seed, check=False)
        game.kernels.reset(s, 100 + seed)
        assert game.to_bytes(s) == game.to_bytes(game.new_state(100 + seed))


def test_illegal_action_raises_and_keeps_state(game):
    s = game.new_state(5)
    game.play_chance(s)
    mask = game.legal_mask(s)
    bad = int(np.flatnonzero(mask == 0)[0])
    before = game.to_bytes(s)
    with pytest.raises(IllegalActionError) as e:
        game.apply_action(s, bad)
    assert game.action_to_string(s, bad) in str(e.value)
    assert game.to_bytes(s) == before
    with pytest.raises(IllegalActionError):
        game.apply_action(s, game.num_actions + 7)
    assert game.to_bytes(s) == before


def test_static_facts(game):
    info = game.info
    assert info.min_players <= game.num_players <= info.max_players
    assert info.min_utility < 0 < info.max_utility
    assert game.min_utility < 0 < game.max_utility and game.max_game_length > 0
    assert game.dtype.names and "rng" in game.dtype.names
    s = game.new_state(0)
    assert isinstance(game.render(s), str) and game.render(s, 0)


# games with the contract's optional fast kernels (apply_legal; Octiles also random_legal_action)
FAST_KERNEL_CONFIGS = [(n, c) for n, c in GAME_CONFIGS if n in ("octiles", "octa")]


@pytest.mark.parametrize("name,config", FAST_KERNEL_CONFIGS, ids=[f"{n}-{c}" for n, c in FAST_KERNEL_CONFIGS])
def test_optional_fast_kernels_agree_with_the_contract(name, config):
    # apply_legal must leave a record exactly as apply_action does; random_legal_action must
    # return a legal action (its uniformity is tested in the game's own tests)
    game = Game(name, **config)
    module = game.module
    sampler = getattr(module, "random_legal_action", None)
    assert hasattr(module, "apply_legal") and (sampler is not None or name == "octa")
    sampler = cached(sampler) if sampler is not None else None
    rng = np.random.default_rng(9)
    steps = 0
    for seed in range(6):
        s = game.new_state(seed)
        while not game.is_terminal(s):
            if game.is_chance(s):
                a = game.sample_chance(s)
            else:
                p = game.acting_player(s)
                a = int(rng.choice(game.legal_actions(s)))
                if sampler is not None:
                    assert game.legal_mask(s, p)[sampler(game.clone(s), p)]
            fast = game.clone(s)
            assert game.kernels.apply_legal(fast, a)
            game.apply_action(s, a)
            assert game.to_bytes(fast) == game.to_bytes(s)
            steps += 1
    assert steps > 100


# games with the contract's optional settle_chance (Octrix deals a round at once)
SETTLE_CONFIGS = [(n, c) for n, c in GAME_CONFIGS if hasattr(load_module(n), "settle_chance")]


@pytest.mark.parametrize("name,config", SETTLE_CONFIGS, ids=[config_id(n, c) for n, c in SETTLE_CONFIGS])
def test_settle_chance_resolves_chance_as_sample_chance_does(name, config):
    # Game.play_chance and the vector env resolve chance with settle_chance: it must leave a record exactly as
    # apply_action(s, sample_chance(s)) does at every chance node (the same draws, cards and seats), also when
    # some of the chance nodes were resolved one at a time before
    game = Game(name, **config)
    rng = np.random.default_rng(4)
    nodes = 0
    for seed in range(6):
        s = game.new_state(seed)
        while not game.is_terminal(s):
            if not game.is_chance(s):
                game.apply_action(s, int(rng.choice(game.legal_actions(s))))
                continue
            for _ in range(int(rng.integers(0, 4))):
                if game.is_chance(s):
                    game.apply_action(s, game.sample_chance(s))
            fast = game.clone(s)
            game.play_chance(fast)  # the engine's entry point, through settle_chance
            while game.is_chance(s):
                game.apply_action(s, game.sample_chance(s))
            assert game.to_bytes(fast) == game.to_bytes(s)
            nodes += 1
    assert nodes >= 6 and SETTLE_CONFIGS


# ------------------------------------------------------------------ nothing a seat sees reveals what it cannot
def _positions(game, seed, count):
    """Up to ``count`` decision nodes of a random game (each decision kept with probability 0.3)."""
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    out = []
    while not game.is_terminal(s) and len(out) < count:
        if game.is_chance(s):
            game.apply_action(s, game.sample_chance(s))
            continue
        if rng.random() < 0.3:
            out.append(game.clone(s))
        game.apply_action(s, int(rng.choice(game.legal_actions(s))))
    return out


def _error_text(game, s, action):
    with pytest.raises(IllegalActionError) as e:
        game.apply_action(game.clone(s), action)
    return str(e.value)


def test_strings_reveal_nothing_the_seat_cannot_see(game):
    # determinize(s, seat) resamples all the seat cannot see, so every string shown to that seat must
    # stay the same: its render, the reasons and errors for its illegal actions, OpenSpiel's
    # information-state string; action strings are public (every seat's history shows them)
    import octagames.envs.openspiel as eo

    rng = np.random.default_rng(0)
    sample = min(game.num_actions, 24)
    pairs = []
    for seed in range(3):
        for s in _positions(game, seed, 4):
            p = game.acting_player(s)
            mask = game.legal_mask(s, p)
            for v in range(game.num_players):
                d = game.determinize(s, v, int(rng.integers(1 << 30)))
                actions = [int(a) for a in rng.choice(game.num_actions, sample, replace=False)]
                assert [game.action_to_string(s, a) for a in range(game.num_actions)] == \
                    [game.action_to_string(d, a) for a in range(game.num_actions)], game.render(s)
                assert [game.module.illegal_reason(s, v, a) for a in actions] == \
                    [game.module.illegal_reason(d, v, a) for a in actions], game.render(s)
                assert game.render(s, v) == game.render(d, v)
                if v == p:
                    illegal = [a for a in actions if not mask[a]][:4]
                    assert [_error_text(game, s, a) for a in illegal] == [_error_text(game, d, a) for a in illegal]
                pairs.append((s, d, v))
    assert pairs, "no decision reached"
    params = {k: v for k, v in dataclasses.asdict(game.config).items() if k in eo.parameter_specification(game.name)}
    pool = eo.load_pool(game.name, [r for s, d, _ in pairs for r in (s, d)], **params)
    root = pool.new_initial_state()
    for i, (_, _, v) in enumerate(pairs):
        assert root.child(2 * i).information_state_string(v) == root.child(2 * i + 1).information_state_string(v)


def test_a_world_drawn_depends_on_the_seats_information_and_the_seed_alone(game):
    # determinize(s, v, k) from a state v cannot tell from s (a world drawn for v) is the same world: Octa listed
    # the hidden places by the card each held, so two such states drew different worlds from one seed, and its
    # searches (mcts, rollout, the zoo's) played differently in positions their seat could not tell apart
    rng = np.random.default_rng(1)
    for seed in range(3):
        for s in _positions(game, seed, 4):
            for v in range(game.num_players):
                other, k = game.determinize(s, v, int(rng.integers(1 << 30))), int(rng.integers(1 << 30))
                assert game.to_bytes(game.determinize(s, v, k)) == game.to_bytes(game.determinize(other, v, k)), \
                    game.render(s)


# ------------------------------------------------------------------ other worlds, by the rules' public zones
# Games driven per seat by random play, the heuristic and a short search (long runs, full pools, endgames);
# Octa's games run to hundreds of actions, so fewer of them. The fuzz campaign (experiments/fuzz.py) plays many more.
DRIVER_MIXES = [("random",), ("heuristic",), ("mcts:20", "random"), ("heuristic", "mcts:20")]
LEAK_GAMES = {"octa": 2}


def _played(game, count):
    for k, mix in enumerate(DRIVER_MIXES[:count]):
        choosers = [agent_chooser(mix[p % len(mix)], game, p, k) for p in range(game.num_players)]
        yield k, play_recorded(game, k, choosers)


def test_other_worlds_show_a_seat_the_same(game):
    # for each seat, worlds that differ only in what it never saw (cards relabelled in the chance outcomes,
    # another seat's hidden move replaced; public.py of each game says what a seat sees), replayed: while the
    # seat's public view is the same, so must be its observation, render, action names, legal mask, illegal-move
    # reasons and OpenSpiel strings; and no string may depend on the RNG (the future)
    pub = public_module(game)
    rng = np.random.default_rng(7)
    totals = Counter()
    for seed, actions in _played(game, LEAK_GAMES.get(game.name, 4)):
        pairs = []
        totals.update(leak_check(game, seed, actions, rng, worlds=3, on_pair=lambda a, b, v: pairs.append((a, b, v))))
        totals["openspiel"] += openspiel_strings(game, pairs)
    assert totals["rng"] >= 8 * game.num_players
    if pub.CARD_GROUPS or pub.HIDDEN_MOVES:  # the floor: this test compared worlds, it did not pass vacuously
        assert totals["worlds"] >= 4 * game.num_players and totals["strings"] >= 4 * game.num_players, totals
        assert totals["openspiel"] == totals["strings"] and totals["steps"] >= totals["strings"]


def test_other_worlds_stop_where_the_seat_sees_a_difference():
    # the public views are not blind: relabelling a card dealt to seat 0 is seen by seat 0 at once (the world
    # comes apart at the deal), not by seat 1 (compared to the end); Octrix: seat 0's card committed in the open
    # step is hidden from seat 1 until seat 1 plays and the trick is turned
    game = Game("achten", num_players=2)
    actions = play_recorded(game, 3, [random_chooser(np.random.default_rng(3))] * 2)
    states = replay(game, 3, actions)
    pub = public_module(game)
    dealt = [k for k in range(len(actions)) if game.is_chance(states[k])]
    # a card dealt to seat 0 that seat 1 does not see before the end, and a card never dealt
    k, own = next((k, actions[k]) for k in dealt if states[k + 1]["slot_card"][:3].tolist().count(actions[k])
                  and not any(actions[k] in pub.seen_ids(s, 1) for s in states[:-1]))
    other = next(c for c in range(52) if c not in actions[:len(dealt)])
    world = {"until": len(actions), "relabel": {own: other, other: own}}
    assert check_world(game, 3, actions, {**world, "seat": 0}, states) == \
        {"steps": 0, "strings": 0, "inconsistent": 0, "diverged": 1}
    out = check_world(game, 3, actions, {**world, "seat": 1}, states)
    assert out["steps"] >= len(actions) - k - 2 and out["strings"] >= 1, out  # at most the showdown shows it
    game = Game("octrix", num_players=2)
    prefix = _chance_prefix(game, 0)
    s = replay(game, 0, prefix)[-1]
    first, alt = game.legal_actions(s)[:2]
    game.apply_action(s, first)  # seat 0 commits
    actions = prefix + [first, game.legal_actions(s)[0]]  # seat 1 commits: the trick is turned
    out = check_world(game, 0, actions, {"seat": 1, "until": len(actions), "step": len(prefix), "action": alt})
    assert out["steps"] == 1 and out["diverged"] == 1, out


def _chance_prefix(game, seed):
    s, out = game.new_state(seed), []
    while game.is_chance(s):
        out.append(game.sample_chance(s))
        game.apply_action(s, out[-1])
    return out


def test_legal_actions_have_distinct_names(game):
    # in every visited state the legal actions have distinct names, in the engine and in the OpenSpiel face
    import octagames.envs.openspiel as eo
    import pyspiel

    states = 0
    for seed, actions in _played(game, LEAK_GAMES.get(game.name, 4)):
        for k, s in enumerate(replay(game, seed, actions)):
            if game.is_terminal(s) or game.is_chance(s):
                continue
            check_unique_names(game, s)
            states += 1
    assert states > 10
    params = {k: v for k, v in dataclasses.asdict(game.config).items() if k in eo.parameter_specification(game.name)}
    sims = pyspiel.load_game(f"{eo.short_name(game.name)}({','.join(f'{k}={v}' for k, v in params.items())})")
    for seed in range(2):
        st, rng = sims.new_initial_state(), np.random.default_rng(seed)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(int(rng.choice([a for a, _ in st.chance_outcomes()])))
                continue
            legal = st.legal_actions()[:512]  # (a simultaneous step's flat joint actions can be many)
            names = [st.action_to_string(st.current_player(), a) for a in legal]
            assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)[:4]
            st.apply_action(int(rng.choice(legal)))


# OpenSpiel's own simulation test, serialization included, on every config: a few games here (Octiles and Octa
# games run to hundreds of actions, each serialized); the campaign runs batches, 200 per config in docs/conformance.md
RANDOM_SIMS = {"octa": 3, "octiles": 3}


def test_openspiel_random_sim_test(game):
    random_sims(game, RANDOM_SIMS.get(game.name, 20))


# ------------------------------------------------------------------ saved games are untrusted input
CHECKED_GAMES = [n for n in dict.fromkeys(n for n, _ in GAME_CONFIGS) if hasattr(load_module(n), "check_record")]
# Per game, how the records to damage are drawn from play (every ``stride``-th action, 150 per game: Octa's
# games run to a thousand actions), how many get one field damaged (testing.damage_field) per config, and how
# many of the accepted records are played to the end through Game (``plays``, default 2 per config: all of
# them are checked, observed by every seat and stepped there, and played to the end in the vector env).
FUZZ_OPTIONS = RECORD_OPTIONS
_FUZZ = RECORD_FUZZ  # (the fuzz campaign runs the same script, with its own seeds and sizes)


@pytest.mark.parametrize("name", CHECKED_GAMES)
def test_check_record_guards_the_kernels(name):
    # records reached in play pass; damaged records, resealed (a checksum that fits), go through Game.from_bytes:
    # each is refused, or observed by every seat inside the declared bounds, stepped and played to the end in
    # Game and in the vector env without an error (numba does not bounds-check: a miss would kill the process)
    configs = [c for n, c in GAME_CONFIGS if n == name]
    opts = FUZZ_OPTIONS.get(name, {})
    res = subprocess.run([sys.executable, "-c", _FUZZ, name, json.dumps(configs), json.dumps(opts)],
                         capture_output=True, text=True, timeout=400)
    lines = res.stdout.strip().splitlines()
    last = lines[-1:] or [""]
    assert res.returncode == 0, f"crash or error (last accepted record: {last[0][:200]}): {res.stderr[-3000:]}"
    totals = json.loads(last[0])
    print(name, totals)
    misbehaving = [line for line in lines if line.startswith("misbehaves")]
    assert totals["misbehaving"] == totals["vector_misbehaving"] == 0, misbehaving[:10]
    assert totals["tried"] == len(configs) * (1000 + opts.get("fields", 0))
    assert totals["tried"] == totals["rejected"] + totals["accepted"] and totals["saves_ok"] == 0
    assert totals["flips_ok"] > 0 and (totals["fields_ok"] > 0 or not opts.get("fields"))
