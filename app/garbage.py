"""The cyclic garbage collector, tuned for a process holding thousands of live rooms.

Python's collector stops the event loop while it walks a generation, and in this server the
young generation does not stay young: every message a socket receives replaces the objects
that wait for its next one (a coroutine chain, a future, a parser frame) and every keepalive
ping a timer, so thousands of new long-lived objects pile up while the allocation count that
should trigger a collection barely moves (a dying old object counts as much as a new one).
With 2,000 rooms and 12,000 sockets a young collection walked 50,000-70,000 objects (over
100 ms) and the middle one 100,000.

So the server (`serve_mode`) collects the young and middle generations on a clock, every
`YOUNG_EVERY_SECONDS`, and freezes (`gc.freeze`) what survives: each collection walks only
what was made in the last fraction of a second, and the old generation stays empty. Frozen
objects are still freed by reference counting; a reference cycle among them waits for
`collect_everything`, which `app.memory` runs once enough rooms have gone (a dropped room
breaks its own cycles, `Room.close`, and is freed at once; a closed socket may leave one).
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

GEN0_THRESHOLD = 10_000  # allocations between young collections (Python: 700)
# Every 0.2 s: at 500 actions/s it took 7 % less CPU than every 0.1 s (fewer objects live long
# enough to be walked), and the longest pause with 2,000 rooms stayed at 12 ms (bench/load.py).
YOUNG_EVERY_SECONDS = 0.2
FULL = 2
_server = False  # `serve_mode` was called: this process is `perudo serve`


def settle() -> None:
    """Once start-up (and any restore) has built its objects: freeze them, and collect
    young objects less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, 20, 20)


def serve_mode() -> None:
    """This process serves: freeze what survives a collection of the old generation, and let
    `collect_young_forever` run. Not in a test process, full of short-lived cycles that the
    plain collector serves better."""
    global _server
    _server = True
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)


async def collect_young_forever() -> None:
    """In the server: collect the young and middle generations on a clock and freeze the
    survivors (a few milliseconds each); elsewhere, return at once."""
    while _server:
        await asyncio.sleep(YOUNG_EVERY_SECONDS)
        gc.collect(1)
        gc.freeze()


def collect_everything() -> int:
    """A full collection that reaches the frozen objects too (a socket may leave a cycle
    behind after it was frozen); in the server, what survives is frozen again. On the event
    loop, it walks everything: for the rare moments `app.memory` picks."""
    gc.unfreeze()
    return gc.collect()


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """After a full collection, every object left is long-lived: out of the next ones' way."""
    if phase == "stop" and info["generation"] == FULL:
        gc.freeze()
