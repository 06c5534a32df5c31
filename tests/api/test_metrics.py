"""`GET /metrics`: Prometheus text that counts what PROTOCOL.md names."""

from __future__ import annotations

import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.ws.helpers import running_app, settings_for


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_count_rooms_sockets_actions_and_latency(tmp_path: Path) -> None:
    with running_app(settings_for(tmp_path)) as client:
        before = samples(client.get("/metrics").text)
        room_id = client.post("/api/rooms").json()["room_id"]
        with client.websocket_connect(f"/ws/{room_id}") as ws:
            ws.send_json({"type": "join", "name": "Ana"})
            ws.receive_json()  # welcome
            ws.receive_json()  # state
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}
            response = client.get("/metrics")
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/plain")
            during = samples(response.text)
        assert during[("perudo_rooms", (("phase", "lobby"),))] >= 1
        assert during[("perudo_open_sockets", ())] >= 1
        for kind in ("join", "ping"):
            key = ("perudo_actions_total", (("type", kind),))
            assert during[key] == before.get(key, 0) + 1
        count = ("perudo_action_seconds_count", ())
        assert during[count] == before.get(count, 0) + 2
        for name in ("perudo_journal_write_seconds", "perudo_games_finished"):
            assert re.search(rf"^# HELP {name}", response.text, re.MULTILINE)
        assert "perudo_journal_write_failures_total" in response.text
