package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.workgraph.client.FakeService;
import dev.workgraph.client.FakeService.Request;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.OpenChildren;
import dev.workgraph.client.problem.WorkGraphException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker runtime against a stand-in service, for what a real service cannot be made
 * to do on demand: refuse every renewal with 503, drop the answer to a completion it
 * carried out, reject {@code waitSeconds}. The requests the stand-in recorded prove what
 * was sent.
 */
class WorkerHttpTests {

	private static final long MS = 1_000_000L;

	private final FakeService service = new FakeService();

	private final UUID leaseId = UUID.randomUUID();

	private final UUID itemId = UUID.randomUUID();

	private final Events events = new Events();

	private Worker worker;

	@AfterEach
	void stop() {
		if (this.worker != null) {
			this.worker.stop(Duration.ofSeconds(5));
		}
		this.service.close();
	}

	/** One claim of {@code leaseId}, then nothing. */
	private Map<String, Object> offerOneLease(Duration length) {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 1, length);
		offerLease(lease);
		return lease;
	}

	private Worker.Builder worker(ItemHandler handler) {
		return Worker.builder(WorkGraphClient.builder(this.service.url()).requestTimeout(Duration.ofSeconds(2)).build())
			.workerId("w")
			.queues("q")
			.waitSeconds(1)
			.handler(handler)
			.listener(this.events)
			.retryBackoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(200)));
	}

	@Test
	void renewalsThatFailForAWholeLeaseLengthStopTheHandlerAndNothingMoreIsSent() throws Exception {
		offerOneLease(Duration.ofMillis(1500));
		this.service.on("POST", "/leases/.*/renew", (request, answer) -> answer.problem(503, "service_unavailable",
				"down", Map.of(), Map.of("Retry-After", "0")));
		Handler handler = new Handler();
		this.worker = worker(handler).build().start();
		assertThat(handler.interrupted.await(5, TimeUnit.SECONDS)).as("handler interrupted").isTrue();
		long claimedAt = this.service.requests("POST", "/claims").get(0).arrivedAtNanos();
		long interruptedAfter = (handler.interruptedAt.get() - claimedAt) / MS;
		// The lease is taken as lost once a whole length (1.5 s) passed since the claim
		// was
		// sent, and not before.
		assertThat(interruptedAfter).isBetween(1_400L, 2_500L);
		assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.RENEWALS_FAILED);
		assertThat(handler.completeAfterLoss.get()).isInstanceOf(LeaseLost.class);
		assertThat(this.service.requests("POST", "/leases/.*/renew")).hasSizeGreaterThan(2);
		handler.finished.await(5, TimeUnit.SECONDS);
		Thread.sleep(300);
		assertThat(writesOtherThanRenewals()).isEmpty();
		assertThat(this.events.renewalFailures.get()).isPositive();
		assertThat(this.events.lost).singleElement()
			.satisfies((lost) -> assertThat(lost.reason()).isEqualTo(LeaseLost.Reason.RENEWALS_FAILED));
	}

	@Test
	void aRefusedRenewalInterruptsTheHandlerWithinOneRenewalInterval() throws Exception {
		offerOneLease(Duration.ofMillis(1500));
		this.service.on("POST", "/leases/.*/renew",
				(request, answer) -> answer.problem(409, "lease_ended", "cancelled by an operator",
						Map.of("leaseId", this.leaseId.toString(), "presentedEpoch", 1, "currentEpoch", 1), Map.of()));
		Handler handler = new Handler();
		this.worker = worker(handler).build().start();
		assertThat(handler.interrupted.await(5, TimeUnit.SECONDS)).isTrue();
		long claimedAt = this.service.requests("POST", "/claims").get(0).arrivedAtNanos();
		// The first renewal is due a third of the lease (500 ms) after the claim.
		assertThat((handler.interruptedAt.get() - claimedAt) / MS).isBetween(400L, 1_000L);
		assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.REFUSED);
		assertThat(handler.lost.get().getCause()).isInstanceOf(dev.workgraph.client.problem.LeaseEnded.class);
		handler.finished.await(5, TimeUnit.SECONDS);
		Thread.sleep(300);
		assertThat(this.service.requests("POST", "/leases/.*/renew")).hasSize(1);
		assertThat(writesOtherThanRenewals()).isEmpty();
	}

	@Test
	void renewalsKeepALeaseAliveByElapsedTime() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofMillis(900));
		this.service.on("POST", "/leases/.*/renew", (request, answer) -> answer.json(200, lease));
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "completed"), "completed")));
		this.worker = worker((context) -> {
			Thread.sleep(2_000);
			context.ensureHeld();
			return Map.of("done", true);
		}).build().start();
		awaitRequests("POST", "/leases/.*/complete", 1);
		List<Request> renewals = this.service.requests("POST", "/leases/.*/renew");
		// Every 300 ms (a third of the lease) through 2 s of work: about six renewals,
		// none
		// ever later than the lease allows.
		List<Long> gaps = new java.util.ArrayList<>();
		for (int i = 1; i < renewals.size(); i++) {
			gaps.add((renewals.get(i).arrivedAtNanos() - renewals.get(i - 1).arrivedAtNanos()) / MS);
		}
		assertThat(renewals).as("renewals %s ms apart", gaps).hasSizeBetween(4, 9);
		assertThat(gaps).as("ms between renewals").allSatisfy((gap) -> assertThat(gap).isLessThan(700L));
		assertThat(gaps.stream().mapToLong(Long::longValue).average().orElseThrow()).isBetween(200.0, 450.0);
		Request complete = this.service.requests("POST", "/leases/.*/complete").get(0);
		assertThat(complete.body().toString()).isEqualTo("{\"epoch\":1,\"result\":{\"done\":true}}");
		assertThat(this.events.ended).containsExactly(LeaseOutcome.COMPLETED);
	}

	@Test
	void aCompletionWhoseAnswerWasLostIsFoundInTheLeaseHistory() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		AtomicInteger completes = new AtomicInteger();
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> {
			if (completes.incrementAndGet() == 1) {
				answer.drop(); // carried out, but the answer never arrives
			}
			else {
				answer.problem(409, "lease_ended", "already completed",
						Map.of("leaseId", this.leaseId.toString(), "presentedEpoch", 1, "currentEpoch", 1), Map.of());
			}
		});
		this.service.on("GET", "/leases/.*",
				(request, answer) -> answer.json(200, FakeService.ended(lease, "completed")));
		this.service.on("GET", "/items/.*",
				(request, answer) -> answer.json(200, FakeService.item(this.itemId, "completed")));
		this.worker = worker((context) -> "the result").build().start();
		this.events.awaitEnded(5);
		assertThat(this.events.ended).containsExactly(LeaseOutcome.COMPLETED);
		assertThat(this.events.lost).isEmpty();
		assertThat(this.service.requests("POST", "/leases/.*/complete")).hasSize(2);
		assertThat(this.service.requests("GET", "/leases/" + this.leaseId)).hasSize(1);
	}

	@Test
	void aCompletionWhoseAnswerWasLostButThatDidNotLandIsALoss() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		AtomicInteger completes = new AtomicInteger();
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> {
			if (completes.incrementAndGet() == 1) {
				answer.drop();
			}
			else {
				answer.problem(409, "lease_ended", "cancelled",
						Map.of("leaseId", this.leaseId.toString(), "presentedEpoch", 1, "currentEpoch", 1), Map.of());
			}
		});
		// An operator cancelled the item in between: not our completion.
		this.service.on("GET", "/leases/.*",
				(request, answer) -> answer.json(200, FakeService.ended(lease, "cancelled")));
		this.worker = worker((context) -> "the result").build().start();
		this.events.awaitLost(5);
		assertThat(this.events.lost).singleElement()
			.satisfies((lost) -> assertThat(lost.reason()).isEqualTo(LeaseLost.Reason.REFUSED));
		assertThat(this.events.ended).isEmpty();
	}

	@Test
	void aRefusalThatIsNotAboutTheLeaseKeepsItHeldAndRenewed() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofMillis(900));
		this.service.on("POST", "/leases/.*/renew", (request, answer) -> answer.json(200, lease));
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.problem(409, "open_children", "children are open"));
		this.service.on("POST", "/leases/.*/release", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "released"), "ready")));
		AtomicReference<Throwable> refused = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		this.worker = worker((context) -> {
			try {
				context.complete("too early");
			}
			catch (OpenChildren ex) {
				refused.set(ex);
			}
			Thread.sleep(1_000); // still held: renewals go on
			context.release("children still open");
			done.countDown();
			return null;
		}).build().start();
		assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(refused.get()).isInstanceOf(OpenChildren.class);
		assertThat(this.service.requests("POST", "/leases/.*/renew")).hasSizeGreaterThanOrEqualTo(2);
		assertThat(this.events.ended).containsExactly(LeaseOutcome.RELEASED);
		assertThat(this.events.lost).isEmpty();
	}

	@Test
	void claimsBackOffHonouringRetryAfter() throws Exception {
		AtomicInteger claims = new AtomicInteger();
		this.service.on("POST", "/claims", (request, answer) -> {
			if (claims.incrementAndGet() <= 2) {
				answer.problem(503, "service_unavailable", "restarting", Map.of(), Map.of("Retry-After", "1"));
			}
			else {
				answer.hang(Duration.ofMillis(200));
				answer.empty(204);
			}
		});
		this.worker = worker((context) -> null).build().start();
		awaitRequests("POST", "/claims", 3);
		List<Request> requests = this.service.requests("POST", "/claims");
		for (int i = 1; i < 3; i++) {
			long gap = (requests.get(i).arrivedAtNanos() - requests.get(i - 1).arrivedAtNanos()) / MS;
			assertThat(gap).as("gap before claim %d", i + 1).isBetween(1_000L, 1_500L);
		}
		assertThat(this.events.claimFailures.get()).isEqualTo(2);
	}

	@Test
	void aServiceThatDoesNotKnowWaitSecondsIsPolledWithBackOff() throws Exception {
		this.service.on("POST", "/claims", (request, answer) -> {
			if (request.body().has("waitSeconds")) {
				answer.problem(422, "validation_failed", "unknown field",
						Map.of("errors", List.of(Map.of("field", "waitSeconds", "message", "is not a known field"))),
						Map.of());
			}
			else {
				answer.empty(204);
			}
		});
		this.worker = worker((context) -> null)
			.pollBackoff(Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(400)))
			.build()
			.start();
		Thread.sleep(2_000);
		List<Request> claims = this.service.requests("POST", "/claims");
		assertThat(claims.get(0).body().has("waitSeconds")).isTrue();
		assertThat(claims.subList(1, claims.size()))
			.allSatisfy((claim) -> assertThat(claim.body().has("waitSeconds")).isFalse());
		// Polling, but not busily: at most one claim per ~200 ms on average once backed
		// off.
		assertThat(claims).hasSizeBetween(3, 25);
		assertThat(this.events.longPollUnsupported.get()).isEqualTo(1);
	}

	@Test
	void stoppingCallsOffAWaitingClaimPromptly() throws Exception {
		this.service.on("POST", "/claims", (request, answer) -> answer.hang(Duration.ofSeconds(30)));
		this.worker = worker((context) -> null).waitSeconds(30).build().start();
		awaitRequests("POST", "/claims", 1);
		long started = System.nanoTime();
		this.worker.stop(Duration.ofSeconds(5));
		assertThat((System.nanoTime() - started) / MS).isLessThan(2_000L);
		assertThat(this.worker.isRunning()).isFalse();
	}

	@Test
	void stoppingInterruptsHandlersLeftAfterTheGraceAndReleasesTheirLeases() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		this.service.on("POST", "/leases/.*/release", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "released"), "ready")));
		Handler handler = new Handler();
		this.worker = worker(handler).build().start();
		assertThat(handler.started.await(5, TimeUnit.SECONDS)).isTrue();
		this.worker.stop(Duration.ofMillis(300));
		assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.WORKER_STOPPED);
		assertThat(handler.completeAfterLoss.get()).isInstanceOf(LeaseLost.class);
		List<Request> releases = this.service.requests("POST", "/leases/.*/release");
		assertThat(releases).singleElement()
			.satisfies((release) -> assertThat(release.body().toString())
				.isEqualTo("{\"epoch\":1,\"reason\":\"worker shutting down\"}"));
		assertThat(this.service.requests("POST", "/leases/.*/complete")).isEmpty();
	}

	@Test
	void aFailingHandlerReleasesTheItemAndTheThirdFailureInARowAsksAHuman() throws Exception {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 3, Duration.ofSeconds(30));
		offerLease(lease);
		// Two leases before this one were released after handler failures.
		this.service.on("GET", "/items/.*/leases", (request, answer) -> answer.json(200,
				Map.of("leases",
						List.of(released(FakeService.lease(UUID.randomUUID(), this.itemId, 1, Duration.ofSeconds(30)),
								"handler failed: IllegalStateException: boom"),
								released(FakeService.lease(UUID.randomUUID(), this.itemId, 2, Duration.ofSeconds(30)),
										"handler failed: IllegalStateException: boom"),
								lease))));
		this.service.on("POST", "/leases/.*/attention-requests",
				(request, answer) -> answer.json(201,
						Map.of("id", UUID.randomUUID().toString(), "itemId", this.itemId.toString(), "blocking", true,
								"question", request.body().path("question").asString(), "status", "open")));
		this.worker = worker((context) -> {
			throw new IllegalStateException("boom");
		}).build().start();
		this.events.awaitEnded(5);
		Request asked = this.service.requests("POST", "/leases/.*/attention-requests").get(0);
		assertThat(asked.body().path("blocking").asBoolean()).isTrue();
		assertThat(asked.body().path("question").asString()).contains("3 times in a row")
			.contains("IllegalStateException: boom");
		assertThat(asked.body().path("context").path("failuresInARow").asInt()).isEqualTo(3);
		assertThat(this.events.ended).containsExactly(LeaseOutcome.ATTENTION_REQUESTED);
		assertThat(this.events.handlerFailures.get()).isEqualTo(1);
	}

	@Test
	void aFirstFailureReleasesWithTheFailureAsTheReason() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		this.service.on("GET", "/items/.*/leases",
				(request, answer) -> answer.json(200, Map.of("leases", List.of(lease))));
		this.service.on("POST", "/leases/.*/release", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "released"), "ready")));
		this.worker = worker((context) -> {
			throw new IllegalStateException("boom");
		}).build().start();
		this.events.awaitEnded(5);
		assertThat(this.service.requests("POST", "/leases/.*/release")).singleElement()
			.satisfies((release) -> assertThat(release.body().path("reason").asString())
				.isEqualTo("handler failed: IllegalStateException: boom"));
	}

	@Test
	void afterALongPollClaimTheLeaseIsRenewedAtOnce() throws Exception {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 1, Duration.ofSeconds(3));
		AtomicInteger claims = new AtomicInteger();
		this.service.on("POST", "/claims", (request, answer) -> {
			answer.hang(Duration.ofMillis((claims.incrementAndGet() == 1) ? 1_500 : 200));
			if (claims.get() == 1) {
				answer.json(201, FakeService.claim(lease, "leased"));
			}
			else {
				answer.empty(204);
			}
		});
		this.service.on("POST", "/leases/.*/renew", (request, answer) -> answer.json(200, lease));
		CountDownLatch release = new CountDownLatch(1);
		this.worker = worker((context) -> {
			release.await(5, TimeUnit.SECONDS);
			return null;
		}).waitSeconds(5).build().start();
		awaitRequests("POST", "/leases/.*/renew", 1);
		long answeredAt = this.service.requests("POST", "/claims").get(0).arrivedAtNanos() + 1_500 * MS;
		long renewedAt = this.service.requests("POST", "/leases/.*/renew").get(0).arrivedAtNanos();
		// The claim waited 1.5 s at the service, longer than a third of the lease: its
		// send
		// time says nothing about when the lease began, so the runtime renews right away
		// rather than 1 s after the answer.
		assertThat((renewedAt - answeredAt) / MS).isLessThan(500L);
		release.countDown();
	}

	private void offerLease(Map<String, Object> lease) {
		AtomicInteger claims = new AtomicInteger();
		this.service.on("POST", "/claims", (request, answer) -> {
			if (claims.incrementAndGet() == 1) {
				answer.json(201, FakeService.claim(lease, "leased"));
			}
			else {
				answer.hang(Duration.ofMillis(200));
				answer.empty(204);
			}
		});
	}

	private static Map<String, Object> released(Map<String, Object> lease, String reason) {
		Map<String, Object> released = new java.util.LinkedHashMap<>(FakeService.ended(lease, "released"));
		released.put("reason", reason);
		return released;
	}

	private List<Request> writesOtherThanRenewals() {
		return this.service.requests()
			.stream()
			.filter((request) -> request.path().startsWith("/leases/") && !request.path().endsWith("/renew")
					&& request.method().equals("POST"))
			.toList();
	}

	private void awaitRequests(String method, String path, int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.service.requests(method, path).size() < count) {
			assertThat(System.nanoTime()).as("waited for %d × %s %s", count, method, path).isLessThan(deadline);
			Thread.sleep(10);
		}
	}

	/**
	 * Works until interrupted, then (wrongly) tries to complete anyway, as a careless
	 * handler would.
	 */
	private static final class Handler implements ItemHandler {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch interrupted = new CountDownLatch(1);

		final CountDownLatch finished = new CountDownLatch(1);

		final AtomicLong interruptedAt = new AtomicLong();

		final AtomicReference<LeaseLost> lost = new AtomicReference<>();

		final AtomicReference<Throwable> completeAfterLoss = new AtomicReference<>();

		@Override
		public Object handle(LeaseContext context) {
			this.started.countDown();
			try {
				Thread.sleep(30_000);
			}
			catch (InterruptedException ex) {
				this.interruptedAt.set(System.nanoTime());
				this.lost.set(context.whenLost().getNow(null));
				try {
					context.complete("finished anyway");
				}
				catch (RuntimeException refused) {
					this.completeAfterLoss.set(refused);
				}
				this.interrupted.countDown();
			}
			finally {
				this.finished.countDown();
			}
			return "a result nobody will see";
		}

	}

	/** What the listener heard. */
	private static final class Events implements WorkerListener {

		final ConcurrentLinkedQueue<LeaseOutcome> ended = new ConcurrentLinkedQueue<>();

		final ConcurrentLinkedQueue<LeaseLost> lost = new ConcurrentLinkedQueue<>();

		final AtomicInteger renewalFailures = new AtomicInteger();

		final AtomicInteger claimFailures = new AtomicInteger();

		final AtomicInteger handlerFailures = new AtomicInteger();

		final AtomicInteger longPollUnsupported = new AtomicInteger();

		@Override
		public void leaseEnded(LeaseContext lease, LeaseOutcome outcome) {
			this.ended.add(outcome);
		}

		@Override
		public void leaseLost(LeaseContext lease, LeaseLost reason) {
			this.lost.add(reason);
		}

		@Override
		public void renewalFailed(LeaseContext lease, WorkGraphException failure, Duration retryIn) {
			this.renewalFailures.incrementAndGet();
		}

		@Override
		public void claimFailed(WorkGraphException failure, Duration retryIn) {
			this.claimFailures.incrementAndGet();
		}

		@Override
		public void handlerFailed(LeaseContext lease, Throwable failure) {
			this.handlerFailures.incrementAndGet();
		}

		@Override
		public void longPollUnsupported() {
			this.longPollUnsupported.incrementAndGet();
		}

		void awaitEnded(int seconds) throws InterruptedException {
			await(() -> !this.ended.isEmpty(), seconds);
		}

		void awaitLost(int seconds) throws InterruptedException {
			await(() -> !this.lost.isEmpty(), seconds);
		}

		private static void await(java.util.function.BooleanSupplier condition, int seconds)
				throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
			while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
		}

	}

}
