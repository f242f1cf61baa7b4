package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads the backlog of every queue: how many of its items are ready, leased and blocked,
 * how long its oldest ready item has waited, and whether an operator paused or capped it.
 */
@Repository
public class QueueViews {

	/**
	 * Each count from where that state lives (ADR 0015): ready items and their ages from
	 * {@code ready_items}, leases from {@code leases} (which carry their item's queue),
	 * blocked items from {@code parked_items}, whose cancelled entries its status index
	 * lets the count skip; the operator's settings from {@code queue_settings}. No
	 * completed item is read, so the cost grows with the open items; ages come from
	 * PostgreSQL's clock like every other time. {@code %1$s}: the condition on a
	 * {@code queue} column that picks the queues shown.
	 */
	private static final String QUEUES_TEMPLATE = """
			with ready as (
			    select queue, count(*) as n, min(ready_since) as oldest from ready_items where %1$s group by queue
			), leased as (
			    select queue, count(*) as n from leases where %1$s group by queue
			), blocked as (
			    select queue, count(*) as n from parked_items where status = 'blocked' and %1$s group by queue
			), settings as (
			    select name as queue, paused, max_active_leases from queue_settings where %2$s
			)
			select q.queue,
			    coalesce(r.n, 0) as ready,
			    coalesce(l.n, 0) as leased,
			    coalesce(b.n, 0) as blocked,
			    r.oldest as oldest_ready_since,
			    extract(epoch from now() - r.oldest) as oldest_ready_age_seconds,
			    coalesce(s.paused, false) as paused,
			    s.max_active_leases
			from (%3$s) q
			left join ready r using (queue)
			left join leased l using (queue)
			left join blocked b using (queue)
			left join settings s using (queue)
			order by q.queue
			""";

	/**
	 * Every queue that has open items, and every queue an operator has paused or capped
	 * (it may have none yet).
	 */
	static final String QUEUE_BACKLOGS = QUEUES_TEMPLATE.formatted("true", "paused or max_active_leases is not null",
			"""
					select queue from ready union select queue from leased union select queue from blocked
					    union select queue from settings""");

	/**
	 * One queue by name, whatever it holds (an unknown name is a queue with nothing). The
	 * name as a range, not an equality: where one queue holds nearly every item, the
	 * statistics know one queue, and under the generic plan an equality with a name it
	 * cannot see looked as if it passed every row, so a small queue was counted by
	 * reading the large one's entries (the claim's queue lookups had the same trap:
	 * Claims).
	 */
	static final String QUEUE_BY_NAME = QUEUES_TEMPLATE.formatted("queue >= :name and queue <= :name", "name = :name",
			"select :name::text as queue");

	private final JdbcClient jdbc;

	public QueueViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Every queue that has open items or settings, by name. */
	public List<QueueView> backlogs() {
		return this.jdbc.sql(QUEUE_BACKLOGS).query(QueueViews::view).list();
	}

	/** The queue of that name (its counts are zero when it holds nothing). */
	public QueueView queue(String name) {
		return this.jdbc.sql(QUEUE_BY_NAME).param("name", name).query(QueueViews::view).single();
	}

	private static QueueView view(ResultSet rs, int n) throws SQLException {
		double age = rs.getDouble("oldest_ready_age_seconds");
		Double oldestReadyAgeSeconds = rs.wasNull() ? null : Math.max(0, Math.floor(age * 1000) / 1000);
		int cap = rs.getInt("max_active_leases");
		Integer maxActiveLeases = rs.wasNull() ? null : cap;
		return new QueueView(rs.getString("queue"), rs.getLong("ready"), rs.getLong("leased"), rs.getLong("blocked"),
				Rows.instant(rs, "oldest_ready_since"), oldestReadyAgeSeconds, rs.getBoolean("paused"),
				maxActiveLeases);
	}

}
