"""The caller's W3C trace context goes with every request, asked for each one."""

import http.server
import threading
import unittest

import workgraph as wg


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: list[str | None] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        type(self).seen.append(self.headers.get("traceparent"))
        body = b'{"id":"01a22cc6-0314-7000-a0af-e2df65cb5001"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


class TraceContextTest(unittest.TestCase):
    def setUp(self) -> None:
        _Recorder.seen = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def tearDown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def test_each_request_carries_the_trace_context_the_function_gives_at_that_moment(self):
        contexts = iter(["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", None])
        with wg.WorkGraphClient(self.url, traceparent=lambda: next(contexts)) as client:
            client._json("GET", "/items/x")
            client._json("GET", "/items/x")
        self.assertEqual(_Recorder.seen, ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", None])

    def test_without_a_function_no_trace_context_is_sent(self):
        with wg.WorkGraphClient(self.url) as client:
            client._json("GET", "/items/x")
        self.assertEqual(_Recorder.seen, [None])


if __name__ == "__main__":
    unittest.main()
