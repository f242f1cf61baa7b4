"""Work Graph for Python: an API client and a worker runtime, on the standard library only.

>>> from workgraph import WorkGraphClient, Worker
>>> client = WorkGraphClient("http://localhost:8080", token=os.environ["WORKGRAPH_TOKEN"])
>>> Worker(client, queues=["writing"], concurrency=4, lease_seconds=60).run(handle)

:class:`WorkGraphClient` has a method per endpoint; every failure is a
:class:`WorkGraphError`, each problem code a class of its own (:mod:`workgraph.problems`).
:class:`Worker` claims with a long poll, renews leases, tells the handler when its lease is
lost (:class:`LeaseContext`), completes with the handler's return value, and stops cleanly.
"""

import sys

if sys.version_info < (3, 11):  # say so plainly, before a 3.11 feature fails obscurely below
    raise ImportError(f"workgraph needs Python 3.11 or newer; this is {sys.version.split()[0]}")

from ._http import Call
from ._lease import LeaseContext
from .changes import Change, ChangeStream
from .client import LeaseLike, LeaseRef, WorkGraphClient
from .failures import (
    AskHuman,
    Cancel,
    FailureAction,
    FailurePolicy,
    HandlerFailure,
    Release,
    ask_human,
    release,
    release_then_ask_human,
)
from .models import (
    AttentionRequest,
    Blockers,
    Checkpoint,
    ChildRef,
    Claim,
    CompletedWithNext,
    Completion,
    CompletionResult,
    CurrentToken,
    Decomposed,
    EndedLease,
    HandedOff,
    IssuedToken,
    Item,
    ItemRef,
    ItemStatus,
    Lease,
    LeaseFence,
    LeaseOutcome,
    NewChild,
    Page,
    QueueStats,
    SavedCheckpoint,
    Token,
    TokenRole,
)
from .problems import (
    AlreadyResolved,
    DependencyCycle,
    EpochMismatch,
    FieldError,
    Forbidden,
    IdempotencyConflict,
    InternalServerError,
    ItemTerminal,
    LeaseEnded,
    LeaseExpired,
    LeaseLost,
    LeaseRejected,
    LostReason,
    MalformedRequest,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    OpenChildren,
    PayloadTooLarge,
    Problem,
    RateLimited,
    RequestCancelled,
    RequestRejected,
    ServiceUnavailable,
    ServiceUnreachable,
    Unauthenticated,
    UnexpectedResponse,
    UnmetDependencies,
    UnsupportedMediaType,
    ValidationFailed,
    WorkGraphError,
)
from .timing import Backoff
from .worker import Handler, Worker

__version__ = "0.1.0"

__all__ = [
    "AlreadyResolved",
    "AskHuman",
    "AttentionRequest",
    "Backoff",
    "Blockers",
    "Call",
    "Change",
    "ChangeStream",
    "Checkpoint",
    "Cancel",
    "ChildRef",
    "Claim",
    "CompletedWithNext",
    "Completion",
    "CompletionResult",
    "CurrentToken",
    "Decomposed",
    "DependencyCycle",
    "EndedLease",
    "HandedOff",
    "EpochMismatch",
    "FailureAction",
    "FailurePolicy",
    "FieldError",
    "Forbidden",
    "Handler",
    "HandlerFailure",
    "IdempotencyConflict",
    "InternalServerError",
    "IssuedToken",
    "Item",
    "ItemRef",
    "ItemStatus",
    "ItemTerminal",
    "Lease",
    "LeaseContext",
    "LeaseEnded",
    "LeaseExpired",
    "LeaseFence",
    "LeaseLost",
    "LeaseOutcome",
    "LeaseLike",
    "LeaseRef",
    "LeaseRejected",
    "LostReason",
    "MalformedRequest",
    "MethodNotAllowed",
    "NewChild",
    "NotAcceptable",
    "NotFound",
    "OpenChildren",
    "Page",
    "PayloadTooLarge",
    "Problem",
    "QueueStats",
    "SavedCheckpoint",
    "RateLimited",
    "Release",
    "RequestCancelled",
    "RequestRejected",
    "ServiceUnavailable",
    "ServiceUnreachable",
    "Token",
    "TokenRole",
    "Unauthenticated",
    "UnexpectedResponse",
    "UnmetDependencies",
    "UnsupportedMediaType",
    "ValidationFailed",
    "WorkGraphClient",
    "WorkGraphError",
    "Worker",
    "ask_human",
    "release",
    "release_then_ask_human",
]
