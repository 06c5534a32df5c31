"""The console's queries on SQLite and PostgreSQL: today's figures, orders for each instance,
their reports."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from app.db.console import ConsoleRepository
from app.db.leases import LeaseRepository
from app.db.repository import GameRepository


def test_today_counts_the_games_since_midnight_and_the_people_in_them(
    engine: Engine, repo: GameRepository, make_record: Callable[..., dict[str, Any]]
) -> None:
    now = datetime.now(UTC)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    repo.save_game(make_record(seed=1, finished_at=max(midnight, now - timedelta(seconds=5))))
    repo.save_game(make_record(seed=2, finished_at=midnight + timedelta(microseconds=1)))
    repo.save_game(make_record(seed=3, finished_at=midnight - timedelta(seconds=1)))  # yesterday
    # Two games today by Ana and "Ñandú 🎲" (seat 1 is a bot): two people.
    assert ConsoleRepository(engine).today() == {"games": 2, "players": 2}


def test_orders_reach_their_instance_and_reports_come_back(engine: Engine) -> None:
    console = ConsoleRepository(engine)
    assert console.last_order() == 0
    everyone = console.order("notice", text="hello")
    for_b = console.order("drain", target="b")
    assert [o.id for o in console.orders_after(0, "a")] == [everyone]
    assert [(o.action, o.target) for o in console.orders_after(everyone, "b")] == [("drain", "b")]
    assert console.last_order() == for_b
    leases = LeaseRepository(engine, reads=3)
    leases.beat("a", 5.0)
    console.report("a", [{"room_id": "x"}])
    (instance,) = console.instances()
    assert instance["name"] == "a" and instance["alive"] and instance["reads"] == 3
    assert instance["rooms"] == [{"room_id": "x"}] and instance["reported_at"] > 0
