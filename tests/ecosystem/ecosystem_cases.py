"""The games of the ecosystem suite: one configuration per game and rulebook, the hard cases included."""

# (game, config kwargs): every game once, the turn-based and the team cases included
GAMES = [
    ("octrix", dict(num_players=3)),                    # every seat plays every trick
    ("octrix", dict(num_players=4, partnership=True)),  # the pairs play in turn
    ("achten", dict(num_players=2, deal_penalty=1.0)),  # some deals end the round at once
    ("octiles", dict(num_players=2)),
    ("octa", dict(rules="en")),
    ("octa", dict(rules="nl")),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in c.items())}" for g, c in GAMES]

#: Gymnasium id of each game (registered by ``import octagames.envs``)
GYM_ID = {"octrix": "octagames/Octrix-v0", "achten": "octagames/Achten-v0", "octiles": "octagames/Octiles-v0",
          "octa": "octagames/Octa-v0"}
