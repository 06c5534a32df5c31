"""Driving the room page like a person, while recording what the server sent that page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, WebSocket
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.events import apply_event

PHONE: ViewportSize = {"width": 360, "height": 640}
TIMEOUT_MS = 15_000

# Read the bid picker as the player sees it: which faces are open, what is selected.
READ_PICKER = """() => {
  const qty = document.getElementById("qty");
  const faces = [...document.querySelectorAll("#faces .face-btn")];
  const chosen = faces.find((b) => b.getAttribute("aria-checked") === "true");
  return {
    disabled: faces.map((b) => b.disabled),
    face: chosen ? Number(chosen.dataset.face) : null,
    quantity: chosen ? Number(qty.textContent) : null,
    downDisabled: document.getElementById("qty-down").disabled,
    upDisabled: document.getElementById("qty-up").disabled,
    bidDisabled: document.getElementById("bid-btn").disabled,
  };
}"""

# Every element of the page that is wider than the viewport, or sticks out of it.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const bad = [...document.querySelectorAll("body *")].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5);
  });
  return {
    scrollWidth: document.documentElement.scrollWidth,
    width,
    offenders: bad.slice(0, 5).map((el) => el.outerHTML.slice(0, 120)),
  };
}"""


class Player:
    """One person at one browser context: the page plus every `state` it was sent, by seq."""

    def __init__(
        self, browser: Browser, base: str, name: str, viewport: ViewportSize = PHONE
    ) -> None:
        self.name = name
        self.base = base
        mobile = viewport["width"] < 1000
        self.context: BrowserContext = browser.new_context(
            viewport=viewport, device_scale_factor=2, is_mobile=mobile, has_touch=mobile
        )
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page: Page = self.context.new_page()
        self.states: dict[int, dict[str, Any]] = {}
        self.results: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []  # every message the page sent
        self.bid_events = 0  # bid events received (each applied to the state before it)
        self.page_errors: list[str] = []
        self.watch(self.page)

    def watch(self, page: Page) -> None:
        """Record the messages `page` receives, its script errors and console errors (a broken
        Content-Security-Policy or a failed fetch shows up there)."""
        page.on("websocket", self._on_socket)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.on(
            "console",
            lambda msg: self.page_errors.append(msg.text) if msg.type == "error" else None,
        )

    def _on_socket(self, ws: WebSocket) -> None:
        ws.on("framereceived", self._on_frame)
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))

    def _on_frame(self, payload: str | bytes) -> None:
        msg = json.loads(payload)
        if msg["type"] == "state":
            self.states[msg["seq"]] = msg
        elif msg["type"] == "bid" and self.states:  # the page opts in to bid events
            self.states[msg["seq"]] = apply_event(self.states[max(self.states)], msg)
            self.bid_events += 1
        elif msg["type"] == "round_result":
            self.results.append(msg)

    # --- What the page shows ----------------------------------------------------------------

    def shown_state(self) -> dict[str, Any]:
        """The state the page says it is showing (its `data-seq`), as the server sent it."""
        seq = int(self.page.get_attribute("#room", "data-seq") or "-1")
        for _ in range(100):  # the frame event may trail the DOM by a moment
            if seq in self.states:
                return self.states[seq]
            self.page.wait_for_timeout(20)
        raise AssertionError(f"{self.name}: the page shows seq {seq}, which it was never sent")

    def phase(self) -> str:
        return self.page.get_attribute("#room", "data-phase") or ""

    def revealing(self) -> bool:
        return self.page.is_visible("#reveal")

    def my_turn(self) -> bool:
        return (
            not self.revealing()
            and self.page.get_attribute("#actions", "data-my-turn") == "true"
            and self.page.is_visible("#actions")
        )

    def my_dice(self) -> list[int]:
        return sorted(
            int(value)
            for value in self.page.eval_on_selector_all(
                "[data-die]", "els => els.map(e => e.dataset.die)"
            )
        )

    def picker(self) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(READ_PICKER)
        return result

    def overflow(self) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(OVERFLOW)
        return result

    def shot(self, folder: Path, name: str) -> None:
        self.page.screenshot(path=str(folder / f"{name}.png"))

    def close(self) -> None:
        self.context.close()


def wait_for_answer(player: Player, seq_before: str) -> None:
    """Until the page shows a newer state, or a reveal."""
    player.page.wait_for_function(
        """seq => document.getElementById("room").dataset.seq !== seq
                  || !document.getElementById("reveal").hidden""",
        arg=seq_before,
    )


HOLD_MS = 500  # static/js/room/calls.js: how long a call's button is held to send it


def hold(page: Page, selector: str, ms: int = HOLD_MS + 150) -> None:
    """Press `selector` and keep it pressed for `ms` (a finger on the button), then let go."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not on the page"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(ms)
    page.mouse.up()


def call(player: Player, which: str) -> None:
    """Dudo or Calza as a person makes it: press and hold the button until it sends."""
    player.page.locator(f"#{which}-btn").scroll_into_view_if_needed()
    hold(player.page, f"#{which}-btn")


def close_reveal(player: Player) -> None:
    """Next on the reveal, unless the sheet closed by itself meanwhile (it stays a few seconds)."""
    try:
        player.page.click("#reveal-next", timeout=1500)
    except PlaywrightTimeoutError:
        assert not player.revealing(), f"{player.name}: the reveal stays and Next cannot be clicked"
