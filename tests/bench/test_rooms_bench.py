"""`bench/rooms.py` runs and reports a figure (its numbers are read by people, not asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize(
    ("store", "extra"),
    [("memory", []), ("sqlite", ["--seeded-dice"]), ("memory", ["--events", "--players", "2"])],
)
def test_the_room_benchmark_plays_and_reports_cpu_per_action(store: str, extra: list[str]) -> None:
    command = ["rooms.py", "--rooms", "3", "--actions", "300", "--repeat", "1", "--store", store]
    command += extra
    done = subprocess.run(
        [sys.executable, *command],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"{store} store" in done.stdout
    players = extra[extra.index("--players") + 1] if "--players" in extra else "6"
    mode = "bid events" if "--events" in extra else "states"
    assert f"rooms of {players}, {mode}" in done.stdout
    found = re.search(
        r"room layer CPU per action: (\d+) µs \(of which the database writer thread: (\d+) µs\)",
        done.stdout,
    )
    assert found is not None, done.stdout
    process, writer = int(found.group(1)), int(found.group(2))
    assert process > 0 and 0 <= writer <= process
