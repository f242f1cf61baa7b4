package dev.workgraph.item;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.workgraph.notification.NotificationProperties;
import dev.workgraph.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ReadyWaiters} on its own, with a counter standing in for the claim queue: no
 * wake-up is lost however notifications and attempts interleave, the waiters of one
 * filter are served in arrival order, and waits end as they should. The re-check interval
 * is an hour unless a test is about it, so only notifications wake anyone.
 */
class ReadyWaitersTests {

	private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	private static ReadyWaiters waiters(Duration recheck) {
		return new ReadyWaiters(new NotificationProperties(null, null, null, recheck, Duration.ofMillis(100),
				Duration.ofSeconds(5), 64));
	}

	/** Takes one item from the counter if there is one. */
	private static Optional<Integer> takeOne(AtomicInteger ready) {
		while (true) {
			int now = ready.get();
			if (now == 0) {
				return Optional.empty();
			}
			if (ready.compareAndSet(now, now - 1)) {
				return Optional.of(now);
			}
		}
	}

	@Test
	void noWakeUpIsLostWhenItemsArriveWhileWaitersCheckAndWait() throws Exception {
		ReadyWaiters waiters = waiters(Duration.ofHours(1));
		AtomicInteger ready = new AtomicInteger();
		AtomicInteger taken = new AtomicInteger();
		int items = 5000;
		List<Future<?>> workers = new ArrayList<>();
		for (int w = 0; w < 50; w++) {
			workers.add(this.threads.submit(() -> {
				while (taken.get() < items) {
					// Waits far longer than the test: a lost wake-up is not covered up by
					// a
					// wait that ends and starts again.
					waiters.awaitReady(List.of("q"), Duration.ofMinutes(5), () -> {
						// Adversarial timing: an item may arrive while the attempt runs.
						LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000));
						return takeOne(ready);
					}).ifPresent((item) -> taken.incrementAndGet());
				}
				return null;
			}));
		}
		for (int i = 0; i < items; i++) {
			ready.incrementAndGet();
			waiters.readyIn("q");
			if (ThreadLocalRandom.current().nextInt(4) == 0) {
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000));
			}
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (taken.get() < items && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(taken.get()).as("items taken (after a lost wake-up an item stays ready)").isEqualTo(items);
		assertThat(ready.get()).isZero();
		waiters.stopWaiting();
		for (Future<?> worker : workers) {
			worker.get(10, TimeUnit.SECONDS);
		}
		assertThat(waiters.waiting()).isZero();
	}

	@Test
	void waitersOfOneFilterAreServedInArrivalOrderAndOtherFiltersAreNotWoken() throws Exception {
		ReadyWaiters waiters = waiters(Duration.ofHours(1));
		AtomicInteger next = new AtomicInteger();
		AtomicInteger ready = new AtomicInteger();
		AtomicInteger otherAttempts = new AtomicInteger();
		List<Future<Optional<Integer>>> served = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			served.add(this.threads.submit(() -> waiters.awaitReady(List.of("b", "a"), Duration.ofSeconds(30),
					() -> takeOne(ready).map((item) -> next.getAndIncrement()))));
			int arrived = i + 1;
			awaitCondition(() -> waiters.waiting(List.of("a", "b")) == arrived);
		}
		Future<Optional<Integer>> other = this.threads
			.submit(() -> waiters.awaitReady(List.of("c"), Duration.ofSeconds(2), () -> {
				otherAttempts.incrementAndGet();
				return Optional.empty();
			}));
		awaitCondition(() -> waiters.waiting(List.of("c")) == 1);
		for (int i = 0; i < 20; i++) {
			ready.incrementAndGet();
			waiters.readyIn((i % 2 == 0) ? "a" : "b");
		}
		for (int i = 0; i < 20; i++) {
			assertThat(served.get(i).get(10, TimeUnit.SECONDS)).as("waiter %d", i).contains(i);
		}
		assertThat(other.get(10, TimeUnit.SECONDS)).isEmpty();
		assertThat(otherAttempts.get()).as("the other filter's only check, on arrival").isOne();
	}

	@Test
	void aHeadThatHearsNothingRechecksOnItsOwn() throws Exception {
		ReadyWaiters waiters = waiters(Duration.ofMillis(100));
		AtomicInteger ready = new AtomicInteger();
		Future<Optional<Integer>> waiting = this.threads
			.submit(() -> waiters.awaitReady(null, Duration.ofSeconds(30), () -> takeOne(ready)));
		awaitCondition(() -> waiters.waiting(null) == 1);
		ready.incrementAndGet(); // and no notification
		assertThat(waiting.get(10, TimeUnit.SECONDS)).contains(1);
	}

	@Test
	void recheckAllWakesEveryHeadAfterNotificationsWereLost() throws Exception {
		ReadyWaiters waiters = waiters(Duration.ofHours(1));
		AtomicInteger ready = new AtomicInteger();
		Future<Optional<Integer>> first = this.threads
			.submit(() -> waiters.awaitReady(List.of("x"), Duration.ofSeconds(30), () -> takeOne(ready)));
		Future<Optional<Integer>> second = this.threads
			.submit(() -> waiters.awaitReady(List.of("y"), Duration.ofSeconds(30), () -> takeOne(ready)));
		awaitCondition(() -> waiters.waiting() == 2);
		ready.addAndGet(2);
		waiters.recheckAll();
		assertThat(first.get(10, TimeUnit.SECONDS)).isPresent();
		assertThat(second.get(10, TimeUnit.SECONDS)).isPresent();
	}

	@Test
	void waitsEndEmptyAtTheirDeadlineWhenInterruptedAndWhenWaitingStops() throws Exception {
		ReadyWaiters waiters = waiters(Duration.ofHours(1));
		assertThat(waiters.awaitReady(List.of("q"), Duration.ofMillis(50), Optional::<Integer>empty)).isEmpty();
		ConcurrentHashMap<String, Boolean> interruptedAfterwards = new ConcurrentHashMap<>();
		Thread interrupted = Thread.ofVirtual().start(() -> {
			waiters.awaitReady(List.of("q"), Duration.ofSeconds(60), Optional::<Integer>empty);
			interruptedAfterwards.put("flag", Thread.currentThread().isInterrupted());
		});
		awaitCondition(() -> waiters.waiting() == 1);
		interrupted.interrupt();
		interrupted.join(Duration.ofSeconds(10));
		assertThat(interruptedAfterwards).containsEntry("flag", true);
		List<Future<Optional<Integer>>> waiting = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			waiting.add(this.threads
				.submit(() -> waiters.awaitReady(List.of("q"), Duration.ofSeconds(60), Optional::<Integer>empty)));
		}
		awaitCondition(() -> waiters.waiting() == 10);
		waiters.stopWaiting();
		for (Future<Optional<Integer>> wait : waiting) {
			assertThat(wait.get(10, TimeUnit.SECONDS)).isEmpty();
		}
		assertThat(waiters.waiting()).isZero();
	}

	@Test
	void anAttemptThatFailsEndsOnlyItsOwnWait() throws Exception {
		ReadyWaiters waiters = waiters(Duration.ofHours(1));
		AtomicInteger ready = new AtomicInteger();
		Future<Optional<Integer>> failing = this.threads
			.submit(() -> waiters.awaitReady(List.of("q"), Duration.ofSeconds(30), () -> {
				throw new IllegalStateException("database unavailable");
			}));
		assertThat(failing).failsWithin(Duration.ofSeconds(10));
		Future<Optional<Integer>> next = this.threads
			.submit(() -> waiters.awaitReady(List.of("q"), Duration.ofSeconds(30), () -> takeOne(ready)));
		awaitCondition(() -> waiters.waiting(List.of("q")) == 1);
		ready.incrementAndGet();
		waiters.readyIn("q");
		assertThat(next.get(10, TimeUnit.SECONDS)).contains(1);
	}

	@Test
	void oneOwnerMayHaveOnlySoManyWaitsAtOnce() throws Exception {
		ReadyWaiters waiters = new ReadyWaiters(new NotificationProperties(null, null, null, Duration.ofHours(1),
				Duration.ofMillis(100), Duration.ofSeconds(5), 2));
		List<Future<Optional<Integer>>> waiting = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			waiting.add(this.threads.submit(() -> waiters.awaitReady(List.of("q"), Duration.ofSeconds(60), "greedy",
					Optional::<Integer>empty)));
		}
		awaitCondition(() -> waiters.waiting() == 2);
		assertThatExceptionOfType(TooManyWaitingClaims.class).isThrownBy(
				() -> waiters.awaitReady(List.of("other"), Duration.ofSeconds(60), "greedy", Optional::<Integer>empty));
		// Others are not held back, nor are waits without an owner.
		assertThat(waiters.awaitReady(List.of("q"), Duration.ofMillis(10), "modest", Optional::<Integer>empty))
			.isEmpty();
		waiters.endWaitsOf("greedy");
		for (Future<Optional<Integer>> wait : waiting) {
			assertThat(wait.get(10, TimeUnit.SECONDS)).as("ended by endWaitsOf").isEmpty();
		}
		assertThat(waiters.waiting()).isZero();
	}

	private static void awaitCondition(java.util.function.BooleanSupplier condition) {
		Eventually.until("the waiters", Duration.ofSeconds(30), Duration.ofMillis(2), condition);
	}

}
