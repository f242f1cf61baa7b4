package dev.workgraph.batching;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import dev.workgraph.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.CannotGetJdbcConnectionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The batching machinery on its own: a lone request runs at once; requests arriving while
 * a batch is in flight are served together, oldest first, at most {@code maxBatch} at a
 * time; a failing batch fails each of its requests; nobody waits forever.
 */
class CoalescerTests {

	private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

	/** Batch threads as the service has them: platform threads. */
	private final ExecutorService batchThreads = Executors.newFixedThreadPool(1,
			Thread.ofPlatform().daemon().name("test-batch-", 0).factory());

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
		this.batchThreads.shutdownNow();
	}

	private static <K, Q> BiFunction<K, List<Q>, List<Q>> identity() {
		return (key, batch) -> batch;
	}

	@Test
	void loneRequestRunsAtOnceInABatchOfItsOwn() {
		List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			batches.add(batch);
			return batch.stream().map((n) -> n * 10).toList();
		}, identity(), 32, 1, Duration.ofSeconds(5));
		assertThat(coalescer.submit("k", 1)).isEqualTo(10);
		assertThat(coalescer.submit("k", 2)).isEqualTo(20);
		assertThat(batches).containsExactly(List.of(1), List.of(2));
	}

	@Test
	void requestsArrivingDuringABatchAreServedByTheNextOneInArrivalOrderUpToTheCap() throws Exception {
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
		Coalescer<String, Integer, Integer, String> coalescer = new Coalescer<>((key, batch) -> {
			batches.add(batch);
			if (batch.contains(0)) {
				firstRunning.countDown();
				await(releaseFirst);
			}
			return batch;
		}, (key, batch) -> batch.stream().map((n) -> key + n).toList(), 4, 1, Duration.ofSeconds(5));
		Future<String> first = this.threads.submit(() -> coalescer.submit("k", 0));
		assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
		List<Future<String>> queued = new ArrayList<>();
		for (int i = 1; i <= 10; i++) {
			int request = i;
			queued.add(this.threads.submit(() -> coalescer.submit("k", request)));
			awaitQueued(coalescer, "k", i);
		}
		releaseFirst.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("k0");
		for (int i = 0; i < queued.size(); i++) {
			assertThat(queued.get(i).get(5, TimeUnit.SECONDS)).isEqualTo("k" + (i + 1));
		}
		assertThat(batches).containsExactly(List.of(0), List.of(1, 2, 3, 4), List.of(5, 6, 7, 8), List.of(9, 10));
	}

	@Test
	void differentKeysDoNotShareBatchesNorWaitForEachOther() throws Exception {
		CountDownLatch aRunning = new CountDownLatch(1);
		CountDownLatch releaseA = new CountDownLatch(1);
		Coalescer<String, Integer, String, String> coalescer = new Coalescer<>((key, batch) -> {
			if (key.equals("a")) {
				aRunning.countDown();
				await(releaseA);
			}
			return batch.stream().map((n) -> key + n).toList();
		}, identity(), 32, 1, Duration.ofSeconds(5));
		Future<String> a = this.threads.submit(() -> coalescer.submit("a", 1));
		assertThat(aRunning.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(coalescer.submit("b", 2)).isEqualTo("b2");
		releaseA.countDown();
		assertThat(a.get(5, TimeUnit.SECONDS)).isEqualTo("a1");
	}

	@Test
	void upToMaxInFlightBatchesOfOneKeyRunAtOnceAndOnlyThenDoRequestsQueue() throws Exception {
		CountDownLatch twoRunning = new CountDownLatch(2);
		CountDownLatch release = new CountDownLatch(1);
		List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			batches.add(batch);
			if (batch.contains(0) || batch.contains(1)) {
				twoRunning.countDown();
				await(release);
			}
			return batch;
		}, identity(), 32, 2, Duration.ofSeconds(5));
		Future<Integer> first = this.threads.submit(() -> coalescer.submit("k", 0));
		Future<Integer> second = this.threads.submit(() -> coalescer.submit("k", 1));
		assertThat(twoRunning.await(5, TimeUnit.SECONDS)).as("both ran at once, alone").isTrue();
		List<Future<Integer>> queued = new ArrayList<>();
		for (int i = 2; i < 6; i++) {
			int request = i;
			queued.add(this.threads.submit(() -> coalescer.submit("k", request)));
			awaitQueued(coalescer, "k", i - 1);
		}
		release.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
		assertThat(second.get(5, TimeUnit.SECONDS)).isOne();
		for (int i = 0; i < queued.size(); i++) {
			assertThat(queued.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(i + 2);
		}
		// Both slots free up and go to the oldest queued requests, each of which takes
		// whoever is still queued.
		assertThat(batches.subList(0, 2)).containsExactlyInAnyOrder(List.of(0), List.of(1));
		assertThat(batches.subList(2, batches.size())).hasSizeBetween(1, 2)
			.flatExtracting((batch) -> batch)
			.containsExactlyInAnyOrder(2, 3, 4, 5);
		assertThat(coalescer.lanesInFlight()).isZero();
	}

	@Test
	void aFailingBatchFailsEachOfItsRequestsWithItsExceptionAndTheLaneCarriesOn() throws Exception {
		failingBatchFailsEachOfItsRequestsAndTheLaneCarriesOn(Runnable::run);
	}

	@Test
	void aBatchFailingOnTheBatchThreadsFailsItsRequestsWithWhatItThrewAndTheLaneCarriesOn() throws Exception {
		failingBatchFailsEachOfItsRequestsAndTheLaneCarriesOn(this.batchThreads);
	}

	private void failingBatchFailsEachOfItsRequestsAndTheLaneCarriesOn(Executor batches) throws Exception {
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		CannotGetJdbcConnectionException down = new CannotGetJdbcConnectionException("database down");
		AtomicInteger batchesRun = new AtomicInteger();
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			int number = batchesRun.incrementAndGet();
			if (number == 1) {
				firstRunning.countDown();
				await(releaseFirst);
				return batch;
			}
			if (number == 2) {
				throw down;
			}
			return batch;
		}, identity(), 32, 1, Duration.ofSeconds(5), batches);
		Future<Integer> first = this.threads.submit(() -> coalescer.submit("k", 0));
		assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
		List<Future<Integer>> failing = new ArrayList<>();
		for (int i = 1; i <= 8; i++) {
			int request = i;
			failing.add(this.threads.submit(() -> coalescer.submit("k", request)));
			awaitQueued(coalescer, "k", i);
		}
		releaseFirst.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
		for (Future<Integer> request : failing) {
			assertThatThrownBy(() -> request.get(5, TimeUnit.SECONDS)).cause().isSameAs(down);
		}
		assertThat(coalescer.submit("k", 9)).isEqualTo(9);
	}

	@Test
	void aFailureAfterTheLaneFailsTheRequestsToo() {
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>(identity(), (key, batch) -> {
			throw new IllegalStateException("views failed");
		}, 32, 1, Duration.ofSeconds(5));
		assertThatThrownBy(() -> coalescer.submit("k", 1)).hasMessage("views failed");
		assertThat(coalescer.lanesInFlight()).isZero();
	}

	@Test
	void aBatchAnsweringTheWrongNumberOfResultsFailsItsRequests() {
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> List.of(), identity(),
				32, 1, Duration.ofSeconds(5));
		assertThatThrownBy(() -> coalescer.submit("k", 1)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("answered 0");
	}

	@Test
	void aQueuedRequestGivesUpAfterMaxWaitAndIsNeverServedAfterwards() throws Exception {
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		List<Integer> served = Collections.synchronizedList(new ArrayList<>());
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			served.addAll(batch);
			if (batch.contains(0)) {
				firstRunning.countDown();
				await(releaseFirst);
			}
			return batch;
		}, identity(), 32, 1, Duration.ofMillis(200));
		Future<Integer> first = this.threads.submit(() -> coalescer.submit("k", 0));
		assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
		long started = System.nanoTime();
		assertThatThrownBy(() -> coalescer.submit("k", 1)).isInstanceOf(ClaimQueueTimedOut.class);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(150),
				Duration.ofSeconds(3));
		releaseFirst.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
		assertThat(coalescer.submit("k", 2)).isEqualTo(2);
		assertThat(served).containsExactly(0, 2);
	}

	@Test
	void aRequestWhoseBatchRunsPastTwiceMaxWaitGivesUpWhileItsLeaderWaitsOn() throws Exception {
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		CountDownLatch secondRunning = new CountDownLatch(1);
		CountDownLatch releaseSecond = new CountDownLatch(1);
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			if (batch.contains(0)) {
				firstRunning.countDown();
				await(releaseFirst);
			}
			else {
				secondRunning.countDown();
				await(releaseSecond);
			}
			return batch;
		}, identity(), 32, 1, Duration.ofMillis(300));
		Future<Integer> first = this.threads.submit(() -> coalescer.submit("k", 0));
		assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
		Future<Integer> leader = this.threads.submit(() -> coalescer.submit("k", 1));
		awaitQueued(coalescer, "k", 1);
		long started = System.nanoTime();
		Future<Integer> follower = this.threads.submit(() -> coalescer.submit("k", 2));
		awaitQueued(coalescer, "k", 2);
		// 1 leads the next batch and takes 2 into it; that batch then hangs.
		releaseFirst.countDown();
		assertThat(secondRunning.await(5, TimeUnit.SECONDS)).isTrue();
		assertThatThrownBy(() -> follower.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ClaimQueueTimedOut.class)
			.hasMessageContaining("its batch was running");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(550),
				Duration.ofSeconds(5));
		assertThat(leader.isDone()).isFalse();
		releaseSecond.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
		assertThat(leader.get(5, TimeUnit.SECONDS)).isOne();
		awaitNoSweep(coalescer);
	}

	@Test
	void theWaitsAreSweptOnlyWhileSomebodyWaits() throws Exception {
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			if (batch.contains(0)) {
				firstRunning.countDown();
				await(releaseFirst);
			}
			return batch;
		}, identity(), 32, 1, Duration.ofSeconds(5));
		assertThat(coalescer.submit("k", 7)).isEqualTo(7);
		assertThat(coalescer.sweeping()).isFalse();
		Future<Integer> first = this.threads.submit(() -> coalescer.submit("k", 0));
		assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
		Future<Integer> queued = this.threads.submit(() -> coalescer.submit("k", 1));
		awaitQueued(coalescer, "k", 1);
		assertThat(coalescer.sweeping()).isTrue();
		releaseFirst.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
		assertThat(queued.get(5, TimeUnit.SECONDS)).isOne();
		awaitNoSweep(coalescer);
	}

	@Test
	void manyThreadsEachGetTheirOwnAnswerExactlyOnceAndTheLanesEmpty() throws Exception {
		ConcurrentHashMap<Integer, Integer> servedCount = new ConcurrentHashMap<>();
		AtomicInteger largest = new AtomicInteger();
		Coalescer<Integer, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			largest.accumulateAndGet(batch.size(), Math::max);
			batch.forEach((n) -> servedCount.merge(n, 1, Integer::sum));
			sleep(1);
			return batch.stream().map((n) -> -n).toList();
		}, identity(), 8, 2, Duration.ofSeconds(10));
		List<Future<Integer>> answers = new ArrayList<>();
		for (int i = 0; i < 2_000; i++) {
			int request = i;
			answers.add(this.threads.submit(() -> coalescer.submit(request % 3, request)));
		}
		for (int i = 0; i < answers.size(); i++) {
			assertThat(answers.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(-i);
		}
		assertThat(servedCount).hasSize(2_000).allSatisfy((request, count) -> assertThat(count).isOne());
		assertThat(largest.get()).isBetween(2, 8);
		assertThat(coalescer.lanesInFlight()).isZero();
	}

	@Test
	void batchesOfSeveralRunOnTheBatchThreadsALoneRequestAndTheSecondPhaseOnTheLeaders() throws Exception {
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		List<String> inLane = Collections.synchronizedList(new ArrayList<>());
		List<Boolean> afterLaneVirtual = Collections.synchronizedList(new ArrayList<>());
		Coalescer<String, Integer, Integer, Integer> coalescer = new Coalescer<>((key, batch) -> {
			Thread thread = Thread.currentThread();
			inLane.add(batch + (thread.isVirtual() ? " on a virtual thread" : " on " + thread.getName()));
			if (batch.contains(0)) {
				firstRunning.countDown();
				await(releaseFirst);
			}
			return batch;
		}, (key, batch) -> {
			afterLaneVirtual.add(Thread.currentThread().isVirtual());
			return batch;
		}, 32, 1, Duration.ofSeconds(5), this.batchThreads);
		Future<Integer> first = this.threads.submit(() -> coalescer.submit("k", 0));
		assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
		Future<Integer> second = this.threads.submit(() -> coalescer.submit("k", 1));
		awaitQueued(coalescer, "k", 1);
		Future<Integer> third = this.threads.submit(() -> coalescer.submit("k", 2));
		awaitQueued(coalescer, "k", 2);
		releaseFirst.countDown();
		assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
		assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(third.get(5, TimeUnit.SECONDS)).isEqualTo(2);
		assertThat(inLane).containsExactly("[0] on a virtual thread", "[1, 2] on test-batch-0");
		assertThat(afterLaneVirtual).containsExactly(true, true);
	}

	private static void awaitQueued(Coalescer<?, ?, ?, ?> coalescer, Object key, int queued) {
		Eventually.until(queued + " queued", Duration.ofSeconds(5), Duration.ofMillis(1),
				() -> coalescer.queued(key) >= queued);
	}

	private static void awaitNoSweep(Coalescer<?, ?, ?, ?> coalescer) {
		Eventually.until("no sweep once nobody waits", Duration.ofSeconds(5), Duration.ofMillis(10),
				() -> !coalescer.sweeping());
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("latch never opened");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
