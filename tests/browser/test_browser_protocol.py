"""The room page under PROTOCOL.md's newer messages, fed through a routed socket: `history`
after `welcome`, `autoplayed` moves, a finished room going back to its lobby, a null host, and
message types the page does not know yet."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, WebSocketRoute

from tests.browser.helpers import Player

pytestmark = pytest.mark.browser

# A finished round as `history` carries it: a round_result without "type".
ROUND_ONE = {
    "round": 1,
    "call": "dudo",
    "caller": 1,
    "bid": {"quantity": 3, "face": 4, "seat": 0},
    "palifico": False,
    "reveal": [{"seat": 0, "dice": [4, 4, 2, 6, 1]}, {"seat": 1, "dice": [3, 3, 5, 2, 6]}],
    "count": 3,
    "loser": 1,
    "gainer": None,
    "eliminated": None,
    "next_opener": 1,
    "winner": None,
}


class Wire:
    """The page's game socket, passed through to the server; `rewrite` may swap or drop what
    the server sends (return a list of frames to deliver), `inject` sends the page a frame."""

    def __init__(self) -> None:
        self.routes: list[WebSocketRoute] = []
        self.rewrite: Callable[[dict[str, Any]], list[dict[str, Any]]] = lambda msg: [msg]

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            for msg in self.rewrite(json.loads(message)):
                ws.send(json.dumps(msg))

        server.on_message(from_server)
        self.routes.append(ws)

    def inject(self, msg: dict[str, Any]) -> None:
        self.routes[-1].send(json.dumps(msg))


@pytest.fixture
def anna(browser: Browser, live_server: str) -> Iterator[tuple[Player, Wire]]:
    """Anna's page with its socket routed through a Wire, seated as host with one bot."""
    player = Player(browser, live_server, "Anna")
    wire = Wire()
    player.page.route_web_socket(re.compile(r"/ws/"), wire.route)
    player.page.goto(f"{live_server}/")
    player.page.fill("#create-name", "Anna")
    player.page.click("#create-form button[type=submit]")
    player.page.wait_for_selector("#seats .seat.you")
    player.page.click("#bot-form button")
    player.page.wait_for_function(
        "() => document.querySelectorAll('#seats .seat:not(.empty)').length === 2"
    )
    yield player, wire
    player.close()


def newest_state(player: Player) -> dict[str, Any]:
    return copy.deepcopy(player.states[max(player.states)])


def test_history_and_autoplayed_moves_fill_the_game_log(anna: tuple[Player, Wire]) -> None:
    player, wire = anna
    page = player.page
    page.click("#start-btn")
    page.wait_for_selector("#table:not([hidden])")

    # Reconnect: after `welcome` the page is sent the game so far (ours replaces the server's).
    def with_history(msg: dict[str, Any]) -> list[dict[str, Any]]:
        if msg["type"] == "history":
            return []
        if msg["type"] == "welcome":
            return [msg, {"type": "history", "rounds": [ROUND_ONE]}]
        return [msg]

    wire.rewrite = with_history
    page.reload()
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_selector("#log:not([hidden])")
    first = page.inner_text('#log-list li[data-round="1"]')
    assert first.startswith("Round 1")
    assert "called dudo on 3 fours; there were 3." in first
    assert "loses a die" in first

    # Moves the server's bot made for a person read as the bot's, for that person, everywhere:
    # a bid in the log and as the standing bid, a call in a finished round (also after reload).
    wire.inject({"type": "something_new", "data": [1, 2, 3]})  # from a newer server: ignored
    state = newest_state(player)
    me = state["you"]["seat"]
    bot = next(p for p in state["players"] if p["bot"])
    bid = {"quantity": 5, "face": 2, "seat": me}
    state["round"] |= {"bids": [bid], "bid": bid, "turn": bot["seat"]}
    state["autoplayed"] = {"bids": ["timer"], "calls": [None]}
    state["seq"] += 1000
    wire.inject(state)
    line = page.locator("#log-list li.log-auto").last
    line.wait_for()
    assert line.inner_text() == "Time ran out: the bot bid 5 twos for you."
    assert page.inner_text("#standing .standing-by") == "by the bot for you"
    assert "You bid" not in page.inner_text("#log-list")
    # A call: `autoplayed` comes just before its round_result.
    called = ROUND_ONE | {"round": 2, "caller": me, "loser": me}
    wire.inject({"type": "autoplayed", "seat": me, "reason": "away", "action": {"type": "dudo"}})
    wire.inject({"type": "round_result", **called})
    page.wait_for_selector("#reveal:not([hidden])")
    assert page.inner_text("#reveal-title") == "The bot calls dudo for you!"
    page.click("#reveal-next")
    assert page.inner_text('#log-list li[data-round="2"]').startswith(
        "Round 2 Player away: the bot called dudo on 3 fours for you; there were 3."
    )
    # After a reload the state's marks say which finished round's call was the bot's.
    for_bot = ROUND_ONE | {"round": 2, "caller": bot["seat"]}

    def marked(msg: dict[str, Any]) -> list[dict[str, Any]]:
        if msg["type"] == "history":
            return []
        if msg["type"] == "welcome":
            return [msg, {"type": "history", "rounds": [ROUND_ONE, for_bot]}]
        if msg["type"] == "state":
            return [msg | {"autoplayed": {"bids": [], "calls": [None, "left"]}}]
        return [msg]

    wire.rewrite = marked
    page.reload()
    page.wait_for_selector('#log-list li[data-round="2"]')
    page.wait_for_function(
        "() => document.querySelector('#log-list li[data-round=\"2\"]').textContent"
        ".includes('Player left: the bot called dudo on 3 fours for')"
    )
    assert "the bot" not in page.inner_text('#log-list li[data-round="1"]')
    assert player.page_errors == []


def test_a_finished_room_goes_back_to_its_lobby(anna: tuple[Player, Wire]) -> None:
    player, wire = anna
    page = player.page
    base = newest_state(player)
    me = base["you"]["seat"]
    seq = base["seq"] + 1000  # newer than anything the server sends this connection
    wire.rewrite = lambda msg: [] if msg["type"] == "state" else [msg]

    # The game is over and no person is seated as host any more (host: null).
    finished = base | {"seq": seq, "phase": "finished", "winner": me, "host": None}
    wire.inject(finished)
    page.wait_for_selector("#end:not([hidden])")
    assert page.inner_text("#end-title") == "You win!"
    assert page.is_hidden("#rematch-btn")
    assert page.inner_text("#end-wait") == ""

    # Rematch: the same seats, back in the lobby, still without a host.
    wire.inject(base | {"seq": seq + 1, "phase": "lobby", "host": None})
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.is_hidden("#table") and page.is_hidden("#end") and page.is_hidden("#log")
    assert page.locator("#seats .seat:not(.empty)").count() == 2
    assert page.locator("#seats .badge.host").count() == 0
    assert page.is_hidden("#start-btn") and page.is_hidden("#host-card")
    assert page.inner_text("#lobby-wait") == ""

    # The host is back: the lobby is theirs to start again.
    wire.inject(base | {"seq": seq + 2, "phase": "lobby", "host": me})
    page.wait_for_selector("#start-btn:not([hidden])")
    assert page.is_enabled("#start-btn")
    assert page.is_visible("#host-card")
    assert player.page_errors == []
