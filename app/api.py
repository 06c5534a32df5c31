"""The JSON API of PROTOCOL.md: rooms, finished games, health."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request

from app.db.repository import GameRepository
from app.protocol import RoomSettings
from app.rooms import Registry

router = APIRouter()
MAX_OFFSET = 2**31 - 1


def get_registry(request: Request) -> Registry:
    registry: Registry = request.app.state.registry
    return registry


def get_games(request: Request) -> GameRepository:
    games: GameRepository = request.app.state.games
    return games


RegistryDep = Annotated[Registry, Depends(get_registry)]
GamesDep = Annotated[GameRepository, Depends(get_games)]


@router.post("/api/rooms", status_code=201)
async def create_room(
    registry: RegistryDep, settings: RoomSettings | None = None
) -> dict[str, str]:
    """A new room; every setting is optional (no body at all means the defaults)."""
    room = registry.create(settings or RoomSettings())
    return {"room_id": room.room_id, "url": f"/r/{room.room_id}"}


@router.get("/api/rooms/{room_id}")
async def get_room(room_id: str, registry: RegistryDep) -> dict[str, Any]:
    room = registry.get(room_id)
    if room is None:
        raise HTTPException(404, "No such room.")
    return room.info()


@router.get("/api/games")
def list_games(
    games: GamesDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict[str, list[dict[str, Any]]]:
    """Finished games, newest first (a sync route: FastAPI runs it in a worker thread)."""
    return {"games": games.list_games(limit, offset)}


@router.get("/api/games/{game_id}")
def get_game(game_id: str, games: GamesDep) -> dict[str, Any]:
    game = games.get_game(game_id)
    if game is None:
        raise HTTPException(404, "No such game.")
    return game


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}
