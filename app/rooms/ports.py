"""What a room needs from outside it: connections, stores and server-wide timings.

The bottom of the rooms package: it imports nothing of it, so every module above may.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from app.protocol import CloseCode


class Connection(Protocol):
    """A client connection; both calls return at once (sends are queued)."""

    def send(self, *texts: str) -> None:
        """Send `texts` in order (in one write, where the transport takes them at once)."""

    def close(self, code: CloseCode) -> None: ...


class GameStore(Protocol):
    """Where finished games go (`app.db.repository.GameRepository`); called in a thread."""

    def save_game(self, record: Mapping[str, Any]) -> str: ...


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """Server-wide room timings, from Settings."""

    bot_delay: float = 0.9
    disconnect_grace: float = 20.0
    room_sockets: int = 32  # connections a room holds, seated and spectators together
