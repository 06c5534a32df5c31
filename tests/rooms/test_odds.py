"""`you.odds`, the odds helper: null with the setting off, the exact chance for the player
to act given their own dice, and nothing a spectator's could learn of hidden dice."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from tests.rooms.conftest import say, seated
from tests.rooms.helpers import Frame, MakeRoom, watcher
from tests.ws.helpers import legal_move

pytestmark = pytest.mark.anyio


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
