"""Run the Alembic migrations from code (server start-up, tests), from any working directory."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.paths import ALEMBIC_INI


def alembic_config(url: str) -> Config:
    """The repository's Alembic configuration aimed at `url`.

    The URL travels as an attribute (no ini interpolation of `%` in it), and
    `configure_logger=False` keeps env.py from replacing the host's logging set-up.
    """
    config = Config(str(ALEMBIC_INI))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    return config


def upgrade(url: str) -> None:
    """Bring the database at `url` to the newest schema (`alembic upgrade head`)."""
    command.upgrade(alembic_config(url), "head")
