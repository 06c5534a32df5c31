"""The rooms' dice: the system's secure source, read in blocks, still fair; and the dice a
journal replays."""

from __future__ import annotations

import collections
import os
import random

import pytest

from app.rooms import dice
from app.rooms.dice import RecordedDice, SecureDice


def test_every_face_comes_up_about_equally() -> None:
    rolls = collections.Counter(SecureDice().randint(1, 6) for _ in range(60_000))
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    expected = 60_000 / 6
    chi_square = sum((count - expected) ** 2 / expected for count in rolls.values())
    assert chi_square < 45  # 5 degrees of freedom: a fair die exceeds this about once in 10^8


def test_small_ranges_come_from_single_bytes_and_large_ones_still_work() -> None:
    rng = SecureDice()
    assert {rng.randint(5, 5) for _ in range(100)} == {5}
    assert {rng.randint(0, 1) for _ in range(200)} == {0, 1}
    assert {rng.randint(-3, 3) for _ in range(2_000)} == set(range(-3, 4))
    bytes_wide = [rng.randint(0, 255) for _ in range(20_000)]
    assert min(bytes_wide) == 0 and max(bytes_wide) == 255
    large = [rng.randint(1, 10**12) for _ in range(100)]
    assert all(1 <= value <= 10**12 for value in large) and max(large) > 10**11
    with pytest.raises(ValueError):
        rng.randint(6, 1)


def test_bits_and_floats_stay_in_range() -> None:
    rng = SecureDice()
    for bits in range(0, 200):
        value = rng.getrandbits(bits)
        assert 0 <= value < 2**bits
    assert max(rng.getrandbits(200) for _ in range(50)).bit_length() > 190  # the top bits vary
    assert all(0.0 <= rng.random() < 1.0 for _ in range(1_000))
    with pytest.raises(ValueError):
        rng.getrandbits(-1)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the system source's reads from now on."""
    sizes: list[int] = []
    system_source = os.urandom

    def urandom(size: int) -> bytes:
        sizes.append(size)
        return system_source(size)

    monkeypatch.setattr(dice.os, "urandom", urandom)
    return sizes


def test_it_reads_the_system_source_a_block_at_a_time(reads: list[int]) -> None:
    rng = SecureDice()
    rolled = [rng.randint(1, 6) for _ in range(300)]  # sixty five-dice rounds
    assert len(set(rolled)) == 6
    assert 1 <= len(reads) <= 2 and reads[0] == dice.BLOCK_BYTES
    rng.getrandbits(8 * dice.BLOCK_BYTES * 2)  # more than a block at once
    assert reads[-1] == 2 * dice.BLOCK_BYTES


def test_it_cannot_be_seeded_into_repeating_itself() -> None:
    first, second = SecureDice(), SecureDice()
    first.seed(1)
    second.seed(1)
    assert isinstance(first, random.SystemRandom)
    assert [first.getrandbits(64) for _ in range(4)] != [second.getrandbits(64) for _ in range(4)]


def test_recorded_dice_roll_what_they_were_given_and_nothing_else() -> None:
    rng = RecordedDice([3, 6, 1])
    assert [rng.randint(1, 6) for _ in range(3)] == [3, 6, 1]
    with pytest.raises(ValueError):
        rng.randint(1, 6)  # no more faces
    with pytest.raises(ValueError):
        RecordedDice([2]).randint(1, 20)  # not a die
    with pytest.raises(ValueError):
        RecordedDice([0]).randint(1, 6)  # not a face


def test_a_dealt_hand_is_fair_and_the_blocks_run_on(reads: list[int]) -> None:
    rng = SecureDice()
    hands = [rng.deal(count) for count in [5, 4, 3, 2, 1, 5] * 2_000]  # across ~70 blocks
    assert [len(hand) for hand in hands[:6]] == [5, 4, 3, 2, 1, 5]
    assert all(isinstance(hand, tuple) for hand in hands)
    rolls = collections.Counter(face for hand in hands for face in hand)
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    expected = rolls.total() / 6
    assert sum((count - expected) ** 2 / expected for count in rolls.values()) < 45
    assert len(reads) <= rolls.total() / 252 * 1.1 + 1  # a byte a die, blocks read whole
    assert rng.deal(0) == ()
    assert 1 <= rng.randint(1, 6) <= 6  # the same block serves single dice after hands
