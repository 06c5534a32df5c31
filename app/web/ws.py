"""The WebSocket endpoint: the origin check, then a `Reader` per socket that keeps the frame
limits, the rate limit and the hello deadline and hands each message, in order, to the room.

The socket layer holds no game rules: it parses each frame into a typed message (one place,
`app.protocol`), answers a refusal with an `error` frame and hands everything else to the room.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable

from fastapi import APIRouter, WebSocket
from starlette.types import Message

from app import metrics
from app.protocol import (
    MAX_FRAME_BYTES,
    PONG,
    CloseCode,
    Join,
    Ping,
    ProtocolError,
    Resume,
    Watch,
    error_frame,
    parse_client_message,
)
from app.rooms import Connection, Room
from app.rooms.registry import ELSEWHERE
from app.web.deps import RateLimitsDep, RegistryDep, SettingsDep
from app.web.limits import RateLimiter, origin_allowed
from app.web.player_key import cookie_key
from app.web.transport import DIRECT_RECEIVE, MAX_WAITING, Resumed, WsConnection, received

router = APIRouter()
logger = logging.getLogger(__name__)


@router.websocket("/ws/{room_id}")
async def play(
    websocket: WebSocket,
    room_id: str,
    settings: SettingsDep,
    registry: RegistryDep,
    rate_limits: RateLimitsDep,
) -> None:
    """One client's socket in one room."""
    headers = websocket.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), settings.origins()):
        await websocket.close(CloseCode.POLICY_VIOLATION)  # before accept: HTTP 403
        return
    await websocket.accept()
    room = await registry.open(room_id)
    if room is None or room is ELSEWHERE:
        unknown = room is None
        await websocket.close(CloseCode.UNKNOWN_ROOM if unknown else CloseCode.TRY_AGAIN_LATER)
        return
    conn = WsConnection(websocket)
    metrics.SOCKETS.inc()
    player_key = cookie_key(websocket.cookies)
    try:
        await _serve(
            websocket, room, conn, RateLimiter(rate_limits), settings.hello_seconds, player_key
        )
    finally:
        metrics.SOCKETS.dec()
        await room.disconnect(conn)
        await conn.finish()


async def _serve(
    websocket: WebSocket,
    room: Room,
    conn: WsConnection,
    limiter: RateLimiter,
    hello_within: float,
    player_key: str | None,
) -> None:
    """Hand the client's messages to a `Reader` until the client goes or breaks a limit:
    straight from the protocol where it offers `DIRECT_RECEIVE` (only the disconnect comes
    through `receive` then), else each frame `receive` gives; `player_key` is the handshake's
    cookie."""
    direct = (websocket.scope.get("extensions") or {}).get(DIRECT_RECEIVE)
    reader = Reader(room, conn, limiter, hello_within, player_key, direct and direct["resume"])
    if direct is not None:
        direct["listen"](reader.take)
    try:
        while True:
            receiving: asyncio.Future[Message] = asyncio.ensure_future(websocket.receive())
            await asyncio.wait((receiving, reader.ended), return_when=asyncio.FIRST_COMPLETED)
            if reader.ended.done():
                receiving.cancel()
                return reader.ended.result()  # raises what the handling raised
            frame = receiving.result()
            if frame["type"] == "websocket.disconnect":
                return
            reader.take(received(frame))
            await reader.settle()
    finally:
        reader.stop()
        await reader.settle()  # a hello in flight seats the socket before it leaves


class Reader:
    """One socket's messages, handled one at a time in the order they came, each at once in
    the step that received it. When one's handling has to wait (a hello's database lookup, a
    room's lock held), those after it wait behind it, and reading pauses once `MAX_WAITING` do.
    It holds the limits: the hello deadline, the frame size, the rate."""

    __slots__ = (
        "_backlog",
        "_busy",
        "_conn",
        "_hello_due",
        "_hello_timer",
        "_limiter",
        "_player_key",
        "_resume",
        "_room",
        "_said_hello",
        "ended",
    )

    def __init__(
        self,
        room: Room,
        conn: WsConnection,
        limiter: RateLimiter,
        hello_within: float,
        player_key: str | None,
        resume: Callable[[], None] | None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self._room, self._conn, self._limiter = room, conn, limiter
        self._player_key, self._resume = player_key, resume
        self._said_hello = False
        self._backlog: deque[str | bytes] = deque()
        self._busy: asyncio.Future[bool] | None = None  # the handling that had to wait
        self._hello_due = loop.time() + hello_within
        self._hello_timer: asyncio.TimerHandle | None = loop.call_at(
            self._hello_due, self._hello_timeout
        )
        self.ended: asyncio.Future[None] = loop.create_future()  # closed by a limit, or failed

    def take(self, message: str | bytes) -> bool:
        """Handle `message` now, or after those before it; False once `MAX_WAITING` wait.
        (Nothing waits while nothing is busy: `_resumed` takes the backlog first.)"""
        if self._busy is None:
            self._handle(message)
            return True
        self._backlog.append(message)
        return len(self._backlog) < MAX_WAITING

    async def settle(self) -> None:
        """Wait until no message is being handled or waits."""
        while self._busy is not None:
            await asyncio.wait([self._busy])

    def stop(self) -> None:
        """The socket is going: nothing more is handled (what is in flight finishes)."""
        self._backlog.clear()
        self._end()

    def _handle(self, message: str | bytes) -> None:
        if self.ended.done():
            return
        if isinstance(message, bytes):
            return self._end(CloseCode.UNSUPPORTED_DATA)
        if len(message) > MAX_FRAME_BYTES // 4 and len(message.encode()) > MAX_FRAME_BYTES:
            return self._end(CloseCode.MESSAGE_TOO_BIG)
        conn = self._conn
        if conn.closed:
            return  # replaced by a newer connection; the close is on its way
        if not self._limiter.allow():
            conn.send(error_frame("rate_limited", "Too many messages; slow down."))
            if self._limiter.flooding:
                self._end(CloseCode.POLICY_VIOLATION)
            return
        handling = handle_text(self._room, conn, message, self._said_hello, self._player_key)
        try:
            waiting = handling.send(None)  # most messages are handled in this one step
        except StopIteration as handled:
            return self._handled(handled.value)
        except Exception as error:
            return self._fail(error)
        self._busy = asyncio.ensure_future(Resumed(handling, waiting))
        self._busy.add_done_callback(self._resumed)

    def _resumed(self, busy: asyncio.Future[bool]) -> None:
        """The handling that had to wait is done: then those behind it, in order."""
        self._busy = None
        error = None if busy.cancelled() else busy.exception()
        if error is not None:
            return self._fail(error)
        if not busy.cancelled():
            self._handled(busy.result())
        while self._backlog and self._busy is None:
            self._handle(self._backlog.popleft())
        if self._busy is None and self._resume is not None:
            self._resume()

    def _handled(self, said_hello: bool) -> None:
        self._said_hello = said_hello
        if said_hello:
            self._cancel_hello_timer()
        elif asyncio.get_running_loop().time() >= self._hello_due:
            self._end(CloseCode.HELLO_TIMEOUT)  # its time ran out while a hello was refused

    def _hello_timeout(self) -> None:
        self._hello_timer = None
        if not self._said_hello and self._busy is None:
            self._end(CloseCode.HELLO_TIMEOUT)  # (a hello in flight decides in `_handled`)

    def _cancel_hello_timer(self) -> None:
        if self._hello_timer is not None:
            self._hello_timer.cancel()
            self._hello_timer = None

    def _end(self, code: CloseCode | None = None) -> None:
        """Close with `code` (if given) and stop handling: the endpoint returns."""
        self._cancel_hello_timer()
        if not self.ended.done():
            if code is not None:
                self._conn.close(code)
            self.ended.set_result(None)

    def _fail(self, error: BaseException) -> None:
        """A handling raised what no refusal explains: the endpoint raises it (and uvicorn
        logs it and drops the socket), as when it was handled in the endpoint's own task."""
        self._cancel_hello_timer()
        self._backlog.clear()
        if not self.ended.done():
            self.ended.set_exception(error)
        else:  # the endpoint has returned (the socket went): nobody else will tell
            logger.error("a message of a socket already gone failed", exc_info=error)


async def handle_text(
    room: Room, conn: Connection, text: str, said_hello: bool, player_key: str | None = None
) -> bool:
    """Parse and apply one text frame, answering a refusal with an `error` frame. A hello
    without its own `player_key` takes the handshake's (`player_key`, from the cookie).

    Returns whether the connection has said hello once this frame is handled.
    """
    started = time.perf_counter()
    kind = None
    try:
        message = parse_client_message(text)
        kind = message.type
        if isinstance(message, Ping):
            conn.send(PONG)
        elif said_hello:
            await room.receive(conn, message)
        elif isinstance(message, Join | Resume | Watch):
            if not isinstance(message, Watch) and message.player_key is None and player_key:
                message = message.model_copy(update={"player_key": player_key})
            await room.hello(conn, message)
            return True
        else:
            raise ProtocolError("not_joined", "Say hello first: join, resume or watch.")
    except ProtocolError as exc:
        conn.send(error_frame(exc.code, exc.message))
    finally:
        metrics.ACTIONS.record(kind, time.perf_counter() - started)
    return said_hello
