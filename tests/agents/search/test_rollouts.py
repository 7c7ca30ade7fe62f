"""Paired rollouts by the compiled heuristic (``octagames.agents.search.rollouts``, spec ``rollout``)."""

import numpy as np
import pytest

from octagames.agents.arena import play_match
from octagames.agents.base import make_turn
from octagames.agents.search.mcts import win_values
from octagames.agents.registry import make_agent
from octagames.agents.search.rollouts import (RolloutAgent, believed_worlds, kernels, model_action, paired_choice,
                                       paired_stats, pruned_values, rollout_values, rollout_wins)
from octagames.core import Game


def test_paired_choice_keeps_the_base_unless_a_gain_is_clear():
    # 8 worlds; action 1 wins in every world where the base (0) loses: a clear gain
    clear = np.array([[0, 1, 0]] * 8, float)
    assert paired_choice(clear, 0, 1.0) == 1
    # action 1 wins one more world in 8 and loses none: mean 1/8, standard error 1/8 (ddof=1: 0.125)
    one = np.zeros((8, 2))
    one[0, 1] = 1.0
    assert paired_choice(one, 0, 0.5) == 1
    assert paired_choice(one, 0, 1.0) == 0  # 0.125 is not above 1.0 x 0.125
    # equal values: the base keeps the tie; a worse action is never a candidate
    assert paired_choice(np.ones((4, 3)), 2, 0.0) == 2
    worse = np.array([[1, 0], [1, 1], [1, 0], [1, 1]], float)
    assert paired_choice(worse, 0, 0.0) == 0
    # the largest clear gain wins; a vote decides among the candidates only
    two = np.array([[0, 1, 1, 0]] * 6 + [[0, 1, 0, 0]] * 2, float)
    assert paired_choice(two, 0, 1.0) == 1
    assert paired_choice(two, 0, 1.0, vote=np.array([0.0, 0.0, 0.5, 0.0])) == 2
    assert paired_choice(two, 0, 1.0, vote=np.array([0.0, 0.0, 0.0, 5.0])) == 1  # 3 is no candidate
    assert paired_choice(np.ones((4, 2)), 0, 0.0, vote=np.array([0.0, 1.0])) == 0
    with pytest.raises(ValueError, match="margin=-1"):
        paired_choice(clear, 0, -1)
    with pytest.raises(ValueError, match="base=3"):
        paired_choice(clear, 3, 1.0)


def test_pruning_stops_playing_an_action_clearly_worse_than_the_base():
    # world w: the base (0) wins, action 1 loses, action 2 ties the base, action 3 wins where the base
    # loses in every third world (a gain, never worse)
    table = np.array([[1, 0, 1, 1]] * 100, float)
    table[::3, 0], table[::3, 2] = 0.0, 0.0
    calls = []

    def play(worlds, idx):
        calls.append((len(worlds), list(idx)))
        return table[worlds][:, idx]

    values = pruned_values(play, list(range(100)), 4, base=0, chunk=32)
    assert calls == [(32, [0, 1, 2, 3]), (32, [0, 2, 3]), (32, [0, 2, 3]), (4, [0, 2, 3])]
    assert np.isnan(values[32:, 1]).all() and not np.isnan(values[:, [0, 2, 3]]).any()
    assert np.array_equal(values[:, [0, 2, 3]], table[:, [0, 2, 3]])
    mean, se = paired_stats(values, 0)
    assert mean[1] == pytest.approx(-21 / 32) and mean[3] == pytest.approx(34 / 100)  # over the worlds played
    assert paired_choice(values, 0, 1.0) == 3
    # with drop=0 every action plays every world; a pruned action never decides
    assert not np.isnan(pruned_values(play, list(range(100)), 4, base=0, chunk=32, drop=0.0)).any()
    only = pruned_values(play, list(range(100)), 2, base=0, chunk=10)
    assert np.isnan(only[10:]).all() and calls[-1] == (10, [0, 1])  # the base alone left: no more playouts
    with pytest.raises(ValueError, match="chunk=1"):
        pruned_values(play, [0, 1], 2, base=0, chunk=1)


def python_playout(g: Game, world: np.void, action: int, seat: int) -> float:
    """``seat``'s win value after ``action`` in ``world`` and the game played to its end by the
    compiled heuristic for every seat, step by step through the Python API (the heuristic draws its
    rare random choice from the record's RNG, as in a playout)."""
    arr = np.array(world, dtype=g.dtype).reshape(1)
    s = arr[0]  # a view: the policy's RNG draws land in the record
    g.apply_action(s, action)
    out = np.zeros(1, np.int64)
    while not g.is_terminal(s):
        if g.is_chance(s):
            g.apply_action(s, g.sample_chance(s))
        else:
            p = g.acting_player(s)
            kernels(g).policy_many(arr, np.array([p]), g.legal_mask(s, p).astype(np.uint8)[None, :], out)
            g.apply_action(s, int(out[0]))
    win = np.zeros(g.num_players)
    win_values(g.returns(s), g.num_players, win)
    return float(win[seat])


def decisions(g: Game, seed: int, every: int):
    """Every ``every``-th decision with several legal actions of a game played by the model."""
    s = g.new_state(seed)
    k = 0
    while not g.is_terminal(s):
        if g.is_chance(s):
            g.apply_action(s, g.sample_chance(s))
            continue
        p = g.acting_player(s)
        if len(g.legal_actions(s)) > 1:
            k += 1
            if k % every == 0:
                yield s.copy(), p
        g.apply_action(s, model_action(g, s, p))


@pytest.mark.parametrize("rules", ["en", "nl"])
def test_compiled_rollouts_equal_a_python_playout_in_every_world(rules):
    g = Game("octa", rules=rules)
    checked = 0
    for s, p in decisions(g, seed=3, every=40):
        legal = [int(a) for a in g.legal_actions(s)]
        worlds = believed_worlds(g, s, p, np.random.default_rng(checked), 3)
        before = [w.tobytes() for w in worlds]
        values = rollout_values(g, worlds, p, legal)
        assert values.shape == (3, len(legal))
        assert [w.tobytes() for w in worlds] == before  # the worlds are not changed
        for w, world in enumerate(worlds):
            for i, a in enumerate(legal):
                assert values[w, i] == python_playout(g, world, a, p)
        assert np.array_equal(rollout_wins(g, worlds, p, legal), values.sum(axis=0))
        checked += 1
    assert checked >= 2
    with pytest.raises(ValueError, match="network rollout policy is not available"):
        rollout_values(g, worlds, p, legal, policy=lambda r, q: np.zeros(len(r), np.int64))


def test_worlds_keep_what_the_seat_sees_and_differ_in_what_it_does_not():
    g = Game("octa", rules="en")
    s, p = next(decisions(g, seed=1, every=5))
    worlds = believed_worlds(g, s, p, np.random.default_rng(0), 6)
    own = g.observation(s, p)
    for w in worlds:
        assert np.array_equal(g.observation(w, p), own)
    assert len({w.tobytes() for w in worlds}) == 6


def test_the_agent_plays_the_heuristic_unless_the_paired_rollouts_beat_it():
    g = Game("octa", rules="en")
    checked = 0
    for seed in (2, 5):
        for s, p in decisions(g, seed=seed, every=15):
            turn = make_turn(g, s, p, seed)
            legal = [int(a) for a in turn.legal_actions]
            base = legal.index(model_action(g, turn.state, p))
            agent = RolloutAgent(worlds=8, margin=0.5)
            agent.reset(g, p, seed)
            chosen = agent.act(turn)
            worlds = believed_worlds(g, turn.state, p, np.random.default_rng(seed), 8)
            values = pruned_values(lambda ws, idx: rollout_values(g, ws, p, [legal[i] for i in idx]), worlds,
                                   len(legal), base)
            assert chosen == legal[paired_choice(values, base, 0.5)]
            stubborn = RolloutAgent(worlds=8, margin=1e9)
            stubborn.reset(g, p, seed)
            assert stubborn.act(turn) == legal[base]
            checked += 1
    assert checked >= 6


def test_the_rollout_spec_and_its_refusals():
    g = Game("octa", rules="nl")
    agent = make_agent("rollout:4:m=0.5", "octa")
    assert (agent.worlds, agent.margin) == (4, 0.5)
    assert (make_agent("rollout", "achten").worlds, make_agent("rollout:16", "octa").margin) == (128, 1.0)
    res = play_match(g, [agent, make_agent("heuristic", "octa")], num_games=1, seed=0, progress=False)
    assert res.records[0].games == 1
    achten = Game("achten", deal_penalty=1)  # every game with a compiled heuristic
    res = play_match(achten, [make_agent("rollout:4", "achten"), make_agent("heuristic", "achten")], num_games=2,
                     seed=0, progress=False)
    assert res.records[0].games == 2
    with pytest.raises(ValueError, match="not available for game 'octrix'"):
        make_agent("rollout", "octrix")
    for bad in ("rollout:x", "rollout:8:z=1", "rollout:8:m=x"):
        with pytest.raises(ValueError, match="number of worlds"):
            make_agent(bad, "octa")
    with pytest.raises(ValueError, match="worlds=1"):
        RolloutAgent(worlds=1)
    with pytest.raises(ValueError, match="margin=-0.5"):
        RolloutAgent(margin=-0.5)
    with pytest.raises(ValueError, match="'octiles' has none"):
        RolloutAgent().reset(Game("octiles"), 0, 0)


def test_a_margin_that_is_not_a_finite_number_is_refused_naming_the_spec():
    # float() reads nan and inf, and nan passes a check of "margin < 0" (every comparison with nan is false)
    for margin in ("nan", "NaN", "inf", "-inf", "infinity"):
        with pytest.raises(ValueError, match=f"agent 'rollout:10:m={margin}'.*not a finite number"):
            make_agent(f"rollout:10:m={margin}", "octa")
    for margin in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite number >= 0"):
            RolloutAgent(margin=margin)
    assert make_agent("rollout:10:m=0", "octa").margin == 0.0
