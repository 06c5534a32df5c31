"""What a room needs from outside it: connections, stores, leases and server-wide timings.

The bottom of the rooms package: it imports nothing of it, so every module above may. The
database implements the stores (`app.db`), the socket endpoint the connections.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from app.protocol import CloseCode, SavedGame

# A journal entry or snapshot, JSON-encoded as it is recorded (`journal`): bytes, not a tree
# of dicts and lists for the garbage collector to walk while they wait for the writer.
Encoded = orjson.Fragment
# A batch of the journal: each room's new snapshot (room id -> (rev, data)), and the rows
# recorded after their room's snapshot ((room id, the snapshot's rev, rev, entry)).
Snapshots = Mapping[str, tuple[int, Encoded]]
JournalRows = Sequence[tuple[str, int, int, Encoded]]
Entry = dict[str, Any]  # one action after a snapshot, as `entries.entry_of` writes it


class Connection(Protocol):
    """A client connection; both calls return at once (sends are queued)."""

    def send(self, *texts: str) -> None:
        """Send `texts` in order (in one write, where the transport takes them at once)."""

    def close(self, code: CloseCode) -> None: ...


class GameStore(Protocol):
    """Where finished games go (`app.db.repository.GameRepository`); called in a thread."""

    def save_game(self, record: Mapping[str, Any]) -> SavedGame: ...

    def guest(self, name: str, player_key: str | None) -> bool:
        """Whether a seat under `name` with `player_key` plays as a guest (no key, or the
        name is another key's)."""
        ...


class JournalStore(Protocol):
    """Where the journal goes (`app.db.journal.JournalRepository`); called in a thread."""

    def write_journal(
        self,
        snapshots: Snapshots,
        entries: JournalRows,
        dropped: Iterable[str],
    ) -> None: ...

    def load_journal(
        self, room_id: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, Entry]]]]: ...


class Leases(Protocol):
    """The lease tables (`app.db.leases.LeaseRepository`); called in a thread."""

    def beat(self, owner: str, ttl: float) -> bool: ...

    def acquire(self, room_id: str, owner: str) -> bool: ...

    def renew(
        self, owner: str, ttl: float, *, recheck: bool = False
    ) -> tuple[set[str] | None, set[str]]: ...

    def release(self, room_ids: Iterable[str], owner: str) -> None: ...

    def stop(self, owner: str) -> None: ...

    def drop_unclaimed(self, before: float) -> int: ...

    def stored_rooms(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """Server-wide room timings, from Settings."""

    bot_delay: float = 0.9
    disconnect_grace: float = 20.0
    room_sockets: int = 32  # connections a room holds, seated and spectators together
    calza_window: float = 0.0  # a bot-played turn waits this long while a person may calza
