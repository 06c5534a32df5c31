"""The JSON API's response models, each declared once: where the wire already has a shape
(a room as `GET /api/rooms/{id}` shows it, a finished round), the API takes the wire's own
TypedDict; the rest are pydantic models. OpenAPI shows them all."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, NotRequired, get_args, get_origin, get_type_hints, is_typeddict

import typing_extensions
from pydantic import BaseModel

from app import protocol
from app.engine import RoundRecordView
from app.protocol import RoomSettings

MAX_OFFSET = 2**31 - 1  # the largest `offset` a listing takes


def for_pydantic(shape: Any) -> Any:
    """`shape` with every TypedDict in it rebuilt as `typing_extensions.TypedDict`, which
    pydantic needs before Python 3.12 (the engine's shapes use the standard library's only)."""
    if is_typeddict(shape):
        hints = get_type_hints(shape)
        fields = {
            name: for_pydantic(kind)
            if name in shape.__required_keys__
            else NotRequired[for_pydantic(kind)]
            for name, kind in hints.items()
        }
        return typing_extensions.TypedDict(shape.__name__, fields)  # type: ignore[operator]
    origin = get_origin(shape)
    if origin is None or origin is Literal:
        return shape
    args = tuple(for_pydantic(arg) for arg in get_args(shape))
    if origin in (types.UnionType, typing.Union):
        return typing.Union[args]  # noqa: UP007
    return origin[args if len(args) > 1 else args[0]]


RoomInfo = for_pydantic(protocol.RoomInfo)
RoundRecord = for_pydantic(RoundRecordView)


class Detail(BaseModel):
    """Why a request was refused."""

    detail: str


def retry_later(description: str) -> dict[str, Any]:
    """An OpenAPI response that says when to try again (`Retry-After`, in seconds)."""
    return {
        "model": Detail,
        "description": description,
        "headers": {"Retry-After": {"description": "Seconds", "schema": {"type": "integer"}}},
    }


DATABASE_AWAY: dict[int | str, dict[str, Any]] = {
    503: retry_later("The database does not answer; try again soon")
}


class NewRoom(RoomSettings):
    """The body of `POST /api/rooms`: the room's settings, and the server's invite code when
    it sets `PERUDO_CREATE_CODE`."""

    create_code: str | None = None

    def settings(self) -> RoomSettings:
        return RoomSettings.model_validate(self.model_dump(exclude={"create_code"}))


class RoomCreated(BaseModel):
    room_id: str
    url: str


class Seated(BaseModel):
    seat: int
    name: str


class GamePlayer(BaseModel):
    seat: int
    name: str
    bot: bool
    place: int


class GameSummary(BaseModel):
    game_id: str
    room_id: str
    finished_at: str
    winner: Seated
    players: list[GamePlayer]


class GameList(BaseModel):
    games: list[GameSummary]


class GameDetail(BaseModel):
    game_id: str
    room_id: str
    started_at: str
    finished_at: str
    settings: dict[str, object]
    winner: Seated
    players: list[GamePlayer]
    rounds: list[RoundRecord]  # type: ignore[valid-type]


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable"]
    instance: str
