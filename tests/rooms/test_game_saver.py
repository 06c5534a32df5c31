"""A finished game whose save fails is kept and retried until it lands (issue 13); `settle`
never waits for the database to come back; the games held for a retry are bounded."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from app.rooms import saver as saver_module
from app.rooms.saver import GameSaver
from tests.rooms.conftest import MemoryStore

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(saver_module, "SAVE_RETRY_FIRST", 0.01)
    monkeypatch.setattr(saver_module, "SAVE_RETRY_MAX", 0.05)


async def wait_for(condition: Any, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_failed_save_is_retried_until_it_lands(caplog: Any) -> None:
    store, landed = MemoryStore(), []
    store.fail = True
    saver = GameSaver(store, "room000001")

    async def then(game_id: str) -> None:
        landed.append(game_id)

    with caplog.at_level(logging.INFO, logger="app.rooms"):
        saver.save({"game": 1}, then)
        saver.save({"game": 2}, then)
        await saver.settle()  # returns while the database is away
        assert landed == [] and saver.pending == 2 and GameSaver.unsaved == 2
        await asyncio.sleep(0.2)  # several tries fail meanwhile
        assert landed == [] and saver.pending == 2
        store.fail = False
        await wait_for(lambda: saver.pending == 0)
    assert sorted(landed) == ["game1", "game2"]
    assert sorted(r["game"] for r in store.records) == [1, 2]  # each saved once
    assert GameSaver.unsaved == 0
    assert "kept and retried" in caplog.text and "after all" in caplog.text


async def test_settle_waits_for_a_save_in_flight() -> None:
    store, landed = MemoryStore(), []
    saver = GameSaver(store, "room000001")

    async def then(game_id: str) -> None:
        landed.append(game_id)

    saver.save({"game": 1}, then)
    await saver.settle()
    assert landed == ["game1"]


async def test_the_games_held_for_a_retry_are_bounded(
    monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    monkeypatch.setattr(saver_module, "MAX_UNSAVED_GAMES", 3)
    store = MemoryStore()
    store.fail = True
    savers = [GameSaver(store, f"room{n:06}") for n in range(5)]

    async def then(game_id: str) -> None:
        pass

    with caplog.at_level(logging.ERROR, logger="app.rooms"):
        for saver in savers:
            saver.save({"game": 1}, then)
            await saver.settle()
    assert GameSaver.unsaved == 3
    assert sum(saver.pending for saver in savers) == 3
    assert caplog.text.count("it is dropped") == 2
    store.fail = False
    await wait_for(lambda: sum(saver.pending for saver in savers) == 0)
    assert len(store.records) == 3 and GameSaver.unsaved == 0


async def test_a_save_cancelled_at_shutdown_says_so(caplog: Any) -> None:
    store = MemoryStore()
    store.fail = True
    saver = GameSaver(store, "room000001")

    async def then(game_id: str) -> None:
        pass

    with caplog.at_level(logging.ERROR, logger="app.rooms"):
        saver.save({"game": 1}, then)
        await saver.settle()
        (task,) = saver._tasks
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert "was never saved" in caplog.text and GameSaver.unsaved == 0
