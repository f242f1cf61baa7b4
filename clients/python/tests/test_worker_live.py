"""The worker runtime against a live service: fencing, many workers, waiting claims, stopping, refusals."""

import threading
import time

import workgraph as wg

from .live import LiveTest, eventually, in_thread


class FencingTests(LiveTest):
    def test_a_fenced_worker_is_told_to_stop_and_its_late_completion_writes_nothing(self):
        queue = self.unique("py-fenced")
        item = self.admin.create_item("Contested", queue=queue)
        a_id, b_id = self.unique("py-stalled"), self.unique("py-successor")
        stalled = self.worker_client(a_id, recording=True)
        seen = {}
        a_started, b_started, b_may_finish = threading.Event(), threading.Event(), threading.Event()
        a_done = threading.Event()

        def stalling(lease):
            seen["a"] = lease
            a_started.set()
            seen["told"] = lease.cancelled.wait(30)
            b_started.wait(30)
            try:
                lease.complete({"by": "A"})
            except wg.LeaseLost as lost:
                seen["local refusal"] = lost
            a_done.set()
            return {"by": "A, returned"}  # never sent: the lease is lost

        def successor(lease):
            seen["b epoch"] = lease.epoch
            b_started.set()
            b_may_finish.wait(30)
            return {"by": "B"}

        self.worker(stalled, queues=[queue], lease_seconds=2).start(stalling)
        self.assertTrue(a_started.wait(20), "worker A claimed the item")
        stalled._http.drop_renewals.set()  # A is cut off from the service: its lease runs out
        self.worker(self.worker_client(b_id), queues=[queue], lease_seconds=30).start(successor)
        self.assertTrue(b_started.wait(30), "worker B was granted the item after A's lease expired")
        self.assertTrue(seen["told"], "A's cancellation flag was set")
        self.assertEqual(seen["a"].lost_because.reason, wg.LostReason.RENEWALS_FAILED)

        # A zombie that writes anyway, with its own lease id and epoch, is refused by the service.
        with self.assertRaises(wg.LeaseLost) as refused:
            stalled.complete(seen["a"].lease, {"by": "A, late"})
        self.assertIsInstance(refused.exception, wg.LeaseExpired)
        self.assertEqual(refused.exception.lease_id, seen["a"].lease_id)
        self.assertEqual((refused.exception.presented_epoch, refused.exception.current_epoch), (1, 2))
        self.assertTrue(a_done.wait(10))
        self.assertIsInstance(seen["local refusal"], wg.LeaseLost)
        while_b_holds = self.admin.get_item(item.id)
        self.assertEqual((while_b_holds.status, while_b_holds.result), (wg.ItemStatus.LEASED, None))
        self.assertEqual((while_b_holds.lease.worker_id, while_b_holds.lease.epoch), (b_id, 2))

        b_may_finish.set()
        done = self.await_status(item.id, wg.ItemStatus.COMPLETED)
        self.assertEqual(done.result, {"by": "B"})
        self.assertEqual([(lease.worker_id, lease.epoch, lease.outcome) for lease in self.admin.item_leases(item.id)],
                         [(a_id, 1, "expired"), (b_id, 2, "completed")])
        self.assertEqual(stalled._http.count("POST", "/complete"), 1, "only the zombie's own write reached the service")

    def test_a_renewal_refused_after_an_operator_cancel_stops_the_handler(self):
        queue = self.unique("py-cancelled")
        item = self.admin.create_item("Cancelled under the worker", queue=queue)
        started, returned = threading.Event(), threading.Event()
        seen = {}

        def handler(lease):
            started.set()
            seen["told"] = lease.cancelled.wait(20)
            seen["lease"] = lease
            returned.set()
            return {"ignored": True}

        self.worker(self.worker_client(self.unique("py-cancel")), queues=[queue], lease_seconds=3).start(handler)
        self.assertTrue(started.wait(20))
        self.admin.cancel_item(item.id, "no longer wanted")
        self.assertTrue(returned.wait(20))
        self.assertTrue(seen["told"])
        lost = seen["lease"].lost_because
        self.assertEqual(lost.reason, wg.LostReason.REFUSED)
        self.assertIsInstance(lost.__cause__, wg.LeaseEnded)
        with self.assertRaises(wg.LeaseLost):
            seen["lease"].complete({"too": "late"})
        after = self.admin.get_item(item.id)
        self.assertEqual((after.status, after.result), (wg.ItemStatus.CANCELLED, None))
        self.assertEqual([lease.outcome for lease in self.admin.item_leases(item.id)], ["cancelled"])


class FaultsTests(LiveTest):
    def test_renewals_answered_503_are_retried_within_the_lease(self):
        queue = self.unique("py-unavailable")
        item = self.admin.create_item("Outlasts a few renewals", queue=queue)
        client = self.worker_client(self.unique("py-patient"), recording=True)
        client._http.unavailable_renewals = 3
        seen = {}

        def handler(lease):
            lease.sleep(3.5)  # about five renewal intervals of a 2 s lease
            seen["lost"] = lease.lost
            return {"kept": True}

        self.worker(client, queues=[queue], lease_seconds=2).start(handler)
        done = self.await_status(item.id, wg.ItemStatus.COMPLETED)
        self.assertEqual(done.result, {"kept": True})
        self.assertFalse(seen["lost"])
        self.assertEqual(client._http.unavailable_renewals, 0, "three renewals were refused")
        self.assertGreaterEqual(client._http.count("POST", "/renew"), 5)
        self.assertEqual([lease.outcome for lease in self.admin.item_leases(item.id)], ["completed"])

    def test_a_completion_whose_answer_was_lost_counts_once_the_lease_shows_it_landed(self):
        queue = self.unique("py-lost-answer")
        first = self.admin.create_item("Answer lost", queue=queue)
        second = self.admin.create_item("Next one", queue=queue)
        client = self.worker_client(self.unique("py-unlucky"), recording=True)
        client._http.lose_answer_of.add("/complete")
        failures, leases = [], []

        def handler(lease):
            leases.append(lease)
            return {"title": lease.item.title}

        self.worker(client, queues=[queue], claim_next=False,
                    failure_policy=lambda failure: failures.append(failure) or wg.Release("x")).start(handler)
        self.await_status(second.id, wg.ItemStatus.COMPLETED)
        self.assertEqual(self.admin.get_item(first.id).result, {"title": "Answer lost"})
        self.assertFalse(leases[0].lost, "the runtime knows its completion landed; it did not give the lease up")
        self.assertEqual([lease.outcome for lease in self.admin.item_leases(first.id)], ["completed"])
        self.assertEqual(failures, [], "the refused retry was recognised as the first attempt's success")
        self.assertEqual(client._http.count("POST", "/complete"), 3, "the lost one, its retry, the next item's")
        self.assertEqual(client._http.count("GET", self.admin.item_leases(first.id)[0].id), 1, "one look")


class ManyWorkersTests(LiveTest):
    def test_thirty_two_workers_complete_every_item_exactly_once(self):
        queue = self.unique("py-many")
        items = [self.admin.create_item(f"Item {n}", queue=queue, metadata={"n": n}).id for n in range(160)]
        handled = []
        lock = threading.Lock()

        def handler(lease):
            with lock:
                handled.append((lease.item.id, lease.worker_id))
            # Every tenth item outlasts a renewal interval (a third of 6 s): leases long enough
            # that a renewal delayed by a loaded machine still arrives in time.
            lease.sleep(2.5 if lease.item.metadata["n"] % 10 == 0 else 0.02)
            return {"by": lease.worker_id}

        workers = [self.worker(self.worker_client(f"{queue}-w{n}"), queues=[queue], lease_seconds=6)
                   for n in range(32)]
        for worker in workers:
            worker.start(handler)
        eventually(lambda: len(self.admin.list_items(queue=queue, status="completed", limit=500)),
                   lambda done: done == len(items), 120, "every item to be completed")

        self.assertEqual(sorted(item_id for item_id, _ in handled), sorted(items), "each item handled once")
        by_item = dict(handled)
        for item_id in items:
            history = self.admin.item_leases(item_id)
            self.assertEqual([(lease.epoch, lease.outcome) for lease in history], [(1, "completed")])
            self.assertEqual(self.admin.get_item(item_id).result, {"by": history[0].worker_id})
            self.assertEqual(by_item[item_id], history[0].worker_id)
        self.assertGreater(len(set(by_item.values())), 8, "the work was shared out")


class WaitingAndChainingTests(LiveTest):
    def test_a_waiting_claim_is_woken_by_a_new_item(self):
        queue = self.unique("py-wake")
        client = self.worker_client(self.unique("py-idle"), recording=True)
        claims_at_start = []
        done = threading.Event()

        def handler(lease):
            claims_at_start.append(client._http.count("POST", "/claims"))
            done.set()
            return None

        worker = self.worker(client, queues=[queue], wait_seconds=30).start(handler)
        eventually(lambda: client._http.count("POST", "/claims"), lambda n: n == 1, 10, "the first claim")
        time.sleep(0.5)  # it is waiting at the service now
        item = self.admin.create_item("Wake up", queue=queue)
        self.assertTrue(done.wait(25), "the handler ran before the wait would have ended")
        self.assertEqual(claims_at_start, [1], "the claim that was waiting took the item")
        self.await_status(item.id, wg.ItemStatus.COMPLETED)
        started = time.monotonic()
        worker.stop(5)
        self.assertLess(time.monotonic() - started, 10, "stop called the next waiting claim off")

    def test_each_completion_brings_the_next_item(self):
        queue = self.unique("py-chain")
        items = [self.admin.create_item(f"Step {n}", queue=queue).id for n in range(4)]
        client = self.worker_client(self.unique("py-chainer"), recording=True)
        claims_sent = []

        def handler(lease):
            claims_sent.append(client._http.count("POST", "/claims"))
            return {"title": lease.item.title}

        self.worker(client, queues=[queue]).start(handler)
        for item_id in items:
            self.await_status(item_id, wg.ItemStatus.COMPLETED)
        self.assertEqual(claims_sent, [1, 1, 1, 1], "one claim; each completion claimed the next item")
        self.assertEqual(client._http.count("POST", "/complete"), 4)

    def test_a_handler_resumes_from_the_checkpoint_its_predecessor_saved(self):
        queue = self.unique("py-resume")
        item_id = self.admin.create_item("Resumable", queue=queue).id
        seen = []

        def handler(lease):
            seen.append(None if lease.last_checkpoint is None else dict(lease.last_checkpoint.data))
            if lease.last_checkpoint is None:
                lease.checkpoint({"step": 1})
                lease.release("let another take over")
                return None
            return {"resumed_from": lease.last_checkpoint.data["step"]}

        self.worker(self.worker_client(self.unique("py-resumer")), queues=[queue]).start(handler)
        self.await_status(item_id, wg.ItemStatus.COMPLETED)
        self.assertEqual(seen, [None, {"step": 1}])
        self.assertEqual(self.admin.get_item(item_id).result, {"resumed_from": 1})

    def test_until_idle_returns_once_the_queue_is_drained_even_of_work_the_handlers_made(self):
        queue = self.unique("py-drain")
        items = [self.admin.create_item(f"Drain {n}", queue=queue).id for n in range(3)]
        plan = self.admin.create_item("Plan", queue=queue, metadata={"plan": True}).id

        def handler(lease):
            if lease.item.metadata.get("plan") and not lease.item.children:
                lease.decompose([wg.NewChild("a", "Step a"), wg.NewChild("b", "Step b", depends_on=["a"])])
                return None
            lease.sleep(0.2)
            return {"ok": True}

        worker = wg.Worker(self.worker_client(self.unique("py-drainer")), queues=[queue], concurrency=2)
        in_thread(lambda: worker.run(handler, until_idle=True, handle_signals=False), 60)
        self.assertEqual({self.admin.get_item(item_id).status for item_id in items + [plan]}, {wg.ItemStatus.COMPLETED})
        self.assertEqual({child.status for child in self.admin.get_item(plan).children}, {wg.ItemStatus.COMPLETED})


class StoppingTests(LiveTest):
    def test_stop_lets_handlers_finish_within_the_grace_period_then_releases_the_rest(self):
        queue = self.unique("py-stop")
        quick = self.admin.create_item("quick", queue=queue)
        stubborn = self.admin.create_item("stubborn", queue=queue)
        untouched = self.admin.create_item("untouched", queue=queue)
        started = {}
        both = threading.Barrier(3)
        stubborn_returned = threading.Event()

        def handler(lease):
            started[lease.item.title] = lease
            both.wait(20)
            if lease.item.title == "quick":
                lease.sleep(1.0)
                return {"done": "quick"}
            time.sleep(4)  # ignores its cancellation flag
            stubborn_returned.set()
            return {"done": "stubborn, too late"}

        worker = self.worker(self.worker_client(self.unique("py-stopper")), queues=[queue], concurrency=2,
                             lease_seconds=30, shutdown_grace=2).start(handler)
        both.wait(20)
        began = time.monotonic()
        worker.stop()
        self.assertGreaterEqual(time.monotonic() - began, 1.5, "the grace period was given")
        self.assertEqual(self.admin.get_item(quick.id).result, {"done": "quick"})
        self.assertTrue(started["stubborn"].cancelled.is_set())
        self.assertEqual(started["stubborn"].lost_because.reason, wg.LostReason.WORKER_STOPPED)
        released = self.admin.item_leases(stubborn.id)
        self.assertEqual([(lease.outcome, lease.reason) for lease in released], [("released", "worker shutting down")])
        self.assertTrue(stubborn_returned.wait(10))
        time.sleep(0.3)
        self.assertEqual(self.admin.get_item(stubborn.id).status, wg.ItemStatus.READY, "its result was not sent")
        self.assertEqual(self.admin.get_item(untouched.id).epoch, 0, "nothing was claimed after the stop")


class RefusalsTests(LiveTest):
    def test_a_revoked_token_stops_the_worker_with_one_clear_error(self):
        worker_id = self.unique("py-revoked")
        issued = self.admin.create_token("python-tests revoked", "worker", worker_id)
        self.admin.revoke_token(issued.id)
        worker = wg.Worker(wg.WorkGraphClient(self.admin.base_url, token=issued.token), queues=[self.unique("py-q")])
        with self.assertRaises(wg.Unauthenticated):
            in_thread(lambda: worker.run(lambda lease: None, handle_signals=False), 20)

    def test_an_operator_token_cannot_claim_and_the_worker_says_so(self):
        operator = self.admin.create_token("python-tests operator worker", "operator")
        worker = self.worker(wg.WorkGraphClient(self.admin.base_url, token=operator.token), worker_id="ops")
        worker.start(lambda lease: None)
        self.assertTrue(worker.join(20), "the worker stopped by itself")
        self.assertIsInstance(worker.failure, wg.Forbidden)

    def test_a_token_revoked_while_working_stops_the_worker_and_the_handler(self):
        queue = self.unique("py-revoked-later")
        self.admin.create_item("Held when revoked", queue=queue)
        worker_id = self.unique("py-revokee")
        issued = self.admin.create_token("python-tests revoked later", "worker", worker_id)
        started = threading.Event()
        seen = {}

        def handler(lease):
            started.set()
            seen["told"] = lease.cancelled.wait(20)

        worker = self.worker(wg.WorkGraphClient(self.admin.base_url, token=issued.token), queues=[queue],
                             lease_seconds=3).start(handler)
        self.assertTrue(started.wait(20))
        self.admin.revoke_token(issued.id)
        self.assertTrue(worker.join(20), "the worker stopped by itself")
        self.assertIsInstance(worker.failure, wg.Unauthenticated)
        self.assertTrue(seen["told"])

    def test_a_failing_handler_releases_and_after_three_failures_in_a_row_asks_a_human(self):
        queue = self.unique("py-poison")
        item = self.admin.create_item("Poison", queue=queue)

        def handler(lease):
            raise ValueError("cannot parse the input")

        self.worker(self.worker_client(self.unique("py-failing")), queues=[queue]).start(handler)
        blocked = self.await_status(item.id, wg.ItemStatus.BLOCKED)
        history = self.admin.item_leases(item.id)
        self.assertEqual([lease.outcome for lease in history], ["released", "released", "attention_requested"])
        self.assertEqual(history[0].reason, "handler failed: ValueError: cannot parse the input")
        question = blocked.attention_requests[-1]
        self.assertIn("3 times in a row", question.question)
        self.assertEqual(question.context["failuresInARow"], 3)
