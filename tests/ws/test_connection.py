"""`WsConnection`: frames go out at once while the socket can take them; behind a paused
transport they wait in order, bounded, and the close comes last."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from fastapi import WebSocket

from app.protocol import CloseCode
from app.web.transport import DIRECT_SEND, OUTBOX_LIMIT, WsConnection

pytestmark = pytest.mark.anyio


class PausableSocket:
    """A socket whose sends wait while it is paused, like a transport whose buffer is full."""

    def __init__(self) -> None:
        self.sent: list[str | int] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.scope: dict[str, Any] = {"type": "websocket", "extensions": {}}

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        self.sent.append(text)

    async def close(self, code: int) -> None:
        await self.writable.wait()
        self.sent.append(code)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def connection(socket: PausableSocket) -> WsConnection:
    return WsConnection(cast(WebSocket, socket))


async def test_a_writable_socket_gets_each_frame_at_once_without_a_task() -> None:
    socket = PausableSocket()
    conn = connection(socket)
    tasks = len(asyncio.all_tasks())
    for text in ("a", "b", "c"):
        conn.send(text)
        assert socket.sent[-1] == text  # before any await
    assert len(asyncio.all_tasks()) == tasks
    conn.close(CloseCode.SUPERSEDED)
    assert socket.sent == ["a", "b", "c", CloseCode.SUPERSEDED]
    conn.send("late")
    assert socket.sent[-1] == CloseCode.SUPERSEDED
    await conn.finish()


async def test_behind_a_paused_transport_frames_wait_in_order_and_the_close_comes_last() -> None:
    socket = PausableSocket()
    conn = connection(socket)
    socket.writable.clear()
    for text in ("a", "b", "c"):
        conn.send(text)
    conn.close(CloseCode.GOING_AWAY)
    await asyncio.sleep(0.01)
    assert socket.sent == []
    socket.writable.set()
    await conn.finish()
    assert socket.sent == ["a", "b", "c", CloseCode.GOING_AWAY]


async def test_after_a_pause_sends_are_direct_again() -> None:
    socket = PausableSocket()
    conn = connection(socket)
    socket.writable.clear()
    conn.send("a")
    conn.send("b")
    socket.writable.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert socket.sent == ["a", "b"]
    conn.send("c")
    assert socket.sent == ["a", "b", "c"]  # at once
    await conn.finish()


async def test_a_client_that_does_not_read_is_closed_when_its_outbox_is_full() -> None:
    socket = PausableSocket()
    conn = connection(socket)
    socket.writable.clear()
    for number in range(OUTBOX_LIMIT + 5):
        conn.send(str(number))
    assert conn.closed
    socket.writable.set()
    await conn.finish()
    assert socket.sent[-1] == CloseCode.POLICY_VIOLATION
    assert socket.sent[:-1] == [str(n) for n in range(OUTBOX_LIMIT + 1)]


async def test_a_send_to_a_gone_client_marks_the_connection_closed() -> None:
    class GoneSocket(PausableSocket):
        async def send_text(self, text: str) -> Any:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')

    conn = connection(GoneSocket())
    conn.send("a")
    assert conn.closed
    await conn.finish()


async def test_frames_take_the_direct_send_while_it_accepts_them_else_wait_in_order() -> None:
    socket = PausableSocket()
    direct: list[str] = []

    def send_now(payloads: list[bytes]) -> bool:
        if not socket.writable.is_set():
            return False  # as the server's does while the transport is paused
        texts = [payload.decode() for payload in payloads]
        direct.append("+".join(texts))
        socket.sent.extend(texts)
        return True

    socket.scope["extensions"][DIRECT_SEND] = {"send": send_now}
    conn = connection(socket)
    conn.send("dé")
    socket.writable.clear()
    conn.send("a")  # declined: through the ASGI send, which waits
    conn.send("b")  # behind it, in the outbox
    socket.writable.set()
    for _ in range(5):
        await asyncio.sleep(0)
    conn.send("c", "d")  # together, in one write
    conn.close(CloseCode.GOING_AWAY)
    await conn.finish()
    assert direct == ["dé", "c+d"]
    assert socket.sent == ["dé", "a", "b", "c", "d", CloseCode.GOING_AWAY]
