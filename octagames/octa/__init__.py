"""Octa ("The Game of 8"): runs, a pool ring, tokens and action cards (see :mod:`octagames.octa.rules`)."""

from octagames.octa.rules import (EARLIER_OBS_SIZES, EARLIER_STATE_DTYPES, INFO, NUM_ACTIONS, OBS_SIZE,
                                  STATE_DTYPE, Config,
                                  acting_player, action_layout, action_rows,
                                  action_to_string, apply_action, apply_legal,
                                  card_name, chance_outcomes, checked_play, current_player, determinize,
                                  illegal_reason, kernel_module, legal_mask, max_game_length, obs_layout,
                                  observation, observation_bounds, render, reset, returns, sample_chance,
                                  write_config)
from octagames.octa.record import check_record

__all__ = ["EARLIER_OBS_SIZES", "EARLIER_STATE_DTYPES", "INFO", "NUM_ACTIONS", "OBS_SIZE", "STATE_DTYPE", "Config",
           "acting_player",
           "action_layout", "action_rows",
           "action_to_string", "apply_action", "apply_legal", "card_name", "chance_outcomes",
           "check_record", "checked_play", "current_player", "determinize", "illegal_reason", "kernel_module",
           "legal_mask", "max_game_length", "obs_layout", "observation", "observation_bounds", "render", "reset",
           "returns", "sample_chance", "write_config"]
