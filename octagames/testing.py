"""Invariant checks every rules engine must satisfy (used by the conformance suite).

These helpers import nothing beyond numpy and the engine contract, so a new
game can be checked the moment it follows :mod:`octagames.core`.
"""

from __future__ import annotations

import hashlib
import importlib
from types import ModuleType
from typing import Any, Callable, Sequence

import numpy as np

from octagames import catalogue
from octagames.core import CHANCE, SIMULTANEOUS, TERMINAL, Game


def random_playout(game: Game, seed: int, check: bool = True, max_steps: int | None = None) -> np.void:
    """Play one game with uniformly random actions (chance by its probabilities).

    With ``check`` every step verifies the contract's invariants:

    * the mask is non-empty exactly when a seat must act;
    * an illegal action is refused and leaves the record byte-identical;
    * chance probabilities are positive and sum to one;
    * observations have the declared size, and a determinized copy gives the
      acting seat exactly the same observation;
    * serialization round-trips;
    * the game ends within ``Game.max_game_length`` actions, returns within the utility bounds and zero-sum.

    Returns:
        the terminal record.
    """
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    limit = max_steps or game.max_game_length
    for _step in range(limit + 1):
        cp = game.current_player(s)
        if cp == TERMINAL:
            if check:
                r = game.returns(s)
                assert np.all(r >= game.min_utility - 1e-9) and np.all(r <= game.max_utility + 1e-9)
                assert abs(r.sum()) < 1e-9, f"returns {r.tolist()} are not zero-sum"
            return s
        if cp == CHANCE:
            outs = game.chance_outcomes(s)
            if check:
                probs = np.array([p for _, p in outs])
                assert len(outs) > 0 and np.all(probs > 0) and abs(probs.sum() - 1.0) < 1e-9
            acts = [a for a, _ in outs]
            probs = np.array([p for _, p in outs])
            a = int(acts[rng.choice(len(acts), p=probs / probs.sum())])
            game.apply_action(s, a)
            continue
        p = game.acting_player(s)
        assert 0 <= p < game.num_players, (cp, p)
        if cp != SIMULTANEOUS:
            assert cp == p
        mask = game.legal_mask(s, p)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"seat {p} must act but has no legal action"
        if check:
            before = game.to_bytes(s)
            illegal = np.flatnonzero(mask == 0)
            if illegal.size:
                bad = int(rng.choice(illegal))
                assert not game._apply(s, bad), f"illegal action {bad} accepted"
                assert game.to_bytes(s) == before, "a refused action changed the state"
            assert game.to_bytes(game.from_bytes(before)) == before
            obs = game.observation(s, p)
            assert obs.shape == (game.observation_size,) and np.all(np.isfinite(obs))
            low, high = game.observation_bounds()
            assert np.all(obs >= low) and np.all(obs <= high), "observation outside its declared bounds"
            det = game.determinize(s, p, int(rng.integers(1 << 30)))
            assert np.array_equal(game.observation(det, p), obs), "determinize changed what the seat sees"
            assert np.array_equal(game.legal_mask(det, p), mask), "determinize changed the seat's legal moves"
        game.apply_action(s, int(rng.choice(legal)))
    raise AssertionError(f"game did not end within max_game_length={limit}")


def trace_digest(game: Game, seed: int, max_steps: int) -> str:
    """A digest of one random game: the record, every seat's observation and the acting seat's legal mask at
    each of its first ``max_steps`` decisions (chance by the record's RNG, moves by a generator of ``seed``).

    Compiled kernels and the same kernels as plain Python (``NUMBA_DISABLE_JIT=1``) must give the same digest.

    Returns:
        the SHA-256 hex digest.
    """
    rng = np.random.default_rng(seed)
    s = game.new_state(seed)
    digest = hashlib.sha256()
    for _step in range(max_steps):
        game.play_chance(s)
        digest.update(game.to_bytes(s))
        if game.current_player(s) == TERMINAL:
            break
        for seat in range(game.num_players):
            digest.update(np.ascontiguousarray(game.observation(s, seat), dtype=np.float32).tobytes())
        mask = game.legal_mask(s, game.acting_player(s))
        digest.update(np.ascontiguousarray(mask, dtype=np.uint8).tobytes())
        game.apply_action(s, int(rng.choice(np.flatnonzero(mask))))
    return digest.hexdigest()


def exercise(game: Game, s: np.void, rng: np.random.Generator, steps: int = 4) -> None:
    """Run every kernel and text of the contract on record ``s``, then play a few random actions.

    For records that passed ``check_record``: none of this may crash, hang or raise.
    """
    for v in range(game.num_players):
        game.observation(s, v)
        game.legal_mask(s, v)
        game.render(s, v)
        game.determinize(s, v, int(rng.integers(1 << 30)))
    game.render(s)
    game.returns(s)
    for _ in range(steps):
        if game.is_terminal(s):
            return
        if game.is_chance(s):
            outs = game.chance_outcomes(s)
            if not outs:
                return
            game.apply_action(s, game.sample_chance(s))
            continue
        p = game.acting_player(s)
        legal = game.legal_actions(s, p) if p >= 0 else []
        if not legal:
            return
        a = int(rng.choice(legal))
        game.action_to_string(s, a)
        game.apply_action(s, a)


def damage_field(s: np.void, rng: np.random.Generator) -> None:
    """Set one entry of one field of record ``s`` (in place) to -1..3 or to one away from its value.

    Unlike a bit flip this keeps the record plausible (a count one off, a phase
    one on, an index that names another slot), so it reaches the checks that
    compare fields with each other.
    """
    name = s.dtype.names[int(rng.integers(len(s.dtype.names)))]
    entries = np.array(s[name]).reshape(-1)
    j = int(rng.integers(entries.size))
    near = np.concatenate([np.array([-1, 0, 1, 2, 3]).astype(entries.dtype),  # (wrapping in the field's type)
                           entries[j:j + 1] - 1, entries[j:j + 1] + 1])
    entries[j] = near[int(rng.integers(len(near)))]
    s[name] = entries.reshape(np.shape(s[name]))


def reseal(game: Game, raw: bytes) -> bytes:
    """``raw`` record bytes saved as :meth:`Game.to_bytes` saves a record, without checking them.

    What anyone who edits a saved game can do (the checksum is a plain, unkeyed digest):
    only :meth:`Game.check_record` stands between such data and the kernels.
    """
    body = game._format_tag + bytes(raw)
    return body + hashlib.blake2b(body, digest_size=8).digest()


def misbehaves(game: Game, s: np.void, rng: np.random.Generator, play: bool = True) -> str:
    """``""`` when record ``s`` can be used through :class:`Game` as the contract promises, else what failed.

    Every seat's observation is finite and inside :meth:`Game.observation_bounds`; the seat to
    move has a legal action (a chance node an outcome); the returns lie inside the utility
    bounds and sum to zero; every kernel and text runs (:func:`exercise`); with ``play``, the game
    goes on with random legal actions to its end within ``max_game_length`` actions, the acting
    seat's observation stays inside its bounds on the way (every seat's at the end), and the
    records the chance nodes lead to and the finished one pass :meth:`Game.check_record` too. Any
    exception is a failure too.
    """
    low, high = game.observation_bounds()
    try:
        exercise(game, game.clone(s), rng)
        s = game.clone(s)
        for step in range(game.max_game_length + 1):
            # every seat's observation at the start and the end, the acting seat's on the way (what agents read)
            seats = range(game.num_players) if step == 0 or game.is_terminal(s) else [game.acting_player(s)]
            for v in seats:
                obs = game.observation(s, v) if v >= 0 else low
                if not np.all(np.isfinite(obs) & (obs >= low) & (obs <= high)):
                    return f"player {v}'s observation leaves its declared bounds"
            r = game.returns(s)
            if not (np.all(r >= game.min_utility - 1e-9) and np.all(r <= game.max_utility + 1e-9)
                    and abs(r.sum()) < 1e-9):
                return f"returns {r.tolist()} outside the utility bounds or not zero-sum"
            if game.is_terminal(s):
                game.check_record(s)
                return ""
            if game.is_chance(s):
                outs = game.chance_outcomes(s)
                if not outs:
                    return "a chance node without outcomes"
                game.apply_action(s, game.sample_chance(s))
                if not game.is_chance(s):
                    game.check_record(s)
            else:
                legal = game.legal_actions(s)
                if not legal:
                    return f"player {game.acting_player(s)}, to move, has no legal action"
                game.apply_action(s, int(rng.choice(legal)))
            if not play:
                return ""
        return f"the game did not end within max_game_length = {game.max_game_length} actions"
    except Exception as e:  # noqa: BLE001 - any error on an accepted record is the finding
        return f"{type(e).__name__}: {e}"


def vector_playout(env: Any, records: list[np.void]) -> list[str]:
    """Load ``records`` into a vector env of as many games (``set_state``) and play each game to its end.

    ``env`` is an ``octagames.envs.vector.VectorEnv`` of ``len(records)`` games (reset), duck-typed so
    that this module imports no face. A vector env's games wait for a seat to act, so a record at a
    chance node is settled first (:meth:`Game.play_chance`) and a finished one stands for a game that
    has ended (a fresh game takes its place). Random legal actions (``sample_actions``) step the
    whole batch until every game has ended once; on the way, every game's seat to move must have a
    legal action, its observation must stay inside :meth:`Game.observation_bounds` and its rewards
    must be finite.

    Returns:
        ``""`` per record, or what went wrong in its game.
    """
    game: Game = env.game
    low, high = game.observation_bounds()
    state = env.get_state()
    problems = [""] * len(records)
    done = np.zeros(len(records), dtype=bool)
    for i, r in enumerate(records):
        s = game.clone(r)
        try:
            game.play_chance(s)
            game.check_record(s)
        except Exception as e:  # noqa: BLE001 - any error on an accepted record is the finding
            problems[i] = f"after its chance nodes: {type(e).__name__}: {e}"
        done[i] = bool(problems[i]) or bool(game.is_terminal(s))
        if not done[i]:
            state["states"][i] = s
    try:
        env.set_state(state)
    except ValueError as e:
        return [f"set_state refused it: {e}"] * len(records)

    def fail(which: np.ndarray, why: str) -> None:
        for i in np.flatnonzero(which & ~done):
            problems[i] = why
        done[which] = True

    for _ in range(game.max_game_length + 1):
        fail(~np.all((env.obs >= low) & (env.obs <= high), axis=1), "an observation outside its declared bounds")
        actions = env.sample_actions()
        fail(actions < 0, "the seat to move has no legal action")
        if done.all():
            return problems
        try:
            env.step_inplace(np.where(done, np.maximum(actions, 0), actions))
        except Exception as e:  # noqa: BLE001 - any error on accepted records is the finding
            fail(~done, f"step raised {type(e).__name__}: {e}")
            return problems
        fail(~np.all(np.isfinite(env.rewards), axis=1), "a reward that is not finite")
        done |= env.terminated | env.truncated
    fail(~done, f"the game did not end within max_game_length = {game.max_game_length} actions")
    return problems


def fuzz_records(game: Game, records: list[np.void], seed: int, flips: int, randoms: int,
                 log: Callable[[str], None] | None = None, also: Callable[[np.void], None] | None = None,
                 fields: int = 0, plays: int | None = None, accepted: list[np.void] | None = None) -> dict[str, int]:
    """Feed damaged records, resealed, to :meth:`Game.from_bytes`; check every record it accepts.

    Four kinds of damage: ``flips`` single-bit flips of the given (reached) records,
    ``randoms`` records of random bytes, ``randoms`` records of random bytes under a valid
    config (``write_config``), which reach the checks past the config, and ``fields`` reached
    records with one field entry damaged (:func:`damage_field`). Each damaged record is
    resealed (:func:`reseal`: a header and a checksum that fit), so the record check alone must
    refuse it; ``flips`` more bit flips of saved games, not resealed, must all fail the checksum.
    Every accepted record goes through :func:`misbehaves` (the first ``plays`` of them, all if
    ``None``, are also played to the end). ``log`` (if given) gets the hex of each accepted
    record before its kernels run, so that a crash names its record, and a line for each that
    misbehaves; ``also`` (if given) runs on a copy of each (another face, say: an exception it
    raises counts as misbehaving); ``accepted`` (if given) receives them (to run them in a batch).

    Returns:
        Counts: ``tried``, ``rejected``, ``accepted`` and ``misbehaving`` (accepted records that
        failed :func:`misbehaves`); accepted per kind (``flips_ok``, ``random_ok``,
        ``random_config_ok``, ``fields_ok``, ``saves_ok``: flipped saves past the checksum).
    """
    rng = np.random.default_rng(seed)
    size = game.dtype.itemsize
    out = dict.fromkeys(("tried", "rejected", "accepted", "misbehaving", "flips_ok", "random_ok",
                         "random_config_ok", "fields_ok", "saves_ok"), 0)

    def attempt(data: bytes, key: str) -> None:
        out["tried"] += 1
        try:
            s = game.from_bytes(data)
        except ValueError:
            out["rejected"] += 1
            return
        out[key] += 1
        out["accepted"] += 1
        if log is not None:
            log(s.tobytes().hex())
        if accepted is not None:
            accepted.append(game.clone(s))
        why = misbehaves(game, s, rng, play=plays is None or out["accepted"] <= plays)
        if also is not None and not why:
            try:
                also(game.clone(s))
            except Exception as e:  # noqa: BLE001 - any error on an accepted record is the finding
                why = f"{type(e).__name__}: {e}"
        if why:
            out["misbehaving"] += 1
            if log is not None:
                log(f"misbehaves ({key}): {why}")

    for _ in range(flips):
        raw = bytearray(records[int(rng.integers(len(records)))].tobytes())
        bit = int(rng.integers(8 * size))
        raw[bit // 8] ^= 1 << (bit % 8)
        attempt(reseal(game, raw), "flips_ok")
    for _ in range(randoms):
        attempt(reseal(game, rng.integers(0, 256, size, dtype=np.uint8).tobytes()), "random_ok")
        s = np.frombuffer(rng.integers(0, 256, size, dtype=np.uint8).tobytes(), dtype=game.dtype).copy()[0]
        game.module.write_config(s, game.config)
        attempt(reseal(game, s.tobytes()), "random_config_ok")
    for _ in range(fields):
        s = records[int(rng.integers(len(records)))].copy()
        damage_field(s, rng)
        attempt(reseal(game, s.tobytes()), "fields_ok")
    for _ in range(flips):
        saved = bytearray(game.to_bytes(records[int(rng.integers(len(records)))]))
        bit = int(rng.integers(8 * len(saved)))
        saved[bit // 8] ^= 1 << (bit % 8)
        attempt(bytes(saved), "saves_ok")
    return out


# ------------------------------------------------------------------ the conformance list and the leak test
def conformance_configs() -> list[tuple[str, dict]]:
    """Every (game, config fields) the conformance suite and the fuzz campaign check.

    Each game declares its own in ``octagames/<game>/variants.py`` (``GameSpec.conformance``, as
    ``(variant name, extra fields)``); here they are resolved to the rules package and its config
    fields (:func:`octagames.catalogue.resolve`), ``num_players`` first.
    """
    out: list[tuple[str, dict]] = []
    for game in catalogue.games():
        for name, extra in catalogue.game_spec(game).conformance:
            rules, fields = catalogue.resolve(name, **extra)
            out.append((rules, {"num_players": fields.pop("num_players"), **fields}))
    return out


#: :func:`conformance_configs`, read once: a new game adds its configs to its own ``variants.py``.
CONFORMANCE_CONFIGS: list[tuple[str, dict]] = conformance_configs()


def config_id(name: str, config: dict) -> str:
    """A short readable id of one config: its variant's name, then the fields that variant does not set.

    Args:
        name: a game or variant name.
        config: config fields over ``name``'s (as given; their order is kept).

    Returns:
        ``"octrix-round-num_players=3"`` for ``("octrix", {"match": False, "num_players": 3})``,
        ``"achten-num_players=2-ranks=3"``, ``"octa-nl-num_players=2-max_turns=20"``.

    Raises:
        ValueError: an unknown name or a bad config.
    """
    game, fields = catalogue.resolve(name, **config)
    variant = catalogue.variant(catalogue.variant_name(game, fields).partition("+")[0])
    ordered = {**{k: fields[k] for k in config}, **fields}
    return "-".join([variant.name, *(f"{k}={v}" for k, v in ordered.items()
                                     if k not in variant.config or variant.config[k] != v)])


def public_module(game: Game) -> ModuleType:
    """The game's ``public`` module (``octagames/<game>/public.py``): what each seat sees, by the rules.

    It has ``public_view(s, seat)``, ``seen_ids(s, seat)``, ``deals_card(s)``, ``kind(c)``,
    ``CARD_GROUPS`` and ``HIDDEN_MOVES`` (see :func:`leak_check`).
    """
    return importlib.import_module(f"{game.module.__name__}.public")


class Finding(AssertionError):
    """A check failed on a recorded game; ``details`` says which check and how to replay it."""

    def __init__(self, message: str, details: dict[str, Any]):
        super().__init__(message)
        self.details = details


Chooser = Callable[[Game, np.void, int], int]


def random_chooser(rng: np.random.Generator) -> Chooser:
    """A chooser of uniformly random legal actions (for :func:`play_recorded`)."""
    def choose(game: Game, s: np.void, seat: int) -> int:
        return int(rng.choice(game.legal_actions(s, seat)))
    return choose


def check_unique_names(game: Game, s: np.void) -> None:
    """The legal actions of the seat to act in ``s`` have distinct names.

    Raises:
        AssertionError: two legal actions share a name (both are named).
    """
    names: dict[str, int] = {}
    for a in game.legal_actions(s):
        name = game.action_to_string(s, a)
        if name in names:
            raise AssertionError(f"legal actions {names[name]} and {a} are both named {name!r}")
        names[name] = a


def play_recorded(game: Game, seed: int, choosers: Sequence[Chooser],
                  visit: Callable[[np.void], None] | None = None) -> list[int]:
    """Play one game from ``game.new_state(seed)``; chance by the record's RNG, seat ``p`` by ``choosers[p]``.

    Args:
        game: the game.
        seed: the seed of the record (its chance draws).
        choosers: one chooser per seat.
        visit: called on every decision state before its action (a check such as
            :func:`check_unique_names`).

    Returns:
        Every action applied, chance outcomes included: ``replay(game, seed, actions)`` rebuilds the game.
    """
    s = game.new_state(seed)
    actions: list[int] = []
    while not game.is_terminal(s):
        if game.is_chance(s):
            a = game.sample_chance(s)
        else:
            if visit is not None:
                visit(s)
            p = game.acting_player(s)
            a = int(choosers[p](game, game.clone(s), p))
        game.apply_action(s, a)
        actions.append(a)
    return actions


def replay(game: Game, seed: int, actions: Sequence[int]) -> list[np.void]:
    """The states of a recorded game: ``out[k]`` is the record after its first ``k`` actions."""
    s = game.new_state(seed)
    out = [game.clone(s)]
    for a in actions:
        game.apply_action(s, int(a))
        out.append(game.clone(s))
    return out


def seat_strings(game: Game, s: np.void, seat: int, actions: Sequence[int]) -> dict[str, Any]:
    """Everything ``seat`` is shown in ``s``: observation, render, action names, its mask and reasons.

    Args:
        game: the game.
        s: a record.
        seat: the seat.
        actions: the action ids whose names and illegal-move reasons are compared.
    """
    acting = game.acting_player(s) == seat
    return {"observation": game.observation(s, seat).tobytes(),
            "render": game.render(s, seat),
            "action names": [game.action_to_string(s, a) for a in actions],
            "legal mask": game.legal_mask(s, seat).tobytes() if acting else b"",
            "illegal reasons": [game.module.illegal_reason(s, seat, a) for a in actions] if acting else []}


def _first_difference(a: dict[str, Any], b: dict[str, Any], actions: Sequence[int]) -> str:
    for key in a:
        if a[key] != b[key]:
            if isinstance(a[key], list):
                i = next(i for i, (x, y) in enumerate(zip(a[key], b[key])) if x != y)
                return f"{key} of action {actions[i]}: {a[key][i]!r} != {b[key][i]!r}"
            if key == "render":
                la, lb = a[key].splitlines(), b[key].splitlines()
                diff = [f"{x!r} != {y!r}" for x, y in zip(la, lb) if x != y]
                return f"render: {diff[:2]}"
            return key
    return ""


#: steps a world drawn for a seat is played on in :func:`_worlds_apart`
WORLD_STEPS = 8


def _worlds_apart(game: Game, a: np.void, b: np.void, seat: int, seed: int, rng: np.random.Generator) -> str:
    """How the worlds ``determinize(a, seat, seed)`` and ``determinize(b, seat, seed)`` of two records ``seat``
    cannot tell apart differ, or ``""``: every seat's observation, now and over :data:`WORLD_STEPS` steps played
    alike in both (chance by each record's RNG, a move drawn from ``rng`` among the legal ones, which must be the
    same). A world drawn for a seat may depend on its information state and the seed alone, so the search that
    plays in it acts alike; comparing by what each seat is shown (not the bytes) lets the worlds differ in which
    copy of a kind lies where, which no seat sees."""
    wa, wb = game.determinize(a, seat, seed), game.determinize(b, seat, seed)
    for t in range(WORLD_STEPS + 1):
        for p in range(game.num_players):
            if not np.array_equal(game.observation(wa, p), game.observation(wb, p)):
                return f"world drawn for it from one seed (seat {p}'s observation there, {t} steps on)"
        where = (game.is_terminal(wa), game.is_chance(wa), game.acting_player(wa))
        if where != (game.is_terminal(wb), game.is_chance(wb), game.acting_player(wb)):
            return f"world drawn for it from one seed (who acts there, {t} steps on)"
        if t == WORLD_STEPS or game.is_terminal(wa):
            return ""
        if game.is_chance(wa):
            game.play_chance(wa)
            game.play_chance(wb)
            continue
        p = game.acting_player(wa)
        if p < 0:  # simultaneous moves: not played on here
            return ""
        legal = game.legal_actions(wa)
        if legal != game.legal_actions(wb):
            return f"world drawn for it from one seed (seat {p}'s legal actions there, {t} steps on)"
        act = int(legal[int(rng.integers(len(legal)))])
        game.apply_action(wa, act)
        game.apply_action(wb, act)
    return ""


def world_actions(game: Game, states: Sequence[np.void], actions: Sequence[int], world: dict[str, Any]) -> list[int]:
    """The actions of another world: chance cards relabelled by ``world["relabel"]`` (old id -> new id),
    or the action at ``world["step"]`` replaced by ``world["action"]`` (a hidden move)."""
    pub = public_module(game)
    if "step" in world:
        out = list(actions)
        out[world["step"]] = int(world["action"])
        return out
    relabel = {int(k): int(v) for k, v in world["relabel"].items()}
    return [relabel.get(int(a), int(a)) if game.is_chance(states[k]) and pub.deals_card(states[k]) else int(a)
            for k, a in enumerate(actions)]


def check_world(game: Game, seed: int, actions: Sequence[int], world: dict[str, Any],
                states: Sequence[np.void] | None = None, rng: np.random.Generator | None = None,
                strings: int = 3, sample: int = 24,
                on_pair: Callable[[np.void, np.void, int], None] | None = None) -> dict[str, int]:
    """Replay ``actions`` in another world and compare what seat ``world["seat"]`` is shown in both.

    The other world (:func:`world_actions`) is kept while it stays consistent with everything the seat
    saw: its actions stay legal and the seat's ``public_view`` (the game's ``public`` module, written
    from the rules) stays equal step by step. At each such step the seat's observation (and its legal
    mask when it acts) must be equal; at ``strings`` random steps and at the last, also its render,
    the names of ``sample`` actions (the legal ones first), its illegal-move reasons, and ``on_pair``
    (OpenSpiel's strings, say).

    Args:
        game: the game.
        seed: the recorded game's seed.
        actions: the recorded game's actions (chance included).
        world: ``{"seat": v, "until": T, "relabel": {...}}`` or ``{"seat": v, "until": T, "step": i,
            "action": a}``.
        states: ``replay(game, seed, actions)`` if already built.
        rng: picks the steps and actions whose strings are compared.
        strings: how many steps get the string comparison besides the last.
        sample: how many action ids get names and reasons compared.
        on_pair: called with the two records and the seat at every string comparison.

    Returns:
        ``{"steps": compared steps, "strings": string comparisons, "inconsistent": 1 if an action was
        illegal there, "diverged": 1 if the seat's public view came apart}``.

    Raises:
        Finding: the seat is shown something different in two worlds it cannot tell apart.
    """
    pub = public_module(game)
    rng = rng if rng is not None else np.random.default_rng(0)
    states = states if states is not None else replay(game, seed, actions)
    v, until = int(world["seat"]), min(int(world["until"]), len(actions))
    other = world_actions(game, states, actions, world)
    first = next((k for k in range(len(actions)) if other[k] != actions[k]), len(actions))
    out = {"steps": 0, "strings": 0, "inconsistent": 0, "diverged": 0}
    if first >= until:
        return out
    chosen = set(int(k) for k in rng.integers(first + 1, until + 1, size=strings)) | {until}
    b = game.clone(states[first])
    for k in range(first, until):
        try:
            game.apply_action(b, other[k])
        except ValueError:
            out["inconsistent"] = 1
            return out
        a = states[k + 1]
        if pub.public_view(a, v) != pub.public_view(b, v):
            out["diverged"] = 1
            return out
        out["steps"] += 1
        acting = game.acting_player(a) == v
        same = np.array_equal(game.observation(a, v), game.observation(b, v)) and \
            (not acting or np.array_equal(game.legal_mask(a, v), game.legal_mask(b, v)))
        if same and k + 1 not in chosen:
            continue
        legal = game.legal_actions(a) if game.acting_player(a) >= 0 else []
        ids = list(dict.fromkeys(legal[:sample] + [int(x) for x in rng.integers(0, game._ids(a)[0], sample)]))
        sa, sb = seat_strings(game, a, v, ids), seat_strings(game, b, v, ids)
        why = _first_difference(sa, sb, ids) or _worlds_apart(game, a, b, v, int(rng.integers(1 << 62)), rng)
        if why == "observation":
            diff = np.flatnonzero(game.observation(a, v) != game.observation(b, v))
            why += f" (block {game.observation_layout.locate(int(diff[0]))[0].name!r}, {len(diff)} entries)"
        out["strings"] += 1
        if why:
            raise Finding(f"{game}: seed {seed}, seat {v} at step {k + 1} is shown a different {why} in two "
                          f"worlds it cannot tell apart ({_describe(world)})",
                          {"check": "leak", "seat": v, "step": k + 1, "world": {**world, "until": k + 1}})
        if on_pair is not None:
            on_pair(a, game.clone(b), v)  # (b goes on being played)
    return out


def _describe(world: dict[str, Any]) -> str:
    if "step" in world:
        return f"the hidden move at step {world['step']} replaced by action {world['action']}"
    return "cards relabelled " + ", ".join(f"{k}->{v}" for k, v in world["relabel"].items())


def draw_worlds(game: Game, states: Sequence[np.void], actions: Sequence[int], seat: int,
                rng: np.random.Generator, count: int) -> list[dict[str, Any]]:
    """Up to ``count`` other worlds for ``seat`` (see :func:`check_world`), from the rules' public zones.

    A world ends at a random step ``T``. Card games: the card ids ``seat`` never saw face up in
    steps ``0..T`` (``public.seen_ids``, never the engine's knowledge) are relabelled in the chance
    outcomes: two unseen ids swapped, two copies of one kind swapped (seen or not: the rules cannot
    tell them apart), several unseen ids shuffled, or a copy hidden at a
    step ``j`` whose twin the seat saw go into hiding swapped with a card of another kind (that copy
    may be played face up later: the seat tells kinds apart, not copies; ``check_world`` stops where
    the seat's view by kind comes apart). Games with hidden
    moves (``public.HIDDEN_MOVES``): another seat's move is replaced by another of its legal moves.
    """
    pub = public_module(game)
    n = len(actions)
    deal_step = [game.is_chance(states[k]) and pub.deals_card(states[k]) for k in range(n)]
    seen: set[int] = set()
    seen_by = []  # seen_by[k]: ids seen face up in steps 0..k
    if pub.CARD_GROUPS:
        for k in range(n + 1):
            seen |= pub.seen_ids(states[k], seat)
            seen_by.append(frozenset(seen))
    dealt_at: dict[int, int] = {}  # card id -> the step that first dealt it
    for k in range(n - 1, -1, -1):
        if deal_step[k]:
            dealt_at[int(actions[k])] = k
    in_play = set(dealt_at)  # the deck in use: what was dealt, and what the first draw could have been
    first = next((k for k in range(n) if deal_step[k]), None)
    if first is not None:
        in_play.update(a for a, _ in game.chance_outcomes(states[first]))
    worlds: list[dict[str, Any]] = []
    for _ in range(4 * count):
        if len(worlds) >= count or n == 0:
            break
        until = int(rng.integers(1, n + 1))
        if pub.HIDDEN_MOVES:  # a move of another seat, compared over the next few steps
            steps = [k for k in range(n) if not game.is_chance(states[k]) and game.acting_player(states[k]) != seat]
            if not steps:
                continue
            k = int(rng.choice(steps))
            alts = [a for a in game.legal_actions(states[k]) if a != actions[k]]
            if alts:
                until = min(n, k + 1 + int(rng.integers(game.num_players)))
                worlds.append({"seat": seat, "until": until, "step": k, "action": int(rng.choice(alts))})
            continue
        if not pub.CARD_GROUPS:
            continue
        group = pub.CARD_GROUPS[int(rng.integers(len(pub.CARD_GROUPS)))]
        dealt = [c for c in group if dealt_at.get(c, n) < until]
        unseen = [c for c in group if c in in_play and c not in seen_by[until]]
        moved = [c for c in unseen if dealt_at.get(c, n) < until]
        mode = int(rng.integers(4))
        if mode == 1:
            # two copies of one kind, seen or not: the rules cannot tell them apart, so neither may the seat
            twins = [c for c in dealt if any(d != c and pub.kind(d) == pub.kind(c) for d in group if d in in_play)]
            if not twins:
                continue
            a = int(rng.choice(twins))
            b = int(rng.choice([d for d in group if d != a and d in in_play and pub.kind(d) == pub.kind(a)]))
            relabel = {a: b, b: a}
        elif mode == 3:
            # a copy hidden from the seat at step j while the seat knows a twin of it lies hidden too (a
            # card it saw taken into a hand, say) becomes a card of another kind: where the rules cannot
            # tell the copies apart, the seat may later see "a card of that kind" played in both worlds
            j = int(rng.integers(0, until + 1))
            known_hidden = {pub.kind(c) for c in seen_by[j] - pub.seen_ids(states[j], seat)}
            blind = [c for c in group if dealt_at.get(c, n) < j and c not in seen_by[j] and pub.kind(c) in known_hidden]
            if not blind:
                continue
            a = int(rng.choice(blind))
            b = int(rng.choice([c for c in unseen if pub.kind(c) != pub.kind(a)] or [a]))
            relabel = {a: b, b: a}
        elif not moved or len(unseen) < 2:
            continue
        elif mode == 2:
            pick = [int(c) for c in rng.choice(unseen, size=min(8, len(unseen)), replace=False)]
            relabel = dict(zip(pick, [int(c) for c in rng.permutation(pick)]))
        else:
            a = int(rng.choice(moved))
            b = int(rng.choice([c for c in unseen if c != a]))
            relabel = {a: b, b: a}
        relabel = {k: v for k, v in relabel.items() if k != v}
        if relabel:
            worlds.append({"seat": seat, "until": until, "relabel": relabel})
    return worlds


def leak_check(game: Game, seed: int, actions: Sequence[int], rng: np.random.Generator, worlds: int = 2,
               on_pair: Callable[[np.void, np.void, int], None] | None = None) -> dict[str, int]:
    """The resampling leak test on one recorded game, for every seat.

    For each seat, ``worlds`` other worlds consistent with what it saw (:func:`draw_worlds`) are
    replayed and compared step by step (:func:`check_world`); and at every ``len(actions) // 8``-th
    state, a copy with another RNG (the future, which nobody sees) must show every seat the same.

    Returns:
        Totals: ``worlds``, ``steps`` (compared steps), ``strings`` (string comparisons),
        ``inconsistent`` and ``diverged`` (worlds cut short), ``rng`` (RNG comparisons).

    Raises:
        Finding: a seat is shown something that depends on what it cannot see.
    """
    states = replay(game, seed, actions)
    totals = {"worlds": 0, "steps": 0, "strings": 0, "inconsistent": 0, "diverged": 0, "rng": 0}
    for k in range(0, len(states), max(1, len(states) // 8)):
        a = states[k]
        b = game.clone(a)
        b["rng"] = np.uint64(rng.integers(1 << 62))
        legal = game.legal_actions(a) if game.acting_player(a) >= 0 else []
        ids = legal[:24] + [int(x) for x in rng.integers(0, game._ids(a)[0], 8)]
        for v in range(game.num_players):
            why = _first_difference(seat_strings(game, a, v, ids), seat_strings(game, b, v, ids), ids)
            if why:
                raise Finding(f"{game}: seed {seed}, seat {v} at step {k} is shown a different {why} under "
                              f"another RNG (the future)", {"check": "leak", "seat": v, "step": k, "world": {}})
            totals["rng"] += 1
    for v in range(game.num_players):
        for world in draw_worlds(game, states, actions, v, rng, worlds):
            out = check_world(game, seed, actions, world, states, rng, on_pair=on_pair)
            totals["worlds"] += 1
            for key, value in out.items():
                totals[key] += value
    return totals
