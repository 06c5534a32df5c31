"""The table for keyboard and screen-reader players (issue 21): focus goes to the bid picker
when your turn starts (not while you type in the chat), each bid and each round's result is
said in a polite live region, the page keeps one h1 in a game, and the game log is a list
inside role="log"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.helpers import Player, call, wait_for_answer
from tests.browser.test_browser_table import create_room, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FOCUS = "() => document.activeElement?.id || document.activeElement?.className || ''"
FOCUS_ON_CHOSEN_FACE = """() => document.activeElement
  === document.querySelector('#faces .face-btn[aria-checked="true"]')"""


def said(page: Page) -> list[str]:
    lines: list[str] = page.eval_on_selector_all(
        "#table-live p", "ps => ps.map(p => p.textContent)"
    )
    return lines


def test_focus_live_region_heading_and_log(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = create_room(anna)
        join(bela, url)
        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")
        anna.page.wait_for_function("() => document.getElementById('room').dataset.seq !== '-1'")
        state = anna.shown_state()
        anna_first = state["round"]["turn"] == state["you"]["seat"]
        first, second = (anna, bela) if anna_first else (bela, anna)

        # Your turn starts: the keyboard focus is on the picker's chosen face.
        first.page.wait_for_function(FOCUS_ON_CHOSEN_FACE)
        first.page.keyboard.press("Enter")  # the face is chosen; Tab on to Bid would do too
        seq = first.page.get_attribute("#room", "data-seq") or ""
        first.page.click("#bid-btn")
        wait_for_answer(first, seq)
        second.page.wait_for_function(FOCUS_ON_CHOSEN_FACE)
        bid = second.shown_state()["round"]["bid"]
        assert said(second.page)[-1].startswith(f"{first.name} bid {bid['quantity']} ")

        # Typing in the chat when your turn comes: the focus stays in the chat.
        first.page.click("#chat-open")
        first.page.fill("#chat-text", "hmm")
        seq = second.page.get_attribute("#room", "data-seq") or ""
        second.page.click("#bid-btn")
        wait_for_answer(second, seq)
        first.page.wait_for_selector("#actions[data-my-turn=true]")
        first.page.wait_for_timeout(200)
        assert first.page.evaluate(FOCUS) == "chat-text"
        assert said(first.page)[-1].startswith(f"{second.name} bid ")

        # A round's result is said too, as the log writes it.
        call(first, "dudo")
        first.page.wait_for_selector("#reveal:not([hidden])")
        assert said(first.page)[-1].startswith("You called dudo on ")
        assert said(second.page)[-1].startswith(f"{first.name} called dudo on ")

        # One h1 in a game; the log is a list inside the role="log" region.
        for p in (first, second):
            assert p.page.get_by_role("heading", level=1).count() == 1
            log = p.page.get_by_role("log", name="Game log")
            assert log.get_by_role("list").get_by_role("listitem").count() >= 1
        assert not anna.page_errors and not bela.page_errors
    finally:
        anna.close()
        bela.close()
