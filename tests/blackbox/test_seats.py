"""Seats over the wire: leave, kick, add_bot, host hand-over, a bot for a leaver, rematch."""

from __future__ import annotations

import random
from functools import partial

from tests.blackbox.play import Table, key
from tests.blackbox.spec import ANY_CODE, Message, player
from tests.blackbox.wire import Client, Server


def same_key(held: Message, state: Message) -> bool:
    return key(held) == key(state)


def other_key(held: Message, state: Message) -> bool:
    return key(held) != key(state)


def seats(state: Message) -> list[int]:
    return sorted(p["seat"] for p in state["players"])


def test_leave_in_the_lobby_frees_the_seat(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob", "Cat"])
    bob = table.players[1]
    bob.send(type="leave")
    for client in (table.players[0], table.players[2]):
        state = client.state_where(lambda s: seats(s) == [0, 2])
        assert state["host"] == 0
    assert server.get(f"/api/rooms/{table.room_id}").json()["players"] == [
        {**p, "seat": s, "name": n, "bot": False}
        for p, s, n in zip(
            server.get(f"/api/rooms/{table.room_id}").json()["players"],
            [0, 2],
            ["Ann", "Cat"],
            strict=True,
        )
    ]
    assert server.join(table.room_id, "bob").seat == 1, "the name is free again"


def test_host_leaving_the_lobby_hands_over_to_the_lowest_seated_human(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    ann.send(type="add_bot")
    ann.state_where(lambda s: seats(s) == [0, 1])
    bob = server.join(room_id, "Bob")
    cat = server.join(room_id, "Cat")
    ann.send(type="leave")
    for client in (bob, cat):
        state = client.state_where(lambda s: 0 not in seats(s))
        assert state["host"] == 2, "the bot at seat 1 is not a human"
    bob.send(type="leave")
    assert cat.state_where(lambda s: seats(s) == [1, 3])["host"] == 3
    cat.send(type="add_bot")
    assert cat.state_where(lambda s: len(s["players"]) == 3)["players"][1]["bot"]


def test_a_lobby_of_bots_gets_the_next_person_as_host(server: Server) -> None:
    room_id = server.new_room()
    ann = server.join(room_id, "Ann")
    ann.send(type="add_bot")
    ann.state_where(lambda s: len(s["players"]) == 2)
    ann.send(type="leave")
    ann.state_where(lambda s: seats(s) == [1])
    bob = server.join(room_id, "Bob")
    assert bob.seat == 0 and bob.state is not None and bob.state["host"] == 0
    bob.send(type="start")
    bob.state_where(lambda s: s["phase"] == "playing")


def test_the_new_host_may_start(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob", "Cat"])
    table.players[0].send(type="leave")
    bob = table.players[1]
    bob.state_where(lambda s: s["host"] == 1)
    bob.send(type="start")
    state = table.players[2].state_where(lambda s: s["phase"] == "playing")
    assert seats(state) == [1, 2]


def test_kick_frees_a_seat(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob", "Cat"])
    host = table.players[0]
    host.send(type="kick", seat=1)
    for client in (host, table.players[2]):
        client.state_where(lambda s: seats(s) == [0, 2])
    host.send(type="add_bot", level="easy")
    host.state_where(lambda s: seats(s) == [0, 1, 2])
    host.send(type="kick", seat=1)
    assert seats(host.state_where(lambda s: len(s["players"]) == 2)) == [0, 2]
    assert server.join(table.room_id, "Dan").seat == 1


def test_kick_of_an_empty_seat_changes_nothing(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob"])
    table.host.reject({"type": "kick", "seat": 4}, *ANY_CODE)


def test_add_bot_until_the_room_is_full(server: Server) -> None:
    room_id = server.new_room(max_players=4)
    host = server.join(room_id, "Ann")
    for level in ("easy", "normal", "hard"):
        host.send(type="add_bot", level=level)
    state = host.state_where(lambda s: len(s["players"]) == 4)
    bots = [p for p in state["players"] if p["seat"] != 0]
    assert all(p["bot"] and not p["out"] for p in bots)
    names = [p["name"].strip().lower() for p in state["players"]]
    assert len(set(names)) == 4 and all(names), "bot names are unique and not empty"
    host.reject({"type": "add_bot"}, "room_full")
    server.client(room_id).reject({"type": "join", "name": "Late"}, "room_full")


def wait_for_move_by(client: Client, seat: int, before: Message) -> Message:
    """The next state in which `seat` has bid, or a round_result that `seat` called."""
    message = client.until(
        lambda m: (
            (m["type"] == "round_result" and m["caller"] == seat)
            or (m["type"] == "state" and key(m) != key(before))
        )
    )
    if message["type"] == "state":
        assert message["round"]["bid"]["seat"] == seat, message["round"]
    return message


def test_leave_during_a_game_lets_a_bot_play_until_the_owner_resumes(server: Server) -> None:
    table = Table.playing(server, 3, calza=False)
    leaver = table.to_act()
    watcher = table.others(leaver)[0]
    seat = leaver.seat
    assert seat is not None and watcher.state is not None
    before = watcher.state
    leaver.send(type="leave")
    wait_for_move_by(watcher, seat, before)
    state = watcher.state
    assert state is not None and player(state, seat) is not None, "the seat stays in the game"
    back = server.client(table.room_id)
    welcome = back.hello(type="resume", token=leaver.token)
    assert (welcome["seat"], welcome["token"]) == (seat, leaver.token)
    assert back.state is not None and back.state["phase"] in ("playing", "finished")


def test_host_leaving_a_game_hands_over(server: Server) -> None:
    table = Table.playing(server, 3, calza=False)
    table.players[0].send(type="leave")
    for seat in (1, 2):
        assert table.players[seat].state_where(lambda s: s["host"] != 0)["host"] == 1


def test_a_resumed_seat_is_no_longer_played_by_the_bot(server: Server) -> None:
    table = Table.playing(server, 3, calza=False)
    leaver = table.players[2]
    leaver.send(type="leave")
    observer = table.players[0]
    observer.sync()
    back = server.client(table.room_id)
    back.hello(type="resume", token=leaver.token)
    table.players[2] = back
    for client in table.clients:  # whatever the bot played before the resume, everyone holds
        client.drain(0.2)
    rng = random.Random(4)
    for _ in range(40):
        state = observer.state_where(lambda s: True)
        assert state["phase"] == "playing"
        turn = state["round"]["turn"]
        client = table.players[turn]
        client.state_where(partial(same_key, state))
        if turn == 2:
            assert not observer.drain(0.5), "nobody plays the resumed seat's turn for it"
            table.act(client, **choose_safe(client, rng))
            return
        table.act(client, **choose_safe(client, rng))
    raise AssertionError("seat 2 never had the turn")


def choose_safe(client: Client, rng: random.Random) -> Message:
    """A legal move from `you.legal`: dudo when open and the bid is high, else a least raise."""
    state = client.state
    assert state is not None
    legal = state["you"]["legal"]
    options = [(q, f) for f, q in enumerate(legal["min_quantity"], start=1) if q is not None]
    bid = state["round"]["bid"]
    if legal["dudo"] and (not options or bid["quantity"] * 3 > state["round"]["total_dice"]):
        return {"type": "dudo"}
    quantity, face = rng.choice(options)
    return {"type": "bid", "quantity": quantity, "face": face}


def test_rematch_goes_back_to_the_lobby_with_the_same_seats(server: Server) -> None:
    table = Table.playing(server, 3)
    table.watch()
    table.play_out(random.Random(8))
    first = table.any.state_where(lambda s: s["game_id"] is not None)
    table.host.send(type="rematch")
    for client in table.clients:
        lobby = client.state_where(lambda s: s["phase"] == "lobby")
        assert lobby["game_id"] is None and lobby["round"] is None
        assert [(p["seat"], p["name"]) for p in lobby["players"]] == [
            (p["seat"], p["name"]) for p in first["players"]
        ]
    table.host.send(type="start")
    for client in table.clients:
        state = client.state_where(lambda s: s["phase"] == "playing")
        assert state["round"]["number"] == 1 and state["round"]["roll_off"]
        assert state["winner"] is None and state["game_id"] is None
        assert [(p["seat"], p["name"]) for p in state["players"]] == [
            (p["seat"], p["name"]) for p in first["players"]
        ]
        assert all(
            p["dice"] == 5 and not p["out"] and not p["palifico_used"] for p in state["players"]
        )
        assert len(state["you"]["dice"]) == (5 if client.seat is not None else 0)
    table.results.clear()
    table.ended.clear()
    table.play_out(random.Random(9))
    second = table.any.state_where(lambda s: s["game_id"] is not None)
    assert second["game_id"] != first["game_id"]
    record = server.get(f"/api/games/{second['game_id']}").json()
    assert len(record["rounds"]) == len(table.results)


def test_a_game_between_a_person_and_bots(server: Server) -> None:
    """The person plays by `you.legal` whenever the state says it is their turn."""
    room_id = server.new_room(calza=False)
    ann = server.join(room_id, "Ann")
    ann.send(type="add_bot", level="hard")
    ann.send(type="add_bot", level="easy")
    ann.state_where(lambda s: len(s["players"]) == 3)
    ann.send(type="start")
    rng = random.Random(2)
    for _ in range(200):
        state = ann.state_where(
            lambda s: (
                s["phase"] == "finished" or (s["phase"] == "playing" and s["round"]["turn"] == 0)
            ),
            timeout=10,
        )
        if state["phase"] == "finished":
            assert state["winner"] in (0, 1, 2)
            return
        ann.send(**choose_safe(ann, rng))
        ann.state_where(partial(other_key, state))
    raise AssertionError("the game did not end")


def test_a_kicked_player_loses_the_seat_and_its_token(server: Server) -> None:
    table = Table.seat(server, ["Ann", "Bob"])
    bob = table.players[1]
    table.host.send(type="kick", seat=1)
    state = bob.state_where(lambda s: seats(s) == [0])
    assert state["you"]["seat"] is None and state["you"]["dice"] == []
    bob.reject({"type": "chat", "text": "hey"}, *ANY_CODE)
    server.client(table.room_id).reject({"type": "resume", "token": bob.token}, "unknown_token")


def test_a_bots_name_is_taken_ignoring_case(server: Server) -> None:
    room_id = server.new_room()
    host = server.join(room_id, "Ann")
    host.send(type="add_bot")
    state = host.state_where(lambda s: len(s["players"]) == 2)
    bot_name = state["players"][1]["name"]
    newcomer = server.client(room_id)
    newcomer.reject({"type": "join", "name": f" {bot_name.swapcase()} "}, "name_taken")


def test_resume_after_the_game_has_finished(server: Server) -> None:
    """A seat is taken back in any phase."""
    table = Table.playing(server, 2)
    final = table.play_out(random.Random(6))
    loser = next(c for c in table.players.values() if c.seat != final["winner"])
    back = server.client(table.room_id)
    welcome = back.hello(type="resume", token=loser.token)
    assert (welcome["seat"], welcome["token"]) == (loser.seat, loser.token)
    assert loser.close_code() == 4000
    assert back.state is not None and back.state["phase"] == "finished"
    assert back.state["winner"] == final["winner"]
