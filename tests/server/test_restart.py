"""A game survives `perudo serve` stopping and starting again on the same database."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Callable
from contextlib import ExitStack, closing
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.live_server import running_server
from tests.stored_journal import holds
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.timeout(120)
RECV_TIMEOUT = 10.0
FLUSH_TIMEOUT = 10.0
ENV = {"PERUDO_DISCONNECT_GRACE_SECONDS": "600"}  # no bot steps in while the server is down


class Player:
    """One socket to the room; keeps the newest state and every round result."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.results: list[dict[str, Any]] = []

    def hello(self, **message: Any) -> dict[str, Any]:
        self.ws.send(json.dumps(message))
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        self.next_state()
        return welcome

    def recv(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=RECV_TIMEOUT))
        if message["type"] == "state":
            self.state = message
        elif message["type"] == "round_result":
            self.results.append({k: v for k, v in message.items() if k != "type"})
        return message

    def next_state(self) -> dict[str, Any]:
        while self.recv()["type"] != "state":
            pass
        return self.state


def sockets_to(room_id: str, base: str, sockets: ExitStack) -> list[Player]:
    """Two players' sockets to the room, closed when `sockets` exits."""
    url = base.replace("http://", "ws://") + f"/ws/{room_id}"
    return [Player(sockets.enter_context(connect(url, proxy=None, open_timeout=5))) for _ in "AB"]


def play(players: list[Player], moves: int, rng: random.Random) -> None:
    """Up to `moves` legal moves by whoever's turn it is (players[i] holds seat i)."""
    for _ in range(moves):
        if players[0].state["phase"] != "playing":
            return
        actor = players[players[0].state["round"]["turn"]]
        actor.ws.send(json.dumps(legal_move(actor.state, rng)))
        for player in players:
            player.next_state()


def stored(home: Path, room_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The room's snapshot in the server's SQLite file and the entries journaled after it."""
    with closing(sqlite3.connect(home / "data" / "perudo.db")) as db:
        row = db.execute(
            "SELECT data, rev FROM room_snapshots WHERE room_id = ?", (room_id,)
        ).fetchone()
        if row is None:
            return None
        later = db.execute(
            "SELECT data FROM room_entries WHERE room_id = ? AND base = ? AND rev > base"
            " ORDER BY rev",
            (room_id, row[1]),
        ).fetchall()
    return json.loads(row[0]), [json.loads(entry) for (entry,) in later]


def wait_until_stored(
    home: Path, room_id: str, check: Callable[[dict[str, Any], list[dict[str, Any]]], bool]
) -> None:
    deadline = time.monotonic() + FLUSH_TIMEOUT
    while True:
        found = stored(home, room_id)
        if found is not None and check(*found):
            return
        assert time.monotonic() < deadline, f"the journal holds {found}"
        time.sleep(0.05)


def the_game(state: dict[str, Any]) -> dict[str, Any]:
    """What the restart must keep: seats, own dice, bids, turn, host, settings."""
    return {
        "phase": state["phase"],
        "host": state["host"],
        "settings": state["settings"],
        "players": [{k: v for k, v in p.items() if k != "connected"} for p in state["players"]],
        "round": state["round"],
        "last_result": state["last_result"],
        "you": state["you"],
    }


def test_a_game_survives_a_server_restart(tmp_path: Path) -> None:
    rng = random.Random(11)
    with ExitStack() as sockets:
        with running_server(tmp_path, **ENV) as base:
            response = httpx.post(f"{base}/api/rooms", json={"max_players": 2}, timeout=5)
            room_id = response.json()["room_id"]
            players = sockets_to(room_id, base, sockets)
            tokens = [players[0].hello(type="join", name="Ana")["token"]]
            tokens.append(players[1].hello(type="join", name="Bea")["token"])
            players[0].next_state()  # B's arrival
            players[0].ws.send(json.dumps({"type": "start"}))
            for player in players:
                player.next_state()
            play(players, 6, rng)
            assert players[0].state["phase"] == "playing"
            wait_until_stored(tmp_path, room_id, partial(holds, players[0].state))  # while running
            before = [player.state for player in players]
            results = list(players[0].results)
        for player in players:  # stopping the server closed the sockets
            with pytest.raises(ConnectionClosed):
                while True:
                    player.recv()
    first_log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in first_log and "ERROR" not in first_log, first_log

    with running_server(tmp_path, **ENV) as base, ExitStack() as sockets:
        info = httpx.get(f"{base}/api/rooms/{room_id}", timeout=5).json()
        assert info["phase"] == "playing"
        players = sockets_to(room_id, base, sockets)
        for seat, (player, token) in enumerate(zip(players, tokens, strict=True)):
            assert player.hello(type="resume", token=token)["seat"] == seat
        players[0].next_state()  # B's return
        for player, old in zip(players, before, strict=True):
            assert the_game(player.state) == the_game(old)
            assert all(p["connected"] for p in player.state["players"])
        play(players, 10_000, rng)
        assert players[0].state["phase"] == "finished"
        while players[0].state["game_id"] is None:
            players[0].next_state()
        game_id = players[0].state["game_id"]
        listed = httpx.get(f"{base}/api/games", timeout=5).json()["games"]
        assert game_id in [g["game_id"] for g in listed]
        game = httpx.get(f"{base}/api/games/{game_id}", timeout=5).json()
        assert [r["result"] for r in game["rounds"]] == results + players[0].results
        wait_until_stored(tmp_path, room_id, lambda data, _: data["game_id"] == game_id)
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log and "ERROR" not in log, log
