"""Fixtures shared by several test folders."""

from __future__ import annotations

import pytest


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
