package dev.workgraph.view;

import java.util.List;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads the backlog of every queue: how many of its items are ready, leased and blocked,
 * and how long its oldest ready item has waited.
 */
@Repository
public class QueueViews {

	/**
	 * Each count from where that state lives (ADR 0015): ready items and their ages from
	 * {@code ready_items}, leases from {@code leases} (which carry their item's queue),
	 * blocked items from {@code parked_items}, whose cancelled entries its status index
	 * lets the count skip. No completed item is read, so the cost grows with the open
	 * items; ages come from PostgreSQL's clock like every other time.
	 */
	static final String QUEUE_BACKLOGS = """
			with ready as (
			    select queue, count(*) as n, min(ready_since) as oldest from ready_items group by queue
			), leased as (
			    select queue, count(*) as n from leases group by queue
			), blocked as (
			    select queue, count(*) as n from parked_items where status = 'blocked' group by queue
			)
			select q.queue,
			    coalesce(r.n, 0) as ready,
			    coalesce(l.n, 0) as leased,
			    coalesce(b.n, 0) as blocked,
			    r.oldest as oldest_ready_since,
			    extract(epoch from now() - r.oldest) as oldest_ready_age_seconds
			from (select queue from ready union select queue from leased union select queue from blocked) q
			left join ready r using (queue)
			left join leased l using (queue)
			left join blocked b using (queue)
			order by q.queue
			""";

	private final JdbcClient jdbc;

	public QueueViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Every queue that has an open item, by name. */
	public List<QueueView> backlogs() {
		return this.jdbc.sql(QUEUE_BACKLOGS).query((rs, n) -> {
			double age = rs.getDouble("oldest_ready_age_seconds");
			Double oldestReadyAgeSeconds = rs.wasNull() ? null : Math.max(0, Math.floor(age * 1000) / 1000);
			return new QueueView(rs.getString("queue"), rs.getLong("ready"), rs.getLong("leased"),
					rs.getLong("blocked"), Rows.instant(rs, "oldest_ready_since"), oldestReadyAgeSeconds);
		}).list();
	}

}
