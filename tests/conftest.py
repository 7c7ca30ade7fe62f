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
