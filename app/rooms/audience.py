"""Who is in a room and how frames reach them: every connection, the seat it plays and
whether it takes bid events, and the fan-out of a room's frames (`frames` says what they
are)."""

from __future__ import annotations

from app.engine import PlacedBid
from app.protocol import CloseCode, RatingChange
from app.rooms.frames import ResultJson, YouJson, bid_frames, state_frames
from app.rooms.ports import Connection
from app.rooms.seats import Seat, Seats
from app.rooms.state import RoomState


class Audience:
    """Every connection of a room and the seat it plays (None: it watches)."""

    def __init__(self, capacity: int) -> None:
        self._seats: dict[Connection, int | None] = {}
        # The connections that take bid events, each with the `you` it was last sent.
        self._you_sent: dict[Connection, str] = {}
        self._capacity = capacity
        self._result_json = ResultJson()  # the last round result they were shown, encoded
        self._you_json = YouJson()  # each seat's last `you`, encoded
        self._announced: list[str] = []  # frames that go out with the next states

    def __len__(self) -> int:
        return len(self._seats)

    @property
    def full(self) -> bool:
        """No room for another connection (a seat's owner who resumes still gets in)."""
        return len(self._seats) >= self._capacity

    def __contains__(self, conn: Connection) -> bool:
        return conn in self._seats

    def seat_of(self, conn: Connection) -> int | None:
        return self._seats[conn]

    def sit(self, conn: Connection, seat: int | None, *, events: bool | None = None) -> None:
        """`conn` now plays `seat` (None: it watches on); `events`: it said in its hello
        whether it takes bid events (None: as before)."""
        self._seats[conn] = seat
        if events:
            self._you_sent[conn] = ""
        elif events is not None:
            self._you_sent.pop(conn, None)

    def arrive(self, conn: Connection, seat: Seat | None, *, events: bool) -> None:
        """`conn` said hello for `seat` (None: it watches); an older connection on the seat
        is superseded."""
        if seat is not None:
            if seat.conn is not None:
                self.remove(seat.conn)
                seat.conn.close(CloseCode.SUPERSEDED)
            seat.conn = conn
        self.sit(conn, seat.number if seat else None, events=events)

    def depart(self, conn: Connection, seats: Seats, now: float) -> bool:
        """`conn` went away (False: it had already been superseded); its seat stays, shown
        offline since `now`."""
        if conn not in self._seats:
            return False
        number = self.remove(conn)
        seat = seats.get(number) if number is not None else None
        if seat is not None and seat.conn is conn:
            seat.conn = None
            seat.disconnected_at = now
        return True

    def remove(self, conn: Connection) -> int | None:
        """Forget `conn`; the seat it played, if any."""
        self._you_sent.pop(conn, None)
        return self._seats.pop(conn, None)

    @property
    def spectators(self) -> int:
        return list(self._seats.values()).count(None)

    def broadcast(self, frame: str) -> None:
        """`frame` to everyone now (after anything announced)."""
        announced = self._take_announced()
        for conn in self._seats:
            conn.send(*announced, frame)

    def announce(self, frame: str) -> None:
        """`frame` to everyone with their next `state`, in front of it and in the same write
        (a round's result: one packet to each phone instead of two)."""
        self._announced.append(frame)

    def _take_announced(self) -> list[str]:
        announced, self._announced = self._announced, []
        return announced

    def close_all(self, code: CloseCode) -> None:
        for conn in self._seats:
            conn.close(code)
        self._seats.clear()
        self._you_sent.clear()

    def send_states(
        self,
        state: RoomState,
        turn_deadline: float | None,
        now: float,
        *,
        bid: PlacedBid | None = None,
        only: Connection | None = None,
        rating_changes: list[RatingChange] | None = None,
    ) -> None:
        """A fresh `state` to every connection, or, when the change was only `bid`, a bid
        event to those that take them; `only`: to that connection alone (`sync`);
        `rating_changes`: the saved game's (`state_frames`)."""
        viewers = self._seats if only is None else {only: self._seats[only]}
        frames: dict[Connection, str] | None = None
        if bid is not None and self._you_sent:
            takers = {conn: seat for conn, seat in viewers.items() if conn in self._you_sent}
            frames = bid_frames(
                state,
                bid,
                turn_deadline=turn_deadline,
                viewers=takers,
                you_json=self._you_json,
                you_sent=self._you_sent,
            )
            viewers = {conn: seat for conn, seat in viewers.items() if conn not in frames}
        if viewers:
            states = state_frames(
                state,
                turn_deadline=turn_deadline,
                now=now,
                viewers=viewers,
                spectators=list(self._seats.values()).count(None),
                result_json=self._result_json,
                you_json=self._you_json,
                you_sent=self._you_sent,
                rating_changes=rating_changes,
            )
            frames = states if frames is None else {**frames, **states}
        announced = self._take_announced() if only is None else []
        for conn, frame in (frames or {}).items():
            conn.send(*announced, frame)
