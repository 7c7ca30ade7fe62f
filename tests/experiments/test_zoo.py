"""Promoting a model to the zoo writes the float16 model, its card and the zoo's README."""

from __future__ import annotations

import datetime
import json
import shutil
import time

import pytest
import torch

import octagames.agents.learn.az as az
import octagames.experiments.zoo as zoo
from octagames.agents.learn.az import PolicyValueNet, SearchConfig, save_model
from octagames.agents.base import RandomAgent
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.train_az import TrainConfig

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def test_promote_writes_model_card_and_readme(tmp_path, monkeypatch):
    monkeypatch.setattr(az, "ZOO_DIR", tmp_path / "zoo")
    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path / "zoo")
    g = Game("achten", deal_penalty=1)
    net = PolicyValueNet(g.observation_size, g.num_actions, 2, hidden=(16,))
    train_cfg = TrainConfig(game="achten-dealer-pays", simulations=12, iterations=3)
    meta = {"config": {k: list(v) if isinstance(v, tuple) else v for k, v in vars(train_cfg).items()},
            "iteration": 3, "wall_time": 12.5, "machine": "2 CPU cores (AMD EPYC), cpu"}
    save_model(net, tmp_path / "model.pt", g, SearchConfig(simulations=9), meta=meta)
    (tmp_path / "curves.png").write_bytes(b"the run's curves")
    card = zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "model.pt"), leaves_per_game=2,
                                      opponents=("random",), games=(6,), speed_games=1,
                                      out_dir=str(tmp_path / "eval"), progress=False))
    assert card["command"] == ("python -m octagames.experiments.train_az --game achten-dealer-pays "
                               "--iterations 3 --simulations 12")
    assert card["search"]["simulations"] == 9 and card["search"]["leaves_per_game"] == 2
    assert card["evaluation"][0]["games"] == 6 and card["evaluation"][0]["opponent"] == "random"
    e = card["evaluation"][0]  # two seats: the other seat won what the model lost (a draw is half to each)
    assert e["others_win_rate"] == pytest.approx((e["losses"] + 0.5 * e["draws"]) / e["games"])
    assert card["seconds_per_game_side"] > 0 and card["training"] == {"iteration": 3, "wall_time": 12.5,
                                                                  "machine": "2 CPU cores (AMD EPYC), cpu"}
    assert card["teacher"] == {} and card["init"] == {}  # the heuristic teacher needs no command
    assert "network_simulations" not in card  # net: takes the model's budget
    assert json.loads((tmp_path / "zoo" / "achten-dealer-pays.json").read_text()) == card
    readme = (tmp_path / "zoo" / "README.md").read_text()
    assert "`zoo:achten-dealer-pays`" in readme and "[png](achten-dealer-pays.curves.png)" in readme
    assert (tmp_path / "zoo" / "achten-dealer-pays.curves.png").read_bytes() == b"the run's curves"
    agent = make_agent("zoo:achten-dealer-pays", "achten-dealer-pays")
    assert agent.search.simulations == 9 and agent.net.first.weight.dtype.is_floating_point
    assert (tmp_path / "zoo" / "achten-dealer-pays.pt").stat().st_size < 0.6 * (tmp_path / "model.pt").stat().st_size
    with pytest.raises(ValueError, match="is an achten run"):
        zoo.promote(zoo.ZooConfig(game="octrix", model=str(tmp_path / "model.pt")))

    # a run started from that zoo entry with a heuristic hint: its card keeps the first card's command
    meta["config"].update(init_model="zoo:achten-dealer-pays", prior_hint="heuristic", prior_hint_weight=0.8)
    save_model(net, tmp_path / "next.pt", g, SearchConfig(simulations=9, prior_hint="heuristic",
                                                          prior_hint_weight=0.8), meta=meta)
    second = zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "next.pt"),
                                       prior_hint_weight=0.9, network_simulations=7,
                                       opponents=("random",), games=(2,), speed_games=1, out_dir=str(tmp_path / "eval"), progress=False))
    assert second["init"] == {"model": "zoo:achten-dealer-pays", "command": card["command"], "commit": card["commit"],
                              "init": {}}
    assert "--init-model zoo:achten-dealer-pays" in second["command"] and "--prior-hint heuristic" in second["command"]
    assert "9 simulations, 1 per call, heuristic hint 0.9" in (tmp_path / "zoo" / "README.md").read_text()
    hinted = make_agent("zoo:achten-dealer-pays", "achten-dealer-pays").search
    assert (hinted.prior_hint, hinted.prior_hint_weight) == ("heuristic", 0.9)
    # the network alone at the budget the card names (zoo: keeps its own), a given budget before it
    assert second["network_simulations"] == 7
    readme = (tmp_path / "zoo" / "README.md").read_text()
    assert "heuristic hint 0.9; `net:achten-dealer-pays` 7 simulations |" in readme
    alone = make_agent("net:achten-dealer-pays", "achten-dealer-pays").search
    assert (hinted.simulations, alone.simulations) == (9, 7)
    assert make_agent("net:achten-dealer-pays:3", "achten-dealer-pays").search.simulations == 3
    with pytest.raises(ValueError, match="network_simulations=-2 is not valid"):
        zoo.ZooConfig(game="achten-dealer-pays", model="m.pt", network_simulations=-2)

    # the same network playing by rollouts over believed worlds
    third = zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "model.pt"), belief_worlds=4,
                                      belief_rollouts=True, opponents=("random",), games=(2,), speed_games=1,
                                      out_dir=str(tmp_path / "eval"), progress=False))
    assert third["search"]["belief_worlds"] == 4 and third["search"]["belief_rollouts"] is True
    assert "rollouts over 4 believed worlds" in (tmp_path / "zoo" / "README.md").read_text()
    rolling = make_agent("zoo:achten-dealer-pays", "achten-dealer-pays").search
    assert (rolling.belief_worlds, rolling.belief_rollouts) == (4, True)

    # rollouts by the belief's model, the network's search over the same worlds as a small vote
    fourth = zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "model.pt"), simulations=4,
                                       belief_worlds=4, belief_rollouts=True, rollout_policy="model",
                                       rollout_search_weight=0.1, opponents=("random",), games=(2,),
                                       speed_games=1, out_dir=str(tmp_path / "eval"), progress=False))
    assert (fourth["search"]["rollout_policy"], fourth["search"]["rollout_search_weight"]) == ("model", 0.1)
    assert ("later moves by the belief's model, plus 0.1 x the visit shares of 4 network simulations"
            in (tmp_path / "zoo" / "README.md").read_text())
    voting = make_agent("zoo:achten-dealer-pays", "achten-dealer-pays").search
    assert (voting.rollout_policy, voting.rollout_search_weight, voting.simulations) == ("model", 0.1, 4)

    # the model's own choice unless the paired rollouts beat it by a margin (unnamed: the model file's)
    fifth = zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "model.pt"), simulations=4,
                                      belief_worlds=4, belief_rollouts=True, rollout_policy="model",
                                      rollout_margin=1.0, opponents=("random",), games=(2,), speed_games=1,
                                      out_dir=str(tmp_path / "eval"), progress=False))
    assert fifth["search"]["rollout_margin"] == 1.0
    assert "unless another action's paired rollouts beat it by more than 1 standard error |" in (
        tmp_path / "zoo" / "README.md").read_text()
    assert make_agent("zoo:achten-dealer-pays", "achten-dealer-pays").search.rollout_margin == 1.0
    assert zoo.ZooConfig(game="achten-dealer-pays", model="m.pt").rollout_margin == -2.0  # the model file's

    # a run that was its warm start alone: the warm start's curves are its learning curves
    (tmp_path / "warm").mkdir()
    save_model(net, tmp_path / "warm" / "model.pt", g, SearchConfig(simulations=4), meta={**meta, "iteration": 0})
    (tmp_path / "warm" / "curves.png").write_bytes(b"one evaluation")
    (tmp_path / "warm" / "warm_start.png").write_bytes(b"the warm start's losses")
    zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "warm" / "model.pt"),
                              opponents=("random",), games=(2,), speed_games=1, out_dir=str(tmp_path / "eval"),
                              progress=False))
    assert (tmp_path / "zoo" / "achten-dealer-pays.curves.png").read_bytes() == b"the warm start's losses"

    # the network as the belief's model: nothing hand-written in the search
    sixth = zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=str(tmp_path / "model.pt"), simulations=0,
                                      belief_worlds=4, belief_rollouts=True, belief_model="network",
                                      rollout_policy="model", rollout_margin=1.0, rollout_search_weight=0.0,
                                      opponents=("random",), games=(2,), speed_games=1,
                                      out_dir=str(tmp_path / "eval"), progress=False))
    assert (sixth["search"]["belief_model"], sixth["search"]["simulations"]) == ("network", 0)
    assert "4 worlds believed with the network's policy as the model of every seat" in (
        tmp_path / "zoo" / "README.md").read_text()
    assert make_agent("net:achten-dealer-pays", "achten-dealer-pays").search.belief_model == "network"

    # the zoo file itself promoted again with another default search: where the network came from, its
    # curves, the network's budget and the training's machine (which this file's metadata no longer names)
    # stay on the card
    zoo_file = str(tmp_path / "zoo" / "achten-dealer-pays.pt")
    data = torch.load(zoo_file, weights_only=True)
    del data["meta"]["machine"]
    torch.save(data, zoo_file)
    again = [zoo.promote(zoo.ZooConfig(game="achten-dealer-pays", model=zoo_file, simulations=5, opponents=("random",),
                                       games=(2,), speed_games=1, out_dir=str(tmp_path / "eval"), progress=False,
                                       **extra)) for extra in ({"network_simulations": 7}, {})]
    for card_again in again:
        assert card_again["source"] == sixth["source"] == str(tmp_path / "model.pt")
        assert card_again["command"] == sixth["command"] and card_again["search"]["simulations"] == 5
        assert card_again["curves"] == "achten-dealer-pays.curves.png" and card_again["network_simulations"] == 7
        assert card_again["training"] == card["training"]
    assert (tmp_path / "zoo" / "achten-dealer-pays.curves.png").read_bytes() == b"the run's curves"
    assert make_agent("zoo:achten-dealer-pays", "achten-dealer-pays").search.simulations == 5


def test_the_time_per_game_side_leaves_out_a_first_call_that_compiles(monkeypatch):
    """``seconds_per_side`` plays one game untimed first: an agent whose first move is slow (as one that
    compiles its kernels on the first call) is timed by its later games alone."""
    slow = []

    class FirstMoveSlow(RandomAgent):
        def act(self, turn):
            if not slow:
                slow.append(True)
                time.sleep(1.0)
            return super().act(turn)

    agents = []

    def fake_make_agent(spec, game):
        agents.append(spec)
        return FirstMoveSlow() if spec.startswith("zoo:") else RandomAgent()

    monkeypatch.setattr(zoo, "make_agent", fake_make_agent)
    assert zoo.seconds_per_side("octrix", games=2) < 0.5
    assert slow and agents[0] == "zoo:octrix" and agents.count("heuristic") == 3  # the untimed game and two timed


@pytest.mark.parametrize("game,players", [("octrix", 5), ("octrix-round", None), ("octa", None), ("chess", 2)])
def test_a_promotion_to_a_count_or_variant_the_catalogue_gives_no_model_is_refused(game, players):
    with pytest.raises(ValueError, match=rf"^game='{game}' with players={players} is not valid: the catalogue "
                                         r"declares no zoo model for it .*; valid: --game octrix --players 2, .*--game octa-nl --players 2$"):
        zoo.ZooConfig(game=game, players=players, model="m.pt")


@pytest.mark.parametrize("name", az.zoo_names())
def test_every_zoo_model_loads_and_plays_a_game(name):
    """Every shipped model loads by its zoo name and plays a whole game at its seat count; its card records
    how it was made."""
    from octagames import catalogue
    from octagames.agents.arena import play_game

    game = Game(az.zoo_variant(name).name, num_players=az.zoo_players(name))
    agent = make_agent(f"zoo:{name}:8", game)  # a small search keeps the test short
    others = [make_agent("random", game) for _ in range(game.num_players - 1)]
    rets, length = play_game(game, [agent] + others, seed=0)
    assert length > 0 and game.min_utility <= rets.min() <= rets.max() <= game.max_utility
    card = az.zoo_card(name)
    assert card["game"] == game.name and card["config"] == catalogue.full_config(game.name, game.config)
    assert card["command"].startswith("python -m octagames.experiments.train_az") and card["evaluation"]



def _recorded_commands() -> list[tuple[str, dict, dict | None]]:
    """Every training command the zoo cards and the published leaderboard record: ``(where, record,
    the config it must train)``; the card's own command trains the card's config."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = []
    for path in sorted((root / "agents" / "zoo").glob("*.json")):
        card = json.loads(path.read_text())
        out.append((path.name, card, card["config"]))
        out += [(f"{path.name} {k}", card[k], None) for k in ("init", "teacher")
                if isinstance(card.get(k), dict) and card[k].get("command")]
    for path in sorted((root / "docs" / "leaderboard").glob("*.json")):
        out += [(f"{path.name} {spec}", o, None) for spec, o in json.loads(path.read_text()).get("origins", {}).items()]
    return out


def test_every_recorded_command_of_older_flags_has_todays_beside_it():
    import importlib
    import shlex

    from octagames import catalogue
    from octagames.experiments.cli import parse_with_stdlib

    for where, record, config in _recorded_commands():
        old = record["command"]
        if not any(flag in old.split() for flag in ("--game-config", "--num-players")) and "--game octiles " not in old:
            assert "command_today" not in record, where  # today's flags already
            continue
        words = shlex.split(record["command_today"])
        assert words[:3] == shlex.split(old)[:3], where  # the same trainer
        cls = importlib.import_module(words[2]).TrainConfig
        name, fields = parse_with_stdlib(cls, words[3:]).resolve()
        if config is not None:
            assert catalogue.full_config(name, fields) == config, where
        assert set(words) - set(shlex.split(old)) <= {"--game", *catalogue.names()}, where  # only the game's flags


def test_an_init_model_from_the_zoo_keeps_its_cards_command_in_todays_flags_too(monkeypatch):
    old = {"command": "python -m octagames.experiments.train_az --game octiles --iterations 3",
           "command_today": "python -m octagames.experiments.train_az --game octiles-fixed-start --iterations 3",
           "commit": "abc1234", "init": {}}
    monkeypatch.setattr(zoo, "zoo_card", lambda name: old if name == "octiles-fixed-start" else {})
    assert zoo.init_origin("zoo:octiles-fixed-start") == {"model": "zoo:octiles-fixed-start", **old}
    today = {k: v for k, v in old.items() if k != "command_today"}
    monkeypatch.setattr(zoo, "zoo_card", lambda name: today)
    assert "command_today" not in zoo.init_origin("zoo:octiles-fixed-start")


def test_a_learned_policy_record_in_words():
    assert zoo.policy_text({"command": "improve"}) == ""  # no win rate: nothing to say
    one = {"win_rate": 0.6004, "eval_games": 4000, "wall_time": 2641.0}
    assert zoo.policy_text(one) == " (0.600 against the heuristic over 4000 held-out deals; improved for 44 min)"
    chained = {**one, "stages": [one, one], "total_wall_time": 3 * 2641.0}
    assert zoo.policy_text(chained) == (" (0.600 against the heuristic over 4000 held-out deals; improved for 132 min"
                                        " in 3 runs)")
    assert zoo.policy_text({"win_rate": 0.5}) == " (0.500 against the heuristic)"


def _shipped_copy(tmp_path, monkeypatch, name: str):
    """The zoo directory moved to ``tmp_path / "zoo"``, holding a copy of the shipped model ``name`` and its
    card; returns the copy's model file."""
    shipped = az.zoo_path(name)
    monkeypatch.setattr(az, "ZOO_DIR", tmp_path / "zoo")
    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path / "zoo")
    (tmp_path / "zoo").mkdir()
    for suffix in (".pt", ".json"):
        shutil.copyfile(shipped.with_suffix(suffix), tmp_path / "zoo" / f"{name}{suffix}")
    return tmp_path / "zoo" / f"{name}.pt"


def test_the_zoo_file_promoted_again_can_rewrite_its_net_fields_alone(tmp_path, monkeypatch):
    """``--keep-evaluation`` rewrites a zoo card's ``net:`` fields (``--network-rollout-base``) without a game:
    the file and the card's evaluation stay; a flag that changes the search, or another file, is refused."""
    zoo_file = _shipped_copy(tmp_path, monkeypatch, "octa-nl")
    data = zoo_file.read_bytes()

    def again(**flags):
        return zoo.promote(zoo.ZooConfig(game="octa-nl", model=str(zoo_file), keep_evaluation=True, **flags))

    before = again(network_rollout_base="model")  # the agent's own: the card names none
    assert "network_rollout_base" not in before and make_agent("net:octa-nl", "octa-nl").search.rollout_base == "model"
    card = again(network_rollout_base="learned_policy")
    assert card["network_rollout_base"] == "learned_policy" and zoo_file.read_bytes() == data
    kept = ("network_rollout_base", "commit", "date")  # what the rewrite changes
    assert {k: v for k, v in card.items() if k not in kept} == {k: v for k, v in before.items() if k not in kept}
    assert card["date"] == datetime.date.today().isoformat() and card["evaluation"]  # the evaluation kept
    assert list(card).index("network_rollout_base") > list(card).index("search")
    assert json.loads(zoo_file.with_suffix(".json").read_text()) == card
    assert "the move they must beat its learned policy's" in (tmp_path / "zoo" / "README.md").read_text()
    assert make_agent("net:octa-nl", "octa-nl").search.rollout_base == "learned_policy"
    assert make_agent("zoo:octa-nl", "octa-nl").search.rollout_base == "model"
    assert again()["network_rollout_base"] == "learned_policy"  # unnamed: the card's
    assert "network_rollout_base" not in again(network_rollout_base="model")  # the agent's own again
    assert make_agent("net:octa-nl", "octa-nl").search.rollout_base == "model"

    with pytest.raises(ValueError, match=r"change zoo:octa-nl's search \(belief_worlds\)"):
        again(belief_worlds=3)
    shutil.copyfile(zoo_file, tmp_path / "copy.pt")
    with pytest.raises(ValueError, match="is not the zoo file"):
        zoo.promote(zoo.ZooConfig(game="octa-nl", model=str(tmp_path / "copy.pt"), keep_evaluation=True))
    with pytest.raises(ValueError, match="network_rollout_base='policy' is not valid"):
        zoo.ZooConfig(game="octa-nl", model="m.pt", network_rollout_base="policy")
    g = Game("octa-nl")
    save_model(PolicyValueNet(g.observation_size, g.num_actions, 2, hidden=(8,)), tmp_path / "bare.pt", g,
               SearchConfig(simulations=2))
    with pytest.raises(ValueError, match="carries no learned policy and no learned rollout"):
        zoo.promote(zoo.ZooConfig(game="octa-nl", model=str(tmp_path / "bare.pt"),
                                  network_rollout_base="learned_policy"))
    with pytest.raises(ValueError, match="network_belief_worlds=7 is not valid for .*no learned rollout policy"):
        zoo.promote(zoo.ZooConfig(game="octa-nl", model=str(tmp_path / "bare.pt"), network_belief_worlds=7))
    assert zoo_file.read_bytes() == data  # nothing written by a refused promotion


def test_the_zoo_file_promoted_again_can_rewrite_the_worlds_of_its_network_rollouts(tmp_path, monkeypatch):
    """``--network-belief-worlds`` sets the worlds ``net:<name>``'s learned rollouts go over, on the card alone
    with ``--keep-evaluation``: ``zoo:<name>``'s own worlds, the file and the evaluation stay; the card keeps
    the number where a later rewrite names none; 0 is refused."""
    zoo_file = _shipped_copy(tmp_path, monkeypatch, "octa-nl")
    before = json.loads(zoo_file.with_suffix(".json").read_text())
    data = zoo_file.read_bytes()

    def again(**flags):
        return zoo.promote(zoo.ZooConfig(game="octa-nl", model=str(zoo_file), keep_evaluation=True, **flags))

    # neither the search's own nor the card's, whatever the shipped card says
    worlds = max(before["search"]["belief_worlds"], before.get("network_belief_worlds", 0)) + 7
    card = again(network_belief_worlds=worlds)
    assert card["network_belief_worlds"] == worlds and card["evaluation"] == before["evaluation"]
    assert card["search"] == before["search"]
    assert make_agent("net:octa-nl", "octa-nl").search.belief_worlds == worlds
    assert make_agent("zoo:octa-nl", "octa-nl").search.belief_worlds == before["search"]["belief_worlds"]
    assert f"over {worlds} worlds" in (tmp_path / "zoo" / "README.md").read_text()
    assert again()["network_belief_worlds"] == worlds  # unnamed: the card's
    assert zoo_file.read_bytes() == data  # the card alone was rewritten
    for bad in (0, -2):
        with pytest.raises(ValueError, match=f"network_belief_worlds={bad} is not valid"):
            zoo.ZooConfig(game="octa-nl", model=str(zoo_file), network_belief_worlds=bad)


def test_a_promotion_refused_or_interrupted_leaves_the_zoo_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setattr(az, "ZOO_DIR", tmp_path / "zoo")
    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path / "zoo")
    g = Game("achten", deal_penalty=1)
    for seed, file in ((0, "first.pt"), (1, "second.pt")):
        torch.manual_seed(seed)
        save_model(PolicyValueNet(g.observation_size, g.num_actions, 2, hidden=(16,)), tmp_path / file, g,
                   SearchConfig(simulations=4))
    settings = dict(game="achten-dealer-pays", opponents=("random",), games=(2,), speed_games=1,
                    out_dir=str(tmp_path / "eval"), progress=False)
    zoo.promote(zoo.ZooConfig(model=str(tmp_path / "first.pt"), **settings))
    files = sorted((tmp_path / "zoo").iterdir())
    before = {p.name: p.read_bytes() for p in files}
    with pytest.raises(ValueError, match="agent='heuristc' is not valid"):  # a typo: refused before any file
        zoo.promote(zoo.ZooConfig(model=str(tmp_path / "second.pt"), **{**settings, "opponents": ("heuristc",)}))
    assert {p.name: p.read_bytes() for p in sorted((tmp_path / "zoo").iterdir())} == before

    def interrupted(cfg):
        raise KeyboardInterrupt  # Ctrl-C during the evaluation, after the new model file was written

    monkeypatch.setattr(zoo, "evaluate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        zoo.promote(zoo.ZooConfig(model=str(tmp_path / "second.pt"), **settings))
    assert {p.name: p.read_bytes() for p in sorted((tmp_path / "zoo").iterdir())} == before


@pytest.mark.parametrize("flag, value, words", [
    ("--simulations", "-2", r"simulations=-2 is not valid; it must be 0 \(the network's policy alone\) or >= 2 "
                            r".*, or -1 \(the model file's play-time search\)"),
    ("--simulations", "1", r"simulations=1 is not valid; it must be 0 .* or >= 2"),  # one visits no move
    ("--network-simulations", "1", r"network_simulations=1 is not valid; it must be 0 .* or >= 2 .*, or -1 "
                                   r"\(zoo:<name>'s budget\)"),
    ("--speed-games", "-1", r"speed_games=-1 is not valid; it must be >= 1"),
    ("--speed-games", "0", r"speed_games=0 is not valid; it must be >= 1"),
    ("--seed", "-5", r"seed=-5 is not valid; it must be in 0\.\.2\*\*62-1"),
    ("--games", "-3", r"games=\(-3,\) is not valid; give game counts >= 1")])
def test_counts_seeds_and_budgets_out_of_range_are_refused_when_the_flags_are_read(flag, value, words,
                                                                                     capsys):
    """--speed-games -1 timed no game (0 s per game side on the card), --seed -5 and --games -3 were refused
    by the evaluation after the model was written and timed, --simulations -2 was the model file's search."""
    from octagames.experiments.cli import parse_config

    with pytest.raises(SystemExit) as e:
        parse_config(zoo.ZooConfig, ["--game", "achten-dealer-pays", "--model", "m.pt", flag, value])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1, err
    with pytest.raises(ValueError, match=f"^{words}"):
        zoo.ZooConfig(game="achten-dealer-pays", model="m.pt", **{flag[2:].replace("-", "_"): (
            (int(value),) if flag == "--games" else int(value))})
    kept = zoo.ZooConfig(game="achten-dealer-pays", model="m.pt", simulations=-1, speed_games=1, seed=0)
    assert (kept.simulations, kept.speed_games, kept.seed) == (-1, 1, 0)
    assert zoo.ZooConfig(game="achten-dealer-pays", model="m.pt", simulations=0).simulations == 0
