"""The JSON shapes the engine hands out, as TypedDicts: PROTOCOL.md's field names, checked.

They sit below `game.py` and `view.py` (both build them) and import nothing from the engine,
so mypy checks every key a room, a bot or a page model reads. Key order is the wire order.
"""

from __future__ import annotations

from typing import Literal, TypedDict

Call = Literal["dudo", "calza"]
GamePhase = Literal["playing", "finished"]  # a room adds "lobby" before the first game


class BidView(TypedDict):
    """A bid and the seat that made it."""

    quantity: int
    face: int
    seat: int


class RollView(TypedDict):
    """One die of the opening roll-off."""

    seat: int
    die: int


class RevealView(TypedDict):
    """One seat's dice, once revealed."""

    seat: int
    dice: list[int]


class RoundResultView(TypedDict):
    """PROTOCOL.md `round_result` without its `type`."""

    round: int
    call: Call
    caller: int
    bid: BidView
    palifico: bool
    reveal: list[RevealView]
    count: int
    loser: int | None
    gainer: int | None
    eliminated: int | None
    next_opener: int | None
    winner: int | None


class RoundRecordView(TypedDict):
    """A finished round in a saved game (PROTOCOL.md `GET /api/games/{game_id}` `rounds`)."""

    number: int
    palifico: bool
    palifico_seat: int | None
    opener: int
    dice: list[RevealView]
    bids: list[BidView]
    result: RoundResultView


class RoundView(TypedDict):
    """PROTOCOL.md `state.round`; the room fills in `turn_deadline`."""

    number: int
    opener: int
    turn: int
    palifico: bool
    palifico_seat: int | None
    total_dice: int
    bid: BidView | None
    bids: list[BidView]
    turn_deadline: float | None
    roll_off: list[list[RollView]] | None


class LegalView(TypedDict):
    """PROTOCOL.md `you.legal`."""

    min_quantity: list[int | None]
    dudo: bool
    calza: bool


class OddsView(TypedDict):
    """PROTOCOL.md `you.odds`: chances, given the seat's own dice, that a bid holds."""

    bid: float | None
    min_raise: list[float | None]


class YouView(TypedDict):
    """PROTOCOL.md `state.you`: the only part of a view with hidden dice."""

    seat: int | None
    dice: list[int]
    legal: LegalView
    odds: OddsView | None


class PlayerPublic(TypedDict):
    """The engine's part of one entry of PROTOCOL.md `state.players`."""

    seat: int
    dice: int
    out: bool
    palifico_used: bool


class TableView(TypedDict):
    """The game part of PROTOCOL.md `state` that is the same for every seat."""

    phase: GamePhase
    players: list[PlayerPublic]
    round: RoundView | None
    last_result: RoundResultView | None
    winner: int | None


class GameView(TableView):
    """The game part of PROTOCOL.md `state`; the room adds names, presence and settings."""

    you: YouView
