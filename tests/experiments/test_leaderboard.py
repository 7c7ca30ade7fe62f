"""The leaderboard: one entry's round robin, its files, and a rerun of one entry keeping the others."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from octagames.experiments.leaderboard import (LeaderboardConfig, main, markdown, origins, ppo_policy,
                                               readme_note, roster, section_title, sections)
from octagames.experiments.train_ppo import TrainConfig

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py

DOCS = Path(__file__).resolve().parents[2] / "docs" / "leaderboard"


def _cfg(tmp_path, **kw) -> LeaderboardConfig:
    base = dict(game=("achten-dealer-pays",), games_per_pair=2, mcts=(4, 8), cfr_iterations=30, bootstrap=10,
                out=str(tmp_path / "leaderboard.md"), img_dir=str(tmp_path / "img"), ppo_dir=str(tmp_path / "ppo"),
                readme=str(tmp_path / "README.md"), zoo_simulations=4, progress=False)
    base.update(kw)
    return LeaderboardConfig(**base)


def test_an_entry_plays_every_agent_and_the_markdown_keeps_the_others(tmp_path, capsys):
    (tmp_path / "README.md").write_text("intro\n<!-- leaderboard:start -->\nold\n<!-- leaderboard:end -->\nrest\n")
    results = main(_cfg(tmp_path, add=("achten-dealer-pays=mcts:2",)))
    d = results["achten-dealer-pays"]
    assert d["agents"] == ["random", "heuristic", "mcts:4", "mcts:8", "cfr:30", "zoo:achten-dealer-pays:4",
                           "mcts:2"]
    assert d["config"]["deal_penalty"] == 1 and d["config"]["num_players"] == 2  # the variant's config
    n = len(d["agents"])
    games = d["games"]
    assert all(games[i][j] == (0 if i == j else 2) for i in range(n) for j in range(n))
    assert d["elo"][0] == 0.0 and len(d["elo_ci95"]) == n and all(lo <= hi for lo, hi in d["elo_ci95"])
    assert (tmp_path / "img" / "leaderboard_achten-dealer-pays.png").stat().st_size > 0
    md = (tmp_path / "leaderboard.md").read_text()
    title = section_title("achten-dealer-pays")
    assert title == "Full deck achten, one round, the worst hand pays 1 point for dealing, 2 players"
    assert f"## {title}\n\nVariant `achten-dealer-pays`;" in md and "`zoo:achten-dealer-pays:4`" in md
    assert f"![{title}](img/leaderboard_achten-dealer-pays.png)" in md
    # a second section later: the first one's table stays
    fake = dict(d, entry="octiles-fixed-start", title=section_title("octiles-fixed-start"))
    (tmp_path / "leaderboard" / "octiles-fixed-start.json").write_text(json.dumps(fake))
    # no PPO policy here: said on screen and in the section, not left out in silence (a rerun dropped it unsaid)
    assert "achten-dealer-pays: ppo skipped: no PPO policy under" in capsys.readouterr().out
    assert d["skipped"]["ppo"].startswith("no PPO policy") and "*`ppo` skipped: no PPO policy" in md
    # the same settings again: every game comes from the journal, none is played
    again = main(_cfg(tmp_path, add=("achten-dealer-pays=mcts:2",)))["achten-dealer-pays"]
    assert f"resuming: {n * (n - 1) // 2 * 2} games already played" in capsys.readouterr().out
    assert again["games"] == d["games"] and again["wins"] == d["wins"]
    md = (tmp_path / "leaderboard.md").read_text()
    assert md.index("## Full deck achten") < md.index("## Octiles, runners on fixed start circles")
    assert "2 games per pair" in md
    readme = (tmp_path / "README.md").read_text()
    assert readme.startswith("intro\n") and readme.endswith("rest\n") and "old" not in readme
    # --refit: the ratings fitted again from the journal, nothing played and the journal left as it is
    section, journal = tmp_path / "leaderboard" / "achten-dealer-pays.json", tmp_path / "leaderboard" / \
        "achten-dealer-pays.games.jsonl"
    section.write_text(json.dumps(dict(again, elo_ci95=[[0, 0]] * n)))
    kept = journal.read_bytes()
    refit = main(_cfg(tmp_path, refit=True))["achten-dealer-pays"]
    assert refit["elo_ci95"] == again["elo_ci95"] and refit["elo"] == again["elo"] and refit["seconds"] == \
        again["seconds"] and refit["refit"]["bootstrap"] == 10 and journal.read_bytes() == kept
    assert sum(map(sum, refit["draws"])) % 2 == 0 and "ratings refitted from its journal at commit" in \
        (tmp_path / "leaderboard.md").read_text()
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:-1]))  # its last game lost
    with pytest.raises(ValueError, match=rf"holds {n * (n - 1) - 1} of the round robin's {n * (n - 1)} games"):
        main(_cfg(tmp_path, refit=True))
    assert f"| {title} | `" in readme
    assert "| Octiles, runners on fixed start circles (no setup choices), 2 players |" in readme


def test_the_published_ratings_are_those_their_journals_give():
    """docs/leaderboard.md's ratings and intervals are the fit of the games its journals hold (after a change to the
    fit: ``octagames leaderboard --refit``), to float rounding: the fit's sums come out a unit in the last place
    apart on another CPU (732.2569772204663 written, 732.2569772204664 refitted on an AMD EPYC)."""
    from octagames import catalogue
    from octagames.experiments.tournament import refit_journal

    for key in sections():
        d = json.loads((DOCS / f"{key}.json").read_text())
        fitted = refit_journal(DOCS / f"{key}.games.jsonl", catalogue.variant(key).game, d["settings"]["bootstrap"])
        assert fitted.wins.tolist() == d["wins"] and fitted.draws.tolist() == d["draws"], key
        np.testing.assert_allclose(fitted.elo, d["elo"], rtol=1e-12, atol=1e-9, err_msg=key)
        np.testing.assert_allclose(fitted.elo_ci, d["elo_ci95"], rtol=1e-12, atol=1e-9, err_msg=key)


def test_a_readme_without_the_block_or_missing_is_said_not_skipped(tmp_path):
    plain, marked = tmp_path / "plain.md", tmp_path / "marked.md"
    plain.write_text("no block here\n")
    marked.write_text("a\n<!-- leaderboard:start -->\nold\n<!-- leaderboard:end -->\nb\n")
    assert readme_note(tmp_path / "nope.md", {}) == f"{tmp_path / 'nope.md'} not updated: no such file"
    assert readme_note(plain, {}) == (f"{plain} not updated: it has no <!-- leaderboard:start --> ... "
                                      "<!-- leaderboard:end --> block")
    assert plain.read_text() == "no block here\n" and not (tmp_path / "nope.md").exists()
    assert readme_note(marked, {}) == f"updated the leaderboard block of {marked}"
    assert "old" not in marked.read_text()


def test_a_ppo_policy_in_the_runs_folder_joins_and_bad_entries_are_refused(tmp_path):
    from octagames.agents.learn.ppo import ActorCritic, save_policy
    from octagames.core import Game

    g = Game("achten-dealer-pays")
    policy = tmp_path / "ppo" / "achten-dealer-pays" / "policy.pt"  # a folder named by hand, as runs once were
    save_policy(ActorCritic(g.observation_size, g.num_actions, (8,)), policy, g)
    with pytest.raises(ValueError, match="add: achten-dealer-pays=nope does not play here: .*valid agents"):
        roster("achten-dealer-pays", _cfg(tmp_path, add=("achten-dealer-pays=nope",)))
    # refused before any section plays, a typo in the last of several sections too
    with pytest.raises(ValueError, match="add: octrix=mctz:5 does not play here"):
        main(_cfg(tmp_path, game=("achten-dealer-pays", "octrix"), add=("octrix=mctz:5",)))
    assert not (tmp_path / "leaderboard").exists() and not (tmp_path / "leaderboard.md").exists()
    agents, _ = roster("achten-dealer-pays", _cfg(tmp_path))
    names = [a.name for a in agents]
    assert f"ppo:{policy}" in names
    # the folder train-ppo --game achten-dealer-pays writes by default comes first
    trained = tmp_path / TrainConfig(game="achten-dealer-pays").resolved_run_dir().relative_to("runs") / "policy.pt"
    assert trained.parent.name.startswith("achten-dealer-pays-2p-") and trained.parent.name.endswith("-s0")
    save_policy(ActorCritic(g.observation_size, g.num_actions, (8,)), trained, g)
    assert ppo_policy("achten-dealer-pays", tmp_path / "ppo") == trained
    assert ppo_policy("octrix", tmp_path / "ppo") is None
    with pytest.raises(ValueError, match="game: 'achten' is not valid; valid sections: "):
        LeaderboardConfig(game=("achten",))  # a variant without a section
    with pytest.raises(ValueError, match="add: 'octrix' is not <section>=<agent spec>"):
        LeaderboardConfig(add=("octrix",))
    with pytest.raises(ValueError, match="add: 'octrix=mcts:5' adds to section octrix, which this run does not play "
                                         r"\(game: octa-en\); name it with --game too"):  # it was dropped silently
        LeaderboardConfig(game=("octa-en",), add=("octrix=mcts:5",))
    for flag in ("refit", "record_games"):  # they play nothing: the agent was dropped
        with pytest.raises(ValueError, match=f"add: 'octrix=mcts:5' with --{flag.replace('_', '-')}, which plays no"):
            LeaderboardConfig(game=("octrix",), add=("octrix=mcts:5",), **{flag: True})


def test_a_bad_seed_is_refused_before_the_sections_journal_is_set_aside(tmp_path):
    """It was refused by the round robin, after the journal of the section's games had been moved aside."""
    journal = tmp_path / "leaderboard" / "octrix.games.jsonl"
    journal.parent.mkdir()
    journal.write_text("the games of the last run\n")
    with pytest.raises(ValueError, match=r"seed=-1 is not valid; it must be in 0\.\.2\*\*62-1"):
        main(_cfg(tmp_path, game=("octrix",), seed=-1))
    assert [p.name for p in journal.parent.iterdir()] == [journal.name]
    assert journal.read_text() == "the games of the last run\n"


def test_counts_out_of_range_are_refused_not_read_as_no_agent_or_no_intervals():
    """--cfr-iterations -1 left the cfr agent out of its section (a skipped spec), --zoo-simulations -7 was
    the zoo's default search and --bootstrap -3 gave no intervals, each without a word."""
    for field, value, words in (("cfr_iterations", -1, "it must be >= 0"),
                                ("zoo_simulations", -7, r"it must be 0 \(the network's policy alone\) or >= 2"),
                                ("zoo_simulations", 1, r"it must be 0 .* or >= 2 .*, or -1 \(each model's default"),
                                ("bootstrap", -3, "it must be >= 0")):
        with pytest.raises(ValueError, match=f"{field}={value} is not valid; {words}"):
            LeaderboardConfig(**{field: value})
    assert LeaderboardConfig(cfr_iterations=0, zoo_simulations=0, bootstrap=0).zoo_simulations == 0


def test_games_is_refused_with_the_hint_to_use_game(capsys):
    from octagames.experiments.cli import parse_config, parse_with_stdlib

    assert parse_with_stdlib(LeaderboardConfig, ["--game", "octiles-fixed-start"]).game == ("octiles-fixed-start",)
    for parse in (parse_config, parse_with_stdlib):
        with pytest.raises(SystemExit) as e:
            parse(LeaderboardConfig, ["--games", "octiles-fixed-start"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and "name the variants with --game" in err, err


def test_the_sections_are_the_variants_with_leaderboard_budgets():
    from octagames import catalogue

    assert sections() == ["octrix", "achten-dealer-pays", "octiles-fixed-start", "octa-en", "octa-nl"]
    for key in sections():
        v = catalogue.variant(key)
        assert v.leaderboard is not None and len(v.leaderboard) == 2 and v.default_players in v.zoo
    assert [k for k in sections() if catalogue.variant(k).leaderboard_cfr] == ["achten-dealer-pays"]


def test_each_published_section_was_played_on_its_variants_config():
    """docs/leaderboard/<section>.json records the full config its games were played on: the variant's,
    so a section's name says which game its figures belong to."""
    from octagames import catalogue
    from octagames.experiments.cli import model_fingerprints

    published = sorted(p.stem for p in DOCS.glob("*.json"))
    assert published == sorted(sections())
    for key in sections():
        d = json.loads((DOCS / f"{key}.json").read_text())
        v = catalogue.variant(key)
        assert d["game"] == v.game and d["entry"] == key and d["title"] == section_title(key)
        assert d["config"] == catalogue.full_config(v.game, v.full_config()), key
        assert f"zoo:{key}" in d["agents"] and d["png"] == f"docs/img/leaderboard_{key}.png"
        header = json.loads((DOCS / f"{key}.games.jsonl").read_text().split("\n", 1)[0])["header"]
        assert header["entry"] == key and header["agents"] == d["agents"]  # a rerun resumes these games
        assert catalogue.full_config(v.game, header["config"]) == d["config"]
        assert model_fingerprints([f"zoo:{key}"]) == {f"zoo:{key}": header["models"][f"zoo:{key}"]}  # its model
        # every other model the repository holds (net: at its card's budget too) is the one that played
        now = model_fingerprints(header["agents"])
        assert now == {spec: header["models"][spec] for spec in now}, key


def test_the_markdown_says_how_each_ppo_policy_was_trained(tmp_path):
    import torch

    run = tmp_path / "ppo" / "achten"
    run.mkdir(parents=True)
    cfg = TrainConfig(game="achten-dealer-pays", total_steps=999, run_dir=str(run))
    torch.save({"config": vars(cfg), "counters": {"env_steps": 1024}}, run / "checkpoint.pt")
    spec = f"ppo:{run / 'policy.pt'}"
    found = origins(["random", spec, f"ppo:{tmp_path / 'gone' / 'policy.pt'}"])
    assert list(found) == [spec] and found[spec]["env_steps"] == 1024
    command = found[spec]["command"]
    assert command.startswith("python -m octagames.experiments.train_ppo --game achten-dealer-pays ")
    assert f"--run-dir {run}" in command and "--total-steps 999" in command
    d = {"title": "Achten", "games_per_pair": 2, "seconds": 1.0, "commit": "abc", "date": "2026-11-24",
         "agents": ["random", spec], "wins": [[0, 0], [2, 0]], "games": [[0, 2], [2, 0]], "elo": [0.0, 300.0],
         "elo_ci95": [[0, 0], [100, 500]], "png": str(tmp_path / "img" / "x.png"), "origins": found}
    md = markdown({"achten-dealer-pays": d}, tmp_path / "leaderboard.md")
    assert f"*`{spec}`: `{found[spec]['command']}` (1,024 env steps)*" in md
    # a command recorded with older flags shows today's beside it
    old = {spec: {**found[spec], "command": "python -m x --game-config a=1", "command_today": "python -m x --game y"}}
    md = markdown({"achten-dealer-pays": {**d, "origins": old}}, tmp_path / "leaderboard.md")
    assert ("*`" + spec + "`: `python -m x --game-config a=1` (as then spelled; today: `python -m x --game y`) "
            "(1,024 env steps)*") in md
    assert "2 games in 1 s; commit abc" in md  # played here: no machine named
    md = markdown({"achten-dealer-pays": {**d, "machine": "a 16-core machine"}}, tmp_path / "leaderboard.md")
    assert "2 games in 1 s on a 16-core machine; commit abc" in md


def test_the_zoo_models_no_section_plays_get_a_row_from_their_cards():
    from octagames import catalogue
    from octagames.experiments.leaderboard import ZOO_DIR, other_counts, sections
    rows = [line for line in other_counts() if line.startswith("| `zoo:")]
    others = [name for name in catalogue.zoo_models() if name not in sections()]
    assert others and [row.split("`")[1] for row in rows] == [f"zoo:{name}" for name in others]
    for name, row in zip(others, rows):
        card = json.loads((ZOO_DIR / f"{name}.json").read_text())
        e = card["evaluation"][0]
        assert f"| {card['variant']} | {e['opponent']} | {e['win_rate']:.3f} [{e['ci95'][0]:.3f}, " in row
    md = markdown({}, Path("docs/leaderboard.md"))
    assert "## Zoo models at other player counts" in md and all(row in md for row in rows)
    published = Path(__file__).resolve().parents[2] / "docs" / "leaderboard.md"
    assert all(row in published.read_text() for row in rows)  # the published page has today's cards


def test_the_published_journals_keep_records_that_replay_to_their_results():
    """`octagames leaderboard --record-games` gave the published games their records (the moves of the
    games the ratings count): each record replays through the rules to the journal's returns and length."""
    from octagames import catalogue
    from octagames.records import GameRecord, check

    recorded = 0
    for key in sections():
        rows = [json.loads(line) for line in (DOCS / f"{key}.games.jsonl").read_text().splitlines()[1:]]
        header = json.loads((DOCS / f"{key}.games.jsonl").read_text().split("\n", 1)[0])["header"]
        with_record = [r for r in rows if "record" in r]
        recorded += len(with_record)
        for row in with_record[::10]:  # every tenth: the rules' replay is the slow part
            rec = GameRecord.from_dict(row["record"])
            check(rec)
            assert rec.returns == row["returns"] and rec.length == row["length"], (key, row["key"])
            assert rec.config == catalogue.full_config(rec.game, header["config"]) and rec.variant == key
            assert set(rec.agents) <= set(header["agents"])
    assert recorded > 0


def test_record_games_needs_the_sections_journal(tmp_path):
    with pytest.raises(FileNotFoundError, match="section octrix has no journal; play it first"):
        main(_cfg(tmp_path, game=("octrix",), record_games=True))


def test_ctrl_c_says_how_many_games_of_the_section_were_kept_and_exits_130(tmp_path, monkeypatch, capsys,
                                                                          ctrl_c_after_two_games):
    from octagames.experiments import leaderboard

    monkeypatch.setattr(leaderboard, "executor_from", lambda *flags: ctrl_c_after_two_games)  # conftest
    with pytest.raises(SystemExit) as e:
        try:
            main(_cfg(tmp_path))
        except KeyboardInterrupt:
            pytest.fail("Ctrl-C ended in a KeyboardInterrupt traceback")
    assert e.value.code == 130
    journal = tmp_path / "leaderboard" / "achten-dealer-pays.games.jsonl"
    assert capsys.readouterr().err.endswith(f"interrupted: 2 games kept in {journal}; run the same command "
                                            "again to go on\n")
    assert len(journal.read_text().splitlines()) == 1 + 2


def test_mcts_takes_one_or_more_budgets_as_its_help_says(tmp_path):
    """--mcts 5 played one MCTS agent while its help said it overrode the sections' two budgets."""
    from octagames.experiments.cli import stdlib_parser

    help_text = " ".join(stdlib_parser(LeaderboardConfig).format_help().split())
    assert "replace every section's two MCTS budgets with these, one or more" in help_text, help_text
    for budgets in ((5,), (2, 4, 8)):
        agents, _ = roster("achten-dealer-pays", _cfg(tmp_path, mcts=budgets))
        assert [a.name for a in agents if a.name.startswith("mcts:")] == [f"mcts:{n}" for n in budgets]
    with pytest.raises(ValueError, match=r"^mcts=\(5, 0\) is not valid; budgets must be >= 1$"):
        LeaderboardConfig(mcts=(5, 0))
