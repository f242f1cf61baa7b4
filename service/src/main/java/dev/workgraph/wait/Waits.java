package dev.workgraph.wait;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.lease.Fencing;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Writes to {@code waits}. Every change of a wait's status is guarded by
 * {@code status = 'open'}: an event and the deadline that race for one wait both try, and
 * the row lock lets exactly one of them through.
 */
@Repository
class Waits {

	/**
	 * Registers a wait under the current lease (guarded like every lease mutation): open,
	 * or matched at once by a retained event ({@code :matchedEvent} not null).
	 */
	static final String INSERT_IF_LEASE_CURRENT = """
			insert into waits (id, item_id, lease_id, epoch, worker_id, event_name, event_key, status, on_timeout,
			    timeout_at, matched_event, resolved_at)
			select :id, l.item_id, l.id, l.epoch, l.worker_id, :name, :key,
			    case when :matchedEvent::jsonb is null then 'open' else 'matched' end, :onTimeout,
			    now() + make_interval(secs => :timeoutSeconds::integer), :matchedEvent::jsonb,
			    case when :matchedEvent::jsonb is not null then now() end
			from %s l
			where %s
			returning item_id, status
			""".formatted(Fencing.leaseByKey(":leaseId"), Fencing.LEASE_IS_CURRENT);

	/** The open waits for an event's name and key, with their items. */
	static final String OPEN_WAITS_FOR_EVENT = """
			select id, item_id from waits
			where event_name = :name and event_key = :key and status = 'open'
			order by item_id, id
			""";

	/** Matches the waits that are still open; returns their items. */
	static final String MATCH_IF_OPEN = """
			update waits
			set status = 'matched', matched_event = :matchedEvent::jsonb, resolved_at = now()
			where id = any(:ids::uuid[]) and status = 'open'
			returning item_id
			""";

	/**
	 * Open waits past their deadline (PostgreSQL's clock), their items locked; items
	 * another transaction holds are skipped, for the next pass (or another instance).
	 */
	static final String LOCK_DUE = """
			select t.id
			from waits t
			join work_items w on w.id = t.item_id
			where t.status = 'open' and t.timeout_at <= now()
			order by t.timeout_at
			limit :limit
			for no key update of w skip locked
			""";

	/** Times out the waits that are still open, with what the deadline does. */
	static final String TIME_OUT_IF_OPEN = """
			update waits
			set status = 'timed_out', resolved_at = now()
			where id = any(:ids::uuid[]) and status = 'open'
			returning id, item_id, lease_id, epoch, worker_id, event_name, event_key, on_timeout, timeout_at, created_at
			""";

	/** Cancels the open waits of cancelled items; returns how many per item. */
	static final String CANCEL_OPEN_OF_ITEMS = """
			with cancelled as (
			    update waits set status = 'cancelled', resolved_at = now()
			    where item_id = any(:ids::uuid[]) and status = 'open'
			    returning item_id
			)
			select item_id, count(*)::int as waits from cancelled group by item_id
			""";

	private final JdbcClient jdbc;

	Waits(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<Inserted> insertIfLeaseCurrent(UUID id, UUID leaseId, long epoch, String name, String key,
			OnTimeout onTimeout, Integer timeoutSeconds, String matchedEvent) {
		return this.jdbc.sql(INSERT_IF_LEASE_CURRENT)
			.param("id", id)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("name", name)
			.param("key", key)
			.param("onTimeout", onTimeout.wire())
			.param("timeoutSeconds", timeoutSeconds)
			.param("matchedEvent", matchedEvent)
			.query((rs, n) -> new Inserted(Rows.uuid(rs, "item_id"), "matched".equals(rs.getString("status"))))
			.optional();
	}

	List<OpenWait> openFor(String name, String key) {
		return this.jdbc.sql(OPEN_WAITS_FOR_EVENT)
			.param("name", name)
			.param("key", key)
			.query((rs, n) -> new OpenWait(Rows.uuid(rs, "id"), Rows.uuid(rs, "item_id")))
			.list();
	}

	List<UUID> matchIfOpen(Collection<UUID> ids, String matchedEvent) {
		return this.jdbc.sql(MATCH_IF_OPEN)
			.param("ids", SqlArrays.uuids(ids))
			.param("matchedEvent", matchedEvent)
			.query((rs, n) -> Rows.uuid(rs, "item_id"))
			.list();
	}

	List<UUID> lockDue(int limit) {
		return this.jdbc.sql(LOCK_DUE).param("limit", limit).query((rs, n) -> Rows.uuid(rs, "id")).list();
	}

	List<TimedOut> timeOutIfOpen(Collection<UUID> ids) {
		return this.jdbc.sql(TIME_OUT_IF_OPEN)
			.param("ids", SqlArrays.uuids(ids))
			.query((rs, n) -> new TimedOut(Rows.uuid(rs, "id"), Rows.uuid(rs, "item_id"), Rows.uuid(rs, "lease_id"),
					rs.getLong("epoch"), rs.getString("worker_id"), rs.getString("event_name"),
					rs.getString("event_key"), OnTimeout.fromWire(rs.getString("on_timeout")),
					Rows.instant(rs, "timeout_at"), Rows.instant(rs, "created_at")))
			.list();
	}

	List<CancelledWaits> cancelOpenOfItems(Collection<UUID> itemIds) {
		return this.jdbc.sql(CANCEL_OPEN_OF_ITEMS)
			.param("ids", SqlArrays.uuids(itemIds))
			.query((rs, n) -> new CancelledWaits(Rows.uuid(rs, "item_id"), rs.getInt("waits")))
			.list();
	}

	/** A wait just registered: its item, and whether a retained event matched it. */
	record Inserted(UUID itemId, boolean matched) {
	}

	record OpenWait(UUID id, UUID itemId) {
	}

	record TimedOut(UUID id, UUID itemId, UUID leaseId, long epoch, String workerId, String name, String key,
			OnTimeout onTimeout, Instant timeoutAt, Instant createdAt) {
	}

	record CancelledWaits(UUID itemId, int waits) {
	}

}
