"""No seat ever receives another seat's unrevealed dice: every frame of many random games."""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.ws.helpers import Client, Message, new_room, play_to_end

pytestmark = pytest.mark.timeout(120)
GAMES = 8


def dice_paths(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every place in a frame that holds faces: lists under a key `dice`, or a `die`."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}"
            if key in ("dice", "die") and not isinstance(item, int):
                found.append((here, item))
            found.extend(dice_paths(item, here))
    elif isinstance(value, list):
        for item in value:
            found.extend(dice_paths(item, f"{path}[]"))
    return found


ALLOWED = {".you.dice", ".last_result.reveal[].dice", ".reveal[].dice"}


def check_frames(client: Client, truth: dict[int, dict[int, list[int]]]) -> int:
    """Assert `client` only ever saw its own hidden dice; how many hidden dice it saw."""
    seen = 0
    for frame in client.frames:
        for path, faces in dice_paths(frame):
            assert path in ALLOWED, (path, frame)
            assert all(isinstance(f, int) and 1 <= f <= 6 for f in faces)
        if frame["type"] == "round_result":
            revealed = {r["seat"]: r["dice"] for r in frame["reveal"]}
            assert revealed == truth[frame["round"]]
        if frame["type"] != "state":
            continue
        you = frame["you"]
        assert you["seat"] == client.seat
        round_ = frame["round"]
        if round_ is None or client.seat is None or client.seat not in truth[round_["number"]]:
            assert you["dice"] == []
        else:
            assert you["dice"] == truth[round_["number"]][client.seat]
            seen += len(you["dice"])
        if round_ is not None and frame["last_result"] is not None:
            assert frame["last_result"]["round"] < round_["number"]  # revealed means over
    return seen


def test_every_frame_of_many_random_games_shows_only_your_own_dice(http: TestClient) -> None:
    rng = random.Random(2024)
    for game in range(GAMES):
        players = 3 + game % 4
        room_id = new_room(http, calza_rule="asmodee" if game % 2 else "pressman")
        with ExitStack() as stack:
            clients = []
            for seat in range(players):
                client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
                client.hello(type="join", name=f"P{seat}")
                clients.append(client)
            watcher = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
            watcher.hello(type="watch")
            everyone = [*clients, watcher]
            for client in everyone:
                while client.state["spectators"] < 1 or len(client.state["players"]) < players:
                    client.next_state()
            clients[0].send(type="start")
            for client in everyone:
                client.next_state()
            final = play_to_end(everyone, rng)
        saved = http.get(f"/api/games/{final['game_id']}").json()
        truth: dict[int, dict[int, list[int]]] = {
            r["number"]: {d["seat"]: d["dice"] for d in r["dice"]} for r in saved["rounds"]
        }
        for client in clients:
            assert check_frames(client, truth) > 0
        assert check_frames(watcher, truth) == 0


def test_the_public_part_of_a_state_is_the_same_for_everyone(http: TestClient) -> None:
    room_id = new_room(http)
    with ExitStack() as stack:
        clients = []
        for name in ("Ana", "Bea", "Cy"):
            client = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
            client.hello(type="join", name=name)
            clients.append(client)
        watcher = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
        watcher.hello(type="watch")
        clients[0].send(type="start")
        states: list[Message] = [c.until(lambda m: m.get("phase") == "playing") for c in clients]
        states.append(watcher.until(lambda m: m.get("phase") == "playing"))
    publics = [{k: v for k, v in s.items() if k != "you"} for s in states]
    assert all(p == publics[0] for p in publics)
    assert [s["you"]["seat"] for s in states] == [0, 1, 2, None]
