package dev.workgraph.sql;

/**
 * The one PostgreSQL session per instance that LISTENs (ready items, token revocations),
 * registered in {@code listener_sessions} (V25) by its backend pid and start time, so
 * that an instance can find every other instance's listener whatever the configuration
 * sets (an {@code ApplicationName} in the JDBC URL overrides the name the listener gives
 * itself, so a name cannot be relied on).
 */
public final class ListenerSessions {

	/**
	 * How the session shows in {@code pg_stat_activity}, for people, unless overridden.
	 */
	public static final String APPLICATION_NAME = "work-graph-listener";

	/** Removes the registrations of sessions that are gone. */
	public static final String FORGET_GONE = """
			delete from listener_sessions l
			where not exists (select 1 from pg_stat_activity a where a.pid = l.pid and a.backend_start = l.backend_start)
			""";

	/** Registers the session that runs it (autocommit, after FORGET_GONE). */
	public static final String REGISTER = """
			insert into listener_sessions (pid, backend_start)
			select pid, backend_start from pg_stat_activity where pid = pg_backend_pid()
			on conflict (pid) do update set backend_start = excluded.backend_start, registered_at = now()
			""";

	/**
	 * The listener's round trip: records up to when it has acted on every notification
	 * and answers the database time now (when the statement started), up to which it will
	 * have once it has acted on the notifications that arrive with the answer. No row:
	 * the registration was removed (the table emptied), register again.
	 */
	public static final String ROUND_TRIP = """
			update listener_sessions set confirmed_through = greatest(confirmed_through, cast(? as timestamptz))
			where pid = pg_backend_pid()
			returning statement_timestamp()
			""";

	/**
	 * Sessions that are listeners: registered and still running. A join with
	 * {@code pg_stat_activity} as {@code a}.
	 */
	public static final String REGISTERED = """
			listener_sessions l join pg_stat_activity a on a.pid = l.pid and a.backend_start = l.backend_start
			""";

	private ListenerSessions() {
	}

}
