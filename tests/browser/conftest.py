"""A real `perudo serve` and Debian's Chromium (through Playwright's sync API) for browser tests.

Without Chromium the tests skip with one line; under CI=true they fail instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SERVER_START_SECONDS = 30.0
SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"


def _chromium() -> str:
    """The Chromium binary, or skip (fail under CI) with a one-line reason."""
    found = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if found is None:
        reason = f"Chromium not found at {CHROMIUM} or on PATH"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: browser tests must run)")
        pytest.skip(reason)
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a `perudo serve` subprocess: its own SQLite file, instant bots, and a short
    grace before a bot plays for a disconnected person."""
    _chromium()
    tmp = tmp_path_factory.mktemp("server")
    port = _free_port()
    env = {
        **os.environ,
        "PERUDO_DATABASE_URL": f"sqlite:///{tmp}/p.db",
        "PERUDO_BOT_DELAY_MS": "0",
        "PERUDO_DISCONNECT_GRACE_SECONDS": "3",
    }
    perudo = Path(sys.executable).with_name("perudo")
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [str(perudo), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            if proc.poll() is not None:
                pytest.fail(f"perudo serve exited: {(tmp / 'server.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("perudo serve did not answer /healthz in time")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium per test module (gone before other suites run); each test opens
    its own contexts."""
    executable = _chromium()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where phone-size screenshots go (git-ignored) for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
