"""Which move the server makes itself: for bot seats, and for people who are away or out of
time. A pure choice (state and player view in, seat, action and reason out); the room applies
it through the same path as a person's move.

Every decision is taken from that seat's player view only, like any client's. A strategy
that fails, or picks a move the view does not allow, never stalls a table: the seat plays a
safe legal move read off `you.legal`.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

from app.engine import (
    Action,
    Bid,
    BotLevel,
    Calza,
    Dudo,
    GameView,
    maybe_calza,
    player_view,
)
from app.protocol import AutoplayReason
from app.rooms.seats import Seat
from app.rooms.state import RoomState
from app.rooms.turns import Due, calza_candidates

logger = logging.getLogger(__name__)

AUTOPLAY_LEVEL: BotLevel = "normal"  # how the server plays a person's seat


@dataclass(frozen=True, slots=True)
class Move:
    """A move the server makes: `by` says why it plays for a person (None: a bot's seat)."""

    seat: int
    action: Action
    by: AutoplayReason | None


def level_of(seat: Seat) -> BotLevel:
    return seat.level or AUTOPLAY_LEVEL


def turn_view(state: RoomState, seat: Seat) -> GameView:
    """What the bot playing `seat` decides from: that seat's player view."""
    assert state.game is not None
    return player_view(state.game, seat.number)


def checked_move(view: GameView, seat: Seat, due: Due, action: Action | None) -> Move:
    """`seat`'s move from the strategy's `action` (None: it failed); a move `view` does not
    allow gives way to the safe one."""
    if action is not None and not allowed(view, action):
        logger.error(
            "the bot chose %r for seat %d, which the view does not allow", action, seat.number
        )
        action = None
    return Move(
        seat.number,
        safe_action(view) if action is None else action,
        None if seat.bot else reason(seat, due),
    )


def calza_move(state: RoomState, rng: random.Random) -> Move | None:
    """The calza of the first bot-played seat, clockwise from the bidder, that calls one on
    the standing bid; each decides from its own view only, and a failing strategy says no."""
    game = state.game
    if game is None:
        return None
    for seat in calza_candidates(game, state.seats):
        try:
            if maybe_calza(player_view(game, seat.number), level_of(seat), rng):
                return Move(seat.number, Calza(), None if seat.bot else reason(seat, "bot"))
        except Exception:
            logger.exception("the bot's calza decision failed for seat %d", seat.number)
    return None


def reason(seat: Seat, due: Due) -> AutoplayReason:
    """Why the server played for a person: the turn timer, or they left or stayed away."""
    if due == "timer":
        return "timer"
    return "left" if seat.left else "away"


def allowed(view: GameView, action: Action) -> bool:
    """Whether `you.legal` allows `action` (any quantity from the least legal one up to the
    dice on the table is legal on an open face)."""
    legal = view["you"]["legal"]
    match action:
        case Dudo():
            return legal["dudo"]
        case Calza():
            return legal["calza"]
        case Bid(quantity=quantity, face=face):
            least = legal["min_quantity"][face - 1] if 1 <= face <= 6 else None
            round_ = view["round"]
            total = round_["total_dice"] if round_ is not None else 0
            return least is not None and least <= quantity <= total
    return False


def safe_action(view: GameView) -> Action:
    """A legal move read off `you.legal`: dudo when allowed, else the least raise."""
    legal = view["you"]["legal"]
    if legal["dudo"]:
        return Dudo()
    face, quantity = next((f, q) for f, q in enumerate(legal["min_quantity"], 1) if q is not None)
    return Bid(quantity, face)
