"""`app.web.transport`: the direct send writes the same frames as the `websockets` library, in
order with the ASGI send, and declines whenever the ASGI send would not write at once."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from app.web.transport import (
    DIRECT_SEND,
    SEND_BUFFER_BYTES,
    HttpProtocol,
    SansIOProtocol,
    frame_extent,
    text_frame,
)

pytestmark = pytest.mark.timeout(30)

SIZES = [0, 1, 125, 126, 127, 4000, 65535, 65536, 70000]


@pytest.mark.parametrize("size", SIZES)
def test_a_text_frame_is_the_one_websockets_would_write(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False)
    assert text_frame(payload) == expected


class DirectApp:
    """A WebSocket app that sends through the direct send and notes what it answered."""

    def __init__(self) -> None:
        self.answers: list[tuple[str, bool]] = []
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        self.scopes.append(scope)
        if DIRECT_SEND not in scope["extensions"]:
            self.answers.append(("offered", False))
            await send({"type": "websocket.send", "text": "through ASGI"})
            return
        send_now = scope["extensions"][DIRECT_SEND]["send"]
        protocol = send_now.__self__
        await send({"type": "websocket.send", "text": "through ASGI"})
        for size in SIZES:
            self.answers.append(("open", send_now([("x" * size).encode()])))
        self.answers.append(("together", send_now([b"one write,", "two frames é".encode()])))
        protocol.pause_writing()  # as the transport does when its buffer is full
        self.answers.append(("paused", send_now([b"held"])))
        protocol.resume_writing()
        self.answers.append(("resumed", send_now([b"after the pause"])))
        assert (await receive())["text"] == "bye"
        await send({"type": "websocket.close", "code": 4000})
        self.answers.append(("closed", send_now([b"late"])))


async def accepted(scope: dict[str, Any], receive: Any, send: Any) -> Any:
    """Accept a WebSocket (None for any other scope): the protocol serving it."""
    if scope["type"] != "websocket":
        return None
    await receive()
    await send({"type": "websocket.accept"})
    return scope["extensions"][DIRECT_SEND]["send"].__self__


class SlowReader:
    """A WebSocket app that lets messages pile up before it reads them, noting the protocol's
    queue and reading state."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, bool]] = []  # (messages waiting, reading paused)
        self.received: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        protocol = await accepted(scope, receive, send)
        if protocol is None:
            return
        while protocol.queue.qsize() < 4:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.4)  # the client sends the rest of its ten meanwhile
        self.seen.append((protocol.queue.qsize(), protocol.read_paused))
        while len(self.received) < 10:
            self.received.append((await receive())["text"])
        self.seen.append((protocol.queue.qsize(), protocol.read_paused))
        await send({"type": "websocket.send", "text": "done"})


@contextlib.contextmanager
def serving(
    app: Any,
    *,
    deflate: bool,
    http: type[HttpProtocol] = HttpProtocol,
    ws: type[SansIOProtocol] = SansIOProtocol,
    max_size: int = 16 * 1024 * 1024,
) -> Iterator[str]:
    """`app` under uvicorn with our protocol, in a thread, at the yielded URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        http=http,
        ws=ws,
        ws_per_message_deflate=deflate,
        ws_max_queue=4,
        ws_max_size=max_size,
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=asyncio.run, args=(server.serve(),), daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.01)
    try:
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)


def test_the_direct_send_writes_in_order_and_declines_when_it_must() -> None:
    app = DirectApp()
    with serving(app, deflate=False) as url, connect(url, proxy=None, max_size=None) as ws:
        received = [ws.recv(timeout=5) for _ in range(len(SIZES) + 4)]
        ws.send("bye")
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
    assert received == [
        "through ASGI",
        *("x" * size for size in SIZES),
        "one write,",
        "two frames é",
        "after the pause",
    ]
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
    assert app.answers == [
        *(("open", True) for _ in SIZES),
        ("together", True),
        ("paused", False),
        ("resumed", True),
        ("closed", False),
    ]


def test_no_direct_send_is_offered_when_frames_are_compressed() -> None:
    app = DirectApp()
    with serving(app, deflate=True) as url, connect(url, proxy=None) as ws:
        assert ws.recv(timeout=5) == "through ASGI"
    assert app.answers == [("offered", False)]


def test_reading_pauses_once_four_messages_wait_and_nothing_is_lost() -> None:
    app = SlowReader()
    with serving(app, deflate=False) as url, connect(url, proxy=None) as ws:
        for number in range(10):  # one read each: a message read is queued whatever comes
            ws.send(str(number))
            time.sleep(0.02)
        assert ws.recv(timeout=5) == "done"
    assert app.received == [str(number) for number in range(10)]
    assert app.seen == [(4, True), (0, False)]


def test_a_finished_socket_leaves_no_cycle_through_its_direct_send() -> None:
    """The scope holds the direct send, a method of the protocol, which holds the scope: the
    protocol takes it back when the app is done, or every closed socket would wait for a full
    garbage collection (frozen ones for far longer)."""
    app = DirectApp()
    with serving(app, deflate=False) as url:
        with connect(url, proxy=None, max_size=None) as ws:
            for _ in range(len(SIZES) + 4):
                ws.recv(timeout=5)
            ws.send("bye")
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
        deadline = time.monotonic() + 5
        while DIRECT_SEND in app.scopes[0]["extensions"] and time.monotonic() < deadline:
            time.sleep(0.01)
    assert DIRECT_SEND not in app.scopes[0]["extensions"]


class CountedHttp(HttpProtocol):
    alive: ClassVar[weakref.WeakSet[HttpProtocol]] = weakref.WeakSet()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.alive.add(self)


class CountedWs(SansIOProtocol):
    alive: ClassVar[weakref.WeakSet[SansIOProtocol]] = weakref.WeakSet()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.alive.add(self)


class Greeter:
    """Says hello, then waits for the client to go."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": "hello"})
            await receive()


def test_closed_sockets_are_freed_by_reference_counting_alone() -> None:
    """No reference cycle outlives a WebSocket: not the HTTP protocol it was upgraded from,
    not its own (a frozen cycle would wait for a full collection)."""
    with serving(Greeter(), deflate=False, http=CountedHttp, ws=CountedWs) as url:
        gc.disable()
        try:
            for _ in range(5):
                with connect(url, proxy=None) as ws:
                    assert ws.recv(timeout=5) == "hello"
            deadline = time.monotonic() + 5
            while (CountedHttp.alive or CountedWs.alive) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert (len(CountedHttp.alive), len(CountedWs.alive)) == (0, 0)
        finally:
            gc.enable()


class SendBufferProbe:
    """Notes the kernel send buffer of its WebSocket."""

    def __init__(self) -> None:
        self.send_buffer = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            protocol = scope["extensions"][DIRECT_SEND]["send"].__self__
            sock = protocol.transport.get_extra_info("socket")
            self.send_buffer = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            await send({"type": "websocket.send", "text": "measured"})
            await receive()


def test_a_websockets_kernel_send_buffer_is_capped() -> None:
    """So a client that stops reading reaches the outbox limit (and is closed) after a few
    hundred kilobytes, not after the 4 MB Linux would let the buffer grow to."""
    app = SendBufferProbe()
    with serving(app, deflate=False) as url, connect(url, proxy=None) as ws:
        assert ws.recv(timeout=5) == "measured"
    assert SEND_BUFFER_BYTES <= app.send_buffer <= 2 * SEND_BUFFER_BYTES  # Linux doubles it


class Echo:
    """A WebSocket app that answers every text message with itself, and notes whether this
    protocol was cutting the frames when each came (`cutting`)."""

    def __init__(self) -> None:
        self.cutting: list[bool] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        protocol = await accepted(scope, receive, send)
        if protocol is None:
            return
        while (message := await receive())["type"] == "websocket.receive":
            self.cutting.append(protocol._inbox is not None)
            await send({"type": "websocket.send", "text": message["text"]})


def masked(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """A client's frame, as a browser masks it."""
    return Frame(Opcode(opcode), payload, fin=fin).serialize(mask=True)


@contextlib.contextmanager
def raw_socket(url: str) -> Iterator[socket.socket]:
    """A plain socket past the opening handshake of `url`."""
    port = int(url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101")
        yield sock


def read_frames(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """`count` unmasked frames from the server: (opcode, payload) each."""
    frames, data = [], b""
    while len(frames) < count:
        extent = frame_extent(data)
        if extent is None or len(data) < extent[1]:
            chunk = sock.recv(65536)
            assert chunk, "the server closed the socket"
            data += chunk
            continue
        header, end = extent
        frames.append((data[0] & 0x0F, data[header:end]))
        data = data[end:]
    return frames


@pytest.mark.parametrize(
    ("header", "extent"),
    [
        (b"\x81", None),
        (b"\x81\x85", (6, 11)),
        (b"\x81\x05", (2, 7)),
        (b"\x81\xfe\x01", None),
        (b"\x81\xfe\x01\x00", (8, 264)),
        (b"\x81\x7e\x10\x00", (4, 4100)),
        (b"\x81\xff" + (70000).to_bytes(8, "big"), (14, 70014)),
    ],
)
def test_a_frames_extent_is_read_from_its_header(
    header: bytes, extent: tuple[int, int] | None
) -> None:
    assert frame_extent(header) == extent


MESSAGES = ["a", "é" * 40, "x" * 125, "y" * 126, "z" * 4000, '{"type":"ping"}']


@pytest.mark.parametrize("split", [1, 3, 7, 1000, 0], ids=lambda n: f"chunks-of-{n or 'all'}")
def test_frames_cut_here_arrive_whole_and_in_order_however_the_stream_is_split(
    split: int,
) -> None:
    app = Echo()
    stream = b"".join(masked(0x1, text.encode()) for text in MESSAGES)
    with serving(app, deflate=False) as url, raw_socket(url) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        step = split or len(stream)
        for start in range(0, len(stream), step):
            sock.sendall(stream[start : start + step])
            time.sleep(0.001)
        echoed = read_frames(sock, len(MESSAGES))
    assert echoed == [(0x1, text.encode()) for text in MESSAGES]
    assert app.cutting == [True] * len(MESSAGES)


def test_pings_and_fragments_go_to_the_parser_between_cut_frames() -> None:
    app = Echo()
    stream = b"".join(
        [
            masked(0x1, b"one"),
            masked(0x1, b"frag", fin=False),
            masked(0x9, b"are you there"),  # a ping between a message's fragments
            masked(0x0, b"mented", fin=True),
            masked(0x1, b"two"),
        ]
    )
    with serving(app, deflate=False) as url, raw_socket(url) as sock:
        for start in range(0, len(stream), 5):
            sock.sendall(stream[start : start + 5])
        frames = read_frames(sock, 4)
    assert (0xA, b"are you there") in frames  # the pong, written as the ping is read
    assert [frame for frame in frames if frame[0] == 0x1] == [
        (0x1, b"one"),
        (0x1, b"fragmented"),
        (0x1, b"two"),
    ]
    assert app.cutting == [True, True, True]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (masked(0x1, b"x" * 5000), 1009),  # over ws_max_size
        (Frame(Opcode.TEXT, b"unmasked").serialize(mask=False), 1002),
        (masked(0x1, b"\xff\xfe"), 1007),
        (masked(0x0, b"no message to continue"), 1002),
    ],
    ids=["too-big", "unmasked", "bad-utf8", "stray-continuation"],
)
def test_a_frame_the_cutter_cannot_take_is_refused_by_the_parser(frame: bytes, code: int) -> None:
    app = Echo()
    with serving(app, deflate=False, max_size=4096) as url, raw_socket(url) as sock:
        sock.sendall(masked(0x1, b"first"))
        assert read_frames(sock, 1) == [(0x1, b"first")]
        sock.sendall(frame + masked(0x1, b"never read"))
        [(opcode, payload)] = read_frames(sock, 1)
    assert opcode == 0x8 and int.from_bytes(payload[:2]) == code
    assert app.cutting == [True]
