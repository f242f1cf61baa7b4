"""One claimed item in a worker: the lease's state, its renewal thread, and the writes that end it.

::

    ACTIVE --(an ending write starts)--> ENDING --(it succeeded)--> ENDED
      |  ^                                  |
      |  +--(refused for a reason other than the lease, e.g. open_children)
      +--(refused, out of time, worker stopped)--> LOST <--(refused, out of time)

Renewals run only while ACTIVE; an answer to a renewal sent before the state last changed
is ignored (the generation counter). Once LOST nothing more is sent for the lease, except
the runtime's own release when the worker stops.
"""

from __future__ import annotations

import enum
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from . import _outcomes
from .client import WorkGraphClient
from .models import (
    AttentionRequest,
    Checkpoint,
    Claim,
    Decomposed,
    EndedLease,
    Item,
    Lease,
    LeaseOutcome,
    NewChild,
)
from .problems import (
    Forbidden,
    LeaseLost,
    LostReason,
    NotFound,
    RateLimited,
    RequestRejected,
    ServiceUnreachable,
    Unauthenticated,
    WorkGraphError,
)
from .timing import Backoff, LeaseClock

__all__ = ["LeaseContext"]

_log = logging.getLogger("workgraph.worker")
T = TypeVar("T")
_DEFAULT_LENGTH = 300.0


class _State(enum.Enum):
    ACTIVE = "active"
    ENDING = "ending"
    ENDED = "ended"
    LOST = "lost"


@dataclass(frozen=True, slots=True)
class _Settings:
    """What every lease of one worker shares."""

    client: WorkGraphClient
    worker_id: str | None
    lease_seconds: int | None
    retry_backoff: Backoff
    access_refused: Callable[[RequestRejected], None]
    rng: random.Random


class LeaseContext:
    """What a handler gets: the claimed item, its lease, and the ways to end it.

    The runtime renews the lease in the background. When the lease is lost (the service
    refused a renewal, no renewal succeeded in time, the worker is stopping), ``cancelled``
    is set and every method here raises :class:`~workgraph.LeaseLost` without sending
    anything: stop working on the item. Use :meth:`sleep` (or ``cancelled.wait``) for
    waits that should end at once when that happens.
    """

    def __init__(self, settings: _Settings, claim: Claim, sent_at: float, received_at: float) -> None:
        self._settings = settings
        self.item: Item = claim.item
        #: The latest checkpoint: the one the claim handed over, then each this handler saves.
        self.last_checkpoint: Checkpoint | None = claim.item.checkpoint
        self._lease = claim.lease
        #: Set the moment the lease is lost.
        self.cancelled = threading.Event()
        length = self._length_of(claim.lease)
        # A long-poll claim may have waited at the service before the grant, so its send
        # time says nothing about when the lease started: take the arrival instead (late
        # by the answer's transit at most) and renew at once to learn a safe bound.
        renew_at_once = received_at - sent_at > length / 3
        self._clock = LeaseClock(received_at if renew_at_once else sent_at, length)
        self._cond = threading.Condition()
        self._state = _State.ACTIVE
        self._generation = 0
        self._lost: LeaseLost | None = None
        self._next_renewal = received_at if renew_at_once else self._clock.renewal_due

    def start(self) -> None:
        """Starts keeping the lease alive."""
        name = f"workgraph-renewal-{self._lease.id[-12:]}"
        threading.Thread(target=self._keep_alive, name=name, daemon=True).start()

    # What the handler sees

    @property
    def lease(self) -> Lease:
        """The lease as last renewed."""
        return self._lease

    @property
    def lease_id(self) -> str:
        return self._lease.id

    @property
    def epoch(self) -> int:
        """The fencing token: tag writes to your own systems with it and refuse lower ones there."""
        return self._lease.epoch

    @property
    def fence_token(self) -> str | None:
        """The lease's fence token as last renewed: pass it to systems outside Work Graph, which verify it."""
        return self._lease.fence_token

    @property
    def worker_id(self) -> str:
        return self._settings.worker_id or self._lease.worker_id

    @property
    def client(self) -> WorkGraphClient:
        """The worker's client, for reads (writes under this lease go through the methods here)."""
        return self._settings.client

    @property
    def lost(self) -> bool:
        return self.cancelled.is_set()

    @property
    def lost_because(self) -> LeaseLost | None:
        with self._cond:
            return self._lost

    def ensure_held(self) -> None:
        """Raises :class:`~workgraph.LeaseLost` once the lease is lost."""
        with self._cond:
            if self._state is _State.LOST:
                raise self._rethrown()

    def sleep(self, seconds: float) -> None:
        """Sleeps, or raises :class:`~workgraph.LeaseLost` as soon as the lease is lost."""
        if self.cancelled.wait(seconds):
            with self._cond:
                raise self._rethrown()

    def time_left(self) -> float:
        """Seconds the lease surely lives without another renewal (local monotonic clock)."""
        with self._cond:
            if self._state not in (_State.ACTIVE, _State.ENDING):
                return 0.0
            return max(0.0, self._clock.remaining(time.monotonic()))

    def complete(self, result: Any = None) -> EndedLease:
        """Completes the item with ``result``; the handler's return value is then ignored."""
        return self._end(
            "complete", LeaseOutcome.COMPLETED, lambda c: c.complete(self._lease, result), _outcomes.ended_lease
        )

    def release(self, reason: str | None = None, retry_after_seconds: int | None = None) -> EndedLease:
        """Gives the item back to the queue (no failure is counted); with ``retry_after_seconds``
        nobody claims it before then (a rate limit, something not there yet)."""
        return self._end(
            "release",
            LeaseOutcome.RELEASED,
            lambda c: c.release(self._lease, reason, retry_after_seconds),
            _outcomes.ended_lease,
        )

    def cancel(self, reason: str | None = None) -> EndedLease:
        """Cancels the item and its open descendants."""
        return self._end(
            "cancel", LeaseOutcome.CANCELLED, lambda c: c.cancel(self._lease, reason), _outcomes.ended_lease
        )

    def decompose(self, children: Sequence[NewChild | Mapping[str, Any]], reason: str | None = None) -> Decomposed:
        """Turns the item into children; it is ready again, with their results, once they are all done."""
        return self._end(
            "decompose",
            LeaseOutcome.DECOMPOSED,
            lambda c: c.decompose(self._lease, children, reason),
            _outcomes.decomposed,
        )

    def checkpoint(self, data: Mapping[str, Any]) -> Checkpoint:
        """Saves progress: whoever holds the item next (after a crash, an expiry or a release)
        finds it in ``item.checkpoint`` and resumes from it. The lease stays held."""
        saved = self._while_held("save a checkpoint", lambda c: c.checkpoint(self._lease, data))
        self.last_checkpoint = saved.checkpoint
        return saved.checkpoint

    def fail(self, error: Mapping[str, Any], *, retryable: bool = True, reason: str | None = None) -> EndedLease:
        """Ends the lease ``failed``: the item counts an attempt and is tried again while it has
        attempts left; with none left, or ``retryable=False``, it waits for a human."""
        return self._end(
            "fail",
            LeaseOutcome.FAILED,
            lambda c: c.fail(self._lease, error, retryable=retryable, reason=reason),
            _outcomes.ended_lease,
        )

    def ask_human(
        self, question: str, context: Mapping[str, Any] | None = None, *, blocking: bool = True
    ) -> AttentionRequest:
        """Asks a human. Blocking (the default): the lease ends and the item waits for the answer,
        which the next claim sees in ``item.answers``. Non-blocking: the lease stays held."""

        def ask(client: WorkGraphClient) -> AttentionRequest:
            return client.request_attention(self._lease, question, blocking=blocking, context=context)

        if blocking:
            return self._end("ask a human", LeaseOutcome.ATTENTION_REQUESTED, ask, _outcomes.answered_question)
        return self._while_held("ask a human", ask)

    # Writes

    def _end(self, what: str, outcome: LeaseOutcome, write: Callable[[WorkGraphClient], T],
             recover: Callable[[WorkGraphClient, Item, Lease], T | None]) -> T:
        """Sends a write that ends the lease, with renewals paused.

        Transient failures are retried within the lease's time. When an earlier attempt may
        have landed and a retry is refused, the service is asked how the lease ended, so a
        write of our own whose answer was lost counts as done.
        """
        with self._cond:
            self._require_held(what)
            self._set_state(_State.ENDING)
        ambiguous = False
        last: WorkGraphError | None = None
        attempt = 0
        while (remaining := self._remaining()) > 0:
            attempt += 1
            try:
                value = write(self._bounded(remaining))
            except (LeaseLost, NotFound, Unauthenticated, Forbidden) as refusal:
                ours = self._if_ours(outcome, recover) if ambiguous else None
                if ours is not None:
                    self._ended(outcome)
                    return ours
                if isinstance(refusal, NotFound) and not self._about_lease(refusal):
                    self._resume()
                    raise
                raise self._refused(what, refusal) from refusal
            except WorkGraphError as failure:
                if not failure.transient:
                    self._resume()
                    raise
                last = failure
                ambiguous |= _may_have_been_processed(failure)
                delay = self._retry_delay(attempt, failure)
                _log.debug("%s: could not %s (%s); retrying in %.2f s", self, what, failure, delay)
                time.sleep(max(0.0, min(delay, self._remaining())))
            else:
                self._ended(outcome)
                return value
        ours = self._if_ours(outcome, recover) if ambiguous else None
        if ours is not None:
            self._ended(outcome)
            return ours
        because = f": {last}" if last else ""
        raise self._lose(LostReason.RENEWALS_FAILED, f"Could not {what} before the lease ran out{because}", last)

    def _while_held(self, what: str, write: Callable[[WorkGraphClient], T]) -> T:
        """A write that leaves the lease held; retried only when it surely was not processed
        (so a lost answer never asks the question twice)."""
        attempt = 0
        while True:
            attempt += 1
            with self._cond:
                self._require_held(what)
            try:
                return write(self._bounded(max(0.001, self._remaining())))
            except (LeaseLost, Unauthenticated, Forbidden) as refusal:
                raise self._refused(what, refusal) from refusal
            except NotFound as refusal:
                if self._about_lease(refusal):
                    raise self._refused(what, refusal) from refusal
                raise
            except WorkGraphError as failure:
                if not failure.transient or _may_have_been_processed(failure) or self._remaining() <= 0:
                    raise
                time.sleep(max(0.0, min(self._retry_delay(attempt, failure), self._remaining())))

    def _refused(self, what: str, refusal: WorkGraphError) -> LeaseLost:
        if isinstance(refusal, (Unauthenticated, Forbidden)):
            self._settings.access_refused(refusal)
        return self._lose(LostReason.REFUSED, f"The service refused to {what}: {refusal}", refusal)

    def _about_lease(self, not_found: NotFound) -> bool:
        """Whether a 404 says that this lease is unknown (not, say, a ``dependsOn`` id of a decompose)."""
        return bool(not_found.problem.get("leaseId") == self._lease.id)

    def _require_held(self, what: str) -> None:
        if self._state is _State.LOST:
            raise self._rethrown()
        if self._state is _State.ENDED:
            raise RuntimeError(f"Cannot {what}: this worker already ended the lease")
        if self._state is _State.ENDING:
            raise RuntimeError(f"Cannot {what}: another write ending the lease is in flight")

    def _ended(self, outcome: LeaseOutcome) -> None:
        with self._cond:
            self._set_state(_State.ENDED)
        _log.debug("%s: ended (%s)", self, outcome)

    def _resume(self) -> None:
        """An ending write was refused for a reason other than the lease: keep holding it."""
        with self._cond:
            if self._state is _State.ENDING:
                self._set_state(_State.ACTIVE)
                self._next_renewal = self._clock.renewal_due

    def _if_ours(self, outcome: LeaseOutcome, recover: Callable[[WorkGraphClient, Item, Lease], T | None]) -> T | None:
        """After an ambiguous write was refused: did the lease end the way the write would have?"""
        ended = _outcomes.ended_by(self.client, self._lease, outcome, self._retry_delay)
        return recover(self.client, self.item, ended) if ended is not None else None

    # Renewals

    def _keep_alive(self) -> None:
        failures = 0
        while (due := self._await_renewal()) is not None:
            generation, sent_at, remaining = due
            try:
                renewed = self._bounded(remaining).renew(self._lease, self._settings.lease_seconds)
            except (LeaseLost, NotFound, Unauthenticated, Forbidden) as refusal:
                with self._cond:
                    if generation != self._generation:
                        continue  # the state changed meanwhile: this answer is stale
                    lost = self._lose_locked(
                        LostReason.REFUSED, f"The service refused to renew the lease: {refusal}", refusal
                    )
                if isinstance(refusal, (Unauthenticated, Forbidden)):
                    self._settings.access_refused(refusal)
                self._announce(lost)
                return
            except WorkGraphError as failure:
                failures += 1
                delay = self._retry_delay(failures, failure)
                with self._cond:
                    if generation == self._generation:
                        self._next_renewal = time.monotonic() + delay
                _log.debug("%s: renewal failed (%s); retrying in %.2f s", self, failure, delay)
                continue
            failures = 0
            with self._cond:
                if generation == self._generation:
                    self._lease = renewed
                    self._clock.confirmed(sent_at, self._length_of(renewed))
                    self._next_renewal = self._clock.renewal_due

    def _await_renewal(self) -> tuple[int, float, float] | None:
        """Waits until a renewal is due: (generation, send time, time left); None once there is none to send."""
        with self._cond:
            while True:
                if self._state in (_State.ENDED, _State.LOST):
                    return None
                now = time.monotonic()
                if self._state is _State.ACTIVE:
                    if self._clock.expired(now):
                        lost = self._lose_locked(
                            LostReason.RENEWALS_FAILED,
                            f"No renewal succeeded for a whole lease length ({self._clock.length:.1f} s); "
                            "the lease must be taken as expired",
                            None,
                        )
                        break
                    if now >= self._next_renewal:
                        return self._generation, now, self._clock.remaining(now)
                    self._cond.wait(min(self._next_renewal, self._clock.deadline) - now)
                else:
                    self._cond.wait()
        self._announce(lost)
        return None

    # Losing the lease

    def _lose(self, reason: LostReason, message: str, cause: BaseException | None) -> LeaseLost:
        with self._cond:
            if self._state is _State.LOST:
                return self._rethrown()
            lost = self._lose_locked(reason, message, cause)
        self._announce(lost)
        return self._rethrown()

    def _lose_locked(self, reason: LostReason, message: str, cause: BaseException | None) -> LeaseLost:
        current = cause.current_epoch if isinstance(cause, LeaseLost) else None
        self._lost = LeaseLost(
            message, lease_id=self._lease.id, presented_epoch=self._lease.epoch, current_epoch=current, reason=reason
        )
        self._lost.__cause__ = cause
        self._set_state(_State.LOST)
        return self._lost

    def _announce(self, lost: LeaseLost) -> None:
        level = logging.INFO if lost.reason is LostReason.WORKER_STOPPED else logging.WARNING
        _log.log(level, "%s: lease lost (%s): %s", self, lost.reason, lost)
        self.cancelled.set()

    def _rethrown(self) -> LeaseLost:
        """A fresh exception for the loss (one object raised in several threads would share a traceback)."""
        assert self._lost is not None
        lost = self._lost
        again = LeaseLost(
            str(lost),
            lease_id=lost.lease_id,
            presented_epoch=lost.presented_epoch,
            current_epoch=lost.current_epoch,
            reason=lost.reason,
        )
        again.__cause__ = lost.__cause__
        return again

    # Settling (the runtime's own, see _slot.py)

    def _holds(self) -> bool:
        with self._cond:
            return self._state is _State.ACTIVE

    def _abandon_if_held(self) -> None:
        """The handler is done; a lease still held now could not be ended for it: stop keeping it."""
        with self._cond:
            if self._state is not _State.ACTIVE:
                return
            lost = self._lose_locked(
                LostReason.ABANDONED,
                "The handler returned without ending the lease and it could not be ended for it; it is left to expire",
                None,
            )
        self._announce(lost)

    def stop_for_shutdown(self, reason: str) -> None:
        """The worker is stopping and the handler did not finish in time: take the lease from it, release it."""
        with self._cond:
            if self._state is not _State.ACTIVE:
                return  # ended, lost, or the handler's own ending write is finishing
            lost = self._lose_locked(LostReason.WORKER_STOPPED, "The worker stopped before the handler finished; "
                                     "the lease was released", None)
        self._announce(lost)
        attempt = 0
        while (remaining := self._remaining()) > 0:
            attempt += 1
            try:
                self._bounded(remaining).release(self._lease, reason)
                return
            except (LeaseLost, NotFound):
                return
            except WorkGraphError as failure:
                if not failure.transient:
                    _log.warning("%s: could not release the lease: %s", self, failure)
                    return
                time.sleep(max(0.0, min(self._retry_delay(attempt, failure), self._remaining())))

    # Small parts

    def _set_state(self, state: _State) -> None:
        self._state = state
        self._generation += 1
        self._cond.notify_all()

    def _remaining(self) -> float:
        with self._cond:
            return self._clock.remaining(time.monotonic())

    def _bounded(self, remaining: float) -> WorkGraphClient:
        """The client with a request timeout that ends no later than the lease."""
        client = self.client
        return client.with_timeout(max(remaining, 0.001)) if remaining < client.timeout else client

    def _retry_delay(self, attempt: int, failure: WorkGraphError) -> float:
        retry_after = failure.retry_after if isinstance(failure, RequestRejected) else None
        return self._settings.retry_backoff.delay(attempt, retry_after, self._settings.rng)

    def _length_of(self, lease: Lease) -> float:
        """The length the service granted, from its own two times; failing that, what was asked for."""
        granted = lease.granted_seconds
        if granted > 0:
            return granted
        return float(self._settings.lease_seconds or _DEFAULT_LENGTH)

    def __repr__(self) -> str:
        return f"lease {self._lease.id} (epoch {self._lease.epoch}) of item {self.item.id}"


def _may_have_been_processed(failure: WorkGraphError) -> bool:
    """Whether a failed write may have been carried out: a 429 was not, a connection never made was not;
    anything else (a timeout, a reset, a 503 or 500, which may come after a commit) may have been."""
    if isinstance(failure, RateLimited):
        return False
    if isinstance(failure, ServiceUnreachable):
        return failure.may_have_been_processed
    return True
