"""The journal's tables on SQLite and PostgreSQL: entries appended with the snapshot they
follow, the dead ones skipped and then deleted, and rooms an older instance wrote (format 1)
read back whole."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from app.db import journal
from app.db.journal import JournalRepository
from app.db.models import RoomEntryRow, RoomJournalRow


def snapshot(room_id: str, seats: int = 2) -> dict[str, Any]:
    return {"room_id": room_id, "seats": list(range(seats))}


def bid(quantity: int) -> dict[str, Any]:
    return {"bid": [0, quantity, 4]}


def rows(engine: Engine, table: type[RoomEntryRow] | type[RoomJournalRow]) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def test_entries_count_only_after_the_snapshot_they_follow(
    engine: Engine, journal_repo: JournalRepository
) -> None:
    """A new snapshot makes every entry before it dead, and so is an entry that names another
    snapshot than the room's (an instance that lost the room and wrote on)."""
    journal_repo.write_journal({"a": (1, snapshot("a"))}, [("a", 1, 2, bid(2))], [])
    journal_repo.write_journal({}, [("a", 1, 3, bid(3))], [])
    assert journal_repo.load_journal("a") == [(snapshot("a"), 1, [(2, bid(2)), (3, bid(3))])]
    journal_repo.write_journal({"a": (4, snapshot("a", 3))}, [("a", 4, 5, bid(5))], [])
    journal_repo.write_journal({}, [("a", 1, 6, bid(6))], [])  # base 1 is gone
    assert journal_repo.load_journal() == [(snapshot("a", 3), 4, [(5, bid(5))])]
    assert rows(engine, RoomEntryRow) == 4  # appended, none deleted yet
    assert rows(engine, RoomJournalRow) == 0


def test_the_dead_entries_are_deleted_once_enough_rows_came(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "COMPACT_AFTER_ROWS", 6)
    repo = JournalRepository(engine)
    repo.write_journal({"a": (1, snapshot("a")), "b": (1, snapshot("b"))}, [], [])
    repo.write_journal({}, [("a", 1, 2, bid(2)), ("b", 1, 2, bid(2)), ("b", 1, 3, bid(3))], [])
    repo.write_journal({"a": (3, snapshot("a", 3))}, [("a", 3, 4, bid(4))], ["b"])
    assert rows(engine, RoomEntryRow) == 4  # a's rev 2 and all of b's are dead, still there
    repo.write_journal({}, [("a", 3, 5, bid(5)), ("a", 3, 6, bid(6))], [])  # 6 appended
    assert rows(engine, RoomEntryRow) == 3  # a's 4, 5 and 6
    assert repo.load_journal() == [(snapshot("a", 3), 3, [(4, bid(4)), (5, bid(5)), (6, bid(6))])]
    # The next deletion waits for as many rows as were left (at least COMPACT_AFTER_ROWS).
    repo.write_journal({"a": (7, snapshot("a"))}, [("a", 7, n, bid(n)) for n in (8, 9, 10)], [])
    assert rows(engine, RoomEntryRow) == 6
    repo.write_journal({}, [("a", 7, n, bid(n)) for n in (11, 12, 13)], [])
    assert rows(engine, RoomEntryRow) == 6  # 4, 5, 6 went; 8 to 13 stay
    assert [rev for rev, _ in repo.load_journal("a")[0][2]] == [8, 9, 10, 11, 12, 13]


def test_a_room_an_older_instance_wrote_comes_back_whole_and_moves_to_the_new_table(
    engine: Engine,
) -> None:
    """Format 1 keeps entries in `room_journal`; format 2 reads them beside its own, and its
    first snapshot of the room empties the old table of it."""
    older, newer = JournalRepository(engine, writes=1), JournalRepository(engine)
    older.write_journal({"a": (1, snapshot("a"))}, [("a", 1, 2, bid(2)), ("a", 1, 3, bid(3))], [])
    assert (rows(engine, RoomJournalRow), rows(engine, RoomEntryRow)) == (2, 0)
    assert newer.load_journal() == [(snapshot("a"), 1, [(2, bid(2)), (3, bid(3))])]
    newer.write_journal({}, [("a", 1, 4, bid(4))], [])
    assert newer.load_journal("a") == [(snapshot("a"), 1, [(2, bid(2)), (3, bid(3)), (4, bid(4))])]
    newer.write_journal({"a": (5, snapshot("a", 3))}, [("a", 5, 6, bid(6))], [])
    assert rows(engine, RoomJournalRow) == 0
    assert newer.load_journal() == [(snapshot("a", 3), 5, [(6, bid(6))])]


def test_an_entry_written_twice_is_read_once(journal_repo: JournalRepository) -> None:
    """A batch retried after a commit whose answer was lost lands twice: read once."""
    journal_repo.write_journal({"a": (1, snapshot("a"))}, [("a", 1, 2, bid(2))], [])
    journal_repo.write_journal({}, [("a", 1, 2, bid(2)), ("a", 1, 3, bid(3))], [])
    assert journal_repo.load_journal() == [(snapshot("a"), 1, [(2, bid(2)), (3, bid(3))])]
