package dev.workgraph.item;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The operator's settings of a queue (docs/adr/0021-queue-pause-and-caps.md): paused, and
 * the most leases it may have active at once. The claim statements read them
 * ({@code dev.workgraph.lease.QueueGates}); this writes them.
 */
@Repository
class QueueSettings {

	/**
	 * Sets what the change gives and keeps the rest, creating the queue's row on its
	 * first change. Waiters of the queue on every instance are told to look again when
	 * this commits: a resumed queue, or a raised cap, may grant what they wait for.
	 */
	static final String CHANGE_QUEUE_SETTINGS = """
			with changed as (
			    insert into queue_settings as s (name, paused, max_active_leases)
			    values (:name, coalesce(:paused, false), :maxActiveLeases)
			    on conflict (name) do update
			    set paused = coalesce(:paused, s.paused),
			        max_active_leases = case when :capGiven then :maxActiveLeases else s.max_active_leases end,
			        updated_at = now()
			    returning s.name
			)
			select pg_notify('work_graph_ready', name) from changed
			""";

	private final JdbcClient jdbc;

	QueueSettings(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Applies the change to the queue's settings in the caller's transaction. */
	void change(String name, QueueChange change) {
		this.jdbc.sql(CHANGE_QUEUE_SETTINGS)
			.param("name", name)
			.param("paused", change.getPaused())
			.param("maxActiveLeases", change.getMaxActiveLeases())
			.param("capGiven", change.capGiven())
			.query((rs, n) -> n)
			.list();
	}

}
