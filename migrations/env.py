"""Alembic environment: URL from the app settings (or the caller), metadata from the models."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import text

from app.config import Settings
from app.db.models import Base
from app.db.session import make_engine

config = context.config
target_metadata = Base.metadata
MIGRATION_LOCK = 0x7065_7275_646F  # "perudo": the advisory lock key of migrations

if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    """The URL handed over by `app.db.migrate.upgrade(url)`, else Settings (PERUDO_DATABASE_URL)."""
    override: str | None = config.attributes.get("database_url")
    return override or Settings().database_url


def run_migrations_offline() -> None:
    """Emit the SQL (`alembic upgrade head --sql`) without connecting."""
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate through the same engine set-up the app uses (SQLite pragmas, directory)."""
    engine = make_engine(database_url())
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=connection.dialect.name == "sqlite",
            )
            with context.begin_transaction():
                if connection.dialect.name == "postgresql":
                    # Instances starting together on an empty database migrate one at a
                    # time; the next one re-reads the revision after the lock and does nothing.
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                    )
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
