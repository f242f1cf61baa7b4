"""The change stream (``GET /changes``): server-sent events read as they arrive, resumed on a drop.

The service numbers every committed change with a strictly increasing ``seq`` and resumes a
stream after the ``Last-Event-ID`` it is sent, so a :class:`ChangeStream` that reconnects
with the last ``seq`` it handed out neither loses nor repeats a change (while the service's
outbox still holds it: ``workgraph.outbox.retention``).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ._http import Transport
from .models import _time
from .problems import ServiceUnreachable

__all__ = ["Change", "ChangeStream", "ServerSentEvent", "parse_events"]

# The stream sends a keep-alive comment every 15 s: a read that waits much longer than
# that has lost its connection without being told.
_READ_TIMEOUT_SECONDS = 45.0


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One event of a ``text/event-stream``: its id, its type (``event:``) and its data."""

    id: str | None
    event: str
    data: str
    retry_millis: int | None = None


def parse_events(lines: Iterable[str]) -> Iterator[ServerSentEvent]:
    """Events from the lines of a ``text/event-stream`` (the HTML standard's rules).

    Comments (``:``) are skipped; ``data:`` lines join with newlines; an event is
    dispatched at a blank line, and one without data is dropped (as browsers do) unless it
    carries a ``retry:`` the reader should keep.
    """
    event_id: str | None = None
    event_type = ""
    data: list[str] = []
    retry: int | None = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield ServerSentEvent(event_id, event_type or "message", "\n".join(data), retry)
            elif retry is not None:
                yield ServerSentEvent(event_id, "", "", retry)
            event_type, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
        elif name == "id" and "\0" not in value:
            event_id = value
        elif name == "retry" and value.isdigit():
            retry = int(value)


@dataclass(frozen=True, slots=True)
class Change:
    """A committed change: ``seq`` orders every change; ``data`` holds the type's own fields."""

    seq: int
    type: str
    item_id: str | None
    lease_id: str | None
    epoch: int | None
    queue: str | None
    at: datetime | None
    data: Mapping[str, Any]
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> Change:
        return cls(
            seq=json["seq"],
            type=json["type"],
            item_id=json.get("itemId"),
            lease_id=json.get("leaseId"),
            epoch=json.get("epoch"),
            queue=json.get("queue"),
            at=_time(json.get("at")),
            data=json.get("data") or {},
            raw=json,
        )


class ChangeStream:
    """Iterates over changes as the service commits them; reconnects after a drop.

    Made by :meth:`WorkGraphClient.changes`. ``last_event_id`` is the ``seq`` of the last
    change handed out: keep it to resume later (``after=``). :meth:`close` from any thread
    ends the iteration. With ``follow=False`` the iteration ends once the stream has sent
    every stored change.
    """

    def __init__(
        self,
        transport: Transport,
        query: Mapping[str, Any],
        *,
        after: int | None,
        follow: bool,
        reconnect: bool,
    ) -> None:
        self._transport = transport
        self._query = dict(query)
        self._follow = follow
        self._reconnect = reconnect
        self.last_event_id: int | None = after
        self._retry_seconds = 1.0
        self._lock = threading.Lock()
        self._closed = False
        self._connection: http.client.HTTPConnection | None = None

    def __iter__(self) -> Iterator[Change]:
        while not self._closed:
            try:
                for event in parse_events(self._lines()):
                    if event.retry_millis is not None:
                        self._retry_seconds = event.retry_millis / 1000.0
                    if not event.data:
                        continue
                    change = Change.from_json(json.loads(event.data))
                    self.last_event_id = change.seq
                    yield change
                if not self._follow:
                    return
            except (OSError, http.client.HTTPException, ServiceUnreachable):
                if self._closed or not self._reconnect:
                    if self._closed:
                        return
                    raise
            finally:
                self._disconnect()
            if self._closed:
                return
            time.sleep(self._retry_seconds)

    def _lines(self) -> Iterator[str]:
        headers = {}
        query = dict(self._query)
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        if not self._follow:
            query["follow"] = "false"
        connection, response = self._transport.open_stream(
            "/changes", query=query, headers=headers, read_timeout=_READ_TIMEOUT_SECONDS
        )
        with self._lock:
            self._connection = connection
            if self._closed:
                return
        while True:
            line = response.readline()
            if not line:
                if self._follow and not self._closed:
                    raise ServiceUnreachable("The change stream was closed by the service", may_have_been_processed=False)
                return
            yield line.decode("utf-8")

    def _disconnect(self) -> None:
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def close(self) -> None:
        """Ends the iteration, from any thread (a read in progress is woken)."""
        with self._lock:
            self._closed = True
            connection = self._connection
        if connection is not None and connection.sock is not None:
            try:
                connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> ChangeStream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def stream_query(types: Sequence[str] | None, queue: str | None, item_id: str | None) -> dict[str, Any]:
    """The query of ``GET /changes`` for these filters (None: not filtered)."""
    return {"types": ",".join(types) if types else None, "queue": queue, "itemId": item_id}

