"""``octagames replay``: a record and a journal's game, all-seeing and one seat's view, stepping, bad files."""

import io
import json
import subprocess
import sys

import pytest

from octagames import records
from octagames.agents.arena import GameJournal, play_match
from octagames.agents.base import RandomAgent
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.replay import ReplayConfig, main


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    """A journal of three Achten games between the heuristic and a random agent."""
    path = tmp_path_factory.mktemp("replay") / "run.games.jsonl"
    game = Game("achten")
    j = GameJournal(path, {"game": "achten", "agents": ["heuristic", "random"]})
    play_match(game, [make_agent("heuristic", game), RandomAgent()], 3, seed=11, progress=False, journal=j)
    j.close()
    return path


def replay(file, lines: str = "", tty: bool = False, **cfg) -> tuple[int, str]:
    class Terminal(io.StringIO):
        def isatty(self):
            return tty

    out = Terminal()
    rc = main(ReplayConfig(file=str(file), **cfg), Terminal(lines), out)
    return rc, out.getvalue()


def positions(text: str) -> list[str]:
    return text.split("--- position ")[1:]


def test_a_journal_game_all_seeing(journal):
    record = records.load_game(journal, 2)
    rc, text = replay(journal, game_index=2)
    assert rc == 0
    head = text.split("\n\nmoves:\n")[0]
    assert head.splitlines()[0] == f"achten (2 players), seed {record.seed}, {record.length} moves, all-seeing"
    assert "agents: P0 heuristic, P1 random" in head
    assert f"returns: P0 {record.returns[0]:+.3g}, P1 {record.returns[1]:+.3g}" in head
    moves = text.split("\n\nmoves:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(maxsplit=2)[2] for line in moves] == record.names  # every name, chance included
    shown = positions(text)
    game = record.make_game()
    assert len(shown) == record.length + 1
    for k, (s, block) in enumerate(zip(records.states(record), shown)):
        assert block.startswith(f"{k}/{record.length}") and game.render(s) in block


def test_a_seats_view_shows_no_card_it_did_not_see(journal):
    record = records.load_game(journal, 0)
    game = record.make_game()
    true = records.states(record)
    for seat in (0, 1):
        rc, text = replay(journal, seat=seat)
        assert rc == 0 and f"as P{seat} saw it" in text
        shown = positions(text)
        for k, block in enumerate(shown):
            assert game.render(true[k], seat) in block
        # a card dealt to the other seat that this seat never saw before the showdown: named nowhere before it
        from octagames.achten import public
        seen = set().union(*(public.seen_ids(s, seat) for s in true[:-1]))
        names = {a: game.action_to_string(true[k], a).split()[1] for k, a in enumerate(record.actions)
                 if record.players[k] == -1}
        unseen = [names[a] for a in names if a not in seen]
        assert unseen
        before_end = text.split(f"--- position {record.length}/")[0]
        for card in unseen:
            assert f"{card} " not in before_end and f"{card}\n" not in before_end, (seat, card)
        assert text.count("(hidden)") >= len(unseen)


def test_stepping_forward_back_and_to_a_move(journal):
    record = records.load_game(journal, 1)
    rc, text = replay(journal, "n\nn\np\n5\nx\nq\n", tty=True, game_index=1)
    assert rc == 0
    steps = [block.split("/")[0] for block in positions(text)]
    assert steps == ["0", "1", "2", "1", "5"]
    assert "'x' is not a command" in text and f"moves 0..{record.length}" in text
    rc, text = replay(journal, "p\n", tty=True, game_index=1)  # back from the start, then end of input
    assert "That is the first position." in text
    rc, text = replay(journal, "p\n", tty=True, game_index=1, all=True)  # --all: no questions
    assert len(positions(text)) == record.length + 1 and "[n: next" not in text


def test_a_record_file_and_bad_files_on_the_command_line(tmp_path, journal):
    record = records.load_game(journal, 0)
    path = record.save(tmp_path / "game.json")
    rc, text = replay(path)
    assert rc == 0 and len(positions(text)) == record.length + 1
    bad = json.loads(path.read_text())
    bad["actions"][-1] = 77
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=rf"bad.json: move {record.length - 1}: player \d cannot play action 77"):
        replay(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="index=5 is not valid: .* holds 3 game record"):
        replay(journal, game_index=5)
    with pytest.raises(ValueError, match="seat=2 is not valid; valid values: 0..1"):
        replay(path, seat=2)
    proc = subprocess.run([sys.executable, "-m", "octagames.experiments.replay", str(tmp_path / "bad.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "cannot play action 77" in proc.stderr


def test_the_move_list_shows_a_searchs_thinking_and_a_seat_sees_only_its_own(tmp_path):
    from octagames.agents.arena import record_game

    game = Game("achten")
    record = record_game(game, [make_agent("mcts:50", game), make_agent("rollout:4", game)], 3)
    path = record.save(tmp_path / "game.json")
    true = records.states(record)
    for seat in (None, 0, 1):
        rc, text = replay(path, seat=seat)
        lines = text.split("\n\nmoves:\n")[1].split("\n\n")[0].splitlines()
        for k, line in enumerate(lines):
            told = record.thinking.get(k)
            if told is None or seat not in (None, record.players[k]):
                assert "simulations/worlds" not in line, line
                continue
            assert f"(value {told['value']:+.2f}, {told['visits']} simulations/worlds; " in line
            shares = told.get("policy")
            if shares:  # MCTS: its most visited move with its share and value
                top = max(shares, key=shares.get)
                name = game.action_to_string(true[k], top)
                assert f"{name} {shares[top]:.2f} (value {told['values'][top]:.2f})" in line
            else:  # the rollouts: their best move's win rate
                best = max(told["values"], key=told["values"].get)
                assert f"{game.action_to_string(true[k], best)} value {told['values'][best]:.2f}" in line
    assert {record.players[k] for k in record.thinking} == {0, 1}
