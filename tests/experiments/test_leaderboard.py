"""The leaderboard: one entry's round robin, its files, and a rerun of one entry keeping the others."""

from __future__ import annotations

import json

import pytest

from octagames.experiments.leaderboard import BOARDS, LeaderboardConfig, main, markdown, origins, roster

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def _cfg(tmp_path, **kw) -> LeaderboardConfig:
    base = dict(games=("achten",), games_per_pair=2, mcts=(4, 8), cfr_iterations=30, bootstrap=10,
                out=str(tmp_path / "leaderboard.md"), img_dir=str(tmp_path / "img"), ppo_dir=str(tmp_path / "ppo"),
                readme=str(tmp_path / "README.md"), zoo_simulations=4, progress=False)
    base.update(kw)
    return LeaderboardConfig(**base)


def test_an_entry_plays_every_agent_and_the_markdown_keeps_the_others(tmp_path):
    (tmp_path / "README.md").write_text("intro\n<!-- leaderboard:start -->\nold\n<!-- leaderboard:end -->\nrest\n")
    results = main(_cfg(tmp_path, add=("achten=mcts:2",)))
    d = results["achten"]
    assert d["agents"] == ["random", "heuristic", "mcts:4", "mcts:8", "cfr:30", "zoo:achten:4", "mcts:2"]
    n = len(d["agents"])
    games = d["games"]
    assert all(games[i][j] == (0 if i == j else 2) for i in range(n) for j in range(n))
    assert d["elo"][0] == 0.0 and len(d["elo_ci95"]) == n and all(lo <= hi for lo, hi in d["elo_ci95"])
    assert (tmp_path / "img" / "leaderboard_achten.png").stat().st_size > 0
    md = (tmp_path / "leaderboard.md").read_text()
    assert "## Full deck achten, 2 players, deal penalty 1" in md and "`zoo:achten:4`" in md
    assert "![Full deck achten, 2 players, deal penalty 1](img/leaderboard_achten.png)" in md
    # a second entry later: the first one's table stays
    fake = dict(d, entry="octiles", title=BOARDS["octiles"].title)
    (tmp_path / "leaderboard" / "octiles.json").write_text(json.dumps(fake))
    main(_cfg(tmp_path, games=("achten",), games_per_pair=1, add=()))
    md = (tmp_path / "leaderboard.md").read_text()
    assert md.index("## Full deck achten") < md.index("## Octiles, 2 players")
    assert "1 games per pair" in md
    readme = (tmp_path / "README.md").read_text()
    assert readme.startswith("intro\n") and readme.endswith("rest\n") and "old" not in readme
    assert "| Full deck achten, 2 players, deal penalty 1 | `" in readme and "| Octiles, 2 players |" in readme


def test_a_ppo_policy_in_the_runs_folder_joins_and_bad_entries_are_refused(tmp_path):
    from octagames.agents.learn.ppo import ActorCritic, save_policy
    from octagames.core import Game

    g = Game("achten", deal_penalty=1)
    save_policy(ActorCritic(g.observation_size, g.num_actions, (8,)), tmp_path / "ppo" / "achten" / "policy.pt", g)
    agents, skipped = roster("achten", _cfg(tmp_path, add=("achten=nope",)))
    names = [a.name for a in agents]
    assert f"ppo:{tmp_path / 'ppo' / 'achten' / 'policy.pt'}" in names
    assert "nope" in skipped and "valid agents" in skipped["nope"]
    with pytest.raises(ValueError, match="games: 'chess' is not valid"):
        LeaderboardConfig(games=("chess",))
    with pytest.raises(ValueError, match="add: 'octrix' is not <entry>=<agent spec>"):
        LeaderboardConfig(add=("octrix",))


def test_the_markdown_says_how_each_ppo_policy_was_trained(tmp_path):
    import torch

    from octagames.experiments.train_ppo import TrainConfig

    run = tmp_path / "ppo" / "achten"
    run.mkdir(parents=True)
    cfg = TrainConfig(game="achten", game_config=("deal_penalty=1",), total_steps=999, run_dir=str(run))
    torch.save({"config": vars(cfg), "counters": {"env_steps": 1024}}, run / "checkpoint.pt")
    spec = f"ppo:{run / 'policy.pt'}"
    found = origins(["random", spec, f"ppo:{tmp_path / 'gone' / 'policy.pt'}"])
    assert list(found) == [spec] and found[spec]["env_steps"] == 1024
    assert found[spec]["command"] == (f"python -m octagames.experiments.train_ppo --game achten --game-config "
                                      f"deal_penalty=1 --run-dir {run} --total-steps 999")
    d = {"title": "Achten", "games_per_pair": 2, "seconds": 1.0, "commit": "abc", "date": "2026-11-24",
         "agents": ["random", spec], "wins": [[0, 0], [2, 0]], "games": [[0, 2], [2, 0]], "elo": [0.0, 300.0],
         "elo_ci95": [[0, 0], [100, 500]], "png": str(tmp_path / "img" / "x.png"), "origins": found}
    md = markdown({"achten": d}, tmp_path / "leaderboard.md")
    assert f"*`{spec}`: `{found[spec]['command']}` (1,024 env steps)*" in md
    assert "2 games in 1 s; commit abc" in md  # played here: no machine named
    md = markdown({"achten": {**d, "machine": "a 16-core machine"}}, tmp_path / "leaderboard.md")
    assert "2 games in 1 s on a 16-core machine; commit abc" in md
