package dev.workgraph.metrics;

import java.util.HashMap;
import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The gauges' one query. Each part counts a table (or partial index) that holds only live
 * state: {@code ready_items} only ready items, {@code leases} only active leases, the
 * open-inbox index only open requests, the partial index on {@code not_before} only
 * scheduled items. Its cost grows with the ready backlog and the number of leases held,
 * never with the number of items ever created (docs/operations.md, "Metrics").
 */
@Repository
class GaugeSamples {

	static final String SAMPLE = """
			select 'ready' as kind, queue, count(*) as n from ready_items group by queue
			union all
			select 'leases', null, count(*) from leases
			union all
			select 'attention', null, count(*) from attention_requests where status = 'open'
			union all
			select 'scheduled', null, count(*) from work_items where not_before is not null
			""";

	private final JdbcClient jdbc;

	GaugeSamples(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Sample sample() {
		Map<String, Long> ready = new HashMap<>();
		long[] leases = new long[1];
		long[] attention = new long[1];
		long[] scheduled = new long[1];
		this.jdbc.sql(SAMPLE).query((rs) -> {
			long n = rs.getLong("n");
			switch (rs.getString("kind")) {
				case "ready" -> ready.put(rs.getString("queue"), n);
				case "leases" -> leases[0] = n;
				case "scheduled" -> scheduled[0] = n;
				default -> attention[0] = n;
			}
		});
		return new Sample(ready, leases[0], attention[0], scheduled[0]);
	}

	/**
	 * Ready items per queue, active leases, open attention requests, items waiting for
	 * their notBefore.
	 */
	record Sample(Map<String, Long> readyByQueue, long activeLeases, long openAttentionRequests, long scheduledItems) {
	}

}
