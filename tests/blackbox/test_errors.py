"""Every error code of PROTOCOL.md, each in the situation it names; nothing changes after one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.blackbox.play import Table
from tests.blackbox.wire import Client, Server

NOT_JSON = ["hello", "{", "", "{'type': 'ping'}", '{"type": "ping"', "\x00"]
NOT_OBJECTS = ["[]", '[{"type": "ping"}]', '"ping"', "3", "null", "true"]
NO_TYPE = ["{}", '{"text": "x"}', '{"type": 3}', '{"type": null}', '{"type": ["ping"]}']
UNKNOWN_TYPES = ['{"type": "hello"}', '{"type": "PING"}', '{"type": "Dudo"}', '{"type": ""}']
MALFORMED = NOT_JSON + NOT_OBJECTS + NO_TYPE + UNKNOWN_TYPES


@pytest.fixture
def lobby(server: Server) -> Table:
    """Ann (host) and Bob in a lobby."""
    return Table.seat(server, ["Ann", "Bob"])


@pytest.fixture
def game(server: Server) -> Table:
    """Three scripted players, a game running, nobody has bid yet."""
    return Table.playing(server, 3)


@pytest.mark.parametrize("frame", MALFORMED)
def test_malformed_after_a_hello_is_bad_message(lobby: Table, frame: str) -> None:
    lobby.any.reject(frame, "bad_message")


@pytest.mark.parametrize("frame", MALFORMED)
def test_malformed_before_a_hello_is_refused(server: Server, frame: str) -> None:
    client = server.client(server.new_room())
    client.reject(frame, "bad_message", "not_joined")
    assert client.hello(type="watch")["seat"] is None


@pytest.mark.parametrize(
    "fields",
    [
        {"quantity": "3", "face": 2},
        {"quantity": 3.0, "face": 2},
        {"quantity": True, "face": 2},
        {"quantity": None, "face": 2},
        {"quantity": [3], "face": 2},
        {"quantity": 1, "face": "2"},
        {"quantity": 1, "face": 2.0},
        {"quantity": 1, "face": True},
        {"quantity": 1, "face": {"n": 2}},
        {"face": 2},
        {"quantity": 1},
        {},
    ],
)
def test_bid_types_are_strict(game: Table, fields: dict[str, Any]) -> None:
    game.to_act().reject({"type": "bid", **fields}, "bad_message")


@pytest.mark.parametrize(
    "quantity, face",
    [(0, 2), (-1, 2), (1, 0), (1, 7), (1, -3), (16, 2), (10**30, 3), (1, 10**30), (1, 1)],
)
def test_out_of_range_or_ace_opening_is_illegal_bid(game: Table, quantity: int, face: int) -> None:
    """15 dice in play; aces never open a normal round (RULES.md 4, example 16)."""
    game.to_act().reject({"type": "bid", "quantity": quantity, "face": face}, "illegal_bid")


@pytest.mark.parametrize(
    "standing, refused",
    [
        ((7, 4), [(6, 6), (7, 2), (7, 4), (3, 1)]),
        ((8, 6), [(3, 1), (8, 6), (8, 5)]),
        ((11, 3), [(5, 1), (11, 2), (10, 6)]),
    ],
)
def test_raises_that_rules_md_forbids_are_illegal_bid(
    server: Server, standing: tuple[int, int], refused: list[tuple[int, int]]
) -> None:
    """RULES.md 10, examples 3, 4, 7, 9 and their kin, at a table of 18 dice (4 players)."""
    table = Table.playing(server, 4)
    table.bid(table.to_act(), *standing)
    actor = table.to_act()
    for quantity, face in refused:
        actor.reject({"type": "bid", "quantity": quantity, "face": face}, "illegal_bid")


@pytest.mark.parametrize(
    "standing, accepted",
    [
        ((7, 4), (7, 5)),
        ((7, 4), (8, 2)),
        ((7, 4), (9, 3)),
        ((8, 6), (4, 1)),
        ((11, 3), (6, 1)),
        ((9, 4), (5, 1)),
    ],
)
def test_raises_that_rules_md_allows_are_accepted(
    server: Server, standing: tuple[int, int], accepted: tuple[int, int]
) -> None:
    """RULES.md 10, examples 1, 2, 5, 6, 8, 15 (Table.act checks the new bid and turn)."""
    table = Table.playing(server, 4)
    table.bid(table.to_act(), *standing)
    table.bid(table.to_act(), *accepted)


@pytest.mark.parametrize(
    "aces, refused, accepted",
    [((4, 1), (8, 6), (9, 2)), ((5, 1), (10, 6), (11, 3)), ((4, 1), (4, 1), (5, 1))],
)
def test_leaving_aces(
    server: Server,
    aces: tuple[int, int],
    refused: tuple[int, int],
    accepted: tuple[int, int],
) -> None:
    """RULES.md 10, examples 10-14: more aces, or back to a face with at least 2q+1."""
    table = Table.playing(server, 4)
    table.bid(table.to_act(), 8, 6)
    table.bid(table.to_act(), *aces)
    actor = table.to_act()
    actor.reject({"type": "bid", "quantity": refused[0], "face": refused[1]}, "illegal_bid")
    table.bid(actor, *accepted)


def test_not_your_turn(game: Table, server: Server) -> None:
    waiting = game.others(game.to_act())
    for client in waiting:
        client.reject({"type": "bid", "quantity": 1, "face": 2}, "not_your_turn")
    game.bid(game.to_act(), 2, 3)
    spectator = game.watch()
    for client in [*game.others(game.to_act()), spectator]:
        client.reject({"type": "bid", "quantity": 5, "face": 5}, "not_your_turn")
        client.reject({"type": "dudo"}, "not_your_turn")


def test_dudo_or_calza_with_no_bid_is_no_bid(game: Table) -> None:
    actor = game.to_act()
    actor.reject({"type": "dudo"}, "no_bid")
    for client in game.others(actor):
        client.reject({"type": "calza"}, "no_bid", "calza_not_allowed")


def test_calza_by_the_player_to_act_under_pressman(game: Table) -> None:
    game.bid(game.to_act(), 2, 3)
    game.to_act().reject({"type": "calza"}, "calza_not_allowed")


def test_calza_by_the_standing_bidder_under_pressman_is_allowed(game: Table) -> None:
    """RULES.md 6: read literally, the standing bidder may call calza on their own bid."""
    game.bid(game.to_act(), 2, 3)
    game.act(game.last_bidder(), type="calza")
    assert game.results[-1]["caller"] == game.results[-1]["bid"]["seat"]


def test_calza_under_asmodee(server: Server) -> None:
    """RULES.md 6: anyone but the standing bidder, the player to act included."""
    table = Table.playing(server, 3, calza_rule="asmodee")
    table.bid(table.to_act(), 2, 3)
    table.last_bidder().reject({"type": "calza"}, "calza_not_allowed")
    actor = table.to_act()
    table.act(actor, type="calza")
    assert table.results[-1]["caller"] == actor.seat


def test_calza_off(server: Server) -> None:
    table = Table.playing(server, 3, calza=False)
    table.bid(table.to_act(), 2, 3)
    for client in table.others(table.to_act()):
        client.reject({"type": "calza"}, "calza_not_allowed")


def test_calza_with_two_players(server: Server) -> None:
    table = Table.playing(server, 2)
    table.bid(table.to_act(), 2, 3)
    for client in table.players.values():
        client.reject({"type": "calza"}, "calza_not_allowed")


def test_a_spectator_may_not_call_calza(game: Table) -> None:
    game.bid(game.to_act(), 2, 3)
    game.watch().reject({"type": "calza"}, "calza_not_allowed", "not_your_turn")


@pytest.mark.parametrize("message", [{"type": "start"}, {"type": "settings", "calza": False}])
def test_host_actions_during_a_game_are_game_in_progress(game: Table, message: Any) -> None:
    game.host.reject(message, "game_in_progress", "not_host")
    if message["type"] == "start":
        game.host.reject(message, "game_in_progress")


@pytest.mark.parametrize(
    "message", [{"type": "add_bot"}, {"type": "kick", "seat": 1}, {"type": "rematch"}]
)
def test_lobby_and_rematch_actions_during_a_game_are_refused(game: Table, message: Any) -> None:
    """PROTOCOL.md: add_bot and kick are lobby actions, rematch comes after the game."""
    game.host.reject(message, "game_in_progress", "game_not_running")


@pytest.mark.parametrize(
    "message",
    [
        {"type": "bid", "quantity": 1, "face": 2},
        {"type": "dudo"},
        {"type": "calza"},
    ],
)
def test_game_actions_in_the_lobby_are_game_not_running(lobby: Table, message: Any) -> None:
    for client in lobby.players.values():
        client.reject(message, "game_not_running")


def test_rematch_in_the_lobby_is_refused(lobby: Table) -> None:
    lobby.host.reject({"type": "rematch"}, "game_not_running", "game_in_progress")


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start"},
        {"type": "settings", "calza": False},
        {"type": "add_bot"},
        {"type": "kick", "seat": 0},
    ],
)
def test_host_only_lobby_actions(lobby: Table, server: Server, message: Any) -> None:
    guest = lobby.others(lobby.host)[0]
    guest.reject(message, "not_host")
    server.watch(lobby.room_id).reject(message, "not_host")


def test_start_alone_is_not_enough_players(server: Server) -> None:
    host = server.join(server.new_room(), "Ann")
    host.reject({"type": "start"}, "not_enough_players")


@pytest.mark.parametrize(
    "fields",
    [
        {"max_players": "3"},
        {"max_players": 3.0},
        {"max_players": True},
        {"max_players": 7},
        {"max_players": 1},
        {"calza": 1},
        {"calza": "false"},
        {"palifico": None},
        {"calza_rule": "dutch"},
        {"turn_seconds": 9},
        {"turn_seconds": 601},
        {"turn_seconds": 30.0},
        {"turn_seconds": "30"},
    ],
)
def test_bad_settings_are_bad_message(lobby: Table, fields: dict[str, Any]) -> None:
    lobby.host.reject({"type": "settings", **fields}, "bad_message")


def test_settings_change_any_subset(lobby: Table) -> None:
    before = lobby.host.state
    assert before is not None
    lobby.host.send(type="settings", calza_rule="asmodee", turn_seconds=30)
    for client in lobby.players.values():
        state = client.state_where(lambda s: s["settings"]["calza_rule"] == "asmodee")
        assert state["settings"] == before["settings"] | {
            "calza_rule": "asmodee",
            "turn_seconds": 30,
        }
    lobby.host.send(type="settings", turn_seconds=None, max_players=2)
    state = lobby.host.state_where(lambda s: s["settings"]["turn_seconds"] is None)
    assert state["settings"]["max_players"] == 2 and state["settings"]["calza_rule"] == "asmodee"
    room = lobby.server.get(f"/api/rooms/{lobby.room_id}").json()
    assert room["settings"] == state["settings"]
    lobby.server.client(lobby.room_id).reject({"type": "join", "name": "Cat"}, "room_full")


@pytest.mark.parametrize(
    "fields",
    [{"seat": "1"}, {"seat": 1.0}, {"seat": True}, {"seat": None}, {}],
)
def test_kick_types_are_strict(lobby: Table, fields: dict[str, Any]) -> None:
    lobby.host.reject({"type": "kick", **fields}, "bad_message")


@pytest.mark.parametrize("level", ["insane", "", 2, None, "NORMAL"])
def test_add_bot_level_is_checked(lobby: Table, level: Any) -> None:
    lobby.host.reject({"type": "add_bot", "level": level}, "bad_message")


def chat_seen(client: Client, text: str) -> dict[str, Any]:
    return client.until(lambda m: m["type"] == "chat" and m["text"] == text)


@pytest.mark.parametrize("text", ["hi", "x" * 300, "<script>alert(1)</script> & é 🎲"])
def test_chat_is_broadcast_as_sent(lobby: Table, server: Server, text: str) -> None:
    spectator = server.watch(lobby.room_id)
    guest = lobby.others(lobby.host)[0]
    guest.send(type="chat", text=text)
    for client in [*lobby.players.values(), spectator]:
        message = chat_seen(client, text)
        assert (message["seat"], message["name"]) == (1, "Bob")


def test_chat_keeps_surrounding_spaces(lobby: Table) -> None:
    """Trimming only decides whether a chat is 1..300 characters long."""
    lobby.host.send(type="chat", text="  hi there  ")
    assert lobby.host.expect("chat")["text"] == "  hi there  "


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "x" * 301, " " + "y" * 301 + " "])
def test_chat_outside_1_to_300_characters_is_bad_message(lobby: Table, text: str) -> None:
    lobby.any.reject({"type": "chat", "text": text}, "bad_message")


@pytest.mark.parametrize("fields", [{"text": 5}, {"text": None}, {"text": ["hi"]}, {}])
def test_chat_types_are_strict(lobby: Table, fields: dict[str, Any]) -> None:
    lobby.any.reject({"type": "chat", **fields}, "bad_message")


def test_chat_during_a_game(game: Table) -> None:
    actor = game.to_act()
    actor.send(type="chat", text="bluffing?")
    for client in game.players.values():
        assert chat_seen(client, "bluffing?")["seat"] == actor.seat


def test_a_spectator_may_not_chat(lobby: Table, server: Server) -> None:
    """PROTOCOL.md: chat is for anyone seated (no code is named for a spectator)."""
    spectator = server.watch(lobby.room_id)
    spectator.send(type="chat", text="hello from the rail")
    frames = spectator.sync()
    assert [m["type"] for m in frames] == ["error"], frames
    assert not [m for m in lobby.host.drain(0.2) if m["type"] == "chat"]


def test_the_socket_stays_open_after_errors(game: Table) -> None:
    actor = game.to_act()
    for _ in range(5):
        actor.reject("nonsense", "bad_message")
        actor.reject({"type": "dudo"}, "no_bid")
    game.bid(actor, 1, 2)


def test_dudo_calza_race_has_one_winner(server: Server) -> None:
    """RULES.md 6: the first call ends the round; the other is refused (no_bid)."""
    table = Table.playing(server, 4)
    table.bid(table.to_act(), 3, 4)
    actor = table.to_act()
    caller = next(c for c in table.others(actor) if c is not table.last_bidder())
    marks = {client.seat: len(client.frames) for client in (actor, caller)}
    actor.send(type="dudo")
    caller.send(type="calza")
    frames: dict[int | None, list[dict[str, Any]]] = {}
    for client in (actor, caller):
        client.until(lambda m: m["type"] in ("round_result", "error"))
        client.sync()
        frames[client.seat] = client.frames[marks[client.seat] :]
    results = [[m for m in got if m["type"] == "round_result"] for got in frames.values()]
    assert [len(r) for r in results] == [1, 1] and results[0] == results[1], results
    errors = [m for got in frames.values() for m in got if m["type"] == "error"]
    assert len(errors) == 1, errors
    assert errors[0]["code"] in ("no_bid", "not_your_turn", "calza_not_allowed"), errors


def test_eliminated_players_may_not_act(server: Server) -> None:
    table = Table.playing(server, 3)
    rng = random.Random(7)
    state = table.play_until(lambda s: any(p["out"] for p in s["players"]), rng)
    if state["phase"] == "finished":
        pytest.fail("a three-player game ended without an elimination")
    out = next(p["seat"] for p in state["players"] if p["out"])
    client = table.players[out]
    assert client.state is not None and client.state["you"]["dice"] == []
    client.reject({"type": "bid", "quantity": 1, "face": 2}, "not_your_turn")
    client.reject({"type": "dudo"}, "not_your_turn", "no_bid")
    client.reject({"type": "calza"}, "calza_not_allowed", "no_bid")


def test_game_actions_after_the_game_are_game_not_running(server: Server) -> None:
    table = Table.playing(server, 2)
    table.play_out(random.Random(3))
    for client in table.players.values():
        client.state_where(lambda s: s["game_id"] is not None)  # the save's state is no change
        client.reject({"type": "bid", "quantity": 1, "face": 2}, "game_not_running")
        client.reject({"type": "dudo"}, "game_not_running")
    table.others(table.host)[0].reject({"type": "rematch"}, "not_host")
