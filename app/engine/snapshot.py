"""A game as plain JSON-compatible data and back, so a restarted server resumes it exactly.

Everything but the RNG is kept: the seed never leaves the process (a restored game rolls its
next dice with the RNG it is given). Bad data raises KeyError, TypeError or ValueError.
"""

from __future__ import annotations

import random
from typing import Any

from app.engine.bids import Bid
from app.engine.game import (
    CALZA_RULES,
    Game,
    GameSettings,
    PlacedBid,
    PlayerState,
    RollOff,
    RoundRecord,
    RoundResult,
    RoundState,
)


def game_to_dict(game: Game) -> dict[str, Any]:
    """The whole game as fresh lists, dicts, ints, strings, bools and None."""
    round_ = game.round
    return {
        "settings": {
            "calza": game.settings.calza,
            "palifico": game.settings.palifico,
            "calza_rule": game.settings.calza_rule,
        },
        "players": [
            {"seat": p.seat, "count": p.count, "palifico_used": p.palifico_used}
            for p in game.players.values()
        ],
        "round": None
        if round_ is None
        else {
            "number": round_.number,
            "opener": round_.opener,
            "turn": round_.turn,
            "palifico_seat": round_.palifico_seat,
            "bids": [placed.to_dict() for placed in round_.bids],
            "roll_off": None
            if round_.roll_off is None
            else [[[seat, die] for seat, die in throw] for throw in round_.roll_off],
            "dice": [{"seat": seat, "dice": list(dice)} for seat, dice in round_.dice.items()],
        },
        "rounds": [record.to_dict() for record in game.rounds],
        "last_result": None if game.last_result is None else game.last_result.to_dict(),
        "winner": game.winner,
        "eliminated": list(game.eliminated),
    }


def game_from_dict(data: dict[str, Any], rng: random.Random) -> Game:
    """The game `game_to_dict` described, playing on with `rng`; nothing is re-rolled."""
    settings = data["settings"]
    calza_rule = settings["calza_rule"]
    if calza_rule not in CALZA_RULES:
        raise ValueError(f"unknown calza rule {calza_rule!r}")
    last_result = data["last_result"]
    return Game.restore(
        settings=GameSettings(
            calza=strict_bool(settings["calza"]),
            palifico=strict_bool(settings["palifico"]),
            calza_rule=calza_rule,
        ),
        rng=rng,
        players=[
            PlayerState(
                strict_int(p["seat"]), strict_int(p["count"]), strict_bool(p["palifico_used"])
            )
            for p in data["players"]
        ],
        rounds=[_record(r) for r in data["rounds"]],
        round=None if data["round"] is None else _round(data["round"]),
        last_result=None if last_result is None else _result(last_result),
        winner=strict_optional_int(data["winner"]),
        eliminated=[strict_int(seat) for seat in data["eliminated"]],
    )


def _round(data: dict[str, Any]) -> RoundState:
    roll_off: RollOff | None = None
    if data["roll_off"] is not None:
        roll_off = [
            [(strict_int(seat), strict_int(die)) for seat, die in throw]
            for throw in data["roll_off"]
        ]
    return RoundState(
        number=strict_int(data["number"]),
        opener=strict_int(data["opener"]),
        turn=strict_int(data["turn"]),
        palifico_seat=strict_optional_int(data["palifico_seat"]),
        bids=[_placed(b) for b in data["bids"]],
        roll_off=roll_off,
        dice={strict_int(d["seat"]): _dice(d["dice"]) for d in data["dice"]},
    )


def _record(data: dict[str, Any]) -> RoundRecord:
    """The inverse of `RoundRecord.to_dict`."""
    return RoundRecord(
        number=strict_int(data["number"]),
        palifico=strict_bool(data["palifico"]),
        palifico_seat=strict_optional_int(data["palifico_seat"]),
        opener=strict_int(data["opener"]),
        dice=tuple((strict_int(d["seat"]), _dice(d["dice"])) for d in data["dice"]),
        bids=tuple(_placed(b) for b in data["bids"]),
        result=_result(data["result"]),
    )


def _result(data: dict[str, Any]) -> RoundResult:
    """The inverse of `RoundResult.to_dict`."""
    call = data["call"]
    if call not in ("dudo", "calza"):
        raise ValueError(f"unknown call {call!r}")
    return RoundResult(
        round=strict_int(data["round"]),
        call=call,
        caller=strict_int(data["caller"]),
        bid=_placed(data["bid"]),
        palifico=strict_bool(data["palifico"]),
        reveal=tuple((strict_int(d["seat"]), _dice(d["dice"])) for d in data["reveal"]),
        count=strict_int(data["count"]),
        loser=strict_optional_int(data["loser"]),
        gainer=strict_optional_int(data["gainer"]),
        eliminated=strict_optional_int(data["eliminated"]),
        next_opener=strict_optional_int(data["next_opener"]),
        winner=strict_optional_int(data["winner"]),
    )


def _placed(data: dict[str, Any]) -> PlacedBid:
    return PlacedBid(
        Bid(strict_int(data["quantity"]), strict_int(data["face"])), strict_int(data["seat"])
    )


def _dice(values: list[Any]) -> tuple[int, ...]:
    dice = tuple(strict_int(die) for die in values)
    if any(not 1 <= die <= 6 for die in dice):
        raise ValueError(f"a die shows 1 to 6, not {dice}")
    return dice


def strict_int(value: Any) -> int:
    """`value` if it is an int (not a bool, not a float), else TypeError."""
    if type(value) is not int:
        raise TypeError(f"expected an int, got {value!r}")
    return value


def strict_optional_int(value: Any) -> int | None:
    return None if value is None else strict_int(value)


def strict_bool(value: Any) -> bool:
    """`value` if it is a bool, else TypeError."""
    if type(value) is not bool:
        raise TypeError(f"expected a bool, got {value!r}")
    return value
