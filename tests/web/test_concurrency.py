"""The app's handlers run in a thread pool: requests for the same replay at once must see what one
request alone sees (a replay's per-seat caches are filled under its lock, as a game's are)."""

from __future__ import annotations

import sys
import threading

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")

import numpy as np  # noqa: E402

from octagames import records  # noqa: E402
from octagames.core import make_game  # noqa: E402
from octagames.testing import play_recorded, random_chooser  # noqa: E402
from octagames.web.app import Server  # noqa: E402


def test_views_of_one_replay_from_many_threads_equal_single_threaded_views(tmp_path):
    game = make_game("achten")
    actions = play_recorded(game, 3, [random_chooser(np.random.default_rng(p)) for p in range(2)])
    rec = records.Recorder(game, 3, ["random", "random"])
    s = game.new_state(3)
    for a in actions:
        rec.apply(s, a)
    text = rec.record(s).to_json()
    steps = [len(actions) * i // 7 for i in range(8)]
    seats = [None, 0, 1]
    ref, _ = Server(tmp_path).open_replay({"text": text})
    want = {(k, seat): ref.view(k, seat) for k in steps for seat in seats}  # one thread, step by step
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch often: the unlocked caches were filled twice
    try:
        for trial in range(6):
            replay, _ = Server(tmp_path).open_replay({"text": text})
            got: dict = {}
            barrier = threading.Barrier(len(steps))

            def run(k: int) -> None:
                barrier.wait()
                for seat in seats:
                    got[k, seat] = replay.view(k, seat)

            threads = [threading.Thread(target=run, args=(k,)) for k in reversed(steps)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for key, view in want.items():
                assert got[key]["history"] == view["history"], (trial, key)
                assert replay.view(*key)["history"] == view["history"], (trial, key)  # the caches stay right
    finally:
        sys.setswitchinterval(interval)
