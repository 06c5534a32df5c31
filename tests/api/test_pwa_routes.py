"""The routes that make the site installable: the worker at the root, the page it saves for
offline use, and the manifest every page links."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from app.paths import STATIC_DIR


def test_the_worker_is_served_from_the_root_under_its_own_policy(http: TestClient) -> None:
    answer = http.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"  # an updated worker is seen at once
    # The worker only fetches from this server: nothing else may run or load in it.
    assert answer.headers["content-security-policy"].startswith(
        "default-src 'none'; connect-src 'self'"
    )
    assert answer.text == (STATIC_DIR / "sw.js").read_text(encoding="utf-8")


def test_the_offline_page_speaks_the_visitors_language(http: TestClient) -> None:
    answer = http.get("/offline", headers={"Accept-Language": "hu"})
    assert answer.status_code == 200
    assert "<h1>Nincs kapcsolat</h1>" in answer.text


def test_every_page_links_the_manifest_and_registers_the_worker(http: TestClient) -> None:
    for path in ("/", "/games", "/rules", "/offline", "/games/any", "/r/abcdefghjk"):
        page = http.get(path).text
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page, path
        assert '<script type="module" src="/static/js/pwa.js"></script>' in page, path
    manifest = http.get("/static/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    assert json.loads(manifest.text)["display"] == "standalone"
