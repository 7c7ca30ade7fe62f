"""The config a model file was trained on, and the refusal to play it on another.

Every model file (an AZ model or checkpoint, ``az:`` and ``zoo:``; a PPO policy, ``ppo:``)
records its game and every field of the game's ``Config`` (``"game"``, ``"game_config"``).
A model plays the config it learned: :func:`check_config` refuses another one with one
``ValueError`` that names both configs as variants (:func:`octagames.catalogue.describe`),
the fields that differ and the options that give the model's own config::

    zoo:octrix was trained on octrix-2p, not octrix-round-2p (match=False here, True in training);
    play it with --game octrix, or allow the mismatch (allow_config_mismatch=True,
    --allow-model-mismatch) to try anyway

With ``allow=True`` (``make_agent(..., allow_config_mismatch=True)``) the same sentence is a
warning and the model plays. A model's network shape (observations, actions, seats) is
checked apart: no flag lets a network read observations of another size.
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import struct
import threading
import warnings
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from octagames import catalogue

ALLOW_HINT = "allow the mismatch (allow_config_mismatch=True, --allow-model-mismatch) to try anyway"


def _numpy_globals() -> list[Any]:
    """What a pickled numpy array or scalar names: its constructors and dtype classes, nothing that runs code.

    Each constructor under both spellings of its module (``numpy.core`` before numpy 2, ``numpy._core``
    since), so that a checkpoint written under either numpy loads under the other.
    """
    multiarray = (getattr(np, "_core", None) or np.core).multiarray  # numpy 2 renamed numpy.core
    named = [(f, f"numpy.{core}.multiarray.{f.__name__}")
             for f in (multiarray._reconstruct, multiarray.scalar) for core in ("core", "_core")]
    return [*named, np.ndarray, np.dtype, *(getattr(np.dtypes, name) for name in np.dtypes.__all__)]


class UnsafeModelFile(ValueError):
    """A model file or checkpoint whose pickle names Python objects beyond plain data (refused unread)."""


#: torch's allowlist context is process-wide: one load at a time sets and clears it
_LOAD_LOCK = threading.Lock()

#: what torch's weights-only reader says when a pickle asks for more than plain data (not a damaged file)
# the weights-only reader's words for a pickle that asks for more than plain data (compared in lower case)
_REFUSALS = ("unsupported global", "trying to call reduce", "can only build", "can only create")


def _check_arrays(data: Any, path: str | Path) -> None:
    """Refuse numpy arrays and scalars whose dtype holds Python objects or places a field outside its item.

    numpy rebuilds a structured dtype from the pickle's field list without checking the offsets: a
    field beyond the item would read and write outside the array's memory.
    """
    def bad(dt: np.dtype) -> str:
        if dt.hasobject:
            return f"dtype {dt} holds Python objects"
        if dt.subdtype is not None:
            return bad(dt.subdtype[0])
        for name, (field, offset, *_) in (dt.fields or {}).items():
            if offset < 0 or offset + field.itemsize > dt.itemsize:
                end = offset + field.itemsize
                return f"field {name!r} at bytes {offset}-{end} of a {dt.itemsize}-byte item"
            if why := bad(field):
                return why
        return ""

    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, (np.ndarray, np.generic)) and (why := bad(item.dtype)):
            raise ValueError(f"{path} is not a model file octagames can read safely: an array's {why}")


#: the first bytes of a zip archive's first member: torch reads a file that starts so as its zip format
_ZIP_START = b"PK\x03\x04"


def refuse_compressed_members(path: str | Path) -> None:
    """Refuse a torch zip file any of whose members is compressed, before torch reads any of it.

    torch writes every member of a file stored (uncompressed), but reads deflated members too,
    inflating each whole: a crafted file of 1.5 MiB inflated to a 1.5 GiB tensor. A stored member
    takes as many bytes in memory as in the file. A file that is no zip archive (torch's older
    format, or not a torch file) is left to torch's reader, which compresses nothing.

    Args:
        path: the file about to be read with ``torch.load``.

    Raises:
        ValueError: a member is compressed, or declares another size than it takes in the file, or does not
            match its checksum (the message names the file and the member), or the zip archive is damaged.
        FileNotFoundError: no such file.
    """
    with open(path, "rb") as f:
        if f.read(len(_ZIP_START)) != _ZIP_START:
            return
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            stored = all(m.compress_type == zipfile.ZIP_STORED and m.file_size == m.compress_size for m in members)
            # torch reads members without checking their checksums: a flipped byte in a tensor loaded as changed
            # weights (until 2026-12-07); every member is read once here against its CRC-32, if none inflates
            bad = archive.testzip() if stored else None
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as e:  # what zipfile raises for a damaged archive
        raise ValueError(f"{path} is not a torch model file (a damaged zip archive: {str(e)[:200]})") from e
    if bad is not None:
        raise ValueError(f"{path} is damaged: its member {bad!r} does not match its checksum (CRC-32); the file was "
                         "changed or cut after it was written: copy it again or use another")
    for m in members:
        if m.compress_type != zipfile.ZIP_STORED or m.file_size != m.compress_size:
            raise ValueError(f"{path} is not a model file octagames can read safely: its member {m.filename!r} "
                             f"takes {m.compress_size} bytes in the file and {m.file_size} once read (compression "
                             f"method {m.compress_type}); torch writes every member stored (method "
                             f"{zipfile.ZIP_STORED}, as many bytes read as in the file), so a compressed one, which "
                             "could inflate to any size in memory, is refused")


def load_model_file(path: str | Path, map_location: Any = "cpu", mmap: bool = False) -> Any:
    """The content of a model file or training checkpoint, read without running any code it holds.

    torch's weights-only reader rebuilds tensors, numbers, strings, lists, tuples and dicts, and
    here also numpy arrays and scalars (a checkpoint's RNG states, records and metrics), whose dtypes
    are then checked (no Python objects, every field inside its item); a pickle that names any other
    Python object (which an unpickler would call: a crafted file runs code that way) is refused
    before anything in it is called. A zip member torch would inflate is refused before torch reads
    the file (:func:`refuse_compressed_members`). Every file octagames writes loads this way.

    Args:
        path: the file (``az:``, ``ppo:`` and ``zoo:`` models, trainers' checkpoints).
        map_location: where tensors go (``torch.load``'s argument).
        mmap: map the file instead of reading it (large checkpoints).

    Raises:
        UnsafeModelFile: (a ``ValueError``) the file names other Python objects (the message names
            the first).
        ValueError: the file holds an array whose dtype is unsafe, a compressed zip member (which could
            inflate to any size), or is no file torch reads.
        FileNotFoundError: no such file.
    """
    import torch  # optional: the learn extra

    refuse_compressed_members(path)
    try:
        with _LOAD_LOCK, torch.serialization.safe_globals(_numpy_globals()):
            data = torch.load(Path(path), map_location=map_location, weights_only=True, mmap=mmap)
    # and what the unpickler raises on a file of other text or bytes (a CSV starting with "s" was IndexError, "h"
    # KeyError): a file torch cannot read, in words
    except (pickle.UnpicklingError, RuntimeError, EOFError, IndexError, KeyError, struct.error, UnicodeDecodeError,
            ValueError) as e:
        found = next((line.strip() for line in str(e).splitlines() if any(r in line.lower() for r in _REFUSALS)), "")
        if not found:  # a damaged or foreign file, not one that asks for more than plain data
            lines = [line.strip() for line in str(e).splitlines() if line.strip()] or [type(e).__name__]
            detail = next((line for line in lines if line.startswith("Unsupported operand")), lines[0])
            raise ValueError(f"{path} is not a torch model file ({detail[:200]})") from e
        found = found.partition(" was not an allowed")[0].removeprefix("WeightsUnpickler error: ")
        raise UnsafeModelFile(f"{path} is not a model file octagames can read safely: torch's weights-only "
                              f"reader refused it ({found}). Every file octagames writes holds only tensors, "
                              "numbers, strings and numpy arrays; a pickle that names other Python objects could "
                              "run any code when loaded, so it is refused") from e
    _check_arrays(data, path)
    return data


def recorded_config(game: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Every ``Config`` field of a config a model file recorded.

    A field the file lacks (added to the ``Config`` after the model was saved) takes today's
    default; a field the ``Config`` no longer has is dropped.

    Args:
        game: the short game name the file records.
        fields: the file's ``game_config``.

    Returns:
        ``{field: value}`` for every field of the game's ``Config``.

    Raises:
        ValueError: ``fields`` is not a mapping.
    """
    if not isinstance(fields, Mapping):  # a file edited or made by hand
        raise ValueError(f"a model file's game_config is not valid: a mapping of config fields, not a "
                         f"{type(fields).__name__} (the file was edited or made by hand)")
    known = {f.name for f in dataclasses.fields(importlib.import_module(f"octagames.{game}").Config)}
    kept = {k: v for k, v in fields.items() if k in known}
    try:
        return catalogue.full_config(game, kept)
    except ValueError:  # a value today's Config refuses: compare what was recorded as it is
        return {**catalogue.full_config(game), **kept}


def fitting_options(game: str, config: Mapping[str, Any], players: bool = False) -> str:
    """The command-line options that give ``config``: ``--game octrix-round --players 3 --config ranks=2``.

    Args:
        game: the short game name.
        config: every field of the game's ``Config`` (:func:`recorded_config`).
        players: name ``--players`` even where the count is the variant's default.
    """
    base, *extra = catalogue.variant_name(game, config).split("+")
    out = f"--game {base}"
    if players or config["num_players"] != catalogue.variant(base).default_players:
        out += f" --players {config['num_players']}"
    if extra:
        out += " --config " + " ".join(extra)
    return out


def config_mismatch(game: str, recorded: Mapping[str, Any], config: Any, where: str) -> str | None:
    """The sentence refusing a model recorded for ``recorded`` on ``config``; ``None`` when they agree.

    Args:
        game: the short game name (both configs are of this game).
        recorded: the model file's ``game_config``.
        config: the ``Config`` (or a mapping of its fields) the model is asked to play.
        where: what the model is, for the sentence (``"zoo:octrix"``, ``"the model of agent 'az'"``).
    """
    mine = recorded_config(game, recorded)
    theirs = catalogue.full_config(game, config)
    differ = [k for k in mine if mine[k] != theirs.get(k)]
    if not differ:
        return None
    fields = "; ".join(f"{k}={theirs.get(k)!r} here, {mine[k]!r} in training" for k in differ)
    return (f"{where} was trained on {catalogue.describe(game, mine)}, not {catalogue.describe(game, theirs)} "
            f"({fields}); play it with {fitting_options(game, mine, 'num_players' in differ)}, or {ALLOW_HINT}")


def check_config(game: str, recorded: Mapping[str, Any], config: Any, where: str, allow: bool = False,
                 warned: set[str] | None = None) -> None:
    """Refuse a model recorded for another config of ``game``; with ``allow``, warn and go on.

    Args:
        game: the short game name.
        recorded: the model file's ``game_config``.
        config: the ``Config`` of the game the model is asked to play.
        where: what the model is, for the sentence.
        allow: warn (``UserWarning``) instead of refusing.
        warned: the sentences this model already warned (an agent's own set, which this adds to): an
            agent checks its game at every :meth:`reset`, and warns once per config, not once per game.

    Raises:
        ValueError: the configs differ and ``allow`` is false (the sentence of :func:`config_mismatch`).
    """
    text = config_mismatch(game, recorded, config, where)
    if text is None:
        return
    if not allow:
        raise ValueError(text)
    if warned is not None:
        if text in warned:
            return
        warned.add(text)
    warnings.warn(text.split("; play it with")[0] + "; playing it anyway (allow_config_mismatch=True)",
                  UserWarning, stacklevel=3)


def built_to_fit(build: Callable[[], Any], state: Any, path: str | Path) -> Any:
    """The module ``build()`` makes, once a copy built on torch's meta device (no memory spent) has exactly the
    parameters and buffers of ``state`` (a model file's state dict), each of its shape.

    A file is untrusted input: its spec could ask for a network far larger than its weights (gigabytes from a file
    of kilobytes), or its weights be of other names or shapes (torch's ``RuntimeError``). Both are refused in words
    before anything is allocated.

    Raises:
        ValueError: a spec the network refuses, weights that do not fit it (naming the first difference), or a
            weight that is NaN or infinite (naming its tensor).
    """
    import torch  # optional: the learn extra

    try:
        with torch.device("meta"):
            shell = build()
    except (TypeError, ValueError, KeyError, AttributeError, RuntimeError) as e:
        raise ValueError(f"{path}: its network's spec is not valid: {type(e).__name__}: {e}") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: its state_dict is not a dict of tensors")
    want = {k: tuple(v.shape) for k, v in shell.state_dict().items()}
    have = {k: tuple(v.shape) for k, v in state.items()}
    if want != have:
        name = next(k for k in sorted({*want, *have}) if want.get(k) != have.get(k))
        raise ValueError(f"{path}: its weights do not fit its network's spec: {name} is "
                         f"{'missing' if name not in have else list(have[name])} in the file, "
                         f"{'none' if name not in want else list(want[name])} in the network")
    bad = next((k for k, v in state.items() if v.is_floating_point() and not bool(torch.isfinite(v).all())), None)
    if bad is not None:  # a run that diverged: its agent's search valued every move NaN and played action 0
        raise ValueError(f"{path}: its weights are not all finite: {bad} holds NaN or infinity (a training run that "
                         "diverged wrote it); use an earlier checkpoint or train again")
    return build()
