"""The compiled Octa heuristic (``octa_playout``, and each rulebook's alone: ``en_playout``, ``nl_playout``):
against the Python agent it ports, and as the playouts of MCTS (``mcts:<n>:heuristic``) and of the AlphaZero
search (``playout_mix``)."""

import dataclasses

import numpy as np
import pytest

from octagames.agents.learn.az import BatchedSearch, PriorHint, SearchConfig
from octagames.agents.base import make_turn
from octagames.agents.heuristics.achten import achten_playout
from octagames.agents.heuristics.octa import OctaHeuristicAgent, en_playout, nl_playout, octa_playout
from octagames import catalogue
from octagames.agents.search import mcts
from octagames.agents.search.mcts import CompiledRollout, playout_kernels, playout_policy
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.octa import en, nl


class _FlagRNG:
    """Stands in for the agent's generator and records whether a choice was left to chance."""

    def __init__(self) -> None:
        self.called = False

    def integers(self, n: int) -> int:
        self.called = True
        return 0


def _compiled(g: Game, s, p: int, mask: np.ndarray) -> int:
    """The compiled heuristic's choice for seat ``p`` in ``s`` (the rulebook's own policy, ``playout_policy(g)``),
    through the playout kernels the warm-up caches (``policy_many`` over one record: this process compiles
    none of the engine); ``s``'s RNG advances as a call of the policy on it would advance it."""
    recs = np.array(s, dtype=g.dtype).reshape(1)
    out = np.zeros(1, np.int64)
    playout_kernels(g.kernel_module, playout_policy(g)).policy_many(recs, np.array([p], np.int64), mask[None, :],
                                                                    out)
    for name in g.dtype.names:
        s[name] = recs[0][name]
    return int(out[0])


def _mostly_heuristic_games(g: Game, seeds: range, decide) -> None:
    """Play games ``seeds`` of ``g``: chance by the record's RNG; at every decision ``decide(s, p, mask, seed)``
    (which may assert) names the heuristic's move, played with probability 0.8, else a random legal one
    (mostly the heuristic's own games, where runs and Octas get built, with random moves mixed in)."""
    rng = np.random.default_rng(0)
    for seed in seeds:
        s = g.new_state(seed)
        while not g.is_terminal(s):
            if g.is_chance(s):
                g.apply_action(s, g.sample_chance(s))
                continue
            p = g.acting_player(s)
            mask = g.legal_mask(s, p).astype(np.uint8)
            preferred = decide(s, p, mask, seed)
            g.apply_action(s, preferred if rng.random() < 0.8 else int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("rules", ["en", "nl"])
def test_compiled_octa_playout_plays_like_the_python_heuristic(rules):
    g = Game("octa", rules=rules)
    agent = OctaHeuristicAgent()
    counts = {"checked": 0, "random_piles": 0}
    phases = set()

    def decide(s, p, mask, seed):
        before = s.tobytes()
        compiled = _compiled(g, g.clone(s), p, mask)
        assert s.tobytes() == before
        assert mask[compiled], g.action_to_string(s, compiled)
        agent.rng = _FlagRNG()
        expected = int(agent.act(make_turn(g, s, p, seed)))
        if agent.rng.called:  # the action pile when no top matches: a coin flip in both
            counts["random_piles"] += 1
            first = en.A_PILE if rules == "en" else nl.N_PILE
            assert {compiled, expected} <= {first, first + 1}
        else:
            assert compiled == expected, (g.render(s), g.action_to_string(s, compiled),
                                          g.action_to_string(s, expected))
            counts["checked"] += 1
            phases.add(int(s["phase"]))
        return expected

    _mostly_heuristic_games(g, range(12), decide)
    assert counts["checked"] > 1000 and counts["random_piles"] > 50
    assert len(phases) >= 8  # the priorities of most phases were compared


def test_each_rulebooks_own_policy_is_octa_playout_on_its_records():
    # octa_playout (mcts:<n>:heuristic, a game named without a config) dispatches on the record's rulebook;
    # a Game's playouts compile its rulebook's policy alone: the same choice and the same RNG draws
    for rules, own in (("en", en_playout), ("nl", nl_playout)):
        g = Game("octa", rules=rules)
        assert playout_policy(g) is own and playout_policy("octa") is octa_playout
        compared = []

        def decide(s, p, mask, seed):
            mine = g.clone(s)
            dispatched = int(octa_playout(s, p, mask, int(mask.sum())))
            assert _compiled(g, mine, p, mask) == dispatched and mine.tobytes() == s.tobytes()
            compared.append(dispatched)
            return dispatched

        _mostly_heuristic_games(g, range(2), decide)
        assert len(compared) > 100


def test_a_rulebook_without_a_policy_of_its_own_plays_the_games_policy(monkeypatch):
    spec = catalogue.game_spec("octa")
    english_only = dataclasses.replace(spec, playout_policy_by=("rules", {"en": spec.playout_policy_by[1]["en"]}))
    monkeypatch.setattr(mcts, "_spec", lambda name: english_only)
    assert playout_policy(Game("octa", rules="nl")) is octa_playout and playout_policy(Game("octa")) is en_playout


def _heuristic_moves(g: Game, s, most: int | None = None) -> None:
    """Play chance (the record's RNG) and the compiled heuristic for every seat: to the end, or ``most``
    decisions."""
    n = 0
    while not g.is_terminal(s) and (most is None or n < most):
        if g.is_chance(s):
            g.apply_action(s, g.sample_chance(s))
            continue
        p = g.acting_player(s)
        mask = g.legal_mask(s, p).astype(np.uint8)
        g.apply_action(s, _compiled(g, s, p, mask))
        n += 1


def _decisions(g: Game, count: int, seed: int) -> list:
    """``count`` records in which a seat has a choice, from games of the heuristic for both seats."""
    rng = np.random.default_rng(seed)
    out, k = [], 0
    while len(out) < count:
        s = g.new_state(seed + k)
        k += 1
        _heuristic_moves(g, s, int(rng.integers(20, 120)))
        g.play_chance(s)
        if not g.is_terminal(s) and len(g.legal_actions(s)) > 1:
            out.append(s)
    return out


def test_heuristic_playouts_by_spec_and_refused_for_games_without_them():
    agent = make_agent("mcts:30:heuristic", "octa")
    assert isinstance(agent.evaluator, CompiledRollout) and agent.evaluator.policy is octa_playout
    assert make_agent("mcts:30:heuristic", "achten").evaluator.policy is achten_playout
    with pytest.raises(ValueError, match=r"mcts:30:heuristic.*'octiles'.*\['achten', 'octa'\]"):
        make_agent("mcts:30:heuristic", "octiles")


def test_playouts_many_plays_each_leaf_out_like_the_heuristic_in_python():
    """The batch playouts (AlphaZero's ``playout_mix``) end each record as the compiled heuristic does
    for every seat, chance drawn with the record's RNG: a Python loop over the same record agrees."""
    g = Game("octa", rules="en")
    works = np.array(_decisions(g, 3, seed=7), dtype=g.dtype)
    expected = [g.clone(w) for w in works]
    for s in expected:
        _heuristic_moves(g, s)
    kernels = playout_kernels(g.kernel_module, playout_policy(g))
    status = np.array([1, 1, -1], np.int64)  # the third row belongs to an inactive game
    evalp = np.array([g.acting_player(w) for w in works], np.int64)
    rets = np.full((3, 2), 7.0)
    finished = np.full(3, 9, np.uint8)
    untouched = works[2].tobytes()
    kernels.playouts_many(works, status, evalp, np.zeros(g.num_actions, np.uint8), g.max_game_length, rets,
                          finished)
    for r in range(2):
        assert works[r].tobytes() == expected[r].tobytes()
        np.testing.assert_array_equal(rets[r], g.returns(expected[r]))
    assert list(finished) == [1, 1, 0] and not rets[2].any() and works[2].tobytes() == untouched


def test_a_full_playout_mix_replaces_the_network_values():
    """With ``playout_mix=1`` the heuristic's playouts alone value the leaves: two networks with the
    same priors and different values search alike; without the mix they do not."""
    g = Game("octa", rules="en")
    rng = np.random.default_rng(0)
    V1, V2 = rng.normal(size=(g.observation_size, 2)), rng.normal(size=(g.observation_size, 2))

    def net(V):
        def evaluate(obs, masks, players):
            pr = masks / np.maximum(masks.sum(1, keepdims=True), 1)
            return pr, 1 / (1 + np.exp(-(obs.astype(np.float64) @ V) / 10))
        return evaluate

    states = np.array(_decisions(g, 2, seed=11), dtype=g.dtype)
    players = np.array([g.acting_player(s) for s in states])
    on = np.ones(2, bool)
    full = BatchedSearch(g, 2, SearchConfig(simulations=24, leaves_per_game=4, playout_mix=1.0))
    a, b = (full.run(states, players, on, np.arange(2), net(V)) for V in (V1, V2))
    np.testing.assert_array_equal(a["visits"], b["visits"])
    np.testing.assert_array_equal(a["q"], b["q"])
    # every leaf is worth a playout's win (1), draw (1/2) or loss (0): twice a root child's value sum is whole
    total = 2 * a["q"] * a["visits"]
    np.testing.assert_allclose(total, np.round(total), atol=1e-9)
    none = BatchedSearch(g, 2, SearchConfig(simulations=24, leaves_per_game=4))
    c, d = (none.run(states, players, on, np.arange(2), net(V)) for V in (V1, V2))
    assert not np.array_equal(c["q"], d["q"])


def test_the_heuristic_hint_asks_the_compiled_port_and_agrees_with_the_agent():
    g = Game("octa", rules="en")
    hint = PriorHint(g, "heuristic", 0.9)
    assert hint.compiled is not None
    states = np.array(_decisions(g, 40, seed=13), dtype=g.dtype)
    players = np.array([g.acting_player(s) for s in states], np.int64)
    masks = np.array([g.legal_mask(s, int(p)) for s, p in zip(states, players)], np.uint8)
    before = states.tobytes()
    got = hint.choices(states, players, np.zeros((40, g.observation_size), np.float32), masks)
    assert states.tobytes() == before
    agent = OctaHeuristicAgent()
    for s, p, a in zip(states, players, got):
        agent.rng = _FlagRNG()
        want = int(agent.act(make_turn(g, s, int(p), 0)))
        assert a == want or agent.rng.called, (g.action_to_string(s, int(a)), g.action_to_string(s, want))


def test_bad_playout_mixes_are_refused_in_words():
    with pytest.raises(ValueError, match="playout_mix=1.5"):
        SearchConfig(playout_mix=1.5)
    with pytest.raises(ValueError, match=r"'octiles' has no compiled heuristic playout policy"):
        BatchedSearch(Game("octiles"), 1, SearchConfig(playout_mix=0.5))
