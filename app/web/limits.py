"""Who may do what, and how often: the Origin rule, the per-connection rate limit, the rooms an
address may create a minute, and the comparison of a secret (an invite code, the operator's
token) that does not tell how close a guess was."""

from __future__ import annotations

import hmac
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str]) -> bool:
    """No Origin (scripts, bots), our own origin, or one listed in PERUDO_ALLOWED_ORIGINS."""
    if origin is None or origin in allowed:
        return True
    parts = urlsplit(origin)
    return (
        parts.scheme in ("http", "https")
        and host is not None
        and parts.netloc.lower() == host.lower()
    )


@dataclass(frozen=True, slots=True)
class RateLimits:
    """PROTOCOL.md: 20 messages a second, bursts of 40; 50 refusals within 10 s is flooding."""

    rate: float = 20.0
    burst: float = 40.0
    flood: int = 50
    window: float = 10.0


class RateLimiter:
    """A token bucket per connection (never per address), counting its refusals."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._clock = clock
        self._tokens = limits.burst
        self._last = clock()
        self._refusals: deque[float] = deque()

    def allow(self) -> bool:
        """Take a token; False (a refusal, remembered) when the bucket is empty."""
        now = self._clock()
        limits = self._limits
        self._tokens = min(limits.burst, self._tokens + (now - self._last) * limits.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        self._refusals.append(now)
        return False

    @property
    def flooding(self) -> bool:
        """At least `flood` refusals within the last `window` seconds."""
        horizon = self._clock() - self._limits.window
        while self._refusals and self._refusals[0] <= horizon:
            self._refusals.popleft()
        return len(self._refusals) >= self._limits.flood


CREATION_WINDOW = 60.0  # seconds: PERUDO_ROOMS_PER_MINUTE counts creations within it


class CreationLimiter:
    """Rooms created per client address within the last minute (PERUDO_ROOMS_PER_MINUTE).

    Only the last minute's creations are held: an address whose creations are all older is
    forgotten, so the addresses seen over a server's life do not pile up.
    """

    def __init__(self) -> None:
        self._created: dict[str, deque[float]] = {}  # per address, oldest first
        self._order: deque[tuple[float, str]] = deque()  # every address's, oldest first

    def __len__(self) -> int:
        """Addresses with a creation in the last minute."""
        return len(self._created)

    def retry_after(self, address: str, per_minute: int) -> int | None:
        """Seconds until `address` may create a room, or None (and, under a limit, the creation
        is counted)."""
        now = time.monotonic()
        self._forget_before(now - CREATION_WINDOW)
        if not per_minute:
            return None
        times = self._created.setdefault(address, deque())
        if len(times) >= per_minute:
            return max(1, int(times[0] + CREATION_WINDOW - now + 1))
        times.append(now)
        self._order.append((now, address))
        return None

    def _forget_before(self, start: float) -> None:
        while self._order and self._order[0][0] <= start:
            _, address = self._order.popleft()
            times = self._created[address]
            times.popleft()
            if not times:
                del self._created[address]


def same_secret(given: str | None, expected: str) -> bool:
    """Whether `given` is the secret `expected`, in a time that does not tell how close it was."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())
