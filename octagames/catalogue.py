"""The catalogue of named game variants: one name per variant, used everywhere.

Each game package declares its variants and its per-game settings in one place,
``octagames/<game>/variants.py`` (a :class:`GameSpec` named ``SPEC``); this module collects
them. A variant name works wherever a game name does (``make_game("octa-nl")``, ``--game
octa-nl``, the Gymnasium and OpenSpiel names, leaderboard sections, zoo names, run folders):

    >>> from octagames.catalogue import resolve, variant_name
    >>> resolve("octrix-round", num_players=3)
    ('octrix', {'match': False, 'num_players': 3})
    >>> variant_name("octa", {"rules": "nl"})
    'octa-nl'

**The bare game name is the seed's game** (``octrix`` is the match to 88); every other
setting that people play is a named variant, never a silent default. Settings outside
the variants stay available as config fields (``make_game("octrix", ranks=2)``); such a
config is named after its closest variant plus the fields that differ
(``octrix-round+hand_size=3+ranks=2``).

The per-game settings that used to sit in tables keyed by game name (the heuristic,
MCTS's evaluator, playout policy and exploration, the belief module, the picture module,
the Gymnasium id, the conformance configs) are fields of the :class:`GameSpec`; the
variants carry what differs per variant (title, player counts, zoo model, leaderboard
section). Agents and faces are named as ``"module:attr"`` strings and imported by their
users: this module imports no agent, face or heavy dependency.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import pkgutil
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

#: the folder of the octagames package, whose game subpackages declare the specs (read without
#: importing the package itself, which imports this module through octagames.core)
PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Variant:
    """One named variant of a game.

    Attributes:
        name: the variant's one name (``"octa-nl"``); lowercase, digits and ``-``.
        game: the rules package it runs on (``"octa"``).
        title: one line for listings, tables and pages.
        config: the config fields that make the variant (``num_players`` excluded: see ``players``).
        players: the player counts the variant is played with; the first is the default.
        zoo: the player counts a shipped model plays (``zoo:<name>`` at the default count,
            ``zoo:<name>-<n>p`` at another; :meth:`zoo_name`), empty for none.
        leaderboard: the two MCTS budgets of its leaderboard section, or ``None`` for no section.
        leaderboard_cfr: the leaderboard's section also has a CFR agent.
        demo_mcts: simulations per move of MCTS in ``make demo``, or ``None`` when the demo skips it.
    """

    name: str
    game: str
    title: str
    config: Mapping[str, Any] = field(default_factory=dict)
    players: tuple[int, ...] = (2,)
    zoo: tuple[int, ...] = ()
    leaderboard: tuple[int, int] | None = None
    leaderboard_cfr: bool = False
    demo_mcts: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "config", MappingProxyType(dict(self.config)))
        if "num_players" in self.config:
            raise ValueError(f"variant {self.name!r}: num_players belongs in players, not config")
        if not self.players:
            raise ValueError(f"variant {self.name!r}: players must name at least one player count")
        if not isinstance(self.zoo, tuple) or not all(isinstance(n, int) for n in self.zoo):
            raise ValueError(f"variant {self.name!r}: zoo={self.zoo!r} must be a tuple of player counts "
                             f"(e.g. zoo=(2,)), empty for no model")
        if not set(self.zoo) <= set(self.players):
            raise ValueError(f"variant {self.name!r}: zoo={self.zoo} names a player count not in players={self.players}")

    @property
    def default_players(self) -> int:
        """The player count the variant is played with when none is given."""
        return self.players[0]

    def zoo_name(self, num_players: int | None = None) -> str:
        """The zoo's name of the variant's model at ``num_players`` seats: the variant's own name at its
        default count (``"octrix"``), ``"<name>-<n>p"`` at another (``"octrix-3p"``)."""
        n = self.default_players if num_players is None else num_players
        return self.name if n == self.default_players else f"{self.name}-{n}p"

    def check_players(self, num_players: Any) -> None:
        """Refuse a player count the variant is not played with.

        Raises:
            ValueError: ``num_players`` is not one of :attr:`players` (the message names the valid values and the
                game's name, whose config takes any count its rules allow).
        """
        if num_players not in self.players:
            raise ValueError(f"num_players={num_players!r} is not valid for variant {self.name!r}; valid values: "
                             f"{list(self.players)} (the game {self.game!r} takes the config fields with other "
                             "counts its rules allow)")

    def full_config(self, num_players: int | None = None) -> dict[str, Any]:
        """The variant's config fields with ``num_players`` (the default count when ``None``)."""
        return {**self.config, "num_players": self.default_players if num_players is None else num_players}


@dataclass(frozen=True)
class GameSpec:
    """What one game package declares about itself: its variants and its per-game settings.

    Attributes:
        game: the rules package's short name.
        variants: the named variants; the first one is the seed's game, which the bare game
            name gives.
        heuristic: the hand-written agent class, ``"module:Class"`` (agent spec ``heuristic``).
        mcts_evaluator: MCTS's default game knowledge, ``(kind, "module:function")`` with kind
            ``"value"`` (a compiled leaf value) or ``"playout"``; ``None`` plays random playouts.
        playout_policy: the compiled heuristic as a playout policy, ``"module:function"``.
        playout_policy_by: ``(field, {value: "module:function"})``: where the heuristic has one policy per
            value of a config field (Octa's rulebooks), each one compiles without the others' code; the
            playouts of a :class:`~octagames.core.Game` use its config's (``playout_policy`` serves a game
            named without a config).
        exploration: MCTS's exploration constant when none is given (``None``: the search's default).
        belief: the module of the AZ search's belief about hidden cards, or ``None``.
        picture: the module drawing ``rgb_array`` pictures (``render_rgb(record)``), or ``None``.
        gymnasium_id: the Gymnasium id of its single-agent env.
        gymnasium_class: the ``"module:Class"`` that id builds.
        conformance: the configs the conformance suite and the fuzz campaign check, each as
            ``(variant name, extra config fields)``.
        order: the game's place in the catalogue's listings (lower first, then by name).
    """

    game: str
    variants: tuple[Variant, ...]
    heuristic: str | None = None
    mcts_evaluator: tuple[str, str] | None = None
    playout_policy: str | None = None
    playout_policy_by: tuple[str, Mapping[str, str]] | None = None
    exploration: float | None = None
    belief: str | None = None
    picture: str | None = None
    gymnasium_id: str = ""
    gymnasium_class: str = ""
    conformance: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    order: int = 100

    @property
    def seed_variant(self) -> Variant:
        """The variant the bare game name gives: the seed's game."""
        return self.variants[0]


@lru_cache(maxsize=1)
def _specs() -> dict[str, GameSpec]:
    specs: dict[str, GameSpec] = {}
    for info in sorted(pkgutil.iter_modules([str(PACKAGE_DIR)]), key=lambda m: m.name):
        if not info.ispkg or info.name.startswith("_"):
            continue
        if importlib.util.find_spec(f"octagames.{info.name}.variants") is None:
            continue
        spec = importlib.import_module(f"octagames.{info.name}.variants").SPEC
        if spec.game != info.name:
            raise RuntimeError(f"octagames/{info.name}/variants.py declares game {spec.game!r}")
        specs[spec.game] = spec
    return dict(sorted(specs.items(), key=lambda kv: (kv[1].order, kv[0])))


@lru_cache(maxsize=1)
def _variants() -> dict[str, Variant]:
    out: dict[str, Variant] = {}
    for spec in _specs().values():
        for v in spec.variants:
            if v.game != spec.game:
                raise RuntimeError(f"variant {v.name!r} is declared by {spec.game!r} but names game {v.game!r}")
            if v.name in out or (v.name in _specs() and v.name != spec.game):
                raise RuntimeError(f"variant name {v.name!r} is declared twice")
            out[v.name] = v
    return out


def games() -> list[str]:
    """The short names of the installed games, in the catalogue's order."""
    return list(_specs())


def game_spec(game: str) -> GameSpec:
    """The :class:`GameSpec` of the game ``game`` (a short game name or any of its variants' names).

    Raises:
        ValueError: neither a game nor a variant (the message lists both).
    """
    specs = _specs()
    if game in specs:
        return specs[game]
    if game in _variants():
        return specs[_variants()[game].game]
    raise ValueError(f"game={game!r} is not valid; valid values: {names()}")


def variants() -> dict[str, Variant]:
    """Every named variant, by name, in the catalogue's order."""
    return dict(_variants())


def zoo_models() -> dict[str, tuple[Variant, int]]:
    """The model zoo's entries: each model's name (``"octrix"``, ``"octrix-3p"``: :meth:`Variant.zoo_name`)
    with its variant and player count, from the variants' ``zoo`` counts, in the catalogue's order (a
    variant's default count first)."""
    out: dict[str, tuple[Variant, int]] = {}
    for v in _variants().values():
        for n in sorted(v.zoo, key=lambda n: (n != v.default_players, n)):
            out[v.zoo_name(n)] = (v, n)
    return out


def zoo_file_name(name: str) -> str:
    """The file stem of the zoo model ``name`` (``"octrix-2p"``, the default count spelled out, is
    ``"octrix"``); a name the zoo does not have comes back as it is."""
    if name in zoo_models():
        return name
    head, _, tail = name.rpartition("-")
    v = _variants().get(head)
    if v is not None and tail == f"{v.default_players}p" and v.default_players in v.zoo:
        return v.name
    return name


def names() -> list[str]:
    """Every name ``make_game`` and ``--game`` accept: the variants, and the games whose seed
    variant has another name (``octa``)."""
    out = list(_variants())
    out += [g for g in _specs() if g not in _variants()]
    return out


def variant(name: str) -> Variant:
    """The variant named ``name``; a bare game name gives the game's seed variant.

    Raises:
        ValueError: an unknown name (the message lists the valid names).
    """
    if name in _variants():
        return _variants()[name]
    if name in _specs():
        return _specs()[name].seed_variant
    raise ValueError(f"game={name!r} is not valid; valid values: {names()}")


def resolve(name: str, num_players: int | None = None, **config: Any) -> tuple[str, dict[str, Any]]:
    """The rules package and config fields that ``name`` (a variant or game) and overrides give.

    Args:
        name: a variant name (``"octa-nl"``) or a game name (its seed variant).
        num_players: the seats; ``None`` keeps ``config["num_players"]`` or the variant's default.
        **config: config fields that override the variant's.

    Returns:
        ``(game, fields)`` to build the game's ``Config`` from.

    Raises:
        ValueError: an unknown name (naming the valid ones), or a variant's name with a player count it is not
            played with (:meth:`Variant.check_players`; a game's short name takes any count its rules allow).
    """
    v = variant(name)
    if num_players is None:
        num_players = config.pop("num_players", None)
    else:
        config.pop("num_players", None)
    fields = dict(v.config)
    fields.update(config)
    if num_players is not None or "num_players" not in fields:
        fields["num_players"] = v.default_players if num_players is None else num_players
    if name not in _specs():
        v.check_players(fields["num_players"])
    return v.game, fields


def _game_of(game: str, config: Any) -> tuple[str, Any]:
    """``(game, config)`` with a variant name (``"octa-nl"``) resolved to its game and its fields under the
    mapping's (a short game name and a ``Config`` pass as they are).

    Raises:
        ValueError: an unknown name (the message lists the valid names).
    """
    if game in _specs():
        return game, config
    v = variant(game)
    if isinstance(config, Mapping):
        config = {**v.config, **config}
    return v.game, config


def _resolved(game: str, config: Any) -> tuple[str, dict[str, Any]]:
    """``(short game name, every field of its Config)`` of a game or variant name and a config over it."""
    game, config = _game_of(game, config or {})
    return game, _config_dict(game, config)


def _config_dict(game: str, config: Any) -> dict[str, Any]:
    """Every field of ``game``'s ``Config`` (a ``Config`` or a mapping of fields over the defaults)."""
    module = importlib.import_module(f"octagames.{game}")
    if not isinstance(config, module.Config):
        config = module.Config(**dict(config))
    # plain Python values: a field given as a numpy scalar (np.int64(2) from a sweep) is written to JSON records
    return {f.name: _plain(getattr(config, f.name)) for f in dataclasses.fields(config)}


def _plain(value: Any) -> Any:
    """``value``, a numpy scalar as the Python number it holds (``.item()``)."""
    item = getattr(value, "item", None)
    return item() if callable(item) and type(value).__module__ == "numpy" else value


def full_config(game: str, config: Any = None) -> dict[str, Any]:
    """Every field of ``game``'s ``Config``, defaults included, as a plain dict.

    Args:
        game: the short game name, or a variant's (its fields under ``config``'s).
        config: a ``Config`` of that game or a mapping of its fields over the defaults (``None``: the defaults).

    Raises:
        ValueError: an unknown name, or a value the game's ``Config`` refuses.
    """
    return _resolved(game, config)[1]


def variant_name(game: str, config: Any = None) -> str:
    """The name of the variant a config of ``game`` plays, or its closest variant plus what differs.

    The player count is not part of the name (see :func:`describe`).

    Args:
        game: the short game name, or a variant's (its fields under ``config``'s).
        config: a ``Config`` of that game or a mapping of its fields (``None``: the defaults).

    Returns:
        ``"octa-nl"``; ``"octrix-round+hand_size=3+ranks=2"`` for a config no variant has.

    Raises:
        ValueError: an unknown name, or a value the game's ``Config`` refuses.
    """
    game, full = _resolved(game, config)
    best: tuple[tuple[bool, int], str, list[str]] | None = None
    for v in _specs()[game].variants:
        try:
            ref = _config_dict(game, v.full_config(full["num_players"]))
        except ValueError:  # the rules allow no such game with this many seats
            continue
        diff = sorted(k for k in full if k != "num_players" and full[k] != ref[k])
        # the variants played with this many seats first, then the fewest fields that differ
        rank = (full["num_players"] not in v.players, len(diff))
        if best is None or rank < best[0]:
            best = (rank, v.name, [f"{k}={full[k]}" for k in diff])
    assert best is not None
    return "+".join([best[1], *best[2]])


def describe(game: str, config: Any = None) -> str:
    """A variant name with its player count, for titles and run folders: ``"octa-nl-2p"``."""
    game, full = _resolved(game, config)
    return f"{variant_name(game, full)}-{full['num_players']}p"


def config_digest(game: str, config: Any = None) -> str:
    """Eight hex digits that identify a full config of ``game`` (every field, defaults included)."""
    game, full = _resolved(game, config)
    text = json.dumps({"game": game, **full}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:8]
