"""A real `perudo serve` process on a free port, for tests that go through the network."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

START_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_server(home: Path, **env: str) -> Iterator[str]:
    """Serve from `home` (its SQLite file in `home/data`, its log in `home/server.log`) with
    instant bots, no limit on new rooms and the given PERUDO_* overrides; yield the base URL,
    stop it afterwards."""
    port = free_port()
    environment = os.environ | {
        "PERUDO_DATABASE_URL": f"sqlite:///{home / 'data' / 'perudo.db'}",
        "PERUDO_BOT_DELAY_MS": "0",
        "PERUDO_CALZA_WINDOW_MS": "0",
        "PERUDO_ROOMS_PER_MINUTE": "0",  # suites create rooms faster than players would
        **env,
    }
    log = home / "server.log"
    perudo = Path(sys.executable).parent / "perudo"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(perudo), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=home,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"perudo serve exited:\n{log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"perudo serve did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
