"""The JSON API of PROTOCOL.md: rooms, finished games, health. Every route declares its
response model, so `/docs` shows the real API."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse

from app import metrics, protocol
from app.rooms.messages import room_info
from app.rooms.registry import ELSEWHERE
from app.web.deps import GamesDep, RegistryDep, SettingsDep
from app.web.limits import CreationLimiter, same_secret
from app.web.models import (
    DATABASE_AWAY,
    MAX_OFFSET,
    Detail,
    GameDetail,
    GameList,
    Health,
    NewRoom,
    RoomCreated,
    RoomInfo,
    retry_later,
)

router = APIRouter()


async def database_away(request: Request, error: Exception) -> JSONResponse:
    """A history or stats query while the database does not answer: 503, try again soon
    (live games never wait on the database)."""
    return JSONResponse(
        {"detail": "The database does not answer; try again soon."},
        status_code=503,
        headers={"Retry-After": "5"},
    )


@router.post(
    "/api/rooms",
    status_code=201,
    responses={
        403: {"model": Detail, "description": "The server's invite code is missing or wrong"},
        429: retry_later("This address created too many rooms in the last minute"),
        503: retry_later("The server holds as many rooms as it may"),
    },
)
async def create_room(
    request: Request, registry: RegistryDep, settings: SettingsDep, body: NewRoom | None = None
) -> RoomCreated:
    """A new room; every setting is optional (no body at all means the defaults). It is
    written to the database, and taken by an instance on its first use."""
    body = body or NewRoom()
    if settings.create_code and not same_secret(body.create_code, settings.create_code):
        raise HTTPException(403, "Creating a room on this server needs its invite code.")
    if len(registry) >= settings.max_rooms:
        raise HTTPException(503, "The server holds as many rooms as it may.", {"Retry-After": "60"})
    limiter: CreationLimiter = request.app.state.creations
    address = request.client.host if request.client else "unknown"
    wait = limiter.retry_after(address, settings.rooms_per_minute)
    if wait is not None:
        raise HTTPException(429, "Too many new rooms; try again soon.", {"Retry-After": str(wait)})
    room = registry.create(body.settings())
    await registry.publish(room)
    return RoomCreated(room_id=room.room_id, url=f"/r/{room.room_id}")


@router.get(
    "/api/rooms/{room_id}",
    response_model=RoomInfo,
    responses={404: {"description": "No such room"}},
)
async def get_room(room_id: str, registry: RegistryDep) -> protocol.RoomInfo:
    room = await registry.open(room_id)
    if room is None:
        raise HTTPException(404, "No such room.")
    if room is ELSEWHERE:
        raise HTTPException(503, "The room is moving between instances.", {"Retry-After": "1"})
    return room_info(room.state)


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
