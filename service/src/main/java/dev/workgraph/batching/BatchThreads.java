package dev.workgraph.batching;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * The platform threads on which coalesced batches run their transactions. A batch is a
 * few database round trips in a row. Between two of them a virtual thread is parked, and
 * the answer reaches it through the JDK's poller and then a carrier thread; a platform
 * thread blocked on its socket is woken by the kernel directly. On two cores shared with
 * PostgreSQL each of those hand-offs took about a millisecond, more than half of a
 * batch's time, and every request of the batch waits for all of them
 * (docs/performance-journal.md, "Where a batch's wall time goes").
 *
 * <p>
 * Requests stay on virtual threads: a batch's leader waits for its batch here without
 * holding a platform thread, and a lone request runs on its own thread
 * ({@link Coalescer}). A batch never submits to a coalescer, so a batch waiting for a
 * thread waits only for other batches to end. Idle threads end after a minute.
 */
@Component
class BatchThreads implements Executor, DisposableBean {

	private static final long IDLE_SECONDS = 60;

	private final ThreadPoolExecutor threads;

	BatchThreads(CoalescingProperties properties) {
		this.threads = new ThreadPoolExecutor(properties.batchThreads(), properties.batchThreads(), IDLE_SECONDS,
				TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				Thread.ofPlatform().daemon().name("coalescer-batch-", 0).factory());
		this.threads.allowCoreThreadTimeOut(true);
	}

	@Override
	public void execute(Runnable batch) {
		this.threads.execute(batch);
	}

	/** Batches already handed over still run; the requests in flight wait for them. */
	@Override
	public void destroy() {
		this.threads.shutdown();
	}

}
