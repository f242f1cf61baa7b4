"""Whether a write that ends a lease landed although its answer was lost.

A timeout, a reset connection or a 503 may come after the service committed the write. When
the retry is then refused because the lease has ended, the lease's outcome tells whether this
write ended it; if it did, the answer the write would have given is rebuilt from reads.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from .client import WorkGraphClient
from .models import AttentionRequest, Decomposed, EndedLease, Item, Lease, LeaseOutcome
from .problems import NotFound, WorkGraphError

__all__ = ["answered_question", "decomposed", "ended_by", "ended_lease"]

_log = logging.getLogger("workgraph.worker")
# How long to keep asking the service how a lease ended.
_CHECK_WINDOW = 30.0


def ended_by(
    client: WorkGraphClient, lease: Lease, outcome: LeaseOutcome, retry_delay: Callable[[int, WorkGraphError], float]
) -> Lease | None:
    """The lease as ended, if it ended with ``outcome`` under its own epoch; else None. Reads only."""
    deadline = time.monotonic() + _CHECK_WINDOW
    attempt = 0
    while True:
        attempt += 1
        try:
            current = client.get_lease(lease.id)
        except NotFound:
            return None
        except WorkGraphError as failure:
            left = deadline - time.monotonic()
            if not failure.transient or left <= 0:
                _log.warning("lease %s: could not learn whether an earlier write ended it: %s", lease.id, failure)
                return None
            time.sleep(min(retry_delay(attempt, failure), left))
            continue
        if current.outcome != outcome or current.epoch != lease.epoch:
            return None
        _log.info("lease %s: an earlier attempt to end it landed (%s) although its answer was lost", lease.id, outcome)
        return current


def ended_lease(client: WorkGraphClient, item: Item, ended: Lease) -> EndedLease:
    """What complete, release or cancel answer."""
    return EndedLease(ended, _read(client, item))


def decomposed(client: WorkGraphClient, item: Item, ended: Lease) -> Decomposed:
    """What decompose answers: the children are the item's children now."""
    try:
        children = list(client.iter_items(parent_id=item.id, limit=500))
    except WorkGraphError:
        children = []
    return Decomposed(ended, _read(client, item), children)


def answered_question(client: WorkGraphClient, item: Item, ended: Lease) -> AttentionRequest | None:
    """What a blocking question answers: the request raised under the lease."""
    for request in client.iter_attention_requests(item_id=item.id, limit=100):
        if request.lease_id == ended.id and request.blocking:
            return request
    return None


def _read(client: WorkGraphClient, item: Item) -> Item:
    try:
        return client.get_item(item.id)
    except WorkGraphError:
        return item
