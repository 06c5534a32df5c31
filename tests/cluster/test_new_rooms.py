"""A new room answers its first request on whichever instance nginx sends it to: the POST only
writes it to the database, and the instance its id hashes to takes it on first use."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

pytestmark = pytest.mark.slow
ROOMS = 100


def first_answers(base: str, room_id: str) -> tuple[int, str, str]:
    """The room's first `GET` (status, instance) and what its first socket's `join` gets,
    no retries."""
    answer = httpx.get(f"{base}/api/rooms/{room_id}", timeout=10)
    url = base.replace("http://", "ws://") + f"/ws/{room_id}"
    with connect(url, open_timeout=5, close_timeout=1) as ws:
        ws.send(json.dumps({"type": "join", "name": "Ana"}))
        try:
            first = json.loads(ws.recv(timeout=5))["type"]
        except Exception as closed:  # ConnectionClosed carries the close code
            first = f"closed {getattr(getattr(closed, 'rcvd', None), 'code', closed)!r}"
    return answer.status_code, answer.headers["x-perudo-instance"], first


def test_a_hundred_new_rooms_each_answer_at_once_through_nginx(cluster: Any) -> None:
    running = cluster(2)
    base = f"http://127.0.0.1:{running.port}"
    creators, holders, failures = set(), set(), []
    for _ in range(ROOMS):
        created = httpx.post(f"{base}/api/rooms", json={}, timeout=10)
        assert created.status_code == 201, created.text
        creators.add(created.headers["x-perudo-instance"])
        room_id = created.json()["room_id"]
        status, holder, first = first_answers(base, room_id)
        if (status, first) != (200, "welcome"):
            failures.append((room_id, status, first))
        holders.add(holder)
    print(f"{len(failures)} of {ROOMS} new rooms did not answer at once: {failures[:5]}")
    assert failures == []
    assert creators == holders == {m.name for m in running.members}  # both made and held rooms
