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
"""

from __future__ import annotations

import json
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from octagames import catalogue
from octagames.agents.model_config import ALLOW_HINT, config_mismatch, fitting_options, recorded_config
from octagames.core import Game

#: the solvers that write checkpoints, by the name a checkpoint records, and how to read each
SOLVERS = {"cfr": "an exact CFR checkpoint (CFRSolver.save)", "mccfr": "an MCCFR checkpoint (MCCFRSolver.save)"}

#: what to do with a checkpoint that records no game
TRAIN_AGAIN = ("it was written before CFR checkpoints recorded their game and config, so it cannot be checked "
               "against the game; train it again (python -m octagames.experiments.train_cfr)")


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
    """

    path: str
    solver: str
    game: str | None
    game_config: dict[str, Any] | None
    deal_pool: dict[str, Any] | None

    def kind(self) -> str:
        """``"an MCCFR checkpoint (MCCFRSolver.save)"``: the solver that wrote the file, in words."""
        return SOLVERS[self.solver]

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


def read_info(path: str | Path, where: str | None = None) -> CheckpointInfo:
    """What the checkpoint at ``path`` records about itself (no arrays are read, nothing is unpickled).

    Args:
        path: an npz written by ``CFRSolver.save`` or ``MCCFRSolver.save``.
        where: what the file is, for the sentences (default: its path).

    Raises:
        ValueError: no such file, or not a CFR or MCCFR checkpoint.
    """
    named = f"{where}: {path}" if where and where != str(path) else str(path)
    if not Path(path).is_file():
        raise ValueError(f"{named} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError("a single array, not an npz archive")
            files = set(z.files)
            text = {k: str(z[k]) for k in ("solver", "game", "game_config", "deal_pool") if k in files}
        with zipfile.ZipFile(path) as archive:  # every member against its CRC: numpy reads an array without it
            bad = archive.testzip()
        if bad is not None:
            raise ValueError(f"its member {bad!r} does not match its checksum (the file is damaged)")
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
    )


__all__ = ["SOLVERS", "TRAIN_AGAIN", "CheckpointInfo", "damage_refused", "game_entries", "read_info"]
