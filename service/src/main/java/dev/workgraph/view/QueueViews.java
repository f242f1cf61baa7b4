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
	 * One pass over the open items only (the partial index of V7, without the terminal
	 * ones); ages come from PostgreSQL's clock like every other time.
	 */
	static final String QUEUE_BACKLOGS = """
			select queue,
			    count(*) filter (where status = 'ready') as ready,
			    count(*) filter (where status = 'leased') as leased,
			    count(*) filter (where status = 'blocked') as blocked,
			    min(ready_since) as oldest_ready_since,
			    extract(epoch from now() - min(ready_since)) as oldest_ready_age_seconds
			from work_items
			where status in ('ready', 'leased', 'blocked')
			group by queue
			order by queue
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
