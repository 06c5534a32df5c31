"""The expert bot: equilibrium play in solved heads-up endgames, a search everywhere else.

Heads-up with few dice (1v1, 1v2, 2v1: the splits `app.engine.headsup` has tables for) it
samples its action from the CFR+ equilibrium of the round.

At three seats or more it plays out the round (`app.engine.rollout`): hidden hands dealt
consistently with the bids so far under the `hard` bot's model, each candidate (dudo, calza,
the cheapest raises) played on the same deals for a few plies, the action that costs us the
fewest dice chosen. At six seats most dice are lost by others, so the measure is our own
survival, and it is what lifts the expert from par to nearly half the games among five `hard`.

Heads-up beyond the tables it searches over the hidden dice of the standing bidder: hands
sampled blind, each weighted by whether a `hard` bot holding it would have made the standing
bid (the opponent model), give the chance the bid holds, hence dudo's cost; the cheapest
raises are searched too: for each sampled hand, the bidder answers as `hard` would, and a
called raise costs what the revealed count says. Other raises are weighed in closed form over
the next player's matching dice (`raise_cost`). A die the opponent loses counts as a gain
(heads-up it is the whole game's swing). The levels' figures: bench/README.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from app.engine.bids import Bid, BidContext, min_quantities
from app.engine.bot import (
    CALL_SOFTNESS,
    STYLES,
    TEMPO,
    Reading,
    Style,
    candidate_raises,
    heuristic_action,
    logistic,
    pick,
)
from app.engine.game import Action, Dudo, count_matching
from app.engine.headsup import strategy
from app.engine.rollout import rollout_action
from app.engine.wire import BidView, GameView, LegalView

EXPERT = STYLES["expert"]
RIVAL_WEIGHT = 1.0  # a die the opponent loses, as a share of one of ours: heads-up, all of it
BIDDER_SAMPLES = 32  # hands sampled for the standing bidder
SEARCHED_RAISES = 4  # the cheapest raises by the blind estimate, searched over those hands
SLIP = 0.08  # the weight of a hand with which `hard` would have bid otherwise (it bluffs)


def expert_action(view: GameView, rng: random.Random) -> Action:
    """The expert's move for the seat to act in `view` (ValueError if no action is legal)."""
    move = endgame_action(view, rng)
    if move is not None:
        return move
    if sum(not p["out"] for p in view["players"]) > 2:
        return rollout_action(view, rng)
    return searched_action(view, rng)


def endgame_action(view: GameView, rng: random.Random) -> Action | None:
    """The equilibrium's move when the round is heads-up and a table covers it, else None."""
    round_ = view["round"]
    me = view["you"]["seat"]
    if round_ is None or me is None or round_["palifico"]:
        return None
    active = [p for p in view["players"] if not p["out"]]
    if len(active) != 2:
        return None
    dice = {p["seat"]: p["dice"] for p in active}
    opener = round_["opener"]
    other = next(seat for seat in dice if seat != opener)
    bids = [Bid(placed["quantity"], placed["face"]) for placed in round_["bids"]]
    mixed = strategy((dice[opener], dice[other]), bids, view["you"]["dice"])
    if mixed is None:
        return None
    draw = rng.random()
    for bid, weight in mixed:
        draw -= weight
        if draw < 0.0:
            return Dudo() if bid is None else bid
    bid = mixed[-1][0]
    return Dudo() if bid is None else bid


def searched_action(view: GameView, rng: random.Random) -> Action:
    """Heads-up beyond the tables: the option of least expected loss (noised a little, with
    the style's bluffs)."""
    style = EXPERT
    reading = Reading.read(view, style)
    legal = view["you"]["legal"]
    rival = RIVAL_WEIGHT
    raises = sorted(
        (
            (raise_cost(reading, bid, rival, style) - TEMPO * bid.quantity / reading.total, bid)
            for bid, _ in candidate_raises(reading, legal["min_quantity"])
        ),
        key=lambda option: option[0],
    )
    bidder = bidder_hands(view, reading, rng)
    if bidder is not None and reading.next_seat == bidder[0]:
        raises = [
            (
                simulated_raise_cost(view, reading, bid, rival, style, bidder[1], rng)
                - TEMPO * bid.quantity / reading.total,
                bid,
            )
            for _, bid in raises[:SEARCHED_RAISES]
        ]
    options: list[tuple[float, Action]] = [
        (cost + rng.gauss(0.0, style.noise), bid) for cost, bid in raises
    ]
    if legal["dudo"] and reading.standing is not None:
        if bidder is None:
            held = reading.holds(reading.standing)
        else:
            held = weighted_holds(reading, reading.standing, bidder[0], bidder[1])
        cost = held - rival * (1.0 - held)
        options.append((cost + rng.gauss(0.0, style.noise), Dudo()))
    if not options:
        raise ValueError("the view allows no action: not this seat's turn")
    return pick(options, raises, style, rng)


def raise_cost(reading: Reading, bid: Bid, rival: float, style: Style) -> float:
    """Expected dice lost by raising to `bid`: summed over the next player's matching dice k,
    they call with a chance that falls with k, and the bid then fails unless the rest hold
    the quantity less k; when they raise instead we keep a share of the round's risk."""
    seat = reading.next_seat
    if seat is None:
        return 0.0
    seen = reading.seen_by_next(bid.face)
    rest = reading.unseen_without(seat, bid.face)
    needed = bid.quantity - reading.own_counts[bid.face - 1]
    called = lost = 0.0
    for k, weight in enumerate(reading.hand(seat, bid.face)):
        call = weight * logistic((bid.quantity - k - seen) / CALL_SOFTNESS)
        called += call
        lost += call * (1.0 - _tail(rest, needed - k))
    won = called - lost
    return lost - rival * won + (1.0 - called) * _carry(reading, rival, style)


Hands = list[tuple[list[int], float]]  # sampled dice of one seat, with their weights


def bidder_hands(view: GameView, reading: Reading, rng: random.Random) -> tuple[int, Hands] | None:
    """The standing bidder's seat and hands for them, sampled blind and weighted by whether a
    `hard` bot holding each would have made that bid (else by the chance of a slip, a bluff);
    None before any bid and in a palifico round (its locked face says little)."""
    round_ = view["round"]
    if round_ is None or not round_["bids"] or reading.palifico:
        return None
    *earlier, last = round_["bids"]
    bidder = last["seat"]
    bid = Bid(last["quantity"], last["face"])
    before = earlier[-1] if earlier else None
    standing = Bid(before["quantity"], before["face"]) if before else None
    legal: LegalView = {
        "min_quantity": min_quantities(BidContext(standing, reading.total)),
        "dudo": standing is not None,
        "calza": False,
    }
    sampled: Hands = []
    for _ in range(BIDDER_SAMPLES):
        dice = [rng.randint(1, 6) for _ in range(reading.counts[bidder])]
        theirs: GameView = {
            **view,
            "round": {**round_, "turn": bidder, "bid": before, "bids": earlier},
            "you": {"seat": bidder, "dice": dice, "legal": legal, "odds": None},
        }
        sampled.append((dice, 1.0 if heuristic_action(theirs, "hard", rng) == bid else SLIP))
    return bidder, sampled


def weighted_holds(reading: Reading, bid: Bid, seat: int, sampled: Hands) -> float:
    """P(`bid` holds) over `seat`'s sampled hands, the other unseen dice as the reading has
    them."""
    rest = reading.unseen_without(seat, bid.face)
    needed = bid.quantity - reading.own_counts[bid.face - 1]
    held = total = 0.0
    for dice, weight in sampled:
        held += weight * _tail(rest, needed - count_matching(dice, bid.face, aces_wild=True))
        total += weight
    return held / total


def simulated_raise_cost(
    view: GameView,
    reading: Reading,
    bid: Bid,
    rival: float,
    style: Style,
    sampled: Hands,
    rng: random.Random,
) -> float:
    """Expected dice lost by raising to `bid`, the next player (the standing bidder) holding
    each sampled hand and answering as a `hard` bot would."""
    seat = reading.next_seat
    round_ = view["round"]
    assert seat is not None and round_ is not None
    rest = reading.unseen_without(seat, bid.face)
    needed = bid.quantity - reading.own_counts[bid.face - 1]
    placed: BidView = {"quantity": bid.quantity, "face": bid.face, "seat": reading.me}
    legal: LegalView = {
        "min_quantity": min_quantities(BidContext(bid, reading.total)),
        "dudo": True,
        "calza": False,
    }
    carry = _carry(reading, rival, style)
    cost = total = 0.0
    for dice, weight in sampled:
        theirs: GameView = {
            **view,
            "round": {**round_, "turn": seat, "bid": placed, "bids": [*round_["bids"], placed]},
            "you": {"seat": seat, "dice": dice, "legal": legal, "odds": None},
        }
        if isinstance(heuristic_action(theirs, "hard", rng), Dudo):
            held = _tail(rest, needed - count_matching(dice, bid.face, aces_wild=True))
            cost += weight * ((1.0 - held) - rival * held)
        else:
            cost += weight * carry
        total += weight
    return cost / total


def _carry(reading: Reading, rival: float, style: Style) -> float:
    """What a raise that is not called still costs: our share of the round's die, less the
    rivals' share."""
    share = style.continuation / max(1, len(reading.counts) - 1)
    return share - rival * (1.0 - share)


def _tail(tails: Sequence[float], short: int) -> float:
    """P(at least `short`) from a tails table (certain at or below zero)."""
    return 1.0 if short <= 0 else (tails[short] if short < len(tails) else 0.0)
