"""Save and read finished games in the PROTOCOL.md `GET /api/games` shapes."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import Any, cast

from sqlalchemy import Engine, Table, insert, select, text
from sqlalchemy.orm import selectinload, sessionmaker

from app.db.claims import ClaimsRepository, key_hash, well_formed
from app.db.models import GameRow, PlayerRow, RoundRow
from app.db.ratings import lock_bots, rate, rated_seats, store_bots
from app.db.stats import Calls, count_game, lock_people, name_key, tally_calls
from app.protocol import RatingChange, SavedGame
from app.utc import format_utc, parse_utc

GAME_ID_BYTES = 8  # 64 random bits, 11 URL-safe characters
# Games are written through Core: the ORM's unit of work costs more than the rows.
GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, PlayerRow.__table__)
ROUNDS = cast(Table, RoundRow.__table__)
# The writes' statements, built once: one built per call costs its construction and its
# cache key every time, more than running it for a few rows.
INSERT_GAME = insert(GAMES)
INSERT_SEATS = insert(SEATS)
INSERT_ROUNDS = insert(ROUNDS)


def _owner(player_key: str | None) -> str | None:
    """The owner a seat's key would claim names for; none for a missing or malformed key."""
    return key_hash(player_key) if player_key is not None and well_formed(player_key) else None


def new_game_id() -> str:
    """A short, unguessable, URL-safe id for a saved game."""
    return secrets.token_urlsafe(GAME_ID_BYTES)


class GameRepository:
    """Finished games: saved once (with their ratings and claims), read by the history pages."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    def ping(self) -> bool:
        """Whether the database answers a trivial query."""
        try:
            with self._sessions() as session:
                session.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    # ----- finished games -----------------------------------------------------------------

    def save_game(self, record: Mapping[str, Any]) -> SavedGame:
        """Store a finished game (the `GET /api/games/{id}` shape without `game_id`; each
        player may carry `player_key`, `guest` and, for a bot, `level`), its people's totals,
        the name claims and the ratings, in one transaction.

        A person counts under their name unless they are a `guest` or the name is claimed by
        another key (or by any, for a seat without one); a key finishing a counted game under
        an unclaimed name claims it. Returns the game_id and the `rating_changes` to send.
        """
        players = record["players"]
        winner = record["winner"]
        if not any(p["seat"] == winner["seat"] and p["name"] == winner["name"] for p in players):
            raise ValueError("the winner must be one of the players")
        finished_at = parse_utc(record["finished_at"])
        calls = tally_calls(r["result"] for r in record["rounds"])
        game_id = new_game_id()
        owners = {p["seat"]: _owner(p.get("player_key")) for p in players}
        seats = [
            {
                "game_id": game_id,
                "seat": p["seat"],
                "name": p["name"],
                "bot": p["bot"],
                "place": p["place"],
                "name_key": name_key(p["name"], p["bot"], p.get("guest", False)),
                "finished_at": finished_at,
                **asdict(calls.get(p["seat"], Calls())),
                "guest": p.get("guest", False),
                "level": p.get("level") if p["bot"] else None,
                "mu": None,
                "sigma": None,
            }
            for p in players
        ]
        rounds = [
            {
                "game_id": game_id,
                "number": r["number"],
                "palifico": r["palifico"],
                "palifico_seat": r["palifico_seat"],
                "opener": r["opener"],
                "dice": r["dice"],
                "bids": r["bids"],
                "result": r["result"],
            }
            for r in record["rounds"]
        ]
        with self._engine.begin() as connection:
            people = lock_people(connection, game_id, finished_at, seats)
            for seat in seats:  # the claims: a name another key owns makes a guest
                person = people.get(seat["name_key"])
                if person is None:
                    continue
                owner = owners[seat["seat"]]
                if person.owner is None and owner is not None:
                    people[seat["name_key"]] = replace(person, owner=owner)
                elif person.owner is not None and person.owner != owner:
                    seat["name_key"], seat["guest"] = None, True
            rated = rated_seats(seats)
            bots = lock_bots(connection, [player.key for player in rated if player.bot])
            before = {
                player: bots[player.key] if player.bot else people[player.key].rating
                for player in rated
            }
            changes: list[RatingChange] = []
            seq = None
            if rated:
                after = rate([(before[player], seat["place"]) for player, seat in rated.items()])
                for (player, seat), rating in zip(rated.items(), after, strict=True):
                    seat["mu"], seat["sigma"], seq = rating.mu, rating.sigma, rating.seq
                    if player.bot:
                        bots[player.key] = rating
                    else:
                        people[player.key] = replace(people[player.key], rating=rating)
                    changes.append(
                        {"seat": seat["seat"], "before": before[player].low, "after": rating.low}
                    )
            connection.execute(
                INSERT_GAME,
                {
                    "id": game_id,
                    "room_id": record["room_id"],
                    "started_at": parse_utc(record["started_at"]),
                    "finished_at": finished_at,
                    "settings": dict(record["settings"]),
                    "winner_seat": winner["seat"],
                    "rating_seq": seq,
                },
            )
            connection.execute(INSERT_SEATS, seats)
            if rounds:
                connection.execute(INSERT_ROUNDS, rounds)
            count_game(connection, game_id, finished_at, seats, people)  # the leaderboard's
            store_bots(connection, {p.key: bots[p.key] for p in rated if p.bot})
        return SavedGame(game_id, sorted(changes, key=lambda change: change["seat"]))

    def guest(self, name: str, player_key: str | None) -> bool:
        """Whether a seat under `name` with `player_key` plays as a guest (the claims, one
        primary-key read; the rooms ask it in a thread when someone sits down)."""
        return ClaimsRepository(self._engine).guest(name, player_key)

    def list_games(self, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """`GET /api/games` entries, newest first, in two queries whatever the page size."""
        query = (
            select(GameRow)
            .options(selectinload(GameRow.players))
            .order_by(GameRow.finished_at.desc(), GameRow.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with self._sessions() as session:
            return [_summary(game) for game in session.scalars(query)]

    def get_game(self, game_id: str) -> dict[str, Any] | None:
        """The full `GET /api/games/{id}` answer, or None for an unknown id."""
        query = (
            select(GameRow)
            .where(GameRow.id == game_id)
            .options(selectinload(GameRow.players), selectinload(GameRow.rounds))
        )
        with self._sessions() as session:
            game = session.scalars(query).one_or_none()
            if game is None:
                return None
            summary = _summary(game)
            return {
                "game_id": game.id,
                "room_id": game.room_id,
                "started_at": format_utc(game.started_at),
                "finished_at": summary["finished_at"],
                "settings": game.settings,
                "winner": summary["winner"],
                "players": summary["players"],
                "rounds": [_round(r) for r in game.rounds],
            }


def _summary(game: GameRow) -> dict[str, Any]:
    """One `GET /api/games` entry; needs `game.players` loaded."""
    names = {player.seat: player.name for player in game.players}
    return {
        "game_id": game.id,
        "room_id": game.room_id,
        "finished_at": format_utc(game.finished_at),
        "winner": {"seat": game.winner_seat, "name": names[game.winner_seat]},
        "players": [
            {"seat": p.seat, "name": p.name, "bot": p.bot, "place": p.place} for p in game.players
        ],
    }


def _round(row: RoundRow) -> dict[str, Any]:
    return {
        "number": row.number,
        "palifico": row.palifico,
        "palifico_seat": row.palifico_seat,
        "opener": row.opener,
        "dice": row.dice,
        "bids": row.bids,
        "result": row.result,
    }
