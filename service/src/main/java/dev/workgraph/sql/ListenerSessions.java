package dev.workgraph.sql;

/**
 * The one PostgreSQL session per instance that LISTENs (ready items, token revocations):
 * how it shows in {@code pg_stat_activity}, so that an instance can find every other
 * instance's listener.
 */
public final class ListenerSessions {

	public static final String APPLICATION_NAME = "work-graph-listener";

	private ListenerSessions() {
	}

}
