"""Where the server's bots think. The heuristic levels decide in place, in a fraction of a
millisecond; the expert's search takes up to tens of milliseconds, so it runs in a process of
its own and the room waits for it without the lock: no room's event loop waits on another
room's bot (issue 25's budget), and a room's own table goes on meanwhile (a person's calza, a
chat, a socket that comes and goes).

One worker process, started with the first expert's turn: the decisions queue there, one
after another, and a busy server's expert bots take longer instead of slowing every table.
A worker that dies is replaced at the next decision; the turn it was thinking about gets the
safe move (`autoplay.checked_move`), as does a strategy that fails at any level.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.engine import Action, BotLevel, GameView, choose_action
from app.engine.headsup import use_tables
from app.paths import headsup_tables

logger = logging.getLogger(__name__)

IN_PLACE: frozenset[BotLevel] = frozenset({"easy", "normal", "hard"})
Decide = Callable[[GameView, BotLevel, random.Random], Action]

_pool: ProcessPoolExecutor | None = None
_decide: Decide = choose_action  # what the worker runs (a test swaps in a slow one)


async def decide(view: GameView, level: BotLevel, rng: random.Random) -> Action | None:
    """The move of a bot of `level` for the seat of `view`; None (logged) when its strategy
    failed. The heuristic levels decide here and now, without yielding; the expert in the
    bots' process, with a generator seeded from `rng` (a seeded room plays the same games)."""
    try:
        if level in IN_PLACE:
            return choose_action(view, level, rng)
        seeded = random.Random(rng.getrandbits(64))
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(_workers(), _decide, view, level, seeded)
        except BrokenProcessPool:
            stop()  # the next decision starts a new worker
            raise
    except Exception:
        seat = view["you"]["seat"]
        logger.exception("the bot failed for seat %s; playing the safe move", seat)
        return None


def _workers() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),  # not a fork of a threaded server
            initializer=use_tables,
            initargs=(headsup_tables,),
        )
    return _pool


def stop() -> None:
    """Let the worker go (the server stops; or it died), dropping the decisions asked for."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
