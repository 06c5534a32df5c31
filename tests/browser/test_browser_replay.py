"""The replay steps through a saved game bid by bid, by its buttons and by the arrow keys, with
every die shown and the dice that count for the standing bid lit, in every language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Browser, Page

from app.paths import ROOT
from tests.browser.helpers import PHONE, TIMEOUT_MS
from tests.browser.saved_game import play_a_saved_game

pytestmark = pytest.mark.browser

FACES = {1: "aces", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}
ONE = {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@pytest.fixture(scope="module")
def game(live_server: str) -> dict[str, Any]:
    saved = play_a_saved_game(live_server)
    assert len(saved["rounds"]) >= 2
    return saved


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []


def open_replay(page: Page, base: str, game: dict[str, Any], tail: str = "") -> None:
    page.goto(f"{base}/games/{game['game_id']}{tail}")
    page.wait_for_selector("#replay:not([hidden])")


def name(game: dict[str, Any], seat: int) -> str:
    return str(next(p["name"] for p in game["players"] if p["seat"] == seat))


def lit(round_: dict[str, Any], bid: dict[str, Any]) -> int:
    """How many dice on the table count for `bid` (aces wild unless palifico or on aces)."""
    wild = not round_["palifico"] and bid["face"] != 1
    return sum(
        1
        for cup in round_["dice"]
        for die in cup["dice"]
        if die == bid["face"] or (wild and die == 1)
    )


def check_bid_step(page: Page, game: dict[str, Any], r: int, b: int) -> None:
    """The page shows bid `b` of round `r`: that bid standing, the ones before it, all dice."""
    round_ = game["rounds"][r]
    bid = round_["bids"][b]
    total = len(round_["bids"])
    assert page.inner_text("#round-pos") == f"Round {round_['number']} of {len(game['rounds'])}"
    assert page.inner_text("#step-pos") == f"Bid {b + 1} of {total}"
    words = ONE[bid["face"]] if bid["quantity"] == 1 else FACES[bid["face"]]
    assert page.text_content("#step-line") == (
        f"Bid {b + 1} of {total}: {name(game, bid['seat'])} bids {bid['quantity']} {words}."
    )
    assert page.locator(".replay-bids li").count() == b + 1
    assert page.get_attribute(".replay-bids li:last-child", "aria-current") == "step"
    dice = sum(len(cup["dice"]) for cup in round_["dice"])
    assert page.locator("#replay-round .reveal-dice .die").count() == dice
    assert page.locator("#replay-round .reveal-dice .die.hit").count() == lit(round_, bid)
    assert page.is_hidden("#replay-round .reveal-outcome")


def check_call_step(page: Page, game: dict[str, Any], r: int) -> None:
    round_ = game["rounds"][r]
    assert page.inner_text("#step-pos") == "The call"
    assert page.locator(".replay-bids li").count() == len(round_["bids"])
    caller = name(game, round_["result"]["caller"])
    assert page.inner_text("#replay-round .reveal-title").startswith(f"{caller} called")
    assert page.is_visible("#replay-round .reveal-outcome")
    assert (page.text_content("#step-line") or "").startswith(f"{caller} called")


def test_arrow_keys_step_bid_by_bid_through_every_round(
    page: Page, live_server: str, game: dict[str, Any]
) -> None:
    open_replay(page, live_server, game)
    assert page.is_disabled("#prev-step") and page.is_disabled("#prev-btn")
    rounds = game["rounds"]
    for r, round_ in enumerate(rounds):
        for b in range(len(round_["bids"])):
            check_bid_step(page, game, r, b)
            assert page.evaluate("location.hash") == f"#round-{round_['number']}-step-{b + 1}"
            page.keyboard.press("ArrowRight")
        check_call_step(page, game, r)
        if r < len(rounds) - 1:
            page.keyboard.press("ArrowRight")
    assert page.is_disabled("#next-step") and page.is_disabled("#next-btn")
    page.keyboard.press("ArrowRight")  # past the end: nothing moves
    check_call_step(page, game, len(rounds) - 1)
    # Back across a round's start: the previous round's call, then its last bid.
    last = len(rounds) - 1
    page.keyboard.press("Shift+ArrowLeft")
    check_bid_step(page, game, last - 1, 0)
    page.keyboard.press("ArrowLeft")
    if last - 1 > 0:
        check_call_step(page, game, last - 2)
        page.keyboard.press("ArrowLeft")
        check_bid_step(page, game, last - 2, len(rounds[last - 2]["bids"]) - 1)
    page.keyboard.press("Shift+ArrowRight")
    check_bid_step(page, game, last - 1 if last - 1 > 0 else last, 0)


def test_buttons_step_and_the_link_keeps_the_step(
    page: Page, live_server: str, game: dict[str, Any]
) -> None:
    open_replay(page, live_server, game)
    page.click("#next-step")
    if len(game["rounds"][0]["bids"]) > 1:
        check_bid_step(page, game, 0, 1)
    else:
        check_call_step(page, game, 0)
    page.click("#prev-step")
    check_bid_step(page, game, 0, 0)
    page.click("#next-btn")
    check_bid_step(page, game, 1, 0)
    page.click("#prev-btn")
    check_bid_step(page, game, 0, 0)
    # Stepping to the end by the button alone: focus stays on a working button at the end.
    page.focus("#next-step")
    while page.is_enabled("#next-step"):
        page.keyboard.press("Enter")
    check_call_step(page, game, len(game["rounds"]) - 1)
    assert page.evaluate("document.activeElement.id") == "prev-step"
    # A link to a step opens at that step.
    round_ = game["rounds"][1]
    step = len(round_["bids"])
    open_replay(page, live_server, game, f"#round-{round_['number']}-step-{step}")
    check_bid_step(page, game, 1, step - 1)
    open_replay(page, live_server, game, f"#round-{round_['number']}")  # the older round links
    check_bid_step(page, game, 1, 0)


@pytest.mark.parametrize("lang", ["nb", "nl", "sv", "hu"])
def test_the_steps_speak_every_language(
    browser: Browser, live_server: str, game: dict[str, Any], lang: str, screenshots: Path
) -> None:
    with (ROOT / f"locale/{lang}/LC_MESSAGES/messages.po").open("rb") as po:
        catalog = {str(m.id): m.string for m in read_po(po) if isinstance(m.id, str)}
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        open_replay(page, live_server, game, f"?lang={lang}")
        total = len(game["rounds"][0]["bids"])
        expected = str(catalog["Bid {number} of {total}"]).format(number=1, total=total)
        assert page.inner_text("#step-pos") == expected
        assert page.get_attribute("#next-step", "aria-label") == catalog["Next bid"]
        assert page.get_attribute("#prev-btn", "aria-label") == catalog["Previous round"]
        page.click("#next-btn")
        page.click("#prev-step")
        assert page.inner_text("#step-pos") == catalog["The call"]
        assert page.is_hidden(".replay-keys")  # a touch screen has no arrow keys
        page.screenshot(path=str(screenshots / f"replay-call-{lang}.png"), full_page=True)
    finally:
        context.close()
