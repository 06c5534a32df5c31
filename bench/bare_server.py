"""The bare stack: what the transport alone costs, as the floor `bench/load.py` compares against.

    .venv/bin/python bench/bare_server.py --port 8001

A FastAPI app served exactly as `perudo serve` serves the real one (one uvicorn worker, uvloop,
httptools, the sans-I/O `websockets-sansio` protocol, 4096-byte frames, no per-message
compression), but with no game behind the socket: it groups sockets into rooms of six and, on
each message from one of them, sends every socket of that room a small personalised `state`
(about 150 bytes of orjson). Whatever the real server costs beyond this is ours (rules, views,
validation, locks, outboxes, snapshots), not uvicorn's or Starlette's.

It speaks just enough of PROTOCOL.md for the same load client to drive it: `POST /api/rooms`,
`GET /healthz`, a `join` hello answered with `welcome`, `ping` with `pong`, and any other message
moves a toy round on (a bid raises the standing bid and passes the turn, `dudo`/`calza` start the
next round, `start`/`rematch` put the room in play). The `state` carries the fields the client
reads: `seq`, `phase`, `host`, `round.number/turn/bid` and `you.seat/legal`. Nothing is
validated and the game never ends: this measures plumbing, not rules.

A socket whose hello says `"events": true` gets the fan-out of PROTOCOL.md's bid events
instead: after a bid, one `bid` event encoded once for the room, with `you` added only for the
seat that bid and the seat to act (the only ones whose `you` changes here); `sync` is answered
with a `state` to that socket alone.
"""

from __future__ import annotations

import argparse
import secrets
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

SEATS = 6
WS_MAX_SIZE = 4096  # the same frame limit as `perudo serve`
WS_MAX_QUEUE = 4
UNKNOWN_ROOM = 4404
ROOM_FULL = 1013
MAX_QUANTITY = 30  # beyond this no face is open, so the client calls dudo, as in a real round
NO_FACES: list[int | None] = [None] * 6
SMALL_STATE_BYTES = 225  # an unpadded state, with the `"pad":""` a padded one adds


class BareRoom:
    """Six sockets and a toy round: just enough state to personalise each frame."""

    def __init__(self, room_id: str, pad: str = "") -> None:
        self.room_id = room_id
        self.pad = pad  # appended to every state, to send frames of another size
        self.sockets: dict[WebSocket, int] = {}
        self.events: set[WebSocket] = set()  # sockets whose hello opted in to bid events
        self.seq = 0
        self.phase = "lobby"
        self.number = 0
        self.turn = 0
        self.bid: dict[str, int] | None = None

    def free_seat(self) -> int | None:
        """The lowest free seat, as the real server gives it; None when all six are taken."""
        taken = set(self.sockets.values())
        return next((seat for seat in range(SEATS) if seat not in taken), None)

    def advance(self, message: dict[str, Any], seat: int) -> None:
        """Move the toy round on by one message, without checking anything."""
        kind = message.get("type")
        if kind in ("start", "rematch"):
            self.phase, self.number, self.turn, self.bid = "playing", 1, 0, None
        elif kind == "bid":
            quantity = message.get("quantity")
            face = message.get("face")
            if isinstance(quantity, int) and isinstance(face, int):
                self.bid = {"quantity": quantity, "face": face, "seat": seat}
            self.turn = (seat + 1) % max(len(self.sockets), 1)  # seats 0.. are taken in order
        elif kind in ("dudo", "calza"):
            self.number += 1
            self.turn = seat
            self.bid = None

    def you(self, seat: int) -> dict[str, Any]:
        """What `seat` may do now: its part of a `state`, and of a `bid` event."""
        legal: dict[str, Any] = {"min_quantity": NO_FACES, "dudo": False, "calza": False}
        if self.phase == "playing" and seat == self.turn:
            least = self.bid["quantity"] + 1 if self.bid else 1
            legal = {
                "min_quantity": [least] * 6 if least <= MAX_QUANTITY else NO_FACES,
                "dudo": self.bid is not None,
                "calza": False,
            }
        return {"seat": seat, "legal": legal}

    def frame(self, seat: int) -> str:
        """The personalised `state` for `seat` (about 150 bytes)."""
        state = {
            "type": "state",
            "seq": self.seq,
            "phase": self.phase,
            "host": 0,
            "round": (
                {"number": self.number, "turn": self.turn, "bid": self.bid}
                if self.phase == "playing"
                else None
            ),
            "you": self.you(seat),
        }
        if self.pad:
            state["pad"] = self.pad
        return orjson.dumps(state).decode()

    def bid_frames(self, bidder: int) -> tuple[str, dict[int, str]]:
        """The `bid` event just made, encoded once: without `you`, and with it for the two
        seats whose `you` changed (the bidder's and the next turn's)."""
        assert self.bid is not None
        event = {"type": "bid", "seq": self.seq, **self.bid, "turn": self.turn}
        head = orjson.dumps(event | {"turn_deadline": None}).decode()
        changed = {
            seat: f'{head[:-1]},"you":{orjson.dumps(self.you(seat)).decode()}}}'
            for seat in {bidder, self.turn}
        }
        return head, changed

    async def broadcast(self, bidder: int | None = None) -> None:
        """One `state` to each socket of the room (after a bid by `bidder`, the `bid` event to
        the sockets that opted in), written straight to the transport."""
        self.seq += 1
        shared, changed = "", dict[int, str]()
        if bidder is not None and self.events:
            shared, changed = self.bid_frames(bidder)
        for websocket, seat in list(self.sockets.items()):
            if shared and websocket in self.events:
                frame = changed.get(seat, shared)
            else:
                frame = self.frame(seat)
            try:
                await websocket.send_text(frame)
            except (WebSocketDisconnect, RuntimeError, OSError):
                self.sockets.pop(websocket, None)
                self.events.discard(websocket)


def create_app(state_bytes: int = 0) -> FastAPI:
    """The bare app; rooms live in this closure, as the real server's live in its registry.
    `state_bytes` pads each `state` to about that size (0: as small as it is)."""
    pad = "x" * max(0, state_bytes - SMALL_STATE_BYTES)
    app = FastAPI(title="bare")
    rooms: dict[str, BareRoom] = {}

    @app.post("/api/rooms", status_code=201)
    async def create_room() -> dict[str, str]:
        room_id = secrets.token_urlsafe(8)
        rooms[room_id] = BareRoom(room_id, pad)
        return {"room_id": room_id, "url": f"/r/{room_id}"}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.websocket("/ws/{room_id}")
    async def play(websocket: WebSocket, room_id: str) -> None:
        await websocket.accept()
        room = rooms.get(room_id)
        if room is None:
            await websocket.close(UNKNOWN_ROOM)
            return
        try:
            await serve_socket(websocket, room)
        except WebSocketDisconnect:
            pass
        finally:
            room.sockets.pop(websocket, None)
            room.events.discard(websocket)

    return app


async def serve_socket(websocket: WebSocket, room: BareRoom) -> None:
    """Read messages until the client goes; every one but `ping` and `sync` fans a `state`
    (or a `bid` event) out."""
    seat: int | None = None
    while True:
        message = orjson.loads(await websocket.receive_text())
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "ping":
            await websocket.send_text('{"type":"pong"}')
            continue
        if kind == "sync" and seat is not None:
            await websocket.send_text(room.frame(seat))
            continue
        if seat is None:
            seat = room.free_seat()
            if seat is None:
                await websocket.close(ROOM_FULL)
                return
            room.sockets[websocket] = seat
            if message.get("events") is True:
                room.events.add(websocket)
            welcome = {"type": "welcome", "room_id": room.room_id, "seat": seat, "token": "-"}
            await websocket.send_text(orjson.dumps(welcome).decode())
            await room.broadcast()
        else:
            room.advance(message, seat)
            await room.broadcast(seat if kind == "bid" else None)


def main() -> None:
    """Serve the bare app the way `perudo serve` serves the real one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument(
        "--state-bytes",
        type=int,
        default=0,
        help="pad every state to about this many bytes (the real server's are ~1,700)",
    )
    args = parser.parse_args()
    uvicorn.run(
        create_app(args.state_bytes),
        host=args.host,
        port=args.port,
        workers=1,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        ws_max_size=WS_MAX_SIZE,
        ws_max_queue=WS_MAX_QUEUE,
        ws_per_message_deflate=False,
    )


if __name__ == "__main__":
    main()
