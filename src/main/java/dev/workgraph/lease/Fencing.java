package dev.workgraph.lease;

import java.util.UUID;

import dev.workgraph.item.LockedItem;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.LeaseViews;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The lease guard (ADR 002). A mutation made on behalf of a worker succeeds only while
 * the lease it presents is the item's active lease, carries the presented epoch and has
 * not reached expiresAt, all checked by PostgreSQL in the statement that writes. When the
 * guard matches nothing, one read says why, in the contract's order: expired, else ended,
 * else epoch mismatch.
 *
 * <p>
 * Lock order: a lease-ending mutation locks the leased item row first
 * ({@link #lockItem}); everything that ends leases of an item it does not hold (the
 * reaper) skips locked rows instead of waiting.
 */
@Repository
public class Fencing {

	/**
	 * Locks the item of the lease (if the lease is still active) and says whether the
	 * guard holds now.
	 */
	static final String LOCK_ITEM_OF_LEASE = """
			select w.id, w.status, w.parent_id, w.epoch, w.priority, w.queue, w.unmet_dependencies, w.open_children,
			    l.epoch = :epoch and l.expires_at > now() as current
			from leases l
			join work_items w on w.id = l.item_id
			where l.id = :leaseId
			for no key update of w
			""";

	/**
	 * Ends the lease if (and only if) it is still current, writing its single history
	 * row.
	 */
	static final String END_IF_CURRENT = """
			with ended as (
			    delete from leases where id = :leaseId and epoch = :epoch and expires_at > now()
			    returning *
			), recorded as (
			    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			        ended_at, outcome, reason)
			    select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, now(), :outcome, :reason
			    from ended
			    returning *
			), streak_broken as (
			    update work_items w set consecutive_expirations = 0
			    from recorded r
			    where w.id = r.item_id and w.consecutive_expirations <> 0
			)
			select lease_id as id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, false as active,
			    ended_at, outcome, reason
			from recorded
			""";

	/**
	 * Why a guard matched nothing: the lease as it is now (active or in history) and the
	 * item's epoch.
	 */
	static final String LEASE_STATE = """
			select l.epoch, l.expires_at <= now() as expired, false as ended, w.epoch as current_epoch
			from leases l join work_items w on w.id = l.item_id
			where l.id = :leaseId
			union all
			select h.epoch, h.outcome = 'expired', true, w.epoch
			from lease_history h join work_items w on w.id = h.item_id
			where h.lease_id = :leaseId
			""";

	private final JdbcClient jdbc;

	Fencing(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Locks the item held under the lease for the rest of the transaction, or throws the
	 * rejection when the lease is not current. Under this lock nobody else can end the
	 * lease or re-grant the item.
	 */
	public LockedItem lockItem(UUID leaseId, long epoch) {
		LockedLease locked = this.jdbc.sql(LOCK_ITEM_OF_LEASE)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.query((rs, n) -> new LockedLease(LockedItem.map(rs, n), rs.getBoolean("current")))
			.optional()
			.orElseThrow(() -> rejection(leaseId, epoch));
		if (!locked.current()) {
			throw rejection(leaseId, epoch);
		}
		return locked.item();
	}

	/**
	 * Ends the lease with the outcome, guarded; throws the rejection when the guard
	 * matches nothing.
	 */
	public LeaseView end(UUID leaseId, long epoch, LeaseOutcome outcome, String reason) {
		return this.jdbc.sql(END_IF_CURRENT)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("outcome", outcome.wire())
			.param("reason", reason)
			.query(LeaseViews::map)
			.optional()
			.orElseThrow(() -> rejection(leaseId, epoch));
	}

	/**
	 * Classifies a guard that matched nothing. Call it in the transaction that ran the
	 * guard.
	 */
	public RuntimeException rejection(UUID leaseId, long presentedEpoch) {
		LeaseState state = this.jdbc.sql(LEASE_STATE)
			.param("leaseId", leaseId)
			.query((rs, n) -> new LeaseState(rs.getLong("epoch"), rs.getBoolean("expired"), rs.getBoolean("ended"),
					rs.getLong("current_epoch")))
			.optional()
			.orElse(null);
		if (state == null) {
			return new LeaseNotFound(leaseId);
		}
		if (state.expired()) {
			return new LeaseRejected(LeaseRejected.Reason.EXPIRED, leaseId, presentedEpoch, state.currentEpoch());
		}
		if (state.ended()) {
			return new LeaseRejected(LeaseRejected.Reason.ENDED, leaseId, presentedEpoch, state.currentEpoch());
		}
		if (state.epoch() != presentedEpoch) {
			return new LeaseRejected(LeaseRejected.Reason.EPOCH_MISMATCH, leaseId, presentedEpoch,
					state.currentEpoch());
		}
		// The guard failed, yet the lease now looks current: it changed between the two
		// statements.
		// Retrying the whole transaction gives a consistent answer.
		return new ConcurrencyFailureException("Lease " + leaseId + " changed while being checked");
	}

	private record LockedLease(LockedItem item, boolean current) {
	}

	private record LeaseState(long epoch, boolean expired, boolean ended, long currentEpoch) {
	}

}
