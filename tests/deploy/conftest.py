"""Docker for real: the engine, stand-in base images, the image built from a clean clone, and
containers on the host's network (only 127.0.0.1 is addressed) over a fresh PostgreSQL
database each (the `database` fixture of the cluster tests)."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.cluster.conftest import database  # noqa: F401  (a fixture, used by the tests here)

ROOT = Path(__file__).resolve().parents[2]
STANDINS = ROOT / "tests" / "deploy" / "standin-images"
STANDIN_PREFIX = "perudo-standin/"
PYTHON_IMAGE = os.environ.get("PERUDO_TEST_PYTHON_IMAGE", f"{STANDIN_PREFIX}python:3.11-slim")
NGINX_IMAGE = os.environ.get("PERUDO_TEST_NGINX_IMAGE", f"{STANDIN_PREFIX}nginx:1.27")
IMAGE = "perudo-test:latest"
STARTUP = 60.0
# The proxy settings a build needs to reach the package index, passed on when set.
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
# Containers of the tests: no bot delay or calza window, no limit on new rooms, a player's turn
# waits for them.
TEST_ENV = {
    "PERUDO_BOT_DELAY_MS": "0",
    "PERUDO_CALZA_WINDOW_MS": "0",
    "PERUDO_ROOMS_PER_MINUTE": "0",
    "PERUDO_DISCONNECT_GRACE_SECONDS": "600",
}


def require(what: str, found: bool) -> None:
    """Skip (one line) when Docker or a tool is missing here; under CI=true that is a failure."""
    if not found:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{what} (CI=true: the Docker tests must run)")
        pytest.skip(what)


def docker(*args: str, timeout: float = 60.0, check: bool = True) -> str:
    """Run `docker args...` and return what it printed."""
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def compose_command() -> list[str]:
    """`docker compose` (v2) where it is installed, else `docker-compose` (v1)."""
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    require("docker compose is not installed", shutil.which("docker-compose") is not None)
    return ["docker-compose"]


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """A running dockerd (.ci/run starts one)."""
    require("docker is not installed", shutil.which("docker") is not None)
    running = subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    require("dockerd is not running (.ci/run installs and starts it)", running)


@pytest.fixture(scope="session")
def standins(docker_engine: None) -> None:
    """The stand-in base images, built once by tests/deploy/standin-images and then reused
    (PERUDO_TEST_PYTHON_IMAGE and PERUDO_TEST_NGINX_IMAGE name others, pulled as usual)."""
    missing = [
        tag
        for tag in (PYTHON_IMAGE, NGINX_IMAGE)
        if tag.startswith(STANDIN_PREFIX)
        and subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode
    ]
    if missing:
        require("debootstrap is not installed", shutil.which("debootstrap") is not None)
        subprocess.run([str(STANDINS)], check=True, timeout=900)


@dataclass(frozen=True)
class Image:
    tag: str
    clone: Path  # the clean clone it was built from (the compose file is read from there)


@pytest.fixture(scope="session")
def image(standins: None, tmp_path_factory: pytest.TempPathFactory) -> Image:
    """The image built by the Dockerfile from a clean clone of this repository's HEAD."""
    clone = tmp_path_factory.mktemp("clone") / "perudo"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=60)
    arguments = [f"PYTHON_IMAGE={PYTHON_IMAGE}"]
    arguments += [name for name in PROXY_VARIABLES if os.environ.get(name)]
    started = time.monotonic()
    build = subprocess.run(
        ["docker", "build", "--quiet", "--network=host", "--tag", IMAGE, str(clone)]
        + [f"--build-arg={argument}" for argument in arguments],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"DOCKER_BUILDKIT": "0"},  # the classic builder: no buildx needed
        check=False,
    )
    assert build.returncode == 0, f"the image did not build:\n{build.stdout}{build.stderr}"
    size = int(docker("image", "inspect", "--format", "{{.Size}}", IMAGE))
    print(f"image built in {time.monotonic() - started:.1f} s, {size / 1e6:.0f} MB")
    return Image(IMAGE, clone)


def wait_healthy(base: str, timeout: float = STARTUP) -> float:
    """Seconds until `base/healthz` answers 200."""
    started = time.monotonic()
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return time.monotonic() - started
        except httpx.TransportError:
            pass
        assert time.monotonic() - started < timeout, f"{base} did not answer /healthz"
        time.sleep(0.2)


def assert_clean_logs(container: str) -> None:
    logs = subprocess.run(["docker", "logs", container], capture_output=True, text=True).stderr
    assert "Traceback" not in logs, logs[-3000:]


@contextmanager
def running_container(image: Image, database_url: str, port: int) -> Iterator[str]:
    """A container of the image on the host's network, serving 127.0.0.1:`port` from
    `database_url`; yield its name, remove it afterwards."""
    name = f"perudo-test-{secrets.token_hex(4)}"
    env = TEST_ENV | {"HOST": "127.0.0.1", "PORT": str(port), "PERUDO_DATABASE_URL": database_url}
    options = [f"--env={key}={value}" for key, value in env.items()]
    docker("run", "--detach", "--network=host", f"--name={name}", *options, image.tag)
    try:
        yield name
        assert_clean_logs(name)
    finally:
        docker("rm", "--force", name, check=False)
