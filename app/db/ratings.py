"""Skill ratings: Weng-Lin's Bayesian rating for free-for-all games (openskill's Plackett-Luce
model), updated from each saved game's places in the game's own transaction.

A person is rated under their name (`player_stats`), the bots per level, each level one
player (`bot_ratings`). A game rates its counted people and one seat per bot level (its best
placed: two bots of a level are the same player), when that makes at least two. Each seat
rated keeps its rating after the game (`game_players.mu`, `sigma`): the player's chart.

Games are numbered by `rating_seq`, one more than the highest of their players' last games:
along each player the numbers grow, so replaying the games in that order (`replay`) meets
every player's games in the order they were rated, whatever happened between rooms, and
gives the same floats the running updates did (`recount`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import groupby
from typing import Any, NamedTuple

from openskill.models import PlackettLuce
from sqlalchemy import Connection, Engine, Table, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite

from app.db.models import (
    INITIAL_MU,
    INITIAL_SIGMA,
    BotRatingRow,
    GameRow,
    PlayerRow,
    PlayerStatsRow,
)

MODEL = PlackettLuce()  # the library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
PROVISIONAL_GAMES = 10  # a rating is provisional until this many rated games


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating, how many games rated it, and the `rating_seq` of the last one."""

    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA
    games: int = 0
    seq: int = 0

    @property
    def low(self) -> float:
        """The conservative figure the leaderboard ranks by: the library's ordinal, mu - 3 sigma."""
        return float(MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())


class Player(NamedTuple):
    """Who a rated seat is: a person by name key, or the bots of a level."""

    bot: bool
    key: str


def rate(entrants: Sequence[tuple[Rating, int]]) -> list[Rating]:
    """The ratings after a game, for (rating before, place) pairs (place 1 = the winner)."""
    teams = [[MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating, _ in entrants]
    rated = MODEL.rate(teams, ranks=[place for _, place in entrants])
    seq = 1 + max(rating.seq for rating, _ in entrants)
    return [
        Rating(team[0].mu, team[0].sigma, before.games + 1, seq)
        for team, (before, _) in zip(rated, entrants, strict=True)
    ]


def rated_seats(seats: Iterable[dict[str, Any]]) -> dict[Player, dict[str, Any]]:
    """The seats a game rates, by player: counted people (a name key) and each bot level's
    best placed seat; none unless that makes two players."""
    players: dict[Player, dict[str, Any]] = {}
    for seat in sorted(seats, key=lambda seat: seat["place"]):
        if seat["name_key"] is not None:
            players[Player(False, seat["name_key"])] = seat
        elif seat["bot"] and seat["level"] is not None:
            players.setdefault(Player(True, seat["level"]), seat)
    return players if len(players) >= 2 else {}


# ----- the running update, in save_game's transaction --------------------------------------


def lock_bots(connection: Connection, levels: Iterable[str]) -> dict[str, Rating]:
    """The levels' ratings, their rows created if new and locked (in key order, as every
    game locks them) until the transaction ends."""
    wanted = sorted(set(levels))
    if not wanted:
        return {}
    new = Rating()
    connection.execute(
        _insert_new_bots(connection.dialect.name),
        [
            {"level": level, "mu": new.mu, "sigma": new.sigma}
            | {"rating_low": new.low, "rated_games": 0, "rating_seq": 0}
            for level in wanted
        ],
    )
    b = BotRatingRow
    rows = connection.execute(
        select(b.level, b.mu, b.sigma, b.rated_games, b.rating_seq)
        .where(b.level.in_(wanted))
        .order_by(b.level)
        .with_for_update()
    )
    return {row.level: Rating(row.mu, row.sigma, row.rated_games, row.rating_seq) for row in rows}


def store_bots(connection: Connection, ratings: dict[str, Rating]) -> None:
    """Write the levels' new ratings."""
    if ratings:
        connection.execute(
            UPDATE_BOT,
            [{"level_": level, **_columns(rating)} for level, rating in sorted(ratings.items())],
        )


@cache
def _insert_new_bots(dialect: str) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(BotRatingRow).on_conflict_do_nothing(index_elements=[BotRatingRow.level])


def _columns(rating: Rating) -> dict[str, Any]:
    """A rating as the columns `player_stats` and `bot_ratings` both keep."""
    return {
        "mu": rating.mu,
        "sigma": rating.sigma,
        "rating_low": rating.low,
        "rated_games": rating.games,
        "rating_seq": rating.seq,
    }


UPDATE_BOT = (
    update(BotRatingRow)
    .where(BotRatingRow.level == bindparam("level_"))
    .values({name: bindparam(name) for name in ("mu", "sigma", "rating_low")})
    .values(rated_games=bindparam("rated_games"), rating_seq=bindparam("rating_seq"))
)
UPDATE_PERSON = (
    update(PlayerStatsRow)
    .where(PlayerStatsRow.name_key == bindparam("key_"))
    .values({name: bindparam(name) for name in ("mu", "sigma", "rating_low")})
    .values(rated_games=bindparam("rated_games"), rating_seq=bindparam("rating_seq"))
)
SEATS: Table = PlayerRow.__table__  # type: ignore[assignment]
UPDATE_SEAT = (
    update(SEATS)
    .where(SEATS.c.game_id == bindparam("game_"), SEATS.c.seat == bindparam("seat_"))
    .values(mu=bindparam("mu"), sigma=bindparam("sigma"))
)


# ----- the recount -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Replay:
    """Every rating as replaying the rated games gives it."""

    people: dict[str, Rating]
    bots: dict[str, Rating]
    seats: dict[tuple[str, int], tuple[float, float]]  # (game_id, seat) -> (mu, sigma) after


def replay(connection: Connection) -> Replay:
    """Rate the stored games again, in `rating_seq` order, the seats each one rated."""
    ratings: dict[Player, Rating] = {}
    seats: dict[tuple[str, int], tuple[float, float]] = {}
    for game_id, rows in groupby(_rated_seats(connection), key=lambda row: row.game_id):
        game = [
            (row.seat, Player(row.bot, row.level if row.bot else row.name_key), row.place)
            for row in rows
        ]
        after = rate([(ratings.get(player, Rating()), place) for _, player, place in game])
        for (seat, player, _), rating in zip(game, after, strict=True):
            ratings[player] = rating
            seats[game_id, seat] = (rating.mu, rating.sigma)
    return Replay(
        people={player.key: rating for player, rating in ratings.items() if not player.bot},
        bots={player.key: rating for player, rating in ratings.items() if player.bot},
        seats=seats,
    )


def _rated_seats(connection: Connection) -> Iterator[Any]:
    p, g = PlayerRow, GameRow
    return iter(
        connection.execute(
            select(p.game_id, p.seat, p.bot, p.level, p.name_key, p.place)
            .join(g, g.id == p.game_id)
            .where(g.rating_seq.is_not(None), p.mu.is_not(None))
            .order_by(g.rating_seq, g.id, p.place)  # as `rated_seats` hands them to `rate`
        )
    )


def stored(connection: Connection) -> Replay:
    """Every rating as the tables hold it (the players a game rated at least once)."""
    s, b, p = PlayerStatsRow, BotRatingRow, PlayerRow
    people = connection.execute(
        select(s.name_key, s.mu, s.sigma, s.rated_games, s.rating_seq).where(s.rated_games > 0)
    )
    bots = connection.execute(select(b.level, b.mu, b.sigma, b.rated_games, b.rating_seq))
    seats = connection.execute(select(p.game_id, p.seat, p.mu, p.sigma).where(p.mu.is_not(None)))
    return Replay(
        people={row[0]: Rating(*row[1:]) for row in people},
        bots={row[0]: Rating(*row[1:]) for row in bots},
        seats={(row.game_id, row.seat): (row.mu, row.sigma) for row in seats},
    )


def _differences(now: Mapping[Any, object], before: Mapping[Any, object]) -> int:
    return sum(now.get(key) != before.get(key) for key in now.keys() | before.keys())


def recount(engine: Engine) -> int:
    """Replace every stored rating by the replay's, in one transaction that first locks
    every rating row (a game saved meanwhile waits, then builds on the recount); returns how
    many players' or seats' ratings differed (0 when the running updates were right)."""
    with engine.begin() as connection:
        s = PlayerStatsRow
        connection.execute(select(s.name_key).with_for_update()).all()
        connection.execute(select(BotRatingRow.level).with_for_update()).all()
        now, before = replay(connection), stored(connection)
        changed = (
            _differences(now.people, before.people)
            + _differences(now.bots, before.bots)
            + _differences(now.seats, before.seats)
        )
        connection.execute(update(s).values(_columns(Rating())))
        connection.execute(update(BotRatingRow).values(_columns(Rating())))
        connection.execute(update(SEATS).values(mu=None, sigma=None))
        if now.people:
            connection.execute(
                UPDATE_PERSON,
                [{"key_": key, **_columns(rating)} for key, rating in sorted(now.people.items())],
            )
        lock_bots(connection, now.bots)  # a level's row may be missing: games filled in bulk
        store_bots(connection, now.bots)
        if now.seats:
            connection.execute(
                UPDATE_SEAT,
                [
                    {"game_": game, "seat_": seat, "mu": mu, "sigma": sigma}
                    for (game, seat), (mu, sigma) in sorted(now.seats.items())
                ],
            )
    return changed
