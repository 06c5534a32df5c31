"""The cyclic garbage collector, tuned for a process holding thousands of live rooms.

A full collection walks every tracked object: with 2,000 rooms in play and their sockets
that is hundreds of thousands, and the event loop stops for tens of milliseconds. So what
has outlived a full collection is frozen (`gc.freeze`): later collections walk only what was
made since. Frozen objects are still freed by reference counting; only a reference cycle
among them would never be collected, which is why a dropped room breaks its own cycles
(`Room.close`) and is freed at once.
"""

from __future__ import annotations

import gc
from typing import Any

GEN0_THRESHOLD = 10_000  # allocations between young collections (Python: 700)
FULL = 2


def settle() -> None:
    """Once start-up (and any restore) has built its objects: freeze them, and collect
    young objects less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, 20, 20)


def freeze_after_full_collections() -> None:
    """From now on, freeze what survives each full collection (the server process only: a
    test process, full of short-lived cycles, is better served by the plain collector)."""
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """After a full collection, every object left is long-lived: out of the next ones' way."""
    if phase == "stop" and info["generation"] == FULL:
        gc.freeze()
