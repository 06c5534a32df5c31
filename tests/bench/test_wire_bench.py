"""`bench/wire.py` plays its steps against both stacks (without valgrind here: a server under
it takes a minute to start), and reads the count from the dump `callgrind_control` wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import wire  # noqa: E402  (bench/ is not a package)

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(
    "extra", [["--stack", "real"], ["--stack", "bare"], ["--players", "6", "--dudo", "--plain"]]
)
def test_the_steps_are_played_on_either_stack(extra: list[str]) -> None:
    command = [sys.executable, "wire.py", "--no-valgrind", "--rooms", "3", "--steps", "3"]
    done = subprocess.run(
        [*command, *extra], cwd=BENCH, capture_output=True, text=True, timeout=100, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "9 steps played" in done.stdout, done.stdout


def test_the_count_is_the_dumps_not_the_one_written_at_the_exit(tmp_path: Path) -> None:
    header = "version: 1\ncreator: callgrind-3.19.0\n"
    (tmp_path / "callgrind.out.7").write_text(header + "desc: Trigger: Program termination\n")
    (tmp_path / "callgrind.out.7.1").write_text(
        header + "desc: Timerange: Basic block 0 - 5\ndesc: Trigger: dump\nevents: Ir\n"
        "summary: 0\ntotals: 123456\n"
    )
    kept = tmp_path / "kept"
    assert wire.counted(tmp_path, kept) == 123456
    assert "totals: 123456" in kept.read_text()
    with pytest.raises(RuntimeError):
        wire.counted(tmp_path / "nothing", None)
