"""Names nobody else can take: player keys, the names they claimed, and device links.

A client holds a player key (at least 128 random bits: the `perudo_player` cookie, or the
hello's `player_key`). The first key to finish a game under a name claims it (`save_game`
sets `player_stats.owner`); another key, or none, under that name plays as a guest whose
games never count for the owner. Keys are stored as their SHA-256 only, except for the ten
minutes a device link carries one to another browser.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, select

from app.db.models import DeviceLinkRow, PlayerStatsRow

PLAYER_KEY_BYTES = 24  # 192 random bits
MIN_PLAYER_KEY_LENGTH = 22  # 128 bits in URL-safe base64
MAX_PLAYER_KEY_LENGTH = 128
LINK_LIFETIME = timedelta(minutes=10)
# Codes to read aloud or type on a phone: no 0/O, 1/I/L; 10 characters = 50 bits.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 10


def new_player_key() -> str:
    """A fresh player key, for a browser's first visit."""
    return secrets.token_urlsafe(PLAYER_KEY_BYTES)


def well_formed(player_key: str | None) -> bool:
    """Whether `player_key` could be a key at all: long enough to hold 128 random bits."""
    return (
        player_key is not None
        and MIN_PLAYER_KEY_LENGTH <= len(player_key) <= MAX_PLAYER_KEY_LENGTH
        and player_key.isascii()
        and player_key.isprintable()
    )


def key_hash(player_key: str) -> str:
    """What the database keeps of a key (it is a credential: a copy of the table gives none)."""
    return hashlib.sha256(player_key.encode()).hexdigest()


def normal_code(code: str) -> str:
    """A typed code as issued: upper case, without the spaces and dashes people add."""
    return "".join(code.split()).replace("-", "").upper()


def _code_hash(code: str) -> str:
    return hashlib.sha256(normal_code(code).encode()).hexdigest()


class ClaimsRepository:
    """Who owns which name, and the one-time device links (sync: call it in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def owner(self, name: str) -> str | None:
        """The key hash that claimed `name` (matched ignoring case), or None."""
        with self._engine.connect() as connection:
            return connection.scalar(
                select(PlayerStatsRow.owner).where(PlayerStatsRow.name_key == name.casefold())
            )

    def guest(self, name: str, player_key: str | None) -> bool:
        """Whether a seat under `name` with `player_key` plays as a guest: it has no key, or
        the name belongs to another key. One primary-key read."""
        if player_key is None:
            return True
        owner = self.owner(name)
        return owner is not None and owner != key_hash(player_key)

    def owns(self, name: str, player_key: str | None) -> bool:
        """Whether `player_key` claimed `name`."""
        return player_key is not None and self.owner(name) == key_hash(player_key)

    def create_link(self, player_key: str, now: datetime | None = None) -> tuple[str, datetime]:
        """A one-time code that hands `player_key` to another device, and when it expires.
        Expired links are swept out here."""
        now = now or datetime.now(UTC)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        expires_at = now + LINK_LIFETIME
        with self._engine.begin() as connection:
            connection.execute(delete(DeviceLinkRow).where(DeviceLinkRow.expires_at <= now))
            connection.execute(
                DeviceLinkRow.__table__.insert(),  # type: ignore[attr-defined]
                {"code_hash": _code_hash(code), "player_key": player_key, "expires_at": expires_at},
            )
        return code, expires_at

    def redeem(self, code: str, now: datetime | None = None) -> str | None:
        """The key a live code carries, the code used up; None for an unknown, used or
        expired code."""
        now = now or datetime.now(UTC)
        link = DeviceLinkRow
        with self._engine.begin() as connection:
            player_key = connection.scalar(
                delete(link)
                .where(link.code_hash == _code_hash(code), link.expires_at > now)
                .returning(link.player_key)
            )
        return player_key
