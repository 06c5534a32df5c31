"""Player stats at scale: fill a fresh database with 100,000 finished games, then time
`/api/players` (first page, a deep page, one player) through the app.

    .venv/bin/python bench/stats.py                            # SQLite in a temporary folder
    .venv/bin/python bench/stats.py --games 10000 --repeat 10  # smaller and quicker
    .venv/bin/python bench/stats.py --url postgresql+psycopg://postgres@127.0.0.1:5432/test

The games are synthetic but shaped like real ones: two to six seats, a quarter of them bots,
names drawn from `--people` regulars with a long tail (a few play most games) and now and
then typed in another case, five to 25 rounds each with dice, bids and result. They go
in by bulk inserts, a thousand games a transaction, of the rows `save_game` would write:
the same tables and types, the stats columns from the same `name_key` and `tally_calls`;
then `player_stats` is summed from them as migration 0005 does (`recount`), and `--saves`
more games go through `save_game` one by one, timed, each adding itself to that summary.
Every answer timed is checked against figures this script tallies itself.

A PostgreSQL URL gets a schema of its own, dropped at the end (`--keep` keeps it, and the
SQLite file); the app then reads it exactly as the server would. Timings go through the
route (FastAPI, validation, JSON) in-process, without a socket: median, p95 and max of
`--repeat` calls each, after one warm-up call.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, func, insert, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from app.config import Settings
from app.db import ratings
from app.db.migrate import upgrade
from app.db.models import INITIAL_MU, INITIAL_SIGMA, GameRow, PlayerRow, PlayerStatsRow, RoundRow
from app.db.repository import GameRepository, new_game_id
from app.db.session import make_engine
from app.db.stats import RATING_COLUMNS, Calls, StatsRepository, name_key, recount, tally_calls
from app.main import create_app
from app.web import players as stats

T0 = datetime(2024, 1, 1, tzinfo=UTC)
BATCH = 1000  # games per transaction
PAGE = 20
SETTINGS = {"max_players": 6, "calza": True, "palifico": True, "calza_rule": "pressman"}
LEVELS = ("easy", "normal", "hard")


@dataclass
class Tally:
    """What the answers must say about one person, kept while generating."""

    games: int = 0
    wins: int = 0
    places: int = 0
    calls: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    latest: tuple[datetime, str, str] = (T0, "", "")  # (finished_at, game_id, name)

    def entry(self) -> dict[str, Any]:
        dudo_calls, dudo_wins, calza_calls, calza_wins = self.calls
        return {
            "name": self.latest[2],
            "games": self.games,
            "wins": self.wins,
            "average_place": self.places / self.games,
            "dudo_calls": dudo_calls,
            "dudo_wins": dudo_wins,
            "dudo_rate": dudo_wins / dudo_calls if dudo_calls else None,
            "calza_calls": calza_calls,
            "calza_wins": calza_wins,
            "calza_rate": calza_wins / calza_calls if calza_calls else None,
        }


TALLIED = frozenset(Tally(games=1).entry())  # the figures an answer must match exactly


class Generator:
    """Random finished games in the rows `save_game` writes, tallied as they are made."""

    def __init__(self, people: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.people = [f"Player {n:05d}" for n in range(people)]
        weights = [1 / (rank + 1) ** 0.8 for rank in range(people)]  # a long tail
        self.cumulative = list(itertools.accumulate(weights))
        self.tallies: dict[str, Tally] = {}
        self.last_seq: dict[ratings.Player, int] = {}

    def spelling(self, name: str) -> str:
        roll = self.rng.random()
        return name.upper() if roll < 0.05 else name.lower() if roll < 0.10 else name

    def game(
        self, number: int
    ) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
        """One game's rows: games, game_players, rounds."""
        rng = self.rng
        size = rng.randint(2, 6)
        bots = {seat for seat in range(size) if rng.random() < 0.25}
        if len(bots) == size:
            bots.discard(0)
        people: set[str] = set()
        while len(people) < size - len(bots):
            people.add(rng.choices(self.people, cum_weights=self.cumulative)[0])
        names = iter(sorted(people))
        seats = [
            (f"Bot {seat}", True) if seat in bots else (self.spelling(next(names)), False)
            for seat in range(size)
        ]
        levels = [rng.choice(LEVELS) if bot else None for _, bot in seats]
        places = list(range(1, size + 1))
        rng.shuffle(places)
        game_id = new_game_id()
        finished = T0 + timedelta(seconds=37 * number)
        rounds = [self.round(n, size) for n in range(1, 5 * (size - 1) + 1)]  # a die a round
        calls = tally_calls(r["result"] for r in rounds)
        players = []
        for seat, (name, bot) in enumerate(seats):
            key = name_key(name, bot)
            seat_calls = calls.get(seat, Calls())
            players.append(
                {
                    "game_id": game_id,
                    "seat": seat,
                    "name": name,
                    "bot": bot,
                    "place": places[seat],
                    "name_key": key,
                    "finished_at": finished,
                    **asdict(seat_calls),
                    "guest": False,
                    "level": levels[seat],
                    "mu": None,
                    "sigma": None,
                }
            )
            if key is not None:
                tally = self.tallies.setdefault(key, Tally())
                tally.games += 1
                tally.wins += places[seat] == 1
                tally.places += places[seat]
                tally.calls = [
                    a + b for a, b in zip(tally.calls, asdict(seat_calls).values(), strict=True)
                ]
                tally.latest = max(tally.latest, (finished, game_id, name))
        # The seats save_game would rate, numbered as it numbers them (app/db/ratings.py);
        # their ratings are then worked out by the recount, as `perudo recount` does.
        rated = ratings.rated_seats(players)
        seq = 1 + max((self.last_seq.get(player, 0) for player in rated), default=0)
        for player, seat in rated.items():
            seat["mu"], seat["sigma"] = INITIAL_MU, INITIAL_SIGMA
            self.last_seq[player] = seq
        game = {
            "id": game_id,
            "room_id": secrets.token_urlsafe(7),
            "started_at": finished - timedelta(minutes=rng.randint(5, 40)),
            "finished_at": finished,
            "settings": SETTINGS,
            "winner_seat": places.index(1),
            "rating_seq": seq if rated else None,
        }
        for row in rounds:
            row["game_id"] = game_id
        return game, players, rounds

    def round(self, number: int, size: int) -> dict[str, Any]:
        """A round's row with plausible dice and bids; the result's call is what counts."""
        rng = self.rng
        dice = [
            {"seat": seat, "dice": [rng.randint(1, 6) for _ in range(rng.randint(1, 5))]}
            for seat in range(size)
        ]
        caller = rng.randrange(size)
        count = rng.randint(1, 4)  # bids in the round; the caller's right-hand neighbour's last
        bids = [
            {"quantity": q, "face": rng.randint(2, 6), "seat": (caller - count + q - 1) % size}
            for q in range(1, count + 1)
        ]
        calza = rng.random() < 0.15
        exact = calza and rng.random() < 0.3
        if calza:
            loser = None if exact else caller
        else:
            loser = caller if rng.random() < 0.45 else bids[-1]["seat"]
        result = {
            "round": number,
            "call": "calza" if calza else "dudo",
            "caller": caller,
            "bid": bids[-1],
            "palifico": False,
            "reveal": dice,
            "count": rng.randint(0, 8),
            "loser": loser,
            "gainer": caller if exact else None,
            "eliminated": None,
            "next_opener": caller,
            "winner": None,
        }
        return {
            "number": number,
            "palifico": False,
            "palifico_seat": None,
            "opener": caller,
            "dice": dice,
            "bids": bids,
            "result": result,
        }


def fill(engine: Engine, generator: Generator, games: int) -> None:
    """Bulk-insert `games` games, then sum them into `player_stats` as migration 0005 does
    (`recount`); `save_game` keeps it up to date from there."""
    started = time.perf_counter()
    for first in range(0, games, BATCH):
        rows: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        for number in range(first, min(first + BATCH, games)):
            game, players, rounds = generator.game(number)
            rows[0].append(game)
            rows[1].extend(players)
            rows[2].extend(rounds)
        with engine.begin() as connection:
            for table, values in zip((GameRow, PlayerRow, RoundRow), rows, strict=True):
                connection.execute(insert(table), values)
        done = first + len(rows[0])
        rate = done / (time.perf_counter() - started)
        print(f"\r  {done:,} games, {rate:,.0f} games/s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    columns = [c.name for c in PlayerStatsRow.__table__.columns if c.name not in RATING_COLUMNS]
    with engine.begin() as connection:
        connection.execute(insert(PlayerStatsRow).from_select(columns, recount()))


def as_record(
    game: dict[str, Any], players: list[dict[str, Any]], rounds: list[dict[str, Any]]
) -> dict[str, Any]:
    """The generator's rows of one game as the record the server hands `save_game`."""
    winner = next(p for p in players if p["place"] == 1)
    return {
        "room_id": game["room_id"],
        "started_at": game["started_at"].isoformat(),
        "finished_at": game["finished_at"].isoformat(),
        "settings": game["settings"],
        "winner": {"seat": winner["seat"], "name": winner["name"]},
        "players": [
            {k: p[k] for k in ("seat", "name", "bot", "place")} | {"level": p["level"]}
            for p in players
        ],
        "rounds": [{k: v for k, v in r.items() if k != "game_id"} for r in rounds],
    }


def time_saves(engine: Engine, generator: Generator, first: int, saves: int) -> dict[str, float]:
    """Save `saves` more games one by one through `save_game` (its seats, rounds and the
    summary's upsert, one transaction each): the milliseconds each took."""
    repo = GameRepository(engine)
    times = []
    for number in range(first, first + saves):
        record = as_record(*generator.game(number))
        start = time.perf_counter()
        repo.save_game(record)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "median_ms": statistics.median(times),
        "p95_ms": times[round(0.95 * (len(times) - 1))],
        "max_ms": times[-1],
    }


def figures_only(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers without their rating fields: what the generator's tallies can check."""
    return [{key: value for key, value in entry.items() if key in TALLIED} for entry in entries]


def expected(generator: Generator, sort: str) -> list[dict[str, Any]]:
    """The whole leaderboard in `sort` order, from the generator's own tallies."""
    orders = {
        "wins": lambda item: (-item[1].wins, item[1].games, item[0]),
        "games": lambda item: (-item[1].games, -item[1].wins, item[0]),
        "name": lambda item: item[0],
    }
    return [tally.entry() for _, tally in sorted(generator.tallies.items(), key=orders[sort])]


@contextlib.contextmanager
def database(url: str | None, keep: bool) -> Iterator[str]:
    """A fresh database: a SQLite file in a temporary folder, or a new PostgreSQL schema."""
    if url is None:
        folder = Path(tempfile.mkdtemp(prefix="perudo-stats-"))
        try:
            yield f"sqlite:///{folder / 'perudo.db'}"
        finally:
            if keep:
                print(f"  keeping {folder / 'perudo.db'}", file=sys.stderr)
            else:
                shutil.rmtree(folder)
        return
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        yield url
        return
    schema = f"perudo_bench_{secrets.token_hex(4)}"
    admin = create_engine(parsed, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )
    finally:
        if keep:
            print(f"  keeping schema {schema}", file=sys.stderr)
        else:
            with admin.connect() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def timed(client: TestClient, path: str, repeat: int) -> tuple[Any, dict[str, float]]:
    """The last answer to `path`, and the milliseconds its calls took (after one warm-up)."""
    client.get(path)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (path, response.status_code, response.text)
    times.sort()
    figures = {
        "median_ms": statistics.median(times),
        "p95_ms": times[round(0.95 * (len(times) - 1))],
        "max_ms": times[-1],
    }
    return response, figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add("--url", help="a database to fill (PostgreSQL: in a new schema); default: SQLite in /tmp")
    add("--games", type=int, default=100_000)
    add("--people", type=int, default=5_000, help="distinct names of people (default 5000)")
    add("--repeat", type=int, default=20, help="timed calls per query (default 20)")
    add("--saves", type=int, default=200, help="games then saved one by one, timed (default 200)")
    add("--seed", type=int, default=1)
    add("--keep", action="store_true", help="keep the database afterwards")
    add("--json", metavar="PATH", help="also write the figures as JSON (- for stdout)")
    args = parser.parse_args()

    generator = Generator(args.people, args.seed)
    with database(args.url, args.keep) as url:
        upgrade(url)
        engine = make_engine(url)
        backend = engine.dialect.name
        print(f"filling {backend} with {args.games:,} games", file=sys.stderr)
        started = time.perf_counter()
        fill(engine, generator, args.games)
        fill_seconds = time.perf_counter() - started
        started = time.perf_counter()
        ratings.recount(engine)  # rates the filled games, as `perudo recount` would
        rating_seconds = time.perf_counter() - started
        print(f"  rated them in {rating_seconds:.0f} s", file=sys.stderr)
        saving = time_saves(engine, generator, args.games, args.saves)
        differed = ratings.recount(engine)
        assert differed == 0, f"the recount differs from the running ratings in {differed}"
        with engine.connect() as connection:
            seats = connection.scalar(select(func.count()).select_from(PlayerRow))
        if backend == "postgresql":  # what autovacuum does soon after a load like this
            with engine.execution_options(isolation_level="AUTOCOMMIT").connect() as connection:
                connection.execute(text("VACUUM ANALYZE"))
        engine.dispose()

        settings = Settings(database_url=url, migrate_on_start=False)
        app = create_app(settings)
        if not any(getattr(route, "path", None) == "/api/players" for route in app.routes):
            app.include_router(stats.router)
        engine = make_engine(url)
        with TestClient(app) as client:
            if not hasattr(app.state, "stats"):
                app.state.stats = StatsRepository(engine)
            people = len(generator.tallies)
            last = max(0, people - PAGE)
            busiest = expected(generator, "games")[0]
            rarest = expected(generator, "games")[-1]
            queries = [
                ("first page, by rating", f"/api/players?limit={PAGE}", "rating", 0),
                ("middle page, by rating", f"/api/players?offset={people // 2}", "rating", 0),
                ("last page, by rating", f"/api/players?offset={last}", "rating", 0),
                ("first page, by wins", f"/api/players?limit={PAGE}&sort=wins", "wins", 0),
                ("first page, by games", f"/api/players?limit={PAGE}&sort=games", "games", 0),
                (
                    "middle page, by wins",
                    f"/api/players?offset={people // 2}&sort=wins",
                    "wins",
                    people // 2,
                ),
                ("last page, by wins", f"/api/players?offset={last}&sort=wins", "wins", last),
                ("last page, by name", f"/api/players?offset={last}&sort=name", "name", last),
                ("busiest player", f"/api/players/{busiest['name'].swapcase()}", None, 0),
                ("rarest player", f"/api/players/{rarest['name']}", None, 0),
                ("the /players page", "/players", None, 0),
            ]
            results = []
            for label, path, sort, offset in queries:
                response, figures = timed(client, path, args.repeat)
                answer = response.json() if path.startswith("/api/") else None
                if sort == "rating":  # no tally of ratings here: the order, and every one rated
                    lows = [player["rating_low"] for player in answer["players"]]
                    assert lows == sorted(lows, reverse=True) and len(lows) == PAGE, label
                    assert answer["total"] == people and len(answer["bots"]) == len(LEVELS)
                elif sort is not None:
                    want = expected(generator, sort)[offset : offset + PAGE]
                    assert figures_only(answer["players"]) == want, label
                    assert answer["total"] == people, label
                elif path.startswith("/api/"):
                    want_one = busiest if label == "busiest player" else rarest
                    assert figures_only([answer]) == [want_one], label
                results.append({"query": label, "path": path, **figures})
        engine.dispose()

    report = {
        "backend": backend,
        "games": args.games + args.saves,
        "seats": seats,
        "people": people,
        "fill_seconds": round(fill_seconds, 1),
        "rating_seconds": round(rating_seconds, 1),
        "repeat": args.repeat,
        "queries": results,
        "save_game": {"games": args.saves, **saving},
    }
    table = sys.stderr if args.json == "-" else sys.stdout  # `--json -`: stdout is JSON only
    print(
        f"\n{args.games + args.saves:,} games ({seats:,} seats, {people:,} people) on {backend}, "
        f"{args.games:,} filled in {fill_seconds:.0f} s and rated in {rating_seconds:.0f} s "
        f"(the recount after the saves: 0 differed); {args.repeat} calls each:\n",
        file=table,
    )
    print("| query | median ms | p95 ms | max ms |\n|---|---:|---:|---:|", file=table)
    for row in results:
        figures = f"{row['median_ms']:.1f} | {row['p95_ms']:.1f} | {row['max_ms']:.1f}"
        print(f"| {row['query']} | {figures} |", file=table)
    figures = f"{saving['median_ms']:.1f} | {saving['p95_ms']:.1f} | {saving['max_ms']:.1f}"
    print(f"| save_game, {args.saves} games one by one | {figures} |", file=table)
    if args.json == "-":
        print(json.dumps(report, indent=2))
    elif args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
