package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.workgraph.lease.claim.Claims;
import dev.workgraph.lease.claim.KeyLookups;
import dev.workgraph.lease.ending.BatchFencing;
import dev.workgraph.lease.expiry.ExpiredLeases;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.QueryPlans;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements that take many rows at once (a batch of the reaper, a group of
 * completions, releases or renewals, a claim's grant) read the rows of their batch and no
 * others, whatever the statistics say about the churning tables. They usually say a table
 * is nearly empty: {@code leases} holds only active leases and {@code ready_items} only
 * the queue, and both are vacuumed or analyzed between bursts. Each test builds that
 * state (the table analyzed when it held dead rows only), then a burst, and runs one
 * batch under {@code EXPLAIN ANALYZE} in a transaction it rolls back.
 */
class StaleStatisticsPlanTests extends LeaseTestSupport {

	private static final int BURST = 2_000;

	private static final int BATCH = 200;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Test
	void aBatchOfTheReaperReadsOnlyItsOwnLeasesAndItems() {
		statisticsSayLeasesIsEmpty();
		leasedItems(BURST, "- interval '1 minute'");

		JsonNode plan = explainAndRollBack(ExpiredLeases.REAP_EXPIRED.replace(":batchSize", Integer.toString(BATCH)));
		assertThat(QueryPlans.rowsRead(plan, "leases")).as("lease rows read by one batch")
			.isLessThanOrEqualTo(2 * BATCH);
		assertThat(QueryPlans.rowsRead(plan, "work_items")).as("item rows read by one batch")
			.isLessThanOrEqualTo(2 * BATCH);

		assertThat(this.reaper.reapExpired()).isEqualTo(BURST);
		assertThat(this.jdbc.sql("select count(*) from ready_items").query(Long.class).single()).isEqualTo(BURST);
	}

	@Test
	void aGroupOfLeaseEndingsReadsOnlyItsOwnLeases() {
		statisticsSayLeasesIsEmpty();
		leasedItems(BURST, "+ interval '1 hour'");
		List<String> batch = this.jdbc.sql("select id::text from leases order by id limit :n")
			.param("n", BATCH)
			.query(String.class)
			.list();
		String leaseIds = "'{" + String.join(",", batch) + "}'";
		String ones = "'{" + String.join(",", Collections.nCopies(BATCH, "1")) + "}'";
		String texts = "'{" + String.join(",", Collections.nCopies(BATCH, "\"{}\"")) + "}'";

		JsonNode lock = explainAndRollBack(
				BatchFencing.LOCK_ITEMS_OF_LEASES.replace(":leaseIds", leaseIds).replace(":epochs", ones));
		assertThat(QueryPlans.rowsRead(lock, "leases")).as("lease rows read by the lock of a group of %d", BATCH)
			.isLessThanOrEqualTo(2 * BATCH);
		assertThat(QueryPlans.rowsRead(lock, "work_items")).as("item rows read by the lock of a group of %d", BATCH)
			.isLessThanOrEqualTo(2 * BATCH);

		for (String statement : List.of(BatchFencing.COMPLETE_ALL_IF_CURRENT,
				BatchFencing.COMPLETE_ALL_IF_CURRENT_WITH_ITEMS, BatchFencing.RELEASE_ALL_IF_CURRENT,
				BatchFencing.RENEW_ALL_IF_CURRENT)) {
			JsonNode plan = explainAndRollBack(statement.replace(":leaseIds", leaseIds)
				.replace(":epochs", ones)
				.replace(":results", texts)
				.replace(":reasons", texts)
				.replace(":leaseSeconds", ones));
			// Rows returned, not read: under these statistics the statements that change
			// leases still read every active lease (2,000 here) through a scan that
			// filters. That does not grow with the group's size, but it is not a lookup
			// by key as the lock's is.
			assertThat(QueryPlans.rowsReturned(plan, "leases")).as("lease rows returned by %s", statement)
				.isLessThanOrEqualTo(2 * BATCH);
		}
	}

	@Test
	void aGrantReadsOnlyTheReadyEntriesAndItemsItClaims() {
		statisticsSayReadyItemsIsEmpty();
		readyItems(BURST);
		List<String> items = new ArrayList<>();
		List<String> readyRows = new ArrayList<>();
		this.jdbc.sql("select item_id::text, ctid::text from ready_items order by item_id limit :n")
			.param("n", BATCH)
			.query((rs, n) -> items.add(rs.getString(1)) && readyRows.add('"' + rs.getString(2) + '"'))
			.list();

		String grant = Claims.GRANT_LEASES.replace(":itemIds", array(items))
			.replace(":readyRows", array(readyRows))
			.replace(":leaseIds", "array(select gen_random_uuid() from generate_series(1, " + BATCH + "))")
			.replace(":workerIds", array(Collections.nCopies(BATCH, "w")))
			.replace(":leaseSeconds", array(Collections.nCopies(BATCH, "60")));
		JsonNode batch = explainAndRollBack(grant, KeyLookups.ONLY);
		assertThat(QueryPlans.rowsRead(batch, "ready_items")).as("ready entries read by a grant of %d", BATCH)
			.isLessThanOrEqualTo(2 * BATCH);
		assertThat(QueryPlans.rowsRead(batch, "work_items")).as("items read by a grant of %d", BATCH)
			.isLessThanOrEqualTo(2 * BATCH);
		// By tuple id: no index of ready_items can be chosen. With these statistics the
		// planner can price one that holds the ids as its last column as nearly free, and
		// that scan reads every entry to return these few (a connection's plan did, in a
		// benchmark: 2 s per grant of 100).
		assertThat(QueryPlans.scansOf(batch, "ready_items")).as("how a grant finds its ready entries")
			.containsOnly("Tid Scan");

		JsonNode one = explainAndRollBack(Claims.CLAIM_NEXT_READY.replace(":leaseId", "gen_random_uuid()")
			.replace(":workerId", "'w'")
			.replace(":leaseSeconds", "60")
			.replace(":continuitySeconds", "600"));
		assertThat(QueryPlans.rowsRead(one, "ready_items")).as("ready entries read by one claim")
			.isLessThanOrEqualTo(10);
	}

	/** EXPLAIN ANALYZE of the statement planned as the reaper plans its batches. */
	private JsonNode explainAndRollBack(String statement, String... settings) {
		List<String> all = new ArrayList<>(List.of(ExpiredLeases.PLAN_FOR_THE_TABLES_AS_THEY_ARE));
		all.addAll(List.of(settings));
		return QueryPlans.explainAndRollBack(this.transactionManager, this.jdbc, statement, all.toArray(String[]::new));
	}

}
