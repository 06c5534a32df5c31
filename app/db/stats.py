"""Per-player statistics over the saved games: games, wins, average place, dudo and calza.

Every figure is a sum over `game_players`: `save_game` files each seat's calls there
(`tally_calls`) with its casefolded name (`name_key`, null for bots) and the game's
`finished_at`. It also adds the game to each person's running totals in `player_stats`
(`count_game`, in the same transaction), so the leaderboard reads one page of that table
along an index: its cost does not grow with the number of games. `recount` sums the seats
afresh, as the migration that created the table did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Literal

from sqlalchemy import ColumnElement, Connection, Engine, Select, and_, case, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased, sessionmaker

from app.db.models import BotRatingRow, GameRow, PlayerRow, PlayerStatsRow
from app.db.ratings import PROVISIONAL_GAMES, Rating

Sort = Literal["rating", "wins", "games", "name"]
Query = Select[*tuple[Any, ...]]
HISTORY_POINTS = 200  # the player's chart: their latest rated games
REGULAR_GAMES = 2  # games together that make a regular opponent
OPPONENTS = 12
TOTALS = ("games", "wins", "place_sum", "dudo_calls", "dudo_wins", "calza_calls", "calza_wins")
RATING_COLUMNS = ("owner", "mu", "sigma", "rating_low", "rated_games", "rating_seq")


@dataclass(frozen=True, slots=True)
class Calls:
    """One seat's calls in one game: dudos called and won, calzas called and won."""

    dudo_calls: int = 0
    dudo_wins: int = 0
    calza_calls: int = 0
    calza_wins: int = 0


def name_key(name: str, bot: bool, guest: bool = False) -> str | None:
    """The key a person's games are grouped under (names match ignoring case, as in a
    room); bots and guests have none, so they never reach a person's figures."""
    return None if bot or guest else name.casefold()


def tally_calls(results: Iterable[Mapping[str, Any]]) -> dict[int, Calls]:
    """Each caller's calls, from the rounds' results (PROTOCOL.md `round_result`).

    A dudo is won when its caller did not lose the die; a calza when its caller is the
    `gainer` (the bid was exact, at five dice too).
    """
    tallies: dict[int, list[int]] = {}  # seat -> the fields of Calls, in order
    for result in results:
        caller = result["caller"]
        tally = tallies.setdefault(caller, [0, 0, 0, 0])
        if result["call"] == "dudo":
            tally[0] += 1
            tally[1] += result["loser"] != caller
        else:
            tally[2] += 1
            tally[3] += result["gainer"] == caller
    return {seat: Calls(*tally) for seat, tally in tallies.items()}


@dataclass(frozen=True, slots=True)
class Person:
    """A person's row as a game being saved finds it: who claimed the name, and the rating."""

    owner: str | None
    rating: Rating


def lock_people(
    connection: Connection, game_id: str, finished_at: datetime, seats: list[dict[str, Any]]
) -> dict[str, Person]:
    """The `player_stats` rows of the seats' people (a name key), created empty for a new
    person and locked until the transaction ends, in key order so that two games saved at
    once with the same people lock them in the same order."""
    new: dict[str, dict[str, Any]] = {}
    for seat in seats:
        if seat["name_key"] is not None:
            new.setdefault(seat["name_key"], _new_row(seat, game_id, finished_at))
    if not new:
        return {}
    connection.execute(_insert_new(connection.dialect.name), [new[key] for key in sorted(new)])
    s = PlayerStatsRow
    rows = connection.execute(
        select(s.name_key, s.owner, s.mu, s.sigma, s.rated_games, s.rating_seq)
        .where(s.name_key.in_(sorted(new)))
        .order_by(s.name_key)
        .with_for_update()
    )
    return {row[0]: Person(row[1], Rating(*row[2:])) for row in rows}


def _new_row(seat: dict[str, Any], game_id: str, finished_at: datetime) -> dict[str, Any]:
    new = Rating()
    return (
        {"name_key": seat["name_key"], "name": seat["name"], "latest_at": finished_at}
        | {"latest_game": game_id, "mu": new.mu, "sigma": new.sigma, "rating_low": new.low}
        | dict.fromkeys(TOTALS, 0)
    )


@cache
def _insert_new(dialect: str) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(PlayerStatsRow).on_conflict_do_nothing(index_elements=[PlayerStatsRow.name_key])


def count_game(
    connection: Connection,
    game_id: str,
    finished_at: datetime,
    seats: list[dict[str, Any]],
    people: dict[str, Person],
) -> None:
    """Add a game being saved (its `game_players` rows, `seats`) to its people's
    `player_stats` rows (`lock_people`'s), in the caller's transaction: one upsert that adds
    the totals and sets each person's rating and owner (`people`: after this game)."""
    rows: dict[str, dict[str, Any]] = {}
    for seat in seats:
        key = seat["name_key"]
        if key is None:
            continue
        person = people[key]
        row = rows.setdefault(
            key,
            {"name_key": key, "name": seat["name"], "latest_at": finished_at}
            | {"latest_game": game_id, "owner": person.owner}
            | {"mu": person.rating.mu, "sigma": person.rating.sigma}
            | {"rating_low": person.rating.low, "rated_games": person.rating.games}
            | {"rating_seq": person.rating.seq}
            | dict.fromkeys(TOTALS, 0),
        )
        row["games"] += 1
        row["wins"] += int(seat["place"] == 1)
        row["place_sum"] += seat["place"]
        for column in TOTALS[3:]:  # the dudo and calza calls and wins
            row[column] += seat[column]
    if rows:
        connection.execute(_upsert(connection.dialect.name), [rows[key] for key in sorted(rows)])


@cache
def _upsert(dialect: str) -> Any:
    """`count_game`'s statement, built once per dialect (building it costs more than running
    it): a new person's row as given; an existing one adds the totals, takes the name, end
    and id of whichever game ended later, and the rating and owner given."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(PlayerStatsRow)
    old, new = PlayerStatsRow, stmt.excluded
    newer = or_(
        new.latest_at > old.latest_at,
        and_(new.latest_at == old.latest_at, new.latest_game > old.latest_game),
    )
    updates: dict[str, Any] = {name: getattr(old, name) + new[name] for name in TOTALS}
    for name in ("name", "latest_at", "latest_game"):
        updates[name] = case((newer, new[name]), else_=getattr(old, name))
    for name in RATING_COLUMNS:
        updates[name] = new[name]
    return stmt.on_conflict_do_update(index_elements=[old.name_key], set_=updates)


def recount() -> Query:
    """What `player_stats` should hold, summed afresh from the saved seats (its columns in
    order, one row per person by name_key)."""
    p = PlayerRow
    sums = (
        select(
            p.name_key,
            func.count().label("games"),
            func.sum(case((p.place == 1, 1), else_=0)).label("wins"),
            func.sum(p.place).label("place_sum"),
            *(func.sum(getattr(p, name)).label(name) for name in TOTALS[3:]),
        )
        .where(p.name_key.is_not(None))
        .group_by(p.name_key)
        .subquery()
    )

    def latest(column: Any) -> Any:
        return (
            select(column)
            .where(p.name_key == sums.c.name_key)
            .order_by(p.finished_at.desc(), p.game_id.desc())
            .limit(1)
            .scalar_subquery()
        )

    return select(
        sums.c.name_key,
        latest(p.name).label("name"),
        latest(p.finished_at).label("latest_at"),
        latest(p.game_id).label("latest_game"),
        *(sums.c[name] for name in TOTALS),
    ).order_by(sums.c.name_key)


def _rate(won: int, called: int) -> float | None:
    return won / called if called else None


class StatsRepository:
    """Read-only: the `GET /api/players` shapes, from `player_stats`."""

    def __init__(self, engine: Engine) -> None:
        self._sessions = sessionmaker(engine)

    def leaderboard(
        self, sort: Sort = "rating", limit: int = 20, offset: int = 0
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of players in `sort` order, and how many players there are in all."""
        query = select(PlayerStatsRow).order_by(*_order(PlayerStatsRow, sort))
        with self._sessions() as session:
            rows = session.scalars(query.limit(limit).offset(offset)).all()
            total = session.scalar(select(func.count()).select_from(PlayerStatsRow)) or 0
            return [_player(row) for row in rows], total

    def player(self, name: str) -> dict[str, Any] | None:
        """One player's figures, the name matched ignoring case; None if they never played."""
        with self._sessions() as session:
            row = session.get(PlayerStatsRow, name_key(name, bot=False))
            return None if row is None else _player(row)

    def history(self, name: str, limit: int = HISTORY_POINTS) -> list[dict[str, Any]]:
        """A player's rating after each of their latest `limit` rated games, oldest first."""
        p, g = PlayerRow, GameRow
        query = (
            select(p.game_id, p.finished_at, p.place, p.mu, p.sigma)
            .join(g, g.id == p.game_id)
            .where(p.name_key == name_key(name, bot=False), p.mu.is_not(None))
            .order_by(g.rating_seq.desc())
            .limit(limit)
        )
        with self._sessions() as session:
            rows = session.execute(query).all()
        return [
            {
                "game_id": row.game_id,
                "finished_at": row.finished_at,
                "place": row.place,
                "rating_low": Rating(row.mu, row.sigma).low,
            }
            for row in reversed(rows)
        ]

    def opponents(
        self, name: str, least: int = REGULAR_GAMES, limit: int = OPPONENTS
    ) -> list[dict[str, Any]]:
        """A player's record against the people and bot levels they met in at least `least`
        counted games: most games together first; `ahead` counts the games the player
        finished above them, `behind` below."""
        me, them, stats = aliased(PlayerRow), aliased(PlayerRow), PlayerStatsRow
        together = func.count().label("games")
        query = (
            select(
                them.bot,
                func.coalesce(stats.name, them.level).label("name"),
                together,
                func.sum(case((me.place < them.place, 1), else_=0)).label("ahead"),
            )
            .join(them, and_(them.game_id == me.game_id, them.seat != me.seat))
            .outerjoin(stats, stats.name_key == them.name_key)
            .where(
                me.name_key == name_key(name, bot=False),
                or_(them.name_key.is_not(None), them.level.is_not(None)),
            )
            .group_by(them.bot, them.name_key, them.level, stats.name)
            .having(together >= least)
            .order_by(together.desc(), them.bot, func.coalesce(stats.name, them.level))
            .limit(limit)
        )
        with self._sessions() as session:
            rows = session.execute(query).all()
        return [
            {"name": row.name, "bot": row.bot, "games": row.games}
            | {"ahead": row.ahead, "behind": row.games - row.ahead}
            for row in rows
        ]

    def bots(self) -> list[dict[str, Any]]:
        """The bot levels' ratings, best first (a few rows: one per level ever rated)."""
        b = BotRatingRow
        with self._sessions() as session:
            rows = session.scalars(select(b).order_by(b.rating_low.desc(), b.level))
            return [{"level": row.level, **_rating(row)} for row in rows]


def _order(columns: Any, sort: Sort) -> list[ColumnElement[Any]]:
    """A total order: highest `rating_low`, most wins (fewest games among equals), most
    games, or by name; each one an index of `player_stats` (models.py)."""
    tiebreak = columns.name_key.asc()
    match sort:
        case "rating":
            return [columns.rating_low.desc(), tiebreak]
        case "wins":
            return [columns.wins.desc(), columns.games.asc(), tiebreak]
        case "games":
            return [columns.games.desc(), columns.wins.desc(), tiebreak]
        case "name":
            return [tiebreak]


def _player(row: PlayerStatsRow) -> dict[str, Any]:
    """One `GET /api/players` entry."""
    return {
        "name": row.name,
        "games": row.games,
        "wins": row.wins,
        "average_place": row.place_sum / row.games,
        "dudo_calls": row.dudo_calls,
        "dudo_wins": row.dudo_wins,
        "dudo_rate": _rate(row.dudo_wins, row.dudo_calls),
        "calza_calls": row.calza_calls,
        "calza_wins": row.calza_wins,
        "calza_rate": _rate(row.calza_wins, row.calza_calls),
        **_rating(row),
        "claimed": row.owner is not None,
    }


def _rating(row: PlayerStatsRow | BotRatingRow) -> dict[str, Any]:
    """A rating's figures in the `GET /api/players` shape."""
    return {
        "rating": row.mu,
        "rating_sigma": row.sigma,
        "rating_low": row.rating_low,
        "rated_games": row.rated_games,
        "provisional": row.rated_games < PROVISIONAL_GAMES,
    }
