"""A policy as a table keyed by information state: what CFR and MCCFR produce and what agents play.

:class:`TablePolicy` maps ``(player, information-state key) -> (legal actions,
probabilities)``. For our games the key is the bytes of the acting seat's
observation, so an agent can look its policy up from a
:class:`octagames.agents.base.Turn` alone. :meth:`TablePolicy.from_tree` and
:meth:`TablePolicy.to_tree` convert to and from the slot arrays of a
:class:`octagames.agents.cfr_tree.FlatTree` (how the exact solvers and the
evaluations hold a policy); :meth:`octagames.agents.mccfr.MCCFRSolver.table_policy`
builds one from sampled tables.
"""

from __future__ import annotations

from typing import Hashable

import numpy as np

from octagames.agents.cfr_tree import FlatTree


class TablePolicy:
    """A policy table: ``(player, key) -> (legal actions, probabilities)``.

    Args:
        table: the entries; keys are observation bytes for our games.
    """

    def __init__(self, table: dict[tuple[int, Hashable], tuple[np.ndarray, np.ndarray]]):
        self.table = table

    @classmethod
    def from_tree(cls, tree: FlatTree, policy: np.ndarray) -> "TablePolicy":
        """The table of a slot policy on a flat tree."""
        table = {}
        for i, key in enumerate(tree.keys):
            s0, m = int(tree.infoset_start[i]), int(tree.infoset_num[i])
            table[(int(tree.infoset_player[i]), key)] = (
                tree.slot_action[s0 : s0 + m].astype(np.int64),
                np.asarray(policy[s0 : s0 + m], dtype=np.float64),
            )
        return cls(table)

    def to_tree(self, tree: FlatTree) -> np.ndarray:
        """A slot policy on ``tree`` (uniform where the table has no entry)."""
        out = tree.uniform_policy()
        for i, key in enumerate(tree.keys):
            entry = self.table.get((int(tree.infoset_player[i]), key))
            if entry is None:
                continue
            s0, m = int(tree.infoset_start[i]), int(tree.infoset_num[i])
            probs = dict(zip(entry[0].tolist(), entry[1].tolist()))
            out[s0 : s0 + m] = [probs.get(int(a), 0.0) for a in tree.slot_action[s0 : s0 + m]]
        return out

    def probabilities(self, player: int, key: Hashable, legal: np.ndarray) -> np.ndarray:
        """Probabilities over ``legal`` actions (uniform if unseen or inconsistent)."""
        entry = self.table.get((player, key))
        if entry is not None and np.array_equal(entry[0], legal):
            p = np.clip(entry[1], 0.0, None)
            if p.sum() > 0:
                return p / p.sum()
        return np.full(len(legal), 1.0 / len(legal))

    def __len__(self) -> int:
        return len(self.table)



__all__ = ["TablePolicy"]
