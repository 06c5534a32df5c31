"""What a client connection may do: the Origin rule and the per-connection rate limit."""

from __future__ import annotations

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
