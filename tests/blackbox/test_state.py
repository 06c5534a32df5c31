"""PROTOCOL.md's `state`, field by field, in the moments a client meets it.

(Every `state` any test receives is also checked by `spec.check_state`; these tests pin the
values a client can predict exactly.)
"""

from __future__ import annotations

import time

from tests.blackbox.play import Table, key
from tests.blackbox.spec import SETTINGS_DEFAULTS, player
from tests.blackbox.wire import Server

TIMER = 10


def test_lobby_state(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob"])
    state = table.players[0].state_where(lambda s: len(s["players"]) == 2)
    assert state["phase"] == "lobby" and state["settings"] == SETTINGS_DEFAULTS
    assert state["host"] == 0 and state["round"] is None and state["last_result"] is None
    assert state["winner"] is None and state["game_id"] is None
    assert [(p["seat"], p["name"], p["bot"], p["connected"]) for p in state["players"]] == [
        (0, "Ann", False, True),
        (1, "Bob", False, True),
    ]
    assert state["you"] == {
        "seat": 0,
        "dice": [],
        "legal": {"min_quantity": [None] * 6, "dudo": False, "calza": False},
    } | {k: v for k, v in state["you"].items() if k not in ("seat", "dice", "legal")}


def test_first_state_of_a_game(server: Server) -> None:
    table = Table.playing(server, 3)
    for client in table.players.values():
        state = client.state
        assert state is not None
        round_ = state["round"]
        assert round_["number"] == 1 and round_["turn"] == round_["opener"]
        assert round_["bid"] is None and round_["bids"] == []
        assert round_["total_dice"] == 15 and round_["turn_deadline"] is None
        assert round_["palifico"] is False and round_["palifico_seat"] is None
        assert round_["roll_off"] and round_["roll_off"][0]
        assert state["last_result"] is None and state["winner"] is None
        assert state["game_id"] is None
        assert all(
            (p["dice"], p["out"], p["palifico_used"]) == (5, False, False) for p in state["players"]
        )
        assert len(state["you"]["dice"]) == 5
        legal = state["you"]["legal"]
        if client.seat == round_["turn"]:
            assert legal == {"min_quantity": [None, 1, 1, 1, 1, 1], "dudo": False, "calza": False}
        else:
            assert legal == {"min_quantity": [None] * 6, "dudo": False, "calza": False}


def test_legal_after_a_bid(server: Server) -> None:
    """Bid 2x3 at a three-player table (15 dice), pressman calza."""
    table = Table.playing(server, 3)
    bidder = table.to_act()
    table.bid(bidder, 2, 3)
    actor = table.to_act()
    [third] = table.others(bidder, actor)
    assert actor.state is not None and third.state is not None and bidder.state is not None
    assert actor.state["you"]["legal"] == {
        "min_quantity": [1, 3, 3, 2, 2, 2],
        "dudo": True,
        "calza": False,
    }
    for client in (bidder, third):
        assert client.state is not None
        assert client.state["you"]["legal"] == {
            "min_quantity": [None] * 6,
            "dudo": False,
            "calza": True,
        }
    spectator = table.watch()
    assert spectator.state is not None
    assert spectator.state["you"]["legal"]["calza"] is False


def test_legal_after_an_aces_bid(server: Server) -> None:
    table = Table.playing(server, 4)
    table.bid(table.to_act(), 6, 5)
    table.bid(table.to_act(), 3, 1)
    actor = table.to_act()
    assert actor.state is not None
    assert actor.state["you"]["legal"]["min_quantity"] == [4, 7, 7, 7, 7, 7]
    table.bid(actor, 7, 2)
    actor = table.to_act()
    assert actor.state is not None
    assert actor.state["you"]["legal"]["min_quantity"] == [4, 8, 7, 7, 7, 7]


def test_faces_beyond_the_dice_in_play_are_closed(server: Server) -> None:
    table = Table.playing(server, 2)
    table.bid(table.to_act(), 10, 5)
    actor = table.to_act()
    assert actor.state is not None
    assert actor.state["you"]["legal"]["min_quantity"] == [5, None, None, None, None, 10]


def test_presence_changes_send_a_newer_state(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob"])
    ann, bob = table.players[0], table.players[1]
    held = ann.state_where(lambda s: len(s["players"]) == 2)
    bob.close()
    state = ann.state_where(lambda s: not (player(s, 1) or {}).get("connected", True))
    assert state["seq"] > held["seq"]
    assert [p["seat"] for p in state["players"]] == [0, 1], "a dropped socket keeps its seat"
    back = server.client(table.room_id)
    back.hello(type="resume", token=bob.token)
    again = ann.state_where(lambda s: (player(s, 1) or {}).get("connected") is True)
    assert again["seq"] > state["seq"]


def test_spectators_see_the_table_but_no_dice(server: Server) -> None:
    table = Table.playing(server, 3)
    spectator = table.watch()
    state = spectator.state
    assert state is not None and state["you"]["seat"] is None and state["you"]["dice"] == []
    assert [p["dice"] for p in state["players"]] == [5, 5, 5]
    assert state["round"]["roll_off"], "the roll-off is shown to everyone"


def test_turn_deadline_when_a_timer_is_set(server: Server) -> None:
    table = Table.playing(server, 3, turn_seconds=TIMER)
    now = time.time()
    for client in table.clients:
        assert client.state is not None
        deadline = client.state["round"]["turn_deadline"]
        assert isinstance(deadline, float | int) and now + TIMER - 2 <= deadline <= now + TIMER + 1
    first = table.any.state
    assert first is not None
    time.sleep(0.5)
    table.bid(table.to_act(), 1, 2)
    second = table.any.state
    assert second is not None
    assert second["round"]["turn_deadline"] > first["round"]["turn_deadline"], "a new turn"


def test_when_the_deadline_passes_the_bot_plays_the_turn(server: Server) -> None:
    table = Table.playing(server, 2, turn_seconds=TIMER)
    state = table.any.state
    assert state is not None
    opener = state["round"]["turn"]
    moved = table.any.state_where(lambda s: s["round"]["bids"] != [], timeout=TIMER + 4)
    assert moved["round"]["bids"][0]["seat"] == opener
    assert time.time() >= state["round"]["turn_deadline"] - 0.5
    assert all(p["connected"] for p in moved["players"]), "the owner is still there"
    for client in table.clients:
        client.state_where(lambda s: key(s) == key(moved))
    other = table.to_act()
    legal = other.state["you"]["legal"] if other.state else {}
    quantity, face = next(
        (q, f) for f, q in enumerate(legal["min_quantity"], start=1) if q is not None
    )
    table.bid(other, quantity, face)
    owner = table.to_act()
    assert owner.seat == opener and owner.state is not None
    deadline = owner.state["round"]["turn_deadline"]
    assert time.time() + TIMER - 2 <= deadline, "the owner has a fresh turn of their own"
    assert not owner.drain(0.5), "the bot played only the turn that timed out"
    table.act(owner, type="dudo")
