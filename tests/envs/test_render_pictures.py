"""Pictures (``octagames.envs.pictures``): SVG and RGB of every game, what a seat may see, clickable moves,
and the ``rgb_array`` render mode of every game's PettingZoo and Gymnasium envs."""

import importlib
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from octagames import catalogue
from octagames.core import Game
from octagames.envs import pictures
from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.testing import leak_check, play_recorded, random_chooser, replay

SVG = "{http://www.w3.org/2000/svg}"
#: (variant, extra config): 2 to 6 seats, both Octa rulebooks, Octrix's partnership and match
CONFIGS = [("octrix-round", {"num_players": 3}), ("octrix-partnership", {}), ("octrix", {"target": 20}),
           ("achten", {"num_players": 2}), ("achten", {"num_players": 5}), ("octiles", {"num_players": 3}),
           ("octiles", {"num_players": 4, "team": True}), ("octa", {}), ("octa-nl", {})]
#: games whose seats are hidden something that determinize resamples (the leak test must be able to fail)
HIDDEN = ("achten", "octa")


def _game_states(name: str, config: dict, seed: int = 1, count: int = 7) -> tuple[Game, list[np.void], list[int]]:
    """A random game of ``name`` and ``count`` of its decision states, spread over it."""
    game = Game(name, **config)
    actions = play_recorded(game, seed, [random_chooser(np.random.default_rng(seed))] * game.num_players)
    states = replay(game, seed, actions)
    decisions = [s for s in states if not game.is_chance(s) and not game.is_terminal(s)]
    picks = [decisions[int(k)] for k in np.linspace(0, len(decisions) - 1, count)] + [states[-1]]
    return game, picks, actions


def _actions_of(svg: str) -> dict[int, str]:
    """``{data-action: title}`` of the clickable groups of an SVG."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if "data-action" in g.attrib:
            a = int(g.attrib["data-action"])
            assert a not in out, f"action {a} drawn twice"
            assert "move" in g.attrib["class"].split()
            out[a] = g.find(f"{SVG}title").text
    return out


@pytest.mark.parametrize("name,config", CONFIGS, ids=[f"{n}-{c}" for n, c in CONFIGS])
def test_every_seat_sees_only_what_it_may_and_clicks_exactly_the_legal_moves(name, config):
    game, states, _ = _game_states(name, config)
    differs = 0
    for s in states:
        assert ET.fromstring(pictures.svg(game, s)).tag == f"{SVG}svg"
        acting = game.acting_player(s)
        for v in range(game.num_players):
            mine = pictures.svg(game, s, v, clickable=True)
            clicks = _actions_of(mine)
            ids = re.findall(r' id="([^"]+)"', mine)
            assert len(ids) == len(set(ids)), "element ids repeat"
            if v == acting and not game.is_terminal(s):
                legal = game.legal_actions(s, v)
                assert sorted(clicks) == legal
                assert clicks == {a: game.action_to_string(s, a) for a in legal}
            elif game.is_terminal(s):
                assert clicks == {}
            # the seat's picture is the same in every world consistent with what it saw
            for seed in range(2):
                other = game.determinize(s, v, seed)
                assert pictures.svg(game, other, v, clickable=True) == mine, f"seat {v} sees a resampled card"
                differs += pictures.svg(game, other) != pictures.svg(game, s)
    if game.name in HIDDEN:
        assert differs > 0, "determinize resampled nothing the all-seeing picture shows: the check has no power"


@pytest.mark.parametrize("name,config", [("achten", {"num_players": 3}), ("octa", {}), ("octrix-round", {})])
def test_resampled_worlds_of_the_leak_test_show_a_seat_the_same_picture(name, config):
    game = Game(name, **config)
    actions = play_recorded(game, 5, [random_chooser(np.random.default_rng(5))] * game.num_players)
    compared = []

    def same_picture(a, b, seat):
        assert pictures.svg(game, a, seat, clickable=True) == pictures.svg(game, b, seat, clickable=True)
        compared.append(seat)

    leak_check(game, 5, actions, np.random.default_rng(0), worlds=2, on_pair=same_picture)
    assert compared


@pytest.mark.parametrize("name,config", CONFIGS[::2], ids=[n for n, _ in CONFIGS[::2]])
def test_rgb_is_a_picture_of_the_position(name, config):
    game, states, _ = _game_states(name, config, count=3)
    first, last = pictures.rgb(game, states[0]), pictures.rgb(game, states[-1], 0)
    for img in (first, last):
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and min(img.shape[:2]) >= 300
        assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # a drawing, not a blank canvas
    assert first.shape == last.shape and np.abs(first.astype(int) - last.astype(int)).sum() > 0
    assert pictures.rgb(game, states[0], scale=0.5).shape[1] == round(first.shape[1] / 2)


def test_a_bad_seat_or_a_record_of_another_game_is_refused():
    game = Game("achten", num_players=3)
    s = game.new_state(0)
    with pytest.raises(ValueError, match="player=3"):
        pictures.svg(game, s, 3)
    with pytest.raises(ValueError):
        pictures.svg(Game("octrix-round"), s)


def test_ids_of_a_seat_picture_name_places_not_hidden_cards():
    game, states, _ = _game_states("achten", {"num_players": 4}, count=3)
    for s in states:
        ids = re.findall(r' id="([^"]+)"', pictures.svg(game, s, 1))
        assert len(ids) == len(set(ids)) and "pot-0" in ids and "hand-3-2" in ids


@pytest.mark.parametrize("game", catalogue.games())
def test_every_game_renders_rgb_array_in_its_pettingzoo_and_gymnasium_envs(game):
    module = importlib.import_module(f"octagames.envs.{game}_v0")
    env = module.raw_env(render_mode="rgb_array")
    env.reset(seed=3)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    for _ in range(8):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    later = env.render()
    assert later.shape == first.shape and np.abs(later.astype(int) - first.astype(int)).sum() > 0
    gym = SingleAgentEnv(game, seat=0, render_mode="rgb_array")
    gym.reset(seed=2)
    img = gym.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and len(np.unique(img.reshape(-1, 3), axis=0)) > 20


def test_unknown_render_mode_is_refused_with_the_valid_modes():
    from octagames.envs import octiles_v0
    with pytest.raises(ValueError, match="rgb_array"):
        octiles_v0.raw_env(render_mode="video")


def test_without_pillow_the_svg_is_drawn_and_the_array_names_the_render_extra(monkeypatch):
    game = Game("octrix-round")
    s = game.new_state(0)
    game.play_chance(s)
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now fails as in an install without it
    assert ET.fromstring(pictures.svg(game, s, 0, clickable=True)).tag == f"{SVG}svg"
    with pytest.raises(ModuleNotFoundError, match=re.escape("pip install 'octagames[render]'")):
        pictures.rgb(game, s)
    from octagames.envs import octrix_v0
    with pytest.raises(ModuleNotFoundError, match=re.escape("octagames[render]")):
        octrix_v0.raw_env(render_mode="rgb_array")


@pytest.mark.parametrize("variant", catalogue.names())
def test_every_variant_draws_its_positions(variant):
    game, states, _ = _game_states(variant, {}, seed=2, count=3)
    for s in states:
        for seat in (None, *range(game.num_players)):
            clicks = _actions_of(pictures.svg(game, s, seat, clickable=True))
            assert sorted(clicks) == ([] if game.is_terminal(s) else game.legal_actions(s, seat))


def test_rgb_refuses_a_scale_that_is_not_a_positive_number_and_draws_any_small_one():
    # Pillow's "font size must be greater than 0, not -30" (or NaN's int() error) before, and a scale
    # under about 0.05 failed the same way: its text rounded to size 0
    g = Game("octrix-round")
    s = g.new_state(0)
    g.play_chance(s)
    for scale in (0, -1, float("nan"), float("inf"), "2", True):
        message = f"scale={scale!r} is not valid; it must be a finite number > 0"
        with pytest.raises(ValueError, match=re.escape(message)):
            pictures.rgb(g, s, scale=scale)
    assert pictures.rgb(g, s, scale=0.01).ndim == 3 and pictures.rgb(g, s, scale=np.float32(0.5)).ndim == 3
