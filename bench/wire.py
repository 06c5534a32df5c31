"""Instructions per action over the wire: the whole server process, every thread, counted by
callgrind while a client plays the same actions one at a time.

    .venv/bin/python bench/wire.py                          # 2 seats, bid events
    .venv/bin/python bench/wire.py --stack bare             # the bare stack, the same bids
    .venv/bin/python bench/wire.py --players 6 --dudo       # each step a bid, then dudo
    .venv/bin/python bench/wire.py --server-tree /tmp/old   # another checkout's server

A count, not a time: the same within about 2 % on a busy machine, so two commits (or this
server and the bare stack) compare where `load.py`'s CPU figures wander by a fifth. Each
room's players join (with `"events": true` unless `--plain`), the host starts, and every step
is the least raise by the seat to act (and with `--dudo` the next seat's dudo), each answered
on every socket before the next is sent. Counting starts after `--warm` steps a room and
stops after `--steps` more (and the journal's next batch). What the kernel does for the
sockets is not counted: callgrind sees the process, not the system calls it makes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets
from load import free_port, server_settings  # bench/ is on the path of a script run from it

BENCH = Path(__file__).resolve().parent
START_SECONDS = 300  # a server starts in a minute or two under valgrind


def server_command(stack: str, port: int) -> list[str]:
    if stack == "bare":
        return [sys.executable, str(BENCH / "bare_server.py"), "--port", str(port)]
    return [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]


class Room:
    """One room's sockets, the seat to act and the standing bid, read off what they are sent."""

    def __init__(self, room_id: str) -> None:
        self.room_id = room_id
        self.sockets: list[Any] = []
        self.turn = 0
        self.bid = (1, 1)  # the least raise from here is 1x2

    def note(self, message: dict[str, Any]) -> None:
        if message["type"] == "state" and message.get("round"):
            self.turn = message["round"]["turn"]
        elif message["type"] == "bid":
            self.turn = message["turn"]

    async def until(self, ws: Any, kinds: tuple[str, ...]) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await ws.recv())
            self.note(message)
            if message["type"] == "error":
                raise RuntimeError(f"refused: {message}")
            if message["type"] in kinds:
                return message

    async def act(self, message: dict[str, Any], answer: tuple[str, ...]) -> None:
        await self.sockets[self.turn].send(json.dumps(message))
        for ws in self.sockets:
            await self.until(ws, answer)

    async def step(self, dudo: bool) -> None:
        quantity, face = self.bid
        self.bid = (quantity, face + 1) if face < 6 else (quantity + 1, 2)  # never aces
        bid = {"type": "bid", "quantity": self.bid[0], "face": self.bid[1]}
        await self.act(bid, ("bid", "state"))
        if dudo:
            self.bid = (1, 1)
            await self.act({"type": "dudo"}, ("state",))


def callgrind_control(*args: str | int) -> None:
    subprocess.run(["callgrind_control", *map(str, args)], check=True, capture_output=True)


async def play(base: str, opts: argparse.Namespace, pid: int) -> int:
    """Seat the rooms, warm up, then count `--steps` steps a room; the steps counted."""
    rooms = []
    for _ in range(opts.rooms):
        request = urllib.request.Request(f"{base}/api/rooms", data=b"{}", method="POST")
        request.add_header("content-type", "application/json")
        with urllib.request.urlopen(request) as response:
            room = Room(json.load(response)["room_id"])
        for number in range(opts.players):
            url = f"{base.replace('http', 'ws')}/ws/{room.room_id}"
            ws = await websockets.connect(url, ping_interval=None, max_size=None)
            hello = {"type": "join", "name": f"P{number}"}
            await ws.send(json.dumps(hello | ({} if opts.plain else {"events": True})))
            room.sockets.append(ws)
            for earlier in room.sockets:  # the newcomer's welcome and everyone's state
                await room.until(earlier, ("state",))
        room.turn = 0
        await room.act({"type": "start"}, ("state",))
        rooms.append(room)
    for _ in range(opts.warm):
        for room in rooms:
            await room.step(opts.dudo)
    if not opts.no_valgrind:
        callgrind_control("-i", "on", pid)
    for _ in range(opts.steps):
        for room in rooms:
            await room.step(opts.dudo)
    await asyncio.sleep(0.3)  # the journal's batch of these steps is written
    if not opts.no_valgrind:
        callgrind_control("-i", "off", pid)
        callgrind_control("-d", pid)  # the dump: what was counted
    for room in rooms:
        for ws in room.sockets:
            await ws.close()
    steps: int = opts.rooms * opts.steps
    return steps


def counted(home: Path, keep: Path | None) -> int:
    """The instructions of the dump `callgrind_control -d` wrote (copied to `keep`)."""
    for dump in sorted(home.glob("callgrind.out.*")):
        lines = dump.read_text(errors="replace").splitlines()
        if "desc: Trigger: dump" in lines:  # not the empty one written at the exit
            if keep is not None:
                shutil.copyfile(dump, keep)
            return next(int(line.split()[1]) for line in lines if line.startswith("totals:"))
    raise RuntimeError(f"no callgrind dump in {home}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", choices=("real", "bare"), default="real")
    parser.add_argument("--rooms", type=int, default=40)
    parser.add_argument("--players", type=int, default=2, help="seats a room, 2..6")
    parser.add_argument("--steps", type=int, default=30, help="steps a room, counted")
    parser.add_argument("--warm", type=int, default=5, help="steps a room before counting")
    parser.add_argument("--dudo", action="store_true", help="each step a bid and a dudo")
    parser.add_argument("--plain", action="store_true", help="no bid events: a state a bid")
    parser.add_argument("--server-tree", type=Path, help="the checkout whose server runs")
    parser.add_argument("--no-valgrind", action="store_true", help="play only (a smoke run)")
    parser.add_argument("--keep", type=Path, help="copy the dump here (for callgrind_annotate)")
    opts = parser.parse_args()
    if not opts.dudo and opts.warm + opts.steps > 50:
        parser.error("a round of ten dice holds 50 raises at most: use fewer --warm/--steps")
    if opts.dudo and opts.warm + opts.steps > 12:
        parser.error("with --dudo a game may end after 12 rounds: use fewer --warm/--steps")
    tree = (opts.server_tree or BENCH.parent).resolve()
    with tempfile.TemporaryDirectory(prefix="wire-") as folder:
        home = Path(folder)
        port = free_port()
        command = server_command(opts.stack, port)
        if not opts.no_valgrind:
            out = home / "callgrind.out.%p"
            command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                       f"--callgrind-out-file={out}", *command]  # fmt: skip
        env = (
            os.environ
            | server_settings(home)
            | {
                "PYTHONPATH": str(tree),
                "PYTHONHASHSEED": "0",  # string hashing moves the count by about 0.5 % otherwise
            }
        )
        with (home / "server.log").open("wb") as log:
            server = subprocess.Popen(command, cwd=tree, env=env, stdout=log, stderr=log)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + START_SECONDS
            while True:
                try:
                    urllib.request.urlopen(f"{base}/healthz", timeout=2).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError((home / "server.log").read_text()[-2000:]) from None
                    time.sleep(0.5)
            steps = asyncio.run(play(base, opts, server.pid))
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=120)
        what = f"{opts.rooms} rooms of {opts.players}, {'plain' if opts.plain else 'bid events'}"
        step = "a bid and a dudo" if opts.dudo else "a bid"
        if opts.no_valgrind:
            print(f"{opts.stack}: {steps} steps played ({what}; a step is {step})")
            return
        per_step = counted(home, opts.keep) / steps
        print(f"{opts.stack}: {per_step / 1000:.1f}k instructions a step ({what}; {steps} steps,")
        print(f"each {step}; the whole process, every thread)")


if __name__ == "__main__":
    main()
