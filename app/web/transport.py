"""The protocols `perudo serve` runs. HTTP is uvicorn's httptools protocol, which lets go of
its parser once it hands a socket over to the WebSocket protocol: the parser holds the
protocol, and the pair outlived every upgrade as a reference cycle (with `app.garbage`
freezing survivors, often until the next full collection). The WebSocket protocol is uvicorn's
sans-I/O `websockets` protocol, with five changes.

- The kernel's send buffer of each WebSocket is capped (`SEND_BUFFER_BYTES`): a client that
  stops reading is closed once the outbox fills, after a few hundred kilobytes, instead of
  holding up to 4 MB of kernel memory first.
- A text frame of invalid UTF-8 is closed with 1007 quietly: the stock protocol logs a
  traceback for it, and no input may put one in our log.
- Reading the socket pauses once `ws_max_queue` received messages wait for the app, as that
  setting says; the stock protocol paused and resumed reading around every message (two
  calls into the event loop and its system calls, for each message a player sends).
- Frames are cut out of the stream here once the handshake is done: a whole, masked,
  unfragmented text frame within the size limit (every message a player sends) is unmasked
  and queued at once, and any other frame is handed whole to the `websockets` parser, which
  therefore always stands between two frames. Its generators (a frame's header, length, mask
  and payload each read through a `yield from`, then its state checks) cost more per
  message than the rest of the way to the room.
- It offers the app a direct send (the ASGI scope's extension `DIRECT_SEND`): a text frame
  written to the socket at once, in the caller's step. The ASGI `send` goes through four
  coroutines (Starlette's state checks, its exception wrappers, uvicorn's) and the
  `websockets` frame builder for every frame; a room sends about eight frames per action, so
  that walk was a large share of an action's cost. The direct send only takes a frame while
  the ASGI send would write it at once too (the connection open, no close sent, the
  transport not paused); otherwise it declines and the caller uses the ASGI send, which waits.
  Frames sent together (a round's result and the state after it) go out in one write.
- It offers the app a direct receive (`DIRECT_RECEIVE`): once the app listens, each message
  is handed to it in the step that read it, instead of through the queue its ASGI `receive`
  waits on. That wait woke the app's task, which resumed every coroutine between uvicorn and
  the endpoint (about twenty: the middleware, the router, Starlette's and uvicorn's receive)
  and suspended them all again, for every message. Only the disconnect still comes through
  `receive`. The app says when too many messages wait for it, and reading pauses until it
  calls `resume`.

`WsConnection` is the app's side of it: a room's handle on one socket, which sends through the
direct send while it can and through a bounded outbox while the client's transport is paused.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import struct
from asyncio import BaseTransport
from collections import deque
from collections.abc import Callable, Coroutine, Generator, Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the C extension is missing on this platform
    from websockets.utils import apply_mask

from app.protocol import CloseCode

T = TypeVar("T")
DIRECT_SEND = "perudo.direct_send"  # scope["extensions"][DIRECT_SEND]["send"]([utf8]) -> sent?
DirectSend = Callable[[Sequence[bytes]], bool]
# scope["extensions"][DIRECT_RECEIVE]: {"listen": listen(take), "resume": resume()}, where
# take(text or bytes) -> whether it may take more now (else reading pauses until `resume`).
DIRECT_RECEIVE = "perudo.direct_receive"
Take = Callable[[str | bytes], bool]
MAX_WAITING = 4  # messages of a socket waiting for the app (queued, or taken) before reading pauses

# The kernel's send buffer of a WebSocket (it doubles it): Linux would grow it to 4 MB for a
# client that stops reading, so such a client held megabytes of kernel memory and took that
# long to reach the outbox limit (`app.web.transport.OUTBOX_LIMIT`) that closes it.
SEND_BUFFER_BYTES = 64 * 1024
_TEXT_FIN = 0x81  # FIN + opcode 1 (text); a server's frames are not masked
_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def received(event: Mapping[str, Any]) -> str | bytes:
    """The message an ASGI `websocket.receive` event carries: its text, or else its bytes."""
    text: str | None = event.get("text")
    return text if text is not None else event.get("bytes") or b""


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented WebSocket text frame carrying `payload` (RFC 6455, 5.2)."""
    size = len(payload)
    if size < 126:
        header = _SHORT.pack(_TEXT_FIN, size)
    elif size < 65536:
        header = _MEDIUM.pack(_TEXT_FIN, 126, size)
    else:
        header = _LONG.pack(_TEXT_FIN, 127, size)
    return header + payload


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, without the cycle an upgraded socket left behind."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # as uvicorn does when a socket closes


_MASK_BIT = 0x80
_LENGTH_BITS = 0x7F
_MASK_BYTES = 4


def frame_extent(data: bytes | bytearray) -> tuple[int, int] | None:
    """Where the frame at the start of `data` ends: (its header's length, mask included, and
    the frame's), or None while its header is incomplete (RFC 6455, 5.2)."""
    if len(data) < 2:
        return None
    length, header = data[1] & _LENGTH_BITS, 2
    if length == 126:
        if len(data) < 4:
            return None
        length, header = int.from_bytes(data[2:4]), 4
    elif length == 127:
        if len(data) < 10:
            return None
        length, header = int.from_bytes(data[2:10]), 10
    if data[1] & _MASK_BIT:
        header += _MASK_BYTES
    return header, header + length


def _between_frames(parser: Generator[None]) -> bool:
    """Whether the `websockets` parser waits for the start of a frame, not in the middle of
    one: its innermost generator is the reader's end-of-stream check, which it steps only
    before a frame's first byte."""
    inner: Any = parser
    while getattr(inner, "gi_yieldfrom", None) is not None:
        inner = inner.gi_yieldfrom
    return getattr(getattr(inner, "gi_code", None), "co_name", "") == "at_eof"


class SansIOProtocol(WebSocketsSansIOProtocol):
    """uvicorn's `websockets-sansio` protocol with a quiet 1007, its own framing of what a
    player sends, and a direct send."""

    # The bytes of a frame not yet whole, while this protocol cuts the frames (None: the
    # `websockets` parser reads everything, as before the handshake and after a close).
    _inbox: bytearray | None = None
    _take: Take | None = None  # the app's, once it listens (`DIRECT_RECEIVE`)

    def connection_made(self, transport: BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
        super().connection_made(transport)

    async def run_asgi(self) -> None:
        extensions = self.scope["extensions"]
        if not self.conn.extensions:  # no per-message deflate: frames go out as they are
            extensions[DIRECT_SEND] = {"send": self.send_now}
        extensions[DIRECT_RECEIVE] = {"listen": self.listen, "resume": self.resume_reading}
        try:
            await super().run_asgi()
        finally:  # the scope holds methods of this protocol, which holds the scope (and the
            extensions.pop(DIRECT_SEND, None)  # app's `take`, the app): cycles that would
            extensions.pop(DIRECT_RECEIVE, None)  # outlive the socket
            self._take = None

    def listen(self, take: Take) -> None:
        """Hand every message to `take` from now on, in the step that read it, starting with
        those queued for `receive` before (the disconnect, if it came, stays queued)."""
        self._take = take
        queued = [self.queue.get_nowait() for _ in range(self.queue.qsize())]
        full = False
        for event in queued:
            if event["type"] == "websocket.receive":
                full = not take(received(event))
            else:
                self.queue.put_nowait(event)
        if not full:
            self.resume_reading()  # (paused if the queue had filled)

    def resume_reading(self) -> None:
        """Read on: the app took what waited (reading paused when `take` said it was full)."""
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        inbox = self._inbox
        if inbox is None:
            if not self._may_cut_frames():
                super().data_received(data)
                return
            inbox = self._inbox = bytearray()
        inbox += data
        limit = self.conn.max_message_size
        while inbox:
            extent = frame_extent(inbox)
            if extent is None:
                return  # the rest of the header is on its way
            header, end = extent
            if (limit is not None and end - header > limit) or not inbox[1] & _MASK_BIT:
                return self._hand_over()  # the parser closes with 1009 or 1002
            if len(inbox) < end:
                return
            if inbox[0] == _TEXT_FIN and self.conn.current_size is None:
                mask = inbox[header - _MASK_BYTES : header]
                self.curr_msg_data_type = "text"
                self.frames = [apply_mask(inbox[header:end], mask)]
                del inbox[:end]
                self.send_receive_event_to_app()
            else:  # control, binary, fragmented, reserved bits...: the parser's, whole
                frame = bytes(inbox[:end])
                del inbox[:end]
                super().data_received(frame)
            if self.conn.state is not State.OPEN or self.conn.parser_exc is not None:
                return self._hand_over()

    def _may_cut_frames(self) -> bool:
        """Whether the frames may be cut here from now on: the socket is open and the
        parser stands before a frame with nothing buffered."""
        conn = self.conn
        return (
            self.handshake_complete
            and conn.state is State.OPEN
            and conn.parser_exc is None
            and not conn.reader.buffer
            and _between_frames(conn.parser)
        )

    def _hand_over(self) -> None:
        """The parser reads everything from now on, starting with what waits here."""
        inbox, self._inbox = self._inbox, None
        if inbox and self.conn.parser_exc is None:
            super().data_received(bytes(inbox))

    def send_now(self, payloads: Sequence[bytes]) -> bool:
        """Write a text frame of each payload (UTF-8), all in one write, now, if the ASGI send
        would write them at once; whether they were written."""
        if (
            self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        if len(payloads) == 1:
            self.transport.write(text_frame(payloads[0]))
        else:
            self.transport.write(b"".join(map(text_frame, payloads)))
        return True

    def send_receive_event_to_app(self) -> None:
        """Hand the message just received to the app (text decoded once): to its `take` if
        it listens, else to the queue of its `receive`. Reading pauses while `take` is full,
        or while `ws_max_queue` messages are queued (`receive` resumes it once all are taken)."""
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return  # past our close: read on until the peer's close comes back
        message: str | bytes = data
        if self.curr_msg_data_type == "text":
            try:
                message = data.decode()
            except UnicodeDecodeError:
                self.conn.send_close(CloseCode.INVALID_FRAME_PAYLOAD_DATA)
                self.handle_parser_exception()
                return
        take = self._take
        if take is not None:
            full = not take(message)
        else:
            if isinstance(message, str):
                self.queue.put_nowait({"type": "websocket.receive", "text": message})
            else:
                self.queue.put_nowait({"type": "websocket.receive", "bytes": message})
            full = self.queue.qsize() >= self.config.ws_max_queue
        if full and not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()


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

    async def _drain(self, first: Resumed[None]) -> None:
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


class Resumed(Generic[T]):
    """The rest of a coroutine that was stepped by hand and stopped at `waiting` (a future it
    waits on), as an awaitable a task can drive like any other; it gives what the coroutine
    returns."""

    def __init__(self, coroutine: Coroutine[Any, Any, T], waiting: Any) -> None:
        self._coroutine = coroutine
        self._waiting = waiting

    def __await__(self) -> Generator[Any, None, T]:
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
            except StopIteration as finished:
                return cast(T, finished.value)
