"""The Octa turn machinery both rulebooks share, and the engine contract's kernels, over one rulebook.

A rulebook module (:mod:`octagames.octa.en`, :mod:`octagames.octa.nl`) holds
only its own rules: the legal actions of its phases and what each action does.
Everything else is written once, here:

* the setup deal and the start player (chance), and every chance draw inside a
  turn: a rulebook asks for one with :func:`~octagames.octa.common.start_chance`
  (it only sets the record), and :func:`settle` resolves it after the action,
  skipping what an empty stock cannot give;
* the step every turn begins with (draw a card, turn an action card, put it on
  a pile, use it or decline), the start of a turn and its end (the stock's last
  turn, the turn cap, the other seat's turn);
* after every player action, the rulebook's win check and, when its ``apply``
  returns True, the end of the turn; the game end scores the seats with the
  rulebook's ``score`` when nobody has won;
* the kernels of the engine contract (``legal_mask``, ``apply_action``, ...),
  which :mod:`octagames.octa.rules` exports.

The rulebook is the module bound to ``book``, the hooks it provides (the same
names in both):

==========================  ==================================================
``gen_legal(s, p, out)``    its legal actions in phases from ``PH_USE`` on (the
                            shared decline is set already)
``apply(s, a) -> bool``     the effect of a legal action; True ends the turn
``observation(s, p, out)``  a seat's observation, in its own layout
``turn_start(s)``           clear its per-turn fields
``winner(s) -> int``        a seat that has won now, or -1
``score(s, p) -> int``      a seat's score when the game ends without a winner
``enter(s, phase)``         go on to player phase ``phase`` (after chance)
``after_action_step(s)``    go on after the action card was placed or declined
``stock_emptied(s)``        the last stock card was just drawn
``restock_actions(s)``      an action card must be turned and the stack is empty
``chance_fits(s, p) -> bool``  seat ``p``, whose turn waits on a chance draw, can go on
                            after it (:func:`determinize` redraws a world where not)
==========================  ==================================================

``book`` is bound at compile time, by :mod:`octagames.specialize` (its import
line is marked): ``specialize("octagames.octa.turn", book="octagames.octa.en")``
is this module over the English rulebook alone, and the kernels compiled from
it contain no Dutch rule (and its digest no Dutch source); this is what
:class:`~octagames.core.Game` and the faces compile for a config
(:func:`octagames.octa.rules.kernel_module`). Imported as it is, the module
binds :mod:`octagames.octa.dispatch`, which picks the rulebook by the record's
``rules`` field at run time: the package's own kernels run either rulebook.

The thin kernels (``legal_mask``, ``apply_action``, ``observation``, ...) and
``gen_legal`` are inlined where they are called (``inline="always"``): numba
optimises and emits machine code for every compiled function together with all
it calls, so each wrapper between an entry point and the rules would compile
the rules once more. For the same reason constant arguments are passed as
``np.int64(...)`` / ``np.bool_(...)``: numba compiles a function once per
*literal* value it is called with (``finish_game(s, END_WIN)`` and
``finish_game(s, END_CAP)`` would be two compiles), once per type otherwise.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from octagames.core import CHANCE, TERMINAL, rng_below, seed_rng
from octagames.octa import dispatch as book  # specialize: book
from octagames.octa.common import (BASE_OBS_SIZE, CK_ACTION, CK_AFLIP, CK_DRAW, CK_FD, CK_JOKER, CK_REFILL,
                                   END_CAP, FACT_ROWS, NUM_FACTS, END_STOCK, END_WIN, HAND_LIMIT, LOC_ADRAWN,
                                   LOC_AHIDDEN, LOC_HAND, LOC_JOKER, LOC_RUN, LOC_STOCK, NPOS, NUM_ACTIONS,
                                   NUM_CARDS, NUM_KINDS, NUM_NUMBER, PH_CHANCE, PH_DEAL, PH_OVER, PH_PILE,
                                   PH_START, PH_USE, POOL_SLOTS, SETUP_DEALS, TOK_CENTRE,
                                   action_tops_match, clear_build, detach, first_empty_slot, hidden_action_count,
                                   hidden_from, hidden_kinds, kind_of, kind_order, nth_card_at, place_action,
                                   random_stock_card, rebuild_known, rebuilt_need, start_chance, to_hand, to_pool,
                                   to_run)
from octagames.octa.view import obs_facts

# The action-card step every turn begins with: the first ids of both action tables.
A_PILE = 0         # 2: put the turned action card on pile 0 / 1
A_DECLINE = 2      # 1: do not use the action card


# ---------------------------------------------------------------- the record
@nb.njit
def reset(s, seed) -> None:
    """Start a new game in ``s`` (keeping its config): every card in the stock or the action stack.

    Args:
        s: a record with its config written by ``write_config``.
        seed: seeds the record's RNG (used by :func:`sample_chance`).
    """
    seed_rng(s, seed)
    s["phase"] = PH_DEAL
    s["cur"] = 0
    s["start_player"] = -1
    s["deal_i"] = 0
    s["ch_kind"] = 0
    s["ch_left"] = 0
    s["ch_next"] = 0
    s["ch_slot"] = -1
    s["ch_pos"] = -1
    s["jack_slot"] = -1
    s["jack_pos"] = -1
    s["turn"] = 0
    s["moves"] = 0
    s["terminal"] = 0
    s["winner"] = -1
    s["end_reason"] = 0
    s["returns"][:] = 0.0
    for c in range(NUM_CARDS):
        s["loc"][c] = LOC_STOCK if c < NUM_NUMBER else LOC_AHIDDEN
        s["lidx"][c] = 0
    s["pub"][:] = 0
    s["bflag"][:] = 0
    s["inbuild"][:] = 0
    s["hand_cnt"][:, :] = 0
    s["hand_n"][:] = 0
    s["stock_n"] = NUM_NUMBER
    s["pool"][:] = -1
    s["disc"][:] = -1
    s["disc_n"] = 0
    s["run_owner"][:] = -1
    s["run_suit"][:] = -1
    s["run_lo"][:] = 0
    s["run_hi"][:] = 0
    s["run_card"][:, :] = -1
    s["run_fd"][:, :] = 0
    s["token_loc"][:] = TOK_CENTRE
    s["token_idx"][:] = -1
    s["token_turn"][:] = -1
    s["apile"][:, :] = -1
    s["apile_n"][:] = 0
    s["astack_n"] = 16
    s["aside_n"] = 8
    s["adrawn"] = -1
    s["anew_pile"] = -1
    s["exhaust"] = 0
    s["final_turn"] = 0
    s["exch_used"] = 0
    s["discarded"] = 0
    clear_build(s)
    s["b_done"] = 0
    s["opt_used"] = 0
    s["b_run_done"] = 0
    s["new_slot"] = -1
    s["ptoken_lines"] = 0
    s["under"][:] = -1
    s["res_n"][:] = 0
    s["octa_mask"][:] = 0
    s["step2_used"] = 0
    s["token_run_laid"] = 0
    s["joker"] = 0
    s["kpick_seat"] = -1
    s["kpick_left"] = 0
    s["moves_turn"] = 0
    s["move_slot"] = -1
    s["move_end"] = -1
    s["move_ret"] = -1
    s["rs_up"][:] = 0
    s["rs_hid"][:, :] = 0
    s["rs_in"][:] = 0
    s["rs_f"] = 0
    s["rs_fd"][:] = 0


@nb.njit
def current_player(s) -> int:
    """The seat to move, CHANCE, or TERMINAL."""
    if s["terminal"]:
        return TERMINAL
    ph = s["phase"]
    if ph == PH_DEAL or ph == PH_START or ph == PH_CHANCE:
        return CHANCE
    return s["cur"]


# ---------------------------------------------------------------- turns and the end
@nb.njit
def finish_game(s, reason) -> None:
    """End the game: ``END_WIN`` (``winner`` set), else the higher rulebook score wins (equal: a draw)."""
    s["terminal"] = 1
    s["phase"] = PH_OVER
    s["end_reason"] = reason
    if reason != END_WIN:
        a = book.score(s, np.int64(0))
        b = book.score(s, np.int64(1))
        s["winner"] = 0 if a > b else (1 if b > a else -1)
    w = s["winner"]
    if w >= 0:
        s["returns"][w] = 1.0
        s["returns"][1 - w] = -1.0


@nb.njit
def begin_turn(s) -> None:
    """Start the turn of seat ``cur``: clear the turn's fields, then draw one stock card."""
    s["turn"] += 1
    s["exch_used"] = 0
    s["discarded"] = 0
    s["b_done"] = 0
    s["anew_pile"] = -1
    s["jack_slot"] = -1  # a face-down card laid by an earlier turn's Jack may be replaced from now on
    s["jack_pos"] = -1
    book.turn_start(s)
    start_chance(s, CK_DRAW, 1, PH_PILE)


@nb.njit
def end_turn(s) -> None:
    """End the turn: the game ends after the stock's last turn or at the turn cap, else the other seat plays."""
    for c in range(NUM_NUMBER):
        s["bflag"][c] = 0
    if s["final_turn"]:
        finish_game(s, np.int64(END_STOCK))
    elif s["turn"] >= s["max_turns"]:
        finish_game(s, np.int64(END_CAP))
    else:
        s["cur"] = 1 - s["cur"]
        begin_turn(s)


@nb.njit
def settle(s) -> None:
    """Leave chance states that have nothing left to draw (an empty stock gives what it can).

    Once the turn's draw is done the action card is turned (a new stack first
    if the stack is empty); after any other chance sequence the rulebook enters
    the phase it asked for.
    """
    while s["phase"] == PH_CHANCE:
        k = s["ch_kind"]
        if k == CK_ACTION:
            return
        if k == CK_AFLIP and s["ch_left"] > 0:
            return
        if (k == CK_DRAW or k == CK_FD or k == CK_JOKER) and s["ch_left"] > 0 and s["stock_n"] > 0:
            return
        if k == CK_REFILL and s["stock_n"] > 0 and first_empty_slot(s) >= 0:
            return
        s["ch_left"] = 0
        nxt = s["ch_next"]
        if nxt == PH_PILE:
            if s["astack_n"] == 0:
                book.restock_actions(s)
            s["ch_kind"] = CK_ACTION
        else:
            book.enter(s, nxt)


# ---------------------------------------------------------------- chance
@nb.njit
def _draws_action_card(s) -> bool:
    """Whether the pending chance node turns a hidden action card (else it draws a stock card)."""
    if s["phase"] == PH_DEAL:
        return s["deal_i"] >= POOL_SLOTS + 2 * HAND_LIMIT
    return s["phase"] == PH_CHANCE and (s["ch_kind"] == CK_ACTION or s["ch_kind"] == CK_AFLIP)


@nb.njit
def chance_outcomes(s, actions, probs) -> int:
    """Outcomes of the pending chance node: stock cards, hidden action cards, or the start seat."""
    ph = s["phase"]
    if ph == PH_START:
        actions[0] = 0
        actions[1] = 1
        probs[0] = 0.5
        probs[1] = 0.5
        return 2
    if ph != PH_DEAL and ph != PH_CHANCE:
        return 0
    action_card = _draws_action_card(s)
    lo = NUM_NUMBER if action_card else 0
    hi = NUM_CARDS if action_card else NUM_NUMBER
    want = LOC_AHIDDEN if action_card else LOC_STOCK
    n = 0
    for j in range(hi - lo):  # in kind order, as sample_chance draws
        c = kind_order(j, lo, hi)
        if s["loc"][c] == want:
            actions[n] = c
            n += 1
    for i in range(n):
        probs[i] = 1.0 / n
    return n


@nb.njit
def sample_chance(s) -> int:
    """Draw the pending chance outcome with the record's RNG."""
    # every branch returns int64 (rng_below is unsigned; mixing would type the result as float)
    ph = s["phase"]
    if ph == PH_START:
        return np.int64(rng_below(s, 2))
    if _draws_action_card(s):
        n = hidden_action_count(s)
        return np.int64(nth_card_at(s, LOC_AHIDDEN, np.int64(rng_below(s, n)), NUM_NUMBER, NUM_CARDS))
    if ph == PH_DEAL or ph == PH_CHANCE:
        return np.int64(random_stock_card(s))
    return np.int64(-1)


@nb.njit
def apply_chance(s, o) -> bool:
    """Apply chance outcome ``o``; False (``s`` untouched) if it is not possible."""
    ph = s["phase"]
    if ph == PH_START:
        if o != 0 and o != 1:
            return False
        s["start_player"] = o
        s["cur"] = o
        s["moves"] += 1
        begin_turn(s)
        settle(s)
        return True
    if o < 0 or o >= NUM_CARDS:
        return False
    if ph == PH_DEAL:
        i = s["deal_i"]
        if i < POOL_SLOTS + 2 * HAND_LIMIT:
            if o >= NUM_NUMBER or s["loc"][o] != LOC_STOCK:
                return False
            detach(s, o)
            if i < POOL_SLOTS:
                to_pool(s, o, i)
            else:
                to_hand(s, o, (i - POOL_SLOTS) // HAND_LIMIT, False)
        else:
            if o < NUM_NUMBER or s["loc"][o] != LOC_AHIDDEN:
                return False
            place_action(s, o, i - POOL_SLOTS - 2 * HAND_LIMIT)
            s["astack_n"] -= 1
        s["deal_i"] = i + 1
        if i + 1 == SETUP_DEALS:
            s["phase"] = PH_START
        s["moves"] += 1
        return True
    if ph != PH_CHANCE:
        return False
    k = s["ch_kind"]
    if k == CK_ACTION or k == CK_AFLIP:
        if o < NUM_NUMBER or s["loc"][o] != LOC_AHIDDEN:
            return False
        s["astack_n"] -= 1
        s["moves"] += 1
        if k == CK_ACTION:
            s["loc"][o] = LOC_ADRAWN
            s["lidx"][o] = 0
            s["adrawn"] = o
            s["phase"] = PH_PILE
        else:
            place_action(s, o, 2 - s["ch_left"])
            s["ch_left"] -= 1
            settle(s)
        return True
    if o >= NUM_NUMBER or s["loc"][o] != LOC_STOCK:
        return False
    detach(s, o)
    rebuilt = rebuild_known(s)  # the card comes from the stock rebuilt (English), and the record follows it
    if k == CK_DRAW:
        to_hand(s, o, s["cur"], False)
        s["ch_left"] -= 1
        if rebuilt:
            s["rs_in"][s["cur"]] += 1
    elif k == CK_REFILL:
        to_pool(s, o, first_empty_slot(s))
    elif k == CK_FD:
        to_run(s, o, s["ch_slot"], s["ch_pos"], True)
        if rebuilt:
            s["rs_fd"][o] = 1
        s["jack_slot"] = s["ch_slot"]  # "later": not replaceable in this turn
        s["jack_pos"] = s["ch_pos"]
        s["ch_left"] = 0
    else:  # CK_JOKER: face down in front of the seat, until the rulebook lays it
        s["loc"][o] = LOC_JOKER
        s["lidx"][o] = s["cur"]
        s["ch_left"] = 0
    s["moves"] += 1
    if s["stock_n"] == 0:
        book.stock_emptied(s)
    settle(s)
    return True


# ---------------------------------------------------------------- player actions
@nb.njit(inline="always")
def gen_legal(s, p, out) -> int:
    """Write ``p``'s legal actions into ``out`` (zeroed first); return their number."""
    out[:] = 0
    if s["terminal"] or p != s["cur"]:
        return 0
    ph = s["phase"]
    if ph == PH_PILE:
        out[A_PILE] = 1
        out[A_PILE + 1] = 1
        return 2
    n = 0
    if ph == PH_USE:
        out[A_DECLINE] = 1  # "You are never required to perform an action" / "niet verplicht"
        n = 1
    return n + book.gen_legal(s, p, out)


@nb.njit
def apply_player(s, a, checked) -> bool:
    """Apply player action ``a`` of the seat to move, then what follows it.

    Args:
        s: the record.
        a: the action id.
        checked: refuse (False, ``s`` untouched) an action that is not legal;
            without it ``a`` must come from the legal mask (the contract's fast apply).

    Returns:
        True if applied.
    """
    if checked:
        if a < 0 or a >= NUM_ACTIONS or s["terminal"] or s["phase"] < PH_PILE:
            return False
        mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
        gen_legal(s, np.int64(s["cur"]), mask)  # the int64 seat of legal_mask: one compile
        if mask[a] == 0:
            return False
    s["moves"] += 1
    end = False
    if a < A_DECLINE:  # the action card goes on the chosen pile; usable if both tops share a suit
        place_action(s, s["adrawn"], a - A_PILE)
        s["adrawn"] = -1
        s["anew_pile"] = a - A_PILE
        if action_tops_match(s):
            s["phase"] = PH_USE
        else:
            book.after_action_step(s)
    elif a == A_DECLINE:
        book.after_action_step(s)
    else:
        end = book.apply(s, a)
    settle(s)
    if not s["terminal"]:
        w = book.winner(s)
        if w >= 0:
            s["winner"] = w
            finish_game(s, np.int64(END_WIN))
    if end and not s["terminal"]:
        end_turn(s)
        settle(s)
    return True


# ---------------------------------------------------------------- the engine contract's kernels
@nb.njit(inline="always")
def acting_player(s) -> int:
    """Same as :func:`current_player` (the game is sequential)."""
    return current_player(s)


@nb.njit(inline="always")
def legal_mask(s, player, out) -> int:
    """Legal actions of ``player`` (zeros unless it is their decision).

    Args:
        s: the record.
        player: the seat asking.
        out: uint8[NUM_ACTIONS], overwritten with the mask.

    Returns:
        the number of legal actions.
    """
    if current_player(s) != player:
        out[:] = 0
        return 0
    return gen_legal(s, player, out)


@nb.njit(inline="always")
def apply_action(s, action) -> bool:
    """Apply a chance outcome or the mover's action.

    Args:
        s: the record, changed in place.
        action: a chance outcome id at chance nodes, else a player action id.

    Returns:
        True if applied; False (and ``s`` untouched) if the action is illegal.
    """
    return _apply(s, action, np.bool_(True))


@nb.njit(inline="always")
def apply_legal(s, action) -> bool:
    """:func:`apply_action` for an action known to be legal (from :func:`legal_mask`): the
    player's move skips the legality check (the contract's optional fast apply; chance
    outcomes are still checked)."""
    return _apply(s, action, np.bool_(False))


@nb.njit(inline="always")
def _apply(s, action, checked) -> bool:
    # a chance outcome or the mover's action; ``checked``: refuse an illegal player action
    cp = current_player(s)
    if cp == TERMINAL:
        return False
    if cp == CHANCE:
        return apply_chance(s, action)
    return apply_player(s, action, checked)


@nb.njit(inline="always")
def returns(s, out) -> None:
    """+1 for the winner, -1 for the loser, 0 for both in a draw or before the end."""
    out[0] = s["returns"][0]
    out[1] = s["returns"][1]


@nb.njit(inline="always")
def observation(s, player, out) -> None:
    """Write ``player``'s information state in the layout of the rulebook (``OBS_LAYOUT``).

    Args:
        s: the record.
        player: the viewing seat (seats in the tensor are relative to it).
        out: float32[OBS_SIZE], overwritten; every entry lies in [0, 1].
    """
    book.observation(s, player, out)


@nb.njit(inline="always")
def observation_facts(s, player, out) -> None:
    """Only the ``facts`` block of ``player``'s observation (both rulebooks put it after
    ``BASE_OBS_SIZE``): the entries :func:`observation` writes there, the others left as they are. For
    learners that read that block alone (a learned rollout policy of rank 0,
    :mod:`octagames.agents.search.learned_rollouts`): a third of the observation's cost."""
    for i in range(BASE_OBS_SIZE, BASE_OBS_SIZE + FACT_ROWS * NUM_FACTS):
        out[i] = 0.0
    obs_facts(s, player, out, BASE_OBS_SIZE)


# ---------------------------------------------------------------- hidden information
#: shuffles :func:`determinize` draws at most for a world in which the seat to move has a legal action
DETERMINIZE_TRIES = 10_000


@nb.njit
def determinize(s, player, seed) -> None:
    """Resample what ``player`` cannot see, consistently with what they saw; reseed the RNG.

    The unseen number cards are the stock, every face-down card (in a run, or
    a joker in front of a seat) and the opponent's hand cards not taken openly;
    they are shuffled among those places (each place keeps its number of
    cards). Hidden action cards form an unordered set already, so nothing of
    them is stored to resample. Where the opponent is to move, the phase it is
    in is public (laying a run, the Jack's joker ...) and its hand must allow a
    move there, and where a chance draw of its turn waits (the Dutch joker, offered only to a hand that can
    use it: the rulebook's ``chance_fits``, since 2026-12-07, when a review found 112 of 200 worlds there
    leaving it no move) its hand must allow one after: a shuffle that leaves it none is drawn again, up to
    :data:`DETERMINIZE_TRIES` times. The last draw stands even then (never the
    true cards, which ``player`` must not learn); in 39,188 determinizations for
    either seat over 80 random games none was left without a move.

    After the English rules' first exhaustion the seat knows more: the face-up
    cards that went into the rebuilt stock are in it still, or where its cards
    went unseen (a face-down card laid from it, the opponent's hand cards that
    came from it), unless a copy of the kind has come into view since
    (:func:`~octagames.octa.common.rebuilt_need`). Each shuffle is then mended:
    a copy owed there that lies elsewhere swaps with a random card in such a
    place whose kind is not owed there as often (:func:`_meet_need`), so every
    world drawn agrees with what the seat saw go into the stock; and then
    capped: the stock and those face-down cards hold only what can have come
    from it (no more copies of a kind than went in face up, but for as many
    cards as went in face down: :func:`_cap_stock`). Of the
    opponent's hidden hand cards, as many as it took from the rebuilt stock
    (``rs_in``; which of them is unknown) are such places. What was hidden from
    the opponent right after the rebuild (``rs_hid``) is the opponent's own: the
    world gets the least the cards it holds imply (at most 2 copies of a kind,
    those hidden from it now and those that went face up into the stock).

    The world drawn depends only on ``player``'s information state and ``seed``: the unseen cards, in kind
    order (:func:`~octagames.octa.common.kind_order`: both copies of a kind together), are shuffled into the
    places in the order of the places (:func:`_hidden_places`), never in an order that follows where the cards
    truly lie. Until 2026-12-07 the places were listed by the card each held, and then the cards by id (two
    states that ``player`` could not tell apart, one holding the other copy of a kind, listed the hidden kinds
    in another order): such states drew different worlds from one seed. Chance draws in kind order too
    (:func:`sample_chance`), so the worlds' futures agree by kind as well.
    """
    seed_rng(s, seed)
    opp = 1 - player
    ids = np.empty(NUM_NUMBER, dtype=np.int64)
    dloc = np.empty(NUM_NUMBER, dtype=np.int64)
    didx = np.empty(NUM_NUMBER, dtype=np.int64)
    n = 0
    for j in range(NUM_NUMBER):  # in kind order: which kind goes where does not depend on which copy is hidden
        c = kind_order(j, 0, NUM_NUMBER)
        if hidden_from(s, c, player):
            ids[n] = c
            dloc[n] = s["loc"][c]
            didx[n] = s["lidx"][c]
            n += 1
    _hidden_places(dloc, didx, n)
    # the places' public marks: a face-down card laid from the rebuilt stock; where its owed copies may lie
    fd = np.zeros(n, dtype=np.uint8)
    post = np.zeros(n, dtype=np.uint8)
    need = np.empty(NUM_KINDS, dtype=np.int64)
    owed = rebuilt_need(s, player, need)
    known = rebuild_known(s)
    took = s["rs_in"][opp]
    for i in range(n):
        if dloc[i] == LOC_RUN:
            fd[i] = s["rs_fd"][s["run_card"][didx[i] // NPOS, didx[i] % NPOS]]
        post[i] = dloc[i] == LOC_STOCK or fd[i] == 1 or (dloc[i] == LOC_HAND and took > 0)
        if dloc[i] == LOC_HAND and took > 0:
            took -= 1
    mask = np.empty(NUM_ACTIONS, dtype=np.uint8)
    mover = current_player(s)
    for _ in range(DETERMINIZE_TRIES):
        for i in range(n - 1, 0, -1):
            j = rng_below(s, i + 1)
            t = ids[i]
            ids[i] = ids[j]
            ids[j] = t
        if owed > 0:
            _meet_need(s, ids, post, need, n)
        if known:
            _cap_stock(s, ids, dloc, fd, n)
        _place(s, ids, dloc, didx, fd, n, opp)
        if mover == opp:
            fits = gen_legal(s, mover, mask) > 0
        else:  # a draw in the opponent's turn (the Dutch Jack's joker) must leave it a move after
            fits = mover != CHANCE or s["cur"] != opp or book.chance_fits(s, opp)
        if fits:
            break
    if known:  # what the opponent could see at the rebuild is not the seat's to know: the least the world implies
        hid = np.empty(NUM_KINDS, dtype=np.int64)
        hidden_kinds(s, opp, hid)
        for k in range(NUM_KINDS):
            s["rs_hid"][opp, k] = min(2, hid[k] + s["rs_up"][k])


@nb.njit
def _meet_need(s, ids, post, need, n) -> None:
    """Mend a shuffle (``ids`` over the ``n`` places) so that at least ``need[k]`` copies of each kind ``k``
    lie in the places marked ``post``: a copy of an owed kind outside them, drawn at random, swaps with a
    random card in them whose kind holds more copies there than it is owed. A record that owes more than
    its places can hold (never one of a game) is left as far as it could be mended."""
    cnt = _count_inside(ids, post, n)
    out_ok = np.zeros(NUM_KINDS, dtype=np.bool_)
    in_ok = np.zeros(NUM_KINDS, dtype=np.bool_)
    for k in range(NUM_KINDS):
        while cnt[k] < need[k]:
            for k2 in range(NUM_KINDS):
                out_ok[k2] = k2 == k
                in_ok[k2] = k2 != k and cnt[k2] > need[k2]
            if not _swap_across(s, ids, post, n, cnt, out_ok, in_ok):
                return


@nb.njit
def _cap_stock(s, ids, dloc, fd, n) -> None:
    """Mend a shuffle so that the rebuilt stock's places (the stock, the face-down cards laid from it: ``fd``)
    hold only what can have come from it: beyond the copies of each kind that went in face up (``rs_up``), no
    more cards than went in face down (``rs_f``). A card over that swaps with a random hidden card elsewhere
    whose kind has fewer copies in those places than went in face up (the copies owed there by
    :func:`_meet_need` stay: their kind is not over, and those places are among the ones it fills)."""
    inside = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        inside[i] = dloc[i] == LOC_STOCK or fd[i] == 1
    cnt = _count_inside(ids, inside, n)
    over = 0
    for k in range(NUM_KINDS):
        over += max(0, cnt[k] - s["rs_up"][k])
    out_ok = np.zeros(NUM_KINDS, dtype=np.bool_)
    in_ok = np.zeros(NUM_KINDS, dtype=np.bool_)
    while over > s["rs_f"]:
        for k in range(NUM_KINDS):
            out_ok[k] = cnt[k] < s["rs_up"][k]
            in_ok[k] = cnt[k] > s["rs_up"][k]
        if not _swap_across(s, ids, inside, n, cnt, out_ok, in_ok):
            return
        over -= 1


@nb.njit
def _count_inside(ids, inside, n) -> np.ndarray:
    """Copies per kind among the cards of the places marked ``inside``."""
    cnt = np.zeros(NUM_KINDS, dtype=np.int64)
    for i in range(n):
        if inside[i]:
            cnt[kind_of(ids[i])] += 1
    return cnt


@nb.njit
def _swap_across(s, ids, inside, n, cnt, out_ok, in_ok) -> bool:
    """Swap a random card outside the places marked ``inside`` whose kind ``k`` has ``out_ok[k]`` with a random
    card inside whose kind has ``in_ok``, and count the kinds inside (``cnt``) again; False if either is
    missing (nothing swapped)."""
    a = 0
    b = 0
    for i in range(n):
        k = kind_of(ids[i])
        if inside[i] == 0 and out_ok[k]:
            a += 1
        elif inside[i] == 1 and in_ok[k]:
            b += 1
    if a == 0 or b == 0:  # nothing drawn from the RNG: a shuffle that needs no mending draws as it did before
        return False
    src = _nth_place(ids, inside, n, 0, out_ok, rng_below(s, a))
    dst = _nth_place(ids, inside, n, 1, in_ok, rng_below(s, b))
    cnt[kind_of(ids[src])] += 1
    cnt[kind_of(ids[dst])] -= 1
    t = ids[src]
    ids[src] = ids[dst]
    ids[dst] = t
    return True


@nb.njit
def _nth_place(ids, inside, n, side, ok, j) -> int:
    """The ``j``-th place (from 0) among the ``n`` with ``inside`` equal to ``side`` whose card's kind ``k`` has
    ``ok[k]``."""
    for i in range(n):
        if inside[i] == side and ok[kind_of(ids[i])]:
            if j == 0:
                return i
            j -= 1
    return -1


@nb.njit
def _hidden_places(dloc, didx, n) -> None:
    """Sort the first ``n`` places (``dloc[i]``, ``didx[i]``) by place: where the cards lie in order (the stock by
    position, the runs by slot, the hand), as the information state names them, whatever card each holds."""
    order = np.argsort(dloc[:n] * (1 << 20) + didx[:n], kind="mergesort")  # an index is far below 2**20
    loc, idx = dloc[:n][order], didx[:n][order]
    dloc[:n] = loc
    didx[:n] = idx


@nb.njit
def _place(s, ids, dloc, didx, fd, n, opp) -> None:
    """Put card ``ids[i]`` at place ``i`` (``dloc[i]``, ``didx[i]``) face down for every ``i < n`` (marked laid
    from the rebuilt stock where ``fd[i]``), and count ``opp``'s hand again."""
    for i in range(n):
        c = ids[i]
        s["loc"][c] = dloc[i]
        s["lidx"][c] = didx[i]
        s["pub"][c] = 0
        s["bflag"][c] = 0
        s["inbuild"][c] = 0
        s["rs_fd"][c] = fd[i]
        if dloc[i] == LOC_RUN:
            s["run_card"][didx[i] // NPOS, didx[i] % NPOS] = c
    s["hand_cnt"][opp, :] = 0
    for c in range(NUM_NUMBER):
        if s["loc"][c] == LOC_HAND and s["lidx"][c] == opp:
            s["hand_cnt"][opp, kind_of(c)] += 1
