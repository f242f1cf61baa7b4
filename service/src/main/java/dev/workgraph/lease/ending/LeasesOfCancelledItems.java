package dev.workgraph.lease.ending;

import java.util.List;
import java.util.UUID;

import dev.workgraph.item.CancellationParticipant;
import dev.workgraph.lease.LeaseHistory;
import dev.workgraph.lease.LeaseMetrics;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Ends the active leases of cancelled items with outcome {@code cancelled}. A lease
 * already past its expiresAt died by expiry before the cancel, so it is recorded as
 * {@code expired} at its expiresAt: its holder hears {@code lease_expired} either way,
 * whether or not the reaper had got to it.
 */
@Repository
class LeasesOfCancelledItems implements CancellationParticipant {

	/**
	 * The items are locked by now, but the cancelling transaction may have begun (fixing
	 * {@code now()}) before a lease of theirs was granted: the lease ends at the moment
	 * of this statement, never before it was acquired.
	 */
	static final String END_LEASES_OF_CANCELLED_ITEMS = """
			with moment as (
			    select clock_timestamp() as t
			), %s
			select outcome, count(*) as n from recorded group by outcome
			""".formatted(LeaseHistory.endAndRecord("where l.item_id = any(:ids::uuid[])",
			"least(e.expires_at, (select t from moment))",
			"case when e.expires_at > (select t from moment) then 'cancelled' else 'expired' end",
			"case when e.expires_at > (select t from moment) then :reason end"));

	private final JdbcClient jdbc;

	private final LeaseMetrics metrics;

	LeasesOfCancelledItems(JdbcClient jdbc, LeaseMetrics metrics) {
		this.jdbc = jdbc;
		this.metrics = metrics;
	}

	@Override
	public void itemsCancelled(List<UUID> itemIds, String reason) {
		this.jdbc.sql(END_LEASES_OF_CANCELLED_ITEMS)
			.param("ids", SqlArrays.uuids(itemIds))
			.param("reason", reason)
			.query((rs) -> {
				this.metrics.ended(LeaseOutcome.fromWire(rs.getString("outcome")), rs.getLong("n"));
			});
	}

}
