"""A running app per test: its own SQLite file, bots that answer at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from tests.ws.helpers import running_app, settings_for


@pytest.fixture
def http(tmp_path: Path) -> Iterator[TestClient]:
    with running_app(settings_for(tmp_path)) as client:
        yield client


@pytest.fixture
def connect(http: TestClient) -> Callable[[str], AbstractContextManager[WebSocketTestSession]]:
    def open_socket(room_id: str) -> AbstractContextManager[WebSocketTestSession]:
        return http.websocket_connect(f"/ws/{room_id}")

    return open_socket
