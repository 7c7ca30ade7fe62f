"""Tests of CFR and MCCFR checkpoints (octagames.agents.cfr.checkpoint): what they record, the agent that plays
them (``cfr:<checkpoint.npz>``) and the refusals for another game, another config, another solver or an old file."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from octagames import catalogue
from octagames.agents.cfr.agent import CFRAgent
from octagames.agents.cfr.mccfr import MCCFRSolver
from octagames.agents.cfr.solver import CFRSolver
from octagames.agents.registry import make_agent
from octagames.core import Game


@pytest.fixture(scope="module")
def small_mccfr(tmp_path_factory):
    """An MCCFR checkpoint of octrix-round-small (3 iterations) and its solver."""
    solver = MCCFRSolver(Game("octrix-round-small"), "external", seed=0)
    solver.iterate(3)
    path = tmp_path_factory.mktemp("mccfr") / "checkpoint.npz"
    solver.save(path)
    return path, solver


def _without_game(path, out):
    """A copy of a checkpoint as written before checkpoints recorded their solver, game and config."""
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k not in ("solver", "game", "game_config")}
    np.savez_compressed(out, **arrays)
    return out


def test_an_mccfr_checkpoint_records_its_game_and_config_as_text(small_mccfr):
    path, _ = small_mccfr
    small = Game("octrix-round-small")
    with np.load(path, allow_pickle=False) as z:
        assert str(z["solver"]) == "mccfr" and str(z["game"]) == "octrix"
        assert json.loads(str(z["game_config"])) == catalogue.full_config("octrix", small.config)
    again = MCCFRSolver.load(path)  # no game: the recorded one
    assert again.game.name == "octrix" and again.game.config == small.config


@pytest.mark.parametrize("other", ["octrix-round", "achten-dealer-pays", "octiles"])
def test_an_mccfr_checkpoint_is_refused_for_another_game_or_config(small_mccfr, other):
    path, _ = small_mccfr
    theirs = catalogue.describe(Game(other).name, Game(other).config)
    trained = rf"was trained on octrix-round-small-2p, not {theirs}.*play it with --game octrix-round-small"
    with pytest.raises(ValueError, match=trained):
        MCCFRSolver.load(path, Game(other))
    with pytest.raises(ValueError, match=rf"cfr:{re.escape(str(path))} {trained}"):
        make_agent(f"cfr:{path}", other)
    with pytest.raises(ValueError, match=trained):
        make_agent(f"cfr:{path}", Game(other))


def test_an_mccfr_checkpoint_plays_its_own_config(small_mccfr):
    path, solver = small_mccfr
    agent = make_agent(f"cfr:{path}", "octrix-round-small")
    assert agent.name == f"cfr:{path}" and agent.trained_on.config == Game("octrix-round-small").config
    expected = solver.table_policy().table
    assert set(agent.policy.table) == set(expected)
    for key, (acts, probs) in expected.items():
        np.testing.assert_array_equal(agent.policy.table[key][0], acts)
        np.testing.assert_allclose(agent.policy.table[key][1], probs)
    agent.reset(Game("octrix-round-small"), 0, seed=0)


def test_a_checkpoint_that_records_no_game_is_refused_with_train_again(small_mccfr, tmp_path):
    path, _ = small_mccfr
    old = _without_game(path, tmp_path / "old.npz")
    with pytest.raises(ValueError, match="records no game: it was written before .* train it again"):
        MCCFRSolver.load(old, Game("octrix-round-small"))
    with pytest.raises(ValueError, match=rf"cfr:{re.escape(str(old))} records no game: .* train it again"):
        make_agent(f"cfr:{old}", "octrix-round-small")


def test_the_agent_plays_an_exact_cfr_checkpoint_and_each_solver_names_the_other(tiny_octrix, small_mccfr, tmp_path):
    game, tree = tiny_octrix
    solver = CFRSolver(tree)
    solver.iterate(10)
    path = tmp_path / "cfr.npz"
    solver.save(path, game)
    agent = make_agent(f"cfr:{path}", game)
    assert isinstance(agent, CFRAgent) and agent.trained_on.config == game.config
    np.testing.assert_allclose(agent.policy.to_tree(tree), solver.average_policy())
    with pytest.raises(ValueError, match=r"ranks=2 here, 1 in training"):
        make_agent(f"cfr:{path}", "octrix-round-small")
    with pytest.raises(ValueError, match=r"is an exact CFR checkpoint .*, not an MCCFR checkpoint; read it with "
                                         r"CFRSolver.load"):
        MCCFRSolver.load(path, game)
    with pytest.raises(ValueError, match=r"is an MCCFR checkpoint .*, not an exact CFR checkpoint"):
        CFRSolver.load(small_mccfr[0], tree)


def test_exact_cfr_checkpoints_of_a_deal_pool_or_a_pyspiel_game_are_refused_in_one_line(tiny_octrix, kuhn, tmp_path):
    game, tree = tiny_octrix
    solver = CFRSolver(tree)
    solver.save(tmp_path / "pool.npz", game, {"k": 4, "seed": 0, "per_view": 1})
    with pytest.raises(ValueError, match=r"pool of 4 deals .* cannot be played") as e:
        make_agent(f"cfr:{tmp_path / 'pool.npz'}", game)
    assert "\n" not in str(e.value)
    CFRSolver(kuhn[1]).save(tmp_path / "kuhn.npz", "spiel:kuhn_poker")
    with pytest.raises(ValueError, match="trained on spiel:kuhn_poker, which is not one of our games"):
        make_agent(f"cfr:{tmp_path / 'kuhn.npz'}", "octrix-round-small")
    assert CFRSolver.load(tmp_path / "kuhn.npz", kuhn[1]).iteration == 0  # the solver reads it all the same


def test_a_missing_or_foreign_cfr_file_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"agent 'cfr:/missing.npz' is not valid: the checkpoint /missing.npz "
                                         r"does not exist"):
        make_agent("cfr:/missing.npz", "octrix-round-small")
    with pytest.raises(ValueError, match=r"the checkpoint runs/none/checkpoint.npz does not exist"):
        make_agent("cfr:runs/none/checkpoint.npz", "octrix-round-small")
    with pytest.raises(ValueError, match="a number of MCCFR iterations"):  # not a path: the usage
        make_agent("cfr:many", "octrix-round-small")
    (tmp_path / "notes.npz").write_text("not an archive")
    with pytest.raises(ValueError, match="is not a CFR or MCCFR checkpoint"):
        make_agent(f"cfr:{tmp_path / 'notes.npz'}", "octrix-round-small")
    np.savez(tmp_path / "other.npz", weights=np.zeros(3))
    with pytest.raises(ValueError, match="is not a CFR or MCCFR checkpoint"):
        make_agent(f"cfr:{tmp_path / 'other.npz'}", "octrix-round-small")


def _tables(solver) -> tuple:
    if isinstance(solver, MCCFRSolver):
        return (solver.iteration, sorted((k, solver.regrets[k].tolist(), solver.strategy_sum[k].tolist())
                                         for k in solver.masks))
    return solver.iteration, solver.regrets.tolist(), solver.strategy_sum.tolist(), solver.sigma.tolist()


def test_every_damaged_byte_of_a_checkpoint_is_refused_in_words_or_changes_nothing(tiny_octrix, small_mccfr,
                                                                                    tmp_path):
    """A damaged checkpoint raised whatever numpy or zipfile met (BadZipFile, zlib.error, KeyError, EOFError,
    NotImplementedError, a header's TokenError: a traceback from the command line), and a byte flipped in an
    array's data could load unseen (numpy reads an array without checking the archive's CRC)."""
    game, tree = tiny_octrix
    exact = CFRSolver(tree)
    exact.iterate(5)
    exact.save(tmp_path / "cfr.npz", game)
    loads = {"mccfr": (small_mccfr[0], lambda p: MCCFRSolver.load(p, Game("octrix-round-small"))),
             "cfr": (tmp_path / "cfr.npz", lambda p: CFRSolver.load(p, tree))}
    for kind, (path, load) in loads.items():
        data, want, refused = path.read_bytes(), _tables(load(path)), 0
        for offset in range(0, len(data), max(1, len(data) // 250)):
            bad = tmp_path / f"bad-{kind}.npz"
            bad.write_bytes(data[:offset] + bytes([data[offset] ^ 0xFF]) + data[offset + 1:])
            try:
                got = _tables(load(bad))
            except ValueError as e:
                assert str(bad) in str(e), (kind, offset, e)
                refused += 1
                continue
            assert got == want, (kind, offset)  # a flip in a byte nothing reads (a date, an extra field)
        assert refused > 150, (kind, refused)


def _arrays(path) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _lying_member(path, out, name: str, shape: tuple) -> None:
    """A copy of a checkpoint whose member ``name`` has a header declaring ``shape`` over its own data."""
    import io
    import zipfile

    arrays = _arrays(path)
    np.savez_compressed(out, **{k: v for k, v in arrays.items() if k != name})
    npy = io.BytesIO()
    np.lib.format.write_array_header_1_0(npy, {"descr": np.lib.format.dtype_to_descr(arrays[name].dtype),
                                               "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(out, "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{name}.npy", npy.getvalue() + arrays[name].tobytes())


def test_tables_that_do_not_fit_the_game_or_inflate_past_their_shape_are_refused_before_they_are_read(
        small_mccfr, tiny_octrix, tmp_path):
    """Every array was inflated whole and no shape was checked: tables one action wide loaded (and failed in
    numpy's words at the next iteration, or played uniformly), 50 MB of zeros in a 50 kB file loaded, a header
    declaring more than its data gave numpy's EOF error naming no file, and an exact CFR checkpoint of another
    slot count numpy's broadcast error."""
    path, solver = small_mccfr
    small, arrays = Game("octrix-round-small"), _arrays(path)
    n, actions = len(arrays["players"]), small.num_actions
    cases = {
        "narrow": ({t: np.ones((n, 1)) for t in ("masks", "regrets", "strategy_sum")},
                   rf"its array 'masks' is \({n}, 1\) of float64, not \({n}, {actions}\)"),
        "rows": ({"regrets": np.zeros((200_000, actions))},
                 rf"its array 'regrets' is \(200000, {actions}\) of float64, not \({n}, {actions}\)"),
        "keys": ({"keys": np.zeros((n, 3), np.uint8)}, rf"its array 'keys' is \({n}, 3\) of uint8, not \({n}, 16\)"),
        "entry": ({"rng_state": np.array("x" * (1 << 19))}, r"its member 'rng_state.npy' is a single <U524288 of "
                                                           r"2097280 bytes; a checkpoint's entries take at most"),
        "bomb": ({"players": np.zeros(300_000, np.int32), "keys": np.zeros((300_000, 16), np.uint8),
                  **{t: np.zeros((300_000, actions)) for t in ("masks", "regrets", "strategy_sum")}},
                 r"its array 'players' declares 300000 information sets, more than a file of \d+ bytes holds"),
    }
    for label, (change, words) in cases.items():
        bad = tmp_path / f"{label}.npz"
        np.savez_compressed(bad, **{**arrays, **change})
        for load in (lambda p: MCCFRSolver.load(p, small), lambda p: make_agent(f"cfr:{p}", small)):
            with pytest.raises(ValueError, match=re.escape(str(bad)) + ".*" + words):
                load(bad)
    _lying_member(path, tmp_path / "lying.npz", "masks", (n, actions * 8))
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "lying.npz")) + r".*its member 'masks.npy' "
                                         rf"declares \d+ bytes, but its header \(\({n}, {actions * 8}\) of float64\)"):
        MCCFRSolver.load(tmp_path / "lying.npz", small)
    assert len(MCCFRSolver.load(path, small).masks) == len(solver.masks)  # the checkpoint itself loads
    game, tree = tiny_octrix
    exact = CFRSolver(tree)
    exact.save(tmp_path / "cfr.npz", game)
    np.savez_compressed(tmp_path / "slots.npz", **{**_arrays(tmp_path / "cfr.npz"),
                                                   "regrets": np.zeros(tree.num_slots + 5)})
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "slots.npz")) + rf".*its array 'regrets' is "
                                         rf"\({tree.num_slots + 5},\) of float64, not \({tree.num_slots},\)"):
        CFRSolver.load(tmp_path / "slots.npz", tree)


def test_tables_of_many_actions_that_inflate_far_past_the_file_are_refused(tmp_path):
    """The row count alone let zeros of a game of many actions through: one row per 8 bytes of the file (padded
    with bytes that do not compress) and 284 actions a row gave tables of about 850 bytes per byte of file."""
    game = Game("octiles")
    path = tmp_path / "empty.npz"
    MCCFRSolver(game, "outcome", seed=0).save(path)
    n, rng = 8000, np.random.default_rng(0)
    bad = tmp_path / "zeros.npz"
    np.savez_compressed(bad, **{**_arrays(path), "players": np.zeros(n, np.int32), "keys": np.zeros((n, 16), np.uint8),
                                **{t: np.zeros((n, game.num_actions)) for t in ("masks", "regrets", "strategy_sum")},
                                "pad": rng.integers(0, 256, 80_000, dtype=np.uint8)})
    assert n <= bad.stat().st_size // 8 and 3 * n * game.num_actions * 8 > 256 * bad.stat().st_size + (1 << 20)
    with pytest.raises(ValueError, match=re.escape(str(bad)) + rf".*its tables of {n} information sets and "
                                         rf"{game.num_actions} actions would take \d+ bytes once read, more than 256"):
        MCCFRSolver.load(bad, game)
    assert len(MCCFRSolver.load(path, game).masks) == 0  # the empty checkpoint itself loads


def test_tables_no_game_could_have_written_are_refused_in_words(small_mccfr, tmp_path):
    """A review: a checkpoint whose mask row had no legal action loaded, and cfr:<path> then raised ZeroDivisionError
    in table_policy; masks of other values and NaN regrets loaded as well."""
    path, _ = small_mccfr
    small, arrays = Game("octrix-round-small"), _arrays(path)
    empty, two, nan = arrays["masks"].copy(), arrays["masks"].copy(), arrays["regrets"].copy()
    empty[0] = 0
    two[0, np.flatnonzero(two[0])[0]] = 2
    nan[0, 0] = np.nan
    for label, change, words in (("empty", {"masks": empty}, r"its table 'masks' holds a row that is no legal-action "
                                                             r"mask"),
                                 ("two", {"masks": two}, r"its table 'masks' holds a row that is no legal-action mask"),
                                 ("nan", {"regrets": nan}, r"its tables 'regrets' and 'strategy_sum' hold NaN or "
                                                           r"infinity")):
        bad = tmp_path / f"{label}.npz"
        np.savez_compressed(bad, **{**arrays, **change})
        for load in (lambda p: MCCFRSolver.load(p, small), lambda p: make_agent(f"cfr:{p}", small)):
            with pytest.raises(ValueError, match=re.escape(str(bad)) + ": " + words):
                load(bad)
