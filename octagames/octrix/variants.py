"""Octrix's named variants and per-game settings (collected by :mod:`octagames.catalogue`)."""

from octagames.catalogue import GameSpec, Variant

SPEC = GameSpec(
    game="octrix",
    order=1,
    variants=(
        Variant("octrix", "octrix", "Octrix, the match to 88 (the seed's game)", {"match": True},
                players=(2, 3, 4), zoo=(2, 3), leaderboard=(100, 1000)),
        Variant("octrix-round", "octrix", "Octrix, a single round", {"match": False},
                players=(2, 3, 4), demo_mcts=200),
        Variant("octrix-round-small", "octrix", "Octrix, a single 2-player round with 2 ranks and 2 cards "
                "in hand (small enough for exact solvers: train-cfr's default)",
                {"match": False, "ranks": 2, "hand_size": 2}, players=(2,)),
        Variant("octrix-partnership", "octrix", "Octrix, 4 players in two partnerships, the match to 88",
                {"match": True, "partnership": True}, players=(4,), zoo=(4,)),
    ),
    heuristic="octagames.agents.heuristics.octrix:OctrixHeuristicAgent",
    picture="octagames.envs.pictures.octrix",
    gymnasium_id="octagames/Octrix-v0",
    gymnasium_class="octagames.envs.gym_wrapper:OctrixEnv",
    conformance=(
        ("octrix-round", {"num_players": 2}),
        ("octrix-round", {"num_players": 3}),
        ("octrix-round", {"num_players": 4}),
        ("octrix-round", {"num_players": 4, "partnership": True}),
        ("octrix", {"num_players": 2}),  # the seed's game: a match to 88
        ("octrix", {"num_players": 4, "partnership": True}),  # the partnership game as the seed's match
        ("octrix-round", {"num_players": 2, "ranks": 2, "hand_size": 3}),
    ),
)
