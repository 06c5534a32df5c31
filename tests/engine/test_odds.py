"""The odds helper (PROTOCOL.md `you.odds`) against a full enumeration of the unseen dice."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import pytest

from app.engine import Bid, Game, GameSettings, chance_holds, odds_view
from app.engine.game import PlacedBid, PlayerState, RoundState
from tests.engine.helpers import played, scripted_game


def counted(dice: list[int], face: int, *, palifico: bool) -> int:
    """RULES.md section 3, written out again so the enumeration does not trust the engine."""
    wild = not palifico and face != 1
    return sum(1 for die in dice if die == face or (wild and die == 1))


def enumerated(bid: Bid, own: list[int], unseen: int, *, palifico: bool) -> Fraction:
    """P(the bid holds): every one of the 6**unseen outcomes of the unseen dice, counted."""
    holding = sum(
        1
        for outcome in product(range(1, 7), repeat=unseen)
        if counted([*own, *outcome], bid.face, palifico=palifico) >= bid.quantity
    )
    return Fraction(holding, 6**unseen)


def close(chance: float | None, exact: Fraction) -> bool:
    return chance is not None and math.isclose(chance, exact, rel_tol=0.0, abs_tol=1e-12)


def table(
    hands: dict[int, list[int]],
    bids: list[tuple[int, int, int]],
    *,
    turn: int,
    palifico_seat: int | None = None,
    veterans: frozenset[int] = frozenset(),
) -> Game:
    """A game in the middle of a round, built from its parts: `bids` are (quantity, face, seat)."""
    players = [
        PlayerState(seat, len(hand), seat in veterans or seat == palifico_seat)
        for seat, hand in hands.items()
    ]
    round_ = RoundState(
        number=1,
        opener=bids[0][2] if bids else turn,
        turn=turn,
        palifico_seat=palifico_seat,
        bids=[PlacedBid(Bid(q, f), s) for q, f, s in bids],
        dice={seat: tuple(hand) for seat, hand in hands.items()},
    )
    return Game.restore(
        settings=GameSettings(),
        rng=random.Random(0),
        players=players,
        rounds=[],
        round=round_,
        last_result=None,
        winner=None,
        eliminated=[],
    )


OWN_HANDS = [[], [1], [6], [1, 6, 6], [2, 3, 4, 5], [1, 1, 3, 3, 6]]


@pytest.mark.parametrize("palifico", [False, True], ids=["aces wild", "palifico"])
@pytest.mark.parametrize("unseen", range(5))
@pytest.mark.parametrize("own", OWN_HANDS, ids=str)
def test_chance_holds_is_the_enumerated_chance(own: list[int], unseen: int, palifico: bool) -> None:
    total = len(own) + unseen
    for face in range(1, 7):
        for quantity in range(1, total + 2):
            bid = Bid(quantity, face)
            exact = enumerated(bid, own, unseen, palifico=palifico)
            assert close(chance_holds(bid, own, total, palifico=palifico), exact), bid


@dataclass(frozen=True)
class Case:
    """A round in progress, and the seat whose odds are checked."""

    hands: dict[int, list[int]]
    bids: list[tuple[int, int, int]]
    turn: int
    me: int
    palifico_seat: int | None = None
    veterans: frozenset[int] = frozenset()

    def game(self) -> Game:
        return table(
            self.hands,
            self.bids,
            turn=self.turn,
            palifico_seat=self.palifico_seat,
            veterans=self.veterans,
        )


THREE = {0: [1, 4], 1: [2], 2: [3, 5]}
PALIFICO = {0: [1], 1: [6, 6], 2: [1, 2]}
CASES = {
    "opening: no aces": Case(THREE, [], turn=0, me=0),
    "after a face bid": Case(THREE, [(2, 4, 2)], turn=0, me=0),
    "after an aces bid": Case(THREE, [(1, 1, 2)], turn=0, me=0),
    "not our turn": Case(THREE, [(2, 4, 2)], turn=0, me=1),
    "palifico opening": Case(PALIFICO, [], turn=0, me=0, palifico_seat=0),
    "palifico locked": Case(PALIFICO, [(1, 3, 0)], turn=1, me=1, palifico_seat=0),
    "palifico veteran": Case(
        {0: [1], 1: [6], 2: [1, 2]},
        [(1, 3, 0)],
        turn=1,
        me=1,
        palifico_seat=0,
        veterans=frozenset({1}),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_odds_view_is_the_enumerated_chance_of_each_least_legal_bid(name: str) -> None:
    case = CASES[name]
    game = case.game()
    assert game.round is not None
    palifico = game.round.palifico
    own = case.hands[case.me]
    unseen = game.total_dice() - len(own)
    odds = odds_view(game, case.me)
    standing = game.round.standing
    if standing is None:
        assert odds["bid"] is None
    else:
        assert close(odds["bid"], enumerated(standing.bid, own, unseen, palifico=palifico))
    least = game.options(case.me).min_quantity
    assert [chance is None for chance in odds["min_raise"]] == [q is None for q in least]
    for face, (quantity, chance) in enumerate(zip(least, odds["min_raise"], strict=True), 1):
        if quantity is not None:
            exact = enumerated(Bid(quantity, face), own, unseen, palifico=palifico)
            assert close(chance, exact), (face, quantity)


def test_the_cases_cover_open_and_closed_faces() -> None:
    """The cases above are what their names say: which faces are open, and from where."""
    least = {name: case.game().options(case.me).min_quantity for name, case in CASES.items()}
    assert least["opening: no aces"] == (None, 1, 1, 1, 1, 1)
    assert least["after an aces bid"] == (2, 3, 3, 3, 3, 3)
    assert least["not our turn"] == (None,) * 6
    assert least["palifico opening"] == (1,) * 6
    assert least["palifico locked"] == (None, None, 2, None, None, None)
    assert least["palifico veteran"] == (2, 2, 2, 1, 1, 1)


def test_aces_are_wild_except_in_palifico() -> None:
    # Own 6 and 1, one unseen die: three sixes need a six or an ace; two aces need an ace.
    normal = table({0: [6, 1], 1: [4]}, [(3, 6, 1)], turn=0)
    assert odds_view(normal, 0) == {
        "bid": pytest.approx(1 / 3),
        "min_raise": [pytest.approx(1 / 6), None, None, None, None, None],
    }
    # Two sixes: sure with wild aces; in palifico one of the two unseen dice must be a six.
    hands = {0: [6, 1], 1: [4], 2: [5]}
    assert odds_view(table(hands, [(2, 6, 2)], turn=0), 0)["bid"] == 1.0
    palifico = table(hands, [(2, 6, 2)], turn=0, palifico_seat=2)
    assert odds_view(palifico, 0)["bid"] == pytest.approx(11 / 36)


def test_an_aces_bid_counts_only_aces() -> None:
    game = table({0: [1, 5], 1: [3]}, [(2, 1, 1)], turn=0)
    odds = odds_view(game, 0)
    assert odds["bid"] == pytest.approx(1 / 6)
    # Back to a face needs 2*2+1 = 5 > 3 dice: closed; three aces: one unseen die cannot.
    assert odds["min_raise"] == [0.0, None, None, None, None, None]


def test_a_sure_bid_is_one_and_an_impossible_bid_is_zero() -> None:
    sure = table({0: [6, 6, 1], 1: [2, 2]}, [(3, 6, 1)], turn=0)
    assert odds_view(sure, 0)["bid"] == 1.0
    impossible = table({0: [2, 3], 1: [4]}, [(3, 6, 1)], turn=0)
    assert odds_view(impossible, 0) == {"bid": 0.0, "min_raise": [0.0] + [None] * 5}


def test_nothing_to_weigh_is_null() -> None:
    game, _ = scripted_game([6, 1], [[2, 3, 4, 5, 6], [1, 1, 2, 2, 3]])
    opening = odds_view(game, 0)
    assert opening["bid"] is None and opening["min_raise"][0] is None  # aces never open
    assert opening["min_raise"][1:] == [pytest.approx(1.0)] * 5  # one die of each: one is sure
    assert odds_view(game, 1) == {"bid": None, "min_raise": [None] * 6}  # not its turn
    assert odds_view(game, None) == {"bid": None, "min_raise": [None] * 6}
    finished, _ = played([0, 1, 2], GameSettings(), 5, 5000)
    assert finished.finished
    for seat in [None, 0, 1, 2]:
        assert odds_view(finished, seat) == {"bid": None, "min_raise": [None] * 6}


def test_a_spectator_weighs_every_die_as_unseen() -> None:
    game = table({0: [6, 6], 1: [2, 2]}, [(2, 6, 1)], turn=0)
    spectator = odds_view(game, None)
    assert close(spectator["bid"], enumerated(Bid(2, 6), [], 4, palifico=False))
    assert spectator["min_raise"] == [None] * 6


def test_odds_depend_only_on_what_the_seat_sees() -> None:
    """Other seats' hidden dice re-rolled: the same odds (they must not leak into the helper)."""
    checked = 0
    for seed in range(60):
        game, _ = played([0, 2, 3, 5], GameSettings(), seed, seed % 25)
        if game.round is None:
            continue
        for seat in game.active_seats():
            before = odds_view(game, seat)
            reroll = random.Random(~seed)
            for other, dice in game.round.dice.items():
                if other != seat:
                    game.round.dice[other] = tuple(reroll.randint(1, 6) for _ in dice)
            assert odds_view(game, seat) == before
            checked += 1
    assert checked > 100
