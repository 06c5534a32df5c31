"""A private server's host on a phone: the start page asks once for the invite code, and the
operator's console signs in, lists the live room, tells every table, and closes a room."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import _chromium
from tests.browser.helpers import Player
from tests.live_server import running_server

pytestmark = pytest.mark.browser
TOKEN = "console-token-for-the-browser-test"
CODE = "friends-only"


@pytest.fixture(scope="module")
def private_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _chromium()
    with running_server(
        tmp_path_factory.mktemp("private"),
        PERUDO_ADMIN_TOKEN=TOKEN,
        PERUDO_CREATE_CODE=CODE,
    ) as base:
        yield base


@pytest.fixture
def anna(browser: Browser, private_server: str) -> Iterator[Player]:
    player = Player(browser, private_server, "Anna")
    yield player
    player.close()


def assert_fits_phone(player: Player, where: str) -> None:
    report = player.overflow()
    assert report["scrollWidth"] <= report["width"], f"{where}: {report}"
    assert report["offenders"] == [], f"{where}: {report}"


def create_room(player: Player) -> None:
    page = player.page
    page.goto(f"{player.base}/")
    page.fill("#create-name", player.name)
    page.click("#create-form button[type=submit]")


def test_the_start_page_asks_for_the_invite_code_once(anna: Player) -> None:
    page = anna.page
    create_room(anna)
    page.wait_for_selector("#create-code-field:not([hidden])")
    assert "invite code" in page.inner_text("#create-error")
    page.fill("#create-code", "wrong")
    page.click("#create-form button[type=submit]")
    page.wait_for_function(
        "document.getElementById('create-error').textContent.includes('not right')"
    )
    page.fill("#create-code", CODE)
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("#seats .seat.you")
    create_room(anna)  # the code is remembered: no question the second time
    page.wait_for_selector("#seats .seat.you")
    refusals = [error for error in anna.page_errors if "403" in error]
    assert len(refusals) == 2 and len(anna.page_errors) == 2  # without a code, a wrong one


def test_the_console_on_a_phone_tells_every_table_and_closes_a_room(
    browser: Browser, anna: Player, screenshots: Path
) -> None:
    bea = Player(browser, anna.base, "Bea")  # a table's player elsewhere
    try:
        create_room(bea)
        bea.page.fill("#create-code", CODE)
        bea.page.click("#create-form button[type=submit]")
        bea.page.wait_for_selector("#seats .seat.you")
        room_id = bea.page.url.rstrip("/").rsplit("/", 1)[-1].split("?")[0]

        page = anna.page
        page.goto(f"{anna.base}/admin")
        page.fill("#admin-token", TOKEN)
        page.click("form[action='/admin/login'] button")
        page.wait_for_selector(f"#admin-rooms [data-room='{room_id}']")
        assert_fits_phone(anna, "console")
        anna.shot(screenshots, "admin-console-phone")
        page.screenshot(path=str(screenshots / "admin-console-phone-full.png"), full_page=True)

        page.fill("#notice-text", "Restarting in 5 minutes")
        page.click("form[action='/admin/notice'] button")
        page.wait_for_selector(".admin-done")
        bea.page.wait_for_selector("#notice:has-text('Restarting in 5 minutes')")
        bea.shot(screenshots, "admin-notice-phone")

        page.on("dialog", lambda dialog: dialog.accept())
        page.click(f"#admin-rooms [data-room='{room_id}'] button")
        page.wait_for_selector(".admin-done")
        bea.page.wait_for_selector("#fatal:not([hidden])")
        assert bea.page.inner_text("#fatal-title") == "Room closed"
        assert len(anna.page_errors) == 1 and "401" in anna.page_errors[0]  # the sign-in page
        assert [error for error in bea.page_errors if "403" not in error] == []
    finally:
        bea.close()
