"""Full deck achten: hidden hands, an open pot and a closed card (see :mod:`octagames.achten.rules`)."""

from octagames.achten.rules import (ACTION_FEATURES, ACTIONS, CONFIG_FIELDS, INFO, NUM_ACTIONS, OBS_LAYOUT,
                                    OBS_SIZE, STATE_DTYPE, Config,
                                    acting_player, action_to_string, apply_action, better_hand,
                                    card_name, cards, chance_outcomes, check_record, closed_card,
                                    current_player, deal_outcomes, determinize, hand_key, hand_of,
                                    hand_value, illegal_reason, is_nul, is_verbied, legal_mask,
                                    max_game_length, observation, observation_bounds, parse_card, pot_of,
                                    render, reset, returns, sample_chance, truncated, utility_bounds,
                                    write_config)

__all__ = ["ACTION_FEATURES", "ACTIONS", "CONFIG_FIELDS", "INFO", "NUM_ACTIONS", "OBS_LAYOUT", "OBS_SIZE",
           "STATE_DTYPE", "Config",
           "acting_player", "action_to_string", "apply_action", "better_hand", "card_name", "cards",
           "chance_outcomes", "check_record", "closed_card", "current_player", "deal_outcomes",
           "determinize", "hand_key", "hand_of", "hand_value", "illegal_reason", "is_nul", "is_verbied",
           "legal_mask", "max_game_length", "observation", "observation_bounds", "parse_card", "pot_of",
           "render", "reset", "returns", "sample_chance", "truncated", "utility_bounds", "write_config"]
