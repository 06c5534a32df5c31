"""What each connection of a room is sent after a change: its `state`, or its bid event
(`audience` delivers them; `messages` are the frames everyone shares).

`state_frames` and `bid_frames` are the one place the room's game reaches a connection: the
public part comes from the engine's `table_view` and is encoded once per broadcast; only `you`
(the engine's `you_view`, the one door for hidden dice) is encoded per seat, and only when it
changed (`YouJson`).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

import orjson

from app.engine import (
    Game,
    Options,
    PlacedBid,
    PlayerPublic,
    RoundResult,
    lobby_you,
    table_view,
    you_view,
)
from app.protocol import (
    AutoplayedMarks,
    BidEventPublic,
    PlayerEntry,
    RatingChange,
    StatePublic,
)
from app.rooms.ports import Connection
from app.rooms.state import CALL, RoomState


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


def marks_view(state: RoomState) -> AutoplayedMarks | None:
    """The `state`'s `autoplayed`, in a game where the server's bot made a move for a
    person: why it made each bid of the round (beside `round.bids`) and each finished round's
    call (beside the `history`'s rounds), None for a player's own move."""
    game = state.game
    if game is None or not state.marks:
        return None
    marks, round_ = state.marks, game.round
    return {
        "bids": [marks.get((round_.number, move)) for move in range(len(round_.bids))]
        if round_ is not None
        else [],
        "calls": [marks.get((record.number, CALL)) for record in game.rounds],
    }


def state_frames(
    state: RoomState,
    *,
    turn_deadline: float | None,
    now: float,
    viewers: Mapping[Connection, int | None],
    spectators: int,
    result_json: ResultJson,
    you_json: YouJson,
    you_sent: MutableMapping[Connection, str],
    rating_changes: list[RatingChange] | None = None,
) -> dict[Connection, str]:
    """The `state` for every connection in `viewers` (connection -> its seat or None);
    `result_json` and `you_json` are the room's own; a connection in `you_sent` (it takes
    bid events) has the `you` it was sent kept there. `rating_changes` go on the state that
    first carries the saved game's id."""
    game, settings = state.game, state.settings
    table = table_view(game, last_result=False) if game is not None else None
    in_game: dict[int, PlayerPublic] = {}
    if table is not None:
        in_game = {player["seat"]: player for player in table["players"]}
        round_view = table["round"]
        if round_view is not None:
            round_view["turn_deadline"] = turn_deadline
    players: list[PlayerEntry] = []
    for seat in state.seats:
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
    shared: StatePublic = {
        "type": "state",
        "seq": state.seq,
        "room_id": state.room_id,
        "phase": state.phase,
        "settings": settings.view,
        "host": state.seats.host,
        "players": players,
        "round": table["round"] if table else None,
        # the RoundResultView, already encoded: orjson writes a Fragment as it stands
        "last_result": result_json.of(game.last_result) if game else None,  # type: ignore[typeddict-item]
        "winner": table["winner"] if table else None,
        "game_id": state.game_id,
        "server_time": now,
        "spectators": spectators,
    }
    marks = marks_view(state) if state.marks else None
    if marks is not None:
        shared["autoplayed"] = marks
    if rating_changes is not None:
        shared["rating_changes"] = rating_changes
    head = orjson.dumps(shared)[:-1].decode() + ',"you":'
    yous: dict[int | None, str] = {}
    frames: dict[Connection, str] = {}
    odds = settings.odds
    for conn, seat_number in viewers.items():
        you = yous.get(seat_number)
        if you is None:
            you = yous[seat_number] = (
                you_json.of(game, seat_number, odds=odds)
                if game is not None
                else orjson.dumps(lobby_you(seat_number)).decode()
            )
        frames[conn] = head + you + "}"
    if you_sent:
        for conn in you_sent.keys() & frames.keys():
            you_sent[conn] = yous[viewers[conn]]
    return frames


def bid_frames(
    state: RoomState,
    placed: PlacedBid,
    *,
    turn_deadline: float | None,
    viewers: Mapping[Connection, int | None],
    you_json: YouJson,
    you_sent: MutableMapping[Connection, str],
) -> dict[Connection, str]:
    """The `bid` event for every connection in `viewers` (they opted in to events), instead
    of a `state`: the bid, the next turn and its deadline, and `you` only where it differs
    from the `you` that connection was last sent (kept in `you_sent`)."""
    game = state.game
    assert game is not None and game.round is not None
    event: BidEventPublic = {
        "type": "bid",
        "seq": state.seq,
        "seat": placed.seat,
        "quantity": placed.bid.quantity,
        "face": placed.bid.face,
        "turn": game.round.turn,
        "turn_deadline": turn_deadline,
    }
    by = state.marks.get((game.round.number, len(game.round.bids) - 1)) if state.marks else None
    if by is not None:
        event["autoplayed"] = by
    encoded = orjson.dumps(event).decode()
    bare, head = encoded, encoded[:-1] + ',"you":'
    yous: dict[int | None, str] = {}
    frames: dict[Connection, str] = {}
    odds = state.settings.odds
    bids = game.round.bids
    # A bid changes the `you` of its bidder, of the seat to act and of the bid's predecessor
    # (who may call calza again); the first of a round opens calza to everyone, and the odds
    # change for all. Nobody else's dice or options moved: their last `you` still holds.
    changed = None if odds or len(bids) < 2 else {placed.seat, game.round.turn, bids[-2].seat}
    for conn, seat_number in viewers.items():
        if changed is not None and seat_number not in changed and you_sent.get(conn):
            frames[conn] = bare
            continue
        you = yous.get(seat_number)
        if you is None:
            you = yous[seat_number] = you_json.of(game, seat_number, odds=odds)
        if you_sent.get(conn) == you:
            frames[conn] = bare
        else:
            frames[conn] = head + you + "}"
            you_sent[conn] = you
    return frames


def _lobby_player(seat: int) -> PlayerPublic:
    """A seat's game fields before the first game: no dice yet."""
    return {"seat": seat, "dice": 0, "out": False, "palifico_used": False}
