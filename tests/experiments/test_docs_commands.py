"""The command lines and import lines the docs show work: the README's ``octagames`` commands parse
with their verb's flags, every PettingZoo env module's docstring imports as it says, and every test the
docs name (the rules tables of ``docs/rules/`` cite the tests of each rule) is in ``tests/``."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from octagames.experiments.cli import parse_with_stdlib
from octagames.experiments.main import VERBS, module_of

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[list[str]]:
    """Every ``octagames <verb> ...`` line of the README's shell blocks, as arguments (comments cut)."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("octagames ")]


def _config_class(module) -> type:
    (cls,) = [obj for name, obj in vars(module).items() if name.endswith("Config") and isinstance(obj, type)
              and obj.__module__ == module.__name__]
    return cls


def test_the_readme_shows_octagames_list_and_a_variant():
    commands = _readme_commands()
    assert ["list"] in commands
    assert any("--game" in c and c[c.index("--game") + 1] == "octa-nl" for c in commands)


@pytest.mark.parametrize("args", _readme_commands(), ids=" ".join)
def test_each_readme_command_parses_with_its_verbs_flags(args):
    verb, flags = args[0], args[1:]
    assert verb in VERBS
    module = importlib.import_module(module_of(verb))
    parse_with_stdlib(_config_class(module), flags)  # a flag it does not know, or a bad value: SystemExit


#: ``octagames <verb> ARGS`` or ``python -m octagames.experiments.<verb> ARGS`` at the start of a line
COMMAND = re.compile(r"(?:octagames[ -]([a-z][\w-]*)|python -m octagames\.experiments\.(\w+))(\s.*)?$")


def _docstring_commands() -> list[tuple[str, list[str]]]:
    """Every command line of the verbs' module docstrings, as ``(where, [verb, *args])`` (a line continued
    with a backslash joined, comments and what follows a redirection cut)."""
    out = []
    for verb in VERBS:
        spec = importlib.util.find_spec(module_of(verb))
        doc = (ast.get_docstring(ast.parse(Path(spec.origin).read_text())) or "").replace("\\\n", " ")
        for line in doc.splitlines():
            m = COMMAND.match(line.split("#")[0].split(">")[0].split("|")[0].strip())
            if m:
                out.append((verb, [m.group(1) or m.group(2).replace("_", "-"), *shlex.split(m.group(3) or "")]))
    return out


@pytest.mark.parametrize("where, args", _docstring_commands(), ids=lambda x: " ".join(x) if isinstance(x, list) else x)
def test_each_verbs_docstring_command_parses_with_its_flags(where, args):
    verb, flags = args[0], args[1:]
    assert verb in VERBS, f"the docstring of {where} shows a verb that does not exist: {verb}"
    if "cuda" in flags and not importlib.import_module("torch").cuda.is_available():
        # a command for a machine with a GPU: its other flags are checked here, its device as this machine's
        flags = ["cpu" if f == "cuda" else f for f in flags]
    module = importlib.import_module(module_of(verb))
    parse_with_stdlib(_config_class(module), flags)  # an unknown flag, a bad value or section: SystemExit


@pytest.mark.parametrize("path", sorted((ROOT / "envs").glob("*_v0.py")), ids=lambda p: p.name)
def test_each_env_modules_docstring_shows_an_import_that_works(path):
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    lines = re.findall(r"from [\w.]+ import \w+", doc)
    assert lines and all(line.startswith("from octagames.envs import ") for line in lines), lines
    for line in set(lines):
        module = line.split()[-1]
        assert module == path.stem
        exec(line, {})  # noqa: S102 - the docstring's own import line
    with pytest.raises(ImportError, match="envs"):  # the folder envs/ is not a package of its own
        importlib.import_module("envs")


#: a test named in the docs: ``test_name``, a file ``test_name.py``, or a prefix ``test_name_...`` / ``test_name_*``
CITED_TEST = re.compile(r"(?:`|::)(test_[A-Za-z0-9_]+)(\.py|\.\.\.|\*)?")


def cited_tests(text: str) -> set[tuple[str, str]]:
    """The ``(name, suffix)`` of every test ``text`` names in backticks or after ``::``."""
    return {(m.group(1), m.group(2) or "") for m in CITED_TEST.finditer(text)}


def defined_functions(*rooms: str) -> set[str]:
    """The name of every function defined in the Python files under the given folders of the repository."""
    return {m for room in rooms for path in (ROOT / room).rglob("*.py")
            for m in re.findall(r"def ([A-Za-z_][A-Za-z0-9_]*)", path.read_text())}


def is_defined(defined: set[str], names: tuple[str, ...], prefix: bool) -> bool:
    """Whether one of ``names`` is in ``defined`` (with ``prefix``: begins one of its names)."""
    return any(d.startswith(n) for d in defined for n in names) if prefix else not defined.isdisjoint(names)


def test_every_test_the_docs_name_is_in_the_suite():
    files = {path.name for path in (ROOT / "tests").rglob("test_*.py")}
    defined = defined_functions("tests")
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    missing = []
    for doc in docs:
        for name, suffix in sorted(cited_tests(doc.read_text())):
            found = f"{name}.py" in files if suffix == ".py" else is_defined(defined, (name,), suffix in ("...", "*"))
            if not found:
                missing.append(f"{doc.relative_to(ROOT)}: {name}{suffix}")
    assert len(docs) > 10 and not missing, f"the docs name tests the suite does not have: {missing}"


#: a name in backticks in a rules table's last column: ``name`` or ``name...`` (the Octa tables cite tests without
#: their ``test_`` prefix, and name a few helpers and kernels beside them)
TABLE_NAME = re.compile(r"`([a-z_][a-z0-9_]*)(\.\.\.)?`")


def test_every_name_in_the_rules_tables_test_column_is_a_test_or_a_function():
    defined = defined_functions("octagames", "agents", "envs", "experiments", "tests")
    missing, cited = [], 0
    for doc in sorted((ROOT / "docs" / "rules").glob("*.md")):
        for line in doc.read_text().splitlines():
            cells = line.split("|")
            if not line.startswith("|") or len(cells) < 4:
                continue
            for m in TABLE_NAME.finditer(cells[-2]):  # the row's last cell: its tests
                name, prefix = m.group(1), bool(m.group(2))
                cited += 1
                if not is_defined(defined, (name, f"test_{name}"), prefix):
                    missing.append(f"{doc.name}: {name}{m.group(2) or ''}")
    assert cited > 200 and not missing, f"the rules tables name tests or functions that do not exist: {missing}"


def test_the_citation_reader_tells_names_files_and_prefixes_apart():
    text = "`test_a`, `test_b_...`, `test_c_*`, `tests/x.py::test_d[1]`, `test_e.py`, test_f and `test_g[x]`"
    assert cited_tests(text) == {("test_a", ""), ("test_b_", "..."), ("test_c_", "*"), ("test_d", ""),
                                 ("test_e", ".py"), ("test_g", "")}
