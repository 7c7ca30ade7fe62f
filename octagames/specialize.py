"""One way to compile game kernels: templates specialised per game, cached on disk by numba.

A compiled entry point (a batch step, an env step, a search loop) calls one
game's kernels. numba can cache a function on disk only if it is a plain
module-level function (a closure is compiled again in every process), and its
cache notices edits to the function's own file only: a cached kernel that calls
into an edited rules module silently keeps the old rules. This module solves
both with generated modules:

* A **template** is a real, importable Python module (linted like any other)
  whose entry points are ``@numba.njit(cache=True)`` functions. The things it
  is specialised on are ordinary imports marked with a comment::

      import octagames.octrix as game  # specialize: game

* :func:`specialize` rewrites the marked lines for the modules asked for
  (``specialize("octagames._engine_template", game="octagames.octa")``) and
  writes the result as a module whose **file name carries a digest** of the
  template, of every bound module and of every project module they import,
  transitively (a game package's own files, ``octagames/core.py``, data files
  beside them, numba's and Python's versions). Any edit to any of them gives a
  new file name, so the next process compiles afresh: compiled code never runs
  old rules. Unchanged sources give the same file, which numba's cache loads in
  every later process.
* When a new digest is written, the older files of the same template and
  bindings and their numba cache files are deleted, so the cache stays bounded
  (one module per template and bindings).
* A binding may itself be a specialised module, written
  ``"template[key=target, ...]"`` (:func:`nested`): a game whose kernels are
  generic over a part bound at compile time (Octa's turn machinery over one
  rulebook, ``"octagames.octa.turn[book=octagames.octa.en]"``) is bound that
  way, and the generated module loads the inner one with :func:`specialize`.
  The digest covers the inner template and its bindings' sources in the same
  way, and leaves out what the inner template's marked lines import when not
  specialised (the other rulebook).

Only generated modules (and templates) use ``cache=True``; the rules kernels are
plain ``@numba.njit`` functions compiled into the entry points that call them.

Where the cache lives: ``$OCTAGAMES_CACHE_DIR`` if set; else ``_cache/`` inside
the installed ``octagames`` package when that folder is writable (a checkout);
else ``$XDG_CACHE_HOME/octagames/<id of the install>`` (``~/.cache/...``).
``python -m octagames.specialize --where`` prints it and ``--clear`` empties it;
``python -m octagames.experiments.warmup`` compiles every game's entry points
(what ``make`` runs once, reporting the time).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numba

_MARK = re.compile(r"^(?P<indent>\s*)(?:import\s+[\w.]+\s+as\s+(?P<a>\w+)|from\s+[\w.]+\s+import\s+\w+\s+as\s+(?P<b>\w+))"
                   r"\s*#\s*specialize:\s*(?P<key>\w+)\s*$")
_DATA_SUFFIXES = (".json",)
_LOADED: dict[tuple[str, tuple[tuple[str, str], ...]], ModuleType] = {}
_SOURCES: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[Path, ...]] = {}


# --------------------------------------------------------------------------- where
def cache_dir() -> Path:
    """The folder holding generated modules and their numba caches (created if missing)."""
    env = os.environ.get("OCTAGAMES_CACHE_DIR")
    if env:
        folder = Path(env)
    else:
        package = Path(__file__).resolve().parent
        if os.access(package, os.W_OK):
            folder = package / "_cache"
        else:  # a read-only install: one folder per install location
            base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
            tag = hashlib.sha256(str(package).encode()).hexdigest()[:12]
            folder = base / "octagames" / tag
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def clear_cache() -> int:
    """Delete every generated module and compiled cache file; returns the number of files removed."""
    folder = cache_dir()
    n = sum(1 for p in folder.rglob("*") if p.is_file())
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    _LOADED.clear()
    return n


# --------------------------------------------------------------------------- digest
_FILES: dict[str, Path | None] = {}


def _module_file(name: str) -> Path | None:
    """The source file of module ``name`` (``__init__.py`` for a package), or None."""
    if name not in _FILES:
        parent, _, _ = name.rpartition(".")
        if parent and (_module_file(parent) is None or _module_file(parent).name != "__init__.py"):
            _FILES[name] = None  # a name inside a plain module is an attribute, not a submodule
            return None
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        ok = spec is not None and spec.origin is not None and spec.origin.endswith(".py")
        _FILES[name] = Path(spec.origin) if ok else None  # type: ignore[union-attr,arg-type]
    return _FILES[name]


_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_STRINGS = re.compile(r'"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'')
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)


def _imported_names(path: Path, package: str, bound: bool = False) -> set[str]:
    """Absolute names of the modules (and candidate submodules) a source file imports.

    A line scan rather than a parse: it is what every process pays before its
    first compiled call. It may over-collect (an import in a docstring), never
    under-collect a module-level import, which only costs a needless recompile.
    With ``bound``, the file is a template being specialised: its marked imports
    are left out (they are replaced by its bindings).
    """
    text = _STRINGS.sub("", path.read_text())  # docstrings may show import lines
    if bound:
        text = "\n".join(line for line in text.splitlines() if not _MARK.match(line))
    names: set[str] = set()
    for m in _IMPORT.finditer(text):
        names.update(part.split()[0] for part in m.group(1).split(",") if part.split())
    for m in _FROM.finditer(text):
        dots, mod = m.group(1), m.group(2)
        if dots:  # relative: resolve against the file's package
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - len(dots) + 1])
            mod = f"{base}.{mod}" if mod else base
        names.add(mod)
        items = m.group(3).strip("()").split("#")[0] if "(" not in m.group(3) else m.group(3).strip("()")
        for item in re.sub(r"#[^\n]*", "", items).split(","):
            if item.split():
                names.add(f"{mod}.{item.split()[0]}")
    return names


def source_files(*modules: str, templates: tuple[str, ...] = ()) -> tuple[Path, ...]:
    """Every source file the compiled code of ``modules`` may come from, transitively.

    Starting from ``modules`` and ``octagames.core``, follow the imports of each
    file into modules of the same distributions (``octagames`` and the
    top-level packages of ``modules``); data files beside a module count too.
    The marked import lines of ``templates`` are left out (their bindings are
    among ``modules``); a marked line of any other file is an ordinary import.

    Returns:
        The files, sorted.
    """
    roots = {"octagames"} | {m.split(".")[0] for m in modules}
    # (module, whether it is a template being specialised); a template imported by another file
    # as well is followed a second time with its marked lines
    todo = [(m, m in templates) for m in modules] + [("octagames.core", False)]
    seen: set[tuple[str, bool]] = {(__name__, False)}  # this module writes templates out; no compiled code
    files: set[Path] = set()
    while todo:
        name, bound = item = todo.pop()
        if item in seen or name.split(".")[0] not in roots:
            continue
        seen.add(item)
        path = _module_file(name)
        if path is None:
            continue
        files.add(path)
        files.update(p for p in path.parent.iterdir() if p.suffix in _DATA_SUFFIXES)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        todo.extend((n, False) for n in _imported_names(path, package, bound))
    return tuple(sorted(files))


_NESTED = re.compile(r"^(?P<template>[\w.]+)\[(?P<bindings>[^\[\]]*)\](?::(?P<attr>\w+))?$")


def nested(template: str, **bindings: str) -> str:
    """The binding that names ``template`` specialised on ``bindings``: ``"template[key=target,...]"``.

    ``specialize(t, game=nested("octagames.octa.turn", book="octagames.octa.en"))``
    binds ``game`` to the generated module of ``octagames.octa.turn`` with ``book``
    bound to ``octagames.octa.en``.
    """
    return f"{template}[{','.join(f'{k}={v}' for k, v in sorted(bindings.items()))}]"


def _parse(target: str) -> tuple[str, dict[str, str] | None, str]:
    """``(module or template, bindings of a nested template or None, attribute or "")`` of a binding."""
    m = _NESTED.match(target)
    if m is None:
        mod, _, attr = target.partition(":")
        return mod, None, attr
    inner: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in m.group("bindings").split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier() or _NESTED.match(value.strip()):
            raise ValueError(f"binding {target!r}: {item!r} is not key=module (one level of nesting)")
        inner[key.strip()] = value.strip()
    return m.group("template"), inner, m.group("attr") or ""


def _roots(template: str, bindings: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(modules, templates)``: where the sources of ``template`` under ``bindings`` start."""
    modules, templates = [template], [template]
    for target in bindings.values():
        mod, inner, _ = _parse(target)
        if inner is None:
            modules.append(mod)
        else:
            more, nested_templates = _roots(mod, inner)
            modules.extend(more)
            templates.extend(nested_templates)
    return tuple(modules), tuple(templates)


def bound_sources(template: str, bindings: dict[str, str]) -> tuple[Path, ...]:
    """The source files the digest of ``template`` under ``bindings`` covers (:func:`source_files`)."""
    key = _roots(template, bindings)
    if key not in _SOURCES:
        _SOURCES[key] = source_files(*key[0], templates=key[1])
    return _SOURCES[key]


def digest(template: str, bindings: dict[str, str]) -> str:
    """The digest naming the generated module of ``template`` under ``bindings`` (hex)."""
    h = hashlib.sha256()
    h.update(f"numba {numba.__version__} python {sys.version_info[:2]}\n".encode())
    h.update(repr(sorted(bindings.items())).encode())
    for path in bound_sources(template, bindings):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


# --------------------------------------------------------------------------- generate
def render_template(template: str, bindings: dict[str, str]) -> str:
    """The template's source with every ``# specialize: <key>`` import bound as asked.

    A binding ``"pkg.mod"`` imports a module, ``"pkg.mod:name"`` one object of it,
    ``"pkg.template[key=pkg.mod,...]"`` (:func:`nested`) the generated module of a
    template specialised in turn (loaded with :func:`specialize` when imported).

    Raises:
        ValueError: a marked key without a binding, or a binding without a marked line.
    """
    path = _module_file(template)
    if path is None:
        raise ValueError(f"template {template!r} is not an importable module")
    out, used = [], set()
    for line in path.read_text().splitlines():
        m = _MARK.match(line)
        if m:
            key = m.group("key")
            if key not in bindings:
                raise ValueError(f"template {template} marks '{key}' but no binding was given for it; "
                                 f"bindings given: {sorted(bindings)}")
            alias = m.group("a") or m.group("b")
            mod, inner, attr = _parse(bindings[key])
            if inner is not None:
                args = "".join(f", {k}={v!r}" for k, v in sorted(inner.items()))
                out.append(f"{m.group('indent')}from octagames.specialize import specialize as _specialize"
                           f"  # specialized: {key}")
                line = f"{m.group('indent')}{alias} = _specialize({mod!r}{args}){'.' + attr if attr else ''}"
            elif attr:
                line = f"{m.group('indent')}from {mod} import {attr} as {alias}"
            else:
                line = f"{m.group('indent')}import {mod} as {alias}"
            line += f"  # specialized: {key}"
            used.add(key)
        out.append(line)
    unused = sorted(set(bindings) - used)
    if unused:
        raise ValueError(f"template {template} has no '# specialize:' line for {unused}")
    header = f"# generated from {template} by octagames.specialize: do not edit ({bindings})\n"
    return header + "\n".join(out) + "\n"


def _short(target: str) -> str:
    """A file-name part for a binding: ``octa`` for ``octagames.octa``, ``octa_turn_en`` for a nested one."""
    mod, inner, _ = _parse(target)
    tail = "".join(f"_{v.partition(':')[0].rpartition('.')[2]}" for _, v in sorted((inner or {}).items()))
    return re.sub(r"\W", "_", mod.replace("octagames.", "")) + tail


def _label(bindings: dict[str, str]) -> str:
    short = _short(bindings.get("game", next(iter(bindings.values()), "")))
    tag = hashlib.sha256(repr(sorted(bindings.items())).encode()).hexdigest()[:8]
    return f"{short}_{tag}"


def _prune(folder: Path, prefix: str, keep: str) -> None:
    """Delete older generated modules of one template and bindings, with their numba cache files."""
    for old in folder.glob(f"{prefix}_*.py"):
        if old.stem == keep:
            continue
        for f in [old, *(folder / "__pycache__").glob(f"{old.stem}.*")]:
            try:
                f.unlink()
            except OSError:
                pass


def specialize(template: str, **bindings: str) -> ModuleType:
    """The template module specialised on ``bindings``, generated once and cached on disk.

    Args:
        template: dotted name of a template module.
        **bindings: for each ``# specialize: <key>`` line of the template, the
            module (``"octagames.octa"``) or module object (``"pkg.mod:name"``) to bind.

    Returns:
        The generated module (imported once per process).

    Raises:
        ValueError: the bindings do not match the template's marked lines.
    """
    key = (template, tuple(sorted(bindings.items())))
    if key in _LOADED:
        return _LOADED[key]
    folder = cache_dir()
    prefix = f"{template.rpartition('.')[2].strip('_').replace('_template', '')}_{_label(bindings)}"
    stem = f"{prefix}_{digest(template, bindings)[:16]}"
    path = folder / f"{stem}.py"
    if not path.exists():
        tmp = folder / f".{stem}.{os.getpid()}.tmp"
        tmp.write_text(render_template(template, bindings))
        try:
            os.link(tmp, path)  # create only if absent: never touch a file another process compiled from
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
        _prune(folder, prefix, stem)
    name = f"_octagames_generated.{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[key] = module
    return module


def cached(function: Any) -> Any:
    """A compiled entry point for a module-level ``@numba.njit`` function, cached on disk.

    ``cached(checks.validate)(s)`` behaves like ``checks.validate(s)`` but loads compiled
    code from the cache in later processes (``octagames._call_template`` specialised on it).

    Raises:
        ValueError: ``function`` is not importable by module and name (a closure, a lambda).
    """
    py = getattr(function, "py_func", function)
    module, name = py.__module__, py.__qualname__
    if "<" in name or "." in name or getattr(sys.modules.get(module), name, None) is not function:
        raise ValueError(f"{module}.{name} is not a module-level function; cached() imports it by name")
    return specialize("octagames._call_template", target=f"{module}:{name}").call


def engine_kernels(game_module: ModuleType | str) -> ModuleType:
    """The contract kernels of one rules module as cached entry points (``octagames._engine_template``)."""
    name = game_module if isinstance(game_module, str) else game_module.__name__
    return specialize("octagames._engine_template", game=name)


def batch_kernels(game_module: ModuleType | str) -> ModuleType:
    """The batch kernels of one rules module (``octagames._batch_template``)."""
    name = game_module if isinstance(game_module, str) else game_module.__name__
    return specialize("octagames._batch_template", game=name)


# --------------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    """``python -m octagames.specialize [--where | --clear]``."""
    parser = argparse.ArgumentParser(prog="python -m octagames.specialize", description=__doc__.split("\n")[0])
    parser.add_argument("--where", action="store_true", help="print the cache folder")
    parser.add_argument("--clear", action="store_true", help="delete every generated module and compiled file")
    args = parser.parse_args(argv)
    if args.clear:
        print(f"removed {clear_cache()} files from {cache_dir()}")
    if args.where or not args.clear:
        print(cache_dir())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
