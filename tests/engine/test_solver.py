"""The heads-up solver (`bench/cfr.py`): its ladder is the rules' order, its values are the
round's, and CFR+ reaches the equilibrium of a 1v1 round (exploitability at most 0.001)."""

from __future__ import annotations

import itertools
from functools import cache

import pytest

from app.engine.bids import Bid, BidContext, is_legal
from app.engine.headsup import hands, history_mask, ladder
from bench.cfr import LastBidSolver, RoundSolver


@pytest.mark.parametrize("total", [2, 3, 5])
def test_the_ladder_orders_bids_as_the_rules_do(total: int) -> None:
    rungs = ladder(total)
    assert len(rungs) == 6 * total
    opening = {bid for bid in rungs if is_legal(BidContext(None, total), bid)}
    assert opening == {bid for bid in rungs if bid.face != 1}  # aces never open heads-up
    for at, standing in enumerate(rungs):
        legal = {bid for bid in rungs if is_legal(BidContext(standing, total), bid)}
        assert legal == set(rungs[at + 1 :]), standing


def test_a_history_is_the_set_of_rungs_and_must_climb() -> None:
    assert history_mask([Bid(1, 2), Bid(1, 1)], 2) == 1 | 1 << 10
    with pytest.raises(ValueError, match="does not climb"):
        history_mask([Bid(1, 1), Bid(1, 2)], 2)


def test_hands_are_the_sorted_rolls_with_their_chances() -> None:
    found, weights = hands(2)
    assert len(found) == 21 and sum(weights) == pytest.approx(1.0)
    assert weights[found.index((3, 3))] == pytest.approx(1 / 36)
    assert weights[found.index((2, 5))] == pytest.approx(2 / 36)


def test_the_vectorised_values_are_the_rounds_expected_payoff() -> None:
    """Uniform play in a 1v1 round, valued by the solver and by plain recursion."""
    solver = RoundSolver(1, 1)
    raise_, dudo = solver.average()  # nothing accumulated yet: uniform over the legal actions
    reach = solver.reaches(raise_, 1)
    values, _ = solver.values(0, raise_, dudo, reach, best=False)

    @cache
    def expected(mask: int, h0: int, h1: int) -> float:
        top = mask.bit_length() - 1
        moves: list[int | None] = [
            b
            for b in range(top + 1, solver.rungs)
            if not (mask == 0 and solver.ladder[b].face == 1)
        ]
        if mask:
            moves.append(None)
        total = 0.0
        for move in moves:
            if move is None:
                total += solver.payoff[top, solver.mover[mask], h0, h1] / len(moves)
            else:
                total += expected(mask | 1 << move, h0, h1) / len(moves)
        return total

    plain = sum(expected(0, h0, h1) / 36 for h0, h1 in itertools.product(range(6), repeat=2))
    assert float(values[0].sum()) == pytest.approx(plain, abs=1e-6)
    assert plain != pytest.approx(0.0, abs=1e-3)  # a real payoff, not a trivial one


def test_cfr_plus_solves_a_one_die_round() -> None:
    solver = RoundSolver(1, 1)
    start, _ = solver.exploitability(*solver.average())
    solution = solver.solve(target=0.001, max_iterations=300)
    assert start > 0.1  # uniform play is far from the equilibrium
    assert solution.exploitability <= 0.001
    # the opener's disadvantage: the second player bids with the opening bid in view
    assert -0.08 < solution.value < -0.03


def test_the_last_bid_abstraction_is_measured_in_the_real_round() -> None:
    """Imperfect recall costs a little in 1v1: close to the equilibrium, but not exactly it."""
    abstract = LastBidSolver(1, 1)
    abstract.iterate(150)
    policy = abstract.average()
    gap, _ = RoundSolver(1, 1).exploitability(*abstract.expand(policy))
    assert 0.001 < gap < 0.03
    assert abstract.value(policy) == pytest.approx(-0.0554, abs=0.005)


def test_a_window_limits_the_abstractions_raises() -> None:
    solver = LastBidSolver(2, 2, window=4)
    for node in range(1, solver.nodes):
        assert solver.legal[node, : solver.rungs].sum() <= 4
    assert solver.legal[0, : solver.rungs].sum() == 5 * 4  # any opening bid but aces
