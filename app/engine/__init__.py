"""The pure rules engine: no I/O, no asyncio, no web or database imports.

Public surface: `Bid`, `Dudo`, `Calza`, `Game`, `GameSettings`, `RuleError` and
`player_view`. Randomness is injected as a `random.Random` (production: `secrets.SystemRandom`).
"""

from app.engine.bids import Bid
from app.engine.game import (
    Action,
    BidMade,
    Calza,
    Dudo,
    Event,
    Game,
    GameEnded,
    GameSettings,
    RoundEnded,
    RoundStarted,
    RuleError,
)
from app.engine.view import GameView, no_legal, player_view, table_view, you_view

__all__ = [
    "Action",
    "Bid",
    "BidMade",
    "Calza",
    "Dudo",
    "Event",
    "Game",
    "GameEnded",
    "GameSettings",
    "GameView",
    "RoundEnded",
    "RoundStarted",
    "RuleError",
    "no_legal",
    "player_view",
    "table_view",
    "you_view",
]
