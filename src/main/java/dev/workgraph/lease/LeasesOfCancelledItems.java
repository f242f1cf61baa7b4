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

	static final String END_LEASES_OF_CANCELLED_ITEMS = """
			with ended as (
			    delete from leases where item_id = any(:ids::uuid[])
			    returning *
			)
			insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, ended_at,
			    outcome, reason)
			select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			    case when expires_at > now() then now() else expires_at end,
			    case when expires_at > now() then 'cancelled' else 'expired' end,
			    case when expires_at > now() then :reason end
			from ended
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
