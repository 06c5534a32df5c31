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


# Each box in the header, as the phone lays it out: [left, top, right, bottom] in CSS pixels.
HEADER_BOXES = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  return {
    width: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    select: box(document.getElementById("lang-select")),
    links: [...document.querySelectorAll(".site-header .brand, .site-nav a")].map(box),
  };
}"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("path", ["/", "/players", "/rules"])
def test_the_switcher_fits_a_phone_in_every_language(
    browser: Browser, live_server: str, path: str
) -> None:
    """At 360 x 640 the switcher is inside the screen, a full tap wide and tall, and clear of
    the brand and the header's links, whichever language makes them longest."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        for code in i18n.LANGUAGES:
            page.goto(f"{live_server}{path}?lang={code}")
            boxes = page.evaluate(HEADER_BOXES)
            left, top, right, bottom = boxes["select"]
            assert left >= 0 and right <= boxes["width"], (code, boxes)
            assert right - left >= 44 and bottom - top >= 44, (code, boxes)
            assert boxes["scrollWidth"] <= boxes["width"], (code, boxes)
            for link in boxes["links"]:
                assert not overlaps(boxes["select"], link), (code, link, boxes)
                assert link[0] >= 0 and link[2] <= boxes["width"], (code, link, boxes)
        page.select_option("#lang-select", "sv")  # still works: the page comes back in Swedish
        page.wait_for_function("() => document.documentElement.lang === 'sv'")
    finally:
        context.close()


def test_a_language_chosen_by_link_follows_into_the_room(
    browser: Browser, live_server: str
) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/?lang=hu")
        page.fill("#create-name", "Éva")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#seats .seat.you")
        assert html_lang(page) == "hu" and page.url.endswith("?lang=hu")
        assert "lang=" not in page.input_value("#share-url")  # friends get their own language
    finally:
        context.close()
