"""Helpers of the tests against a live service (skipped when none is configured)."""

from __future__ import annotations

import os
import threading
import time
import unittest
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import workgraph as wg
from workgraph._http import Response, Transport

T = TypeVar("T")

URL = os.environ.get("WORKGRAPH_URL")
ADMIN_TOKEN = os.environ.get("WORKGRAPH_ADMIN_TOKEN")


class RecordingTransport(Transport):
    """A transport that counts requests by ``METHOD /path-suffix``, and injects faults.

    - While ``drop_renewals`` is set, renewals fail as if the network to the service were
      down: how a worker that stalls, or is cut off, loses its lease.
    - ``unavailable_renewals``: that many renewals are answered 503 without being sent.
    - ``lose_answer_of``: the next request whose path ends so is sent, and its answer lost
      (as to a timeout after the service committed it).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Shared with the copies that with_timeout() makes: mutable objects only.
        self.drop_renewals = threading.Event()
        self._unavailable = [0]
        self.lose_answer_of: set[str] = set()
        self.sent: list[str] = []
        self._lock = threading.Lock()

    def request(self, method: str, target: str, **options: Any) -> Response:
        with self._lock:
            self.sent.append(f"{method} {target}")
            unavailable = target.endswith("/renew") and self._unavailable[0] > 0
            if unavailable:
                self._unavailable[0] -= 1
            lose = next((suffix for suffix in self.lose_answer_of if target.endswith(suffix)), None)
            if lose is not None:
                self.lose_answer_of.discard(lose)
        if self.drop_renewals.is_set() and target.endswith("/renew"):
            raise wg.ServiceUnreachable("renewal dropped by the test", may_have_been_processed=False)
        if unavailable:
            raise wg.ServiceUnavailable(wg.Problem(503, "service_unavailable", detail="made up by the test"), 0.1)
        answer = super().request(method, target, **options)
        if lose is not None:
            raise wg.ServiceUnreachable(f"{method} {target}: answer lost by the test", may_have_been_processed=True,
                                        timed_out=True)
        return answer

    @property
    def unavailable_renewals(self) -> int:
        return self._unavailable[0]

    @unavailable_renewals.setter
    def unavailable_renewals(self, count: int) -> None:
        self._unavailable[0] = count

    def count(self, method: str, suffix: str) -> int:
        with self._lock:
            return sum(1 for line in self.sent if line.startswith(method + " ") and line.endswith(suffix))


class LiveTest(unittest.TestCase):
    """Base of the tests against the service named by ``WORKGRAPH_URL``."""

    admin: wg.WorkGraphClient

    @classmethod
    def setUpClass(cls) -> None:
        if not URL or not ADMIN_TOKEN:
            raise unittest.SkipTest("no live service: set WORKGRAPH_URL and WORKGRAPH_ADMIN_TOKEN")
        cls.admin = wg.WorkGraphClient(URL, token=ADMIN_TOKEN, timeout=15)

    def setUp(self) -> None:
        self._workers: list[wg.Worker] = []
        self.addCleanup(self._stop_workers)

    def _stop_workers(self) -> None:
        stopping = [threading.Thread(target=worker.stop, args=(2.0,)) for worker in self._workers]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join(30)

    @staticmethod
    def unique(prefix: str) -> str:
        """A name no other test (or earlier run) uses: queues keep tests apart."""
        return f"{prefix}-{uuid.uuid4().hex[:10]}"

    def worker_client(self, worker_id: str, *, recording: bool = False, timeout: float = 15) -> wg.WorkGraphClient:
        """A client with a new worker token bound to ``worker_id``."""
        issued = self.admin.create_token(f"python-tests {worker_id}", wg.TokenRole.WORKER, worker_id)
        url = self.admin.base_url
        if recording:
            return wg.WorkGraphClient(url, transport=RecordingTransport(url, token=issued.token, timeout=timeout))
        return wg.WorkGraphClient(url, token=issued.token, timeout=timeout)

    def worker(self, client: wg.WorkGraphClient, **settings: Any) -> wg.Worker:
        """A worker that is stopped after the test, with quick retries and short waiting claims."""
        settings.setdefault("wait_seconds", 2)
        settings.setdefault("retry_backoff", wg.Backoff(0.05, 0.5))
        settings.setdefault("poll_backoff", wg.Backoff(0.05, 0.2))
        worker = wg.Worker(client, **settings)
        self._workers.append(worker)
        return worker

    def await_status(self, item_id: str, status: str, timeout: float = 30) -> wg.Item:
        def has_status(item: wg.Item) -> bool:
            return item.status == status

        return eventually(lambda: self.admin.get_item(item_id), has_status, timeout, f"item {item_id} to be {status}")


def eventually(read: Callable[[], T], done: Callable[[T], bool], timeout: float, what: str) -> T:
    """Reads until ``done``; fails the test after ``timeout`` seconds with the last value read."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}; last: {value!r}")
        time.sleep(0.05)


def in_thread(target: Callable[[], T], timeout: float) -> T:
    """Runs ``target`` on a thread and returns its value (or raises its exception) within ``timeout``."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = target()
        except BaseException as failure:  # noqa: BLE001 - handed to the test's thread
            outcome["error"] = failure

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise AssertionError(f"{target} did not return within {timeout} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
