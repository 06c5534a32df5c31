"""The odds helper (PROTOCOL.md `you.odds`): how likely a bid is to hold, given one's own dice.

Exact binomial over the dice one cannot see: each shows a face that meets a bid on f with
chance 2/6 when aces are wild (f itself or an ace), 1/6 on aces and in a palifico round.
Own dice are counted as the reveal would count them (RULES.md section 3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from app.engine.bids import FACES, Bid
from app.engine.game import Game, count_matching, match_chance
from app.engine.wire import OddsView


def chance_holds(bid: Bid, own: Sequence[int], total_dice: int, *, palifico: bool) -> float:
    """P(at least `bid.quantity` of `total_dice` dice meet `bid`), knowing only `own` dice."""
    aces_wild = not palifico
    needed = bid.quantity - count_matching(own, bid.face, aces_wild=aces_wild)
    unseen = total_dice - len(own)
    if needed <= 0:
        return 1.0
    if needed > unseen:
        return 0.0
    return _tails(unseen, match_chance(bid.face, aces_wild=aces_wild))[needed]


def odds_view(game: Game, seat: int | None) -> OddsView:
    """`you.odds` for `seat`: the standing bid and the least legal bid on each face.

    A seat without dice this round (a spectator, a player who is out) knows no die: its chances
    are the table's. Entries are None where there is no bid: no standing bid, a closed face.
    """
    round_ = game.round
    if round_ is None:
        return {"bid": None, "min_raise": [None] * len(FACES)}
    own = round_.dice.get(seat, ()) if seat is not None else ()
    total = game.total_dice()

    def chance(bid: Bid) -> float:
        return chance_holds(bid, own, total, palifico=round_.palifico)

    standing = round_.standing
    least = game.options(seat).min_quantity
    return {
        "bid": None if standing is None else chance(standing.bid),
        "min_raise": [
            None if quantity is None else chance(Bid(quantity, face))
            for face, quantity in zip(FACES, least, strict=True)
        ],
    }


@lru_cache(maxsize=128)
def _tails(unseen: int, p: float) -> tuple[float, ...]:
    """P(at least k of `unseen` dice match), k = 0..unseen, each die matching with chance `p`."""
    pmf = [math.comb(unseen, k) * p**k * (1 - p) ** (unseen - k) for k in range(unseen + 1)]
    tails = [0.0] * (unseen + 1)
    running = 0.0
    for k in range(unseen, -1, -1):
        running += pmf[k]
        tails[k] = running
    return tuple(tails)
