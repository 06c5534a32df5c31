"""The expert's search wherever its tables do not reach: each candidate action's round played out.

At six seats most dice are lost by others; what counts is our own survival, so the search
scores an action by the dice the round it starts costs us (heads-up, the rival loses the die we
do not). The hidden dice are dealt
consistently with the round's bids: every opponent who has bid gets blind hands, each weighted
by the chance that a `hard` bot holding it would have made that opponent's bids (its priced
options, with the noise and bluffs of its style), then resampled; the others' hands are blind.
Dudo, calza (when legal) and the cheapest raises by the one-ply estimate are then played out
on the same deals: the next `PLIES` seats (ours too, if the turn comes back) play `hard`'s
best option, bluffs drawn from the same numbers for every action (common random numbers: the
actions' difference is measured with little noise), and a round still open after them costs
us `hard`'s share for a raise that is not called. The least costly action is played.

Why `hard`: every opponent is modelled as the strongest heuristic level, and at a table of
`hard` bots the model is exact, which is what the search exploits (bench/README.md).

Speed: pricing a hand needs the hand's matching counts only; the rest of a `Reading` is the
same for every hand of one seat after one history, so one reading serves them all, and the
pricing loop (`bot.face_prices`) builds no options. `READINGS` bounds the costly part.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from app.engine.bids import FACES, Bid, BidContext, min_quantities
from app.engine.bot import (
    STYLES,
    Reading,
    carried_share,
    face_prices,
    priced_options,
)
from app.engine.game import MAX_DICE, Action, Calza, Dudo, count_matching
from app.engine.wire import BidView, GameView, LegalView, RoundView

OPPONENT = STYLES["hard"]  # the model of every seat in a played-out round, ours included
DEALS = 16  # deals the actions are played out on
PROPOSALS = 32  # blind hands per opponent who has bid, weighted by its bids, then resampled
RAISES = 4  # the raises played out: the cheapest by the one-ply estimate
PLIES = 24  # the plies played out after our raise; then the round's rest costs us `carry`
READINGS = 12  # the most readings one candidate's rounds build (the costly part); then `carry`
FLOOR = 0.02  # the least likelihood of a bid under the model (a player it does not fit)
RIVAL_WEIGHT = 0.0  # what a die an opponent loses is worth to us, as a share of one of ours

Placed = tuple[int, int, int]  # a bid of the round: quantity, face, seat
History = tuple[Placed, ...]
Counts = tuple[int, ...]  # a hand's dice meeting a bid on face 1..6 (`Reading.own_counts`)
Raise = tuple[int, int]  # quantity, face
Move = tuple[Raise | None, Raise | None]  # `hard`'s best (None: dudo), and its bluff if any


def rollout_action(view: GameView, rng: random.Random) -> Action:
    """The action of least expected dice lost over the played-out rounds (ValueError when the
    view allows none)."""
    return Search.start(view).best(rng)


@dataclass(slots=True)
class Search:
    """One decision's search: the round's public facts and the readings met so far."""

    view: GameView
    round: RoundView
    me: int
    order: list[int]  # active seats, in seat order
    dice: dict[int, int]  # active seat -> dice held
    unlocked: set[int]  # the one-die veterans of a palifico round (RULES.md 7.4)
    history: History
    _readings: dict[tuple[History, int], tuple[Reading, LegalView]] = field(default_factory=dict)
    _moves: dict[tuple[History, int, Counts], Move] = field(default_factory=dict)
    _limit: int = 0  # `READINGS` more than the candidate in play found
    _chances: dict[tuple[int, int, Counts], float] = field(default_factory=dict)

    @classmethod
    def start(cls, view: GameView) -> Search:
        round_ = view["round"]
        me = view["you"]["seat"]
        if round_ is None or me is None:
            raise ValueError("the search needs a running round and a seat")
        active = [p for p in view["players"] if not p["out"]]
        unlocked = {
            p["seat"]
            for p in active
            if p["dice"] == 1 and p["palifico_used"] and p["seat"] != round_["palifico_seat"]
        }
        return cls(
            view=view,
            round=round_,
            me=me,
            order=sorted(p["seat"] for p in active),
            dice={p["seat"]: p["dice"] for p in active},
            unlocked=unlocked,
            history=tuple((b["quantity"], b["face"], b["seat"]) for b in round_["bids"]),
        )

    def best(self, rng: random.Random) -> Action:
        """The candidate whose played-out rounds cost us least (the one-ply estimate breaks
        ties)."""
        candidates = self.candidates()
        if not candidates:
            raise ValueError("the view allows no action: not this seat's turn")
        if len(candidates) == 1:
            return candidates[0][1]
        deals = self.deals(rng)
        draws = [[rng.random() for _ in range(PLIES)] for _ in deals]
        scored = []
        for i, (prior, action) in enumerate(candidates):
            self._limit = len(self._readings) + READINGS
            loss = sum(
                self.outcome(action, deal, row) for deal, row in zip(deals, draws, strict=True)
            )
            scored.append((loss, prior, i))
        return candidates[min(scored)[2]][1]

    def candidates(self) -> list[tuple[float, Action]]:
        """Dudo and calza when legal and the cheapest raises, with their one-ply estimates."""
        reading = Reading.read(self.view, OPPONENT)
        options, raises = priced_options(reading, self.view["you"]["legal"], OPPONENT)
        calls = [option for option in options if not isinstance(option[1], Bid)]
        cheapest = sorted(raises, key=lambda option: option[0])[:RAISES]
        return [*calls, *cheapest]

    def deals(self, rng: random.Random) -> list[dict[int, Counts]]:
        """Every active seat's matching counts, ours as they are, the others' drawn
        consistently with their bids."""
        palifico = self.round["palifico"]
        own = _counts(self.view["you"]["dice"], palifico)
        hands: dict[int, list[Counts]] = {}
        for seat in self.order:
            if seat == self.me:
                continue
            size = self.dice[seat]
            bids = [i for i, placed in enumerate(self.history) if placed[2] == seat]
            if not bids:
                hands[seat] = [_counts(_roll(size, rng), palifico) for _ in range(DEALS)]
                continue
            proposals = [_counts(_roll(size, rng), palifico) for _ in range(PROPOSALS)]
            weights = [self.likelihood(seat, counts, bids) for counts in proposals]
            hands[seat] = rng.choices(proposals, weights, k=DEALS)
        return [
            {seat: own if seat == self.me else hands[seat][i] for seat in self.order}
            for i in range(DEALS)
        ]

    def likelihood(self, seat: int, counts: Counts, bids: list[int]) -> float:
        """P(a `hard` bot holding `counts` makes `seat`'s bids, the `bids`-th of the round)."""
        chance = 1.0
        for index in bids:
            quantity, face, _ = self.history[index]
            chance *= self.bid_chance(self.history[:index], seat, counts, Bid(quantity, face))
        return chance

    def bid_chance(self, before: History, seat: int, counts: Counts, made: Bid) -> float:
        """P(`hard` makes the bid `made` after `before`): its best option, unless another
        within the noise wins or a bluff takes it elsewhere."""
        key = (len(before), seat, counts)
        known = self._chances.get(key)
        if known is not None:
            return known
        reading, legal = self.reading(before, seat)
        cheapest, cost = _price_hand(reading, counts, legal, (made.quantity, made.face))
        if cost is None:
            self._chances[key] = FLOOR
            return FLOOR
        best_cost, best = _best(reading, counts, legal, cheapest)
        noise = OPPONENT.noise
        if best == (made.quantity, made.face):
            chance = 1.0
        else:
            chance = 0.5 * math.erfc((cost - best_cost) / (2.0 * noise))
        chance *= 1.0 - OPPONENT.bluff
        if best is not None and _bluff(best_cost, best, cheapest) == (made.quantity, made.face):
            chance += OPPONENT.bluff
        self._chances[key] = chance + FLOOR
        return chance + FLOOR

    def outcome(self, action: Action, deal: dict[int, Counts], draws: list[float]) -> float:
        """The dice we lose (negative: gain) when we take `action` and the round plays out."""
        standing = self.history[-1] if self.history else None
        if isinstance(action, Dudo):
            assert standing is not None
            return self.settle(standing, self.me, deal)
        if isinstance(action, Calza):
            assert standing is not None
            exact = sum(counts[standing[1] - 1] for counts in deal.values()) == standing[0]
            gain = 1.0 if self.dice[self.me] < MAX_DICE else 0.0
            return -gain if exact else 1.0
        history = (*self.history, (action.quantity, action.face, self.me))
        return self.play(history, self.after(self.me), deal, draws)

    def play(
        self, history: History, turn: int, deal: dict[int, Counts], draws: list[float]
    ) -> float:
        """The round from `history`, `turn` to act, played out by the model."""
        for draw in draws:
            if len(self._readings) >= self._limit and (history, turn) not in self._readings:
                break
            best, bluffed = self.move(history, turn, deal[turn])
            if best is None:
                return self.settle(history[-1], turn, deal)
            if draw < OPPONENT.bluff and bluffed is not None:
                best = bluffed
            history = (*history, (*best, turn))
            turn = self.after(turn)
        return self.carry()

    def move(self, history: History, seat: int, counts: Counts) -> Move:
        """What `hard` holding `counts` does after `history`, remembered: the same hand meets
        the same history in many deals."""
        key = (history, seat, counts)
        known = self._moves.get(key)
        if known is None:
            reading, legal = self.reading(history, seat)
            cheapest, _ = _price_hand(reading, counts, legal, None)
            best_cost, best = _best(reading, counts, legal, cheapest)
            known = self._moves[key] = (best, _bluff(best_cost, best, cheapest))
        return known

    def carry(self) -> float:
        """What the rest of the round still costs us once another seat has raised: `hard`'s
        share for a raise that is not called."""
        return OPPONENT.continuation / (len(self.order) - 1)

    def settle(self, standing: Placed, caller: int, deal: dict[int, Counts]) -> float:
        """Dudo by `caller` on `standing`: 1 if we lose the die, less a rival's worth if they
        do."""
        quantity, face, bidder = standing
        held = sum(counts[face - 1] for counts in deal.values()) >= quantity
        loser = caller if held else bidder
        return 1.0 if loser == self.me else -RIVAL_WEIGHT

    def reading(self, history: History, seat: int) -> tuple[Reading, LegalView]:
        """`seat`'s reading after `history` (its own dice left out) and the bids open to it."""
        key = (history, seat)
        found = self._readings.get(key)
        if found is None:
            placed: list[BidView] = [{"quantity": q, "face": f, "seat": s} for q, f, s in history]
            legal: LegalView = {
                "min_quantity": min_quantities(
                    BidContext(
                        Bid(*history[-1][:2]) if history else None,
                        self.round["total_dice"],
                        self.round["palifico"],
                        seat in self.unlocked,
                    )
                ),
                "dudo": bool(history),
                "calza": False,
            }
            theirs: GameView = {
                **self.view,
                "round": {
                    **self.round,
                    "turn": seat,
                    "bid": placed[-1] if placed else None,
                    "bids": placed,
                },
                "you": {"seat": seat, "dice": [], "legal": legal, "odds": None},
            }
            found = self._readings[key] = (Reading.read(theirs, OPPONENT), legal)
        return found

    def after(self, seat: int) -> int:
        """The next active seat clockwise."""
        later = [s for s in self.order if s > seat]
        return later[0] if later else self.order[0]


Priced = tuple[float, int, int]  # a raise's expected die loss, quantity and face


def _price_hand(
    reading: Reading, counts: Counts, legal: LegalView, made: tuple[int, int] | None
) -> tuple[list[Priced], float | None]:
    """For a hand with `counts`, what `bot.priced_options` weighs, without building it: the
    cheapest raise on each open face, and the price of the raise `made` (None if `hard` would
    not weigh it)."""
    share = carried_share(reading, OPPONENT)
    cheapest: list[Priced] = []
    made_cost = None
    for face, least in zip(FACES, legal["min_quantity"], strict=True):
        if least is None:
            continue
        best: Priced | None = None
        own = counts[face - 1]
        for cost, quantity, _ in face_prices(
            reading, face, own, least, bool(cheapest), share, OPPONENT
        ):
            if best is None or cost < best[0]:
                best = (cost, quantity, face)
            if made == (quantity, face):
                made_cost = cost
        if best is not None:
            cheapest.append(best)
    return cheapest, made_cost


def _best(
    reading: Reading, counts: Counts, legal: LegalView, cheapest: list[Priced]
) -> tuple[float, tuple[int, int] | None]:
    """`hard`'s best option, noise aside: the cheapest raise (quantity, face), or dudo (None)
    when it costs less (as `bot.pick` breaks ties: the raises first)."""
    best = min(cheapest, key=lambda priced: priced[0]) if cheapest else None
    standing = reading.standing
    if legal["dudo"] and standing is not None:
        needed = standing.quantity - counts[standing.face - 1]
        tails = reading.unseen(standing.face).tails
        held = tails[max(0, needed)] if needed < len(tails) else 0.0
        if best is None or held < best[0]:
            return held, None
    if best is None:
        raise ValueError("no option")
    return best[0], (best[1], best[2])


def _bluff(
    best_cost: float, best: tuple[int, int] | None, cheapest: list[Priced]
) -> tuple[int, int] | None:
    """`bot.bluff`: the cheapest raise on another face than the best raise's, within the
    slack."""
    if best is None:
        return None
    others = [
        priced
        for priced in cheapest
        if priced[2] != best[1] and priced[0] <= best_cost + OPPONENT.bluff_slack
    ]
    if not others:
        return None
    _, quantity, face = min(others, key=lambda priced: priced[0])
    return quantity, face


def _roll(size: int, rng: random.Random) -> list[int]:
    return [rng.randint(1, 6) for _ in range(size)]


def _counts(dice: list[int], palifico: bool) -> Counts:
    return tuple(count_matching(dice, face, aces_wild=not palifico) for face in FACES)
