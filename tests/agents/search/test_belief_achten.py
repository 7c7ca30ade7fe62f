"""The belief agent of Achten: worlds that fit the other seats' moves, by undoing and replaying the round."""

from __future__ import annotations

import numpy as np
import pytest

from octagames.achten.rules import A_KEEP, A_SWAP_ALL, POT0, hand_value3, is_verbied3
from octagames.agents.arena import play_match
from octagames.agents.base import make_turn
from octagames.agents.search.belief_achten import (AchtenBeliefAgent, believed_worlds, fits_the_moves, model_action,
                                                   rollout_values, rollout_wins, undo_move)
from octagames.agents.registry import make_agent
from octagames.core import CHANCE, Game

GAME = Game("achten", num_players=2, deal_penalty=1)


def dealt(seed: int) -> np.void:
    s = GAME.new_state(seed)
    while GAME.current_player(s) == CHANCE:
        GAME.play_chance(s)
    return s


def test_undoing_every_move_of_a_random_round_gives_back_the_deal():
    rng = np.random.default_rng(3)
    for seed in range(200):
        s = dealt(seed)
        deal = np.array(s["slot_card"], dtype=np.int64)
        moves = []
        while not GAME.is_terminal(s):
            p = GAME.acting_player(s)
            a = int(rng.choice(GAME.legal_actions(s)))
            moves.append((p, a))
            GAME.apply_action(s, a)
        cards = np.array(s["slot_card"], dtype=np.int64)
        for p, a in reversed(moves):
            undo_move(cards, p, a)
        assert np.array_equal(cards, deal), f"seed {seed}: {moves}"


def test_the_true_deal_always_fits_when_every_seat_plays_the_model():
    checked = 0
    for seed in range(100):
        s = dealt(seed)
        while not GAME.is_terminal(s):
            p = GAME.acting_player(s)
            misfits, fit = fits_the_moves(GAME, s, p, seed)
            assert misfits == 0 and fit is not None and np.array_equal(fit["slot_card"], s["slot_card"])
            checked += 1
            GAME.apply_action(s, model_action(GAME, s, p))
    assert checked > 300


def test_misfits_count_the_moves_the_model_would_not_have_made():
    # the other seat plays against the model on purpose: each such move is one misfit of the true deal
    for seed in range(30):
        s = dealt(seed)
        wrong = 0
        while not GAME.is_terminal(s):
            p = GAME.acting_player(s)
            legal = [int(a) for a in GAME.legal_actions(s)]
            want = model_action(GAME, s, p)
            a = next((x for x in legal if x != want), want) if p == 1 and seed % 2 == 0 else want
            wrong += a != want
            GAME.apply_action(s, a)
            if GAME.is_terminal(s):
                break
            me = GAME.acting_player(s)
            if me == 0:
                assert fits_the_moves(GAME, s, 0, seed, most=99)[0] == wrong
                if wrong:
                    assert fits_the_moves(GAME, s, 0, seed, most=wrong - 1) == (wrong, None)


def against_the_model(seed: int, moves: int) -> np.void:
    """A round where seat 1 makes ``moves`` moves unlike the model, and seat 0 is to act."""
    s = dealt(seed)
    made = 0
    while not GAME.is_terminal(s):
        p = GAME.acting_player(s)
        if p == 0 and made >= moves:
            return s
        want = model_action(GAME, s, p)
        other = [int(x) for x in GAME.legal_actions(s) if int(x) != want]
        a = other[0] if p == 1 and other else want
        made += p == 1 and a != want
        GAME.apply_action(s, a)
    return s


def test_worlds_with_fewest_misfits_are_kept_first():
    with_misfits = 0
    for seed in range(8):
        s = against_the_model(seed, 2)
        if GAME.is_terminal(s):
            continue
        kept = [0, 0]
        worlds = believed_worlds(GAME, s, 0, np.random.default_rng(seed), worlds=16, tries=300, most=3, kept=kept)
        assert len(worlds) == 16 and 0 < kept[0] <= kept[1] <= 300
        counts = [fits_the_moves(GAME, w, 0, seed, most=99)[0] for w in worlds]
        assert counts == sorted(counts) and counts[-1] <= 3, counts
        for w in worlds:  # every kept world is a world of what seat 0 sees
            assert np.array_equal(GAME.observation(w, 0), GAME.observation(s, 0))
        with_misfits += counts[-1] > 0
    assert with_misfits > 0  # the belief kept worlds that misfit rather than fall back to uniform ones


def test_a_kept_hand_is_believed_cheap_and_a_uniform_deal_is_not():
    # seat 1 chooses first (left of dealer 0); find deals where the model keeps
    seeds = [k for k in range(40) if model_action(GAME, dealt(k), 1) == A_KEEP][:3]
    assert seeds
    agent = AchtenBeliefAgent(worlds=40, tries=2000)
    agent.reset(GAME, 0, 7)
    for seed in seeds:
        s = dealt(seed)
        GAME.apply_action(s, A_KEEP)
        turn = make_turn(GAME, s, 0, seed)
        worlds = agent.believed_worlds(turn)
        assert len(worlds) == 40
        for w in worlds:
            assert np.array_equal(w["slot_card"][:3], s["slot_card"][:3])  # own hand and open pot as seen
            assert np.array_equal(w["slot_card"][POT0:POT0 + 3], s["slot_card"][POT0:POT0 + 3])
            h = [int(c) for c in w["slot_card"][3:6]]
            assert hand_value3(*h) <= 6 and not is_verbied3(*h)  # the heuristic keeps only such hands
        uniform = [GAME.determinize(turn.state, 0, k) for k in range(40)]
        assert max(hand_value3(*[int(c) for c in w["slot_card"][3:6]]) for w in uniform) > 6


def test_it_plays_whole_games_and_keeps_some_worlds():
    agent = AchtenBeliefAgent(worlds=4, tries=100)
    res = play_match(GAME, [agent, make_agent("heuristic", "achten")], 4, seed=1, progress=False)
    assert sum(r.games for r in res.records) == 8 and 0 < agent.kept[0] <= agent.kept[1]


def test_bad_settings_and_other_games_are_refused_by_name():
    with pytest.raises(ValueError, match="worlds=0"):
        AchtenBeliefAgent(worlds=0)
    with pytest.raises(ValueError, match="tries=3"):
        AchtenBeliefAgent(worlds=4, tries=3)
    with pytest.raises(ValueError, match="most=-1"):
        AchtenBeliefAgent(most=-1)
    with pytest.raises(ValueError, match="achten only"):
        make_agent("belief", "octrix")
    with pytest.raises(ValueError, match="number of worlds"):
        make_agent("belief:many", "achten")
    assert make_agent("belief:8", "achten").worlds == 8
    agent = AchtenBeliefAgent()
    with pytest.raises(ValueError, match="achten only"):
        agent.reset(Game("octrix"), 0, 0)
    with pytest.raises(ValueError, match="match=False"):
        agent.reset(Game("achten", match=True), 0, 0)


def playout(s: np.void, seat: int, action: int, own) -> float:
    """One world played on after ``action`` in plain Python: ``own`` for ``seat``'s later moves, the model else."""
    c = GAME.clone(s)
    GAME.apply_action(c, action)
    while not GAME.is_terminal(c):
        p = GAME.acting_player(c)
        GAME.apply_action(c, own(c, p) if p == seat else model_action(GAME, c, p))
    r = GAME.returns(c)
    return 0.5 if r.max() == r.min() else float(r[seat] == r.max())  # two seats: a draw is worth 1/2


def lowest_legal(c: np.void, p: int) -> int:
    return int(GAME.legal_actions(c)[0])


def test_rollouts_play_every_action_in_every_world_by_the_model_or_by_the_policy():
    asked, differ = [], 0
    for seed in range(12):
        s = dealt(seed)
        GAME.apply_action(s, model_action(GAME, s, GAME.acting_player(s)))  # one move into the round
        seat = GAME.acting_player(s)
        legal = [int(a) for a in GAME.legal_actions(s)]
        worlds = believed_worlds(GAME, s, seat, np.random.default_rng(seed), worlds=3, tries=60)
        before = [bytes(np.asarray(w).tobytes()) for w in worlds]

        def lowest(records: np.ndarray, seats: np.ndarray) -> np.ndarray:
            assert (seats == seat).all() and all(GAME.acting_player(r) == seat for r in records)
            asked.append(len(records))
            return np.array([lowest_legal(r, seat) for r in records])

        by_model = rollout_wins(GAME, worlds, seat, legal)
        by_policy = rollout_wins(GAME, worlds, seat, legal, lowest)
        model_own = lambda c, p: model_action(GAME, c, p)  # noqa: E731
        want_model = [sum(playout(w, seat, a, model_own) for w in worlds) for a in legal]
        want_policy = [sum(playout(w, seat, a, lowest_legal) for w in worlds) for a in legal]
        assert np.allclose(by_model, want_model) and np.allclose(by_policy, want_policy), seed
        assert [bytes(np.asarray(w).tobytes()) for w in worlds] == before
        differ += not np.allclose(by_model, by_policy)
    assert differ > 0 and max(asked) > 1  # the policy changed some rollouts, and was asked in batches


def batched_model(records: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The compiled heuristic as a batched model (what a network's greedy policy is to the belief)."""
    return np.array([model_action(GAME, r, int(p)) for r, p in zip(records, seats)])


def test_a_batched_model_keeps_the_worlds_where_it_makes_the_other_seats_moves():
    checked = 0
    for seed in range(40):
        s = dealt(seed)
        for _ in range(int(np.random.default_rng(seed).integers(1, 4))):  # the model plays one to three moves
            if GAME.is_terminal(s):
                break
            GAME.apply_action(s, model_action(GAME, s, GAME.acting_player(s)))
        if GAME.is_terminal(s):
            continue
        seat = GAME.acting_player(s)
        kept = [0, 0]
        worlds = believed_worlds(GAME, s, seat, np.random.default_rng(seed), worlds=6, tries=256, most=0,
                                 kept=kept, model=batched_model)
        assert 0 < kept[0] <= kept[1] <= 256 and len(worlds) == min(6, kept[0])  # some draws fit
        for w in worlds:  # each is the round replayed from a deal where the model makes every move
            assert fits_the_moves(GAME, w, seat, seed)[0] == 0
            assert int(w["nhist"]) == int(s["nhist"]) and list(w["hist_action"]) == list(s["hist_action"])
            assert np.array_equal(GAME.observation(w, seat), GAME.observation(s, seat))
        checked += 1
    assert checked > 30


def test_rollouts_with_a_batched_model_are_those_of_the_compiled_one():
    calls = []

    def counted(records, seats):
        calls.append(len(records))
        return batched_model(records, seats)

    for seed in range(10):
        s = dealt(seed)
        GAME.apply_action(s, model_action(GAME, s, GAME.acting_player(s)))
        seat = GAME.acting_player(s)
        legal = [int(a) for a in GAME.legal_actions(s)]
        worlds = believed_worlds(GAME, s, seat, np.random.default_rng(seed), worlds=3, tries=60)
        assert np.array_equal(rollout_values(GAME, worlds, seat, legal, model=counted),
                              rollout_values(GAME, worlds, seat, legal))
        assert np.array_equal(rollout_values(GAME, worlds, seat, legal, lowest_legal_batch(seat), model=counted),
                              rollout_values(GAME, worlds, seat, legal, lowest_legal_batch(seat)))
    assert max(calls) > 1  # asked in batches


def lowest_legal_batch(seat: int):
    def policy(records: np.ndarray, seats: np.ndarray) -> np.ndarray:
        assert (seats == seat).all()
        return np.array([lowest_legal(r, seat) for r in records])
    return policy
