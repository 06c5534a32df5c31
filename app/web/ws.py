"""The WebSocket endpoint: origin check, frame limits, rate limit, hello, then the room.

The socket layer holds no game rules: it parses each frame into a typed message (one place,
`app.protocol`), answers a refusal with an `error` frame and hands everything else to the room.
"""

from __future__ import annotations

import asyncio
import time

from fastapi import APIRouter, WebSocket

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
from app.web.transport import WsConnection

router = APIRouter()


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
