"""A reconnect during a game through the real endpoint: welcome, then `history` (the round
results so far), then the state."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.ws.helpers import Client, Message, new_room, running_app, settings_for

pytestmark = pytest.mark.timeout(60)


def test_a_reconnect_during_a_game_gets_the_history(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path)) as http, ExitStack() as stack:
        room_id = new_room(http)
        ana = Client(stack.enter_context(http.websocket_connect(f"/ws/{room_id}")))
        ana.hello(type="join", name="Ana")
        for _ in range(2):
            ana.send(type="add_bot", level="easy")
            ana.next_state()
        ana.send(type="start")
        ana.next_state()
        ana.send(type="leave")  # the bots play on, at once (no think time)
        ana.until(lambda m: m["type"] == "round_result")
        with http.websocket_connect(f"/ws/{room_id}") as ws:
            late = Client(ws)
            late.send(type="resume", token=ana.token)
            welcome, history, state = late.recv(), late.recv(), late.recv()
        assert (welcome["type"], history["type"], state["type"]) == (
            "welcome",
            "history",
            "state",
        )
        assert welcome["seat"] == 0
        rounds = history["rounds"]
        assert rounds

        def heard() -> list[Message]:
            """The round_results Ana's socket was sent, without their "type"."""
            return [
                {k: v for k, v in f.items() if k != "type"}
                for f in ana.frames
                if f["type"] == "round_result"
            ]

        while len(heard()) < len(rounds):  # broadcast before the resume closed her socket
            ana.recv()
        assert rounds == heard()[: len(rounds)]
        assert state["last_result"] == rounds[-1]
