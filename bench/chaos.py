"""Chaos soak: rooms of six scripted players over the real protocol against a real
`perudo serve` (started here), while sockets drop at random and come back with their tokens.

    .venv/bin/python bench/chaos.py                      # 2 waves x 200 rooms x 6, the long run
    .venv/bin/python bench/chaos.py --rooms 10 --waves 1 --ttl 15 --json -  # ~ `make test`'s

Every few seconds a wave drops about `--drop` (10 %) of the connected sockets, each in one of
three ways: a clean close, a TCP reset (SO_LINGER 0, then abort), or a silent stall (the
client stops reading; after a while it opens a new socket and resumes, and the server closes
the stalled one with 4000). Some players also drop the instant after sending a move, so a
move and a resume race. A dropped player comes back after a short pause and resumes with its
token; nobody's seat is ever played by the server's bot (the grace is longer than any drop).

The verdict, checked for every room:
- every game finishes and is saved (`game_id`);
- every client's last view equals the server's: its newest `state` equals a fresh
  spectator's (presence aside), and a final resume shows it the same `state` and `you`;
- no action applied twice, none invented: every bid and call in the saved game was sent by
  that seat in that round, no seat bids twice in a row, and no move was autoplayed;
- memory: once each wave's rooms have expired (`--ttl`, then the server's sweep, which
  collects and trims the heap: app/memory.py), the server's RSS must be back within
  `--rss-slack-mb` of its RSS at the start of the same run, before the first room, and must
  not have grown by more than `--rss-growth-mb` from the first wave to the last (a leak
  grows a wave's worth each wave); `--expire-wait` 0 skips this. The slack is CPython's
  small-object allocator keeping its arenas at their peak (bench/README.md).
Targets 127.0.0.1 only; bounded in rooms and time (`--timeout`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import struct
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from serving import Server, report_and_exit  # bench/ is on the path of a script run from it
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

PLAYERS = 6
DROP_KINDS = ("close", "reset", "stall")
Message = dict[str, Any]


# ----- the server ----------------------------------------------------------------------------


# ----- players -------------------------------------------------------------------------------


@dataclass
class Tally:
    drops: Counter[str] = field(default_factory=Counter)
    resumes: int = 0
    superseded: int = 0  # stalled sockets the server closed with 4000
    refused: Counter[str] = field(default_factory=Counter)  # moves overtaken on their way
    actions: int = 0
    failures: list[str] = field(default_factory=list)


def abort(ws: ClientConnection) -> None:
    """Drop the connection with a TCP reset, as a phone that loses its network would."""
    sock = ws.transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    ws.transport.abort()


class Player:
    """One person at the table: plays by `you.legal`, survives drops, resumes by token."""

    def __init__(self, table: Table, index: int, rng: random.Random) -> None:
        self.table = table
        self.name = f"P{index}"
        self.rng = rng
        self.token: str | None = None
        self.seat: int | None = None
        self.state: Message = {}
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.stalled: ClientConnection | None = None
        self.acted: tuple[int, int] | None = None  # (round, bids) of the last move sent
        self.actor: asyncio.Task[None] | None = None
        self.background: set[asyncio.Task[None]] = set()
        self.joined = asyncio.Event()
        self.done = asyncio.Event()

    @property
    def finished(self) -> bool:
        return self.state.get("phase") == "finished" and self.state.get("game_id") is not None

    async def open(self, hello: Message) -> ClientConnection:
        """A new socket that has said `hello` (retried while the server is busy)."""
        for attempt in range(40):
            try:
                async with self.table.connecting:
                    ws = await connect(
                        self.table.ws_url,
                        open_timeout=20,
                        close_timeout=2,
                        ping_interval=None,
                        max_queue=None,
                        compression=None,
                    )
                await ws.send(orjson.dumps(hello).decode())
                return ws
            except (OSError, InvalidHandshake, TimeoutError, ConnectionClosed):
                await asyncio.sleep(min(2.0, 0.1 * (attempt + 1)))
        raise RuntimeError(f"{self.name} could not connect")

    async def run(self) -> None:
        """Connect, play until the game is saved; reconnect and resume after every drop."""
        hello: Message = {"type": "join", "name": self.name}
        while True:
            ws = await self.open(hello)
            if self.stalled is not None:  # resumed first, so the server supersedes it
                old, self.stalled = self.stalled, None
                self.spawn(self.retire(old))
            self.ws, self.acted = ws, None
            self.reader = asyncio.create_task(self.read(ws))
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
            if self.finished:
                self.done.set()
                await ws.close()
                return
            hello = {"type": "resume", "token": self.token}
            await asyncio.sleep(self.rng.uniform(0.05, 0.5))

    async def retire(self, old: ClientConnection) -> None:
        """Read what the server sent the stalled socket, up to its close (4000: superseded by
        the resume), then drop it for good."""
        old.transport.resume_reading()
        try:
            async with asyncio.timeout(10):
                while True:
                    await old.recv()
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == 4000:
                self.table.tally.superseded += 1
        except TimeoutError:
            self.fail("a stalled socket was not closed after its seat resumed")
        finally:
            abort(old)

    async def read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                await self.handle(orjson.loads(raw))
                if self.finished:
                    return
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == 4000:
                self.table.tally.superseded += 1

    async def handle(self, message: Message) -> None:
        kind = message["type"]
        if kind == "welcome":
            if self.token is not None:
                self.table.tally.resumes += 1
                if message["seat"] != self.seat:
                    self.fail(f"resumed into seat {message['seat']}, not {self.seat}")
            self.seat, self.token = message["seat"], message["token"]
            self.joined.set()
        elif kind == "error":  # a move that met a newer state on its way (a calza race)
            self.table.tally.refused[message["code"]] += 1
        elif kind == "autoplayed":
            self.fail(f"the server played for seat {message['seat']}: {message}")
        elif kind == "state":
            if message["seq"] <= self.state.get("seq", -1):
                if message["seq"] < self.state.get("seq", -1):
                    self.fail("an older state arrived on one socket")
                return
            self.state = message
            if self.actor is None or self.actor.done():
                self.actor = asyncio.create_task(self.act())

    async def act(self) -> None:
        """Think a moment (the reader goes on meanwhile), then move on the newest state; again
        if a newer one came while moving."""
        while True:
            await asyncio.sleep(self.rng.uniform(0, self.table.think))
            state = self.state
            await self.move_on(state)
            if self.state is state:
                return

    async def move_on(self, state: Message) -> None:
        ws = self.ws
        round_ = state["round"]
        if state["phase"] != "playing" or round_ is None or ws is None:
            return
        legal = state["you"]["legal"]
        key = (round_["number"], len(round_["bids"]))
        move: Message | None = None
        if round_["turn"] == self.seat and key != self.acted:
            move = choose(state, self.rng)
        elif legal["calza"] and key != self.acted and self.rng.random() < 0.02:
            move = {"type": "calza"}
        if move is None:
            return
        self.acted = key
        self.table.sent.append((round_["number"], self.seat, move))
        self.table.tally.actions += 1
        with contextlib.suppress(ConnectionClosed):
            await ws.send(orjson.dumps(move).decode())
        if self.rng.random() < self.table.drop_after_move:
            self.drop("reset")  # the move and the resume race

    def drop(self, kind: str) -> None:
        """Lose the connection now: `close`, `reset` or `stall`."""
        ws, reader = self.ws, self.reader
        if ws is None or reader is None or reader.done() or self.finished or self.token is None:
            return  # not seated yet (a join has no token to resume with), or done
        self.ws = None
        self.table.tally.drops[kind] += 1
        if kind == "close":
            self.spawn(ws.close())
        elif kind == "reset":
            abort(ws)
        else:
            ws.transport.pause_reading()  # the server keeps sending into a silent socket

            def give_up() -> None:
                self.stalled = ws
                reader.cancel()

            asyncio.get_running_loop().call_later(self.rng.uniform(0.5, 2.0), give_up)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def fail(self, what: str) -> None:
        self.table.tally.failures.append(f"room {self.table.room_id} {self.name}: {what}")


def choose(state: Message, rng: random.Random) -> Message:
    """A legal move read off `you.legal`: dudo a third of the time it may, else a least bid."""
    legal = state["you"]["legal"]
    faces = [face for face, q in enumerate(legal["min_quantity"], 1) if q is not None]
    if legal["dudo"] and (not faces or rng.random() < 0.33):
        return {"type": "dudo"}
    face = rng.choice(faces)
    quantity = legal["min_quantity"][face - 1] + rng.choice((0, 0, 1))
    return {"type": "bid", "quantity": min(quantity, state["round"]["total_dice"]), "face": face}


# ----- tables and the verdict ------------------------------------------------------------------


class Table:
    def __init__(
        self,
        base: str,
        room_id: str,
        rng: random.Random,
        tally: Tally,
        args: argparse.Namespace,
        connecting: asyncio.Semaphore,
    ) -> None:
        self.base, self.room_id, self.tally = base, room_id, tally
        self.connecting = connecting  # bounds the handshakes in flight, all rooms together
        self.ws_url = base.replace("http://", "ws://") + f"/ws/{room_id}"
        self.think = args.think
        self.drop_after_move = args.drop_after_move
        self.sent: list[tuple[int, int | None, Message]] = []
        self.players = [Player(self, i, random.Random(rng.random())) for i in range(PLAYERS)]

    async def play(self, http: httpx.AsyncClient) -> None:
        """Seat six, start, play to the end under chaos, then verify at once (before the
        finished room expires)."""
        tasks = []
        for player in self.players:  # in order: the first to join hosts
            tasks.append(asyncio.create_task(player.run()))
            joined = asyncio.create_task(player.joined.wait())
            await asyncio.wait([joined, tasks[-1]], return_when=asyncio.FIRST_COMPLETED)
            if not player.joined.is_set():
                joined.cancel()
                for task in tasks:
                    task.cancel()
                raise RuntimeError(f"{player.name} could not join: {tasks[-1].exception()!r}")
        host = self.players[0]
        while host.state.get("phase", "lobby") == "lobby":  # a start may be lost in a drop
            if host.ws is not None and len(host.state.get("players", [])) == PLAYERS:
                with contextlib.suppress(ConnectionClosed):
                    await host.ws.send('{"type":"start"}')
            await asyncio.sleep(1.0)
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
        await self.verify(http)

    async def verify(self, http: httpx.AsyncClient) -> None:
        """The verdict for this room, once every player holds the saved game."""
        states = [player.state for player in self.players]
        game_ids = {state["game_id"] for state in states}
        if len(game_ids) != 1:
            self.fail(f"players hold different game ids {game_ids}")
            return
        watcher = await connect(self.ws_url, open_timeout=20, compression=None)
        try:
            await watcher.send('{"type":"watch"}')
            seen = await until_state(watcher)
        finally:
            await watcher.close()
        for player, state in zip(self.players, states, strict=True):
            if public(state) != public(seen):
                self.fail(f"{player.name}'s last view differs from the server's")
            again = await connect(self.ws_url, open_timeout=20, compression=None)
            try:
                await again.send(json.dumps({"type": "resume", "token": player.token}))
                resumed = await until_state(again)
            finally:
                await again.close()
            if public(resumed) != public(state) or resumed["you"] != state["you"]:
                self.fail(f"{player.name}'s last view differs from its final resume")
        response = await get(http, f"{self.base}/api/games/{game_ids.pop()}")
        if response.status_code != 200:
            self.fail(f"the saved game answers {response.status_code}")
            return
        self.check_record(response.json())

    def check_record(self, game: Message) -> None:
        """Every bid and call in the saved game was sent once by that seat in that round."""
        unmatched = Counter(
            (number, seat, orjson.dumps(move, option=orjson.OPT_SORT_KEYS))
            for number, seat, move in self.sent
        )
        for round_ in game["rounds"]:
            number, previous = round_["number"], None
            for bid in round_["bids"]:
                move = {"type": "bid", "quantity": bid["quantity"], "face": bid["face"]}
                self.match(unmatched, number, bid["seat"], move)
                if bid["seat"] == previous:
                    self.fail(f"seat {bid['seat']} bid twice in a row in round {number}")
                previous = bid["seat"]
            result = round_["result"]
            self.match(unmatched, number, result["caller"], {"type": result["call"]})

    def match(self, unmatched: Counter[Any], number: int, seat: int, move: Message) -> None:
        """Take one send of `move` by `seat` in round `number` off `unmatched`. A move applies
        to the state it meets on arrival (PROTOCOL.md): a calza, or a move overtaken by
        someone's calza, may land in a later round than the one it was sent in, so an unused
        send from an earlier round matches too. Each send matches at most one applied move."""
        encoded = orjson.dumps(move, option=orjson.OPT_SORT_KEYS)
        for earlier in range(number, 0, -1):
            key = (earlier, seat, encoded)
            if unmatched[key] > 0:
                unmatched[key] -= 1
                return
        self.fail(f"round {number}: {move} by seat {seat} was applied but never sent")

    def fail(self, what: str) -> None:
        self.tally.failures.append(f"room {self.room_id}: {what}")


def public(state: Message) -> Message:
    """A `state` without what differs per connection or moment (seq, presence, you, and the
    rating changes only the state that first carries `game_id` has)."""
    skip = {"seq", "server_time", "spectators", "you", "rating_changes"}
    shown = {key: value for key, value in state.items() if key not in skip}
    shown["players"] = [
        {k: v for k, v in p.items() if k != "connected"} for p in state.get("players", [])
    ]
    return shown


async def until_state(ws: ClientConnection) -> Message:
    while True:
        message: Message = orjson.loads(await asyncio.wait_for(ws.recv(), 20))
        if message["type"] == "state":
            return message


async def chaos(tables: list[Table], tally: Tally, args: argparse.Namespace) -> None:
    """Waves of drops: each wave takes `drop` of the connected sockets."""
    rng = random.Random(args.seed)
    while True:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * args.wave)
        connected = [p for t in tables for p in t.players if p.ws and p.token and not p.finished]
        for player in rng.sample(connected, round(len(connected) * args.drop)):
            player.drop(rng.choice(DROP_KINDS))


async def get(http: httpx.AsyncClient, url: str) -> httpx.Response:
    return await again_if_cut(lambda: http.get(url))


async def again_if_cut(send: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
    """`send()`, again on a kept-alive connection the server closed as the request went out
    (its keep-alive timeout meeting the client's reuse: not what the soak is about). A room
    created twice this way is one more lobby, which expires with the rest."""
    for _ in range(2):
        with contextlib.suppress(httpx.RemoteProtocolError, httpx.ReadError):
            return await send()
    return await send()


async def rooms_in_memory(http: httpx.AsyncClient, base: str) -> int:
    text = (await get(http, f"{base}/metrics")).text
    return int(
        sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("perudo_rooms{")
        )
    )


async def play_wave(
    server: Server, http: httpx.AsyncClient, tally: Tally, args: argparse.Namespace, seed: float
) -> tuple[int, float]:
    """One wave: `args.rooms` rooms play under chaos and are verified; (games, seconds)."""
    started = time.monotonic()
    rng = random.Random(seed)
    connecting = asyncio.Semaphore(args.connecting)
    tables = []
    for _ in range(args.rooms):
        created = await again_if_cut(lambda: http.post(f"{server.base}/api/rooms", json={}))
        room = created.json()["room_id"]
        table = Table(server.base, room, random.Random(rng.random()), tally, args, connecting)
        tables.append(table)
    monkey = asyncio.create_task(chaos(tables, tally, args))
    try:
        async with asyncio.timeout(args.timeout):
            results = await asyncio.gather(
                *(table.play(http) for table in tables), return_exceptions=True
            )
        tally.failures += [f"a table failed: {r!r}" for r in results if isinstance(r, Exception)]
    except TimeoutError:
        unfinished = sum(1 for t in tables if not all(p.finished for p in t.players))
        tally.failures.append(f"{unfinished} games did not finish in {args.timeout} s")
    finally:
        monkey.cancel()
    played = time.monotonic() - started
    return sum(all(p.finished for p in t.players) for t in tables), played


async def expired(server: Server, http: httpx.AsyncClient, tally: Tally, wait: float) -> float:
    """Wait for every room to expire (the server sweeps every 30 s); the RSS then."""
    deadline = time.monotonic() + wait
    while await rooms_in_memory(http, server.base) and time.monotonic() < deadline:
        await asyncio.sleep(1)
    left = await rooms_in_memory(http, server.base)
    if left:
        tally.failures.append(f"{left} rooms still in memory after {wait} s")
    await asyncio.sleep(3)  # the sweep that dropped the last room trims the heap right after
    return server.rss_mb()


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    env = {
        "PERUDO_DISCONNECT_GRACE_SECONDS": "600",  # a drop never lets the bot play a seat
        "PERUDO_FINISHED_TTL_SECONDS": str(args.ttl),
        "PERUDO_LOBBY_TTL_SECONDS": str(args.ttl),
        **dict(item.split("=", 1) for item in args.server_env),
    }
    server = Server(env, args.commit, "chaos")
    tally = Tally()
    samples: list[float] = []
    report: dict[str, Any] = {"rooms": args.rooms * args.waves, "waves": args.waves}
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            rss_start = server.rss_mb()

            async def sample() -> None:
                while True:
                    samples.append(server.rss_mb())
                    await asyncio.sleep(0.5)

            sampler = asyncio.create_task(sample())
            games, seconds, after = 0, 0.0, []
            for wave in range(args.waves):
                played, took = await play_wave(server, http, tally, args, args.seed + wave)
                games, seconds = games + played, seconds + took
                if args.expire_wait > 0:
                    after.append(round(await expired(server, http, tally, args.expire_wait), 1))
            sampler.cancel()
            if any(rss > rss_start + args.rss_slack_mb for rss in after):
                tally.failures.append(
                    f"RSS after each wave expired {after} MB: more than {args.rss_slack_mb} MB "
                    f"above the {rss_start:.1f} MB the server started with"
                )
            if len(after) >= 2 and after[-1] > after[0] + args.rss_growth_mb:
                tally.failures.append(
                    f"RSS after each wave expired {after} MB: grew more than "
                    f"{args.rss_growth_mb} MB from the first wave to the last"
                )
            report |= {
                "players": args.rooms * args.waves * PLAYERS,
                "games": games,
                "actions": tally.actions,
                "drops": dict(tally.drops),
                "drops_total": sum(tally.drops.values()),
                "resumes": tally.resumes,
                "superseded_4000": tally.superseded,
                "moves_refused": dict(tally.refused),
                "seconds_playing": round(seconds, 1),
                "rss_mb_start": round(rss_start, 1),
                "rss_mb_peak": round(max(samples, default=rss_start), 1),
                "rss_mb_after_each_wave_expired": after,
            }
    finally:
        log = server.stop()
    if "Traceback" in log:
        tally.failures.append("the server logged a traceback")
    report["failures"] = tally.failures[:50]
    report["failure_count"] = len(tally.failures)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200, help="rooms per wave")
    parser.add_argument("--waves", type=int, default=2, help="waves of rooms, one after another")
    parser.add_argument("--drop", type=float, default=0.10, help="share of sockets per wave")
    parser.add_argument("--wave", type=float, default=2.0, help="seconds between waves (mean)")
    parser.add_argument("--drop-after-move", type=float, default=0.02)
    parser.add_argument("--think", type=float, default=0.05, help="max think time, seconds")
    parser.add_argument("--ttl", type=float, default=30.0, help="finished/lobby room TTL")
    parser.add_argument("--connecting", type=int, default=64, help="handshakes in flight")
    parser.add_argument(
        "--expire-wait", type=float, default=120.0, help="seconds for rooms to expire; 0: skip"
    )
    parser.add_argument(
        "--rss-slack-mb", type=float, default=80.0, help="RSS after expiry above the start, at most"
    )
    parser.add_argument(
        "--rss-growth-mb", type=float, default=12.0, help="RSS after expiry, first to last wave"
    )
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--commit", help="serve this commit (git archive) instead of the working tree"
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the server (repeatable), e.g. MALLOC_ARENA_MAX=2",
    )
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON ('-': stdout)")
    args = parser.parse_args()
    report = asyncio.run(soak(args))
    report_and_exit(report, args.json, 22)


if __name__ == "__main__":
    main()
