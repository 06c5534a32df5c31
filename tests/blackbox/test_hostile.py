"""Hostile or odd text frames: each is answered, the socket stays open, the server never
logs a traceback (checked once the session's server stops)."""

from __future__ import annotations

import json

import pytest

from tests.blackbox.play import Table
from tests.blackbox.wire import Server

ODD_FRAMES = [
    "[" * 2000 + "]" * 2000,
    '{"type":"chat","text":' + '{"a":' * 600 + "1" + "}" * 600 + "}",
    '{"type": "chat", "text": "x\\ud800y"}',
    '{"type": "kick", "seat": 1e0}',
    '{"type": "kick", "seat": 1e400}',
    '{"type": "kick", "seat": NaN}',
    '{"type": "kick", "seat": Infinity}',
    '{"type": "bid", "quantity": 1, "face": 2}',
    "\ufeff" + '{"type": "chat", "text": "bom"}',
    '{"type": "join", "name": "\\udc00"}',
]


@pytest.mark.parametrize("frame", ODD_FRAMES, ids=range(len(ODD_FRAMES)))
def test_odd_frames_are_refused_and_the_socket_stays(server: Server, frame: str) -> None:
    table = Table.seat(server, ["Ann", "Bob"])
    table.host.reject(frame, "bad_message", "game_not_running")


def test_surrounding_whitespace_is_still_json(server: Server) -> None:
    client = server.client(server.new_room())
    client.send_raw('  {"type": "ping"}\n')
    assert client.expect("pong")["type"] == "pong"


def test_characters_not_bytes_count_for_chat_and_names(server: Server) -> None:
    """Four-byte characters: 300 of them are a legal chat, 24 a legal name."""
    room_id = server.new_room()
    ann = server.join(room_id, "🎲" * 24)
    ann.send(type="chat", text="🎲" * 300)
    assert ann.until(lambda m: m["type"] == "chat")["text"] == "🎲" * 300
    ann.reject(json.dumps({"type": "chat", "text": "🎲" * 301}), "bad_message")
    server.client(room_id).reject({"type": "join", "name": "🎲" * 25}, "bad_message")
