package dev.workgraph.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the database says happened, read directly (not through the service under test):
 * every lease, active or ended, with PostgreSQL's timestamps in microseconds; every item;
 * every attention request; and an independent from-scratch recount of the readiness
 * counters.
 */
final class ServerHistory {

	static final String LEASES = micros(
			"""
					select lease_id, item_id, worker_id, epoch, micros(acquired_at) as acquired, micros(renewed_at) as renewed,
					    micros(expires_at) as expires, micros(ended_at) as ended, outcome, false as active,
					    (select w.queue from work_items w where w.id = item_id) as queue
					from lease_history
					union all
					select id, item_id, worker_id, epoch, micros(acquired_at), micros(renewed_at), micros(expires_at), null, null,
					    true, queue
					from leases
					""");

	static final String ITEMS = """
			select id, title, status, epoch, parent_id, result ->> 'lease' as result_lease, attempts,
			    (retry ->> 'maxAttempts')::integer as max_attempts
			from work_items
			""";

	static final String ATTENTION_REQUESTS = micros("""
			select id, item_id, lease_id, epoch, raised_by, blocking, status, micros(opened_at) as opened, kind,
			    micros(resolved_at) as resolved, resolved_by, context ->> 'waitId' as wait_id
			from attention_requests
			""");

	static final String CHECKPOINTS = micros("""
			select item_id, seq, lease_id, epoch, worker_id, micros(created_at) as created
			from checkpoints
			""");

	static final String WAITS = micros("""
			select id, item_id, lease_id, epoch, worker_id, event_name, event_key, status, on_timeout,
			    micros(timeout_at) as timeout, (matched_event ->> 'eventId')::uuid as matched_by,
			    micros(created_at) as created, micros(resolved_at) as resolved
			from waits
			""");

	static final String EVENTS = micros("""
			select id, client_id, name, key, micros(received_at) as received, matched_waits
			from events
			""");

	/**
	 * The blockers of every item counted from the graph itself, next to the stored
	 * counters. Written independently of the service's own consistency audit.
	 */
	static final String RECOUNT = """
			select w.id, w.status, w.unmet_dependencies, w.open_children, w.open_attention_requests,
			    (select count(*) from dependencies d join work_items t on t.id = d.depends_on_id
			     where d.item_id = w.id and t.status <> 'completed') as unmet,
			    (select count(*) from work_items c
			     where c.parent_id = w.id and c.status not in ('completed', 'cancelled')) as children,
			    (select count(*) from attention_requests a
			     where a.item_id = w.id and a.status = 'open' and a.blocking) as attention,
			    w.open_waits, (select count(*) from waits x where x.item_id = w.id and x.status = 'open') as waits,
			    w.not_before is not null as scheduled,
			    exists (select 1 from leases l where l.item_id = w.id) as leased,
			    exists (select 1 from ready_items r where r.item_id = w.id) as queued
			from work_items w
			""";

	static final String HISTORY_FINGERPRINT = "select lease_id, md5(h::text) from lease_history h";

	static final String OPEN_ITEMS = "select count(*) from work_items where status not in ('completed', 'cancelled')";

	private ServerHistory() {
	}

	static List<LeaseRow> leases(Connection connection) throws SQLException {
		List<LeaseRow> rows = new ArrayList<>();
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(LEASES)) {
			while (rs.next()) {
				rows.add(new LeaseRow(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getString(3),
						rs.getLong(4), rs.getLong(5), nullableLong(rs, 6), rs.getLong(7), nullableLong(rs, 8),
						rs.getString(9), rs.getBoolean(10), rs.getString(11)));
			}
		}
		return rows;
	}

	static Map<UUID, ItemRow> items(Connection connection) throws SQLException {
		Map<UUID, ItemRow> rows = new HashMap<>();
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(ITEMS)) {
			while (rs.next()) {
				UUID id = rs.getObject(1, UUID.class);
				rows.put(id, new ItemRow(id, rs.getString(2), rs.getString(3), rs.getLong(4),
						rs.getObject(5, UUID.class), rs.getString(6), rs.getInt(7), (Integer) rs.getObject(8)));
			}
		}
		return rows;
	}

	static List<AttentionRow> attentionRequests(Connection connection) throws SQLException {
		List<AttentionRow> rows = new ArrayList<>();
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(ATTENTION_REQUESTS)) {
			while (rs.next()) {
				String waitId = rs.getString(12);
				rows.add(new AttentionRow(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
						rs.getObject(3, UUID.class), rs.getLong(4), rs.getString(5), rs.getBoolean(6), rs.getString(7),
						rs.getLong(8), rs.getString(9), nullableLong(rs, 10), rs.getString(11),
						(waitId != null) ? UUID.fromString(waitId) : null));
			}
		}
		return rows;
	}

	/**
	 * Checkpoints, waits and events: what workers saved and waited for, and what the
	 * world sent.
	 */
	static Operations operations(Connection connection) throws SQLException {
		List<CheckpointRow> checkpoints = new ArrayList<>();
		List<WaitRow> waits = new ArrayList<>();
		List<EventRow> events = new ArrayList<>();
		try (Statement statement = connection.createStatement()) {
			try (ResultSet rs = statement.executeQuery(CHECKPOINTS)) {
				while (rs.next()) {
					checkpoints.add(new CheckpointRow(rs.getObject(1, UUID.class), rs.getLong(2),
							rs.getObject(3, UUID.class), rs.getLong(4), rs.getString(5), rs.getLong(6)));
				}
			}
			try (ResultSet rs = statement.executeQuery(WAITS)) {
				while (rs.next()) {
					waits.add(new WaitRow(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
							rs.getObject(3, UUID.class), rs.getLong(4), rs.getString(5), rs.getString(6),
							rs.getString(7), rs.getString(8), rs.getString(9), nullableLong(rs, 10),
							rs.getObject(11, UUID.class), rs.getLong(12), nullableLong(rs, 13)));
				}
			}
			try (ResultSet rs = statement.executeQuery(EVENTS)) {
				while (rs.next()) {
					events.add(new EventRow(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
							rs.getString(4), rs.getLong(5), rs.getInt(6)));
				}
			}
		}
		return new Operations(checkpoints, waits, events);
	}

	/** Items whose stored counters, status or queue entry disagree with the recount. */
	static List<String> recountDisagreements(Connection connection) throws SQLException {
		List<String> problems = new ArrayList<>();
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(RECOUNT)) {
			while (rs.next()) {
				String id = rs.getString("id");
				String status = rs.getString("status");
				int unmet = rs.getInt("unmet");
				int children = rs.getInt("children");
				int attention = rs.getInt("attention");
				boolean leased = rs.getBoolean("leased");
				if (rs.getInt("open_waits") != rs.getInt("waits")) {
					problems.add(id + ": stored open waits " + rs.getInt("open_waits") + " but recounted "
							+ rs.getInt("waits"));
				}
				if (rs.getInt("unmet_dependencies") != unmet || rs.getInt("open_children") != children
						|| rs.getInt("open_attention_requests") != attention) {
					problems.add(id + ": stored blockers (" + rs.getInt("unmet_dependencies") + ", "
							+ rs.getInt("open_children") + ", " + rs.getInt("open_attention_requests")
							+ ") but recounted (" + unmet + ", " + children + ", " + attention + ")");
				}
				boolean terminal = status.equals("completed") || status.equals("cancelled");
				String expected = terminal ? status : leased ? "leased" : (unmet == 0 && children == 0 && attention == 0
						&& rs.getInt("waits") == 0 && !rs.getBoolean("scheduled")) ? "ready" : "blocked";
				if (!expected.equals(status)) {
					problems.add(id + ": status " + status + " but the recount says " + expected);
				}
				if (terminal && leased) {
					problems.add(id + ": " + status + " yet still has an active lease");
				}
				if (rs.getBoolean("queued") != status.equals("ready")) {
					problems.add(id + ": status " + status + (rs.getBoolean("queued") ? " but" : " and not")
							+ " in the claim queue");
				}
			}
		}
		return problems;
	}

	static Map<UUID, String> historyFingerprint(Connection connection) throws SQLException {
		Map<UUID, String> rows = new HashMap<>();
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(HISTORY_FINGERPRINT)) {
			while (rs.next()) {
				rows.put(rs.getObject(1, UUID.class), rs.getString(2));
			}
		}
		return rows;
	}

	static long openItems(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(OPEN_ITEMS)) {
			rs.next();
			return rs.getLong(1);
		}
	}

	/** Timestamps as exact microseconds since the epoch, free of any time zone. */
	private static String micros(String sql) {
		return sql.replaceAll("micros\\((\\w+)\\)", "(extract(epoch from $1) * 1000000)::bigint");
	}

	private static Long nullableLong(ResultSet rs, int column) throws SQLException {
		long value = rs.getLong(column);
		return rs.wasNull() ? null : value;
	}

	/**
	 * A lease: times in microseconds since the epoch on PostgreSQL's clock; {@code ended}
	 * and {@code outcome} are null while it is active.
	 */
	record LeaseRow(UUID leaseId, UUID itemId, String workerId, long epoch, long acquired, Long renewed, long expires,
			Long ended, String outcome, boolean active, String queue) {
	}

	/**
	 * An item; {@code maxAttempts} is its stored retry policy's (null: the service's
	 * default), {@code attempts} its count since the last answer to its "retries
	 * exhausted" request.
	 */
	record ItemRow(UUID id, String title, String status, long epoch, UUID parentId, String resultLease, int attempts,
			Integer maxAttempts) {

		ItemRow(UUID id, String title, String status, long epoch, UUID parentId, String resultLease) {
			this(id, title, status, epoch, parentId, resultLease, 0, null);
		}

		boolean terminal() {
			return this.status.equals("completed") || this.status.equals("cancelled");
		}

	}

	/**
	 * An attention request; {@code kind} is null for a worker's question,
	 * {@code resolved} null while it is open, {@code waitId} the wait a
	 * {@code wait_timed_out} request names.
	 */
	record AttentionRow(UUID id, UUID itemId, UUID leaseId, long epoch, String raisedBy, boolean blocking,
			String status, long opened, String kind, Long resolved, String resolvedBy, UUID waitId) {

		AttentionRow(UUID id, UUID itemId, UUID leaseId, long epoch, String raisedBy, boolean blocking, String status,
				long opened) {
			this(id, itemId, leaseId, epoch, raisedBy, blocking, status, opened, null, null, null, null);
		}

		/** Answered by a person (not by a deadline's default or the system). */
		boolean answeredByAHuman() {
			return "resolved".equals(this.status) && this.resolvedBy != null && !"system".equals(this.resolvedBy);
		}

	}

	/** Checkpoints, waits and events as the database has them after the drain. */
	record Operations(List<CheckpointRow> checkpoints, List<WaitRow> waits, List<EventRow> events) {

		static final Operations NONE = new Operations(List.of(), List.of(), List.of());

	}

	/** A checkpoint; {@code created} in microseconds on PostgreSQL's clock. */
	record CheckpointRow(UUID itemId, long seq, UUID leaseId, long epoch, String workerId, long created) {
	}

	/**
	 * A wait; {@code matchedBy} the id of the event that matched it, {@code timeout} and
	 * {@code resolved} null when it has no deadline or is still open.
	 */
	record WaitRow(UUID id, UUID itemId, UUID leaseId, long epoch, String workerId, String name, String key,
			String status, String onTimeout, Long timeout, UUID matchedBy, long created, Long resolved) {
	}

	/** An event; {@code clientId} is the sender's own id. */
	record EventRow(UUID id, String clientId, String name, String key, long received, int matchedWaits) {
	}

}
