"""Every state of the room fits every phone (issue 21): the lobby, your turn, another's turn, the
reveal and the end, at each size the issue names, portrait and landscape. One game is played
once and each state is looked at in every size by resizing the same pages; the screenshots go
to the git-ignored screenshots/ folder."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from tests.browser.helpers import Player, call, wait_for_answer
from tests.browser.test_browser_table import create_room, join, on_screen

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES: list[ViewportSize] = [
    {"width": 568, "height": 320},
    {"width": 640, "height": 360},
    {"width": 740, "height": 360},
    {"width": 844, "height": 390},
    {"width": 915, "height": 412},
    {"width": 360, "height": 640},
    {"width": 390, "height": 844},
]
LONG_NAME = "Szentgyörgyi-Kovács Anna"  # 24 characters, the longest a name may be
TURN_CONTROLS = ["#my-dice .die", "#bid-btn", "#dudo-btn", "#calza-btn", "#faces .face-btn"]

# Where each element is, and whether it is under the sticky top bar (hidden by it).
UNDER_TOP_BAR = """sels => {
  const bar = document.querySelector(".table-top").getBoundingClientRect();
  return sels.filter(s => [...document.querySelectorAll(s)].some(el => {
    const r = el.getBoundingClientRect();
    return r.top < bar.bottom - 0.5 && r.bottom > bar.top + 0.5;
  }));
}"""
ROWS_OF_DICE = """() => new Set([...document.querySelectorAll("#my-dice .die")]
  .map(d => Math.round(d.getBoundingClientRect().top))).size"""


def label(size: ViewportSize) -> str:
    return f"{size['width']}x{size['height']}"


def resize(player: Player, size: ViewportSize) -> None:
    player.page.set_viewport_size(size)
    player.page.wait_for_timeout(250)  # the page settles (a rotation may scroll it)


def sideways(player: Player) -> list[str]:
    """What sticks out sideways (so the page would scroll sideways); empty when nothing does."""
    report = player.overflow()
    return [] if report["scrollWidth"] <= report["width"] else report["offenders"]


def words_broken(page: Page, selector: str) -> list[str]:
    """The words (split at spaces and after hyphens) in `selector` that run over two lines."""
    broken: list[str] = page.eval_on_selector_all(
        selector,
        """els => els.flatMap(el => {
          const node = el.firstChild;
          if (!node || node.nodeType !== Node.TEXT_NODE) return [];
          return [...node.textContent.matchAll(/[^\\s-]+-?/g)].filter(m => {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
          }).map(m => m[0]);
        })""",
    )
    return broken


def play_until(players: list[Player], done: Any, deadline: float) -> None:
    """Least bids by every person until `done()`; reveals are closed."""
    while not done():
        assert time.monotonic() < deadline, "the table never reached the wanted state"
        for p in players:
            if done():
                return
            if p.revealing():
                p.page.click("#reveal-next")
            elif p.my_turn():
                seq = p.page.get_attribute("#room", "data-seq") or ""
                p.page.click("#bid-btn")
                wait_for_answer(p, seq)
        players[0].page.wait_for_timeout(30)


def test_every_state_fits_every_phone(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna, bela = Player(browser, live_server, LONG_NAME), Player(browser, live_server, "Béla")
    problems: list[tuple[str, Any]] = []  # (where, what is wrong there), all sizes told at once
    try:
        url = create_room(anna, turn_seconds=120)
        join(bela, url)
        for count in range(4):
            anna.page.click("#bot-form button")
            anna.page.wait_for_function(
                "n => document.querySelectorAll('#seats .seat:not(.empty)').length === n",
                arg=count + 3,
            )
        for size in SIZES:
            resize(anna, size)
            problems.append((f"lobby {label(size)}", sideways(anna)))
            anna.shot(screenshots, f"fit-lobby-{label(size)}")

        anna.page.click("#start-btn")
        for p in (anna, bela):
            p.page.wait_for_selector("#table:not([hidden])")
        deadline = time.monotonic() + 60
        play_until(
            [anna, bela],
            lambda: anna.my_turn() and anna.shown_state()["round"]["bid"] is not None,
            deadline,
        )
        for size in SIZES:
            for p in (anna, bela):
                resize(p, size)
            where = f"your turn {label(size)}"
            problems.append((where, on_screen(anna.page, TURN_CONTROLS)))
            # (your own tile too, on a phone on its side, where the whole turn is one screen)
            covered = (
                [*TURN_CONTROLS, "#players li.you"]
                if size["width"] > size["height"]
                else TURN_CONTROLS
            )
            problems.append((where, anna.page.evaluate(UNDER_TOP_BAR, covered)))
            problems.append((where, anna.page.evaluate(ROWS_OF_DICE) != 1))
            problems.append((where, words_broken(anna.page, "#players .name-text")))
            problems.append((where, sideways(anna)))
            anna.shot(screenshots, f"fit-turn-{label(size)}")
            # Another's turn: the standing bid, your dice and Calza are in sight.
            where = f"another's turn {label(size)}"
            wanted = ["#my-dice .die", "#standing .standing-bid", "#calza-btn"]
            # (on its side, without scrolling; upright, with Calza scrolled to the bottom)
            bela.page.evaluate(
                """landscape => landscape ? window.scrollTo(0, 0)
                   : document.getElementById("calza-btn").scrollIntoView({block: "end"})""",
                size["width"] > size["height"],
            )
            bela.page.wait_for_timeout(50)
            problems.append((where, on_screen(bela.page, wanted)))
            problems.append((where, sideways(bela)))
            bela.shot(screenshots, f"fit-other-{label(size)}")

        # The reveal: its title and its Next button are both reachable at every size.
        seq = anna.page.get_attribute("#room", "data-seq") or ""
        call(anna, "dudo")
        wait_for_answer(anna, seq)
        anna.page.click("#reveal-next")
        for size in SIZES:
            resize(anna, size)
            anna.page.click("#log-list .log-again")  # the same reveal again, for this size
            anna.page.wait_for_selector("#reveal:not([hidden])")
            where = f"reveal {label(size)}"
            anna.page.wait_for_timeout(300)  # the sheet's pop-in ends
            problems.append((where, on_screen(anna.page, ["#reveal-title", "#reveal-bid"])))
            problems.append((where, words_broken(anna.page, "#reveal-cups .reveal-name")))
            problems.append((where, sideways(anna)))
            anna.shot(screenshots, f"fit-reveal-{label(size)}")
            anna.page.evaluate(
                "() => document.getElementById('reveal-next').scrollIntoView({block: 'nearest'})"
            )
            problems.append((where, on_screen(anna.page, ["#reveal-next"])))
            anna.page.click("#reveal-next")
            anna.page.wait_for_selector("#reveal", state="hidden")
        found = [(where, bad) for where, bad in problems if bad]
        assert found == [], "\n".join(f"{where}: {bad}" for where, bad in found)
        assert not anna.page_errors and not bela.page_errors
    finally:
        anna.close()
        bela.close()
