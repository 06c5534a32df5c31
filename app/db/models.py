"""Tables for finished games: one row per game, per seat and per round.

Dice, bids and round results stay JSON (they are only ever read whole, in replay order);
everything one filters or sorts on (finished_at, winner, names, places) is a real column.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    TypeDecorator,
    false,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Stable constraint names, so later Alembic migrations can alter them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# A name casefolds to at most three characters per character ("ß" -> "ss", "ΐ" -> three).
NAME_KEY_LENGTH = 3 * 64
KEY_HASH_LENGTH = 64  # a SHA-256 in hex
# A player nobody has rated yet: openskill's Plackett-Luce defaults (mu 25, sigma 25/3) and
# its ordinal, mu - 3 sigma; tests/db/test_ratings.py checks them against the library.
INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3
INITIAL_LOW = INITIAL_MU - 3 * INITIAL_SIGMA

# JSONB on PostgreSQL (indexable, comparable); plain JSON text elsewhere.
Json = JSON().with_variant(JSONB(), "postgresql")


class UtcDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on every backend (SQLite keeps no zone, PostgreSQL any zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: store aware UTC times only")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class GameRow(Base):
    """A finished game."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_finished_at_id", "finished_at", "id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    room_id: Mapped[str] = mapped_column(String(64), index=True)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime] = mapped_column(UtcDateTime())
    settings: Mapped[dict[str, Any]] = mapped_column(Json)
    winner_seat: Mapped[int] = mapped_column(Integer)
    # Where the game's rating update falls among the others (app/db/ratings.py); null for a
    # game that rated nobody, or one saved before ratings.
    rating_seq: Mapped[int | None] = mapped_column(Integer)

    players: Mapped[list[PlayerRow]] = relationship(
        back_populates="game",
        order_by="PlayerRow.seat",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )
    rounds: Mapped[list[RoundRow]] = relationship(
        back_populates="game",
        order_by="RoundRow.number",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class PlayerRow(Base):
    """One seat of a finished game and where it finished (1 = winner).

    The columns after `place` feed the player stats (app/db/stats.py): the name as they are
    grouped (casefolded; null for a bot or a guest), the game's end, and the seat's dudo and
    calza calls. A bot's `level` names its rating; `mu` and `sigma` are the seat's rating after
    the game (app/db/ratings.py), null for a seat the game did not rate.
    """

    __tablename__ = "game_players"
    __table_args__ = (
        # Covers the stats' GROUP BY name_key, and a name's latest game by one seek.
        Index(
            "ix_game_players_stats",
            "name_key",
            "finished_at",
            "place",
            "dudo_calls",
            "dudo_wins",
            "calza_calls",
            "calza_wins",
        ),
    )

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    bot: Mapped[bool] = mapped_column(Boolean)
    place: Mapped[int] = mapped_column(Integer)
    name_key: Mapped[str | None] = mapped_column(String(NAME_KEY_LENGTH))
    finished_at: Mapped[datetime] = mapped_column(UtcDateTime())
    dudo_calls: Mapped[int] = mapped_column(Integer, server_default="0")
    dudo_wins: Mapped[int] = mapped_column(Integer, server_default="0")
    calza_calls: Mapped[int] = mapped_column(Integer, server_default="0")
    calza_wins: Mapped[int] = mapped_column(Integer, server_default="0")
    guest: Mapped[bool] = mapped_column(Boolean, server_default=false())
    level: Mapped[str | None] = mapped_column(String(16))
    mu: Mapped[float | None] = mapped_column(Float)
    sigma: Mapped[float | None] = mapped_column(Float)

    game: Mapped[GameRow] = relationship(back_populates="players")


class PlayerStatsRow(Base):
    """One person's running totals over their finished games, kept by `save_game` in the
    game's own transaction, so the leaderboard reads a page of rows instead of summing seats.

    `name` is the spelling of their latest game, the one ending last (`latest_at`, then the
    highest `latest_game` id among games ending together), whatever order games are saved in.
    The rating columns are app/db/ratings.py's; `owner` is the SHA-256 of the player key that
    claimed the name (app/db/claims.py), null while nobody has.
    """

    __tablename__ = "player_stats"

    name_key: Mapped[str] = mapped_column(String(NAME_KEY_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    latest_at: Mapped[datetime] = mapped_column(UtcDateTime())
    latest_game: Mapped[str] = mapped_column(String(32))
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    place_sum: Mapped[int] = mapped_column(Integer)
    dudo_calls: Mapped[int] = mapped_column(Integer)
    dudo_wins: Mapped[int] = mapped_column(Integer)
    calza_calls: Mapped[int] = mapped_column(Integer)
    calza_wins: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float, server_default=text(repr(INITIAL_MU)))
    sigma: Mapped[float] = mapped_column(Float, server_default=text(repr(INITIAL_SIGMA)))
    rating_low: Mapped[float] = mapped_column(Float, server_default=text(repr(INITIAL_LOW)))
    rated_games: Mapped[int] = mapped_column(Integer, server_default="0")
    rating_seq: Mapped[int] = mapped_column(Integer, server_default="0")
    owner: Mapped[str | None] = mapped_column(String(KEY_HASH_LENGTH), index=True)


class BotRatingRow(Base):
    """The rating of the bots of one level, all of them one player (app/db/ratings.py)."""

    __tablename__ = "bot_ratings"

    level: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating_low: Mapped[float] = mapped_column(Float)
    rated_games: Mapped[int] = mapped_column(Integer)
    rating_seq: Mapped[int] = mapped_column(Integer)


class DeviceLinkRow(Base):
    """A one-time code that hands a player key to another device, until `expires_at`.

    The code is kept as its SHA-256; the key itself must be kept, to be handed over.
    """

    __tablename__ = "device_links"

    code_hash: Mapped[str] = mapped_column(String(KEY_HASH_LENGTH), primary_key=True)
    player_key: Mapped[str] = mapped_column(String(128))
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


# The leaderboard's orders (app/db/stats.py `_order`), each read straight off an index; by
# name it is the primary key.
_stats = PlayerStatsRow
Index("ix_player_stats_wins", _stats.wins.desc(), _stats.games, _stats.name_key)
Index("ix_player_stats_games", _stats.games.desc(), _stats.wins.desc(), _stats.name_key)
Index("ix_player_stats_rating", _stats.rating_low.desc(), _stats.name_key)


class RoundRow(Base):
    """One played round with everything revealed: dice per seat, bids, and how it ended."""

    __tablename__ = "rounds"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    palifico: Mapped[bool] = mapped_column(Boolean)
    palifico_seat: Mapped[int | None] = mapped_column(Integer)
    opener: Mapped[int] = mapped_column(Integer)
    dice: Mapped[list[dict[str, Any]]] = mapped_column(Json)
    bids: Mapped[list[dict[str, Any]]] = mapped_column(Json)
    result: Mapped[dict[str, Any]] = mapped_column(Json)

    game: Mapped[GameRow] = relationship(back_populates="rounds")


class RoomSnapshotRow(Base):
    """The latest snapshot of a live room, so a restarted server can restore it."""

    __tablename__ = "room_snapshots"

    room_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(Json)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
    rev: Mapped[int] = mapped_column(Integer, server_default="0")  # its place in the journal


class RoomJournalRow(Base):
    """One action of a live room after its snapshot (`rev` above the snapshot's), as rooms
    of format 1 were journalled: still read, so a room an older instance wrote comes back
    whole, and emptied of a room whenever it gets a new snapshot."""

    __tablename__ = "room_journal"
    # Small rows, written one per action: in SQLite, the primary key is the table itself (one
    # B-tree to update, not a table and its index: a third less CPU per row).
    __table_args__ = ({"sqlite_with_rowid": False},)

    room_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    rev: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(Json)


class RoomEntryRow(Base):
    """One action of a live room after the snapshot whose rev is `base` (room format 2).

    Appended in the order written and kept by no index: a batch of the journal fills the
    table's last page or two, where rows kept by room touched a page per room in the batch
    (a batch's commit cost about that). An entry whose room has since had another snapshot
    (or none) is dead: loads skip it and the writer deletes the dead in bulk now and then.
    """

    __tablename__ = "room_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(String(64))
    base: Mapped[int] = mapped_column(Integer)
    rev: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(Json)


class InstanceRow(Base):
    """A running instance's heartbeat: its room leases hold while `expires_at` (unix seconds)
    is ahead (app/db/leases.py)."""

    __tablename__ = "instances"

    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    expires_at: Mapped[float] = mapped_column(Float)
    # The newest room format (snapshot and journal) it reads: it takes no room written newer.
    reads: Mapped[int] = mapped_column(Integer, server_default="1")
    # Its live rooms as the operator's console last asked for them (app/admin.py).
    report: Mapped[list[dict[str, Any]] | None] = mapped_column(Json)
    reported_at: Mapped[float | None] = mapped_column(Float)


class RoomLeaseRow(Base):
    """Which instance holds a live room (while its heartbeat lives), and who asks for it."""

    __tablename__ = "room_leases"
    # An owner's rooms, and (a renewal's one look) those of them another instance wants.
    __table_args__ = (Index("ix_room_leases_owner_wanted_by", "owner", "wanted_by"),)

    room_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(255))
    wanted_by: Mapped[str | None] = mapped_column(String(255))


class RoomFormatRow(Base):
    """The format a live room's records were last written in (its holder's), so an instance
    that reads only older formats leaves it alone during a rolling upgrade."""

    __tablename__ = "room_formats"

    room_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    format: Mapped[int] = mapped_column(Integer)


class AdminOrderRow(Base):
    """What the operator's console asked the instances to do (a notice, close a room, drain
    an instance, report their rooms); every instance reads the orders newer than it has seen
    at each lease renewal. Old orders are deleted as new ones come."""

    __tablename__ = "admin_orders"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    made_at: Mapped[float] = mapped_column(Float)
    action: Mapped[str] = mapped_column(String(16))
    target: Mapped[str | None] = mapped_column(String(255))  # an instance; None: every one
    room_id: Mapped[str | None] = mapped_column(String(64))
    text: Mapped[str | None] = mapped_column(String(300))
