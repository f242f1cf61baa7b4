package dev.workgraph.webhook;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Webhooks against a real receiver on 127.0.0.1 that fails, times out, redirects and
 * recovers: every change arrives, at least once, in seq order, signed so that the
 * standard's reference verifier accepts it. Timeouts and retries are short here.
 */
class WebhookDeliveryTests extends ServiceTest {

	private static final Duration PROMPTLY = Duration.ofSeconds(20);

	private final JsonMapper json = JsonMapper.builder().build();

	private Receiver receiver;

	@Autowired
	private Webhooks webhooks;

	@BeforeEach
	void startReceiver() throws Exception {
		this.receiver = new Receiver();
	}

	@AfterEach
	void stopReceiver() {
		this.receiver.close();
	}

	@Test
	void everyChangeArrivesInSeqOrderThroughFailuresTimeoutsAndRecovery() throws Exception {
		this.receiver
			.then(Receiver.ok(), Receiver.status(500), Receiver.ok(), Receiver.hang(Duration.ofSeconds(2)),
					Receiver.status(503), Receiver.status(429), Receiver.ok())
			.otherwise((n) -> (n % 7 == 3) ? Receiver.status(502)
					: (n % 11 == 5) ? Receiver.hang(Duration.ofSeconds(1)) : Receiver.ok());
		JsonNode webhook = create(Map.of("url", this.receiver.url("/hook")));
		long from = webhook.path("lastSeq").asLong();
		for (int i = 0; i < 15; i++) {
			createItem("delivered " + i, "queue", "hooks");
		}
		List<Long> expected = publishedAfter(from, 30);
		Eventually.until("every change accepted", Duration.ofSeconds(60), Duration.ofMillis(50),
				() -> this.receiver.accepted().size() >= expected.size());
		assertThat(seqs(this.receiver.accepted())).as("accepted, in order, none twice").isEqualTo(expected);
		// Attempts never go back: a change is retried until accepted before the next is
		// sent.
		List<Long> attempted = seqs(this.receiver.received());
		assertThat(attempted).isSorted();
		assertThat(attempted.size()).isGreaterThan(expected.size());
		Eventually.until("the log records the last delivery", PROMPTLY, Duration.ofMillis(50),
				() -> webhook(webhook).path("lastSeq").asLong() == expected.getLast());
		JsonNode view = webhook(webhook);
		assertThat(view.path("status").asString()).isEqualTo("active");
		assertThat(view.has("secret")).isFalse();
		JsonNode log = this.api.get("/webhooks/" + webhook.path("id").asString() + "/deliveries?limit=500").body();
		assertThat(log.path("deliveries").size()).isEqualTo(attempted.size());
		JsonNode failed = null;
		for (JsonNode delivery : log.path("deliveries")) {
			if (delivery.path("outcome").asString().equals("failed")) {
				failed = delivery;
			}
		}
		// The oldest failure: the 500, at the first attempt of the second change.
		assertThat(failed).isNotNull();
		assertThat(failed.path("status").asInt()).isEqualTo(500);
		assertThat(failed.path("attempt").asInt()).isEqualTo(1);
		assertThat(log.path("deliveries").toString()).contains("no answer within 700 ms").contains("answered 503");
	}

	@Test
	void signaturesAreAcceptedByTheStandardsReferenceVerifierAndOurOwnCheck() throws Exception {
		JsonNode webhook = create(Map.of("url", this.receiver.url("/signed"), "types", List.of("item.created")));
		String secret = webhook.path("secret").asString();
		assertThat(secret).startsWith("whsec_");
		UUID item = createItem("signed", "queue", "hooks");
		Eventually.until("delivered", PROMPTLY, Duration.ofMillis(50), () -> this.receiver.accepted().size() == 1);
		Receiver.Received message = this.receiver.accepted().getFirst();
		assertThat(message.id())
			.isEqualTo("msg_" + webhook.path("id").asString() + "_" + seqs(List.of(message)).getFirst());
		assertThat(Long.parseLong(message.timestamp())).isCloseTo(System.currentTimeMillis() / 1000,
				org.assertj.core.data.Offset.offset(60L));
		assertThat(message.signature()).isEqualTo(WebhookSecrets.sign(secret, message.id(),
				Long.parseLong(message.timestamp()), message.body().getBytes(StandardCharsets.UTF_8)));
		JsonNode body = this.json.readTree(message.body());
		assertThat(body.path("type").asString()).isEqualTo("item.created");
		assertThat(body.path("timestamp").asString()).isNotBlank();
		assertThat(body.path("data").path("itemId").asString()).isEqualTo(item.toString());
		assertThat(body.path("data").path("data").path("title").asString()).isEqualTo("signed");

		StandardWebhooksVerifier verifier = StandardWebhooksVerifier.installed();
		Receiver.Received tampered = new Receiver.Received(message.path(), message.id(), message.timestamp(),
				message.signature(), message.body().replace("signed", "forged"), true);
		assertThat(verifier.verify(secret, List.of(message, tampered))).hasSize(2).first().isEqualTo("verified");
		assertThat(verifier.verify(secret, List.of(tampered)).getFirst()).startsWith("refused");
	}

	@Test
	void aSecretGivenIsUsedAndTheTypesFilterSkipsTheRest() throws Exception {
		String secret = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]);
		JsonNode webhook = create(
				Map.of("url", this.receiver.url("/ready"), "types", List.of("item.ready"), "secret", secret));
		assertThat(webhook.path("secret").asString()).isEqualTo(secret);
		for (int i = 0; i < 3; i++) {
			createItem("filtered " + i, "queue", "hooks");
		}
		Eventually.until("delivered", PROMPTLY, Duration.ofMillis(50), () -> this.receiver.accepted().size() == 3);
		for (Receiver.Received message : this.receiver.accepted()) {
			assertThat(this.json.readTree(message.body()).path("type").asString()).isEqualTo("item.ready");
			assertThat(StandardWebhooksVerifier.installed().verify(secret, List.of(message)))
				.containsExactly("verified");
		}
		// Every change up to the head is handled, the unwanted ones passed over.
		long head = this.jdbc.sql("select last_seq from change_counter").query(Long.class).single();
		Eventually.until("passed over", PROMPTLY, Duration.ofMillis(50),
				() -> webhook(webhook).path("lastSeq").asLong() == head);
	}

	@Test
	void redirectsAreFollowedOnTheSameHostOnly() throws Exception {
		try (Receiver elsewhere = new Receiver()) {
			this.receiver
				.then(Receiver.redirect(307, "/moved"), Receiver.ok(),
						Receiver.redirect(307, "http://localhost:" + elsewhere.port() + "/stolen"),
						Receiver.redirect(302, "/found"))
				.otherwise((n) -> Receiver.ok());
			JsonNode webhook = create(Map.of("url", this.receiver.url("/hook"), "types", List.of("item.created")));
			createItem("first", "queue", "hooks");
			createItem("second", "queue", "hooks");
			Eventually.until("both delivered", PROMPTLY, Duration.ofMillis(50),
					() -> this.receiver.accepted().size() == 2);
			assertThat(this.receiver.received().stream().map(Receiver.Received::path).toList()).containsExactly("/hook",
					"/moved", "/hook", "/hook", "/hook");
			assertThat(elsewhere.received()).as("another host").isEmpty();
			String log = this.api.get("/webhooks/" + webhook.path("id").asString() + "/deliveries").body().toString();
			assertThat(log).contains("redirected to http://localhost:" + elsewhere.port())
				.contains("answered 302 (redirects are followed only when they keep the POST");
		}
	}

	@Test
	void aTargetThatKeepsFailingIsDisabledWithTheReason() throws Exception {
		this.receiver.otherwise((n) -> Receiver.status(500));
		JsonNode webhook = create(Map.of("url", this.receiver.url("/down")));
		createItem("never delivered", "queue", "hooks");
		Eventually.until("failing", PROMPTLY, Duration.ofMillis(50),
				() -> webhook(webhook).path("status").asString().equals("failing"));
		// As if it had failed since the day before yesterday: the next failure gives up.
		this.jdbc.sql("update webhooks set failing_since = now() - interval '2 days' where id = :id")
			.param("id", UUID.fromString(webhook.path("id").asString()))
			.update();
		Eventually.until("disabled", PROMPTLY, Duration.ofMillis(50),
				() -> webhook(webhook).path("status").asString().equals("disabled"));
		JsonNode view = webhook(webhook);
		assertThat(view.path("disabledReason").asString()).contains("every attempt failed since")
			.contains("answered 500");
		assertThat(view.path("disabledAt").asString()).isNotBlank();
		int attempts = this.receiver.received().size();
		createItem("after disabling", "queue", "hooks");
		Thread.sleep(500);
		assertThat(this.receiver.received()).as("nothing more is sent").hasSize(attempts);
	}

	@Test
	void aDeletedWebhookIsSentNothingMore() throws Exception {
		JsonNode webhook = create(Map.of("url", this.receiver.url("/gone")));
		String id = webhook.path("id").asString();
		assertThat(this.api.delete("/webhooks/" + id).status()).isEqualTo(204);
		createItem("after deleting", "queue", "hooks");
		Thread.sleep(500);
		assertThat(this.receiver.received()).isEmpty();
		assertThat(this.api.delete("/webhooks/" + id).code()).isEqualTo("not_found");
		assertThat(this.api.get("/webhooks/" + id + "/deliveries").code()).isEqualTo("not_found");
	}

	/**
	 * While no webhook is enabled, publications wake no scan; the dispatcher looks again
	 * once per poll interval, also while changes are published faster than that, so a
	 * webhook another instance created (here: written without this instance's API) is
	 * delivered to.
	 */
	@Test
	void aWebhookAnotherInstanceCreatedIsDeliveredWhileChangesKeepComing() throws Exception {
		this.jdbc.sql("delete from webhooks").update();
		long until = System.nanoTime() + Duration.ofMillis(500).toNanos();
		while (System.nanoTime() < until) {
			createItem("before any webhook", "queue", "hooks");
		}
		WebhookView elsewhere = this.webhooks.insert(UUID.randomUUID(), this.receiver.url("/elsewhere"),
				List.of("item.created"), WebhookSecrets.newSecret(), "another instance");
		Eventually.until("a change delivered to the webhook another instance made", PROMPTLY, Duration.ofMillis(5),
				() -> {
					createItem("while changes keep coming", "queue", "hooks");
					return !this.receiver.accepted().isEmpty();
				});
		assertThat(this.receiver.accepted().getFirst().path()).isEqualTo("/elsewhere");
		assertThat(this.api.delete("/webhooks/" + elsewhere.id()).status()).isEqualTo(204);
	}

	@Test
	void targetsTheAllowedHostsDoNotAllowAndBadInputAreRefused() {
		List<Map<String, Object>> bad = List.of(Map.of("url", "http://10.0.0.7/hook"),
				Map.of("url", "http://localhost:8080/hook"), Map.of("url", "file:///etc/passwd"),
				Map.of("url", "not a url"), Map.of("url", "http://user:pw@127.0.0.1/hook"),
				Map.of("url", this.receiver.url("/x"), "types", List.of("item.exploded")),
				Map.of("url", this.receiver.url("/x"), "secret", "plain"),
				Map.of("url", this.receiver.url("/x"), "secret", "whsec_c2hvcnQ="), Map.of("types", List.of()));
		for (Map<String, Object> body : bad) {
			Api.Response response = this.api.post("/webhooks", body);
			assertThat(response.status()).as(body + ": " + response).isEqualTo(422);
			assertThat(response.code()).isEqualTo("validation_failed");
		}
		assertThat(this.api.post("/webhooks", Map.of("url", "http://10.0.0.7/hook")).toString())
			.contains("workgraph.webhooks.allowed-hosts does not allow");
		assertThat(this.api.get("/webhooks").body().path("webhooks").size()).isZero();
		assertThat(this.api.get("/webhooks/" + UUID.randomUUID() + "/deliveries?limit=0").code())
			.isEqualTo("validation_failed");
	}

	private JsonNode create(Map<String, Object> body) {
		Api.Response created = this.api.post("/webhooks", body);
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		assertThat(created.header("Location")).isEqualTo("/webhooks/" + created.body().path("id").asString());
		return created.body();
	}

	private JsonNode webhook(JsonNode created) {
		for (JsonNode webhook : this.api.get("/webhooks").body().path("webhooks")) {
			if (webhook.path("id").asString().equals(created.path("id").asString())) {
				return webhook;
			}
		}
		throw new AssertionError("no webhook " + created.path("id"));
	}

	/** The seqs published after this one, once there are this many. */
	private List<Long> publishedAfter(long from, int count) {
		Eventually.until(count + " published", PROMPTLY, Duration.ofMillis(20),
				() -> this.jdbc.sql("select count(*) from changes where seq > :from")
					.param("from", from)
					.query(Long.class)
					.single() >= count);
		return this.jdbc.sql("select seq from changes where seq > :from order by seq")
			.param("from", from)
			.query(Long.class)
			.list();
	}

	private List<Long> seqs(List<Receiver.Received> messages) {
		return messages.stream().map((m) -> this.json.readTree(m.body()).path("data").path("seq").asLong()).toList();
	}

}
