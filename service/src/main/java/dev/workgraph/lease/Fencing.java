package dev.workgraph.lease;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.item.LockedItem;
import dev.workgraph.model.ItemRow;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.LogContext;
import dev.workgraph.sql.OneRoundTrip;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseRows;
import dev.workgraph.view.LeaseView;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The lease guard (ADR 0000). A mutation made on behalf of a worker succeeds only while
 * the lease it presents is the item's active lease, carries the presented epoch and has
 * not reached expiresAt, all checked by PostgreSQL in the statement that writes. When the
 * guard matches nothing, one read says why, in the documented order (docs/http-api.md,
 * "Which stale-lease code"): expired, else ended, else epoch mismatch.
 *
 * <p>
 * Lock order: a lease-ending mutation locks the leased item row first
 * ({@link #lockItem}); everything that ends leases of an item it does not hold (the
 * reaper) skips locked rows instead of waiting.
 */
@Repository
public class Fencing {

	/**
	 * The guard: the lease {@code l} is {@code :leaseId}, carries {@code :epoch} and has
	 * not reached its expiresAt. Every statement that acts under a worker's lease has it
	 * in its WHERE clause.
	 */
	public static final String LEASE_IS_CURRENT = leaseIsCurrent(":leaseId", ":epoch");

	/**
	 * The guard for a lease id and epoch given otherwise than as the parameters
	 * {@code :leaseId} and {@code :epoch} (the columns of a batch's requests).
	 */
	public static String leaseIsCurrent(String leaseId, String epoch) {
		return "l.id = " + leaseId + " and l.epoch = " + epoch + " and l.expires_at > now()";
	}

	/**
	 * The active lease whose id is {@code id} (a parameter or a column of an outer row),
	 * looked up on its own, by its key, for a join. Joined directly, with {@code leases}
	 * analyzed while empty (every way in priced alike), plans read the whole
	 * one-active-lease-per-item index instead, whose order could serve the join, and
	 * filtered it on the id: every active lease for every lookup. The LIMIT keeps the
	 * lookup from being merged into the join.
	 */
	public static String leaseByKey(String id) {
		return "(select * from leases where id = " + id + " limit 1)";
	}

	/**
	 * Locks the item of the lease (if the lease is still active) and says whether the
	 * guard holds now.
	 */
	static final String LOCK_ITEM_OF_LEASE = """
			select %s, (%s) as current
			from %s l
			join work_items w on w.id = l.item_id
			for no key update of w
			""".formatted(LockedItem.columns("w"), LEASE_IS_CURRENT, leaseByKey(":leaseId"));

	/**
	 * Ends the lease if it is current, writing its single history row; any outcome but an
	 * expiry ends the item's run of expiries.
	 */
	static final String END_IF_CURRENT = """
			with %s, streak_broken as (
			    update work_items w set consecutive_expirations = 0
			    from recorded h
			    where w.id = h.item_id and w.consecutive_expirations <> 0
			)
			select %s
			from recorded h
			""".formatted(endIfCurrent(":outcome", ":reason"), LeaseRows.ENDED);

	/**
	 * Why a guard matched nothing: the lease as it is now (active or in history) and the
	 * item's epoch.
	 */
	static final String LEASE_STATE = """
			select l.epoch, l.expires_at <= now() as expired, false as ended, w.epoch as current_epoch,
			    w.id as item_id
			from leases l join work_items w on w.id = l.item_id
			where l.id = :leaseId
			union all
			select h.epoch, h.outcome = 'expired', true, w.epoch, w.id
			from lease_history h join work_items w on w.id = h.item_id
			where h.lease_id = :leaseId
			""";

	/**
	 * Completes the item under a current lease: ends the lease, records the result, and
	 * returns who is waiting for the item (dependents, once per edge, and the parent) so
	 * they can be unblocked. The caller has locked the item in an earlier statement, so
	 * the counters and dependents read here are final: adding a dependency on this item
	 * waits for that lock and then sees it completed. When the lease is current but the
	 * item still has open children or unmet dependencies, the row says so
	 * ({@code completed} false, the item's columns null) and the caller rolls the whole
	 * statement back.
	 *
	 * <p>
	 * A completed item's view comes in the same round trip (the answer needs it): the row
	 * as updated, with its columns, and its parts but the lease (it has none now; the
	 * statement's snapshot would still show the one it ends). Under the item's lock its
	 * dependencies and children are all closed, so nothing in the parts can change before
	 * the commit.
	 */
	static final String COMPLETE_IF_CURRENT = """
			with %s, completed as (
			    update work_items w
			    set status = 'completed', result = :result::jsonb, closed_at = now(), updated_at = now(),
			        consecutive_expirations = 0
			    from recorded h
			    where w.id = h.item_id and w.open_children = 0 and w.unmet_dependencies = 0
			    returning w.*
			)
			select %s,
			    c.id is not null as completed, w.open_children as blocking_children,
			    w.unmet_dependencies as blocking_dependencies,
			    array(select d.item_id from dependencies d where d.depends_on_id = h.item_id) as dependents,
			    c.*, i.*
			from recorded h
			join work_items w on w.id = h.item_id
			left join completed c on c.id = h.item_id
			left join lateral (select
			%s
			    from (select c.id where c.id is not null) as i(id)) i on true
			""".formatted(endIfCurrent("'completed'", "null"), LeaseRows.ended(LeaseRows.PREFIX_BESIDE_ITEM),
			ItemViews.PARTS_OF_I);

	static final String RENEW_IF_CURRENT = """
			update leases l
			set expires_at = now() + make_interval(secs => :leaseSeconds), renewed_at = now()
			where %s
			returning %s
			""".formatted(LEASE_IS_CURRENT, LeaseRows.ACTIVE);

	private final JdbcClient jdbc;

	private final LeaseMetrics metrics;

	private final OneRoundTrip oneRoundTrip;

	Fencing(JdbcClient jdbc, LeaseMetrics metrics, OneRoundTrip oneRoundTrip) {
		this.jdbc = jdbc;
		this.metrics = metrics;
		this.oneRoundTrip = oneRoundTrip;
	}

	/**
	 * Ends the lease if (and only if) it is current, at the transaction's time: the CTEs
	 * {@code ended} and {@code recorded}.
	 */
	private static String endIfCurrent(String outcome, String reason) {
		return LeaseHistory.endAndRecord("where " + LEASE_IS_CURRENT, "now()", outcome, reason);
	}

	/**
	 * Locks the item held under the lease for the rest of the transaction, or throws the
	 * rejection when the lease is not current. Under this lock nobody else can end the
	 * lease or re-grant the item.
	 */
	public LockedItem lockItem(UUID leaseId, long epoch) {
		List<LockedLease> locked = this.jdbc.sql(LOCK_ITEM_OF_LEASE)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.query(Fencing::lockedLease)
			.list();
		return current(locked, leaseId, epoch);
	}

	/**
	 * The item {@link #LOCK_ITEM_OF_LEASE} locked, or the rejection when the lease is not
	 * current.
	 */
	private LockedItem current(List<LockedLease> rows, UUID leaseId, long epoch) {
		if (rows.isEmpty()) {
			throw rejection(leaseId, epoch);
		}
		LockedLease locked = rows.getFirst();
		LogContext.item(locked.item().id());
		if (!locked.current()) {
			throw rejection(leaseId, epoch);
		}
		return locked.item();
	}

	/**
	 * {@link #LOCK_ITEM_OF_LEASE}, then {@code guarded} (a write that checks
	 * {@link #LEASE_IS_CURRENT} itself) in the same round trip: the write's row, or the
	 * rejection when the lease is not current. {@code params} hold the lease's
	 * {@code leaseId} and {@code epoch} besides the write's own. Call it in a
	 * transaction, which a rejection rolls back (see {@link #complete} for why one might
	 * be needed).
	 */
	public <T> T lockItemThen(String guarded, RowMapper<T> rows, Map<String, Object> params, UUID leaseId, long epoch) {
		OneRoundTrip.Answers<LockedLease, T> answers = this.oneRoundTrip.query(LOCK_ITEM_OF_LEASE, Fencing::lockedLease,
				guarded, rows, params);
		current(answers.first(), leaseId, epoch);
		return answers.second().stream().findFirst().orElseThrow(() -> rejection(leaseId, epoch));
	}

	/** The parameters of {@link #LEASE_IS_CURRENT}, in a map that takes more. */
	public static Map<String, Object> guard(UUID leaseId, long epoch) {
		Map<String, Object> params = new HashMap<>();
		params.put("leaseId", leaseId);
		params.put("epoch", epoch);
		return params;
	}

	private static LockedLease lockedLease(ResultSet rs, int n) throws SQLException {
		return new LockedLease(LockedItem.map(rs, n), rs.getBoolean("current"));
	}

	/**
	 * Ends the lease with the outcome, guarded; throws the rejection when the guard
	 * matches nothing.
	 */
	public LeaseView end(UUID leaseId, long epoch, LeaseOutcome outcome, String reason) {
		LeaseView ended = this.jdbc.sql(END_IF_CURRENT)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("outcome", outcome.wire())
			.param("reason", reason)
			.query(LeaseRows::map)
			.optional()
			.orElseThrow(() -> rejection(leaseId, epoch));
		this.metrics.ended(outcome, 1);
		return ended;
	}

	/**
	 * {@link #lockItem} and {@link #end} sent in one round trip, as {@link #complete}
	 * sends its two statements (see there why that answers as the two would one after the
	 * other). Call it in a transaction, which a rejection rolls back.
	 */
	public LeaseView lockAndEnd(UUID leaseId, long epoch, LeaseOutcome outcome, String reason) {
		Map<String, Object> params = guard(leaseId, epoch);
		params.put("outcome", outcome.wire());
		params.put("reason", reason);
		LeaseView ended = lockItemThen(END_IF_CURRENT, LeaseRows::map, params, leaseId, epoch);
		this.metrics.ended(outcome, 1);
		return ended;
	}

	/** Renews the lease if it is current; throws the rejection otherwise. */
	public LeaseView renew(UUID leaseId, long epoch, int leaseSeconds) {
		return this.jdbc.sql(RENEW_IF_CURRENT)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("leaseSeconds", leaseSeconds)
			.query(LeaseRows::map)
			.optional()
			.orElseThrow(() -> rejection(leaseId, epoch));
	}

	/**
	 * Locks the item as {@link #lockItem} does and completes it if the lease is current
	 * (see {@link #COMPLETE_IF_CURRENT}), the two statements sent in one round trip;
	 * throws the rejection when the lease is not current. {@code result} is JSON text or
	 * null. Call it in a transaction, which a rejection rolls back.
	 *
	 * <p>
	 * The completion runs after the lock, as its own statement with its own snapshot, so
	 * it reads what it would read a round trip later; only it does not wait for the
	 * service to look at the lock's answer first. Where the lock found the lease not
	 * current, the completion's guard (the same one, at the same {@code now()}) matched
	 * nothing and wrote nothing, unless a renewal that started earlier committed in
	 * between; the rejection thrown then rolls that back too.
	 */
	public Completion complete(UUID leaseId, long epoch, String result) {
		Map<String, Object> params = guard(leaseId, epoch);
		params.put("result", result);
		Completion completion = lockItemThen(COMPLETE_IF_CURRENT, Fencing::completion, params, leaseId, epoch);
		if (completion.completed()) {
			this.metrics.ended(LeaseOutcome.COMPLETED, 1);
		}
		return completion;
	}

	private static Completion completion(ResultSet rs, int n) throws SQLException {
		return new Completion(LeaseRows.read(rs, LeaseRows.PREFIX_BESIDE_ITEM), rs.getBoolean("completed"),
				Rows.uuid(rs, "parent_id"), rs.getInt("blocking_children"), rs.getInt("blocking_dependencies"),
				uuids(rs.getArray("dependents")), completedItem(rs, n));
	}

	/**
	 * The view of the item a completion statement completed, from the item's row and its
	 * parts beside the ended lease ({@link #COMPLETE_IF_CURRENT}, and
	 * {@link BatchFencing#COMPLETE_ALL_IF_CURRENT_WITH_ITEMS}); null when it completed
	 * nothing.
	 */
	public static ItemView completedItem(ResultSet rs, int n) throws SQLException {
		// The item ended its lease: its view shows none.
		return rs.getBoolean("completed") ? ItemViews.viewWithParts(ItemRow.map(rs, n), rs, null) : null;
	}

	private LeaseRejected rejected(LeaseRejected.Reason reason, UUID leaseId, long presentedEpoch, long currentEpoch) {
		LeaseRejected rejected = new LeaseRejected(reason, leaseId, presentedEpoch, currentEpoch);
		this.metrics.rejected(rejected.code());
		return rejected;
	}

	private static List<UUID> uuids(Array array) throws SQLException {
		return (array != null) ? List.of((UUID[]) array.getArray()) : List.of();
	}

	/**
	 * Classifies a guard that matched nothing. Call it in the transaction that ran the
	 * guard, or right after a guard that committed on its own (a renewal: it wrote
	 * nothing).
	 */
	public RuntimeException rejection(UUID leaseId, long presentedEpoch) {
		LeaseState state = this.jdbc.sql(LEASE_STATE)
			.param("leaseId", leaseId)
			.query((rs, n) -> new LeaseState(rs.getLong("epoch"), rs.getBoolean("expired"), rs.getBoolean("ended"),
					rs.getLong("current_epoch"), Rows.uuid(rs, "item_id")))
			.optional()
			.orElse(null);
		if (state == null) {
			return new LeaseNotFound(leaseId);
		}
		LogContext.item(state.itemId());
		if (state.expired()) {
			return rejected(LeaseRejected.Reason.EXPIRED, leaseId, presentedEpoch, state.currentEpoch());
		}
		if (state.ended()) {
			return rejected(LeaseRejected.Reason.ENDED, leaseId, presentedEpoch, state.currentEpoch());
		}
		if (state.epoch() != presentedEpoch) {
			return rejected(LeaseRejected.Reason.EPOCH_MISMATCH, leaseId, presentedEpoch, state.currentEpoch());
		}
		// The guard failed, yet the lease now looks current: it changed between the
		// two statements. Retrying the whole transaction gives a consistent answer.
		return new ConcurrencyFailureException("Lease " + leaseId + " changed while being checked");
	}

	/**
	 * A completion under a current lease: the ended lease, whether the item could be
	 * completed (else its open children or unmet dependencies), its parent and
	 * dependents.
	 */
	public record Completion(LeaseView lease, boolean completed, UUID parentId, int openChildren, int unmetDependencies,
			List<UUID> dependents, ItemView item) {
	}

	private record LockedLease(LockedItem item, boolean current) {
	}

	private record LeaseState(long epoch, boolean expired, boolean ended, long currentEpoch, UUID itemId) {
	}

}
