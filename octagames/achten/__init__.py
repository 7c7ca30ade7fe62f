"""Full deck achten: hidden hands, an open pot and a closed card (see :mod:`octagames.achten.rules`)."""

from octagames.achten.rules import (CONFIG_FIELDS, INFO, NUM_ACTIONS, OBS_LAYOUT, OBS_SIZE, STATE_DTYPE, Config,
                                    acting_player, action_to_string, apply_action, better_hand,
                                    card_name, cards, chance_outcomes, closed_card, current_player,
                                    deal_outcomes, determinize, hand_key, hand_of, hand_value,
                                    illegal_reason, is_nul, is_verbied, legal_mask, observation,
                                    parse_card, pot_of, render, reset, returns, sample_chance,
                                    observation_bounds, utility_bounds, write_config)

__all__ = ["CONFIG_FIELDS", "INFO", "NUM_ACTIONS", "OBS_LAYOUT", "OBS_SIZE", "STATE_DTYPE", "Config", "acting_player",
           "action_to_string", "apply_action", "better_hand", "card_name", "cards", "chance_outcomes",
           "closed_card", "current_player", "deal_outcomes", "determinize", "hand_key", "hand_of",
           "hand_value", "illegal_reason", "is_nul", "is_verbied", "legal_mask", "observation",
           "parse_card", "pot_of", "render", "reset", "returns", "sample_chance", "observation_bounds", "utility_bounds",
           "write_config"]
