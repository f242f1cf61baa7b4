"""A handler slot's turn on one lease: run the handler, then settle the lease by what it did.

- it **returned** → the item is completed with the value (None: no result), asking for the
  slot's next item with the same request (``claimNext``) unless the worker is stopping;
  unless the handler ended the lease itself, in which case the value is ignored;
- it **raised** → the failure policy decides: release, ask a human, or cancel;
- the **lease was lost** → nothing is sent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import _outcomes
from ._lease import LeaseContext
from .client import WorkGraphClient
from .failures import AskHuman, Cancel, FailurePolicy, HandlerFailure, Release
from .models import Claim, CompletedWithNext, EndedLease, LeaseOutcome
from .problems import LeaseLost, LeaseRejected, LostReason, RequestRejected, WorkGraphError

__all__ = ["Next", "run_handler"]

_log = logging.getLogger("workgraph.worker")

#: What a completion asks for as ``claimNext`` now (``queues``, ``lease_seconds``), or None.
NextClaim = Callable[[], dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class Next:
    """An item claimed with a completion, and when that completion was sent and answered."""

    claim: Claim
    sent_at: float
    received_at: float


def run_handler(
    lease: LeaseContext, handler: Callable[[LeaseContext], Any], policy: FailurePolicy, next_claim: NextClaim
) -> Next | None:
    """Runs the handler on this thread and settles the lease; the item claimed next, if any."""
    try:
        try:
            result = handler(lease)
        except LeaseLost as lost:
            # A refusal of the handler's own direct write under this lease: it is gone.
            if not lease.lost and isinstance(lost, LeaseRejected) and lost.lease_id == lease.lease_id:
                lease._lose(LostReason.REFUSED, f"The service refused a write of the handler: {lost}", lost)
            return None
        except Exception as failure:  # noqa: BLE001 - the handler's failure is the policy's to judge
            _act_on_failure(lease, failure, policy)
            return None
        if lease._holds():
            try:
                return _complete_with_result(lease, result, next_claim)
            except LeaseLost:
                pass  # told already
            except RequestRejected as rejected:  # open_children, unmet_dependencies, ...
                _act_on_failure(lease, rejected, policy)
            except WorkGraphError as failure:
                _log.warning("%s: could not complete: %s", lease, failure)
        elif result is not None and lease.lost:
            _log.debug("%s: the handler's result was not sent: the lease is no longer held", lease)
        return None
    finally:
        lease._abandon_if_held()


@dataclass(frozen=True, slots=True)
class _WithNext:
    answer: CompletedWithNext
    sent_at: float
    received_at: float


def _complete_with_result(lease: LeaseContext, result: Any, next_claim: NextClaim) -> Next | None:
    """Completes, settled like ``lease.complete``; asks for the next item unless the worker is stopping."""

    def write(client: WorkGraphClient) -> _WithNext | CompletedWithNext | EndedLease:
        wanted = next_claim()
        if wanted is None:
            return client.complete(lease.lease, result)
        sent_at = time.monotonic()
        answer = client.complete_and_claim_next(lease.lease, result, **wanted)
        if answer.next is not None:
            return _WithNext(answer, sent_at, time.monotonic())
        if answer.next_problem is not None:
            _log.debug("%s: the claim made with the completion failed (%s)", lease, answer.next_problem)
        return answer

    done = lease._end("complete", LeaseOutcome.COMPLETED, write, _outcomes.ended_lease)
    if isinstance(done, _WithNext) and done.answer.next is not None:
        return Next(done.answer.next, done.sent_at, done.received_at)
    return None


def _act_on_failure(lease: LeaseContext, failure: Exception, policy: FailurePolicy) -> None:
    if not lease._holds():
        _log.debug("%s: the handler failed after the lease was lost: %r", lease, failure)
        return
    _log.warning("%s: the handler failed", lease, exc_info=failure)
    handler_failure = HandlerFailure(lease, failure)
    try:
        action = policy(handler_failure)
    except Exception:  # noqa: BLE001
        _log.warning("%s: the failure policy raised; releasing the item", lease, exc_info=True)
        action = Release(handler_failure.summary)
    try:
        if isinstance(action, AskHuman):
            lease.ask_human(action.question, action.context)
        elif isinstance(action, Cancel):
            lease.cancel(action.reason)
        else:
            lease.release(action.reason)
    except LeaseLost:
        pass  # told already
    except (WorkGraphError, RuntimeError) as unable:
        _log.warning("%s: could not act on the handler's failure: %s", lease, unable)
