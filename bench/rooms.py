"""The room layer alone: server CPU per action with no sockets, to see what the game costs.

.venv/bin/python bench/rooms.py --rooms 200 --actions 50000
.venv/bin/python bench/rooms.py --store sqlite     # with the real database behind it
.venv/bin/python bench/rooms.py --events --players 2  # connections that take bid events

Instructions instead of seconds, the same on a busy machine (two runs, the difference is
3,000 actions; dice from the seed, so both play the same games; a fixed string hashing, which
otherwise moves the count by about 0.5 % between runs):

PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    .venv/bin/python bench/rooms.py --rooms 50 --actions 3000 --repeat 1 --seeded-dice
                                                                # then --actions 6000

Rooms of six seats (`--players`) play real games through `Room.receive`, exactly as the
WebSocket handler calls it (a typed message, under the room's lock), with connections that
keep only their last frame (and take bid events with `--events`) and the journal writing to
memory (`--store memory`) or to a fresh SQLite database through the server's own repository,
finished games saved there too (`--store sqlite`). Every
figure is process CPU time per action, all threads: rules, validation, the `state` of every
seat (views and encoding), timers, the journal's buffer and its batched writes (the database
writer thread's share shown beside it). What
`bench/load.py` measures on top of this is the transport: uvicorn, Starlette, the socket writes.
Deterministic enough to compare two commits on a busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, cast

import orjson
from engine import random_action  # bench/ is on the path of a script run from it

from app.db.journal import JournalRepository
from app.db.migrate import upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.engine import Bid, Dudo
from app.engine.game import Action
from app.protocol import RoomMessage, RoomSettings, parse_client_message
from app.rooms import ManualScheduler, Registry, Room, RoomConfig
from app.rooms.dice import SecureDice
from app.rooms.journal import Entry, Journal
from app.rooms.ports import JournalRows, Snapshots
from app.rooms.writer import in_writer


class LastFrame:
    """A connection that keeps the last frame it was sent."""

    def __init__(self) -> None:
        self.last = ""
        self.closed: int | None = None

    def send(self, *texts: str) -> None:
        self.last = texts[-1]

    def close(self, code: int) -> None:
        self.closed = code


class MemoryJournal:
    """The journal's store, encoding what it is given as the database would."""

    def __init__(self) -> None:
        self.bytes_written = 0

    def write_journal(
        self,
        snapshots: Snapshots,
        entries: JournalRows,
        dropped: Iterable[str],
    ) -> None:
        for _, data in snapshots.values():
            self.bytes_written += len(orjson.dumps(data))
        for _, _, _, entry in entries:
            self.bytes_written += len(orjson.dumps(entry))

    def load_journal(
        self, room_id: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, Entry]]]]:
        return []


def parsed(message: dict[str, Any]) -> Any:
    """`message` as the typed message its frame parses to on a socket."""
    return parse_client_message(orjson.dumps(message).decode())


def wire(action: Action) -> RoomMessage:
    """The message that asks for `action`."""
    if isinstance(action, Bid):
        return cast(
            RoomMessage, parsed({"type": "bid", "quantity": action.quantity, "face": action.face})
        )
    return cast(RoomMessage, parsed({"type": "dudo" if isinstance(action, Dudo) else "calza"}))


async def seated_room(
    registry: Registry, players: int, events: bool
) -> tuple[Room, list[LastFrame]]:
    """A room of `players` connections that said hello (taking bid events if `events`)."""
    room = registry.create(RoomSettings())
    conns = [LastFrame() for _ in range(players)]
    for number, conn in enumerate(conns):
        hello = {"type": "join", "name": f"p{number}", "events": events}
        await room.hello(conn, parsed(hello))
    return room, conns


async def play(
    tables: list[tuple[Room, list[LastFrame]]], registry: Registry, actions: int, rng: random.Random
) -> int:
    """At least `actions` actions, one per room in turn; the journal flushed every pass."""
    done = 0
    while done < actions:
        for room, conns in tables:
            game = room.state.game
            if game is None or game.round is None:
                kind = "rematch" if room.state.phase == "finished" else "start"
                await room.receive(conns[0], parsed({"type": kind}))
            else:
                seat = game.round.turn
                await room.receive(conns[seat], wire(random_action(game, seat, rng)))
            done += 1
        await registry.flush()
    return done


class Cpu(NamedTuple):
    """CPU seconds per action: the whole process, and the database writer thread's share."""

    process: float
    writer: float


async def writer_cpu() -> Callable[[], float]:
    """A reading of the database writer thread's CPU seconds, so its share of the process can
    be told apart (zero where threads have no CPU clock of their own)."""
    thread = await in_writer(threading.get_ident)
    try:
        clock = time.pthread_getcpuclockid(thread)
    except (AttributeError, OSError):
        return lambda: 0.0
    return lambda: time.clock_gettime(clock)


class Options(NamedTuple):
    rooms: int
    actions: int
    seed: int
    store: str
    seeded_dice: bool
    players: int
    events: bool


async def measure(opts: Options) -> Cpu:
    rooms, actions, seed, store = opts.rooms, opts.actions, opts.seed, opts.store
    with tempfile.TemporaryDirectory() as home:
        games: GameRepository | None = None
        journal_store: JournalRepository | MemoryJournal = MemoryJournal()
        if store == "sqlite":
            url = f"sqlite:///{home}/perudo.db"
            upgrade(url)
            engine = make_engine(url)
            games, journal_store = GameRepository(engine), JournalRepository(engine)
        registry = Registry(
            scheduler=ManualScheduler(0.0),
            config=RoomConfig(bot_delay=1.0, disconnect_grace=20.0),
            store=games,
            lobby_ttl=600,
            finished_ttl=600,
            journal=Journal(journal_store),
            dice=seeded(seed) if opts.seeded_dice else SecureDice,
        )
        tables = [await seated_room(registry, opts.players, opts.events) for _ in range(rooms)]
        rng = random.Random(seed)
        await play(tables, registry, rooms * 10, rng)  # warm up: every room in play
        await settle(tables)
        writer = await writer_cpu()
        started, writer_started = time.process_time(), writer()
        done = await play(tables, registry, actions, rng)
        await settle(tables)
        return Cpu((time.process_time() - started) / done, (writer() - writer_started) / done)


def seeded(seed: int) -> Callable[[], random.Random]:
    """Dice for each new room from seeds counted up from `seed`: the same games every run."""
    seeds = itertools.count(seed)
    return lambda: random.Random(next(seeds))


async def settle(tables: list[tuple[Room, list[LastFrame]]]) -> None:
    """Wait for the finished games still being saved."""
    for room, _ in tables:
        await room.settle()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--actions", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--store", choices=("memory", "sqlite"), default="memory", help="where the journal goes"
    )
    parser.add_argument(
        "--seeded-dice",
        action="store_true",
        help="roll from --seed instead of the system's source: the same games every run",
    )
    parser.add_argument("--players", type=int, default=6, help="seats of each room, 2..6")
    parser.add_argument(
        "--events", action="store_true", help="every connection takes bid events (PROTOCOL.md)"
    )
    args = parser.parse_args()
    opts = Options(
        args.rooms,
        args.actions,
        args.seed,
        args.store,
        args.seeded_dice,
        args.players,
        args.events,
    )
    runs = [asyncio.run(measure(opts)) for _ in range(args.repeat)]
    mode = "bid events" if args.events else "states"
    print(f"{args.rooms} rooms of {args.players}, {mode}, {args.actions:,} actions a run,", end=" ")
    print(f"{args.store} store,", end=" ")
    print(f"best of {args.repeat}:")
    best = min(runs)
    print(f"room layer CPU per action: {best.process * 1e6:.0f} µs", end=" ")
    print(f"(of which the database writer thread: {best.writer * 1e6:.0f} µs)")


if __name__ == "__main__":
    main()
