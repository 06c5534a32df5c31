"""PROTOCOL.md's hostile-input limits: frame size, binary frames, rate per connection."""

from __future__ import annotations

import contextlib
import time

from websockets.exceptions import ConnectionClosed

from tests.blackbox.wire import Client, Message, Server

PING = '{"type": "ping"}'


def joined(server: Server) -> tuple[Client, Client]:
    """Two seated clients whose buckets are full again after their hellos (20 a second)."""
    room_id = server.new_room()
    pair = server.join(room_id, "Ann"), server.join(room_id, "Bob")
    time.sleep(0.25)
    return pair


def blast(client: Client, frames: list[str]) -> None:
    """Send without the client's own pacing, as fast as the socket takes them."""
    with contextlib.suppress(ConnectionClosed):
        for frame in frames:
            client.conn.send(frame)


def replies(client: Client, count: int) -> list[Message]:
    """The next `count` pongs, chats and errors."""
    got: list[Message] = []
    while len(got) < count:
        message = client.recv()
        if message["type"] in ("pong", "chat", "error"):
            got.append(message)
    return got


def test_text_over_4096_bytes_is_closed_1009(server: Server) -> None:
    ann, bob = joined(server)
    ann.conn.send("x" * 4097)
    assert ann.close_code() == 1009
    bob.conn.send("é" * 2049)  # 2049 characters, 4098 bytes
    assert bob.close_code() == 1009


def test_text_over_4096_bytes_before_a_hello_is_closed_1009(server: Server) -> None:
    client = server.client(server.new_room())
    client.conn.send('{"type": "join", "name": "' + "x" * 4100 + '"}')
    assert client.close_code() == 1009


def test_text_of_4096_bytes_is_read(server: Server) -> None:
    ann, _ = joined(server)
    frame = PING + " " * (4096 - len(PING))
    assert len(frame.encode()) == 4096
    ann.send_raw(frame)
    assert ann.expect("pong")["type"] == "pong"
    text = "é" * 300
    ann.send(type="chat", text=text)
    assert ann.until(lambda m: m["type"] == "chat")["text"] == text


def test_binary_frame_is_closed_1003(server: Server) -> None:
    ann, _ = joined(server)
    ann.conn.send(PING.encode())
    assert ann.close_code() == 1003


def test_binary_frame_before_a_hello_is_closed_1003(server: Server) -> None:
    client = server.client(server.new_room())
    client.conn.send(b"\x00\x01")
    assert client.close_code() == 1003


def test_a_burst_beyond_40_is_rate_limited_and_dropped(server: Server) -> None:
    ann, bob = joined(server)
    started = time.monotonic()
    blast(ann, [f'{{"type": "chat", "text": "m{i}"}}' for i in range(60)])
    elapsed = time.monotonic() - started
    got = replies(ann, 60)
    limited = [m for m in got if m["type"] == "error"]
    assert {m["code"] for m in limited} == {"rate_limited"}, limited
    passed = 60 - len(limited)
    assert 40 <= passed <= 40 + 20 * elapsed + 5, (passed, elapsed)
    heard = [m for m in bob.drain(0.3) if m["type"] == "chat"]
    assert len(heard) == passed, "a rate-limited message is dropped, the others are sent"
    time.sleep(1.0)
    ann.sync()  # still open, and the bucket refills


def test_20_messages_a_second_are_never_limited(server: Server) -> None:
    ann, _ = joined(server)
    blast(ann, [PING] * 40)
    first = replies(ann, 40)
    assert all(m["type"] == "pong" for m in first), first
    for _ in range(54):  # 3 s at 18 a second, on an empty bucket
        time.sleep(1 / 18)
        ann.conn.send(PING)
    got = replies(ann, 54)
    assert all(m["type"] == "pong" for m in got), [m for m in got if m["type"] != "pong"]


def test_50_rate_limited_within_10_seconds_is_closed_1008(server: Server) -> None:
    ann, _ = joined(server)
    blast(ann, [PING] * 100)
    limited = 0
    try:
        while True:
            message = ann.recv()
            limited += message["type"] == "error" and message["code"] == "rate_limited"
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1008
    assert 49 <= limited <= 50, limited


def test_limits_are_per_connection_not_per_address(server: Server) -> None:
    """Friends behind one address: one client flooding leaves the others' budget whole."""
    ann, bob = joined(server)
    blast(ann, [PING] * 100)
    assert ann.close_code() == 1008
    blast(bob, [PING] * 40)
    assert all(m["type"] == "pong" for m in replies(bob, 40))
    carl = server.join(bob.room_id, "Carl")
    time.sleep(0.25)
    blast(carl, [PING] * 40)
    assert all(m["type"] == "pong" for m in replies(carl, 40))
