"""The hand-written heuristic of each game, one module per game (:mod:`.octrix`, :mod:`.achten`,
:mod:`.octiles`, :mod:`.octa`); the registry builds them as the agent spec ``heuristic``."""
