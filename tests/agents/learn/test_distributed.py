"""Work on Ray (a local instance with 2 CPUs): the same results as one process, resumption, faults."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import ray
import torch

from octagames.agents.arena import GameJournal, play_game, play_match
from octagames.agents.base import RandomAgent
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.tournament import run_tournament

from octagames.agents.learn.az import PolicyValueNet, SearchConfig
from octagames.agents.learn.az_selfplay import SelfPlayWorker, WorkerConfig
from octagames.agents.learn.distributed import ActorGroup, RayGames, SelfPlayActors, actor_resources, connect

TINY = {"ranks": 3, "hand_size": 3}


@pytest.fixture(scope="module")
def local_ray():
    connect(num_cpus=2)
    yield ray
    ray.shutdown()


def _tournament(executor=None, journal=None, agents=("random", "heuristic", "mcts:20"), games=6):
    return run_tournament("octrix", list(agents), games, seed=3, bootstrap=0, progress=False, executor=executor,
                          journal=journal)


def test_without_ray_the_flag_names_the_extra():
    code = ("import sys\n"
            "class NoRay:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'ray' or name.startswith('ray.'):\n"
            "            raise ImportError(\"No module named 'ray'\")\n"
            "sys.meta_path.insert(0, NoRay())\n"
            "from octagames.experiments.tournament import TournamentConfig, main\n"
            "main(TournamentConfig(agents='random,random', games_per_pair=1, ray=True, progress=False,"
            " out_dir=sys.argv[1]))\n")
    out = subprocess.run([sys.executable, "-c", code, os.devnull + "-dir"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode != 0
    assert "pip install 'octagames[distributed]'" in out.stderr


def test_games_on_ray_are_the_games_of_one_process(local_ray):
    here = _tournament()
    there = _tournament(RayGames(chunk_size=4))
    assert np.array_equal(here.wins, there.wins) and np.array_equal(here.games, there.games)
    game = Game("achten", num_players=3)  # three seats: line-ups rotate over them
    agents = [make_agent("heuristic", "achten"), make_agent("random", "achten"), make_agent("random", "achten")]
    a = play_match(game, agents, 9, seed=5, progress=False)
    b = play_match(game, agents, 9, seed=5, progress=False, executor=RayGames(chunk_size=2))
    assert a.returns == b.returns and a.records == b.records
    # one agent object in two seats (evaluate's opponents at 3 seats): one object in a task too, as here
    agents = agents[:2] + agents[1:2]
    a = play_match(game, agents, 9, seed=5, progress=False)
    b = play_match(game, agents, 9, seed=5, progress=False, executor=RayGames(chunk_size=2))
    assert a.returns == b.returns and a.records == b.records
    game = Game("octiles", goal_locks=True)  # an agent that writes into buffers it keeps
    agents = [make_agent("heuristic", "octiles"), make_agent("random", "octiles")]
    a = play_match(game, agents, 2, seed=1, progress=False)
    b = play_match(game, agents, 2, seed=1, progress=False, executor=RayGames(chunk_size=1))
    assert a.returns == b.returns


def test_a_journal_of_games_on_ray_keeps_their_records(local_ray, tmp_path):
    from octagames import records

    game = Game("achten")
    agents = [make_agent("heuristic", "achten"), make_agent("mcts:20", "achten")]  # MCTS tells its thinking
    here = GameJournal(tmp_path / "here.games.jsonl", {"run": 1})
    there = GameJournal(tmp_path / "there.games.jsonl", {"run": 1})
    play_match(game, agents, 4, seed=2, progress=False, journal=here)
    play_match(game, agents, 4, seed=2, progress=False, executor=RayGames(chunk_size=2), journal=there)
    here.close()
    there.close()
    assert [there.record(k) for k in range(4)] == [here.record(k) for k in range(4)]
    kept = records.load(tmp_path / "there.games.jsonl")
    assert len(kept) == 4 and all(r.thinking for r in kept)


class _Unshippable(RandomAgent):
    """An agent that cannot be unpickled: a task that receives it fails."""

    def __reduce__(self):
        return int, ("this agent was shipped to a task whose games do not seat it",)


def test_a_task_gets_only_the_agents_its_games_seat(local_ray):
    # a round robin's CFR table or network sits in the object store once; a chunk of other pairs'
    # games never unpickles it (the whole roster per task took 11 GB per worker with an Achten CFR)
    game = Game("octrix", **TINY)
    agents = [RandomAgent(), _Unshippable(), RandomAgent()]
    jobs = [(k, (0, 2) if k % 2 == 0 else (2, 0), 10 + k) for k in range(6)]
    got = {}
    RayGames(chunk_size=4).run(game, agents, jobs, lambda key, rets, length: got.setdefault(key, rets.tolist()))
    here = {k: play_game(game, [agents[a] for a in lineup], seed)[0].tolist() for k, lineup, seed in jobs}
    assert got == here
    with pytest.raises(ray.exceptions.RayError, match="whose games do not seat it"):
        RayGames(chunk_size=4).run(game, agents, [(0, (0, 1), 1)], lambda *a: None)


class _Counting:
    """A local executor that counts the games it is asked to play."""

    def __init__(self):
        self.asked = 0

    def run(self, game, agents, jobs, done):
        from octagames.agents.arena import play_game
        self.asked += len(jobs)
        for key, lineup, seed in jobs:
            done(key, *play_game(game, [agents[i] for i in lineup], seed))


def test_an_interrupted_run_resumes_from_the_games_saved(tmp_path):
    header = {"what": "test", "games": 6}
    path = tmp_path / "t.games.jsonl"
    full = _tournament(journal=GameJournal(path, header), agents=("random", "heuristic"))
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 6 and len({json.loads(x)["key"] for x in lines[1:]}) == 6
    path.write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])  # killed while writing the fourth game
    counting = _Counting()
    resumed = _tournament(counting, GameJournal(path, header), agents=("random", "heuristic"))
    assert counting.asked == 3  # the three games that were not saved whole
    assert np.array_equal(resumed.wins, full.wins)
    with pytest.raises(ValueError, match="another run"):
        GameJournal(path, {"what": "another"})


def _worker_pids(name: str) -> list[int]:
    import psutil
    pids = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if any(name in part for part in (p.info["cmdline"] or [])):
                pids.append(p.pid)
        except psutil.Error:
            continue
    return pids


def test_a_killed_game_worker_is_retried_and_no_game_counts_twice(local_ray, tmp_path):
    agents = ("mcts:300", "heuristic")
    here = _tournament(agents=agents, games=8)
    killed: list[int] = []

    def kill_one():
        deadline = time.time() + 120
        while time.time() < deadline and not killed:
            pids = _worker_pids("ray::_play_chunk")
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one)
    killer.start()
    path = tmp_path / "k.games.jsonl"
    there = _tournament(RayGames(chunk_size=1), GameJournal(path, {"k": 1}), agents=agents, games=8)
    killer.join()
    assert killed, "no game worker was found to kill"
    assert np.array_equal(here.wins, there.wins)
    keys = [json.loads(x)["key"] for x in path.read_text().splitlines()[1:]]
    assert sorted(keys) == list(range(8))


def _selfplay_parts():
    game = Game("octrix", **TINY)
    net = PolicyValueNet(game.observation_size, game.num_actions, game.num_players, (16,), 0, "relu")
    cfg = WorkerConfig(num_games=8, search=SearchConfig(simulations=4), self_play_prob=0.5, agent_prob=0.5,
                       opponent_agent="random")
    return game, net, cfg


def test_one_self_play_actor_plays_like_the_worker_and_a_killed_actor_comes_back(local_ray):
    game, net, cfg = _selfplay_parts()
    torch.manual_seed(0)
    weights = {k: v.clone() for k, v in net.state_dict().items()}
    here = SelfPlayWorker("octrix", TINY, cfg, net.spec, seed=11)
    here.set_weights(weights)
    a = here.play(min_samples=40)
    actors = SelfPlayActors(1, "octrix", TINY, cfg, net.spec, seed=11)
    assert actors.device == "cpu"
    actors.set_weights(weights)
    b = actors.play(min_samples=40)
    assert a.records.tobytes() == b.records.tobytes() and np.array_equal(a.pol_p, b.pol_p)
    assert np.array_equal(a.values, b.values) and actors.last_lag == 0
    (pid,) = actors.process_ids()
    os.kill(pid, signal.SIGKILL)
    c = actors.play(min_samples=40)  # restarted by Ray, the call retried with the same weights
    assert len(c) >= 40 and actors.process_ids()[0] != pid


def test_self_play_actors_share_the_cluster_gpus_and_refuse_cuda_without_one(local_ray):
    assert actor_resources(4, "cpu", 2.0) == {"num_cpus": 1, "num_gpus": 0}
    assert actor_resources(4, "cuda", 1.0) == {"num_cpus": 1, "num_gpus": 0.25}  # four searches, one GPU
    assert actor_resources(2, "cuda:0", 4.0) == {"num_cpus": 1, "num_gpus": 1.0}  # at most one GPU each
    assert actor_resources(3, "cuda", 2.0)["num_gpus"] == 0.5  # two to a GPU: all three fit
    for device, gpus, message in (("mps", 1.0, "valid values: cpu, cuda"), ("cuda", 0.5, "no whole GPU")):
        with pytest.raises(ValueError, match=message):
            actor_resources(2, device, gpus)
    if ray.cluster_resources().get("GPU", 0) == 0:  # this test's local instance: CPUs only
        _, net, cfg = _selfplay_parts()
        with pytest.raises(ValueError, match="device='cuda' with ray_actors=2: the Ray cluster has no whole GPU"):
            SelfPlayActors(2, "octrix", TINY, cfg, net.spec, seed=0, device="cuda")


class _Idle:
    """A worker class for :class:`ActorGroup` that does nothing."""


def test_more_actors_than_the_cluster_has_cpus_are_refused_at_once(local_ray):
    # Ray would keep the third actor waiting forever, silently (log_to_driver=False hides its warning)
    _, net, cfg = _selfplay_parts()
    message = r"ray_actors=3 needs 3 CPUs; the Ray cluster at \S+:\d+ has 2: give ray_actors=2 or fewer, or"
    start = time.perf_counter()
    with pytest.raises(ValueError, match=message):
        SelfPlayActors(3, "octrix", TINY, cfg, net.spec, seed=0)  # train_az's self-play actors
    with pytest.raises(ValueError, match=message):
        ActorGroup(_Idle, [()] * 3)  # train_ppo's rollout workers
    assert time.perf_counter() - start < 10


class _FakeRay:
    """What :func:`connect` asks of the ``ray`` module, recorded; ``init`` fails as Ray's does where asked."""

    def __init__(self, error: Exception | None = None):
        self.calls: list[dict] = []
        self.error = error

    def is_initialized(self):
        return False

    def init(self, **kwargs):
        self.calls.append(kwargs)
        if self.error is not None:
            raise self.error


def test_an_empty_address_starts_a_private_instance_and_a_bad_one_is_refused_naming_the_field(monkeypatch):
    import octagames.agents.learn.distributed as distributed

    fake = _FakeRay()
    monkeypatch.setattr(distributed, "require_ray", lambda: fake)
    for address in (None, "", "local"):  # Ray's "local": never the cluster of ray start, nor RAY_ADDRESS's
        connect(address, num_cpus=1)
        assert fake.calls.pop() == {"address": "local", "num_cpus": 1, "include_dashboard": False,
                                    "log_to_driver": False}
    fake.error = ConnectionError("Could not find any running Ray instance.")
    with pytest.raises(ValueError, match="ray_address='auto': Could not find any running Ray instance"):
        connect("auto")
    with pytest.raises(ValueError, match="ray_address='bogus' is not valid; valid forms"):
        connect("bogus")
    start = time.perf_counter()  # Ray itself retries an address where nothing answers for many minutes
    with pytest.raises(ValueError, match=r"ray_address='127.0.0.1:1': nothing answers at 127.0.0.1:1 \("):
        connect("127.0.0.1:1")
    assert time.perf_counter() - start < 15 and len(fake.calls) == 1  # only auto's


def test_train_az_on_ray_actors_writes_its_metrics(local_ray, tmp_path):
    from octagames.experiments.train_az import TIME_COLUMNS, TrainConfig, train

    base = TrainConfig(game="octrix-round", config=("ranks=3", "hand_size=3"), seed=0, device="cpu", iterations=2,
                       hidden=(16,), num_games=8, samples_per_iteration=48, simulations=4, play_simulations=4,
                       batch_size=32, eval_every=0, eval_games=8, eval_opponents=("random",), checkpoint_every=1,
                       imitation_games=0, run_dir=str(tmp_path / "here"), progress=False, torch_threads=1)
    here = train(base)
    one = train(dataclasses.replace(base, ray_actors=1, run_dir=str(tmp_path / "one")))
    two = train(dataclasses.replace(base, ray_actors=2, run_dir=str(tmp_path / "two")))

    def clockless(rows):
        return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in rows]

    assert clockless(one["rows"]) == clockless(here["rows"])  # one actor: the single-process run
    rows = json.loads((Path(two["run_dir"]) / "metrics.json").read_text())["rows"]
    assert [r["iteration"] for r in rows] == [0, 1, 2] and all(r.get("policy_lag", 0) == 0 for r in rows)
    assert (Path(two["run_dir"]) / "curves.png").stat().st_size > 0


def test_train_ppo_on_ray_actors_writes_its_metrics(local_ray, tmp_path):
    from octagames.experiments.train_ppo import TIME_COLUMNS, TrainConfig, train

    base = TrainConfig(game="octrix-round", config=("ranks=3", "hand_size=3"), seed=1, device="cpu", num_envs=16,
                       num_steps=8, total_steps=3 * 16 * 8, hidden=(16, 16), eval_every=0, eval_games=4,
                       eval_opponents=("random",), snapshot_every=1, self_play_prob=0.5, checkpoint_every=1,
                       run_dir=str(tmp_path / "here"), progress=False, torch_threads=1)
    here = train(base)
    one = train(dataclasses.replace(base, ray_actors=1, run_dir=str(tmp_path / "one")))
    two = train(dataclasses.replace(base, ray_actors=2, run_dir=str(tmp_path / "two")))

    def clockless(rows):
        return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in rows]

    assert clockless(one["rows"]) == clockless(here["rows"])  # one actor: the single-process run
    rows = json.loads((tmp_path / "two" / "metrics.json").read_text())["rows"]
    assert [r["env_steps"] for r in rows] == [0, 256, 512] and rows[-1]["policy_lag"] == 0
    assert (tmp_path / "two" / "curves.png").stat().st_size > 0


def test_a_journal_is_not_resumed_after_a_model_file_changed(tmp_path):
    from octagames.experiments.cli import open_journal

    model = tmp_path / "policy.pt"
    model.write_bytes(b"weights one")
    header = {"game": "octrix", "agent": f"ppo:{model}", "opponent": "random", "games": 4}
    open_journal(tmp_path / "j.games.jsonl", True, header).close()
    open_journal(tmp_path / "j.games.jsonl", True, header).close()  # the same model: resumed
    journal = open_journal(tmp_path / "j.games.jsonl", True, header)
    journal.add(0, np.array([1.0, -1.0]), 7)
    journal.close()
    model.write_bytes(b"weights two")
    journal = open_journal(tmp_path / "j.games.jsonl", True, header)
    assert not journal.done  # another model: started over, the old games kept aside
    assert '"key": 0' in (tmp_path / "j.games.jsonl.old").read_text()
    journal.close()
    assert open_journal(tmp_path / "j.games.jsonl", False, header).done == {}  # --no-resume starts over


def test_a_rollout_actor_that_ray_restarts_gets_the_leagues_pool_back(local_ray):
    # train_ppo sent each snapshot once: an actor Ray restarted (a fresh worker) played on with an empty
    # pool, its league games turned to self-play, and the next checkpoint kept the loss
    from octagames.agents.learn.rollout import RolloutWorker
    from octagames.experiments.train_ppo import TrainConfig

    cfg = TrainConfig(game="octrix-round", config=("ranks=3", "hand_size=3"), seed=1, device="cpu", num_envs=8,
                      num_steps=16, hidden=(16, 16), self_play_prob=0.0, pool_size=3, progress=False).rollout()
    weights = {k: v.clone() for k, v in RolloutWorker(cfg, 1).model.state_dict().items()}
    group = ActorGroup(RolloutWorker, [(cfg, 1)])
    pool: list = []
    for i in range(4):  # the trainer's pool, one snapshot more each update, the newest three kept
        pool = (pool + [(i, weights)])[-3:]
        group.call("rollout_with", weights, pool, 3)
    assert group.call("state_dict")[0]["league"]["pool_ids"] == [1, 2, 3]
    ray.kill(group.actors[0], no_restart=False)  # Ray restarts it: a fresh worker, no pool
    pool = (pool + [(4, weights)])[-3:]
    roll = group.call("rollout_with", weights, pool, 3)[0]
    league = group.call("state_dict")[0]["league"]
    assert league["pool_ids"] == [2, 3, 4] and len(league["pool"]) == 3 and league["next_id"] == 5
    assert roll["stats"]["league_games"] > 0 and (league["opponent"] >= 0).all()  # league games again
