package dev.workgraph.item;

import java.util.Collections;
import java.util.List;

import dev.workgraph.sql.LocalSettings;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.QueryPlans;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The readiness statement reads the claim queue by key, whatever its statistics say. The
 * queue vacuum leaves them saying the queue is empty after every backlog (it never
 * truncates the table), and a burst of expiries is settled a thousand items at a time
 * while the queue fills again (docs/performance-journal.md, "The reaper's variance").
 */
class BlockerCountersPlanTests extends LeaseTestSupport {

	private static final int BURST = 2_000;

	private static final int BATCH = 200;

	/** How the reaper's transaction plans the statement (ExpiredLeases). */
	private static final String PLAN_OF_THE_REAPER = LocalSettings.query("plan_cache_mode", "force_custom_plan");

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Test
	void settlingABatchOfExpiriesReadsNoReadyEntryButItsOwn() {
		statisticsSayReadyItemsIsEmpty();
		// The burst's earlier batches made their items ready: the queue is full again.
		readyItems(BURST);
		leasedItems(BATCH, "- interval '1 minute'");
		List<String> expired = this.jdbc.sql("select item_id::text from leases").query(String.class).list();
		String zeros = array(Collections.nCopies(BATCH, "0"));

		JsonNode plan = QueryPlans.explainAndRollBack(this.transactionManager, this.jdbc,
				BlockerCounters.ADJUST_BLOCKERS.replace(":ids", array(expired))
					.replace(":unmet", zeros)
					.replace(":children", zeros)
					.replace(":attention", zeros)
					.replace(":waits", zeros)
					.replace(":scheduled::", "'{}'::")
					.replace(":at::", "'{}'::")
					.replace(":delayMs::", "'{}'::")
					.replace(":leaseEnded", array(expired))
					.replace(":expired", array(Collections.nCopies(BATCH, "1"))),
				PLAN_OF_THE_REAPER);
		// The departures from the queue (none here) were joined to it, which under these
		// statistics read the whole queue for every batch of a burst.
		assertThat(QueryPlans.rowsRead(plan, "ready_items")).as("ready entries read settling a batch of %d", BATCH)
			.isLessThanOrEqualTo(2 * BATCH);
	}

}
