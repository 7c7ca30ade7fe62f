"""Counterfactual regret minimisation: the flat game tree (:mod:`.tree`), tabular CFR and its variants on it
(:mod:`.solver`), sampled MCCFR on the engine kernels (:mod:`.mccfr`), best response and NashConv
(:mod:`.exploitability`), average-policy tables (:mod:`.tabular`) and the agent that plays them
(:mod:`.agent`)."""
