"""Bids and the rules that order them (RULES.md sections 4 and 7)."""

from __future__ import annotations

import re
from dataclasses import dataclass

ACE = 1
FACES = range(1, 7)
_BID_TEXT = re.compile(r"^\s*(\d+)\s*[x\u00d7*]\s*([1-6])\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Bid:
    """A claim that at least `quantity` dice show `face`; parses from and prints as "7x4".

    >>> Bid.parse("7x4")
    Bid(quantity=7, face=4)
    >>> str(Bid(3, 1))
    '3x1'
    """

    quantity: int
    face: int

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Read "7x4" (also "7*4" or with the multiplication sign); else raise ValueError."""
        match = _BID_TEXT.match(text)
        if match is None:
            raise ValueError(f"not a bid: {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"


@dataclass(frozen=True, slots=True)
class BidContext:
    """What decides which bids are legal for one bidder at one moment of a round.

    `palifico` is a palifico round; `face_unlocked` is the one-die veteran's exception
    (RULES.md 7.4), and means nothing outside a palifico round.
    """

    standing: Bid | None
    total_dice: int
    palifico: bool = False
    face_unlocked: bool = False


def min_quantity(context: BidContext, face: int) -> int | None:
    """The least quantity the bidder may bid on `face` now, or None if the face is closed.

    Every quantity from it up to `total_dice` is legal too: legality is monotonic.
    """
    least = _least_unbounded(context, face)
    if least is None or least > context.total_dice:
        return None
    return max(least, 1)


def min_quantities(context: BidContext) -> list[int | None]:
    """`min_quantity` for faces 1..6, in that order (PROTOCOL.md `you.legal.min_quantity`)."""
    return [min_quantity(context, face) for face in FACES]


def is_legal(context: BidContext, bid: Bid) -> bool:
    """Whether `bid` may follow the standing bid; quantities run 1..total_dice, faces 1..6."""
    if bid.face not in FACES or not 1 <= bid.quantity <= context.total_dice:
        return False
    least = min_quantity(context, bid.face)
    return least is not None and bid.quantity >= least


def _least_unbounded(context: BidContext, face: int) -> int | None:
    standing = context.standing
    if context.palifico:
        if standing is None:
            return 1
        if face == standing.face:
            return standing.quantity + 1
        if not context.face_unlocked:
            return None
        # Veteran: ordinary ordering with aces as the lowest face, no ace conversion.
        return standing.quantity if face > standing.face else standing.quantity + 1
    if standing is None:
        return None if face == ACE else 1
    if standing.face == ACE:
        return standing.quantity + 1 if face == ACE else 2 * standing.quantity + 1
    if face == ACE:
        return -(-standing.quantity // 2)
    return standing.quantity if face > standing.face else standing.quantity + 1
