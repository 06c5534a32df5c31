"""The cyclic garbage collector, tuned for a process holding thousands of live rooms.

A full collection walks every tracked object: with 2,000 rooms in play and their sockets
that is hundreds of thousands, and the event loop stops for tens of milliseconds. So what
has outlived a full collection is frozen (`gc.freeze`): later collections walk only what was
made since. Frozen objects are still freed by reference counting; a reference cycle among
them waits for `collect_everything`, which `app.memory` runs once enough rooms have gone (a
dropped room breaks its own cycles, `Room.close`, and is freed at once; a closed socket may
leave one behind).
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
