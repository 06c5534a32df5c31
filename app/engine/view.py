"""What one seat may know of a game: the only way game state reaches the wire.

`table_view` is what everyone may know (no unrevealed die in it); `you_view` adds the one
seat's own dice, options and odds, and is the only place a hidden die leaves the engine.
The shapes are the TypedDicts of `app.engine.wire`.
"""

from __future__ import annotations

from app.engine.game import NO_OPTIONS, Game, Options
from app.engine.odds import odds_view
from app.engine.wire import GameView, LegalView, RoundView, TableView, YouView


def player_view(game: Game, seat: int | None, *, odds: bool = False) -> GameView:
    """The game as `seat` sees it (None: a spectator); `odds` is the room's `odds` setting."""
    return {**table_view(game), "you": you_view(game, seat, odds=odds)}


def you_view(
    game: Game, seat: int | None, *, odds: bool = False, options: Options | None = None
) -> YouView:
    """`seat`'s own dice of the current round, what it may do (`options`, if the caller has
    them from `game.options` already) and, with `odds`, its chances."""
    round_ = game.round
    own_dice = list(round_.dice.get(seat, ())) if round_ is not None and seat is not None else []
    return {
        "seat": seat,
        "dice": own_dice,
        "legal": (game.options(seat) if options is None else options).to_dict(),
        "odds": odds_view(game, seat) if odds else None,
    }


def lobby_you(seat: int | None) -> YouView:
    """`you` before any game: no dice, nothing to do, no odds."""
    return {"seat": seat, "dice": [], "legal": no_legal(), "odds": None}


def table_view(game: Game, *, last_result: bool = True) -> TableView:
    """Everything public: dice counts, bids, and dice only once revealed (`last_result`;
    None with `last_result=False`, for a caller that encodes it once per round itself)."""
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
        "round": _round_view(game),
        "last_result": game.last_result.to_dict() if last_result and game.last_result else None,
        "winner": game.winner,
    }


def _round_view(game: Game) -> RoundView | None:
    round_ = game.round
    if round_ is None:
        return None
    standing = round_.standing
    return {
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


def no_legal() -> LegalView:
    """`you.legal` when nothing may be done (lobby, spectators)."""
    return NO_OPTIONS.to_dict()
