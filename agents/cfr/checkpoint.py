"""What a CFR or MCCFR checkpoint was trained on, and the refusal to use it for another game.

Every checkpoint (:meth:`~octagames.agents.cfr.solver.CFRSolver.save`,
:meth:`~octagames.agents.cfr.mccfr.MCCFRSolver.save`) records, as text entries of its npz
(read without ``allow_pickle``), the solver that wrote it (``"solver"``: ``"cfr"`` or
``"mccfr"``), the game (``"game"``: the short name, or ``spiel:<name>`` for a pyspiel game)
and every field of the game's ``Config`` (``"game_config"``, JSON text); an exact CFR
checkpoint of a deal pool also records the pool (``"deal_pool"``, JSON text). A checkpoint is
refused for another game or config with the sentences of
:mod:`octagames.agents.model_config` (both configs named as variants, and the options that
give the checkpoint's own); one written before checkpoints recorded their game is refused
with a request to train it again.

Before any array's data is read (numpy inflates a member whole), :func:`read_info` reads each
array's header (its shape and dtype) and refuses a member whose declared size is not the one its
shape implies; the loaders then check the shapes against the game or tree
(:meth:`CheckpointInfo.check_arrays`, :func:`check_mccfr_tables`), so that a crafted file of a
megabyte cannot inflate to gigabytes, nor a table of another width load.
"""

from __future__ import annotations

import json
import math
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterator, Mapping, Sequence

import numpy as np

from octagames import catalogue
from octagames.agents.model_config import ALLOW_HINT, config_mismatch, fitting_options, recorded_config
from octagames.agents.cfr.tabular import KEY_BYTES
from octagames.core import Game

#: the solvers that write checkpoints, by the name a checkpoint records, and how to read each
SOLVERS = {"cfr": "an exact CFR checkpoint (CFRSolver.save)", "mccfr": "an MCCFR checkpoint (MCCFRSolver.save)"}

#: what to do with a checkpoint that records no game
TRAIN_AGAIN = ("it was written before CFR checkpoints recorded their game and config, so it cannot be checked "
               "against the game; train it again (python -m octagames.experiments.train_cfr)")


#: the most bytes a scalar or text entry of a checkpoint (its game, config, generator state) may take once read
MAX_ENTRY_BYTES = 1 << 20

#: the fewest bytes of the file an MCCFR table keeps per information set (its key, a 16-byte digest, does not
#: compress): a checkpoint that declares more rows than its size in bytes over this is refused unread
MIN_ROW_BYTES = KEY_BYTES // 2

#: the most bytes an MCCFR checkpoint's three tables may take once read per byte of the file, beyond
#: :data:`TABLE_BYTES_FREE`: a real checkpoint's take about 25 (octrix-round-small, 348 information sets); zeros
#: compress about a thousandfold, which the row count alone (:data:`MIN_ROW_BYTES`) let through for games of many
#: actions (Octa's 1,074: about 3 GiB read from a file of 1 MiB; review, 2026-12-07)
TABLE_BYTES_PER_FILE_BYTE = 256
#: the bytes of tables any checkpoint may declare whatever its size
TABLE_BYTES_FREE = 1 << 20

#: an array's shape
Shape = tuple[int, ...]


class DamagedArchive(ValueError):
    """An npz whose members' headers do not fit their sizes (:func:`array_headers`): a damaged or crafted file."""


def game_entries(solver: str, game: Game | str | None, deal_pool: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The npz entries that record what a checkpoint is: its solver, game, config and deal pool (text only).

    Args:
        solver: ``"cfr"`` or ``"mccfr"`` (:data:`SOLVERS`).
        game: the game trained on; a pyspiel game as its name ``spiel:<name>`` (no config recorded);
            ``None``: none recorded (such a checkpoint is refused where a game is checked).
        deal_pool: the deal pool an exact CFR tree was reduced to (``{"k", "seed", "per_view"}``).
    """
    out = {"solver": solver}
    if isinstance(game, Game):
        out["game"] = game.name
        out["game_config"] = json.dumps(catalogue.full_config(game.name, game.config), sort_keys=True)
    elif game is not None:
        out["game"] = str(game)
    if deal_pool:
        out["deal_pool"] = json.dumps(dict(deal_pool), sort_keys=True)
    return out


@dataclass(frozen=True)
class CheckpointInfo:
    """What a checkpoint records about itself (:func:`read_info`).

    Attributes:
        path: the file.
        solver: ``"cfr"`` or ``"mccfr"`` (told from the arrays in a checkpoint that predates the entry).
        game: the game's short name (``spiel:<name>`` for a pyspiel game); ``None`` in a checkpoint
            written before checkpoints recorded it.
        game_config: every field of the game's ``Config`` (``None`` where none is recorded).
        deal_pool: the deal pool of an exact CFR tree (``None``: the full game).
        arrays: the shape and dtype of each array, by name, as its header declares them (each member's
            declared size checked against them: :func:`array_headers`).
        size: the file's size in bytes.
    """

    path: str
    solver: str
    game: str | None
    game_config: dict[str, Any] | None
    deal_pool: dict[str, Any] | None
    arrays: Mapping[str, tuple[Shape, np.dtype]] = field(default_factory=dict)
    size: int = 0

    def kind(self) -> str:
        """``"an MCCFR checkpoint (MCCFRSolver.save)"``: the solver that wrote the file, in words."""
        return SOLVERS[self.solver]

    def check_arrays(self, expected: Mapping[str, tuple[Sequence[Shape], str]], optional: Collection[str] = ()) -> None:
        """Refuse the file unless each array named has one of its shapes and a dtype of one of its kinds, before
        any array's data is read.

        Args:
            expected: ``{name: (shapes, kinds)}``: the shapes allowed (``[(rows, actions)]``) and the dtype kinds
                (``"f"``: float, ``"iu"``: integer, ``"U"``: text).
            optional: the names a file may lack (entries that older checkpoints did not write).

        Raises:
            ValueError: ``<path> is a damaged <kind>: its array '<name>' ...``, naming what it is and what is valid.
        """
        for name, (shapes, kinds) in expected.items():
            if name not in self.arrays:
                if name in optional:
                    continue
                raise ValueError(f"{self.path}, {self.kind()}, is damaged: it has no array {name!r}")
            shape, dtype = self.arrays[name]
            if tuple(shape) not in {tuple(s) for s in shapes} or dtype.kind not in kinds:
                valid = " or ".join(str(tuple(s)) for s in shapes)
                raise ValueError(f"{self.path}, {self.kind()}, is damaged: its array {name!r} is {tuple(shape)} of "
                                 f"{dtype}, not {valid} of kind {' or '.join(kinds)} (numpy's dtype.kind)")

    def require_game(self, where: str) -> tuple[str, dict[str, Any]]:
        """The recorded game and its full config (fields added since the file was written take their default).

        Args:
            where: what the checkpoint is, for the sentence (``"cfr:runs/.../checkpoint.npz"``).

        Raises:
            ValueError: the file records no game (written before checkpoints recorded it: train it
                again), or a game that is not one of ours (a pyspiel game).
        """
        if self.game is None or (self.game in catalogue.games() and self.game_config is None):
            raise ValueError(f"{where} records no game: {TRAIN_AGAIN}")
        if self.game not in catalogue.games():
            raise ValueError(f"{where} was trained on {self.game}, which is not one of our games "
                             f"(valid games: {catalogue.games()})")
        return self.game, recorded_config(self.game, self.game_config or {})

    def game_object(self, where: str) -> Game:
        """A :class:`~octagames.core.Game` of the recorded game and config (see :meth:`require_game`)."""
        name, config = self.require_game(where)
        return Game(name, **config)

    def mismatch(self, game: Game, where: str, allow_hint: bool = True) -> str | None:
        """The sentence refusing this checkpoint for ``game``; ``None`` when it was trained on it.

        Args:
            game: the game asked for.
            where: what the checkpoint is, for the sentence.
            allow_hint: end a config mismatch with the hint of ``allow_config_mismatch`` (for agents).

        Raises:
            ValueError: the file records no game, or not one of ours (:meth:`require_game`).
        """
        name, config = self.require_game(where)
        if name != game.name:
            return (f"{where} was trained on {catalogue.describe(name, config)}, not "
                    f"{catalogue.describe(game.name, game.config)}; play it with {fitting_options(name, config)}")
        text = config_mismatch(name, config, game.config, where)
        return text if text is None or allow_hint else text.removesuffix(f", or {ALLOW_HINT}")


@contextmanager
def damage_refused(path: str | Path) -> Iterator[None]:
    """Read a checkpoint's arrays inside this: what a damaged archive makes numpy or zipfile raise (a missing
    array's ``KeyError``, ``zlib.error``, ``BadZipFile``, ``EOFError``, a header's ``TokenError`` ...) becomes a
    ``ValueError`` naming the file, as :func:`read_info`'s refusals are; its own ``ValueError`` passes as it is."""
    try:
        yield
    except ValueError:
        raise
    except Exception as e:  # noqa: BLE001 - see above
        raise ValueError(f"{path} is a damaged CFR or MCCFR checkpoint: {type(e).__name__}: {str(e)[:200]}") from e


def array_headers(archive: zipfile.ZipFile) -> dict[str, tuple[Shape, np.dtype]]:
    """The shape and dtype of each array of an npz, read from its header alone (a few hundred bytes inflated), each
    member's declared size (``ZipInfo.file_size``, which bounds what zipfile inflates) checked against them.

    Args:
        archive: the npz, open.

    Returns:
        ``{name: (shape, dtype)}``, by the name numpy gives the array (the member's, less ``.npy``).

    Raises:
        DamagedArchive: (a ``ValueError``) a member that holds Python objects, one whose declared size is not the
            one its shape and dtype take, a scalar or text entry over :data:`MAX_ENTRY_BYTES`, or two members of
            one name (each sentence names the member).
    """
    out: dict[str, tuple[Shape, np.dtype]] = {}
    for member in archive.infolist():
        named = f"its member {member.filename!r}"
        with archive.open(member) as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise DamagedArchive(f"{named} is a numpy array of format {version}, which np.savez does not write")
            header = f.tell()
        if dtype.hasobject:
            raise DamagedArchive(f"{named} holds Python objects ({dtype}), which a checkpoint never does")
        size = header + math.prod(shape) * dtype.itemsize
        if member.file_size != size:
            raise DamagedArchive(f"{named} declares {member.file_size} bytes, but its header ({tuple(shape)} of "
                                 f"{dtype}) takes {size}")
        if not shape and size > MAX_ENTRY_BYTES:
            raise DamagedArchive(f"{named} is a single {dtype} of {size} bytes; a checkpoint's entries take at most "
                                 f"{MAX_ENTRY_BYTES}")
        name = member.filename.removesuffix(".npy")
        if name in out:
            raise DamagedArchive(f"it holds two members named {name!r}")
        out[name] = (tuple(shape), dtype)
    return out


def check_mccfr_tables(info: CheckpointInfo, game: Game) -> int:
    """Refuse an MCCFR checkpoint whose tables do not fit ``game``, before any of their data is read.

    ``players`` has one row per information set (at most the file's size over :data:`MIN_ROW_BYTES`, and the three
    tables at most :data:`TABLE_BYTES_PER_FILE_BYTE` times the file's size, plus :data:`TABLE_BYTES_FREE`);
    ``keys`` as many rows of :data:`~octagames.agents.cfr.tabular.KEY_BYTES` (or, written before the
    digests, of the observation's bytes); ``masks``, ``regrets`` and ``strategy_sum`` as many rows of the
    game's action count.

    Returns:
        The number of information sets.

    Raises:
        ValueError: a table of another shape or dtype, or more rows than the file can hold (naming the file and
            the array).
    """
    players = info.arrays.get("players", ((), np.dtype("int32")))[0]
    n = players[0] if len(players) == 1 else 0
    if n > info.size // MIN_ROW_BYTES:
        raise ValueError(f"{info.path}, {info.kind()}, is damaged: its array 'players' declares {n} information "
                         f"sets, more than a file of {info.size} bytes holds (each keeps a {KEY_BYTES}-byte key, "
                         "which does not compress)")
    tables = 3 * n * game.num_actions * 8
    if tables > TABLE_BYTES_PER_FILE_BYTE * info.size + TABLE_BYTES_FREE:
        raise ValueError(f"{info.path}, {info.kind()}, is damaged: its tables of {n} information sets and "
                         f"{game.num_actions} actions would take {tables} bytes once read, more than "
                         f"{TABLE_BYTES_PER_FILE_BYTE} times the file's {info.size} bytes (and "
                         f"{TABLE_BYTES_FREE} more) that a checkpoint's tables take")
    keys = [(n, KEY_BYTES), (n, 4 * game.observation_size)] + ([(0, 0)] if n == 0 else [])
    table = ([(n, game.num_actions)], "f")
    info.check_arrays({"players": ([(n,)], "iu"), "keys": (keys, "u"), "masks": table, "regrets": table,
                       "strategy_sum": table, "iteration": ([()], "iu"), "seed": ([()], "iu"),
                       "epsilon": ([()], "f"), "sampling": ([()], "U"), "rng_state": ([()], "U")},
                      optional=("seed", "rng_state"))
    return n


def read_info(path: str | Path, where: str | None = None) -> CheckpointInfo:
    """What the checkpoint at ``path`` records about itself (no arrays are read, nothing is unpickled).

    Args:
        path: an npz written by ``CFRSolver.save`` or ``MCCFRSolver.save``.
        where: what the file is, for the sentences (default: its path).

    Raises:
        ValueError: no such file, or not a CFR or MCCFR checkpoint (a damaged one; a member whose declared size
            is not its shape's: :func:`array_headers`).
    """
    named = f"{where}: {path}" if where and where != str(path) else str(path)
    if not Path(path).is_file():
        raise ValueError(f"{named} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            arrays = array_headers(archive)  # every header before any array is read
            with np.load(path, allow_pickle=False) as z:
                files = set(z.files)
                text = {k: str(z[k]) for k in ("solver", "game", "game_config", "deal_pool") if k in files}
            bad = archive.testzip()  # every member against its CRC: numpy reads an array without it
        if bad is not None:
            raise ValueError(f"its member {bad!r} does not match its checksum (the file is damaged)")
    except DamagedArchive as e:
        raise ValueError(f"{named} is a damaged CFR or MCCFR checkpoint: {e}") from e
    except zipfile.BadZipFile as e:  # a single .npy array, or no numpy file at all
        raise ValueError(f"{named} is not a CFR or MCCFR checkpoint (an npz written by train_cfr): "
                         f"not an npz archive ({e})") from e
    except Exception as e:  # noqa: BLE001 - whatever a damaged file makes numpy or zipfile raise
        raise ValueError(f"{named} is not a CFR or MCCFR checkpoint (an npz written by train_cfr): "
                         f"{type(e).__name__}: {str(e)[:200]}") from e
    if "solver" in text:
        solver = text["solver"]
    elif "sampling" in files:  # written before checkpoints named their solver
        solver = "mccfr"
    elif "fingerprint" in files:
        solver = "cfr"
    else:
        solver = ""
    if solver not in SOLVERS:
        raise ValueError(f"{named} is not a CFR or MCCFR checkpoint (an npz written by train_cfr)")
    return CheckpointInfo(
        path=str(path),
        solver=solver,
        game=text.get("game"),
        game_config=json.loads(text["game_config"]) if "game_config" in text else None,
        deal_pool=json.loads(text["deal_pool"]) if "deal_pool" in text else None,
        arrays=arrays,
        size=Path(path).stat().st_size,
    )


__all__ = ["MAX_ENTRY_BYTES", "MIN_ROW_BYTES", "SOLVERS", "TRAIN_AGAIN", "CheckpointInfo", "DamagedArchive",
           "array_headers", "check_mccfr_tables", "damage_refused", "game_entries", "read_info"]
