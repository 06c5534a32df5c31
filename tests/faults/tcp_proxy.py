"""A TCP proxy a test controls: forwards 127.0.0.1:<port> to a target until told to cut.

`cut()` resets every connection through it and refuses new ones (each is accepted and reset
at once, so the port stays ours); `blackhole()` resets them too but then accepts new ones and
never answers, as a network that drops packets would; `restore()` forwards again. Threads,
not asyncio, so a test can drive it from synchronous code while a server runs in another
process.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

CHUNK = 65536


def reset(sock: socket.socket) -> None:
    """Close `sock` with a TCP reset (SO_LINGER 0), as a network that fails would."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


class TcpProxy:
    """127.0.0.1:`port` -> `target`, with a switch."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._blackhole = False
        self._held: list[socket.socket] = []  # connections accepted into the black hole
        self._closing = False
        self.accepted = 0
        self.refused = 0
        self._acceptor = threading.Thread(target=self._accept, name="proxy-accept", daemon=True)
        self._acceptor.start()

    def cut(self) -> None:
        """Reset every open connection and refuse new ones until `restore`."""
        with self._lock:
            self._cut = True
            sockets, self._open = self._open, set()
        for sock in sockets:
            reset(sock)

    def blackhole(self) -> None:
        """Reset every open connection; accept new ones but never forward a byte."""
        with self._lock:
            self._blackhole = True
        self.cut()

    def restore(self) -> None:
        with self._lock:
            self._cut = self._blackhole = False
            held, self._held = self._held, []
        for sock in held:
            reset(sock)

    @property
    def connections(self) -> int:
        """Sockets open through the proxy now (two per forwarded connection)."""
        with self._lock:
            return len(self._open)

    def close(self) -> None:
        self._closing = True
        self.restore()
        self.cut()
        reset(self._listener)
        self._acceptor.join(timeout=5)

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                refuse = self._cut or self._closing
                if self._blackhole and not self._closing:
                    self._held.append(client)
                    continue
            if refuse:
                self.refused += 1
                reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                reset(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._cut:
                    reset(client)
                    reset(upstream)
                    continue
                self._open |= {client, upstream}
            self.accepted += 1
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(CHUNK):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                gone = source in self._open
                self._open -= {source, sink}
            if gone:  # one end closed, not a cut: close the other end too
                for sock in (sink, source):
                    with contextlib.suppress(OSError):
                        sock.close()


@contextmanager
def proxy_to(host: str, port: int) -> Iterator[TcpProxy]:
    proxy = TcpProxy((host, port))
    try:
        yield proxy
    finally:
        proxy.close()
