"""A WebSocket frame fuzzer against a real `perudo serve` (issue 13): frame sizes around the
4096-byte limit, encodings, invalid UTF-8, deep nesting, huge numbers, NaN, duplicate keys,
binary and malformed frames, then random frames from Hypothesis. Every frame is answered with
documented messages (an `error` with a documented code, or what a valid message earns) or the
socket is closed with a documented close code; the server keeps serving and never logs a
traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.raw_ws import BINARY, CONTINUATION, TEXT, Closed, RawSocket
from tests.live_server import running_server

pytestmark = pytest.mark.timeout(180)

DOC = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()


def documented(section: str) -> set[str]:
    """The codes in the first column of a table under `## <section>` in docs/protocol.md."""
    body = DOC.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", body, flags=re.MULTILINE))


ERROR_CODES = documented("Error codes")
CLOSE_CODES = {int(code) for code in documented("Close codes")}
SERVER_TYPES = {
    "welcome",
    "history",
    "state",
    "round_result",
    "chat",
    "autoplayed",
    "error",
    "pong",
}
LIMIT = 4096


@dataclass(frozen=True)
class Server:
    base: str
    log: Path
    opened: list[RawSocket] = field(default_factory=list)

    def room(self, **settings: object) -> str:
        response = httpx.post(f"{self.base}/api/rooms", json=settings, timeout=10)
        assert response.status_code == 201, response.text
        room_id: str = response.json()["room_id"]
        return room_id

    def socket(self, room_id: str | None = None) -> RawSocket:
        sock = RawSocket.open(self.base, room_id or self.room())
        self.opened.append(sock)
        return sock

    def close_all(self) -> None:
        while self.opened:
            self.opened.pop().close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("wsfuzz")
    with running_server(home) as base:
        yield Server(base, home / "server.log")
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
    log = (home / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture(autouse=True)
def _close_sockets(server: Server) -> Iterator[None]:
    yield
    server.close_all()


Outcome = list[dict[str, object]] | int  # the frames that answered, or the close code


def outcome(sock: RawSocket, send: Callable[[RawSocket], None]) -> Outcome:
    """Send something, then a ping: the frames up to its pong, or the close code."""
    send(sock)
    sock.send_json({"type": "ping"})
    got: list[dict[str, object]] = []
    try:
        while (message := sock.recv())["type"] != "pong":
            got.append(message)
    except Closed as closed:
        assert closed.code is not None, "closed without a close frame"
        return closed.code
    return got


def assert_documented(result: Outcome) -> None:
    if isinstance(result, int):
        assert result in CLOSE_CODES, f"closed with undocumented code {result}"
        return
    for message in result:
        assert message["type"] in SERVER_TYPES, message
        if message["type"] == "error":
            assert message["code"] in ERROR_CODES, message
            assert isinstance(message["message"], str) and message["message"]


def text(data: str | bytes) -> Callable[[RawSocket], None]:
    return lambda sock: sock.send_text(data)


def fragments(*parts: bytes) -> Callable[[RawSocket], None]:
    """One text message in several frames, split exactly at the given bytes."""

    def send(sock: RawSocket) -> None:
        for index, part in enumerate(parts):
            opcode = TEXT if index == 0 else CONTINUATION
            sock.send_frame(opcode, part, fin=index == len(parts) - 1)

    return send


def padded(size: int, filler: str = " ") -> bytes:
    """A ping of exactly `size` bytes in UTF-8: `filler` characters inside a string field."""
    head, tail = b'{"type":"ping","pad":"', b'"}'
    unit = filler.encode()
    count, rest = divmod(size - len(head) - len(tail), len(unit))
    return head + unit * count + b" " * rest + tail


def error_code(result: Outcome) -> str:
    assert isinstance(result, list) and len(result) == 1 and result[0]["type"] == "error", result
    code = result[0]["code"]
    assert isinstance(code, str)
    return code


# ----- sizes and encodings ---------------------------------------------------------------


@pytest.mark.parametrize("filler", [" ", "é", "€", "🎲"])
def test_a_frame_of_4096_bytes_is_read_and_one_more_byte_closes(
    server: Server, filler: str
) -> None:
    at_limit = padded(LIMIT, filler)
    assert len(at_limit) == LIMIT
    assert outcome(server.socket(), text(at_limit)) == []  # the ping itself: its pong came
    over = padded(LIMIT + len(filler.encode()), filler)
    assert outcome(server.socket(), text(over)) == 1009


def test_a_message_over_the_limit_in_fragments_closes(server: Server) -> None:
    whole = padded(LIMIT + 500)
    assert outcome(server.socket(), fragments(whole[:3000], whole[3000:])) == 1009


@pytest.mark.parametrize(
    "data",
    [
        b'{"type":"ping"}\xff',  # a byte that is never UTF-8
        b'{"type":"chat","text":"\xc0\xaf"}',  # an overlong encoding of "/"
        b'{"type":"chat","text":"\xed\xa0\x80"}',  # a UTF-16 surrogate, encoded
        b'{"type":"chat","text":"\xe2\x82"}',  # a character cut short
        b'{"type":"chat","text":"\xf4\x90\x80\x80"}',  # above U+10FFFF
        '{"type":"chat","text":"é"}'.encode("latin-1"),  # another encoding
        b"\x80",
    ],
)
def test_invalid_utf8_closes_with_1007(server: Server, data: bytes) -> None:
    assert outcome(server.socket(), text(data)) == 1007


def test_a_character_split_across_fragments_is_fine(server: Server) -> None:
    message = '{"type":"chat","text":"€"}'.encode()
    cut = message.index("€".encode()) + 1
    result = outcome(server.socket(), fragments(message[:cut], message[cut:]))
    assert error_code(result) == "not_joined"


@pytest.mark.parametrize(
    "data",
    [
        "\ufeff" + '{"type":"ping"}',  # a byte-order mark
        '{"type":"ping"}'.encode("utf-16-le"),  # valid UTF-8 bytes (NULs), not JSON
        '{"type":"ping"}'.encode("utf-32-le"),
        '{"type":"chat","text":"\\ud800"}',  # an escaped lone surrogate
        '{"type":"join","name":"\\u0000"}',
        "",
        " ",
        "null",
        '"ping"',
        "[]",
        '{"type":null}',
        '{"type":"ping"',
    ],
)
def test_odd_encodings_are_bad_messages(server: Server, data: str | bytes) -> None:
    assert error_code(outcome(server.socket(), text(data))) == "bad_message"


@pytest.mark.parametrize("data", [b"", b"\x00", b'{"type":"ping"}'])
def test_a_binary_frame_closes_with_1003(server: Server, data: bytes) -> None:
    assert outcome(server.socket(), lambda sock: sock.send_frame(BINARY, data)) == 1003


# ----- JSON at its edges -------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        "[" * 2048 + "]" * 2048,
        '{"a":' * 680 + "1" + "}" * 680,
        '{"type":"chat","text":' + "[" * 1500 + "]" * 1500 + "}",
        '{"type":"kick","seat":' + "9" * 4000 + "}",
        '{"type":"kick","seat":-' + "9" * 4000 + "}",
        '{"type":"kick","seat":1e400}',
        '{"type":"kick","seat":-1e400}',
        '{"type":"kick","seat":1e-400}',
        '{"type":"kick","seat":NaN}',
        '{"type":"kick","seat":Infinity}',
        '{"type":"kick","seat":-Infinity}',
        '{"type":"bid","quantity":18446744073709551617,"face":2}',
        '{"type":"bid","quantity":3,"face":2,"quantity":"3"}',
        '{"type":"ping","type":"fly"}',
        '{"type":"fly","type":"ping"}',
        '{"type":"watch","type":"watch"}',
    ],
)
def test_json_at_its_edges_is_answered(server: Server, data: str) -> None:
    """Before the hello (the parser and `not_joined`) and in a game (the room's checks)."""
    assert_documented(outcome(server.socket(), text(data)))
    sock = seated_in_a_game(server)
    assert_documented(outcome(sock, text(data)))
    assert_documented(outcome(sock, text('{"type":"chat","text":"still here"}')))


def seated_in_a_game(server: Server) -> RawSocket:
    """A socket seated in a game against a bot, its welcome and states read."""
    sock = server.socket(server.room(max_players=2))
    for message in ({"type": "join", "name": "Fuzz"}, {"type": "add_bot"}, {"type": "start"}):
        sock.send_json(message)
    sock.send_json({"type": "ping"})
    while sock.recv()["type"] != "pong":
        pass
    return sock


# ----- malformed frames ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "send"),
    [
        ("unknown opcode", lambda sock: sock.send_frame(0x3, b"{}")),
        ("reserved bits", lambda sock: sock.send_frame(TEXT, b'{"type":"ping"}', rsv=0b100)),
        ("continuation first", lambda sock: sock.send_frame(CONTINUATION, b"{}")),
        ("fragmented ping", lambda sock: sock.send_frame(0x9, b"x", fin=False)),
        ("oversized ping", lambda sock: sock.send_frame(0x9, b"x" * 200)),
        ("close code 1005", lambda sock: sock.send_frame(0x8, b"\x03\xed")),
    ],
)
def test_malformed_frames_close_the_socket(
    server: Server, name: str, send: Callable[[RawSocket], None]
) -> None:
    """Frames that break RFC 6455 itself: the socket is closed with a documented code (the
    WebSocket layer's 1002 for a protocol error), and the server serves on."""
    result = outcome(server.socket(), send)
    assert isinstance(result, int), f"{name}: {result}"
    print(f"{name}: closed with {result}")
    assert result in CLOSE_CODES, f"{name}: closed with {result}"
    assert outcome(server.socket(), text('{"type":"ping"}')) == []


# ----- random frames -------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["join", "bid", "dudo", "calza", "chat", "kick", "leave", "settings"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["join", "resume", "watch", "bid", "dudo", "calza", "chat", "kick",
                              "settings", "add_bot", "start", "leave", "rematch", "ping", "x"])},
    optional={key: json_values for key in ("name", "token", "quantity", "face", "seat", "text",
                                           "level", "max_players", "turn_seconds", "calza")},
)  # fmt: skip
frames = st.one_of(
    messages.map(lambda m: json.dumps(m, allow_nan=True)),
    json_values.map(lambda v: json.dumps(v, allow_nan=True)),
    st.text(max_size=60),
    st.binary(max_size=60),
)


@settings(
    max_examples=80,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(frame=frames, in_game=st.booleans())
def test_random_frames_are_answered_or_closed_as_documented(
    server: Server, frame: str | bytes, in_game: bool
) -> None:
    sock = seated_in_a_game(server) if in_game else server.socket()
    try:
        assert_documented(outcome(sock, text(frame)))
    finally:
        server.close_all()
