"""`app.web.ws.Reader`: a socket's messages handled in order, at once when nothing waits, behind
a handling that waits otherwise; reading paused and resumed around a full backlog; the hello
deadline kept while a hello is in flight; an unexpected error handed to the endpoint."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import orjson
import pytest

from app.protocol import CloseCode, Join, ProtocolError
from app.rooms import Room
from app.web.limits import RateLimiter, RateLimits
from app.web.transport import MAX_WAITING, WsConnection
from app.web.ws import Reader

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(10)]


class FakeConn:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closes: list[CloseCode] = []
        self.closed = False

    def send(self, *texts: str) -> None:
        self.sent.extend(texts)

    def close(self, code: CloseCode) -> None:
        self.closes.append(code)
        self.closed = True


class GatedRoom:
    """A room whose hello waits for `gate` and then seats nobody unless `seats`; every other
    message is noted, or raises `fails` if set."""

    def __init__(self, seats: bool = True) -> None:
        self.gate = asyncio.Event()
        self.seats = seats
        self.handled: list[str] = []
        self.fails: Exception | None = None

    async def hello(self, conn: FakeConn, message: Join) -> None:
        self.handled.append(f"hello {message.name}")
        await self.gate.wait()
        if self.fails is not None:
            raise self.fails
        if not self.seats:
            raise_refusal()

    async def receive(self, conn: FakeConn, message: Any) -> None:
        if self.fails is not None:
            raise self.fails
        self.handled.append(f"{message.type} {getattr(message, 'text', '')}".strip())


def raise_refusal() -> None:
    raise ProtocolError("bad_message", "No seat for you.")


def reader(room: GatedRoom, conn: FakeConn, hello_within: float = 10.0) -> tuple[Reader, list[int]]:
    resumed: list[int] = []
    made = Reader(
        cast(Room, room),
        cast(WsConnection, conn),
        RateLimiter(RateLimits()),
        hello_within,
        None,
        lambda: resumed.append(1),
    )
    return made, resumed


def text(**message: Any) -> str:
    return orjson.dumps(message).decode()


async def test_messages_behind_a_waiting_hello_wait_and_go_in_order() -> None:
    room, conn = GatedRoom(), FakeConn()
    made, resumed = reader(room, conn)
    assert made.take(text(type="join", name="Ana"))  # waits at the gate
    answers = [made.take(text(type="chat", text=str(n))) for n in range(MAX_WAITING + 1)]
    assert answers == [True] * (MAX_WAITING - 1) + [False, False]  # reading pauses
    assert room.handled == ["hello Ana"] and resumed == []
    room.gate.set()
    await made.settle()
    assert room.handled == ["hello Ana", *(f"chat {n}" for n in range(MAX_WAITING + 1))]
    assert resumed == [1]  # once, when the backlog was empty again
    assert made.take(text(type="chat", text="now"))  # handled in the same step
    assert room.handled[-1] == "chat now" and not made.ended.done()


async def test_a_ping_is_answered_in_the_step_that_took_it() -> None:
    conn = FakeConn()
    made, _ = reader(GatedRoom(), conn)
    made.take(text(type="ping"))
    assert conn.sent == ['{"type":"pong"}']


async def test_the_hello_deadline_waits_for_a_hello_in_flight() -> None:
    for seats, closes in ((True, []), (False, [CloseCode.HELLO_TIMEOUT])):
        room, conn = GatedRoom(seats=seats), FakeConn()
        made, _ = reader(room, conn, hello_within=0.05)
        made.take(text(type="join", name="Ana"))
        await asyncio.sleep(0.1)  # past the deadline, the hello still at the gate
        assert conn.closes == []
        room.gate.set()
        await made.settle()
        assert conn.closes == closes  # refused after its time: closed; seated: stays
        assert made.ended.done() == bool(closes)


async def test_no_hello_in_time_closes_with_4408() -> None:
    conn = FakeConn()
    made, _ = reader(GatedRoom(), conn, hello_within=0.05)
    made.take(text(type="ping"))
    await asyncio.wait_for(made.ended, 1)
    assert conn.closes == [CloseCode.HELLO_TIMEOUT]


async def test_binary_and_big_frames_close_and_nothing_after_is_handled() -> None:
    for message, code in (
        (b"\x00", CloseCode.UNSUPPORTED_DATA),
        ("x" * 5000, CloseCode.MESSAGE_TOO_BIG),
    ):
        room, conn = GatedRoom(), FakeConn()
        made, _ = reader(room, conn)
        made.take(message)
        made.take(text(type="ping"))
        assert conn.closes == [code] and conn.sent == [] and made.ended.done()


async def test_an_unexpected_error_goes_to_the_endpoint() -> None:
    room, conn = GatedRoom(), FakeConn()
    room.gate.set()
    made, _ = reader(room, conn)
    made.take(text(type="join", name="Ana"))
    await made.settle()
    room.fails = RuntimeError("a bug")
    made.take(text(type="chat", text="boom"))
    with pytest.raises(RuntimeError, match="a bug"):
        made.ended.result()


async def test_an_error_after_the_socket_went_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    room, conn = GatedRoom(), FakeConn()
    made, _ = reader(room, conn)
    made.take(text(type="join", name="Ana"))  # waits at the gate
    made.stop()  # the socket went; the endpoint returns
    room.fails = RuntimeError("a bug")
    room.gate.set()
    await made.settle()
    assert "a message of a socket already gone failed" in caplog.text
    assert "a bug" in caplog.text
