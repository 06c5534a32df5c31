"""The database goes away under a real `perudo serve` (issue 13), through a TCP proxy the test
cuts: games go on, no action waits on the database, `/healthz` says degraded at once, the
journal and a game finished meanwhile are kept and retried, and everything lands when the
database comes back; a restart afterwards restores the rooms from what landed.

The server talks to a fresh PostgreSQL database of its own (created here, dropped after).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from psycopg import sql
from websockets.sync.client import ClientConnection, connect

from tests.faults.tcp_proxy import TcpProxy, proxy_to
from tests.live_server import running_server
from tests.stored_journal import holds
from tests.ws.helpers import legal_move

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(240)]

POSTGRES = ("127.0.0.1", 5432)
ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=3"
RECV_TIMEOUT = 10.0  # an action is answered at once; this only bounds a broken server
LAND_TIMEOUT = 60.0  # the retries back off to 15 s at most
ENV = {
    "PERUDO_DISCONNECT_GRACE_SECONDS": "600",  # nobody's seat is played for them meanwhile
    "PERUDO_HELLO_SECONDS": "60",
}


@pytest.fixture
def fault_db() -> Iterator[str]:
    """A fresh database `perudo_fault_<random>` on the local PostgreSQL, dropped after."""
    try:
        admin = psycopg.connect(ADMIN, autocommit=True)
    except psycopg.OperationalError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL unreachable: {error}")
        pytest.skip(f"PostgreSQL unreachable: {str(error).splitlines()[0]}")
    name = f"perudo_fault_{secrets.token_hex(5)}"
    with admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield name
        finally:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


class Player:
    """One socket; keeps the newest state."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.token: str | None = None

    def send(self, **message: Any) -> None:
        self.ws.send(json.dumps(message))

    def recv(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=RECV_TIMEOUT))
        if message["type"] == "state":
            self.state = message
        elif message["type"] == "welcome":
            self.token = message["token"]
        return message

    def hello(self, **message: Any) -> None:
        self.send(**message)
        while self.recv()["type"] != "state":
            pass

    def next_state(self) -> dict[str, Any]:
        while self.recv()["type"] != "state":
            pass
        return self.state

    def state_where(self, check: Callable[[dict[str, Any]], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not check(self.state):
            assert time.monotonic() < deadline, f"no such state; last {self.state}"
            try:
                message = json.loads(self.ws.recv(timeout=1.0))
            except TimeoutError:
                continue
            if message["type"] == "state":
                self.state = message


def new_room(base: str, **settings: Any) -> str:
    response = httpx.post(f"{base}/api/rooms", json=settings, timeout=10)
    assert response.status_code == 201, response.text
    room_id: str = response.json()["room_id"]
    return room_id


def open_player(base: str, room_id: str, sockets: ExitStack) -> Player:
    url = base.replace("http://", "ws://") + f"/ws/{room_id}"
    return Player(sockets.enter_context(connect(url, proxy=None, open_timeout=10)))


def play(players: list[Player], moves: int, rng: random.Random) -> int:
    """Legal moves by whoever's turn it is (players[i] holds seat i); each is answered with
    a state to every player at once. How many were played."""
    played = 0
    for _ in range(moves):
        if players[0].state["phase"] != "playing":
            break
        actor = players[players[0].state["round"]["turn"]]
        actor.send(**legal_move(actor.state, rng))
        for player in players:
            player.next_state()
        played += 1
    return played


def health(base: str) -> tuple[int, dict[str, Any], float]:
    started = time.monotonic()
    response = httpx.get(f"{base}/healthz", timeout=30)
    return response.status_code, response.json(), time.monotonic() - started


def journal(database: str) -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every room's stored snapshot and the entries journaled after it, in order (read past
    the proxy, straight from PostgreSQL)."""
    with psycopg.connect(ADMIN.replace("dbname=test", f"dbname={database}")) as db:
        rows = db.execute("SELECT room_id, data, rev FROM room_snapshots").fetchall()
        found = {}
        for room_id, data, rev in rows:
            later = db.execute(
                "SELECT data FROM room_entries WHERE room_id = %s AND base = %s"
                " AND rev > base ORDER BY rev",
                (room_id, rev),
            ).fetchall()
            found[room_id] = (data, [entry for (entry,) in later])
    return found


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> float:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, f"not within {timeout}s: {what}"
        time.sleep(0.1)
    return time.monotonic() - started


def the_game(state: dict[str, Any]) -> dict[str, Any]:
    """What a restart must keep of a seat's view."""
    keep = ("phase", "host", "settings", "round", "last_result", "you")
    players = [{k: v for k, v in p.items() if k != "connected"} for p in state["players"]]
    return {**{key: state[key] for key in keep}, "players": players}


def test_the_database_goes_away_and_comes_back(tmp_path: Path, fault_db: str) -> None:
    rng = random.Random(13)
    log = tmp_path / "server.log"
    with proxy_to(*POSTGRES) as proxy:
        url = f"postgresql+psycopg://postgres@127.0.0.1:{proxy.port}/{fault_db}"
        env = {**ENV, "PERUDO_DATABASE_URL": url}
        with running_server(tmp_path, **env) as base, ExitStack() as sockets:
            # Two people in a game, and a person with a bot about to start theirs.
            duel = new_room(base, max_players=2)
            players = [open_player(base, duel, sockets) for _ in "AB"]
            players[0].hello(type="join", name="Ana")
            players[1].hello(type="join", name="Bea")
            players[0].next_state()
            players[0].send(type="start")
            for player in players:
                player.next_state()
            play(players, 3, rng)
            solo = new_room(base, max_players=2)
            cid = open_player(base, solo, sockets)
            cid.hello(type="join", name="Cid")
            cid.send(type="add_bot", level="easy")
            cid.next_state()
            assert health(base)[0] == 200

            cut(proxy)
            status, body, took = health(base)
            print(f"/healthz answered 503 in {took:.3f} s with the database cut")
            assert (status, body["status"], body["database"]) == (503, "degraded", "unreachable")

            # Games go on: every move is answered (the receive timeout bounds each wait).
            assert play(players, 8, rng) > 0
            late = new_room(base)  # a room created while the database is away
            dan = open_player(base, late, sockets)
            dan.hello(type="join", name="Dan")
            cid.send(type="start")
            cid.next_state()
            cid.send(type="leave")  # the bot plays Cid's seat to the end of the game
            cid.state_where(lambda s: s["phase"] == "finished", RECV_TIMEOUT)
            assert cid.state["game_id"] is None  # not saved yet
            text = lambda: log.read_text()  # noqa: E731
            wait_for(lambda: "could not save the finished game" in text(), 30, "save tried")
            wait_for(lambda: "could not write the journal" in text(), 30, "journal tried")
            wait_for(lambda: "still could not save" in text(), 30, "save retried")
            assert health(base)[0] == 503
            before = [player.state for player in players]

            proxy.restore()
            landed = wait_for(
                lambda: health(base)[0] == 200 and holds(before[0], *journal(fault_db)[duel]),
                LAND_TIMEOUT,
                "the duel's journal",
            )
            print(f"the journal landed {landed:.1f} s after the database came back")
            cid.state_where(lambda s: s["game_id"] is not None, LAND_TIMEOUT)
            game_id = cid.state["game_id"]
            listed = httpx.get(f"{base}/api/games", timeout=10).json()["games"]
            assert game_id in [game["game_id"] for game in listed]
            assert holds(dan.state, *journal(fault_db)[late])
            wait_for(
                lambda: journal(fault_db)[solo][0]["game_id"] == game_id,
                RECV_TIMEOUT,
                "the saved game's id in the journal",
            )
            tokens = [p.token for p in (*players, cid, dan)]

            # A network that drops packets: new connections hang, until connect_timeout.
            proxy.blackhole()
            status, body, took = health(base)
            print(f"/healthz answered {status} in {took:.3f} s with the database black-holed")
            assert (status, body["database"]) == (503, "unreachable")
            assert play(players, 2, rng) > 0 or players[0].state["phase"] == "finished"
            proxy.restore()
            wait_for(lambda: health(base)[0] == 200, LAND_TIMEOUT, "healthy again")
            before = [player.state for player in players]
        first_log = log.read_text()

        with running_server(tmp_path, **env) as base, ExitStack() as sockets:
            info = httpx.get(f"{base}/api/rooms/{duel}", timeout=10).json()
            assert info["phase"] == "playing"
            again = [open_player(base, duel, sockets) for _ in "AB"]
            for player, token in zip(again, tokens, strict=False):
                player.hello(type="resume", token=token)
            again[0].next_state()
            for player, old in zip(again, before, strict=True):
                assert the_game(player.state) == the_game(old)
            lobby = httpx.get(f"{base}/api/rooms/{late}", timeout=10).json()
            assert [p["name"] for p in lobby["players"]] == ["Dan"]
    for token in tokens:
        assert token and token not in first_log, "a seat's token is in the log"
    assert "Traceback" not in log.read_text()[len(first_log) :]


def cut(proxy: TcpProxy) -> None:
    """Cut the database off, and check the server's connections through the proxy are gone."""
    proxy.cut()
    assert proxy.connections == 0
