"""Octiles: race runners along paths built from octagonal tiles (see :mod:`octagames.octiles.rules`)."""

from octagames.octiles.rules import (INFO, NUM_ACTIONS, OBS_SIZE, STATE_DTYPE, Config,
                                     acting_player, action_to_string, apply_action, apply_legal,
                                     chance_outcomes, current_player, determinize, illegal_reason,
                                     legal_mask, list_turns, observation, random_legal_action, render,
                                     reset, returns, rollout, sample_chance, write_config)

__all__ = ["INFO", "NUM_ACTIONS", "OBS_SIZE", "STATE_DTYPE", "Config", "acting_player",
           "action_to_string", "apply_action", "apply_legal", "chance_outcomes", "current_player",
           "determinize", "illegal_reason", "legal_mask", "list_turns", "observation",
           "random_legal_action", "render", "reset", "returns", "rollout", "sample_chance", "write_config"]
