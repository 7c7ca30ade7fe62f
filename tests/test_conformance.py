"""The conformance suite every game joins: add a (game, config) pair to GAME_CONFIGS."""

import numpy as np
import pytest

from octagames.core import TERMINAL, Game, IllegalActionError
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
