"""The application: `create_app()` wires settings, database, rooms, API, socket and pages."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from app import api, web, ws
from app.config import Settings
from app.db.migrate import upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.limits import RateLimits
from app.rooms import AsyncioScheduler, Registry, RoomConfig, Scheduler

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
SWEEP_EVERY_SECONDS = 30.0
SNAPSHOT_EVERY_SECONDS = 1.0  # the most play a crash can lose; a clean stop loses none

logger = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None,
    *,
    scheduler: Scheduler | None = None,
    rate_limits: RateLimits | None = None,
) -> FastAPI:
    """The ASGI app (`uvicorn --factory app.main:create_app`).

    Tests pass their own settings, a manual clock, or looser limits for scripted players.
    """
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.migrate_on_start:
            await asyncio.to_thread(upgrade, settings.database_url)
        engine = make_engine(settings.database_url)
        games = GameRepository(engine)
        registry = Registry(
            scheduler=scheduler or AsyncioScheduler(),
            config=RoomConfig(
                bot_delay=settings.bot_delay_ms / 1000,
                disconnect_grace=settings.disconnect_grace_seconds,
                room_sockets=settings.room_sockets,
            ),
            store=games,
            lobby_ttl=settings.lobby_ttl_seconds,
            finished_ttl=settings.finished_ttl_seconds,
            snapshots=games,
        )
        restored = await registry.restore()
        if restored:
            logger.info("restored %d live rooms from their snapshots", restored)
        app.state.games = games
        app.state.registry = registry
        background = [
            asyncio.create_task(_sweep_forever(registry)),
            asyncio.create_task(_flush_forever(registry)),
        ]
        try:
            yield
        finally:
            for task in background:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await registry.close()
            engine.dispose()

    app = FastAPI(title="perudo", lifespan=lifespan)
    app.state.settings = settings
    app.state.rate_limits = rate_limits or RateLimits()
    app.state.creations = api.CreationLimiter()
    if settings.origins():
        app.add_middleware(
            CORSMiddleware,
            allow_origins=sorted(settings.origins()),
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type"],
        )
    app.include_router(api.router)
    app.include_router(ws.router)
    app.include_router(web.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


async def _sweep_forever(registry: Registry) -> None:
    """Drop idle lobbies and finished rooms from memory, now and then."""
    while True:
        await asyncio.sleep(SWEEP_EVERY_SECONDS)
        await registry.sweep()


async def _flush_forever(registry: Registry) -> None:
    """Snapshot the games in play now and then, so a restart does not end them."""
    while True:
        await asyncio.sleep(SNAPSHOT_EVERY_SECONDS)
        await registry.flush()
