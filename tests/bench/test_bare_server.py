"""`bench/bare_server.py`: the bare stack `bench/load.py` compares against, padded on request."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from starlette.testclient import TestClient

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bare_server() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("bare_server")
    finally:
        sys.path.remove(str(BENCH))


def state_in_play_bytes(bare_server: ModuleType, state_bytes: int) -> int:
    """The size of the `state` a player of the bare app gets once its round is on."""
    with TestClient(bare_server.create_app(state_bytes)) as client:
        room_id = client.post("/api/rooms").json()["room_id"]
        with client.websocket_connect(f"/ws/{room_id}") as socket:
            for message in ({"type": "join", "name": "p0"}, {"type": "start"}):
                socket.send_text(orjson.dumps(message).decode())
            replies = [orjson.loads(socket.receive_text()) for _ in range(2)]
            assert [reply["type"] for reply in replies] == ["welcome", "state"]
            state = socket.receive_text()
            assert orjson.loads(state)["round"] is not None
            return len(state)


@pytest.mark.parametrize("asked", [700, 1700])
def test_states_are_padded_to_about_the_size_asked(bare_server: ModuleType, asked: int) -> None:
    # the first state of a round has no bid yet: some 40 bytes under the mean of a game's
    assert asked - 60 <= state_in_play_bytes(bare_server, asked) <= asked + 20


def test_unpadded_states_stay_small(bare_server: ModuleType) -> None:
    assert state_in_play_bytes(bare_server, 0) < 300
