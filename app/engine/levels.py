"""Every bot level's move, the one entry the server calls: the heuristic levels of `bot`, and
the expert of `expert`, which builds on them."""

from __future__ import annotations

import random

from app.engine.bot import BotLevel, heuristic_action
from app.engine.expert import expert_action
from app.engine.game import Action
from app.engine.wire import GameView


def choose_action(view: GameView, level: BotLevel, rng: random.Random) -> Action:
    """The move of a bot of `level` for the seat in `view`, which must be the seat to act.

    Raises ValueError when the view allows no action (not the seat's turn).
    """
    if level == "expert":
        return expert_action(view, rng)
    return heuristic_action(view, level, rng)
