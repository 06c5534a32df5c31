"""The short leak audit (bench/leak_audit.py, issue 13): fifty bot games against a real server,
every frame to a seated person and a spectator checked, none carrying a die of another seat
before its reveal. And the auditor itself catches the leaks it is there for."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
SCRIPT = Path(__file__).parents[2] / "bench" / "leak_audit.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("leak_audit", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["leak_audit"] = module
    if str(SCRIPT.parent) not in sys.path:  # as when run: its neighbour serving.py imports
        sys.path.insert(0, str(SCRIPT.parent))
    spec.loader.exec_module(module)
    return module


def test_fifty_games_leak_no_die() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--rooms", "10", "--games", "5", "--parallel", "10",
         "--timeout", "150", "--json", "-"],
        capture_output=True, text=True, timeout=220, check=False,
    )  # fmt: skip
    assert done.stdout.strip(), done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(report)
    assert report["failures"] == [], report
    assert done.returncode == 0
    assert report["games"] == 50 and report["leaks"] == 0
    assert report["frames_checked"] > 1000 and report["own_dice_checked_against_reveal"] > 100
    assert report["resumes"] > 0 and report["chats"] > 0 and sum(report["errors"].values()) > 0


STATE: dict[str, Any] = {
    "type": "state",
    "phase": "playing",
    "round": {"number": 1, "bids": [], "turn": 0},
    "last_result": None,
    "you": {"seat": 0, "dice": [1, 2, 3, 4, 5]},
}
RESULT: dict[str, Any] = {
    "type": "round_result",
    "round": 1,
    "reveal": [{"seat": 0, "dice": [1, 2, 3, 4, 5]}, {"seat": 1, "dice": [6, 6, 6, 6, 6]}],
}


def leaks(*frames: dict[str, Any]) -> list[str]:
    module = load_script()
    totals = module.Totals()
    auditor = module.Auditor(totals, "test")
    for frame in frames:
        auditor.check(copy.deepcopy(frame))
    found: list[str] = totals.leaks
    return found


def test_the_auditor_passes_a_clean_round() -> None:
    after = {**STATE, "round": {"number": 2, "bids": [], "turn": 0}, "last_result": RESULT}
    after = {**after, "you": {"seat": 0, "dice": [2, 2]}}
    assert leaks(STATE, RESULT, after) == []


def test_the_auditor_catches_leaks() -> None:
    other = {**STATE, "you": {"seat": 0, "dice": [6, 6, 6, 6, 6]}}
    assert leaks(STATE, other)  # another seat's dice as mine within the round
    assert leaks(other, RESULT)  # the reveal shows other dice than I was shown
    stray = {**STATE, "players": [{"seat": 1, "dice": [6, 6, 6, 6, 6]}]}
    assert leaks(stray)  # a list of dice where the protocol puts none
    early = {**STATE, "last_result": RESULT}
    assert leaks(early)  # a reveal of the round still being played
    spectator = {**STATE, "you": {"seat": None, "dice": [1, 2, 3, 4, 5]}}
    assert leaks(spectator)
    assert leaks({**RESULT, "round": 3}, STATE) or leaks(STATE, {**RESULT, "round": 3})
