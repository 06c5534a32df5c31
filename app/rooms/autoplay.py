"""Moves the server makes itself: for bot seats, and for people who are away or out of time.

Every decision is taken from that seat's player view only, like any client's. A strategy
that fails never stalls a table: the seat plays a safe legal move read off `you.legal`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Protocol

from app.engine import Bid, Calza, Dudo, Event, Game, GameView, player_view
from app.engine.bot import BotLevel, choose_action, maybe_calza
from app.engine.game import Action
from app.protocol import AutoplayReason, RoomSettings
from app.rooms.clock import Scheduler
from app.rooms.ports import RoomConfig
from app.rooms.seats import Seat, Seats
from app.rooms.turns import Due, TurnClock, TurnKey

logger = logging.getLogger(__name__)

AUTOPLAY_LEVEL: BotLevel = "normal"  # how the server plays a person's seat


def level_of(seat: Seat) -> BotLevel:
    return seat.level or AUTOPLAY_LEVEL


def play_for(game: Game, seat: Seat, rng: random.Random) -> tuple[Action, list[Event]]:
    """Choose and apply the move of `seat`, the seat to act; returns it and its events."""
    view = player_view(game, seat.number)
    try:
        action = choose_action(view, level_of(seat), rng)
        return action, game.apply(seat.number, action)
    except Exception:
        logger.exception("the bot failed for seat %d; playing the safe move", seat.number)
        action = safe_action(view)
        return action, game.apply(seat.number, action)


def calza_candidates(game: Game, seats: Seats) -> list[Seat]:
    """Bot-played seats that may call calza on the standing bid, clockwise from its bidder."""
    round_ = game.round
    if round_ is None or round_.standing is None:
        return []
    automated = [seat for seat in seats if seat.automated]
    if not automated:
        return automated  # people only, all at the table: nobody to ask
    bidder = round_.standing.seat
    automated.sort(key=lambda seat: (seat.number <= bidder, seat.number))
    return [seat for seat in automated if game.options(seat.number).calza]


def calza_caller(game: Game, seats: Seats, rng: random.Random) -> Seat | None:
    """The first bot-played seat, clockwise from the bidder, that calls calza on the standing
    bid; each decides from its own view only, and a failing strategy says no."""
    for seat in calza_candidates(game, seats):
        try:
            if maybe_calza(player_view(game, seat.number), level_of(seat), rng):
                return seat
        except Exception:
            logger.exception("the bot's calza decision failed for seat %d", seat.number)
    return None


def reason(seat: Seat, due: Due) -> AutoplayReason:
    """Why the server played for a person: the turn timer, or they left or stayed away."""
    if due == "timer":
        return "timer"
    return "left" if seat.left else "away"


def safe_action(view: GameView) -> Action:
    """A legal move read off `you.legal`: dudo when allowed, else the least raise."""
    legal = view["you"]["legal"]
    if legal["dudo"]:
        return Dudo()
    face, quantity = next((f, q) for f, q in enumerate(legal["min_quantity"], 1) if q is not None)
    return Bid(quantity, face)


class Table(Protocol):
    """What the autoplayer needs of its room (which it never imports)."""

    lock: asyncio.Lock
    closed: bool

    @property
    def game(self) -> Game | None: ...

    @property
    def game_no(self) -> int: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def settings(self) -> RoomSettings: ...

    def played_for(
        self, seat: Seat, reason: AutoplayReason | None, action: Action, events: list[Event]
    ) -> None:
        """Announce and broadcast a move the server made (`reason` None: a bot seat's)."""


class Autoplayer:
    """Plays the room's bot seats and absent people when the turn clock says so."""

    def __init__(
        self, table: Table, scheduler: Scheduler, config: RoomConfig, rng: random.Random
    ) -> None:
        self._table: Table | None = table  # None once closed
        self._rng = rng
        self._turns = TurnClock(
            scheduler, config, rng, on_turn=self._on_turn, on_calza=self._on_calza
        )

    @property
    def deadline(self) -> float | None:
        """When the turn timer of the seat to act runs out (None: no timer)."""
        return self._turns.deadline

    def close(self) -> None:
        """Stop for good: the timers, and every reference back to the table, so a dropped
        room is freed as soon as nothing holds it, without waiting for (or escaping, once
        frozen) the cyclic garbage collector."""
        self._turns.close()
        self._table = None

    def rearm(self) -> None:
        """After every change: the timers for the seat to act and the bots' calza decision."""
        table = self._table
        if table is None:
            return
        game = table.game
        if game is None or game.round is None:
            self._turns.rearm(None, None, None, calza=False)
            return
        self._turns.rearm(
            TurnKey(table.game_no, game.round.number, len(game.round.bids)),
            table.seats[game.round.turn],
            table.settings.turn_seconds,
            calza=bool(calza_candidates(game, table.seats)),
        )

    async def _on_turn(self, key: TurnKey) -> None:
        """The seat to act is a bot's, or its person ran out of time or stayed away."""
        table = self._table
        if table is None:
            return
        async with table.lock:
            game = table.game
            if table.closed or key != self._turns.key or game is None or game.round is None:
                return
            seat = table.seats[game.round.turn]
            due = self._turns.due(seat)
            if due is None:
                self.rearm()  # woke early
                return
            if due == "away":
                seat.autoplay = True
                seat.autoplay_since = self._turns.now()
            action, events = play_for(game, seat, self._rng)
            table.played_for(seat, None if seat.bot else reason(seat, due), action, events)

    async def _on_calza(self, key: TurnKey) -> None:
        """The bot-played seats that may call calza on the new bid decide, once per bid."""
        table = self._table
        if table is None:
            return
        async with table.lock:
            game = table.game
            if table.closed or game is None or not self._turns.weigh_calza(key):
                return
            seat = calza_caller(game, table.seats, self._rng)
            if seat is not None:
                events = game.apply(seat.number, Calza())
                table.played_for(seat, None if seat.bot else reason(seat, "bot"), Calza(), events)
