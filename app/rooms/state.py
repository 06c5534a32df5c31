"""A room's lasting state: one object, read directly by the frames, the journal and the
snapshot codec, and changed only by its own methods (python-chess's `Board`).

Connections, timers and locks are not part of it: they live in `Room`, and a room is restored
as `Room(state)`. Adding a lasting field is one edit here and one in `persistence`'s codec.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.engine import Action, Bid, Event, Game
from app.protocol import (
    AutoplayReason,
    BidMessage,
    CalzaMessage,
    DudoMessage,
    ErrorCode,
    Phase,
    ProtocolError,
    RoomSettings,
)
from app.rooms.seats import Seats

# The moves the server's bot made for a person, by (round number, the bid's place in the
# round, or CALL for the dudo or calza that ended it), so every page reads them as the bot's.
Marks = dict[tuple[int, int], AutoplayReason]
CALL = -1
MoveMessage = BidMessage | DudoMessage | CalzaMessage


def utc_now() -> str:
    """Now, as the ISO-8601 UTC text a game record keeps."""
    return datetime.now(UTC).isoformat()


@dataclass(eq=False, slots=True)
class RoomState:
    """Everything of a room that outlives its connections and its process."""

    room_id: str
    settings: RoomSettings
    seats: Seats = field(default_factory=Seats)
    game: Game | None = None
    game_id: str | None = None  # set once the finished game is saved
    game_no: int = 0  # games started in this room: a late save of an older one is ignored
    started_at: str = ""
    seq: int = 0  # the `seq` of the last `state` sent
    marks: Marks = field(default_factory=dict)

    @property
    def phase(self) -> Phase:
        if self.game is None:
            return "lobby"
        return "finished" if self.game.finished else "playing"

    def require_host(self, number: int | None, phase: Phase) -> None:
        """Host commands: only the host sends them, and only in `phase`."""
        if number is None or number != self.seats.host:
            raise ProtocolError("not_host", "Only the host may do that.")
        if self.phase != phase:
            code: ErrorCode = "game_not_running" if self.phase == "lobby" else "game_in_progress"
            raise ProtocolError(code, f"Not now: the room is {self.phase}.")

    def person_move(self, number: int | None, message: MoveMessage) -> int:
        """The seat a person's move is for, once the protocol's checks pass (the rules'
        come when it is played): a game runs, the sender holds a seat, and a call names the
        standing bid if it names one."""
        game = self.game
        if game is None:
            raise ProtocolError("game_not_running", "The game has not started.")
        if number is None:
            if isinstance(message, CalzaMessage):
                raise ProtocolError("calza_not_allowed", "Spectators may not call calza.")
            raise ProtocolError("not_your_turn", "Spectators do not play.")
        seen = None if isinstance(message, BidMessage) else message.bid
        if seen is not None:
            standing = game.round.standing if game.round is not None else None
            if standing is None or standing.bid != Bid(seen.quantity, seen.face):
                raise ProtocolError("bid_changed", "The bid you called on is no longer standing.")
        return number

    def play(self, seat: int, action: Action, by: AutoplayReason | None = None) -> list[Event]:
        """Apply `action` of `seat` to the game: the one place a move reaches the engine
        (a person's, the bot's, and the journal's replay alike). `by`: why the server's bot
        made it for a person. RuleError (nothing changed) when the rules refuse it."""
        game = self.game
        if game is None:
            raise ProtocolError("game_not_running", "The game has not started.")
        round_ = game.round
        events = game.apply(seat, action)
        if by is not None and round_ is not None:
            move = len(round_.bids) - 1 if isinstance(action, Bid) else CALL
            self.marks[round_.number, move] = by
        return events

    def start(self, rng: random.Random) -> None:
        """A new game among the seated, playing with `rng`."""
        if len(self.seats) < 2:
            raise ProtocolError("not_enough_players", "A game needs at least two players.")
        self.game = Game(self.seats.numbers(), rng, self.settings.rules())
        self.game_id = None
        self.game_no += 1
        self.started_at = utc_now()
        self.marks = {}

    def rematch(self) -> None:
        """Back to the lobby with the same seats (see `Seats.keep_for_rematch`)."""
        self.seats.keep_for_rematch()
        self.game = self.game_id = None
        self.marks = {}

    def change_settings(self, changes: dict[str, object]) -> None:
        """New settings for the next game; seats above a smaller `max_players` must be free."""
        updated = self.settings.model_copy(update=changes)
        if any(number >= updated.max_players for number in self.seats.numbers()):
            raise ProtocolError("bad_message", "Seats above max_players are taken; free them.")
        self.settings = updated
