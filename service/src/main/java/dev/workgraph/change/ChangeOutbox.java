package dev.workgraph.change;

import java.time.Duration;

import dev.workgraph.sql.LocalSettings;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The sequencer's and the trimmer's statements (migration V35). The sequencer moves the
 * pending changes its snapshot sees (committed ones) into {@code changes}, numbered after
 * the counter in insert order, and tells every instance's listening session at commit.
 * Numbers are handed out only here, one pass after the other, so a change that commits
 * late is numbered late: no reader that continues after its last seq can miss it.
 */
@Repository
class ChangeOutbox {

	/** The advisory lock that makes one sequencer run at a time per database. */
	static final long SEQUENCER_LOCK = 0x5747_4348_414E_4745L;

	/**
	 * The lock, and the pass's plan pinned to the index on {@code change_pending.id}
	 * (V62): read with a sequential scan, the table costs every page it ever grew to,
	 * since it is never truncated, and the planner would choose one while its statistics
	 * still count a burst that an earlier pass moved. Without JIT, which the disabled
	 * scans' cost would otherwise switch on.
	 */
	static final String TRY_LOCK = "select pg_try_advisory_xact_lock(:key), "
			+ LocalSettings.calls("enable_seqscan", "off", "jit", "off");

	/**
	 * One statement, one snapshot: the committed rows it moves, their numbers and the
	 * counter all come from the same view of the database. Rows of transactions that
	 * commit after it began stay for the next pass, which numbers them higher.
	 */
	static final String SEQUENCE_COMMITTED = """
			with moved as (
			    delete from change_pending
			    where id <= (select max(id) from change_pending)
			    returning id, type, item_id, lease_id, epoch, queue, at, data
			), numbered as (
			    select m.*, (select coalesce(max(last_seq), 0) from change_counter)
			               + row_number() over (order by m.id) as seq
			    from moved m
			), inserted as (
			    insert into changes (seq, type, item_id, lease_id, epoch, queue, at, data)
			    select seq, type, item_id, lease_id, epoch, queue, at, data from numbered
			    returning seq
			)
			-- An upsert, so that a counter row someone removed is put back rather than the
			-- moved changes lost.
			insert into change_counter (last_seq) select max(seq) from inserted having count(*) > 0
			on conflict (only_row) do update set last_seq = excluded.last_seq
			returning last_seq
			""";

	static final String NOTIFY = "select pg_notify('" + ChangeFeed.CHANNEL + "', :lastSeq::text)";

	/**
	 * Oldest first, a bounded batch at a time: each batch is a short transaction whose
	 * row locks no writer ever waits for (writers never touch published changes). It
	 * reads the oldest {@code :batch} changes by seq and removes those past the
	 * retention, so it reads at most a batch however many changes are younger: {@code at}
	 * has no index, and looking for old changes by seq alone read the whole table, in
	 * hundreds of milliseconds, whenever none was old enough. Changes are numbered in
	 * commit order and {@code at} is their transaction's start, so a batch can hold a
	 * change younger than the ones after it; that one goes with a later batch.
	 */
	static final String TRIM = """
			delete from changes where seq in (
			    select seq from (select seq, at from changes order by seq limit :batch) oldest
			    where at < now() - make_interval(secs => :seconds))
			""";

	private final JdbcClient jdbc;

	ChangeOutbox(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Numbers what has committed since the last pass. Returns the last seq handed out, or
	 * -1 when another instance's sequencer holds the lock or nothing was moved. Runs in
	 * the caller's transaction, which holds the lock until it ends.
	 */
	long sequence() {
		if (!this.jdbc.sql(TRY_LOCK).param("key", SEQUENCER_LOCK).query((rs, row) -> rs.getBoolean(1)).single()) {
			return -1;
		}
		Long last = this.jdbc.sql(SEQUENCE_COMMITTED).query(Long.class).optional().orElse(null);
		if (last == null) {
			return -1;
		}
		this.jdbc.sql(NOTIFY).param("lastSeq", last).query(String.class).list();
		return last;
	}

	/** Trims one batch of changes older than the retention; returns how many. */
	int trim(Duration retention, int batch) {
		return this.jdbc.sql(TRIM).param("seconds", retention.toSeconds()).param("batch", batch).update();
	}

}
