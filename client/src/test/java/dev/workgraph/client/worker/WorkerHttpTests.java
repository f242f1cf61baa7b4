package dev.workgraph.client.worker;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.workgraph.client.FakeService;
import dev.workgraph.client.FakeService.Request;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.Forbidden;
import dev.workgraph.client.problem.OpenChildren;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.problem.WorkGraphException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

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
		long startedAt = System.nanoTime();
		this.worker = worker(handler).build().start();
		assertThat(handler.interrupted.await(5, TimeUnit.SECONDS)).as("handler interrupted").isTrue();
		long claimedAt = this.service.requests("POST", "/claims").get(0).arrivedAtNanos();
		// The lease is taken as lost once a whole length (1.5 s) passed since the claim
		// was sent, and not before. The claim was sent after the start and before it
		// arrived (a worker's first request may take a while on a cold JVM).
		assertThat((handler.interruptedAt.get() - startedAt) / MS).isGreaterThanOrEqualTo(1_500L);
		assertThat((handler.interruptedAt.get() - claimedAt) / MS).isLessThan(2_500L);
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
		assertThat(complete.body().toString())
			.isEqualTo("{\"epoch\":1,\"result\":{\"done\":true},\"claimNext\":{\"queues\":[\"q\"]}}");
		// The service has the request; its answer may still be on its way.
		this.events.awaitEnded(5);
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
				refuseUnknownField(answer, "waitSeconds");
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
		}).failurePolicy(FailurePolicy.releaseThenAskHuman(3)).build().start();
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
	void byDefaultAFailingHandlerFailsTheLeaseAndTheServicesRetryPolicyDecides() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		this.service.on("POST", "/leases/.*/fail", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "failed"), "blocked")));
		this.worker = worker((context) -> {
			throw new IllegalStateException("boom");
		}).build().start();
		this.events.awaitEnded(5);
		assertThat(this.service.requests("POST", "/leases/.*/fail")).singleElement().satisfies((fail) -> {
			assertThat(fail.body().path("retryable").asBoolean()).isTrue();
			assertThat(fail.body().path("error").path("exception").asString())
				.isEqualTo("java.lang.IllegalStateException");
			assertThat(fail.body().path("error").path("message").asString()).isEqualTo("boom");
		});
		assertThat(this.service.requests("POST", "/leases/.*/release")).isEmpty();
		assertThat(this.service.requests("GET", "/items/.*/leases")).as("no counting of its own").isEmpty();
	}

	@Test
	void aFirstFailureReleasesWithTheFailureAsTheReason() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		this.service.on("GET", "/items/.*/leases",
				(request, answer) -> answer.json(200, Map.of("leases", List.of(lease))));
		this.service.on("POST", "/leases/.*/release", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "released"), "ready")));
		try (RuntimeLog log = RuntimeLog.capture()) {
			this.worker = worker((context) -> {
				throw new IllegalStateException("boom");
			}).failurePolicy(FailurePolicy.releaseThenAskHuman(3)).build().start();
			this.events.awaitEnded(5);
			assertThat(log.mentioning("boom")).as("the failure, logged once with its exception")
				.singleElement()
				.satisfies((line) -> assertThat(line).startsWith("WARNING lease " + this.leaseId)
					.endsWith(": the handler failed | java.lang.IllegalStateException: boom"));
		}
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

	@Test
	void itemAfterItemTheCompletionClaimsTheNextWithoutAClaimRequest() throws Exception {
		Map<String, Object> first = offerOneLease(Duration.ofSeconds(30));
		UUID secondLeaseId = UUID.randomUUID();
		UUID secondItemId = UUID.randomUUID();
		// Short enough that the second item's handler outlives a renewal interval.
		Map<String, Object> second = FakeService.lease(secondLeaseId, secondItemId, 4, Duration.ofMillis(900));
		this.service.on("POST", "/leases/" + this.leaseId + "/complete",
				(request, answer) -> answer.json(200, completed(first, FakeService.claim(second, "leased"))));
		this.service.on("POST", "/leases/" + secondLeaseId + "/complete",
				(request, answer) -> answer.json(200, completed(second, null)));
		this.service.on("POST", "/leases/.*/renew", (request, answer) -> answer.json(200, second));
		List<UUID> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.worker = worker((context) -> {
			handled.add(context.item().id());
			if (context.leaseId().equals(secondLeaseId)) {
				Thread.sleep(700); // beyond a third of its 900 ms: renewed meanwhile
				context.ensureHeld();
			}
			return Map.of("n", handled.size());
		}).leaseSeconds(30).build().start();
		// Nothing came with the second completion: the claim loop claims again.
		awaitRequests("POST", "/claims", 2);
		assertThat(handled).containsExactly(this.itemId, secondItemId);
		List<Request> completes = this.service.requests("POST", "/leases/.*/complete");
		assertThat(completes).extracting((request) -> request.path() + " " + request.body())
			.containsExactly("/leases/" + this.leaseId
					+ "/complete {\"epoch\":1,\"result\":{\"n\":1},\"claimNext\":{\"queues\":[\"q\"],\"leaseSeconds\":30}}",
					"/leases/" + secondLeaseId
							+ "/complete {\"epoch\":4,\"result\":{\"n\":2},\"claimNext\":{\"queues\":[\"q\"],\"leaseSeconds\":30}}");
		List<Request> claims = this.service.requests("POST", "/claims");
		// The second item came without a claim request: the one after the first claim
		// went out only once the second completion brought nothing.
		assertThat(claims.get(1).arrivedAtNanos()).isGreaterThan(completes.get(1).arrivedAtNanos());
		assertThat(this.service.requests("POST", "/leases/" + secondLeaseId + "/renew")).isNotEmpty()
			.allSatisfy(
					(renewal) -> assertThat(renewal.body().toString()).isEqualTo("{\"epoch\":4,\"leaseSeconds\":30}"));
		assertThat(this.service.requests("POST", "/leases/" + this.leaseId + "/renew")).isEmpty();
		assertThat(this.events.claimed).containsExactly(this.leaseId, secondLeaseId);
		assertThat(this.events.ended).containsExactly(LeaseOutcome.COMPLETED, LeaseOutcome.COMPLETED);
		assertThat(this.events.lost).isEmpty();
		assertThat(this.worker.activeHandlers()).isZero();
	}

	@Test
	void whenNothingWasReadyWithTheCompletionAPollingWorkerBacksOffBeforeItsNextClaim() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		this.service.on("POST", "/claims", (request, answer) -> {
			if (this.service.requests("POST", "/claims").size() == 1) {
				answer.json(201, FakeService.claim(lease, "leased"));
			}
			else {
				answer.empty(204);
			}
		});
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.json(200, completed(lease, null)));
		this.worker = worker((context) -> "done").waitSeconds(0)
			.pollBackoff(Backoff.exponential(Duration.ofMillis(600), Duration.ofMillis(600)))
			.random(new Highest())
			.build()
			.start();
		awaitRequests("POST", "/claims", 2);
		long completedAt = this.service.requests("POST", "/leases/.*/complete").get(0).arrivedAtNanos();
		long claimedAgainAt = this.service.requests("POST", "/claims").get(1).arrivedAtNanos();
		// The empty claimNext counts as an empty poll: the pause comes before the next
		// claim, not after it.
		assertThat((claimedAgainAt - completedAt) / MS).isBetween(550L, 1_500L);
	}

	@Test
	void aClaimThatFailedWithTheCompletionFallsBackToTheClaimLoop() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		Map<String, Object> body = completed(lease, null);
		body.put("nextProblem", Map.of("type", "urn:workgraph:problem:service_unavailable", "status", 503, "detail",
				"database unavailable", "code", "service_unavailable"));
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.json(200, body));
		this.worker = worker((context) -> "done").build().start();
		awaitRequests("POST", "/claims", 2);
		long completedAt = this.service.requests("POST", "/leases/.*/complete").get(0).arrivedAtNanos();
		assertThat((this.service.requests("POST", "/claims").get(1).arrivedAtNanos() - completedAt) / MS)
			.isLessThan(500L);
		assertThat(this.events.ended).containsExactly(LeaseOutcome.COMPLETED);
		assertThat(this.events.claimFailures.get()).isEqualTo(1);
		assertThat(this.service.requests("POST", "/leases/.*/release")).isEmpty();
	}

	@Test
	void aServiceThatDoesNotKnowClaimNextGetsPlainCompletions() throws Exception {
		UUID secondLeaseId = UUID.randomUUID();
		Map<String, Object> first = FakeService.lease(this.leaseId, this.itemId, 1, Duration.ofSeconds(30));
		Map<String, Object> second = FakeService.lease(secondLeaseId, UUID.randomUUID(), 1, Duration.ofSeconds(30));
		AtomicInteger claims = new AtomicInteger();
		this.service.on("POST", "/claims", (request, answer) -> {
			switch (claims.incrementAndGet()) {
				case 1 -> answer.json(201, FakeService.claim(first, "leased"));
				case 2 -> answer.json(201, FakeService.claim(second, "leased"));
				default -> {
					answer.hang(Duration.ofMillis(200));
					answer.empty(204);
				}
			}
		});
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> {
			if (request.body().has("claimNext")) {
				refuseUnknownField(answer, "claimNext");
			}
			else {
				boolean firstLease = request.path().contains(this.leaseId.toString());
				answer.json(200,
						FakeService.claim(FakeService.ended(firstLease ? first : second, "completed"), "completed"));
			}
		});
		this.worker = worker((context) -> "done").build().start();
		this.events.await(() -> this.events.ended.size() == 2, 5);
		assertThat(this.service.requests("POST", "/leases/.*/complete"))
			.extracting((request) -> request.path() + " " + request.body().has("claimNext"))
			.containsExactly("/leases/" + this.leaseId + "/complete true",
					"/leases/" + this.leaseId + "/complete false", "/leases/" + secondLeaseId + "/complete false");
		assertThat(this.events.ended).containsExactly(LeaseOutcome.COMPLETED, LeaseOutcome.COMPLETED);
		assertThat(this.events.handlerFailures.get()).isZero();
		assertThat(this.service.requests("POST", "/leases/.*/release")).isEmpty();
	}

	@Test
	void aWorkerThatIsStoppingCompletesWithoutClaimNext() throws Exception {
		Map<String, Object> lease = offerOneLease(Duration.ofSeconds(30));
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "completed"), "completed")));
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		this.worker = worker((context) -> {
			started.countDown();
			finish.await(5, TimeUnit.SECONDS);
			return "finished within the grace period";
		}).build().start();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		Thread stopping = new Thread(() -> this.worker.stop(Duration.ofSeconds(5)));
		stopping.start();
		while (this.worker.isRunning()) {
			Thread.sleep(10);
		}
		Thread.sleep(100);
		finish.countDown();
		stopping.join(5_000);
		assertThat(this.service.requests("POST", "/leases/.*/complete")).singleElement()
			.satisfies((complete) -> assertThat(complete.body().toString())
				.isEqualTo("{\"epoch\":1,\"result\":\"finished within the grace period\"}"));
		assertThat(this.events.ended).containsExactly(LeaseOutcome.COMPLETED);
		assertThat(this.service.requests("POST", "/claims")).hasSize(1);
	}

	@Test
	void aNextClaimThatArrivesWhileStoppingIsReleased() throws Exception {
		Map<String, Object> first = offerOneLease(Duration.ofSeconds(30));
		UUID secondLeaseId = UUID.randomUUID();
		Map<String, Object> second = FakeService.lease(secondLeaseId, UUID.randomUUID(), 5, Duration.ofSeconds(30));
		CountDownLatch completing = new CountDownLatch(1);
		CountDownLatch stopRequested = new CountDownLatch(1);
		this.service.on("POST", "/leases/" + this.leaseId + "/complete", (request, answer) -> {
			completing.countDown();
			try {
				stopRequested.await(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			answer.json(200, completed(first, FakeService.claim(second, "leased")));
		});
		this.service.on("POST", "/leases/.*/release", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(second, "released"), "ready")));
		List<UUID> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.worker = worker((context) -> {
			handled.add(context.leaseId());
			return "done";
		}).build().start();
		assertThat(completing.await(5, TimeUnit.SECONDS)).isTrue();
		Thread stopping = new Thread(() -> this.worker.stop(Duration.ofSeconds(5)));
		stopping.start();
		while (this.worker.isRunning()) {
			Thread.sleep(10);
		}
		stopRequested.countDown();
		stopping.join(5_000);
		assertThat(stopping.isAlive()).isFalse();
		assertThat(handled).containsExactly(this.leaseId);
		assertThat(this.service.requests("POST", "/leases/" + secondLeaseId + "/release")).singleElement()
			.satisfies((release) -> assertThat(release.body().toString())
				.isEqualTo("{\"epoch\":5,\"reason\":\"worker shutting down\"}"));
		assertThat(this.service.requests("POST", "/leases/" + secondLeaseId + "/.*")).extracting(Request::path)
			.containsExactly("/leases/" + secondLeaseId + "/release");
		assertThat(this.events.claimed).containsExactly(this.leaseId);
	}

	@Test
	void aClaimRefusedForTheTokensRoleStopsTheWorkerWithOneErrorThatNamesTheFix() throws Exception {
		this.service.on("POST", "/claims",
				(request, answer) -> answer.problem(403, "forbidden", "This token's role may not POST /claims"));
		try (RuntimeLog log = RuntimeLog.capture()) {
			this.worker = worker((context) -> null).build();
			Worker worker = this.worker;
			assertThatExceptionOfType(TokenRefused.class)
				.isThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(10), worker::run))
				.satisfies((refused) -> {
					assertThat(refused.refusal()).isInstanceOf(Forbidden.class);
					assertThat(refused.getMessage())
						.startsWith("Worker w cannot go on: the service refused its token "
								+ "(403 forbidden: This token's role may not POST /claims).")
						.contains("POST /tokens {\"name\":\"w\",\"role\":\"worker\",\"workerId\":\"w\"}");
				});
			assertThat(worker.isRunning()).isFalse();
			assertThat(worker.whenStopped()).isCompletedExceptionally();
			assertThat(this.service.requests("POST", "/claims")).as("claims sent").hasSize(1);
			assertThat(this.events.claimFailures.get()).as("claim failures told as retried").isZero();
			assertThat(log.mentioning("may not POST /claims")).singleElement()
				.satisfies((line) -> assertThat(line).startsWith("SEVERE Worker w cannot go on"));
		}
	}

	@Test
	void aRenewalRefusedForARevokedTokenTakesTheLeaseAndStopsTheWorker() throws Exception {
		offerOneLease(Duration.ofMillis(1500));
		this.service.on("POST", "/leases/.*/renew",
				(request, answer) -> answer.problem(401, "unauthenticated", "the token was revoked"));
		Handler handler = new Handler();
		try (RuntimeLog log = RuntimeLog.capture()) {
			this.worker = worker(handler).build().start();
			assertThat(handler.interrupted.await(5, TimeUnit.SECONDS)).as("handler interrupted").isTrue();
			assertThat(this.worker.whenStopped()).failsWithin(Duration.ofSeconds(10))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(TokenRefused.class)
				.satisfies((refused) -> assertThat(((TokenRefused) refused).refusal())
					.isInstanceOf(Unauthenticated.class));
			assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.REFUSED);
			assertThat(handler.lost.get().getCause()).isInstanceOf(Unauthenticated.class);
			assertThat(handler.completeAfterLoss.get()).isInstanceOf(LeaseLost.class);
			assertThat(handler.finished.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(this.service.requests("POST", "/leases/.*/renew")).hasSize(1);
			assertThat(writesOtherThanRenewals()).isEmpty();
			assertThat(this.service.requests("POST", "/claims")).hasSize(1);
			// The listener hears of the loss last, after the handler's interrupt, on the
			// renewal's thread: the worker may have stopped by then.
			this.events.awaitLost(5);
			assertThat(this.events.lost).singleElement()
				.satisfies((lost) -> assertThat(lost.reason()).isEqualTo(LeaseLost.Reason.REFUSED));
			assertThat(log.mentioning("the token was revoked")).singleElement()
				.satisfies((line) -> assertThat(line).startsWith("SEVERE Worker w cannot go on"));
		}
	}

	@Test
	void aCompletionRefusedForTheTokenIsNeitherRetriedNorTurnedIntoARelease() throws Exception {
		offerOneLease(Duration.ofSeconds(30));
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.problem(401, "unauthenticated", "the token was revoked"));
		try (RuntimeLog log = RuntimeLog.capture()) {
			this.worker = worker((context) -> "done").build().start();
			assertThat(this.worker.whenStopped()).failsWithin(Duration.ofSeconds(10))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(TokenRefused.class);
			assertThat(this.service.requests("POST", "/leases/.*/complete")).hasSize(1);
			assertThat(this.service.requests("POST", "/leases/.*/release")).isEmpty();
			assertThat(this.events.lost).singleElement()
				.satisfies((lost) -> assertThat(lost.getCause()).isInstanceOf(Unauthenticated.class));
			assertThat(this.events.handlerFailures.get()).isZero();
			assertThat(this.events.ended).isEmpty();
			assertThat(log.mentioning("the token was revoked")).hasSize(1);
		}
	}

	/** The answer to a completion with {@code claimNext}. */
	private static Map<String, Object> completed(Map<String, Object> lease, Map<String, Object> next) {
		Map<String, Object> body = new java.util.LinkedHashMap<>(
				FakeService.claim(FakeService.ended(lease, "completed"), "completed"));
		body.put("next", next);
		return body;
	}

	/** Back-off at its ceiling every time, so that a pause can be measured. */
	private static final class Highest implements java.util.random.RandomGenerator {

		@Override
		public long nextLong() {
			return Long.MAX_VALUE;
		}

		@Override
		public long nextLong(long bound) {
			return bound - 1;
		}

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

		final ConcurrentLinkedQueue<UUID> claimed = new ConcurrentLinkedQueue<>();

		@Override
		public void claimed(LeaseContext lease) {
			this.claimed.add(lease.leaseId());
		}

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

		void await(java.util.function.BooleanSupplier condition, int seconds) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
			while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
		}

	}

	/** How a service that predates a request field refuses it. */
	private static void refuseUnknownField(FakeService.Answer answer, String field) throws IOException {
		answer.problem(422, "validation_failed", "unknown field",
				Map.of("errors", List.of(Map.of("field", field, "message", "is not a known field"))), Map.of());
	}

}
