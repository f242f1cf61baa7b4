"""The API client against a live service: every endpoint, and its refusals as typed exceptions."""

import socket
import threading
import time
from datetime import datetime, timedelta, timezone

import workgraph as wg

from .live import URL, LiveTest, eventually, in_thread


class ItemsTests(LiveTest):
    def test_items_are_created_read_listed_page_by_page_and_cancelled(self):
        queue = self.unique("py-items")
        parent = self.admin.create_item("Ship 1.4", priority=10, queue=queue, metadata={"release": "1.4"},
                                        description="the plan")
        first = self.admin.create_item("Build", parent_id=parent.id)
        second = self.admin.create_item("Deploy", parent_id=parent.id, depends_on=[first.id])
        self.assertEqual((first.queue, first.priority), (queue, 10))  # children inherit both
        self.assertEqual(second.status, wg.ItemStatus.BLOCKED)
        self.assertEqual(second.depends_on, [wg.ItemRef(first.id, "Build", wg.ItemStatus.READY)])
        self.assertEqual(self.admin.get_item(parent.id).blockers.open_children, 2)
        self.assertEqual(parent.metadata, {"release": "1.4"})
        self.assertEqual(parent.created_by, "bootstrap")

        page = self.admin.list_items(parent_id=parent.id, limit=1)
        self.assertEqual([item.title for item in page], ["Build"])
        self.assertIsNotNone(page.next_cursor)
        self.assertEqual([item.title for item in self.admin.iter_items(parent_id=parent.id, limit=1)],
                         ["Build", "Deploy"])
        self.assertEqual({item.id for item in self.admin.iter_items(queue=queue, status=["ready", "blocked"])},
                         {parent.id, first.id, second.id})
        self.assertEqual([ref.id for ref in self.admin.list_dependents(first.id)], [second.id])
        stats = {queue_stats.name: queue_stats for queue_stats in self.admin.list_queues()}
        self.assertEqual((stats[queue].ready, stats[queue].blocked), (1, 2))

        cancelled = self.admin.cancel_item(parent.id, "not this week")
        self.assertEqual((cancelled.status, cancelled.cancel_reason), (wg.ItemStatus.CANCELLED, "not this week"))
        self.assertEqual(self.admin.get_item(second.id).status, wg.ItemStatus.CANCELLED)
        with self.assertRaises(wg.ItemTerminal) as refused:
            self.admin.cancel_item(parent.id)
        self.assertEqual(refused.exception.problem.get("itemStatus"), "cancelled")

    def test_dependencies_are_added_and_removed_and_never_close_a_cycle(self):
        build = self.admin.create_item("Build", queue=self.unique("py-deps"))
        deploy = self.admin.create_item("Deploy", queue=build.queue, depends_on=[build.id])
        notes = self.admin.create_item("Notes", queue=build.queue)
        self.assertEqual(self.admin.add_dependency(notes.id, deploy.id).status, wg.ItemStatus.BLOCKED)
        with self.assertRaises(wg.DependencyCycle) as cycle:
            self.admin.add_dependency(build.id, notes.id)
        self.assertEqual(cycle.exception.cycle[0], cycle.exception.cycle[-1])
        self.assertIn(notes.id, cycle.exception.cycle)
        self.admin.remove_dependency(notes.id, deploy.id)
        self.assertEqual(self.admin.get_item(notes.id).status, wg.ItemStatus.READY)
        with self.assertRaises(wg.NotFound):
            self.admin.remove_dependency(notes.id, deploy.id)

    def test_an_idempotency_key_gives_the_first_item_back_and_refuses_another_body(self):
        key = self.unique("py-key")
        first = self.admin.create_item("Announce 1.4", idempotency_key=key)
        again = self.admin.create_item("Announce 1.4", idempotency_key=key)
        self.assertEqual(again.id, first.id)
        with self.assertRaises(wg.IdempotencyConflict) as conflict:
            self.admin.create_item("Announce 1.5", idempotency_key=key)
        self.assertEqual(conflict.exception.problem.get("itemId"), first.id)

    def test_bad_input_is_a_typed_problem_naming_the_fields(self):
        with self.assertRaises(wg.ValidationFailed) as invalid:
            self.admin.create_item("", priority=5000)
        self.assertTrue(invalid.exception.concerns("title"))
        self.assertTrue(invalid.exception.concerns("priority"))
        with self.assertRaises(wg.NotFound):
            self.admin.get_item("01a22cc6-0314-7000-a0af-000000000000")
        with self.assertRaises(wg.PayloadTooLarge):
            self.admin.create_item("big", description="x" * (11 * 1024 * 1024))


class LeasesTests(LiveTest):
    def setUp(self):
        super().setUp()
        self.worker_id = self.unique("py-agent")
        self.agent = self.worker_client(self.worker_id)
        self.queue = self.unique("py-leases")

    def claim(self, **options):
        claim = self.agent.claim(queues=[self.queue], **options)
        self.assertIsNotNone(claim, "a claim")
        return claim

    def test_a_claim_renew_and_complete_and_the_lease_history(self):
        self.assertIsNone(self.agent.claim(queues=[self.queue]))
        item = self.admin.create_item("Summarise", queue=self.queue)
        claim = self.claim(lease_seconds=30)
        self.assertEqual((claim.item.id, claim.lease.worker_id, claim.lease.epoch), (item.id, self.worker_id, 1))
        self.assertEqual(claim.lease.granted_seconds, 30)
        renewed = self.agent.renew(claim.lease, 60)
        self.assertEqual(renewed.granted_seconds, 60)
        ended = self.agent.complete(claim.lease, {"summary": "short"})
        self.assertEqual(ended.lease.outcome, wg.LeaseOutcome.COMPLETED)
        self.assertEqual((ended.item.status, ended.item.result), (wg.ItemStatus.COMPLETED, {"summary": "short"}))
        self.assertEqual(self.agent.get_lease(claim.lease.id).outcome, "completed")
        self.assertEqual([lease.outcome for lease in self.admin.item_leases(item.id)], ["completed"])

    def test_a_handoff_passes_the_item_on_with_the_next_epoch_and_a_fence_token(self):
        item = self.admin.create_item("Review", queue=self.queue)
        claim = self.claim(lease_seconds=30)
        self.assertTrue(claim.lease.fence_token)
        handed = self.agent.hand_off(claim.lease, "reviewer", reason="needs review", lease_seconds=60)
        self.assertEqual(handed.ended.outcome, wg.LeaseOutcome.HANDED_OFF)
        self.assertEqual((handed.lease.worker_id, handed.lease.epoch, handed.lease.granted_seconds), ("reviewer", 2, 60))
        self.assertEqual((handed.item.id, handed.item.status), (item.id, wg.ItemStatus.LEASED))
        self.assertNotEqual(handed.lease.fence_token, claim.lease.fence_token)
        with self.assertRaises(wg.LeaseEnded):
            self.agent.complete(claim.lease, {"late": True})

    def test_checkpoints_are_fenced_and_handed_to_the_next_holder(self):
        item = self.admin.create_item("Long job", queue=self.queue)
        first = self.claim(lease_seconds=30)
        self.assertIsNone(first.item.checkpoint)
        saved = self.agent.checkpoint(first.lease, {"pages": 40}, renew_seconds=60)
        self.assertEqual((saved.checkpoint.seq, saved.checkpoint.epoch, dict(saved.checkpoint.data)), (1, 1, {"pages": 40}))
        self.assertEqual(saved.lease.granted_seconds, 60)
        with self.assertRaises(wg.EpochMismatch):
            self.agent.checkpoint(wg.LeaseRef(first.lease.id, 2), {"pages": 99})
        self.agent.release(first.lease, "handing over")
        with self.assertRaises(wg.LeaseEnded):
            self.agent.checkpoint(first.lease, {"pages": 99})
        second = self.claim(lease_seconds=30)
        self.assertEqual(second.item.id, item.id)
        self.assertEqual((second.item.checkpoint.seq, dict(second.item.checkpoint.data)), (1, {"pages": 40}))

    def test_a_failure_counts_an_attempt_and_a_final_one_waits_for_a_human(self):
        item = self.admin.create_item("Flaky", queue=self.queue)
        first = self.claim(lease_seconds=30)
        failed = self.agent.fail(first.lease, {"message": "503 upstream"})
        self.assertEqual(failed.lease.outcome, wg.LeaseOutcome.FAILED)
        self.assertEqual(failed.item.attempts, 1)
        with self.assertRaises(wg.LeaseEnded):
            self.agent.fail(first.lease, {"message": "again"})
        second = eventually(lambda: self.agent.claim(queues=[self.queue]), lambda c: c is not None, 10,
                            "the failed item to be claimed again")
        held = self.agent.fail(second.lease, {"message": "bad input"}, retryable=False, reason="cannot work")
        self.assertEqual(held.item.status, wg.ItemStatus.BLOCKED)
        after = self.admin.get_item(item.id)
        self.assertEqual([r.raw.get("kind") for r in after.attention_requests], ["retries_exhausted"])

    def test_scheduled_items_a_delayed_release_and_a_reschedule(self):
        later = datetime.now(timezone.utc) + timedelta(hours=1)
        scheduled = self.admin.create_item("Nightly report", queue=self.queue, not_before=later)
        self.assertEqual(scheduled.status, wg.ItemStatus.BLOCKED)
        self.assertEqual(scheduled.blockers.not_before.replace(microsecond=0), later.replace(microsecond=0))
        self.assertIsNone(self.agent.claim(queues=[self.queue]))
        cleared = self.admin.patch_item(scheduled.id, not_before=None)
        self.assertEqual((cleared.status, cleared.blockers.not_before), (wg.ItemStatus.READY, None))
        claim = self.claim(lease_seconds=30)
        released = self.agent.release(claim.lease, "rate limited", retry_after_seconds=3600)
        self.assertEqual(released.item.status, wg.ItemStatus.BLOCKED)
        self.assertIsNotNone(released.item.blockers.not_before)
        self.assertEqual(self.admin.patch_item(scheduled.id).blockers, released.item.blockers)  # no change
        with self.assertRaises(wg.ValidationFailed):
            self.admin.patch_item(scheduled.id, not_before="10000-01-01T00:00:00Z")

    def test_every_stale_write_is_lease_lost_with_the_epochs_and_writes_nothing(self):
        item = self.admin.create_item("Fenced", queue=self.queue)
        first = self.claim(lease_seconds=30)
        with self.assertRaises(wg.EpochMismatch) as mismatch:
            self.agent.renew(wg.LeaseRef(first.lease.id, first.lease.epoch + 1))
        self.assertEqual((mismatch.exception.presented_epoch, mismatch.exception.current_epoch), (2, 1))
        self.agent.renew(first.lease, 1)  # and then it runs out
        time.sleep(1.3)
        with self.assertRaises(wg.LeaseExpired) as expired:
            self.agent.complete(first.lease, {"late": True})
        self.assertIsInstance(expired.exception, wg.LeaseLost)
        self.assertEqual(expired.exception.lease_id, first.lease.id)
        second = eventually(lambda: self.agent.claim(queues=[self.queue]), lambda c: c is not None, 10,
                            "the expired item to be claimed again")
        self.assertEqual(second.lease.epoch, 2)
        self.agent.release(second.lease, "not now")
        with self.assertRaises(wg.LeaseEnded) as ended:
            self.agent.release(second.lease)
        self.assertEqual((ended.exception.presented_epoch, ended.exception.current_epoch), (2, 2))
        after = self.admin.get_item(item.id)
        self.assertEqual((after.status, after.result), (wg.ItemStatus.READY, None))
        self.assertEqual([(lease.epoch, lease.outcome) for lease in self.admin.item_leases(item.id)],
                         [(1, "expired"), (2, "released")])

    def test_completing_and_claiming_the_next_item_in_one_request(self):
        first = self.admin.create_item("Thumbnail 1", queue=self.queue)
        second = self.admin.create_item("Thumbnail 2", queue=self.queue)
        claim = self.claim()
        chained = self.agent.complete_and_claim_next(claim.lease, {"n": 1}, queues=[self.queue], lease_seconds=20)
        self.assertEqual((chained.item.id, chained.next.item.id), (first.id, second.id))
        self.assertEqual(chained.next.lease.granted_seconds, 20)
        last = self.agent.complete_and_claim_next(chained.next.lease, {"n": 2}, queues=[self.queue])
        self.assertIsNone(last.next)
        self.assertIsNone(last.next_problem)

    def test_a_batch_claim_and_a_batch_completion_fenced_entry_by_entry(self):
        for n in range(3):
            self.admin.create_item(f"Small {n}", queue=self.queue)
        claims = self.agent.claim_batch(5, queues=[self.queue], lease_seconds=30)
        self.assertEqual([claim.item.title for claim in claims], ["Small 0", "Small 1", "Small 2"])
        self.agent.release(claims[2].lease)
        results = self.agent.complete_all([wg.Completion.of(claims[0].lease, {"ok": 1}),
                                           wg.Completion.of(claims[1].lease),
                                           wg.Completion.of(claims[2].lease)])
        self.assertEqual([result.status for result in results], [200, 200, 409])
        self.assertEqual(results[0].lease.outcome, wg.LeaseOutcome.COMPLETED)
        self.assertIsInstance(results[2].problem, wg.LeaseEnded)
        again = self.agent.claim_batch(5, queues=[self.queue])
        self.assertEqual([(claim.item.id, claim.lease.epoch) for claim in again], [(claims[2].item.id, 2)])
        self.assertEqual(self.agent.claim_batch(5, queues=[self.queue]), [])

    def test_decompose_and_the_refusals_of_complete(self):
        plan = self.admin.create_item("Migrate billing", queue=self.queue)
        claim = self.claim()
        split = self.agent.decompose(claim.lease, [wg.NewChild("schema", "Write the schema"),
                                                   {"key": "backfill", "title": "Backfill", "dependsOn": ["schema"]}],
                                     "two steps")
        self.assertEqual([child.title for child in split.children], ["Write the schema", "Backfill"])
        self.assertEqual((split.lease.outcome, split.item.status), ("decomposed", wg.ItemStatus.BLOCKED))
        schema = self.claim()
        self.admin.add_dependency(schema.item.id, self.admin.create_item("Approve", queue=self.unique("py-x")).id)
        with self.assertRaises(wg.UnmetDependencies):
            self.agent.complete(schema.lease)
        self.admin.create_item("Review the schema", parent_id=schema.item.id)
        with self.assertRaises(wg.OpenChildren):
            self.agent.complete(schema.lease)
        self.assertTrue(self.agent.get_lease(schema.lease.id).active, "a refused completion leaves the lease held")
        self.agent.cancel(schema.lease, "wrong approach")
        self.assertEqual(self.admin.get_item(schema.item.id).status, wg.ItemStatus.CANCELLED)
        self.assertEqual(self.admin.get_item(plan.id).blockers.open_children, 1)

    def test_questions_are_asked_listed_answered_once_and_seen_by_the_next_claim(self):
        item = self.admin.create_item("Rotate the keys", queue=self.queue)
        claim = self.claim()
        note = self.agent.request_attention(claim.lease, "FYI: 12 keys", blocking=False)
        self.assertTrue(self.agent.get_lease(claim.lease.id).active)
        asked = self.agent.request_attention(claim.lease, "Production too?", context={"keys": 12})
        self.assertEqual((asked.blocking, asked.worker_id, asked.context), (True, self.worker_id, {"keys": 12}))
        self.assertEqual(self.admin.get_item(item.id).status, wg.ItemStatus.BLOCKED)
        open_ones = self.admin.list_attention_requests(status="open", item_id=item.id)
        self.assertEqual({request.id for request in open_ones}, {note.id, asked.id})
        answered = self.admin.resolve_attention_request(asked.id, "Staging only", "alice")
        self.assertEqual((answered.resolution, answered.resolved_by), ("Staging only", "alice"))
        self.assertEqual(self.admin.get_attention_request(asked.id).status, "resolved")
        with self.assertRaises(wg.AlreadyResolved):
            self.admin.resolve_attention_request(asked.id, "Everything")
        again = self.claim()
        self.assertEqual([answer.resolution for answer in again.item.answers], ["Staging only"])


class AccessAndWaitingTests(LiveTest):
    def test_tokens_are_issued_listed_revoked_and_roles_keep_to_their_rights(self):
        worker_id = self.unique("py-token")
        issued = self.admin.create_token("python-tests token", "worker", worker_id)
        self.assertTrue(issued.token.startswith("wg_"))
        listed = {token.id: token for token in self.admin.list_tokens()}
        self.assertEqual(listed[issued.id].worker_id, worker_id)
        operator = self.admin.create_token("python-tests operator", wg.TokenRole.OPERATOR)
        as_operator = wg.WorkGraphClient(URL, token=operator.token)
        with self.assertRaises(wg.Forbidden):
            as_operator.claim(worker_id="ops")
        with self.assertRaises(wg.Forbidden):
            as_operator.list_tokens()
        agent = wg.WorkGraphClient(URL, token=issued.token)
        never_held = self.admin.create_item("Not yours")
        with self.assertRaises(wg.Forbidden):
            agent.get_item(never_held.id)
        with self.assertRaises(wg.Forbidden):
            agent.claim(worker_id="someone-else")
        self.admin.revoke_token(issued.id)
        with self.assertRaises(wg.Unauthenticated):
            agent.claim()
        with self.assertRaises(wg.Unauthenticated):
            wg.WorkGraphClient(URL).list_items()

    def test_a_waiting_claim_takes_an_item_that_becomes_ready_and_can_be_called_off(self):
        agent = self.worker_client(self.unique("py-waiter"))
        queue = self.unique("py-wait")
        threading.Timer(0.5, lambda: self.admin.create_item("Late arrival", queue=queue)).start()
        started = time.monotonic()
        claim = in_thread(lambda: agent.claim(queues=[queue], wait_seconds=20), 25)
        self.assertEqual(claim.item.title, "Late arrival")
        self.assertLess(time.monotonic() - started, 20, "woken when the item became ready, not at the end")

        call = wg.Call()
        threading.Timer(0.5, call.cancel).start()
        started = time.monotonic()
        with self.assertRaises(wg.RequestCancelled):
            in_thread(lambda: agent.claim(queues=[self.unique("py-empty")], wait_seconds=30, call=call), 35)
        self.assertLess(time.monotonic() - started, 30, "called off, not waited out")

    def test_no_service_at_the_address_is_service_unreachable(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with self.assertRaises(wg.ServiceUnreachable) as unreachable:
            wg.WorkGraphClient(f"http://127.0.0.1:{port}").list_items()
        self.assertFalse(unreachable.exception.may_have_been_processed)
        self.assertTrue(unreachable.exception.transient)
