"""The API client: one method per endpoint of the service."""

from __future__ import annotations

import ssl
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Protocol, TypeVar

from ._http import Call, Token, Transport, path
from .changes import ChangeStream, stream_query
from .models import (
    AttentionRequest,
    Checkpoint,
    Claim,
    CompletedWithNext,
    Completion,
    CompletionResult,
    CurrentToken,
    Decomposed,
    EventAccepted,
    EndedLease,
    HandedOff,
    IssuedToken,
    Item,
    ItemRef,
    Lease,
    LeaseFence,
    NewChild,
    Page,
    QueueStats,
    SavedCheckpoint,
    Token as TokenInfo,
    TokenRole,
    Wait,
    rfc3339,
)

__all__ = ["UNCHANGED", "LeaseLike", "LeaseRef", "WorkGraphClient"]

T = TypeVar("T")


class _Unchanged:
    """A field of a partial update that is left as it is (None would clear it)."""

    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Any = _Unchanged()


class LeaseLike(Protocol):
    """What a lease write needs: the lease's id and epoch (a :class:`Lease` has both)."""

    @property
    def id(self) -> str: ...

    @property
    def epoch(self) -> int: ...


@dataclass(frozen=True, slots=True)
class LeaseRef:
    """A lease by id and epoch, e.g. as stored by a worker that writes under it later."""

    id: str
    epoch: int


def _fields(**values: Any) -> dict[str, Any]:
    """A JSON body of the given fields, without those left out (None): the service's defaults apply."""
    return {name: value for name, value in values.items() if value is not None}


class WorkGraphClient:
    """A typed method for every endpoint; every failure raises a :class:`~workgraph.WorkGraphError`.

    One client is thread-safe and keeps its connections: make one per service and share it.

    >>> client = WorkGraphClient("http://localhost:8080", token=os.environ["WORKGRAPH_TOKEN"])

    ``token`` may also be a function, asked before every request (to rotate tokens).
    ``traceparent``, a function asked before every request on the thread that makes it,
    returns the caller's W3C trace context (or None): it is sent as ``traceparent``, so the
    service's spans join the caller's trace.
    ``timeout`` bounds each request's wait for the service (a long-poll claim may wait its
    ``wait_seconds`` longer); ``connect_timeout`` bounds connecting.
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: Token = None,
        timeout: float = 30.0,
        connect_timeout: float = 5.0,
        ssl_context: ssl.SSLContext | None = None,
        transport: Transport | None = None,
        traceparent: Callable[[], str | None] | None = None,
    ) -> None:
        self._http = transport or Transport(
            base_url,
            token=token,
            timeout=timeout,
            connect_timeout=connect_timeout,
            ssl_context=ssl_context,
            traceparent=traceparent,
        )

    @property
    def base_url(self) -> str:
        return self._http.base_url

    @property
    def timeout(self) -> float:
        return self._http.timeout

    def with_timeout(self, timeout: float) -> WorkGraphClient:
        """The same client, sharing its connections, with another request timeout."""
        return type(self)(self.base_url, transport=self._http.with_timeout(timeout))

    def close(self) -> None:
        """Closes the idle connections (a later request opens a new one)."""
        self._http.close()

    def __enter__(self) -> WorkGraphClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # Plumbing

    def _json(self, method: str, target: str, body: Any = None, **options: Any) -> Any:
        return self._http.request(method, target, body=body, **options).json()

    def _pages(self, fetch: Callable[[str | None], Page[T]]) -> Iterator[T]:
        cursor: str | None = None
        while True:
            page = fetch(cursor)
            yield from page.items
            cursor = page.next_cursor
            if cursor is None:
                return

    @staticmethod
    def _lease_path(lease: LeaseLike, action: str) -> str:
        return path("leases", lease.id, action)

    # Items

    def create_item(
        self,
        title: str,
        *,
        description: str | None = None,
        priority: int | None = None,
        queue: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        parent_id: str | None = None,
        depends_on: Sequence[str] | None = None,
        idempotency_key: str | None = None,
        not_before: datetime | str | None = None,
    ) -> Item:
        """``POST /items``. With ``idempotency_key``, the same key and fields give the first item back;
        with ``not_before`` (an aware datetime or RFC 3339 text) nobody claims it before that time."""
        body = _fields(
            title=title,
            description=description,
            priority=priority,
            queue=queue,
            metadata=metadata,
            parentId=parent_id,
            dependsOn=list(depends_on) if depends_on is not None else None,
            notBefore=rfc3339(not_before),
        )
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key is not None else None
        return Item.from_json(self._json("POST", "/items", body, headers=headers))

    def patch_item(self, item_id: str, *, not_before: Any = UNCHANGED) -> Item:
        """``PATCH /items/{id}`` (operators): ``not_before`` reschedules an item that is neither leased
        nor finished; ``None`` makes it claimable at once, leaving it out changes nothing."""
        body: dict[str, Any] = {}
        if not_before is not UNCHANGED:
            body["notBefore"] = rfc3339(not_before)
        return Item.from_json(self._json("PATCH", path("items", item_id), body))

    def get_item(self, item_id: str) -> Item:
        """``GET /items/{id}``."""
        return Item.from_json(self._json("GET", path("items", item_id)))

    def list_items(
        self,
        *,
        status: str | Sequence[str] | None = None,
        queue: str | None = None,
        parent_id: str | None = None,
        q: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[Item]:
        """``GET /items``: one page, oldest first. ``status`` may name several statuses."""
        statuses = ",".join(status) if isinstance(status, Sequence) and not isinstance(status, str) else status
        query = {"status": statuses, "queue": queue, "parentId": parent_id, "q": q, "limit": limit, "cursor": cursor}
        answer = self._http.request("GET", "/items", query=query).json()
        return Page([Item.from_json(entry) for entry in answer["items"]], answer.get("nextCursor"))

    def iter_items(self, **filters: Any) -> Iterator[Item]:
        """Every item that ``list_items`` with these filters lists, page after page."""
        return self._pages(lambda cursor: self.list_items(**filters, cursor=cursor))

    def add_dependency(self, item_id: str, depends_on: str) -> Item:
        """``POST /items/{id}/dependencies``: the item then waits for ``depends_on``."""
        return Item.from_json(self._json("POST", path("items", item_id, "dependencies"), {"dependsOn": depends_on}))

    def remove_dependency(self, item_id: str, depends_on: str) -> None:
        """``DELETE /items/{id}/dependencies/{dependsOnId}``."""
        self._http.request("DELETE", path("items", item_id, "dependencies", depends_on))

    def cancel_item(self, item_id: str, reason: str | None = None) -> Item:
        """``POST /items/{id}/cancel``: the item and its open descendants; their leases end."""
        return Item.from_json(self._json("POST", path("items", item_id, "cancel"), _fields(reason=reason)))

    def list_dependents(self, item_id: str, *, limit: int | None = None, cursor: str | None = None) -> Page[ItemRef]:
        """``GET /items/{id}/dependents``: the items that wait for this one."""
        query = {"limit": limit, "cursor": cursor}
        answer = self._http.request("GET", path("items", item_id, "dependents"), query=query).json()
        return Page([ItemRef.from_json(entry) for entry in answer["items"]], answer.get("nextCursor"))

    def list_item_leases(self, item_id: str, *, limit: int | None = None, cursor: str | None = None) -> Page[Lease]:
        """``GET /items/{id}/leases``: one page of the item's lease history, by epoch."""
        query = {"limit": limit, "cursor": cursor}
        answer = self._http.request("GET", path("items", item_id, "leases"), query=query).json()
        return Page([Lease.from_json(entry) for entry in answer["leases"]], answer.get("nextCursor"))

    def list_checkpoints(
        self, item_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Page[Checkpoint]:
        """``GET /items/{id}/checkpoints``: one page of the item's checkpoints, newest first."""
        query = {"limit": limit, "cursor": cursor}
        answer = self._http.request("GET", path("items", item_id, "checkpoints"), query=query).json()
        return Page([Checkpoint.from_json(entry) for entry in answer["checkpoints"]], answer.get("nextCursor"))

    def iter_checkpoints(self, item_id: str) -> Iterator[Checkpoint]:
        """Every checkpoint of the item, newest first, fetched a page at a time."""
        return self._pages(lambda cursor: self.list_checkpoints(item_id, limit=100, cursor=cursor))

    def item_leases(self, item_id: str) -> list[Lease]:
        """The item's whole lease history, oldest first (every page)."""
        return list(self._pages(lambda cursor: self.list_item_leases(item_id, limit=500, cursor=cursor)))

    def list_queues(self) -> list[QueueStats]:
        """``GET /queues``: every queue with open items, with its counts."""
        return [QueueStats.from_json(entry) for entry in self._json("GET", "/queues")["queues"]]

    def get_queue(self, name: str) -> QueueStats:
        """``GET /queues/{name}``: one queue's counts and settings (any name: an empty queue has zeros)."""
        return QueueStats.from_json(self._json("GET", path("queues", name)))

    def update_queue(self, name: str, *, paused: bool | None = None, max_active_leases: Any = UNCHANGED) -> QueueStats:
        """``PATCH /queues/{name}`` (operator): pause or resume it, cap its active leases.

        ``max_active_leases=None`` removes the cap; left out, the cap stays as it is.
        """
        body = _fields(paused=paused)
        if max_active_leases is not UNCHANGED:
            body["maxActiveLeases"] = max_active_leases
        return QueueStats.from_json(self._json("PATCH", path("queues", name), body))

    # Claims and leases

    def claim(
        self,
        *,
        worker_id: str | None = None,
        queues: Sequence[str] | None = None,
        lease_seconds: int | None = None,
        wait_seconds: int | None = None,
        call: Call | None = None,
    ) -> Claim | None:
        """``POST /claims``: the best ready item under a new lease, or None when nothing is ready.

        ``wait_seconds`` (0-60) waits at the service for an item to become ready; ``call``
        lets another thread call such a wait off. With a worker token ``worker_id`` may be
        left out: the token names the worker.
        """
        body = _fields(
            workerId=worker_id,
            queues=list(queues) if queues is not None else None,
            leaseSeconds=lease_seconds,
            waitSeconds=wait_seconds,
        )
        answer = self._http.request("POST", "/claims", body=body, extra_timeout=wait_seconds or 0, call=call)
        return Claim.from_json(answer.json()) if answer.status == 201 else None

    def claim_batch(
        self,
        limit: int,
        *,
        worker_id: str | None = None,
        queues: Sequence[str] | None = None,
        lease_seconds: int | None = None,
        wait_seconds: int | None = None,
        call: Call | None = None,
    ) -> list[Claim]:
        """``POST /claims/batch``: up to ``limit`` claims, each its own lease; empty when nothing is ready."""
        body = _fields(
            workerId=worker_id,
            queues=list(queues) if queues is not None else None,
            leaseSeconds=lease_seconds,
            limit=limit,
            waitSeconds=wait_seconds,
        )
        answer = self._http.request("POST", "/claims/batch", body=body, extra_timeout=wait_seconds or 0, call=call)
        if answer.status != 201:
            return []
        return [Claim.from_json(entry) for entry in answer.json()["claims"]]

    def get_lease(self, lease_id: str) -> Lease:
        """``GET /leases/{id}``: active or ended (how it ended, after a lost answer)."""
        return Lease.from_json(self._json("GET", path("leases", lease_id)))

    def lease_fence(self, lease_id: str, epoch: int) -> LeaseFence:
        """``GET /leases/{id}/fence?epoch=``: whether that lease at that epoch still holds its item."""
        answer = self._http.request("GET", path("leases", lease_id, "fence"), query={"epoch": epoch})
        return LeaseFence.from_json(answer.json())

    def renew(self, lease: LeaseLike, lease_seconds: int | None = None) -> Lease:
        """``POST /leases/{id}/renew``: ``expiresAt`` becomes now + ``lease_seconds`` (None: the service's default)."""
        body = _fields(epoch=lease.epoch, leaseSeconds=lease_seconds)
        return Lease.from_json(self._json("POST", self._lease_path(lease, "renew"), body))

    def complete(self, lease: LeaseLike, result: Any = None) -> EndedLease:
        """``POST /leases/{id}/complete``: the item is completed with ``result`` (None: no result)."""
        answer = self._json("POST", self._lease_path(lease, "complete"), _fields(epoch=lease.epoch, result=result))
        return EndedLease(Lease.from_json(answer["lease"]), Item.from_json(answer["item"]))

    def complete_and_claim_next(
        self,
        lease: LeaseLike,
        result: Any = None,
        *,
        queues: Sequence[str] | None = None,
        lease_seconds: int | None = None,
    ) -> CompletedWithNext:
        """Completes, and claims the next item for the same worker in the same request (``claimNext``)."""
        claim_next = _fields(queues=list(queues) if queues is not None else None, leaseSeconds=lease_seconds)
        body = _fields(epoch=lease.epoch, result=result, claimNext=claim_next)
        return CompletedWithNext.from_json(self._json("POST", self._lease_path(lease, "complete"), body))

    def release(self, lease: LeaseLike, reason: str | None = None, retry_after_seconds: int | None = None) -> EndedLease:
        """``POST /leases/{id}/release``: the item goes back to the queue; with ``retry_after_seconds``
        (0–2,592,000) nobody claims it before that many seconds have passed."""
        body = _fields(epoch=lease.epoch, reason=reason, retryAfterSeconds=retry_after_seconds)
        answer = self._json("POST", self._lease_path(lease, "release"), body)
        return EndedLease(Lease.from_json(answer["lease"]), Item.from_json(answer["item"]))

    def cancel(self, lease: LeaseLike, reason: str | None = None) -> EndedLease:
        """``POST /leases/{id}/cancel``: the item and its open descendants are cancelled."""
        answer = self._json("POST", self._lease_path(lease, "cancel"), _fields(epoch=lease.epoch, reason=reason))
        return EndedLease(Lease.from_json(answer["lease"]), Item.from_json(answer["item"]))

    def checkpoint(self, lease: LeaseLike, data: Mapping[str, Any], renew_seconds: int | None = None) -> SavedCheckpoint:
        """``POST /leases/{id}/checkpoints``: saves progress for whoever holds the item next; with
        ``renew_seconds`` the lease is renewed in the same step."""
        body = _fields(epoch=lease.epoch, data=dict(data), renewSeconds=renew_seconds)
        answer = self._json("POST", self._lease_path(lease, "checkpoints"), body)
        return SavedCheckpoint(Checkpoint.from_json(answer["checkpoint"]), Lease.from_json(answer["lease"]))

    def fail(
        self, lease: LeaseLike, error: Mapping[str, Any], *, retryable: bool | None = None, reason: str | None = None
    ) -> EndedLease:
        """``POST /leases/{id}/fail``: the lease ends ``failed`` and the item counts an attempt; with none
        left, or ``retryable=False``, it waits for a human."""
        body = _fields(epoch=lease.epoch, error=dict(error), retryable=retryable, reason=reason)
        answer = self._json("POST", self._lease_path(lease, "fail"), body)
        return EndedLease(Lease.from_json(answer["lease"]), Item.from_json(answer["item"]))

    def hand_off(
        self, lease: LeaseLike, to_worker_id: str, reason: str | None = None, lease_seconds: int | None = None
    ) -> HandedOff:
        """``POST /leases/{id}/handoff``: the item passes to ``to_worker_id`` with the next epoch, in one step."""
        body = _fields(epoch=lease.epoch, toWorkerId=to_worker_id, reason=reason, leaseSeconds=lease_seconds)
        answer = self._json("POST", self._lease_path(lease, "handoff"), body)
        return HandedOff(Lease.from_json(answer["ended"]), Lease.from_json(answer["lease"]), Item.from_json(answer["item"]))

    def decompose(
        self, lease: LeaseLike, children: Sequence[NewChild | Mapping[str, Any]], reason: str | None = None
    ) -> Decomposed:
        """``POST /leases/{id}/decompose``: children under the item, which waits for them all."""
        entries = [child.to_json() if isinstance(child, NewChild) else dict(child) for child in children]
        body = _fields(epoch=lease.epoch, children=entries, reason=reason)
        answer = self._json("POST", self._lease_path(lease, "decompose"), body)
        return Decomposed(
            Lease.from_json(answer["lease"]),
            Item.from_json(answer["item"]),
            [Item.from_json(child) for child in answer["children"]],
        )

    def request_attention(
        self,
        lease: LeaseLike,
        question: str,
        *,
        blocking: bool | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> AttentionRequest:
        """``POST /leases/{id}/attention-requests``: a question for a human.

        A blocking one (the default) ends the lease and holds the item until answered.
        """
        body = _fields(epoch=lease.epoch, question=question, blocking=blocking, context=context)
        return AttentionRequest.from_json(self._json("POST", self._lease_path(lease, "attention-requests"), body))

    def wait_for_event(
        self,
        lease: LeaseLike,
        name: str,
        key: str,
        *,
        timeout_seconds: int | None = None,
        on_timeout: str | None = None,
    ) -> tuple[Wait, EndedLease]:
        """``POST /leases/{id}/waits``: park the item until event ``name``/``key`` arrives.

        The lease ends ``waiting``; the item is ready again when the event comes (at once if it is
        retained already) or at ``timeout_seconds``, when ``on_timeout`` (``ready``, ``cancel``,
        ``ask``) applies. The next holder reads the event in ``item.waits[-1].matched_event``.
        """
        body = _fields(
            epoch=lease.epoch,
            event={"name": name, "key": key},
            timeoutSeconds=timeout_seconds,
            onTimeout=on_timeout,
        )
        answer = self._json("POST", self._lease_path(lease, "waits"), body)
        ended = EndedLease(Lease.from_json(answer["lease"]), Item.from_json(answer["item"]))
        return Wait.from_json(answer["wait"]), ended

    def post_event(
        self, name: str, key: str, *, event_id: str | None = None, payload: Mapping[str, Any] | None = None
    ) -> EventAccepted:
        """``POST /events`` (operator or events token): matches every open wait for ``name``/``key``.

        Give ``event_id`` (your own delivery id) so that sending it again is harmless: the repeat
        answers the first one's ``event_id`` with ``repeated`` True.
        """
        answer = self._http.request(
            "POST", "/events", body=_fields(name=name, key=key, id=event_id, payload=payload)
        )
        json = answer.json()
        return EventAccepted(json["eventId"], json.get("matchedWaits", 0), answer.status == 200)

    def complete_all(self, completions: Sequence[Completion]) -> list[CompletionResult]:
        """``POST /completions``: one result per entry, in order, each fenced on its own."""
        body = {"completions": [completion.to_json() for completion in completions]}
        return [CompletionResult.from_json(entry) for entry in self._json("POST", "/completions", body)["results"]]

    # Attention requests

    def list_attention_requests(
        self,
        *,
        status: str | None = None,
        item_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[AttentionRequest]:
        """``GET /attention-requests``: newest first; ``status`` is ``open`` or ``resolved``."""
        query = {"status": status, "itemId": item_id, "limit": limit, "cursor": cursor}
        answer = self._http.request("GET", "/attention-requests", query=query).json()
        requests = [AttentionRequest.from_json(entry) for entry in answer["attentionRequests"]]
        return Page(requests, answer.get("nextCursor"))

    def iter_attention_requests(self, **filters: Any) -> Iterator[AttentionRequest]:
        """Every request that ``list_attention_requests`` with these filters lists."""
        return self._pages(lambda cursor: self.list_attention_requests(**filters, cursor=cursor))

    def get_attention_request(self, request_id: str) -> AttentionRequest:
        """``GET /attention-requests/{id}``."""
        return AttentionRequest.from_json(self._json("GET", path("attention-requests", request_id)))

    def resolve_attention_request(
        self, request_id: str, resolution: str, resolved_by: str | None = None
    ) -> AttentionRequest:
        """``POST /attention-requests/{id}/resolve``; ``resolved_by`` defaults to the token's name."""
        body = _fields(resolution=resolution, resolvedBy=resolved_by)
        return AttentionRequest.from_json(self._json("POST", path("attention-requests", request_id, "resolve"), body))

    # Tokens (admin)

    def create_token(
        self,
        name: str,
        role: TokenRole | str,
        worker_id: str | None = None,
        *,
        queues: Sequence[str] | None = None,
        create_items: bool | None = None,
    ) -> IssuedToken:
        """``POST /tokens``: its secret is in the answer only.

        ``worker_id`` for worker tokens; ``queues`` limits a worker token's claims (and the items
        it creates) to those queues; ``create_items`` lets a worker token create items too.
        """
        body = _fields(
            name=name,
            role=str(role),
            workerId=worker_id,
            queues=list(queues) if queues else None,
            createItems=create_items,
        )
        return IssuedToken.from_json(self._json("POST", "/tokens", body))

    def current_token(self) -> CurrentToken:
        """``GET /tokens/current`` (any token): who this client's token is."""
        return CurrentToken.from_json(self._json("GET", "/tokens/current"))

    def list_tokens(self) -> list[TokenInfo]:
        """``GET /tokens``: every token, revoked ones too, never with its secret."""
        return [TokenInfo.from_json(entry) for entry in self._json("GET", "/tokens")["tokens"]]

    def revoke_token(self, token_id: str) -> None:
        """``DELETE /tokens/{id}``: refused from the very next request on every instance."""
        self._http.request("DELETE", path("tokens", token_id))

    # The change stream (operator)

    def changes(
        self,
        *,
        types: Sequence[str] | None = None,
        queue: str | None = None,
        item_id: str | None = None,
        after: int | None = None,
        follow: bool = True,
        reconnect: bool = True,
    ) -> ChangeStream:
        """``GET /changes``: committed changes as they happen, from ``after`` (a ``seq``) or from now.

        Iterate over the answer; it reconnects after a drop and resumes after the last change
        it handed out (``stream.last_event_id``), so nothing is lost or repeated. ``follow=False``
        stops once every stored change after ``after`` was read. ``close()`` ends it from any thread.
        """
        return ChangeStream(
            self._http, stream_query(types, queue, item_id), after=after, follow=follow, reconnect=reconnect
        )
