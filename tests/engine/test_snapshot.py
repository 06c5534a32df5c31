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
from app.engine.game import PlayerState
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
    "a seat twice": lambda data: data["players"].append(dict(data["players"][0])),
    "seats out of order": lambda data: data["players"].reverse(),
    "a player alone": lambda data: data.update(players=data["players"][:1]),
    "six dice": _set(("players", 0, "count"), 6),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_bad_data_is_refused(name: str) -> None:
    game, _ = played([0, 1, 2], GameSettings(), 3, 2)
    data = game_to_dict(game)
    game_from_dict(copy.deepcopy(data), random.Random(0))  # the unchanged data is fine
    CORRUPTIONS[name](data)
    with pytest.raises((KeyError, TypeError, ValueError)):
        game_from_dict(data, random.Random(0))


def restored_from_parts(game: Game, rng: random.Random, **changes: Any) -> Game:
    """`Game.restore` from copies of `game`'s own parts, some of them replaced."""
    parts: dict[str, Any] = {
        "settings": game.settings,
        "players": copy.deepcopy(list(game.players.values())),
        "rounds": list(game.rounds),
        "round": copy.deepcopy(game.round),
        "last_result": game.last_result,
        "winner": game.winner,
        "eliminated": list(game.eliminated),
    }
    return Game.restore(rng=rng, **{**parts, **changes})


@pytest.mark.parametrize("moves", [0, 3, 40, 5000])
def test_restore_builds_the_same_game_from_its_parts_and_rolls_nothing(moves: int) -> None:
    game, chooser = played([0, 2, 3, 5], GameSettings(calza_rule="asmodee"), moves, moves)
    rng = copy.deepcopy(game.rng)
    state = rng.getstate()
    restored = restored_from_parts(game, rng)
    assert rng.getstate() == state
    assert snapshot(restored) == snapshot(game)
    assert game_to_dict(restored) == game_to_dict(game)
    if not game.finished:
        move = random_move(game, chooser)
        assert restored.apply(*move) == game.apply(*move)
        assert snapshot(restored) == snapshot(game)


BAD_PARTS: dict[str, dict[str, Any]] = {
    "a seat twice": {"players": [PlayerState(0), PlayerState(0), PlayerState(1)]},
    "one seat": {"players": [PlayerState(0)]},
    "seat 6": {"players": [PlayerState(0), PlayerState(6)]},
    "seats out of order": {"players": [PlayerState(1), PlayerState(0)]},
    "six dice": {"players": [PlayerState(0, 6), PlayerState(1)]},
    "a winner and a round": {"winner": 0},
    "neither a winner nor a round": {"round": None},
}


@pytest.mark.parametrize("name", BAD_PARTS)
def test_restore_refuses_parts_no_game_can_reach(name: str) -> None:
    game, _ = played([0, 1], GameSettings(), 11, 0)
    restored_from_parts(game, random.Random(0))  # the game's own parts are fine
    with pytest.raises(ValueError):
        restored_from_parts(game, random.Random(0), **BAD_PARTS[name])
