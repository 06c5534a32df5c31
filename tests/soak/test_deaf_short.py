"""The short run of bench/deaf.py (issue 13): a watcher that stops reading is closed with 1008
once its frames pile up, while the other rooms play on (their latency is reported, read by
people: see bench/README.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
SCRIPT = Path(__file__).parents[2] / "bench" / "deaf.py"


def test_clients_that_do_not_read_are_closed_and_the_rest_play_on() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--rooms", "12", "--watched", "2", "--rate", "40",
         "--watched-rate", "400", "--seconds", "10"],
        capture_output=True, text=True, timeout=170, check=False,
    )  # fmt: skip
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "| deaf sockets closed with 1008 | | 2 of 2 |" in done.stdout
    assert "| other rooms: p99 latency (ms) |" in done.stdout
