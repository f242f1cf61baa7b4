"""Queue settings, who a token is, fences, checkpoint pages and the change stream, against a live service."""

import threading

import workgraph as wg

from .live import URL, LiveTest, eventually, in_thread


class QueuesAndTokensTests(LiveTest):
    def test_a_queue_is_paused_capped_and_uncapped_and_a_paused_one_grants_nothing(self):
        queue = self.unique("py-queue")
        self.admin.create_item("Waits for the queue", queue=queue)
        paused = self.admin.update_queue(queue, paused=True, max_active_leases=3)
        self.assertEqual((paused.name, paused.paused, paused.max_active_leases, paused.ready), (queue, True, 3, 1))
        agent = self.worker_client(self.unique("py-paused"))
        self.assertIsNone(agent.claim(queues=[queue]))
        kept = self.admin.update_queue(queue, paused=False)
        self.assertEqual((kept.paused, kept.max_active_leases), (False, 3))
        self.assertEqual(self.admin.update_queue(queue, max_active_leases=None).max_active_leases, None)
        self.assertEqual(self.admin.get_queue(queue).paused, False)
        self.assertIsNotNone(agent.claim(queues=[queue]))
        with self.assertRaises(wg.RequestRejected) as refused:
            self.admin.update_queue(queue, max_active_leases=0)
        self.assertEqual(refused.exception.problem.code, "validation_failed")

    def test_a_token_limited_to_queues_claims_only_from_them_and_knows_who_it_is(self):
        allowed = self.unique("py-scope")
        worker_id = self.unique("py-scoped")
        issued = self.admin.create_token("python-tests scoped", wg.TokenRole.WORKER, worker_id, queues=[allowed])
        self.assertEqual(issued.queues, (allowed,))
        listed = {token.id: token for token in self.admin.list_tokens()}
        self.assertEqual(listed[issued.id].queues, (allowed,))
        agent = wg.WorkGraphClient(URL, token=issued.token)
        with self.assertRaises(wg.Forbidden):
            agent.claim(queues=[self.unique("py-elsewhere")])
        me = agent.current_token()
        self.assertEqual((me.id, me.role, me.worker_id), (issued.id, wg.TokenRole.WORKER, worker_id))
        self.assertEqual(self.admin.current_token().name, "bootstrap")

    def test_a_worker_token_allowed_to_create_items_creates_them_in_its_queues(self):
        queue = self.unique("py-filer")
        issued = self.admin.create_token("python-tests filer", "worker", self.unique("py-filer"), queues=[queue],
                                         create_items=True)
        self.assertTrue(issued.create_items)
        agent = wg.WorkGraphClient(URL, token=issued.token)
        item = agent.create_item("Follow-up", queue=queue)
        self.assertEqual((item.queue, item.created_by), (queue, "python-tests filer"))
        with self.assertRaises(wg.Forbidden):
            agent.create_item("Elsewhere", queue=self.unique("py-elsewhere"))
        with self.assertRaises(wg.Forbidden):
            self.worker_client(self.unique("py-plain")).create_item("Not allowed", queue=queue)


class FencesAndCheckpointsTests(LiveTest):
    def test_a_fence_says_whether_an_epoch_still_holds_the_item(self):
        queue = self.unique("py-fence")
        self.admin.create_item("Deploy", queue=queue)
        agent = self.worker_client(self.unique("py-fencer"))
        claim = agent.claim(queues=[queue], lease_seconds=30)
        fence = agent.lease_fence(claim.lease.id, claim.lease.epoch)
        self.assertEqual((fence.live, fence.current_epoch), (True, 1))
        self.assertIsNotNone(fence.expires_at)
        self.assertFalse(agent.lease_fence(claim.lease.id, 0).live)
        agent.release(claim.lease, "done for now")
        self.assertFalse(self.admin.lease_fence(claim.lease.id, claim.lease.epoch).live)

    def test_checkpoints_are_listed_newest_first_a_page_at_a_time(self):
        queue = self.unique("py-pages")
        item = self.admin.create_item("Long job", queue=queue)
        agent = self.worker_client(self.unique("py-pager"))
        claim = agent.claim(queues=[queue], lease_seconds=30)
        for step in range(1, 6):
            agent.checkpoint(claim.lease, {"step": step})
        page = agent.list_checkpoints(item.id, limit=2)
        self.assertEqual([checkpoint.seq for checkpoint in page], [5, 4])
        self.assertIsNotNone(page.next_cursor)
        self.assertEqual([dict(c.data)["step"] for c in self.admin.iter_checkpoints(item.id)], [5, 4, 3, 2, 1])
        with self.assertRaises(wg.NotFound):
            self.admin.list_checkpoints("00000000-0000-7000-8000-000000000000")


class ChangeStreamTests(LiveTest):
    def test_changes_after_a_seq_are_read_without_following(self):
        queue = self.unique("py-changes")
        created = [self.admin.create_item(f"Change {n}", queue=queue) for n in range(3)]
        seen: list[str] = []

        def read_on() -> list[str]:
            # Each pass sends what was published after the last change the stream handed out.
            seen.extend(change.item_id for change in stream)
            return seen

        with self.admin.changes(queue=queue, types=["item.created"], after=0, follow=False) as stream:
            eventually(read_on, lambda ids: len(ids) >= 3, 10, "three changes")
        self.assertEqual(seen, [item.id for item in created])
        self.assertGreater(stream.last_event_id, 0)

    def test_a_followed_stream_resumes_after_a_drop_without_loss_or_repeat(self):
        queue = self.unique("py-follow")
        stream = self.admin.changes(queue=queue, types=["item.created"])
        received: list[wg.Change] = []
        first_seen = threading.Event()

        def read() -> None:
            for change in stream:
                received.append(change)
                first_seen.set()
                if len(received) == 6:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        eventually(lambda: stream._connection is not None, bool, 10, "the stream to connect")
        created = [self.admin.create_item("Before the drop", queue=queue)]
        self.assertTrue(first_seen.wait(10))
        # The connection is cut under the reader: it reconnects from its last seq.
        stream._connection.sock.shutdown(2)
        created += [self.admin.create_item(f"After the drop {n}", queue=queue) for n in range(5)]
        reader.join(30)
        self.assertFalse(reader.is_alive())
        self.assertEqual([change.item_id for change in received], [item.id for item in created])
        self.assertEqual(len({change.seq for change in received}), 6)
        stream.close()

    def test_close_from_another_thread_ends_a_waiting_stream_and_workers_may_not_read_it(self):
        stream = self.admin.changes(queue=self.unique("py-quiet"))
        threading.Timer(0.5, stream.close).start()
        self.assertEqual(in_thread(lambda: list(stream), 10), [])
        agent = self.worker_client(self.unique("py-reader"))
        with self.assertRaises(wg.Forbidden):
            next(iter(agent.changes(reconnect=False)))


class WaitsAndEventsTests(LiveTest):
    def test_a_wait_parks_the_item_until_its_event_and_hands_the_payload_to_the_next_holder(self):
        queue = self.unique("py-wait")
        item = self.admin.create_item("Merge once CI passes", queue=queue)
        agent = self.worker_client(self.unique("py-waiter"))
        claim = agent.claim(queues=[queue], lease_seconds=30)
        key = self.unique("acme/api@")
        wait, ended = agent.wait_for_event(claim.lease, "ci.finished", key, timeout_seconds=3600, on_timeout="ask")
        self.assertEqual((wait.status, wait.event_key, ended.lease.outcome), ("open", key, "waiting"))
        self.assertEqual((ended.item.status, ended.item.blockers.open_waits), (wg.ItemStatus.BLOCKED, 1))
        with self.assertRaises(wg.LeaseEnded):
            agent.checkpoint(claim.lease, {"late": True})
        sent = self.admin.post_event("ci.finished", key, event_id=key + "-delivery", payload={"conclusion": "success"})
        self.assertEqual((sent.matched_waits, sent.repeated), (1, False))
        again = self.admin.post_event("ci.finished", key, event_id=key + "-delivery")
        self.assertEqual((again.event_id, again.repeated), (sent.event_id, True))
        resumed = agent.claim(queues=[queue], lease_seconds=30)
        self.assertEqual(resumed.item.id, item.id)
        self.assertEqual(resumed.item.waits[-1].matched_event["payload"], {"conclusion": "success"})
