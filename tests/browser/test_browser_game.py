"""Three people play a whole game through the UI on phone-sized screens."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import Player, call, close_reveal, wait_for_answer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GAME_SECONDS = 150
THOROUGH_PICKER_CHECKS = 3


def assert_fits_phone(player: Player, where: str) -> None:
    """Nothing on the page is wider than the 360px screen: no horizontal scrolling."""
    report = player.overflow()
    assert report["scrollWidth"] <= report["width"], f"{where}: {report}"
    assert report["offenders"] == [], f"{where}: {report}"


def open_faces(state: dict[str, Any]) -> list[int]:
    mins = state["you"]["legal"]["min_quantity"]
    return [face for face in range(1, 7) if mins[face - 1] is not None]


def check_picker(player: Player, state: dict[str, Any], thorough: bool) -> None:
    """The picker offers exactly what `you.legal` allows, starting from the least raise."""
    legal = state["you"]["legal"]
    mins: list[int | None] = legal["min_quantity"]
    total = state["round"]["total_dice"]
    shown = player.picker()
    assert shown["disabled"] == [m is None for m in mins]
    face = shown["face"]
    if not open_faces(state):
        # The standing bid cannot be raised (all the dice on aces, or a palifico round's face
        # at the table's total): no face is offered, and only a call is left.
        assert face is None and shown["bidDisabled"] and legal["dudo"]
        assert player.page.is_enabled("#dudo-btn")
        return
    assert face is not None and mins[face - 1] is not None
    standing = state["round"]["bid"]
    plain = [f for f in open_faces(state) if f != 1]
    if standing is None and plain:
        # An opening bid: about a sixth of the table, on the face (not aces) held most.
        held = [state["you"]["dice"].count(f) for f in plain]
        assert face == plain[held.index(max(held))]
        sixth = math.floor(total / 6 + 0.5)
        assert shown["quantity"] == min(total, max(int(mins[face - 1] or 0), sixth))
    else:
        # Least raise: nothing open is smaller (a switch to aces is never made for the player).
        assert shown["quantity"] == mins[face - 1]
        aces = standing is not None and standing["face"] == 1
        candidates = [f for f in open_faces(state) if f != 1 or aces]
        least = min(int(mins[f - 1] or 0) for f in candidates or open_faces(state))
        assert mins[face - 1] == least
    assert player.page.is_enabled("#dudo-btn") == legal["dudo"]
    assert player.page.is_enabled("#calza-btn") == legal["calza"]
    if not thorough:
        return
    for option in open_faces(state):
        player.page.click(f'#faces [data-face="{option}"]')
        crossing = standing is not None and (standing["face"] == 1) != (option == 1)
        assert player.page.is_visible("#ace-note") == crossing
        if crossing:
            assert f"{mins[option - 1]} " in player.page.inner_text("#ace-note")
        while not player.picker()["downDisabled"]:
            player.page.click("#qty-down")
        assert player.picker()["quantity"] == mins[option - 1]
        while not player.picker()["upDisabled"]:
            player.page.click("#qty-up")
        assert player.picker()["quantity"] == total
    # Back to the least bid on the preselected face.
    player.page.click(f'#faces [data-face="{face}"]')
    while not player.picker()["downDisabled"]:
        player.page.click("#qty-down")


def check_no_hidden_dice(players: list[Player]) -> None:
    """Outside a reveal, each page holds its own dice and no one else's."""
    for player in players:
        if player.revealing():
            continue
        state = player.shown_state()
        assert player.my_dice() == sorted(state["you"]["dice"]), player.name
        assert player.page.locator("#reveal-cups .die").count() == 0, player.name


def refresh_keeps_seat(player: Player, room_id: str) -> None:
    """A reload in the middle of a round resumes the same seat with the same dice."""
    before = player.shown_state()
    dice = player.my_dice()
    key = f"perudo:token:{room_id}"
    token = player.page.evaluate("k => localStorage.getItem(k)", key)
    assert token
    player.page.reload()
    player.page.wait_for_selector("#table:not([hidden])")
    player.page.wait_for_selector("#conn-banner:empty", state="attached")
    after = player.shown_state()
    assert after["you"]["seat"] == before["you"]["seat"]
    assert after["round"]["number"] == before["round"]["number"]
    assert player.my_dice() == dice == sorted(after["you"]["dice"])
    assert player.page.evaluate("k => localStorage.getItem(k)", key) == token


def test_three_players_play_a_whole_game(
    browser: Browser, live_server: str, screenshots: Path
) -> None:
    anna, bela, csilla = players = [
        Player(browser, live_server, name) for name in ("Anna", "Béla", "Csilla")
    ]
    try:
        # Anna creates a room from the start page and lands in it, seated as host.
        anna.page.goto(f"{live_server}/")
        anna.page.fill("#create-name", "Anna")
        anna.page.click("#create-form button[type=submit]")
        anna.page.wait_for_selector("#seats .seat.you")
        room_url = anna.page.input_value("#share-url")
        room_id = room_url.rstrip("/").rsplit("/", 1)[1]
        assert anna.page.locator(".qr svg").count() == 1

        for guest in (bela, csilla):
            guest.page.goto(room_url)
            guest.page.wait_for_selector("#join-card:not([hidden])")
        # A name already taken (ignoring case) gets a human message, then a fresh try works.
        csilla.page.fill("#join-name", "anna")
        csilla.page.click("#join-form button[type=submit]")
        csilla.page.wait_for_selector(".toast.error")
        assert "already has that name" in csilla.page.inner_text(".toast.error")
        for guest in (bela, csilla):
            guest.page.fill("#join-name", guest.name)
            guest.page.click("#join-form button[type=submit]")
            guest.page.wait_for_selector("#seats .seat.you")
        anna.page.wait_for_function(
            "() => document.querySelectorAll('#seats .seat:not(.empty)').length === 3"
        )
        assert bela.page.is_hidden("#start-btn")
        assert_fits_phone(anna, "lobby")
        anna.shot(screenshots, "1-lobby")

        anna.page.click("#start-btn")
        for player in players:
            player.page.wait_for_selector("#table:not([hidden])")

        play_to_the_end(players, room_id, screenshots)
        # The page opts in to bid events, and the states it showed after them were exact.
        for player in players:
            hellos = [m for m in player.sent if m["type"] in {"join", "resume", "watch"}]
            assert hellos and all(m["events"] is True for m in hellos), player.name
            assert player.bid_events > 0, player.name

        # Game end: winner, places from the saved game, rematch for the host, replay link.
        state = anna.shown_state()
        winner = state["winner"]
        assert winner is not None
        for player in players:
            player.page.wait_for_selector("#end:not([hidden])")
            player.page.wait_for_function(
                "() => document.querySelectorAll('#places li').length === 3"
            )
            player.page.wait_for_selector("#replay-link:not([hidden])")
        winner_name = next(p["name"] for p in state["players"] if p["seat"] == winner)
        title = anna.page.inner_text("#end-title")
        assert title == ("You win!" if winner == state["you"]["seat"] else f"{winner_name} wins!")
        logged = anna.page.locator("#log-list li.log-round").count()
        assert 0 < logged <= len(anna.results)  # a page that reloaded keeps what `history` sent
        assert anna.page.is_visible("#rematch-btn")
        assert bela.page.is_hidden("#rematch-btn")
        assert_fits_phone(anna, "game end")
        anna.shot(screenshots, "4-game-end")

        game_id = anna.shown_state()["game_id"]
        games = httpx.get(f"{live_server}/api/games").json()["games"]
        assert game_id in [g["game_id"] for g in games]
        check_replay(bela, game_id, len(anna.results))

        # Rematch: back to the lobby with the same three seats, the host starts a fresh game.
        # (A server that starts the new game at once skips the lobby.)
        anna.page.click("#rematch-btn")
        for player in players:
            player.page.wait_for_function(
                "() => ['lobby', 'playing'].includes(document.getElementById('room').dataset.phase)"
            )
        if anna.phase() == "lobby":
            for player in players:
                player.page.wait_for_selector("#seats .seat.you")
                assert player.page.locator("#seats .seat:not(.empty)").count() == 3
                assert player.page.is_hidden("#table") and player.page.is_hidden("#log")
            assert anna.page.is_visible("#start-btn") and bela.page.is_hidden("#start-btn")
            assert_fits_phone(anna, "lobby after the game")
            anna.page.click("#start-btn")
        for player in players:
            player.page.wait_for_function(
                "() => document.getElementById('room').dataset.phase === 'playing'"
            )
            assert len(player.my_dice()) == 5
            assert player.page.is_hidden("#end")
            assert player.page.locator("#log-list li").count() == 0  # the new game's log
        assert not any(p.page_errors for p in players), [p.page_errors for p in players]
    finally:
        for player in players:
            player.close()


def play_to_the_end(players: list[Player], room_id: str, screenshots: Path) -> None:
    """Click through the game: bids (sometimes changed with the picker), dudo and calza."""
    deadline = time.monotonic() + GAME_SECONDS
    anna = players[0]
    shots: set[str] = set()
    thorough = THOROUGH_PICKER_CHECKS
    refreshed = False
    calzas = 0
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        for player in players:
            if player.revealing():
                result = player.results[-1]
                shown = player.page.locator("#reveal-cups .die").count()
                assert shown == sum(len(cup["dice"]) for cup in result["reveal"])
                assert str(result["count"]) in player.page.inner_text("#reveal-count")
                if player is anna and "reveal" not in shots:
                    player.page.wait_for_timeout(700)  # let the cups finish lifting
                    assert_fits_phone(anna, "reveal")
                    anna.shot(screenshots, "3-reveal")
                    shots.add("reveal")
                close_reveal(player)
        if all(p.phase() == "finished" and not p.revealing() for p in players):
            assert refreshed and calzas > 0
            return
        actor = next((p for p in players if p.my_turn()), None)
        if actor is None:
            players[0].page.wait_for_timeout(30)
            continue
        state = actor.shown_state()
        round_ = state["round"]
        check_no_hidden_dice(players)
        check_picker(actor, state, thorough=thorough > 0)
        thorough -= 1
        for other in players:
            if other is not actor and not other.revealing():
                assert other.picker()["bidDisabled"], other.name
        if actor is anna and round_["bid"] is not None and "bidding" not in shots:
            assert_fits_phone(anna, "bidding")
            anna.shot(screenshots, "2-bidding")
            shots.add("bidding")
        if not refreshed and round_["number"] >= 2 and not round_["bids"]:
            refresh_keeps_seat(next(p for p in players if p is not actor), room_id)
            refreshed = True
            continue

        callers = [p for p in players if p is not actor and p.page.is_enabled("#calza-btn")]
        if callers and round_["number"] % 3 == 0 and round_["bid"] is not None:
            caller = callers[0]
            seq = caller.page.get_attribute("#room", "data-seq") or ""
            call(caller, "calza")
            wait_for_answer(caller, seq)
            calzas += 1
            continue
        seq = actor.page.get_attribute("#room", "data-seq") or ""
        if round_["bid"] is not None and (len(round_["bids"]) >= 2 or not open_faces(state)):
            call(actor, "dudo")
        else:
            if round_["number"] % 2 == 0 and actor.page.is_enabled("#qty-up"):
                actor.page.click("#qty-up")
            bid = {
                "quantity": int(actor.page.get_attribute("#bid-btn", "data-quantity") or 0),
                "face": int(actor.page.get_attribute("#bid-btn", "data-face") or 0),
            }
            actor.page.click("#bid-btn")
            wait_for_answer(actor, seq)
            assert actor.shown_state()["round"]["bid"] == {**bid, "seat": state["you"]["seat"]}
            continue
        wait_for_answer(actor, seq)


def check_replay(player: Player, game_id: str, rounds: int) -> None:
    """The replay steps through every round with all dice shown."""
    player.page.click("#replay-link")
    player.page.wait_for_url(f"**/games/{game_id}**")
    player.page.wait_for_selector("#replay:not([hidden])")
    assert player.page.locator("#replay-places li").count() == 3
    for number in range(1, rounds + 1):
        assert player.page.inner_text("#round-pos") == f"Round {number} of {rounds}"
        assert player.page.locator("#replay-round .reveal-dice .die").count() > 0
        if number < rounds:
            player.page.click("#next-btn")
    assert player.page.is_disabled("#next-btn")
    player.page.goto(f"{player.base}/games")
    player.page.wait_for_selector(f'#games a[href="/games/{game_id}"]')
    player.page.go_back()
    player.page.go_back()
    player.page.wait_for_selector("#end:not([hidden])")
