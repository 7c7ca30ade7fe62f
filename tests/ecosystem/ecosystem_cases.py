"""The games of the ecosystem suite: one variant per game and rulebook, the hard cases included."""

import importlib
from types import ModuleType

from octagames import catalogue

# (variant, config kwargs over it): every game once, the turn-based and the team cases included
GAMES = [
    ("octrix-round", dict(num_players=3)),                    # every seat plays every trick
    ("octrix-round", dict(num_players=4, partnership=True)),  # the pairs play in turn
    ("achten-dealer-pays", dict(num_players=2)),              # some deals end the round at once
    ("octiles", dict(num_players=2)),
    ("octa-en", dict()),
    ("octa-nl", dict()),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in c.items())}".rstrip("-") for g, c in GAMES]


def pettingzoo_module(name: str) -> ModuleType:
    """The PettingZoo module of a variant's game (``octagames.envs.<game>_v0``; it takes ``variant=name``)."""
    return importlib.import_module(f"octagames.envs.{catalogue.variant(name).game}_v0")
