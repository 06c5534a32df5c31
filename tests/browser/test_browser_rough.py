"""The rough edges of issue 21, smoothed: Remove asks first, the rule selects and the table's
top bar fit 360 px in every language, and a bot is called the same in the lobby and at the
table."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Dialog, Page

from tests.browser.helpers import Player
from tests.browser.test_browser_table import create_room

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LANGUAGES = ["en", "nb", "nl", "sv", "hu"]

# Each select whose chosen option is wider than the room the select gives its text.
CUT_SELECTS = """() => {
  const canvas = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("#settings-form select")].filter(select => {
    const style = getComputedStyle(select);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = select.options[select.selectedIndex].text;
    const room = select.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight) - 20;  /* the drop-down arrow */
    return canvas.measureText(text).width > room;
  }).map(select => `${select.name}: ${select.options[select.selectedIndex].text}`);
}"""
# The top bar on one line: every child centred on the same line, and none wrapped inside.
TOP_BAR_LINES = """() => {
  const kids = [...document.querySelectorAll(".table-top > *:not([hidden])")];
  const tops = kids.map(k => k.getBoundingClientRect());
  const wraps = [...document.querySelectorAll(".round-label, .table-tools .btn")]
    .filter(el => el.getClientRects().length > 1 || el.scrollHeight > el.clientHeight + 2
      || (el.tagName === "SPAN" && el.getBoundingClientRect().height > 30));
  const middles = tops.map(r => (r.top + r.bottom) / 2);
  return {rows: Math.max(...middles) - Math.min(...middles) < 6 ? 1 : 2,
          wrapped: wraps.map(el => el.textContent)};
}"""


def in_language(page: Page, url: str, lang: str) -> None:
    page.goto(f"{url}?lang={lang}")
    page.wait_for_function("() => document.getElementById('room').dataset.seq !== '-1'")


def test_kick_asks_and_every_language_fits_360(browser: Browser, live_server: str) -> None:
    anna = Player(browser, live_server, "Anna")
    try:
        url = create_room(anna, bots=2, calza_rule="pressman")
        # Remove asks first: "no" keeps the bot, "yes" removes it.
        asked: list[str] = []

        def answer(accept: bool) -> None:
            def handle(dialog: Dialog) -> None:
                asked.append(dialog.message)
                dialog.accept() if accept else dialog.dismiss()

            anna.page.once("dialog", handle)

        answer(False)
        anna.page.locator("#seats .kick").last.click()
        anna.page.wait_for_timeout(300)
        assert anna.page.locator("#seats .seat:not(.empty)").count() == 3
        answer(True)
        anna.page.locator("#seats .kick").last.click()
        anna.page.wait_for_function(
            "() => document.querySelectorAll('#seats .seat:not(.empty)').length === 2"
        )
        assert len(asked) == 2 and asked[0].startswith("Remove Bot ") and asked[0].endswith("?")

        for lang in LANGUAGES:
            in_language(anna.page, url, lang)
            for rule in ("pressman", "asmodee"):
                anna.page.select_option("#room-calza_rule", rule)
                assert anna.page.evaluate(CUT_SELECTS) == [], lang
        in_language(anna.page, url, "hu")
        lobby_badge = anna.page.inner_text("#seats .badge.bot")
        assert lobby_badge.startswith("Bot · "), lobby_badge

        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        assert anna.page.inner_text("#players .badge.bot") == "Bot"
        for lang in LANGUAGES:
            in_language(anna.page, url, lang)
            assert anna.page.evaluate(TOP_BAR_LINES) == {"rows": 1, "wrapped": []}, lang
        assert not anna.page_errors, anna.page_errors
    finally:
        anna.close()
