"""Game configs on the command line, shared by every script in ``experiments/``.

Two forms:

* a **game config**: ``"num_players=2,deal_penalty=1"`` (or the items as a
  sequence, ``("num_players=2", "deal_penalty=1")``): fields of the game's
  ``Config``, each value converted to the type of the field's default;
* a **game spec**: ``"achten:num_players=2,deal_penalty=1"``: a game name,
  optionally followed by a colon and a game config.
"""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Sequence, TypeVar

import octagames.agents
from octagames.agents.arena import GameJournal
from octagames.agents.registry import make_agent
from octagames.core import Game, available_games

_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")
ConfigT = TypeVar("ConfigT")


def parse_game_config(config: str | Sequence[str], game: str) -> dict[str, Any]:
    """``"num_players=2,hand_size=6"`` -> ``{"num_players": 2, "hand_size": 6}``, typed by ``game``'s Config.

    Args:
        config: ``key=value`` items separated by commas, or a sequence of such strings
            (what a tyro ``tuple[str, ...]`` flag gives: ``--game-config a=1 b=2`` or ``a=1,b=2``).
        game: the short game name whose ``Config`` fields are accepted.

    Raises:
        ValueError: an unknown game, an item that is not ``key=value`` with a
            field of the game (the fields are listed), or a value that does not
            convert to the field's type.
    """
    if game not in available_games():
        raise ValueError(f"game={game!r} is not valid; valid values: {sorted(available_games())}")
    parts = [config] if isinstance(config, str) else list(config)
    items = [item.strip() for part in parts for item in part.split(",") if item.strip()]
    if not items:
        return {}
    defaults = Game(game).config
    fields = sorted(f.name for f in dataclasses.fields(defaults))
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = (x.strip() for x in item.partition("="))
        if not sep or key not in fields:
            raise ValueError(f"game_config: {item!r} is not key=value with a field of {game}; fields: {fields}")
        kind = type(getattr(defaults, key))
        if kind is bool:
            if value.lower() not in _TRUE + _FALSE:
                raise ValueError(f"game_config: {key} must be true or false, got {value!r}")
            out[key] = value.lower() in _TRUE
        else:
            try:
                out[key] = kind(value)
            except ValueError as e:
                raise ValueError(f"game_config: {key}={value!r} is not a {kind.__name__}") from e
    return out


def parse_game_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"octa:rules=nl"`` -> ``("octa", {"rules": "nl"})``; ``"octrix"`` -> ``("octrix", {})``.

    Raises:
        ValueError: an unknown game name (the valid ones are listed) or a bad config (see
            :func:`parse_game_config`).
    """
    name, _, config = spec.partition(":")
    return name.strip(), parse_game_config(config, name.strip())


def game_from_spec(spec: str) -> Game:
    """The :class:`~octagames.core.Game` of a game spec (``"achten:deal_penalty=1"``); the config is checked."""
    name, config = parse_game_spec(spec)
    return Game(name, **config)


def config_or_defaults(config_cls: type[ConfigT]) -> ConfigT:
    """The script's config from the command line (tyro), or its defaults in a base install without tyro."""
    try:
        import tyro  # optional: the `train` extra
    except ImportError:
        return config_cls()
    return tyro.cli(config_cls)


@dataclass(frozen=True)
class RunConfig:
    """The fields every trainer shares (the game, seeds, device, where the run goes); trainers extend it."""

    KIND: ClassVar[str] = "run"  # the run folder's parent: runs/<KIND>/...

    # -- game -----------------------------------------------------------------
    game: str = "octrix"
    """short game name: octrix, achten, octiles, octa"""
    num_players: int = 2
    """seats (within what the game allows)"""
    game_config: tuple[str, ...] = ()
    """other config fields of the game as key=value (e.g. ranks=4 hand_size=4, or match=True)"""
    # -- run ------------------------------------------------------------------
    seed: int = 0
    """seeds the games, torch, numpy and python RNGs"""
    device: str = "auto"
    """torch device: auto (cuda when present, else cpu), cpu or cuda"""
    torch_threads: int = 1
    """torch CPU threads (0 leaves torch's default); 1 is fastest for these small MLPs on a shared CPU"""
    run_dir: str = ""
    """output folder (default runs/<trainer>/<game>-<players>p-s<seed>)"""
    resume: bool = False
    """continue from run_dir/checkpoint.pt"""
    time_budget_s: float = 0.0
    """also stop after this much wall time (0: no limit); breaks exact reproducibility"""
    progress: bool = True
    """show a tqdm progress bar"""
    # -- warm start -----------------------------------------------------------
    imitation_games: int = 0
    """teacher games before training (0: no warm start)"""
    imitation_teacher: str = "heuristic"
    """registry spec of the teacher"""
    imitation_epsilon: float = 0.1
    """share of teacher-game moves played at random (labelled with the teacher's choice)"""
    imitation_steps: int = 1000
    """gradient steps on the teacher's decisions"""
    imitation_opponent: str = ""
    """registry spec of the teacher's opponents ("": the teacher in every seat, all its decisions kept)"""
    imitation_workers: int = 1
    """processes playing the teacher games (the same deals for any count; the agents' draws differ
    between one process and several, not between counts above one)"""
    # -- Ray ------------------------------------------------------------------
    ray_actors: int = 0
    """self-play actors on Ray (the distributed extra); 0: self-play in this process. One actor
    reproduces the single-process run; N actors give N times the self-play per step of the learner"""
    ray_address: str = ""
    """the Ray cluster of the actors (auto: the one this machine belongs to; empty: a local instance)"""

    def __post_init__(self) -> None:
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ValueError(f"device={self.device!r} is not valid; valid values: auto, cpu, cuda")
        for name in ("imitation_games", "imitation_steps", "ray_actors"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 0")
        if self.imitation_workers < 1:
            raise ValueError(f"imitation_workers={self.imitation_workers} is not valid; it must be >= 1")
        if not 0.0 <= self.imitation_epsilon <= 1.0:
            raise ValueError(f"imitation_epsilon={self.imitation_epsilon} is not valid; it must be in [0, 1]")
        Game(self.game, **self.game_kwargs())  # unknown games, fields and values fail here

    def game_kwargs(self) -> dict[str, Any]:
        """The game's config fields (``num_players`` and ``game_config``)."""
        return {"num_players": self.num_players, **parse_game_config(self.game_config, self.game)}

    def resolved_run_dir(self) -> Path:
        """``run_dir``, or the default folder of this trainer, game and seed."""
        return Path(self.run_dir or f"runs/{self.KIND}/{self.game}-{self.num_players}p-s{self.seed}")


def usable_agents(specs: Sequence[str], game: str) -> tuple[list[str], dict[str, str]]:
    """Split agent specs into those that build for ``game`` and the others, with the reason of each refusal."""
    ok, skipped = [], {}
    for spec in specs:
        try:
            make_agent(spec, game)
        except Exception as e:  # unknown or unavailable agent for this game
            skipped[spec] = f"{type(e).__name__}: {e}"
            continue
        ok.append(spec)
    return ok, skipped


def git_commit() -> str:
    """The short hash of the checkout's HEAD (``"unknown"`` outside a git checkout)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True)
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def command_line(cfg: Any, module: str, python: str = "python") -> list[str]:
    """The command that runs ``python -m <module>`` with config ``cfg`` (a dataclass parsed by tyro):
    every field that differs from its default, as a flag."""
    args = [python, "-m", module]
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if value == f.default:
            continue
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            args.append(flag if value else f"--no-{f.name.replace('_', '-')}")
        elif isinstance(value, (tuple, list)):
            args += [flag, *map(str, value)]
        else:
            args += [flag, str(value)]
    return args


def saved_command(cls: type, saved: dict[str, Any], module: str) -> str:
    """The command line of a run whose config dataclass ``cls`` was saved as the dict ``saved``.

    Saved lists (JSON and checkpoints keep tuples as lists) become tuples again; fields
    ``cls`` no longer has are left out.
    """
    fields = {f.name for f in dataclasses.fields(cls)}
    cfg = {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items() if k in fields}
    return " ".join(command_line(cls(**cfg), module))


def executor_from(ray: bool, ray_address: str, chunk_size: int = 8) -> Any:
    """The games' executor of the ``--ray``/``--ray-address`` flags: ``None`` (this process) or Ray tasks."""
    if not (ray or ray_address):
        return None
    from octagames.agents.distributed import RayGames  # the only module that imports Ray
    return RayGames(address=ray_address or None, chunk_size=chunk_size)


def model_fingerprints(specs: Sequence[str]) -> dict[str, str]:
    """A digest of every model file the agent specs name (``ppo:<path>``, ``az:<path>``, ``zoo:<name>``),
    so that a saved game journal is not resumed after a model changed."""
    out = {}
    for spec in specs:
        name, _, rest = spec.partition(":")
        arg = rest.split(":")[0]
        path = Path(octagames.agents.__file__).parent / "zoo" / f"{arg}.pt" if name == "zoo" else Path(arg)
        if arg and path.is_file():
            out[spec] = hashlib.blake2b(path.read_bytes(), digest_size=8).hexdigest()
    return out


def open_journal(path: Path, resume: bool, header: dict[str, Any]) -> GameJournal:
    """The run's game journal: resumed when ``resume`` (and it says so), else started afresh; a journal
    of other settings or other model files is moved aside to ``<name>.old`` and the run starts over.

    The header gets the digests of the model files its ``agents``/``agent``/``opponent`` specs name.
    """
    specs = [s for key in ("agents", "agent", "opponent") for s in
             ([header[key]] if isinstance(header.get(key), str) else header.get(key, []))]
    header = {**header, "models": model_fingerprints(specs)}
    if not resume and path.exists():
        path.unlink()
    try:
        journal = GameJournal(path, header)
    except ValueError:  # the games of other settings (or models): kept aside, never mixed in
        old = path.with_name(path.name + ".old")
        path.replace(old)
        print(f"{path} held the games of other settings; moved to {old}, starting over")
        journal = GameJournal(path, header)
    if journal.done:
        print(f"resuming: {len(journal.done)} games already played ({path})")
    return journal
