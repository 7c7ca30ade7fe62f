"""The arena: seat rotation, win accounting, confidence intervals, no peeking, JSON output."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from octagames.agents.arena import (BusyError, GameJournal, journal_lock, play_match, record_game,
                                    wilson_interval)
from octagames.agents.base import Agent, RandomAgent, Turn
from octagames.agents.heuristics.octrix import OctrixHeuristicAgent
from octagames.agents.registry import make_agent
from octagames.core import Game, IllegalActionError


class SeatLogger(Agent):
    name = "logger"

    def __init__(self):
        self.seats = []

    def reset(self, game, seat, seed):
        super().reset(game, seat, seed)
        self.seats.append(seat)

    def act(self, turn: Turn) -> int:
        return int(turn.legal_actions[0])


def test_seats_rotate_evenly():
    a, b, c = SeatLogger(), SeatLogger(), SeatLogger()
    play_match("octrix-round", [a, b, c], num_games=9, progress=False, num_players=3, hand_size=2)
    for agent in (a, b, c):
        assert sorted(agent.seats) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert a.seats[:3] == [0, 1, 2]


def test_win_accounting_and_json(tmp_path):
    r = play_match("octrix-round", [OctrixHeuristicAgent(), RandomAgent()], 60, seed=1, progress=False)
    h, rnd = r.records
    assert h.games == rnd.games == 60
    assert h.wins == rnd.losses and h.draws == rnd.draws
    assert h.total_return == pytest.approx(-rnd.total_return)
    assert h.score > 0.6  # the heuristic clearly beats random play
    path = r.save(tmp_path / "m.json")
    data = json.loads(path.read_text())
    assert data["agents"][0]["name"] == "heuristic" and len(data["agents"][0]["ci95"]) == 2
    assert "heuristic" in r.table() and "95% CI" in r.table()


def test_wilson_interval_holds_the_proportion_at_every_count_so_error_bars_are_never_negative():
    # wilson_interval(6, 6) had its upper end at 0.9999999999999999, below the rate 1.0: evaluate's plot of an
    # agent that won every game failed with matplotlib's "'yerr' must not contain negative values"
    for n in range(1, 400):
        for wins in (0, 0.5, 1, n / 2, n - 1, n - 0.5, n):
            lo, hi = wilson_interval(wins, n)
            assert 0.0 <= lo <= wins / n <= hi <= 1.0, (wins, n, lo, hi)
    assert wilson_interval(6, 6)[1] == 1.0 and wilson_interval(0, 6)[0] == 0.0


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)


class Spy(Agent):
    """Records what it is shown about the other seat's face-down card."""

    name = "spy"

    def __init__(self):
        self.views = []

    def act(self, turn: Turn) -> int:
        s, g = turn.state, turn.game
        assert np.array_equal(g.observation(s, turn.seat), turn.observation)
        t = int(s["trick"])
        other = int(s["trick_cards"][t, 0])
        if turn.seat == 1 and other >= 0:
            self.views.append(other)
        return int(turn.legal_actions[0])


class Fixed(Agent):
    name = "fixed"

    def act(self, turn: Turn) -> int:
        return int(turn.legal_actions[-1])


def test_agents_never_see_a_face_down_card():
    spy = Spy()
    g = Game("octrix-round", num_players=2, hand_size=4)
    play_match(g, [Fixed(), spy], num_games=2, progress=False)
    # in game 0 the spy sits in seat 1 after seat 0 committed its strongest card face down;
    # the view it gets is resampled, so it does not always show that strongest card
    assert len(spy.views) >= 4
    truth_hits = 0
    for seed in range(30):
        s = g.new_state(seed)
        g.play_chance(s)
        strongest = max(g.legal_actions(s, 0))
        g.apply_action(s, strongest)
        from octagames.agents.base import make_turn
        turn = make_turn(g, s, 1, seed)
        truth_hits += int(turn.state["trick_cards"][0, 0] == strongest)
    assert truth_hits < 30


@pytest.mark.parametrize("name", ["octa-en", "octa-nl", "achten"])
def test_searches_act_alike_in_positions_their_seat_cannot_tell_apart(name):
    # replayed worlds a seat cannot tell apart (cards it never saw relabelled, two copies of a kind swapped):
    # a search given one seed must choose the same move in both; Octa's searches did not (their worlds and
    # chance were drawn by card id, and which copy of a kind lies where changed the kinds drawn)
    from octagames.agents.base import make_turn
    from octagames.testing import draw_worlds, play_recorded, public_module, random_chooser, replay, world_actions

    g = Game(name)
    pub, rng = public_module(g), np.random.default_rng(3)
    agents = [make_agent(spec, g) for spec in ("mcts:8", "rollout:2")]
    compared = 0
    for seed in range(2 if g.name == "octa" else 6):  # an Achten round holds a few decisions a seat
        actions = play_recorded(g, seed, [random_chooser(np.random.default_rng(seed + 10 * p))
                                          for p in range(g.num_players)])
        states = replay(g, seed, actions)
        for v in range(g.num_players):
            for world in draw_worlds(g, states, actions, v, rng, 3):
                other = world_actions(g, states, actions, world)
                first = next((k for k in range(len(actions)) if other[k] != actions[k]), len(actions))
                b, decisions = g.clone(states[first]), 0
                for k in range(first, min(world["until"], len(actions))):
                    g.apply_action(b, other[k])
                    a = states[k + 1]
                    if pub.public_view(a, v) != pub.public_view(b, v) or decisions == 2:
                        break
                    if g.is_terminal(a) or g.acting_player(a) != v or g.legal_mask(a, v).sum() < 2:
                        continue
                    decisions += 1
                    turn_seed = int(rng.integers(1 << 31))
                    for agent in agents:
                        agent.reset(g, v, turn_seed)
                        mine = agent.act(make_turn(g, a, v, turn_seed))
                        agent.reset(g, v, turn_seed)
                        assert agent.act(make_turn(g, b, v, turn_seed)) == mine, (name, seed, v, k, world)
                    compared += 1
    assert compared >= 6


def test_bad_match_arguments():
    with pytest.raises(ValueError, match="num_players=2"):
        play_match("octrix", [RandomAgent()] * 3, 2, progress=False)
    with pytest.raises(ValueError, match="num_games"):
        play_match("octrix", [RandomAgent(), RandomAgent()], 0, progress=False)
    with pytest.raises(ValueError, match="valid agents"):
        make_agent("alphazero", "octrix")


def test_config_fields_given_with_a_game_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"num_players=3: config fields are not taken with a Game"):
        play_match(Game("octrix-round"), [RandomAgent(), RandomAgent()], 2, progress=False, num_players=3)
    r = play_match(Game("octrix-round", num_players=3), [RandomAgent()] * 3, 1, progress=False)
    assert r.config["num_players"] == 3


@pytest.mark.parametrize("seed", [1.5, -1, True, "3", 2**63 - 1])
def test_a_seed_that_is_not_an_integer_in_range_is_refused_naming_the_range(seed):
    with pytest.raises(ValueError, match=rf"seed={seed!r} is not valid; it must be an integer in 0\.\.{2**63 - 2}"):
        play_match("octrix-round", [RandomAgent(), RandomAgent()], 2, seed=seed, progress=False)
    r = play_match("octrix-round", [RandomAgent(), RandomAgent()], 2, seed=np.int64(2**63 - 2), progress=False)
    assert r.num_games == 2  # the last seed of the range plays (games 2**63-2 and 2**63-1)


def test_the_table_names_the_variant_and_widens_to_the_longest_agent_name():
    long = RandomAgent()
    long.name = "ppo:runs/ppo/octrix-round-2p-0123abcd-s0/policy.pt"
    r = play_match("octrix-round", [long, OctrixHeuristicAgent()], 2, progress=False, ranks=4, hand_size=4)
    head, columns, *rows = r.table().splitlines()
    assert head.startswith("octrix-round+hand_size=4+ranks=4-2p: 2 games, ") and "{" not in head
    assert rows[0].startswith(long.name + "  ")
    for row in rows:  # every column ends where its heading ends
        for label in ("win rate", "W/D/L", "mean return"):
            end = columns.index(label) + len(label)
            assert row[end - 1] not in " " and (end == len(row) or row[end] == " "), (label, row)

ARENA_GAMES = [("octrix", dict(num_players=3)), ("achten", dict(num_players=4, deal_penalty=1.0)),
               ("octiles", dict(num_players=2)), ("octa", dict(rules="en")),
               ("octa", dict(rules="nl"))]


@pytest.mark.parametrize("name,cfg", ARENA_GAMES, ids=[n for n, _ in ARENA_GAMES])
def test_arena_plays_every_game_with_its_heuristic(name, cfg):
    n = Game(name, **cfg).num_players
    agents = [make_agent("heuristic", name)] + [make_agent("random", name) for _ in range(n - 1)]
    r = play_match(name, agents, num_games=2 * n, seed=3, progress=False, **cfg)
    assert all(rec.games == 2 * n for rec in r.records)
    assert sum(rec.total_return for rec in r.records) == pytest.approx(0.0, abs=1e-9)
    assert all(rec.wins + rec.draws + rec.losses == 2 * n for rec in r.records)
    assert r.mean_length > 0


class Thinker(RandomAgent):
    """A random agent that tells what it considered (uniform shares, a made-up value)."""

    name = "thinker"

    def act(self, turn: Turn) -> int:
        legal = [int(a) for a in turn.legal_actions]
        self.last_thinking = {"policy": {a: 1 / len(legal) for a in legal}, "value": 0.5}
        return int(self.rng.choice(legal))


def test_a_journal_keeps_every_games_record_and_replays_it(tmp_path):
    from octagames import records
    from octagames.agents.arena import GameJournal, play_game, record_game

    game = Game("achten")
    agents = [make_agent("heuristic", game), Thinker()]
    path = tmp_path / "run.games.jsonl"
    journal = GameJournal(path, {"game": "achten", "agents": ["heuristic", "thinker"]})
    result = play_match(game, agents, 4, seed=7, progress=False, journal=journal)
    journal.close()
    kept = records.load(path)  # every record replayed through the rules
    assert len(kept) == 4
    for k, record in enumerate(kept):
        seats = ["heuristic", "thinker"] if k % 2 == 0 else ["thinker", "heuristic"]
        assert record.agents == seats and record.seed == 7 + k and record.variant == "achten"
        assert record.returns == journal.done[k][0] and record.length == journal.done[k][1]
        by_agent = record.returns if k % 2 == 0 else record.returns[::-1]
        assert by_agent == result.returns[k]
        thinker = seats.index("thinker")
        told = [record.thinking[i] for i, p in enumerate(record.players) if p == thinker]
        assert told and all(t["value"] == 0.5 for t in told)
        assert journal.record(k) == record
    # the same moves as the unrecorded game
    seats = [agents[0], agents[1]]
    returns, length = play_game(game, seats, 7)
    again = record_game(game, seats, 7)
    assert again.returns == list(returns) and again.length == length and again.actions == kept[0].actions
    # a resumed journal keeps the records; rows of an older journal (no record) stay readable
    lines = path.read_text().splitlines()
    old = json.dumps({"key": 9, "returns": [1.0, -1.0], "length": 3})
    path.write_text("\n".join(lines + [old]) + "\n")
    resumed = GameJournal(path, {"game": "achten", "agents": ["heuristic", "thinker"]})
    resumed.close()
    assert resumed.done[9] == ([1.0, -1.0], 3) and resumed.record(9) is None
    assert [resumed.record(k) for k in range(4)] == kept
    assert records.load(path) == kept
def test_a_network_agents_games_do_not_depend_on_torchs_threads():
    # a Ray task plays on one torch thread, this process on one a core: a zoo model's sums came out in
    # another order and games 2 and 5 of these went otherwise, so --ray played other games than a local run
    import torch

    game = Game("octrix", num_players=3)
    before = torch.get_num_threads()
    played = {}
    try:
        for threads in (2, 1):
            torch.set_num_threads(threads)
            played[threads] = [record_game(game, [make_agent("zoo:octrix-3p:8", game) if (i + k) % 3 == 0
                                                  else make_agent("mcts:20", game) for i in range(3)], k).actions
                               for k in (2, 5)]
            assert torch.get_num_threads() == threads  # put back after each game
    finally:
        torch.set_num_threads(before)
    assert played[1] == played[2]


def test_the_example_record_of_docs_records_md_is_the_game_it_names():
    # the page's record (abridged where it says "...") is record_game's of its game, agents and seed; its
    # thinking is made up (a heuristic and a random seat tell nothing)
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "records.md").read_text(encoding="utf-8")
    shown = json.loads(re.search(r"```\n(\{.*?\})\n```", page, re.S).group(1))
    game = Game(shown["game"], **shown["config"])
    rec = record_game(game, [make_agent(spec, game) for spec in shown["agents"]], shown["seed"]).to_dict()
    for field in ("format", "variant", "config", "agents", "returns", "length"):
        assert shown[field] == rec[field], field
    for field in ("actions", "players", "names"):  # the first three and the last, around the "..."
        assert shown[field][:3] + shown[field][-1:] == rec[field][:3] + rec[field][-1:], field
    assert "thinking" not in rec or not rec["thinking"]
    assert set(shown) - {"thinking"} == set(rec) - {"thinking"}  # no field the record does not write (meta when empty)




def test_a_journal_rewritten_when_a_run_resumes_survives_a_kill_during_the_rewrite(tmp_path, monkeypatch):
    import pathlib

    path = tmp_path / "run.games.jsonl"
    journal = GameJournal(path, {"run": 1})
    for key in range(3):
        journal.add(key, np.array([1.0, -1.0]), 10 + key)
    journal.close()
    before = path.read_text()
    write = pathlib.Path.write_text

    def killed(self, text, *args, **kwargs):  # half the text written, then the process dies
        write(self, text[: len(text) // 2], *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(pathlib.Path, "write_text", killed)
    with pytest.raises(KeyboardInterrupt):
        GameJournal(path, {"run": 1})  # resuming rewrites the file (its rows sorted, a cut line dropped)
    monkeypatch.undo()
    assert path.read_text() == before
    assert sorted(GameJournal(path, {"run": 1}).done) == [0, 1, 2]


def test_a_journal_records_the_code_of_its_start_and_of_each_resume_which_other_code_may_make(tmp_path):
    path = tmp_path / "run.games.jsonl"
    first = {"version": "1", "commit": "a" * 40, "dirty": False}
    later = {"version": "2", "commit": None, "dirty": None}
    journal = GameJournal(path, {"run": 1}, first)
    journal.add(0, np.array([1.0, -1.0]), 10)
    journal.close()
    assert json.loads(path.read_text().splitlines()[0]) == {"header": {"run": 1}, "code": first}
    resumed = GameJournal(path, {"run": 1}, later)  # other code resumes: the code is no setting of the run
    resumed.close()
    assert resumed.done == {0: ([1.0, -1.0], 10)}
    head = json.loads(path.read_text().splitlines()[0])
    assert head == {"header": {"run": 1}, "code": first, "resumes": [{"games": 1, "code": later}]}
    GameJournal(path, {"run": 1}).close()  # without code (record_journal): nothing added
    assert json.loads(path.read_text().splitlines()[0]) == head
    with pytest.raises(ValueError, match="holds the games of another run"):
        GameJournal(path, {"run": 2}, first)


def _python(code: str) -> subprocess.Popen:
    """Another process running ``code`` (its stdin, stdout and stderr piped, as text)."""
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _keys(path) -> list[int]:
    return sorted(json.loads(line)["key"] for line in path.read_text().splitlines()[1:])


def _busy(path, pid: int) -> str:
    """The words of the refusal (the holder's pid where Linux's /proc/locks tells it)."""
    who = rf" \(pid {pid}(, this process)?\)" if sys.platform == "linux" else ".*"
    return "^" + re.escape(f"{path}: another run") + who + re.escape(" is writing it; wait for that run")


def test_a_journal_a_run_writes_is_refused_to_a_second_run_here_or_elsewhere_and_keeps_every_game(tmp_path):
    # a second run resumed the journal by rewriting it into a new file while the first went on appending to
    # the replaced one: the first run's later games were lost
    path = tmp_path / "run.games.jsonl"
    first = GameJournal(path, {"run": 1}, {"version": "1"})
    first.add(0, np.array([1.0, -1.0]), 10)
    with pytest.raises(BusyError, match=_busy(path, os.getpid()) + r".*another folder \(--out-dir"):
        GameJournal(path, {"run": 1}, {"version": "1"})  # in this process
    with pytest.raises(ValueError, match=_busy(path, os.getpid())):  # a lock taken first (to move the file)
        journal_lock(path)
    other = _python(f"from octagames.agents.arena import GameJournal\n"
                    f"GameJournal({str(path)!r}, {{'run': 1}})")
    _, err = other.communicate(timeout=120)
    assert other.returncode != 0 and re.search(_busy(path, os.getpid())[1:], err), err
    first.add(1, np.array([-1.0, 1.0]), 11)
    assert _keys(path) == [0, 1]  # the file as the first run writes it, not replaced
    first.close()
    resumed = GameJournal(path, {"run": 1}, {"version": "2"})  # closed: the next run resumes
    resumed.add(2, np.array([1.0, -1.0]), 12)
    resumed.close()
    assert sorted(resumed.done) == [0, 1, 2] and _keys(path) == [0, 1, 2]
    assert json.loads(path.read_text().splitlines()[0])["resumes"] == [{"games": 2, "code": {"version": "2"}}]


def test_a_journal_whose_run_was_killed_opens_and_resumes_its_games(tmp_path):
    path = tmp_path / "run.games.jsonl"
    code = ("import sys\nimport numpy as np\nfrom octagames.agents.arena import GameJournal\n"
            f"journal = GameJournal({str(path)!r}, {{'run': 1}})\n"
            "journal.add(0, np.array([1.0, -1.0]), 10)\nprint('ready', flush=True)\nsys.stdin.readline()\n")
    run = _python(code)
    if run.stdout.readline() != "ready\n":
        run.kill()
        pytest.fail(run.communicate(timeout=60)[1])
    try:
        with pytest.raises(BusyError, match=_busy(path, run.pid)):
            GameJournal(path, {"run": 1})
    finally:
        run.kill()  # no close, no cleanup: the system gives its lock back
        run.communicate(timeout=60)
    resumed = GameJournal(path, {"run": 1})
    resumed.close()
    assert resumed.done == {0: ([1.0, -1.0], 10)}


def test_a_journal_takes_a_lock_its_caller_took_and_a_refused_journal_gives_back_only_its_own(tmp_path):
    path = tmp_path / "run.games.jsonl"
    GameJournal(path, {"run": 1}).close()
    with pytest.raises(ValueError, match="holds the games of another run"):
        GameJournal(path, {"run": 2})
    lock = journal_lock(path)  # given back by the refused journal above, which took it
    with pytest.raises(ValueError, match="holds the games of another run"):
        GameJournal(path, {"run": 2}, lock=lock)
    assert lock.held  # the caller's lock stays the caller's: it may move the file aside and go on
    path.replace(tmp_path / "old.games.jsonl")
    journal = GameJournal(path, {"run": 2}, lock=lock)
    with pytest.raises(BusyError):
        journal_lock(path)
    journal.close()
    assert not lock.held
    again = journal_lock(path)  # given back on close
    with pytest.raises(ValueError, match="is not the lock of"):
        GameJournal(tmp_path / "other.games.jsonl", {"run": 2}, lock=again)
    again.release()


def test_the_games_on_disk_leave_out_one_stopped_before_its_line_was_written(tmp_path, monkeypatch):
    # Ctrl-C inside add(), after its bookkeeping and before its line: the games kept are those on disk
    journal = GameJournal(tmp_path / "run.games.jsonl", {"run": 1})
    journal.add(0, np.array([1.0, -1.0]), 10)

    def stopped(key):
        raise KeyboardInterrupt

    monkeypatch.setattr(journal, "_row", stopped)
    with pytest.raises(KeyboardInterrupt):
        journal.add(1, np.array([-1.0, 1.0]), 12)
    journal.close()
    assert len(journal.done) == 2 and journal.games_on_disk() == 1


class _ReturnsAs(Agent):
    """Plays the first legal action, returned as ``kind`` makes it (a float, a bool, a string...)."""

    def __init__(self, kind) -> None:
        self.kind = kind

    def act(self, turn: Turn):
        return self.kind(int(turn.legal_actions[0]))


NOT_IDS = [float, np.float32, lambda a: a + 0.7, lambda a: True, str, lambda a: np.array([a])]


@pytest.mark.parametrize("kind", NOT_IDS, ids=["float", "float32", "a+0.7", "True", "str", "array of one"])
def test_an_agent_returning_what_is_not_an_action_id_is_refused_not_truncated(kind):
    # int(agent.act(turn)) turned 2.7 into action 2, True into 1 and "3" into 3 without a word
    from octagames.agents.arena import play_game, record_game
    g = Game("octrix-round")
    for play in (play_game, record_game):
        with pytest.raises(IllegalActionError, match="is not an action id: actions are integers 0..31"):
            play(g, [_ReturnsAs(kind), _ReturnsAs(kind)], seed=0)
    for integer in (int, np.int64, np.uint8):  # every integer type is an action id
        assert play_game(g, [_ReturnsAs(integer), _ReturnsAs(integer)], seed=0)[1] > 0


class _PlaysIllegally(Agent):
    name = "cheat"

    def act(self, turn: Turn):
        return next(a for a in range(32) if a not in set(turn.legal_actions.tolist()))


def test_an_illegal_move_names_the_agent_and_the_game_as_well_as_the_rule():
    # seats rotate in a match, and the message named only the seat: which agent, in which game, was not said
    from octagames.agents.arena import play_game, record_game
    g = Game("octrix-round")
    for play in (play_game, record_game):
        with pytest.raises(IllegalActionError, match=r"^agent cheat \(seat 1\) in the game of seed 5, after \d+ "
                                                     r"actions: player 1 cannot play action \d+ .*own hand"):
            play(g, [RandomAgent(), _PlaysIllegally()], seed=5)
    with pytest.raises(IllegalActionError, match=r"^agent cheat \(seat 0\) in the game of seed 7, after"):
        play_match(g, [_PlaysIllegally(), RandomAgent()], 2, seed=7, progress=False, executor=None)


def test_play_game_given_a_name_or_specs_instead_of_a_game_and_agents_says_how_to_build_them():
    # AttributeError before: 'str' object has no attribute 'num_players' (or 'reset')
    from octagames.agents.arena import play_game, record_game
    g = Game("octrix-round")
    not_a_game = "game='octrix-round' is not a Game; build one: Game('octrix-round')"
    not_an_agent = "seats[1]='random' is not an Agent; build one: make_agent('random', game)"
    for play in (play_game, record_game):
        with pytest.raises(ValueError, match=re.escape(not_a_game)):
            play("octrix-round", [RandomAgent(), RandomAgent()], seed=0)
        with pytest.raises(ValueError, match=re.escape(not_an_agent)):
            play(g, [RandomAgent(), "random"], seed=0)
    with pytest.raises(ValueError, match=re.escape("agents[0]='heuristic' is not an Agent")):
        play_match("octrix-round", ["heuristic", RandomAgent()], 2, progress=False)


def test_a_match_on_a_config_given_as_numpy_scalars_saves_its_results_as_json(tmp_path):
    # TypeError before: Object of type int64 is not JSON serializable (the config kept np.int64(2))
    result = play_match("octrix-round", [RandomAgent(), RandomAgent()], 2, progress=False,
                        num_players=np.int64(2), target=np.int64(30))
    saved = json.loads(result.save(tmp_path / "match.json").read_text())
    assert saved["config"]["num_players"] == 2 and saved["config"]["target"] == 30
    assert type(result.config["num_players"]) is int


@pytest.mark.parametrize("name, cfg, want", [
    ("octrix", {"num_players": 4, "partnership": True}, (0, 1, 0, 1)),
    ("octrix", {"num_players": 4}, (0, 1, 2, 3)),
    ("octiles", {"num_players": 4, "team": True}, (0, 1, 0, 1)),
    ("octiles", {"num_players": 3}, (0, 1, 2)),
    ("achten", {"num_players": 5}, (0, 1, 2, 3, 4)),
    ("octa", {}, (0, 1)),
])
def test_the_sides_of_the_seats_are_the_rules_and_every_side_shares_its_return(name, cfg, want):
    from octagames.agents.arena import match_partners, sides
    from octagames.testing import random_playout

    game = Game(name, **cfg)
    assert sides(game) == want
    assert match_partners(game) == [k for k in range(1, len(want)) if want[k] == want[0]]
    for seed in range(30):  # a side's seats return the same; seats of different sides not always
        r = game.returns(random_playout(game, seed, check=False))
        assert all(r[p] == r[q] for p in range(len(want)) for q in range(len(want)) if want[p] == want[q])
