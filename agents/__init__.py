"""Baselines behind one agent interface (:class:`octagames.agents.base.Agent`) and the arena.

The folder ``agents/`` installs as ``octagames.agents`` (see ``setup.cfg``); it has no
top-level import name of its own.
"""

if __name__ != "octagames.agents":  # one import name per module, never two
    raise ImportError("the folder agents/ is the package octagames.agents; import octagames.agents "
                      f"(in a checkout, after `pip install -e .`), not {__name__}")

from octagames.agents.base import Agent, RandomAgent, Turn, make_turn

__all__ = ["Agent", "RandomAgent", "Turn", "make_turn"]
