"""Settings come from PERUDO_* environment variables."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import Settings


def test_environment_variables_configure_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERUDO_DATABASE_URL", "postgresql+psycopg://perudo@db/perudo")
    monkeypatch.setenv("PERUDO_ALLOWED_ORIGINS", " https://a.example, https://b.example/ ,")
    monkeypatch.setenv("PERUDO_BOT_DELAY_MS", "0")
    monkeypatch.setenv("PERUDO_MIGRATE_ON_START", "false")
    settings = Settings()
    assert settings.database_url == "postgresql+psycopg://perudo@db/perudo"
    assert settings.origins() == {"https://a.example", "https://b.example"}
    assert settings.bot_delay_ms == 0 and settings.migrate_on_start is False


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "ALLOWED_ORIGINS", "BOT_DELAY_MS", "MIGRATE_ON_START"):
        monkeypatch.delenv(f"PERUDO_{name}", raising=False)
    settings = Settings()
    assert settings.database_url == "sqlite:///./data/perudo.db"
    assert settings.origins() == frozenset()
    assert settings.bot_delay_ms == 900 and settings.migrate_on_start is True


def test_nonsense_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERUDO_BOT_DELAY_MS", "-5")
    with pytest.raises(ValidationError):
        Settings()
