"""The /players leaderboard in a phone-size Chromium: the hand-made games of
tests/db/stats_games.py, ranked, re-sorted, one player picked, nothing wider than the phone."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, Page

from app import stats
from app.config import Settings
from app.db.migrate import upgrade
from app.db.repository import GameRepository
from app.db.session import make_engine
from app.db.stats import StatsRepository
from app.main import create_app
from tests.browser.helpers import OVERFLOW, PHONE, TIMEOUT_MS
from tests.db.stats_games import BY_NAME, BY_WINS, GAMES
from tests.live_server import free_port

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def stats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with the stats routes and the hand-made games, served by uvicorn in a thread
    (the `perudo serve` of the other browser tests has no stats routes until create_app
    includes them)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('players') / 'perudo.db'}"
    upgrade(url)
    engine = make_engine(url)
    for game in GAMES:
        GameRepository(engine).save_game(game)
    app = create_app(Settings(database_url=url, bot_delay_ms=0, calza_window_ms=0))
    if not any(getattr(route, "path", None) == "/api/players" for route in app.routes):
        app.include_router(stats.router)
    app.state.stats = StatsRepository(engine)  # the lifespan may set its own: the same data
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, ws="none", log_level="warning")
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


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
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


def names(page: Page) -> list[str]:
    page.wait_for_selector("#players li")
    return page.locator("#players .leader-name").all_inner_texts()


def test_the_leaderboard_ranks_sorts_and_picks(
    page: Page, stats_server: str, screenshots: Path
) -> None:
    page.goto(f"{stats_server}/games")
    page.click("a[href='/players']")
    assert names(page) == [p["name"] for p in BY_WINS]
    assert page.locator("#players .leader-rank").all_inner_texts() == ["1", "2", "3", "4"]
    assert page.locator(".leaderboard-sort [aria-current=page]").inner_text() == "Wins"
    assert page.locator(".leaderboard-pager").is_hidden()  # one page only
    overflow = page.evaluate(OVERFLOW)
    assert overflow["scrollWidth"] <= overflow["width"], overflow["offenders"]
    page.screenshot(path=str(screenshots / "players-phone.png"), full_page=True)

    page.get_by_role("link", name="Name", exact=True).click()
    page.wait_for_url(re.compile(r"/players\?sort=name$"))
    assert names(page) == [p["name"] for p in BY_NAME]
    assert page.locator("#players .leader-rank").count() == 0

    page.click("#players a:has-text('ANA')")
    page.wait_for_url(re.compile(r"/players\?sort=name&name=ANA$"))
    card = page.locator("#player-card")
    card.locator("dl").wait_for()
    assert card.locator("h2").inner_text() == "ANA"
    assert card.locator("dd").all_inner_texts() == [
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
    assert names(page) == [p["name"] for p in BY_WINS]


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
        "Partier",
        "Seirer",
        "Snittplassering",
        "Dudo",
        "Calza",
    ]
    assert card.locator("dd").nth(3).inner_text().replace("\xa0", " ") == "75 % 3 av 4"
