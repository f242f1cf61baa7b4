"""What the service answers, as typed, immutable values; and what callers send.

Field names are the API's in snake case (``parentId`` is ``parent_id``). Times are aware
:class:`~datetime.datetime` values in UTC from PostgreSQL's clock. Ids are strings.
Every value read from the service keeps the JSON it came from in ``raw``, so fields that
a newer service adds are readable before this client names them. Statuses and outcomes
are enums; one this client does not know yet arrives as its plain string.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar

from .problems import Problem, RequestRejected, rejection

__all__ = [
    "AttentionRequest",
    "Blockers",
    "Checkpoint",
    "ChildRef",
    "Claim",
    "CompletedWithNext",
    "Completion",
    "CompletionResult",
    "CurrentToken",
    "Decomposed",
    "EventAccepted",
    "EndedLease",
    "IssuedToken",
    "Item",
    "ItemRef",
    "ItemStatus",
    "Lease",
    "LeaseFence",
    "LeaseOutcome",
    "NewChild",
    "Page",
    "QueueStats",
    "SavedCheckpoint",
    "Token",
    "TokenRole",
    "Wait",
]

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)


class ItemStatus(enum.StrEnum):
    BLOCKED = "blocked"
    READY = "ready"
    LEASED = "leased"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


class LeaseOutcome(enum.StrEnum):
    COMPLETED = "completed"
    RELEASED = "released"
    CANCELLED = "cancelled"
    DECOMPOSED = "decomposed"
    ATTENTION_REQUESTED = "attention_requested"
    EXPIRED = "expired"
    HANDED_OFF = "handed_off"
    FAILED = "failed"


class TokenRole(enum.StrEnum):
    WORKER = "worker"
    OPERATOR = "operator"
    ADMIN = "admin"


def rfc3339(value: datetime | str | None) -> str | None:
    """A time as the service takes it: RFC 3339 in UTC (text is passed on as it is)."""
    if value is None or isinstance(value, str):
        return value
    if value.tzinfo is None:
        raise ValueError("a time for the service must be timezone-aware, e.g. datetime.now(timezone.utc)")
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _time(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _enum(kind: type[E], value: Any) -> E | str | None:
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        return str(value)


@dataclass(frozen=True, slots=True)
class Lease:
    """One worker's time-limited hold on one item; ``epoch`` fences every write under it."""

    id: str
    item_id: str
    worker_id: str
    epoch: int
    acquired_at: datetime
    renewed_at: datetime | None
    expires_at: datetime
    active: bool
    ended_at: datetime | None
    outcome: LeaseOutcome | str | None
    reason: str | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    #: The signed statement of this lease (a compact JWS, EdDSA) that systems outside Work
    #: Graph verify with the service's keys at ``/.well-known/jwks.json``; None from a
    #: service that does not sign leases.
    fence_token: str | None = field(default=None, repr=False)

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Lease:
        return cls(
            id=json["id"],
            item_id=json["itemId"],
            worker_id=json["workerId"],
            epoch=json["epoch"],
            acquired_at=_time(json["acquiredAt"]),  # type: ignore[arg-type]
            renewed_at=_time(json.get("renewedAt")),
            expires_at=_time(json["expiresAt"]),  # type: ignore[arg-type]
            active=bool(json.get("active")),
            ended_at=_time(json.get("endedAt")),
            outcome=_enum(LeaseOutcome, json.get("outcome")),
            reason=json.get("reason"),
            raw=json,
            fence_token=json.get("fenceToken"),
        )

    @property
    def granted_seconds(self) -> float:
        """The length the service granted at the last claim or renewal, from its own two times."""
        start = self.renewed_at or self.acquired_at
        return (self.expires_at - start).total_seconds()


@dataclass(frozen=True, slots=True)
class AttentionRequest:
    """A question raised on a lease for a human, with its answer once given."""

    id: str
    item_id: str
    item_title: str | None
    lease_id: str | None
    epoch: int | None
    worker_id: str | None
    raised_by: str | None
    blocking: bool
    question: str
    context: Mapping[str, Any]
    status: str
    opened_at: datetime | None
    resolution: str | None
    resolved_by: str | None
    resolved_at: datetime | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> AttentionRequest:
        return cls(
            id=json["id"],
            item_id=json["itemId"],
            item_title=json.get("itemTitle"),
            lease_id=json.get("leaseId"),
            epoch=json.get("epoch"),
            worker_id=json.get("workerId"),
            raised_by=json.get("raisedBy"),
            blocking=bool(json.get("blocking", True)),
            question=json.get("question", ""),
            context=json.get("context") or {},
            status=json.get("status", ""),
            opened_at=_time(json.get("openedAt")),
            resolution=json.get("resolution"),
            resolved_by=json.get("resolvedBy"),
            resolved_at=_time(json.get("resolvedAt")),
            raw=json,
        )

    @property
    def resolved(self) -> bool:
        return self.status == "resolved"


@dataclass(frozen=True, slots=True)
class Blockers:
    """The counts that keep an item from being ready."""

    unmet_dependencies: int
    open_children: int
    open_attention_requests: int
    #: The time before which the item may not be claimed (scheduled, released with a delay, or
    #: backing off after a failure); None when nothing waits for a time.
    not_before: datetime | None = None
    #: Open durable waits for events.
    open_waits: int = 0

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Blockers:
        return cls(
            unmet_dependencies=json.get("unmetDependencies", 0),
            open_children=json.get("openChildren", 0),
            open_attention_requests=json.get("openAttentionRequests", 0),
            not_before=_time(json.get("notBefore")),
            open_waits=json.get("openWaits", 0),
        )


@dataclass(frozen=True, slots=True)
class Wait:
    """A durable wait for an event: ``matched_event`` (with its ``payload``) once it came."""

    id: str
    item_id: str
    lease_id: str
    epoch: int
    event_name: str
    event_key: str
    status: str
    on_timeout: str | None
    timeout_at: datetime | None
    matched_event: Mapping[str, Any] | None
    created_at: datetime | None
    resolved_at: datetime | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Wait:
        event = json.get("event") or {}
        return cls(
            id=json["id"],
            item_id=json.get("itemId", ""),
            lease_id=json.get("leaseId", ""),
            epoch=json.get("epoch", 0),
            event_name=event.get("name", ""),
            event_key=event.get("key", ""),
            status=json.get("status", ""),
            on_timeout=json.get("onTimeout"),
            timeout_at=_time(json.get("timeoutAt")),
            matched_event=json.get("matchedEvent"),
            created_at=_time(json.get("createdAt")),
            resolved_at=_time(json.get("resolvedAt")),
            raw=json,
        )


@dataclass(frozen=True, slots=True)
class EventAccepted:
    """``POST /events``: the event's id, how many waits it matched, and whether it was a repeat."""

    event_id: str
    matched_waits: int
    repeated: bool


@dataclass(frozen=True, slots=True)
class ItemRef:
    """Another item as an item view names it: a dependency or a dependent."""

    id: str
    title: str
    status: ItemStatus | str

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> ItemRef:
        return cls(json["id"], json.get("title", ""), _enum(ItemStatus, json.get("status")) or "")


@dataclass(frozen=True, slots=True)
class ChildRef:
    """A direct child of an item, with its result once completed."""

    id: str
    title: str
    status: ItemStatus | str
    result: Any

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> ChildRef:
        status = _enum(ItemStatus, json.get("status")) or ""
        return cls(json["id"], json.get("title", ""), status, json.get("result"))


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Progress a holder saved under its lease; the item view carries the latest one."""

    seq: int
    item_id: str
    lease_id: str
    epoch: int
    worker_id: str
    data: Mapping[str, Any]
    created_at: datetime | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Checkpoint:
        return cls(
            seq=json.get("seq", 0),
            item_id=json.get("itemId", ""),
            lease_id=json.get("leaseId", ""),
            epoch=json.get("epoch", 0),
            worker_id=json.get("workerId", ""),
            data=json.get("data") or {},
            created_at=_time(json.get("createdAt")),
            raw=json,
        )


@dataclass(frozen=True, slots=True)
class Item:
    """A work item as the service shows it: its fields, blockers, neighbours, lease and questions."""

    id: str
    title: str
    description: str | None
    priority: int
    queue: str
    metadata: Mapping[str, Any]
    parent_id: str | None
    result: Any
    epoch: int
    status: ItemStatus | str
    created_at: datetime | None
    updated_at: datetime | None
    ready_since: datetime | None
    closed_at: datetime | None
    cancel_reason: str | None
    created_by: str | None
    cancelled_by: str | None
    blockers: Blockers
    depends_on: Sequence[ItemRef]
    children: Sequence[ChildRef]
    lease: Lease | None
    attention_requests: Sequence[AttentionRequest]
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    #: The latest checkpoint saved under any of the item's leases, to resume from; None: none yet.
    checkpoint: Checkpoint | None = None
    #: Failures and expiries counted against the item's retry policy.
    attempts: int = 0
    #: The item's durable waits, oldest first (a matched one carries its event's payload).
    waits: Sequence[Wait] = ()

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Item:
        lease = json.get("lease")
        checkpoint = json.get("checkpoint")
        return cls(
            id=json["id"],
            title=json["title"],
            description=json.get("description"),
            priority=json.get("priority", 0),
            queue=json.get("queue", "default"),
            metadata=json.get("metadata") or {},
            parent_id=json.get("parentId"),
            result=json.get("result"),
            epoch=json.get("epoch", 0),
            status=_enum(ItemStatus, json.get("status")) or "",
            created_at=_time(json.get("createdAt")),
            updated_at=_time(json.get("updatedAt")),
            ready_since=_time(json.get("readySince")),
            closed_at=_time(json.get("closedAt")),
            cancel_reason=json.get("cancelReason"),
            created_by=json.get("createdBy"),
            cancelled_by=json.get("cancelledBy"),
            blockers=Blockers.from_json(json.get("blockers") or {}),
            depends_on=[ItemRef.from_json(entry) for entry in json.get("dependsOn") or []],
            children=[ChildRef.from_json(entry) for entry in json.get("children") or []],
            lease=Lease.from_json(lease) if lease else None,
            attention_requests=[AttentionRequest.from_json(r) for r in json.get("attentionRequests") or []],
            raw=json,
            checkpoint=Checkpoint.from_json(checkpoint) if checkpoint else None,
            attempts=json.get("attempts", 0),
            waits=[Wait.from_json(entry) for entry in json.get("waits") or []],
        )

    @property
    def answers(self) -> list[AttentionRequest]:
        """The item's answered questions, in the order they were asked."""
        return [request for request in self.attention_requests if request.resolved]


@dataclass(frozen=True, slots=True)
class Claim:
    """A granted claim: the new lease and the item's full view."""

    lease: Lease
    item: Item

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Claim:
        return cls(Lease.from_json(json["lease"]), Item.from_json(json["item"]))


@dataclass(frozen=True, slots=True)
class EndedLease:
    """The answer to complete, release and cancel: the ended lease and the item after it."""

    lease: Lease
    item: Item


@dataclass(frozen=True, slots=True)
class SavedCheckpoint:
    """The answer to a checkpoint: the checkpoint and the lease (renewed when asked)."""

    checkpoint: Checkpoint
    lease: Lease


@dataclass(frozen=True, slots=True)
class HandedOff:
    """The answer to a handoff: the ended lease, the successor's lease (the next epoch) and the item."""

    ended: Lease
    lease: Lease
    item: Item


@dataclass(frozen=True, slots=True)
class Decomposed:
    """The answer to decompose: the ended lease, the item, and its new children."""

    lease: Lease
    item: Item
    children: Sequence[Item]


@dataclass(frozen=True, slots=True)
class CompletedWithNext:
    """A completion that asked for the next item (``claimNext``).

    ``next`` is None when nothing was ready, and also when the claim failed after the
    completion was committed: then ``next_problem`` says why. The completion stands.
    """

    lease: Lease
    item: Item
    next: Claim | None
    next_problem: RequestRejected | None

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> CompletedWithNext:
        following = json.get("next")
        problem = json.get("nextProblem")
        return cls(
            lease=Lease.from_json(json["lease"]),
            item=Item.from_json(json["item"]),
            next=Claim.from_json(following) if following else None,
            next_problem=_problem(problem) if problem else None,
        )


@dataclass(frozen=True, slots=True)
class Completion:
    """One entry of a batch completion; ``result`` None sends none."""

    lease_id: str
    epoch: int
    result: Any = None

    @classmethod
    def of(cls, lease: Lease, result: Any = None) -> Completion:
        return cls(lease.id, lease.epoch, result)

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"leaseId": self.lease_id, "epoch": self.epoch}
        if self.result is not None:
            entry["result"] = self.result
        return entry


@dataclass(frozen=True, slots=True)
class CompletionResult:
    """What one entry of a batch completion answered: the ended lease, or its problem."""

    lease_id: str
    status: int
    lease: Lease | None
    problem: RequestRejected | None

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> CompletionResult:
        lease = json.get("lease")
        problem = json.get("problem")
        return cls(
            lease_id=json["leaseId"],
            status=json["status"],
            lease=Lease.from_json(lease) if lease else None,
            problem=_problem(problem, json["status"]) if problem else None,
        )

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _problem(json: Mapping[str, Any], status: int | None = None) -> RequestRejected:
    return rejection(Problem.from_json(json, status if status is not None else json.get("status", 0)))


@dataclass(frozen=True, slots=True)
class NewChild:
    """A child to create by decomposing; ``depends_on`` holds sibling keys or existing item ids."""

    key: str
    title: str
    description: str | None = None
    priority: int | None = None
    queue: str | None = None
    metadata: Mapping[str, Any] | None = None
    depends_on: Sequence[str] | None = None
    #: Not claimable before this time (an aware datetime, or RFC 3339 text).
    not_before: datetime | str | None = None

    def to_json(self) -> dict[str, Any]:
        fields = {
            "key": self.key,
            "title": self.title,
            "description": self.description,
            "priority": self.priority,
            "queue": self.queue,
            "metadata": self.metadata,
            "dependsOn": list(self.depends_on) if self.depends_on is not None else None,
            "notBefore": rfc3339(self.not_before),
        }
        return {name: value for name, value in fields.items() if value is not None}


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list; pass ``next_cursor`` back as ``cursor`` (None on the last page)."""

    items: Sequence[T]
    next_cursor: str | None

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True, slots=True)
class Token:
    """An access token as listed (never with its secret)."""

    id: str
    name: str
    role: TokenRole | str
    worker_id: str | None
    created_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None
    queues: tuple[str, ...] | None = None
    create_items: bool = False

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Token:
        return cls(
            id=json["id"],
            name=json["name"],
            role=_enum(TokenRole, json.get("role")) or "",
            worker_id=json.get("workerId"),
            created_at=_time(json.get("createdAt")),
            last_used_at=_time(json.get("lastUsedAt")),
            revoked_at=_time(json.get("revokedAt")),
            queues=_names(json.get("queues")),
            create_items=bool(json.get("createItems", False)),
        )


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A token just created: ``token`` is its secret, shown this once."""

    id: str
    name: str
    role: TokenRole | str
    worker_id: str | None
    token: str = field(repr=False)
    created_at: datetime | None = None
    queues: tuple[str, ...] | None = None
    create_items: bool = False

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> IssuedToken:
        return cls(
            id=json["id"],
            name=json["name"],
            role=_enum(TokenRole, json.get("role")) or "",
            worker_id=json.get("workerId"),
            token=json["token"],
            created_at=_time(json.get("createdAt")),
            queues=_names(json.get("queues")),
            create_items=bool(json.get("createItems", False)),
        )


@dataclass(frozen=True, slots=True)
class QueueStats:
    """A queue's open items by status, and how long its oldest ready item has waited."""

    name: str
    ready: int
    leased: int
    blocked: int
    oldest_ready_since: datetime | None
    oldest_ready_age_seconds: float | None
    paused: bool = False
    max_active_leases: int | None = None

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> QueueStats:
        return cls(
            name=json["name"],
            ready=json.get("ready", 0),
            leased=json.get("leased", 0),
            blocked=json.get("blocked", 0),
            oldest_ready_since=_time(json.get("oldestReadySince")),
            oldest_ready_age_seconds=json.get("oldestReadyAgeSeconds"),
            paused=bool(json.get("paused", False)),
            max_active_leases=json.get("maxActiveLeases"),
        )


@dataclass(frozen=True, slots=True)
class CurrentToken:
    """Who a token is (``GET /tokens/current``); every field None with access control off."""

    id: str | None
    name: str | None
    role: TokenRole | str | None
    worker_id: str | None

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> CurrentToken:
        return cls(
            id=json.get("id"),
            name=json.get("name"),
            role=_enum(TokenRole, json.get("role")),
            worker_id=json.get("workerId"),
        )


@dataclass(frozen=True, slots=True)
class LeaseFence:
    """Whether a lease at some epoch still holds its item (``GET /leases/{id}/fence``)."""

    live: bool
    current_epoch: int
    expires_at: datetime | None

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> LeaseFence:
        return cls(
            live=bool(json["live"]),
            current_epoch=json["currentEpoch"],
            expires_at=_time(json.get("expiresAt")),
        )


def _names(json: Any) -> tuple[str, ...] | None:
    return tuple(json) if isinstance(json, list) else None
