package dev.workgraph.item;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The statement behind {@link Readiness}: applies blocker deltas to items and settles
 * each touched item's status and claim queue entry, in one round trip for any number of
 * items.
 *
 * <p>
 * Rows are locked in id order, so concurrent adjustments that share items (two
 * completions with a common dependent or parent) wait for each other instead of
 * deadlocking, and each applies its delta to the latest counter values. The status is
 * read from the locked row, i.e. its latest committed version, never from an older
 * snapshot.
 */
@Repository
class BlockerCounters {

	static final String ADJUST_BLOCKERS = """
			with delta as (
			    select id, sum(unmet)::int as unmet, sum(children)::int as children, sum(attention)::int as attention,
			        sum(waits)::int as waits
			    from unnest(:ids::uuid[], :unmet::int[], :children::int[], :attention::int[], :waits::int[])
			        as d(id, unmet, children, attention, waits)
			    group by id
			), lease_ended as (
			    -- A join, not "id = any(array)": the reaper settles a thousand items at once,
			    -- and testing each against the whole array made this statement quadratic.
			    select id, sum(expired)::int as expired
			    from unnest(:leaseEnded::uuid[], :expired::int[]) as e(id, expired)
			    group by id
			), scheduled as (
			    -- A new notBefore: an instant, or a delay from now (a back-off, a release's
			    -- retryAfterSeconds), or neither to clear it. One entry per item at most.
			    select id, coalesce(at, now() + delay_ms * interval '1 millisecond') as not_before
			    from unnest(:scheduled::uuid[], :at::timestamptz[], :delayMs::bigint[]) as s(id, at, delay_ms)
			), next as materialized (
			    select w.id, w.status as old_status, w.ready_since as old_ready_since,
			        -- A time that has come blocks nothing: it is cleared here as the promoter would.
			        case when s.id is null and w.not_before > now() then w.not_before
			            when s.id is not null and s.not_before > now() then s.not_before end as not_before,
			        w.unmet_dependencies + d.unmet as unmet,
			        w.open_children + d.children as children,
			        w.open_attention_requests + d.attention as attention,
			        w.open_waits + d.waits as waits,
			        w.consecutive_expirations + coalesce(e.expired, 0) as consecutive_expirations,
			        -- An expiry is an attempt, as a failure is (counted where it is recorded).
			        w.attempts + coalesce(e.expired, 0) as attempts,
			        w.status = 'leased' and e.id is null as leased
			    from work_items w
			    join delta d on d.id = w.id
			    left join lease_ended e on e.id = w.id
			    left join scheduled s on s.id = w.id
			    order by w.id
			    for no key update of w
			), settled as (
			    select n.*, case
			        when n.old_status in ('completed', 'cancelled') then n.old_status
			        when n.leased then 'leased'
			        when n.unmet = 0 and n.children = 0 and n.attention = 0 and n.waits = 0 and n.not_before is null
			            then 'ready'
			        else 'blocked' end as status
			    from next n
			), updated as (
			    update work_items w
			    set unmet_dependencies = s.unmet,
			        open_children = s.children,
			        open_attention_requests = s.attention,
			        open_waits = s.waits,
			        consecutive_expirations = s.consecutive_expirations,
			        attempts = s.attempts,
			        status = s.status,
			        -- Only a blocked item waits for a time (a leased one gets it when its lease ends).
			        not_before = case when s.status = 'blocked' then s.not_before end,
			        ready_since = case when s.status = 'ready' then coalesce(s.old_ready_since, now()) end,
			        updated_at = now()
			    from settled s
			    where w.id = s.id
			    returning w.id, w.queue, w.priority, w.ready_since, s.old_status, s.status
			), entered as (
			    insert into ready_items (item_id, queue, priority, ready_since, preferred_worker_id)
			    select u.id, u.queue, u.priority, u.ready_since,
			        -- Continuity: the worker whose lease ended with a question or a wait is preferred for a while.
			        (select case when h.outcome in ('attention_requested', 'waiting') then h.worker_id end
			         from lease_history h where h.item_id = u.id order by h.epoch desc limit 1)
			    from updated u
			    where u.status = 'ready' and u.old_status <> 'ready'
			)
			-- Departed: leaving ready leaves the claim queue. By key: the queue's statistics
			-- often say it is empty (the queue vacuum never truncates it), and a join then
			-- read the whole queue for every batch the reaper settles.
			delete from ready_items r
			where r.item_id = any(array(
			    select u.id from updated u where u.old_status = 'ready' and u.status <> 'ready'))
			""";

	/**
	 * Promotes scheduled items whose time has come (PostgreSQL's clock): the time is
	 * cleared, and an item that nothing else blocks becomes ready with {@code readySince}
	 * its {@code notBefore}, entering the claim queue (whose insert trigger wakes waiting
	 * claims on every instance). Several instances promote at once without waiting for
	 * each other or promoting an item twice: each takes its batch {@code SKIP LOCKED},
	 * which rechecks the time on each row's latest version. The due items are found by
	 * the partial index on {@code not_before}, which holds scheduled items only.
	 */
	static final String PROMOTE_DUE = """
			with due as (
			    select w.id from work_items w
			    where w.not_before <= now()
			    order by w.not_before
			    limit :batchSize
			    for no key update skip locked
			), promoted as (
			    update work_items w
			    set not_before = null,
			        status = case when w.unmet_dependencies = 0 and w.open_children = 0
			            and w.open_attention_requests = 0 and w.open_waits = 0 then 'ready' else w.status end,
			        ready_since = case when w.unmet_dependencies = 0 and w.open_children = 0
			            and w.open_attention_requests = 0 and w.open_waits = 0 then w.not_before end,
			        updated_at = now()
			    -- By key: the due rows are locked above (SKIP LOCKED rechecks the time on each
			    -- row's latest version), and a second look at the time here let the planner walk
			    -- the whole due range of the partial index for every batch of a burst.
			    where w.id = any(array(select d.id from due d))
			    returning w.id, w.queue, w.priority, w.ready_since, w.status
			), entered as (
			    insert into ready_items (item_id, queue, priority, ready_since, preferred_worker_id)
			    select p.id, p.queue, p.priority, p.ready_since,
			        (select case when h.outcome in ('attention_requested', 'waiting') then h.worker_id end
			         from lease_history h where h.item_id = p.id order by h.epoch desc limit 1)
			    from promoted p
			    where p.status = 'ready'
			)
			select count(*) from promoted
			""";

	/** How long until the next scheduled item is due (negative: overdue), if any. */
	static final String UNTIL_NEXT_DUE = """
			select (extract(epoch from (not_before - now())) * 1000)::bigint from work_items
			where not_before is not null
			order by not_before
			limit 1
			""";

	private final JdbcClient jdbc;

	BlockerCounters(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Applies the deltas (an item's deltas add up) and settles the items, those of
	 * {@code leaseEnded} as no longer leased; when the leases ended by {@code expiring},
	 * counts one more consecutive expiry for each of those items (in the same row
	 * version: the reaper's items are written once, not twice). Each of {@code schedules}
	 * sets its item's notBefore; its item must be among the deltas.
	 */
	void adjust(List<BlockerDelta> deltas, Collection<UUID> leaseEnded, boolean expiring,
			Collection<NotBefore> schedules) {
		int[] expired = new int[leaseEnded.size()];
		Arrays.fill(expired, expiring ? 1 : 0);
		List<UUID> ids = new ArrayList<>(deltas.size());
		int[] unmet = new int[deltas.size()];
		int[] children = new int[deltas.size()];
		int[] attention = new int[deltas.size()];
		int[] waits = new int[deltas.size()];
		for (int i = 0; i < deltas.size(); i++) {
			BlockerDelta delta = deltas.get(i);
			ids.add(delta.itemId());
			unmet[i] = delta.unmetDependencies();
			children[i] = delta.openChildren();
			attention[i] = delta.openAttentionRequests();
			waits[i] = delta.openWaits();
		}
		List<UUID> scheduled = new ArrayList<>(schedules.size());
		List<String> at = new ArrayList<>(schedules.size());
		List<String> delayMs = new ArrayList<>(schedules.size());
		for (NotBefore schedule : schedules) {
			scheduled.add(schedule.itemId());
			at.add((schedule.at() != null) ? schedule.at().toString() : null);
			delayMs.add((schedule.delay() != null) ? Long.toString(schedule.delay().toMillis()) : null);
		}
		this.jdbc.sql(ADJUST_BLOCKERS)
			.param("ids", SqlArrays.uuids(ids))
			.param("unmet", SqlArrays.ints(unmet))
			.param("children", SqlArrays.ints(children))
			.param("attention", SqlArrays.ints(attention))
			.param("waits", SqlArrays.ints(waits))
			.param("leaseEnded", SqlArrays.uuids(leaseEnded))
			.param("expired", SqlArrays.ints(expired))
			.param("scheduled", SqlArrays.uuids(scheduled))
			.param("at", SqlArrays.texts(at))
			.param("delayMs", SqlArrays.texts(delayMs))
			.update();
	}

	/** Promotes at most {@code batchSize} due items; returns how many. */
	int promoteDue(int batchSize) {
		return this.jdbc.sql(PROMOTE_DUE).param("batchSize", batchSize).query(Integer.class).single();
	}

	/** How long until the next scheduled item is due, if any (negative: overdue). */
	Optional<Duration> untilNextDue() {
		return this.jdbc.sql(UNTIL_NEXT_DUE).query((rs, n) -> Duration.ofMillis(rs.getLong(1))).optional();
	}

}
