"""Ratings and claimed names, on SQLite and PostgreSQL: the running updates equal openskill's
own results for the same games, the recount equals the running ratings, a claimed name stays
its owner's, and guests never reach an owner's record."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import Engine, delete, select, update

from app.db.claims import ClaimsRepository, key_hash
from app.db.models import (
    INITIAL_LOW,
    INITIAL_MU,
    INITIAL_SIGMA,
    BotRatingRow,
    PlayerRow,
    PlayerStatsRow,
)
from app.db.ratings import recount, replay, stored
from app.db.repository import GameRepository
from app.db.stats import StatsRepository
from tests.db.stats_games import record

pytestmark = pytest.mark.timeout(60)

ANNA_KEY = "anna-key-0123456789abcdefghij"
BEN_KEY = "ben-key-0123456789abcdefghijkl"
THIEF_KEY = "thief-key-0123456789abcdefghij"


def game(
    room: str, hour: int, seats: list[tuple[str, bool, int]], **extra: dict[str, Any]
) -> dict[str, Any]:
    """A finished game of `seats` (name, bot, place); `extra` adds fields to a named player."""
    built = record(room, hour, seats, [("dudo", 0, 1, None)])
    for player in built["players"]:
        player.update(extra.get(player["name"], {}))
    return built


def entry(engine: Engine, name: str) -> dict[str, Any]:
    player = StatsRepository(engine).player(name)
    assert player is not None
    return player


def test_the_initial_rating_is_the_librarys() -> None:
    start = PlackettLuce().rating()
    assert (start.mu, start.sigma, start.ordinal()) == (INITIAL_MU, INITIAL_SIGMA, INITIAL_LOW)


def test_ratings_equal_the_librarys_for_the_same_games(engine: Engine) -> None:
    """Random games of five people and two bot levels, against the library run by hand."""
    repo, model = GameRepository(engine), PlackettLuce()
    names = ["Ana", "Bob", "Cy", "Dee", "Eve"]
    expected = {name: model.rating() for name in [*names, "easy", "hard"]}
    rng = random.Random(7)
    for number in range(30):
        people = rng.sample(names, rng.randint(1, 4))
        levels = rng.sample(["easy", "hard"], rng.randint(1, 2))
        seats = [(name, False) for name in people] + [(f"Bot {lvl}", True) for lvl in levels]
        places = rng.sample(range(1, len(seats) + 1), len(seats))
        built = game(
            f"r{number}",
            number,
            [(name, bot, place) for (name, bot), place in zip(seats, places, strict=True)],
            **{f"Bot {lvl}": {"level": lvl} for lvl in levels},
        )
        saved = repo.save_game(built)
        ids = [name.removeprefix("Bot ") for name, _ in seats]
        before = [expected[player].ordinal() for player in ids]
        after = model.rate([[expected[player]] for player in ids], ranks=places)
        for player, [rating] in zip(ids, after, strict=True):
            expected[player] = rating
        assert saved.rating_changes == [
            {"seat": seat, "before": before[seat], "after": expected[ids[seat]].ordinal()}
            for seat in range(len(seats))
        ]
    for name in names:
        figures = entry(engine, name)
        assert (figures["rating"], figures["rating_low"]) == (
            expected[name].mu,
            expected[name].ordinal(),
        )
    bots = {bot["level"]: bot for bot in StatsRepository(engine).bots()}
    assert {level: bots[level]["rating"] for level in bots} == {
        level: expected[level].mu for level in ("easy", "hard")
    }


def test_two_bots_of_a_level_are_one_player_rated_at_the_best_place(engine: Engine) -> None:
    saved = GameRepository(engine).save_game(
        game(
            "two",
            1,
            [("Bot A", True, 3), ("Ana", False, 2), ("Bot B", True, 1)],
            **{"Bot A": {"level": "hard"}, "Bot B": {"level": "hard"}},
        )
    )
    model = PlackettLuce()
    [[ana], [hard]] = model.rate([[model.rating()], [model.rating()]], ranks=[2, 1])
    assert [change["seat"] for change in saved.rating_changes] == [1, 2]
    assert entry(engine, "Ana")["rating"] == ana.mu
    assert StatsRepository(engine).bots()[0]["rating"] == hard.mu


def test_a_game_with_one_rated_player_rates_nobody(engine: Engine) -> None:
    saved = GameRepository(engine).save_game(
        game("solo", 1, [("Ana", False, 1), ("Bot A", True, 2)])  # a bot without a level
    )
    assert saved.rating_changes == []
    figures = entry(engine, "Ana")
    assert (figures["rated_games"], figures["rating_low"], figures["games"]) == (0, 0.0, 1)
    assert figures["provisional"]


def saved_in_random_order(engine: Engine, seed: int) -> None:
    """Forty games of overlapping people and bots, saved by four writers at once."""
    rng = random.Random(seed)
    names = ["Ana", "Bob", "Cy", "Dee"]
    games = []
    for number in range(40):
        people = rng.sample(names, rng.randint(1, 3))
        seats = [*people, "Bot X"]
        places = rng.sample(range(1, len(seats) + 1), len(seats))
        games.append(
            game(
                f"g{number}",
                number,
                [(name, name == "Bot X", place) for name, place in zip(seats, places, strict=True)],
                **{"Bot X": {"level": rng.choice(["easy", "normal"])}},
            )
        )
    repo = GameRepository(engine)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(repo.save_game, games))


def test_the_recount_equals_the_running_ratings(engine: Engine) -> None:
    saved_in_random_order(engine, seed=3)
    with engine.connect() as connection:
        running, replayed = stored(connection), replay(connection)
    assert running == replayed
    assert len(running.people) == 4 and len(running.bots) == 2 and len(running.seats) > 80
    assert recount(engine) == 0
    with engine.connect() as connection:
        assert stored(connection) == running


def test_the_recount_repairs_a_rating_that_went_wrong(engine: Engine) -> None:
    saved_in_random_order(engine, seed=4)
    with engine.connect() as connection:
        running = stored(connection)
    with engine.begin() as connection:
        connection.execute(
            update(PlayerStatsRow).where(PlayerStatsRow.name_key == "ana").values(mu=99.0)
        )
        connection.execute(delete(BotRatingRow).where(BotRatingRow.level == "easy"))
    assert recount(engine) == 2
    with engine.connect() as connection:
        assert stored(connection) == running


def test_the_first_key_to_finish_a_game_claims_the_name(engine: Engine) -> None:
    repo, claims = GameRepository(engine), ClaimsRepository(engine)
    assert claims.guest("Anna", ANNA_KEY) is False  # nobody's yet
    assert claims.guest("Anna", None) is True  # no key: always a guest
    repo.save_game(
        game("one", 1, [("Anna", False, 1), ("Ben", False, 2)], Anna={"player_key": ANNA_KEY})
    )
    assert claims.owner("ANNA") == key_hash(ANNA_KEY)
    assert claims.owner("Ben") is None  # played without a key
    assert claims.guest("anna", ANNA_KEY) is False
    assert claims.guest("Anna", THIEF_KEY) is True
    assert claims.owns("Anna", ANNA_KEY) and not claims.owns("Anna", THIEF_KEY)
    assert entry(engine, "Anna")["claimed"] and not entry(engine, "Ben")["claimed"]


def test_another_key_never_reaches_the_owners_record(engine: Engine) -> None:
    """Whatever the room said: another key, a seat without a key, and a guest all stay out."""
    repo = GameRepository(engine)
    repo.save_game(
        game("one", 1, [("Anna", False, 1), ("Ben", False, 2)], Anna={"player_key": ANNA_KEY})
    )
    owners_record = entry(engine, "Anna")
    for number, anna in enumerate(
        [{"player_key": THIEF_KEY}, {}, {"player_key": ANNA_KEY, "guest": True}], 2
    ):
        saved = repo.save_game(
            game(f"g{number}", number, [("Ben", False, 1), ("anna", False, 2)], anna=anna)
        )
        assert [change["seat"] for change in saved.rating_changes] == []  # Ben alone is rated
    assert entry(engine, "Anna") == owners_record
    assert entry(engine, "Ben")["games"] == 4
    with engine.connect() as connection:
        guests = connection.execute(
            select(PlayerRow.guest, PlayerRow.name_key).where(PlayerRow.name == "anna")
        ).all()
    assert guests == [(True, None)] * 3


def test_the_owner_plays_on_under_their_name(engine: Engine) -> None:
    repo = GameRepository(engine)
    for number in range(3):
        repo.save_game(
            game(
                f"g{number}",
                number,
                [("Anna", False, 1), ("Ben", False, 2)],
                Anna={"player_key": ANNA_KEY},
                Ben={"player_key": BEN_KEY},
            )
        )
    assert entry(engine, "Anna")["games"] == entry(engine, "Anna")["rated_games"] == 3
    assert entry(engine, "Anna")["rating_low"] > entry(engine, "Ben")["rating_low"]


def test_an_old_unclaimed_record_goes_to_the_first_key(engine: Engine) -> None:
    repo = GameRepository(engine)
    repo.save_game(game("old", 1, [("Anna", False, 1), ("Ben", False, 2)]))  # no keys
    assert not entry(engine, "Anna")["claimed"]
    repo.save_game(
        game("new", 2, [("ANNA", False, 2), ("Ben", False, 1)], ANNA={"player_key": ANNA_KEY})
    )
    figures = entry(engine, "anna")
    assert figures["claimed"] and figures["games"] == 2 and figures["name"] == "ANNA"


def test_two_keys_racing_for_a_new_name_leave_one_owner(engine: Engine) -> None:
    repo = GameRepository(engine)
    keys = [f"racer-{n}-0123456789abcdefghijkl" for n in range(8)]
    games = [
        game(f"race{n}", 1, [("Zed", False, 1), ("Ben", False, 2)], Zed={"player_key": key})
        for n, key in enumerate(keys)
    ]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(repo.save_game, games))
    owner = ClaimsRepository(engine).owner("Zed")
    assert owner in {key_hash(key) for key in keys}
    assert entry(engine, "Zed")["games"] == 1  # the others played as guests
    assert entry(engine, "Ben")["games"] == 8


def test_a_device_link_works_once_then_never_again(engine: Engine) -> None:
    claims = ClaimsRepository(engine)
    code, _ = claims.create_link(ANNA_KEY)
    assert claims.redeem(f" {code[:5].lower()}-{code[5:]} ") == ANNA_KEY  # as typed
    assert claims.redeem(code) is None
    assert claims.redeem("NOSUCHCODE") is None


def test_a_device_link_expires_after_ten_minutes(engine: Engine) -> None:
    claims = ClaimsRepository(engine)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    code, expires_at = claims.create_link(ANNA_KEY, now=start)
    assert expires_at == start + timedelta(minutes=10)
    assert claims.redeem(code, now=expires_at) is None
    code, _ = claims.create_link(ANNA_KEY, now=start)
    assert claims.redeem(code, now=expires_at - timedelta(seconds=1)) == ANNA_KEY
