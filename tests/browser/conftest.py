"""A real `perudo serve` and Debian's Chromium (through Playwright's sync API) for browser tests.

Without Chromium the tests skip with one line; under CI=true they fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.live_server import running_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
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


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a `perudo serve` subprocess: its own SQLite file, instant bots, and a short
    grace before a bot plays for a disconnected person."""
    _chromium()
    with running_server(
        tmp_path_factory.mktemp("server"), PERUDO_DISCONNECT_GRACE_SECONDS="3"
    ) as base:
        yield base


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
