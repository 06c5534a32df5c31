"""The room page's behaviour around the game: connections, errors, bots, timer, keyboard."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import get_args

import httpx
import pytest
from playwright.sync_api import Browser, WebSocketRoute

from app.protocol import ErrorCode
from tests.browser.helpers import Player, call, wait_for_answer

pytestmark = pytest.mark.browser

# PROTOCOL.md's error codes: each one must read as a sentence, never as the code.
PROTOCOL_ERROR_CODES = get_args(ErrorCode)


@pytest.fixture
def host(browser: Browser, live_server: str) -> Iterator[Player]:
    """Anna, seated as host of a fresh room she created from the start page."""
    player = Player(browser, live_server, "Anna")
    yield player
    player.close()


def create_room(player: Player, timer: str = "") -> str:
    player.page.goto(f"{player.base}/")
    player.page.fill("#create-name", player.name)
    if timer:
        player.page.click("#create-form summary")
        player.page.select_option("#create-turn_seconds", timer)
    player.page.click("#create-form button[type=submit]")
    player.page.wait_for_selector("#seats .seat.you")
    return player.page.input_value("#share-url")


def test_every_error_code_reads_as_a_sentence(host: Player) -> None:
    host.page.goto(f"{host.base}/rules")
    texts = host.page.evaluate(
        """async (codes) => {
             const m = await import("/static/js/codes.js");
             const texts = codes.map((c) => m.errorText(c));
             return [m.ERROR_CODES, m.errorText("no_such_code"), ...texts];
           }""",
        PROTOCOL_ERROR_CODES,
    )
    known, fallback, specific = texts[0], texts[1], texts[2:]
    assert sorted(known) == sorted(PROTOCOL_ERROR_CODES)
    assert len(set(specific)) == len(PROTOCOL_ERROR_CODES)
    for code, text in zip(PROTOCOL_ERROR_CODES, specific, strict=True):
        assert text != fallback and "_" not in text and text.endswith("."), code


def test_unknown_room_says_so(host: Player) -> None:
    host.page.goto(f"{host.base}/r/nosuchroom42")
    host.page.wait_for_selector("#fatal:not([hidden])")
    assert host.page.inner_text("#fatal-title") == "Room not found"
    assert host.page.is_hidden("#lobby") and host.page.is_hidden("#table")


def test_seat_opened_elsewhere_stops_the_old_tab(host: Player) -> None:
    room_url = create_room(host)
    second = host.context.new_page()  # same browser: same localStorage, same seat token
    second.goto(room_url)
    second.wait_for_selector("#seats .seat.you")
    host.page.wait_for_selector("#fatal:not([hidden])")
    assert host.page.inner_text("#fatal-title") == "Seat opened elsewhere"
    host.page.wait_for_timeout(1500)  # no automatic reconnect would take the seat back
    assert second.get_attribute("#room", "data-conn") == "open"
    host.page.click("#fatal-retry")
    host.page.wait_for_selector("#seats .seat.you")
    second.wait_for_selector("#fatal:not([hidden])")


def test_dropped_socket_reconnects_to_the_same_seat(host: Player) -> None:
    routes: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        routes.append(ws)

    host.page.route_web_socket(re.compile(r"/ws/"), through)
    create_room(host)
    seat = host.page.get_attribute("#seats .seat.you", "data-seat")
    routes[-1].close(code=1001, reason="network went away")
    host.page.wait_for_function(
        "() => document.getElementById('room').dataset.conn === 'reconnecting'", polling="raf"
    )
    assert "Reconnecting" in host.page.inner_text("#conn-banner")
    host.page.wait_for_function("() => document.getElementById('room').dataset.conn === 'open'")
    assert len(routes) == 2
    assert host.page.get_attribute("#seats .seat.you", "data-seat") == seat
    assert host.page.is_hidden("#join-card")
    assert host.page.inner_text("#conn-banner") == ""


def test_bots_levels_timer_and_keyboard_play(host: Player, browser: Browser) -> None:
    create_room(host, timer="60")
    for level in ("hard", "easy"):
        host.page.select_option("#bot-level", level)
        host.page.click("#bot-form button")
        host.page.wait_for_selector(f"#seats .badge.bot:text('Bot · {level}')")
    assert host.page.input_value("#room-turn_seconds") == "60"
    host.page.click("#start-btn")
    host.page.wait_for_selector("#actions[data-my-turn=true]")
    assert host.page.locator("#players .badge.bot").count() == 2

    # A spectator sees every player as a cup, and no dice at all.
    spectator = browser.new_context()
    watcher = spectator.new_page()
    watcher.goto(host.page.url)
    watcher.wait_for_selector("#table:not([hidden])")
    assert watcher.locator("#players .opp").count() == 3
    assert watcher.is_hidden("#me") and watcher.is_hidden("#actions")
    assert watcher.locator("[data-die]").count() == 0
    spectator.close()

    # The countdown runs from round.turn_deadline.
    timer = host.page.locator("#timer")
    first = timer.inner_text()
    assert re.fullmatch(r"[01]:\d\d", first)
    host.page.wait_for_function(
        "t => document.getElementById('timer').textContent !== t", arg=first
    )

    # A whole bid with the keyboard: arrows move between open faces, Tab reaches the bid.
    state = host.shown_state()
    mins = state["you"]["legal"]["min_quantity"]
    host.page.focus("#faces [aria-checked=true]")
    before = int(host.page.get_attribute("#faces [aria-checked=true]", "data-face") or 0)
    host.page.keyboard.press("ArrowRight")
    face = int(host.page.get_attribute("#faces [aria-checked=true]", "data-face") or 0)
    expected = next(f for f in [*range(before + 1, 7), *range(1, before)] if mins[f - 1])
    assert face == expected
    assert host.page.evaluate("() => document.activeElement.dataset.face") == str(face)
    host.page.keyboard.press("Tab")
    assert host.page.evaluate("() => document.activeElement.id") == "bid-btn"
    quantity = int(host.page.get_attribute("#bid-btn", "data-quantity") or 0)
    seq = host.page.get_attribute("#room", "data-seq")
    host.page.keyboard.press("Enter")
    wait_for_answer(host, seq or "")
    seat = state["you"]["seat"]
    placed = [b for r in [host.shown_state()["round"]] if r for b in r["bids"]]
    revealed = [r["bid"] for r in host.results]
    assert {"quantity": quantity, "face": face, "seat": seat} in placed + revealed


def test_a_seat_left_behind_shows_the_bot_playing_it(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        room_url = create_room(anna, timer="")
        anna.page.click("#bot-form button")  # a third seat, so the game outlives Béla
        bela.page.goto(room_url)
        bela.page.fill("#join-name", "Béla")
        bela.page.click("#join-form button[type=submit]")
        bela.page.wait_for_selector("#seats .seat.you")
        anna.page.click("#start-btn")
        bela.page.wait_for_selector("#table:not([hidden])")
        bela.page.close()  # Béla's phone goes away; on his turn after the grace, a bot plays
        anna.page.wait_for_selector("#players .dot.off")
        deadline = time.monotonic() + 30
        while anna.page.locator("#players .badge.auto").count() == 0:
            assert time.monotonic() < deadline, "no bot took over Béla's seat"
            if anna.revealing():
                anna.page.click("#reveal-next")
            elif anna.my_turn():
                seq = anna.page.get_attribute("#room", "data-seq")
                if anna.page.is_enabled("#dudo-btn"):
                    call(anna, "dudo")
                else:
                    anna.page.click("#bid-btn")
                wait_for_answer(anna, seq or "")
            else:
                anna.page.wait_for_timeout(100)
        assert anna.page.locator("#players .badge.auto").inner_text() == "Bot playing"
    finally:
        anna.close()
        bela.close()


def test_names_and_chat_are_text_never_html(host: Player) -> None:
    host.name = "<b>Anna</b>"
    create_room(host)
    assert host.page.inner_text("#seats .seat.you .seat-name") == "<b>Anna</b> (you)"
    host.page.click("#chat summary")
    host.page.fill("#chat-text", '<img src=x onerror="document.title=1">hi')
    host.page.click("#chat-form button")
    host.page.wait_for_selector("#chat-log li")
    assert (
        host.page.inner_text("#chat-log li")
        == '<b>Anna</b> <img src=x onerror="document.title=1">hi'
    )
    assert host.page.locator("#chat-log img, #seats b").count() == 0


def test_join_by_code_from_the_start_page(host: Player) -> None:
    room_url = create_room(host)
    room_id = room_url.rsplit("/", 1)[1]
    page = host.context.new_page()
    page.goto(f"{host.base}/")
    page.fill("#join-code", "nosuchroom42")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#join-error:not([hidden])")
    assert "No room has that code" in page.inner_text("#join-error")
    page.fill("#join-code", f"  {room_id} ")
    page.click("#join-form button[type=submit]")
    page.wait_for_url(f"**/r/{room_id}")


def test_the_odds_helper_is_a_setting_of_the_start_page_and_the_lobby(host: Player) -> None:
    page = host.page
    page.goto(f"{host.base}/")
    page.fill("#create-name", host.name)
    page.click("#create-form summary")
    assert not page.is_checked("#create-odds")  # off unless asked for
    page.check("#create-odds")
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("#seats .seat.you")
    room_id = page.input_value("#share-url").rsplit("/", 1)[1]
    info = httpx.get(f"{host.base}/api/rooms/{room_id}").json()
    assert info["settings"]["odds"] is True
    assert page.is_checked("#room-odds")  # the lobby shows it, and the host may turn it off
    page.uncheck("#room-odds")
    deadline = time.monotonic() + 10
    while httpx.get(f"{host.base}/api/rooms/{room_id}").json()["settings"]["odds"]:
        assert time.monotonic() < deadline, "the lobby never sent the new setting"
        time.sleep(0.1)


def test_leaving_the_lobby_frees_the_seat(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        room_url = create_room(anna)
        bela.page.goto(room_url)
        bela.page.fill("#join-name", "Béla")
        bela.page.click("#join-form button[type=submit]")
        bela.page.wait_for_selector("#seats .seat.you")
        anna.page.wait_for_selector("#seats .seat:not(.empty):not(.you)")
        bela.page.click("#leave-btn")
        bela.page.wait_for_selector("#join-card:not([hidden])")
        assert bela.page.locator("#seats .seat.you").count() == 0
        anna.page.wait_for_function(
            "() => document.querySelectorAll('#seats .seat:not(.empty)').length === 1"
        )
    finally:
        anna.close()
        bela.close()
