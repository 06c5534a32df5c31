"""Room leases behind per-instance heartbeats, on SQLite and PostgreSQL: who may take a room,
races between instances, what a renewal learns, and that it costs the same for any number of
rooms held."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import SimpleNamespace
from typing import Any, TypeVar

import orjson
import pytest
from alembic import command
from sqlalchemy import Engine, event, insert, inspect, select, text, update
from sqlalchemy.orm import Session

import app.db.leases
from app.db.journal import JournalRepository
from app.db.leases import LeaseRepository
from app.db.migrate import alembic_config
from app.db.models import InstanceRow, RoomLeaseRow
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.protocol import RoomSettings
from app.rooms import ManualScheduler, Registry, Room, RoomConfig
from app.rooms.journal import Journal
from app.rooms.ownership import LEASE_SECONDS, Ownership
from app.rooms.registry import ELSEWHERE
from tests.rooms.conftest import FakeConnection, say, seated

T = TypeVar("T")
TTL = LEASE_SECONDS


@pytest.fixture
def leases(engine: Engine) -> LeaseRepository:
    return LeaseRepository(engine)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def run_out(engine: Engine, owner: str) -> None:
    """`owner`'s heartbeat ran out (it was killed, paused or cut off)."""
    with Session(engine) as session, session.begin():
        session.execute(
            update(InstanceRow).where(InstanceRow.name == owner).values(expires_at=time.time() - 1)
        )


def owners(engine: Engine) -> dict[str, tuple[str, str | None]]:
    with Session(engine) as session:
        rows = session.execute(
            select(RoomLeaseRow.room_id, RoomLeaseRow.owner, RoomLeaseRow.wanted_by)
        ).all()
    return {row.room_id: (row.owner, row.wanted_by) for row in rows}


def heartbeats(engine: Engine) -> set[str]:
    with Session(engine) as session:
        return set(session.scalars(select(InstanceRow.name)))


def race(calls: list[Callable[[], T]]) -> list[T]:
    """Run `calls` at once, one thread each; their answers in order."""
    start = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        start.wait()
        answers[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_a_free_room_is_taken_and_a_live_holder_keeps_it(
    engine: Engine, leases: LeaseRepository
) -> None:
    assert leases.beat("a", TTL) is False  # a first heartbeat: nothing can have been lost
    assert leases.beat("b", TTL) is False
    assert leases.beat("a", TTL) is True
    assert leases.acquire("room", "a")
    assert leases.acquire("room", "a")  # already ours
    assert not leases.acquire("room", "b")
    assert owners(engine) == {"room": ("a", "b")}  # b asks for it
    assert leases.renew("a", TTL) == (None, {"room"})
    assert leases.renew("b", TTL) == (None, set())
    leases.release(["room"], "a")
    assert leases.acquire("room", "b")
    assert owners(engine) == {"room": ("b", None)}


def test_a_room_whose_holder_ran_out_is_taken_and_the_holder_learns_it(
    engine: Engine, leases: LeaseRepository
) -> None:
    leases.beat("a", TTL)
    leases.beat("b", TTL)
    for room in ("kept", "taken"):
        assert leases.acquire(room, "a")
    run_out(engine, "a")
    assert leases.acquire("taken", "b")
    assert owners(engine) == {"kept": ("a", None), "taken": ("b", None)}
    assert leases.renew("a", TTL) == ({"kept"}, set())  # it looks at all its leases once
    assert leases.renew("a", TTL) == (None, set())  # and then nothing changed
    assert not leases.acquire("kept", "b")


def test_a_renewal_that_comes_late_still_learns_of_a_room_taken(
    engine: Engine, leases: LeaseRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The taker marks the run-out heartbeat, so a holder whose clock (or whose `now`, read
    before a stall) says it is still alive cannot renew as if nothing happened."""
    leases.beat("b", TTL)
    with Session(engine) as session, session.begin():
        session.execute(insert(InstanceRow).values(name="a", expires_at=time.time() - 0.5))
        session.execute(insert(RoomLeaseRow).values(room_id="room", owner="a"))
    assert leases.acquire("room", "b")
    late = time.time() - 60
    monkeypatch.setattr(app.db.leases, "time", SimpleNamespace(time=lambda: late))
    assert leases.renew("a", TTL) == (set(), set())


def test_leases_without_a_heartbeat_are_free(engine: Engine, leases: LeaseRepository) -> None:
    """Leases written before heartbeats existed (or whose owner stopped) are anyone's."""
    with Session(engine) as session, session.begin():
        session.execute(insert(RoomLeaseRow).values(room_id="room", owner="old"))
    leases.beat("b", TTL)
    assert leases.acquire("room", "b")
    assert leases.renew("old", TTL) == (set(), set())


def test_a_clean_stop_frees_every_room_and_the_heartbeat(
    engine: Engine, leases: LeaseRepository
) -> None:
    leases.beat("a", TTL)
    leases.beat("b", TTL)
    for room in ("one", "two"):
        leases.acquire(room, "a")
    leases.acquire("three", "b")
    leases.stop("a")
    assert heartbeats(engine) == {"b"}
    assert owners(engine) == {"three": ("b", None)}
    assert leases.acquire("one", "b")


@pytest.mark.parametrize("holder", ["nobody", "run out"])
def test_two_instances_racing_for_a_room_exactly_one_wins(
    engine: Engine, leases: LeaseRepository, holder: str
) -> None:
    for name in ("a", "b", "old"):
        leases.beat(name, TTL)
    rooms = [f"room{index}" for index in range(20)]
    if holder == "run out":
        for room in rooms:
            leases.acquire(room, "old")
        run_out(engine, "old")
    for room in rooms:
        won = race([partial(leases.acquire, room, name) for name in ("a", "b")])
        assert sorted(won) == [False, True], room
        winner, loser = ("a", "b") if won[0] else ("b", "a")
        assert owners(engine)[room] == (winner, loser)


def test_many_instances_racing_for_one_room_exactly_one_wins(
    engine: Engine, leases: LeaseRepository
) -> None:
    names = [f"i{index}" for index in range(4)]
    for name in names:
        leases.beat(name, TTL)
    won = race([partial(leases.acquire, "room", name) for name in names])
    assert won.count(True) == 1
    assert owners(engine)["room"][0] == names[won.index(True)]


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """Every SQL statement `engine` sends while inside."""
    sent: list[str] = []

    def record(*args: Any) -> None:
        sent.append(args[2])

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


@pytest.mark.parametrize("wanted", [0, 3])
def test_a_renewal_costs_the_same_for_one_room_or_five_hundred(
    engine: Engine, leases: LeaseRepository, wanted: int
) -> None:
    costs = []
    for owner, rooms in (("small", 1), ("big", 500)):
        leases.beat(owner, TTL)
        with Session(engine) as session, session.begin():
            session.execute(
                insert(RoomLeaseRow),
                [
                    {"room_id": f"{owner}{index}", "owner": owner, "wanted_by": None}
                    for index in range(rooms)
                ],
            )
        for index in range(min(wanted, rooms)):
            leases.acquire(f"{owner}{index}", "other")  # asks for it
        leases.renew(owner, TTL)  # warm: the statements are compiled once per engine
        with statements(engine) as sent:
            held, asked = leases.renew(owner, TTL)
        assert held is None
        assert len(asked) == min(wanted, rooms)
        costs.append(sent)
        touching = [s for s in sent if "room_leases" in s]
        assert touching
        assert all(s.lstrip().upper().startswith("SELECT") for s in touching), touching
    assert costs[0] == costs[1]
    assert len(costs[0]) == 2  # the heartbeat, the wanted rooms


@pytest.mark.anyio
async def test_ownership_learns_what_it_lost_and_what_is_wanted(
    engine: Engine, leases: LeaseRepository
) -> None:
    a, b = Ownership(leases, "a"), Ownership(leases, "b")
    for room in ("kept", "taken", "asked"):
        assert await a.take(room)
    assert not await b.take("asked")
    assert await a.renew() == (set(), {"asked"})
    await a.release(["asked"])
    assert await b.take("asked")
    run_out(engine, "a")
    assert await b.take("taken")
    assert await a.renew() == ({"taken"}, set())
    assert a.held == {"kept"}
    assert await a.renew() == (set(), set())
    await a.stop()
    assert a.held == set()
    assert heartbeats(engine) == {"b"}
    assert await b.take("kept")


@pytest.mark.anyio
async def test_ownership_that_wakes_up_taking_a_room_looks_for_what_it_lost(
    engine: Engine, leases: LeaseRepository
) -> None:
    """A take after the heartbeat ran out brings it back to life; the next renewal then looks
    at every lease, since rooms may have gone while it was out."""
    now = [0.0]
    a, b = Ownership(leases, "a", clock=lambda: now[0]), Ownership(leases, "b")
    assert await a.take("taken")
    run_out(engine, "a")
    assert await b.take("taken")
    now[0] += 10  # a was paused
    assert await a.take("new")
    assert a.held == {"taken", "new"}
    assert await a.renew() == ({"taken"}, set())
    assert a.held == {"new"}


def test_migration_0006_keeps_the_leases_and_frees_them(database_url: str) -> None:
    """Leases taken before heartbeats keep their owner and wanted_by, with no heartbeat behind
    them (any instance may take them); downgrading brings them back already run out."""
    config = alembic_config(database_url)
    command.upgrade(config, "0005")
    engine = make_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO room_leases (room_id, owner, expires_at, wanted_by) "
                    "VALUES ('one', 'a', 1e12, NULL), ('two', 'a', 1e12, 'b')"
                )
            )
        command.upgrade(config, "head")
        assert owners(engine) == {"one": ("a", None), "two": ("a", "b")}
        assert heartbeats(engine) == set()
        command.downgrade(config, "0005")
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT room_id, owner, expires_at, wanted_by FROM room_leases")
            ).all()
        assert sorted(tuple(row) for row in rows) == [("one", "a", 0, None), ("two", "a", 0, "b")]
        assert "instances" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_new_rooms_nobody_took_are_forgotten_after_a_while(
    journal_repo: JournalRepository, leases: LeaseRepository
) -> None:
    """A new room is only written (its first snapshot, rev 1) until an instance takes it; an
    abandoned one goes once it is old enough, a taken or changed one never does."""
    snapshot = orjson.Fragment(b'{"room_id": "x"}')
    journal_repo.write_journal(
        {room: (rev, snapshot) for room, rev in [("new", 1), ("taken", 1), ("used", 2)]}, [], []
    )
    assert leases.beat("a", TTL) is False
    assert leases.acquire("taken", "a")
    assert leases.drop_unclaimed(time.time() - 60) == 0  # all younger than a minute
    assert leases.drop_unclaimed(time.time() + 1) == 1
    assert {data["room_id"] for data, _, _ in journal_repo.load_journal()} == {"x"}
    assert sorted(rev for _, rev, _ in journal_repo.load_journal()) == [1, 2]  # taken, used


def versioned(engine: Engine, name: str, reads: int, writes: int | None = None) -> Registry:
    """An instance whose code reads room formats up to `reads` and writes `writes`."""
    return Registry(
        scheduler=ManualScheduler(),
        config=RoomConfig(),
        store=GameRepository(engine),
        lobby_ttl=600,
        finished_ttl=300,
        journal=Journal(JournalRepository(engine, writes=writes or reads)),
        ownership=Ownership(LeaseRepository(engine, reads=reads, writes=writes), name),
    )


async def moved(to: Registry, away: Registry, room_id: str) -> Room:
    """`to` asks for the room, `away` hands it over at its renewal, `to` takes it."""
    assert await to.open(room_id) is ELSEWHERE
    await away.hold()
    room = await to.open(room_id)
    assert isinstance(room, Room)
    return room


@pytest.mark.anyio
async def test_a_rolling_upgrade_moves_rooms_only_where_their_format_is_read(
    engine: Engine, journal_repo: JournalRepository
) -> None:
    """Old code (format 1) and new code (reads 2) on one database: while the new one still
    writes format 1, rooms move both ways; once it writes 2, the old one leaves such a room
    alone (it neither asks for it nor drops it) and never reads it, even at a restart."""
    old, new = versioned(engine, "old", reads=1), versioned(engine, "new", reads=2, writes=1)
    room = old.create(RoomSettings())
    await old.publish(room)
    room_id = room.room_id
    first = await new.open(room_id)
    assert isinstance(first, Room)
    await seated(first, 1)  # P0 joins on the new instance
    back = await moved(old, new, room_id)  # and the room goes back to the old one
    assert [seat.name for seat in back.state.seats] == ["P0"]
    await say(back, FakeConnection(), type="join", name="P1")

    newest = versioned(engine, "newest", reads=2)  # the upgrade's last step: it writes 2
    taken = await moved(newest, old, room_id)
    assert [seat.name for seat in taken.state.seats] == ["P0", "P1"]
    assert await old.open(room_id) is ELSEWHERE
    assert owners(engine)[room_id] == ("newest", None)  # not even asked for
    await newest.close()  # a clean stop frees its leases: still the old one does not take it
    before = journal_repo.load_journal(room_id)
    assert await old.open(room_id) is ELSEWHERE
    assert await versioned(engine, "old-restarted", reads=1).restore() == 0
    assert journal_repo.load_journal(room_id) == before  # neither dropped nor changed
    again = await versioned(engine, "newest-again", reads=2).open(room_id)
    assert isinstance(again, Room) and [seat.name for seat in again.state.seats] == ["P0", "P1"]
    await old.close()
