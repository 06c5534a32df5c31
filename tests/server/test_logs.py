"""`PERUDO_LOG_JSON=true`: every line `perudo serve` writes is a JSON object, and room events
carry their room."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.live_server import running_server


def test_json_lines_with_room_events(tmp_path: Path) -> None:
    with running_server(tmp_path, PERUDO_LOG_JSON="true") as base:
        room_id = httpx.post(f"{base}/api/rooms", timeout=5).json()["room_id"]
    lines = [json.loads(line) for line in (tmp_path / "server.log").read_text().splitlines()]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    created = [line for line in lines if line.get("event") == "created"]
    assert [line["room"] for line in created] == [room_id]
    assert any("Uvicorn running" in line["message"] for line in lines)
