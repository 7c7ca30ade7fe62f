"""The fuzz campaign command: a short slice, its summary, and a planted failure saved and replayed."""

import json
import re
import subprocess
import sys

import pytest

import octagames.achten as achten_rules
from octagames.experiments import fuzz
from octagames.experiments.fuzz import FuzzConfig, main, replay_failure
from octagames.testing import CONFORMANCE_CONFIGS


def test_a_short_campaign_checks_two_configs_and_writes_its_summary(tmp_path):
    out = tmp_path / "fuzz"
    res = subprocess.run([sys.executable, "-m", "octagames.experiments.fuzz",
                          "--game", "octrix-round:num_players=3",
                          "achten:num_players=2,ranks=3,low_rank=7,turn_cap=3",
                          "--minutes", "0.05", "--jobs", "2", "--out", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failures"] == 0 and [r["config"] for r in summary["configs"]] == \
        ["octrix-round-num_players=3", "achten-num_players=2-ranks=3-low_rank=7-turn_cap=3"]
    for r in summary["configs"]:
        assert r["games"] >= 1 and r["states"] > 0 and r["sims"] > 0 and r["records"] > 0 and r["failures"] == 0
        assert r["saves"] > 0  # damaged OpenSpiel saves, within the record fuzz
        assert r["config"] in res.stdout  # the table names every config
    assert "0 failure(s)" in res.stdout


def test_the_games_are_variants_with_the_options_of_every_verb():
    """--game takes variants (with their own fields), --players and --config apply to each; no --game: the
    conformance list, as it is (the options alone are refused there, in words)."""
    assert FuzzConfig().configs() == CONFORMANCE_CONFIGS
    cfg = FuzzConfig(game=("octa-nl", "octrix-round:ranks=3,hand_size=3"), players=2)
    assert cfg.configs() == [("octa", {"num_players": 2, "rules": "nl"}),
                             ("octrix", {"num_players": 2, "match": False, "ranks": 3, "hand_size": 3})]
    with pytest.raises(ValueError, match="--players and --config apply to the games named by --game"):
        FuzzConfig(players=3)
    with pytest.raises(ValueError, match="is not key=value with a field of octrix"):
        FuzzConfig(game=("octa-nl", "octrix"), config=("max_turns=20",))


def test_a_planted_leak_is_reported_saved_and_replayable(tmp_path, monkeypatch):
    # achten's render, made to show every seat every card on the table (the closed card, the other hands):
    # the leak test must see it, the command must save the game, exit 1, and the saved game must fail again
    # when replayed (and pass once the leak is gone)
    render = achten_rules.render

    def leaky(s, viewer=None):
        return render(s, viewer) + f"\ncards: {s['slot_card'].tolist()}"

    monkeypatch.setattr(achten_rules, "render", leaky)
    monkeypatch.setattr(fuzz, "record_options", lambda name, seconds: {"flips": 4, "randoms": 2, "plays": 2,
                                                                        "games": 1})
    out = tmp_path / "fuzz"
    status = main(FuzzConfig(game=("achten:num_players=2",), minutes=0.01, jobs=1, out=str(out)))
    assert status == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failures"] >= 1
    saved = summary["configs"][0]["saved"]
    record = json.loads(open(saved[0]).read())
    assert record["check"] == "leak" and record["actions"] and "render" in record["message"]
    assert isinstance(record["details"]["rng"], dict)  # the generator as the check found it, for the replay
    assert "cards: " in replay_failure(saved[0])
    assert main(FuzzConfig(replay=saved[0])) == 1
    monkeypatch.setattr(achten_rules, "render", render)
    assert replay_failure(saved[0]) == ""


def test_damaged_openspiel_saves_are_refused_in_words_or_play_to_their_end():
    # every kind of damage (a character, a resealed record with a field changed, a cut, pyspiel's own
    # pickled layout) comes back as a ValueError or as a game that plays on: never another error
    import numpy as np
    from octagames.core import Game
    from octagames.testing import play_recorded, random_chooser, replay

    game = Game("achten", num_players=3)
    rng = np.random.default_rng(5)
    actions = play_recorded(game, 5, [random_chooser(rng)] * 3)
    records = replay(game, 5, actions)[::3]
    out = fuzz.fuzz_openspiel_saves(game, records, np.random.default_rng(6), 40)
    assert out["tried"] == 40 and out["rejected"] + out["accepted"] == 40 and out["misbehaving"] == 0
    assert out["rejected"] >= 10  # most damage is refused...
    assert out["accepted"] >= 1   # ...and the comments or a harmless character leave a save that opens


@pytest.mark.parametrize("field, value", [("minutes", -1.0), ("jobs", -2), ("seed", -1)])
def test_a_negative_budget_job_count_or_seed_is_refused_naming_the_field(field, value):
    """--minutes -1 fuzzed a game of each config, --jobs -2 was refused as "max_workers must be greater than
    0" and --seed -1 as "expected non-negative integer", after the campaign had started."""
    with pytest.raises(ValueError, match=rf"^{field}={value} is not valid; it must be (a finite number )?>= 0"):
        FuzzConfig(game=("octrix-round",), **{field: value})


def test_replay_refuses_a_file_that_is_no_failure_record_in_words(tmp_path):
    """A review: --replay of a JSON file of other fields raised KeyError 'seed' (a traceback), and of a CSV file
    said only 'Expecting value: line 1 column 1', naming no file."""
    card, csv = tmp_path / "card.json", tmp_path / "metrics.csv"
    card.write_text(json.dumps({"game": "octrix", "config": {}}))
    csv.write_text("step,win_rate\n0,0.5\n")
    for path, words in ((card, r"is not a failure record of octagames fuzz \(a JSON object with the fields "),
                        (csv, r"is not a failure record of octagames fuzz \(not JSON text")):
        with pytest.raises(ValueError, match=re.escape(str(path)) + " " + words):
            replay_failure(path)


def test_the_campaign_checks_the_contract_and_replays_what_it_saved(tmp_path, monkeypatch):
    """A review: the campaign never ran the contract's random playouts (a refused action that changed the record, a
    mask hiding a move passed it), saved a crash during play with no actions ('not replayable' even once mended),
    and replayed the leak test's and OpenSpiel's checks with other worlds than the ones that failed."""
    from octagames.core import Game

    monkeypatch.setattr(fuzz, "record_options", lambda name, seconds: {"flips": 4, "randoms": 2, "plays": 2,
                                                                        "games": 1})
    bounds = Game.observation_bounds
    monkeypatch.setattr(Game, "observation_bounds", lambda self: (bounds(self)[0], 0 * bounds(self)[1]))
    out = tmp_path / "contract"
    assert main(FuzzConfig(game=("achten:num_players=2",), minutes=0.01, jobs=1, out=str(out))) == 1
    saved = json.loads((out / "summary.json").read_text())["configs"][0]["saved"]
    record = json.loads(open(saved[0]).read())
    assert record["check"] == "contract" and "outside its declared bounds" in record["message"]
    assert "outside its declared bounds" in replay_failure(saved[0])
    monkeypatch.setattr(Game, "observation_bounds", bounds)
    assert replay_failure(saved[0]) == ""

    chooser = fuzz.agent_chooser  # a crash while the game is played: saved without actions, replayed from its seed
    monkeypatch.setattr(fuzz, "agent_chooser", lambda *a: (_ for _ in ()).throw(RuntimeError("a driver crashed")))
    out = tmp_path / "crash"
    assert main(FuzzConfig(game=("achten:num_players=2",), minutes=0.01, jobs=1, out=str(out))) == 1
    saved = json.loads((out / "summary.json").read_text())["configs"][0]["saved"]
    record = json.loads(open(saved[0]).read())
    assert record["check"] == "crash" and record["actions"] == [] and record["drivers"]
    assert "a driver crashed" in replay_failure(saved[0])
    monkeypatch.setattr(fuzz, "agent_chooser", chooser)
    assert replay_failure(saved[0]) == ""
