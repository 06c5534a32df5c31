"""The running app for API tests: its own SQLite file in a temp dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.ws.helpers import running_app, settings_for


@pytest.fixture
def http(tmp_path: Path) -> Iterator[TestClient]:
    with running_app(settings_for(tmp_path)) as client:
        yield client
