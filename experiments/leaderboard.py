"""The leaderboard: a round robin per game between the baselines and the zoo, with Bradley-Terry Elo.

    octagames leaderboard                                  # every section (make leaderboard)
    octagames leaderboard --game octiles-fixed-start       # rerun one section
    octagames leaderboard --game achten-dealer-pays \\
        --add achten-dealer-pays=ppo:runs/ppo/achten-dealer-pays-s1/policy.pt   # a policy of another run folder
    octagames leaderboard --game octrix --record-games     # the records of games journaled without them

The sections are ``octrix``, ``achten-dealer-pays``, ``octiles-fixed-start``, ``octa-en`` and
``octa-nl`` (:func:`sections`; ``--game octiles`` is refused: Octiles' section is its fixed-start variant).

A section is a variant of the catalogue (:mod:`octagames.catalogue`) whose ``Variant.leaderboard``
names two MCTS budgets, played with its default player count; its name is the variant's. Its
roster: random, the heuristic, MCTS at the two budgets (each game's default evaluator; ``--mcts`` gives one or
more others for every section), MCCFR
where the variant says so (``Variant.leaderboard_cfr``: outcome sampling on the same config),
a PPO policy when one is found in the PPO trainer's default folder for the variant (seed 0,
``runs/ppo/<variant>-<players>p-<config digest>-s0/policy.pt``, :func:`ppo_policy`) or, as
runs were once named, at ``runs/ppo/<section>/policy.pt`` (or given with ``--add``),
and the zoo model (``zoo:<section>``, its default search). Any agent spec joins with
``--add <section>=<spec>``.

The games of a pair are played by :func:`octagames.experiments.tournament.run_tournament`
(seats rotated every game); ratings are its maximum-likelihood Bradley-Terry
Elo with 95% bootstrap intervals, anchored at random = 0. Every section writes
``docs/leaderboard/<section>.json`` and ``docs/img/leaderboard_<section>.png``;
``docs/leaderboard.md`` is then rebuilt from every JSON present, so rerunning
one game leaves the others' results in place.
"""

from __future__ import annotations

import datetime
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np

from octagames import catalogue
from octagames.agents.base import Agent
from octagames.agents.learn.az import ZOO_DIR, check_simulations
from octagames.agents.registry import make_agent
from octagames.catalogue import Variant
from octagames.core import Game
from octagames.experiments.cli import (check_ray_options, executor_from, games_kept_on_interrupt, git_commit,
                                      open_journal, parse_config, script, shown_default)
from octagames.experiments.tournament import (JournalRecording, TournamentResult, anchor_note, record_journal,
                                              refit_journal, run_tournament, save, seats_header)
from octagames.experiments.train_ppo import TrainConfig, ppo_origin
from octagames.experiments.trainer import default_run_dir

def sections() -> list[str]:
    """The leaderboard's sections: the variants with leaderboard budgets, in the catalogue's order."""
    return [name for name, v in catalogue.variants().items() if v.leaderboard is not None]


def section_title(key: str) -> str:
    """The heading of section ``key`` in ``docs/leaderboard.md``: the variant's title and seats."""
    v = catalogue.variant(key)
    return f"{v.title}, {v.default_players} players"


@dataclass(frozen=True)
class LeaderboardConfig:
    """The leaderboard run (all fields are command-line flags)."""

    game: tuple[str, ...] = tuple(sections())
    """sections to (re)run, by variant name: octrix, achten-dealer-pays, octiles-fixed-start, octa-en, octa-nl"""
    games_per_pair: int = 20
    """games each pair plays, seats rotated"""
    add: Annotated[tuple[str, ...], shown_default("none")] = ()
    """extra agents as <section>=<spec>, e.g. octiles-fixed-start=mcts:2000 or achten-dealer-pays=belief"""
    mcts: Annotated[tuple[int, ...], shown_default("each section's own")] = ()
    """replace every section's two MCTS budgets with these, one or more (simulations per decision; one mcts:<n>
    agent each)"""
    zoo_simulations: int = -1
    """simulations of the zoo agents (-1: each model's default search)"""
    cfr_iterations: int = 20000
    """MCCFR iterations of the cfr agent (outcome sampling, trained when the run starts)"""
    ppo_dir: str = "runs/ppo"
    """the PPO runs: a policy in the trainer's default folder of a section's variant (seed 0), or at
    <ppo_dir>/<section>/policy.pt, joins that section's roster"""
    seed: int = 0
    """tournament seed"""
    bootstrap: int = 400
    """bootstrap resamples of the rating intervals"""
    out: str = "docs/leaderboard.md"
    """the Markdown table (rebuilt from every section's JSON in <out without .md>/)"""
    img_dir: str = "docs/img"
    """folder of the PNG charts"""
    readme: str = "README.md"
    """the file whose leaderboard block (between the leaderboard:start/end markers) gets the summary ("" : none)"""
    progress: bool = True
    """show progress bars"""
    resume: bool = True
    """take the games already saved in <out without .md>/<section>.games.jsonl (same roster); False: none"""
    ray: bool = False
    """play the games as Ray tasks on a local Ray instance (the distributed extra)"""
    ray_address: str = ""
    """join this Ray cluster instead (auto: the cluster this machine belongs to); implies --ray"""
    chunk_size: int = 4
    """games per Ray task"""
    refit: bool = False
    """fit the chosen sections' ratings and intervals again from their journals, playing nothing (after a change
    to the fit); each section's JSON keeps its games, time and date and records the refit"""
    record_games: bool = False
    """play again the chosen sections' journaled games that have no record (played before journals kept
    records) and keep their records, so they can be replayed (octagames replay, the web page); each must
    end as the journal says; the results and docs are left as they are"""

    def __post_init__(self) -> None:
        for key in self.game:
            if key not in sections():
                raise ValueError(f"game: {key!r} is not valid; valid sections: {sections()}")
        for item in self.add:
            key, sep, spec = item.partition("=")
            if not sep or key not in sections() or not spec:
                raise ValueError(f"add: {item!r} is not <section>=<agent spec> with a section of "
                                 f"{sections()}")
            if self.refit or self.record_games:  # they play no round robin: the agent would be dropped
                raise ValueError(f"add: {item!r} with --{'refit' if self.refit else 'record-games'}, which plays no "
                                 "round robin; add an agent by running its section")
            if key not in self.game:  # it was never built nor played, without a word
                raise ValueError(f"add: {item!r} adds to section {key}, which this run does not play (game: "
                                 f"{', '.join(self.game)}); name it with --game too")
        if any(n < 1 for n in self.mcts):
            raise ValueError(f"mcts={self.mcts} is not valid; budgets must be >= 1")
        if self.games_per_pair < 1:
            raise ValueError(f"games_per_pair={self.games_per_pair} is not valid; it must be >= 1")
        if self.cfr_iterations < 0:
            raise ValueError(f"cfr_iterations={self.cfr_iterations} is not valid; it must be >= 0")
        check_simulations("zoo_simulations", self.zoo_simulations, "each model's default search")
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap={self.bootstrap} is not valid; it must be >= 0 (0: no intervals)")
        if not 0 <= self.seed < 2**62:  # as tournament's: here, before a section's journal is opened
            raise ValueError(f"seed={self.seed} is not valid; it must be in 0..2**62-1")
        check_ray_options(self.ray_address, self.chunk_size)


def ppo_policy(key: str, ppo_dir: str | Path = "runs/ppo") -> Path | None:
    """The PPO policy of section ``key``, if there is one.

    Args:
        key: the section (a variant name).
        ppo_dir: the PPO trainer's folder of runs.

    Returns:
        ``policy.pt`` in the folder ``octagames train-ppo --game <section>`` writes by default
        (:func:`octagames.experiments.trainer.default_run_dir`, the trainer's default seed), else
        ``<ppo_dir>/<section>/policy.pt`` (runs named by hand, as before variants named the
        folders); ``None`` when neither exists.
    """
    v = catalogue.variant(key)
    default = Path(ppo_dir) / default_run_dir("ppo", v.game, v.full_config(), TrainConfig.seed).name
    return next((p for p in (default / "policy.pt", Path(ppo_dir) / key / "policy.pt") if p.exists()), None)


def roster(key: str, cfg: LeaderboardConfig, built: dict[str, Agent] | None = None
           ) -> tuple[list[Agent], dict[str, str]]:
    """The agents of section ``key`` that build here (named by their spec), and the skipped specs and why.

    ``built``: the agents of ``cfg.add`` already built for this section, by spec (:func:`added_agents`);
    the others are built here.

    Raises:
        ValueError: an agent of ``cfg.add`` for this section does not build (a typo, a missing file).
    """
    v = catalogue.variant(key)
    assert v.leaderboard is not None
    specs = ["random", "heuristic", *(f"mcts:{n}" for n in (cfg.mcts or v.leaderboard))]
    if v.leaderboard_cfr:
        specs.append(f"cfr:{cfg.cfr_iterations}")
    agents, skipped = [], {}
    ppo = ppo_policy(key, cfg.ppo_dir)
    if ppo is not None:
        specs.append(f"ppo:{ppo}")
    else:  # said, not left out in silence: a rerun without the policy plays a board without it
        skipped["ppo"] = (f"no PPO policy under {cfg.ppo_dir} (train one with `octagames train-ppo --game {key}`, "
                          f"or name a folder with --ppo-dir)")
    specs.append(f"zoo:{key}" + (f":{cfg.zoo_simulations}" if cfg.zoo_simulations >= 0 else ""))
    added = [item.partition("=")[2] for item in cfg.add if item.partition("=")[0] == key]
    for spec in specs:
        try:
            agent = _build(spec, v)
        except Exception as e:  # unavailable here (no model file, a game the agent does not play ...)
            skipped[spec] = f"{type(e).__name__}: {e}"
            continue
        agent.name = spec
        agents.append(agent)
    for spec in added:  # what the user asked for is refused, not left out in silence
        agent = (built or {}).get(spec) or _build_added(key, spec)
        agent.name = spec
        agents.append(agent)
    return agents, skipped


def added_agents(cfg: LeaderboardConfig) -> dict[str, dict[str, Agent]]:
    """The agents ``--add`` asks for in the chosen sections, built once, before hours of round robins:
    ``{section: {spec: agent}}``.

    Raises:
        ValueError: one does not build here (:func:`_build_added`).
    """
    out: dict[str, dict[str, Agent]] = {}
    for item in cfg.add:
        key, _, spec = item.partition("=")
        if key in cfg.game:
            out.setdefault(key, {})[spec] = _build_added(key, spec)
    return out


def _build_added(key: str, spec: str) -> Agent:
    """The agent ``--add <key>=<spec>`` asks for.

    Raises:
        ValueError: it does not build here, naming the ``--add`` item and why.
    """
    try:
        return _build(spec, catalogue.variant(key))
    except Exception as e:
        raise ValueError(f"add: {key}={spec} does not play here: {type(e).__name__}: {e}") from e


def _build(spec: str, v: Variant) -> Agent:
    # cfr trains on this config; a model of another config is refused here
    return make_agent(spec, Game(v.game, **v.full_config()))


def run_board(key: str, cfg: LeaderboardConfig, added: dict[str, Agent] | None = None) -> dict[str, Any]:
    """Play section ``key``'s round robin (``added``: its ``--add`` agents already built, by spec); write its
    JSON and PNG; return the JSON's content."""
    v = catalogue.variant(key)
    config = v.full_config()
    agents, skipped = roster(key, cfg, added)
    for spec, why in skipped.items():
        print(f"{key}: {spec} skipped: {why}", flush=True)
    data_dir = Path(cfg.out).with_suffix("")
    executor = executor_from(cfg.ray, cfg.ray_address, cfg.chunk_size)  # an address where nothing answers: here
    journal = open_journal(data_dir / f"{key}.games.jsonl", cfg.resume,
                           {"entry": key, "config": config, "agents": [a.name for a in agents],
                            "games_per_pair": cfg.games_per_pair, "seed": cfg.seed, **seats_header(cfg.games_per_pair)})
    with games_kept_on_interrupt(lambda: journal):  # Ctrl-C: one line, exit status 130
        result: TournamentResult = run_tournament(v.game, agents, cfg.games_per_pair, cfg.seed, cfg.bootstrap,
                                                  cfg.progress, executor, journal, **config)
    journal.close()
    print(result.table())
    json_path, png_path = save(result, data_dir, stem=key)
    png = Path(cfg.img_dir) / f"leaderboard_{key}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    png_path.replace(png)
    data = result.to_json()
    data.update(entry=key, title=section_title(key), skipped=skipped, games_per_pair=cfg.games_per_pair,
                png=str(png), date=datetime.date.today().isoformat(), commit=git_commit(),
                origins=origins([a.name for a in agents]))
    json_path.write_text(json.dumps(data, indent=1))
    return data


def refit_board(key: str, cfg: LeaderboardConfig) -> dict[str, Any]:
    """Fit section ``key``'s ratings and intervals again from its journal
    (:func:`octagames.experiments.tournament.refit_journal`), playing nothing; rewrite its JSON (its games, time and
    date kept, the refit recorded under ``refit``) and PNG; return the JSON's content.

    Raises:
        FileNotFoundError: the section has no journal or JSON (run it first: ``octagames leaderboard --game <key>``).
        ValueError: the journal is not the JSON's round robin, or does not hold all its games.
    """
    data_dir = Path(cfg.out).with_suffix("")
    json_path, journal = data_dir / f"{key}.json", data_dir / f"{key}.games.jsonl"
    if not json_path.exists():
        raise FileNotFoundError(f"{json_path}: section {key} has no results to refit; run it first: "
                                f"octagames leaderboard --game {key}")
    data = json.loads(json_path.read_text())
    result = refit_journal(journal, catalogue.variant(key).game, cfg.bootstrap)
    if result.names != data["agents"] or result.wins.tolist() != data["wins"]:
        raise ValueError(f"{journal}: its games are not those of {json_path} (agents {result.names}, "
                         f"{data['agents']} there; or other scores): run the section again instead")
    result.seconds = float(data["seconds"])
    _, png_path = save(result, data_dir, stem=key)
    png = Path(cfg.img_dir) / f"leaderboard_{key}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    png_path.replace(png)
    fitted = result.to_json()
    data.update({k: fitted[k] for k in ("elo", "elo_ci95", "draws", "settings")}, png=str(png),
                refit={"date": datetime.date.today().isoformat(), "commit": git_commit(), "bootstrap": cfg.bootstrap})
    json_path.write_text(json.dumps(data, indent=1))
    print(f"{key}: refitted from {journal} ({int(result.games.sum() / 2)} games)")
    print(result.table())
    return data


def record_section(key: str, cfg: LeaderboardConfig) -> JournalRecording:
    """Keep the records of section ``key``'s journaled games that have none
    (:func:`octagames.experiments.tournament.record_journal`) and print what was done.

    Raises:
        FileNotFoundError: the section has no journal (run it first: ``octagames leaderboard --game <key>``).
        ValueError: a game replays otherwise than its journal says.
    """
    path = Path(cfg.out).with_suffix("") / f"{key}.games.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: section {key} has no journal; play it first: "
                                f"octagames leaderboard --game {key}")
    done = record_journal(path, catalogue.variant(key).game, executor_from(cfg.ray, cfg.ray_address, cfg.chunk_size),
                          cfg.progress)
    print(f"{key}: {done.recorded} games recorded now, {done.already} before")
    for why, n in done.left.items():
        print(f"  {n} games left without a record: {why}")
    return done


def origins(specs: list[str]) -> dict[str, dict[str, Any]]:
    """How the roster's trained files came about: each ``ppo:<path>`` spec's ``train_ppo`` command.

    The zoo models carry their own cards (``agents/zoo/<name>.json``); a PPO policy under
    ``runs/`` is not in the repository, so the leaderboard records how to train it again.
    """
    found = {spec: ppo_origin(spec) for spec in specs if spec.startswith("ppo:")}
    return {spec: o for spec, o in found.items() if o}


def markdown(results: dict[str, dict[str, Any]], out: Path) -> str:
    """The Markdown leaderboard: one table per section, best first, with the chart."""
    lines = ["# Leaderboard", "",
             "Round robins per variant (`octagames leaderboard`, `make leaderboard`). "
             "Ratings are Bradley–Terry Elo with 95% bootstrap intervals, random = 0; *score* is the "
             "share of points over all the agent's games (a draw is half). MCTS budgets are simulations "
             "per decision with the game's default evaluator; `zoo:<section>` is the shipped model with its "
             "default search. Each section is a variant (`octagames list`); add an agent with "
             "`--add <section>=<spec>` and rerun that section with `--game <section>`. Every game is in "
             "`docs/leaderboard/<section>.games.jsonl` with its record (its moves and the agents' thinking) "
             "where its agents are in the repository: watch one with `octagames replay "
             "docs/leaderboard/<section>.games.jsonl --game-index N` (N counts the games that keep a record, "
             "from 0; not the journal's `key`) or `octagames serve --replay ...` (its page's *game #* alike).", ""]
    for key in sections():
        if key not in results:
            continue
        d = results[key]
        elo, ci = np.array(d["elo"]), np.array(d["elo_ci95"])
        wins, games = np.array(d["wins"]), np.array(d["games"])
        lines += [f"## {d['title']}", "",
                  f"Variant `{key}`; {d['games_per_pair']} games per pair, {int(games.sum() / 2)} games "
                  f"in {d['seconds']:.0f} s"
                  + (f" on {d['machine']}" if d.get("machine") else "")  # where the games did not run here
                  + f"; commit {d['commit']}, {d['date']}"
                  + (f"; ratings refitted from its journal at commit {d['refit']['commit']}, {d['refit']['date']}"
                     if d.get("refit") else "") + ".", "",
                  "| rank | agent | Elo | 95% interval | score |", "|---:|---|---:|---|---:|"]
        for rank, i in enumerate(np.argsort(-elo), 1):
            score = wins[i].sum() / max(1, games[i].sum())
            lines.append(f"| {rank} | `{d['agents'][i]}` | {elo[i]:.0f} | [{ci[i][0]:.0f}, {ci[i][1]:.0f}] | "
                         f"{score:.3f} |")
        if (note := anchor_note(d["agents"], wins, games)) is not None:
            lines.append(f"\n*Note: {note}.*")
        for spec, o in d.get("origins", {}).items():  # a command of older flags has today's beside it
            command = f"`{o['command']}`" + (f" (as then spelled; today: `{o['command_today']}`)"
                                             if o.get("command_today") else "")
            lines.append(f"\n*`{spec}`: {command} ({o['env_steps']:,} env steps)*")
        for spec, why in d.get("skipped", {}).items():
            lines.append(f"\n*`{spec}` skipped: {why}*")
        rel = os.path.relpath(Path(d["png"]).resolve(), out.resolve().parent)
        lines += ["", f"![{d['title']}]({Path(rel).as_posix()})", ""]
    return "\n".join(lines + other_counts())


def other_counts(zoo_dir: Path = ZOO_DIR) -> list[str]:
    """The zoo models no section plays (other player counts, partnerships), from their cards: each
    against the heuristic in every other seat, with what a heuristic seat won in the same games."""
    rows = []
    for name, (v, n) in catalogue.zoo_models().items():
        card_path = zoo_dir / f"{name}.json"
        if name in sections() or not card_path.exists():
            continue
        card = json.loads(card_path.read_text())
        for e in card["evaluation"]:
            others = f"{e['others_win_rate']:.3f}" if "others_win_rate" in e else "–"
            rows.append(f"| `zoo:{name}` | {card['variant']} | {e['opponent']} | {e['win_rate']:.3f} "
                        f"[{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}] /{e['games']} | {others} | "
                        f"{card['seconds_per_game_side']:.1f} | {card['commit']} |")
    if not rows:
        return []
    return ["## Zoo models at other player counts", "",
            "No round robin: each model against the named agent in every other seat (its seat rotated; "
            "`octagames zoo --players n`, the card's evaluation). A seat wins a game when its return is the "
            "highest (partners share their team's, and a heuristic partner plays beside a model in a "
            "partnership); *other seats* is the mean win rate of the seats on the other side in the same "
            "games, the share one of them got. Compare both with the fair share: 1/n where a game has one "
            "winner, 1/2 between two teams, more where several seats share the top return (in Achten only "
            "the worst hand loses).", "",
            "| model | variant | against | win rate [95%] /games | other seats | s per game side | commit |",
            "|---|---|---|---|---:|---:|---|", *rows, ""]


START, END = "<!-- leaderboard:start -->", "<!-- leaderboard:end -->"


def summary(results: dict[str, dict[str, Any]]) -> str:
    """One line per section: its agents from the best, with their Elo (the README's block)."""
    lines = ["| game | agents by Bradley–Terry Elo (random = 0), best first |", "|---|---|"]
    for key in sections():
        if key not in results:
            continue
        d = results[key]
        order = np.argsort(-np.array(d["elo"]))
        cells = " · ".join(f"`{d['agents'][i]}` {d['elo'][i]:.0f}" for i in order)
        lines.append(f"| {d['title']} | {cells} |")
    return "\n".join(lines)


def update_readme(path: Path, results: dict[str, dict[str, Any]]) -> bool:
    """Replace the block between :data:`START` and :data:`END` in ``path``; False when it has none."""
    if not path.exists():
        return False
    text = path.read_text()
    if START not in text or END not in text:
        return False
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{summary(results)}\n{END}{tail}")
    return True


def readme_note(path: Path, results: dict[str, dict[str, Any]]) -> str:
    """:func:`update_readme`, and one line saying what it did: a misspelt path, or a file without the block, is
    said, not skipped without a word."""
    if update_readme(path, results):
        return f"updated the leaderboard block of {path}"
    return f"{path} not updated: {f'it has no {START} ... {END} block' if path.exists() else 'no such file'}"


def main(cfg: LeaderboardConfig) -> dict[str, dict[str, Any]]:
    """Run the chosen sections, then rebuild the Markdown from every section's JSON (or, with
    ``record_games``, only record the chosen sections' journaled games: :func:`record_section`)."""
    if cfg.record_games:
        for key in cfg.game:
            record_section(key, cfg)
        return {}
    if cfg.refit:
        for key in cfg.game:
            refit_board(key, cfg)
    else:
        added = added_agents(cfg)
        for key in cfg.game:
            run_board(key, cfg, added.get(key))
    out = Path(cfg.out)
    results = {}
    for key in sections():
        path = out.with_suffix("") / f"{key}.json"
        if path.exists():
            results[key] = json.loads(path.read_text())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown(results, out))
    print(f"wrote {out}")
    if cfg.readme:
        print(readme_note(Path(cfg.readme), results))
    return results


@script
def cli() -> None:
    """Command-line entry point (``octagames-leaderboard``, or ``python -m octagames.experiments.leaderboard``)."""
    main(parse_config(LeaderboardConfig))


if __name__ == "__main__":
    cli()
