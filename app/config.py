"""Server settings: one `Settings` object, read from `PERUDO_*` environment variables."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator may tune; tests build one with explicit values."""

    model_config = SettingsConfigDict(env_prefix="PERUDO_", extra="ignore")

    database_url: str = "sqlite:///./data/perudo.db"
    allowed_origins: str = ""
    bot_delay_ms: int = 900
    disconnect_grace_seconds: float = 20.0
    lobby_ttl_seconds: float = 1800.0
    finished_ttl_seconds: float = 1800.0
    migrate_on_start: bool = True

    def origins(self) -> frozenset[str]:
        """`allowed_origins` as a set of exact origins (comma-separated, no trailing slash)."""
        return frozenset(
            part.strip().rstrip("/") for part in self.allowed_origins.split(",") if part.strip()
        )
