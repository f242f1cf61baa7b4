package dev.workgraph.lease.claim;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.item.Cancellation;
import dev.workgraph.item.Readiness;
import dev.workgraph.sql.Uuid7;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lease history must show what happened in the order it happened: a lease is acquired
 * only after the previous one ended, so its {@code acquiredAt} is never earlier than the
 * previous {@code endedAt}. Found by the chaos soak: PostgreSQL's {@code now()} is the
 * start of the claiming transaction, which can precede the snapshot that saw the item
 * released (a busy server plans the claim in between), and the history then showed two
 * leases overlapping by milliseconds.
 */
class LeaseTimesTests extends ServiceTest {

	@Autowired
	private Claims claims;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Autowired
	private Readiness readiness;

	@Autowired
	private Cancellation cancellation;

	@Test
	void aClaimThatBeganBeforeTheReleaseIsStillAcquiredAfterIt() {
		UUID item = createItem("write the docs");
		JsonNode first = claim("worker-1");
		new TransactionTemplate(this.transactionManager).executeWithoutResult((status) -> {
			// The claiming transaction begins (now() is fixed from here on) …
			this.jdbc.sql("select now()").query(OffsetDateTime.class).single();
			sleep(Duration.ofMillis(50));
			// … the holder releases, committed by another connection …
			Api.Response released = this.api.post("/leases/" + leaseId(first) + "/release", Map.of("epoch", 1));
			assertThat(released.status()).as(released.toString()).isEqualTo(200);
			// … and only then does the claim take its snapshot and the item.
			assertThat(this.claims.claimNextReady(Uuid7.next(), "worker-2", null, 60, Duration.ZERO)).isPresent();
		});
		Map<String, Object> times = this.jdbc.sql("""
				select h.ended_at::text as first_ended, l.acquired_at::text as second_acquired,
				    l.acquired_at >= h.ended_at as in_order
				from lease_history h join leases l on l.item_id = h.item_id and l.epoch = h.epoch + 1
				where h.item_id = :item
				""").param("item", item).query().singleRow();
		assertThat(times.get("in_order")).as("epoch 2 acquired no earlier than epoch 1 ended: %s", times)
			.isEqualTo(true);
	}

	@Test
	void anOperatorCancelThatBeganBeforeTheClaimEndsTheLeaseAfterItWasAcquired() {
		UUID item = createItem("write the docs");
		new TransactionTemplate(this.transactionManager).executeWithoutResult((status) -> {
			// The operator's cancel begins (now() is fixed from here on) …
			this.jdbc.sql("select now()").query(OffsetDateTime.class).single();
			sleep(Duration.ofMillis(50));
			// … a worker claims the item, committed by another connection …
			claim("worker-1");
			// … and only then does the cancel lock the item and end its lease.
			this.readiness.lockItem(item);
			this.cancellation.cancelSubtree(item, "not needed");
		});
		Map<String, Object> times = this.jdbc
			.sql("""
					select acquired_at::text as acquired, ended_at::text as ended, outcome, ended_at >= acquired_at as in_order
					from lease_history where item_id = :item
					""")
			.param("item", item)
			.query()
			.singleRow();
		assertThat(times.get("outcome")).isEqualTo("cancelled");
		assertThat(times.get("in_order")).as("ended no earlier than acquired: %s", times).isEqualTo(true);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
