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


def test_a_bid_goes_out_as_a_bid_event_to_the_sockets_that_opted_in(
    bare_server: ModuleType,
) -> None:
    with TestClient(bare_server.create_app()) as client:
        room_id = client.post("/api/rooms").json()["room_id"]
        with (
            client.websocket_connect(f"/ws/{room_id}") as first,
            client.websocket_connect(f"/ws/{room_id}") as second,
            client.websocket_connect(f"/ws/{room_id}") as third,
        ):
            sockets = [first, second, third]
            for index, socket in enumerate(sockets):  # the third stays with `state`s
                hello = {"type": "join", "name": f"p{index}", "events": index < 2}
                socket.send_text(orjson.dumps(hello).decode())
                assert orjson.loads(socket.receive_text())["type"] == "welcome"
                for earlier in sockets[: index + 1]:  # everyone seated so far hears of it
                    assert orjson.loads(earlier.receive_text())["type"] == "state"
            first.send_text('{"type":"start"}')
            for socket in sockets:
                assert orjson.loads(socket.receive_text())["type"] == "state"
            first.send_text('{"type":"bid","quantity":2,"face":3}')
            bidder, next_turn = (orjson.loads(s.receive_text()) for s in (first, second))
            plain = orjson.loads(third.receive_text())
            bid = {"quantity": 2, "face": 3, "seat": 0}
            assert plain["type"] == "state" and plain["round"]["bid"] == bid
            for event, seat in ((bidder, 0), (next_turn, 1)):
                assert event["type"] == "bid" and event["seq"] == plain["seq"]
                assert {k: event[k] for k in bid} == bid and event["turn"] == 1
                assert event["you"]["seat"] == seat
            assert bidder["you"]["legal"]["dudo"] is False
            assert next_turn["you"]["legal"]["dudo"] is True
            second.send_text('{"type":"bid","quantity":3,"face":3}')
            unchanged, raised = (orjson.loads(s.receive_text()) for s in (first, second))
            assert unchanged["type"] == "bid" and "you" not in unchanged  # seat 0: no change
            assert raised["you"]["seat"] == 1 and raised["turn"] == 2
            assert orjson.loads(third.receive_text())["you"]["legal"]["dudo"] is True
            second.send_text('{"type":"sync"}')  # answered to that socket alone
            synced = orjson.loads(second.receive_text())
            assert synced["type"] == "state" and synced["seq"] == raised["seq"]
            assert synced["round"]["bid"] == {"quantity": 3, "face": 3, "seat": 1}
