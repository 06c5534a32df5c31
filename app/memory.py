"""Hand the memory of dropped rooms back to the operating system.

A dropped room is freed by reference counting (it breaks its own cycles: `Room.close`), but
the sockets that served it leave reference cycles behind (uvicorn's protocol, transport and
parser objects), which wait for a full collection; with `app.garbage`'s thresholds that can be
a long wait. And what is freed goes back to the allocators, not to the operating system:
glibc's malloc keeps freed pages in its arenas (one per thread that allocated: the database
threads', the sync routes') and the RSS stays near its peak. So after a sweep has dropped
enough rooms, a full collection, then `malloc_trim(0)` in a worker thread (it walks the
arenas under their locks).
"""

from __future__ import annotations

import asyncio
import ctypes
import platform
from collections.abc import Callable
from functools import cache

from app import garbage

RECLAIM_EVERY_SECONDS = 20.0  # at most this often (the registry sweeps every 30 s)
SHARE_DROPPED = 0.25  # rooms dropped since the last reclaim, against the rooms still live


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


class Reclaimer:
    """After sweeps: a full collection and a heap trim once the rooms dropped since the last
    one are at least a quarter of the rooms still live (so its cost, a walk over what is
    live, is paid once per quarter turned over; and at once when all have gone), and at
    most once per `every` seconds of the caller's clock. What is put off stays owed."""

    def __init__(self, every: float = RECLAIM_EVERY_SECONDS) -> None:
        self._every = every
        self._last: float | None = None
        self._dropped = 0

    async def after_sweep(self, now: float, *, dropped: int, live: int) -> bool:
        """A sweep dropped `dropped` rooms and left `live`; whether memory was reclaimed."""
        self._dropped += dropped
        if self._dropped == 0 or self._dropped < SHARE_DROPPED * live:
            return False
        if self._last is not None and now - self._last < self._every:
            return False
        self._last, self._dropped = now, 0
        garbage.collect_everything()  # on the event loop: it holds the GIL wherever it runs
        return await asyncio.to_thread(trim_heap)
