"""Real clusters for the hosting tests: `deploy/local_cluster.py`'s nginx in front of several
`perudo serve` processes on a fresh PostgreSQL database each."""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import psycopg
import pytest

from tests.live_server import free_port

ROOT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get(
    "PERUDO_TEST_POSTGRES_ADMIN", "postgresql://postgres@127.0.0.1:5432/test"
)


def load_local_cluster() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "local_cluster", ROOT / "deploy" / "local_cluster.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["local_cluster"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


local_cluster = load_local_cluster()


def _require(what: str, found: bool) -> None:
    if not found:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{what} is missing (CI=true: the cluster tests must run)")
        pytest.skip(f"{what} is missing")


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database, dropped afterwards."""
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        _require("PostgreSQL at 127.0.0.1:5432", False)
        raise
    name = f"perudo_cluster_{secrets.token_hex(4)}"
    with admin:
        admin.execute(f"CREATE DATABASE {name}")
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        finally:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def cluster(database: str, tmp_path: Path) -> Iterator[Callable[[int], object]]:
    """Start a cluster of N instances (nginx on a free port), with more PERUDO_* settings if
    given; everything stops afterwards."""
    _require("nginx", shutil.which("nginx") is not None or Path("/usr/sbin/nginx").exists())
    started: list[object] = []

    def start(instances: int, **env: str) -> object:
        running = local_cluster.Cluster(
            free_port(),
            instances,
            env={
                "PERUDO_DATABASE_URL": database,
                "PERUDO_BOT_DELAY_MS": "0",
                "PERUDO_CALZA_WINDOW_MS": "0",
                "PERUDO_ROOMS_PER_MINUTE": "0",
                "PERUDO_DISCONNECT_GRACE_SECONDS": "600",
                **env,
            },
            home=tmp_path,
        )
        started.append(running)
        running.start()
        return running

    yield start
    for running in started:
        running.stop()  # type: ignore[attr-defined]
    for log in sorted(tmp_path.glob("instance-*.log")):
        text = log.read_text()
        assert "Traceback" not in text, f"{log.name}:\n{text[-3000:]}"
