"""Who is in a room and how frames reach them: every connection and the seat it plays, and
the fan-out of a room's frames (`frames` says what they are)."""

from __future__ import annotations

from app.protocol import CloseCode
from app.rooms.frames import ResultJson, Shown, YouJson, state_frames
from app.rooms.ports import Connection


class Audience:
    """Every connection of a room and the seat it plays (None: it watches)."""

    def __init__(self, capacity: int) -> None:
        self._seats: dict[Connection, int | None] = {}
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

    def sit(self, conn: Connection, seat: int | None) -> None:
        """`conn` now plays `seat` (None: it watches on)."""
        self._seats[conn] = seat

    def remove(self, conn: Connection) -> int | None:
        """Forget `conn`; the seat it played, if any."""
        return self._seats.pop(conn, None)

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

    def send_states(self, room: Shown, *, turn_deadline: float | None, now: float) -> None:
        """A fresh `state` to every connection (`state_frames`)."""
        states = state_frames(
            room,
            turn_deadline=turn_deadline,
            now=now,
            viewers=self._seats,
            result_json=self._result_json,
            you_json=self._you_json,
        )
        announced = self._take_announced()
        for conn, frame in states.items():
            conn.send(*announced, frame)
