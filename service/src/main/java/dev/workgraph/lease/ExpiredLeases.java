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
			), ended as (
			    delete from leases l using expired e where l.id = e.id
			    returning l.*
			), recorded as (
			    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			        ended_at, outcome, reason)
			    select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, expires_at, 'expired', null
			    from ended
			    returning lease_id, item_id, worker_id, epoch, acquired_at, expires_at
			), counted as (
			    update work_items w set consecutive_expirations = w.consecutive_expirations + 1
			    from recorded r
			    where w.id = r.item_id
			    returning w.id, w.consecutive_expirations
			)
			select r.*, c.consecutive_expirations
			from recorded r
			join counted c on c.id = r.item_id
			""";

	private final JdbcClient jdbc;

	ExpiredLeases(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	List<ExpiredLease> reapExpired(int batchSize) {
		return this.jdbc.sql(REAP_EXPIRED)
			.param("batchSize", batchSize)
			.query((rs, n) -> new ExpiredLease(Rows.uuid(rs, "lease_id"), Rows.uuid(rs, "item_id"),
					rs.getString("worker_id"), rs.getLong("epoch"), Rows.instant(rs, "acquired_at"),
					Rows.instant(rs, "expires_at"), rs.getInt("consecutive_expirations")))
			.list();
	}

}
