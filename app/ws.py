"""The WebSocket endpoint: origin check, frame limits, rate limit, hello, then the room.

The socket layer holds no game rules: it parses each frame into a typed message (one place,
`app.protocol`), answers a refusal with an `error` frame and hands everything else to the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections import deque
from collections.abc import Coroutine, Generator
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from app import metrics
from app.deps import RateLimitsDep, RegistryDep, SettingsDep
from app.limits import RateLimiter, origin_allowed
from app.player_key import cookie_key
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
from app.transport import DIRECT_SEND, DirectSend

router = APIRouter()

OUTBOX_LIMIT = 256  # frames queued for a client that does not read: it gets closed
CLOSE_WAIT_SECONDS = 5.0


class WsConnection:
    """A room's handle on one socket. A frame goes out at once when the socket can take it,
    with no task switch (straight to the socket where the server offers `DIRECT_SEND`, else
    through the ASGI send); while the client's transport is paused, frames wait in a bounded
    outbox behind a writer task, so a slow client never blocks a room."""

    def __init__(self, websocket: WebSocket) -> None:
        self._ws = websocket
        direct = (websocket.scope.get("extensions") or {}).get(DIRECT_SEND)
        self._send_now: DirectSend | None = direct["send"] if direct else None
        self._outbox: deque[str | CloseCode] = deque()
        self._writer: asyncio.Task[None] | None = None  # only while frames wait
        self.closed = False

    def send(self, *texts: str) -> None:
        if self.closed:
            return
        send_now = self._send_now if self._writer is None else None  # none while frames wait
        if send_now is not None and send_now([text.encode() for text in texts]):
            return
        for text in texts:
            if self.closed:
                return
            if self._writer is None:
                self._push(text)
            elif len(self._outbox) >= OUTBOX_LIMIT:
                self.close(CloseCode.POLICY_VIOLATION)
            else:
                self._outbox.append(text)

    def close(self, code: CloseCode) -> None:
        """Close after the frames already waiting have gone out."""
        if not self.closed:
            self.closed = True
            if self._writer is None:
                self._push(code)
            else:
                self._outbox.append(code)

    def _push(self, item: str | CloseCode) -> None:
        """Send `item` now: the ASGI send completes in one step unless the transport is
        paused, and then a writer task finishes it and sends whatever waits behind it."""
        sending = self._ws.close(item) if isinstance(item, CloseCode) else self._ws.send_text(item)
        try:
            waiting = sending.send(None)
        except StopIteration:
            return  # sent
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True  # the client is gone
            return
        self._writer = asyncio.ensure_future(self._drain(Resumed(sending, waiting)))

    async def _drain(self, first: Resumed) -> None:
        try:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await first
                while self._outbox:
                    item = self._outbox.popleft()
                    if isinstance(item, CloseCode):
                        await self._ws.close(item)
                        return
                    await self._ws.send_text(item)
        finally:
            self._writer = None

    async def finish(self) -> None:
        """Let frames still waiting (and a requested close) go out, bounded, then stop."""
        self.closed = True
        writer = self._writer
        if writer is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(writer), CLOSE_WAIT_SECONDS)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await writer


class Resumed:
    """The rest of a coroutine that was stepped by hand and stopped at `waiting` (a future it
    waits on), as an awaitable a task can drive like any other."""

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
        self._coroutine = coroutine
        self._waiting = waiting

    def __await__(self) -> Generator[Any, None, None]:
        waiting = self._waiting
        while True:
            try:
                yield waiting
            except BaseException as error:  # cancelled while waiting: the send sees it
                step = functools.partial(self._coroutine.throw, error)
            else:
                step = functools.partial(self._coroutine.send, None)
            try:
                waiting = step()
            except StopIteration:
                return


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
    """Read frames until the client goes or breaks a limit; `player_key` is the handshake's
    cookie."""
    loop = asyncio.get_running_loop()
    hello_deadline = loop.time() + hello_within
    said_hello = False
    while True:
        if said_hello:
            frame = await websocket.receive()
        else:
            try:
                async with asyncio.timeout_at(hello_deadline):
                    frame = await websocket.receive()
            except TimeoutError:
                conn.close(CloseCode.HELLO_TIMEOUT)
                return
        if frame["type"] == "websocket.disconnect":
            return
        text: str | None = frame.get("text")
        if text is None:
            conn.close(CloseCode.UNSUPPORTED_DATA)
            return
        if len(text) > MAX_FRAME_BYTES // 4 and len(text.encode()) > MAX_FRAME_BYTES:
            conn.close(CloseCode.MESSAGE_TOO_BIG)
            return
        if conn.closed:
            continue  # replaced by a newer connection; the close is on its way
        if not limiter.allow():
            conn.send(error_frame("rate_limited", "Too many messages; slow down."))
            if limiter.flooding:
                conn.close(CloseCode.POLICY_VIOLATION)
                return
            continue
        said_hello = await handle_text(room, conn, text, said_hello, player_key)


async def handle_text(
    room: Room, conn: Connection, text: str, said_hello: bool, player_key: str | None = None
) -> bool:
    """Parse and apply one text frame, answering a refusal with an `error` frame. A hello
    without its own `player_key` takes the handshake's (`player_key`, from the cookie).

    Returns whether the connection has said hello once this frame is handled.
    """
    started = time.perf_counter()
    try:
        message = parse_client_message(text)
        metrics.action_counter(message.type).inc()
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
        metrics.ACTION_SECONDS.observe(time.perf_counter() - started)
    return said_hello
