"""GameRepository on SQLite and PostgreSQL: save once, list newest first, read back whole."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event

from app.db.journal import JournalRepository
from app.db.repository import GameRepository

T0 = datetime(2025, 3, 1, 20, 0, tzinfo=UTC)
GameRecord = dict[str, Any]
MakeRecord = Callable[..., GameRecord]  # the `make_record` fixture of conftest.py


def summary(game_id: str, record: GameRecord) -> dict[str, Any]:
    """What `GET /api/games` lists for a saved record (PROTOCOL.md)."""
    keys = ("room_id", "finished_at", "winner", "players")
    return {"game_id": game_id, **{key: record[key] for key in keys}}


@contextmanager
def count_queries(engine: Engine) -> Iterator[list[str]]:
    statements: list[str] = []

    def seen(*args: Any) -> None:
        statements.append(args[2])

    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def test_a_played_game_reads_back_identically(
    repo: GameRepository, make_record: MakeRecord
) -> None:
    record = make_record(seed=7)
    assert len(record["rounds"]) >= 10  # a real game: 15 dice lost one round at a time
    game_id = repo.save_game(record).game_id
    assert re.fullmatch(r"[A-Za-z0-9_-]{8,16}", game_id)

    saved = repo.get_game(game_id)

    assert saved == {"game_id": game_id, **record}
    assert json.loads(json.dumps(saved)) == saved
    assert list(saved) == [
        "game_id", "room_id", "started_at", "finished_at", "settings", "winner", "players",
        "rounds",
    ]  # fmt: skip


def test_every_save_gets_its_own_id(repo: GameRepository, make_record: MakeRecord) -> None:
    record = make_record(seed=3)
    first, second = repo.save_game(record).game_id, repo.save_game(record).game_id
    assert first != second
    assert repo.get_game(first) == {"game_id": first, **record}
    assert repo.get_game(second) == {"game_id": second, **record}


def test_unknown_game_is_none(repo: GameRepository, make_record: MakeRecord) -> None:
    repo.save_game(make_record())
    assert repo.get_game("no-such-game") is None
    assert repo.get_game("") is None


def test_list_is_newest_first_with_limit_and_offset(
    repo: GameRepository, make_record: MakeRecord
) -> None:
    assert repo.list_games(20, 0) == []
    finish_times = [T0, T0 + timedelta(hours=2), T0 + timedelta(hours=1), T0 + timedelta(hours=2)]
    saved = []
    for seed, finished_at in enumerate(finish_times):
        record = make_record(seed=seed, finished_at=finished_at, room_id=f"room{seed}")
        saved.append((finished_at, repo.save_game(record).game_id, record))
    # Newest first; games that finished together come in descending id order.
    newest_first = sorted(saved, key=lambda item: (item[0], item[1]), reverse=True)
    expected = [summary(game_id, record) for _, game_id, record in newest_first]

    assert repo.list_games(20, 0) == expected
    assert repo.list_games(2, 0) == expected[:2]
    assert repo.list_games(2, 1) == expected[1:3]
    assert repo.list_games(20, 3) == expected[3:]
    assert repo.list_games(20, 4) == []


def test_listing_and_reading_take_a_fixed_number_of_queries(
    engine: Engine, repo: GameRepository, make_record: MakeRecord
) -> None:
    game_id = repo.save_game(make_record(seed=0)).game_id
    with count_queries(engine) as one_game:
        repo.list_games(20, 0)
    for seed in range(1, 6):
        repo.save_game(make_record(seed=seed))
    with count_queries(engine) as six_games:
        assert len(repo.list_games(20, 0)) == 6
    with count_queries(engine) as detail:
        repo.get_game(game_id)
    assert len(one_game) == len(six_games) == 2  # games, then all their players at once
    assert len(detail) == 3  # the game, its players, its rounds


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2025-06-01T14:00:00+02:00", "2025-06-01T12:00:00+00:00"),
        ("2025-06-01T12:00:00Z", "2025-06-01T12:00:00+00:00"),
        ("2025-06-01T07:00:00.5-05:00", "2025-06-01T12:00:00.500000+00:00"),
    ],
)
def test_timestamps_come_back_as_utc(
    repo: GameRepository, make_record: MakeRecord, given: str, stored: str
) -> None:
    record = make_record() | {"started_at": given, "finished_at": given}
    game = repo.get_game(repo.save_game(record).game_id)
    assert game is not None
    assert (game["started_at"], game["finished_at"]) == (stored, stored)
    assert repo.list_games(1, 0)[0]["finished_at"] == stored


def test_ordering_compares_instants_not_local_times(
    repo: GameRepository, make_record: MakeRecord
) -> None:
    later = repo.save_game(make_record() | {"finished_at": "2025-06-01T12:30:00+02:00"}).game_id
    earlier = repo.save_game(make_record() | {"finished_at": "2025-06-01T11:00:00+00:00"}).game_id
    assert [game["game_id"] for game in repo.list_games(20, 0)] == [earlier, later]


@pytest.mark.parametrize(
    "change",
    [
        {"finished_at": "2025-06-01T12:00:00"},  # no time zone: ambiguous
        {"winner": {"seat": 5, "name": "Nobody"}},  # not one of the players
    ],
)
def test_a_bad_record_is_refused_and_nothing_is_saved(
    repo: GameRepository, make_record: MakeRecord, change: dict[str, Any]
) -> None:
    with pytest.raises(ValueError):
        repo.save_game(make_record() | change)
    assert repo.list_games(20, 0) == []


def test_saves_from_several_threads_all_land(repo: GameRepository, make_record: MakeRecord) -> None:
    """The server saves through asyncio.to_thread; concurrent writers must wait, not fail."""
    records = [make_record(seed=seed) for seed in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        game_ids = [saved.game_id for saved in pool.map(repo.save_game, records)]
    assert len(set(game_ids)) == 8
    for game_id, record in zip(game_ids, records, strict=True):
        assert repo.get_game(game_id) == {"game_id": game_id, **record}


def test_the_journal_keeps_each_rooms_snapshot_and_the_entries_after_it(
    journal_repo: JournalRepository,
) -> None:
    assert journal_repo.load_journal() == []
    journal_repo.write_journal({"room-a": (1, {"room_id": "room-a", "seats": [0]})}, [], [])
    journal_repo.write_journal(
        {"room-b": (4, {"room_id": "room-b", "nested": {"x": [1]}})},
        [("room-a", 1, 2, {"bid": [0, 3, 4]}), ("room-a", 1, 3, {"bid": [1, 4, 4]})],
        [],
    )
    assert sorted(journal_repo.load_journal(), key=lambda room: room[0]["room_id"]) == [
        (
            {"room_id": "room-a", "seats": [0]},
            1,
            [(2, {"bid": [0, 3, 4]}), (3, {"bid": [1, 4, 4]})],
        ),
        ({"room_id": "room-b", "nested": {"x": [1]}}, 4, []),
    ]
    # a new snapshot supersedes the entries before it; a dropped room is forgotten
    journal_repo.write_journal(
        {"room-a": (3, {"room_id": "room-a", "seats": [0, 1]})},
        [("room-a", 3, 4, {"bid": [0, 5, 4]})],
        ["room-b", "room-never-saved"],
    )
    assert journal_repo.load_journal() == [
        ({"room_id": "room-a", "seats": [0, 1]}, 3, [(4, {"bid": [0, 5, 4]})])
    ]
