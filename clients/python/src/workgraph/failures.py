"""What happens to an item whose handler raised: the failure policies of a worker.

The service keeps no retry count, and a release is not an expiry, so a poison item that
is released after every failure would go round forever. The default policy therefore
counts for it: :func:`release_then_ask_human` releases the item until handlers failed on
it that many times in a row (read from its lease history, across all workers), then pauses
it with a blocking question for a human.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .models import LeaseOutcome
from .problems import WorkGraphError

if TYPE_CHECKING:
    from ._lease import LeaseContext

__all__ = [
    "REASON_PREFIX",
    "AskHuman",
    "Cancel",
    "FailureAction",
    "FailurePolicy",
    "HandlerFailure",
    "Release",
    "ask_human",
    "release",
    "release_then_ask_human",
]

#: How a release made for a handler failure starts; the default policy counts such releases.
REASON_PREFIX = "handler failed: "
_MAX_REASON = 2000


@dataclass(frozen=True, slots=True)
class Release:
    """Give the item back to the queue."""

    reason: str


@dataclass(frozen=True, slots=True)
class AskHuman:
    """Pause the item with a blocking question; answering it makes the item ready again."""

    question: str
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Cancel:
    """Cancel the item (and its open descendants)."""

    reason: str


FailureAction = Release | AskHuman | Cancel


class HandlerFailure:
    """A handler's failure as a policy sees it: the lease, the exception, the earlier failures."""

    def __init__(self, lease: LeaseContext, exception: BaseException) -> None:
        self.lease = lease
        self.exception = exception
        self._earlier: int | None = None

    @property
    def summary(self) -> str:
        """``handler failed: <exception type>: <message>``, short enough for a reason."""
        message = str(self.exception)
        text = REASON_PREFIX + type(self.exception).__name__ + (f": {message}" if message else "")
        return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"

    def earlier_failures(self) -> int:
        """How many leases of the item, right before this one, ended by a release for a handler failure.

        Read from the item's lease history (any worker's) once; zero if it cannot be read.
        """
        if self._earlier is None:
            self._earlier = self._count()
        return self._earlier

    def _count(self) -> int:
        try:
            history = self.lease.client.item_leases(self.lease.item.id)
        except WorkGraphError:
            return 0
        failures = 0
        for earlier in reversed(history):
            if earlier.epoch >= self.lease.epoch:
                continue
            if earlier.outcome != LeaseOutcome.RELEASED or not (earlier.reason or "").startswith(REASON_PREFIX):
                break
            failures += 1
        return failures


FailurePolicy = Callable[[HandlerFailure], FailureAction]


def release() -> FailurePolicy:
    """Always release, with the failure as the reason. A poison item circulates forever."""
    return lambda failure: Release(failure.summary)


def ask_human() -> FailurePolicy:
    """Always pause the item with a question for a human."""
    return lambda failure: AskHuman(_question(failure, 1), _context(failure, 1))


def release_then_ask_human(failures_in_a_row: int = 3) -> FailurePolicy:
    """Release, unless this is the ``failures_in_a_row``-th failure in a row on the item: then ask a human."""
    if failures_in_a_row < 1:
        raise ValueError("failures_in_a_row must be at least 1")

    def decide(failure: HandlerFailure) -> FailureAction:
        failures = 1 if failures_in_a_row == 1 else failure.earlier_failures() + 1
        if failures >= failures_in_a_row:
            return AskHuman(_question(failure, failures), _context(failure, failures))
        return Release(failure.summary)

    return decide


def _question(failure: HandlerFailure, failures: int) -> str:
    times = "once" if failures == 1 else f"{failures} times in a row"
    return (
        f"The worker's handler failed on this item {times}; the last failure: {failure.summary}. "
        "Fix the cause (or the item), then resolve this request to let workers try again."
    )


def _context(failure: HandlerFailure, failures: int) -> dict[str, Any]:
    return {
        "workerId": failure.lease.worker_id,
        "exception": type(failure.exception).__qualname__,
        "message": str(failure.exception),
        "failuresInARow": failures,
    }
