"""The /players leaderboard in a phone-size Chromium: the hand-made games of
tests/db/stats_games.py, ranked by rating, re-sorted, one player picked, nothing wider than the
phone; a player's page with its chart; a claimed name carried to another browser by a
one-time code, and only once."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page

from app.config import Settings
from app.db.migrate import upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.main import create_app
from app.web.player_key import PLAYER_COOKIE
from app.web.transport import SansIOProtocol
from tests.browser.helpers import OVERFLOW, PHONE, TIMEOUT_MS
from tests.db.stats_games import BY_NAME, BY_WINS, GAMES, record
from tests.live_server import free_port

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@contextmanager
def serving(games: list[dict[str, Any]], directory: Path) -> Iterator[str]:
    """The app with `games` saved, served by uvicorn in a thread (`perudo serve` of the
    other browser tests has no such data)."""
    url = f"sqlite:///{directory / 'perudo.db'}"
    upgrade(url)
    engine = make_engine(url)
    for game in games:
        GameRepository(engine).save_game(game)
    app = create_app(Settings(database_url=url, bot_delay_ms=0, calza_window_ms=0))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, ws=SansIOProtocol, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        engine.dispose()


@pytest.fixture(scope="module")
def stats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(GAMES, tmp_path_factory.mktemp("players")) as url:
        yield url


ZOE_KEY = "zoe-key-0123456789abcdefghijklmn"


def zoes_games() -> list[dict[str, Any]]:
    """Zoe, with her key, against Ben and a hard bot: twelve games, so her chart has a line."""
    games = []
    for hour in range(12):
        places = [1 + (hour + n) % 3 for n in range(3)]
        game = record(
            f"z{hour}",
            hour,
            [("Zoe", False, places[0]), ("Ben", False, places[1]), ("Bot Ada", True, places[2])],
            [("dudo", 0, 1, None)],
        )
        game["players"][0]["player_key"] = ZOE_KEY
        game["players"][2]["level"] = "hard"
        games.append(game)
    return games


@pytest.fixture(scope="module")
def claimed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(zoes_games(), tmp_path_factory.mktemp("claimed")) as url:
        yield url


@contextmanager
def phone(browser: Browser) -> Iterator[Page]:
    """A page in a phone-size browser context of its own (its own cookies); fails on any
    script error."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    # Chromium itself logs a 404 the page asked for (and handles): not the page's error.
    assert [e for e in errors if not e.startswith("Failed to load resource")] == []


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with phone(browser) as page:
        yield page


def names(page: Page) -> list[str]:
    page.wait_for_selector("#players li")
    return page.locator("#players .leader-name").all_inner_texts()


def test_the_leaderboard_ranks_sorts_and_picks(
    page: Page, stats_server: str, screenshots: Path
) -> None:
    by_rating = page.request.get(f"{stats_server}/api/players").json()["players"]
    lows = [p["rating_low"] for p in by_rating]
    assert lows == sorted(lows, reverse=True) and len(set(lows)) == 4
    page.goto(f"{stats_server}/games")
    page.click("a[href='/players']")
    assert names(page) == [p["name"] for p in by_rating]
    assert page.locator("#players .leader-rank").all_inner_texts() == ["1", "2", "3", "4"]
    assert page.locator(".leaderboard-sort [aria-current=page]").inner_text() == "Rating"
    assert page.locator("#players .badge.provisional").count() == 4  # nobody has 10 games
    assert page.locator(".leaderboard-pager").is_hidden()  # one page only
    overflow = page.evaluate(OVERFLOW)
    assert overflow["scrollWidth"] <= overflow["width"], overflow["offenders"]
    page.screenshot(path=str(screenshots / "players-phone.png"), full_page=True)

    page.get_by_role("link", name="Wins", exact=True).click()
    page.wait_for_url(re.compile(r"/players\?sort=wins$"))
    assert names(page) == [p["name"] for p in BY_WINS]

    page.get_by_role("link", name="Name", exact=True).click()
    page.wait_for_url(re.compile(r"/players\?sort=name$"))
    assert names(page) == [p["name"] for p in BY_NAME]
    assert page.locator("#players .leader-rank").count() == 0

    page.click("#players a:has-text('ANA')")
    page.wait_for_url(re.compile(r"/players\?sort=name&name=ANA$"))
    card = page.locator("#player-card")
    card.locator("dl").wait_for()
    assert card.locator("h2").inner_text() == "ANA"
    ana = next(p for p in by_rating if p["name"] == "ANA")
    assert card.locator("dd").all_inner_texts() == [
        f"{ana['rating_low']:.1f} 3 rated games",
        "3",
        "1",
        "2.0",
        "75% 3 of 4",
        "50% 1 of 2",
    ]
    assert page.locator("#players li.picked .leader-name").inner_text() == "ANA"
    page.screenshot(path=str(screenshots / "players-phone-picked.png"), full_page=True)


def test_an_unknown_name_says_so(page: Page, stats_server: str) -> None:
    page.goto(f"{stats_server}/players?name=Nobody")
    page.wait_for_selector("#player-card p")
    assert "No finished game here under this name yet." in page.inner_text("#player-card")
    assert len(names(page)) == len(BY_WINS)


def test_the_leaderboard_speaks_the_page_language(page: Page, stats_server: str) -> None:
    """Norwegian: the page's own text, the script's figures (plurals, decimal comma) and
    the picked player's card all come from the catalogue."""
    page.goto(f"{stats_server}/players?lang=nb&sort=name&name=ana")
    assert page.locator("h1").inner_text() == "Spillere"
    assert page.locator(".leaderboard-sort [aria-current=page]").inner_text() == "Navn"
    assert names(page) == [p["name"] for p in BY_NAME]
    figures = page.locator("#players .leader-figures").first.inner_text()
    assert figures.startswith("1 seier · 3 partier · snittplassering 2,0"), figures
    card = page.locator("#player-card")
    card.locator("dl").wait_for()
    assert card.locator("dt").all_inner_texts() == [
        "Rangering",
        "Partier",
        "Seirer",
        "Snittplassering",
        "Dudo",
        "Calza",
    ]
    assert card.locator("dd").nth(4).inner_text().replace("\xa0", " ") == "75 % 3 av 4"


def test_a_players_page_on_a_phone(page: Page, claimed_server: str, screenshots: Path) -> None:
    page.goto(f"{claimed_server}/players")
    page.wait_for_selector("#bots li")
    assert page.locator("#bots .leader-name").inner_text() == "Bot Hard"
    page.click("#players a:has-text('Zoe')")
    page.click("#player-card h2 a")
    page.wait_for_url(re.compile(r"/players/Zoe$"))
    assert page.locator("h1 .badge").all_inner_texts() == ["Claimed"]
    points = page.locator(".rating-chart polyline").get_attribute("points")
    assert points is not None and len(points.split()) == 12
    rows = page.locator(".opponents tbody tr").all_inner_texts()
    assert [row.split("\t")[:2] for row in rows] == [["Ben", "12"], ["Bot Hard", "12"]]
    assert page.locator("#device-link").count() == 0  # this browser holds no key of Zoe's
    overflow = page.evaluate(OVERFLOW)
    assert overflow["scrollWidth"] <= overflow["width"], overflow["offenders"]
    page.screenshot(path=str(screenshots / "player-page-phone.png"), full_page=True)


def test_a_claimed_name_moves_to_another_browser_once(
    browser: Browser, claimed_server: str
) -> None:
    host = claimed_server.removeprefix("http://").split(":")[0]
    with phone(browser) as owner, phone(browser) as other, phone(browser) as third:
        owner.context.add_cookies(
            [{"name": PLAYER_COOKIE, "value": ZOE_KEY, "domain": host, "path": "/"}]
        )
        owner.goto(f"{claimed_server}/players/Zoe")
        owner.click("#link-btn")
        owner.wait_for_selector("#link-out:not([hidden])")
        code = owner.locator("#link-code").inner_text()
        link = owner.locator("#link-url").inner_text()
        assert re.fullmatch(r"[2-9A-Z]{5}-[2-9A-Z]{5}", code)

        other.goto(f"{claimed_server}/players/Zoe")
        assert other.locator("#device-link").count() == 0  # not the owner (yet)
        other.goto(link)
        assert other.locator("#link-code").input_value() == code.replace("-", "")
        other.click("#link-form button")
        other.wait_for_selector("#link-status:not(:empty)")
        assert "now plays under your names" in other.inner_text("#link-status")
        other.goto(f"{claimed_server}/players/Zoe")
        assert other.locator("#device-link").count() == 1  # the key came along
        cookie = next(c for c in other.context.cookies() if c["name"] == PLAYER_COOKIE)
        assert cookie["value"] == ZOE_KEY and cookie["httpOnly"]

        third.goto(f"{claimed_server}/link")
        third.fill("#link-code", code)
        third.click("#link-form button")
        third.wait_for_selector("#link-status:not(:empty)")
        assert "unknown, used or expired" in third.inner_text("#link-status")
        assert PLAYER_COOKIE not in {c["name"] for c in third.context.cookies()}


def sit_down(page: Page, base: str, name: str) -> None:
    room_id = page.request.post(f"{base}/api/rooms", data={}).json()["room_id"]
    page.goto(f"{base}/r/{room_id}")
    page.fill("#join-name", name)
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#seats .seat.you")


def test_a_claimed_name_is_not_taken_in_the_browser(browser: Browser, claimed_server: str) -> None:
    """Another browser (its own new key) sitting down as Zoe is told it plays as a guest;
    Zoe's own browser is not."""
    host = claimed_server.removeprefix("http://").split(":")[0]
    with phone(browser) as other, phone(browser) as owner:
        sit_down(other, claimed_server, "zoe")
        assert PLAYER_COOKIE in {c["name"] for c in other.context.cookies()}  # made on the GET
        other.wait_for_selector("#toasts .toast")
        assert "belongs to another player" in other.inner_text("#toasts")

        owner.context.add_cookies(
            [{"name": PLAYER_COOKIE, "value": ZOE_KEY, "domain": host, "path": "/"}]
        )
        sit_down(owner, claimed_server, "Zoe")
        owner.wait_for_timeout(500)  # a toast would show at once, with the welcome
        assert "belongs to another player" not in owner.inner_text("#toasts")
