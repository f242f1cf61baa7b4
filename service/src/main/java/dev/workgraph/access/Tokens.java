package dev.workgraph.access;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.ListenerSessions;
import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code access_tokens} table: tokens by the hash of their secret. */
@Repository
class Tokens {

	static final String TOKEN_COLUMNS = "id, name, role, worker_id, queues, create_items, event_names, created_at, last_used_at, revoked_at";

	static final String INSERT = """
			insert into access_tokens (id, name, role, worker_id, queues, create_items, event_names, secret_hash)
			values (:id, :name, :role, :workerId, :queues::text[], :createItems, :eventNames::text[], :secretHash)
			returning %s
			""".formatted(TOKEN_COLUMNS);

	/**
	 * The token a request presents, with whether its lastUsedAt is due for a write (on
	 * PostgreSQL's clock, like every time in the service).
	 */
	static final String FIND_BY_SECRET_HASH = """
			select id, name, role, worker_id, queues, create_items, event_names, revoked_at is not null as revoked,
			    (last_used_at is null or last_used_at < now() - interval '1 minute') as last_use_stale
			from access_tokens
			where secret_hash = :secretHash
			""";

	/**
	 * Records a use at most once a minute: requests that race here after the first one
	 * wait for its row lock, then see a fresh lastUsedAt and write nothing.
	 */
	static final String TOUCH_IF_STALE = """
			update access_tokens set last_used_at = now()
			where id = :id and (last_used_at is null or last_used_at < now() - interval '1 minute')
			""";

	/**
	 * The listener sessions of every instance on this database, looked up after the
	 * revocation committed: a session that registers later cleared its instance's memory
	 * after that (see NotificationListener).
	 */
	static final String LISTENER_SESSIONS = "select l.pid from " + ListenerSessions.REGISTERED
			+ " where a.datname = current_database()";

	/** A time on the database's clock after the revocation committed. */
	static final String NOW = "select statement_timestamp()";

	static final String ANNOUNCE_REVOCATION = "select pg_notify(:channel, :tokenId)";

	/**
	 * Which of these listener sessions no longer need to confirm: gone, or their round
	 * trips recorded that they acted on every notification sent before {@code :at}.
	 */
	static final String LISTENERS_SETTLED = """
			select s.pid from unnest(cast(:pids as int[])) as s(pid)
			where not exists (select 1 from %1$s where l.pid = s.pid)
			    or exists (select 1 from %1$s where l.pid = s.pid and l.confirmed_through >= :at)
			""".formatted(ListenerSessions.REGISTERED);

	/** Only ever listener sessions of this database, whatever pids are passed. */
	static final String TERMINATE_LISTENERS = """
			select pg_terminate_backend(l.pid) from %s
			where l.pid = any(cast(:pids as int[])) and a.datname = current_database()
			""".formatted(ListenerSessions.REGISTERED);

	static final String LIST = "select " + TOKEN_COLUMNS + " from access_tokens order by created_at, id";

	static final String REVOKE = """
			update access_tokens set revoked_at = coalesce(revoked_at, now()) where id = :id
			""";

	/**
	 * Serializes the bootstrap check across instances starting at the same time, for the
	 * rest of the transaction.
	 */
	static final String LOCK_FOR_BOOTSTRAP = "select pg_advisory_xact_lock(hashtext('workgraph.access.bootstrap'))";

	static final String ANY_TOKEN = "select exists (select 1 from access_tokens)";

	private final JdbcClient jdbc;

	Tokens(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	TokenRow insert(String name, Role role, String workerId, List<String> queues, boolean createItems,
			List<String> eventNames, byte[] secretHash) {
		return this.jdbc.sql(INSERT)
			.param("id", dev.workgraph.sql.Uuid7.next())
			.param("name", name)
			.param("role", role.wire())
			.param("workerId", workerId)
			.param("queues", (queues != null) ? SqlArrays.texts(queues) : null)
			.param("createItems", createItems)
			.param("eventNames", (eventNames != null) ? SqlArrays.texts(eventNames) : null)
			.param("secretHash", secretHash)
			.query(Tokens::row)
			.single();
	}

	Optional<Presented> findBySecretHash(byte[] secretHash) {
		return this.jdbc.sql(FIND_BY_SECRET_HASH)
			.param("secretHash", secretHash)
			.query((rs,
					n) -> new Presented(
							new Caller(Rows.uuid(rs, "id"), rs.getString("name"), Role.fromWire(rs.getString("role")),
									rs.getString("worker_id"), queues(rs), rs.getBoolean("create_items"),
									texts(rs, "event_names")),
							rs.getBoolean("revoked"), rs.getBoolean("last_use_stale")))
			.optional();
	}

	void touch(UUID id) {
		this.jdbc.sql(TOUCH_IF_STALE).param("id", id).update();
	}

	List<TokenRow> list() {
		return this.jdbc.sql(LIST).query(Tokens::row).list();
	}

	/**
	 * Revokes the token (once: a second revocation keeps the first time); false if
	 * unknown.
	 */
	boolean revoke(UUID id) {
		return this.jdbc.sql(REVOKE).param("id", id).update() == 1;
	}

	/**
	 * In a transaction: announces the revocation on {@value TokenMemory#REVOKED_CHANNEL}
	 * (sent when it commits).
	 */
	void announceRevocation(UUID tokenId) {
		this.jdbc.sql(ANNOUNCE_REVOCATION)
			.param("channel", TokenMemory.REVOKED_CHANNEL)
			.param("tokenId", tokenId.toString())
			.query((rs, n) -> 1)
			.list();
	}

	/** After the announcement committed: the listener sessions, and a time after it. */
	Listeners listeners() {
		Timestamp at = this.jdbc.sql(NOW).query(Timestamp.class).single();
		return new Listeners(new HashSet<>(this.jdbc.sql(LISTENER_SESSIONS).query(Integer.class).list()), at);
	}

	Set<Integer> listenersSettled(Set<Integer> pids, Timestamp at) {
		return new HashSet<>(this.jdbc.sql(LISTENERS_SETTLED)
			.param("pids", pidArray(pids))
			.param("at", at)
			.query(Integer.class)
			.list());
	}

	void terminateListeners(Set<Integer> pids) {
		this.jdbc.sql(TERMINATE_LISTENERS).param("pids", pidArray(pids)).query((rs, n) -> 1).list();
	}

	private static String pidArray(Set<Integer> pids) {
		return SqlArrays.ints(pids.stream().mapToInt(Integer::intValue).toArray());
	}

	/**
	 * In a transaction: waits for other instances' bootstrap checks, then says whether
	 * any token exists.
	 */
	boolean anyTokenUnderBootstrapLock() {
		this.jdbc.sql(LOCK_FOR_BOOTSTRAP).query((rs, n) -> 1).list();
		return this.jdbc.sql(ANY_TOKEN).query(Boolean.class).single();
	}

	private static TokenRow row(java.sql.ResultSet rs, int n) throws java.sql.SQLException {
		return new TokenRow(Rows.uuid(rs, "id"), rs.getString("name"), Role.fromWire(rs.getString("role")),
				rs.getString("worker_id"), queues(rs), rs.getBoolean("create_items"), texts(rs, "event_names"),
				Rows.instant(rs, "created_at"), Rows.instant(rs, "last_used_at"), Rows.instant(rs, "revoked_at"));
	}

	private static List<String> queues(java.sql.ResultSet rs) throws java.sql.SQLException {
		return texts(rs, "queues");
	}

	private static List<String> texts(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
		java.sql.Array texts = rs.getArray(column);
		return (texts != null) ? List.of((String[]) texts.getArray()) : null;
	}

	/**
	 * The listener sessions a revocation waits for, and a time on the database's clock
	 * after it committed.
	 */
	record Listeners(Set<Integer> pids, Timestamp at) {
	}

	/** A token as listed: never its secret, which is not stored. */
	record TokenRow(UUID id, String name, Role role, String workerId, List<String> queues, boolean createItems,
			@JsonInclude(JsonInclude.Include.NON_NULL) List<String> eventNames, Instant createdAt, Instant lastUsedAt,
			Instant revokedAt) {
	}

	/**
	 * The token a request presented, whether it is revoked, whether its use is due to be
	 * recorded.
	 */
	record Presented(Caller caller, boolean revoked, boolean lastUseStale) {
	}

}
