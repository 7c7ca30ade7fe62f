"""Exact tabular CFR: vanilla CFR, CFR+, Linear CFR and Discounted CFR on a flat tree.

:class:`CFRSolver` runs the variants as options of one :class:`CFRConfig` (the
OpenSpiel habit: variants are flags on one solver), with alternating or
simultaneous updates, over a :class:`octagames.agents.cfr.tree.FlatTree`. An
iteration is two compiled loops over the node arrays (a top-down reach pass and
a bottom-up value/regret pass), not a recursion over states; the passes are
public (:func:`reach_pass`, :func:`value_pass`) because the evaluations of
:mod:`octagames.agents.cfr.exploitability` walk the tree the same way.
:func:`reference_cfr` is a deliberately plain recursive implementation the tests
check the compiled one against.

Policies here are arrays with one probability per action slot of the tree;
:class:`octagames.agents.cfr.tabular.TablePolicy` turns one into a table keyed by
information state, which :class:`octagames.agents.cfr.agent.CFRAgent` plays.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numba as nb
import numpy as np

from octagames.agents.cfr.checkpoint import damage_refused, game_entries, read_info
from octagames.agents.cfr.tree import K_CHANCE, K_DECISION, K_TERMINAL, FlatTree
from octagames.core import Game

VARIANTS = ("cfr", "cfr+", "linear", "dcfr")


# =============================================================================
# Compiled passes over the tree
# =============================================================================
@nb.njit(cache=True)
def reach_pass(kind, player, child_start, num_children, edge_prob, edge_slot, sigma, reach):
    """Top down: ``reach[n, p]`` = product of p's probabilities on the path (p = P: chance).

    The first six arguments are :attr:`FlatTree.structure`; ``sigma`` has one
    probability per slot; ``reach`` (``[num_nodes, num_players + 1]``) is written.
    """
    P1 = reach.shape[1]
    reach[0, :] = 1.0
    for n in range(kind.shape[0]):
        k = kind[n]
        if k == K_TERMINAL:
            continue
        c0 = child_start[n]
        for c in range(c0, c0 + num_children[n]):
            for j in range(P1):
                reach[c, j] = reach[n, j]
            if k == K_CHANCE:
                reach[c, P1 - 1] *= edge_prob[c]
            else:
                reach[c, player[n]] *= sigma[edge_slot[c]]


@nb.njit(cache=True)
def value_pass(kind, player, child_start, num_children, edge_prob, edge_slot,  # FlatTree.structure
               utility, sigma, reach, values, regrets, strategy_sum, update, avg_weight):
    """Bottom up: expected values under ``sigma``; regret and average updates for ``update`` players.

    The first six arguments are :attr:`FlatTree.structure`. ``values``
    (``[num_nodes, num_players]``) is written; where ``update[p]`` is set, player
    ``p``'s counterfactual regrets and reach-weighted strategy sums (times
    ``avg_weight``) are added into ``regrets`` and ``strategy_sum``.
    """
    P = values.shape[1]
    for n in range(kind.shape[0] - 1, -1, -1):
        k = kind[n]
        if k == K_TERMINAL:
            for j in range(P):
                values[n, j] = utility[n, j]
            continue
        for j in range(P):
            values[n, j] = 0.0
        c0 = child_start[n]
        c1 = c0 + num_children[n]
        for c in range(c0, c1):
            w = edge_prob[c] if k == K_CHANCE else sigma[edge_slot[c]]
            for j in range(P):
                values[n, j] += w * values[c, j]
        if k == K_DECISION and update[player[n]]:
            p = player[n]
            cf = 1.0
            for j in range(P + 1):
                if j != p:
                    cf *= reach[n, j]
            own = reach[n, p]
            vn = values[n, p]
            for c in range(c0, c1):
                s = edge_slot[c]
                regrets[s] += cf * (values[c, p] - vn)
                strategy_sum[s] += avg_weight * own * sigma[s]


@nb.njit(cache=True)
def _regret_matching(regrets, infoset_start, infoset_num, sigma):
    """Current policy from cumulative regrets (uniform where no regret is positive)."""
    for i in range(infoset_start.shape[0]):
        s0 = infoset_start[i]
        m = infoset_num[i]
        tot = 0.0
        for s in range(s0, s0 + m):
            if regrets[s] > 0.0:
                tot += regrets[s]
        for s in range(s0, s0 + m):
            if tot > 0.0:
                sigma[s] = regrets[s] / tot if regrets[s] > 0.0 else 0.0
            else:
                sigma[s] = 1.0 / m


@nb.njit(cache=True)
def _adjust_regrets(regrets, slot_player, update, plus, pos_scale, neg_scale):
    """RM+ floor at zero, or DCFR discounting, for the slots of updated players."""
    for s in range(regrets.shape[0]):
        if not update[slot_player[s]]:
            continue
        r = regrets[s]
        if plus:
            if r < 0.0:
                regrets[s] = 0.0
        elif r > 0.0:
            regrets[s] = r * pos_scale
        elif r < 0.0:
            regrets[s] = r * neg_scale


@nb.njit(cache=True)
def _schedule(code, t, alpha, beta, gamma):
    """Numba twin of :meth:`CFRConfig.schedule` (``code`` indexes ``VARIANTS``)."""
    if code == 0:
        return False, 1.0, 1.0, 1.0
    if code == 1:
        return True, 1.0, 1.0, float(t)
    if code == 2:
        alpha, beta, gamma = 1.0, 1.0, 1.0
    ta, tb = float(t) ** alpha, float(t) ** beta
    return False, ta / (ta + 1.0), tb / (tb + 1.0), float(t) ** gamma


@nb.njit(cache=True)
def _run_iterations(structure, utility, infoset_start, infoset_num, slot_player, sigma, regrets, strategy_sum,
                    reach, values, first, count, code, alternating, alpha, beta, gamma):
    """Iterations ``first .. first + count - 1`` (1-based), all inside compiled code.

    ``structure`` is :attr:`FlatTree.structure`; ``code`` indexes :data:`VARIANTS`.
    """
    P = values.shape[1]
    update = np.zeros(P, dtype=np.bool_)
    for t in range(first, first + count):
        plus, pos, neg, w = _schedule(code, t, alpha, beta, gamma)
        for g in range(P if alternating else 1):
            for q in range(P):
                update[q] = (q == g) or not alternating
            reach_pass(*structure, sigma, reach)
            value_pass(*structure, utility, sigma, reach, values, regrets, strategy_sum, update, w)
            _adjust_regrets(regrets, slot_player, update, plus, pos, neg)
            _regret_matching(regrets, infoset_start, infoset_num, sigma)


@dataclass(frozen=True)
class CFRConfig:
    """Options of the one CFR solver.

    Attributes:
        variant: ``"cfr"`` (regret matching, uniform averaging), ``"cfr+"`` (regret
            matching+, linear averaging), ``"linear"`` (Linear CFR = DCFR(1, 1, 1)) or
            ``"dcfr"`` (Discounted CFR with ``alpha``, ``beta``, ``gamma``).
        alternating: alternating updates (one player per pass, as OpenSpiel) or
            simultaneous updates (all players in one pass).
        alpha: DCFR: positive regrets are scaled by t^alpha / (t^alpha + 1).
        beta: DCFR: negative regrets are scaled by t^beta / (t^beta + 1).
        gamma: DCFR: iteration t enters the average policy with weight t^gamma.
    """

    variant: str = "cfr+"
    alternating: bool = True
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"variant={self.variant!r} is not valid; valid values: {list(VARIANTS)}")
        # DCFR's discounts t**a / (t**a + 1) and t**g: NaN, an infinity or a huge gamma left the sums not finite
        # and the policy uniform, without a word. The bounds keep t**50 finite to a million iterations (1e300); beta
        # -inf zeroes negative regrets. The other variants do not read them.
        if self.variant != "dcfr":
            return
        for name, low, high in (("alpha", -50.0, 50.0), ("beta", -50.0, 50.0), ("gamma", 0.0, 50.0)):
            value = getattr(self, name)
            if name == "beta" and value == -np.inf:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"{name}={value!r} is not valid; it must be a number in [{low:g}, {high:g}]"
                                 + (" or -inf" if name == "beta" else ""))

    def schedule(self, t: int) -> tuple[bool, float, float, float]:
        """``(plus, positive scale, negative scale, average weight)`` at iteration ``t`` (1-based)."""
        if self.variant == "cfr":
            return False, 1.0, 1.0, 1.0
        if self.variant == "cfr+":
            return True, 1.0, 1.0, float(t)
        a, b, g = (1.0, 1.0, 1.0) if self.variant == "linear" else (self.alpha, self.beta, self.gamma)
        return False, t**a / (t**a + 1.0), t**b / (t**b + 1.0), float(t) ** g


class CFRSolver:
    """Exact tabular CFR over a :class:`FlatTree`; the variants are :class:`CFRConfig` options.

    The policies are arrays with one probability per action slot (see
    :class:`FlatTree`). Matches OpenSpiel's ``CFRSolver``/``CFRPlusSolver``/
    ``DCFRSolver`` update order exactly.

    Args:
        tree: the flattened game.
        config: the variant and its options.
    """

    def __init__(self, tree: FlatTree, config: CFRConfig = CFRConfig()):
        self.tree = tree
        self.config = config
        S, N, P = tree.num_slots, tree.num_nodes, tree.num_players
        self.regrets = np.zeros(S)
        self.strategy_sum = np.zeros(S)
        self.sigma = tree.uniform_policy()
        self.iteration = 0
        self._reach = np.zeros((N, P + 1))
        self._values = np.zeros((N, P))
        self._slot_player = tree.infoset_player[tree.slot_infoset()].astype(np.int32)

    def iterate(self, iterations: int = 1) -> None:
        """Run ``iterations`` CFR iterations (one compiled call)."""
        t, c = self.tree, self.config
        _run_iterations(t.structure, t.utility, t.infoset_start, t.infoset_num, self._slot_player, self.sigma,
                        self.regrets, self.strategy_sum, self._reach, self._values, self.iteration + 1,
                        int(iterations), VARIANTS.index(c.variant), c.alternating, float(c.alpha),
                        float(c.beta), float(c.gamma))
        self.iteration += int(iterations)

    def current_policy(self) -> np.ndarray:
        """The current (regret-matching) policy, one probability per slot."""
        return self.sigma.copy()

    def average_policy(self) -> np.ndarray:
        """The average policy (uniform where an information set was never reached)."""
        return normalize_per_infoset(self.tree, self.strategy_sum)

    def root_values(self) -> np.ndarray:
        """Expected returns of every player under the average policy."""
        return expected_values(self.tree, self.average_policy())

    # -- checkpoints -----------------------------------------------------------
    def save(
        self, path: str | Path, game: Game | str | None = None, deal_pool: Mapping[str, Any] | None = None
    ) -> None:
        """Save regrets, strategy sums, current policy, iteration and config (npz), and what the tree is.

        Args:
            path: the file.
            game: the game the tree was flattened from (a pyspiel game as ``spiel:<name>``), recorded with
                its full config (:func:`~octagames.agents.cfr.checkpoint.game_entries`) so that the
                ``cfr:<path>`` agent can rebuild the tree and refuse another game or config.
            deal_pool: the deal pool the tree was reduced to (``{"k", "seed", "per_view"}``), if any.
        """
        np.savez_compressed(
            path,
            regrets=self.regrets,
            strategy_sum=self.strategy_sum,
            sigma=self.sigma,
            iteration=np.int64(self.iteration),
            config=json.dumps(dataclasses.asdict(self.config)),
            fingerprint=self.tree.fingerprint(),
            **game_entries("cfr", game, deal_pool),
        )

    @classmethod
    def load(cls, path: str | Path, tree: FlatTree) -> "CFRSolver":
        """Rebuild a solver saved with :meth:`save` over the same ``tree``.

        Raises:
            ValueError: no such file, not an exact CFR checkpoint (an MCCFR one is named as such), an
                array that is not one value per slot of ``tree`` (naming it; refused before any is read), or
                the checkpoint was made on a different tree.
        """
        info = read_info(path)
        if info.solver != "cfr":
            raise ValueError(f"{path} is {info.kind()}, not an exact CFR checkpoint; read it with MCCFRSolver.load")
        slots = ([(tree.num_slots,)], "f")
        with damage_refused(path), np.load(path) as z:
            info.check_arrays({"fingerprint": ([()], "U")})  # a text entry (its size checked: read_info)
            if str(z["fingerprint"]) != tree.fingerprint():
                raise ValueError("checkpoint was saved for a different game tree")
            info.check_arrays({"regrets": slots, "strategy_sum": slots, "sigma": slots, "iteration": ([()], "iu"),
                               "config": ([()], "U")})  # before any array is read
            solver = cls(tree, CFRConfig(**json.loads(str(z["config"]))))
            solver.regrets[:] = z["regrets"]
            solver.strategy_sum[:] = z["strategy_sum"]
            solver.sigma[:] = z["sigma"]
            solver.iteration = int(z["iteration"])
        return solver


def normalize_per_infoset(tree: FlatTree, weights: np.ndarray) -> np.ndarray:
    """Normalise non-negative slot weights per information set (uniform if all zero)."""
    sums = np.add.reduceat(weights, tree.infoset_start) if tree.num_slots else np.zeros(0)
    per_slot = np.repeat(sums, tree.infoset_num)
    uni = tree.uniform_policy()
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(per_slot > 0, weights / np.where(per_slot > 0, per_slot, 1.0), uni)


def expected_values(tree: FlatTree, policy: np.ndarray) -> np.ndarray:
    """Expected returns of every player when all follow ``policy`` (one probability per slot)."""
    P = tree.num_players
    values = np.zeros((tree.num_nodes, P))
    no_slots = np.zeros(tree.num_slots)  # nothing is updated: regrets and sums stay untouched
    value_pass(*tree.structure, tree.utility, np.asarray(policy, dtype=np.float64),
               np.ones((tree.num_nodes, P + 1)), values, no_slots, no_slots, np.zeros(P, dtype=np.bool_), 0.0)
    return values[0].copy()


def reference_cfr(tree: FlatTree, config: CFRConfig, iterations: int) -> tuple[np.ndarray, np.ndarray]:
    """Plain recursive CFR over the flat tree, for checking :class:`CFRSolver`.

    Written as in the textbook (and OpenSpiel's Python ``cfr.py``): one recursion per
    pass carrying the reach probabilities down and returning values up.

    Returns:
        ``(regrets, strategy_sum)`` after ``iterations`` iterations.
    """
    P = tree.num_players
    R = np.zeros(tree.num_slots)
    Ssum = np.zeros(tree.num_slots)

    def policy_of(i: int) -> list[float]:
        s0, m = int(tree.infoset_start[i]), int(tree.infoset_num[i])
        pos = [max(R[s], 0.0) for s in range(s0, s0 + m)]
        tot = sum(pos)
        return [x / tot for x in pos] if tot > 0 else [1.0 / m] * m

    sigma_cache: dict[int, list[float]] = {}

    def walk(n: int, reach: list[float], upd: set, w: float) -> list[float]:
        k = tree.kind[n]
        if k == K_TERMINAL:
            return list(tree.utility[n])
        c0, m = int(tree.child_start[n]), int(tree.num_children[n])
        value = [0.0] * P
        if k == K_CHANCE:
            for c in range(c0, c0 + m):
                r2 = list(reach)
                r2[P] *= tree.edge_prob[c]
                v = walk(c, r2, upd, w)
                value = [a + tree.edge_prob[c] * b for a, b in zip(value, v)]
            return value
        p, i = int(tree.player[n]), int(tree.infoset[n])
        pol = sigma_cache[i]
        child_vals = []
        for j, c in enumerate(range(c0, c0 + m)):
            r2 = list(reach)
            r2[p] *= pol[j]
            v = walk(c, r2, upd, w)
            child_vals.append(v)
            value = [a + pol[j] * b for a, b in zip(value, v)]
        if p in upd:
            cf = float(np.prod([reach[q] for q in range(P + 1) if q != p]))
            s0 = int(tree.infoset_start[i])
            for j in range(m):
                R[s0 + j] += cf * (child_vals[j][p] - value[p])
                Ssum[s0 + j] += w * reach[p] * pol[j]
        return value

    for t in range(1, iterations + 1):
        plus, pos, neg, w = config.schedule(t)
        for upd in [{p} for p in range(P)] if config.alternating else [set(range(P))]:
            sigma_cache = {i: policy_of(i) for i in range(tree.num_infosets)}
            walk(0, [1.0] * (P + 1), upd, w)
            for s in range(tree.num_slots):
                if int(tree.infoset_player[np.searchsorted(tree.infoset_start, s, "right") - 1]) in upd:
                    if plus:
                        R[s] = max(R[s], 0.0)
                    else:
                        R[s] *= pos if R[s] > 0 else neg
    return R, Ssum


__all__ = [
    "VARIANTS",
    "CFRConfig",
    "CFRSolver",
    "expected_values",
    "normalize_per_infoset",
    "reach_pass",
    "reference_cfr",
    "value_pass",
]
