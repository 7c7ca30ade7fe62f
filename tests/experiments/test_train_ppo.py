"""The PPO trainer: learns a tiny game, resumes a killed run exactly, writes its outputs."""

from __future__ import annotations

import dataclasses
import functools
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

from octagames.agents.arena import play_match
from octagames.agents.base import RandomAgent
from octagames.agents.registry import make_agent
from octagames.agents.learn.league import RANDOM_OPPONENT, SELF_PLAY, League
from octagames.agents.learn.rollout import RolloutConfig
from octagames.experiments.cli import command_line
from octagames.experiments.train_ppo import TIME_COLUMNS, TrainConfig, Trainer, ppo_origin, train

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_training_beats_random_on_a_tiny_octrix(tmp_path):
    cfg = TrainConfig(game="octrix-round", config=("ranks=3", "hand_size=3"), seed=0,
                      total_steps=16_384, num_envs=64, num_steps=16, hidden=(64, 64), eval_every=0,
                      eval_games=300, eval_opponents=("random",), checkpoint_every=100,
                      run_dir=str(tmp_path), progress=False)
    result = train(cfg)
    first, last = result["rows"][0]["win_rate_vs_random"], result["final_eval"]["win_rate_vs_random"]
    # untrained ~0.44; the heuristic agent reaches ~0.71 on this configuration
    assert first < 0.5
    assert last >= 0.58, (first, last)


def _small_cfg(run_dir: Path, **kw) -> TrainConfig:
    base = dict(game="octrix-round", config=("ranks=3", "hand_size=3"), seed=3,
                total_steps=6 * 16 * 8, num_envs=16, num_steps=8, hidden=(16, 16), eval_every=2,
                eval_games=10, eval_opponents=("random",), checkpoint_every=2, snapshot_every=1,
                pool_size=2, self_play_prob=0.5, run_dir=str(run_dir), progress=False)
    base.update(kw)
    return TrainConfig(**base)


def test_kill_and_resume_gives_identical_metrics(tmp_path):
    full = train(_small_cfg(tmp_path / "full"))
    # killed (os._exit, no cleanup) after update 3: its last checkpoint is update 2
    killed = _small_cfg(tmp_path / "killed", stop_after=3)
    proc = subprocess.run(command_line(killed, "octagames.experiments.train_ppo", sys.executable), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stderr[-2000:]
    ckpt = torch.load(tmp_path / "killed" / "checkpoint.pt", weights_only=False)
    assert ckpt["counters"]["update"] == 2
    train(_small_cfg(tmp_path / "killed", resume=True))  # resumes from update 2 (in this process)
    resumed = json.loads((tmp_path / "killed" / "metrics.json").read_text())["rows"]
    assert len(resumed) == len(full["rows"]) == 7  # the start + 6 updates
    for a, b in zip(full["rows"], resumed):
        assert set(a) == set(b)
        for k in a:
            if k not in TIME_COLUMNS:
                assert _same(a[k], b[k]), (a["update"], k, a[k], b[k])
    assert any(r.get("league_games", 0) > 0 for r in resumed)  # the league was in play
    w_full = torch.load(tmp_path / "full" / "policy.pt")["state_dict"]
    w_res = torch.load(tmp_path / "killed" / "policy.pt")["state_dict"]
    assert all(torch.equal(w_full[k], w_res[k]) for k in w_full)


def test_outputs_and_policy_loads_as_an_arena_agent(tmp_path):
    cfg = _small_cfg(tmp_path, total_steps=2 * 16 * 8, eval_opponents=("random", "heuristic", "zoo:octrix"))
    result = train(cfg)
    for name in ("metrics.csv", "metrics.json", "curves.png", "checkpoint.pt", "policy.pt"):
        assert (tmp_path / name).stat().st_size > 0, name
    data = json.loads((tmp_path / "metrics.json").read_text())
    assert "zoo:octrix" in data["skipped_opponents"]  # the match's model: not this variant's
    assert {"win_rate_vs_random", "win_rate_vs_heuristic"} <= set(data["rows"][-1])
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0].split(",")
    assert "win_rate_vs_heuristic" in header and "pg_loss" in header
    for path in (result["policy"], result["checkpoint"]):
        agent = make_agent(f"ppo:{path}", "octrix")
        res = play_match("octrix-round", [agent, RandomAgent()], num_games=4, seed=0, progress=False,
                         num_players=2, ranks=3, hand_size=3)
        assert res.records[0].games == 4


@pytest.mark.parametrize("game,kwargs", [
    ("octrix-round", {"players": 3, "config": ("ranks=3", "hand_size=3")}),
    ("octrix-partnership", {"players": 4, "config": ("match=false", "ranks=3", "hand_size=3")}),
    ("achten", {"players": 2, "config": ()}),
])
def test_one_update_on_other_games_and_seat_counts(tmp_path, game, kwargs):
    cfg = _small_cfg(tmp_path, game=game, total_steps=16 * 8, eval_every=0, eval_games=2,
                     snapshot_every=1, self_play_prob=0.0, **kwargs)
    tr = Trainer(cfg)
    w = tr.worker  # the trainer's own rollout worker
    w.league.add(tr.model, cfg.pool_size)  # every game against a snapshot: learner plays one seat
    w.league.draw(np.arange(cfg.num_envs), w.rng, 0.0, tr.P)
    roll = tr.rollout()
    b = roll["batch"]
    assert 0 < roll["stats"]["train_fraction"] < 1
    assert b["obs"].shape[0] == round(roll["stats"]["train_fraction"] * cfg.num_envs * cfg.num_steps)
    assert torch.isfinite(b["advantages"]).all() and torch.isfinite(b["returns"]).all()
    assert b["mask"][torch.arange(len(b["actions"])), b["actions"]].all()
    result = tr.run()
    assert result["rows"][-1]["update"] == 1


def test_compact_observations_train_exactly_like_float32_ones(tmp_path):
    """A seeded run on the env's compact observations (uint8 here) learns what the run on float32 ones
    learns, to the bit; a float32 run's checkpoint resumes on compact observations and goes on the same way."""
    kw = dict(num_envs=32, total_steps=3 * 32 * 8, eval_every=0, snapshot_every=2, checkpoint_every=1)
    runs = {d: train(_small_cfg(tmp_path / d, obs_dtype=d, **kw)) for d in ("float32", "auto")}
    env_obs = {d: torch.load(tmp_path / d / "checkpoint.pt", weights_only=False)["workers"][0]["env"]["obs"]
               for d in runs}
    assert env_obs["float32"].dtype == np.float32 and env_obs["auto"].dtype == np.uint8  # auto: the narrowest
    # the float32 run's checkpoint at update 2, resumed with compact observations for the third update
    train(_small_cfg(tmp_path / "part", obs_dtype="float32", **{**kw, "total_steps": 2 * 32 * 8}))
    mixed = train(_small_cfg(tmp_path / "part", obs_dtype="auto", resume=True, **kw))
    for rows in (runs["auto"]["rows"], mixed["rows"]):
        assert len(rows) == len(runs["float32"]["rows"]) == 4
        for a, b in zip(runs["float32"]["rows"], rows):
            assert all(_same(a[k], b[k]) for k in a if k not in TIME_COLUMNS), a["update"]
    weights = [torch.load(r["policy"])["state_dict"] for r in (runs["float32"], runs["auto"], mixed)]
    assert all(torch.equal(w[k], weights[0][k]) for w in weights[1:] for k in w)
    with pytest.raises(ValueError, match=r"obs_dtype='int8' is not valid; valid values: \['auto', 'float32', "
                                         r"'uint8', 'uint16'\]"):
        TrainConfig(obs_dtype="int8")


def test_a_numpy_obs_dtype_is_kept_by_its_name():
    # a numpy dtype was stored as given (np.dtype("uint8") passed the check: it equals "uint8"; np.uint8 was
    # refused), so the run's config.json could not be written
    for config in (TrainConfig, functools.partial(RolloutConfig, "octrix")):
        kept = [config(obs_dtype=d).obs_dtype for d in (np.uint8, np.dtype("uint16"), "auto")]
        assert kept == ["uint8", "uint16", "auto"] and all(type(k) is str for k in kept)
        with pytest.raises(ValueError, match=r"obs_dtype=<class 'numpy.int8'> is not valid; valid values: \['auto'"):
            config(obs_dtype=np.int8)


def test_bfloat16_products_reproduce_a_run_and_leave_its_files_float32(tmp_path):
    """--matmul-dtype bfloat16 (rollouts and update): a seeded run gives the same metrics and weights again,
    not the float32 run's (the products are lowered), and close to them; weights and Adam stay float32."""
    kw = dict(num_envs=32, total_steps=3 * 32 * 8, eval_every=0, snapshot_every=2, checkpoint_every=1)
    runs = {name: train(_small_cfg(tmp_path / name, matmul_dtype=dt, **kw))
            for name, dt in (("a", "bfloat16"), ("b", "bfloat16"), ("f", "float32"))}
    for a, b in zip(runs["a"]["rows"], runs["b"]["rows"]):
        assert all(_same(a[k], b[k]) for k in a if k not in TIME_COLUMNS), a["update"]
    assert any(a.get("pg_loss") != f.get("pg_loss") for a, f in zip(runs["a"]["rows"], runs["f"]["rows"]))
    weights = {n: torch.load(r["policy"])["state_dict"] for n, r in runs.items()}
    assert all(torch.equal(weights["a"][k], weights["b"][k]) for k in weights["a"])
    assert all(w.dtype == torch.float32 for w in weights["a"].values())
    assert max(float((weights["a"][k] - weights["f"][k]).abs().max()) for k in weights["a"]) < 0.02
    adam = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=False)["optimizer"]["state"]
    state = [t for st in adam.values() for t in st.values() if t.is_floating_point()]
    assert state and all(t.dtype == torch.float32 for t in state)
    for config in (TrainConfig, functools.partial(RolloutConfig, "octrix")):  # the trainer's and its workers'
        with pytest.raises(ValueError, match=r"matmul_dtype='fp16' is not valid; valid values: "
                                             r"\['float32', 'bfloat16'\]"):
            config(matmul_dtype="fp16")


def test_league_draws_random_opponents_at_the_configured_rate():
    n = 20_000
    league = League(opponent=np.zeros(n, dtype=np.int64), seat=np.zeros(n, dtype=np.int64))
    league.draw(np.arange(n), np.random.default_rng(0), 0.5, 2, 0.25)
    # an empty pool: the snapshot share plays itself, the random share still plays random
    assert set(np.unique(league.opponent)) == {SELF_PLAY, RANDOM_OPPONENT}
    assert abs(np.mean(league.opponent == RANDOM_OPPONENT) - 0.25) < 0.02
    league.pool, league.pool_ids = [{}, {}], [0, 1]
    league.draw(np.arange(n), np.random.default_rng(0), 0.5, 2, 0.25)
    shares = [np.mean(league.opponent == k) for k in (SELF_PLAY, RANDOM_OPPONENT, 0, 1)]
    assert np.allclose(shares, [0.5, 0.25, 0.125, 0.125], atol=0.02)
    # without random opponents the draw is the one it always was (same RNG stream)
    a = League(opponent=np.zeros(n, dtype=np.int64), seat=np.zeros(n, dtype=np.int64), pool=[{}], pool_ids=[0])
    a.draw(np.arange(n), np.random.default_rng(1), 0.5, 3)
    assert set(np.unique(a.opponent)) == {SELF_PLAY, 0}


def test_games_an_engine_bound_stops_end_their_trajectories_and_count_as_played(tmp_path, monkeypatch):
    # Octiles stops a game at max_turns (not a rule: the vector env flags it truncated and deals the next at
    # once); the rollout ignored the flag, so each seat's last transition bootstrapped from the next game
    import octagames.agents.learn.rollout as rollout

    seen = {}

    def spy(*args, **kw):
        seen["terminated"], seen["truncated"] = args[2], args[7] if len(args) > 7 else kw.get("truncated")
        seen["player"], seen["at_stop"] = args[0], args[8] if len(args) > 8 else kw.get("truncated_values")
        seen["out"] = seat_gae(*args, **kw)
        return seen["out"]

    seat_gae = rollout.seat_gae
    monkeypatch.setattr(rollout, "seat_gae", spy)
    cfg = _small_cfg(tmp_path, game="octiles", config=("num_players=2", "max_turns=6"), num_steps=40,
                     eval_every=0)
    stats = Trainer(cfg).rollout()["stats"]
    cut = seen["truncated"]
    assert cut is not None and stats["truncated"] == int(cut.sum()) > 0
    assert stats["episodes"] == int(cut.sum() + seen["terminated"].sum())  # every game over, stopped ones too
    assert not seen["out"]["dones"][cut].any()  # bootstrapped, not an outcome
    # from the critic's value of each seat's view of the stopped position (the env's final_observation)
    t, i = np.nonzero(cut)
    at_stop = seen["at_stop"][t, i]
    assert at_stop.shape == (len(t), 2) and np.all(at_stop != 0.0) and not np.allclose(at_stop, at_stop[0, 0])
    assert np.allclose(seen["out"]["next_values"][t, i], at_stop[np.arange(len(t)), seen["player"][t, i]])


def test_random_opponents_play_legal_moves_and_only_the_learner_is_trained(tmp_path):
    cfg = _small_cfg(tmp_path, total_steps=16 * 8, eval_every=0, eval_games=2,
                     self_play_prob=0.0, random_opponent_prob=1.0)
    tr = Trainer(cfg)
    roll = tr.rollout()
    # every game is against random play: half of the 2-player moves are the learner's
    assert 0.3 < roll["stats"]["train_fraction"] < 0.7 and roll["stats"]["league_games"] == 0
    b = roll["batch"]
    assert b["mask"][torch.arange(len(b["actions"])), b["actions"]].all()


def test_config_validation_and_parsing():
    assert TrainConfig(game="octrix-round", config=("ranks=4", "hand_size=4")).resolve() == ("octrix", {
        "match": False, "num_players": 2, "ranks": 4, "hand_size": 4})
    with pytest.raises(ValueError, match="reward"):
        TrainConfig(reward="nope")
    with pytest.raises(ValueError, match=r"random_opponent_prob=0.6 must be in \[0, 1 - self_play_prob\]"):
        TrainConfig(self_play_prob=0.5, random_opponent_prob=0.6)
    with pytest.raises(ValueError, match="key=value"):
        TrainConfig(config=("ranks",))
    with pytest.raises(ValueError, match="ranks"):  # a value the game's Config refuses
        TrainConfig(config=("ranks=99",))
    assert TrainConfig(num_envs=8, num_steps=4, total_steps=33).num_updates == 2
    for field, value, words in (("total_steps", 0, "must be >= 1"), ("total_steps", -5, "must be >= 1"),
                                ("hidden", (64, 0), "give one or more layer widths >= 1"),
                                ("hidden", (), "give one or more layer widths >= 1"),
                                ("gamma", 2.0, "it must be in [0, 1]"), ("gae_lambda", -0.1, "it must be in [0, 1]"),
                                ("learning_rate", 0.0, "it must be a finite number > 0"),
                                ("ent_coef", -1.0, "it must be a finite number >= 0"),
                                ("max_grad_norm", 0.0, "it must be a finite number > 0"),
                                # inf trained NaN weights without a word (review)
                                ("learning_rate", float("inf"), "it must be a finite number > 0"),
                                ("clip_coef", float("inf"), "it must be a finite number > 0"),
                                ("vf_coef", float("inf"), "it must be a finite number >= 0"),
                                ("torch_threads", -1, "it must be >= 0"), ("seed", -1, "it must be >= 0")):
        with pytest.raises(ValueError, match=re.escape(f"{field}={value}") + ".*" + re.escape(words)):
            TrainConfig(**{field: value})


def test_agent_opponents_and_an_imitation_warm_start(tmp_path):
    """Heuristic opponents in half of the games, a warm start cloned from the heuristic; a run stopped
    and resumed from its checkpoint continues exactly (the agents' own RNGs are part of it)."""
    kw = dict(self_play_prob=0.25, agent_opponent_prob=0.5, imitation_games=20, imitation_steps=120,
              imitation_learning_rate=3e-3, eval_every=0)
    full = train(_small_cfg(tmp_path / "full", total_steps=4 * 16 * 8, **kw))["rows"]
    assert full[0]["imitation_accuracy"] > 0.5 and full[0]["update"] == 0
    assert sum(r.get("agent_games", 0) for r in full) > 0
    assert any(r.get("agent_win_rate") is not None for r in full)
    train(_small_cfg(tmp_path / "part", total_steps=2 * 16 * 8, **kw))  # ends with a checkpoint at update 2
    resumed = train(_small_cfg(tmp_path / "part", total_steps=4 * 16 * 8, resume=True, **kw))["rows"]
    for a, b in zip(full[3:], resumed[3:]):
        for k in a:
            if k not in TIME_COLUMNS and not k.startswith("win_rate"):
                assert _same(a[k], b[k]), (a["update"], k, a[k], b[k])
    with pytest.raises(ValueError, match=r"agent_opponent_prob=0.6 must be in"):
        TrainConfig(self_play_prob=0.5, agent_opponent_prob=0.6)


def test_resume_with_another_game_or_network_says_what_the_checkpoint_is(tmp_path):
    saved = Trainer(_small_cfg(tmp_path, game="achten", config=(), hidden=(64, 64)))
    saved.save_checkpoint()
    saved.release()  # its run folder's lock: the trainers below open the same folder
    with pytest.raises(ValueError, match=r"is a run of achten-2p with other settings: game achten-2p \(config \w+\) in "
                                         r"the run, octrix-round\+hand_size=3\+ranks=3-2p \(config \w+\) asked; hidden "
                                         r"\(--hidden\) 64 64 in the run, 16 16 asked\. "):
        Trainer(_small_cfg(tmp_path, resume=True)).run()
    with pytest.raises(ValueError, match=r"run of achten-2p with other settings: hidden \(--hidden\) 64 64 in the run, "
                                         r"32 32 asked\. "):
        Trainer(_small_cfg(tmp_path, game="achten", config=(), hidden=(32, 32), resume=True)).run()


def test_a_resume_refuses_another_seed_learning_rate_or_rollout_and_may_extend_the_steps(tmp_path):
    """The review's repro: a resume with another seed, rollout length or learning rate is refused, naming each
    field with the run's value and the asked one, and nothing in the run's folder changes; a resume that only
    extends total_steps goes on and appends its command to config.json's history."""
    run = tmp_path / "run"
    cfg = _small_cfg(run, total_steps=2 * 16 * 8, eval_every=0)
    train(cfg)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.iterdir())}
    for change, words, flags in ((dict(seed=99, num_steps=4), r"seed \(--seed\) 3 in the run, 99 asked; num_steps "
                                                              r"\(--num-steps\) 8 in the run, 4 asked\.",
                                  "--seed 3 --num-steps 8"),
                                 (dict(learning_rate=0.01), r"learning_rate \(--learning-rate\) 0.00025 in the run, "
                                                            r"0.01 asked\.", "--learning-rate 0.00025"),
                                 (dict(torch_threads=2), r"torch_threads \(--torch-threads\) 1 in the run, 2 asked\.",
                                  "--torch-threads 1")):
        with pytest.raises(ValueError, match=r"^--resume: .* is a run of octrix-round\+hand_size=3\+ranks=3-2p with "
                                             r"other settings: " + words + r" They change what the run computes or "
                                             r"records: to continue it, give the run's values \(" + flags
                                             + r"; a setting left out takes its default, not the run's\).* "
                                             r"--overwrite\)\. A resume may change only .*--total-steps, --obs-dtype"):
            train(dataclasses.replace(cfg, total_steps=3 * 16 * 8, resume=True, **change))
        assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.iterdir())} == before
    first = json.loads((run / "config.json").read_text())
    more = train(dataclasses.replace(cfg, total_steps=3 * 16 * 8, resume=True, eval_games=4))
    assert more["rows"][-1]["env_steps"] == 3 * 16 * 8
    config = json.loads((run / "config.json").read_text())
    assert {k: v for k, v in config.items() if k != "resumes"} == first
    assert first["config"]["seed"] == 3 and first["command"].endswith(" --total-steps 256 --num-envs 16 --num-steps 8 "
                                                                      "--hidden 16 16 --snapshot-every 1 --pool-size 2")
    (resumed,) = config["resumes"]
    assert resumed["resumed_at"]["update"] == 2 and resumed["resumed_at"]["env_steps"] == 256
    assert " --resume " in resumed["command"] and " --total-steps 384 " in resumed["command"]
    # annealed, the learning rate falls over total_steps: they are the run's
    train(_small_cfg(tmp_path / "annealed", total_steps=16 * 8, eval_every=0, anneal_lr=True))
    with pytest.raises(ValueError, match=r"total_steps \(--total-steps\) 128 in the run, 256 asked \(--anneal-lr "
                                         r"anneals the learning rate over it\)"):
        Trainer(_small_cfg(tmp_path / "annealed", total_steps=2 * 16 * 8, eval_every=0, anneal_lr=True, resume=True))


def test_a_policys_train_ppo_command_is_read_from_its_checkpoint(tmp_path):
    cfg = TrainConfig(game="octrix-round", config=("ranks=3", "hand_size=3"), total_steps=2 * 16 * 8, num_envs=16,
                    num_steps=8, hidden=(16,), eval_every=0, eval_games=2, eval_opponents=("random",),
                    run_dir=str(tmp_path / "ppo"), progress=False)
    train(cfg)
    origin = ppo_origin(f"ppo:{tmp_path / 'ppo' / 'policy.pt'}")
    assert origin["command"].startswith("python -m octagames.experiments.train_ppo --game octrix-round --config "
                                         "ranks=3 hand_size=3 --run-dir ")
    assert origin["command"].endswith(" --total-steps 256 --num-envs 16 --num-steps 8 --hidden 16")
    assert origin["env_steps"] == 256 and origin["spec"].endswith("policy.pt")
    assert ppo_origin("heuristic") == {}
    assert ppo_origin(f"ppo:{tmp_path / 'elsewhere' / 'policy.pt'}") == {}
    # a checkpoint of an older trainer (num_players, game_config): the command of today's flags
    (tmp_path / "old").mkdir()
    torch.save({"config": {"game": "octa", "num_players": 2, "game_config": ["rules=nl"], "total_steps": 819200,
                           "stop_after_updates": 0}, "counters": {"env_steps": 819200}},
               tmp_path / "old" / "checkpoint.pt")
    assert ppo_origin(f"ppo:{tmp_path / 'old' / 'policy.pt'}")["command"] == (
        "python -m octagames.experiments.train_ppo --game octa --players 2 --config rules=nl --total-steps 819200")


def test_a_run_folder_is_named_from_the_variant_players_config_and_seed():
    folders = [TrainConfig(**kw).resolved_run_dir() for kw in (
        dict(game="octa-en"), dict(game="octa-nl"), dict(game="octrix"), dict(game="octrix", players=3),
        dict(game="octrix", config=("hand_size=6",)), dict(game="octrix", seed=1))]
    assert len(set(folders)) == len(folders), folders
    assert [f.parent for f in folders] == [Path("runs/ppo")] * len(folders)
    assert [f.name.rsplit("-", 2)[0] for f in folders] == [
        "octa-en-2p", "octa-nl-2p", "octrix-2p", "octrix-3p", "octrix+hand_size=6-2p", "octrix-2p"]
    assert folders[-1].name.endswith("-s1") and folders[2].name.endswith("-s0")


def test_the_same_command_twice_is_refused_in_one_line(tmp_path):
    """A tiny run, then the same command again: refused (one line naming --resume and --overwrite)."""
    cfg = _small_cfg(tmp_path / "run", total_steps=16 * 8, eval_every=0)
    first = train(cfg)
    assert len(first["rows"]) == 2
    proc = subprocess.run(command_line(cfg, "octagames.experiments.train_ppo", sys.executable), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr[-2000:])
    (line,) = proc.stderr.splitlines()
    assert f"error: {tmp_path / 'run'} holds a run already" in line and "--resume" in line and "--overwrite" in line
    again = train(dataclasses.replace(cfg, total_steps=2 * 16 * 8, resume=True))  # continued
    assert [r["update"] for r in again["rows"]] == [0, 1, 2]
    replaced = train(dataclasses.replace(cfg, overwrite=True))  # started again
    assert [r["update"] for r in replaced["rows"]] == [0, 1]
    assert _clockless(replaced["rows"]) == _clockless(first["rows"])


def _clockless(rows):
    return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in rows]


def test_a_tiny_run_evaluates_on_few_games_and_says_where_it_goes_first(tmp_path, capsys):
    cfg = TrainConfig(game="octrix-round", config=("ranks=3", "hand_size=3"), total_steps=4096, num_envs=64,
                      num_steps=16, hidden=(16,), eval_every=0, eval_opponents=("random",), run_dir=str(tmp_path),
                      progress=False)
    assert cfg.games_per_evaluation() == 10 and TrainConfig(total_steps=2_000_000).games_per_evaluation() == 100
    tr = Trainer(cfg)
    first = capsys.readouterr().out.splitlines()
    assert first[0].startswith(f"train_ppo: {tmp_path} (octrix-round+hand_size=3+ranks=3-2p, config ")
    assert first[1].startswith("  settings: --game octrix-round --config ranks=3 hand_size=3 ")
    result = tr.run()
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  update 0/4: vs random ") and "(10 games each" in out[0]
    assert out[-1].startswith("  update 4/4: vs random ") and len(out) == 2
    assert result["rows"][-1]["env_steps"] == 4096


def test_a_bad_activation_is_refused_with_the_flags_before_the_run_folder_is_touched(tmp_path):
    """It was refused only when the network was built: after --overwrite had removed the run in the folder."""
    words = "activation='sigmoid' is not valid; valid values: ['relu', 'tanh']"
    with pytest.raises(ValueError, match=re.escape(words)):
        TrainConfig(activation="sigmoid", run_dir=str(tmp_path / "run"), overwrite=True)
    assert not (tmp_path / "run").exists()


class Crash(Exception):
    """A failure in the middle of the cloning steps (after a save of them)."""


def test_a_run_stopped_or_killed_in_its_cloning_steps_resumes_to_the_run_never_stopped(tmp_path, monkeypatch, capsys):
    """The warm start's cloning steps went on to their end after a stop, and a kill in them lost them and the teacher
    games before them: they are saved now, and the resumed run is the run never stopped."""
    from octagames.experiments import trainer
    monkeypatch.setattr(trainer, "WARM_START_SAVE_EVERY_S", 0.0)  # a save after every step
    monkeypatch.setattr(trainer, "WARM_START_SAVE_SHARE", math.inf)
    save, when = trainer.Trainer.save_warm_start, {}

    def save_then(self, parts, stages=None, rng=None):
        took = save(self, parts, stages, rng)
        if when["at"] is not None and (stages or {}).get("cloning", {}).get("steps") == when["at"]:
            when.pop("then")()
        return took

    def term():
        os.kill(os.getpid(), signal.SIGTERM)

    def crash():
        raise Crash

    def run(path, at=None, then=None, **more):
        when.update(at=at, then=then)
        cfg = _small_cfg(path, total_steps=16 * 8, imitation_games=4, imitation_steps=10, eval_every=0, eval_games=2,
                         **more)
        return train(cfg), (float(np.random.random()), torch.rand(2).tolist())

    monkeypatch.setattr(trainer.Trainer, "save_warm_start", save_then)
    full, full_rngs = run(tmp_path / "full")
    stopped, _ = run(tmp_path / "run", 3, term)  # noticed at the next step's save
    assert stopped["stopped_by"] == "SIGTERM" and stopped["rows"] == []
    assert "SIGTERM: stopped in the warm start in its cloning steps, after 4 of 10; --resume goes on from there" \
        in capsys.readouterr().out
    assert trainer.read_checkpoint(tmp_path / "run" / trainer.WARM_START_PARTIAL)["warm_start"]["stages"]["cloning"][
        "steps"] == 4  # read as --resume reads it
    with pytest.raises(Crash):
        run(tmp_path / "run", 7, crash, resume=True)
    assert "going on from step 4 of 10" in capsys.readouterr().out
    resumed, rngs = run(tmp_path / "run", resume=True)
    assert "going on from step 7 of 10" in capsys.readouterr().out
    assert [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in resumed["rows"]] == \
        [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in full["rows"]]
    assert resumed["rows"][0]["imitation_accuracy"] > 0
    for x, y in zip(torch.load(tmp_path / "full" / "policy.pt", weights_only=False)["state_dict"].values(),
                    torch.load(tmp_path / "run" / "policy.pt", weights_only=False)["state_dict"].values()):
        torch.testing.assert_close(x, y, rtol=0, atol=0)
    assert rngs == full_rngs
    assert not (tmp_path / "run" / trainer.WARM_START_PARTIAL).exists()


class _Payload:
    """What a checkpoint from elsewhere could hold in place of its agents: unpickling it runs code."""

    def __init__(self, path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "ran"))


def test_a_resume_unpickles_only_agents_this_users_key_signed(tmp_path, monkeypatch):
    """A checkpoint keeps its agent opponents in play as a pickle (their RNGs and searches); a resume unpickled it
    whatever wrote it, so a checkpoint from elsewhere ran its code. Now the pickles are signed with this user's
    key, and one not signed by it is refused unless OCTAGAMES_TRUST_CHECKPOINTS=1."""
    import pickle

    from octagames.experiments import trainer
    monkeypatch.setenv(trainer.KEY_ENV, str(tmp_path / "key"))
    monkeypatch.delenv(trainer.TRUST_ENV, raising=False)
    kw = dict(agent_opponent_prob=0.5, eval_every=0, eval_games=2)
    train(_small_cfg(tmp_path / "run", total_steps=16 * 8, **kw))
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600
    ckpt = tmp_path / "run" / "checkpoint.pt"
    d = trainer.read_checkpoint(ckpt)
    assert len(list(trainer._pickles(d))) >= 1 and len(d[trainer.SIGNATURE]) == 64
    train(_small_cfg(tmp_path / "run", total_steps=2 * 16 * 8, resume=True, **kw))  # its own: resumed
    ran = tmp_path / "ran"

    def swap(v):  # every pickle replaced by the payload's
        return pickle.dumps([_Payload(ran)]) if isinstance(v, bytes) else \
            {k: swap(x) for k, x in v.items()} if isinstance(v, dict) else \
            [swap(x) for x in v] if isinstance(v, list) else v

    torch.save(swap(trainer.read_checkpoint(ckpt)), ckpt)  # the signature kept: it signs other bytes
    with pytest.raises(ValueError, match=r"this user's key did not sign them .* OCTAGAMES_TRUST_CHECKPOINTS=1"):
        train(_small_cfg(tmp_path / "run", total_steps=3 * 16 * 8, resume=True, **kw))
    assert not ran.exists()
    train(_small_cfg(tmp_path / "other", total_steps=16 * 8, **kw))
    monkeypatch.setenv(trainer.KEY_ENV, str(tmp_path / "another key"))  # another user's, or machine's
    with pytest.raises(ValueError, match="this user's key did not sign them"):
        train(_small_cfg(tmp_path / "other", total_steps=2 * 16 * 8, resume=True, **kw))
    monkeypatch.setenv(trainer.TRUST_ENV, "1")  # a file you trust: resumed
    assert train(_small_cfg(tmp_path / "other", total_steps=2 * 16 * 8, resume=True, **kw))["rows"]
    monkeypatch.delenv(trainer.TRUST_ENV)  # a key that cannot be made (a home folder not writable): the run goes on
    (tmp_path / "a file").write_text("")  # unsigned (it failed at the first checkpoint), its resume refused in words
    monkeypatch.setenv(trainer.KEY_ENV, str(tmp_path / "a file" / "key"))
    train(_small_cfg(tmp_path / "third", total_steps=16 * 8, **kw))
    assert trainer.SIGNATURE not in trainer.read_checkpoint(tmp_path / "third" / "checkpoint.pt")
    with pytest.raises(ValueError, match=r"this user's key did not sign them .* which cannot be made"):
        train(_small_cfg(tmp_path / "third", total_steps=2 * 16 * 8, resume=True, **kw))
    (tmp_path / "empty key").write_bytes(b"")  # a key left empty (a kill between making and writing it) signed
    monkeypatch.setenv(trainer.KEY_ENV, str(tmp_path / "empty key"))  # with b"", which anyone can
    assert trainer.signing_key() is None and trainer.SIGNATURE not in trainer.sign_pickles({"a": b"x"})


def test_without_a_key_no_signature_passes_not_even_the_placeholder(tmp_path, monkeypatch):
    """A review: without a key (a home folder not writable, a key file not 32 bytes) the signature was compared with
    the placeholder "-", so a checkpoint from elsewhere signed "-" was resumed and its pickles ran."""
    from octagames.experiments import trainer
    monkeypatch.delenv(trainer.TRUST_ENV, raising=False)
    forged = {"workers": [{"opp_agents": b"any pickle"}]}
    for key in (tmp_path / "a file" / "key", tmp_path / "short key"):
        (tmp_path / "a file").write_text("")
        (tmp_path / "short key").write_bytes(b"x" * 16)
        monkeypatch.setenv(trainer.KEY_ENV, str(key))
        assert trainer.signing_key() is None
        for signature in ("-", "", None):
            with pytest.raises(ValueError, match=r"this user's key did not sign them .* which cannot be made or is "
                                                 r"not 32 bytes"):
                trainer.check_signed({**forged, trainer.SIGNATURE: signature}, tmp_path / "checkpoint.pt")
    trainer.check_signed({"workers": [{"seed": 1}]}, tmp_path / "checkpoint.pt")  # nothing to unpickle: no key needed
    monkeypatch.setenv(trainer.TRUST_ENV, "1")  # a file you trust
    trainer.check_signed({**forged, trainer.SIGNATURE: "-"}, tmp_path / "checkpoint.pt")


def test_settings_that_failed_late_are_refused_before_the_run_folder_naming_the_field(tmp_path):
    """A review: seeds whose derived evaluation seeds leave the engines' range, the cloning's learning rate and a
    NaN time budget were accepted; they failed after config.json was written (a folder then needing --overwrite),
    naming a derived seed or no field, or (NaN) never stopped the run. CUDA without a CUDA device was a traceback."""
    for kw, words in ((dict(seed=10_000_000_000_000), r"seed=10000000000000 is not valid; it must be < 2\*\*32"),
                      (dict(imitation_learning_rate=-1.0), r"imitation_learning_rate=-1.0 is not valid; it must be "
                                                           r"a finite number > 0"),
                      (dict(imitation_learning_rate=float("nan")), r"imitation_learning_rate=nan is not valid"),
                      (dict(time_budget_s=float("nan")), r"time_budget_s=nan is not valid")):
        with pytest.raises(ValueError, match=words):
            _small_cfg(tmp_path / "run", **kw)
    if not torch.cuda.is_available():  # checked against the machine when the run starts, before its folder
        with pytest.raises(ValueError, match=r"device='cuda' is not valid here: torch sees 0 CUDA devices"):
            train(_small_cfg(tmp_path / "run", device="cuda"))
    assert not (tmp_path / "run").exists()
    assert _small_cfg(tmp_path / "run", seed=2**32 - 1).seed == 2**32 - 1


def test_a_checkpoint_without_the_trainers_pool_takes_the_workers_and_the_snapshot_in_transit(tmp_path):
    # before 2026-12-07 the trainer kept only the snapshot not yet sent to its Ray actors; the pool it sends
    # every rollout now is the workers' pool and that snapshot
    tr = Trainer(_small_cfg(tmp_path / "a", pool_size=2))
    for _ in range(3):
        tr.step()
    d = tr.state_dict()
    league = d["workers"][0]["league"]
    assert league["pool_ids"] == [1, 2] and league["next_id"] == 3
    here = Trainer(_small_cfg(tmp_path / "c", pool_size=2))
    here.load_state_dict(d)  # a run in one process: its worker's league is the pool (were it resumed on actors)
    assert [i for i, _ in here.pool] == [1, 2] and here.next_snapshot == 3
    old = {k: v for k, v in d.items() if k not in ("pool", "next_snapshot")}
    old["pending_snapshot"] = {k: v + 1 for k, v in league["pool"][-1].items()}
    again = Trainer(_small_cfg(tmp_path / "b", pool_size=2))
    again.load_state_dict(old)
    assert [i for i, _ in again.pool] == [2, 3] and again.next_snapshot == 4
    assert all(torch.equal(v, old["pending_snapshot"][k]) for k, v in again.pool[-1][1].items())


def test_a_bad_opponent_agent_is_refused_before_the_run_writes_its_folder_naming_the_field(tmp_path):
    # it was refused at the first rollout game against it, naming no field ("agent='heuristc' is not valid")
    cfg = _small_cfg(tmp_path / "run", opponent_agent="heuristc", self_play_prob=0.0, agent_opponent_prob=1.0)
    with pytest.raises(ValueError, match=r"^opponent_agent: agent='heuristc' is not valid; valid agents: \["):
        Trainer(cfg)
    assert not (tmp_path / "run").exists()
    assert Trainer(dataclasses.replace(cfg, agent_opponent_prob=0.0, self_play_prob=1.0)).start == "new run"
