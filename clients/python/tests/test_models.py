"""Answers become typed values, and what a newer service adds survives the parsing."""

import unittest
from datetime import datetime, timedelta, timezone

import workgraph as wg

LEASE = {
    "id": "01a22cc6-0314-7000-a0af-e2df65cb5001",
    "itemId": "01a22cc6-0314-7000-a0af-e2df65cb517a",
    "workerId": "agent-7",
    "epoch": 3,
    "acquiredAt": "2026-11-30T14:05:04Z",
    "renewedAt": "2026-11-30T14:05:14.1Z",
    "expiresAt": "2026-11-30T14:06:14.100000Z",
    "active": True,
    "endedAt": None,
    "outcome": None,
    "reason": None,
}

ITEM = {
    "id": "01a22cc6-0314-7000-a0af-e2df65cb517a",
    "title": "Write the release notes",
    "description": None,
    "priority": 5,
    "queue": "docs",
    "metadata": {"release": "1.4"},
    "parentId": None,
    "result": None,
    "epoch": 3,
    "status": "leased",
    "createdAt": "2026-11-30T14:05:04.156535Z",
    "updatedAt": "2026-11-30T14:05:04.156535Z",
    "readySince": None,
    "closedAt": None,
    "cancelReason": None,
    "createdBy": "ops",
    "cancelledBy": None,
    "blockers": {"unmetDependencies": 0, "openChildren": 1, "openAttentionRequests": 0},
    "dependsOn": [{"id": "d1", "title": "Build", "status": "completed"}],
    "children": [{"id": "c1", "title": "Draft", "status": "completed", "result": {"words": 300}}],
    "lease": LEASE,
    "attentionRequests": [
        {"id": "q1", "itemId": "01a22cc6-0314-7000-a0af-e2df65cb517a", "itemTitle": "Write the release notes",
         "leaseId": "L0", "epoch": 2, "workerId": "agent-7", "raisedBy": "worker", "blocking": True,
         "question": "Which release?", "context": {}, "status": "resolved", "openedAt": "2026-11-30T14:00:00Z",
         "resolution": "1.4", "resolvedBy": "alice", "resolvedAt": "2026-11-30T14:01:00Z"},
        {"id": "q2", "itemId": "01a22cc6-0314-7000-a0af-e2df65cb517a", "blocking": False, "question": "FYI?",
         "status": "open"},
    ],
    # A field a newer service adds:
    "checkpoint": {"seq": 2, "data": {"page": 7}},
}


class ModelsTests(unittest.TestCase):
    def test_an_item_view_is_read_whole(self):
        item = wg.Item.from_json(ITEM)
        self.assertEqual(item.status, wg.ItemStatus.LEASED)
        self.assertEqual(item.status, "leased")
        self.assertEqual(item.blockers.open_children, 1)
        self.assertEqual(item.depends_on[0], wg.ItemRef("d1", "Build", wg.ItemStatus.COMPLETED))
        self.assertEqual(item.children[0].result, {"words": 300})
        self.assertEqual(item.lease.epoch, 3)
        self.assertEqual(item.created_at, datetime(2026, 11, 30, 14, 5, 4, 156535, tzinfo=timezone.utc))
        self.assertEqual([answer.resolution for answer in item.answers], ["1.4"])
        self.assertEqual(item.raw["checkpoint"]["data"], {"page": 7})
        self.assertEqual((item.checkpoint.seq, dict(item.checkpoint.data)), (2, {"page": 7}))

    def test_a_lease_carries_its_fence_token_and_a_handoff_is_an_outcome(self):
        lease = wg.Lease.from_json({**LEASE, "fenceToken": "eyJhbGciOiJFZERTQSJ9.e30.c2ln", "outcome": "handed_off"})
        self.assertEqual(lease.fence_token, "eyJhbGciOiJFZERTQSJ9.e30.c2ln")
        self.assertEqual(lease.outcome, wg.LeaseOutcome.HANDED_OFF)
        self.assertNotIn("eyJ", repr(lease))
        self.assertIsNone(wg.Lease.from_json(LEASE).fence_token)

    def test_times_with_any_number_of_fraction_digits_are_read(self):
        lease = wg.Lease.from_json(LEASE)
        self.assertEqual(lease.acquired_at.tzinfo, timezone.utc)
        self.assertEqual(lease.renewed_at.microsecond, 100000)
        self.assertEqual(lease.granted_seconds, 60.0)

    def test_a_granted_length_counts_from_the_claim_when_never_renewed(self):
        lease = wg.Lease.from_json({**LEASE, "renewedAt": None})
        self.assertAlmostEqual(lease.granted_seconds, timedelta(minutes=1, seconds=10.1).total_seconds())

    def test_an_outcome_or_status_this_client_does_not_know_arrives_as_its_string(self):
        lease = wg.Lease.from_json({**LEASE, "active": False, "outcome": "handed_off"})
        self.assertEqual(lease.outcome, "handed_off")
        item = wg.Item.from_json({**ITEM, "status": "scheduled", "lease": None})
        self.assertEqual(item.status, "scheduled")
        self.assertIsNone(item.lease)

    def test_a_completion_with_the_next_claim_and_one_without(self):
        ended = {**LEASE, "active": False, "outcome": "completed", "endedAt": "2026-11-30T14:06:00Z"}
        with_next = wg.CompletedWithNext.from_json(
            {"lease": ended, "item": ITEM, "next": {"lease": LEASE, "item": ITEM}, "nextProblem": None}
        )
        self.assertEqual(with_next.lease.outcome, wg.LeaseOutcome.COMPLETED)
        self.assertEqual(with_next.next.lease.epoch, 3)
        failed = wg.CompletedWithNext.from_json(
            {"lease": ended, "item": ITEM, "next": None,
             "nextProblem": {"status": 503, "code": "service_unavailable", "detail": "later"}}
        )
        self.assertIsNone(failed.next)
        self.assertIsInstance(failed.next_problem, wg.ServiceUnavailable)

    def test_batch_completion_results_carry_a_lease_or_a_typed_problem(self):
        ok = wg.CompletionResult.from_json({"leaseId": "L1", "status": 200, "lease": LEASE})
        stale = wg.CompletionResult.from_json(
            {"leaseId": "L2", "status": 409,
             "problem": {"status": 409, "code": "lease_ended", "leaseId": "L2", "presentedEpoch": 1, "currentEpoch": 2}}
        )
        self.assertTrue(ok.ok)
        self.assertFalse(stale.ok)
        self.assertIsInstance(stale.problem, wg.LeaseEnded)
        self.assertEqual(stale.problem.current_epoch, 2)

    def test_requests_leave_out_what_was_not_given(self):
        self.assertEqual(wg.NewChild("a", "A").to_json(), {"key": "a", "title": "A"})
        self.assertEqual(
            wg.NewChild("b", "B", priority=0, depends_on=("a",)).to_json(),
            {"key": "b", "title": "B", "priority": 0, "dependsOn": ["a"]},
        )
        self.assertEqual(wg.Completion("L", 2).to_json(), {"leaseId": "L", "epoch": 2})
        self.assertEqual(wg.Completion("L", 2, {"x": 1}).to_json(), {"leaseId": "L", "epoch": 2, "result": {"x": 1}})


if __name__ == "__main__":
    unittest.main()
