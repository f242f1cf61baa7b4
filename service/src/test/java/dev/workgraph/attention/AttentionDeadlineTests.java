package dev.workgraph.attention;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.testing.Api;
import io.micrometer.core.instrument.MeterRegistry;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deadlines for questions (docs/http-api.md, "Deadlines for questions"): at the deadline
 * the question is answered with its default, its item cancelled, or it is escalated and
 * stays open; a human's answer and the deadline race, and exactly one wins.
 */
class AttentionDeadlineTests extends LeaseTestSupport {

	@Autowired
	AttentionDeadlines deadlines;

	@Autowired
	MeterRegistry meters;

	@Test
	void aDefaultAnswersTheQuestionAtTheDeadline() {
		UUID itemId = createItem("proceed unless told otherwise");
		JsonNode request = ask(claim("worker-1"), 600L,
				Map.of("action", "default", "resolution", "no objection: go ahead"))
			.body();
		assertThat(request.path("onTimeout").path("action").asString()).isEqualTo("default");
		assertThat(instant(request.path("timeoutAt"))).isAfter(instant(request.path("openedAt")).plusSeconds(599));
		assertThat(this.deadlines.applyDue()).isZero();
		passDeadlines();
		assertThat(this.deadlines.applyDue()).isEqualTo(1);
		JsonNode answered = item(itemId).path("attentionRequests").get(0);
		assertThat(answered.path("status").asString()).isEqualTo("resolved");
		assertThat(answered.path("resolution").asString()).isEqualTo("no objection: go ahead");
		assertThat(answered.path("resolvedBy").asString()).isEqualTo("system");
		assertThat(status(itemId)).isEqualTo("ready");
		assertThat(this.deadlines.applyDue()).isZero();
	}

	@Test
	void aCancelCancelsTheItemAtTheDeadline() {
		UUID itemId = createItem("only with approval");
		ask(claim("worker-1"), 60L, Map.of("action", "cancel"));
		passDeadlines();
		assertThat(this.deadlines.applyDue()).isEqualTo(1);
		JsonNode item = item(itemId);
		assertThat(item.path("status").asString()).isEqualTo("cancelled");
		assertThat(item.path("cancelReason").asString()).contains("deadline");
		assertThat(item.path("attentionRequests").get(0).path("status").asString()).isEqualTo("resolved");
	}

	@Test
	void anEscalationLeavesTheQuestionOpenWithItsLabelAndIsCounted() {
		UUID itemId = createItem("needs a senior");
		ask(claim("worker-1"), 60L, Map.of("action", "escalate", "escalateTo", "on-call lead"));
		double before = escalations();
		passDeadlines();
		assertThat(this.deadlines.applyDue()).isEqualTo(1);
		assertThat(this.deadlines.applyDue()).as("escalated once").isZero();
		JsonNode request = item(itemId).path("attentionRequests").get(0);
		assertThat(request.path("status").asString()).isEqualTo("open");
		assertThat(request.path("escalatedAt").isNull()).isFalse();
		assertThat(request.path("escalateTo").asString()).isEqualTo("on-call lead");
		assertThat(status(itemId)).isEqualTo("blocked");
		assertThat(escalations()).isEqualTo(before + 1);
		assertThat(count("select (select count(*) from change_pending where type = 'attention.escalated') "
				+ "+ (select count(*) from changes where type = 'attention.escalated')"))
			.isEqualTo(1);
		JsonNode inbox = this.api.get("/attention-requests?status=open").body().path("attentionRequests").get(0);
		assertThat(inbox.path("escalateTo").asString()).isEqualTo("on-call lead");
		// A human still answers it.
		assertOk(resolve(uuid(request.path("id")), "handled"));
		assertThat(status(itemId)).isEqualTo("ready");
	}

	@Test
	void withoutOnTimeoutTheDeadlineEscalates() {
		UUID itemId = createItem("no action given");
		JsonNode request = ask(claim("worker-1"), 60L, null).body();
		assertThat(request.path("onTimeout").path("action").asString()).isEqualTo("escalate");
		passDeadlines();
		assertThat(this.deadlines.applyDue()).isEqualTo(1);
		assertThat(item(itemId).path("attentionRequests").get(0).path("escalatedAt").isNull()).isFalse();
	}

	/**
	 * Hundreds of questions, each answered by a human while passes apply their deadline
	 * from several threads: every question ends answered exactly once, either by the
	 * human or by the system, and the loser of each race sees {@code already_resolved}
	 * (the human) or does nothing (the pass).
	 */
	@Test
	void anAnswerAndTheDeadlineRacingNeverBothWin() {
		int questions = 200;
		for (int i = 0; i < questions; i++) {
			createItem("race " + i);
		}
		List<UUID> requestIds = new ArrayList<>();
		for (JsonNode claim : claimUntilEmpty("asker", Map.of("leaseSeconds", 600))) {
			Api.Response asked = ask(claim, 3600L, Map.of("action", "default", "resolution", "by the system"));
			assertCreated(asked);
			requestIds.add(uuid(asked.body().path("id")));
		}
		passDeadlines();
		AtomicInteger humans = new AtomicInteger();
		AtomicInteger alreadyResolved = new AtomicInteger();
		List<Integer> applied = Concurrently.run(6, (thread) -> {
			if (thread < 2) {
				int total = 0;
				for (int pass = 0; pass < 40; pass++) {
					total += this.deadlines.applyDue();
				}
				return total;
			}
			for (int i = thread - 2; i < questions; i += 4) {
				Api.Response answer = resolve(requestIds.get(i), "by a human");
				if (answer.status() == 200) {
					humans.incrementAndGet();
				}
				else {
					assertProblem(answer, 409, "already_resolved");
					alreadyResolved.incrementAndGet();
				}
			}
			return 0;
		});
		int bySystem = applied.stream().mapToInt(Integer::intValue).sum();
		assertThat(humans.get() + bySystem).isEqualTo(questions);
		assertThat(alreadyResolved.get()).isEqualTo(bySystem);
		assertThat(count("select count(*) from attention_requests where resolved_by = 'system'")).isEqualTo(bySystem);
		assertThat(count("select count(*) from attention_requests where status = 'open'")).isZero();
		assertThat(count("select count(*) from work_items where status = 'ready'")).isEqualTo(questions);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"timeoutSeconds\":0}", "{\"timeoutSeconds\":31536001}", "{\"timeoutSeconds\":-1}",
			"{\"timeoutSeconds\":\"60\"}", "{\"timeoutSeconds\":1.5}", "{\"onTimeout\":{\"action\":\"escalate\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{}}", "{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"later\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"default\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"default\",\"resolution\":\"\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"cancel\",\"resolution\":\"x\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"cancel\",\"escalateTo\":\"x\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"escalate\",\"escalateTo\":\"\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"escalate\",\"escalateTo\":\"a\\u0000\"}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":\"escalate\",\"x\":1}}",
			"{\"timeoutSeconds\":60,\"onTimeout\":\"escalate\"}",
			"{\"timeoutSeconds\":60,\"onTimeout\":{\"action\":7}}" })
	void aBadDeadlineIsRefusedAndWritesNothing(String fields) {
		createItem("hostile");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		String body = "{\"epoch\":" + epoch(claim) + ",\"question\":\"when?\"," + fields.substring(1);
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/attention-requests", body);
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void labelsAndDefaultsAreBoundedInCodePoints() {
		createItem("long label");
		JsonNode claim = claim("worker-1");
		assertProblem(ask(claim, 60L, Map.of("action", "escalate", "escalateTo", "x".repeat(201))), 422,
				"validation_failed");
		assertCreated(ask(claim, 31_536_000L, Map.of("action", "escalate", "escalateTo", "😀".repeat(200))));
	}

	private double escalations() {
		return this.meters.get("workgraph.attention.escalations").counter().count();
	}

	private void passDeadlines() {
		this.jdbc
			.sql("update attention_requests set timeout_at = now() - interval '1 millisecond' "
					+ "where status = 'open' and timeout_at is not null")
			.update();
	}

	private Api.Response ask(JsonNode claim, Long timeoutSeconds, Map<String, Object> onTimeout) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", epoch(claim));
		body.put("question", "May I merge?");
		if (timeoutSeconds != null) {
			body.put("timeoutSeconds", timeoutSeconds);
		}
		if (onTimeout != null) {
			body.put("onTimeout", onTimeout);
		}
		return this.api.post("/leases/" + leaseId(claim) + "/attention-requests", body);
	}

}
