"""`bench/rooms.py` runs and reports a figure (its numbers are read by people, not asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_room_benchmark_plays_and_reports_cpu_per_action() -> None:
    done = subprocess.run(
        [sys.executable, "rooms.py", "--rooms", "3", "--actions", "300", "--repeat", "1"],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"room layer CPU per action: (\d+) µs", done.stdout)
    assert found is not None, done.stdout
    assert int(found.group(1)) > 0
