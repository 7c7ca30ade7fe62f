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
from typing import Any, Sequence, TypeVar

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
