"""The worker runtime: claims, renews, fences, retries and stops for a handler.

>>> Worker(client, queues=["writing"], concurrency=4, lease_seconds=60).run(summarise)

runs ``summarise(lease)`` for every item it claims, at most four at a time, until SIGTERM
or Ctrl-C; the handler's return value completes the item. See :class:`Worker`.
"""

from __future__ import annotations

import enum
import logging
import random
import signal
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from ._http import Call
from ._lease import LeaseContext, _Settings
from ._slot import Next, run_handler
from .client import WorkGraphClient
from .failures import FailurePolicy, release_then_ask_human
from .models import Claim
from .problems import Forbidden, RequestCancelled, RequestRejected, Unauthenticated, WorkGraphError
from .timing import Backoff

__all__ = ["Handler", "Worker"]

_log = logging.getLogger("workgraph.worker")

Handler = Callable[[LeaseContext], Any]


class _Phase(enum.Enum):
    NEW = "new"
    RUNNING = "running"
    STOPPING = "stopping"
    STOPPED = "stopped"


class Worker:
    """Runs a handler for every item it claims, up to ``concurrency`` at a time.

    - **Claims wait at the service** (``wait_seconds``, 30 by default): an idle worker sends
      one request per wait instead of polling; ``wait_seconds=0`` polls with ``poll_backoff``.
    - **Leases are renewed** on a thread per lease, every third of the granted length,
      measured by elapsed monotonic time (never by comparing ``expiresAt`` with the local
      clock); failed renewals are retried within the time the lease surely has left.
    - **A lost lease stops the handler**: when a renewal is refused (``lease_expired``,
      ``lease_ended``, ``epoch_mismatch``, an unknown lease) or no renewal succeeded for a
      whole lease length, ``lease.cancelled`` is set, and nothing more is sent for the lease:
      the handler's later writes and return value are refused locally with ``LeaseLost``.
    - **The return value completes the item**, and the same request claims the slot's next
      item (``claimNext``) unless the worker is stopping. A raised exception goes to the
      ``failure_policy`` (by default: release; ask a human after three failures in a row).
    - **Transient failures** (503, 429, 500, no connection) are retried with capped
      exponential back-off and full jitter, honouring ``Retry-After``.
    - **A refusal that retrying cannot change stops the worker** with that error: 401 (no,
      unknown or revoked token), 403 (not a worker token, or another worker's id), or a claim
      refused as invalid (say, a bad queue name). :meth:`run` raises it.
    - **Stopping** (SIGTERM, Ctrl-C, :meth:`stop`): no new claims (a waiting claim is called
      off), running handlers get ``shutdown_grace`` seconds to finish, then their leases are
      taken from them (``cancelled`` set) and released, so other workers can take the items
      at once. A second signal ends the grace period at once.

    ``worker_id`` may be left out with a worker token, which names the worker.
    """

    def __init__(
        self,
        client: WorkGraphClient,
        *,
        queues: Sequence[str] | None = None,
        concurrency: int = 1,
        worker_id: str | None = None,
        lease_seconds: int | None = None,
        wait_seconds: int = 30,
        shutdown_grace: float = 30.0,
        failure_policy: FailurePolicy | None = None,
        retry_backoff: Backoff = Backoff(0.2, 30.0),
        poll_backoff: Backoff = Backoff(0.5, 5.0),
        claim_next: bool = True,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if not 0 <= wait_seconds <= 60:
            raise ValueError("wait_seconds must be between 0 and 60")
        if lease_seconds is not None and not 1 <= lease_seconds <= 86_400:
            raise ValueError("lease_seconds must be between 1 and 86400")
        if shutdown_grace < 0:
            raise ValueError("shutdown_grace must be zero or more")
        self._client = client
        self._queues = list(queues) if queues is not None else None
        self._concurrency = concurrency
        self._worker_id = worker_id
        self._lease_seconds = lease_seconds
        self._wait_seconds = wait_seconds
        self._grace = shutdown_grace
        self._policy = failure_policy or release_then_ask_human(3)
        self._retry_backoff = retry_backoff
        self._poll_backoff = poll_backoff
        self._claim_next = claim_next
        self._rng = random.Random()
        self._settings = _Settings(client, worker_id, lease_seconds, retry_backoff, self._access_refused, self._rng)
        self._name = worker_id or "(the token's worker)"
        self._handler: Handler | None = None
        self._until_idle = False
        self._lock = threading.Condition()
        self._phase = _Phase.NEW
        self._stop_requested = threading.Event()
        self._hurry = threading.Event()
        self._stopped = threading.Event()
        self._slots = threading.Semaphore(concurrency)
        self._active: set[LeaseContext] = set()
        self._busy = 0  # handler slots at work
        self._finished = 0  # leases whose handler has returned, ever
        self._in_flight: Call | None = None
        self._failure: WorkGraphError | None = None
        self._claimer: threading.Thread | None = None

    # Life cycle

    def run(self, handler: Handler, *, until_idle: bool = False, handle_signals: bool = True) -> None:
        """Works until stopped, on the calling thread; raises the error that stopped it, if any.

        On the main thread, SIGTERM and SIGINT stop the worker gracefully (a second one cuts
        the grace period short); the previous handlers are restored on return.
        ``until_idle``: return as soon as nothing is ready and no handler is busy (a queue
        drained by a script or a job), instead of waiting for more work.
        """
        self.start(handler, until_idle=until_idle)
        restore = None
        if handle_signals and threading.current_thread() is threading.main_thread():
            restore = self._install_signal_handlers()
        try:
            while not self._stopped.wait(0.5):
                pass
        finally:
            if restore is not None:
                restore()
            if not self._stopped.is_set():
                self.stop()
        if self._failure is not None:
            raise self._failure

    def start(self, handler: Handler, *, until_idle: bool = False) -> Worker:
        """Starts working in the background (daemon threads); :meth:`stop` it before exiting."""
        with self._lock:
            if self._phase is not _Phase.NEW:
                raise RuntimeError("The worker was started before; make a new one to start again")
            self._phase = _Phase.RUNNING
            self._handler = handler
            self._until_idle = until_idle
        self._claimer = threading.Thread(target=self._claim_loop, name=f"workgraph-claims[{self._name}]", daemon=True)
        self._claimer.start()
        threading.Thread(target=self._supervise, name=f"workgraph-stop[{self._name}]", daemon=True).start()
        _log.info("Worker %s started: %d handler(s), queues %s", self._name, self._concurrency, self._queues or "all")
        return self

    def request_stop(self, grace: float | None = None, *, hurry: bool = False) -> None:
        """Asks the worker to stop, without waiting; ``hurry`` ends the grace period at once."""
        if grace is not None and not self._stop_requested.is_set():
            self._grace = max(0.0, grace)
        if hurry:
            self._hurry.set()
        self._stop_requested.set()

    def stop(self, grace: float | None = None) -> None:
        """Stops (as described on the class) and returns once everything is stopped. Safe to call again.

        A handler that wants its worker to stop calls :meth:`request_stop` (``stop`` would wait for itself).
        """
        with self._lock:
            if self._phase is _Phase.NEW:
                self._phase = _Phase.STOPPED
                self._stopped.set()
                return
        self.request_stop(grace)
        self._stopped.wait()

    def join(self, timeout: float | None = None) -> bool:
        """Waits until the worker has stopped; whether it has."""
        return self._stopped.wait(timeout)

    @property
    def running(self) -> bool:
        """Whether the worker is claiming."""
        return self._phase is _Phase.RUNNING and not self._stop_requested.is_set()

    @property
    def active_handlers(self) -> int:
        return self._busy

    @property
    def failure(self) -> WorkGraphError | None:
        """The refusal that stopped the worker, if one did."""
        return self._failure

    # Claiming

    def _claim_loop(self) -> None:
        failures = 0
        empty_polls = 0
        while not self._stop_requested.is_set():
            if not self._slots.acquire(timeout=0.2):
                continue
            handed_over = False
            try:
                with self._lock:
                    idle = self._busy == 0
                    finished = self._finished
                # Draining never waits at the service: it stops at the first empty claim with no
                # handler busy, and otherwise claims again when one finishes.
                wait = 0 if self._until_idle else self._wait_seconds
                call = Call()
                self._in_flight = call
                if self._stop_requested.is_set():
                    continue  # stop() may have looked for a claim to call off before this one existed
                sent_at = time.monotonic()
                try:
                    claim = self._client.claim(
                        worker_id=self._worker_id,
                        queues=self._queues,
                        lease_seconds=self._lease_seconds,
                        wait_seconds=wait or None,
                        call=call,
                    )
                finally:
                    self._in_flight = None
                received_at = time.monotonic()
                failures = 0
                if claim is None:
                    if self._until_idle and idle and self._still_idle(finished):
                        _log.info("Worker %s: nothing is ready and no handler is busy; stopping", self._name)
                        self.request_stop()
                    elif wait == 0:
                        empty_polls += 1
                        self._pause(self._poll_backoff.delay(empty_polls, None, self._rng), finished)
                    continue
                empty_polls = 0
                if self._stop_requested.is_set():
                    self._release_unwanted(claim)
                    continue
                self._dispatch(claim, sent_at, received_at)
                handed_over = True
            except RequestCancelled:
                pass  # stop() called the waiting claim off
            except (Unauthenticated, Forbidden) as refused:
                self._access_refused(refused)
            except WorkGraphError as failure:
                if isinstance(failure, RequestRejected) and not failure.transient:
                    self._fail(failure, "the service refused the worker's claim")
                    continue
                failures += 1
                retry_after = failure.retry_after if isinstance(failure, RequestRejected) else None
                delay = self._retry_backoff.delay(failures, retry_after, self._rng)
                _log.log(
                    logging.DEBUG if failure.transient else logging.WARNING,
                    "Worker %s: claim failed (%s); retrying in %.2f s", self._name, failure, delay,
                )
                self._stop_requested.wait(delay)
            finally:
                if not handed_over:
                    self._slots.release()

    def _pause(self, seconds: float, finished: int) -> None:
        """Waits after an empty poll; when draining, only until a handler finishes (it may have made items ready)."""
        with self._lock:
            self._lock.wait_for(
                lambda: self._stop_requested.is_set() or (self._until_idle and self._finished != finished), seconds
            )

    def _still_idle(self, finished: int) -> bool:
        """No handler busy now, and none finished since the claim was sent (it may have made items ready)."""
        with self._lock:
            return self._busy == 0 and self._finished == finished

    def _dispatch(self, claim: Claim, sent_at: float, received_at: float) -> None:
        """Takes a claim of the claim loop, which owns a slot for it, to a handler thread of its own."""
        lease = LeaseContext(self._settings, claim, sent_at, received_at)
        with self._lock:
            self._busy += 1
            self._active.add(lease)
        lease.start()
        name = f"workgraph-handler[{self._name}]-{claim.item.id[-12:]}"
        threading.Thread(target=self._work, args=(lease,), name=name, daemon=True).start()

    def _work(self, first: LeaseContext) -> None:
        """One handler slot at work: the claimed item, then each item its completion claimed next."""
        assert self._handler is not None
        lease: LeaseContext | None = first
        try:
            while lease is not None:
                try:
                    following = run_handler(lease, self._handler, self._policy, self._next_claim)
                finally:
                    with self._lock:
                        self._active.discard(lease)
                        self._finished += 1
                        self._lock.notify_all()
                lease = self._take_over(following) if following is not None else None
        finally:
            with self._lock:
                self._busy -= 1
                self._lock.notify_all()
            self._slots.release()

    def _take_over(self, following: Next) -> LeaseContext | None:
        """An item claimed with a completion becomes the slot's next lease, unless the worker is stopping."""
        lease = LeaseContext(self._settings, following.claim, following.sent_at, following.received_at)
        with self._lock:
            # Under the lock that the stop sequence reads the active leases with.
            running = self._phase is _Phase.RUNNING
            if running:
                self._active.add(lease)
        if not running:
            self._release_unwanted(following.claim)
            return None
        lease.start()
        return lease

    def _next_claim(self) -> dict[str, Any] | None:
        """What a completion asks for as ``claimNext`` now: nothing while stopping."""
        if not self._claim_next or self._stop_requested.is_set():
            return None
        return {"queues": self._queues, "lease_seconds": self._lease_seconds}

    def _release_unwanted(self, claim: Claim) -> None:
        try:
            self._client.release(claim.lease, "worker shutting down")
        except WorkGraphError as failure:
            _log.warning("Could not release lease %s claimed while stopping: %s", claim.lease.id, failure)

    # Stopping

    def _supervise(self) -> None:
        self._stop_requested.wait()
        try:
            self._shut_down()
        finally:
            with self._lock:
                self._phase = _Phase.STOPPED
            _log.info("Worker %s stopped", self._name)
            self._stopped.set()

    def _shut_down(self) -> None:
        with self._lock:
            self._phase = _Phase.STOPPING
            self._lock.notify_all()  # a claim loop pausing between polls
        call = self._in_flight
        if call is not None:
            call.cancel()
        if self._claimer is not None:
            self._claimer.join(timeout=self._client.timeout)
        deadline = time.monotonic() + self._grace
        with self._lock:
            while self._busy and not self._hurry.is_set() and (left := deadline - time.monotonic()) > 0:
                self._lock.wait(min(left, 0.1))
            unfinished = list(self._active)
        if unfinished:
            _log.warning(
                "Worker %s: %d handler(s) still running after the grace period; taking their leases and releasing them",
                self._name, len(unfinished),
            )
        for lease in unfinished:
            lease.stop_for_shutdown("worker shutting down")

    def _access_refused(self, refusal: RequestRejected) -> None:
        if isinstance(refusal, Unauthenticated):
            why = "the service refused the worker's token (missing, unknown or revoked); give it a valid worker token"
        else:
            why = "the service forbade what the worker asked (a worker token bound to this worker's id is needed)"
        self._fail(refusal, why)

    def _fail(self, failure: WorkGraphError, why: str) -> None:
        with self._lock:
            first = self._failure is None
            if first:
                self._failure = failure
        if first:
            _log.error("Worker %s stops: %s: %s", self._name, why, failure)
        self.request_stop()

    def _install_signal_handlers(self) -> Callable[[], None]:
        def on_signal(signum: int, _frame: FrameType | None) -> None:
            name = signal.Signals(signum).name
            if self._stop_requested.is_set():
                _log.warning("Worker %s: %s again: releasing the leases in hand now", self._name, name)
                self._hurry.set()
            else:
                _log.info(
                    "Worker %s: %s: stopping; running handlers have %.0f s to finish (%s again: at once)",
                    self._name, name, self._grace, name,
                )
                self._stop_requested.set()

        previous = {number: signal.signal(number, on_signal) for number in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for number, handler in previous.items():
                signal.signal(number, handler)

        return restore

    def __repr__(self) -> str:
        return f"Worker({self._name}, {self._phase.value})"
