"""The terminal driver, driven by scripted input: bad entries, undo, help, quit, a whole game."""

import io
import subprocess
import sys

import pytest

from octagames.experiments.play import PlayConfig, main


def drive(lines: str, **cfg) -> tuple[int, str]:
    out = io.StringIO()
    rc = main(PlayConfig(**cfg), io.StringIO(lines), out)
    return rc, out.getvalue()


def test_bad_entries_get_a_message_and_a_new_prompt():
    rc, text = drive("xyz\n0\n99\nundo\nhelp\nquit\n", game="octrix-round", opponents="random")
    assert rc == 1 and "Traceback" not in text
    assert "'xyz' is not a move number (1..8)" in text
    assert "There is no move 0: choose a number from 1 to 8." in text
    assert "There is no move 99" in text
    assert "Nothing to undo" in text
    assert "undo       take back your last move" in text
    assert text.count("P0 move> ") == 6 and text.rstrip().endswith("Bye.")


def test_moves_by_number_and_name_then_undo():
    rc, text = drive("1\nundo\n♦8\nquit\n", game="octrix-round", opponents="random", seed=3)
    assert rc == 1
    assert "Your last move was taken back." in text
    first, second = [line.split("You play ")[1] for line in text.splitlines() if "You play " in line]
    assert second == "♦8" and first != second
    # after the undo the first trick is open again: the full hand of eight cards is listed
    after_undo = text.split("Your last move was taken back.")[1]
    assert "trick 1/8" in after_undo and "    8. " in after_undo


def test_a_whole_game_to_the_end_against_mcts():
    rc, text = drive("1\n" * 8, game="octrix-round", opponents="mcts:50", config=("hand_size=8",))
    assert rc == 0 and "Game over. Returns: P0" in text and "You " in text
    assert text.count("P1 (mcts:50) has chosen its move") == 8


def test_hidden_information_game_as_the_second_seat():
    rc, text = drive("1\n1\n1\nquit\n", game="achten-dealer-pays", opponents="mcts:30", seat=1)
    assert "You are P1." in text and "Traceback" not in text
    assert "plays action" not in text
    assert any(line.startswith("P0 (mcts:30) plays ") for line in text.splitlines()) or "Game over" in text


def test_every_move_is_named_and_the_history_printed_and_saved(tmp_path):
    from octagames import records

    path = tmp_path / "game.json"
    rc, text = drive("1\n" * 40, game="achten-dealer-pays", opponents="heuristic", seat=1, seed=2,
                     save=str(path))
    assert rc == 0 and "plays action" not in text
    record = records.load_game(path)  # replayed through the rules
    assert record.agents == ["heuristic", "human"] and record.finished and record.variant == "achten-dealer-pays"
    bot = [record.names[k] for k, p in enumerate(record.players) if p == 0]
    mine = [record.names[k] for k, p in enumerate(record.players) if p == 1]
    assert [line.split("P0 (heuristic) plays ")[1] for line in text.splitlines()
            if line.startswith("P0 (heuristic) plays ")] == bot
    assert [line.split("You play ")[1] for line in text.splitlines() if "You play " in line] == mine
    # the history at the end: every move, numbered, as seat 1 knew it (cards dealt to P0 read as hidden)
    history = text.split("The game, as you saw it:\n")[1].split("Game over.")[0].splitlines()
    assert len(history) == record.length
    known = records.move_names(record, 1)
    for k, line in enumerate(history):
        assert line.split(maxsplit=2)[2] == (known[k] if known[k] != records.HIDDEN_CHANCE else "(hidden)")
    assert any("(hidden)" in line for line in history) and f"record is in {path}" in text
    # a game left unfinished is saved too, without returns, and replays to where it stopped
    rc, text = drive("1\n2\nquit\n", game="achten-dealer-pays", opponents="heuristic", seat=1, seed=2,
                     save=str(path))
    record = records.load_game(path)
    assert rc == 1 and not record.finished and record.players.count(1) == 2


def test_simultaneous_moves_are_named_once_everyone_has_played():
    rc, text = drive("1\n" * 8, game="octrix-round", opponents="random", seed=4, seat=1)
    lines = text.splitlines()
    chosen = [i for i, line in enumerate(lines) if line.startswith("P0 (random) has chosen its move")]
    played = [i for i, line in enumerate(lines) if line.startswith("P0 (random) played ")]
    mine = [i for i, line in enumerate(lines) if "You play " in line]
    assert rc == 0 and len(chosen) == len(played) == len(mine) == 8
    # P0 moves first in each trick: its card is named only after yours, when the trick is complete
    assert all(c < m < p for c, m, p in zip(chosen, mine, played))


def test_the_dealers_pair_is_named_before_the_other_pair_plays_in_the_partnership_game():
    # the dealer's pair plays face up before the other two; with dealer 0 its cards were named only after the
    # whole trick (seat 2 follows seat 1, which the rule then took for the same round)
    rc, text = drive("1\nundo\n1\nquit\n", game="octrix-partnership", opponents="random", seed=4, seat=2)
    lines = text.splitlines()
    mine = next(i for i, line in enumerate(lines) if "You play " in line)
    for p in (0, 1):
        assert any(line.startswith(f"P{p} (random) played ") for line in lines[:mine]), p
    assert not any(line.startswith("P3 (random) played ") for line in lines[:mine])
    assert rc == 1 and text.count("P3 (random) has chosen its move") == 2  # once, then again after the undo


def test_bad_settings_are_one_line_errors(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["octagames play"])  # the name the user typed heads the line
    for kwargs, message in [(dict(opponents="nobody"), "agent='nobody' is not valid"),
                            (dict(seat=5), "seat=5 is not valid"),
                            # specs past the other seats were never built, garbage included; none played random
                            (dict(opponents="random,garbage:xyz"), "opponents='random,garbage:xyz' is not valid; "
                                                                   "give one agent spec, for the other seat"),
                            (dict(opponents=","), "opponents=',' is not valid")]:
        with pytest.raises(SystemExit) as e:
            drive("", game="octrix-round", **kwargs)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith(f"octagames play: error: {message}") and err.count("\n") == 1


def test_command_line_with_piped_stdin():
    proc = subprocess.run([sys.executable, "-m", "octagames.experiments.play", "--game", "octrix-round",
                           "--opponents", "random", "--seed", "1"], input="hello\n2\nquit\n",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "'hello' is not a move number" in proc.stdout and "You play " in proc.stdout
    assert "Traceback" not in proc.stderr


def test_a_digit_that_is_not_ascii_is_a_bad_entry_and_the_game_is_still_saved(tmp_path):
    from octagames import records

    path = tmp_path / "game.json"
    rc, text = drive("²\n1\nquit\n", game="octrix-round", opponents="random", save=str(path))
    assert rc == 1 and "Traceback" not in text and "'²'" in text  # "²" is a digit to str.isdigit, not to int
    assert records.load_game(path).length > 0


def test_a_negative_seed_is_a_one_line_error_naming_the_field(capsys, monkeypatch):
    """It was refused by numpy as "expected non-negative integer", naming no flag."""
    monkeypatch.setattr(sys, "argv", ["octagames play"])
    with pytest.raises(SystemExit) as e:
        drive("", game="octrix-round", seed=-5)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err == "octagames play: error: seed=-5 is not valid; it must be >= 0\n", err


@pytest.mark.parametrize("where", ["folder", "under a file", "under a broken link", "a broken link"])
def test_a_save_path_that_cannot_be_written_is_refused_before_the_game(where, tmp_path, capsys, monkeypatch):
    """The game was played to its end, then the record was lost to "[Errno 17] File exists", naming no flag (a
    folder that is a link to nothing too: a review)."""
    (tmp_path / "afile").write_text("x")
    (tmp_path / "records").symlink_to(tmp_path / "gone")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere" / "x.json")
    path, why = {"folder": (tmp_path, "is a folder; give a file's path"),
                 "under a file": (tmp_path / "afile" / "game.json",
                                  f"cannot be written: {tmp_path / 'afile'} is a file, not a folder"),
                 "under a broken link": (tmp_path / "records" / "game.json",
                                         f"cannot be written: {tmp_path / 'records'} is a link that leads nowhere, "
                                         "not a folder"),
                 "a broken link": (tmp_path / "dangling.json", "cannot be written: it is a link that leads nowhere")
                 }[where]
    monkeypatch.setattr(sys, "argv", ["octagames play"])
    with pytest.raises(SystemExit) as e:
        drive("1\n" * 40, game="octrix-round", opponents="random", save=str(path))
    err = capsys.readouterr()
    assert e.value.code == 2 and err.err == f"octagames play: error: save={str(path)!r} {why}\n", err.err
    assert err.out == ""  # no game was dealt
