"""Whole games played over the wire by scripted clients using `you.legal` only.

Every action goes through `Table.act`, which checks each bid, each turn hand-over and each
`round_result` against RULES.md; every frame is audited by the clients (shape, seq, privacy,
`you.legal` recomputed from RULES.md). These tests add what only a finished game shows.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.blackbox.play import Table
from tests.blackbox.spec import Message
from tests.blackbox.wire import Server

SAVE_TIMEOUT = 5.0


def parse_utc(text: Any) -> datetime:
    assert isinstance(text, str), text
    moment = datetime.fromisoformat(text)
    assert moment.utcoffset() == timedelta(0), f"{text} is not UTC"
    return moment


def expected_places(table: Table) -> dict[int, int]:
    """RULES.md 8: the winner first, then the reverse order of elimination."""
    out = [r["eliminated"] for r in table.results if r["eliminated"] is not None]
    winner = table.results[-1]["winner"]
    order = [winner, *reversed(out)]
    assert sorted(order) == sorted(table.players), (order, list(table.players))
    return {seat: place for place, seat in enumerate(order, start=1)}


def saved_game_id(table: Table) -> str:
    """`game_id` arrives in a `state` once the finished game is saved, for everyone."""
    ids = set()
    for client in table.clients:
        state = client.state_where(lambda s: s["game_id"] is not None, SAVE_TIMEOUT)
        assert state["phase"] == "finished"
        ids.add(state["game_id"])
    [game_id] = ids
    assert isinstance(game_id, str) and game_id
    return game_id


def check_record(server: Server, table: Table, game_id: str) -> Message:
    """`GET /api/games/{id}` against what the wire showed during the game."""
    response = server.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    record: Message = response.json()
    keys = {"game_id", "room_id", "started_at", "finished_at", "settings", "winner"}
    keys |= {"players", "rounds"}
    assert set(record) >= keys, f"record lacks {keys - set(record)}"
    final = table.any.state
    assert final is not None
    assert record["game_id"] == game_id and record["room_id"] == table.room_id
    assert parse_utc(record["started_at"]) <= parse_utc(record["finished_at"])
    assert record["settings"] == final["settings"]
    names = {p["seat"]: p["name"] for p in final["players"]}
    bots = {p["seat"]: p["bot"] for p in final["players"]}
    winner = final["winner"]
    assert record["winner"] == {"seat": winner, "name": names[winner]}
    places = expected_places(table)
    players = sorted(record["players"], key=lambda p: p["seat"])
    assert players == [
        {**p, "seat": seat, "name": names[seat], "bot": bots[seat], "place": places[seat]}
        for seat, p in zip(sorted(names), players, strict=True)
    ]
    assert len(record["rounds"]) == len(table.results)
    for entry, result, before in zip(record["rounds"], table.results, table.ended, strict=True):
        keys = {"number", "palifico", "palifico_seat", "opener", "dice", "bids", "result"}
        assert set(entry) >= keys, f"round lacks {keys - set(entry)}"
        round_ = before["round"]
        assert entry["number"] == round_["number"] == result["round"]
        assert entry["palifico"] == round_["palifico"]
        assert entry["palifico_seat"] == round_["palifico_seat"]
        assert entry["opener"] == round_["opener"]
        assert entry["bids"] == round_["bids"]
        assert entry["result"] == {k: v for k, v in result.items() if k != "type"}
        revealed = {r["seat"]: r["dice"] for r in result["reveal"]}
        assert {d["seat"]: d["dice"] for d in entry["dice"]} == revealed
    return record


def test_a_whole_game_with_a_spectator(server: Server) -> None:
    table = Table.playing(server, 3)
    spectator = table.watch()
    final = table.play_out(random.Random(11))
    assert final["winner"] == table.results[-1]["winner"]
    for client in table.clients:
        state = client.state_where(lambda s: s["phase"] == "finished")
        assert state["winner"] == final["winner"]
        alive = [p["seat"] for p in state["players"] if not p["out"]]
        assert alive == [final["winner"]]
        assert state["last_result"] == {k: v for k, v in table.results[-1].items() if k != "type"}
    assert spectator.state is not None and spectator.state["you"]["dice"] == []
    game_id = saved_game_id(table)
    check_record(server, table, game_id)
    replay = server.get(f"/games/{game_id}")
    assert replay.status_code == 200
    assert replay.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    "count, settings, seed",
    [
        (2, {}, 1),
        (4, {}, 2),
        (5, {}, 3),
        (6, {}, 4),
        (4, {"calza_rule": "asmodee"}, 5),
        (4, {"calza": False}, 6),
        (4, {"palifico": False}, 7),
        (3, {"max_players": 3, "calza_rule": "asmodee", "palifico": False}, 8),
    ],
)
def test_games_follow_the_rules_to_the_end(
    server: Server, count: int, settings: dict[str, Any], seed: int
) -> None:
    table = Table.playing(server, count, **settings)
    table.watch()
    table.play_out(random.Random(seed), calza_rate=0.25)
    calls = {r["call"] for r in table.results}
    if not settings.get("calza", True) or count == 2:
        assert calls == {"dudo"}
    if not settings.get("palifico", True) or count == 2:
        assert not any(r["palifico"] for r in table.results)
    check_record(server, table, saved_game_id(table))


def test_every_kind_of_outcome_happens(server: Server) -> None:
    """Keep playing five-player games until dudo both ways, calza both ways, palifico rounds
    and eliminations have all been checked at least once."""
    seen: set[str] = set()
    wanted = {"dudo holds", "dudo fails", "calza exact", "calza wrong", "palifico", "out"}
    rng = random.Random(99)
    for _ in range(12):
        table = Table.playing(server, 5)
        table.play_out(rng, calza_rate=0.3)
        for result in table.results:
            if result["call"] == "dudo":
                seen.add("dudo holds" if result["loser"] == result["caller"] else "dudo fails")
            else:
                seen.add("calza exact" if result["gainer"] is not None else "calza wrong")
            if result["palifico"]:
                seen.add("palifico")
            if result["eliminated"] is not None:
                seen.add("out")
        server.close_all()
        if seen >= wanted:
            return
    pytest.fail(f"never saw {wanted - seen}")


def test_dice_look_fair(server: Server) -> None:
    """RULES.md 1: fair dice from a secure generator. Black-box, only a sanity bound: every face
    about as often as the others (chi-square, 5 degrees of freedom, p < 1e-5 fails) and no two
    games dealt the same first hands."""
    faces: list[int] = []
    openings: list[list[list[int]]] = []
    for seed in range(3):
        table = Table.playing(server, 6)
        table.play_out(random.Random(seed))
        faces += [d for r in table.results for entry in r["reveal"] for d in entry["dice"]]
        openings.append([entry["dice"] for entry in table.results[0]["reveal"]])
        server.close_all()
    expected = len(faces) / 6
    chi2 = sum((faces.count(face) - expected) ** 2 / expected for face in range(1, 7))
    assert len(faces) > 600 and chi2 < 30, (len(faces), chi2)
    assert openings[0] != openings[1] != openings[2]


def test_an_exact_calza_at_five_dice_names_the_gainer_who_keeps_five(server: Server) -> None:
    """RULES.md 6: the caller wins the calza (`gainer`) but never goes above 5 dice; the
    caller opens the next round. (Table.act checks all of it; this finds the case.)"""
    for _ in range(80):
        table = Table.playing(server, 3)
        table.bid(table.to_act(), 5, 4)
        table.act(table.last_bidder(), type="calza")
        result = table.results[-1]
        server.close_all()
        if result["gainer"] is not None:
            assert result["loser"] is None and result["next_opener"] == result["caller"]
            return
    pytest.fail("no exact calza in 80 tries")


def test_palifico_round_over_the_wire(server: Server) -> None:
    """RULES.md 7: the palifico player may open on aces; the face is then locked for a player
    who is not a one-die veteran; no calza in that round."""
    rng = random.Random(5)
    for _ in range(10):
        table = Table.playing(server, 4)
        state = table.play_until(lambda s: s["round"] is not None and s["round"]["palifico"], rng)
        if state["phase"] == "finished":
            server.close_all()
            continue
        opener = table.to_act()
        assert opener.seat == state["round"]["palifico_seat"]
        table.bid(opener, 1, 1)
        actor = table.to_act()
        assert actor.state is not None
        me = next(p for p in actor.state["players"] if p["seat"] == actor.seat)
        if not (me["dice"] == 1 and me["palifico_used"]):
            actor.reject({"type": "bid", "quantity": 1, "face": 2}, "illegal_bid")
            actor.reject({"type": "bid", "quantity": 2, "face": 3}, "illegal_bid")
        for client in table.players.values():
            client.reject({"type": "calza"}, "calza_not_allowed", "not_your_turn")
        table.bid(actor, 2, 1)
        return
    pytest.fail("no palifico round came up")


def veteran_to_act(state: Message) -> bool:
    """A palifico round with a bid standing, and the player to act is a one-die veteran."""
    round_ = state["round"]
    if state["phase"] != "playing" or not round_["palifico"] or round_["bid"] is None:
        return False
    me = next(p for p in state["players"] if p["seat"] == round_["turn"])
    return bool(
        round_["turn"] != round_["palifico_seat"] and me["dice"] == 1 and me["palifico_used"]
    )


def test_a_one_die_veteran_may_change_the_face_in_palifico(server: Server) -> None:
    """RULES.md 7.4 and example 19: same quantity and a higher face, or a higher quantity;
    aces are the lowest face, so aces only with a higher quantity. The new face is locked."""
    rng = random.Random(12)
    for _ in range(25):
        table = Table.playing(server, 6)
        state = table.play_until(veteran_to_act, rng, calza_rate=0.3)
        if state["phase"] == "finished":
            server.close_all()
            continue
        veteran = table.to_act()
        q, f = state["round"]["bid"]["quantity"], state["round"]["bid"]["face"]
        if f > 1:
            veteran.reject({"type": "bid", "quantity": q, "face": 1}, "illegal_bid")
            veteran.reject({"type": "bid", "quantity": q, "face": f - 1}, "illegal_bid")
        if f == 6 and q == state["round"]["total_dice"]:
            table.act(veteran, type="dudo")
        elif f == 6:
            table.bid(veteran, q + 1, 2)
        else:
            table.bid(veteran, q, f + 1)
        return
    pytest.fail("no one-die veteran came to act in a palifico round")


def test_a_game_with_bots_only_after_the_host_leaves(server: Server) -> None:
    """A person who leaves a running game is played by the server's bot; the game ends."""
    room_id = server.new_room()
    host = server.join(room_id, "Ann")
    for level in ("easy", "normal", "hard"):
        host.send(type="add_bot", level=level)
    host.send(type="add_bot")
    host.state_where(lambda s: len(s["players"]) == 5)
    spectator = server.watch(room_id)
    host.send(type="start")
    host.state_where(lambda s: s["phase"] != "lobby")
    host.send(type="leave")
    final = spectator.state_where(lambda s: s["phase"] == "finished", timeout=20)
    assert final["winner"] in {p["seat"] for p in final["players"]}
    results = [m for m in spectator.frames if m["type"] == "round_result"]
    assert results and results[-1]["winner"] == final["winner"]
    state = spectator.state_where(lambda s: s["game_id"] is not None, SAVE_TIMEOUT)
    record = server.get(f"/api/games/{state['game_id']}").json()
    assert len(record["rounds"]) == len(results)
    assert [r["result"] for r in record["rounds"]] == [
        {k: v for k, v in r.items() if k != "type"} for r in results
    ]
    bots = {p["seat"]: p["bot"] for p in record["players"]}
    assert bots == {0: False, 1: True, 2: True, 3: True, 4: True}


def test_finished_games_are_listed_newest_first(server: Server) -> None:
    ids = []
    tables = []
    for seed in (21, 22):
        table = Table.playing(server, 2)
        table.play_out(random.Random(seed))
        ids.append(saved_game_id(table))
        tables.append(table)
    listed = server.get("/api/games", limit=100).json()["games"]
    order = [g["game_id"] for g in listed]
    assert order.index(ids[1]) < order.index(ids[0]), "newest first"
    finished = [parse_utc(g["finished_at"]) for g in listed]
    assert finished == sorted(finished, reverse=True)
    for game_id, table in zip(ids, tables, strict=True):
        [entry] = [g for g in listed if g["game_id"] == game_id]
        keys = {"game_id", "room_id", "finished_at", "winner", "players"}
        assert set(entry) >= keys, f"list entry lacks {keys - set(entry)}"
        record = check_record(server, table, game_id)
        for key in keys:
            assert entry[key] == record[key], key
    first = order.index(ids[1])
    page = server.get("/api/games", limit=1, offset=first).json()["games"]
    assert [g["game_id"] for g in page] == [ids[1]]
    page = server.get("/api/games", limit=2, offset=first).json()["games"]
    assert [g["game_id"] for g in page] == order[first : first + 2]
    assert len(server.get("/api/games").json()["games"]) == min(20, len(order))
