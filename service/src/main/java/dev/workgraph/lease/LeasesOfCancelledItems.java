package dev.workgraph.lease;

import java.util.List;
import java.util.UUID;

import dev.workgraph.item.CancellationParticipant;
import dev.workgraph.support.SqlArrays;

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
			with ended as (
			    delete from leases where item_id = any(:ids::uuid[])
			    returning *
			), moment as (
			    select clock_timestamp() as t
			)
			insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, ended_at,
			    outcome, reason)
			select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at,
			    case when e.expires_at > moment.t then moment.t else e.expires_at end,
			    case when e.expires_at > moment.t then 'cancelled' else 'expired' end,
			    case when e.expires_at > moment.t then :reason end
			from ended e cross join moment
			""";

	private final JdbcClient jdbc;

	LeasesOfCancelledItems(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@Override
	public void itemsCancelled(List<UUID> itemIds, String reason) {
		this.jdbc.sql(END_LEASES_OF_CANCELLED_ITEMS)
			.param("ids", SqlArrays.uuids(itemIds))
			.param("reason", reason)
			.update();
	}

}
