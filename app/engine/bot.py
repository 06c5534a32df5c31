"""Bot players: decide from a player view only, so they can never see hidden dice."""

from __future__ import annotations

import random
from typing import Literal

from app.engine.bids import Bid
from app.engine.game import Action, Calza, Dudo
from app.engine.view import GameView

BotLevel = Literal["easy", "normal", "hard"]
BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "hard")


def choose_action(view: GameView, level: BotLevel, rng: random.Random) -> Action:
    """The bot's move for the seat in `view`, which must be the seat to act.

    Placeholder strategy until the real bot lands: the minimum raise, or dudo when none.
    """
    del level, rng
    legal = view["you"]["legal"]
    for face in range(6, 0, -1):
        quantity = legal["min_quantity"][face - 1]
        if quantity is not None:
            return Bid(quantity, face)
    if legal["dudo"]:
        return Dudo()
    return Calza()
