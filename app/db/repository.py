"""Save and read finished games in the PROTOCOL.md `GET /api/games` shapes."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, cast

import orjson
from sqlalchemy import Dialect, Engine, Table, bindparam, delete, insert, select, text
from sqlalchemy.orm import selectinload, sessionmaker

from app.db.models import GameRow, PlayerRow, RoomJournalRow, RoomSnapshotRow, RoundRow
from app.db.session import dump_json
from app.db.stats import Calls, count_game, name_key, tally_calls
from app.utc import format_utc, parse_utc

GAME_ID_BYTES = 8  # 64 random bits, 11 URL-safe characters
# Games and the journal are written through Core: the ORM's unit of work costs more than the rows.
GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, PlayerRow.__table__)
ROUNDS = cast(Table, RoundRow.__table__)
SNAPSHOTS = cast(Table, RoomSnapshotRow.__table__)
JOURNAL = cast(Table, RoomJournalRow.__table__)
# The writes' statements, built once: one built per call costs its construction and its
# cache key every time, more than running it for a few rows.
INSERT_GAME = insert(GAMES)
INSERT_SEATS = insert(SEATS)
INSERT_ROUNDS = insert(ROUNDS)
INSERT_SNAPSHOTS = insert(SNAPSHOTS)
DELETE_SNAPSHOTS = delete(SNAPSHOTS).where(
    SNAPSHOTS.c.room_id.in_(bindparam("rooms", expanding=True))
)
DELETE_JOURNAL = delete(JOURNAL).where(JOURNAL.c.room_id.in_(bindparam("rooms", expanding=True)))
# The journal's rows, one per action, go to the driver as they are: SQLAlchemy's handling of
# each row's parameters was a sixth of the writer thread's CPU. Their data go as the JSON
# text the column's type would write.
JOURNAL_INSERT = f"INSERT INTO {JOURNAL.name} (room_id, rev, data) VALUES ({{0}}, {{0}}, {{0}})"


def new_game_id() -> str:
    """A short, unguessable, URL-safe id for a saved game."""
    return secrets.token_urlsafe(GAME_ID_BYTES)


class GameRepository:
    """Finished games (saved once, read by the history pages) and live-room snapshots."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    def ping(self) -> bool:
        """Whether the database answers a trivial query."""
        try:
            with self._sessions() as session:
                session.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    # ----- finished games -----------------------------------------------------------------

    def save_game(self, record: Mapping[str, Any]) -> str:
        """Store a finished game (the `GET /api/games/{id}` shape without `game_id`).

        Returns the new game_id.
        """
        players = record["players"]
        winner = record["winner"]
        if not any(p["seat"] == winner["seat"] and p["name"] == winner["name"] for p in players):
            raise ValueError("the winner must be one of the players")
        finished_at = parse_utc(record["finished_at"])
        calls = tally_calls(r["result"] for r in record["rounds"])
        game_id = new_game_id()
        seats = [
            {
                "game_id": game_id,
                "seat": p["seat"],
                "name": p["name"],
                "bot": p["bot"],
                "place": p["place"],
                "name_key": name_key(p["name"], p["bot"]),
                "finished_at": finished_at,
                **asdict(calls.get(p["seat"], Calls())),
            }
            for p in players
        ]
        rounds = [
            {
                "game_id": game_id,
                "number": r["number"],
                "palifico": r["palifico"],
                "palifico_seat": r["palifico_seat"],
                "opener": r["opener"],
                "dice": r["dice"],
                "bids": r["bids"],
                "result": r["result"],
            }
            for r in record["rounds"]
        ]
        with self._engine.begin() as connection:
            connection.execute(
                INSERT_GAME,
                {
                    "id": game_id,
                    "room_id": record["room_id"],
                    "started_at": parse_utc(record["started_at"]),
                    "finished_at": finished_at,
                    "settings": dict(record["settings"]),
                    "winner_seat": winner["seat"],
                },
            )
            connection.execute(INSERT_SEATS, seats)
            if rounds:
                connection.execute(INSERT_ROUNDS, rounds)
            count_game(connection, game_id, finished_at, seats)  # the leaderboard's totals
        return game_id

    def list_games(self, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """`GET /api/games` entries, newest first, in two queries whatever the page size."""
        query = (
            select(GameRow)
            .options(selectinload(GameRow.players))
            .order_by(GameRow.finished_at.desc(), GameRow.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with self._sessions() as session:
            return [_summary(game) for game in session.scalars(query)]

    def get_game(self, game_id: str) -> dict[str, Any] | None:
        """The full `GET /api/games/{id}` answer, or None for an unknown id."""
        query = (
            select(GameRow)
            .where(GameRow.id == game_id)
            .options(selectinload(GameRow.players), selectinload(GameRow.rounds))
        )
        with self._sessions() as session:
            game = session.scalars(query).one_or_none()
            if game is None:
                return None
            summary = _summary(game)
            return {
                "game_id": game.id,
                "room_id": game.room_id,
                "started_at": format_utc(game.started_at),
                "finished_at": summary["finished_at"],
                "settings": game.settings,
                "winner": summary["winner"],
                "players": summary["players"],
                "rounds": [_round(r) for r in game.rounds],
            }

    # ----- the live-room journal ------------------------------------------------------------

    def write_journal(
        self,
        snapshots: Mapping[str, tuple[int, orjson.Fragment]],
        entries: Sequence[tuple[str, int, orjson.Fragment]],
        dropped: Iterable[str],
    ) -> None:
        """One transaction: forget the `dropped` rooms; replace each room's snapshot by the
        new one (room_id -> (rev, data)) with the entries it supersedes; add the `entries`
        (room_id, rev, data) recorded after their room's snapshot. The data come encoded."""
        gone = list(dropped)
        renewed = list(snapshots)
        now = datetime.now(UTC)
        with self._engine.begin() as connection:
            if gone or renewed:
                # A new snapshot supersedes its room's whole journal so far: this process
                # numbers a room's changes upwards, and buffers none older than its snapshot.
                rooms = [*gone, *renewed]
                connection.execute(DELETE_SNAPSHOTS, {"rooms": rooms})
                connection.execute(DELETE_JOURNAL, {"rooms": rooms})
            if renewed:
                connection.execute(
                    INSERT_SNAPSHOTS,
                    [
                        {"room_id": room_id, "rev": rev, "data": data, "updated_at": now}
                        for room_id, (rev, data) in snapshots.items()
                    ],
                )
            if entries:
                connection.exec_driver_sql(
                    _journal_insert(connection.dialect),
                    [(room, rev, dump_json(data)) for room, rev, data in entries],
                )

    def load_journal(
        self, room_id: str | None = None
    ) -> list[tuple[dict[str, Any], int, list[tuple[int, dict[str, Any]]]]]:
        """Every live room (or just `room_id`) as (its snapshot, the snapshot's rev, the
        (rev, entry) pairs after it in order), oldest update first."""
        snapshots = select(RoomSnapshotRow.room_id, RoomSnapshotRow.data, RoomSnapshotRow.rev)
        entries = select(RoomJournalRow.room_id, RoomJournalRow.rev, RoomJournalRow.data)
        if room_id is not None:
            snapshots = snapshots.where(RoomSnapshotRow.room_id == room_id)
            entries = entries.where(RoomJournalRow.room_id == room_id)
        with self._sessions() as session:
            rows = session.execute(
                snapshots.order_by(RoomSnapshotRow.updated_at, RoomSnapshotRow.room_id)
            ).all()
            later: dict[str, list[tuple[int, dict[str, Any]]]] = {}
            journal = session.execute(entries.order_by(RoomJournalRow.room_id, RoomJournalRow.rev))
            snapshot_rev = {row.room_id: row.rev for row in rows}
            for room_id, rev, data in journal:
                if rev > snapshot_rev.get(room_id, rev):
                    later.setdefault(room_id, []).append((rev, data))
        return [(row.data, row.rev, later.get(row.room_id, [])) for row in rows]


def _journal_insert(dialect: Dialect) -> str:
    """`JOURNAL_INSERT` with the driver's positional parameters: `?` (sqlite3) or `%s` (psycopg)."""
    return JOURNAL_INSERT.format("?" if dialect.paramstyle == "qmark" else "%s")


def _summary(game: GameRow) -> dict[str, Any]:
    """One `GET /api/games` entry; needs `game.players` loaded."""
    names = {player.seat: player.name for player in game.players}
    return {
        "game_id": game.id,
        "room_id": game.room_id,
        "finished_at": format_utc(game.finished_at),
        "winner": {"seat": game.winner_seat, "name": names[game.winner_seat]},
        "players": [
            {"seat": p.seat, "name": p.name, "bot": p.bot, "place": p.place} for p in game.players
        ],
    }


def _round(row: RoundRow) -> dict[str, Any]:
    return {
        "number": row.number,
        "palifico": row.palifico,
        "palifico_seat": row.palifico_seat,
        "opener": row.opener,
        "dice": row.dice,
        "bids": row.bids,
        "result": row.result,
    }
