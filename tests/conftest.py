"""Fixtures shared by several test folders."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def checkpoint_key(tmp_path_factory):
    """The key that signs the trainers' checkpoints (experiments/trainer.py, OCTAGAMES_CHECKPOINT_KEY) in a folder of
    the test session's, not the user's config folder (which may not be writable); the processes the tests start
    inherit it."""
    os.environ.setdefault("OCTAGAMES_CHECKPOINT_KEY", str(tmp_path_factory.mktemp("key") / "checkpoint.key"))
    yield


@pytest.fixture
def one_torch_thread():
    """Small MLPs run fastest on one thread on a shared CPU; restore the setting afterwards."""
    import torch  # only the tests that train import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


class _CtrlCAfterTwoGames:
    """A games' executor (``executor_from``'s) that plays two games, then is interrupted as by Ctrl-C
    (here or in Ray's wait)."""

    def run(self, game, agents, jobs, done, record=False):
        from octagames.agents.arena import play_game

        for key, lineup, seed in jobs[:2]:
            done(key, *play_game(game, [agents[i] for i in lineup], seed))
        raise KeyboardInterrupt


@pytest.fixture
def ctrl_c_after_two_games():
    """An executor for a verb's ``executor_from`` (monkeypatched): two games, then Ctrl-C."""
    return _CtrlCAfterTwoGames()
