"""The application: `create_app()` wires settings, database, rooms, API, socket and pages."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import OperationalError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import garbage, metrics
from app.config import Settings
from app.db.claims import ClaimsRepository
from app.db.console import ConsoleRepository
from app.db.journal import JournalRepository
from app.db.leases import LeaseRepository
from app.db.migrate import upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.db.stats import StatsRepository
from app.engine.headsup import loaded_tables, use_tables
from app.paths import STATIC_DIR, headsup_tables
from app.rooms import AsyncioScheduler, Registry, RoomConfig, Scheduler, thinking
from app.rooms.journal import Journal
from app.rooms.ownership import RENEW_SECONDS, Ownership
from app.web import admin, api, devices, pages, players, security, ws
from app.web.limits import CreationLimiter, RateLimits

SWEEP_EVERY_SECONDS = 30.0

logger = logging.getLogger(__name__)


class InstanceHeader:
    """Every HTTP response says which instance answered (`X-Perudo-Instance`), so operators
    and tests behind a load balancer see where a room lives."""

    def __init__(self, app: ASGIApp, name: str) -> None:
        self._app = app
        self._header = (b"x-perudo-instance", name.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self._app(scope, receive, send)

        async def send_with_name(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), self._header]
            await send(message)

        await self._app(scope, receive, send_with_name)


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
    if not settings.instance:
        settings = settings.model_copy(update={"instance": socket.gethostname()})
    metrics.GcPauses.install()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.migrate_on_start:
            await asyncio.to_thread(upgrade, settings.database_url)
        engine = make_engine(settings.database_url)
        games = GameRepository(engine)
        journal_store = JournalRepository(engine)
        journal = Journal(journal_store)
        ownership = Ownership(LeaseRepository(engine), settings.instance)
        registry = Registry(
            scheduler=scheduler or AsyncioScheduler(),
            config=RoomConfig(
                bot_delay=settings.bot_delay_ms / 1000,
                calza_window=settings.calza_window_ms / 1000,
                disconnect_grace=settings.disconnect_grace_seconds,
                room_sockets=settings.room_sockets,
            ),
            store=games,
            lobby_ttl=settings.lobby_ttl_seconds,
            finished_ttl=settings.finished_ttl_seconds,
            journal=journal,
            ownership=ownership,
        )
        use_tables(headsup_tables)
        await asyncio.to_thread(loaded_tables)  # the expert bot's, before any room needs them
        restored = await registry.restore()
        if restored:
            logger.info("restored %d live rooms from the journal", restored)
        garbage.settle()
        app.state.games = games
        app.state.journal_store = journal_store  # what the journal wrote (tests read it)
        app.state.stats = StatsRepository(engine)
        app.state.claims = ClaimsRepository(engine)
        app.state.registry = registry
        app.state.console = console = ConsoleRepository(engine)
        background = [
            asyncio.create_task(_sweep_forever(registry)),
            asyncio.create_task(journal.run()),
            asyncio.create_task(_hold_forever(registry)),
            asyncio.create_task(garbage.collect_young_forever()),
        ]
        if settings.admin_token:
            stop = lambda: app.state.stop_instance()  # noqa: E731 (tests replace it)
            obeying = admin.obey_forever(registry, console, settings.instance, stop)
            background.append(asyncio.create_task(obeying))
        try:
            yield
        finally:
            for task in background:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await registry.close()
            thinking.stop()  # the expert bots' process
            engine.dispose()

    app = FastAPI(title="perudo", lifespan=lifespan)
    app.state.settings = settings
    app.state.rate_limits = rate_limits or RateLimits()
    app.state.creations = CreationLimiter()
    # Drained from the console: stop as SIGTERM does (uvicorn stops cleanly, leases freed).
    app.state.stop_instance = lambda: signal.raise_signal(signal.SIGTERM)
    if settings.origins():
        app.add_middleware(
            CORSMiddleware,
            allow_origins=sorted(settings.origins()),
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type"],
        )
    app.add_middleware(InstanceHeader, name=settings.instance)
    security.install(app)
    app.add_exception_handler(OperationalError, api.database_away)
    app.include_router(api.router)
    app.include_router(admin.router)
    app.include_router(players.router)
    app.include_router(devices.router)
    app.include_router(ws.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


async def _sweep_forever(registry: Registry) -> None:
    """Drop idle lobbies and finished rooms from memory, now and then."""
    while True:
        await asyncio.sleep(SWEEP_EVERY_SECONDS)
        await registry.sweep()


async def _hold_forever(registry: Registry) -> None:
    """Renew this instance's room leases, handing over the rooms another instance wants (the
    first heartbeat at once, so the console lists an instance from its start)."""
    while True:
        try:
            await registry.hold()
        except Exception:  # the database is away: the leases are renewed when it is back
            logger.exception("could not renew the room leases")
        await asyncio.sleep(RENEW_SECONDS)
