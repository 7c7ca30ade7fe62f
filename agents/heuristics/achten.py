"""A greedy baseline for Full deck achten.

It looks one move ahead with its own hand, the open pot and the closed card
when it knows that card (it never uses the resampled hidden cards of the
determinized state):

* first choice: swap the whole hand into the pot when the hand is verbied
  (that lays verbied: 0.1), otherwise keep a hand worth at most
  ``keep_threshold`` and swap a worse one for the blind pot;
* pass on nul;
* lay verbied in the pot whenever one swap or a claw can (best if the hand
  left behind is nul too);
* otherwise make the swap that lowers the hand total most (ties broken by the
  showdown order, so it also avoids having to deal);
* with nothing better: pass on a hand worth at most ``pass_threshold``, else
  gamble one card on an unknown closed card, or stand on a final turn.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.agents.base import Agent, Turn
from octagames.agents.search.mcts import random_policy
from octagames.achten.rules import (A_CLAW, A_CLOSED, A_KEEP, A_PASS, A_STAND, A_SWAP, A_SWAP_ALL, CLOSED,
                                    NUL_TENTHS, PH_FIRST, POT0, hand_key, hand_key3, hand_of, hand_value,
                                    hand_value3, is_verbied, is_verbied3, pot_of)


class AchtenHeuristicAgent(Agent):
    """Greedy hand-total lowering, passing on nul, laying verbied when it can.

    Args:
        keep_threshold: keep the dealt hand at the first choice if it is worth
            at most this many points.
        pass_threshold: pass when no move improves a hand worth at most this.
    """

    name = "heuristic"

    def __init__(self, keep_threshold: int = 6, pass_threshold: int = 2) -> None:
        self.keep_threshold = keep_threshold
        self.pass_threshold = pass_threshold
        self.rng = np.random.default_rng(0)

    def act(self, turn: Turn) -> int:
        """Choose a legal action for ``turn.seat`` (see the module docstring)."""
        s, p = turn.state, turn.seat
        legal = set(int(a) for a in turn.legal_actions)
        hand = hand_of(s, p)
        if int(s["phase"]) == PH_FIRST:
            if is_verbied(hand) or hand_value(hand) > self.keep_threshold:
                return A_SWAP_ALL
            return A_KEEP
        now = hand_value(hand)
        if now == 0 and A_PASS in legal:
            return A_PASS
        pot = pot_of(s)
        # (verbied laid?, resulting hand order) for each move that uses the open pot
        best_action, best_score = -1, None
        for a in sorted(legal):
            if A_SWAP <= a < A_CLOSED:
                i, j = divmod(a - A_SWAP, 3)
                new_hand = list(hand)
                new_pot = list(pot)
                new_hand[i], new_pot[j] = pot[j], hand[i]
            elif a == A_CLAW:
                new_hand, new_pot = list(pot), list(hand)
            elif A_CLOSED <= a < A_CLAW and s["known"][p, CLOSED]:
                # a closed card we put there or tracked: a known swap
                i = a - A_CLOSED
                new_hand, new_pot = list(hand), list(pot)
                new_hand[i] = int(s["slot_card"][CLOSED])
            else:
                continue
            laid = is_verbied(new_pot)
            score = (0 if laid else 1, hand_key(new_hand))
            if best_score is None or score < best_score:
                best_action, best_score = a, score
        # hand_key orders by total first, so a smaller key never raises the total
        if best_score is not None and (best_score[0] == 0 or best_score[1] < hand_key(hand)):
            return best_action
        if A_PASS in legal and now <= self.pass_threshold:
            return A_PASS
        if A_STAND in legal:
            return A_STAND
        if not s["known"][p, CLOSED]:
            # gamble the card that costs most on the unknown closed card
            worst = max(range(3), key=lambda i: now - _group_value(hand[:i] + hand[i + 1:]))
            return A_CLOSED + worst
        return A_PASS if A_PASS in legal else int(self.rng.choice(sorted(legal)))


def _group_value(cards: list[int]) -> int:
    """Achten value of any number of cards: suit groups summed, each scores ``|sum - 8|``."""
    sums: dict[int, int] = {}
    for c in cards:
        sums[c % 4] = sums.get(c % 4, 0) + c // 4 + 2
    return sum(abs(v - 8) for v in sums.values())


# ------------------------------------------------------------------ compiled playout policy
@nb.njit
def _value_without(c0, c1, c2, skip) -> int:
    """Achten value of the two cards left when card ``skip`` (0..2) of a hand is taken out."""
    sums = np.zeros(4, dtype=np.int64)
    used = np.zeros(4, dtype=np.bool_)
    cs = (c0, c1, c2)
    for k in range(3):
        if k != skip:
            c = cs[k]
            sums[c % 4] += c // 4 + 2
            used[c % 4] = True
    v = 0
    for u in range(4):
        if used[u]:
            v += abs(sums[u] - 8)
    return v


@nb.njit
def achten_playout(s, player, mask, n_legal) -> int:
    """:class:`AchtenHeuristicAgent`'s choice (default thresholds), compiled, for MCTS playouts.

    It reads only what ``player`` may see: its own hand, the open pot and the
    closed card when ``player`` knows it. Ties and the last resort are broken
    with the record's RNG.
    """
    base = 3 * player
    h = s["slot_card"]
    h0, h1, h2 = int(h[base]), int(h[base + 1]), int(h[base + 2])
    if s["phase"] == PH_FIRST:
        a = A_SWAP_ALL if is_verbied3(h0, h1, h2) or hand_value3(h0, h1, h2) > 6 else A_KEEP
        if mask[a]:
            return a
        return random_policy(s, player, mask, n_legal)
    now = hand_value3(h0, h1, h2)
    if now == 0 and mask[A_PASS]:
        return A_PASS
    known_closed = s["known"][player, CLOSED] != 0
    best_a, best_laid, best_key = -1, 2, 0
    hand = np.empty(3, dtype=np.int64)
    pot = np.empty(3, dtype=np.int64)
    for a in range(A_SWAP, A_CLAW + 1):
        if not mask[a]:
            continue
        for k in range(3):
            hand[k] = h[base + k]
            pot[k] = h[POT0 + k]
        if a < A_CLOSED:
            i, j = (a - A_SWAP) // 3, (a - A_SWAP) % 3
            hand[i], pot[j] = pot[j], hand[i]
        elif a == A_CLAW:
            for k in range(3):
                hand[k], pot[k] = pot[k], hand[k]
        elif known_closed:
            hand[a - A_CLOSED] = h[CLOSED]
        else:
            continue
        laid = 0 if is_verbied3(pot[0], pot[1], pot[2]) else 1
        key = hand_key3(hand[0], hand[1], hand[2])
        if best_a < 0 or laid < best_laid or (laid == best_laid and key < best_key):
            best_a, best_laid, best_key = a, laid, key
    if best_a >= 0 and (best_laid == 0 or best_key < hand_key3(h0, h1, h2)):
        return best_a
    if mask[A_PASS] and now <= 2:
        return A_PASS
    if mask[A_STAND]:
        return A_STAND
    if not known_closed:
        worst, worst_gain = -1, -1000
        for i in range(3):
            gain = now - _value_without(h0, h1, h2, i)
            if mask[A_CLOSED + i] and gain > worst_gain:
                worst, worst_gain = i, gain
        if worst >= 0:
            return A_CLOSED + worst
    if mask[A_PASS]:
        return A_PASS
    return random_policy(s, player, mask, n_legal)


# ------------------------------------------------------------------ compiled leaf value
@nb.njit
def achten_value(s, out) -> None:
    """MCTS leaf value: the returns of a showdown held now (:class:`octagames.agents.search.mcts.CompiledValue`).

    On a determinized record every hand is known, so this is what the engine's
    showdown would give if the round ended at this point: nul scores 1, the
    points already made this round (verbied) count, the worst hand pays the
    dealing penalty; each seat gets its points minus the mean of the others'.
    In match mode the same lead, added to the match scores, is divided by the
    target (and clipped to [-1, 1]) as an estimate of the match result.
    """
    n = int(s["num_players"])
    worst, worst_key = -1, -1
    pts = np.zeros(n)
    for p in range(n):
        b = 3 * p
        c0, c1, c2 = s["slot_card"][b], s["slot_card"][b + 1], s["slot_card"][b + 2]
        tenths = s["round_pts"][p] + (NUL_TENTHS if hand_value3(c0, c1, c2) == 0 else 0)
        pts[p] = tenths / 10.0
        key = hand_key3(c0, c1, c2)
        if key > worst_key:
            worst, worst_key = p, key
    if s["match"] == 0:
        pts[worst] -= s["deal_penalty"]
    else:
        for p in range(n):
            pts[p] += s["scores"][p] / 10.0
    total = pts.sum()
    for p in range(n):
        lead = pts[p] - (total - pts[p]) / (n - 1)
        out[p] = lead if s["match"] == 0 else max(-1.0, min(1.0, lead / (s["target"] / 10.0)))
