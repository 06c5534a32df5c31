"""The one thread that writes to the database: the journal's batches and the finished games.

One thread rather than the default executor's several: the writes run one after another, in
the order they were asked for, and never wait for each other's database lock (SQLite lets one
writer in at a time) or take the GIL from each other. Reads (restores) keep the default
executor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="database-writer")


async def in_writer(write: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`write(*args, **kwargs)` in the writer thread, after every write asked for before it."""
    call = partial(write, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_WRITER, call)
