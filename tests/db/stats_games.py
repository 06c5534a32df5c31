"""A hand-made set of finished games whose player stats are worked out below by hand.

Four games, saved out of order (the third ended before the second), with bots (one of them
called "cy", like a person), names in changing case, and every kind of call: dudos won and
lost, calzas won and lost, by people and by bots.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

T0 = datetime(2025, 6, 1, 20, 0, tzinfo=UTC)
Seat = tuple[str, bool, int]  # name, bot, place
Call = tuple[str, int, int | None, int | None]  # call, caller, loser, gainer


def record(room: str, hour: int, seats: list[Seat], calls: list[Call]) -> dict[str, Any]:
    """A finished game in the shape `save_game` takes; only the calls matter to the stats, the
    rest is plausible filler."""
    finished = T0 + timedelta(hours=hour)
    winner = next(seat for seat, (_, _, place) in enumerate(seats) if place == 1)
    rounds = []
    for number, (call, caller, loser, gainer) in enumerate(calls, 1):
        bid = {"quantity": 2, "face": 3, "seat": (caller - 1) % len(seats)}
        reveal = [{"seat": seat, "dice": [3, 5]} for seat in range(len(seats))]
        last = number == len(calls)
        rounds.append(
            {
                "number": number,
                "palifico": False,
                "palifico_seat": None,
                "opener": caller,
                "dice": reveal,
                "bids": [bid],
                "result": {
                    "round": number,
                    "call": call,
                    "caller": caller,
                    "bid": bid,
                    "palifico": False,
                    "reveal": reveal,
                    "count": len(seats),
                    "loser": loser,
                    "gainer": gainer,
                    "eliminated": None,
                    "next_opener": None if last else caller,
                    "winner": winner if last else None,
                },
            }
        )
    return {
        "room_id": room,
        "started_at": (finished - timedelta(minutes=30)).isoformat(),
        "finished_at": finished.isoformat(),
        "settings": {"max_players": 6, "calza": True, "palifico": True},
        "winner": {"seat": winner, "name": seats[winner][0]},
        "players": [
            {"seat": seat, "name": name, "bot": bot, "place": place}
            for seat, (name, bot, place) in enumerate(seats)
        ],
        "rounds": rounds,
    }


# In the order they are saved; the hour is when each ended.
GAMES = [
    record(
        "room-one",
        1,
        [("Ana", False, 1), ("bob", False, 2), ("Bot Zed", True, 3)],
        [
            ("dudo", 0, 1, None),  # Ana's dudo holds
            ("calza", 1, None, 1),  # bob's calza is exact
            ("calza", 0, 0, None),  # Ana's calza is not
            ("dudo", 2, 0, None),  # a bot's call counts for nobody
            ("dudo", 1, 1, None),  # bob's dudo fails
            ("dudo", 0, 2, None),  # Ana's second dudo holds
        ],
    ),
    record(
        "room-two",
        3,
        [("Bob", False, 1), ("ANA", False, 2), ("cy", True, 3)],
        [
            ("dudo", 1, 1, None),  # ANA's dudo fails
            ("calza", 1, None, 1),  # ANA's calza is exact
            ("calza", 2, None, 2),  # the bot "cy": not the person Cy
            ("dudo", 0, 2, None),  # Bob's dudo holds
        ],
    ),
    record(
        "room-three",
        2,
        [("Cy", False, 1), ("ana", False, 3), ("Bot Ada", True, 2)],
        [
            ("dudo", 1, 0, None),  # ana's dudo holds
            ("calza", 0, 0, None),  # Cy's calza is not exact
        ],
    ),
    record(
        "room-four",
        4,
        [("BOB", False, 1), ("Dee", False, 2)],
        [("dudo", 1, 1, None)],  # Dee's dudo fails
    ),
]


def stats(
    name: str,
    games: int,
    wins: int,
    places: int,
    dudo: tuple[int, int],
    calza: tuple[int, int],
) -> dict[str, Any]:
    """The expected API entry; `places` is the sum of places, `dudo` and `calza` (won, called)."""
    return {
        "name": name,
        "games": games,
        "wins": wins,
        "average_place": places / games,
        "dudo_calls": dudo[1],
        "dudo_wins": dudo[0],
        "dudo_rate": dudo[0] / dudo[1] if dudo[1] else None,
        "calza_calls": calza[1],
        "calza_wins": calza[0],
        "calza_rate": calza[0] / calza[1] if calza[1] else None,
    }


# Worked out by hand from GAMES: the name shown is the one of the latest game (by its end).
ANA = stats("ANA", games=3, wins=1, places=1 + 2 + 3, dudo=(3, 4), calza=(1, 2))
BOB = stats("BOB", games=3, wins=2, places=2 + 1 + 1, dudo=(1, 2), calza=(1, 1))
CY = stats("Cy", games=1, wins=1, places=1, dudo=(0, 0), calza=(0, 1))
DEE = stats("Dee", games=1, wins=0, places=2, dudo=(0, 1), calza=(0, 0))

BY_WINS = [BOB, CY, ANA, DEE]  # most wins; among equals, fewer games first
BY_GAMES = [BOB, ANA, CY, DEE]  # most games; among equals, more wins first
BY_NAME = [ANA, BOB, CY, DEE]


# The rating fields of an entry: worked out by openskill (tests/db/test_ratings.py), not by hand.
RATING_FIELDS = {"rating", "rating_sigma", "rating_low", "rated_games", "provisional", "claimed"}


def figures(entry: dict[str, Any]) -> dict[str, Any]:
    """A `GET /api/players` entry without its rating fields: the figures worked out above."""
    return {key: value for key, value in entry.items() if key not in RATING_FIELDS}
