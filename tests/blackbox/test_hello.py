"""PROTOCOL.md's hellos: join, resume, watch, and what comes before and after them."""

from __future__ import annotations

import contextlib
import math
import string
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.blackbox.spec import Message, player
from tests.blackbox.wire import Client, Server


def connected(state: Message, seat: int) -> bool:
    entry = player(state, seat)
    return entry is not None and entry["connected"]


def token_bits(token: str) -> float:
    """An upper bound of the randomness a token of this length and alphabet can hold."""
    alphabet = 0
    for group in (string.digits, string.ascii_lowercase, string.ascii_uppercase, "-_", "+/="):
        if any(c in group for c in token):
            alphabet += len(group)
    return len(token) * math.log2(max(alphabet, 2))


def test_join_welcomes_with_seat_and_token_then_state(server: Server) -> None:
    room_id = server.new_room()
    ann = server.client(room_id)
    welcome = ann.hello(type="join", name="Ann")
    assert welcome["room_id"] == room_id and welcome["seat"] == 0
    assert token_bits(welcome["token"]) >= 128
    state = ann.state
    assert state is not None and state["phase"] == "lobby" and state["host"] == 0
    assert state["you"] == {
        **state["you"],
        "seat": 0,
        "dice": [],
    }
    [player] = state["players"]
    assert (player["seat"], player["name"], player["bot"], player["connected"]) == (
        0,
        "Ann",
        False,
        True,
    )
    bob = server.join(room_id, "Bob")
    assert bob.seat == 1 and bob.token != ann.token
    seen = ann.state_where(lambda s: len(s["players"]) == 2)
    assert seen["host"] == 0


def test_simultaneous_joins_get_distinct_seats(server: Server) -> None:
    room_id = server.new_room()
    sockets = [server.client(room_id) for _ in range(7)]
    with ThreadPoolExecutor(len(sockets)) as pool:
        answers = list(
            pool.map(
                lambda pair: answer_to_join(*pair),
                [(client, f"P{i}") for i, client in enumerate(sockets)],
            )
        )
    seated = sorted(a["seat"] for a in answers if a["type"] == "welcome")
    assert seated == [0, 1, 2, 3, 4, 5]
    assert [a["code"] for a in answers if a["type"] == "error"] == ["room_full"]


def answer_to_join(client: Client, name: str) -> Message:
    client.send(type="join", name=name)
    return client.until(lambda m: m["type"] in ("welcome", "error"))


def test_watch_has_no_seat_and_no_token(server: Server) -> None:
    room_id = server.new_room()
    server.join(room_id, "Ann")
    spectator = server.client(room_id)
    welcome = spectator.hello(type="watch")
    assert welcome["seat"] is None and welcome["token"] is None
    assert spectator.state is not None
    assert spectator.state["you"]["seat"] is None and spectator.state["you"]["dice"] == []
    assert [p["name"] for p in spectator.state["players"]] == ["Ann"]


def test_join_takes_the_lowest_free_seat(server: Server) -> None:
    room_id = server.new_room()
    players = [server.join(room_id, name) for name in ("A", "B", "C")]
    assert [p.seat for p in players] == [0, 1, 2]
    players[1].send(type="leave")
    players[0].state_where(lambda s: [p["seat"] for p in s["players"]] == [0, 2])
    assert server.join(room_id, "D").seat == 1
    assert server.join(room_id, "E").seat == 3


def test_name_is_trimmed_and_unique_ignoring_case(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "  Ann  ")
    assert ann.state is not None and ann.state["players"][0]["name"] == "Ann"
    for name in ("ann", "ANN", " aNn "):
        server.client(room_id).reject({"type": "join", "name": name}, "name_taken")


def test_a_refused_join_leaves_the_socket_free_to_join_again(server: Server) -> None:
    room_id = server.new_room()
    server.join(room_id, "Ann")
    bob = server.client(room_id)
    bob.reject({"type": "join", "name": "ANN"}, "name_taken")
    bob.reject({"type": "join", "name": ""}, "bad_message")
    assert bob.hello(type="join", name="Bob")["seat"] == 1


@pytest.mark.parametrize(
    "name", ["x" * 24, " " + "y" * 24 + " ", "é" * 24, "Zoë 🎲", "a", "<b>&amp;</b>"]
)
def test_names_of_1_to_24_characters(server: Server, name: str) -> None:
    player = server.join(server.new_room(), name)
    assert player.seat == 0
    assert player.state is not None and player.state["players"][0]["name"] == name.strip()


BAD_JOINS: list[Any] = [
    {"type": "join", "name": ""},
    {"type": "join", "name": "   "},
    {"type": "join", "name": "\t\n"},
    {"type": "join", "name": "x" * 25},
    {"type": "join", "name": " " + "x" * 25 + " "},
    {"type": "join", "name": 7},
    {"type": "join", "name": None},
    {"type": "join", "name": ["Ann"]},
    {"type": "join"},
    {"type": "resume"},
    {"type": "resume", "token": 12345},
    {"type": "resume", "token": None},
]


@pytest.mark.parametrize("hello", BAD_JOINS, ids=[repr(h)[:40] for h in BAD_JOINS])
def test_bad_hellos_are_bad_message(server: Server, hello: Any) -> None:
    room_id = server.new_room()
    client = server.client(room_id)
    client.reject(hello, "bad_message")
    assert client.hello(type="watch")["seat"] is None, "still free to say hello"


def test_room_full(server: Server) -> None:
    room_id = server.new_room(max_players=2)
    server.join(room_id, "A")
    server.join(room_id, "B")
    server.client(room_id).reject({"type": "join", "name": "C"}, "room_full")
    server.watch(room_id)


def test_join_during_a_game_is_game_in_progress(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    server.join(room_id, "Bob")
    ann.send(type="start")
    ann.state_where(lambda s: s["phase"] == "playing")
    server.client(room_id).reject({"type": "join", "name": "Cat"}, "game_in_progress")
    spectator = server.watch(room_id)
    assert spectator.state is not None and spectator.state["phase"] == "playing"


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start"},
        {"type": "chat", "text": "hi"},
        {"type": "bid", "quantity": 1, "face": 2},
        {"type": "dudo"},
        {"type": "calza"},
        {"type": "leave"},
        {"type": "add_bot"},
        {"type": "kick", "seat": 0},
        {"type": "settings", "calza": False},
        {"type": "rematch"},
    ],
)
def test_an_action_before_a_hello_is_not_joined(server: Server, message: Any) -> None:
    room_id = server.new_room()
    server.join(room_id, "Ann")
    server.client(room_id).reject(message, "not_joined")


def test_ping_before_a_hello(server: Server) -> None:
    client = server.client(server.new_room())
    client.send(type="ping")
    assert client.recv() == {"type": "pong"} | client.frames[-1]
    assert client.frames[-1]["type"] == "pong"
    assert client.hello(type="watch")["seat"] is None


@pytest.mark.parametrize(
    "second",
    [
        {"type": "join", "name": "Other"},
        {"type": "watch"},
        {"type": "resume", "token": "x"},
    ],
)
@pytest.mark.parametrize("first", ["join", "watch"])
def test_a_second_hello_is_bad_message(server: Server, first: str, second: Any) -> None:
    room_id = server.new_room()
    client = server.client(room_id)
    client.hello(type=first, **({"name": "Ann"} if first == "join" else {}))
    client.reject(second, "bad_message")


def test_resume_with_the_real_token_of_a_second_hello_is_bad_message(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    bob = server.join(room_id, "Bob")
    assert ann.token is not None
    bob.reject({"type": "resume", "token": ann.token}, "bad_message")


def test_unknown_token(server: Server) -> None:
    room_id = server.new_room()
    server.join(room_id, "Ann")
    server.client(room_id).reject({"type": "resume", "token": "not-a-token"}, "unknown_token")


def test_a_token_is_only_good_in_its_room(server: Server) -> None:
    ann = server.join(server.new_room(), "Ann")
    other = server.new_room()
    server.join(other, "Bob")
    server.client(other).reject({"type": "resume", "token": ann.token}, "unknown_token")


def test_resume_in_the_lobby_keeps_seat_and_token_and_closes_the_older_socket(
    server: Server,
) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    bob = server.join(room_id, "Bob")
    again = server.client(room_id)
    welcome = again.hello(type="resume", token=bob.token)
    assert (welcome["seat"], welcome["token"]) == (1, bob.token)
    assert bob.close_code() == 4000
    assert again.state is not None and again.state["you"]["seat"] == 1
    assert [p["name"] for p in again.state["players"]] == ["Ann", "Bob"]
    ann.state_where(lambda s: all(p["connected"] for p in s["players"]))


def test_resume_during_a_game_shows_the_same_dice(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    bob = server.join(room_id, "Bob")
    ann.send(type="start")
    playing = bob.state_where(lambda s: s["phase"] == "playing")
    bob.close()
    ann.state_where(lambda s: not connected(s, 1))
    back = server.client(room_id)
    welcome = back.hello(type="resume", token=bob.token)
    assert (welcome["seat"], welcome["token"]) == (1, bob.token)
    assert back.state is not None and back.state["phase"] == "playing"
    assert back.state["you"]["dice"] == playing["you"]["dice"]
    assert back.state["round"]["number"] == playing["round"]["number"]
    ann.state_where(lambda s: connected(s, 1))


def test_a_third_socket_on_one_seat_closes_the_second(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    sockets: list[Client] = [ann]
    for _ in range(2):
        newer = server.client(room_id)
        newer.hello(type="resume", token=ann.token)
        assert sockets[-1].close_code() == 4000
        sockets.append(newer)
    sockets[-1].sync()


def test_unknown_room_is_closed_with_4404(server: Server) -> None:
    client = server.client("nosuchroom7")
    assert client.close_code() == 4404


def test_unknown_room_after_a_hello_is_closed_with_4404(server: Server) -> None:
    client = server.client("nosuchroom8")
    with contextlib.suppress(ConnectionClosed):  # the server may have closed it already
        client.conn.send('{"type":"join","name":"Ann"}')
    assert client.close_code() == 4404
