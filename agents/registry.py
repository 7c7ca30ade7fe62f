"""Build agents by spec: ``make_agent("mcts:2000", "octrix")``.

A spec is ``name`` or ``name:arg``. :data:`AGENTS` maps every name to where its
factory lives (``"module:function"``), a one-line summary and, for agents that need
an optional dependency, the extra that installs it. A factory module is
imported the first time one of its agents is built, never before: listing the
names, or refusing an unknown one, imports nothing heavy (no numba kernels, no
torch). The summary of an agent that plays only some games names them from the games'
specs (``AgentEntry.plays``), which imports the game packages when it is read.

A factory is ``factory(game: str, arg: str | None) -> Agent`` (``game`` is the game's
short name); it raises ``ValueError`` with the valid form when ``arg`` is bad.

**The config.** ``make_agent(spec, game)`` takes the game as a name (a game or a
variant) or as a :class:`~octagames.core.Game`. Given a ``Game``, the agent is checked
against its full config at once (:meth:`Agent.check_game`): a model trained on another
config (``zoo:``, ``az:``, ``ppo:``) is refused there with both configs named, unless
``allow_config_mismatch=True`` lets it try with a warning. Given a name, the same check
runs at the first game's ``reset``.

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

from octagames import catalogue
from octagames.agents.base import Agent, RandomAgent
from octagames.core import Game

Factory = Callable[[str, "str | None"], Agent]


@dataclass(frozen=True)
class AgentEntry:
    """Where an agent's factory lives and what it needs.

    Attributes:
        factory: ``"module:function"``, imported on first use (or the function itself).
        text: one line for error messages and listings, with the spec's arguments.
        extra: the optional extra of ``octagames`` its dependencies come from
            (``pip install 'octagames[<extra>]'``), or ``None`` for the base install.
        takes_game: the factory takes the :class:`~octagames.core.Game` it will play (built from
            the variant name when a name is given) instead of the game's short name: for agents
            trained when they are built, which must train on the config they play.
        plays: for an agent that plays only some games, which: true for the spec
            (``octagames/<game>/variants.py``) of each game it plays; ``None``: every game.
    """

    factory: str | Factory
    text: str
    extra: str | None = None
    takes_game: bool = False
    plays: Callable[[catalogue.GameSpec], bool] | None = None

    @property
    def summary(self) -> str:
        """``text``, followed by the games the agent plays where ``plays`` says (read from the games'
        specs when asked, so that naming or refusing an agent imports no game)."""
        return self.text if self.plays is None else f"{self.text} ({', '.join(games_where(self.plays))})"


def _random(game: str, arg: str | None) -> Agent:
    if arg is not None:
        raise ValueError(f"agent 'random:{arg}' is not valid: 'random' takes no argument")
    return RandomAgent()


def _heuristic(game: str, arg: str | None) -> Agent:
    # each game declares its heuristic in octagames/<game>/variants.py (GameSpec.heuristic)
    if arg is not None:
        raise ValueError(f"agent 'heuristic:{arg}' is not valid: 'heuristic' takes no argument")
    target = catalogue.game_spec(game).heuristic if game in catalogue.names() else None
    if target is None:
        raise ValueError(f"agent 'heuristic' is not available for game {game!r}; "
                         f"games with a heuristic: {heuristic_games()}")
    return _load(target, "heuristic", None)()


def games_where(has: Callable[[catalogue.GameSpec], bool]) -> list[str]:
    """The games whose spec (``octagames/<game>/variants.py``) satisfies ``has``, sorted."""
    return sorted(g for g in catalogue.games() if has(catalogue.game_spec(g)))


def heuristic_games() -> list[str]:
    """The games whose spec (``octagames/<game>/variants.py``) names a hand-written heuristic, sorted."""
    return games_where(lambda spec: spec.heuristic is not None)


_BELIEF = "octagames.agents.search.belief_achten"


AGENTS: dict[str, AgentEntry] = {
    "random": AgentEntry(_random, "uniformly random legal actions"),
    "heuristic": AgentEntry(_heuristic, "the game's hand-written heuristic"),
    "mcts": AgentEntry("octagames.agents.search.mcts:_factory",
                       "compiled MCTS: mcts[:<simulations>[:random|:heuristic][:win][:c=<exploration>]]"),
    "belief": AgentEntry(f"{_BELIEF}:_factory",
                         "rollouts over deals that fit the other seats' moves: belief[:<worlds>]",
                         plays=lambda spec: spec.belief == _BELIEF),
    "rollout": AgentEntry("octagames.agents.search.rollouts:_factory",
                          "the compiled heuristic, improved where paired rollouts clearly disagree: "
                          "rollout[:<worlds>[:m=<margin>]]", plays=lambda spec: spec.playout_policy is not None),
    "cfr": AgentEntry("octagames.agents.cfr.agent:_factory",
                      "MCCFR average policy: cfr[:<iterations>][:external] or cfr:<checkpoint.npz>",
                      takes_game=True),
    "oracle": AgentEntry("octagames.agents.search.octrix_solver:_factory",
                         "the exact equilibrium of a 2-player Octrix round (octrix-round; in a match, each round's; "
                         "about 8 times slower per card in hand: seconds a deal at 6 cards, minutes at 8)",
                         "train"),
    "ppo": AgentEntry("octagames.agents.learn.ppo:_factory",
                      "a trained PPO policy: ppo:<policy or checkpoint path>[@sample]", "train"),
    "az": AgentEntry("octagames.agents.learn.az:_az_factory",
                     "a search-and-learning model with its search: az:<model or checkpoint path>[:<simulations>]",
                     "train"),
    "zoo": AgentEntry("octagames.agents.learn.az:_zoo_factory",
                      "the shipped model of a variant with its default search: zoo:<variant>[-<n>p][:<simulations>]",
                      "train"),
    "net": AgentEntry("octagames.agents.learn.az:_net_factory",
                      "a shipped model's network alone: PUCT with its priors and value (Achten: its belief and "
                      "rollouts), no heuristic, hint or heuristic's rollout: net:<variant>[-<n>p][:<simulations>] "
                      "(:0 its greedy policy, one forward pass)", "train"),
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
    """``{name: summary}`` of every agent name, sorted (imports no agent module; the summaries that
    name the games an agent plays read the games' specs)."""
    return {name: AGENTS[name].summary for name in sorted(AGENTS)}


def make_agent(spec: str, game: "str | Game", *, allow_config_mismatch: bool = False,
               field: str | None = None) -> Agent:
    """An agent from a spec ``name`` or ``name:arg`` (e.g. ``ppo:runs/ppo/model.pt``) for ``game``.

    Args:
        spec: the agent's name and optional argument.
        game: a :class:`~octagames.core.Game`, against whose full config the agent is checked at
            once (:meth:`Agent.check_game`), or a game or variant name (``"octrix"``, ``"octa-nl"``;
            the check waits for the first game).
        allow_config_mismatch: let a model trained on another config of the game play it, with a
            warning, instead of refusing it (``--allow-model-mismatch`` on the command line).
        field: the setting that named the spec (``expert``, ``opponent_agent`` ...): a ``ValueError``
            refusal then starts with it (``expert: agent='mctz:8' is not valid; ...``).

    Returns:
        The agent, with ``name`` set to ``spec``.

    Raises:
        ValueError: an unknown name (the valid names are listed), a bad argument or game for
            that agent, or (given a ``Game``) a model trained on another config of it.
        ImportError: the agent needs an optional dependency that is not installed
            (the message names the extra to install).
    """
    try:
        return _make_agent(spec, game, allow_config_mismatch=allow_config_mismatch)
    except ValueError as e:
        if field is None:
            raise
        raise ValueError(f"{field}: {e}") from e


def _make_agent(spec: str, game: "str | Game", *, allow_config_mismatch: bool = False) -> Agent:
    """The agent of :func:`make_agent`, its refusals as the factories word them."""
    if not isinstance(spec, str):
        raise ValueError(f"agent={spec!r} is not valid; a spec is a string: one of {sorted(AGENTS)}, "
                         "with its argument after ':' where it takes one")
    if not isinstance(game, (str, Game)):
        raise ValueError(f"game={game!r} is not valid; it is a variant name ({', '.join(catalogue.names())}) "
                         "or an octagames.core.Game")
    name, colon, arg = spec.partition(":")
    entry = AGENTS.get(name)
    if entry is None:
        raise ValueError(f"agent={spec!r} is not valid; valid agents: {sorted(AGENTS)}")
    if colon and not arg:  # "random:" or "mcts:" was taken as the bare name, under a name of its own
        raise ValueError(f"agent={spec!r} is not valid: nothing follows the ':'; drop it or give an argument after it "
                         f"({name}: {entry.summary})")
    factory = entry.factory if callable(entry.factory) else _load(entry.factory, name, entry.extra)
    if isinstance(game, str) and game not in catalogue.names():
        raise ValueError(f"game={game!r} is not valid; valid values: {', '.join(catalogue.names())}")
    try:
        if entry.takes_game:
            if isinstance(game, str):
                game = Game(game)  # the variant's config: the agent trains on what it will play
            agent = factory(game, arg or None)
        else:
            game_name = game if isinstance(game, str) else game.name
            if game_name in catalogue.names():  # a variant name: its factory takes the game's short name
                game_name = catalogue.variant(game_name).game
            agent = factory(game_name, arg or None)
    except IsADirectoryError as e:
        raise ValueError(f"agent {spec!r}: {e.filename} is a folder; name the model file in it") from e
    except FileNotFoundError as e:  # the spec named: several specs may be on one command line
        if spec in str(e):
            raise
        raise FileNotFoundError(e.errno, f"agent {spec!r}: {e.strerror or e}", e.filename) from e
    except ValueError as e:  # the spec named, where the factory's words do not (several specs on one line)
        if spec in str(e) or type(e) is not ValueError:  # a subclass (UnsafeModelFile) is caught by its class
            raise
        raise ValueError(f"agent {spec!r}: {e}") from e
    agent.name = spec
    if allow_config_mismatch and hasattr(agent, "allow_config_mismatch"):
        agent.allow_config_mismatch = True
    if not isinstance(game, str):
        agent.check_game(game)
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


__all__ = ["AGENTS", "AgentEntry", "available_agents", "heuristic_games", "make_agent", "register"]
