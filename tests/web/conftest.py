"""The web tests' shared fixture: one app over an empty served folder per test module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A Starlette test client of the app serving an empty folder (with ``runs/``), as ``client.root`` (the
    modules that use it need the web extra, as their own imports say)."""
    from starlette.testclient import TestClient

    from octagames.web.app import create_app

    root = tmp_path_factory.mktemp("served")
    (root / "runs").mkdir()
    with TestClient(create_app(root), base_url="http://127.0.0.1") as c:
        c.root = root
        yield c
