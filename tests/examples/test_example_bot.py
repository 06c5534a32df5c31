"""`examples/bot.py`, the third-party bot of docs/protocol.md, plays whole games on a live server.

The bot runs as its own process, as someone else's client would: it imports nothing from
`app`, reaches the server only through the room link, and must exit 0 once the game is over.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.live_server import running_server

pytestmark = pytest.mark.timeout(180)
BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
GAME_TIMEOUT = 90.0
POLL = 0.05


def bot(link: str, name: str, *options: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(BOT), link, name, *options],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for(probe: Any, what: str, timeout: float = 15.0) -> Any:
    """Poll `probe()` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while not (found := probe()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL)
    return found


def finish(process: subprocess.Popen[str]) -> str:
    """The bot's log once it has exited on its own; exit status 0 is the bot's 'game over'."""
    try:
        output, _ = process.communicate(timeout=GAME_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"the bot did not finish its game:\n{output[-3000:]}")
    assert process.returncode == 0, output[-3000:]
    return output


def test_the_bot_uses_only_the_standard_library_and_websockets() -> None:
    tree = ast.parse(BOT.read_text())
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
        )
    }
    assert imported - set(sys.stdlib_module_names) == {"websockets"}
    assert len(BOT.read_text().splitlines()) < 150


def load_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_bot", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STATE: dict[str, Any] = {
    "type": "state",
    "seq": 7,
    "phase": "playing",
    "players": [{"seat": 0, "dice": 5}, {"seat": 1, "dice": 5}],
    "round": {
        "number": 1,
        "turn": 0,
        "total_dice": 10,
        "bid": None,
        "bids": [],
        "turn_deadline": None,
    },
    "you": {"seat": 1, "dice": [2, 2, 3, 4, 6], "legal": {"dudo": False}},
}


def test_a_bid_event_becomes_the_state_it_stands_for() -> None:
    apply_bid = load_bot().apply_bid
    event = {"type": "bid", "seq": 8, "seat": 0, "quantity": 2, "face": 3, "turn": 1}
    turned = {"seat": 1, "dice": [2, 2, 3, 4, 6], "legal": {"dudo": True}}
    after = apply_bid(STATE, event | {"turn_deadline": 1e9, "you": turned})
    bid = {"quantity": 2, "face": 3, "seat": 0}
    assert after["seq"] == 8 and after["you"] == turned and after["players"] == STATE["players"]
    assert after["round"] == STATE["round"] | {
        "bid": bid,
        "bids": [bid],
        "turn": 1,
        "turn_deadline": 1e9,
    }
    assert STATE["round"]["bids"] == [] and STATE["seq"] == 7  # the last state is left as it was
    raised = {"type": "bid", "seq": 9, "seat": 1, "quantity": 3, "face": 3, "turn": 0}
    again = apply_bid(after, raised | {"turn_deadline": None})  # no `you`: it did not change
    assert again["you"] == turned and again["round"]["turn_deadline"] is None
    assert again["round"]["bids"] == [bid, {"quantity": 3, "face": 3, "seat": 1}]


@pytest.mark.slow
@pytest.mark.parametrize("events", [False, True], ids=["states", "events"])
def test_two_bots_and_a_server_bot_play_a_game_to_its_end(tmp_path: Path, events: bool) -> None:
    with running_server(tmp_path, PERUDO_BOT_DELAY_MS="0", PERUDO_CALZA_WINDOW_MS="0") as base:
        created = httpx.post(f"{base}/api/rooms", json={"max_players": 3}, timeout=5)
        assert created.status_code == 201, created.text
        room_id = created.json()["room_id"]
        room = f"{base}/api/rooms/{room_id}"

        def seated() -> list[dict[str, Any]]:
            players: list[dict[str, Any]] = httpx.get(room, timeout=5).json()["players"]
            return players

        host = bot(f"{base}/r/{room_id}", "Ada", "--add-bot", "easy", "--start", "3", cwd=tmp_path)
        try:
            wait_for(lambda: len(seated()) == 2, "the host and the server bot to sit down")
            ws_link = f"{base.replace('http://', 'ws://')}/ws/{room_id}"
            guest = bot(ws_link, "Bob", *(["--events"] if events else []), cwd=tmp_path)
            try:
                logs = [finish(host), finish(guest)]
            finally:
                guest.kill()
                guest.wait()
        finally:
            host.kill()
            host.wait()

        for log in logs:  # a move may cross a server bot's calza (logged); never a bad frame
            assert "game over:" in log and "bad_message" not in log, log[-3000:]
        applied = [int(n) for n in re.findall(r"\((\d+) bid events\)", logs[1])]
        assert applied and (applied[0] > 0) == events, logs[1][-3000:]  # the guest opted in
        assert httpx.get(room, timeout=5).json()["phase"] == "finished"

        def saved() -> dict[str, Any] | None:
            games = httpx.get(f"{base}/api/games", timeout=5).json()["games"]
            return next((game for game in games if game["room_id"] == room_id), None)

        game = wait_for(saved, "the finished game in /api/games")
        players = {player["name"]: player for player in game["players"]}
        assert {"Ada", "Bob"} <= set(players) and len(players) == 3
        assert sorted(player["place"] for player in players.values()) == [1, 2, 3]
        assert game["winner"]["name"] in players
    assert "Traceback" not in (tmp_path / "server.log").read_text()
