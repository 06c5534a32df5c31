"""Live rooms as JSON snapshots, so a restarted server gives every seat its game back.

Connections are not kept: after a restore every person's seat is offline until its token
resumes, and the disconnect grace applies as usual. Timers start afresh at the restore: the
player to act gets a full turn timer, a bot thinks again. Bad data raises KeyError, TypeError
or ValueError.
"""

from __future__ import annotations

import random
import secrets
from typing import Any, Protocol, get_args

from app.engine.snapshot import (
    game_from_dict,
    game_to_dict,
    strict_bool,
    strict_int,
    strict_optional_int,
)
from app.protocol import BotLevel, RoomSettings
from app.rooms.clock import Scheduler
from app.rooms.room import GameStore, Room, RoomConfig, Seat

SNAPSHOT_VERSION = 1
# A crash may lose the changes made after the last snapshot (about a second of play). Clients
# drop any `state` older than one they hold, so a restored room resumes counting well above
# any `seq` it may have sent before the crash.
SEQ_GAP_AFTER_RESTORE = 10_000


class SnapshotStore(Protocol):
    """Where snapshots go (`app.db.repository.GameRepository`); called in a thread."""

    def save_snapshot(self, room_id: str, data: dict[str, Any]) -> None: ...

    def load_snapshots(self) -> list[dict[str, Any]]: ...

    def delete_snapshot(self, room_id: str) -> None: ...


def room_to_dict(room: Room) -> dict[str, Any]:
    """Everything a restarted server needs of `room`, in fresh JSON-compatible containers."""
    return {
        "version": SNAPSHOT_VERSION,
        "room_id": room.room_id,
        "settings": room.settings.model_dump(),
        "host": room.host,
        "seq": room.seq,
        "seats": [
            {
                "number": seat.number,
                "name": seat.name,
                "token": seat.token,
                "level": seat.level,
                "autoplay": seat.autoplay,
            }
            for seat in room.seat_list()
        ],
        "game": None if room.game is None else game_to_dict(room.game),
        "game_id": room.game_id,
        "game_no": room.game_no,
        "started_at": room.started_at,
    }


def room_from_dict(
    data: dict[str, Any],
    *,
    scheduler: Scheduler,
    config: RoomConfig,
    store: GameStore | None,
    rng: random.Random | None = None,
) -> Room:
    """The room `room_to_dict` described, nobody connected, its timers armed from now."""
    if data.get("version") != SNAPSHOT_VERSION:
        raise ValueError(f"unknown snapshot version {data.get('version')!r}")
    rng = rng or secrets.SystemRandom()
    room_id = _str(data["room_id"])
    room = Room(
        room_id,
        RoomSettings.model_validate(data["settings"]),
        scheduler=scheduler,
        config=config,
        store=store,
        rng=rng,
    )
    now = scheduler.now()
    seats = [_seat(s, now) for s in data["seats"]]
    room.seats = {seat.number: seat for seat in seats}
    room.tokens = {seat.token: seat.number for seat in seats if seat.token is not None}
    room.host = strict_optional_int(data["host"])
    room.game = None if data["game"] is None else game_from_dict(data["game"], rng)
    room.game_id = None if data["game_id"] is None else _str(data["game_id"])
    room.seq = strict_int(data["seq"]) + SEQ_GAP_AFTER_RESTORE
    room.game_no = strict_int(data["game_no"])
    room.started_at = _str(data["started_at"])
    _check(room, seats)
    room.rearm_timers()
    return room


def _seat(data: dict[str, Any], now: float) -> Seat:
    token = None if data["token"] is None else _str(data["token"])
    level = data["level"]
    if level not in (None, *get_args(BotLevel)):
        raise ValueError(f"unknown bot level {level!r}")
    if (token is None) == (level is None):
        raise ValueError("a seat is a person's (with a token) or a bot's (with a level)")
    return Seat(
        strict_int(data["number"]),
        _str(data["name"]),
        token,
        level=level,
        disconnected_at=now,
        autoplay=strict_bool(data["autoplay"]),
        autoplay_since=now,
    )


def _check(room: Room, seats: list[Seat]) -> None:
    """Refuse a room the server could not have built: it would fail later, mid-game."""
    numbers = [seat.number for seat in seats]
    if len(set(numbers)) != len(numbers) or len(room.tokens) != sum(not s.bot for s in seats):
        raise ValueError("seat numbers and tokens must be unique")
    if any(not 0 <= n < room.settings.max_players for n in numbers):
        raise ValueError("a seat number is outside the room")
    if room.host is not None and room.host not in room.seats:
        raise ValueError("the host must hold a seat")
    if room.game is not None and not set(room.game.seats) <= set(room.seats):
        raise ValueError("every seat in the game must be in the room")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value
