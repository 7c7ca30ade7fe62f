"""The conformance suite every game joins: add a (game, config) pair to GAME_CONFIGS."""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from octagames.core import TERMINAL, Game, IllegalActionError, load_module
from octagames.specialize import cached
from octagames.testing import random_playout

# (name, config kwargs). A new game only adds itself here.
GAME_CONFIGS = [
    ("octrix", dict(num_players=2)),
    ("octrix", dict(num_players=3)),
    ("octrix", dict(num_players=4)),
    ("octrix", dict(num_players=4, partnership=True)),
    ("octrix", dict(num_players=2, match=True, target=30)),
    ("octrix", dict(num_players=2, ranks=2, hand_size=3)),
    ("octiles", dict(num_players=2)),
    ("octiles", dict(num_players=2, adjacent=True, runners=4, choose_start_circles=True)),
    ("octiles", dict(num_players=3)),
    ("octiles", dict(num_players=3, play_on=True)),
    ("octiles", dict(num_players=4)),
    ("octiles", dict(num_players=4, team=True, runners=3, choose_start_circles=True)),
    ("octiles", dict(num_players=2, goal_locks=True, runners=2)),
    ("achten", dict(num_players=2)),
    ("achten", dict(num_players=3)),
    ("achten", dict(num_players=4)),
    ("achten", dict(num_players=6)),
    ("achten", dict(num_players=3, match=True, target=0.2, max_rounds=12)),
    ("achten", dict(num_players=2, ranks=3, low_rank=7, turn_cap=3)),
    ("octa", dict(rules="en")),
    ("octa", dict(rules="en", max_turns=20)),
    ("octa", dict(rules="nl")),
    ("octa", dict(rules="nl", max_turns=20)),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in c.items())}" for n, c in GAME_CONFIGS]


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


# ------------------------------------------------------------------ saved games are untrusted input
CHECKED_GAMES = [n for n in dict.fromkeys(n for n, _ in GAME_CONFIGS) if hasattr(load_module(n), "check_record")]
# Per game, how the records to damage are drawn from play (every ``stride``-th action, 150 per game: Octa's
# games run to a thousand actions), how many get one field damaged (testing.damage_field) per config, and how
# many of the accepted records are played to the end through Game (``plays``, default 2 per config: all of
# them are checked, observed by every seat and stepped there, and played to the end in the vector env).
FUZZ_OPTIONS = {"octa": {"stride": 8, "fields": 300}}

_FUZZ = """
import json, sys
import numpy as np
from octagames.core import Game
from octagames.envs.vector import VectorEnv
from octagames.testing import fuzz_records, vector_playout

name, configs, opts = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
stride = opts.get("stride", 1)
totals = {}
for k, cfg in enumerate(configs):
    game = Game(name, **cfg)
    rng = np.random.default_rng(k)
    records = []
    for seed in range(3):  # records reached in random play: 150 of each game, every stride-th action
        s = game.new_state(seed)
        for i in range(150 * stride):
            if game.is_terminal(s):
                break
            if i % stride == 0:
                records.append(game.clone(s))
            game.apply_action(s, game.sample_chance(s) if game.is_chance(s) else int(rng.choice(game.legal_actions(s))))
        records.append(game.clone(s))
    for r in records:  # records reached in play pass the whole check
        game.check_record(r)
    accepted = []
    out = fuzz_records(game, records, k, flips=400, randoms=100, log=lambda h: print(h, flush=True),
                       fields=opts.get("fields", 0), plays=opts.get("plays", 2), accepted=accepted)
    out["vector_misbehaving"] = 0
    if accepted:  # the vector env loads them all (set_state) and plays every game to its end
        env = VectorEnv(name, len(accepted), seed=k, num_threads=1, **cfg)
        env.reset()
        for why in vector_playout(env, accepted):
            if why:
                out["vector_misbehaving"] += 1
                print(f"misbehaves (vector env): {why}", flush=True)
    for key, v in out.items():
        totals[key] = totals.get(key, 0) + v
print(json.dumps(totals))
"""


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
