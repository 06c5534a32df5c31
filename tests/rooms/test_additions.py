"""The protocol's recent additions, room by room on a clock moved by hand: `history`,
`autoplayed`, the rematch back to the lobby, the socket cap, a null `host`, and `you.odds`."""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from app.engine import Game
from app.protocol import CloseCode, ProtocolError, RoomSettings
from app.rooms import ManualScheduler, Room, RoomConfig
from app.rooms.state import RoomState
from tests.rooms.conftest import BOT_DELAY, GRACE, FakeConnection, MemoryStore, say, seated
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.anyio
MakeRoom = Callable[..., Room]
Frame = dict[str, Any]
FOREVER = 100_000.0
BOT_STEP = BOT_DELAY * 1.31  # every bot move is due within this much


# ----- helpers -------------------------------------------------------------------------------


def kinds(conn: FakeConnection) -> list[str]:
    return [frame["type"] for frame in conn.frames]


def of_type(conn: FakeConnection, kind: str) -> list[Frame]:
    return [frame for frame in conn.frames if frame["type"] == kind]


def without_type(frame: Frame) -> Frame:
    return {key: value for key, value in frame.items() if key != "type"}


def token_of(conn: FakeConnection) -> str:
    token: str = of_type(conn, "welcome")[0]["token"]
    assert token
    return token


def player(state: Frame, seat: int) -> Frame:
    found: Frame = next(p for p in state["players"] if p["seat"] == seat)
    return found


def moves_by(game: Game, seat: int) -> int:
    """The moves `seat` made in a finished game: its bids and its dudo/calza calls."""
    assert game.finished
    bids = sum(placed.seat == seat for record in game.rounds for placed in record.bids)
    calls = sum(record.result.caller == seat for record in game.rounds)
    return bids + calls


async def watcher(room: Room) -> FakeConnection:
    conn = FakeConnection()
    await say(room, conn, type="watch")
    return conn


async def host_with_bots(room: Room, bots: int) -> FakeConnection:
    host = FakeConnection()
    await say(room, host, type="join", name="Ana")
    for _ in range(bots):
        await say(room, host, type="add_bot", level="normal")
    return host


async def advance_until(
    clock: ManualScheduler, done: Callable[[], bool], step: float = BOT_STEP
) -> None:
    for _ in range(10_000):
        if done():
            return
        await clock.advance(step)
    raise AssertionError("the room never got there")


async def refused(action: Awaitable[None]) -> str:
    with pytest.raises(ProtocolError) as error:
        await action
    return error.value.code


def check_announcements(frames: Sequence[Frame]) -> list[Frame]:
    """Every `autoplayed` in `frames`, each checked against the frames around it: the seat
    could make that move in the `state` before it, and the frames right after it show exactly
    that move (a bid: the next `state`; a call: the `round_result`, then the `state`)."""
    announced: list[Frame] = []
    before: Frame | None = None
    for i, frame in enumerate(frames):
        if frame["type"] == "state":
            before = frame
        if frame["type"] != "autoplayed":
            continue
        assert set(frame) == {"type", "seat", "reason", "action"}, frame
        assert frame["reason"] in {"timer", "away", "left"}
        assert before is not None and before["phase"] == "playing", frame
        seat, action, round_ = frame["seat"], frame["action"], before["round"]
        after = frames[i + 1]
        if action["type"] == "bid":
            assert set(action) == {"type", "quantity", "face"}
            assert round_["turn"] == seat
            assert after["type"] == "state", "the state that shows the bid comes next"
            assert after["round"]["number"] == round_["number"]
            placed = {"quantity": action["quantity"], "face": action["face"], "seat": seat}
            assert after["round"]["bids"] == [*round_["bids"], placed]
        else:
            assert action == {"type": action["type"]} and action["type"] in {"dudo", "calza"}
            if action["type"] == "dudo":
                assert round_["turn"] == seat
            assert after["type"] == "round_result", "the call's result comes next"
            assert (after["call"], after["caller"]) == (action["type"], seat)
            assert (after["round"], after["bid"]) == (round_["number"], round_["bid"])
            state = frames[i + 2]
            assert state["type"] == "state" and state["last_result"] == without_type(after)
        announced.append(frame)
    return announced


# ----- history -------------------------------------------------------------------------------


async def test_no_history_in_the_lobby(make_room: MakeRoom) -> None:
    room = make_room()
    ana, bea = await seated(room, 2)
    spectator = await watcher(room)
    back = FakeConnection()
    await room.disconnect(bea)
    await say(room, back, type="resume", token=token_of(bea))
    for conn in (ana, bea, spectator, back):
        assert kinds(conn)[:2] == ["welcome", "state"]
        assert "history" not in kinds(conn)


async def test_history_replays_the_current_games_rounds_to_every_hello(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room()
    host = await host_with_bots(room, 2)
    token = token_of(host)
    witness = await watcher(room)
    await say(room, host, type="start")
    # a hello as the game starts: an empty history, before the state
    early = await watcher(room)
    assert kinds(early) == ["welcome", "history", "state"]
    assert early.frames[1] == {"type": "history", "rounds": []}
    await say(room, host, type="leave")
    await advance_until(clock, lambda: len(of_type(witness, "round_result")) >= 2)

    def check_hello(conn: FakeConnection, seat: int | None) -> Frame:
        """welcome, history (= the round_results so far without "type"), then state."""
        assert kinds(conn) == ["welcome", "history", "state"]
        welcome, history, state = conn.frames
        assert welcome["seat"] == seat
        assert set(history) == {"type", "rounds"}
        assert history["rounds"] == [without_type(r) for r in of_type(witness, "round_result")]
        assert state["last_result"] == history["rounds"][-1]
        return state

    check_hello(await watcher(room), None)
    resumed = FakeConnection()
    await say(room, resumed, type="resume", token=token)
    assert player(check_hello(resumed, 0), 0)["autoplay"] is False
    await say(room, resumed, type="leave")  # the bots play on
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished"
    results = of_type(witness, "round_result")
    assert len(results) >= 10  # three players with five dice each
    after_end = check_hello(await watcher(room), None)
    assert after_end["phase"] == "finished"
    assert after_end["last_result"]["winner"] is not None
    host_again = FakeConnection()
    await say(room, host_again, type="resume", token=token)
    check_hello(host_again, 0)

    # rematch: the lobby has no history; the next game's history holds its own rounds only
    await say(room, host_again, type="rematch")
    lobby = await watcher(room)
    assert kinds(lobby) == ["welcome", "state"] and lobby.state["phase"] == "lobby"
    await say(room, host_again, type="start")
    fresh = await watcher(room)
    assert kinds(fresh) == ["welcome", "history", "state"]
    assert fresh.frames[1]["rounds"] == []
    await say(room, host_again, type="leave")
    seen = len(results)
    await advance_until(clock, lambda: len(of_type(witness, "round_result")) > seen)
    later = await watcher(room)
    assert later.frames[1]["rounds"] == [
        without_type(r) for r in of_type(witness, "round_result")[seen:]
    ]
    await clock.advance(FOREVER)
    await room.settle()


# ----- autoplayed ----------------------------------------------------------------------------


async def test_the_turn_timer_announces_each_move_it_makes_for_a_person(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(turn_seconds=10)
    ana, bea = await seated(room, 2)
    witness = await watcher(room)
    await say(room, ana, type="start")
    turn = ana.state["round"]["turn"]
    seq = witness.state["seq"]
    await clock.advance(9.9)
    assert witness.state["seq"] == seq and "autoplayed" not in kinds(witness)
    await clock.advance(0.2)
    assert kinds(witness)[-2:] == ["autoplayed", "state"]
    first = witness.frames[-2]
    assert first["seat"] == turn and first["reason"] == "timer"
    assert first["action"]["type"] == "bid"  # nobody may call before a bid stands
    await clock.advance(FOREVER)  # nobody acts: the timer plays the whole game
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    announced = check_announcements(witness.frames)
    assert {a["reason"] for a in announced} == {"timer"}
    for seat in (0, 1):
        assert sum(a["seat"] == seat for a in announced) == moves_by(room.state.game, seat)
    # the timer plays single turns: neither seat is ever handed to the bot
    states = of_type(witness, "state")
    assert not any(p["autoplay"] for state in states for p in state["players"])
    for conn in (ana, bea):  # everyone hears it, in the same order
        assert [f for f in conn.frames if f["type"] == "autoplayed"] == announced


async def three_with_seat_2_away(room: Room) -> tuple[list[FakeConnection], FakeConnection]:
    """Three people and a spectator; seat 2 drops before any move, so every move of seat 2
    is the server's."""
    conns = await seated(room, 3)
    witness = await watcher(room)
    await say(room, conns[0], type="start")
    await room.disconnect(conns[2])
    return conns, witness


async def play_with_seat_2_away(
    room: Room,
    conns: list[FakeConnection],
    witness: FakeConnection,
    clock: ManualScheduler,
    until: Callable[[], bool],
) -> None:
    """Seats 0 and 1 play legal moves and the clock lets the bot play seat 2, until `until()`
    or the game's end."""
    rng = random.Random(5)
    while room.state.phase == "playing" and not until():
        turn = witness.state["round"]["turn"]
        if turn == 2:
            await clock.advance(GRACE + BOT_STEP)
        else:
            await say(room, conns[turn], **legal_move(conns[turn].state, rng))


async def test_a_person_away_past_the_grace_is_announced_as_away(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=3)
    conns, witness = await three_with_seat_2_away(room)
    await play_with_seat_2_away(room, conns, witness, clock, until=lambda: False)
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    announced = check_announcements(witness.frames)
    assert announced
    assert {(a["seat"], a["reason"]) for a in announced} == {(2, "away")}
    assert len(announced) == moves_by(room.state.game, 2)


async def test_a_returning_person_is_told_what_was_played_for_them_while_away(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=3)
    conns, witness = await three_with_seat_2_away(room)
    await play_with_seat_2_away(
        room, conns, witness, clock, until=lambda: len(of_type(witness, "autoplayed")) >= 2
    )
    announced = of_type(witness, "autoplayed")
    assert len(announced) >= 2
    back = FakeConnection()
    await say(room, back, type="resume", token=token_of(conns[2]))
    assert of_type(back, "welcome")[0]["autoplayed"] == announced
    again = FakeConnection()  # told once: a second return while connected has nothing new
    await say(room, again, type="resume", token=token_of(conns[2]))
    for told_nothing in (again, conns[0], witness):
        assert "autoplayed" not in of_type(told_nothing, "welcome")[0]
    await clock.advance(FOREVER)
    await room.settle()


async def test_a_person_who_left_is_announced_as_left_and_bots_never(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=4)
    host = await host_with_bots(room, 2)
    witness = await watcher(room)
    await say(room, host, type="start")
    await say(room, host, type="leave")
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    announced = check_announcements(witness.frames)
    assert announced
    assert {(a["seat"], a["reason"]) for a in announced} == {(0, "left")}
    assert len(announced) == moves_by(room.state.game, 0)
    assert (
        moves_by(room.state.game, 1) + moves_by(room.state.game, 2) > 0
    )  # the bots played, unannounced


async def test_no_announcement_when_only_the_hosts_bots_are_played(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=5)
    host = await host_with_bots(room, 2)
    await say(room, host, type="start")
    rng = random.Random(6)
    for _ in range(10_000):
        if room.state.phase != "playing":
            break
        if host.state["round"]["turn"] == 0:
            await say(room, host, **legal_move(host.state, rng))
        else:
            await clock.advance(BOT_STEP)
    await room.settle()
    assert room.state.phase == "finished" and room.state.game is not None
    assert moves_by(room.state.game, 1) + moves_by(room.state.game, 2) > 0
    assert "autoplayed" not in kinds(host)


async def test_a_calza_the_bot_calls_for_an_away_person_is_announced(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    """Two people away among four bots: the server's bot plays them, calza out of turn
    included (some seed in a few brings one)."""
    calzas: list[Frame] = []
    for seed in range(1, 31):
        room = make_room(seed=seed)
        ana, bea = FakeConnection(), FakeConnection()
        await say(room, ana, type="join", name="Ana")
        await say(room, bea, type="join", name="Bea")
        for _ in range(4):
            await say(room, ana, type="add_bot", level="hard")
        witness = await watcher(room)
        await say(room, ana, type="start")
        await room.disconnect(ana)
        await room.disconnect(bea)
        await clock.advance(FOREVER)
        await room.settle()
        assert room.state.phase == "finished"
        announced = check_announcements(witness.frames)
        assert {a["seat"] for a in announced} == {0, 1}
        assert {a["reason"] for a in announced} == {"away"}
        calzas = [a for a in announced if a["action"]["type"] == "calza"]
        if calzas:
            break
    assert calzas, "no away person's bot called calza in 30 games"
    assert calzas[0]["action"] == {"type": "calza"}


async def test_leaving_on_ones_own_turn_hands_that_turn_to_the_bot(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=7)
    conns = await seated(room, 3)
    witness = await watcher(room)
    await say(room, conns[0], type="start")
    turn = witness.state["round"]["turn"]
    await say(room, conns[turn], type="leave")
    assert player(witness.state, turn)["autoplay"] is True
    assert "autoplayed" not in kinds(witness)
    await clock.advance(BOT_STEP)
    (announced,) = check_announcements(witness.frames)
    assert announced["seat"] == turn and announced["reason"] == "left"
    assert witness.state["round"]["bids"][0]["seat"] == turn


# ----- rematch -------------------------------------------------------------------------------


async def test_rematch_goes_back_to_the_lobby_keeping_the_seats_of_those_still_there(
    make_room: MakeRoom, clock: ManualScheduler, store: MemoryStore
) -> None:
    room = make_room(seed=8, turn_seconds=10)
    host, leaver, gone, idle = await seated(room, 4)  # seats 0..3
    await say(room, host, type="add_bot", level="easy")  # seat 4
    bot_name = player(host.state, 4)["name"]
    tokens = {i: token_of(c) for i, c in enumerate((host, leaver, gone, idle))}
    witness = await watcher(room)
    code = await refused(say(room, host, type="rematch"))
    assert code == "game_not_running"  # a rematch in the lobby
    await say(room, host, type="start")
    assert await refused(say(room, host, type="rematch")) == "game_in_progress"
    await say(room, leaver, type="leave")
    await room.disconnect(gone)
    await clock.advance(FOREVER)  # nobody acts: timers, the bot and autoplay play it out
    await room.settle()
    assert room.state.phase == "finished"
    announced = check_announcements(witness.frames)
    assert {a["reason"] for a in announced if a["seat"] == 3} == {"timer"}
    assert {a["reason"] for a in announced if a["seat"] == 1} == {"left"}
    assert not any(player(s, 3)["autoplay"] for s in of_type(witness, "state"))

    # in the finished room: only the host's rematch
    assert await refused(say(room, idle, type="rematch")) == "not_host"
    assert await refused(say(room, witness, type="rematch")) == "not_host"
    assert await refused(say(room, leaver, type="rematch")) == "not_host"
    assert await refused(say(room, host, type="start")) == "game_in_progress"
    assert await refused(say(room, host, type="settings", odds=True)) == "game_in_progress"
    assert await refused(say(room, FakeConnection(), type="join", name="Zoe")) == (
        "game_in_progress"
    )

    await say(room, host, type="rematch")
    state = witness.state
    assert state["phase"] == "lobby"
    assert state["host"] == 0
    assert [p["seat"] for p in state["players"]] == [0, 3, 4]
    assert player(state, 4)["bot"] is True and player(state, 4)["name"] == bot_name
    assert not any(p["autoplay"] for p in state["players"])
    assert all(p["connected"] for p in state["players"])
    assert state["round"] is None and state["last_result"] is None
    assert state["winner"] is None and state["game_id"] is None
    assert host.state["you"]["seat"] == 0 and idle.state["you"]["seat"] == 3
    assert leaver.state["you"]["seat"] is None and leaver.state["phase"] == "lobby"  # watches
    assert host.state["seq"] == state["seq"] == idle.state["seq"]
    # the freed seats' tokens stop working; the kept ones still resume
    for seat in (1, 2):
        code = await refused(say(room, FakeConnection(), type="resume", token=tokens[seat]))
        assert code == "unknown_token"
    again = FakeConnection()
    await say(room, again, type="resume", token=tokens[3])
    assert again.state["you"]["seat"] == 3 and idle.closed == CloseCode.SUPERSEDED
    # the lobby works as before: a newcomer takes the lowest free seat, then start
    newcomer = FakeConnection()
    await say(room, newcomer, type="join", name="Zoe")
    assert newcomer.state["you"]["seat"] == 1
    assert await refused(say(room, host, type="rematch")) == "game_not_running"
    assert await refused(say(room, again, type="start")) == "not_host"
    await say(room, host, type="settings", turn_seconds=20)  # settings may change again
    assert again.state["settings"]["turn_seconds"] == 20
    await say(room, host, type="start")
    state = witness.state
    assert state["phase"] == "playing" and state["round"]["number"] == 1
    assert [(p["seat"], p["dice"]) for p in state["players"]] == [(s, 5) for s in (0, 1, 3, 4)]
    await clock.advance(FOREVER)
    await room.settle()
    assert len(store.records) == 2


async def test_after_the_host_left_the_new_host_rematches_and_keeps_hosting(
    make_room: MakeRoom, clock: ManualScheduler
) -> None:
    room = make_room(seed=9, turn_seconds=10)
    ana, bea, cid = await seated(room, 3)
    await say(room, ana, type="start")
    await say(room, ana, type="leave")
    assert bea.state["host"] == 1
    # Cid leaves, then comes back before the end: connected again, so the seat is kept
    await say(room, cid, type="leave")
    cid_back = FakeConnection()
    await say(room, cid_back, type="resume", token=token_of(cid))
    await clock.advance(FOREVER)
    await room.settle()
    assert room.state.phase == "finished"
    assert await refused(say(room, cid_back, type="rematch")) == "not_host"
    await say(room, bea, type="rematch")
    state = bea.state
    assert state["phase"] == "lobby" and state["host"] == 1
    assert [p["seat"] for p in state["players"]] == [1, 2]
    await say(room, bea, type="start")
    assert bea.state["phase"] == "playing"


# ----- the socket cap ------------------------------------------------------------------------


def capped_room(clock: ManualScheduler, sockets: int = 3) -> Room:
    return Room(
        RoomState("testroom01", RoomSettings()),
        scheduler=clock,
        config=RoomConfig(bot_delay=BOT_DELAY, disconnect_grace=GRACE, room_sockets=sockets),
        rng=random.Random(1),
    )


@pytest.mark.parametrize("hello", [{"type": "join", "name": "Dan"}, {"type": "watch"}])
async def test_a_join_or_watch_beyond_the_cap_is_closed_with_1013(
    clock: ManualScheduler, hello: Frame
) -> None:
    room = capped_room(clock)
    ana, _ = await seated(room, 2)
    await watcher(room)  # spectators count too
    before = ana.state
    extra = FakeConnection()
    await say(room, extra, **hello)
    assert extra.closed == CloseCode.TRY_AGAIN_LATER
    assert extra.closed == 1013
    assert extra.frames == []  # no welcome, no seat
    assert ana.state == before and room.connections == 3
    assert [seat.number for seat in room.state.seats] == [0, 1]


async def test_the_cap_holds_during_a_game_and_frees_up_when_a_socket_goes(
    clock: ManualScheduler,
) -> None:
    room = capped_room(clock)
    ana, bea, cid = await seated(room, 3)
    await say(room, ana, type="start")
    late = FakeConnection()
    await say(room, late, type="watch")
    assert late.closed == 1013 and late.frames == []
    await room.disconnect(cid)
    spectator = await watcher(room)
    assert spectator.closed is None and spectator.state["you"]["seat"] is None
    assert ana.state["spectators"] == 1 and bea.state["spectators"] == 1


async def test_a_resume_gets_its_seat_back_in_a_full_room(clock: ManualScheduler) -> None:
    room = capped_room(clock)
    ana, bea, cid = await seated(room, 3)
    # a resume while the seat's old socket is still open: it is replaced, not refused
    ana2 = FakeConnection()
    await say(room, ana2, type="resume", token=token_of(ana))
    assert ana2.closed is None and ana2.state["you"]["seat"] == 0
    assert ana.closed == CloseCode.SUPERSEDED and room.connections == 3
    # a seat whose socket is gone, while the room is full of others
    await room.disconnect(cid)
    await watcher(room)
    assert room.connections == 3
    cid2 = FakeConnection()
    await say(room, cid2, type="resume", token=token_of(cid))
    assert cid2.closed is None
    assert kinds(cid2) == ["welcome", "state"] and cid2.state["you"]["seat"] == 2
    assert player(bea.state, 2)["connected"] is True
    await say(room, ana2, type="start")  # the room goes on with four sockets
    assert cid2.state["phase"] == "playing" and len(cid2.state["you"]["dice"]) == 5


# ----- host null -----------------------------------------------------------------------------


async def test_host_is_null_while_no_person_is_seated(make_room: MakeRoom) -> None:
    room = make_room()
    spectator = await watcher(room)
    assert spectator.state["host"] is None and spectator.state["players"] == []
    ana = FakeConnection()
    await say(room, ana, type="join", name="Ana")
    assert spectator.state["host"] == 0
    await say(room, ana, type="leave")  # the room is empty again
    assert spectator.state["host"] is None and spectator.state["players"] == []
    await say(room, ana, type="join", name="Ana") if False else None
    bea = FakeConnection()
    await say(room, bea, type="join", name="Bea")
    await say(room, bea, type="add_bot")
    await say(room, bea, type="add_bot")
    await room.disconnect(bea)  # away, still seated: still the host
    assert spectator.state["host"] == 0
    bea2 = FakeConnection()
    await say(room, bea2, type="resume", token=token_of(bea))
    await say(room, bea2, type="leave")  # only bots are left
    state = spectator.state
    assert state["host"] is None
    assert [p["bot"] for p in state["players"]] == [True, True]
    cid = FakeConnection()
    await say(room, cid, type="join", name="Cid")
    assert spectator.state["host"] == cid.state["you"]["seat"] == 0


# ----- you.odds ------------------------------------------------------------------------------


def chance(quantity: int, face: int, own: Sequence[int], total: int, palifico: bool) -> float:
    """P(at least `quantity` of `total` dice meet a bid on `face`), knowing the dice `own`:
    a binomial over the dice one cannot see, written out independently of the engine."""
    wild = not palifico and face != 1
    needed = quantity - sum(1 for die in own if die == face or (wild and die == 1))
    unseen = total - len(own)
    p = 1 / 3 if wild else 1 / 6
    return sum(
        math.comb(unseen, k) * p**k * (1 - p) ** (unseen - k)
        for k in range(max(needed, 0), unseen + 1)
    )


def check_odds(state: Frame) -> None:
    """`you.odds` has the agreed shape and agrees with the dice this connection may know."""
    odds, you, round_ = state["you"]["odds"], state["you"], state["round"]
    assert set(odds) == {"bid", "min_raise"}
    assert len(odds["min_raise"]) == 6
    total, palifico = round_["total_dice"], round_["palifico"]
    bid = round_["bid"]
    if bid is None:
        assert odds["bid"] is None
    else:
        assert isinstance(odds["bid"], float) and 0.0 <= odds["bid"] <= 1.0
        expected = chance(bid["quantity"], bid["face"], you["dice"], total, palifico)
        assert odds["bid"] == pytest.approx(expected)
    least = you["legal"]["min_quantity"]
    for face, (quantity, p) in enumerate(zip(least, odds["min_raise"], strict=True), start=1):
        if quantity is None:
            assert p is None
        else:
            assert isinstance(p, float) and 0.0 <= p <= 1.0
            assert p == pytest.approx(chance(quantity, face, you["dice"], total, palifico))


async def test_odds_are_null_when_the_setting_is_off(make_room: MakeRoom) -> None:
    room = make_room()
    conns = await seated(room, 3)
    spectator = await watcher(room)
    await say(room, conns[0], type="start")
    turn = conns[0].state["round"]["turn"]
    await say(room, conns[turn], type="bid", quantity=2, face=3)
    for conn in (*conns, spectator):
        assert conn.state["phase"] == "playing" and conn.state["you"]["odds"] is None


async def test_odds_for_the_player_to_act_follow_their_own_dice(make_room: MakeRoom) -> None:
    room = make_room(seed=11, odds=True)
    conns = await seated(room, 3)
    spectator = await watcher(room)
    assert all(c.state["you"]["odds"] is None for c in (*conns, spectator))  # the lobby
    await say(room, conns[0], type="start")
    rng = random.Random(12)
    checked = 0
    while room.state.phase == "playing" and checked < 60:
        turn = conns[0].state["round"]["turn"]
        actor = conns[turn].state
        assert actor["you"]["odds"] is not None
        assert any(p is not None for p in actor["you"]["odds"]["min_raise"])
        for conn in conns:
            if conn.state["you"]["dice"]:
                check_odds(conn.state)
        checked += 1
        move = legal_move(actor, rng)
        await say(room, conns[turn], **move)
    assert checked >= 10


async def test_spectators_odds_never_depend_on_hidden_dice(make_room: MakeRoom) -> None:
    """The same public table in rooms whose dice differ: the spectator's odds are the same,
    and either null or the table's chances with no die known."""
    seen: list[Frame | None] = []
    hands: set[tuple[tuple[int, ...], ...]] = set()
    for seed in range(20, 28):
        room = make_room(seed=seed, odds=True)
        conns = await seated(room, 3)
        spectator = await watcher(room)
        await say(room, conns[0], type="start")
        hands.add(tuple(tuple(c.state["you"]["dice"]) for c in conns))
        before: Frame | None = spectator.state["you"]["odds"]
        if before is not None:
            assert before == {"bid": None, "min_raise": [None] * 6}
        turn = conns[0].state["round"]["turn"]
        await say(room, conns[turn], type="bid", quantity=4, face=3)
        state = spectator.state
        assert state["you"]["dice"] == [] and state["you"]["seat"] is None
        odds: Frame | None = state["you"]["odds"]
        if odds is not None:
            assert odds["min_raise"] == [None] * 6
            assert odds["bid"] is None or odds["bid"] == pytest.approx(
                chance(4, 3, [], 15, palifico=False)
            )
        seen.append(odds)
    assert len(hands) == 8  # the hidden dice differed every time
    assert all(odds == seen[0] for odds in seen)
