"""The compose file and the image, read as text: the services, ports and profile are there,
the scale profile mounts the nginx config the cluster tests run, and the base images default
to the public ones (test_docker.py runs them with Docker)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_the_default_services_are_the_app_and_postgresql_on_a_named_volume() -> None:
    services = compose()["services"]
    default = {name for name, service in services.items() if "profiles" not in service}
    assert default == {"app", "db"}
    assert services["app"]["ports"] == ["8000:8000"]
    assert services["app"]["environment"]["PERUDO_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert "pgdata" in compose()["volumes"]
    assert services["app"]["depends_on"]["db"]["condition"] == "service_healthy"


def test_the_scale_profile_puts_two_instances_behind_the_tested_nginx_config() -> None:
    services = compose()["services"]
    scaled = {name for name, service in services.items() if "scale" in service.get("profiles", [])}
    assert scaled == {"app1", "app2", "nginx"}
    names = {services[name]["environment"]["PERUDO_INSTANCE"] for name in ("app1", "app2")}
    assert names == {"app1", "app2"}
    nginx = services["nginx"]
    assert nginx["ports"] == ["8080:80"]
    mounts = {volume.split(":")[0]: volume.split(":")[1] for volume in nginx["volumes"]}
    assert mounts["./deploy/nginx.conf"] == "/etc/nginx/nginx.conf"
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    for include in re.findall(r"include (\S+);", config):
        assert f"/etc/nginx/{include}" in mounts.values(), include
        assert (ROOT / "deploy" / "compose" / include).exists()
    upstreams = (ROOT / "deploy" / "compose" / "upstreams.conf").read_text()
    assert re.findall(r"server (app\d):8000", upstreams) == ["app1", "app2"]
    assert "hash $room_id consistent" in config


def test_the_image_is_built_from_wheels_runs_as_a_user_and_checks_its_health() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", dockerfile, re.MULTILINE)) == 2  # multi-stage
    assert "pip wheel" in dockerfile and "--no-index" in dockerfile
    assert "pip install -e" not in dockerfile
    assert re.search(r"^USER perudo$", dockerfile, re.MULTILINE)
    assert "HEALTHCHECK" in dockerfile and "/healthz" in dockerfile


def test_the_base_images_are_variables_that_default_to_the_public_images() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG PYTHON_IMAGE=python:3.11-slim" in dockerfile
    assert re.findall(r"^FROM (\S+)", dockerfile, re.MULTILINE) == ["${PYTHON_IMAGE}"] * 2
    services = compose()["services"]
    for app in ("app", "app1", "app2"):
        assert services[app]["build"]["args"] == {
            "PYTHON_IMAGE": "${PYTHON_IMAGE:-python:3.11-slim}"
        }
    assert services["db"]["image"] == "${POSTGRES_IMAGE:-postgres:16-alpine}"
    assert services["nginx"]["image"] == "${NGINX_IMAGE:-nginx:1.27-alpine}"
