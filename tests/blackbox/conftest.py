"""One real `perudo serve` for the whole black-box suite, started as PROTOCOL.md's judge would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.blackbox.wire import Server
from tests.live_server import running_server

FRIENDS = "https://friends.example"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("blackbox")
    with running_server(home, PERUDO_ALLOWED_ORIGINS=FRIENDS) as base:
        yield Server(base, home / "server.log")
    log = (home / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture(autouse=True)
def _close_sockets(server: Server) -> Iterator[None]:
    """Each test's sockets end with it, so no room sees ghosts from an earlier test."""
    yield
    server.close_all()
