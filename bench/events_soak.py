"""Bid events soak (issue 24): many random games against a real `perudo serve` (started here),
checking PROTOCOL.md's "Bid events" invariant on every frame: applying each `bid` event to the
last `state` of a connection that opted in gives exactly the `state` a plain connection gets.

    .venv/bin/python bench/events_soak.py                                   # the long run
    .venv/bin/python bench/events_soak.py --rooms 10 --games 2 --json -     # what `make test` runs

Each room has random settings (calza and palifico on or off, either calza rule, a turn timer
or none, the odds helper on or off), one to three people driven here (some opted in to events,
some not) and server bots in other seats, a plain spectator (the reference) and a spectator
opted in to events. People play by `you.legal`, call calza out of turn now and then, resume
their seat on a new socket (opting in or out afresh), leave and come back, and in rooms with a
timer let it play a turn; spectators leave and watch again; after each game the host sends
`rematch` and `start`.

What is compared, in the fields PROTOCOL.md names (a field the server adds may go stale):
- every `state` an events connection holds (a full one, or one made by applying a `bid`) against
  the reference's `state` of the same `seq`: all of it for the events spectator (both have
  seat null), all but `you` for a person;
- each person's `you` too, at every moment the room waits on a person: every events connection
  of the room then sends `sync`, and the full `state` it gets must equal the one it holds;
- a `bid` event carries `you` only when it differs from the last one sent, and a plain
  connection never gets a `bid` event.
A `seq` gap is answered with `sync`, as a client should (counted, not a failure).
Targets 127.0.0.1 only; bounded in rooms, games and time (`--timeout`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from serving import Server, report_and_exit  # bench/ is on the path of a script run from it
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

Message = dict[str, Any]
PACE_RATE, PACE_BURST = 15.0, 30.0  # below the server's 20 a second, bursts of 40
SYNC_TIMEOUT = 10.0
# The fields of a `state` PROTOCOL.md names, nested; None: compared as it stands.
BID: dict[str, Any] = {"quantity": None, "face": None, "seat": None}
RESULT: dict[str, Any] = {
    "round": None,
    "call": None,
    "caller": None,
    "bid": BID,
    "palifico": None,
    "reveal": {"seat": None, "dice": None},
    "count": None,
    "loser": None,
    "gainer": None,
    "eliminated": None,
    "next_opener": None,
    "winner": None,
}
YOU: dict[str, Any] = {
    "seat": None,
    "dice": None,
    "legal": {"min_quantity": None, "dudo": None, "calza": None},
    "odds": {"bid": None, "min_raise": None},
}
STATE: dict[str, Any] = {
    "type": None,
    "seq": None,
    "room_id": None,
    "phase": None,
    "settings": dict.fromkeys(
        ("max_players", "calza", "palifico", "calza_rule", "turn_seconds", "odds")
    ),
    "host": None,
    "players": dict.fromkeys(
        ("seat", "name", "dice", "connected", "bot", "out", "palifico_used", "autoplay")
    ),
    "you": YOU,
    "round": {
        **dict.fromkeys(("number", "opener", "turn", "palifico", "palifico_seat", "total_dice")),
        "bid": BID,
        "bids": BID,
        "turn_deadline": None,
        "roll_off": {"seat": None, "die": None},
    },
    "last_result": RESULT,
    "winner": None,
    "game_id": None,
    "rating_changes": {"seat": None, "before": None, "after": None},
}


def named(value: Any, schema: dict[str, Any] | None = STATE) -> Any:
    """`value` cut down to the fields `schema` names (lists element by element)."""
    if schema is None or value is None:
        return value
    if isinstance(value, list):
        return [named(item, schema) for item in value]
    return {key: named(value[key], sub) for key, sub in schema.items() if key in value}


def apply_bid(state: Message, event: Message) -> Message:
    """The `state` a `bid` event stands for (PROTOCOL.md): the last `state` with the bid (and
    its seat) standing and appended to the round's bids, the turn and its deadline, the `seq`,
    and `you` when the event carries one."""
    bid = {"quantity": event["quantity"], "face": event["face"], "seat": event["seat"]}
    round_ = state["round"] | {"bid": bid, "bids": [*state["round"]["bids"], bid]}
    round_ |= {"turn": event["turn"], "turn_deadline": event["turn_deadline"]}
    return state | {"seq": event["seq"], "round": round_, "you": event.get("you", state["you"])}


def difference(mine: Any, theirs: Any, path: str = "") -> str:
    """Where two named states first differ, for the report."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                return difference(mine.get(key), theirs.get(key), f"{path}.{key}")
    return f"{path or '.'}: {mine!r} != {theirs!r}"[:300]


@dataclass
class Totals:
    games: int = 0
    frames: int = 0
    events_applied: int = 0
    compared_with_plain: int = 0  # states of events connections checked against the reference
    compared_by_sync: int = 0  # held states checked against the full `state` of a `sync`
    sync_moved_on: int = 0  # a `sync` answered after the room had moved on: nothing to compare
    unmatched: int = 0  # states of a `seq` the reference missed (it was re-watching)
    gaps: int = 0
    resumes: int = 0
    leaves: int = 0
    rewatches: int = 0
    calzas: int = 0
    timer_turns: int = 0
    palifico_rounds: int = 0
    odds_rooms: int = 0
    autoplayed: Counter[str] = field(default_factory=Counter)  # by reason, as the reference saw
    errors: Counter[str] = field(default_factory=Counter)
    mismatches: list[str] = field(default_factory=list)


class Pacer:
    def __init__(self) -> None:
        self.tokens, self.last = PACE_BURST, time.monotonic()

    async def wait(self) -> None:
        moment = time.monotonic()
        self.tokens = min(PACE_BURST, self.tokens + (moment - self.last) * PACE_RATE)
        self.last = moment
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / PACE_RATE)
            self.tokens, self.last = 1.0, time.monotonic()
        self.tokens -= 1


class Link:
    """One role's connection (a person's seat or a spectator), reopened on a resume or a
    re-watch; it keeps the `state` it holds, applying `bid` events when it opted in."""

    def __init__(self, table: Table, label: str, *, reference: bool = False) -> None:
        self.table, self.label, self.reference = table, label, reference
        self.events = False
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.held: Message | None = None
        self.from_events = False  # `held` was made by applying a `bid` event
        self.seat: int | None = None
        self.token: str | None = None
        self.pacer = Pacer()
        self.welcomed: asyncio.Future[Message] | None = None
        self.synced: asyncio.Future[Message] | None = None
        self.asking: set[asyncio.Future[None]] = set()  # `sync`s being sent after a gap

    async def open(self, hello: Message, events: bool) -> None:
        """A new socket saying `hello` (opted in to events or not), until its first `state`."""
        await self.close()
        self.events, self.held, self.from_events = events, None, False
        self.welcomed = asyncio.get_running_loop().create_future()
        self.ws = await connect(self.table.url, open_timeout=20, compression=None, max_queue=None)
        self.reader = asyncio.create_task(self.read(self.ws))
        await self.send(hello | ({"events": True} if events else {}))
        welcome = await asyncio.wait_for(self.welcomed, SYNC_TIMEOUT)
        self.seat, self.token = welcome["seat"], welcome["token"] or self.token
        async with asyncio.timeout(SYNC_TIMEOUT):
            while self.held is None:
                await self.table.changed()

    async def read(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                self.receive(orjson.loads(raw))
                self.table.wake()

    def receive(self, frame: Message) -> None:
        totals = self.table.totals
        totals.frames += 1
        kind = frame["type"]
        if kind == "welcome" and self.welcomed is not None and not self.welcomed.done():
            self.welcomed.set_result(frame)
        elif kind == "error":
            totals.errors[frame["code"]] += 1
            if self.synced is not None and not self.synced.done():  # nothing else is in flight
                self.table.mismatch(f"{self.label}: `sync` refused with {frame['code']}")
                self.synced.set_result(frame)
        elif kind == "bid":
            self.on_bid(frame)
        elif kind == "state":
            self.on_state(frame)
        elif kind == "autoplayed" and self.reference:
            totals.autoplayed[frame["reason"]] += 1

    def on_bid(self, event: Message) -> None:
        if not self.events:
            self.table.mismatch(f"{self.label}: a `bid` event on a plain connection")
            return
        held = self.held
        if held is None or event["seq"] != held["seq"] + 1:
            self.table.totals.gaps += 1
            asking = asyncio.ensure_future(self.send({"type": "sync"}))
            self.asking.add(asking)  # kept until sent (the loop holds tasks weakly)
            asking.add_done_callback(self.asking.discard)
            return
        if "you" in event and named(event["you"], YOU) == named(held["you"], YOU):
            self.table.mismatch(f"{self.label}: seq {event['seq']} repeats an unchanged `you`")
        self.held, self.from_events = apply_bid(held, event), True
        self.table.totals.events_applied += 1
        self.table.record(self)

    def on_state(self, state: Message) -> None:
        held = self.held
        if held is not None and state["seq"] < held["seq"]:
            return  # older than the one held: dropped, as the protocol says
        if held is not None and state["seq"] == held["seq"]:  # a `sync`'s answer
            self.table.totals.compared_by_sync += self.from_events  # the ones that prove much
            if named(state) != named(held):
                self.table.mismatch(
                    f"{self.label}: sync at {difference(named(held), named(state))}"
                )
        elif self.synced is not None and not self.synced.done():
            self.table.totals.sync_moved_on += 1
        self.held, self.from_events = state, False
        if self.synced is not None and not self.synced.done():
            self.synced.set_result(state)
        if self.reference:
            self.table.reference[state["seq"]] = named(state)
        elif self.events:
            self.table.record(self)
        round_ = state["round"]
        if self.reference and round_ and round_["palifico"]:
            self.table.palifico.add((self.table.games, round_["number"]))

    async def sync(self) -> None:
        """Ask for a full `state` and wait for it (on_state compares it with the one held)."""
        self.synced = asyncio.get_running_loop().create_future()
        await self.send({"type": "sync"})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.synced, SYNC_TIMEOUT)

    async def send(self, message: Message) -> None:
        await self.pacer.wait()
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(orjson.dumps(message).decode())

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            assert self.reader is not None
            await self.reader
            self.ws = None


class Table:
    """One room as the soak sees it: its links, the reference's states by `seq`, and the held
    states of events connections still to be compared with them."""

    def __init__(self, url: str, totals: Totals, room_id: str) -> None:
        self.url, self.totals, self.room_id = url, totals, room_id
        self.reference: dict[int, Message] = {}
        self.pending: list[tuple[int, bool, Message]] = []  # seq, spectator?, named state
        self.games = 0  # games started
        self.palifico: set[tuple[int, int]] = set()  # (game, round) of the palifico rounds seen
        self._changed = asyncio.Event()

    def wake(self) -> None:
        self._changed.set()

    async def changed(self, timeout: float = 1.0) -> bool:
        """Wait for a frame on any link since the last call; False if none came in `timeout`."""
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        self._changed.clear()
        return True

    def record(self, link: Link) -> None:
        assert link.held is not None
        self.pending.append((link.held["seq"], link.seat is None, named(link.held)))

    def mismatch(self, what: str) -> None:
        self.totals.mismatches.append(f"{self.room_id} {what}")

    def compare(self) -> None:
        """Every recorded state the reference has a `state` of the same `seq` for."""
        newest = max(self.reference, default=-1)
        later = []
        for seq, spectator, mine in self.pending:
            if seq > newest:
                later.append((seq, spectator, mine))
                continue
            theirs = self.reference.get(seq)
            if theirs is None:
                self.totals.unmatched += 1
                continue
            if not spectator:
                mine, theirs = dict(mine), dict(theirs)
                mine.pop("you", None), theirs.pop("you", None)
            self.totals.compared_with_plain += 1
            if mine != theirs:
                self.mismatch(f"seq {seq} against the plain watcher: {difference(mine, theirs)}")
        self.pending = later
        oldest = min((seq for seq, _, _ in later), default=newest + 1)
        self.reference = {seq: s for seq, s in self.reference.items() if seq >= oldest}


def legal_move(state: Message, rng: random.Random) -> Message:
    legal, round_ = state["you"]["legal"], state["round"]
    faces = [face for face, q in enumerate(legal["min_quantity"], 1) if q is not None]
    if legal["dudo"] and (not faces or rng.random() < 0.3):
        bid = round_["bid"]
        return {"type": "dudo", "bid": {"quantity": bid["quantity"], "face": bid["face"]}}
    face = rng.choice(faces)
    quantity = legal["min_quantity"][face - 1] + rng.choice((0, 0, 0, 1))
    return {"type": "bid", "quantity": min(quantity, round_["total_dice"]), "face": face}


async def play_room(base: str, args: argparse.Namespace, totals: Totals, seed: int) -> None:
    """One room of random settings: people, bots and two spectators play `args.games` games."""
    rng = random.Random(seed)
    people = rng.randint(1, 3)
    settings: dict[str, Any] = {
        "max_players": rng.randint(max(2, people), 6),
        "calza": rng.random() < 0.7,
        "palifico": rng.random() < 0.7,
        "calza_rule": rng.choice(["pressman", "asmodee"]),
        "turn_seconds": 10 if rng.random() < 0.3 else None,
        "odds": rng.random() < 0.4,
    }
    totals.odds_rooms += settings["odds"]
    async with httpx.AsyncClient(timeout=30) as http:
        room_id = (await http.post(f"{base}/api/rooms", json=settings)).json()["room_id"]
    table = Table(base.replace("http://", "ws://") + f"/ws/{room_id}", totals, room_id)
    persons = [Link(table, f"person {n}") for n in range(people)]
    watchers = [Link(table, "plain watcher", reference=True), Link(table, "events watcher")]
    try:
        for n, person in enumerate(persons):
            await person.open({"type": "join", "name": f"P{n}"}, n == 0 or rng.random() < 0.6)
        for _ in range(rng.randint(1 if people == 1 else 0, settings["max_players"] - people)):
            await persons[0].send({"type": "add_bot", "level": rng.choice(["easy", "normal"])})
        for watcher, events in zip(watchers, (False, True), strict=True):
            await watcher.open({"type": "watch"}, events)
        for _ in range(args.games):
            await play_game(table, persons, watchers, rng, settings["turn_seconds"] is not None)
            totals.games += 1
            table.compare()
            await persons[0].send({"type": "rematch"})
            async with asyncio.timeout(30):
                while (held := persons[0].held) is None or held["phase"] != "lobby":
                    await table.changed()
    finally:
        for link in persons + watchers:
            await link.close()
    table.compare()
    totals.palifico_rounds += len(table.palifico)


async def play_game(
    table: Table, persons: list[Link], watchers: list[Link], rng: random.Random, timer: bool
) -> None:
    """`start`, then play until the finished game is saved (its `state` carries `game_id`)."""
    totals = table.totals
    host = persons[0]
    table.games += 1
    await host.send({"type": "start"})
    acted: tuple[int, int] | None = None
    idle: tuple[int, int] | None = None  # the turn left to the timer
    while True:
        if not await table.changed():
            acted = None  # a move of ours was refused or crossed another: decide again
        state = host.held
        if state is None or state["phase"] != "playing":
            if state is not None and state["phase"] == "finished" and state["game_id"]:
                return
            continue
        round_ = state["round"]
        key = (round_["number"], len(round_["bids"]))
        actor = next((p for p in persons if p.seat == round_["turn"]), None)
        if actor is None or actor.held is None or actor.held["seq"] != state["seq"]:
            continue  # a bot's turn, or news not yet on every link
        if key in (acted, idle):
            continue
        acted = key
        for link in persons + watchers:  # the room waits on a person: check every `you`
            if link.events:
                await link.sync()
        roll = rng.random()
        if roll < 0.03:
            totals.resumes += 1
            person = rng.choice(persons)
            assert person.token is not None
            await person.open({"type": "resume", "token": person.token}, rng.random() < 0.6)
            acted = None
        elif roll < 0.05 and len(persons) > 1:
            totals.leaves += 1  # a bot plays the seat until its owner comes back
            person = rng.choice(persons[1:])
            await person.send({"type": "leave"})
            await asyncio.sleep(0.05)
            assert person.token is not None
            await person.open({"type": "resume", "token": person.token}, person.events)
            acted = None
        elif roll < 0.07:
            totals.rewatches += 1
            watcher = rng.choice(watchers)
            await watcher.open({"type": "watch"}, watcher.events)
            acted = None
        elif timer and roll < 0.09:
            totals.timer_turns += 1  # the turn timer plays it for us
            idle = key
        else:
            callers = [p for p in persons if p.held and p.held["you"]["legal"]["calza"]]
            if callers and rng.random() < 0.2:
                totals.calzas += 1
                bid = round_["bid"]
                calza = {"type": "calza", "bid": {"quantity": bid["quantity"], "face": bid["face"]}}
                await rng.choice(callers).send(calza)
            else:
                assert actor.held is not None
                await actor.send(legal_move(actor.held, rng))


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    server = Server(
        {"PERUDO_DISCONNECT_GRACE_SECONDS": "120", "PERUDO_FINISHED_TTL_SECONDS": "60"},
        args.commit,
        "events",
    )
    totals = Totals()
    started = time.monotonic()
    failures: list[str] = []
    try:
        limit = asyncio.Semaphore(args.parallel)

        async def bounded(seed: int) -> None:
            async with limit:
                await play_room(server.base, args, totals, seed)

        async with asyncio.timeout(args.timeout):
            results = await asyncio.gather(
                *(bounded(args.seed * 100_003 + n) for n in range(args.rooms)),
                return_exceptions=True,
            )
        failures += [f"room failed: {r!r}" for r in results if isinstance(r, BaseException)]
    except TimeoutError:
        failures.append(f"not done within {args.timeout} s")
    finally:
        log = server.stop()
    if "Traceback" in log:
        failures.append("the server logged a traceback")
    failures += totals.mismatches[:50]
    return {
        "games": totals.games,
        "rooms": args.rooms,
        "frames": totals.frames,
        "events_applied": totals.events_applied,
        "compared_with_plain": totals.compared_with_plain,
        "compared_by_sync": totals.compared_by_sync,
        "sync_moved_on": totals.sync_moved_on,
        "unmatched": totals.unmatched,
        "gaps": totals.gaps,
        "resumes": totals.resumes,
        "leaves": totals.leaves,
        "rewatches": totals.rewatches,
        "calzas": totals.calzas,
        "timer_turns": totals.timer_turns,
        "palifico_rounds": totals.palifico_rounds,
        "odds_rooms": totals.odds_rooms,
        "autoplayed": dict(totals.autoplayed),
        "errors": dict(totals.errors),
        "seconds": round(time.monotonic() - started, 1),
        "mismatches": len(totals.mismatches),
        "failures": failures,
        "failure_count": len(failures),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--games", type=int, default=5, help="games per room (rematches)")
    parser.add_argument("--parallel", type=int, default=40, help="rooms playing at once")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--commit", help="serve this commit (git archive) instead of the working tree"
    )
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON ('-': stdout)")
    args = parser.parse_args()
    report = asyncio.run(soak(args))
    report_and_exit(report, args.json, 24)


if __name__ == "__main__":
    main()
