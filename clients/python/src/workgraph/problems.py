"""Every way a request can fail, as exceptions.

The service answers errors as RFC 9457 problems with a stable ``code``; each code has an
exception class of its own here, so callers catch what they can handle and never parse
the ``detail`` text. Failures before any answer (no connection, a timeout) are
:class:`ServiceUnreachable`; a request called off from another thread is
:class:`RequestCancelled`.

:class:`LeaseLost` is what a worker must stop for: the service refused a write under a
lease (``lease_expired``, ``lease_ended``, ``epoch_mismatch``), or the worker runtime knows
the lease is gone (it could not be renewed in time, the worker is stopping).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "AlreadyResolved",
    "DependencyCycle",
    "EpochMismatch",
    "FieldError",
    "Forbidden",
    "IdempotencyConflict",
    "InternalServerError",
    "ItemTerminal",
    "LeaseEnded",
    "LeaseExpired",
    "LeaseLost",
    "LeaseRejected",
    "LostReason",
    "MalformedRequest",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "OpenChildren",
    "PayloadTooLarge",
    "Problem",
    "RateLimited",
    "RequestCancelled",
    "RequestRejected",
    "ServiceUnavailable",
    "ServiceUnreachable",
    "Unauthenticated",
    "UnexpectedResponse",
    "UnmetDependencies",
    "UnsupportedMediaType",
    "ValidationFailed",
    "WorkGraphError",
    "rejection",
]

_STANDARD = frozenset({"type", "title", "status", "detail", "instance", "code"})


@dataclass(frozen=True, slots=True)
class Problem:
    """An RFC 9457 problem document as the service sent it.

    ``code`` is the stable value to branch on; ``detail`` is written for people and may
    change. Every member other than the standard ones (the ids involved, ``errors``,
    ``cycle``, ...) is in ``properties``.
    """

    status: int
    code: str | None
    title: str | None = None
    detail: str | None = None
    type: str | None = None
    instance: str | None = None
    properties: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, document: Mapping[str, Any], status: int) -> Problem:
        """The problem in a JSON object; the HTTP ``status`` wins over the body's."""

        def text(name: str) -> str | None:
            value = document.get(name)
            return value if isinstance(value, str) else None

        return cls(
            status=status,
            code=text("code"),
            title=text("title"),
            detail=text("detail"),
            type=text("type"),
            instance=text("instance"),
            properties={k: v for k, v in document.items() if k not in _STANDARD},
        )

    def get(self, name: str, default: Any = None) -> Any:
        """A member other than the standard ones (``leaseId``, ``currentEpoch``, ...)."""
        return self.properties.get(name, default)

    def to_json(self) -> dict[str, Any]:
        standard = {
            "type": self.type,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "instance": self.instance,
            "code": self.code,
        }
        return {**{k: v for k, v in standard.items() if v is not None}, **self.properties}


class WorkGraphError(Exception):
    """Base of every failure of this client.

    ``transient`` tells whether the same request may succeed later (503, 429, 500, no
    connection): the worker runtime retries those with back-off and nothing else.
    """

    transient: ClassVar[bool] = False


class RequestRejected(WorkGraphError):
    """The service answered with a problem (any status from 400 on).

    A code this client does not know yet arrives as a plain ``RequestRejected``: branch on
    the class, or on :attr:`code`, never on the message.
    """

    def __init__(self, problem: Problem, retry_after: float | None = None) -> None:
        super().__init__(_describe(problem))
        self.problem = problem
        #: Seconds the service asked the caller to wait before trying again, or None.
        self.retry_after = retry_after

    @property
    def code(self) -> str | None:
        return self.problem.code

    @property
    def status(self) -> int:
        return self.problem.status


class MalformedRequest(RequestRejected):
    """400 ``malformed_request``: the body is not one well-formed JSON value."""


@dataclass(frozen=True, slots=True)
class FieldError:
    """One bad field of a ``validation_failed`` problem."""

    field: str
    message: str


class ValidationFailed(RequestRejected):
    """422 ``validation_failed``: fix the fields named in :attr:`errors`."""

    @property
    def errors(self) -> list[FieldError]:
        entries = self.problem.get("errors") or []
        return [
            FieldError(str(entry.get("field", "")), str(entry.get("message", "")))
            for entry in entries
            if isinstance(entry, Mapping)
        ]

    def concerns(self, name: str) -> bool:
        """Whether ``name`` (or a member of it, ``name.x`` or ``name[i]``) is among the bad fields."""
        return any(
            error.field == name or error.field.startswith((name + ".", name + "["))
            for error in self.errors
        )


class Unauthenticated(RequestRejected):
    """401 ``unauthenticated``: no token, or an unknown or revoked one."""


class Forbidden(RequestRejected):
    """403 ``forbidden``: the token's role may not do this (or not on this lease or item)."""


class NotFound(RequestRejected):
    """404 ``not_found``: the item, lease, request or edge does not exist."""


class MethodNotAllowed(RequestRejected):
    """405 ``method_not_allowed``: a client newer than the service, most likely."""


class NotAcceptable(RequestRejected):
    """406 ``not_acceptable``."""


class DependencyCycle(RequestRejected):
    """422 ``dependency_cycle``: the change would make the wait-for graph cyclic."""

    @property
    def cycle(self) -> list[str]:
        """The ids (or decompose keys, or ``(new item)``) around the cycle, first repeated last."""
        return [str(entry) for entry in self.problem.get("cycle") or []]


class ItemTerminal(RequestRejected):
    """409 ``item_terminal``: the item is completed or cancelled; nothing changes it."""


class OpenChildren(RequestRejected):
    """409 ``open_children``: completing an item whose children are not all closed."""


class UnmetDependencies(RequestRejected):
    """409 ``unmet_dependencies``: completing an item that gained a dependency during the lease."""


class AlreadyResolved(RequestRejected):
    """409 ``already_resolved``: the attention request was answered before; that answer stands."""


class IdempotencyConflict(RequestRejected):
    """409 ``idempotency_conflict``: an ``Idempotency-Key`` reused with another body."""


class PayloadTooLarge(RequestRejected):
    """413 ``payload_too_large``: bodies are at most 10 MiB, JSON objects 64 KiB."""


class UnsupportedMediaType(RequestRejected):
    """415 ``unsupported_media_type``."""


class RateLimited(RequestRejected):
    """429: wait for :attr:`retry_after` (a proxy's answer; the service has no rate limit)."""

    transient = True


class ServiceUnavailable(RequestRejected):
    """503 ``service_unavailable`` (also a proxy's 502 or 504): retry the same request later."""

    transient = True


class InternalServerError(RequestRejected):
    """500 ``internal_error``: a bug in the service; retrying may help."""

    transient = True


class LostReason(enum.StrEnum):
    """Why a lease is no longer held."""

    #: The service refused a renewal or write under the lease (it expired, ended, or an
    #: operator cancelled the item).
    REFUSED = "refused"
    #: No renewal succeeded for a whole lease length: it must be taken as expired.
    RENEWALS_FAILED = "renewals_failed"
    #: The worker stopped before the handler finished; the runtime released the lease.
    WORKER_STOPPED = "worker_stopped"
    #: The handler returned and the lease could not be ended for it; it is left to expire.
    ABANDONED = "abandoned"


class LeaseLost(WorkGraphError):
    """The lease is gone: stop working on the item and discard what was meant for it.

    Never retry with :attr:`current_epoch`: that epoch belongs to a lease you do not hold.
    """

    def __init__(
        self,
        message: str,
        *,
        lease_id: str | None = None,
        presented_epoch: int | None = None,
        current_epoch: int | None = None,
        reason: LostReason = LostReason.REFUSED,
    ) -> None:
        super().__init__(message)
        self.lease_id = lease_id
        #: The epoch the write carried (the lease's own).
        self.presented_epoch = presented_epoch
        #: The item's epoch when the service refused the write; None when not known.
        self.current_epoch = current_epoch
        self.reason = reason


class LeaseRejected(RequestRejected, LeaseLost):
    """409: the service refused a write under a lease that is no longer the item's live one.

    Nothing was written. Subclasses tell which of the three stale-lease codes it was.
    """

    def __init__(self, problem: Problem, retry_after: float | None = None) -> None:
        RequestRejected.__init__(self, problem, retry_after)
        self.lease_id = _text(problem.get("leaseId"))
        self.presented_epoch = _number(problem.get("presentedEpoch"))
        self.current_epoch = _number(problem.get("currentEpoch"))
        self.reason = LostReason.REFUSED


class LeaseExpired(LeaseRejected):
    """409 ``lease_expired``: the lease reached ``expiresAt``; the item may be someone else's now."""


class LeaseEnded(LeaseRejected):
    """409 ``lease_ended``: completed, released, cancelled, decomposed or ended by a question.

    If it may have been your own write whose answer was lost, ``get_lease`` shows the outcome.
    """


class EpochMismatch(LeaseRejected):
    """409 ``epoch_mismatch``: the lease is alive but the write carried another epoch (a client bug)."""


class ServiceUnreachable(WorkGraphError):
    """No answer: the connection was refused or reset, or the request timed out.

    ``may_have_been_processed`` is False only when no connection could be made; otherwise
    the service may have done what was asked.
    """

    transient = True

    def __init__(
        self, message: str, *, may_have_been_processed: bool, timed_out: bool = False
    ) -> None:
        super().__init__(message)
        self.may_have_been_processed = may_have_been_processed
        self.timed_out = timed_out


class RequestCancelled(WorkGraphError):
    """The request was called off from another thread (:meth:`workgraph.Call.cancel`)."""


class UnexpectedResponse(WorkGraphError):
    """An answer that is not the API's: another server on that address, a proxy's page."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


_BY_CODE: dict[str, type[RequestRejected]] = {
    "malformed_request": MalformedRequest,
    "validation_failed": ValidationFailed,
    "unauthenticated": Unauthenticated,
    "forbidden": Forbidden,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "not_acceptable": NotAcceptable,
    "dependency_cycle": DependencyCycle,
    "item_terminal": ItemTerminal,
    "open_children": OpenChildren,
    "unmet_dependencies": UnmetDependencies,
    "lease_expired": LeaseExpired,
    "lease_ended": LeaseEnded,
    "epoch_mismatch": EpochMismatch,
    "already_resolved": AlreadyResolved,
    "idempotency_conflict": IdempotencyConflict,
    "payload_too_large": PayloadTooLarge,
    "unsupported_media_type": UnsupportedMediaType,
    "rate_limited": RateLimited,
    "service_unavailable": ServiceUnavailable,
    "internal_error": InternalServerError,
}

# For answers that carry no problem code (a proxy's 502 page, say).
_BY_STATUS: dict[int, type[RequestRejected]] = {
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    406: NotAcceptable,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    429: RateLimited,
    500: InternalServerError,
    502: ServiceUnavailable,
    503: ServiceUnavailable,
    504: ServiceUnavailable,
}


def rejection(problem: Problem, retry_after: float | None = None) -> RequestRejected:
    """The exception for a problem: the class of its code, or of its status when it has no code."""
    if problem.code is not None:
        cls = _BY_CODE.get(problem.code, RequestRejected)
    else:
        cls = _BY_STATUS.get(problem.status, RequestRejected)
    return cls(problem, retry_after)


def _describe(problem: Problem) -> str:
    text = str(problem.status)
    if problem.code:
        text += " " + problem.code
    if problem.detail or problem.title:
        text += ": " + (problem.detail or problem.title or "")
    return text


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
