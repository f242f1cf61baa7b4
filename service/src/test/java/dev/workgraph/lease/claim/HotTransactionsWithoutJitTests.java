package dev.workgraph.lease.claim;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.workgraph.lease.ending.BatchFencing;
import dev.workgraph.lease.expiry.ExpiredLeases;
import dev.workgraph.sql.Transactions;
import dev.workgraph.testing.IntegrationTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transactions whose statements are priced for many rows (batch claims, batches of
 * lease endings, the reaper) run without JIT compilation, and leave the pooled connection
 * as it was (see {@code GenericPlans.NO_JIT}).
 */
@IntegrationTest
class HotTransactionsWithoutJitTests {

	private static final String JIT = "select current_setting('jit')";

	@Autowired
	private Transactions transactions;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private BatchFencing batchFencing;

	@Autowired
	private Claims claims;

	@Test
	void coalescedAndBatchClaims() {
		List<Claims.Ask> asks = List.of(ask(), ask());
		assertThat(jitAfter(() -> this.claims.claimBatch(asks, List.of("hot-nothing-ready"), Duration.ZERO)))
			.isEqualTo("off");
	}

	@Test
	void aLoneClaimInTheTransactionOfTheCompletionBeforeIt() {
		assertThat(jitAfter(() -> this.claims.claimHere(List.of(ask()), List.of("hot-nothing-ready"), Duration.ZERO)))
			.isEqualTo("off");
	}

	@Test
	void theReaper() {
		assertThat(jitAfter(() -> this.jdbc.sql(ExpiredLeases.PLAN_FOR_THE_TABLES_AS_THEY_ARE).query().singleRow()))
			.isEqualTo("off");
	}

	@Test
	void batchesOfLeaseEndings() {
		assertThat(jitAfter(() -> this.batchFencing.lockItems(List.of(UUID.randomUUID()), new long[] { 1 })))
			.isEqualTo("off");
	}

	private static Claims.Ask ask() {
		return new Claims.Ask(UUID.randomUUID(), "hot-worker", 30);
	}

	/**
	 * The setting in a transaction after {@code first}; the pool is checked unchanged.
	 */
	private String jitAfter(Runnable first) {
		String before = this.jdbc.sql(JIT).query(String.class).single();
		String inside = this.transactions.inTransaction(() -> {
			first.run();
			return this.jdbc.sql(JIT).query(String.class).single();
		});
		for (int i = 0; i < 20; i++) {
			assertThat(this.jdbc.sql(JIT).query(String.class).single()).as("jit after the transaction")
				.isEqualTo(before);
		}
		return inside;
	}

}
