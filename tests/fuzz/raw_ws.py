"""A bare WebSocket client on a plain socket, for frames no well-behaved library would send:
invalid UTF-8 in a text frame, odd fragmentation, unknown opcodes, lengths at the limit."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import struct
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0
TIMEOUT = 10.0


class Closed(Exception):
    """The server closed the connection; `code` is its close code (None: no close frame)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed with {code}")
        self.code = code


@dataclass
class RawSocket:
    sock: socket.socket
    buffer: bytes = b""

    @classmethod
    def open(cls, base: str, room_id: str) -> RawSocket:
        parts = urlsplit(base)
        sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                f"GET /ws/{room_id} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        raw = cls(sock)
        head = raw._until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        return raw

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise Closed(None)
        self.buffer += chunk

    def _take(self, count: int) -> bytes:
        while len(self.buffer) < count:
            self._fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def send_frame(self, opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0) -> None:
        """One masked frame, exactly as given (nothing is checked)."""
        header = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        with contextlib.suppress(OSError):  # a server that closed already: the read says so
            self.sock.sendall(header + mask + masked)

    def send_text(self, text: str | bytes) -> None:
        self.send_frame(TEXT, text.encode() if isinstance(text, str) else text)

    def send_json(self, message: Any) -> None:
        self.send_text(json.dumps(message))

    def recv_frame(self) -> tuple[int, bytes]:
        """The next data frame; answers pings; raises Closed on a close frame or EOF."""
        while True:
            first, second = self._take(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._take(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._take(8))
            payload = self._take(length)
            if opcode == CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise Closed(code)
            if opcode == PING:
                self.send_frame(PONG, payload)
                continue
            if opcode == PONG:
                continue
            return opcode, payload

    def recv(self) -> dict[str, Any]:
        opcode, payload = self.recv_frame()
        assert opcode == TEXT, f"the server sent opcode {opcode}"
        message: dict[str, Any] = json.loads(payload)
        return message

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
