package dev.workgraph.lease;

import java.util.List;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Records expiries. Several reapers (one per service instance) may run at once: each
 * takes the expired leases and their items with {@code SKIP LOCKED}, so every expiry is
 * recorded exactly once and a reaper never waits on a lease that a worker is completing
 * right now (if the worker's request started before expiresAt it wins; otherwise its
 * guard fails and the next pass records the expiry).
 */
@Repository
class ExpiredLeases {

	static final String REAP_EXPIRED = """
			with expired as (
			    select l.id
			    from leases l
			    join work_items w on w.id = l.item_id
			    where l.expires_at <= now()
			    order by l.expires_at
			    limit :batchSize
			    for update of l, w skip locked
			), %s, counted as (
			    update work_items w set consecutive_expirations = w.consecutive_expirations + 1
			    from recorded h
			    where w.id = h.item_id
			    returning w.id, w.consecutive_expirations
			)
			select h.lease_id, h.item_id, h.epoch, c.consecutive_expirations
			from recorded h
			join counted c on c.id = h.item_id
			""".formatted(LeaseHistory.endAndRecord("using expired x where l.id = x.id",
			// An expired lease ended at its expiry, whenever the reaper gets round to it.
			"e.expires_at", "'expired'", "null"));

	private final JdbcClient jdbc;

	ExpiredLeases(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	List<ExpiredLease> reapExpired(int batchSize) {
		return this.jdbc.sql(REAP_EXPIRED)
			.param("batchSize", batchSize)
			.query((rs, n) -> new ExpiredLease(Rows.uuid(rs, "lease_id"), Rows.uuid(rs, "item_id"), rs.getLong("epoch"),
					rs.getInt("consecutive_expirations")))
			.list();
	}

}
