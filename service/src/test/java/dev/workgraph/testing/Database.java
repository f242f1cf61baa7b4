package dev.workgraph.testing;

import java.util.List;
import java.util.Map;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Direct access to the test database for set-up, clean-up and checks that the API cannot
 * make.
 */
public final class Database {

	private static final List<String> TABLES = List.of("attention_requests", "checkpoints", "lease_history", "leases",
			"ready_items", "dependencies", "idempotency_keys", "work_item_titles", "parked_items", "work_items",
			"access_tokens", "queue_settings", "waits", "events");

	/**
	 * The change outbox and the webhooks, emptied too but left out of the fingerprint:
	 * the sequencer moves changes from one table to the other, and the webhooks'
	 * dispatchers move their cursors, on their own schedule. The outbox's counter stays,
	 * as in production, so seqs never repeat.
	 */
	private static final List<String> OUTBOX = List.of("change_pending", "changes", "webhook_deliveries", "webhooks");

	private Database() {
	}

	/**
	 * Empties every table between tests. Lease history refuses TRUNCATE by trigger; tests
	 * (running as a superuser) switch triggers off for this one statement by acting as a
	 * replication apply.
	 *
	 * <p>
	 * TRUNCATE locks its tables one by one, while a background job of a service instance
	 * (the gauges' sampler, the reaper) may hold some of them and wait for another: then
	 * PostgreSQL breaks the deadlock by failing one side, and when that is the clean-up
	 * (its statements are one implicit transaction, so nothing of it stays) it runs
	 * again.
	 */
	public static void clean(JdbcClient jdbc) {
		for (int attempt = 1;; attempt++) {
			try {
				// One string, so all three statements run on the same pooled connection.
				jdbc.sql("set session_replication_role = replica; truncate " + String.join(", ", TABLES) + ", "
						+ String.join(", ", OUTBOX) + "; set session_replication_role = default")
					.update();
				return;
			}
			catch (PessimisticLockingFailureException deadlock) {
				if (attempt == 5) {
					throw deadlock;
				}
			}
		}
	}

	/**
	 * Row counts and a checksum of every table, to prove that a rejected request changed
	 * nothing.
	 */
	public static Map<String, Object> fingerprint(JdbcClient jdbc) {
		java.util.Map<String, Object> fingerprint = new java.util.LinkedHashMap<>();
		for (String table : TABLES) {
			fingerprint.put(table, jdbc
				.sql("select count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') from "
						+ table + " t")
				.query(String.class)
				.single());
		}
		return fingerprint;
	}

}
