"""Who sits where: seats, their tokens, the host, and the rules for names."""

from __future__ import annotations

import hmac
import random
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from app.engine import BotLevel
from app.protocol import AutoplayedMessage, Hello, Join, ProtocolError, Resume, RoomSettings, Watch
from app.rooms.ports import Connection

TOKEN_BYTES = 24  # 192 random bits
BOT_NAMES = (
    "Ana", "Bruno", "Carmen", "Diego", "Elena", "Felipe",
    "Gloria", "Hugo", "Inés", "Jorge", "Lucía", "Mateo",
)  # fmt: skip


@dataclass(eq=False, slots=True)
class Seat:
    """A seat held by a person (with a token) or a bot (with a level)."""

    number: int
    name: str
    token: str | None
    level: BotLevel | None = None
    conn: Connection | None = None
    disconnected_at: float = 0.0
    autoplay: bool = False  # the server's bot plays this person's seat
    autoplay_since: float = 0.0
    left: bool = False  # the person sent `leave` during a game (else: away too long)
    missed: tuple[AutoplayedMessage, ...] = ()  # the bot's moves for it while it was away

    @property
    def bot(self) -> bool:
        return self.token is None

    def hand_to_bot(self, now: float) -> None:
        """The person stayed away past the grace: the server's bot plays the seat from now."""
        self.autoplay = True
        self.autoplay_since = now

    @property
    def automated(self) -> bool:
        """The server plays it: a bot's seat, or a person's it plays for (asked after every
        change of every room, so without going through `bot`)."""
        return self.token is None or self.autoplay


def fold(name: str) -> str:
    """Names are unique in a room ignoring case."""
    return name.casefold()


class Seats:
    """The seats of one room by number, and who hosts."""

    def __init__(self, seats: Iterable[Seat] = (), host: int | None = None) -> None:
        self._seats = {seat.number: seat for seat in seats}
        self._sort()
        self.host = host

    def _sort(self) -> None:
        """Every broadcast walks the seats in order: sort them when they change, not then."""
        self._in_order = tuple(self._seats[number] for number in sorted(self._seats))

    def __len__(self) -> int:
        return len(self._seats)

    def __contains__(self, number: int) -> bool:
        return number in self._seats

    def __getitem__(self, number: int) -> Seat:
        return self._seats[number]

    def __iter__(self) -> Iterator[Seat]:
        """The seats in seat order."""
        return iter(self._in_order)

    def numbers(self) -> list[int]:
        return [seat.number for seat in self._in_order]

    def get(self, number: int) -> Seat | None:
        return self._seats.get(number)

    def by_token(self, token: str) -> Seat | None:
        """The seat holding `token`, comparing every token in constant time."""
        found, wanted = None, token.encode()
        for seat in self._seats.values():
            if seat.token is not None and hmac.compare_digest(seat.token.encode(), wanted):
                found = seat
        return found

    def for_hello(self, hello: Hello, in_game: bool, settings: RoomSettings) -> Seat | None:
        """The seat a hello takes: a new one (join, lobby only), its own (resume), or none."""
        match hello:
            case Join(name=name):
                if in_game:
                    raise ProtocolError("game_in_progress", "The game has started; watch.")
                return self.seat_person(name, settings.max_players)
            case Resume(token=token):
                return self.resume(token)
            case Watch():
                return None

    def resume(self, token: str) -> Seat:
        """The seat `token` holds, played by its person again."""
        seat = self.by_token(token)
        if seat is None:
            raise ProtocolError("unknown_token", "No seat in this room has that token.")
        seat.autoplay = seat.left = False
        return seat

    def first_free(self, max_players: int) -> int:
        """The lowest free seat, or ProtocolError("room_full")."""
        for number in range(max_players):
            if number not in self._seats:
                return number
        raise ProtocolError("room_full", "Every seat is taken.")

    def seat_person(self, name: str, max_players: int) -> Seat:
        """A new seat with a fresh token in the lowest free place; the first person hosts."""
        taken = {fold(seat.name) for seat in self._seats.values()}
        if fold(name) in taken:
            raise ProtocolError("name_taken", f"Someone here is already called {name}.")
        seat = Seat(self.first_free(max_players), name, secrets.token_urlsafe(TOKEN_BYTES))
        self._seats[seat.number] = seat
        self._sort()
        if self.host is None:
            self.host = seat.number
        return seat

    def seat_bot(self, level: BotLevel, max_players: int, rng: random.Random) -> Seat:
        """A bot in the lowest free place, with a name nobody here has."""
        number = self.first_free(max_players)
        taken = {fold(seat.name) for seat in self._seats.values()}
        names = [f"Bot {n}" for n in BOT_NAMES if fold(f"Bot {n}") not in taken]
        name = rng.choice(names) if names else f"Bot {number + 1}"
        seat = Seat(number, name, None, level=level)
        self._seats[number] = seat
        self._sort()
        return seat

    def free(self, number: int) -> Seat:
        """Empty a seat; its token stops working."""
        seat = self._seats.pop(number)
        self._sort()
        return seat

    def kick(self, number: int) -> Seat:
        """The host frees someone else's seat."""
        if number not in self._seats or number == self.host:
            raise ProtocolError("bad_message", "There is no one to kick in that seat.")
        return self.free(number)

    def leave(self, number: int, *, in_game: bool, now: float) -> None:
        """In the lobby the seat is freed; in a game the bot plays it until its owner resumes.
        A departing host hands over."""
        seat = self._seats[number]
        seat.conn = None
        if in_game:
            seat.autoplay = seat.left = True
            seat.autoplay_since = seat.disconnected_at = now
        else:
            self.free(number)
        if self.host == number:
            self.pass_host(in_game)

    def keep_for_rematch(self) -> None:
        """After a game: people who left or are not connected lose their seats; bots and
        everyone at the table keep theirs, and nobody is played by the bot any more."""
        for seat in list(self):
            if not seat.bot and (seat.left or seat.conn is None):
                self.free(seat.number)
            seat.autoplay = seat.left = False
        if self.host not in self._seats:
            self.pass_host(in_game=False)

    def pass_host(self, in_game: bool) -> None:
        """The host has gone: the lowest seated person still at the table hosts. With none
        left, a lobby waits for a newcomer (None); a game keeps its departed host, who may
        resume."""
        people = [seat.number for seat in self if not seat.bot and not seat.autoplay]
        if people:
            self.host = people[0]
        elif not in_game:
            self.host = None
