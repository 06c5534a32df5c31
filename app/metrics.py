"""Prometheus metrics (`GET /metrics`): what an operator watches, process-wide.

Counters and histograms are updated where things happen; gauges that describe every room are
computed when scraped, never on a timer.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import time
from collections import Counter as Tally
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from app.protocol import PHASES

REGISTRY = CollectorRegistry()
FAST = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

ROOMS = Gauge("perudo_rooms", "Rooms in memory, by phase", ["phase"], registry=REGISTRY)
SOCKETS = Gauge("perudo_open_sockets", "WebSocket connections open now", registry=REGISTRY)
GAMES_FINISHED = Counter("perudo_games_finished", "Games played to the end", registry=REGISTRY)


class ActionTally(Collector):
    """`perudo_actions` (client messages handled, by type) and `perudo_action_seconds` (the
    time to handle one, broadcast included), tallied in plain numbers as each message is
    handled and made into metrics when scraped: a `prometheus_client` counter and histogram
    took a lock each and a dozen calls per message, about 3 % of what a bid costs."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}  # message type -> messages handled
        self._buckets = [0] * (len(FAST) + 1)  # the last: slower than every bound
        self._seconds = 0.0

    def record(self, kind: str | None, seconds: float) -> None:
        """One message handled in `seconds`: of type `kind` (None: it did not parse)."""
        if kind is not None:
            self._counts[kind] = self._counts.get(kind, 0) + 1
        self._buckets[bisect.bisect_left(FAST, seconds)] += 1
        self._seconds += seconds

    def collect(self) -> Iterator[Metric]:
        actions = CounterMetricFamily(
            "perudo_actions", "Client messages handled, by type", labels=["type"]
        )
        for kind, count in sorted(self._counts.items()):
            actions.add_metric([kind], count)
        yield actions
        bounds = [*map(floatToGoString, FAST), "+Inf"]
        yield HistogramMetricFamily(
            "perudo_action_seconds",
            "Time to handle one client message, broadcast included",
            buckets=list(zip(bounds, itertools.accumulate(self._buckets), strict=True)),
            sum_value=self._seconds,
        )


ACTIONS = ActionTally()
REGISTRY.register(ACTIONS)
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
