package dev.workgraph.lease.ending;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.item.LockedItem;
import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseHistory;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.GenericPlans;
import dev.workgraph.sql.OneRoundTrip;
import dev.workgraph.sql.SqlArrays;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseRows;
import dev.workgraph.view.LeaseView;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * {@link Fencing} for many leases in one statement each (group commit, ADR 0009). Every
 * statement takes the requests as parallel arrays and applies the guard of
 * {@link Fencing#LEASE_IS_CURRENT} to each row on its own: a request whose lease is not
 * current matches nothing and changes nothing, the others go ahead. A request that
 * matched nothing is classified afterwards by {@link Fencing#rejection}, exactly as a
 * lone request is.
 */
@Repository
public class BatchFencing {

	/*
	 * Every array parameter goes in behind SqlArrays.opaque: group commit runs these
	 * statements with a few requests each, and with the arrays in view PostgreSQL planned
	 * every execution again.
	 */
	private static final String LEASE_IDS = SqlArrays.opaque("leaseIds", "uuid");

	private static final String EPOCHS = SqlArrays.opaque("epochs", "bigint");

	/** The requests: lease id, presented epoch and position, as {@code x}. */
	private static final String REQUESTS = """
			requests as (
			    select * from unnest(%s, %s) with ordinality as x(lease_id, epoch, position)
			)""".formatted(LEASE_IDS, EPOCHS);

	/** The lease guard for the request {@code x}. */
	private static final String REQUEST_IS_CURRENT = Fencing.leaseIsCurrent("x.lease_id", "x.epoch");

	/**
	 * Names the requests' leases by key to the statements that change them. Without it
	 * the planner joins the requests to {@code leases} as its statistics suggest, and
	 * they usually describe a nearly empty table (it holds only active leases and is
	 * analyzed between bursts): then the join returned every active lease for every
	 * batch. With it a statement returns only the requests' leases, but under those
	 * statistics it may still read every active lease to find them: the table an UPDATE
	 * or DELETE changes cannot be looked up request by request as
	 * {@link #LOCK_ITEMS_OF_LEASES} looks it up.
	 */
	private static final String LEASES_OF_REQUESTS = "l.id = any(" + LEASE_IDS + ")";

	/** The guard of the statements that change the requests' leases. */
	private static final String REQUESTED_LEASE_IS_CURRENT = LEASES_OF_REQUESTS + " and " + REQUEST_IS_CURRENT;

	/**
	 * Locks the items of the requests' leases that are still active, in item id order so
	 * that two batches sharing items wait for each other instead of deadlocking (the same
	 * order {@code ADJUST_BLOCKERS} locks in); says for each whether the guard holds.
	 * Each request looks its lease up on its own ({@link Fencing#leaseByKey}): joined
	 * with the leases as a set, the plan also compared every active lease with every
	 * request.
	 */
	public static final String LOCK_ITEMS_OF_LEASES = """
			with %s
			select x.position, %s, (%s) as current
			from requests x
			cross join lateral %s l
			join work_items w on w.id = l.item_id
			order by w.id
			for no key update of w
			""".formatted(REQUESTS, LockedItem.columns("w"), REQUEST_IS_CURRENT, Fencing.leaseByKey("x.lease_id"));

	/**
	 * Completes the items under the requests' current leases, each with its own result:
	 * ends the leases, records the results, and returns who waits for each item. The
	 * caller has locked the items and checked that none has open children or unmet
	 * dependencies; a row with {@code completed} false means that check was wrong and the
	 * caller rolls back.
	 */
	public static final String COMPLETE_ALL_IF_CURRENT = completeAll("w.id, w.parent_id",
			LeaseRows.ENDED + ",\n    c.id is not null as completed, c.parent_id", "");

	/**
	 * {@link #COMPLETE_ALL_IF_CURRENT}, each row with its completed item's view as
	 * {@link Fencing#COMPLETE_IF_CURRENT} returns a lone one's, for answers that show the
	 * items: read here, the views cost neither a statement of their own after the commit
	 * nor a second look-up of each item.
	 */
	public static final String COMPLETE_ALL_IF_CURRENT_WITH_ITEMS = completeAll("w.*",
			LeaseRows.ended(LeaseRows.PREFIX_BESIDE_ITEM) + ",\n    c.id is not null as completed, c.*, i.*", """
					left join lateral (select
					%s
					    from (select c.id where c.id is not null) as i(id)) i on true
					""".formatted(ItemViews.PARTS_OF_I));

	private static String completeAll(String completedColumns, String columns, String joins) {
		return """
				with requests as (
				    select * from unnest(%s, %s, %s) as x(lease_id, epoch, result)
				), %s, completed as (
				    update work_items w
				    set status = 'completed', result = x.result::jsonb, closed_at = now(), updated_at = now(),
				        consecutive_expirations = 0
				    from recorded h
				    join requests x on x.lease_id = h.lease_id
				    where w.id = h.item_id and w.open_children = 0 and w.unmet_dependencies = 0
				    returning %s
				)
				select %s,
				    array(select d.item_id from dependencies d where d.depends_on_id = h.item_id) as dependents
				from recorded h
				left join completed c on c.id = h.item_id
				%s""".formatted(LEASE_IDS, EPOCHS, SqlArrays.opaque("results", "text"), LeaseHistory
			.endAndRecord("using requests x where " + REQUESTED_LEASE_IS_CURRENT, "now()", "'completed'", "null"),
				completedColumns, columns, joins);
	}

	/**
	 * Releases the requests' current leases, each with its own reason, as
	 * {@link Fencing#END_IF_CURRENT} releases one; the caller settles the items.
	 */
	public static final String RELEASE_ALL_IF_CURRENT = """
			with requests as (
			    select * from unnest(%s, %s, %s) as x(lease_id, epoch, reason)
			), %s, streak_broken as (
			    update work_items w set consecutive_expirations = 0
			    from recorded h
			    where w.id = h.item_id and w.consecutive_expirations <> 0
			)
			select %s
			from recorded h
			""".formatted(LEASE_IDS, EPOCHS, SqlArrays.opaque("reasons", "text"),
			LeaseHistory.endAndRecord("using requests x where " + REQUESTED_LEASE_IS_CURRENT, "now()", "'released'",
					"(select x.reason from requests x where x.lease_id = e.id)"),
			LeaseRows.ENDED);

	/** Renews the requests' current leases, each by its own length. */
	public static final String RENEW_ALL_IF_CURRENT = """
			update leases l
			set expires_at = now() + make_interval(secs => x.lease_seconds), renewed_at = now()
			from unnest(%s, %s, %s) as x(lease_id, epoch, lease_seconds)
			where %s
			returning %s
			""".formatted(LEASE_IDS, EPOCHS, SqlArrays.opaque("leaseSeconds", "int"), REQUESTED_LEASE_IS_CURRENT,
			LeaseRows.ACTIVE);

	private final JdbcClient jdbc;

	private final OneRoundTrip oneRoundTrip;

	BatchFencing(JdbcClient jdbc, OneRoundTrip oneRoundTrip) {
		this.jdbc = jdbc;
		this.oneRoundTrip = oneRoundTrip;
	}

	/**
	 * Locks the items of the active leases among the requests (see
	 * {@link #LOCK_ITEMS_OF_LEASES}); answers per request, in request order, the locked
	 * item and whether its lease is current, or null where the lease is not active.
	 */
	public List<Locked> lockItems(List<UUID> leaseIds, long[] epochs) {
		List<Locked> locked = new ArrayList<>(Collections.nCopies(leaseIds.size(), null));
		// First in the batch's transaction, in the same round trip: the statements after
		// it, priced for ten rows with an item view each, must not be JIT-compiled.
		this.oneRoundTrip.queryAfter(GenericPlans.NO_JIT, LOCK_ITEMS_OF_LEASES, (rs, n) -> {
			locked.set(rs.getInt("position") - 1, new Locked(LockedItem.map(rs, n), rs.getBoolean("current")));
			return null;
		}, Map.of("leaseIds", SqlArrays.uuids(leaseIds), "epochs", SqlArrays.longs(epochs)));
		return locked;
	}

	/**
	 * Completes under the current ones of the leases (see
	 * {@link #COMPLETE_ALL_IF_CURRENT}); answers one row per lease it completed, with the
	 * completed item's view if {@code withItems}. {@code results} are JSON texts or
	 * nulls.
	 */
	List<Fencing.Completion> completeAll(List<UUID> leaseIds, long[] epochs, List<String> results, boolean withItems) {
		return this.jdbc.sql(withItems ? COMPLETE_ALL_IF_CURRENT_WITH_ITEMS : COMPLETE_ALL_IF_CURRENT)
			.param("leaseIds", SqlArrays.uuids(leaseIds))
			.param("epochs", SqlArrays.longs(epochs))
			.param("results", SqlArrays.texts(results))
			.query(withItems ? BatchFencing::completionWithItem : BatchFencing::completion)
			.list();
	}

	private static Fencing.Completion completion(ResultSet rs, int n) throws SQLException {
		return new Fencing.Completion(LeaseRows.map(rs, n), rs.getBoolean("completed"), Rows.uuid(rs, "parent_id"), 0,
				0, uuids(rs.getArray("dependents")), null);
	}

	private static Fencing.Completion completionWithItem(ResultSet rs, int n) throws SQLException {
		return new Fencing.Completion(LeaseRows.read(rs, LeaseRows.PREFIX_BESIDE_ITEM), rs.getBoolean("completed"),
				Rows.uuid(rs, "parent_id"), 0, 0, uuids(rs.getArray("dependents")), Fencing.completedItem(rs, n));
	}

	/**
	 * Releases the current ones of the leases (see {@link #RELEASE_ALL_IF_CURRENT});
	 * answers one row per lease it released.
	 */
	List<LeaseView> releaseAll(List<UUID> leaseIds, long[] epochs, List<String> reasons) {
		return this.jdbc.sql(RELEASE_ALL_IF_CURRENT)
			.param("leaseIds", SqlArrays.uuids(leaseIds))
			.param("epochs", SqlArrays.longs(epochs))
			.param("reasons", SqlArrays.texts(reasons))
			.query(LeaseRows::map)
			.list();
	}

	/** Renews the current ones of the leases; answers one row per lease it renewed. */
	List<LeaseView> renewAll(List<UUID> leaseIds, long[] epochs, int[] leaseSeconds) {
		return this.jdbc.sql(RENEW_ALL_IF_CURRENT)
			.param("leaseIds", SqlArrays.uuids(leaseIds))
			.param("epochs", SqlArrays.longs(epochs))
			.param("leaseSeconds", SqlArrays.ints(leaseSeconds))
			.query(LeaseRows::map)
			.list();
	}

	private static List<UUID> uuids(Array array) throws SQLException {
		return (array != null) ? List.of((UUID[]) array.getArray()) : List.of();
	}

	/** The item of an active lease, locked, and whether the lease's guard holds. */
	public record Locked(LockedItem item, boolean current) {
	}

}
