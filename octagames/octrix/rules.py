"""Octrix rules engine (seed: Eugen Oker's *Spielregel für OCTRIX*).

A trick-taking game for 2-4 players with open hands and simultaneous play.
Every player holds eight cards of a 32-card deck (ace = 1 up to 8, four
suits); the hands are open. In each of the eight tricks of a round every
player plays one card at the same time. The first trick goes to the highest
card. From then on, the previous trick's highest and lowest cards decide:
same colour (red ♦♥, black ♠♣) -> the highest card wins, different colours ->
the lowest card wins. The winner of trick *k* takes counting card *k*; a
maximal run of consecutive counting cards of length L scores L². The first
player to 88 points wins the match. In the 4-player partnership game
(seats 0+2 against 1+3) the dealer and their left neighbour play first,
simultaneously and face up, then the other two.

Cards and actions
-----------------
Action ``a`` in 0..31 is the card of rank ``a // 4 + 1`` and suit ``a % 4``
with suits ordered ♦, ♥, ♠, ♣ (the seed's order, weakest first), so a larger
index is always a stronger card::

    a:    0   1   2   3   4   5   6   7  ...  28  29  30  31
    card ♦A  ♥A  ♠A  ♣A  ♦2  ♥2  ♠2  ♣2  ...  ♦8  ♥8  ♠8  ♣8

Chance outcomes use the same ids: outcome ``c`` deals card ``c`` to the next
seat (cards are dealt one at a time, starting left of the dealer;
:func:`deal_outcomes` turns given hands into that sequence). ``ACTIONS``:

======  ====  ================================================================
action  size  meaning
======  ====  ================================================================
0..31   32    ``card``: card a: rank a // 4 + 1 (ace = 1), suit a % 4 (♦ ♥ ♠
              ♣); played, or at a chance node dealt to the next seat
======  ====  ================================================================

State (``STATE_DTYPE``)
-----------------------
``owner[c]`` is the seat holding card ``c`` (-1: not in a hand).
``trick_cards[t, p]`` is the card seat ``p`` played in trick ``t`` (-1: none
yet). A card committed in the open trick but not yet revealed is stored there
too; observations hide it from the other seats until its group is complete.
Every card of the deck is in exactly one place: a hand, ``trick_cards``, or
set aside (never dealt).

Observation (information state of one seat; seats are relative, 0 = self)
-------------------------------------------------------------------------
``OBS_LAYOUT`` (named views: ``Game.observation_views``):

========  ====  ================================================================
offset    size  meaning
========  ====  ================================================================
0..127    128   ``hands``: ``[q, c]``: card c is in the hand of relative seat q;
                a hidden committed card still counts as in its owner's hand
128..383  256   ``played_trick``: ``[c, t]``: card c was played in trick t
384..511  128   ``played_by``: ``[c, q]``: card c was played by relative seat q
512..639  128   ``table``: ``[q, c]``: c lies face up in the open trick for seat
                q (own committed card included)
640..643  4     ``pending``: relative seat q still has to play in this step
644..651  8     ``trick``: trick number (one-hot)
652       1     ``high_wins``: 1 if the highest card wins the open trick, 0 if
                the lowest
653..684  32    ``won``: ``[t, q]``: relative seat q won trick t (its counting
                card)
685..688  4     ``round_points``: round points so far (partners pooled), / 64
689..692  4     ``scores``: match scores, / target
693..695  3     ``num_players``: number of players (one-hot 2, 3, 4)
696       1     ``partnership``: partnership game
697..700  4     ``dealer``: dealer (relative seat, one-hot)
701..732  32    ``deck``: cards of the deck in use (reduced decks have fewer)
733       1     ``match``: match mode (1) or single round (0)
========  ====  ================================================================
Total 734 floats. Everything in it is public except the seat's own committed
card, so it is the exact information state of the current round (perfect
recall); earlier rounds of a match enter only through the scores, which is
all of them that matters for the rest of the match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numba as nb
import numpy as np

from octagames.core import (CHANCE, SIMULTANEOUS, TERMINAL, Block, GameInfo, Layout, check_choice,
                            check_range, nth_bit, out_of_range, rng_below, seed_rng)
from octagames.record_checks import replay_end, sole_leader

# ---------------------------------------------------------------- static facts
NUM_SUITS = 4
MAX_RANKS = 8
NUM_CARDS = NUM_SUITS * MAX_RANKS  # 32
MAX_PLAYERS = 4
MAX_TRICKS = 8
DEFAULT_MAX_ROUNDS = 64
SUIT_SYMBOLS = "♦♥♠♣"
RANK_NAMES = "A2345678"

# The action table and the observation layout, declared once (the docstring tables are generated
# from them, the kernels read the offsets below, the strings look up the block of an action).
ACTIONS = Layout([
    Block("card", NUM_CARDS, "card a: rank a // 4 + 1 (ace = 1), suit a % 4 (♦ ♥ ♠ ♣); "
          "played, or at a chance node dealt to the next seat", (MAX_RANKS, NUM_SUITS)),
], title="action")
OBS_LAYOUT = Layout([
    Block("hands", MAX_PLAYERS * NUM_CARDS, "``[q, c]``: card c is in the hand of relative seat q; a "
          "hidden committed card still counts as in its owner's hand", (MAX_PLAYERS, NUM_CARDS)),
    Block("played_trick", NUM_CARDS * MAX_TRICKS, "``[c, t]``: card c was played in trick t",
          (NUM_CARDS, MAX_TRICKS)),
    Block("played_by", NUM_CARDS * MAX_PLAYERS, "``[c, q]``: card c was played by relative seat q",
          (NUM_CARDS, MAX_PLAYERS)),
    Block("table", MAX_PLAYERS * NUM_CARDS, "``[q, c]``: c lies face up in the open trick for seat q "
          "(own committed card included)", (MAX_PLAYERS, NUM_CARDS)),
    Block("pending", MAX_PLAYERS, "relative seat q still has to play in this step"),
    Block("trick", MAX_TRICKS, "trick number (one-hot)"),
    Block("high_wins", 1, "1 if the highest card wins the open trick, 0 if the lowest"),
    Block("won", MAX_TRICKS * MAX_PLAYERS, "``[t, q]``: relative seat q won trick t (its counting card)",
          (MAX_TRICKS, MAX_PLAYERS)),
    Block("round_points", MAX_PLAYERS, "round points so far (partners pooled), / 64"),
    Block("scores", MAX_PLAYERS, "match scores, / target"),
    Block("num_players", 3, "number of players (one-hot 2, 3, 4)"),
    Block("partnership", 1, "partnership game"),
    Block("dealer", MAX_PLAYERS, "dealer (relative seat, one-hot)"),
    Block("deck", NUM_CARDS, "cards of the deck in use (reduced decks have fewer)"),
    Block("match", 1, "match mode (1) or single round (0)"),
])
O_HANDS, O_PTRICK = OBS_LAYOUT.offset("hands"), OBS_LAYOUT.offset("played_trick")
O_PBY, O_TABLE = OBS_LAYOUT.offset("played_by"), OBS_LAYOUT.offset("table")
O_PENDING, O_TRICK = OBS_LAYOUT.offset("pending"), OBS_LAYOUT.offset("trick")
O_HIGH, O_WON = OBS_LAYOUT.offset("high_wins"), OBS_LAYOUT.offset("won")
O_RPTS, O_SCORES = OBS_LAYOUT.offset("round_points"), OBS_LAYOUT.offset("scores")
O_NPLAYERS, O_PART = OBS_LAYOUT.offset("num_players"), OBS_LAYOUT.offset("partnership")
O_DEALER, O_DECK, O_MATCH = OBS_LAYOUT.offset("dealer"), OBS_LAYOUT.offset("deck"), OBS_LAYOUT.offset("match")
OBS_SIZE = OBS_LAYOUT.size  # 734
NUM_ACTIONS = ACTIONS.size  # 32

INFO = GameInfo(
    name="octrix",
    min_players=2,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    observation_size=OBS_SIZE,
    # a match: up to max_rounds rounds of (32 deals + 32 plays)
    max_game_length=DEFAULT_MAX_ROUNDS * 2 * NUM_CARDS,
    min_utility=-float(MAX_TRICKS * MAX_TRICKS),
    max_utility=float(MAX_TRICKS * MAX_TRICKS),
    chance_mode="explicit",
    dynamics="simultaneous",
    information="perfect",
)

STATE_DTYPE = np.dtype([
    ("rng", np.uint64),          # RNG carried by the record (splitmix64)
    # -- config
    ("num_players", np.int8),
    ("partnership", np.int8),    # 4 players, seats 0+2 vs 1+3
    ("match", np.int8),          # 1: play to target; 0: one round
    ("ranks", np.int8),          # ranks per suit (deck = 4 * ranks cards)
    ("hand_size", np.int8),      # cards per hand = tricks per round
    ("target", np.int16),        # match target score
    ("max_rounds", np.int16),    # engine cap on rounds in a match (a truncation after)
    ("first_dealer", np.int8),   # the config's dealer, where every reset starts
    # -- progress
    ("round", np.int16),         # rounds completed in this match
    ("dealer", np.int8),
    ("dealt", np.int8),          # cards dealt so far in this round
    ("trick", np.int8),          # open trick 0..hand_size-1
    ("stage", np.int8),          # partnership: 0 first pair plays, 1 second pair
    ("high_wins", np.int8),      # open trick is won by the highest (1) or lowest (0) card
    ("terminal", np.int8),
    ("winner", np.int8),         # match winner's seat (partnership: lower seat of the team), -1 none
    ("owner", np.int8, (NUM_CARDS,)),
    ("trick_cards", np.int8, (MAX_TRICKS, MAX_PLAYERS)),
    ("trick_winner", np.int8, (MAX_TRICKS,)),
    ("round_points", np.int16, (MAX_PLAYERS,)),  # this round, partners pooled
    ("scores", np.int32, (MAX_PLAYERS,)),        # match totals, partners pooled
    ("returns", np.float64, (MAX_PLAYERS,)),
    ("moves", np.int32),         # actions applied (chance included)
])


@dataclass(frozen=True)
class Config:
    """Octrix configuration.

    Attributes:
        num_players: seats, 2 to 4.
        partnership: 4-player team game (seats 0+2 against 1+3, the dealer's
            pair plays first face up).
        match: play rounds until a player reaches ``target`` (True, the
            default: the seed's game, variant ``octrix``), or a single round
            (False, variant ``octrix-round``).
        target: match target score (the seed's 88).
        ranks: ranks per suit, 1..8 (8 = the full 32-card deck); smaller decks
            make small games for solvers.
        hand_size: cards per hand and tricks per round, 1..8;
            ``num_players * hand_size`` must not exceed ``4 * ranks``.
        dealer: seat of the first dealer.
        max_rounds: engine cap on the rounds of a match; if no winner by then
            the match stops, all returns 0, as a truncation (``truncated``).
    """

    num_players: int = 2
    partnership: bool = False
    match: bool = True
    target: int = 88
    ranks: int = MAX_RANKS
    hand_size: int = MAX_TRICKS
    dealer: int = 0
    max_rounds: int = DEFAULT_MAX_ROUNDS

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, 2, MAX_PLAYERS)
        check_choice("partnership", self.partnership, [False, True])
        check_choice("match", self.match, [False, True])
        check_range("target", self.target, 1, 10000)
        check_range("ranks", self.ranks, 1, MAX_RANKS)
        check_range("hand_size", self.hand_size, 1, MAX_TRICKS)
        check_range("dealer", self.dealer, 0, self.num_players - 1)
        check_range("max_rounds", self.max_rounds, 1, 10000)
        if self.partnership and self.num_players != 4:
            raise ValueError(f"partnership=True needs num_players=4, got num_players={self.num_players}")
        if self.num_players * self.hand_size > NUM_SUITS * self.ranks:
            raise ValueError(
                f"hand_size={self.hand_size} is not valid with num_players={self.num_players} and "
                f"ranks={self.ranks}: at most {NUM_SUITS * self.ranks // self.num_players} cards per hand")


def utility_bounds(config: Config) -> tuple[float, float]:
    """Lowest and highest return of a seat under ``config``."""
    sides = 2 if config.partnership else config.num_players
    if config.match:
        return -1.0 / (sides - 1), 1.0
    most = float(config.hand_size * config.hand_size)  # one run of every counting card
    return -most / (sides - 1), most


def observation_bounds(config: Config) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise bounds of the observation under ``config``.

    Everything is in [0, 1] except the match scores (score / target), which can
    pass 1 in the last round and keep growing while the top is tied.
    """
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    if config.match:
        most = config.max_rounds * config.hand_size * config.hand_size / config.target
        high[O_SCORES:O_SCORES + MAX_PLAYERS] = max(1.0, most)
    return low, high


def all_seats_act(config: Config) -> bool:
    """Whether every seat plays in every step: yes, except in the partnership game (pairs in turn)."""
    return not config.partnership


def max_game_length(config: Config) -> int:
    """Most actions (deals included) a game under ``config`` can take."""
    per_round = 2 * config.num_players * config.hand_size
    return per_round * (config.max_rounds if config.match else 1)


# record fields fixed by the config (its ``dealer`` is ``first_dealer``; the record's ``dealer`` moves)
CONFIG_FIELDS = ("num_players", "partnership", "match", "target", "ranks", "hand_size", "max_rounds", "first_dealer")


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["num_players"] = config.num_players
    s["partnership"] = int(config.partnership)
    s["match"] = int(config.match)
    s["target"] = config.target
    s["ranks"] = config.ranks
    s["hand_size"] = config.hand_size
    s["first_dealer"] = config.dealer
    s["dealer"] = config.dealer
    s["max_rounds"] = config.max_rounds


def card_name(c: int) -> str:
    """``♣8`` style name of card ``c``."""
    return SUIT_SYMBOLS[c % 4] + RANK_NAMES[c // 4]


# ---------------------------------------------------------------- kernels
@nb.njit
def _new_round(s) -> None:
    s["dealt"] = 0
    s["trick"] = 0
    s["stage"] = 0
    s["high_wins"] = 1  # trick 1 always goes to the highest card
    s["owner"][:] = -1
    s["trick_cards"][:, :] = -1
    s["trick_winner"][:] = -1
    s["round_points"][:] = 0


@nb.njit
def reset(s, seed) -> None:
    """Start a new match (or round) in ``s``, keeping its config: the config's dealer deals first."""
    seed_rng(s, seed)
    s["dealer"] = s["first_dealer"]
    s["round"] = 0
    s["terminal"] = 0
    s["winner"] = -1
    s["scores"][:] = 0
    s["returns"][:] = 0.0
    s["moves"] = 0
    _new_round(s)


@nb.njit
def _deal_size(s) -> int:
    return int(s["num_players"]) * int(s["hand_size"])


@nb.njit
def in_group(s, p) -> bool:
    """Whether seat ``p`` plays in the current simultaneous step."""
    if int(s["partnership"]) == 0:
        return True
    rel = (p - int(s["dealer"]) + 4) % 4
    return (rel < 2) == (int(s["stage"]) == 0)


@nb.njit
def is_pending(s, p) -> bool:
    """Whether seat ``p`` still has to play in the current simultaneous step."""
    return in_group(s, p) and s["trick_cards"][int(s["trick"]), p] < 0


@nb.njit
def current_player(s) -> int:
    """CHANCE while dealing, SIMULTANEOUS while a trick is played, TERMINAL at the end."""
    if int(s["terminal"]):
        return TERMINAL
    if int(s["dealt"]) < _deal_size(s):
        return CHANCE
    return SIMULTANEOUS


@nb.njit
def acting_player(s) -> int:
    """The lowest pending seat at a simultaneous step (moves taken in turn)."""
    cp = current_player(s)
    if cp != SIMULTANEOUS:
        return cp
    for p in range(int(s["num_players"])):
        if is_pending(s, p):
            return p
    return TERMINAL  # unreachable in a consistent record


@nb.njit
def legal_mask(s, player, out) -> int:
    """Cards ``player`` may play now: any card of their hand if they are pending."""
    out[:] = 0
    if current_player(s) != SIMULTANEOUS or not is_pending(s, player):
        return 0
    n = 0
    for c in range(NUM_CARDS):  # every entry stored, no branch: which cards a hand holds is random
        mine = int(s["owner"][c]) == player
        out[c] = mine
        n += mine
    return n


@nb.njit
def chance_outcomes(s, actions, probs) -> int:
    """Undealt cards, uniformly, while dealing."""
    if current_player(s) != CHANCE:
        return 0
    deck = NUM_SUITS * int(s["ranks"])
    n = 0
    for c in range(deck):
        if int(s["owner"][c]) < 0:
            actions[n] = c
            n += 1
    for i in range(n):
        probs[i] = 1.0 / n
    return n


_U1 = np.uint64(1)


@nb.njit(inline="always")
def _undealt(s, deck):
    """The cards of the deck in no hand, as a uint64 bit set (bit c: card c); while dealing, the undealt ones."""
    free = np.uint64(0)
    for c in range(NUM_CARDS):
        free |= np.uint64(int(s["owner"][c]) < 0) << np.uint64(c)
    return free & ((_U1 << np.uint64(deck)) - _U1)


@nb.njit
def sample_chance(s) -> int:
    """Draw an undealt card with the record's RNG (-1 without drawing if not dealing): the ``k``-th undealt
    card in deck order, ``k`` uniform below the number undealt."""
    if current_player(s) != CHANCE:
        return -1
    deck = NUM_SUITS * int(s["ranks"])
    k = np.int64(rng_below(s, deck - int(s["dealt"])))  # rng_below is unsigned: int64 keeps the bit arithmetic
    return nth_bit(_undealt(s, deck), k)


@nb.njit
def settle_chance(s) -> None:
    """Deal the rest of the round: the record ends exactly as after ``apply_action(s, sample_chance(s))`` while
    dealing (the same draws of the RNG, cards and seats), with the undealt cards held as a bit set between the
    cards instead of read back from ``owner`` for each. Does nothing unless dealing."""
    if current_player(s) != CHANCE:
        return
    n = int(s["num_players"])
    size = _deal_size(s)
    dealt = int(s["dealt"])
    deck = NUM_SUITS * int(s["ranks"])
    free = _undealt(s, deck)
    seat = (int(s["dealer"]) + 1 + dealt) % n
    for k in range(dealt, size):
        c = nth_bit(free, np.int64(rng_below(s, deck - k)))
        free ^= _U1 << np.uint64(c)
        s["owner"][c] = seat
        seat = seat + 1 if seat + 1 < n else 0
    s["dealt"] = size
    s["moves"] += size - dealt


@nb.njit
def side_of(s, p) -> int:
    """Scoring side of seat ``p`` (its team in the partnership game)."""
    return p % 2 if int(s["partnership"]) else p


@nb.njit
def run_points(won) -> int:
    """Sum of L² over the maximal runs of True in ``won`` (counting cards 1..k)."""
    total = 0
    run = 0
    for k in range(won.shape[0]):
        if won[k]:
            run += 1
        else:
            total += run * run
            run = 0
    return total + run * run


#: ``RUN_POINTS[m]``: the points of the counting cards whose bits are set in ``m`` (runs squared, bit t: card t + 1):
#: :func:`run_points` of each bit set, uncompiled (nothing is compiled at import)
_run_points_py = getattr(run_points, "py_func", run_points)  # the plain function (NUMBA_DISABLE_JIT: itself)
RUN_POINTS = np.array([_run_points_py((m >> np.arange(MAX_TRICKS)) & 1) for m in range(1 << MAX_TRICKS)],
                      dtype=np.int64)


@nb.njit(inline="always")
def _tricks_won(s) -> int:
    """The tricks every seat won this round, packed: bit ``8 * p + t`` is set when seat ``p`` won trick ``t``."""
    won = 0
    for t in range(int(s["hand_size"])):  # no branch per trick
        w = int(s["trick_winner"][t])
        won |= int(w >= 0) << (MAX_TRICKS * max(w, 0) + t)
    return won


@nb.njit(inline="always")
def _side_points(s, won, side) -> int:
    """Points of ``side`` from the packed tricks of :func:`_tricks_won` (its runs of counting cards, squared)."""
    bits = (won >> (MAX_TRICKS * side)) & 0xFF
    if int(s["partnership"]):  # the side's two seats: side and side + 2
        bits |= (won >> (MAX_TRICKS * (side + 2))) & 0xFF
    return RUN_POINTS[bits]


@nb.njit
def round_points_of_side(s, side) -> int:
    """Points of ``side`` from the counting cards won so far this round (runs squared)."""
    return _side_points(s, _tricks_won(s), side)


@nb.njit
def _finish_round(s) -> None:
    n = int(s["num_players"])
    nsides = 2 if int(s["partnership"]) else n
    won = _tricks_won(s)  # the round's tricks, packed once for every seat
    for p in range(n):
        s["round_points"][p] = _side_points(s, won, side_of(s, p))
    pts = s["round_points"]  # seat `side` belongs to side `side` in both modes
    if int(s["match"]) == 0:
        s["terminal"] = 1
        for p in range(n):
            mine = pts[side_of(s, p)]
            others = 0.0
            for side in range(nsides):
                if side != side_of(s, p):
                    others += pts[side]
            s["returns"][p] = mine - others / (nsides - 1)
        return
    for p in range(n):
        s["scores"][p] += pts[side_of(s, p)]
    s["round"] += 1
    best = -1
    best_side = -1
    count = 0
    for side in range(nsides):
        v = int(s["scores"][side])  # seat `side` belongs to side `side` in both modes
        if v > best:
            best, best_side, count = v, side, 1
        elif v == best:
            count += 1
    if best >= int(s["target"]) and count == 1:
        s["terminal"] = 1
        s["winner"] = best_side
        for p in range(n):
            if side_of(s, p) == best_side:
                s["returns"][p] = 1.0
            else:
                s["returns"][p] = -1.0 / (nsides - 1)
        return
    if int(s["round"]) >= int(s["max_rounds"]):
        s["terminal"] = 1  # engine cap: a truncation (``truncated``), all returns stay 0
        return
    s["dealer"] = (int(s["dealer"]) + 1) % n
    _new_round(s)


@nb.njit
def _resolve_trick(s) -> None:
    n = int(s["num_players"])
    t = int(s["trick"])
    hi = -1
    lo = NUM_CARDS
    for p in range(n):
        c = int(s["trick_cards"][t, p])
        hi = max(hi, c)
        lo = min(lo, c)
    wanted = hi if int(s["high_wins"]) else lo
    for p in range(n):
        if int(s["trick_cards"][t, p]) == wanted:
            s["trick_winner"][t] = p
    # the colour of this trick's highest and lowest card rules the next trick
    s["high_wins"] = 1 if (hi % 4) // 2 == (lo % 4) // 2 else 0
    s["trick"] = t + 1
    s["stage"] = 0
    if t + 1 == int(s["hand_size"]):
        _finish_round(s)


@nb.njit
def apply_action(s, action) -> bool:
    """Apply a chance outcome or the acting seat's card; False if illegal (``s`` untouched)."""
    cp = current_player(s)
    if action < 0 or action >= NUM_CARDS:
        return False
    if cp == CHANCE:
        if action >= NUM_SUITS * int(s["ranks"]) or int(s["owner"][action]) >= 0:
            return False
        n = int(s["num_players"])
        s["owner"][action] = (int(s["dealer"]) + 1 + int(s["dealt"])) % n
        s["dealt"] += 1
        s["moves"] += 1
        return True
    if cp != SIMULTANEOUS:
        return False
    p = acting_player(s)
    if int(s["owner"][action]) != p:
        return False
    s["owner"][action] = -1
    s["trick_cards"][int(s["trick"]), p] = action
    s["moves"] += 1
    for q in range(int(s["num_players"])):
        if is_pending(s, q):
            return True
    if int(s["partnership"]) and int(s["stage"]) == 0:
        s["stage"] = 1
    else:
        _resolve_trick(s)
    return True


@nb.njit
def truncated(s) -> bool:
    """Whether a match stopped at its round cap (``max_rounds``, an engine bound for solvers, not a rule of the
    seed) with nobody its winner, rather than by the rules ("Wer zuerst 88 Punkte erreicht hat, gewinnt")."""
    return s["terminal"] != 0 and s["match"] != 0 and s["winner"] < 0


@nb.njit
def returns(s, out) -> None:
    """Cumulative returns (zero until the end)."""
    for p in range(int(s["num_players"])):
        out[p] = s["returns"][p]


@nb.njit
def card_visible(s, card_owner, viewer) -> bool:
    """Whether the card ``card_owner`` put in the open trick is face up for ``viewer``."""
    if card_owner == viewer:
        return True
    if int(s["partnership"]) and int(s["stage"]) == 1:
        # the dealer's pair played face up before the second pair
        return not in_group(s, card_owner)
    return False


@nb.njit(inline="always")
def _rel(p, player, n):
    # relative seat without an integer division (this sits in the hottest loop)
    q = p - player
    return q + n if q < 0 else q


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s information state (layout in the module docstring)."""
    out[:] = 0.0
    n = int(s["num_players"])
    h = int(s["hand_size"])
    t_open = int(s["trick"])
    for q in range(n):  # every entry of each hand's row, no branch per card: a vector compare of the owners
        p = q + player
        p = p - n if p >= n else p
        for c in range(NUM_CARDS):
            out[O_HANDS + q * NUM_CARDS + c] = 1.0 if int(s["owner"][c]) == p else 0.0
    for t in range(min(t_open, h)):  # the tricks played
        for p in range(n):
            c = int(s["trick_cards"][t, p])
            if c >= 0:
                out[O_PTRICK + c * MAX_TRICKS + t] = 1.0
                out[O_PBY + c * MAX_PLAYERS + _rel(p, player, n)] = 1.0
    for t in range(t_open, h):  # the open trick (the later ones hold no card)
        for p in range(n):
            c = int(s["trick_cards"][t, p])
            if c < 0:
                continue
            q = _rel(p, player, n)
            if card_visible(s, p, player):
                out[O_TABLE + q * NUM_CARDS + c] = 1.0
            else:  # committed face down: still in its owner's hand for this viewer
                out[O_HANDS + q * NUM_CARDS + c] = 1.0
    if current_player(s) == SIMULTANEOUS:
        for p in range(n):
            if is_pending(s, p):
                out[O_PENDING + _rel(p, player, n)] = 1.0
        out[O_TRICK + t_open] = 1.0
    out[O_HIGH] = float(int(s["high_wins"]))
    for t in range(min(t_open, h)):
        w = int(s["trick_winner"][t])
        if w >= 0:
            out[O_WON + t * MAX_PLAYERS + _rel(w, player, n)] = 1.0
    won = _tricks_won(s)
    for p in range(n):
        q = _rel(p, player, n)
        if t_open < h or int(s["terminal"]):
            out[O_RPTS + q] = _side_points(s, won, side_of(s, p)) / 64.0
        out[O_SCORES + q] = int(s["scores"][p]) / float(int(s["target"]))
    out[O_NPLAYERS + n - 2] = 1.0
    out[O_PART] = float(int(s["partnership"]))
    out[O_DEALER + _rel(int(s["dealer"]), player, n)] = 1.0
    for c in range(NUM_SUITS * int(s["ranks"])):
        out[O_DECK + c] = 1.0
    out[O_MATCH] = float(int(s["match"]))


@nb.njit
def determinize(s, player, seed) -> None:
    """Hands are open; only the other seats' face-down cards of the open trick are hidden.

    Those hidden commitments are resampled from their owners' hands (the
    commitment is a free choice, so any card of the hand is consistent), and
    the RNG is reseeded.
    """
    seed_rng(s, seed)
    if current_player(s) != SIMULTANEOUS:
        return
    t = int(s["trick"])
    for p in range(int(s["num_players"])):
        c = int(s["trick_cards"][t, p])
        if c < 0 or card_visible(s, p, player):
            continue
        # put the card back and let p commit a uniformly drawn card of the hand
        s["owner"][c] = p
        k = 0
        for d in range(NUM_CARDS):
            if int(s["owner"][d]) == p:
                k += 1
        pick = rng_below(s, k)
        for d in range(NUM_CARDS):
            if int(s["owner"][d]) == p:
                if pick == 0:
                    s["owner"][d] = -1
                    s["trick_cards"][t, p] = d
                    break
                pick -= 1


# ---------------------------------------------------------------- Python-side helpers
def _holder_seen_by(s, card: int, viewer: int) -> int:
    """The seat whose hand holds ``card`` as ``viewer`` sees it, or -1.

    A card another seat has committed face down still counts as in that seat's
    hand for ``viewer`` (as in the observation): which card was committed is
    hidden, so no string may tell it apart from the rest of that hand.
    """
    o = int(s["owner"][card])
    if o >= 0:
        return o
    if int(current_player(s)) == SIMULTANEOUS:
        t = int(s["trick"])
        for p in range(int(s["num_players"])):
            if int(s["trick_cards"][t, p]) == card and not bool(card_visible(s, p, viewer)):
                return p
    return -1


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is illegal for ``player`` in ``s``, in the rulebook's words.

    The text depends only on what ``player`` can see (a card another seat
    committed face down is named as in that seat's hand, like the rest of it).
    """
    cp = int(current_player(s))
    if cp == CHANCE:
        return "the cards are still being dealt"
    if cp == TERMINAL:
        return "the game is over"
    if not 0 <= int(action) < NUM_ACTIONS:
        return f"actions are 0..{NUM_ACTIONS - 1}"
    _block, card = ACTIONS.locate(action)
    if not bool(is_pending(s, player)):
        return f"player {player} has already played to this trick or plays later in it"
    if card >= NUM_SUITS * int(s["ranks"]):
        return f"{card_name(card)} is not in this deck (ranks={int(s['ranks'])})"
    holder = _holder_seen_by(s, card, player)
    if holder == player:
        return "the card is in your hand: the action is legal"
    if holder >= 0:
        return f"{card_name(card)} is in player {holder}'s hand; you may only play a card from your own hand"
    t_open = int(s["trick"])
    for t in range(min(t_open + 1, int(s["hand_size"]))):
        for p in range(int(s["num_players"])):
            if int(s["trick_cards"][t, p]) == card:
                when = "in this trick" if t == t_open else f"in trick {t + 1}"
                return f"{card_name(card)} was already played {when} by player {p}"
    return f"{card_name(card)} was not dealt (set aside); you may only play a card from your own hand"


def action_to_string(s, action: int) -> str:
    """``♣8`` for a card; ``deal ♣8 to P1`` at a chance node (the same for every seat)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"action {a}"
    _block, card = ACTIONS.locate(a)
    if int(current_player(s)) == CHANCE:
        n = int(s["num_players"])
        to = (int(s["dealer"]) + 1 + int(s["dealt"])) % n
        return f"deal {card_name(card)} to P{to}"
    return card_name(card)


def deal_outcomes(state, deal: Sequence[Sequence[int]]) -> list[int]:
    """Chance outcomes that deal ``deal`` from the fresh record ``state``.

    The seed's deal gives one card at a time: outcome ``k`` goes to seat
    ``(dealer + 1 + k) % num_players``, so the sequence interleaves the hands,
    starting with the player left of the dealer.

    Args:
        state: a record at the first chance node of a round.
        deal: ``deal[p]`` is the list of ``hand_size`` cards (0..4*ranks-1) of seat ``p``.

    Returns:
        The chance outcomes, in dealing order.

    Raises:
        ValueError: wrong number of hands or cards, a card that is not an
            integer or not in the deck, or a card dealt twice.
    """
    n = int(state["num_players"])
    h = int(state["hand_size"])
    deck = NUM_SUITS * int(state["ranks"])
    hands = [list(hand) for hand in deal]
    if len(hands) != n:
        raise ValueError(f"deal has {len(hands)} hands but the game has {n} players")
    seen: dict[int, int] = {}
    for p, cards in enumerate(hands):
        if len(cards) != h:
            raise ValueError(f"hand of player {p} has {len(cards)} cards; hand_size is {h}")
        for c in cards:
            if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
                raise ValueError(f"hand of player {p}: card {c!r} is not an integer card index")
            if not 0 <= c < deck:
                raise ValueError(f"hand of player {p}: card {c} is not in the deck (cards are 0..{deck - 1})")
            if int(c) in seen:
                where = "twice in that hand" if seen[int(c)] == p else f"also in the hand of player {seen[int(c)]}"
                raise ValueError(f"hand of player {p}: card {c} ({card_name(int(c))}) is {where}")
            seen[int(c)] = p
    dealer = int(state["dealer"])
    return [int(hands[(dealer + 1 + k) % n][k // n]) for k in range(n * h)]


def _config_of(s) -> Config:
    """The config a record carries (``ValueError`` naming the field if it is not a valid one)."""
    for field in ("partnership", "match"):
        if int(s[field]) not in (0, 1):
            raise ValueError(f"{field} = {int(s[field])} is outside 0..1")
    if not 0 <= int(s["first_dealer"]) < int(s["num_players"]):
        raise ValueError(f"first_dealer = {int(s['first_dealer'])} is outside 0..{int(s['num_players']) - 1}")
    return Config(num_players=int(s["num_players"]), partnership=bool(s["partnership"]),
                  match=bool(s["match"]), target=int(s["target"]), ranks=int(s["ranks"]),
                  hand_size=int(s["hand_size"]), dealer=int(s["first_dealer"]),
                  max_rounds=int(s["max_rounds"]))


def _most_moves(s, cfg: Config) -> int:
    """The actions (chance included) that lead to record ``s``: every round deals and plays ``n * hand_size``
    cards, so the rounds completed and this round's cards dealt and played count them all (a finished match
    has counted its last round, whose cards are still on the table). Play adds one each action and never
    passes ``max_game_length``, so a record within it cannot overflow the int32 ``moves``."""
    n, h = cfg.num_players, cfg.hand_size
    completed = int(s["round"]) - (1 if int(s["terminal"]) and cfg.match else 0)
    played = int((s["trick_cards"][:h, :n] >= 0).sum())
    return 2 * n * h * max(completed, 0) + int(s["dealt"]) + played


def check_record(s) -> str:
    """``""`` when every kernel can run safely on record ``s`` under the config it carries,
    else one line naming the first field found wrong (saved games are untrusted input).

    Checked: the config fields; the range of every index-like field; that every
    card of the deck is in at most one place (a hand or a trick), that as many
    are placed as were dealt, and that every hand holds what the deal and the
    tricks played leave it; the tricks (complete before the open one, empty
    after it, the open one waiting for a seat that still has to play); the
    winner of every complete trick and the rule of the open one, recomputed; the
    actions counted (``moves``) no more than lead to the position (:func:`_most_moves`).
    """
    try:
        cfg = _config_of(s)
    except ValueError as e:
        return str(e)
    n, h, deck = cfg.num_players, cfg.hand_size, NUM_SUITS * cfg.ranks
    used = (np.arange(MAX_TRICKS)[:, None] < h) & (np.arange(MAX_PLAYERS) < n)  # trick_cards of this game
    terminal = int(s["terminal"])
    checks = [("dealer", s["dealer"], 0, n - 1), ("terminal", terminal, 0, 1),
              ("round", s["round"], 0, cfg.max_rounds), ("dealt", s["dealt"], 0, n * h),
              ("trick", s["trick"], 0, h), ("stage", s["stage"], 0, int(cfg.partnership)),
              ("high_wins", s["high_wins"], 0, 1), ("winner", s["winner"], -1, n - 1),
              ("owner", s["owner"], -1, np.where(np.arange(NUM_CARDS) < deck, n - 1, -1)),
              ("trick_cards", s["trick_cards"], -1, np.where(used, deck - 1, -1)),
              ("trick_winner", s["trick_winner"], -1, n - 1),
              ("round_points", s["round_points"], 0, h * h), ("scores", s["scores"], 0, cfg.max_rounds * h * h)]
    bad = out_of_range(checks)
    if bad:
        return bad
    if not np.all(np.isfinite(s["returns"])):
        return "returns holds a value that is not finite"
    dealt, trick, stage = int(s["dealt"]), int(s["trick"]), int(s["stage"])
    if (trick == h) != bool(terminal):
        return f"trick = {trick} with terminal = {terminal}: only a finished game has played all {h} tricks"
    if not terminal and int(s["round"]) >= cfg.max_rounds:
        return f"round = {int(s['round'])} but the game is not over after max_rounds = {cfg.max_rounds}"
    if dealt < n * h and (trick > 0 or stage > 0 or np.any(s["trick_cards"] >= 0)):
        return f"dealt = {dealt} of {n * h} cards, yet the play has begun"
    if dealt < n * h and int(s["high_wins"]) != 1:
        return f"high_wins = {int(s['high_wins'])} while dealing: the first trick goes to the highest card"
    # every card in at most one place, as many placed as dealt
    places = np.zeros(NUM_CARDS, dtype=np.int64)
    for c in range(NUM_CARDS):
        places[c] += int(s["owner"][c]) >= 0
    for c in s["trick_cards"].ravel():
        if c >= 0:
            places[int(c)] += 1
    if places.max() > 1:
        c = int(np.argmax(places))
        return f"card {c} ({card_name(c)}) is in {int(places[c])} places (owner and trick_cards)"
    if int(places.sum()) != dealt:
        return f"{int(places.sum())} cards are in hands or tricks but dealt = {dealt}"
    dealer = int(s["dealer"])
    for p in range(n):
        held = int(np.sum(s["owner"] == p))
        if dealt < n * h:
            want = sum(1 for k in range(dealt) if (dealer + 1 + k) % n == p)
        else:
            want = h - int(np.sum(s["trick_cards"][:h, p] >= 0))
        if held != want:
            return f"player {p} holds {held} cards; the deal and the tricks played leave {want}"
    # the tricks: complete before the open one, empty after it; recompute their winners
    high = 1
    for t in range(h):
        row = [int(x) for x in s["trick_cards"][t, :n]]
        if t < trick:
            if min(row) < 0:
                return f"trick_cards[{t}] is incomplete but trick = {trick}"
            wanted = max(row) if high else min(row)
            if int(s["trick_winner"][t]) != row.index(wanted):
                return f"trick_winner[{t}] = {int(s['trick_winner'][t])}; the rules give player {row.index(wanted)}"
            high = 1 if (max(row) % 4) // 2 == (min(row) % 4) // 2 else 0
        elif int(s["trick_winner"][t]) != -1:
            return f"trick_winner[{t}] = {int(s['trick_winner'][t])} for a trick not yet complete"
        elif t > trick and max(row) >= 0:
            return f"trick_cards[{t}] holds a card but the open trick is {trick}"
    if trick < h and dealt == n * h:
        if int(s["high_wins"]) != high:
            return f"high_wins = {int(s['high_wins'])}; the previous trick's colours give {high}"
        active = [p for p in range(n) if bool(in_group(s, p))]  # the seats of this simultaneous step
        played = [int(s["trick_cards"][trick, p]) >= 0 for p in range(n)]
        others = [p for p in range(n) if p not in active]  # partnership: the other pair
        if stage == 0 and any(played[p] for p in others):
            return f"trick_cards[{trick}] holds a card of a seat that plays later in the trick"
        if stage == 1 and not all(played[p] for p in others):
            return f"stage = 1 but the dealer's pair has not played to trick {trick}"
        if all(played[p] for p in active):
            return f"trick_cards[{trick}] is complete but the trick was not resolved"
    if terminal == 0 and np.any(s["round_points"] != 0):
        return "round_points are set before the round is over"
    # the actions counted: no more than lead here (the fields above vouched for), so none can wrap int32
    most = _most_moves(s, cfg)
    if not 0 <= int(s["moves"]) <= most:
        return f"moves = {int(s['moves'])}, but at most {most} actions lead to this position"
    return _check_scores(s, cfg)


def _check_scores(s, cfg: Config) -> str:
    """The match scores, the winner and the returns: what the rounds played can give, and, once the
    game is over, what the end of its last round gives (replayed on a copy by :func:`_finish_round`).

    Each round gives the sides at most ``hand_size**2`` points together (runs of the counting cards,
    squared), partners share a score, and a match whose lead reached the target is over.
    """
    n, h, rounds = cfg.num_players, cfg.hand_size, int(s["round"])
    sides = 2 if cfg.partnership else n
    scores = [int(v) for v in s["scores"]]
    if np.any(s["scores"][n:] != 0) or np.any(s["returns"][n:] != 0):
        return f"scores or returns of a seat beyond the {n} players are set"
    if not cfg.match and (rounds or any(scores)):
        return f"round = {rounds}, scores = {scores[:n]}: one round (match=False) keeps no match score"
    if cfg.partnership and scores[:2] != scores[2:]:
        return f"scores = {scores}: partners (seats 0+2, 1+3) share one score"
    if sum(scores[:sides]) > rounds * h * h:
        return f"scores = {scores[:n]}: {rounds} rounds give at most {rounds * h * h} points together"
    if not int(s["terminal"]):
        if int(s["winner"]) != -1 or np.any(s["returns"] != 0):
            return "winner or returns set before the game is over"
        if cfg.match and sole_leader(scores[:sides], cfg.target):
            return f"scores = {scores[:n]}: a side has won the match (target {cfg.target}), yet it goes on"
        return ""
    undo = {"terminal": 0, "winner": -1, "returns": 0.0, "round_points": 0}
    if cfg.match:
        prior = s["scores"] - s["round_points"]
        if rounds < 1 or prior.min() < 0 or sole_leader(prior[:sides], cfg.target):
            return (f"round = {rounds}, scores = {scores[:n]}, round_points = {s['round_points'][:n].tolist()}: "
                    "the match did not end with its last round")
        undo.update(scores=prior, round=rounds - 1)
    return replay_end(s, _finish_round, undo, ("terminal", "round", "dealer", "round_points", "scores", "winner",
                                                "returns"), "the end of the last round (tricks, scores, target)")


def _cards(cards) -> str:
    return " ".join(card_name(c) for c in sorted(cards, reverse=True)) or "-"


def render(s, viewer: int | None = None) -> str:
    """A text picture of the table; with ``viewer`` face-down cards of others are hidden.

    Without a viewer every committed card is shown, and the header says so.
    """
    n = int(s["num_players"])
    h = int(s["hand_size"])
    t_open = int(s["trick"])
    lines = []
    mode = "partnership" if int(s["partnership"]) else f"{n} players"
    # ``round`` counts the rounds completed: a match over has counted its last one, still on the table
    played = int(s["round"]) - (1 if int(s["terminal"]) and int(s["match"]) else 0)
    head = f"Octrix ({mode}) round {played + 1}, dealer P{int(s['dealer'])}"
    if int(s["match"]):
        head += f", match to {int(s['target'])}"
    head += ", all cards shown" if viewer is None else f", as seen by P{viewer}"
    lines.append(head)
    for p in range(n):
        hand = [c for c in range(NUM_CARDS) if int(s["owner"][c]) == p]
        c = int(s["trick_cards"][min(t_open, h - 1), p]) if t_open < h else -1
        shown = ""
        if c >= 0:
            if viewer is None or bool(card_visible(s, p, viewer)):
                shown = f"  plays {card_name(c)}"
            else:
                hand.append(c)
                shown = "  has played face down"
        won = [t + 1 for t in range(t_open) if int(s["trick_winner"][t]) == p]
        pts = int(round_points_of_side(s, int(side_of(s, p))))
        score = f" total {int(s['scores'][p])}" if int(s["match"]) else ""
        lines.append(f"P{p}: {_cards(hand):<26}{shown}  counting cards {won or '-'} "
                     f"round {pts}{score}")
    cp = int(current_player(s))
    if cp == CHANCE:
        lines.append(f"dealing: {int(s['dealt'])}/{n * h} cards dealt")
    elif cp == TERMINAL:
        r = [round(float(x), 3) for x in s["returns"][:n]]
        lines.append(f"game over, returns {r}")
    else:
        rule = "highest" if int(s["high_wins"]) else "lowest"
        pend = [p for p in range(n) if bool(is_pending(s, p))]
        lines.append(f"trick {t_open + 1}/{h}: the {rule} card wins; to play: "
                     + ", ".join(f"P{p}" for p in pend))
    return "\n".join(lines)
