"""Installable: the web app manifest, the service worker every page registers, and a saved page
that still opens offline with a "no connection" line instead of the browser's error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.accessibility import axe_violations
from tests.browser.helpers import PHONE, TIMEOUT_MS

pytestmark = pytest.mark.browser

PAGES = ["/", "/games", "/rules", "/games/no-such-game", "/offline"]
SAVED = """url => caches.match(url, { ignoreVary: true }).then((found) => found !== undefined)"""
EVERY_SAVED_URL = """() => caches.keys().then(async (names) => {
  const urls = [];
  for (const name of names) {
    urls.push(...(await (await caches.open(name)).keys()).map((request) => request.url));
  }
  return urls;
})"""


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


def room_url(base: str) -> str:
    room_id = httpx.post(f"{base}/api/rooms", json={}, timeout=10).json()["room_id"]
    return f"{base}/r/{room_id}"


def wait_saved(page: Page, url: str) -> None:
    """Until the worker's cache holds `url` (wait_for_function would take the promise for a
    truthy answer)."""
    for _ in range(TIMEOUT_MS // 50):
        if page.evaluate(SAVED, url):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{url} was never saved")


def controlled(page: Page) -> None:
    """Until the worker is active and controls this page."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def test_every_page_links_the_manifest_and_its_icons_load(
    context: BrowserContext, live_server: str
) -> None:
    page = context.new_page()
    hrefs = set()
    for path in [*PAGES, room_url(live_server).removeprefix(live_server)]:
        page.goto(live_server + path)
        hrefs.add(page.get_attribute("link[rel=manifest]", "href"))
    assert hrefs == {"/static/manifest.webmanifest"}
    answer = page.request.get(f"{live_server}/static/manifest.webmanifest")
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["name"] == "Perudo"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    assert manifest["theme_color"] == page.get_attribute("meta[name=theme-color]", "content")
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        image = page.request.get(live_server + icon["src"])
        assert image.ok, icon
        assert image.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            width, height = page.evaluate(
                """src => new Promise((done) => {
                     const img = new Image();
                     img.onload = () => done([img.naturalWidth, img.naturalHeight]);
                     img.src = src;
                   })""",
                icon["src"],
            )
            assert f"{width}x{height}" == icon["sizes"]


def test_chromium_finds_the_site_installable(context: BrowserContext, live_server: str) -> None:
    page = context.new_page()
    page.goto(f"{live_server}/")
    controlled(page)
    devtools = context.new_cdp_session(page)
    manifest = devtools.send("Page.getAppManifest")
    assert manifest["url"] == f"{live_server}/static/manifest.webmanifest"
    assert manifest["errors"] == []
    errors = devtools.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # A test browser's context is a private window, where nothing installs; nothing else.
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []


def test_the_worker_registers_from_the_root_and_controls_the_table(
    context: BrowserContext, live_server: str
) -> None:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server}/")
    controlled(page)
    scope = page.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == f"{live_server}/"
    assert [worker.url for worker in context.service_workers] == [f"{live_server}/sw.js"]
    page.goto(room_url(live_server))
    page.wait_for_selector("#join-card:not([hidden])")
    assert page.evaluate("() => navigator.serviceWorker.controller.scriptURL").endswith("/sw.js")
    assert errors == []  # the Content-Security-Policy lets the manifest and the worker load


def test_a_saved_page_opens_offline_with_a_no_connection_line(
    context: BrowserContext, live_server: str, screenshots: Path
) -> None:
    page = context.new_page()
    url = room_url(live_server)
    page.goto(url)
    controlled(page)
    page.wait_for_selector("#join-card:not([hidden])")
    wait_saved(page, url)
    wait_saved(page, f"{live_server}/static/js/room/main.js")
    assert page.is_hidden("#offline-line")

    context.set_offline(True)
    page.wait_for_selector("#offline-line:visible")  # the page that is open says so too
    page.reload()
    page.wait_for_selector("#offline-line:visible")
    assert "No connection" in page.inner_text("#offline-line")
    assert page.get_attribute("body", "data-room") == url.rsplit("/", 1)[1]
    # Its styles came from the cache as well: the header is laid out, not raw text.
    assert page.eval_on_selector(".site-header", "el => getComputedStyle(el).display") == "flex"
    page.screenshot(path=str(screenshots / "offline-room.png"))

    # A page never saved shows the saved "no connection" page, not the browser's error.
    page.goto(f"{live_server}/games/never-opened")
    assert page.inner_text("h1") == "No connection"
    assert page.is_visible("#offline-line")
    assert axe_violations(page) == []  # the line is readable (contrast) and announced
    page.screenshot(path=str(screenshots / "offline-never-saved.png"))

    # The installed app's start page opens too, though this person only ever opened a room.
    page.goto(f"{live_server}/")
    assert page.is_visible("#create-form") and page.is_visible("#offline-line")

    # Back online, a page opened offline is replaced by the server's.
    page.evaluate("window.openedOffline = true")
    with page.expect_navigation():
        context.set_offline(False)
    assert page.evaluate("window.openedOffline") is None
    page.wait_for_selector("#offline-line", state="hidden")
    saved = page.evaluate(EVERY_SAVED_URL)
    assert saved and not [u for u in saved if "/api/" in u or "/ws/" in u], saved
