"""Build agents by name: ``make_agent("heuristic", "octrix")``.

Names: ``random``; ``heuristic`` (the game's own heuristic, from
``agents/heuristic_<game>.py``); further baselines register themselves in
:data:`FACTORIES` (``mcts``, ``cfr``, ``ppo:<path>`` ...).
"""

from __future__ import annotations

import importlib
from typing import Callable

from octagames.agents.base import Agent, RandomAgent


def _heuristic(game: str, arg: str | None) -> Agent:
    try:
        module = importlib.import_module(f"octagames.agents.heuristic_{game}")
    except ModuleNotFoundError as e:
        raise ValueError(f"agent 'heuristic' is not available for game {game!r}") from e
    classes = [v for k, v in vars(module).items()
               if k.endswith("HeuristicAgent") and isinstance(v, type) and issubclass(v, Agent)]
    return classes[0]()


FACTORIES: dict[str, Callable[[str, str | None], Agent]] = {
    "random": lambda game, arg: RandomAgent(),
    "heuristic": _heuristic,
}


def register(name: str, factory: Callable[[str, str | None], Agent]) -> None:
    """Make ``make_agent(name, game)`` build agents with ``factory(game, arg)``."""
    FACTORIES[name] = factory


def make_agent(spec: str, game: str) -> Agent:
    """An agent from a spec ``name`` or ``name:arg`` (e.g. ``ppo:runs/ppo/model.pt``).

    Raises:
        ValueError: unknown agent name, with the valid names.
    """
    name, _, arg = spec.partition(":")
    _load_optional()
    if name not in FACTORIES:
        raise ValueError(f"agent={spec!r} is not valid; valid agents: {sorted(FACTORIES)}")
    return FACTORIES[name](game, arg or None)


def _load_optional() -> None:
    # baselines with heavier dependencies register themselves on import
    for mod in ("octagames.agents.mcts", "octagames.agents.cfr", "octagames.agents.ppo", "octagames.agents.az"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError:
            continue
