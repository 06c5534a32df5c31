"""A table that feels alive (issue 21): the turn timer as a bar shrinking on the acting seat's
tile, quick reactions shown over the sender's seat (a spectator's too), sounds behind one
remembered toggle, the dice shaken at a round's start (not under reduced motion), and the
end-of-game summary, which fits every phone."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import Player, call, wait_for_answer
from tests.browser.test_browser_landscape import SIZES, label, resize, sideways
from tests.browser.test_browser_table import create_room

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Count the tones the page starts (WebAudio), so a test can tell a sound was played.
COUNT_TONES = """(() => {
  window.__tones = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__tones += 1;
    return start.apply(this, args);
  };
})();"""
BAR = """() => {
  const fill = document.querySelector("#players li.turn .turn-bar-fill");
  return fill ? new DOMMatrix(getComputedStyle(fill).transform).a : null;
}"""
SHAKE = """() => getComputedStyle(document.querySelector("#my-dice .die")).animationName"""


def tones(player: Player) -> int:
    count: int = player.page.evaluate("() => window.__tones")
    return count


def test_timer_bar_reactions_sounds_shake_and_the_summary(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna, eve = Player(browser, live_server, "Anna"), Player(browser, live_server, "Eve")
    anna.page.add_init_script(COUNT_TONES)
    try:
        url = create_room(anna, bots=1, turn_seconds=30)
        me = int(anna.page.get_attribute("#room", "data-seat") or "-1")

        # A reaction from a seat floats over that seat; a spectator's over the watcher count.
        anna.page.get_by_role("button", name="React with 👍").click()
        pop = anna.page.locator(f'.reaction-pop[data-seat="{me}"]')
        pop.wait_for()
        assert pop.inner_text() == "👍" and {"type": "react", "emoji": "👍"} in anna.sent
        eve.page.goto(url)
        eve.page.wait_for_selector("#reactions .react:not([disabled])")

        anna.page.click("#start-btn")
        anna.page.wait_for_selector("#table:not([hidden])")
        eve.page.wait_for_selector("#table:not([hidden])")
        eve.page.get_by_role("button", name="React with 😂").click()
        anna.page.wait_for_selector('.reaction-pop[data-seat=""]')

        # Sounds are off until the toggle turns them on (remembered), then each bid sounds.
        assert tones(anna) == 0
        anna.page.click("#sound-btn")
        assert anna.page.inner_text("#sound-btn") == "Sounds: on"
        assert tones(anna) > 0  # a first taste of the sound

        deadline = time.monotonic() + 90
        bar_seen = False
        shaken = False
        while anna.phase() != "finished":
            assert time.monotonic() < deadline, "the game did not end in time"
            if anna.revealing():
                anna.page.click("#reveal-next")
                if anna.phase() == "playing" and not shaken:
                    # The next round's dice shake; under reduced motion they do not.
                    assert anna.page.evaluate("() => table.classList.contains('rolling')")
                    assert anna.page.evaluate(SHAKE) == "shake"
                    anna.page.emulate_media(reduced_motion="reduce")
                    assert anna.page.evaluate(SHAKE) == "none"
                    anna.page.emulate_media(reduced_motion="no-preference")
                    shaken = True
            elif anna.my_turn():
                if not bar_seen:  # the timer's bar shrinks on the acting seat's tile
                    first = anna.page.evaluate(BAR)
                    anna.page.wait_for_timeout(600)
                    later = anna.page.evaluate(BAR)
                    assert first is not None and later is not None and 0 < later < first <= 1
                    bar_seen = True
                before = tones(anna)
                seq = anna.page.get_attribute("#room", "data-seq") or ""
                if anna.page.is_enabled("#dudo-btn"):
                    call(anna, "dudo")
                else:
                    anna.page.click("#bid-btn")
                wait_for_answer(anna, seq)
                assert tones(anna) > before  # a bid or a reveal sounded
            else:
                anna.page.wait_for_timeout(30)
        assert bar_seen and shaken

        # The summary: rounds played, each player's dudos and calzas called and won.
        anna.page.wait_for_selector("#summary table")
        results = anna.results
        assert anna.page.inner_text(".summary-rounds") == f"{len(results)} rounds played"
        for row in anna.page.locator("#summary tbody tr").all():
            seat = int(row.get_attribute("data-seat") or "-1")
            dudos = [r for r in results if r["caller"] == seat and r["call"] == "dudo"]
            calzas = [r for r in results if r["caller"] == seat and r["call"] == "calza"]
            dudo_won = sum(r["loser"] != seat for r in dudos)
            calza_won = sum(r["gainer"] == seat for r in calzas)
            cells = row.locator("td").all_inner_texts()
            assert cells == [f"{dudo_won} of {len(dudos)}", f"{calza_won} of {len(calzas)}"]
        assert anna.page.is_hidden("#me")  # no empty tray of dice under the winner's card
        for size in SIZES:
            resize(anna, size)
            assert sideways(anna) == [], label(size)
            anna.shot(screenshots, f"fit-end-{label(size)}")
        assert not anna.page_errors and not eve.page_errors, (anna.page_errors, eve.page_errors)
    finally:
        anna.close()
        eve.close()
