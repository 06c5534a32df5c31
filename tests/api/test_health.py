"""`/healthz` with the database up."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_healthz_reports_the_database(http: TestClient) -> None:
    response = http.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["database"]) == ("ok", "ok")  # a server may add fields
