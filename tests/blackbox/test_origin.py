"""PROTOCOL.md's Origin rule: foreign pages get HTTP 403; the own origin, listed origins and
clients without an Origin (bots, scripts) are let in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus

from tests.blackbox.conftest import FRIENDS
from tests.blackbox.wire import Server
from tests.live_server import running_server


def refused_with(server: Server, origin: str) -> int:
    room_id = server.new_room()
    with pytest.raises(InvalidStatus) as refused:
        server.open(room_id, origin=origin)
    return refused.value.response.status_code


def admitted(server: Server, **kwargs: str) -> None:
    room_id = server.new_room()
    client = server.client(room_id, **kwargs)
    assert client.hello(type="join", name="Ann")["seat"] == 0


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "null",
        "http://127.0.0.1:1",
        "https://friends.example.evil.example",
        "http://friends.example",
        "https://friends.example:8443",
    ],
)
def test_foreign_origin_is_403(server: Server, origin: str) -> None:
    assert refused_with(server, origin) == 403


def test_no_origin_is_admitted(server: Server) -> None:
    admitted(server)


def test_own_origin_is_admitted(server: Server) -> None:
    admitted(server, origin=server.http)


def test_own_origin_by_another_host_name_is_admitted(server: Server) -> None:
    """The server's own origin is whatever host the page and the socket were reached by."""
    local = Server(server.http.replace("127.0.0.1", "localhost"), server.log)
    room_id = server.new_room()
    client = local.client(room_id, origin=local.http)
    assert client.hello(type="join", name="Ann")["seat"] == 0
    client.close()


def test_listed_origin_is_admitted(server: Server) -> None:
    admitted(server, origin=FRIENDS)


@pytest.fixture(scope="module")
def listing_two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home: Path = tmp_path_factory.mktemp("origins")
    origins = "https://a.example, https://b.example"
    with running_server(home, PERUDO_ALLOWED_ORIGINS=origins) as base:
        yield Server(base, home / "server.log")


def test_allowed_origins_is_a_comma_separated_list_spaces_allowed(listing_two: Server) -> None:
    admitted(listing_two, origin="https://a.example")
    admitted(listing_two, origin="https://b.example")
    admitted(listing_two, origin=listing_two.http)
    assert refused_with(listing_two, FRIENDS) == 403
    listing_two.close_all()
