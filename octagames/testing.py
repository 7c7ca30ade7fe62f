"""Invariant checks every rules engine must satisfy (used by the conformance suite).

These helpers import nothing beyond numpy and the engine contract, so a new
game can be checked the moment it follows :mod:`octagames.core`.
"""

from __future__ import annotations

import numpy as np

from octagames.core import CHANCE, SIMULTANEOUS, TERMINAL, Game


def random_playout(game: Game, seed: int, check: bool = True, max_steps: int | None = None) -> np.void:
    """Play one game with uniformly random actions (chance by its probabilities).

    With ``check`` every step verifies the contract's invariants:

    * the mask is non-empty exactly when a seat must act;
    * an illegal action is refused and leaves the record byte-identical;
    * chance probabilities are positive and sum to one;
    * observations have the declared size, and a determinized copy gives the
      acting seat exactly the same observation;
    * serialization round-trips;
    * the game ends within ``Game.max_game_length`` actions, returns within the utility bounds.

    Returns:
        the terminal record.
    """
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    limit = max_steps or game.max_game_length
    for _step in range(limit + 1):
        cp = game.current_player(s)
        if cp == TERMINAL:
            if check:
                r = game.returns(s)
                assert np.all(r >= game.min_utility - 1e-9) and np.all(r <= game.max_utility + 1e-9)
            return s
        if cp == CHANCE:
            outs = game.chance_outcomes(s)
            if check:
                probs = np.array([p for _, p in outs])
                assert len(outs) > 0 and np.all(probs > 0) and abs(probs.sum() - 1.0) < 1e-9
            acts = [a for a, _ in outs]
            probs = np.array([p for _, p in outs])
            a = int(acts[rng.choice(len(acts), p=probs / probs.sum())])
            game.apply_action(s, a)
            continue
        p = game.acting_player(s)
        assert 0 <= p < game.num_players, (cp, p)
        if cp != SIMULTANEOUS:
            assert cp == p
        mask = game.legal_mask(s, p)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"seat {p} must act but has no legal action"
        if check:
            before = game.to_bytes(s)
            illegal = np.flatnonzero(mask == 0)
            if illegal.size:
                bad = int(rng.choice(illegal))
                assert not game._apply(s, bad), f"illegal action {bad} accepted"
                assert game.to_bytes(s) == before, "a refused action changed the state"
            assert game.to_bytes(game.from_bytes(before)) == before
            obs = game.observation(s, p)
            assert obs.shape == (game.observation_size,) and np.all(np.isfinite(obs))
            low, high = game.observation_bounds()
            assert np.all(obs >= low) and np.all(obs <= high), "observation outside its declared bounds"
            det = game.determinize(s, p, int(rng.integers(1 << 30)))
            assert np.array_equal(game.observation(det, p), obs), "determinize changed what the seat sees"
            assert np.array_equal(game.legal_mask(det, p), mask), "determinize changed the seat's legal moves"
        game.apply_action(s, int(rng.choice(legal)))
    raise AssertionError(f"game did not end within max_game_length={limit}")
