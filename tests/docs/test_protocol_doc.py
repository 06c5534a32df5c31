"""docs/protocol.md against the server: every message type, error code and close code the
server can send is documented, and the doc names none the server does not have (unless
PROTOCOL.md requires it, in which case the server is the one to fix: see the last tests)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest

from app.protocol import CloseCode, ErrorCode, server_message_types
from tests.blackbox.spec import ANY_CODE

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# What PROTOCOL.md (the contract shared with the browser, bots and black-box tests) requires.
REQUIRED_TYPES = frozenset(
    {"welcome", "history", "state", "round_result", "chat", "autoplayed", "error", "pong"}
)
REQUIRED_ERRORS = frozenset(ANY_CODE)  # the black-box suite's reading of PROTOCOL.md
REQUIRED_CLOSES = frozenset({1003, 1008, 1009, 1013, 4000, 4404, 4408})

HEADING = re.compile(r"^### `([^`]+)`\s*$", re.MULTILINE)
CODE_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|", re.MULTILINE)


def flatten(literal: Any) -> set[str]:
    """The values of a Literal, Literals nested in it (or in a union of them) included."""
    values: set[str] = set()
    for arg in get_args(literal):
        if isinstance(arg, str):
            values.add(arg)
        else:
            values |= flatten(arg)
    return values


def server_codes() -> dict[str, set[str]]:
    """What the server can send, by kind (close codes as text, as the doc writes them)."""
    return {
        "message types": set(server_message_types()),
        "error codes": flatten(ErrorCode),
        "close codes": {str(int(code)) for code in CloseCode},
    }


def required_codes() -> dict[str, set[str]]:
    return {
        "message types": set(REQUIRED_TYPES),
        "error codes": set(REQUIRED_ERRORS),
        "close codes": {str(code) for code in REQUIRED_CLOSES},
    }


def section(text: str, title: str) -> str:
    """The body of the `## title` section, up to the next `## ` heading."""
    match = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/protocol.md has no '## {title}' section"
    return match.group(1)


def documented(text: str) -> dict[str, list[str]]:
    """What the doc documents, by kind, in the order it appears: a `### \\`type\\`` heading per
    server message, a table row per error code and per close code."""
    return {
        "message types": HEADING.findall(text),
        "error codes": CODE_ROW.findall(section(text, "Error codes")),
        "close codes": CODE_ROW.findall(section(text, "Close codes")),
    }


def undocumented(text: str) -> dict[str, set[str]]:
    """What the server can send that the doc does not document."""
    doc = documented(text)
    return {kind: codes - set(doc[kind]) for kind, codes in server_codes().items()}


def stale(text: str, server: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """What the doc names that the server does not have and PROTOCOL.md does not require."""
    server, required = server or server_codes(), required_codes()
    return {
        kind: set(codes) - server[kind] - required[kind] for kind, codes in documented(text).items()
    }


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_doc_is_parsed(doc: str) -> None:
    """The parse finds something of each kind, each documented once."""
    for kind, codes in documented(doc).items():
        assert codes, f"no {kind} found in docs/protocol.md"
        assert len(codes) == len(set(codes)), f"{kind} documented twice: {codes}"


@pytest.mark.parametrize("kind", ["message types", "error codes", "close codes"])
def test_everything_the_server_sends_is_documented(doc: str, kind: str) -> None:
    assert undocumented(doc)[kind] == set(), f"{kind} missing from docs/protocol.md"


@pytest.mark.parametrize("kind", ["message types", "error codes", "close codes"])
def test_the_doc_names_nothing_the_server_lacks(doc: str, kind: str) -> None:
    assert stale(doc)[kind] == set(), f"docs/protocol.md names {kind} the server does not have"


@pytest.mark.parametrize("kind", ["message types", "error codes", "close codes"])
def test_what_protocol_md_requires_is_in_the_server_and_the_doc(doc: str, kind: str) -> None:
    assert required_codes()[kind] <= server_codes()[kind], f"the server lacks {kind}"
    assert required_codes()[kind] <= set(documented(doc)[kind]), f"the doc lacks {kind}"


def test_nested_literals_are_flattened() -> None:
    from typing import Literal

    inner = Literal["a", "b"]
    assert flatten(Literal[inner, "c"]) == {"a", "b", "c"}
    assert flatten(inner | Literal["d"]) == {"a", "b", "d"}
    assert {"not_your_turn", "bad_message", "rate_limited"} <= flatten(ErrorCode)


def test_the_checks_catch_a_missing_or_a_stale_entry(doc: str) -> None:
    """The checks above can fail: drop a heading and a row, add made-up ones."""
    assert "### `autoplayed`" in doc and "| `4408` |" in doc and "| `no_bid` |" in doc
    broken = (
        doc.replace("### `autoplayed`", "### Autoplayed")
        .replace("| `4408` |", "| 4408 |")
        .replace("| `no_bid` |", "| no_bid |")
    )
    assert undocumented(broken) == {
        "message types": {"autoplayed"},
        "error codes": {"no_bid"},
        "close codes": {"4408"},
    }
    errors = section(doc, "Error codes")
    closes = section(doc, "Close codes")
    padded = (
        doc.replace(errors, errors.rstrip() + "\n| `teapot` | never |\n\n")
        .replace(closes, closes.rstrip() + "\n| `4999` | never |\n\n")
        .replace("### `pong`", "### `whisper`\n\nNot a real message.\n\n### `pong`")
    )
    assert stale(padded) == {
        "message types": {"whisper"},
        "error codes": {"teapot"},
        "close codes": {"4999"},
    }
    # a server that lost codes: the doc is stale on those PROTOCOL.md does not require only
    shrunk = server_codes()
    shrunk["message types"] -= {"autoplayed"}
    shrunk["error codes"] -= {"rate_limited"}
    shrunk["close codes"] -= {"1012", "1013"}
    assert stale(doc, shrunk) == {
        "message types": set(),
        "error codes": set(),
        "close codes": {"1012"},
    }
