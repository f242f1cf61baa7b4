package dev.workgraph.wait;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The lock that makes a lost wake-up impossible (docs/adr/0027). An event and a wait of
 * the same name and key, in concurrent READ COMMITTED transactions, would otherwise each
 * miss the other: the event's match does not see the uncommitted wait, the wait's look
 * for a retained event does not see the uncommitted event, and both commit. Both take
 * this transaction-scoped lock first, so one of them runs after the other committed, and
 * its next statement (a fresh snapshot) sees it.
 */
@Repository
class EventKeys {

	/**
	 * "WAIT" as the first key of PostgreSQL's two-key advisory locks, whose key space is
	 * apart from the one-key locks the service takes elsewhere; the second is a hash of
	 * name and key. Two pairs that share a hash only wait for each other.
	 */
	static final int LOCK_SPACE = 0x57414954;

	static final String LOCK_EVENT_KEY = """
			select 1 from pg_advisory_xact_lock(:space, hashtext(length(:name) || ':' || :name || :key))
			""";

	private final JdbcClient jdbc;

	EventKeys(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Locks (name, key) until the transaction ends. */
	void lock(String name, String key) {
		this.jdbc.sql(LOCK_EVENT_KEY)
			.param("space", LOCK_SPACE)
			.param("name", name)
			.param("key", key)
			.query()
			.listOfRows();
	}

}
