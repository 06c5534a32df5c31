"""A Perudo bot using only `websockets` and the standard library; it reads every move off
`you.legal` (docs/protocol.md), so it never re-implements the rules. Usage:
python examples/bot.py http://127.0.0.1:8000/r/abc123 Robot [--add-bot easy] [--start 2] [--events]
With `--events` it opts in to bid events: each `bid` is applied to the last `state`.
"""

import argparse
import asyncio
import json
import logging
import sys
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

log = logging.getLogger("bot")
Message = dict[str, Any]


def socket_url(link: str) -> str:
    """`http(s)://host/r/<room>` or `ws(s)://host/ws/<room>` -> the room's socket URL."""
    parts = urlsplit(link)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}/ws/{parts.path.rstrip('/').rsplit('/', 1)[-1]}"


def choose(state: Message) -> Message | None:
    """Our move in this `state`, or None when it is not our turn."""
    you, round_ = state["you"], state["round"]
    if round_ is None or round_["turn"] != you["seat"]:
        return None
    legal, dice, wild = you["legal"], you["dice"], not round_["palifico"]

    def expected(face: int) -> float:  # our dice meeting a bid on `face`, and the others' odds
        ours = sum(d == face or (wild and face != 1 and d == 1) for d in dice)
        chance = 1 / 3 if wild and face != 1 else 1 / 6
        return float(ours + (round_["total_dice"] - len(dice)) * chance)

    raises = [(f, q) for f, q in enumerate(legal["min_quantity"], 1) if q is not None]
    best = max(raises, key=lambda fq: (expected(fq[0]) - fq[1], fq[0]), default=None)
    if legal["dudo"]:  # doubt the bid, or every raise, when well above what we expect
        over = round_["bid"]["quantity"] - expected(round_["bid"]["face"])
        if best is None or over > 0.5 or best[1] - expected(best[0]) > 1.5:
            return {"type": "dudo"}
    return None if best is None else {"type": "bid", "quantity": best[1], "face": best[0]}


def apply_bid(state: Message, event: Message) -> Message:
    """The `state` a `bid` event stands for: the last one with the bid, the turn and `you`."""
    bid = {"quantity": event["quantity"], "face": event["face"], "seat": event["seat"]}
    round_ = state["round"] | {"bid": bid, "bids": [*state["round"]["bids"], bid]}
    round_ |= {"turn": event["turn"], "turn_deadline": event["turn_deadline"]}
    return state | {"seq": event["seq"], "round": round_, "you": event.get("you", state["you"])}


class Bot:
    """One seat: answers each new `state`; as host it may add server bots and start."""

    def __init__(self, ws: ClientConnection, args: argparse.Namespace) -> None:
        self.ws, self.args, self.seat = ws, args, None
        self.state: Message = {}  # the newest `state`
        self.acted: tuple[int, int] | None = None  # (round, bids so far) we answered
        self.events = 0  # `bid` events applied

    async def on_state(self, state: Message) -> Message | None:
        """Host chores, then the move to make in `state` unless we made it already."""
        self.state = state
        if state["phase"] == "lobby" and state["host"] == self.seat is not None:
            for level in self.args.add_bot:  # the server bots asked for, once
                await self.ws.send(json.dumps({"type": "add_bot", "level": level}))
            self.args.add_bot = []
            if self.args.start and len(state["players"]) >= self.args.start:
                self.args.start = 0
                await self.ws.send(json.dumps({"type": "start"}))
        move = choose(state)
        return move if move and self.key(state) != self.acted else None

    def key(self, state: Message) -> tuple[int, int]:
        return state["round"]["number"], len(state["round"]["bids"])

    async def run(self) -> int:
        hello = {"type": "join", "name": self.args.name} | (
            {"events": True} if self.args.events else {}
        )
        await self.ws.send(json.dumps(hello))
        move: Message | None = None  # sent after `think` seconds unless a newer state comes
        wait = self.args.think
        while True:
            try:
                message = json.loads(await asyncio.wait_for(self.ws.recv(), wait if move else None))
            except TimeoutError:
                log.info("%s plays %s", self.args.name, move)
                await self.ws.send(json.dumps(move))
                self.acted, move = self.key(self.state), None
                continue
            if message["type"] == "welcome":
                self.seat = message["seat"]
            elif message["type"] == "error":
                log.warning("error %s: %s", message["code"], message["message"])
                if self.seat is None:
                    return 1  # the join was refused: name_taken, room_full, game_in_progress
                if message["code"] == "rate_limited" and self.state:
                    self.acted = None  # the move was dropped: make it again, a second later
                    move, wait = await self.on_state(self.state), 1.0
            elif message["type"] == "bid" and message["seq"] != self.state.get("seq", -2) + 1:
                await self.ws.send(json.dumps({"type": "sync"}))  # one missed: the whole table
            elif message["type"] == "bid":
                self.events += 1
                move, wait = await self.on_state(apply_bid(self.state, message)), self.args.think
            elif message["type"] == "state" and message["seq"] > self.state.get("seq", -1):
                move, wait = await self.on_state(message), self.args.think
                if message["phase"] == "finished":
                    names = {p["seat"]: p["name"] for p in message["players"]}
                    log.info(
                        "game over: %s wins (%d bid events)", names[message["winner"]], self.events
                    )
                    return 0


async def main(args: argparse.Namespace) -> int:
    try:
        async with connect(socket_url(args.link)) as ws:
            return await Bot(ws, args).run()
    except (OSError, ConnectionClosed) as exc:  # e.g. closed with 4404: no such room
        log.error("connection lost: %s", exc)
        return 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Play Perudo in a room until the game ends.")
    parser.add_argument("link", help="the room link (http://host/r/ID) or its ws:// URL")
    parser.add_argument("name", help="the name to sit down with (1..24 characters)")
    parser.add_argument("--add-bot", action="append", default=[], metavar="LEVEL")  # as host
    parser.add_argument("--start", type=int, default=0, metavar="N")  # as host, at N seats
    parser.add_argument("--events", action="store_true", help="opt in to `bid` events")
    parser.add_argument("--think", type=float, default=0.05, help="seconds before each move")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    sys.exit(asyncio.run(main(parser.parse_args())))
