"""The PettingZoo faces: the official test suite on every game, and Octrix scenarios.

A new game joins by adding its ``(envs module, config)`` pairs to ``ENV_CONFIGS``.
"""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from octagames.envs import make_env, make_parallel_env, octrix_v0
from octagames.envs._pettingzoo import GameParallelEnv
from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.envs.vector import VectorEnv
from octagames.core import IllegalActionError
from octagames.octrix.rules import NUM_CARDS, O_HANDS, O_TABLE

with warnings.catch_warnings():  # pettingzoo.test imports connect_four_v3 through its deprecated loader
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test
    from pettingzoo.test.state_test import state_test

# (envs module name, keyword arguments: a variant of the module's game and config fields over it).
# Other games add themselves here. Octrix's single rounds are the variant octrix-round; its bare
# name is the seed's match (here to 30, so that random games end soon).
ENV_CONFIGS = [
    ("octrix_v0", dict(variant="octrix-round", num_players=2)),
    ("octrix_v0", dict(variant="octrix-round", num_players=3)),
    ("octrix_v0", dict(variant="octrix-round", num_players=4)),
    ("octrix_v0", dict(variant="octrix-round", num_players=4, partnership=True)),
    ("octrix_v0", dict(variant="octrix-round", num_players=2, ranks=2, hand_size=3)),
    ("octrix_v0", dict(num_players=2, target=30)),
    ("achten_v0", dict(num_players=2)),
    ("achten_v0", dict(num_players=4)),
    ("achten_v0", dict(num_players=6)),
    ("octiles_v0", dict(num_players=2)),
    ("octiles_v0", dict(num_players=3)),
    ("octiles_v0", dict(variant="octiles-teams")),
    ("octa_v0", dict(variant="octa-en")),
    ("octa_v0", dict(variant="octa-nl")),
]
IDS = [f"{m}-{'-'.join(f'{k}={v}' for k, v in c.items())}" for m, c in ENV_CONFIGS]


@pytest.fixture(params=ENV_CONFIGS, ids=IDS)
def face(request):
    """``(envs module, config)`` of one configuration."""
    name, cfg = request.param
    return importlib.import_module(f"octagames.envs.{name}"), cfg


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_advice():
    # api_test advises Box observations for envs it does not list as dict-observation
    # classic envs; the dict {"observation", "action_mask"} is the classic convention.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message=".*[Ii]llegal move")
        yield


# ---------------------------------------------------------------- PettingZoo's own suite
def test_api_test_wrapped_and_raw(face):
    mod, cfg = face
    api_test(mod.env(**cfg), num_cycles=200)
    api_test(mod.raw_env(**cfg), num_cycles=200)


def test_parallel_api_test(face):
    mod, cfg = face
    parallel_api_test(mod.parallel_env(**cfg), num_cycles=200)


def test_seed_tests(face):
    mod, cfg = face
    seed_test(lambda: mod.env(**cfg), num_cycles=100)
    parallel_seed_test(lambda: mod.parallel_env(**cfg), num_cycles=100)


def test_render_test(face, capsys):
    mod, cfg = face
    render_test(lambda render_mode=None: mod.env(render_mode=render_mode, **cfg),
                custom_tests={"ansi": lambda text: isinstance(text, str) and len(text) > 0})
    assert capsys.readouterr().out  # "human" printed the table


def test_state_test(face):
    mod, cfg = face
    state_test(mod.env(**cfg), mod.parallel_env(**cfg), num_cycles=20)


def test_metadata(face):
    mod, cfg = face
    raw = mod.raw_env(**cfg)
    assert raw.metadata["name"] == mod.__name__.rsplit(".", 1)[1]
    assert raw.metadata["render_modes"][:2] == ["ansi", "human"]
    assert raw.metadata["render_fps"] > 0
    # as PettingZoo's classic envs: parallelizable only where every seat acts in every step
    every_seat_acts = mod.GAME == "octrix" and not cfg.get("partnership", False)
    assert raw.metadata["is_parallelizable"] is every_seat_acts
    par = mod.parallel_env(**cfg)
    assert par.metadata["name"] == raw.metadata["name"] and par.metadata["render_fps"] > 0
    assert (par.wait_action is None) is every_seat_acts
    assert raw.possible_agents == [f"player_{p}" for p in range(raw.game.num_players)]


# ---------------------------------------------------------------- generic contract checks
def _random_aec_game(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_aec_cumulative_rewards_equal_returns(face):
    mod, cfg = face
    env = mod.raw_env(**cfg)
    for seed in range(3):
        totals = _random_aec_game(env, seed)  # sums what last() reports at every turn
        returns = env.game.returns(env.state_record)
        assert env.game.is_terminal(env.state_record)
        assert totals == pytest.approx({a: returns[p] for p, a in enumerate(env.possible_agents)})


def test_parallel_rewards_equal_returns_and_only_pending_seats_act(face):
    mod, cfg = face
    par = mod.parallel_env(**cfg)
    for seed in range(3):
        obs, _ = par.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(par.possible_agents, 0.0)
        while par.agents:
            acting = par.acting_agents()
            game_actions = slice(0, par.game.num_actions)
            pending = [a for a in par.agents if obs[a]["action_mask"][game_actions].any()]
            assert acting == pending and acting
            for a in par.agents:  # every live agent has a legal action: its own, or the wait
                assert obs[a]["action_mask"].any()
                if a not in acting:
                    assert np.flatnonzero(obs[a]["action_mask"]).tolist() == [par.wait_action]
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}
            obs, rewards, terms, truncs, _ = par.step(actions)
            capped = bool(par.game.kernels.truncated(par.state_record))  # an engine cap truncates, for all
            assert all(t == capped for t in truncs.values()) and not (capped and any(terms.values()))
            for a, r in rewards.items():
                totals[a] += r
        returns = par.game.returns(par.state_record)
        assert totals == pytest.approx({a: returns[p] for p, a in enumerate(par.possible_agents)})


def test_reset_without_seed_continues_the_seeded_stream(face):
    mod, cfg = face
    a, b = mod.raw_env(**cfg), mod.raw_env(**cfg)
    a.reset(seed=11)
    b.reset(seed=11)
    a.reset()
    b.reset()
    assert a.game.to_bytes(a.state_record) == b.game.to_bytes(b.state_record)
    a.reset(seed=12)
    assert a.game.to_bytes(a.state_record) != b.game.to_bytes(b.state_record)


def test_bad_config_value_raises_the_configs_value_error():
    with pytest.raises(ValueError, match="num_players"):
        octrix_v0.env(num_players=5)
    with pytest.raises(ValueError, match="partnership"):
        octrix_v0.parallel_env(num_players=3, partnership=True)
    with pytest.raises(ValueError, match="num_players"):  # the message lists the valid fields
        octrix_v0.raw_env(players=2)
    with pytest.raises(ValueError, match="render_mode"):
        octrix_v0.raw_env(render_mode="video")
    with pytest.raises(ValueError, match="illegal_action"):
        octrix_v0.parallel_env(illegal_action="ignore")


@pytest.mark.parametrize("reward", ["x", float("nan"), float("inf"), None, True])
def test_a_bad_illegal_reward_is_refused_naming_the_field(reward):
    message = rf"illegal_reward={re.escape(repr(reward))} is not valid; it must be a finite number"
    with pytest.raises(ValueError, match=message):
        octrix_v0.parallel_env(illegal_reward=reward)
    with pytest.raises(ValueError, match=message):
        octrix_v0.parallel_raw_env(illegal_reward=reward, illegal_action="raise")
    assert octrix_v0.parallel_env(illegal_reward=np.float32(-2)).illegal_reward == -2.0  # any finite number


# ---------------------------------------------------------------- Octrix scenarios
# Cards: a = (rank - 1) * 4 + suit, suits ♦ ♥ ♠ ♣ (red, red, black, black).
# The scenarios play one round of three tricks, two players (the variant octrix-round).
ROUND3 = dict(variant="octrix-round", num_players=2, hand_size=3)
D_A, H_A, S_A, C_2, H_5, S_8, C_8 = 0, 1, 2, 7, 17, 30, 31


def _hands(env) -> list[list[int]]:
    owner = env.state_record["owner"]
    return [sorted(int(c) for c in np.flatnonzero(owner == p)) for p in range(env.game.num_players)]


def _play_aec(env, cards_by_trick):
    """Play ``cards_by_trick[t][seat]`` in the raw env; return the rewards after the last card."""
    for trick in cards_by_trick:
        for seat, card in enumerate(trick):
            assert env.agent_selection == f"player_{seat}"  # lowest pending seat first
            env.step(card)
    return dict(env.rewards)


def test_fixed_deal_gives_exactly_those_hands():
    env = octrix_v0.raw_env(num_players=3, dealer=1)
    deal = [[0, 5, 10, 15, 20, 25, 30, 31], [1, 2, 3, 4, 6, 7, 8, 9], [11, 12, 13, 14, 16, 17, 18, 19]]
    env.reset(seed=0, options={"deal": deal})
    assert _hands(env) == [sorted(h) for h in deal]
    for p, a in enumerate(env.possible_agents):  # and the seat sees its own hand in its observation
        hand = env.observe(a)["observation"][O_HANDS:O_HANDS + NUM_CARDS]
        assert sorted(np.flatnonzero(hand).tolist()) == sorted(deal[p])
    par = octrix_v0.parallel_env(num_players=3, dealer=1)
    par.reset(seed=5, options={"deal": deal})
    assert _hands(par) == [sorted(h) for h in deal]


def test_colour_rule_different_colours_lowest_card_wins_next():
    # trick 1: ♣8 beats ♥A (highest wins); black/red -> trick 2 goes to the lowest card:
    # ♥5 beats ♠8; black/red again -> trick 3: ♦A beats ♣2. P0 takes 1, 2 (4 points), P1 takes 3 (1).
    env = octrix_v0.raw_env(**ROUND3)
    env.reset(seed=0, options={"deal": [[C_8, H_5, C_2], [H_A, S_8, D_A]]})
    rewards = _play_aec(env, [[C_8, H_A], [H_5, S_8], [C_2, D_A]])
    assert env.state_record["trick_winner"][:3].tolist() == [0, 0, 1]
    assert rewards == {"player_0": 3.0, "player_1": -3.0}
    assert all(env.terminations.values())


def test_colour_rule_same_colour_highest_card_wins_next():
    # trick 1: ♣8 and ♠A are both black -> trick 2 goes to the highest card: ♠8 beats ♥5;
    # black/red -> trick 3 goes to the lowest: ♦A beats ♣2. P0 takes 1 (1 point), P1 2, 3 (4).
    env = octrix_v0.raw_env(**ROUND3)
    env.reset(seed=0, options={"deal": [[C_8, H_5, C_2], [S_A, S_8, D_A]]})
    rewards = _play_aec(env, [[C_8, S_A], [H_5, S_8], [C_2, D_A]])
    assert env.state_record["trick_winner"][:3].tolist() == [0, 1, 1]
    assert rewards == {"player_0": -3.0, "player_1": 3.0}


def test_same_scenario_through_the_parallel_env():
    par = octrix_v0.parallel_env(**ROUND3)
    par.reset(seed=0, options={"deal": [[C_8, H_5, C_2], [H_A, S_8, D_A]]})
    total = {"player_0": 0.0, "player_1": 0.0}
    for c0, c1 in [(C_8, H_A), (H_5, S_8), (C_2, D_A)]:
        _, rewards, terms, _, _ = par.step({"player_0": c0, "player_1": c1})
        for a, r in rewards.items():
            total[a] += r
    assert total == {"player_0": 3.0, "player_1": -3.0}
    assert all(terms.values()) and par.agents == []


def test_committed_card_is_hidden_from_the_other_seat_until_the_trick_is_complete():
    env = octrix_v0.raw_env(**ROUND3)
    env.reset(seed=0, options={"deal": [[C_8, H_5, C_2], [H_A, S_8, D_A]]})
    env.step(C_8)
    own = env.observe("player_0")["observation"]
    other = env.observe("player_1")["observation"]
    assert own[O_TABLE + C_8] == 1  # P0 sees its card on the table (relative seat 0)
    assert other[O_TABLE:O_TABLE + 4 * NUM_CARDS].sum() == 0  # P1 does not
    assert other[O_HANDS + NUM_CARDS + C_8] == 1  # for P1 it is still in P0's hand (relative seat 1)
    assert env.observe("player_0")["action_mask"].sum() == 0
    assert env.observe("player_1")["action_mask"].tolist() == \
        [int(c in (H_A, S_8, D_A)) for c in range(NUM_CARDS)]


def test_partnership_parallel_steps_take_the_dealers_pair_first():
    par = octrix_v0.parallel_env(num_players=4, partnership=True, dealer=2)
    obs, _ = par.reset(seed=3)
    assert par.acting_agents() == ["player_2", "player_3"]  # dealer 2 and their left neighbour
    mask_of = {a: obs[a]["action_mask"] for a in par.agents}
    wait = par.wait_action
    assert wait == 32 and par.action_space("player_0").n == 33
    assert np.flatnonzero(mask_of["player_0"]).tolist() == np.flatnonzero(mask_of["player_1"]).tolist() == [wait]
    assert not mask_of["player_2"][wait] and not mask_of["player_3"][wait]
    with pytest.raises(ValueError, match="player_3"):
        par.step({"player_2": int(np.flatnonzero(mask_of["player_2"])[0])})
    first = {a: int(np.flatnonzero(m)[0]) for a, m in mask_of.items()}
    strict = octrix_v0.parallel_env(num_players=4, partnership=True, dealer=2, illegal_action="raise")
    strict.reset(seed=3)
    with pytest.raises(IllegalActionError, match="player_0 does not act in this step"):
        strict.step({**first, "player_0": 0})  # a card instead of the wait
    actions = {"player_1": wait, "player_2": first["player_2"], "player_3": first["player_3"]}
    obs, *_ = par.step(actions)  # player_0 left out: an idle agent may omit its wait
    assert par.acting_agents() == ["player_0", "player_1"]
    # the second pair sees the first pair's cards face up
    played = [actions["player_2"], actions["player_3"]]
    table = obs["player_0"]["observation"][O_TABLE:O_TABLE + 4 * NUM_CARDS].reshape(4, NUM_CARDS)
    assert table[2, played[0]] == 1 and table[3, played[1]] == 1


@pytest.mark.parametrize("deal, message", [
    ([[0, 1, 2]], "2 players"),
    ([[0, 1, 2], [3, 4]], "has 2 cards; hand_size is 3"),
    ([[0, 1, 2], [3, 4, 2]], "also in the hand of player 0"),
    ([[0, 1, 1], [3, 4, 5]], "twice in that hand"),
    ([[0, 1, 2], [3, 4, 32]], "not in the deck"),
    ([[0, 1, 2], [3, 4, "x"]], "not an integer"),
    ("0 1 2", "list of 2 hands"),
])
def test_invalid_deal_raises_value_error(deal, message):
    env = octrix_v0.raw_env(**ROUND3)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options={"deal": deal})
    with pytest.raises(ValueError, match=message):
        octrix_v0.parallel_env(**ROUND3).reset(options={"deal": deal})


def test_deal_outside_a_reduced_deck_is_rejected():
    env = octrix_v0.raw_env(num_players=2, ranks=2, hand_size=3)
    with pytest.raises(ValueError, match=r"cards are 0\.\.7"):
        env.reset(options={"deal": [[0, 1, 2], [3, 4, 8]]})


# ---------------------------------------------------------------- illegal actions
def test_raw_env_illegal_action_raises_and_changes_nothing():
    env = octrix_v0.raw_env(**ROUND3)
    env.reset(seed=0, options={"deal": [[C_8, H_5, C_2], [H_A, S_8, D_A]]})
    before = env.game.to_bytes(env.state_record)
    with pytest.raises(IllegalActionError, match="♥A") as e:
        env.step(H_A)  # P1's card
    assert "player 0" in str(e.value)
    with pytest.raises(IllegalActionError, match="♠A"):
        env.step(S_A)  # nobody's card
    assert env.game.to_bytes(env.state_record) == before
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
    env.step(C_8)  # the game goes on
    assert env.agent_selection == "player_1"


def test_wrapped_env_illegal_action_ends_the_game_with_minus_one():
    env = octrix_v0.env(num_players=3)
    env.reset(seed=1)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # player_0 plays an illegal card
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(type(r) is float for r in env.rewards.values())  # PettingZoo's wrapper gave the others an int 0
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term and type(reward) is float
        seen[agent] = reward
        env.step(None)
    assert seen == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


@pytest.mark.parametrize("action", [True, False])
def test_wrapped_env_refuses_a_bool_before_the_terminate_wrapper_indexes_the_mask(action):
    # PettingZoo's TerminateIllegalWrapper indexed the mask with the bool (numpy's boolean indexing) and
    # failed with "truth value of an array is ambiguous"; AssertOutOfBoundsWrapper lets a bool through
    env = octrix_v0.env()
    env.reset(seed=0)
    before = env.unwrapped.state_record.copy()
    with pytest.raises(IllegalActionError, match=r"action (True|False) is not an action id"):
        env.step(action)
    assert env.unwrapped.state_record.tobytes() == before.tobytes() and not any(env.terminations.values())
    obs, *_ = env.last()
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # a numpy integer is an action id
    assert env.agent_selection == "player_1"


def test_parallel_illegal_action_terminates_or_raises():
    deal = [[C_8, H_5, C_2], [H_A, S_8, D_A]]
    par = octrix_v0.parallel_env(**ROUND3)
    par.reset(seed=0, options={"deal": deal})
    _, rewards, terms, _, _ = par.step({"player_0": C_8, "player_1": C_2})  # C_2 is P0's card
    assert rewards == {"player_0": 0.0, "player_1": -1.0} and all(terms.values()) and par.agents == []
    strict = octrix_v0.parallel_env(**ROUND3, illegal_action="raise")
    strict.reset(seed=0, options={"deal": deal})
    before = strict.game.to_bytes(strict.state_record)
    with pytest.raises(IllegalActionError, match="♣2"):
        strict.step({"player_0": C_8, "player_1": C_2})
    assert strict.game.to_bytes(strict.state_record) == before


@pytest.mark.parametrize("offender", ["player_0", "player_1"])
def test_parallel_illegal_end_zeros_the_final_masks_as_a_natural_end_does(offender):
    # the record is left as it was, so the final observations still carried its live masks
    deal = [[C_8, H_5, C_2], [H_A, S_8, D_A]]
    par = octrix_v0.parallel_env(**ROUND3)
    par.reset(seed=0, options={"deal": deal})
    actions = {"player_0": C_8, "player_1": H_A}
    actions[offender] = S_A  # nobody's card
    obs, rewards, terms, truncs, infos = par.step(actions)
    assert all(terms.values()) and not any(truncs.values()) and rewards[offender] == -1.0
    assert {a: int(o["action_mask"].sum()) for a, o in obs.items()} == {"player_0": 0, "player_1": 0}
    assert all(o["action_mask"].dtype == np.int8 and par.observation_space(a).contains(o) for a, o in obs.items())
    obs, _ = par.reset(seed=0, options={"deal": deal})  # a natural end, for comparison
    while par.agents:
        obs, *_ = par.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items() if a in par.agents})
    assert not any(o["action_mask"].any() for o in obs.values())


def test_wrapped_env_illegal_end_is_a_termination_not_a_truncation():
    # PettingZoo 1.27's TerminateIllegalWrapper marked every agent truncated as well; the Parallel env and
    # docs/faces.md report the end of a game as a termination (a truncation is an engine safety bound)
    env = octrix_v0.env(num_players=3)
    env.reset(seed=1)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # an illegal card
    assert all(env.terminations.values()) and not any(env.truncations.values())
    seen = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert term and not trunc and not obs["action_mask"].any()  # all-zero masks, as at a natural end
        seen[agent] = reward
        env.step(None)
    assert sorted(seen.values()) == [-1.0, 0.0, 0.0] and env.agents == []
    env.reset(seed=1)  # the next game is played as usual
    obs, _, term, trunc, _ = env.last()
    assert obs["action_mask"].any() and not term and not trunc and not any(env.truncations.values())


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
def test_each_agent_has_its_own_spaces(parallel):
    # one shared space object: seeding player_1's action space reseeded player_0's samples
    def build():
        return make_parallel_env("octrix-round", num_players=3) if parallel else make_env("achten", num_players=3)

    env = build()
    for space in (env.action_space, env.observation_space):
        assert space("player_0") is space("player_0")  # the same object on every call
        assert space("player_0") is not space("player_1") and space("player_0") == space("player_1")
    a0, a1 = env.action_space("player_0"), env.action_space("player_1")
    a0.seed(1)
    a1.seed(2)
    reference = gymnasium.spaces.Discrete(a0.n)
    reference.seed(1)
    assert [int(a0.sample()) for _ in range(8)] == [int(reference.sample()) for _ in range(8)]
    o0, o1 = env.observation_space("player_0"), env.observation_space("player_1")
    o0.seed(3)
    o1.seed(4)
    twin = build().observation_space("player_0")
    twin.seed(3)
    np.testing.assert_array_equal(o0.sample()["observation"], twin.sample()["observation"])


def test_render_ansi_is_the_engine_text():
    env = octrix_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=4)
    assert env.render() == env.game.render(env.state_record)
    assert env.render().startswith("Octrix (2 players)")


def test_match_rewards_sum_to_the_match_result():
    env = octrix_v0.raw_env(num_players=3, match=True, target=30)
    for seed in range(2):
        totals = _random_aec_game(env, seed)
        assert int(env.state_record["round"]) >= 1
        returns = env.game.returns(env.state_record)
        assert sorted(returns.tolist()) in ([-0.5, -0.5, 1.0], [0.0, 0.0, 0.0])
        assert totals == pytest.approx({a: returns[p] for p, a in enumerate(env.possible_agents)})


def test_envs_pickle(face):
    import pickle

    mod, cfg = face
    raw = pickle.loads(pickle.dumps(mod.raw_env(render_mode="ansi", **cfg)))
    par = pickle.loads(pickle.dumps(mod.parallel_env(illegal_action="raise", **cfg)))
    assert raw.game.config == par.game.config == mod.raw_env(**cfg).game.config
    assert par.illegal_action == "raise"
    raw.reset(seed=0)
    assert isinstance(raw.render(), str)


def test_achten_safety_bound_is_a_truncation_not_a_scored_end():
    # turn_cap=1 with 2 players: the first choice and one swap reach the bound (not a rule of the seed)
    from octagames.achten import cards
    from octagames.envs import achten_v0

    deal = [cards("♣8 ♦2 ♦6"), cards("♦3 ♦4 ♦5"), cards("♥8 ♠8 ♥4"), cards("♥5")]
    keep, swap00 = 0, 2
    env = achten_v0.raw_env(num_players=2, turn_cap=1)
    env.reset(seed=0, options={"deal": deal})
    env.step(keep)  # P1's first choice
    env.step(swap00)  # P0 keeps a nul hand (♥8 ♦2 ♦6) but the round stops unscored
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
    par = achten_v0.parallel_env(num_players=2, turn_cap=1)
    par.reset(seed=0, options={"deal": deal})
    par.step({"player_1": keep})
    _, rewards, terms, truncs, _ = par.step({"player_0": swap00})
    assert truncs == {"player_0": True, "player_1": True} and not any(terms.values())
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and par.agents == []
    # a pass before the bound ends the round by the rules: terminated, scored
    env.reset(seed=0, options={"deal": deal})
    for a in (keep, 15, 16):  # keep, P0 passes on nul, P1 stands
        env.step(a)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env._cumulative_rewards == pytest.approx({"player_0": 1.01, "player_1": -1.01})  # P1 deals next
    # a match stopped by its round cap (E2) without a winner is truncated too; P0's nul wins a match to 1
    for target, won in ((3.0, False), (1.0, True)):
        env = achten_v0.raw_env(num_players=2, match=True, target=target, max_rounds=1)
        env.reset(seed=0, options={"deal": deal})
        for a in (keep, 15, 16):
            env.step(a)
        assert all(env.terminations.values()) == won and all(env.truncations.values()) != won
        assert env._cumulative_rewards == ({"player_0": 1.0, "player_1": -1.0} if won else
                                           {"player_0": 0.0, "player_1": 0.0})


# ---------------------------------------------------------------- misuse, before reset, copies
def _first_legal(obs) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def test_nothing_runs_before_reset(face):
    # before: stepping an Octa raw_env before reset() never returned (the compiled step on an undealt record)
    mod, cfg = face
    raw, par = mod.raw_env(render_mode="ansi", **cfg), mod.parallel_env(render_mode="ansi", **cfg)
    calls = [lambda: raw.step(0), lambda: raw.observe("player_0"), raw.last, raw.state, raw.render,
             lambda: raw.state_record, lambda: par.step(dict.fromkeys(par.possible_agents, 0)), par.state,
             par.render, par.acting_agents, lambda: par.state_record]
    for call in calls:
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            call()
    raw.reset(seed=0)
    raw.step(_first_legal(raw.observe(raw.agent_selection)))
    obs, _ = par.reset(seed=0)
    par.step({a: _first_legal(obs[a]) for a in par.agents})


FACES_DOC = Path(__file__).resolve().parents[2] / "docs" / "faces.md"


def _before_reset_rows() -> list[list[str]]:
    """The rows (cells stripped) of the table in ``docs/faces.md`` of what each face raises before reset()."""
    lines = FACES_DOC.read_text().split("| face | before the first `reset()` | raises |\n", 1)[1].splitlines()
    rows = []
    for line in lines[1:]:  # after the rule
        if not line.strip().startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def _call_before_reset(env, name: str) -> None:
    """Call (or read) ``env.<name>`` as a user would before reset()."""
    if isinstance(env, GameParallelEnv):
        action = dict.fromkeys(env.possible_agents, 0)
    elif isinstance(env, VectorEnv):
        action = np.zeros(env.num_envs, dtype=np.int64)
    else:
        action = 0
    args = {"observe": ("player_0",), "step": (action,)}
    attr = getattr(env, name)
    if callable(attr):
        result = attr(*args.get(name, ()))
        if name == "agent_iter":
            list(result)


def test_the_errors_before_reset_are_the_ones_docs_faces_md_names():
    # before: the doc said every env raises RuntimeError, but env() and make_env() answer with PettingZoo's
    # OrderEnforcingWrapper (AssertionError, AttributeError), and gymnasium.make with Gymnasium's ResetNeeded
    envs = {"raw_env()": [lambda: octrix_v0.raw_env(render_mode="ansi"),
                          lambda: octrix_v0.parallel_env(render_mode="ansi"),
                          lambda: make_parallel_env("octrix", render_mode="ansi")],
            "env()": [lambda: octrix_v0.env(render_mode="ansi"), lambda: make_env("octrix", render_mode="ansi")],
            "SingleAgentEnv": [lambda: SingleAgentEnv("octrix", render_mode="ansi")],
            "gymnasium.make(...)": [lambda: gymnasium.make("octagames/Octrix-v0", render_mode="ansi")],
            "VectorEnv": [lambda: VectorEnv("octrix", 2)]}
    errors = {"RuntimeError": RuntimeError, "AssertionError": AssertionError, "AttributeError": AttributeError,
              "gymnasium.error.ResetNeeded": gymnasium.error.ResetNeeded}
    rows = _before_reset_rows()
    assert [row[0].split()[0] for row in rows] == ["PettingZoo"] * 4 + ["Gymnasium"] * 2 + ["vector", "OpenSpiel"]
    checked = 0
    for face, calls, raises in rows:
        names = re.findall(r"`([^`]+)`", face)
        if not names:  # OpenSpiel: no reset
            assert raises == "—"
            continue
        error = errors[re.findall(r"`([^`]+)`", raises)[0]]
        for make in envs[names[0]]:
            for name in re.findall(r"`(\w+)`", calls):
                env = make()
                inner = getattr(env, "unwrapped", env)
                if not (hasattr(type(inner), name) or name in vars(inner)):
                    continue  # a call of the other env of the row (observe: AEC only, acting_agents: Parallel)
                with pytest.raises(Exception) as raised:
                    _call_before_reset(env, name)
                assert type(raised.value) is error and "reset" in str(raised.value), (face, name, raised.value)
                checked += 1
    assert checked >= 30  # every row with a face is checked on its envs


def _aec_snapshot(env) -> tuple:
    """Everything of an AEC env's game in progress (the record, the bookkeeping, the seed stream)."""
    t = env.unwrapped._t
    return (env.game.to_bytes(t.s), list(env.agents), dict(env.rewards), dict(env._cumulative_rewards),
            dict(env.terminations), dict(env.truncations), repr(env.infos), env.agent_selection,
            repr(t.np_random.bit_generator.state), t.acting_seat, t.prev.tolist())


def _random_steps(env, rng, count: int) -> None:
    for _ in range(count):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_aec_copies_carry_the_game_in_progress(face):
    # before: a deepcopy was a fresh, undealt env keeping agents and selection (a hang, IndexError, -1 ...)
    import copy
    import pickle

    mod, cfg = face
    fresh = mod.raw_env(**cfg)
    for clone in (copy.deepcopy(fresh), pickle.loads(pickle.dumps(fresh))):  # before reset: still none
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            clone.step(0)
        clone.reset(seed=3)
        fresh.reset(seed=3)
        assert _aec_snapshot(clone) == _aec_snapshot(fresh)
    for make in (mod.raw_env, mod.env):  # env(): the wrapper stack's copy.copy shared the game with the original
        env = make(**cfg)
        env.reset(seed=5)
        rng = np.random.default_rng(5)
        _random_steps(env, rng, 6)
        clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env)), copy.copy(env)]
        assert all(c.unwrapped._t is not env.unwrapped._t for c in clones)
        while env.agents:
            assert [_aec_snapshot(c) for c in clones] == [_aec_snapshot(env)] * len(clones)
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            for e in (env, *clones):
                e.step(action)
        assert all(not c.agents for c in clones)
        for e in (env, *clones):  # the seed stream was carried too: the next games are the same
            e.reset()
        assert [_aec_snapshot(c) for c in clones] == [_aec_snapshot(env)] * len(clones)


def test_parallel_copies_carry_the_game_in_progress(face):
    # before: a pickled parallel_env was undealt, and its next step ended with every offender at -1
    import copy
    import pickle

    mod, cfg = face
    par = mod.parallel_env(**cfg)
    obs, _ = par.reset(seed=7)
    rng = np.random.default_rng(7)

    def choose(obs):
        return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}

    for _ in range(3):
        if par.agents:
            obs, *_ = par.step(choose(obs))
    clones = [copy.deepcopy(par), pickle.loads(pickle.dumps(par)), copy.copy(par)]

    def snap(e):
        return (e.game.to_bytes(e.state_record), list(e.agents), e.acting_agents(),
                repr(e._t.np_random.bit_generator.state), e._t.prev.tolist())

    while par.agents:
        assert [snap(c) for c in clones] == [snap(par)] * len(clones)
        actions = choose(obs)
        out = par.step(actions)
        for c in clones:
            got = c.step(actions)
            assert got[1:] == out[1:]
            assert all(np.array_equal(got[0][a][k], out[0][a][k]) for a in out[0] for k in out[0][a])
        obs = out[0]
    for e in (par, *clones):
        e.reset()
    assert [snap(c) for c in clones] == [snap(par)] * len(clones)


def test_actions_follow_the_integer_rule_of_game(face):
    # before: 8.7, '8', np.float32(1.9) were int()-ed into moves, None gave a bare TypeError
    mod, cfg = face
    raw = mod.raw_env(**cfg)
    raw.reset(seed=1)
    agent, legal = raw.agent_selection, _first_legal(raw.observe(raw.agent_selection))
    before = _aec_snapshot(raw)
    for bad in (legal + 0.7, str(legal), np.float32(legal + 0.9), None, [legal], np.array([legal])):
        with pytest.raises(IllegalActionError, match="is not an action id: actions are integers"):
            raw.step(bad)
        assert _aec_snapshot(raw) == before
    raw.step(np.array(legal))  # numpy integers (0-d arrays too) are action ids
    assert _aec_snapshot(raw) != before and agent in raw.agents
    for mode in ("raise", "terminate"):
        par = mod.parallel_env(illegal_action=mode, **cfg)
        obs, _ = par.reset(seed=1)
        offender = par.acting_agents()[0]
        actions = {a: _first_legal(obs[a]) for a in par.agents}
        bad = {**actions, offender: actions[offender] + 0.5}
        if mode == "raise":
            state = par.game.to_bytes(par.state_record)
            with pytest.raises(IllegalActionError, match=rf"{offender}: action .* is not an action id"):
                par.step(bad)
            assert par.game.to_bytes(par.state_record) == state
            par.step(actions)
        else:
            _, rewards, terms, _, infos = par.step(bad)
            assert rewards == {a: -1.0 if a == offender else 0.0 for a in rewards} and all(terms.values())
            assert "is not an action id" in infos[offender]["illegal_action"] and par.agents == []


def test_octrix_bool_float_and_string_cards_are_refused_not_played():
    deal = [[H_A, 8, 9], [D_A, S_A, 3]]  # player 0 holds cards 1 and 8: True and 8.7 used to play them
    env = octrix_v0.raw_env(**ROUND3)
    env.reset(seed=0, options={"deal": deal})
    before = env.game.to_bytes(env.state_record)
    for bad in (8.7, "8", True, np.float32(1.9), np.bool_(True)):
        with pytest.raises(IllegalActionError, match=re.escape(f"action {bad!r} is not an action id")):
            env.step(bad)
    assert env.game.to_bytes(env.state_record) == before and env.agent_selection == "player_0"
    wrapped = octrix_v0.env(**ROUND3)  # the same refusal through the wrappers (a float failed an assertion)
    wrapped.reset(seed=0, options={"deal": deal})
    for bad in (8.7, "8", True):
        with pytest.raises(IllegalActionError, match=re.escape(f"action {bad!r} is not an action id")):
            wrapped.step(bad)
    with pytest.raises(AssertionError):  # an id outside the action space: PettingZoo's own assertion
        wrapped.step(10**6)
    assert wrapped.unwrapped.agent_selection == "player_0"


def test_parallel_misuse_is_named():
    par = octrix_v0.parallel_env(num_players=4, partnership=True, dealer=2)
    obs, _ = par.reset(seed=3)
    first = {a: _first_legal(obs[a]) for a in par.agents}
    state = par.game.to_bytes(par.state_record)
    for bad, message in ((None, "must be a dict agent -> action"), ([0, 1], "must be a dict"),
                         ({**first, "player_9": 0}, r"\['player_9'\], which are not agents .* the live agents are"),
                         ({"player_2": first["player_2"]}, r"no action for \['player_3'\]")):
        with pytest.raises(ValueError, match=message):
            par.step(bad)
        assert par.game.to_bytes(par.state_record) == state
    wait = par.wait_action
    must_act = "player_2 must act; the wait action 32 is only for seats not to move"
    strict = octrix_v0.parallel_env(num_players=4, partnership=True, dealer=2, illegal_action="raise")
    strict.reset(seed=3)
    with pytest.raises(IllegalActionError, match=must_act):  # before: "out of range", though in the space
        strict.step({**first, "player_2": wait})
    with pytest.raises(IllegalActionError, match="player_0 does not act.*; player_3: .*cannot play"):
        strict.step({**first, "player_0": 5, "player_3": first["player_2"]})  # every offender, seat order
    assert strict.game.to_bytes(strict.state_record) == state
    _, rewards, terms, _, infos = par.step({**first, "player_2": wait})  # terminate: the penalty says why
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": -1.0, "player_3": 0.0}
    assert all(terms.values()) and must_act in infos["player_2"]["illegal_action"]
    assert infos["player_0"] == {}


def test_aec_misuse_is_named():
    env = octrix_v0.raw_env(**ROUND3)
    with pytest.raises(KeyError, match=r"'bob' is not an agent of this env; the agents are \['player_0'"):
        env.reset(seed=0) or env.observe("bob")
    with pytest.raises(IllegalActionError, match="action None is not an action id"):
        env.step(None)  # None only for an agent that is done
    _random_steps(env, np.random.default_rng(0), 100)
    assert not env.agents
    with pytest.raises(RuntimeError, match=r"every agent has left it: call reset\(\)"):
        env.step(None)


def test_refused_deal_leaves_the_env_as_it_was():
    bad = {"deal": [[0, 1, 2], [3, 4, 2]]}
    env, twin = octrix_v0.raw_env(**ROUND3), octrix_v0.raw_env(**ROUND3)
    with pytest.raises(ValueError, match="also in the hand of player 0"):
        env.reset(seed=0, options=bad)
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):  # still no game, not an undealt one
        env.step(0)
    for e in (env, twin):
        e.reset(seed=0)
        e.step(_first_legal(e.observe("player_0")))
    before = _aec_snapshot(env)
    for seed in (None, 9):
        with pytest.raises(ValueError, match="also in the hand of player 0"):
            env.reset(seed=seed, options=bad)
        assert _aec_snapshot(env) == before
    env.reset()
    twin.reset()
    assert _aec_snapshot(env) == _aec_snapshot(twin)


@pytest.mark.parametrize("name", ["octrix_v0", "achten_v0", "octiles_v0", "octa_v0"])
def test_module_docstring_import_line_imports_the_module(name):
    mod = importlib.import_module(f"octagames.envs.{name}")
    line = re.search(r"Import\s+(?:\|\s*)?``([^`]+)``", mod.__doc__).group(1)
    assert line == f"from octagames.envs import {name}"
    ns: dict = {}
    exec(line, ns)
    assert ns[name] is mod


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
def test_reset_takes_a_numpy_integer_seed_as_the_same_int_and_refuses_a_bool_naming_the_seed(parallel):
    # gymnasium's seeding refused np.int64(3) ("Seed must be a python integer") and took True as seed 1
    make = octrix_v0.parallel_env if parallel else octrix_v0.raw_env
    a, b = make(), make()
    a.reset(seed=np.int64(3))
    b.reset(seed=3)
    assert a.game.to_bytes(a.state_record) == b.game.to_bytes(b.state_record)
    before = a.game.to_bytes(a.state_record)
    for bad in [True, np.bool_(False), 3.0, "3", -1]:
        message = rf"seed={re.escape(repr(bad))} is not valid; it must be None or an integer >= 0"
        with pytest.raises(ValueError, match=message):
            a.reset(seed=bad)
        assert a.game.to_bytes(a.state_record) == before


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
def test_the_spaces_of_an_unknown_agent_are_refused_naming_the_agents(parallel):
    # a bare KeyError 'nobody' before (observe() named the agents already); a list was a TypeError
    env = (octrix_v0.parallel_env if parallel else octrix_v0.raw_env)()
    for space in (env.observation_space, env.action_space):
        for agent in ("nobody", 0, ["player_0"]):
            words = f"{agent!r} is not an agent of this env; the agents are ['player_0', 'player_1']"
            with pytest.raises(KeyError, match=re.escape(words)):
                space(agent)
    assert isinstance(env.action_space("player_1"), gymnasium.spaces.Discrete)


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
def test_reset_options_that_are_not_a_dict_are_refused_in_words_and_change_nothing(parallel):
    # AttributeError before: 'list' object has no attribute 'get'
    env = (octrix_v0.parallel_env if parallel else octrix_v0.raw_env)()
    env.reset(seed=0)
    before = env.game.to_bytes(env.state_record)
    for options in ([1], "deal", 3):
        message = f"options={options!r} is not valid; it must be a dict"
        with pytest.raises(ValueError, match=re.escape(message)):
            env.reset(seed=1, options=options)
        assert env.game.to_bytes(env.state_record) == before
