"""Prometheus metrics (`GET /metrics`): what an operator watches, process-wide.

Counters and histograms are updated where things happen; gauges that describe every room are
computed when scraped, never on a timer.
"""

from __future__ import annotations

import functools
import gc
import time
from collections import Counter as Tally
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from app.protocol import PHASES

REGISTRY = CollectorRegistry()
FAST = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

ROOMS = Gauge("perudo_rooms", "Rooms in memory, by phase", ["phase"], registry=REGISTRY)
SOCKETS = Gauge("perudo_open_sockets", "WebSocket connections open now", registry=REGISTRY)
GAMES_FINISHED = Counter("perudo_games_finished", "Games played to the end", registry=REGISTRY)
ACTIONS = Counter("perudo_actions", "Client messages handled, by type", ["type"], registry=REGISTRY)
ACTION_SECONDS = Histogram(
    "perudo_action_seconds",
    "Time to handle one client message, broadcast included",
    buckets=FAST,
    registry=REGISTRY,
)
JOURNAL_WRITE_SECONDS = Histogram(
    "perudo_journal_write_seconds",
    "Time to commit one batch of the live-room journal",
    buckets=FAST,
    registry=REGISTRY,
)
JOURNAL_FAILURES = Counter(
    "perudo_journal_write_failures", "Journal batches that could not be written", registry=REGISTRY
)
GC_PAUSE_SECONDS = Histogram(
    "perudo_gc_pause_seconds",
    "Garbage-collection pauses, by generation",
    ["generation"],
    buckets=FAST,
    registry=REGISTRY,
)


@functools.cache
def action_counter(kind: str) -> Counter:
    """`ACTIONS` for one message type, looked up once (a client can only send known types)."""
    return ACTIONS.labels(kind)


def count_rooms(phases: Iterable[str]) -> None:
    """Set the rooms gauge from the phases of every room (at scrape time)."""
    tally = Tally(phases)
    for phase in PHASES:
        ROOMS.labels(phase).set(tally[phase])


def exposition() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


class GcPauses:
    """Times every garbage collection through `gc.callbacks` (installed once per process)."""

    _started = 0.0
    _installed = False

    @classmethod
    def install(cls) -> None:
        if not cls._installed:
            gc.callbacks.append(cls._on_gc)
            cls._installed = True

    @classmethod
    def _on_gc(cls, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            cls._started = time.perf_counter()
        else:
            pause = time.perf_counter() - cls._started
            GC_PAUSE_SECONDS.labels(str(info["generation"])).observe(pause)
