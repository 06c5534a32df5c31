"""The table people choose (issue 11): six players on every screen size with nothing off screen,
players in turn order, the dice in play, turn alerts in the title, the game log (rebuilt after
a reload, the bot's moves for people marked), guarded calls, chat, Leave and the rematch."""

from __future__ import annotations

import copy
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from tests.browser.helpers import Player, call, hold, wait_for_answer
from tests.browser.test_browser_protocol import Wire

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TURN_TITLE = "(●) Your turn · Perudo"
AWAY_BID = re.compile(r"While you were away, the bot bid \d+ \w+ for you\.")
TIMER_BID = re.compile(r"Time ran out: the bot bid \d+ \w+ for you\.")
CLEAR_OF_THE_EDGE = 8  # px: Dudo and Calza keep at least this much from the screen's bottom
LONG_NAME = "Anna Maria Kovács"
SIZES: list[ViewportSize] = [
    {"width": 360, "height": 640},
    {"width": 390, "height": 844},
    {"width": 640, "height": 360},
    {"width": 844, "height": 390},
    {"width": 1280, "height": 800},
]

# The boxes of elements, by selector (every match), in viewport coordinates.
BOXES = """sels => Object.fromEntries(sels.map(s => [
  s, [...document.querySelectorAll(s)].map(el => {
  const r = el.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width};
})]))"""


def on_screen(page: Page, selectors: list[str]) -> dict[str, Any]:
    """The selectors (each matching something) with a box outside the viewport."""
    size = page.viewport_size
    assert size is not None
    boxes: dict[str, list[dict[str, float]]] = page.evaluate(BOXES, selectors)
    bad: dict[str, Any] = {}
    for selector, found in boxes.items():
        if not found:
            bad[selector] = "missing"
        for box in found:
            if (
                box["width"] == 0
                or box["top"] < -0.5
                or box["left"] < -0.5
                or box["bottom"] > size["height"] + 0.5
                or box["right"] > size["width"] + 0.5
            ):
                bad[selector] = box
    return bad


def create_room(player: Player, bots: int = 0, **settings: Any) -> str:
    """A room made through the API, with `player` seated as host and `bots` bots."""
    room = httpx.post(f"{player.base}/api/rooms", json=settings).json()
    player.page.goto(f"{player.base}{room['url']}")
    join(player)
    for count in range(bots):
        player.page.click("#bot-form button")
        player.page.wait_for_function(
            f"() => document.querySelectorAll('#seats .seat:not(.empty)').length === {count + 2}"
        )
    return f"{player.base}{room['url']}"


def join(player: Player, url: str | None = None) -> None:
    if url:
        player.page.goto(url)
    player.page.fill("#join-name", player.name)
    player.page.click("#join-form button[type=submit]")
    player.page.wait_for_selector("#seats .seat.you")


def until_my_turn_with_a_bid(player: Player) -> dict[str, Any]:
    """Play (least bids) until it is the player's turn with a bid standing; the shown state."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if player.revealing():
            player.page.click("#reveal-next")
        elif player.my_turn():
            state = player.shown_state()
            if state["round"]["bid"] is not None:
                return state
            seq = player.page.get_attribute("#room", "data-seq") or ""
            player.page.click("#bid-btn")
            wait_for_answer(player, seq)
        else:
            player.page.wait_for_timeout(50)
    raise AssertionError("never my turn with a bid standing")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_six_players_fit_the_screen_on_your_turn(
    browser: Browser, live_server: str, screenshots: Path, size: ViewportSize
) -> None:
    anna = Player(browser, live_server, LONG_NAME, size)
    try:
        create_room(anna, bots=5)
        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        state = until_my_turn_with_a_bid(anna)
        anna.page.wait_for_timeout(400)  # a smooth scroll to the controls, if any, ends
        page = anna.page

        # Everything a turn needs is inside the viewport, without scrolling.
        wanted = [
            "#my-dice .die",
            "#standing .standing-bid",
            "#faces .face-btn",
            "#qty-up",
            "#bid-btn",
            "#dudo-btn",
            "#calza-btn",
            "#players li",
            "#dice-total",
            "#turn-text",
        ]
        assert on_screen(page, wanted) == {}, size
        bottom = size["height"] - CLEAR_OF_THE_EDGE
        for call_button in ("#dudo-btn", "#calza-btn"):
            box = page.locator(call_button).bounding_box()
            assert box and box["y"] + box["height"] <= bottom, (call_button, box, size)
        assert page.get_by_role("group", name="Your dice").is_visible()
        assert page.get_by_role("button", name=re.compile("^Bid")).is_enabled()
        assert page.get_by_role("button", name=re.compile("^Calza")).is_visible()

        # The players in turn order from you, each read as "Name, N dice".
        items = page.get_by_role("list", name="Players").get_by_role("listitem")
        assert items.count() == 6
        players = sorted(state["players"], key=lambda p: p["seat"])
        me = state["you"]["seat"]
        order = [p for p in players if p["seat"] >= me] + [p for p in players if p["seat"] < me]
        for item, p in zip(items.all(), order, strict=True):
            label = item.get_attribute("aria-label") or ""
            dice = "1 die" if p["dice"] == 1 else f"{p['dice']} dice"
            assert label.startswith(f"{p['name']}, {dice}"), label
        total = state["round"]["total_dice"]
        assert page.inner_text("#dice-total") == f"{total} dice in play"
        # The odds helper is off unless the room turns it on.
        assert state["you"]["odds"] is None
        assert page.locator(".standing-odds").count() == 0
        assert page.locator("#faces .face-odds").all_inner_texts() == [""] * 6
        assert page.title() == TURN_TITLE

        # Full names: the long name is shown whole (wrapped), never cut.
        name = page.locator("#players li.you .name-text")
        assert name.inner_text().replace("\n", " ") == LONG_NAME
        assert name.evaluate("el => el.scrollWidth <= el.clientWidth + 1")

        # Landscape: your hand beside the board, not below it.
        if size["width"] > size["height"]:
            hand = page.locator(".hand").bounding_box()
            board = page.locator(".board").bounding_box()
            assert hand and board and hand["x"] >= board["x"] + board["width"] - 1

        # No horizontal scrolling.
        report = anna.overflow()
        assert report["scrollWidth"] <= report["width"], report

        anna.shot(screenshots, f"table-{size['width']}x{size['height']}")

        # The ace note appears in the room kept for it: nothing moves.
        standing = state["round"]["bid"]
        mins = state["you"]["legal"]["min_quantity"]
        crossing = 2 if standing["face"] == 1 else 1
        if mins[crossing - 1] is not None:
            before = page.evaluate(BOXES, ["#bid-btn", "#dudo-btn", "#faces"])
            page.click(f'#faces [data-face="{crossing}"]')
            assert page.is_visible("#ace-note")
            assert page.evaluate(BOXES, ["#bid-btn", "#dudo-btn", "#faces"]) == before
            anna.shot(screenshots, f"table-{size['width']}x{size['height']}-ace-note")
        assert anna.page_errors == []
    finally:
        anna.close()


def shown_percent(chance: float) -> str:
    """A chance as the page writes it in English (static/js/i18n.js `percent`)."""
    if 0 < chance < 0.01:
        return "<1%"
    if 0.99 < chance < 1:
        return ">99%"
    return f"{round(chance * 100)}%"


def test_odds_helper_on_your_turn(browser: Browser, live_server: str, screenshots: Path) -> None:
    anna = Player(browser, live_server, LONG_NAME)
    try:
        create_room(anna, bots=5, odds=True)
        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        state = until_my_turn_with_a_bid(anna)
        anna.page.wait_for_timeout(400)  # a smooth scroll to the controls, if any, ends
        page = anna.page
        odds = state["you"]["odds"]
        mins = state["you"]["legal"]["min_quantity"]

        # The chance that the standing bid holds, given your dice, beside the bid.
        assert page.inner_text("#standing .standing-odds") == (
            f"{shown_percent(odds['bid'])} chance it holds"
        )
        # Beside each open face, the chance that its least legal bid holds; closed faces none.
        faces = page.locator("#faces .face-btn")
        for face in range(1, 7):
            button = faces.nth(face - 1)
            chance = odds["min_raise"][face - 1]
            if mins[face - 1] is None:
                assert chance is None
                assert button.locator(".face-odds").inner_text() == ""
                continue
            shown = shown_percent(chance)
            assert button.locator(".face-odds").inner_text() == shown
            label = button.get_attribute("aria-label") or ""
            assert label.endswith(f", from {mins[face - 1]}: {shown} chance it holds"), label
        wanted = ["#standing .standing-odds", "#faces .face-odds", "#bid-btn", "#dudo-btn"]
        assert on_screen(page, [*wanted, "#calza-btn", "#players li"]) == {}
        assert anna.overflow()["offenders"] == []
        anna.shot(screenshots, "table-odds-360x640")
        assert anna.page_errors == []
    finally:
        anna.close()


def test_odds_only_for_the_player_to_act(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = create_room(anna, odds=True)
        join(bela, url)
        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")
        anna.page.wait_for_function("() => document.getElementById('room').dataset.seq !== '-1'")
        state = anna.shown_state()
        actor, other = (
            (anna, bela) if state["round"]["turn"] == state["you"]["seat"] else (bela, anna)
        )
        # The opening bid: odds beside the faces, none for a standing bid there is not.
        actor.page.wait_for_selector("#faces .face-odds:not(:empty)")
        assert actor.page.locator(".standing-odds").count() == 0
        seq = actor.page.get_attribute("#room", "data-seq") or ""
        actor.page.click("#bid-btn")
        wait_for_answer(actor, seq)
        # Now the other player decides, with the standing bid's chance; the bidder sees none.
        other.page.wait_for_selector("#standing .standing-odds")
        assert other.page.locator("#faces .face-odds:not(:empty)").count() > 0
        actor.page.wait_for_selector("#actions[data-my-turn=false]")
        assert actor.page.locator(".standing-odds").count() == 0
        assert actor.page.locator("#faces .face-odds").all_inner_texts() == [""] * 6
        assert not anna.page_errors and not bela.page_errors
    finally:
        anna.close()
        bela.close()


def test_round_one_roll_off_fits_at_360(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna = Player(browser, live_server, LONG_NAME)
    wire = Wire()
    anna.page.route_web_socket(re.compile(r"/ws/"), wire.route)
    try:
        create_room(anna, bots=5)
        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        # Round 1 as it opens, with six long names rolling off twice (fed to the page).
        wire.rewrite = lambda msg: [] if msg["type"] == "state" else [msg]
        state = copy.deepcopy(anna.states[max(anna.states)])
        seats = [p["seat"] for p in state["players"]]
        for p in state["players"]:
            p["name"] = p["name"] if p["seat"] == state["you"]["seat"] else f"{p['name']} Longname"
        throws = [
            [{"seat": s, "die": 6} for s in seats],
            [{"seat": s, "die": 1 + s} for s in seats[:2]],
        ]
        state["round"] |= {"number": 1, "bids": [], "bid": None, "roll_off": throws}
        state["seq"] += 1000
        wire.inject(state)
        anna.page.wait_for_selector(".roll-off")
        assert anna.page.locator(".roll-off .roll-one").count() == 8
        # The highest throw opens, so an ace shows as the 1 it counts as here, not the wild star.
        assert anna.page.locator(".roll-off .die.ace, .roll-off .die-star").count() == 0
        assert anna.page.locator('.roll-off .die[aria-label="1"]').count() == 1
        anna.page.wait_for_timeout(500)  # a smooth scroll to the controls ends
        wanted = [".roll-off .roll-one", "#players li", "#my-dice .die", "#bid-btn", "#dudo-btn"]
        assert on_screen(anna.page, [*wanted, "#calza-btn", "#faces .face-btn"]) == {}
        assert anna.overflow()["offenders"] == []
        anna.shot(screenshots, "table-360x640-roll-off")
    finally:
        anna.close()


def test_turn_title_timer_autoplay_log_after_reload_and_guarded_calls(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = create_room(anna, turn_seconds=10)
        join(bela, url)
        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")
        anna.page.wait_for_function("() => document.getElementById('room').dataset.seq !== '-1'")
        state = anna.shown_state()
        actor, other = (
            (anna, bela) if state["round"]["turn"] == state["you"]["seat"] else (bela, anna)
        )
        actor.page.wait_for_function(f"() => document.title === {TURN_TITLE!r}")
        assert other.page.title() != TURN_TITLE and "Perudo" in other.page.title()
        # the live region is emptied, then filled a moment later so the words are read again
        actor.page.wait_for_function(
            "() => document.getElementById('turn-live').textContent !== ''"
        )
        assert actor.page.inner_text("#turn-live") == "Your turn"

        # The actor does nothing: after 10 s the server's bot bids for them, and both pages say so.
        for p in (actor, other):
            line = p.page.locator("#log-list li.log-auto").first
            line.wait_for(timeout=20_000)
            assert re.fullmatch(
                rf"Time ran out: the bot bid \d+ \w+ for {'you' if p is actor else actor.name}\.",
                line.inner_text(),
            ), line.inner_text()
        # The actor was here all along: the move reads as the timer's, never "you" or "away".
        actor.page.wait_for_selector("#away-line:not(:empty)")
        assert TIMER_BID.fullmatch(actor.page.inner_text("#away-line"))
        assert actor.page.inner_text("#standing .standing-by") == "by the bot for you"
        assert "You bid" not in actor.page.inner_text("#log-list")
        other.page.wait_for_function(f"() => document.title === {TURN_TITLE!r}")
        assert actor.page.title() != TURN_TITLE
        actor.shot(screenshots, "table-autoplayed-360x640")
        # Reloaded, in Hungarian: the log is rebuilt from the state and still says the bot did.
        actor.page.goto(f"{url}?lang=hu")
        line = actor.page.locator("#log-list li.log-auto").first
        line.wait_for()
        assert line.inner_text().startswith("Lejárt az idő: a bot helyetted"), line.inner_text()
        assert "Te licitáltál" not in actor.page.inner_text("#log-list")
        actor.page.goto(url)
        actor.page.wait_for_selector("#table:not([hidden])")

        # Dudo is guarded: a tap sends nothing and says to hold; a hold too short sends nothing.
        seq = other.page.get_attribute("#room", "data-seq")
        other.page.click("#dudo-btn")
        assert other.page.inner_text("#dudo-btn") == "Dudo! Hold to call"
        hold(other.page, "#dudo-btn", ms=200)
        other.page.wait_for_timeout(500)
        assert other.page.get_attribute("#room", "data-seq") == seq
        assert other.page.is_hidden("#reveal")
        # The keyboard path sends at once.
        other.page.focus("#dudo-btn")
        other.page.keyboard.press("Enter")
        other.page.wait_for_selector("#reveal:not([hidden])")
        other.page.click("#reveal-next")

        # The turn sound is off by default and remembered once turned on.
        bela.page.wait_for_selector("#sound-btn[aria-pressed=false]")
        bela.page.click("#sound-btn")
        assert bela.page.get_attribute("#sound-btn", "aria-pressed") == "true"

        # After a reload the log is rebuilt from `history`; tapping a round shows its reveal.
        bela.page.reload()
        bela.page.wait_for_selector("#sound-btn[aria-pressed=true]", state="attached")
        bela.page.wait_for_selector("#log-list li.log-round")
        first = bela.page.get_by_role("log", name="Game log").locator("li.log-round").first
        assert first.inner_text().startswith("Round 1")
        assert "called dudo on" in first.inner_text()
        first.locator("button").click()
        bela.page.wait_for_selector("#reveal:not([hidden])")
        assert bela.page.locator("#reveal-cups .die").count() == 10
        rows = bela.page.eval_on_selector_all(
            "#reveal-cups .reveal-dice",
            "rows => rows.map(r => [...r.querySelectorAll('.die')]"
            ".map(d => d.getAttribute('aria-label')))",
        )
        for row in rows:  # each cup's dice in order, aces first
            faces = [1 if label == "ace" else int(label) for label in row]
            assert faces == sorted(faces), rows
        bela.shot(screenshots, "table-reveal-again-360x640")
        bela.page.click("#reveal-next")
        assert not anna.page_errors and not bela.page_errors, (anna.page_errors, bela.page_errors)
    finally:
        anna.close()
        bela.close()


def play_on(player: Player, deadline: float) -> None:
    """One step of plain play: close a reveal, call dudo on a bid, else bid the least."""
    assert time.monotonic() < deadline, "the game did not end in time"
    if player.revealing():
        player.page.click("#reveal-next")
    elif player.my_turn():
        seq = player.page.get_attribute("#room", "data-seq") or ""
        if player.page.is_enabled("#dudo-btn"):
            call(player, "dudo")
        else:
            player.page.click("#bid-btn")
        wait_for_answer(player, seq)
    else:
        player.page.wait_for_timeout(50)


def test_chat_unread_count_in_the_lobby(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = create_room(anna)
        join(bela, url)
        for text in ("hello", "anyone?"):
            bela.page.click("#lobby-chat-open")
            bela.page.fill("#chat-text", text)
            bela.page.press("#chat-text", "Enter")
        anna.page.wait_for_function(
            "() => document.getElementById('lobby-chat-unread').textContent === '2'"
        )
        assert on_screen(anna.page, ["#lobby-chat-unread", "#lobby-chat-open"]) == {}
        assert bela.page.is_hidden("#lobby-chat-unread")  # his own lines are not unread
        anna.page.click("#lobby-chat-open")
        anna.page.wait_for_selector("#lobby-chat-unread", state="hidden")
        assert on_screen(anna.page, ["#chat-text"]) == {}
        assert anna.page.locator("#chat-log li").all_inner_texts() == ["Béla hello", "Béla anyone?"]
        assert not anna.page_errors and not bela.page_errors
    finally:
        anna.close()
        bela.close()


def test_chat_leave_standings_and_rematch_without_the_one_who_left(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = create_room(anna, bots=1)
        join(bela, url)
        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")

        # Chat: a toast and an unread count at the top of the table; one tap opens the panel.
        bela.page.click("#chat-open")
        bela.page.fill("#chat-text", "good luck")
        bela.page.press("#chat-text", "Enter")
        anna.page.wait_for_selector("#chat-unread:not([hidden])")
        assert anna.page.inner_text("#chat-unread") == "1"
        assert "Béla: good luck" in anna.page.inner_text("#toasts")
        assert on_screen(anna.page, ["#chat-open"]) == {}
        anna.page.click("#chat-open")
        anna.page.wait_for_selector("#chat-unread", state="hidden")
        assert on_screen(anna.page, ["#chat-text"]) == {}
        anna.page.evaluate("window.scrollTo(0, 0)")

        # A header link out of a running game asks first; "no" stays.
        anna.page.once("dialog", lambda dialog: dialog.dismiss())
        anna.page.click(".site-nav a[href='/games']")
        anna.page.wait_for_timeout(300)
        assert "/r/" in anna.page.url

        # Béla leaves (confirmed): a bot plays his seat.
        bela.page.once("dialog", lambda dialog: dialog.accept())
        bela.page.click("#game-leave")
        anna.page.wait_for_selector("#players .badge.auto", timeout=20_000)

        deadline = time.monotonic() + 120
        while not (anna.phase() == "finished" and not anna.revealing()):
            play_on(anna, deadline)

        # Everyone sees the final standings, winner included.
        for p in (anna, bela):
            while p.page.is_hidden("#end"):  # a page that was watching catches up the reveals
                play_on(p, deadline)
            p.page.wait_for_selector("#end:not([hidden])")
            p.page.wait_for_function("() => document.querySelectorAll('#places li').length === 3")
        state = anna.shown_state()
        winner = next(p["name"] for p in state["players"] if p["seat"] == state["winner"])
        assert winner in anna.page.inner_text("#places li:first-child")
        # Each person in the standings links to their stats; the bot keeps none.
        links = anna.page.locator("#places a")
        hrefs = {links.nth(i).inner_text(): links.nth(i).get_attribute("href") for i in range(2)}
        assert hrefs == {"Anna (you)": "/players?name=Anna", "Béla": "/players?name=B%C3%A9la"}
        assert links.count() == 2
        assert httpx.get(f"{live_server}/players?name=B%C3%A9la").status_code == 200
        assert anna.page.is_hidden("#game-leave")
        assert anna.page.title() != TURN_TITLE
        anna.shot(screenshots, "table-end-360x640")

        # Rematch: back to the lobby; Béla's seat is free, the bot's stays.
        anna.page.click("#rematch-btn")
        anna.page.wait_for_selector("#lobby:not([hidden])")
        anna.page.wait_for_function(
            "() => document.querySelectorAll('#seats .seat:not(.empty)').length === 2"
        )
        assert "Béla" not in anna.page.inner_text("#seats")
        assert anna.page.is_visible("#start-btn")
        bela.page.wait_for_selector("#join-card:not([hidden])")
        assert not anna.page_errors, anna.page_errors
    finally:
        anna.close()
        bela.close()


def test_waiting_for_a_player_to_reconnect(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = create_room(anna, bots=1)
        join(bela, url)
        anna.page.click("#start-btn")
        bela.page.wait_for_selector("#table:not([hidden])")
        bela.page.close()  # Béla's phone drops: the others see who they wait for, and how long
        line = anna.page.locator("#wait-line")
        line.wait_for()
        assert re.fullmatch(r"Waiting for Béla to reconnect · 0:0\d", line.inner_text())
        item = anna.page.get_by_role("list", name="Players").locator("li.offline")
        assert "Béla" in (item.get_attribute("aria-label") or "")
        assert "offline" in (item.get_attribute("aria-label") or "")
    finally:
        anna.close()
        bela.close()


# Sockets the test can cut, and keep cut (new ones go nowhere) while window.__block is set.
CUTTABLE_SOCKETS = """(() => {
  const Real = window.WebSocket;
  window.__sockets = [];
  function Cuttable(url, protocols) {
    const ws = new Real(window.__block ? "ws://127.0.0.1:9/" : url, protocols);
    window.__sockets.push(ws);
    return ws;
  }
  Cuttable.prototype = Real.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Cuttable[k] = Real[k];
  window.WebSocket = Cuttable;
})();"""


def start_with_bela_to_act(anna: Player, bela: Player) -> str:
    """Anna creates a room, Béla joins, Anna starts and bids if she opens: Béla's turn.
    Returns the room's link."""
    url = create_room(anna)
    join(bela, url)
    anna.page.click("#start-btn")
    bela.page.wait_for_selector("#table:not([hidden])")
    anna.page.wait_for_function("() => document.getElementById('room').dataset.seq !== '-1'")
    if anna.shown_state()["round"]["turn"] == anna.shown_state()["you"]["seat"]:
        seq = anna.page.get_attribute("#room", "data-seq") or ""
        anna.page.click("#bid-btn")
        wait_for_answer(anna, seq)
    bela.page.wait_for_selector("#actions[data-my-turn=true]")
    return url


def test_a_returning_player_reads_what_the_bot_played(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    bela.page.add_init_script(CUTTABLE_SOCKETS)
    try:
        start_with_bela_to_act(anna, bela)
        # Béla's phone loses the network on his turn; after the grace the bot bids for him.
        bela.page.evaluate("() => { window.__block = true; window.__sockets.at(-1).close(); }")
        anna.page.locator("#log-list li.log-auto").first.wait_for(timeout=30_000)
        bela.page.evaluate("() => { window.__block = false; }")
        line = bela.page.locator("#away-line")
        line.wait_for(timeout=30_000)
        assert AWAY_BID.fullmatch(line.inner_text()), line.inner_text()
    finally:
        anna.close()
        bela.close()


def test_a_player_who_reopens_the_room_reads_what_the_bot_played(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        url = start_with_bela_to_act(anna, bela)
        # Béla closes the page on his turn; after the grace the bot bids for him.
        bela.page.close()
        anna.page.locator("#log-list li.log-auto").first.wait_for(timeout=30_000)
        # He opens the room link again: a new page, his seat back from the browser's storage,
        # and the server's `welcome` says what was played for him.
        bela.page = bela.context.new_page()
        bela.watch(bela.page)
        bela.page.goto(url)
        bela.page.wait_for_selector("#table:not([hidden])")
        line = bela.page.locator("#away-line")
        line.wait_for()
        assert AWAY_BID.fullmatch(line.inner_text()), line.inner_text()
        assert on_screen(bela.page, ["#away-line"]) == {}
        bela.shot(screenshots, "table-away-line-360x640")
        assert bela.page_errors == []
    finally:
        anna.close()
        bela.close()


# A page that is hidden, may notify (recorded, not shown) and may vibrate (recorded).
HIDDEN_PAGE = """(() => {
  window.__notes = [];
  window.__buzz = [];
  Object.defineProperty(document, "hidden", { get: () => true });
  class Recorded { constructor(title) { window.__notes.push(title); } }
  Recorded.permission = "granted";
  Recorded.requestPermission = async () => "granted";
  window.Notification = Recorded;
  navigator.vibrate = (ms) => { window.__buzz.push(ms); return true; };
})();"""


def test_a_hidden_page_is_told_its_turn(browser: Browser, live_server: str) -> None:
    anna = Player(browser, live_server, "Anna")
    anna.page.add_init_script(HIDDEN_PAGE)
    try:
        create_room(anna, bots=1)
        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#actions[data-my-turn=true]")
        anna.page.wait_for_function(f"() => document.title === {TURN_TITLE!r}")
        anna.page.wait_for_function("() => window.__notes.includes('Your turn')")
        assert anna.page.evaluate("() => window.__buzz.length") >= 1
        anna.page.wait_for_selector("#turn-live:text('Your turn')", state="attached")
    finally:
        anna.close()


def test_palifico_banner_reads_plainly(browser: Browser, live_server: str) -> None:
    anna = Player(browser, live_server, "Anna")
    wire = Wire()
    anna.page.route_web_socket(re.compile(r"/ws/"), wire.route)
    try:
        create_room(anna, bots=1)
        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        wire.rewrite = lambda msg: [] if msg["type"] == "state" else [msg]
        state = copy.deepcopy(anna.states[max(anna.states)])
        me = state["you"]["seat"]
        bot = next(p for p in state["players"] if p["seat"] != me)
        state["round"] |= {"palifico": True, "palifico_seat": me}
        state["seq"] += 1000
        wire.inject(state)
        anna.page.wait_for_selector("#palifico-banner:not([hidden])")
        assert anna.page.inner_text("#palifico-banner") == (
            "Palifico round (yours): aces are not wild, and the first bid's face is locked."
        )
        state["round"] |= {"palifico_seat": bot["seat"]}
        state["seq"] += 1
        wire.inject(state)
        anna.page.wait_for_selector(f"#palifico-banner:text('({bot['name']})')")
    finally:
        anna.close()


def test_the_table_speaks_the_page_language(browser: Browser, live_server: str) -> None:
    anna, bela = Player(browser, live_server, "Anna"), Player(browser, live_server, "Béla")
    try:
        room = httpx.post(f"{live_server}/api/rooms", json={}).json()
        url = f"{live_server}{room['url']}"
        for player, code in ((anna, "nb"), (bela, "hu")):
            player.page.goto(f"{url}?lang={code}")
            assert player.page.get_attribute("html", "lang") == code
            join(player)
        anna.page.click("#bot-form button")
        anna.page.wait_for_selector("#lobby-wait:text('Start når alle er her.')")
        assert anna.page.inner_text("#seats .seat.you .seat-name") == "Anna (deg)"
        assert bela.page.inner_text("#lobby-chat-open").startswith("Csevegés")
        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")
        anna.page.wait_for_function("() => document.getElementById('room').dataset.seq !== '-1'")

        # Norwegian and Hungarian at one table, each page in its own words and plurals.
        assert anna.page.inner_text("#dice-total") == "15 terninger i spill"
        assert bela.page.inner_text("#dice-total") == "15 kocka"
        anna_label = anna.page.locator("#players li.you").get_attribute("aria-label") or ""
        assert anna_label.startswith("Anna, 5 terninger, du"), anna_label
        bela_label = bela.page.locator("#players li.you").get_attribute("aria-label") or ""
        assert bela_label.startswith("Béla, 5 kocka, te"), bela_label
        for p, bid, word in ((anna, "By", "Dudo!"), (bela, "Licit", "Calza!")):
            p.page.wait_for_selector("#actions:not([hidden])")
            assert p.page.inner_text("#bid-btn").startswith(bid)
            assert word in (p.page.inner_text("#dudo-btn"), p.page.inner_text("#calza-btn"))
        # Whoever is to act reads it in their language, in the page and in the title.
        turn = {
            "nb": ("Din tur", "(●) Din tur · Perudo"),
            "hu": ("Te jössz", "(●) Te jössz · Perudo"),
        }
        for p, code in ((anna, "nb"), (bela, "hu")):
            if p.my_turn():
                assert p.page.inner_text("#turn-text") == turn[code][0]
                p.page.wait_for_function("t => document.title === t", arg=turn[code][1])
        assert re.fullmatch(r"(Din tur|Tur: .+)", anna.page.inner_text("#turn-text"))
        assert re.fullmatch(r"(Te jössz|.+ jön)", bela.page.inner_text("#turn-text"))
        assert not anna.page_errors and not bela.page_errors
    finally:
        anna.close()
        bela.close()
