"""Round robin, Bradley-Terry fit, intervals, files."""

import json
import re

import numpy as np
import pytest

import octagames.experiments.tournament as tournament
from octagames.experiments.tournament import (TournamentConfig, bootstrap_intervals, fit_bradley_terry, main,
                                              record_journal, run_tournament, seats_for)


def test_bradley_terry_recovers_known_strengths():
    # expected scores from ratings 0, 200, 400 with many games: the fit gets them back
    true = np.array([0.0, 200.0, 400.0])
    games = np.full((3, 3), 10000.0) - 10000.0 * np.eye(3)
    p = 1 / (1 + 10 ** ((true[None, :] - true[:, None]) / 400))
    wins = p * games
    elo = fit_bradley_terry(wins, games, prior_games=0.0)
    np.testing.assert_allclose(elo, true, atol=1.0)


def _score_gaps(wins: np.ndarray, games: np.ndarray, elo: np.ndarray, prior_games: float = 1.0) -> np.ndarray:
    """Each agent's score less its expected score under ``elo`` (with the prior's drawn games): zero at the
    maximum of the likelihood, whatever algorithm found it."""
    off = 1 - np.eye(len(wins))
    p = 1 / (1 + 10 ** ((elo[None, :] - elo[:, None]) / 400))
    return (wins + prior_games / 2 * off).sum(1) - ((games + prior_games * off) * p).sum(1)


def test_bradley_terry_reaches_the_maximum_on_a_lopsided_table():
    """Hunter's MM stopped after 2000 rounds where it stood: on this chain (neighbours only, the stronger
    winning all 2000 games) the last rating was 183 Elo short and the scores 0.94 games off their expectations."""
    n = 6
    games, wins = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n - 1):
        games[i, i + 1] = games[i + 1, i] = wins[i + 1, i] = 2000
    elo = fit_bradley_terry(wins, games)
    assert np.all(np.diff(elo) > 1000) and elo[0] == 0
    assert np.abs(_score_gaps(wins, games, elo)).max() < 1e-6
    # no prior: a perfect record has no finite maximum, which the fit says instead of returning a number
    with pytest.raises(ValueError, match=r"no finite maximum: a perfect record has no finite rating without the prior"):
        fit_bradley_terry(wins, games, prior_games=0.0)
    # hundreds of thousands of games a pair: the steps stall at the sums' rounding noise, above the tolerance (the
    # fit said it did not settle); the maximum is reached, the scores at their expectations
    big, games = np.zeros((4, 4)), np.zeros((4, 4))  # two pairs of 100,000 games that meet only through the prior
    big[0, 1], big[1, 0], big[3, 2] = 48_272, 51_728, 100_000
    games[0, 1] = games[1, 0] = games[2, 3] = games[3, 2] = 100_000
    elo = fit_bradley_terry(big, games)
    assert np.abs(_score_gaps(big, games, elo)).max() < 1e-6 * 100_000


def test_perfect_record_stays_finite_and_intervals_cover_the_fit():
    wins = np.array([[0, 0], [10, 0]], float)
    games = np.array([[0, 10], [10, 0]], float)
    elo = fit_bradley_terry(wins, games)
    assert elo[0] == 0 and 200 < elo[1] < 2000
    ci = bootstrap_intervals(wins, games, 50)
    assert ci[1, 0] <= elo[1] <= ci[1, 1] and ci[0, 0] == ci[0, 1] == 0
    # five agents, one of them losing every game: every interval still holds its own rating
    score = np.array([[0, 0, 0, 0, 0], [10, 0, 1, 3, 0], [10, 9, 0, 6, 4], [10, 7, 4, 0, 3],
                      [10, 10, 6, 7, 0]], float)
    games = 10.0 * (1 - np.eye(5))
    elo, ci = fit_bradley_terry(score, games), bootstrap_intervals(score, games, 100)
    assert np.all(ci[:, 0] <= elo + 1e-9) and np.all(elo <= ci[:, 1] + 1e-9)


def test_the_bootstrap_draws_every_game_of_a_pair_once_with_its_draws(monkeypatch):
    """Each game was drawn as two independent half games, which halved the variance of a pair's resampled score:
    95% intervals about 30% too narrow (they covered the true rating in 0.81-0.86 of simulated round robins)."""
    seen = []
    fit = tournament.fit_bradley_terry
    monkeypatch.setattr(tournament, "fit_bradley_terry", lambda w, g: seen.append(w[1, 0]) or fit(w, g))
    games = np.array([[0, 40], [40, 0]], float)
    for wins, draws, spread in ((20, 0, (40 * 0.25) ** 0.5),  # 40 games, no draw: 40 coin flips
                                (20, 20, (40 * 21 / 41 * 0.25) ** 0.5)):  # 10 wins, 20 draws, 10 losses
        seen.clear()
        ci = bootstrap_intervals(np.array([[0, 40 - wins], [wins, 0]], float), games, 4000, seed=1,
                                 draws=np.array([[0, draws], [draws, 0]], float))
        scores = np.array(seen[:-1])  # the last fit is the observed one
        assert len(scores) == 4000 and abs(scores.mean() - 20) < 0.3
        assert abs(scores.std() / spread - 1) < 0.05, (scores.std(), spread)
        assert draws or np.all(scores % 1 == 0)  # without draws every resampled game is a win or a loss
        assert ci[1, 0] < 0 < ci[1, 1]
    seen.clear()  # without draws given: as few as the scores allow, here none
    bootstrap_intervals(np.array([[0, 20], [20, 0]], float), games, 500)
    assert np.all(np.array(seen) % 1 == 0)
    with pytest.raises(ValueError, match=r"the pair \(0, 1\): wins 20.0 and draws 41.0 of 40 games do not add up"):
        bootstrap_intervals(np.array([[0, 20], [20, 0]], float), games, 5, draws=np.full((2, 2), 41.0))


def test_seats_rotate():
    assert seats_for(0, 2) == [0, 1] and seats_for(1, 2) == [1, 0]
    assert seats_for(1, 4) == [1, 0, 1, 0]


def test_round_robin_orders_agents_and_writes_files(tmp_path):
    cfg = TournamentConfig(game="octrix-round", agents="random,heuristic,mcts:100", games_per_pair=10,
                           config=("hand_size=5",), bootstrap=50, out_dir=str(tmp_path), progress=False)
    result = main(cfg)
    assert result.names == ["random", "heuristic", "mcts:100"]
    assert result.games[0, 1] == 10 and result.wins[0, 1] + result.wins[1, 0] == 10
    assert result.elo[0] == 0 and result.elo[2] > 100 and result.elo[1] > 100
    data = json.loads((tmp_path / "tournament_octrix-round+hand_size=5-2p.json").read_text())
    assert data["agents"] == result.names and len(data["elo_ci95"]) == 3
    assert data["config"]["hand_size"] == 5 and data["config"]["match"] is False
    # what plays the same games again (the JSON had no seed nor games per pair)
    assert data["settings"] == {"games_per_pair": 10, "seed": cfg.seed, "bootstrap": 50}
    assert result.table().startswith("octrix-round+hand_size=5-2p: round robin, 30 games, ")
    assert (tmp_path / "tournament_octrix-round+hand_size=5-2p.png").stat().st_size > 1000


def test_duplicate_specs_and_bad_input():
    r = run_tournament("achten", ["random", "random"], 4, bootstrap=0, progress=False)
    assert r.names == ["random", "random#2"] and r.wins.sum() == 4
    # no resamples, no intervals: the table printed a "95% CI" of width 0, which reads as certainty
    assert "95% CI" not in r.table().splitlines()[1] and r.table().count("no interval") == 2
    with pytest.raises(ValueError, match="at least two"):
        run_tournament("octrix", ["random"], 4)
    with pytest.raises(ValueError, match="fields"):
        main(TournamentConfig(config=("nope=1",), progress=False))


def test_the_table_keeps_long_agent_names_apart_from_their_figures():
    from octagames.experiments.tournament import TournamentResult
    names = ["random", "ppo:runs/ppo/a-long-run-name/policy.pt"]
    wins = np.array([[0, 1], [9, 0]], float)
    games = np.array([[0, 10], [10, 0]], float)
    result = TournamentResult("octrix", {}, names, wins, games, np.array([0.0, 380.0]),
                              np.array([[0.0, 0.0], [250.0, 600.0]]), 1.0)
    rows = result.table().splitlines()
    ratings = rows[2:4]
    assert [r.split()[:2] for r in ratings] == [[names[1], "380"], ["random", "0"]]
    assert len({r.index("[") for r in ratings}) == 1  # the interval column lines up
    pairs = [r for r in rows if r.startswith("  ")]
    assert pairs[1].split()[:2] == [names[1], "random:"] and pairs[1].split()[2] == "0.90"


def _journal_rows(path):
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def _played_journal(tmp_path):
    """A journal as the tournament writes it today, with its records: its path, header and rows."""
    cfg = TournamentConfig(game="octrix-round", agents="random,heuristic,mcts:8", games_per_pair=2,
                           config=("hand_size=5",), bootstrap=0, out_dir=str(tmp_path), progress=False)
    main(cfg)
    path = tmp_path / "tournament_octrix-round+hand_size=5-2p.games.jsonl"
    return (path, *_journal_rows(path))


def test_record_journal_gives_an_old_journal_the_records_its_games_had(tmp_path):
    # a journal as the tournament writes it today; then the same without its records
    path, header, rows = _played_journal(tmp_path)
    assert len(rows) == 6 and all("record" in r for r in rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in
                            [header] + [{k: v for k, v in r.items() if k != "record"} for r in rows]))
    done = record_journal(path, "octrix-round", progress=False)
    assert (done.recorded, done.already, done.left) == (6, 0, {})
    again_header, again = _journal_rows(path)
    assert again_header == header and again == rows  # the same moves, names and returns, a row per game
    assert record_journal(path, "octrix-round", progress=False).already == 6  # nothing left to do


def test_record_journal_leaves_games_of_a_changed_model_and_refuses_a_game_that_ends_otherwise(tmp_path):
    path, header, rows = _played_journal(tmp_path)
    stripped = [{k: v for k, v in r.items() if k != "record"} for r in rows]
    # the journal says mcts:8 played with a model file that is not here: its 4 games keep no record
    changed = {"header": {**header["header"], "models": {"mcts:8": "0123456789abcdef"}}}
    path.write_text("".join(json.dumps(r) + "\n" for r in [changed] + stripped))
    done = record_journal(path, "octrix-round", progress=False)
    assert done.recorded == 2 and list(done.left.values()) == [4] and "mcts:8" in next(iter(done.left))
    # a game whose journaled length is not what it replays to: refused, naming the game and its agents
    bad = [dict(r, length=r["length"] + 1) if r["key"] == 0 else r for r in stripped]
    path.write_text("".join(json.dumps(r) + "\n" for r in [header] + bad))
    with pytest.raises(ValueError, match=r"game 0 \(random vs heuristic\) replays to .* the agents or rules changed"):
        record_journal(path, "octrix-round", progress=False)
    _, after = _journal_rows(path)
    assert [r["length"] for r in after] == [r["length"] for r in bad] and "record" not in after[0]
    with pytest.raises(ValueError, match="not a round robin's journal"):
        (tmp_path / "x.games.jsonl").write_text('{"header": {"agents": ["random"]}}\n')
        record_journal(tmp_path / "x.games.jsonl", "octrix-round", progress=False)


def test_a_negative_bootstrap_is_refused_not_read_as_no_intervals():
    """--bootstrap -1 played the games and gave every rating a zero-width interval, without a word."""
    with pytest.raises(ValueError, match=r"bootstrap=-1 is not valid; it must be >= 0 \(0: no intervals\)"):
        TournamentConfig(bootstrap=-1)
    assert TournamentConfig(bootstrap=0).bootstrap == 0


def test_bad_settings_leave_a_played_journal_as_it_was(tmp_path):
    path, header, rows = _played_journal(tmp_path)
    before = path.read_bytes()
    cfg = dict(game="octrix-round", agents="random,heuristic,mcts:8", games_per_pair=2, config=("hand_size=5",),
               bootstrap=0, out_dir=str(tmp_path), progress=False)
    with pytest.raises(ValueError, match="games_per_pair=0 is not valid"):
        main(TournamentConfig(**{**cfg, "games_per_pair": 0}))
    with pytest.raises(ValueError, match="agents='random' is not valid"):
        main(TournamentConfig(**{**cfg, "agents": "random"}))
    with pytest.raises(ValueError, match="seed=-1 is not valid"):
        main(TournamentConfig(**{**cfg, "seed": -1}))
    for resume in (True, False):  # a spec that does not build: the journal is neither moved aside nor deleted
        with pytest.raises(ValueError, match="mctz"):
            main(TournamentConfig(**{**cfg, "agents": "random,mctz:8", "resume": resume}))
    assert path.read_bytes() == before and not list(tmp_path.glob("*.old*"))


def test_ctrl_c_says_how_many_games_were_kept_and_exits_130(tmp_path, monkeypatch, capsys,
                                                             ctrl_c_after_two_games):  # tests/conftest.py
    monkeypatch.setattr(tournament, "executor_from", lambda *flags: ctrl_c_after_two_games)
    cfg = TournamentConfig(game="octrix-round", agents="random,heuristic", games_per_pair=6, bootstrap=0,
                           out_dir=str(tmp_path), progress=False)
    with pytest.raises(SystemExit) as e:
        try:
            main(cfg)
        except KeyboardInterrupt:
            pytest.fail("Ctrl-C ended in a KeyboardInterrupt traceback")
    assert e.value.code == 130
    [journal] = tmp_path.glob("*.games.jsonl")
    said = f"\ninterrupted: 2 games kept in {journal}; run the same command again to go on\n"
    assert capsys.readouterr().err == said
    assert len(journal.read_text().splitlines()) == 1 + 2
    monkeypatch.undo()  # the same command goes on: the four games it lacks
    assert main(cfg).games[0, 1] == 6 and "resuming: 2 games already played" in capsys.readouterr().out


def test_no_two_pairs_share_a_deal_however_many_games_a_pair_plays():
    from octagames.experiments.tournament import round_robin_jobs

    for games in (20, 1000, 1500):
        jobs = round_robin_jobs(3, games, 7, 2)
        assert len({seed for _, _, seed in jobs}) == len(jobs) == 3 * games
    # up to 1000 games a pair, the seeds the published journals were played with
    assert [seed for _, _, seed in round_robin_jobs(3, 2, 7, 2)] == [7, 8, 1007, 1008, 2007, 2008]


def _journaled(tmp_path, agents, games_per_pair):
    """An octrix-round round robin of ``agents`` run with its journal: its config, result, journal and lines."""
    cfg = TournamentConfig(game="octrix-round", agents=agents, games_per_pair=games_per_pair, bootstrap=0,
                           out_dir=str(tmp_path), progress=False)
    first = main(cfg)
    [journal] = tmp_path.glob("*.games.jsonl")
    return cfg, first, journal, journal.read_text().splitlines()


def test_a_journal_row_that_is_no_game_s_is_refused_naming_its_line_not_counted(tmp_path):
    """A row's returns were counted as they stood: NaN, three returns for two seats, or returns other than its
    record's changed the scores (and the ratings refitted from them) without a word."""
    from octagames.experiments.tournament import refit_journal

    cfg, first, journal, lines = _journaled(tmp_path, "random,heuristic", 4)
    row = json.loads(lines[1])
    flipped = {**row, "returns": [-r for r in row["returns"]]}
    for damaged, words in ((dict(row, returns=[1e308, float("nan")]), "not a game's row"),
                           (dict(row, returns="xx"), "not a game's row"), ([1, 2], "not a game's row"),
                           (dict(row, key=-1), "not a game's row"),
                           (flipped, f"game {row['key']}'s record does not end as its row says")):
        journal.write_text("\n".join([lines[0], json.dumps(damaged), *lines[2:]]) + "\n")
        with pytest.raises(ValueError, match=rf"games\.jsonl, line 2: {re.escape(words)}"):
            refit_journal(journal, "octrix-round")
        with pytest.raises(ValueError, match=rf"games\.jsonl, line 2: {re.escape(words)}"):
            main(cfg)  # the resume: refused, neither counted nor set aside
        assert not list(tmp_path.glob("*.old*"))
    del flipped["record"]  # three returns for two seats, no record to tell
    journal.write_text("\n".join([lines[0], json.dumps(dict(flipped, returns=[5.0, 5.0, 5.0])), *lines[2:]]) + "\n")
    with pytest.raises(ValueError, match=rf"game {row['key']}: 3 returns for the 2 seats"):
        refit_journal(journal, "octrix-round")
    journal.write_text("\n".join(lines) + "\n")
    assert refit_journal(journal, "octrix-round").wins.tolist() == first.wins.tolist()


def test_an_odd_count_of_games_a_pair_seats_its_last_game_by_pair(tmp_path):
    """With an odd ``games_per_pair`` the pair's first agent sat first in the extra game of every pair: the agents
    listed first had a game more in seat 0 (with 3 games a pair among 3 agents, 4, 3 and 2 games)."""
    from octagames.experiments.tournament import record_journal, refit_journal, round_robin_jobs

    def seat0(jobs):
        return np.bincount([lineup[0] for _, lineup, _ in jobs], minlength=3).tolist()

    assert seat0(round_robin_jobs(3, 3, 0, 2)) == [3, 3, 3]
    assert seat0(round_robin_jobs(3, 3, 0, 2, odd_by_pair=False)) == [4, 3, 2]  # a journal of before
    assert round_robin_jobs(3, 4, 0, 2) == round_robin_jobs(3, 4, 0, 2, odd_by_pair=False)  # even: as before
    _, first, journal, lines = _journaled(tmp_path, "random,heuristic,random", 1)
    head = json.loads(lines[0])
    assert head["header"]["odd_game_seats"] == "by pair"
    assert refit_journal(journal, "octrix-round").wins.tolist() == first.wins.tolist()
    del head["header"]["odd_game_seats"]  # a journal of before: its games seated as then
    journal.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    old = refit_journal(journal, "octrix-round")
    assert old.wins[0, 2] == first.wins[2, 0] and old.wins[2, 0] == first.wins[0, 2]  # pair 1 (0, 2): other seats
    assert record_journal(journal, "octrix-round", progress=False).already == 3


def test_a_binary_file_given_as_a_journal_is_refused_naming_it(tmp_path, capsys):
    # a bare UnicodeDecodeError, naming no file, from the refit and the journal's reader
    from octagames.agents.arena import GameJournal, NoHeaderError, journal_games
    from octagames.experiments.tournament import refit_journal

    path = tmp_path / "tournament.games.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    for read in (lambda: refit_journal(path, "octrix-round"), lambda: journal_games(path),
                 lambda: GameJournal(path, {"run": 1})):
        with pytest.raises(NoHeaderError, match=re.escape(f"{path} is not a journal: byte 0 is not UTF-8 text")):
            read()


def test_a_table_whose_anchor_scored_next_to_nothing_says_its_ratings_are_lower_bounds():
    """A review: the anchor (random, rated 0) lost every game on four of the five published boards; simulated round
    robins from those ratings put the true rating inside the '95%' interval in 0.57-0.69 of them. The table says so
    where the anchor scored under a tenth of its games, and not otherwise."""
    from octagames.experiments.tournament import ANCHOR_SCORE, anchor_note

    games = 20.0 * (1 - np.eye(3))
    names = ["random", "heuristic", "mcts:100"]
    for anchor_wins, noted in ((0, True), (3, True), (4, False), (20, False)):  # of its 40 games: 0, 0.075, 0.1
        wins = np.array([[0, anchor_wins, 0], [20 - anchor_wins, 0, 8], [20, 12, 0]], float)
        note = anchor_note(names, wins, games)
        assert (note is not None) == noted == (anchor_wins / 40 < ANCHOR_SCORE), anchor_wins
        if noted:
            assert note.startswith(f"random, the anchor at 0, scored {anchor_wins / 40:.3f} of its games: the ratings "
                                   "above it rest on the prior")
    wins = np.array([[0, 0, 0], [20, 0, 8], [20, 12, 0]], float)
    elo, ci = fit_bradley_terry(wins, games), bootstrap_intervals(wins, games, 20)
    result = tournament.TournamentResult(game="octrix", config={"num_players": 2}, names=names, wins=wins, games=games,
                                         elo=elo, elo_ci=ci, seconds=1.0)
    assert "\nnote: random, the anchor at 0, scored 0.000 of its games" in result.table()
