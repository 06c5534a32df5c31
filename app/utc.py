"""Moments as the ISO-8601 UTC text that game records and the API carry: written once here."""

from __future__ import annotations

from datetime import UTC, datetime


def format_utc(moment: datetime) -> str:
    """The ISO-8601 UTC text every record and API answer uses, e.g.
    `2025-01-02T03:04:05.678901+00:00`."""
    return moment.astimezone(UTC).isoformat()


def parse_utc(text: str) -> datetime:
    """An ISO-8601 timestamp with a zone (`Z` or an offset), as an aware datetime."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {text!r}")
    return moment.astimezone(UTC)


def utc_now() -> str:
    """Now, as `format_utc` writes it."""
    return format_utc(datetime.now(UTC))
