"""Build agents by spec: ``make_agent("mcts:2000", "octrix")``.

A spec is ``name`` or ``name:arg``. :data:`AGENTS` maps every name to where its
factory lives (``"module:function"``), a one-line summary and, for agents that need
an optional dependency, the extra that installs it. A factory module is
imported the first time one of its agents is built, never before: listing the
names, or refusing an unknown one, imports nothing heavy (no numba kernels, no
torch).

A factory is ``factory(game: str, arg: str | None) -> Agent``; it raises
``ValueError`` with the valid form when ``arg`` is bad.

**Names.** :func:`make_agent` names every agent after its spec
(``agent.name == spec``: ``random``, ``heuristic``, ``mcts:2000:win``,
``cfr:1000``, ``ppo:runs/ppo/octrix/policy.pt``), in every game: the game is
never part of the name (tables, JSON and plots carry it beside the name), and
the name builds the same agent again. Agents built directly default to the
same scheme (``MCTSAgent`` with 2000 simulations is ``mcts:2000``, every
heuristic is ``heuristic``).

To add an agent, write its factory beside it and add one line to
:data:`AGENTS` (``"az": AgentEntry("octagames.agents.learn.az:_factory", "...", "train")``);
code outside the package calls :func:`register` instead.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from octagames.agents.base import Agent, RandomAgent

Factory = Callable[[str, "str | None"], Agent]


@dataclass(frozen=True)
class AgentEntry:
    """Where an agent's factory lives and what it needs.

    Attributes:
        factory: ``"module:function"``, imported on first use (or the function itself).
        summary: one line for error messages and listings, with the spec's arguments.
        extra: the optional extra of ``octagames`` its dependencies come from
            (``pip install 'octagames[<extra>]'``), or ``None`` for the base install.
    """

    factory: str | Factory
    summary: str
    extra: str | None = None


def _random(game: str, arg: str | None) -> Agent:
    if arg is not None:
        raise ValueError(f"agent 'random:{arg}' is not valid: 'random' takes no argument")
    return RandomAgent()


#: the hand-written heuristic of each game, as ``"module:class"``
HEURISTICS: dict[str, str] = {
    "octrix": "octagames.agents.heuristics.octrix:OctrixHeuristicAgent",
    "achten": "octagames.agents.heuristics.achten:AchtenHeuristicAgent",
    "octiles": "octagames.agents.heuristics.octiles:OctilesHeuristicAgent",
    "octa": "octagames.agents.heuristics.octa:OctaHeuristicAgent",
}


def _heuristic(game: str, arg: str | None) -> Agent:
    if arg is not None:
        raise ValueError(f"agent 'heuristic:{arg}' is not valid: 'heuristic' takes no argument")
    if game not in HEURISTICS:
        raise ValueError(f"agent 'heuristic' is not available for game {game!r}; "
                         f"games with a heuristic: {sorted(HEURISTICS)}")
    return _load(HEURISTICS[game], "heuristic", None)()


AGENTS: dict[str, AgentEntry] = {
    "random": AgentEntry(_random, "uniformly random legal actions"),
    "heuristic": AgentEntry(_heuristic, "the game's hand-written heuristic"),
    "mcts": AgentEntry("octagames.agents.search.mcts:_factory",
                       "compiled MCTS: mcts[:<simulations>][:random|:heuristic][:win][:c=<exploration>]"),
    "belief": AgentEntry("octagames.agents.search.belief_achten:_factory",
                         "rollouts over deals that fit the other seats' moves: belief[:<worlds>] (achten only)"),
    "rollout": AgentEntry("octagames.agents.search.rollouts:_factory",
                          "the compiled heuristic, improved where paired rollouts clearly disagree: "
                          "rollout[:<worlds>][:m=<margin>] (achten, octa)"),
    "cfr": AgentEntry("octagames.agents.cfr.agent:_factory",
                      "MCCFR average policy: cfr[:<iterations>][:external] or cfr:<checkpoint.npz>"),
    "oracle": AgentEntry("octagames.agents.search.octrix_solver:_factory",
                         "the exact equilibrium of a 2-player Octrix round (octrix only)", "train"),
    "ppo": AgentEntry("octagames.agents.learn.ppo:_factory",
                      "a trained PPO policy: ppo:<policy or checkpoint path>[@sample]", "train"),
    "az": AgentEntry("octagames.agents.learn.az:_az_factory",
                     "a search-and-learning model with its search: az:<model or checkpoint path>[:<simulations>]",
                     "train"),
    "zoo": AgentEntry("octagames.agents.learn.az:_zoo_factory",
                      "a shipped model of the zoo with its default search: zoo:<name>[:<simulations>]", "train"),
}
"""Every agent name :func:`make_agent` knows."""


def register(name: str, factory: str | Factory, summary: str = "", extra: str | None = None) -> None:
    """Make ``make_agent(name, game)`` build agents with ``factory(game, arg)``.

    For agents outside this package; the package's own agents are lines of :data:`AGENTS`.

    Args:
        name: the spec name (no ``:``).
        factory: the factory, or ``"module:function"`` to import it on first use.
        summary: one line shown in listings.
        extra: the pip extra its dependencies need, if any.

    Raises:
        ValueError: ``name`` is empty or holds a ``:``.
    """
    if not name or ":" in name:
        raise ValueError(f"name={name!r} is not valid; a spec name is non-empty and has no ':'")
    AGENTS[name] = AgentEntry(factory, summary, extra)


def available_agents() -> dict[str, str]:
    """``{name: summary}`` of every agent name, sorted (imports nothing)."""
    return {name: AGENTS[name].summary for name in sorted(AGENTS)}


def make_agent(spec: str, game: str) -> Agent:
    """An agent from a spec ``name`` or ``name:arg`` (e.g. ``ppo:runs/ppo/model.pt``) for ``game``.

    Args:
        spec: the agent's name and optional argument.
        game: the game's short name.

    Returns:
        The agent, with ``name`` set to ``spec``.

    Raises:
        ValueError: an unknown name (the valid names are listed), or a bad argument
            or game for that agent.
        ImportError: the agent needs an optional dependency that is not installed
            (the message names the extra to install).
    """
    name, _, arg = spec.partition(":")
    entry = AGENTS.get(name)
    if entry is None:
        raise ValueError(f"agent={spec!r} is not valid; valid agents: {sorted(AGENTS)}")
    factory = entry.factory if callable(entry.factory) else _load(entry.factory, name, entry.extra)
    agent = factory(game, arg or None)
    agent.name = spec
    return agent


def _load(target: str, name: str, extra: str | None) -> Callable:
    """Import ``"module:attribute"``; a missing third-party module names the extra to install."""
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] == "octagames":
            raise  # our own module is missing: a broken install or a typo, not an extra
        hint = (f"install it with pip install 'octagames[{extra}]'" if extra
                else f"install {e.name.split('.')[0]}")
        raise ModuleNotFoundError(f"agent {name!r} needs {e.name!r}, which is not installed; {hint}",
                                  name=e.name) from e
    return getattr(module, attribute)


__all__ = ["AGENTS", "HEURISTICS", "AgentEntry", "available_agents", "make_agent", "register"]
