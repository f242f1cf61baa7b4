package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.problem.LeaseEnded;
import dev.workgraph.client.problem.LeaseExpired;
import dev.workgraph.client.worker.ItemHandler;
import dev.workgraph.client.worker.LeaseContext;
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
		Item finished = awaitStatus(item.id(), ItemStatus.COMPLETED);
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
		Stubborn handler = new Stubborn();
		started(worker("stubborn", handler).queues("doomed").leaseSeconds(3).build());
		assertThat(handler.working.await(20, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(300);
		long cancelledAt = System.nanoTime();
		this.client.cancelItem(item.id(), "no longer needed");
		assertThat(handler.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		// One renewal interval is a third of the 3 s lease; allow the renewal's round
		// trip
		// on a busy machine on top.
		assertThat((handler.interruptedAt.get() - cancelledAt) / MS).isLessThan(1_000L + 1_000L);
		assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.REFUSED);
		assertThat(handler.lost.get().getCause()).isInstanceOf(LeaseEnded.class);
		assertThat(handler.refusedLocally.get()).isInstanceOf(LeaseLost.class);
		assertNothingButRenewalsWasSent(handler.leaseId.get(), handler);
		assertThat(this.client.getLease(handler.leaseId.get()).outcome()).isEqualTo(LeaseOutcome.CANCELLED);
		assertThat(this.client.getItem(item.id()).status()).isEqualTo(ItemStatus.CANCELLED);
	}

	@Test
	void aForcedExpiryInterruptsTheHandlerWithinOneRenewalIntervalAndItsCompletionIsNeverSent() throws Exception {
		Item item = this.client.createItem(NewItem.titled("to be expired").withQueue("stalled"));
		Stubborn handler = new Stubborn();
		started(worker("stalled", handler).queues("stalled").leaseSeconds(3).build());
		assertThat(handler.working.await(20, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(300);
		long expiredAt = System.nanoTime();
		expireLease(handler.leaseId.get());
		assertThat(handler.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat((handler.interruptedAt.get() - expiredAt) / MS).isLessThan(1_000L + 1_000L);
		assertThat(handler.lost.get().getCause()).isInstanceOf(LeaseExpired.class);
		assertThat(handler.refusedLocally.get()).isInstanceOf(LeaseLost.class);
		assertNothingButRenewalsWasSent(handler.leaseId.get(), handler);
		// The reaper records the expiry; the next claim fences the old holder with epoch
		// 2.
		assertThat(this.reaper.reapExpired()).isEqualTo(1);
		assertThat(this.client.claim(dev.workgraph.client.ClaimRequest.forWorker("successor").withQueues("stalled")))
			.hasValueSatisfying((claim) -> {
				assertThat(claim.item().id()).isEqualTo(item.id());
				assertThat(claim.lease().epoch()).isEqualTo(2);
			});
	}

	private void assertNothingButRenewalsWasSent(UUID leaseId, Stubborn handler) throws InterruptedException {
		assertThat(handler.finished.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(500); // anything the runtime might still send would arrive by now
		List<RequestLog.Entry> sent = this.requests.ofLease(leaseId);
		assertThat(sent).isNotEmpty()
			.allSatisfy((entry) -> assertThat(entry.path()).isEqualTo("/leases/" + leaseId + "/renew"));
		assertThat(sent.get(sent.size() - 1).status()).isEqualTo(409);
		assertThat(this.requests.endingWritesOf(leaseId)).isEmpty();
	}

	/**
	 * Works until interrupted, then tries to complete anyway, as a careless handler
	 * would; and returns a result as if all went well.
	 */
	private static final class Stubborn implements ItemHandler {

		final CountDownLatch working = new CountDownLatch(1);

		final CountDownLatch interrupted = new CountDownLatch(1);

		final CountDownLatch finished = new CountDownLatch(1);

		final AtomicReference<UUID> leaseId = new AtomicReference<>();

		final AtomicLong interruptedAt = new AtomicLong();

		final AtomicReference<LeaseLost> lost = new AtomicReference<>();

		final AtomicReference<Throwable> refusedLocally = new AtomicReference<>();

		@Override
		public Object handle(LeaseContext lease) {
			this.leaseId.set(lease.leaseId());
			this.working.countDown();
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				this.interruptedAt.set(System.nanoTime());
				this.lost.set(lease.whenLost().getNow(null));
				try {
					lease.complete(Map.of("done", "anyway"));
				}
				catch (RuntimeException refused) {
					this.refusedLocally.set(refused);
				}
				this.interrupted.countDown();
			}
			finally {
				this.finished.countDown();
			}
			return Map.of("done", "as if nothing happened");
		}

	}

	private Item awaitStatus(UUID itemId, ItemStatus status) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		Item item = this.client.getItem(itemId);
		while (item.status() != status && System.nanoTime() < deadline) {
			Thread.sleep(50);
			item = this.client.getItem(itemId);
		}
		assertThat(item.status()).isEqualTo(status);
		return item;
	}

}
