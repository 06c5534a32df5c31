"""Leave keeps the way back (issue 21): after Leave in a game the page says so and offers the
seat back (a `resume` with the kept token) until the game ends; spectators read that they are
watching, and every page shows how many watch."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import Player
from tests.browser.test_browser_table import create_room, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_leave_then_take_the_seat_back(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    eve = Player(browser, live_server, "Eve")
    try:
        url = create_room(anna, bots=1)
        join(bela, url)
        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")
        seat = int(bela.page.get_attribute("#room", "data-seat") or "-1")
        token = bela.page.evaluate(
            "() => localStorage.getItem(`perudo:token:${document.body.dataset.room}`)"
        )

        # A spectator reads that they are watching; the players see one watcher.
        eve.page.goto(url)
        eve.page.wait_for_selector("#table:not([hidden])")
        assert eve.page.inner_text("#watch-line") == "You are watching this game."
        assert eve.page.is_hidden("#come-back")
        anna.page.wait_for_selector("#watchers:not([hidden])")
        assert anna.page.get_attribute("#watchers", "aria-label") == "1 watching"

        # Béla leaves: a bot plays his seat, and his page keeps the way back.
        bela.page.once("dialog", lambda dialog: dialog.accept())
        bela.page.click("#game-leave")
        bela.page.wait_for_selector("#come-back:not([hidden])")
        assert bela.page.inner_text("#watch-text") == "You left this game: a bot plays your seat."
        assert bela.page.get_attribute("#room", "data-seat") == ""
        anna.page.wait_for_selector(f'#players li[data-seat="{seat}"] .badge.auto')
        anna.page.wait_for_function(
            "() => document.getElementById('watchers').getAttribute('aria-label') === '2 watching'"
        )

        # A reload keeps the way back too; taking the seat back resumes it with the kept token.
        bela.page.reload()
        bela.page.wait_for_selector("#come-back:not([hidden])")
        bela.sent.clear()
        bela.page.click("#come-back")
        bela.page.wait_for_function(
            "seat => document.getElementById('room').dataset.seat === seat", arg=str(seat)
        )
        assert {"type": "resume", "token": token, "events": True} in bela.sent
        assert bela.page.is_hidden("#watch-line")
        assert bela.page.is_visible("#game-leave")
        assert bela.page.locator("#my-dice [data-die]").count() > 0
        auto_badge = f'#players li[data-seat="{seat}"] .badge.auto'
        anna.page.wait_for_selector(auto_badge, state="detached")
        assert not anna.page_errors and not bela.page_errors and not eve.page_errors
    finally:
        for p in (anna, bela, eve):
            p.close()
