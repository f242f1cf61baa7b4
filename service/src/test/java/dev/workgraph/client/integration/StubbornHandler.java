package dev.workgraph.client.integration;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.workgraph.client.worker.ItemHandler;
import dev.workgraph.client.worker.LeaseContext;
import dev.workgraph.client.worker.LeaseLost;

/**
 * A careless handler: works until interrupted, then tries to complete anyway and returns
 * a result as if all went well. Records what it saw, for tests that prove the runtime
 * sent neither.
 */
public final class StubbornHandler implements ItemHandler {

	public final CountDownLatch working = new CountDownLatch(1);

	/** Counted down after the handler tried to complete. */
	public final CountDownLatch interrupted = new CountDownLatch(1);

	public final CountDownLatch finished = new CountDownLatch(1);

	public final AtomicReference<UUID> leaseId = new AtomicReference<>();

	public final AtomicLong interruptedAt = new AtomicLong();

	/** What {@code whenLost()} held when the interrupt came. */
	public final AtomicReference<LeaseLost> lost = new AtomicReference<>();

	/** What the completion attempted after the interrupt threw. */
	public final AtomicReference<Throwable> refusedLocally = new AtomicReference<>();

	@Override
	public Object handle(LeaseContext lease) {
		this.leaseId.set(lease.leaseId());
		this.working.countDown();
		try {
			Thread.sleep(120_000);
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
