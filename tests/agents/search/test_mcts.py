"""MCTS: known answers, no peeking, determinism, isolation, evaluators, agent interface."""

import re

import numpy as np
import pytest

import octagames.achten as achten
from octagames.agents.arena import play_match
from octagames.agents.base import RandomAgent, make_turn
from octagames.agents.search.mcts import (MCTS, AgentRollout, CompiledRollout, MCTSAgent, MCTSConfig, PolicyValue,
                         lowest_action_policy, zero_sum_values)
from octagames.agents.registry import make_agent
from octagames.core import CHANCE, TERMINAL, Game, available_games


def octrix_endgame() -> tuple[Game, np.void]:
    """Two players, three tricks left, open hands: only ♠2 wins, whatever P1 does.

    P0 holds ♥5 ♠2 ♦2 (counting cards 1, 3, 4), P1 holds ♥7 ♦5 ♦4 (2, 5); the
    lowest card wins trick 6. P0's round return against P1's ♦4 / ♦5 / ♥7 with
    best play afterwards (every later 2x2 game has a saddle point): ♦2 -> 0 / 0 / 6,
    ♠2 -> 6 / 6 / 12, ♥5 -> -4 / -4 / 4. ♠2 dominates and is the only card
    that wins against every reply.
    """
    g = Game("octrix-round")
    s = g.new_state(101)
    g.play_chance(s)
    g.apply_actions(s, [30, 9, 26, 8, 14, 19, 13, 10, 11, 1])
    assert g.legal_actions(s, 0) == [4, 6, 17] and g.legal_actions(s, 1) == [12, 16, 25]
    return g, s


def achten_verbied() -> tuple[Game, np.void]:
    """P0 to move; swapping ♠Q into the pot (action 4) lays verbied ♠A ♠K ♠Q."""
    g = Game("achten")
    s = g.new_state(0)
    deal = [[42, 0, 7], [28, 37, 11], [50, 46, 13], [20]]  # P0, P1, pot, closed card
    g.apply_actions(s, achten.deal_outcomes(s, deal))
    g.apply_action(s, achten.rules.A_KEEP)  # P1's first choice
    assert g.acting_player(s) == 0
    return g, s


def random_decisions(game: Game, seed: int, max_games: int):
    """Every decision ``(state, acting seat)`` along ``max_games`` seeded random games."""
    rng = np.random.default_rng(seed)
    for k in range(max_games):
        s = game.new_state(seed + k)
        while not game.is_terminal(s):
            if game.is_chance(s):
                game.apply_action(s, game.sample_chance(s))
                continue
            yield s, game.acting_player(s)
            game.apply_action(s, int(rng.choice(game.legal_actions(s))))


def win_in_one(game: Game, seed: int, max_games: int = 50) -> tuple[np.void, set[int]]:
    """A position found by random play where some, but not all, legal actions win at once."""
    for s, p in random_decisions(game, seed, max_games):
        legal = game.legal_actions(s)
        wins = set()
        for a in legal:
            c = game.clone(s)
            game.apply_action(c, a)
            if game.is_terminal(c):
                r = game.returns(c)
                if r[p] > 0 and r[p] == r.max():
                    wins.add(a)
        if wins and len(wins) < len(legal):
            return game.clone(s), wins
    raise AssertionError(f"no win-in-one position in {max_games} random {game.name} games")


# games with perfect information and sequential moves: the generic win-in-one test
SEQUENTIAL_PERFECT = [n for n in available_games()
                      if Game(n).info.information == "perfect" and Game(n).info.dynamics == "sequential"]


def test_octrix_finds_the_forced_win():
    g, s = octrix_endgame()
    for seed in range(3):
        r = MCTS(g, MCTSConfig(num_simulations=3000)).search(s, 0, seed)
        assert r.action == 6, (seed, r.visits[[4, 6, 17]])


def test_octrix_second_seat_decides_without_seeing_the_first():
    # seat 1 searches after seat 0 committed face down: the best reply is the same
    g, s = octrix_endgame()
    g.apply_action(s, 6)
    turn = make_turn(g, s, 1, seed=5)
    r = MCTS(g, MCTSConfig(num_simulations=2000)).search(turn.state, 1, 0)
    assert r.action in (12, 16, 25) and r.simulations == 2000


def test_achten_lays_verbied():
    g, s = achten_verbied()
    for seed in range(3):
        turn = make_turn(g, s, 0, seed)
        r = MCTS(g, MCTSConfig(num_simulations=3000)).search(turn.state, 0, seed)
        assert r.action == 4, (seed, g.action_to_string(s, r.action))


@pytest.mark.parametrize("name", SEQUENTIAL_PERFECT)
def test_win_in_one_on_sequential_perfect_information_games(name):
    # Octiles: random games under the default reading seldom end (runners leave their goals again);
    # with goal_locks they end within a few hundred actions, so the search for a position stays short
    g = Game(name, **({"goal_locks": True} if name == "octiles" else {}))
    s, wins = win_in_one(g, seed=0)
    r = MCTS(g, MCTSConfig(num_simulations=1500)).search(s, g.acting_player(s), 0)
    assert r.action in wins, (g.action_to_string(s, r.action), sorted(wins))


def octiles_win_in_two(seed: int, max_games: int = 50) -> tuple[Game, np.void, set[int]]:
    """An Octiles placement decision (found by random play) after which some, but not all,
    placements let the mover bring its last runner home: a forced win in two actions."""
    from octagames.octiles import rules as R
    from octagames.specialize import cached
    g = Game("octiles")
    rows = np.zeros((R.MAX_TURN_CHOICES, 3), dtype=np.int32)
    for s, p in random_decisions(g, seed, max_games):
        if int(s["phase"]) != R.PH_PLACE:
            continue
        wins = set()
        for place, move, _end in rows[:int(cached(R.list_turns)(s, rows))]:
            c = g.clone(s)
            g.apply_actions(c, [int(place), int(move)])
            while g.is_chance(c):
                g.apply_action(c, g.sample_chance(c))
            if g.is_terminal(c) and g.returns(c)[p] > 0:
                wins.add(int(place))
        if wins and len(wins) < len(g.legal_actions(s)):
            return g, g.clone(s), wins
    raise AssertionError(f"no win-in-two position in {max_games} random Octiles games")


@pytest.mark.parametrize("evaluator", ["random playouts", "leaf value"])
def test_octiles_finds_the_win_in_two(evaluator):
    from octagames.agents.search.mcts import CompiledValue, RandomRollout
    from octagames.agents.heuristics.octiles import octiles_value
    g, s, wins = octiles_win_in_two(seed=3)
    p = g.acting_player(s)
    ev = RandomRollout() if evaluator == "random playouts" else CompiledValue(octiles_value)
    for seed in range(2):
        r = MCTS(g, MCTSConfig(num_simulations=4000), ev).search(s, p, seed)
        assert r.action in wins, (g.action_to_string(s, r.action), sorted(wins))
        # the winning placement is worth a sure win once found
        assert r.values[r.action] > 0.9


def test_compiled_achten_playout_plays_like_the_python_heuristic():
    from octagames.agents.heuristics.achten import AchtenHeuristicAgent, achten_playout
    from octagames.achten import rules as R
    g = Game("achten", num_players=3)
    agent = AchtenHeuristicAgent()
    rng = np.random.default_rng(0)
    checked = fallback = 0
    for seed in range(150):
        s = g.new_state(seed)
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            p = g.acting_player(s)
            mask = g.legal_mask(s, p)
            compiled = int(achten_playout(g.clone(s), p, mask, int(mask.sum())))
            assert mask[compiled], g.action_to_string(s, compiled)
            agent.reset(g, p, seed)
            expected = int(agent.act(make_turn(g, s, p, seed)))
            # the last resort (a random legal action) may differ; every rule above it must agree
            if int(s["phase"]) != R.PH_FIRST and mask[R.A_PASS] == 0 and mask[R.A_STAND] == 0 \
                    and s["known"][p, R.CLOSED] and expected not in range(R.A_SWAP, R.A_CLAW + 1):
                fallback += 1
            else:
                assert compiled == expected, (g.render(s), g.action_to_string(s, compiled),
                                              g.action_to_string(s, expected))
                checked += 1
            g.apply_action(s, int(rng.choice(np.flatnonzero(mask))))
    assert checked > 1000


def test_no_peeking_at_face_down_commitments():
    # seat 1's information state is the same whichever card seat 0 committed face down
    g, s = octrix_endgame()
    results = []
    for card in (4, 6, 17):
        t = g.clone(s)
        g.apply_action(t, card)
        obs = g.observation(t, 1)
        results.append((obs, MCTS(g, MCTSConfig(num_simulations=500)).search(t, 1, seed=11)))
    for obs, r in results[1:]:
        np.testing.assert_array_equal(obs, results[0][0])
        np.testing.assert_array_equal(r.visits, results[0][1].visits)
        np.testing.assert_array_equal(r.values, results[0][1].values)


def test_no_peeking_at_the_closed_pot():
    # P1's first choice with a bad hand (♣3 ♦4 ♠K, 14 points): keep it or swap it for the
    # closed pot. A search that peeked would swap for a nul pot (8 8 8) and keep its hand
    # rather than take a worse pot (2 2 2, 18 points); P1's information state is the same
    # in both, so the decision must be the same: swap. Dealing costs a point here, so the
    # hand's quality matters (without it almost every round is a 0-0 draw).
    g = Game("achten", deal_penalty=1.0)
    chosen = []
    for pot in ([24, 25, 27], [0, 1, 3]):
        s = g.new_state(0)
        g.apply_actions(s, achten.deal_outcomes(s, [[45, 30, 8], [4, 9, 46], pot, [40]]))
        assert g.acting_player(s) == 1
        chosen.append((g.observation(s, 1), MCTS(g, MCTSConfig(num_simulations=2000)).search(s, 1, 0)))
    (obs_a, a), (obs_b, b) = chosen
    np.testing.assert_array_equal(obs_a, obs_b)
    assert a.action == b.action == achten.rules.A_SWAP_ALL


def test_same_seed_same_result_and_state_untouched():
    for name in available_games():
        g = Game(name)
        s = g.new_state(3)
        g.play_chance(s)
        p = g.acting_player(s)
        before = g.to_bytes(s)
        m = MCTS(g, MCTSConfig(num_simulations=300))
        a, b = m.search(s, p, 7), m.search(s, p, 7)
        assert g.to_bytes(s) == before, name
        assert a.action == b.action, name
        np.testing.assert_array_equal(a.visits, b.visits)
        assert a.visits.sum() == 300 and g.legal_mask(s, p)[a.action]


def test_different_seeds_explore_differently():
    g, s = achten_verbied()
    m = MCTS(g, MCTSConfig(num_simulations=200))
    assert not np.array_equal(m.search(s, 0, 1).visits, m.search(s, 0, 2).visits)


def test_tree_bound_and_time_budget():
    g, s = octrix_endgame()
    r = MCTS(g, MCTSConfig(num_simulations=2000, max_nodes=50)).search(s, 0, 0)
    assert r.nodes <= 50 and r.simulations == 2000 and r.action in (4, 6, 17)
    r = MCTS(g, MCTSConfig(num_simulations=10**9, time_limit=0.05)).search(s, 0, 0)
    assert 0 < r.simulations < 10**9 and r.seconds < 2.0


def test_wrong_player_and_bad_config_are_refused():
    g, s = octrix_endgame()
    g.apply_action(s, 6)
    with pytest.raises(ValueError, match="acting seat"):
        MCTS(g, MCTSConfig(num_simulations=10)).search(s, 0, 0)
    with pytest.raises(ValueError, match="num_simulations"):
        MCTSConfig(num_simulations=0)
    with pytest.raises(ValueError, match="chance_branching"):
        MCTSConfig(chance_branching="sometimes")


def test_compiled_rollout_policy_is_used():
    g, s = octrix_endgame()
    r = MCTS(g, MCTSConfig(num_simulations=500), CompiledRollout(lowest_action_policy)).search(s, 0, 0)
    assert r.action in (4, 6, 17)
    with pytest.raises(ValueError, match="module-level"):
        import numba

        @numba.njit
        def local_policy(s, player, mask, n):
            return 0
        MCTS(g, MCTSConfig(num_simulations=10), CompiledRollout(local_policy))


def test_python_agent_rollouts():
    g, s = octrix_endgame()
    ev = AgentRollout(lambda game: [make_agent("heuristic", "octrix"), make_agent("heuristic", "octrix")])
    r = MCTS(g, MCTSConfig(num_simulations=120), ev).search(s, 0, 0)
    assert r.action == 6 and r.simulations == 120


def test_policy_value_prior_steers_the_search():
    # a prior that puts all its mass on one legal card with a neutral value: PUCT follows it
    g, s = achten_verbied()
    calls = []

    def fn(obs, mask, players):
        calls.append(len(obs))
        priors = np.where(mask > 0, 1e-3, 0.0)
        priors[:, 10] = 1.0
        return priors, zero_sum_values(np.zeros(len(obs)), players, 2)

    cfg = MCTSConfig(num_simulations=64, batch_size=8, exploration=5.0)
    r = MCTS(g, cfg, PolicyValue(fn)).search(s, 0, 0)
    assert r.action == 10 and sum(calls) == 64 and max(calls) == 8


def test_policy_value_with_true_values_finds_verbied():
    g, s = achten_verbied()

    def fn(obs, mask, players):
        priors = mask.astype(float)
        return priors, np.zeros((len(obs), 2))  # uniform prior, value 0: terminal returns decide

    r = MCTS(g, MCTSConfig(num_simulations=400, batch_size=4), PolicyValue(fn)).search(s, 0, 0)
    assert r.action == 4


def test_agent_in_the_arena_and_registry():
    agent = make_agent("mcts:50", "octrix-round")
    assert isinstance(agent, MCTSAgent) and agent.config.num_simulations == 50
    with pytest.raises(ValueError, match="number of simulations"):
        make_agent("mcts:many", "octrix")
    with pytest.raises(ValueError, match="'greedy' is not valid"):
        make_agent("mcts:50:greedy", "octrix")
    result = play_match("octrix-round", [agent, RandomAgent()], num_games=6, seed=0, progress=False)
    assert result.records[0].wins >= 5


def test_octiles_agents_search_with_the_leaf_value_by_default():
    from octagames.agents.heuristics.octiles import octiles_value
    from octagames.agents.search.mcts import CompiledValue, RandomRollout, default_evaluator
    ev = default_evaluator(Game("octiles"))
    assert isinstance(ev, CompiledValue) and ev.value is octiles_value and ev.rollout_steps == 0
    assert isinstance(default_evaluator(Game("octrix")), RandomRollout)
    plain = make_agent("mcts:30:random", "octiles")
    assert isinstance(plain.evaluator, RandomRollout) and plain.name == "mcts:30:random"
    with pytest.raises(ValueError, match="rollout_steps"):
        CompiledValue(octiles_value, rollout_steps=-1)
    # with the value, 30 simulations a move beat random play (long random games say little)
    result = play_match("octiles", [make_agent("mcts:30", "octiles"), RandomAgent()], num_games=4,
                        seed=0, progress=False)
    assert result.records[0].wins == 4


def test_octiles_value_ranks_progress_and_credits_the_best_move():
    from octagames.agents.heuristics.octiles import goal_distance, octiles_value
    from octagames.octiles import rules as R
    g, s, wins = octiles_win_in_two(seed=3)
    p = g.acting_player(s)
    out = np.zeros(4)
    octiles_value(s, out)
    dist = [sum(goal_distance(s, q, int(x)) for x in s["pos"][q, :int(s["runners"])]) for q in range(2)]
    assert np.sign(out[p] - out[1 - p]) == np.sign(dist[1 - p] - dist[p])
    assert out[p] == pytest.approx(np.tanh((dist[1 - p] - dist[p]) / 4.0))
    # after the winning placement the mover is credited with the move that brings it home
    c = g.clone(s)
    g.apply_action(c, next(iter(wins)))
    assert int(c["phase"]) == R.PH_MOVE
    after = np.zeros(4)
    octiles_value(c, after)
    assert after[p] > out[p]


@pytest.mark.parametrize("config", [dict(num_players=3), dict(num_players=4), dict(num_players=4, team=True),
                                    dict(num_players=4, play_on=True)])
def test_octiles_value_with_more_seats_is_the_expected_return(config):
    """Three or four seats: each seat's value is its expected return when its chance to win is a softmax of
    the progresses (so the closest rival matters, not the mean); teams: tanh of the lead over the other team;
    playing on for ranks: the mean over the others of tanh of the lead over each."""
    from octagames.agents.heuristics.octiles import VALUE_SCALE, goal_distance, octiles_value
    from octagames.octiles import rules as R
    g = Game("octiles", **config)
    n, seen = g.num_players, 0
    for s, _p in random_decisions(g, seed=5, max_games=2):
        if int(s["phase"]) != R.PH_PLACE:
            continue
        out = np.zeros(4)
        octiles_value(s, out)
        prog = np.array([-sum(goal_distance(s, q, int(x)) for x in s["pos"][q, :int(s["runners"])])
                         for q in range(n)], dtype=float)
        if config.get("team"):
            side = prog[[0, 1]] + prog[[2, 3]]
            prog = side[np.arange(n) % 2]
            want = np.tanh((prog - side[1 - np.arange(n) % 2]) / VALUE_SCALE)
        elif config.get("play_on"):
            want = np.array([np.mean([np.tanh((prog[p] - prog[q]) / VALUE_SCALE) for q in range(n) if q != p])
                             for p in range(n)])
        else:
            win = np.exp(2.0 * (prog - prog.max()) / VALUE_SCALE)
            win /= win.sum()
            want = win - (1.0 - win) / (n - 1)
        np.testing.assert_allclose(out[:n], want, rtol=1e-12, atol=1e-12)
        assert abs(out[:n].sum()) < 1e-9  # zero-sum, as the returns are
        assert int(np.argmax(out[:n])) in np.flatnonzero(prog == prog.max())
        seen += 1
    assert seen > 20


def test_every_game_plays_with_mcts():
    for name in available_games():
        g = Game(name)
        agents = [MCTSAgent(MCTSConfig(num_simulations=10, max_rollout=200))]
        agents += [RandomAgent() for _ in range(g.num_players - 1)]
        s = g.new_state(1)
        for p, a in enumerate(agents):
            a.reset(g, p, p)
        steps = 0
        while g.current_player(s) != TERMINAL and steps < 40:
            cp = g.current_player(s)
            if cp == CHANCE:
                g.apply_action(s, g.sample_chance(s))
            else:
                p = g.acting_player(s)
                g.apply_action(s, agents[p].act(make_turn(g, s, p, steps)))
            steps += 1
        assert steps == 40 or g.is_terminal(s), name


def test_win_values_follow_the_arena_rule():
    from octagames.agents.search.mcts import win_values
    out = np.full(4, 9.0)
    win_values(np.array([0.3, -0.3, 0.0, 0.0]), 2, out)
    assert out.tolist() == [1.0, 0.0, 0.0, 0.0]  # seats beyond num_players get 0
    win_values(np.array([-1.0, -1.0, 0.0, 0.0]), 2, out)
    assert out.tolist() == [0.5, 0.5, 0.0, 0.0]  # all equal: a draw
    win_values(np.array([-1.0, 2.0, -1.0, 2.0]), 4, out)
    assert out.tolist() == [0.0, 1.0, 0.0, 1.0]  # partners with the best return both win


def test_win_objective_values_a_certain_win_fully():
    # laying verbied ends the round at once with +0.1 (no dealing penalty here): a small
    # score (0.545 of the utility range [-1.1, 1.1]) but nearly always the best return
    g, s = achten_verbied()
    turn = make_turn(g, s, 0, seed=0)
    score = MCTS(g, MCTSConfig(num_simulations=2000)).search(turn.state, 0, 0)
    win = MCTS(g, MCTSConfig(num_simulations=2000, objective="win")).search(turn.state, 0, 0)
    assert score.action == win.action == 4
    assert abs(score.values[4] - 1.2 / 2.2) < 0.02 and win.values[4] > 0.95
    with pytest.raises(ValueError, match="objective='best'.*valid values"):
        MCTSConfig(objective="best")


def test_agent_specs_with_options_and_per_game_exploration():
    from octagames.agents.heuristics.achten import achten_value
    from octagames.agents.search.mcts import CompiledValue, default_evaluator
    a = make_agent("mcts:200:win:c=0.5", "octrix")
    assert (a.config.num_simulations, a.config.objective, a.config.exploration) == (200, "win", 0.5)
    assert a.name == "mcts:200:win:c=0.5"
    with pytest.raises(ValueError, match="c=<number>"):
        make_agent("mcts:200:c=big", "octrix")
    # None: the game's default constant
    assert MCTS(Game("achten")).exploration == 0.35 and MCTS(Game("octrix")).exploration == 1.4
    assert MCTS(Game("achten"), MCTSConfig(exploration=2.0)).exploration == 2.0
    ev = default_evaluator(Game("achten"))
    assert isinstance(ev, CompiledValue) and ev.value is achten_value and ev.rollout_steps == 0


@pytest.mark.parametrize("config", [dict(num_players=2, deal_penalty=1.0), dict(num_players=3, deal_penalty=0.5)])
def test_achten_value_is_the_showdown_held_now(config):
    # at every normal turn of random games: pass, let the others stand, and the engine's
    # showdown returns are the value computed before the pass (the hands did not change)
    from octagames.agents.heuristics.achten import achten_value
    from octagames.achten.rules import A_PASS, A_STAND, PH_TURNS
    g = Game("achten", **config)
    checked = 0
    for s, p in random_decisions(g, seed=11, max_games=150):
        if int(s["phase"]) != PH_TURNS:
            continue
        out = np.zeros(6)
        achten_value(s, out)
        c = g.clone(s)
        g.apply_action(c, A_PASS)
        while not g.is_terminal(c):
            g.apply_action(c, A_STAND)
        np.testing.assert_allclose(out[:g.num_players], g.returns(c), atol=1e-12)
        checked += 1
    assert checked > 100


def test_random_playouts_draw_with_the_rules_own_sampler():
    # Octiles has the contract's optional random_legal_action; other games and other
    # playout policies go through legal_mask
    from octagames.agents.search.mcts import search_kernels

    def fast(kernels):
        return kernels.rollout.py_func.__globals__["FAST_RANDOM"]

    octiles = Game("octiles").module
    assert fast(search_kernels(octiles)) is True
    assert fast(search_kernels(Game("octrix").module)) is False
    assert fast(search_kernels(octiles, CompiledRollout(lowest_action_policy).policy)) is False
    # the fast playout plays a game from its first decision to the end
    g = Game("octiles")
    s = g.new_state(2)
    g.play_chance(s)
    c = g.clone(s).reshape(1)
    steps = search_kernels(octiles).rollout(c[0], np.zeros(g.num_actions, np.uint8), 10**6)
    assert g.is_terminal(c[0]) and 0 < steps < 10**6


@pytest.mark.parametrize("field,value,words", [
    ("num_simulations", 2.5, "num_simulations=2.5 must be an integer"),
    ("num_simulations", True, "num_simulations=True must be an integer"),
    ("num_simulations", 10**20, f"num_simulations={10**20} is not valid; it must be >= 1 and <= {2**63 - 1}"),
    ("max_nodes", 100.5, "max_nodes=100.5 must be an integer"),
    ("max_nodes", 2**31, f"max_nodes={2**31} is not valid; it must be >= 2 and <= {2**31 - 1}"),
    ("batch_size", 2.5, "batch_size=2.5 must be an integer"),
    ("max_rollout", -3, "max_rollout=-3 is not valid; it must be >= 1"),
    ("max_rollout", 2.5, "max_rollout=2.5 must be an integer"),
    ("exploration", float("nan"), "exploration=nan is not valid; it must be a finite number >= 0"),
    ("exploration", True, "exploration=True is not valid; it must be a finite number >= 0"),
    ("time_limit", True, "time_limit=True is not valid; it must be a number > 0 or None"),
    ("time_limit", float("nan"), "time_limit=nan is not valid; it must be a number > 0 or None"),
])
def test_a_search_setting_of_the_wrong_type_or_past_its_range_is_refused_naming_it(field, value, words):
    # 2.5 simulations, True, exploration=nan and max_rollout=-3 searched without a word; a float max_nodes
    # failed in numpy, and mcts:<20 digits> in numba's typing at the first move
    with pytest.raises(ValueError, match=re.escape(words)):
        MCTSConfig(**{field: value})
    assert MCTSConfig(**{field: np.int64(3) if field != "exploration" else np.float32(0.5)})  # numpy numbers


def test_a_spec_asking_more_simulations_than_the_search_counts_is_refused_when_built():
    spec = f"mcts:{10**20}"
    with pytest.raises(ValueError, match=re.escape(f"agent '{spec}': num_simulations={10**20} is not valid")):
        make_agent(spec, "octrix")


@pytest.mark.parametrize("spec,words", [
    ("mcts:10:random:heuristic", "'heuristic' repeats the playouts ('random')"),
    ("mcts:10:c=0.5:c=0.7", "'c=0.7' repeats the exploration ('c=0.5')"),
    ("mcts:10:win:win", "'win' repeats the objective ('win')"),
])
def test_a_spec_giving_an_option_twice_is_refused_not_read_as_its_last(spec, words):
    # the last one won without a word: a table row named mcts:10:random:heuristic played heuristic playouts
    with pytest.raises(ValueError, match=re.escape(f"agent '{spec}': {words}; each option is given once")):
        make_agent(spec, "achten")
