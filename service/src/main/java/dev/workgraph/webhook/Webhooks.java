package dev.workgraph.webhook;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.change.Change;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The webhooks, their dispatchers' holds and cursors, and the delivery log (migration
 * V45). Every write a dispatcher makes after taking a webhook is guarded by the
 * {@code dispatch_epoch} it took it with: zero rows means it was deleted or another
 * dispatcher took over, and the dispatcher stops.
 */
@Repository
class Webhooks {

	/** A new webhook follows the stream from the change published last. */
	static final String INSERT = """
			insert into webhooks (id, url, types, secret, cursor, created_by)
			select :id, :url, :types::text[], :secret, c.last_seq, :createdBy from change_counter c
			returning id, url, types, cursor, created_at, created_by, next_attempt_at, attempts, failing_since,
			          last_error, disabled_at, disabled_reason
			""";

	static final String LIST = """
			select id, url, types, cursor, created_at, created_by, next_attempt_at, attempts, failing_since,
			       last_error, disabled_at, disabled_reason
			from webhooks order by created_at, id
			""";

	static final String DELETE = "delete from webhooks where id = :id";

	static final String EXISTS = "select exists (select from webhooks where id = :id)";

	static final String ANY_ENABLED = "select exists (select from webhooks where disabled_at is null)";

	static final String DELIVERIES = """
			select seq, message_id, attempt, at, outcome, status, error, millis
			from webhook_deliveries where webhook_id = :id order by id desc limit :limit
			""";

	/**
	 * Takes the webhooks that have something to do (a change published after the cursor,
	 * and no retry pending) and that no dispatcher holds, or whose dispatcher's hold ran
	 * out (it died or stalled: its later writes fail on the raised epoch).
	 */
	static final String TAKE_DUE = """
			update webhooks w
			set dispatch_epoch = w.dispatch_epoch + 1,
			    dispatch_until = now() + make_interval(secs => :holdSeconds)
			where w.id in (
			    select d.id from webhooks d
			    where d.disabled_at is null and d.next_attempt_at <= now()
			      and (d.dispatch_until is null or d.dispatch_until < now())
			      and d.cursor < (select last_seq from change_counter)
			    order by d.next_attempt_at
			    limit :limit
			    for update skip locked)
			returning w.id, w.url, w.types, w.secret, w.cursor, w.attempts, w.dispatch_epoch
			""";

	static final String HEAD = "select last_seq from change_counter";

	/**
	 * The wanted changes after the cursor, up to a head read before: every change up to
	 * that head was published (numbered and inserted) in the transaction that moved the
	 * head, so none is still to come below it.
	 */
	static final String CHANGES_AFTER = """
			select seq, type, item_id, lease_id, epoch, queue, at, data::text as data
			from changes
			where seq > :cursor and seq <= :head
			  and (cardinality(:types::text[]) = 0 or type = any(:types::text[]))
			order by seq limit :limit
			""";

	/** Changes up to the head that none of its types matched are passed over. */
	static final String PASS_OVER = """
			update webhooks set cursor = :head,
			    dispatch_until = now() + make_interval(secs => :holdSeconds)
			where id = :id and dispatch_epoch = :epoch and cursor < :head
			""";

	static final String RECORD_DELIVERED = """
			with moved as (
			    update webhooks
			    set cursor = :seq, attempts = 0, failing_since = null, last_error = null, next_attempt_at = now(),
			        dispatch_until = now() + make_interval(secs => :holdSeconds)
			    where id = :id and dispatch_epoch = :epoch and disabled_at is null
			    returning id
			)
			insert into webhook_deliveries (webhook_id, seq, message_id, attempt, outcome, status, millis)
			select id, :seq, :messageId, :attempt, 'delivered', :status, :millis from moved
			""";

	/**
	 * A failed attempt: the next one after the back-off, or, when the target has failed
	 * for longer than the webhook may, the webhook disabled with the reason. The hold
	 * ends either way.
	 */
	static final String RECORD_FAILED = """
			with failed as (
			    update webhooks w
			    set attempts = w.attempts + 1,
			        failing_since = coalesce(w.failing_since, now()),
			        last_error = :error,
			        next_attempt_at = now() + make_interval(secs => :retrySeconds),
			        disabled_at = case when w.failing_since <= now() - make_interval(secs => :disableAfterSeconds)
			                           then now() end,
			        disabled_reason = case when w.failing_since <= now() - make_interval(secs => :disableAfterSeconds)
			                               then 'every attempt failed since ' || w.failing_since || ' ('
			                                    || (w.attempts + 1) || ' attempts at seq ' || :seq
			                                    || '); the last: ' || :error end,
			        dispatch_until = null
			    where w.id = :id and w.dispatch_epoch = :epoch and w.disabled_at is null
			    returning w.id, w.disabled_at is not null as disabled
			), logged as (
			    insert into webhook_deliveries (webhook_id, seq, message_id, attempt, outcome, status, error, millis)
			    select id, :seq, :messageId, :attempt, 'failed', :status, :error, :millis from failed
			)
			select disabled from failed
			""";

	/** Whether any webhook is enabled, i.e. could have changes to deliver. */
	boolean anyEnabled() {
		return Boolean.TRUE.equals(this.jdbc.sql(ANY_ENABLED).query(Boolean.class).single());
	}

	/** Disabled at once: a target the allowed hosts no longer allow. */
	static final String DISABLE = """
			update webhooks set disabled_at = now(), disabled_reason = :reason, dispatch_until = null
			where id = :id and dispatch_epoch = :epoch and disabled_at is null
			""";

	static final String RELEASE = """
			update webhooks set dispatch_until = null where id = :id and dispatch_epoch = :epoch
			""";

	/**
	 * The oldest {@code :batch} deliveries by id, those past the retention: a batch read
	 * however many are younger ({@code at} has no index; looking for old ones by id alone
	 * read the whole log whenever none was old enough).
	 */
	static final String TRIM_DELIVERIES = """
			delete from webhook_deliveries where id in (
			    select id from (select id, at from webhook_deliveries order by id limit :batch) oldest
			    where at < now() - make_interval(secs => :seconds))
			""";

	private final JdbcClient jdbc;

	Webhooks(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	WebhookView insert(UUID id, String url, List<String> types, String secret, String createdBy) {
		return this.jdbc.sql(INSERT)
			.param("id", id)
			.param("url", url)
			.param("types", SqlArrays.texts(types))
			.param("secret", secret)
			.param("createdBy", createdBy)
			.query(Webhooks::view)
			.single();
	}

	List<WebhookView> list() {
		return this.jdbc.sql(LIST).query(Webhooks::view).list();
	}

	boolean delete(UUID id) {
		return this.jdbc.sql(DELETE).param("id", id).update() == 1;
	}

	boolean exists(UUID id) {
		return this.jdbc.sql(EXISTS).param("id", id).query(Boolean.class).single();
	}

	List<DeliveryView> deliveries(UUID id, int limit) {
		return this.jdbc.sql(DELIVERIES)
			.param("id", id)
			.param("limit", limit)
			.query((row, number) -> new DeliveryView(row.getLong("seq"), row.getString("message_id"),
					row.getInt("attempt"), Rows.instant(row, "at"), row.getString("outcome"),
					(Integer) row.getObject("status"), row.getString("error"), row.getInt("millis")))
			.list();
	}

	List<Dispatch> takeDue(Duration hold, int limit) {
		return this.jdbc.sql(TAKE_DUE)
			.param("holdSeconds", seconds(hold))
			.param("limit", limit)
			.query((row, number) -> new Dispatch(row.getObject("id", UUID.class), row.getString("url"),
					types(row.getArray("types")), row.getString("secret"), row.getLong("cursor"),
					row.getInt("attempts"), row.getLong("dispatch_epoch")))
			.list();
	}

	long head() {
		return this.jdbc.sql(HEAD).query(Long.class).single();
	}

	List<Change> changesAfter(long cursor, long head, List<String> types, int limit) {
		return this.jdbc.sql(CHANGES_AFTER)
			.param("cursor", cursor)
			.param("head", head)
			.param("types", SqlArrays.texts(types))
			.param("limit", limit)
			.query((row, number) -> {
				long epoch = row.getLong("epoch");
				Long maybeEpoch = row.wasNull() ? null : epoch;
				return new Change(row.getLong("seq"), row.getString("type"), row.getObject("item_id", UUID.class),
						row.getObject("lease_id", UUID.class), maybeEpoch, row.getString("queue"),
						Rows.instant(row, "at"), row.getString("data"));
			})
			.list();
	}

	boolean passOver(Dispatch dispatch, long head, Duration hold) {
		return this.jdbc.sql(PASS_OVER)
			.param("head", head)
			.param("holdSeconds", seconds(hold))
			.param("id", dispatch.id())
			.param("epoch", dispatch.epoch())
			.update() == 1;
	}

	boolean recordDelivered(Dispatch dispatch, Attempt attempt, Duration hold) {
		return this.jdbc.sql(RECORD_DELIVERED)
			.param("seq", attempt.seq())
			.param("holdSeconds", seconds(hold))
			.param("id", dispatch.id())
			.param("epoch", dispatch.epoch())
			.param("messageId", attempt.messageId())
			.param("attempt", attempt.number())
			.param("status", attempt.status())
			.param("millis", attempt.millis())
			.update() == 1;
	}

	/** Empty when the hold was lost; else whether the webhook is now disabled. */
	Optional<Boolean> recordFailed(Dispatch dispatch, Attempt attempt, Duration retry, Duration disableAfter) {
		return this.jdbc.sql(RECORD_FAILED)
			.param("error", attempt.error())
			.param("retrySeconds", seconds(retry))
			.param("disableAfterSeconds", seconds(disableAfter))
			.param("seq", attempt.seq())
			.param("id", dispatch.id())
			.param("epoch", dispatch.epoch())
			.param("messageId", attempt.messageId())
			.param("attempt", attempt.number())
			.param("status", attempt.status())
			.param("millis", attempt.millis())
			.query(Boolean.class)
			.optional();
	}

	void disable(Dispatch dispatch, String reason) {
		this.jdbc.sql(DISABLE)
			.param("reason", reason)
			.param("id", dispatch.id())
			.param("epoch", dispatch.epoch())
			.update();
	}

	void release(Dispatch dispatch) {
		this.jdbc.sql(RELEASE).param("id", dispatch.id()).param("epoch", dispatch.epoch()).update();
	}

	int trimDeliveries(Duration retention, int batch) {
		return this.jdbc.sql(TRIM_DELIVERIES).param("seconds", retention.toSeconds()).param("batch", batch).update();
	}

	private static double seconds(Duration duration) {
		return duration.toMillis() / 1000.0;
	}

	private static WebhookView view(ResultSet row, int number) throws SQLException {
		return new WebhookView(row.getObject("id", UUID.class), row.getString("url"), types(row.getArray("types")),
				row.getLong("cursor"), Rows.instant(row, "created_at"), row.getString("created_by"),
				WebhookView.status(row.getTimestamp("disabled_at") != null, row.getInt("attempts")),
				row.getInt("attempts"), Rows.instant(row, "failing_since"), Rows.instant(row, "next_attempt_at"),
				row.getString("last_error"), Rows.instant(row, "disabled_at"), row.getString("disabled_reason"));
	}

	private static List<String> types(Array array) throws SQLException {
		return List.of((String[]) array.getArray());
	}

	/**
	 * A webhook as a dispatcher took it.
	 *
	 * @param cursor the last seq handled
	 * @param attempts failed attempts at the change after the cursor
	 * @param epoch the dispatch epoch that guards every write of this dispatcher
	 */
	record Dispatch(UUID id, String url, List<String> types, String secret, long cursor, int attempts, long epoch) {

		Dispatch advancedTo(long seq) {
			return new Dispatch(this.id, this.url, this.types, this.secret, seq, 0, this.epoch);
		}

	}

	/**
	 * One attempt to post one change.
	 *
	 * @param status the target's HTTP status; null when it did not answer
	 * @param error why it failed; null when it was delivered
	 */
	record Attempt(long seq, String messageId, int number, Integer status, String error, int millis) {
	}

}
