"""Time for rooms, injected: the real asyncio clock, or a manual one tests move by hand."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

Callback = Callable[[], Awaitable[None]]


class Timer(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """Wall-clock time in unix seconds, and coroutine callbacks at a given time."""

    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callback) -> Timer: ...


class AsyncioScheduler:
    """The production scheduler: `time.time()` and the running event loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callback) -> Timer:
        loop = asyncio.get_running_loop()
        return loop.call_later(max(0.0, when - time.time()), self._spawn, callback)

    def _spawn(self, callback: Callback) -> None:
        task = asyncio.ensure_future(callback())
        self._tasks.add(task)  # keep a reference until it is done
        task.add_done_callback(self._tasks.discard)


@dataclass(order=True)
class _ManualTimer:
    when: float
    order: int
    callback: Callback = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class ManualScheduler:
    """A clock that only moves when told: timers fire inside `advance`, in time order.

    Lets tests drive turn timers, grace periods and bot turns without sleeping.
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._timers: list[_ManualTimer] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callback) -> Timer:
        timer = _ManualTimer(when, next(self._order), callback)
        heapq.heappush(self._timers, timer)
        return timer

    def pending(self) -> list[float]:
        """When the live timers will fire, earliest first."""
        return sorted(timer.when for timer in self._timers if not timer.cancelled)

    async def advance(self, seconds: float) -> None:
        """Move the clock forward, running every timer that falls due on the way."""
        target = self._now + seconds
        while self._timers and self._timers[0].when <= target:
            timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._now = max(self._now, timer.when)
            await timer.callback()
        self._now = target
