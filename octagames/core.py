"""The engine contract shared by every octagames rules engine.

Every game lives in its own subpackage (``octagames/<name>/``) and exposes the
same module-level names, so that the faces in ``envs/``, the agents and the
experiment scripts can treat all games alike:

================  =============================================================
name              meaning
================  =============================================================
``INFO``          :class:`GameInfo`, the static facts of the game
``Config``        frozen dataclass, validated on construction
``STATE_DTYPE``   the numpy structured dtype holding one whole game
``write_config``  ``write_config(record, config)`` stores a config in a record
``reset``         ``reset(s, seed)`` starts a new game in record ``s``
``current_player``  a seat, or :data:`CHANCE`, :data:`SIMULTANEOUS`, :data:`TERMINAL`
``acting_player``   the seat that acts next when simultaneous moves are taken
                  one at a time (lowest pending seat first); chance/terminal as above
``legal_mask``    ``legal_mask(s, player, out_uint8[A]) -> count``
``apply_action``  ``apply_action(s, action) -> bool``; applies the acting
                  player's (or chance's) action, returns False and leaves ``s``
                  untouched when the action is illegal
``chance_outcomes``  ``chance_outcomes(s, actions_out, probs_out) -> n``
``sample_chance``  draws a chance outcome with the RNG stored in ``s``
``observation``   ``observation(s, player, out_float32[D])``: the information state
``returns``       ``returns(s, out_float64[P])``: cumulative returns so far
``determinize``   ``determinize(s, player, seed)``: resample all that ``player``
                  cannot see, consistently with what they saw, and reseed the RNG
``action_to_string``  ``action_to_string(s, action) -> str`` (Python)
``render``        ``render(s, viewer=None) -> str`` (Python)
``illegal_reason``  ``illegal_reason(s, player, action) -> str`` (Python): the rule broken
``check_record``  ``check_record(s) -> str`` (Python): ``""`` for a record the kernels can
                  run on safely under the config it carries, else one line naming the
                  field that is wrong (saved games are untrusted input)
``CONFIG_FIELDS``  optional: the record fields that hold the config and never change in
                  play (default: the ``Config`` field names the record has); :class:`Game`
                  refuses a record whose fields differ from its own config
``ACTIONS``       :class:`Layout` of the action table (or ``action_layout(config)``)
``OBS_LAYOUT``    :class:`Layout` of the observation (or ``obs_layout(config)``)
================  =============================================================

Tables are declared once, as data (:class:`Layout` of :class:`Block`): the
kernels use integer constants derived from them, the strings and illegal
reasons look up the block of an action, the module docstrings carry the
generated tables, and :meth:`Game.observation_views` gives named views.

No string a seat can see (the names of its own actions, ``illegal_reason``,
``render(s, viewer=seat)``) depends on anything that seat cannot see. The names of chance outcomes are
all-seeing (``deal ♣2 to P1``, as in game records): show a seat only the names of actions it saw.

Optional, for games with an engine safety bound that is not a rule of the seed:
a kernel ``truncated(s) -> bool``, True when the game stopped at that bound (faces report it
as truncation, not as a scored end).

Optional, where a bound depends on the config: ``utility_bounds(config) ->
(lo, hi)``, ``max_game_length(config) -> int`` and ``observation_bounds(config)
-> (low, high)``; :class:`Game` falls back to ``INFO`` (and to [0, 1] for
observations) otherwise.

Optional, for speed: ``random_legal_action(s, player) -> action``, a legal
action of the acting ``player`` drawn uniformly with the record's RNG, for games
where that is cheaper than the whole ``legal_mask`` (Octiles checks one
placement at a time). MCTS's random playouts use it when a module has it; the
distribution must be exactly uniform over ``legal_mask``. And ``apply_legal(s, action) -> bool``:
``apply_action`` without the legality check of a player's action, for actions
taken from ``legal_mask`` (or ``random_legal_action``); MCTS playouts use it.
It must leave the record exactly as ``apply_action`` would. And ``settle_chance(s)``: every
chance node resolved with the record's RNG until a seat acts or the game ends, leaving the record
exactly as ``apply_action(s, sample_chance(s))`` repeated while at a chance node would (Octrix
deals a round at once); ``Game.play_chance`` and the vector env's steps use it.

The kernels are plain ``@numba.njit`` functions over one record (no
``cache=True``: numba's cache would not notice edits to the modules they call);
they also run uncompiled under ``NUMBA_DISABLE_JIT=1``. Records are indexed as
``s['field']`` so both modes work. Compiled code reaches Python through
templates specialised per game (:mod:`octagames.specialize`): :attr:`Game.kernels`
holds the contract's kernels as cached entry points.

Optional, for compile time: ``kernel_module(config) -> str``, the module the
compiled kernels of ``config`` come from (a binding of
:func:`octagames.specialize.specialize`, possibly a nested template), when a
config needs only part of the rules: Octa's kernels for one rulebook contain
only that rulebook. That module has the contract's kernels; :class:`Game` and
the faces compile it (:attr:`Game.kernel_module`), and a record is run only by
the kernels of its own config (:class:`Game` refuses a record of another).
The warm-up compiles one variant per kernel module (the variants that ``kernel_module``
tells apart: Octa's two rulebooks; every other game compiles one module).

Optional, for self-checks: ``checked_play(config)`` returns a compiled entry point
``kernel(s, max_steps, stats) -> int`` (``stats``: int64[4], receiving the steps, the player
decisions, the turns and the most steps in one turn) that plays a record to its end with random
legal actions and checks its consistency after every action: 0 when the record stays consistent,
else an error code. Octa has one; the warm-up compiles it.

Optional, for learners: ``ACTION_FEATURES``, the name of an observation block shaped
``[num_actions, k]`` that says what each action would do (Achten's ``lookahead``); a network's
per-action policy term reads it (:func:`octagames.agents.learn.az.action_block`).
Or ``action_rows(config) -> (name, refs)``: an observation block shaped ``[rows, k]`` of facts
per item (Octa's ``facts``: per card kind, pool slot and top discard) and an int array
``refs[num_actions, R]`` of the rows each action is about (-1 for none); the same policy term reads
each action's rows (:func:`octagames.agents.learn.az.action_rows`).

Optional: ``EARLIER_STATE_DTYPES``, record layouts of earlier versions: :meth:`Game.from_bytes` reads a
record saved under one field by field into today's ``STATE_DTYPE`` (:meth:`Game.relayout`: the same field
names; a value that does not fit is refused).

Optional: ``EARLIER_OBS_SIZES``, the observation sizes of earlier versions whose entries are the
leading entries of today's (blocks were appended): a network trained on one keeps working, reading
that prefix (:attr:`Game.earlier_observation_sizes`).

Python users normally go through :class:`Game`, which binds a module to one
config and adds the policy written once for all games: clear errors for illegal
actions, chance sampling, copying and serialization.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import numbers
import operator
import textwrap
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterable, Sequence

import numba as nb
import numpy as np
from numba.extending import intrinsic, overload

from octagames import catalogue
from octagames.specialize import engine_kernels

# Player markers, identical to OpenSpiel's so the adapter needs no mapping.
CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4


def __getattr__(name: str) -> Any:
    # GAME_NAMES is the catalogue's list of games (octagames/<game>/variants.py), read when first asked for
    if name == "GAME_NAMES":
        return tuple(catalogue.games())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def fast_apply(module: ModuleType) -> Any:
    """The kernel that applies a move known to be legal: the rules module's optional ``apply_legal``
    (no second legality check), else its checked ``apply_action``. The compiled templates bind it once."""
    return getattr(module, "apply_legal", module.apply_action)


# --------------------------------------------------------------------------
# Random numbers carried in the record (splitmix64), so that a record fully
# determines its own future.
# --------------------------------------------------------------------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@nb.njit
def mix64(z: np.uint64) -> np.uint64:
    """Finalise a 64-bit value (the splitmix64 output function)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit
def seed_rng(s, seed) -> None:
    """Seed the record's RNG from an integer seed."""
    s["rng"] = mix64(np.uint64(seed) + _GOLDEN)


@nb.njit
def rng_next(s) -> np.uint64:
    """Advance the record's RNG and return 64 random bits."""
    z = s["rng"] + _GOLDEN
    s["rng"] = z
    return mix64(z)


def popcount(x) -> int:
    """The set bits of the unsigned integer ``x`` (uncompiled; compiled code counts them in one instruction)."""
    return bin(int(x)).count("1")


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@overload(popcount, inline="always")
def _popcount_compiled(x):
    return lambda x: np.int64(_ctpop(x))


_ONE = np.uint64(1)


@nb.njit(inline="always")
def nth_bit(x, k) -> int:
    """The position of the ``k``-th set bit (from 0) of the uint64 ``x``, which has more than ``k``: halves of
    32, 16, 8, 4, 2 and 1 bits, without a branch (where the bits lie is random)."""
    pos = 0
    for w in (32, 16, 8, 4, 2, 1):
        low = popcount(x & ((_ONE << np.uint64(w)) - _ONE))
        up = np.int64(k >= low)
        k -= low * up
        x = x >> np.uint64(w * up)
        pos += w * up
    return pos


@nb.njit(inline="always")
def _set_bits(mask, a, m):
    """Bit ``j`` set where ``mask[a + j]`` is non-zero, for ``j < m <= 64`` (a vector compare a block)."""
    bits = np.uint64(0)
    for j in range(m):
        bits |= np.uint64(mask[a + j] != 0) << np.uint64(j)
    return bits


@nb.njit
def nth_set(mask, k) -> int:
    """The index of the ``k``-th non-zero entry of ``mask`` (from 0), or -1 if it has fewer.

    With ``k`` uniform below the number of legal actions, a uniform legal action.
    """
    n = mask.shape[0]
    k = np.int64(k)  # an unsigned k (rng_below's) would count in floats
    if n <= 64:  # a short mask (Octrix', Achten's): its bit set, then the k-th bit, no branch per entry
        bits = _set_bits(mask, 0, n)
        return nth_bit(bits, k) if 0 <= k < popcount(bits) else -1
    if k < 0:
        return -1
    # a long mask (Octiles', Octa's): blocks of 64 entries as bit sets, skipped by their count; the k-th bit
    # of the block that holds it without a branch per entry
    a = 0
    while a < n:
        bits = _set_bits(mask, a, 64) if a + 64 <= n else _set_bits(mask, a, n - a)
        c = popcount(bits)
        if k < c:
            return a + nth_bit(bits, k)
        k -= c
        a += 64
    return -1


@nb.njit
def rng_below(s, n) -> int:
    """A uniform integer in ``[0, n)`` from the record's RNG."""
    return int(rng_next(s) % np.uint64(n))


@nb.njit
def rng_uniform(s) -> float:
    """A uniform float in ``[0, 1)`` from the record's RNG."""
    return float(rng_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------
# Static facts and config helpers
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class GameInfo:
    """Static facts of a game, declared at the top of its module.

    Attributes:
        name: the short name used everywhere (``octrix``, ``achten``, ...).
        min_players: fewest seats.
        max_players: most seats; arrays over players have this length.
        num_actions: number of distinct player actions (the mask length).
        max_chance_outcomes: number of distinct chance outcome ids.
        observation_size: length of the observation tensor.
        max_game_length: upper bound on the number of actions (chance included).
        min_utility: lowest possible return of a seat.
        max_utility: highest possible return of a seat.
        chance_mode: ``"explicit"``: chance nodes list their outcomes.
        dynamics: ``"simultaneous"`` or ``"sequential"``.
        information: ``"perfect"`` or ``"imperfect"``.
    """

    name: str
    min_players: int
    max_players: int
    num_actions: int
    max_chance_outcomes: int
    observation_size: int
    max_game_length: int
    min_utility: float
    max_utility: float
    chance_mode: str
    dynamics: str
    information: str


def check_choice(field: str, value: Any, valid: Iterable[Any]) -> None:
    """Raise ``ValueError`` naming ``field`` unless ``value`` is one of ``valid``."""
    valid = list(valid)
    if isinstance(value, np.bool_):  # numpy's booleans (from a sweep's arrays) as the bools they equal
        value = bool(value)
    if value not in valid or isinstance(value, bool) != isinstance(valid[0], bool):
        raise ValueError(f"{field}={value!r} is not valid; valid values: {valid}")


def check_range(field: str, value: Any, lo: int, hi: int | None = None) -> None:
    """Raise ``ValueError`` naming ``field`` unless ``lo <= value <= hi`` (an int)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{field}={value!r} must be an integer")
    if value < lo or (hi is not None and value > hi):
        upper = "" if hi is None else f" and <= {hi}"
        raise ValueError(f"{field}={value!r} is not valid; it must be >= {lo}{upper}")


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number for a config field: an int, a float or a numpy number, never a bool
    (``True`` is not 1). NaN is one; the range checks that follow refuse it."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


#: the largest seed of a game (:meth:`Game.new_state`): seeds are ``0..2**63-1``, as the records'
#: ``seed`` field and the vector env take them (the kernels receive them as int64)
MAX_SEED = 2**63 - 1


def check_seed(seed: Any, count: int = 1, field: str = "seed") -> int:
    """``seed`` as an int, if it and the ``count - 1`` seeds after it (``seed + i``) are in ``0..MAX_SEED``.

    A float, a bool or anything else that is not an integer (numpy's integer types are fine) is refused,
    not truncated: ``1.5`` would otherwise play the game of seed 1.

    Raises:
        ValueError: naming ``field`` and the valid range.
    """
    top = MAX_SEED + 1 - max(int(count), 1)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= top:
        more = f" (2**63 - {count}: game i starts from seed + i)" if count > 1 else ""
        raise ValueError(f"{field}={seed!r} is not valid; it must be an integer in 0..{top}{more}")
    return int(seed)


def is_count(text: str) -> bool:
    """Whether ``text`` spells a count as a user gives one (a spec's simulations, worlds or iterations, a device
    or move index): plain ASCII digits ``0-9``, at least one, leading zeros allowed (``"0100"`` is 100).

    Every place that reads such a count from text asks this before ``int(text)``: ``str.isdigit`` alone holds
    for ``"²"``, which ``int`` refuses, and for ``"٣"``, which ``int`` reads as 3. (The numbers a record is
    keyed by have one spelling each, without leading zeros: :data:`octagames.records.NUMBER_KEY`.)
    """
    return text.isascii() and text.isdigit()


def out_of_range(checks: Iterable[tuple[str, Any, Any, Any]]) -> str:
    """``""`` if every ``(field, values, lo, hi)`` has all its entries in ``lo..hi``, else one line
    naming the first entry that does not (``"hand_len[1] = 40 is outside 0..8"``).

    For the ``check_record`` functions of the rules packages: ``values`` is an
    integer record field, a scalar or an array; ``lo`` and ``hi`` are numbers or
    arrays broadcast against it (bounds that differ by entry, e.g. unused seats).
    """
    for field, values, lo, hi in checks:
        v = np.asarray(values)
        if not ((v < lo) | (v > hi)).any():  # the common case, without building the broadcast bounds
            continue
        lo_a, hi_a = np.broadcast_to(lo, v.shape), np.broadcast_to(hi, v.shape)
        bad = np.flatnonzero((v < lo_a) | (v > hi_a))
        idx = np.unravel_index(int(bad[0]), v.shape)
        where = f"[{', '.join(str(int(i)) for i in idx)}]" if v.ndim else ""
        return f"{field}{where} = {int(v[idx])} is outside {int(lo_a[idx])}..{int(hi_a[idx])}"
    return ""


def load_module(name: str) -> ModuleType:
    """The rules module of the game with short name ``name`` (a game, not a variant: see :func:`make_game`)."""
    if name not in catalogue.games():
        raise ValueError(f"game={name!r} is not valid; valid values: {catalogue.games()}")
    return importlib.import_module(f"octagames.{name}")


def available_games() -> list[str]:
    """Short names of the games whose rules module is installed."""
    out = []
    for name in catalogue.games():
        try:
            importlib.import_module(f"octagames.{name}")
        except ModuleNotFoundError:
            continue
        out.append(name)
    return out


# --------------------------------------------------------------------------
# Tables declared once, as data: action blocks and observation layouts
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """One named block of a :class:`Layout` (a range of action ids or observation entries).

    Attributes:
        name: short name (``"swap"``, ``"hand"``); also the key of the named view.
        size: number of entries.
        meaning: one line (or a few) for the documentation table.
        shape: index shape of the block (its product is ``size``); ``()`` means ``(size,)``.
    """

    name: str
    size: int
    meaning: str
    shape: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.size < 0 or (self.shape and int(np.prod(self.shape)) != self.size):
            raise ValueError(f"block {self.name!r}: shape {self.shape} does not hold {self.size} entries")


class Layout:
    """An ordered list of :class:`Block`: offsets are derived once, documentation generated.

    One declaration serves the kernels (integer constants from :meth:`offset`),
    the strings and illegal-move reasons (:meth:`locate` finds the block of an
    action id), the docstring tables (:meth:`table`) and the named observation
    views (:meth:`views`), so the three can never disagree.

    Args:
        blocks: the blocks in order; names must be unique.
        title: the name of the indexed thing for the table header (``"action"``, ``"offset"``).
    """

    def __init__(self, blocks: Sequence[Block], title: str = "offset") -> None:
        self.blocks = tuple(blocks)
        self.title = title
        self._offsets: dict[str, int] = {}
        off = 0
        for b in self.blocks:
            if b.name in self._offsets:
                raise ValueError(f"block name {b.name!r} appears twice")
            self._offsets[b.name] = off
            off += b.size
        self.size = off
        self._starts = np.array([self._offsets[b.name] for b in self.blocks], dtype=np.int64)

    def __len__(self) -> int:
        return self.size

    def __contains__(self, name: object) -> bool:
        return name in self._offsets

    def offset(self, name: str) -> int:
        """First index of block ``name``.

        Raises:
            KeyError: no block has that name (the message lists the blocks).
        """
        self.block(name)  # an unknown name is refused there, listing the blocks
        return self._offsets[name]

    def end(self, name: str) -> int:
        """One past the last index of block ``name``.

        Raises:
            KeyError: no block has that name (the message lists the blocks).
        """
        size = self.block(name).size  # an unknown name is refused there, listing the blocks
        return self._offsets[name] + size

    def block(self, name: str) -> Block:
        """The block called ``name``.

        Raises:
            KeyError: no block has that name (the message lists the blocks).
        """
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(f"no block {name!r}; the blocks: {', '.join(b.name for b in self.blocks)}")

    def locate(self, index: int) -> tuple[Block, int]:
        """``(block, index within the block)`` of a flat index.

        Raises:
            TypeError: ``index`` is not an integer (a float is not read as the integer below it).
            IndexError: ``index`` is outside ``0..size-1``.
        """
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index {index!r} is not an integer")
        i = int(index)
        if not 0 <= i < self.size:
            raise IndexError(f"index {i} is outside 0..{self.size - 1}")
        k = int(np.searchsorted(self._starts, i, side="right")) - 1
        while self.blocks[k].size == 0 or i >= self._starts[k] + self.blocks[k].size:
            k -= 1  # never for a valid index; skips empty blocks that share an offset
        return self.blocks[k], i - int(self._starts[k])

    def views(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named views (no copies) of a flat vector, or of the last axis of a batch, by block.

        Raises:
            ValueError: the vector's last axis is not :attr:`size` long.
        """
        v = np.asarray(vector)
        if v.shape[-1] != self.size:
            raise ValueError(f"expected a last axis of {self.size} entries, got shape {v.shape}")
        out = {}
        for b in self.blocks:
            off = self._offsets[b.name]
            out[b.name] = v[..., off:off + b.size].reshape(v.shape[:-1] + (b.shape or (b.size,)))
        return out

    def table(self, width: int = 64) -> str:
        """The reStructuredText table (index, size, meaning) that module docstrings carry."""
        rows = []
        for b in self.blocks:
            off = self._offsets[b.name]
            first = str(off) if b.size <= 1 else f"{off}..{off + b.size - 1}"
            rows.append((first, str(b.size), f"``{b.name}``: {b.meaning}"))
        w0 = max(len(self.title), *(len(r[0]) for r in rows))
        w1 = max(4, *(len(r[1]) for r in rows))
        rule = f"{'=' * w0}  {'=' * w1}  {'=' * width}"
        lines = [rule, f"{self.title:<{w0}}  {'size':<{w1}}  meaning", rule]
        for first, size, meaning in rows:
            wrapped = textwrap.wrap(meaning, width) or [""]
            lines.append(f"{first:<{w0}}  {size:<{w1}}  {wrapped[0]}".rstrip())
            lines.extend(f"{'':<{w0}}  {'':<{w1}}  {more}".rstrip() for more in wrapped[1:])
        lines.append(rule)
        return "\n".join(lines)


def action_id(action: Any) -> int | None:
    """The integer id ``action`` is, or None: every face's one rule for an action.

    An id is an ``int``, a numpy integer, or a 0-d integer array or tensor (numpy's, torch's: what a policy's
    ``sample()`` gives, without ``.item()``). A bool is no id (``True`` is not action 1), nor a float, a string
    or an array of one element (``[3]`` might be one action of a batch or a batch of one).
    """
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if getattr(action, "ndim", None) == 0 and "bool" not in str(getattr(action, "dtype", "bool")):
        try:
            return operator.index(action)  # integer dtypes only: a float array or tensor raises TypeError
        except TypeError:
            return None
    return None


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the given state."""


class UnknownConfigFieldError(ValueError, TypeError):
    """A config field the game does not have: a ``ValueError`` (a bad config, the valid fields named) and a
    ``TypeError`` that says "unexpected keyword argument", as Python does for a keyword a function lacks. Tools that
    pass optional keywords to an env's constructor and retry without them on that ``TypeError`` then build our envs:
    TorchRL's ``GymEnv`` passes ``frameskip`` to ``gymnasium.make``."""


# --------------------------------------------------------------------------
# The Python face of one game + config
# --------------------------------------------------------------------------
class Game:
    """One game under one config: the policy shared by every game.

    Every method checks what crosses the boundary: an action that is not an
    integer id, a seat out of range, or a record of another game or config is
    refused with a clear error before any kernel sees it (compiled kernels do
    not check bounds). Saved records (:meth:`from_bytes`) are untrusted input:
    a format header, a checksum and the game's :func:`check_record` guard them.
    A ``Game`` pickles and deep-copies by name and config.

    Args:
        name_or_module: a variant or game name (:mod:`octagames.catalogue`: ``"octa-nl"``, ``"octrix"``
            is the seed's match to 88) or the rules module itself.
        config: a ``Config`` of that game; ``None`` builds one from the variant's fields and ``kwargs``.
            Given with a variant's name, it must keep that variant's fields (``kwargs`` may override them).
        **kwargs: config fields, when ``config`` is not given.

    Raises:
        ValueError: unknown game name, bad config field, or a ``config`` that disagrees with the
            named variant's fields (they are named).
    """

    def __init__(self, name_or_module: str | ModuleType, config: Any = None, **kwargs: Any):
        if not isinstance(name_or_module, (str, ModuleType)):
            raise ValueError(f"game={name_or_module!r} is not valid; valid values: {catalogue.names()}")
        fixed: dict[str, Any] = {}  # a named variant's own fields, which a given config must keep
        fixed_by = ""
        if isinstance(name_or_module, str):
            if config is None:  # a variant's fields under the caller's
                name_or_module, kwargs = catalogue.resolve(name_or_module, **kwargs)
            else:
                variant = catalogue.variant(name_or_module)
                if name_or_module not in catalogue.games():
                    fixed = {k: v for k, v in variant.config.items() if k not in kwargs}
                    fixed_by = name_or_module
                name_or_module = variant.game
        self.module = load_module(name_or_module) if isinstance(name_or_module, str) else name_or_module
        fields = [f.name for f in dataclasses.fields(self.module.Config)]
        unknown = sorted(set(kwargs) - set(fields))
        if unknown:
            raise UnknownConfigFieldError(f"unknown config field(s) {unknown} for {self.module.INFO.name}; "
                                          f"valid fields: {fields} (unexpected keyword argument {unknown[0]!r})")
        if config is None:
            config = self.module.Config(**kwargs)
        elif kwargs:
            config = dataclasses.replace(config, **kwargs)
        if not isinstance(config, self.module.Config):
            raise ValueError(f"config must be a {self.module.__name__}.Config, got {type(config).__name__}")
        if fixed_by:
            catalogue.variant(fixed_by).check_players(config.num_players)
        differ = [f"{k}={getattr(config, k)!r} (the variant has {v!r})" for k, v in fixed.items()
                  if getattr(config, k) != v]
        if differ:
            raise ValueError(f"the config given for variant {fixed_by!r} disagrees with it: {', '.join(differ)}; "
                             f"give the game's name ({self.module.INFO.name!r}) with that config, or the "
                             "variant's values")
        self.config = config
        self.info: GameInfo = self.module.INFO
        self.name = self.info.name
        self.num_players: int = config.num_players
        self.num_actions: int = self.info.num_actions
        self.observation_size: int = self.info.observation_size
        self.dtype: np.dtype = self.module.STATE_DTYPE
        bounds = getattr(self.module, "utility_bounds", None)
        lo_hi = bounds(config) if bounds else (self.info.min_utility, self.info.max_utility)
        self.min_utility, self.max_utility = float(lo_hi[0]), float(lo_hi[1])
        length = getattr(self.module, "max_game_length", None)
        self.max_game_length: int = int(length(config)) if length else self.info.max_game_length
        hook = getattr(self.module, "kernel_module", None)
        #: what the templates of compiled code bind ``game`` to: the rules module's name, or the module
        #: its ``kernel_module(config)`` names for this config (see :mod:`octagames.specialize`)
        self.kernel_module: str = hook(config) if hook is not None else self.module.__name__
        #: the contract's kernels as cached, compiled entry points (see :mod:`octagames.specialize`)
        self.kernels = k = engine_kernels(self.kernel_module)
        self._reset, self._cur, self._act = k.reset, k.current_player, k.acting_player
        self._mask, self._apply = k.legal_mask, k.apply_action
        self._obs, self._ret, self._det = k.observation, k.returns, k.determinize
        self._co, self._sample = k.chance_outcomes, k.sample_chance
        self._config_values = _config_values(self.module, config)
        self._config_spans, self._config_bytes = _config_bytes(self.dtype, self._config_values)
        self._format_tag = _format_tag(self.name, self.dtype)
        self._earlier_tags = tuple((_format_tag(self.name, dt), dt)
                                   for dt in getattr(self.module, "EARLIER_STATE_DTYPES", ()))

    def __repr__(self) -> str:
        return f"Game({self.name!r}, {self.config})"

    def __reduce__(self) -> tuple[Any, ...]:
        # by name and config: the compiled kernels are rebuilt (from the cache) on the other side
        return (_game_from_module, (self.module.__name__, self.config))

    # -- states ---------------------------------------------------------------
    def new_batch(self, n: int, seed: int = 0) -> np.ndarray:
        """A batch of ``n`` new games; game ``i`` is seeded with ``seed + i``.

        Raises:
            ValueError: ``n`` is not an integer >= 0, or ``seed`` is not an integer (numpy's integer types
                are fine) with every ``seed + i`` in ``0..2**63-1`` (:func:`check_seed`).
        """
        check_range("n", n, 0)
        seed = check_seed(seed, int(n))
        batch = np.zeros(int(n), dtype=self.dtype)
        for i in range(int(n)):
            self.module.write_config(batch[i], self.config)
            self._reset(batch[i], seed + i)
        return batch

    def new_state(self, seed: int = 0) -> np.void:
        """A new game record (at its first chance node or first decision).

        Raises:
            ValueError: ``seed`` is not an integer in ``0..2**63-1`` (a float is refused, not truncated).
        """
        return self.new_batch(1, seed)[0]

    def clone(self, s: np.void) -> np.void:
        """An independent copy of a record (what search uses)."""
        self._check_record(s)
        return np.array(s, dtype=self.dtype).reshape(1)[0]

    def to_bytes(self, s: np.void) -> bytes:
        """Serialize a record: a header naming the game and format, the record, a checksum."""
        self._check_record(s)
        body = self._format_tag + np.asarray(s).tobytes()
        return body + hashlib.blake2b(body, digest_size=8).digest()

    def from_bytes(self, data: bytes) -> np.void:
        """Rebuild a record serialized with :meth:`to_bytes`, refusing anything else.

        Raises:
            ValueError: the data is not bytes, is too short for a saved record's header, is not a
                record of this game (or of this version of its
                record layout), was altered or truncated (checksum), belongs to another
                config, or fails :meth:`check_record` (the game's consistency checks, naming
                the field; a seat to move without a legal action; an observation or a return
                outside its declared bounds).
        """
        try:  # bytes, bytearray, memoryview or another buffer; never bytes(n), which would allocate n zeros
            view = memoryview(data)
        except TypeError:
            raise ValueError(f"data must be bytes (a record saved with Game.to_bytes), not {type(data).__name__}") \
                from None
        data = data if type(data) is bytes else view.tobytes()
        tag, size = self._format_tag, self.dtype.itemsize
        if not data.startswith(_MAGIC):
            raise ValueError("data is not a saved octagames record (no format header); "
                             "save records with Game.to_bytes")
        for earlier, layout in self._earlier_tags:  # saved by a version whose record was laid out otherwise
            if data.startswith(earlier):
                tag, size = earlier, layout.itemsize
                break
        else:
            layout = self.dtype
        if not data.startswith(tag):
            head = len(_MAGIC) + 3  # magic, format version, 0, the length of the game's name
            if len(data) < head or len(data) < head + data[head - 1] or tag.startswith(data):
                raise ValueError(f"data has {len(data)} bytes, too short for a saved record (truncated or "
                                 f"malformed); a saved {self.name} record has {len(tag) + size + 8}")
            name = data[head:head + data[head - 1]].decode(errors="replace")
            if name != self.name:
                raise ValueError(f"data holds a saved {name!r} record; this game is {self.name!r}")
            raise ValueError(f"data holds a {self.name} record of another format or record layout "
                             f"(saved by another version of octagames)")
        if len(data) != len(tag) + size + 8:
            raise ValueError(f"data has {len(data)} bytes; a saved {self.name} record has {len(tag) + size + 8}")
        body, checksum = data[:-8], data[-8:]
        if hashlib.blake2b(body, digest_size=8).digest() != checksum:
            raise ValueError("checksum mismatch: the saved record was altered or truncated")
        s = self.relayout(np.frombuffer(body[len(tag):], dtype=layout).copy()[0])
        self.check_record(s)
        return s

    def relayout(self, records: np.void | np.ndarray) -> np.void | np.ndarray:
        """Records of an earlier layout of this game's record (its module's ``EARLIER_STATE_DTYPES``:
        Octa's int32 fields before 2026-12-06, and its layout before the ``rs_*`` fields of 2026-12-07) as
        records of today's :attr:`dtype`, field by field, a field the earlier layout lacks set to 0; records
        of today's layout come back as they are. One record (``numpy.void``) or an array of them; nothing
        is checked beyond the layout (:meth:`check_record` does that).

        Raises:
            ValueError: records of another layout, or a value that the field's type today cannot hold
                (never wrapped), naming the field.
        """
        old = records.dtype if isinstance(records, (np.void, np.ndarray)) else None
        if old == self.dtype:
            return records
        if old not in [dt for _tag, dt in self._earlier_tags]:
            what = (f"records of {old.itemsize} bytes ({len(old.names or ())} fields)" if old is not None
                    else f"a {type(records).__name__}")
            raise ValueError(f"{what}: neither {self.name}'s record ({self.dtype.itemsize} bytes a record) "
                             f"nor one of its earlier layouts")
        out = np.zeros(np.shape(records), self.dtype)
        for name in self.dtype.names:
            if name not in old.names:  # a field appended since: 0, as its game's docs say
                continue
            value = np.asarray(records[name])
            out[name] = value
            if self.dtype.fields[name][0] != old.fields[name][0] and not np.array_equal(out[name], value):
                at = tuple(int(i) for i in np.argwhere(out[name] != value)[0])
                raise ValueError(f"the record's field {name!r} holds {_scalar(value[at])!r}"
                                 f"{' at ' + str(list(at)) if at else ''}, which its type today "
                                 f"({self.dtype.fields[name][0].base}) cannot hold")
        return out[()] if isinstance(records, np.void) else out

    def check_record(self, s: Any) -> None:
        """Check that ``s`` is a record of this game and config that every kernel and face can use.

        The one check of untrusted records (:meth:`from_bytes`, the vector env's ``set_state``,
        the OpenSpiel face's loading): the config (:meth:`_check_record`), then the game's own
        ``check_record`` (fields, in range and consistent, so that the kernels are safe to run),
        then what only the kernels can tell (:meth:`_check_engine`): a seat or chance to go on,
        observations inside :meth:`observation_bounds`, returns inside the utility bounds.

        Raises:
            ValueError: another game's record, another config's, or a record one of the checks
                refuses (the message names the field or the property).
        """
        self._check_record(s)
        check = getattr(self.module, "check_record", None)
        why = (check(s) if check is not None else "") or self._check_engine(s)
        if why:
            raise ValueError(f"not a valid {self.name} record: {why}")

    def _check_engine(self, s: np.void) -> str:
        """``""`` when the game can go on from ``s`` and shows only values of its declared spaces, else why not.

        Runs the kernels (on a copy), so only on a record the game's ``check_record`` passed:
        the seat to move is a seat of the game with a legal action (a chance node has outcomes
        with probabilities that sum to one); every seat's observation is finite and inside
        :meth:`observation_bounds`; the returns are finite, inside ``min_utility..max_utility``
        and sum to zero (every game is zero-sum).
        """
        k, n, c = self.kernels, self.num_players, np.array(s, dtype=self.dtype).reshape(1)[0]
        cp, act = int(k.current_player(c)), int(k.acting_player(c))
        if cp not in (CHANCE, SIMULTANEOUS, TERMINAL) and not 0 <= cp < n:
            return f"the seat to move is {cp}, not a seat of 0..{n - 1}"
        if (act != cp) if cp in (CHANCE, TERMINAL) else not (0 <= act < n and cp in (act, SIMULTANEOUS)):
            return f"the acting player is {act} where the player to move is {cp}"
        if cp == CHANCE:
            m = self.info.max_chance_outcomes
            outs, probs = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.float64)
            num = int(k.chance_outcomes(c, outs, probs))
            outs, probs = outs[:num], probs[:num]
            if not 0 < num <= m or np.any((outs < 0) | (outs >= m)) or len(set(outs.tolist())) != num \
                    or not np.all(probs > 0) or abs(probs.sum() - 1.0) > 1e-9:
                return f"a chance node with {num} possible outcomes whose probabilities do not sum to one"
        elif cp != TERMINAL:
            mask = np.zeros(self.num_actions, dtype=np.uint8)
            if int(k.legal_mask(c, act, mask)) == 0 or not mask.any():
                return f"player {act}, to move, has no legal action"
        low, high = self.observation_bounds()
        obs = np.zeros(self.observation_size, dtype=np.float32)
        for v in range(n):
            k.observation(c, v, obs)
            bad = np.flatnonzero(~(np.isfinite(obs) & (obs >= low) & (obs <= high)))
            if bad.size:
                i = int(bad[0])
                block, j = self.observation_layout.locate(i)
                return (f"player {v}'s observation has {block.name}[{j}] = {obs[i]:g}, outside its declared "
                        f"bounds {low[i]:g}..{high[i]:g}")
        ret = np.zeros(self.info.max_players, dtype=np.float64)
        k.returns(c, ret)
        ret = ret[:n]
        tol = 1e-9 * max(1.0, abs(self.min_utility), abs(self.max_utility))
        for p in range(n):
            if not self.min_utility - tol <= ret[p] <= self.max_utility + tol:
                return f"returns[{p}] = {ret[p]:g} is outside {self.min_utility:g}..{self.max_utility:g}"
        if abs(ret.sum()) > n * tol:
            return f"returns {[round(float(x), 6) for x in ret]} do not sum to zero"
        return ""

    # -- queries --------------------------------------------------------------
    def current_player(self, s: np.void) -> int:
        """A seat, or CHANCE / SIMULTANEOUS / TERMINAL."""
        self._check_record(s)
        return int(self._cur(s))

    def acting_player(self, s: np.void) -> int:
        """The seat to act when simultaneous moves are taken one at a time."""
        self._check_record(s)
        return int(self._act(s))

    def is_terminal(self, s: np.void) -> bool:
        """Whether the game is over."""
        return self.current_player(s) == TERMINAL

    def is_chance(self, s: np.void) -> bool:
        """Whether the next action is a chance outcome."""
        return self.current_player(s) == CHANCE

    def legal_mask(self, s: np.void, player: int | None = None) -> np.ndarray:
        """The legal-action mask (uint8 of length ``num_actions``) of ``player``.

        ``player`` defaults to the acting player; a seat with nothing to do gets zeros.

        Raises:
            ValueError: ``player`` is not a seat of this game.
        """
        out = np.zeros(self.num_actions, dtype=np.uint8)
        self._check_record(s)
        if player is None:
            p = int(self._act(s))
        else:
            p = self._check_player(player)
        if p >= 0:
            self._mask(s, p, out)
        return out

    def legal_actions(self, s: np.void, player: int | None = None) -> list[int]:
        """Sorted legal actions of ``player`` (default: the acting player)."""
        return np.flatnonzero(self.legal_mask(s, player)).tolist()

    def chance_outcomes(self, s: np.void) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; empty elsewhere."""
        self._check_record(s)
        acts = np.zeros(self.info.max_chance_outcomes, dtype=np.int64)
        probs = np.zeros(self.info.max_chance_outcomes, dtype=np.float64)
        n = int(self._co(s, acts, probs))
        return [(int(acts[i]), float(probs[i])) for i in range(n)]

    def observation(self, s: np.void, player: int) -> np.ndarray:
        """The information-state tensor of ``player`` (float32, ``observation_size``)."""
        self._check_record(s)
        p = self._check_player(player)
        out = np.zeros(self.observation_size, dtype=np.float32)
        self._obs(s, p, out)
        return out

    def returns(self, s: np.void) -> np.ndarray:
        """Cumulative returns of every seat so far (float64, ``num_players``)."""
        self._check_record(s)
        out = np.zeros(self.info.max_players, dtype=np.float64)
        self._ret(s, out)
        return out[: self.num_players].copy()

    def action_to_string(self, s: np.void, action: int) -> str:
        """A readable name for ``action`` in state ``s``.

        The name of a seat's action names nothing that seat cannot see; the name of a chance outcome is
        all-seeing (the card dealt, the tile drawn): a seat that did not see the outcome must not be shown it.

        Raises:
            IllegalActionError: (a ``ValueError``) ``action`` is not an action id here: not an integer, or
                outside ``0..num_actions-1`` (at a chance node: the chance outcomes,
                ``0..max_chance_outcomes-1``).
        """
        self._check_record(s)
        a = self._action_id(action, s)
        count, what = self._ids(s)
        if not 0 <= a < count:
            raise IllegalActionError(f"action {a} is not an action id here: {what} are 0..{count - 1}")
        return self.module.action_to_string(s, a)

    def render(self, s: np.void, viewer: int | None = None) -> str:
        """Text rendering; with ``viewer`` only what that seat can see."""
        self._check_record(s)
        return self.module.render(s, None if viewer is None else self._check_player(viewer))

    # -- changes --------------------------------------------------------------
    def apply_action(self, s: np.void, action: int) -> None:
        """Apply ``action`` for the acting player (or chance) in place.

        The compiled kernel checks legality itself and leaves ``s`` untouched
        when it refuses; only then is the (slower) explanation built.

        Raises:
            IllegalActionError: the action is not legal here (or not an action id at
                all: a float, a bool, ``None``, a string); ``s`` is unchanged.
            ValueError: ``s`` is not a record of this game and config, or is read-only.
        """
        self._check_writeable(s)
        a = self._action_id(action, s)
        if 0 <= a < max(self.num_actions, self.info.max_chance_outcomes) and self._apply(s, a):
            return
        p = int(self._act(s))
        if p == TERMINAL:
            raise IllegalActionError(f"action {a} cannot be applied: the game is over")
        if p == CHANCE:
            outs = sorted(dict(self.chance_outcomes(s)))
            raise IllegalActionError(f"chance outcome {a} is not possible here; possible outcomes: {outs}")
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"player {p} cannot play action {a} (out of range): "
                                     f"actions are 0..{self.num_actions - 1}")
        reason = self.module.illegal_reason(s, p, a)
        raise IllegalActionError(f"player {p} cannot play action {a} ({self.module.action_to_string(s, a)}): "
                                 f"{reason}")

    def sample_chance(self, s: np.void) -> int:
        """Draw a chance outcome with the RNG carried in ``s`` (advances it).

        Returns:
            A possible outcome of the chance node ``s`` is at.

        Raises:
            ValueError: ``s`` is not at a chance node (a player acts or the game is over);
                the record, its RNG included, is unchanged. (The compiled kernel returns -1
                there without drawing.) Also: ``s`` is read-only (it would draw).
        """
        self._check_writeable(s)
        p = int(self._cur(s))
        if p != CHANCE:
            who = {TERMINAL: "the game is over", SIMULTANEOUS: "the players move simultaneously"}.get(
                p, f"player {p} is to act")
            raise ValueError(f"not a chance node: {who}; sample_chance draws only where "
                             f"current_player is CHANCE ({CHANCE})")
        return int(self._sample(s))

    def play_chance(self, s: np.void) -> None:
        """Resolve chance nodes with the record's RNG until a player acts or the game ends.

        Raises:
            ValueError: ``s`` is not a record of this game and config, or is read-only.
        """
        self._check_writeable(s)
        self.kernels.play_chance(s)

    def determinize(self, s: np.void, player: int, seed: int) -> np.void:
        """A copy of ``s`` with everything ``player`` cannot see resampled (its RNG reseeded with ``seed``).

        Raises:
            ValueError: a bad seat, a record of another game or config, or ``seed`` not an integer in
                ``0..2**63-1`` (:func:`check_seed`).
        """
        p = self._check_player(player)
        c = self.clone(s)
        self._det(c, p, check_seed(seed))
        return c

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Elementwise ``(low, high)`` bounds of the observation tensor under this config."""
        fn = getattr(self.module, "observation_bounds", None)
        if fn is not None:
            low, high = fn(self.config)
        else:
            low, high = 0.0, 1.0
        size = self.observation_size
        return (np.broadcast_to(np.asarray(low, np.float32), (size,)),
                np.broadcast_to(np.asarray(high, np.float32), (size,)))

    @property
    def earlier_observation_sizes(self) -> tuple[int, ...]:
        """Observation sizes of earlier versions of this game whose entries lead today's (the module's
        ``EARLIER_OBS_SIZES``; empty for most games): a network trained on one reads that prefix."""
        return tuple(int(n) for n in getattr(self.module, "EARLIER_OBS_SIZES", ()))

    def reads_observation(self, size: int) -> bool:
        """Whether a network of ``size`` inputs reads this game's observation: today's size, or an earlier
        version's (:attr:`earlier_observation_sizes`), whose entries lead today's."""
        return size == self.observation_size or size in self.earlier_observation_sizes

    @property
    def observation_layout(self) -> Layout:
        """The observation's blocks under this config (``obs_layout(config)``, else ``OBS_LAYOUT``)."""
        fn = getattr(self.module, "obs_layout", None)
        return fn(self.config) if fn is not None else self.module.OBS_LAYOUT

    @property
    def action_layout(self) -> Layout:
        """The action table's blocks under this config (``action_layout(config)``, else ``ACTIONS``)."""
        fn = getattr(self.module, "action_layout", None)
        return fn(self.config) if fn is not None else self.module.ACTIONS

    def observation_views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an observation (or a batch of them), one per block of :attr:`observation_layout`.

        Raises:
            ValueError: the observation has the wrong length.
        """
        return self.observation_layout.views(obs)

    def apply_actions(self, s: np.void, actions: Sequence[int]) -> None:
        """Apply a sequence of actions (chance outcomes included) in order, all or none.

        Raises:
            IllegalActionError: (a ``ValueError``) an action that cannot be played where it comes, naming it
                and the rule (:meth:`apply_action`), with its place in the sequence; ``s`` is left as it was
                before the first action (until 2026-12-07 the actions before it stayed applied).
        """
        before = self.clone(s)
        for i, a in enumerate(actions):
            try:
                self.apply_action(s, a)
            except IllegalActionError as e:
                for name in self.dtype.names:  # the record as it was (a record is a view: field by field)
                    s[name] = before[name]
                raise IllegalActionError(f"actions[{i}]: {e}; no action of the sequence was applied") from None

    # -- boundary checks ------------------------------------------------------
    def _check_player(self, player: Any) -> int:
        if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)) \
                or not 0 <= int(player) < self.num_players:
            raise ValueError(f"player={player!r} is not valid; valid values: 0..{self.num_players - 1}")
        return int(player)

    def _ids(self, s: np.void) -> tuple[int, str]:
        """How many ids name something at ``s``, and what they are: the chance outcomes at a chance node,
        else the actions."""
        if int(self._cur(s)) == CHANCE:
            return self.info.max_chance_outcomes, "chance outcomes"
        return self.num_actions, "actions"

    def _action_id(self, action: Any, s: np.void) -> int:
        a = action_id(action)
        if a is None:
            raise IllegalActionError(f"action {action!r} is not an action id: actions are integers "
                                     f"0..{self._ids(s)[0] - 1}")
        return a

    def _check_writeable(self, s: Any) -> None:
        """:meth:`_check_record`, and refuse a read-only record (a view of ``bytes``, as ``np.frombuffer``
        gives): the kernels would write into memory that promised not to change."""
        self._check_record(s)
        if not s.flags.writeable:
            raise ValueError(f"this {self.name} record is read-only (a view of immutable memory, e.g. "
                             "np.frombuffer of bytes); play on a copy: Game.clone(s), or Game.from_bytes")

    def _check_record(self, s: Any) -> None:
        if not isinstance(s, np.void) or s.dtype != self.dtype:
            what = f"a {s.dtype} record" if isinstance(s, (np.void, np.ndarray)) else type(s).__name__
            raise ValueError(f"expected a record of {self.name} (numpy.void of its STATE_DTYPE), got {what}; "
                             f"records come from Game.new_state or Game.from_bytes")
        raw = s.tobytes()  # the fast path (every call of the API checks its record): the config's bytes
        if b"".join([raw[i:j] for i, j in self._config_spans]) == self._config_bytes:
            return
        for field, value in self._config_values:  # differing bytes may still be equal values (-0.0)
            if not np.array_equal(s[field], value):
                raise ValueError(f"this record was made under another {self.name} config "
                                 f"({field}={_scalar(s[field])!r}, this game has {_scalar(value)!r}); "
                                 f"use Game({self.name!r}, ...) with that record's config")


_MAGIC = b"OCTG"
_FORMAT_VERSION = 1


def _format_tag(name: str, dtype: np.dtype) -> bytes:
    """Header of a saved record: magic, format version, game name, a digest of the record layout."""
    layout = hashlib.blake2b(str(dtype.descr).encode(), digest_size=8).digest()
    return _MAGIC + bytes([_FORMAT_VERSION, 0, len(name)]) + name.encode() + layout


def _config_values(module: ModuleType, config: Any) -> tuple[tuple[str, np.ndarray], ...]:
    """The record fields that hold ``config`` (``CONFIG_FIELDS``), with their values under it."""
    names = getattr(module, "CONFIG_FIELDS", None)
    if names is None:  # by default every config field the record stores under the same name
        names = [f.name for f in dataclasses.fields(module.Config) if f.name in module.STATE_DTYPE.names]
    rec = np.zeros(1, module.STATE_DTYPE)[0]
    module.write_config(rec, config)
    return tuple((f, np.array(rec[f])) for f in names)


def _config_bytes(dtype: np.dtype, values: tuple[tuple[str, np.ndarray], ...]
                  ) -> tuple[tuple[tuple[int, int], ...], bytes]:
    """Where the config fields lie in a record's bytes (start, end), and their bytes under the config."""
    spans = tuple((dtype.fields[f][1], dtype.fields[f][1] + dtype.fields[f][0].itemsize) for f, _ in values)
    return spans, b"".join(np.asarray(v, dtype.fields[f][0].base).tobytes() for f, v in values)


def _scalar(v: Any) -> Any:
    v = np.asarray(v)
    return v.item() if v.ndim == 0 else v.tolist()


def _game_from_module(module: str, config: Any) -> "Game":
    return Game(importlib.import_module(module), config)


def make_game(name: str, **config: Any) -> Game:
    """Build a :class:`Game` from a variant name and config fields: the one ``make_game`` of the package.

    Args:
        name: a variant of the catalogue (``"octrix"``, the seed's match to 88; ``"octrix-round"``;
            ``"octa-nl"``; ``octagames list`` prints them) or a game's short name (its seed variant).
        **config: fields of the game's ``Config`` over the variant's (``num_players=3``, ...).

    Returns:
        The game bound to its config.

    Raises:
        ValueError: an unknown game, an unknown config field (the valid names are
            listed; :class:`UnknownConfigFieldError`, also a ``TypeError``) or a bad config value (naming the
            field and the valid values).
    """
    return Game(name, **config)
