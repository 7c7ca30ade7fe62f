"""Evaluate one agent against each of several opponents: win rates with 95% intervals.

    octagames evaluate --game octa-nl --agent zoo:octa-nl --opponents heuristic --games 2
    octagames evaluate --game octrix --agent ppo:runs/ppo/octrix-2p-s0/policy.pt \\
        --opponents random heuristic mcts:200 --games 400
    python -m octagames.experiments.evaluate --game achten-dealer-pays --players 3 \\
        --agent mcts:1000 --opponents random --games 200

For every opponent, :func:`octagames.agents.arena.play_match` plays ``games`` games with
the agent in one seat and the opponent in every other seat (each spec built once, one
agent in all the seats it takes, reset for each game as the round robin's); seats rotate every game, game ``k`` uses seed ``seed + k`` (the same
deals for every opponent). A draw counts half a win. In a partnership (Octrix's, Octiles'
team game) the agent's partner is the opponent too: the win rate is that mixed team's, and
``others_win_rate`` is what one seat of the other side won in the same games.

Writes ``<out_dir>/evaluate-<variant>-<players>p-<agent>.json`` (every match's table, the
settings) and a PNG bar chart of the win rates with their intervals beside it. The file gathers the
agent's opponents: a later run against other opponents keeps the earlier results (each with its seed
and game count), a run against the same opponent replaces its result.
Every finished game is appended to ``<out_dir>/evaluate-<variant>-<players>p-<agent>/<opponent>.games.jsonl``
as it finishes: the same command started again after an interruption plays only
the games it lacks (``--no-resume`` starts over).

``--ray`` plays the games as Ray tasks on a private local Ray instance, ``--ray-address auto``
on the Ray cluster this machine belongs to (the ``distributed`` extra); the results
are those of the single-process run for the same seed. Ctrl-C stops with one line: the games
kept, and that the same command goes on (exit status 130).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from octagames.agents.arena import GameJournal, MatchResult, match_partners, play_match
from octagames.agents.base import Agent
from octagames.agents.registry import make_agent
from octagames import catalogue
from octagames.core import Game
from octagames.experiments.cli import (NO_CHART, GameArgs, can_chart, check_ray_options, executor_from,
                                      games_kept_on_interrupt, model_fingerprints, open_journal, parse_config,
                                      script)


@dataclass(frozen=True)
class EvalConfig(GameArgs):
    """One agent against each opponent (every field is a flag; --game, --players, --config: the variant)."""

    agent: str = "heuristic"
    """the evaluated agent's spec for octagames.agents.registry (e.g. ppo:runs/ppo/octrix-2p-s0/policy.pt, mcts:1000)"""
    opponents: tuple[str, ...] = ("random",)
    """opponent specs, separated by spaces (--opponents random heuristic); each in turn plays every other seat"""
    games: int = 200
    """games per opponent (seats rotated)"""
    allow_model_mismatch: bool = False
    """let a model trained on another config of the game play this one (with a warning) instead of refusing"""
    seed: int = 0
    """game k uses seed + k, for every opponent"""
    out_dir: str = "runs/eval"
    """folder of the JSON and the PNG"""
    progress: bool = True
    """show a progress bar per match"""
    resume: bool = True
    """take the games already saved beside the JSON (same settings); False starts over (the journal moved aside
    to .old)"""
    ray: bool = False
    """play the games as Ray tasks on a private local Ray instance (the distributed extra)"""
    ray_address: str = ""
    """join this Ray cluster instead (auto: the cluster this machine belongs to, host:port: its head,
    ray://host:port: Ray Client); implies --ray"""
    chunk_size: int = 8
    """games per Ray task"""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_ray_options(self.ray_address, self.chunk_size)
        if self.games < 1:
            raise ValueError(f"games={self.games} is not valid; it must be >= 1")
        if not self.opponents:
            raise ValueError("opponents is empty; give at least one agent spec, e.g. random")
        repeated = sorted({s for s in self.opponents if self.opponents.count(s) > 1})
        if repeated:  # the second match would only take the first's games from its journal
            raise ValueError(f"opponents={list(self.opponents)} names {', '.join(repeated)} more than once; "
                             "give each opponent once (--games sets the games against each)")
        if not 0 <= self.seed < 2**62:
            raise ValueError(f"seed={self.seed} is not valid; it must be in 0..2**62-1")


def evaluate(cfg: EvalConfig) -> dict[str, Any]:
    """Play every match of ``cfg``; write the JSON and the PNG and return the JSON's content."""
    name, config = cfg.resolve()
    game = cfg.make_game()
    n = game.num_players
    results: list[dict[str, Any]] = []
    stem = f"evaluate-{cfg.describe()}-{_slug(cfg.agent)}"
    if cfg.games % n:
        print(f"note: {cfg.games} games do not give each of the {n} seats to the agent equally often "
              f"(seats {', '.join(map(str, range(cfg.games % n)))} once more); a multiple of {n} does")
    executor = executor_from(cfg.ray, cfg.ray_address, cfg.chunk_size)
    def build(spec: str) -> Agent:
        try:
            return make_agent(spec, game, allow_config_mismatch=cfg.allow_model_mismatch)
        except ValueError as e:
            if "," not in spec or spec not in cfg.opponents:
                raise
            # a spec may hold a comma (a model's path), so the comma-separated form of play and tournament is
            # not read here: say how to give several
            raise ValueError(f"{e} (give several opponents separated by spaces, not commas: --opponents "
                             f"{' '.join(s.strip() for s in spec.split(',') if s.strip())})") from e

    # each spec built once (a cfr:N trains once), so a bad spec or a model of another config is refused
    # before a game; one agent may sit in several seats (the arena resets it for each, as the round robin does)
    built = {spec: build(spec) for spec in dict.fromkeys((cfg.agent, *cfg.opponents))}
    digests = model_fingerprints(list(built))  # each model file read once, for every result that names it
    journal: GameJournal | None = None
    for spec in cfg.opponents:
        agents = [built[cfg.agent]] + [built[spec]] * (n - 1)
        journal = open_journal(Path(cfg.out_dir) / stem / f"{_slug(spec)}.games.jsonl", cfg.resume,
                               {"game": name, "config": config, "agent": cfg.agent, "opponent": spec,
                                "seed": cfg.seed}, cfg.games)  # not the count: game k is the same in a longer run
        with games_kept_on_interrupt(lambda: journal):  # Ctrl-C: one line, exit status 130
            match: MatchResult = play_match(game, agents, cfg.games, seed=cfg.seed, progress=cfg.progress,
                                            executor=executor, journal=journal)
        journal.close()
        me = match.records[0]
        lo, hi = me.interval()
        print(match.table())
        results.append({"opponent": spec, "win_rate": me.score, "ci95": [lo, hi], "wins": me.wins,
                        "draws": me.draws, "losses": me.losses, "games": me.games, "seed": cfg.seed,
                        "mean_return": me.mean_return, "others_win_rate": others_win_rate(match),
                        "models": _of(digests, cfg.agent, spec), "match": match.to_json()})
    out = {"settings": asdict(cfg), "game": name, "variant": catalogue.variant_name(name, config),
           "config": catalogue.full_config(name, config), "agent": cfg.agent, "results": results}
    path = Path(cfg.out_dir) / f"{stem}.json"
    kept, stale = _earlier_results(path, out)
    if stale:
        print(f"dropped the results of earlier runs against {', '.join(stale)} from {path.name}: "
              "they were played with other model files")
    if kept:
        print(f"kept the results of earlier runs against {', '.join(r['opponent'] for r in kept)} in {path.name}")
        out["results"] = kept + results
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    if can_chart():
        plot(out, path.with_suffix(".png"))
        print(f"wrote {path} and {path.with_suffix('.png')}")
    else:
        print(f"wrote {path} {NO_CHART}")
    return out


def _of(digests: dict[str, str], *specs: str) -> dict[str, str]:
    """The digests of :func:`model_fingerprints` that ``specs`` name, as it gives them for ``specs`` alone."""
    return {s: digests[s] for s in specs if s in digests}


def _earlier_results(path: Path, out: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The results an earlier run wrote to ``path`` (the same agent, game and config) against opponents this
    run did not play, and the opponents of those dropped because their model files changed since: one file per
    agent gathers its opponents, as its folder of journals does. A result is kept only where the digests of the
    model files its agent and opponent name (``models``, :func:`model_fingerprints`) are those of the files now
    (until 2026-12-07 a result of a model since overwritten stayed beside the new model's as one agent's;
    review); a result written before without them, where a spec names a model file, is dropped. A file that does
    not read as such a run's JSON keeps nothing (it is overwritten, as before)."""
    try:
        old = json.loads(path.read_text())
        if not (old.get("game") == out["game"] and old.get("agent") == out["agent"]
                and catalogue.full_config(old["game"], old.get("config")) == out["config"]):
            return [], []  # (an older file's config holds the fields as given: the same game however spelled)
        played = {r["opponent"] for r in out["results"]}
        earlier = [r for r in old["results"] if isinstance(r, dict) and r.get("opponent") not in played]
        now = model_fingerprints([out["agent"], *(r["opponent"] for r in earlier)])  # each file read once
        same = [r.get("models", {}) == _of(now, out["agent"], r["opponent"]) for r in earlier]
        return ([r for r, ok in zip(earlier, same) if ok],
                [str(r["opponent"]) for r, ok in zip(earlier, same) if not ok])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return [], []


def others_win_rate(match: MatchResult) -> float:
    """The mean win rate of the agents against the match's first agent, its partners left out (the agents on
    its side in every game by the game's rules, :func:`~octagames.agents.arena.match_partners`): what one seat
    of the other side won in the same games. Until 2026-12-07 partners were guessed from returns equal to its
    own in every game, which took an Achten opponent that shared the top in every game of a short match for one
    (review)."""
    partners = match_partners(Game(match.game, **match.config))
    others = [k for k in range(1, len(match.records)) if k not in partners]
    return float(np.mean([match.records[k].score for k in others]))


def _slug(spec: str) -> str:
    """A file-name-safe short form of an agent spec, one per spec: a model path keeps its last two parts,
    what follows the file (``:800``, ``@sample``) and a digest of the whole spec (paths that share their
    last two parts, or differ only in characters the file name drops, still get files of their own)."""
    name, _, arg = spec.partition(":")
    if "/" in arg:
        head, slash, last = arg.rpartition("/")
        file, tail = re.match(r"([^:@]*)(.*)", last).groups()  # type: ignore[union-attr]
        digest = hashlib.blake2b(spec.encode(), digest_size=3).hexdigest()
        arg = "-".join([*Path(head + slash + file).with_suffix("").parts[-2:], tail, digest])
    return re.sub(r"[^A-Za-z0-9_.]+", "-", f"{name}-{arg}" if arg else name).strip("-")


def plot(out: dict[str, Any], path: Path) -> Path:
    """Bars of the agent's win rate against each opponent, with 95% intervals, beside 1/2 (two seats) or each
    match's win rate of an opponent seat (more seats, where tied top seats all win: four Achten heuristics win
    0.65-0.68 each; the line stood at 1/2 there too until 2026-12-07, review)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = out["results"]
    fig, ax = plt.subplots(figsize=(2.5 + 1.4 * len(res), 4))
    xs = range(len(res))
    rates = [r["win_rate"] for r in res]
    err = [[r["win_rate"] - r["ci95"][0] for r in res], [r["ci95"][1] - r["win_rate"] for r in res]]
    ax.bar(xs, rates, yerr=err, capsize=4, color="tab:green")
    for x, r in zip(xs, res):
        ax.text(x, r["ci95"][1] + 0.02, f"{r['win_rate']:.2f}\n{r['games']} games", ha="center", fontsize=8)
    if out["config"].get("num_players", 2) == 2:
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")  # an even match
    else:  # tied top seats all win: a fair share is not 1/n; each match's opponent seat is the reference
        marks = [(x, r["others_win_rate"]) for x, r in zip(xs, res) if "others_win_rate" in r]
        ax.hlines([m for _, m in marks], [x - 0.4 for x, _ in marks], [x + 0.4 for x, _ in marks], color="grey",
                  lw=1.2, ls="--", label="an opponent seat's win rate")
        if marks:
            ax.legend(loc="upper right", fontsize=7)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["opponent"] for r in res], rotation=15)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("win rate (draw = 1/2), 95% CI")
    ax.set_title(f"{out['agent']} on {catalogue.describe(out['game'], out['config'])}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


@script
def cli() -> None:
    """Command-line entry point (``octagames-evaluate``, or ``python -m octagames.experiments.evaluate``)."""
    evaluate(parse_config(EvalConfig))


if __name__ == "__main__":
    cli()
