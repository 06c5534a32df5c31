"""The language switcher in a real Chromium: on the home, games and rules pages a choice
redraws the page in that language, the cookie keeps it across a reload, and the scripts'
texts (from the same catalogues) follow."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from app import i18n
from tests.browser.helpers import PHONE, TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def js_text(code: str, msgid: str) -> str:
    """What static/js/i18n.js shows for `msgid` in `code`."""
    text = i18n.language(code).js["messages"].get(msgid, msgid)
    assert isinstance(text, str)
    return text


def html_lang(page: Page) -> str | None:
    return page.locator("html").get_attribute("lang")


def switch(page: Page, code: str) -> None:
    """Pick `code` in the header's switcher and wait for the page to come back in it."""
    with page.expect_navigation():
        page.select_option("#lang-select", code)
    assert html_lang(page) == code


def test_switch_language_on_home_games_and_rules(browser: Browser, live_server: str) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{live_server}/")
    assert html_lang(page) == "en"  # Chromium asks for en-US
    switch(page, "nb")
    page.reload()
    assert html_lang(page) == "nb"
    assert page.locator("#lang-select").input_value() == "nb"
    assert page.locator("#create-title").text_content() == "Lag et nytt rom"
    # The scripts speak it too: a calza rule from codes.js and an error from home.js.
    rules = page.locator("#create-calza_rule option").all_text_contents()
    assert rules[0] == js_text("nb", "Not the next bidder (classic)")
    page.click("#create-form button[type=submit]")
    assert page.locator("#create-error").text_content() == js_text(
        "nb", "Type the name the others will see."
    )
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    assert cookies["lang"] == "nb"

    page.goto(f"{live_server}/games")
    assert html_lang(page) == "nb"  # the cookie carries it to the next page
    switch(page, "nl")
    page.reload()
    assert html_lang(page) == "nl"
    assert page.locator("h1").text_content() == "Recente partijen"
    status = page.locator("#games-status")
    empty = js_text("nl", "No finished games yet. Go and play one!")
    page.wait_for_function(
        "(text) => document.getElementById('games-status').textContent === text", arg=empty
    )
    assert status.text_content() == empty

    page.goto(f"{live_server}/rules?lang=sv")  # the query outranks the cookie
    assert html_lang(page) == "sv"
    switch(page, "hu")
    assert "lang=" not in page.url  # dropped, or it would outrank the new choice
    page.reload()
    assert html_lang(page) == "hu"
    assert page.locator("h1").text_content() == "A játék szabályai"

    page.goto(f"{live_server}/games/no-such-game")
    missing = js_text("hu", "No saved game has this id.")
    page.wait_for_function(
        "(text) => document.getElementById('replay-status').textContent === text", arg=missing
    )

    switch(page, "en")
    page.goto(f"{live_server}/rules")
    assert page.locator("h1").text_content() == "How to play"
    assert errors == []
    context.close()
