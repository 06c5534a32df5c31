"""What routes need from the running app, as FastAPI dependencies (HTTP and WebSocket).

They are `async def` so FastAPI calls them on the event loop; a plain `def` dependency would
cost every request and every socket a trip through the thread pool.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from app.config import Settings
from app.db.claims import ClaimsRepository
from app.db.repository import GameRepository
from app.db.stats import StatsRepository
from app.rooms import Registry
from app.web.limits import RateLimits


async def get_settings(connection: HTTPConnection) -> Settings:
    return cast(Settings, connection.app.state.settings)


async def get_registry(connection: HTTPConnection) -> Registry:
    return cast(Registry, connection.app.state.registry)


async def get_games(connection: HTTPConnection) -> GameRepository:
    return cast(GameRepository, connection.app.state.games)


async def get_stats(connection: HTTPConnection) -> StatsRepository:
    return cast(StatsRepository, connection.app.state.stats)


async def get_claims(connection: HTTPConnection) -> ClaimsRepository:
    return cast(ClaimsRepository, connection.app.state.claims)


async def get_rate_limits(connection: HTTPConnection) -> RateLimits:
    return cast(RateLimits, connection.app.state.rate_limits)


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[Registry, Depends(get_registry)]
GamesDep = Annotated[GameRepository, Depends(get_games)]
StatsDep = Annotated[StatsRepository, Depends(get_stats)]
ClaimsDep = Annotated[ClaimsRepository, Depends(get_claims)]
RateLimitsDep = Annotated[RateLimits, Depends(get_rate_limits)]
