"""The image and the compose file run with Docker for real: a game is played through a container,
survives `docker stop` and a new container, and the compose `scale` profile plays on through
nginx when one of its two app containers is killed. Stand-in base images (Debian's packages)
take the place of the public ones, which are not reachable here."""

from __future__ import annotations

import os
import random
import secrets
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml
from alembic.config import Config
from alembic.script import ScriptDirectory

from tests.cluster.test_cluster import Player, finish, holder, new_table, play, progress
from tests.deploy.conftest import (
    NGINX_IMAGE,
    PYTHON_IMAGE,
    ROOT,
    TEST_ENV,
    Image,
    compose_command,
    docker,
    running_container,
    wait_healthy,
)
from tests.live_server import free_port

# The first run on a machine also builds the stand-in base images (about 5 minutes).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
STOP_SECONDS = 10.0  # Docker's grace before it kills the process
HEALTH_TIMEOUT = 45.0  # the image checks every 15 s
APPS = ("app1", "app2")


def seen(players: list[Player]) -> list[tuple[object, ...]]:
    """What each player holds of the game: seat, where it stands, the bids and the dice."""
    return [
        (p.seat, progress(p.state), p.state["round"]["bids"], p.state["you"]["dice"])
        for p in players
    ]


def health(container: str) -> str:
    return docker("inspect", "--format", "{{.State.Health.Status}}", container)


def migrated_to(database_url: str) -> str:
    """The database's Alembic revision."""
    with psycopg.connect(database_url.replace("+psycopg", "")) as connection:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert row is not None
    return str(row[0])


def head_revision() -> str:
    head = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_current_head()
    assert head is not None
    return head


def test_a_container_migrates_serves_a_game_stops_in_time_and_the_next_one_resumes_it(
    image: Image, database: str
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(22)
    with running_container(image, database, port) as first:
        started = time.monotonic()
        print(f"the container answered /healthz after {wait_healthy(base):.1f} s")
        assert migrated_to(database) == head_revision()  # the empty database, migrated
        assert docker("exec", first, "id", "-u") != "0"
        assert docker("inspect", "--format", "{{.Config.User}}", first) == "perudo"
        room_id, players = new_table(base, 3)
        play(players, 6, rng)
        before = seen(players)
        while health(first) != "healthy":
            assert health(first) == "starting", docker("inspect", first)
            assert time.monotonic() - started < HEALTH_TIMEOUT, "the health check never passed"
            time.sleep(0.5)
        print(f"Docker called it healthy after {time.monotonic() - started:.1f} s")
        stopping = time.monotonic()
        docker("stop", first, timeout=30)
        stopped = time.monotonic() - stopping
        assert docker("inspect", "--format", "{{.State.ExitCode}}", first) == "0"
        print(f"docker stop took {stopped:.1f} s")
        assert stopped < STOP_SECONDS
    with running_container(image, database, port):
        wait_healthy(base)
        for player in players:
            player.resume()
        assert seen(players) == before  # a clean stop loses nothing, not even the last bid
        final = finish(base, players, rng)
        assert final["room_id"] == room_id
        for player in players:
            player.close()


def on_this_host(service: dict[str, Any]) -> None:
    """A resolved compose service changed to run on the host's network and to stay down when
    killed (a test's container must not come back by itself)."""
    service.pop("ports", None)
    service.pop("networks", None)
    service["network_mode"] = "host"
    service["restart"] = "no"


def mount_target(volume: str | dict[str, Any]) -> str:
    """Where a volume of a resolved compose service is mounted (short or long syntax)."""
    return str(volume["target"]) if isinstance(volume, dict) else volume.split(":")[1]


@dataclass(frozen=True)
class Scaled:
    base: str  # nginx
    compose: Callable[..., str]  # `docker compose ... args` on the project


@pytest.fixture
def scaled(image: Image, database: str, tmp_path: Path) -> Iterator[Scaled]:
    """The compose `scale` profile as compose resolves it, changed only to run on the host's
    network: app1, app2 and nginx on free ports, the machine's PostgreSQL in place of the
    `db` service; everything is taken down afterwards."""
    ports = {"app1": free_port(), "app2": free_port(), "nginx": free_port()}
    (tmp_path / "upstreams.conf").write_text(
        "".join(f"server 127.0.0.1:{ports[app]} max_fails=1 fail_timeout=2s;\n" for app in APPS)
    )
    (tmp_path / "listen.conf").write_text(f"listen 127.0.0.1:{ports['nginx']};\n")
    environment = os.environ | {"PYTHON_IMAGE": PYTHON_IMAGE, "NGINX_IMAGE": NGINX_IMAGE}
    project = ["--project-name", f"perudo-test-{secrets.token_hex(4)}", "--profile", "scale"]

    def compose(file: Path, *args: str) -> str:
        command = [*compose_command(), f"--file={file}", *project, *args]
        done = subprocess.run(
            command, capture_output=True, text=True, env=environment, timeout=120, check=False
        )
        assert done.returncode == 0, f"compose {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done.stdout.strip()

    resolved = yaml.safe_load(compose(image.clone / "docker-compose.yml", "config"))
    services = resolved["services"]
    for app in APPS:
        on_this_host(services[app])
        services[app]["image"] = image.tag
        services[app]["environment"] |= TEST_ENV | {
            "HOST": "127.0.0.1",
            "PORT": str(ports[app]),
            "PERUDO_DATABASE_URL": database,
        }
    on_this_host(services["nginx"])
    services["nginx"]["volumes"] = [
        *(v for v in services["nginx"]["volumes"] if mount_target(v) == "/etc/nginx/nginx.conf"),
        *(f"{tmp_path / name}:/etc/nginx/{name}:ro" for name in ("upstreams.conf", "listen.conf")),
    ]
    assert len(services["nginx"]["volumes"]) == 3
    test_file = tmp_path / "docker-compose.test.yml"
    test_file.write_text(yaml.safe_dump(resolved))
    try:
        compose(test_file, "up", "--detach", "--no-build", "--no-deps", *APPS, "nginx")
        for app in APPS:
            wait_healthy(f"http://127.0.0.1:{ports[app]}")
        yield Scaled(f"http://127.0.0.1:{ports['nginx']}", partial(compose, test_file))
        logs = compose(test_file, "logs", "--no-color")
        assert "Traceback" not in logs, logs[-3000:]
    finally:
        compose(test_file, "down", "--volumes", "--remove-orphans", "--timeout", "5")


def test_the_scale_profile_plays_on_through_nginx_when_an_app_container_is_killed(
    scaled: Scaled,
) -> None:
    rng = random.Random(8)
    wait_healthy(scaled.base)
    room_id, players = new_table(scaled.base, 3)
    play(players, 4, rng)
    owner = holder(scaled.base, room_id)
    assert owner in APPS  # PERUDO_INSTANCE from the compose file
    before = seen(players)
    time.sleep(1.5)  # a crash may lose the last second of play, never what came before
    killed_at = time.monotonic()
    docker("kill", scaled.compose("ps", "--quiet", owner))
    for player in players:
        player.resume()
    assert holder(scaled.base, room_id) == next(app for app in APPS if app != owner)
    print(f"the room was back through nginx {time.monotonic() - killed_at:.1f} s after the kill")
    after = seen(players)
    for (seat, where, bids, dice), (seat_then, where_then, bids_then, dice_then) in zip(
        after, before, strict=True
    ):
        assert (seat, where[:2], dice) == (seat_then, where_then[:2], dice_then)
        assert bids == bids_then  # nothing was played in the last second before the kill
    finish(scaled.base, players, rng)
    for player in players:
        player.close()


def test_compose_config_validates_the_default_and_the_scale_profile() -> None:
    compose = [
        *compose_command(),
        "--project-directory",
        str(ROOT),
        "-f",
        str(ROOT / "docker-compose.yml"),
    ]
    for profile in ([], ["--profile", "scale"]):
        done = subprocess.run(
            [*compose, *profile, "config", "--quiet"], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
