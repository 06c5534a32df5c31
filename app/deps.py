"""What routes need from the running app, as FastAPI dependencies (HTTP and WebSocket)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from app.config import Settings
from app.db.repository import GameRepository
from app.db.stats import StatsRepository
from app.limits import RateLimits
from app.rooms import Registry


def get_settings(connection: HTTPConnection) -> Settings:
    settings: Settings = connection.app.state.settings
    return settings


def get_registry(connection: HTTPConnection) -> Registry:
    registry: Registry = connection.app.state.registry
    return registry


def get_games(connection: HTTPConnection) -> GameRepository:
    games: GameRepository = connection.app.state.games
    return games


def get_stats(connection: HTTPConnection) -> StatsRepository:
    stats: StatsRepository = connection.app.state.stats
    return stats


def get_rate_limits(connection: HTTPConnection) -> RateLimits:
    limits: RateLimits = connection.app.state.rate_limits
    return limits


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[Registry, Depends(get_registry)]
GamesDep = Annotated[GameRepository, Depends(get_games)]
StatsDep = Annotated[StatsRepository, Depends(get_stats)]
RateLimitsDep = Annotated[RateLimits, Depends(get_rate_limits)]
