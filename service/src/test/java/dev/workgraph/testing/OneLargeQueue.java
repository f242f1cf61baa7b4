package dev.workgraph.testing;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Ready items skewed as in a deployment with one busy queue: {@code backlog} in queue
 * {@value #LARGE}, two in queue {@value #SMALL}, analyzed, so that the statistics know
 * one queue name. The small queue's items are made last, so that a scan in table order
 * meets them last too. For a database of the test's own: other tests' rows would dilute
 * the skew.
 */
public final class OneLargeQueue {

	public static final String LARGE = "backlog";

	public static final String SMALL = "small";

	private OneLargeQueue() {
	}

	public static void make(JdbcClient jdbc, int backlog) {
		jdbc.sql("""
				with made as (
				    insert into work_items (id, title, status, queue, ready_since)
				    select gen_random_uuid(), 'item ' || i, 'ready',
				        case when i <= :backlog then :large else :small end, clock_timestamp()
				    from generate_series(1, :backlog + 2) i
				    returning id, queue, priority, ready_since
				)
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from made
				""").param("backlog", backlog).param("large", LARGE).param("small", SMALL).update();
		jdbc.sql("analyze work_items, ready_items").update();
	}

}
