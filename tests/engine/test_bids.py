"""RULES.md sections 4 and 7: bid legality, including every worked example of section 10."""

from __future__ import annotations

import pytest

from app.engine.bids import Bid, BidContext, is_legal, min_quantities, min_quantity

TOTAL = 30  # enough dice on the table for every example

# (example number, standing bid or None, new bid, legal?)
NORMAL_EXAMPLES = [
    (1, "7x4", "7x5", True),
    (2, "7x4", "8x2", True),
    (3, "7x4", "6x6", False),
    (4, "7x4", "7x2", False),
    (5, "7x4", "9x3", True),
    (6, "8x6", "4x1", True),
    (7, "8x6", "3x1", False),
    (8, "11x3", "6x1", True),
    (9, "11x3", "5x1", False),
    (10, "4x1", "5x1", True),
    (11, "4x1", "9x2", True),
    (12, "4x1", "8x6", False),
    (13, "6x1", "13x4", True),
    (14, "5x1", "11x3", True),
    (15, "9x4", "5x1", True),
    (16, None, "3x1", False),
]


@pytest.mark.parametrize(("number", "standing", "new", "legal"), NORMAL_EXAMPLES)
def test_worked_examples_normal_round(
    number: int, standing: str | None, new: str, legal: bool
) -> None:
    context = BidContext(Bid.parse(standing) if standing else None, TOTAL)
    assert is_legal(context, Bid.parse(new)) is legal, f"example {number}"


# (example number, standing, new, bidder is a one-die veteran, legal?)
PALIFICO_EXAMPLES = [
    (17, "2x3", "3x3", False, True),
    (18, "2x3", "2x4", False, False),
    (19, "2x3", "2x4", True, True),
    (20, None, "2x1", False, True),
    (21, "2x3", "3x1", False, False),
]


@pytest.mark.parametrize(("number", "standing", "new", "veteran", "legal"), PALIFICO_EXAMPLES)
def test_worked_examples_palifico_round(
    number: int, standing: str | None, new: str, veteran: bool, legal: bool
) -> None:
    context = BidContext(
        Bid.parse(standing) if standing else None, TOTAL, palifico=True, face_unlocked=veteran
    )
    assert is_legal(context, Bid.parse(new)) is legal, f"example {number}"


def test_opening_bid_any_quantity_any_face_but_aces() -> None:
    context = BidContext(None, 10)
    assert min_quantities(context) == [None, 1, 1, 1, 1, 1]
    assert is_legal(context, Bid(10, 6))
    assert not is_legal(context, Bid(1, 1))


@pytest.mark.parametrize(
    "bid", [Bid(0, 3), Bid(-1, 3), Bid(11, 3), Bid(3, 0), Bid(3, 7), Bid(11, 1)]
)
def test_quantity_and_face_out_of_range_are_refused(bid: Bid) -> None:
    assert not is_legal(BidContext(None, 10), bid)
    assert not is_legal(BidContext(Bid(1, 2), 10), bid)


def test_quantity_is_capped_by_total_dice_even_for_aces() -> None:
    context = BidContext(Bid(5, 1), 10)
    assert min_quantity(context, 1) == 6
    assert min_quantity(context, 4) is None  # would need 11 > 10 dice
    assert not is_legal(context, Bid(11, 4))


def test_veteran_may_reach_aces_only_with_a_higher_quantity() -> None:
    context = BidContext(Bid(2, 3), TOTAL, palifico=True, face_unlocked=True)
    assert min_quantities(context) == [3, 3, 3, 2, 2, 2]
    assert not is_legal(context, Bid(2, 1))
    assert is_legal(context, Bid(3, 1))
    assert not is_legal(context, Bid(2, 2))


def test_palifico_face_is_locked_for_everyone_else() -> None:
    context = BidContext(Bid(4, 5), TOTAL, palifico=True)
    assert min_quantities(context) == [None, None, None, None, 5, None]


def test_palifico_opening_allows_every_face() -> None:
    assert min_quantities(BidContext(None, 8, palifico=True)) == [1] * 6


@pytest.mark.parametrize("text", ["7x4", "7X4", " 7 x 4 ", "7*4", "7\u00d74"])
def test_parse_accepts_common_spellings(text: str) -> None:
    assert Bid.parse(text) == Bid(7, 4)
    assert str(Bid.parse(text)) == "7x4"


@pytest.mark.parametrize("text", ["", "7", "x4", "7x7", "7x0", "seven fours", "7x4x"])
def test_parse_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError, match="not a bid"):
        Bid.parse(text)


def test_bid_is_frozen_value() -> None:
    bid = Bid(3, 4)
    assert bid == Bid(3, 4)
    assert hash(bid) == hash(Bid(3, 4))
    with pytest.raises(AttributeError):
        bid.quantity = 5  # type: ignore[misc]
