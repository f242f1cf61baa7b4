"""Problems become typed exceptions; answers that are not problems still become the right ones."""

import http.client
import unittest

import workgraph as wg
from workgraph._http import Response, _rejected, parse_retry_after
from workgraph.problems import Problem, rejection

# Every problem code the service answers with, and the class it must become.
EVERY_CODE = {
    "malformed_request": (400, wg.MalformedRequest),
    "validation_failed": (422, wg.ValidationFailed),
    "unauthenticated": (401, wg.Unauthenticated),
    "forbidden": (403, wg.Forbidden),
    "not_found": (404, wg.NotFound),
    "method_not_allowed": (405, wg.MethodNotAllowed),
    "not_acceptable": (406, wg.NotAcceptable),
    "dependency_cycle": (422, wg.DependencyCycle),
    "item_terminal": (409, wg.ItemTerminal),
    "open_children": (409, wg.OpenChildren),
    "unmet_dependencies": (409, wg.UnmetDependencies),
    "lease_expired": (409, wg.LeaseExpired),
    "lease_ended": (409, wg.LeaseEnded),
    "epoch_mismatch": (409, wg.EpochMismatch),
    "already_resolved": (409, wg.AlreadyResolved),
    "idempotency_conflict": (409, wg.IdempotencyConflict),
    "payload_too_large": (413, wg.PayloadTooLarge),
    "unsupported_media_type": (415, wg.UnsupportedMediaType),
    "service_unavailable": (503, wg.ServiceUnavailable),
    "internal_error": (500, wg.InternalServerError),
}


def answer(status: int, body: bytes, content_type: str = "application/problem+json", **headers: str) -> Response:
    message = http.client.HTTPMessage()
    message["Content-Type"] = content_type
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    return Response(status, message, body)


class ProblemCodesTests(unittest.TestCase):
    def test_every_code_of_the_api_has_its_own_exception_class(self):
        classes = set()
        for code, (status, expected) in EVERY_CODE.items():
            with self.subTest(code=code):
                error = rejection(Problem(status=status, code=code, detail="d"))
                self.assertIs(type(error), expected)
                self.assertEqual(error.code, code)
                self.assertEqual(error.status, status)
                self.assertEqual(str(error), f"{status} {code}: d")
                classes.add(type(error))
        self.assertEqual(len(classes), len(EVERY_CODE))

    def test_the_three_stale_lease_codes_are_lease_lost_with_the_epochs(self):
        for code in ("lease_expired", "lease_ended", "epoch_mismatch"):
            with self.subTest(code=code):
                problem = Problem(
                    status=409,
                    code=code,
                    properties={"leaseId": "L-1", "presentedEpoch": 3, "currentEpoch": 4},
                )
                error = rejection(problem)
                self.assertIsInstance(error, wg.LeaseLost)
                self.assertIsInstance(error, wg.LeaseRejected)
                self.assertIsInstance(error, wg.RequestRejected)
                self.assertEqual((error.lease_id, error.presented_epoch, error.current_epoch), ("L-1", 3, 4))
                self.assertEqual(error.reason, wg.LostReason.REFUSED)
                self.assertFalse(error.transient)

    def test_only_failures_that_may_pass_are_transient(self):
        transient = {code for code, (status, cls) in EVERY_CODE.items() if cls.transient}
        self.assertEqual(transient, {"service_unavailable", "internal_error"})
        self.assertTrue(wg.RateLimited.transient)
        self.assertTrue(wg.ServiceUnreachable("x", may_have_been_processed=False).transient)
        self.assertFalse(wg.LeaseLost("gone").transient)

    def test_an_unknown_code_is_a_plain_request_rejected_that_keeps_everything(self):
        error = rejection(Problem(status=409, code="item_leased", properties={"itemId": "I"}))
        self.assertIs(type(error), wg.RequestRejected)
        self.assertEqual(error.code, "item_leased")
        self.assertEqual(error.problem.get("itemId"), "I")

    def test_validation_errors_name_their_fields(self):
        problem = Problem(
            status=422,
            code="validation_failed",
            properties={"errors": [{"field": "children[0].key", "message": "must not be blank"},
                                   {"field": "title", "message": "too long"}]},
        )
        error = rejection(problem)
        self.assertEqual(error.errors[1], wg.FieldError("title", "too long"))
        self.assertTrue(error.concerns("children"))
        self.assertTrue(error.concerns("title"))
        self.assertFalse(error.concerns("tit"))

    def test_a_dependency_cycle_names_its_items(self):
        error = rejection(Problem(status=422, code="dependency_cycle", properties={"cycle": ["a", "b", "a"]}))
        self.assertEqual(error.cycle, ["a", "b", "a"])


class AnswersTests(unittest.TestCase):
    def test_a_problem_document_is_read_with_its_members_and_retry_after(self):
        body = (b'{"type":"urn:workgraph:problem:service_unavailable","title":"Service unavailable",'
                b'"status":503,"detail":"the database restarts","code":"service_unavailable"}')
        error = _rejected("POST /claims", answer(503, body, Retry_After="2"))
        self.assertIsInstance(error, wg.ServiceUnavailable)
        self.assertEqual(error.retry_after, 2.0)
        self.assertEqual(error.problem.detail, "the database restarts")
        self.assertEqual(error.problem.to_json()["type"], "urn:workgraph:problem:service_unavailable")

    def test_a_page_without_a_code_is_classed_by_its_status(self):
        cases = {502: wg.ServiceUnavailable, 504: wg.ServiceUnavailable, 429: wg.RateLimited,
                 401: wg.Unauthenticated, 404: wg.NotFound, 500: wg.InternalServerError, 418: wg.RequestRejected}
        for status, expected in cases.items():
            with self.subTest(status=status):
                error = _rejected("GET /items", answer(status, b"<html>Bad gateway</html>", "text/html"))
                self.assertIs(type(error), expected)
                self.assertIsNone(error.code)
                self.assertIn("Bad gateway", str(error))

    def test_a_body_in_the_charset_its_header_names_is_decoded(self):
        body = '{"status":401,"code":"unauthenticated","detail":"Jeton inconnu ü"}'.encode("iso-8859-1")
        error = _rejected("GET /items", answer(401, body, "application/problem+json;charset=ISO-8859-1"))
        self.assertIsInstance(error, wg.Unauthenticated)
        self.assertEqual(error.problem.detail, "Jeton inconnu ü")

    def test_retry_after_is_seconds_or_a_date(self):
        self.assertEqual(parse_retry_after("7"), 7.0)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))
        now = 1_700_000_000.0  # 2023-11-14T22:13:20Z
        self.assertEqual(parse_retry_after("Tue, 14 Nov 2023 22:13:30 GMT", now), 10.0)
        self.assertEqual(parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", now), 0.0)


if __name__ == "__main__":
    unittest.main()
