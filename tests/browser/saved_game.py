"""A finished game saved on a live server, played out by bots, for the pages that show one."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from websockets.sync.client import connect


def play_a_saved_game(base: str, bots: int = 2) -> dict[str, Any]:
    """A person starts a game against `bots` bots and leaves it to them; the saved game, as
    `GET /api/games/{game_id}` answers."""
    room = httpx.post(f"{base}/api/rooms", json={"max_players": bots + 1}, timeout=10).json()
    url = base.replace("http://", "ws://") + f"/ws/{room['room_id']}"
    with connect(url, proxy=None, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "join", "name": "Ana"}))
        for _ in range(bots):
            ws.send(json.dumps({"type": "add_bot"}))
        ws.send(json.dumps({"type": "start"}))
        ws.send(json.dumps({"type": "leave"}))
        while True:
            frame = json.loads(ws.recv(timeout=30))
            if frame["type"] == "state" and frame["game_id"] is not None:
                game_id = frame["game_id"]
                break
    deadline = time.monotonic() + 10
    while True:
        answer = httpx.get(f"{base}/api/games/{game_id}", timeout=10)
        if answer.status_code == 200 or time.monotonic() > deadline:
            answer.raise_for_status()
            game: dict[str, Any] = answer.json()
            return game
        time.sleep(0.1)
