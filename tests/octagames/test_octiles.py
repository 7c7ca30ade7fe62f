"""Octiles: board facts, hand-built rule positions, and invariants under random play."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import numba as nb
import numpy as np
import pytest

from octagames.envs.vector import make
from octagames.core import CHANCE, TERMINAL, Game, IllegalActionError, nth_set, rng_below
from octagames.octiles import board as B
from octagames.octiles import rules as R
from octagames.specialize import cached

S = B.space_id
P = B.point_id
T1, T2, T4, T5, T6, T7, T8 = 0, 1, 3, 4, 5, 6, 7  # tile indices (boardspace numbers 1, 2, ...)


def place_action(space: str, rot: int) -> int:
    return R.A_PLACE + S(space) * 8 + rot


def move_action(point: str, d: int = 0) -> int:
    return R.A_MOVE + P(point) * 4 + d


def blank(pos: dict[int, list[str]], exch: int, cur: int = 0, tiles: dict | None = None,
          **cfg) -> tuple[Game, np.void]:
    """A hand-built position: every space face down except ``tiles`` ({space: (tile, rot)}),
    the runners at ``pos`` ({seat: [point names]}), exchange tile ``exch``, seat ``cur`` to place."""
    g = Game("octiles", **cfg)
    s = g.new_state(0)
    g.play_chance(s)
    s["tile"][:] = -1
    s["rot"][:] = 0
    for sp, (t, r) in (tiles or {}).items():
        s["tile"][S(sp)] = t
        s["rot"][S(sp)] = r
    s["exch"] = exch
    s["pos"][:, :] = -1
    for p, pts in pos.items():
        for i, name in enumerate(pts):
            s["pos"][p, i] = P(name)
    s["cur"] = cur
    s["phase"] = R.PH_PLACE
    return g, s


# the engine's cached entry points, not the rules module's own kernels: compiled code that calls these
# links what the warm-up compiled (1 s) instead of compiling the rules afresh in this process (12 s)
K = Game("octiles").kernels


@nb.njit
def rollout(s, max_steps) -> int:
    """Uniformly random legal actions (chance by its odds) with the record's RNG, at most ``max_steps``."""
    mask = np.zeros(R.NUM_ACTIONS, dtype=np.uint8)
    steps = 0
    while steps < max_steps and K.current_player(s) != TERMINAL:
        cp = K.current_player(s)
        a = K.sample_chance(s) if cp == CHANCE else nth_set(mask, rng_below(s, K.legal_mask(s, cp, mask)))
        K.apply_action(s, a)
        steps += 1
    return steps


def seen_tiles(s) -> list[int]:
    out = [int(t) for t in s["tile"] if t >= 0]
    if s["exch"] >= 0:
        out.append(int(s["exch"]))
    return out


# ------------------------------------------------------------------ board facts
def test_board_counts():
    assert (B.NUM_SPACES, B.NUM_STOPS, B.NUM_HOMES, len(B.CURVE_NAMES), B.NUM_TILES) == (17, 16, 20, 8, 18)
    kinds = {"octagon": 0, "curve": 0, "stop": 0, "home": 0}
    for o in range(17):
        for k in range(8):
            if B.LINK_KIND[o, k] == 1:
                kinds["stop" if B.LINK_A[o, k] < 16 else "home"] += 1
            else:
                kinds["curve" if B.LINK_CURVE[o, k] >= 0 else "octagon"] += 1
    assert kinds == {"octagon": 48, "curve": 16, "stop": 52, "home": 20}
    assert sorted(B.CURVE_KINDS) == ["corner"] * 4 + ["loop"] * 4
    contacts = (B.POINT_SPACE >= 0).sum(axis=1)
    assert sorted(contacts[:16].tolist()) == [2] * 4 + [3] * 4 + [4] * 8
    assert contacts[16:].tolist() == [1] * 20
    assert [int(B.POINT_HOME_SIDE[B.HOME_OF[b]].tolist().count(b)) for b in range(4)] == [5] * 4


def test_slot_tables_read_the_links_and_contacts():
    # LINK_SLOT and SLOT_DIR (the move mask's walks) say what LINK_* and POINT_SPACE/POINT_SIDE say
    for o in range(17):
        for k in range(8):
            x = o * 8 + k
            if B.LINK_KIND[o, k] == 1:
                p = int(B.LINK_A[o, k])
                assert B.LINK_SLOT[x] == -1 - p
                d = int(B.SLOT_DIR[x])
                assert d >= 0 and (B.POINT_SPACE[p, d], B.POINT_SIDE[p, d]) == (o, k)
            else:
                assert B.LINK_SLOT[x] == B.LINK_A[o, k] * 8 + B.LINK_B[o, k] and B.SLOT_DIR[x] == -1
    assert (B.SLOT_DIR >= 0).sum() == (B.POINT_SPACE >= 0).sum()  # one slot for every contact of a point


def test_every_link_works_both_ways():
    for o in range(17):
        for k in range(8):
            if B.LINK_KIND[o, k] == 0:
                o2, k2 = int(B.LINK_A[o, k]), int(B.LINK_B[o, k])
                assert (B.LINK_A[o2, k2], B.LINK_B[o2, k2]) == (o, k)
                assert B.LINK_KIND[o2, k2] == 0
                assert (B.LINK_CURVE[o, k] >= 0) == (B.LINK_CURVE[o2, k2] >= 0)
                if B.LINK_CURVE[o, k] < 0:  # neighbours across an edge face each other
                    assert k2 == (k + 4) % 8 and k % 2 == 0
            else:
                p = int(B.LINK_A[o, k])
                d = [j for j in range(4) if B.POINT_SPACE[p, j] == o]
                assert len(d) == 1 and B.POINT_SIDE[p, d[0]] == k
    for p in range(36):  # and every contact of a point leads back to it
        for d in range(4):
            o, k = int(B.POINT_SPACE[p, d]), int(B.POINT_SIDE[p, d])
            if o >= 0:
                assert B.LINK_KIND[o, k] == 1 and B.LINK_A[o, k] == p
                if p < 16:
                    assert k % 2 == 1  # stops touch diagonal sides only


def test_board_has_fourfold_rotational_symmetry():
    def rot_space(o):
        x, y = B.SPACE_XY[o]
        return int(np.flatnonzero((B.SPACE_XY == (y, 4 - x)).all(axis=1))[0])

    def rot_point(p):
        if p >= 16:
            b, i = divmod(p - 16, 5)
            return int(B.HOME_OF[(b + 1) % 4, i])
        x, y = B.POINT_XY[p]
        return int(np.flatnonzero(np.isclose(B.POINT_XY[:16], (y, 4 - x)).all(axis=1))[0])

    assert sorted(rot_space(o) for o in range(17)) == list(range(17))
    assert sorted(rot_point(p) for p in range(36)) == list(range(36))
    for o in range(17):
        for k in range(8):
            o2, k2 = rot_space(o), (k + 2) % 8
            assert B.LINK_KIND[o2, k2] == B.LINK_KIND[o, k]
            if B.LINK_KIND[o, k] == 1:
                assert B.LINK_A[o2, k2] == rot_point(int(B.LINK_A[o, k]))
            else:
                assert B.LINK_A[o2, k2] == rot_space(int(B.LINK_A[o, k]))
                assert B.LINK_B[o2, k2] == (B.LINK_B[o, k] + 2) % 8


def _matchings(sides):
    if not sides:
        yield ()
        return
    a = sides[0]
    for b in sides[1:]:
        rest = [x for x in sides if x not in (a, b)]
        for m in _matchings(rest):
            yield ((a, b),) + m


def _canon(pairs):
    forms = []
    for r in range(8):
        forms.append(tuple(sorted(tuple(sorted(((a + r) % 8, (b + r) % 8))) for a, b in pairs)))
    return min(forms)


def test_tiles_are_exactly_the_rotation_classes_of_perfect_matchings():
    all_m = list(_matchings(list(range(8))))
    assert len(all_m) == 105
    classes = {_canon(m) for m in all_m}
    assert len(classes) == 18
    tile_classes = [_canon(p) for p in B.TILE_PAIRS]
    assert len(set(tile_classes)) == 18 and set(tile_classes) == classes
    for t in range(18):  # partner tables are involutions without fixed points
        assert all(B.TILE_PARTNER[t, B.TILE_PARTNER[t, k]] == k != B.TILE_PARTNER[t, k] for k in range(8))


def test_exit_table_turns_tiles_clockwise():
    # tile 6 joins N and E; turned one step clockwise it joins NE and SE
    assert B.EXIT[T6, 0, 0] == 2 and B.EXIT[T6, 1, 1] == 3 and B.EXIT[T6, 1, 3] == 1


# ------------------------------------------------------------------ paths in hand-built positions
def test_straight_path_to_a_free_stop_is_legal():
    g, s = blank({0: ["C3"], 1: ["HE0"]}, exch=T1)
    assert g.legal_mask(s)[place_action("c3", 0)]
    g.apply_action(s, place_action("c3", 0))
    assert g.legal_actions(s) == [move_action("C3", 0)]  # NE across c3 to D4
    g.apply_action(s, move_action("C3", 0))
    assert s["pos"][0, 0] == P("D4")
    assert g.current_player(s) == CHANCE  # the picked-up face-down tile is revealed now


def test_a_move_must_use_the_placed_tile():
    # B4 -> b3 (NW->NE) -> C4 is a whole path, but it does not cross c3 where T1 went
    g, s = blank({0: ["C3", "B4"], 1: ["HE0"]}, exch=T1, tiles={"b3": (T4, 0)})
    buf = np.zeros(R.MAX_PATH + 1, dtype=np.uint8)
    assert R.trace(s, P("B4"), 1, -1, 0, 0, buf)[0] == P("C4")
    g.apply_action(s, place_action("c3", 0))
    assert g.legal_actions(s) == [move_action("C3", 0)]
    assert "without crossing the tile placed on c3" in R.illegal_reason(s, 0, move_action("B4", 1))


def test_a_replaced_face_up_tile_goes_to_the_left_neighbour_as_its_exchange_tile():
    # S (seat 3) lays T1 over the face-up T4 on c3; W (seat 0), next clockwise, gets that T4 face up at once
    g, s = blank({3: ["C3"], 0: ["B3"]}, exch=T1, cur=3, num_players=4, tiles={"c3": (T4, 5)})
    g.apply_action(s, place_action("c3", 0))
    g.apply_action(s, move_action("C3", 0))  # C3 -> c3 (SW->NE) -> D4
    assert g.current_player(s) == 0 and int(s["phase"]) == R.PH_PLACE  # no chance node: the tile was seen
    assert s["exch"] == T4 and s["tile"][S("c3")] == T1 and T4 not in s["tile"].tolist()
    assert g.action_to_string(s, place_action("b2", 0)).startswith("place T4 ")
    # and W plays it: T4 joins NW and NE, so B3 -> b2 -> C3, which S's runner just left
    g.apply_action(s, place_action("b2", 0))
    g.apply_action(s, move_action("B3", 1))
    assert s["pos"][0, 0] == P("C3") and s["tile"][S("b2")] == T4


def test_occupied_stop_makes_the_placement_illegal():
    g, s = blank({0: ["C3"], 1: ["D4"]}, exch=T1)
    mask = g.legal_mask(s)
    assert not mask[place_action("c3", 0)]
    reason = R.illegal_reason(s, 0, place_action("c3", 0))
    assert "occupied stop D4" in reason
    with pytest.raises(IllegalActionError, match="occupied stop D4"):
        g.apply_action(s, place_action("c3", 0))


def test_a_runner_may_end_its_move_on_a_stop_next_to_other_runners():
    # "naast hen staan" is read as sharing a point: the runners on C4 and D3 flank c3, and C4, D3, E4 and D5
    # are the stops next to D4, yet C3 -> c3 (SW->NE) -> D4 ends on a free stop and is legal
    g, s = blank({0: ["C3"], 1: ["C4", "D3", "E4", "D5"]}, exch=T1)
    assert g.legal_mask(s)[place_action("c3", 0)]
    g.apply_action(s, place_action("c3", 0))
    assert g.legal_actions(s) == [move_action("C3", 0)]
    g.apply_action(s, move_action("C3", 0))
    assert s["pos"][0, 0] == P("D4") and [B.POINT_NAMES[p] for p in s["pos"][1, :4]] == ["C4", "D3", "E4", "D5"]


def test_dead_end_at_a_face_down_tile():
    # tile 2 joins SW and N: from C3 across c3 into c4, which lies face down
    g, s = blank({0: ["C3"], 1: ["HE0"]}, exch=T2)
    assert not g.legal_mask(s)[place_action("c3", 0)]
    assert "face-down tile on c4" in R.illegal_reason(s, 0, place_action("c3", 0))
    # the same placement is legal once c4 and c5 lie face up with straight N-S paths
    g, s = blank({3: ["C3"]}, exch=T2, cur=3, num_players=4,
                 tiles={"c4": (T4, 0), "c5": (T5, 0)})
    assert g.legal_mask(s)[place_action("c3", 0)]


def test_foreign_goal_is_illegal_own_goal_is_legal():
    tiles = {"c4": (T4, 0), "c5": (T5, 0)}  # C3 -> c3 -> c4 -> c5 -> HN3
    g, s = blank({0: ["C3"], 1: ["HE0"]}, exch=T2, tiles=tiles)  # W's goal is E
    assert not g.legal_mask(s)[place_action("c3", 0)]
    assert "HN3, a foreign goal circle" in R.illegal_reason(s, 0, place_action("c3", 0))
    g, s = blank({3: ["C3"]}, exch=T2, cur=3, num_players=4, tiles=tiles)  # S's goal is N
    g.apply_action(s, place_action("c3", 0))
    g.apply_action(s, move_action("C3", 0))
    assert s["pos"][3, 0] == P("HN3")


def test_own_start_circle_is_illegal():
    # tile 6 joins NE and W: from B3 across a2 to HW2, a start circle of W
    g, s = blank({0: ["B3"], 1: ["HE0"]}, exch=T6)
    a = place_action("a2", 0)
    assert not g.legal_mask(s)[a]
    assert "own start circles" in R.illegal_reason(s, 0, a)
    g, s = blank({1: ["B3"], 0: ["HW0"]}, exch=T6, cur=1)  # for E, HW2 is a goal
    assert g.legal_mask(s)[a]


def test_a_move_may_not_end_on_an_occupied_own_goal_circle():
    # "naar een eigen tegenoverliggend onbezet eindveld": T1 on e4 joins SW and NE, so E4 -> e4 -> HE1, W's goal
    g, s = blank({0: ["E4"], 1: ["HE1"]}, exch=T1)  # E's runner still on its start circle HE1
    assert not g.legal_mask(s)[place_action("e4", 0)]
    assert "ends at the occupied goal circle HE1" in R.illegal_reason(s, 0, place_action("e4", 0))
    g, s = blank({0: ["E4", "HE1"], 1: ["HW0"]}, exch=T1)  # held by W's own runner: no better
    assert not g.legal_mask(s)[place_action("e4", 0)]
    assert "ends at the occupied goal circle HE1" in R.illegal_reason(s, 0, place_action("e4", 0))
    # the placement is legal for another runner (E5 -> e4 (NW->SE) -> loop -> e3 (NE->E) -> HE3, free),
    # and then only that runner may move: E4's move to the occupied HE1 is refused
    g, s = blank({0: ["E4", "E5"], 1: ["HE1"]}, exch=T1, tiles={"e3": (15, 0)})  # T16 joins NE and E
    g.apply_action(s, place_action("e4", 0))
    assert g.legal_actions(s) == [move_action("E5", 1)]
    assert "ends at the occupied goal circle HE1" in R.illegal_reason(s, 0, move_action("E4", 0))
    with pytest.raises(IllegalActionError, match="occupied goal circle HE1"):
        g.apply_action(s, move_action("E4", 0))
    g.apply_action(s, move_action("E5", 1))
    assert s["pos"][0, 1] == P("HE3")
    # with HE1 free the same move of E4 is legal
    g, s = blank({0: ["E4", "E5"], 1: ["C3"]}, exch=T1, tiles={"e3": (15, 0)})
    g.apply_action(s, place_action("e4", 0))
    assert g.legal_actions(s) == [move_action("E4", 0), move_action("E5", 1)]


def test_goal_circles_on_a_side_no_seat_plays_are_goals_all_the_same():
    # 3 players sit W, N, E: N's goal is the unused side S. T6 joins NW and S: D2 -> d1 -> HS2
    tiles = {"c1": (T4, 0), "d1": (T5, 0)}  # turned up at setup by the unused side
    g, s = blank({1: ["D2"], 0: ["HW0"], 2: ["HE0"]}, exch=T6, cur=1, num_players=3, tiles=tiles)
    side_s = int(B.POINT_HOME_SIDE[P("HS2")])
    assert side_s not in s["seat_side"][:3].tolist() and R.goal_side(s, 1) == side_s
    assert g.legal_mask(s)[place_action("d1", 0)]
    g.apply_action(s, place_action("d1", 0))
    g.apply_action(s, move_action("D2", 1))
    assert s["pos"][1, 0] == P("HS2") and g.current_player(s) == 2  # T5 was face up: no reveal
    # for W (goal E) the same path ends on a foreign circle of the unused side
    g, s = blank({0: ["D2"], 1: ["HN0"], 2: ["HE0"]}, exch=T6, num_players=3, tiles=tiles)
    assert not g.legal_mask(s)[place_action("d1", 0)]
    assert "HS2, a foreign goal circle" in R.illegal_reason(s, 0, place_action("d1", 0))
    # 2 players on adjacent sides W and N: W's goal E is not played, and W finishes there and wins
    g, s = blank({0: ["HE0", "HE2", "HE3", "HE4", "E4"], 1: ["HN0", "HN1", "HN2", "HN3", "HN4"]}, exch=T1,
                 adjacent=True)
    assert int(B.POINT_HOME_SIDE[P("HE1")]) not in s["seat_side"][:2].tolist()
    g.apply_action(s, place_action("e4", 0))
    g.apply_action(s, move_action("E4", 0))  # E4 -> e4 (SW->NE) -> HE1
    g.play_chance(s)
    assert g.is_terminal(s) and np.allclose(g.returns(s), [1, -1])


def test_loop_back_to_the_same_stop_is_legal():
    # C3 -> c3 (SW->W) -> b3 (E->SE) -> C3
    g, s = blank({0: ["C3"], 1: ["HE0"]}, exch=T7, tiles={"b3": (T8, 0)})
    g.apply_action(s, place_action("c3", 7))
    assert g.legal_mask(s)[move_action("C3", 0)]
    g.apply_action(s, move_action("C3", 0))
    assert s["pos"][0, 0] == P("C3") and s["last_path_len"] == 2


def test_path_across_a_printed_curve():
    # HW3 -> a3 (W->N) -> corner curve -> b4 (W->NW) -> B5
    g, s = blank({0: ["HW3"], 1: ["HE0"]}, exch=T6, tiles={"b4": (T7, 0)})
    assert B.LINK_CURVE[S("a3"), 0] >= 0
    g.apply_action(s, place_action("a3", 6))
    assert g.legal_actions(s) == [move_action("HW3")]
    g.apply_action(s, move_action("HW3"))
    assert s["pos"][0, 0] == P("B5")
    crossed = [(int(c) // 8, int(c) % 8) for c in s["last_path"][: s["last_path_len"]]]
    assert crossed == [(S("a3"), 6), (S("b4"), 6)]


def test_a_path_may_cross_the_same_octagon_twice():
    # C3 -> c3 (SW->W) -> b3 (E->N) -> b4 (S->E) -> c4 (W->S) -> c3 again (N->NE) -> D4
    tiles = {"b3": (T6, 0), "b4": (12, 2), "c4": (10, 0)}
    g, s = blank({0: ["C3"], 1: ["HE0"]}, exch=15, tiles=tiles)
    g.apply_action(s, place_action("c3", 4))
    g.apply_action(s, move_action("C3", 0))
    assert s["pos"][0, 0] == P("D4")
    crossed = [B.SPACE_NAMES[int(c) // 8] for c in s["last_path"][: s["last_path_len"]]]
    assert crossed == ["c3", "b3", "b4", "c4", "c3"]


def test_a_runner_on_its_goal_circle_moves_like_any_other():
    # the seed has no rule that keeps a runner on its goal: T1 on e4 carries W's runner on HE1 back to E4
    g, s = blank({0: ["HE1", "C3"], 1: ["HW0"]}, exch=T1)
    assert g.legal_mask(s)[place_action("e4", 0)]
    g.apply_action(s, place_action("e4", 0))
    assert g.legal_actions(s) == [move_action("HE1")]
    g.apply_action(s, move_action("HE1"))
    assert B.POINT_NAMES[int(s["pos"][0, 0])] == "E4"


def test_goal_locks_keep_a_runner_on_its_goal_circle():
    # the other publisher's reading, kept as an option
    g, s = blank({0: ["HE1", "C3"], 1: ["HW0"]}, exch=T1, goal_locks=True)
    assert not g.legal_mask(s)[place_action("e4", 0)]
    g2, s2 = blank({1: ["HE1"], 0: ["HW0"]}, exch=T1, cur=1, goal_locks=True)  # E's start circle: it moves
    assert g2.legal_mask(s2)[place_action("e4", 0)]
    g.apply_action(s, place_action("c3", 0))
    assert not g.legal_mask(s)[move_action("HE1")]
    assert "(goal_locks=True)" in R.illegal_reason(s, 0, move_action("HE1"))
    assert g.observation_views(g.observation(s, 0))["goal_locks"].tolist() == [1.0]


def test_goal_locks_change_the_legal_turns_of_random_play():
    # the same random positions read both ways: a runner standing on its goal adds turns without locks
    unlocked, locked = Game("octiles", num_players=2), Game("octiles", num_players=2, goal_locks=True)
    differ = decisions = 0
    for seed in range(4):
        s = unlocked.new_state(seed)
        rollout(s, 120)  # well into the game: some runners are home
        for _ in range(60):
            if unlocked.is_terminal(s):
                break
            if int(s["phase"]) == R.PH_PLACE:
                t = s.copy()
                t["goal_locks"] = 1
                a, b = unlocked.legal_mask(s), locked.legal_mask(t)
                assert np.all(b <= a) or b[R.A_PASS]  # locks only take turns away (or force a pass)
                on_goal = any(bool(R.on_goal(s, int(s["cur"]), int(x))) for x in s["pos"][int(s["cur"])])
                differ += int(not np.array_equal(a, b))
                decisions += int(on_goal)
                assert on_goal or np.array_equal(a, b)  # without a runner on its goal nothing changes
            rollout(s, 1)
    assert differ > 0 and decisions > 0


# ------------------------------------------------------------------ special cases
FORCED = {0: ["HW0", "HW1", "HW3", "HW4", "C3"], 1: ["HW2", "HE0", "HE1", "HE2", "HE3"]}


def test_forced_leaving_of_start_circles():
    g, s = blank(FORCED, exch=T1)
    assert R.leave_rule_applies(s, 0)
    mask = g.legal_mask(s)
    assert mask[place_action("a3", 0)]      # HW4 -> B3 leaves a start circle
    assert not mask[place_action("c3", 0)]  # only the runner on C3 could use it
    assert not mask[place_action("b3", 0)]
    assert "must leave its start circle" in R.illegal_reason(s, 0, place_action("b3", 0))
    # the observation's entry is set for the move (the placement's mask obeys the rule already)
    assert g.observation_views(g.observation(s, 0))["forced"].tolist() == [0.0]
    g.apply_action(s, place_action("a3", 0))
    assert s["forced"] == 1 and g.observation_views(g.observation(s, 0))["forced"].tolist() == [1.0]
    legal = g.legal_actions(s)
    assert legal and all(R.on_start(s, 0, (a - R.A_MOVE) // 4) for a in legal)
    # with a free circle on W's side the rule does not apply
    free = {0: FORCED[0], 1: ["HE4", "HE0", "HE1", "HE2", "HE3"]}
    g, s = blank(free, exch=T1)
    assert not R.leave_rule_applies(s, 0)
    assert g.legal_mask(s)[place_action("b3", 0)] and g.legal_mask(s)[place_action("c3", 0)]
    # and it is a 5-runner rule only: with 4 runners W's five circles are all held (HW1 and HW2 by E) and W
    # runners still stand on HW0, HW3 and HW4, yet nothing is forced
    g, s = blank({0: ["HW0", "HW3", "HW4", "C3"], 1: ["HW1", "HW2", "HE0", "HE1"]}, exch=T1, runners=4)
    assert not R.leave_rule_applies(s, 0)
    mask = g.legal_mask(s)
    assert mask[place_action("a3", 0)] and mask[place_action("c3", 0)]  # HW4 -> B3, and C3's runner may move
    # the same full side with 5 runners (HW1 now W's) forbids moving the C3 runner
    g, s = blank({0: ["HW0", "HW3", "HW4", "C3", "HW1"], 1: ["HW2", "HE0", "HE1", "HE2", "HE3"]}, exch=T1)
    assert R.leave_rule_applies(s, 0)
    mask = g.legal_mask(s)
    assert mask[place_action("a3", 0)] and not mask[place_action("c3", 0)]


# W's five circles are all held (HW2 by E's runner) and E holds B2, B3 and B4, the stops by a2 and a3
FALLBACK = {0: ["HW0", "HW1", "HW3", "HW4", "C3"], 1: ["HW2", "B2", "B3", "B4", "HE0"]}


def test_forced_leaving_does_not_bind_when_no_turn_can_leave_a_start_circle():
    # "zodra dit mogelijk is": a path from a W circle crosses a2 or a3 (the placed tile) and ends on a W circle
    # (own start), on B2, B3 or B4 (occupied) or at a face-down neighbour (a dead end), so no turn leaves a
    # start circle; then every other turn stays legal
    g, s = blank(FALLBACK, exch=T1)
    assert R.leave_rule_applies(s, 0)
    mask = g.legal_mask(s)
    assert not any(mask[place_action(sp, r)] for sp in ("a2", "a3") for r in range(8))
    assert mask[place_action("c3", 0)] and mask[place_action("c2", 0)]  # C3 -> D4 and C3 -> c2 (NW->SE) -> D2
    assert "must leave" not in R.illegal_reason(s, 0, place_action("a3", 0))
    # the same turns as where the rule does not apply (E's runner on its own start circle, HW2 free)
    g2, s2 = blank({0: FALLBACK[0], 1: ["HE2"] + FALLBACK[1][1:]}, exch=T1)
    assert not R.leave_rule_applies(s2, 0)
    np.testing.assert_array_equal(mask, g2.legal_mask(s2))
    g.apply_action(s, place_action("c3", 0))
    assert s["forced"] == 0 and g.legal_actions(s) == [move_action("C3", 0)]
    g.apply_action(s, move_action("C3", 0))
    assert s["pos"][0, 4] == P("D4")


# all 16 stops occupied, no runner next to its own goal, every tile face down
STUCK = {0: ["B2", "B3", "B4", "C3"], 1: ["B5", "C5", "D5", "C4"],
         2: ["E3", "E4", "E5", "D4"], 3: ["C2", "D2", "E2", "D3"]}


def test_forfeit_passes_the_exchange_tile_unplayed():
    g, s = blank(STUCK, exch=T6, num_players=4)
    board = s["tile"].copy()
    assert g.legal_actions(s) == [R.A_PASS]
    assert "no legal turn exists" in R.illegal_reason(s, 0, place_action("c3", 0))
    g.apply_action(s, R.A_PASS)
    assert g.current_player(s) == 1 and s["exch"] == T6 and s["passes"] == 1
    assert np.array_equal(s["tile"], board) and s["turns"] == 1
    # a pass is refused when a legal turn exists
    g, s = blank({0: ["C3"], 1: ["HE0"]}, exch=T1)
    assert not g.legal_mask(s)[R.A_PASS]
    with pytest.raises(IllegalActionError, match="only be forfeited"):
        g.apply_action(s, R.A_PASS)


@pytest.mark.parametrize("team", [False, True])
def test_a_full_cycle_of_forfeits_ends_the_game_last_mover_wins(team):
    g, s = blank(STUCK, exch=T6, num_players=4, team=team)
    s["last_move"][2] = 0  # seat 2 made the last move before this position
    for seat in range(4):
        assert g.current_player(s) == seat
        g.apply_action(s, R.A_PASS)
    assert g.is_terminal(s)
    want = [1, -1, 1, -1] if team else [-1 / 3, -1 / 3, 1, -1 / 3]
    assert np.allclose(g.returns(s), want)


def test_first_player_home_wins():
    g, s = blank({0: ["HE0", "HE2", "HE3", "HE4", "E4"], 1: ["HE1"]}, exch=T1)
    s["pos"][1, 0] = P("C3")  # keep HE1 free
    g.apply_action(s, place_action("e4", 0))
    g.apply_action(s, move_action("E4", 0))  # E4 -> e4 (SW->NE) -> HE1
    g.play_chance(s)
    assert g.is_terminal(s) and np.allclose(g.returns(s), [1, -1])


def test_team_wins_when_both_partners_are_home():
    runners = {0: ["HE0", "HE2", "HE3", "E4"], 1: ["HN0", "HN1", "HN3", "HN4"],
               2: ["HW0", "HW1", "HW2", "HW3"], 3: ["HS0", "HS1", "HS3", "HS4"]}
    g, s = blank(runners, exch=T1, num_players=4, team=True)
    s["rank"][2] = 0
    s["n_finished"] = 1
    g.apply_action(s, place_action("e4", 0))
    g.apply_action(s, move_action("E4", 0))
    g.play_chance(s)
    assert g.is_terminal(s) and np.allclose(g.returns(s), [1, -1, 1, -1])
    # one partner home alone: the game goes on and that seat's turns are skipped
    g, s = blank(runners, exch=T1, num_players=4, team=True)
    g.apply_action(s, place_action("e4", 0))
    g.apply_action(s, move_action("E4", 0))
    g.play_chance(s)
    assert not g.is_terminal(s) and s["rank"][0] == 0 and g.current_player(s) == 1
    s["cur"] = 3
    R._end_turn(s, False)  # seat 3 forfeits; the tile goes on to seat 1
    assert g.current_player(s) == 1  # seat 0 is skipped


def test_play_on_ranks_the_players_still_in_by_their_own_last_move():
    # "wint die speler die als laatste een zet heeft kunnen uitvoeren": P1 moves, P2 moves, P0 finishes,
    # then P1 and P2 both forfeit; P2 moved after P1, so P2 is second and P1 third (no shared places)
    runners = {0: ["HE0", "HE2", "HE3", "HE4", "E4"], 1: ["B4", "C2"], 2: ["E5", "B5"]}
    g, s = blank(runners, exch=11, cur=1, num_players=3, play_on=True)
    turns = [(place_action("b2", 7), move_action("C2", 3), 4),   # P1: C2 leaves NW; T5 turns up
             (place_action("b4", 1), move_action("B5", 1), 14),  # P2: B5 leaves SE; T15 turns up
             (place_action("e4", 3), move_action("E4", 0), 6)]   # P0: E4 -> HE1, all five home
    for seat, (place, move, reveal) in zip((1, 2, 0), turns):
        assert g.current_player(s) == seat
        g.apply_actions(s, [place, move, reveal])
    assert s["rank"].tolist()[:3] == [0, -1, -1] and not g.is_terminal(s)
    assert g.legal_actions(s) == [R.A_PASS]
    g.apply_action(s, R.A_PASS)
    assert g.legal_actions(s) == [R.A_PASS]
    g.apply_action(s, R.A_PASS)  # a full cycle of the players still in: the game is over
    assert g.is_terminal(s) and s["rank"].tolist()[:3] == [0, 2, 1]
    assert g.returns(s).tolist() == [1.0, -1.0, 0.0]


def test_play_on_seats_that_never_moved_share_the_places_left():
    g, s = blank(STUCK, exch=T6, num_players=4, play_on=True)
    s["last_move"][3] = 0  # only seat 3 ever moved
    g.apply_actions(s, [R.A_PASS] * 4)
    assert g.is_terminal(s) and s["rank"].tolist() == [-1, -1, -1, 0]
    assert np.allclose(g.returns(s), [-1 / 3, -1 / 3, -1 / 3, 1])


def test_engine_turn_cap_is_a_truncation():
    g = Game("octiles", num_players=2, max_turns=5)
    s = g.new_state(1)
    rollout(s, 10_000)
    assert g.is_terminal(s) and s["turns"] == 5 and np.all(g.returns(s) == 0)
    assert g.kernels.truncated(s) and g.module.check_record(s) == ""
    won = Game("octiles", num_players=2).new_state(1)
    assert not g.kernels.truncated(won)
    env = make("octiles", num_envs=1, seed=3, num_players=2, max_turns=4)  # the vector env flags it
    env.reset()
    ends = [env.step(env.sample_actions())[2:4] for _ in range(12)]  # 4 setup choices, then 4 turns
    assert any(trunc[0] and not term[0] for term, trunc in ends)


@pytest.mark.parametrize("max_turns, returns", [(2, [0.0, 0.0, 0.0]), (3, [1.0, -0.5, -0.5])])
def test_the_turn_cap_keeps_the_win_of_a_seat_already_home_in_play_on(max_turns, returns):
    # "Van zodra een speler al zijn figuren in de doelvelden heeft geplaatst eindigt het spel en wint deze
    # speler": P0 is home at the third turn; a cap there ends the play for the places left (shared), not the win:
    # the game was decided by the rules, so it is an end, not a truncation (a cap before it truncates, returns 0)
    runners = {0: ["HE0", "HE2", "HE3", "HE4", "E4"], 1: ["B4", "C2"], 2: ["E5", "B5"]}
    g, s = blank(runners, exch=11, cur=1, num_players=3, play_on=True, max_turns=max_turns)
    turns = [(place_action("b2", 7), move_action("C2", 3), 4),   # P1: C2 leaves NW; T5 turns up
             (place_action("b4", 1), move_action("B5", 1), 14),  # P2: B5 leaves SE; T15 turns up
             (place_action("e4", 3), move_action("E4", 0), 6)]   # P0: E4 -> HE1, all five home
    for place, move, reveal in turns[:max_turns]:
        g.apply_actions(s, [place, move, reveal])
    assert g.is_terminal(s) and bool(g.kernels.truncated(s)) == (max_turns == 2) and g.returns(s).tolist() == returns
    assert int(s["winner"]) == (0 if max_turns == 3 else -1)


def test_random_play_on_games_stopped_by_the_cap_keep_the_places_won():
    # at 4 seats random play seldom ends by the rules: the cap stops it, often after a seat is home
    g = Game("octiles", num_players=4, play_on=True, max_turns=200)
    kept = 0
    for seed in range(120):
        s = g.new_state(seed)
        rollout(s, 100_000)
        r, ranks, n = g.returns(s), s["rank"][:4], int(s["n_finished"])
        assert g.is_terminal(s) and abs(r.sum()) < 1e-9 and R.check_record(s) == ""
        if not s["capped"]:
            continue
        assert bool(g.kernels.truncated(s)) == (n == 0)  # a cap with a seat home ends a game the rules decided
        for p in range(4):  # the places settled by the rules, the rest shared equally
            assert r[p] == pytest.approx(1 - 2 * ranks[p] / 3 if ranks[p] >= 0 else -n / 3)  # 0: a truncation
        assert int(s["winner"]) == (int(np.argmin(np.where(ranks >= 0, ranks, 9))) if n else -1)
        if n:
            kept += 1
            bad = s.copy()
            bad["returns"][:4] = r[::-1]  # the record check refuses other places
            assert "the end of the game (the winner and the ranks) gives" in R.check_record(bad)
            s["returns"][:] = 0  # but takes such a game saved before 2026-12-07, when the cap paid nothing
            s["winner"] = -1
            assert R.check_record(s) == ""
    assert kept >= 10


# ------------------------------------------------------------------ setup and chance
def test_setup_chance_nodes_and_reveals():
    g = Game("octiles", num_players=3)
    s = g.new_state(4)
    assert g.current_player(s) == CHANCE
    assert [a for a, _ in g.chance_outcomes(s)] == list(range(18))  # the exchange tile
    g.apply_action(s, 6)
    assert s["exch"] == 6
    for sp in ("c1", "d1"):  # 3 players: the two octagons by the unused side S turn up
        outs = g.chance_outcomes(s)
        assert len(outs) == 18 - len(seen_tiles(s)) and abs(sum(p for _, p in outs) - 1) < 1e-12
        g.apply_action(s, outs[0][0])
        assert [a for a, _ in g.chance_outcomes(s)] == list(range(18, 26))  # its rotation
        g.apply_action(s, 18 + 3)
        assert s["tile"][S(sp)] >= 0 and s["rot"][S(sp)] == 3
    assert [a for a, _ in g.chance_outcomes(s)] == [26, 27, 28]  # the start player by lot
    g.apply_action(s, 27)
    assert g.current_player(s) == 1
    # a placement on a face-down space: its tile is revealed after the move
    a = next(a for a in g.legal_actions(s) if s["tile"][a // 8] < 0)
    g.apply_action(s, a)
    assert s["exch"] == -1
    g.apply_action(s, g.legal_actions(s)[0])
    outs = g.chance_outcomes(s)
    assert len(outs) == 18 - len(seen_tiles(s)) == int((s["tile"] < 0).sum()) + 1
    g.apply_action(s, outs[-1][0])
    assert s["exch"] == outs[-1][0] and g.current_player(s) == 2


def test_setup_phase_lets_players_choose_middle_circles():
    g = Game("octiles", num_players=4, runners=3, choose_start_circles=True)
    s = g.new_state(0)
    assert g.current_player(s) == 0
    assert g.legal_actions(s) == [R.A_SETUP, R.A_SETUP + 1, R.A_SETUP + 2]
    assert g.action_to_string(s, R.A_SETUP + 2) == "start on HW3"
    g.apply_action(s, R.A_SETUP + 2)
    assert sorted(B.POINT_NAMES[p] for p in s["pos"][0, :3]) == ["HW0", "HW3", "HW4"]
    assert g.current_player(s) == 1
    g2 = Game("octiles", num_players=2, runners=4, choose_start_circles=True)
    s2 = g2.new_state(0)
    g2.apply_action(s2, R.A_SETUP + 1)
    assert not g2.legal_mask(s2)[R.A_SETUP + 1] and g2.current_player(s2) == 0
    with pytest.raises(IllegalActionError, match="already occupied"):
        g2.apply_action(s2, R.A_SETUP + 1)


def test_default_game_asks_which_middle_circles_the_runners_start_on():
    # "In elk geval worden de twee buitenste velden bezet. Welke van de drie middelste velden bezet
    # worden mag de speler zelf kiezen." 4 players, 4 runners each: the default game asks everyone.
    g = Game("octiles", num_players=4)
    assert g.config.runners == 4 and g.config.choose_start_circles
    s = g.new_state(0)
    assert int(s["phase"]) == R.PH_SETUP and g.current_player(s) == 0
    assert [B.POINT_NAMES[p] for p in s["pos"][0, :2]] == ["HW0", "HW4"] and s["pos"][0, 2] == -1
    assert g.legal_actions(s) == [R.A_SETUP, R.A_SETUP + 1, R.A_SETUP + 2]
    # P0 starts on its circles 2 and 3, P1 on 1 and 2, P2 on 1 and 3, P3 on 2 and 3
    for p, circles in enumerate([(2, 3), (1, 2), (1, 3), (2, 3)]):
        for c in circles:
            assert g.current_player(s) == p
            g.apply_action(s, R.A_SETUP + c - 1)
        side = "WNES"[p]
        assert sorted(B.POINT_NAMES[x] for x in s["pos"][p, :4]) == sorted(
            [f"H{side}0", f"H{side}4"] + [f"H{side}{c}" for c in circles])
    assert g.current_player(s) == CHANCE and int(s["phase"]) == R.PH_DEAL  # then the tiles are dealt
    # the fixed setup stays reachable: the middle circle 2 empty, no question
    s = Game("octiles", num_players=4, choose_start_circles=False).new_state(0)
    assert int(s["phase"]) == R.PH_DEAL
    assert [B.POINT_NAMES[p] for p in s["pos"][0, :4]] == ["HW0", "HW4", "HW1", "HW3"]
    # with 5 runners (2 and 3 players by default) every circle is filled: nothing to choose
    for n in (2, 3):
        s = Game("octiles", num_players=n).new_state(0)
        assert int(s["phase"]) == R.PH_DEAL and (s["pos"][:n, :5] >= 0).all()


def test_default_start_circles_and_seats():
    s = Game("octiles", num_players=2, adjacent=True).new_state(0)
    assert list(s["seat_side"][:2]) == [0, 1]
    s = Game("octiles", num_players=2).new_state(0)
    assert list(s["seat_side"][:2]) == [0, 2] and (s["pos"][:2] >= 16).all()


def test_config_validation():
    assert Game("octiles", num_players=4).config.runners == 4  # the seed's recommendations
    assert Game("octiles", num_players=3).config.runners == 5
    with pytest.raises(ValueError, match=r"runners=4.0 must be an integer"):
        R.Config(runners=4.0)
    with pytest.raises(ValueError, match=r"runners=1 is not valid; it must be >= 2 and <= 5"):
        R.Config(runners=1)
    with pytest.raises(ValueError, match="goal_locks"):
        R.Config(goal_locks=1)
    with pytest.raises(ValueError, match="choose_start_circles"):
        R.Config(choose_start_circles=1)
    with pytest.raises(ValueError, match="num_players"):
        R.Config(num_players=5)
    with pytest.raises(ValueError, match="team=True needs num_players=4"):
        R.Config(num_players=3, team=True)
    with pytest.raises(ValueError, match="adjacent"):
        R.Config(num_players=3, adjacent=True)
    with pytest.raises(ValueError, match="max_turns"):
        R.Config(max_turns=R.MAX_TURNS + 1)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_players_choose_2_to_5_runners(num_players):
    # "De spelers bepalen hoeveel figuren": any count the circles allow, the two outer ones always filled
    for runners in range(2, 6):
        asks = Game("octiles", num_players=num_players, runners=runners).new_state(0)
        assert (int(asks["phase"]) == R.PH_SETUP) == (runners in (3, 4))  # the default asks if it can
        g = Game("octiles", num_players=num_players, runners=runners, choose_start_circles=False)
        s = g.new_state(0)
        circles = sorted(B.POINT_NAMES[int(x)][2] for x in s["pos"][0, :runners])
        assert circles == {2: ["0", "4"], 3: ["0", "2", "4"], 4: ["0", "1", "3", "4"],
                           5: ["0", "1", "2", "3", "4"]}[runners]
        assert (s["pos"][:num_players, runners:] == -1).all()
        end = g.new_state(1)
        rollout(end, 10**6)
        assert g.is_terminal(end) and R.check_record(end) == ""
    assert not R.leave_rule_applies(Game("octiles", num_players=num_players, runners=4).new_state(0), 0)


def test_illegal_action_error_and_refusal_leave_the_state_untouched():
    g, s = blank({0: ["C3"], 1: ["D4"]}, exch=T1)
    before = g.to_bytes(s)
    assert not K.apply_action(s, place_action("c3", 0))
    with pytest.raises(IllegalActionError) as e:
        g.apply_action(s, move_action("C3"))
    assert "first place the exchange tile" in str(e.value)
    assert g.to_bytes(s) == before


def test_observation_is_public_and_seat_relative():
    g = Game("octiles", num_players=3)
    s = g.new_state(2)
    g.play_chance(s)
    o0, o1 = g.observation(s, 0), g.observation(s, 1)
    assert o0.shape == (R.OBS_SIZE,)
    assert np.array_equal(o0[: R.O_EXCH], o1[: R.O_EXCH])  # the board is the same for all
    run0 = o0[R.O_RUNNERS:R.O_SIDES].reshape(4, 36)
    run1 = o1[R.O_RUNNERS:R.O_SIDES].reshape(4, 36)
    assert np.array_equal(run0[1], run1[0])  # seat 1 is "self" for viewer 1
    assert o0[R.O_UNSEEN:R.O_UNSEEN + 18].sum() == 18 - len(seen_tiles(s))
    d = g.determinize(s, 0, 99)
    assert np.array_equal(g.observation(d, 0), o0) and d["rng"] != s["rng"]


def test_observation_shows_each_runners_path_distance_to_a_goal_circle_it_does_not_hold():
    # seat 0 plays from the west (goal: the east circles), seat 1 from the east; seat 0 holds HE3 and HE4, so
    # C3's nearest free goal circles are HE0-HE2, 4 octagons away (HE3 and HE4 would be 3); runners not
    # placed count 12; the rows are seats relative to the viewer
    g, s = blank({0: ["HE3", "HE4", "C3", "D4"], 1: ["E5", "HE2", "B2"]}, exch=T1)
    seat0, seat1 = [0, 0, 4, 2, 12], [4, 5, 1, 12, 12]
    for viewer, rows in ((0, [seat0, seat1]), (1, [seat1, seat0])):
        o = g.observation(s, viewer)
        assert np.allclose(o[R.O_DIST:R.O_DIST_SUM].reshape(4, 5) * 12, rows + [[0] * 5] * 2)
        assert np.allclose(o[R.O_DIST_SUM:R.O_DIST_SUM + 4] * 60, [sum(rows[0]), sum(rows[1]), 0, 0])
    assert R.OBS_SIZE == R.O_DIST_SUM + 4 and g.earlier_observation_sizes == (1788,) == (R.O_DIST,)


def recount_distances(s, viewer: int) -> np.ndarray:
    """The ``distance`` block recounted from the record: per relative seat and runner, the fewest octagons
    to a goal circle of the seat's goal side that none of its runners stands on; 0 on one, 12 unplaced."""
    n, runners = int(s["num_players"]), int(s["runners"])
    out = np.zeros((4, 5))
    for p in range(n):
        goal = (int(s["seat_side"][p]) + 2) % 4
        points = [int(x) for x in s["pos"][p, :runners]]
        free = [int(c) for c in B.HOME_OF[goal] if int(c) not in points]
        for i, pt in enumerate(points):
            if pt < 0:
                d = 12
            elif pt in [int(c) for c in B.HOME_OF[goal]]:
                d = 0
            else:
                d = min([int(B.POINT_DIST[pt, c]) for c in free] + [12])
            out[(p - viewer) % n, i] = d
    return out


@pytest.mark.parametrize("cfg", [dict(num_players=2), dict(num_players=3, runners=3),
                                 dict(num_players=4, team=True, choose_start_circles=True)])
def test_the_distances_and_unseen_tiles_agree_with_a_recount_in_random_play(cfg):
    g = Game("octiles", **cfg)
    rng = np.random.default_rng(3)
    seen = set()
    for seed in range(4):
        s = g.new_state(seed)
        for _ in range(300):  # decisions of a random game (most last longer)
            g.play_chance(s)
            if g.is_terminal(s):
                break
            for viewer in range(g.num_players):
                o = g.observation(s, viewer)
                want = recount_distances(s, viewer)
                assert np.allclose(o[R.O_DIST:R.O_DIST_SUM].reshape(4, 5) * 12, want)
                assert np.allclose(o[R.O_DIST_SUM:R.O_DIST_SUM + 4] * 60, want.sum(1))
                unseen = np.ones(18, np.float32)
                unseen[seen_tiles(s)] = 0.0
                assert np.array_equal(o[R.O_UNSEEN:R.O_UNSEEN + 18], unseen)
                seen.update(int(x) for x in want[:g.num_players].ravel())
            g.apply_action(s, int(rng.choice(g.legal_actions(s))))
    assert 0 in seen and len(seen) >= 6  # runners on goal circles and distances between


def test_list_turns_agrees_with_the_masks():
    g = Game("octiles", num_players=2)
    s = g.new_state(7)
    out = np.zeros((R.MAX_TURN_CHOICES, 3), dtype=np.int32)
    checked = {"placements": 0, "moves": 0}
    for _ in range(40):
        g.play_chance(s)
        if g.is_terminal(s):
            break
        n = cached(R.list_turns)(s, out)  # the entry point the heuristic calls (compiled by the warm-up)
        places = sorted({int(r[0]) for r in out[:n]})
        legal = g.legal_actions(s)
        assert places == ([] if legal == [R.A_PASS] else legal)
        checked["placements"] += len(places)
        rollout(s, 1)  # placement
        if int(s["phase"]) == R.PH_MOVE:
            pl = int(s["last_space"]) * 8 + int(s["last_rot"])
            moves = sorted(int(r[1]) for r in out[:n] if r[0] == pl)
            assert moves == g.legal_actions(s)
            checked["moves"] += len(moves)
            rollout(s, 1)
    assert checked["placements"] > 0 and checked["moves"] > 0, checked


# ------------------------------------------------------------------ random play
INVARIANTS = ("ok", "a face-up tile was turned or moved", "a tile turned face down again",
              "a tile is in two places", "the tile count is not 18", "two runners share a point",
              "a runner stands on a foreign home circle", "the game outlived max_game_length")


@nb.njit
def _play_checked(s, limit) -> int:
    """Random play (record RNG) to the end, checking the invariants after every action.

    Returns an index into INVARIANTS (0: all held). Compiled, so that hundreds
    of games are checked action by action in a few seconds.
    """
    for _ in range(limit):
        if K.current_player(s) == TERMINAL:
            return 0
        ptile = s["tile"].copy()
        prot = s["rot"].copy()
        pphase = s["phase"]
        rollout(s, 1)
        # tiles on the board are never turned or moved: only a placement changes a space
        for o in range(17):
            if s["tile"][o] != ptile[o] or s["rot"][o] != prot[o]:
                placing = pphase == R.PH_PLACE and s["phase"] == R.PH_MOVE and o == s["placed"]
                if not placing and pphase != R.PH_DEAL3 and pphase != R.PH_ROT3:
                    return 1
            if ptile[o] >= 0 and s["tile"][o] < 0:
                return 2
        count = np.zeros(18, np.int64)
        unknown = 0
        for o in range(17):
            if s["tile"][o] >= 0:
                count[s["tile"][o]] += 1
            else:
                unknown += 1
        if s["exch"] >= 0:
            count[s["exch"]] += 1
        elif s["phase"] > R.PH_DEAL:
            unknown += 1
        if count.max() > 1:
            return 3
        if s["phase"] > R.PH_DEAL and count.sum() + unknown != 18:
            return 4
        occupied = np.zeros(36, np.int64)
        for p in range(s["num_players"]):
            for i in range(s["runners"]):
                x = s["pos"][p, i]
                if x >= 0:
                    occupied[x] += 1
                    if x >= 16 and not (R.on_start(s, p, x) or R.on_goal(s, p, x)):
                        return 6
        if occupied.max() > 1:
            return 5
    return 0 if K.current_player(s) == TERMINAL else 7


@pytest.mark.parametrize("cfg", [dict(num_players=2), dict(num_players=2, adjacent=True, runners=4),
                                 dict(num_players=3), dict(num_players=3, play_on=True),
                                 dict(num_players=4), dict(num_players=4, team=True, runners=3),
                                 dict(num_players=4, choose_start_circles=False),
                                 dict(num_players=2, goal_locks=True), dict(num_players=4, goal_locks=True)])
def test_invariants_under_random_play(cfg):
    g = Game("octiles", **cfg)
    lengths = []
    for seed in range(60):
        s = g.new_state(seed)
        err = _play_checked(s, g.max_game_length)
        assert err == 0, f"seed {seed}: {INVARIANTS[err]}"
        lengths.append(int(s["turns"]))
        r = g.returns(s)
        assert abs(r.sum()) < 1e-9 and int(s["moves"]) <= g.max_game_length
        assert g.current_player(s) == TERMINAL and R.check_record(s) == ""
    if cfg.get("goal_locks"):  # runners that stay home add up: random games end by the rules
        assert sum(n < R.DEFAULT_MAX_TURNS for n in lengths) >= 0.9 * len(lengths)
    assert min(lengths) > 20


def test_kernels_run_without_jit_and_agree():
    helper = inspect.getsource(rollout.py_func).split("\n", 1)[1]  # without the njit decorator
    code = ("import numpy as np\n"
            "from octagames.core import CHANCE, TERMINAL, Game, nth_set, rng_below\n"
            "from octagames.octiles import rules as R\n"
            "K = Game('octiles').kernels\n"
            + helper +
            "g = Game('octiles', num_players=3, max_turns=12)\n"
            "s = g.new_state(11)\n"
            "rollout(s, 10_000)\n"
            "o = np.zeros(R.OBS_SIZE, np.float32); R.observation(s, 1, o)\n"
            "setup = Game('octiles', num_players=2, runners=4).new_state(0)  # runners still off the board\n"
            "o2 = np.zeros(R.OBS_SIZE, np.float32); R.observation(setup, 0, o2)\n"
            "print(g.to_bytes(s).hex(), float(o.sum()), o2.tobytes().hex())\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    g = Game("octiles", num_players=3, max_turns=12)
    s = g.new_state(11)
    rollout(s, 10_000)
    assert g.is_terminal(s)
    assert out[0] == g.to_bytes(s).hex() and float(out[1]) == float(g.observation(s, 1).sum())
    setup_game = Game("octiles", num_players=2, runners=4)
    setup = setup_game.new_state(0)
    assert (setup["pos"][:2, :4] < 0).any()  # the distances of runners not on the board are read
    assert out[2] == setup_game.observation(setup, 0).tobytes().hex()


def test_render_text():
    g = Game("octiles", num_players=2)
    s = g.new_state(0)
    g.play_chance(s)
    txt = g.render(s)
    assert "exchange tile: T" in txt and "P0 (W -> E)" in txt and "##" in txt
    names = [g.action_to_string(s, a) for a in g.legal_actions(s)]
    assert all(n.startswith("place T") for n in names)


# ------------------------------------------------------------------ picture and heuristic agent
def test_render_rgb_draws_the_board():
    from octagames.envs.octiles_render import render_rgb
    from octagames.envs.pictures.octiles import WIDTH

    g = Game("octiles", num_players=3)
    s = g.new_state(5)
    rollout(s, 40)
    img = render_rgb(s, scale=0.5)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[1] == round(WIDTH / 2)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # a drawing, not a blank canvas


def test_heuristic_agent_beats_random_play():
    from octagames.agents.arena import play_game
    from octagames.agents.base import RandomAgent
    from octagames.agents.heuristics.octiles import OctilesHeuristicAgent, goal_distance

    g = Game("octiles", num_players=2)
    s = g.new_state(0)
    assert goal_distance(s, 0, P("HE0")) == 0 and goal_distance(s, 0, P("HW0")) > goal_distance(s, 0, P("D3"))
    wins = 0
    for k in range(6):
        seats = [RandomAgent(), RandomAgent()]
        seats[k % 2] = OctilesHeuristicAgent()
        r, _ = play_game(g, seats, k)
        wins += int(r[k % 2] > 0)
    assert wins >= 5


@pytest.mark.parametrize("config", [dict(num_players=2), dict(num_players=4, team=True), dict(num_players=3)])
def test_random_legal_action_is_legal_and_uniform(config):
    # the single-placement check agrees with the whole mask at every placement decision
    # of random games, and the fast sampler draws every legal action equally often
    g = Game("octiles", **config)
    rng = np.random.default_rng(4)
    checked = 0
    for k in range(12):
        s = g.new_state(k)
        # 60 placements a game: without goal locks random games run to the turn cap
        while not g.is_terminal(s) and checked < 60 * (k + 1):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            p = g.acting_player(s)
            mask = g.legal_mask(s, p)
            if int(s["phase"]) == R.PH_PLACE:
                forced = bool(R._forced_now(s, p))
                ok = [R._placement_ok(s, p, a // R.NUM_SIDES, a % R.NUM_SIDES, forced)
                      for a in range(R.A_PLACE, R.A_MOVE)]
                np.testing.assert_array_equal(np.array(ok, np.uint8), mask[R.A_PLACE:R.A_MOVE])
                checked += 1
            c = g.clone(s)
            assert mask[R.random_legal_action(c, p)]
            g.apply_action(s, int(rng.choice(np.flatnonzero(mask))))
    assert checked >= 500
    # uniformity at one placement decision with many legal placements: chi-square test
    s = g.new_state(1)
    while g.is_chance(s) or int(s["phase"]) != R.PH_PLACE or g.legal_mask(s, g.acting_player(s)).sum() < 20:
        g.apply_action(s, g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s))))
    p = g.acting_player(s)
    legal = np.flatnonzero(g.legal_mask(s, p))
    draws = 300 * len(legal)
    counts = np.zeros(R.NUM_ACTIONS)
    c = g.clone(s)
    for _ in range(draws):
        counts[R.random_legal_action(c, p)] += 1  # the record's RNG advances with each draw
    assert counts[legal].sum() == draws
    chi2 = ((counts[legal] - 300) ** 2 / 300).sum()
    dof = len(legal) - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof), (chi2, dof)  # about 5 standard deviations


@nb.njit
def _check_shared_walks(s, limit, counts) -> int:
    """Random play (record RNG); at every placement decision the legal placements (the shared walks of
    :func:`R.space_exits`) must be those found one placement at a time, each path walked with the tile laid
    on (``_placement_ok``, through ``walk``'s override), and ``ends_over`` must give every placement's end
    as that walk does. Returns 0, or 1 for a wrong mask and 2 for a wrong end; ``counts`` adds the
    decisions checked, the placements found legal and the rows of ``space_exits`` where a path comes back
    into its space (where the mask tries each rotation instead of one lookup of ``TURNS_TO``)."""
    mask = np.zeros(R.NUM_ACTIONS, dtype=np.uint8)
    ends = np.empty((17, 8), dtype=np.int8)
    buf = np.zeros(R.MAX_PATH + 1, dtype=np.uint8)
    for _ in range(limit):
        if K.current_player(s) == TERMINAL:
            break
        p = K.current_player(s)
        if p >= 0 and s["phase"] == R.PH_PLACE:
            K.legal_mask(s, p, mask)
            forced = False
            if R.leave_rule_applies(s, p):
                for a in range(R.A_PLACE, R.A_MOVE):
                    forced = forced or R._placement_ok(s, p, a // 8, a % 8, True)
            for a in range(R.A_PLACE, R.A_MOVE):
                if mask[a] != R._placement_ok(s, p, a // 8, a % 8, forced):
                    return 1
                counts[1] += mask[a]
            counts[0] += 1
            t = int(s["exch"])
            exits = R.new_exits()
            for i in range(s["runners"]):
                pt = int(s["pos"][p, i])
                if pt < 0:
                    continue
                for d in range(4):
                    R.ends_over(s, pt, d, t, ends, buf, exits)
                    for o in range(17):
                        for r in range(8):
                            end, crossed, _n, _dead = R.trace(s, pt, d, o, t, r, buf)
                            if ends[o, r] != (end if crossed else -9):
                                return 2
            for o in range(17):
                R.space_exits(s, o, exits)
                counts[2] += (exits[o] >= R.REENTER).any()
        rollout(s, 1)
    return 0


@nb.njit
def _move_mask_is_each_walk(s, p, mask, counts) -> bool:
    # the mask and its count against each runner's own walk at this move decision; counts the legal moves
    if K.legal_mask(s, p, mask) != mask.sum():
        return False
    for a in range(R.A_MOVE, R.A_PASS):
        if mask[a] != R._legal_now(s, p, a):
            return False
        counts[1] += mask[a]
    return True


@nb.njit
def _check_move_masks(s, limit, counts) -> int:
    """Random play (record RNG); at every move decision the legal mask (paths followed out from the placed
    tile, :func:`R._move_mask`) must be the moves each runner's own walk finds legal (``_legal_now``: its
    path traced with ``trace``), and its count their number; again with the forced leaving of start circles
    made to bind (``forced``). Returns 0, or 1 for a wrong mask or count; ``counts`` adds the decisions
    checked, the legal moves, the decisions where some path crosses the placed tile twice, and those where
    the forced leaving leaves fewer moves."""
    mask = np.zeros(R.NUM_ACTIONS, dtype=np.uint8)
    buf = np.zeros(R.MAX_PATH + 1, dtype=np.uint8)
    for _ in range(limit):
        if K.current_player(s) == TERMINAL:
            break
        p = K.current_player(s)
        if p >= 0 and s["phase"] == R.PH_MOVE:
            if not _move_mask_is_each_walk(s, p, mask, counts):
                return 1
            n = mask.sum()
            forced = s["forced"]
            s["forced"] = 1
            ok = _move_mask_is_each_walk(s, p, mask, counts)
            for a in range(R.A_MOVE, R.A_PASS):  # forced: only runners on their start circles move
                ok &= mask[a] == 0 or R.on_start(s, p, (a - R.A_MOVE) // 4)
            s["forced"] = forced
            if not ok:
                return 1
            counts[3] += mask.sum() < n
            counts[0] += 1
            o = int(s["placed"])
            twice = False
            for pt in range(B.NUM_POINTS):
                for d in range(4):
                    _end, crossed, ln, _dead = R.trace(s, pt, d, o, s["tile"][o], s["rot"][o], buf)
                    entered = 0
                    for j in range(ln):
                        entered += buf[j] // 8 == o
                    twice |= crossed == 1 and entered > 1
            counts[2] += twice
        rollout(s, 1)
    return 0


@pytest.mark.parametrize("cfg", [dict(num_players=2), dict(num_players=4, runners=5), dict(num_players=4, team=True),
                                 dict(num_players=3, goal_locks=True), dict(num_players=2, runners=2)])
def test_move_mask_is_each_runners_own_walk(cfg):
    g = Game("octiles", **cfg)
    counts = np.zeros(4, np.int64)
    for seed in range(25):
        s = g.new_state(seed)
        assert _check_move_masks(s, 400, counts) == 0, f"seed {seed}: a wrong move mask"
    assert counts[0] > 2000 and counts[1] > counts[0]  # thousands of decisions, more than one move a decision
    assert counts[2] > 0 and counts[3] > 0  # paths crossing the placed tile twice; forced leaving that binds


@pytest.mark.parametrize("cfg", [dict(num_players=2), dict(num_players=4, runners=5),
                                 dict(num_players=3, goal_locks=True)])
def test_shared_walks_find_the_placements_each_walk_finds(cfg):
    g = Game("octiles", **cfg)
    counts = np.zeros(3, np.int64)
    for seed in range(25):
        s = g.new_state(seed)
        err = _check_shared_walks(s, 400, counts)
        assert err == 0, f"seed {seed}: {['', 'a wrong legal mask', 'a wrong end of ends_over'][err]}"
    assert counts[0] > 2000 and counts[1] > 10 * counts[0]  # thousands of decisions, most with many placements
    assert counts[2] > 1000  # and thousands of rows where a path comes back (5,493 to 6,461 per config)


# ------------------------------------------------------------------ tables and saved records
def test_tables_are_declared_once_and_the_docstring_carries_them():
    for layout in (R.ACTIONS, R.CHANCE_OUTCOMES, R.OBS_LAYOUT):
        assert layout.table() in R.__doc__
    assert (R.ACTIONS.size, R.CHANCE_OUTCOMES.size, R.OBS_LAYOUT.size) == \
        (R.INFO.num_actions, R.INFO.max_chance_outcomes, R.INFO.observation_size)
    assert f"Total {R.OBS_SIZE} floats" in R.__doc__
    block, k = R.ACTIONS.locate(move_action("B3", 2))
    assert block.name == "move" and divmod(k, 4) == (P("B3"), 2)


def test_observation_views_name_the_blocks():
    g, s = blank({0: ["C3", "HW0"], 1: ["HE0"]}, exch=T1)
    views = g.observation_views(g.observation(s, 1))
    assert views["board"].shape == (17, 91) and views["board"][:, 0].sum() == 17  # all face down
    assert views["runners"].shape == (4, 36)
    assert np.flatnonzero(views["runners"][0]).tolist() == [P("HE0")]  # the viewer's own runners first
    assert sorted(np.flatnonzero(views["runners"][1]).tolist()) == sorted([P("C3"), P("HW0")])
    assert np.flatnonzero(views["exch"]).tolist() == [T1] and views["to_act"].tolist() == [0, 1, 0, 0]


#: a 2-player game with goal locks and 2 runners (seed 18055433, chance outcomes included) whose last
#: action brings seat 0's second runner home on a tile that replaced a face-down one (the fuzz campaign)
HOME_BEFORE_REVEAL = [16, 27, 83, 256, 8, 21, 200, 17, 117, 240, 11, 16, 139, 116, 197, 280, 118, 193, 48, 143, 13,
                      115, 193, 280, 107, 198, 14, 91, 144, 3, 41, 190, 6, 128, 164, 12, 72, 194, 1, 129, 181, 46,
                      194, 107, 164, 38, 171, 2, 110, 176, 45, 187, 125, 167, 4, 114, 192, 121, 149, 73, 198, 106,
                      164, 41, 190, 116, 197, 110, 176, 55, 216, 46, 171, 90, 144, 131, 183, 98, 165]


def test_a_seat_finished_by_a_move_before_the_reveal_is_ranked_when_its_turn_ends():
    g = Game("octiles", num_players=2, goal_locks=True, runners=2)
    s = g.new_state(18055433)
    for a in HOME_BEFORE_REVEAL:
        g.check_record(s)  # every record reached in play passes the whole check
        g.apply_action(s, a)
    assert g.is_chance(s) and int(s["phase"]) == 7  # PH_REVEAL: the picked-up tile is still face down
    assert int(s["rank"][0]) == -1 and all(int(s["pos"][0, i]) >= 0 for i in range(2))
    g.check_record(s)  # finished, not yet ranked: a record the rules reach
    g.apply_action(s, g.sample_chance(s))  # the reveal ends the turn: seat 0 is ranked first and wins
    g.check_record(s)
    assert g.is_terminal(s) and int(s["rank"][0]) == 0 and g.returns(s).tolist() == [1.0, -1.0]
    # a seat that is finished but not ranked in any other phase is still refused
    bad = g.clone(s)
    bad["phase"], bad["rank"][0], bad["n_finished"] = 5, -1, 0  # PH_PLACE
    with pytest.raises(ValueError, match="rank"):
        g.check_record(bad)


def test_check_record_passes_reached_records_and_names_a_bad_field():
    g = Game("octiles", num_players=3, play_on=True, runners=3, choose_start_circles=True)
    rng = np.random.default_rng(0)
    s = g.new_state(4)
    for _ in range(300):
        assert R.check_record(s) == "", g.render(s)
        g.apply_action(s, g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s))))
    g = Game("octiles", num_players=2)
    s = g.new_state(1)
    g.play_chance(s)
    cases = [("runners", 7, "runners=7 is not valid; it must be >= 2 and <= 5"),
             ("goal_locks", 3, "goal_locks = 3 is outside 0..1"),
             ("cur", 2, "cur = 2 is outside -1..1"),
             ("exch", -1, "exch = -1 in phase place"),
             ("placed", 4, "placed = 4 in phase place")]
    for field, value, msg in cases:
        bad = s.copy()
        bad[field] = value
        assert R.check_record(bad) == msg
    bad = s.copy()
    bad["pos"][1, 0] = bad["pos"][0, 0]
    assert R.check_record(bad) == "pos puts two runners on one point"
    bad = s.copy()
    bad["tile"][3] = bad["exch"]
    assert R.check_record(bad).startswith("a tile is in two places")
    bad = s.copy()
    bad["pos"][0, 1] = P("HN2")
    assert R.check_record(bad) == f"pos[0, 1] = {P('HN2')} (HN2) is a home circle of another side"


@pytest.mark.parametrize("players", [3, 4])
def test_every_action_has_a_name_in_every_state_of_the_setup(players):
    # action names are public and asked for every action, legal or not (the fuzz campaign found a
    # 3-player chance node after the side spaces' setup whose rotation outcomes raised IndexError);
    # an id past the node's ids (the chance outcomes at a chance node, else the actions) is refused
    game = Game("octiles", num_players=players)
    rng = np.random.default_rng(players)
    named = 0
    for seed in range(4):
        s = game.new_state(seed)
        for _ in range(40):  # the setup and the first turns, where the phases change
            if game.is_terminal(s):
                break
            ids = game.info.max_chance_outcomes if game.is_chance(s) else game.num_actions
            for a in range(ids):
                assert game.action_to_string(s, a)
            with pytest.raises(IllegalActionError, match=rf"action {ids} is not an action id here"):
                game.action_to_string(s, ids)
            named += 1
            game.apply_action(s, game.sample_chance(s) if game.is_chance(s)
                              else int(rng.choice(game.legal_actions(s))))
    assert named >= 100


def test_illegal_move_messages_compile_no_kernel_in_the_process_that_asks():
    # the strings call kernels from Python through compiled entry points: a fresh process asking for
    # names, pictures and the messages of illegal moves through a game compiles none of the rules' own
    # kernels (seconds each)
    code = ("import numpy as np\n"
            "from octagames.core import Game\n"
            "from octagames.octiles import rules as R\n"
            "g = Game('octiles', num_players=2)\n"
            "s = g.new_state(3)\n"
            "for step in range(80):\n"
            "    g.play_chance(s)\n"
            "    if g.is_terminal(s):\n"
            "        break\n"
            "    p = g.acting_player(s)\n"
            "    R.render(s, p)\n"
            "    for a in np.flatnonzero(g.legal_mask(s, p) == 0)[step % 5::5]:\n"
            "        R.illegal_reason(s, p, int(a))\n"
            "        R.action_to_string(s, int(a))\n"
            "    g.apply_action(s, int(g.legal_actions(s)[step % len(g.legal_actions(s))]))\n"
            "print(sorted(k for k, f in vars(R).items() if hasattr(f, 'signatures') and f.signatures))\n")
    for _ in range(2):  # the first run may fill a cold cache
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("\n")[0] == "[]", run.stdout
