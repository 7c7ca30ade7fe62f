"""Octrix: open-hand trick taking with simultaneous play (see :mod:`octagames.octrix.rules`)."""

from octagames.octrix.rules import (ACTIONS, CONFIG_FIELDS, INFO, NUM_ACTIONS, OBS_LAYOUT, OBS_SIZE, STATE_DTYPE, Config,
                                    acting_player, action_to_string, all_seats_act, apply_action, card_name,
                                    chance_outcomes, check_record, current_player, deal_outcomes,
                                    determinize, illegal_reason, legal_mask, max_game_length, observation,
                                    observation_bounds, render, reset, returns, run_points, sample_chance,
                                    settle_chance, side_of, truncated, utility_bounds, write_config)

__all__ = ["ACTIONS", "CONFIG_FIELDS", "INFO", "NUM_ACTIONS", "OBS_LAYOUT", "OBS_SIZE", "STATE_DTYPE", "Config",
           "acting_player", "action_to_string", "all_seats_act", "apply_action", "card_name", "chance_outcomes",
           "check_record", "current_player", "deal_outcomes", "determinize", "illegal_reason",
           "legal_mask", "max_game_length", "observation", "observation_bounds", "render", "reset",
           "returns", "run_points", "sample_chance", "settle_chance", "side_of", "truncated", "utility_bounds",
           "write_config"]
