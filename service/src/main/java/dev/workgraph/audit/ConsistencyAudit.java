package dev.workgraph.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.workgraph.problem.StatementCancelled;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Recomputes every item's blockers from the graph itself (dependencies, children, open
 * blocking attention requests, active leases) and reports each item whose stored
 * counters, status, claim queue entry, lease, completed lease in history or parked entry
 * disagree (the listings find each status in those places, ADR 0015). The incremental
 * bookkeeping is only trustworthy if this finds nothing, under any concurrency; tests run
 * it after every concurrent scenario, and operators can run it through
 * {@code GET /actuator/consistency}. It reads every item once, in chunks of ids, so it
 * costs seconds per million items: run it on demand, not as a liveness probe.
 */
@Repository
public class ConsistencyAudit {

	static final String INCONSISTENT_ITEMS = """
			with unmet as (
			    select d.item_id, count(*) as n
			    from dependencies d
			    cross join lateral (select t.status from work_items t where t.id = d.depends_on_id limit 1) t
			    where d.item_id > :after and d.item_id <= :upTo and t.status <> 'completed'
			    group by d.item_id
			), open_children as (
			    select parent_id, count(*) as n
			    from work_items
			    where parent_id > :after and parent_id <= :upTo and status not in ('completed', 'cancelled')
			    group by parent_id
			), open_attention as (
			    select item_id, count(*) filter (where blocking) as blocking, count(*) as total
			    from attention_requests
			    where item_id > :after and item_id <= :upTo and status = 'open'
			    group by item_id
			), completions as (
			    select item_id, count(*) as n
			    from lease_history
			    where item_id > :after and item_id <= :upTo and outcome = 'completed'
			    group by item_id
			), recount as (
			    select w.id, w.status, w.epoch, w.queue, w.priority, w.ready_since,
			        w.unmet_dependencies, w.open_children, w.open_attention_requests,
			        coalesce(u.n, 0) as expected_unmet,
			        coalesce(c.n, 0) as expected_children,
			        coalesce(a.blocking, 0) as expected_attention,
			        coalesce(a.total, 0) as open_requests,
			        coalesce(h.n, 0) as completed_leases, p.status as parked_as,
			        l.item_id is not null as has_lease, l.epoch as lease_epoch, l.queue as lease_queue,
			        r.item_id is not null as queued, r.queue as queued_queue, r.priority as queued_priority,
			        r.ready_since as queued_since
			    from work_items w
			    left join unmet u on u.item_id = w.id
			    left join open_children c on c.parent_id = w.id
			    left join open_attention a on a.item_id = w.id
			    left join leases l on l.item_id = w.id and l.item_id > :after and l.item_id <= :upTo
			    left join ready_items r on r.item_id = w.id and r.item_id > :after and r.item_id <= :upTo
			    left join completions h on h.item_id = w.id
			    left join parked_items p on p.item_id = w.id and p.item_id > :after and p.item_id <= :upTo
			    where w.id > :after and w.id <= :upTo
			), problems as (
			    select id, 'unmetDependencies is ' || unmet_dependencies || ' but recounting gives ' || expected_unmet
			        as problem from recount where unmet_dependencies <> expected_unmet
			    union all
			    select id, 'openChildren is ' || open_children || ' but recounting gives ' || expected_children
			        from recount where open_children <> expected_children
			    union all
			    select id, 'openAttentionRequests is ' || open_attention_requests || ' but recounting gives '
			        || expected_attention from recount where open_attention_requests <> expected_attention
			    union all
			    select id, 'status is leased but there is no active lease' from recount
			        where status = 'leased' and not has_lease
			    union all
			    select id, 'has an active lease but status is ' || status from recount
			        where has_lease and status <> 'leased'
			    union all
			    select id, 'active lease has epoch ' || lease_epoch || ' but the item is at ' || epoch from recount
			        where has_lease and lease_epoch <> epoch
			    union all
			    select id, 'status is ' || status || ' but the recounted blockers say otherwise' from recount
			        where status in ('ready', 'blocked')
			        and (status = 'ready') <> (expected_unmet = 0 and expected_children = 0 and expected_attention = 0)
			    union all
			    select id, 'status is ready but the item is not in the claim queue' from recount
			        where status = 'ready' and not queued
			    union all
			    select id, 'in the claim queue but status is ' || status from recount where queued and status <> 'ready'
			    union all
			    select id, 'claim queue entry differs from the item' from recount
			        where queued and (queued_queue <> queue or queued_priority <> priority
			            or queued_since is distinct from ready_since)
			    union all
			    select id, 'active lease is in queue ' || lease_queue || ' but the item is in ' || queue from recount
			        where has_lease and lease_queue <> queue
			    union all
			    select id, 'status is ' || status || ' but ' || completed_leases || ' leases ended completed' from recount
			        where completed_leases <> (case when status = 'completed' then 1 else 0 end)
			    union all
			    select id, 'status is ' || status || ' but parked as ' || coalesce(parked_as, 'nothing') from recount
			        where parked_as is distinct from (case when status in ('blocked', 'cancelled') then status end)
			    union all
			    select id, 'completed with ' || expected_children || ' open children' from recount
			        where status = 'completed' and expected_children > 0
			    union all
			    select id, 'cancelled with ' || open_requests || ' open attention requests' from recount
			        where status = 'cancelled' and open_requests > 0
			)
			select id, problem from problems order by id, problem limit :limit
			""";

	/** The last id of the next chunk of {@code :size} items after {@code :after}. */
	static final String CHUNK_END = """
			select id from (select id from work_items where id > :after order by id limit :size) chunk
			order by id desc limit 1
			""";

	static final String ITEM_COUNT = "select count(*) from work_items";

	private static final Logger log = LoggerFactory.getLogger(ConsistencyAudit.class);

	private static final UUID BEFORE_ALL = new UUID(0, 0);

	private static final int REPORTED = 100;

	private static final int CHUNK_SIZE = 100_000;

	private static final int SMALLEST_CHUNK = 1_000;

	private final JdbcClient jdbc;

	private final Duration queryTimeout;

	private final int chunkSize;

	private final int smallestChunk;

	@Autowired
	ConsistencyAudit(JdbcTemplate jdbc) {
		this(jdbc, CHUNK_SIZE, SMALLEST_CHUNK);
	}

	/**
	 * @param jdbc runs the statements with its query timeout
	 * @param chunkSize the items a chunk holds
	 * @param smallestChunk the smallest chunk a chunk cancelled at the query timeout is
	 * split into before the audit gives up
	 */
	ConsistencyAudit(JdbcTemplate jdbc, int chunkSize, int smallestChunk) {
		this.jdbc = JdbcClient.create(jdbc);
		this.queryTimeout = Duration.ofSeconds(Math.max(0, jdbc.getQueryTimeout()));
		this.chunkSize = chunkSize;
		this.smallestChunk = Math.min(smallestChunk, chunkSize);
	}

	/**
	 * Checks the items a chunk of ids at a time, each chunk in one statement (so one
	 * snapshot): at ten million items one statement over all of them would outlast the
	 * service's 25 s query timeout, and a chunk's cost stays bounded. Under concurrent
	 * writes each item is still checked against a consistent view of its own graph.
	 *
	 * <p>
	 * A chunk cancelled at the query timeout is checked again in halves, down to
	 * {@code smallestChunk} items, and the chunks grow back once they pass: one chunk of
	 * a ten-million-item table now and then outlasted the timeout in the benchmark, where
	 * every other chunk took at most a few seconds, and the audit answered 503 after all.
	 * Each such chunk is logged with its bounds, so it can be explained. A statement
	 * cancelled sooner (an administrator's {@code pg_cancel_backend}) ends the audit.
	 *
	 * <p>
	 * Each dependency's target is looked up by key ({@code lateral ... limit 1} keeps the
	 * planner from making it a join): a merge join with {@code work_items} reads the
	 * items between the targets (millions of completed ones at ten million items), a hash
	 * join all of them, in every chunk; the generic plan of this prepared statement,
	 * which the driver runs after a few chunks, chose such joins.
	 *
	 * <p>
	 * The tables that say where an item lives (parked, queued, leased) are joined with
	 * the chunk's bounds repeated on their own ids: the planner does not carry a range
	 * across an equality, so without them a hash join read every row of
	 * {@code parked_items} in every chunk, which with millions of cancelled items took
	 * seconds per chunk.
	 */
	public Report run() {
		List<Inconsistency> found = new ArrayList<>();
		UUID after = BEFORE_ALL;
		int size = this.chunkSize;
		for (UUID upTo = chunkEnd(after, size); upTo != null && found.size() < REPORTED; upTo = chunkEnd(after, size)) {
			long started = System.nanoTime();
			try {
				found.addAll(inconsistencies(after, upTo, REPORTED - found.size()));
				after = upTo;
				size = Math.min(this.chunkSize, size * 2);
			}
			catch (DataAccessException ex) {
				Duration ran = Duration.ofNanos(System.nanoTime() - started);
				if (!cancelledAtTheQueryTimeout(ex, ran) || size <= this.smallestChunk) {
					throw ex;
				}
				int smaller = Math.max(this.smallestChunk, size / 2);
				log.warn("Audit chunk of {} items after {} up to {} was cancelled at the query timeout after {} ms;"
						+ " checking it again in chunks of {}", size, after, upTo, ran.toMillis(), smaller);
				size = smaller;
			}
		}
		long items = this.jdbc.sql(ITEM_COUNT).query(Long.class).single();
		return new Report(found.isEmpty(), items, found);
	}

	private List<Inconsistency> inconsistencies(UUID after, UUID upTo, int limit) {
		return this.jdbc.sql(INCONSISTENT_ITEMS)
			.param("after", after)
			.param("upTo", upTo)
			.param("limit", limit)
			.query((rs, n) -> new Inconsistency(rs.getObject("id", UUID.class), rs.getString("problem")))
			.list();
	}

	/** Cancelled by the driver's timer, not by someone who wanted it to stop. */
	private boolean cancelledAtTheQueryTimeout(DataAccessException ex, Duration ran) {
		return this.queryTimeout.isPositive() && ran.compareTo(this.queryTimeout) >= 0
				&& StatementCancelled.isCauseOf(ex);
	}

	private UUID chunkEnd(UUID after, int size) {
		return this.jdbc.sql(CHUNK_END)
			.param("after", after)
			.param("size", size)
			.query(UUID.class)
			.optional()
			.orElse(null);
	}

	/**
	 * @param consistent whether every item agrees with the recount
	 * @param itemsChecked how many items were checked
	 * @param inconsistencies the first 100 disagreements
	 */
	public record Report(boolean consistent, long itemsChecked, List<Inconsistency> inconsistencies) {
	}

	public record Inconsistency(UUID itemId, String problem) {
	}

}
