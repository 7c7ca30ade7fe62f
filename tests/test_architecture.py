"""The architecture of ``docs/architecture.md``, checked by reading the sources (AST, nothing is imported).

Rooms: the rules engines (``octagames/`` itself: ``core.py``, one subpackage per game and
the shared modules beside them), the faces (``envs/`` = ``octagames.envs``), the agents
(``agents/`` = ``octagames.agents``) and the scripts (``experiments/`` =
``octagames.experiments``, and ``octagames/__main__.py``: ``python -m octagames``). The rules:

* the rules import no face, agent or script, and no RL framework;
* a game's package imports no other game's package (a game is one subpackage);
* faces and agents import no script;
* every import of one of our modules, and of any required dependency, is at module top:
  an import inside a function may only load an optional dependency (so that the module
  imports without its extra), and each such dependency is listed below with its extra;
* the graph of our modules' imports has no cycle;
* one public ``make_game`` (``octagames.core``): no other module defines a function of that name;
* no per-game table outside the specs: a game's and its variants' settings are declared in
  ``octagames/<game>/variants.py`` only and read through ``octagames.catalogue``; no other module
  has a dict keyed by game or variant names, or a tuple, list or set of them.

Loading by name (``importlib.import_module`` in the agent registry, the game loader of
``octagames.core``, the catalogue's ``"module:attr"`` strings) is how those places defer work on
purpose; it is not an import statement and is not checked here.
"""

from __future__ import annotations

import ast
import configparser
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: RL frameworks and faces' libraries the rules engines must never import
FRAMEWORKS = {"torch", "tensorflow", "jax", "gymnasium", "gym", "pettingzoo", "pyspiel", "open_spiel",
              "ray", "stable_baselines3", "sb3_contrib", "torchrl", "supersuit"}

#: optional dependencies (dotted prefixes) that a function may import lazily, with their extra:
#: the module must import, and its other functions work, without that extra installed
OPTIONAL = {
    "matplotlib": "train (plots)",
    "PIL": "render (the raster backend of octagames.envs.pictures: the SVG needs nothing)",
    "tqdm": "train (progress bars)",
    "tyro": "train (command lines)",
    "scipy": "train (linear programs)",
    "torch": "train (networks)",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "octagames.envs.openspiel": "openspiel (it registers the games with pyspiel when imported)",
    "sb3_contrib": "bench (the SB3 anchor)",
    "stable_baselines3": "bench (the SB3 anchor)",
    "pettingzoo.classic": "bench (connect_four_v3, the bench's anchor, needs pygame-ce)",
    "ray": "distributed",
    "octagames.agents.learn.distributed": "distributed (the only module that imports ray)",
    "octagames.agents.learn.az_selfplay": "train (it imports torch; the Ray actors of train_az build it)",
    "octagames.agents.learn.az": "train (it imports torch; the warmup compiles its search only when torch is installed)",
    "uvicorn": "web (octagames serve runs the app with it)",
}


@dataclass(frozen=True)
class Import:
    """One import statement of one of our modules."""

    module: str  # the importing module
    target: str  # the module imported (``from a import b`` gives ``a.b`` when that is a module)
    line: int
    in_function: bool


def _modules() -> dict[str, Path]:
    """Every module of the distribution, by import name, from setup.cfg's package layout."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    mapping = {"octagames": "octagames"}
    for line in cfg["options"]["package_dir"].strip().splitlines():
        name, _, folder = (x.strip() for x in line.partition("="))
        mapping[name] = folder
    out: dict[str, Path] = {}
    for package, folder in mapping.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "_cache" in path.relative_to(ROOT).parts:  # generated modules (octagames.specialize), not sources
                continue
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _imports(module: str, source: str, is_package: bool = False) -> list[Import]:
    """The import statements of ``module``, whose text is ``source``."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend(Import(module, a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative import
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                for a in child.names:
                    sub = f"{base}.{a.name}"
                    found.append(Import(module, sub if sub in MODULES else base, child.lineno, in_function))
            visit(child, nested)

    visit(tree, False)
    return found


IMPORTS = [imp for name, path in MODULES.items()
           for imp in _imports(name, path.read_text(), path.name == "__init__.py")]


def room(module: str) -> str:
    """``rules``, ``envs``, ``agents``, ``experiments`` or ``web`` (``octagames.__main__``: the scripts')."""
    if module == "octagames.__main__":
        return "experiments"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ("envs", "agents", "experiments", "web") else "rules"


def game_package(module: str) -> str | None:
    """The game subpackage a rules module belongs to (``octagames.octa``), if any."""
    parts = module.split(".")
    if room(module) != "rules" or len(parts) < 2:
        return None
    candidate = ".".join(parts[:2])
    return candidate if candidate in MODULES and MODULES[candidate].name == "__init__.py" else None


def _where(imp: Import) -> str:
    return f"{MODULES[imp.module].relative_to(ROOT)}:{imp.line} imports {imp.target}"


def test_the_layout_is_read():
    assert {"octagames.core", "octagames.octrix.rules", "octagames.envs.vector", "octagames.agents.registry",
            "octagames.experiments.cli"} <= set(MODULES)
    assert {room(m) for m in MODULES} == {"rules", "envs", "agents", "experiments", "web"}
    assert game_package("octagames.octa.en") == "octagames.octa" and game_package("octagames.core") is None


def test_rules_import_no_face_agent_script_or_framework():
    bad = [_where(i) for i in IMPORTS if room(i.module) == "rules"
           and (room(i.target) != "rules" or i.target.split(".")[0] in FRAMEWORKS)]
    assert not bad, "the rules engines must stand alone:\n" + "\n".join(bad)


def test_a_game_imports_no_other_game():
    bad = [_where(i) for i in IMPORTS if game_package(i.module) and game_package(i.target)
           and game_package(i.target) != game_package(i.module)]
    assert not bad, "each game is one subpackage; share code through octagames/ itself:\n" + "\n".join(bad)


@pytest.mark.parametrize("importer", ["envs", "agents"])
def test_faces_and_agents_import_no_script(importer):
    bad = [_where(i) for i in IMPORTS if room(i.module) == importer and room(i.target) == "experiments"]
    assert not bad, f"{importer}/ must not depend on experiments/:\n" + "\n".join(bad)


def test_only_the_command_line_imports_the_web_room():
    # the web app (octagames.web, the web extra) is reached through `octagames serve` only
    bad = [_where(i) for i in IMPORTS if room(i.target) == "web" and room(i.module) != "web"
           and i.module != "octagames.experiments.serve"]
    assert not bad, "only octagames.experiments.serve may import octagames.web:\n" + "\n".join(bad)
    assert any(i.module == "octagames.experiments.serve" and room(i.target) == "web" for i in IMPORTS)


def _optional(target: str) -> bool:
    return any(target == p or target.startswith(p + ".") for p in OPTIONAL)


def test_imports_inside_functions_load_only_optional_dependencies():
    bad = [_where(i) for i in IMPORTS if i.in_function and not _optional(i.target)]
    assert not bad, ("import these at module top (an import inside a function hides a dependency or a "
                     "cycle); only an optional dependency listed in OPTIONAL may be imported lazily:\n"
                     + "\n".join(bad))


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in IMPORTS:
        if not i.in_function and i.target in MODULES and i.target != i.module:
            graph[i.module].add(i.target)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_module_graph_is_acyclic():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_one_make_game():
    defined = [name for name, path in MODULES.items() for node in ast.parse(path.read_text()).body
               if isinstance(node, ast.FunctionDef) and node.name == "make_game"]
    assert defined == ["octagames.core"]


def test_the_reader_sees_lazy_relative_and_submodule_imports():
    source = ("import numpy as np\nfrom octagames.agents import base\nfrom . import tree\n"
              "def f():\n    import matplotlib.pyplot\n    from octagames.core import Game\n")
    got = [(i.target, i.in_function) for i in _imports("octagames.agents.cfr.solver", source)]
    assert got == [("numpy", False), ("octagames.agents.base", False), ("octagames.agents.cfr.tree", False),
                   ("matplotlib.pyplot", True), ("octagames.core", True)]
    assert [_optional(t) for t, _ in got[3:]] == [True, False]


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


# ------------------------------------------------------------------ no per-game table outside the specs
def _spec_names() -> tuple[set[str], set[str]]:
    """The game names and the variant names declared by ``octagames/<game>/variants.py`` (read, not imported)."""
    games: set[str] = set()
    variants: set[str] = set()
    for name, path in MODULES.items():
        if not _is_spec(name):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id == "GameSpec":
                games.update(k.value.value for k in node.keywords
                             if k.arg == "game" and isinstance(k.value, ast.Constant))
            elif node.func.id == "Variant" and node.args and isinstance(node.args[0], ast.Constant):
                variants.add(node.args[0].value)
    return games, variants


def _is_spec(module: str) -> bool:
    """A game's ``variants.py``: the one place its per-game and per-variant facts are declared."""
    parts = module.split(".")
    return len(parts) == 3 and parts[2] == "variants" and game_package(module) is not None


GAMES, VARIANTS = _spec_names()


def _names(node: ast.AST | None, names: set[str]) -> str | None:
    """The game or variant a literal names: ``"octa"``, ``"octa-nl"``, a spec ``"achten:deal_penalty=1"``,
    or an entry ``("octrix", {...})`` whose first item names one; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        name = node.value.partition(":")[0]
        return name if name in names else None
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        return _names(node.elts[0], names)
    return None


def per_game_tables(source: str, games: set[str], variants: set[str]) -> list[tuple[int, str]]:
    """The per-game tables of a module's ``source``, as ``(line, what)``.

    A table is a dict literal (or ``dict(...)`` call) with two or more keys that are game or
    variant names, or a tuple, list or set literal with two or more items naming a game or
    variant (a name, a ``"game:field=value"`` spec, or a tuple/list starting with one). Strings
    alone (docstrings, messages) are not tables.
    """
    names = games | variants
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            keys = [n for n in (_names(k, names) for k in node.keys) if n]
            if len(keys) >= 2:
                found.append((node.lineno, f"a dict keyed by {', '.join(keys)}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            keys = [k.arg for k in node.keywords if k.arg in names]
            if len(keys) >= 2:
                found.append((node.lineno, f"a dict keyed by {', '.join(keys)}"))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [n for n in (_names(e, names) for e in node.elts) if n]
            if len(items) >= 2:
                kind = type(node).__name__.lower()
                found.append((node.lineno, f"a {kind} of {', '.join(items)}"))
    return found


def test_the_specs_are_read():
    assert {"octrix", "achten", "octiles", "octa"} <= GAMES
    assert {"octrix-round", "achten-dealer-pays", "octa-en", "octa-nl"} <= VARIANTS


def test_no_per_game_table_outside_the_specs():
    bad = [f"{path.relative_to(ROOT)}:{line}: {what}"
           for name, path in MODULES.items() if not _is_spec(name)
           for line, what in per_game_tables(path.read_text(), GAMES, VARIANTS)]
    assert not bad, ("a game's settings live in its spec: declare each of these in octagames/<game>/variants.py "
                     "(a field of GameSpec or Variant) and read it through octagames.catalogue "
                     "(game_spec(game), variants(), games()):\n" + "\n".join(bad))


def test_the_table_finder_finds_tables_and_leaves_strings_alone():
    games, variants = {"octrix", "octa"}, {"octrix", "octrix-round", "octa-en"}
    source = ('"""Octrix and octa: a docstring naming (\'octrix\', \'octa\')."""\n'
              'A = {"octrix": 1, "octa-en": 2}\n'
              'B = dict(octrix=1, octa=2)\n'
              'C = ("octrix", "octa:rules=nl")\n'
              'D = [("octrix-round", {"num_players": 3}), ("octa", {})]\n'
              'E = {"octrix", "octa"}\n'
              'F = {"octrix": 1, "chess": 2}\n'
              'G = ("octrix", "go")\n'
              'def f(game):\n'
              '    raise ValueError(f"game {game!r}: valid values: octrix, octa")\n')
    assert per_game_tables(source, games, variants) == [
        (2, "a dict keyed by octrix, octa-en"), (3, "a dict keyed by octrix, octa"),
        (4, "a tuple of octrix, octa"), (5, "a list of octrix-round, octa"), (6, "a set of octrix, octa")]
