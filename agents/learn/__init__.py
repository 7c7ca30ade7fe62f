"""Learning: networks and masked PPO (:mod:`.ppo`), search and learning (:mod:`.az`, :mod:`.az_selfplay`),
imitation of teacher games (:mod:`.imitation`) and Ray-distributed self-play (:mod:`.distributed`).
Everything here needs the ``train`` extra (torch)."""
