"""Full deck achten's named variants and per-game settings (collected by :mod:`octagames.catalogue`)."""

from octagames.catalogue import GameSpec, Variant

SPEC = GameSpec(
    game="achten",
    order=2,
    variants=(
        Variant("achten", "achten", "Full deck achten, one round, points first (the seed's game)",
                players=(2, 3, 4, 5, 6)),
        Variant("achten-match", "achten", "Full deck achten, rounds until one player leads with 3 points",
                {"match": True}, players=(2, 3, 4, 5, 6)),
        Variant("achten-dealer-pays", "achten", "Full deck achten, one round, the worst hand pays 1 point for dealing",
                {"deal_penalty": 1.0}, players=(2, 3, 4, 5, 6), zoo=(2, 4), leaderboard=(200, 2000),
                leaderboard_cfr=True, demo_mcts=200),
    ),
    heuristic="octagames.agents.heuristics.achten:AchtenHeuristicAgent",
    picture="octagames.envs.pictures.achten",
    mcts_evaluator=("value", "octagames.agents.heuristics.achten:achten_value"),
    playout_policy="octagames.agents.heuristics.achten:achten_playout",
    exploration=0.35,
    belief="octagames.agents.search.belief_achten",
    gymnasium_id="octagames/Achten-v0",
    gymnasium_class="octagames.envs.gym_wrapper:AchtenEnv",
    conformance=(
        ("achten", {"num_players": 2}),
        ("achten", {"num_players": 3}),
        ("achten", {"num_players": 4}),
        ("achten", {"num_players": 5}),
        ("achten", {"num_players": 6}),
        ("achten-dealer-pays", {"num_players": 4}),  # the dealing cost (deal_penalty) of the 4-seat zoo model
        ("achten-match", {"num_players": 3, "target": 0.2, "max_rounds": 12}),
        ("achten", {"num_players": 2, "ranks": 3, "low_rank": 7, "turn_cap": 3}),
    ),
)
