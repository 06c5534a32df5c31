"""The snapshot codec: a room's lasting state (`RoomState`) as JSON and back (`journal` keeps
the snapshots and the moves between them).

Connections are not kept, so after a restore every person's seat is offline until its token
resumes. Bad snapshot data raises KeyError, TypeError or ValueError.
"""

from __future__ import annotations

import random
from typing import Any, get_args

from app.engine import BOT_LEVELS, game_from_dict, game_to_dict, strict_bool, strict_int
from app.engine import strict_optional_int as optional_int
from app.protocol import AutoplayReason, RoomSettings
from app.rooms.seats import Seat, Seats
from app.rooms.state import Marks, RoomState

SNAPSHOT_VERSION = 1
# The newest room format this code reads, and the one it writes (`app.db.leases`): 1, these
# snapshots with their entries in `room_journal`; 2, the same snapshots with the entries
# appended to `room_entries` (format 1's are read too).
ROOM_FORMAT = 2
# A crash may lose the changes made after the last write (at most a fraction of a second). Clients
# drop any `state` older than one they hold, so a restored room resumes counting well above
# any `seq` it may have sent before the crash.
SEQ_GAP_AFTER_RESTORE = 10_000
AUTOPLAY_REASONS: tuple[AutoplayReason, ...] = get_args(AutoplayReason)


def encode_room(state: RoomState) -> dict[str, Any]:
    """`state` in fresh JSON-compatible containers (at once: it holds live objects)."""
    return {
        "version": SNAPSHOT_VERSION,
        "room_id": state.room_id,
        "settings": state.settings.model_dump(),
        "host": state.seats.host,
        "seq": state.seq,
        "seats": [
            {
                "number": seat.number,
                "name": seat.name,
                "token": seat.token,
                "level": seat.level,
                "autoplay": seat.autoplay,
                "player_key": seat.player_key,
                "guest": seat.guest,
            }
            for seat in state.seats
        ],
        "game": None if state.game is None else game_to_dict(state.game),
        "game_id": state.game_id,
        "game_no": state.game_no,
        "started_at": state.started_at,
        "marks": [[round_no, move, by] for (round_no, move), by in state.marks.items()],
    }


def decode_room(data: dict[str, Any], rng: random.Random, now: float) -> RoomState:
    """The room `encode_room` described, checked; its game plays on with `rng`."""
    if data.get("version") != SNAPSHOT_VERSION:
        raise ValueError(f"unknown snapshot version {data.get('version')!r}")
    seats = [_seat(s, now) for s in data["seats"]]
    _check_seats(seats)
    state = RoomState(
        room_id=_str(data["room_id"]),
        settings=RoomSettings.model_validate(data["settings"]),
        seats=Seats(seats, optional_int(data["host"])),
        game=None if data["game"] is None else game_from_dict(data["game"], rng),
        game_id=None if data["game_id"] is None else _str(data["game_id"]),
        game_no=strict_int(data["game_no"]),
        started_at=_str(data["started_at"]),
        seq=strict_int(data["seq"]) + SEQ_GAP_AFTER_RESTORE,
        marks=_marks(data.get("marks", [])),  # absent in snapshots older than the marks
    )
    _check(state)
    return state


def _seat(data: dict[str, Any], now: float) -> Seat:
    """A seat as saved; a person's is offline since `now` (its grace starts afresh)."""
    token = None if data["token"] is None else _str(data["token"])
    level = data["level"]
    if level is not None and level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    if (token is None) == (level is None):
        raise ValueError("a seat is a person's (with a token) or a bot's (with a level)")
    player_key = data.get("player_key")  # both absent in snapshots older than the ratings
    return Seat(
        strict_int(data["number"]),
        _str(data["name"]),
        token,
        level=level,
        player_key=None if player_key is None else _str(player_key),
        guest=strict_bool(data.get("guest", False)),
        disconnected_at=now,
        autoplay=strict_bool(data["autoplay"]),
        autoplay_since=now,
    )


def _marks(data: list[Any]) -> Marks:
    marks: Marks = {}
    for round_no, move, by in data:
        if by not in AUTOPLAY_REASONS:
            raise ValueError(f"unknown autoplay reason {by!r}")
        marks[strict_int(round_no), strict_int(move)] = by
    return marks


def _check_seats(seats: list[Seat]) -> None:
    numbers = [seat.number for seat in seats]
    tokens = {seat.token for seat in seats if seat.token is not None}
    if len(set(numbers)) != len(numbers) or len(tokens) != sum(not s.bot for s in seats):
        raise ValueError("seat numbers and tokens must be unique")


def _check(state: RoomState) -> None:
    """Refuse a room the server could not have built: it would fail later, mid-game."""
    numbers = state.seats.numbers()
    if any(not 0 <= n < state.settings.max_players for n in numbers):
        raise ValueError("a seat number is outside the room")
    if state.seats.host is not None and state.seats.host not in numbers:
        raise ValueError("the host must hold a seat")
    if state.game is not None and not set(state.game.seats) <= set(numbers):
        raise ValueError("every seat in the game must be in the room")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value
