"""The Gymnasium single-agent face: Gymnasium's checker, reproducible play, masks, illegal moves,
opponents by agent spec, render modes by game."""

from __future__ import annotations

import pickle
import re
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import octagames.envs
from octagames import catalogue
from octagames.agents.base import Agent, RandomAgent, Turn
from octagames.agents.heuristics.octrix import OctrixHeuristicAgent
from octagames.agents.search.mcts import MCTSAgent
from octagames.agents.registry import AGENTS, make_agent
from octagames.envs._pettingzoo import render_modes
from octagames.envs.gym_wrapper import SingleAgentEnv, UnsupportedRenderModeError
from octagames.core import Game, IllegalActionError

# (variant, config kwargs over it, learning seat). Other games add themselves here. Octrix's bare
# name is the seed's match (here to 30, so that random games end soon); octrix-round a single round.
GYM_CONFIGS = [
    ("octrix-round", dict(num_players=2), 0),
    ("octrix", dict(num_players=2, target=30), 1),
    ("octrix-round", dict(num_players=3), 2),
    ("octrix-round", dict(num_players=4, partnership=True), 1),
    ("octrix-round", dict(num_players=2, ranks=2, hand_size=3), 0),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in c.items())}-seat{s}" for g, c, s in GYM_CONFIGS]


@pytest.fixture(params=GYM_CONFIGS, ids=IDS)
def setup(request):
    """``(game, config, seat)`` of one configuration."""
    return request.param


def _episode(env: SingleAgentEnv, seed: int) -> tuple[list, float]:
    """Play one episode with uniformly random legal learner actions; return the trajectory."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    traj, total, terminated, truncated = [obs.tobytes()], 0.0, False, False
    while not (terminated or truncated):
        mask = env.action_masks()
        assert mask.dtype == info["action_mask"].dtype == np.int8
        assert np.array_equal(mask, info["action_mask"]) and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        assert truncated == bool(env.game.kernels.truncated(env.state))  # only an engine cap truncates
        traj.append((action, obs.tobytes(), reward))
        total += reward
    return traj, total


def test_check_env(setup):
    game, cfg, seat = setup
    env = SingleAgentEnv(game, seat=seat, render_mode="ansi", **cfg)  # the defaults pass
    with warnings.catch_warnings():
        # without a registry spec the checker cannot build the env in its other render modes
        warnings.filterwarnings("ignore", message=".*not having a spec")
        check_env(env)


def test_full_episodes_against_random_agents_are_reproducible(setup):
    game, cfg, seat = setup
    a = SingleAgentEnv(game, seat=seat, **cfg)
    b = SingleAgentEnv(game, seat=seat, **cfg)
    for seed in range(3):
        traj_a, total = _episode(a, seed)
        traj_b, _ = _episode(b, seed)
        assert traj_a == traj_b
        assert a.game.is_terminal(a.state)
        assert total == pytest.approx(a.game.returns(a.state)[seat])  # rewards sum to the return
    assert _episode(a, 100)[0] != _episode(a, 101)[0]


def test_action_masks_match_the_engine(setup):
    game, cfg, seat = setup
    env = SingleAgentEnv(game, seat=seat, **cfg)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    terminated = False
    while not terminated:
        assert env.game.acting_player(env.state) == seat
        expected = env.game.legal_mask(env.state, seat)
        assert np.array_equal(env.action_masks(), expected) and expected.any()
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(expected))))
    assert env.action_masks().all()  # over: nothing is played, and a sampler still has something to draw


def test_opponents_only_see_their_own_information_state():
    class Spy(RandomAgent):
        def __init__(self) -> None:
            super().__init__()
            self.turns = 0

        def act(self, turn: Turn) -> int:
            true_view = turn.game.observation(turn.state, turn.seat)
            assert np.array_equal(true_view, turn.observation)  # determinized, consistent
            self.turns += 1
            return super().act(turn)

    spies = {0: Spy(), 2: Spy()}
    env = SingleAgentEnv("octrix-round", seat=1, opponents=spies, num_players=3)  # one round: 8 tricks
    _episode(env, 0)
    assert spies[0].turns == 8 and spies[2].turns == 8


def test_illegal_action_raise_and_terminate():
    env = SingleAgentEnv("octrix", seat=0, num_players=2, illegal_action="raise")
    env.reset(seed=3)
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    before = env.game.to_bytes(env.state)
    with pytest.raises(IllegalActionError, match=env.game.action_to_string(env.state, bad)):
        env.step(bad)
    assert env.game.to_bytes(env.state) == before
    soft = SingleAgentEnv("octrix", seat=0, num_players=2)  # "terminate", the default
    soft.reset(seed=3)
    _, reward, terminated, truncated, _ = soft.step(bad)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    with pytest.raises(RuntimeError, match=r"^the episode is over; call reset\(\)$"):
        soft.step(bad)


def test_fixed_deal_and_scripted_opponent():
    class Lowest(Agent):
        def act(self, turn: Turn) -> int:
            return int(turn.legal_actions[0])

    # ♣8 ♥5 ♣2 against ♥A ♠8 ♦A; the opponent always plays its lowest card
    env = SingleAgentEnv("octrix-round", seat=0, opponents=[Lowest()], num_players=2, hand_size=3)
    env.reset(seed=0, options={"deal": [[31, 17, 7], [1, 30, 0]]})
    rewards = []
    for card in (31, 17, 7):  # P1 answers ♦A, ♥A, ♠8
        _, reward, terminated, _, _ = env.step(card)
        rewards.append(reward)
    # trick 1: ♣8 beats ♦A (highest wins); black/red -> trick 2 to the lowest: ♥A beats ♥5;
    # red/red -> trick 3 to the highest: ♠8 beats ♣2. P0 takes card 1 (1 point), P1 2 and 3 (4).
    assert env.state["trick_winner"][:3].tolist() == [0, 1, 1]
    assert terminated and rewards == [0.0, 0.0, -3.0]


@pytest.mark.parametrize("mode", ["raise", "terminate"])
def test_a_bool_is_refused_not_played_as_action_1(mode):
    env = SingleAgentEnv("octrix-round", num_players=2, hand_size=3, illegal_action=mode)
    for bad in (True, np.True_, np.array(True)):
        env.reset(seed=0, options={"deal": [[1, 17, 7], [31, 30, 0]]})  # the learner holds card 1 (♥A)
        assert env.action_masks()[1]
        before = env.game.to_bytes(env.state)
        if mode == "raise":
            with pytest.raises(IllegalActionError, match="is not an action id"):
                env.step(bad)
            assert env.game.to_bytes(env.state) == before
            assert env.step(1)[2] is False  # card 1 itself is played
        else:
            _, reward, terminated, truncated, _ = env.step(bad)
            assert (reward, terminated, truncated) == (-1.0, True, False)
            assert env.game.to_bytes(env.state) == before


def test_every_face_takes_the_same_action_ids():
    """The Gymnasium face played a torch tensor of one element (``[1]`` too) and refused a numpy array of one
    element, where the PettingZoo faces and Game refused every torch tensor: one rule now (``core.action_id``)."""
    import torch  # the train extra, which make test installs

    from octagames.envs import octrix_v0

    deal, cfg = [[1, 17, 7], [31, 30, 0]], dict(num_players=2, hand_size=3)  # player 0 holds card 1 (♥A)
    ids = [int, np.int64, np.array, torch.tensor, lambda a: torch.tensor(a, dtype=torch.uint8)]  # of a legal a
    not_ids = [lambda a: True, lambda a: np.True_, lambda a: np.array(True), lambda a: torch.tensor(True), float,
               lambda a: torch.tensor(float(a)), lambda a: np.array([a]), lambda a: torch.tensor([a]),
               lambda a: [a], str, lambda a: None]

    def gym(as_given):
        env = SingleAgentEnv("octrix-round", illegal_action="raise", **cfg)
        env.reset(seed=0, options={"deal": deal})
        env.step(as_given(1))

    def aec(as_given):
        env = octrix_v0.raw_env(variant="octrix-round", **cfg)
        env.reset(seed=0, options={"deal": deal})
        env.step(as_given(1))

    def par(as_given):
        env = octrix_v0.parallel_env(variant="octrix-round", illegal_action="raise", **cfg)
        obs, _ = env.reset(seed=0, options={"deal": deal})
        env.step({"player_0": as_given(1), "player_1": int(np.flatnonzero(obs["player_1"]["action_mask"])[0])})

    def rules(as_given):
        game = Game("octrix-round", **cfg)
        s = game.new_state(0)
        game.play_chance(s)
        game.apply_action(s, as_given(game.legal_actions(s)[0]))

    for face in (gym, aec, par, rules):
        for as_given in ids:
            face(as_given)  # an action id: played
        for as_given in not_ids[:-1] if face is par else not_ids:  # None in a Parallel step: "no action"
            with pytest.raises(IllegalActionError, match="is not an action id"):
                face(as_given)


@pytest.mark.parametrize("seed", [None, 9])
def test_a_refused_deal_leaves_the_env_exactly_as_it_was(seed):
    # the record used to be replaced before the deal was refused: an all-zero mask, and the next
    # step dealt the learner's action as a chance outcome
    env = SingleAgentEnv("octrix-round", num_players=2, illegal_action="raise")
    twin = SingleAgentEnv("octrix-round", num_players=2, illegal_action="raise")
    for e in (env, twin):
        e.reset(seed=0)
        e.step(int(np.flatnonzero(e.action_masks())[0]))
    before, mask = env.game.to_bytes(env.state), env.action_masks()
    with pytest.raises(ValueError, match="deal has 1 hands but the game has 2 players"):
        env.reset(seed=seed, options={"deal": [[0, 0]]})
    assert env.game.to_bytes(env.state) == before and np.array_equal(env.action_masks(), mask) and mask.any()
    action = int(np.flatnonzero(mask)[0])
    assert _same_step(env.step(action), twin.step(action))  # the episode goes on as the twin's
    assert _same_step(env.reset(), twin.reset())  # and so does the seed stream
    done = SingleAgentEnv("octrix-round", num_players=2)
    with pytest.raises(ValueError, match="deal"):
        done.reset(seed=seed, options={"deal": [[0, 0]]})  # before any episode: still none
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)$"):  # not "the episode is over"
        done.step(action)


def _same_step(a: tuple, b: tuple) -> bool:
    """Whether two results of ``step`` or ``reset`` are equal (arrays compared by value)."""
    flat = [(x, y) for u, v in zip(a, b, strict=True)
            for x, y in (zip(u.values(), v.values(), strict=True) if isinstance(u, dict) else [(u, v)])]
    return all(np.array_equal(x, y) for x, y in flat)


def test_bad_arguments():
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("octrix", seat=2, num_players=2)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("octrix", illegal_action="penalize")  # one name everywhere: "terminate"
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv("octrix", seat=0, opponents=[RandomAgent()], num_players=3)
    with pytest.raises(ValueError, match="seats"):
        SingleAgentEnv("octrix", seat=0, opponents={0: RandomAgent()}, num_players=2)
    with pytest.raises(ValueError, match="num_players"):
        SingleAgentEnv("octrix", num_players=9)
    with pytest.raises(ValueError, match=r"agent='hero' is not valid; valid agents: \[.*'heuristic'.*'mcts'"):
        SingleAgentEnv("octrix", opponents=["hero"], num_players=2)
    with pytest.raises(ValueError, match="mcts"):
        SingleAgentEnv("octrix", opponents="mcts:many", num_players=2)  # a bad argument of a known agent
    with pytest.raises(TypeError, match="agent spec such as 'heuristic'"):
        SingleAgentEnv("octrix", opponents=[7], num_players=2)


@pytest.mark.parametrize("opponents, message", [
    ({"1": "random"}, r"opponents has the key '1', which is not a seat; valid keys: the seats \[1\]"),
    ({"x": "random"}, r"opponents has the key 'x', which is not a seat; valid keys: the seats \[1\]"),
    ({True: "random"}, r"opponents has the key True, which is not a seat"),
    (RandomAgent(), r"opponents=RandomAgent\('random'\) is not valid; valid values: an agent spec for every seat"),
    (7, r"opponents=7 is not valid; valid values: .*a sequence of one agent or spec per seat \[1\]"),
], ids=["string-seat", "name", "bool-seat", "one-agent", "int"])
def test_bad_opponents_are_refused_naming_the_field_and_the_valid_values(opponents, message):
    with pytest.raises(ValueError, match=message):
        SingleAgentEnv("octrix", seat=0, opponents=opponents, num_players=2)
    env = SingleAgentEnv("octrix", seat=0, opponents={np.int64(1): "random"}, num_players=2)  # a numpy seat
    assert list(env.opponents) == [1]



def test_the_opponents_mapping_docs_faces_shows_builds_and_a_partial_one_is_refused():
    text = (Path(__file__).resolve().parents[2] / "docs" / "faces.md").read_text()
    example = re.search(r"`(gymnasium\.make\(\"octagames/Octrix-v0\".*?opponents=\{.*?\}\))`", text).group(1)
    env = eval(example, {"gymnasium": gymnasium})  # noqa: S307 - the docs' own example
    env.reset(seed=0)
    assert {p: a.name for p, a in env.unwrapped.opponents.items()} == {1: "random", 2: "heuristic"}
    with pytest.raises(ValueError, match=r"opponents must cover exactly the seats \[1, 2\], got seats \[2\]"):
        SingleAgentEnv("octrix", seat=0, opponents={2: "heuristic"}, num_players=3)

@pytest.mark.parametrize("reward", ["x", float("nan"), float("-inf"), None])
def test_a_bad_illegal_reward_is_refused_naming_the_field(reward):
    with pytest.raises(ValueError, match=r"illegal_reward=.* is not valid; it must be a finite number"):
        SingleAgentEnv("octrix", illegal_reward=reward)
    assert SingleAgentEnv("octrix", illegal_reward=-5).illegal_reward == -5.0


def test_render_is_the_learning_seats_view():
    env = SingleAgentEnv("octrix", seat=1, num_players=2, render_mode="ansi")
    env.reset(seed=2)
    assert env.render() == env.game.render(env.state, viewer=1)
    assert "has played face down" in env.render()  # seat 0 committed before seat 1's turn


@pytest.mark.parametrize("seat, cfg", [(0, dict(num_players=2, deal_penalty=1.0)), (3, dict(num_players=4))],
                         ids=["deal_penalty-seat0", "4p-seat3"])
def test_reset_never_hands_back_a_game_the_learner_cannot_act_in(seat, cfg):
    # some Achten games end before the learner's first decision (2 and 1 in these 2000 seeds)
    env = SingleAgentEnv("achten", seat=seat, **cfg)
    skipped_seeds = []
    for seed in range(2000):
        _, info = env.reset(seed=seed)
        assert env.game.acting_player(env.state) == seat and env.action_masks().any()
        assert np.array_equal(info["action_mask"], env.action_masks())
        if info["skipped_games"]:
            skipped_seeds.append(seed)
            assert env.game.min_utility <= info["skipped_return"] <= env.game.max_utility
        else:
            assert info["skipped_return"] == 0.0
    assert skipped_seeds  # the case is met
    for seed in skipped_seeds:  # the episode handed back is a whole game of its own
        traj, total = _episode(env, seed)
        assert total == pytest.approx(env.game.returns(env.state)[seat]) and len(traj) > 1


@pytest.mark.parametrize("game, cfg, seat", [("achten", dict(num_players=2, deal_penalty=1.0), 0),
                                             ("achten", dict(num_players=4), 3),
                                             ("octrix", dict(num_players=4, partnership=True), 3),
                                             ("octiles", dict(num_players=3), 2),
                                             ("octa", dict(rules="nl"), 1)])
def test_no_mask_is_all_zero_while_the_episode_is_on(game, cfg, seat):
    env = SingleAgentEnv(game, seat=seat, **cfg)
    episodes = 300 if game == "achten" else 3
    for seed in range(episodes):
        _episode(env, seed)  # asserts a non-empty mask at every step it takes
        assert env.action_masks().all()  # and a full one once it is over (Pgx's terminal mask)


# ------------------------------------------------------------------ opponents by agent spec
def test_opponents_by_spec_build_one_agent_per_seat_as_the_registry_does():
    env = gymnasium.make("octagames/Octrix-v0", opponents=["heuristic"])  # TypeError before
    assert isinstance(env.unwrapped.opponents[1], OctrixHeuristicAgent)
    env = SingleAgentEnv("octrix", seat=1, opponents="mcts:50", num_players=3)  # one spec, every seat
    mcts = [env.opponents[0], env.opponents[2]]
    assert all(isinstance(a, MCTSAgent) and a.name == "mcts:50" for a in mcts) and mcts[0] is not mcts[1]
    mixed = SingleAgentEnv("octrix", seat=0, opponents={1: "heuristic", 2: RandomAgent()}, num_players=3)
    assert isinstance(mixed.opponents[1], OctrixHeuristicAgent) and type(mixed.opponents[2]) is RandomAgent
    assert set(AGENTS) >= {"random", "heuristic", "mcts"}


def test_a_spec_plays_exactly_as_the_agent_it_names():
    by_spec = SingleAgentEnv("octrix", seat=0, opponents=["heuristic", "mcts:20"], num_players=3)
    by_object = SingleAgentEnv("octrix", seat=0, num_players=3,
                               opponents=[make_agent("heuristic", "octrix"), make_agent("mcts:20", "octrix")])
    for seed in range(3):
        assert _episode(by_spec, seed) == _episode(by_object, seed)


# ------------------------------------------------------------------ render modes by game
@pytest.mark.parametrize("gym_id", sorted(octagames.envs.GYMNASIUM_IDS))
def test_each_id_lists_in_its_class_metadata_the_render_modes_its_game_has(gym_id):
    name = octagames.envs.GYMNASIUM_IDS[gym_id]
    game = catalogue.variant(name).game
    creator = gymnasium.envs.registration.load_env_creator(gymnasium.spec(gym_id).entry_point)
    assert creator.metadata["render_modes"] == render_modes(game)  # what gymnasium.make reads
    for mode in ("ansi", "human"):
        assert gymnasium.make(gym_id, render_mode=mode).unwrapped.render_mode == mode
    assert "rgb_array" in creator.metadata["render_modes"]  # every game draws pictures
    with pytest.raises(UnsupportedRenderModeError, match="valid values") as refused:
        SingleAgentEnv(name, render_mode="video")
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, TypeError)
    other = "achten" if game != "achten" else "octrix"
    with pytest.raises(ValueError, match=f"game='{other}' is not valid"):  # an id plays its own game
        gymnasium.make(gym_id, game=other)


def test_a_games_id_takes_variant_as_the_pettingzoo_modules_do():
    # gymnasium.make("octagames/Octa-v0", variant="octa-nl") failed: "unknown config field(s) ['variant']"
    env = gymnasium.make("octagames/Octa-v0", variant="octa-nl")
    assert env.unwrapped.game.config == Game("octa-nl").config != Game("octa").config
    assert gymnasium.make("octagames/Octa-v0", game="octa-nl", variant="octa-nl").unwrapped.game.config == \
        env.unwrapped.game.config
    with pytest.raises(ValueError, match=r"game='octa-en' and variant='octa-nl' name two variants"):
        gymnasium.make("octagames/Octa-v0", game="octa-en", variant="octa-nl")
    with pytest.raises(ValueError, match=r"variant='octrix-round' is not valid for OctaEnv"):
        gymnasium.make("octagames/Octa-v0", variant="octrix-round")
    assert pickle.loads(pickle.dumps(env.unwrapped)).game.config == env.unwrapped.game.config


def test_reset_takes_a_numpy_integer_seed_as_the_same_int_and_refuses_a_bool_naming_the_seed():
    # gymnasium's seeding refused np.int64(3) ("Seed must be a python integer") and took True as seed 1
    a, b = SingleAgentEnv("octrix-round"), SingleAgentEnv("octrix-round")
    assert np.array_equal(a.reset(seed=np.int64(3))[0], b.reset(seed=3)[0])
    before = a.game.to_bytes(a.state)
    for bad in [True, np.bool_(False), 3.0, "3", -1]:
        message = rf"seed={re.escape(repr(bad))} is not valid; it must be None or an integer >= 0"
        with pytest.raises(ValueError, match=message):
            a.reset(seed=bad)
        assert a.game.to_bytes(a.state) == before


def test_reset_options_that_are_not_a_dict_are_refused_in_words_and_change_nothing():
    # AttributeError before: 'list' object has no attribute 'get'
    env = SingleAgentEnv("octrix-round")
    env.reset(seed=0)
    before = env.game.to_bytes(env.state)
    for options in ([1], "deal", 3):
        message = f"options={options!r} is not valid; it must be a dict"
        with pytest.raises(ValueError, match=re.escape(message)):
            env.reset(seed=1, options=options)
        assert env.game.to_bytes(env.state) == before
