"""Per-player statistics over the saved games: games, wins, average place, dudo and calza.

Every figure is a sum over `game_players`: `save_game` files each seat's calls there
(`tally_calls`) with its casefolded name (`name_key`, null for bots) and the game's
`finished_at`, so the leaderboard is one GROUP BY over one covering index, never a read of
the rounds' JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, Engine, Row, Select, case, func, select
from sqlalchemy.orm import sessionmaker

from app.db.models import PlayerRow

Sort = Literal["wins", "games", "name"]
Query = Select[*tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Calls:
    """One seat's calls in one game: dudos called and won, calzas called and won."""

    dudo_calls: int = 0
    dudo_wins: int = 0
    calza_calls: int = 0
    calza_wins: int = 0


def name_key(name: str, bot: bool) -> str | None:
    """The key a person's games are grouped under (names match ignoring case, as in a
    room); bots have none, so they never reach the leaderboard."""
    return None if bot else name.casefold()


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


def _rate(won: int, called: int) -> float | None:
    return won / called if called else None


class StatsRepository:
    """Read-only: the `GET /api/players` shapes."""

    def __init__(self, engine: Engine) -> None:
        self._sessions = sessionmaker(engine)

    def leaderboard(
        self, sort: Sort = "wins", limit: int = 20, offset: int = 0
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of players in `sort` order, and how many players there are in all."""
        with self._sessions() as session:
            rows = session.execute(_page(_grouped(), sort, limit, offset)).all()
            if rows:
                total = int(rows[0].total)
            else:  # past the end: the page's window has no row to count on
                query = select(func.count(func.distinct(PlayerRow.name_key)))
                total = session.scalar(query) or 0
        return [_player(row) for row in rows], total

    def player(self, name: str) -> dict[str, Any] | None:
        """One player's figures, the name matched ignoring case; None if they never played."""
        query = _grouped().where(PlayerRow.name_key == name_key(name, bot=False))
        with self._sessions() as session:
            row = session.execute(_page(query, "name", 1, 0)).one_or_none()
        return None if row is None else _player(row)


def _grouped() -> Query:
    """Every person's sums, one row per name_key (`total` counts the rows)."""
    p = PlayerRow
    return (
        select(
            p.name_key.label("name_key"),
            func.count().label("games"),
            func.sum(case((p.place == 1, 1), else_=0)).label("wins"),
            func.sum(p.place).label("place_sum"),
            func.sum(p.dudo_calls).label("dudo_calls"),
            func.sum(p.dudo_wins).label("dudo_wins"),
            func.sum(p.calza_calls).label("calza_calls"),
            func.sum(p.calza_wins).label("calza_wins"),
            func.count().over().label("total"),
        )
        .where(p.name_key.is_not(None))
        .group_by(p.name_key)
    )


def _order(columns: Any, sort: Sort) -> list[ColumnElement[Any]]:
    """A total order: most wins (fewest games among equals), most games, or by name."""
    tiebreak = columns.name_key.asc()
    match sort:
        case "wins":
            return [columns.wins.desc(), columns.games.asc(), tiebreak]
        case "games":
            return [columns.games.desc(), columns.wins.desc(), tiebreak]
        case "name":
            return [tiebreak]


def _page(grouped: Query, sort: Sort, limit: int, offset: int) -> Query:
    """One page of `grouped`, each row with the name its player used most recently (one
    index seek per row of the page, not per game)."""
    page = (
        grouped.order_by(*_order(grouped.selected_columns, sort))
        .limit(limit)
        .offset(offset)
        .subquery()
    )
    latest = (
        select(PlayerRow.name)
        .where(PlayerRow.name_key == page.c.name_key)
        .order_by(PlayerRow.finished_at.desc(), PlayerRow.game_id.desc())
        .limit(1)
        .scalar_subquery()
    )
    return select(page, latest.label("name")).order_by(*_order(page.c, sort))


def _player(row: Row[*tuple[Any, ...]]) -> dict[str, Any]:
    """One `GET /api/players` entry from a row of `_page`."""
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
    }
