"""axe-core (the copy the axe-playwright-python package ships) run on the page a test shows."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import axe_playwright_python
from playwright.sync_api import Page

AXE_JS = Path(axe_playwright_python.__file__).with_name("axe.min.js")


@cache
def _axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def axe_violations(page: Page) -> list[str]:
    """Every rule axe-core's default set (WCAG A and AA, and its best practices) finds broken
    on `page` as it is now, one line per element: "rule-id (impact) selector: html"."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source())  # through the debugger, so the page's CSP does not apply
    results: dict[str, Any] = page.evaluate(
        "() => axe.run(document, { resultTypes: ['violations'] })"
    )
    return [
        f"{rule['id']} ({rule['impact']}) {' '.join(node['target'])}: {node['html'][:100]}"
        for rule in results["violations"]
        for node in rule["nodes"]
    ]
