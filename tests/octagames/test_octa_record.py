"""Octa's record check (``octagames.octa.check_record``): saved games are untrusted input.

Records reached in play pass; damaged ones are refused with one line naming the
field, before any compiled kernel (which does not check bounds) sees them. The
conformance suite feeds random and bit-flipped records to every kernel
(``tests/test_conformance.py::test_check_record_guards_the_kernels``).
"""

from __future__ import annotations

import base64
import hashlib
import pickle
import zlib

import numpy as np
import pytest

from octagames.core import Game
from octagames.envs.vector import make
from octagames.octa import EARLIER_STATE_DTYPES as EARLIER, check_record, common as C, en, nl, record as R

from octa_int32_records import SAVED

GAMES = {rules: Game("octa", rules=rules) for rules in ("en", "nl")}


def play(rules: str, seed: int):
    """Every record of one random game (chance by the record's RNG), the end included."""
    g = GAMES[rules]
    rng = np.random.default_rng(seed)
    s = g.new_state(seed)
    while True:
        yield s
        if g.is_terminal(s):
            return
        g.apply_action(s, g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s))))


def reach(rules: str, wanted, seeds=range(40)) -> np.void:
    """A copy of the first record of random play for which ``wanted(s)`` holds."""
    for seed in seeds:
        for s in play(rules, seed):
            if wanted(s):
                return s.copy()
    raise AssertionError("no such record reached")


def damaged(s: np.void, **fields) -> np.void:
    """A copy of ``s`` with ``fields`` set (``name=value`` or ``name=(index, value)``)."""
    bad = s.copy()
    for name, value in fields.items():
        if isinstance(value, tuple):
            bad[name][value[0]] = value[1]
        else:
            bad[name] = value
    return bad


@pytest.mark.parametrize("rules", ["en", "nl"])
def test_fresh_and_reached_records_pass(rules):
    g = GAMES[rules]
    assert check_record(g.new_state(0)) == ""
    ends = 0
    for seed in (1, 2):
        for s in play(rules, seed):
            assert check_record(s) == "", g.render(s)
            if not g.is_chance(s) and not g.is_terminal(s):  # each seat's determinization, the mover's and not
                for seat in (0, 1):  # the other seat's world leaves the mover a move in its public phase
                    d = g.determinize(s, seat, seed)
                    assert check_record(d) == "", (seat, g.render(d))
                    assert g.observation(d, seat).tobytes() == g.observation(s, seat).tobytes()
        ends += g.is_terminal(s)
    assert ends == 2


def test_every_field_has_a_range_under_both_rulebooks():
    located = {"rng", "rules", "max_turns", "returns", "loc", "lidx"}  # config, RNG, returns, by location
    for rules in (C.RULES_EN, C.RULES_NL):
        other = C.RULES_NL if rules == C.RULES_EN else C.RULES_EN
        bounded = {f for f, _, _ in R.field_bounds(rules, 0, 200)}
        assert set(C.make_state_dtype().names) - located == bounded | set(R.OWN_FIELDS[other])
        assert not bounded & set(R.OWN_FIELDS[other])


def test_config_and_ranges_are_named():
    s = GAMES["en"].new_state(0)
    cases = [(dict(rules=2), "rules = 2 is outside 0..1"),
             (dict(max_turns=0), "max_turns = 0 is outside 1..200"),
             (dict(pool=(3, 117)), "pool[3] = 117 is outside -1..79"),
             (dict(phase=14), "phase = 14 is outside 0..13"),
             (dict(run_card=((4, 7), -5)), "run_card[4, 7] = -5 is outside -1..79"),
             (dict(token_loc=(1, 3)), "token_loc[1] = 3 is outside 0..2"),
             (dict(joker=1), "joker = 1, but the English rules never set it (it stays 0)"),
             (dict(returns=(0, 0.5)), "returns = [0.5, 0.0]: each seat's return is -1, 0 or +1")]
    for fields, msg in cases:
        assert check_record(damaged(s, **fields)) == msg
    t = GAMES["nl"].new_state(0)
    assert check_record(damaged(t, token_loc=(0, C.TOK_POOL))) == "token_loc[0] = 2 is outside 0..1"
    assert check_record(damaged(t, opt_used=1)) == "opt_used = 1, but the Dutch rules never set it (it stays 0)"
    assert check_record(damaged(t, moves_turn=nl.MAX_MOVES + 1)) == f"moves_turn = {nl.MAX_MOVES + 1} is outside 0..8"


@pytest.fixture(scope="module")
def en_table():
    """An English record at the discard, with runs on the table, a stock, a full pool and 8 or fewer cards
    in the mover's hand."""
    return reach("en", lambda s: s["phase"] == en.PH_DISCARD and np.sum(s["run_owner"] >= 0) >= 2
                 and s["hand_n"][s["cur"]] <= C.HAND_LIMIT and s["stock_n"] > 0 and np.all(s["pool"] >= 0))


def test_cards_and_runs_are_checked_where_they_lie(en_table):
    s = en_table
    assert check_record(s) == ""
    r = int(np.flatnonzero(s["run_owner"] >= 0)[0])
    lo, hi = int(s["run_lo"][r]), int(s["run_hi"][r])
    p = int(s["cur"])
    k = int(np.flatnonzero(s["hand_cnt"][p])[0])
    free = int(np.flatnonzero(s["run_owner"] < 0)[0])
    c = int(s["pool"][0])
    assert check_record(damaged(s, run_lo=(r, hi + 1))).startswith(f"run {r}: run_suit = ")
    assert check_record(damaged(s, hand_cnt=((p, k), int(s["hand_cnt"][p, k]) + 1))).startswith(
        f"hand_cnt[{p}, {k}] = ")
    assert check_record(damaged(s, loc=(c, 42))).startswith(f"loc[{c}] = 42: a number card")
    assert check_record(damaged(s, lidx=(c, 9))) == f"lidx[{c}] = 9 is outside 0..7 for a card in the pool"
    assert check_record(damaged(s, pool=(0, -1))).startswith(f"card {c} ")  # the card still says it is there
    token = damaged(s, token_loc=(0, C.TOK_RUN), token_idx=(0, free), token_turn=(0, 1))
    assert check_record(token) == (f"token_loc[0] = 1, token_idx[0] = {free}, token_turn[0] = 1: the token is "
                                   f"not on a run of its seat")
    assert check_record(damaged(s, run_fd=((free, 3), 1))).startswith(f"run slot {free} is free")
    assert check_record(damaged(s, run_card=((r, lo - 1 if lo > 1 else hi + 1), c))).startswith("run_card[")
    assert check_record(damaged(s, adrawn=int(np.flatnonzero(s["loc"] == C.LOC_APILE)[0]))).startswith("adrawn = ")


def test_the_phase_and_its_fields_agree(en_table):
    s = en_table
    p = int(s["cur"])
    # phase 12 is the English hand-limit discard: only with more than 8 cards
    assert check_record(damaged(s, phase=en.PH_DDOWN)) == (
        f"hand_n[{p}] = {int(s['hand_n'][p])} with phase = 12 (hand limit discard): that phase is for more "
        f"than 8 cards")
    assert check_record(damaged(s, adrawn=-1, phase=C.PH_PILE)) == "adrawn = -1 with phase = 3 (action pile choice)"
    assert check_record(damaged(s, new_slot=3)) == "new_slot = 3 with phase = 11 (discard)"
    assert check_record(damaged(s, build_suit=1)) == "build_suit = 1, but build_lo = 0 (not in use)"
    assert check_record(damaged(s, terminal=1)) == (
        "phase = 11 (discard) with terminal = 1: the game is over exactly in phase 13")
    assert check_record(damaged(s, winner=p)).startswith("end_reason = 0, winner = ")
    assert check_record(damaged(s, cur=1 - p)).startswith(f"cur = {1 - p}, start_player = ")
    chance = damaged(s, phase=C.PH_CHANCE, ch_kind=C.CK_DRAW, ch_left=1, ch_next=en.PH_DISCARD)
    assert check_record(chance) == ("ch_kind = 0 (draw), ch_left = 1, ch_next = 11: not a chance step of the "
                                    "English rules")
    assert check_record(damaged(chance, ch_next=C.PH_PILE)) == ""  # the turn's draw: a chance node


def test_the_dutch_move_fields_belong_to_phase_12():
    s = reach("nl", lambda s: s["phase"] == nl.PH_MAIN and np.sum(s["run_owner"] >= 0) >= 1)
    r = int(np.flatnonzero(s["run_owner"] >= 0)[0])
    free = int(np.flatnonzero(s["run_owner"] < 0)[0])
    assert check_record(s) == ""
    assert check_record(damaged(s, move_slot=r, move_end=0, move_ret=nl.PH_MAIN)) == (
        f"move_slot = {r} with phase = 5 (steps 2-4, attaching, discard)")
    assert check_record(damaged(s, phase=R.PH_MOVE)) == f"move_slot = -1 with phase = 12 ({nl.PHASE_NAMES[12]})"
    assert check_record(damaged(s, move_end=1)) == "move_end = 1, but move_slot = -1 (not in use)"
    assert check_record(damaged(s, phase=R.PH_MOVE, move_slot=free, move_end=0, move_ret=nl.PH_MAIN)) == (
        f"move_slot = {free}, move_end = 0, move_ret = 5: a move takes an end (0 low, 1 high) of a run and goes "
        f"back to phase 4 or 5")
    assert check_record(damaged(s, phase=R.PH_MOVE, move_slot=r, move_end=0, move_ret=3)).startswith(
        f"move_slot = {r}, move_end = 0, move_ret = 3")
    assert check_record(damaged(s, move_ret=7)) == "move_ret = 7 is outside -1..5"
    # a move reached in play passes; one whose end card may not leave its run (3 cards) is refused
    def three_cards(s) -> list[int]:
        return [q for q in range(C.MAX_RUNS) if s["run_owner"][q] >= 0 and s["run_hi"][q] - s["run_lo"][q] == 2]

    moving = reach("nl", lambda s: s["phase"] == nl.PH_MOVE and three_cards(s), seeds=range(300))
    assert check_record(moving) == ""
    assert check_record(damaged(moving, move_slot=three_cards(moving)[0])).endswith(
        "that end card may not leave its run (a face-up card, and the run keeps 3 cards, one face up)")


def test_a_seat_without_a_legal_action_is_refused():
    # a run being laid from a lone card, and no other card of its suit left in the mover's hand
    s = reach("en", lambda s: s["phase"] == en.PH_BUILD and s["build_lo"] == s["build_hi"] and s["opt_used"] == 1)
    p, suit = int(s["cur"]), int(s["build_suit"])
    for c in range(C.NUM_NUMBER):
        if s["loc"][c] == C.LOC_HAND and s["lidx"][c] == p and c % 40 // 10 == suit and not s["inbuild"][c]:
            C.detach(s, c)
            C.to_stock(s, c)
    assert check_record(s) == f"phase = 6 (laying a run): P{p}, to move, has no legal action"


def test_the_faces_refuse_a_bad_saved_record(en_table):
    g = GAMES["en"]
    bad = damaged(en_table, pool=(3, 117))
    why = "not a valid octa record: pool[3] = 117 is outside -1..79"
    with pytest.raises(ValueError, match=why.replace("[", r"\[").replace("]", r"\]")):
        g.from_bytes(g.to_bytes(bad))
    env = make("octa", num_envs=2, seed=0, rules="en")
    env.reset()
    state = env.get_state()
    state["states"][1] = bad
    with pytest.raises(ValueError, match=r"state\['states'\]\[1\]: not a valid octa record: pool\[3\] = 117"):
        env.set_state(state)
    env.close()
    import octagames.envs.openspiel as eo

    spiel = eo.load("octa", rules="en")
    node = spiel.new_initial_state()
    node.record["pool"][3] = 117
    with pytest.raises(ValueError, match=r"pool\[3\] = 117"):
        pickle.loads(pickle.dumps(node))



def _saved_int32(name: str) -> tuple[bytes, np.void]:
    """A record saved under the int32 layout (before 2026-12-06), and the same position replayed today."""
    g = Game(name)
    f = SAVED[name]
    data = zlib.decompress(base64.b64decode("".join(f["saved"])))
    s = g.new_state(f["seed"])
    for a in f["actions"]:
        if g.is_chance(s):  # the record's RNG advanced by the game's draws (since 2026-12-07 a draw of one
            g.sample_chance(s)  # number lists the cards in kind order, so it may name another card than then)
        g.apply_action(s, a)
    return data, s


def _body(data: bytes) -> np.void:
    """The int32 record inside saved bytes (header, record, checksum)."""
    return np.frombuffer(data[len(data) - 8 - EARLIER[0].itemsize:-8], EARLIER[0]).copy()[0]


@pytest.mark.parametrize("name", ["octa-en", "octa-nl"])
def test_a_record_saved_under_the_int32_layout_loads_as_the_same_position(name):
    g = Game(name)
    data, replayed = _saved_int32(name)
    assert g.dtype.itemsize == 2848 and EARLIER[0].itemsize == 4332 and len(data) > 4332
    loaded = g.from_bytes(data)
    new = ("rs_up", "rs_hid", "rs_in", "rs_f", "rs_fd")  # appended on 2026-12-07: 0 in a record saved before
    assert loaded.dtype == g.dtype and all(not np.any(loaded[f]) for f in new)
    assert all(np.array_equal(loaded[f], replayed[f]) for f in g.dtype.names if f not in new)
    assert g.legal_actions(loaded) == g.legal_actions(replayed) != []
    before = g.earlier_observation_sizes[-1]  # the entries before the rebuilt stock's block
    for seat in (0, 1):
        np.testing.assert_array_equal(g.observation(loaded, seat)[:before], g.observation(replayed, seat)[:before])
    # a vector env's state saved with the old layout is read too, as the replayed records
    env = make(name, num_envs=2, seed=0)
    env.reset()
    old = np.stack([_body(data)] * 2)
    env.set_state({**env.get_state(), "states": old})
    assert env.states.dtype == g.dtype and env.states[1].tobytes() == loaded.tobytes()
    env.close()


def test_an_int32_record_whose_value_does_not_fit_is_refused_naming_the_field():
    g = Game("octa-en")
    data, _ = _saved_int32("octa-en")
    old = _body(data)
    assert g.relayout(old).tobytes() == g.from_bytes(data).tobytes()
    old["run_card"][3, 4] = 70_000
    why = r"field 'run_card' holds 70000 at \[3, 4\], which its type today \(int16\) cannot hold"
    with pytest.raises(ValueError, match=why):
        g.relayout(old)
    body = data[:len(data) - 8 - old.dtype.itemsize] + old.tobytes()  # saved again, checksum made again
    with pytest.raises(ValueError, match=why):
        g.from_bytes(body + hashlib.blake2b(body, digest_size=8).digest())
    with pytest.raises(ValueError, match="neither octa's record .* nor one of its earlier layouts"):
        g.relayout(np.zeros(2, [("loc", np.int32)]))
    env = make("octa-en", num_envs=1, seed=0)
    env.reset()
    with pytest.raises(ValueError, match=r"state\['states'\]: the record's field 'run_card' holds 70000"):
        env.set_state({**env.get_state(), "states": np.stack([old])})
    env.close()


def test_a_record_saved_before_the_rebuilt_fields_loads_with_them_0():
    # the layout of 2026-12-06 (2,612 bytes) lacks what the seats know of the English rebuilt stock (rs_*): a
    # game saved past the first exhaustion in it loads with those 0, its other fields as saved, and plays on
    from octagames.core import _format_tag
    g = Game("octa-en")
    s, rng = g.new_state(3), np.random.default_rng(3)
    while int(s["exhaust"]) == 0 or g.is_chance(s):
        g.apply_action(s, g.sample_chance(s) if g.is_chance(s) else int(rng.choice(g.legal_actions(s))))
    assert np.any(s["rs_up"]) and EARLIER[1].itemsize == 2612
    old = np.zeros((), EARLIER[1])
    for f in EARLIER[1].names:
        old[f] = s[f]
    body = _format_tag(g.name, EARLIER[1]) + old.tobytes()
    loaded = g.from_bytes(body + hashlib.blake2b(body, digest_size=8).digest())
    rebuilt = ("rs_up", "rs_hid", "rs_in", "rs_f", "rs_fd")
    assert set(g.dtype.names) - set(EARLIER[1].names) == set(rebuilt)
    assert all(not np.any(loaded[f]) for f in rebuilt)
    assert all(np.array_equal(loaded[f], s[f]) for f in EARLIER[1].names)
    assert g.legal_actions(loaded) == g.legal_actions(s)
    d = g.determinize(loaded, 0, 1)
    assert check_record(d) == "" and not np.any(d["rs_hid"])
    # and it plays on as then: draws from the stock keep nothing of it, saves round-trip (a review: the first
    # version counted those draws, and the record check refused the game after its next one)
    drew = 0
    for _ in range(120):
        if g.is_terminal(loaded):
            break
        drew += g.is_chance(loaded) and int(loaded["phase"]) == C.PH_CHANCE
        chance = g.is_chance(loaded)
        g.apply_action(loaded, g.sample_chance(loaded) if chance else int(rng.choice(g.legal_actions(loaded))))
        assert check_record(loaded) == "" and all(not np.any(loaded[f]) for f in rebuilt)
        assert g.from_bytes(g.to_bytes(loaded)).tobytes() == loaded.tobytes()
    assert drew > 0
    # today's record of the same game refuses the fields cleared one by one: they are checked, not ignored
    for f in ("rs_up", "rs_hid"):
        cut = g.clone(s)
        cut[f] = 0
        assert check_record(cut) != ""
