"""Invariant checks every rules engine must satisfy (used by the conformance suite).

These helpers import nothing beyond numpy and the engine contract, so a new
game can be checked the moment it follows :mod:`octagames.core`.
"""

from __future__ import annotations

from typing import Callable

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


def exercise(game: Game, s: np.void, rng: np.random.Generator, steps: int = 4) -> None:
    """Run every kernel and text of the contract on record ``s``, then play a few random actions.

    For records that passed ``check_record``: none of this may crash, hang or raise.
    """
    for v in range(game.num_players):
        game.observation(s, v)
        game.legal_mask(s, v)
        game.render(s, v)
        game.determinize(s, v, int(rng.integers(1 << 30)))
    game.render(s)
    game.returns(s)
    for _ in range(steps):
        if game.is_terminal(s):
            return
        if game.is_chance(s):
            outs = game.chance_outcomes(s)
            if not outs:
                return
            game.apply_action(s, game.sample_chance(s))
            continue
        p = game.acting_player(s)
        legal = game.legal_actions(s, p) if p >= 0 else []
        if not legal:
            return
        a = int(rng.choice(legal))
        game.action_to_string(s, a)
        game.apply_action(s, a)


def damage_field(s: np.void, rng: np.random.Generator) -> None:
    """Set one entry of one field of record ``s`` (in place) to -1..3 or to one away from its value.

    Unlike a bit flip this keeps the record plausible (a count one off, a phase
    one on, an index that names another slot), so it reaches the checks that
    compare fields with each other.
    """
    name = s.dtype.names[int(rng.integers(len(s.dtype.names)))]
    entries = np.array(s[name]).reshape(-1)
    j = int(rng.integers(entries.size))
    near = np.concatenate([np.array([-1, 0, 1, 2, 3]).astype(entries.dtype),  # (wrapping in the field's type)
                           entries[j:j + 1] - 1, entries[j:j + 1] + 1])
    entries[j] = near[int(rng.integers(len(near)))]
    s[name] = entries.reshape(np.shape(s[name]))


def fuzz_records(game: Game, records: list[np.void], seed: int, flips: int, randoms: int,
                 log: Callable[[str], None] | None = None,
                 also: Callable[[np.void], None] | None = None, fields: int = 0) -> dict[str, int]:
    """Feed damaged records to :meth:`Game.check_record`; run the kernels on every one it accepts.

    Four kinds of input: ``flips`` single-bit flips of the given (reached)
    records, ``randoms`` records of random bytes, ``randoms`` records of
    random bytes under a valid config (``write_config``), which reach the checks
    past the config, and ``fields`` reached records with one field entry
    damaged (:func:`damage_field`). ``log`` (if given) gets the hex of each
    accepted record before its kernels run, so that a crash names its record;
    ``also`` (if given) runs on each accepted record too (another face, say).

    Returns:
        How many of each kind were accepted (``flips_ok``, ``random_ok``,
        ``random_config_ok``, ``fields_ok``) and how many were tried.
    """
    rng = np.random.default_rng(seed)
    size = game.dtype.itemsize
    out = {"flips_ok": 0, "random_ok": 0, "random_config_ok": 0, "fields_ok": 0, "tried": 0}

    def attempt(data: bytes, key: str) -> None:
        s = np.frombuffer(data, dtype=game.dtype).copy()[0]
        out["tried"] += 1
        try:
            game.check_record(s)
        except ValueError:
            return
        out[key] += 1
        if log is not None:
            log(data.hex())
        if also is not None:
            also(game.clone(s))
        exercise(game, s, rng)

    for _ in range(flips):
        raw = bytearray(records[int(rng.integers(len(records)))].tobytes())
        bit = int(rng.integers(8 * size))
        raw[bit // 8] ^= 1 << (bit % 8)
        attempt(bytes(raw), "flips_ok")
    for _ in range(randoms):
        attempt(rng.integers(0, 256, size, dtype=np.uint8).tobytes(), "random_ok")
        s = np.frombuffer(rng.integers(0, 256, size, dtype=np.uint8).tobytes(), dtype=game.dtype).copy()[0]
        game.module.write_config(s, game.config)
        attempt(s.tobytes(), "random_config_ok")
    for _ in range(fields):
        s = records[int(rng.integers(len(records)))].copy()
        damage_field(s, rng)
        attempt(s.tobytes(), "fields_ok")
    return out
