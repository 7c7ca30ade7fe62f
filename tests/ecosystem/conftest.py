"""Fixtures of the ecosystem suite (its games are in ``ecosystem_cases.py``).

The suite drives the real clients (Gymnasium, PettingZoo, SuperSuit, Stable-Baselines3 /
sb3-contrib, TorchRL: the ``ecosystem`` extra) against our faces, unchanged, as a user
would. Budgets are small: a client's whole loop runs, not a training.
"""

from __future__ import annotations

import warnings

import pytest
import torch

@pytest.fixture(autouse=True)
def _one_torch_thread():
    """Small networks run fastest on one thread on a shared CPU; restore the setting afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def _sb3_logs_in_tmp_path(tmp_path, monkeypatch):
    """SB3's default logger creates an empty ``SB3-<date>`` folder per model in the system's temporary
    folder; with ``SB3_LOGDIR`` it uses the test's own folder instead (no dated folder), which pytest
    cleans up."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))


@pytest.fixture(autouse=True)
def _quiet_client_advice():
    # PettingZoo's and SB3's checkers advise Box observations; the dict
    # {"observation", "action_mask"} is PettingZoo's classic convention
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested using version")
        yield
