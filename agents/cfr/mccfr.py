"""Monte Carlo CFR on the engine kernels: external and outcome sampling, for games too big for a tree.

:class:`MCCFRSolver` samples episodes directly on the rules module's compiled
kernels (``apply_action``, ``legal_mask``, ``observation``, ``sample_chance``)
over a preallocated stack of records, so it needs no flattened tree and runs on
full-size configs. Its regret and strategy tables grow as information sets are
met (keyed by :func:`~octagames.agents.cfr.tabular.infoset_key` of the acting seat's
observation); the average policy comes out as a
:class:`octagames.agents.cfr.tabular.TablePolicy`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import BinaryIO

import numpy as np

from octagames.agents.cfr.checkpoint import check_mccfr_tables, damage_refused, game_entries, read_info
from octagames.agents.cfr.tabular import KEY_BYTES, TablePolicy, infoset_key
from octagames.core import CHANCE, TERMINAL, Game


class MCCFRSolver:
    """Monte Carlo CFR (external or outcome sampling) on one of our games.

    Runs directly on the rules module's compiled kernels (``apply_action``,
    ``legal_mask``, ``observation``, ``sample_chance``) over a preallocated stack
    of records, so it needs no tree. Tables grow as information sets are met; each
    holds full-width arrays over the game's actions (zero outside the legal ones).

    Args:
        game: the game and config.
        sampling: ``"external"`` or ``"outcome"``.
        epsilon: outcome sampling's exploration at the traverser's nodes.
        seed: RNG seed.
    """

    def __init__(self, game: Game, sampling: str = "external", epsilon: float = 0.6, seed: int = 0):
        if sampling not in ("external", "outcome"):
            raise ValueError(f"sampling={sampling!r} is not valid; valid values: ['external', 'outcome']")
        self.game, self.sampling, self.epsilon = game, sampling, epsilon
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.iteration = 0
        #: False for a solver loaded from a checkpoint that kept no generator state (:meth:`load`)
        self.rng_restored = True
        self.P, self.A = game.num_players, game.num_actions
        self.regrets: dict[tuple[int, bytes], np.ndarray] = {}
        self.strategy_sum: dict[tuple[int, bytes], np.ndarray] = {}
        self.masks: dict[tuple[int, bytes], np.ndarray] = {}
        m = game.kernels  # the compiled kernels of the config
        self._act, self._mask, self._obs, self._apply = (
            m.acting_player,
            m.legal_mask,
            m.observation,
            m.apply_action,
        )
        self._co, self._sample = m.chance_outcomes, m.sample_chance
        self._stack = np.zeros(game.info.max_game_length + 2, dtype=game.dtype)
        self._obuf = np.zeros(game.observation_size, dtype=np.float32)
        self._ret = np.zeros(game.info.max_players)
        self._cacts = np.zeros(game.info.max_chance_outcomes, dtype=np.int64)
        self._cprobs = np.zeros(game.info.max_chance_outcomes, dtype=np.float64)

    # -- tables ------------------------------------------------------------------
    def _lookup(self, s: np.void, p: int) -> tuple[tuple[int, bytes], np.ndarray]:
        self._obs(s, p, self._obuf)
        key = (p, infoset_key(self._obuf))
        mask = self.masks.get(key)
        if mask is None:
            buf = np.zeros(self.A, dtype=np.uint8)
            self._mask(s, p, buf)
            mask = self.masks[key] = buf.astype(np.float64)
            self.regrets[key] = np.zeros(self.A)
            self.strategy_sum[key] = np.zeros(self.A)
        return key, mask

    def _policy(self, key: tuple[int, bytes], mask: np.ndarray) -> np.ndarray:
        r = np.maximum(self.regrets[key], 0.0) * mask
        tot = r.sum()
        return r / tot if tot > 0 else mask / mask.sum()

    def _returns(self, s: np.void) -> np.ndarray:
        self.game.kernels.returns(s, self._ret)
        return self._ret[: self.P].copy()

    # -- traversals ---------------------------------------------------------------
    def _chance_step(self, d: int) -> None:
        st = self._stack[d]
        self._apply(st, self._sample(st))

    def _external(self, d: int, traverser: int) -> float:
        st = self._stack[d]
        while True:
            p = int(self._act(st))
            if p != CHANCE:
                break
            self._chance_step(d)
        if p == TERMINAL:
            return float(self._returns(st)[traverser])
        key, mask = self._lookup(st, p)
        sigma = self._policy(key, mask)
        legal = np.flatnonzero(mask)
        child = self._stack[d + 1]
        if p == traverser:
            vals = np.zeros(self.A)
            for a in legal:
                self._stack[d + 1] = st
                self._apply(child, a)
                vals[a] = self._external(d + 1, traverser)
            v = float(sigma @ vals)
            self.regrets[key] += (vals - v) * mask
            return v
        if p == (traverser + 1) % self.P:  # simple averaging, as in OpenSpiel
            self.strategy_sum[key] += sigma
        a = int(self.rng.choice(self.A, p=sigma))
        self._stack[d + 1] = st
        self._apply(child, a)
        return self._external(d + 1, traverser)

    def _outcome(self, traverser: int) -> None:
        """One sampled episode for ``traverser`` (Lanctot 2013, as OpenSpiel's ``outcome_sampling_mccfr``).

        The episode is walked forward to its end, sampling every move, then back, valuing each decision and
        computing its table updates, which are applied only if every one is finite. A loop, not a recursion:
        an episode may be longer than Python's recursion limit.

        Raises:
            ValueError: the episode's importance weights left float64's range (a game whose episodes hold
                hundreds of decisions); the tables are left as they were.
        """
        known = len(self.masks)
        path: list[tuple[tuple[int, bytes], int, np.ndarray, np.ndarray, np.ndarray, int, float, float, float]] = []
        my_reach = opp_reach = sample_reach = 1.0
        d = 0
        while True:
            st = self._stack[d]
            p = int(self._act(st))
            if p == TERMINAL:
                break
            self._stack[d + 1] = st
            child = self._stack[d + 1]
            d += 1
            if p == CHANCE:
                n = int(self._co(st, self._cacts, self._cprobs))
                i = int(self.rng.choice(n, p=self._cprobs[:n]))
                pr = float(self._cprobs[i])
                self._apply(child, self._cacts[i])
                opp_reach *= pr
                sample_reach *= pr
                continue
            key, mask = self._lookup(st, p)
            sigma = self._policy(key, mask)
            q = self.epsilon * mask / mask.sum() + (1.0 - self.epsilon) * sigma if p == traverser else sigma
            a = int(self.rng.choice(self.A, p=q))
            self._apply(child, a)
            path.append((key, p, mask, sigma, q, a, my_reach, opp_reach, sample_reach))
            if p == traverser:
                my_reach *= sigma[a]
            else:
                opp_reach *= sigma[a]
            sample_reach *= q[a]
        u = float(self._returns(self._stack[d])[traverser])
        updates = []  # deepest decision first, as a recursion would apply them
        for key, p, mask, sigma, q, a, my, opp, sample in reversed(path):
            child_values = np.zeros(self.A)
            child_values[a] = u / q[a]
            u = float(sigma @ child_values)
            if p == traverser:
                with np.errstate(all="ignore"):  # an underflowed reach: refused below, not warned about
                    dr = (child_values - u) * mask * (opp / sample)
                    ds = sigma * (my / sample)
                if not (np.isfinite(dr).all() and np.isfinite(ds).all()):
                    for k in list(self.masks)[known:]:  # the information sets this episode met first
                        del self.masks[k], self.regrets[k], self.strategy_sum[k]
                    raise ValueError(
                        f"MCCFR's outcome sampling cannot weigh an episode of {len(path)} decisions of "
                        f"{self.game.name}: its importance weights left float64's range; train on a config with "
                        "shorter games (such as a single round) or choose another agent")
                updates.append((key, dr, ds))
        for key, dr, ds in updates:
            self.regrets[key] += dr
            self.strategy_sum[key] += ds

    def iterate(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations (one traversal per player each).

        Raises:
            ValueError: the game's episodes are too long for the sampling (outcome sampling: importance weights
                beyond float64, that episode's updates not applied; external: deeper than Python's recursion
                limit). Full-size Octa and Octiles and the Octrix match are, single rounds are not.
        """
        for _ in range(iterations):
            for p in range(self.P):
                root = self._stack[0]
                self.game.module.write_config(root, self.game.config)
                self.game.kernels.reset(root, int(self.rng.integers(2**62)))
                if self.sampling == "outcome":
                    self._outcome(p)
                    continue
                try:
                    self._external(0, p)
                except RecursionError:
                    raise ValueError(f"MCCFR's external sampling met an episode of {self.game.name} deeper than "
                                     "Python's recursion limit (its tables may hold part of it); train on a config "
                                     "with shorter games (such as a single round)") from None
            self.iteration += 1

    def table_policy(self) -> "TablePolicy":
        """The average policy as a :class:`TablePolicy`."""
        table: dict[tuple[int, bytes], tuple[np.ndarray, np.ndarray]] = {}
        for key, mask in self.masks.items():
            acts = np.flatnonzero(mask)
            s = self.strategy_sum[key][acts]
            tot = s.sum()
            table[key] = (acts, s / tot if tot > 0 else np.full(acts.size, 1.0 / acts.size))
        return TablePolicy(table)

    def save(self, path: str | Path | BinaryIO) -> None:
        """Save the tables (npz; keys as a byte matrix), the solver kind, the game with its full config and the
        random generator's state (:meth:`load` then goes on drawing exactly as this solver would).

        The game, config and solver are text entries (:func:`~octagames.agents.cfr.checkpoint.game_entries`),
        so that :meth:`load` and the ``cfr:<path>`` agent can refuse the file for another game or config.
        """
        keys = list(self.masks)
        L = len(keys[0][1]) if keys else 0
        np.savez_compressed(
            path,
            players=np.array([k[0] for k in keys], dtype=np.int32),
            keys=np.frombuffer(b"".join(k[1] for k in keys), dtype=np.uint8).reshape(len(keys), L),
            masks=np.array([self.masks[k] for k in keys]).reshape(len(keys), self.A),
            regrets=np.array([self.regrets[k] for k in keys]).reshape(len(keys), self.A),
            strategy_sum=np.array([self.strategy_sum[k] for k in keys]).reshape(len(keys), self.A),
            iteration=np.int64(self.iteration),
            sampling=self.sampling,
            epsilon=self.epsilon,
            rng_state=json.dumps(self.rng.bit_generator.state),  # so that a resumed run draws as one never stopped
            seed=np.int64(self.seed),
            **game_entries("mccfr", self.game),
        )

    @classmethod
    def load(cls, path: str | Path, game: Game | None = None, seed: int = 0) -> "MCCFRSolver":
        """Rebuild a solver saved with :meth:`save`.

        Args:
            path: the checkpoint.
            game: the game to go on with; it must be the game and config the checkpoint records
                (``None``: the recorded one).
            seed: the run's seed, for a checkpoint that did not keep it (before 2026-12-06).

        Raises:
            ValueError: no such file, not an MCCFR checkpoint (an exact CFR one is named as such), a
                checkpoint of another game or config (both named, with the options that give its own),
                one written before checkpoints recorded their game (train it again), or one whose tables
                do not fit the game or declare more than the file holds (naming the array; refused before
                any table is read: :func:`~octagames.agents.cfr.checkpoint.check_mccfr_tables`).
        """
        info = read_info(path)
        if info.solver != "mccfr":
            raise ValueError(f"{path} is {info.kind()}, not an MCCFR checkpoint; read it with CFRSolver.load")
        if game is None:
            game = info.game_object(str(path))
        elif (why := info.mismatch(game, str(path), allow_hint=False)) is not None:
            raise ValueError(why)
        check_mccfr_tables(info, game)  # each table's shape before its data is read
        with damage_refused(path), np.load(path) as z:
            solver = cls(game, str(z["sampling"]), float(z["epsilon"]))
            # each table read once: an npz decompresses a whole array on every access
            players, keys, masks, regrets, strategy_sum = (z[name] for name in ("players", "keys", "masks", "regrets",
                                                                                "strategy_sum"))
            if len(masks) and (not np.isin(masks, (0, 1)).all() or not masks.any(axis=1).all()):  # made by hand
                raise ValueError(f"{path}: its table 'masks' holds a row that is no legal-action mask (no legal "
                                 "action, or values other than 0 and 1)")
            if not (np.isfinite(regrets).all() and np.isfinite(strategy_sum).all()):
                raise ValueError(f"{path}: its tables 'regrets' and 'strategy_sum' hold NaN or infinity")
            for i, p in enumerate(players):
                key = keys[i].tobytes()  # a checkpoint from before digests keeps whole observations
                key = (int(p), key if len(key) == KEY_BYTES else infoset_key(key))
                solver.masks[key] = masks[i].copy()
                solver.regrets[key] = regrets[i].copy()
                solver.strategy_sum[key] = strategy_sum[i].copy()
            solver.iteration = int(z["iteration"])
            solver.seed = int(z["seed"]) if "seed" in z.files else seed
            # checkpoints before 2026-12-06 kept no generator state: they go on with a stream of their own,
            # not the first iterations' deals again
            solver.rng_restored = "rng_state" in z.files
            if solver.rng_restored:
                solver.rng.bit_generator.state = json.loads(str(z["rng_state"]))
            else:
                solver.rng = np.random.default_rng([solver.seed, solver.iteration, 1])
        return solver


__all__ = ["MCCFRSolver"]
