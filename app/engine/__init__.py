"""The pure rules engine: no I/O, no asyncio, no web or database imports.

Public surface: the rules (`Bid`, `Dudo`, `Calza`, `Game`, `GameSettings`, `RuleError`), the
views that are the only way state leaves the engine (`player_view` and the TypedDicts of
`app.engine.wire`), the odds helper, the bots, and the vocabularies the wire shares with the
engine (`BotLevel`, `CalzaRule`, `RuleCode`, with their values as tuples). Randomness is
injected as a `random.Random` (production: `secrets.SystemRandom`).
"""

from app.engine.bids import Bid
from app.engine.bot import BOT_LEVELS, BotLevel, maybe_calza
from app.engine.game import (
    CALZA_RULES,
    RULE_CODES,
    Action,
    BidMade,
    Calza,
    CalzaRule,
    Dudo,
    Event,
    Game,
    GameEnded,
    GameSettings,
    Options,
    PlacedBid,
    RoundEnded,
    RoundResult,
    RoundStarted,
    RuleCode,
    RuleError,
)
from app.engine.levels import choose_action
from app.engine.odds import chance_holds, odds_view
from app.engine.snapshot import (
    game_from_dict,
    game_to_dict,
    strict_bool,
    strict_int,
    strict_optional_int,
)
from app.engine.view import lobby_you, no_legal, player_view, table_view, you_view
from app.engine.wire import (
    BidView,
    GamePhase,
    GameView,
    LegalView,
    OddsView,
    PlayerPublic,
    RevealView,
    RollView,
    RoundRecordView,
    RoundResultView,
    RoundView,
    TableView,
    YouView,
)

__all__ = [
    "BOT_LEVELS",
    "CALZA_RULES",
    "RULE_CODES",
    "Action",
    "Bid",
    "BidMade",
    "BidView",
    "BotLevel",
    "Calza",
    "CalzaRule",
    "Dudo",
    "Event",
    "Game",
    "GameEnded",
    "GamePhase",
    "GameSettings",
    "GameView",
    "LegalView",
    "OddsView",
    "Options",
    "PlacedBid",
    "PlayerPublic",
    "RevealView",
    "RollView",
    "RoundEnded",
    "RoundRecordView",
    "RoundResult",
    "RoundResultView",
    "RoundStarted",
    "RoundView",
    "RuleCode",
    "RuleError",
    "TableView",
    "YouView",
    "chance_holds",
    "choose_action",
    "game_from_dict",
    "game_to_dict",
    "lobby_you",
    "maybe_calza",
    "no_legal",
    "odds_view",
    "player_view",
    "strict_bool",
    "strict_int",
    "strict_optional_int",
    "table_view",
    "you_view",
]
