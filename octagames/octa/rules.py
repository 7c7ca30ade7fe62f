"""Octa rules engine ("The Game of 8"): English rules and Dutch rules (``rules="nl"``).

Octa is a two-player rummy-like game with two 52-card decks. Number cards (A,
2..10) form runs of one suit; Jacks, Queens and Kings are *action cards* turned
one per turn onto two face-up piles, usable when the two visible action cards
share a suit. A pool ring of 8 face-up cards, two tokens and face-down cards
complete the table. English aim: an *Octa* (a run of 8+ face-up cards) and 28+
face-up cards in your runs; Dutch aim: an Octa, then an empty hand.

Where things live: this module binds the engine contract (the config, the
facts, the Python-side helpers, which look up the record's rulebook by its
``rules`` field, 0 = en, 1 = nl). Each rulebook's rules, phases, action table,
observation, strings and illegal-move reasons are in its own module,
:mod:`octagames.octa.en` or :mod:`octagames.octa.nl`; the turn machinery both
share (deal, chance, the action card's pile, turn start and end, game end) and
the contract's kernels are :mod:`octagames.octa.turn`, over a rulebook bound at
compile time (:func:`kernel_module`: a config's kernels contain its rulebook
alone; the kernels exported here pick it by the record, through
:mod:`octagames.octa.dispatch`); the table pieces and the record are
:mod:`octagames.octa.common`; names, the text render and the observation
blocks both layouts share are :mod:`octagames.octa.view`. The rule
interpretations are traced in ``docs/rules/octa_en.md`` and ``docs/rules/octa_nl.md``.

Card ids
--------
``0..79``: number cards ``copy*40 + suit*10 + rank-1`` (rank 1 = ace; suits
♥ ♠ ♦ ♣). ``80..103``: action cards ``80 + copy*12 + suit*3 + type`` (type 0
Jack, 1 Queen, 2 King). A card's *kind* is ``c % 40`` (number) — copies are
interchangeable for the rules, so player actions name kinds, never copies.

Phases and action tables
------------------------
Each rulebook module declares its phases and its action table (``ACTIONS``, a
:class:`~octagames.core.Layout`; the tables are in their docstrings):
:mod:`octagames.octa.en` and :mod:`octagames.octa.nl`. Both tables fill the one
action space of ``NUM_ACTIONS`` ids and begin with the shared action-card step
(put the turned card on pile 0 / 1, decline its use); :func:`action_layout`
gives the table of a config, and the strings and illegal-move reasons look up
the block of an action there.

Chance outcome ids are card ids (stock number cards, or action cards never
seen), plus 0/1 for the start player: ``max_chance_outcomes`` = 104.
The stock is an unordered set: each stock draw draws uniformly among the
cards in it, so no stock order is stored. Hidden action cards (stack and
set-aside) are one unordered set too: no one has seen which are set aside.

State (``STATE_DTYPE``, see :func:`octagames.octa.common.make_state_dtype`)
----------------------------------------------------------------------------
``loc[c]``/``lidx[c]`` place every card: stock, hand (seat), pool (slot), run
(slot*12 + position, face up or down per ``run_fd``), discard (depth),
hidden action cards, action pile (pile*24 + depth), turned action card.
``hand_cnt``, ``stock_n``, ``pool``, ``disc``, ``run_*``, ``apile`` index the
same placement. Runs live in 26 global slots (every run holds >= 3 physical
cards, 80 // 3 = 26); positions 1..11 (11 = the high ace). ``pub[c]`` marks
hand cards the other seat saw being taken (Jack, Queen, King from the discard
pile, option B, the exchange, cards shown while laying a run). Tokens:
``token_loc`` (centre / own run / pool line), ``token_idx``, ``token_turn``.

Observations
------------
Each rulebook module declares its observation layout (``OBS_LAYOUT``, a
:class:`~octagames.core.Layout`; the tables are in their docstrings). Blocks
both layouts have mean the same in both (:mod:`octagames.octa.view` writes
them); :func:`obs_layout` gives the layout of a config and
``Game.observation_views`` its named views. Seats are relative to the viewer
and every entry lies in [0, 1]. Face-down cards are shown only as face down;
the stock, the hidden action cards and the opponent's hand cards not taken
openly are not shown. Everything a player has seen that still matters is
there: the discard order is public, pool and runs are face up.

Game length
-----------
Every turn draws a stock card and the stock is rebuilt once, so a game has
at most 56 + 72 + 1 turns; the engine cap ``max_turns`` (default and maximum
200) ends the game like the second stock exhaustion in any case. One turn
has at most ``TURN_ACTION_BOUND`` = 300 actions, chance included (at most 8
chance draws, 1 pile choice, 1 use, 13 option steps, 80 additions, 80
face-down replacements, 2 exchange steps, 80 discards, 1 end), so
``max_game_length`` = 26 + 1 + 200 * 300.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from octagames.core import CHANCE, TERMINAL, GameInfo, check_choice, check_range
from octagames.octa import en, nl
from octagames.octa import view
from octagames.octa.view import card_name, chance_string  # card_name: a public helper of the package
from octagames.octa.common import (BASE_OBS_SIZE, EARLIER_OBS_SIZES, FACT_SITUATION_ROW,  # noqa: F401
                                   NUM_ACTIONS, NUM_CARDS, NUM_FACTS, NUM_NUMBER, OBS_SIZE, RULES_NL,
                                   SETUP_DEALS, make_state_dtype)
from octagames.octa.en import TURN_ACTION_BOUND
# the kernels: the turn machinery with the rulebook chosen by the record (octagames.octa.dispatch)
from octagames.octa.turn import (acting_player, apply_action, apply_legal, chance_outcomes,  # noqa: F401
                                 current_player, determinize, legal_mask, observation, reset, returns,
                                 sample_chance)
from octagames.specialize import nested, specialize

RULE_SETS = ("en", "nl")
MAX_TURNS_LIMIT = 200

STATE_DTYPE = make_state_dtype()
#: record layouts of earlier versions that :meth:`octagames.core.Game.from_bytes` still reads: until 2026-12-06
#: the fields that hold card ids, locations, indices and counts were int32 like the others (4,332 bytes a record);
#: until 2026-12-07 the fields ``rs_*`` (what the seats know of the English rules' rebuilt stock) were not there,
#: and such a record reads with them 0 (``determinize`` then constrains nothing there, as it did then)
EARLIER_STATE_DTYPES = (make_state_dtype(np.int32, rebuilt=False), make_state_dtype(rebuilt=False))

INFO = GameInfo(
    name="octa",
    min_players=2,
    max_players=2,
    num_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    observation_size=OBS_SIZE,
    max_game_length=SETUP_DEALS + 1 + MAX_TURNS_LIMIT * TURN_ACTION_BOUND,
    min_utility=-1.0,
    max_utility=1.0,
    chance_mode="explicit",
    dynamics="sequential",
    information="imperfect",
)


@dataclass(frozen=True)
class Config:
    """Octa configuration.

    Attributes:
        rules: ``"en"`` (the English rulebook) or ``"nl"`` (the Dutch one,
            version 18-09-25, in :mod:`octagames.octa.nl`).
        num_players: always 2.
        max_turns: engine cap on the number of turns (1..200); when reached the
            game ends like the second stock exhaustion (most face-up cards in
            runs wins). The stock limits a game to about 130 turns anyway.
    """

    rules: str = "en"
    num_players: int = 2
    max_turns: int = MAX_TURNS_LIMIT

    def __post_init__(self) -> None:
        check_choice("rules", self.rules, list(RULE_SETS))
        check_range("num_players", self.num_players, 2, 2)
        check_range("max_turns", self.max_turns, 1, MAX_TURNS_LIMIT)


def max_game_length(config: Config) -> int:
    """Bound on the actions of a game under ``config`` (setup, then ``max_turns`` bounded turns)."""
    return SETUP_DEALS + 1 + config.max_turns * TURN_ACTION_BOUND


def observation_bounds(config: Config) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise bounds of the observation under ``config``: everything is in [0, 1] but the hand sizes
    of the ``facts`` block's situation row (cards / 10, up to the 80 number cards: 8)."""
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    row = BASE_OBS_SIZE + FACT_SITUATION_ROW * NUM_FACTS
    high[[row + 2, row + 7]] = NUM_NUMBER / 10
    return low, high


def obs_layout(config: Config):
    """The observation layout (:class:`~octagames.core.Layout`) of ``config``'s rulebook.

    Both layouts fill the same ``OBS_SIZE`` entries; ``Game.observation_views`` names its blocks.
    """
    return (nl if config.rules == "nl" else en).OBS_LAYOUT


def action_rows(config: Config) -> tuple[str, np.ndarray]:
    """For learners: ``("facts", refs)``, the observation block of facts per card (rows of
    :data:`~octagames.octa.common.FACTS`) and ``refs[action]``, the up to 3 rows each action of
    ``config``'s rulebook is about (-1 for none): a network ranks actions by the facts of the cards they
    move (:func:`octagames.agents.learn.az.action_rows`)."""
    return "facts", (nl if config.rules == "nl" else en).FACT_REFS


def action_layout(config: Config):
    """The action table (:class:`~octagames.core.Layout`) of ``config``'s rulebook.

    Both tables fill the same ``NUM_ACTIONS`` ids; ``locate`` names the block of an id.
    """
    return (nl if config.rules == "nl" else en).ACTIONS


def write_config(s, config: Config) -> None:
    """Store ``config`` in record ``s`` (before :func:`reset`)."""
    s["rules"] = RULE_SETS.index(config.rules)
    s["max_turns"] = config.max_turns



def kernel_module(config: Config) -> str:
    """The module the compiled kernels of ``config`` come from: the turn machinery over its rulebook alone.

    :class:`~octagames.core.Game` and the faces specialise their templates on it
    (:func:`octagames.specialize.nested`), so a process playing English Octa
    compiles no Dutch rule and the other way round.
    """
    return nested("octagames.octa.turn", book=f"octagames.octa.{config.rules}")


def checked_play(config: Config) -> Callable[..., int]:
    """The compiled self-check over ``config``'s kernels: ``kernel(s, max_steps, stats, check=True) -> int``
    plays record ``s`` to its end with uniformly random legal actions (chance by the record's RNG) and
    checks the table after every action (:func:`octagames.octa.checks.validate`).

    ``stats`` (int64[4]) receives the steps, the player decisions, the turns and the most steps in
    one turn; the result is 0, or the first check's error code (``checks.ERROR_NAMES``; the game
    stops there), or ``E_NO_LEGAL`` / ``E_TOO_LONG`` (more than ``max_steps`` actions).
    ``check=False`` plays without checking (for timing). A cached entry point
    (``octagames/octa/_checked_play_template.py``), compiled by the warm-up.
    """
    return specialize("octagames.octa._checked_play_template", game=kernel_module(config)).random_game


# ---------------------------------------------------------------- Python-side helpers
def _book(s):
    """The rulebook module of the record's rule set."""
    return nl if int(s["rules"]) == RULES_NL else en


def action_to_string(s, action: int) -> str:
    """A readable name of ``action`` in state ``s`` (chance outcomes included).

    Depends only on what every seat sees: a face-down card is named by the card it stands for.
    """
    a = int(action)
    if int(current_player(s)) == CHANCE:
        return chance_string(s, a)
    if not 0 <= a < NUM_ACTIONS:
        return f"action {a} (out of range)"
    book = _book(s)
    block, i = book.ACTIONS.locate(a)
    return book.STRINGS[block.name](s, i)


def illegal_reason(s, player: int, action: int) -> str:
    """Why ``action`` is not legal for ``player`` in ``s``, in the rulebook's words (what ``player`` sees)."""
    a = int(action)
    cp = int(current_player(s))
    if cp == TERMINAL:
        return "the game is over"
    if cp == CHANCE:
        return "the cards are being dealt or drawn (a chance event comes first)"
    if player != cp:
        return f"it is P{cp}'s turn"
    if not 0 <= a < NUM_ACTIONS:
        return f"actions are 0..{NUM_ACTIONS - 1}"
    book = _book(s)
    block, i = book.ACTIONS.locate(a)
    return book.REASONS[block.name](s, int(player), i, book.PHASE_NAMES[int(s["phase"])])


def render(s, viewer: int | None = None) -> str:
    """A text picture of the table; with ``viewer`` only what that seat can see, without one everything
    (the first line says which)."""
    return view.render(s, viewer, _book(s))
