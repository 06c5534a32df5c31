"""The JSON API of PROTOCOL.md: rooms, finished games, health. Every route declares its
response model, so `/docs` shows the real API."""

from __future__ import annotations

import time
from collections import deque
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from app import metrics
from app.deps import GamesDep, RegistryDep, SettingsDep
from app.protocol import RoomSettings
from app.rooms.messages import room_info
from app.rooms.registry import ELSEWHERE

router = APIRouter()
MAX_OFFSET = 2**31 - 1
CREATION_WINDOW = 60.0  # seconds: PERUDO_ROOMS_PER_MINUTE counts creations within it


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


class RoomCreated(BaseModel):
    room_id: str
    url: str


class RoomPlayer(BaseModel):
    seat: int
    name: str
    bot: bool


class RoomInfo(BaseModel):
    room_id: str
    phase: Literal["lobby", "playing", "finished"]
    players: list[RoomPlayer]
    settings: RoomSettings


class Seated(BaseModel):
    seat: int
    name: str


class GamePlayer(RoomPlayer):
    place: int


class GameSummary(BaseModel):
    game_id: str
    room_id: str
    finished_at: str
    winner: Seated
    players: list[GamePlayer]


class GameList(BaseModel):
    games: list[GameSummary]


class BidRecord(BaseModel):
    quantity: int
    face: int
    seat: int


class Reveal(BaseModel):
    seat: int
    dice: list[int]


class RoundOutcome(BaseModel):
    """A `round_result` without its `type`."""

    round: int
    call: Literal["dudo", "calza"]
    caller: int
    bid: BidRecord
    palifico: bool
    reveal: list[Reveal]
    count: int
    loser: int | None
    gainer: int | None
    eliminated: int | None
    next_opener: int | None
    winner: int | None


class PlayedRound(BaseModel):
    number: int
    palifico: bool
    palifico_seat: int | None
    opener: int
    dice: list[Reveal]
    bids: list[BidRecord]
    result: RoundOutcome


class GameDetail(BaseModel):
    game_id: str
    room_id: str
    started_at: str
    finished_at: str
    settings: dict[str, object]
    winner: Seated
    players: list[GamePlayer]
    rounds: list[PlayedRound]


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable"]
    instance: str


async def database_away(request: Request, error: Exception) -> JSONResponse:
    """A history or stats query while the database does not answer: 503, try again soon
    (live games never wait on the database)."""
    return JSONResponse(
        {"detail": "The database does not answer; try again soon."},
        status_code=503,
        headers={"Retry-After": "5"},
    )


class CreationLimiter:
    """Rooms created per client address within the last minute (PERUDO_ROOMS_PER_MINUTE).

    Only the last minute's creations are held: an address whose creations are all older is
    forgotten, so the addresses seen over a server's life do not pile up.
    """

    def __init__(self) -> None:
        self._created: dict[str, deque[float]] = {}  # per address, oldest first
        self._order: deque[tuple[float, str]] = deque()  # every address's, oldest first

    def __len__(self) -> int:
        """Addresses with a creation in the last minute."""
        return len(self._created)

    def retry_after(self, address: str, per_minute: int) -> int | None:
        """Seconds until `address` may create a room, or None (and, under a limit, the creation
        is counted)."""
        now = time.monotonic()
        self._forget_before(now - CREATION_WINDOW)
        if not per_minute:
            return None
        times = self._created.setdefault(address, deque())
        if len(times) >= per_minute:
            return max(1, int(times[0] + CREATION_WINDOW - now + 1))
        times.append(now)
        self._order.append((now, address))
        return None

    def _forget_before(self, start: float) -> None:
        while self._order and self._order[0][0] <= start:
            _, address = self._order.popleft()
            times = self._created[address]
            times.popleft()
            if not times:
                del self._created[address]


@router.post(
    "/api/rooms",
    status_code=201,
    responses={
        429: retry_later("This address created too many rooms in the last minute"),
        503: retry_later("The server holds as many rooms as it may"),
    },
)
async def create_room(
    request: Request, registry: RegistryDep, settings: SettingsDep, body: RoomSettings | None = None
) -> RoomCreated:
    """A new room; every setting is optional (no body at all means the defaults)."""
    if len(registry) >= settings.max_rooms:
        raise HTTPException(503, "The server holds as many rooms as it may.", {"Retry-After": "60"})
    limiter: CreationLimiter = request.app.state.creations
    address = request.client.host if request.client else "unknown"
    wait = limiter.retry_after(address, settings.rooms_per_minute)
    if wait is not None:
        raise HTTPException(429, "Too many new rooms; try again soon.", {"Retry-After": str(wait)})
    room = registry.create(body or RoomSettings())
    await registry.publish(room)
    return RoomCreated(room_id=room.room_id, url=f"/r/{room.room_id}")


@router.get("/api/rooms/{room_id}", responses={404: {"description": "No such room"}})
async def get_room(room_id: str, registry: RegistryDep) -> RoomInfo:
    room = await registry.open(room_id)
    if room is None:
        raise HTTPException(404, "No such room.")
    if room is ELSEWHERE:
        raise HTTPException(503, "The room is moving between instances.", {"Retry-After": "1"})
    return RoomInfo.model_validate(room_info(room.state))


@router.get("/api/games", responses=DATABASE_AWAY)
def list_games(
    games: GamesDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> GameList:
    """Finished games, newest first (a sync route: FastAPI runs it in a worker thread)."""
    return GameList.model_validate({"games": games.list_games(limit, offset)})


@router.get(
    "/api/games/{game_id}", responses={404: {"description": "No such game"}, **DATABASE_AWAY}
)
def get_game(game_id: str, games: GamesDep) -> GameDetail:
    game = games.get_game(game_id)
    if game is None:
        raise HTTPException(404, "No such game.")
    return GameDetail.model_validate(game)


@router.get("/metrics", response_class=Response)
async def prometheus(registry: RegistryDep) -> Response:
    """Prometheus text format: rooms by phase, sockets, games, actions, latencies, failures."""
    metrics.count_rooms(room.state.phase for room in registry)
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


@router.get("/healthz", responses={503: {"model": Health, "description": "Database down"}})
def healthz(games: GamesDep, settings: SettingsDep, response: Response) -> Health:
    """Whether the database answers, and which instance this is; live games go on without
    the database (a sync route: the probe runs in a worker thread)."""
    if not games.ping():
        response.status_code = 503
        return Health(status="degraded", database="unreachable", instance=settings.instance)
    return Health(status="ok", database="ok", instance=settings.instance)
