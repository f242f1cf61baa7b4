package dev.workgraph.lease.ending;

import java.util.UUID;

import dev.workgraph.view.LeaseRows;
import dev.workgraph.view.LeaseView;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The successor's grant of a handoff ({@link Handoffs}). */
@Repository
class Successors {

	/**
	 * The successor's grant, once the ended lease's item is locked: the item's epoch + 1
	 * and a lease carrying it. Acquired when granted (as a claim is), so that it never
	 * begins before the ended lease's end.
	 */
	static final String GRANT_TO_SUCCESSOR = """
			with handed as (
			    update work_items w set epoch = w.epoch + 1, updated_at = now()
			    where w.id = :itemId and w.status = 'leased'
			    returning w.id, w.epoch, w.queue
			), granted as (
			    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
			    select :leaseId, w.id, :workerId, w.epoch, t.granted_at,
			        t.granted_at + make_interval(secs => :leaseSeconds), w.queue
			    from handed w
			    cross join (select clock_timestamp() as granted_at) t
			    returning *
			)
			select %s
			from granted l
			""".formatted(LeaseRows.ACTIVE);

	private final JdbcClient jdbc;

	Successors(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Leases the item, whose lease this transaction has just ended under the item's lock,
	 * to the successor with the next epoch.
	 */
	LeaseView grant(UUID itemId, UUID leaseId, String workerId, int leaseSeconds) {
		return this.jdbc.sql(GRANT_TO_SUCCESSOR)
			.param("itemId", itemId)
			.param("leaseId", leaseId)
			.param("workerId", workerId)
			.param("leaseSeconds", leaseSeconds)
			.query(LeaseRows::map)
			.single();
	}

}
