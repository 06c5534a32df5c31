"""Who is in a room and how frames reach them: every connection, the seat it plays and
whether it takes bid events, and the fan-out of a room's frames (`frames` says what they
are)."""

from __future__ import annotations

from app.engine.game import PlacedBid
from app.protocol import CloseCode
from app.rooms.frames import ResultJson, YouJson, bid_frames, state_frames
from app.rooms.ports import Connection
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
        *,
        turn_deadline: float | None,
        now: float,
        bid: PlacedBid | None = None,
        only: Connection | None = None,
    ) -> None:
        """A fresh `state` to every connection, or, when the change was only `bid`, a bid
        event to those that take them; `only`: to that connection alone (`sync`)."""
        viewers = self._seats if only is None else {only: self._seats[only]}
        frames: dict[Connection, str] = {}
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
            frames.update(
                state_frames(
                    state,
                    turn_deadline=turn_deadline,
                    now=now,
                    viewers=viewers,
                    spectators=self.spectators,
                    result_json=self._result_json,
                    you_json=self._you_json,
                    you_sent=self._you_sent,
                )
            )
        announced = self._take_announced() if only is None else []
        for conn, frame in frames.items():
            conn.send(*announced, frame)
