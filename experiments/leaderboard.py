"""The leaderboard: a round robin per game between the baselines and the zoo, with Bradley-Terry Elo.

    python -m octagames.experiments.leaderboard                      # every game (make leaderboard)
    python -m octagames.experiments.leaderboard --games octiles      # rerun one game
    python -m octagames.experiments.leaderboard --games achten --add achten=ppo:runs/ppo/achten/policy.pt

Each entry of :data:`BOARDS` is one game and config with its roster: random, the
heuristic, MCTS at two budgets (each game's default evaluator), MCCFR where it
applies (Achten: outcome sampling on the same config), a PPO policy when one is
found at ``runs/ppo/<entry>/policy.pt`` (or given with ``--add``), and the zoo
model (``zoo:<entry>``, its default search). Any agent spec joins with
``--add <entry>=<spec>``.

The games of a pair are played by :func:`octagames.experiments.tournament.run_tournament`
(seats rotated every game); ratings are its maximum-likelihood Bradley-Terry
Elo with 95% bootstrap intervals, anchored at random = 0. Every entry writes
``docs/leaderboard/<entry>.json`` and ``docs/img/leaderboard_<entry>.png``;
``docs/leaderboard.md`` is then rebuilt from every JSON present, so rerunning
one game leaves the others' results in place.
"""

from __future__ import annotations

import datetime
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.agents.base import Agent
from octagames.agents.cfr.agent import CFRAgent
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.cli import executor_from, git_commit, open_journal, parse_config, script
from octagames.experiments.tournament import TournamentResult, run_tournament, save
from octagames.experiments.train_ppo import ppo_origin

@dataclass(frozen=True)
class Board:
    """One leaderboard entry: a game, its config and the roster's budgets.

    Attributes:
        game: short game name.
        config: the game's config fields.
        title: the heading in ``docs/leaderboard.md``.
        mcts: the two MCTS budgets (simulations per decision).
        cfr: whether MCCFR (``cfr:<cfr_iterations>``) joins.
    """

    game: str
    config: dict[str, Any]
    title: str
    mcts: tuple[int, int]
    cfr: bool = False


#: the leaderboard's entries; each key is also the zoo name of its model
BOARDS: dict[str, Board] = {
    "octrix": Board("octrix", {"num_players": 2, "match": True}, "Octrix, 2 players, match to 88", (100, 1000)),
    "achten": Board("achten", {"num_players": 2, "deal_penalty": 1}, "Full deck achten, 2 players, deal penalty 1",
                    (200, 2000), cfr=True),
    "octiles": Board("octiles", {"num_players": 2}, "Octiles, 2 players", (50, 400)),
    "octa-en": Board("octa", {"num_players": 2, "rules": "en"}, "Octa, English rules", (20, 100)),
    "octa-nl": Board("octa", {"num_players": 2, "rules": "nl"}, "Octa, Dutch rules", (20, 100)),
}


@dataclass(frozen=True)
class LeaderboardConfig:
    """The leaderboard run (all fields are command-line flags)."""

    games: tuple[str, ...] = tuple(BOARDS)
    """entries to (re)run: octrix, achten, octiles, octa-en, octa-nl"""
    games_per_pair: int = 20
    """games each pair plays, seats rotated"""
    add: tuple[str, ...] = ()
    """extra agents as <entry>=<spec>, e.g. octiles=mcts:2000 or achten=ppo:runs/ppo/achten/policy.pt"""
    mcts: tuple[int, ...] = ()
    """override every entry's two MCTS budgets (simulations per decision); empty: each entry's own"""
    zoo_simulations: int = -1
    """simulations of the zoo agents (-1: each model's default search)"""
    cfr_iterations: int = 20000
    """MCCFR iterations of the cfr agent (outcome sampling, trained when the run starts)"""
    ppo_dir: str = "runs/ppo"
    """a PPO policy at <ppo_dir>/<entry>/policy.pt joins that entry's roster"""
    seed: int = 0
    """tournament seed"""
    bootstrap: int = 400
    """bootstrap resamples of the rating intervals"""
    out: str = "docs/leaderboard.md"
    """the Markdown table (rebuilt from every entry's JSON in <out without .md>/)"""
    img_dir: str = "docs/img"
    """folder of the PNG charts"""
    readme: str = "README.md"
    """the file whose leaderboard block (between the leaderboard:start/end markers) gets the summary ("" : none)"""
    progress: bool = True
    """show progress bars"""
    resume: bool = True
    """take the games already saved in <out without .md>/<entry>.games.jsonl (same roster); False starts over"""
    ray: bool = False
    """play the games as Ray tasks on a local Ray instance (the distributed extra)"""
    ray_address: str = ""
    """join this Ray cluster instead (auto: the cluster this machine belongs to); implies --ray"""
    chunk_size: int = 4
    """games per Ray task"""

    def __post_init__(self) -> None:
        for key in self.games:
            if key not in BOARDS:
                raise ValueError(f"games: {key!r} is not valid; valid entries: {list(BOARDS)}")
        for item in self.add:
            key, sep, spec = item.partition("=")
            if not sep or key not in BOARDS or not spec:
                raise ValueError(f"add: {item!r} is not <entry>=<agent spec> with an entry of {list(BOARDS)}")
        if any(n < 1 for n in self.mcts):
            raise ValueError(f"mcts={self.mcts} is not valid; budgets must be >= 1")
        if self.games_per_pair < 1:
            raise ValueError(f"games_per_pair={self.games_per_pair} is not valid; it must be >= 1")


def roster(key: str, cfg: LeaderboardConfig) -> tuple[list[Agent], dict[str, str]]:
    """The agents of entry ``key`` that build here (named by their spec), and the skipped specs with the reason."""
    b = BOARDS[key]
    specs = ["random", "heuristic", *(f"mcts:{n}" for n in (cfg.mcts or b.mcts))]
    if b.cfr:
        specs.append(f"cfr:{cfg.cfr_iterations}")
    ppo = Path(cfg.ppo_dir) / key / "policy.pt"
    if ppo.exists():
        specs.append(f"ppo:{ppo}")
    specs.append(f"zoo:{key}" + (f":{cfg.zoo_simulations}" if cfg.zoo_simulations >= 0 else ""))
    specs += [item.partition("=")[2] for item in cfg.add if item.partition("=")[0] == key]
    agents, skipped = [], {}
    for spec in specs:
        try:
            agent = _build(spec, b)
        except Exception as e:  # unavailable here (no model file, a game the agent does not play ...)
            skipped[spec] = f"{type(e).__name__}: {e}"
            continue
        agent.name = spec
        agents.append(agent)
    return agents, skipped


def _build(spec: str, b: Board) -> Agent:
    name, _, arg = spec.partition(":")
    if name == "cfr" and (not arg or arg.isdigit()):
        # the registry's cfr trains on the game's default config; the board's config may differ
        return CFRAgent.mccfr(Game(b.game, **b.config), iterations=int(arg or 1000), sampling="outcome")
    return make_agent(spec, b.game)


def run_board(key: str, cfg: LeaderboardConfig) -> dict[str, Any]:
    """Play entry ``key``'s round robin; write its JSON and PNG; return the JSON's content."""
    b = BOARDS[key]
    agents, skipped = roster(key, cfg)
    data_dir = Path(cfg.out).with_suffix("")
    journal = open_journal(data_dir / f"{key}.games.jsonl", cfg.resume,
                           {"entry": key, "config": b.config, "agents": [a.name for a in agents],
                            "games_per_pair": cfg.games_per_pair, "seed": cfg.seed})
    result: TournamentResult = run_tournament(b.game, agents, cfg.games_per_pair, cfg.seed, cfg.bootstrap,
                                              cfg.progress, executor_from(cfg.ray, cfg.ray_address, cfg.chunk_size),
                                              journal, **b.config)
    journal.close()
    print(result.table())
    json_path, png_path = save(result, data_dir, stem=key)
    png = Path(cfg.img_dir) / f"leaderboard_{key}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    png_path.replace(png)
    data = result.to_json()
    data.update(entry=key, title=b.title, skipped=skipped, games_per_pair=cfg.games_per_pair,
                png=str(png), date=datetime.date.today().isoformat(), commit=git_commit(),
                origins=origins([a.name for a in agents]))
    json_path.write_text(json.dumps(data, indent=1))
    return data


def origins(specs: list[str]) -> dict[str, dict[str, Any]]:
    """How the roster's trained files came about: each ``ppo:<path>`` spec's ``train_ppo`` command.

    The zoo models carry their own cards (``agents/zoo/<name>.json``); a PPO policy under
    ``runs/`` is not in the repository, so the leaderboard records how to train it again.
    """
    found = {spec: ppo_origin(spec) for spec in specs if spec.startswith("ppo:")}
    return {spec: o for spec, o in found.items() if o}


def markdown(results: dict[str, dict[str, Any]], out: Path) -> str:
    """The Markdown leaderboard: one table per entry, best first, with the chart."""
    lines = ["# Leaderboard", "",
             "Round robins per game (`python -m octagames.experiments.leaderboard`, `make leaderboard`). "
             "Ratings are Bradley–Terry Elo with 95% bootstrap intervals, random = 0; *score* is the "
             "share of points over all the agent's games (a draw is half). MCTS budgets are simulations "
             "per decision with the game's default evaluator; `zoo:<entry>` is the shipped model with its "
             "default search. Add an agent with `--add <entry>=<spec>` and rerun that entry with "
             "`--games <entry>`.", ""]
    for key in BOARDS:
        if key not in results:
            continue
        d = results[key]
        elo, ci = np.array(d["elo"]), np.array(d["elo_ci95"])
        wins, games = np.array(d["wins"]), np.array(d["games"])
        lines += [f"## {d['title']}", "",
                  f"{d['games_per_pair']} games per pair, {int(games.sum() / 2)} games in {d['seconds']:.0f} s"
                  + (f" on {d['machine']}" if d.get("machine") else "")  # where the games did not run here
                  + f"; commit {d['commit']}, {d['date']}.", "",
                  "| rank | agent | Elo | 95% interval | score |", "|---:|---|---:|---|---:|"]
        for rank, i in enumerate(np.argsort(-elo), 1):
            score = wins[i].sum() / max(1, games[i].sum())
            lines.append(f"| {rank} | `{d['agents'][i]}` | {elo[i]:.0f} | [{ci[i][0]:.0f}, {ci[i][1]:.0f}] | "
                         f"{score:.3f} |")
        for spec, o in d.get("origins", {}).items():
            lines.append(f"\n*`{spec}`: `{o['command']}` ({o['env_steps']:,} env steps)*")
        for spec, why in d.get("skipped", {}).items():
            lines.append(f"\n*`{spec}` skipped: {why}*")
        rel = os.path.relpath(Path(d["png"]).resolve(), out.resolve().parent)
        lines += ["", f"![{d['title']}]({Path(rel).as_posix()})", ""]
    return "\n".join(lines)


START, END = "<!-- leaderboard:start -->", "<!-- leaderboard:end -->"


def summary(results: dict[str, dict[str, Any]]) -> str:
    """One line per entry: its agents from the best, with their Elo (the README's block)."""
    lines = ["| game | agents by Bradley–Terry Elo (random = 0), best first |", "|---|---|"]
    for key in BOARDS:
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


def main(cfg: LeaderboardConfig) -> dict[str, dict[str, Any]]:
    """Run the chosen entries, then rebuild the Markdown from every entry's JSON."""
    for key in cfg.games:
        run_board(key, cfg)
    out = Path(cfg.out)
    results = {}
    for key in BOARDS:
        path = out.with_suffix("") / f"{key}.json"
        if path.exists():
            results[key] = json.loads(path.read_text())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown(results, out))
    print(f"wrote {out}")
    if cfg.readme and update_readme(Path(cfg.readme), results):
        print(f"updated the leaderboard block of {cfg.readme}")
    return results


@script
def cli() -> None:
    """Command-line entry point (``octagames-leaderboard``, or ``python -m octagames.experiments.leaderboard``)."""
    main(parse_config(LeaderboardConfig))


if __name__ == "__main__":
    cli()
