"""The command line shared by every script in ``experiments/``: the game options, game configs,
user errors in one line, the standard library's fallback parser.

**The game options of a verb that plays, trains or measures one game** are the fields of
:class:`GameArgs`; a script's config dataclass inherits them (they come first in its ``--help``)::

    @dataclass(frozen=True)
    class EvalConfig(GameArgs):
        agent: str = "heuristic"
        \"\"\"agent spec\"\"\"

        def __post_init__(self) -> None:
            super().__post_init__()     # checks the variant, the seats and the config fields

    cfg = parse_config(EvalConfig)      # --game octa-nl --players 2 --config rules=nl ...
    game = cfg.make_game()              # the Game of the variant, players and config
    name, fields = cfg.resolve()        # ("octa", {"rules": "nl", "num_players": 2, ...})

* ``--game VARIANT``: a variant of :mod:`octagames.catalogue` (``octrix``, ``octrix-round``,
  ``octa-nl``, ...; ``octagames list`` prints them) or a bare game name (its seed variant);
* ``--players N``: the seats (default: the variant's);
* ``--config key=value ...``: other fields of the game's ``Config`` over the variant's
  (``--config ranks=4 hand_size=4``; commas also separate items: ``ranks=4,hand_size=4``).

**The verbs that run several games** (bench, bench-az, bench-ppo, bench-mcts, bench-startup, warmup,
fuzz) inherit :class:`GamesArgs` instead: the same three flags, ``--game`` taking several
variants (``--game octrix achten-dealer-pays octa-nl``), each of which may carry its own fields
(``--game octrix-round:ranks=3,hand_size=3 achten``); ``--players`` and ``--config`` apply to
every game; ``resolve_all()`` gives each game's ``(game, fields)``.

``GameArgs`` is a frozen dataclass: a config class that inherits it is frozen too. tyro
(the train extra) and :func:`stdlib_parser` (a base install) read the inherited fields alike.

A **game config** (:func:`parse_game_config`, what ``--config`` and a variant's ``:fields`` read):
``"num_players=2,deal_penalty=1"`` (or the items as a sequence, ``("num_players=2",
"deal_penalty=1")``): fields of the game's ``Config``, each value converted to the type of the
field's default.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import hashlib
import inspect
import json
import os
import shlex
import subprocess
import sys
import textwrap
import types
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import (Annotated, Any, Callable, Iterator, NoReturn, Sequence, TypeVar, Union, get_args, get_origin,
                    get_type_hints)

import octagames.agents
from octagames.agents.arena import DamagedJournal, GameJournal, NoHeaderError, journal_lock
from octagames.agents.registry import AGENTS, make_agent
from octagames import catalogue
from octagames.core import Game, is_count, load_module
from octagames.envs._extras import missing_extra

try:  # optional (the train extra): without it the standard library's parser reads the same flags
    import tyro
except ModuleNotFoundError:
    tyro = None  # type: ignore[assignment]

_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")
ConfigT = TypeVar("ConfigT")

#: marks a config field read as a positional argument (``game: Annotated[str, POSITIONAL]``), for tyro
#: and for the standard library's parser alike
POSITIONAL: Any = tyro.conf.Positional if tyro is not None else "positional"
#: marks a tuple field whose flag is given once per value (``--allowed-host a --allowed-host b``), for
#: tyro and for the standard library's parser alike
REPEATED: Any = tyro.conf.UseAppendAction if tyro is not None else "repeated"


@dataclass(frozen=True)
class _ShownDefault:
    """What :func:`shown_default` gives where tyro is absent (or too old to take it): read by :func:`stdlib_parser`."""

    help_behavior_hint: str


def shown_default(text: str) -> Any:
    """Metadata of a config field (``Annotated[tuple[str, ...], shown_default("every game")] = ()``): its ``--help``
    ends ``(default: <text>)`` instead of the value, for a default that stands for something (an empty tuple: the
    verb's own list), with tyro and with the standard library's parser alike."""
    hint = f"(default: {text})"
    if tyro is not None and "help_behavior_hint" in inspect.signature(tyro.conf.arg).parameters:
        return tyro.conf.arg(help_behavior_hint=hint)
    return _ShownDefault(hint)


def parse_game_config(config: str | Sequence[str], game: str) -> dict[str, Any]:
    """``"num_players=2,hand_size=6"`` -> ``{"num_players": 2, "hand_size": 6}``, typed by ``game``'s Config.

    Args:
        config: ``key=value`` items separated by commas, or a sequence of such strings
            (what a tyro ``tuple[str, ...]`` flag gives: ``--game-config a=1 b=2`` or ``a=1,b=2``).
        game: the game (or a variant of it) whose ``Config`` fields are accepted.

    Raises:
        ValueError: an unknown game, an item that is not ``key=value`` with a
            field of the game (the fields are listed), or a value that does not
            convert to the field's type.
    """
    game = catalogue.game_spec(game).game  # a variant name reads its game's fields
    parts = [config] if isinstance(config, str) else list(config)
    items = [item.strip() for part in parts for item in part.split(",") if item.strip()]
    if not items:
        return {}
    defaults = load_module(game).Config()
    fields = sorted(f.name for f in dataclasses.fields(defaults))
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = (x.strip() for x in item.partition("="))
        if not sep or key not in fields:
            raise ValueError(f"config: {item!r} is not key=value with a field of {game}; fields: {fields}")
        kind = type(getattr(defaults, key))
        if kind is bool:
            if value.lower() not in _TRUE + _FALSE:
                raise ValueError(f"config: {key} must be true or false, got {value!r}")
            out[key] = value.lower() in _TRUE
        else:
            words = {"int": "an integer", "float": "a number"}.get(kind.__name__, f"a {kind.__name__}")
            # int() and float() read "٣" as 3 and "1_0" as 10: a number here is plain ASCII (see core.is_count)
            if kind in (int, float) and (not value.isascii() or "_" in value or
                                         kind is int and not is_count(value.removeprefix("-").removeprefix("+"))):
                raise ValueError(f"config: {key}={value!r} is not {words} in plain digits (0-9)")
            try:
                out[key] = kind(value)
            except ValueError as e:
                raise ValueError(f"config: {key}={value!r} is not {words}") from e
    return out


def prog() -> str:
    """The command's name as the user typed it (``octagames-demo``, ``octagames demo``, ``demo.py``)."""
    return Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "octagames"


#: what a script prints in place of its chart where matplotlib (the render extra) is not installed
NO_CHART = "(no chart: matplotlib is not installed; pip install 'octagames[render]')"


def can_chart() -> bool:
    """Whether matplotlib is installed: a script draws its chart then, and otherwise writes its JSON and prints
    :data:`NO_CHART` (the base install runs it; only the picture needs the ``render`` extra)."""
    try:
        import matplotlib  # noqa: F401  (optional: the render extra)
    except ModuleNotFoundError:
        return False
    return True


def fail(message: str, command: str | None = None) -> NoReturn:
    """A user error: print ``<command>: error: <message>`` on stderr, one line, and exit with status 2.

    Args:
        message: what is wrong and what would be right (its line breaks become spaces).
        command: the command's name (default: :func:`prog`).
    """
    print(f"{command or prog()}: error: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(2)


def option_args(field: str, value: Any) -> list[str]:
    """The command-line arguments that ask for ``value`` of setting ``field`` (a dataclass field parsed by tyro):
    ``["--num-steps", "8"]``, ``["--no-progress"]``, ``["--eval-opponents", "random", "heuristic"]``."""
    flag = "--" + field.replace("_", "-")
    if isinstance(value, bool):
        return [flag] if value else [f"--no-{field.replace('_', '-')}"]
    if isinstance(value, (tuple, list)):
        return [flag, *map(str, value)]
    return [flag, str(value)]


def option(field: str, value: Any) -> str:
    """:func:`option_args` as the words a shell takes (``--run-dir 'my runs/a'``; an empty list: the option alone)."""
    return shlex.join(option_args(field, value))


def check_file_path(path: str | Path, field: str) -> None:
    """Refuse, before any work, a file path that cannot be written: a folder, a path through a file, or one under
    a folder this process may not write in (the folders it lacks would be created).

    Raises:
        ValueError: naming ``field`` and why.
    """
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{field}={str(path)!r} is a folder; give a file's path")
    if os.path.lexists(target) and not target.exists():
        raise ValueError(f"{field}={str(path)!r} cannot be written: it is a link that leads nowhere")
    parent = target.parent
    while not os.path.lexists(parent) and parent != parent.parent:  # a link to nothing is there, not missing
        parent = parent.parent
    if not parent.is_dir():
        what = "a file, not a folder" if parent.is_file() else "a link that leads nowhere, not a folder"
        raise ValueError(f"{field}={str(path)!r} cannot be written: {parent} is {what}")
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ValueError(f"{field}={str(path)!r} cannot be written: no permission to write in {parent}")


@contextmanager
def user_errors() -> Iterator[None]:
    """Report what the user can fix in one line and exit with status 2, without a traceback.

    A missing optional package names the extra that installs it (``pip install
    'octagames[train]'``); a bad setting (``ValueError``: an unknown agent or game, a bad
    game config), a file that is not there (a model path) or a path of the other kind or not writable (an
    ``--out-dir`` that is a file) gives its message. With the
    environment variable ``OCTAGAMES_TRACEBACK=1`` such errors keep their traceback (an
    error raised deep inside a long run may be a bug rather than a setting).

    Raises:
        ImportError: a module is missing that no extra installs (a broken install is not
            disguised as a user error).
    """
    try:
        yield
    except ImportError as e:
        if "pip install 'octagames[" in str(e):  # already names its extra
            fail(str(e))
        named = missing_extra(e, "this command") if isinstance(e, ModuleNotFoundError) else e
        if named is e:
            raise
        fail(str(named))
    except (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError,
            PermissionError) as e:  # a path the user gave that is missing, of the other kind or not theirs
        if os.environ.get("OCTAGAMES_TRACEBACK"):  # a bug that raised ValueError deep in a run: show where
            raise
        fail(str(e))


def script(cli: Callable[[], Any]) -> Callable[[], None]:
    """Decorate a script's ``cli()``: a missing extra or a bad setting is one line and exit status 2
    (:func:`user_errors`), under ``octagames-<name>``, ``octagames <name>`` and ``python -m`` alike."""
    @functools.wraps(cli)
    def run() -> None:
        with user_errors():
            cli()
    return run


def parse_config(config_cls: type[ConfigT], args: Sequence[str] | None = None) -> ConfigT:
    """The script's config from the command line (``sys.argv[1:]`` by default).

    tyro reads it when installed (the train extra); a base install reads the same flags with
    the standard library's parser (:func:`stdlib_parser`), so ``--help`` and a refused unknown
    flag work without any extra.

    The config is checked (its ``__post_init__``) after tyro reads the flags, not inside tyro: a
    setting the config refuses (an unknown variant, a bad game config, ...) is one line, as with
    the standard library's parser.

    Raises:
        SystemExit: ``--help`` (status 0), an unknown flag, a bad value or a config the
            dataclass refuses (status 2).
    """
    if tyro is not None:
        _refuse_games_flag(config_cls, args)
        description = help_text(config_cls)
        lax = type(config_cls.__name__, (config_cls,), {  # the same flags and help, checked below
            "__post_init__": lambda self: None, "__doc__": config_cls.__doc__,
            "__module__": config_cls.__module__, "__qualname__": config_cls.__qualname__})
        read = tyro.cli(lax, args=args, description=description)
        fields = [f.name for f in dataclasses.fields(config_cls) if f.init]
        return _checked(config_cls, {name: getattr(read, name) for name in fields})
    return parse_with_stdlib(config_cls, args)


def _refuse_games_flag(config_cls: type, args: Sequence[str] | None) -> None:
    """The one-line hint for ``--games`` (the former spelling) on a verb whose games are ``--game``
    (:class:`GamesArgs`, or a config whose ``game`` is a tuple, as leaderboard's sections)."""
    argv = sys.argv[1:] if args is None else args
    several = issubclass(config_cls, GamesArgs) or isinstance(getattr(config_cls, "game", None), tuple)
    if several and any(a == "--games" or a.startswith("--games=") for a in argv):
        fail("--games is not a flag of this verb: name the variants with --game "
             "(e.g. --game octrix achten-dealer-pays octa-nl; octagames list prints them)")


def _checked(config_cls: type[ConfigT], values: dict[str, Any]) -> ConfigT:
    """``config_cls(**values)``; a config it refuses (``ValueError``) is one line and exit status 2."""
    try:
        return config_cls(**values)
    except ValueError as e:
        if os.environ.get("OCTAGAMES_TRACEBACK"):
            raise
        fail(str(e))


#: the fields that take agent specs: a config with one of them lists the specs in its ``--help``
#: (the verbs' agents and opponents, the trainers' evaluation opponents, opponent, teacher and prior
#: hint, expert, leaderboard's added agents)
AGENT_FIELDS = ("agent", "agents", "opponent", "opponents", "eval_opponents", "opponent_agent",
                "imitation_teacher", "imitation_opponent", "imitation_player", "prior_hint", "expert", "add")


def agent_specs_help() -> str:
    """The valid agent specs, one line each (the registry's names, forms and summaries)."""
    width = max(map(len, AGENTS))
    return "\n".join(f"  {name:<{width}}  {entry.summary}" for name, entry in sorted(AGENTS.items()))


def help_text(config_cls: type) -> str:
    """The description of a script's ``--help``: its config's docstring (first paragraph), and the
    valid agent specs where the config has a field that takes them (:data:`AGENT_FIELDS`)."""
    text = (inspect.getdoc(config_cls) or "").split("\n\n")[0]
    if any(f.name in AGENT_FIELDS for f in dataclasses.fields(config_cls)):
        text += ("\n\nagent specs (name or name:arg; octagames list prints the variants and zoo models):\n"
                 + agent_specs_help())
    return text


def parse_with_stdlib(config_cls: type[ConfigT], args: Sequence[str] | None = None) -> ConfigT:
    """:func:`parse_config` without tyro: the flags tyro would read, parsed by :mod:`argparse`.

    Raises:
        SystemExit: ``--help`` (status 0), an unknown flag, a bad value or a config the
            dataclass refuses (status 2, the message in one line).
    """
    _refuse_games_flag(config_cls, args)
    parser = stdlib_parser(config_cls)
    given = vars(parser.parse_args(args))
    hints = get_type_hints(config_cls, include_extras=True)
    values = {k: tuple(v) if get_origin(_bare(hints[k])) is tuple else v for k, v in given.items()}
    return _checked(config_cls, values)


def stdlib_parser(config_cls: type) -> argparse.ArgumentParser:
    """An :mod:`argparse` parser of a config dataclass with tyro's flags: ``--field-name VALUE``,
    ``--flag/--no-flag`` for a bool, several values for a tuple or list, ``POSITIONAL`` fields by place;
    each field's docstring is its help. Only the fields given on the command line are in the result.

    Raises:
        TypeError: a field of a type this parser does not read (a developer error).
    """
    parser = argparse.ArgumentParser(prog=prog(), description=help_text(config_cls),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     argument_default=argparse.SUPPRESS)
    hints, docs = get_type_hints(config_cls, include_extras=True), _field_docs(config_cls)
    for f in dataclasses.fields(config_cls):
        if not f.init:
            continue
        hint = hints[f.name]
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        shown = [m.help_behavior_hint for m in getattr(hint, "__metadata__", ())
                 if isinstance(getattr(m, "help_behavior_hint", None), str)]
        text = docs.get(f.name, "") + (f" {shown[0]}" if shown else "" if default is dataclasses.MISSING
                                       else f" (default: {default!r})")
        if POSITIONAL in getattr(hint, "__metadata__", ()):
            parser.add_argument(f.name, nargs="?", type=_converter(_bare(hint)), help=text)
            continue
        flags = [f"--{f.name.replace('_', '-')}"] + ([f"--{f.name}"] if "_" in f.name else [])
        kind, origin, items = _bare(hint), get_origin(_bare(hint)), get_args(_bare(hint))
        if kind is bool:
            parser.add_argument(*flags, dest=f.name, action=argparse.BooleanOptionalAction, help=text)
        elif REPEATED in getattr(hint, "__metadata__", ()):
            parser.add_argument(*flags, dest=f.name, action="append", type=_converter(items[0]), help=text)
        elif origin is list or (origin is tuple and items[-1:] == (Ellipsis,)):
            parser.add_argument(*flags, dest=f.name, nargs="*", type=_converter(items[0]), help=text)
        elif origin is tuple and len(set(items)) == 1:
            parser.add_argument(*flags, dest=f.name, nargs=len(items), type=_converter(items[0]), help=text)
        else:
            parser.add_argument(*flags, dest=f.name, type=_converter(kind), help=text,
                                required=default is dataclasses.MISSING)
    return parser


def _bare(hint: Any) -> Any:
    """``Annotated[T, ...]`` -> ``T``."""
    return hint.__origin__ if hasattr(hint, "__metadata__") else hint


def _converter(kind: Any) -> Callable[[str], Any]:
    """The function that reads one command-line value of type ``kind`` (``None`` for ``T | None``)."""
    if kind in (int, float, str, Path):
        return kind
    if get_origin(kind) in (Union, types.UnionType) and type(None) in get_args(kind):
        (inner,) = [k for k in get_args(kind) if k is not type(None)]
        read = _converter(inner)
        return lambda value: None if value == "None" else read(value)
    raise TypeError(f"the command line reads no field of type {kind}")


@functools.lru_cache(maxsize=None)
def _field_docs(config_cls: type) -> dict[str, str]:
    """Each field's docstring (the string under it in the class body, as tyro reads it), base classes first."""
    docs: dict[str, str] = {}
    for klass in reversed(config_cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body  # type: ignore[attr-defined]
        except (OSError, TypeError):  # no source (a frozen install): the help lists the flags only
            continue
        for node, after in zip(body, body[1:]):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                    and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)):
                docs[node.target.id] = " ".join(after.value.value.split())
    return docs


@dataclass(frozen=True)
class GameArgs:
    """The game options of a verb that plays one game: ``--game VARIANT``, ``--players N``, ``--config key=value ...``.

    A script's config dataclass inherits these fields (see the module's docstring); its
    ``__post_init__`` calls ``super().__post_init__()``, which refuses an unknown variant,
    a seat count or config field the game does not allow (``ValueError`` naming the valid
    values, one line on the command line).
    """

    game: str = "octrix"
    """the variant (octagames list prints them: octrix, octrix-round, achten-dealer-pays, octa-nl, ...)"""
    players: int | None = None
    """seats (None: the variant's default)"""
    config: Annotated[tuple[str, ...], shown_default("none")] = ()
    """other config fields of the game over the variant's, as key=value (e.g. ranks=4 hand_size=4)"""

    def __post_init__(self) -> None:
        if isinstance(self.config, str):  # GameArgs(config="a=1,b=2") from code
            object.__setattr__(self, "config", (self.config,) if self.config else ())
        game, fields = self.resolve()
        load_module(game).Config(**fields)  # unknown fields, bad values and seat counts fail here

    def resolve(self) -> tuple[str, dict[str, Any]]:
        """The rules package and every config field the options give.

        Returns:
            ``(game, fields)``, e.g. ``("octa", {"rules": "nl", "num_players": 2})``.

        Raises:
            ValueError: an unknown variant (the valid ones are listed), a ``--config`` item
                that is not a field of the game, or ``num_players`` in ``--config`` that
                disagrees with ``--players``.
        """
        game = catalogue.variant(self.game).game
        fields = parse_game_config(self.config, game)
        if "num_players" in fields and self.players is not None and fields["num_players"] != self.players:
            raise ValueError(f"--players {self.players} and --config num_players={fields['num_players']} "
                             "disagree; give the seats once, with --players")
        players = fields.pop("num_players", self.players)
        return catalogue.resolve(self.game, players, **fields)

    def make_game(self) -> Game:
        """The :class:`~octagames.core.Game` of the variant, seats and config fields."""
        game, fields = self.resolve()
        return Game(game, load_module(game).Config(**fields))

    @property
    def game_name(self) -> str:
        """The rules package's short name (``"octa"`` for ``--game octa-nl``), for agent specs."""
        return catalogue.variant(self.game).game

    def describe(self) -> str:
        """The variant and seats the options give, for titles and file names: ``"octa-nl-2p"``."""
        return catalogue.describe(*self.resolve())


@dataclass(frozen=True)
class GamesArgs:
    """The game options of a verb that runs several games: ``--game VARIANT ...``, ``--players N``,
    ``--config key=value ...``.

    Each ``--game`` entry is read as :class:`GameArgs` reads its ``--game``, with ``--players`` and
    ``--config`` applied to every entry; an entry may add its own fields after a colon
    (``octrix-round:ranks=3,hand_size=3``), which win over ``--config``'s. A verb's config dataclass
    inherits these fields; :meth:`default_games` gives the entries when ``--game`` is left out.
    """

    game: Annotated[tuple[str, ...], shown_default("every game's seed variant, or the verb's own list where its "
                                                    "description names one")] = ()
    """variants (octagames list prints them), each optionally with its own fields as variant:key=value,..."""
    players: int | None = None
    """seats of every game (None: each variant's default)"""
    config: Annotated[tuple[str, ...], shown_default("none")] = ()
    """config fields of every game over its variant's, as key=value (refused where a game lacks the field)"""

    def __post_init__(self) -> None:
        for name in ("game", "config"):  # a single string from code: GamesArgs(game="octrix")
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, (value,) if value else ())
        self.entries()  # unknown variants, fields, values and seat counts fail here (GameArgs checks each)

    def default_games(self) -> tuple[str, ...]:
        """The entries when ``--game`` is left out: every game's seed variant (a verb may override)."""
        return tuple(catalogue.games())

    def entries(self) -> list[GameArgs]:
        """Each game as the single-game options :class:`GameArgs` (``--players`` and ``--config`` applied).

        Raises:
            ValueError: an unknown variant, a field that is not one of the game's (naming the game
                and its fields), a bad value or a seat count the game does not allow.
        """
        out = []
        for spec in self.game or self.default_games():
            name, _, own = spec.partition(":")
            out.append(GameArgs(name.strip(), self.players, self.config + ((own,) if own.strip() else ())))
        return out

    def resolve_all(self) -> list[tuple[str, dict[str, Any]]]:
        """Every game's rules package and config fields, in order (see :meth:`GameArgs.resolve`).

        Returns:
            e.g. ``[("octrix", {"match": True, "num_players": 2}), ("octa", {"rules": "nl", ...})]``.
        """
        return [entry.resolve() for entry in self.entries()]

    def describe_all(self) -> list[str]:
        """Each game's variant and seats, for tables, rows and file names: ``["octrix-2p", "octa-nl-2p"]``."""
        return [entry.describe() for entry in self.entries()]


def usable_agents(specs: Sequence[str], game: Game, field: str = "eval_opponents") -> tuple[list[str], dict[str, str]]:
    """Split agent specs into those that build for ``game`` and the others, with the reason of each refusal.

    Built for the ``Game`` itself, so a model of another config of it is refused here, before any training.
    A spec that names no agent at all (a misspelling: ``heuristc``) is not skipped but refused.

    Raises:
        ValueError: ``<field>: agent='heuristc' is not valid; valid agents: [...]``.
    """
    ok, skipped = [], {}
    for spec in specs:
        if not isinstance(spec, str) or spec.partition(":")[0] not in AGENTS:
            raise ValueError(f"{field}: agent={spec!r} is not valid; valid agents: {sorted(AGENTS)} (an agent that "
                             "does not fit the game is skipped, one that does not exist is refused)")
        try:
            make_agent(spec, game)
        except Exception as e:  # unknown or unavailable agent for this game
            skipped[spec] = f"{type(e).__name__}: {e}"
            continue
        ok.append(spec)
    return ok, skipped


#: the seconds a git command may take before a run goes on without its answer (:func:`code_version`)
GIT_TIMEOUT = 5.0


def _git(*args: str) -> str | None:
    """What ``git <args>`` prints in the checkout that holds this code, stripped; None where git is missing, the
    code is not in a checkout, or git fails or takes more than :data:`GIT_TIMEOUT` seconds."""
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
                             timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_commit() -> str:
    """The short hash of the checkout's HEAD (``"unknown"`` outside a git checkout)."""
    return _git("rev-parse", "--short", "HEAD") or "unknown"


def code_version() -> dict[str, Any]:
    """Which code a run runs, for its journal and ``config.json``: ``{"version": octagames.__version__,
    "commit": HEAD of the checkout (40 hex digits), "dirty": whether git status --porcelain lists a change}``.

    ``commit`` and ``dirty`` are None where git is missing, the code is installed outside a checkout, or git
    fails or does not answer within :data:`GIT_TIMEOUT` seconds: a run never fails for want of them.
    """
    commit = _git("rev-parse", "HEAD")
    status = None if commit is None else _git("status", "--porcelain")
    return {"version": octagames.__version__, "commit": commit, "dirty": None if status is None else bool(status)}


def command_line(cfg: Any, module: str, python: str = "python") -> list[str]:
    """The command that runs ``python -m <module>`` with config ``cfg`` (a dataclass parsed by tyro):
    every field that differs from its default, as a flag."""
    args = [python, "-m", module]
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if value != f.default:
            args += option_args(f.name, value)
    return args


def command_text(cfg: Any, module: str, python: str = "python") -> str:
    """:func:`command_line` as one line a shell runs as it is: each argument quoted where it needs it (a run folder
    with a space in its name, a spec with a shell character), ``shlex.join``."""
    return shlex.join(command_line(cfg, module, python))


def saved_command(cls: type, saved: dict[str, Any], module: str) -> str:
    """The command line of a run whose config dataclass ``cls`` was saved as the dict ``saved``.

    Saved lists (JSON and checkpoints keep tuples as lists) become tuples again; fields
    ``cls`` no longer has are left out.
    """
    fields = {f.name for f in dataclasses.fields(cls)}
    cfg = {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items() if k in fields}
    return command_text(cls(**cfg), module)


def check_device(device: str) -> None:
    """Raise ``ValueError`` naming the field unless ``device`` is a torch device the trainers take: auto, cpu, cuda,
    cuda:<n>."""
    if device not in ("auto", "cpu", "cuda") and not (device.startswith("cuda:") and is_count(device[5:])):
        raise ValueError(f"device={device!r} is not valid; valid values: auto, cpu, cuda, cuda:<n>")


def check_hidden(hidden: Sequence[int]) -> None:
    """Raise ``ValueError`` naming the field unless ``hidden`` is one or more layer widths >= 1."""
    if not hidden or min(hidden) < 1:
        raise ValueError(f"hidden={hidden} is not valid; give one or more layer widths >= 1, e.g. 256 256")


def check_ray_options(ray_address: str, chunk_size: int | None = None, ray_actors: int | None = None) -> None:
    """The checks of the Ray options a config's ``__post_init__`` shares, without Ray: the form of
    ``ray_address`` (empty, local, auto, ``<host>:<port>`` or ``ray://<host>:<port>``); where the verb has
    them, ``chunk_size`` >= 1 (with or without ``--ray``), and a trainer's ``ray_address`` only with
    ``ray_actors`` >= 1 (the address is the actors' cluster: without actors it would be ignored).

    Raises:
        ValueError: naming the field (both fields, for the pair) and the valid values.
    """
    from octagames.agents.learn.distributed import check_address  # imports Ray only when it connects
    check_address(ray_address)
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"chunk_size={chunk_size} is not valid; it must be >= 1 (games per Ray task)")
    if ray_actors == 0 and ray_address:
        raise ValueError(f"ray_address={ray_address!r} needs ray_actors >= 1 (it is the cluster of the Ray actors; "
                         "ray_actors=0 plays in this process): give --ray-actors N, or leave ray_address empty")


def executor_from(ray: bool, ray_address: str, chunk_size: int = 8) -> Any:
    """The games' executor of the ``--ray``/``--ray-address`` flags: ``None`` (this process) or Ray tasks.

    Raises:
        ValueError: a ``ray_address`` where nothing answers, said here, before any agent is built or journal
            opened (:func:`octagames.agents.learn.distributed.check_reachable`).
    """
    if not (ray or ray_address):
        return None
    from octagames.agents.learn.distributed import RayGames, check_reachable  # the only module that imports Ray
    check_reachable(ray_address)
    return RayGames(address=ray_address or None, chunk_size=chunk_size)


@contextmanager
def games_kept_on_interrupt(journal: Callable[[], GameJournal | None]) -> Iterator[None]:
    """Ctrl-C while a verb plays its games (evaluate, tournament; here or on Ray): one line on stderr, how
    many games ``journal()`` (the journal being played, None before one is open) keeps and that the same
    command goes on from there, and exit status 130 (the shell's for Ctrl-C), instead of a traceback. The
    journal is closed (its games are on disk as each finishes)."""
    try:
        yield
    except KeyboardInterrupt:
        kept = journal()
        if kept is None:
            said = "no game journaled yet"
        else:
            kept.close()
            said = f"{kept.games_on_disk()} games kept in {kept.path}"
        print(f"\ninterrupted: {said}; run the same command again to go on", file=sys.stderr, flush=True)
        raise SystemExit(130) from None


def model_fingerprints(specs: Sequence[str]) -> dict[str, str]:
    """A digest of every model file the agent specs name (``ppo:<path>``, ``az:<path>``, ``zoo:<name>``,
    ``net:<name>``), so that a saved game journal is not resumed after a model changed. A ``net:<name>``
    also digests the worlds and the rollouts' base its card names (``network_belief_worlds``,
    ``network_rollout_base``) and, without a budget, the budget
    (``network_simulations``), which it plays at."""
    out = {}
    for spec in specs:
        name, _, rest = spec.partition(":")
        arg = rest.split(":")[0]
        if name == "ppo" and arg.endswith("@sample"):  # ppo:<path>@sample: the same file, sampled
            arg = arg[: -len("@sample")]
        path = Path(arg)
        if name in ("zoo", "net"):  # a zoo name (octrix-2p spelled out included): its file
            path = Path(octagames.agents.__file__).parent / "zoo" / f"{catalogue.zoo_file_name(arg)}.pt"
        if arg and path.is_file():
            digest = hashlib.blake2b(path.read_bytes(), digest_size=8)
            if name == "net":
                from octagames.agents.learn.az import (network_base, network_budget,  # torch: only for net: specs
                                                       network_worlds)
                budget = network_budget(arg) if ":" not in rest else None
                if budget is not None:
                    digest.update(f"network_simulations={budget}".encode())
                worlds = network_worlds(arg)
                if worlds is not None:
                    digest.update(f"network_belief_worlds={worlds}".encode())
                base = network_base(arg)
                if base is not None:
                    digest.update(f"network_rollout_base={base}".encode())
            out[spec] = digest.hexdigest()
    return out


def _set_aside(path: Path) -> Path:
    """Move ``path`` to ``<name>.old``, or the first free ``<name>.old.<k>``; the new path."""
    old, k = path.with_name(path.name + ".old"), 0
    while old.exists():
        k += 1
        old = path.with_name(f"{path.name}.old.{k}")
    path.replace(old)
    return old


def _full_header(header: dict[str, Any]) -> dict[str, Any]:
    """``header`` as a journal reads it back, its ``config`` with every field of its ``game`` (a field given at its
    default and one left out are the same game); a header without both, or with a config its game refuses, as it
    is."""
    header = json.loads(json.dumps(header))
    if isinstance(header, dict) and isinstance(header.get("game"), str) and isinstance(header.get("config"), dict):
        try:
            header["config"] = catalogue.full_config(header["game"], header["config"])
        except (ValueError, TypeError):  # not a game's config: compared as it is
            pass
    return header


def _header_there(path: Path, header: dict[str, Any]) -> dict[str, Any]:
    """The header of the journal at ``path`` where it is ``header`` with its config spelled otherwise (journals
    written before 2026-12-07 kept the fields as given, ``--config dealer=0`` apart from none), else ``header``."""
    try:
        with path.open(encoding="utf-8") as f:
            there = json.loads(f.readline())["header"]
    except (OSError, ValueError, KeyError, TypeError):
        return header
    return there if there != header and _full_header(there) == header else header


def open_journal(path: Path, resume: bool, header: dict[str, Any], games: int | None = None) -> GameJournal:
    """The run's game journal: resumed when ``resume`` (and it says so), else started afresh; a journal
    of other settings or other model files, or any journal when ``resume`` is False (``--no-resume``), is
    moved aside to ``<name>.old`` (``<name>.old.1``, ... when that exists: no journal set aside is ever
    overwritten, none is deleted) and the run starts over. Open it only once the run's settings and agents
    are known to be valid. With ``games`` (the run's games are keys ``0..games-1``), the line that says it resumes
    counts those already played, and says how many more a longer run played.

    The header gets the digests of the model files its ``agents``/``agent``/``opponent`` specs name, and its
    ``config`` every field of its ``game`` (``--config dealer=0`` and no ``--config`` are one game, whose journal
    either resumes, an older one too). The
    journal's first line records beside it the code that wrote it (:func:`code_version`), and each resume's
    code under ``resumes``: neither is part of the header, so other code resumes the run. The journal's lock
    (:func:`~octagames.agents.arena.journal_lock`) is taken first: while another run writes the journal,
    nothing is read or moved and this run is refused (:class:`~octagames.agents.arena.BusyError`).
    """
    specs = [s for key in ("agents", "agent", "opponent") for s in
             ([header[key]] if isinstance(header.get(key), str) else header.get(key, []))]
    header, code = _full_header({**header, "models": model_fingerprints(specs)}), code_version()
    lock = journal_lock(path)  # before anything is read or moved: a run writing the journal refuses this one
    try:
        header = _header_there(path, header)
        if not resume and path.exists():
            print(f"{path}: not resumed (--no-resume); moved to {_set_aside(path)}, starting over")
        try:
            journal = GameJournal(path, header, code, lock=lock)
        except DamagedJournal:  # a row that is no game's: said, not set aside nor read
            raise
        except ValueError as e:  # the games of other settings (or models): kept aside, never mixed in
            held = ("did not start with a journal's header (a run killed as it started the file?)"
                    if isinstance(e, NoHeaderError) else "held the games of other settings")
            print(f"{path} {held}; moved to {_set_aside(path)}, starting over")
            journal = GameJournal(path, header, code, lock=lock)
    except BaseException:
        lock.release()
        raise
    mine = len(journal.done) if games is None else sum(1 for key in journal.done if 0 <= key < games)
    if journal.done:
        more = len(journal.done) - mine  # a longer run's games: kept, not this run's
        print(f"resuming: {mine} games already played ({path})" + (f"; {more} more there, past this run's "
                                                                   f"{games}, are kept" if more else ""))
    return journal
