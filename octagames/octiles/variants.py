"""Octiles' named variants and per-game settings (collected by :mod:`octagames.catalogue`)."""

from octagames.catalogue import GameSpec, Variant

SPEC = GameSpec(
    game="octiles",
    order=3,
    variants=(
        Variant("octiles", "octiles", "Octiles (the seed's game)", players=(2, 3, 4), demo_mcts=20),
        Variant("octiles-teams", "octiles", "Octiles, 4 players in two teams", {"team": True}, players=(4,)),
        Variant("octiles-play-on", "octiles", "Octiles, the others play on for the places", {"play_on": True},
                players=(3, 4)),
        Variant("octiles-fixed-start", "octiles", "Octiles, runners on fixed start circles (no setup choices)",
                {"choose_start_circles": False}, players=(2, 3, 4), zoo=(2, 4), leaderboard=(50, 400)),
    ),
    heuristic="octagames.agents.heuristics.octiles:OctilesHeuristicAgent",
    mcts_evaluator=("value", "octagames.agents.heuristics.octiles:octiles_value"),
    picture="octagames.envs.pictures.octiles",
    gymnasium_id="octagames/Octiles-v0",
    gymnasium_class="octagames.envs.gym_wrapper:OctilesEnv",
    conformance=(
        ("octiles", {"num_players": 2}),
        ("octiles", {"num_players": 2, "adjacent": True, "runners": 4}),
        ("octiles", {"num_players": 3}),
        ("octiles-play-on", {"num_players": 3}),
        ("octiles-play-on", {"num_players": 4}),  # the turn cap with places won (E2)
        ("octiles", {"num_players": 4}),
        ("octiles-teams", {"num_players": 4, "runners": 3}),
        ("octiles", {"num_players": 2, "goal_locks": True, "runners": 2}),
        ("octiles-fixed-start", {"num_players": 2}),  # the setup without choices of the zoo models
    ),
)
