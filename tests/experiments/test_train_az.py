"""The search-and-learning trainer: a tiny run learns, a killed run resumes exactly, outputs are written."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.cli import command_line
from octagames.agents.learn.az import load_model
from octagames.experiments.train_az import TIME_COLUMNS, TrainConfig, Trainer, train
from octagames.experiments.trainer import WARM_START_PARTIAL, read_checkpoint

ROOT = Path(__file__).resolve().parents[2]
TINY = ("ranks=3", "hand_size=3")


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def _cfg(run_dir: Path, **kw) -> TrainConfig:
    base = dict(game="octrix-round", config=TINY, seed=0, device="cpu", iterations=4, hidden=(32,), num_games=16,
                samples_per_iteration=96, simulations=8, play_simulations=8, batch_size=64, eval_every=2,
                eval_games=16, eval_opponents=("random",), checkpoint_every=2, snapshot_every=1, pool_size=2,
                self_play_prob=0.4, agent_prob=0.3, imitation_games=10, imitation_steps=5, run_dir=str(run_dir),
                progress=False)
    base.update(kw)
    return TrainConfig(**base)


def _without_clock(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in rows]


def test_a_tiny_run_learns_and_writes_its_outputs(tmp_path):
    """Tiny Octrix (3 ranks, 3 cards): the policy alone starts near random and ends clearly above it."""
    cfg = _cfg(tmp_path, iterations=6, hidden=(64,), num_games=64, samples_per_iteration=384, simulations=16,
               replay_ratio=6.0, eval_every=0, eval_games=200, imitation_games=0, self_play_prob=1.0,
               agent_prob=0.0)
    result = train(cfg)
    first, last = result["rows"][0], result["rows"][-1]
    assert first["win_rate_policy_vs_random"] < 0.55
    assert last["win_rate_policy_vs_random"] > first["win_rate_policy_vs_random"] + 0.08, (first, last)
    for name in ("metrics.csv", "metrics.json", "curves.png", "checkpoint.pt", "model.pt"):
        assert (tmp_path / name).stat().st_size > 0
    rows = json.loads((tmp_path / "metrics.json").read_text())["rows"]
    assert [r["iteration"] for r in rows] == list(range(7))
    assert make_agent(f"az:{tmp_path / 'model.pt'}:4", "octrix").search.simulations == 4


def test_the_best_evaluated_model_is_kept(tmp_path):
    result = train(_cfg(tmp_path, eval_every=1, eval_policy=False))
    scores = [(r["win_rate_vs_random"], r["iteration"]) for r in result["rows"] if "win_rate_vs_random" in r]
    assert len(scores) == 5
    best = max(scores, key=lambda x: (x[0], -x[1]))  # the first of the best
    data = torch.load(tmp_path / "model-best.pt", weights_only=False)
    assert data["meta"]["iteration"] == best[1] and data["meta"]["last_eval"]["win_rate_vs_random"] == best[0]
    assert make_agent(f"az:{tmp_path / 'model-best.pt'}", "octrix").search.simulations == 8


def test_kill_and_resume_gives_identical_metrics(tmp_path):
    full = train(_cfg(tmp_path / "full"))
    killed = _cfg(tmp_path / "killed", stop_after=3)  # last checkpoint: iteration 2
    out = subprocess.run(command_line(killed, "octagames.experiments.train_az", sys.executable), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 3, out.stderr
    assert json.loads((tmp_path / "killed" / "metrics.json").read_text())["rows"][-1]["iteration"] == 2
    resumed = train(dataclasses.replace(killed, stop_after=0, resume=True))
    assert _without_clock(resumed["rows"]) == _without_clock(full["rows"])
    assert len(full["rows"]) == 5 and "win_rate_vs_random" in full["rows"][-1]


def test_a_run_starts_from_another_runs_model_and_keeps_its_prior_hint(tmp_path):
    train(_cfg(tmp_path / "a", iterations=1, hidden=(24,), eval_every=0, eval_games=2, imitation_games=0))
    source, _ = load_model(tmp_path / "a" / "model.pt")
    cfg = _cfg(tmp_path / "b", iterations=1, eval_every=0, eval_games=2, imitation_games=0,
               init_model=str(tmp_path / "a" / "model.pt"), prior_hint="heuristic", prior_hint_weight=0.6)
    net = Trainer(cfg).learner.net
    assert net.spec["hidden"] == [24]  # the model's shape, not cfg.hidden
    for k, v in source.state_dict().items():
        torch.testing.assert_close(net.state_dict()[k], v)
    train(cfg)
    _, data = load_model(tmp_path / "b" / "model.pt")
    assert (data["search"]["prior_hint"], data["search"]["prior_hint_weight"]) == ("heuristic", 0.6)
    cores = len(os.sched_getaffinity(0))  # where it trained, for the zoo card: this machine's cores, on the CPU
    assert data["meta"]["machine"].startswith(f"{cores} CPU cores") and data["meta"]["machine"].endswith(", cpu")
    with pytest.raises(ValueError, match="octrix"):
        Trainer(_cfg(tmp_path / "c", game="achten", config=(), init_model=str(tmp_path / "a" / "model.pt")))


def test_iterations_zero_is_the_warm_start_alone_against_the_opponent_it_names(tmp_path):
    from octagames.agents.learn.imitation import teacher_games
    cfg = _cfg(tmp_path, iterations=0, imitation_games=6, imitation_opponent="random", eval_games=4)
    result = train(cfg)
    assert [r["iteration"] for r in result["rows"]] == [0] and result["rows"][0]["games"] == 0
    data = teacher_games(Game("octrix-round", ranks=3, hand_size=3), "heuristic", 6, seed=cfg.seed * 104729 + 17,
                         epsilon=cfg.imitation_epsilon, opponent="random")
    assert result["rows"][0]["imitation_samples"] == len(data) > 0
    assert make_agent(f"az:{tmp_path / 'model.pt'}", "octrix").net is not None


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="simulations=-1"):
        TrainConfig(simulations=-1)
    with pytest.raises(ValueError, match="iterations=-1"):
        TrainConfig(iterations=-1)
    with pytest.raises(ValueError, match="imitation_workers=0"):
        TrainConfig(imitation_workers=0)
    with pytest.raises(ValueError, match="objective='draw'"):
        TrainConfig(objective="draw")
    with pytest.raises(ValueError, match="prior_hint_weight=2"):
        TrainConfig(prior_hint="heuristic", prior_hint_weight=2)
    with pytest.raises(ValueError, match="self_play_prob=0.8, agent_prob=0.5"):
        TrainConfig(self_play_prob=0.8, agent_prob=0.5)
    with pytest.raises(ValueError, match="key=value"):
        TrainConfig(config=("ranks",))
    with pytest.raises(ValueError, match=r"^value_target_mix=0.5 is not valid for octrix: the game has no compiled "
                                         r"leaf value \(games with one: achten, octiles\); set 0$"):
        TrainConfig(game="octrix", value_target_mix=0.5)
    with pytest.raises(ValueError, match=r"^value_target_mix=-0.1 is not valid; it must be in \[0, 1\]$"):
        TrainConfig(game="octiles", value_target_mix=-0.1)
    assert TrainConfig(game="octiles-fixed-start", value_target_mix=0.5).value_target_mix == 0.5


def test_runs_are_named_from_the_variant_and_a_tiny_run_evaluates_on_few_games():
    assert TrainConfig(game="octa-nl").resolved_run_dir().name.startswith("octa-nl-2p-")
    assert TrainConfig(game="octa-nl").resolved_run_dir().parent == Path("runs/az")
    assert TrainConfig(game="octa-nl").resolved_run_dir() != TrainConfig(game="octa-en").resolved_run_dir()
    assert _cfg(Path("x"), eval_games=0).games_per_evaluation() == 8  # 4 iterations of 96 samples: the floor
    assert TrainConfig().games_per_evaluation() == 64  # 1000 iterations of 2048 samples: the cap


def test_a_run_with_the_per_action_term_keeps_it_in_its_model_and_other_games_refuse_it(tmp_path):
    train(_cfg(tmp_path / "a", game="achten-dealer-pays", config=(), iterations=0, imitation_games=6,
               imitation_steps=3, eval_games=2, action_features=True))
    net, data = load_model(tmp_path / "a" / "model.pt")
    g = Game("achten-dealer-pays")
    assert data["spec"]["action_features"] == [g.observation_layout.offset("lookahead"), 4]
    assert net.action_features is not None
    # Octa has no block indexed by action but facts per card: the term reads the rows each action is about
    train(_cfg(tmp_path / "b", game="octa-nl", config=(), iterations=0, imitation_games=2, imitation_steps=2,
               eval_games=2, action_features=True))
    net, data = load_model(tmp_path / "b" / "model.pt")
    assert data["spec"]["action_rows"]["offset"] == Game("octa-nl").observation_layout.offset("facts")
    assert net.action_rows is not None and net.action_features is None
    with pytest.raises(ValueError, match=r"^action_features: the observation of octiles says nothing per action "
                                         r"\(no block indexed by action, no facts per card\); games with one: "
                                         r"\['achten', 'octa'\]"):
        Trainer(_cfg(tmp_path / "o", game="octiles", config=(), action_features=True))


def test_a_checkpoint_from_before_a_resume_field_existed_resumes_with_its_default(tmp_path):
    """A run saved before ``action_features`` was a field resumes: the missing field reads as its default."""
    cfg = _cfg(tmp_path / "run", iterations=1, eval_every=0, eval_games=2, imitation_games=0)
    train(cfg)
    path = tmp_path / "run" / "checkpoint.pt"
    d = torch.load(path, weights_only=False)
    del d["config"]["action_features"]
    torch.save(d, path)
    resumed = train(dataclasses.replace(cfg, iterations=2, resume=True))
    assert resumed["rows"][-1]["iteration"] == 2
    with pytest.raises(ValueError, match="action_features"):  # asking for the term is still a different run
        Trainer(dataclasses.replace(cfg, iterations=3, resume=True, action_features=True))


def test_a_resume_refuses_another_learning_rate_or_seed_and_may_add_iterations(tmp_path):
    """A resume with another learning rate or seed is refused naming the field (nothing in the run's folder
    changes); one that adds iterations goes on and appends its command to config.json's history; with
    final_learning_rate the iterations the rate decays over are the run's."""
    run = tmp_path / "run"
    cfg = _cfg(run, iterations=1, eval_every=0, eval_games=2, imitation_games=0)
    train(cfg)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.iterdir())}
    for change, words in ((dict(learning_rate=0.01), "learning_rate (--learning-rate) 0.001 in the run, 0.01 asked."),
                          (dict(seed=99), "seed (--seed) 0 in the run, 99 asked."),
                          (dict(simulations=4), "simulations (--simulations) 8 in the run, 4 asked.")):
        with pytest.raises(ValueError, match=r"^--resume: .* with other settings: " + re.escape(words)
                                             + r" They change what the run computes or records: .*--iterations"):
            Trainer(dataclasses.replace(cfg, iterations=2, resume=True, **change))
        assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.iterdir())} == before
    first = json.loads((run / "config.json").read_text())
    assert train(dataclasses.replace(cfg, iterations=2, resume=True))["rows"][-1]["iteration"] == 2
    config = json.loads((run / "config.json").read_text())
    assert {k: v for k, v in config.items() if k != "resumes"} == first and first["config"]["iterations"] == 1
    assert [(r["resumed_at"]["iteration"], " --iterations 2 " in r["command"] + " ") for r in config["resumes"]] == [
        (1, True)]
    decayed = _cfg(tmp_path / "decayed", iterations=1, eval_every=0, eval_games=2, imitation_games=0,
                   final_learning_rate=1e-4)
    train(decayed)
    with pytest.raises(ValueError, match=r"iterations \(--iterations\) 1 in the run, 2 asked \(with "
                                         r"--final-learning-rate the learning rate decays"):
        Trainer(dataclasses.replace(decayed, iterations=2, resume=True))


def test_a_warm_start_on_the_init_models_priors_teaches_the_compiled_value_on_decisions_and_their_children(tmp_path):
    """The distillation warm start: a network of an earlier Octiles observation, widened to today's, keeps its
    priors as policy targets on the teacher's decisions and on their children."""
    from octagames.agents.learn.az import PolicyValueNet, save_model
    from octagames.agents.learn.imitation import children, observations
    g = Game("octiles-fixed-start")
    torch.manual_seed(0)
    early = PolicyValueNet(g.earlier_observation_sizes[0], g.num_actions, g.num_players, hidden=(32,))
    with torch.no_grad():
        early.policy[-1].weight.mul_(100)  # priors far from uniform
    init = save_model(early, tmp_path / "early.pt", g)
    cfg = _cfg(tmp_path, game="octiles-fixed-start", config=(), iterations=0, init_model=str(init),
               widen_init_model=0.5, imitation_games=1, imitation_target="prior", imitation_children=2,
               imitation_steps=3, imitation_final_learning_rate=1e-5, value_target_mix=1.0, batch_size=8,
               buffer_size=4000)
    tr = Trainer(cfg)
    assert tr.prior_net.spec["obs_size"] == g.earlier_observation_sizes[0]
    assert tr.learner.net.spec["obs_size"] == g.observation_size
    stats = tr.warm_start()
    data = tr.teacher_data()
    kids, kid_seats, parents = children(g, data.records, 2, seed=cfg.seed * 7907 + 3)
    n = len(data)
    assert stats["imitation_samples"] == len(tr.buffer) == n + len(kids)
    assert tr.buffer.records[n:n + len(kids)].tobytes() == kids.tobytes()
    assert tr.learner.optimizer.param_groups[0]["lr"] == cfg.learning_rate  # the decay was the warm start's alone
    # the children's outcome is their game's, counted from their own seat
    same = kid_seats == data.seats[parents]
    np.testing.assert_array_equal(tr.buffer.values[n:n + len(kids)][same], data.outcomes[parents][same])
    np.testing.assert_array_equal(tr.buffer.values[n:n + len(kids)][~same], data.outcomes[parents][~same][:, ::-1])
    # the policy targets are the starting network's priors (largest first, renormalised)
    j = np.array([0, n - 1, n, len(tr.buffer) - 1])
    obs, masks = observations(g, tr.buffer.records[j], tr.buffer.seats[j])
    with torch.no_grad():
        logits, _ = tr.prior_net(torch.from_numpy(obs))
    prior = torch.softmax(logits.masked_fill(~torch.from_numpy(masks), -1e9), -1).numpy()
    for row, i in enumerate(j):
        top = tr.buffer.pol_idx[i][tr.buffer.pol_p[i] > 0]
        assert top[0] == prior[row].argmax() and set(top) <= set(np.flatnonzero(masks[row]))
        np.testing.assert_allclose(tr.buffer.pol_p[i][:len(top)], prior[row][top] / prior[row][top].sum(), rtol=1e-5)
    batch = tr.buffer.batch(j)  # with value_target_mix 1 the value target is the compiled value alone
    np.testing.assert_allclose(batch["values"].numpy(), tr.buffer.leaf_values(tr.buffer.records[j], tr.buffer.seats[j]))


def test_a_warm_start_with_rollout_values_stores_them_as_the_value_targets(tmp_path):
    from octagames.agents.learn.imitation import rollout_outcomes
    cfg = _cfg(tmp_path, game="achten", config=("num_players=2", "deal_penalty=1"), iterations=0,
               imitation_games=3, imitation_value_worlds=4, imitation_steps=2, batch_size=8)
    tr = Trainer(cfg)
    tr.warm_start()
    data = tr.teacher_data()
    want = rollout_outcomes(tr.game, data, 4, seed=cfg.seed * 7901 + 5)
    assert len(tr.buffer) == len(data)
    np.testing.assert_array_equal(tr.buffer.values[:len(data)], want)
    assert not np.array_equal(want, data.outcomes)  # not the games' own outcomes
    np.testing.assert_array_equal(tr.buffer.pol_idx[:len(data), 0], data.actions)  # the same policy target


def test_a_warm_start_labels_the_decisions_children_with_the_teachers_choice_and_their_own_rollouts(tmp_path):
    from octagames.agents.base import make_turn
    from octagames.agents.heuristics.achten import AchtenHeuristicAgent
    from octagames.agents.learn.imitation import TeacherData, children, rollout_outcomes
    cfg = _cfg(tmp_path, game="achten", config=("num_players=2", "deal_penalty=1"), iterations=0,
               imitation_games=3, imitation_children=2, imitation_value_worlds=4, imitation_steps=2,
               batch_size=8)
    tr = Trainer(cfg)
    tr.warm_start()
    g, data = tr.game, tr.teacher_data()
    kids, seats, _ = children(g, data.records, 2, seed=cfg.seed * 7907 + 3)
    n, m = len(data), len(kids)
    assert m > n and len(tr.buffer) == n + m
    assert tr.buffer.records[n:n + m].tobytes() == kids.tobytes()
    np.testing.assert_array_equal(tr.buffer.seats[n:n + m], seats)
    teacher = AchtenHeuristicAgent()
    labels = tr.buffer.pol_idx[n:n + m, 0]
    assert all(teacher.act(make_turn(g, kids[i], int(seats[i]), 0)) == labels[i] for i in range(m))
    stored = slice(0, n + m)  # the decisions and their children, with the teacher's moves
    every = TeacherData(tr.buffer.records[stored], tr.buffer.seats[stored],
                        tr.buffer.pol_idx[stored, 0].astype(np.int64), tr.buffer.values[stored], 0)
    want = rollout_outcomes(g, every, 4, seed=cfg.seed * 7901 + 5)
    np.testing.assert_array_equal(tr.buffer.values[stored], want)


def test_the_last_share_of_teacher_games_is_played_wholly_at_random(tmp_path):
    from octagames.agents.learn.imitation import TeacherData, teacher_games
    cfg = _cfg(tmp_path, imitation_games=5, imitation_random_share=0.4)
    data = Trainer(cfg).teacher_data()
    g, seed = Game("octrix-round", ranks=3, hand_size=3), cfg.seed * 104729 + 17
    parts = [teacher_games(g, "heuristic", 3, seed, epsilon=cfg.imitation_epsilon),
             teacher_games(g, "heuristic", 2, seed + 3, epsilon=1.0)]
    both = TeacherData.concatenate(parts)
    assert data.games == both.games == 5 and data.records.tobytes() == both.records.tobytes()
    np.testing.assert_array_equal(data.actions, both.actions)
    assert data.records.tobytes() != teacher_games(g, "heuristic", 5, seed, cfg.imitation_epsilon).records.tobytes()


def test_a_player_makes_the_teacher_games_moves_but_not_the_wholly_random_games(tmp_path):
    from octagames.agents.learn.imitation import TeacherData, teacher_games
    cfg = _cfg(tmp_path, imitation_games=5, imitation_random_share=0.4, imitation_player="random")
    data = Trainer(cfg).teacher_data()
    g, seed = Game("octrix-round", ranks=3, hand_size=3), cfg.seed * 104729 + 17
    parts = [teacher_games(g, "heuristic", 3, seed, epsilon=cfg.imitation_epsilon, player="random"),
             teacher_games(g, "heuristic", 2, seed + 3, epsilon=1.0)]
    both = TeacherData.concatenate(parts)
    assert data.records.tobytes() == both.records.tobytes() and np.array_equal(data.actions, both.actions)
    plain = teacher_games(g, "heuristic", 3, seed, epsilon=cfg.imitation_epsilon)
    assert data.records[:len(plain)].tobytes() != plain.records.tobytes()


def test_bad_warm_start_settings_are_refused_by_name():
    # the play-time search was first built at the first evaluation, after the warm start, and named its own field
    with pytest.raises(ValueError, match=r"^play_leaves_per_game=0 is not valid; it must be >= 1$"):
        TrainConfig(play_leaves_per_game=0)
    with pytest.raises(ValueError, match=r"^imitation_target='best' is not valid; valid values: teacher, prior$"):
        TrainConfig(imitation_target="best")
    with pytest.raises(ValueError, match="imitation_target='prior' needs an init_model"):
        TrainConfig(imitation_target="prior")
    with pytest.raises(ValueError, match="imitation_children=-1 is not valid"):
        TrainConfig(imitation_children=-1)
    with pytest.raises(ValueError, match=r"^imitation_random_share=1.5 is not valid; it must be in \[0, 1\]$"):
        TrainConfig(imitation_random_share=1.5)
    with pytest.raises(ValueError, match="imitation_final_learning_rate=-1"):
        TrainConfig(imitation_final_learning_rate=-1)
    with pytest.raises(ValueError, match=r"^imitation_value_worlds=-1 is not valid; it must be >= 0$"):
        TrainConfig(imitation_value_worlds=-1)
    with pytest.raises(ValueError, match="the rollout value targets of imitation_value_worlds=8 need a "
                                         "compiled heuristic; 'octrix' has none"):
        TrainConfig(game="octrix", imitation_value_worlds=8)
    with pytest.raises(ValueError, match="imitation_value_worlds=8 needs 2 players; this run has 3"):
        TrainConfig(game="achten", players=3, imitation_value_worlds=8)
    with pytest.raises(ValueError, match="widen_init_model=-0.5 is not valid"):
        TrainConfig(init_model="zoo:octrix", widen_init_model=-0.5)
    with pytest.raises(ValueError, match="widen_init_model=0.5 needs an init_model"):
        TrainConfig(widen_init_model=0.5)


def test_a_warm_start_writes_its_curves(tmp_path):
    result = train(_cfg(tmp_path, iterations=0, imitation_games=4, imitation_steps=205, eval_games=2,
                        imitation_final_learning_rate=1e-4, learning_rate=1e-3))
    rows = json.loads((tmp_path / "warm_start.json").read_text())["rows"]
    assert [r["step"] for r in rows] == [*range(2, 205, 2), 205]  # windows of 2 steps, and the last step
    assert rows[0]["learning_rate"] == pytest.approx(1e-3 - 9e-4 * 1 / 204)  # each window's last rate
    assert rows[-1]["learning_rate"] == pytest.approx(1e-4)
    assert rows[-1]["policy_loss"] < rows[0]["policy_loss"]  # it learned the teacher's moves
    assert (tmp_path / "warm_start.png").stat().st_size > 0
    assert result["rows"][0]["grad_steps"] == 205


def test_a_bad_opponent_agent_is_refused_before_the_run_writes_its_folder(tmp_path):
    """It was refused when the first game against it started: after the warm start and the first evaluation,
    with the folder written (a second try was then refused as a run already there)."""
    cfg = _cfg(tmp_path / "run", opponent_agent="mctz:8", self_play_prob=0.0, agent_prob=1.0)
    with pytest.raises(ValueError, match=r"^opponent_agent: agent='mctz:8' is not valid; valid agents: \["):
        Trainer(cfg)
    assert not (tmp_path / "run").exists()  # the folder the refused run made (empty) is gone too
    assert Trainer(dataclasses.replace(cfg, agent_prob=0.0, self_play_prob=1.0)).start == "new run"  # unused


@pytest.mark.parametrize("field", ["expert", "prior_hint"])
def test_a_bad_expert_or_prior_hint_is_refused_by_its_field_and_leaves_no_folder_or_lock(tmp_path, field):
    """Both were refused in the registry's words alone, naming no field, and after the run had made its folder
    and taken its lock: the empty folder stayed, and a second Trainer on it in this process was refused."""
    cfg = _cfg(tmp_path / "run", imitation_games=0, **{field: "mctz:8"})
    with pytest.raises(ValueError, match=rf"^{field}: agent='mctz:8' is not valid; valid agents: \["):
        Trainer(cfg)
    assert not (tmp_path / "run").exists()
    assert Trainer(dataclasses.replace(cfg, **{field: ""})).start == "new run"  # the lock was given back


@pytest.mark.parametrize("kw, words", [
    ({"head": -3}, r"head=-3 is not valid; give 0 \(linear policy and value heads\) or the width of their "
                   r"hidden layer, >= 1"),
    ({"hidden": (32, 0)}, r"hidden=\(32, 0\) is not valid; give one or more layer widths >= 1, e.g. 256 256"),
    ({"hidden": ()}, r"hidden=\(\) is not valid; give one or more layer widths >= 1, e.g. 256 256"),
    ({"activation": "gelu"}, r"activation='gelu' is not valid; valid values: \['relu', 'tanh'\]")])
def test_a_network_shape_that_means_nothing_is_refused_when_the_flags_are_read(tmp_path, kw, words):
    """--head -3 ran to the end with linear heads (exit 0) and recorded head -3 in its model; a bad width or
    activation was refused by the network after the trainer claimed the run folder."""
    with pytest.raises(ValueError, match=f"^{words}$"):
        _cfg(tmp_path / "run", **kw)
    assert not (tmp_path / "run").exists()
    assert (_cfg(tmp_path / "run", head=0).head, _cfg(tmp_path / "run", head=16).head) == (0, 16)


class Crash(Exception):
    """A failure in the middle of a warm start (after a save of it)."""


def _stopping_runs(monkeypatch, count):
    """``run(cfg, at, then)``: ``train(cfg)`` calling ``then()`` after the save of the warm start where ``count(parts,
    stages)`` is ``at`` (a save after every game and every decision's rollout values); its result and where it left
    the global RNGs. The teacher's turns draw from the global RNGs, as a teacher may, which the resumed work must
    find as they were."""
    from octagames.agents.learn import imitation
    from octagames.experiments import trainer

    def turn(*args):
        np.random.random()
        torch.rand(1)
        return make_turn(*args)

    make_turn = imitation.make_turn
    monkeypatch.setattr(imitation, "make_turn", turn)
    monkeypatch.setattr(trainer, "WARM_START_SAVE_EVERY_S", 0.0)
    monkeypatch.setattr(trainer, "WARM_START_SAVE_SHARE", math.inf)

    def run(cfg, at: int | None = None, then=None):
        save = trainer.Trainer.save_warm_start

        def save_then(self, parts, stages=None, rng=None):
            took = save(self, parts, stages, rng)
            if at is not None and count(parts, stages or {}, rng) == at:
                then()
            return took

        monkeypatch.setattr(trainer.Trainer, "save_warm_start", save_then)
        try:
            return train(cfg), (float(np.random.random()), torch.rand(2).tolist())
        finally:
            monkeypatch.setattr(trainer.Trainer, "save_warm_start", save)

    return run


def _term():
    os.kill(os.getpid(), signal.SIGTERM)


def _crash():
    raise Crash


def _where(parts, stages, rng) -> str:
    """Where a save of the warm start is: ``labels`` (one worker's, kept none), ``labels <n>``, ``value <n>`` or
    ``step <n>`` (the saved labels, values or steps), or "" in the teacher games."""
    if rng is not None:
        return "labels"
    if "steps" in stages:
        return f"step {stages['steps']['step']}"
    if "values" in stages:
        return f"value {len(stages['values']['values'])}"
    return f"labels {len(stages['labels'])}" if "labels" in stages else ""


def _same_runs(a: Path, b: Path, rows_a: list[dict], rows_b: list[dict]) -> None:
    assert _without_clock(rows_a) == _without_clock(rows_b)
    for x, y in zip(torch.load(a / "model.pt", weights_only=False)["state_dict"].values(),
                    torch.load(b / "model.pt", weights_only=False)["state_dict"].values()):
        torch.testing.assert_close(x, y, rtol=0, atol=0)


def test_a_run_stopped_or_killed_in_its_teacher_games_resumes_to_the_run_never_stopped(tmp_path, monkeypatch,
                                                                                       capsys):
    """The warm start's teacher games were saved only with the checkpoint after them: a stop or a kill during
    them (hours with a search as the teacher) lost them all, and a Ctrl-C waited for their end."""
    kw = dict(iterations=0, imitation_games=10, imitation_random_share=0.4, eval_games=2)
    run = _stopping_runs(monkeypatch, lambda parts, stages, rng: sum(p.data.games for p in parts))
    full, full_rngs = run(_cfg(tmp_path / "full", **kw))
    cfg = _cfg(tmp_path / "run", **kw)
    partial, aside = tmp_path / "run" / WARM_START_PARTIAL, tmp_path / "run" / "replaced-run"
    aside.parent.mkdir()
    (aside.parent / "metrics.csv").write_text("an older run's")  # replaced: kept aside until the first checkpoint
    stopped, _ = run(dataclasses.replace(cfg, overwrite=True), 3, _term)  # noticed at the next game's save
    assert stopped["stopped_by"] == "SIGTERM" and stopped["rows"] == []
    assert "SIGTERM: stopped in the warm start after 4 of 10 teacher games; --resume goes on from there" \
        in capsys.readouterr().out
    assert partial.exists() and not (tmp_path / "run" / "checkpoint.pt").exists()
    assert (aside / "metrics.csv").read_text() == "an older run's"
    with pytest.raises(ValueError, match="holds a run already"):
        train(cfg)
    with pytest.raises(ValueError, match=r"imitation_games \(--imitation-games\) 10 in the run, 12 asked"):
        train(dataclasses.replace(cfg, resume=True, imitation_games=12))  # the games of another warm start
    with pytest.raises(Crash):  # in the wholly random games (the last 4): the first 6 are one call, these another
        run(dataclasses.replace(cfg, resume=True), 8, _crash)
    again, _ = run(dataclasses.replace(cfg, resume=True), 9, _term)  # stopped with every game played
    assert again["stopped_by"] == "SIGTERM"
    out = capsys.readouterr().out
    assert "going on from 4 of 10 teacher games" in out and "going on from 8 of 10 teacher games" in out
    assert "stopped in the warm start after its 10 teacher games" in out
    resumed, rngs = run(dataclasses.replace(cfg, resume=True))
    _same_runs(tmp_path / "full", tmp_path / "run", full["rows"], resumed["rows"])
    assert rngs == full_rngs
    assert not partial.exists() and not aside.exists()  # the checkpoint holds the warm start now
    resumes = json.loads((tmp_path / "run" / "config.json").read_text())["resumes"]
    assert [r["resumed_at"]["teacher_games"] for r in resumes] == [4, 8, 10]


def test_a_run_stopped_or_killed_in_its_labels_values_or_steps_resumes_to_the_run_never_stopped(tmp_path, monkeypatch,
                                                                                                 capsys):
    """The children's labels, the rollout values of the teacher's decisions and their children (the longest part of
    the Octa warm starts: 25 minutes of n13's) and the gradient steps after them went on to their end after a stop,
    and a kill lost them."""
    kw = dict(game="achten", config=("num_players=2", "deal_penalty=1"), iterations=0, imitation_games=3,
              imitation_children=2, imitation_value_worlds=4, imitation_steps=6, batch_size=8, eval_games=2)

    run = _stopping_runs(monkeypatch, _where)
    full, full_rngs = run(_cfg(tmp_path / "full", **kw))
    n = int(re.search(r"warm start: (\d+) samples", capsys.readouterr().out).group(1))  # decisions and children
    cfg = _cfg(tmp_path / "run", **kw)
    stopped, _ = run(cfg, "labels", _term)  # at the first position's save: noticed at the second
    out = capsys.readouterr().out
    kids = int(re.search(r"children's labels, after 2 of (\d+) \(--resume labels them again\)", out).group(1))
    assert stopped["stopped_by"] == "SIGTERM" and kids > 3
    assert torch.load(tmp_path / "run" / WARM_START_PARTIAL, weights_only=False)["warm_start"]["stages"] == {}
    with pytest.raises(Crash):  # killed after the save of all the labels: the values go on from the RNGs saved
        run(dataclasses.replace(cfg, resume=True), f"labels {kids}", _crash)
    stopped, _ = run(dataclasses.replace(cfg, resume=True), "value 5", _term)
    assert stopped["stopped_by"] == "SIGTERM" and f"stopped in the warm start in its rollout values, after 6 of {n} " \
        "decisions; --resume goes on from there" in capsys.readouterr().out
    saved = torch.load(tmp_path / "run" / WARM_START_PARTIAL, weights_only=False)["warm_start"]
    assert len(saved["stages"]["values"]["values"]) == 6 and len(saved["stages"]["labels"]) == kids
    with pytest.raises(Crash):
        run(dataclasses.replace(cfg, resume=True), "value 9", _crash)
    assert f"going on from 6 of {n} decisions' rollout values" in capsys.readouterr().out
    with pytest.raises(Crash):  # killed after the last value's save: the steps go on from the RNGs it saved
        run(dataclasses.replace(cfg, resume=True), f"value {n}", _crash)
    again, _ = run(dataclasses.replace(cfg, resume=True), "step 3", _term)
    out = capsys.readouterr().out
    assert again["stopped_by"] == "SIGTERM" and "stopped in the warm start in its gradient steps, after 4 of 6" in out
    before = read_checkpoint(tmp_path / "run" / WARM_START_PARTIAL)["warm_start"]["wall_time"]
    resumed, rngs = run(dataclasses.replace(cfg, resume=True))
    assert resumed["rows"][0]["imitation_seconds"] > before  # the warm start's time in all five processes
    assert "going on from step 4 of 6" in capsys.readouterr().out
    _same_runs(tmp_path / "full", tmp_path / "run", full["rows"], resumed["rows"])
    assert rngs == full_rngs  # the labels (drawing from the global RNGs) are not made again: the saved RNGs are set
    curve = [{k: v for k, v in r.items() if k != "seconds"} for r in
             json.loads((tmp_path / "run" / "warm_start.json").read_text())["rows"]]
    assert curve == [{k: v for k, v in r.items() if k != "seconds"} for r in
                     json.loads((tmp_path / "full" / "warm_start.json").read_text())["rows"]] and len(curve) == 6


def test_a_run_stopped_in_its_labels_by_worker_processes_keeps_their_whole_blocks(tmp_path, monkeypatch, capsys):
    """Several workers label the children in blocks: a stop keeps the whole blocks done, a save of them all keeps
    them all, and the resumed run is the run never stopped."""
    from octagames.agents.learn import imitation
    monkeypatch.setattr(imitation, "DECISION_BLOCK", 4)  # cut in this process: the workers need no patch
    kw = dict(game="achten", config=("num_players=2", "deal_penalty=1"), iterations=0, imitation_games=1,
              imitation_children=2, imitation_workers=2, imitation_steps=2, batch_size=8, eval_games=2)
    run = _stopping_runs(monkeypatch, _where)
    full, full_rngs = run(_cfg(tmp_path / "full", **kw))
    cfg = _cfg(tmp_path / "run", **kw)
    stopped, _ = run(cfg, "labels 4", _term)  # noticed at the next block's save
    kids = int(re.search(r"children's labels, after 8 of (\d+) \(8 kept\)", capsys.readouterr().out).group(1))
    assert stopped["stopped_by"] == "SIGTERM" and kids > 12 and kids % 4  # a last block that is not whole
    with pytest.raises(Crash):  # after the last block's save: all of them kept
        run(dataclasses.replace(cfg, resume=True), f"labels {kids}", _crash)
    assert "going on from 8 of" in capsys.readouterr().out
    resumed, rngs = run(dataclasses.replace(cfg, resume=True))
    assert f"going on from {kids} of {kids} children's labels" in capsys.readouterr().out
    _same_runs(tmp_path / "full", tmp_path / "run", full["rows"], resumed["rows"])
    assert rngs == full_rngs


def test_nan_and_zero_settings_that_failed_later_or_ran_on_are_refused_naming_the_field(tmp_path):
    """NaN passed the "<= 0" checks (a crash after iteration 1, or a search playing illegal moves), and a learning
    rate of 0 divided by zero in its decay after the run folder was written."""
    for field, value, words in (("learning_rate", 0.0, "a finite number > 0"), ("replay_ratio", float("nan"), "> 0"),
                                ("final_learning_rate", float("nan"), ">= 0"), ("value_weight", -1.0, ">= 0"),
                                ("temperature", float("nan"), ">= 0"), ("dirichlet_alpha", float("nan"), ">= 0"),
                                ("c_puct", float("nan"), "> 0, or None"),
                                ("expert_temperature", float("nan"), ">= 0"),
                                ("imitation_final_learning_rate", float("nan"), ">= 0")):
        with pytest.raises(ValueError, match=re.escape(f"{field}={value} is not valid; it must be") + ".*"
                           + re.escape(words)):
            _cfg(tmp_path / "run", **{field: value})
    with pytest.raises(ValueError, match=r"widen_init_model=nan is not valid"):
        _cfg(tmp_path / "run", widen_init_model=float("nan"), init_model="m.pt")
    assert not (tmp_path / "run").exists() and _cfg(tmp_path / "run", temperature=0.0).temperature == 0.0
