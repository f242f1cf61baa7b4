package dev.workgraph.fence;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Whether a lease still holds its item's fence: one read, by PostgreSQL's clock. */
@Repository
class LeaseFences {

	/**
	 * The lease, active ({@code leases}) or ended ({@code lease_history}), with its
	 * item's current epoch. An active lease is live until its expiresAt, whether or not
	 * the reaper has recorded the expiry yet.
	 */
	static final String FENCE_OF_LEASE = """
			select l.worker_id, l.epoch, l.expires_at, l.expires_at > now() as active, w.epoch as current_epoch
			from leases l join work_items w on w.id = l.item_id
			where l.id = :leaseId
			union all
			select h.worker_id, h.epoch, h.expires_at, false, w.epoch
			from lease_history h join work_items w on w.id = h.item_id
			where h.lease_id = :leaseId
			""";

	private final JdbcClient jdbc;

	LeaseFences(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<LeaseFence> find(UUID leaseId) {
		return this.jdbc.sql(FENCE_OF_LEASE)
			.param("leaseId", leaseId)
			.query((rs, n) -> new LeaseFence(rs.getString("worker_id"), rs.getLong("epoch"),
					Rows.instant(rs, "expires_at"), rs.getBoolean("active"), rs.getLong("current_epoch")))
			.optional();
	}

	/** A lease's fence as it is now. */
	record LeaseFence(String workerId, long epoch, Instant expiresAt, boolean active, long currentEpoch) {

		/**
		 * Whether a holder presenting this epoch (the lease's own when null) may write.
		 */
		boolean liveAt(Long presentedEpoch) {
			return this.active && (presentedEpoch == null || presentedEpoch == this.epoch);
		}

	}

}
