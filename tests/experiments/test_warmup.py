"""The warm-up compiles every kernel module of every game: one run per config whose kernels differ."""

import numpy as np
import pytest

from octagames import catalogue
from octagames.core import GAME_NAMES, Game, load_module
from octagames.envs.vector import VectorEnv, narrowest_obs_dtype
from octagames.experiments.warmup import (WarmupConfig, available_faces, compact_configs, first_call,
                                          kernel_variants, kernels_of, label, warm)
from octagames.octa import Config, checks, kernel_module
from octagames.octa.rules import RULE_SETS


def test_octa_is_warmed_once_per_rulebook_and_the_other_games_once():
    octa = {Game(name).kernel_module for name in kernel_variants("octa")}
    assert octa == {kernel_module(Config(rules=rules)) for rules in RULE_SETS}
    assert kernel_variants("octa") == ["octa-en", "octa-nl"]
    # the other games compile one kernel module for all their variants: warmed once, with the seed's config
    assert all(kernel_variants(name) == [catalogue.variant(name).name]
               for name in GAME_NAMES if name != "octa")
    # the default run is those variants, each at its default seats; --game names others
    assert WarmupConfig().describe_all() == ["octrix-2p", "achten-2p", "octiles-2p", "octa-en-2p",
                                             "octa-nl-2p"]
    teams = WarmupConfig(game=("octiles-teams",))
    assert teams.resolve_all() == [("octiles", {"team": True, "num_players": 4})]


def test_labels_name_the_config_as_openspiel_does():
    assert label("octa", {"rules": "nl"}) == "octa(rules=nl)"
    assert label("octrix", {}) == "octrix"


def test_parallel_warmup_times_every_config_in_order(capsys):
    timings = warm(WarmupConfig(game=("octa-en", "octa-nl")).resolve_all(), jobs=2)
    assert list(timings) == ["octa-en-2p", "octa-nl-2p"] and min(timings.values()) > 0
    assert sorted(capsys.readouterr().out.split("\n")[:2]) == sorted(f"  {k}: {v:.1f} s" for k, v in timings.items())


def test_bad_job_counts_are_refused_by_name():
    with pytest.raises(ValueError, match="jobs=-1"):
        WarmupConfig(jobs=-1)
    with pytest.raises(ValueError, match="jobs=0"):
        warm([("octrix", {})], jobs=0)


def test_every_face_makes_its_first_call_for_every_game():
    assert {"rules", "vector", "aec", "parallel", "heuristic", "mcts", "az"} <= set(available_faces())
    for name, config in WarmupConfig(game=tuple(GAME_NAMES)).resolve_all():  # each game's seed variant
        for face in available_faces():
            first_call(name, face, **config)
    with pytest.raises(ValueError, match="face='gui'"):
        first_call("octrix", "gui")


def test_the_rules_and_vector_faces_reach_the_entry_points_users_hit_later(monkeypatch):
    # a saved game's record check (Octa's is a compiled kernel), a chance outcome drawn by hand, the
    # truncation flag the PettingZoo faces read at a game's end, a vector env's restored state
    calls = []
    for cls, name in ((Game, "from_bytes"), (Game, "sample_chance"), (VectorEnv, "set_state")):
        real = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda self, *a, _n=name, _f=real: calls.append(_n) or _f(self, *a))
    kernels = Game("octa", rules="nl").kernels
    real_truncated = kernels.truncated
    monkeypatch.setattr(kernels, "truncated", lambda s: calls.append("truncated") or real_truncated(s))
    first_call("octa", "rules", rules="nl")
    assert sorted(calls) == ["from_bytes", "sample_chance", "truncated"]
    stepped = []
    real_step = VectorEnv.step
    monkeypatch.setattr(VectorEnv, "step", lambda self, a: stepped.append(self.obs_dtype) or real_step(self, a))
    first_call("octrix", "vector")
    assert "set_state" in calls
    # and the compact observations the trainers pick for any variant with these kernels (the match's
    # scores need 16 bits, a round's fit in 8; Octa's fit in 8), and every wider one a user may ask for
    assert stepped == ["float32", "uint8", "uint16"]
    first_call("octa", "vector", rules="en")
    assert stepped[3:] == ["float32", "uint8", "uint16"]


def test_each_compact_dtype_is_compiled_with_a_config_it_fits_and_the_same_kernels():
    match = catalogue.resolve("octrix")[1]
    configs = compact_configs("octrix", match)
    assert list(configs) == ["uint8", "uint16"] and configs["uint16"] == match
    assert narrowest_obs_dtype(Game("octrix", **configs["uint8"])) == "uint8"  # a round, not the match
    # Octa's rulebooks compile apart: the English warm-up never steps a Dutch config
    en = catalogue.resolve("octa-en")[1]
    assert all(c.get("rules", "en") == "en" for c in compact_configs("octa", en).values())
    assert kernels_of("octa", en) != kernels_of("octa", catalogue.resolve("octa-nl")[1])
    assert len({kernels_of("achten", v.full_config()) for v in catalogue.game_spec("achten").variants}) == 1


def test_the_rules_face_asks_for_the_message_of_every_illegal_move_it_passes(monkeypatch):
    # Octiles' messages call compiled kernels: the warm-up compiles them, not a user's first illegal move
    module = load_module("octiles")
    asked = []
    real = module.illegal_reason

    def reason(s, p, a):
        asked.append((s.tobytes(), a))
        return real(s, p, a)

    monkeypatch.setattr(module, "illegal_reason", reason)
    first_call("octiles", "rules")
    g = Game("octiles")
    s = g.new_state(seed=0)
    g.play_chance(s)
    illegal = np.flatnonzero(g.legal_mask(s) == 0)
    assert [a for state, a in asked if state == s.tobytes()] == list(illegal) and len(illegal) > 0


def test_the_az_face_compiles_the_heuristic_playouts_where_a_game_has_them(monkeypatch):
    import octagames.agents.learn.az as az

    import octagames.experiments.warmup as warmup

    bound, rolled = [], []
    real, real_rollouts = az.playout_kernels, warmup.rollout_values
    monkeypatch.setattr(az, "playout_kernels", lambda module, policy: bound.append((module, policy)) or real(
        module, policy))
    monkeypatch.setattr(warmup, "rollout_values", lambda g, worlds, seat, legal: rolled.append(
        (g.config.rules, len(worlds), len(legal))) or real_rollouts(g, worlds, seat, legal))
    first_call("octrix", "az")
    assert bound == [] and rolled == []
    first_call("octa", "az", rules="en")
    assert [p.__name__ for _, p in bound] == ["en_playout", "en_playout"]  # the playouts and the hint
    assert all(m == Game("octa", rules="en").kernel_module for m, _ in bound)
    assert len(rolled) == 1 and rolled[0][:2] == ("en", 2) and rolled[0][2] >= 1  # the paired rollouts


def test_the_heuristic_face_reaches_the_kernels_the_octiles_heuristic_calls_from_python(monkeypatch):
    # the agent calls them through cached entry points (compiled by this face, loaded from the cache in
    # later processes); its first placement needs the list of whole turns
    from octagames.agents.heuristics import octiles

    names, real = [], octiles.cached
    monkeypatch.setattr(octiles, "cached", lambda kernel: names.append(kernel.__name__) or real(kernel))
    first_call("octiles", "heuristic")
    assert {"list_turns", "trace", "on_goal", "goal_side"} <= set(names)
    assert real(octiles.R.list_turns).__module__.startswith("_octagames_generated.")


def test_the_rules_face_runs_a_games_compiled_self_check(monkeypatch):
    # Octa's checked_play (the test suite's thousands of random games) is compiled with the rulebook's kernels
    octa = load_module("octa")
    asked, ran = [], []
    real = octa.checked_play

    def checked_play(config):
        asked.append(config.rules)
        kernel = real(config)
        return lambda *args: ran.append(kernel(*args))

    monkeypatch.setattr(octa, "checked_play", checked_play)
    first_call("octa", "rules", rules="nl")
    # the kernel ran: 8 random actions with the table consistent after each, then its step limit
    assert asked == ["nl"] and ran == [checks.E_TOO_LONG]
