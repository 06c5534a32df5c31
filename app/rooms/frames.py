"""What a room's frames say: each connection's `state`, and the frames every connection
shares (`audience` delivers them).

`state_frames` is the one place the room's game reaches a connection: the public part comes
from the engine's `table_view` and is encoded once per broadcast; only `you` (the engine's
`you_view`, the one door for hidden dice) is encoded per seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import orjson

from app.engine import Bid, Dudo, Game
from app.engine.game import Action, Options, RoundResult
from app.engine.view import PlayerPublic, lobby_you, table_view, you_view
from app.protocol import (
    AutoplayedMessage,
    AutoplayReason,
    BidAction,
    CallAction,
    Phase,
    PlayerEntry,
    RoomInfo,
    RoomSettings,
    StatePublic,
    WelcomeMessage,
    encode,
)
from app.rooms.ports import Connection
from app.rooms.seats import Seat, Seats


class Shown(Protocol):
    """What a room shows of itself (`Room`, which this module never imports)."""

    room_id: str
    seq: int

    @property
    def phase(self) -> Phase: ...

    @property
    def settings(self) -> RoomSettings: ...

    @property
    def host(self) -> int | None: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def game(self) -> Game | None: ...

    @property
    def game_id(self) -> str | None: ...

    @property
    def started_at(self) -> str: ...


def room_info(room: Shown) -> RoomInfo:
    """`GET /api/rooms/{room_id}`: no dice, no tokens."""
    return {
        "room_id": room.room_id,
        "phase": room.phase,
        "players": [{"seat": s.number, "name": s.name, "bot": s.bot} for s in room.seats],
        "settings": room.settings.view,
    }


class YouJson:
    """Each viewer's `you` as JSON, kept while it repeats. In a round a seat's dice stay the
    same, and a seat that is not to act may only call calza or nothing (`Options` singletons),
    so most `you`s are the same from one `state` to the next."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[int | None, tuple[object, Options, str]] = {}

    def of(self, game: Game, seat: int | None, *, odds: bool) -> str:
        """`you_view(game, seat)`, encoded (afresh with `odds`: they change with every bid)."""
        options = game.options(seat)
        if odds:
            return orjson.dumps(you_view(game, seat, odds=True, options=options)).decode()
        round_ = game.round
        dice = None if round_ is None or seat is None else round_.dice.get(seat)
        known = self._known.get(seat)
        if known is not None and known[0] is dice and known[1] is options:
            return known[2]  # the same dice (the very tuple) and the same options object
        you = orjson.dumps(you_view(game, seat, options=options)).decode()
        self._known[seat] = (dice, options, you)
        return you


class ResultJson:
    """A room's last round result as JSON, encoded once for the many states that show it."""

    __slots__ = ("_json", "_result")

    def __init__(self) -> None:
        self._result: RoundResult | None = None
        self._json: orjson.Fragment | None = None

    def of(self, result: RoundResult | None) -> orjson.Fragment | None:
        if result is not self._result:
            self._result = result
            self._json = None if result is None else orjson.Fragment(orjson.dumps(result.to_dict()))
        return self._json


def state_frames(
    room: Shown,
    *,
    turn_deadline: float | None,
    now: float,
    viewers: Mapping[Connection, int | None],
    result_json: ResultJson,
    you_json: YouJson,
) -> dict[Connection, str]:
    """The `state` for every connection in `viewers` (connection -> its seat or None);
    `result_json` and `you_json` are the room's own."""
    game, settings = room.game, room.settings
    table = table_view(game, last_result=False) if game is not None else None
    in_game: dict[int, PlayerPublic] = {}
    if table is not None:
        in_game = {player["seat"]: player for player in table["players"]}
        if table["round"] is not None:
            table["round"]["turn_deadline"] = turn_deadline
    players: list[PlayerEntry] = []
    for seat in room.seats:
        public = in_game.get(seat.number) or _lobby_player(seat.number)
        bot = seat.bot
        players.append(
            {
                **public,
                "name": seat.name,
                "connected": bot or seat.conn is not None,
                "bot": bot,
                "autoplay": seat.autoplay,
                "level": seat.level,
            }
        )
    state: StatePublic = {
        "type": "state",
        "seq": room.seq,
        "room_id": room.room_id,
        "phase": room.phase,
        "settings": settings.view,
        "host": room.host,
        "players": players,
        "round": table["round"] if table else None,
        # the RoundResultView, already encoded: orjson writes a Fragment as it stands
        "last_result": result_json.of(game.last_result) if game else None,  # type: ignore[typeddict-item]
        "winner": table["winner"] if table else None,
        "game_id": room.game_id,
        "server_time": now,
        "spectators": list(viewers.values()).count(None),
    }
    head = orjson.dumps(state)[:-1].decode() + ',"you":'
    yous: dict[int | None, str] = {}
    frames: dict[Connection, str] = {}
    for conn, seat_number in viewers.items():
        you = yous.get(seat_number)
        if you is None:
            you = yous[seat_number] = (
                you_json.of(game, seat_number, odds=settings.odds)
                if game is not None
                else orjson.dumps(lobby_you(seat_number)).decode()
            )
        frames[conn] = head + you + "}"
    return frames


def welcome_frame(room_id: str, seat: Seat | None) -> str:
    """The answer to a hello: the seat and its token (both None for a spectator), and the
    moves the server's bot made for that seat while it had no connection, if any."""
    number, token = (seat.number, seat.token) if seat else (None, None)
    welcome: WelcomeMessage = {
        "type": "welcome",
        "room_id": room_id,
        "seat": number,
        "token": token,
    }
    if seat is not None and seat.missed:
        welcome["autoplayed"] = list(seat.missed)
    return encode(welcome)


def round_result_frame(result: RoundResult) -> str:
    return encode({"type": "round_result", **result.to_dict()})


def history_frame(game: Game) -> str:
    """Every finished round of `game`, oldest first, for a page that (re)connects."""
    return encode(
        {"type": "history", "rounds": [record.result.to_dict() for record in game.rounds]}
    )


def chat_frame(seat: Seat, text: str) -> str:
    return encode({"type": "chat", "seat": seat.number, "name": seat.name, "text": text})


def autoplayed_message(seat: int, reason: AutoplayReason, action: Action) -> AutoplayedMessage:
    """A move the server's bot made for a person."""
    shown: BidAction | CallAction
    if isinstance(action, Bid):
        shown = {"type": "bid", "quantity": action.quantity, "face": action.face}
    else:
        shown = {"type": "dudo" if isinstance(action, Dudo) else "calza"}
    return {"type": "autoplayed", "seat": seat, "reason": reason, "action": shown}


def _lobby_player(seat: int) -> PlayerPublic:
    """A seat's game fields before the first game: no dice yet."""
    return {"seat": seat, "dice": 0, "out": False, "palifico_used": False}
