"""Heads-up rounds as a solved game: the bid ladder, the hands, and the equilibrium tables.

With two players left a round has no palifico and no calza, aces are wild and may not open
(RULES.md 4 and 7). Every legal raise is then simply a later rung of one ladder (section 4's
order, where a aces sit between 2a sixes and 2a+1 twos), so a round's public history is the
set of rungs bid so far: a bit mask. The bidder who opened is player 0; the mover at a history
is the parity of its bids. `bench/solver.py build` solves each split of dice with CFR+
(`bench/cfr.py`) and writes `tables/headsup.bin`; the engine reads no file itself: whoever
starts it passes a reader of the bytes (`use_tables`), and `strategy` decodes them, standard
library only, when first needed. The file is tied to `RULES_VERSION`: a table made for other
rules is refused.
"""

from __future__ import annotations

import math
import struct
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

from app.engine.bids import ACE, FACES, Bid
from app.engine.game import count_matching

# Bump whenever a heads-up rule the tables depend on changes (ladder, counting, who opens).
RULES_VERSION = "perudo-headsup-1: aces wild, no aces opening, no calza, no palifico"
MAGIC = b"PHU1"
DUDO = 255  # the action code of dudo; raises are ladder indexes
PROBABILITY_SCALE = 255  # probabilities are stored as k / 255
SPLIT_HEADER = "<BBd"  # the split's dice, then its value


Hand = tuple[int, ...]


def ladder(total_dice: int) -> tuple[Bid, ...]:
    """Every bid of a normal round with `total_dice` dice, lowest first: a raise is legal iff
    it stands later on this ladder (and, opening, is not on aces)."""
    bids = [Bid(q, f) for q in range(1, total_dice + 1) for f in FACES]
    return tuple(sorted(bids, key=_rank))


def _rank(bid: Bid) -> tuple[int, int]:
    """a aces rank just above 2a sixes (RULES.md 4: after them, 2a + 1 is needed)."""
    return (2 * bid.quantity, 7) if bid.face == ACE else (bid.quantity, bid.face)


@cache
def hands(dice: int) -> tuple[tuple[Hand, ...], tuple[float, ...]]:
    """The sorted hands of `dice` dice and the chance of rolling each."""
    found = tuple(combinations_with_replacement(FACES, dice))
    weights = []
    for hand in found:
        ways = math.factorial(dice)
        for face in set(hand):
            ways //= math.factorial(hand.count(face))
        weights.append(ways / 6**dice)
    return found, tuple(weights)


def holds(bid: Bid, first: Hand, second: Hand) -> bool:
    """Whether `bid` holds with both hands revealed (aces wild)."""
    return count_matching((*first, *second), bid.face, aces_wild=True) >= bid.quantity


def history_mask(bids: Iterable[Bid], total_dice: int) -> int:
    """The round's bids as a set of ladder rungs; ValueError if they do not climb it."""
    rungs = _rungs(total_dice)
    mask = 0
    for bid in bids:
        rung = rungs[bid]
        if mask >> rung:
            raise ValueError(f"{bid} does not climb the ladder")
        mask |= 1 << rung
    return mask


@cache
def _rungs(total_dice: int) -> dict[Bid, int]:
    return {bid: index for index, bid in enumerate(ladder(total_dice))}


@dataclass(frozen=True, slots=True)
class PlayerTable:
    """One player's strategy for one split: sorted keys `mask << 8 | hand` (the history and
    the hand's index), and for key i the actions `codes[starts[i]:starts[i + 1]]` with
    weights `weights[...]`."""

    keys: array[int]
    starts: array[int]
    codes: bytes
    weights: bytes

    def lookup(self, position: int, hand: int) -> list[tuple[int, float]] | None:
        """The (action code, probability) pairs at this information set, or None if the
        table left it out (the player's own play never reaches it)."""
        key = position << 8 | hand
        index = bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            return None
        lo, hi = self.starts[index], self.starts[index + 1]
        total = sum(self.weights[lo:hi])
        return [(self.codes[i], self.weights[i] / total) for i in range(lo, hi)]


Split = tuple[int, int]  # (the opener's dice, the other player's dice)


@dataclass(frozen=True, slots=True)
class SplitTable:
    value: float  # the opener's payoff in [-1, 1], 2 * P(the opener wins the game) - 1
    players: tuple[PlayerTable, PlayerTable]


def strategy(
    split: Split, bids: Sequence[Bid], own: Sequence[int]
) -> list[tuple[Bid | None, float]] | None:
    """The equilibrium's mixed action for the player to move, holding `own` dice, after
    `bids` (None stands for dudo); None when no table covers the split or this history."""
    table = loaded_tables().get(split)
    if table is None:
        return None
    total = split[0] + split[1]
    position = history_mask(bids, total)
    player = len(bids) % 2
    dice = split[player]
    if len(own) != dice:
        raise ValueError(f"player {player} holds {dice} dice, not {len(own)}")
    hand = hands(dice)[0].index(tuple(sorted(own)))
    found = table.players[player].lookup(position, hand)
    if found is None:
        return None
    rungs = ladder(total)
    return [(None if code == DUDO else rungs[code], weight) for code, weight in found]


TableSource = Callable[[], bytes | None]  # the tables file's bytes, None when there is none
_sources: list[TableSource] = []


def use_tables(source: TableSource | None) -> None:
    """Where the tables come from: `source` is called once, when the expert first needs them
    (the server warms them at start-up); None, or a source that finds nothing: no tables, and
    the expert searches everywhere."""
    _sources[:] = [source] if source is not None else []
    loaded_tables.cache_clear()


@cache
def loaded_tables() -> dict[Split, SplitTable]:
    """The tables `use_tables` points at, decoded once; empty without them.

    Raises ValueError for a file made for other rules or in another format.
    """
    data = _sources[0]() if _sources else None
    return decode_tables(data) if data is not None else {}


def encode_tables(tables: dict[Split, SplitTable]) -> bytes:
    """The file format: magic, rules version, then per split and player the four arrays."""
    version = RULES_VERSION.encode()
    parts = [MAGIC, struct.pack("<H", len(version)), version, struct.pack("<H", len(tables))]
    for (first, second), split_table in sorted(tables.items()):
        parts.append(struct.pack(SPLIT_HEADER, first, second, split_table.value))
        for table in split_table.players:
            keys, starts = table.keys.tobytes(), table.starts.tobytes()
            sizes = (len(keys), len(starts), len(table.codes), len(table.weights))
            parts.append(struct.pack("<IIII", *sizes))
            parts += [keys, starts, table.codes, table.weights]
    return MAGIC + zlib.compress(b"".join(parts[1:]), 9)


def decode_tables(data: bytes) -> dict[Split, SplitTable]:
    if not data.startswith(MAGIC):
        raise ValueError("not a heads-up table file")
    body = zlib.decompress(data[len(MAGIC) :])
    (length,) = struct.unpack_from("<H", body, 0)
    version = body[2 : 2 + length].decode()
    if version != RULES_VERSION:
        raise ValueError(f"tables made for {version!r}, the rules are {RULES_VERSION!r}")
    at = 2 + length
    (count,) = struct.unpack_from("<H", body, at)
    at += 2
    tables: dict[Split, SplitTable] = {}
    for _ in range(count):
        first, second, value = struct.unpack_from(SPLIT_HEADER, body, at)
        at += struct.calcsize(SPLIT_HEADER)
        players = []
        for _player in range(2):
            sizes = struct.unpack_from("<IIII", body, at)
            at += 16
            chunks = []
            for size in sizes:
                chunks.append(body[at : at + size])
                at += size
            keys, starts = array("I"), array("I")
            keys.frombytes(chunks[0])
            starts.frombytes(chunks[1])
            players.append(PlayerTable(keys, starts, chunks[2], chunks[3]))
        tables[first, second] = SplitTable(value, (players[0], players[1]))
    return tables
