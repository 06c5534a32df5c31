"""The turn clock: when the seat to act is played for, and when bots weigh a calza.

It knows the turn deadline, the disconnect grace, the bots' think time and the calza window
people get before a bot-played seat moves; it arms one timer for the seat to act and one for
the bots' calza decision, and wakes the room, which it never imports.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Literal, NamedTuple

from app.engine import Game
from app.rooms.clock import Scheduler, Timer
from app.rooms.ports import RoomConfig
from app.rooms.seats import Seat, Seats
from app.rooms.state import RoomState

CALZA_THOUGHT = 0.5  # bots weigh a calza after this share of their think time


class TurnKey(NamedTuple):
    """One turn: which game, which round, how many bids stand. A timer for an older key is
    stale. (A tuple: one is made and compared after every change of every room.)"""

    game_no: int
    round: int
    bids: int


Due = Literal["bot", "timer", "away"]  # why the seat to act is played for now
Wake = Callable[[TurnKey], Awaitable[None]]


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
    return [seat for seat in automated if game.may_calza(seat.number)]


def person_may_calza(game: Game, seats: Seats) -> bool:
    """A connected person, playing their own seat, may call calza on the standing bid now."""
    round_ = game.round
    if round_ is None or round_.standing is None or not game.settings.calza:
        return False
    return any(
        not seat.automated and seat.conn is not None and game.may_calza(seat.number)
        for seat in seats
    )


async def _asleep(key: TurnKey) -> None:
    """A closed clock's callbacks: nothing to wake."""


class TurnClock:
    """Timers for one room. `rearm` after every change; the callbacks get the key they were
    armed for and check it against `key`."""

    def __init__(
        self,
        scheduler: Scheduler,
        config: RoomConfig,
        rng: random.Random,
        *,
        on_turn: Wake,
        on_calza: Wake,
    ) -> None:
        self._scheduler = scheduler
        self._config = config
        # Think-time jitter is no secret: a system RNG (a system call per draw, on every
        # change of every room) gives way to a fast one; a seeded RNG (tests) is kept.
        self._rng = random.Random() if isinstance(rng, random.SystemRandom) else rng
        self._on_turn = on_turn
        self._on_calza = on_calza
        self.key: TurnKey | None = None
        self.deadline: float | None = None  # the turn timer's end, when the room has one
        self._started = 0.0
        self._jitter = 0.0
        self._calza_weighed: TurnKey | None = None
        self._timers: list[Timer] = []
        self._closed = False

    def now(self) -> float:
        return self._scheduler.now()

    def cancel(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()

    def close(self) -> None:
        """Cancel the timers and let go of the callbacks (they hold the room's autoplayer)."""
        self.cancel()
        self._closed = True
        self._on_turn = self._on_calza = _asleep

    def follow(self, state: RoomState) -> None:
        """After every change of the room: the timer for the seat to act (with the calza
        window while a person may call calza on a bot-played turn), and the bots' calza
        decision on a new bid."""
        game = state.game
        if self._closed:
            return
        if game is None or game.round is None:
            return self.rearm(None, None, None, calza=False)
        seat = state.seats[game.round.turn]
        seconds = state.settings.turn_seconds
        hold = bool(self._config.calza_window) and (
            (seat.automated or seat.conn is None or seconds is not None)
            and person_may_calza(game, state.seats)
        )
        self.rearm(
            TurnKey(state.game_no, game.round.number, len(game.round.bids)),
            seat,
            seconds,
            calza=bool(calza_candidates(game, state.seats)),
            hold=hold,
        )

    def rearm(
        self,
        key: TurnKey | None,
        seat: Seat | None,
        turn_seconds: int | None,
        *,
        calza: bool,
        hold: bool = False,
    ) -> None:
        """Arm the timer for `seat`, the one to act at turn `key` (None: nobody acts), and,
        when `calza` (a bot-played seat may call it), the bots' calza decision. `hold`: a
        person at the table may call calza on the standing bid, so the server's move for
        `seat` waits the calza window from the moment the bid was shown."""
        self.cancel()
        if key is None or seat is None:
            self.key = self.deadline = None
            return
        now = self._scheduler.now()
        if key != self.key:
            self.key = key
            self._started = now
            self._jitter = 0.3 * self._rng.random() * self._config.bot_delay  # uniform(0, 0.3)
            self.deadline = now + turn_seconds if turn_seconds is not None else None
        if seat.automated:
            due = [max(self._started, seat.autoplay_since) + self._config.bot_delay + self._jitter]
        else:
            due = [when for when in (self.deadline, self._grace_end(seat)) if when is not None]
        if due:
            when = min(due)
            if hold:
                when = max(when, self._started + self._config.calza_window)
            self._arm(when, self._on_turn)
        if calza and key != self._calza_weighed:
            self._arm(self._started + CALZA_THOUGHT * self._config.bot_delay, self._on_calza)

    def due(self, seat: Seat) -> Due | None:
        """Why `seat`, the one to act, is to be played for now; None if a timer woke early."""
        now = self._scheduler.now()
        if seat.automated:
            return "bot"
        grace_end = self._grace_end(seat)
        if grace_end is not None and now >= grace_end:
            return "away"
        if self.deadline is not None and now >= self.deadline:
            return "timer"
        return None

    def weigh_calza(self, key: TurnKey) -> bool:
        """True once per bid: the bots have not yet weighed a calza on it."""
        if key != self.key or key == self._calza_weighed:
            return False
        self._calza_weighed = key
        return True

    def _grace_end(self, seat: Seat) -> float | None:
        """When an absent person's turn passes to the bot (None while connected)."""
        if seat.automated or seat.conn is not None:
            return None
        return max(self._started, seat.disconnected_at) + self._config.disconnect_grace

    def _arm(self, when: float, wake: Wake) -> None:
        key = self.key
        assert key is not None
        self._timers.append(self._scheduler.call_at(when, partial(wake, key)))
