"""What outlives the process: finished games, and rooms as JSON snapshots (see `journal`).

Connections are not kept, so after a restore every person's seat is offline until its token
resumes. Bad snapshot data raises KeyError, TypeError or ValueError.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, get_args

from app import metrics
from app.engine import Game
from app.engine.bot import BotLevel
from app.engine.snapshot import game_from_dict, game_to_dict, strict_bool, strict_int
from app.engine.snapshot import strict_optional_int as optional_int
from app.protocol import RoomSettings
from app.rooms.frames import Shown
from app.rooms.ports import GameStore
from app.rooms.seats import Seat
from app.rooms.writer import in_writer

logger = logging.getLogger(__name__)

SNAPSHOT_VERSION = 1
# A crash may lose the changes made after the last write (at most a fraction of a second). Clients
# drop any `state` older than one they hold, so a restored room resumes counting well above
# any `seq` it may have sent before the crash.
SEQ_GAP_AFTER_RESTORE = 10_000


@dataclass(slots=True)
class SavedRoom:
    """Everything of a room but its connections and timers."""

    room_id: str
    settings: RoomSettings
    seats: list[Seat]
    host: int | None
    game: Game | None
    game_id: str | None
    game_no: int
    started_at: str
    seq: int


class Snapshotted(Shown, Protocol):
    """What the writer needs of a room."""

    @property
    def game_no(self) -> int: ...


def saved_room(room: Snapshotted) -> SavedRoom:
    """The lasting parts of `room`, to be serialised at once (they are the live objects)."""
    return SavedRoom(
        room_id=room.room_id,
        settings=room.settings,
        seats=list(room.seats),
        host=room.host,
        game=room.game,
        game_id=room.game_id,
        game_no=room.game_no,
        started_at=room.started_at,
        seq=room.seq,
    )


def game_record(room: Shown) -> dict[str, Any]:
    """The room's finished game in the `GET /api/games/{id}` shape, without `game_id`."""
    game = room.game
    assert game is not None and game.winner is not None
    places = game.places()
    seats = [seat for seat in room.seats if seat.number in places]
    winner = next(seat for seat in seats if seat.number == game.winner)
    return {
        "room_id": room.room_id,
        "started_at": room.started_at,
        "finished_at": utc_now(),
        "settings": room.settings.model_dump(),
        "winner": {"seat": winner.number, "name": winner.name},
        "players": [
            {"seat": s.number, "name": s.name, "bot": s.bot, "place": places[s.number]}
            for s in seats
        ],
        "rounds": [record.to_dict() for record in game.rounds],
    }


def utc_now() -> str:
    """Now, as the ISO-8601 UTC text a game record keeps."""
    return datetime.now(UTC).isoformat()


def encode_room(saved: SavedRoom) -> dict[str, Any]:
    """`saved` in fresh JSON-compatible containers (at once: it holds live objects)."""
    return {
        "version": SNAPSHOT_VERSION,
        "room_id": saved.room_id,
        "settings": saved.settings.model_dump(),
        "host": saved.host,
        "seq": saved.seq,
        "seats": [
            {
                "number": seat.number,
                "name": seat.name,
                "token": seat.token,
                "level": seat.level,
                "autoplay": seat.autoplay,
            }
            for seat in saved.seats
        ],
        "game": None if saved.game is None else game_to_dict(saved.game),
        "game_id": saved.game_id,
        "game_no": saved.game_no,
        "started_at": saved.started_at,
    }


def decode_room(data: dict[str, Any], rng: random.Random, now: float) -> SavedRoom:
    """The room `encode_room` described, checked; its game plays on with `rng`."""
    if data.get("version") != SNAPSHOT_VERSION:
        raise ValueError(f"unknown snapshot version {data.get('version')!r}")
    saved = SavedRoom(
        room_id=_str(data["room_id"]),
        settings=RoomSettings.model_validate(data["settings"]),
        seats=[_seat(s, now) for s in data["seats"]],
        host=optional_int(data["host"]),
        game=None if data["game"] is None else game_from_dict(data["game"], rng),
        game_id=None if data["game_id"] is None else _str(data["game_id"]),
        game_no=strict_int(data["game_no"]),
        started_at=_str(data["started_at"]),
        seq=strict_int(data["seq"]) + SEQ_GAP_AFTER_RESTORE,
    )
    _check(saved)
    return saved


def _seat(data: dict[str, Any], now: float) -> Seat:
    """A seat as saved; a person's is offline since `now` (its grace starts afresh)."""
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


def _check(saved: SavedRoom) -> None:
    """Refuse a room the server could not have built: it would fail later, mid-game."""
    numbers = [seat.number for seat in saved.seats]
    tokens = {seat.token for seat in saved.seats if seat.token is not None}
    if len(set(numbers)) != len(numbers) or len(tokens) != sum(not s.bot for s in saved.seats):
        raise ValueError("seat numbers and tokens must be unique")
    if any(not 0 <= n < saved.settings.max_players for n in numbers):
        raise ValueError("a seat number is outside the room")
    if saved.host is not None and saved.host not in numbers:
        raise ValueError("the host must hold a seat")
    if saved.game is not None and not set(saved.game.seats) <= set(numbers):
        raise ValueError("every seat in the game must be in the room")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


SAVE_RETRY_FIRST = 1.0  # seconds before a failed save is tried again; doubled each time
SAVE_RETRY_MAX = 15.0
MAX_UNSAVED_GAMES = 10_000  # finished games held for a retry, all rooms together


class GameSaver:
    """Saves one room's finished games in a worker thread. A save that fails (the database is
    away) is kept and tried again, with backoff, until it lands; at most `MAX_UNSAVED_GAMES`
    are held at once in the whole process, so an outage cannot exhaust memory."""

    unsaved = 0  # games held for a retry now, every room's together

    def __init__(self, store: GameStore | None, room_id: str) -> None:
        self._store = store
        self._room_id = room_id
        self._tasks: set[asyncio.Task[None]] = set()
        self._busy = 0  # saves trying now (not waiting for their next try)
        self._quiet = asyncio.Event()
        self._quiet.set()

    def save(self, record: dict[str, Any], then: Callable[[str], Awaitable[None]]) -> None:
        """Store `record` off the event loop, then call `then` with its game_id."""
        metrics.GAMES_FINISHED.inc()
        logger.info("game finished", extra={"event": "game_finished", "room": self._room_id})
        if self._store is None:
            return
        self._enter()
        task = asyncio.create_task(self._save(self._store, record, then))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _save(
        self, store: GameStore, record: dict[str, Any], then: Callable[[str], Awaitable[None]]
    ) -> None:
        held, delay = False, SAVE_RETRY_FIRST
        try:
            while True:
                try:
                    game_id = await in_writer(store.save_game, record)
                    break
                except Exception:
                    if not held and GameSaver.unsaved >= MAX_UNSAVED_GAMES:
                        logger.exception(
                            "could not save the finished game of room %s, and %d others wait "
                            "already: it is dropped",
                            self._room_id,
                            GameSaver.unsaved,
                        )
                        return
                    if not held:
                        held = True
                        GameSaver.unsaved += 1
                        logger.exception(
                            "could not save the finished game of room %s; it is kept and retried",
                            self._room_id,
                        )
                    else:
                        logger.warning(
                            "still could not save the finished game of room %s; next try in %.0f s",
                            self._room_id,
                            delay,
                        )
                self._leave()
                try:
                    await asyncio.sleep(delay * random.uniform(0.8, 1.2))
                finally:
                    self._enter()
                delay = min(delay * 2, SAVE_RETRY_MAX)
            if held:
                logger.info("saved the finished game of room %s after all", self._room_id)
            await then(game_id)
        except asyncio.CancelledError:
            if held:
                logger.error("the finished game of room %s was never saved", self._room_id)
            raise
        finally:
            if held:
                GameSaver.unsaved -= 1
            self._leave()

    def _enter(self) -> None:
        self._busy += 1
        self._quiet.clear()

    def _leave(self) -> None:
        self._busy -= 1
        if not self._busy:
            self._quiet.set()

    async def settle(self) -> None:
        """Wait until no save is in flight: each has landed (and its `then` has run) or
        failed and waits for its next try, which goes on in the background."""
        while self._busy:
            await self._quiet.wait()

    @property
    def pending(self) -> int:
        """Finished games of this room not saved yet (trying, or waiting to try again)."""
        return sum(not task.done() for task in self._tasks)
