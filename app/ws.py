"""The WebSocket endpoint: origin check, frame limits, rate limit, hello, then the room.

The socket layer holds no game rules: it parses each frame into a typed message (one place,
`app.protocol`), answers a refusal with an `error` frame and hands everything else to the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.protocol import (
    MAX_FRAME_BYTES,
    PONG,
    Join,
    Ping,
    ProtocolError,
    Resume,
    Watch,
    error_frame,
    parse_client_message,
)
from app.rooms import Connection, Registry, Room
from app.rooms.room import UNKNOWN_ROOM

router = APIRouter()

CLOSE_UNSUPPORTED = 1003
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
OUTBOX_LIMIT = 256  # frames queued for a client that does not read: it gets closed
CLOSE_WAIT_SECONDS = 5.0


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str]) -> bool:
    """No Origin (scripts, bots), our own origin, or one listed in PERUDO_ALLOWED_ORIGINS."""
    if origin is None or origin in allowed:
        return True
    parts = urlsplit(origin)
    return (
        parts.scheme in ("http", "https")
        and host is not None
        and parts.netloc.lower() == host.lower()
    )


@dataclass(frozen=True, slots=True)
class RateLimits:
    """PROTOCOL.md: 20 messages a second, bursts of 40; 50 refusals within 10 s is flooding."""

    rate: float = 20.0
    burst: float = 40.0
    flood: int = 50
    window: float = 10.0


class RateLimiter:
    """A token bucket per connection (never per address), counting its refusals."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._clock = clock
        self._tokens = limits.burst
        self._last = clock()
        self._refusals: deque[float] = deque()

    def allow(self) -> bool:
        """Take a token; False (a refusal, remembered) when the bucket is empty."""
        now = self._clock()
        limits = self._limits
        self._tokens = min(limits.burst, self._tokens + (now - self._last) * limits.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        self._refusals.append(now)
        return False

    @property
    def flooding(self) -> bool:
        """At least `flood` refusals within the last `window` seconds."""
        horizon = self._clock() - self._limits.window
        while self._refusals and self._refusals[0] <= horizon:
            self._refusals.popleft()
        return len(self._refusals) >= self._limits.flood


class WsConnection:
    """A room's handle on one socket: sends are queued, so a slow client never blocks a room."""

    def __init__(self, websocket: WebSocket) -> None:
        self._ws = websocket
        self._outbox: asyncio.Queue[str | int] = asyncio.Queue()
        self.closed = False
        self._writer = asyncio.create_task(self._write())

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self._outbox.qsize() >= OUTBOX_LIMIT:
            self.close(CLOSE_POLICY)
            return
        self._outbox.put_nowait(text)

    def close(self, code: int) -> None:
        """Close after the frames already queued have gone out."""
        if not self.closed:
            self.closed = True
            self._outbox.put_nowait(code)

    async def _write(self) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            while True:
                item = await self._outbox.get()
                if isinstance(item, int):
                    await self._ws.close(item)
                    return
                await self._ws.send_text(item)

    async def finish(self) -> None:
        """Let a requested close go out (bounded), else stop the writer."""
        if self.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._writer), CLOSE_WAIT_SECONDS)
        self.closed = True
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer


@router.websocket("/ws/{room_id}")
async def play(websocket: WebSocket, room_id: str) -> None:
    """One client's socket in one room."""
    settings: Settings = websocket.app.state.settings
    headers = websocket.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), settings.origins()):
        await websocket.close(CLOSE_POLICY)  # before accept: the server answers HTTP 403
        return
    await websocket.accept()
    registry: Registry = websocket.app.state.registry
    room = registry.get(room_id)
    if room is None:
        await websocket.close(UNKNOWN_ROOM)
        return
    conn = WsConnection(websocket)
    try:
        await _serve(websocket, room, conn)
    finally:
        await room.disconnect(conn)
        await conn.finish()


async def _serve(websocket: WebSocket, room: Room, conn: WsConnection) -> None:
    """Read frames until the client goes or breaks a limit."""
    limiter = RateLimiter(websocket.app.state.rate_limits)
    said_hello = False
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            return
        text: str | None = frame.get("text")
        if text is None:
            conn.close(CLOSE_UNSUPPORTED)
            return
        if len(text) > MAX_FRAME_BYTES // 4 and len(text.encode()) > MAX_FRAME_BYTES:
            conn.close(CLOSE_TOO_BIG)
            return
        if conn.closed:
            continue  # replaced by a newer connection; the close is on its way
        if not limiter.allow():
            conn.send(error_frame("rate_limited", "Too many messages; slow down."))
            if limiter.flooding:
                conn.close(CLOSE_POLICY)
                return
            continue
        said_hello = await handle_text(room, conn, text, said_hello)


async def handle_text(room: Room, conn: Connection, text: str, said_hello: bool) -> bool:
    """Parse and apply one text frame, answering a refusal with an `error` frame.

    Returns whether the connection has said hello once this frame is handled.
    """
    try:
        message = parse_client_message(text)
        if isinstance(message, Ping):
            conn.send(PONG)
        elif said_hello:
            await room.receive(conn, message)
        elif isinstance(message, Join | Resume | Watch):
            await room.hello(conn, message)
            return True
        else:
            raise ProtocolError("not_joined", "Say hello first: join, resume or watch.")
    except ProtocolError as exc:
        conn.send(error_frame(exc.code, exc.message))
    return said_hello
