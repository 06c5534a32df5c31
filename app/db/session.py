"""Engine creation: the one place that knows backend quirks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url

SQLITE_BUSY_TIMEOUT_MS = 5000
# A database that is away must answer fast, never hang a request or a worker thread: give up
# connecting after a few seconds, drop a connection whose peer stopped acknowledging (network
# cut), and cancel a statement the server sits on.
CONNECT_TIMEOUT_SECONDS = 3
STATEMENT_TIMEOUT_MS = 15_000
TCP_USER_TIMEOUT_MS = 10_000
POOL_TIMEOUT_SECONDS = 5.0


def dump_json(value: Any) -> str:
    """The JSON text a JSON column stores for `value`."""
    return orjson.dumps(value).decode()


# JSON columns are read and written with orjson: several times faster than the standard
# library, and it writes the pre-encoded `orjson.Fragment`s a room's journal snapshot holds.
JSON_CODEC: dict[str, Any] = {"json_serializer": dump_json, "json_deserializer": orjson.loads}


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite gets its directory created, WAL and a busy timeout.

    WAL lets the history pages read while a finished game is written; the busy timeout makes
    a writer wait for a lock instead of failing at once. No engine puts statement parameters
    in its errors: a room's journal holds its seats' tokens, and errors are logged.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        return create_engine(
            parsed,
            **JSON_CODEC,
            pool_pre_ping=True,
            pool_timeout=POOL_TIMEOUT_SECONDS,
            hide_parameters=True,
            connect_args=_postgres_timeouts(parsed),
        )
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, **JSON_CODEC, pool_pre_ping=True, hide_parameters=True)
    database = parsed.database
    pooled: dict[str, Any] = {}
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        # The connection used last goes out again: SQLite empties a connection's page cache
        # whenever another one wrote, and with the pool's default (first in, first out) every
        # journal batch re-read its pages (a tenth of the writer thread's CPU at 500 bids/s).
        pooled["pool_use_lifo"] = True
    engine = create_engine(parsed, **JSON_CODEC, hide_parameters=True, **pooled)
    event.listen(engine, "connect", _configure_sqlite)
    return engine


def _postgres_timeouts(url: URL) -> dict[str, Any]:
    """libpq connection parameters that bound every wait on the server; a `connect_timeout`
    or `options` already in `url` are kept (the statement timeout is added to the options)."""
    query = url.query
    options = query.get("options", "")
    if isinstance(options, tuple):
        options = " ".join(options)
    if "statement_timeout" not in options:
        options = f"{options} -c statement_timeout={STATEMENT_TIMEOUT_MS}".strip()
    return {
        "connect_timeout": query.get("connect_timeout", CONNECT_TIMEOUT_SECONDS),
        "options": options,
        "keepalives": 1,
        "keepalives_idle": 5,
        "keepalives_interval": 2,
        "keepalives_count": 3,
        "tcp_user_timeout": TCP_USER_TIMEOUT_MS,
    }


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        # A commit is durable across a crash of the process (SIGKILL), not of the machine,
        # without an fsync per commit: a fifth of a small journal batch's CPU (WAL's usual mode).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        # A statement journal (a DELETE of many rows inside the journal's transaction) in
        # memory, not a new file in /var/tmp created and removed for every batch.
        cursor.execute("PRAGMA temp_store=MEMORY")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()
