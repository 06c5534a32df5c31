"""The dice of live rooms: the operating system's secure random source, read in blocks; and
the dice a journal replays, the faces it recorded."""

from __future__ import annotations

import os
import random
from collections.abc import Iterable

BLOCK_BYTES = 512  # one system call rolls about 170 rounds of dice
# bytes.translate's table and deletions that turn random bytes into fair faces: a byte's face
# is 1 + byte % 6, and the four bytes past the last whole multiple of six are dropped.
_DIE = (bytes(1 + byte % 6 for byte in range(256)), bytes(range(252, 256)))


class SecureDice(random.SystemRandom):
    """`secrets.SystemRandom` that reads `os.urandom` a block at a time instead of once per
    die: the same unpredictable numbers, for a fraction of the system calls. One per room,
    used on the event loop only (it is not thread-safe)."""

    def __init__(self) -> None:
        super().__init__()
        self._pool = b""
        self._used = 0
        self._faces = b""  # a block already turned into dice, for `randint(1, 6)`
        self._rolled = 0

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        if self._used + size > len(self._pool):
            self._pool, self._used = os.urandom(max(BLOCK_BYTES, size)), 0
        chunk = self._pool[self._used : self._used + size]
        self._used += size
        return int.from_bytes(chunk) >> (size * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def deal(self, count: int) -> tuple[int, ...]:
        """`count` dice at once (a hand; `Game` deals with it where the source offers it), from
        the same block of faces as `randint(1, 6)`: one call a hand instead of one a die."""
        while len(self._faces) - self._rolled < count:
            fresh = os.urandom(BLOCK_BYTES).translate(*_DIE)
            self._faces, self._rolled = self._faces[self._rolled :] + fresh, 0
        start = self._rolled
        self._rolled += count
        return tuple(self._faces[start : self._rolled])

    def randint(self, a: int, b: int) -> int:
        """A die (or any range of at most 256 numbers) from one byte of the block, unbiased:
        a byte past the last whole multiple of the range is skipped. A third of the cost
        of `random`'s generic way, which took several calls and an int per die; a die
        (1 to 6, thirty of them a deal) comes from a block turned into faces at once."""
        if a == 1 and b == 6:
            while self._rolled >= len(self._faces):
                self._faces, self._rolled = os.urandom(BLOCK_BYTES).translate(*_DIE), 0
            self._rolled += 1
            return self._faces[self._rolled - 1]
        width = b - a + 1
        if not 0 < width <= 256:
            return super().randint(a, b)
        limit = 256 - 256 % width
        while True:
            if self._used >= len(self._pool):
                self._pool, self._used = os.urandom(BLOCK_BYTES), 0
            byte = self._pool[self._used]
            self._used += 1
            if byte < limit:
                return a + byte % width


class RecordedDice(random.Random):
    """Rolls the faces it was given, in order, and nothing else: a replayed deal comes out
    as it was dealt. Asked for more than it holds, or for anything but a die, it raises
    ValueError (the records do not fit the game)."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(0)
        self._faces = iter(faces)

    def randint(self, a: int, b: int) -> int:
        face = next(self._faces, None)
        if (a, b) != (1, 6) or face is None or not 1 <= face <= 6:
            raise ValueError("the recorded deal does not fit the game")
        return face
