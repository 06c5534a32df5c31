"""Clients that do not read: closed once their frames pile up, with bounded memory, while the
other rooms play on unhurt.

.venv/bin/python bench/deaf.py                       # 100 rooms, 10 of them watched, ~1 min

Rooms of six of `load.py`'s players play real games on a fixed beat. The other rooms are
timed (from an action to the last of the six updates, as in `load.py`) for a window before and
a window after one watcher socket in each of the first `--watched` rooms stops reading: a raw
socket with a small receive buffer that says `watch` and never reads again. Those rooms play
faster (`--watched-rate`), so their frames pile up: in the kernel's buffers, then uvicorn's,
then the server's bounded outbox (`app.web.transport.OUTBOX_LIMIT` frames), and the server closes
the socket with 1008. Reported: the other rooms' latency in both windows, the server's RSS before,
at its highest during the second window and after, and how many deaf sockets got the 1008
(it exits with an error unless all did).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import socket
import tempfile
from pathlib import Path

import uvloop
from load import (  # bench/ is on the path of a script run from it
    HOST,
    Server,
    Table,
    Tally,
    close_tables,
    latency_summary,
    now,
    open_window,
    seat_tables,
    start_server,
)

CLOSED_1008 = b"\x88\x02\x03\xf0"  # an unmasked close frame with code 1008, as the server sends
RECEIVE_BUFFER = 4096  # the deaf client's: the kernel's own default would hide the pile-up


async def open_deaf(port: int, room_id: str) -> socket.socket:
    """A socket that joins `room_id` as a spectator by hand, then never reads again."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
    sock.setblocking(False)
    await loop.sock_connect(sock, (HOST, port))
    key = base64.b64encode(os.urandom(16))
    await loop.sock_sendall(
        sock,
        b"GET /ws/%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
        % (room_id.encode(), HOST.encode(), port, key),
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += await loop.sock_recv(sock, 1024)
    if not answer.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"no WebSocket for the deaf client: {answer[:60]!r}")
    mask = os.urandom(4)
    payload = b'{"type":"watch"}'
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    await loop.sock_sendall(sock, bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    return sock


async def closed_with_1008(sock: socket.socket, timeout: float) -> bool:
    """Read what the server sent the deaf socket, up to its end: was it closed with 1008?"""
    loop = asyncio.get_running_loop()
    tail = b""
    try:
        async with asyncio.timeout(timeout):
            while chunk := await loop.sock_recv(sock, 65536):
                tail = (tail + chunk)[-65536:]
                if CLOSED_1008 in tail:
                    return True
    except (TimeoutError, ConnectionError):
        pass
    finally:
        sock.close()
    return False


async def window(
    watched: list[Table], others: list[Table], args: argparse.Namespace, server: Server
) -> tuple[list[float], int]:
    """Both groups play on their beats for `--seconds`; the others' latencies, and the
    server's highest RSS meanwhile."""
    begin = now() + 0.2
    end = begin + args.seconds
    peak = server.rss_bytes()

    async def sample() -> None:
        nonlocal peak
        while now() < end:
            peak = max(peak, server.rss_bytes())
            await asyncio.sleep(0.2)

    (latencies, _, _), _, _ = await asyncio.gather(
        open_window(others, args.rate, begin, end, 0.0),
        open_window(watched, args.watched_rate, begin, end, 0.0),
        sample(),
    )
    return latencies, peak


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="deaf-") as home:
        server = await start_server("real", args.server_cpu, Path(home), None, retries=2)
        tables: list[Table] = []
        try:
            tables = await seat_tables(
                server.port, [6] * args.rooms, random.Random(args.seed), Tally(), start=True
            )
            watched, others = tables[: args.watched], tables[args.watched :]
            before, _ = await window(watched, others, args, server)
            rss_before = server.rss_bytes()
            deaf = [await open_deaf(server.port, table.room_id) for table in watched]
            during, peak = await window(watched, others, args, server)
            closed = await asyncio.gather(*(closed_with_1008(sock, 10.0) for sock in deaf))
            await asyncio.sleep(1.0)
            rss_after = server.rss_bytes()
        finally:
            close_tables(tables)
            server.stop()
    mib = 1024 * 1024
    first, second = latency_summary("x", before), latency_summary("x", during)
    print(f"{args.rooms} rooms; {len(others)} timed at {args.rate:g}/s, {len(watched)} watched")
    print(f"at {args.watched_rate:g}/s; windows of {args.seconds:g} s\n")
    print("| figure | before | with the deaf watchers |\n|---|---:|---:|")
    for key in ("p50", "p99", "max"):
        was, then = first[f"x.{key}_ms"], second[f"x.{key}_ms"]
        print(f"| other rooms: {key} latency (ms) | {was:.2f} | {then:.2f} |")
    rss = f"peak {peak / mib:.1f}, after {rss_after / mib:.1f}"
    print(f"| server RSS (MiB) | {rss_before / mib:.1f} | {rss} |")
    print(f"| deaf sockets closed with 1008 | | {sum(closed)} of {len(deaf)} |")
    if not all(closed):
        raise SystemExit("not every deaf socket was closed with 1008")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--watched", type=int, default=10, help="rooms with a deaf watcher")
    parser.add_argument("--rate", type=float, default=300.0, help="the other rooms' actions/s")
    parser.add_argument("--watched-rate", type=float, default=1000.0, help="the watched rooms'")
    parser.add_argument("--seconds", type=float, default=20.0, help="each window")
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    uvloop.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
