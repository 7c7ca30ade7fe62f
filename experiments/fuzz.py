"""The fuzz campaign: every conformance check on long runs of every config, within a time budget.

``octagames fuzz --game octa-en --minutes 10`` (every config of
:data:`octagames.testing.CONFORMANCE_CONFIGS` when ``--game`` is left out; ``--game a b`` for
several, each a variant optionally with its own fields, ``octrix-round:num_players=3``, with
``--players N`` and ``--config key=value ...`` applied to every one, as elsewhere). Each config
gets ``--minutes`` in a worker process of its own (``--jobs`` at once) and loops over games driven
per seat by random play, the heuristic, or a short search (``mcts:20``):

* the **resampling leak test** (:func:`octagames.testing.leak_check`): other worlds consistent
  with everything a seat saw, by the rules' public zones (``octagames/<game>/public.py``), replayed
  and compared: observation, render, action names, legal mask, illegal-move reasons, and
  OpenSpiel's information-state and observation strings;
* **unique move names** in every visited state, for the engine and the OpenSpiel face;
* OpenSpiel's ``random_sim_test`` with serialization, in batches;
* the **record fuzz** (damaged records through ``from_bytes``/``check_record`` and every kernel),
  in a subprocess, since a kernel that reads out of bounds kills its process.

It prints per config: games, states visited, compared steps and string comparisons, simulations,
records fuzzed, failures, minutes; writes ``<out>/summary.json``; saves each failing game as a
JSON record (config, seed, the actions, the check and its message) that
``python -m octagames.experiments.fuzz --replay FILE`` checks again; exits 1 on any failure.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from octagames import catalogue
from octagames.agents.base import make_turn
from octagames.agents.registry import make_agent
from octagames.core import Game
from octagames.experiments.cli import GamesArgs, parse_config, script
from octagames.testing import (Chooser, Finding, check_unique_names, check_world, config_id, damage_field,
                               leak_check, play_recorded, random_chooser, random_playout, replay, reseal)

#: how each seat of a fuzzed game is driven (drawn per seat and game)
DRIVERS = ("random", "heuristic", "mcts:20")
#: the most OpenSpiel simulations per batch (a batch every fifth game, from 2 up while they are quick)
SIMS = 20
#: the longest round of the record fuzz, in seconds (rounds repeat until a config's budget is spent)
RECORD_ROUND = 120.0

#: The record fuzz, run in a subprocess (a kernel reading out of bounds would kill the process):
#: argv = name, JSON list of configs, JSON options (``stride``, ``fields``, ``flips``, ``randoms``,
#: ``plays``, ``seed``, ``games``). Prints the accepted records' hex and every misbehaving record
#: as it goes, then the totals of :func:`octagames.testing.fuzz_records` as JSON.
RECORD_FUZZ = """
import json, sys
import numpy as np
from octagames.core import Game
from octagames.envs.vector import VectorEnv
from octagames.testing import fuzz_records, vector_playout
from octagames.experiments.fuzz import fuzz_openspiel_saves

name, configs, opts = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
stride, seed0 = opts.get("stride", 1), opts.get("seed", 0)
totals = {}
for k, cfg in enumerate(configs):
    game = Game(name, **cfg)
    rng = np.random.default_rng(seed0 + k)
    records = []
    for seed in range(seed0, seed0 + opts.get("games", 3)):  # records reached in random play: 150 per game
        s = game.new_state(seed)
        for i in range(150 * stride):
            if game.is_terminal(s):
                break
            if i % stride == 0:
                records.append(game.clone(s))
            game.apply_action(s, game.sample_chance(s) if game.is_chance(s) else int(rng.choice(game.legal_actions(s))))
        records.append(game.clone(s))
    for r in records:  # records reached in play pass the whole check
        game.check_record(r)
    accepted = []
    out = fuzz_records(game, records, seed0 + k, flips=opts.get("flips", 400), randoms=opts.get("randoms", 100),
                       log=lambda h: print(h, flush=True), fields=opts.get("fields", 0), plays=opts.get("plays", 2),
                       accepted=accepted)
    out["vector_misbehaving"] = 0
    if accepted:  # the vector env loads them all (set_state) and plays every game to its end
        env = VectorEnv(name, len(accepted), seed=seed0 + k, num_threads=1, **cfg)
        env.reset()
        for why in vector_playout(env, accepted):
            if why:
                out["vector_misbehaving"] += 1
                print(f"misbehaves (vector env): {why}", flush=True)
    saves = fuzz_openspiel_saves(game, records, rng, opts.get("saves", 0))
    out.update({f"saves_{key}": v for key, v in saves.items()})
    for key, v in out.items():
        totals[key] = totals.get(key, 0) + v
print(json.dumps(totals))
"""
#: per game, how the record fuzz draws its records (Octa's games run to a thousand actions)
RECORD_OPTIONS: dict[str, dict[str, int]] = {"octa": {"stride": 8, "fields": 300}}


@dataclass(frozen=True)
class FuzzConfig(GamesArgs):
    """Settings of the fuzz campaign (default: every config of the conformance list)."""

    minutes: float = 1.0
    """time budget per config"""
    seed: int = 0
    """first game seed (config k uses seeds from seed + 1_000_000 k)"""
    jobs: int = 0
    """worker processes, one config each (0: one per core)"""
    out: str = "runs/fuzz"
    """where summary.json and the failing games go"""
    replay: str = ""
    """a saved failing game: check it again (exit 1 if it still fails) instead of fuzzing"""

    def __post_init__(self) -> None:
        if not self.game and (self.players is not None or self.config):
            raise ValueError("--players and --config apply to the games named by --game; without --game the "
                             "campaign fuzzes the conformance list's configs as they are")
        if not 0 <= self.minutes < math.inf:  # NaN ran one game
            raise ValueError(f"minutes={self.minutes} is not valid; it must be a finite number >= 0")
        for name in ("jobs", "seed"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)} is not valid; it must be >= 0"
                                 + (" (0: one per core)" if name == "jobs" else ""))
        super().__post_init__()

    def default_games(self) -> tuple[str, ...]:
        """The conformance list (each game's ``GameSpec.conformance``) as ``variant:key=value,...``."""
        return tuple(f"{name}:{','.join(f'{k}={v}' for k, v in extra.items())}"
                     for game in catalogue.games() for name, extra in catalogue.game_spec(game).conformance)

    def configs(self) -> list[tuple[str, dict[str, Any]]]:
        """The ``(game, config fields)`` to fuzz, ``num_players`` first (the conformance list's form)."""
        return [(game, {"num_players": fields.pop("num_players"), **fields})
                for game, fields in self.resolve_all()]


def run_records(name: str, config: dict[str, Any], seed: int, timeout: float, **opts: int) -> dict[str, Any]:
    """The record fuzz of one config in a subprocess.

    Returns:
        The totals of :func:`octagames.testing.fuzz_records` (``tried``, ``flips_ok``, ...), or
        ``{"error": ...}`` naming the last accepted record when the subprocess crashed or failed.
    """
    options = {**RECORD_OPTIONS.get(name, {}), "seed": seed, **opts}
    try:
        res = subprocess.run([sys.executable, "-c", RECORD_FUZZ, name, json.dumps([config]), json.dumps(options)],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"the record fuzz ran past {timeout:.0f} s"}
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0:
        last = lines[-1][:200] if lines else ""
        return {"error": f"exit {res.returncode} (last accepted record: {last}): {res.stderr[-2000:]}"}
    totals = json.loads(lines[-1])
    bad = [line for line in lines if line.startswith("misbehaves")]
    if bad or totals.get("misbehaving", 0) or totals.get("saves_misbehaving", 0):
        return {"error": f"{len(bad)} accepted record(s) misbehave: {bad[:5]}"}
    return totals


def record_options(name: str, seconds: float) -> dict[str, int]:
    """How much record fuzz fits a budget of ``seconds`` (a damaged record per second or so)."""
    flips = int(min(400, max(10, seconds)))
    opts = {"flips": flips, "randoms": max(2, flips // 4), "plays": min(flips, 40), "games": 1 + int(seconds > 300),
            "saves": max(8, flips // 4)}
    if "fields" in RECORD_OPTIONS.get(name, {}):
        opts["fields"] = max(5, flips * 3 // 4)
    return opts


def agent_chooser(spec: str, game: Game, seat: int, seed: int) -> Chooser:
    """A chooser (:func:`octagames.testing.play_recorded`) that asks agent ``spec``, shown only what ``seat`` sees."""
    if spec == "random":
        return random_chooser(np.random.default_rng(seed))
    agent = make_agent(spec, game)
    agent.reset(game, seat, seed)
    turns = iter(range(1 << 62))

    def choose(g: Game, s: np.void, p: int) -> int:
        return int(agent.act(make_turn(g, s, p, seed + next(turns))))
    return choose


def _openspiel_params(game: Game) -> dict[str, Any]:
    import octagames.envs.openspiel as eo  # optional: the openspiel extra
    spec = eo.parameter_specification(game.name)
    return {k: v for k, v in dataclasses.asdict(game.config).items() if k in spec}


def openspiel_strings(game: Game, pairs: Sequence[tuple[np.void, np.void, int]]) -> int:
    """OpenSpiel's strings for a seat must be equal in two worlds it cannot tell apart; names unique.

    For each pair (two records and a seat, from :func:`octagames.testing.check_world`): the
    information-state and observation strings of the seat and the names of the legal actions (for
    the seat to act, or the flat joint actions of a simultaneous step), which must be distinct.

    Returns:
        How many pairs were compared.

    Raises:
        AssertionError: a string differs, or two legal actions share a name.
    """
    import octagames.envs.openspiel as eo  # optional: the openspiel extra
    import pyspiel
    if not pairs:
        return 0
    pool = eo.load_pool(game.name, [r for a, b, _ in pairs for r in (a, b)], **_openspiel_params(game))
    root = pool.new_initial_state()
    for i, (_, _, v) in enumerate(pairs):
        x, y = root.child(2 * i), root.child(2 * i + 1)
        for what in ("information_state_string", "observation_string"):
            sx, sy = getattr(x, what)(v), getattr(y, what)(v)
            assert sx == sy, f"OpenSpiel {what}({v}) differs in two worlds seat {v} cannot tell apart"
        if x.is_terminal() or x.is_chance_node():
            continue
        player = x.current_player()
        legal = x.legal_actions()
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            legal = legal[:512]
        names = [x.action_to_string(player, a) for a in legal]
        assert len(set(names)) == len(names), \
            f"OpenSpiel: two legal actions share a name: {sorted(n for n in names if names.count(n) > 1)[:2]}"
        names_y = [y.action_to_string(player, a) for a in legal] if y.legal_actions() == x.legal_actions() else names
        assert names == names_y, f"OpenSpiel action names differ in two worlds seat {v} cannot tell apart"
    return len(pairs)


def _play_out_spiel(state: Any, rng: np.random.Generator) -> None:
    """Play a pyspiel state to its end with random legal moves (raises whatever pyspiel raises)."""
    import pyspiel
    for _ in range(state.get_game().max_game_length() + 2):
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        elif state.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
            state.apply_actions([int(rng.choice(state.legal_actions(p))) if state.legal_actions(p) else 0
                                 for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    raise AssertionError("the loaded game did not end within its max_game_length")


def fuzz_openspiel_saves(game: Game, records: Sequence[np.void], rng: np.random.Generator,
                         probes: int) -> dict[str, int]:
    """Damaged OpenSpiel saves of records reached in play: each is refused with ``ValueError`` or plays on.

    Four kinds of damage, in turn: one character of the face's plain save changed; its record
    replaced by the same record with one field damaged and resealed (:func:`octagames.testing.reseal`,
    so only the record check stands in the way); the save cut short; one character of
    pyspiel's own pickled layout changed, opened with ``pyspiel.deserialize_game_and_state``
    (which the face guards). A save that opens is played to its end through pyspiel.

    Returns:
        ``tried``, ``rejected``, ``accepted`` and ``misbehaving`` (any other exception, or an
        accepted game that cannot be played to its end; printed as it is found).
    """
    import octagames.envs.openspiel as eo  # optional: the openspiel extra
    import pyspiel
    out = {"tried": 0, "rejected": 0, "accepted": 0, "misbehaving": 0}
    params = _openspiel_params(game)
    for k in range(probes):
        rec = records[int(rng.integers(len(records)))]
        pool = eo.load_pool(game.name, [rec], **params)
        state = pool.new_initial_state().child(0)
        text = eo.serialize_game_and_state(pool, state)
        kind = k % 4
        load = eo.deserialize_game_and_state
        if kind == 0 or kind == 3:
            if kind == 3:
                text, load = pyspiel.serialize_game_and_state(pool, state), pyspiel.deserialize_game_and_state
            i = int(rng.integers(len(text)))
            text = text[:i] + chr(int(rng.integers(32, 127))) + text[i + 1:]
        elif kind == 1:
            bad = game.clone(rec)
            damage_field(bad, rng)
            old = text.partition("record=")[2].partition("\n")[0]
            text = text.replace("record=" + old, "record=" + eo._b64(reseal(game, bad.tobytes())))
        else:
            text = text[:int(rng.integers(len(text)))]
        out["tried"] += 1
        try:
            _, loaded = load(text)
        except ValueError:
            out["rejected"] += 1
            continue
        except Exception as e:  # noqa: BLE001 - any other error is what this looks for
            if isinstance(e, pyspiel.SpielError) and eo.PREFIX not in text:
                out["rejected"] += 1  # the damage renamed the game: pyspiel's own refusal of an unknown game
                continue
            out["misbehaving"] += 1
            print(f"misbehaves (OpenSpiel save, damage {kind}): {type(e).__name__}: {e}"[:300], flush=True)
            continue
        out["accepted"] += 1
        try:
            _play_out_spiel(loaded, rng)
        except Exception as e:  # noqa: BLE001
            out["misbehaving"] += 1
            print(f"misbehaves (OpenSpiel save accepted, damage {kind}): {type(e).__name__}: {e}"[:300], flush=True)
    return out


def random_sims(game: Game, sims: int) -> None:
    """OpenSpiel's ``random_sim_test`` with serialization (the registered game of this config).

    Raises:
        Exception: whatever pyspiel raises on a broken game.
    """
    import octagames.envs.openspiel as eo  # optional: the openspiel extra
    import pyspiel
    params = ",".join(f"{k}={v}" for k, v in _openspiel_params(game).items())
    pyspiel.random_sim_test(pyspiel.load_game(f"{eo.short_name(game.name)}({params})"), sims,
                            serialize=True, verbose=False)


def check_game(game: Game, seed: int, actions: Sequence[int], rng: np.random.Generator,
               worlds: int = 2, strings: bool = True) -> dict[str, int]:
    """Every per-game check on one recorded game: unique names in every state, the leak test
    (with OpenSpiel's strings when ``strings``).

    Raises:
        Finding: the check that failed, its message and details (to save and replay).
    """
    states = replay(game, seed, actions)
    for k, s in enumerate(states[:-1]):
        if not game.is_chance(s):
            try:
                check_unique_names(game, s)
            except AssertionError as e:
                raise Finding(f"{game}: seed {seed}, step {k}: {e}", {"check": "names", "step": k}) from e
    pairs: list[tuple[np.void, np.void, int]] = []
    out = leak_check(game, seed, actions, rng, worlds=worlds, on_pair=lambda a, b, v: pairs.append((a, b, v)))
    out["states"] = len(actions)
    if strings:
        try:
            out["openspiel_pairs"] = openspiel_strings(game, pairs)
        except AssertionError as e:
            raise Finding(f"{game}: seed {seed}: {e}", {"check": "openspiel"}) from e
    return out


def fuzz_config(name: str, config: dict[str, Any], seconds: float, seed: int, out: str,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Fuzz one config for ``seconds``: games, leak test, names, OpenSpiel, then the record fuzz.

    Returns:
        The config's figures (``games``, ``states``, ``worlds``, ``steps``, ``strings``, ``sims``,
        ``records``, ``failures``, ``minutes``) and the paths of the saved failing games.
    """
    start = time.time()
    game = Game(name, **config)
    rng = np.random.default_rng(seed)
    stats: dict[str, Any] = {"config": config_id(name, config), "games": 0, "playouts": 0, "states": 0, "worlds": 0,
                             "steps": 0,
                             "strings": 0, "openspiel_pairs": 0, "sims": 0, "records": 0, "saves": 0, "failures": 0,
                             "saved": []}
    record_budget = 0.25 * seconds  # the record fuzz gets its share after the games
    batch, sims_time = 2, 0.0  # OpenSpiel simulations per batch, and how long the last batch took
    k = 0
    while time.time() - start < seconds - record_budget or stats["games"] == 0:
        game_seed = seed + k
        drivers = [DRIVERS[int(rng.integers(len(DRIVERS)))] for _ in range(game.num_players)]
        actions: list[int] = []
        try:
            try:  # the contract's invariants along a uniformly random game of the same seed
                random_playout(game, game_seed, check=True)
            except Exception as e:  # an invariant, or a record the engine's own checks refuse (ValueError)
                raise Finding(f"{game}: seed {game_seed}: random playout: {type(e).__name__}: {e}",
                              {"check": "contract"}) from e
            stats["playouts"] += 1
            if k % 5 == 0 and (k == 0 or time.time() - start + sims_time < seconds - record_budget):
                sims_start = time.time()
                try:
                    random_sims(game, batch)
                except Exception as e:
                    raise Finding(f"{game}: random_sim_test: {type(e).__name__}: {e}", {"check": "sims"}) from e
                stats["sims"] += batch
                sims_time = time.time() - sims_start  # batches grow while they take a small part of the budget
                batch = min(SIMS, 2 * batch) if sims_time < 0.05 * seconds else batch
            choosers = [agent_chooser(d, game, p, game_seed) for p, d in enumerate(drivers)]
            actions = play_recorded(game, game_seed, choosers)
            # the generator's state as the checks find it: a replay draws the same worlds (the leak test's and the
            # OpenSpiel strings' pairs) from it, not others from the game's seed
            rng_state = copy.deepcopy(rng.bit_generator.state)
            try:
                got = check_game(game, game_seed, actions, rng)
            except Finding as e:
                e.details.setdefault("rng", rng_state)
                raise
            for key in ("states", "worlds", "steps", "strings", "openspiel_pairs"):
                stats[key] += got.get(key, 0)
        except Exception as e:  # every failure is saved, whatever raised it
            details = e.details if isinstance(e, Finding) else {"check": "crash"}
            stats["saved"].append(save_failure(out, name, config, game_seed, actions, drivers, details,
                                               f"{e}" if isinstance(e, Finding) else traceback.format_exc()))
            stats["failures"] += 1
            log(f"{stats['config']}: FAILURE {details['check']}: {str(e)[:300]}")
        stats["games"] += 1
        k += 1
    # the record fuzz fills the rest of the budget, in rounds of at most RECORD_ROUND seconds, each from
    # other games (a round sized for the time left often ends early: the budget is a floor, not a guess)
    r = 0
    while r == 0 or time.time() - start < seconds:
        left = max(30.0, min(RECORD_ROUND, seconds - (time.time() - start)))
        rec_seed, options = seed + 7919 * r, record_options(name, left)
        rec = run_records(name, config, rec_seed, timeout=max(300.0, 4 * left), **options)
        r += 1
        if "error" in rec:  # saved with the round's options, so that a replay runs the same round
            stats["saved"].append(save_failure(out, name, config, rec_seed, [], [],
                                               {"check": "records", "options": options}, rec["error"]))
            stats["failures"] += 1
            break
        stats["records"] += rec["tried"]
        stats["saves"] += rec.get("saves_tried", 0)
    stats["minutes"] = round((time.time() - start) / 60, 2)
    return stats


def save_failure(out: str, name: str, config: dict[str, Any], seed: int, actions: Sequence[int],
                 drivers: Sequence[str], details: dict[str, Any], message: str) -> str:
    """Write a failing game as JSON (config, seed, actions, the check and its message); returns its path."""
    folder = Path(out) / "failures"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{config_id(name, config)}-seed{seed}-{details['check']}.json"
    path.write_text(json.dumps({"game": name, "config": config, "seed": seed, "actions": [int(a) for a in actions],
                                "drivers": list(drivers), "check": details["check"], "details": details,
                                "message": message}, indent=1, default=int))
    return str(path)


def replay_failure(path: str | Path) -> str:
    """Check a saved failing game again.

    Returns:
        ``""`` if the check passes now, else its message.

    Raises:
        ValueError: ``path`` is not a failure record (not JSON, or without its fields).
    """
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} is not a failure record of octagames fuzz (not JSON text: {e})") from None
    fields = ("game", "config", "seed", "actions", "details", "check", "message")
    if not isinstance(rec, dict) or any(k not in rec for k in fields):
        raise ValueError(f"{path} is not a failure record of octagames fuzz (a JSON object with the fields "
                         f"{list(fields)}, as fuzz writes beside its summary)")
    game = Game(rec["game"], **rec["config"])
    seed, actions, details = rec["seed"], rec["actions"], rec["details"]
    try:
        if rec["check"] == "records":
            got = run_records(rec["game"], rec["config"], seed, timeout=1200, **details.get("options", {}))
            return got.get("error", "")
        if rec["check"] == "sims":  # pyspiel draws its own games: run a batch again
            random_sims(game, 10 * SIMS)
            return ""
        if rec["check"] == "contract":
            random_playout(game, seed, check=True)
            return ""
        if not actions and rec.get("drivers"):  # it failed while the game was played: play it again
            choosers = [agent_chooser(d, game, p, seed) for p, d in enumerate(rec["drivers"])]
            actions = play_recorded(game, seed, choosers)
        if not actions:
            return f"not replayable: it failed while the game was played ({rec['message'][-300:]})"
        if isinstance(details.get("rng"), dict):  # the campaign's generator as the checks found it: the same worlds,
            rng = np.random.default_rng(seed)     # their determinizations and string pairs, in the same order
            rng.bit_generator.state = details["rng"]
            check_game(game, seed, actions, rng)
        elif rec["check"] == "leak" and details.get("world"):  # saved before 2026-12-07: the world alone
            check_world(game, seed, actions, details["world"])
        else:
            check_game(game, seed, actions, np.random.default_rng(seed))
    except Exception as e:
        return str(e)
    return ""


def _worker(args: tuple[str, dict[str, Any], float, int, str]) -> dict[str, Any]:
    name, config, seconds, seed, out = args
    stats = fuzz_config(name, config, seconds, seed, out, log=lambda m: print(m, flush=True))
    # each config's figures are kept as soon as it ends, so a campaign cut short keeps them
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / f"{stats['config']}.json").write_text(json.dumps(stats, indent=1))
    print(f"{stats['config']}: done, {stats['games']} games, {stats['states']} states, "
          f"{stats['failures']} failure(s), {stats['minutes']} min", flush=True)
    return stats


def main(cfg: FuzzConfig) -> int:
    """Run the campaign (or check a saved failure with ``cfg.replay``); returns the exit status."""
    if cfg.replay:
        why = replay_failure(cfg.replay)
        print(f"{cfg.replay}: {'FAILS: ' + why if why else 'passes'}")
        return 1 if why else 0
    if importlib.util.find_spec("pyspiel") is None:  # the OpenSpiel checks are part of every config's run
        raise ModuleNotFoundError("the fuzz campaign runs OpenSpiel's checks", name="pyspiel")
    configs = cfg.configs()
    jobs = cfg.jobs or os.cpu_count() or 1
    tasks = [(n, c, 60.0 * cfg.minutes, cfg.seed + 1_000_000 * k, cfg.out) for k, (n, c) in enumerate(configs)]
    print(f"fuzzing {len(tasks)} config(s), {cfg.minutes:g} min each, {jobs} at once", flush=True)
    start = time.time()
    if jobs == 1:
        results = [_worker(t) for t in tasks]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_worker, tasks))
    head = f"{'config':58} {'games':>6} {'states':>8} {'steps':>8} {'strings':>7} {'sims':>5} {'records':>7} " \
           f"{'saves':>5} {'fail':>4} {'min':>5}"
    print(head)
    for r in results:
        print(f"{r['config']:58} {r['games']:6} {r['states']:8} {r['steps']:8} {r['strings']:7} {r['sims']:5} "
              f"{r['records']:7} {r['saves']:5} {r['failures']:4} {r['minutes']:5}")
    failures = sum(r["failures"] for r in results)
    summary = {"configs": results, "failures": failures, "minutes": round((time.time() - start) / 60, 2),
               "settings": dataclasses.asdict(cfg)}
    Path(cfg.out).mkdir(parents=True, exist_ok=True)
    (Path(cfg.out) / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"{failures} failure(s); summary in {Path(cfg.out) / 'summary.json'}")
    for r in results:
        for path in r["saved"]:
            print(f"  saved {path}  (replay: python -m octagames.experiments.fuzz --replay {path})")
    return 1 if failures else 0


@script
def cli() -> None:
    """Command-line entry point (``octagames fuzz``, ``octagames-fuzz``, ``python -m octagames.experiments.fuzz``)."""
    sys.exit(main(parse_config(FuzzConfig)))


if __name__ == "__main__":
    cli()
