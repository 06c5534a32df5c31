"""A room read back from the journal rows a server stored, restored as the server does it."""

from __future__ import annotations

import random
from typing import Any

from app.rooms.entries import replay
from app.rooms.persistence import decode_room


def holds(state: dict[str, Any], snapshot: dict[str, Any], entries: list[dict[str, Any]]) -> bool:
    """The room that `snapshot` and the `entries` after it restore to holds `state`: its
    round with every bid, or its lobby with every seat."""
    room = decode_room(snapshot, random.Random(), 0.0)
    replay(room, entries)
    if state["round"] is None:
        return room.game is None and len(room.seats) == len(state["players"])
    round_ = room.game.round if room.game else None
    return (
        round_ is not None
        and round_.number == state["round"]["number"]
        and len(round_.bids) == len(state["round"]["bids"])
    )
