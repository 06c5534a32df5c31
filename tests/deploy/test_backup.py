"""The README's backup, run for real without Docker: `pg_dump` of a server's PostgreSQL
database while games are played, restored with `psql` into an empty database; a server on the
restored database lists the same finished games and resumes the live rooms."""

from __future__ import annotations

import random
import re
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.cluster.test_cluster import Player, finish, new_table, play, progress
from tests.deploy.conftest import ROOT
from tests.live_server import running_server

pytestmark = pytest.mark.slow
PG = "-h 127.0.0.1 -U postgres"  # the machine's PostgreSQL in place of the compose `db` service
ENV = {"PERUDO_DISCONNECT_GRACE_SECONDS": "600"}  # no bot takes a seat while players move over
MOVE_PAUSE = 0.15  # the busy table's pace: its game outlasts the dump by far


def readme_command(program: str) -> str:
    """The README's backup or restore line that runs `program` in the `db` container."""
    commands = re.findall(
        r"`([^`]*docker compose exec -T db [^`]*)`", (ROOT / "README.md").read_text()
    )
    found = [c for c in commands if f"exec -T db {program} " in c]
    assert len(found) == 1, commands
    return found[0]


def on_this_machine(command: str, database: str) -> str:
    """The README's line, run on this machine's PostgreSQL with `database` for `perudo`."""
    command = command.replace("docker compose exec -T db ", "").replace("DATE", "*")
    assert "-U perudo perudo" in command, command
    return command.replace("-U perudo perudo", f"{PG} {database}")


def shell(command: str, cwd: Path) -> None:
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout}{done.stderr}"


def moved(player: Player, base: str, room_id: str, last_round: int) -> Player:
    """The same person (token, seat) at another server, who remembers their dice up to
    `last_round` (a round dealt after the dump is dealt again on the restored server)."""
    there = Player(base, room_id)
    there.token, there.seat = player.token, player.seat
    there.dice = {number: dice for number, dice in player.dice.items() if number <= last_round}
    return there


def where(players: list[Player]) -> list[tuple[object, ...]]:
    return [(p.seat, progress(p.state), p.state["round"]["bids"]) for p in players]


def test_the_readme_dump_taken_while_games_run_restores_into_an_empty_database(
    database: str, tmp_path: Path
) -> None:
    source = database.rsplit("/", 1)[1]
    restored = f"{source}_restored"
    rng = random.Random(5)
    (tmp_path / "live").mkdir()
    (tmp_path / "restored").mkdir()
    with running_server(tmp_path / "live", PERUDO_DATABASE_URL=database, **ENV) as live:
        _, done = new_table(live, 2)
        finish(live, done, rng)
        quiet_id, quiet = new_table(live, 3)
        play(quiet, 5, rng)
        busy_id, busy = new_table(live, 4)
        stop = threading.Event()

        def keep_playing() -> None:
            while not stop.is_set() and busy[0].state["phase"] == "playing":
                play(busy, 1, rng)
                time.sleep(MOVE_PAUSE)

        with ThreadPoolExecutor(1) as pool:
            playing = pool.submit(keep_playing)
            time.sleep(1.0)  # the quiet table's moves are long in the journal
            floor = progress(busy[0].state)  # the journal is at most 0.1 s behind
            time.sleep(0.5)
            shell(on_this_machine(readme_command("pg_dump"), source), tmp_path)
            ceiling = progress(busy[0].state)
            stop.set()
            playing.result()
        assert floor[0] == ceiling[0] == "playing", "the busy game ran through the dump"
        games = httpx.get(f"{live}/api/games", timeout=5).json()
        quiet_then = where(quiet)
        quiet_round = progress(quiet[0].state)[1]
        for player in [*done, *quiet, *busy]:
            player.close()

    try:
        shell(f"createdb {PG} {restored}", tmp_path)  # the new `db` service's empty database
        shell(on_this_machine(readme_command("psql"), restored), tmp_path)
        url = database.replace(f"/{source}", f"/{restored}")
        with running_server(tmp_path / "restored", PERUDO_DATABASE_URL=url, **ENV) as back:
            assert httpx.get(f"{back}/api/games", timeout=5).json() == games
            quiet_back = [moved(p, back, quiet_id, quiet_round) for p in quiet]
            busy_back = [moved(p, back, busy_id, floor[1]) for p in busy]
            for player in [*quiet_back, *busy_back]:
                player.resume()  # a seat's dice of a round never change (Player checks)
            assert where(quiet_back) == quiet_then
            for there, then in zip(busy_back, busy, strict=True):
                assert floor <= progress(there.state) <= ceiling
                assert there.state["you"]["dice"] == then.dice[there.state["round"]["number"]]
            for players in (quiet_back, busy_back):
                finish(back, players, rng)
                for player in players:
                    player.close()
            assert len(httpx.get(f"{back}/api/games", timeout=5).json()["games"]) == 3
    finally:
        subprocess.run(["dropdb", *PG.split(), "--if-exists", "--force", restored], check=False)
