"""The conventions table of ``docs/faces.md`` is what the faces do (point 6 of the ecosystem issue)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import gymnasium
import numpy as np
import pyspiel
import pytest

import octagames.envs
import octagames.envs.openspiel  # noqa: F401  (registers the pyspiel games)
from octagames.core import GAME_NAMES, IllegalActionError, make_game
from octagames.envs import achten_v0, octa_v0, octiles_v0, octrix_v0
from octagames.envs._pettingzoo import ILLEGAL_ACTION_MODES, GameAECEnv, GameParallelEnv
from octagames.envs.gym_wrapper import SingleAgentEnv
from octagames.envs.vector import VectorEnv, make

DOC = (Path(__file__).resolve().parents[2] / "docs" / "faces.md").read_text()


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table under ``heading`` (cells stripped, header and rule left out)."""
    lines = DOC.split(f"## {heading}\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        block.append(line)
    return [[c.strip() for c in line.strip("|").split("|")] for line in block[2:]]


def _face(cell: str) -> str:
    return cell.split("(")[0].strip().split()[0].lower()


def test_mask_dtypes_are_those_of_the_table():
    documented = {_face(row[0]): row[2] for row in _table("Legal-action masks")}
    aec = octrix_v0.raw_env()
    aec.reset(seed=0)
    par = achten_v0.parallel_env()
    obs, _ = par.reset(seed=0)
    gym_env = gymnasium.make("octagames/Octiles-v0")
    _, info = gym_env.reset(seed=0)
    vec = make("octa", 2, seed=0)
    _, vinfo = vec.reset()
    state = pyspiel.load_game("octagames_octrix").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    actual = {
        "pettingzoo": {str(aec.observe("player_0")["action_mask"].dtype), str(obs["player_0"]["action_mask"].dtype)},
        "gymnasium": {str(info["action_mask"].dtype), str(gym_env.unwrapped.action_masks().dtype)},
        "vector": {str(vinfo["action_mask"].dtype), str(vec.action_mask.dtype)},
        "openspiel": {"list of int"} if all(isinstance(a, int) for a in state.legal_actions(0)) else set(),
    }
    assert documented == {"pettingzoo": "int8", "gymnasium": "int8", "vector": "bool", "openspiel": "list of int"}
    assert {face: {documented[face]} for face in actual} == actual


def test_illegal_action_policies_are_those_of_the_table():
    rows = {row[0].replace("`", ""): (row[1], row[2]) for row in _table("Illegal actions")}
    assert set(ILLEGAL_ACTION_MODES) == {"raise", "terminate"}
    defaults = {"PettingZoo parallel_env()": octrix_v0.parallel_raw_env, "Gymnasium": SingleAgentEnv}
    for face, cls in defaults.items():
        assert inspect.signature(cls).parameters["illegal_action"].default == rows[face][0]
    for mode in ("penalize", "ignore"):  # one name everywhere, refused alike
        for build in (lambda m: octrix_v0.parallel_env(illegal_action=m), lambda m: SingleAgentEnv(illegal_action=m)):
            with pytest.raises(ValueError, match=re.escape("valid values: ['raise', 'terminate']")):
                build(mode)
    assert rows["PettingZoo env()"][0] == "terminate" and rows["PettingZoo raw_env()"][0] == "raise"
    wrapped, raw = octrix_v0.env(), octrix_v0.raw_env()
    for env in (wrapped, raw):
        env.reset(seed=0)
    bad = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    wrapped.step(bad)
    assert wrapped.terminations[wrapped.agent_selection] and -1.0 in wrapped.rewards.values()
    with pytest.raises(IllegalActionError):
        raw.step(bad)
    assert rows["vector"][0] == "raise" and rows["OpenSpiel"][0] == "raise"
    vec = make("octrix", 2, seed=0)
    vec.reset()
    actions = vec.sample_actions()
    actions[0] = int(np.flatnonzero(~vec.action_mask[0])[0])
    with pytest.raises(ValueError, match="illegal actions, no game was stepped"):
        vec.step(actions)


@pytest.mark.parametrize("module", [octrix_v0, achten_v0, octiles_v0, octa_v0])
def test_every_env_reports_its_own_name_and_render_fps(module):
    for env in (module.raw_env(), module.parallel_env(), module.env()):
        assert env.metadata["name"] == module.__name__.rsplit(".", 1)[1]
        assert env.metadata["render_fps"] > 0
    for name in GAME_NAMES:  # the generic envs of every game, named for the game
        assert GameAECEnv(name).metadata["name"] == GameParallelEnv(name).metadata["name"] == f"{name}_v0"


def _config_of(made):
    """The config of what a face built: a Game, a PettingZoo, Gymnasium or vector env, a pyspiel game."""
    if hasattr(made, "octagame"):
        return made.octagame.config
    inner = getattr(made, "unwrapped", made)
    return getattr(inner, "game", inner).config


def test_every_way_to_open_a_variant_in_the_table_opens_it():
    rows = _table("Variants: one name in every face")
    assert [_face(row[0]) for row in rows] == ["rules", "pettingzoo", "gymnasium", "vector", "openspiel"]
    expected = make_game("octa-nl").config
    assert expected.rules == "nl"
    names = {"make_game": make_game, "octagames": octagames, "octa_v0": octa_v0, "gymnasium": gymnasium,
             "pyspiel": pyspiel, "VectorEnv": VectorEnv}
    for row in rows:
        calls = re.findall(r"`([^`]+)`", row[2])
        assert calls, row
        for call in calls:
            made = eval(call, dict(names))  # noqa: S307 - the doc's own examples
            assert _config_of(made) == expected, call
