#!/usr/bin/env python3
"""The change stream's delay, as a subscriber sees it: reads GET /changes for a while and prints
how long after each change's `at` its event arrived, as one JSON line {n, p50Ms, p99Ms, maxMs,
startedAt, perSecond}: startedAt is the wall-clock time (UTC) the subscription began, perSecond lists, for each second since the subscription began, [events, p50Ms, maxMs],
so a tail that comes from one moment (a backlog at the start, a pause) shows where it is.

    bench/change-delay.py URL TOKEN SECONDS [TYPES]     # TYPES default lease.ended

`at` is when the transaction that made the change began (PostgreSQL's clock, the same machine's),
so each figure bounds commit -> event received from above: it adds the transaction's own length.
Standard library only. bench/ab.sh runs it beside side B's rounds with CHANGE_DELAY=1.
"""
import http.client
import json
import re
import sys
import time
import urllib.parse
from datetime import datetime, timezone


AT = re.compile(rb'"at":"([^"]+)"')


def main():
    url, token, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    types = sys.argv[4] if len(sys.argv) > 4 else "lease.ended"
    parsed = urllib.parse.urlparse(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=seconds + 20)
    connection.request("GET", "/changes?types=" + urllib.parse.quote(types),
                       headers={"Authorization": "Bearer " + token, "Accept": "text/event-stream"})
    response = connection.getresponse()
    if response.status != 200:
        sys.exit(f"GET /changes answered {response.status}: {response.read(500)!r}")
    delays = []
    seconds_of = []
    started_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    started = time.monotonic()
    deadline = started + seconds
    while time.monotonic() < deadline:
        line = response.fp.readline()
        if not line:
            break
        received = time.time()
        # Only the change's time is read: the data's other fields may hold anything.
        at = AT.search(line) if line.startswith(b"data:") else None
        if at:
            delays.append((received - datetime.fromisoformat(at.group(1).decode()).timestamp()) * 1000)
            seconds_of.append(int(time.monotonic() - started))
    connection.close()
    per_second = {}
    for second, delay in zip(seconds_of, delays):
        per_second.setdefault(second, []).append(delay)
    delays.sort()

    def percentile(p):
        return round(delays[min(len(delays) - 1, int(len(delays) * p / 100))], 2) if delays else None

    print(json.dumps({"n": len(delays), "p50Ms": percentile(50), "p99Ms": percentile(99),
                      "maxMs": round(delays[-1], 2) if delays else None, "startedAt": started_at,
                      "perSecond": [[len(d), round(sorted(d)[len(d) // 2], 1), round(max(d), 1)]
                                    for _, d in sorted(per_second.items())]}))


if __name__ == "__main__":
    main()
