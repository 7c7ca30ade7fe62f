"""``sample_chance`` draws only at chance nodes, the same way in every game.

At a decision node or at the end, :meth:`Game.sample_chance` raises ``ValueError``
("not a chance node") and every compiled ``sample_chance`` kernel returns -1 without
drawing: the record, its RNG included, is unchanged (Octrix used to return a card and
advance the RNG). At a chance node it draws each outcome with the probability that
``chance_outcomes`` declares (a chi-square test at every kind of chance node).
"""

from __future__ import annotations

import numpy as np
import pytest

from octagames.achten import rules as achten
from octagames.core import Game
from octagames.octa import common as octa
from octagames.octiles import rules as octiles

CONFIGS = [("octrix", {}), ("octrix", dict(num_players=4, partnership=True)), ("achten", dict(num_players=3)),
           ("octiles", {}), ("octa", dict(rules="en")), ("octa", dict(rules="nl"))]


@pytest.mark.parametrize("name, cfg", CONFIGS, ids=[f"{n}-{c}" for n, c in CONFIGS])
def test_sample_chance_draws_only_at_chance_nodes(name, cfg):
    game = Game(name, **cfg)
    rng = np.random.default_rng(0)
    seen = {"chance": 0, "decision": 0}
    for seed in range(2):
        s = game.new_state(seed)
        for _ in range(400):
            before = s.tobytes()
            if game.is_terminal(s):
                with pytest.raises(ValueError, match="not a chance node: the game is over"):
                    game.sample_chance(s)
            elif game.is_chance(s):
                outcome = game.sample_chance(s)
                assert outcome in dict(game.chance_outcomes(s)) and s.tobytes() != before  # it drew
                game.apply_action(s, outcome)
                seen["chance"] += 1
                continue
            else:
                with pytest.raises(ValueError, match=r"not a chance node: (player \d is to act|the players move)"):
                    game.sample_chance(s)
                seen["decision"] += 1
            assert int(game.kernels.sample_chance(s)) == -1
            assert s.tobytes() == before  # no draw: the record's RNG is untouched
            if game.is_terminal(s):
                break
            game.apply_action(s, int(rng.choice(game.legal_actions(s))))
    assert seen["chance"] and seen["decision"]


# the kinds of chance node (by ``phase``) that a random game of each config must reach, so that each kind
# of draw is tested: Octiles' exchange tile, the 3-player side octagons and their rotation, the start lot
# and the tiles turned up in play; Achten's deal; Octa's setup deal, start-player draw and in-turn draws
# (Octrix only deals)
KINDS = {
    ("octrix", ()): set(),
    ("achten", (("num_players", 3),)): {achten.PH_DEAL},
    ("octiles", (("num_players", 3),)): {octiles.PH_DEAL, octiles.PH_DEAL3, octiles.PH_ROT3, octiles.PH_LOT,
                                         octiles.PH_REVEAL},
    ("octiles", ()): {octiles.PH_DEAL, octiles.PH_LOT, octiles.PH_REVEAL},
    ("octa", (("rules", "en"),)): {octa.PH_DEAL, octa.PH_START, octa.PH_CHANCE},
    ("octa", (("rules", "nl"),)): {octa.PH_DEAL, octa.PH_START, octa.PH_CHANCE},
}


def _kind(s) -> tuple[int, ...]:
    names = s.dtype.names
    return tuple(int(s[f]) for f in ("phase", "ch_kind") if f in names)


def _chance_nodes(game: Game, seed: int) -> list[np.void]:
    """For each kind of chance node of a random game: its first node and its node with the fewest outcomes
    (at least 2; the fewer, the more a missing or favoured outcome weighs)."""
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    first: dict[tuple[int, ...], np.void] = {}
    fewest: dict[tuple[int, ...], tuple[int, np.void]] = {}
    while not game.is_terminal(s):
        if not game.is_chance(s):
            game.apply_action(s, int(rng.choice(game.legal_actions(s))))
            continue
        n, k = len(game.chance_outcomes(s)), _kind(s)
        if n >= 2:
            first.setdefault(k, game.clone(s))
            if n < fewest.get(k, (1 << 30, None))[0]:
                fewest[k] = (n, game.clone(s))
        game.apply_action(s, game.sample_chance(s))
    nodes = list(first.values())
    return nodes + [node for k, (_, node) in fewest.items() if node.tobytes() != first[k].tobytes()]


def _chi2_bound(dof: int, z: float = 6.0) -> float:
    """The chi-square value ``z`` standard deviations up (Wilson-Hilferty: above the exact one, few dof)."""
    a = 2 / (9 * dof)
    return dof * (1 - a + z * np.sqrt(a)) ** 3


@pytest.mark.parametrize("name, cfg", sorted(KINDS), ids=[f"{n}-{dict(c)}" for n, c in sorted(KINDS)])
def test_sample_chance_follows_the_declared_distribution(name, cfg):
    game = Game(name, **dict(cfg))
    phases, checked = set(), 0
    for s in _chance_nodes(game, 0):
        outs = dict(game.chance_outcomes(s))
        assert abs(sum(outs.values()) - 1) < 1e-9
        n = 400 * len(outs)  # a missing outcome among 80: chi2 ~ 400, the bound 180
        d = game.clone(s)
        counts = dict.fromkeys(outs, 0)
        for _ in range(n):  # one RNG stream, as a game draws
            counts[game.sample_chance(d)] += 1  # a KeyError: an outcome that chance_outcomes does not list
        d["rng"] = s["rng"]
        assert d.tobytes() == s.tobytes()  # drawing changes only the RNG
        expected = np.array([outs[a] * n for a in outs])
        observed = np.array([counts[a] for a in outs])
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        assert chi2 < _chi2_bound(len(outs) - 1), (game.render(s), counts)
        phases.update(_kind(s)[:1])
        checked += 1
    assert phases >= KINDS[name, cfg] and checked >= 2
