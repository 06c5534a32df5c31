"""The wire contract of PROTOCOL.md as types: every client and every server message.

Every client message is a strict pydantic model (`"3"`, `3.0` and `true` are not integers),
unknown fields are ignored, and anything that fails to parse is a `bad_message`. Integers of
the right type that break the rules are left to the engine (`illegal_bid`). Server messages are
TypedDicts encoded with orjson. The game's own terms (bot levels, calza rules, rule codes) come
from the engine; this module adds the codes of the wire around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, Any, Literal, NotRequired, TypedDict, get_args, get_type_hints

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
from starlette import status

from app.engine import (
    Bid,
    BotLevel,
    Calza,
    CalzaRule,
    Dudo,
    GamePhase,
    GameSettings,
    RoundResultView,
    RoundView,
    RuleCode,
    YouView,
)

ErrorCode = Literal[
    RuleCode,
    "bad_message",
    "not_joined",
    "name_taken",
    "room_full",
    "unknown_token",
    "game_in_progress",
    "not_host",
    "not_enough_players",
    "bid_changed",
    "rate_limited",
]
MAX_FRAME_BYTES = 4096

NAME_PATTERN = r"^[^\x00-\x1f\x7f]*$"  # control characters have no place in a name
# Trimmed first, then measured.
Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=24, pattern=NAME_PATTERN),
]
MAX_CHAT = 300


def _chat_length(text: str) -> str:
    """A chat is 1..300 characters once trimmed, and is then broadcast as sent."""
    if not 1 <= len(text.strip()) <= MAX_CHAT:
        raise ValueError(f"a chat is 1 to {MAX_CHAT} characters")
    return text


ChatText = Annotated[str, AfterValidator(_chat_length)]
# At least 128 random bits (22 URL-safe base64 characters), printable ASCII (app/db/claims.py).
PlayerKey = Annotated[str, StringConstraints(min_length=22, max_length=128, pattern=r"^[!-~]+$")]


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
    calza_rule: CalzaRule = "pressman"
    turn_seconds: Annotated[int, Field(ge=10, le=600)] | None = None
    odds: bool = False

    def rules(self) -> GameSettings:
        """The settings the engine's rules depend on."""
        return GameSettings(calza=self.calza, palifico=self.palifico, calza_rule=self.calza_rule)

    @property
    def view(self) -> SettingsView:
        """These settings as sent in every `state`."""
        return {
            "max_players": self.max_players,
            "calza": self.calza,
            "palifico": self.palifico,
            "calza_rule": self.calza_rule,
            "turn_seconds": self.turn_seconds,
            "odds": self.odds,
        }


class _Message(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class _Hello(_Message):
    events: bool = False  # bid events instead of a `state` after a bid (PROTOCOL.md)


class Join(_Hello):
    type: Literal["join"]
    name: Name
    player_key: PlayerKey | None = None  # or the `perudo_player` cookie (app/ws.py)


class Resume(_Hello):
    type: Literal["resume"]
    token: str
    player_key: PlayerKey | None = None


class Watch(_Hello):
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

    def action(self) -> Bid:
        """The move this message asks the engine for."""
        return Bid(self.quantity, self.face)


class SeenBid(_Message):
    """The standing bid a caller saw: a call on a bid that has changed since is refused."""

    quantity: int
    face: int


class DudoMessage(_Message):
    type: Literal["dudo"]
    bid: SeenBid | None = None

    def action(self) -> Dudo:
        return Dudo()


class CalzaMessage(_Message):
    type: Literal["calza"]
    bid: SeenBid | None = None

    def action(self) -> Calza:
        return Calza()


class Chat(_Message):
    type: Literal["chat"]
    text: ChatText


class Leave(_Message):
    type: Literal["leave"]


class Rematch(_Message):
    type: Literal["rematch"]


Emoji = Literal["👍", "👏", "😂", "😮", "😱", "🤔", "😎", "🙈", "🎲", "🔥"]


class React(_Message):
    """A quick reaction, shown at the sender's seat for a moment; not recorded."""

    type: Literal["react"]
    emoji: Emoji


class Sync(_Message):
    """Ask for a full `state` (a client of bid events that saw a `seq` gap)."""

    type: Literal["sync"]


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
    | React
    | Sync
    | Leave
    | Rematch
)
ClientMessage = Annotated[RoomMessage | Ping, Field(discriminator="type")]
# Only keys go into pydantic's process-wide string cache: its default caches values too, and
# so kept up to 16,384 seat tokens and names of rooms long gone (and the memory they pin).
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(
    ClientMessage, config=ConfigDict(cache_strings="keys")
)


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
# Every message the server sends, typed; `ServerMessage` is their closed union.


class CloseCode(IntEnum):
    """Every code the server closes a socket with: the standard ones by starlette's names."""

    GOING_AWAY = status.WS_1001_GOING_AWAY  # the server stops, or the room was dropped
    PROTOCOL_ERROR = status.WS_1002_PROTOCOL_ERROR  # a frame against RFC 6455 (the WS layer's)
    UNSUPPORTED_DATA = status.WS_1003_UNSUPPORTED_DATA  # a binary frame
    INVALID_FRAME_PAYLOAD_DATA = status.WS_1007_INVALID_FRAME_PAYLOAD_DATA  # not UTF-8
    POLICY_VIOLATION = status.WS_1008_POLICY_VIOLATION  # flooding, a client that does not read
    MESSAGE_TOO_BIG = status.WS_1009_MESSAGE_TOO_BIG  # a frame over MAX_FRAME_BYTES
    SERVICE_RESTART = status.WS_1012_SERVICE_RESTART  # the room moves to another instance
    TRY_AGAIN_LATER = status.WS_1013_TRY_AGAIN_LATER  # the room holds too many sockets
    SUPERSEDED = 4000  # a newer connection resumed this seat
    UNKNOWN_ROOM = 4404
    HELLO_TIMEOUT = 4408  # no hello within PERUDO_HELLO_SECONDS
    ROOM_CLOSED = 4410  # the server's operator closed the room


Phase = Literal["lobby", GamePhase]
PHASES: tuple[Phase, ...] = ("lobby", *get_args(GamePhase))
AutoplayReason = Literal["timer", "away", "left"]


class SettingsView(TypedDict):
    max_players: int
    calza: bool
    palifico: bool
    calza_rule: CalzaRule
    turn_seconds: int | None
    odds: bool


class RoomPlayer(TypedDict):
    seat: int
    name: str
    bot: bool


class RoomInfo(TypedDict):
    """`GET /api/rooms/{room_id}`."""

    room_id: str
    phase: Phase
    players: list[RoomPlayer]
    settings: SettingsView


class PlayerEntry(TypedDict):
    """One seat in `state.players`: the engine's public part, plus names and presence."""

    seat: int
    dice: int
    out: bool
    palifico_used: bool
    name: str
    connected: bool
    bot: bool
    autoplay: bool  # the server's bot plays a person's seat
    level: BotLevel | None  # a bot's level (None for people)


class RatingChange(TypedDict):
    """A rated seat's `rating_low` before and after a saved game."""

    seat: int
    before: float
    after: float


@dataclass(frozen=True, slots=True)
class SavedGame:
    """What storing a finished game gives its room back: the game's id, and the rated
    seats' changes for the `state` that first carries it."""

    game_id: str
    rating_changes: list[RatingChange]


class AutoplayedMarks(TypedDict):
    """In a game where the server's bot made a move for a person (beyond PROTOCOL.md): why it
    made each bid of the round (beside `round.bids`) and each finished round's call (beside
    `history`'s rounds); None where the player moved themselves."""

    bids: list[AutoplayReason | None]
    calls: list[AutoplayReason | None]


class StatePublic(TypedDict):
    """Everything in a `state` but `you`: the same for every connection of the room."""

    type: Literal["state"]
    seq: int
    room_id: str
    phase: Phase
    settings: SettingsView
    host: int | None
    players: list[PlayerEntry]
    round: RoundView | None
    last_result: RoundResultView | None
    winner: int | None
    game_id: str | None
    server_time: float
    spectators: int
    autoplayed: NotRequired[AutoplayedMarks]  # beyond PROTOCOL.md, see below
    rating_changes: NotRequired[list[RatingChange]]  # on the state that first carries game_id


class StateMessage(StatePublic):
    you: YouView


class WelcomeMessage(TypedDict):
    type: Literal["welcome"]
    room_id: str
    seat: int | None
    token: str | None
    guest: bool  # the seat plays as a guest: no player key, or the name is another key's
    autoplayed: NotRequired[list[AutoplayedMessage]]  # beyond PROTOCOL.md: played while away


class HistoryMessage(TypedDict):
    type: Literal["history"]
    rounds: list[RoundResultView]


class RoundResultMessage(RoundResultView):
    type: Literal["round_result"]


class ChatMessage(TypedDict):
    type: Literal["chat"]
    seat: int
    name: str
    text: str


class BidAction(TypedDict):
    type: Literal["bid"]
    quantity: int
    face: int


class CallAction(TypedDict):
    type: Literal["dudo", "calza"]


class AutoplayedMessage(TypedDict):
    type: Literal["autoplayed"]
    seat: int
    reason: AutoplayReason
    action: BidAction | CallAction


class BidEventPublic(TypedDict):
    """A bid event without `you`: the same for every connection that takes them."""

    type: Literal["bid"]
    seq: int
    seat: int
    quantity: int
    face: int
    turn: int
    turn_deadline: float | None
    autoplayed: NotRequired[AutoplayReason]  # beyond PROTOCOL.md: the bot made it for a person


class BidEventMessage(BidEventPublic):
    you: NotRequired[YouView]  # only when it differs from the last `you` sent


class ReactionMessage(TypedDict):
    type: Literal["reaction"]
    seat: int | None
    emoji: Emoji


class NoticeMessage(TypedDict):
    type: Literal["notice"]
    text: str


class ErrorMessage(TypedDict):
    type: Literal["error"]
    code: ErrorCode
    message: str


class PongMessage(TypedDict):
    type: Literal["pong"]


ServerMessage = (
    WelcomeMessage
    | HistoryMessage
    | StateMessage
    | RoundResultMessage
    | ChatMessage
    | AutoplayedMessage
    | BidEventMessage
    | ReactionMessage
    | NoticeMessage
    | ErrorMessage
    | PongMessage
)


def server_message_types() -> list[str]:
    """The `type` of every message the server may send (read off `ServerMessage`)."""
    return [get_args(get_type_hints(kind)["type"])[0] for kind in get_args(ServerMessage)]


def encode(message: ServerMessage) -> str:
    """A server message as the text of one frame."""
    return orjson.dumps(message).decode()


def error_frame(code: ErrorCode, message: str) -> str:
    return encode({"type": "error", "code": code, "message": message})


PONG = encode({"type": "pong"})
