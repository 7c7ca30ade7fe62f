"""Octrix: open-hand trick taking with simultaneous play (see :mod:`octagames.octrix.rules`)."""

from octagames.octrix.rules import (CONFIG_FIELDS, INFO, NUM_ACTIONS, OBS_SIZE, STATE_DTYPE, Config,
                                    acting_player, all_seats_act, action_to_string, apply_action, card_name,
                                    chance_outcomes, current_player, determinize, illegal_reason,
                                    legal_mask, max_game_length, observation, observation_bounds, render, reset, returns, run_points,
                                    sample_chance, utility_bounds, write_config)

__all__ = ["CONFIG_FIELDS", "INFO", "NUM_ACTIONS", "OBS_SIZE", "STATE_DTYPE", "Config", "acting_player", "all_seats_act",
           "action_to_string", "apply_action", "card_name", "chance_outcomes", "current_player",
           "determinize", "illegal_reason", "legal_mask", "max_game_length", "observation", "observation_bounds", "render", "reset",
           "returns", "run_points", "sample_chance", "utility_bounds", "write_config"]
