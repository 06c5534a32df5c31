"""schemathesis over the OpenAPI schema of a real `perudo serve` (issue 13): whatever the
inputs, valid or not, no answer is a 500, and every answer matches the schema the server
publishes (status codes, content types, bodies).

Bounded: a few dozen examples per operation and mode, so the whole run stays well under a
minute. The operations are read off the app's own schema, so a new route is fuzzed without a
change here. The server holds one finished game and one room, so the answers with a body are
checked too, not only the 404s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode
from schemathesis.specs.openapi.checks import status_code_conformance
from schemathesis.specs.openapi.schemas import OpenApiSchema
from websockets.sync.client import connect

from app.config import Settings
from app.main import create_app
from tests.live_server import running_server

pytestmark = pytest.mark.timeout(120)
EXAMPLES = 25  # per operation and mode
# Answers the server gives rightly but its OpenAPI schema does not list yet (reported on
# issue 13: the route should declare them in `responses=`); every other check still applies.
UNDOCUMENTED = {("POST", "/api/rooms"): {400}}  # a body that is not JSON at all
OPERATIONS = sorted(
    (method.upper(), path)
    for path, methods in create_app(Settings(migrate_on_start=False)).openapi()["paths"].items()
    for method in methods
)


@dataclass(frozen=True)
class Target:
    schema: OpenApiSchema
    known: dict[str, str]  # path parameter -> an id the server holds


def finished_game(base: str) -> tuple[str, str]:
    """A room where a person started a game against a bot and left it to the bot; the room's
    id and the saved game's."""
    room_id = httpx.post(f"{base}/api/rooms", json={"max_players": 2}, timeout=10).json()["room_id"]
    url = base.replace("http://", "ws://") + f"/ws/{room_id}"
    with connect(url, proxy=None, open_timeout=10) as ws:
        for message in ({"type": "join", "name": "Ana"}, {"type": "add_bot"}, {"type": "start"}):
            ws.send(json.dumps(message))
        ws.send(json.dumps({"type": "leave"}))
        while True:
            frame = json.loads(ws.recv(timeout=20))
            if frame["type"] == "state" and frame["game_id"] is not None:
                return room_id, frame["game_id"]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    home = tmp_path_factory.mktemp("openapi")
    with running_server(home) as base:
        room_id, game_id = finished_game(base)
        schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
        yield Target(schema, {"room_id": room_id, "game_id": game_id})
    log = (home / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


def integral_float(value: Any) -> bool:
    """A float such as `491.0` anywhere in `value`: JSON Schema's `integer` admits it, the
    protocol does not (types are strict), so the server's 422 for it is right."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(integral_float(item) for item in value.values())
    if isinstance(value, list):
        return any(integral_float(item) for item in value)
    return False


def cases(target: Target, method: str, path: str) -> st.SearchStrategy[Case]:
    """Valid and invalid requests to one operation, and valid ones on the ids the server holds."""
    operation = target.schema[path][method]
    strategies = [operation.as_strategy(GenerationMode.POSITIVE)]
    if operation.path_parameters or operation.query or operation.body:
        strategies.append(operation.as_strategy(GenerationMode.NEGATIVE))
    known = {name: value for name, value in target.known.items() if "{" + name + "}" in path}
    if known:
        strategies.append(operation.as_strategy(path_parameters=known))
    return st.one_of(strategies)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_the_api_holds_to_its_schema(target: Target, method: str, path: str) -> None:
    statuses: list[int] = []

    @given(case=cases(target, method, path))
    @settings(
        max_examples=EXAMPLES * 2,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Case) -> None:
        assume(not integral_float(case.body))
        response = case.call(timeout=30)
        known = response.status_code in UNDOCUMENTED.get((method, path), set())
        case.validate_response(response, excluded_checks=[status_code_conformance] if known else [])
        statuses.append(response.status_code)

    check()
    assert statuses and all(status < 500 for status in statuses)
    print(f"{method} {path}: {len(statuses)} calls, statuses {sorted(set(statuses))}")


def test_every_operation_is_fuzzed() -> None:
    assert ("POST", "/api/rooms") in OPERATIONS and ("GET", "/api/games/{game_id}") in OPERATIONS
