"""Octa's named variants (one per rulebook) and per-game settings (collected by :mod:`octagames.catalogue`).

The bare name ``octa`` is the game; it gives its first variant, the English rulebook (``Config``'s
default ``rules="en"``). The Dutch rulebook is ``octa-nl``.
"""

from octagames.catalogue import GameSpec, Variant

SPEC = GameSpec(
    game="octa",
    order=4,
    variants=(
        Variant("octa-en", "octa", "Octa, English rulebook (The Game of 8)", {"rules": "en"}, zoo=(2,),
                leaderboard=(20, 100), demo_mcts=20),
        Variant("octa-nl", "octa", "Octa, Dutch rulebook (18-09-25)", {"rules": "nl"}, zoo=(2,),
                leaderboard=(20, 100)),
    ),
    heuristic="octagames.agents.heuristics.octa:OctaHeuristicAgent",
    playout_policy="octagames.agents.heuristics.octa:octa_playout",
    playout_policy_by=("rules", {"en": "octagames.agents.heuristics.octa:en_playout",
                                 "nl": "octagames.agents.heuristics.octa:nl_playout"}),
    belief="octagames.agents.search.rollouts",
    picture="octagames.envs.pictures.octa",
    gymnasium_id="octagames/Octa-v0",
    gymnasium_class="octagames.envs.gym_wrapper:OctaEnv",
    conformance=(
        ("octa-en", {}),
        ("octa-en", {"max_turns": 20}),
        ("octa-nl", {}),
        ("octa-nl", {"max_turns": 20}),
    ),
)
