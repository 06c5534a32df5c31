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
            self.turn = (seat + 1) % SEATS
        elif kind in ("dudo", "calza"):
            self.number += 1
            self.turn = seat
            self.bid = None

    def frame(self, seat: int) -> str:
        """The personalised `state` for `seat` (about 150 bytes)."""
        legal: dict[str, Any] = {"min_quantity": NO_FACES, "dudo": False, "calza": False}
        if self.phase == "playing" and seat == self.turn:
            least = self.bid["quantity"] + 1 if self.bid else 1
            legal = {
                "min_quantity": [least] * 6 if least <= MAX_QUANTITY else NO_FACES,
                "dudo": self.bid is not None,
                "calza": False,
            }
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
            "you": {"seat": seat, "legal": legal},
        }
        if self.pad:
            state["pad"] = self.pad
        return orjson.dumps(state).decode()

    async def broadcast(self) -> None:
        """One `state` to each socket of the room, written straight to the transport."""
        self.seq += 1
        for websocket, seat in list(self.sockets.items()):
            try:
                await websocket.send_text(self.frame(seat))
            except (WebSocketDisconnect, RuntimeError, OSError):
                self.sockets.pop(websocket, None)


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

    return app


async def serve_socket(websocket: WebSocket, room: BareRoom) -> None:
    """Read messages until the client goes; every one but `ping` fans a `state` out."""
    seat: int | None = None
    while True:
        message = orjson.loads(await websocket.receive_text())
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "ping":
            await websocket.send_text('{"type":"pong"}')
            continue
        if seat is None:
            seat = room.free_seat()
            if seat is None:
                await websocket.close(ROOM_FULL)
                return
            room.sockets[websocket] = seat
            welcome = {"type": "welcome", "room_id": room.room_id, "seat": seat, "token": "-"}
            await websocket.send_text(orjson.dumps(welcome).decode())
        else:
            room.advance(message, seat)
        await room.broadcast()


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
