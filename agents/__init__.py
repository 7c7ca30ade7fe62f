"""Baselines behind one agent interface (:class:`agents.base.Agent`) and the arena."""

from agents.base import Agent, RandomAgent, Turn, make_turn

__all__ = ["Agent", "RandomAgent", "Turn", "make_turn"]
