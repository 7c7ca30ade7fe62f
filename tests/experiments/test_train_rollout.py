"""``train_rollout`` fits a learned rollout policy into a model file, its record beside it, a zoo card's entry."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import torch

import octagames.agents.learn.az as az
import octagames.experiments.train_rollout as tr
import octagames.experiments.zoo as zoo
from octagames.agents.learn.az import PolicyValueNet, SearchConfig, load_model, model_dict, save_model
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.cli import model_fingerprints

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py

ROOT = Path(__file__).resolve().parents[2]
ROLLOUTS = SearchConfig(simulations=0, belief_worlds=2, belief_rollouts=True, rollout_policy="model", rollout_margin=1.0)


def small_model(path, g: Game, half: bool = False):
    torch.manual_seed(0)
    net = PolicyValueNet(g.observation_size, g.num_actions, g.num_players, hidden=(16,))
    return save_model(net, path, g, ROLLOUTS, meta={"note": "kept"}, half=half)


def test_a_fit_writes_the_policy_into_the_model_file_with_its_record(tmp_path):
    g = Game("octa", rules="en")
    model = small_model(tmp_path / "model.pt", g)
    net_before, _ = load_model(model, g)
    record = tr.train_rollout(tr.RolloutConfig(game="octa-en", model=str(model), out=str(tmp_path / "out.pt"),
                                               games=2, steps=30, batch_size=64, progress=False))
    assert record["decisions"] > 50 and 0 <= record["held_out_accuracy"] <= 1
    assert record["command"].startswith("python -m octagames.experiments.train_rollout --game octa-en --model ")
    assert "--games 2 --steps 30 --batch-size 64" in record["command"]
    assert json.loads((tmp_path / "out.rollout.json").read_text()) == record
    assert (tmp_path / "out.rollout.png").read_bytes()[:4] == b"\x89PNG"
    net, data = load_model(tmp_path / "out.pt", g)
    assert data["meta"] == {"note": "kept"} and data["search"] == json.loads(json.dumps(data["search"]))
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), net_before.state_dict().values()))
    assert set(data["learned_rollout"]) == {"weight", "bias", "embed", "action_embed"}
    assert data["learned_rollout"]["embed"].shape == (0, g.observation_size)  # rank 0: the facts alone
    assert "learned_rollout" not in load_model(model, g)[1]  # --out: the source is left as it was
    alone = make_agent(f"az:{tmp_path / 'out.pt'}", "octa-en")
    assert alone.search.belief_model == "heuristic"  # az: plays the recorded search
    # the same run again: the same policy (seeded teacher games, split and batches)
    again = tr.train_rollout(tr.RolloutConfig(game="octa-en", model=str(model), out=str(tmp_path / "again.pt"),
                                              games=2, steps=30, batch_size=64, progress=False))
    assert again["curve"] == record["curve"]
    assert torch.equal(load_model(tmp_path / "again.pt", g)[1]["learned_rollout"]["weight"],
                       data["learned_rollout"]["weight"])


def test_a_zoo_file_keeps_its_network_and_its_card_gains_the_record(tmp_path, monkeypatch):
    for module in (az, zoo, tr):
        monkeypatch.setattr(module, "ZOO_DIR", tmp_path / "zoo")
    g = Game("octa", rules="en")
    (tmp_path / "zoo").mkdir()
    small_model(tmp_path / "zoo" / "octa-en.pt", g, half=True)
    shutil.copyfile(ROOT / "agents" / "zoo" / "octa-en.json", tmp_path / "zoo" / "octa-en.json")
    before = model_fingerprints(["net:octa-en", "net:octa-en:8"])
    tr.train_rollout(tr.RolloutConfig(game="octa-en", model=str(tmp_path / "zoo" / "octa-en.pt"), games=2, steps=20,
                                      batch_size=64, network_worlds=3, progress=False))
    card = json.loads((tmp_path / "zoo" / "octa-en.json").read_text())
    assert card["learned_rollout"]["decisions"] > 50 and card["learned_rollout"]["png"] == "octa-en.rollout.png"
    assert not (tmp_path / "zoo" / "octa-en.rollout.json").exists()  # the card keeps the record: one JSON a model
    assert (tmp_path / "zoo" / "octa-en.rollout.png").exists()
    assert card["size_bytes"] == (tmp_path / "zoo" / "octa-en.pt").stat().st_size
    data = torch.load(tmp_path / "zoo" / "octa-en.pt", weights_only=True)
    assert data["state_dict"]["first.weight"].dtype == torch.float16  # still a float16 zoo file
    assert "`net:octa-en` rolls out by its learned rollout policy over 3 worlds" in (
        tmp_path / "zoo" / "README.md").read_text()
    alone = make_agent("net:octa-en", "octa-en").search
    assert (alone.belief_model, alone.belief_worlds, card["network_belief_worlds"]) == ("learned", 3, 3)
    assert make_agent("net:octa-en:8", "octa-en").search.belief_worlds == 3
    # a journal of net:octa-en is not resumed after the worlds its card names changed
    assert all(model_fingerprints([spec])[spec] != before[spec] for spec in before)
    assert make_agent("zoo:octa-en", "octa-en").search.belief_model == "heuristic"
    zoo_file = tmp_path / "zoo" / "octa-en.pt"

    def refit(**flags):
        tr.train_rollout(tr.RolloutConfig(game="octa-en", model=str(zoo_file), games=2, steps=20, batch_size=64,
                                          progress=False, **flags))
        return json.loads(zoo_file.with_suffix(".json").read_text())

    def promote(**flags):  # the small file has no learned policy: its rollouts must beat the model's own choice
        return zoo.promote(zoo.ZooConfig(game="octa-en", model=str(zoo_file), network_rollout_base="model", **flags))

    def played(n):  # a whole promotion of the zoo file again: its evaluation played again
        return promote(opponents=("random",), games=(2,), speed_games=1, out_dir=str(tmp_path / f"eval{n}"),
                       progress=False)

    assert played(1)["network_belief_worlds"] == 3
    # the card's number rewritten alone (4) apart from its fit's record (3): a whole promotion of the zoo file again
    # keeps the card's, and so does a refit that names no worlds
    card = promote(keep_evaluation=True, network_belief_worlds=4)
    assert (card["network_belief_worlds"], card["learned_rollout"]["network_worlds"]) == (4, 3)
    card = played(2)
    assert card["network_belief_worlds"] == 4 and card["evaluation"]
    card = refit()
    assert card["network_belief_worlds"] == 4 and "network_worlds" not in card["learned_rollout"]
    assert make_agent("net:octa-en", "octa-en").search.belief_worlds == 4
    # --network-worlds 0: the card names no number; net:octa-en rolls out over the zoo search's own worlds
    card = refit(network_worlds=0)
    assert "network_belief_worlds" not in card and card["search"]["belief_worlds"] not in (3, 4)
    assert make_agent("net:octa-en", "octa-en").search.belief_worlds == card["search"]["belief_worlds"]
    # a promotion of a model that carries a policy keeps it, and the record beside the model file
    promoted = tmp_path / "run" / "model.pt"
    promoted.parent.mkdir()
    shutil.copyfile(tmp_path / "zoo" / "octa-en.pt", promoted)
    (tmp_path / "run" / "model.rollout.json").write_text(json.dumps({"command": "fit", "network_worlds": 5,
                                                                     "curve": [1]}))
    card = zoo.promote(zoo.ZooConfig(game="octa-en", model=str(promoted), opponents=("random",), games=(2,),
                                      speed_games=1, out_dir=str(tmp_path / "eval"), progress=False))
    assert card["learned_rollout"] == {"command": "fit", "network_worlds": 5, "curve": [1]}
    assert card["network_belief_worlds"] == 5
    assert "learned_rollout" in load_model(tmp_path / "zoo" / "octa-en.pt", g)[1]


def test_refusals(tmp_path):
    g = Game("octa", rules="en")
    model = small_model(tmp_path / "model.pt", g)
    torch.save({"model": model_dict(load_model(model, g)[0], g, ROLLOUTS)}, tmp_path / "checkpoint.pt")
    with pytest.raises(ValueError, match="is a training checkpoint: give --out"):
        tr.train_rollout(tr.RolloutConfig(game="octa-en", model=str(tmp_path / "checkpoint.pt"), games=1, steps=1))
    with pytest.raises(ValueError, match="octrix names none"):
        tr.train_rollout(tr.RolloutConfig(game="octrix", model=str(model), games=1, steps=1))
    with pytest.raises(ValueError, match="rank=-1 is not valid"):
        tr.RolloutConfig(game="octa-en", model="m.pt", rank=-1)
    with pytest.raises(ValueError, match="network_worlds=-2 is not valid"):
        tr.RolloutConfig(game="octa-en", model="m.pt", network_worlds=-2)
    with pytest.raises(ValueError, match="games=0 is not valid"):
        tr.RolloutConfig(game="octa-en", model="m.pt", games=0)
    with pytest.raises(ValueError, match="held_out=1.0 is not valid"):
        tr.RolloutConfig(game="octa-en", model="m.pt", held_out=1.0)
    for rate in (float("nan"), float("inf")):  # refused after the teacher games and the fit, naming no flag (review)
        with pytest.raises(ValueError, match=f"learning_rate={rate} is not valid; it must be a finite number > 0"):
            tr.RolloutConfig(game="octa-en", model="m.pt", learning_rate=rate)
    with pytest.raises(ValueError, match="model is empty"):
        tr.train_rollout(tr.RolloutConfig(game="octa-en"))


def test_an_out_that_is_a_folder_or_a_file_other_than_a_model_is_refused_before_the_games(tmp_path):
    """--out notes.txt wrote the model over the user's text file (and a folder failed after the games)."""
    g = Game("octa", rules="en")
    model = small_model(tmp_path / "model.pt", g)
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "folder").mkdir()
    for out, words in (("notes.txt", "is a file but no model file"), ("folder", "is a folder")):
        cfg = tr.RolloutConfig(game="octa-en", model=str(model), out=str(tmp_path / out), games=1, steps=1)
        with pytest.raises(ValueError, match=re.escape(f"out={str(tmp_path / out)!r} {words}")):
            tr.train_rollout(cfg)
    assert (tmp_path / "notes.txt").read_text() == "mine" and not list((tmp_path / "folder").iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "model.pt", "notes.txt"]


def test_a_negative_seed_is_refused_naming_the_field():
    """It was refused by numpy as "expected non-negative integer", naming no flag."""
    with pytest.raises(ValueError, match=r"^seed=-1 is not valid; it must be >= 0$"):
        tr.RolloutConfig(game="octa-en", model="m.pt", seed=-1)
