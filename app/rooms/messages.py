"""The frames every connection of a room shares: the answer to a hello, the game's history, a
round's result, chat, reactions, the operator's notices and the bot's moves for people (the
per-connection `state` and bid events are `frames`), and the room as the API shows it."""

from __future__ import annotations

from app.engine import Action, Bid, Dudo, Game, RoundResult
from app.protocol import (
    AutoplayedMessage,
    AutoplayReason,
    BidAction,
    CallAction,
    Emoji,
    RoomInfo,
    WelcomeMessage,
    encode,
)
from app.rooms.seats import Seat
from app.rooms.state import RoomState


def room_info(state: RoomState) -> RoomInfo:
    """`GET /api/rooms/{room_id}`: no dice, no tokens."""
    return {
        "room_id": state.room_id,
        "phase": state.phase,
        "players": [{"seat": s.number, "name": s.name, "bot": s.bot} for s in state.seats],
        "settings": state.settings.view,
    }


def welcome_frame(room_id: str, seat: Seat | None) -> str:
    """The answer to a hello: the seat and its token (both None for a spectator), and the
    moves the server's bot made for that seat while it had no connection, if any."""
    number, token = (seat.number, seat.token) if seat else (None, None)
    welcome: WelcomeMessage = {
        "type": "welcome",
        "room_id": room_id,
        "seat": number,
        "token": token,
    }
    if seat is not None and seat.missed:
        welcome["autoplayed"] = list(seat.missed)
    return encode(welcome)


def round_result_frame(result: RoundResult) -> str:
    return encode({"type": "round_result", **result.to_dict()})


def history_frame(game: Game) -> str:
    """Every finished round of `game`, oldest first, for a page that (re)connects."""
    return encode(
        {"type": "history", "rounds": [record.result.to_dict() for record in game.rounds]}
    )


def reaction_frame(seat: int | None, emoji: Emoji) -> str:
    return encode({"type": "reaction", "seat": seat, "emoji": emoji})


def notice_frame(text: str) -> str:
    return encode({"type": "notice", "text": text})


def chat_frame(seat: Seat, text: str) -> str:
    return encode({"type": "chat", "seat": seat.number, "name": seat.name, "text": text})


def autoplayed_message(seat: int, reason: AutoplayReason, action: Action) -> AutoplayedMessage:
    """A move the server's bot made for a person."""
    shown: BidAction | CallAction
    if isinstance(action, Bid):
        shown = {"type": "bid", "quantity": action.quantity, "face": action.face}
    else:
        shown = {"type": "dudo" if isinstance(action, Dudo) else "calza"}
    return {"type": "autoplayed", "seat": seat, "reason": reason, "action": shown}
