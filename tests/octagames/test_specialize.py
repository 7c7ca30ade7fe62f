"""octagames.specialize: one mechanism for compiled entry points, cached on disk, never stale."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from octagames import specialize
from octagames.core import GAME_NAMES

ROOT = Path(__file__).resolve().parents[2]

# A test game: Octrix whose legal moves also pass through a helper in *another* module of its
# package. numba's own cache would not notice an edit of that helper; the digest must.
TGAME_INIT = """
from octagames.octrix import (INFO, STATE_DTYPE, Config, acting_player, action_to_string, apply_action,
                              chance_outcomes, current_player, determinize, illegal_reason, observation,
                              render, reset, returns, sample_chance, write_config)
from tgame.rules import legal_mask
"""
TGAME_RULES = """
import numba as nb
from octagames.octrix import legal_mask as octrix_mask
from tgame.helper import keep


@nb.njit
def legal_mask(s, player, out):
    octrix_mask(s, player, out)
    n = 0
    for a in range(out.shape[0]):
        if out[a] and not keep(a):
            out[a] = 0
        n += out[a]
    return n
"""
TGAME_HELPER = """
import numba as nb


@nb.njit
def keep(a):
    return a % 2 == {parity}
"""
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import tgame
from octagames.core import Game
from octagames.octrix import legal_mask
g = Game(tgame)
s = g.new_state(seed=5)
g.play_chance(s)
full = np.zeros(g.num_actions, np.uint8)
legal_mask(s, g.acting_player(s), full)
stats = g.kernels.legal_mask.stats
print(json.dumps({"legal": g.legal_actions(s), "octrix": np.flatnonzero(full).tolist(),
                  "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "file": g.kernels.__file__}))
"""


def _probe(pkgs: Path, cache: Path) -> dict:
    env = dict(os.environ, OCTAGAMES_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", PROBE, str(pkgs)], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_an_edited_rules_module_is_compiled_afresh_in_the_next_process(tmp_path):
    pkgs, cache = tmp_path / "pkgs", tmp_path / "cache"
    (pkgs / "tgame").mkdir(parents=True)
    (pkgs / "tgame" / "__init__.py").write_text(TGAME_INIT)
    (pkgs / "tgame" / "rules.py").write_text(TGAME_RULES)
    helper = pkgs / "tgame" / "helper.py"
    helper.write_text(TGAME_HELPER.format(parity=0))

    first = _probe(pkgs, cache)
    assert first["legal"] == [a for a in first["octrix"] if a % 2 == 0]
    assert first["misses"] == 1 and first["hits"] == 0  # compiled, then written to the cache

    again = _probe(pkgs, cache)
    assert again["legal"] == first["legal"]
    assert again["hits"] == 1 and again["misses"] == 0  # a fresh process loads it from disk
    assert again["file"] == first["file"]

    helper.write_text(TGAME_HELPER.format(parity=1))  # an edit two calls away from the entry point
    edited = _probe(pkgs, cache)
    assert edited["legal"] == [a for a in edited["octrix"] if a % 2 == 1]
    assert edited["misses"] == 1 and edited["hits"] == 0
    assert edited["file"] != first["file"]
    # the cache stays bounded: the module of the old sources and its compiled files are gone
    assert not Path(first["file"]).exists()
    stem = Path(first["file"]).stem
    assert not list((cache / "__pycache__").glob(f"{stem}.*"))


def test_the_digest_covers_the_sources_a_game_imports():
    files = {p.relative_to(ROOT).as_posix() for p in specialize.source_files("octagames.octa")}
    assert {"octagames/core.py", "octagames/octa/__init__.py", "octagames/octa/rules.py"} <= files
    assert not any(f.startswith("octagames/octrix/") for f in files)  # another game's edits do not matter
    octiles = {p.relative_to(ROOT).as_posix() for p in specialize.source_files("octagames.octiles")}
    assert "octagames/octiles/board.json" in octiles  # data read at import time counts too
    search = {p.relative_to(ROOT).as_posix()
              for p in specialize.source_files("octagames.agents.search._mcts_template", "octagames.achten",
                                               "octagames.agents.heuristics.achten")}
    assert {"agents/search/mcts.py", "agents/search/_mcts_template.py", "agents/heuristics/achten.py"} <= search


def test_a_nested_binding_covers_the_part_it_binds_and_not_the_others():
    from octagames.octa import Config, kernel_module

    bindings = {"game": kernel_module(Config())}
    english = {p.relative_to(ROOT).as_posix()
               for p in specialize.bound_sources("octagames._engine_template", bindings)}
    assert {"octagames/_engine_template.py", "octagames/octa/turn.py", "octagames/octa/en.py"} <= english
    # the Dutch rulebook and the run-time dispatch between both are not what English kernels come from
    assert not {"octagames/octa/nl.py", "octagames/octa/dispatch.py"} & english
    # a template imported as a plain module is an ordinary import: turn.py binds the dispatch by default
    package = {p.relative_to(ROOT).as_posix() for p in specialize.source_files("octagames.octa")}
    assert {"octagames/octa/dispatch.py", "octagames/octa/en.py", "octagames/octa/nl.py"} <= package


TNEST_TEMPLATE = """
import numba as nb
from tnest import red as part  # specialize: part


@nb.njit
def value():
    return part.VALUE
"""


def test_an_edit_of_the_bound_part_changes_the_digest_and_one_of_another_part_does_not(tmp_path, monkeypatch):
    (tmp_path / "tnest").mkdir()
    (tmp_path / "tnest" / "__init__.py").write_text("")
    (tmp_path / "tnest" / "kernels.py").write_text(TNEST_TEMPLATE)
    for name in ("red", "blue"):
        (tmp_path / "tnest" / f"{name}.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    bindings = {"game": specialize.nested("tnest.kernels", part="tnest.blue")}
    first = specialize.digest("octagames._engine_template", bindings)
    (tmp_path / "tnest" / "red.py").write_text("VALUE = 2\n")
    assert specialize.digest("octagames._engine_template", bindings) == first
    (tmp_path / "tnest" / "blue.py").write_text("VALUE = 2\n")
    second = specialize.digest("octagames._engine_template", bindings)
    assert second != first
    (tmp_path / "tnest" / "kernels.py").write_text(TNEST_TEMPLATE + "\n# edited\n")  # the inner template
    third = specialize.digest("octagames._engine_template", bindings)
    assert third not in (first, second)
    red = specialize.digest("octagames._engine_template",
                            {"game": specialize.nested("tnest.kernels", part="tnest.red")})
    assert red != third


def test_a_nested_binding_renders_a_call_of_specialize():
    binding = specialize.nested("octagames.octa.turn", book="octagames.octa.nl")
    assert binding == "octagames.octa.turn[book=octagames.octa.nl]"
    text = specialize.render_template("octagames._engine_template", {"game": binding})
    assert "game = _specialize('octagames.octa.turn', book='octagames.octa.nl')  # specialized: game" in text
    with pytest.raises(ValueError, match="is not key=module"):
        specialize.render_template("octagames._engine_template",
                                   {"game": "octagames.octa.turn[octagames.octa.nl]"})


def test_bindings_must_match_the_marked_lines():
    with pytest.raises(ValueError, match="no binding was given for it"):
        specialize.render_template("octagames._engine_template", {})
    with pytest.raises(ValueError, match=r"no '# specialize:' line for \['policy'\]"):
        specialize.render_template("octagames._engine_template", {"game": "octagames.octa",
                                                                   "policy": "octagames.agents.search.mcts:random_policy"})
    text = specialize.render_template("octagames._engine_template", {"game": "octagames.octa"})
    assert "import octagames.octa as game  # specialized: game" in text


TEMPLATES = ("octagames._engine_template", "octagames._batch_template", "octagames._call_template",
             "octagames.envs._aec_template", "octagames.octa._checked_play_template",
             "octagames.agents.search._mcts_template", "octagames.agents.search._playout_template",
             "octagames.agents.search._learned_playout_template")


def _cached_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and any(k.arg == "cache" and getattr(k.value, "value", False)
                                                     for k in dec.keywords):
                    out.append(node.name)
    return out


def test_only_templates_and_self_contained_modules_cache_compiled_code():
    """``cache=True`` on a function that calls another module's kernel would run stale code after an edit."""
    sources = [p for d in ("octagames", "envs", "agents", "experiments") for p in (ROOT / d).rglob("*.py")
               if "_cache" not in p.parts]
    templates = {importlib.util.find_spec(t).origin for t in TEMPLATES}
    checked = 0
    for path in sources:
        names = _cached_functions(path)
        if str(path) in templates or not names:
            continue
        rel = path.relative_to(ROOT).with_suffix("")
        name = "octagames." + ".".join(rel.parts) if rel.parts[0] != "octagames" else ".".join(rel.parts)
        module = importlib.import_module(name)
        for fn in names:
            globals_used = [vars(module).get(g) for g in getattr(module, fn).py_func.__code__.co_names]
            foreign = [g for g in globals_used if (isinstance(g, Dispatcher) and g.py_func.__module__ != name)
                       or (type(g).__name__ == "module" and g.__name__.startswith("octagames."))]
            assert not foreign, f"{rel}.{fn} is cached but calls into other modules: {foreign}"
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_template_specialises_for_every_game(game):
    from octagames.agents.search.mcts import search_kernels
    from octagames.core import Game
    from octagames.envs._pettingzoo import aec_kernels

    # the module the faces compile (Octa's turn machinery over one rulebook), which the warmup
    # has compiled: its package module also dispatches both rulebooks, which no face compiles
    g = Game(game)
    batch = specialize.batch_kernels(g.kernel_module)
    assert {g.kernels.__file__, batch.__file__, aec_kernels(g.kernel_module).__file__,
            search_kernels(g.kernel_module).run.py_func.__globals__["__file__"]} <= {
        str(p) for p in specialize.cache_dir().glob("*.py")}
    assert Path(g.kernels.__file__).stem.startswith(f"engine_{game}_")


def test_the_command_line_prints_and_clears_the_cache(tmp_path):
    env = dict(os.environ, OCTAGAMES_CACHE_DIR=str(tmp_path / "c"))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "stale.py").write_text("x = 1\n")
    where = subprocess.run([sys.executable, "-m", "octagames.specialize", "--where"], capture_output=True,
                           text=True, env=env, check=True)
    assert where.stdout.strip() == str(tmp_path / "c")
    cleared = subprocess.run([sys.executable, "-m", "octagames.specialize", "--clear"], capture_output=True,
                             text=True, env=env, check=True)
    assert cleared.stdout.startswith("removed 1 files")
    assert not list((tmp_path / "c").iterdir())


def test_a_read_only_package_caches_in_the_user_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("OCTAGAMES_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(specialize.os, "access", lambda path, mode: False)
    folder = specialize.cache_dir()
    assert folder.parent == tmp_path / "octagames" and folder.is_dir()


def test_cached_wraps_any_module_level_kernel():
    from octagames.core import nth_set
    call = specialize.cached(nth_set)
    assert call(np.array([0, 1, 0, 1], np.uint8), 1) == 3
    assert Path(call.py_func.__globals__["__file__"]).parent == specialize.cache_dir()
    with pytest.raises(ValueError, match="not a module-level function"):
        specialize.cached(lambda x: x)
