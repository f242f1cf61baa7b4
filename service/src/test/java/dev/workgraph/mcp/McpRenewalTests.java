package dev.workgraph.mcp;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import org.junit.jupiter.api.Test;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session renews its lease by itself, every third of a three-second lease here, and a
 * lease that is lost between two tool calls (the item was cancelled) is reported by the
 * next call.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + McpRenewalTests.ADMIN_TOKEN, "workgraph.mcp.lease-seconds=3" })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class McpRenewalTests extends McpTest {

	static final String ADMIN_TOKEN = "mcp-renewal-tests-bootstrap-admin-token";

	@Test
	void theSessionKeepsItsItemLongerThanOneLeaseByRenewingIt() throws Exception {
		UUID itemId = itemIn("Keep it", "renewed");
		try (ModelSession model = new ModelSession(this.port, workerToken("renewer"))) {
			model.ok("claim_work", Map.of("queues", List.of("renewed")));
			OffsetDateTime firstExpiry = expiresAt(itemId);
			Thread.sleep(Duration.ofSeconds(5)); // longer than the lease
			assertThat(expiresAt(itemId)).isAfter(firstExpiry);
			assertThat(this.jdbc.sql("select renewed_at is not null from leases where item_id = :id")
				.param("id", itemId)
				.query(Boolean.class)
				.single()).isTrue();
			model.ok("complete_work", Map.of("result", "done"));
		}
		assertThat(this.jdbc.sql("select outcome from lease_history where item_id = :id")
			.param("id", itemId)
			.query(String.class)
			.list()).containsExactly("completed");
	}

	@Test
	void aLeaseLostBetweenTwoCallsIsReportedByTheNext() {
		UUID itemId = itemIn("Drop it", "cancelled");
		try (ModelSession model = new ModelSession(this.port, workerToken("cancelled"))) {
			model.ok("claim_work", Map.of("queues", List.of("cancelled")));
			Api.Response cancelled = operator().post("/items/" + itemId + "/cancel", Map.of("reason", "not needed"));
			assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(200);
			Eventually.until("the session notices at its next renewal", Duration.ofSeconds(10), Duration.ofMillis(200),
					() -> ModelSession.text(model.call("get_item", Map.of())).contains("\"holding\":false"));
			assertThat(model.error("complete_work", Map.of())).contains("You no longer hold this item (lease_ended)");
			assertThat(model.ok("claim_work", Map.of("queues", List.of("cancelled"))).path("claimed").asBoolean())
				.isFalse();
		}
	}

	private OffsetDateTime expiresAt(UUID itemId) {
		return this.jdbc.sql("select expires_at from leases where item_id = :id")
			.param("id", itemId)
			.query(OffsetDateTime.class)
			.single();
	}

	@Override
	String adminToken() {
		return ADMIN_TOKEN;
	}

}
