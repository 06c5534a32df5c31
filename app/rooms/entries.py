"""A journal entry: one action after a room's snapshot, as the journal records it and as a
restore replays it (`persistence` is the snapshots' codec, this the entries')."""

from __future__ import annotations

from collections.abc import Iterable

from app.engine import Action, Bid, Calza, Dudo, Game, strict_int
from app.rooms.dice import RecordedDice
from app.rooms.ports import Entry
from app.rooms.state import RoomState

# An `Entry` is one action after a snapshot: {"bid": [seat, quantity, face]}, or
# {"call": "dudo"|"calza", "seat": seat, "deal": [[seat, [faces]], ...]} with the dice of the
# round the call dealt (null when it ended the game): replayed, it rolls what was rolled. (A
# move the server's bot makes for a person is recorded as a snapshot: the seat may just have
# gone over to the bot, and the move's mark is part of the state.)
CALLS: dict[str, Dudo | Calza] = {"dudo": Dudo(), "calza": Calza()}


def entry_of(seat: int, action: Action, game: Game) -> Entry:
    """The entry of `action`, just played by `seat` in `game`."""
    if isinstance(action, Bid):
        return {"bid": [seat, action.quantity, action.face]}
    round_ = game.round
    return {
        "call": "dudo" if isinstance(action, Dudo) else "calza",
        "seat": seat,
        "deal": None
        if round_ is None
        else [[dealt, list(faces)] for dealt, faces in round_.dice.items()],
    }


def replay(state: RoomState, entries: Iterable[Entry]) -> None:
    """Apply the journal's actions after a snapshot, so the room's game comes back exactly as
    it was. Bad or unfitting entries raise KeyError, TypeError, ValueError or RuleError."""
    for entry in entries:
        if "bid" in entry:
            seat, quantity, face = (strict_int(value) for value in entry["bid"])
            state.play(seat, Bid(quantity, face))
        else:
            _replay_call(state, entry)


def _replay_call(state: RoomState, entry: Entry) -> None:
    """A dudo or calza, dealing the next round the dice its entry recorded."""
    game = state.game
    if game is None:
        raise ValueError("a call in a room without a game")
    deal = entry["deal"]
    dealt = None
    if deal is not None:
        dealt = {strict_int(seat): tuple(strict_int(f) for f in faces) for seat, faces in deal}
    rolled, game.rng = game.rng, RecordedDice(f for faces in (dealt or {}).values() for f in faces)
    try:
        state.play(strict_int(entry["seat"]), CALLS[entry["call"]])
    finally:
        game.rng = rolled
    if (game.round.dice if game.round else None) != dealt:
        raise ValueError("the recorded deal does not fit the game")
