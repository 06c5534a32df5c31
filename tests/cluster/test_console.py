"""The operator's console in a cluster, through nginx: it lists the rooms of every instance,
its notice reaches every table, and a drained instance stops while its games go on."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import httpx
import pytest

from tests.cluster.test_cluster import Player, finish, holder, new_table, play

pytestmark = pytest.mark.slow
TOKEN = "cluster-console-token"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def notice_seen(player: Player, text: str) -> None:
    """Read the player's socket until the notice comes (states on the way are kept)."""
    assert player.ws is not None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        message = json.loads(player.ws.recv(timeout=5))
        if message["type"] == "notice":
            assert message == {"type": "notice", "text": text}
            return
        if message["type"] == "state":
            player._keep(message)
    raise AssertionError("no notice came")


def test_the_console_sees_every_instance_tells_every_table_and_drains_one(
    cluster: Any,
) -> None:
    running = cluster(2, PERUDO_ADMIN_TOKEN=TOKEN)
    base = f"http://127.0.0.1:{running.port}"
    names = {m.name for m in running.members}
    tables: list[tuple[str, list[Player]]] = []
    where: dict[str, str] = {}
    while set(where.values()) != names:  # a table on each instance
        assert len(tables) < 12, "nginx sent every room to one instance"
        room_id, players = new_table(base, 2)
        tables.append((room_id, players))
        where[room_id] = holder(base, room_id)

    view = httpx.get(f"{base}/api/admin/overview", headers=BEARER, timeout=10).json()
    assert {room["room_id"]: room["instance"] for room in view["rooms"]} == where
    assert all(room["sockets"] == 2 and room["phase"] == "playing" for room in view["rooms"])
    assert {i["name"] for i in view["instances"] if i["alive"]} == names

    text = "Restarting in 5 minutes"
    ordered = httpx.post(f"{base}/api/admin/notice", json={"text": text}, headers=BEARER)
    assert ordered.status_code == 202
    for _, players in tables:
        for player in players:
            notice_seen(player, text)

    victim = next(m for m in running.members if m.name == where[tables[0][0]])
    drained = httpx.post(f"{base}/api/admin/instances/{victim.name}/drain", headers=BEARER)
    assert drained.status_code == 202
    victim.process.wait(timeout=15)  # it stops by itself, as SIGTERM stops it: cleanly
    assert "Application shutdown complete" in victim.log.read_text()
    rng = random.Random(5)
    for room_id, players in tables:
        before = players[0].state["round"]["number"]
        for player in players:
            player.resume()
        assert holder(base, room_id) != victim.name
        assert players[0].state["round"]["number"] == before  # nothing lost
        play(players, 2, rng)
    for _, players in tables:
        finish(base, players, rng)
        for player in players:
            player.close()
