"""Hand the memory of dropped rooms back to the operating system.

When a room is dropped its objects are freed at once, but glibc's malloc keeps freed pages in
its arenas (one per thread that allocated, `asyncio.to_thread`'s and the sync routes' among
them) instead of unmapping them, so the server's RSS stays near its peak long after the rooms
have gone. `malloc_trim(0)` gives every whole free page of every arena back. It walks the
arenas under their locks, so it runs in a worker thread, and at most every 20 seconds (the
registry sweeps every 30).
"""

from __future__ import annotations

import asyncio
import ctypes
import platform
from collections.abc import Callable
from functools import cache

TRIM_EVERY_SECONDS = 20.0


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None elsewhere (musl, macOS: nothing to trim this way)."""
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def trim_heap() -> bool:
    """Return the C heap's free pages to the operating system (blocking: call it in a thread);
    whether there was a `malloc_trim` to call."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


class HeapTrimmer:
    """Trims the C heap after rooms are dropped, at most once per `every` seconds of the
    caller's clock, in a worker thread so the event loop never waits on the arenas' locks.
    A trim put off as too soon is owed, and done at the next sweep once the time has come."""

    def __init__(self, every: float = TRIM_EVERY_SECONDS) -> None:
        self._every = every
        self._last: float | None = None
        self._owed = False

    async def after_sweep(self, now: float, *, dropped: bool) -> bool:
        """A sweep ended (`dropped`: it dropped rooms); whether the heap was trimmed."""
        self._owed = self._owed or dropped
        if not self._owed or (self._last is not None and now - self._last < self._every):
            return False
        self._last, self._owed = now, False
        return await asyncio.to_thread(trim_heap)
