"""Octiles: race runners along paths built from octagonal tiles (see :mod:`octagames.octiles.rules`)."""

from octagames.octiles.rules import (ACTIONS, CHANCE_OUTCOMES, EARLIER_OBS_SIZES, INFO, NUM_ACTIONS, OBS_LAYOUT,
                                     OBS_SIZE, STATE_DTYPE, Config, acting_player, action_to_string,
                                     apply_action, apply_legal, chance_outcomes, check_record, current_player,
                                     determinize, illegal_reason, legal_mask, list_turns, max_game_length,
                                     observation, random_legal_action, render, reset, returns, sample_chance,
                                     side_of, truncated, write_config)

__all__ = ["ACTIONS", "CHANCE_OUTCOMES", "EARLIER_OBS_SIZES", "INFO", "NUM_ACTIONS", "OBS_LAYOUT", "OBS_SIZE",
           "STATE_DTYPE", "Config", "acting_player", "action_to_string", "apply_action", "apply_legal",
           "chance_outcomes", "check_record", "current_player", "determinize", "illegal_reason", "legal_mask",
           "list_turns", "max_game_length", "observation", "random_legal_action", "render", "reset", "returns",
           "sample_chance", "side_of", "truncated", "write_config"]
