"""A bot strategy that thinks a long while, for `app.rooms.thinking`'s worker process (it
imports this module by name, so the strategy cannot live in a test function)."""

from __future__ import annotations

import os
import random
import time

from app.engine import Action, BotLevel, GameView, choose_action

THINKING_SECONDS = 0.4


def slow_choice(view: GameView, level: BotLevel, rng: random.Random) -> Action:
    """`choose_action`, after a pause that would stall an event loop it ran on."""
    time.sleep(THINKING_SECONDS)
    return choose_action(view, level, rng)


def worker_pid(view: GameView, level: BotLevel, rng: random.Random) -> Action:
    """`choose_action`, noting the process it ran in (in `PERUDO_TEST_PID_FILE`)."""
    with open(os.environ["PERUDO_TEST_PID_FILE"], "a") as out:
        out.write(f"{os.getpid()}\n")
    return choose_action(view, level, rng)
