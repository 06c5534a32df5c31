"""The expert bot: it plays the shipped equilibrium tables heads-up, searches elsewhere, and
its tables are tied to the rules they were solved for."""

from __future__ import annotations

import random
import zlib
from collections import Counter

import pytest

from app.engine import Bid, Dudo, choose_action
from app.engine.expert import endgame_action
from app.engine.headsup import (
    MAGIC,
    RULES_VERSION,
    decode_tables,
    encode_tables,
    loaded_tables,
    strategy,
    use_tables,
)
from app.paths import headsup_tables
from tests.engine.test_bot import hand_view


def test_the_shipped_tables_cover_the_solved_splits() -> None:
    tables = loaded_tables()
    assert set(tables) == {(1, 1), (1, 2), (2, 1)}
    # the opener of a one-die round is behind; two dice against one win most games
    assert -0.08 < tables[1, 1].value < -0.03
    assert tables[2, 1].value > 0.4 and tables[1, 2].value < -0.4


def test_tables_made_for_other_rules_are_refused() -> None:
    data = encode_tables({(1, 1): loaded_tables()[1, 1]})
    assert decode_tables(data)[1, 1].value == loaded_tables()[1, 1].value
    body = zlib.decompress(data[len(MAGIC) :])
    other = body.replace(RULES_VERSION.encode(), b"x" * len(RULES_VERSION))
    with pytest.raises(ValueError, match="tables made for"):
        decode_tables(MAGIC + zlib.compress(other))
    with pytest.raises(ValueError, match="not a heads-up table"):
        decode_tables(b"nonsense")


def test_a_one_die_opening_is_a_mixed_strategy_over_legal_bids() -> None:
    seen: set[Bid | None] = set()
    for die in range(1, 7):
        mixed = strategy((1, 1), [], [die])
        assert mixed is not None
        assert sum(weight for _, weight in mixed) == pytest.approx(1.0)
        for bid, _ in mixed:
            assert bid is not None and bid.face != 1  # no dudo, no aces opening
            seen.add(bid)
    assert len(seen) > 1


def test_the_expert_samples_the_tables_mixed_strategy() -> None:
    """1v1, the opponent opened one three: the expert's answers follow the table's weights."""
    view = hand_view([5], {0: 1, 1: 1}, [(1, 3, 1)])
    mixed = strategy((1, 1), [Bid(1, 3)], [5])
    assert mixed is not None
    weights = {Dudo() if bid is None else bid: weight for bid, weight in mixed}
    rng = random.Random(3)
    answers = Counter(choose_action(view, "expert", rng) for _ in range(2000))
    assert set(answers) <= set(weights)
    for action, weight in weights.items():
        assert answers[action] / 2000 == pytest.approx(weight, abs=0.04)


@pytest.mark.parametrize("seed", range(20))
def test_a_sure_bid_is_never_doubted_and_an_impossible_one_always_is(seed: int) -> None:
    rng = random.Random(seed)
    # 1v2 (exact table): the one-die opener bid two sixes; we hold them, or nothing that helps
    assert endgame_action(hand_view([6, 6], {0: 2, 1: 1}, [(2, 6, 1)]), rng) != Dudo()
    assert endgame_action(hand_view([2, 3], {0: 2, 1: 1}, [(3, 6, 1)]), rng) == Dudo()
    # 2v3, no table, and three players: the played-out rounds decide
    assert choose_action(hand_view([6, 6], {0: 2, 1: 3}, [(2, 6, 1)]), "expert", rng) != Dudo()
    assert choose_action(hand_view([2, 3], {0: 2, 1: 3}, [(6, 6, 1)]), "expert", rng) == Dudo()
    crowd = {0: 2, 1: 1, 2: 1}
    assert choose_action(hand_view([6, 6], crowd, [(2, 6, 1)]), "expert", rng) != Dudo()
    assert choose_action(hand_view([2, 3], crowd, [(5, 6, 1)]), "expert", rng) == Dudo()


def test_no_table_outside_a_normal_heads_up_round() -> None:
    crowd = hand_view([4, 4], {0: 2, 1: 1, 2: 1}, [(1, 3, 1)])
    assert endgame_action(crowd, random.Random(1)) is None
    palifico = hand_view([4], {0: 1, 1: 1}, [(1, 3, 1)])
    assert palifico["round"] is not None
    palifico["round"]["palifico"] = True
    assert endgame_action(palifico, random.Random(1)) is None


def test_a_table_that_is_missing_leaves_the_expert_searching() -> None:
    """The engine reads no file: without a source, or one that finds nothing, there are no
    tables, and the expert still plays heads-up, by its search."""
    view = hand_view([2, 3], {0: 2, 1: 1}, [(3, 6, 1)])
    try:
        for source in (None, lambda: None):
            use_tables(source)
            assert loaded_tables() == {}
            assert strategy((2, 1), [], [2, 3]) is None
            assert choose_action(view, "expert", random.Random(1)) == Dudo()
    finally:
        use_tables(headsup_tables)
    assert set(loaded_tables()) == {(1, 1), (1, 2), (2, 1)}
