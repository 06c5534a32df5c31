"""The journal of live rooms: a restarted registry gives every seat its game back."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Callable, Iterable
from typing import Any

import orjson
import pytest

from app.engine.snapshot import game_to_dict
from app.protocol import ProtocolError, RoomSettings
from app.rooms import ManualScheduler, Registry, Room, RoomConfig
from app.rooms.dice import SecureDice
from app.rooms.journal import MAX_ENTRIES, Journal
from app.rooms.persistence import encode_room
from app.rooms.ports import JournalRows, Snapshots
from tests.rooms.conftest import BOT_DELAY, GRACE, FakeConnection, MemoryStore, say, seated
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.anyio
FOREVER = 100_000.0
DOWNTIME = 42.0
SEED = 11


def new_registry(
    clock: ManualScheduler, store: MemoryStore, dice: Callable[[], random.Random] = SecureDice
) -> Registry:
    return Registry(
        scheduler=clock,
        config=RoomConfig(bot_delay=BOT_DELAY, disconnect_grace=GRACE),
        store=store,
        lobby_ttl=600,
        finished_ttl=300,
        journal=Journal(store),
        dice=dice,
    )


@pytest.fixture
def registry(clock: ManualScheduler, store: MemoryStore) -> Registry:
    return new_registry(clock, store)


async def restarted(
    old_clock: ManualScheduler, store: MemoryStore
) -> tuple[Registry, ManualScheduler]:
    """A new process on the same store: its own clock, later; the rooms it restored."""
    clock = ManualScheduler(old_clock.now() + DOWNTIME)
    registry = new_registry(clock, store)
    await registry.restore()
    return registry, clock


async def table(
    registry: Registry, people: int, bots: int = 0, **settings: Any
) -> tuple[Room, list[FakeConnection]]:
    """A room where `people` joined (seats 0, 1, ...) and the host added bots and started."""
    room = registry.create(RoomSettings(**settings))
    conns = await seated(room, people)
    for _ in range(bots):
        await say(room, conns[0], type="add_bot")
    await say(room, conns[0], type="start")
    return room, conns


async def play(room: Room, conns: list[FakeConnection], moves: int, rng: random.Random) -> None:
    """Up to `moves` legal moves, each by the person whose turn it is (seat = index)."""
    for _ in range(moves):
        state = conns[0].state
        if state["phase"] != "playing":
            return
        actor = conns[state["round"]["turn"]]
        await say(room, actor, **legal_move(actor.state, rng))


def token(conn: FakeConnection) -> str:
    found: str = next(f for f in conn.frames if f["type"] == "welcome")["token"]
    return found


async def resumed(room: Room, conns: list[FakeConnection]) -> list[FakeConnection]:
    """New connections resuming the tokens of `conns`, in the same order."""
    fresh = [FakeConnection() for _ in conns]
    for old, new in zip(conns, fresh, strict=True):
        await say(room, new, type="resume", token=token(old))
        assert new.frames[0]["seat"] == conns.index(old)
    return fresh


def the_game(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what a restart may change: presence, clock and counters."""
    kept = {k: v for k, v in state.items() if k not in ("seq", "server_time", "spectators")}
    kept["players"] = [{k: v for k, v in p.items() if k != "connected"} for p in state["players"]]
    return kept


async def test_a_restart_gives_every_seat_its_game_back(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    rng = random.Random(5)
    room, conns = await table(registry, 3)
    await play(room, conns, 9, rng)
    await registry.flush()
    assert list(store.snapshots) == [room.room_id]
    before = [conn.state for conn in conns]
    results_before = [f for f in conns[0].frames if f["type"] == "round_result"]

    registry2, _ = await restarted(clock, store)
    room2 = registry2.get(room.room_id)
    assert room2 is not None and room2 is not room and room2.state.phase == "playing"
    watcher = FakeConnection()
    await say(room2, watcher, type="watch")
    assert [p["connected"] for p in watcher.state["players"]] == [False] * 3
    assert not any(p["autoplay"] for p in watcher.state["players"])
    with pytest.raises(ProtocolError) as refused:
        await say(room2, FakeConnection(), type="resume", token="not-a-token")
    assert refused.value.code == "unknown_token"

    fresh = await resumed(room2, conns)
    for old_state, conn in zip(before, fresh, strict=True):
        assert conn.state["seq"] > old_state["seq"]
        assert the_game(conn.state) == the_game(old_state)  # seat, own dice, bids, turn, host
    assert all(p["connected"] for p in fresh[0].state["players"])

    await play(room2, fresh, 5000, rng)
    await room2.settle()
    assert fresh[0].state["phase"] == "finished" and fresh[0].state["game_id"] == "game1"
    (record,) = store.records
    results_after = [f for f in fresh[0].frames if f["type"] == "round_result"]
    results = [{k: v for k, v in r.items() if k != "type"} for r in results_before + results_after]
    assert [r["result"] for r in record["rounds"]] == results  # one game, across the restart
    await registry2.flush()
    assert store.snapshot(room.room_id)["game_id"] == "game1"  # kept until the room expires


async def test_actions_are_journal_entries_and_a_call_carries_the_dice_it_dealt(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    lobby = registry.create(RoomSettings())
    await say(lobby, FakeConnection(), type="join", name="Ana")
    room, conns = await table(registry, 3)
    await registry.flush()
    assert set(store.snapshots) == {lobby.room_id, room.room_id}  # lobbies survive too
    assert store.writes == 1
    await registry.flush()
    assert store.writes == 1  # nothing changed
    for _ in range(2):
        actor = conns[conns[0].state["round"]["turn"]]
        low = actor.state["you"]["legal"]["min_quantity"]
        face = next(f for f, q in enumerate(low, 1) if q is not None)
        await say(room, actor, type="bid", quantity=low[face - 1], face=face)
    await say(room, conns[1], type="chat", text="hola")  # no lasting change
    await registry.flush()
    assert store.writes == 2  # one batch
    snapshot_rev = store.snapshots[room.room_id][0]
    assert [rev for rev, _ in store.entries[room.room_id]] == [snapshot_rev + 1, snapshot_rev + 2]
    assert store.snapshot(room.room_id) != encode_room(room.state)  # bids not in it
    caller = conns[0].state["round"]["turn"]
    await say(room, conns[caller], type="dudo")
    await registry.flush()
    assert store.snapshots[room.room_id][0] == snapshot_rev  # no new snapshot for a round
    (rev, data) = store.entries[room.room_id][-1]
    assert rev == snapshot_rev + 3
    assert room.state.game is not None and room.state.game.round is not None
    dealt = [[seat, list(faces)] for seat, faces in room.state.game.round.dice.items()]
    assert orjson.loads(data) == {"call": "dudo", "seat": caller, "deal": dealt}

    registry2, _ = await restarted(clock, store)
    room2 = registry2.get(room.room_id)
    assert room2 is not None and room2.state.game is not None
    assert game_to_dict(room2.state.game) == game_to_dict(
        room.state.game
    )  # the same dice, the same rounds


async def test_a_restored_room_journals_on_after_a_snapshot_of_its_own(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    """An entry names the snapshot it follows: a new process snapshots the rooms it
    restored, then journals entries after that snapshot."""
    room, conns = await table(registry, 2)
    await play(room, conns, 3, random.Random(SEED))
    await registry.flush()
    registry2, clock2 = await restarted(clock, store)
    room2 = registry2.get(room.room_id)
    assert room2 is not None
    conns2 = await resumed(room2, conns)
    before = store.snapshots[room.room_id][0]
    await play(room2, conns2, 2, random.Random(SEED + 1))
    await registry2.flush()
    rev = store.snapshots[room.room_id][0]
    assert rev > before  # this process's own snapshot (the store checks each entry's base)
    assert all(number > rev for number, _ in store.entries.get(room.room_id, []))
    registry3, _ = await restarted(clock2, store)
    room3 = registry3.get(room.room_id)
    assert room3 is not None and room2.state.game is not None and room3.state.game is not None
    assert game_to_dict(room3.state.game) == game_to_dict(room2.state.game)


async def test_an_action_of_a_room_this_journal_never_snapshotted_is_a_snapshot(
    registry: Registry, store: MemoryStore
) -> None:
    room, _ = await table(registry, 2)
    journal = Journal(store)  # another process's: it has recorded nothing of the room
    journal.record(room.state, 99, {"bid": [0, 1, 2]})
    await journal.flush()
    assert store.snapshots[room.room_id][0] == 99 and not store.entries.get(room.room_id)
    journal.record(room.state, 100, {"bid": [1, 2, 2]})
    await journal.flush()
    assert [rev for rev, _ in store.entries[room.room_id]] == [100]


async def test_every_flush_restores_the_room_it_wrote_and_snapshots_come_every_max_entries(
    clock: ManualScheduler, store: MemoryStore
) -> None:
    """Whole games, a rematch between them: after every move the stored journal gives back
    the room as it is (dice, bids, finished rounds), replaying at most MAX_ENTRIES actions.
    Seeded dice: with the system's, a pair of short games now and then never reached it."""
    registry = new_registry(clock, store, dice=lambda: random.Random(SEED))
    rng = random.Random(8)
    room, conns = await table(registry, 4)
    snapshots, longest = set(), 0
    for game in range(2):
        while conns[0].state["phase"] == "playing":
            await play(room, conns, 1, rng)
            await registry.flush()
            (saved, _), *_ = await Journal(store).load(random.Random, clock.now(), room.room_id)
            assert saved.game is not None and room.state.game is not None
            assert game_to_dict(saved.game) == game_to_dict(room.state.game)
            snapshots.add(store.snapshots[room.room_id][0])
            longest = max(longest, len(store.entries[room.room_id]))
        if game == 0:
            await say(room, conns[0], type="rematch")
            await say(room, conns[0], type="start")
    assert longest == MAX_ENTRIES  # reached, never passed
    assert len(snapshots) >= 4  # the two starts, and a snapshot every MAX_ENTRIES actions


async def test_a_dropped_room_loses_its_snapshot(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    room, conns = await table(registry, 1, bots=1)
    await registry.flush()
    assert list(store.snapshots) == [room.room_id]
    await say(room, conns[0], type="leave")
    await clock.advance(FOREVER)  # the bots finish the game; the room expires
    assert await registry.sweep() == [room.room_id]
    await registry.flush()
    assert store.snapshots == {}


async def test_closing_writes_the_last_move_and_a_crash_loses_only_the_last_second(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    rng = random.Random(3)
    room, conns = await table(registry, 2)
    await play(room, conns, 2, rng)
    await registry.flush()
    flushed = conns[0].state
    await play(room, conns, 1, rng)

    crashed, _ = await restarted(clock, store)  # no close: the move after the flush is lost
    watcher = FakeConnection()
    room2 = crashed.get(room.room_id)
    assert room2 is not None
    await say(room2, watcher, type="watch")
    assert watcher.state["round"] == flushed["round"]
    assert watcher.state["seq"] > conns[0].state["seq"]  # clients keep the restored states

    await registry.close()  # a clean stop writes the newest state
    clean, _ = await restarted(clock, store)
    room3 = clean.get(room.room_id)
    assert room3 is not None
    latest = FakeConnection()
    await say(room3, latest, type="watch")
    assert latest.state["round"]["bids"] == conns[0].state["round"]["bids"]
    assert latest.state["round"]["bids"] != flushed["round"]["bids"]


async def test_after_a_restart_the_grace_period_then_the_bot_plays_for_the_absent(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    room, conns = await table(registry, 2)
    await registry.flush()
    turn = conns[0].state["round"]["turn"]
    registry2, clock2 = await restarted(clock, store)
    room2 = registry2.get(room.room_id)
    assert room2 is not None and room2.state.game is not None and room2.state.game.round is not None
    await clock2.advance(GRACE - 0.1)  # nobody has come back yet
    assert room2.state.game.round.bids == []
    await clock2.advance(0.1)
    assert [placed.seat for placed in room2.state.game.round.bids] == [turn]
    back = FakeConnection()
    await say(room2, back, type="resume", token=token(conns[turn]))
    assert back.state["you"]["seat"] == turn
    assert back.state["round"]["bids"][0]["seat"] == turn
    assert back.state["players"][turn]["autoplay"] is False


async def test_bots_and_bot_played_seats_carry_on_after_a_restart(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    room, (host,) = await table(registry, 1, bots=2)
    levels = [p["level"] for p in host.state["players"]]
    await say(room, host, type="leave")  # the bot plays the host's seat from now on
    await registry.flush()
    registry2, clock2 = await restarted(clock, store)
    room2 = registry2.get(room.room_id)
    assert room2 is not None
    await clock2.advance(FOREVER)  # with nobody connected
    await room2.settle()
    watcher = FakeConnection()
    await say(room2, watcher, type="watch")
    players = watcher.state["players"]
    assert [p["level"] for p in players] == levels == [None, "normal", "normal"]
    assert [p["autoplay"] for p in players] == [True, False, False]
    assert watcher.state["phase"] == "finished" and watcher.state["game_id"] == "game1"
    (record,) = store.records
    assert [p["bot"] for p in record["players"]] == [False, True, True]


async def test_the_turn_timer_starts_afresh_at_the_restore(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    room, conns = await table(registry, 2, turn_seconds=30)
    await clock.advance(25)
    await registry.flush()
    registry2, clock2 = await restarted(clock, store)
    room2 = registry2.get(room.room_id)
    assert room2 is not None
    (conn,) = await resumed(room2, conns[:1])
    assert conn.state["round"]["turn_deadline"] == clock2.now() + 30


async def test_unreadable_snapshots_are_logged_and_deleted(
    registry: Registry, clock: ManualScheduler, store: MemoryStore, caplog: Any
) -> None:
    room, _ = await table(registry, 2)
    await registry.flush()
    good = encode_room(room.state)
    bad_die = encode_room(room.state) | {"room_id": "baddie0000"}
    bad_die["game"]["round"]["dice"][0]["dice"][0] = 9
    bad_bid = good | {"room_id": "badbid0000"}
    turn = good["game"]["round"]["turn"]
    opening = {"bid": [turn, 1, 2]}  # always legal to open with
    call = {"call": "dudo", "seat": 1 - turn}
    unfit = {  # a call whose deal has too few dice, too many, a face of 7, none at all
        f"baddeal00{n}": deal
        for n, deal in enumerate([[[0, [1]], [1, [2]]], [[0, [1] * 5], [1, [2] * 6]], None])
    } | {"baddeal003": [[0, [7] * 5], [1, [2] * 4]]}
    store.write_journal(
        {
            data["room_id"]: (1, data)
            for data in (
                good | {"room_id": "oldformat0", "version": 0},
                bad_die,
                bad_bid,
                *(good | {"room_id": room_id} for room_id in unfit),
            )
        },
        [
            ("badbid0000", 1, 2, {"bid": [0, 0, 7]}),
            *((room_id, 1, 2, opening) for room_id in unfit),
            *((room_id, 1, 3, call | {"deal": deal}) for room_id, deal in unfit.items()),
        ],
        [],
    )
    caplog.set_level(logging.ERROR)
    registry2, _ = await restarted(clock, store)
    assert len(registry2) == 1 and registry2.get(room.room_id) is not None
    await registry2.flush()
    assert list(store.snapshots) == [room.room_id]
    assert sorted(r.getMessage() for r in caplog.records) == [
        "dropping the unreadable records of room 'badbid0000'",
        *(f"dropping the unreadable records of room 'baddeal00{n}'" for n in range(4)),
        "dropping the unreadable records of room 'baddie0000'",
        "dropping the unreadable records of room 'oldformat0'",
    ]


async def test_a_store_that_cannot_load_leaves_an_empty_registry(
    clock: ManualScheduler, store: MemoryStore, caplog: Any
) -> None:
    store.snapshots["garbled000"] = (1, b"{not json")
    registry, _ = await restarted(clock, store)
    assert len(registry) == 0
    assert "could not load the journal of live rooms" in caplog.text
    room, _ = await table(registry, 2)  # and it serves on
    await registry.flush()
    assert room.room_id in store.snapshots


async def test_a_failed_write_is_logged_and_retried(
    registry: Registry, store: MemoryStore, caplog: Any
) -> None:
    room, _ = await table(registry, 2)
    store.fail = True
    await registry.flush()
    assert store.snapshots == {}
    assert "could not write the journal" in caplog.text
    store.fail = False
    await registry.flush()
    assert list(store.snapshots) == [room.room_id]
    assert store.snapshot(room.room_id) == encode_room(room.state)


async def test_actions_of_failed_writes_land_with_the_next_one(
    registry: Registry, clock: ManualScheduler, store: MemoryStore
) -> None:
    rng = random.Random(4)
    room, conns = await table(registry, 3)
    await registry.flush()
    store.fail = True
    for _ in range(2):  # two round ends, each flushed into a failing store
        number = conns[0].state["round"]["number"]
        while conns[0].state["round"]["number"] == number:
            await play(room, conns, 1, rng)
        await registry.flush()
    store.fail = False
    await play(room, conns, 1, rng)  # a bid after the last snapshot
    await registry.flush()
    assert room.state.game is not None and len(room.state.game.rounds) == 2
    registry2, _ = await restarted(clock, store)
    restored = registry2.get(room.room_id)
    assert restored is not None and restored.state.game is not None
    assert [r.to_dict() for r in restored.state.game.rounds] == [
        r.to_dict() for r in room.state.game.rounds
    ]
    assert restored.state.game.round == room.state.game.round  # the bid after the snapshot too


class GatedStore(MemoryStore):
    """The first journal write waits for the test to open the gate; every write logs the
    seq of the snapshots it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.calls = 0
        self.seqs: list[int] = []

    def write_journal(
        self,
        snapshots: Snapshots,
        entries: JournalRows,
        dropped: Iterable[str],
    ) -> None:
        self.calls += 1
        if self.calls == 1:
            assert self.gate.wait(5)
        super().write_journal(snapshots, entries, dropped)
        self.seqs.extend(orjson.loads(orjson.dumps(data))["seq"] for _, data in snapshots.values())


async def test_a_cancelled_flush_lands_before_the_next_write(clock: ManualScheduler) -> None:
    store = GatedStore()
    registry = new_registry(clock, store)
    room, conns = await table(registry, 2)
    first = asyncio.create_task(registry.flush())
    await asyncio.sleep(0.05)  # its write is blocked in the worker thread
    first.cancel()
    await play(room, conns, 1, random.Random(2))
    second = asyncio.create_task(registry.flush())
    await asyncio.sleep(0.05)
    assert not second.done()  # waits for the first write, not racing it
    store.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    await second
    assert store.seqs == sorted(store.seqs)  # the newer write came second
    assert [rev for rev, _ in store.entries[room.room_id]] == [store.snapshots[room.room_id][0] + 1]
