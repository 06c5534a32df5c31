"""The short bid events soak (bench/events_soak.py, issue 24): random games against a real
server (bots, timers, calza, palifico, spectators, resumes, rematches, odds on and off), every
`state` an events connection holds, by a full frame or by applying a `bid`, checked against a
plain connection's. And the checker itself catches the faults it is there for."""

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

SCRIPT = Path(__file__).parents[2] / "bench" / "events_soak.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("events_soak", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["events_soak"] = module
    if str(SCRIPT.parent) not in sys.path:  # as when run: its neighbour serving.py imports
        sys.path.insert(0, str(SCRIPT.parent))
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_random_games_keep_the_events_invariant() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--rooms", "10", "--games", "2", "--parallel", "10",
         "--timeout", "100", "--json", "-"],
        capture_output=True, text=True, timeout=140, check=False,
    )  # fmt: skip
    assert done.stdout.strip(), done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(report)
    assert report["failures"] == [], report
    assert done.returncode == 0
    assert report["games"] == 20 and report["mismatches"] == 0
    assert report["events_applied"] > 300 and report["compared_with_plain"] > 1000
    assert report["compared_by_sync"] > 100
    assert report["resumes"] > 0 and report["rewatches"] > 0 and report["calzas"] > 0
    assert report["autoplayed"].get("timer", 0) > 0 and report["palifico_rounds"] > 0
    assert 0 < report["odds_rooms"] < 10


YOU = {"seat": 0, "dice": [2, 3], "legal": {"min_quantity": [None] * 6, "dudo": False}}
STATE: dict[str, Any] = {
    "type": "state",
    "seq": 4,
    "room_id": "r",
    "phase": "playing",
    "players": [{"seat": 0, "dice": 2, "connected": True}, {"seat": 1, "dice": 2}],
    "round": {
        "number": 1,
        "turn": 1,
        "palifico": False,
        "bid": None,
        "bids": [],
        "turn_deadline": None,
    },
    "you": YOU,
    "server_time": 1.0,  # not named by PROTOCOL.md: never compared
}
EVENT = {"type": "bid", "seq": 5, "seat": 1, "quantity": 2, "face": 5, "turn": 0}
TURNED = YOU | {"legal": {"min_quantity": [2, 3, 3, 3, 3, 3], "dudo": True}}


def checked(*frames: dict[str, Any], events: bool = True) -> list[str]:
    """The mismatches an events connection (seat 0) finds in `frames`, then against a plain
    watcher that got `STATE` and the bid's true `state`."""
    module = load_script()
    totals = module.Totals()
    table = module.Table("ws://127.0.0.1:9/ws/r", totals, "r")
    link = module.Link(table, "person")
    link.events, link.seat = events, 0
    for frame in frames:
        link.receive(copy.deepcopy(frame))
    reference = module.Link(table, "plain watcher", reference=True)
    after = STATE | {"seq": 5, "you": YOU | {"seat": None}}
    after |= {"round": STATE["round"] | {"bid": BID, "bids": [BID], "turn": 0}}
    for frame in (STATE | {"you": YOU | {"seat": None}}, after):
        reference.receive(copy.deepcopy(frame))
    table.compare()
    found: list[str] = totals.mismatches
    return found


BID = {"quantity": 2, "face": 5, "seat": 1}
APPLIED = STATE | {"seq": 5, "you": TURNED, "server_time": 2.0}
APPLIED |= {"round": STATE["round"] | {"bid": BID, "bids": [BID], "turn": 0}}


def test_the_checker_passes_an_event_applied_as_the_protocol_says() -> None:
    event = EVENT | {"turn_deadline": None, "you": TURNED}
    assert checked(STATE, event, APPLIED) == []  # the last one: a `sync`'s full `state`


def test_the_checker_catches_a_wrong_or_misplaced_event() -> None:
    stale = EVENT | {"turn_deadline": None}  # `you` changed, yet the event has none
    assert checked(STATE, stale, APPLIED)
    assert checked(STATE, EVENT | {"turn_deadline": None, "you": YOU})  # `you` that did not change
    wrong_turn = EVENT | {"turn_deadline": None, "you": TURNED, "turn": 1}
    assert checked(STATE, wrong_turn)  # against the plain watcher's state of that seq
    assert checked(STATE, EVENT | {"turn_deadline": None}, events=False)  # not opted in
