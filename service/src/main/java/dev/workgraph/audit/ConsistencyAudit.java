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
 * blocking attention requests, open waits, active leases) and reports each item whose
 * stored counters, status, claim queue entry, lease, completed lease in history or parked
 * entry disagree (the listings find each status in those places, ADR 0015). The
 * incremental bookkeeping is only trustworthy if this finds nothing, under any
 * concurrency; tests run it after every concurrent scenario, and operators can run it
 * through {@code GET /actuator/consistency}. It reads every item once, in chunks of ids,
 * so it costs seconds per million items: run it on demand, not as a liveness probe.
 */
@Repository
public class ConsistencyAudit {

	static final String INCONSISTENT_ITEMS = """
			with facts as (
			    select w.id, 'item' as source, w.status, w.epoch, w.queue, w.priority, w.ready_since,
			        w.unmet_dependencies, w.open_children, w.open_attention_requests,
			        0 as unmet, 0 as open_child, 0 as blocking_request, 0 as open_request, 0 as completion,
			        (w.not_before is not null)::int as scheduled,
			        w.open_waits as stored_waits, 0 as open_wait
			    from work_items w
			    where w.id > :after and w.id <= :upTo
			    union all
			    select l.item_id, 'lease', null, l.epoch, l.queue, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, 0
			    from leases l
			    where l.item_id > :after and l.item_id <= :upTo
			    union all
			    select r.item_id, 'queued', null, null, r.queue, r.priority, r.ready_since, null, null, null,
			        0, 0, 0, 0, 0, 0, null, 0
			    from ready_items r
			    where r.item_id > :after and r.item_id <= :upTo
			    union all
			    select p.item_id, 'parked', p.status, null, null, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, 0
			    from parked_items p
			    where p.item_id > :after and p.item_id <= :upTo
			    union all
			    select d.item_id, 'unmet', null, null, null, null, null, null, null, null, 1, 0, 0, 0, 0, 0, null, 0
			    from dependencies d
			    cross join lateral (select t.status from work_items t where t.id = d.depends_on_id limit 1) t
			    where d.item_id > :after and d.item_id <= :upTo and t.status <> 'completed'
			    union all
			    select k.parent_id, 'child', null, null, null, null, null, null, null, null, 0, 1, 0, 0, 0, 0, null, 0
			    from work_items k
			    where k.parent_id > :after and k.parent_id <= :upTo and k.status not in ('completed', 'cancelled')
			    union all
			    select a.item_id, 'attention', null, null, null, null, null, null, null, null,
			        0, 0, a.blocking::int, 1, 0, 0, null, 0
			    from attention_requests a
			    where a.item_id > :after and a.item_id <= :upTo and a.status = 'open'
			    union all
			    select h.item_id, 'completion', null, null, null, null, null, null, null, null, 0, 0, 0, 0, 1, 0, null, 0
			    from lease_history h
			    where h.item_id > :after and h.item_id <= :upTo and h.outcome = 'completed'
			    union all
			    select t.item_id, 'wait', null, null, null, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, 1
			    from waits t
			    where t.item_id > :after and t.item_id <= :upTo and t.status = 'open'
			    order by 1
			), recount as (
			    select id,
			        max(status) filter (where source = 'item') as status,
			        max(epoch) filter (where source = 'item') as epoch,
			        max(queue) filter (where source = 'item') as queue,
			        max(priority) filter (where source = 'item') as priority,
			        max(ready_since) filter (where source = 'item') as ready_since,
			        max(unmet_dependencies) as unmet_dependencies,
			        max(open_children) as open_children,
			        max(open_attention_requests) as open_attention_requests,
			        max(stored_waits) as open_waits,
			        sum(open_wait) as expected_waits,
			        sum(unmet) as expected_unmet,
			        sum(open_child) as expected_children,
			        sum(blocking_request) as expected_attention,
			        sum(open_request) as open_requests,
			        sum(completion) as completed_leases,
			        sum(scheduled) as scheduled,
			        max(status) filter (where source = 'parked') as parked_as,
			        bool_or(source = 'lease') as has_lease,
			        max(epoch) filter (where source = 'lease') as lease_epoch,
			        max(queue) filter (where source = 'lease') as lease_queue,
			        bool_or(source = 'queued') as queued,
			        max(queue) filter (where source = 'queued') as queued_queue,
			        max(priority) filter (where source = 'queued') as queued_priority,
			        max(ready_since) filter (where source = 'queued') as queued_since
			    from facts
			    group by id
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
			    select id, 'openWaits is ' || open_waits || ' but recounting gives ' || expected_waits
			        from recount where open_waits <> expected_waits
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
			        and (status = 'ready')
			            <> (expected_unmet = 0 and expected_children = 0 and expected_attention = 0 and expected_waits = 0
			                and scheduled = 0)
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
			    union all
			    select id, status || ' with ' || expected_waits || ' open waits' from recount
			        where status in ('cancelled', 'completed') and expected_waits > 0
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
	 * Nothing is joined: each table that holds a fact about an item (its row, its lease,
	 * its claim queue entry, its parked entry, its unmet dependencies, open children,
	 * open attention requests and completed leases) is read once by the chunk's range on
	 * its own item ids, and the facts are grouped by item. So a chunk costs what it
	 * reads, whatever the planner estimates. It estimates a range of uuids that falls
	 * inside one bucket of the column's histogram at one row (it cannot interpolate
	 * between uuids), and for such a chunk the statement that joined per-item counts to
	 * the items chose nested loops that counted every item's completed leases again for
	 * each item of the chunk: a chunk of 12,500 items with 5,400 completed leases read 67
	 * million index entries and took 17 s, one of 100,000 would have taken many minutes.
	 *
	 * <p>
	 * Each dependency's target is looked up by key ({@code lateral ... limit 1} keeps the
	 * planner from making it a join): a merge join with {@code work_items} reads the
	 * items between the targets (millions of completed ones at ten million items), a hash
	 * join all of them, in every chunk.
	 *
	 * <p>
	 * A chunk cancelled at the query timeout all the same (a table locked by someone
	 * else, a machine that stalls) is checked again in halves, down to
	 * {@code smallestChunk} items, and the chunks grow back once they pass. Each such
	 * chunk is logged with its bounds. A statement cancelled sooner (an administrator's
	 * {@code pg_cancel_backend}) ends the audit.
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
