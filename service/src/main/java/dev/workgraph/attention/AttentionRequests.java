package dev.workgraph.attention;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.lease.Fencing;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Writes to attention_requests. */
@Repository
class AttentionRequests {

	/** Guarded like every lease mutation: only a current lease may ask. */
	static final String INSERT_IF_LEASE_CURRENT = """
			insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, blocking, question,
			    context, timeout_at, on_timeout, default_resolution, escalate_to)
			select :id, l.item_id, l.id, l.epoch, l.worker_id, 'worker', :blocking, :question, :context::jsonb,
			    now() + make_interval(secs => :timeoutSeconds::integer), :onTimeout, :defaultResolution, :escalateTo
			from leases l
			where %s
			returning id
			""".formatted(Fencing.LEASE_IS_CURRENT);

	/**
	 * Open requests past their deadline (PostgreSQL's clock) not escalated yet, their
	 * items locked; items another transaction holds are skipped, for the next pass.
	 */
	static final String LOCK_DUE = """
			select a.item_id
			from attention_requests a
			join work_items w on w.id = a.item_id
			where a.status = 'open' and a.escalated_at is null and a.timeout_at <= now()
			order by a.timeout_at
			limit :limit
			for no key update of w skip locked
			""";

	/**
	 * The due requests of items this transaction has locked, read after the lock: an
	 * answer that came first (it locks the item too) has resolved them, and they are not
	 * read.
	 */
	static final String DUE_OF_LOCKED_ITEMS = """
			select id, item_id, lease_id, epoch, blocking, on_timeout, default_resolution, escalate_to, question
			from attention_requests
			where item_id = any(:itemIds::uuid[]) and status = 'open' and escalated_at is null and timeout_at <= now()
			order by item_id, id
			""";

	static final String ESCALATE_IF_OPEN = """
			update attention_requests set escalated_at = now()
			where id = any(:ids::uuid[]) and status = 'open' and escalated_at is null and on_timeout = 'escalate'
			""";

	static final String INSERT_SYSTEM_REQUEST = """
			insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, kind, blocking,
			    question, context)
			values (:id, :itemId, :leaseId, :epoch, null, 'system', :kind, true, :question, :context::jsonb)
			""";

	/**
	 * Resolves an open request; resolving a system request also restarts the item's count
	 * of expiries in a row and of leases without progress, and one of attempts used up
	 * its attempts. Returns nothing when the request was not open.
	 */
	static final String RESOLVE_IF_OPEN = """
			with resolved as (
			    update attention_requests
			    set status = 'resolved', resolution = :resolution, resolved_by = :resolvedBy, resolved_at = now()
			    where id = :id and status = 'open'
			    returning item_id, blocking, raised_by, kind
			), streak_reset as (
			    -- Answering "retries exhausted" gives the item its attempts again; answering any
			    -- system request starts the no-progress count afresh (a human has looked).
			    update work_items w set consecutive_expirations = 0,
			        attempts = case when r.kind = 'retries_exhausted' then 0 else w.attempts end,
			        progress_counted_after = w.epoch
			    from resolved r
			    where w.id = r.item_id and r.raised_by = 'system'
			)
			select item_id, blocking from resolved
			""";

	static final String ITEM_AND_RESOLVER = """
			select item_id, resolved_by from attention_requests where id = :id
			""";

	/**
	 * Resolves every open request of cancelled items; returns the items' blocking counts
	 * resolved.
	 */
	static final String RESOLVE_OPEN_OF_ITEMS = """
			with resolved as (
			    update attention_requests
			    set status = 'resolved', resolution = :resolution, resolved_by = 'system', resolved_at = now()
			    where item_id = any(:ids::uuid[]) and status = 'open'
			    returning item_id, blocking
			)
			select item_id, count(*) filter (where blocking)::int as blocking from resolved group by item_id
			""";

	/**
	 * The most recent leases of each item, newest first, for naming them in a crash-loop
	 * question.
	 */
	static final String RECENT_LEASES_OF_ITEMS = """
			select item_id, lease_id, worker_id, epoch, acquired_at, ended_at, outcome
			from (
			    select h.*, row_number() over (partition by h.item_id order by h.epoch desc) as recency
			    from lease_history h
			    where h.item_id = any(:ids::uuid[])
			) recent
			where recency <= :count
			order by item_id, epoch desc
			""";

	private final JdbcClient jdbc;

	AttentionRequests(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<UUID> insertIfLeaseCurrent(UUID id, UUID leaseId, long epoch, boolean blocking, String question,
			String context, Deadline deadline) {
		return this.jdbc.sql(INSERT_IF_LEASE_CURRENT)
			.param("id", id)
			.param("timeoutSeconds", deadline.seconds())
			.param("onTimeout", deadline.action())
			.param("defaultResolution", deadline.resolution())
			.param("escalateTo", deadline.escalateTo())
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("blocking", blocking)
			.param("question", question)
			.param("context", context)
			.query(UUID.class)
			.optional();
	}

	List<UUID> lockDue(int limit) {
		return this.jdbc.sql(LOCK_DUE).param("limit", limit).query((rs, n) -> Rows.uuid(rs, "item_id")).list();
	}

	List<Due> dueOfLockedItems(List<UUID> itemIds) {
		return this.jdbc.sql(DUE_OF_LOCKED_ITEMS)
			.param("itemIds", SqlArrays.uuids(itemIds))
			.query((rs, n) -> new Due(Rows.uuid(rs, "id"), Rows.uuid(rs, "item_id"), rs.getBoolean("blocking"),
					rs.getString("on_timeout"), rs.getString("default_resolution"), rs.getString("escalate_to"),
					rs.getString("question")))
			.list();
	}

	int escalateIfOpen(List<UUID> ids) {
		return this.jdbc.sql(ESCALATE_IF_OPEN).param("ids", SqlArrays.uuids(ids)).update();
	}

	void insertSystemRequest(UUID id, UUID itemId, UUID leaseId, long epoch, String kind, String question,
			String context) {
		this.jdbc.sql(INSERT_SYSTEM_REQUEST)
			.param("id", id)
			.param("kind", kind)
			.param("itemId", itemId)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("question", question)
			.param("context", context)
			.update();
	}

	Optional<Resolved> resolveIfOpen(UUID id, String resolution, String resolvedBy) {
		return this.jdbc.sql(RESOLVE_IF_OPEN)
			.param("id", id)
			.param("resolution", resolution)
			.param("resolvedBy", resolvedBy)
			.query((rs, n) -> new Resolved(Rows.uuid(rs, "item_id"), rs.getBoolean("blocking")))
			.optional();
	}

	Optional<ItemAndResolver> itemAndResolver(UUID id) {
		return this.jdbc.sql(ITEM_AND_RESOLVER)
			.param("id", id)
			.query((rs, n) -> new ItemAndResolver(Rows.uuid(rs, "item_id"), rs.getString("resolved_by")))
			.optional();
	}

	List<BlockingResolved> resolveOpenOfItems(List<UUID> itemIds, String resolution) {
		return this.jdbc.sql(RESOLVE_OPEN_OF_ITEMS)
			.param("ids", SqlArrays.uuids(itemIds))
			.param("resolution", resolution)
			.query((rs, n) -> new BlockingResolved(Rows.uuid(rs, "item_id"), rs.getInt("blocking")))
			.list();
	}

	List<RecentLease> recentLeasesOf(List<UUID> itemIds, int count) {
		return this.jdbc.sql(RECENT_LEASES_OF_ITEMS)
			.param("ids", SqlArrays.uuids(itemIds))
			.param("count", count)
			.query((rs, n) -> new RecentLease(Rows.uuid(rs, "item_id"), Rows.uuid(rs, "lease_id"),
					rs.getString("worker_id"), rs.getLong("epoch"), Rows.instant(rs, "acquired_at"),
					Rows.instant(rs, "ended_at"), rs.getString("outcome")))
			.list();
	}

	record Resolved(UUID itemId, boolean blocking) {
	}

	/** An open request past its deadline, with what the deadline does. */
	record Due(UUID id, UUID itemId, boolean blocking, String action, String resolution, String escalateTo,
			String question) {
	}

	record ItemAndResolver(UUID itemId, String resolvedBy) {
	}

	record BlockingResolved(UUID itemId, int blocking) {
	}

	record RecentLease(UUID itemId, UUID leaseId, String workerId, long epoch, java.time.Instant acquiredAt,
			java.time.Instant endedAt, String outcome) {
	}

}
