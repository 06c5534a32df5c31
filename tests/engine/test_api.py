"""The engine's public surface: the names the rest of the server imports, and its vocabularies."""

from __future__ import annotations

import copy
import importlib

import pytest

import app.engine
from app.engine import (
    BOT_LEVELS,
    CALZA_RULES,
    RULE_CODES,
    Action,
    Bid,
    Calza,
    Dudo,
    GameSettings,
    RuleError,
)
from tests.engine.helpers import played

# What app/ outside the engine (which imports only the package: app/rooms), bench and the
# tests import: keep every one importable.
IMPORTED_ELSEWHERE = {
    "app.engine": [
        "Action", "Bid", "BidMade", "Calza", "Dudo", "Event", "Game", "GameEnded",
        "GameSettings", "GameView", "RoundEnded", "RoundStarted", "RuleError", "no_legal",
        "player_view", "table_view", "you_view", "choose_action", "maybe_calza", "BotLevel",
        "Options", "PlacedBid", "PlayerPublic", "RoundResult", "lobby_you", "game_from_dict",
        "game_to_dict", "strict_bool", "strict_int", "strict_optional_int", "BOT_LEVELS",
    ],
    "app.engine.bids": ["ACE"],
    "app.engine.bot": ["BotLevel", "Reading", "heuristic_action", "maybe_calza"],
    "app.engine.levels": ["choose_action"],
    "app.engine.game": ["Action", "count_matching"],
    "app.engine.view": ["YouView", "GameView", "table_view", "you_view"],
    "app.engine.snapshot": [
        "game_from_dict", "game_to_dict", "strict_bool", "strict_int", "strict_optional_int",
    ],
}  # fmt: skip


@pytest.mark.parametrize("module", IMPORTED_ELSEWHERE)
def test_names_the_server_imports_stay_importable(module: str) -> None:
    loaded = importlib.import_module(module)
    assert [name for name in IMPORTED_ELSEWHERE[module] if not hasattr(loaded, name)] == []


def test_everything_exported_exists() -> None:
    assert [name for name in app.engine.__all__ if not hasattr(app.engine, name)] == []


def test_vocabularies() -> None:
    assert BOT_LEVELS == ("easy", "normal", "hard", "expert")
    assert CALZA_RULES == ("pressman", "asmodee")
    assert set(RULE_CODES) == {
        "not_your_turn",
        "illegal_bid",
        "no_bid",
        "calza_not_allowed",
        "game_not_running",
    }
    assert all(GameSettings(calza_rule=rule).calza_rule == rule for rule in CALZA_RULES)


def test_every_refusal_carries_a_rule_code() -> None:
    """Wrong moves at many moments of many games: every code refused with is in RULE_CODES."""
    attempts: list[Action] = [Bid(1, 1), Bid(1, 2), Bid(30, 6), Dudo(), Calza()]
    codes: set[str] = set()
    for seed in range(20):
        game, _ = played([0, 1, 2], GameSettings(), seed, 5000 if seed == 0 else seed * 3)
        for seat in [*game.seats, 5]:
            for action in attempts:
                try:
                    copy.deepcopy(game).apply(seat, action)
                except RuleError as refusal:
                    codes.add(refusal.code)
    assert codes == set(RULE_CODES)
