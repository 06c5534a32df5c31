"""A calza people can make (issue 21): press and hold, sent with the bid on screen, in the
calza window the server leaves before a bot moves after a bid."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import Player, call, wait_for_answer
from tests.browser.test_browser_table import create_room
from tests.live_server import running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def bots_think(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[str]:
    """A server whose bots think briefly and wait the default calza window after a bid."""
    with running_server(
        tmp_path_factory.mktemp("calza"),
        PERUDO_BOT_DELAY_MS="200",
        PERUDO_CALZA_WINDOW_MS="2000",
    ) as base:
        yield base


def test_a_person_calls_calza_on_a_bots_bid(
    browser: Browser, bots_think: str, screenshots: Path
) -> None:
    anna = Player(browser, bots_think, "Anna")
    try:
        create_room(anna, bots=2)
        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        me: int | None = None
        deadline = time.monotonic() + 40
        while True:  # least bids until a bot's bid stands and another bot is to act
            assert time.monotonic() < deadline, "never a bot's bid to call calza on"
            if anna.revealing():
                anna.page.click("#reveal-next")
                continue
            state = anna.shown_state()
            me = state["you"]["seat"]
            round_ = state["round"]
            if anna.my_turn():
                seq = anna.page.get_attribute("#room", "data-seq") or ""
                anna.page.click("#bid-btn")
                wait_for_answer(anna, seq)
            elif (
                round_ is not None
                and round_["bid"] is not None
                and round_["bid"]["seat"] != me
                and state["you"]["legal"]["calza"]
                and anna.page.is_enabled("#calza-btn")
            ):
                break
            anna.page.wait_for_timeout(20)
        bid = {"quantity": round_["bid"]["quantity"], "face": round_["bid"]["face"]}
        dice_before = len(state["you"]["dice"])

        call(anna, "calza")  # held for longer than the hold, well inside the window
        anna.page.wait_for_selector("#reveal:not([hidden])")
        assert {"type": "calza", "bid": bid} in anna.sent
        result = anna.results[-1]
        assert (result["call"], result["caller"]) == ("calza", me)
        assert {k: result["bid"][k] for k in ("quantity", "face")} == bid
        assert anna.page.inner_text("#reveal-title") == "You call calza!"
        outcome = anna.page.inner_text("#reveal-outcome")
        if result["gainer"] == me:
            assert "You win a die." in outcome
            expected = min(5, dice_before + 1)
        else:
            assert result["loser"] == me and "You lose a die" in outcome
            expected = dice_before - 1
        anna.shot(screenshots, "calza-reveal-360x640")
        anna.page.click("#reveal-next")
        if result["winner"] is None and expected > 0:
            anna.page.wait_for_function(
                "n => document.querySelectorAll('#my-dice [data-die]').length === n",
                arg=expected,
            )
        assert not anna.page_errors, anna.page_errors
    finally:
        anna.close()
