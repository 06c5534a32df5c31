"""What one seat may know of a game: the only way game state reaches the wire.

`table_view` is what everyone may know (no unrevealed die in it); `you_view` adds the one
seat's own dice and options, and is the only place a hidden die leaves the engine.
"""

from __future__ import annotations

from typing import Any, TypedDict

from app.engine.game import NO_OPTIONS, Game, LegalView


class PlayerPublic(TypedDict):
    seat: int
    dice: int
    out: bool
    palifico_used: bool


class YouView(TypedDict):
    seat: int | None
    dice: list[int]
    legal: LegalView


class TableView(TypedDict):
    """The game part of PROTOCOL.md `state` that is the same for every seat."""

    phase: str
    players: list[PlayerPublic]
    round: dict[str, Any] | None
    last_result: dict[str, Any] | None
    winner: int | None


class GameView(TableView):
    """The game part of PROTOCOL.md `state`; the room adds names, presence and settings."""

    you: YouView


def player_view(game: Game, seat: int | None) -> GameView:
    """The game as `seat` sees it (None: a spectator)."""
    return {**table_view(game), "you": you_view(game, seat)}


def you_view(game: Game, seat: int | None) -> YouView:
    """`seat`'s own dice of the current round and what it may do; nothing for spectators."""
    round_ = game.round
    own_dice = list(round_.dice.get(seat, ())) if round_ is not None and seat is not None else []
    return {"seat": seat, "dice": own_dice, "legal": game.options(seat).to_dict()}


def table_view(game: Game) -> TableView:
    """Everything public: dice counts, bids, and dice only once revealed (`last_result`)."""
    round_ = game.round
    round_view: dict[str, Any] | None = None
    if round_ is not None:
        standing = round_.standing
        round_view = {
            "number": round_.number,
            "opener": round_.opener,
            "turn": round_.turn,
            "palifico": round_.palifico,
            "palifico_seat": round_.palifico_seat,
            "total_dice": game.total_dice(),
            "bid": standing.to_dict() if standing else None,
            "bids": [placed.to_dict() for placed in round_.bids],
            "turn_deadline": None,
            "roll_off": (
                [[{"seat": s, "die": die} for s, die in throw] for throw in round_.roll_off]
                if round_.roll_off
                else None
            ),
        }
    return {
        "phase": "finished" if game.finished else "playing",
        "players": [
            {
                "seat": player.seat,
                "dice": player.count,
                "out": player.out,
                "palifico_used": player.palifico_used,
            }
            for player in game.players.values()
        ],
        "round": round_view,
        "last_result": game.last_result.to_dict() if game.last_result else None,
        "winner": game.winner,
    }


def no_legal() -> LegalView:
    """`you.legal` when nothing may be done (lobby, spectators)."""
    return NO_OPTIONS.to_dict()
