"""The wire contract of PROTOCOL.md as types: client messages are parsed here, in one place.

Every client message is a strict pydantic model (`"3"`, `3.0` and `true` are not integers),
unknown fields are ignored, and anything that fails to parse is a `bad_message`. Integers of
the right type that break the rules are left to the engine (`illegal_bid`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

ErrorCode = Literal[
    "bad_message",
    "not_joined",
    "name_taken",
    "room_full",
    "unknown_token",
    "game_in_progress",
    "not_host",
    "not_enough_players",
    "game_not_running",
    "not_your_turn",
    "illegal_bid",
    "no_bid",
    "calza_not_allowed",
    "rate_limited",
]
BotLevel = Literal["easy", "normal", "hard"]
MAX_FRAME_BYTES = 4096

# Trimmed first, then measured; control characters have no place in a name.
Name = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=24, pattern=r"^[^\x00-\x1f\x7f]*$"
    ),
]
MAX_CHAT = 300


def _chat_length(text: str) -> str:
    """A chat is 1..300 characters once trimmed, and is then broadcast as sent."""
    if not 1 <= len(text.strip()) <= MAX_CHAT:
        raise ValueError(f"a chat is 1 to {MAX_CHAT} characters")
    return text


ChatText = Annotated[str, AfterValidator(_chat_length)]


class ProtocolError(Exception):
    """A rejected message: becomes an `error` frame; the room is unchanged."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message


class RoomSettings(BaseModel):
    """The settings of `POST /api/rooms` (422 on a bad value), also a room's current settings."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    max_players: Annotated[int, Field(ge=2, le=6)] = 6
    calza: bool = True
    palifico: bool = True
    calza_rule: Literal["pressman", "asmodee"] = "pressman"
    turn_seconds: Annotated[int, Field(ge=10, le=600)] | None = None


class _Message(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Join(_Message):
    type: Literal["join"]
    name: Name


class Resume(_Message):
    type: Literal["resume"]
    token: str


class Watch(_Message):
    type: Literal["watch"]


class SettingsChange(RoomSettings):
    """Any subset of the room settings; only the fields present change (`model_fields_set`)."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["settings"]

    def changes(self) -> dict[str, Any]:
        return self.model_dump(include=self.model_fields_set - {"type"})


class AddBot(_Message):
    type: Literal["add_bot"]
    level: BotLevel = "normal"


class Kick(_Message):
    type: Literal["kick"]
    seat: int


class Start(_Message):
    type: Literal["start"]


class BidMessage(_Message):
    type: Literal["bid"]
    quantity: int
    face: int


class DudoMessage(_Message):
    type: Literal["dudo"]


class CalzaMessage(_Message):
    type: Literal["calza"]


class Chat(_Message):
    type: Literal["chat"]
    text: ChatText


class Leave(_Message):
    type: Literal["leave"]


class Rematch(_Message):
    type: Literal["rematch"]


class Ping(_Message):
    type: Literal["ping"]


Hello = Join | Resume | Watch
# What a room handles once a connection has said hello (`ping` never reaches the room).
RoomMessage = (
    Hello
    | SettingsChange
    | AddBot
    | Kick
    | Start
    | BidMessage
    | DudoMessage
    | CalzaMessage
    | Chat
    | Leave
    | Rematch
)
ClientMessage = Annotated[RoomMessage | Ping, Field(discriminator="type")]
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def parse_client_message(text: str) -> ClientMessage:
    """The typed message in a text frame, or ProtocolError("bad_message") saying what is wrong."""
    try:
        return _CLIENT_MESSAGE.validate_json(text)
    except ValidationError as exc:
        raise ProtocolError("bad_message", _describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


# ----- server messages -----------------------------------------------------------------------


class WelcomeMessage(TypedDict):
    type: Literal["welcome"]
    room_id: str
    seat: int | None
    token: str | None


class ErrorMessage(TypedDict):
    type: Literal["error"]
    code: ErrorCode
    message: str


class ChatMessage(TypedDict):
    type: Literal["chat"]
    seat: int
    name: str
    text: str


class PongMessage(TypedDict):
    type: Literal["pong"]


def encode(message: WelcomeMessage | ErrorMessage | ChatMessage | PongMessage) -> str:
    """A server message as the text of one frame."""
    return orjson.dumps(message).decode()


def error_frame(code: ErrorCode, message: str) -> str:
    return encode({"type": "error", "code": code, "message": message})


PONG = encode({"type": "pong"})
