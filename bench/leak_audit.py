"""Leak audit: many bot games over the real protocol against a real `perudo serve` (started
here), every frame to every seated person and spectator recorded and checked: no frame ever
carries a die of another seat before that seat's dice are revealed.

    .venv/bin/python bench/leak_audit.py                         # 10,000 games, the long run
    .venv/bin/python bench/leak_audit.py --rooms 10 --games 5 --json -   # what `make test` runs

Each room holds one person (the host), bots in the other seats and a spectator. The person
plays by `you.legal`, and now and then sends an illegal move or a host command out of place
(errors), chats, and drops their socket and resumes with the token (a new socket: `welcome`,
`history`, `state`); the spectator sometimes leaves and watches again. After each game the
person sends `rematch` and `start`, until the room has played `--games` games.

What is checked, frame by frame, on every connection:
- a list of dice appears only where the protocol puts one: `you.dice`, and the `reveal` of a
  `round_result`, of `state.last_result` and of `history`;
- `you.dice` is a spectator's `[]`, or the person's own dice: the same all round, and exactly
  what the round's reveal then shows for that seat;
- a reveal (`last_result`, `history`) is only of a round that has already ended on that
  connection, and a `round_result` only of the round being played.
Targets 127.0.0.1 only; bounded in rooms, games and time (`--timeout`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
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

PACE_RATE, PACE_BURST = 15.0, 30.0  # below the server's 20 a second, bursts of 40
Message = dict[str, Any]
DICE_PLACES = {("you", "dice"), ("reveal", "*", "dice"), ("last_result", "reveal", "*", "dice")}
DICE_PLACES |= {("rounds", "*", "reveal", "*", "dice")}


@dataclass
class Totals:
    frames: int = 0
    dice_lists: int = 0
    own_dice_checked: int = 0
    games: int = 0
    resumes: int = 0
    rewatches: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    chats: int = 0
    leaks: list[str] = field(default_factory=list)


def dice_paths(value: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every list under a key `dice` in `value`, with its path (list indexes as `*`)."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "dice" and isinstance(item, list):
                found.append(((*path, key), item))
            else:
                found.extend(dice_paths(item, (*path, key)))
    elif isinstance(value, list):
        for item in value:
            found.extend(dice_paths(item, (*path, "*")))
    return found


class Auditor:
    """Checks the frames one connection receives, in order."""

    def __init__(self, totals: Totals, label: str) -> None:
        self.totals, self.label = totals, label
        self.game = 0  # counts the games this connection has seen (a rematch starts one)
        self.phase = ""
        self.round: int | None = None  # the round being played, per the newest state
        self.ended: set[tuple[int, int]] = set()  # (game, round) revealed on this connection
        self.own: dict[tuple[int, int], tuple[int, list[int]]] = {}  # -> (seat, dice shown)

    def leak(self, what: str, frame: Message) -> None:
        self.totals.leaks.append(f"{self.label}: {what}: {json.dumps(frame)[:300]}")

    def check(self, frame: Message) -> None:
        self.totals.frames += 1
        for path, dice in dice_paths(frame):
            self.totals.dice_lists += 1
            if path not in DICE_PLACES:
                self.leak(f"dice at {'.'.join(path)}", frame)
            if not all(isinstance(d, int) and 1 <= d <= 6 for d in dice) or len(dice) > 5:
                self.leak("not dice", frame)
        kind = frame["type"]
        if kind == "state":
            self.state(frame)
        elif kind == "round_result":
            if frame["round"] != self.round:
                self.leak(f"a reveal of round {frame['round']} during {self.round}", frame)
            self.reveal(frame["round"], frame["reveal"], frame)
        elif kind == "history":
            for result in frame["rounds"]:
                self.reveal(result["round"], result["reveal"], frame)

    def state(self, frame: Message) -> None:
        if frame["phase"] == "lobby" and self.phase != "lobby":
            self.game += 1
        self.phase = frame["phase"]
        round_ = frame["round"]
        self.round = round_["number"] if round_ else None
        last = frame["last_result"]
        if last is not None and (self.game, last["round"]) not in self.ended:
            self.leak(f"last_result of round {last['round']}, not ended here", frame)
        if self.round is not None and any(r >= self.round for g, r in self.ended if g == self.game):
            self.leak("a round already revealed is being played", frame)
        you = frame["you"]
        if you["seat"] is None or self.round is None:
            if you["dice"]:
                self.leak("dice for a connection without a seat in play", frame)
            return
        key = (self.game, self.round)
        seat, dice = self.own.setdefault(key, (you["seat"], you["dice"]))
        if (seat, dice) != (you["seat"], you["dice"]):
            self.leak(f"other dice within round {self.round}", frame)

    def reveal(self, number: int, reveal: list[Message], frame: Message) -> None:
        key = (self.game, number)
        self.ended.add(key)
        if key in self.own:
            seat, dice = self.own[key]
            shown: list[int] = next((r["dice"] for r in reveal if r["seat"] == seat), [])
            if dice and sorted(shown) != sorted(dice):
                self.leak(f"round {number}: shown {dice}, revealed {shown}", frame)
            self.totals.own_dice_checked += 1


class Pacer:
    def __init__(self) -> None:
        self.tokens, self.last = PACE_BURST, time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        self.tokens = min(PACE_BURST, self.tokens + (now - self.last) * PACE_RATE)
        self.last = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / PACE_RATE)
            self.tokens, self.last = 1.0, time.monotonic()
        self.tokens -= 1


class Link:
    """One role's connection(s): reconnects keep the same auditor (the same person)."""

    def __init__(self, url: str, auditor: Auditor) -> None:
        self.url, self.auditor = url, auditor
        self.ws: ClientConnection | None = None
        self.state: Message = {}
        self.pacer = Pacer()
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.reader: asyncio.Task[None] | None = None

    async def open(self, hello: Message) -> Message:
        """A new socket saying `hello`; the welcome."""
        await self.close()
        self.ws = await connect(self.url, open_timeout=20, compression=None, max_queue=None)
        self.reader = asyncio.create_task(self.read(self.ws))
        await self.send(hello)
        return await self.next("welcome")

    async def read(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                frame: Message = orjson.loads(raw)
                self.auditor.check(frame)
                if frame["type"] == "state":
                    self.state = frame
                await self.inbox.put(frame)

    async def next(self, kind: str, timeout: float = 30) -> Message:
        async with asyncio.timeout(timeout):
            while (frame := await self.inbox.get())["type"] != kind:
                pass
        return frame

    async def send(self, message: Message) -> None:
        await self.pacer.wait()
        assert self.ws is not None
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(orjson.dumps(message).decode())

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            assert self.reader is not None
            await self.reader
            self.ws = None


async def play_room(base: str, args: argparse.Namespace, totals: Totals, seed: int) -> None:
    """One room: a person and bots play `args.games` games, watched by a spectator."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(timeout=30) as http:
        room = (await http.post(f"{base}/api/rooms", json={"odds": rng.random() < 0.3})).json()
    url = base.replace("http://", "ws://") + f"/ws/{room['room_id']}"
    person = Link(url, Auditor(totals, f"{room['room_id']} person"))
    spectator = Link(url, Auditor(totals, f"{room['room_id']} spectator"))
    token = (await person.open({"type": "join", "name": "Host"}))["token"]
    for _ in range(rng.randint(1, 5)):
        await person.send({"type": "add_bot", "level": rng.choice(["easy", "normal", "hard"])})
    await spectator.open({"type": "watch"})
    try:
        for _ in range(args.games):
            await person.send({"type": "start"})
            acted: tuple[int, int] | None = None
            while True:
                try:
                    frame = await asyncio.wait_for(person.inbox.get(), 2.0)
                except TimeoutError:  # a move of ours was refused: decide again
                    frame, acted = person.state, None
                state = person.state
                if state.get("phase") == "finished" and state.get("game_id"):
                    break
                if frame is not state or state["phase"] != "playing":
                    continue  # act on the newest state only
                roll = rng.random()
                if roll < 0.02:
                    totals.resumes += 1
                    await person.open({"type": "resume", "token": token})
                    acted = None
                    continue
                if roll < 0.03:
                    totals.rewatches += 1
                    await spectator.open({"type": "watch"})
                if roll < 0.06:
                    totals.chats += 1
                    await person.send({"type": "chat", "text": rng.choice(["gg", "hm", "ay"])})
                you, round_ = state["you"], state["round"]
                key = (round_["number"], len(round_["bids"])) if round_ else None
                if round_ is None or round_["turn"] != you["seat"] or key == acted:
                    continue
                if roll < 0.10:  # refused, and nothing changes
                    await person.send(rng.choice(WRONG))
                    totals.errors[(await person.next("error"))["code"]] += 1
                acted = key
                await person.send(legal_move(state, rng))
            totals.games += 1
            await person.send({"type": "rematch"})
            while person.state["phase"] != "lobby":
                await person.next("state")
    finally:
        await person.close()
        await spectator.close()


WRONG: list[Message] = [
    {"type": "bid", "quantity": 0, "face": 2},
    {"type": "bid", "quantity": 1, "face": 7},
    {"type": "start"},
    {"type": "add_bot"},
    {"type": "bid", "quantity": "3", "face": 2},
]


def legal_move(state: Message, rng: random.Random) -> Message:
    legal = state["you"]["legal"]
    faces = [face for face, q in enumerate(legal["min_quantity"], 1) if q is not None]
    if legal["dudo"] and (not faces or rng.random() < 0.35):
        return {"type": "dudo"}
    face = rng.choice(faces)
    quantity = legal["min_quantity"][face - 1] + rng.choice((0, 0, 1))
    return {"type": "bid", "quantity": min(quantity, state["round"]["total_dice"]), "face": face}


async def audit(args: argparse.Namespace) -> dict[str, Any]:
    server = Server(
        {
            "PERUDO_BOT_DELAY_MS": "0",
            "PERUDO_CALZA_WINDOW_MS": "0",
            "PERUDO_DISCONNECT_GRACE_SECONDS": "120",
            "PERUDO_FINISHED_TTL_SECONDS": "30",
        },
        args.commit,
        "leak",
    )
    totals = Totals()
    started = time.monotonic()
    failures: list[str] = []
    try:
        rooms = [
            play_room(server.base, args, totals, args.seed * 100_003 + n) for n in range(args.rooms)
        ]
        limit = asyncio.Semaphore(args.parallel)

        async def bounded(work: Any) -> None:
            async with limit:
                await work

        async with asyncio.timeout(args.timeout):
            results = await asyncio.gather(*(bounded(r) for r in rooms), return_exceptions=True)
        failures += [f"room failed: {r!r}" for r in results if isinstance(r, BaseException)]
    except TimeoutError:
        failures.append(f"not done within {args.timeout} s")
    finally:
        log = server.stop()
    if "Traceback" in log:
        failures.append("the server logged a traceback")
    failures += totals.leaks[:50]
    return {
        "games": totals.games,
        "rooms": args.rooms,
        "frames_checked": totals.frames,
        "dice_lists_checked": totals.dice_lists,
        "own_dice_checked_against_reveal": totals.own_dice_checked,
        "resumes": totals.resumes,
        "rewatches": totals.rewatches,
        "chats": totals.chats,
        "errors": dict(totals.errors),
        "seconds": round(time.monotonic() - started, 1),
        "leaks": len(totals.leaks),
        "failures": failures,
        "failure_count": len(failures),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--games", type=int, default=20, help="games per room (rematches)")
    parser.add_argument("--parallel", type=int, default=50, help="rooms playing at once")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--commit", help="serve this commit (git archive) instead of the working tree"
    )
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON ('-': stdout)")
    args = parser.parse_args()
    report = asyncio.run(audit(args))
    report_and_exit(report, args.json, 32)


if __name__ == "__main__":
    main()
