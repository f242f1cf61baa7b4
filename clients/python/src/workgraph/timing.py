"""Pure timing rules of the worker runtime: back-off between retries, and a lease's clock."""

from __future__ import annotations

import random as _random
from dataclasses import dataclass

__all__ = ["Backoff", "LeaseClock"]

#: The longest ``Retry-After`` honoured; anything longer is taken as this.
LONGEST_RETRY_AFTER = 300.0


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped exponential back-off with full jitter, in seconds.

    The n-th retry in a row waits a random time between zero and
    ``min(maximum, initial * 2**(n-1))``, so that many workers failing together do not
    retry together. When the service says how long to wait (``Retry-After``), the wait is
    at least that, spread by up to ``initial``.
    """

    initial: float
    maximum: float

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.maximum:
            raise ValueError(f"Back-off needs 0 < initial <= maximum, got {self.initial} and {self.maximum}")

    def ceiling(self, attempt: int) -> float:
        """The longest wait before retry number ``attempt`` (1 for the first retry)."""
        ceiling = self.initial
        for _ in range(1, attempt):
            if ceiling >= self.maximum:
                break
            ceiling *= 2
        return min(ceiling, self.maximum)

    def delay(self, attempt: int, retry_after: float | None = None, rng: _random.Random | None = None) -> float:
        """How long to wait before retry number ``attempt``; ``retry_after`` is what the service asked for."""
        draw = (rng or _random).uniform
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, LONGEST_RETRY_AFTER) + draw(0, self.initial)
        return draw(0, self.ceiling(attempt))


class LeaseClock:
    """How long a lease has left, by elapsed monotonic time only.

    The service's ``expiresAt`` is never compared with the local wall clock: the two may
    disagree by any amount. The service sets ``expiresAt`` to its own now plus the length
    when it handles a claim or renewal, which is after the request was sent; so the lease
    lives at least until *send time + length* on the local monotonic clock. That is the
    deadline kept here, always on the safe side. A renewal is due a third of the length
    after the last confirmed send, leaving two thirds for retries.

    Not thread-safe: its owner locks.
    """

    def __init__(self, confirmed_at: float, length: float) -> None:
        """``confirmed_at``: the monotonic time at which the lease surely lived ``length`` more seconds."""
        self._confirmed_at = confirmed_at
        self._length = _positive(length)

    @property
    def length(self) -> float:
        return self._length

    def confirmed(self, sent_at: float, length: float) -> None:
        """A renewal sent at ``sent_at`` granted ``length``; a late answer never moves the deadline back."""
        self._confirmed_at = max(self._confirmed_at, sent_at)
        self._length = _positive(length)

    @property
    def renewal_due(self) -> float:
        return self._confirmed_at + self._length / 3

    @property
    def deadline(self) -> float:
        """When the lease must be taken as dead unless a renewal succeeded since."""
        return self._confirmed_at + self._length

    def remaining(self, now: float) -> float:
        """Seconds until the deadline; zero or less once past it."""
        return self.deadline - now

    def expired(self, now: float) -> bool:
        return self.remaining(now) <= 0


def _positive(length: float) -> float:
    if not length > 0:
        raise ValueError(f"A lease length must be positive, got {length}")
    return float(length)
