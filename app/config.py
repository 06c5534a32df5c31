"""Server settings: one `Settings` object, read from `PERUDO_*` environment variables."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator may tune; tests build one with explicit values."""

    model_config = SettingsConfigDict(env_prefix="PERUDO_", extra="ignore")

    database_url: str = "sqlite:///./data/perudo.db"
    allowed_origins: str = ""
    bot_delay_ms: int = Field(900, ge=0)
    # A bot-played turn waits this long after a bid while a connected person may call calza.
    calza_window_ms: int = Field(2000, ge=0)
    disconnect_grace_seconds: float = Field(20.0, ge=0)
    lobby_ttl_seconds: float = Field(1800.0, gt=0)
    finished_ttl_seconds: float = Field(1800.0, gt=0)
    migrate_on_start: bool = True
    log_json: bool = False  # JSON lines on stderr (read by `perudo serve`)
    instance: str = ""  # sent as X-Perudo-Instance; `perudo serve` defaults it to host:port
    hello_seconds: float = Field(10.0, gt=0)
    room_sockets: int = Field(32, ge=1)
    rooms_per_minute: int = Field(30, ge=0)  # per client address; 0 = no limit
    max_rooms: int = Field(10_000, ge=1)
    create_code: str = ""  # set: creating a room needs it (invite-only); joining never does
    admin_token: str = ""  # set: the operator's console at /admin and /api/admin/ is on

    def origins(self) -> frozenset[str]:
        """`allowed_origins` as a set of exact origins (comma-separated, no trailing slash)."""
        return frozenset(
            part.strip().rstrip("/") for part in self.allowed_origins.split(",") if part.strip()
        )
