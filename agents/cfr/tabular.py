"""A policy as a table keyed by information state: what CFR and MCCFR produce and what agents play.

:class:`TablePolicy` maps ``(player, information-state key) -> (legal actions,
probabilities)``. For our games the key is :func:`infoset_key` of the acting
seat's observation (a 16-byte digest of its bytes), so an agent can look its
policy up from a :class:`octagames.agents.base.Turn` alone, and a table of many
information sets stays small where observations are large (Achten's is 6333
floats, 25 kB). :meth:`TablePolicy.from_tree` and
:meth:`TablePolicy.to_tree` convert to and from the slot arrays of a
:class:`octagames.agents.cfr.tree.FlatTree` (how the exact solvers and the
evaluations hold a policy); :meth:`octagames.agents.cfr.mccfr.MCCFRSolver.table_policy`
builds one from sampled tables.
"""

from __future__ import annotations

import hashlib
from typing import Hashable

import numpy as np

from octagames.agents.cfr.tree import FlatTree

#: bytes of an information-state key
KEY_BYTES = 16


def infoset_key(observation: np.ndarray | bytes) -> bytes:
    """The table key of an information state: a BLAKE2b digest (:data:`KEY_BYTES`) of the observation's bytes.

    Two observations get the same key exactly when their bytes are equal (up to a
    2^-128 chance of a collision).
    """
    data = observation if isinstance(observation, bytes) else np.ascontiguousarray(observation)  # no copy
    return hashlib.blake2b(data, digest_size=KEY_BYTES).digest()


class TablePolicy:
    """A policy table: ``(player, key) -> (legal actions, probabilities)``.

    Args:
        table: the entries; keys are ``(player, infoset_key(observation))`` for our games.
    """

    def __init__(self, table: dict[tuple[int, Hashable], tuple[np.ndarray, np.ndarray]]):
        self.table = table

    @classmethod
    def from_tree(cls, tree: FlatTree, policy: np.ndarray) -> "TablePolicy":
        """The table of a slot policy on a flat tree."""
        table = {}
        for i, key in enumerate(tree.keys):
            s0, m = int(tree.infoset_start[i]), int(tree.infoset_num[i])
            table[(int(tree.infoset_player[i]), infoset_key(key))] = (
                tree.slot_action[s0 : s0 + m].astype(np.int64),
                np.asarray(policy[s0 : s0 + m], dtype=np.float64),
            )
        return cls(table)

    def to_tree(self, tree: FlatTree) -> np.ndarray:
        """A slot policy on ``tree`` (uniform where the table has no entry)."""
        out = tree.uniform_policy()
        for i, key in enumerate(tree.keys):
            entry = self.table.get((int(tree.infoset_player[i]), infoset_key(key)))
            if entry is None:
                continue
            s0, m = int(tree.infoset_start[i]), int(tree.infoset_num[i])
            probs = dict(zip(entry[0].tolist(), entry[1].tolist()))
            out[s0 : s0 + m] = [probs.get(int(a), 0.0) for a in tree.slot_action[s0 : s0 + m]]
        return out

    def probabilities(self, player: int, key: Hashable, legal: np.ndarray) -> np.ndarray:
        """Probabilities over ``legal`` actions at ``(player, key)`` (uniform if unseen or inconsistent:
        :meth:`held` tells which).

        ``key`` is the table's key, :func:`infoset_key` of the observation for our games.
        """
        p = self.held(player, key, legal)
        return p if p is not None else np.full(len(legal), 1.0 / len(legal))

    def held(self, player: int, key: Hashable, legal: np.ndarray) -> np.ndarray | None:
        """The table's probabilities over ``legal`` at ``(player, key)``, or None where it holds none for these
        ``legal`` actions (never met, met with other legal actions, or all weights zero)."""
        entry = self.table.get((player, key))
        if entry is None or not np.array_equal(entry[0], legal):
            return None
        p = np.clip(entry[1], 0.0, None)
        total = p.sum()
        return p / total if total > 0 else None

    def __len__(self) -> int:
        return len(self.table)



__all__ = ["KEY_BYTES", "TablePolicy", "infoset_key"]
