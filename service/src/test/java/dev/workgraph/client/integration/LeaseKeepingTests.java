package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.problem.LeaseEnded;
import dev.workgraph.client.problem.LeaseExpired;
import dev.workgraph.client.worker.Backoff;
import dev.workgraph.client.worker.LeaseLost;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker runtime keeps leases alive on the real service, and stops a handler the
 * moment its lease is taken away: interrupted within one renewal interval, and its
 * completion never sent (proven by the service's own request log).
 */
class LeaseKeepingTests extends WorkerClientTest {

	private static final long MS = 1_000_000L;

	@Test
	void aTwoSecondLeaseIsKeptAliveThroughTenSecondsOfWork() throws Exception {
		Item item = this.client.createItem(NewItem.titled("ten seconds of work").withQueue("slow"));
		CountDownLatch done = new CountDownLatch(1);
		started(worker("steady", (lease) -> {
			for (int second = 0; second < 10; second++) {
				Thread.sleep(1_000);
				lease.ensureHeld();
			}
			done.countDown();
			return Map.of("seconds", 10);
		}).queues("slow").leaseSeconds(2).build());
		assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
		Item finished = Items.awaitStatus(this.client, item.id(), ItemStatus.COMPLETED, Duration.ofSeconds(20));
		assertThat(finished.result().path("seconds").asInt()).isEqualTo(10);
		List<Lease> leases = this.client.leasesOfItem(item.id());
		assertThat(leases).singleElement().satisfies((lease) -> {
			assertThat(lease.epoch()).isEqualTo(1);
			assertThat(lease.outcome()).isEqualTo(LeaseOutcome.COMPLETED);
			assertThat(lease.workerId()).isEqualTo("steady");
			// Renewed to the end: the service's last renewal is under 2 s before the end.
			assertThat(Duration.between(lease.renewedAt(), lease.endedAt())).isLessThan(Duration.ofSeconds(2));
			assertThat(Duration.between(lease.acquiredAt(), lease.endedAt())).isGreaterThan(Duration.ofSeconds(10));
		});
		UUID leaseId = leases.get(0).id();
		List<RequestLog.Entry> renewals = this.requests.ofLease(leaseId)
			.stream()
			.filter((entry) -> entry.path().endsWith("/renew"))
			.toList();
		// Every 2/3 s for 10 s: about 15 renewals, all accepted.
		assertThat(renewals).hasSizeBetween(12, 20).allSatisfy((entry) -> assertThat(entry.status()).isEqualTo(200));
		assertThat(this.requests.endingWritesOf(leaseId)).extracting(RequestLog.Entry::toString)
			.containsExactly("POST /leases/" + leaseId + "/complete → 200");
	}

	@Test
	void anOperatorCancelInterruptsTheHandlerWithinOneRenewalIntervalAndItsCompletionIsNeverSent() throws Exception {
		Item item = this.client.createItem(NewItem.titled("to be cancelled").withQueue("doomed"));
		StubbornHandler handler = takeAway("doomed", () -> this.client.cancelItem(item.id(), "no longer needed"));
		assertThat(handler.lost.get().getCause()).isInstanceOf(LeaseEnded.class);
		assertThat(this.client.getLease(handler.leaseId.get()).outcome()).isEqualTo(LeaseOutcome.CANCELLED);
		assertThat(this.client.getItem(item.id()).status()).isEqualTo(ItemStatus.CANCELLED);
	}

	@Test
	void aForcedExpiryInterruptsTheHandlerWithinOneRenewalIntervalAndItsCompletionIsNeverSent() throws Exception {
		Item item = this.client.createItem(NewItem.titled("to be expired").withQueue("stalled"));
		AtomicReference<StubbornHandler> holder = new AtomicReference<>();
		StubbornHandler handler = takeAway("stalled", () -> expireLease(holder.get().leaseId.get()), holder);
		assertThat(handler.lost.get().getCause()).isInstanceOf(LeaseExpired.class);
		// The reaper records the expiry; the next claim fences the old holder with epoch
		// 2.
		assertThat(this.reaper.reapExpired()).isEqualTo(1);
		assertThat(this.client.claim(ClaimRequest.forWorker("successor").withQueues("stalled")))
			.hasValueSatisfying((claim) -> {
				assertThat(claim.item().id()).isEqualTo(item.id());
				assertThat(claim.lease().epoch()).isEqualTo(2);
			});
	}

	private StubbornHandler takeAway(String queue, Runnable takeAway) throws InterruptedException {
		return takeAway(queue, takeAway, new AtomicReference<>());
	}

	/**
	 * A stubborn handler holds a 3 s lease on the queue's item until {@code takeAway}
	 * takes it: it is interrupted within one renewal interval, and nothing but renewals
	 * was ever sent for its lease.
	 */
	private StubbornHandler takeAway(String queue, Runnable takeAway, AtomicReference<StubbornHandler> holder)
			throws InterruptedException {
		StubbornHandler handler = new StubbornHandler();
		holder.set(handler);
		// Polls rather than waits at the service, and slowly: a waiting claim (or a quick
		// poll on a loaded machine) would take the item the moment it is ready again and
		// race the test's own next claim for it.
		started(worker("stubborn-" + queue, handler).queues(queue)
			.leaseSeconds(3)
			.waitSeconds(0)
			.pollBackoff(Backoff.exponential(Duration.ofSeconds(10), Duration.ofSeconds(10)))
			.build());
		assertThat(handler.working.await(20, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(300);
		long takenAt = System.nanoTime();
		takeAway.run();
		assertThat(handler.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		// One renewal interval is a third of the 3 s lease; the renewal's round trip on a
		// busy machine comes on top.
		assertThat((handler.interruptedAt.get() - takenAt) / MS).isLessThan(1_000L + 1_000L);
		assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.REFUSED);
		assertThat(handler.refusedLocally.get()).isInstanceOf(LeaseLost.class);
		UUID leaseId = handler.leaseId.get();
		assertThat(handler.finished.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(500); // anything the runtime might still send would arrive by now
		List<RequestLog.Entry> sent = this.requests.ofLease(leaseId);
		assertThat(sent).isNotEmpty()
			.allSatisfy((entry) -> assertThat(entry.path()).isEqualTo("/leases/" + leaseId + "/renew"));
		assertThat(sent.get(sent.size() - 1).status()).isEqualTo(409);
		assertThat(this.requests.endingWritesOf(leaseId)).isEmpty();
		return handler;
	}

}
