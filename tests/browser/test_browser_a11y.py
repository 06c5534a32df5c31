"""axe-core finds nothing broken on any page, nor in any state of the room: the lobby, the
table on your turn and on another's, the open reveal and the end screen."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.browser.accessibility import axe_violations
from tests.browser.helpers import PHONE, TIMEOUT_MS, Player, call, wait_for_answer
from tests.browser.saved_game import play_a_saved_game

pytestmark = pytest.mark.browser

GAME_SECONDS = 90
RULES_LANGUAGES = ["en", "nb", "nl", "sv", "hu"]


@pytest.fixture(scope="module")
def game(live_server: str) -> dict[str, Any]:
    return play_a_saved_game(live_server)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def test_the_start_page(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/")
    page.wait_for_selector("#create-form")
    assert axe_violations(page) == []
    page.click("#create-form summary")  # the table rules, opened
    page.click("#create-form button[type=submit]")  # no name: the form's error shows
    page.wait_for_selector("#create-error:not([hidden])")
    assert axe_violations(page) == []


def test_recent_games(page: Page, live_server: str, game: dict[str, Any]) -> None:
    page.goto(f"{live_server}/games")
    page.wait_for_selector(f'#games a[href="/games/{game["game_id"]}"]')
    assert axe_violations(page) == []


def test_a_replay_at_a_bid_and_at_the_call(
    page: Page, live_server: str, game: dict[str, Any]
) -> None:
    page.goto(f"{live_server}/games/{game['game_id']}")
    page.wait_for_selector("#replay:not([hidden])")
    assert axe_violations(page) == []
    for _ in game["rounds"][0]["bids"]:
        page.click("#next-step")
    page.wait_for_selector("#replay-round .reveal-outcome")
    assert axe_violations(page) == []


@pytest.mark.parametrize("lang", RULES_LANGUAGES)
def test_the_rules(page: Page, live_server: str, lang: str) -> None:
    page.goto(f"{live_server}/rules?lang={lang}")
    assert axe_violations(page) == []


def test_the_no_connection_page(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/offline")
    assert axe_violations(page) == []


def test_the_leaderboard(page: Page, live_server: str, game: dict[str, Any]) -> None:
    page.goto(f"{live_server}/players")
    page.wait_for_load_state("networkidle")  # the list (or its empty line) is drawn from the API
    assert axe_violations(page) == []


def test_every_state_of_the_room(browser: Browser, live_server: str) -> None:
    """Two people play a short game; axe-core runs once in each state either of them meets."""
    room_id = httpx.post(f"{live_server}/api/rooms", json={"max_players": 2}, timeout=10).json()[
        "room_id"
    ]
    anna, bela = players = [Player(browser, live_server, name) for name in ("Anna", "Béla")]
    found: dict[str, list[str]] = {}
    try:
        for player in players:
            player.page.goto(f"{live_server}/r/{room_id}")
            player.page.fill("#join-name", player.name)
            player.page.click("#join-form button[type=submit]")
            player.page.wait_for_selector("#seats .seat.you")
        anna.page.wait_for_function(
            "() => document.querySelectorAll('#seats .seat:not(.empty)').length === 2"
        )
        found["lobby"] = axe_violations(anna.page)
        anna.page.click("#start-btn")
        deadline = time.monotonic() + GAME_SECONDS
        while not all(p.phase() == "finished" and not p.revealing() for p in players):
            assert time.monotonic() < deadline, "the game did not end in time"
            for player in players:
                if player.revealing():
                    if "reveal" not in found:
                        player.page.wait_for_timeout(700)  # the cups lift
                        found["reveal"] = axe_violations(player.page)
                    player.page.click("#reveal-next")
            actor = next((p for p in players if p.my_turn()), None)
            if actor is None:
                anna.page.wait_for_timeout(30)
                continue
            if "your turn" not in found:
                other = bela if actor is anna else anna
                found["your turn"] = axe_violations(actor.page)
                found["another's turn"] = axe_violations(other.page)
            seq = actor.page.get_attribute("#room", "data-seq") or ""
            if actor.shown_state()["round"]["bid"] is None:
                actor.page.click("#bid-btn")
            else:
                call(actor, "dudo")
            wait_for_answer(actor, seq)
        anna.page.wait_for_selector("#end:not([hidden])")
        found["end"] = axe_violations(anna.page)
    finally:
        for player in players:
            player.close()
    assert set(found) == {"lobby", "your turn", "another's turn", "reveal", "end"}
    broken = [f"{state}: {line}" for state, lines in found.items() for line in lines]
    assert broken == [], "\n".join(broken)
