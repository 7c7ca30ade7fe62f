"""Search: MCTS compiled over the engine kernels (:mod:`.mcts` and its templates), rollout searches over
sampled worlds (:mod:`.rollouts`, :mod:`.belief_achten`) and the exact Octrix round solver
(:mod:`.octrix_solver`)."""
