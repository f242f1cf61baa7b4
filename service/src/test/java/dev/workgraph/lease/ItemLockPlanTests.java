package dev.workgraph.lease;

import java.util.UUID;

import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.QueryPlans;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease-ending call locks its item through the lease by the lease's key, whatever the
 * statistics of {@code leases} say. Analyzed while empty (a quiet moment, or the bench's
 * vacuum before a point; {@link #statisticsSayLeasesIsEmpty}), they price every way into
 * the table alike, and the plan read the whole one-active-lease-per-item index instead,
 * filtering on the lease id: every active lease for every completion
 * (docs/performance-journal.md, "The lone claim in one round trip").
 */
class ItemLockPlanTests extends LeaseTestSupport {

	private static final int ACTIVE = 2_000;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Test
	void lockingTheItemOfALeaseReadsThatLeaseAlone() {
		statisticsSayLeasesIsEmpty();
		leasedItems(ACTIVE, "+ interval '1 hour'");
		UUID leaseId = this.jdbc.sql("select id from leases limit 1").query(UUID.class).single();

		JsonNode plan = QueryPlans.explainAndRollBack(this.transactionManager, this.jdbc,
				Fencing.LOCK_ITEM_OF_LEASE.replace(":leaseId", "'" + leaseId + "'::uuid").replace(":epoch", "1"));

		assertThat(QueryPlans.rowsRead(plan, "leases")).as("leases read to lock one lease's item, %d active", ACTIVE)
			.isEqualTo(1);
	}

}
