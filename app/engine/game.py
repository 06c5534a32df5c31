"""The game: rounds, dudo, calza, palifico, elimination (RULES.md sections 1-8).

`Game.apply` validates an action completely before it changes anything, so a rejected action
leaves the game exactly as it was. Randomness comes from an injected `random.Random`;
production passes `secrets.SystemRandom()`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, get_args

from app.engine.bids import ACE, Bid, BidContext, is_legal, min_quantities
from app.engine.wire import (
    BidView,
    Call,
    LegalView,
    RevealView,
    RoundRecordView,
    RoundResultView,
)

STARTING_DICE = 5
MAX_DICE = 5
MAX_SEATS = 6
CalzaRule = Literal["pressman", "asmodee"]
CALZA_RULES: tuple[CalzaRule, ...] = get_args(CalzaRule)
# The PROTOCOL.md error codes the rules answer with; the wire adds its own (bad_message, ...).
RuleCode = Literal[
    "not_your_turn", "illegal_bid", "no_bid", "calza_not_allowed", "game_not_running"
]
RULE_CODES: tuple[RuleCode, ...] = get_args(RuleCode)


Refusal = tuple[RuleCode, str]  # a RuleError's code and message, before it is raised


class RuleError(Exception):
    """An action the rules refuse; `code` is the PROTOCOL.md error code."""

    def __init__(self, code: RuleCode, message: str) -> None:
        super().__init__(message)
        self.code: RuleCode = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Dudo:
    """The player to act says the standing bid is false."""


@dataclass(frozen=True, slots=True)
class Calza:
    """A player says the standing bid is exactly right."""


Action = Bid | Dudo | Calza


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The room settings the rules depend on."""

    calza: bool = True
    palifico: bool = True
    calza_rule: CalzaRule = "pressman"


@dataclass(frozen=True, slots=True)
class PlacedBid:
    """A bid as it stands in a round: who made it."""

    bid: Bid
    seat: int

    def to_dict(self) -> BidView:
        return {"quantity": self.bid.quantity, "face": self.bid.face, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended: PROTOCOL.md `round_result` without its `type`."""

    round: int
    call: Call
    caller: int
    bid: PlacedBid
    palifico: bool
    reveal: tuple[tuple[int, tuple[int, ...]], ...]
    count: int
    loser: int | None
    gainer: int | None
    eliminated: int | None
    next_opener: int | None
    winner: int | None

    def to_dict(self) -> RoundResultView:
        return {
            "round": self.round,
            "call": self.call,
            "caller": self.caller,
            "bid": self.bid.to_dict(),
            "palifico": self.palifico,
            "reveal": _reveal(self.reveal),
            "count": self.count,
            "loser": self.loser,
            "gainer": self.gainer,
            "eliminated": self.eliminated,
            "next_opener": self.next_opener,
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class BidMade:
    """Event: a bid was accepted."""

    placed: PlacedBid


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """Event: dudo or calza ended the round; the dice were revealed."""

    result: RoundResult


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Event: fresh dice were rolled and `opener` bids first."""

    number: int
    opener: int
    palifico: bool


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Event: one player holds dice; `places` maps seat to finishing place (1 = winner)."""

    winner: int
    places: dict[int, int]


Event = BidMade | RoundEnded | RoundStarted | GameEnded
RollOff = list[list[tuple[int, int]]]


@dataclass(slots=True)
class PlayerState:
    """One seat's dice and palifico history."""

    seat: int
    count: int = STARTING_DICE
    palifico_used: bool = False

    @property
    def out(self) -> bool:
        return self.count == 0


@dataclass(slots=True)
class RoundState:
    """The round being played."""

    number: int
    opener: int
    turn: int
    palifico_seat: int | None
    bids: list[PlacedBid] = field(default_factory=list)
    roll_off: RollOff | None = None
    dice: dict[int, tuple[int, ...]] = field(default_factory=dict)
    total_dice: int = field(init=False)  # every die dealt: nobody leaves during a round

    def __post_init__(self) -> None:
        self.total_dice = sum(len(faces) for faces in self.dice.values())

    @property
    def palifico(self) -> bool:
        return self.palifico_seat is not None

    @property
    def standing(self) -> PlacedBid | None:
        return self.bids[-1] if self.bids else None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round, everything revealed: what a saved game keeps."""

    number: int
    palifico: bool
    palifico_seat: int | None
    opener: int
    dice: tuple[tuple[int, tuple[int, ...]], ...]
    bids: tuple[PlacedBid, ...]
    result: RoundResult

    def to_dict(self) -> RoundRecordView:
        return {
            "number": self.number,
            "palifico": self.palifico,
            "palifico_seat": self.palifico_seat,
            "opener": self.opener,
            "dice": _reveal(self.dice),
            "bids": [placed.to_dict() for placed in self.bids],
            "result": self.result.to_dict(),
        }


def _reveal(hands: Iterable[tuple[int, tuple[int, ...]]]) -> list[RevealView]:
    return [{"seat": seat, "dice": list(dice)} for seat, dice in hands]


@dataclass(frozen=True, slots=True)
class Options:
    """What one seat may do right now: the least legal quantity per face 1..6, and calls."""

    min_quantity: tuple[int | None, ...]
    dudo: bool
    calza: bool

    def to_dict(self) -> LegalView:
        return {"min_quantity": list(self.min_quantity), "dudo": self.dudo, "calza": self.calza}


NO_OPTIONS = Options(min_quantity=(None,) * 6, dudo=False, calza=False)
CALZA_ONLY = Options(min_quantity=NO_OPTIONS.min_quantity, dudo=False, calza=True)


@lru_cache(maxsize=4096)
def _turn_options(context: BidContext, calza: bool) -> Options:
    """The options of the seat to act: the same few thousand contexts come back in every
    game, and every `state` of every seat asks for them."""
    return Options(
        min_quantity=tuple(min_quantities(context)), dudo=context.standing is not None, calza=calza
    )


def count_matching(dice: Sequence[int], face: int, *, aces_wild: bool) -> int:
    """Dice that meet a bid on `face`: that face, plus aces when wild (RULES.md section 3)."""
    wild = aces_wild and face != ACE
    return sum(1 for die in dice if die == face or (wild and die == ACE))


def match_chance(face: int, *, aces_wild: bool) -> float:
    """The chance that one unseen die meets a bid on `face`: 2/6 with wild aces, else 1/6."""
    return 1 / 3 if aces_wild and face != ACE else 1 / 6


def _check_seats(seats: Sequence[int]) -> None:
    if not 2 <= len(seats) <= MAX_SEATS or any(not 0 <= s < MAX_SEATS for s in seats):
        raise ValueError("a game needs 2 to 6 distinct seats in 0..5")


class Game:
    """One game of Perudo among the given seats, from the roll-off to the last die."""

    settings: GameSettings
    rng: random.Random
    players: dict[int, PlayerState]  # in seat order
    rounds: list[RoundRecord]  # finished rounds, oldest first
    round: RoundState | None  # None once the game is won
    last_result: RoundResult | None
    winner: int | None
    eliminated: list[int]  # in order of elimination

    def __init__(
        self,
        seats: Sequence[int],
        rng: random.Random,
        settings: GameSettings | None = None,
    ) -> None:
        seat_list = sorted(set(seats))
        _check_seats(seat_list)
        self._assign(
            settings or GameSettings(),
            rng,
            players={s: PlayerState(s) for s in seat_list},
            rounds=[],
            round_=None,
            last_result=None,
            winner=None,
            eliminated=[],
        )
        opener, roll_off = self._roll_off()
        self._start_round(opener, roll_off=roll_off)

    @classmethod
    def restore(
        cls,
        *,
        settings: GameSettings,
        rng: random.Random,
        players: Iterable[PlayerState],
        rounds: Iterable[RoundRecord],
        round: RoundState | None,
        last_result: RoundResult | None,
        winner: int | None,
        eliminated: Iterable[int],
    ) -> Game:
        """A game at a moment it has been in before (a snapshot), playing on with `rng`.

        Nothing is rolled, and the parts become the game's own (they are not copied). A
        combination no game can reach raises ValueError here rather than failing mid-turn.
        """
        player_list = list(players)
        by_seat = {player.seat: player for player in player_list}
        if len(by_seat) != len(player_list):
            raise ValueError("each seat plays once")
        game = cls.__new__(cls)
        game._assign(
            settings,
            rng,
            players=by_seat,
            rounds=list(rounds),
            round_=round,
            last_result=last_result,
            winner=winner,
            eliminated=list(eliminated),
        )
        game._check()
        return game

    def _assign(
        self,
        settings: GameSettings,
        rng: random.Random,
        *,
        players: dict[int, PlayerState],
        rounds: list[RoundRecord],
        round_: RoundState | None,
        last_result: RoundResult | None,
        winner: int | None,
        eliminated: list[int],
    ) -> None:
        """Every field of a game, in one place for both constructors."""
        self.settings = settings
        self.rng = rng
        self.players = players
        self.rounds = rounds
        self.round = round_
        self.last_result = last_result
        self.winner = winner
        self.eliminated = eliminated

    def _check(self) -> None:
        """Refuse a state the engine cannot have played into (see `restore`)."""
        seats = self.seats
        if seats != sorted(seats):
            raise ValueError(f"seats must come in order, not {seats}")
        _check_seats(seats)
        if any(not 0 <= player.count <= MAX_DICE for player in self.players.values()):
            raise ValueError("a player holds 0 to 5 dice")
        round_ = self.round
        if (round_ is None) != (self.winner is not None):
            raise ValueError("a game has a round in play exactly when it has no winner")
        if round_ is not None:
            playing = self.active_seats()
            if sorted(round_.dice) != playing or round_.turn not in playing:
                raise ValueError("the round's dice and turn must belong to the players with dice")
            if any(len(round_.dice[seat]) != self.players[seat].count for seat in playing):
                raise ValueError("each player rolls as many dice as they hold")

    # ----- queries -------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def seats(self) -> list[int]:
        return list(self.players)

    def active_seats(self) -> list[int]:
        return [seat for seat, player in self.players.items() if not player.out]

    def total_dice(self) -> int:
        if self.round is not None:
            return self.round.total_dice
        return sum(player.count for player in self.players.values())

    def places(self) -> dict[int, int]:
        """Finishing places so far: the winner 1st, then the reverse order of elimination."""
        order = ([self.winner] if self.winner is not None else []) + self.eliminated[::-1]
        return {seat: place for place, seat in enumerate(order, start=1)}

    def options(self, seat: int | None) -> Options:
        """Everything `seat` may do right now; all closed for spectators and the eliminated."""
        round_ = self.round
        if seat is None or round_ is None or seat not in self.players:
            return NO_OPTIONS
        calza = self._calza_refusal(seat) is None
        if seat != round_.turn:  # only the seat to act may bid or call dudo
            return CALZA_ONLY if calza else NO_OPTIONS
        return _turn_options(self._bid_context(seat), calza)

    def may_calza(self, seat: int) -> bool:
        """`options(seat).calza` without the rest (the room asks it of every seat after every
        change)."""
        return self._calza_refusal(seat) is None

    # ----- actions -------------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Play `action` for `seat`; return what happened, or raise RuleError and change nothing."""
        if self.round is None:
            raise RuleError("game_not_running", "The game is over.")
        if isinstance(action, Bid):
            return self._bid(seat, action, self.round)
        if isinstance(action, Dudo):
            return self._dudo(seat, self.round)
        return self._calza(seat, self.round)

    def _bid(self, seat: int, bid: Bid, round_: RoundState) -> list[Event]:
        self._require_turn(seat, round_)
        if not is_legal(self._bid_context(seat), bid):
            raise RuleError("illegal_bid", f"{bid} is not a legal bid now.")
        placed = PlacedBid(bid, seat)
        round_.bids.append(placed)
        round_.turn = self._next_active(seat)
        return [BidMade(placed)]

    def _dudo(self, seat: int, round_: RoundState) -> list[Event]:
        self._require_turn(seat, round_)
        standing = round_.standing
        if standing is None:
            raise RuleError("no_bid", "There is no bid to call dudo on.")
        count = self._count(standing.bid, round_)
        loser = seat if count >= standing.bid.quantity else standing.seat
        return self._end_round("dudo", seat, standing, count, loser=loser, gainer=None)

    def _calza(self, seat: int, round_: RoundState) -> list[Event]:
        refusal = self._calza_refusal(seat)
        if refusal is not None:
            raise RuleError(*refusal)
        standing = round_.standing
        assert standing is not None  # _calza_refusal checked it
        count = self._count(standing.bid, round_)
        exact = count == standing.bid.quantity
        return self._end_round(
            "calza",
            seat,
            standing,
            count,
            loser=None if exact else seat,
            gainer=seat if exact else None,
        )

    # ----- rules ---------------------------------------------------------------------------

    def _require_turn(self, seat: int, round_: RoundState) -> None:
        if seat != round_.turn:
            raise RuleError("not_your_turn", "It is not your turn.")

    def _bid_context(self, seat: int) -> BidContext:
        assert self.round is not None
        player = self.players[seat]
        veteran = player.count == 1 and player.palifico_used and seat != self.round.palifico_seat
        standing = self.round.standing
        return BidContext(
            standing=standing.bid if standing else None,
            total_dice=self.total_dice(),
            palifico=self.round.palifico,
            face_unlocked=veteran,
        )

    def _calza_refusal(self, seat: int) -> Refusal | None:
        """Why `seat` may not call calza now, or None when it may (RULES.md section 6); a
        (code, message) pair, not an exception, as every `state` asks it of every seat."""
        round_ = self.round
        if round_ is None:
            return ("game_not_running", "The game is over.")
        if not self.settings.calza:
            return ("calza_not_allowed", "This table plays without calza.")
        if round_.palifico:
            return ("calza_not_allowed", "No calza in a palifico round.")
        if len(round_.dice) <= 2:  # the seats dealt in: nobody leaves during a round
            return ("calza_not_allowed", "No calza with two players left.")
        player = self.players.get(seat)
        if player is None or player.out:
            return ("calza_not_allowed", "Only players with dice may call calza.")
        standing = round_.standing
        if standing is None:
            return ("no_bid", "There is no bid to call calza on.")
        if self.settings.calza_rule == "pressman" and seat == round_.turn:
            return ("calza_not_allowed", "The player to act may not call calza.")
        if self.settings.calza_rule == "asmodee" and seat == standing.seat:
            return ("calza_not_allowed", "You may not call calza on your own bid.")
        return None

    def _count(self, bid: Bid, round_: RoundState) -> int:
        every_die = [die for dice in round_.dice.values() for die in dice]
        return count_matching(every_die, bid.face, aces_wild=not round_.palifico)

    def _next_active(self, seat: int) -> int:
        """The next seat clockwise (increasing, wrapping) that still holds dice."""
        order = self.seats
        start = order.index(seat)
        for step in range(1, len(order) + 1):
            candidate = order[(start + step) % len(order)]
            if not self.players[candidate].out:
                return candidate
        raise AssertionError("no active player left")

    def _reveal_order(self, caller: int, round_: RoundState) -> list[int]:
        in_round = [seat for seat in self.seats if seat in round_.dice]
        start = in_round.index(caller)
        return in_round[start:] + in_round[:start]

    def _end_round(
        self,
        call: Call,
        caller: int,
        standing: PlacedBid,
        count: int,
        *,
        loser: int | None,
        gainer: int | None,
    ) -> list[Event]:
        round_ = self.round
        assert round_ is not None
        palifico_seat: int | None = None
        eliminated: int | None = None
        if gainer is not None:
            player = self.players[gainer]
            player.count = min(player.count + 1, MAX_DICE)
            next_opener = gainer
        else:
            assert loser is not None
            player = self.players[loser]
            player.count -= 1
            if player.out:
                eliminated = loser
                self.eliminated.append(loser)
            elif self._triggers_palifico(player):
                palifico_seat = loser
            next_opener = loser if not player.out else self._next_active(loser)
        if len(self.active_seats()) == 1:
            self.winner = self.active_seats()[0]
        result = RoundResult(
            round=round_.number,
            call=call,
            caller=caller,
            bid=standing,
            palifico=round_.palifico,
            reveal=tuple((s, round_.dice[s]) for s in self._reveal_order(caller, round_)),
            count=count,
            loser=loser,
            gainer=gainer,
            eliminated=eliminated,
            next_opener=None if self.winner is not None else next_opener,
            winner=self.winner,
        )
        self.rounds.append(
            RoundRecord(
                number=round_.number,
                palifico=round_.palifico,
                palifico_seat=round_.palifico_seat,
                opener=round_.opener,
                dice=tuple(sorted(round_.dice.items())),
                bids=tuple(round_.bids),
                result=result,
            )
        )
        self.last_result = result
        events: list[Event] = [RoundEnded(result)]
        if self.winner is not None:
            self.round = None
            events.append(GameEnded(self.winner, self.places()))
        else:
            events.append(self._start_round(next_opener, palifico_seat=palifico_seat))
        return events

    def _triggers_palifico(self, player: PlayerState) -> bool:
        """RULES.md 7: down to one die, never had palifico, at least three players active."""
        return (
            self.settings.palifico
            and player.count == 1
            and not player.palifico_used
            and len(self.active_seats()) >= 3
        )

    def _roll_off(self) -> tuple[int, RollOff]:
        """Every player rolls one die; the tied highest roll again until one is highest."""
        contenders = self.seats
        rolls: RollOff = []
        while len(contenders) > 1:
            throw = [(seat, self._roll_die()) for seat in contenders]
            rolls.append(throw)
            best = max(die for _, die in throw)
            contenders = [seat for seat, die in throw if die == best]
        return contenders[0], rolls

    def _roll_die(self) -> int:
        return self.rng.randint(1, 6)

    def _roll_hand(self, count: int) -> tuple[int, ...]:
        """`count` dice, a `randint(1, 6)` each: how any `random.Random` deals a hand (a
        seeded one rolls what it always rolled). A source with its own `deal(count)`, as the
        server's secure dice have, deals the whole hand in one call instead."""
        roll = self.rng.randint
        return tuple([roll(1, 6) for _ in range(count)])

    def _start_round(
        self, opener: int, *, palifico_seat: int | None = None, roll_off: RollOff | None = None
    ) -> RoundStarted:
        number = len(self.rounds) + 1
        if palifico_seat is not None:
            self.players[palifico_seat].palifico_used = True
        deal = getattr(self.rng, "deal", None) or self._roll_hand
        self.round = RoundState(
            number=number,
            opener=opener,
            turn=opener,
            palifico_seat=palifico_seat,
            roll_off=roll_off,
            dice={
                seat: deal(player.count) for seat, player in self.players.items() if not player.out
            },
        )
        return RoundStarted(number, opener, palifico_seat is not None)
