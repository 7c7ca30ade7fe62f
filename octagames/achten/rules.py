"""Full deck achten rules engine (seed: *Full deck achten*, Dutch rulebook).

A card game for 2-6 players about getting a three-card hand as close to "8" as
possible. Every player holds three closed cards, three cards lie open in the
pot and one extra card lies closed on the table. A single card scores
``|rank - 8|`` (J = 11, Q = 12, K = 13, A = 14); cards of one suit are added up
first and the group scores ``|sum - 8|``; the hand total is the sum over the
suit groups. A total of 0 is *nul* (1 point at the showdown). Putting *verbied*
(an ace with two of 10/J/Q/K, all of one suit) into the pot stops the round at
once and scores 0.1 for the player who did it. The worst hand (highest total,
ties broken card by card and then by suit ♣ > ♦ > ♠ > ♥) deals the next round.
The full rule-by-rule trace is in ``docs/rules/achten.md``.

Cards
-----
Card ``c`` in 0..51 has rank ``c // 4 + 2`` (2..14, A = 14) and suit ``c % 4``
with suits in the seed's order from best to worst: 0 = ♣ (klaver),
1 = ♦ (ruiten), 2 = ♠ (schoppen), 3 = ♥ (harten)::

    c:    0   1   2   3   4  ...  24  25  ...  48  49  50  51
    card ♣2  ♦2  ♠2  ♥2  ♣3  ...  ♣8  ♦8  ...  ♣A  ♦A  ♠A  ♥A

A reduced deck keeps the ``ranks`` consecutive ranks starting at ``low_rank``
(ids do not change). Chance outcomes are card ids: the deal hands out one card
per chance node, first three rounds of one card to each player starting left of
the dealer (card ``k`` of the deal goes to seat ``(dealer + 1 + k) % n``, hand
slot ``k // n``), then pot slots 0, 1, 2, then the closed card.

Table slots
-----------
Cards sit in 22 slots: hand slot ``k`` of seat ``p`` is slot ``3 p + k``
(0..17), pot slots are 18..20, the closed card is slot 21. Moves are public
*by slot* ("P2 swapped hand slot 1 with the closed card"), so every player can
track a card they once saw wherever it goes. ``known[v, slot]`` says whether
seat ``v`` knows the card in ``slot``; knowledge travels with the card.

Actions (one flat space of 17)
------------------------------
``ACTIONS``:

======  ====  ================================================================
action  size  meaning
======  ====  ================================================================
0       1     ``keep``: first choice: keep the dealt hand
1       1     ``swap_all``: first choice: swap the whole hand with the (still
              closed) pot
2..10   9     ``swap``: normal or final turn: swap hand slot i with pot slot j
              (id 2 + 3 i + j)
11..13  3     ``closed``: normal or final turn: swap hand slot i with the
              closed card (id 11 + i)
14      1     ``claw``: normal turn: swap all three hand cards with the pot
              (hand slot k with pot slot k)
15      1     ``pass``: normal turn: end the round; the others get one last
              turn
16      1     ``stand``: final turn: keep the hand
======  ====  ================================================================

Observation (information state of one seat; seats relative, 0 = self)
----------------------------------------------------------------------
``OBS_LAYOUT`` (named views: ``Game.observation_views``):

==========  ====  ================================================================
offset      size  meaning
==========  ====  ================================================================
0..155      156   ``hand``: own hand: ``[slot k, card c]`` one-hot
156..311    156   ``pot``: open pot: ``[slot j, card c]`` (zeros before it is laid
                  open)
312..363    52    ``closed``: the closed card, when this seat knows it (one-hot)
364         1     ``closed_known``: 1 if this seat knows the closed card
365..1159   795   ``opp``: opponents q = 1..5: ``[q-1, slot k, 53]``: the known
                  card of that hand slot (52 one-hot), or 1 at index 52 if unknown
1160..1164  5     ``opp_unknown``: opponents q = 1..5: number of unknown cards in
                  hand / 3
1165..1216  52    ``dealt``: own dealt hand (as dealt, before any swap)
1217..1268  52    ``seen``: every card this seat has seen this round (it knows
                  where each one is now: nothing leaves play in achten)
1269..1273  5     ``phase``: phase one-hot: deal, first choice, turns, final
                  turns, over
1274        1     ``turn``: turns taken this round / 65, at most 1 (the turn bound
                  is not shown)
1275        1     ``final_left``: final turns still to come / (n - 1)
1276..1281  6     ``to_act``: seat to act (relative, one-hot)
1282..1287  6     ``dealer``: dealer
1288..1293  6     ``chooser``: first chooser of this round
1294..1299  6     ``passed``: who passed
1300..1305  6     ``clawed``: who clawed
1306..1311  6     ``final_done``: who has had their final turn
1312..1317  6     ``scores``: match points (in points, 0.1 per verbied)
1318..1323  6     ``round_pts``: points scored in this round (set at the showdown)
1324..1329  6     ``verbied_by``: who laid verbied in the pot this round
1330..1334  5     ``nplayers``: number of players, one-hot (2..6)
1335..1386  52    ``deck``: cards of the deck in use
1387        1     ``match``: match mode (1) or one round (0)
1388        1     ``target``: match target in points
1389        1     ``round``: rounds completed / max_rounds
1390..1457  68    ``lookahead``: ``[action a, 4]``, while this seat holds a full
                  hand in an unfinished round: its hand total after ``a`` / 31 (0
                  if unknown), 1 if this seat knows that hand, 1 if it is nul, 1
                  if ``a`` leaves verbied in the pot (keep, pass and stand keep
                  the hand; ``closed i`` is known once the closed card is; ``swap
                  hand with pot`` takes the unseen pot)
1458..6332  4875  ``hist``: move history of this round, the last 65 moves (all of
                  them in a round of at most 65 moves), oldest first, ``[t, 75]``:
                  ``[t, 0:6]`` mover (relative seat), ``[t, 6:23]`` action, ``[t,
                  23:75]`` cards this move showed to this seat (cards laid open in
                  the pot; for the mover also the cards taken blind: the closed
                  card, the closed pot on a whole-hand swap)
==========  ====  ================================================================

Total 6333 floats. With the deal (own dealt hand) and the history of moves and
of every card each move showed, it is the exact information state of a round of
at most 65 moves with perfect recall; the tables above it are the current
knowledge derived from that history (the lookahead too: what each move would
make of the hand, as far as this seat can tell). A longer round (the seed puts
no limit on it) keeps its last 65 moves: the moves that drop out of the window
were public, and every card they showed stays located in the knowledge tables
(nothing leaves play), so what is lost is the record of who made which old
move, never the whereabouts of a card the seat has seen. Earlier rounds of a match enter only through the
points, the dealer and the first chooser.

The number of turns of a round is bounded only by a safety bound
(``Config.turn_cap`` per player, default 100) that almost never binds; a round
that reaches it stops unscored and the game is *truncated* (:func:`truncated`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numba as nb
import numpy as np

from octagames.core import (CHANCE, TERMINAL, Block, GameInfo, Layout, check_choice, check_range, is_real,
                            out_of_range, rng_below, seed_rng)
from octagames.record_checks import replay_end, sole_leader

# ---------------------------------------------------------------- static facts
NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = 52
MAX_PLAYERS = 6
HAND = 3
NUM_SLOTS = MAX_PLAYERS * HAND + HAND + 1  # 22
POT0 = MAX_PLAYERS * HAND                  # 18: first pot slot
CLOSED = POT0 + HAND                       # 21: the closed card
SUIT_SYMBOLS = "♣♦♠♥"                      # best to worst (seed: klaver, ruiten, schoppen, harten)
SUIT_LETTERS = "CDSH"
RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
ACE = 14

# phases
PH_DEAL = 0
PH_FIRST = 1
PH_TURNS = 2
PH_FINAL = 3
PH_OVER = 4
NUM_PHASES = 5

# how a round ended (``end_reason``)
END_NONE = 0
END_SHOWDOWN = 1       # after a pass or a claw and the final turns
END_VERBIED = 2        # a move left verbied in the pot (the mover scores 0.1)
END_DEALT_VERBIED = 3  # the dealt pot was verbied when laid open (nobody scores)
END_CAP = 4            # the safety bound on turns stopped the round: truncated, nothing scored

NUL_TENTHS = 10
VERBIED_TENTHS = 1

DEFAULT_TURN_CAP = 100   # safety bound: turns per player per round (not a rule; almost never binds)
# One-round mode: what having to deal next costs the worst hand. "Om niet te hoeven schudden, moet je
# dus de beste hand zien te halen, maar uiteindelijk gaat het om het winnen en is het soms noodzaak om
# een verbied te halen en te gaan schudden": a cost that only breaks ties between equal point standings.
# It must stay below deal_penalty_limit(n) = 0.1 / n, 0.0167 with 6 players (docs/rules/achten.md, rule 29).
DEFAULT_DEAL_PENALTY = 0.01
DEFAULT_MAX_ROUNDS = 200  # rounds per match before it stops, a truncation (engine rule)
HIST_MOVES = 65           # the observation's move history: the last 65 moves of the round
LOOK_SIZE = 4             # lookahead features per action
MAX_HAND_VALUE = 31       # A + K + Q of one suit: 39 - 8

# The action table and the observation layout, declared once (the docstring tables are generated
# from them, the kernels read the ids and offsets below, the strings look up the block of an action).
ACTIONS = Layout([
    Block("keep", 1, "first choice: keep the dealt hand"),
    Block("swap_all", 1, "first choice: swap the whole hand with the (still closed) pot"),
    Block("swap", HAND * HAND, "normal or final turn: swap hand slot i with pot slot j (id 2 + 3 i + j)",
          (HAND, HAND)),
    Block("closed", HAND, "normal or final turn: swap hand slot i with the closed card (id 11 + i)"),
    Block("claw", 1, "normal turn: swap all three hand cards with the pot (hand slot k with pot slot k)"),
    Block("pass", 1, "normal turn: end the round; the others get one last turn"),
    Block("stand", 1, "final turn: keep the hand"),
], title="action")
A_KEEP, A_SWAP_ALL = ACTIONS.offset("keep"), ACTIONS.offset("swap_all")
A_SWAP, A_CLOSED = ACTIONS.offset("swap"), ACTIONS.offset("closed")  # + 3 * hand slot + pot slot; + hand slot
A_CLAW, A_PASS, A_STAND = ACTIONS.offset("claw"), ACTIONS.offset("pass"), ACTIONS.offset("stand")
NUM_ACTIONS = ACTIONS.size  # 17
EVENT_SIZE = MAX_PLAYERS + NUM_ACTIONS + NUM_CARDS  # 75

ACTION_FEATURES = "lookahead"
"""The observation block indexed ``[action, k]`` that says what each action would do (a network's per-action
policy term reads it: ``PolicyValueNet(action_features=...)``)."""

OBS_LAYOUT = Layout([
    Block("hand", HAND * NUM_CARDS, "own hand: ``[slot k, card c]`` one-hot", (HAND, NUM_CARDS)),
    Block("pot", HAND * NUM_CARDS, "open pot: ``[slot j, card c]`` (zeros before it is laid open)",
          (HAND, NUM_CARDS)),
    Block("closed", NUM_CARDS, "the closed card, when this seat knows it (one-hot)"),
    Block("closed_known", 1, "1 if this seat knows the closed card"),
    Block("opp", (MAX_PLAYERS - 1) * HAND * (NUM_CARDS + 1), "opponents q = 1..5: ``[q-1, slot k, 53]``: "
          "the known card of that hand slot (52 one-hot), or 1 at index 52 if unknown",
          (MAX_PLAYERS - 1, HAND, NUM_CARDS + 1)),
    Block("opp_unknown", MAX_PLAYERS - 1, "opponents q = 1..5: number of unknown cards in hand / 3"),
    Block("dealt", NUM_CARDS, "own dealt hand (as dealt, before any swap)"),
    Block("seen", NUM_CARDS, "every card this seat has seen this round (it knows where each one is "
          "now: nothing leaves play in achten)"),
    Block("phase", NUM_PHASES, "phase one-hot: deal, first choice, turns, final turns, over"),
    Block("turn", 1, f"turns taken this round / {HIST_MOVES}, at most 1 (the turn bound is not shown)"),
    Block("final_left", 1, "final turns still to come / (n - 1)"),
    Block("to_act", MAX_PLAYERS, "seat to act (relative, one-hot)"),
    Block("dealer", MAX_PLAYERS, "dealer"),
    Block("chooser", MAX_PLAYERS, "first chooser of this round"),
    Block("passed", MAX_PLAYERS, "who passed"),
    Block("clawed", MAX_PLAYERS, "who clawed"),
    Block("final_done", MAX_PLAYERS, "who has had their final turn"),
    Block("scores", MAX_PLAYERS, "match points (in points, 0.1 per verbied)"),
    Block("round_pts", MAX_PLAYERS, "points scored in this round (set at the showdown)"),
    Block("verbied_by", MAX_PLAYERS, "who laid verbied in the pot this round"),
    Block("nplayers", MAX_PLAYERS - 1, "number of players, one-hot (2..6)"),
    Block("deck", NUM_CARDS, "cards of the deck in use"),
    Block("match", 1, "match mode (1) or one round (0)"),
    Block("target", 1, "match target in points"),
    Block("round", 1, "rounds completed / max_rounds"),
    Block("lookahead", NUM_ACTIONS * LOOK_SIZE, "``[action a, 4]``, while this seat holds a full hand in an "
          "unfinished round: its hand total after ``a`` / 31 (0 if unknown), 1 if this seat knows that hand, "
          "1 if it is nul, 1 if ``a`` leaves verbied in the pot (keep, pass and stand keep the hand; "
          "``closed i`` is known once the closed card is; ``swap hand with pot`` takes the unseen pot)",
          (NUM_ACTIONS, LOOK_SIZE)),
    Block("hist", HIST_MOVES * EVENT_SIZE, f"move history of this round, the last {HIST_MOVES} moves "
          "(all of them in a round of at most 65 moves), oldest first, ``[t, 75]``: ``[t, 0:6]`` mover "
          "(relative seat), ``[t, 6:23]`` action, ``[t, 23:75]`` cards this move showed to this seat "
          "(cards laid open in the pot; for the mover also the cards taken blind: the closed card, the "
          "closed pot on a whole-hand swap)", (HIST_MOVES, EVENT_SIZE)),
])
O_HAND, O_POT, O_CLOSED = OBS_LAYOUT.offset("hand"), OBS_LAYOUT.offset("pot"), OBS_LAYOUT.offset("closed")
O_CLOSED_KNOWN, O_OPP = OBS_LAYOUT.offset("closed_known"), OBS_LAYOUT.offset("opp")
O_OPP_UNKNOWN, O_DEALT = OBS_LAYOUT.offset("opp_unknown"), OBS_LAYOUT.offset("dealt")
O_SEEN, O_PHASE, O_TURN = OBS_LAYOUT.offset("seen"), OBS_LAYOUT.offset("phase"), OBS_LAYOUT.offset("turn")
O_FINAL_LEFT, O_TO_ACT = OBS_LAYOUT.offset("final_left"), OBS_LAYOUT.offset("to_act")
O_DEALER, O_CHOOSER = OBS_LAYOUT.offset("dealer"), OBS_LAYOUT.offset("chooser")
O_PASSED, O_CLAWED = OBS_LAYOUT.offset("passed"), OBS_LAYOUT.offset("clawed")
O_FINAL_DONE, O_SCORES = OBS_LAYOUT.offset("final_done"), OBS_LAYOUT.offset("scores")
O_ROUND_PTS, O_VERBIED_BY = OBS_LAYOUT.offset("round_pts"), OBS_LAYOUT.offset("verbied_by")
O_NPLAYERS, O_DECK, O_MATCH = OBS_LAYOUT.offset("nplayers"), OBS_LAYOUT.offset("deck"), OBS_LAYOUT.offset("match")
O_TARGET, O_ROUND = OBS_LAYOUT.offset("target"), OBS_LAYOUT.offset("round")
O_LOOK, O_HIST = OBS_LAYOUT.offset("lookahead"), OBS_LAYOUT.offset("hist")
OBS_SIZE = OBS_LAYOUT.size  # 6333



def _round_length_bound(n: int, turn_cap: int) -> int:
    """Most actions of one round: 3n + 4 deals, turn_cap * n turns before a pass or claw, n - 1 last turns."""
    return 3 * n + 4 + turn_cap * n + n - 1


INFO = GameInfo(
    name="achten",
    min_players=2,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    observation_size=OBS_SIZE,
    # turn_cap and max_rounds may only be lowered from their defaults, so this
    # bound holds for every config (max_game_length(config) gives each config's own)
    max_game_length=DEFAULT_MAX_ROUNDS * _round_length_bound(MAX_PLAYERS, DEFAULT_TURN_CAP),
    # default config (one round, the default dealing penalty): own points minus the
    # mean of the others'; one player can score nul + verbied = 1.1 in a round, the
    # worst hand pays the penalty (utility_bounds gives each config's own bounds)
    min_utility=-1.1 - DEFAULT_DEAL_PENALTY,
    max_utility=1.1 + DEFAULT_DEAL_PENALTY,
    chance_mode="explicit",
    dynamics="sequential",
    information="imperfect",
)

STATE_DTYPE = np.dtype([
    ("rng", np.uint64),             # RNG carried by the record (splitmix64)
    # -- config
    ("num_players", np.int8),
    ("match", np.int8),             # 1: play to target; 0: one round
    ("ranks", np.int8),             # ranks per suit in the deck
    ("low_rank", np.int8),          # lowest rank in the deck (2..14)
    ("target", np.int16),           # match target, in tenths of a point
    ("turn_cap", np.int8),          # safety bound: turns per player per round (then truncated)
    ("max_rounds", np.int16),       # engine cap: rounds per match (then a draw)
    ("deal_penalty", np.float64),   # one-round mode: cost of having to deal
    ("first_dealer", np.int8),      # the config's dealer, where every reset starts
    # -- progress
    ("round", np.int16),            # rounds completed in this match
    ("dealer", np.int8),
    ("chooser", np.int8),           # first chooser of this round
    ("dealt", np.int8),             # chance nodes of the deal done this round
    ("phase", np.int8),
    ("to_act", np.int8),
    ("turns", np.int16),            # first choice + normal turns this round
    ("final_left", np.int8),        # final turns still to come
    ("passer", np.int8),            # -1 none
    ("clawer", np.int8),            # -1 none
    ("final_done", np.int8, (MAX_PLAYERS,)),
    ("pot_open", np.int8),
    ("end_reason", np.int8),
    ("verbied_by", np.int8),        # -1 none
    ("worst", np.int8),             # worst hand of the last showdown (next dealer), -1 none
    ("terminal", np.int8),
    ("winner", np.int8),            # match winner, -1 none (draw or one-round mode)
    ("slot_card", np.int8, (NUM_SLOTS,)),   # card in each slot, -1 empty
    ("where", np.int8, (NUM_CARDS,)),       # slot of each card, -1 not on the table
    ("known", np.int8, (MAX_PLAYERS, NUM_SLOTS)),
    ("dealt_hand", np.int8, (MAX_PLAYERS, HAND)),
    # the last HIST_MOVES moves of the round: move t (0 = the round's first) is in row t % HIST_MOVES
    ("nhist", np.int16),            # moves made this round
    ("hist_mover", np.int8, (HIST_MOVES,)),
    ("hist_action", np.int8, (HIST_MOVES,)),
    ("hist_pub", np.int8, (HIST_MOVES, HAND)),   # cards laid open in the pot by the move
    ("hist_priv", np.int8, (HIST_MOVES, HAND)),  # cards the mover took blind
    ("round_pts", np.int16, (MAX_PLAYERS,)),      # tenths, this round
    ("scores", np.int16, (MAX_PLAYERS,)),         # tenths, match totals
    ("returns", np.float64, (MAX_PLAYERS,)),
    ("moves", np.int32),            # actions applied (chance included)
])


@dataclass(frozen=True)
class Config:
    """Full deck achten configuration.

    Attributes:
        num_players: seats, 2 to 6.
        match: play rounds until a player reaches ``target`` points (True), or
            a single round (False).
        target: match target in points, a multiple of 0.1 (the issue's 3.0).
        ranks: ranks per suit in the deck, 1..13 (13 = the full 52 cards);
            the deck must hold the deal, ``4 * ranks >= 3 * num_players + 4``.
        low_rank: the lowest rank kept (2..14; J = 11, Q = 12, K = 13, A = 14);
            the deck holds ranks ``low_rank .. low_rank + ranks - 1``.
        dealer: seat of the first dealer; the seat left of it chooses first.
        turn_cap: safety bound, not a rule of the seed: turns per player per
            round (1..100, default 100; first choice included). A round that
            reaches it without a pass, a claw or verbied stops unscored: the
            game ends *truncated* (:func:`truncated`, returns 0), so that no
            game can last forever. The default almost never binds
            (``docs/rules/achten.md`` gives the measured rates).
        max_rounds: engine rule: rounds per match (1..200); a match without a
            winner by then stops, all returns 0, as a truncation (``truncated``).
        deal_penalty: one-round mode: points subtracted from the seat that has
            to deal next (the worst hand), 0..10. The default 0.01 is the seed's
            reading: dealing is to be avoided ("Om niet te hoeven schudden, moet
            je dus de beste hand zien te halen"), but points come first
            ("uiteindelijk gaat het om het winnen"): a cost below
            :func:`deal_penalty_limit` (0.1 / num_players) only breaks ties
            between equal point standings, for every player count. A cost at
            or above it ranks not dealing above a point difference (as
            ``deal_penalty=1`` does: the variant ``achten-dealer-pays``, played by the zoo and the
            leaderboard); 0 scores the points alone.
    """

    num_players: int = 2
    match: bool = False
    target: float = 3.0
    ranks: int = NUM_RANKS
    low_rank: int = 2
    dealer: int = 0
    turn_cap: int = DEFAULT_TURN_CAP
    max_rounds: int = DEFAULT_MAX_ROUNDS
    deal_penalty: float = DEFAULT_DEAL_PENALTY

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, 2, MAX_PLAYERS)
        check_choice("match", self.match, [False, True])
        if not is_real(self.target) or not 0.1 <= self.target <= 1000 \
                or abs(self.target * 10 - round(self.target * 10)) > 1e-6:
            raise ValueError(f"target={self.target!r} is not valid; it must be a multiple of 0.1 "
                             f"between 0.1 and 1000")
        check_range("ranks", self.ranks, 1, NUM_RANKS)
        check_range("low_rank", self.low_rank, 2, ACE)
        if self.low_rank + self.ranks - 1 > ACE:
            raise ValueError(f"low_rank={self.low_rank} is not valid with ranks={self.ranks}: the highest "
                             f"rank would be {self.low_rank + self.ranks - 1} > 14 (ace); "
                             f"low_rank must be <= {ACE + 1 - self.ranks}")
        need = 3 * self.num_players + 4
        if NUM_SUITS * self.ranks < need:
            raise ValueError(f"ranks={self.ranks} is not valid with num_players={self.num_players}: the deal "
                             f"needs {need} cards, so ranks must be >= {(need + 3) // 4}")
        check_range("dealer", self.dealer, 0, self.num_players - 1)
        check_range("turn_cap", self.turn_cap, 1, DEFAULT_TURN_CAP)  # bounds INFO.max_game_length
        check_range("max_rounds", self.max_rounds, 1, DEFAULT_MAX_ROUNDS)
        if not is_real(self.deal_penalty) or not 0.0 <= self.deal_penalty <= 10.0:
            raise ValueError(f"deal_penalty={self.deal_penalty!r} is not valid; "
                             f"it must be a number in [0, 10]")


# record fields fixed by the config (its ``dealer`` is ``first_dealer``; the record's ``dealer`` moves)
CONFIG_FIELDS = ("num_players", "match", "target", "ranks", "low_rank", "turn_cap", "max_rounds", "deal_penalty",
                 "first_dealer")


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["num_players"] = config.num_players
    s["match"] = int(config.match)
    s["target"] = int(round(config.target * 10))
    s["ranks"] = config.ranks
    s["low_rank"] = config.low_rank
    s["first_dealer"] = config.dealer
    s["dealer"] = config.dealer
    s["turn_cap"] = config.turn_cap
    s["max_rounds"] = config.max_rounds
    s["deal_penalty"] = float(config.deal_penalty)


def max_game_length(config: Config) -> int:
    """Most actions (deals included) a game under ``config`` can take (the turn bound makes it finite)."""
    rounds = config.max_rounds if config.match else 1
    return rounds * _round_length_bound(config.num_players, config.turn_cap)


def observation_bounds(config: Config) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise bounds of the observation under ``config``.

    Everything is in [0, 1] except points (in points, not tenths) and the target.
    """
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    per_round = (NUL_TENTHS + VERBIED_TENTHS) / 10.0
    most = config.max_rounds * per_round if config.match else per_round
    high[O_SCORES:O_SCORES + MAX_PLAYERS] = max(1.0, most)
    high[O_ROUND_PTS:O_ROUND_PTS + MAX_PLAYERS] = max(1.0, per_round)
    high[O_TARGET] = max(1.0, float(config.target))
    return low, high


def deal_penalty_limit(num_players: int) -> float:
    """The dealing cost below which points come first in one-round returns.

    A seat's return is its point standing (own points minus the mean of the
    others') plus a dealing term, ``-deal_penalty`` when it deals next and
    ``+deal_penalty / (n - 1)`` when another seat does: a swing of
    ``deal_penalty * n / (n - 1)``. Points are tenths, so two different
    standings differ by at least ``0.1 / (n - 1)``; the swing stays below that
    exactly when ``deal_penalty < 0.1 / n``.

    Args:
        num_players: seats, 2 to 6.

    Returns:
        ``0.1 / num_players``; the order is strict only for costs below it.

    Raises:
        ValueError: ``num_players`` outside 2..6.
    """
    check_range("num_players", num_players, 2, MAX_PLAYERS)
    return VERBIED_TENTHS / 10.0 / num_players


def utility_bounds(config: Config) -> tuple[float, float]:
    """The lowest and highest return of a seat under ``config``.

    Match mode returns lie in [-1, 1]. One round gives own points minus the
    mean of the others', at most 1.1 (nul and verbied) either way; the dealing
    penalty widens that by ``deal_penalty`` (paid by one seat, shared out
    among the others).
    """
    if config.match:
        return -1.0, 1.0
    n = config.num_players
    return -1.1 - config.deal_penalty, 1.1 + config.deal_penalty / (n - 1)


# ---------------------------------------------------------------- hand values (kernels)
@nb.njit
def card_rank(c) -> int:
    """Rank 2..14 of card ``c``."""
    return c // 4 + 2


@nb.njit
def card_points(c) -> int:
    """Value of a single card: ``|rank - 8|``."""
    return abs(c // 4 + 2 - 8)


@nb.njit
def hand_value3(c0, c1, c2) -> int:
    """Hand total: cards of one suit are added up first; each suit group scores ``|sum - 8|``."""
    # int(): record fields are int8, and unjitted numpy would do int8 arithmetic
    c0, c1, c2 = int(c0), int(c1), int(c2)
    # the ranks added up per suit in one integer, 8 bits a suit (three ranks add up to at most 42): no branch
    # on the suits, which are as good as random to the processor
    sums = (((c0 // 4 + 2) << (8 * (c0 % 4))) + ((c1 // 4 + 2) << (8 * (c1 % 4)))
            + ((c2 // 4 + 2) << (8 * (c2 % 4))))
    total = 0
    for su in range(4):
        g = (sums >> (8 * su)) & 255
        total += abs(g - 8) * (g > 0)  # an empty suit group contributes nothing (not |0 - 8|)
    return total


@nb.njit
def is_verbied3(c0, c1, c2) -> bool:
    """An ace and two of 10, J, Q, K, all three of one suit."""
    c0, c1, c2 = int(c0), int(c1), int(c2)
    su = c0 % 4
    if c1 % 4 != su or c2 % 4 != su:
        return False
    aces = 0
    high = 0
    for c in (c0, c1, c2):
        r = c // 4 + 2
        if r == ACE:
            aces += 1
        elif 10 <= r <= 13:
            high += 1
    return aces == 1 and high == 2


@nb.njit
def _card_badness(c) -> int:
    # 2 * |rank - 8|, +1 above the 8: equal values rank the lower card better (a 7 beats a 9)
    r = int(c) // 4 + 2
    return 2 * abs(r - 8) + (1 if r > 8 else 0)


@nb.njit
def hand_key3(c0, c1, c2) -> int:
    """Order of hands at the showdown: a larger key is a worse hand.

    Highest total first; ties by the best single card (``|rank - 8|``, the
    lower rank wins between equal values), then the second best, then the
    worst; then by the suit of the best card (♣ > ♦ > ♠ > ♥).
    """
    c0, c1, c2 = int(c0), int(c1), int(c2)
    b0 = _card_badness(c0) * 4 + c0 % 4
    b1 = _card_badness(c1) * 4 + c1 % 4
    b2 = _card_badness(c2) * 4 + c2 % 4
    # sort the three (badness, suit) keys, best first
    if b1 < b0:
        b0, b1 = b1, b0
    if b2 < b1:
        b1, b2 = b2, b1
    if b1 < b0:
        b0, b1 = b1, b0
    key = int(hand_value3(c0, c1, c2))
    key = key * 14 + b0 // 4
    key = key * 14 + b1 // 4
    key = key * 14 + b2 // 4
    return key * 4 + b0 % 4


# ---------------------------------------------------------------- record helpers
@nb.njit
def _in_deck(s, c) -> bool:
    r = c // 4 + 2
    return s["low_rank"] <= r < s["low_rank"] + s["ranks"]


@nb.njit
def _hand_value_of(s, p) -> int:
    b = 3 * p
    return hand_value3(s["slot_card"][b], s["slot_card"][b + 1], s["slot_card"][b + 2])


@nb.njit
def _pot_verbied(s) -> bool:
    return is_verbied3(s["slot_card"][POT0], s["slot_card"][POT0 + 1], s["slot_card"][POT0 + 2])


@nb.njit
def _new_round(s) -> None:
    s["dealt"] = 0
    s["phase"] = PH_DEAL
    s["to_act"] = -1
    s["turns"] = 0
    s["final_left"] = 0
    s["passer"] = -1
    s["clawer"] = -1
    s["final_done"][:] = 0
    s["pot_open"] = 0
    s["end_reason"] = END_NONE
    s["verbied_by"] = -1
    s["slot_card"][:] = -1
    s["where"][:] = -1
    s["known"][:, :] = 0
    s["dealt_hand"][:, :] = -1
    s["nhist"] = 0
    s["hist_mover"][:] = -1
    s["hist_action"][:] = -1
    s["hist_pub"][:, :] = -1
    s["hist_priv"][:, :] = -1
    s["round_pts"][:] = 0


@nb.njit
def reset(s, seed) -> None:
    """Start a new match (or round) in ``s``, keeping its config.

    The first chooser is the seat left of the configured dealer.
    """
    seed_rng(s, seed)
    s["round"] = 0
    s["terminal"] = 0
    s["winner"] = -1
    s["worst"] = -1
    s["scores"][:] = 0
    s["returns"][:] = 0.0
    s["moves"] = 0
    s["dealer"] = s["first_dealer"]
    s["chooser"] = (s["dealer"] + 1) % s["num_players"]
    _new_round(s)


@nb.njit
def current_player(s) -> int:
    """CHANCE while dealing, the seat to act during turns, TERMINAL at the end."""
    if s["terminal"]:
        return TERMINAL
    if s["phase"] == PH_DEAL:
        return CHANCE
    return s["to_act"]


@nb.njit
def acting_player(s) -> int:
    """Same as :func:`current_player` (the game is sequential)."""
    return current_player(s)


@nb.njit
def _is_legal(s, a) -> bool:
    ph = s["phase"]
    if ph == PH_FIRST:
        return a == A_KEEP or a == A_SWAP_ALL
    if ph == PH_TURNS:
        return A_SWAP <= a <= A_PASS
    if ph == PH_FINAL:
        return A_SWAP <= a < A_CLAW or a == A_STAND
    return False


@nb.njit
def legal_mask(s, player, out) -> int:
    """Legal actions of ``player``: only the seat to act has any."""
    out[:] = 0
    if s["terminal"] or s["phase"] == PH_DEAL or player != s["to_act"]:
        return 0
    n = 0
    for a in range(NUM_ACTIONS):
        if _is_legal(s, a):
            out[a] = 1
            n += 1
    return n


@nb.njit
def _num_undealt(s) -> int:
    n = 0
    for c in range(NUM_CARDS):
        if s["where"][c] < 0 and _in_deck(s, c):
            n += 1
    return n


@nb.njit
def chance_outcomes(s, actions, probs) -> int:
    """Every undealt card of the deck, uniformly, while dealing."""
    if s["terminal"] or s["phase"] != PH_DEAL:
        return 0
    n = 0
    for c in range(NUM_CARDS):
        if s["where"][c] < 0 and _in_deck(s, c):
            actions[n] = c
            n += 1
    for i in range(n):
        probs[i] = 1.0 / n
    return n


@nb.njit
def sample_chance(s) -> int:
    """Draw an undealt card with the record's RNG (-1 if not dealing)."""
    if s["terminal"] or s["phase"] != PH_DEAL:
        return -1
    k = rng_below(s, _num_undealt(s))
    for c in range(NUM_CARDS):
        if s["where"][c] < 0 and _in_deck(s, c):
            if k == 0:
                return c
            k -= 1
    return -1


@nb.njit
def deal_slot(s) -> int:
    """Slot that the next dealt card goes to."""
    n = s["num_players"]
    k = s["dealt"]
    if k < 3 * n:
        return 3 * ((s["dealer"] + 1 + k) % n) + k // n
    if k < 3 * n + HAND:
        return POT0 + k - 3 * n
    return CLOSED


@nb.njit
def _swap_slots(s, x, y) -> None:
    # the cards change places; what each seat knows travels with the card
    cx = s["slot_card"][x]
    cy = s["slot_card"][y]
    s["slot_card"][x] = cy
    s["slot_card"][y] = cx
    s["where"][cy] = x
    s["where"][cx] = y
    for v in range(MAX_PLAYERS):
        kx = s["known"][v, x]
        s["known"][v, x] = s["known"][v, y]
        s["known"][v, y] = kx


@nb.njit
def _reveal_pot(s) -> None:
    for j in range(HAND):
        for v in range(s["num_players"]):
            s["known"][v, POT0 + j] = 1


@nb.njit
def one_round_returns(round_pts, worst, n, pen, out) -> None:
    """One-round mode's returns: own points minus the mean of the others', the dealer paying ``pen``.

    Args:
        round_pts: points of the round per seat, in tenths.
        worst: the seat with the worst hand, who deals next.
        n: number of players.
        pen: the dealing cost (``deal_penalty``); below :func:`deal_penalty_limit`
            it only breaks ties between equal point standings.
        out: the returns, written for seats ``0..n-1``.
    """
    for p in range(n):
        others = 0.0
        for q in range(n):
            if q != p:
                others += round_pts[q] / 10.0 - (pen if q == worst else 0.0)
        mine = round_pts[p] / 10.0 - (pen if p == worst else 0.0)
        out[p] = mine - others / (n - 1)


@nb.njit
def _end_round(s, reason) -> None:
    """Showdown: hands are shown, nul scores 1, verbied 0.1, the worst hand deals next."""
    n = s["num_players"]
    s["end_reason"] = reason
    s["phase"] = PH_OVER
    s["to_act"] = -1
    for p in range(n):
        for k in range(HAND):
            for v in range(n):
                s["known"][v, 3 * p + k] = 1
    worst = -1
    worst_key = -1
    for p in range(n):
        b = 3 * p
        c0 = s["slot_card"][b]
        c1 = s["slot_card"][b + 1]
        c2 = s["slot_card"][b + 2]
        if hand_value3(c0, c1, c2) == 0:
            s["round_pts"][p] += NUL_TENTHS
        key = hand_key3(c0, c1, c2)
        if key > worst_key:
            worst_key = key
            worst = p
    if s["verbied_by"] >= 0:
        s["round_pts"][s["verbied_by"]] += VERBIED_TENTHS
    s["worst"] = worst
    if s["match"] == 0:
        s["terminal"] = 1
        one_round_returns(s["round_pts"], worst, n, s["deal_penalty"], s["returns"])
        return
    for p in range(n):
        s["scores"][p] += s["round_pts"][p]
    s["round"] += 1
    best = -1
    best_p = -1
    count = 0
    for p in range(n):
        v = s["scores"][p]
        if v > best:
            best, best_p, count = v, p, 1
        elif v == best:
            count += 1
    if best >= s["target"] and count == 1:
        s["terminal"] = 1
        s["winner"] = best_p
        for p in range(n):
            s["returns"][p] = 1.0 if p == best_p else -1.0 / (n - 1)
        return
    if s["round"] >= s["max_rounds"]:
        s["terminal"] = 1  # engine cap (E2): a truncation, all returns stay 0
        return
    # the worst hand deals; the first choice moves one seat to the left
    s["dealer"] = worst
    s["chooser"] = (s["chooser"] + 1) % n
    _new_round(s)


@nb.njit
def _record(s, p, a) -> int:
    """Write move ``a`` of seat ``p`` into the history ring; returns its row."""
    t = int(s["nhist"]) % HIST_MOVES  # a round longer than the window overwrites its oldest move
    s["hist_mover"][t] = p
    s["hist_action"][t] = a
    s["hist_pub"][t, :] = -1
    s["hist_priv"][t, :] = -1
    s["nhist"] += 1
    return t


@nb.njit
def _truncate(s) -> None:
    """The safety bound on turns is reached: the game stops, unscored (not a rule of the seed)."""
    s["end_reason"] = END_CAP
    s["phase"] = PH_OVER
    s["to_act"] = -1
    s["terminal"] = 1  # returns stay as they are: 0 (a match pays out only at its end)


@nb.njit
def truncated(s) -> bool:
    """Whether the game stopped at an engine bound rather than by the rules: the safety bound on turns
    (E1), or a match's round cap (E2: over with nobody its winner; a match ends by the rules only when a
    sole leader has reached the target)."""
    return s["terminal"] != 0 and (s["end_reason"] == END_CAP or (s["match"] != 0 and s["winner"] < 0))


@nb.njit
def _apply_move(s, p, a) -> None:
    n = s["num_players"]
    t = _record(s, p, a)
    ph = s["phase"]
    b = 3 * p
    placed_in_pot = False
    if a == A_KEEP or a == A_SWAP_ALL:
        if a == A_SWAP_ALL:
            for k in range(HAND):
                _swap_slots(s, b + k, POT0 + k)
                s["known"][p, b + k] = 1  # the blind pot is now in p's hand
                s["hist_priv"][t, k] = s["slot_card"][b + k]
        s["pot_open"] = 1
        _reveal_pot(s)
        for k in range(HAND):
            s["hist_pub"][t, k] = s["slot_card"][POT0 + k]
        s["turns"] += 1
        if _pot_verbied(s):
            if a == A_SWAP_ALL:
                s["verbied_by"] = p
                _end_round(s, END_VERBIED)
            else:
                _end_round(s, END_DEALT_VERBIED)  # nobody laid it: no 0.1
            return
        s["phase"] = PH_TURNS
        s["to_act"] = (p + 1) % n
        return
    if A_SWAP <= a < A_CLOSED:
        i = (a - A_SWAP) // 3
        j = (a - A_SWAP) % 3
        _swap_slots(s, b + i, POT0 + j)
        _reveal_pot(s)
        s["hist_pub"][t, 0] = s["slot_card"][POT0 + j]
        placed_in_pot = True
    elif A_CLOSED <= a < A_CLAW:
        i = a - A_CLOSED
        _swap_slots(s, b + i, CLOSED)
        s["known"][p, b + i] = 1
        s["hist_priv"][t, 0] = s["slot_card"][b + i]
    elif a == A_CLAW:
        s["clawer"] = p  # recorded even when the claw lays verbied and ends the round
        for k in range(HAND):
            _swap_slots(s, b + k, POT0 + k)
            s["hist_pub"][t, k] = s["slot_card"][POT0 + k]
        _reveal_pot(s)
        placed_in_pot = True
    if placed_in_pot and _pot_verbied(s):
        s["verbied_by"] = p
        _end_round(s, END_VERBIED)
        return
    if ph == PH_FINAL:
        s["final_done"][p] = 1
        s["final_left"] -= 1
        if s["final_left"] == 0:
            _end_round(s, END_SHOWDOWN)
            return
        s["to_act"] = (p + 1) % n
        return
    s["turns"] += 1
    if a == A_PASS or a == A_CLAW:
        if a == A_PASS:
            s["passer"] = p
        s["phase"] = PH_FINAL
        s["final_left"] = n - 1
        s["to_act"] = (p + 1) % n
        return
    if int(s["turns"]) >= int(s["turn_cap"]) * int(n):  # int(): int8 * int8 overflows unjitted
        _truncate(s)
        return
    s["to_act"] = (p + 1) % n


@nb.njit
def apply_action(s, action) -> bool:
    """Apply a chance outcome or the acting seat's move; False if illegal (``s`` untouched)."""
    if s["terminal"]:
        return False
    if s["phase"] == PH_DEAL:
        if action < 0 or action >= NUM_CARDS or not _in_deck(s, action) or s["where"][action] >= 0:
            return False
        slot = deal_slot(s)
        s["slot_card"][slot] = action
        s["where"][action] = slot
        if slot < POT0:
            p = slot // 3
            s["known"][p, slot] = 1
            s["dealt_hand"][p, slot % 3] = action
        s["dealt"] += 1
        s["moves"] += 1
        if s["dealt"] == 3 * s["num_players"] + HAND + 1:
            s["phase"] = PH_FIRST
            s["to_act"] = s["chooser"]
        return True
    if action < 0 or action >= NUM_ACTIONS or not _is_legal(s, action):
        return False
    s["moves"] += 1
    _apply_move(s, s["to_act"], action)
    return True


@nb.njit
def returns(s, out) -> None:
    """Cumulative returns (zero until the game ends)."""
    for p in range(s["num_players"]):
        out[p] = s["returns"][p]


@nb.njit
def _look(out, a, c0, c1, c2, lays_verbied) -> None:
    # lookahead features of action ``a`` whose resulting hand is known to be c0, c1, c2
    _look_value(out, a, hand_value3(c0, c1, c2), lays_verbied)


@nb.njit
def _look_value(out, a, value, lays_verbied) -> None:
    # lookahead features of action ``a`` whose resulting hand is known to be worth ``value``
    base = O_LOOK + a * LOOK_SIZE
    out[base] = value / float(MAX_HAND_VALUE)
    out[base + 1] = 1.0
    out[base + 2] = 1.0 if value == 0 else 0.0
    out[base + 3] = 1.0 if lays_verbied else 0.0


@nb.njit
def _nth3(i, a0, a1, a2):
    # the i-th of three values (a hand or the pot held in scalars: no array is allocated per observation)
    return a0 if i == 0 else (a1 if i == 1 else a2)


@nb.njit
def _replace3(i, x, a0, a1, a2):
    # the three values with the i-th replaced by x (a card swapped into a hand or the pot)
    return (x if i == 0 else a0), (x if i == 1 else a1), (x if i == 2 else a2)


@nb.njit
def _lookahead(s, v, out) -> None:
    """Seat ``v``'s hand after each action, as far as ``v`` knows it (layout: module docstring)."""
    h0, h1, h2 = int(s["slot_card"][3 * v]), int(s["slot_card"][3 * v + 1]), int(s["slot_card"][3 * v + 2])
    p0, p1, p2 = int(s["slot_card"][POT0]), int(s["slot_card"][POT0 + 1]), int(s["slot_card"][POT0 + 2])
    if h0 < 0 or h1 < 0 or h2 < 0 or p0 < 0 or p1 < 0 or p2 < 0:
        return
    kept = hand_value3(h0, h1, h2)
    for a in (A_KEEP, A_PASS, A_STAND):  # the hand stays as it is
        _look_value(out, a, kept, False)
    pot_open = s["known"][v, POT0] and s["known"][v, POT0 + 1] and s["known"][v, POT0 + 2]
    mine_verbied = is_verbied3(h0, h1, h2)
    if pot_open:
        _look(out, A_SWAP_ALL, p0, p1, p2, mine_verbied)
        _look(out, A_CLAW, p0, p1, p2, mine_verbied)
    elif mine_verbied:  # the closed pot: only that the hand left in it is verbied is known
        out[O_LOOK + A_SWAP_ALL * LOOK_SIZE + 3] = 1.0
        out[O_LOOK + A_CLAW * LOOK_SIZE + 3] = 1.0
    for i in range(HAND):  # hand card i for pot card j: the hand and the pot after the swap
        hi = _nth3(i, h0, h1, h2)
        for j in range(HAND):
            if not s["known"][v, POT0 + j]:
                continue
            n0, n1, n2 = _replace3(i, _nth3(j, p0, p1, p2), h0, h1, h2)
            q0, q1, q2 = _replace3(j, hi, p0, p1, p2)
            _look(out, A_SWAP + 3 * i + j, n0, n1, n2, is_verbied3(q0, q1, q2))
    c = int(s["slot_card"][CLOSED])
    if c >= 0 and s["known"][v, CLOSED]:
        for i in range(HAND):
            n0, n1, n2 = _replace3(i, c, h0, h1, h2)
            _look(out, A_CLOSED + i, n0, n1, n2, False)


@nb.njit
def observation(s, player, out) -> None:
    """Write ``player``'s information state (layout in the module docstring)."""
    out[:] = 0.0
    n = int(s["num_players"])
    v = int(player)
    for k in range(HAND):
        c = int(s["slot_card"][3 * v + k])
        if c >= 0:
            out[O_HAND + k * NUM_CARDS + c] = 1.0
        c = int(s["slot_card"][POT0 + k])
        if c >= 0 and s["known"][v, POT0 + k]:
            out[O_POT + k * NUM_CARDS + c] = 1.0
        c = int(s["dealt_hand"][v, k])
        if c >= 0:
            out[O_DEALT + c] = 1.0
    c = int(s["slot_card"][CLOSED])
    if c >= 0 and s["known"][v, CLOSED]:
        out[O_CLOSED + c] = 1.0
        out[O_CLOSED_KNOWN] = 1.0
    for q in range(1, n):
        p = (v + q) % n
        unknown = 0
        for k in range(HAND):
            base = O_OPP + ((q - 1) * HAND + k) * (NUM_CARDS + 1)
            c = int(s["slot_card"][3 * p + k])
            if c < 0:
                continue
            if s["known"][v, 3 * p + k]:
                out[base + c] = 1.0
            else:
                out[base + NUM_CARDS] = 1.0
                unknown += 1
        out[O_OPP_UNKNOWN + q - 1] = unknown / 3.0
    for slot in range(NUM_SLOTS):
        c = int(s["slot_card"][slot])
        if c >= 0 and s["known"][v, slot]:
            out[O_SEEN + c] = 1.0
    ph = int(s["phase"])
    if s["terminal"]:
        ph = PH_OVER
    out[O_PHASE + ph] = 1.0
    out[O_TURN] = min(int(s["turns"]), HIST_MOVES) / float(HIST_MOVES)
    out[O_FINAL_LEFT] = s["final_left"] / float(n - 1)
    if s["to_act"] >= 0 and not s["terminal"] and ph != PH_DEAL:
        out[O_TO_ACT + (int(s["to_act"]) - v + n) % n] = 1.0
    out[O_DEALER + (int(s["dealer"]) - v + n) % n] = 1.0
    out[O_CHOOSER + (int(s["chooser"]) - v + n) % n] = 1.0
    if s["passer"] >= 0:
        out[O_PASSED + (int(s["passer"]) - v + n) % n] = 1.0
    if s["clawer"] >= 0:
        out[O_CLAWED + (int(s["clawer"]) - v + n) % n] = 1.0
    if s["verbied_by"] >= 0:
        out[O_VERBIED_BY + (int(s["verbied_by"]) - v + n) % n] = 1.0
    for p in range(n):
        q = (p - v + n) % n
        out[O_FINAL_DONE + q] = float(s["final_done"][p])
        out[O_SCORES + q] = s["scores"][p] / 10.0
        out[O_ROUND_PTS + q] = s["round_pts"][p] / 10.0
    out[O_NPLAYERS + n - 2] = 1.0
    for c in range(NUM_CARDS):
        if _in_deck(s, c):
            out[O_DECK + c] = 1.0
    out[O_MATCH] = float(s["match"])
    out[O_TARGET] = s["target"] / 10.0
    out[O_ROUND] = s["round"] / float(s["max_rounds"])
    if ph in (PH_FIRST, PH_TURNS, PH_FINAL):
        _lookahead(s, v, out)
    nh = int(s["nhist"])
    shown = min(nh, HIST_MOVES)
    for k in range(shown):  # oldest first: move nh - shown + k
        t = (nh - shown + k) % HIST_MOVES
        base = O_HIST + k * EVENT_SIZE
        m = int(s["hist_mover"][t])
        out[base + (m - v + n) % n] = 1.0
        out[base + MAX_PLAYERS + int(s["hist_action"][t])] = 1.0
        for k in range(HAND):
            c = int(s["hist_pub"][t, k])
            if c >= 0:
                out[base + MAX_PLAYERS + NUM_ACTIONS + c] = 1.0
            c = int(s["hist_priv"][t, k])
            if c >= 0 and m == v:
                out[base + MAX_PLAYERS + NUM_ACTIONS + c] = 1.0


@nb.njit
def determinize(s, player, seed) -> None:
    """Resample every card ``player`` does not know, and reseed the RNG.

    The unknown cards are the other seats' untracked hand cards, the closed
    card unless ``player`` knows it, the pot before it is laid open and the
    undealt rest of the deck. They are shuffled among those places; the
    record's private history (the other seats' dealt hands and blind draws)
    is relabelled with the same permutation so the copy stays consistent.
    """
    seed_rng(s, seed)
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    slots = np.empty(NUM_SLOTS, dtype=np.int64)
    ns = 0
    m = 0
    for slot in range(NUM_SLOTS):
        c = s["slot_card"][slot]
        if c >= 0 and s["known"][player, slot] == 0:
            slots[ns] = slot
            ns += 1
            pool[m] = c
            m += 1
    for c in range(NUM_CARDS):
        if s["where"][c] < 0 and _in_deck(s, c):
            pool[m] = c
            m += 1
    # Shuffle the unknown cards from a canonical (sorted) order: the set of
    # unknown cards is fixed by what the player saw, so the sample depends only
    # on the information state and the seed, never on where the cards truly are.
    fresh = np.sort(pool[:m])
    for i in range(m - 1, 0, -1):  # Fisher-Yates with the record's RNG
        j = rng_below(s, i + 1)
        tmp = fresh[i]
        fresh[i] = fresh[j]
        fresh[j] = tmp
    relabel = np.arange(NUM_CARDS)
    for k in range(m):
        relabel[pool[k]] = fresh[k]
    for k in range(m):
        s["where"][pool[k]] = -1
    for k in range(ns):
        c = fresh[k]
        s["slot_card"][slots[k]] = c
        s["where"][c] = slots[k]
    for p in range(s["num_players"]):
        if p == player:
            continue
        for k in range(HAND):
            c = s["dealt_hand"][p, k]
            if c >= 0:
                s["dealt_hand"][p, k] = relabel[c]
    for t in range(min(int(s["nhist"]), HIST_MOVES)):
        if s["hist_mover"][t] == player:
            continue
        for k in range(HAND):
            c = s["hist_priv"][t, k]
            if c >= 0:
                s["hist_priv"][t, k] = relabel[c]


# ---------------------------------------------------------------- Python-side helpers
def card_name(c: int) -> str:
    """``♣8`` style name of card ``c``."""
    return SUIT_SYMBOLS[c % 4] + RANK_NAMES[c // 4]


def parse_card(name: str) -> int:
    """Card id of a name such as ``♥K``, ``HK``, ``h10`` or ``♣A``.

    Raises:
        ValueError: not a card name.
    """
    t = name.strip().upper()
    if not t:
        raise ValueError("empty card name")
    sym = t[0]
    suit = SUIT_SYMBOLS.find(sym) if sym in SUIT_SYMBOLS else SUIT_LETTERS.find(sym)
    rank = t[1:]
    if suit < 0 or rank not in RANK_NAMES:
        raise ValueError(f"{name!r} is not a card; write a suit ({SUIT_SYMBOLS} or {SUIT_LETTERS}) "
                         f"followed by a rank ({' '.join(RANK_NAMES)})")
    return RANK_NAMES.index(rank) * 4 + suit


def cards(text: str | Iterable[int | str]) -> list[int]:
    """Card ids from ``"♥K ♣J ♦3"`` (or a list of names or ids)."""
    items = text.split() if isinstance(text, str) else list(text)
    return [int(x) if not isinstance(x, str) else parse_card(x) for x in items]


def _three(hand: str | Iterable[int | str]) -> list[int]:
    h = cards(hand)
    if len(h) != HAND or len(set(h)) != HAND or not all(0 <= c < NUM_CARDS for c in h):
        raise ValueError(f"a hand is three different cards, got {hand!r}")
    return h


def hand_value(hand: str | Iterable[int | str]) -> int:
    """Points of a three-card hand (0 is nul), e.g. ``hand_value("♥K ♣J ♦3") == 13``."""
    return int(hand_value3(*_three(hand)))


def is_nul(hand: str | Iterable[int | str]) -> bool:
    """Whether a hand totals 0 (8 + suited 6/2 or 5/3, or three 8s)."""
    return hand_value(hand) == 0


def is_verbied(hand: str | Iterable[int | str]) -> bool:
    """Whether three cards are verbied: an ace with two of 10, J, Q, K, all one suit."""
    return bool(is_verbied3(*_three(hand)))


def hand_key(hand: str | Iterable[int | str]) -> int:
    """Showdown order: a larger key is a worse hand (see :func:`hand_key3`)."""
    return int(hand_key3(*_three(hand)))


def better_hand(a: str | Iterable[int | str], b: str | Iterable[int | str]) -> int:
    """0 if hand ``a`` beats hand ``b`` at the showdown, 1 if ``b`` beats ``a``."""
    return 0 if hand_key(a) < hand_key(b) else 1


def hand_of(s, p: int) -> list[int]:
    """Cards of seat ``p`` by hand slot."""
    return [int(s["slot_card"][3 * p + k]) for k in range(HAND)]


def pot_of(s) -> list[int]:
    """Cards of the pot by pot slot."""
    return [int(s["slot_card"][POT0 + j]) for j in range(HAND)]


def closed_card(s) -> int:
    """The closed card (-1 before it is dealt)."""
    return int(s["slot_card"][CLOSED])


def deal_outcomes(state, deal: Sequence[Sequence[int]]) -> list[int]:
    """Chance outcomes that deal ``deal`` from the fresh record ``state``.

    Args:
        state: a record at the first chance node of a round.
        deal: ``n`` hands of three cards (by hand slot), optionally followed
            by the pot (three cards) and then the closed card (a one-card
            list). What is not given is left to chance.

    Returns:
        The chance outcomes, in dealing order.

    Raises:
        ValueError: wrong number of hands or cards, a card outside the deck,
            or a card dealt twice.
    """
    n = int(state["num_players"])
    parts = [list(h) for h in deal]
    if not n <= len(parts) <= n + 2:
        raise ValueError(f"deal must list {n} hands, optionally then the pot and the closed card; "
                         f"got {len(parts)} lists")
    sizes = [HAND] * n + [HAND, 1]
    what = [f"hand of player {p}" for p in range(n)] + ["pot", "closed card"]
    seen: dict[int, str] = {}
    for i, part in enumerate(parts):
        if len(part) != sizes[i]:
            raise ValueError(f"{what[i]} has {len(part)} cards; it needs {sizes[i]}")
        for c in part:
            if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
                raise ValueError(f"{what[i]}: card {c!r} is not an integer card index")
            if not (0 <= c < NUM_CARDS and bool(_in_deck(state, int(c)))):
                raise ValueError(f"{what[i]}: card {c} is not in the deck")
            if int(c) in seen:
                raise ValueError(f"{what[i]}: card {c} ({card_name(int(c))}) is also in the {seen[int(c)]}")
            seen[int(c)] = what[i]
    dealer = int(state["dealer"])
    out = [int(parts[(dealer + 1 + k) % n][k // n]) for k in range(3 * n)]
    if len(parts) > n:
        out += [int(c) for c in parts[n]]
    if len(parts) > n + 1:
        out += [int(parts[n + 1][0])]
    return out


def _config_of(s) -> Config:
    """The config a record carries (``ValueError`` naming the field if it is not a valid one)."""
    if int(s["match"]) not in (0, 1):
        raise ValueError(f"match = {int(s['match'])} is outside 0..1")
    if not 0 <= int(s["first_dealer"]) < int(s["num_players"]):
        raise ValueError(f"first_dealer = {int(s['first_dealer'])} is outside 0..{int(s['num_players']) - 1}")
    return Config(num_players=int(s["num_players"]), match=bool(s["match"]), target=int(s["target"]) / 10,
                  ranks=int(s["ranks"]), low_rank=int(s["low_rank"]), turn_cap=int(s["turn_cap"]),
                  max_rounds=int(s["max_rounds"]), deal_penalty=float(s["deal_penalty"]),
                  dealer=int(s["first_dealer"]))


def _deal_slots(n: int, dealer: int, dealt: int) -> list[int]:
    """The slots filled by the first ``dealt`` cards of a round's deal (see :func:`deal_slot`)."""
    out = []
    for k in range(dealt):
        if k < 3 * n:
            out.append(3 * ((dealer + 1 + k) % n) + k // n)
        else:
            out.append(POT0 + k - 3 * n)
    return out


def _last_round_counted(s) -> bool:
    """Whether ``round`` counts the round still on the table: a match over by its last round's showdown."""
    return bool(int(s["terminal"]) and int(s["match"]) and int(s["end_reason"]) != END_CAP)


def _most_moves(s, cfg: Config) -> int:
    """The most actions (chance included) that lead to record ``s``: at most ``_round_length_bound`` in each
    round completed, and this round's cards dealt and moves made (``nhist``); a match finished by the rules has
    counted its last round, whose table is still there. Play adds one each action and never passes
    ``max_game_length``, so a record within it cannot overflow the int32 ``moves``."""
    completed = max(int(s["round"]) - (1 if _last_round_counted(s) else 0), 0)
    return completed * _round_length_bound(cfg.num_players, cfg.turn_cap) + int(s["dealt"]) + int(s["nhist"])


def check_record(s) -> str:
    """``""`` when every kernel can run safely on record ``s`` under the config it carries,
    else one line naming the first field found wrong (saved games are untrusted input).

    Checked: the config fields; the range of every index-like field; the cards
    (each deck card in at most one slot, ``where`` and ``slot_card`` naming each
    other, the slots the deal has filled so far and no others); who knows what
    (every seat its own hand, everyone the open pot, nobody the closed pot, no
    seat beyond the players); the phase and the turn state that goes with it
    (who acts, the turn count within the bound, pass or claw, last turns, the
    history length, the actions counted no more than lead there: :func:`_most_moves`); the dealt
    hands (as dealt until the first choice, then cards on the table) and the
    history rows.
    """
    try:
        cfg = _config_of(s)
    except ValueError as e:
        return str(e)
    n = cfg.num_players
    full = 3 * n + HAND + 1
    ph, terminal, dealt = int(s["phase"]), int(s["terminal"]), int(s["dealt"])
    deck = [c for c in range(NUM_CARDS) if bool(_in_deck(s, c))]
    seat = (np.arange(MAX_PLAYERS) < n).astype(np.int64)  # 1 for the seats of this game
    checks = [("dealer", s["dealer"], 0, n - 1), ("chooser", s["chooser"], 0, n - 1),
              ("round", s["round"], 0, cfg.max_rounds), ("dealt", dealt, 0, full),
              ("phase", ph, 0, NUM_PHASES - 1), ("terminal", terminal, 0, 1),
              ("to_act", s["to_act"], -1, n - 1), ("turns", s["turns"], 0, cfg.turn_cap * n),
              ("final_left", s["final_left"], 0, n - 1), ("passer", s["passer"], -1, n - 1),
              ("clawer", s["clawer"], -1, n - 1), ("final_done", s["final_done"], 0, seat),
              ("pot_open", s["pot_open"], 0, 1),
              ("end_reason", s["end_reason"], 0, END_CAP), ("verbied_by", s["verbied_by"], -1, n - 1),
              ("worst", s["worst"], -1, n - 1), ("winner", s["winner"], -1, n - 1),
              ("slot_card", s["slot_card"], -1, NUM_CARDS - 1), ("where", s["where"], -1, NUM_SLOTS - 1),
              ("known", s["known"], 0, seat[:, None]),
              ("dealt_hand", s["dealt_hand"], -1, np.where(seat, NUM_CARDS - 1, -1)[:, None]),
              ("nhist", s["nhist"], 0, _round_length_bound(n, cfg.turn_cap)),
              ("hist_mover", s["hist_mover"], -1, n - 1), ("hist_action", s["hist_action"], -1, NUM_ACTIONS - 1),
              ("hist_pub", s["hist_pub"], -1, NUM_CARDS - 1), ("hist_priv", s["hist_priv"], -1, NUM_CARDS - 1),
              ("round_pts", s["round_pts"], 0, NUL_TENTHS + VERBIED_TENTHS),
              ("scores", s["scores"], 0, cfg.max_rounds * (NUL_TENTHS + VERBIED_TENTHS))]
    bad = out_of_range(checks)
    if bad:
        return bad
    if not np.all(np.isfinite(s["returns"])):
        return "returns holds a value that is not finite"
    # the cards: each in at most one slot, where and slot_card naming each other, the dealt slots filled
    filled = set(_deal_slots(n, int(s["dealer"]), dealt if ph == PH_DEAL else full))
    for slot in range(NUM_SLOTS):
        c = int(s["slot_card"][slot])
        if (c >= 0) != (slot in filled):
            state = "holds a card" if c >= 0 else "is empty"
            return f"slot_card[{slot}] {state}, but the deal ({dealt} cards dealt) says otherwise"
        if c >= 0 and (c not in deck or int(s["where"][c]) != slot):
            return f"slot_card[{slot}] = {c} ({card_name(c)}) but where[{c}] = {int(s['where'][c])}"
    for c in range(NUM_CARDS):
        w = int(s["where"][c])
        if w >= 0 and int(s["slot_card"][w]) != c:
            return f"where[{c}] = {w} but slot_card[{w}] = {int(s['slot_card'][w])}"
    if ph != PH_DEAL and dealt != full:
        return f"dealt = {dealt} outside the deal, which gives {full} cards"
    if ph == PH_DEAL and dealt == full:
        return f"phase = deal but all {full} cards are dealt"
    # who knows what: own hand always, the open pot everyone, the closed pot nobody
    for slot in range(NUM_SLOTS):
        if int(s["slot_card"][slot]) < 0 and s["known"][:, slot].any():
            return f"known[:, {slot}] is set for an empty slot"
    for p in range(n):
        for k in range(HAND):
            if int(s["slot_card"][3 * p + k]) >= 0 and not s["known"][p, 3 * p + k]:
                return f"known[{p}, {3 * p + k}] = 0: a player always knows their own cards"
    pot_known = s["known"][:n, POT0:CLOSED]
    if int(s["pot_open"]) != int(ph >= PH_TURNS):
        return f"pot_open = {int(s['pot_open'])} in phase {ph}: the pot is laid open after the first choice"
    if int(s["pot_open"]) and not pot_known.all():
        return "known: a seat does not know a card of the open pot"
    if not int(s["pot_open"]) and pot_known.any():
        return "known: a seat knows a card of the closed pot"
    # the dealt hands: as many as the deal gave each seat, all different cards of the deck
    given = [c for c in s["dealt_hand"][:n].ravel() if c >= 0]
    if len(given) != len(set(given)) or not set(int(c) for c in given) <= set(deck):
        return "dealt_hand names a card twice or a card outside the deck"
    if len(given) != min(dealt, 3 * n):
        return f"dealt_hand holds {len(given)} cards but the deal gave the players {min(dealt, 3 * n)}"
    for p in range(n):  # the dealt hands: the slots dealt so far, as dealt (nothing is swapped before the first
        for k in range(HAND):  # choice), and after it cards on the table (a round's cards stay there, swapped)
            d, c = int(s["dealt_hand"][p, k]), int(s["slot_card"][3 * p + k])
            if (d >= 0) != (3 * p + k in filled) or (ph in (PH_DEAL, PH_FIRST) and d >= 0 and d != c):
                return f"dealt_hand[{p}, {k}] = {d}, but the deal put {c} in slot {3 * p + k}"
            if d >= 0 and int(s["where"][d]) < 0:
                return f"dealt_hand[{p}, {k}] = {d} ({card_name(d)}), but that card is not on the table"
    # the phase and the turn state
    if (ph == PH_OVER) != bool(terminal):
        return f"phase = {ph} with terminal = {terminal}: only a finished game is over"
    to_act, turns, nhist = int(s["to_act"]), int(s["turns"]), int(s["nhist"])
    ender = max(int(s["passer"]), int(s["clawer"]))
    done = int(s["final_done"][:n].sum())
    if (ph == PH_OVER) != (int(s["end_reason"]) != END_NONE):
        return f"end_reason = {int(s['end_reason'])} in phase {ph}"
    if ph in (PH_DEAL, PH_OVER) and to_act != -1:
        return f"to_act = {to_act} in phase {ph}, when nobody acts"
    if ph in (PH_DEAL, PH_FIRST) and (turns or nhist or ender >= 0 or done or int(s["final_left"])):
        return f"turns = {turns}, nhist = {nhist} before the first choice is made"
    if ph == PH_FIRST and to_act != int(s["chooser"]):
        return f"to_act = {to_act} but the first choice is player {int(s['chooser'])}'s"
    if ph == PH_TURNS:
        if to_act < 0 or ender >= 0 or done or int(s["final_left"]):
            return f"to_act = {to_act}, passer/clawer = {ender}: normal turns go on until a pass or a claw"
        if not 1 <= turns < cfg.turn_cap * n or nhist != turns:
            return f"turns = {turns}, nhist = {nhist} in normal turns (bound {cfg.turn_cap * n})"
    if ph == PH_FINAL:
        if (int(s["passer"]) >= 0) == (int(s["clawer"]) >= 0):
            return "passer and clawer: exactly one of them ends the normal turns"
        if int(s["final_left"]) != n - 1 - done or int(s["final_left"]) < 1 or int(s["final_done"][ender]):
            return f"final_left = {int(s['final_left'])} with {done} last turns done"
        if to_act < 0 or to_act == ender or int(s["final_done"][to_act]) or nhist != turns + done:
            return f"to_act = {to_act}: the last turns go to the other players once each"
    if ph != PH_OVER and (int(s["verbied_by"]) >= 0 or s["round_pts"].any()):
        return "verbied_by or round_pts set before the round is over"
    if not terminal and int(s["round"]) >= cfg.max_rounds:
        return f"round = {int(s['round'])} but the game is not over after max_rounds = {cfg.max_rounds}"
    for t in range(HIST_MOVES):
        used = t < min(nhist, HIST_MOVES)
        if used != (int(s["hist_mover"][t]) >= 0) or used != (int(s["hist_action"][t]) >= 0):
            return f"hist_mover[{t}] / hist_action[{t}] do not match nhist = {nhist}"
    # the actions counted: no more than lead here (the fields above vouched for), so none can wrap int32
    most = _most_moves(s, cfg)
    if not 0 <= int(s["moves"]) <= most:
        return f"moves = {int(s['moves'])}, but at most {most} actions lead to this position"
    return _check_scores(s, cfg)


def _check_scores(s, cfg: Config) -> str:
    """The match scores, the winner and the returns: what the rounds played can give, and, once the
    game is over, what the showdown of its last round gives (replayed on a copy by :func:`_end_round`).

    A round gives a seat at most nul and verbied (1.1 points), all seats together at most a nul each
    and one verbied; a match whose unique leader reached the target is over; the safety bound on
    turns stops a game unscored.
    """
    n, rounds, reason = cfg.num_players, int(s["round"]), int(s["end_reason"])
    scores = [int(v) for v in s["scores"]]
    target = int(s["target"])
    if np.any(s["scores"][n:] != 0) or np.any(s["returns"][n:] != 0):
        return f"scores or returns of a seat beyond the {n} players are set"
    if not cfg.match and (rounds or any(scores)):
        return f"round = {rounds}, scores = {scores[:n]}: one round (match=False) keeps no match score"
    if max(scores) > rounds * (NUL_TENTHS + VERBIED_TENTHS) or \
            sum(scores) > rounds * (n * NUL_TENTHS + VERBIED_TENTHS):
        return f"scores = {scores[:n]} (tenths): {rounds} rounds cannot give that many points"
    if (int(s["verbied_by"]) >= 0) != (reason == END_VERBIED):
        return f"verbied_by = {int(s['verbied_by'])} with end_reason = {reason}: only a laid verbied ends so"
    if not int(s["terminal"]) or reason == END_CAP:
        if int(s["winner"]) != -1 or np.any(s["returns"] != 0) or np.any(s["round_pts"] != 0):
            return "winner, round_pts or returns set, but the game is not over or stopped unscored"
        if cfg.match and reason != END_CAP and sole_leader(scores[:n], target):
            return f"scores = {scores[:n]}: a player has won the match (target {target / 10:g}), yet it goes on"
        return ""
    undo = {"terminal": 0, "winner": -1, "worst": -1, "returns": 0.0, "round_pts": 0}
    if cfg.match:
        prior = s["scores"] - s["round_pts"]
        if rounds < 1 or prior.min() < 0 or sole_leader(prior[:n], target):
            return (f"round = {rounds}, scores = {scores[:n]}, round_pts = {s['round_pts'][:n].tolist()}: "
                    "the match did not end with its last round")
        undo.update(scores=prior, round=rounds - 1)
    return replay_end(s, lambda again: _end_round(again, reason), undo,
                      ("terminal", "round", "dealer", "chooser", "round_pts", "scores", "worst", "winner", "returns"),
                      "the showdown of the last round (the hands decide it)")


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is illegal for ``player`` in ``s``, in the rulebook's words."""
    cp = int(current_player(s))
    if cp == CHANCE:
        return "the cards are still being dealt"
    if cp == TERMINAL:
        return "the game is over"
    if player != cp:
        return f"it is player {cp}'s turn, not player {player}'s"
    if not 0 <= action < NUM_ACTIONS:
        return f"actions are 0..{NUM_ACTIONS - 1}"
    ph = int(s["phase"])
    block, _k = ACTIONS.locate(action)
    if ph == PH_FIRST:
        return ("the player left of the dealer may only keep their three cards or swap them with the "
                "three pot cards before the pot is laid open")
    if ph == PH_FINAL:
        who = "passed" if int(s["passer"]) >= 0 else "clawed the pot"
        return (f"player {max(int(s['passer']), int(s['clawer']))} {who}: the other players may only swap "
                f"one more card (with the pot or the closed card) or stand")
    if block.name == "stand":
        return "standing is only for the last turn after someone passed or clawed the pot"
    if block.name in ("keep", "swap_all"):
        return "the choice to keep or swap the whole hand is only for the first player of the round"
    return "the action is legal"


def _public_card(s, slot: int) -> str:
    """`` (♥K)`` when every seat knows the card in ``slot``, else ``""``: action strings are public."""
    c = int(s["slot_card"][slot])
    if c < 0 or not all(s["known"][v, slot] for v in range(int(s["num_players"]))):
        return ""
    return f" ({card_name(c)})"


def action_to_string(s, action: int) -> str:
    """A readable name, the same for every seat: ``swap hand 1 with pot 2 (♣8)`` etc.

    Action strings are public (every seat sees every move, by slot), so a card is
    named only where every seat knows it: an open pot card, or a hand card all
    seats have seen go there. At a chance node: ``deal ♣8 to P1`` (chance
    outcomes are resolved by the engine and shown to no seat).
    """
    a = int(action)
    if int(current_player(s)) == CHANCE and not s["terminal"]:
        if not 0 <= a < NUM_CARDS:
            return f"outcome {a}"
        slot = int(deal_slot(s))
        to = f"P{slot // 3}" if slot < POT0 else ("the pot" if slot < CLOSED else "the closed card")
        return f"deal {card_name(a)} to {to}"
    if not 0 <= a < NUM_ACTIONS:
        return f"action {a}"
    block, k = ACTIONS.locate(a)
    p = int(s["to_act"])

    def hand(i: int) -> str:
        return f"hand {i}" + (_public_card(s, 3 * p + i) if p >= 0 else "")

    if block.name == "swap":
        i, j = divmod(k, HAND)
        return f"swap {hand(i)} with pot {j}{_public_card(s, POT0 + j)}"
    if block.name == "closed":
        return f"swap {hand(k)} with the closed card"
    return {"keep": "keep", "swap_all": "swap hand with pot", "claw": "claw", "pass": "pass",
            "stand": "stand"}[block.name]


def stop_words(s) -> str:
    """What stopped a game that an engine bound stopped (``truncated``), in words for a picture; ``""`` else."""
    if not truncated(s):
        return ""
    if int(s["end_reason"]) == END_CAP:
        return " (stopped unscored at the safety bound on turns)"
    return f" (stopped at the round cap, max_rounds = {int(s['max_rounds'])}, with nobody the winner)"


def render(s, viewer: int | None = None) -> str:
    """A text picture of the table; with ``viewer`` only what that seat can see."""
    n = int(s["num_players"])
    lines = []
    played = int(s["round"]) - (1 if _last_round_counted(s) else 0)
    head = f"Full deck achten ({n} players) round {played + 1}, dealer P{int(s['dealer'])}, " \
           f"first choice P{int(s['chooser'])}"
    if s["match"]:
        head += f", match to {int(s['target']) / 10:g}"
    head += ", all cards shown" if viewer is None else f", as seen by P{viewer}"
    lines.append(head)

    def show(slot: int) -> str:
        c = int(s["slot_card"][slot])
        if c < 0:
            return "--"
        if viewer is None or s["known"][viewer, slot]:
            return card_name(c)
        return "??"

    for p in range(n):
        hand = " ".join(show(3 * p + k) for k in range(HAND))
        tags = []
        if int(s["passer"]) == p:
            tags.append("passed")
        if int(s["clawer"]) == p:
            tags.append("clawed")
        if int(s["verbied_by"]) == p:
            tags.append("laid verbied")
        shown = viewer is None or all(s["known"][viewer, 3 * p + k] for k in range(HAND))
        if (s["phase"] == PH_OVER or s["terminal"]) and shown:
            tags.append(f"hand {int(_hand_value_of(s, p))}")
        if s["match"]:
            pts = f"points {int(s['scores'][p]) / 10:g}"
        else:
            pts = f"round {int(s['round_pts'][p]) / 10:g}"
        me = " (you)" if viewer == p else ""
        lines.append(f"P{p}{me}: {hand:<14} {pts}  {' '.join(tags)}".rstrip())
    pot = " ".join(show(POT0 + j) for j in range(HAND))
    lines.append(f"pot: {pot}   closed card: {show(CLOSED)}")
    cp = int(current_player(s))
    if cp == CHANCE:
        lines.append(f"dealing: {int(s['dealt'])}/{3 * n + HAND + 1} cards dealt")
    elif cp == TERMINAL:
        r = [round(float(x), 3) for x in s["returns"][:n]]
        lines.append(f"game over{stop_words(s)}, returns {r}")
    else:
        what = {PH_FIRST: "first choice", PH_TURNS: "turn", PH_FINAL: "last turn"}[int(s["phase"])]
        lines.append(f"{what} of P{cp} (turn {int(s['turns']) + 1})")
    return "\n".join(lines)
