package dev.workgraph.item;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Remembers which item each Idempotency-Key created, with the request it came with. The
 * request is stored as jsonb, so "the same body" is JSON equality (key order and number
 * spelling do not matter).
 */
@Repository
class IdempotencyKeys {

	static final String FIND_KEY = """
			select item_id, request = :request::jsonb as same_request from idempotency_keys where key = :key
			""";

	/**
	 * Waits for a concurrent insert of the same key to commit or roll back, then does
	 * nothing.
	 */
	static final String INSERT_KEY = """
			insert into idempotency_keys (key, request, item_id) values (:key, :request::jsonb, :itemId)
			on conflict (key) do nothing
			""";

	static final String DELETE_KEYS_OLDER_THAN = """
			delete from idempotency_keys where created_at < now() - make_interval(secs => :seconds)
			""";

	private final JdbcClient jdbc;

	IdempotencyKeys(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<Remembered> find(String key, String request) {
		return this.jdbc.sql(FIND_KEY)
			.param("key", key)
			.param("request", request)
			.query((rs, n) -> new Remembered(rs.getObject("item_id", UUID.class), rs.getBoolean("same_request")))
			.optional();
	}

	/** False when another request took the key first. */
	boolean insert(String key, String request, UUID itemId) {
		return this.jdbc.sql(INSERT_KEY)
			.param("key", key)
			.param("request", request)
			.param("itemId", itemId)
			.update() == 1;
	}

	int forgetOlderThan(Duration age) {
		return this.jdbc.sql(DELETE_KEYS_OLDER_THAN).param("seconds", (double) age.toSeconds()).update();
	}

	record Remembered(UUID itemId, boolean sameRequest) {
	}

}
