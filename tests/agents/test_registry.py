"""Tests of octagames.agents.registry: names to factories imported on first use, agents named by their spec."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys

import pytest

from octagames.agents.base import Agent, RandomAgent
from octagames import catalogue
from octagames.agents.registry import AGENTS, available_agents, heuristic_games, make_agent, register
from octagames.core import available_games

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_every_entry_points_at_a_factory():
    for name, entry in AGENTS.items():
        if callable(entry.factory):
            continue
        module, _, attribute = entry.factory.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute)), name
    for game in heuristic_games():
        module, _, attribute = catalogue.game_spec(game).heuristic.partition(":")
        assert issubclass(getattr(importlib.import_module(module), attribute), Agent), game


def test_every_game_has_a_heuristic_named_heuristic():
    assert heuristic_games() == sorted(available_games())
    for game in heuristic_games():
        module, _, attribute = catalogue.game_spec(game).heuristic.partition(":")
        assert getattr(importlib.import_module(module), attribute).name == "heuristic"
        assert make_agent("heuristic", game).name == "heuristic"


def test_the_summaries_name_the_games_an_agent_plays_from_the_games_specs():
    rollout = sorted(g for g in catalogue.games() if catalogue.game_spec(g).playout_policy is not None)
    assert "octa" in rollout and AGENTS["rollout"].summary.endswith(f"({', '.join(rollout)})")
    for game in sorted(set(catalogue.games()) - set(rollout)):
        with pytest.raises(ValueError, match="not available for game"):
            make_agent("rollout", game)
    assert AGENTS["belief"].summary.endswith("(achten)")
    with pytest.raises(ValueError, match="achten only"):
        make_agent("belief", "octa")


def test_listing_and_refusing_import_no_agent_module():
    done = _run(
        "import sys\n"
        "from octagames.agents.registry import AGENTS, make_agent\n"
        "names = sorted(AGENTS)\n"
        "try:\n    make_agent('alphazero', 'octrix')\nexcept ValueError as e:\n    print(e)\n"
        "games = ('octagames.octrix', 'octagames.achten', 'octagames.octiles', 'octagames.octa')\n"
        "loaded = [m for m in sys.modules if m.startswith(('octagames.agents.', 'torch') + games)]\n"
        "print(sorted(loaded))\n"
    )
    assert done.returncode == 0, done.stderr
    message, loaded = done.stdout.strip().splitlines()
    assert "agent='alphazero' is not valid; valid agents: ['az', 'belief', 'cfr', 'heuristic', 'mcts', 'net', 'oracle'" in message
    assert loaded == "['octagames.agents.base', 'octagames.agents.registry']"


def test_a_missing_extra_is_named():
    done = _run(
        "import sys\nsys.modules['torch'] = None  # as if the train extra were not installed\n"
        "from octagames.agents.registry import make_agent\n"
        "try:\n    make_agent('ppo:policy.pt', 'octrix')\n"
        "except ImportError as e:\n    print(type(e).__name__, e)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ModuleNotFoundError agent 'ppo' needs 'torch'")
    assert "pip install 'octagames[train]'" in done.stdout


def test_agents_are_named_by_their_spec():
    for spec in ("random", "heuristic", "mcts:30:random", "mcts:200:win:c=0.5", "cfr:3"):
        assert make_agent(spec, "octrix").name == spec
    assert make_agent("oracle", "octrix").name == "oracle"


def test_bad_specs_say_what_is_valid():
    with pytest.raises(ValueError, match=r"valid agents: \['az', 'belief', 'cfr', 'heuristic'"):
        make_agent("alphazero", "octrix")
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("random:3", "octrix")
    for spec in ("heuristic", "mcts:10"):  # a game's name given as text is checked whatever the agent
        with pytest.raises(ValueError, match=r"game='chess' is not valid; valid values: octrix, "):
            make_agent(spec, "chess")
    # every refusal names the spec it refuses (several may be given on one command line)
    for spec, words in (("mcts:0", "num_simulations=0 is not valid"), ("belief:0", "worlds=0 is not valid"),
                        ("mcts:-5", "the argument is the number of simulations in plain digits (0-9)"),
                        ("mcts:10:c=nan", "'c=nan' is not a finite number"),
                        ("zoo:octrix:-3", "the simulations '-3' are not a whole number >= 0"),
                        ("net:octrix:abc", "the simulations 'abc' are not a whole number >= 0"),
                        ("ppo:" + HERE, f"{HERE} is a folder; name the model file in it")):
        with pytest.raises(ValueError, match=re.escape(f"agent '{spec}': {words}")):
            make_agent(spec, "achten" if spec.startswith("belief") else "octrix")
    with pytest.raises(ValueError, match="number of MCCFR iterations"):
        make_agent("cfr:many", "octrix")
    # an empty argument was taken as none, under another name ("random:", "mcts:" as mcts:1000)
    for spec in ("random:", "heuristic:", "mcts:", "zoo:", "az:"):
        with pytest.raises(ValueError, match=re.escape(f"agent='{spec}' is not valid: nothing follows the ':'")):
            make_agent(spec, "octrix")
    for spec, words in (("zoo:octrix:100:5", "one budget at most after the model's name"),  # not "zoo:octrix:100"
                        ("net:octrix:0:1", "one budget at most after the model's name")):
        with pytest.raises(ValueError, match=re.escape(f"agent '{spec}': {words}; '{spec[:3]}:<model>")):
            make_agent(spec, "octrix")
    with pytest.raises(ValueError, match=r"^net:nope is not valid; valid zoo models: octrix, "):  # named as asked
        make_agent("net:nope", "octrix")
    with pytest.raises(FileNotFoundError, match=r"agent 'az:/no/such/model\.pt:10': No such file"):
        make_agent("az:/no/such/model.pt:10", "octrix")
    with pytest.raises(ValueError, match="only available for octrix"):
        make_agent("oracle", "achten")


def test_a_count_in_a_spec_is_plain_digits_and_a_unicode_digit_is_refused_in_words():
    # "²" is a digit to str.isdigit, not to int(); "٣" (\u0663) is read as 3 by int(): neither is a count
    iterations = "is not valid: the argument is a number of MCCFR iterations (at least 1) in plain digits (0-9)"
    for spec, words in (("cfr:²", iterations), ("cfr:\u0663", iterations), ("cfr:3\u0663", iterations),
                        ("cfr:\u0663:external", iterations),
                        ("cfr:0", iterations), ("cfr:00:external", iterations),  # an untrained table: uniform play
                        ("zoo:octrix:²", "the simulations '²' are not a whole number >= 0 in plain digits"),
                        ("net:octrix:\u0663", "the simulations '\u0663' are not a whole number >= 0"),
                        ("az:model.pt:²", "the simulations '²' are not a whole number >= 0 in plain digits")):
        with pytest.raises(ValueError, match=re.escape(f"agent '{spec}' {words}" if spec.startswith("cfr")
                                                       else f"agent '{spec}': {words}")):
            make_agent(spec, "octrix")


def test_a_search_count_int_would_read_is_refused_unless_plain_digits():
    # int() reads "+3", " 3", "1_000" and "٣" (\u0663) as numbers: a spec spells its count in plain digits
    for spec, game, words in (("mcts:{}", "octrix", "the argument is the number of simulations in plain digits"),
                              ("belief:{}", "achten", "the argument is the number of worlds in plain digits"),
                              ("rollout:{}", "achten", "the argument is the number of worlds in plain digits")):
        for count in ("+3", " 3", "1_000", "\u0663", "²"):
            with pytest.raises(ValueError, match=re.escape(f"agent '{spec.format(count)}': {words}")):
                make_agent(spec.format(count), game)
        assert make_agent(spec.format("0032"), game) is not None  # leading zeros stay a count


def test_register_adds_a_name_for_outside_code(monkeypatch):
    monkeypatch.setitem(AGENTS, "dummy", AGENTS["random"])  # restored after the test
    register("dummy", lambda game, arg: RandomAgent(), "a random agent under another name")
    assert available_agents()["dummy"] == "a random agent under another name"
    assert isinstance(make_agent("dummy", "octa"), RandomAgent)
    with pytest.raises(ValueError, match="no ':'"):
        register("a:b", "octagames.agents.registry:_random")


@pytest.mark.parametrize("spec,game,words", [
    (None, "octrix", "agent=None is not valid; a spec is a string"),
    (5, "octrix", "agent=5 is not valid; a spec is a string"),
    ("random", None, "game=None is not valid; it is a variant name"),
    ("heuristic", 5, "game=5 is not valid; it is a variant name"),
], ids=["spec None", "spec int", "game None", "game int"])
def test_a_spec_or_game_of_another_type_is_refused_in_words(spec, game, words):
    # AttributeError before: 'NoneType' object has no attribute 'partition' (or 'name')
    with pytest.raises(ValueError, match=re.escape(words)):
        make_agent(spec, game)


def test_an_agent_that_cannot_play_a_game_is_refused_when_built_for_it_not_at_its_first_move():
    """A review: belief on an Achten match and the oracle at 3 or 4 Octrix seats were built and checked for the
    game, then refused at the first game's reset or move (a tournament stopped after other pairs had played)."""
    from octagames.core import Game

    for spec, game, words in (("belief:2", Game("achten-match"), r"agent 'belief' plays one-round achten only"),
                              ("oracle", Game("octrix-round", num_players=3), r"agent 'oracle' plays 2-player Octrix "
                                                                               r"only .*not octrix-round-3p"),
                              ("oracle", Game("octrix-partnership"), r"not octrix-partnership-4p")):
        with pytest.raises(ValueError, match=words):
            make_agent(spec, game)
    assert make_agent("oracle", Game("octrix-round")).name == "oracle"
    assert make_agent("oracle", Game("octrix")).name == "oracle"  # a 2-player match: each round's equilibrium
    assert make_agent("belief:2", Game("achten-dealer-pays", num_players=3)).name == "belief:2"
