"""Put a trained model in the zoo, with its card: training command, commit, evaluation, speed.

    octagames zoo --game octrix --model runs/az/octrix-2p-s0/model.pt \\
        --simulations 512 --leaves-per-game 8 --opponents heuristic mcts:1000 --games 400 100

Writes ``agents/zoo/<name>.pt`` (the network in float16 and its default search:
what ``zoo:<name>`` plays; ``name`` is the variant, or ``<variant>-<n>p`` with ``--players n`` at another
count than its default, whose ``zoo`` counts in the catalogue include it, and the model must have been
trained on that variant and count) and ``agents/zoo/<name>.json``, the card: the variant and
every field of its config, where the
model came from (the run's training command, rebuilt from the configuration
the model file carries, and the commit; for a run started from another model,
``--init-model``, that model's command too, read before a promotion replaces
its card), its default search, the seconds its
side of a whole game takes on one core (``speed_games`` games against the
heuristic, one torch thread), and its evaluation: for every opponent,
:func:`octagames.experiments.evaluate.evaluate` (the arena, seats rotated, 95%
Wilson intervals). The run's ``curves.png``, when it lies beside the model,
is copied to ``agents/zoo/<name>.curves.png`` (for a run of no iteration, its warm start's
``warm_start.png``). ``agents/zoo/README.md`` lists
the cards. ``--model agents/zoo/<name>.pt`` promotes the zoo model again with another default search (more
simulations, say): its card keeps where the network came from, its curves and ``net:<name>``'s budget.
With ``--keep-evaluation`` (and the search unchanged) only the card's ``net:`` fields change, and no game is
played; ``--network-rollout-base learned_policy`` makes ``net:<name>``'s paired rollouts beat the file's learned
policy instead of its rollout policy's choice::

    octagames zoo --game octa-nl --model agents/zoo/octa-nl.pt --network-rollout-base learned_policy --keep-evaluation
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from octagames.agents.arena import play_game
from octagames import catalogue
from octagames.agents.learn.az import (ROLLOUT_BASES, ZOO_DIR, AZAgent, SearchConfig, check_simulations, load_model,
                                       save_model, zoo_card, zoo_path, zoo_names, zoo_players, zoo_variant)
from octagames.agents.registry import make_agent
from octagames.agents.search.learned_rollouts import LearnedRollout
from octagames.core import Game
from octagames.experiments.cli import git_commit, parse_config, saved_command, script
from octagames.experiments.evaluate import EvalConfig, evaluate
from octagames.experiments.train_az import TrainConfig
from octagames.experiments.train_ppo import ppo_origin
from octagames.experiments.trainer import upgrade_config

@dataclass(frozen=True)
class ZooConfig:
    """Promote a model to the zoo (all fields are command-line flags)."""

    game: str = "octrix"
    """the variant whose zoo model this is, zoo:<variant> (octagames list: octrix, achten-dealer-pays, ...)"""
    players: int | None = None
    """its player count (None: the variant's default); at another count the model is zoo:<variant>-<n>p"""
    model: str = ""
    """a train_az model.pt or checkpoint.pt"""
    simulations: int = -1
    """default simulations of zoo:<name> (-1: the model file's play-time search)"""
    network_simulations: int = -1
    """simulations of net:<name> without a budget, the network alone (-1: zoo:<name>'s); the card keeps it"""
    network_rollout_base: str = ""
    """the move net:<name>'s paired rollouts must beat: model (its rollout policy's choice) or learned_policy (the
    file's improved learned policy); "": the card's where the zoo file is promoted again, else model"""
    network_belief_worlds: int = -1
    """worlds net:<name>'s paired rollouts by the file's learned rollout policy go over (-1: the network_worlds of
    a train_rollout record beside the model, else the card's where the zoo file is promoted again, else
    zoo:<name>'s belief_worlds)"""
    keep_evaluation: bool = False
    """the zoo file promoted again (--model agents/zoo/<name>.pt) with zoo:<name>'s search unchanged: rewrite its
    card's net: fields only, keeping the file, its evaluation and time per game side (no game is played: the
    opponents and games flags are not used)"""
    leaves_per_game: int = 0
    """default leaves per network call (0: the model file's)"""
    leaf_value_mix: float = -1.0
    """default weight of the game's compiled leaf value (-1: the model file's)"""
    prior_hint_weight: float = -1.0
    """default share of the priors given to the model's prior hint (-1: the model file's)"""
    playout_mix: float = -1.0
    """default weight of a heuristic playout's outcome in every leaf value (-1: the model file's)"""
    c_puct: float = -1.0
    """default PUCT constant (-1: the model file's)"""
    belief_worlds: int = -1
    """default worlds drawn from the game's belief per decision (-1: the model file's; 0: none)"""
    belief_rollouts: bool = False
    """play by rollouts over the believed worlds, this seat's later moves by rollout_policy (see SearchConfig)"""
    belief_model: str = ""
    """the belief's model of the other seats: heuristic, network or learned ("": the model file's; see SearchConfig)"""
    rollout_policy: str = ""
    """who plays this seat's later moves in the rollouts: network or model ("": the model file's)"""
    rollout_search_weight: float = -1.0
    """weight of the network search's visit shares added to the rollout win rates (-1: the model file's)"""
    rollout_margin: float = -2.0
    """standard errors by which paired rollouts must beat the model's choice (-1: off, argmax; -2: the model file's)"""
    opponents: tuple[str, ...] = ("heuristic",)
    """evaluation opponents (agent specs)"""
    games: tuple[int, ...] = (400,)
    """evaluation games per opponent (one number for all, or one per opponent)"""
    speed_games: int = 4
    """games timed against the heuristic for the seconds per game side"""
    seed: int = 0
    """evaluation seed"""
    out_dir: str = "runs/eval"
    """where evaluate writes its JSON and PNG"""
    progress: bool = True
    """show progress bars"""
    ray: bool = False
    """play the evaluation games as Ray tasks on a local instance (the distributed extra)"""

    def __post_init__(self) -> None:
        zoo = {(v.name, n) for v, n in catalogue.zoo_models().values()}
        n = catalogue.variant(self.game).default_players if self.players is None and self.game in \
            catalogue.names() else self.players
        if (self.game, n) not in zoo:
            valid = ", ".join(f"--game {v.name} --players {k}" for v, k in catalogue.zoo_models().values())
            raise ValueError(f"game={self.game!r} with players={self.players!r} is not valid: the catalogue declares "
                             f"no zoo model for it (a variant's zoo counts); valid: {valid}")
        if not self.model:
            raise ValueError("model is empty: give the model.pt (or checkpoint.pt) of a train_az run")
        check_simulations("simulations", self.simulations, "the model file's play-time search")
        check_simulations("network_simulations", self.network_simulations, "zoo:<name>'s budget")
        if self.network_belief_worlds == 0 or self.network_belief_worlds < -1:
            raise ValueError(f"network_belief_worlds={self.network_belief_worlds} is not valid: give -1 (a "
                             "train_rollout record's beside the model, else the card's, else zoo:<name>'s) or a "
                             "number of worlds >= 1")
        if self.network_rollout_base not in ("", *ROLLOUT_BASES):
            raise ValueError(f"network_rollout_base={self.network_rollout_base!r} is not valid; valid values: "
                             f"{['', *ROLLOUT_BASES]}")
        if len(self.games) not in (1, len(self.opponents)):
            raise ValueError(f"games: give one number or one per opponent ({len(self.opponents)}), got {self.games}")
        if self.games and min(self.games) < 1:
            raise ValueError(f"games={self.games} is not valid; give game counts >= 1, e.g. 400")
        if self.speed_games < 1:
            raise ValueError(f"speed_games={self.speed_games} is not valid; it must be >= 1 (the games its seconds "
                             "per game side are timed over)")
        if not 0 <= self.seed < 2**62:  # as evaluate's, which plays with it: here, before the zoo's files
            raise ValueError(f"seed={self.seed} is not valid; it must be in 0..2**62-1")


def training_command(meta: dict[str, Any]) -> str:
    """The ``train_az`` command line recorded in a model file's metadata ("" when it has none; the
    field names of an older trainer's config read as today's)."""
    if "config" not in meta:
        return ""
    return saved_command(TrainConfig, upgrade_config(meta["config"]), "octagames.experiments.train_az")


def init_origin(spec: str) -> dict[str, Any]:
    """Where a run's ``--init-model`` came from ({} for none): a zoo entry's card (its command, with today's
    spelling beside it where the card has one, commit and own origin, read before a promotion replaces it), or
    a model file's recorded ``train_az`` command."""
    if not spec:
        return {}
    if spec.startswith("zoo:"):
        card = zoo_card(spec[4:])
        today = {"command_today": card["command_today"]} if card.get("command_today") else {}
        return {"model": spec, "command": card.get("command", ""), **today, "commit": card.get("commit", ""),
                "init": card.get("init", {})}
    try:
        _, data = load_model(spec)
    except (OSError, ValueError):  # moved or deleted since: the path alone
        return {"model": spec, "command": ""}
    return {"model": spec, "command": training_command(data.get("meta", {}))}


def search_text(search: dict[str, Any]) -> str:
    """A card's default search in words: ``64 simulations, 8 per call, heuristic hint 0.8``."""
    if search.get("belief_rollouts"):
        if search.get("belief_model") == "network":
            text = (f"rollouts over {search['belief_worlds']} worlds believed with the network's policy as the "
                    "model of every seat, every later move by that policy")
        elif search.get("belief_model") == "learned":
            text = (f"rollouts over {search['belief_worlds']} worlds, every later move by the learned rollout "
                    "policy")
        else:
            by = "the belief's model" if search.get("rollout_policy") == "model" else "the network"
            text = f"rollouts over {search['belief_worlds']} believed worlds, its later moves by {by}"
        if search.get("rollout_margin", -1.0) >= 0:
            m = search["rollout_margin"]
            text += (f"; the model's choice unless another action's paired rollouts beat it by more than "
                     f"{m:g} standard error{'' if m == 1 else 's'}")
        if search.get("rollout_search_weight"):
            text += (f", plus {search['rollout_search_weight']:g} x the visit shares of "
                     f"{search['simulations']} network simulations over the same worlds")
        return text
    text = f"{search['simulations']} simulations, {search['leaves_per_game']} per call"
    if search.get("belief_worlds"):
        text += f", {search['belief_worlds']} believed worlds"
    if search.get("prior_hint"):
        text += f", {search['prior_hint']} hint {search['prior_hint_weight']:g}"
    if search.get("playout_mix"):
        text += f", heuristic playouts {search['playout_mix']:g} of every leaf value"
    if search.get("c_puct") is not None:
        text += f", c_puct {search['c_puct']:g}"
    return text


def learned_record(model: Path, kind: str = "rollout") -> dict[str, Any]:
    """How a model file's learned rollout policy was fitted: ``train_rollout``'s record beside it
    (``<stem>.rollout.json``; a zoo file's card keeps it instead, as ``learned_rollout``); its
    ``network_worlds`` becomes the new card's ``network_belief_worlds``; ``{}`` when it is not there.
    With ``kind="policy"``: how its learned policy that plays alone was improved (``improve_policy``'s
    ``<stem>.policy.json``; a card's ``learned_policy``)."""
    path = Path(f"{model.with_suffix('')}.{kind}.json")
    return json.loads(path.read_text()) if path.exists() else {}


def card_of(model: Path) -> Path | None:
    """The card of ``model`` where it is a zoo file that has one (``agents/zoo/<name>.json``), else None."""
    card = model.with_suffix(".json")
    return card if model.resolve().parent == ZOO_DIR.resolve() and card.exists() else None


def kept_record(model: Path, kind: str) -> dict[str, Any]:
    """The record of a model file's learned ``kind`` wherever it is kept: a zoo file's card's
    ``learned_<kind>``, else :func:`learned_record`'s file beside it; ``{}`` where there is none."""
    card = card_of(model)
    return dict(json.loads(card.read_text()).get(f"learned_{kind}", {})) if card else learned_record(model, kind)


def policy_text(record: dict[str, Any]) -> str:
    """A card's ``learned_policy`` record in words for the zoo's README: its held-out win rate against the
    heuristic and how long it was improved, over how many runs (``""`` for a record without a win rate)."""
    if "win_rate" not in record:
        return ""
    held = f" over {record['eval_games']} held-out deals" if "eval_games" in record else ""
    runs = len(record.get("stages", [])) + 1
    seconds = record.get("total_wall_time", record.get("wall_time"))
    spent = f"; improved for {seconds / 60:.0f} min" + (f" in {runs} runs" if runs > 1 else "") if seconds else ""
    return f" ({record['win_rate']:.3f} against the heuristic{held}{spent})"


def seconds_per_side(name: str, games: int, seed: int = 0) -> float:
    """Mean seconds ``zoo:<name>`` spends on its side of a whole game against the heuristic in every other
    seat (its seat rotated), one torch thread. One game is played untimed first (seed ``seed + games``):
    a kernel compiled on its first call (an edited rules or value module, a cold cache) is not timed."""
    g = Game(zoo_variant(name).name, num_players=zoo_players(name))
    game, n = g.name, g.num_players
    agent = make_agent(f"zoo:{name}", g)
    act = agent.act
    spent = [0.0]

    def timed(turn):
        t0 = time.perf_counter()
        out = act(turn)
        spent[0] += time.perf_counter() - t0
        return out

    for k in range(-1, games):  # k = -1: the untimed game; play_game plays torch on one thread
        agent.act = act if k < 0 else timed  # type: ignore[method-assign]
        seats = [agent] + [make_agent("heuristic", game) for _ in range(n - 1)]
        play_game(g, seats[n - k % n:] + seats[:n - k % n], seed + (games if k < 0 else k))
    return spent[0] / max(1, games)


NETWORK_FIELDS = ("network_simulations", "network_rollout_base", "network_belief_worlds")
"""The card fields of ``net:<name>`` that a promotion sets from its flags (:func:`network_fields`)."""


def network_fields(cfg: ZooConfig, again: dict[str, Any], data: dict[str, Any],
                   fitted: dict[str, Any] | None = None) -> dict[str, Any]:
    """The card fields ``net:<name>`` reads beside the search: ``network_simulations``, ``network_rollout_base``
    and ``network_belief_worlds``, from the flags, else from the card of the zoo file promoted again (``again``);
    ``data`` is the model file's contents; ``fitted``, the record of its learned rollout policy where it is not the
    card's, whose ``network_worlds`` (``train_rollout --network-worlds``) comes before the card's.

    Raises:
        ValueError: ``learned_policy`` as the base of a file without a learned policy, or without the learned
            rollout policy whose paired rollouts would have to beat it; worlds for a file without that rollout
            policy (nothing would roll out over them).
    """
    fields = {k: again[k] for k in NETWORK_FIELDS if k in again}
    if (fitted or {}).get("network_worlds"):
        fields["network_belief_worlds"] = fitted["network_worlds"]  # type: ignore[index]
    if cfg.network_belief_worlds >= 1:
        if "learned_rollout" not in data:
            raise ValueError(f"network_belief_worlds={cfg.network_belief_worlds} is not valid for {cfg.model}: the "
                             "file carries no learned rollout policy to roll out with (octagames train-rollout "
                             "writes it); valid: -1")
        fields["network_belief_worlds"] = cfg.network_belief_worlds
    if cfg.network_simulations >= 0:
        fields["network_simulations"] = cfg.network_simulations
    if cfg.network_rollout_base:
        fields["network_rollout_base"] = cfg.network_rollout_base
    if fields.get("network_rollout_base") == "model":  # the agent's own: the card names none
        del fields["network_rollout_base"]
    missing = [k for k in ("learned_policy", "learned_rollout") if k not in data]
    if fields.get("network_rollout_base") == "learned_policy" and missing:
        raise ValueError(f"network_rollout_base='learned_policy' is not valid for {cfg.model}: the file carries no "
                         f"{' and no '.join(k.replace('_', ' ') for k in missing)} (octagames train-rollout writes "
                         "the rollout policy, improve-policy the policy its rollouts would beat); valid: model")
    return fields


def recard(cfg: ZooConfig, name: str, again: dict[str, Any], search: SearchConfig,
           data: dict[str, Any]) -> dict[str, Any]:
    """``--keep-evaluation``: the card of the zoo file ``name`` with its ``net:`` fields rewritten; the file, its
    search and its evaluation stay (``--opponents`` and ``--games`` are not played). Refused for another file or
    where the flags change ``zoo:<name>``'s search."""
    if not again:
        raise ValueError(f"keep_evaluation: model={cfg.model!r} is not the zoo file {ZOO_DIR / name}.pt with its "
                         "card; only the zoo file promoted again keeps its card's evaluation")
    names = {f.name for f in dataclasses.fields(SearchConfig)}
    kept = SearchConfig(**{k: v for k, v in again["search"].items() if k in names})
    changed = [k for k in sorted(names) if getattr(kept, k) != getattr(search, k)]
    if changed:
        raise ValueError(f"keep_evaluation: the flags change zoo:{name}'s search ({', '.join(changed)}), so its "
                         "evaluation must be played again: drop --keep-evaluation")
    card = {k: v for k, v in again.items() if k not in NETWORK_FIELDS}
    at = list(card).index("search") + 1  # the net: fields after the search, where a promotion writes them
    items = list(card.items())
    card = dict(items[:at] + list(network_fields(cfg, again, data).items()) + items[at:])
    card.update(commit=git_commit(), date=datetime.date.today().isoformat())
    (ZOO_DIR / f"{name}.json").write_text(json.dumps(card, indent=1) + "\n")
    write_readme()
    return card


def promote(cfg: ZooConfig) -> dict[str, Any]:
    """Write the zoo model and its card; returns the card."""
    g = Game(cfg.game, num_players=cfg.players)
    game, config = g.name, catalogue.full_config(g.name, g.config)
    name = catalogue.variant(cfg.game).zoo_name(g.num_players)
    net, data = load_model(cfg.model, g)
    search = SearchConfig(**{k: v for k, v in data["search"].items() if k in {f.name for f in
                                                                               dataclasses.fields(SearchConfig)}})
    changes: dict[str, Any] = {"dirichlet_alpha": 0.0}
    if cfg.simulations >= 0:
        changes["simulations"] = cfg.simulations
    if cfg.leaves_per_game > 0:
        changes["leaves_per_game"] = cfg.leaves_per_game
    if cfg.leaf_value_mix >= 0:
        changes["leaf_value_mix"] = cfg.leaf_value_mix
    if cfg.prior_hint_weight >= 0:
        changes["prior_hint_weight"] = cfg.prior_hint_weight
    if cfg.playout_mix >= 0:
        changes["playout_mix"] = cfg.playout_mix
    if cfg.c_puct >= 0:
        changes["c_puct"] = cfg.c_puct
    if cfg.belief_worlds >= 0:
        changes["belief_worlds"] = cfg.belief_worlds
    if cfg.belief_rollouts:
        changes["belief_rollouts"] = True
    if cfg.belief_model:
        changes["belief_model"] = cfg.belief_model
    if cfg.rollout_policy:
        changes["rollout_policy"] = cfg.rollout_policy
    if cfg.rollout_search_weight >= 0:
        changes["rollout_search_weight"] = cfg.rollout_search_weight
    if cfg.rollout_margin != -2.0:
        changes["rollout_margin"] = cfg.rollout_margin
    search = dataclasses.replace(search, **changes)
    meta = data.get("meta", {})
    init = init_origin(meta.get("config", {}).get("init_model", ""))  # before this entry's card is replaced
    # the zoo file itself, promoted again with another default search: its card keeps where the network came
    # from, its curves, the network's budget and its learned policy's record (the file's metadata kept its source)
    again = zoo_card(name) if Path(cfg.model).resolve() == (ZOO_DIR / f"{name}.pt").resolve() else {}
    if cfg.keep_evaluation:
        return recard(cfg, name, again, search, data)
    learned = LearnedRollout.from_state(g, data["learned_rollout"]) if "learned_rollout" in data else None
    beside = learned_record(Path(cfg.model)) if learned is not None else {}  # a fit newer than the card's
    net_fields = network_fields(cfg, again, data, beside)  # refused before any file is written
    ZOO_DIR.mkdir(parents=True, exist_ok=True)
    fitted = (beside or dict(again.get("learned_rollout", {}))) if learned is not None else {}
    alone = LearnedRollout.from_state(g, data["learned_policy"]) if "learned_policy" in data else None
    improved = (learned_record(Path(cfg.model), "policy") or dict(again.get("learned_policy", {}))) \
        if alone is not None else {}
    for opponent in cfg.opponents:  # a typo is refused before the zoo's files are touched
        make_agent(opponent, g)
    # an evaluation refused or interrupted (Ctrl-C) puts the zoo's files back: no model its card does not describe
    with restored_on_failure(*(ZOO_DIR / f"{name}{end}" for end in (".pt", ".json", ".curves.png")),
                             ZOO_DIR / "README.md"):
        save_model(net, ZOO_DIR / f"{name}.pt", g, search, meta={"source": str(cfg.model), **meta}, half=True,
                   learned=learned, alone=alone)
        AZAgent.load(zoo_path(name), game=g)  # the float16 copy loads for its game
        card: dict[str, Any] = {
            "name": name, "game": game, "variant": catalogue.describe(game, config), "config": config,
            "source": again.get("source", str(cfg.model)),
            "command": training_command(meta), "commit": git_commit(), "date": datetime.date.today().isoformat(),
            # the zoo file promoted again: what its card says of the training where the file's metadata is silent
            "training": {**again.get("training", {}),
                         **{k: meta[k] for k in ("iteration", "wall_time", "machine") if k in meta}},
            "teacher": ppo_origin(meta.get("config", {}).get("imitation_teacher", "")), "init": init,
            "search": dataclasses.asdict(search),
            **net_fields,
            **({"learned_rollout": fitted} if learned is not None else {}),
            **({"learned_policy": improved} if alone is not None else {}),
            "size_bytes": zoo_path(name).stat().st_size,
            "seconds_per_game_side": seconds_per_side(name, cfg.speed_games, cfg.seed),
            "evaluation": [],
        }
        curves = Path(cfg.model).with_name("curves.png")  # the training run's learning curves, when beside the model
        if meta.get("iteration") == 0 and curves.with_name("warm_start.png").exists():
            curves = curves.with_name("warm_start.png")  # a run that was its warm start alone: that is its learning
        if curves.exists():
            shutil.copyfile(curves, ZOO_DIR / f"{name}.curves.png")
            card["curves"] = f"{name}.curves.png"
        elif again.get("curves") and (ZOO_DIR / again["curves"]).exists():
            card["curves"] = again["curves"]
        games = cfg.games * len(cfg.opponents) if len(cfg.games) == 1 else cfg.games
        for opponent, n in zip(cfg.opponents, games):
            out = evaluate(EvalConfig(game=cfg.game, players=g.num_players, agent=f"zoo:{name}", opponents=(opponent,),
                                      games=n,
                                      seed=cfg.seed, out_dir=cfg.out_dir, progress=cfg.progress, ray=cfg.ray,
                                      resume=False))  # a new model: never games of an older one
            r = out["results"][0]
            entry = {k: r[k] for k in ("opponent", "win_rate", "ci95", "wins", "draws", "losses", "games")}
            entry["others_win_rate"] = r["others_win_rate"]
            card["evaluation"].append(entry)
        (ZOO_DIR / f"{name}.json").write_text(json.dumps(card, indent=1) + "\n")
        write_readme()
    return card


@contextlib.contextmanager
def restored_on_failure(*paths: Path) -> Iterator[None]:
    """A context in which ``paths`` are put back as they were (or removed, where they did not exist) when
    its block raises or is interrupted."""
    saved = {p: p.read_bytes() if p.exists() else None for p in paths}
    try:
        yield
    except BaseException:
        for p, data in saved.items():
            if data is None:
                p.unlink(missing_ok=True)
            else:
                p.write_bytes(data)
        raise


def write_readme() -> Path:
    """``agents/zoo/README.md``: one line per card."""
    lines = ["# Model zoo", "", "Load with `make_agent(\"zoo:<variant>\", game)`, or `zoo:<variant>-<n>p` for a model of "
             "another player count than the variant's default (`zoo:octrix-3p`); append `:<simulations>` to change "
             "the search budget; `net:<variant>` plays the same network alone (no hand-written part), at the budget "
             "its card names after the search where it names one. A model plays its variant and player count only "
             "(another config is refused unless `allow_config_mismatch=True`). Each model's card (`<name>.json`) "
             "holds the variant and every field of its config, its training command, commit and evaluation; "
             "`python -m octagames.experiments.zoo` writes both. A card's `command` is the command as it ran at "
             "the card's commit; where its flags have changed since (`--game-config`, `--num-players`, a bare "
             "game name that now means another variant), `command_today` beside it gives the same training "
             "with today's flags (so does an `init` or `teacher` command).", "",
             "| name | variant | default search | s per game side | evaluation (95% interval) | curves | commit |",
             "|---|---|---|---:|---|---|---|"]
    for name in zoo_names():
        path = ZOO_DIR / f"{name}.json"
        if not path.exists():
            continue
        c = json.loads(path.read_text())
        ev = "; ".join(f"vs {e['opponent']} {e['win_rate']:.3f} [{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}] "
                       f"/{e['games']}" for e in c["evaluation"])
        curves = f"[png]({c['curves']})" if "curves" in c else "–"
        variant = catalogue.describe(c["game"], c["config"])
        net = f"; `net:{name}` {c['network_simulations']} simulations" if "network_simulations" in c else ""
        if "learned_rollout" in c:
            worlds = f" over {c['network_belief_worlds']} worlds" if "network_belief_worlds" in c else ""
            net += f"; `net:{name}` rolls out by its learned rollout policy{worlds}"
            if c.get("network_rollout_base") == "learned_policy":
                net += ", the move they must beat its learned policy's"
        if "learned_policy" in c:
            alone = c["learned_policy"]
            net += f"; `net:{name}:0` plays its learned policy alone{policy_text(alone)}"
        lines.append(f"| `zoo:{name}` | {variant} | {search_text(c['search'])}{net} | "
                     f"{c['seconds_per_game_side']:.1f} | {ev} | {curves} | {c['commit']} |")
    out = ZOO_DIR / "README.md"
    out.write_text("\n".join(lines) + "\n")
    return out


@script
def cli() -> None:
    """Command-line entry point (``python -m octagames.experiments.zoo``)."""
    card = promote(parse_config(ZooConfig))
    print(json.dumps({k: card[k] for k in ("name", "seconds_per_game_side", "evaluation")}, indent=1))


if __name__ == "__main__":
    cli()
