import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Bulk SQL that creates the items each point needs while respecting the schema's
 * invariants (the same ones GET /actuator/consistency recounts): a ready item has its
 * ready_items row and ready_since, a blocked item's counters match its edges or open
 * requests, a terminal item has closed_at, a leased item has exactly one lease row
 * carrying its epoch and queue, a completed item its one completed lease in history.
 */
final class Fixtures {

	private final Pg pg;

	Fixtures(Pg pg) {
		this.pg = pg;
	}

	/** {@code bench_uuid7(ts)}: UUIDv7-shaped ids, shared with the A/B scripts. */
	void install() throws IOException, InterruptedException {
		this.pg.sql(Files.readString(Path.of("bench/sql/bench-uuid7.sql")));
	}

	/** {@code n} ready items in {@code queue}, enqueued for claiming in the same statement. */
	void readySupply(String queue, long n) throws IOException, InterruptedException {
		this.pg.sql("""
				with made as (
				    insert into work_items (id, title, queue, status, ready_since)
				    select bench_uuid7(clock_timestamp()), 'bench supply ' || i, '%s', 'ready', now()
				    from generate_series(1, %d) i
				    returning id, queue, priority, ready_since
				)
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from made;
				""".formatted(queue, n));
	}

	/**
	 * Takes every still-ready item of the queue out of circulation (cancelled, dequeued),
	 * so the next point starts from its own fresh supply only.
	 */
	long retireReady(String queue) throws IOException, InterruptedException {
		String n = this.pg.sql("""
				with gone as (
				    delete from ready_items where queue = '%s' returning item_id
				), cancelled as (
				    update work_items w
				    set status = 'cancelled', ready_since = null, closed_at = now(), updated_at = now(),
				        cancel_reason = 'bench: unused supply'
				    from gone g where w.id = g.item_id
				    returning w.id
				)
				select count(*) from cancelled;
				""".formatted(queue));
		return Long.parseLong(n);
	}

	/**
	 * History-only bulk: {@code completed} terminal items and {@code blocked} items. The
	 * blocked ones depend on one gate item which is itself held by an open blocking
	 * attention request, so nothing in the bulk ever becomes ready during a measurement.
	 */
	void bulkHistory(long completed, long blocked) throws IOException, InterruptedException {
		if (this.pg.count("select count(*) from work_items where title = 'bench gate'") == 0) {
			this.pg.sql("""
					with gate as (
					    insert into work_items (id, title, queue, status, open_attention_requests)
					    values (bench_uuid7(clock_timestamp()), 'bench gate', 'bench-bulk', 'blocked', 1)
					    returning id
					)
					insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, kind, blocking,
					    question)
					select gen_random_uuid(), id, gen_random_uuid(), 0, null, 'system', 'crash_loop', true,
					    'bench: holds the blocked bulk items'
					from gate;
					""");
		}
		// In chunks of a million: one huge transaction would only hold more WAL and locks.
		long chunk = 1_000_000;
		for (long done = 0; done < completed; done += chunk) {
			// A completed item is listed through its completed lease (as every completion
			// leaves one), so each gets its history row.
			this.pg.sql("""
					with made as (
					    insert into work_items (id, title, queue, status, epoch, closed_at)
					    select bench_uuid7(clock_timestamp()), 'bench bulk', 'bench-bulk', 'completed', 1, now()
					    from generate_series(1, %d)
					    returning id
					)
					insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at,
					    ended_at, outcome)
					select bench_uuid7(clock_timestamp()), id, 'bench-bulk', 1, now(), now() + interval '1 minute',
					    now(), 'completed'
					from made;
					""".formatted(Math.min(chunk, completed - done)));
		}
		for (long done = 0; done < blocked; done += chunk) {
			this.pg.sql("""
					with made as (
					    insert into work_items (id, title, queue, status, unmet_dependencies)
					    select bench_uuid7(clock_timestamp()), 'bench bulk', 'bench-bulk', 'blocked', 1
					    from generate_series(1, %d)
					    returning id
					)
					insert into dependencies (item_id, depends_on_id)
					select m.id, g.id from made m cross join (select id from work_items where title = 'bench gate') g;
					""".formatted(Math.min(chunk, blocked - done)));
		}
	}

	/**
	 * A chain of {@code n} in its own queue: link 1 ready, link i depends on link i-1
	 * (blocked, unmet_dependencies 1). Titles carry the position, so the run can check
	 * the order of the claims.
	 */
	void chain(String queue, int n) throws IOException, InterruptedException {
		this.pg.sql("""
				create temp table links as
				    select i, bench_uuid7(clock_timestamp()) as id from generate_series(1, %2$d) i;
				insert into work_items (id, title, queue, status, unmet_dependencies, ready_since)
				select id, 'chain ' || i, '%1$s', case when i = 1 then 'ready' else 'blocked' end,
				    case when i = 1 then 0 else 1 end, case when i = 1 then now() end
				from links;
				insert into ready_items (item_id, queue, priority, ready_since)
				select w.id, w.queue, w.priority, w.ready_since from links l join work_items w on w.id = l.id where l.i = 1;
				insert into dependencies (item_id, depends_on_id)
				select b.id, a.id from links a join links b on b.i = a.i + 1;
				""".formatted(queue, n));
	}

	/**
	 * One ready hub in {@code hubQueue} and {@code n} items in {@code dependentQueue} that
	 * depend on it (blocked): completing the hub releases them all in one transaction.
	 */
	void fanIn(String hubQueue, String dependentQueue, int n) throws IOException, InterruptedException {
		this.pg.sql("""
				create temp table hub as select bench_uuid7(clock_timestamp()) as id;
				insert into work_items (id, title, queue, status, ready_since)
				select id, 'fan-in hub', '%1$s', 'ready', now() from hub;
				insert into ready_items (item_id, queue, priority, ready_since)
				select w.id, w.queue, w.priority, w.ready_since from hub h join work_items w on w.id = h.id;
				with made as (
				    insert into work_items (id, title, queue, status, unmet_dependencies)
				    select bench_uuid7(clock_timestamp()), 'fan-in dependent', '%2$s', 'blocked', 1
				    from generate_series(1, %3$d)
				    returning id
				)
				insert into dependencies (item_id, depends_on_id) select m.id, h.id from made m cross join hub h;
				""".formatted(hubQueue, dependentQueue, n));
	}

	/**
	 * The bulk equivalent of {@code n} claims: items leased at epoch 1 with leases that all
	 * expire at one moment, {@code inSeconds} from now. Lease ids are UUIDv7-shaped like the
	 * service's: with random ones, recording them appended to random leaf pages of
	 * lease_history's primary key (more pages dirtied, more full-page images in the WAL) where
	 * the service's own leases append at its right edge. Returns that moment (epoch
	 * seconds, PostgreSQL's clock, which is the reaper's clock too). The items retry without
	 * back-off, so that they are ready again as soon as their expiry is recorded: under the
	 * default policy an expired item waits 8-10 s before it runs again, and the point would
	 * time that wait instead of the reaper.
	 */
	double leasedExpiringTogether(String queue, int n, int inSeconds) throws IOException, InterruptedException {
		return Double.parseDouble(this.pg.sql("""
				create temp table moment as select now() + make_interval(secs => %3$d) as expires_at;
				with made as (
				    insert into work_items (id, title, queue, status, epoch, retry)
				    select bench_uuid7(clock_timestamp()), 'reaper ' || i, '%1$s', 'leased', 1,
				        '{"backoffSeconds": 0}'
				    from generate_series(1, %2$d) i
				    returning id
				)
				insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
				select bench_uuid7(clock_timestamp()), m.id, 'bench-reaper', 1, now(), t.expires_at, '%1$s'
				from made m cross join moment t;
				select extract(epoch from expires_at) from moment;
				""".formatted(queue, n, inSeconds)));
	}

	/**
	 * Waits until no lease of the queue is active any more and all {@code n} items are
	 * ready again. Answers two moments (epoch seconds, PostgreSQL's clock, which is the
	 * reaper's clock too): when the first of the leases was seen gone, and when all were
	 * done. Polls every 50 ms inside PostgreSQL with cheap reads (the leases table holds
	 * only active leases), so the wait itself hardly loads the reaper's database; the history
	 * rows are checked once afterwards ({@link #expiredInHistory}).
	 */
	double[] awaitReaped(String queue, int n, int timeoutSeconds) throws IOException, InterruptedException {
		String[] at = this.pg.sql("""
				create temp table seen(first_at timestamptz, done_at timestamptz);
				do $$
				declare
				    deadline timestamptz := clock_timestamp() + make_interval(secs => %3$d);
				    first_at timestamptz;
				    active bigint;
				begin
				    loop
				        select count(*) into active from leases where worker_id = 'bench-reaper';
				        if first_at is null and active < %2$d then
				            first_at := clock_timestamp();
				        end if;
				        exit when active = 0 and (select count(*) from ready_items where queue = '%1$s') >= %2$d;
				        if clock_timestamp() > deadline then
				            raise exception 'reaper did not finish within %3$s s';
				        end if;
				        perform pg_sleep(0.05);
				    end loop;
				    insert into seen values (first_at, clock_timestamp());
				end $$;
				select extract(epoch from first_at) || ' ' || extract(epoch from done_at) from seen;
				""".formatted(queue, n, timeoutSeconds)).split(" ");
		return new double[] { Double.parseDouble(at[0]), Double.parseDouble(at[1]) };
	}

	long expiredInHistory(String queue) throws IOException, InterruptedException {
		return this.pg.count("""
				select count(*) from lease_history h join work_items w on w.id = h.item_id
				where w.queue = '%s' and h.outcome = 'expired' and h.ended_at = h.expires_at
				""".formatted(queue));
	}

}

