"""The wire: requests with a JSON body and a bearer token, over kept-alive connections.

Built on :mod:`http.client` rather than :mod:`urllib.request` for two reasons: idle
connections are kept and reused (a worker renewing leases would otherwise open a TCP
connection per request), and a request waiting at the service (a long-poll claim) can be
called off from another thread by shutting its socket (:class:`Call`).
"""

from __future__ import annotations

import copy
import email.utils
import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from .problems import (
    Problem,
    RequestCancelled,
    ServiceUnreachable,
    UnexpectedResponse,
    WorkGraphError,
    rejection,
)

__all__ = ["Call", "Response", "Transport", "parse_retry_after", "path"]

_ACCEPT = "application/json, application/problem+json"
# Idle connections older than this are closed rather than reused: a server or proxy
# may have closed its end meanwhile, and a request sent on such a connection fails.
_MAX_IDLE_SECONDS = 5.0
_MAX_IDLE_CONNECTIONS = 16

Token = str | Callable[[], str | None] | None


def path(*segments: str) -> str:
    """``/a/b`` from segments, each percent-encoded (ids are never trusted to be URL-safe)."""
    return "".join("/" + quote(str(segment), safe="") for segment in segments)


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        if not self.body:
            return None
        charset = self.headers.get_content_charset() or "utf-8"
        return json.loads(self.body.decode(charset))


class Call:
    """A handle to call a request off from another thread (used for long-poll claims).

    Pass it to a method that accepts ``call=``; :meth:`cancel` from any thread closes the
    request's connection, and the method raises :class:`RequestCancelled`. A request that
    the service answered before the cancel returns normally. Cancelling before the request
    starts makes it fail at once. One ``Call`` serves one request.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._connection: http.client.HTTPConnection | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            connection = self._connection
        if connection is not None and connection.sock is not None:
            try:
                connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed

    def _attach(self, connection: http.client.HTTPConnection | None) -> bool:
        with self._lock:
            self._connection = connection
            return not self._cancelled


class _Pool:
    """Idle connections to one host, newest first, each with the time it went idle."""

    def __init__(self, scheme: str, host: str, port: int | None, ssl_context: ssl.SSLContext | None) -> None:
        self._scheme = scheme
        self._host = host
        self._port = port
        self._ssl_context = ssl_context
        self._idle: list[tuple[http.client.HTTPConnection, float]] = []
        self._lock = threading.Lock()

    def take(self, connect_timeout: float) -> tuple[http.client.HTTPConnection, bool]:
        """A connection and whether it was reused."""
        now = time.monotonic()
        with self._lock:
            while self._idle:
                idle, since = self._idle.pop()
                if now - since < _MAX_IDLE_SECONDS:
                    return idle, True
                idle.close()
        return self.new_connection(connect_timeout), False

    def new_connection(self, connect_timeout: float) -> http.client.HTTPConnection:
        """A connection of its own, not yet connected (the pool never sees it)."""
        if self._scheme == "https":
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=connect_timeout, context=self._ssl_context
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=connect_timeout)

    def give(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < _MAX_IDLE_CONNECTIONS:
                self._idle.append((connection, time.monotonic()))
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection, _ in idle:
            connection.close()

    def __del__(self) -> None:
        # A client dropped without close(): its idle sockets go with it, quietly.
        for connection, _ in self._idle:
            connection.close()


class Transport:
    """Sends requests to one service; thread-safe, shares its idle connections."""

    def __init__(
        self,
        base_url: str,
        *,
        token: Token = None,
        timeout: float = 30.0,
        connect_timeout: float = 5.0,
        ssl_context: ssl.SSLContext | None = None,
        user_agent: str = "workgraph-python",
        traceparent: Callable[[], str | None] | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"The service's URL must be http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._prefix = parts.path.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.ssl_context = ssl_context
        self.user_agent = user_agent
        self.traceparent = traceparent
        self._pool = _Pool(parts.scheme, parts.hostname, parts.port, ssl_context)

    def with_timeout(self, timeout: float) -> Transport:
        """The same transport (and connections) with another request timeout."""
        clone = copy.copy(self)
        clone.timeout = timeout
        clone.connect_timeout = min(self.connect_timeout, timeout)
        return clone

    def close(self) -> None:
        self._pool.close()

    def request(
        self,
        method: str,
        target: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        extra_timeout: float = 0.0,
        call: Call | None = None,
    ) -> Response:
        """Sends one request and returns a 2xx answer, or raises a :class:`WorkGraphError`.

        ``body`` None sends no body. ``extra_timeout`` lengthens the timeout (a long poll
        waits that long at the service before it answers).
        """
        url = self._prefix + target
        if query:
            present = {k: v for k, v in query.items() if v is not None}
            if present:
                url += "?" + urlencode(present, doseq=True)
        sent_headers = {"Accept": _ACCEPT, "User-Agent": self.user_agent}
        bearer = self.token() if callable(self.token) else self.token
        if bearer:
            sent_headers["Authorization"] = "Bearer " + bearer
        trace = self.traceparent() if self.traceparent is not None else None
        if trace:
            sent_headers["traceparent"] = trace
        payload = None
        if body is not None:
            payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
            sent_headers["Content-Type"] = "application/json"
        sent_headers.update(headers or {})
        what = f"{method} {target}"
        # A request on a reused connection that the server had closed fails before it was
        # read: safe to send again on a new connection, but only for reads and deletes.
        attempts = 2 if method in ("GET", "DELETE") else 1
        for attempt in range(1, attempts + 1):
            connection, reused = self._pool.take(self.connect_timeout)
            try:
                response = self._exchange(connection, method, url, payload, sent_headers, extra_timeout, call)
            except _Broken as broken:
                cancelled = call is not None and call.cancelled
                if broken.stale and reused and attempt < attempts and not cancelled:
                    continue
                raise self._unreachable(what, broken.cause, broken.connected, call) from broken.cause
            if 200 <= response.status < 300:
                return response
            raise _rejected(what, response)
        raise AssertionError("unreachable")

    def open_stream(
        self,
        target: str,
        *,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        read_timeout: float | None = None,
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Opens a ``GET`` whose answer is read as it arrives (server-sent events).

        The connection is its own, never pooled: the caller reads the response and closes
        the connection. ``read_timeout`` bounds the wait for each read (None: forever).
        A refusal raises its :class:`WorkGraphError` like :meth:`request`.
        """
        url = self._prefix + target
        present = {k: v for k, v in (query or {}).items() if v is not None}
        if present:
            url += "?" + urlencode(present, doseq=True)
        sent_headers = {"Accept": "text/event-stream, application/problem+json", "User-Agent": self.user_agent}
        bearer = self.token() if callable(self.token) else self.token
        if bearer:
            sent_headers["Authorization"] = "Bearer " + bearer
        sent_headers.update(headers or {})
        connection = self._pool.new_connection(self.connect_timeout)
        try:
            connection.connect()
            assert connection.sock is not None
            connection.sock.settimeout(read_timeout)
            connection.request("GET", url, headers=sent_headers)
            answer = connection.getresponse()
        except (OSError, http.client.HTTPException) as failure:
            connection.close()
            raise self._unreachable(f"GET {target}", failure, connection.sock is not None, None) from failure
        if not 200 <= answer.status < 300:
            try:
                response = Response(answer.status, answer.headers, answer.read())
            finally:
                connection.close()
            raise _rejected(f"GET {target}", response)
        return connection, answer

    def _exchange(
        self,
        connection: http.client.HTTPConnection,
        method: str,
        url: str,
        payload: bytes | None,
        headers: dict[str, str],
        extra_timeout: float,
        call: Call | None,
    ) -> Response:
        connected = connection.sock is not None
        try:
            if connection.sock is None:
                connection.timeout = self.connect_timeout
                connection.connect()
            connected = True
            # Attached once connected, so that a cancel always finds a socket to shut.
            if call is not None and not call._attach(connection):
                connection.close()
                raise RequestCancelled(f"{method} {url} was called off before it was sent")
            assert connection.sock is not None
            connection.sock.settimeout(self.timeout + extra_timeout)
            connection.request(method, url, body=payload, headers=headers)
            answer = connection.getresponse()
            body = answer.read()
        except (OSError, http.client.HTTPException) as failure:
            connection.close()
            raise _Broken(failure, connected) from failure
        finally:
            if call is not None:
                call._attach(None)
        if answer.will_close or (call is not None and call.cancelled):
            connection.close()  # a cancel that came with the answer may have shut its socket
        else:
            self._pool.give(connection)
        return Response(answer.status, answer.headers, body)

    @staticmethod
    def _unreachable(what: str, failure: BaseException, connected: bool, call: Call | None) -> WorkGraphError:
        if call is not None and call.cancelled:
            return RequestCancelled(f"{what} was called off")
        timed_out = isinstance(failure, (TimeoutError, socket.timeout))
        how = "timed out" if timed_out else "failed" if connected else "could not connect"
        hint = " (the service may have processed it)" if connected else ""
        return ServiceUnreachable(
            f"{what} {how}: {failure or type(failure).__name__}{hint}",
            may_have_been_processed=connected,
            timed_out=timed_out,
        )


class _Broken(Exception):
    """A request that failed without an answer."""

    def __init__(self, cause: BaseException, connected: bool) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.connected = connected
        # What a connection the server closed while it was idle looks like.
        self.stale = isinstance(
            cause, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)
        )


def _rejected(what: str, response: Response) -> WorkGraphError:
    retry_after = parse_retry_after(response.headers.get("Retry-After"))
    try:
        document = response.json()
    except (ValueError, UnicodeDecodeError):
        document = None
    if isinstance(document, Mapping) and isinstance(document.get("code"), str):
        return rejection(Problem.from_json(document, response.status), retry_after)
    if response.status < 400:
        return UnexpectedResponse(f"{what} answered {response.status}", response.status)
    text = " ".join(response.body.decode("utf-8", "replace").split())[:200]
    detail = f"{what} answered {response.status}" + (f": {text}" if text else "")
    return rejection(Problem(status=response.status, code=None, detail=detail), retry_after)


def parse_retry_after(header: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for: a number of seconds or an HTTP date.

    A date is the one place where the service's clock is compared with ours, because that
    is what the header means; a date in the past means now.
    """
    if header is None or not header.strip():
        return None
    value = header.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at is None or at.tzinfo is None:
        return None
    delay = at.timestamp() - (time.time() if now is None else now)
    return max(delay, 0.0)
