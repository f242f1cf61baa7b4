package dev.workgraph.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.workgraph.client.problem.EpochMismatch;
import dev.workgraph.client.problem.LeaseExpired;
import dev.workgraph.client.problem.RateLimited;
import dev.workgraph.client.problem.RequestInterrupted;
import dev.workgraph.client.problem.ServiceUnavailable;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.UnexpectedResponse;
import dev.workgraph.client.problem.Unauthenticated;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The client's wire layer against a stand-in service: headers, status handling, problems,
 * {@code Retry-After}, and each way a request can fail before an answer.
 */
class WorkGraphClientHttpTests {

	private final FakeService service = new FakeService();

	private final UUID leaseId = UUID.randomUUID();

	private final UUID itemId = UUID.randomUUID();

	@AfterEach
	void stop() {
		this.service.close();
	}

	private WorkGraphClient client() {
		return WorkGraphClient.builder(this.service.url()).token("t0ken").requestTimeout(Duration.ofSeconds(5)).build();
	}

	@Test
	void everyRequestCarriesTheBearerTokenAndAsksForJson() {
		this.service.on("GET", "/items/.*",
				(request, answer) -> answer.json(200, FakeService.item(this.itemId, "ready")));
		this.service.on("POST", "/items",
				(request, answer) -> answer.json(201, FakeService.item(this.itemId, "ready")));
		WorkGraphClient client = client();
		client.getItem(this.itemId);
		client.createItem(NewItem.titled("x"), "key-1");
		assertThat(this.service.requests()).hasSize(2).allSatisfy((request) -> {
			assertThat(request.header("Authorization")).isEqualTo("Bearer t0ken");
			assertThat(request.header("Accept")).contains("application/json").contains("application/problem+json");
			assertThat(request.header("User-Agent")).startsWith("work-graph-client");
		});
		FakeService.Request created = this.service.requests("POST", "/items").get(0);
		assertThat(created.header("Idempotency-Key")).isEqualTo("key-1");
		assertThat(created.header("Content-Type")).isEqualTo("application/json");
		assertThat(created.body().toString()).isEqualTo("{\"title\":\"x\"}");
		assertThat(client.toString()).doesNotContain("t0ken");
	}

	@Test
	void aTokenSupplierIsAskedForEveryRequest() {
		this.service.on("GET", "/leases/.*", (request, answer) -> answer.json(200,
				FakeService.lease(this.leaseId, this.itemId, 1, Duration.ofSeconds(60))));
		String[] tokens = { "first", "second" };
		int[] calls = { 0 };
		WorkGraphClient client = WorkGraphClient.builder(this.service.url()).token(() -> tokens[calls[0]++]).build();
		client.getLease(this.leaseId);
		client.getLease(this.leaseId);
		assertThat(this.service.requests()).extracting((request) -> request.header("Authorization"))
			.containsExactly("Bearer first", "Bearer second");
	}

	@Test
	void aBasePathIsKept() {
		this.service.on("GET", "/wg/items/.*",
				(request, answer) -> answer.json(200, FakeService.item(this.itemId, "ready")));
		WorkGraphClient.create(this.service.url() + "/wg/").getItem(this.itemId);
		assertThat(this.service.requests()).singleElement()
			.satisfies((request) -> assertThat(request.path()).isEqualTo("/wg/items/" + this.itemId));
	}

	@Test
	void nothingReadyIsAnEmptyClaimAndTheWaitIsSentOnlyWhenAsked() {
		this.service.on("POST", "/claims(/batch)?", (request, answer) -> answer.empty(204));
		WorkGraphClient client = client();
		assertThat(client.claim(ClaimRequest.forWorker("w").withQueues("q"))).isEmpty();
		assertThat(client.claim(ClaimRequest.forWorker("w").withWaitSeconds(1))).isEmpty();
		assertThat(this.service.requests()).extracting((request) -> request.body().toString())
			.containsExactly("{\"workerId\":\"w\",\"queues\":[\"q\"]}", "{\"workerId\":\"w\",\"waitSeconds\":1}");
		assertThat(client.claimBatch(BatchClaimRequest.forWorker("w", 10))).isEmpty();
	}

	@Test
	void aLongPollMayTakeItsWaitLongerThanTheRequestTimeout() {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 1, Duration.ofSeconds(60));
		this.service.on("POST", "/claims", (request, answer) -> {
			answer.hang(Duration.ofMillis(1500));
			answer.json(201, FakeService.claim(lease, "leased"));
		});
		WorkGraphClient client = WorkGraphClient.builder(this.service.url())
			.requestTimeout(Duration.ofSeconds(1))
			.build();
		Optional<Claim> claim = client.claim(ClaimRequest.forWorker("w").withWaitSeconds(2));
		assertThat(claim).hasValueSatisfying((granted) -> assertThat(granted.lease().id()).isEqualTo(this.leaseId));
	}

	@Test
	void leaseWritesCarryTheEpochAndOnlyTheFieldsGiven() {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 7, Duration.ofSeconds(60));
		this.service.on("POST", "/leases/.*/renew", (request, answer) -> answer.json(200, lease));
		this.service.on("POST", "/leases/.*/(complete|release|cancel)", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "completed"), "completed")));
		WorkGraphClient client = client();
		LeaseRef ref = LeaseRef.of(this.leaseId, 7);
		assertThat(client.renew(ref, null).epoch()).isEqualTo(7);
		client.renew(ref, 30);
		client.complete(ref, Map.of("ok", true));
		client.complete(ref, null);
		client.release(ref, "not mine");
		client.cancel(ref, null);
		assertThat(this.service.requests()).extracting((request) -> request.path() + " " + request.body())
			.containsExactly("/leases/" + this.leaseId + "/renew {\"epoch\":7}",
					"/leases/" + this.leaseId + "/renew {\"epoch\":7,\"leaseSeconds\":30}",
					"/leases/" + this.leaseId + "/complete {\"epoch\":7,\"result\":{\"ok\":true}}",
					"/leases/" + this.leaseId + "/complete {\"epoch\":7}",
					"/leases/" + this.leaseId + "/release {\"epoch\":7,\"reason\":\"not mine\"}",
					"/leases/" + this.leaseId + "/cancel {\"epoch\":7}");
	}

	@Test
	void aCompletionAsksForTheNextItemWithOnlyTheFieldsGiven() {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 7, Duration.ofSeconds(60));
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.json(200, withNext(FakeService.ended(lease, "completed"), null)));
		WorkGraphClient client = client();
		LeaseRef ref = LeaseRef.of(this.leaseId, 7);
		client.completeAndClaimNext(ref, Map.of("ok", true), NextClaim.fromAnyQueue());
		client.completeAndClaimNext(ref, null, NextClaim.fromAnyQueue().withQueues("a", "b").withLeaseSeconds(60));
		client.completeAndClaimNext(ref, "done",
				NextClaim.like(ClaimRequest.forWorker("w").withQueues("q").withWaitSeconds(30)));
		client.complete(ref, "done");
		assertThat(this.service.requests()).extracting((request) -> request.path() + " " + request.body())
			.containsExactly(
					"/leases/" + this.leaseId + "/complete {\"epoch\":7,\"result\":{\"ok\":true},\"claimNext\":{}}",
					"/leases/" + this.leaseId
							+ "/complete {\"epoch\":7,\"claimNext\":{\"queues\":[\"a\",\"b\"],\"leaseSeconds\":60}}",
					"/leases/" + this.leaseId
							+ "/complete {\"epoch\":7,\"result\":\"done\",\"claimNext\":{\"queues\":[\"q\"]}}",
					"/leases/" + this.leaseId + "/complete {\"epoch\":7,\"result\":\"done\"}");
		assertThatExceptionOfType(NullPointerException.class)
			.isThrownBy(() -> client.completeAndClaimNext(ref, null, null));
	}

	@Test
	void aCompletionAnswersWithTheNextClaim() {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 7, Duration.ofSeconds(60));
		UUID nextLeaseId = UUID.randomUUID();
		UUID nextItemId = UUID.randomUUID();
		Map<String, Object> next = FakeService
			.claim(FakeService.lease(nextLeaseId, nextItemId, 2, Duration.ofSeconds(60)), "leased");
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.json(200, withNext(FakeService.ended(lease, "completed"), next)));
		CompletedWithNext completed = client().completeAndClaimNext(LeaseRef.of(this.leaseId, 7), "done",
				NextClaim.fromAnyQueue());
		assertThat(completed.lease().id()).isEqualTo(this.leaseId);
		assertThat(completed.lease().outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(completed.item().status()).isEqualTo(ItemStatus.COMPLETED);
		assertThat(completed.ended()).isEqualTo(new EndedLease(completed.lease(), completed.item()));
		assertThat(completed.next()).hasValueSatisfying((claim) -> {
			assertThat(claim.lease().id()).isEqualTo(nextLeaseId);
			assertThat(claim.lease().epoch()).isEqualTo(2);
			assertThat(claim.lease().grantedLength()).isEqualTo(Duration.ofSeconds(60));
			assertThat(claim.item().id()).isEqualTo(nextItemId);
			assertThat(claim.item().status()).isEqualTo(ItemStatus.LEASED);
		});
		assertThat(completed.nextProblem()).isNull();
		assertThat(completed.nextFailure()).isNull();
	}

	@Test
	void aCompletionWithNothingReadyNextHasNoNextClaim() {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 7, Duration.ofSeconds(60));
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.json(200, withNext(FakeService.ended(lease, "completed"), null)));
		CompletedWithNext completed = client().completeAndClaimNext(LeaseRef.of(this.leaseId, 7), null,
				NextClaim.fromAnyQueue());
		assertThat(completed.lease().outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(completed.next()).isEmpty();
		assertThat(completed.nextProblem()).isNull();
		// A service that ignored claimNext answers without "next": nothing was claimed
		// either.
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.json(200,
				FakeService.claim(FakeService.ended(lease, "completed"), "completed")));
		assertThat(client().completeAndClaimNext(LeaseRef.of(this.leaseId, 7), null, NextClaim.fromAnyQueue()).next())
			.isEmpty();
	}

	@Test
	void aClaimThatFailedAfterTheCompletionComesAsNextProblem() {
		Map<String, Object> lease = FakeService.lease(this.leaseId, this.itemId, 7, Duration.ofSeconds(60));
		Map<String, Object> body = withNext(FakeService.ended(lease, "completed"), null);
		body.put("nextProblem",
				Map.of("type", "urn:workgraph:problem:service_unavailable", "title", "Service unavailable", "status",
						503, "detail", "the database is unavailable", "code", "service_unavailable",
						"retryAfterSeconds", 2));
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.json(200, body));
		CompletedWithNext completed = client().completeAndClaimNext(LeaseRef.of(this.leaseId, 7), null,
				NextClaim.fromAnyQueue());
		assertThat(completed.lease().outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(completed.next()).isEmpty();
		assertThat(completed.nextProblem()).satisfies((problem) -> {
			assertThat(problem.status()).isEqualTo(503);
			assertThat(problem.code()).isEqualTo("service_unavailable");
			assertThat(problem.detail()).isEqualTo("the database is unavailable");
			assertThat(problem.property("retryAfterSeconds").asInt()).isEqualTo(2);
		});
		assertThat(completed.nextFailure()).isInstanceOf(ServiceUnavailable.class)
			.satisfies((failure) -> assertThat(failure.isTransient()).isTrue());
	}

	@Test
	void aRefusedCompletionWithClaimNextThrowsAsAlways() {
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.problem(409, "epoch_mismatch", "superseded",
						Map.of("leaseId", this.leaseId.toString(), "presentedEpoch", 1, "currentEpoch", 2), Map.of()));
		assertThatExceptionOfType(EpochMismatch.class).isThrownBy(() -> client()
			.completeAndClaimNext(LeaseRef.of(this.leaseId, 1), null, NextClaim.fromAnyQueue().withQueues("q")));
	}

	private static Map<String, Object> withNext(Map<String, Object> lease, Map<String, Object> next) {
		Map<String, Object> body = new LinkedHashMap<>(FakeService.claim(lease, "completed"));
		body.put("next", next);
		return body;
	}

	@Test
	void aProblemBecomesItsExceptionWithItsMembers() {
		this.service.on("POST", "/leases/.*/complete",
				(request, answer) -> answer.problem(409, "lease_expired", "Lease expired",
						Map.of("leaseId", this.leaseId.toString(), "presentedEpoch", 1, "currentEpoch", 2), Map.of()));
		assertThatExceptionOfType(LeaseExpired.class)
			.isThrownBy(() -> client().complete(LeaseRef.of(this.leaseId, 1), null))
			.satisfies((expired) -> {
				assertThat(expired.currentEpoch()).isEqualTo(2);
				assertThat(expired.leaseId()).isEqualTo(this.leaseId);
				// Thrown in the caller's thread, with the caller's stack.
				assertThat(expired.getStackTrace()).anySatisfy((frame) -> assertThat(frame.getClassName())
					.isEqualTo(WorkGraphClientHttpTests.class.getName()));
			});
	}

	@Test
	void unavailableAnswersCarryRetryAfterInSecondsOrAsADate() {
		this.service.on("GET", "/items/.*", (request, answer) -> answer.problem(503, "service_unavailable",
				"restarting", Map.of(), Map.of("Retry-After", "2")));
		String date = DateTimeFormatter.RFC_1123_DATE_TIME
			.format(Instant.parse("2026-11-30T12:00:09Z").atOffset(ZoneOffset.UTC));
		this.service.on("GET", "/leases/.*", (request, answer) -> answer.problem(429, "rate_limited", "slow down",
				Map.of(), Map.of("Retry-After", date)));
		WorkGraphClient client = WorkGraphClient.builder(this.service.url())
			.clock(java.time.Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC))
			.build();
		assertThatExceptionOfType(ServiceUnavailable.class).isThrownBy(() -> client.getItem(this.itemId))
			.satisfies((unavailable) -> {
				assertThat(unavailable.retryAfter()).contains(Duration.ofSeconds(2));
				assertThat(unavailable.isTransient()).isTrue();
			});
		assertThatExceptionOfType(RateLimited.class).isThrownBy(() -> client.getLease(this.leaseId))
			.satisfies((limited) -> assertThat(limited.retryAfter()).contains(Duration.ofSeconds(9)));
	}

	@Test
	void aProxysPageIsMappedByItsStatus() {
		this.service.on("GET", "/items/.*",
				(request, answer) -> answer.text(502, "text/html", "<html><body>Bad Gateway</body></html>"));
		this.service.on("GET", "/leases/.*", (request, answer) -> answer.text(401, "text/plain", "who are you"));
		assertThatExceptionOfType(ServiceUnavailable.class).isThrownBy(() -> client().getItem(this.itemId))
			.withMessageContaining("502")
			.withMessageContaining("Bad Gateway");
		assertThatExceptionOfType(Unauthenticated.class).isThrownBy(() -> client().getLease(this.leaseId));
	}

	@Test
	void aSuccessThatIsNotTheJsonExpectedIsAnUnexpectedResponse() {
		this.service.on("GET", "/items/.*", (request, answer) -> answer.text(200, "text/html", "<html>hello</html>"));
		assertThatExceptionOfType(UnexpectedResponse.class).isThrownBy(() -> client().getItem(this.itemId))
			.satisfies((unexpected) -> assertThat(unexpected.status()).isEqualTo(200));
	}

	@Test
	void aRefusedConnectionCertainlyDidNothing() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closedPort = socket.getLocalPort();
		}
		WorkGraphClient client = WorkGraphClient.create("http://127.0.0.1:" + closedPort);
		assertThatExceptionOfType(ServiceUnreachable.class)
			.isThrownBy(() -> client.complete(LeaseRef.of(this.leaseId, 1), null))
			.satisfies((unreachable) -> {
				assertThat(unreachable.requestMayHaveBeenProcessed()).isFalse();
				assertThat(unreachable.isTransient()).isTrue();
			});
	}

	@Test
	void aConnectionLostAfterTheRequestWentOutMayHaveDoneIt() {
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.drop());
		assertThatExceptionOfType(ServiceUnreachable.class)
			.isThrownBy(() -> client().complete(LeaseRef.of(this.leaseId, 1), null))
			.satisfies((unreachable) -> {
				assertThat(unreachable.requestMayHaveBeenProcessed()).isTrue();
				assertThat(unreachable.timedOut()).isFalse();
			});
		assertThat(this.service.requests("POST", "/leases/.*/complete")).hasSize(1);
	}

	@Test
	void aTimeoutMayHaveDoneIt() {
		this.service.on("POST", "/leases/.*/complete", (request, answer) -> answer.hang(Duration.ofSeconds(3)));
		WorkGraphClient client = WorkGraphClient.builder(this.service.url())
			.requestTimeout(Duration.ofMillis(300))
			.build();
		assertThatExceptionOfType(ServiceUnreachable.class)
			.isThrownBy(() -> client.complete(LeaseRef.of(this.leaseId, 1), null))
			.satisfies((unreachable) -> {
				assertThat(unreachable.timedOut()).isTrue();
				assertThat(unreachable.requestMayHaveBeenProcessed()).isTrue();
			});
	}

	@Test
	void anInterruptedCallerGetsRequestInterruptedWithTheFlagSet() throws Exception {
		this.service.on("GET", "/items/.*", (request, answer) -> answer.hang(Duration.ofSeconds(5)));
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		AtomicReference<Boolean> flag = new AtomicReference<>();
		Thread caller = new Thread(() -> {
			try {
				client().getItem(this.itemId);
			}
			catch (RuntimeException ex) {
				thrown.set(ex);
				flag.set(Thread.currentThread().isInterrupted());
			}
		});
		caller.start();
		awaitRequests(1);
		caller.interrupt();
		caller.join(2_000);
		assertThat(thrown.get()).isInstanceOf(RequestInterrupted.class);
		assertThat(flag.get()).isTrue();
	}

	@Test
	void cancellingAClaimClosesItsConnection() throws Exception {
		// A raw socket server: it sees the client hang up while the claim waits.
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			CountDownLatch requestRead = new CountDownLatch(1);
			CompletableFuture<Long> hungUpAfter = CompletableFuture.supplyAsync(() -> {
				try (Socket socket = server.accept()) {
					InputStream in = socket.getInputStream();
					readHeaders(in);
					requestRead.countDown();
					long started = System.nanoTime();
					socket.setSoTimeout(10_000);
					while (in.read() >= 0) {
						// a body, if any; then end of stream when the client closes
					}
					return (System.nanoTime() - started) / 1_000_000;
				}
				catch (IOException ex) {
					return -1L;
				}
			});
			WorkGraphClient client = WorkGraphClient.create("http://127.0.0.1:" + server.getLocalPort());
			CompletableFuture<Optional<Claim>> claim = client
				.claimAsync(ClaimRequest.forWorker("w").withWaitSeconds(30));
			assertThat(requestRead.await(5, TimeUnit.SECONDS)).isTrue();
			Thread.sleep(200);
			claim.cancel(true);
			assertThat(hungUpAfter.get(5, TimeUnit.SECONDS)).as("ms until the connection closed").isBetween(0L, 3_000L);
		}
	}

	@Test
	void listsFollowTheirCursors() {
		this.service.on("GET", "/items", (request, answer) -> {
			String query = String.valueOf(request.query());
			if (query.contains("cursor=c2")) {
				answer.json(200, Map.of("items", List.of(FakeService.item(UUID.randomUUID(), "ready"))));
			}
			else {
				answer.json(200, Map.of("items", List.of(FakeService.item(UUID.randomUUID(), "ready"),
						FakeService.item(UUID.randomUUID(), "ready")), "nextCursor", "c2"));
			}
		});
		List<Item> items = client().items(ItemQuery.all().withStatus(ItemStatus.READY).withQueue("a b")).toList();
		assertThat(items).hasSize(3);
		assertThat(this.service.requests()).extracting(FakeService.Request::query)
			.containsExactly("status=ready&queue=a+b", "status=ready&queue=a+b&cursor=c2");
	}

	@Test
	void tokensAreManaged() {
		UUID tokenId = UUID.randomUUID();
		this.service.on("POST", "/tokens",
				(request, answer) -> answer.json(201, Map.of("id", tokenId.toString(), "name", "agent", "role",
						"worker", "workerId", "agent-7", "token", "s3cret", "createdAt", "2026-11-30T12:00:00Z")));
		this.service.on("GET", "/tokens", (request, answer) -> answer.json(200,
				Map.of("tokens", List.of(Map.of("id", tokenId.toString(), "name", "agent", "role", "worker")))));
		this.service.on("DELETE", "/tokens/.*", (request, answer) -> answer.empty(204));
		WorkGraphClient client = client();
		IssuedToken issued = client.createToken(NewToken.worker("agent", "agent-7"));
		assertThat(issued.token()).isEqualTo("s3cret");
		assertThat(client.listTokens()).singleElement()
			.satisfies((token) -> assertThat(token.role()).isEqualTo(TokenRole.WORKER));
		client.revokeToken(tokenId);
		assertThat(FakeService.paths(this.service.requests())).containsExactly("POST /tokens", "GET /tokens",
				"DELETE /tokens/" + tokenId);
	}

	private void awaitRequests(int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (this.service.requests().size() < count && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
	}

	private static void readHeaders(InputStream in) throws IOException {
		StringBuilder head = new StringBuilder();
		while (!head.toString().endsWith("\r\n\r\n")) {
			int next = in.read();
			if (next < 0) {
				return;
			}
			head.append((char) next);
		}
		String text = head.toString().toLowerCase(java.util.Locale.ROOT);
		int at = text.indexOf("content-length:");
		if (at >= 0) {
			int length = Integer.parseInt(text.substring(at + 15, text.indexOf("\r\n", at)).strip());
			in.readNBytes(length);
		}
		assertThat(head.toString().getBytes(StandardCharsets.ISO_8859_1)).isNotEmpty();
	}

}
