package dev.workgraph.lease.claim;

import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.QueryPlans;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The closed-queue condition every claim carries (QueueGates) leaves the claim's plan as
 * it was: with every ready item in one queue and the statistics saying so, the claim
 * still stops at the first entry of the claim-order index instead of sorting the whole
 * queue.
 */
class QueueGatesPlanTests extends LeaseTestSupport {

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Test
	void aClaimReadsAFewReadyEntriesWhenAllShareOneQueue() {
		readyItems(1000);
		this.jdbc.sql("analyze ready_items, work_items").update();
		JsonNode one = QueryPlans.explainAndRollBack(this.transactionManager, this.jdbc,
				Claims.CLAIM_NEXT_READY.replace(":leaseId", "gen_random_uuid()")
					.replace(":workerId", "'w'")
					.replace(":leaseSeconds", "60")
					.replace(":continuitySeconds", "600"));
		assertThat(QueryPlans.rowsRead(one, "ready_items")).as("ready entries read by one claim")
			.isLessThanOrEqualTo(10);
	}

}
