"""Snapshots of games: any moment of any game survives the trip through JSON unchanged."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Game, GameSettings, player_view
from app.engine.snapshot import game_from_dict, game_to_dict
from tests.engine.helpers import game_settings, played, random_move, seat_sets, snapshot

SNAPSHOT_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def through_json(game: Game) -> Game:
    """Serialise, encode with orjson, decode and restore with a copy of the game's RNG."""
    text = orjson.dumps(game_to_dict(game))
    return game_from_dict(orjson.loads(text), copy.deepcopy(game.rng))


@SNAPSHOT_SETTINGS
@given(
    seats=seat_sets,
    rules=game_settings,
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 400),
)
def test_a_restored_game_equals_the_original_and_plays_on_identically(
    seats: list[int], rules: GameSettings, seed: int, moves: int
) -> None:
    game, chooser = played(seats, rules, seed, moves)
    restored = through_json(game)
    assert snapshot(restored) == snapshot(game)
    assert game_to_dict(restored) == game_to_dict(game)
    chooser_copy = copy.deepcopy(chooser)
    for _ in range(3000):
        if game.finished:
            break
        for seat in game.seats:
            assert player_view(restored, seat) == player_view(game, seat)
        seat, action = random_move(game, chooser)
        assert random_move(restored, chooser_copy) == (seat, action)
        assert restored.apply(seat, action) == game.apply(seat, action)
    assert game.finished
    assert snapshot(restored) == snapshot(game)
    assert restored.places() == game.places()


@SNAPSHOT_SETTINGS
@given(seats=seat_sets, rules=game_settings, seed=st.integers(0, 2**32))
def test_the_snapshot_is_plain_json_and_shares_nothing_with_the_game(
    seats: list[int], rules: GameSettings, seed: int
) -> None:
    game, _ = played(seats, rules, seed, 30)
    data = game_to_dict(game)
    assert orjson.loads(orjson.dumps(data)) == data  # no tuples, no objects
    before = copy.deepcopy(data)
    if not game.finished:
        game.apply(*random_move(game, random.Random(seed)))
    assert data == before  # a snapshot taken is not changed by later play


def test_a_restored_game_rolls_nothing() -> None:
    game, _ = played([0, 1, 2], GameSettings(), 7, 5)
    rng = random.Random(99)
    state = rng.getstate()
    game_from_dict(game_to_dict(game), rng)
    assert rng.getstate() == state


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


CORRUPTIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "missing players": lambda data: data.pop("players"),
    "count as text": _set(("players", 0, "count"), "5"),
    "a die of 7": _set(("round", "dice", 0, "dice", 0), 7),
    "a stranger's turn": _set(("round", "turn"), 5),
    "one die too many": lambda data: data["round"]["dice"][0]["dice"].append(1),
    "no round, no winner": _set(("round",), None),
    "unknown calza rule": _set(("settings", "calza_rule"), "house"),
    "bool as int": _set(("settings", "calza"), 1),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_bad_data_is_refused(name: str) -> None:
    game, _ = played([0, 1, 2], GameSettings(), 3, 2)
    data = game_to_dict(game)
    game_from_dict(copy.deepcopy(data), random.Random(0))  # the unchanged data is fine
    CORRUPTIONS[name](data)
    with pytest.raises((KeyError, TypeError, ValueError)):
        game_from_dict(data, random.Random(0))
