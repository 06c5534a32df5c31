"""Finished games: the record a game leaves, and `GameSaver`, which stores it off the event
loop and retries while the database is away (the journal's sibling for finished games)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

from app import metrics
from app.protocol import Join, SavedGame
from app.rooms.ports import GameStore
from app.rooms.state import RoomState
from app.rooms.writer import in_writer
from app.utc import utc_now

logger = logging.getLogger(__name__)


def game_record(state: RoomState) -> dict[str, Any]:
    """The room's finished game in the `GET /api/games/{id}` shape, without `game_id`; each
    player also carries what the ratings need: a bot's level, a person's key and standing."""
    game = state.game
    assert game is not None and game.winner is not None
    places = game.places()
    seats = [seat for seat in state.seats if seat.number in places]
    winner = next(seat for seat in seats if seat.number == game.winner)
    return {
        "room_id": state.room_id,
        "started_at": state.started_at,
        "finished_at": utc_now(),
        "settings": state.settings.model_dump(),
        "winner": {"seat": winner.number, "name": winner.name},
        "players": [
            {"seat": s.number, "name": s.name, "bot": s.bot, "place": places[s.number]}
            | ({"level": s.level} if s.bot else {"player_key": s.player_key, "guest": s.guest})
            for s in seats
        ],
        "rounds": [record.to_dict() for record in game.rounds],
    }


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

    def save(self, record: dict[str, Any], then: Callable[[SavedGame], Awaitable[None]]) -> None:
        """Store `record` off the event loop, then call `then` with what storing it gave."""
        metrics.GAMES_FINISHED.inc()
        logger.info("game finished", extra={"event": "game_finished", "room": self._room_id})
        if self._store is None:
            return
        self._enter()
        task = asyncio.create_task(self._save(self._store, record, then))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _save(
        self, store: GameStore, record: dict[str, Any], then: Callable[[SavedGame], Awaitable[None]]
    ) -> None:
        held, delay = False, SAVE_RETRY_FIRST
        try:
            while True:
                try:
                    saved = await in_writer(store.save_game, record)
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
            await then(saved)
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


async def guest_standing(store: GameStore | None, join: Join) -> bool:
    """Whether a person sits down as a guest: without a key always; with one, if the store
    says the name is another key's (a read in a thread, before the room's lock). A store that
    does not answer seats the key as it claims: saving the game checks again."""
    if join.player_key is None:
        return True
    if store is None:
        return False
    try:
        return await asyncio.to_thread(store.guest, join.name, join.player_key)
    except Exception:
        logger.warning("could not look up who owns the name %r", join.name, exc_info=True)
        return False
